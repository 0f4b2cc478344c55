//! `curl_easy_send`, `curl_easy_recv` and `curl_easy_upkeep`: raw I/O on the connection a
//! `CURLOPT_CONNECT_ONLY` transfer left (TLS included), and `curl_easy_pause`.

use crate::consts::*;
use crate::easy::EasyHandle;
use std::ffi::c_void;
use std::io;

/// curl's `easy_connection`: the handle's CONNECT_ONLY connection, or the error (with
/// curl's error text) when the option is off or there is no connection.
fn with_connection(
    e: &EasyHandle,
    f: impl FnOnce(&mut oxcurl_core::conn::RawConn) -> CURLcode,
) -> CURLcode {
    if e.busy.get() {
        return CURLE_RECURSIVE_API_CALL;
    }
    let Ok(mut st) = e.state.try_borrow_mut() else {
        return CURLE_RECURSIVE_API_CALL;
    };
    if !st.opts.connect_only {
        drop(st);
        e.fail_text("CONNECT_ONLY is required");
        return CURLE_UNSUPPORTED_PROTOCOL;
    }
    match st.raw.as_mut() {
        Some(c) => f(c),
        None => {
            drop(st);
            e.fail_text("Failed to get recent socket");
            CURLE_UNSUPPORTED_PROTOCOL
        }
    }
}

/// `curl_easy_send`: CURLE_AGAIN when the socket takes nothing now.
#[no_mangle]
pub extern "C" fn curl_easy_send(
    h: *mut EasyHandle,
    buf: *const c_void,
    len: usize,
    n: *mut usize,
) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        };
        let mut sent = 0;
        let rc = with_connection(e, |c| {
            let data: &[u8] = if len == 0 || buf.is_null() {
                &[]
            } else {
                // SAFETY: the application's buffer of `len` bytes.
                unsafe { std::slice::from_raw_parts(buf as *const u8, len) }
            };
            match c.send(data) {
                Ok(k) => {
                    sent = k;
                    CURLE_OK
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => CURLE_AGAIN,
                Err(_) => CURLE_SEND_ERROR,
            }
        });
        if !n.is_null() {
            // SAFETY: the application's size_t out-parameter.
            unsafe { *n = sent };
        }
        rc
    })
}

/// `curl_easy_recv`: CURLE_AGAIN when nothing is there, 0 bytes at the end of the stream.
#[no_mangle]
pub extern "C" fn curl_easy_recv(
    h: *mut EasyHandle,
    buf: *mut c_void,
    len: usize,
    n: *mut usize,
) -> CURLcode {
    guard!(CURLE_FAILED_INIT, {
        // SAFETY: NULL or a live handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLE_BAD_FUNCTION_ARGUMENT;
        };
        with_connection(e, |c| {
            if !n.is_null() {
                // SAFETY: the application's size_t out-parameter.
                unsafe { *n = 0 };
            }
            let data: &mut [u8] = if len == 0 || buf.is_null() {
                &mut []
            } else {
                // SAFETY: the application's writable buffer of `len` bytes.
                unsafe { std::slice::from_raw_parts_mut(buf as *mut u8, len) }
            };
            loop {
                match c.recv(data) {
                    Ok(k) => {
                        if !n.is_null() {
                            // SAFETY: as above.
                            unsafe { *n = k };
                        }
                        return CURLE_OK;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return CURLE_AGAIN,
                    Err(_) => return CURLE_RECV_ERROR,
                }
            }
        })
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
