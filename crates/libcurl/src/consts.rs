//! Constants from curl 8.14.1's curl.h and multi.h, written by hand; the C layout test
//! (tests/c/layout.c) and the option table generator check them against the headers.
#![allow(missing_docs)]

use std::ffi::c_int;

pub type CURLcode = c_int;
pub type CURLMcode = c_int;

pub const CURLE_OK: CURLcode = 0;
pub const CURLE_UNSUPPORTED_PROTOCOL: CURLcode = 1;
pub const CURLE_FAILED_INIT: CURLcode = 2;
pub const CURLE_NOT_BUILT_IN: CURLcode = 4;
pub const CURLE_OUT_OF_MEMORY: CURLcode = 27;
pub const CURLE_BAD_FUNCTION_ARGUMENT: CURLcode = 43;
pub const CURLE_READ_ERROR: CURLcode = 26;
pub const CURLE_UNKNOWN_OPTION: CURLcode = 48;
pub const CURLE_RECURSIVE_API_CALL: CURLcode = 93;

pub const CURLM_CALL_MULTI_PERFORM: CURLMcode = -1;
pub const CURLM_OK: CURLMcode = 0;
pub const CURLM_BAD_HANDLE: CURLMcode = 1;
pub const CURLM_BAD_EASY_HANDLE: CURLMcode = 2;
pub const CURLM_OUT_OF_MEMORY: CURLMcode = 3;
pub const CURLM_INTERNAL_ERROR: CURLMcode = 4;
pub const CURLM_BAD_SOCKET: CURLMcode = 5;
pub const CURLM_UNKNOWN_OPTION: CURLMcode = 6;
pub const CURLM_ADDED_ALREADY: CURLMcode = 7;
pub const CURLM_RECURSIVE_API_CALL: CURLMcode = 8;
pub const CURLM_WAKEUP_FAILURE: CURLMcode = 9;
pub const CURLM_BAD_FUNCTION_ARGUMENT: CURLMcode = 10;
pub const CURLM_ABORTED_BY_CALLBACK: CURLMcode = 11;

/// `CURL_POLL_*` from multi.h, what `CURLMOPT_SOCKETFUNCTION` is told.
pub const CURL_POLL_IN: c_int = 1;
pub const CURL_POLL_OUT: c_int = 2;
pub const CURL_POLL_INOUT: c_int = 3;
pub const CURL_POLL_REMOVE: c_int = 4;
/// `CURL_SOCKET_TIMEOUT` (`CURL_SOCKET_BAD`).
pub const CURL_SOCKET_TIMEOUT: c_int = -1;
/// poll(2)'s `POLLIN`/`POLLOUT` as `CURL_WAIT_POLLIN`/`CURL_WAIT_POLLOUT`.
pub const CURL_WAIT_POLLIN: i16 = 0x1;
pub const CURL_WAIT_POLLOUT: i16 = 0x4;

/// `CURLMSG_DONE`.
pub const CURLMSG_DONE: c_int = 1;

/// `CURL_ERROR_SIZE`.
pub const CURL_ERROR_SIZE: usize = 256;
pub const CURL_READFUNC_ABORT: usize = 0x1000_0000;
pub const CURL_READFUNC_PAUSE: usize = 0x1000_0001;
pub const CURL_WRITEFUNC_PAUSE: usize = 0x1000_0001;
pub const CURL_PROGRESSFUNC_CONTINUE: c_int = 0x1000_0001;

