//! HTTP/2 (curl's `cf-h2`/`http2.c`): the `h2` crate behind a small multiplexer interface,
//! driven without an async runtime.
//!
//! The connection (socket, TLS) stays owned by the transfer and the pool as for HTTP/1. It is
//! *lent* to h2 only while the mux is polled (`Mux::drive`): the I/O object h2 owns is a
//! handle onto a slot the connection is moved into for the poll and taken out of afterwards.
//! The connection future is polled with a no-op waker: sockets are level-triggered and every
//! drive polls again. A stream is polled with its transfer's waker, so that frames one
//! transfer reads for another's stream make the other runnable.
//!
//! Not here: what a request or response means (the transfer converts curl's HTTP/1 request
//! into HTTP/2 fields with [`req::from_h1`] and feeds responses back as HTTP/1-style header
//! lines, as curl does).

pub mod hpack;
pub mod merge;
pub mod req;
pub mod scan;
pub mod tunnel;

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use bytes::Bytes;
use h2::client::{Connection, ResponseFuture, SendRequest};
use h2::{RecvStream, SendStream};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::conn::Conn;

/// h2 queues what it reads for a stream until that stream's transfer takes it, so the stream
/// window is what a stream that is not read (paused, or one of many while another transfer
/// drives) may hold in memory: 1 MiB, not curl's 10 MiB (`H2_STREAM_WINDOW_SIZE_MAX`). A
/// transfer that reads never gets near it ([`Mux::drive_some`]). The largest header
/// block taken is curl's `MAX_HTTP_RESP_HEADER_SIZE` (300 KiB); curl's
/// `DEFAULT_MAX_CONCURRENT_STREAMS` is 100.
const STREAM_WINDOW: u32 = 1024 * 1024;
const CONN_WINDOW: u32 = 10 * STREAM_WINDOW;
pub const MAX_HEADER_LIST: u32 = 300 * 1024;

/// The largest frame we take (SETTINGS_MAX_FRAME_SIZE; curl leaves nghttp2's 16 KiB), and
/// so the largest run of DATA frames the merger joins ([`merge`]): servers like nginx send
/// 8 or 16 KiB frames whatever we allow, and h2 allocates per frame it reads. h2 allows
/// `n + n / 4` CONTINUATION frames before the last of a header block, `n` being how many
/// frames of this size [`MAX_HEADER_LIST`] takes (at least 5): with 48 KiB that is 7, and
/// 8 CONTINUATION frames in all, nghttp2's limit (`NGHTTP2_DEFAULT_MAX_CONTINUATIONS`).
/// A larger size would refuse header blocks curl takes.
const MAX_FRAME: u32 = 48 * 1024;

/// What [`Mux::drive_some`] reads before the streams' readers take it: a few of nginx's
/// 16 KiB frames for a stream alone on its connection, one when several share it. What
/// is read for the others waits in h2 until their transfers run, each frame keeping the
/// read buffer it came in alive; a single download reads in larger steps, as each drive
/// costs system calls.
const DRIVE_BUDGET: usize = 64 * 1024;
const SHARED_DRIVE_BUDGET: usize = 16 * 1024;

/// The connection while lent, and whether a write would have blocked.
struct Slot {
    conn: Option<Conn>,
    write_blocked: bool,
    /// The bytes that came in during this drive.
    got: usize,
    /// Bytes this drive may still read (see [`Mux::drive_some`]).
    budget: usize,
    /// The drive stopped reading because its budget ran out, not because the connection
    /// had nothing more.
    more: bool,
    /// This drive may read at all (a flush reads nothing, not even what is staged).
    reads: bool,
    /// The frames the peer sent, for nghttp2's flood limit (as they came, before merging).
    scan: scan::FrameScan,
    /// What was read and not yet handed to h2, with runs of DATA frames joined.
    merge: merge::Merger,
    /// Bytes of the connection preface h2 has still to write.
    preface_left: usize,
    /// The SETTINGS frame after the preface has still to be written.
    settings: bool,
    /// That SETTINGS frame without SETTINGS_MAX_FRAME_SIZE, as far as not yet sent.
    out: Vec<u8>,
    /// A read error that came after bytes still staged.
    error: Option<io::Error>,
    /// Where a connection upgraded from HTTP/1 stands ([`Upgrade`]).
    upgrade: Upgrade,
    /// Bytes h2 reads before the peer's: the SETTINGS frame an upgrade starts h2 with.
    inject: Vec<u8>,
    /// What the peer sent after its 101 in the same read as it, read before the socket.
    pre: Vec<u8>,
    /// While an upgrade filters what h2 writes: bytes left of the frame being written.
    frame_left: usize,
}

