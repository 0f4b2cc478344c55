//! What a finished (or running) transfer reports: the data behind `curl_easy_getinfo` and the
//! tool's `-w` variables. Plain data; filled in by the engine, read by callers.

use std::net::SocketAddr;
use std::time::Duration;

/// HTTP version as curl reports it in `%{http_version}` ("1.1", "2", ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HttpVersion {
    /// No response yet (reported as "0").
    #[default]
    None,
    V0_9,
    V1_0,
    V1_1,
    V2,
    V3,
}

impl HttpVersion {
    /// The text `%{http_version}` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            HttpVersion::None => "0",
            HttpVersion::V0_9 => "0",
            HttpVersion::V1_0 => "1",
            HttpVersion::V1_1 => "1.1",
            HttpVersion::V2 => "2",
            HttpVersion::V3 => "3",
        }
    }
}

/// One response header as received (name and value with surrounding whitespace trimmed),
/// in arrival order. `origin_request` counts responses within a transfer (0 = first; each
/// followed redirect or 1xx adds one), as curl's header API does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The name followed by the value: one allocation per header.
    text: String,
    name_len: usize,
    pub request: usize,
}

impl Header {
    pub fn new(name: &str, value: &str, request: usize) -> Header {
        let mut text = String::with_capacity(name.len() + value.len());
        text.push_str(name);
        text.push_str(value);
        Header {
            text,
            name_len: name.len(),
            request,
        }
    }

    pub fn name(&self) -> &str {
        &self.text[..self.name_len]
    }

    pub fn value(&self) -> &str {
        &self.text[self.name_len..]
    }

    /// Continue the value (an obs-folded line).
    pub fn push_value(&mut self, more: &str) {
        self.text.push_str(more);
    }
}

/// Transfer statistics, as `curl_easy_getinfo` reports them.
#[derive(Clone, Debug, Default)]
pub struct Info {
    /// Last used URL (after redirects).
    pub effective_url: String,
    /// The method of the last request sent ("GET", "POST", ...).
    pub effective_method: String,
    pub response_code: u32,
    /// Response code of a proxy CONNECT (0 when none).
    pub http_connectcode: u32,
    pub http_version: HttpVersion,
    /// Scheme of the last used URL, lower case ("http").
    pub scheme: String,
    pub content_type: Option<String>,
    /// Location of a 3xx response not followed.
    pub redirect_url: Option<String>,
    pub referer: Option<String>,
    pub primary_ip: Option<SocketAddr>,
    pub local_addr: Option<SocketAddr>,
    /// The Unix socket a connection went to (`--unix-socket`, a SOCKS proxy's path): curl
    /// gives it as the remote address, with both ports 0.
    pub unix_peer: Option<String>,
    pub num_connects: u32,
    pub redirect_count: u32,
    pub size_download: u64,
    pub size_upload: u64,
    pub header_size: u64,
    pub request_size: u64,
    /// Content-Length of the download, when known.
    pub content_length_download: Option<u64>,
    pub content_length_upload: Option<u64>,
    pub time_queue: Duration,
    pub time_namelookup: Duration,
    pub time_connect: Duration,
    pub time_appconnect: Duration,
    pub time_pretransfer: Duration,
    pub time_posttransfer: Duration,
    pub time_starttransfer: Duration,
    pub time_redirect: Duration,
    pub time_total: Duration,
    pub ssl_verify_result: i64,
    pub proxy_ssl_verify_result: i64,
    /// `CURLINFO_EARLYDATA_SENT_T`: the bytes sent as TLS early data that the server
    /// accepted, or minus those it rejected.
    pub earlydata_sent: i64,
    pub used_proxy: bool,
    /// `CURLINFO_PROXY_ERROR`: curl's `CURLproxycode` of a failed SOCKS handshake
    /// ([`crate::proto::socks::ProxyCode`]), 0 when none failed.
    pub proxy_error: u32,
    /// `CURLAUTH_*` bits of the schemes the server (`CURLINFO_HTTPAUTH_AVAIL`) and the proxy
    /// (`CURLINFO_PROXYAUTH_AVAIL`) offered.
    pub httpauth_avail: u32,
    pub proxyauth_avail: u32,
    /// `CURLAUTH_*` bit of the scheme picked for the server (`CURLINFO_HTTPAUTH_USED`) and
    /// the proxy (`CURLINFO_PROXYAUTH_USED`), 0 when none.
    pub httpauth_used: u32,
    pub proxyauth_used: u32,
    /// Transfer and connection ids (curl's `%{xfer_id}` and `%{conn_id}`).
    pub xfer_id: i64,
    pub conn_id: i64,
    /// The socket of the connection the transfer left open (kept for reuse, or handed to
    /// the application by `CURLOPT_CONNECT_ONLY`): curl's `CURLINFO_LASTSOCKET`.
    pub last_socket: Option<i32>,
    /// Headers of all responses of the transfer; `%{header_json}` uses the last request's.
    pub headers: Vec<Header>,
    /// `CURLINFO_CERTINFO`: with `CURLOPT_CERTINFO`, the server's certificates of the
    /// last TLS handshake, each as `Label:value` entries (curl's OpenSSL layout).
    pub certinfo: Vec<Vec<String>>,
    /// The modification time of a file:// document (curl sets `CURLINFO_FILETIME` for
    /// file:// whether or not `CURLOPT_FILETIME` asks).
    pub filetime: Option<i64>,
    /// A time condition left a file:// document out (`CURLINFO_CONDITION_UNMET`; an HTTP
    /// transfer says so with its 304).
    pub condition_unmet: bool,
    /// `CURLINFO_FTP_ENTRY_PATH`: the directory an FTP server put the login in.
    pub ftp_entry_path: Option<String>,
}

impl Info {
    /// Average download speed in bytes per second, as curl computes it.
    pub fn speed_download(&self) -> u64 {
        speed(self.size_download, self.time_total)
    }
    /// Average upload speed in bytes per second.
    pub fn speed_upload(&self) -> u64 {
        speed(self.size_upload, self.time_total)
    }
    /// Headers of the last response only, in order.
    pub fn last_headers(&self) -> impl Iterator<Item = &Header> {
        let last = self.headers.last().map(|h| h.request).unwrap_or(0);
        self.headers.iter().filter(move |h| h.request == last)
    }
}

fn speed(bytes: u64, t: Duration) -> u64 {
    let us = t.as_micros();
    (bytes as u128 * 1_000_000)
        .checked_div(us)
        .map_or(bytes, |v| v as u64)
}
