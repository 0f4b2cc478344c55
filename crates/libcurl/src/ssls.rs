//! `curl_easy_ssls_export` and `curl_easy_ssls_import`: TLS session export for persistence.
//!
//! curl builds them only with `USE_SSLS_EXPORT` (an experimental option); without it, as in
//! Debian's libcurl 8.14.1 and in the curl tool it ships (`--ssl-sessions` answers "the
//! installed libcurl version does not support this"), both return `CURLE_NOT_BUILT_IN` for
//! any argument. oxcurl's sessions stay in the process (share handles, the connection's TLS
//! session cache), as there.

use crate::consts::*;
use crate::easy::EasyHandle;
use std::ffi::{c_char, c_uchar, c_void};

/// `curl_ssls_export_cb`: never called here.
pub type ExportCallback = Option<
    unsafe extern "C" fn(
        handle: *mut EasyHandle,
        userptr: *mut c_void,
        session_key: *const c_char,
        shmac: *const c_uchar,
        shmac_len: usize,
        sdata: *const c_uchar,
        sdata_len: usize,
        valid_until: i64,
        ietf_tls_id: std::ffi::c_int,
        alpn: *const c_char,
        earlydata_max: usize,
    ) -> CURLcode,
>;

/// `curl_easy_ssls_import`: `CURLE_NOT_BUILT_IN`, as curl without `USE_SSLS_EXPORT`.
#[no_mangle]
pub extern "C" fn curl_easy_ssls_import(
    _h: *mut EasyHandle,
    _session_key: *const c_char,
    _shmac: *const c_uchar,
    _shmac_len: usize,
    _sdata: *const c_uchar,
    _sdata_len: usize,
) -> CURLcode {
    CURLE_NOT_BUILT_IN
}

/// `curl_easy_ssls_export`: `CURLE_NOT_BUILT_IN`, as curl without `USE_SSLS_EXPORT`; the
/// callback is never called.
#[no_mangle]
pub extern "C" fn curl_easy_ssls_export(
    _h: *mut EasyHandle,
    _export_fn: ExportCallback,
    _userptr: *mut c_void,
) -> CURLcode {
    CURLE_NOT_BUILT_IN
}
