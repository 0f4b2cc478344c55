//! `curl_pushheader_bynum` and `curl_pushheader_byname`: the header access functions of
//! curl's HTTP/2 server-push callback (`CURLMOPT_PUSHFUNCTION`).
//!
//! The engine never enables server push (its SETTINGS keep ENABLE_PUSH at 0), so the push
//! callback is never called and no `struct curl_pushheaders` ever exists: like curl given a
//! pointer that is not one of its own, both answer NULL. They are exported so that programs
//! that set a push callback link and load.

use std::ffi::{c_char, c_void};

/// `curl_pushheader_bynum`: NULL (no push header set exists; see the module text).
#[no_mangle]
pub extern "C" fn curl_pushheader_bynum(_h: *mut c_void, _num: usize) -> *mut c_char {
    std::ptr::null_mut()
}

/// `curl_pushheader_byname`: NULL (no push header set exists; see the module text).
#[no_mangle]
pub extern "C" fn curl_pushheader_byname(_h: *mut c_void, _name: *const c_char) -> *mut c_char {
    std::ptr::null_mut()
}
