//! One transfer's state machine: curl's multi states (init, pending, resolving, connecting,
//! protocol connect, do, perform, done). What protocol connect, do and perform mean is the
//! transfer's protocol handler's (`handler.rs`). The multi drives it: `drive` advances as far
//! as the sockets allow without blocking, then the multi asks `interests` what to wait for.

use std::fmt::Write as _;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::BorrowedFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oxcurl_urlapi::{Flags, GetFlags, Part, Url};

use crate::auth::{self, netrc, HostAuth};
use crate::codec;
use crate::conn::{BufPool, Conn, Pool, SharedConn};
use crate::connect::{self, ConnectPoll, HappyEyeballs, Stream};
use crate::content_encoding::Decoder;
use crate::dns::{self, Resolver};
use crate::error::{Code, Error, Result};
use crate::info::{Header, HttpVersion, Info};
use crate::options::{
    Body, Callbacks, FollowMode, HttpVersionPref, InfoType, IpResolve, NetrcMode, Options,
    ReadResult, TimeCondition, WRITEFUNC_ERROR, WRITEFUNC_PAUSE,
};
use crate::pause::{self, Pause};
use crate::proto::h1::chunked::{ChunkEvent, ChunkedDecoder};
use crate::proto::h1::head::{self, LineBuf, Tri, Version};
use crate::proto::h1::request::{self, BodyFraming, RequestParts};
use crate::proto::socks::ProxyCode;
use crate::ratelimit::RateLimit;
use crate::speedcheck::SpeedCheck;
use crate::timer::{TimerId, Timers};

mod connecting;
mod cookie;
mod file;
mod follow;
mod ftp;
mod h2proxy;
mod handler;
mod http;
mod http2;
mod http_proxy;
mod http_recv;
mod http_send;
mod socks;
mod url;
mod vtls;

/// curl's `Curl_cpool_check_limits`: when a new connection to `host:port` would exceed a
/// limit, close the oldest idle connection that counts against it; when there is none, the
/// note curl prints for the limit that holds the transfer back.
fn room_for_connection(
    l: &ConnLimits,
    pool: &mut crate::conn::Pool,
    host: &str,
    port: u16,
    dest: &str,
) -> Option<&'static str> {
    if l.max_host > 0 {
        loop {
            let n = l.in_use.iter().filter(|d| *d == dest).count() + pool.count_dest(host, port);
            if n < l.max_host {
                break;
            }
            match pool.take_oldest(|c| c.host == host && c.port == port) {
                Some(mut c) => c.close(),
                None => return Some("No more connections allowed to host"),
            }
        }
    }
    if l.max_total > 0 {
        loop {
            if l.in_use.len() + pool.len() < l.max_total {
                break;
            }
            match pool.take_oldest(|_| true) {
                Some(mut c) => c.close(),
                None => return Some("No connections available in cache"),
            }
        }
    }
    None
}

/// curl's limit on a response head (`MAX_HTTP_RESP_HEADER_SIZE`).
/// Most response header lines one transfer keeps (curl: `MAX_HTTP_RESP_HEADER_COUNT`).
const MAX_RESP_HEADERS: usize = 5000;
/// Bodies larger than this get `Expect: 100-continue` (curl's `EXPECT_100_THRESHOLD`).
const EXPECT_100_THRESHOLD: u64 = 1024 * 1024;

/// What the engine lends a transfer while it runs.
pub(crate) struct Cx<'a> {
    pub now: Instant,
    pub poller: &'a oxcurl_sys::Poller,
    pub resolver: &'a mut Resolver,
    pub pool: &'a mut Pool,
    pub bufs: &'a mut BufPool,
    pub next_conn_id: &'a mut i64,
    pub tls: &'a mut crate::tls::TlsCache,
    pub hsts: &'a mut crate::hsts::Hsts,
    pub altsvc: &'a mut crate::altsvc::AltSvc,
    pub cookies: &'a mut crate::cookie::CookieStore,
    /// The multi's connection limits and the connections its other transfers hold.
    pub limits: Option<&'a ConnLimits>,
    /// Wakeups to coalesce for a download outrunning its sender.
    pub gather: &'a mut crate::gather::Gather,
}

/// `CURLMOPT_MAX_TOTAL_CONNECTIONS` and `CURLMOPT_MAX_HOST_CONNECTIONS` (0: no limit), with
/// the destinations (`host:port` connected to) of the connections other transfers hold.
#[derive(Debug, Default)]
pub(crate) struct ConnLimits {
    pub max_total: usize,
    pub max_host: usize,
    pub in_use: Vec<String>,
}

/// A socket a transfer waits on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Interest<'a> {
    pub fd: BorrowedFd<'a>,
    /// The socket's identity (`connect::next_sock_id`).
    pub id: u64,
    pub read: bool,
    pub write: bool,
    /// Other transfers may wait on the same socket (a multiplexed connection).
    pub shared: bool,
}

// Connecting holds the Happy Eyeballs state inline: boxing it would allocate on every
// connect, and a transfer has one State.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
/// curl's multi states (`MSTATE_*`). What a state means for one protocol is its handler's
/// (`handler.rs`); the connection's set-up above the socket is `Filter`.
enum State {
    /// `MSTATE_INIT` and `MSTATE_SETUP`: the URL is read and the handler picked.
    Init,
    Resolving {
        job: u64,
        host: String,
        port: u16,
    },
    /// The socket connecting (Happy Eyeballs).
    Connecting {
        he: HappyEyeballs,
        host: String,
        port: u16,
    },
    /// The connection's filters above the socket connecting (still `MSTATE_CONNECTING`).
    Filter(FilterStep),
    /// Waiting for a connection being set up to show whether it multiplexes
    /// (`CURLOPT_PIPEWAIT`); then the lookup runs again.
    PipeWait(Box<Target>),
    /// Waiting for the multi's connection limits (`CURLMOPT_MAX_HOST_CONNECTIONS`,
    /// `CURLMOPT_MAX_TOTAL_CONNECTIONS`) to allow a new connection: curl's PENDING.
    Pending,
    /// `MSTATE_PROTOCONNECT`: the handler's login or greeting on a ready connection.
    ProtoConnect,
    /// `MSTATE_DO`: the handler starts the request.
    Do,
    /// `MSTATE_PERFORMING`: the handler moves data.
    Perform,
    Done,
}

/// One filter of the connection connecting, each a mechanism of curl's filter chain.
#[derive(Debug, Clone, Copy)]
enum FilterStep {
    /// TLS handshake (`cf-ssl`) on a connected socket; which readiness it waits for, and
    /// whether it is the handshake with an HTTPS proxy (else with the origin).
    Tls { want_write: bool, proxy: bool },
    /// CONNECT handshake with an HTTP proxy (`cf-h1-proxy`, `cf-h2-proxy`).
    Tunnel,
    /// Dropping the body of a 407 reply to CONNECT before asking again.
    TunnelSkip,
    /// Resolving the origin for a socks4/socks5 handshake (proxy already connected).
    SocksResolving { job: u64 },
    /// SOCKS handshake (`cf-socks-proxy`).
    Socks,
    /// Sending the HAProxy PROXY line (`cf-haproxy`, `--haproxy-protocol`).
    HaProxy,
}

/// What an HTTP transfer does in `State::Perform`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HttpIo {
    /// Sending the request (and reading, for an early answer).
    Send,
    /// Receiving the response.
    Recv,
    /// Request and response on an HTTP/2 stream (`http2.rs`).
    H2,
}

