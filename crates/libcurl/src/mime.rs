//! The MIME API: `curl_mime_*`. A `curl_mime *` is a `Box<MimeHandle>` owning its parts
//! (`Box<PartHandle>`, handed out as `curl_mimepart *`); a mime attached with
//! `curl_mime_subparts` belongs to that part and goes with it. At perform time a
//! `CURLOPT_MIMEPOST` mime is turned into the engine's `oxcurl_core::mime::Mime`; data
//! callbacks reach the engine as a `PartSource` calling the application's functions.

use crate::consts::*;
use crate::ffi::{cstr, cstring_opt};
use crate::slist::{self, CurlSlist};
use oxcurl_core::mime::{
    random_boundary, CallbackData, Encoder, Mime, MimeError, MimePart, PartData, PartSource,
};
use std::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub type MimeReadFn = unsafe extern "C" fn(*mut c_char, usize, usize, *mut c_void) -> usize;
pub type MimeSeekFn = unsafe extern "C" fn(*mut c_void, i64, c_int) -> c_int;
pub type MimeFreeFn = unsafe extern "C" fn(*mut c_void);

const MIME_MAGIC: u32 = 0x6d1e_0001;
const PART_MAGIC: u32 = 0x6d1e_0002;
/// `CURL_ZERO_TERMINATED`: `(size_t) -1`.
const ZERO_TERMINATED: usize = usize::MAX;
const SEEK_SET: c_int = 0;
const CURL_SEEKFUNC_OK: c_int = 0;

/// What a `curl_mime *` points to.
pub struct MimeHandle {
    magic: u32,
    boundary: String,
    parts: Vec<*mut PartHandle>,
    /// The part this mime is attached to as subparts, or NULL.
    parent: *mut PartHandle,
}

#[derive(Clone)]
struct Callback {
    read: MimeReadFn,
    seek: Option<MimeSeekFn>,
    free: Option<MimeFreeFn>,
    arg: *mut c_void,
    size: Option<u64>,
    /// The part has been read since it was set or last rewound, in this perform or an
    /// earlier one: sending it again seeks back first (curl's part state).
    started: Arc<AtomicBool>,
}

enum Data {
    None,
    Bytes(Vec<u8>),
    File(PathBuf),
    Callback(Callback),
    Subparts(*mut MimeHandle),
}

/// What a `curl_mimepart *` points to.
pub struct PartHandle {
    magic: u32,
    /// The mime holding this part.
    parent: *mut MimeHandle,
    name: Option<String>,
    filename: Option<String>,
    ctype: Option<String>,
    encoder: Option<Encoder>,
    data: Data,
    headers: *mut CurlSlist,
    owns_headers: bool,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The mimes not freed yet: addresses, with ids that tell them apart from a later mime at
/// the same address. A few at a time; the list goes when the last one is freed.
static LIVE: Mutex<Vec<(usize, u64)>> = Mutex::new(Vec::new());

fn live_id(m: usize) -> Option<u64> {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    live.iter().find(|(p, _)| *p == m).map(|(_, id)| *id)
}

/// A `CURLOPT_MIMEPOST` mime as an easy handle keeps it. Freeing the mime unbinds it from
/// the handle, as in curl (the handle then posts an empty body): the handle asks whether
/// this mime is still alive instead of reading freed memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MimeRef {
    ptr: usize,
    id: u64,
}

impl MimeRef {
    /// The mime `m` points to; None for NULL or what is not a mime.
    ///
    /// # Safety
    /// `m` is NULL or a pointer the application got from `curl_mime_init` (freed or not).
    pub(crate) unsafe fn new(m: *mut MimeHandle) -> Option<MimeRef> {
        let id = live_id(m as usize)?;
        Some(MimeRef {
            ptr: m as usize,
            id,
        })
    }

    /// The mime, unless it has been freed since.
    pub(crate) fn get(self) -> Option<*mut MimeHandle> {
        (live_id(self.ptr) == Some(self.id)).then_some(self.ptr as *mut MimeHandle)
    }
}

