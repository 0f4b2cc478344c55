//! The settings of one easy handle: what `curl_easy_setopt` stores and the tool sets through
//! one surface. Plain data plus the application's callback object. Does no I/O.

use std::time::Duration;

/// Which HTTP version to ask for (`CURLOPT_HTTP_VERSION`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HttpVersionPref {
    #[default]
    Default,
    V1_0,
    V1_1,
    /// HTTP/2 over TLS when ALPN agrees, Upgrade on cleartext (`CURL_HTTP_VERSION_2_0`).
    V2,
    /// HTTP/2 over TLS only (`CURL_HTTP_VERSION_2TLS`; what the default does).
    V2Tls,
    /// HTTP/2 on cleartext without asking (`CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE`).
    V2PriorKnowledge,
}

/// How `.netrc` is used (`CURLOPT_NETRC`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NetrcMode {
    #[default]
    Ignored,
    /// Use it when the URL has no password (`--netrc-optional`).
    Optional,
    /// Use it, ignoring a password in the URL (`--netrc`, `--netrc-file`).
    Required,
}

/// The custom method (`CURLOPT_CUSTOMREQUEST`) on followed redirects: curl's
/// `CURLFOLLOW_ALL`, `CURLFOLLOW_OBEYCODE` and `CURLFOLLOW_FIRSTONLY`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FollowMode {
    /// Kept on every request, also where the response code switches to GET.
    #[default]
    All,
    /// Dropped for good once a response code switches the request to GET.
    ObeyCode,
    /// Used for the first request only.
    FirstOnly,
}

/// Address families to use (`CURLOPT_IPRESOLVE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IpResolve {
    #[default]
    Whatever,
    V4,
    V6,
}

impl IpResolve {
    /// Whether an address of `a`'s family may be used.
    pub fn allows(self, a: &std::net::SocketAddr) -> bool {
        match self {
            IpResolve::Whatever => true,
            IpResolve::V4 => a.is_ipv4(),
            IpResolve::V6 => a.is_ipv6(),
        }
    }
}

/// Kinds of debug data (`curl_infotype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InfoType {
    Text = 0,
    HeaderIn = 1,
    HeaderOut = 2,
    DataIn = 3,
    DataOut = 4,
    SslDataIn = 5,
    SslDataOut = 6,
}

/// What a read callback produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadResult {
    /// This many bytes were written into the buffer; 0 means end of data.
    Data(usize),
    /// `CURL_READFUNC_ABORT`.
    Abort,
    /// `CURL_READFUNC_PAUSE`: nothing now; sending pauses until the application lets it go
    /// (`curl_easy_pause`), then the callback is asked again.
    Pause,
}

/// What a write or header callback returns to fail the transfer with curl's `client
/// returned ERROR on write of N bytes` (`CURL_WRITEFUNC_ERROR`).
pub const WRITEFUNC_ERROR: usize = 0xFFFF_FFFF;

/// What a write or header callback returns to pause receiving (`CURL_WRITEFUNC_PAUSE`): the
/// data it was given is kept and handed to it again when the transfer is let go.
pub const WRITEFUNC_PAUSE: usize = 0x1000_0001;

