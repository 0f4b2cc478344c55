//! A scripted HTTP/1.x server modelled on curl's test server `sws`.
//!
//! Tests hand the server [`Reply`] scripts and afterwards inspect the exact bytes the
//! client sent, per request ([`ScriptedServer::requests`]) and per connection
//! ([`ScriptedServer::connection_bytes`]).
//!
//! ```no_run
//! use oxcurl_testsupport::http::{Reply, ScriptedServer};
//! let server = ScriptedServer::with_replies(vec![Reply::ok("hello")]);
//! server.route("/moved", Reply::redirect(301, "/new"));
//! // ... run a client against server.url() ...
//! server.wait_idle(std::time::Duration::from_secs(2));
//! let reqs = server.requests();
//! assert!(reqs[0].head.starts_with(b"GET / HTTP/1.1\r\n"));
//! ```
//!
//! Reply selection for each request, first match wins:
//! 1. the handler set with [`ScriptedServer::set_handler`];
//! 2. a route whose key equals the request target, or the target's path without query
//!    ([`ScriptedServer::route`], [`ScriptedServer::route_seq`]);
//! 3. the reply script in order ([`ScriptedServer::set_replies`]); once it runs out the
//!    [`Exhausted`] policy applies (default: repeat the last reply);
//! 4. with no script at all: `404 Not Found` with an empty body.
//!
//! Every connection gets its own thread; connections are numbered from 0 in accept
//! order. A connection is kept open after a reply (keep-alive) unless the reply closes
//! it; see [`Reply::keep_open`] for the automatic rule.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The repeating pattern used by [`Action::WriteGenerated`] (64 bytes per line).
pub const PATTERN: &[u8; 64] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.\n";

/// The bytes at `offset..offset+len` of the endless generated body.
pub fn generated(offset: u64, len: usize) -> Vec<u8> {
    (0..len as u64)
        .map(|i| PATTERN[((offset + i) % PATTERN.len() as u64) as usize])
        .collect()
}

/// The first `len` bytes of the generated body, i.e. what `Action::WriteGenerated(len)`
/// sends.
pub fn generated_body(len: usize) -> Vec<u8> {
    generated(0, len)
}

/// One step of a [`Reply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Write these bytes (status line, headers, or anything raw). Always sent.
    Write(Vec<u8>),
    /// Write these bytes as response body; skipped when answering a `HEAD` request
    /// (unless [`ScriptedServer::set_body_on_head`] or [`Reply::body_on_head`]).
    WriteBody(Vec<u8>),
    /// Write `data` in pieces of `piece` bytes with `delay` between them. Always sent.
    WriteSlowly {
        /// bytes to send
        data: Vec<u8>,
        /// piece size (at least 1)
        piece: usize,
        /// pause before each piece after the first
        delay: Duration,
    },
    /// Write this many bytes of the generated [`PATTERN`] body without holding them in
    /// memory. Skipped for `HEAD` like [`Action::WriteBody`].
    WriteGenerated(u64),
    /// Pause.
    Sleep(Duration),
    /// Close the connection: shut down the write side, then read (and record) whatever
    /// the client still sends until it closes too (a lingering close).
    Close,
    /// Abort the connection: shut down both directions at once without draining. The
    /// kernel sends a TCP RST only when unread data remains (std offers no safe
    /// `SO_LINGER` 0), otherwise the client sees a plain close.
    Reset,
}

/// What to do with `Expect: 100-continue` requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContinueMode {
    /// Send `HTTP/1.1 100 Continue\r\n\r\n`, then read the body (default).
    #[default]
    Continue,
    /// Stay silent for the duration, then send `100 Continue` and read the body.
    ContinueAfter(Duration),
    /// Never send `100 Continue`; just read the body when it comes.
    Ignore,
    /// Send the final reply without reading the body. The request is recorded with an
    /// empty, incomplete body; afterwards the server only records what else arrives on
    /// the connection (no further replies) until the client closes it.
    FinalReply,
}

/// What the sequential script does once every reply has been used.
#[derive(Clone, Debug, Default)]
pub enum Exhausted {
    /// Reuse the last reply of the script (default).
    #[default]
    RepeatLast,
    /// Close the connection without replying.
    Close,
    /// Use this reply from then on.
    Reply(Reply),
}

/// A reply: a list of [`Action`]s plus a few per-reply options.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    /// The steps, run in order.
    pub actions: Vec<Action>,
    /// `Some(true)`: keep the connection open after the reply; `Some(false)`: close it;
    /// `None`: automatic (see [`Reply::keep_open`]).
    pub keep_open: Option<bool>,
    /// Run this reply as soon as its turn comes on a connection, without reading a
    /// request first (only for the sequential script).
    pub before_request: bool,
    /// Overrides the server's [`ContinueMode`] for this reply.
    pub expect: Option<ContinueMode>,
    /// Overrides the server's "send body for HEAD" setting for this reply.
    pub body_on_head: Option<bool>,
}

impl Reply {
    /// An empty reply (sends nothing; with the automatic rule the connection stays open).
    pub fn new() -> Reply {
        Reply::default()
    }

    /// Exactly these bytes, nothing added.
    pub fn raw(bytes: impl AsRef<[u8]>) -> Reply {
        Reply::new().write(bytes)
    }

