//! One transfer's state machine (curl's multi states: init, resolving, connecting, do,
//! perform, done) for HTTP/1.x. The multi drives it: `drive` advances as far as the sockets
//! allow without blocking, then the multi asks `interests` what to wait for.

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
use crate::scheme::HandlerKind;
use crate::speedcheck::SpeedCheck;
use crate::timer::{TimerId, Timers};

mod file;
mod h2proxy;
mod http2;

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
enum State {
    Init,
    Resolving {
        job: u64,
        host: String,
        port: u16,
    },
    Connecting {
        he: HappyEyeballs,
        host: String,
        port: u16,
    },
    /// TLS handshake on a connected socket; which readiness it waits for, and whether it
    /// is the handshake with an HTTPS proxy (else with the origin).
    TlsConnect {
        want_write: bool,
        proxy: bool,
    },
    /// CONNECT handshake with an HTTP proxy.
    Tunnel,
    /// Dropping the body of a 407 reply to CONNECT before asking again.
    TunnelSkip,
    /// Resolving the origin for a socks4/socks5 handshake (proxy already connected).
    SocksResolving {
        job: u64,
    },
    /// SOCKS handshake.
    Socks,
    /// Sending the HAProxy PROXY line (`--haproxy-protocol`).
    HaProxy,
    Send,
    Recv,
    /// Request and response on an HTTP/2 stream (`http2.rs`).
    H2,
    /// Waiting for a connection being set up to show whether it multiplexes
    /// (`CURLOPT_PIPEWAIT`); then the lookup runs again.
    PipeWait(Box<Target>),
    /// Waiting for the multi's connection limits (`CURLMOPT_MAX_HOST_CONNECTIONS`,
    /// `CURLMOPT_MAX_TOTAL_CONNECTIONS`) to allow a new connection: curl's PENDING.
    Pending,
    /// A file:// transfer reading or writing its file (`file.rs`).
    File,
    Done,
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
        }
    }

    /// The connection a finished `CURLOPT_CONNECT_ONLY` transfer made.
    pub(crate) fn take_detached(&mut self) -> Option<Conn> {
        self.detached.take()
    }

    /// `CURLOPT_CONNECT_ONLY`: the connection is made; it leaves the multi for the
    /// application and the transfer is done without a request.
    fn connect_only_done(&mut self, cx: &mut Cx<'_>) {
        if let Some(c) = self.conn.take() {
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
            State::TlsConnect { want_write, .. } => {
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
            State::Tunnel if self.h2connect.is_some() => out[0] = self.h2_tunnel_interest(),
            State::Tunnel => {
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
            State::TunnelSkip => {
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
            State::HaProxy => {
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
            State::Socks => {
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
            State::Send | State::Recv => {
                if let Some(c) = &self.conn {
                    let recv = matches!(self.state, State::Recv);
                    // curl reads while it sends the body, so that an early answer is
                    // seen; after one it may go on sending the body (`sending_alongside`).
                    let read = recv
                        || (self.req_sent >= self.req.len() && self.resp.phase != Phase::Complete);
                    // A handshake deferred for early data that waits for the server.
                    let early_read = !recv
                        && c.tls.as_ref().is_some_and(|t| t.early_wants_read())
                        && !c.wants_write();
                    out[0] = Some(Interest {
                        fd: c.stream.fd(),
                        id: c.sock_id,
                        read: read || early_read,
                        write: !early_read
                            && (!recv || self.sending_alongside() || c.wants_write()),
                        shared: false,
                    });
                }
            }
            State::H2 => out[0] = self.h2_interest(),
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
        if paused != 0 && matches!(self.state, State::Send | State::Recv) {
            let wants_write = self.conn.as_ref().is_some_and(|c| c.wants_write());
            for i in out.iter_mut().flatten() {
                if paused & pause::RECV != 0 {
                    i.read = false;
                }
                if paused & pause::SEND != 0
                    && (matches!(self.state, State::Send) || self.sending_alongside())
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
            State::Resolving { .. } | State::SocksResolving { .. }
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
                State::TlsConnect { .. } => self.do_tls_connect(cx),
                State::Tunnel => self.do_tunnel(cx),
                State::TunnelSkip => self.do_tunnel_skip(cx),
                State::Socks => self.do_socks(cx),
                State::HaProxy => self.do_haproxy(cx),
                State::SocksResolving { .. } => self.do_socks_resolving(cx),
                State::Send => self.do_send(cx),
                State::Recv => self.do_recv(cx),
                State::H2 => self.do_h2(cx),
                State::PipeWait(_) => self.do_pipewait(cx),
                State::Pending => self.do_init(cx),
                State::File => self.do_file(cx),
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

    /// The connection this transfer set up is no longer being set up (connected, or given
    /// up): transfers waiting for it look again once it shows what it speaks.
    fn settle_pending(&mut self, cx: &mut Cx<'_>) {
        let connecting = matches!(
            self.state,
            State::Resolving { .. }
                | State::Connecting { .. }
                | State::TlsConnect { .. }
                | State::Tunnel
                | State::TunnelSkip
                | State::SocksResolving { .. }
                | State::Socks
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
        if limit == 0 || time.is_zero() || !matches!(self.state, State::Send | State::Recv) {
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
        if max == (0, 0) || !matches!(self.state, State::Send | State::Recv) {
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
            let connecting = matches!(
                self.state,
                State::Init
                    | State::Resolving { .. }
                    | State::Connecting { .. }
                    | State::Tunnel
                    | State::TunnelSkip
                    | State::SocksResolving { .. }
                    | State::Socks
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
        if self.timers.expired(TimerId::Expect100, now) && self.up.await_continue {
            self.timers.clear(TimerId::Expect100);
            self.up.await_continue = false;
            self.verbose("Done waiting for 100-continue");
            if matches!(self.state, State::Recv)
                && self.resp.phase == Phase::Head
                && self.resp.raw_bytes == 0
            {
                self.state = State::Send;
            }
        }
        Ok(())
    }

    fn url_flags(&self) -> Flags {
        Flags {
            guess_scheme: self.opts.default_protocol.is_none(),
            default_scheme: false,
            non_support_scheme: true,
            path_as_is: self.opts.path_as_is,
            disallow_user: self.opts.disallow_username_in_url,
            allow_space: self.opts.url_allow_space,
            ..Flags::default()
        }
    }

    /// curl's `findprotocol` check: `CURLOPT_PROTOCOLS_STR` always, and on a redirect also
    /// `CURLOPT_REDIR_PROTOCOLS_STR` (default http, https, ftp, ftps).
    fn protocol_allowed(&self, scheme: &str) -> bool {
        let has = |l: &[String]| l.iter().any(|p| p.eq_ignore_ascii_case(scheme));
        if let Some(l) = &self.opts.allowed_protocols {
            if !has(l) {
                return false;
            }
        }
        if self.redirected {
            return match &self.opts.redir_protocols {
                Some(l) => has(l),
                None => crate::scheme::find(scheme)
                    .is_some_and(|s| s.protocol & crate::scheme::proto::REDIR_DEFAULT != 0),
            };
        }
        true
    }

    fn do_init(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        // curl refuses to resume a POST of fields or a form before doing anything.
        if self.opts.resume_from > 0 && matches!(self.body, Body::Fields(_) | Body::Mime(_)) {
            return Err(Error::code(Code::FailedInit));
        }
        if self.url.is_none() {
            if let Some(t) = self.opts.timeout {
                self.timers.set(TimerId::Timeout, self.started + t);
            }
            let raw = self.opts.url.as_deref().unwrap_or_default();
            if raw.is_empty() {
                return Err(Error::new(Code::UrlMalformat, "No URL set"));
            }
            // CURLINFO_EFFECTIVE_URL is the URL as set until it parses.
            raw.clone_into(&mut self.info.effective_url);
            let input: std::borrow::Cow<'_, str> = match &self.opts.default_protocol {
                Some(p) if !raw.contains("://") => format!("{p}://{raw}").into(),
                _ => raw.into(),
            };
            let url = Url::parse(&input, self.url_flags()).map_err(|e| {
                // curl's Curl_uc_to_curlcode: credentials where they are prohibited is 67.
                let code = if e == oxcurl_urlapi::UrlError::UserNotAllowed {
                    Code::LoginDenied
                } else {
                    Code::UrlMalformat
                };
                Error::new(code, format!("URL rejected: {}", e.message()))
            })?;
            let mut url = url;
            if let Some(port) = self.opts.port {
                // Only the first request: a redirect goes where the Location says.
                let shown = match &self.opts.url_shown {
                    Some(s) => s.clone(),
                    None => url.to_url_string(),
                };
                url.set(Part::Port, Some(&port.to_string()), self.url_flags())
                    .map_err(|e| Error::new(Code::UrlMalformat, e.message()))?;
                self.port_set = Some((url.clone(), shown));
            } else if let Some(shown) = &self.opts.url_shown {
                self.port_set = Some((url.clone(), shown.clone()));
            }
            self.url = Some(Arc::new(url));
            for entry in self.opts.resolve.clone() {
                match dns::parse_resolve_text(&entry) {
                    Ok(Some(((host, port, addrs), _))) if addrs.is_empty() => {
                        cx.resolver.remove(&host, port);
                    }
                    Ok(Some(((host, port, addrs), text))) => {
                        if cx.resolver.contains(&host, port) {
                            self.verbose(&format!(
                                "RESOLVE {host}:{port} - old addresses discarded"
                            ));
                        }
                        cx.resolver.insert(&host, port, addrs, cx.now);
                        let tail = if entry.starts_with('+') {
                            " (non-permanent)"
                        } else {
                            ""
                        };
                        self.verbose(&format!("Added {host}:{port}:{text} to DNS cache{tail}"));
                        if host == "*" {
                            self.verbose(&format!("RESOLVE *:{port} using wildcard"));
                            self.wildcard_resolve = true;
                        }
                    }
                    Ok(None) => {}
                    Err(illegal) => {
                        if let Some(a) = illegal {
                            self.verbose(&format!("Resolve address '{a}' found illegal"));
                        }
                        return Err(Error::new(
                            Code::SetoptOptionSyntax,
                            format!("Couldn't parse CURLOPT_RESOLVE entry '{entry}'"),
                        ));
                    }
                }
            }
        }
        self.start_cookies(cx);
        let mut url = self.url.clone().expect("url set");
        // curl's parseurlandfillconn, for every URL (redirects too).
        if url.host().len() > MAX_URL_LEN {
            return Err(Error::new(
                Code::UrlMalformat,
                format!("Too long hostname (maximum is {MAX_URL_LEN})"),
            ));
        }
        if let Some(f) = &self.opts.hsts_file {
            let now = crate::parsedate::unix_now();
            cx.hsts.load(f, now);
            // curl's Curl_pretransfer: the files, then the application's entries.
            if !std::mem::replace(&mut self.hsts_pulled, true) {
                loop {
                    match self.callbacks.hsts_read() {
                        crate::hsts::HstsPull::Entry(e) => cx.hsts.add_entry(&e),
                        crate::hsts::HstsPull::Done => break,
                        crate::hsts::HstsPull::Fail => {
                            return Err(Error::code(Code::AbortedByCallback))
                        }
                    }
                }
            }
            if url.scheme() == "http" {
                let host = url.host_punycode().unwrap_or_default();
                if cx.hsts.is_sts_host(&host, now)
                    && Arc::make_mut(&mut url)
                        .set(Part::Scheme, Some("https"), Flags::default())
                        .is_ok()
                {
                    self.url = Some(url.clone());
                    let msg = format!(
                        "Switched from HTTP to HTTPS due to HSTS => {}",
                        url.to_url_string()
                    );
                    self.verbose(&msg);
                }
            }
        }
        if let Some(f) = &self.opts.altsvc_file {
            cx.altsvc.load(f);
        }
        // Set before the scheme is checked: a URL curl cannot use still shows in %{urle.*}.
        self.info.effective_url = match &self.port_set {
            Some((set, shown)) if *set == *url => shown.clone(),
            _ => url.to_url_string(),
        };
        let scheme = url.scheme();
        if !self.protocol_allowed(scheme) {
            let tail = if self.info.redirect_count > 0 {
                " (in redirect)"
            } else {
                ""
            };
            return Err(Error::new(
                Code::UnsupportedProtocol,
                format!("Protocol \"{scheme}\" disabled{tail}"),
            ));
        }
        // The scheme table names the handler serving the scheme.
        let scheme: &'static str = match crate::scheme::find(scheme) {
            Some(s) if s.handler == Some(HandlerKind::Http) => s.name,
            Some(s) if s.handler == Some(HandlerKind::File) => return self.file_start(cx, &url),
            _ => {
                return Err(Error::new(
                    Code::UnsupportedProtocol,
                    format!("Protocol \"{scheme}\" not supported"),
                ))
            }
        };
        let host = url.host_punycode().map(|h| h.into_owned()).map_err(|e| {
            Error::new(Code::UrlMalformat, format!("URL rejected: {}", e.message()))
        })?;
        let port = url.port_or_default();
        if self.first_origin.is_none() {
            self.first_origin = Some((scheme, host.to_ascii_lowercase(), port));
        }
        self.info.scheme = scheme.to_string();
        self.method = self.request_method();
        self.find_credentials(&url)?;
        if let Body::Mime(m) = &self.body {
            // A fresh reader per request: redirects and auth retries send it again.
            let custom = request::custom_mime_type(&self.opts.headers);
            let (r, size) = m.reader_as(custom).map_err(|e| match e {
                // curl's cr_mime_rewind, for a body sent before.
                crate::mime::MimeError::Rewind => {
                    Error::new(Code::SendFailRewind, "Cannot rewind mime/post data")
                }
                _ => Error::new(
                    Code::ReadError,
                    "Failed to open/read local data from file/application",
                ),
            })?;
            self.mime = Some(r);
            self.mime_size = size;
        }

        self.select_proxy(scheme, &host)?;
        if !self.tunnel_again {
            if let Some((th, tp)) = self.connect_to_target(&host, port)? {
                if !th.is_empty() {
                    self.verbose(&format!("Connecting to hostname: {th}"));
                }
                if let Some(tp) = tp {
                    self.verbose(&format!("Connecting to port: {tp}"));
                }
            }
        }
        self.alt_used = None;
        self.alt_alpn = None;
        let target = self.connect_to_target(&host, port)?;
        let connect_to = self.connect_to_rule(&host, port)?;
        // curl's conn_to_host and conn_to_port, which key TLS sessions made unverified (a
        // proxy tunnels to them too). As in curl, a destination equal to the URL's is none.
        self.conn_to_key.clear();
        fn unbracket(h: &str) -> &str {
            h.trim_start_matches('[').trim_end_matches(']')
        }
        let note_route = |key: &mut String, h: Option<&str>, p: Option<u16>| {
            if let Some(h) = h.map(unbracket).filter(|h| !h.is_empty()) {
                if !h.eq_ignore_ascii_case(unbracket(&host)) {
                    let _ = write!(key, ":CHOST-{h}");
                }
            }
            if let Some(p) = p.filter(|&p| p != port) {
                let _ = write!(key, ":CPORT-{p}");
            }
        };
        if let Some((th, tp)) = &target {
            note_route(&mut self.conn_to_key, Some(th), *tp);
        }
        let (conn_host, conn_port) = match self.preproxy.as_ref().or(self.proxy.as_ref()) {
            Some(p) => (bracket(&p.host), p.port),
            None => match connect_to {
                Some(hp) => hp,
                None => match self.alt_svc_route(cx, scheme, port) {
                    Some((h, p)) => {
                        note_route(&mut self.conn_to_key, Some(&h), Some(p));
                        (h, p)
                    }
                    None => (host.clone(), port),
                },
            },
        };
        self.conn_to_host = (self.preproxy.is_none() && self.proxy.is_none() && conn_host != host)
            .then(|| {
                conn_host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string()
            });
        // scheme://host:port/route[/tls-hash], written into one buffer of the right size.
        let unix = self.opts.unix_socket_path.as_deref();
        let mut key =
            String::with_capacity(64 + host.len() + conn_host.len() + unix.map_or(0, str::len));
        let _ = write!(key, "{scheme}://{host}:{port}/");
        let _ = match unix {
            Some(p) => write!(
                key,
                "unix:{}{}",
                if self.opts.abstract_unix_socket {
                    "@"
                } else {
                    ""
                },
                p
            ),
            None => write!(key, "{conn_host}:{conn_port}"),
        };
        if scheme == "https" {
            // Connections made with other TLS settings are not interchangeable.
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            self.opts.tls.hash(&mut h);
            let _ = write!(key, "/{:x}", h.finish());
        }
        // Absolute-form requests share one proxy connection across origins; a tunnel is
        // bound to its origin. Neither ever serves a direct transfer.
        let proxy_key = self.proxy.as_ref().map(|p| {
            if p.kind.is_https() {
                // Connections to the proxy made with other proxy TLS settings differ too.
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                self.opts.proxy_tls.hash(&mut h);
                format!("{}/{:x}", p.key(), h.finish())
            } else {
                p.key()
            }
        });
        let key = match (&self.proxy, proxy_key) {
            (Some(p), Some(pk)) if p.kind.is_http() && !self.tunnel_wanted => format!("proxy:{pk}"),
            // A tunnel goes where a `--connect-to` rule sends it (curl's conn_to_host and
            // conn_to_port, which its connection reuse compares).
            (Some(_), Some(pk)) => format!("{key}{}|tunnel:{pk}", self.conn_to_key),
            _ => key,
        };
        let key = match &self.preproxy {
            Some(p) => format!("{key}|pre:{}", p.key()),
            None => key,
        };
        let (host, port) = match self.preproxy.as_ref().or(self.proxy.as_ref()) {
            Some(p) => (p.host.clone(), p.port),
            None => (host, port),
        };
        self.find_or_connect(
            cx,
            Target {
                key,
                scheme,
                host,
                port,
                conn_host,
                conn_port,
            },
        )
    }

    /// Waiting for a pending connection: look again.
    fn do_pipewait(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::PipeWait(t) = std::mem::replace(&mut self.state, State::Init) else {
            unreachable!()
        };
        self.find_or_connect(cx, *t)
    }

    /// Reuse a connection for `t`, wait for one being set up, or make a new one.
    fn find_or_connect(&mut self, cx: &mut Cx<'_>, t: Target) -> Result<bool> {
        let Target {
            key,
            scheme,
            host,
            port,
            conn_host,
            conn_port,
        } = t;
        // Counted only under connection limits (no allocation otherwise).
        self.conn_dest = cx.limits.map(|_| format!("{host}:{port}"));
        // FRESH_CONNECT is for the first request only: curl acknowledges it when no
        // redirect or authentication retry was followed yet.
        let fresh = self.opts.fresh_connect && self.info.redirect_count == 0;
        // curl locks a shared pool to prune it, then to search it (not for a fresh or a
        // CONNECT_ONLY connection).
        self.touch_pool();
        // curl's Curl_cpool_prune_dead: dead connections to anywhere, once a second.
        let (max_idle, max_life) = (self.opts.maxage_conn, self.opts.maxlifetime_conn);
        cx.pool.sweep(cx.now, max_idle, max_life, |id, too_old| {
            self.note_dead(id, too_old.as_deref());
        });
        if !fresh && !self.opts.connect_only {
            self.touch_pool();
        }
        if !fresh && !self.opts.connect_only && !std::mem::take(&mut self.fresh_once) {
            match self.find_shared(cx, &key) {
                Lookup::Shared(s) => {
                    let (id, remote, local, chost) = {
                        let mut c = s.lock();
                        c.uses += 1;
                        (c.id, c.remote, c.local, c.host.clone())
                    };
                    self.conn_reused = true;
                    self.set_conn_id(id);
                    self.set_peer(remote);
                    self.info.local_addr = local;
                    self.h2conn = Some(s);
                    let chost = chost.trim_start_matches('[').trim_end_matches(']');
                    self.verbose(&format!(
                        "Re-using existing {scheme}: connection with host {chost}"
                    ));
                    self.start_request(cx);
                    return Ok(true);
                }
                Lookup::Wait => {
                    self.verbose("Waiting on connection to negotiate possible multiplexing.");
                    cx.pool.wait(&self.waker);
                    self.state = State::PipeWait(Box::new(Target {
                        key,
                        scheme,
                        host,
                        port,
                        conn_host,
                        conn_port,
                    }));
                    return Ok(false);
                }
                Lookup::None => {}
            }
            if self.opts.maxage_conn.is_some() || self.opts.maxlifetime_conn.is_some() {
                let old = cx.pool.take_too_old(
                    &key,
                    self.opts.maxage_conn,
                    self.opts.maxlifetime_conn,
                    cx.now,
                );
                for (mut c, note) in old {
                    c.close();
                    self.note_dead(c.id, Some(&note));
                }
            }
            let mut dead = Vec::new();
            let found = cx.pool.take(&key, &mut dead);
            for c in dead {
                // The peer is gone: nothing is sent.
                self.note_dead(c.id, None);
            }
            if let Some(mut c) = found {
                c.uses += 1;
                // Parked connections were removed from the poller: a new identity makes the
                // multi register the socket again.
                c.sock_id = connect::next_sock_id();
                self.conn_reused = true;
                self.set_conn_id(c.id);
                self.set_peer(c.remote);
                self.info.local_addr = c.local;
                let msg = format!(
                    "Re-using existing {scheme}: connection with host {}",
                    c.host.trim_start_matches('[').trim_end_matches(']')
                );
                self.conn = Some(c);
                self.verbose(&msg);
                self.start_request(cx);
                return Ok(true);
            }
        }
        self.conn_reused = false;
        if let (Some(l), Some(dest)) = (cx.limits, self.conn_dest.as_deref()) {
            if let Some(note) = room_for_connection(l, cx.pool, &host, port, dest) {
                // curl's MSTATE_PENDING: the multi runs the transfer again when one of its
                // transfers is done with a connection.
                if !matches!(self.state, State::Pending) {
                    self.verbose(note);
                }
                self.state = State::Pending;
                return Ok(false);
            }
        }
        // NTLM authenticates a connection: on a new one a finished handshake does not count
        // (curl's create_conn), and the scheme is picked again.
        if self.auth.picked & auth::NTLM != 0 && self.auth.done {
            self.verbose("NTLM picked AND auth done set, clear picked");
            self.auth.picked = 0;
            self.auth.done = false;
        }
        if self.proxy_auth.picked & auth::NTLM != 0 && self.proxy_auth.done {
            self.verbose("NTLM-proxy picked AND auth done set, clear picked");
            self.proxy_auth.picked = 0;
            self.proxy_auth.done = false;
        }
        // A new connection joins curl's pool at once.
        self.touch_pool();
        let id = *cx.next_conn_id;
        *cx.next_conn_id += 1;
        cx.pool.pend(&key, id);
        self.pending_conn = Some(id);
        // The id is the connection's from its first attempt on, as curl reports it for a
        // transfer whose connect failed.
        self.set_conn_id(id);
        if let Some(ct) = self.opts.connect_timeout {
            self.timers.set(TimerId::ConnectTimeout, cx.now + ct);
        }
        if let Some(path) = self.socks_unix_path() {
            // curl resolves a SOCKS proxy named `localhost/path` to that Unix socket.
            self.verbose(&format!("  Trying {path}:0..."));
            let s = self.connect_unix(&path, false).map_err(|e| {
                let why = connect::os_error_text(&e);
                self.verbose(&format!("Immediate connect fail for {path}: {why}"));
                connect_failed(&host, port, self.elapsed_ms(cx.now))
            })?;
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.connected(cx, Stream::Unix(s), None, key, host, port)?;
            return Ok(true);
        }
        if let Some(path) = self.opts.unix_socket_path.clone() {
            // curl shows the socket's address: the path, none for an abstract name.
            let shown = self.unix_socket_shown().unwrap_or_default().to_string();
            self.verbose(&format!("  Trying {shown}:0..."));
            let s = self
                .connect_unix(&path, self.opts.abstract_unix_socket)
                .map_err(|e| match e.get_ref() {
                    Some(i) if i.is::<connect::SockoptRefused>() => {
                        sockopt_refused(&host, port, self.elapsed_ms(cx.now))
                    }
                    _ => {
                        let why = connect::os_error_text(&e);
                        self.verbose(&format!("Immediate connect fail for {shown}: {why}"));
                        connect_failed(&host, port, self.elapsed_ms(cx.now))
                    }
                })?;
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.connected(cx, Stream::Unix(s), None, key, host, port)?;
            return Ok(true);
        }
        let lookup_host = conn_host.trim_start_matches('[').trim_end_matches(']');
        // curl's Curl_resolv refuses special-use .onion names (RFC 7686) before any lookup.
        let ends = |suffix: &str| {
            lookup_host.len() >= suffix.len()
                && lookup_host.as_bytes()[lookup_host.len() - suffix.len()..]
                    .eq_ignore_ascii_case(suffix.as_bytes())
        };
        if lookup_host.len() >= 7 && (ends(".onion") || ends(".onion.")) {
            return Err(Error::new(
                Code::CouldntResolveHost,
                "Not resolving .onion address (RFC 7686)",
            ));
        }
        let ttl = self.opts.dns_cache_timeout;
        let cached = cx
            .resolver
            .cached(lookup_host, conn_port, ttl, cx.now)
            .or_else(|| {
                // curl's fetch_addr: a `--resolve *:PORT:...` entry answers any host.
                self.wildcard_resolve
                    .then(|| cx.resolver.cached("*", conn_port, ttl, cx.now))
                    .flatten()
            });
        if let Some(addrs) = cached {
            self.info.time_namelookup = cx.now.duration_since(self.started);
            // Connecting again for a proxy tunnel, curl reuses the addresses it had.
            if !self.tunnel_again {
                self.verbose(&format!("Hostname {lookup_host} was found in DNS cache"));
            }
            self.start_connect(cx, &addrs, &host, port, key);
            return Ok(true);
        }
        // curl's Curl_resolv tells the application before any lookup the cache did not
        // answer, literal addresses included.
        if !self.callbacks.resolver_start() {
            return Err(match self.proxy {
                Some(_) => Error::new(
                    Code::CouldntResolveProxy,
                    format!("Could not resolve proxy: {lookup_host}"),
                ),
                None => Error::new(
                    Code::CouldntResolveHost,
                    format!("Could not resolve host: {lookup_host}"),
                ),
            });
        }
        if let Ok(ip) = lookup_host.parse::<IpAddr>() {
            // curl caches literal addresses too (the next use finds them there).
            let addrs = [SocketAddr::new(ip, conn_port)];
            cx.resolver
                .insert(lookup_host, conn_port, addrs.to_vec(), cx.now);
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.start_connect(cx, &addrs, &host, port, key);
            return Ok(true);
        }
        if let Some(addrs) = dns::localhost_addrs(lookup_host, conn_port) {
            self.info.time_namelookup = cx.now.duration_since(self.started);
            cx.resolver
                .insert(lookup_host, conn_port, addrs.clone(), cx.now);
            self.resolved_notes(lookup_host, conn_port, &addrs);
            self.start_connect(cx, &addrs, &host, port, key);
            return Ok(true);
        }
        let job = cx.resolver.start(lookup_host, conn_port);
        self.pending_key = Some(key);
        self.state = State::Resolving {
            job,
            host: lookup_host.to_string(),
            port: conn_port,
        };
        Ok(false)
    }

    /// curl's `override_login`: the credentials for this URL from `-u`, the URL or `.netrc`.
    fn find_credentials(&mut self, url: &Url) -> Result<()> {
        self.creds_netrc = false;
        let injected = std::mem::take(&mut self.creds_injected);
        if let Some((u, p)) = &self.opts.userpwd {
            self.creds = Some((u.clone(), p.clone()));
            return Ok(());
        }
        if url.user().is_some() && !injected {
            self.url_user = Some(decoded(url, Part::User));
        }
        if url.password().is_some() && !injected {
            self.url_password = Some(decoded(url, Part::Password));
        }
        let mut user = self.url_user.clone();
        let mut pass = self.url_password.clone();
        if self.opts.netrc != NetrcMode::Ignored {
            if self.opts.netrc == NetrcMode::Required {
                pass = None;
            }
            if pass.is_none() {
                let host = self.url_host();
                let file = self.opts.netrc_file.clone().or_else(|| {
                    std::env::var_os("HOME")
                        .map(|h| format!("{}/.netrc", std::path::Path::new(&h).display()))
                });
                let found = match file.as_deref().map(std::fs::File::open) {
                    Some(Ok(f)) => netrc::load(f).and_then(|text| {
                        netrc::lookup(&text, &host, user.as_deref().filter(|u| !u.is_empty()))
                    }),
                    _ => Err(netrc::NetrcError::FileMissing),
                };
                match found {
                    Ok((l, p)) => {
                        if user.as_deref().is_none_or(str::is_empty) {
                            user = Some(l);
                        }
                        pass = Some(p);
                        self.creds_netrc = true;
                    }
                    Err(e)
                        if e == netrc::NetrcError::NoMatch
                            || self.opts.netrc == NetrcMode::Optional =>
                    {
                        let name = self.opts.netrc_file.as_deref().unwrap_or(".netrc");
                        let msg =
                            format!("Couldn't find host {host} in the {name} file; using defaults");
                        self.verbose(&msg);
                    }
                    Err(e) => {
                        return Err(Error::new(
                            Code::ReadError,
                            format!(".netrc error: {}", e.message()),
                        ));
                    }
                }
            }
            if user.is_none() && pass.is_some() {
                user = Some(String::new());
            }
        }
        self.creds = user.map(|u| (u, pass.unwrap_or_default()));
        Ok(())
    }

    fn resolved_notes(&mut self, host: &str, port: u16, addrs: &[SocketAddr]) {
        if !self.opts.verbose {
            return;
        }
        self.verbose(&format!("Host {host}:{port} was resolved."));
        let list = |v6: bool| {
            let v: Vec<String> = addrs
                .iter()
                .filter(|a| a.is_ipv6() == v6)
                .map(|a| a.ip().to_string())
                .collect();
            if v.is_empty() {
                "(none)".to_string()
            } else {
                v.join(", ")
            }
        };
        let (six, four) = (list(true), list(false));
        self.verbose(&format!("IPv6: {six}"));
        self.verbose(&format!("IPv4: {four}"));
    }

    /// Where the first `--connect-to HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` rule matching
    /// `host:port` and naming a host or a port sends the transfer; Err for a target port curl
    /// cannot read (49).
    fn connect_to_rule(&self, host: &str, port: u16) -> Result<Option<(String, u16)>> {
        Ok(self.connect_to_target(host, port)?.map(|(th, tp)| {
            let nh = if th.is_empty() { host.to_string() } else { th };
            (nh, tp.unwrap_or(port))
        }))
    }

    /// The destination of the first `--connect-to` rule for `host:port` that names one (curl's
    /// `parse_connect_to_slist`): its host (empty: the URL's) and port. A rule that names no
    /// destination does not count: the next one is tried.
    fn connect_to_target(&self, host: &str, port: u16) -> Result<Option<(String, Option<u16>)>> {
        for rule in &self.opts.connect_to {
            if let Some((h, p)) = dns::connect_to_match(rule, host, port)? {
                if h.is_some() || p.is_some() {
                    return Ok(Some((h.unwrap_or_default(), p)));
                }
            }
        }
        Ok(None)
    }

    /// A cached alternative for an https origin no `--connect-to` rule redirected (curl's
    /// alt-svc lookup in `parse_connect_to_slist`): the source protocols tried are the one
    /// asked for, else h2 then h1.
    fn alt_svc_route(&mut self, cx: &mut Cx<'_>, scheme: &str, port: u16) -> Option<(String, u16)> {
        use crate::altsvc::Alpn;
        if self.opts.altsvc_file.is_none() || scheme != "https" {
            return None;
        }
        let wishes: &[Alpn] = match self.opts.http_version {
            HttpVersionPref::V1_0 | HttpVersionPref::V1_1 => &[Alpn::H1],
            HttpVersionPref::V2PriorKnowledge => &[Alpn::H2],
            _ => &[Alpn::H2, Alpn::H1],
        };
        let allowed = self.opts.altsvc_ctrl & (Alpn::H1 as u32 | Alpn::H2 as u32);
        let host = self.url_host();
        let now = crate::parsedate::unix_now();
        for &src in wishes {
            let Some(e) = cx.altsvc.lookup(src, &host, port, allowed, now) else {
                continue;
            };
            self.verbose(&format!(
                "Alt-svc connecting from [{}]{host}:{port} to [{}]{}:{}",
                src.name(),
                e.dst_alpn.name(),
                e.dst_host,
                e.dst_port
            ));
            if src != e.dst_alpn {
                self.alt_alpn = Some(e.dst_alpn);
            }
            self.alt_used = Some(format!("{}:{}", e.dst_host, e.dst_port));
            return Some((bracket(&e.dst_host), e.dst_port));
        }
        None
    }

    fn start_connect(
        &mut self,
        cx: &mut Cx<'_>,
        addrs: &[SocketAddr],
        host: &str,
        port: u16,
        key: String,
    ) {
        // Filtered into a copy only when a family is asked for (HappyEyeballs copies them).
        let filtered: Vec<SocketAddr>;
        let addrs = match self.opts.ip_resolve {
            IpResolve::Whatever => addrs,
            want => {
                filtered = addrs
                    .iter()
                    .copied()
                    .filter(|a| match want {
                        IpResolve::Whatever => true,
                        IpResolve::V4 => a.is_ipv4(),
                        IpResolve::V6 => a.is_ipv6(),
                    })
                    .collect();
                &filtered
            }
        };
        let he = HappyEyeballs::new(addrs, cx.now, &self.opts.socket());
        if let Some(t) = he.next_deadline() {
            self.timers.set(TimerId::HappyEyeballs, t);
        }
        self.pending_key = Some(key);
        self.state = State::Connecting {
            he,
            host: host.to_string(),
            port,
        };
    }

    fn do_resolving(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::Resolving {
            job,
            ref host,
            port,
        } = self.state
        else {
            unreachable!()
        };
        let host = host.clone();
        let Some(ans) = cx.resolver.take(job) else {
            return Ok(false);
        };
        let url = self.url.clone().expect("url");
        let (uhost, uport) = match &self.proxy {
            Some(p) => (p.host.clone(), p.port),
            None => (
                url.host_punycode().unwrap_or_default().into_owned(),
                url.port_or_default(),
            ),
        };
        match ans {
            Ok(addrs) if !addrs.is_empty() => {
                self.info.time_namelookup = cx.now.duration_since(self.started);
                cx.resolver.insert(&host, port, addrs.clone(), cx.now);
                self.resolved_notes(&host, port, &addrs);
                let key = self.pending_key.take().unwrap_or_default();
                self.start_connect(cx, &addrs, &uhost, uport, key);
                Ok(true)
            }
            _ if self.proxy.is_some() => Err(Error::new(
                Code::CouldntResolveProxy,
                format!("Could not resolve proxy: {host}"),
            )),
            _ => Err(Error::new(
                Code::CouldntResolveHost,
                format!("Could not resolve host: {host}"),
            )),
        }
    }

    /// `connect::connect_unix` with this transfer's values lent to the socket callbacks.
    fn connect_unix(
        &mut self,
        path: &str,
        abstract_ns: bool,
    ) -> io::Result<std::os::unix::net::UnixStream> {
        let opts = self.opts.socket();
        let mut made = None;
        self.callbacks.lend_info(&self.info, &mut || {
            made = Some(connect::connect_unix(path, abstract_ns, &opts))
        });
        made.unwrap_or_else(|| connect::connect_unix(path, abstract_ns, &opts))
    }

    fn do_connecting(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::Connecting { ref mut he, .. } = self.state else {
            unreachable!()
        };
        let he_port = he.port();
        // The attempts may open sockets: the socket callbacks see this transfer's values.
        let (now, opts, notes) = (cx.now, self.opts.socket(), &mut self.notes);
        let mut polled = None;
        self.callbacks.lend_info(&self.info, &mut || {
            polled = Some(he.poll(now, &opts, notes))
        });
        let r = match polled {
            Some(r) => r,
            None => he.poll(now, &opts, notes),
        };
        let next = he.next_deadline();
        self.flush_notes();
        match next {
            Some(t) => self.timers.set(TimerId::HappyEyeballs, t),
            None => self.timers.clear(TimerId::HappyEyeballs),
        }
        if matches!(r, ConnectPoll::Pending) {
            return Ok(false);
        }
        // The host is copied only once the attempt is over (a wait costs no allocation).
        let State::Connecting { ref host, port, .. } = self.state else {
            unreachable!()
        };
        let host = host.clone();
        match r {
            ConnectPoll::Pending => Ok(false),
            ConnectPoll::Connected(s, addr) => {
                let key = self.pending_key.take().unwrap_or_default();
                self.connected(cx, Stream::Tcp(s), Some(addr), key, host, port)?;
                Ok(true)
            }
            // curl names the host and port it tried: a `--connect-to` destination, an IPv6
            // address without brackets.
            ConnectPoll::Failed(e) => {
                let name = self.conn_to_host.as_deref().unwrap_or(&host);
                let name = name.trim_start_matches('[').trim_end_matches(']');
                let port = he_port.unwrap_or(port);
                let ms = self.elapsed_ms(cx.now);
                if e.get_ref()
                    .is_some_and(|i| i.is::<connect::SockoptRefused>())
                {
                    Err(sockopt_refused(name, port, ms))
                } else if e.get_ref().is_some_and(|i| i.is::<connect::BindFailed>()) {
                    Err(Error::new(Code::InterfaceFailed, e.to_string()))
                } else {
                    Err(connect_failed(name, port, ms))
                }
            }
        }
    }

    fn connected(
        &mut self,
        cx: &mut Cx<'_>,
        stream: Stream,
        remote: Option<SocketAddr>,
        key: String,
        host: String,
        port: u16,
    ) -> Result<()> {
        let local = match &stream {
            Stream::Tcp(s) => s.local_addr().ok(),
            Stream::Unix(_) | Stream::Closed => None,
        };
        let id = match self.pending_conn {
            Some(id) => id,
            None => {
                let id = *cx.next_conn_id;
                *cx.next_conn_id += 1;
                id
            }
        };
        // A proxy handshake is still part of connecting.
        if self.proxy.is_none() {
            self.timers.clear(TimerId::ConnectTimeout);
        }
        self.timers.clear(TimerId::HappyEyeballs);
        self.info.num_connects += 1;
        self.set_peer(remote);
        self.info.local_addr = local;
        self.set_conn_id(id);
        self.info.time_connect = cx.now.duration_since(self.started);
        self.info.time_appconnect = Duration::ZERO;
        self.haproxy = None;
        self.conn = Some(Conn {
            id,
            sock_id: connect::next_sock_id(),
            stream,
            tls: None,
            proxy_tls: None,
            tunnel: None,
            key,
            host,
            port,
            remote,
            local,
            uses: 1,
            http10: false,
            h2: None,
            version_seen: false,
            idle_since: cx.now,
            created: cx.now,
            hooks: self.opts.socket_hooks.clone(),
        });
        if self.socks_proxy().is_some() {
            return self.start_socks(cx);
        }
        if self.https_proxy() {
            return self.start_proxy_tls(cx);
        }
        if self.tunnel_wanted {
            self.start_tunnel();
            return Ok(());
        }
        self.origin_ready(cx)
    }

    /// Everything below the origin's TLS is up (socket, SOCKS, proxy TLS, tunnel): send the
    /// PROXY line when asked (curl's HAProxy filter sits here), then TLS to the origin or the
    /// request.
    fn origin_ready(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let wanted = self.opts.haproxy_protocol || self.opts.haproxy_client_ip.is_some();
        if wanted && self.haproxy.is_none() {
            let c = self.conn.as_ref().expect("conn");
            let line = match (c.local, c.remote, &self.opts.unix_socket_path) {
                (Some(l), Some(r), None) => format!(
                    "PROXY {} {} {} {} {}\r\n",
                    if r.is_ipv6() { "TCP6" } else { "TCP4" },
                    self.opts
                        .haproxy_client_ip
                        .clone()
                        .unwrap_or_else(|| l.ip().to_string()),
                    r.ip(),
                    l.port(),
                    r.port()
                ),
                _ => "PROXY UNKNOWN\r\n".to_string(),
            };
            self.haproxy = Some((line.into_bytes(), 0));
            self.state = State::HaProxy;
            return Ok(());
        }
        if self.info.scheme == "https" {
            return self.start_tls(cx);
        }
        self.established(cx);
        Ok(())
    }

    fn do_haproxy(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let (line, mut sent) = self.haproxy.take().expect("haproxy line");
        let conn = self.conn.as_mut().expect("conn");
        let r = loop {
            if sent == line.len() {
                break conn.flush();
            }
            match conn.send(&line[sent..]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let done = sent == line.len();
        self.haproxy = Some((line, sent));
        match r {
            Ok(()) if done => {
                self.origin_ready(cx)?;
                Ok(true)
            }
            Ok(()) => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) => Err(send_error(&e)),
        }
    }

    /// The `--unix-socket` address as curl shows it: the path, or nothing for an abstract
    /// name.
    fn unix_socket_shown(&self) -> Option<&str> {
        let path = self.opts.unix_socket_path.as_deref()?;
        Some(if self.opts.abstract_unix_socket {
            ""
        } else {
            path
        })
    }

    /// The connection is ready for requests (after TLS for https).
    fn established(&mut self, cx: &mut Cx<'_>) {
        if self.opts.verbose {
            let c = self.conn.as_ref().expect("conn");
            let ip = c
                .remote
                .map(|a| a.ip().to_string())
                .unwrap_or_else(|| "".into());
            let host = self.conn_to_host.as_deref().unwrap_or(&c.host);
            let host = host.trim_start_matches('[').trim_end_matches(']');
            let msg = match (self.unix_socket_shown(), self.socks_unix_path()) {
                (Some(p), _) => format!("Connected to {host} ({p}) port 0"),
                // curl's peer of a Unix socket has the path for address and no port.
                (None, Some(p)) => format!("Connected to {host} ({p}) port 0"),
                // The port connected to, which a `--connect-to` rule may have changed.
                (None, None) => {
                    let port = c.remote.map_or(c.port, |a| a.port());
                    format!("Connected to {host} ({ip}) port {port}")
                }
            };
            self.verbose(&msg);
        }
        if self.opts.connect_only {
            self.connect_only_done(cx);
            return;
        }
        // curl names HTTP/2 here only when ALPN chose it, not for prior knowledge.
        let alpn_h2 = self.h2_negotiate(cx);
        self.verbose(if alpn_h2 {
            "using HTTP/2"
        } else {
            "using HTTP/1.x"
        });
        self.start_request(cx);
    }

    /// Is the cookie engine on for this transfer (`CURLOPT_COOKIEFILE` or `COOKIEJAR` set)?
    fn cookie_engine(&self) -> bool {
        !self.opts.cookie_files.is_empty() || self.opts.cookie_jar.is_some()
    }

    /// Turn the multi's cookie engine on and read the files this transfer names that were
    /// not read yet.
    fn start_cookies(&mut self, cx: &mut Cx<'_>) {
        if !self.cookie_engine() {
            return;
        }
        let now = crate::parsedate::unix_now();
        let jar = cx
            .cookies
            .jar
            .get_or_insert_with(crate::cookie::CookieJar::new);
        jar.set_new_session(self.opts.cookie_session);
        for f in &self.opts.cookie_files {
            if f.is_empty() || cx.cookies.loaded.contains(f) {
                continue;
            }
            cx.cookies.loaded.push(f.clone());
            jar.load_file(f, now);
        }
        if let Some(j) = &self.opts.cookie_jar {
            if !cx.cookies.save_to.contains(j) {
                cx.cookies.save_to.push(j.clone());
            }
        }
    }

    /// Host, path and secure-context of the current request, as cookies see them.
    fn cookie_target(&self) -> (String, String, bool) {
        let url = self.url.as_ref().expect("url");
        let host = match request::custom_value(&self.opts.headers, "Host") {
            Some(h) => {
                // The name part of a custom Host header.
                let h = h.trim();
                if let Some(rest) = h.strip_prefix('[') {
                    rest.split(']').next().unwrap_or("").to_string()
                } else {
                    h.split(':').next().unwrap_or("").to_string()
                }
            }
            None => self.url_host(),
        };
        let secure = crate::cookie::secure_context(url.scheme() == "https", &host);
        (host, url.path().to_string(), secure)
    }

    /// Hand the `Set-Cookie:` headers of the response to the jar.
    fn store_cookies(&mut self, cx: &mut Cx<'_>) {
        let values = std::mem::take(&mut self.pending_cookies);
        let Some(jar) = cx.cookies.jar.as_mut() else {
            return;
        };
        let (host, path, secure) = self.cookie_target();
        let now = crate::parsedate::unix_now();
        let mut notes = Vec::new();
        for v in &values {
            let info = match jar.add_set_cookie(v, &host, &path, secure, now) {
                Ok(stored) => stored.info,
                Err(rej) => rej.info(),
            };
            notes.extend(info);
        }
        for n in notes {
            self.verbose(&n);
        }
    }

    /// The URL's host in punycode, an IPv6 address without its brackets: the name TLS and
    /// cookies use.
    /// An `Alt-Svc:` header of this origin's response into the multi's cache.
    fn store_altsvc(&mut self, cx: &mut Cx<'_>, value: &[u8]) {
        use crate::altsvc::Alpn;
        let src = if self.resp.version == HttpVersion::V2 {
            Alpn::H2
        } else {
            Alpn::H1
        };
        let host = self.url_host();
        let port = self.url.as_ref().map_or(0, |u| u.port_or_default());
        let now = crate::parsedate::unix_now();
        for n in cx.altsvc.on_header(value, src, &host, port, now) {
            self.verbose(&n);
        }
    }

    fn url_host(&self) -> String {
        let h = self
            .url
            .as_ref()
            .and_then(|u| u.host_punycode().ok())
            .unwrap_or_default();
        h.trim_start_matches('[').trim_end_matches(']').to_string()
    }

    /// The ALPN protocols offered, in curl's order.
    fn alpn_offer(&self) -> &'static [&'static [u8]] {
        if !self.opts.tls.alpn {
            &[]
        } else {
            match self.opts.http_version {
                HttpVersionPref::V1_0 => &[b"http/1.0"],
                HttpVersionPref::V1_1 => &[b"http/1.1"],
                HttpVersionPref::V2PriorKnowledge => &[b"h2"],
                // A cached alternative on another protocol asks for only that one.
                _ if self.alt_alpn == Some(crate::altsvc::Alpn::H1) => &[b"http/1.1"],
                _ if self.alt_alpn == Some(crate::altsvc::Alpn::H2) => &[b"h2"],
                _ if self.proxy.as_ref().is_some_and(|p| p.kind.is_http())
                    && !self.tunnel_wanted =>
                {
                    &[b"http/1.1"]
                }
                // The application speaks on the connection itself.
                _ if self.opts.connect_only => &[b"http/1.1"],
                _ => &[b"h2", b"http/1.1"],
            }
        }
    }

    fn start_tls(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let alpn = self.alpn_offer();
        let config = cx.tls.config(&self.opts.tls, alpn)?;
        let host = self.url_host();
        let sni = host.split('%').next().unwrap_or(&host).to_string();
        let conn = self.conn.as_ref().expect("conn");
        let port = self.url.as_ref().map_or(0, |u| u.port_or_default());
        let peer = self.tls_peer_key(&sni, port, &self.opts.tls);
        let mut session = crate::tls::Session::new(
            &config,
            &sni,
            &peer,
            &conn.stream,
            &self.opts.tls,
            conn.proxy_tls.is_some() || conn.tunnel.is_some(),
        )?;
        let opts = self.opts.tls.clone();
        // `--tls-earlydata` on a resumed session that allows it: the connection counts as
        // connected now and the first send carries the request with the ClientHello
        // (curl's deferred handshake; never for a connect-only transfer).
        // Not yet for a session that had agreed on h2: curl sends its first frames and the
        // request's HEADERS as early data, which takes gathering h2's first writes.
        let early = if opts.earlydata && !self.opts.connect_only {
            let offer: Vec<&[u8]> = alpn.iter().copied().filter(|p| *p != b"h2").collect();
            session.defer_for_early_data(&offer)
        } else {
            None
        };
        // Deferred, curl does not write its ALPN offer but what it goes on with.
        self.tls_notes(
            if early.is_some() { &[] } else { alpn },
            &opts,
            &mut session,
        );
        self.conn.as_mut().expect("conn").tls = Some(Box::new(session));
        if let Some((_, p)) = early {
            self.verbose(&format!(
                "ALPN: deferred handshake for early data using '{}'.",
                String::from_utf8_lossy(&p)
            ));
            self.established(cx);
            return Ok(());
        }
        self.state = State::TlsConnect {
            want_write: true,
            proxy: false,
        };
        Ok(())
    }

    /// What the OpenSSL backend keeps a peer's sessions under (curl's session cache key):
    /// `host:port`, and for a connection made without verification the `--connect-to` or
    /// alt-svc destination. Empty for rustls, which keys its own.
    fn tls_peer_key(&self, sni: &str, port: u16, opts: &crate::tls::TlsOptions) -> String {
        if crate::tls::backend() == crate::tls::Backend::Rustls {
            return String::new();
        }
        let unverified = !opts.verify_peer || !opts.verify_host;
        let extra = if unverified { &*self.conn_to_key } else { "" };
        format!("{sni}:{port}{extra}")
    }

    /// Is the handshake of the transfer's connection deferred for early data?
    fn early_pending(&self) -> bool {
        self.conn
            .as_ref()
            .and_then(|c| c.tls.as_ref())
            .is_some_and(|t| t.early_pending())
    }

    /// A handshake deferred for early data ended in a send, or failed: its verify result,
    /// and what the session noted when there was no trace to carry it.
    fn early_handshake_notes(&mut self) {
        let Some(tls) = self.conn.as_mut().and_then(|c| c.tls.as_mut()) else {
            return;
        };
        let code = tls.verify_result();
        let notes = tls.take_notes();
        self.info.ssl_verify_result = code;
        for n in notes {
            self.verbose(&n);
        }
    }

    /// A handshake deferred for early data ended in a send: what ending a handshake does
    /// ([`Self::do_tls_connect`]), and curl's note on the early data.
    /// True when it did (the request then goes on).
    fn early_handshake_done(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let Some(tls) = self.conn.as_mut().and_then(|c| c.tls.as_mut()) else {
            return Ok(false);
        };
        let Some(n) = tls.take_early_outcome() else {
            return Ok(false);
        };
        self.early_handshake_notes();
        self.info.time_appconnect = cx.now.duration_since(self.started);
        self.tls_established(false, true)?;
        self.info.earlydata_sent = n;
        if n >= 0 {
            self.verbose(&format!("Server accepted {n} bytes of TLS early data."));
        } else {
            self.verbose("Server rejected TLS early data.");
        }
        Ok(true)
    }

    /// Is the proxy of this transfer an HTTPS proxy (TLS to the proxy first)?
    fn https_proxy(&self) -> bool {
        self.proxy.as_ref().is_some_and(|p| p.kind.is_https())
    }

    /// The ALPN protocols offered to an HTTPS proxy: curl offers them only when the
    /// transfer itself is https (tunnelled); absolute-form requests go without ALPN. With
    /// `--proxy-http2` (`CURLPROXY_HTTPS2`) h2 comes first, always.
    fn proxy_alpn_offer(&self) -> &'static [&'static [u8]] {
        if self
            .proxy
            .as_ref()
            .is_some_and(|p| p.kind == crate::proxy::ProxyKind::Https2)
        {
            &[b"h2", b"http/1.1"]
        } else if self.info.scheme == "https" && self.opts.tls.alpn {
            &[b"http/1.1"]
        } else {
            &[]
        }
    }

    /// Start TLS with the HTTPS proxy on the fresh connection (SNI: the proxy's name).
    fn start_proxy_tls(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let alpn = self.proxy_alpn_offer();
        let config = cx.tls.config(&self.opts.proxy_tls, alpn)?;
        let host = self
            .proxy
            .as_ref()
            .map(|p| p.host.clone())
            .unwrap_or_default();
        let port = self.proxy.as_ref().map_or(0, |p| p.port);
        let sni = host.split('%').next().unwrap_or(&host).to_string();
        let conn = self.conn.as_ref().expect("conn");
        let peer = self.tls_peer_key(&sni, port, &self.opts.proxy_tls);
        let mut session = crate::tls::Session::new(
            &config,
            &sni,
            &peer,
            &conn.stream,
            &self.opts.proxy_tls,
            false,
        )?;
        let opts = self.opts.proxy_tls.clone();
        self.tls_notes(alpn, &opts, &mut session);
        self.conn.as_mut().expect("conn").proxy_tls = Some(Box::new(session));
        self.state = State::TlsConnect {
            want_write: true,
            proxy: true,
        };
        Ok(())
    }

    /// curl's `-v` lines before a handshake: what the backend wrote setting the session up
    /// (with an `SSL_CTX` hook, the CA store it filled first), the ALPN offer and, with
    /// rustls, the CA locations.
    fn tls_notes(
        &mut self,
        alpn: &[&[u8]],
        opts: &crate::tls::TlsOptions,
        session: &mut crate::tls::Session,
    ) {
        let early = session.take_notes();
        if !self.opts.verbose {
            return;
        }
        for n in &early {
            self.verbose(n);
        }
        if !alpn.is_empty() {
            let offer: Vec<&str> = alpn
                .iter()
                .map(|a| std::str::from_utf8(a).unwrap_or(""))
                .collect();
            self.verbose(&format!("ALPN: curl offers {}", offer.join(",")));
        }
        // The OpenSSL backend writes these itself, once the ClientHello is out, as curl's
        // does ([`crate::tls::Session::take_notes`]).
        if opts.verify_peer && crate::tls::backend() == crate::tls::Backend::Rustls {
            // A CA blob replaces the file (curl's populate_x509_store).
            let ca = match opts.ca_blob {
                Some(_) => vec![
                    "successfully imported CA certificate blob".to_string(),
                    " CAfile: none".to_string(),
                    format!(" CApath: {}", opts.effective_capath()),
                ],
                None => vec![
                    format!(" CAfile: {}", opts.effective_cafile()),
                    format!(" CApath: {}", opts.effective_capath()),
                ],
            };
            for l in &ca {
                self.verbose(l);
            }
        }
    }

    /// curl's `ossl_trace`: with `-v` and a debug callback, OpenSSL's handshake messages,
    /// alerts and record headers are written as they pass (`Conn::trace_on`).
    pub(super) fn tls_trace_wanted(&self) -> bool {
        self.opts.verbose
            && crate::tls::backend() == crate::tls::Backend::OpenSsl
            && self.callbacks.has_debug_callback()
    }

    /// [`Self::tls_trace_wanted`] on a connection with TLS.
    fn tls_trace_on(&self) -> bool {
        self.tls_trace_wanted()
            && self
                .conn
                .as_ref()
                .is_some_and(|c| c.tls.is_some() || c.proxy_tls.is_some())
    }

    /// Turn on the TLS trace of the transfer's connection for the calls to come.
    fn tls_trace_start(&mut self) {
        if let Some(c) = self.conn.as_mut() {
            c.trace_on();
        }
    }

    /// Turn the trace of the transfer's connection off and write what it kept.
    fn tls_trace_end(&mut self) {
        let events = self
            .conn
            .as_mut()
            .map(|c| c.trace_take())
            .unwrap_or_default();
        self.tls_trace_emit(events);
    }

    /// Write what a connection's TLS trace kept ([`crate::conn::Conn::trace_take`]): the
    /// messages and the backend's notes, in the order they came.
    pub(super) fn tls_trace_emit(&mut self, events: Vec<crate::tls::TraceEvent>) {
        for e in events {
            if let Some(t) = &e.text {
                self.verbose(t);
            }
            if e.bytes.is_empty() {
                continue;
            }
            let kind = if e.out {
                InfoType::SslDataOut
            } else {
                InfoType::SslDataIn
            };
            self.callbacks.debug_live(kind, &e.bytes, &self.info);
        }
    }

    fn do_tls_connect(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::TlsConnect { proxy, .. } = self.state else {
            unreachable!()
        };
        let trace = self.tls_trace_on();
        if trace {
            self.tls_trace_start();
        }
        let conn = self.conn.as_mut().expect("conn");
        let inner = !proxy && (conn.proxy_tls.is_some() || conn.tunnel.is_some());
        let step = conn.handshake();
        // CURLINFO_(PROXY_)SSL_VERIFYRESULT: what the session checking the certificate came
        // to, also when the handshake failed over it.
        let session = if proxy { &conn.proxy_tls } else { &conn.tls };
        if let Some(code) = session.as_ref().map(|t| t.verify_result()) {
            if proxy {
                self.info.proxy_ssl_verify_result = code;
            } else {
                self.info.ssl_verify_result = code;
            }
        }
        if trace {
            self.tls_trace_end();
        } else {
            let conn = self.conn.as_mut().expect("conn");
            let session = if proxy {
                &mut conn.proxy_tls
            } else {
                &mut conn.tls
            };
            let notes = session.as_mut().map(|t| t.take_notes()).unwrap_or_default();
            for n in notes {
                self.verbose(&n);
            }
        }
        let step = step.map_err(|e| {
            if inner {
                crate::tls::inner_handshake_error(e)
            } else {
                e
            }
        })?;
        match step {
            crate::tls::Handshake::WantRead => {
                self.state = State::TlsConnect {
                    want_write: false,
                    proxy,
                };
                return Ok(false);
            }
            crate::tls::Handshake::WantWrite => {
                self.state = State::TlsConnect {
                    want_write: true,
                    proxy,
                };
                return Ok(false);
            }
            crate::tls::Handshake::Done => {}
        }
        if proxy {
            self.tls_established(true, false)?;
            if self.tunnel_wanted && self.proxy_speaks_h2() {
                self.start_h2_tunnel()?;
            } else if self.tunnel_wanted {
                self.start_tunnel();
            } else {
                self.timers.clear(TimerId::ConnectTimeout);
                self.info.time_appconnect = cx.now.duration_since(self.started);
                self.origin_ready(cx)?;
            }
            return Ok(true);
        }
        self.info.time_appconnect = cx.now.duration_since(self.started);
        self.tls_established(false, false)?;
        self.established(cx);
        Ok(true)
    }

    /// After a handshake (with the proxy or the origin): the pinned key check, `-v` lines.
    /// `early`: the handshake was deferred for early data, its ALPN asked for from the
    /// resumed session (and checked by the session).
    fn tls_established(&mut self, proxy: bool, early: bool) -> Result<()> {
        let conn = self.conn.as_ref().expect("conn");
        let tls = if proxy {
            conn.proxy_tls.as_ref().expect("proxy tls")
        } else {
            conn.tls.as_ref().expect("tls")
        };
        let opts = if proxy {
            &self.opts.proxy_tls
        } else {
            &self.opts.tls
        };
        if self.opts.certinfo {
            // As curl, the proxy's handshake fills it too, and the origin's replaces it.
            self.info.certinfo = tls
                .peer_chain_der()
                .iter()
                .map(|c| crate::tls::certinfo::certinfo(c))
                .collect();
        }
        let certs = tls.chain_der();
        // After a resumed OpenSSL handshake there is no chain, only the session's leaf.
        let leaf_der = certs.first().cloned().or_else(|| tls.leaf_der());
        if let Some(pin) = opts.pinned_pubkey.clone() {
            let spki = leaf_der
                .as_deref()
                .and_then(|c| crate::tls::x509::Cert::parse(c).map(|c| c.spki_der().to_vec()))
                .unwrap_or_default();
            if !crate::tls::pin::matches(&pin, &spki) {
                return Err(Error::new(
                    Code::SslPinnedpubkeynotmatch,
                    "SSL: public key does not match pinned public key",
                ));
            }
        }
        if !self.opts.verbose {
            return Ok(());
        }
        let mut lines = vec![tls.connection_summary()];
        let offered = if proxy {
            !self.proxy_alpn_offer().is_empty()
        } else {
            !self.alpn_offer().is_empty()
        };
        if offered {
            lines.push(match tls.alpn() {
                Some(p) if early => {
                    format!(
                        "ALPN: server confirmed to use '{}'",
                        String::from_utf8_lossy(p)
                    )
                }
                Some(p) => format!("ALPN: server accepted {}", String::from_utf8_lossy(p)),
                None => "ALPN: server did not agree on a protocol. Uses default.".into(),
            });
        }
        let host = if proxy {
            self.proxy
                .as_ref()
                .map(|p| p.host.clone())
                .unwrap_or_default()
        } else {
            self.url_host()
        };
        let (verify_host, verify_peer) = (opts.verify_host, opts.verify_peer);
        if let Some(leaf) = leaf_der.as_deref().and_then(crate::tls::x509::Cert::parse) {
            lines.push(if proxy {
                "Proxy certificate:".into()
            } else {
                "Server certificate:".into()
            });
            lines.push(format!(" subject: {}", leaf.subject()));
            lines.push(format!(" start date: {}", leaf.start_date()));
            lines.push(format!(" expire date: {}", leaf.expire_date()));
            if verify_host {
                if let Some(m) = crate::tls::x509::san_match(&leaf, &host) {
                    lines.push(format!(" subjectAltName: {m}"));
                }
            }
            lines.push(format!(" issuer: {}", leaf.issuer()));
            // curl's OpenSSL backend: with -k the chain's result is told and let pass.
            let code = tls.verify_result();
            if verify_peer || code == 0 {
                lines.push(" SSL certificate verify ok.".into());
            } else {
                lines.push(format!(
                    " SSL certificate verify result: {} ({code}), continuing anyway.",
                    crate::tls::verify_error_text(code)
                ));
            }
        }
        for (i, c) in certs.iter().enumerate() {
            if let Some(c) = crate::tls::x509::Cert::parse(c) {
                lines.push(format!(
                    "  Certificate level {i}: Public key type {}, signed using {}",
                    c.key_summary(),
                    c.signature_name()
                ));
            }
        }
        for l in &lines {
            self.verbose(l);
        }
        Ok(())
    }

    /// Decide the proxy for the current URL (options, then environment, minus `no_proxy`).
    fn select_proxy(&mut self, scheme: &str, host: &str) -> Result<()> {
        use crate::proxy;
        self.proxy = None;
        self.preproxy = None;
        self.tunnel_wanted = false;
        self.info.used_proxy = false;
        if self.opts.unix_socket_path.is_some() {
            return Ok(());
        }
        let env = |k: &str| std::env::var(k).ok();
        let Some(s) = proxy::select(
            self.opts.proxy.as_deref(),
            self.opts.noproxy.as_deref(),
            scheme,
            host,
            &env,
        ) else {
            return Ok(());
        };
        let mut p = proxy::parse_with_port(&s, self.opts.proxy_type, self.opts.proxy_port)?;
        self.info.used_proxy = true;
        if let Some(c) = &self.opts.proxy_userpwd {
            p.creds = Some(c.clone());
        }
        // A --connect-to destination is reached through a tunnel (curl's create_conn).
        let port = self.url.as_ref().map_or(0, |u| u.port_or_default());
        self.tunnel_wanted = p.kind.is_http()
            && (scheme == "https"
                || self.opts.http_proxy_tunnel
                || self.connect_to_rule(host, port).ok().flatten().is_some());
        // CURLINFO_USED_PROXY: this URL goes through a proxy.
        self.info.used_proxy = true;
        if let Some(pre) = self.opts.pre_proxy.as_deref().filter(|s| !s.is_empty()) {
            if p.kind.is_http() {
                let pre = proxy::parse(pre, self.opts.proxy_type)?;
                if pre.kind.is_http() {
                    // curl then talks HTTP proxy to the pre-proxy instead of the proxy.
                    self.proxy = Some(pre);
                    return Ok(());
                }
                self.preproxy = Some(pre);
            }
        }
        self.proxy = Some(p);
        Ok(())
    }

    /// The `Proxy-Authorization` value for a request to the proxy (a CONNECT, or an
    /// absolute-form request), with curl's verbose notes. `custom`: the user sent their own.
    fn proxy_authorization(
        &mut self,
        method: &str,
        path: &str,
        get_or_head: bool,
        custom: bool,
    ) -> Option<Vec<u8>> {
        let creds = self.proxy.as_ref()?.creds.clone();
        let out = self.proxy_auth.output(
            &auth::Request {
                method,
                path,
                get_or_head,
                creds: creds.as_ref().map(|(u, p)| (u.as_str(), p.as_str())),
                bearer: None,
                allowed: true,
                custom_header: custom,
                aws: None,
            },
            random12,
        );
        for n in &out.pre_notes {
            self.verbose(n);
        }
        if let Some(n) = &out.note {
            self.verbose(n);
        }
        out.header
    }

    /// The proxy of this transfer has credentials (`-U` or in the proxy URL).
    fn proxy_has_user(&self) -> bool {
        self.proxy.as_ref().is_some_and(|p| p.creds.is_some())
    }

    /// A request body is held back: the host or the proxy authentication needs a probe.
    fn probing(&self) -> bool {
        self.auth.authneg || self.proxy_auth.authneg
    }

    /// `host:port` a CONNECT asks the proxy for (over HTTP/1.x or HTTP/2): curl tunnels to
    /// the --connect-to destination, not to the URL's host.
    fn tunnel_authority(&self) -> String {
        let url = self.url.as_ref().expect("url");
        let host = url.host_punycode().unwrap_or_default();
        let port = url.port_or_default();
        // A rule curl refuses failed the transfer before any connection.
        let rule = self.connect_to_rule(&host, port).ok().flatten();
        let (host, port) = rule.unwrap_or((host.into_owned(), port));
        if host.contains(':') && !host.starts_with('[') {
            format!("{}:{port}", bracket(&host))
        } else {
            format!("{host}:{port}")
        }
    }

    /// Send CONNECT for the URL's origin over the fresh proxy connection.
    fn start_tunnel(&mut self) {
        let authority = self.tunnel_authority();
        let http10 = self
            .proxy
            .as_ref()
            .is_some_and(|p| p.kind == crate::proxy::ProxyKind::Http10);
        if !std::mem::take(&mut self.tunnel_again) {
            if http10 {
                self.verbose("CONNECT tunnel: HTTP/1.0 negotiated");
            } else {
                self.verbose("CONNECT tunnel: HTTP/1.1 negotiated");
            }
            self.verbose("allocate connect buffer");
        }
        self.tunnel_body = None;
        self.tunnel_chunked = None;
        let custom = request::custom_has(&self.opts.proxy_headers, "Proxy-Authorization");
        let authorization = self.proxy_authorization("CONNECT", &authority, true, custom);
        self.verbose(&format!("Establish HTTP proxy tunnel to {authority}"));
        let req = crate::proto::connect::request(&crate::proto::connect::ConnectRequest {
            authority: &authority,
            http10,
            authorization: authorization.as_deref(),
            useragent: self.opts.useragent.as_deref(),
            headers: &self.opts.proxy_headers,
        });
        // With the TLS trace, the request shows after the record that carried it
        // (`do_tunnel`), as curl's does.
        if self.opts.verbose && !self.tls_trace_on() {
            self.callbacks
                .debug_live(InfoType::HeaderOut, &req, &self.info);
        }
        self.info.request_size += req.len() as u64;
        self.tunnel = Some((crate::proto::connect::Tunnel::new(), req, 0));
        self.state = State::Tunnel;
    }

    /// Drive the CONNECT handshake: send the request, read the reply a byte at a time so
    /// nothing that belongs to the tunnel is consumed.
    fn do_tunnel(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if self.h2connect.is_some() {
            return self.do_h2_tunnel(cx);
        }
        let (mut t, req, mut sent) = self.tunnel.take().expect("tunnel");
        // The HTTPS proxy's records and tickets during CONNECT (curl's `ossl_trace`).
        let trace = self.tls_trace_on();
        if trace && sent < req.len() {
            let first = sent == 0;
            self.tls_trace_start();
            let conn = self.conn.as_mut().expect("conn");
            let mut failed = None;
            while sent < req.len() {
                match conn.send(&req[sent..]) {
                    Ok(n) => sent += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            self.tls_trace_end();
            if first && self.opts.verbose {
                self.callbacks
                    .debug_live(InfoType::HeaderOut, &req, &self.info);
            }
            match failed {
                None => {}
                Some(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.tunnel = Some((t, req, sent));
                    return Ok(false);
                }
                Some(e) => return Err(send_error(&e)),
            }
        }
        let conn = self.conn.as_mut().expect("conn");
        while sent < req.len() {
            match conn.send(&req[sent..]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.tunnel = Some((t, req, sent));
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(send_error(&e)),
            }
        }
        let mut byte = [0u8; 1];
        loop {
            match self.tunnel_recv(&mut byte) {
                Ok(0) => {
                    return Err(Error::new(Code::RecvError, "Proxy CONNECT aborted"));
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.tunnel = Some((t, req, sent));
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // A TLS failure on the way to an HTTPS proxy keeps its own text.
                    return Err(crate::tls::curl_error(&e).unwrap_or_else(|| {
                        Error::new(
                            Code::RecvError,
                            format!("Recv failure: {}", connect::os_error_text(&e)),
                        )
                    }));
                }
            }
            let line = match t.feed(&byte) {
                Ok((_, Some(crate::proto::connect::Event::Line(l)))) => l.to_vec(),
                Ok(_) => continue,
                Err(crate::proto::connect::TunnelError::TooLarge) => {
                    return Err(Error::new(Code::RecvError, "CONNECT response too large"));
                }
                Err(crate::proto::connect::TunnelError::TooManyHeaders) => {
                    return Err(Error::new(
                        Code::TooLarge,
                        format!(
                            "Too many response headers, {} is max",
                            crate::proto::connect::MAX_HEADERS
                        ),
                    ));
                }
            };
            self.info.header_size += line.len() as u64;
            if self.opts.verbose {
                self.callbacks
                    .debug_live(InfoType::HeaderIn, &line, &self.info);
            }
            if !t.done && t.header_lines() > 0 {
                // curl's header store sees the line before the header callback does.
                use crate::proto::connect::{check_header, BadHeader};
                match check_header(&line, t.header_lines() > 1) {
                    Ok(()) => {}
                    Err(BadHeader::NoColon) => {
                        return Err(Error::new(
                            Code::BadFunctionArgument,
                            "Invalid response header",
                        ));
                    }
                    Err(BadHeader::Blank) => {
                        return Err(Error::code(Code::WeirdServerReply));
                    }
                }
            }
            if !self.opts.suppress_connect_headers {
                if self.callbacks.header(&line) != line.len() {
                    return Err(Error::new(Code::WriteError, "Failed writing header"));
                }
                if self.opts.include_header && self.callbacks.write(&line) != line.len() {
                    return Err(Error::new(Code::WriteError, "Failed writing header"));
                }
            }
            if t.done {
                break;
            }
            // Read after the line is shown and handed on, as curl's `on_resp_header` does
            // (a response to a request, `http.c`, reads it first).
            if let Some((name, value)) = head::split_header(trim_eol(&line)) {
                if t.code == 407 && name.eq_ignore_ascii_case(b"Proxy-Authenticate") {
                    let mut notes = Vec::new();
                    self.proxy_auth.input(value, &mut notes);
                    for n in notes {
                        self.verbose(n);
                    }
                }
            }
            self.tunnel_body_header(t.code, &line)?;
        }
        self.info.http_connectcode = t.code;
        if t.code == 407 {
            let proxy_user = self.proxy_has_user();
            if self.proxy_auth.act(407, proxy_user, false, true) {
                return self.tunnel_auth_retry(t.close);
            }
        }
        if !(200..300).contains(&t.code) {
            return Err(Error::new(
                Code::RecvError,
                format!("CONNECT tunnel failed, response {}", t.code),
            ));
        }
        // curl's note on the tunnel's state turning 'established'.
        self.verbose("CONNECT phase completed");
        self.verbose(&format!("CONNECT tunnel established, response {}", t.code));
        self.timers.clear(TimerId::ConnectTimeout);
        self.origin_ready(cx)?;
        Ok(true)
    }

    /// What a CONNECT reply header line says about the reply's body, after the line was
    /// shown (curl's `on_resp_header`): a 2xx reply has none whatever it says.
    fn tunnel_body_header(&mut self, code: u32, line: &[u8]) -> Result<()> {
        let Some((name, value)) = head::split_header(trim_eol(line)) else {
            return Ok(());
        };
        let success = code / 100 == 2;
        if name.eq_ignore_ascii_case(b"Content-Length") {
            if success {
                self.verbose(&format!(
                    "Ignoring Content-Length in CONNECT {code:03} response"
                ));
            } else {
                let n = head::parse_content_length(value).map_err(|_| {
                    Error::new(Code::WeirdServerReply, "Unsupported Content-Length value")
                })?;
                self.tunnel_body = Some(n);
            }
        } else if name.eq_ignore_ascii_case(b"Transfer-Encoding") {
            if success {
                self.verbose(&format!(
                    "Ignoring Transfer-Encoding in CONNECT {code:03} response"
                ));
            } else if head::codings(value).any(|c| c.eq_ignore_ascii_case(b"chunked")) {
                self.verbose("CONNECT responded chunked");
                self.tunnel_chunked = Some(Box::default());
            }
        }
        Ok(())
    }

    /// A 407 to CONNECT picked a scheme: drop the reply body, then send CONNECT again on
    /// this connection, or on a new one when the proxy closes it. As curl's, the body is
    /// read (and its records traced) also when the proxy closes after it.
    fn tunnel_auth_retry(&mut self, close: bool) -> Result<bool> {
        let body = self.tunnel_body.take().unwrap_or(0);
        // A Content-Length counts the body down; else a chunked one is decoded to its end.
        if body > 0 {
            self.verbose(&format!("Ignore {body} bytes of response-body"));
            self.tunnel_chunked = None;
        } else if self.tunnel_chunked.is_some() {
            self.verbose("Ignore chunked response-body");
        }
        self.tunnel_again = true;
        self.tunnel_skip = body;
        self.tunnel_reconnect = close;
        self.state = State::TunnelSkip;
        Ok(true)
    }

    /// Read from the proxy connection while CONNECT is answered. With the TLS trace, the
    /// records of an HTTPS proxy's session read on the way go to it (curl's `ossl_trace`
    /// on the proxy filter), the session tickets and the records of a skipped body too.
    fn tunnel_recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let trace = self.tls_trace_on();
        if trace {
            self.tls_trace_start();
        }
        let got = self.conn.as_mut().expect("conn").recv(buf);
        if trace {
            self.tls_trace_end();
        }
        got
    }

    /// Read and drop the body of a 407 reply to CONNECT, then send CONNECT again.
    fn do_tunnel_skip(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let mut buf = [0u8; 1024];
        while self.tunnel_skip > 0 {
            let want = (self.tunnel_skip as usize).min(buf.len());
            match self.tunnel_recv(&mut buf[..want]) {
                Ok(0) => return Err(Error::new(Code::RecvError, "Proxy CONNECT aborted")),
                Ok(n) => self.tunnel_skip -= n as u64,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(Error::new(
                        Code::RecvError,
                        format!("Recv failure: {}", connect::os_error_text(&e)),
                    ))
                }
            }
        }
        if let Some(mut dec) = self.tunnel_chunked.take() {
            // A byte at a time, as curl: the next CONNECT's reply follows on this connection.
            let mut byte = [0u8; 1];
            while !dec.is_done() {
                match self.tunnel_recv(&mut byte) {
                    Ok(0) => return Err(Error::new(Code::RecvError, "Proxy CONNECT aborted")),
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        self.tunnel_chunked = Some(dec);
                        return Ok(false);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        return Err(Error::new(
                            Code::RecvError,
                            format!("Recv failure: {}", connect::os_error_text(&e)),
                        ))
                    }
                }
                dec.decode(&byte).map_err(|e| {
                    Error::new(
                        Code::from_u32(e.curl_code()).unwrap_or(Code::RecvError),
                        e.to_string(),
                    )
                })?;
            }
            self.verbose("chunk reading DONE");
        }
        if std::mem::take(&mut self.tunnel_reconnect) {
            self.verbose("Connect me again please");
            if let Some(mut c) = self.conn.take() {
                let _ = cx.poller.delete(c.stream.fd());
                c.close();
            }
            self.state = State::Init;
            return Ok(true);
        }
        self.start_tunnel();
        Ok(true)
    }

    /// The SOCKS proxy of the transfer: the pre-proxy, else the proxy if it is SOCKS.
    fn socks_proxy(&self) -> Option<&crate::proxy::Proxy> {
        self.preproxy
            .as_ref()
            .or(self.proxy.as_ref().filter(|p| !p.kind.is_http()))
    }

    /// A failed SOCKS handshake: curl's `CURLE_PROXY`, with the detail kept for
    /// `CURLINFO_PROXY_ERROR`.
    fn socks_failed(&mut self, e: crate::proto::socks::SocksError) -> Error {
        self.info.proxy_error = e.1 as u32;
        Error::new(Code::Proxy, e.0)
    }

    /// The Unix socket of the SOCKS proxy, when it is one (`localhost/path`).
    /// The connection the transfer uses from now on; the debug callback learns it too.
    fn set_conn_id(&mut self, id: i64) {
        self.info.conn_id = id;
        if self.opts.verbose {
            self.callbacks.debug_ids(self.info.xfer_id, id);
        }
    }

    /// The connection's peer: its address, or for a Unix socket its path.
    fn set_peer(&mut self, remote: Option<SocketAddr>) {
        self.info.primary_ip = remote;
        self.info.unix_peer = match remote {
            Some(_) => None,
            None => self
                .opts
                .unix_socket_path
                .clone()
                .or_else(|| self.socks_unix_path()),
        };
    }

    fn socks_unix_path(&self) -> Option<String> {
        self.socks_proxy()
            .and_then(|p| p.unix_path())
            .map(str::to_string)
    }

    /// Where the SOCKS proxy connects: the HTTP proxy behind a pre-proxy, else the origin.
    fn socks_dest(&self) -> (String, u16) {
        match (&self.preproxy, &self.proxy) {
            (Some(_), Some(p)) => (p.host.clone(), p.port),
            _ => (
                self.url_host(),
                self.url.as_ref().expect("url").port_or_default(),
            ),
        }
    }

    /// The SOCKS version of the current proxy.
    fn socks_version(&self) -> crate::proto::socks::Version {
        use crate::proto::socks::Version;
        use crate::proxy::ProxyKind;
        match self.socks_proxy().map(|p| p.kind) {
            Some(ProxyKind::Socks4) => Version::Socks4,
            Some(ProxyKind::Socks4a) => Version::Socks4a,
            Some(ProxyKind::Socks5) => Version::Socks5,
            _ => Version::Socks5h,
        }
    }

    /// Start the SOCKS handshake for the URL's origin over the fresh proxy connection.
    /// socks4 resolves the origin first; socks5 after the greeting (`do_socks`), as curl.
    fn start_socks(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        use crate::proto::socks::{Target, Version};
        self.socks = None;
        let version = self.socks_version();
        let (host, port) = self.socks_dest();
        if matches!(version, Version::Socks4 | Version::Socks4a) {
            self.verbose(&format!("SOCKS4 communication to {host}:{port}"));
        }
        // SOCKS4a sends even an address as a name; SOCKS5h sends addresses as addresses.
        if version == Version::Socks4a {
            return self.begin_socks(Some(Target::Name(host)));
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return self.begin_socks(Some(Target::Ip(ip)));
        }
        match version {
            Version::Socks5h => self.begin_socks(Some(Target::Name(host))),
            Version::Socks5 => self.begin_socks(None),
            _ => match self.socks_lookup(cx)? {
                Some(t) => self.begin_socks(Some(t)),
                None => Ok(()),
            },
        }
    }

    /// The origin's address for socks4/socks5 from the cache or `localhost`; otherwise
    /// start resolving (`State::SocksResolving`) and return None.
    fn socks_lookup(&mut self, cx: &mut Cx<'_>) -> Result<Option<crate::proto::socks::Target>> {
        let (host, port) = self.socks_dest();
        let known = cx
            .resolver
            .cached(&host, port, self.opts.dns_cache_timeout, cx.now)
            .or_else(|| dns::localhost_addrs(&host, port));
        match known {
            Some(addrs) => self.socks_pick(&addrs).map(Some),
            None => {
                let job = cx.resolver.start(&host, port);
                self.state = State::SocksResolving { job };
                if self.socks_version() == crate::proto::socks::Version::Socks4 {
                    self.verbose(&format!("SOCKS4 non-blocking resolve of {host}"));
                }
                Ok(None)
            }
        }
    }

    /// The origin's name resolution for a socks4/socks5 handshake finished.
    fn do_socks_resolving(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::SocksResolving { job } = self.state else {
            unreachable!()
        };
        let Some(ans) = cx.resolver.take(job) else {
            return Ok(false);
        };
        let (host, port) = self.socks_dest();
        let addrs = match ans {
            Ok(addrs) if !addrs.is_empty() => addrs,
            // curl names the proxy in this message although the origin failed.
            _ => {
                self.info.proxy_error = ProxyCode::ResolveHost as u32;
                return Err(Error::new(
                    Code::Proxy,
                    format!(
                        "Could not resolve proxy: {}",
                        self.socks_proxy().map(|p| p.host.as_str()).unwrap_or("")
                    ),
                ));
            }
        };
        cx.resolver.insert(&host, port, addrs.clone(), cx.now);
        let t = self.socks_pick(&addrs)?;
        if self.socks.is_some() {
            // A SOCKS5 handshake waiting after its greeting.
            self.socks_note(&t);
            let s = &mut self.socks.as_mut().expect("socks").0;
            let r = s.set_target(t);
            r.map_err(|e| self.socks_failed(e))?;
            self.state = State::Socks;
        } else {
            self.begin_socks(Some(t))?;
        }
        Ok(true)
    }

    /// Pick the address a socks4/socks5 handshake sends, with curl's resolver notes.
    fn socks_pick(&mut self, addrs: &[SocketAddr]) -> Result<crate::proto::socks::Target> {
        use crate::proto::socks::{Target, Version};
        let (host, port) = self.socks_dest();
        self.resolved_notes(&host, port, addrs);
        let v4 = self.socks_version() == Version::Socks4;
        let pick = addrs
            .iter()
            .filter(|a| match self.opts.ip_resolve {
                IpResolve::Whatever => true,
                IpResolve::V4 => a.is_ipv4(),
                IpResolve::V6 => a.is_ipv6(),
            })
            .find(|a| a.is_ipv4() || !v4)
            .ok_or_else(|| {
                self.info.proxy_error = ProxyCode::ResolveHost as u32;
                Error::new(
                    Code::CouldntResolveHost,
                    format!("Failed to resolve \"{host}\" for SOCKS4 connect."),
                )
            })?;
        Ok(Target::Ip(pick.ip()))
    }

    /// curl's `-v` line naming the SOCKS connect target.
    fn socks_note(&mut self, target: &crate::proto::socks::Target) {
        use crate::proto::socks::{Target, Version};
        let (host, port) = self.socks_dest();
        let note = match (target, self.socks_version()) {
            // An IPv6 host goes without brackets here, as in curl.
            (_, Version::Socks5h) => Some(format!(
                "SOCKS5 connect to {host}:{port} (remotely resolved)"
            )),
            (Target::Ip(ip), Version::Socks5) => Some(format!(
                "SOCKS5 connect to {}:{port} (locally resolved)",
                bracket(&ip.to_string())
            )),
            (Target::Ip(ip), _) => Some(format!("SOCKS4 connect to IPv4 {ip} (locally resolved)")),
            (Target::Name(_), _) => None,
        };
        if let Some(n) = note {
            self.verbose(&n);
        }
    }

    /// Send the first SOCKS message; a SOCKS5 `target` of None is resolved after the greeting.
    fn begin_socks(&mut self, target: Option<crate::proto::socks::Target>) -> Result<()> {
        use crate::proto::socks::Socks;
        let version = self.socks_version();
        let (host, port) = self.socks_dest();
        if let Some(t) = &target {
            self.socks_note(t);
        }
        let creds = self.socks_proxy().and_then(|p| p.creds.clone());
        let s = Socks::new(version, target, &host, port, creds, self.opts.socks5_gssapi)
            .map_err(|e| self.socks_failed(e))?;
        self.socks = Some((s, Vec::new()));
        self.state = State::Socks;
        Ok(())
    }

    /// Drive the SOCKS handshake, reading only the bytes the handshake asks for.
    fn do_socks(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let (mut s, mut got) = self.socks.take().expect("socks");
        loop {
            while !s.output().is_empty() {
                let conn = self.conn.as_mut().expect("conn");
                match conn.send(s.output()) {
                    Ok(n) => s.sent(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        self.socks = Some((s, got));
                        return Ok(false);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        // The socket's message, curl's code for the SOCKS step.
                        self.info.proxy_error = s.io_failure(false) as u32;
                        return Err(Error::new(Code::Proxy, send_error(&e).message()));
                    }
                }
            }
            if s.is_done() {
                break;
            }
            if s.needs_target() {
                self.socks = Some((s, got));
                match self.socks_lookup(cx)? {
                    Some(t) => {
                        self.socks_note(&t);
                        let (mut s2, g2) = self.socks.take().expect("socks");
                        s2.set_target(t).map_err(|e| self.socks_failed(e))?;
                        s = s2;
                        got = g2;
                        continue;
                    }
                    // Resolving: `do_socks_resolving` resumes the handshake.
                    None => return Ok(false),
                }
            }
            let want = s.want();
            let mut buf = [0u8; 300];
            let conn = self.conn.as_mut().expect("conn");
            match conn.recv(&mut buf[..want - got.len()]) {
                Ok(0) => {
                    self.info.proxy_error = ProxyCode::Closed as u32;
                    return Err(Error::new(Code::Proxy, "connection to proxy closed"));
                }
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.socks = Some((s, got));
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.info.proxy_error = s.io_failure(true) as u32;
                    return Err(Error::new(
                        Code::Proxy,
                        format!("Recv failure: {}", connect::os_error_text(&e)),
                    ));
                }
            }
            if got.len() == want {
                s.feed(&got).map_err(|e| self.socks_failed(e))?;
                got.clear();
            }
        }
        if let Some(n) = s.granted_note() {
            self.verbose(&n);
        }
        if self.preproxy.is_some() {
            // The SOCKS leg reached the HTTP proxy; the HTTP proxy paths follow.
            if self.https_proxy() {
                self.start_proxy_tls(cx)?;
            } else if self.tunnel_wanted {
                self.start_tunnel();
            } else {
                self.timers.clear(TimerId::ConnectTimeout);
                self.origin_ready(cx)?;
            }
            return Ok(true);
        }
        self.timers.clear(TimerId::ConnectTimeout);
        if self.opts.verbose && self.info.scheme != "https" {
            // curl's SOCKS filter reports the connection once more, without the address.
            let c = self.conn.as_ref().expect("conn");
            let msg = format!("Connected to {} () port {}", c.host, c.port);
            self.verbose(&msg);
            self.verbose("using HTTP/1.x");
        }
        self.origin_ready(cx)?;
        Ok(true)
    }

    /// The method for the current options and body.
    fn request_method(&self) -> std::borrow::Cow<'static, str> {
        if let Some(m) = self
            .opts
            .custom_request
            .as_ref()
            .filter(|_| !self.ignore_custom)
        {
            m.clone().into()
        } else if self.opts.nobody {
            "HEAD".into()
        } else {
            match self.body {
                Body::Fields(_) | Body::PostRead(_) | Body::Mime(_) => "POST".into(),
                Body::Upload(_) => "PUT".into(),
                Body::None => "GET".into(),
            }
        }
    }

    /// Build the request head for the current URL and connection.
    /// curl's `http_resume` and the upload half of `Curl_http_range`: for a PUT or POST with
    /// a resume offset or a range, the `Content-Range` value and how many bytes of the source
    /// to skip. A size of -1 (unknown) goes into the header as curl computes it.
    fn upload_range(&self) -> Result<(Option<String>, u64)> {
        let clen: i64 = match &self.body {
            Body::Upload(n) | Body::PostRead(n) => n.map_or(-1, |n| n as i64),
            Body::Fields(f) => f.len() as i64,
            Body::None | Body::Mime(_) => return Ok((None, 0)),
        };
        if self.opts.resume_from_unknown {
            return Ok((Some(format!("bytes 0-{}/{clen}", clen - 1)), 0));
        }
        let resume = self.opts.resume_from as i64;
        if resume > 0 {
            if clen >= 0 && clen <= resume {
                return Err(Error::new(
                    Code::PartialFile,
                    "File already completely uploaded",
                ));
            }
            let total = resume + if clen >= 0 { clen - resume } else { -1 };
            let range = format!("bytes {resume}-{}/{total}", total - 1);
            return Ok((Some(range), resume as u64));
        }
        Ok(self
            .opts
            .range
            .as_ref()
            .map(|r| (Some(format!("bytes {r}/{clen}")), 0))
            .unwrap_or((None, 0)))
    }

    fn start_request(&mut self, cx: &mut Cx<'_>) {
        // curl updates the progress after every step with a connection, so the callback
        // sees the counters of the request before (the upload counter then starts again).
        self.progress(cx.now);
        // curl's Curl_init_do starts each request's upload count from zero.
        self.info.size_upload = 0;
        // curl's state_do: the application may stop the request before it goes.
        if !self
            .callbacks
            .prereq_live(self.info.primary_ip, self.info.local_addr, &self.info)
        {
            self.req_error = Some(Error::new(
                Code::AbortedByCallback,
                "operation aborted by pre-request callback",
            ));
            self.state = State::Send;
            return;
        }
        let now = cx.now;
        let url = self.url.clone().expect("url");
        self.info.time_pretransfer = now.duration_since(self.started);
        self.info.effective_method = self.method.to_string();
        self.speed.restart();
        let host = url.host_punycode().unwrap_or_default();
        let port = url.port_or_default();
        let host_header: std::borrow::Cow<'_, str> =
            if Some(port) == oxcurl_urlapi::default_port(url.scheme()) {
                host.clone()
            } else {
                let mut hp = String::with_capacity(host.len() + 6);
                let _ = write!(hp, "{host}:{port}");
                hp.into()
            };
        // The path and query, borrowed from the URL when there is no query.
        let auth_path: std::borrow::Cow<'_, str> = match url.query() {
            Some(q) => format!("{}?{q}", url.path()).into(),
            None => url.path().into(),
        };
        let absolute = self.proxy.as_ref().is_some_and(|p| p.kind.is_http()) && !self.tunnel_wanted;
        let target: std::borrow::Cow<'_, str> = match &self.opts.request_target {
            Some(t) => t.clone().into(),
            None if absolute => absolute_form(&url).into(),
            None => auth_path.clone(),
        };
        let same_origin = self.first_origin.as_ref().is_some_and(|(s, h, p)| {
            *s == url.scheme() && h.eq_ignore_ascii_case(&host) && *p == port
        });
        let get_or_head = matches!(self.body, Body::None);
        // curl outputs the proxy's authentication before the server's.
        let proxy_authorization = if absolute {
            let custom = request::custom_has(&self.opts.proxy_headers, "Proxy-Authorization")
                || request::custom_has(&self.opts.headers, "Proxy-Authorization");
            let method = self.method.clone();
            self.proxy_authorization(&method, &auth_path, get_or_head, custom)
        } else {
            None
        };
        let url_host = match self.opts.aws_sigv4 {
            Some(_) => self.url_host(),
            None => String::new(),
        };
        let aws = self
            .opts
            .aws_sigv4
            .as_deref()
            .map(|spec| auth::sigv4::Params {
                spec,
                user: self.creds.as_ref().map_or("", |c| c.0.as_str()),
                password: self.creds.as_ref().map_or("", |c| c.1.as_str()),
                method: &self.method,
                path: url.path(),
                query: url.query(),
                hostname: &url_host,
                host_header: (!request::custom_has(&self.opts.headers, "Host"))
                    .then_some(&*host_header),
                headers: &self.opts.headers,
                post_fields: match &self.body {
                    Body::Fields(f) => Some(f.as_slice()),
                    _ => None,
                },
                empty_payload: get_or_head || matches!(self.body, Body::Upload(Some(0))),
                now: crate::parsedate::unix_now(),
            });
        // NTLM authenticates a connection: on another one (a redirect that closed it, say)
        // the handshake starts over.
        if self.ntlm_conn != Some(self.info.conn_id) {
            self.auth.ntlm = auth::ntlm::Ntlm::default();
            self.ntlm_conn = Some(self.info.conn_id);
            // curl's create_conn: a new connection has no NTLM authentication yet.
            if self.auth.picked & auth::NTLM != 0 && self.auth.done {
                if self.opts.verbose {
                    self.callbacks.debug_live(
                        InfoType::Text,
                        b"NTLM picked AND auth done set, clear picked\n",
                        &self.info,
                    );
                }
                self.auth.picked = 0;
                self.auth.done = false;
            }
        }
        let auth_out = self.auth.output(
            &auth::Request {
                method: &self.method,
                path: &auth_path,
                get_or_head,
                creds: self.creds.as_ref().map(|(u, p)| (u.as_str(), p.as_str())),
                bearer: self.opts.bearer.as_deref(),
                allowed: same_origin || self.opts.unrestricted_auth || self.creds_netrc,
                custom_header: request::custom_has(&self.opts.headers, "Authorization"),
                aws,
            },
            random12,
        );
        for n in &auth_out.pre_notes {
            self.verbose(n);
        }
        if let Some(n) = &auth_out.note {
            self.verbose(n);
        }
        self.req_error = auth_out.error;
        // --crlf: the converted body's length is unknown, so it goes chunked (curl keeps
        // the form Content-Type of a POST).
        let crlf = self.opts.crlf && !matches!(self.body, Body::None) && !self.probing();
        // curl's `http_request_version`: HTTP/1.0 when asked for, or when this transfer or
        // this connection has had a 1.0 response (a 401 or a redirect from a 1.0 server).
        let http10 = !self.on_h2()
            && (self.opts.http_version == HttpVersionPref::V1_0
                || self.seen_http10
                || self.conn.as_ref().is_some_and(|c| c.http10));
        let framing = match &self.body {
            Body::None => BodyFraming::None,
            // Negotiating authentication: a probe without the body.
            Body::Fields(_) | Body::Upload(_) | Body::PostRead(_) | Body::Mime(_)
                if self.probing() =>
            {
                BodyFraming::Length {
                    len: 0,
                    form: matches!(self.body, Body::Fields(_) | Body::PostRead(_)),
                }
            }
            Body::Mime(_) => match self.mime_size {
                Some(len) => BodyFraming::Length { len, form: false },
                None => BodyFraming::Chunked { form: false },
            },
            Body::Fields(f) => {
                if self.method == "POST" || self.opts.custom_request.is_some() {
                    BodyFraming::Length {
                        len: f.len() as u64,
                        form: true,
                    }
                } else {
                    BodyFraming::None
                }
            }
            Body::Upload(Some(n)) => BodyFraming::Length {
                len: *n,
                form: false,
            },
            Body::PostRead(Some(n)) => BodyFraming::Length {
                len: *n,
                form: true,
            },
            Body::Upload(None) | Body::PostRead(None) => BodyFraming::Chunked {
                form: matches!(self.body, Body::PostRead(_)),
            },
        };
        let (content_range, skip) = match self.upload_range() {
            Ok(r) => r,
            Err(e) => {
                self.req_error = Some(e);
                (None, 0)
            }
        };
        let framing = match framing {
            BodyFraming::Length { len, form } if !self.probing() => BodyFraming::Length {
                len: len.saturating_sub(skip),
                form,
            },
            f => f,
        };
        // curl asks for h2c on a connection without TLS when HTTP/2 is wanted (`--http2`)
        // and the connection speaks HTTP/1 (`Curl_http2_request_upgrade`).
        self.h2_upgrade = (
            self.opts.http_version == HttpVersionPref::V2
                && !self.on_h2()
                && self
                    .conn
                    .as_ref()
                    .is_some_and(|c| c.tls.is_none() && c.proxy_tls.is_none()),
            false,
        );
        // Expect goes by the size of the body, whatever the framing: 100-continue follows
        // the source's own length, also under --crlf. Not with an Upgrade (curl's
        // `addexpect`), not even a custom one; curl's own only on HTTP/1.1.
        let expect_100 = !http10
            && !self.h2_upgrade.0
            && !self.on_h2()
            && !self.disable_expect
            && !self.probing()
            && match framing {
                BodyFraming::Chunked { .. } | BodyFraming::Unframed { .. } => true,
                BodyFraming::Length { len, .. } => len > EXPECT_100_THRESHOLD,
                BodyFraming::None => false,
            };
        let framing = if crlf {
            BodyFraming::Chunked { form: false }
        } else {
            framing
        };
        // A custom Transfer-Encoding decides about chunks (curl's `http_req_set_reader`):
        // naming chunked, it chunks a body of known size too; otherwise a body of unknown
        // size goes unframed.
        let framing = match (self.custom_chunked(), framing) {
            // A probe too: curl sends the empty chunked body ("0\r\n\r\n"), not a length.
            (Some(true), BodyFraming::Length { form, .. }) => BodyFraming::Chunked { form },
            (Some(false), BodyFraming::Chunked { form }) => BodyFraming::Unframed { form },
            (_, f) => f,
        };
        // curl's http_req_complete: the body's length, when known, is the upload size.
        self.info.content_length_upload = match framing {
            BodyFraming::None => Some(0),
            BodyFraming::Length { len, .. } => Some(len),
            _ => None,
        };
        // A body of unknown size cannot be framed in HTTP/1.0 (curl's
        // `http_req_set_reader`); a custom Transfer-Encoding naming chunked is sent as asked.
        if http10
            && self.custom_chunked().is_none()
            && matches!(framing, BodyFraming::Chunked { .. })
        {
            self.req_error = Some(Error::new(
                Code::UploadFailed,
                "Chunky upload is not supported by HTTP 1.0",
            ));
        }
        // curl's `addexpect`: a custom Expect header decides instead, and waits when it
        // names 100-continue.
        let expect_announced = match request::custom_header(&self.opts.headers, "Expect") {
            Some(h) => {
                framing != BodyFraming::None && expect_names_100_continue(h) && !self.h2_upgrade.0
            }
            None => expect_100,
        };
        self.req.clear();
        // Room for a usual request head at once, rather than growing to it.
        self.req.reserve(256 + target.len());
        let referer = self.referer.clone();
        let mime_type = match &self.body {
            Body::Mime(m) if !self.probing() => {
                Some(m.content_type_as(request::custom_mime_type(&self.opts.headers)))
            }
            Body::Fields(_) | Body::PostRead(_) if crlf && self.method == "POST" => {
                Some("application/x-www-form-urlencoded".to_string())
            }
            _ => None,
        };
        // A custom Cookie header replaces the user's cookie string, not the jar's cookies.
        let user = self
            .opts
            .cookie
            .as_deref()
            .filter(|_| !request::custom_has(&self.opts.headers, "Cookie"))
            .map(str::as_bytes);
        let cookie: Option<Vec<u8>> = match cx.cookies.jar.as_mut() {
            Some(jar) if self.cookie_engine() => {
                jar.new_request();
                let (host, path, secure) = self.cookie_target();
                let h = jar.cookie_header_full(
                    &host,
                    &path,
                    secure,
                    user,
                    crate::parsedate::unix_now(),
                );
                for n in &h.info {
                    self.verbose(n);
                }
                h.value
            }
            _ => user.map(<[u8]>::to_vec),
        };
        let authneg = self.probing();
        request::build(
            &mut self.req,
            &self.opts,
            &RequestParts {
                method: &self.method,
                target: &target,
                host_header: &host_header,
                custom_host_ok: self
                    .first_origin
                    .as_ref()
                    .is_some_and(|(_, h, _)| h.eq_ignore_ascii_case(&host)),
                framing,
                http10,
                cookie: cookie.as_deref(),
                content_type: mime_type.as_deref(),
                mime: matches!(self.body, Body::Mime(_)) && !authneg,
                authorization: auth_out.header.as_deref(),
                referer: referer.as_deref(),
                expect_100: expect_100 && !request::custom_has(&self.opts.headers, "Expect"),
                sensitive_ok: same_origin || self.opts.unrestricted_auth,
                proxy_authorization: proxy_authorization.as_deref(),
                proxy_headers: absolute.then_some(if self.opts.proxy_headers_unified {
                    &[]
                } else {
                    self.opts.proxy_headers.as_slice()
                }),
                content_range: content_range.as_deref(),
                alt_used: self.alt_used.as_deref(),
                authneg,
                h2_upgrade: self.h2_upgrade.0,
            },
        );
        self.info.request_size += self.req.len() as u64;
        if self.on_h2() {
            // curl counts the HTTP/1-style head it hands its HTTP/2 filter, whose request
            // line names "HTTP/2", and then the body bytes as they go; fields are counted
            // whole here, the other bodies as they are read.
            let line = self.req.split(|&b| b == b'\n').next().unwrap_or_default();
            if line.ends_with(b" HTTP/1.1\r") {
                self.info.request_size -= 2;
            }
            if let Body::Fields(f) = &self.body {
                self.info.request_size += f.len() as u64;
            }
        }
        if (self.tls_trace_on() || self.early_pending()) && !self.on_h2() {
            // curl shows the request once it went out, after the record's trace (or the
            // handshake deferred for early data that carries it).
            self.head_pending = Some(self.req.len());
        } else if self.opts.verbose && !self.on_h2() {
            let req = std::mem::take(&mut self.req);
            self.callbacks
                .debug_live(InfoType::HeaderOut, &req, &self.info);
            self.req = req;
        }
        // curl counts the bytes of each request's body from zero (`Curl_init_do`).
        self.info.size_upload = 0;
        if self.probing() && matches!(framing, BodyFraming::Chunked { .. }) {
            // The probe's body: the last chunk alone, counted as body bytes sent.
            self.req.extend_from_slice(b"0\r\n\r\n");
            self.info.request_size += 5;
            self.info.size_upload += 5;
        }
        self.req_sent = 0;
        self.up = Upload {
            chunked: matches!(framing, BodyFraming::Chunked { .. }),
            await_continue: expect_announced,
            expect_announced,
            body_done: framing == BodyFraming::None || self.probing(),
            upload_base: 0,
            skip,
            limit: match (&self.body, framing) {
                (Body::Upload(_) | Body::PostRead(_), BodyFraming::Length { len, .. }) => Some(len),
                _ => None,
            },
            crlf,
            head_room: if self.on_h2() { 0 } else { self.req.len() },
            chunked_left: match (&self.body, framing) {
                (_, BodyFraming::Chunked { .. }) if crlf => None,
                // A POST from the read callback under a forced chunked encoding disregards
                // its size (curl's `set_reader`, issue 13229); a PUT keeps it.
                (Body::Upload(Some(n)), BodyFraming::Chunked { .. }) => {
                    Some(n.saturating_sub(skip))
                }
                (Body::Fields(f), BodyFraming::Chunked { .. }) => Some(f.len() as u64),
                _ => None,
            },
            ..Upload::default()
        };
        if (crlf
            || self.up.chunked
            || matches!(
                self.body,
                Body::Upload(_) | Body::PostRead(_) | Body::Mime(_)
            ))
            && framing != BodyFraming::None
            && !self.probing()
        {
            self.up.buf = vec![0u8; self.opts.upload_buffer_size + 32];
        }
        let next_no = if self.resp.code == 0 && self.resp.request_no == 0 {
            0
        } else {
            self.resp.request_no + 1
        };
        self.resp = Resp::new(next_no);
        self.state = State::Send;
        if self.on_h2() {
            if let Err(e) = self.h2_start() {
                self.req_error = Some(e);
            }
        }
    }

    fn do_send(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if let Some(e) = self.req_error.take() {
            return Err(e);
        }
        let mut sent;
        let mut early_body = 0;
        loop {
            let trace = self.tls_trace_on() && self.req_sent < self.req.len();
            if trace {
                self.tls_trace_start();
            }
            let was_deferred = self.early_pending();
            // Deferred for early data, the first send takes the start of a `-d` body with
            // the head, as curl's send buffer holds both; the same bytes at every try.
            let body_start = match &self.body {
                Body::Fields(f) if was_deferred && !self.up.crlf && !self.up.chunked => {
                    &f[..f.len().min(EARLY_BODY_MAX)]
                }
                _ => &[][..],
            };
            let conn = self.conn.as_mut().expect("conn");
            sent = Ok(());
            while self.req_sent < self.req.len() {
                let r = if was_deferred && self.req_sent == 0 && !body_start.is_empty() {
                    let mut first = Vec::with_capacity(self.req.len() + body_start.len());
                    first.extend_from_slice(&self.req);
                    first.extend_from_slice(body_start);
                    conn.send(&first)
                } else {
                    conn.send(&self.req[self.req_sent..])
                };
                match r {
                    Ok(n) => {
                        let head = n.min(self.req.len() - self.req_sent);
                        self.req_sent += head;
                        early_body = n - head;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        sent = Err(e);
                        break;
                    }
                }
                // A handshake deferred for early data ended: what it came to is written
                // before the rest goes.
                if conn.tls.as_ref().is_some_and(|t| t.early_outcome_ready()) {
                    break;
                }
            }
            let inner = conn.proxy_tls.is_some() || conn.tunnel.is_some();
            if trace {
                self.tls_trace_end();
            }
            if let Err(e) = &mut sent {
                if e.kind() != io::ErrorKind::WouldBlock {
                    if was_deferred {
                        // The deferred handshake failed: its verify result stays, what the
                        // session noted is written, and inside a proxy's session the error
                        // is told as for any handshake there.
                        self.early_handshake_notes();
                        if inner {
                            if let Some(err) = crate::tls::curl_error(e) {
                                *e = crate::tls::io_error(crate::tls::inner_handshake_error(err));
                            }
                        }
                    }
                    break;
                }
            }
            if !self.early_handshake_done(cx)? || sent.is_err() {
                break;
            }
        }
        // A handshake deferred for early data is not through yet: the request has not gone.
        let deferred = self.early_pending();
        if let Some(n) = self.head_pending.take_if(|_| !deferred) {
            let req = std::mem::take(&mut self.req);
            self.callbacks
                .debug(InfoType::HeaderOut, &req[..n.min(req.len())]);
            self.req = req;
        }
        if early_body > 0 {
            // The body's start went as accepted early data: counted and traced as sent.
            if let Body::Fields(f) = &self.body {
                let d = f[..early_body].to_vec();
                self.up.fields_sent = early_body;
                self.info.size_upload += early_body as u64;
                self.info.request_size += early_body as u64;
                if self.opts.verbose {
                    self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
                }
            }
        }
        match sent {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) => return Err(send_error(&e)),
        }
        if self.up.await_continue {
            if self.timers.get(TimerId::Expect100).is_none() {
                self.timers
                    .set(TimerId::Expect100, cx.now + self.opts.expect_100_timeout);
            }
            self.state = State::Recv;
            return Ok(true);
        }
        while !self.up.body_done {
            if !self.send_body_some()? {
                return self.recv_while_sending(cx);
            }
            // Under a send limit, check the speed after every send.
            if self.opts.max_send_speed > 0 && !self.up.body_done {
                return Ok(true);
            }
        }
        self.request_sent(cx);
        // The answer came before the body was all sent (`complete` sent it on).
        if self.resp.phase == Phase::Complete {
            return self.complete(cx);
        }
        self.state = State::Recv;
        Ok(true)
    }

    /// The whole request went: curl's note, times and progress.
    fn request_sent(&mut self, cx: &mut Cx<'_>) {
        let sent = self.info.size_upload - self.up.upload_base;
        if sent > 0 {
            self.verbose(&format!("upload completely sent off: {sent} bytes"));
        } else {
            self.verbose("Request completely sent off");
        }
        self.info.time_posttransfer = cx.now.duration_since(self.started);
        // curl updates the progress once the request is sent, before it reads a response
        // byte (its loop receives before it sends), so a meter shows the finished upload.
        if sent > 0 {
            self.progress(cx.now);
        }
    }

    /// The body cannot go on for now (the socket is full, or the read callback paused):
    /// read meanwhile, as curl's loop does, so that an answer before the end of the body
    /// is seen. Once a byte of it came the transfer receives, sending alongside.
    fn recv_while_sending(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if self.resp.phase == Phase::Complete {
            return Ok(false);
        }
        let before = self.resp.raw_bytes;
        self.state = State::Recv;
        let r = self.do_recv(cx);
        if matches!(self.state, State::Recv)
            && self.resp.raw_bytes == before
            && matches!(r, Ok(false))
        {
            self.state = State::Send;
            // The read may have let the body go on (an HTTP/2 tunnel reads its window
            // updates with the answer): one more try before waiting.
            if self.paused() & pause::SEND == 0 && self.send_body_some()? {
                return Ok(true);
            }
        }
        r
    }

    /// An answer is being received while the body still goes (after an early answer that
    /// does not stop it: a 2xx, or an error with `KEEP_SENDING_ON_ERROR`).
    fn sending_alongside(&self) -> bool {
        matches!(self.state, State::Recv)
            && !self.up.body_done
            && !self.up.await_continue
            && self.resp.phase != Phase::Complete
    }

    /// Send what the body has ready while receiving (`sending_alongside`).
    fn send_alongside(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        if !self.sending_alongside() || self.paused() & pause::SEND != 0 {
            return Ok(());
        }
        while !self.up.body_done {
            if !self.send_body_some()? {
                return Ok(());
            }
        }
        self.request_sent(cx);
        Ok(())
    }

    /// Send some body bytes; Ok(false) when the socket is full.
    fn send_body_some(&mut self) -> Result<bool> {
        let conn = self.conn.as_mut().expect("conn");
        match &self.body {
            Body::Fields(f) if !self.up.crlf && !self.up.chunked => {
                if self.up.fields_sent >= f.len() {
                    self.up.body_done = true;
                    return Ok(true);
                }
                let end = send_end(self.up.fields_sent, f.len(), self.opts.max_send_speed);
                match conn.send(&f[self.up.fields_sent..end]) {
                    Ok(n) => {
                        if self.opts.verbose {
                            let d = f[self.up.fields_sent..self.up.fields_sent + n].to_vec();
                            self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
                        }
                        self.up.fields_sent += n;
                        self.info.size_upload += n as u64;
                        self.info.request_size += n as u64;
                        Ok(true)
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(true),
                    Err(e) => Err(send_error(&e)),
                }
            }
            Body::Fields(_) | Body::Upload(_) | Body::PostRead(_) | Body::Mime(_) => {
                if self.up.pos == self.up.len {
                    if self.up.eof {
                        self.up.body_done = true;
                        return Ok(true);
                    }
                    if self.paused() & pause::SEND != 0 {
                        return Ok(false);
                    }
                    self.fill_upload()?;
                    if self.up.pos == self.up.len && self.up.eof {
                        self.up.body_done = true;
                        return Ok(true);
                    }
                    if self.up.pos == self.up.len {
                        // The read callback paused sending.
                        return Ok(false);
                    }
                }
                let conn = self.conn.as_mut().expect("conn");
                let end = send_end(self.up.pos, self.up.len, self.opts.max_send_speed);
                match conn.send(&self.up.buf[self.up.pos..end]) {
                    Ok(n) => {
                        if self.opts.verbose && n > 0 {
                            // What went, chunk framing included (curl traces its send buffer).
                            let d = self.up.buf[self.up.pos..self.up.pos + n].to_vec();
                            self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
                        }
                        self.up.pos += n;
                        self.info.request_size += n as u64;
                        Ok(true)
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(true),
                    Err(e) => Err(send_error(&e)),
                }
            }
            Body::None => {
                self.up.body_done = true;
                Ok(true)
            }
        }
    }

    /// A resumed upload: read and drop the bytes before the resume offset (curl's
    /// `cr_in_resume_from` when the source cannot seek), using the upload buffer.
    fn skip_upload(&mut self, start: usize, room: usize) -> Result<()> {
        let mut passed = 0u64;
        while self.up.skip > 0 {
            let want = room.min(usize::try_from(self.up.skip).unwrap_or(usize::MAX));
            let got = match self
                .callbacks
                .read_live(&mut self.up.buf[start..start + want], &self.info)
            {
                ReadResult::Data(n) if n > 0 && n <= want => n,
                _ => {
                    return Err(Error::new(
                        Code::ReadError,
                        format!("Could only read {passed} bytes from the input"),
                    ))
                }
            };
            passed += got as u64;
            self.up.skip -= got as u64;
        }
        Ok(())
    }

    /// Read the next piece of upload data from the application, framed when chunked.
    fn fill_upload(&mut self) -> Result<()> {
        let cap = self.opts.upload_buffer_size;
        // The first read fills what the request head left of curl's send buffer.
        let head = std::mem::take(&mut self.up.head_room);
        let avail = if head < cap { cap - head } else { cap };
        let (start, mut room) = if self.up.chunked {
            // curl's chunked reader (`add_chunk`): no more than 64 KiB a chunk, less the
            // most a chunk's framing takes, or a chunk of 1 KiB when less room is left.
            let blen = avail.min(64 * 1024);
            (18, if blen < 1024 { 1024 } else { blen - 12 })
        } else {
            (0, cap)
        };
        // Read no more than a second's worth under a send limit, so the upload counter
        // (which the limit watches) moves in steps the limit can pace.
        if self.opts.max_send_speed > 0 {
            room = room.min(usize::try_from(self.opts.max_send_speed).unwrap_or(usize::MAX));
        }
        self.skip_upload(start, room)?;
        if self.up.crlf {
            // curl's LF converter (`cr_lc_read`): what an earlier read converted beyond
            // its chunk goes first; otherwise read as much as the chunk takes, pass it on
            // as it is when it has no LF, else convert all of it and hand out a chunk's
            // worth.
            if self.up.crlf_out_pos < self.up.crlf_out.len() {
                let rest = &self.up.crlf_out[self.up.crlf_out_pos..];
                let n = rest.len().min(room);
                self.up.buf[start..start + n].copy_from_slice(&rest[..n]);
                self.up.crlf_out_pos += n;
                return self.frame_upload(start, n);
            }
            let mut inb = std::mem::take(&mut self.up.crlf_in);
            inb.resize(room, 0);
            // A form or the POST fields fill the buffer as curl's readers do; the
            // application's callback is asked once.
            let mut read = self.read_body_source(&mut inb);
            if self.mime.is_some() || matches!(self.body, Body::Fields(_)) {
                while let Ok(got) = read {
                    if got == 0 || got >= room {
                        break;
                    }
                    read = self.read_body_source(&mut inb[got..]).map(|n| got + n);
                    if read.as_ref().is_ok_and(|&n| n == got) {
                        break;
                    }
                }
            }
            if read.as_ref().is_ok_and(|&n| n == 0) && self.paused() & pause::SEND != 0 {
                self.up.crlf_in = inb;
                self.up.pos = 0;
                self.up.len = 0;
                return Ok(());
            }
            let r = read.map(|n| {
                let n = n.min(room);
                let src = &inb[..n];
                if !src.contains(&b'\n') {
                    self.up.buf[start..start + n].copy_from_slice(src);
                    return n;
                }
                let out = &mut self.up.crlf_out;
                out.clear();
                for &b in src {
                    if b == b'\n' && !self.up.prev_cr {
                        out.push(b'\r');
                    }
                    out.push(b);
                    self.up.prev_cr = b == b'\r';
                }
                let k = out.len().min(room);
                self.up.buf[start..start + k].copy_from_slice(&out[..k]);
                self.up.crlf_out_pos = k;
                k
            });
            self.up.crlf_in = inb;
            let n = r?;
            return self.frame_upload(start, n);
        }
        let read = match (&self.body, self.mime.as_mut()) {
            // Chunked fields go through the buffer like any other body.
            (Body::Fields(f), _) => {
                let n = (f.len() - self.up.fields_sent).min(room);
                let from = self.up.fields_sent;
                self.up.buf[start..start + n].copy_from_slice(&f[from..from + n]);
                self.up.fields_sent += n;
                ReadResult::Data(n)
            }
            (_, Some(m)) => match m.read(&mut self.up.buf[start..start + room]) {
                Ok(n) => ReadResult::Data(n),
                Err(crate::mime::MimeError::Aborted) => ReadResult::Abort,
                Err(crate::mime::MimeError::Pause) => ReadResult::Pause,
                Err(_) => {
                    return Err(Error::new(
                        Code::ReadError,
                        "Failed to open/read local data from file/application",
                    ))
                }
            },
            (_, None) => {
                let room = match self.up.limit.or(self.up.chunked_left) {
                    Some(limit) if self.up.chunked => {
                        // A chunked PUT of known size reads no more than what is left.
                        room.min(usize::try_from(limit).unwrap_or(room))
                    }
                    Some(limit) => {
                        let sent = self.info.size_upload - self.up.upload_base;
                        room.min(usize::try_from(limit.saturating_sub(sent)).unwrap_or(room))
                    }
                    None => room,
                };
                if room == 0 {
                    ReadResult::Data(0)
                } else {
                    self.callbacks
                        .read_live(&mut self.up.buf[start..start + room], &self.info)
                }
            }
        };
        let n = match read {
            ReadResult::Data(n) => n.min(room),
            ReadResult::Pause => {
                self.pause_now(pause::SEND);
                self.up.pos = 0;
                self.up.len = 0;
                return Ok(());
            }
            ReadResult::Abort => {
                return Err(Error::new(
                    Code::AbortedByCallback,
                    "operation aborted by callback",
                ))
            }
        };
        self.frame_upload(start, n)
    }

    /// Read body bytes from the form, the POST fields or the application into `buf`.
    fn read_body_source(&mut self, buf: &mut [u8]) -> Result<usize> {
        let read = match (&self.body, self.mime.as_mut()) {
            (_, Some(m)) => match m.read(buf) {
                Ok(n) => ReadResult::Data(n),
                Err(crate::mime::MimeError::Aborted) => ReadResult::Abort,
                Err(crate::mime::MimeError::Pause) => ReadResult::Pause,
                Err(_) => {
                    return Err(Error::new(
                        Code::ReadError,
                        "Failed to open/read local data from file/application",
                    ))
                }
            },
            (Body::Fields(f), None) => {
                let rest = &f[self.up.fields_sent.min(f.len())..];
                let n = rest.len().min(buf.len());
                buf[..n].copy_from_slice(&rest[..n]);
                self.up.fields_sent += n;
                ReadResult::Data(n)
            }
            _ => self.callbacks.read_live(buf, &self.info),
        };
        match read {
            ReadResult::Data(n) => Ok(n),
            ReadResult::Pause => {
                self.pause_now(pause::SEND);
                Ok(0)
            }
            ReadResult::Abort => Err(Error::new(
                Code::AbortedByCallback,
                "operation aborted by callback",
            )),
        }
    }

    /// The `n` body bytes at `buf[start..]` are read: count, trace and frame them.
    fn frame_upload(&mut self, start: usize, n: usize) -> Result<()> {
        self.up.source_read |= n > 0;
        // HTTP/1 traces the bytes as they are sent.
        if self.opts.verbose && n > 0 && self.on_h2() {
            let d = self.up.buf[start..start + n].to_vec();
            self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
        }
        if self.up.chunked {
            if let Some(left) = &mut self.up.chunked_left {
                *left = left.saturating_sub(n as u64);
            }
            let at_end = n > 0
                && (self.up.chunked_left == Some(0)
                    || self.mime.as_ref().is_some_and(|m| m.at_end()));
            let mut hb = [0u8; 20];
            let h = crate::proto::h1::chunked::chunk_header(n, &mut hb);
            let hl = h.len();
            let hs = start - hl;
            self.up.buf[hs..start].copy_from_slice(&hb[..hl]);
            let mut end = start + n;
            if n > 0 {
                self.up.buf[end..end + 2].copy_from_slice(b"\r\n");
                end += 2;
            }
            if n == 0 || at_end {
                if at_end {
                    if self.up.buf.len() < end + 5 {
                        self.up.buf.resize(end + 5, 0);
                    }
                    self.up.buf[end..end + 3].copy_from_slice(b"0\r\n");
                    end += 3;
                }
                self.up.eof = true;
                end = self.last_chunk_trailers(end)?;
                self.up.buf[end..end + 2].copy_from_slice(b"\r\n");
                end += 2;
            }
            self.up.pos = hs;
            self.up.len = end;
            // curl counts what its chunked encoder hands on: the framing too.
            self.info.size_upload += (end - hs) as u64;
        } else {
            if n == 0 {
                self.up.eof = true;
            }
            self.up.pos = 0;
            self.up.len = n;
            self.info.size_upload += n as u64;
            if self.on_h2() {
                // HTTP/1 counts the bytes as it sends them; see `request_size` at the head.
                self.info.request_size += n as u64;
            }
        }
        Ok(())
    }

    /// The application's trailers after the last chunk's `0\r\n` at `buf[..end]` (curl's
    /// `add_last_chunk`): lines without `: ` after the name are skipped. Returns the new end,
    /// with room for the final CRLF.
    fn last_chunk_trailers(&mut self, mut end: usize) -> Result<usize> {
        let Some(lines) = self.callbacks.trailers() else {
            return Err(Error::new(
                Code::AbortedByCallback,
                "operation aborted by trailing headers callback",
            ));
        };
        for line in &lines {
            let ok = line
                .iter()
                .position(|&b| b == b':')
                .is_some_and(|i| line.get(i + 1) == Some(&b' '));
            if !ok {
                self.verbose("Malformatted trailing header, skipping trailer");
                continue;
            }
            let need = end + line.len() + 4;
            if self.up.buf.len() < need {
                self.up.buf.resize(need, 0);
            }
            self.up.buf[end..end + line.len()].copy_from_slice(line);
            end += line.len();
            self.up.buf[end..end + 2].copy_from_slice(b"\r\n");
            end += 2;
        }
        Ok(end)
    }

    fn do_recv(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        self.send_alongside(cx)?;
        if self.recv_held() {
            if !self.flush_held()? {
                return Ok(false);
            }
            if self.resp.phase == Phase::Complete {
                return self.complete(cx);
            }
        }
        let mut buf = cx.bufs.get(self.opts.buffer_size);
        let r = self.recv_loop(cx, &mut buf);
        cx.bufs.put(buf);
        r
    }

    fn recv_loop(&mut self, cx: &mut Cx<'_>, buf: &mut [u8]) -> Result<bool> {
        // Under a receive limit, read at most a second's worth at a time and check the
        // speed after every read (curl's `sendrecv_dl`).
        let limited = self.opts.max_recv_speed > 0;
        let buf = match usize::try_from(self.opts.max_recv_speed) {
            Ok(max) if limited && max < buf.len() => &mut buf[..max],
            _ => buf,
        };
        let trace = self.tls_trace_on();
        let mut burst = 0;
        loop {
            if trace {
                self.tls_trace_start();
            }
            let conn = self.conn.as_mut().expect("conn");
            let got = match conn.flush() {
                Ok(()) => Ok(conn.recv(buf)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(conn.recv(buf)),
                Err(e) => Err(e),
            };
            if trace {
                self.tls_trace_end();
            }
            let n = match got.map_err(|e| send_error(&e))? {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if let Some(err) = crate::tls::curl_error(&e) {
                        if self.resp.raw_bytes > 0 || !self.conn_reused {
                            return Err(err);
                        }
                    }
                    if self.resp.raw_bytes == 0 && self.conn_reused {
                        return self.retry_fresh();
                    }
                    return Err(Error::new(
                        Code::RecvError,
                        format!("Recv failure: {}", connect::os_error_text(&e)),
                    ));
                }
            };
            if n == 0 {
                return self.on_eof(cx);
            }
            if self.info.time_starttransfer.is_zero() {
                self.info.time_starttransfer = cx.now.duration_since(self.started);
            }
            self.resp.raw_bytes += n as u64;
            burst += n;
            self.process(cx, &buf[..n])?;
            if self.is_done() || !matches!(self.state, State::Recv) {
                return Ok(!self.is_done());
            }
            if self.result.is_some() {
                return Err(self
                    .result
                    .take()
                    .and_then(|r| r.err())
                    .unwrap_or_else(|| Error::code(Code::RecvError)));
            }
            if limited || self.recv_held() {
                return Ok(true);
            }
            // Drained: the poller says when more comes (level-triggered), so no read just
            // to hear WouldBlock.
            if self
                .conn
                .as_ref()
                .is_some_and(|c| c.input_drained(n, buf.len()))
            {
                if self.conn.as_ref().is_some_and(|c| c.tls.is_some()) {
                    cx.gather.drained(burst);
                }
                return Ok(false);
            }
        }
    }

    fn retry_fresh(&mut self) -> Result<bool> {
        const MAX_RETRIES: u32 = 5;
        if self.retries >= MAX_RETRIES {
            return Err(Error::new(
                Code::SendError,
                format!("Connection died, tried {MAX_RETRIES} times before giving up"),
            ));
        }
        self.retries += 1;
        self.conn = None;
        self.h2 = None;
        self.h2conn = None;
        let n = self.retries;
        self.verbose(&format!(
            "Connection died, retrying a fresh connect (retry count: {n})"
        ));
        self.fresh_once = true;
        self.state = State::Init;
        Ok(true)
    }

    fn on_eof(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        match self.resp.phase {
            Phase::Head => {
                if self.resp.raw_bytes == 0 {
                    if self.conn_reused {
                        return self.retry_fresh();
                    }
                    return Err(Error::new(Code::GotNothing, "Empty reply from server"));
                }
                // An HTTP/0.9 body ends here; so does, without an error in curl, a head cut
                // short.
                self.resp.keepalive = false;
                self.complete(cx)
            }
            Phase::Body => match self.resp.framing {
                Framing::Close => {
                    self.resp.keepalive = false;
                    self.complete(cx)
                }
                Framing::Length(left) => Err(Error::new(
                    Code::PartialFile,
                    format!("end of response with {left} bytes missing"),
                )),
                Framing::Chunked => Err(Error::new(
                    Code::PartialFile,
                    "transfer closed with outstanding read data remaining",
                )),
                Framing::None => self.complete(cx),
            },
            Phase::Complete => self.complete(cx),
        }
    }

    /// Feed received bytes through the response parser.
    fn process(&mut self, cx: &mut Cx<'_>, mut data: &[u8]) -> Result<()> {
        while !data.is_empty() {
            match self.resp.phase {
                Phase::Head => {
                    // The start of a response (all of it is here or held as a partial
                    // line; not one that follows a 1xx in the middle of a read): does it look
                    // like a status line? The held bytes count, so a split read cannot fool it.
                    let pending = self.resp.lines.pending();
                    if self.resp.first_line
                        && self.resp.raw_bytes as usize == data.len() + pending.len()
                        && !self.resp.http09
                    {
                        let mut prefix = [0u8; 5];
                        let p = pending.len().min(5);
                        prefix[..p].copy_from_slice(&pending[..p]);
                        let d = data.len().min(5 - p);
                        prefix[p..p + d].copy_from_slice(&data[..d]);
                        let start = &prefix[..p + d];
                        match head::looks_like_status_line(start) {
                            // curl's checkhttpprefix: an HTTP200ALIASES line may start it too.
                            Tri::No if head::matches_alias(&self.opts.http200_aliases, start) => {}
                            Tri::No => {
                                // curl: "Cannot be 0.9 if version was detected or connection
                                // was reused."
                                if self.conn_reused || self.resp.after_1xx {
                                    return Err(Error::new(
                                        Code::WeirdServerReply,
                                        "Invalid status line",
                                    ));
                                }
                                if !self.opts.http09_allowed {
                                    return Err(Error::new(
                                        Code::UnsupportedProtocol,
                                        "Received HTTP/0.9 when not allowed",
                                    ));
                                }
                                // curl's download writer: body bytes for a request that
                                // wants none, before any header, are a weird reply. curl
                                // drops the first line (held as a would-be header) and
                                // traces what follows it in this read.
                                if self.opts.nobody {
                                    if self.opts.verbose {
                                        if let Some(i) = data.iter().position(|&b| b == b'\n') {
                                            if i + 1 < data.len() {
                                                self.callbacks
                                                    .debug(InfoType::DataIn, &data[i + 1..]);
                                            }
                                        }
                                    }
                                    return Err(Error::code(Code::WeirdServerReply));
                                }
                                self.resp.http09 = true;
                                self.resp.version = HttpVersion::V0_9;
                                self.resp.code = 200;
                                self.info.response_code = 200;
                                self.info.http_version = HttpVersion::V0_9;
                                self.resp.framing = Framing::Close;
                                self.resp.keepalive = false;
                                self.resp.phase = Phase::Body;
                                continue;
                            }
                            Tri::Yes | Tri::NeedMore => {}
                        }
                    }
                    let (used, at) = self.resp.lines.feed_at(data).map_err(|e| {
                        Error::new(
                            Code::from_u32(e.curl_code()).unwrap_or(Code::RecvError),
                            e.to_string(),
                        )
                    })?;
                    let input = data;
                    data = &data[used..];
                    // A line whole in this read is used where it is; only one split across
                    // reads is copied out of the accumulator.
                    let held;
                    let line = match at {
                        Some(head::LineAt::Input(n)) => Some(&input[..n]),
                        Some(head::LineAt::Held(_)) => {
                            held = self.resp.lines.held().to_vec();
                            Some(&held[..])
                        }
                        None => None,
                    };
                    if let Some(line) = line {
                        self.on_header_line(line)?;
                        if self.h2_upgrade.1 {
                            self.h2_switch(cx, data);
                            return Ok(());
                        }
                        if !self.pending_cookies.is_empty() {
                            self.store_cookies(cx);
                        }
                        if let Some(v) = self.pending_sts.take() {
                            let host = self.url_host();
                            cx.hsts.on_header(&host, &v, crate::parsedate::unix_now());
                        }
                        if let Some(v) = self.pending_altsvc.take() {
                            self.store_altsvc(cx, &v);
                        }
                    }
                }
                Phase::Body => {
                    let used = self.on_body(data)?;
                    data = &data[used..];
                }
                Phase::Complete => {
                    // Bytes after a complete response: the connection is not clean.
                    self.resp.keepalive = false;
                    break;
                }
            }
        }
        if self.resp.phase == Phase::Complete && !self.h2_awaits_end() {
            self.complete(cx)?;
        }
        Ok(())
    }

    fn on_header_line(&mut self, line: &[u8]) -> Result<()> {
        let trimmed = trim_eol(line);
        if self.resp.first_line {
            self.resp.first_line = false;
            let st = match head::parse_status_line(line) {
                // An HTTP200ALIASES line is an HTTP/1.0 200, as curl's fallback has it.
                Err(head::StatusLineError::NotStatusLine)
                    if head::matches_alias(&self.opts.http200_aliases, line) =>
                {
                    head::StatusLine {
                        version: Version::Http10,
                        code: 200,
                        reason: b"",
                    }
                }
                r => r.map_err(|e| {
                    if e == head::StatusLineError::NotStatusLine
                        && (self.conn_reused || self.resp.after_1xx)
                    {
                        Error::new(Code::WeirdServerReply, "Invalid status line")
                    } else {
                        Error::new(Code::UnsupportedProtocol, e.to_string())
                    }
                })?,
            };
            // curl's http_statusline: no major version change on a connection that sent
            // HTTP/1, and no HTTP/3 in a build without it.
            match st.version {
                // HTTP/2 responses come through here too, as the status line curl shows.
                Version::Http2 if !self.on_h2() => {
                    return Err(Error::new(
                        Code::WeirdServerReply,
                        "Version mismatch (from HTTP/1 to HTTP/2)",
                    ))
                }
                Version::Http3 if !self.on_h2() => {
                    return Err(Error::new(
                        Code::UnsupportedProtocol,
                        "Unsupported HTTP version (3.0) in response",
                    ))
                }
                _ => {}
            }
            self.resp.code = st.code as u32;
            self.resp.version = match st.version {
                Version::Http09 => HttpVersion::V0_9,
                Version::Http10 => HttpVersion::V1_0,
                Version::Http11 => HttpVersion::V1_1,
                Version::Http2 => HttpVersion::V2,
                Version::Http3 => HttpVersion::V3,
            };
            self.resp.keepalive = matches!(self.resp.version, HttpVersion::V1_1 | HttpVersion::V2);
            if self.resp.version == HttpVersion::V1_0 {
                self.seen_http10 = true;
                self.verbose("HTTP 1.0, assume close after body");
            }
            // curl takes a 416 to a resumed download as "already complete" and drops its body.
            self.resp.ignore_body = self.resp.code == 416 && self.resuming_get();
            self.info.response_code = self.resp.code;
            self.info.http_version = self.resp.version;
            // curl's verify_header, which follows the status line parse.
            if line.contains(&0) {
                return Err(Error::new(
                    Code::WeirdServerReply,
                    head::HeaderLineError::NulByte.to_string(),
                ));
            }
            self.deliver_header(line)?;
            return Ok(());
        }
        if head::is_head_end(line) {
            if self.resp.code >= 200 {
                self.auth_act()?;
            }
            let unmet = self.time_condition_unmet();
            // curl decides about the body (and fails) before it passes on the blank line, and
            // passes it on even when it fails.
            let decided = self.end_of_head();
            if let Err(e) = &decided {
                if self.opts.verbose {
                    self.verbose(e.message());
                    self.resp.error_shown = true;
                }
            }
            let delivered = self.deliver_header(line);
            decided?;
            delivered?;
            if unmet {
                // curl answers as if the server had said 304 and drops the body, and with it
                // the connection.
                self.info.response_code = 304;
                self.info.content_length_download = None;
                self.resp.keepalive = false;
                self.resp.framing = Framing::None;
                self.resp.decoder = None;
                self.resp.phase = Phase::Complete;
            }
            return Ok(());
        }
        let first_header = !self.resp.seen_header;
        head::check_header_line(trimmed, first_header)
            .map_err(|e| Error::new(Code::WeirdServerReply, e.to_string()))?;
        self.count_header()?;
        if self.resp.code == 401 || self.resp.code == 407 {
            // curl reads a challenge before it shows the header line.
            if let Some((name, value)) = head::split_header(trimmed) {
                let mut notes = Vec::new();
                if self.resp.code == 401 && name.eq_ignore_ascii_case(b"WWW-Authenticate") {
                    self.auth.input(value, &mut notes);
                } else if self.resp.code == 407 && name.eq_ignore_ascii_case(b"Proxy-Authenticate")
                {
                    self.proxy_auth.input(value, &mut notes);
                }
                for n in notes {
                    self.verbose(n);
                }
            }
        }
        // curl acts on a header line (http_header) before it shows and passes it on, so a
        // bad one (a negative Content-Length) fails before it is written; it builds its
        // decoders from Transfer-Encoding then too.
        let continued = !first_header && head::continuation(trimmed).is_some();
        if !continued && !trimmed.starts_with(b" ") && !trimmed.starts_with(b"\t") {
            if let Some((name, value)) = head::split_header(trimmed) {
                if name.eq_ignore_ascii_case(b"Transfer-Encoding") {
                    self.transfer_codings(value)?;
                }
                self.apply_header(&String::from_utf8_lossy(name), value)?;
            }
        }
        self.deliver_header(line)?;
        self.resp.seen_header = true;
        if !first_header {
            if let Some(more) = head::continuation(trimmed) {
                // obs-fold: the header callback got the raw line; the header API sees the
                // previous value continued. HTTP semantics ignore the line, as in curl.
                let no = self.resp.request_no;
                if let Some(h) = self.info.headers.last_mut().filter(|h| h.request == no) {
                    h.push_value(&String::from_utf8_lossy(more));
                }
                return Ok(());
            }
        }
        // A first header line that starts with blanks cannot continue anything: curl stores
        // it without them, but does not act on it.
        let blanks = trimmed
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if let Some((name, value)) = head::split_header(&trimmed[blanks..]) {
            if blanks == 0 && name.eq_ignore_ascii_case(b"Set-Cookie") && self.cookie_engine() {
                if let Some(colon) = line.iter().position(|&b| b == b':') {
                    self.pending_cookies.push(line[colon + 1..].to_vec());
                }
            }
            if self.info.headers.capacity() == 0 {
                // A typical response's headers in one allocation, not four.
                self.info.headers.reserve(16);
            }
            self.info.headers.push(Header::new(
                &String::from_utf8_lossy(name),
                &String::from_utf8_lossy(value),
                self.resp.request_no,
            ));
        }
        Ok(())
    }

    fn apply_header(&mut self, name: &str, value: &[u8]) -> Result<()> {
        if name.eq_ignore_ascii_case("Content-Length") {
            // curl takes each Content-Length as it comes: the last valid one wins.
            match head::parse_content_length(value) {
                Ok(n) => self.resp.content_length = Some(n),
                Err(head::ContentLengthError::Overflow) => {
                    if self.opts.max_filesize.is_some() {
                        return Err(Error::new(
                            Code::FilesizeExceeded,
                            "Maximum file size exceeded",
                        ));
                    }
                    self.resp.keepalive = false;
                    // curl's message names no value here, literally.
                    self.verbose("Overflow Content-Length: value");
                }
                // curl's message names no value here, literally.
                Err(head::ContentLengthError::Invalid) => {
                    return Err(Error::new(
                        Code::WeirdServerReply,
                        "Invalid Content-Length: value",
                    ))
                }
            }
        } else if name.eq_ignore_ascii_case("Content-Encoding") {
            self.resp.content_encoding = Some(value.to_vec());
        } else if name.eq_ignore_ascii_case("Content-Range") {
            // curl's forms: "bytes N-", "bytes: N-", "N-" and "*/TOTAL"; only the start counts.
            let rest = value.iter().position(|&b| b.is_ascii_digit() || b == b'*');
            match rest.map(|i| &value[i..]) {
                Some(v) if v[0].is_ascii_digit() => {
                    let end = v
                        .iter()
                        .position(|b| !b.is_ascii_digit())
                        .unwrap_or(v.len());
                    let start = std::str::from_utf8(&v[..end])
                        .ok()
                        .and_then(|d| d.parse::<u64>().ok());
                    if start.is_some_and(|n| n == self.opts.resume_from) {
                        self.resp.range_matches = true;
                    }
                }
                _ if self.resp.code < 300 => self.resp.range_everything = true,
                _ => {}
            }
        } else if name.eq_ignore_ascii_case("Location") {
            // curl keeps the first non-empty Location of a 3xx and ignores the others.
            if (300..400).contains(&self.resp.code)
                && self.resp.location.is_none()
                && !value.trim_ascii().is_empty()
            {
                self.resp.location = Some(String::from_utf8_lossy(value).into_owned());
            }
        } else if name.eq_ignore_ascii_case("Strict-Transport-Security") {
            if self.opts.hsts_file.is_some() && self.info.scheme == "https" {
                self.pending_sts = Some(String::from_utf8_lossy(value).into_owned());
            }
        } else if name.eq_ignore_ascii_case("Alt-Svc") {
            if self.opts.altsvc_file.is_some() && self.info.scheme == "https" {
                self.pending_altsvc = Some(value.to_vec());
            }
        } else if name.eq_ignore_ascii_case("Content-Type") {
            self.info.content_type = Some(String::from_utf8_lossy(value).into_owned());
        } else if name.eq_ignore_ascii_case("Connection") {
            for c in head::codings(value) {
                if c.eq_ignore_ascii_case(b"close") {
                    self.resp.keepalive = false;
                } else if c.eq_ignore_ascii_case(b"keep-alive") {
                    self.resp.keepalive = true;
                }
            }
        }
        Ok(())
    }

    /// A `Transfer-Encoding` value, as curl's `Curl_build_unencoding_stack` takes it:
    /// chunked is always undone and must come last; other codings are undone with
    /// `--tr-encoding` and refused without it (unless `--raw`, which ignores them and
    /// everything after).
    fn transfer_codings(&mut self, value: &[u8]) -> Result<()> {
        /// `MAX_ENCODE_STACK`: decoders per phase, the new one included.
        const MAX_STACK: usize = 5;
        let bad = |msg: String| Error::new(Code::BadContentEncoding, msg);
        self.resp.te_seen = true;
        let mut has_chunked = false;
        for c in head::codings(value) {
            let name = String::from_utf8_lossy(c);
            let chunked = c.eq_ignore_ascii_case(b"chunked");
            if !self.opts.transfer_encoding && !chunked {
                if !self.opts.http_transfer_decoding {
                    return Ok(());
                }
                if has_chunked {
                    return Err(bad(format!(
                        "A Transfer-Encoding ({name}) was listed after chunked"
                    )));
                }
                if c.len() >= 8 && c[..8].eq_ignore_ascii_case(b"identity") {
                    continue;
                }
                return Err(bad(format!("Unsolicited Transfer-Encoding ({name}) found")));
            }
            let stacked = self.resp.transfer_stack + usize::from(self.resp.chunked_te);
            if stacked + 1 >= MAX_STACK {
                return Err(bad(format!(
                    "Reject response due to more than {MAX_STACK} content encodings"
                )));
            }
            if chunked {
                if self.resp.chunked_te {
                    // A second chunked is ignored, with the rest of the list.
                    return Ok(());
                }
                self.resp.chunked_te = true;
                has_chunked = true;
                continue;
            }
            if self.resp.chunked_te {
                return Err(bad(
                    "Reject response due to 'chunked' not being the last Transfer-Encoding".into(),
                ));
            }
            self.resp.transfer_stack += 1;
            if !self.resp.transfer_codings.is_empty() {
                self.resp.transfer_codings.push(b',');
            }
            self.resp.transfer_codings.extend_from_slice(c);
        }
        Ok(())
    }

    /// curl keeps at most [`MAX_RESP_HEADERS`] header lines (1xx heads, trailers and earlier
    /// responses of the transfer included; status lines not) for its header API.
    fn count_header(&mut self) -> Result<()> {
        if self.header_count >= MAX_RESP_HEADERS {
            return Err(Error::new(
                Code::TooLarge,
                format!("Too many response headers, {MAX_RESP_HEADERS} is max"),
            ));
        }
        self.header_count += 1;
        Ok(())
    }

    fn deliver_header(&mut self, line: &[u8]) -> Result<()> {
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::HeaderIn, line, &self.info);
        }
        self.emit(Out::Header, line)?;
        // curl's http_write_header counts the line once the callbacks had it.
        self.info.header_size += line.len() as u64;
        if self.opts.include_header {
            self.emit(Out::HeaderBody, line)?;
        }
        Ok(())
    }

    /// curl's `Curl_http_auth_act` at the end of a final response head: decide whether the
    /// URL is asked again with (other) credentials, and then ignore this body.
    fn auth_act(&mut self) -> Result<()> {
        let code = self.resp.code as u16;
        let get_or_head = matches!(self.body, Body::None);
        let mut retry = self.auth.act(
            code,
            self.creds.is_some(),
            self.opts.bearer.is_some(),
            get_or_head,
        );
        if self.proxy.is_some() && !self.tunnel_wanted {
            let proxy_user = self.proxy_has_user();
            retry |= self.proxy_auth.act(code, proxy_user, false, get_or_head);
        }
        if !retry {
            return Ok(());
        }
        self.auth_retry = true;
        Ok(())
    }

    /// curl's `Curl_meets_timecondition` for a final response with a `Last-Modified`, when a
    /// time condition is set and no range asked for; says so in verbose mode when unmet.
    fn time_condition_unmet(&mut self) -> bool {
        let Some((cond, value)) = self.opts.time_condition else {
            return false;
        };
        if (100..200).contains(&self.resp.code)
            || self.opts.range.is_some()
            || self.opts.resume_from > 0
            || value == 0
        {
            return false;
        }
        let no = self.resp.request_no;
        let doc = self
            .info
            .headers
            .iter()
            .rev()
            .find(|h| h.request == no && h.name().eq_ignore_ascii_case("Last-Modified"))
            .map(|h| crate::parsedate::getdate_capped(h.value().trim().as_bytes()))
            // An unreadable date (-1) counts as very old, as in curl.
            .filter(|t| *t != 0);
        let Some(doc) = doc else {
            return false;
        };
        let msg = match cond {
            TimeCondition::IfUnmodSince if doc >= value => {
                "The requested document is not old enough"
            }
            TimeCondition::IfModSince | TimeCondition::LastMod if doc <= value => {
                "The requested document is not new enough"
            }
            _ => return false,
        };
        self.verbose(msg);
        self.verbose("Simulate an HTTP 304 response");
        true
    }

    fn end_of_head(&mut self) -> Result<()> {
        let code = self.resp.code;
        if code < 100 {
            return Err(Error::new(
                Code::UnsupportedProtocol,
                "Unsupported response code in HTTP response",
            ));
        }
        // A 101 to no Upgrade of ours ends the head as a final response would (curl: "We
        // silently accept this as the final response").
        if (100..200).contains(&code) && (code != 101 || self.h2_upgrade.0) {
            // Informational: another head follows.
            let no = self.resp.request_no;
            let waiting = self.up.await_continue;
            self.resp = Resp::new(no + 1);
            self.resp.after_1xx = true;
            if code == 100 && waiting {
                self.up.await_continue = false;
                self.timers.clear(TimerId::Expect100);
                self.state = State::Send;
            }
            // The h2c upgrade asked for: HTTP/2 follows ([`Transfer::h2_switch`]).
            if code == 101 && self.h2_upgrade.0 {
                self.h2_upgrade.1 = true;
            }
            return Ok(());
        }
        if std::mem::take(&mut self.h2_upgrade.0) {
            self.h2_denied = true;
        }
        let mut keep_sending = false;
        if self.up.await_continue || !self.up.body_done {
            let sending = matches!(
                self.body,
                Body::Upload(_) | Body::PostRead(_) | Body::Fields(_) | Body::Mime(_)
            );
            let sent = self.info.size_upload - self.up.upload_base;
            let abort_note = if sent > 0 {
                format!("abort upload after having sent {sent} bytes")
            } else {
                "abort upload".to_string()
            };
            if code == 417 && self.up.expect_announced && sending && !self.probing() {
                // curl sends the request again without Expect; the connection stays when
                // no body byte went yet.
                if self.up.await_continue && self.info.size_upload == self.up.upload_base {
                    self.verbose("Got HTTP failure 417 while waiting for a 100");
                    self.up.await_continue = false;
                    self.up.body_done = true;
                    self.timers.clear(TimerId::Expect100);
                } else {
                    self.verbose("Got HTTP failure 417 while sending data");
                }
                self.verbose(&abort_note);
                self.disable_expect = true;
                self.auth_retry = true;
            } else if code >= 300 && sending && !self.probing() {
                if self.opts.keep_sending_on_error {
                    // curl's http_exp100_send_anyway: no more waiting for a 100.
                    self.verbose("HTTP error before end of send, keep sending");
                    self.up.await_continue = false;
                    self.timers.clear(TimerId::Expect100);
                    keep_sending = true;
                } else {
                    self.verbose("HTTP error before end of send, stop sending");
                    self.verbose(&abort_note);
                }
            } else if code < 300 && !self.up.await_continue {
                // An early success: curl goes on sending the body.
                keep_sending = true;
            }
        }
        if !keep_sending && (self.up.await_continue || !self.up.body_done) {
            // A final answer before the body went: do not send it, and do not reuse.
            self.up.await_continue = false;
            self.up.body_done = true;
            self.timers.clear(TimerId::Expect100);
            self.resp.keepalive = false;
        }
        if self.fails_on(code) {
            self.resp.keepalive = false;
            return Err(Error::new(
                Code::HttpReturnedError,
                format!("The requested URL returned error: {code}"),
            ));
        }
        let follow = self.opts.follow_location
            && matches!(code, 301 | 302 | 303 | 307 | 308)
            && self.resp.location.is_some();
        if let Some(loc) = &self.resp.location {
            if follow {
                // Resolved against the current URL when followed, after the body.
                self.redirect_to = Some(loc.clone());
            } else if (300..400).contains(&code) {
                // curl's FOLLOW_FAKE: the Location as given when it does not parse.
                let base = self.url.clone().expect("url");
                self.info.redirect_url = Some(match base.join(loc, self.url_flags()) {
                    Ok(u) => u.to_url_string(),
                    Err(_) => loc.clone(),
                });
            }
        }
        if self.resp.version == HttpVersion::V1_0 || self.opts.http_version == HttpVersionPref::V1_0
        {
            // HTTP/1.0 keeps the connection only when the server says so.
            if self.resp.version == HttpVersion::V1_0 {
                self.resp.keepalive = self
                    .info
                    .headers
                    .iter()
                    .filter(|h| h.request == self.resp.request_no)
                    .any(|h| {
                        h.name().eq_ignore_ascii_case("Connection")
                            && h.value().eq_ignore_ascii_case("keep-alive")
                    });
            }
        }
        // curl's `http_firstwrite`. A response that leads to another request is not
        // delivered; on a connection that closes anyway it is not even read.
        let newurl = self.redirect_to.is_some() || self.auth_retry;
        let mut stop = newurl && !self.resp.keepalive;
        if newurl && !stop {
            self.resp.ignore_body = true;
            self.verbose("Ignoring the response-body");
        }
        // Only a GET resumes a download (curl checks `HTTPREQ_GET`); uploads say where they
        // resume with Content-Range and take whatever answer. Any response that does not
        // start at the resume point ends it, unless it is exactly the part already there.
        if !stop
            && !self.resp.ignore_body
            && self.resuming_get()
            && !self.resp.range_matches
            && !self.resp.range_everything
        {
            if self.resp.content_length != Some(self.opts.resume_from) {
                return Err(Error::new(
                    Code::RangeError,
                    "HTTP server does not seem to support byte ranges. Cannot resume.",
                ));
            }
            self.verbose("The entire document is already downloaded");
            self.resp.keepalive = false;
            stop = true;
        }
        let no_body = self.method == "HEAD" || code == 204 || code == 304;
        // CURLOPT_IGNORE_CONTENT_LENGTH: the body runs until the server closes; so does a
        // transfer-encoded body without chunks when curl decodes transfer codings.
        let te_unchunked =
            self.opts.transfer_encoding && self.resp.te_seen && !self.resp.chunked_te;
        if self.opts.ignore_content_length || te_unchunked {
            self.resp.content_length = None;
        }
        self.resp.framing = if no_body {
            Framing::None
        } else if self.resp.chunked_te {
            // Without transfer decoding (--raw) the chunks are still tracked to find the end
            // of the body; only the delivery differs.
            self.resp.chunked = Some(ChunkedDecoder::new());
            Framing::Chunked
        } else if let Some(n) = self.resp.content_length {
            Framing::Length(n)
        } else {
            self.resp.keepalive = false;
            Framing::Close
        };
        self.info.content_length_download = if no_body {
            None
        } else {
            self.resp.content_length
        };
        if let (Some(max), Some(n)) = (self.opts.max_filesize, self.resp.content_length) {
            if n > max && !no_body && !self.resp.ignore_body {
                return Err(Error::new(
                    Code::FilesizeExceeded,
                    "Maximum file size exceeded",
                ));
            }
        }
        if self.resp.ignore_body && self.resp.content_length.is_some() && !self.resp.chunked_te {
            self.verbose("setting size while ignoring");
        }
        if stop {
            self.resp.phase = Phase::Complete;
            return Ok(());
        }
        // Transfer codings are undone first, then content codings: one chain, the
        // transfer codings listed last.
        let content = self
            .resp
            .content_encoding
            .as_ref()
            .filter(|_| self.opts.accept_encoding.is_some() && self.opts.http_content_decoding);
        let codings = match (content, self.resp.transfer_codings.is_empty()) {
            (Some(ce), true) => Some(ce.clone()),
            (Some(ce), false) => Some([&ce[..], b",", &self.resp.transfer_codings].concat()),
            (None, false) => Some(self.resp.transfer_codings.clone()),
            (None, true) => None,
        };
        if let Some(ce) = &codings {
            if !no_body {
                let d = Decoder::new(ce).map_err(|e| {
                    Error::new(
                        Code::from_u32(e.curl_code()).unwrap_or(Code::BadContentEncoding),
                        e.to_string(),
                    )
                })?;
                self.resp.decoder = Some(d);
            }
        }
        self.resp.phase = match self.resp.framing {
            Framing::None | Framing::Length(0) => Phase::Complete,
            _ => Phase::Body,
        };
        Ok(())
    }

    /// Does `--fail` end the transfer on this response code?
    fn fails_on(&self, code: u32) -> bool {
        self.opts.fail_on_error
            && code >= 400
            && match code {
                401 => self.auth.fails_on_challenge(self.creds.is_some()),
                407 => self.proxy_auth.fails_on_challenge(self.proxy_has_user()),
                // A resumed download that was already complete.
                416 => !self.resuming_get(),
                _ => true,
            }
    }

    /// A custom `Transfer-Encoding` header (also an empty one that removes it): does it
    /// name chunked? curl's `Curl_checkheaders` and `Curl_compareheader`.
    fn custom_chunked(&self) -> Option<bool> {
        if !request::custom_has(&self.opts.headers, "Transfer-Encoding") {
            return None;
        }
        let chunked =
            request::custom_value(&self.opts.headers, "Transfer-Encoding").is_some_and(|v| {
                v.split(',')
                    .any(|t| t.trim().eq_ignore_ascii_case("chunked"))
            });
        Some(chunked)
    }

    /// A resumed download (curl: `resume_from` set and `HTTPREQ_GET`).
    fn resuming_get(&self) -> bool {
        self.opts.resume_from > 0
            && self.opts.range.is_none()
            && matches!(self.body, Body::None)
            && self.method != "HEAD"
    }

    /// Consume body bytes; returns how many belonged to this response.
    fn on_body(&mut self, data: &[u8]) -> Result<usize> {
        match self.resp.framing {
            Framing::Length(left) => {
                let n = (left.min(data.len() as u64)) as usize;
                self.deliver_body(&data[..n])?;
                let left = left - n as u64;
                self.resp.framing = Framing::Length(left);
                if left == 0 {
                    self.resp.phase = Phase::Complete;
                }
                Ok(n)
            }
            Framing::Close => {
                self.deliver_body(data)?;
                Ok(data.len())
            }
            Framing::None => {
                self.resp.phase = Phase::Complete;
                Ok(0)
            }
            Framing::Chunked => {
                // Raw mode passes on what arrived, framing and all, before parsing it (curl
                // does the same, so even bytes after the last chunk are written).
                let raw = !self.opts.http_transfer_decoding;
                if raw {
                    self.deliver_body(data)?;
                }
                let mut dec = self.resp.chunked.take().expect("chunked decoder");
                let mut used = 0;
                let r = (|| {
                    while used < data.len() {
                        let (n, ev) = dec.decode(&data[used..]).map_err(|e| {
                            Error::new(
                                Code::from_u32(e.curl_code()).unwrap_or(Code::RecvError),
                                e.to_string(),
                            )
                        })?;
                        used += n;
                        match ev {
                            Some(ChunkEvent::Data(d)) => {
                                if !raw {
                                    self.deliver_body(d)?;
                                }
                            }
                            Some(ChunkEvent::Trailer(t)) if !raw => {
                                self.count_header()?;
                                let mut line = t.to_vec();
                                line.extend_from_slice(b"\r\n");
                                self.deliver_header(&line)?;
                            }
                            Some(ChunkEvent::Done) => {
                                self.resp.phase = Phase::Complete;
                                break;
                            }
                            Some(ChunkEvent::Trailer(_)) | None => {}
                        }
                    }
                    Ok(())
                })();
                self.resp.chunked = Some(dec);
                r.map(|_| used)
            }
        }
    }

    fn deliver_body(&mut self, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        self.resp.body_bytes += data.len() as u64;
        if self.redirect_to.is_some() || self.auth_retry || self.resp.ignore_body {
            return Ok(());
        }
        if let Some(max) = self.opts.max_filesize {
            // curl writes up to the limit, then fails naming the limit and the bytes written.
            let room = max.saturating_sub(self.info.size_download);
            if data.len() as u64 > room {
                self.deliver_body_bytes(&data[..room as usize])?;
                return Err(Error::new(
                    Code::FilesizeExceeded,
                    format!(
                        "Exceeded the maximum allowed file size ({max}) with {} bytes",
                        self.info.size_download
                    ),
                ));
            }
        }
        self.deliver_body_bytes(data)
    }

    /// Count, trace, decode and write body bytes that are within the limits.
    fn deliver_body_bytes(&mut self, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        // curl's download writer counts the bytes once the writers after it took them:
        // CURLINFO_SIZE_DOWNLOAD inside the write callback is what came before.
        self.hand_over_body(data)?;
        self.info.size_download += data.len() as u64;
        Ok(())
    }
    fn hand_over_body(&mut self, data: &[u8]) -> Result<()> {
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::DataIn, data, &self.info);
        }
        if let Some(mut dec) = self.resp.decoder.take() {
            let mut failed = None;
            let r = dec.decode(data, &mut |out: &[u8]| {
                self.emit(Out::Body, out).map_err(|e| failed = Some(e))
            });
            self.resp.decoder = Some(dec);
            if let Some(e) = failed {
                return Err(e);
            }
            let chunked = self.resp.framing == Framing::Chunked;
            return r.map_err(|e| {
                let code = Code::from_u32(e.curl_code()).unwrap_or(Code::BadContentEncoding);
                // A decoder without a message of its own under chunked: curl's chunked
                // reader names itself.
                if chunked && e.kind() == crate::content_encoding::DecodeErrorKind::Bad {
                    Error::new(code, "Failed reading the chunked-encoded stream")
                } else {
                    Error::new(code, e.to_string())
                }
            });
        }
        self.emit(Out::Body, data)
    }

    /// The response is fully received: follow a redirect or finish.
    fn complete(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if let Some(mut dec) = self.resp.decoder.take() {
            let mut failed = None;
            let r = dec
                .finish(&mut |out: &[u8]| self.emit(Out::Body, out).map_err(|e| failed = Some(e)));
            if let Some(e) = failed {
                return Err(e);
            }
            r.map_err(|e| {
                Error::new(
                    Code::from_u32(e.curl_code()).unwrap_or(Code::BadContentEncoding),
                    e.to_string(),
                )
            })?;
        }
        self.resp.phase = Phase::Complete;
        // Data kept during a pause goes first: the transfer completes when it is let go.
        if self.recv_held() {
            return Ok(false);
        }
        // The answer came before the whole body and the body goes on: the transfer ends
        // once it is sent (`do_send` comes back here).
        if !self.up.body_done && !self.up.await_continue {
            self.state = State::Send;
            return Ok(true);
        }
        let reusable = self.resp.keepalive && self.up.body_done && !self.opts.forbid_reuse;
        // The connection is settled before a next request begins: one that fails before it
        // connects has none (curl's "closing connection #-1").
        self.settle_pending(cx);
        if self.auth_retry {
            self.auth_retry = false;
            self.redirect_to = None;
            self.release_conn(cx, reusable);
            return self.retry_for_auth(cx).map(|_| true);
        }
        if let Some(next) = self.redirect_to.take() {
            self.release_conn(cx, reusable);
            return self.follow(cx, next).map(|_| true);
        }
        self.release_conn(cx, reusable);
        self.finish(cx, Ok(()));
        Ok(false)
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

    fn follow(&mut self, cx: &mut Cx<'_>, next: String) -> Result<()> {
        let max = self.opts.max_redirs;
        if max >= 0 && self.info.redirect_count as i64 >= max {
            // curl's FOLLOW_FAKE: %{redirect_url} still tells where it would have gone (the
            // Location as given when it does not parse).
            let base = self.url.clone().expect("url");
            let fake = Flags {
                non_support_scheme: true,
                ..Flags::default()
            };
            self.info.redirect_url = Some(match base.join(&next, fake) {
                Ok(u) => u.to_url_string(),
                Err(_) => next,
            });
            return Err(Error::new(
                Code::TooManyRedirects,
                format!("Maximum ({max}) redirects followed"),
            ));
        }
        self.info.redirect_count += 1;
        self.redirected = true;
        let code = self.resp.code;
        let cur = self.url.clone().expect("url");
        // curl resolves the Location without accepting unknown schemes, so a redirect to one
        // fails here rather than when connecting.
        let flags = Flags {
            url_encode: true,
            allow_space: true,
            path_as_is: self.opts.path_as_is,
            ..Flags::default()
        };
        // curl's override_login wrote the credentials in use into the URL handle the Location
        // is resolved against: a relative redirect keeps them in the URL it shows (the "Issue
        // another request" line, %{url_effective}). The next request reads them as before.
        let base = self.url_with_credentials(&cur);
        let new = base
            .as_ref()
            .unwrap_or(&cur)
            .join(&next, flags)
            .map_err(|e| {
                let code = match e {
                    oxcurl_urlapi::UrlError::UnsupportedScheme => Code::UnsupportedProtocol,
                    _ => Code::UrlMalformat,
                };
                Error::new(
                    code,
                    format!(
                        "The redirect target URL could not be parsed: {}",
                        e.message()
                    ),
                )
            })?;
        // A Location with a user of its own (another host, say) is read as before.
        self.creds_injected = base
            .as_ref()
            .is_some_and(|b| b.user() == new.user() && b.password() == new.password());
        // curl's Curl_http_follow: credentials from the URL are kept for another host (they
        // are sent only where allowed) but dropped for another port or scheme.
        if !self.opts.unrestricted_auth {
            let (from, to) = (cur.port_or_default(), new.port_or_default());
            let note = if from != to {
                Some(format!("Clear auth, redirects to port from {from} to {to}"))
            } else if new.scheme() != cur.scheme() {
                Some(format!(
                    "Clear auth, redirects scheme from {} to {}",
                    cur.scheme(),
                    new.scheme()
                ))
            } else {
                None
            };
            if let Some(note) = note {
                self.verbose(&note);
                self.url_user = None;
                self.url_password = None;
            }
        }
        self.verbose(&format!(
            "Issue another request to this URL: '{}'",
            new.to_url_string()
        ));
        if self.opts.autoreferer {
            self.referer = Some(referer_for(&cur));
            self.info.referer.clone_from(&self.referer);
        }
        // curl's method rules (lib/http.c, Curl_follow): they look at the kind of request (a
        // POST is one with a request body from -d and friends), not at a -X method, which is
        // kept; switching to GET drops the body.
        let is_post = matches!(
            self.body,
            Body::Fields(_) | Body::PostRead(_) | Body::Mime(_)
        );
        let is_get = matches!(self.body, Body::None) && !self.opts.nobody;
        let switch_to_get = match code {
            301 => is_post && !self.opts.post301,
            302 => is_post && !self.opts.post302,
            // --post303 keeps a POST; anything but a GET becomes one.
            303 => !(is_get || is_post && self.opts.post303),
            _ => false,
        };
        // curl's Curl_http_follow and http_switch_to_get: the custom method as the mode says.
        let custom = self.opts.custom_request.clone();
        let mode = self.opts.follow_mode;
        if mode == FollowMode::FirstOnly && custom.is_some() && !self.ignore_custom {
            self.ignore_custom = true;
            self.verbose("Drop custom request method for next request");
        }
        if switch_to_get {
            if mode == FollowMode::ObeyCode {
                self.verbose(&format!("Switch to GET because of {code} response"));
                self.ignore_custom = true;
            } else if let Some(m) = custom.filter(|_| mode != FollowMode::FirstOnly) {
                self.verbose(&format!("Stick to {m} instead of GET"));
            }
            self.body = Body::None;
        } else if matches!(self.body, Body::Upload(_) | Body::PostRead(_)) && {
            // curl's Curl_follow has the new URL in place before it rewinds.
            self.info.effective_url = new.to_url_string();
            !self.callbacks.rewind_live(&self.info)
        } {
            return Err(Error::new(
                Code::SendFailRewind,
                "necessary data rewind was not possible",
            ));
        }
        self.info.time_redirect = cx.now.duration_since(self.started);
        // Curl_pgrsResetTransferSizes: the next request's sizes are not known yet.
        self.info.content_length_download = None;
        self.info.content_length_upload = None;
        self.url = Some(Arc::new(new));
        self.state = State::Init;
        Ok(())
    }

    /// `url` with the user and password of this transfer in it, URL-encoded (curl's
    /// `override_login` sets them on its URL handle), or None without credentials.
    fn url_with_credentials(&self, url: &Url) -> Option<Url> {
        let (user, pass) = self.creds.as_ref()?;
        let mut with = url.clone();
        let encode = Flags {
            url_encode: true,
            ..Flags::default()
        };
        let nonempty = |s: &String| (!s.is_empty()).then(|| s.clone());
        with.set(Part::User, nonempty(user).as_deref(), encode)
            .ok()?;
        with.set(Part::Password, nonempty(pass).as_deref(), encode)
            .ok()?;
        Some(with)
    }

    /// Request the same URL again to answer an authentication challenge (curl's
    /// `FOLLOW_RETRY`): no redirect is counted.
    fn retry_for_auth(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        // curl counts the retry as a followed redirect, against --max-redirs too.
        let max = self.opts.max_redirs;
        if max >= 0 && self.info.redirect_count as i64 >= max {
            return Err(Error::new(
                Code::TooManyRedirects,
                format!("Maximum ({max}) redirects followed"),
            ));
        }
        self.info.redirect_count += 1;
        let url = self.url.clone().expect("url");
        self.verbose(&format!(
            "Issue another request to this URL: '{}'",
            url.to_url_string()
        ));
        if matches!(self.body, Body::Upload(_) | Body::PostRead(_))
            && self.up.source_read
            && !self.callbacks.rewind_live(&self.info)
        {
            return Err(Error::new(
                Code::SendFailRewind,
                "necessary data rewind was not possible",
            ));
        }
        let _ = cx;
        self.state = State::Init;
        Ok(())
    }

    fn finish(&mut self, cx: &mut Cx<'_>, r: Result<()>) {
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
        if let State::Resolving { job, .. } | State::SocksResolving { job } = self.state {
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
                if let Some(note) = closing {
                    self.verbose(&note);
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
            | State::TlsConnect { .. }
            | State::Tunnel
            | State::TunnelSkip
            | State::SocksResolving { .. }
            | State::Socks
            | State::HaProxy => "closing",
            // curl's multi_done counts a callback's abort and a read or write error as
            // premature: the file's connection is closed, else it ends the regular way.
            State::File => match code {
                Code::AbortedByCallback | Code::ReadError | Code::WriteError => "closing",
                _ => "shutting down",
            },
            State::Send | State::Recv if self.conn.is_some() => {
                if code == Code::GotNothing {
                    "shutting down"
                } else {
                    "closing"
                }
            }
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
fn absolute_form(url: &Url) -> String {
    let mut u = url.clone();
    let _ = u.set(Part::User, None, Flags::default());
    let _ = u.set(Part::Password, None, Flags::default());
    let _ = u.set(Part::Fragment, None, Flags::default());
    // curl asks for CURLU_NO_DEFAULT_PORT: "http://host:80/" goes as "http://host/".
    let flags = GetFlags {
        no_default_port: true,
        ..GetFlags::default()
    };
    u.get(Part::Url, flags)
        .unwrap_or_else(|_| u.to_url_string())
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