/// The application's side of a transfer: curl's callbacks as one object.
///
/// Every method has curl's default behaviour, so an implementation overrides only what it
/// uses. Methods are called on the thread driving the multi, never with engine state borrowed.
pub trait Callbacks: Send {
    /// Body data (`CURLOPT_WRITEFUNCTION`). Returning fewer bytes than given fails the
    /// transfer with `CURLE_WRITE_ERROR`.
    fn write(&mut self, data: &[u8]) -> usize {
        data.len()
    }
    /// One complete response header line including its line ending (`CURLOPT_HEADERFUNCTION`).
    fn header(&mut self, line: &[u8]) -> usize {
        line.len()
    }
    /// Upload data (`CURLOPT_READFUNCTION`).
    fn read(&mut self, _buf: &mut [u8]) -> ReadResult {
        ReadResult::Data(0)
    }
    /// Rewind the upload source to the start (`CURLOPT_SEEKFUNCTION`); false if impossible.
    fn rewind(&mut self) -> bool {
        false
    }
    /// Whether verbose output goes to a debug callback of the application's
    /// (`CURLOPT_DEBUGFUNCTION`): curl writes OpenSSL's handshake trace only then.
    fn has_debug_callback(&self) -> bool {
        true
    }
    /// Verbose and trace output (`CURLOPT_DEBUGFUNCTION`); only called when `verbose` is set.
    fn debug(&mut self, _kind: InfoType, _data: &[u8]) {}
    /// The transfer's id and its connection's (-1 before it has one) for the `debug` calls
    /// that follow: what curl's debug callback reads with `CURLINFO_XFER_ID` and
    /// `CURLINFO_CONN_ID`. Called when either changes, only when `verbose` is set.
    fn debug_ids(&mut self, _xfer_id: i64, _conn_id: i64) {}
    /// Progress (`CURLOPT_XFERINFOFUNCTION`); return false to abort the transfer.
    fn progress(&mut self, _dltotal: u64, _dlnow: u64, _ultotal: u64, _ulnow: u64) -> bool {
        true
    }
    /// A host name is about to be resolved: it is not in the DNS cache
    /// (`CURLOPT_RESOLVER_START_FUNCTION`); false fails the lookup.
    fn resolver_start(&mut self) -> bool {
        true
    }
    /// The connection is ready and a request is about to be sent on it, once per request
    /// (`CURLOPT_PREREQFUNCTION`): the peer's and the local address; false aborts the
    /// transfer with `CURLE_ABORTED_BY_CALLBACK`.
    fn prereq(
        &mut self,
        _remote: Option<std::net::SocketAddr>,
        _local: Option<std::net::SocketAddr>,
    ) -> bool {
        true
    }
    /// A wildcard download is about to take the listing's next entry
    /// (`CURLOPT_CHUNK_BGN_FUNCTION`); `remains` counts the entries left, this one included.
    fn chunk_bgn(
        &mut self,
        _entry: &crate::proto::ftp_list::FileInfo,
        _remains: usize,
    ) -> ChunkBgn {
        ChunkBgn::Ok
    }
    /// A wildcard download is done with an entry, downloaded or skipped
    /// (`CURLOPT_CHUNK_END_FUNCTION`).
    fn chunk_end(&mut self) {}
    /// The application's name matcher for wildcard downloads (`CURLOPT_FNMATCH_FUNCTION`):
    /// 0 a match, anything else not; None to use the built-in one.
    fn fnmatch(&mut self, _pattern: &[u8], _name: &[u8]) -> Option<i32> {
        None
    }
    /// The trailer lines (`Name: value`, no line ending) to send after the last chunk of a
    /// chunked upload (`CURLOPT_TRAILERFUNCTION`); None aborts the transfer.
    fn trailers(&mut self) -> Option<Vec<Vec<u8>>> {
        Some(Vec::new())
    }
    /// The next entry for the HSTS cache from the application
    /// (`CURLOPT_HSTSREADFUNCTION`), asked for until it is done before a transfer with HSTS
    /// on starts.
    fn hsts_read(&mut self) -> crate::hsts::HstsPull {
        crate::hsts::HstsPull::Done
    }
    /// `write`, `header` and `progress` with the running transfer's statistics at hand, for
    /// callbacks that may ask for them (`curl_easy_getinfo` inside a callback
    /// answers the running transfer's values). The engine calls these; the defaults forward.
    fn write_live(&mut self, data: &[u8], _info: &crate::info::Info) -> usize {
        self.write(data)
    }
    fn header_live(&mut self, line: &[u8], _info: &crate::info::Info) -> usize {
        self.header(line)
    }
    fn progress_live(&mut self, now: (u64, u64, u64, u64), _info: &crate::info::Info) -> bool {
        self.progress(now.0, now.1, now.2, now.3)
    }
    /// `debug`, `read`, `rewind` and `prereq` the same way.
    fn debug_live(&mut self, kind: InfoType, data: &[u8], _info: &crate::info::Info) {
        self.debug(kind, data)
    }
    fn read_live(&mut self, buf: &mut [u8], _info: &crate::info::Info) -> ReadResult {
        self.read(buf)
    }
    fn rewind_live(&mut self, _info: &crate::info::Info) -> bool {
        self.rewind()
    }
    fn prereq_live(
        &mut self,
        remote: Option<std::net::SocketAddr>,
        local: Option<std::net::SocketAddr>,
        _info: &crate::info::Info,
    ) -> bool {
        self.prereq(remote, local)
    }
    /// Runs `f`, engine work that may call the application's socket callbacks (which are
    /// not `Callbacks` methods), with the statistics lent the same way.
    fn lend_info(&mut self, _info: &crate::info::Info, f: &mut dyn FnMut()) {
        f()
    }
    /// The concrete callbacks, for applications that need their own type back.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

/// Callbacks that discard everything: the defaults.
#[derive(Debug, Default)]
pub struct NullCallbacks;
impl Callbacks for NullCallbacks {}

/// Where the request body comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Body {
    #[default]
    None,
    /// `CURLOPT_POSTFIELDS` / `COPYPOSTFIELDS`: sent with POST (unless a custom method).
    Fields(Vec<u8>),
    /// `CURLOPT_UPLOAD`: PUT from the read callback; size when known, else chunked.
    Upload(Option<u64>),
    /// `CURLOPT_POST` with the read callback as source.
    PostRead(Option<u64>),
    /// `CURLOPT_MIMEPOST`: a multipart form, streamed from its parts.
    Mime(crate::mime::Mime),
}