/// The switch from HTTP/1.1 to HTTP/2 after a 101 (curl's `Curl_http2_upgrade`), which h2
/// does not know: the request that asked for it is stream 1, half-closed on our side, and
/// the server answers on it. h2 is made to open stream 1 itself, as a request with
/// END_STREAM whose HEADERS frame is not sent.
///
/// That frame's header block must leave the server's HPACK decoder as it is: h2's encoder
/// is given no dynamic table first, by a SETTINGS frame with SETTINGS_HEADER_TABLE_SIZE 0
/// that h2 reads before the peer's bytes (its ACK is not sent either). Then the block
/// inserts nothing, and the table size update it starts with goes unsent, which leaves the
/// server's table at its size, empty, and h2's encoder at size 0 (it inserts nothing after:
/// every later block is understood whatever the server's table holds). The server's own
/// SETTINGS come after, as usual; a SETTINGS_HEADER_TABLE_SIZE in them gives the encoder a
/// table again, announced in the next block, with both tables empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Upgrade {
    /// Not an upgrade, or it is done.
    None,
    /// h2 reads the SETTINGS frame; its ACK is not sent.
    Settings,
    /// The SETTINGS are applied: stream 1 may be opened.
    Open,
    /// Stream 1 is open; its HEADERS frame is not sent.
    Headers,
}

/// SETTINGS with SETTINGS_HEADER_TABLE_SIZE 0 ([`Upgrade`]).
const NO_TABLE: [u8; 15] = [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0];

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            conn: None,
            write_blocked: false,
            got: 0,
            budget: 0,
            more: false,
            reads: false,
            scan: scan::FrameScan::default(),
            merge: merge::Merger::new(merge::WIRE_MAX, MAX_FRAME as usize),
            preface_left: PREFACE_LEN,
            settings: true,
            out: Vec::new(),
            error: None,
            upgrade: Upgrade::None,
            inject: Vec::new(),
            pre: Vec::new(),
            frame_left: 0,
        }
    }
}

/// "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", which h2 writes before its SETTINGS.
const PREFACE_LEN: usize = 24;

/// The text of the I/O error a flood of PING or SETTINGS frames ends the connection with.
pub const FLOODED: &str = "HTTP/2 peer flooded the connection";

/// The I/O object h2 owns: a handle onto the slot the connection is lent into.
struct Lent(Arc<Mutex<Slot>>);

impl Lent {
    fn with<R>(&self, f: impl FnOnce(&mut Slot) -> R) -> R {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut g)
    }
}

fn not_lent() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "connection not lent")
}