    /// `HTTP/1.1 200 OK` with `Content-Length` and the body.
    pub fn ok(body: impl AsRef<[u8]>) -> Reply {
        Reply::status(200, &[], body)
    }

    /// A response with the given status, extra headers (after `Content-Length`) and a
    /// body with its `Content-Length`.
    pub fn status(code: u16, headers: &[(&str, &str)], body: impl AsRef<[u8]>) -> Reply {
        let body = body.as_ref();
        let mut head = format!(
            "HTTP/1.1 {code} {}\r\nContent-Length: {}\r\n",
            reason(code),
            body.len()
        );
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        Reply::raw(head).body(body)
    }

    /// A response head only: status line plus these headers verbatim (no
    /// `Content-Length` is added). Append the body with [`Reply::body`] etc.
    pub fn head(code: u16, headers: &[(&str, &str)]) -> Reply {
        let mut head = format!("HTTP/1.1 {code} {}\r\n", reason(code));
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        Reply::raw(head)
    }

    /// `HTTP/1.1 200 OK` with `Transfer-Encoding: chunked`, one chunk per element
    /// (empty elements are skipped), then the terminating chunk.
    pub fn chunked<B: AsRef<[u8]>>(chunks: &[B]) -> Reply {
        Reply::chunked_with_trailers(chunks, &[])
    }

    /// Like [`Reply::chunked`] with trailer fields after the last chunk.
    pub fn chunked_with_trailers<B: AsRef<[u8]>>(chunks: &[B], trailers: &[(&str, &str)]) -> Reply {
        let mut head = String::from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n");
        if !trailers.is_empty() {
            let names: Vec<&str> = trailers.iter().map(|(k, _)| *k).collect();
            head.push_str(&format!("Trailer: {}\r\n", names.join(", ")));
        }
        head.push_str("\r\n");
        Reply::raw(head).body(chunk_body(chunks, trailers))
    }

    /// A redirect (`code` e.g. 301, 302, 303, 307, 308) to `location` with an empty body.
    pub fn redirect(code: u16, location: &str) -> Reply {
        Reply::status(code, &[("Location", location)], b"")
    }