/// `CURLOPT_TIMECONDITION`: how the document's time is compared with `time_value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeCondition {
    /// `If-Modified-Since`: wanted only if newer.
    IfModSince,
    /// `If-Unmodified-Since`: wanted only if not newer.
    IfUnmodSince,
    /// Sends `Last-Modified:`; compared like `IfModSince`.
    LastMod,
}

/// Every setting of an easy handle.
#[derive(Clone, Debug)]
pub struct Options {
    pub url: Option<String>,
    /// The effective URL curl reports for `url` until a redirect, when it differs: a
    /// `CURLOPT_CURLU` handle's URL as it holds it (a path with spaces stays so while `url`
    /// has it encoded for the request).
    pub url_shown: Option<String>,
    /// `url` comes from a `CURLOPT_CURLU` handle, which curl uses as it is: spaces in it
    /// (`CURLU_ALLOW_SPACE`, or a part set as it is) are accepted, and a query with spaces
    /// goes in the request as it is.
    pub url_allow_space: bool,
    /// `CURLOPT_PORT`: the port of the first request instead of the URL's.
    pub port: Option<u16>,
    /// Scheme used when the URL has none (`CURLOPT_DEFAULT_PROTOCOL`); None guesses.
    pub default_protocol: Option<String>,
    /// The mode of files a transfer creates (`CURLOPT_NEW_FILE_PERMS`, `--create-file-mode`):
    /// file:// uploads here; the umask applies, as to curl's `open`.
    pub new_file_perms: u16,
    /// FTP: EPSV before PASV (`CURLOPT_FTP_USE_EPSV`, off with `--disable-epsv`).
    pub ftp_use_epsv: bool,
    /// FTP: connect the data connection to the control connection's peer, not to the
    /// address a PASV reply names (`CURLOPT_FTP_SKIP_PASV_IP`, on by default).
    pub ftp_skip_pasv_ip: bool,
    /// FTP: ASCII transfers (`CURLOPT_TRANSFERTEXT`, `-B`).
    pub use_ascii: bool,
    /// `CURLOPT_FILETIME`: ask for the remote file's time (FTP's MDTM; `-R`, `-I`).
    pub filetime: bool,
    /// The rest of the FTP settings; None while all are at their defaults (an idle handle
    /// pays for none of them).
    pub ftp: Option<Box<FtpOptions>>,
    /// `CURLOPT_USE_SSL`: TLS for a protocol that starts in the clear (FTP's AUTH).
    pub use_ssl: UseSsl,
    pub path_as_is: bool,
    pub custom_request: Option<String>,
    pub request_target: Option<String>,
    pub nobody: bool,
    /// `CURLOPT_HTTPGET`-style reset happens by setting `body` to None.
    pub body: Body,
    pub http_version: HttpVersionPref,
    pub http09_allowed: bool,
    pub headers: Vec<String>,
    pub useragent: Option<String>,
    pub referer: Option<String>,
    pub autoreferer: bool,
    pub userpwd: Option<(String, String)>,
    /// `CURLOPT_XOAUTH2_BEARER` (sent as `Authorization: Bearer` when `httpauth` allows it).
    pub bearer: Option<String>,
    /// `CURLOPT_AWS_SIGV4`: `provider1[:provider2[:region[:service]]]`.
    pub aws_sigv4: Option<String>,
    /// The mail protocols' settings; None while all are at their defaults.
    pub mail: Option<Box<MailOptions>>,
    /// `CURLOPT_PROXYAUTH`: the `crate::auth` scheme bits allowed for the HTTP proxy.
    pub proxyauth: u32,
    /// `CURLOPT_HTTPAUTH`: the `crate::auth` scheme bits the user allows.
    pub httpauth: u32,
    /// `CURLOPT_NETRC`.
    pub netrc: NetrcMode,
    /// `CURLOPT_NETRC_FILE`; None is `$HOME/.netrc`.
    pub netrc_file: Option<String>,
    pub range: Option<String>,
    pub resume_from: u64,
    /// `CURLOPT_RESUME_FROM_LARGE` of -1: resume an upload without knowing how much the
    /// server has; curl then sends all of it with a `Content-Range` covering all of it.
    pub resume_from_unknown: bool,
    pub follow_location: bool,
    /// What following a redirect does with `custom_request` (`CURLOPT_FOLLOWLOCATION`'s
    /// value).
    pub follow_mode: FollowMode,
    /// -1: unlimited.
    pub max_redirs: i64,
    pub post301: bool,
    pub post302: bool,
    pub post303: bool,
    pub unrestricted_auth: bool,
    /// `CURLOPT_ACCEPT_ENCODING`: None = no decoding and no header; Some("") = all built in.
    pub accept_encoding: Option<String>,
    pub http_content_decoding: bool,
    pub http_transfer_decoding: bool,
    pub include_header: bool,
    /// The tool's `-i`: headers go to the output only for transfers HTTP serves (and FILE),
    /// as curl's tool shows them (`tool_cb_hdr.c`): an FTP transfer's CONNECT reply is not
    /// shown. libcurl's `CURLOPT_HEADER` leaves this off and writes them for any.
    pub include_header_http_only: bool,
    pub fail_on_error: bool,
    pub keep_sending_on_error: bool,
    pub cookie: Option<String>,
    pub timeout: Option<Duration>,
    pub connect_timeout: Option<Duration>,
    pub expect_100_timeout: Duration,
    pub happy_eyeballs_timeout: Duration,
    pub dns_cache_timeout: Option<Duration>,
    pub low_speed_limit: u64,
    pub low_speed_time: Option<Duration>,
    /// `CURLOPT_MAX_RECV_SPEED_LARGE`: bytes per second, 0 for no limit.
    pub max_recv_speed: u64,
    /// `CURLOPT_MAX_SEND_SPEED_LARGE`: bytes per second, 0 for no limit.
    pub max_send_speed: u64,
    pub max_filesize: Option<u64>,
    pub resolve: Vec<String>,
    pub connect_to: Vec<String>,
    pub ip_resolve: IpResolve,
    pub unix_socket_path: Option<String>,
    pub abstract_unix_socket: bool,
    pub local_port: u16,
    pub local_port_range: u16,
    pub interface: Option<String>,
    pub tcp_nodelay: bool,
    pub tcp_keepalive: bool,
    pub tcp_keepidle: u32,
    pub tcp_keepintvl: u32,
    /// `CURLOPT_TCP_KEEPCNT`: unanswered probes before the connection is dropped.
    pub tcp_keepcnt: u32,
    /// `CURLOPT_IGNORE_CONTENT_LENGTH`: read the body until the connection closes.
    pub ignore_content_length: bool,
    /// `CURLOPT_DISALLOW_USERNAME_IN_URL`: a URL with credentials fails with 67.
    pub disallow_username_in_url: bool,
    /// The IP Type of Service (IPv6: traffic class) set on every socket (the tool's
    /// `--ip-tos`; libcurl programs do it in a sockopt callback).
    /// `--ip-tos`: at most 255, so a byte (an idle handle stays small).
    pub ip_tos: Option<u8>,
    pub buffer_size: usize,
    pub upload_buffer_size: usize,
    pub fresh_connect: bool,
    /// Wait for a connection being set up to show whether it multiplexes rather than open
    /// another (`CURLOPT_PIPEWAIT`).
    pub pipewait: bool,
    /// `CURLOPT_STREAM_WEIGHT` (1 to 256, curl's default 16): kept as set; HTTP/2 requests
    /// go without priority information (the `h2` crate sends none), as nghttp2 since RFC
    /// 9113 deprecated the scheme mostly does.
    pub stream_weight: u16,
    pub forbid_reuse: bool,
    pub verbose: bool,
    /// `CURLOPT_CERTINFO`: keep the server's certificate chain as text in `Info`.
    pub certinfo: bool,
    pub no_progress: bool,
    /// Allowed protocols for redirects (`CURLOPT_REDIR_PROTOCOLS_STR`); None = curl's default.
    pub redir_protocols: Option<Vec<String>>,
    /// Allowed protocols for any transfer (`CURLOPT_PROTOCOLS_STR`, lowercase names);
    /// None = all. A scheme left out fails with `Protocol "x" disabled`.
    pub allowed_protocols: Option<Vec<String>>,
    /// `CURLOPT_TIMECONDITION` with `CURLOPT_TIMEVALUE_LARGE` (seconds since the epoch).
    pub time_condition: Option<(TimeCondition, i64)>,
    /// TLS settings for https.
    pub tls: crate::tls::TlsOptions,
    /// TLS settings for an HTTPS proxy (`CURLOPT_PROXY_SSL_VERIFYPEER`, `PROXY_CAINFO`...),
    /// separate from the origin's.
    pub proxy_tls: crate::tls::TlsOptions,
    /// `CURLOPT_HSTS`: the HSTS cache file; HSTS is on when set.
    pub hsts_file: Option<String>,
    /// `CURLOPT_CRLF`: LF becomes CRLF in the request body, which then goes chunked (its
    /// length is no longer known).
    pub crlf: bool,
    /// `CURLOPT_TRANSFER_ENCODING`: ask for a compressed transfer encoding (`TE: gzip`) and
    /// decode the transfer codings of the reply.
    pub transfer_encoding: bool,
    /// `CURLOPT_HAPROXYPROTOCOL`: send a PROXY protocol v1 line on new connections.
    pub haproxy_protocol: bool,
    /// `CURLOPT_HAPROXY_CLIENT_IP`: the source address the PROXY line claims (it turns the
    /// PROXY line on too).
    pub haproxy_client_ip: Option<String>,
    /// `CURLOPT_ALTSVC`: the alt-svc cache file; alt-svc is on when set.
    pub altsvc_file: Option<String>,
    /// `CURLOPT_ALTSVC_CTRL`: which alternatives may be used ([`crate::altsvc::Alpn`] bits;
    /// curl's default is h1 and h2).
    pub altsvc_ctrl: u32,
    /// `CURLOPT_COOKIEFILE`: cookie files to read (`-` is stdin); any entry, even an empty
    /// name, turns the cookie engine on.
    pub cookie_files: Vec<String>,
    /// `CURLOPT_COOKIEJAR`: where the cookies are written at the end (`-` is stdout).
    pub cookie_jar: Option<String>,
    /// The share the caches come from (`CURLOPT_SHARE`).
    pub share: Option<crate::share::Attached>,
    /// `CURLOPT_COOKIESESSION`: ignore session cookies when reading files.
    pub cookie_session: bool,
    /// `CURLOPT_PROXY`: None takes the environment's `*_proxy`; empty means no proxy.
    pub proxy: Option<String>,
    /// `CURLOPT_PROXYTYPE` for proxy strings without a scheme.
    pub proxy_type: crate::proxy::ProxyKind,
    /// `CURLOPT_PROXYPORT`: the port of a proxy string that names none.
    pub proxy_port: Option<u16>,
    /// `CURLOPT_PROXYUSERPWD`.
    pub proxy_userpwd: Option<(String, String)>,
    /// `CURLOPT_PRE_PROXY`: a SOCKS proxy in front of the HTTP proxy.
    pub pre_proxy: Option<String>,
    /// `CURLOPT_NOPROXY`: None takes the environment's `no_proxy`.
    pub noproxy: Option<String>,
    /// `CURLOPT_PROXYHEADER` (`CURLHEADER_SEPARATE`, curl's default).
    pub proxy_headers: Vec<String>,
    /// `CURLOPT_HEADEROPT` is `CURLHEADER_UNIFIED`: `proxy_headers` are the request's own
    /// headers, sent in CONNECT; requests to a proxy do not repeat them.
    pub proxy_headers_unified: bool,
    /// `CURLOPT_HTTPPROXYTUNNEL`: CONNECT for plain HTTP too.
    pub http_proxy_tunnel: bool,
    /// `CURLOPT_SUPPRESS_CONNECT_HEADERS`.
    pub suppress_connect_headers: bool,
    /// `CURLOPT_SOCKS5_AUTH` includes GSS-API (curl's default): offer it in the greeting.
    pub socks5_gssapi: bool,
    /// The pause state the application changes with `curl_easy_pause` (None: a transfer
    /// only pauses itself when a callback asks).
    pub pause: Option<crate::pause::Pause>,
    /// `CURLOPT_CONNECT_ONLY`: connect (through proxies and TLS), send no request, and hand
    /// the connection to the application ([`crate::Easy::take_connection`]).
    pub connect_only: bool,
    /// `CURLOPT_HTTP200ALIASES`: first lines of a response taken as `HTTP/1.0 200`.
    pub http200_aliases: Vec<String>,
    /// `CURLOPT_MAXCONNECTS`: most idle connections `Easy::perform` keeps (None: the
    /// engine's default).
    pub max_connects: Option<usize>,
    /// `CURLOPT_MAXAGE_CONN`: an idle connection older than this is not reused.
    pub maxage_conn: Option<Duration>,
    /// `CURLOPT_MAXLIFETIME_CONN`: a connection made longer ago than this is not reused.
    pub maxlifetime_conn: Option<Duration>,
    /// The application's say in making and closing sockets (`CURLOPT_OPENSOCKETFUNCTION`,
    /// `SOCKOPTFUNCTION`, `CLOSESOCKETFUNCTION`).
    pub socket_hooks: crate::connect::Hooks,
}

