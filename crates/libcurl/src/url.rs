//! The URL API (`curl_url_*`) on `oxcurl_urlapi`: a `CURLU *` is a `Box<UrlHandle>`.

use crate::alloc::app_strdup;
use crate::ffi::cstr;
use oxcurl_urlapi::{Flags, GetFlags, Part, Url, UrlError};
use std::ffi::{c_char, c_int, c_uint};

/// `CURLUcode`.
pub type CURLUcode = c_int;
const CURLUE_OK: CURLUcode = 0;
const CURLUE_OUT_OF_MEMORY: CURLUcode = 7;

/// The `CURLU_*` flag bits of urlapi.h.
pub mod flag {
    use std::ffi::c_uint;
    pub const DEFAULT_PORT: c_uint = 1 << 0;
    pub const NO_DEFAULT_PORT: c_uint = 1 << 1;
    pub const DEFAULT_SCHEME: c_uint = 1 << 2;
    pub const NON_SUPPORT_SCHEME: c_uint = 1 << 3;
    pub const PATH_AS_IS: c_uint = 1 << 4;
    pub const DISALLOW_USER: c_uint = 1 << 5;
    pub const URLDECODE: c_uint = 1 << 6;
    pub const URLENCODE: c_uint = 1 << 7;
    pub const APPENDQUERY: c_uint = 1 << 8;
    pub const GUESS_SCHEME: c_uint = 1 << 9;
    pub const NO_AUTHORITY: c_uint = 1 << 10;
    pub const ALLOW_SPACE: c_uint = 1 << 11;
    pub const PUNYCODE: c_uint = 1 << 12;
    pub const PUNY2IDN: c_uint = 1 << 13;
    pub const GET_EMPTY: c_uint = 1 << 14;
    pub const NO_GUESS_SCHEME: c_uint = 1 << 15;
}

fn set_flags(f: c_uint) -> Flags {
    Flags {
        default_scheme: f & flag::DEFAULT_SCHEME != 0,
        guess_scheme: f & flag::GUESS_SCHEME != 0,
        non_support_scheme: f & flag::NON_SUPPORT_SCHEME != 0,
        path_as_is: f & flag::PATH_AS_IS != 0,
        url_encode: f & flag::URLENCODE != 0,
        allow_space: f & flag::ALLOW_SPACE != 0,
        disallow_user: f & flag::DISALLOW_USER != 0,
        no_authority: f & flag::NO_AUTHORITY != 0,
    }
}

fn get_flags(f: c_uint) -> GetFlags {
    GetFlags {
        default_port: f & flag::DEFAULT_PORT != 0,
        no_default_port: f & flag::NO_DEFAULT_PORT != 0,
        url_decode: f & flag::URLDECODE != 0,
        url_encode: f & flag::URLENCODE != 0,
        punycode: f & flag::PUNYCODE != 0,
        puny2idn: f & flag::PUNY2IDN != 0,
        get_empty: f & flag::GET_EMPTY != 0,
        no_guess_scheme: f & flag::NO_GUESS_SCHEME != 0,
    }
}

fn code(e: UrlError) -> CURLUcode {
    e.code() as CURLUcode
}

const MAGIC: u32 = 0xc0de_0a11;

/// What a `CURLU *` points to.
pub struct UrlHandle {
    magic: u32,
    url: Url,
}

/// # Safety
/// `p` is NULL or a live pointer from `curl_url`/`curl_url_dup`, not used elsewhere now
/// (curl's URL handles are not shared between threads without locking).
unsafe fn handle<'a>(p: *mut UrlHandle) -> Option<&'a mut UrlHandle> {
    if p.is_null() {
        return None;
    }
    // SAFETY: per the caller.
    let h = unsafe { &mut *p };
    (h.magic == MAGIC).then_some(h)
}

fn boxed(url: Url) -> *mut UrlHandle {
    Box::into_raw(Box::new(UrlHandle { magic: MAGIC, url }))
}

/// The whole URL of a handle for a transfer, and the effective URL curl reports for it when
/// that differs; None when the handle is not a live URL handle or has no full URL. curl uses
/// the handle as it is and asks it for the request's path URL-encoded: a path set with
/// `CURLU_ALLOW_SPACE` goes out with `%20` for its spaces. The engine takes a string, so it
/// gets the URL with the path encoded that way, and the URL as the handle holds it (spaces
/// kept: curl's `curl_url_get(uh, CURLUPART_URL, &url, 0)`) as the one to report.
///
/// # Safety
/// As [`handle`].
pub(crate) unsafe fn whole_url(p: *mut UrlHandle) -> Option<(String, Option<String>)> {
    // SAFETY: per the caller.
    let h = unsafe { handle(p) }?;
    let encoded = GetFlags {
        url_encode: true,
        ..GetFlags::default()
    };
    let raw = h.url.get(Part::Path, GetFlags::default()).ok();
    let whole = h.url.get(Part::Url, GetFlags::default()).ok()?;
    match h
        .url
        .get(Part::Path, encoded)
        .ok()
        .filter(|p| Some(p) != raw.as_ref())
    {
        Some(path) => {
            let mut u = h.url.clone();
            u.set(Part::Path, Some(&path), Flags::default()).ok()?;
            let requested = u.get(Part::Url, GetFlags::default()).ok()?;
            Some((requested, Some(whole)))
        }
        None => Some((whole, None)),
    }
}

