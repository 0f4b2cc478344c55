//! Easy handles: `curl_easy_*`. A `CURL *` is a `Box<EasyHandle>`; its settings live in a
//! `RefCell` that is never borrowed while an application callback runs, so a callback may
//! call back into the API (getinfo, setopt) without aliasing; a recursive perform answers
//! `CURLE_RECURSIVE_API_CALL`.

use crate::consts::*;
use crate::ffi::{cstr, cstring_opt};
use crate::slist::{self, CurlSlist};
use oxcurl_core::options::{Body, HttpVersionPref, IpResolve};
use oxcurl_core::{Callbacks as EngineCallbacks, Easy, Info, InfoType, Options, ReadResult};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_long, c_void, CString};
use std::time::Duration;

pub type WriteFn = unsafe extern "C" fn(*const c_char, usize, usize, *mut c_void) -> usize;
pub type ReadFn = unsafe extern "C" fn(*mut c_char, usize, usize, *mut c_void) -> usize;
pub type XferInfoFn = unsafe extern "C" fn(*mut c_void, i64, i64, i64, i64) -> c_int;
pub type DebugFn =
    unsafe extern "C" fn(*mut EasyHandle, c_int, *const c_char, usize, *mut c_void) -> c_int;
pub type ProgressFn = unsafe extern "C" fn(*mut c_void, f64, f64, f64, f64) -> c_int;
pub type SeekFn = unsafe extern "C" fn(*mut c_void, i64, c_int) -> c_int;
pub type IoctlFn = unsafe extern "C" fn(*mut EasyHandle, c_int, *mut c_void) -> c_int;
pub type PrereqFn =
    unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char, c_int, c_int) -> c_int;
pub type ResolverStartFn = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void) -> c_int;
pub type TrailerFn = unsafe extern "C" fn(*mut *mut CurlSlist, *mut c_void) -> c_int;
/// `CURLOPT_SSL_CTX_FUNCTION`: the handle, OpenSSL's `SSL_CTX *`, SSL_CTX_DATA.
pub type SslCtxFn = unsafe extern "C" fn(*mut EasyHandle, *mut c_void, *mut c_void) -> CURLcode;
/// `CURLOPT_FNMATCH_FUNCTION`: FNMATCH_DATA, the pattern, the name; 0 is a match.
pub type FnmatchFn = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int;
/// `CURLOPT_CHUNK_BGN_FUNCTION`: a `struct curl_fileinfo *`, CHUNK_DATA, the entries left.
pub type ChunkBgnFn = unsafe extern "C" fn(*const FileInfoC, *mut c_void, c_int) -> c_long;
/// `CURLOPT_CHUNK_END_FUNCTION`: CHUNK_DATA.
pub type ChunkEndFn = unsafe extern "C" fn(*mut c_void) -> c_long;

/// `struct curl_fileinfo` (curl.h): a wildcard download's entry, its strings pointing into
/// buffers that live for the callback (`tests/c/layout.c` checks the layout).
#[repr(C)]
pub struct FileInfoC {
    pub filename: *mut c_char,
    pub filetype: c_int,
    /// Always zero, as in curl.
    pub time: i64,
    pub perm: std::os::raw::c_uint,
    pub uid: c_int,
    pub gid: c_int,
    pub size: i64,
    pub hardlinks: c_long,
    pub s_time: *mut c_char,
    pub s_perm: *mut c_char,
    pub s_user: *mut c_char,
    pub s_group: *mut c_char,
    pub s_target: *mut c_char,
    pub flags: std::os::raw::c_uint,
    pub b_data: *mut c_char,
    pub b_size: usize,
    pub b_used: usize,
}
pub type HstsReadFn = unsafe extern "C" fn(*mut EasyHandle, *mut HstsEntryC, *mut c_void) -> c_int;
pub type HstsWriteFn =
    unsafe extern "C" fn(*mut EasyHandle, *mut HstsEntryC, *mut CurlIndex, *mut c_void) -> c_int;

/// `struct curl_hstsentry`: `includeSubDomains` is a one-bit field in the byte after
/// `namelen` (bit 0), and `expire` follows in the next byte (`tests/c/layout.c`).
#[repr(C)]
pub struct HstsEntryC {
    pub name: *mut c_char,
    pub namelen: usize,
    pub include_subdomains: u8,
    pub expire: [c_char; 18],
}

/// `struct curl_index`.
#[repr(C)]
pub struct CurlIndex {
    pub index: usize,
    pub total: usize,
}

/// `CURLSTS_OK` and `CURLSTS_FAIL`.
const CURLSTS_OK: c_int = 0;
const CURLSTS_FAIL: c_int = 2;
/// curl's `MAX_HSTS_HOSTLEN`.
const MAX_HSTS_HOSTLEN: usize = 2048;

extern "C" {
    fn oxcurl_default_write(p: *const c_char, n: usize, file: *mut c_void) -> usize;
    fn oxcurl_default_read(p: *mut c_char, n: usize, file: *mut c_void) -> usize;
    fn oxcurl_stderr_write(p: *const c_char, n: usize);
    fn oxcurl_fread(p: *mut c_char, size: usize, n: usize, file: *mut c_void) -> usize;
    fn oxcurl_default_rewind(file: *mut c_void) -> c_int;
    fn oxcurl_std_stream(input: c_int) -> *mut c_void;
}

/// The application's callbacks and their userdata, as set with setopt.
#[derive(Clone, Copy)]
pub(crate) struct Callbacks {
    write: Option<WriteFn>,
    write_data: *mut c_void,
    header: Option<WriteFn>,
    header_data: *mut c_void,
    read: Option<ReadFn>,
    read_data: *mut c_void,
    xferinfo: Option<XferInfoFn>,
    xferinfo_data: *mut c_void,
    /// The old CURLOPT_PROGRESSFUNCTION (doubles); XFERINFOFUNCTION wins when both are set.
    progress: Option<ProgressFn>,
    seek: Option<SeekFn>,
    seek_data: *mut c_void,
    ioctl: Option<IoctlFn>,
    ioctl_data: *mut c_void,
    debug: Option<DebugFn>,
    debug_data: *mut c_void,
    prereq: Option<PrereqFn>,
    prereq_data: *mut c_void,
    resolver_start: Option<ResolverStartFn>,
    resolver_start_data: *mut c_void,
    trailer: Option<TrailerFn>,
    trailer_data: *mut c_void,
    hsts_read: Option<HstsReadFn>,
    hsts_read_data: *mut c_void,
    hsts_write: Option<HstsWriteFn>,
    hsts_write_data: *mut c_void,
    ssl_ctx: Option<SslCtxFn>,
    ssl_ctx_data: *mut c_void,
    fnmatch: Option<FnmatchFn>,
    fnmatch_data: *mut c_void,
    chunk_bgn: Option<ChunkBgnFn>,
    chunk_end: Option<ChunkEndFn>,
    chunk_data: *mut c_void,
    no_progress: bool,
    handle: *mut EasyHandle,
}

impl Callbacks {
    fn new(handle: *mut EasyHandle) -> Callbacks {
        Callbacks {
            write: None,
            // curl's defaults: the application's callbacks get stdout and stdin unless
            // WRITEDATA and READDATA say otherwise.
            // SAFETY: returns the C library's stdout/stdin, no arguments to check.
            write_data: unsafe { oxcurl_std_stream(0) },
            header: None,
            header_data: std::ptr::null_mut(),
            read: None,
            // SAFETY: as above.
            read_data: unsafe { oxcurl_std_stream(1) },
            xferinfo: None,
            xferinfo_data: std::ptr::null_mut(),
            progress: None,
            seek: None,
            seek_data: std::ptr::null_mut(),
            ioctl: None,
            ioctl_data: std::ptr::null_mut(),
            debug: None,
            debug_data: std::ptr::null_mut(),
            prereq: None,
            prereq_data: std::ptr::null_mut(),
            resolver_start: None,
            resolver_start_data: std::ptr::null_mut(),
            trailer: None,
            trailer_data: std::ptr::null_mut(),
            hsts_read: None,
            hsts_read_data: std::ptr::null_mut(),
            hsts_write: None,
            hsts_write_data: std::ptr::null_mut(),
            ssl_ctx: None,
            ssl_ctx_data: std::ptr::null_mut(),
            fnmatch: None,
            fnmatch_data: std::ptr::null_mut(),
            chunk_bgn: None,
            chunk_end: None,
            chunk_data: std::ptr::null_mut(),
            no_progress: true,
            handle,
        }
    }
}

impl Callbacks {
    /// SSL_CTX_FUNCTION as the engine's hook, called with the handle and SSL_CTX_DATA.
    fn ctx_hook(&self) -> Option<oxcurl_core::tls::CtxHook> {
        let f = self.ssl_ctx?;
        let call = CtxCall(f, self.handle, self.ssl_ctx_data);
        Some(oxcurl_core::tls::CtxHook::new(
            (f as usize, self.ssl_ctx_data as usize),
            move |ctx| call.call(ctx),
        ))
    }
}

/// An SSL_CTX_FUNCTION with its handle and data.
#[derive(Clone, Copy)]
struct CtxCall(SslCtxFn, *mut EasyHandle, *mut c_void);

// SAFETY: libcurl's contract: a handle and its callbacks are used by one thread at a time;
// the engine calls the hook on the thread driving the transfer.
unsafe impl Send for CtxCall {}
// SAFETY: as above; never called from two threads at once.
unsafe impl Sync for CtxCall {}

impl CtxCall {
    fn call(&self, ctx: usize) -> Result<(), oxcurl_core::error::Code> {
        // SAFETY: an SSL_CTX_FUNCTION-shaped pointer (curl.h), given the live handle whose
        // transfer makes the context, OpenSSL's SSL_CTX being set up and SSL_CTX_DATA.
        let rc = unsafe { (self.0)(self.1, ctx as *mut c_void, self.2) };
        if rc == CURLE_OK {
            return Ok(());
        }
        Err(oxcurl_core::error::Code::from_u32(rc as u32)
            .unwrap_or(oxcurl_core::error::Code::FailedInit))
    }
}

/// The engine's `Callbacks` made of C function pointers, and whether the header callback
/// refused the last line with `CURL_WRITEFUNC_PAUSE` (the header store has it already; the
/// engine hands it over again).
struct CCallbacks(Callbacks, crate::headers::Shared, bool);

// SAFETY: libcurl's contract is that a handle is used by one thread at a time; the callbacks
// is only called on the thread inside curl_easy_perform/curl_multi_perform, and the
// userdata pointers are the application's to synchronise as in C libcurl.
unsafe impl Send for CCallbacks {}

impl CCallbacks {
    fn write_to(&self, f: Option<WriteFn>, data: *mut c_void, buf: &[u8]) -> usize {
        match f.or(self.0.write) {
            // SAFETY: a WRITEFUNCTION-shaped pointer set by the application; buf is valid
            // for len bytes for the duration of the call. No Rust borrow of the handle is
            // held here (perform took the engine handle out of it).
            Some(f) => unsafe { f(buf.as_ptr() as *const c_char, 1, buf.len(), data) },
            // SAFETY: `data` is the FILE * the application gave as WRITEDATA, or NULL for
            // stdout, as curl's default callback expects.
            None => unsafe { oxcurl_default_write(buf.as_ptr() as *const c_char, buf.len(), data) },
        }
    }
}

/// Sets the handle's running-transfer statistics for the length of a callback; puts back
/// what was there when dropped.
struct LiveInfo(*mut EasyHandle, *const Info);

impl LiveInfo {
    fn set(handle: *mut EasyHandle, info: &Info) -> LiveInfo {
        // SAFETY: the handle this transfer belongs to, alive while it runs.
        let prev = match unsafe { EasyHandle::from_ptr(handle) } {
            Some(e) => e.live.replace(info),
            None => std::ptr::null(),
        };
        LiveInfo(handle, prev)
    }
}

impl Drop for LiveInfo {
    fn drop(&mut self) {
        // SAFETY: as in `set`.
        if let Some(e) = unsafe { EasyHandle::from_ptr(self.0) } {
            e.live.set(self.1);
        }
    }
}