/// FTP settings beyond the common ones (curl's `CURLOPT_QUOTE`, `CURLOPT_FTP_*` family).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FtpOptions {
    /// `CURLOPT_QUOTE`: commands before the transfer's CWDs (`-Q CMD`); a leading `*` lets
    /// a command fail.
    pub quote: Vec<Vec<u8>>,
    /// `CURLOPT_PREQUOTE`: after TYPE, just before RETR or STOR (`-Q +CMD`).
    pub prequote: Vec<Vec<u8>>,
    /// `CURLOPT_POSTQUOTE`: after the transfer (`-Q -CMD`).
    pub postquote: Vec<Vec<u8>>,
    /// `CURLOPT_FTP_FILEMETHOD` (`--ftp-method`).
    pub method: crate::proto::ftp::FileMethod,
    /// `CURLOPT_FTP_CREATE_MISSING_DIRS`: 0 none, 1 MKD a directory CWD refused, 2 also
    /// CWD again when that MKD failed (`--ftp-create-dirs` is 2).
    pub create_dirs: u8,
    /// `CURLOPT_DIRLISTONLY` (`-l`): NLST for listings.
    pub list_only: bool,
    /// `CURLOPT_APPEND` (`-a`): APPE instead of STOR.
    pub append: bool,
    /// `CURLOPT_FTP_ACCOUNT` (`--ftp-account`): sent with ACCT when the server asks (332).
    pub account: Option<String>,
    /// `CURLOPT_FTP_ALTERNATIVE_TO_USER`: sent instead when USER and PASS fail.
    pub alternative_to_user: Option<String>,
    /// `CURLOPT_FTPPORT` (`-P`): active mode, listening where this says (`-` for the
    /// control connection's address).
    pub port: Option<String>,
    /// `CURLOPT_FTP_USE_EPRT` off (`--disable-eprt`): PORT without trying EPRT.
    pub disable_eprt: bool,
    /// `CURLOPT_ACCEPTTIMEOUT_MS`: how long active mode waits for the server to connect
    /// (None: curl's 60 seconds).
    pub accept_timeout: Option<Duration>,
    /// `CURLOPT_SERVER_RESPONSE_TIMEOUT(_MS)`: how long a reply may take (None: curl's 120
    /// seconds, 60 for the reply after the data).
    pub response_timeout: Option<Duration>,
    /// `CURLOPT_PROXY_TRANSFER_MODE`: an ftp:// URL sent to an HTTP proxy gets `;type=a`
    /// or `;type=i` when it has no type.
    pub proxy_transfer_mode: bool,
    /// `CURLOPT_FTP_USE_PRET` (`--ftp-pret`): PRET before PASV or EPSV.
    pub use_pret: bool,
    /// `CURLOPT_FTPSSLAUTH`: which AUTH goes first.
    pub ssl_auth: FtpAuth,
    /// `CURLOPT_FTP_SSL_CCC` (`--ftp-ssl-ccc`): TLS on the control connection ends after
    /// the login.
    pub ssl_ccc: FtpCcc,
    /// `CURLOPT_WILDCARDMATCH`: the URL's last path part is a pattern for the files of its
    /// directory to download.
    pub wildcard: bool,
}