    /// `HTTP/1.1 200 OK` with `Content-Length: len` and `len` generated bytes
    /// ([`generated_body`]), streamed without holding them in memory.
    pub fn big(len: u64) -> Reply {
        Reply::raw(format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\n\r\n")).generated(len)
    }

    /// A reply that closes each connection it is used on immediately, without reading
    /// a request and without sending anything.
    pub fn close_at_once() -> Reply {
        Reply::new().without_reading_request().close()
    }

    /// Appends an [`Action::Write`].
    pub fn write(mut self, bytes: impl AsRef<[u8]>) -> Reply {
        self.actions.push(Action::Write(bytes.as_ref().to_vec()));
        self
    }

    /// Appends an [`Action::WriteBody`].
    pub fn body(mut self, bytes: impl AsRef<[u8]>) -> Reply {
        if !bytes.as_ref().is_empty() {
            self.actions
                .push(Action::WriteBody(bytes.as_ref().to_vec()));
        }
        self
    }

    /// Appends an [`Action::WriteSlowly`].
    pub fn write_slowly(mut self, bytes: impl AsRef<[u8]>, piece: usize, delay: Duration) -> Reply {
        self.actions.push(Action::WriteSlowly {
            data: bytes.as_ref().to_vec(),
            piece: piece.max(1),
            delay,
        });
        self
    }

    /// Appends an [`Action::WriteGenerated`].
    pub fn generated(mut self, len: u64) -> Reply {
        self.actions.push(Action::WriteGenerated(len));
        self
    }

    /// Appends an [`Action::Sleep`].
    pub fn sleep(mut self, d: Duration) -> Reply {
        self.actions.push(Action::Sleep(d));
        self
    }

    /// Appends an [`Action::Close`].
    pub fn close(mut self) -> Reply {
        self.actions.push(Action::Close);
        self
    }

    /// Appends an [`Action::Reset`].
    pub fn reset(mut self) -> Reply {
        self.actions.push(Action::Reset);
        self
    }

    /// Keep the connection open after this reply (`true`) or close it (`false`).
    ///
    /// Without this call the rule is automatic: the server closes the connection when
    /// the non-body bytes it wrote contain `Connection: close`, or when the last
    /// response head has neither `Content-Length` nor `Transfer-Encoding` (a body
    /// delimited by close) and is not a 1xx/204/304 or an answer to `HEAD`.
    pub fn keep_open(mut self, keep: bool) -> Reply {
        self.keep_open = Some(keep);
        self
    }

    /// Runs this reply without reading a request first (see [`Reply::before_request`]).
    pub fn without_reading_request(mut self) -> Reply {
        self.before_request = true;
        self
    }

    /// How to treat `Expect: 100-continue` when this reply answers the request.
    pub fn on_expect(mut self, mode: ContinueMode) -> Reply {
        self.expect = Some(mode);
        self
    }

    /// Send (or not) the body actions even when answering `HEAD`.
    pub fn body_on_head(mut self, send: bool) -> Reply {
        self.body_on_head = Some(send);
        self
    }
}

/// Encodes `chunks` in chunked transfer coding, including the last chunk and trailers.
pub fn chunk_body<B: AsRef<[u8]>>(chunks: &[B], trailers: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for c in chunks {
        let c = c.as_ref();
        if c.is_empty() {
            continue;
        }
        out.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
        out.extend_from_slice(c);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n");
    for (k, v) in trailers {
        out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// The usual reason phrase for a status code (`"Unknown"` when there is none).
pub fn reason(code: u16) -> &'static str {
    match code {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        305 => "Use Proxy",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Content Too Large",
        416 => "Range Not Satisfiable",
        417 => "Expectation Failed",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Unknown",
    }
}

/// One request as received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Connection number (0-based, accept order).
    pub conn: usize,
    /// Request line and header fields up to and including the empty line, verbatim.
    pub head: Vec<u8>,
    /// The body bytes verbatim (chunked framing and trailers included), possibly cut
    /// at the server's record limit.
    pub body: Vec<u8>,
    /// The number of body bytes received (may exceed `body.len()`).
    pub body_len: u64,
    /// Whether the whole body (per `Content-Length` or chunked framing) arrived.
    pub complete: bool,
    /// Request method, e.g. `GET`.
    pub method: String,
    /// Request target as sent, e.g. `/path?q` or `http://host/path`.
    pub target: String,
    /// Protocol version as sent, e.g. `HTTP/1.1`.
    pub version: String,
    /// Header fields in order, names as sent, values trimmed.
    pub headers: Vec<(String, String)>,
}

impl Request {
    fn parse(conn: usize, head: Vec<u8>) -> Request {
        let text = String::from_utf8_lossy(&head).into_owned();
        let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
        let first = lines.next().unwrap_or("");
        let mut parts = first.splitn(3, ' ');
        let method = parts.next().unwrap_or("").to_string();
        let target = parts.next().unwrap_or("").to_string();
        let version = parts.next().unwrap_or("").to_string();
        let headers = lines
            .filter(|l| !l.is_empty())
            .filter_map(|l| {
                let (k, v) = l.split_once(':')?;
                Some((k.to_string(), v.trim().to_string()))
            })
            .collect();
        Request {
            conn,
            head,
            body: Vec::new(),
            body_len: 0,
            complete: true,
            method,
            target,
            version,
            headers,
        }
    }

    /// Head followed by body: the request's bytes as received.
    pub fn raw(&self) -> Vec<u8> {
        let mut v = self.head.clone();
        v.extend_from_slice(&self.body);
        v
    }

    /// The target's path: scheme and authority of an absolute-form target removed,
    /// query and fragment cut off.
    pub fn path(&self) -> &str {
        let mut t = self.target.as_str();
        if let Some(i) = t.find("://") {
            let rest = &t[i + 3..];
            t = rest.find('/').map(|j| &rest[j..]).unwrap_or("/");
        }
        let end = t.find(['?', '#']).unwrap_or(t.len());
        &t[..end]
    }

    /// The first header field with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every header field with this name (case-insensitive), in order.
    pub fn headers_named(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Whether the body uses chunked transfer coding.
    pub fn is_chunked(&self) -> bool {
        self.headers_named("transfer-encoding")
            .last()
            .and_then(|v| v.rsplit(',').next())
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("chunked"))
    }

    /// The `Content-Length` value, if present and valid.
    pub fn content_length(&self) -> Option<u64> {
        self.header("content-length")?.trim().parse().ok()
    }

    /// The body with chunked framing removed (the recorded body as is otherwise).
    pub fn decoded_body(&self) -> Vec<u8> {
        if !self.is_chunked() {
            return self.body.clone();
        }
        let mut out = Vec::new();
        let mut rest = &self.body[..];
        while let Some(i) = find(rest, b"\n") {
            let line = String::from_utf8_lossy(&rest[..i]);
            let size = line.split(';').next().unwrap_or("").trim();
            let Ok(n) = usize::from_str_radix(size, 16) else {
                break;
            };
            rest = &rest[i + 1..];
            if n == 0 || rest.len() < n {
                out.extend_from_slice(&rest[..n.min(rest.len())]);
                break;
            }
            out.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            rest = rest.strip_prefix(b"\r\n").unwrap_or(rest);
        }
        out
    }
}

/// Read more of `stream` after the unread bytes of `buf` (those from `pos`), dropping the
/// read ones first once they are many; the new bytes are the last ones of `buf`. Ok(0) at
/// end of stream.
pub(crate) fn fill_from(
    stream: &mut impl Read,
    buf: &mut Vec<u8>,
    pos: &mut usize,
) -> io::Result<usize> {
    if *pos == buf.len() {
        buf.clear();
        *pos = 0;
    } else if *pos > 65536 {
        buf.drain(..*pos);
        *pos = 0;
    }
    let mut tmp = [0u8; 16384];
    let n = loop {
        match stream.read(&mut tmp) {
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    buf.extend_from_slice(&tmp[..n]);
    Ok(n)
}

/// Wait until a server's state says no connection is open, and it stays so (no new one, no
/// reset) for a short while; at most `timeout`. `probe` gives the open connections, the
/// reset generation and the connections seen so far; the server notifies `idle` when a
/// connection ends.
pub(crate) fn wait_quiet<S>(
    state: &Mutex<S>,
    idle: &Condvar,
    timeout: Duration,
    probe: impl Fn(&S) -> (usize, u64, usize),
) -> bool {
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    let deadline = Instant::now() + timeout;
    let mut st = lock();
    loop {
        while probe(&st).0 > 0 {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            st = idle
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let before = probe(&st);
        drop(st);
        thread::sleep(Duration::from_millis(15));
        st = lock();
        if probe(&st) == before {
            return true;
        }
    }
}

pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

type Handler = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;
type RawHandler = Arc<dyn Fn(RawConn) + Send + Sync>;

struct Route {
    key: String,
    replies: Vec<Reply>,
    cursor: usize,
}

struct State {
    gen: u64,
    requests: Vec<Request>,
    conns: Vec<Vec<u8>>,
    conn_totals: Vec<u64>,
    active: usize,
    streams: Vec<(usize, TcpStream)>,
    script: Vec<Reply>,
    cursor: usize,
    exhausted: Exhausted,
    routes: Vec<Route>,
    handler: Option<Handler>,
    raw: Option<RawHandler>,
    expect: ContinueMode,
    body_on_head: bool,
    record_limit: Option<usize>,
    linger: Duration,
}

struct Shared {
    stop: AtomicBool,
    tls: Option<Arc<rustls::ServerConfig>>,
    state: Mutex<State>,
    idle: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The scripted HTTP server. Stops (closing its connections) on drop.
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for ScriptedServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl ScriptedServer {
    /// Starts a server on `127.0.0.1` (ephemeral port) with no script: every request
    /// gets `404 Not Found` until replies are configured.
    pub fn start() -> ScriptedServer {
        ScriptedServer::bind("127.0.0.1:0").expect("bind 127.0.0.1:0")
    }

    /// Starts a server on `[::1]` (ephemeral port).
    pub fn start_v6() -> io::Result<ScriptedServer> {
        ScriptedServer::bind("[::1]:0")
    }

    /// Starts a server with this reply script on `127.0.0.1`.
    pub fn with_replies(replies: Vec<Reply>) -> ScriptedServer {
        let s = ScriptedServer::start();
        s.set_replies(replies);
        s
    }

    /// Starts a raw TCP server on `127.0.0.1`: every connection is handed to `f` on its
    /// own thread. Bytes read through the [`RawConn`] are recorded like the scripted
    /// server's.
    pub fn raw<F: Fn(RawConn) + Send + Sync + 'static>(f: F) -> ScriptedServer {
        let s = ScriptedServer::start();
        s.set_raw_handler(f);
        s
    }

    /// Starts a server on an explicit address (use port 0 for an ephemeral port).
    pub fn bind(addr: impl ToSocketAddrs) -> io::Result<ScriptedServer> {
        ScriptedServer::bind_with(addr, None)
    }

    /// Starts an HTTPS server on `127.0.0.1` (see [`crate::tls`]); requests and recorded
    /// bytes are the decrypted ones.
    pub fn start_tls(opts: &crate::tls::TlsServerOptions) -> ScriptedServer {
        ScriptedServer::bind_with("127.0.0.1:0", Some(crate::tls::server_config(opts)))
            .expect("bind 127.0.0.1:0")
    }

    /// Starts a server on `addr`, speaking TLS with `tls` when given.
    pub fn bind_with(
        addr: impl ToSocketAddrs,
        tls: Option<Arc<rustls::ServerConfig>>,
    ) -> io::Result<ScriptedServer> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            tls,
            state: Mutex::new(State {
                gen: 0,
                requests: Vec::new(),
                conns: Vec::new(),
                conn_totals: Vec::new(),
                active: 0,
                streams: Vec::new(),
                script: Vec::new(),
                cursor: 0,
                exhausted: Exhausted::RepeatLast,
                routes: Vec::new(),
                handler: None,
                raw: None,
                expect: ContinueMode::Continue,
                body_on_head: false,
                record_limit: None,
                linger: Duration::from_secs(2),
            }),
            idle: Condvar::new(),
        });
        let sh = shared.clone();
        let accept = thread::Builder::new()
            .name(format!("sws-accept-{}", addr.port()))
            .spawn(move || accept_loop(listener, sh))?;
        Ok(ScriptedServer {
            addr,
            shared,
            accept: Some(accept),
        })
    }

    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `127.0.0.1:PORT` or `[::1]:PORT`.
    pub fn host_port(&self) -> String {
        self.addr.to_string()
    }

    /// `http://127.0.0.1:PORT` (or `http://[::1]:PORT`, `https://` for a TLS server),
    /// without a trailing slash.
    pub fn url(&self) -> String {
        let scheme = if self.shared.tls.is_some() {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{}", self.addr)
    }

    /// Replaces the sequential reply script and rewinds it.
    pub fn set_replies(&self, replies: Vec<Reply>) {
        let mut st = self.shared.lock();
        st.script = replies;
        st.cursor = 0;
    }

    /// Appends a reply to the script.
    pub fn push_reply(&self, reply: Reply) {
        self.shared.lock().script.push(reply);
    }

    /// What to do when the script runs out (default [`Exhausted::RepeatLast`]).
    pub fn set_exhausted(&self, policy: Exhausted) {
        self.shared.lock().exhausted = policy;
    }

    /// Answers requests whose target (or target path without query) equals `key` with
    /// `reply`, every time.
    pub fn route(&self, key: &str, reply: Reply) {
        self.route_seq(key, vec![reply]);
    }

    /// Answers requests for `key` with these replies in order, repeating the last.
    pub fn route_seq(&self, key: &str, replies: Vec<Reply>) {
        assert!(!replies.is_empty(), "route_seq needs at least one reply");
        let mut st = self.shared.lock();
        st.routes.retain(|r| r.key != key);
        st.routes.push(Route {
            key: key.to_string(),
            replies,
            cursor: 0,
        });
    }

    /// Chooses every reply with `f` (takes precedence over routes and script).
    pub fn set_handler<F: Fn(&Request) -> Reply + Send + Sync + 'static>(&self, f: F) {
        self.shared.lock().handler = Some(Arc::new(f));
    }

    /// Switches to raw mode: new connections are handed to `f`.
    pub fn set_raw_handler<F: Fn(RawConn) + Send + Sync + 'static>(&self, f: F) {
        self.shared.lock().raw = Some(Arc::new(f));
    }

    /// The default `Expect: 100-continue` behaviour.
    pub fn set_continue_mode(&self, mode: ContinueMode) {
        self.shared.lock().expect = mode;
    }

    /// Whether body actions are sent when answering `HEAD` (default false).
    pub fn set_body_on_head(&self, send: bool) {
        self.shared.lock().body_on_head = send;
    }

    /// Stores at most `limit` bytes per request body and per connection log (counts
    /// stay exact). `None` (default) stores everything.
    pub fn set_record_limit(&self, limit: Option<usize>) {
        self.shared.lock().record_limit = limit;
    }

    /// How long a closing connection waits for the client to close its side (default
    /// 2 s).
    pub fn set_linger(&self, d: Duration) {
        self.shared.lock().linger = d;
    }

    /// Every complete request head received so far (with its body), in order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.lock().requests.clone()
    }