/// Where a transfer connects: the pool key, the origin (or proxy) and the address to dial.
#[derive(Debug, Clone)]
struct Target {
    key: String,
    /// "http" or "https".
    scheme: &'static str,
    host: String,
    port: u16,
    conn_host: String,
    conn_port: u16,
}

/// What the connection lookup found.
enum Lookup {
    Shared(SharedConn),
    Wait,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    None,
    Length(u64),
    Chunked,
    Close,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Head,
    Body,
    Complete,
}

/// The response being received.
struct Resp {
    phase: Phase,
    lines: LineBuf,
    first_line: bool,
    /// A header line followed the status line (the next one may be a continuation).
    seen_header: bool,
    http09: bool,
    /// This response follows a 1xx: the server spoke HTTP/1 already, so no HTTP/0.9.
    after_1xx: bool,
    code: u32,
    version: HttpVersion,
    framing: Framing,
    chunked: Option<ChunkedDecoder>,
    decoder: Option<Decoder>,
    content_length: Option<u64>,
    chunked_te: bool,
    /// The transfer codings besides chunked, to decode with `--tr-encoding`, and how many.
    transfer_codings: Vec<u8>,
    transfer_stack: usize,
    /// A `Transfer-Encoding` header came.
    te_seen: bool,
    content_encoding: Option<Vec<u8>>,
    location: Option<String>,
    keepalive: bool,
    /// A `Content-Range` starting where the resumed download asked (curl's `content_range`).
    range_matches: bool,
    /// A `Content-Range` without a start on a 2xx: the server sends everything, curl then
    /// stops treating the transfer as a resume.
    range_everything: bool,
    /// The body is read but not delivered (curl's `ignorebody`): a 416 to a resumed GET.
    ignore_body: bool,
    /// Bytes of this response received at all (52 "empty reply" when none).
    raw_bytes: u64,
    body_bytes: u64,
    /// Index of this response within the transfer (for the header API).
    request_no: usize,
    /// The error ending the transfer was shown in verbose output already, where curl's
    /// `failf` shows it (before the blank line that ends the head).
    error_shown: bool,
}

impl Resp {
    fn new(request_no: usize) -> Resp {
        Resp {
            phase: Phase::Head,
            lines: LineBuf::new(head::MAX_HEADER_LINE),
            first_line: true,
            seen_header: false,
            http09: false,
            after_1xx: false,
            code: 0,
            version: HttpVersion::None,
            framing: Framing::Close,
            chunked: None,
            decoder: None,
            content_length: None,
            chunked_te: false,
            transfer_codings: Vec::new(),
            transfer_stack: 0,
            te_seen: false,
            content_encoding: None,
            location: None,
            keepalive: true,
            range_matches: false,
            range_everything: false,
            ignore_body: false,
            raw_bytes: 0,
            body_bytes: 0,
            request_no,
            error_shown: false,
        }
    }
}

/// Which callback response data goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Out {
    /// A header line to the header callback.
    Header,
    /// A header line to the write callback (`CURLOPT_HEADER`).
    HeaderBody,
    Body,
}

/// Most bytes one write callback call gets (curl's `CURL_MAX_WRITE_SIZE`), also when data
/// kept during a pause is handed over.
const MAX_WRITE_SIZE: usize = 16 * 1024;

/// Upload progress of the current request body.
#[derive(Default)]
struct Upload {
    /// Bytes of `Body::Fields` sent.
    fields_sent: usize,
    /// Staging buffer for callback-read data (allocated only for read-callback uploads).
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    eof: bool,
    chunked: bool,
    /// Waiting for `100 Continue` before sending the body.
    await_continue: bool,
    /// The request announced `Expect: 100-continue` (curl's own or a custom header).
    expect_announced: bool,
    body_done: bool,
    /// `info.size_upload` when this request started.
    upload_base: u64,
    /// Body bytes came from the source in this request (a probe's last chunk does not),
    /// so sending the body again needs a rewind.
    source_read: bool,
    /// A chunked body whose source knows its size (a custom chunked Transfer-Encoding):
    /// how many bytes are still to come. Its reader says it is at the end with the last
    /// data, so the last chunk goes with it, as curl's chunked encoder adds it.
    chunked_left: Option<u64>,
    /// Bytes of the source still to skip before the body starts (a resumed upload).
    skip: u64,
    /// The announced length of a body from the read callback: curl reads no more than
    /// that (its reader knows the total), whatever the callback would still give.
    limit: Option<u64>,
    /// `CURLOPT_CRLF`: the body goes through the LF-to-CRLF conversion (read into
    /// `crlf_in` first); the last byte converted was a CR.
    crlf: bool,
    crlf_in: Vec<u8>,
    prev_cr: bool,
    /// Converted bytes that did not fit the chunk they were read for, and how many of
    /// them went out: curl's LF converter hands them out before it reads again.
    crlf_out: Vec<u8>,
    crlf_out_pos: usize,
    /// Bytes of the request head that share curl's send buffer with the first body bytes
    /// (curl buffers the head and fills the rest of its upload buffer from the body).
    head_room: usize,
}

/// curl's `MAX_URL_LEN`: the longest host name it takes.
const MAX_URL_LEN: usize = 0xffff;

/// curl's `TRC_LINE_MAX`: the buffer an informational line is formatted into.
const TRC_LINE_MAX: usize = 2048;

/// curl's `CURL_ERROR_SIZE`: the buffer an error message is formatted into.
const CURL_ERROR_SIZE: usize = 256;