/// A `curl_mime *` argument, if it is one.
///
/// # Safety
/// `p` is NULL or a pointer from `curl_mime_init` that has not been freed.
unsafe fn mime_ref<'a>(p: *mut MimeHandle) -> Option<&'a mut MimeHandle> {
    if p.is_null() {
        return None;
    }
    // SAFETY: per the caller, a live MimeHandle.
    let m = unsafe { &mut *p };
    (m.magic == MIME_MAGIC).then_some(m)
}

/// A `curl_mimepart *` argument, if it is one.
///
/// # Safety
/// `p` is NULL or a pointer from `curl_mime_addpart` whose mime has not been freed.
unsafe fn part_ref<'a>(p: *mut PartHandle) -> Option<&'a mut PartHandle> {
    if p.is_null() {
        return None;
    }
    // SAFETY: per the caller, a live PartHandle.
    let part = unsafe { &mut *p };
    (part.magic == PART_MAGIC).then_some(part)
}

impl PartHandle {
    /// curl's `cleanup_part_content`: the data goes, calling the free callback or freeing
    /// owned subparts.
    fn clear_content(&mut self) {
        match std::mem::replace(&mut self.data, Data::None) {
            Data::Callback(cb) => {
                if let Some(f) = cb.free {
                    // SAFETY: the free callback and argument given to curl_mime_data_cb.
                    unsafe { f(cb.arg) };
                }
            }
            Data::Subparts(m) => {
                // SAFETY: an attached mime is owned by this part; unbind it first so
                // free_mime does not come back here.
                unsafe {
                    if let Some(sub) = mime_ref(m) {
                        sub.parent = std::ptr::null_mut();
                    }
                    free_mime(m);
                }
            }
            _ => {}
        }
    }

    fn clear_headers(&mut self) {
        if self.owns_headers {
            slist::curl_slist_free_all(self.headers);
        }
        self.headers = std::ptr::null_mut();
        self.owns_headers = false;
    }

    /// The engine's part, read from the C-side state now.
    fn to_core(&self) -> MimePart {
        let data = match &self.data {
            Data::None => PartData::Empty,
            Data::Bytes(b) => PartData::Bytes(b.clone()),
            Data::File(p) => PartData::File(p.clone()),
            Data::Callback(cb) => PartData::Callback(CallbackData {
                source: Arc::new(Mutex::new(Box::new(CSource { cb: cb.clone() }))),
                size: cb.size,
            }),
            // SAFETY: an attached mime lives as long as its part.
            Data::Subparts(m) => match unsafe { mime_ref(*m) } {
                Some(m) => PartData::Multipart(m.to_core("mixed")),
                None => PartData::Empty,
            },
        };
        MimePart {
            name: self.name.clone(),
            filename: self.filename.clone(),
            content_type: self.ctype.clone(),
            // SAFETY: the headers slist stays alive while the part uses it.
            headers: unsafe { slist::to_vec(self.headers) },
            encoder: self.encoder,
            data,
        }
    }
}

impl MimeHandle {
    /// The engine's multipart body of this mime.
    pub(crate) fn to_core(&self, subtype: &'static str) -> Mime {
        Mime {
            subtype,
            boundary: self.boundary.clone(),
            parts: self
                .parts
                .iter()
                // SAFETY: parts belong to the mime and live until it is freed.
                .filter_map(|p| unsafe { part_ref(*p) }.map(|p| p.to_core()))
                .collect(),
            backslash_escape: false,
        }
    }
}

/// The application's read/seek callbacks as an engine data source.
struct CSource {
    cb: Callback,
}

// SAFETY: libcurl's contract: a handle, and the mime it sends, is used by one thread at a
// time; the callbacks run on the thread performing the transfer.
unsafe impl Send for CSource {}

impl PartSource for CSource {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, MimeError> {
        self.cb.started.store(true, Ordering::Relaxed);
        // SAFETY: the read callback given to curl_mime_data_cb; buf is writable for its length.
        let n =
            unsafe { (self.cb.read)(buf.as_mut_ptr() as *mut c_char, 1, buf.len(), self.cb.arg) };
        if n == CURL_READFUNC_ABORT {
            Err(MimeError::Aborted)
        } else if n == CURL_READFUNC_PAUSE {
            Err(MimeError::Pause)
        } else if n > buf.len() {
            Err(MimeError::Read)
        } else {
            Ok(n)
        }
    }
    fn rewind(&mut self) -> bool {
        if !self.cb.started.load(Ordering::Relaxed) {
            return true;
        }
        let Some(seek) = self.cb.seek else {
            return false;
        };
        self.cb.started.store(false, Ordering::Relaxed);
        // SAFETY: the seek callback given to curl_mime_data_cb.
        unsafe { seek(self.cb.arg, 0, SEEK_SET) == CURL_SEEKFUNC_OK }
    }
}

