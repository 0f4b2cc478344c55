//! websockets.h: this library is built without WebSocket support (`curl_version_info` lists
//! no ws/wss), and answers as curl built that way does: `CURLE_NOT_BUILT_IN`, no frame meta.

use crate::consts::*;
use std::ffi::c_void;

/// `curl_ws_recv`.
#[no_mangle]
pub extern "C" fn curl_ws_recv(
    _h: *mut c_void,
    _buf: *mut c_void,
    _len: usize,
    _nread: *mut usize,
    _meta: *mut *const c_void,
) -> CURLcode {
    CURLE_NOT_BUILT_IN
}

/// `curl_ws_send`.
#[no_mangle]
pub extern "C" fn curl_ws_send(
    _h: *mut c_void,
    _buf: *const c_void,
    _len: usize,
    _sent: *mut usize,
    _fragsize: i64,
    _flags: std::ffi::c_uint,
) -> CURLcode {
    CURLE_NOT_BUILT_IN
}

/// `curl_ws_meta`.
#[no_mangle]
pub extern "C" fn curl_ws_meta(_h: *mut c_void) -> *const c_void {
    std::ptr::null()
}