pub(crate) struct Transfer {
    pub opts: Options,
    pub callbacks: Box<dyn Callbacks>,
    pub info: Info,
    pub timers: Timers,
    state: State,
    /// The handler serving the current URL's scheme.
    handler: &'static dyn handler::Handler,
    /// What an HTTP transfer does while performing.
    http_io: HttpIo,
    /// The parsed URL, shared (not copied) by the steps of a request that need it.
    url: Option<Arc<Url>>,
    conn: Option<Conn>,
    conn_reused: bool,
    /// A `--resolve` entry for host `*` was loaded: it answers hosts not in the cache.
    wildcard_resolve: bool,
    started: Instant,
    resp: Resp,
    req: Vec<u8>,
    req_sent: usize,
    up: Upload,
    /// A static name unless the method is custom.
    method: std::borrow::Cow<'static, str>,
    /// `custom_request` is no longer used: a followed redirect dropped it (curl's
    /// `http_ignorecustom`, see `FollowMode`).
    ignore_custom: bool,
    /// A redirect was followed (curl's `this_is_a_follow`; a retry for authentication
    /// counts as a redirect but is not one).
    redirected: bool,
    body: Body,
    /// Scheme, host and port of the first URL: credentials go only there.
    first_origin: Option<(&'static str, String, u16)>,
    /// `CURLOPT_PORT` changed the first URL, or `Options::url_shown` names another effective
    /// URL for it: that URL, and the effective URL curl reports for it (the URL as given).
    port_set: Option<(Url, String)>,
    /// User and password from the URLs so far (curl's `state.aptr.user`/`passwd`): a URL
    /// naming them replaces them, a redirect to another port or scheme clears them unless
    /// `--location-trusted`.
    url_user: Option<String>,
    url_password: Option<String>,
    /// The connection the host's NTLM state belongs to (curl keeps it with the connection).
    ntlm_conn: Option<i64>,
    /// The state came from the handle's previous transfer (`resume_auth`): it goes back.
    auth_resumed: bool,
    referer: Option<String>,
    redirect_to: Option<String>,
    /// The request could not be made (an authentication header failed); sending fails.
    req_error: Option<Error>,
    /// A response of this transfer was HTTP/1.0 (curl's `http_neg.rcvd_min`): the requests
    /// that follow go as 1.0, on any connection.
    seen_http10: bool,
    /// The multipart body being sent, read from its parts (`Body::Mime`), and its size.
    mime: Option<crate::mime::MimeReader>,
    mime_size: Option<u64>,
    /// The Content-Length of the CONNECT reply being read, and what is left to drop of it.
    tunnel_body: Option<u64>,
    tunnel_skip: u64,
    /// The proxy closes after the 407 whose body is being dropped: connect again then.
    tunnel_reconnect: bool,
    /// The CONNECT reply's body is chunked: the decoder that finds its end.
    tunnel_chunked: Option<Box<crate::proto::h1::chunked::ChunkedDecoder>>,
    /// The next CONNECT continues an authentication exchange (on this connection or on a
    /// new one after the proxy closed): curl's tunnel state lives on, so its opening lines
    /// are not printed again.
    tunnel_again: bool,
    /// The application's HSTS read callback was asked for its entries (once a transfer).
    hsts_pulled: bool,
    /// Authentication state for the HTTP proxy (`authproxy`).
    proxy_auth: HostAuth,
    /// Authentication state for the origin (curl's `authhost` and Digest state).
    auth: HostAuth,
    /// The same URL is requested again to answer an authentication challenge.
    auth_retry: bool,
    /// User and password for the current URL: `-u`, the URL's userinfo or `.netrc`.
    creds: Option<(String, String)>,
    /// The credentials came from `.netrc` for this host: they may go there on redirects.
    creds_netrc: bool,
    /// The current URL came from a redirect resolved against a URL that carried `creds`
    /// (see `follow`): its user and password are not a new source of credentials.
    creds_injected: bool,
    /// With the TLS trace: the length of the request head not shown yet (curl shows it
    /// after the write that sent it).
    head_pending: Option<usize>,
    notes: Vec<String>,
    /// Stop receiving the body and close (an error was decided).
    pub result: Option<Result<()>>,
    /// Requests sent again on a fresh connection after a reused one died (curl's
    /// `state.retrycount`, at most 5 per transfer).
    retries: u32,
    /// A 417 answered `Expect: 100-continue`: later requests go without it (curl's
    /// `state.disableexpect`).
    disable_expect: bool,
    /// The next connection is a new one: the request is sent again after its connection
    /// died.
    fresh_once: bool,
    last_progress: (u64, u64),
    /// The pool key of the connection being made (set while resolving/connecting).
    pending_key: Option<String>,
    /// A `Strict-Transport-Security` value for the multi's HSTS cache.
    pending_sts: Option<String>,
    /// An `Alt-Svc` value for the multi's alt-svc cache.
    pending_altsvc: Option<Vec<u8>>,
    /// The cached alternative this request connects to (`host:port` for `Alt-Used:`), and
    /// the protocol it switches to when that differs from the origin's.
    alt_used: Option<String>,
    alt_alpn: Option<crate::altsvc::Alpn>,
    /// `Set-Cookie:` values (as received, line ending included) for the multi's jar.
    pending_cookies: Vec<Vec<u8>>,
    /// The proxy of the current URL, if any.
    proxy: Option<crate::proxy::Proxy>,
    /// A SOCKS proxy in front of an HTTP proxy (`CURLOPT_PRE_PROXY`).
    preproxy: Option<crate::proxy::Proxy>,
    /// The connection goes through a CONNECT tunnel (https, or `--proxytunnel`).
    tunnel_wanted: bool,
    /// The CONNECT handshake in progress: reply parser, request bytes, bytes sent.
    tunnel: Option<(crate::proto::connect::Tunnel, Vec<u8>, usize)>,
    /// The CONNECT stream in progress, when the proxy speaks HTTP/2.
    h2connect: Option<Box<h2proxy::H2Connect>>,
    /// The SOCKS handshake in progress and the reply bytes read so far.
    socks: Option<(crate::proto::socks::Socks, Vec<u8>)>,
    /// The HAProxy PROXY line of this connection and how much of it went (set once it is
    /// being sent).
    haproxy: Option<(Vec<u8>, usize)>,
    /// `CURLOPT_MAX_RECV_SPEED_LARGE` / `MAX_SEND_SPEED_LARGE` bookkeeping.
    limit: RateLimit,
    /// The low-speed abort's current speed (`CURLOPT_LOW_SPEED_LIMIT`).
    speed: SpeedCheck,
    /// The HTTP/2 stream of the current request.
    h2: Option<Box<http2::H2Stream>>,
    /// The server refused the HTTP/2 stream (retry on a new connection), and retries so far.
    h2_refused: (bool, u8),
    /// The multiplexed connection the HTTP/2 stream is on, and the stream's id.
    h2conn: Option<SharedConn>,
    h2_sid: u32,
    /// The response came on the HTTP/2 stream, which has not ended: the transfer completes
    /// at the stream's end, not when the body's length is met (see `h2_awaits_end`).
    h2_open: bool,
    /// The request asked to switch to HTTP/2 (`Upgrade: h2c`) and no final answer came
    /// yet, and a 101 to that came. Asking, the connection counts as being set up for the
    /// transfers that could multiplex on it (curl's `asks_multiplex`).
    h2_upgrade: (bool, bool),
    /// A final answer refused the upgrade: waiting transfers look again.
    h2_denied: bool,
    /// Id of the connection this transfer sets up, known to the pool as pending.
    pending_conn: Option<i64>,
    /// The host a `--connect-to` rule or alt-svc sends a direct connection to instead of
    /// the URL's: curl names the connection after it ("Connected to", "left intact").
    conn_to_host: Option<String>,
    /// The `--connect-to` (or alt-svc) destination as curl's TLS session cache key adds it
    /// for sessions made without verification (`:CHOST-host:CPORT-port`); empty without one.
    conn_to_key: String,
    /// Makes the transfer runnable (set by the multi): h2 wakes it when frames for its
    /// stream arrive, the pool when a connection it waits for is settled.
    pub(crate) waker: std::task::Waker,
    /// `host:port` of the connection this transfer uses or makes, for the connection limits.
    conn_dest: Option<String>,
    /// Response header lines received so far in this transfer (see `count_header`).
    header_count: usize,
    /// The paused directions, shared with the application (`curl_easy_pause`); made when a
    /// callback pauses a transfer that has none.
    pause: Option<Pause>,
    /// Response data kept while receiving is paused, in order (curl's paused client
    /// writer); empty, without memory, otherwise.
    held: std::collections::VecDeque<(Out, Vec<u8>)>,
    /// The connection a `CURLOPT_CONNECT_ONLY` transfer made, for the application.
    detached: Option<Conn>,
    /// The file of a file:// transfer and what is left to do with it.
    file: Option<Box<file::FileJob>>,
    /// An FTP transfer's state.
    ftp: Option<Box<ftp::FtpXfer>>,
    /// A wildcard download's listing and where it is in it (`CURLOPT_WILDCARDMATCH`).
    wildcard: Option<Box<ftp::wildcard::Wildcard>>,
}

impl Transfer {
    pub fn new(opts: Options, callbacks: Box<dyn Callbacks>, now: Instant) -> Transfer {
        let body = opts.body.clone();
        let referer = opts.referer.clone();
        let auth = HostAuth::new(opts.httpauth);
        let proxy_auth = HostAuth::for_proxy(opts.proxyauth);
        Transfer {
            opts,
            callbacks,
            // CURLINFO_REFERER: the Referer of the latest request, the set one before any.
            info: Info {
                referer: referer.clone(),
                ..Info::default()
            },
            timers: Timers::default(),
            state: State::Init,
            handler: &http::HTTP,
            http_io: HttpIo::Send,
            url: None,
            conn: None,
            conn_reused: false,
            wildcard_resolve: false,
            started: now,
            resp: Resp::new(0),
            req: Vec::new(),
            req_sent: 0,
            up: Upload::default(),
            method: std::borrow::Cow::Borrowed(""),
            ignore_custom: false,
            redirected: false,
            body,
            first_origin: None,
            port_set: None,
            url_user: None,
            url_password: None,
            ntlm_conn: None,
            auth_resumed: false,
            referer,
            redirect_to: None,
            req_error: None,
            seen_http10: false,
            mime: None,
            mime_size: None,
            auth,
            proxy_auth,
            tunnel_body: None,
            tunnel_skip: 0,
            tunnel_reconnect: false,
            tunnel_chunked: None,
            tunnel_again: false,
            hsts_pulled: false,
            auth_retry: false,
            creds: None,
            creds_netrc: false,
            creds_injected: false,
            head_pending: None,
            notes: Vec::new(),
            result: None,
            retries: 0,
            disable_expect: false,
            fresh_once: false,
            last_progress: (u64::MAX, u64::MAX),
            pending_key: None,
            pending_sts: None,
            pending_altsvc: None,
            alt_used: None,
            alt_alpn: None,
            pending_cookies: Vec::new(),
            proxy: None,
            preproxy: None,
            tunnel_wanted: false,
            tunnel: None,
            h2connect: None,
            socks: None,
            haproxy: None,
            limit: RateLimit::new(now),
            speed: SpeedCheck::new(now),
            h2: None,
            h2_refused: (false, 0),
            h2conn: None,
            h2_sid: 1,
            h2_open: false,
            h2_upgrade: (false, false),
            h2_denied: false,
            pending_conn: None,
            conn_to_host: None,
            conn_to_key: String::new(),
            waker: std::task::Waker::noop().clone(),
            conn_dest: None,
            header_count: 0,
            pause: None,
            held: std::collections::VecDeque::new(),
            detached: None,
            file: None,
            ftp: None,
            wildcard: None,
        }
    }