/// Frees a mime and its parts.
///
/// # Safety
/// `m` is NULL or a live mime from `curl_mime_init`.
unsafe fn free_mime(m: *mut MimeHandle) {
    // SAFETY: per the caller.
    let Some(mime) = (unsafe { mime_ref(m) }) else {
        return;
    };
    // Attached as subparts: detach from the part, which then has no data.
    // SAFETY: the parent part outlives its attached mime.
    if let Some(parent) = unsafe { part_ref(mime.parent) } {
        parent.data = Data::None;
    }
    for p in std::mem::take(&mut mime.parts) {
        // SAFETY: parts come from Box::into_raw in curl_mime_addpart and are owned here.
        unsafe {
            if let Some(part) = part_ref(p) {
                part.clear_content();
                part.clear_headers();
                part.magic = 0;
            }
            drop(Box::from_raw(p));
        }
    }
    mime.magic = 0;
    {
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|(p, _)| *p != m as usize);
        if live.is_empty() {
            *live = Vec::new();
        }
    }
    // SAFETY: from Box::into_raw in curl_mime_init; no other owner.
    unsafe { drop(Box::from_raw(m)) };
}

/// `curl_mime_init`.
#[no_mangle]
pub extern "C" fn curl_mime_init(_easy: *mut c_void) -> *mut MimeHandle {
    guard!(std::ptr::null_mut(), {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let m = Box::into_raw(Box::new(MimeHandle {
            magic: MIME_MAGIC,
            boundary: random_boundary(),
            parts: Vec::new(),
            parent: std::ptr::null_mut(),
        }));
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((m as usize, id));
        m
    })
}

/// `curl_mime_free`: the mime, its parts and their owned subparts and headers.
#[no_mangle]
pub extern "C" fn curl_mime_free(mime: *mut MimeHandle) {
    // SAFETY: NULL or a live mime.
    guard!((), { unsafe { free_mime(mime) } })
}

/// `curl_mime_addpart`.
#[no_mangle]
pub extern "C" fn curl_mime_addpart(mime: *mut MimeHandle) -> *mut PartHandle {
    guard!(std::ptr::null_mut(), {
        // SAFETY: NULL or a live mime.
        let Some(m) = (unsafe { mime_ref(mime) }) else {
            return std::ptr::null_mut();
        };
        let p = Box::into_raw(Box::new(PartHandle {
            magic: PART_MAGIC,
            parent: mime,
            name: None,
            filename: None,
            ctype: None,
            encoder: None,
            data: Data::None,
            headers: std::ptr::null_mut(),
            owns_headers: false,
        }));
        m.parts.push(p);
        p
    })
}

/// Runs `f` on a part argument; NULL is `CURLE_BAD_FUNCTION_ARGUMENT`.
fn with_part(part: *mut PartHandle, f: impl FnOnce(&mut PartHandle) -> CURLcode) -> CURLcode {
    guard!(CURLE_BAD_FUNCTION_ARGUMENT, {
        // SAFETY: NULL or a live part.
        match unsafe { part_ref(part) } {
            Some(p) => f(p),
            None => CURLE_BAD_FUNCTION_ARGUMENT,
        }
    })
}

/// `curl_mime_name`.
#[no_mangle]
pub extern "C" fn curl_mime_name(part: *mut PartHandle, name: *const c_char) -> CURLcode {
    with_part(part, |p| {
        // SAFETY: NULL or a C string, copied.
        p.name = unsafe { cstring_opt(name) };
        CURLE_OK
    })
}

/// `curl_mime_filename`.
#[no_mangle]
pub extern "C" fn curl_mime_filename(part: *mut PartHandle, name: *const c_char) -> CURLcode {
    with_part(part, |p| {
        // SAFETY: NULL or a C string, copied.
        p.filename = unsafe { cstring_opt(name) };
        CURLE_OK
    })
}

