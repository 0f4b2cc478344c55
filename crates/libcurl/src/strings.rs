//! Plain functions on strings: error texts, URL escaping, dates, `curl_free`.

use crate::alloc::{app_free, app_strdup};
use crate::consts::*;
use crate::ffi::cstr;
use oxcurl_core::codec::{easy_escape, urldecode, Reject};
use oxcurl_core::Code;
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::OnceLock;

fn static_cstr(
    table: &'static OnceLock<Vec<CString>>,
    i: usize,
    make: fn() -> Vec<CString>,
) -> *const c_char {
    let t = table.get_or_init(make);
    t.get(i)
        .unwrap_or(t.last().expect("table has an 'Unknown error' entry"))
        .as_ptr()
}

/// Texts indexed by CURLcode, the last entry "Unknown error" for everything else.
fn easy_texts() -> Vec<CString> {
    let max = Code::ALL.iter().map(|c| *c as usize).max().unwrap_or(0);
    let mut v: Vec<CString> = (0..=max)
        .map(|n| {
            let t = Code::from_u32(n as u32).map_or("Unknown error", Code::strerror);
            CString::new(t).expect("no NUL in error texts")
        })
        .collect();
    v.push(CString::new("Unknown error").expect("literal"));
    v
}

/// `curl_easy_strerror`.
#[no_mangle]
pub extern "C" fn curl_easy_strerror(code: CURLcode) -> *const c_char {
    static T: OnceLock<Vec<CString>> = OnceLock::new();
    guard!(c"Unknown error".as_ptr(), {
        let i = usize::try_from(code).unwrap_or(usize::MAX);
        static_cstr(&T, i, easy_texts)
    })
}

const MULTI_TEXTS: &[&std::ffi::CStr] = &[
    c"No error",
    c"Invalid multi handle",
    c"Invalid easy handle",
    c"Out of memory",
    c"Internal error",
    c"Invalid socket argument",
    c"Unknown option",
    c"The easy handle is already added to a multi handle",
    c"API function called from within callback",
    c"Wakeup is unavailable or failed",
    c"A libcurl function was given a bad argument",
    c"Operation was aborted by an application callback",
    c"Unrecoverable error in select/poll",
];

/// `curl_multi_strerror`.
#[no_mangle]
pub extern "C" fn curl_multi_strerror(code: CURLMcode) -> *const c_char {
    guard!(c"Unknown error".as_ptr(), {
        if code == CURLM_CALL_MULTI_PERFORM {
            return c"Please call curl_multi_perform() soon".as_ptr();
        }
        usize::try_from(code)
            .ok()
            .and_then(|i| MULTI_TEXTS.get(i))
            .map_or(c"Unknown error".as_ptr(), |s| s.as_ptr())
    })
}

/// `curl_free`: releases memory libcurl handed to the application.
#[no_mangle]
pub extern "C" fn curl_free(p: *mut c_void) {
    // SAFETY: curl_free(3) takes NULL or memory libcurl returned, from app_malloc.
    guard!((), { unsafe { app_free(p) } })
}

/// `curl_strequal`: 1 when the strings are equal ignoring ASCII case (or both NULL), else 0.
#[no_mangle]
pub extern "C" fn curl_strequal(s1: *const c_char, s2: *const c_char) -> c_int {
    guard!(0, {
        // SAFETY: NULL or NUL-terminated strings, per curl_strequal(3).
        match unsafe { (cstr(s1), cstr(s2)) } {
            (Some(a), Some(b)) => c_int::from(a.eq_ignore_ascii_case(b)),
            (a, b) => c_int::from(a.is_none() && b.is_none()),
        }
    })
}

/// `curl_strnequal`: as `curl_strequal` for at most `max` bytes of each string; two NULL
/// strings are equal only when `max` is not 0.
#[no_mangle]
pub extern "C" fn curl_strnequal(s1: *const c_char, s2: *const c_char, max: usize) -> c_int {
    guard!(0, {
        // SAFETY: NULL or NUL-terminated strings, per curl_strequal(3).
        match unsafe { (cstr(s1), cstr(s2)) } {
            (Some(a), Some(b)) => {
                let (a, b) = (&a[..a.len().min(max)], &b[..b.len().min(max)]);
                c_int::from(a.eq_ignore_ascii_case(b))
            }
            (a, b) => c_int::from(a.is_none() && b.is_none() && max != 0),
        }
    })
}