    /// The connection a finished `CURLOPT_CONNECT_ONLY` transfer made.
    pub(crate) fn take_detached(&mut self) -> Option<Conn> {
        self.detached.take()
    }

    /// `CURLOPT_CONNECT_ONLY`: the connection is made; it leaves the multi for the
    /// application and the transfer is done without a request.
    fn connect_only_done(&mut self, cx: &mut Cx<'_>) {
        if let Some(mut c) = self.conn.take() {
            // The application's own bytes go on it now: no protocol goodbye when it closes
            // (curl sends no QUIT on an FTP connect-only connection).
            c.proto = None;
            let _ = cx.poller.delete(c.stream.fd());
            self.info.last_socket = Some(std::os::fd::AsRawFd::as_raw_fd(&c.stream.fd()));
            self.detached = Some(c);
        }
        self.finish(cx, Ok(()));
    }

    /// The multi's waker for this transfer; an application pause state is told of it.
    /// Not driven yet: curl reads a handle's options when its transfer starts, so settings
    /// changed after `curl_multi_add_handle` may still replace these.
    pub(crate) fn unstarted(&self) -> bool {
        matches!(self.state, State::Init) && self.url.is_none() && self.result.is_none()
    }

    /// The transfer made again from new settings and callbacks, keeping its id, its waker
    /// and its start time; only while `unstarted`.
    pub(crate) fn renew(&mut self, opts: Options, callbacks: Box<dyn Callbacks>) {
        let mut t = Transfer::new(opts, callbacks, self.started);
        if let Some(a) = self.auth_carry() {
            t.resume_auth(a);
        }
        t.info.xfer_id = self.info.xfer_id;
        t.set_waker(self.waker.clone());
        if t.opts.verbose {
            t.callbacks.debug_ids(t.info.xfer_id, -1);
        }
        *self = t;
    }

    /// The authentication state this transfer leaves for the handle's next one.
    /// None when the transfer authenticated to nobody: a handle without credentials has
    /// nothing to carry, and a plain transfer allocates nothing for it.
    pub(crate) fn auth_carry(&self) -> Option<auth::AuthCarry> {
        if self.creds.is_none()
            && self.opts.bearer.is_none()
            && !self.proxy_has_user()
            && !self.auth_resumed
        {
            return None;
        }
        Some(auth::AuthCarry {
            host: self.auth.clone(),
            proxy: self.proxy_auth.clone(),
            ntlm_conn: self.ntlm_conn,
        })
    }

    /// Starts from the state the handle's previous transfer left (before it is driven).
    pub(crate) fn resume_auth(&mut self, c: auth::AuthCarry) {
        self.auth = c.host.carried(self.opts.httpauth);
        self.proxy_auth = c.proxy.carried(self.opts.proxyauth);
        self.ntlm_conn = c.ntlm_conn;
        self.auth_resumed = true;
    }

    pub(crate) fn set_waker(&mut self, waker: std::task::Waker) {
        self.waker = waker;
        self.pause = self.opts.pause.clone();
        if let Some(p) = &self.pause {
            p.start(&self.waker);
        }
    }

    /// The paused directions (`pause::RECV`, `pause::SEND`).
    fn paused(&self) -> u8 {
        self.pause.as_ref().map_or(0, Pause::get)
    }

    /// Pause `bits` because a callback asked.
    fn pause_now(&mut self, bits: u8) {
        let waker = &self.waker;
        self.pause
            .get_or_insert_with(|| {
                let p = Pause::default();
                p.start(waker);
                p
            })
            .add(bits);
    }

    /// Is response data held back (receiving paused, or kept data not yet handed over)?
    fn recv_held(&self) -> bool {
        !self.held.is_empty() || self.paused() & pause::RECV != 0
    }

    /// Hand response data to its callback, or keep it while receiving is paused. A callback
    /// answering `CURL_WRITEFUNC_PAUSE` pauses receiving and gets the same data again when
    /// it is let go.
    fn emit(&mut self, out: Out, data: &[u8]) -> Result<()> {
        if self.recv_held() {
            match self.held.back_mut() {
                Some((Out::Body, v)) if out == Out::Body => v.extend_from_slice(data),
                _ => self.held.push_back((out, data.to_vec())),
            }
            return Ok(());
        }
        if self.call_writer(out, data)? {
            self.held.push_back((out, data.to_vec()));
        }
        Ok(())
    }

    /// Call the callback for `out`; whether it paused (the data is not taken).
    fn call_writer(&mut self, out: Out, data: &[u8]) -> Result<bool> {
        // CURLINFO_TOTAL_TIME inside a callback: the time so far, as curl's progress
        // bookkeeping keeps it.
        self.info.time_total = self.started.elapsed();
        let n = match out {
            Out::Header => self.callbacks.header_live(data, &self.info),
            Out::HeaderBody | Out::Body => self.callbacks.write_live(data, &self.info),
        };
        if n == WRITEFUNC_PAUSE {
            self.pause_now(pause::RECV);
            return Ok(true);
        }
        if n == data.len() {
            return Ok(false);
        }
        Err(match out {
            Out::Header if n == WRITEFUNC_ERROR => Error::new(
                Code::WriteError,
                format!("client returned ERROR on write of {} bytes", data.len()),
            ),
            Out::Header | Out::HeaderBody => Error::new(Code::WriteError, "Failed writing header"),
            Out::Body => write_error(data.len(), n),
        })
    }