/// What `CURLOPT_CHUNK_BGN_FUNCTION` says of an entry (`CURL_CHUNK_BGN_FUNC_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkBgn {
    Ok,
    /// The wildcard download fails with `CURLE_CHUNK_FAILED`.
    Fail,
    /// The entry is not downloaded.
    Skip,
}

/// `CURLOPT_USE_SSL` values (`CURLUSESSL_*`), in curl's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum UseSsl {
    /// Never asks for TLS (`CURLUSESSL_NONE`).
    #[default]
    None,
    /// Tries, goes on in the clear when refused (`--ssl`).
    Try,
    /// TLS for the control connection only, or fail (`--ftp-ssl-control`).
    Control,
    /// TLS for every connection, or fail (`--ssl-reqd`).
    All,
}

/// `CURLOPT_FTPSSLAUTH` values (`CURLFTPAUTH_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FtpAuth {
    /// AUTH SSL, then AUTH TLS.
    #[default]
    Default,
    Ssl,
    /// AUTH TLS, then AUTH SSL.
    Tls,
}

/// `CURLOPT_FTP_SSL_CCC` values (`CURLFTPSSL_CCC_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FtpCcc {
    /// No CCC.
    #[default]
    None,
    /// CCC, then the server's close_notify is waited for, none sent.
    Passive,
    /// CCC, then a close_notify goes out first.
    Active,
}