impl EngineCallbacks for CCallbacks {
    fn write_live(&mut self, data: &[u8], info: &Info) -> usize {
        let _live = LiveInfo::set(self.0.handle, info);
        self.write(data)
    }
    fn header_live(&mut self, line: &[u8], info: &Info) -> usize {
        let _live = LiveInfo::set(self.0.handle, info);
        self.header(line)
    }
    fn progress_live(&mut self, now: (u64, u64, u64, u64), info: &Info) -> bool {
        let _live = LiveInfo::set(self.0.handle, info);
        self.progress(now.0, now.1, now.2, now.3)
    }
    fn debug_live(&mut self, kind: InfoType, data: &[u8], info: &Info) {
        let _live = LiveInfo::set(self.0.handle, info);
        self.debug(kind, data)
    }
    fn read_live(&mut self, buf: &mut [u8], info: &Info) -> ReadResult {
        let _live = LiveInfo::set(self.0.handle, info);
        self.read(buf)
    }
    fn rewind_live(&mut self, info: &Info) -> bool {
        let _live = LiveInfo::set(self.0.handle, info);
        self.rewind()
    }
    fn prereq_live(
        &mut self,
        remote: Option<std::net::SocketAddr>,
        local: Option<std::net::SocketAddr>,
        info: &Info,
    ) -> bool {
        let _live = LiveInfo::set(self.0.handle, info);
        self.prereq(remote, local)
    }
    fn lend_info(&mut self, info: &Info, f: &mut dyn FnMut()) {
        let _live = LiveInfo::set(self.0.handle, info);
        f()
    }
    fn write(&mut self, data: &[u8]) -> usize {
        self.write_to(None, self.0.write_data, data)
    }
    fn header(&mut self, line: &[u8]) -> usize {
        if !std::mem::take(&mut self.2) {
            if let Ok(mut store) = self.1.lock() {
                store.line(line);
            }
        }
        let n = if self.0.header.is_some() {
            self.write_to(self.0.header, self.0.header_data, line)
        } else if !self.0.header_data.is_null() {
            self.write_to(None, self.0.header_data, line)
        } else {
            line.len()
        };
        self.2 = n == CURL_WRITEFUNC_PAUSE;
        n
    }
    fn read(&mut self, buf: &mut [u8]) -> ReadResult {
        let n = match self.0.read {
            // SAFETY: a READFUNCTION-shaped pointer; buf is writable for len bytes.
            Some(f) => unsafe {
                f(
                    buf.as_mut_ptr() as *mut c_char,
                    1,
                    buf.len(),
                    self.0.read_data,
                )
            },
            // SAFETY: READDATA is a FILE * (or NULL for stdin) for the default callback.
            None => unsafe {
                oxcurl_default_read(buf.as_mut_ptr() as *mut c_char, buf.len(), self.0.read_data)
            },
        };
        if n == CURL_READFUNC_PAUSE {
            ReadResult::Pause
        } else if n == CURL_READFUNC_ABORT || n > buf.len() {
            ReadResult::Abort
        } else {
            ReadResult::Data(n)
        }
    }
    /// curl's `cr_in_rewind`: SEEKFUNCTION, else IOCTLFUNCTION, else `fseek` on READDATA
    /// when the default reader is used. A callback's refusal is named in the error text.
    fn rewind(&mut self) -> bool {
        let fail = |msg: String| {
            // SAFETY: the handle this transfer belongs to; no borrow of its state is held
            // while the engine runs (fail_text only tries one).
            if let Some(e) = unsafe { EasyHandle::from_ptr(self.0.handle) } {
                e.fail_text(&msg);
            }
            false
        };
        if let Some(f) = self.0.seek {
            // SAFETY: a SEEKFUNCTION-shaped pointer; SEEK_SET is 0.
            let r = unsafe { f(self.0.seek_data, 0, 0) };
            return r == 0 || fail(format!("seek callback returned error {r}"));
        }
        if let Some(f) = self.0.ioctl {
            // SAFETY: an IOCTLFUNCTION-shaped pointer; 1 is CURLIOCMD_RESTARTREAD.
            let r = unsafe { f(self.0.handle, 1, self.0.ioctl_data) };
            return r == 0 || fail(format!("ioctl callback returned error {r}"));
        }
        // SAFETY: without a read callback READDATA is a FILE * (or NULL for stdin).
        self.0.read.is_none() && unsafe { oxcurl_default_rewind(self.0.read_data) } != -1
    }
    fn has_debug_callback(&self) -> bool {
        self.0.debug.is_some()
    }
    fn debug(&mut self, kind: InfoType, data: &[u8]) {
        // curl's informational texts are NUL-terminated after their length (infof formats
        // into a C string), and applications print them with %s: so are ours.
        let text;
        let data = if kind == InfoType::Text && self.0.debug.is_some() {
            let mut t = Vec::with_capacity(data.len() + 1);
            t.extend_from_slice(data);
            t.push(0);
            text = t;
            &text[..data.len()]
        } else {
            data
        };
        match self.0.debug {
            // SAFETY: a DEBUGFUNCTION-shaped pointer; the handle pointer is the CURL * the
            // application owns; data is valid for len bytes.
            Some(f) => unsafe {
                f(
                    self.0.handle,
                    kind as c_int,
                    data.as_ptr() as *const c_char,
                    data.len(),
                    self.0.debug_data,
                );
            },
            None => {
                let prefix: &[u8] = match kind {
                    InfoType::Text => b"* ",
                    InfoType::HeaderIn => b"< ",
                    InfoType::HeaderOut => b"> ",
                    _ => return,
                };
                // SAFETY: both buffers are valid for their lengths.
                unsafe {
                    oxcurl_stderr_write(prefix.as_ptr() as *const c_char, prefix.len());
                    oxcurl_stderr_write(data.as_ptr() as *const c_char, data.len());
                }
            }
        }
    }
    fn progress(&mut self, dltotal: u64, dlnow: u64, ultotal: u64, ulnow: u64) -> bool {
        if self.0.no_progress {
            return true;
        }
        let Some(f) = self.0.xferinfo else {
            let Some(f) = self.0.progress else {
                return true;
            };
            // SAFETY: a PROGRESSFUNCTION-shaped pointer set by the application.
            let r = unsafe {
                f(
                    self.0.xferinfo_data,
                    dltotal as f64,
                    dlnow as f64,
                    ultotal as f64,
                    ulnow as f64,
                )
            };
            return r == 0 || r == CURL_PROGRESSFUNC_CONTINUE;
        };
        let c = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        // SAFETY: an XFERINFOFUNCTION-shaped pointer set by the application.
        let r = unsafe {
            f(
                self.0.xferinfo_data,
                c(dltotal),
                c(dlnow),
                c(ultotal),
                c(ulnow),
            )
        };
        r == 0 || r == CURL_PROGRESSFUNC_CONTINUE
    }
    fn resolver_start(&mut self) -> bool {
        match self.0.resolver_start {
            // SAFETY: a RESOLVER_START_FUNCTION-shaped pointer; this build has no resolver
            // state to hand out (curl's threaded resolver passes NULL too).
            Some(f) => unsafe {
                f(
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    self.0.resolver_start_data,
                ) == 0
            },
            None => true,
        }
    }
    fn prereq(
        &mut self,
        remote: Option<std::net::SocketAddr>,
        local: Option<std::net::SocketAddr>,
    ) -> bool {
        let Some(f) = self.0.prereq else {
            return true;
        };
        let ip = |a: Option<std::net::SocketAddr>| {
            CString::new(a.map(|a| a.ip().to_string()).unwrap_or_default()).unwrap_or_default()
        };
        let (rip, lip) = (ip(remote), ip(local));
        let port = |a: Option<std::net::SocketAddr>| a.map_or(0, |a| c_int::from(a.port()));
        // SAFETY: a PREREQFUNCTION-shaped pointer; both strings live across the call.
        let r = unsafe {
            f(
                self.0.prereq_data,
                rip.as_ptr(),
                lip.as_ptr(),
                port(remote),
                port(local),
            )
        };
        r == 0
    }
    /// curl's `hsts_pull`: a name buffer of `MAX_HSTS_HOSTLEN` bytes, no expiry by default.
    fn hsts_read(&mut self) -> oxcurl_core::hsts::HstsPull {
        use oxcurl_core::hsts::{HstsEntry, HstsPull};
        let Some(f) = self.0.hsts_read else {
            return HstsPull::Done;
        };
        let mut name = vec![0 as c_char; MAX_HSTS_HOSTLEN + 1];
        let mut e = HstsEntryC {
            name: name.as_mut_ptr(),
            namelen: MAX_HSTS_HOSTLEN,
            include_subdomains: 0,
            expire: [0; 18],
        };
        // SAFETY: an HSTSREADFUNCTION-shaped pointer; the entry and its name buffer (namelen
        // + 1 bytes) live across the call.
        let r = unsafe { f(self.0.handle, &mut e, self.0.hsts_read_data) };
        match r {
            CURLSTS_OK => {}
            CURLSTS_FAIL => return HstsPull::Fail,
            _ => return HstsPull::Done,
        }
        name[MAX_HSTS_HOSTLEN] = 0;
        e.expire[17] = 0;
        // SAFETY: both buffers are NUL-terminated (set just above).
        let (host, expire) = unsafe {
            (
                std::ffi::CStr::from_ptr(name.as_ptr()),
                std::ffi::CStr::from_ptr(e.expire.as_ptr()),
            )
        };
        if host.is_empty() {
            // curl stops there (with CURLE_BAD_FUNCTION_ARGUMENT).
            return HstsPull::Done;
        }
        HstsPull::Entry(HstsEntry {
            host: host.to_string_lossy().into_owned(),
            subdomains: e.include_subdomains & 1 != 0,
            expire: expire.to_string_lossy().into_owned(),
        })
    }
    fn chunk_bgn(
        &mut self,
        e: &oxcurl_core::proto::ftp_list::FileInfo,
        remains: usize,
    ) -> oxcurl_core::options::ChunkBgn {
        use oxcurl_core::options::ChunkBgn;
        let Some(f) = self.0.chunk_bgn else {
            return ChunkBgn::Ok;
        };
        // The strings, NUL-terminated, for the length of the call.
        let c = |v: &[u8]| std::ffi::CString::new(v.to_vec()).unwrap_or_default();
        let name = c(&e.filename);
        let time = c(&e.time);
        let opt = |v: &Option<Vec<u8>>| v.as_deref().map(c);
        let (perm, user, group, target) = (
            opt(&e.perm_text),
            opt(&e.user),
            opt(&e.group),
            opt(&e.target),
        );
        let ptr = |v: &Option<std::ffi::CString>| {
            v.as_ref()
                .map_or(std::ptr::null_mut(), |s| s.as_ptr() as *mut c_char)
        };
        let info = FileInfoC {
            filename: name.as_ptr() as *mut c_char,
            filetype: e.filetype as c_int,
            time: 0,
            perm: e.perm,
            uid: 0,
            gid: 0,
            size: e.size,
            hardlinks: e.hardlinks as c_long,
            s_time: time.as_ptr() as *mut c_char,
            s_perm: ptr(&perm),
            s_user: ptr(&user),
            s_group: ptr(&group),
            s_target: ptr(&target),
            flags: e.flags,
            b_data: std::ptr::null_mut(),
            b_size: 0,
            b_used: 0,
        };
        let remains = c_int::try_from(remains).unwrap_or(c_int::MAX);
        // SAFETY: a CHUNK_BGN_FUNCTION-shaped pointer; `info` and the strings it points to
        // live until the call returns, and CHUNK_DATA is the application's.
        match unsafe { f(&info, self.0.chunk_data, remains) } {
            1 => ChunkBgn::Fail,
            2 => ChunkBgn::Skip,
            _ => ChunkBgn::Ok,
        }
    }
    fn chunk_end(&mut self) {
        if let Some(f) = self.0.chunk_end {
            // SAFETY: a CHUNK_END_FUNCTION-shaped pointer given CHUNK_DATA; curl ignores
            // what it returns.
            unsafe { f(self.0.chunk_data) };
        }
    }
    fn fnmatch(&mut self, pattern: &[u8], name: &[u8]) -> Option<i32> {
        let f = self.0.fnmatch?;
        let p = std::ffi::CString::new(pattern.to_vec()).ok()?;
        let n = std::ffi::CString::new(name.to_vec()).ok()?;
        // SAFETY: an FNMATCH_FUNCTION-shaped pointer given FNMATCH_DATA and two
        // NUL-terminated strings that live for the call.
        Some(unsafe { f(self.0.fnmatch_data, p.as_ptr(), n.as_ptr()) })
    }
    fn trailers(&mut self) -> Option<Vec<Vec<u8>>> {
        let Some(f) = self.0.trailer else {
            return Some(Vec::new());
        };
        let mut list: *mut CurlSlist = std::ptr::null_mut();
        // SAFETY: a TRAILERFUNCTION-shaped pointer; it appends to the list we own and free.
        let r = unsafe { f(&mut list, self.0.trailer_data) };
        // SAFETY: NULL or a list the callback built with curl_slist_append.
        let lines = unsafe { slist::to_vec(list) };
        slist::curl_slist_free_all(list);
        (r == 0).then(|| lines.into_iter().map(String::into_bytes).collect())
    }
}