    /// Receiving was let go: hand over what was kept, in pieces a write callback may get.
    /// Whether all of it went (a callback may pause again).
    fn flush_held(&mut self) -> Result<bool> {
        while self.paused() & pause::RECV == 0 {
            let Some((out, data)) = self.held.pop_front() else {
                return Ok(true);
            };
            let step = if out == Out::Body {
                MAX_WRITE_SIZE
            } else {
                data.len().max(1)
            };
            let mut at = 0;
            while at < data.len() {
                let end = (at + step).min(data.len());
                if self.call_writer(out, &data[at..end])? {
                    self.held.push_front((out, data[at..].to_vec()));
                    return Ok(false);
                }
                at = end;
                if self.paused() & pause::RECV != 0 && at < data.len() {
                    self.held.push_front((out, data[at..].to_vec()));
                    return Ok(false);
                }
            }
        }
        Ok(false)
    }

    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// Sockets this transfer waits on and for what (readable, writable).
    pub fn interests(&self) -> [Option<Interest<'_>>; 2] {
        let mut out = [None, None];
        match &self.state {
            State::Connecting { he, .. } => {
                for (slot, (fd, id)) in out.iter_mut().zip(he.pending_fds()) {
                    *slot = Some(Interest {
                        fd,
                        id,
                        read: false,
                        write: true,
                        shared: false,
                    });
                }
            }
            State::Filter(FilterStep::Tls { want_write, .. }) => {
                if let Some(c) = &self.conn {
                    out[0] = Some(Interest {
                        fd: c.stream.fd(),
                        id: c.sock_id,
                        read: !*want_write,
                        write: *want_write,
                        shared: false,
                    });
                }
            }
            State::Filter(FilterStep::Tunnel) if self.h2connect.is_some() => {
                out[0] = self.h2_tunnel_interest()
            }
            State::Filter(FilterStep::Tunnel) => {
                if let (Some(c), Some((_, req, sent))) = (&self.conn, &self.tunnel) {
                    let write = *sent < req.len() || c.wants_write();
                    out[0] = Some(Interest {
                        fd: c.stream.fd(),
                        id: c.sock_id,
                        read: !write,
                        write,
                        shared: false,
                    });
                }
            }
            State::Filter(FilterStep::TunnelSkip) => {
                if let Some(c) = &self.conn {
                    out[0] = Some(Interest {
                        fd: c.stream.fd(),
                        id: c.sock_id,
                        read: true,
                        write: c.wants_write(),
                        shared: false,
                    });
                }
            }
            State::Filter(FilterStep::HaProxy) => {
                if let Some(c) = &self.conn {
                    out[0] = Some(Interest {
                        fd: c.stream.fd(),
                        id: c.sock_id,
                        read: false,
                        write: true,
                        shared: false,
                    });
                }
            }
            State::Filter(FilterStep::Socks) => {
                if let (Some(c), Some((s, _))) = (&self.conn, &self.socks) {
                    let write = !s.output().is_empty();
                    out[0] = Some(Interest {
                        fd: c.stream.fd(),
                        id: c.sock_id,
                        read: !write,
                        write,
                        shared: false,
                    });
                }
            }
            State::ProtoConnect | State::Do | State::Perform => out = self.handler.interests(self),
            _ => {}
        }
        // A tunnel on an HTTP/2 stream is always read; written when the proxy connection
        // holds bytes (a write the stream's window held back waits for a WINDOW_UPDATE).
        if let (Some(c), Some(i)) = (&self.conn, out[0].as_mut()) {
            if c.in_h2_tunnel() && i.id == c.sock_id {
                i.read = true;
                i.write = c.wants_write();
            }
        }
        // A paused direction is not waited for (a receive is not read: no buffering beyond
        // what the callbacks refused).
        let paused = self.paused();
        if paused != 0 && self.moving() {
            let wants_write = self.conn.as_ref().is_some_and(|c| c.wants_write());
            for i in out.iter_mut().flatten() {
                if paused & pause::RECV != 0 {
                    i.read = false;
                }
                if paused & pause::SEND != 0
                    && (self.io_is(HttpIo::Send) || self.sending_alongside())
                {
                    i.write = wants_write;
                }
            }
        }
        // Sleeping under a rate limit: the socket stays registered, wanting nothing, so
        // only the rate-limit timer wakes the transfer.
        if self.limit.sleeping {
            for i in out.iter_mut().flatten() {
                i.read = false;
                i.write = false;
            }
        }
        out
    }

    /// The destination of the connection this transfer holds (using or making), if any.
    pub fn conn_dest(&self) -> Option<&str> {
        match self.state {
            State::Init | State::Pending | State::Done => None,
            _ => self.conn_dest.as_deref(),
        }
    }

    /// Is the transfer waiting for a free connection?
    pub fn is_pending(&self) -> bool {
        matches!(self.state, State::Pending)
    }

    /// Is the transfer waiting for a resolver answer?
    pub fn resolving(&self) -> bool {
        matches!(
            self.state,
            State::Resolving { .. } | State::Filter(FilterStep::SocksResolving { .. })
        )
    }

    fn verbose(&mut self, text: &str) {
        if self.opts.verbose {
            // curl's infof formats into 2048 bytes: a longer line is cut to 2043 and "...".
            let text = text.as_bytes();
            let mut line = Vec::with_capacity(text.len().min(TRC_LINE_MAX) + 1);
            if text.len() >= TRC_LINE_MAX - 2 {
                line.extend_from_slice(&text[..TRC_LINE_MAX - 5]);
                line.extend_from_slice(b"...");
            } else {
                line.extend_from_slice(text);
            }
            line.push(b'\n');
            self.callbacks.debug_live(InfoType::Text, &line, &self.info);
        }
    }

    fn flush_notes(&mut self) {
        if self.notes.is_empty() {
            return;
        }
        let notes = std::mem::take(&mut self.notes);
        for n in &notes {
            self.verbose(n);
        }
    }

    fn elapsed_ms(&self, now: Instant) -> u128 {
        now.duration_since(self.started).as_millis()
    }

    /// Advance as far as possible. Afterwards the transfer is done or waits on a socket,
    /// the resolver or a timer.
    pub fn drive(&mut self, cx: &mut Cx<'_>) {
        if self.is_done() {
            return;
        }
        if let Err(e) = self.check_timeouts(cx.now) {
            self.finish(cx, Err(e));
            return;
        }
        loop {
            if self.rate_limited(cx.now) {
                break;
            }
            let r = match self.state {
                State::Init => self.do_init(cx),
                State::Resolving { .. } => self.do_resolving(cx),
                State::Connecting { .. } => self.do_connecting(cx),
                State::Filter(FilterStep::Tls { .. }) => self.do_tls_connect(cx),
                State::Filter(FilterStep::Tunnel) => self.do_tunnel(cx),
                State::Filter(FilterStep::TunnelSkip) => self.do_tunnel_skip(cx),
                State::Filter(FilterStep::Socks) => self.do_socks(cx),
                State::Filter(FilterStep::HaProxy) => self.do_haproxy(cx),
                State::Filter(FilterStep::SocksResolving { .. }) => self.do_socks_resolving(cx),
                State::PipeWait(_) => self.do_pipewait(cx),
                State::Pending => self.do_init(cx),
                State::ProtoConnect => self.do_protoconnect(cx),
                State::Do => self.do_do(cx),
                State::Perform => self.handler.perform(self, cx),
                State::Done => return,
            };
            match r {
                Ok(true) => continue,
                Ok(false) => break,
                Err(e) => {
                    self.finish(cx, Err(e));
                    return;
                }
            }
        }
        if let Err(e) = self.low_speed_check(cx.now) {
            self.finish(cx, Err(e));
            return;
        }
        self.settle_pending(cx);
        self.progress(cx.now);
    }

