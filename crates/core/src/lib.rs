//! The oxcurl engine: the Multi as executor, transfers, connections and protocols.
//!
//! No unsafe, no async runtime, no threads but the DNS workers. Callbacks run on the thread
//! that drives the multi. The tool and the C ABI reach it through `Options` and `Callbacks`.
#![forbid(unsafe_code)]

pub mod altsvc;
pub mod auth;
pub mod codec;
pub mod conn;
pub mod connect;
pub mod content_encoding;
pub mod cookie;
pub mod dns;
pub mod easy;
pub mod error;
mod gather;
pub mod getline;
pub mod hsts;
pub mod info;
pub mod mime;
pub mod multi;
pub mod multi_ev;
pub mod options;
pub mod parsedate;
pub mod pause;
pub mod proxy;
pub mod ratelimit;
pub mod share;
pub mod speedcheck;
pub mod proto {
    //! Protocol code, sans-IO where hot or byte-subtle.
    pub mod connect;
    pub mod file;
    pub mod fnmatch;
    pub mod ftp;
    pub mod ftp_list;
    pub mod h1;
    pub mod h2;
    pub mod pingpong;
    pub mod socks;
}
pub mod timer;
pub mod tls;
mod transfer;

/// Standard base64 with padding, as curl encodes credentials and values.
pub use codec::base64;
pub use easy::Easy;
pub use error::{Code, Error};
pub use info::Info;
pub use multi::{Message, Multi, MultiWaker, TransferId};
pub use multi_ev::{SocketChange, SocketWhat};
pub use options::{Body, Callbacks, InfoType, Options, ReadResult};

/// The version string the engine reports as libcurl's.
pub const LIBCURL_VERSION: &str = "8.14.1";
/// oxcurl's own version.
pub const OXCURL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The scheme table: every scheme curl knows and the handler serving it here.
pub use oxcurl_urlapi::scheme;

/// What `curl_version()` returns: `libcurl/8.14.1 rustls/0.23 (OpenSSL/3.0.19) oxcurl/0.1.0`,
/// the TLS backend in use first. `-V` and `%{json}`'s `curl_version` print the same text.
/// The features this build has, as `curl -V` names them, in curl's order (sorted without
/// case).
pub fn features() -> Vec<&'static str> {
    let mut f = vec!["alt-svc", "AsynchDNS"];
    if cfg!(feature = "brotli") {
        f.push("brotli");
    }
    // IDN: host names are converted with the idna crate (UTS 46), as curl with libidn2.
    f.extend([
        "HSTS",
        "HTTP2",
        "HTTPS-proxy",
        "IDN",
        "IPv6",
        "Largefile",
        "libz",
    ]);
    if cfg!(feature = "openssl") {
        f.push("MultiSSL");
    }
    f.push("NTLM");
    if cfg!(feature = "psl") {
        f.push("PSL");
    }
    f.extend(["SSL", "threadsafe", "UnixSockets"]);
    if cfg!(feature = "zstd") {
        f.push("zstd");
    }
    f
}

/// `curl -V`'s Features line for what this build has.
pub fn features_line() -> String {
    features().join(" ")
}

pub fn version_line() -> String {
    format!(
        "libcurl/{LIBCURL_VERSION} {} oxcurl/{OXCURL_VERSION}",
        tls::version_string()
    )
}
