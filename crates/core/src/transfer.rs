//! One transfer's state machine (curl's multi states: init, resolving, connecting, do,
//! perform, done) for HTTP/1.x. The multi drives it: `drive` advances as far as the sockets
//! allow without blocking, then the multi asks `interests` what to wait for.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::BorrowedFd;
use std::time::{Duration, Instant};

use oxcurl_urlapi::{Flags, GetFlags, Part, Url};

use crate::conn::{BufPool, Conn, Pool};
use crate::connect::{self, ConnectPoll, HappyEyeballs, Stream};
use crate::content_encoding::Decoder;
use crate::dns::{self, Resolver};
use crate::error::{Code, Error, Result};
use crate::info::{Header, HttpVersion, Info};
use crate::options::{
    Body, Handler, HttpVersionPref, InfoType, IpResolve, Options, ReadResult, TimeCondition,
};
use crate::proto::h1::chunked::{ChunkEvent, ChunkedDecoder};
use crate::proto::h1::head::{self, LineBuf, Tri, Version};
use crate::proto::h1::request::{self, BodyFraming, RequestParts};
use crate::timer::{TimerId, Timers};

/// curl's limit on a response head (`MAX_HTTP_RESP_HEADER_SIZE`).
const MAX_HEAD: usize = 300 * 1024;
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
    pub cookies: &'a mut crate::multi::CookieStore,
}

/// A socket a transfer waits on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Interest<'a> {
    pub fd: BorrowedFd<'a>,
    /// The socket's identity (`connect::next_sock_id`).
    pub id: u64,
    pub read: bool,
    pub write: bool,
}

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
    /// TLS handshake on a connected socket; which readiness it waits for.
    TlsConnect {
        want_write: bool,
    },
    Send,
    Recv,
    Done,
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
    code: u32,
    version: HttpVersion,
    framing: Framing,
    chunked: Option<ChunkedDecoder>,
    decoder: Option<Decoder>,
    content_length: Option<u64>,
    chunked_te: bool,
    content_encoding: Option<Vec<u8>>,
    location: Option<String>,
    keepalive: bool,
    /// Bytes of this response received at all (52 "empty reply" when none).
    raw_bytes: u64,
    body_bytes: u64,
    /// Index of this response within the transfer (for the header API).
    request_no: usize,
}

impl Resp {
    fn new(request_no: usize) -> Resp {
        Resp {
            phase: Phase::Head,
            lines: LineBuf::new(MAX_HEAD),
            first_line: true,
            seen_header: false,
            http09: false,
            code: 0,
            version: HttpVersion::None,
            framing: Framing::Close,
            chunked: None,
            decoder: None,
            content_length: None,
            chunked_te: false,
            content_encoding: None,
            location: None,
            keepalive: true,
            raw_bytes: 0,
            body_bytes: 0,
            request_no,
        }
    }
}

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
    body_done: bool,
}

pub(crate) struct Transfer {
    pub opts: Options,
    pub handler: Box<dyn Handler>,
    pub info: Info,
    pub timers: Timers,
    state: State,
    url: Option<Url>,
    conn: Option<Conn>,
    conn_reused: bool,
    started: Instant,
    resp: Resp,
    req: Vec<u8>,
    req_sent: usize,
    up: Upload,
    method: String,
    body: Body,
    /// Scheme, host and port of the first URL: credentials go only there.
    first_origin: Option<(String, String, u16)>,
    referer: Option<String>,
    redirect_to: Option<String>,
    notes: Vec<String>,
    /// Stop receiving the body and close (an error was decided).
    pub result: Option<Result<()>>,
    retried: bool,
    last_progress: (u64, u64),
    /// The pool key of the connection being made (set while resolving/connecting).
    pending_key: Option<String>,
    /// A `Strict-Transport-Security` value for the multi's HSTS cache.
    pending_sts: Option<String>,
    /// `Set-Cookie:` values (as received, line ending included) for the multi's jar.
    pending_cookies: Vec<Vec<u8>>,
}