/// How the request body is described, resolved at perform time as curl does.
#[derive(Clone, Default)]
struct BodySpec {
    /// POSTFIELDS: the application's buffer, read at perform time.
    fields: Option<usize>,
    /// COPYPOSTFIELDS: our copy.
    copied: Option<Vec<u8>>,
    /// MIMEPOST: the application's mime, read at perform time (unless freed since).
    mime: Option<crate::mime::MimeRef>,
    /// HTTPPOST: the application's curl_formadd form, read at perform time.
    httppost: Option<usize>,
    /// MIME_OPTIONS has CURLMIMEOPT_FORMESCAPE: backslash-escape names.
    mime_escape: bool,
    fields_size: Option<i64>,
    post: bool,
    /// HTTPPOST or MIMEPOST set to NULL: curl still POSTs, an empty body with no type.
    empty_form: bool,
    upload: bool,
    infile_size: Option<u64>,
}

/// The settable state of a handle.
pub(crate) struct State {
    easy: Option<Easy>,
    pub(crate) opts: Options,
    cb: Callbacks,
    body: BodySpec,
    headers: *const CurlSlist,
    /// CURLOPT_PROXYHEADER.
    proxy_headers: *const CurlSlist,
    /// CURLOPT_HEADEROPT is CURLHEADER_UNIFIED.
    unified_headers: bool,
    /// CURLOPT_TIMECONDITION and CURLOPT_TIMEVALUE, combined at perform time.
    time_cond: c_long,
    time_value: i64,
    /// CURLOPT_FILETIME: CURLINFO_FILETIME reports the document's Last-Modified.
    filetime: bool,
    resolve: *const CurlSlist,
    /// CURLOPT_QUOTE, CURLOPT_PREQUOTE, CURLOPT_POSTQUOTE: read when a transfer starts.
    quote: *const CurlSlist,
    prequote: *const CurlSlist,
    postquote: *const CurlSlist,
    connect_to: *const CurlSlist,
    /// CURLOPT_HTTP200ALIASES.
    http200aliases: *const CurlSlist,
    /// CURLOPT_CURLU: the application's URL handle, read at perform time.
    curlu: *mut crate::url::UrlHandle,
    errorbuffer: *mut c_char,
    private: *mut c_void,
    info: Info,
    /// Strings handed out by getinfo; they live until the next perform or cleanup.
    strings: Vec<CString>,
    /// `CURLINFO_CERTINFO`'s lists, built from `info` when first asked for.
    certinfo: Option<crate::certinfo::Certinfo>,
    /// The copy of the MIMEPOST mime curl_easy_duphandle made: this handle's to free.
    owned_mime: usize,
    /// CURLOPT_SHARE: the share this handle is counted in.
    share: *mut crate::share::ShareHandle,
    /// The connection the last CONNECT_ONLY transfer made (`curl_easy_send`/`recv`).
    pub(crate) raw: Option<oxcurl_core::conn::RawConn>,
    /// OPENSOCKETFUNCTION, SOCKOPTFUNCTION, CLOSESOCKETFUNCTION and their data.
    sock_cb: crate::sockets::SocketCallbacks,
}

impl State {
    /// The socket of the connection the last transfer left open: the CONNECT_ONLY
    /// connection, else the one kept for reuse (curl's `Curl_getconnectinfo`).
    fn last_socket(&self) -> Option<c_int> {
        use std::os::fd::AsRawFd;
        match &self.raw {
            Some(c) => Some(c.fd().as_raw_fd()),
            None => self.info.last_socket,
        }
    }

    /// Frees the MIMEPOST copy this handle owns, if any.
    fn drop_owned_mime(&mut self) {
        let m = std::mem::take(&mut self.owned_mime);
        // SAFETY: made by mime::dup for this handle and not handed to the application.
        unsafe { crate::mime::free(m as *mut crate::mime::MimeHandle) };
    }
}

const MAGIC: u32 = 0xc0de_ea51;

/// What a `CURL *` points to.
pub struct EasyHandle {
    magic: u32,
    pub(crate) state: RefCell<State>,
    /// A perform is running on this handle (from easy or multi).
    pub(crate) busy: Cell<bool>,
    /// The handle belongs to a multi.
    pub(crate) in_multi: Cell<bool>,
    /// What curl_easy_header reads; shared with the running transfer's callbacks.
    pub(crate) headers: crate::headers::Shared,
    /// An error text was written to ERRORBUFFER since the last transfer started.
    errorbuf_used: Cell<bool>,
    /// What `curl_easy_pause` sets; shared with the running transfer.
    pub(crate) pause: oxcurl_core::pause::Pause,
    /// The running transfer's statistics while one of its callbacks runs (NULL otherwise):
    /// what `curl_easy_getinfo` answers from inside a callback.
    live: Cell<*const Info>,
    /// An option was set since the last `prepare`: a transfer added to a multi and not
    /// started yet is made again from the options (curl reads them when it starts).
    pub(crate) changed: Cell<bool>,
}

impl EasyHandle {
    fn new() -> Box<EasyHandle> {
        let mut h = Box::new(EasyHandle {
            magic: MAGIC,
            state: RefCell::new(State {
                easy: Some(Easy::default()),
                opts: Options::default(),
                cb: Callbacks::new(std::ptr::null_mut()),
                body: BodySpec::default(),
                headers: std::ptr::null(),
                proxy_headers: std::ptr::null(),
                unified_headers: false,
                time_cond: 0,
                time_value: 0,
                filetime: false,
                resolve: std::ptr::null(),
                quote: std::ptr::null(),
                prequote: std::ptr::null(),
                postquote: std::ptr::null(),
                connect_to: std::ptr::null(),
                http200aliases: std::ptr::null(),
                curlu: std::ptr::null_mut(),
                errorbuffer: std::ptr::null_mut(),
                private: std::ptr::null_mut(),
                info: Info::default(),
                strings: Vec::new(),
                certinfo: None,
                owned_mime: 0,
                share: std::ptr::null_mut(),
                raw: None,
                sock_cb: Default::default(),
            }),
            busy: Cell::new(false),
            in_multi: Cell::new(false),
            headers: crate::headers::new_store(),
            errorbuf_used: Cell::new(false),
            pause: oxcurl_core::pause::Pause::default(),
            live: Cell::new(std::ptr::null()),
            changed: Cell::new(false),
        });
        let p: *mut EasyHandle = &mut *h;
        h.state.get_mut().cb.handle = p;
        h
    }

    /// The handle behind a `CURL *`, if it is one.
    ///
    /// # Safety
    /// `p` is NULL or a pointer the application got from `curl_easy_init`/`duphandle` and has
    /// not cleaned up.
    pub(crate) unsafe fn from_ptr<'a>(p: *mut EasyHandle) -> Option<&'a EasyHandle> {
        if p.is_null() {
            return None;
        }
        // SAFETY: per the caller, a live EasyHandle.
        let h = unsafe { &*p };
        (h.magic == MAGIC).then_some(h)
    }

    /// The settings and callbacks for a transfer: the options with the C-side values (the
    /// body, slists read now as curl reads them at perform time) and the callbacks.
    pub(crate) fn prepare(&self) -> (Options, Box<dyn EngineCallbacks>) {
        self.changed.set(false);
        let mut st = self.state.borrow_mut();
        // A new transfer: the previous CONNECT_ONLY connection closes.
        st.raw = None;
        if !st.curlu.is_null() {
            // curl's Curl_pretransfer: CURLOPT_CURLU's URL replaces CURLOPT_URL (for good),
            // none when the handle has no full URL.
            // SAFETY: the application keeps the URL handle alive while it is set
            // (CURLOPT_CURLU(3)).
            let (url, shown) = unsafe { crate::url::whole_url(st.curlu) }.unzip();
            st.opts.url = url;
            st.opts.url_shown = shown.flatten();
        }
        st.opts.url_allow_space = !st.curlu.is_null();
        let mut opts = st.opts.clone();
        // SAFETY: slists set with setopt must stay alive until the transfer is done
        // (CURLOPT_HTTPHEADER(3) and friends).
        unsafe {
            opts.headers = slist::to_vec(st.headers);
            opts.proxy_headers = if st.unified_headers {
                opts.headers.clone()
            } else {
                slist::to_vec(st.proxy_headers)
            };
            opts.proxy_headers_unified = st.unified_headers;
            opts.resolve = slist::to_vec(st.resolve);
            opts.connect_to = slist::to_vec(st.connect_to);
            opts.http200_aliases = slist::to_vec(st.http200aliases);
            let lists = [st.quote, st.prequote, st.postquote];
            if lists.iter().any(|l| !l.is_null()) {
                let [q, pre, post] = lists.map(|l| slist::to_byte_vec(l));
                let f = opts.ftp_mut();
                f.quote = q;
                f.prequote = pre;
                f.postquote = post;
            }
        }
        opts.body = st.body_now();
        // curl's empty form has no Content-Type: "Content-Type:" leaves out the one of an
        // empty POST, unless the application sets its own.
        let unbound = st.body.mime.is_some_and(|r| r.get().is_none());
        if (st.body.empty_form || unbound)
            && matches!(&opts.body, Body::Fields(f) if f.is_empty())
            && !opts.headers.iter().any(|h| {
                h.split([':', ';'])
                    .next()
                    .is_some_and(|n| n.trim().eq_ignore_ascii_case("Content-Type"))
            })
        {
            opts.headers.push("Content-Type:".to_string());
        }
        use oxcurl_core::options::TimeCondition;
        opts.time_condition = match st.time_cond {
            1 => Some((TimeCondition::IfModSince, st.time_value)),
            2 => Some((TimeCondition::IfUnmodSince, st.time_value)),
            3 => Some((TimeCondition::LastMod, st.time_value)),
            _ => None,
        };
        if !st.errorbuffer.is_null() {
            // SAFETY: ERRORBUFFER points to at least CURL_ERROR_SIZE writable bytes.
            unsafe { *st.errorbuffer = 0 };
        }
        // curl's Curl_pretransfer forgets the last error text only once it has a URL: without
        // one, "No URL set" is kept out of a buffer already holding an error since.
        if st.opts.url.is_some() {
            self.errorbuf_used.set(false);
        }
        st.strings.clear();
        st.certinfo = None;
        if let Ok(mut store) = self.headers.lock() {
            store.clear();
        }
        opts.pause = Some(self.pause.clone());
        opts.socket_hooks = st.sock_cb.hooks();
        opts.tls.ctx_hook = st.cb.ctx_hook();
        (
            opts,
            Box::new(CCallbacks(st.cb, self.headers.clone(), false)),
        )
    }

    /// Takes a finished transfer back: its statistics and its error text.
    /// `easy` is the handle's own engine handle when it ran in `curl_easy_perform`.
    pub(crate) fn finish(
        &self,
        easy: Option<Easy>,
        info: Info,
        r: &Result<(), oxcurl_core::Error>,
    ) -> CURLcode {
        if let Ok(mut store) = self.headers.lock() {
            store.tunnel_done(info.http_connectcode);
        }
        let mut st = self.state.borrow_mut();
        // curl never clears its CURLproxycode: a later transfer without a SOCKS failure
        // keeps reporting the last one.
        let proxy_error = st.info.proxy_error;
        st.info = info;
        if st.info.proxy_error == 0 {
            st.info.proxy_error = proxy_error;
        }
        st.certinfo = None;
        if let Some(mut easy) = easy {
            easy.take_callbacks();
            st.raw = easy.take_connection();
            st.easy = Some(easy);
        }
        match r {
            Ok(()) => CURLE_OK,
            Err(e) => {
                // A callback's refusal named itself already: curl keeps the first error text.
                if !st.errorbuffer.is_null() && !self.errorbuf_used.replace(true) {
                    let msg = e.message().as_bytes();
                    let n = msg.len().min(CURL_ERROR_SIZE - 1);
                    // SAFETY: ERRORBUFFER holds CURL_ERROR_SIZE bytes; we write n+1 < that.
                    unsafe {
                        std::ptr::copy_nonoverlapping(msg.as_ptr(), st.errorbuffer as *mut u8, n);
                        *st.errorbuffer.add(n) = 0;
                    }
                }
                e.code as CURLcode
            }
        }
    }
}

impl EasyHandle {
    /// The authentication state the handle's last transfer left (curl keeps it in the
    /// handle), for a transfer run on an application's multi.
    pub(crate) fn take_auth(&self) -> Option<Box<oxcurl_core::auth::AuthCarry>> {
        self.state
            .borrow_mut()
            .easy
            .as_mut()
            .and_then(Easy::take_auth)
    }

    /// Keeps what a transfer run on an application's multi left for the next one.
    pub(crate) fn keep_auth(&self, auth: Option<Box<oxcurl_core::auth::AuthCarry>>) {
        let mut st = self.state.borrow_mut();
        st.easy.get_or_insert_with(Easy::default).set_auth(auth);
    }