    /// `MSTATE_PROTOCONNECT`: the handler's login or greeting, then `MSTATE_DO`.
    fn do_protoconnect(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let h = self.handler;
        if !h.connect(self, cx)? {
            return Ok(false);
        }
        if self.opts.connect_only && matches!(self.state, State::ProtoConnect) {
            self.connect_only_done(cx);
            return Ok(true);
        }
        if matches!(self.state, State::ProtoConnect) {
            self.state = State::Do;
        }
        Ok(true)
    }

    /// `MSTATE_DO`: the handler starts the request, then `MSTATE_PERFORMING`.
    fn do_do(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let h = self.handler;
        if !h.do_it(self, cx)? {
            return Ok(false);
        }
        if matches!(self.state, State::Do) {
            self.state = State::Perform;
        }
        Ok(true)
    }

    /// Performing, in a phase that moves data over the network (rate limits and the
    /// low-speed check apply).
    fn moving(&self) -> bool {
        matches!(self.state, State::Perform) && self.handler.moving(self)
    }

    /// The connection this transfer set up is no longer being set up (connected, or given
    /// up): transfers waiting for it look again once it shows what it speaks.
    fn settle_pending(&mut self, cx: &mut Cx<'_>) {
        let connecting = matches!(
            self.state,
            State::Resolving { .. }
                | State::Connecting { .. }
                | State::Filter(FilterStep::Tls { .. })
                | State::Filter(FilterStep::Tunnel)
                | State::Filter(FilterStep::TunnelSkip)
                | State::Filter(FilterStep::SocksResolving { .. })
                | State::Filter(FilterStep::Socks)
        );
        if connecting || (self.h2_upgrade.0 && !self.is_done()) {
            return;
        }
        if let Some(id) = self.pending_conn.take() {
            cx.pool.unpend(id);
            if self.is_done() || self.on_h2() || std::mem::take(&mut self.h2_denied) {
                cx.pool.notify();
            }
        }
    }

    /// While sending or receiving: fail when slower than `low_speed_limit` for
    /// `low_speed_time`, looking again at least every second (curl's `Curl_speedcheck`).
    fn low_speed_check(&mut self, now: Instant) -> Result<()> {
        let limit = self.opts.low_speed_limit;
        let time = self.opts.low_speed_time.unwrap_or_default();
        if limit == 0 || time.is_zero() || !self.moving() {
            self.timers.clear(TimerId::SpeedCheck);
            return Ok(());
        }
        let total = self.info.size_download + self.info.size_upload;
        self.speed.sample(now, total);
        // A paused transfer is not slow: the time under the limit starts over when it is
        // let go (curl resets its `keeps_speed` on unpause), the speed samples go on.
        if self.paused() != 0 {
            self.speed.restart();
            self.timers.clear(TimerId::SpeedCheck);
            return Ok(());
        }
        self.speed
            .check(now, limit, time)
            .map_err(|msg| Error::new(Code::OperationTimedout, msg))?;
        if self
            .timers
            .get(TimerId::SpeedCheck)
            .is_none_or(|t| t <= now)
        {
            self.timers
                .set(TimerId::SpeedCheck, now + Duration::from_secs(1));
        }
        Ok(())
    }

    /// Over `max_recv_speed` or `max_send_speed` while sending or receiving: sleep until
    /// the rate-limit timer says the average is back under (curl's `MSTATE_RATELIMITING`).
    fn rate_limited(&mut self, now: Instant) -> bool {
        let max = (self.opts.max_recv_speed, self.opts.max_send_speed);
        if max == (0, 0) || !self.moving() {
            return false;
        }
        let cur = (self.info.size_download, self.info.size_upload);
        match self.limit.wait(now, cur, max) {
            Some(wait) => {
                if !self.limit.sleeping {
                    self.limit.sleeping = true;
                    self.limit.restamp(now, cur, max);
                }
                self.timers.set(TimerId::RateLimit, now + wait);
                true
            }
            None => {
                if self.limit.sleeping {
                    self.limit.sleeping = false;
                    self.limit.restamp(now, cur, max);
                    self.timers.clear(TimerId::RateLimit);
                }
                false
            }
        }
    }

    fn progress(&mut self, now: Instant) {
        if self.opts.no_progress {
            return;
        }
        let cur = (self.info.size_download, self.info.size_upload);
        let tick = self.timers.expired(TimerId::Progress, now);
        if cur != self.last_progress || tick {
            self.last_progress = cur;
            let (dltotal, ultotal) = self.totals();
            self.info.time_total = now.duration_since(self.started);
            if !self
                .callbacks
                .progress_live((dltotal, cur.0, ultotal, cur.1), &self.info)
            {
                self.result = Some(Err(Error::new(Code::AbortedByCallback, PROGRESS_REFUSED)));
            }
        }
        if tick || self.timers.get(TimerId::Progress).is_none() {
            self.timers
                .set(TimerId::Progress, now + Duration::from_secs(1));
        }
    }

    /// Expected download and upload sizes as the progress callback reports them (0: unknown).
    fn totals(&self) -> (u64, u64) {
        let ultotal = match self.body {
            Body::Fields(ref f) => f.len() as u64,
            Body::Upload(Some(n)) | Body::PostRead(Some(n)) => n,
            Body::Mime(_) => self.mime_size.unwrap_or(0),
            _ => 0,
        };
        (self.resp.content_length.unwrap_or(0), ultotal)
    }

    fn check_timeouts(&mut self, now: Instant) -> Result<()> {
        if let Some(Err(e)) = &self.result {
            return Err(e.clone());
        }
        let ms = self.elapsed_ms(now);
        if self.timers.expired(TimerId::Timeout, now) {
            if let Some(m) = self.handler.timeout_message(self) {
                return Err(Error::new(Code::OperationTimedout, m));
            }
            let connecting = matches!(
                self.state,
                State::Init
                    | State::Resolving { .. }
                    | State::Connecting { .. }
                    | State::Filter(FilterStep::Tunnel)
                    | State::Filter(FilterStep::TunnelSkip)
                    | State::Filter(FilterStep::SocksResolving { .. })
                    | State::Filter(FilterStep::Socks)
            );
            let msg = match &self.state {
                State::Resolving { .. } => format!("Resolving timed out after {ms} milliseconds"),
                _ if connecting => format!("Connection timed out after {ms} milliseconds"),
                _ => match self.resp.content_length {
                    Some(total) if self.resp.phase == Phase::Body => format!(
                        "Operation timed out after {ms} milliseconds with {} out of {} bytes received",
                        self.resp.body_bytes, total
                    ),
                    _ => format!(
                        "Operation timed out after {ms} milliseconds with {} bytes received",
                        self.resp.body_bytes
                    ),
                },
            };
            return Err(Error::new(Code::OperationTimedout, msg));
        }
        if self.timers.expired(TimerId::ConnectTimeout, now) {
            let msg = match &self.state {
                State::Resolving { .. } => format!("Resolving timed out after {ms} milliseconds"),
                State::Connecting { host, port, .. } => {
                    format!("Failed to connect to {host} port {port} after {ms} ms: Timeout was reached")
                }
                _ => format!("Connection timed out after {ms} milliseconds"),
            };
            return Err(Error::new(Code::OperationTimedout, msg));
        }
        let h = self.handler;
        h.check_timers(self, now);
        Ok(())
    }