impl Transfer {
    pub fn new(opts: Options, handler: Box<dyn Handler>, now: Instant) -> Transfer {
        let body = opts.body.clone();
        let referer = opts.referer.clone();
        Transfer {
            opts,
            handler,
            info: Info::default(),
            timers: Timers::default(),
            state: State::Init,
            url: None,
            conn: None,
            conn_reused: false,
            started: now,
            resp: Resp::new(0),
            req: Vec::new(),
            req_sent: 0,
            up: Upload::default(),
            method: String::new(),
            body,
            first_origin: None,
            referer,
            redirect_to: None,
            notes: Vec::new(),
            result: None,
            retried: false,
            last_progress: (u64::MAX, u64::MAX),
            pending_key: None,
            pending_sts: None,
            pending_cookies: Vec::new(),
        }
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
                    });
                }
            }
            State::TlsConnect { want_write } => {
                if let Some(c) = &self.conn {
                    out[0] = Some(Interest {
                        fd: c.stream.fd(),
                        id: c.sock_id,
                        read: !*want_write,
                        write: *want_write,
                    });
                }
            }
            State::Send | State::Recv => {
                if let Some(c) = &self.conn {
                    let read = matches!(self.state, State::Recv);
                    out[0] = Some(Interest {
                        fd: c.stream.fd(),
                        id: c.sock_id,
                        read,
                        write: !read || c.wants_write(),
                    });
                }
            }
            _ => {}
        }
        out
    }

    /// Is the transfer waiting for a resolver answer?
    pub fn resolving(&self) -> bool {
        matches!(self.state, State::Resolving { .. })
    }

    fn verbose(&mut self, text: &str) {
        if self.opts.verbose {
            let mut line = String::with_capacity(text.len() + 1);
            line.push_str(text);
            line.push('\n');
            self.handler.debug(InfoType::Text, line.as_bytes());
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
            let r = match self.state {
                State::Init => self.do_init(cx),
                State::Resolving { .. } => self.do_resolving(cx),
                State::Connecting { .. } => self.do_connecting(cx),
                State::TlsConnect { .. } => self.do_tls_connect(cx),
                State::Send => self.do_send(cx),
                State::Recv => self.do_recv(cx),
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
        self.progress(cx.now);
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
            if !self.handler.progress(dltotal, cur.0, ultotal, cur.1) {
                self.result = Some(Err(Error::new(Code::AbortedByCallback, "Callback aborted")));
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
                State::Init | State::Resolving { .. } | State::Connecting { .. }
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
        if self.info.redirect_count > 0 {
            return match &self.opts.redir_protocols {
                Some(l) => has(l),
                None => matches!(scheme, "http" | "https" | "ftp" | "ftps"),
            };
        }
        true
    }

    fn do_init(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if self.url.is_none() {
            if let Some(t) = self.opts.timeout {
                self.timers.set(TimerId::Timeout, self.started + t);
            }
            let raw = self.opts.url.clone().unwrap_or_default();
            if raw.is_empty() {
                return Err(Error::new(Code::UrlMalformat, "No URL set"));
            }
            let mut input = raw.clone();
            if let Some(p) = &self.opts.default_protocol {
                if !raw.contains("://") {
                    input = format!("{p}://{raw}");
                }
            }
            let url = Url::parse(&input, self.url_flags()).map_err(|e| {
                Error::new(Code::UrlMalformat, format!("URL rejected: {}", e.message()))
            })?;
            self.url = Some(url);
            for entry in self.opts.resolve.clone() {
                if let Some((host, port, addrs)) = dns::parse_resolve(&entry) {
                    if !addrs.is_empty() {
                        cx.resolver.insert(&host, port, addrs, cx.now);
                    }
                }
            }
        }
        self.start_cookies(cx);
        let mut url = self.url.clone().expect("url set");
        if let Some(f) = &self.opts.hsts_file {
            let now = crate::parsedate::unix_now();
            cx.hsts.load(f, now);
            if url.scheme() == "http" {
                let host = url.host_punycode().unwrap_or_default();
                if cx.hsts.is_sts_host(&host, now)
                    && url
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
        let scheme = url.scheme().to_string();
        if !self.protocol_allowed(&scheme) {
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
        if scheme != "http" && scheme != "https" {
            return Err(Error::new(
                Code::UnsupportedProtocol,
                format!("Protocol \"{scheme}\" not supported"),
            ));
        }
        let host = url.host_punycode().map_err(|e| {
            Error::new(Code::UrlMalformat, format!("URL rejected: {}", e.message()))
        })?;
        let port = url.port_or_default();
        if self.first_origin.is_none() {
            self.first_origin = Some((scheme.clone(), host.to_ascii_lowercase(), port));
        }
        self.info.effective_url = url.to_url_string();
        self.info.scheme = scheme.clone();
        self.method = self.request_method();

        let (conn_host, conn_port) = self.connect_to(&host, port);
        let route = match &self.opts.unix_socket_path {
            Some(p) => format!(
                "unix:{}{}",
                if self.opts.abstract_unix_socket {
                    "@"
                } else {
                    ""
                },
                p
            ),
            None => format!("{conn_host}:{conn_port}"),
        };
        let key = if scheme == "https" {
            // Connections made with other TLS settings are not interchangeable.
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            self.opts.tls.hash(&mut h);
            format!("{scheme}://{host}:{port}/{route}/{:x}", h.finish())
        } else {
            format!("{scheme}://{host}:{port}/{route}")
        };
        if !self.opts.fresh_connect {
            if let Some(mut c) = cx.pool.take(&key) {
                c.uses += 1;
                // Parked connections were removed from the poller: a new identity makes the
                // multi register the socket again.
                c.sock_id = connect::next_sock_id();
                self.conn_reused = true;
                self.info.conn_id = c.id;
                self.info.primary_ip = c.remote;
                self.info.local_addr = c.local;
                let msg = format!(
                    "Re-using existing {scheme}: connection with host {}",
                    c.host
                );
                self.conn = Some(c);
                self.verbose(&msg);
                self.start_request(cx);
                return Ok(true);
            }
        }
        self.conn_reused = false;
        if let Some(ct) = self.opts.connect_timeout {
            self.timers.set(TimerId::ConnectTimeout, cx.now + ct);
        }
        if let Some(path) = self.opts.unix_socket_path.clone() {
            let s = connect::connect_unix(&path, self.opts.abstract_unix_socket)
                .map_err(|_| connect_failed(&host, port, self.elapsed_ms(cx.now)))?;
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.verbose(&format!("  Trying {path}..."));
            self.connected(cx, Stream::Unix(s), None, key, host, port)?;
            return Ok(true);
        }
        let lookup_host = conn_host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        if let Ok(ip) = lookup_host.parse::<IpAddr>() {
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.start_connect(cx, &[SocketAddr::new(ip, conn_port)], &host, port, key);
            return Ok(true);
        }
        if let Some(addrs) =
            cx.resolver
                .cached(&lookup_host, conn_port, self.opts.dns_cache_timeout, cx.now)
        {
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.resolved_notes(&lookup_host, conn_port, &addrs);
            self.start_connect(cx, &addrs, &host, port, key);
            return Ok(true);
        }
        if let Some(addrs) = dns::localhost_addrs(&lookup_host, conn_port) {
            self.info.time_namelookup = cx.now.duration_since(self.started);
            cx.resolver
                .insert(&lookup_host, conn_port, addrs.clone(), cx.now);
            self.resolved_notes(&lookup_host, conn_port, &addrs);
            self.start_connect(cx, &addrs, &host, port, key);
            return Ok(true);
        }
        let job = cx.resolver.start(&lookup_host, conn_port);
        self.pending_key = Some(key);
        self.state = State::Resolving {
            job,
            host: lookup_host,
            port: conn_port,
        };
        Ok(false)
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

    /// Apply `--connect-to HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` rules.
    fn connect_to(&self, host: &str, port: u16) -> (String, u16) {
        for rule in &self.opts.connect_to {
            let Some((h, p, th, tp)) = parse_connect_to(rule) else {
                continue;
            };
            let host_ok = h.is_empty() || h.eq_ignore_ascii_case(host);
            let port_ok = p.is_none_or(|p| p == port);
            if host_ok && port_ok {
                let nh = if th.is_empty() { host.to_string() } else { th };
                return (nh, tp.unwrap_or(port));
            }
        }
        (host.to_string(), port)
    }

    fn start_connect(
        &mut self,
        cx: &mut Cx<'_>,
        addrs: &[SocketAddr],
        host: &str,
        port: u16,
        key: String,
    ) {
        let addrs: Vec<SocketAddr> = addrs
            .iter()
            .copied()
            .filter(|a| match self.opts.ip_resolve {
                IpResolve::Whatever => true,
                IpResolve::V4 => a.is_ipv4(),
                IpResolve::V6 => a.is_ipv6(),
            })
            .collect();
        let he = HappyEyeballs::new(&addrs, cx.now, &self.opts);
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
        let uport = url.port_or_default();
        let uhost = url.host_punycode().unwrap_or_default();
        match ans {
            Ok(addrs) if !addrs.is_empty() => {
                self.info.time_namelookup = cx.now.duration_since(self.started);
                cx.resolver.insert(&host, port, addrs.clone(), cx.now);
                self.resolved_notes(&host, port, &addrs);
                let key = self.pending_key.take().unwrap_or_default();
                self.start_connect(cx, &addrs, &uhost, uport, key);
                Ok(true)
            }
            _ => Err(Error::new(
                Code::CouldntResolveHost,
                format!("Could not resolve host: {host}"),
            )),
        }
    }

    fn do_connecting(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::Connecting {
            ref mut he,
            ref host,
            port,
        } = self.state
        else {
            unreachable!()
        };
        let host = host.clone();
        let r = he.poll(cx.now, &self.opts, &mut self.notes);
        let next = he.next_deadline();
        self.flush_notes();
        match next {
            Some(t) => self.timers.set(TimerId::HappyEyeballs, t),
            None => self.timers.clear(TimerId::HappyEyeballs),
        }
        match r {
            ConnectPoll::Pending => Ok(false),
            ConnectPoll::Connected(s, addr) => {
                let key = self.pending_key.take().unwrap_or_default();
                self.connected(cx, Stream::Tcp(s), Some(addr), key, host, port)?;
                Ok(true)
            }
            ConnectPoll::Failed(_) => Err(connect_failed(&host, port, self.elapsed_ms(cx.now))),
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
            Stream::Unix(_) => None,
        };
        let id = *cx.next_conn_id;
        *cx.next_conn_id += 1;
        self.timers.clear(TimerId::ConnectTimeout);
        self.timers.clear(TimerId::HappyEyeballs);
        self.info.num_connects += 1;
        self.info.primary_ip = remote;
        self.info.local_addr = local;
        self.info.conn_id = id;
        self.info.time_connect = cx.now.duration_since(self.started);
        self.info.time_appconnect = Duration::ZERO;
        self.conn = Some(Conn {
            id,
            sock_id: connect::next_sock_id(),
            stream,
            tls: None,
            key,
            host,
            port,
            remote,
            local,
            uses: 1,
            http10: false,
            idle_since: cx.now,
        });
        if self.info.scheme == "https" {
            return self.start_tls(cx);
        }
        self.established(cx);
        Ok(())
    }

    /// The connection is ready for requests (after TLS for https).
    fn established(&mut self, cx: &mut Cx<'_>) {
        if self.opts.verbose {
            let c = self.conn.as_ref().expect("conn");
            let ip = c
                .remote
                .map(|a| a.ip().to_string())
                .unwrap_or_else(|| "".into());
            let msg = match &self.opts.unix_socket_path {
                Some(p) => format!("Connected to {} ({p}) port {}", c.host, c.port),
                None => format!("Connected to {} ({ip}) port {}", c.host, c.port),
            };
            self.verbose(&msg);
            self.verbose("using HTTP/1.x");
        }
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
            let data = if f == "-" {
                let mut v = Vec::new();
                let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut v);
                v
            } else {
                std::fs::read(f).unwrap_or_default()
            };
            jar.load_netscape(&data, now);
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
        } else if self.opts.http_version == HttpVersionPref::V1_0 {
            &[b"http/1.0"]
        } else {
            &[b"http/1.1"]
        }
    }

    fn start_tls(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let alpn = self.alpn_offer();
        let config = cx.tls.config(&self.opts.tls, alpn)?;
        let host = self.url_host();
        let sni = host.split('%').next().unwrap_or(&host).to_string();
        let session = crate::tls::Session::new(
            &config,
            &sni,
            &self.conn.as_ref().expect("conn").stream,
            &self.opts.tls,
        )?;
        if self.opts.verbose {
            if !alpn.is_empty() {
                let offer: Vec<&str> = alpn
                    .iter()
                    .map(|a| std::str::from_utf8(a).unwrap_or(""))
                    .collect();
                self.verbose(&format!("ALPN: curl offers {}", offer.join(",")));
            }
            if self.opts.tls.verify_peer {
                let (f, p) = (
                    self.opts.tls.effective_cafile().to_string(),
                    self.opts.tls.effective_capath().to_string(),
                );
                self.verbose(&format!(" CAfile: {f}"));
                self.verbose(&format!(" CApath: {p}"));
            }
        }
        self.conn.as_mut().expect("conn").tls = Some(Box::new(session));
        self.state = State::TlsConnect { want_write: true };
        Ok(())
    }

    fn do_tls_connect(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let conn = self.conn.as_mut().expect("conn");
        let tls = conn.tls.as_mut().expect("tls");
        match tls.handshake(&mut conn.stream)? {
            crate::tls::Handshake::WantRead => {
                self.state = State::TlsConnect { want_write: false };
                return Ok(false);
            }
            crate::tls::Handshake::WantWrite => {
                self.state = State::TlsConnect { want_write: true };
                return Ok(false);
            }
            crate::tls::Handshake::Done => {}
        }
        self.info.time_appconnect = cx.now.duration_since(self.started);
        self.tls_established()?;
        self.established(cx);
        Ok(true)
    }

    /// After the handshake: `-v` lines, the pinned key check.
    fn tls_established(&mut self) -> Result<()> {
        let conn = self.conn.as_ref().expect("conn");
        let tls = conn.tls.as_ref().expect("tls");
        let certs = tls.chain_der();
        if let Some(pin) = self.opts.tls.pinned_pubkey.clone() {
            let spki = certs
                .first()
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
        if !self.alpn_offer().is_empty() {
            lines.push(match tls.alpn() {
                Some(p) => format!("ALPN: server accepted {}", String::from_utf8_lossy(p)),
                None => "ALPN: server did not agree on a protocol. Uses default.".into(),
            });
        }
        let host = self.url_host();
        if let Some(leaf) = certs.first().and_then(|c| crate::tls::x509::Cert::parse(c)) {
            lines.push("Server certificate:".into());
            lines.push(format!(" subject: {}", leaf.subject()));
            lines.push(format!(" start date: {}", leaf.start_date()));
            lines.push(format!(" expire date: {}", leaf.expire_date()));
            if self.opts.tls.verify_host {
                if let Some(m) = crate::tls::x509::san_match(&leaf, &host) {
                    lines.push(format!(" subjectAltName: {m}"));
                }
            }
            lines.push(format!(" issuer: {}", leaf.issuer()));
            if self.opts.tls.verify_peer {
                lines.push(" SSL certificate verify ok.".into());
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

    /// The method for the current options and body.
    fn request_method(&self) -> String {
        if let Some(m) = &self.opts.custom_request {
            m.clone()
        } else if self.opts.nobody {
            "HEAD".into()
        } else {
            match self.body {
                Body::Fields(_) | Body::PostRead(_) => "POST".into(),
                Body::Upload(_) => "PUT".into(),
                Body::None => "GET".into(),
            }
        }
    }

    /// Build the request head for the current URL and connection.
    fn start_request(&mut self, cx: &mut Cx<'_>) {
        let now = cx.now;
        let url = self.url.clone().expect("url");
        self.info.time_pretransfer = now.duration_since(self.started);
        self.info.effective_method = self.method.clone();
        let host = url.host_punycode().unwrap_or_default();
        let port = url.port_or_default();
        let host_header = if Some(port) == oxcurl_urlapi::default_port(url.scheme()) {
            host.clone()
        } else {
            format!("{host}:{port}")
        };
        let mut target = String::new();
        match &self.opts.request_target {
            Some(t) => target.push_str(t),
            None => {
                target.push_str(url.path());
                if let Some(q) = url.query() {
                    target.push('?');
                    target.push_str(q);
                }
            }
        }
        let same_origin = self.first_origin.as_ref().is_some_and(|(s, h, p)| {
            s == url.scheme() && h.eq_ignore_ascii_case(&host) && *p == port
        });
        let creds = if let Some((u, p)) = &self.opts.userpwd {
            Some((u.clone(), p.clone()))
        } else {
            url.user()
                .map(|_| (decoded(&url, Part::User), decoded(&url, Part::Password)))
        };
        let basic = match creds {
            Some((u, p)) if same_origin || self.opts.unrestricted_auth => {
                Some(base64(format!("{u}:{p}").as_bytes()))
            }
            _ => None,
        };
        let framing = match &self.body {
            Body::None => BodyFraming::None,
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
            Body::Upload(None) | Body::PostRead(None) => {
                if self.opts.http_version == HttpVersionPref::V1_0 {
                    BodyFraming::None
                } else {
                    BodyFraming::Chunked
                }
            }
        };
        let expect_100 = self.opts.http_version != HttpVersionPref::V1_0
            && match framing {
                BodyFraming::Chunked => true,
                BodyFraming::Length { len, .. } => len > EXPECT_100_THRESHOLD,
                BodyFraming::None => false,
            };
        self.req.clear();
        let referer = self.referer.clone();
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
        request::build(
            &mut self.req,
            &self.opts,
            &RequestParts {
                method: &self.method,
                target: &target,
                host_header: &host_header,
                framing,
                http10: self.conn.as_ref().is_some_and(|c| c.http10),
                cookie: cookie.as_deref(),
                basic_auth: basic.as_deref(),
                bearer: self
                    .opts
                    .bearer
                    .as_deref()
                    .filter(|_| same_origin || self.opts.unrestricted_auth),
                referer: referer.as_deref(),
                expect_100: expect_100 && !request::custom_has(&self.opts.headers, "Expect"),
                sensitive_ok: same_origin || self.opts.unrestricted_auth,
            },
        );
        self.info.request_size += self.req.len() as u64;
        if self.opts.verbose {
            let req = std::mem::take(&mut self.req);
            self.handler.debug(InfoType::HeaderOut, &req);
            self.req = req;
        }
        self.req_sent = 0;
        self.up = Upload {
            chunked: framing == BodyFraming::Chunked,
            await_continue: expect_100,
            body_done: framing == BodyFraming::None,
            ..Upload::default()
        };
        if matches!(self.body, Body::Upload(_) | Body::PostRead(_)) && framing != BodyFraming::None
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
    }

    fn do_send(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let conn = self.conn.as_mut().expect("conn");
        while self.req_sent < self.req.len() {
            match conn.send(&self.req[self.req_sent..]) {
                Ok(n) => self.req_sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(send_error(&e)),
            }
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
            match self.send_body_some()? {
                true => {}
                false => return Ok(false),
            }
        }
        self.verbose("Request completely sent off");
        self.info.time_posttransfer = cx.now.duration_since(self.started);
        self.state = State::Recv;
        Ok(true)
    }

    /// Send some body bytes; Ok(false) when the socket is full.
    fn send_body_some(&mut self) -> Result<bool> {
        let conn = self.conn.as_mut().expect("conn");
        match &self.body {
            Body::Fields(f) => {
                if self.up.fields_sent >= f.len() {
                    self.up.body_done = true;
                    return Ok(true);
                }
                match conn.send(&f[self.up.fields_sent..]) {
                    Ok(n) => {
                        if self.opts.verbose {
                            let d = f[self.up.fields_sent..self.up.fields_sent + n].to_vec();
                            self.handler.debug(InfoType::DataOut, &d);
                        }
                        self.up.fields_sent += n;
                        self.info.size_upload += n as u64;
                        Ok(true)
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(true),
                    Err(e) => Err(send_error(&e)),
                }
            }
            Body::Upload(_) | Body::PostRead(_) => {
                if self.up.pos == self.up.len {
                    if self.up.eof {
                        self.up.body_done = true;
                        return Ok(true);
                    }
                    self.fill_upload()?;
                    if self.up.pos == self.up.len && self.up.eof {
                        self.up.body_done = true;
                        return Ok(true);
                    }
                }
                let conn = self.conn.as_mut().expect("conn");
                match conn.send(&self.up.buf[self.up.pos..self.up.len]) {
                    Ok(n) => {
                        self.up.pos += n;
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

    /// Read the next piece of upload data from the application, framed when chunked.
    fn fill_upload(&mut self) -> Result<()> {
        let cap = self.opts.upload_buffer_size;
        let (start, room) = if self.up.chunked { (18, cap) } else { (0, cap) };
        let n = match self.handler.read(&mut self.up.buf[start..start + room]) {
            ReadResult::Data(n) => n.min(room),
            ReadResult::Abort => {
                return Err(Error::new(
                    Code::AbortedByCallback,
                    "operation aborted by callback",
                ))
            }
        };
        if self.opts.verbose && n > 0 {
            let d = self.up.buf[start..start + n].to_vec();
            self.handler.debug(InfoType::DataOut, &d);
        }
        self.info.size_upload += n as u64;
        if self.up.chunked {
            let mut hb = [0u8; 20];
            let h = crate::proto::h1::chunked::chunk_header(n, &mut hb);
            let hl = h.len();
            let hs = start - hl;
            self.up.buf[hs..start].copy_from_slice(&hb[..hl]);
            let mut end = start + n;
            if n == 0 {
                self.up.eof = true;
                self.up.buf[end..end + 2].copy_from_slice(b"\r\n");
                end += 2;
            } else {
                self.up.buf[end..end + 2].copy_from_slice(b"\r\n");
                end += 2;
            }
            self.up.pos = hs;
            self.up.len = end;
        } else {
            if n == 0 {
                self.up.eof = true;
            }
            self.up.pos = 0;
            self.up.len = n;
        }
        Ok(())
    }

    fn do_recv(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let mut buf = cx.bufs.get(self.opts.buffer_size);
        let r = self.recv_loop(cx, &mut buf);
        cx.bufs.put(buf);
        r
    }

    fn recv_loop(&mut self, cx: &mut Cx<'_>, buf: &mut [u8]) -> Result<bool> {
        loop {
            let conn = self.conn.as_mut().expect("conn");
            match conn.flush() {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(send_error(&e)),
            }
            let n = match conn.recv(buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if let Some(err) = crate::tls::curl_error(&e) {
                        if self.resp.raw_bytes > 0 || !self.conn_reused || self.retried {
                            return Err(err);
                        }
                    }
                    if self.resp.raw_bytes == 0 && self.conn_reused && !self.retried {
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
        }
    }

    fn retry_fresh(&mut self) -> Result<bool> {
        self.retried = true;
        self.conn = None;
        self.verbose("Connection died, retrying a fresh connect (retry count: 1)");
        self.opts.fresh_connect = true;
        self.state = State::Init;
        Ok(true)
    }

    fn on_eof(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        match self.resp.phase {
            Phase::Head => {
                if self.resp.raw_bytes == 0 {
                    if self.conn_reused && !self.retried {
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
                    if self.resp.first_line
                        && self.resp.raw_bytes as usize == data.len()
                        && !self.resp.http09
                    {
                        match head::looks_like_status_line(data) {
                            Tri::No => {
                                if !self.opts.http09_allowed {
                                    return Err(Error::new(
                                        Code::UnsupportedProtocol,
                                        "Received HTTP/0.9 when not allowed",
                                    ));
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
                    let (used, line) =
                        self.resp.lines.feed(data).map_err(|_| {
                            Error::new(Code::RecvError, "Too large response headers")
                        })?;
                    data = &data[used..];
                    if let Some(line) = line {
                        let line = line.to_vec();
                        self.on_header_line(&line)?;
                        if !self.pending_cookies.is_empty() {
                            self.store_cookies(cx);
                        }
                        if let Some(v) = self.pending_sts.take() {
                            let host = self.url_host();
                            cx.hsts.on_header(&host, &v, crate::parsedate::unix_now());
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
        if self.resp.phase == Phase::Complete {
            self.complete(cx)?;
        }
        Ok(())
    }

    fn on_header_line(&mut self, line: &[u8]) -> Result<()> {
        let trimmed = trim_eol(line);
        if self.resp.first_line {
            self.resp.first_line = false;
            let st = head::parse_status_line(line)
                .map_err(|e| Error::new(Code::UnsupportedProtocol, e.to_string()))?;
            self.resp.code = st.code as u32;
            self.resp.version = match st.version {
                Version::Http09 => HttpVersion::V0_9,
                Version::Http10 => HttpVersion::V1_0,
                Version::Http11 => HttpVersion::V1_1,
                Version::Http2 => HttpVersion::V2,
                Version::Http3 => HttpVersion::V3,
            };
            self.resp.keepalive = self.resp.version == HttpVersion::V1_1;
            self.info.response_code = self.resp.code;
            self.info.http_version = self.resp.version;
            self.deliver_header(line)?;
            return Ok(());
        }
        if head::is_head_end(line) {
            let unmet = self.time_condition_unmet();
            self.deliver_header(line)?;
            self.end_of_head()?;
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
        self.deliver_header(line)?;
        self.resp.seen_header = true;
        if !first_header {
            if let Some(more) = head::continuation(trimmed) {
                // obs-fold: the header callback got the raw line; the header API sees the
                // previous value continued. HTTP semantics ignore the line, as in curl.
                let no = self.resp.request_no;
                if let Some(h) = self.info.headers.last_mut().filter(|h| h.request == no) {
                    h.value.push_str(&String::from_utf8_lossy(more));
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
            let n = String::from_utf8_lossy(name).into_owned();
            let v = String::from_utf8_lossy(value).into_owned();
            if blanks == 0 {
                self.apply_header(&n, value)?;
            }
            self.info.headers.push(Header {
                name: n,
                value: v,
                request: self.resp.request_no,
            });
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
                    let v = String::from_utf8_lossy(value).into_owned();
                    self.verbose(&format!("Overflow Content-Length: {v}"));
                }
                // curl's message names no value here, literally.
                Err(head::ContentLengthError::Invalid) => {
                    return Err(Error::new(
                        Code::WeirdServerReply,
                        "Invalid Content-Length: value",
                    ))
                }
            }
        } else if name.eq_ignore_ascii_case("Transfer-Encoding") {
            for c in head::codings(value) {
                self.resp.chunked_te = c.eq_ignore_ascii_case(b"chunked");
            }
        } else if name.eq_ignore_ascii_case("Content-Encoding") {
            self.resp.content_encoding = Some(value.to_vec());
        } else if name.eq_ignore_ascii_case("Location") {
            self.resp.location = Some(String::from_utf8_lossy(value).into_owned());
        } else if name.eq_ignore_ascii_case("Strict-Transport-Security") {
            if self.opts.hsts_file.is_some() && self.info.scheme == "https" {
                self.pending_sts = Some(String::from_utf8_lossy(value).into_owned());
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

    fn deliver_header(&mut self, line: &[u8]) -> Result<()> {
        self.info.header_size += line.len() as u64;
        if self.opts.verbose {
            self.handler.debug(InfoType::HeaderIn, line);
        }
        let n = self.handler.header(line);
        if n == crate::options::WRITEFUNC_ERROR {
            return Err(Error::new(
                Code::WriteError,
                format!("client returned ERROR on write of {} bytes", line.len()),
            ));
        }
        if n != line.len() {
            return Err(Error::new(Code::WriteError, "Failed writing header"));
        }
        if self.opts.include_header && self.handler.write(line) != line.len() {
            return Err(Error::new(Code::WriteError, "Failed writing header"));
        }
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
            .find(|h| h.request == no && h.name.eq_ignore_ascii_case("Last-Modified"))
            .map(|h| crate::parsedate::getdate_capped(h.value.trim().as_bytes()))
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
        if (100..200).contains(&code) {
            // Informational: another head follows.
            let no = self.resp.request_no;
            let waiting = self.up.await_continue;
            self.resp = Resp::new(no + 1);
            if code == 100 && waiting {
                self.up.await_continue = false;
                self.timers.clear(TimerId::Expect100);
                self.state = State::Send;
            }
            return Ok(());
        }
        if self.up.await_continue || !self.up.body_done {
            // A final answer before the body went: do not send it, and do not reuse.
            self.up.await_continue = false;
            self.up.body_done = true;
            self.timers.clear(TimerId::Expect100);
            self.resp.keepalive = false;
        }
        if self.opts.fail_on_error && code >= 400 {
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
                let base = self.url.clone().expect("url");
                if let Ok(u) = base.join(loc, self.url_flags()) {
                    self.info.redirect_url = Some(u.to_url_string());
                }
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
                        h.name.eq_ignore_ascii_case("Connection")
                            && h.value.eq_ignore_ascii_case("keep-alive")
                    });
            }
        }
        if self.opts.resume_from > 0 && code == 200 && self.opts.range.is_none() {
            return Err(Error::new(
                Code::RangeError,
                "HTTP server does not seem to support byte ranges. Cannot resume.",
            ));
        }
        let no_body = self.method == "HEAD" || code == 204 || code == 304;
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
            if n > max && !no_body {
                return Err(Error::new(
                    Code::FilesizeExceeded,
                    "Maximum file size exceeded",
                ));
            }
        }
        if let Some(ce) = &self.resp.content_encoding {
            if self.opts.accept_encoding.is_some() && self.opts.http_content_decoding && !no_body {
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
        if self.redirect_to.is_some() {
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
        self.info.size_download += data.len() as u64;
        if self.opts.verbose {
            self.handler.debug(InfoType::DataIn, data);
        }
        if let Some(dec) = self.resp.decoder.as_mut() {
            let handler = &mut self.handler;
            let mut failed = None;
            let r = dec.decode(data, &mut |out: &[u8]| {
                let w = handler.write(out);
                if w != out.len() {
                    failed = Some((out.len(), w));
                    Err(())
                } else {
                    Ok(())
                }
            });
            if let Some((p, w)) = failed {
                return Err(write_error(p, w));
            }
            return r.map_err(|e| {
                Error::new(
                    Code::from_u32(e.curl_code()).unwrap_or(Code::BadContentEncoding),
                    e.to_string(),
                )
            });
        }
        let w = self.handler.write(data);
        if w != data.len() {
            return Err(write_error(data.len(), w));
        }
        Ok(())
    }

    /// The response is fully received: follow a redirect or finish.
    fn complete(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if let Some(mut dec) = self.resp.decoder.take() {
            let handler = &mut self.handler;
            let mut failed = None;
            let r = dec.finish(&mut |out: &[u8]| {
                let w = handler.write(out);
                if w != out.len() {
                    failed = Some((out.len(), w));
                    Err(())
                } else {
                    Ok(())
                }
            });
            if let Some((p, w)) = failed {
                return Err(write_error(p, w));
            }
            r.map_err(|e| {
                Error::new(
                    Code::from_u32(e.curl_code()).unwrap_or(Code::BadContentEncoding),
                    e.to_string(),
                )
            })?;
        }
        self.resp.phase = Phase::Complete;
        let reusable = self.resp.keepalive && self.up.body_done && !self.opts.forbid_reuse;
        if let Some(next) = self.redirect_to.take() {
            self.release_conn(cx, reusable);
            return self.follow(cx, next).map(|_| true);
        }
        self.release_conn(cx, reusable);
        self.finish(cx, Ok(()));
        Ok(false)
    }

    fn release_conn(&mut self, cx: &mut Cx<'_>, reusable: bool) {
        if let Some(c) = self.conn.take() {
            // Idle pooled connections are not watched.
            let _ = cx.poller.delete(c.stream.fd());
            if reusable {
                let mut c = c;
                c.http10 = self.resp.version == HttpVersion::V1_0;
                let msg = format!("Connection #{} to host {} left intact", c.id, c.host);
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
            return Err(Error::new(
                Code::TooManyRedirects,
                format!("Maximum ({max}) redirects followed"),
            ));
        }
        self.info.redirect_count += 1;
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
        let new = cur.join(&next, flags).map_err(|e| {
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
        self.verbose(&format!(
            "Issue another request to this URL: '{}'",
            new.to_url_string()
        ));
        if self.opts.autoreferer {
            self.referer = Some(referer_for(&cur));
        }
        // curl's method rules (lib/http.c, Curl_follow): they look at the kind of request (a
        // POST is one with a request body from -d and friends), not at a -X method, which is
        // kept; switching to GET drops the body.
        let is_post = matches!(self.body, Body::Fields(_) | Body::PostRead(_));
        let is_get = matches!(self.body, Body::None) && !self.opts.nobody;
        let switch_to_get = match code {
            301 => is_post && !self.opts.post301,
            302 => is_post && !self.opts.post302,
            // --post303 keeps a POST; anything but a GET becomes one.
            303 => !(is_get || is_post && self.opts.post303),
            _ => false,
        };
        if switch_to_get {
            self.body = Body::None;
        } else if matches!(self.body, Body::Upload(_) | Body::PostRead(_)) && !self.handler.rewind()
        {
            return Err(Error::new(
                Code::SendFailRewind,
                "necessary data rewind was not possible",
            ));
        }
        self.info.time_redirect = cx.now.duration_since(self.started);
        self.url = Some(new);
        self.state = State::Init;
        Ok(())
    }

    fn finish(&mut self, cx: &mut Cx<'_>, r: Result<()>) {
        // A URL or protocol refused at the start: curl never calls the progress callback.
        let refused_at_init = r.is_err() && matches!(self.state, State::Init);
        if r.is_err() {
            self.conn = None;
        }
        let now = cx.now;
        self.info.time_total = now.duration_since(self.started);
        if self.info.time_starttransfer.is_zero() && r.is_ok() {
            self.info.time_starttransfer = self.info.time_total;
        }
        if let State::Resolving { job, .. } = self.state {
            cx.resolver.cancel(job);
        }
        self.timers.clear_all();
        self.state = State::Done;
        if let Err(e) = &r {
            if self.opts.verbose {
                self.verbose(e.message());
            }
        }
        self.result = Some(r);
        if !self.opts.no_progress && !refused_at_init {
            let (dltotal, ultotal) = self.totals();
            let _ = self.handler.progress(
                dltotal,
                self.info.size_download,
                ultotal,
                self.info.size_upload,
            );
        }
    }

    /// Take everything back out (the multi dropped the transfer).
    pub fn abort(&mut self, cx: &mut Cx<'_>) {
        if !self.is_done() {
            self.finish(
                cx,
                Err(Error::new(Code::AbortedByCallback, "Transfer removed")),
            );
        }
    }
}

/// curl's message for a connection that could not be made (the reason is in `-v` output).
fn connect_failed(host: &str, port: u16, ms: u128) -> Error {
    Error::new(
        Code::CouldntConnect,
        format!(
            "Failed to connect to {host} port {port} after {ms} ms: {}",
            Code::CouldntConnect.strerror()
        ),
    )
}

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

/// `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT`; empty fields match anything / keep.
fn parse_connect_to(rule: &str) -> Option<(String, Option<u16>, String, Option<u16>)> {
    fn host_part(s: &str) -> Option<(String, &str)> {
        if let Some(r) = s.strip_prefix('[') {
            let end = r.find(']')?;
            let rest = r[end + 1..].strip_prefix(':')?;
            Some((r[..end].to_string(), rest))
        } else {
            let (h, rest) = s.split_once(':')?;
            Some((h.to_string(), rest))
        }
    }
    let (h, rest) = host_part(rule)?;
    let (p, rest) = rest.split_once(':')?;
    let (th, tp) = if let Some(r) = rest.strip_prefix('[') {
        let end = r.find(']')?;
        let tp = r[end + 1..].strip_prefix(':').unwrap_or("");
        (r[..end].to_string(), tp)
    } else {
        match rest.rsplit_once(':') {
            Some((a, b)) => (a.to_string(), b),
            None => (rest.to_string(), ""),
        }
    };
    let port = |s: &str| {
        if s.is_empty() {
            Some(None)
        } else {
            s.parse::<u16>().ok().map(Some)
        }
    };
    Some((h, port(p)?, th, port(tp)?))
}

/// A URL part percent-decoded (empty when absent); bytes that are not UTF-8 are replaced.
fn decoded(url: &Url, part: Part) -> String {
    let flags = GetFlags {
        url_decode: true,
        ..GetFlags::default()
    };
    match url.get_bytes(part, flags) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(_) => String::new(),
    }
}

/// Standard base64 (RFC 4648) with padding.
pub fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        s.push(T[(n >> 18) as usize & 63] as char);
        s.push(T[(n >> 12) as usize & 63] as char);
        s.push(if c.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        s.push(if c.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_vectors() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"us:pw"), "dXM6cHc=");
    }

    #[test]
    fn connect_to_rules() {
        assert_eq!(
            parse_connect_to("a:80:b:81"),
            Some(("a".into(), Some(80), "b".into(), Some(81)))
        );
        assert_eq!(
            parse_connect_to("::b:"),
            Some(("".into(), None, "b".into(), None))
        );
        assert_eq!(
            parse_connect_to("[::1]:80:[::2]:81"),
            Some(("::1".into(), Some(80), "::2".into(), Some(81)))
        );
    }

    #[test]
    fn userinfo_decoding() {
        let u = Url::parse("http://a%40b:p%3Aw@h/", Flags::default()).unwrap();
        assert_eq!(decoded(&u, Part::User), "a@b");
        assert_eq!(decoded(&u, Part::Password), "p:w");
        let r = Url::parse("http://u:p@h/x?q#f", Flags::default()).unwrap();
        assert_eq!(referer_for(&r), "http://h/x?q");
    }
}