    /// Empties the ERRORBUFFER, if one is set, as a transfer starting does.
    fn clear_errorbuffer(&self) {
        let Ok(st) = self.state.try_borrow() else {
            return;
        };
        if !st.errorbuffer.is_null() {
            // SAFETY: ERRORBUFFER points to at least CURL_ERROR_SIZE writable bytes.
            unsafe { *st.errorbuffer = 0 };
        }
    }

    /// Writes `msg` to the ERRORBUFFER, if one is set, as curl's `failf`: only the first
    /// error after a transfer starts is kept.
    pub(crate) fn fail_text(&self, msg: &str) {
        let Ok(st) = self.state.try_borrow() else {
            return;
        };
        if st.errorbuffer.is_null() || self.errorbuf_used.replace(true) {
            return;
        }
        let n = msg.len().min(CURL_ERROR_SIZE - 1);
        // SAFETY: ERRORBUFFER holds CURL_ERROR_SIZE bytes; we write n+1 < that.
        unsafe {
            std::ptr::copy_nonoverlapping(msg.as_ptr(), st.errorbuffer as *mut u8, n);
            *st.errorbuffer.add(n) = 0;
        }
    }
}

impl State {
    fn body_now(&self) -> Body {
        let b = &self.body;
        if b.upload {
            return Body::Upload(b.infile_size);
        }
        if let Some(r) = b.mime {
            let Some(m) = r.get() else {
                // Freed since: curl's mimepost part is then empty and posts nothing.
                return Body::Fields(Vec::new());
            };
            // SAFETY: a live mime (the application keeps it alive until the transfer is
            // done, CURLOPT_MIMEPOST(3)).
            if let Some(m) = unsafe { crate::mime::body_of(m, b.mime_escape) } {
                return Body::Mime(m);
            }
        }
        if let Some(f) = b.httppost {
            let read = self.cb.read.unwrap_or(oxcurl_fread);
            // SAFETY: the application keeps an HTTPPOST form alive until the transfer is
            // done (CURLOPT_HTTPPOST(3)); the mime made from it is ours and freed here.
            unsafe {
                let m = crate::form::to_mime(f as *const crate::form::CurlHttpPost, Some(read));
                let body = crate::mime::body_of(m, b.mime_escape);
                crate::mime::free(m);
                if let Some(body) = body {
                    return Body::Mime(body);
                }
            }
        }
        if let Some(c) = &b.copied {
            return Body::Fields(c.clone());
        }
        if let Some(p) = b.fields {
            let p = p as *const c_char;
            let bytes = match b.fields_size {
                // SAFETY: POSTFIELDS with POSTFIELDSIZE: the application's buffer of that size.
                Some(n) if n >= 0 => {
                    unsafe { std::slice::from_raw_parts(p as *const u8, n as usize) }.to_vec()
                }
                // SAFETY: POSTFIELDS without a size is a NUL-terminated string.
                _ => unsafe { cstr(p) }.unwrap_or_default().to_vec(),
            };
            return Body::Fields(bytes);
        }
        if b.empty_form {
            return Body::Fields(Vec::new());
        }
        if b.post {
            return Body::PostRead(b.fields_size.and_then(|n| u64::try_from(n).ok()));
        }
        Body::None
    }
}

/// `curl_easy_init`.
#[no_mangle]
pub extern "C" fn curl_easy_init() -> *mut EasyHandle {
    guard!(std::ptr::null_mut(), { Box::into_raw(EasyHandle::new()) })
}

/// `curl_easy_cleanup`. A handle still in a multi or inside a callback is left alone.
#[no_mangle]
pub extern "C" fn curl_easy_cleanup(h: *mut EasyHandle) {
    guard!((), {
        // SAFETY: NULL or a handle from curl_easy_init.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return;
        };
        if e.busy.get() || e.in_multi.get() {
            return;
        }
        // curl writes COOKIEJAR and HSTS files when the handle goes; errors are not reported.
        let hsts = {
            let mut st = e.state.borrow_mut();
            let st = &mut *st;
            let share = st.opts.share.clone();
            match st.easy.as_mut() {
                Some(easy) => {
                    easy.opts.share = share;
                    let _ = easy.save_state();
                    match (st.cb.hsts_write, st.opts.hsts_file.is_some()) {
                        (Some(f), true) => Some((f, easy.hsts_entries(&st.opts))),
                        _ => None,
                    }
                }
                None => None,
            }
        };
        // Then the HSTS write callback gets every entry (no borrow held).
        if let Some((f, entries)) = hsts {
            let data = e.state.borrow().cb.hsts_write_data;
            hsts_push(f, h, data, &entries);
        }
        // Leave the share (no borrow held: its lock callback may call us).
        set_share(e, h, std::ptr::null_mut());
        e.state.borrow_mut().drop_owned_mime();
        // SAFETY: a live handle from Box::into_raw, not referenced elsewhere (not busy, not
        // in a multi); the magic is cleared first so a stale pointer is caught.
        unsafe {
            (*h).magic = 0;
            drop(Box::from_raw(h));
        }
    })
}

/// curl's `hsts_push` for each entry, until the callback answers other than `CURLSTS_OK`.
fn hsts_push(
    f: HstsWriteFn,
    h: *mut EasyHandle,
    data: *mut c_void,
    entries: &[oxcurl_core::hsts::HstsEntry],
) {
    for (i, en) in entries.iter().enumerate() {
        let name = CString::new(en.host.clone()).unwrap_or_default();
        let mut e = HstsEntryC {
            name: name.as_ptr() as *mut c_char,
            namelen: en.host.len(),
            include_subdomains: u8::from(en.subdomains),
            expire: [0; 18],
        };
        for (d, s) in e.expire.iter_mut().zip(en.expire.bytes().take(17)) {
            *d = s as c_char;
        }
        let mut index = CurlIndex {
            index: i,
            total: entries.len(),
        };
        // SAFETY: an HSTSWRITEFUNCTION-shaped pointer; the entry, its name and the index
        // live across the call.
        let r = unsafe { f(h, &mut e, &mut index, data) };
        if r != CURLSTS_OK {
            break;
        }
    }
}

/// `curl_easy_reset`: back to the state of a fresh handle.
#[no_mangle]
pub extern "C" fn curl_easy_reset(h: *mut EasyHandle) {
    guard!((), {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return;
        };
        let Ok(mut st) = e.state.try_borrow_mut() else {
            return;
        };
        // The share stays attached, as in curl.
        let share = st.opts.share.take();
        st.opts = Options::default();
        st.opts.share = share;
        st.cb = Callbacks::new(h);
        st.sock_cb = Default::default();
        st.body = BodySpec::default();
        st.drop_owned_mime();
        st.headers = std::ptr::null();
        st.proxy_headers = std::ptr::null();
        st.unified_headers = false;
        st.time_cond = 0;
        st.time_value = 0;
        st.filetime = false;
        st.resolve = std::ptr::null();
        st.quote = std::ptr::null();
        st.prequote = std::ptr::null();
        st.postquote = std::ptr::null();
        st.connect_to = std::ptr::null();
        st.http200aliases = std::ptr::null();
        st.curlu = std::ptr::null_mut();
        st.errorbuffer = std::ptr::null_mut();
        st.private = std::ptr::null_mut();
        // And forgets the authentication found (curl clears authhost, authproxy, Digest).
        if let Some(easy) = st.easy.as_mut() {
            easy.set_auth(None);
        }
        // curl_easy_reset keeps the CURLproxycode too.
        st.info = Info {
            proxy_error: st.info.proxy_error,
            ..Info::default()
        };
        st.certinfo = None;
    })
}

/// `curl_easy_duphandle`: a new handle with the same settings (not the connections).
#[no_mangle]
pub extern "C" fn curl_easy_duphandle(h: *mut EasyHandle) -> *mut EasyHandle {
    guard!(std::ptr::null_mut(), {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return std::ptr::null_mut();
        };
        let Ok(st) = e.state.try_borrow() else {
            return std::ptr::null_mut();
        };
        let dup = EasyHandle::new();
        {
            let mut d = dup.state.borrow_mut();
            d.opts = st.opts.clone();
            // curl does not attach the copy to the share.
            d.opts.share = None;
            d.cb = Callbacks {
                handle: d.cb.handle,
                ..st.cb
            };
            d.body = st.body.clone();
            d.sock_cb = st.sock_cb;
            // curl gives the new handle its own copy of the mime, freed with it.
            if let Some(m) = st.body.mime.and_then(|r| r.get()) {
                // SAFETY: a live mime, kept alive by the application while it is set.
                let copy = unsafe { crate::mime::dup(m) };
                d.owned_mime = copy as usize;
                // SAFETY: just made by dup (or NULL).
                d.body.mime = unsafe { crate::mime::MimeRef::new(copy) };
            }
            d.headers = st.headers;
            d.proxy_headers = st.proxy_headers;
            d.unified_headers = st.unified_headers;
            d.time_cond = st.time_cond;
            d.time_value = st.time_value;
            d.filetime = st.filetime;
            d.resolve = st.resolve;
            d.quote = st.quote;
            d.prequote = st.prequote;
            d.postquote = st.postquote;
            d.connect_to = st.connect_to;
            d.http200aliases = st.http200aliases;
            d.curlu = st.curlu;
            d.errorbuffer = st.errorbuffer;
            d.private = st.private;
        }
        Box::into_raw(dup)
    })
}

/// `curl_easy_perform`.
#[no_mangle]
pub extern "C" fn curl_easy_perform(h: *mut EasyHandle) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        };
        // A handle already performing (from inside its own callback) is in a multi, the
        // internal one: curl answers CURLE_FAILED_INIT for both, not RECURSIVE_API_CALL.
        if e.busy.get() || e.in_multi.get() {
            return CURLE_FAILED_INIT;
        }
        if e.state.borrow().opts.url.is_none() && e.state.borrow().curlu.is_null() {
            // curl's Curl_pretransfer, before anything else of the transfer.
            e.clear_errorbuffer();
            e.fail_text("No URL set");
            return 3; // CURLE_URL_MALFORMAT
        }
        e.busy.set(true);
        let (opts, callbacks) = e.prepare();
        let mut easy = e.state.borrow_mut().easy.take().unwrap_or_default();
        easy.opts = opts;
        easy.set_callbacks(callbacks);
        // No borrow of the handle is held while the engine runs the callbacks.
        let r = easy.perform();
        let info = easy.info().clone();
        e.busy.set(false);
        e.finish(Some(easy), info, &r)
    })
}

fn secs(v: c_long) -> Option<Duration> {
    (v > 0).then(|| Duration::from_secs(v as u64))
}
fn millis(v: c_long) -> Option<Duration> {
    (v > 0).then(|| Duration::from_millis(v as u64))
}

/// `CURLOPT_HTTPAUTH`/`PROXYAUTH` as curl's `httpauth()`: `CURLAUTH_DIGEST_IE` is Digest,
/// schemes this build lacks (Negotiate) are dropped, and None (`CURLE_NOT_BUILT_IN`) when
/// no scheme is left. `CURLAUTH_NONE` is kept as it is.
fn auth_bits(v: c_long) -> Option<u32> {
    use oxcurl_core::auth;
    // The bits are an unsigned long: CURLAUTH_ANY is ~CURLAUTH_DIGEST_IE.
    let mut bits = v as u64 as u32;
    if bits == 0 {
        return Some(0);
    }
    if bits & auth::DIGEST_IE != 0 {
        bits = (bits | auth::DIGEST) & !auth::DIGEST_IE;
    }
    bits &= !auth::NEGOTIATE;
    // CURLAUTH_ONLY (bit 31) alone names no scheme.
    (bits & 0x7fff_ffff != 0).then_some(bits)
}

/// `CURLOPT_SSLVERSION`: the minimum in the low 16 bits, `CURL_SSLVERSION_MAX_*` above;
/// SSLv2, SSLv3 and values past TLS 1.3 are refused as in curl.
fn ssl_version(v: c_long) -> Option<(oxcurl_core::tls::TlsVersion, oxcurl_core::tls::TlsVersion)> {
    use oxcurl_core::tls::TlsVersion;
    let of = |n: c_long| match n {
        4 => Some(TlsVersion::V1_0),
        5 => Some(TlsVersion::V1_1),
        6 => Some(TlsVersion::V1_2),
        7 => Some(TlsVersion::V1_3),
        _ => None,
    };
    let (lo, hi) = (v & 0xffff, v >> 16);
    let min = match lo {
        0 => TlsVersion::Default,
        1 => TlsVersion::V1_0,
        _ => of(lo)?,
    };
    let max = match hi {
        0 | 1 => TlsVersion::Default,
        _ => of(hi)?,
    };
    Some((min, max))
}