impl AsyncRead for Lent {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.with(|s| {
            let Some(c) = s.conn.as_mut() else {
                return Poll::Ready(Err(not_lent()));
            };
            if !s.reads {
                s.more = true;
                return Poll::Pending;
            }
            if !s.inject.is_empty() {
                let n = s.inject.len().min(buf.remaining());
                buf.put_slice(&s.inject[..n]);
                s.inject.drain(..n);
                return Poll::Ready(Ok(()));
            }
            if s.upgrade != Upgrade::None {
                // Nothing of the peer's before stream 1 is open.
                s.more = true;
                return Poll::Pending;
            }
            loop {
                // What is staged goes first, read or not within the budget.
                if s.merge.read(buf.remaining(), |b| buf.put_slice(b)) > 0 {
                    return Poll::Ready(Ok(()));
                }
                if let Some(e) = s.error.take() {
                    return Poll::Ready(Err(e));
                }
                if s.merge.take_eof() {
                    return Poll::Ready(Ok(()));
                }
                if s.budget == 0 {
                    s.more = true;
                    return Poll::Pending;
                }
                // Over TLS a read returns one record: read on while the session has more,
                // so that the frames of several records can be joined.
                let layered = c.tls.is_some() || c.proxy_tls.is_some() || c.tunnel.is_some();
                let mut got = false;
                loop {
                    // What came with the 101 goes first, as if read now.
                    let pre = !s.pre.is_empty();
                    let spare = s.merge.spare();
                    if spare.is_empty() {
                        break;
                    }
                    let r = if pre {
                        let n = spare.len().min(s.pre.len());
                        spare[..n].copy_from_slice(&s.pre[..n]);
                        s.pre.drain(..n);
                        Ok(n)
                    } else {
                        c.recv(spare)
                    };
                    let spare = s.merge.spare();
                    match r {
                        Ok(n) => {
                            if s.scan.feed(&spare[..n]) {
                                return Poll::Ready(Err(io::Error::other(FLOODED)));
                            }
                            s.merge.filled(n);
                            s.got += n;
                            s.budget = s.budget.saturating_sub(n);
                            got = true;
                            if n == 0 || !(layered || pre) || s.budget == 0 {
                                break;
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                            if got {
                                break;
                            }
                            return Poll::Pending;
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) if got => {
                            // What came before the error goes to h2 first.
                            s.error = Some(e);
                            break;
                        }
                        Err(e) => return Poll::Ready(Err(e)),
                    }
                }
            }
        })
    }
}

