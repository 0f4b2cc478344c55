//! The typed setopt functions behind the C shim, called directly: which numbers are
//! unknown, which are known but not built in, and handle checks.

use oxcurl_libcurl::consts::*;
use oxcurl_libcurl::easy::*;
use std::ffi::c_void;

#[test]
fn unknown_option_numbers_answer_unknown_option() {
    let h = curl_easy_init();
    assert_eq!(oxcurl_easy_setopt_long(h, 9999, 1), CURLE_UNKNOWN_OPTION);
    assert_eq!(
        oxcurl_easy_setopt_ptr(h, 19999, std::ptr::null_mut()),
        CURLE_UNKNOWN_OPTION
    );
    assert_eq!(oxcurl_easy_setopt_off(h, 39999, 1), CURLE_UNKNOWN_OPTION);
    curl_easy_cleanup(h);
}

#[test]
fn known_options_of_missing_features_answer_not_built_in() {
    let h = curl_easy_init();
    // CURLOPT_SSH_AUTH_TYPES and CURLOPT_SSH_PUBLIC_KEYFILE (no SSH)
    assert_eq!(oxcurl_easy_setopt_long(h, 151, 1), CURLE_NOT_BUILT_IN);
    assert_eq!(
        oxcurl_easy_setopt_ptr(h, 10152, std::ptr::null_mut()),
        CURLE_NOT_BUILT_IN
    );
    // an HTTP version the engine does not speak (CURL_HTTP_VERSION_3): as curl built without
    // HTTP/3, an unsupported protocol (1); HTTP/2 it does
    assert_eq!(oxcurl_easy_setopt_long(h, opt::HTTP_VERSION, 30), 1);
    assert_eq!(oxcurl_easy_setopt_long(h, opt::HTTP_VERSION, 3), CURLE_OK);
    assert_eq!(oxcurl_easy_setopt_long(h, opt::FOLLOWLOCATION, 1), CURLE_OK);
    // CURLFOLLOW_FIRSTONLY is the last mode; past it curl refuses
    assert_eq!(oxcurl_easy_setopt_long(h, opt::FOLLOWLOCATION, 3), CURLE_OK);
    assert_eq!(
        oxcurl_easy_setopt_long(h, opt::FOLLOWLOCATION, 4),
        CURLE_BAD_FUNCTION_ARGUMENT
    );
    // CURLOPT_STREAM_WEIGHT is taken, a weight outside 1-256 ignored (curl with HTTP/2)
    for w in [1, 256, 0, 257, -1] {
        assert_eq!(
            oxcurl_easy_setopt_long(h, opt::STREAM_WEIGHT, w),
            CURLE_OK,
            "weight {w}"
        );
    }
    // CURLOPT_STREAM_DEPENDS and _E: no HTTP/2 dependencies
    for o in [10240, 10241] {
        assert_eq!(
            oxcurl_easy_setopt_ptr(h, o, std::ptr::null_mut()),
            CURLE_NOT_BUILT_IN
        );
    }
    // CURLOPT_HTTPPOST and CURLOPT_SHARE are built in
    assert_eq!(
        oxcurl_easy_setopt_ptr(h, 10024, std::ptr::null_mut()),
        CURLE_OK
    );
    assert_eq!(
        oxcurl_easy_setopt_ptr(h, opt::SHARE, std::ptr::null_mut()),
        CURLE_OK
    );
    curl_easy_cleanup(h);
}

#[test]
fn null_and_foreign_handles_are_refused() {
    assert_eq!(
        oxcurl_easy_setopt_long(std::ptr::null_mut(), opt::VERBOSE, 1),
        CURLE_BAD_FUNCTION_ARGUMENT
    );
    let mut not_a_handle = [0u64; 8];
    let p = not_a_handle.as_mut_ptr() as *mut EasyHandle;
    assert_eq!(
        oxcurl_easy_setopt_long(p, opt::VERBOSE, 1),
        CURLE_BAD_FUNCTION_ARGUMENT
    );
    assert_eq!(
        curl_easy_perform(std::ptr::null_mut()),
        CURLE_BAD_FUNCTION_ARGUMENT
    );
    curl_easy_cleanup(std::ptr::null_mut());
}

#[test]
fn duphandle_copies_settings_and_reset_clears_them() {
    let h = curl_easy_init();
    let url = c"http://127.0.0.1:1/";
    assert_eq!(
        oxcurl_easy_setopt_ptr(h, opt::URL, url.as_ptr() as *mut c_void),
        CURLE_OK
    );
    let private = 42usize as *mut c_void;
    assert_eq!(oxcurl_easy_setopt_ptr(h, opt::PRIVATE, private), CURLE_OK);
    let d = curl_easy_duphandle(h);
    assert!(!d.is_null());
    let mut got: *mut c_void = std::ptr::null_mut();
    let out = &mut got as *mut *mut c_void as *mut c_void;
    assert_eq!(oxcurl_easy_getinfo_ptr(d, info::STRING + 21, out), CURLE_OK);
    assert_eq!(got, private);
    // the dup has the URL: performing it fails to connect rather than lacking a URL
    assert_eq!(curl_easy_perform(d), 7);
    curl_easy_reset(d);
    assert_eq!(curl_easy_perform(d), 3, "no URL after reset");
    curl_easy_cleanup(d);
    curl_easy_cleanup(h);
}

#[test]
fn socket_infos_answer_no_socket_without_connect_only() {
    let h = curl_easy_init();
    let mut last: std::ffi::c_long = 0;
    let out = &mut last as *mut std::ffi::c_long as *mut c_void;
    // CURLINFO_LASTSOCKET
    assert_eq!(oxcurl_easy_getinfo_ptr(h, info::LONG + 29, out), CURLE_OK);
    assert_eq!(last, -1);
    let mut active: std::ffi::c_int = 0;
    let out = &mut active as *mut std::ffi::c_int as *mut c_void;
    // CURLINFO_ACTIVESOCKET
    assert_eq!(oxcurl_easy_getinfo_ptr(h, info::SOCKET + 44, out), CURLE_OK);
    assert_eq!(active, -1);
    curl_easy_cleanup(h);
}
