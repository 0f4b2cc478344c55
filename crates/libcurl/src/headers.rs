//! The header API: `curl_easy_header` and `curl_easy_nextheader`. The store is filled from
//! the response header lines as they reach the header callback (status lines tell the
//! responses apart: 1xx, the final one, a followed redirect or retry is a new request; lines
//! after a final response's blank line are trailers), so it also answers from inside
//! callbacks during the transfer, as curl's does. It is emptied when a transfer starts.

use crate::easy::EasyHandle;
use crate::ffi::cstr;
use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::sync::{Arc, Mutex};

pub const CURLH_HEADER: c_uint = 1 << 0;
pub const CURLH_TRAILER: c_uint = 1 << 1;
pub const CURLH_CONNECT: c_uint = 1 << 2;
pub const CURLH_1XX: c_uint = 1 << 3;
pub const CURLH_PSEUDO: c_uint = 1 << 4;
const ALL: c_uint = CURLH_HEADER | CURLH_TRAILER | CURLH_CONNECT | CURLH_1XX | CURLH_PSEUDO;
/// curl ORs a reserved bit into returned origins so applications cannot compare with `==`.
const RESERVED: c_uint = 1 << 27;

pub type CURLHcode = c_int;
pub const CURLHE_OK: CURLHcode = 0;
pub const CURLHE_BADINDEX: CURLHcode = 1;
pub const CURLHE_MISSING: CURLHcode = 2;
pub const CURLHE_NOHEADERS: CURLHcode = 3;
pub const CURLHE_NOREQUEST: CURLHcode = 4;
pub const CURLHE_BAD_ARGUMENT: CURLHcode = 6;

/// `struct curl_header` (header.h).
#[repr(C)]
pub struct CurlHeader {
    pub name: *mut c_char,
    pub value: *mut c_char,
    pub amount: usize,
    pub index: usize,
    pub origin: c_uint,
    /// Position of the entry + 1 (0 is none).
    pub anchor: *mut c_void,
}

const EMPTY: CurlHeader = CurlHeader {
    name: std::ptr::null_mut(),
    value: std::ptr::null_mut(),
    amount: 0,
    index: 0,
    origin: 0,
    anchor: std::ptr::null_mut(),
};

struct Entry {
    name: CString,
    value: CString,
    request: i32,
    origin: c_uint,
}

/// Where the header lines being received belong.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing received yet.
    Start,
    /// In the headers of a response with this origin.
    Headers(c_uint),
    /// After a final response's headers: further lines are trailers.
    AfterFinal,
    /// After a 1xx response's headers.
    After1xx,
}

/// The headers of a handle's latest transfer.
pub(crate) struct Store {
    entries: Vec<Entry>,
    requests: i32,
    /// The final status code of each request so far.
    finals: Vec<u16>,
    phase: Phase,
    /// The structs handed out: [0] by curl_easy_header, [1] by curl_easy_nextheader.
    out: [CurlHeader; 2],
}

// SAFETY: the raw pointers in `out` point into `entries`, owned by the same store, and are
// only read by the application on the thread using the handle.
unsafe impl Send for Store {}

pub(crate) type Shared = Arc<Mutex<Store>>;

pub(crate) fn new_store() -> Shared {
    Arc::new(Mutex::new(Store {
        entries: Vec::new(),
        requests: 0,
        finals: Vec::new(),
        phase: Phase::Start,
        out: [EMPTY, EMPTY],
    }))
}

fn status_code(line: &[u8]) -> Option<u16> {
    let rest = line.strip_prefix(b"HTTP/")?;
    let sp = rest.iter().position(|&b| b == b' ')?;
    let code = rest.get(sp + 1..sp + 4)?;
    std::str::from_utf8(code).ok()?.parse().ok()
}

