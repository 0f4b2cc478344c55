//! `curl_global_*`: process-wide setup. The engine needs none, so init only records the
//! allocator; sslset picks the TLS backend for the process.

use crate::alloc::{self, FreeFn, MallocFn};
use crate::consts::*;
use crate::ffi::cstr;
use oxcurl_core::tls::{self, Backend};
use std::ffi::{c_char, c_int, c_long, c_void};

/// `curl_global_init`: nothing to set up; always succeeds.
#[no_mangle]
pub extern "C" fn curl_global_init(_flags: c_long) -> CURLcode {
    guard!(CURLE_FAILED_INIT, { CURLE_OK })
}

/// `curl_global_trace`: which parts of verbose output to trace. curl's log components are
/// not separate here: the configuration is accepted and verbose output stays as it is.
#[no_mangle]
pub extern "C" fn curl_global_trace(_config: *const c_char) -> CURLcode {
    guard!(CURLE_FAILED_INIT, { CURLE_OK })
}

/// `curl_global_init_mem`: as `curl_global_init`, and memory handed to the application
/// comes from `m` and is released with `f`. Every callback must be given.
#[no_mangle]
pub extern "C" fn curl_global_init_mem(
    _flags: c_long,
    m: Option<MallocFn>,
    f: Option<FreeFn>,
    r: *const c_void,
    s: *const c_void,
    c: *const c_void,
) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        match (m, f) {
            (Some(m), Some(f)) if !r.is_null() && !s.is_null() && !c.is_null() => {
                alloc::install(m, f);
                CURLE_OK
            }
            _ => CURLE_FAILED_INIT,
        }
    })
}

/// `curl_global_cleanup`: forgets a custom allocator.
#[no_mangle]
pub extern "C" fn curl_global_cleanup() {
    guard!((), { alloc::reset() })
}

/// `curl_ssl_backend` from curl.h.
#[repr(C)]
pub struct CurlSslBackend {
    pub id: c_int,
    pub name: *const c_char,
}

struct Backends([CurlSslBackend; 2], [*const CurlSslBackend; 3]);
// SAFETY: the table is immutable and points only at static string literals.
unsafe impl Sync for Backends {}

const CURLSSLBACKEND_OPENSSL: c_int = 1;
const CURLSSLBACKEND_RUSTLS: c_int = 14;
static BACKENDS: Backends = Backends(
    [
        CurlSslBackend {
            id: CURLSSLBACKEND_OPENSSL,
            name: c"openssl".as_ptr(),
        },
        CurlSslBackend {
            id: CURLSSLBACKEND_RUSTLS,
            name: c"rustls".as_ptr(),
        },
    ],
    [
        &BACKENDS.0[0] as *const CurlSslBackend,
        &BACKENDS.0[1] as *const CurlSslBackend,
        std::ptr::null(),
    ],
);

const CURLSSLSET_OK: c_int = 0;
const CURLSSLSET_UNKNOWN_BACKEND: c_int = 1;
const CURLSSLSET_TOO_LATE: c_int = 2;

/// `curl_global_sslset`: choose the TLS backend by id or name, before any transfer.
#[no_mangle]
pub extern "C" fn curl_global_sslset(
    id: c_int,
    name: *const c_char,
    avail: *mut *const *const CurlSslBackend,
) -> c_int {
    guard!(CURLSSLSET_UNKNOWN_BACKEND, {
        if !avail.is_null() {
            // SAFETY: a non-NULL `avail` points to writable storage for one pointer.
            unsafe { *avail = BACKENDS.1.as_ptr() };
        }
        // SAFETY: NULL or a NUL-terminated string, per curl_global_sslset(3).
        let name = unsafe { cstr(name) };
        let wanted = match name {
            Some(n) => Backend::from_name(&String::from_utf8_lossy(n).to_ascii_lowercase()),
            None => match id {
                CURLSSLBACKEND_OPENSSL => Some(Backend::OpenSsl),
                CURLSSLBACKEND_RUSTLS => Some(Backend::Rustls),
                _ => None,
            },
        };
        match wanted {
            None => CURLSSLSET_UNKNOWN_BACKEND,
            Some(b) if tls::select_backend(b) => CURLSSLSET_OK,
            Some(_) => CURLSSLSET_TOO_LATE,
        }
    })
}

/// `struct curl_tlssessioninfo` (CURLINFO_TLS_SSL_PTR, CURLINFO_TLS_SESSION).
#[repr(C)]
pub struct TlsSessionInfo {
    pub backend: c_int,
    pub internals: *mut c_void,
}

struct SessionInfos([TlsSessionInfo; 2]);
// SAFETY: never written; the internals pointers are NULL.
unsafe impl Sync for SessionInfos {}

static SESSION_INFOS: SessionInfos = SessionInfos([
    TlsSessionInfo {
        backend: CURLSSLBACKEND_OPENSSL,
        internals: std::ptr::null_mut(),
    },
    TlsSessionInfo {
        backend: CURLSSLBACKEND_RUSTLS,
        internals: std::ptr::null_mut(),
    },
]);

/// The session info of the process's TLS backend, with no internals.
pub(crate) fn tls_session_info() -> *const TlsSessionInfo {
    match tls::backend() {
        Backend::OpenSsl => &SESSION_INFOS.0[0],
        Backend::Rustls => &SESSION_INFOS.0[1],
    }
}