    /// Announce an access to a shared connection pool to the application's lock callback,
    /// where curl takes its lock.
    pub(crate) fn touch_pool(&self) {
        if let Some(a) = &self.opts.share {
            a.touch(crate::share::ShareData::Connect);
        }
    }

    /// curl's notes for a pooled connection found dead (`Curl_conn_seems_dead`, after
    /// `conn_maxage` when `too_old` says why), then for its end (`Curl_conn_terminate`).
    fn note_dead(&mut self, id: i64, too_old: Option<&str>) {
        if let Some(note) = too_old {
            self.verbose(note);
        }
        self.verbose(&format!("Connection {id} seems to be dead"));
        self.verbose(&format!("shutting down connection #{id}"));
    }

    /// curl's note for a connection kept for reuse, named after the host it was asked for.
    /// Whether `url` is on the transfer's first scheme, host and port (curl's
    /// `Curl_auth_allowed_to_host`: credentials go there only, unless unrestricted).
    fn on_first_origin(&self, url: &Url) -> bool {
        let host = url.host_punycode().unwrap_or_default();
        let port = url.port_or_default();
        self.first_origin.as_ref().is_some_and(|(s, h, p)| {
            *s == url.scheme() && h.eq_ignore_ascii_case(&host) && *p == port
        })
    }

    fn left_intact(&self, id: i64, host: &str) -> String {
        let host = self.conn_to_host.as_deref().unwrap_or(host);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        format!("Connection #{id} to host {host} left intact")
    }

    fn release_conn(&mut self, cx: &mut Cx<'_>, reusable: bool) {
        // curl decides about the connection under the pool's lock.
        if self.h2conn.is_some() || self.conn.is_some() {
            self.touch_pool();
        }
        if let Some(s) = self.h2conn.take() {
            self.h2 = None;
            let open = reusable && s.lock().h2.as_ref().is_some_and(|m| m.is_open());
            self.info.last_socket = open.then(|| std::os::fd::AsRawFd::as_raw_fd(&s.fd()));
            // The connection stays for the others on it; the last one says so.
            if let Some(note) = self.h2_leave(cx, &s, reusable) {
                self.verbose(&note);
            }
            return;
        }
        if let Some(c) = self.conn.take() {
            // Idle pooled connections are not watched.
            let _ = cx.poller.delete(c.stream.fd());
            self.info.last_socket =
                reusable.then(|| std::os::fd::AsRawFd::as_raw_fd(&c.stream.fd()));
            if reusable {
                let mut c = c;
                c.http10 = self.resp.version == HttpVersion::V1_0;
                let msg = self.left_intact(c.id, &c.host);
                self.verbose(&msg);
                if let Some(old) = cx.pool.put(c, cx.now) {
                    drop(old);
                }
            } else {
                let mut c = c;
                c.close();
                let msg = format!("shutting down connection #{}", c.id);
                self.verbose(&msg);
            }
        }
    }

    fn finish(&mut self, cx: &mut Cx<'_>, r: Result<()>) {
        // A protocol may keep its connection after some errors (curl's handler `done`).
        if let Err(e) = &r {
            if matches!(self.state, State::ProtoConnect | State::Do | State::Perform) {
                let premature = !matches!(self.state, State::Do);
                let h = self.handler;
                if let Some(notes) = h.failed(self, cx, e.code, premature) {
                    self.finish_noting(cx, r, Some(notes));
                    return;
                }
            }
        }
        let closing = r.as_ref().err().and_then(|e| self.closing_note(e.code));
        self.finish_noting(cx, r, closing);
    }

    /// `finish` with the note on the connection given up, if any, after the error.
    fn finish_noting(&mut self, cx: &mut Cx<'_>, mut r: Result<()>, closing: Option<String>) {
        // curl's failf formats into its CURL_ERROR_SIZE (256) buffer: 255 bytes of text.
        if let Err(e) = &mut r {
            if e.msg.len() > CURL_ERROR_SIZE - 1 {
                let mut end = CURL_ERROR_SIZE - 1;
                while !e.msg.is_char_boundary(end) {
                    end -= 1;
                }
                e.msg.truncate(end);
            }
        }
        // A URL or protocol refused at the start: curl never calls the progress callback.
        let refused_at_init = r.is_err() && matches!(self.state, State::Init);
        // Nor again once it refused to go on.
        let progress_refused = matches!(&r, Err(e) if e.code == Code::AbortedByCallback
            && e.message() == PROGRESS_REFUSED);
        if r.is_err() {
            self.conn = None;
        }
        let intact = self.h2_release(cx);
        if let Some(id) = self.pending_conn.take() {
            cx.pool.unpend(id);
        }
        cx.pool.notify();
        let now = cx.now;
        self.info.time_total = now.duration_since(self.started);
        self.info.httpauth_avail = self.auth.avail_info;
        self.info.proxyauth_avail = self.proxy_auth.avail_info;
        self.info.httpauth_used = self.auth.used;
        self.info.proxyauth_used = self.proxy_auth.used;
        if self.info.time_starttransfer.is_zero() && r.is_ok() {
            self.info.time_starttransfer = self.info.time_total;
        }
        if let State::Resolving { job, .. } | State::Filter(FilterStep::SocksResolving { job }) =
            self.state
        {
            cx.resolver.cancel(job);
        }
        self.timers.clear_all();
        self.file = None;
        self.state = State::Done;
        if let Some(p) = &self.pause {
            p.stop();
        }
        self.held.clear();
        if let Err(e) = &r {
            if self.opts.verbose {
                // curl's failf shows its text; an error without one (strerror only) shows
                // nothing. One shown already, where curl shows it, is not shown again.
                if !std::mem::take(&mut self.resp.error_shown) && !e.msg.is_empty() {
                    self.verbose(&e.msg);
                }
                // One note a line.
                for note in closing.iter().flat_map(|n| n.split('\n')) {
                    self.verbose(note);
                }
            }
        }
        if let Some(note) = intact {
            self.verbose(&note);
        }
        self.result = Some(r);
        if !self.opts.no_progress && !refused_at_init && !progress_refused {
            let (dltotal, ultotal) = self.totals();
            let _ = self.callbacks.progress_live(
                (
                    dltotal,
                    self.info.size_download,
                    ultotal,
                    self.info.size_upload,
                ),
                &self.info,
            );
        }
    }

    /// What curl's `Curl_conn_terminate` says of the connection a transfer failing with
    /// `code` gives up: a premature end closes it, "#-1" before it had an id (the URL or the
    /// options refused); a failed name lookup and an empty reply end it the regular way,
    /// "shutting down". None when the transfer holds no connection (it was handed back, or
    /// an HTTP/2 connection stays open for other streams).
    fn closing_note(&self, code: Code) -> Option<String> {
        let id = self.info.conn_id;
        let how = match self.state {
            // A Unix socket connects at once: its id is known when that fails.
            State::Init => {
                return Some(format!(
                    "closing connection #{}",
                    self.pending_conn.unwrap_or(-1)
                ))
            }
            State::Resolving { .. } if code != Code::OperationTimedout => "shutting down",
            State::Resolving { .. }
            | State::Connecting { .. }
            | State::Filter(FilterStep::Tls { .. })
            | State::Filter(FilterStep::Tunnel)
            | State::Filter(FilterStep::TunnelSkip)
            | State::Filter(FilterStep::SocksResolving { .. })
            | State::Filter(FilterStep::Socks)
            | State::Filter(FilterStep::HaProxy) => "closing",
            // curl's multi_done counts a callback's abort and a read or write error as
            // premature: the file's connection is closed, else it ends the regular way.
            State::ProtoConnect | State::Do | State::Perform => self.handler.closing(self, code)?,
            _ => return None,
        };
        Some(format!("{how} connection #{id}"))
    }