fn trim(b: &[u8]) -> &[u8] {
    let blank = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let start = b.iter().position(|c| !blank(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !blank(c)).map_or(start, |e| e + 1);
    &b[start..end]
}

fn cstring(b: &[u8]) -> CString {
    CString::new(b.iter().copied().filter(|&c| c != 0).collect::<Vec<u8>>()).unwrap_or_default()
}

impl Store {
    /// A new transfer: the previous headers go.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.requests = 0;
        self.finals.clear();
        self.phase = Phase::Start;
        self.out = [EMPTY, EMPTY];
    }

    /// One line as the header callback gets it.
    pub(crate) fn line(&mut self, line: &[u8]) {
        if let Some(code) = status_code(line) {
            if self.phase != Phase::Start && self.phase != Phase::After1xx {
                // A final response came before: this one answers a follow-up request.
                self.requests += 1;
            }
            self.phase = Phase::Headers(if (100..200).contains(&code) {
                CURLH_1XX
            } else {
                self.finals.push(code);
                CURLH_HEADER
            });
            return;
        }
        let t = trim(line);
        let origin = match self.phase {
            Phase::Headers(o) if t.is_empty() => {
                self.phase = if o == CURLH_1XX {
                    Phase::After1xx
                } else {
                    Phase::AfterFinal
                };
                return;
            }
            Phase::Headers(o) => o,
            Phase::AfterFinal if !t.is_empty() => CURLH_TRAILER,
            _ => return,
        };
        if matches!(line.first(), Some(b' ' | b'\t')) {
            // A folded line continues the previous value with one of its leading blanks,
            // as curl's unfold_value.
            if let Some(last) = self.entries.last_mut() {
                let blanks = line
                    .iter()
                    .take_while(|&&b| b == b' ' || b == b'\t')
                    .count();
                let rest = &line[blanks - 1..];
                let end = rest
                    .iter()
                    .rposition(|c| !c.is_ascii_whitespace())
                    .map_or(1, |e| e + 1);
                let mut v = last.value.as_bytes().to_vec();
                v.extend_from_slice(&rest[..end]);
                last.value = cstring(&v);
            }
            return;
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return;
        };
        self.entries.push(Entry {
            // curl keeps the name as sent, up to the colon.
            name: cstring(&line[..colon]),
            value: cstring(trim(&line[colon + 1..])),
            request: self.requests,
            origin,
        });
    }

    /// The transfer went through a proxy tunnel set up in it (`connect_code` is not 0): the
    /// responses up to the proxy's 2xx answered CONNECT. curl stores them as `CURLH_CONNECT`
    /// headers of the first request and does not count them as requests.
    pub(crate) fn tunnel_done(&mut self, connect_code: u32) {
        if connect_code == 0 || self.finals.is_empty() {
            return;
        }
        let n = self
            .finals
            .iter()
            .position(|c| (200..300).contains(c))
            .map_or(self.finals.len(), |i| i + 1) as i32;
        for e in &mut self.entries {
            if e.request < n {
                e.request = 0;
                e.origin = CURLH_CONNECT;
            } else {
                e.request -= n;
            }
        }
        self.requests = (self.requests - n).max(0);
        self.finals.drain(..n as usize);
    }

    fn matches(e: &Entry, name: &[u8], origin: c_uint, request: i32) -> bool {
        e.request == request
            && e.origin & origin != 0
            && e.name.as_bytes().eq_ignore_ascii_case(name)
    }

    fn fill(&mut self, slot: usize, pos: usize, index: usize, amount: usize) -> *mut CurlHeader {
        let e = &self.entries[pos];
        self.out[slot] = CurlHeader {
            name: e.name.as_ptr() as *mut c_char,
            value: e.value.as_ptr() as *mut c_char,
            amount,
            index,
            origin: e.origin | RESERVED,
            anchor: (pos + 1) as *mut c_void,
        };
        &mut self.out[slot]
    }
}

/// The store of a `CURL *` argument.
fn store_of(easy: *mut EasyHandle) -> Option<Shared> {
    // SAFETY: NULL or a live handle from curl_easy_init.
    let e = unsafe { EasyHandle::from_ptr(easy) }?;
    Some(e.headers.clone())
}

/// `curl_easy_header`.
#[no_mangle]
pub extern "C" fn curl_easy_header(
    easy: *mut EasyHandle,
    name: *const c_char,
    index: usize,
    origin: c_uint,
    request: c_int,
    hout: *mut *mut CurlHeader,
) -> CURLHcode {
    guard!(CURLHE_BAD_ARGUMENT, {
        // SAFETY: NULL or a C string.
        let name = unsafe { cstr(name) };
        let store = store_of(easy);
        let (Some(name), Some(store)) = (name, store) else {
            return CURLHE_BAD_ARGUMENT;
        };
        if hout.is_null() || origin == 0 || origin > ALL || request < -1 {
            return CURLHE_BAD_ARGUMENT;
        }
        let Ok(mut st) = store.lock() else {
            return CURLHE_BAD_ARGUMENT;
        };
        if st.entries.is_empty() {
            return CURLHE_NOHEADERS;
        }
        if request > st.requests {
            return CURLHE_NOREQUEST;
        }
        let request = if request == -1 { st.requests } else { request };
        let hits: Vec<usize> = (0..st.entries.len())
            .filter(|&i| Store::matches(&st.entries[i], name, origin, request))
            .collect();
        if hits.is_empty() {
            return CURLHE_MISSING;
        }
        if index >= hits.len() {
            return CURLHE_BADINDEX;
        }
        let p = st.fill(0, hits[index], index, hits.len());
        // SAFETY: hout checked non-NULL; the application passes a writable pointer.
        unsafe { *hout = p };
        CURLHE_OK
    })
}

/// `curl_easy_nextheader`: the headers of one request and origin, in arrival order.
#[no_mangle]
pub extern "C" fn curl_easy_nextheader(
    easy: *mut EasyHandle,
    origin: c_uint,
    request: c_int,
    prev: *mut CurlHeader,
) -> *mut CurlHeader {
    guard!(std::ptr::null_mut(), {
        let Some(store) = store_of(easy) else {
            return std::ptr::null_mut();
        };
        let Ok(mut st) = store.lock() else {
            return std::ptr::null_mut();
        };
        if request > st.requests {
            return std::ptr::null_mut();
        }
        let request = if request == -1 { st.requests } else { request };
        let start = if prev.is_null() {
            0
        } else {
            // SAFETY: a struct this API returned, valid until the next call.
            let anchor = unsafe { (*prev).anchor } as usize;
            if anchor == 0 {
                return std::ptr::null_mut();
            }
            anchor
        };
        let Some(pos) = (start..st.entries.len())
            .find(|&i| st.entries[i].request == request && st.entries[i].origin & origin != 0)
        else {
            return std::ptr::null_mut();
        };
        let name = st.entries[pos].name.as_bytes().to_vec();
        let mut amount = 0;
        let mut index = 0;
        for i in 0..st.entries.len() {
            if Store::matches(&st.entries[i], &name, origin, request) {
                amount += 1;
            }
            if i == pos {
                index = amount - 1;
            }
        }
        st.fill(1, pos, index, amount)
    })
}