    /// The number of requests received so far.
    pub fn request_count(&self) -> usize {
        self.shared.lock().requests.len()
    }

    /// Every byte received, per connection in accept order.
    pub fn connection_bytes(&self) -> Vec<Vec<u8>> {
        self.shared.lock().conns.clone()
    }

    /// The number of bytes received per connection (exact even past the record limit).
    pub fn connection_totals(&self) -> Vec<u64> {
        self.shared.lock().conn_totals.clone()
    }

    /// The number of connections accepted.
    pub fn connections(&self) -> usize {
        self.shared.lock().conns.len()
    }

    /// Forgets all records, closes open connections and rewinds the script and routes,
    /// keeping the configuration: ready for another client run.
    pub fn reset(&self) {
        let mut st = self.shared.lock();
        st.gen += 1;
        for (_, s) in st.streams.drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
        st.requests.clear();
        st.conns.clear();
        st.conn_totals.clear();
        st.active = 0;
        st.cursor = 0;
        for r in &mut st.routes {
            r.cursor = 0;
        }
        self.shared.idle.notify_all();
    }

    /// Waits until no connection is open any more (and none arrived for a short
    /// while), at most `timeout`. Returns whether the server became idle. Call after
    /// the client exited, before reading the records.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        wait_quiet(&self.shared.state, &self.shared.idle, timeout, |st| {
            (st.active, st.gen, st.conns.len())
        })
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        {
            let mut st = self.shared.lock();
            st.gen += 1;
            for (_, s) in st.streams.drain(..) {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
        // Unblock accept().
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(_) => {
                if shared.stop.load(Ordering::SeqCst) {
                    return;
                }
                thread::sleep(Duration::from_millis(5));
                continue;
            }
        };
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let _ = stream.set_nodelay(true);
        let (id, gen, raw) = {
            let mut st = shared.lock();
            let id = st.conns.len();
            st.conns.push(Vec::new());
            st.conn_totals.push(0);
            st.active += 1;
            if let Ok(c) = stream.try_clone() {
                st.streams.push((id, c));
            }
            (id, st.gen, st.raw.clone())
        };
        let stream = match &shared.tls {
            Some(cfg) => match rustls::ServerConnection::new(cfg.clone()) {
                Ok(c) => ServerStream::Tls(Box::new(rustls::StreamOwned::new(c, stream))),
                Err(_) => continue,
            },
            None => ServerStream::Plain(stream),
        };
        let conn = Conn {
            shared: shared.clone(),
            stream,
            id,
            gen,
            buf: Vec::new(),
            pos: 0,
        };
        let spawned =
            thread::Builder::new()
                .name(format!("sws-conn-{id}"))
                .spawn(move || match raw {
                    Some(f) => f(RawConn { conn }),
                    None => conn.serve(),
                });
        if spawned.is_err() {
            // The Conn was dropped with the closure, which unregistered it.
            continue;
        }
    }
}