    /// Take everything back out (the multi dropped the transfer).
    pub fn abort(&mut self, cx: &mut Cx<'_>) {
        self.abort_with(cx, Error::new(Code::AbortedByCallback, "Transfer removed"));
    }

    /// End the transfer now with `e`, if it is still running.
    pub fn abort_with(&mut self, cx: &mut Cx<'_>, e: Error) {
        if !self.is_done() {
            self.finish_noting(cx, Err(e), None);
        }
    }
}

/// curl's message for a connection that could not be made (the reason is in `-v` output).
/// `host` as it goes into a `host:port` authority (IPv6 in brackets).
/// Where a send starting at `pos` of `len` bytes stops: at most `max_speed` bytes when
/// sending is limited (curl's `xfer_send` cap), so no single write overshoots a second.
/// The error text of a transfer the progress callback stopped.
const PROGRESS_REFUSED: &str = "Callback aborted";

fn send_end(pos: usize, len: usize, max_speed: u64) -> usize {
    match usize::try_from(max_speed) {
        Ok(max) if max > 0 => len.min(pos.saturating_add(max)),
        _ => len,
    }
}

fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

/// The URL as an absolute-form request target: no credentials, no fragment.
fn absolute_form(url: &Url, userpwd: Option<&(String, String)>) -> String {
    let mut u = url.clone();
    if url.scheme() == "http" {
        let _ = u.set(Part::User, None, Flags::default());
        let _ = u.set(Part::Password, None, Flags::default());
    } else if let Some((user, pass)) = userpwd {
        // An ftp:// URL keeps its credentials, and curl's override_login puts -u's in it.
        let enc = Flags {
            url_encode: true,
            ..Flags::default()
        };
        let _ = u.set(Part::User, Some(user), enc);
        let _ = u.set(Part::Password, Some(pass), enc);
    }
    let _ = u.set(Part::Fragment, None, Flags::default());
    // An IDN host goes as the name curl converted it to (its http_target sets the host to
    // `conn->host.name`), not percent-encoded UTF-8.
    if let Ok(std::borrow::Cow::Owned(ascii)) = url.host_punycode() {
        let _ = u.set(Part::Host, Some(&ascii), Flags::default());
    }
    // curl asks for CURLU_NO_DEFAULT_PORT: "http://host:80/" goes as "http://host/".
    let flags = GetFlags {
        no_default_port: true,
        ..GetFlags::default()
    };
    u.get(Part::Url, flags)
        .unwrap_or_else(|_| u.to_url_string())
}

/// The error of a line curl's header store refuses: 43 "Invalid response header" for a name
/// without a colon, else curl's bare 8.
fn store_refused(e: head::StoreError) -> Error {
    match e {
        head::StoreError::NoColon => {
            Error::new(Code::BadFunctionArgument, "Invalid response header")
        }
        head::StoreError::Blank | head::StoreError::NoEnd => Error::code(Code::WeirdServerReply),
    }
}

/// curl's download writer stopping at `--max-filesize` (`max`) once `written` bytes went.
fn filesize_exceeded(max: u64, written: u64) -> Error {
    Error::new(
        Code::FilesizeExceeded,
        format!("Exceeded the maximum allowed file size ({max}) with {written} bytes"),
    )
}

fn connect_failed(host: &str, port: u16, ms: u128) -> Error {
    Error::new(
        Code::CouldntConnect,
        format!(
            "Failed to connect to {host} port {port} after {ms} ms: {}",
            Code::CouldntConnect.strerror()
        ),
    )
}

/// `CURL_SOCKOPT_ERROR` from the application's socket-option hook: curl's connect failure
/// naming the callback's code.
fn sockopt_refused(host: &str, port: u16, ms: u128) -> Error {
    Error::new(
        Code::AbortedByCallback,
        format!(
            "Failed to connect to {host} port {port} after {ms} ms: {}",
            Code::AbortedByCallback.strerror()
        ),
    )
}

/// Of a `-d` body, how much may go with the head in the first send of a handshake deferred
/// for early data (curl's send buffer; the session's allowance cuts it further).
const EARLY_BODY_MAX: usize = 64 * 1024;

fn send_error(e: &io::Error) -> Error {
    if let Some(err) = crate::tls::curl_error(e) {
        return err;
    }
    Error::new(
        Code::SendError,
        format!("Send failure: {}", connect::os_error_text(e)),
    )
}

fn write_error(passed: usize, returned: usize) -> Error {
    if returned == crate::options::WRITEFUNC_ERROR {
        return Error::new(
            Code::WriteError,
            format!("client returned ERROR on write of {passed} bytes"),
        );
    }
    Error::new(
        Code::WriteError,
        format!("Failure writing output to destination, passed {passed} returned {returned}"),
    )
}

/// 12 random bytes, for a Digest client nonce.
/// curl's `Curl_compareheader` for `Expect:` and `100-continue`: the line is an `Expect:`
/// header whose value holds the token.
fn expect_names_100_continue(line: &str) -> bool {
    let Some(v) = line
        .get(..7)
        .filter(|n| n.eq_ignore_ascii_case("Expect:"))
        .map(|_| &line[7..])
    else {
        return false;
    };
    v.split([',', ' ', '\t'])
        .any(|t| t.eq_ignore_ascii_case("100-continue"))
}

fn random12() -> [u8; 12] {
    let mut b = [0u8; 12];
    // The system RNG does not fail on Linux; a zero nonce would still be a valid one.
    let _ = aws_lc_rs::rand::fill(&mut b);
    b
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let l = line.strip_suffix(b"\n").unwrap_or(line);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// The URL sent as `Referer` by `-e ';auto'`: without credentials or fragment.
fn referer_for(url: &Url) -> String {
    let mut r = url.clone();
    for part in [Part::User, Part::Password, Part::Fragment] {
        // Clearing a part cannot fail.
        let _ = r.set(part, None, Flags::default());
    }
    r.to_url_string()
}

/// A URL part percent-decoded (empty when absent); bytes that are not UTF-8 are replaced.
/// The URL's user or password, percent-decoded as curl does for HTTP (whose handler has
/// `PROTOPT_USERPWDCTRL`): control characters are kept, only a zero byte is refused.
fn decoded(url: &Url, part: Part) -> String {
    let Ok(raw) = url.get_bytes(part, GetFlags::default()) else {
        return String::new();
    };
    match codec::urldecode(&raw, codec::Reject::Zero) {
        Some(v) => String::from_utf8_lossy(&v).into_owned(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_decoding() {
        let u = Url::parse("http://a%40b:p%3Aw@h/", Flags::default()).unwrap();
        assert_eq!(decoded(&u, Part::User), "a@b");
        assert_eq!(decoded(&u, Part::Password), "p:w");
        let r = Url::parse("http://u:p@h/x?q#f", Flags::default()).unwrap();
        assert_eq!(referer_for(&r), "http://h/x?q");
    }
}