pub mod opt {
    use std::ffi::c_int;
    pub const WRITEDATA: c_int = 10001;
    pub const URL: c_int = 10002;
    pub const USERPWD: c_int = 10005;
    pub const RANGE: c_int = 10007;
    pub const READDATA: c_int = 10009;
    pub const ERRORBUFFER: c_int = 10010;
    pub const WRITEFUNCTION: c_int = 20011;
    pub const READFUNCTION: c_int = 20012;
    pub const TIMEOUT: c_int = 13;
    pub const INFILESIZE: c_int = 14;
    pub const POSTFIELDS: c_int = 10015;
    pub const REFERER: c_int = 10016;
    pub const USERAGENT: c_int = 10018;
    pub const LOW_SPEED_LIMIT: c_int = 19;
    pub const LOW_SPEED_TIME: c_int = 20;
    pub const RESUME_FROM: c_int = 21;
    pub const COOKIE: c_int = 10022;
    pub const HTTPHEADER: c_int = 10023;
    pub const SSLCERT: c_int = 10025;
    pub const HEADERDATA: c_int = 10029;
    pub const COOKIEFILE: c_int = 10031;
    pub const CUSTOMREQUEST: c_int = 10036;
    pub const VERBOSE: c_int = 41;
    pub const CERTINFO: c_int = 172;
    pub const HEADER: c_int = 42;
    pub const NOPROGRESS: c_int = 43;
    pub const NOBODY: c_int = 44;
    pub const FAILONERROR: c_int = 45;
    pub const UPLOAD: c_int = 46;
    pub const POST: c_int = 47;
    pub const FOLLOWLOCATION: c_int = 52;
    pub const XFERINFODATA: c_int = 10057;
    pub const AUTOREFERER: c_int = 58;
    pub const POSTFIELDSIZE: c_int = 60;
    pub const INTERFACE: c_int = 10062;
    pub const SSL_VERIFYPEER: c_int = 64;
    pub const CAINFO: c_int = 10065;
    pub const MAXREDIRS: c_int = 68;
    pub const FRESH_CONNECT: c_int = 74;
    pub const FORBID_REUSE: c_int = 75;
    pub const CONNECTTIMEOUT: c_int = 78;
    pub const HEADERFUNCTION: c_int = 20079;
    pub const HTTPGET: c_int = 80;
    pub const SSL_VERIFYHOST: c_int = 81;
    pub const COOKIEJAR: c_int = 10082;
    pub const HTTP_VERSION: c_int = 84;
    pub const SSLKEY: c_int = 10087;
    pub const DEBUGFUNCTION: c_int = 20094;
    pub const DEBUGDATA: c_int = 10095;
    pub const COOKIESESSION: c_int = 96;
    pub const CAPATH: c_int = 10097;
    pub const BUFFERSIZE: c_int = 98;
    pub const NOSIGNAL: c_int = 99;
    pub const ACCEPT_ENCODING: c_int = 10102;
    pub const SHARE: c_int = 10100;
    pub const PRIVATE: c_int = 10103;
    pub const UNRESTRICTED_AUTH: c_int = 105;
    pub const IPRESOLVE: c_int = 113;
    pub const MAXFILESIZE: c_int = 114;
    pub const INFILESIZE_LARGE: c_int = 30115;
    pub const RESUME_FROM_LARGE: c_int = 30116;
    pub const MAXFILESIZE_LARGE: c_int = 30117;
    pub const POSTFIELDSIZE_LARGE: c_int = 30120;
    pub const TCP_NODELAY: c_int = 121;
    pub const IGNORE_CONTENT_LENGTH: c_int = 136;
    pub const TCP_KEEPIDLE: c_int = 214;
    pub const TCP_KEEPINTVL: c_int = 215;
    pub const HAPPY_EYEBALLS_TIMEOUT_MS: c_int = 271;
    pub const DISALLOW_USERNAME_IN_URL: c_int = 278;
    pub const TCP_KEEPCNT: c_int = 326;
    pub const LOCALPORT: c_int = 139;
    pub const LOCALPORTRANGE: c_int = 140;
    pub const TIMEOUT_MS: c_int = 155;
    pub const CONNECTTIMEOUT_MS: c_int = 156;
    pub const HTTP_TRANSFER_DECODING: c_int = 157;
    pub const HTTP_CONTENT_DECODING: c_int = 158;
    pub const POSTREDIR: c_int = 161;
    pub const COPYPOSTFIELDS: c_int = 10165;
    pub const MIMEPOST: c_int = 10269;
    pub const HTTPPOST: c_int = 10024;
    pub const MIME_OPTIONS: c_int = 315;
    pub const USERNAME: c_int = 10173;
    pub const PASSWORD: c_int = 10174;
    pub const RESOLVE: c_int = 10203;
    pub const TCP_KEEPALIVE: c_int = 213;
    pub const XFERINFOFUNCTION: c_int = 20219;
    pub const XOAUTH2_BEARER: c_int = 10220;
    pub const UNIX_SOCKET_PATH: c_int = 10231;
    pub const PATH_AS_IS: c_int = 234;
    pub const DEFAULT_PROTOCOL: c_int = 10238;
    pub const CONNECT_TO: c_int = 10243;
    pub const KEEP_SENDING_ON_ERROR: c_int = 245;
    pub const REQUEST_TARGET: c_int = 10266;
    pub const HSTS: c_int = 10300;
}

pub mod info {
    use std::ffi::c_int;
    pub const STRING: c_int = 0x10_0000;
    pub const LONG: c_int = 0x20_0000;
    pub const DOUBLE: c_int = 0x30_0000;
    pub const SLIST: c_int = 0x40_0000;
    pub const SOCKET: c_int = 0x50_0000;
    pub const OFF_T: c_int = 0x60_0000;
    pub const TYPEMASK: c_int = 0xf0_0000;
    pub const MASK: c_int = 0x0f_ffff;
}

pub mod mopt {
    use std::ffi::c_int;
    pub const SOCKETFUNCTION: c_int = 20001;
    pub const SOCKETDATA: c_int = 10002;
    pub const PIPELINING: c_int = 3;
    pub const TIMERFUNCTION: c_int = 20004;
    pub const TIMERDATA: c_int = 10005;
    pub const MAXCONNECTS: c_int = 6;
    pub const MAX_HOST_CONNECTIONS: c_int = 7;
    pub const MAX_PIPELINE_LENGTH: c_int = 8;
    pub const CONTENT_LENGTH_PENALTY_SIZE: c_int = 30009;
    pub const CHUNK_LENGTH_PENALTY_SIZE: c_int = 30010;
    pub const PIPELINING_SITE_BL: c_int = 10011;
    pub const PIPELINING_SERVER_BL: c_int = 10012;
    pub const MAX_TOTAL_CONNECTIONS: c_int = 13;
    pub const PUSHFUNCTION: c_int = 20014;
    pub const PUSHDATA: c_int = 10015;
    pub const MAX_CONCURRENT_STREAMS: c_int = 16;
}