/// The schemes of a `CURLPROTO_*` mask this build serves (the scheme table's); the other
/// bits name protocols a transfer here never runs.
fn protocol_names(mask: c_long) -> Vec<String> {
    oxcurl_core::scheme::served()
        .filter(|s| mask as u32 & s.protocol != 0)
        .map(|s| s.name.to_string())
        .collect()
}

/// The `CURLPROTO_*` bit of a scheme (`CURLINFO_PROTOCOL`), 0 when there is none.
fn protocol_bit(scheme: &str) -> c_long {
    oxcurl_core::scheme::find(scheme).map_or(0, |s| c_long::from(s.protocol))
}

/// `CURLINFO_FILETIME`: with CURLOPT_FILETIME, the last Last-Modified of the transfer as
/// curl's `Curl_getdate_capped` reads it (not from a final 204 or 304, which curl reads no
/// such header of); -1 when unknown.
fn filetime(wanted: bool, i: &Info) -> i64 {
    // A file:// transfer has its file's time whether asked for or not, as in curl.
    if let Some(t) = i.filetime {
        return t;
    }
    if !wanted {
        return -1;
    }
    let last = i.headers.last().map_or(0, |h| h.request);
    let bodyless = matches!(i.response_code, 204 | 304);
    i.headers
        .iter()
        .rev()
        .filter(|h| !(bodyless && h.request == last))
        .find(|h| h.name().eq_ignore_ascii_case("Last-Modified"))
        .map_or(-1, |h| {
            oxcurl_core::parsedate::getdate_capped(h.value().trim().as_bytes())
        })
}

/// `CURLINFO_RETRY_AFTER`: the last Retry-After of the transfer in seconds, an HTTP date
/// counted from `now` (0 when past) or a number, capped at 6 hours; 0 when there is none.
fn retry_after(i: &Info, now: i64) -> i64 {
    let Some(h) = i
        .headers
        .iter()
        .rev()
        .find(|h| h.name().eq_ignore_ascii_case("Retry-After"))
    else {
        return 0;
    };
    let v = h.value().trim_start_matches([' ', '\t']);
    let date = oxcurl_core::parsedate::getdate_capped(v.as_bytes());
    let secs = if date != -1 {
        (date - now).max(0)
    } else {
        let digits = &v[..v.bytes().take_while(u8::is_ascii_digit).count()];
        digits.parse::<i64>().unwrap_or(0)
    };
    secs.min(21600)
}

/// `CURLOPT_PROTOCOLS_STR` as curl's `protocol2num`: `all`, or a comma-separated list of
/// schemes this build has (`CURLE_UNSUPPORTED_PROTOCOL` for any other), not empty
/// (`CURLE_BAD_FUNCTION_ARGUMENT`). None is every protocol.
fn protocol_list(s: &str) -> Result<Option<Vec<String>>, CURLcode> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    let mut v = Vec::new();
    for name in s.split(',').filter(|n| !n.is_empty()) {
        match oxcurl_core::scheme::find(name) {
            Some(s) if s.handler.is_some() => v.push(s.name.to_string()),
            _ => return Err(CURLE_UNSUPPORTED_PROTOCOL),
        }
    }
    if v.is_empty() {
        return Err(CURLE_BAD_FUNCTION_ARGUMENT);
    }
    Ok(Some(v))
}

/// Whether `opt` is one of curl 8.14.1's option numbers.
fn known(opt: c_int) -> bool {
    crate::opttable::OPTIONS.iter().any(|o| o.1 == opt)
}

/// curl's limit on the length of a string option.
const CURL_MAX_INPUT_LENGTH: usize = 8_000_000;

/// The option takes a string (`CURLOT_STRING`).
fn is_string_option(opt: c_int) -> bool {
    crate::opttable::OPTIONS
        .iter()
        .any(|o| o.1 == opt && o.2 == 4)
}

/// Typed half of `curl_easy_setopt` for `long` options (called by shim.c).
#[no_mangle]
pub extern "C" fn oxcurl_easy_setopt_long(h: *mut EasyHandle, opt: c_int, v: c_long) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        };
        e.changed.set(true);
        let Ok(mut st) = e.state.try_borrow_mut() else {
            return CURLE_RECURSIVE_API_CALL;
        };
        let on = v != 0;
        let st = &mut *st;
        let o = &mut st.opts;
        use crate::consts::opt::*;
        match opt {
            VERBOSE => o.verbose = on,
            // 2 asks for WebSocket, which this build lacks: curl then connects as for 1;
            // only values above 2 are refused.
            141 if v > 2 => return CURLE_BAD_FUNCTION_ARGUMENT,
            141 => o.connect_only = on,
            CERTINFO => o.certinfo = on,
            HEADER => o.include_header = on,
            NOPROGRESS => {
                o.no_progress = on;
                st.cb.no_progress = on;
            }
            NOBODY => {
                o.nobody = on;
                if on {
                    st.body.upload = false;
                }
            }
            FAILONERROR => o.fail_on_error = on,
            // CURLMIMEOPT_FORMESCAPE is bit 0.
            MIME_OPTIONS => st.body.mime_escape = v & 1 != 0,
            UPLOAD => st.body.upload = on,
            POST => {
                st.body.post = on;
                st.body.empty_form = false;
                if on {
                    o.nobody = false;
                    st.body.upload = false;
                } else {
                    st.body.fields = None;
                    st.body.copied = None;
                    st.body.mime = None;
                    st.body.httppost = None;
                }
            }
            HTTPGET => {
                if on {
                    st.body = BodySpec::default();
                    o.nobody = false;
                }
            }
            // CURLFOLLOW_ALL, _OBEYCODE, _FIRSTONLY; anything else is refused, as curl does.
            FOLLOWLOCATION => {
                use oxcurl_core::options::FollowMode;
                o.follow_mode = match v {
                    0 | 1 => FollowMode::All,
                    2 => FollowMode::ObeyCode,
                    3 => FollowMode::FirstOnly,
                    _ => return CURLE_BAD_FUNCTION_ARGUMENT,
                };
                o.follow_location = on;
            }
            MAXREDIRS => o.max_redirs = v,
            AUTOREFERER => o.autoreferer = on,
            POSTFIELDSIZE => st.body.fields_size = Some(v),
            INFILESIZE => st.body.infile_size = u64::try_from(v).ok(),
            TIMEOUT => o.timeout = secs(v),
            TIMEOUT_MS => o.timeout = millis(v),
            CONNECTTIMEOUT => o.connect_timeout = secs(v),
            CONNECTTIMEOUT_MS => o.connect_timeout = millis(v),
            LOW_SPEED_LIMIT => o.low_speed_limit = v.max(0) as u64,
            LOW_SPEED_TIME => o.low_speed_time = secs(v),
            RESUME_FROM => {
                // -1 asks to resume an upload from wherever the server is.
                o.resume_from = v.max(0) as u64;
                o.resume_from_unknown = v == -1;
            }
            MAXFILESIZE => o.max_filesize = u64::try_from(v).ok().filter(|&n| n > 0),
            IPRESOLVE => {
                o.ip_resolve = match v {
                    0 => IpResolve::Whatever,
                    1 => IpResolve::V4,
                    2 => IpResolve::V6,
                    _ => return CURLE_BAD_FUNCTION_ARGUMENT,
                }
            }
            BUFFERSIZE => {
                o.buffer_size = (v.max(0) as usize).clamp(
                    oxcurl_core::options::MIN_BUFFER_SIZE,
                    oxcurl_core::options::MAX_BUFFER_SIZE,
                )
            }
            SSL_VERIFYPEER => o.tls.verify_peer = on,
            SSL_VERIFYHOST => o.tls.verify_host = on,
            HTTP_VERSION => {
                o.http_version = match v {
                    0 => HttpVersionPref::Default,
                    1 => HttpVersionPref::V1_0,
                    2 => HttpVersionPref::V1_1,
                    3 => HttpVersionPref::V2,
                    4 => HttpVersionPref::V2Tls,
                    5 => HttpVersionPref::V2PriorKnowledge,
                    // curl without HTTP/3: any other version is an unsupported protocol.
                    v if v < 0 => return CURLE_BAD_FUNCTION_ARGUMENT,
                    _ => return CURLE_UNSUPPORTED_PROTOCOL,
                }
            }
            FRESH_CONNECT => o.fresh_connect = on,
            FORBID_REUSE => o.forbid_reuse = on,
            TCP_NODELAY => o.tcp_nodelay = on,
            SASL_IR => o.mail_mut().sasl_ir = on,
            TCP_KEEPALIVE => o.tcp_keepalive = on,
            // curl 8.14.1 refuses negative keepalive values, takes any Happy Eyeballs time.
            TCP_KEEPIDLE | TCP_KEEPINTVL | TCP_KEEPCNT if v < 0 => {
                return CURLE_BAD_FUNCTION_ARGUMENT
            }
            TCP_KEEPIDLE => o.tcp_keepidle = v.min(i32::MAX as c_long / 1000) as u32,
            TCP_KEEPINTVL => o.tcp_keepintvl = v.min(i32::MAX as c_long / 1000) as u32,
            TCP_KEEPCNT => o.tcp_keepcnt = v.min(i32::MAX as c_long) as u32,
            HAPPY_EYEBALLS_TIMEOUT_MS => {
                o.happy_eyeballs_timeout = std::time::Duration::from_millis(v.max(0) as u64)
            }
            IGNORE_CONTENT_LENGTH => o.ignore_content_length = on,
            DISALLOW_USERNAME_IN_URL => o.disallow_username_in_url = on,
            LOCALPORT => o.local_port = v.clamp(0, 65535) as u16,
            LOCALPORTRANGE => o.local_port_range = v.clamp(1, 65535) as u16,
            HTTP_TRANSFER_DECODING => o.http_transfer_decoding = on,
            HTTP_CONTENT_DECODING => o.http_content_decoding = on,
            POSTREDIR => {
                o.post301 = v & 1 != 0;
                o.post302 = v & 2 != 0;
                o.post303 = v & 4 != 0;
            }
            UNRESTRICTED_AUTH => o.unrestricted_auth = on,
            COOKIESESSION => o.cookie_session = on,
            PATH_AS_IS => o.path_as_is = on,
            KEEP_SENDING_ON_ERROR => o.keep_sending_on_error = on,
            NOSIGNAL => {}
            PORT => {
                if !(0..=65535).contains(&v) {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                }
                o.port = (v != 0).then_some(v as u16);
            }
            PROXYPORT => {
                if !(0..=65535).contains(&v) {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                }
                o.proxy_port = (v != 0).then_some(v as u16);
            }
            PROXYTYPE => {
                use oxcurl_core::proxy::ProxyKind;
                o.proxy_type = match v {
                    0 => ProxyKind::Http,
                    1 => ProxyKind::Http10,
                    2 => ProxyKind::Https,
                    3 => ProxyKind::Https2,
                    4 => ProxyKind::Socks4,
                    5 => ProxyKind::Socks5,
                    6 => ProxyKind::Socks4a,
                    7 => ProxyKind::Socks5h,
                    _ => return CURLE_BAD_FUNCTION_ARGUMENT,
                }
            }
            HTTPAUTH | PROXYAUTH => {
                let Some(bits) = auth_bits(v) else {
                    return CURLE_NOT_BUILT_IN;
                };
                if opt == HTTPAUTH {
                    o.httpauth = bits;
                } else {
                    o.proxyauth = bits;
                }
            }
            HTTPPROXYTUNNEL => o.http_proxy_tunnel = on,
            SUPPRESS_CONNECT_HEADERS => o.suppress_connect_headers = on,
            // CURLHEADER_SEPARATE is bit 0; without it CURLOPT_HTTPHEADER goes to proxies too.
            HEADEROPT => st.unified_headers = v & 1 == 0,
            SOCKS5_AUTH => {
                // Only CURLAUTH_BASIC and CURLAUTH_GSSAPI mean something for SOCKS5.
                if v & !(1 | 4) != 0 {
                    return CURLE_NOT_BUILT_IN;
                }
                o.socks5_gssapi = v & 4 != 0;
            }
            PROXY_SSL_VERIFYPEER => o.proxy_tls.verify_peer = on,
            PROXY_SSL_VERIFYHOST => o.proxy_tls.verify_host = on,
            SSLVERSION | PROXY_SSLVERSION => {
                let Some((min, max)) = ssl_version(v) else {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                };
                let t = if opt == SSLVERSION {
                    &mut o.tls
                } else {
                    &mut o.proxy_tls
                };
                t.min_version = min;
                t.max_version = max;
            }
            // CURLSSLOPT_NATIVE_CA and CURLSSLOPT_EARLYDATA; the other bits ask for nothing
            // this TLS stack does differently.
            SSL_OPTIONS => {
                o.tls.ca_native = v & 16 != 0;
                o.tls.earlydata = v & 64 != 0;
            }
            PROXY_SSL_OPTIONS => o.proxy_tls.ca_native = v & 16 != 0,
            SSL_SESSIONID_CACHE => o.tls.session_cache = on,
            SSL_ENABLE_ALPN => o.tls.alpn = on,
            SSL_VERIFYSTATUS => o.tls.verify_status = on,
            HAPROXYPROTOCOL => o.haproxy_protocol = on,
            ALTSVC_CTRL => o.altsvc_ctrl = v as u32,
            PIPEWAIT => o.pipewait = on,
            // curl ignores a weight outside 1-256 and answers OK.
            STREAM_WEIGHT => {
                if (1..=256).contains(&v) {
                    o.stream_weight = v as u16;
                }
            }
            PROTOCOLS => o.allowed_protocols = Some(protocol_names(v)),
            REDIR_PROTOCOLS => o.redir_protocols = Some(protocol_names(v)),
            EXPECT_100_TIMEOUT_MS => o.expect_100_timeout = Duration::from_millis(v.max(0) as u64),
            TRANSFER_ENCODING => o.transfer_encoding = on,
            HTTP09_ALLOWED => o.http09_allowed = on,
            // CURLHSTS_ENABLE without a file: an in-memory cache (the engine's cache for
            // an empty file name is never read or written).
            HSTS_CTRL => {
                if v & 1 == 0 {
                    o.hsts_file = None;
                } else if o.hsts_file.is_none() {
                    o.hsts_file = Some(String::new());
                }
            }
            TIMECONDITION => {
                if !(0..=3).contains(&v) {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                }
                st.time_cond = v;
            }
            TIMEVALUE => st.time_value = v,
            FILETIME => {
                st.filetime = on;
                st.opts.filetime = on;
            }
            DIRLISTONLY => o.ftp_mut().list_only = on,
            PROXY_TRANSFER_MODE if !(0..=1).contains(&v) => return CURLE_BAD_FUNCTION_ARGUMENT,
            PROXY_TRANSFER_MODE => o.ftp_mut().proxy_transfer_mode = on,
            FTP_USE_PRET => o.ftp_mut().use_pret = on,
            WILDCARDMATCH => o.ftp_mut().wildcard = on,
            USE_SSL => {
                use oxcurl_core::options::UseSsl;
                o.use_ssl = match v {
                    0 => UseSsl::None,
                    1 => UseSsl::Try,
                    2 => UseSsl::Control,
                    3 => UseSsl::All,
                    _ => return CURLE_BAD_FUNCTION_ARGUMENT,
                }
            }
            FTPSSLAUTH => {
                use oxcurl_core::options::FtpAuth;
                o.ftp_mut().ssl_auth = match v {
                    0 => FtpAuth::Default,
                    1 => FtpAuth::Ssl,
                    2 => FtpAuth::Tls,
                    _ => return CURLE_BAD_FUNCTION_ARGUMENT,
                }
            }
            FTP_SSL_CCC => {
                use oxcurl_core::options::FtpCcc;
                o.ftp_mut().ssl_ccc = match v {
                    0 => FtpCcc::None,
                    1 => FtpCcc::Passive,
                    2 => FtpCcc::Active,
                    _ => return CURLE_BAD_FUNCTION_ARGUMENT,
                }
            }
            APPEND => o.ftp_mut().append = on,
            TRANSFERTEXT => o.use_ascii = on,
            FTP_USE_EPSV => o.ftp_use_epsv = on,
            FTP_USE_EPRT => o.ftp_mut().disable_eprt = !on,
            FTP_SKIP_PASV_IP => o.ftp_skip_pasv_ip = on,
            FTP_FILEMETHOD => {
                use oxcurl_core::proto::ftp::FileMethod;
                o.ftp_mut().method = match v {
                    0 | 1 => FileMethod::MultiCwd,
                    2 => FileMethod::NoCwd,
                    3 => FileMethod::SingleCwd,
                    _ => return CURLE_BAD_FUNCTION_ARGUMENT,
                }
            }
            FTP_CREATE_MISSING_DIRS => {
                if !(0..=2).contains(&v) {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                }
                o.ftp_mut().create_dirs = v as u8;
            }
            SERVER_RESPONSE_TIMEOUT | SERVER_RESPONSE_TIMEOUT_MS | ACCEPTTIMEOUT_MS if v < 0 => {
                return CURLE_BAD_FUNCTION_ARGUMENT
            }
            SERVER_RESPONSE_TIMEOUT | SERVER_RESPONSE_TIMEOUT_MS => {
                let ms = if opt == SERVER_RESPONSE_TIMEOUT {
                    (v as u64).saturating_mul(1000)
                } else {
                    v as u64
                };
                o.ftp_mut().response_timeout = (ms > 0).then(|| Duration::from_millis(ms));
            }
            ACCEPTTIMEOUT_MS => {
                o.ftp_mut().accept_timeout = (v > 0).then(|| Duration::from_millis(v as u64))
            }
            NETRC => {
                o.netrc = match v {
                    0 => oxcurl_core::options::NetrcMode::Ignored,
                    1 => oxcurl_core::options::NetrcMode::Optional,
                    2 => oxcurl_core::options::NetrcMode::Required,
                    _ => return CURLE_BAD_FUNCTION_ARGUMENT,
                }
            }
            CA_CACHE_TIMEOUT => {
                if v < -1 {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                }
                st.opts.tls.ca_cache_timeout = v.min(c_long::from(i32::MAX)) as i32;
            }
            DNS_CACHE_TIMEOUT => {
                o.dns_cache_timeout = match v {
                    -1 => None,
                    v if v < -1 => return CURLE_BAD_FUNCTION_ARGUMENT,
                    v => Some(Duration::from_secs(v as u64)),
                }
            }
            // curl keeps the upload buffer between 16 KiB and 2 MiB.
            UPLOAD_BUFFERSIZE => {
                o.upload_buffer_size = v.clamp(16 * 1024, 2 * 1024 * 1024) as usize
            }
            CRLF => o.crlf = on,
            // curl: MAXCONNECTS is an unsigned int, the ages any long but a negative one.
            MAXCONNECTS if v < 0 || v > c_long::from(u32::MAX) => {
                return CURLE_BAD_FUNCTION_ARGUMENT
            }
            MAXAGE_CONN | MAXLIFETIME_CONN if v < 0 => return CURLE_BAD_FUNCTION_ARGUMENT,
            // The internal multi's cache size; 0 leaves the default.
            MAXCONNECTS => o.max_connects = (v > 0).then_some(v as usize),
            MAXAGE_CONN => o.maxage_conn = Some(Duration::from_secs(v as u64)),
            MAXLIFETIME_CONN => o.maxlifetime_conn = secs(v),
            // Deprecated in curl and ignored there too.
            SSL_ENABLE_NPN => {}
            NEW_FILE_PERMS if !(0..=0o777).contains(&v) => return CURLE_BAD_FUNCTION_ARGUMENT,
            NEW_FILE_PERMS => o.new_file_perms = v as u16,
            _ if known(opt) => return CURLE_NOT_BUILT_IN,
            _ => return CURLE_UNKNOWN_OPTION,
        }
        CURLE_OK
    })
}