/// `curl_url`: a new, empty URL handle.
#[no_mangle]
pub extern "C" fn curl_url() -> *mut UrlHandle {
    guard!(std::ptr::null_mut(), { boxed(Url::default()) })
}

/// `curl_url_cleanup`.
#[no_mangle]
pub extern "C" fn curl_url_cleanup(p: *mut UrlHandle) {
    guard!((), {
        // SAFETY: NULL or a live URL handle.
        if unsafe { handle(p) }.is_some() {
            // SAFETY: from Box::into_raw in `boxed`; magic cleared before the free.
            unsafe {
                (*p).magic = 0;
                drop(Box::from_raw(p));
            }
        }
    })
}

/// `curl_url_dup`.
#[no_mangle]
pub extern "C" fn curl_url_dup(p: *mut UrlHandle) -> *mut UrlHandle {
    guard!(std::ptr::null_mut(), {
        // SAFETY: NULL or a live URL handle.
        match unsafe { handle(p) } {
            Some(h) => boxed(h.url.clone()),
            None => std::ptr::null_mut(),
        }
    })
}

/// `curl_url_get`: one part (or the whole URL) as a string the application frees with
/// `curl_free`.
#[no_mangle]
pub extern "C" fn curl_url_get(
    p: *mut UrlHandle,
    what: c_int,
    out: *mut *mut c_char,
    flags: c_uint,
) -> CURLUcode {
    guard!(CURLUE_OUT_OF_MEMORY, {
        if out.is_null() {
            return code(UrlError::BadPartpointer);
        }
        // SAFETY: checked non-NULL; a `char **` per curl_url_get(3), cleared first as curl does.
        unsafe { *out = std::ptr::null_mut() };
        // SAFETY: NULL or a live URL handle.
        let Some(h) = (unsafe { handle(p) }) else {
            return code(UrlError::BadHandle);
        };
        let Some(part) = u32::try_from(what).ok().and_then(Part::from_code) else {
            return code(UrlError::UnknownPart);
        };
        match h.url.get_bytes(part, get_flags(flags)) {
            Ok(v) => {
                let s = app_strdup(&v);
                if s.is_null() {
                    return CURLUE_OUT_OF_MEMORY;
                }
                // SAFETY: checked non-NULL above.
                unsafe { *out = s };
                CURLUE_OK
            }
            Err(e) => code(e),
        }
    })
}

/// `curl_url_set`: sets (NULL: clears) one part; a URL is resolved against the one held.
#[no_mangle]
pub extern "C" fn curl_url_set(
    p: *mut UrlHandle,
    what: c_int,
    content: *const c_char,
    flags: c_uint,
) -> CURLUcode {
    guard!(CURLUE_OUT_OF_MEMORY, {
        // SAFETY: NULL or a live URL handle.
        let Some(h) = (unsafe { handle(p) }) else {
            return code(UrlError::BadHandle);
        };
        let Some(part) = u32::try_from(what).ok().and_then(Part::from_code) else {
            return code(UrlError::UnknownPart);
        };
        // SAFETY: NULL or a NUL-terminated string, per curl_url_set(3).
        let value = unsafe { cstr(content) }.map(String::from_utf8_lossy);
        let f = set_flags(flags);
        let r = match (&value, part) {
            (Some(q), Part::Query) if flags & flag::APPENDQUERY != 0 => {
                h.url.append_query(q, f.url_encode)
            }
            _ => h.url.set(part, value.as_deref(), f),
        };
        match r {
            Ok(()) => CURLUE_OK,
            Err(e) => code(e),
        }
    })
}

/// `curl_url_strerror`.
#[no_mangle]
pub extern "C" fn curl_url_strerror(c: CURLUcode) -> *const c_char {
    static TEXTS: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    guard!(c"CURLUcode unknown".as_ptr(), {
        if c == 0 {
            return c"No error".as_ptr();
        }
        let Some(e) = u32::try_from(c).ok().and_then(UrlError::from_code) else {
            return c"CURLUcode unknown".as_ptr();
        };
        let t = TEXTS.get_or_init(|| {
            (1..)
                .map_while(UrlError::from_code)
                .map(|e| std::ffi::CString::new(e.message()).unwrap_or_default())
                .collect()
        });
        t.get(e.code() as usize - 1)
            .map_or(c"CURLUcode unknown".as_ptr(), |s| s.as_ptr())
    })
}