/// A server-side connection: plain TCP or TLS over it.
enum ServerStream {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ServerConnection, TcpStream>>),
}

impl ServerStream {
    fn tcp(&self) -> &TcpStream {
        match self {
            ServerStream::Plain(s) => s,
            ServerStream::Tls(t) => &t.sock,
        }
    }
    fn shutdown(&mut self, how: Shutdown) -> io::Result<()> {
        if let ServerStream::Tls(t) = self {
            if how != Shutdown::Read {
                t.conn.send_close_notify();
                let _ = t.conn.complete_io(&mut t.sock);
            }
        }
        self.tcp().shutdown(how)
    }
    fn set_read_timeout(&self, d: Option<Duration>) -> io::Result<()> {
        self.tcp().set_read_timeout(d)
    }
}

impl Read for ServerStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            ServerStream::Plain(s) => s.read(buf),
            ServerStream::Tls(t) => t.read(buf),
        }
    }
}

impl Write for ServerStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            ServerStream::Plain(s) => s.write(buf),
            ServerStream::Tls(t) => t.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            ServerStream::Plain(s) => s.flush(),
            ServerStream::Tls(t) => t.flush(),
        }
    }
}

struct Conn {
    shared: Arc<Shared>,
    stream: ServerStream,
    id: usize,
    gen: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl Drop for Conn {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
        let mut st = self.shared.lock();
        if st.gen == self.gen {
            st.active = st.active.saturating_sub(1);
            let id = self.id;
            st.streams.retain(|(i, _)| *i != id);
            if st.active == 0 {
                self.shared.idle.notify_all();
            }
        }
    }
}