/// `curl_mime_type`.
#[no_mangle]
pub extern "C" fn curl_mime_type(part: *mut PartHandle, t: *const c_char) -> CURLcode {
    with_part(part, |p| {
        // SAFETY: NULL or a C string, copied.
        p.ctype = unsafe { cstring_opt(t) };
        CURLE_OK
    })
}

/// `curl_mime_encoder`: an unknown name is `CURLE_BAD_FUNCTION_ARGUMENT` and leaves none.
#[no_mangle]
pub extern "C" fn curl_mime_encoder(part: *mut PartHandle, enc: *const c_char) -> CURLcode {
    with_part(part, |p| {
        p.encoder = None;
        // SAFETY: NULL or a C string.
        let Some(name) = (unsafe { cstring_opt(enc) }) else {
            return CURLE_OK;
        };
        match Encoder::from_name(&name) {
            Some(e) => {
                p.encoder = Some(e);
                CURLE_OK
            }
            None => CURLE_BAD_FUNCTION_ARGUMENT,
        }
    })
}

/// `curl_mime_data`: a copy of the bytes; `CURL_ZERO_TERMINATED` takes a C string.
#[no_mangle]
pub extern "C" fn curl_mime_data(
    part: *mut PartHandle,
    data: *const c_char,
    size: usize,
) -> CURLcode {
    with_part(part, |p| {
        p.clear_content();
        if data.is_null() {
            return CURLE_OK;
        }
        let bytes = if size == ZERO_TERMINATED {
            // SAFETY: a NUL-terminated string with CURL_ZERO_TERMINATED.
            unsafe { cstr(data) }.unwrap_or_default().to_vec()
        } else {
            // SAFETY: `size` readable bytes at `data`, per curl_mime_data(3).
            unsafe { std::slice::from_raw_parts(data as *const u8, size) }.to_vec()
        };
        p.data = Data::Bytes(bytes);
        CURLE_OK
    })
}

/// `curl_mime_filedata`: the file is read while sending; the part's file name becomes the
/// path's base name. A file that cannot be found is `CURLE_READ_ERROR`, now and at perform.
#[no_mangle]
pub extern "C" fn curl_mime_filedata(part: *mut PartHandle, path: *const c_char) -> CURLcode {
    with_part(part, |p| {
        p.clear_content();
        // SAFETY: NULL or a C string, copied.
        let Some(path) = (unsafe { cstring_opt(path) }) else {
            return CURLE_OK;
        };
        if std::fs::metadata(&path).is_err() {
            return CURLE_READ_ERROR;
        }
        let base = path.rsplit('/').next().unwrap_or(&path).to_string();
        p.data = Data::File(PathBuf::from(&path));
        p.filename = Some(base);
        CURLE_OK
    })
}

/// `curl_mime_data_cb`: data from the application's read callback; size -1 is unknown
/// (the body then goes chunked).
#[no_mangle]
pub extern "C" fn curl_mime_data_cb(
    part: *mut PartHandle,
    size: i64,
    read: Option<MimeReadFn>,
    seek: Option<MimeSeekFn>,
    free: Option<MimeFreeFn>,
    arg: *mut c_void,
) -> CURLcode {
    with_part(part, |p| {
        p.clear_content();
        if let Some(read) = read {
            p.data = Data::Callback(Callback {
                read,
                seek,
                free,
                arg,
                size: u64::try_from(size).ok(),
                started: Arc::default(),
            });
        }
        CURLE_OK
    })
}

/// `curl_mime_subparts`: the part takes `sub` over (freed with it). A mime already attached
/// somewhere, or the part's own root, is `CURLE_BAD_FUNCTION_ARGUMENT`.
#[no_mangle]
pub extern "C" fn curl_mime_subparts(part: *mut PartHandle, sub: *mut MimeHandle) -> CURLcode {
    with_part(part, |p| {
        if matches!(p.data, Data::Subparts(m) if m == sub) {
            return CURLE_OK;
        }
        p.clear_content();
        if sub.is_null() {
            return CURLE_OK;
        }
        // SAFETY: a live mime from curl_mime_init.
        let Some(s) = (unsafe { mime_ref(sub) }) else {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        };
        if !s.parent.is_null() {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        }
        // The topmost mime above the part, as curl walks it.
        let mut root = p.parent;
        // SAFETY: parents of live parts and mimes are live.
        unsafe {
            while let Some(r) = mime_ref(root) {
                match part_ref(r.parent) {
                    Some(up) if !up.parent.is_null() => root = up.parent,
                    _ => break,
                }
            }
        }
        if root == sub {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        }
        s.parent = part;
        p.data = Data::Subparts(sub);
        CURLE_OK
    })
}

