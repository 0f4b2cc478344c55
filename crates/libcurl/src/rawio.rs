//! `curl_easy_send`, `curl_easy_recv` and `curl_easy_upkeep`: raw I/O on a handle's
//! connection. They need `CURLOPT_CONNECT_ONLY`, which the engine does not offer yet (setopt
//! answers `CURLE_NOT_BUILT_IN`), so they answer as curl does for a handle without it.

use crate::consts::*;
use crate::easy::EasyHandle;
use std::ffi::c_void;

/// `n` is set (to 0) by send only: curl's recv leaves it alone when there is no connection.
fn no_connection(h: *mut EasyHandle, n: *mut usize) -> CURLcode {
    // SAFETY: NULL or a live handle.
    let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
        return CURLE_BAD_FUNCTION_ARGUMENT;
    };
    if !n.is_null() {
        // SAFETY: the application's size_t out-parameter.
        unsafe { *n = 0 };
    }
    e.fail_text("CONNECT_ONLY is required");
    CURLE_UNSUPPORTED_PROTOCOL
}

/// `curl_easy_send`.
#[no_mangle]
pub extern "C" fn curl_easy_send(
    h: *mut EasyHandle,
    _buf: *const c_void,
    _len: usize,
    n: *mut usize,
) -> CURLcode {
    guard!(CURLE_FAILED_INIT, { no_connection(h, n) })
}

/// `curl_easy_recv`.
#[no_mangle]
pub extern "C" fn curl_easy_recv(
    h: *mut EasyHandle,
    _buf: *mut c_void,
    _len: usize,
    _n: *mut usize,
) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        no_connection(h, std::ptr::null_mut())
    })
}

/// `curl_easy_upkeep`: curl only has work for HTTP/2 connections kept by CONNECT_ONLY;
/// without one there is nothing to do.
#[no_mangle]
pub extern "C" fn curl_easy_upkeep(h: *mut EasyHandle) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        match unsafe { EasyHandle::from_ptr(h) } {
            Some(_) => CURLE_OK,
            None => CURLE_BAD_FUNCTION_ARGUMENT,
        }
    })
}

/// `curl_easy_pause`: the engine cannot hold a transfer yet; answered as not built in.
#[no_mangle]
pub extern "C" fn curl_easy_pause(h: *mut EasyHandle, _bitmask: std::ffi::c_int) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        match unsafe { EasyHandle::from_ptr(h) } {
            Some(_) => CURLE_NOT_BUILT_IN,
            None => CURLE_BAD_FUNCTION_ARGUMENT,
        }
    })
}