enum Next {
    Continue,
    Closed,
}

impl Conn {
    fn cancelled(&self) -> bool {
        self.shared.stop.load(Ordering::SeqCst) || self.shared.lock().gen != self.gen
    }

    /// Sleeps `d` in small steps; false when the server stopped or was reset meanwhile.
    fn nap(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        loop {
            if self.cancelled() {
                return false;
            }
            let now = Instant::now();
            if now >= end {
                return true;
            }
            thread::sleep((end - now).min(Duration::from_millis(50)));
        }
    }

    fn record(&self, data: &[u8]) {
        let mut st = self.shared.lock();
        if st.gen != self.gen {
            return;
        }
        let limit = st.record_limit.unwrap_or(usize::MAX);
        let id = self.id;
        st.conn_totals[id] += data.len() as u64;
        let log = &mut st.conns[id];
        let room = limit.saturating_sub(log.len());
        log.extend_from_slice(&data[..room.min(data.len())]);
    }

    fn push_request(&self, req: Request) {
        let mut st = self.shared.lock();
        if st.gen == self.gen {
            st.requests.push(req);
        }
    }

    fn record_limit(&self) -> usize {
        self.shared.lock().record_limit.unwrap_or(usize::MAX)
    }

    fn avail(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// Reads more bytes into the buffer; Ok(0) at end of stream.
    fn fill(&mut self) -> io::Result<usize> {
        let n = fill_from(&mut self.stream, &mut self.buf, &mut self.pos)?;
        if n > 0 {
            self.record(&self.buf[self.buf.len() - n..]);
        }
        Ok(n)
    }

    /// Reads a request head (leading empty lines skipped). None at end of stream.
    fn read_head(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            loop {
                let a = self.avail();
                if a.starts_with(b"\r\n") {
                    self.pos += 2;
                } else if a.starts_with(b"\n") {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            let a = self.avail();
            let crlf = find(a, b"\r\n\r\n").map(|i| i + 4);
            let lf = find(a, b"\n\n").map(|i| i + 2);
            let end = match (crlf, lf) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            };
            if let Some(end) = end {
                let head = a[..end].to_vec();
                self.pos += end;
                return Ok(Some(head));
            }
            if self.fill()? == 0 {
                return Ok(None);
            }
        }
    }

    fn take(&mut self, mut n: u64, req: &mut Request, limit: usize) -> io::Result<bool> {
        while n > 0 {
            if self.avail().is_empty() && self.fill()? == 0 {
                return Ok(false);
            }
            let a = &self.buf[self.pos..];
            let k = (a.len() as u64).min(n) as usize;
            let room = limit.saturating_sub(req.body.len()).min(k);
            req.body.extend_from_slice(&a[..room]);
            req.body_len += k as u64;
            self.pos += k;
            n -= k as u64;
        }
        Ok(true)
    }

    /// Reads one line (through `\n`) into the body; the line's bytes are returned.
    fn take_line(&mut self, req: &mut Request, limit: usize) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(i) = find(self.avail(), b"\n") {
                let line = self.avail()[..=i].to_vec();
                self.take(line.len() as u64, req, limit)?;
                return Ok(Some(line));
            }
            if self.avail().len() > 1 << 20 {
                return Ok(None);
            }
            if self.fill()? == 0 {
                return Ok(None);
            }
        }
    }

    /// Reads the body per Content-Length or chunked coding; false if it ended early.
    fn read_body(&mut self, req: &mut Request) -> io::Result<bool> {
        let limit = self.record_limit();
        if req.is_chunked() {
            loop {
                let Some(line) = self.take_line(req, limit)? else {
                    return Ok(false);
                };
                let text = String::from_utf8_lossy(&line);
                let size = text.split(';').next().unwrap_or("").trim();
                let Ok(n) = u64::from_str_radix(size, 16) else {
                    return Ok(false);
                };
                if n == 0 {
                    // Trailers up to the empty line.
                    loop {
                        let Some(line) = self.take_line(req, limit)? else {
                            return Ok(false);
                        };
                        if line == b"\r\n" || line == b"\n" {
                            return Ok(true);
                        }
                    }
                }
                if !self.take(n, req, limit)? {
                    return Ok(false);
                }
                let Some(_) = self.take_line(req, limit)? else {
                    return Ok(false);
                };
            }
        } else {
            let n = req.content_length().unwrap_or(0);
            self.take(n, req, limit)
        }
    }

    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        self.stream.write_all(data)
    }

    /// Shuts down the write side and records what the client still sends until it
    /// closes (or the linger time passes).
    fn lingering_close(&mut self) {
        let _ = self.stream.flush();
        let _ = self.stream.shutdown(Shutdown::Write);
        let linger = self.shared.lock().linger;
        let end = Instant::now() + linger;
        loop {
            let now = Instant::now();
            if now >= end || self.cancelled() {
                break;
            }
            let _ = self
                .stream
                .set_read_timeout(Some((end - now).min(Duration::from_millis(100))));
            match self.fill() {
                Ok(0) => break,
                Ok(_) => {}
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::TimedOut
                        || e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// Records everything until the client closes; no more replies.
    fn drain(&mut self) {
        let _ = self
            .stream
            .set_read_timeout(Some(Duration::from_millis(100)));
        while !self.cancelled() {
            match self.fill() {
                Ok(0) => break,
                Ok(_) => {}
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::TimedOut
                        || e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    }

    fn run_reply(&mut self, reply: &Reply, head_request: bool) -> Next {
        match self.run_actions(reply, head_request) {
            Ok(n) => n,
            Err(_) => Next::Closed,
        }
    }

    fn run_actions(&mut self, reply: &Reply, head_request: bool) -> io::Result<Next> {
        let skip_body = head_request
            && !reply
                .body_on_head
                .unwrap_or_else(|| self.shared.lock().body_on_head);
        let mut meta: Vec<u8> = Vec::new();
        // A reply that closes the connection goes out with its FIN in the same segment (TCP
        // cork until the shutdown): a client then always sees the close by the time it has
        // read the reply, instead of racing the server to reuse the connection.
        let closes = reply.keep_open == Some(false)
            || reply.actions.iter().any(|a| matches!(a, Action::Close));
        let cork = closes
            && reply
                .actions
                .iter()
                .all(|a| !matches!(a, Action::Sleep(_) | Action::WriteSlowly { .. }));
        if cork {
            let _ = socket2::SockRef::from(self.stream.tcp()).set_cork(true);
        }
        for a in &reply.actions {
            match a {
                Action::Write(b) => {
                    self.write(b)?;
                    meta.extend_from_slice(b);
                }
                Action::WriteBody(b) => {
                    if !skip_body {
                        self.write(b)?;
                    }
                }
                Action::WriteSlowly { data, piece, delay } => {
                    for (i, p) in data.chunks((*piece).max(1)).enumerate() {
                        if i > 0 && !self.nap(*delay) {
                            return Ok(Next::Closed);
                        }
                        self.write(p)?;
                        self.stream.flush()?;
                    }
                    meta.extend_from_slice(data);
                }
                Action::WriteGenerated(n) => {
                    if !skip_body {
                        let mut off = 0u64;
                        let block = generated(0, 64 * 1024);
                        while off < *n {
                            // The block is a whole number of pattern periods.
                            let k = ((*n - off) as usize).min(block.len());
                            self.write(&block[..k])?;
                            off += k as u64;
                        }
                    }
                }
                Action::Sleep(d) => {
                    self.stream.flush()?;
                    if !self.nap(*d) {
                        return Ok(Next::Closed);
                    }
                }
                Action::Close => {
                    self.lingering_close();
                    return Ok(Next::Closed);
                }
                Action::Reset => {
                    let _ = self.stream.shutdown(Shutdown::Both);
                    return Ok(Next::Closed);
                }
            }
        }
        self.stream.flush()?;
        let close = match reply.keep_open {
            Some(k) => !k,
            None => auto_close(&meta, head_request),
        };
        if close {
            self.lingering_close();
            return Ok(Next::Closed);
        }
        Ok(Next::Continue)
    }

    fn take_before_request_reply(&self) -> Option<Reply> {
        let mut st = self.shared.lock();
        if st.handler.is_some() || st.gen != self.gen {
            return None;
        }
        let st = &mut *st;
        if st.cursor < st.script.len() {
            if st.script[st.cursor].before_request {
                st.cursor += 1;
                return Some(st.script[st.cursor - 1].clone());
            }
            return None;
        }
        match &st.exhausted {
            Exhausted::RepeatLast => st.script.last().filter(|r| r.before_request).cloned(),
            Exhausted::Reply(r) if r.before_request => Some(r.clone()),
            _ => None,
        }
    }

    /// Picks the reply for `req`; None means close without replying.
    fn pick(&self, req: &Request) -> Option<Reply> {
        let handler = self.shared.lock().handler.clone();
        if let Some(h) = handler {
            return Some(h(req));
        }
        let mut st = self.shared.lock();
        let st = &mut *st;
        let path = req.path().to_string();
        let idx = st
            .routes
            .iter()
            .position(|r| r.key == req.target)
            .or_else(|| st.routes.iter().position(|r| r.key == path));
        if let Some(i) = idx {
            let r = &mut st.routes[i];
            let reply = r.replies[r.cursor.min(r.replies.len() - 1)].clone();
            r.cursor += 1;
            return Some(reply);
        }
        if st.script.is_empty() {
            return Some(Reply::status(404, &[], b""));
        }
        if st.cursor < st.script.len() {
            st.cursor += 1;
            return Some(st.script[st.cursor - 1].clone());
        }
        st.cursor += 1;
        match &st.exhausted {
            Exhausted::RepeatLast => st.script.last().cloned(),
            Exhausted::Close => None,
            Exhausted::Reply(r) => Some(r.clone()),
        }
    }

    fn serve(mut self) {
        loop {
            if self.cancelled() {
                return;
            }
            if let Some(reply) = self.take_before_request_reply() {
                match self.run_reply(&reply, false) {
                    Next::Continue => continue,
                    Next::Closed => return,
                }
            }
            let head = match self.read_head() {
                Ok(Some(h)) => h,
                _ => return,
            };
            let mut req = Request::parse(self.id, head);
            let Some(reply) = self.pick(&req) else {
                self.push_request(req);
                self.lingering_close();
                return;
            };
            let expects = req
                .header("expect")
                .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"));
            let mode = reply.expect.unwrap_or_else(|| self.shared.lock().expect);
            let mut drain_after = false;
            if expects {
                match mode {
                    ContinueMode::Continue => {
                        if self.write(b"HTTP/1.1 100 Continue\r\n\r\n").is_err() {
                            return;
                        }
                    }
                    ContinueMode::ContinueAfter(d) => {
                        if !self.nap(d) || self.write(b"HTTP/1.1 100 Continue\r\n\r\n").is_err() {
                            return;
                        }
                    }
                    ContinueMode::Ignore => {}
                    ContinueMode::FinalReply => drain_after = true,
                }
            }
            if drain_after {
                req.complete = false;
            } else {
                req.complete = matches!(self.read_body(&mut req), Ok(true));
            }
            let complete = req.complete;
            let head_request = req.method == "HEAD";
            self.push_request(req);
            if !complete && !drain_after {
                return;
            }
            match self.run_reply(&reply, head_request) {
                Next::Closed => return,
                Next::Continue if drain_after => {
                    self.drain();
                    return;
                }
                Next::Continue => {}
            }
        }
    }
}

/// Whether the server should close after writing `meta` (the non-body bytes).
fn auto_close(meta: &[u8], head_request: bool) -> bool {
    if meta.is_empty() {
        return false;
    }
    let lower = meta.to_ascii_lowercase();
    if find(&lower, b"\nconnection: close").is_some()
        || find(&lower, b"\nconnection:close").is_some()
    {
        return true;
    }
    // Find the last response head.
    let mut start = 0;
    let mut i = 0;
    while let Some(j) = find(&lower[i..], b"http/") {
        let at = i + j;
        if at == 0 || lower[at - 1] == b'\n' {
            start = at;
        }
        i = at + 5;
    }
    let last = &lower[start..];
    let status: u16 = last
        .split(|&b| b == b' ')
        .nth(1)
        .and_then(|s| std::str::from_utf8(s).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(200);
    if head_request || (100..200).contains(&status) || status == 204 || status == 304 {
        return false;
    }
    find(last, b"\ncontent-length:").is_none() && find(last, b"\ntransfer-encoding:").is_none()
}

/// A connection handed to a raw handler ([`ScriptedServer::raw`]). Reads through it
/// are recorded; dropping it closes the connection.
pub struct RawConn {
    conn: Conn,
}

impl std::fmt::Debug for RawConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawConn")
            .field("id", &self.conn.id)
            .finish()
    }
}

impl RawConn {
    /// The connection number (0-based).
    pub fn id(&self) -> usize {
        self.conn.id
    }

    /// The underlying stream (for timeouts, `peer_addr`, `shutdown`...). Reading from
    /// it directly bypasses recording.
    pub fn stream(&self) -> &TcpStream {
        self.conn.stream.tcp()
    }

    /// Reads one full request (head and body), records it and returns it; None at end
    /// of stream or on error.
    pub fn read_request(&mut self) -> Option<Request> {
        let head = self.conn.read_head().ok()??;
        let mut req = Request::parse(self.conn.id, head);
        req.complete = matches!(self.conn.read_body(&mut req), Ok(true));
        self.conn.push_request(req.clone());
        Some(req)
    }

    /// Reads just a request head (recorded as a request without body).
    pub fn read_head(&mut self) -> Option<Request> {
        let head = self.conn.read_head().ok()??;
        let req = Request::parse(self.conn.id, head);
        self.conn.push_request(req.clone());
        Some(req)
    }

    /// Runs a reply's actions; false when the connection was closed by them.
    pub fn send(&mut self, reply: &Reply) -> bool {
        matches!(self.conn.run_reply(reply, false), Next::Continue)
    }

    /// Records everything the client sends until it closes the connection.
    pub fn drain(&mut self) {
        self.conn.drain();
    }

    /// Shuts down the write side and records the rest until the client closes.
    pub fn close(mut self) {
        self.conn.lingering_close();
    }

    /// Sleeps, returning false early if the server was stopped or reset.
    pub fn sleep(&self, d: Duration) -> bool {
        self.conn.nap(d)
    }
}

impl Read for RawConn {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.conn.avail().is_empty() && self.conn.fill()? == 0 {
            return Ok(0);
        }
        let a = self.conn.avail();
        let n = a.len().min(out.len());
        out[..n].copy_from_slice(&a[..n]);
        self.conn.pos += n;
        Ok(n)
    }
}

impl Write for RawConn {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.conn.stream.write(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.conn.stream.flush()
    }
}