/// `curl_getenv`: a copy of the environment variable's value (freed with `curl_free`), NULL
/// when it is not set or empty.
#[no_mangle]
pub extern "C" fn curl_getenv(name: *const c_char) -> *mut c_char {
    guard!(std::ptr::null_mut(), {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        // SAFETY: NULL or a NUL-terminated string, per curl_getenv(3).
        let Some(name) = (unsafe { cstr(name) }) else {
            return std::ptr::null_mut();
        };
        if name.is_empty() || name.contains(&b'=') {
            return std::ptr::null_mut();
        }
        match std::env::var_os(std::ffi::OsStr::from_bytes(name)) {
            Some(v) if !v.is_empty() => app_strdup(&v.into_vec()),
            Some(_) => std::ptr::null_mut(),
            None => std::ptr::null_mut(),
        }
    })
}

/// `curl_getdate`: seconds since the epoch, -1 when the text is not a date.
#[no_mangle]
pub extern "C" fn curl_getdate(s: *const c_char, _unused: *const i64) -> i64 {
    guard!(-1, {
        // SAFETY: NULL or a NUL-terminated string, per curl_getdate(3).
        match unsafe { cstr(s) } {
            Some(b) => oxcurl_core::parsedate::getdate(b),
            None => -1,
        }
    })
}

/// The bytes of a (pointer, length) argument, `length` 0 meaning NUL-terminated.
///
/// # Safety
/// `s` is NULL, or a NUL-terminated string when `len` is 0, or `len` readable bytes.
unsafe fn input<'a>(s: *const c_char, len: c_int) -> Option<&'a [u8]> {
    if s.is_null() || len < 0 {
        return None;
    }
    if len == 0 {
        // SAFETY: forwarded contract.
        unsafe { cstr(s) }
    } else {
        // SAFETY: `len` readable bytes per the caller.
        Some(unsafe { std::slice::from_raw_parts(s as *const u8, len as usize) })
    }
}

/// `curl_easy_unescape` decodes everything (`REJECT_NADA`).
fn unescape(b: &[u8]) -> Vec<u8> {
    urldecode(b, Reject::Nothing).unwrap_or_default()
}

/// `curl_easy_escape`: URL-encodes all but RFC 3986's unreserved characters.
#[no_mangle]
pub extern "C" fn curl_easy_escape(_h: *mut c_void, s: *const c_char, len: c_int) -> *mut c_char {
    guard!(std::ptr::null_mut(), {
        // SAFETY: per curl_easy_escape(3): a string, NUL-terminated when len is 0.
        match unsafe { input(s, len) } {
            Some(b) => app_strdup(&easy_escape(b)),
            None => std::ptr::null_mut(),
        }
    })
}

/// `curl_escape` (deprecated alias without a handle).
#[no_mangle]
pub extern "C" fn curl_escape(s: *const c_char, len: c_int) -> *mut c_char {
    curl_easy_escape(std::ptr::null_mut(), s, len)
}

/// `curl_easy_unescape`: decodes %XX; the decoded length goes to `outlen` when given.
#[no_mangle]
pub extern "C" fn curl_easy_unescape(
    _h: *mut c_void,
    s: *const c_char,
    len: c_int,
    outlen: *mut c_int,
) -> *mut c_char {
    guard!(std::ptr::null_mut(), {
        // SAFETY: per curl_easy_unescape(3): a string, NUL-terminated when len is 0.
        let Some(b) = (unsafe { input(s, len) }) else {
            return std::ptr::null_mut();
        };
        let out = unescape(b);
        let Ok(n) = c_int::try_from(out.len()) else {
            return std::ptr::null_mut();
        };
        let p = app_strdup(&out);
        if !p.is_null() && !outlen.is_null() {
            // SAFETY: a non-NULL `outlen` points to a writable int.
            unsafe { *outlen = n };
        }
        p
    })
}

/// `curl_unescape` (deprecated alias without a handle).
#[no_mangle]
pub extern "C" fn curl_unescape(s: *const c_char, len: c_int) -> *mut c_char {
    curl_easy_unescape(std::ptr::null_mut(), s, len, std::ptr::null_mut())
}