/// Typed half of `curl_easy_setopt` for `curl_off_t` options.
#[no_mangle]
pub extern "C" fn oxcurl_easy_setopt_off(h: *mut EasyHandle, opt: c_int, v: i64) -> CURLcode {
    use crate::consts::opt::*;
    let as_long = |o| {
        oxcurl_easy_setopt_long(
            h,
            o,
            c_long::try_from(v).unwrap_or(if v < 0 { c_long::MIN } else { c_long::MAX }),
        )
    };
    match opt {
        POSTFIELDSIZE_LARGE => as_long(POSTFIELDSIZE),
        INFILESIZE_LARGE => as_long(INFILESIZE),
        RESUME_FROM_LARGE => as_long(RESUME_FROM),
        MAXFILESIZE_LARGE => as_long(MAXFILESIZE),
        MAX_RECV_SPEED_LARGE | MAX_SEND_SPEED_LARGE | TIMEVALUE_LARGE => {
            guard!(CURLE_FAILED_INIT, {
                // SAFETY: NULL or a live handle.
                let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                };
                e.changed.set(true);
                let Ok(mut st) = e.state.try_borrow_mut() else {
                    return CURLE_RECURSIVE_API_CALL;
                };
                if opt == TIMEVALUE_LARGE {
                    st.time_value = v;
                } else if v < 0 {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                } else if opt == MAX_RECV_SPEED_LARGE {
                    st.opts.max_recv_speed = v as u64;
                } else {
                    st.opts.max_send_speed = v as u64;
                }
                CURLE_OK
            })
        }
        _ => guard!(CURLE_FAILED_INIT, {
            // SAFETY: NULL or a live handle.
            if unsafe { EasyHandle::from_ptr(h) }.is_none() {
                CURLE_BAD_FUNCTION_ARGUMENT
            } else if known(opt) {
                CURLE_NOT_BUILT_IN
            } else {
                CURLE_UNKNOWN_OPTION
            }
        }),
    }
}