/// The mail protocols' settings (`CURLOPT_SASL_AUTHZID`, `CURLOPT_SASL_IR`,
/// `CURLOPT_LOGIN_OPTIONS`): kept as curl keeps them whatever protocols it has.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MailOptions {
    pub sasl_authzid: Option<String>,
    pub sasl_ir: bool,
    pub login_options: Option<String>,
}

/// The FTP settings of a handle that set none.
pub static FTP_DEFAULTS: FtpOptions = FtpOptions {
    quote: Vec::new(),
    prequote: Vec::new(),
    postquote: Vec::new(),
    method: crate::proto::ftp::FileMethod::MultiCwd,
    create_dirs: 0,
    list_only: false,
    append: false,
    account: None,
    alternative_to_user: None,
    port: None,
    disable_eprt: false,
    accept_timeout: None,
    response_timeout: None,
    proxy_transfer_mode: false,
    use_pret: false,
    ssl_auth: FtpAuth::Default,
    ssl_ccc: FtpCcc::None,
    wildcard: false,
};

/// Library default receive buffer (`CURL_MAX_WRITE_SIZE`).
pub const DEFAULT_BUFFER_SIZE: usize = 16 * 1024;
pub const MIN_BUFFER_SIZE: usize = 1024;
pub const MAX_BUFFER_SIZE: usize = 10 * 1024 * 1024;