/// Send what is left of the rewritten SETTINGS frame; false while the socket takes no more.
fn send_out(c: &mut Conn, out: &mut Vec<u8>) -> io::Result<bool> {
    while !out.is_empty() {
        match c.send(out) {
            Ok(n) => drop(out.drain(..n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    *out = Vec::new();
    Ok(true)
}

impl AsyncWrite for Lent {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.with(|s| {
            let Some(c) = s.conn.as_mut() else {
                return Poll::Ready(Err(not_lent()));
            };
            match send_out(c, &mut s.out) {
                Ok(true) => {}
                Ok(false) => {
                    s.write_blocked = true;
                    return Poll::Pending;
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
            if s.preface_left == 0 && s.settings {
                // h2 announces the frame size it takes joined frames up to; the peer is
                // told nothing, as by curl, and keeps to 16 KiB ([`merge`]).
                s.settings = false;
                if let Some((frame, taken)) = merge::strip_max_frame_size(data) {
                    s.merge.wrote(&data[..taken]);
                    s.out = frame;
                    if let Err(e) = send_out(c, &mut s.out) {
                        return Poll::Ready(Err(e));
                    }
                    return Poll::Ready(Ok(taken));
                }
                // Not the frame expected: the peer was told h2's size, and may use it.
                s.merge.set_wire_max(MAX_FRAME as usize);
            }
            // The preface alone, so that the SETTINGS frame starts a write of its own.
            let mut data = match s.preface_left {
                0 => data,
                n => &data[..data.len().min(n)],
            };
            if s.preface_left == 0 && matches!(s.upgrade, Upgrade::Settings | Upgrade::Headers) {
                // Frame by frame, leaving out the two an upgrade does not send.
                if s.frame_left == 0 {
                    if data.len() < 9 {
                        // h2 writes whole frame headers; otherwise nothing is left out.
                        s.upgrade = Upgrade::None;
                    } else {
                        let len = 9 + merge::frame_len(data);
                        let (kind, flags, stream) = (data[3], data[4], merge::stream_of(data));
                        let skip = match s.upgrade {
                            Upgrade::Settings => kind == 4 && flags & 1 != 0,
                            _ => kind == 1 && stream == 1,
                        };
                        if skip && len <= data.len() {
                            s.merge.wrote(&data[..len]);
                            s.upgrade = match s.upgrade {
                                Upgrade::Settings => Upgrade::Open,
                                // One frame: the block is a few bytes.
                                _ => Upgrade::None,
                            };
                            return Poll::Ready(Ok(len));
                        }
                        s.frame_left = len;
                    }
                }
                if s.frame_left > 0 {
                    data = &data[..data.len().min(s.frame_left)];
                }
            }
            loop {
                match c.send(data) {
                    Ok(n) => {
                        if s.preface_left == 0 {
                            s.frame_left = s.frame_left.saturating_sub(n);
                            // The DATA h2 sends takes from the streams' send windows.
                            s.merge.wrote(&data[..n]);
                        }
                        s.preface_left = s.preface_left.saturating_sub(n);
                        return Poll::Ready(Ok(n));
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        s.write_blocked = true;
                        return Poll::Pending;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Poll::Ready(Err(e)),
                }
            }
        })
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.with(|s| {
            let Some(c) = s.conn.as_mut() else {
                return Poll::Ready(Err(not_lent()));
            };
            match send_out(c, &mut s.out) {
                Ok(true) => {}
                Ok(false) => {
                    s.write_blocked = true;
                    return Poll::Pending;
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
            match c.flush() {
                Ok(()) => Poll::Ready(Ok(())),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    s.write_blocked = true;
                    Poll::Pending
                }
                Err(e) => Poll::Ready(Err(e)),
            }
        })
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}

type Handshake = Pin<
    Box<
        dyn Future<Output = Result<(SendRequest<Bytes>, Connection<Lent, Bytes>), h2::Error>>
            + Send,
    >,
>;

// The mux is boxed in its connection; the open state being large costs nothing.
#[allow(clippy::large_enum_variant)]
enum Phase {
    Handshake(Handshake),
    Open {
        send: SendRequest<Bytes>,
        conn: Connection<Lent, Bytes>,
    },
    /// The connection ended (GOAWAY, error or close); the error ends its streams.
    Closed(Arc<h2::Error>),
}

/// One HTTP/2 connection: h2's connection state over a lent [`Conn`].
pub struct Mux {
    slot: Arc<Mutex<Slot>>,
    phase: Phase,
    waiting: Arc<Waiting>,
    /// After an upgrade: the request was a HEAD (its response has no body), and stream 1
    /// once h2 opened it, until the transfer takes it.
    upgraded: Option<(bool, Option<Stream>)>,
}

/// The connection's streams that h2 woke (it queued a frame or an event for them) and whose
/// transfers have not run since. What h2 read for them stays in its queues, each frame
/// keeping the read buffer it came in alive, until they do; a transfer waiting for its own
/// response does not read more while others have something to take ([`Waiting::defer`]).
#[derive(Default)]
pub struct Waiting {
    /// Streams with a transfer ([`StreamWake`]s not retired).
    live: AtomicUsize,
    streams: AtomicUsize,
    /// How often a woken stream was taken up: while this moves, the streams are served.
    claims: AtomicUsize,
}

impl Waiting {
    /// Should a stream that waits for input let the woken streams go first? `last` is what
    /// the stream saw when it deferred last time: once nothing was taken up since, it
    /// reads anyway (a woken stream whose transfer is paused must not stop the others).
    pub fn defer(&self, last: &mut Option<usize>) -> bool {
        if self.streams.load(Ordering::Acquire) == 0 {
            *last = None;
            return false;
        }
        let claims = self.claims.load(Ordering::Acquire);
        if *last == Some(claims) {
            *last = None;
            return false;
        }
        *last = Some(claims);
        true
    }
}

const IDLE: u8 = 0;
const WOKEN: u8 = 1;
const GONE: u8 = 2;

/// The waker one stream is polled with: the transfer's, counting the stream in its
/// connection's [`Waiting`] until the transfer runs ([`StreamWake::claim`]).
pub struct StreamWake {
    transfer: Waker,
    state: AtomicU8,
    conn: Arc<Waiting>,
}

impl Wake for StreamWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }
    fn wake_by_ref(self: &Arc<Self>) {
        if self
            .state
            .compare_exchange(IDLE, WOKEN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            self.conn.streams.fetch_add(1, Ordering::AcqRel);
        }
        self.transfer.wake_by_ref();
    }
}

impl StreamWake {
    /// The waker for `transfer`'s stream on the connection of `mux`.
    pub fn new(mux: &Mux, transfer: &Waker) -> (Arc<StreamWake>, Waker) {
        let w = Arc::new(StreamWake {
            transfer: transfer.clone(),
            state: AtomicU8::new(IDLE),
            conn: mux.waiting.clone(),
        });
        w.conn.live.fetch_add(1, Ordering::AcqRel);
        (w.clone(), Waker::from(w))
    }
    /// The transfer runs: whatever it was woken for, it takes now.
    pub fn claim(&self) {
        if self
            .state
            .compare_exchange(WOKEN, IDLE, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            self.taken();
        }
    }
    /// The transfer left the stream: later wakes (h2 keeps the waker while the stream
    /// lives) count for nothing.
    pub fn retire(&self) {
        match self.state.swap(GONE, Ordering::AcqRel) {
            GONE => return,
            WOKEN => self.taken(),
            _ => {}
        }
        self.conn.live.fetch_sub(1, Ordering::AcqRel);
    }
    fn taken(&self) {
        self.conn.streams.fetch_sub(1, Ordering::AcqRel);
        self.conn.claims.fetch_add(1, Ordering::AcqRel);
    }
}

impl std::fmt::Debug for Mux {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mux").finish()
    }
}

/// Acknowledge what was read at once instead of after the kernel's delayed-ACK time.
///
/// A server that writes a response's HEADERS and DATA frames separately with Nagle's
/// algorithm on (nginx does for h2c) holds the DATA until the HEADERS are acknowledged. curl
/// (nghttp2) answers the HEADERS with WINDOW_UPDATE frames, which carry the ACK; h2 has
/// nothing to send there, and every request after the first on a connection waited about
/// 40 ms. `TCP_QUICKACK` sends the pending ACK now (the kernel clears it again by itself,
/// so it is set after every drive that read something).
fn ack_now(conn: &Conn) {
    #[cfg(target_os = "linux")]
    if let crate::connect::Stream::Tcp(s) = &conn.stream {
        let _ = socket2::SockRef::from(s).set_quickack(true);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = conn;
}

/// A stream the connection's merger joins DATA frames on, as far as its body's limit allows
/// ([`merge::Limit`]): none before [`StreamTrack::set`], none once dropped.
pub struct StreamTrack {
    slot: Arc<Mutex<Slot>>,
    id: u32,
}

impl StreamTrack {
    /// The response head came: the limit h2 holds the body to.
    pub fn set(&self, limit: merge::Limit) {
        let mut s = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        s.merge.set_limit(self.id, limit);
    }
}

impl Drop for StreamTrack {
    fn drop(&mut self) {
        let mut s = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        s.merge.untrack(self.id);
        s.scan.order.forget(self.id);
    }
}

/// A stream's handles: the response to wait for, the request body to send, the response
/// body to read.
pub struct Stream {
    pub id: u32,
    pub response: Option<ResponseFuture>,
    pub body_out: Option<SendStream<Bytes>>,
    pub body_in: Option<RecvStream>,
}

fn noop() -> Context<'static> {
    Context::from_waker(Waker::noop())
}

impl Mux {
    /// Start HTTP/2 on a connected (and for https, ALPN-negotiated) connection: the preface
    /// and SETTINGS go out on the first [`Mux::drive`].
    pub fn new() -> Box<Mux> {
        Mux::with_slot(Slot::default())
    }

    /// HTTP/2 on a connection that just switched to it with a 101 (see [`Upgrade`]):
    /// `after` is what came after the 101 in the same read, `head` says the request was a
    /// HEAD. The preface and SETTINGS go out on the first [`Mux::drive`], which opens stream
    /// 1 for [`Mux::take_upgraded`].
    pub fn upgrade(after: &[u8], head: bool) -> Box<Mux> {
        let mut slot = Slot {
            upgrade: Upgrade::Settings,
            inject: NO_TABLE.to_vec(),
            pre: after.to_vec(),
            ..Slot::default()
        };
        // The response comes on stream 1 before the transfer takes the stream.
        slot.scan.order.want(1);
        let mut m = Mux::with_slot(slot);
        m.upgraded = Some((head, None));
        m
    }

    fn with_slot(slot: Slot) -> Box<Mux> {
        let slot = Arc::new(Mutex::new(slot));
        let mut b = h2::client::Builder::new();
        b.initial_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONN_WINDOW)
            .max_header_list_size(MAX_HEADER_LIST)
            .max_concurrent_streams(100)
            .max_frame_size(MAX_FRAME)
            .enable_push(false);
        let hs = b.handshake::<Lent, Bytes>(Lent(slot.clone()));
        Box::new(Mux {
            slot,
            phase: Phase::Handshake(Box::pin(hs)),
            waiting: Arc::default(),
            upgraded: None,
        })
    }

    /// Stream 1 of an upgraded connection, once open: the stream of the request that asked.
    pub fn take_upgraded(&mut self) -> Option<Stream> {
        self.upgraded.as_mut()?.1.take()
    }

    fn upgrade_state(&self) -> Upgrade {
        self.slot
            .lock()
            .map(|s| s.upgrade)
            .unwrap_or_else(|p| p.into_inner().upgrade)
    }

    /// Open stream 1 of an upgrade as the request that asked (see [`Upgrade`]).
    fn open_upgraded(&mut self) {
        let Phase::Open { send, .. } = &mut self.phase else {
            return;
        };
        let Some((head, None)) = self.upgraded else {
            return;
        };
        let method = if head {
            http::Method::HEAD
        } else {
            http::Method::GET
        };
        // A relative target: h2 sends `:scheme: http` and no `:authority`, all fields it
        // finds in the static table.
        let req = http::Request::builder().method(method).uri("/").body(());
        let mut send = send.clone();
        let opened = match req {
            Ok(req) => match send.poll_ready(&mut noop()) {
                Poll::Ready(Ok(())) => open(&mut send, req, true).ok(),
                _ => None,
            },
            Err(_) => None,
        };
        let mut s = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        match opened {
            Some(st) if st.id == 1 => {
                s.upgrade = Upgrade::Headers;
                self.upgraded = Some((head, Some(st)));
            }
            _ => {
                // Cannot happen with a new connection; the transfer sees no stream and
                // the connection ends.
                s.upgrade = Upgrade::None;
                self.phase = Phase::Closed(Arc::new(h2::Error::from(h2::Reason::INTERNAL_ERROR)));
            }
        }
    }

    /// Lend `conn` to h2 and let it read and write as far as the socket allows; the
    /// connection is handed back. Errors are kept and reported by [`Mux::error`].
    pub fn drive(&mut self, conn: Conn) -> Conn {
        self.drive_with(conn, usize::MAX)
    }

    /// [`Mux::drive`], reading at most about [`DRIVE_BUDGET`] bytes, so that the streams'
    /// readers can take what came before more is read: h2 would otherwise read all the
    /// socket has, up to a whole stream window, into its queues. [`Mux::more`] then says
    /// whether input may still be waiting (over TLS possibly in the session's buffer, which
    /// the socket's readiness does not show): the caller drives again after reading.
    pub fn drive_some(&mut self, conn: Conn) -> Conn {
        let budget = if self.waiting.live.load(Ordering::Acquire) > 1 {
            SHARED_DRIVE_BUDGET
        } else {
            DRIVE_BUDGET
        };
        self.drive_with(conn, budget)
    }

    /// Lend `conn` to h2 to write what it queued, reading nothing: whatever came stays in
    /// the socket, which keeps it readable for the multi. A layer under another (a tunnel)
    /// pushes its writes out with this, since frames a write took in would wait in h2 with
    /// nobody told (the reader above already saw WouldBlock).
    pub fn flush(&mut self, conn: Conn) -> Conn {
        self.drive_with(conn, 0)
    }

    /// The bytes the last drive read from the connection.
    pub fn got(&self) -> usize {
        self.slot.lock().map(|s| s.got).unwrap_or(0)
    }

    /// Did the last drive stop reading at its budget?
    pub fn more(&self) -> bool {
        self.slot.lock().map(|s| s.more).unwrap_or(false)
    }

    fn drive_with(&mut self, conn: Conn, budget: usize) -> Conn {
        {
            let mut s = self.slot.lock().unwrap_or_else(|p| p.into_inner());
            s.conn = Some(conn);
            s.write_blocked = false;
            s.got = 0;
            s.budget = budget;
            s.reads = budget > 0;
            s.more = false;
            // What one drive reads is one burst, as one read is for nghttp2 in curl.
            s.scan.reset_burst();
        }
        let mut cx = noop();
        loop {
            let before = match self.upgraded {
                Some(_) => self.upgrade_state(),
                None => Upgrade::None,
            };
            match &mut self.phase {
                Phase::Handshake(hs) => match hs.as_mut().poll(&mut cx) {
                    Poll::Ready(Ok((send, conn))) => self.phase = Phase::Open { send, conn },
                    Poll::Ready(Err(e)) => self.phase = Phase::Closed(Arc::new(e)),
                    Poll::Pending => break,
                },
                Phase::Open { conn, .. } => {
                    match Pin::new(conn).poll(&mut cx) {
                        Poll::Ready(Ok(())) => {
                            self.phase =
                                Phase::Closed(Arc::new(h2::Error::from(h2::Reason::NO_ERROR)))
                        }
                        Poll::Ready(Err(e)) => self.phase = Phase::Closed(Arc::new(e)),
                        Poll::Pending => {}
                    }
                    if before == Upgrade::None || !self.is_open() {
                        break;
                    }
                    // An upgrade moved on: open stream 1 once the SETTINGS are applied, and
                    // poll again (h2 writes its HEADERS, then reads what the peer sent).
                    match self.upgrade_state() {
                        Upgrade::Open => self.open_upgraded(),
                        now if now == before => break,
                        _ => {}
                    }
                }
                Phase::Closed(_) => break,
            }
        }
        let mut s = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        let conn = s.conn.take().expect("lent connection");
        if s.got > 0 {
            ack_now(&conn);
        }
        conn
    }

    /// Stream `id` was opened: the merger counts its DATA, and joins them once told the
    /// stream's limit, until the stream ends or the handle is dropped.
    pub fn track(&self, id: u32) -> StreamTrack {
        let mut s = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        s.merge.track(id);
        s.scan.order.want(id);
        StreamTrack {
            slot: self.slot.clone(),
            id,
        }
    }

    /// How many streams the merger tracks.
    pub fn tracked(&self) -> usize {
        self.slot.lock().map(|s| s.merge.tracked()).unwrap_or(0)
    }

    /// The connection's woken streams.
    pub fn waiting(&self) -> &Waiting {
        &self.waiting
    }

    /// Did the peer flood the connection with frames asking for answers?
    pub fn flooded(&self) -> bool {
        self.slot.lock().map(|s| s.scan.flooded()).unwrap_or(false)
    }

    /// Stream `id`'s next head of `kind`, its fields in wire order ([`scan::Order`]).
    pub fn take_head(&self, id: u32, kind: scan::Kind) -> Option<scan::Head> {
        let mut s = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        s.scan.order.take(id, kind)
    }

    /// The `:status` of stream `id`'s next head not taken yet ([`scan::Order::next_status`]).
    pub fn next_status(&self, id: u32) -> Option<(u16, usize, u8)> {
        self.slot
            .lock()
            .ok()
            .and_then(|s| s.scan.order.next_status(id))
    }

    /// The increment of the WINDOW_UPDATE that overflowed stream `id`'s send window, if
    /// one did ([`merge::Merger::overflow`]).
    pub fn overflow(&self, id: u32) -> Option<u32> {
        self.slot.lock().ok().and_then(|s| s.merge.overflow(id))
    }

    /// The first PUSH_PROMISE the peer sent: stream, length, END_HEADERS.
    pub fn push_promise(&self) -> Option<(u32, usize, bool)> {
        self.slot.lock().ok().and_then(|s| s.scan.push_promise)
    }

    /// Did the last drive stop because the socket would not take more?
    pub fn wants_write(&self) -> bool {
        self.slot.lock().map(|s| s.write_blocked).unwrap_or(false)
    }

    /// The error that ended the connection, if it ended.
    pub fn error(&self) -> Option<&h2::Error> {
        match &self.phase {
            Phase::Closed(e) => Some(e),
            _ => None,
        }
    }

    /// A handle to open streams with, once the handshake is done. Each transfer has its
    /// own: h2 lets a handle queue one stream beyond the peer's limit and makes only that
    /// handle wait for it.
    pub fn sender(&self) -> Option<SendRequest<Bytes>> {
        match &self.phase {
            Phase::Open { send, .. } => Some(send.clone()),
            _ => None,
        }
    }

    /// Does the connection take new streams (open, handshake done, no GOAWAY)?
    pub fn accepting(&mut self) -> bool {
        match &mut self.phase {
            Phase::Open { send, .. } => {
                !matches!(send.poll_ready(&mut noop()), Poll::Ready(Err(_)))
            }
            _ => false,
        }
    }

    /// The peer's limit of concurrent streams (curl assumes 100 until its SETTINGS say).
    pub fn max_streams(&self) -> usize {
        match &self.phase {
            Phase::Open { conn, .. } => conn.max_concurrent_send_streams().min(100),
            _ => 100,
        }
    }

    /// Is the connection usable for another stream?
    pub fn is_open(&self) -> bool {
        !matches!(self.phase, Phase::Closed(_))
    }

    /// Has the handshake finished?
    pub fn handshaken(&self) -> bool {
        !matches!(self.phase, Phase::Handshake(_))
    }
}

/// Can a new stream be opened on `send` now? Ok(false) while the stream it queued last
/// waits for the peer's limit; `w` is woken when that changes.
pub fn ready(send: &mut SendRequest<Bytes>, w: &Waker) -> Result<bool, h2::Error> {
    match send.poll_ready(&mut Context::from_waker(w)) {
        Poll::Ready(Ok(())) => Ok(true),
        Poll::Ready(Err(e)) => Err(e),
        Poll::Pending => Ok(false),
    }
}

/// Open a stream for `req` on `send` (after [`ready`] said yes). With `end` the request has
/// no body.
pub fn open(
    send: &mut SendRequest<Bytes>,
    req: http::Request<()>,
    end: bool,
) -> Result<Stream, h2::Error> {
    let (response, body) = send.send_request(req, end)?;
    Ok(Stream {
        id: response.stream_id().as_u32(),
        response: Some(response),
        body_out: (!end).then_some(body),
        body_in: None,
    })
}

/// h2's errors are not `Clone`; a closed connection reports the same reason to each stream.
pub fn clone_error(e: &h2::Error) -> h2::Error {
    match e.reason() {
        Some(r) => h2::Error::from(r),
        None => h2::Error::from(h2::Reason::INTERNAL_ERROR),
    }
}

/// Poll a stream's response head; `w` is woken when it may have come.
pub fn poll_response(
    f: &mut ResponseFuture,
    w: &Waker,
) -> Poll<Result<http::Response<RecvStream>, h2::Error>> {
    Pin::new(f).poll(&mut Context::from_waker(w))
}

/// Poll a stream's next 1xx head; None once the response (or the stream's end) is next.
pub fn poll_informational(
    f: &mut ResponseFuture,
    w: &Waker,
) -> Poll<Option<Result<http::Response<()>, h2::Error>>> {
    f.poll_informational(&mut Context::from_waker(w))
}

/// Poll a stream's next piece of response body; None at its end.
pub fn poll_data(r: &mut RecvStream, w: &Waker) -> Poll<Option<Result<Bytes, h2::Error>>> {
    r.poll_data(&mut Context::from_waker(w))
}

/// Poll send capacity for a request body.
pub fn poll_capacity(
    s: &mut SendStream<Bytes>,
    w: &Waker,
) -> Poll<Option<Result<usize, h2::Error>>> {
    s.poll_capacity(&mut Context::from_waker(w))
}
