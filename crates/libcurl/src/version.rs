//! `curl_version` and `curl_version_info`: what this libcurl is and supports (HTTP and HTTPS).

use std::ffi::{c_char, c_int, c_long, c_uint, CString};
use std::ptr::null;
use std::sync::OnceLock;

/// `curl_version_info_data` from curl.h, up to `CURLVERSION_TWELFTH`.
#[repr(C)]
pub struct VersionInfo {
    pub age: c_int,
    pub version: *const c_char,
    pub version_num: c_uint,
    pub host: *const c_char,
    pub features: c_int,
    pub ssl_version: *const c_char,
    pub ssl_version_num: c_long,
    pub libz_version: *const c_char,
    pub protocols: *const *const c_char,
    pub ares: *const c_char,
    pub ares_num: c_int,
    pub libidn: *const c_char,
    pub iconv_ver_num: c_int,
    pub libssh_version: *const c_char,
    pub brotli_ver_num: c_uint,
    pub brotli_version: *const c_char,
    pub nghttp2_ver_num: c_uint,
    pub nghttp2_version: *const c_char,
    pub quic_version: *const c_char,
    pub cainfo: *const c_char,
    pub capath: *const c_char,
    pub zstd_ver_num: c_uint,
    pub zstd_version: *const c_char,
    pub hyper_version: *const c_char,
    pub gsasl_version: *const c_char,
    pub feature_names: *const *const c_char,
    pub rtmp_version: *const c_char,
}

/// `CURLVERSION_TWELFTH`, the age curl 8.14.1 returns.
pub const CURLVERSION_NOW: c_int = 11;
const VERSION_NUM: c_uint = 0x08_0e_01;

/// The `CURL_VERSION_*` bit of each feature name the engine may list
/// (`oxcurl_core::features`, in curl's order: sorted without case).
const FEATURE_BITS: &[(&std::ffi::CStr, c_int)] = &[
    (c"alt-svc", 1 << 24),
    (c"AsynchDNS", 1 << 7),
    (c"brotli", 1 << 23),
    (c"HSTS", 1 << 28),
    (c"HTTP2", 1 << 16),
    (c"HTTPS-proxy", 1 << 21),
    (c"IDN", 1 << 10),
    (c"IPv6", 1 << 0),
    (c"Largefile", 1 << 9),
    (c"libz", 1 << 3),
    (c"MultiSSL", 1 << 22),
    (c"NTLM", 1 << 4),
    (c"PSL", 1 << 20),
    (c"SSL", 1 << 2),
    (c"threadsafe", 1 << 30),
    (c"UnixSockets", 1 << 19),
    (c"zstd", 1 << 26),
];

/// The features of this build: the engine's list with their bits.
fn built_features() -> impl Iterator<Item = &'static (&'static std::ffi::CStr, c_int)> {
    let built = oxcurl_core::features();
    FEATURE_BITS
        .iter()
        .filter(move |f| built.iter().any(|b| f.0.to_bytes() == b.as_bytes()))
}

struct Data {
    info: VersionInfo,
    _strings: Vec<CString>,
    _protocol_names: Vec<CString>,
    _protocols: Vec<*const c_char>,
    _features: Vec<*const c_char>,
}
// SAFETY: built once and never mutated; every pointer targets data owned by the same
// immutable value (or static literals), so sharing it across threads is read-only.
unsafe impl Sync for Data {}
// SAFETY: as above; the value is only created inside the OnceLock initializer.
unsafe impl Send for Data {}

fn ssl_version() -> String {
    oxcurl_core::tls::version_string()
}

fn build() -> Data {
    let strings: Vec<CString> = [
        oxcurl_core::LIBCURL_VERSION.to_string(),
        "x86_64-pc-linux-gnu".to_string(),
        ssl_version(),
        "zlib-rs".to_string(),
        "brotli-decompressor".to_string(),
        "ruzstd".to_string(),
        oxcurl_core::tls::TlsOptions::default()
            .effective_cafile()
            .to_string(),
        oxcurl_core::tls::TlsOptions::default()
            .effective_capath()
            .to_string(),
        oxcurl_core::version_line(),
    ]
    .into_iter()
    .map(|s| CString::new(s).unwrap_or_default())
    .collect();
    // The schemes this build serves, from the scheme table; the strings live in `Data`.
    let protocol_names: Vec<CString> = oxcurl_core::scheme::served()
        .map(|s| CString::new(s.name).unwrap_or_default())
        .collect();
    let mut protocols: Vec<*const c_char> = protocol_names.iter().map(|p| p.as_ptr()).collect();
    protocols.push(null());
    let mut features: Vec<*const c_char> = built_features().map(|f| f.0.as_ptr()).collect();
    features.push(null());
    let info = VersionInfo {
        age: CURLVERSION_NOW,
        version: strings[0].as_ptr(),
        version_num: VERSION_NUM,
        host: strings[1].as_ptr(),
        features: built_features().fold(0, |a, f| a | f.1),
        ssl_version: strings[2].as_ptr(),
        ssl_version_num: 0,
        libz_version: strings[3].as_ptr(),
        protocols: protocols.as_ptr(),
        ares: null(),
        ares_num: 0,
        libidn: null(),
        iconv_ver_num: 0,
        libssh_version: null(),
        brotli_ver_num: 0,
        brotli_version: strings[4].as_ptr(),
        nghttp2_ver_num: 0,
        nghttp2_version: null(),
        quic_version: null(),
        cainfo: strings[6].as_ptr(),
        capath: strings[7].as_ptr(),
        zstd_ver_num: 0,
        zstd_version: strings[5].as_ptr(),
        hyper_version: null(),
        gsasl_version: null(),
        feature_names: features.as_ptr(),
        rtmp_version: null(),
    };
    Data {
        info,
        _strings: strings,
        _protocol_names: protocol_names,
        _protocols: protocols,
        _features: features,
    }
}

static DATA: OnceLock<Data> = OnceLock::new();

/// `curl_version_info`: the same static data whatever age is asked for.
#[no_mangle]
pub extern "C" fn curl_version_info(_age: c_int) -> *const VersionInfo {
    guard!(null(), {
        &DATA.get_or_init(build).info as *const VersionInfo
    })
}

/// `curl_version`: "libcurl/8.14.1 <tls> oxcurl/<version>".
#[no_mangle]
pub extern "C" fn curl_version() -> *const c_char {
    guard!(null(), { DATA.get_or_init(build)._strings[8].as_ptr() })
}