/// `curl_mime_headers`: extra header lines, freed with the part when `take` is set.
#[no_mangle]
pub extern "C" fn curl_mime_headers(
    part: *mut PartHandle,
    headers: *mut CurlSlist,
    take: c_int,
) -> CURLcode {
    with_part(part, |p| {
        if p.headers != headers {
            p.clear_headers();
        }
        p.headers = headers;
        p.owns_headers = take != 0 && !headers.is_null();
        CURLE_OK
    })
}

/// A deep copy of a mime for `curl_easy_duphandle`, as curl's `Curl_mime_duppart`: a new
/// boundary, copied data, header lists owned by the copy, subparts copied, callback parts
/// sharing the application's callbacks and argument (so its free callback runs for each).
/// NULL for NULL.
///
/// # Safety
/// `m` is NULL or a live mime.
pub(crate) unsafe fn dup(m: *mut MimeHandle) -> *mut MimeHandle {
    // SAFETY: per the caller.
    let Some(src) = (unsafe { mime_ref(m) }) else {
        return std::ptr::null_mut();
    };
    let copy = curl_mime_init(std::ptr::null_mut());
    for &sp in &src.parts {
        // SAFETY: parts of a live mime are live.
        let Some(sp) = (unsafe { part_ref(sp) }) else {
            continue;
        };
        let dp = curl_mime_addpart(copy);
        // SAFETY: just made by curl_mime_addpart.
        let Some(d) = (unsafe { part_ref(dp) }) else {
            continue;
        };
        d.data = match &sp.data {
            Data::None => Data::None,
            Data::Bytes(b) => Data::Bytes(b.clone()),
            Data::File(f) => Data::File(f.clone()),
            // A new part: not read yet.
            Data::Callback(cb) => Data::Callback(Callback {
                started: Arc::default(),
                ..cb.clone()
            }),
            Data::Subparts(sub) => {
                // SAFETY: an attached mime lives as long as its part.
                let sub = unsafe { dup(*sub) };
                // SAFETY: the fresh copy, not attached anywhere yet.
                if let Some(s) = unsafe { mime_ref(sub) } {
                    s.parent = dp;
                }
                Data::Subparts(sub)
            }
        };
        d.name = sp.name.clone();
        d.filename = sp.filename.clone();
        d.ctype = sp.ctype.clone();
        d.encoder = sp.encoder;
        let mut list: *mut CurlSlist = std::ptr::null_mut();
        let mut node = sp.headers;
        while !node.is_null() {
            // SAFETY: a live slist node; its data is a C string copied by append.
            unsafe {
                list = slist::curl_slist_append(list, (*node).data);
                node = (*node).next;
            }
        }
        d.headers = list;
        d.owns_headers = !list.is_null();
    }
    copy
}

/// Frees a mime made by [`dup`].
///
/// # Safety
/// `m` is NULL or a live mime not used elsewhere.
pub(crate) unsafe fn free(m: *mut MimeHandle) {
    // SAFETY: per the caller.
    unsafe { free_mime(m) }
}

/// The engine body of a `CURLOPT_MIMEPOST` mime; `backslash_escape` is
/// `CURLMIMEOPT_FORMESCAPE`.
///
/// # Safety
/// `m` is NULL or a live mime (the application keeps it until the transfer is done).
pub(crate) unsafe fn body_of(m: *mut MimeHandle, backslash_escape: bool) -> Option<Mime> {
    fn escape_all(m: &mut Mime) {
        m.backslash_escape = true;
        for p in &mut m.parts {
            if let PartData::Multipart(sub) = &mut p.data {
                escape_all(sub);
            }
        }
    }
    // SAFETY: per the caller.
    let mut mime = unsafe { mime_ref(m) }.map(|m| m.to_core("form-data"))?;
    if backslash_escape {
        escape_all(&mut mime);
    }
    Some(mime)
}