/// Typed half of `curl_easy_setopt` for object, string, slist and function pointers.
#[no_mangle]
pub extern "C" fn oxcurl_easy_setopt_ptr(
    h: *mut EasyHandle,
    opt: c_int,
    v: *mut c_void,
) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        };
        e.changed.set(true);
        if opt == crate::consts::opt::SHARE {
            if e.state.try_borrow_mut().is_err() {
                return CURLE_RECURSIVE_API_CALL;
            }
            set_share(e, h, v as *mut crate::share::ShareHandle);
            return CURLE_OK;
        }
        let Ok(mut st) = e.state.try_borrow_mut() else {
            return CURLE_RECURSIVE_API_CALL;
        };
        let st = &mut *st;
        // curl's Curl_setstropt refuses a string longer than CURL_MAX_INPUT_LENGTH.
        if is_string_option(opt) && !v.is_null() {
            // SAFETY: for string options the application passes NULL or a C string.
            let len = unsafe { std::ffi::CStr::from_ptr(v as *const c_char) }.count_bytes();
            if len > CURL_MAX_INPUT_LENGTH {
                return CURLE_BAD_FUNCTION_ARGUMENT;
            }
        }
        // SAFETY: for string options the application passes NULL or a C string, which
        // curl copies (so do we).
        let s = || unsafe { cstring_opt(v as *const c_char) };
        // SAFETY: for function options the shim passed a function pointer of the type
        // curl.h documents for this option; NULL restores the default.
        let f = || unsafe { std::mem::transmute::<*mut c_void, Option<unsafe extern "C" fn()>>(v) };
        use crate::consts::opt::*;
        match opt {
            URL => {
                st.opts.url = s();
                st.opts.url_shown = None;
            }
            WRITEDATA => st.cb.write_data = v,
            // SAFETY (all three socket-callback transmutes below): same-size function pointer
            // types, per curl.h.
            20163 => {
                st.sock_cb.open = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), crate::sockets::OpenSocketFn>(f)
                })
            }
            10164 => st.sock_cb.open_data = v,
            20148 => {
                st.sock_cb.sockopt = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), crate::sockets::SockoptFn>(f)
                })
            }
            10149 => st.sock_cb.sockopt_data = v,
            20208 => {
                st.sock_cb.close = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), crate::sockets::CloseSocketFn>(f)
                })
            }
            10209 => st.sock_cb.close_data = v,
            // SAFETY (all transmutes below): same-size function pointer types, per curl.h.
            WRITEFUNCTION => {
                st.cb.write = f()
                    .map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), WriteFn>(f) })
            }
            HEADERFUNCTION => {
                st.cb.header = f()
                    .map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), WriteFn>(f) })
            }
            HEADERDATA => st.cb.header_data = v,
            READFUNCTION => {
                st.cb.read =
                    f().map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), ReadFn>(f) })
            }
            READDATA => st.cb.read_data = v,
            XFERINFOFUNCTION => {
                st.cb.xferinfo = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), XferInfoFn>(f)
                })
            }
            XFERINFODATA => st.cb.xferinfo_data = v,
            PROGRESSFUNCTION => {
                st.cb.progress = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), ProgressFn>(f)
                })
            }
            SEEKFUNCTION => {
                st.cb.seek =
                    f().map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), SeekFn>(f) })
            }
            SEEKDATA => st.cb.seek_data = v,
            IOCTLFUNCTION => {
                st.cb.ioctl = f()
                    .map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), IoctlFn>(f) })
            }
            IOCTLDATA => st.cb.ioctl_data = v,
            DEBUGFUNCTION => {
                st.cb.debug = f()
                    .map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), DebugFn>(f) })
            }
            DEBUGDATA => st.cb.debug_data = v,
            PREREQFUNCTION => {
                st.cb.prereq = f()
                    .map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), PrereqFn>(f) })
            }
            PREREQDATA => st.cb.prereq_data = v,
            RESOLVER_START_FUNCTION => {
                st.cb.resolver_start = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), ResolverStartFn>(f)
                })
            }
            RESOLVER_START_DATA => st.cb.resolver_start_data = v,
            TRAILERFUNCTION => {
                st.cb.trailer = f()
                    .map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), TrailerFn>(f) })
            }
            TRAILERDATA => st.cb.trailer_data = v,
            HSTSREADFUNCTION => {
                st.cb.hsts_read = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), HstsReadFn>(f)
                })
            }
            HSTSREADDATA => st.cb.hsts_read_data = v,
            HSTSWRITEFUNCTION => {
                st.cb.hsts_write = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), HstsWriteFn>(f)
                })
            }
            HSTSWRITEDATA => st.cb.hsts_write_data = v,
            // curl takes these only when its TLS backend hands out an SSL_CTX: OpenSSL's.
            SSL_CTX_FUNCTION | SSL_CTX_DATA
                if oxcurl_core::tls::backend() != oxcurl_core::tls::Backend::OpenSsl =>
            {
                return CURLE_NOT_BUILT_IN
            }
            SSL_CTX_FUNCTION => {
                st.cb.ssl_ctx = f()
                    .map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), SslCtxFn>(f) })
            }
            SSL_CTX_DATA => st.cb.ssl_ctx_data = v,
            FNMATCH_FUNCTION => {
                st.cb.fnmatch = f()
                    .map(|f| unsafe { std::mem::transmute::<unsafe extern "C" fn(), FnmatchFn>(f) })
            }
            FNMATCH_DATA => st.cb.fnmatch_data = v,
            CHUNK_BGN_FUNCTION => {
                st.cb.chunk_bgn = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), ChunkBgnFn>(f)
                })
            }
            CHUNK_END_FUNCTION => {
                st.cb.chunk_end = f().map(|f| unsafe {
                    std::mem::transmute::<unsafe extern "C" fn(), ChunkEndFn>(f)
                })
            }
            CHUNK_DATA => st.cb.chunk_data = v,
            CAINFO_BLOB | PROXY_CAINFO_BLOB | SSLCERT_BLOB | SSLKEY_BLOB | PROXY_SSLCERT_BLOB
            | PROXY_SSLKEY_BLOB => {
                // SAFETY: NULL or a curl_blob the application owns for the call.
                let too_long = unsafe { (v as *const CurlBlob).as_ref() }
                    .is_some_and(|b| b.len > CURL_MAX_INPUT_LENGTH);
                // As curl's Curl_setblobopt, the old blob goes first, also when the new one is
                // refused for its length.
                let blob = match too_long {
                    true => None,
                    // SAFETY: as above; its data is copied here whatever its flags say
                    // (CURL_BLOB_COPY's semantics).
                    false => unsafe { blob_bytes(v) },
                };
                let tls = match opt {
                    CAINFO_BLOB | SSLCERT_BLOB | SSLKEY_BLOB => &mut st.opts.tls,
                    _ => &mut st.opts.proxy_tls,
                };
                match opt {
                    CAINFO_BLOB | PROXY_CAINFO_BLOB => tls.ca_blob = blob,
                    SSLCERT_BLOB | PROXY_SSLCERT_BLOB => tls.set_client_blob(false, blob),
                    _ => tls.set_client_blob(true, blob),
                }
                if too_long {
                    return CURLE_BAD_FUNCTION_ARGUMENT;
                }
            }
            ERRORBUFFER => st.errorbuffer = v as *mut c_char,
            HTTPHEADER => st.headers = v as *const CurlSlist,
            RESOLVE => st.resolve = v as *const CurlSlist,
            CONNECT_TO => st.connect_to = v as *const CurlSlist,
            HTTP200ALIASES => st.http200aliases = v as *const CurlSlist,
            QUOTE => st.quote = v as *const CurlSlist,
            PREQUOTE => st.prequote = v as *const CurlSlist,
            POSTQUOTE => st.postquote = v as *const CurlSlist,
            POSTFIELDS => {
                st.body.fields = (!v.is_null()).then_some(v as usize);
                st.body.copied = None;
                st.body.mime = None;
                st.body.httppost = None;
                st.body.post = true;
                st.body.empty_form = false;
                st.body.upload = false;
                st.opts.nobody = false;
            }
            COPYPOSTFIELDS => {
                let bytes = match st.body.fields_size {
                    // SAFETY: COPYPOSTFIELDS with a size set first: that many bytes.
                    Some(n) if n >= 0 && !v.is_null() => {
                        unsafe { std::slice::from_raw_parts(v as *const u8, n as usize) }.to_vec()
                    }
                    // SAFETY: otherwise a C string (or NULL).
                    _ => unsafe { cstr(v as *const c_char) }
                        .unwrap_or_default()
                        .to_vec(),
                };
                st.body.copied = Some(bytes);
                st.body.fields = None;
                st.body.mime = None;
                st.body.httppost = None;
                st.body.post = true;
                st.body.empty_form = false;
                st.body.upload = false;
                st.opts.nobody = false;
            }
            HTTPPOST => {
                st.drop_owned_mime();
                st.body.httppost = (!v.is_null()).then_some(v as usize);
                st.body.mime = None;
                st.body.fields = None;
                st.body.copied = None;
                st.body.post = true;
                st.body.empty_form = v.is_null();
                st.body.upload = false;
                st.opts.nobody = false;
            }
            CURLU => st.curlu = v as *mut crate::url::UrlHandle,
            MIMEPOST => {
                st.drop_owned_mime();
                st.body.httppost = None;
                // SAFETY: NULL or a mime from curl_mime_init.
                st.body.mime =
                    unsafe { crate::mime::MimeRef::new(v as *mut crate::mime::MimeHandle) };
                st.body.fields = None;
                st.body.copied = None;
                st.body.post = true;
                st.body.empty_form = v.is_null();
                st.body.upload = false;
                st.opts.nobody = false;
            }
            CUSTOMREQUEST => st.opts.custom_request = s(),
            USERAGENT => st.opts.useragent = s(),
            REFERER => st.opts.referer = s(),
            USERPWD => {
                st.opts.userpwd = s().map(|up| match up.split_once(':') {
                    Some((u, p)) => (u.to_string(), p.to_string()),
                    None => (up, String::new()),
                })
            }
            USERNAME => {
                let p = st.opts.userpwd.take().map(|x| x.1).unwrap_or_default();
                st.opts.userpwd = Some((s().unwrap_or_default(), p));
            }
            PASSWORD => {
                let u = st.opts.userpwd.take().map(|x| x.0).unwrap_or_default();
                st.opts.userpwd = Some((u, s().unwrap_or_default()));
            }
            XOAUTH2_BEARER => st.opts.bearer = s(),
            SASL_AUTHZID => st.opts.mail_mut().sasl_authzid = s(),
            LOGIN_OPTIONS => st.opts.mail_mut().login_options = s(),
            RANGE => st.opts.range = s(),
            ACCEPT_ENCODING => {
                st.opts.accept_encoding = s().map(|a| {
                    if a.is_empty() {
                        "deflate, gzip, br, zstd".to_string()
                    } else {
                        a
                    }
                })
            }
            COOKIE => st.opts.cookie = s(),
            COOKIEFILE => match s() {
                Some(f) => st.opts.cookie_files.push(f),
                // curl forgets the files and throws its own cookies away (not a share's).
                None => {
                    st.opts.cookie_files.clear();
                    if let Some(easy) = st.easy.as_mut() {
                        easy.cookies_off(&st.opts);
                    }
                }
            },
            COOKIELIST => {
                let Some(arg) = s() else {
                    return CURLE_OK;
                };
                let Some(easy) = st.easy.as_mut() else {
                    return CURLE_OK;
                };
                use oxcurl_core::cookie::CookieListAction;
                match easy.cookie_list(&st.opts, arg.as_bytes()) {
                    Err(_) => return CURLE_OUT_OF_MEMORY,
                    Ok(CookieListAction::TooLong) => return CURLE_BAD_FUNCTION_ARGUMENT,
                    // A cookie line turns the cookie engine on, as a file name does.
                    Ok(CookieListAction::Line(_))
                        if st.opts.cookie_files.is_empty() && st.opts.cookie_jar.is_none() =>
                    {
                        st.opts.cookie_files.push(String::new())
                    }
                    Ok(_) => {}
                }
            }
            COOKIEJAR => st.opts.cookie_jar = s(),
            HSTS => st.opts.hsts_file = s(),
            CAINFO => st.opts.tls.cafile = s(),
            // NULL is no CA path at all (an empty one), not the built-in default.
            CAPATH => st.opts.tls.capath = Some(s().unwrap_or_default()),
            SSLCERT => st.opts.tls.cert = s(),
            SSLKEY => st.opts.tls.key = s(),
            INTERFACE => st.opts.interface = s(),
            UNIX_SOCKET_PATH => {
                st.opts.unix_socket_path = s();
                st.opts.abstract_unix_socket = false;
            }
            DEFAULT_PROTOCOL => st.opts.default_protocol = s(),
            REQUEST_TARGET => st.opts.request_target = s(),
            PRIVATE => st.private = v,
            PROXY => st.opts.proxy = s(),
            PROXYUSERPWD => {
                st.opts.proxy_userpwd = s().map(|up| match up.split_once(':') {
                    Some((u, p)) => (u.to_string(), p.to_string()),
                    None => (up, String::new()),
                })
            }
            PROXYUSERNAME => {
                let p = st
                    .opts
                    .proxy_userpwd
                    .take()
                    .map(|x| x.1)
                    .unwrap_or_default();
                st.opts.proxy_userpwd = Some((s().unwrap_or_default(), p));
            }
            PROXYPASSWORD => {
                let u = st
                    .opts
                    .proxy_userpwd
                    .take()
                    .map(|x| x.0)
                    .unwrap_or_default();
                st.opts.proxy_userpwd = Some((u, s().unwrap_or_default()));
            }
            NOPROXY => st.opts.noproxy = s(),
            PRE_PROXY => st.opts.pre_proxy = s(),
            PROXYHEADER => st.proxy_headers = v as *const CurlSlist,
            HAPROXY_CLIENT_IP => st.opts.haproxy_client_ip = s(),
            PROXY_CAINFO => st.opts.proxy_tls.cafile = s(),
            PROXY_CAPATH => st.opts.proxy_tls.capath = Some(s().unwrap_or_default()),
            PROXY_SSLCERT => st.opts.proxy_tls.cert = s(),
            PROXY_SSLCERTTYPE => st.opts.proxy_tls.cert_type = s(),
            PROXY_SSLKEY => st.opts.proxy_tls.key = s(),
            PROXY_SSLKEYTYPE => st.opts.proxy_tls.key_type = s(),
            PROXY_KEYPASSWD => st.opts.proxy_tls.key_passwd = s(),
            PROXY_PINNEDPUBLICKEY => st.opts.proxy_tls.pinned_pubkey = s(),
            PROXY_SSL_CIPHER_LIST => st.opts.proxy_tls.ciphers = s(),
            PROXY_TLS13_CIPHERS => st.opts.proxy_tls.tls13_ciphers = s(),
            PROXY_CRLFILE => st.opts.proxy_tls.crlfile = s(),
            SSLCERTTYPE => st.opts.tls.cert_type = s(),
            SSLKEYTYPE => st.opts.tls.key_type = s(),
            KEYPASSWD => st.opts.tls.key_passwd = s(),
            PINNEDPUBLICKEY => st.opts.tls.pinned_pubkey = s(),
            SSL_CIPHER_LIST => st.opts.tls.ciphers = s(),
            TLS13_CIPHERS => st.opts.tls.tls13_ciphers = s(),
            SSL_EC_CURVES => st.opts.tls.curves = s(),
            CRLFILE => st.opts.tls.crlfile = s(),
            ALTSVC => st.opts.altsvc_file = s(),
            PROTOCOLS_STR | REDIR_PROTOCOLS_STR => {
                let Some(list) = s() else {
                    // NULL: back to the default (every protocol; for redirects, curl's list).
                    if opt == PROTOCOLS_STR {
                        st.opts.allowed_protocols = None;
                    } else {
                        st.opts.redir_protocols = None;
                    }
                    return CURLE_OK;
                };
                let names = match protocol_list(&list) {
                    Ok(n) => n,
                    Err(code) => return code,
                };
                if opt == PROTOCOLS_STR {
                    st.opts.allowed_protocols = names;
                } else {
                    st.opts.redir_protocols = names;
                }
            }
            AWS_SIGV4 => {
                st.opts.aws_sigv4 = s();
                // curl: Basic is off once a signature is asked for.
                if st.opts.aws_sigv4.is_some() {
                    st.opts.httpauth = oxcurl_core::auth::AWS_SIGV4;
                }
            }
            NETRC_FILE => st.opts.netrc_file = s(),
            FTPPORT => st.opts.ftp_mut().port = s(),
            FTP_ACCOUNT => st.opts.ftp_mut().account = s(),
            FTP_ALTERNATIVE_TO_USER => st.opts.ftp_mut().alternative_to_user = s(),
            ABSTRACT_UNIX_SOCKET => {
                st.opts.unix_socket_path = s();
                st.opts.abstract_unix_socket = true;
            }
            // Deprecated in curl and ignored there too.
            RANDOM_FILE | EGDSOCKET => {}
            // curl built without GSSAPI has no such option.
            KRBLEVEL => return CURLE_UNKNOWN_OPTION,
            _ if known(opt) => return CURLE_NOT_BUILT_IN,
            _ => return CURLE_UNKNOWN_OPTION,
        }
        CURLE_OK
    })
}

