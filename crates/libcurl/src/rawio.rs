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

/// `curl_easy_pause`: sets the paused directions of the handle's running transfer, from a
/// callback or between runs; a direction let go makes the transfer run again (data a write
/// callback refused is handed over then). Without a running transfer, curl's
/// `CURLE_BAD_FUNCTION_ARGUMENT`.
#[no_mangle]
pub extern "C" fn curl_easy_pause(h: *mut EasyHandle, bitmask: std::ffi::c_int) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        };
        if !e.pause.running() {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        }
        let mut bits = 0;
        if bitmask & CURLPAUSE_RECV != 0 {
            bits |= oxcurl_core::pause::RECV;
        }
        if bitmask & CURLPAUSE_SEND != 0 {
            bits |= oxcurl_core::pause::SEND;
        }
        e.pause.set(bits);
        CURLE_OK
    })
}