impl Options {
    /// The FTP settings.
    pub fn ftp(&self) -> &FtpOptions {
        self.ftp.as_deref().unwrap_or(&FTP_DEFAULTS)
    }

    /// The FTP settings, to change.
    pub fn ftp_mut(&mut self) -> &mut FtpOptions {
        self.ftp.get_or_insert_with(Box::default)
    }

    /// The mail settings, to change.
    pub fn mail_mut(&mut self) -> &mut MailOptions {
        self.mail.get_or_insert_with(Box::default)
    }

    /// The view of these options the socket code reads.
    pub fn socket(&self) -> crate::connect::SocketOptions<'_> {
        crate::connect::SocketOptions {
            happy_eyeballs_timeout: self.happy_eyeballs_timeout,
            local_port: self.local_port,
            local_port_range: self.local_port_range,
            interface: self.interface.as_deref(),
            tcp_nodelay: self.tcp_nodelay,
            tcp_keepalive: self.tcp_keepalive,
            tcp_keepidle: self.tcp_keepidle,
            tcp_keepintvl: self.tcp_keepintvl,
            tcp_keepcnt: self.tcp_keepcnt,
            ip_tos: self.ip_tos,
            socket_hooks: &self.socket_hooks,
        }
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            url: None,
            url_shown: None,
            url_allow_space: false,
            port: None,
            default_protocol: None,
            new_file_perms: 0o644,
            ftp_use_epsv: true,
            ftp_skip_pasv_ip: true,
            use_ascii: false,
            filetime: false,
            ftp: None,
            use_ssl: UseSsl::None,
            path_as_is: false,
            custom_request: None,
            request_target: None,
            nobody: false,
            body: Body::None,
            http_version: HttpVersionPref::Default,
            http09_allowed: false,
            headers: Vec::new(),
            useragent: None,
            referer: None,
            autoreferer: false,
            userpwd: None,
            bearer: None,
            aws_sigv4: None,
            mail: None,
            httpauth: crate::auth::BASIC,
            proxyauth: crate::auth::BASIC,
            netrc: NetrcMode::Ignored,
            netrc_file: None,
            range: None,
            resume_from: 0,
            resume_from_unknown: false,
            follow_location: false,
            follow_mode: FollowMode::All,
            max_redirs: 30,
            post301: false,
            post302: false,
            post303: false,
            unrestricted_auth: false,
            accept_encoding: None,
            http_content_decoding: true,
            http_transfer_decoding: true,
            include_header: false,
            include_header_http_only: false,
            fail_on_error: false,
            keep_sending_on_error: false,
            cookie: None,
            timeout: None,
            connect_timeout: None,
            expect_100_timeout: Duration::from_millis(1000),
            happy_eyeballs_timeout: Duration::from_millis(200),
            dns_cache_timeout: Some(Duration::from_secs(60)),
            low_speed_limit: 0,
            low_speed_time: None,
            max_recv_speed: 0,
            max_send_speed: 0,
            max_filesize: None,
            resolve: Vec::new(),
            connect_to: Vec::new(),
            ip_resolve: IpResolve::Whatever,
            unix_socket_path: None,
            abstract_unix_socket: false,
            local_port: 0,
            local_port_range: 1,
            interface: None,
            tcp_nodelay: true,
            tcp_keepalive: false,
            tcp_keepidle: 60,
            tcp_keepintvl: 60,
            tcp_keepcnt: 9,
            ignore_content_length: false,
            disallow_username_in_url: false,
            ip_tos: None,
            buffer_size: DEFAULT_BUFFER_SIZE,
            upload_buffer_size: 64 * 1024,
            fresh_connect: false,
            pipewait: false,
            stream_weight: 16,
            forbid_reuse: false,
            verbose: false,
            certinfo: false,
            no_progress: true,
            redir_protocols: None,
            allowed_protocols: None,
            time_condition: None,
            tls: crate::tls::TlsOptions::default(),
            proxy_tls: crate::tls::TlsOptions::default(),
            hsts_file: None,
            altsvc_file: None,
            haproxy_protocol: false,
            transfer_encoding: false,
            crlf: false,
            haproxy_client_ip: None,
            altsvc_ctrl: crate::altsvc::Alpn::H1 as u32 | crate::altsvc::Alpn::H2 as u32,
            cookie_files: Vec::new(),
            cookie_jar: None,
            share: None,
            cookie_session: false,
            proxy: None,
            proxy_type: crate::proxy::ProxyKind::Http,
            proxy_port: None,
            proxy_userpwd: None,
            pre_proxy: None,
            noproxy: None,
            proxy_headers: Vec::new(),
            proxy_headers_unified: false,
            http_proxy_tunnel: false,
            suppress_connect_headers: false,
            socks5_gssapi: true,
            pause: None,
            connect_only: false,
            socket_hooks: None,
            http200_aliases: Vec::new(),
            max_connects: None,
            maxage_conn: Some(Duration::from_secs(118)),
            maxlifetime_conn: None,
        }
    }
}