/// `struct curl_blob` (curl.h): data, length, flags.
#[repr(C)]
struct CurlBlob {
    data: *const u8,
    len: usize,
    flags: std::ffi::c_uint,
}

/// A copy of a blob's bytes; None for a NULL blob (which unsets the option, as in curl).
///
/// # Safety
/// `v` is NULL or points to a `struct curl_blob` whose `data` holds `len` readable bytes.
unsafe fn blob_bytes(v: *mut c_void) -> Option<std::sync::Arc<[u8]>> {
    // SAFETY: per this function's contract.
    let b = unsafe { (v as *const CurlBlob).as_ref() }?;
    if b.data.is_null() || b.len == 0 {
        return Some(std::sync::Arc::from(&[][..]));
    }
    // SAFETY: per this function's contract, `data` holds `len` bytes.
    Some(std::sync::Arc::from(unsafe {
        std::slice::from_raw_parts(b.data, b.len)
    }))
}

/// `CURLOPT_SHARE`: leave the current share, join `new` if it is a share (anything else,
/// NULL included, only leaves, as in curl). The share's lock callback runs with no borrow of
/// the handle held.
fn set_share(e: &EasyHandle, h: *mut EasyHandle, new: *mut crate::share::ShareHandle) {
    let old = std::mem::replace(&mut e.state.borrow_mut().share, std::ptr::null_mut());
    e.state.borrow_mut().opts.share = None;
    // SAFETY: a share this handle is counted in, which curl_share_cleanup refuses to free.
    if let Some(s) = unsafe { crate::share::ShareHandle::from_ptr(old) } {
        s.attach(h, false);
    }
    // SAFETY: NULL, a live share, or (as curl tolerates) something else its magic refuses.
    if let Some(s) = unsafe { crate::share::ShareHandle::from_ptr(new) } {
        s.attach(h, true);
        let mut st = e.state.borrow_mut();
        st.share = new;
        st.opts.share = Some(s.share.attach(h as usize));
    }
}

fn time_us(d: Duration) -> i64 {
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX)
}

/// Typed half of `curl_easy_getinfo`: `out` points to the type the CURLINFO's bits name.
#[no_mangle]
pub extern "C" fn oxcurl_easy_getinfo_ptr(
    h: *mut EasyHandle,
    what: c_int,
    out: *mut c_void,
) -> CURLcode {
    use crate::consts::info::*;
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        };
        if out.is_null() {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        }
        let Ok(mut st) = e.state.try_borrow_mut() else {
            return CURLE_RECURSIVE_API_CALL;
        };
        let st = &mut *st;
        let live = e.live.get();
        let i = if live.is_null() {
            &st.info
        } else {
            // SAFETY: set by `LiveInfo` from a reference the engine lends for the length of
            // the callback this call is made from, and put back when it returns.
            unsafe { &*live }
        };
        let n = what & MASK;
        match what & TYPEMASK {
            STRING => {
                let s: Option<String> = match n {
                    1 => Some(i.effective_url.clone()),
                    18 => i.content_type.clone(),
                    21 => {
                        // SAFETY: PRIVATE is returned as the pointer it was set to.
                        unsafe { *(out as *mut *mut c_void) = st.private };
                        return CURLE_OK;
                    }
                    31 => i.redirect_url.clone(),
                    // curl's are arrays in its info: empty, never NULL, before a connection.
                    32 => Some(i.primary_ip.map(|a| a.ip().to_string()).unwrap_or_default()),
                    41 => Some(i.local_addr.map(|a| a.ip().to_string()).unwrap_or_default()),
                    49 => (!i.scheme.is_empty()).then(|| i.scheme.clone()),
                    58 => (!i.effective_method.is_empty()).then(|| i.effective_method.clone()),
                    // curl's state.referer: CURLOPT_REFERER as set, replaced by the one
                    // AUTOREFERER made when the last transfer followed a redirect.
                    60 => i.referer.clone().or_else(|| st.opts.referer.clone()),
                    61 => Some(st.opts.tls.effective_cafile().to_string()),
                    62 => Some(st.opts.tls.effective_capath().to_string()),
                    30 => i.ftp_entry_path.clone(),
                    36 => None,
                    _ => return CURLE_UNKNOWN_OPTION,
                };
                let p = match s {
                    Some(s) => {
                        st.strings.push(CString::new(s).unwrap_or_default());
                        st.strings.last().map_or(std::ptr::null(), |c| c.as_ptr())
                    }
                    None => std::ptr::null(),
                };
                // SAFETY: a STRING info takes a `char **`.
                unsafe { *(out as *mut *const c_char) = p };
            }
            LONG => {
                let v: c_long = match n {
                    2 => i.response_code as c_long,
                    11 => i.header_size as c_long,
                    12 => i.request_size as c_long,
                    13 => i.ssl_verify_result as c_long,
                    14 => filetime(st.filetime, i) as c_long,
                    20 => i.redirect_count as c_long,
                    22 => i.http_connectcode as c_long,
                    23 => i.httpauth_avail as c_long,
                    24 => i.proxyauth_avail as c_long,
                    // CURLINFO_CONDITION_UNMET: a 304, the server's or the one curl makes
                    // up when Last-Modified fails the time condition.
                    35 => c_long::from(i.response_code == 304 || i.condition_unmet),
                    69 => i.httpauth_used as c_long,
                    70 => i.proxyauth_used as c_long,
                    25 | 37 | 38 | 39 => 0,
                    // CURLINFO_PROXY_ERROR: the CURLproxycode of the latest SOCKS failure.
                    59 => i.proxy_error as c_long,
                    // CURLINFO_LASTSOCKET.
                    29 => st.last_socket().map_or(-1, c_long::from),
                    26 => i.num_connects as c_long,
                    // CURLINFO_PROTOCOL (deprecated): the CURLPROTO_ bit of the scheme.
                    48 => protocol_bit(&i.scheme),
                    40 => i.primary_ip.map_or(0, |a| a.port() as c_long),
                    42 => i.local_addr.map_or(0, |a| a.port() as c_long),
                    46 => match i.http_version {
                        oxcurl_core::info::HttpVersion::None
                        | oxcurl_core::info::HttpVersion::V0_9 => 0,
                        oxcurl_core::info::HttpVersion::V1_0 => 1,
                        oxcurl_core::info::HttpVersion::V1_1 => 2,
                        oxcurl_core::info::HttpVersion::V2 => 3,
                        oxcurl_core::info::HttpVersion::V3 => 30,
                    },
                    47 => i.proxy_ssl_verify_result as c_long,
                    66 => i.used_proxy as c_long,
                    _ => return CURLE_UNKNOWN_OPTION,
                };
                // SAFETY: a LONG info takes a `long *`.
                unsafe { *(out as *mut c_long) = v };
            }
            DOUBLE => {
                let t = |d: Duration| d.as_secs_f64();
                let v = match n {
                    3 => t(i.time_total),
                    4 => t(i.time_namelookup),
                    5 => t(i.time_connect),
                    6 => t(i.time_pretransfer),
                    7 => i.size_upload as f64,
                    8 => i.size_download as f64,
                    9 => i.speed_download() as f64,
                    10 => i.speed_upload() as f64,
                    15 => i.content_length_download.map_or(-1.0, |v| v as f64),
                    16 => i.content_length_upload.map_or(-1.0, |v| v as f64),
                    17 => t(i.time_starttransfer),
                    19 => t(i.time_redirect),
                    33 => t(i.time_appconnect),
                    _ => return CURLE_UNKNOWN_OPTION,
                };
                // SAFETY: a DOUBLE info takes a `double *`.
                unsafe { *(out as *mut f64) = v };
            }
            OFF_T => {
                let c = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
                let v = match n {
                    7 => c(i.size_upload),
                    8 => c(i.size_download),
                    9 => c(i.speed_download()),
                    10 => c(i.speed_upload()),
                    14 => filetime(st.filetime, i),
                    15 => i.content_length_download.map_or(-1, c),
                    16 => i.content_length_upload.map_or(-1, c),
                    50 => time_us(i.time_total),
                    51 => time_us(i.time_namelookup),
                    52 => time_us(i.time_connect),
                    53 => time_us(i.time_pretransfer),
                    54 => time_us(i.time_starttransfer),
                    55 => time_us(i.time_redirect),
                    56 => time_us(i.time_appconnect),
                    57 => retry_after(i, oxcurl_core::parsedate::unix_now()),
                    // CURLINFO_EARLYDATA_SENT_T.
                    68 => i.earlydata_sent,
                    63 => i.xfer_id,
                    64 => i.conn_id,
                    65 => time_us(i.time_queue),
                    67 => time_us(i.time_posttransfer),
                    _ => return CURLE_UNKNOWN_OPTION,
                };
                // SAFETY: an OFF_T info takes a `curl_off_t *`.
                unsafe { *(out as *mut i64) = v };
            }
            // CURLINFO_ACTIVESOCKET: as LASTSOCKET in curl (`Curl_getconnectinfo`).
            SOCKET if n == 44 => {
                let fd = st.last_socket().unwrap_or(-1);
                // SAFETY: a SOCKET info takes a `curl_socket_t *` (an int).
                unsafe { *(out as *mut c_int) = fd };
            }
            SLIST => match n {
                // A `struct curl_certinfo *`, never NULL (no certificates: none listed).
                34 => {
                    let certs = &st.info.certinfo;
                    let ci = st
                        .certinfo
                        .get_or_insert_with(|| crate::certinfo::Certinfo::new(certs));
                    // SAFETY: CERTINFO takes a `struct curl_certinfo **`; the struct lives in
                    // the handle until the next transfer, reset or cleanup.
                    unsafe { *(out as *mut *mut crate::certinfo::CurlCertinfo) = ci.as_ptr() };
                }
                // TLS_SESSION, TLS_SSL_PTR: the backend, and no TLS library internals (no
                // OpenSSL SSL* to hand out), as curl says between transfers.
                43 | 45 => {
                    // SAFETY: these infos take a `struct curl_tlssessioninfo **`; the
                    // struct is a static the application only reads.
                    unsafe {
                        *(out as *mut *const crate::global::TlsSessionInfo) =
                            crate::global::tls_session_info()
                    };
                }
                // COOKIELIST: every cookie as a Netscape line, NULL for none.
                28 => {
                    let lines = match st.easy.as_mut() {
                        Some(easy) => easy.cookie_lines(&st.opts),
                        None => Vec::new(),
                    };
                    let mut list: *mut CurlSlist = std::ptr::null_mut();
                    for l in lines {
                        let c = CString::new(l).unwrap_or_default();
                        let next = slist::curl_slist_append(list, c.as_ptr());
                        if next.is_null() {
                            slist::curl_slist_free_all(list);
                            return CURLE_OUT_OF_MEMORY;
                        }
                        list = next;
                    }
                    // SAFETY: COOKIELIST takes a `struct curl_slist **`; the application frees
                    // the list with curl_slist_free_all.
                    unsafe { *(out as *mut *mut CurlSlist) = list };
                }
                // SSL_ENGINES: an empty list.
                27 => {
                    // SAFETY: these infos take a pointer-to-pointer.
                    unsafe { *(out as *mut *mut c_void) = std::ptr::null_mut() };
                }
                _ => return CURLE_UNKNOWN_OPTION,
            },
            _ => return CURLE_UNKNOWN_OPTION,
        }
        CURLE_OK
    })
}
