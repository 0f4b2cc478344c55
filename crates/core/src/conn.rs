//! A live connection and the multi's pool of idle ones (curl's connection cache), keyed by
//! origin and route so only a connection to the same place is reused.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;
use std::time::Instant;

use crate::connect::Stream;
use crate::tls::{self, Io};

/// The connection of a `CURLOPT_CONNECT_ONLY` transfer, for the application's own bytes
/// (`curl_easy_send`, `curl_easy_recv`): TLS when the transfer made it, not watched by any
/// multi. Closed when dropped.
#[derive(Debug)]
pub struct RawConn(pub(crate) Conn);

impl RawConn {
    /// Send bytes; how many were taken. WouldBlock when the socket takes nothing now.
    pub fn send(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Bytes a TLS layer still holds go first.
        match self.0.flush() {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        let n = self.0.send(buf)?;
        match self.0.flush() {
            Ok(()) => Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(n),
            Err(e) => Err(e),
        }
    }
    /// Received bytes; Ok(0) at the end of the stream, WouldBlock when none are there.
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.flush() {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        self.0.recv(buf)
    }
    /// The socket.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.0.stream.fd()
    }
}

#[derive(Debug)]
pub struct Conn {
    pub id: i64,
    /// Process-unique identity of the socket (see `connect::next_sock_id`).
    pub sock_id: u64,
    pub stream: Stream,
    /// The TLS session over the socket, for https.
    pub tls: Option<Box<tls::Session>>,
    /// The TLS session to an HTTPS proxy; `tls` then runs inside it.
    pub proxy_tls: Option<Box<tls::Session>>,
    /// A CONNECT tunnel on an HTTP/2 stream to the proxy, which owns the proxy connection:
    /// `tls` (or HTTP/1.1 with `-p`) then runs inside it, and `stream` is a second handle
    /// to the proxy's socket, to be watched.
    pub tunnel: Option<Box<crate::proto::h2::tunnel::Tunnel>>,
    /// What makes connections interchangeable: scheme, host, port, route.
    pub key: String,
    pub host: String,
    pub port: u16,
    pub remote: Option<SocketAddr>,
    pub local: Option<SocketAddr>,
    /// Requests served so far.
    pub uses: u32,
    /// The last response on this connection was HTTP/1.0 (later requests use 1.0 too).
    pub http10: bool,
    /// HTTP/2 state when the connection speaks it.
    pub h2: Option<Box<crate::proto::h2::Mux>>,
    /// A response came back on it (curl's `httpversion_seen`): only then is a cleartext
    /// connection known to multiplex.
    pub version_seen: bool,
    pub idle_since: Instant,
    /// When the connection was made (`CURLOPT_MAXLIFETIME_CONN` counts from here).
    pub created: Instant,
    /// The application's socket hooks: its close hook closes the socket.
    pub hooks: crate::connect::Hooks,
    /// The protocol's state kept with the connection between transfers (curl's connection
    /// meta data: an FTP connection's working directory and transfer type).
    pub proto: Option<Box<dyn ConnProto>>,
}

/// A protocol's state kept with a connection (curl's connection meta data).
pub trait ConnProto: std::any::Any + Send + std::fmt::Debug {
    /// What to send when the connection ends (FTP's `QUIT`; curl's handler `disconnect`).
    /// Sent best effort: as curl 8.14.1 without an overall timeout, the reply is not
    /// waited for.
    fn goodbye(&self) -> Option<&'static [u8]> {
        None
    }
    fn as_any(&self) -> &dyn std::any::Any;
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

impl Conn {
    /// The protocol's state, when it is a `T`.
    pub fn proto_mut<T: ConnProto>(&mut self) -> Option<&mut T> {
        self.proto.as_mut()?.as_any_mut().downcast_mut::<T>()
    }

    pub fn proto_ref<T: ConnProto>(&self) -> Option<&T> {
        self.proto.as_ref()?.as_any().downcast_ref::<T>()
    }

    /// Send the protocol's goodbye, once, without waiting.
    fn say_goodbye(&mut self) {
        if let Some(bye) = self.proto.take().and_then(|p| p.goodbye()) {
            let _ = self.send(bye);
            let _ = self.flush();
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.say_goodbye();
        if let Some(h) = self.hooks.take().filter(|h| h.closes()) {
            let stream = std::mem::replace(&mut self.stream, Stream::Closed);
            if let Some(fd) = stream.into_fd() {
                h.close(fd);
            }
        }
    }
}

/// An HTTP/2 connection several transfers use at once, each with its own stream. The pool
/// holds one reference; every transfer on it holds another.
#[derive(Clone, Debug)]
pub struct SharedConn(Arc<SharedInner>);

#[derive(Debug)]
struct SharedInner {
    /// A second descriptor of the socket, for the multi to watch without taking the lock;
    /// the socket closes when both are.
    fd: OwnedFd,
    conn: Mutex<Shared>,
}

impl SharedConn {
    /// Lock the connection (a panic while it was held leaves it usable: its state is
    /// checked on every use).
    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        self.0.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
    /// The descriptor the multi watches for all transfers on the connection.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.0.fd.as_fd()
    }
    /// How many transfers use it.
    pub fn users(&self) -> usize {
        Arc::strong_count(&self.0) - 1
    }
    pub fn same(&self, other: &SharedConn) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A shared connection: always there, except while lent to its mux in [`Shared::drive`].
#[derive(Debug)]
pub struct Shared(Option<Conn>);

impl std::ops::Deref for Shared {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.0.as_ref().expect("shared connection")
    }
}

impl std::ops::DerefMut for Shared {
    fn deref_mut(&mut self) -> &mut Conn {
        self.0.as_mut().expect("shared connection")
    }
}

impl Shared {
    /// Let the connection's mux read and write as far as the socket allows.
    pub fn drive(&mut self) {
        let Some(mut c) = self.0.take() else {
            return;
        };
        if let Some(mut m) = c.h2.take() {
            c = m.drive(c);
            c.h2 = Some(m);
        }
        self.0 = Some(c);
    }

    /// Let the mux write what it queued, reading nothing ([`crate::proto::h2::Mux::flush`]).
    pub fn flush(&mut self) {
        let Some(mut c) = self.0.take() else {
            return;
        };
        if let Some(mut m) = c.h2.take() {
            c = m.flush(c);
            c.h2 = Some(m);
        }
        self.0 = Some(c);
    }

    /// Let the mux read a little ([`crate::proto::h2::Mux::drive_some`]); whether more
    /// input may be waiting, and the bytes read.
    pub fn drive_some(&mut self) -> (bool, usize) {
        let Some(mut c) = self.0.take() else {
            return (false, 0);
        };
        let mut more = (false, 0);
        if let Some(mut m) = c.h2.take() {
            c = m.drive_some(c);
            more = (m.more(), m.got());
            c.h2 = Some(m);
        }
        self.0 = Some(c);
        more
    }
}

impl Conn {
    /// The session to the origin (if any) and what it runs over: the socket, or the
    /// session to an HTTPS proxy. Without origin TLS, the proxy session (if any) is first.
    fn layers(&mut self) -> (Option<&mut tls::Session>, Io<'_>) {
        if let Some(t) = &mut self.tunnel {
            return (self.tls.as_deref_mut(), Io::Tunnel(t));
        }
        match (&mut self.tls, &mut self.proxy_tls) {
            (Some(t), Some(p)) => (Some(t), Io::Tls(p, &mut self.stream)),
            (Some(t), None) | (None, Some(t)) => (Some(t), Io::Sock(&mut self.stream)),
            (None, None) => (None, Io::Sock(&mut self.stream)),
        }
    }
    /// Received bytes (decrypted over TLS); Ok(0) at end of stream.
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.layers() {
            (Some(t), mut io) => t.recv(&mut io, buf),
            (None, mut io) => io::Read::read(&mut io, buf),
        }
    }
    /// A `recv` that gave `got` of `asked` bytes left nothing behind in any layer and
    /// drained the socket: the next input makes the socket readable (level-triggered), so
    /// the reader need not read again to hear WouldBlock. Only for the socket itself or one
    /// TLS session straight on it; a tunnel or TLS inside TLS may hold input.
    pub fn input_drained(&self, got: usize, asked: usize) -> bool {
        if self.tunnel.is_some() || self.proxy_tls.is_some() {
            return false;
        }
        match &self.tls {
            None => got < asked,
            Some(t) => t.input_drained(),
        }
    }
    /// Send bytes (encrypted over TLS); how many were taken.
    pub fn send(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.layers() {
            (Some(t), mut io) => t.send(&mut io, buf),
            (None, mut io) => io::Write::write(&mut io, buf),
        }
    }
    /// Push out what the TLS layers still hold; WouldBlock while some remains.
    pub fn flush(&mut self) -> io::Result<()> {
        if let (Some(t), mut io) = self.layers() {
            t.flush(&mut io)?;
        }
        if let (Some(p), Some(_)) = (&mut self.proxy_tls, &self.tls) {
            p.flush(&mut Io::Sock(&mut self.stream))?;
        }
        if let Some(t) = &mut self.tunnel {
            t.flush()?;
        }
        Ok(())
    }
    /// Does the connection hold bytes waiting for the socket to become writable?
    pub fn wants_write(&self) -> bool {
        self.tls.as_ref().is_some_and(|t| t.wants_write())
            || self.proxy_tls.as_ref().is_some_and(|t| t.wants_write())
            || self.tunnel.as_ref().is_some_and(|t| t.wants_write())
    }
    /// Is the connection a tunnel on an HTTP/2 stream? Frames from the proxy (window
    /// updates, pings) may come any time, so it is always read, and written only when the
    /// proxy connection holds bytes (the stream's window may hold writes back).
    pub fn in_h2_tunnel(&self) -> bool {
        self.tunnel.is_some()
    }
    /// Advance the handshake of the newest TLS layer. Records the inner session queued in
    /// the proxy session are pushed to the socket before waiting for an answer.
    pub fn handshake(&mut self) -> Result<tls::Handshake, crate::error::Error> {
        let r = match self.layers() {
            (Some(t), mut io) => t.handshake(&mut io)?,
            (None, _) => return Ok(tls::Handshake::Done),
        };
        if let Some(t) = &mut self.tunnel {
            match t.flush() {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if r == tls::Handshake::WantRead {
                        return Ok(tls::Handshake::WantWrite);
                    }
                }
                Err(e) => {
                    return Err(tls::connect_error(format!(
                        "TLS connect error: {}",
                        crate::connect::os_error_text(&e)
                    )))
                }
            }
        }
        if let (Some(p), Some(_)) = (&mut self.proxy_tls, &self.tls) {
            match p.flush(&mut Io::Sock(&mut self.stream)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if r == tls::Handshake::WantRead {
                        return Ok(tls::Handshake::WantWrite);
                    }
                }
                Err(e) => {
                    return Err(tls::connect_error(format!(
                        "TLS connect error: {}",
                        crate::connect::os_error_text(&e)
                    )))
                }
            }
        }
        Ok(r)
    }
    /// Is an idle connection still usable?
    pub fn is_alive(&mut self) -> bool {
        match self.layers() {
            (Some(t), mut io) => t.is_alive(&mut io),
            (None, mut io) => io.is_alive(),
        }
    }
    /// Turn on the TLS trace ([`tls::Session::trace_on`]) of every session the connection's
    /// bytes pass: the origin's, the HTTPS proxy's, the proxy connection's under a tunnel.
    pub fn trace_on(&mut self) {
        for t in self.tls.iter_mut().chain(self.proxy_tls.iter_mut()) {
            t.trace_on();
        }
        if let Some(t) = &mut self.tunnel {
            t.conn_mut().trace_on();
        }
    }
    /// Turn them off; what they reported since [`Conn::trace_on`], in the order it came.
    pub fn trace_take(&mut self) -> Vec<tls::TraceEvent> {
        let mut all = Vec::new();
        for t in self.tls.iter_mut().chain(self.proxy_tls.iter_mut()) {
            all.extend(t.trace_take());
        }
        if let Some(t) = &mut self.tunnel {
            all.extend(t.conn_mut().trace_take());
        }
        all.sort_by_key(|e| e.seq);
        all
    }
    /// Orderly close: the protocol's goodbye, TLS close_notify (inner first), best effort.
    pub fn close(&mut self) {
        self.say_goodbye();
        if let (Some(t), mut io) = self.layers() {
            t.close(&mut io);
        }
        if let (Some(p), Some(_)) = (&mut self.proxy_tls, &self.tls) {
            p.close(&mut Io::Sock(&mut self.stream));
        }
        if let Some(t) = &mut self.tunnel {
            t.close();
        }
    }
}

/// Idle connections waiting for reuse, the HTTP/2 connections (in use or not) that can
/// take more streams, and the connections being set up (curl's connection cache).
#[derive(Debug)]
pub struct Pool {
    idle: Vec<Conn>,
    /// HTTP/2 connections; in use by `Arc::strong_count - 1` transfers.
    pub(crate) shared: Vec<SharedConn>,
    /// Keys and ids of connections being set up: a transfer that may multiplex waits for
    /// them (`CURLOPT_PIPEWAIT`) rather than open another.
    pending: Vec<(String, i64)>,
    /// Transfers waiting for a pending connection, woken when one is settled.
    waiters: Vec<Waker>,
    /// Most idle connections kept (`CURLMOPT_MAXCONNECTS`).
    pub max: usize,
    /// When [`Pool::sweep`] last looked at every connection (curl's `last_cleanup`); none
    /// yet: the first transfer sweeps.
    last_sweep: Option<Instant>,
}

impl Default for Pool {
    fn default() -> Pool {
        Pool {
            idle: Vec::new(),
            shared: Vec::new(),
            pending: Vec::new(),
            waiters: Vec::new(),
            max: 25,
            last_sweep: None,
        }
    }
}

impl Pool {
    /// Take an idle, still-alive connection for `key`; those for `key` found dead on the way
    /// (closed by the server while idle) go to `dead`, for curl's "seems to be dead" note.
    pub fn take(&mut self, key: &str, dead: &mut Vec<Conn>) -> Option<Conn> {
        while let Some(i) = self.idle.iter().rposition(|c| c.key == key) {
            let mut c = self.idle.swap_remove(i);
            if let Some(mut m) = c.h2.take() {
                // Frames (SETTINGS, PING, GOAWAY) may wait: h2 reads them, a peek would not.
                c = m.drive(c);
                let open = m.is_open();
                c.h2 = Some(m);
                if open {
                    return Some(c);
                }
                dead.push(c);
                continue;
            }
            if c.is_alive() {
                return Some(c);
            }
            dead.push(c);
        }
        None
    }
    /// curl's `Curl_cpool_prune_dead`, run before a transfer looks for a connection: at most
    /// once a second per pool, every connection nobody uses, whatever its destination, that
    /// is too old (see [`Pool::take_too_old`]) or that the server closed is taken out and
    /// closed (too old: orderly, with TLS close_notify; closed by the peer: nothing sent).
    /// `swept` gets each one's id and, when it was too old, curl's note saying so. Allocates
    /// nothing unless a connection is swept.
    pub fn sweep(
        &mut self,
        now: Instant,
        max_idle: Option<std::time::Duration>,
        max_life: Option<std::time::Duration>,
        mut swept: impl FnMut(i64, Option<String>),
    ) {
        if self
            .last_sweep
            .is_some_and(|t| now.saturating_duration_since(t) < std::time::Duration::from_secs(1))
        {
            return;
        }
        self.last_sweep = Some(now);
        let mut i = 0;
        while i < self.idle.len() {
            if let Some(note) = too_old(&self.idle[i], max_idle, max_life, now) {
                let mut c = self.idle.remove(i);
                c.close();
                swept(c.id, Some(note));
                continue;
            }
            let mut c = self.idle.remove(i);
            let alive = match c.h2.take() {
                Some(mut m) => {
                    // Frames (SETTINGS, PING, GOAWAY) may wait: h2 reads them.
                    c = m.drive(c);
                    let open = m.is_open();
                    c.h2 = Some(m);
                    open
                }
                None => c.is_alive(),
            };
            if alive {
                // Back in its place: the capacity is there, nothing is allocated.
                self.idle.insert(i, c);
                i += 1;
            } else {
                swept(c.id, None);
            }
        }
        let mut i = 0;
        while i < self.shared.len() {
            if self.shared[i].users() > 0 {
                i += 1;
                continue;
            }
            let s = self.shared.remove(i);
            let mut c = s.lock();
            let note = too_old(&c, max_idle, max_life, now);
            if note.is_some() {
                c.close();
            } else {
                c.drive();
                if c.h2.as_ref().is_some_and(|m| m.is_open()) {
                    drop(c);
                    self.shared.insert(i, s);
                    i += 1;
                    continue;
                }
            }
            let id = c.id;
            drop(c);
            // The last reference: the connection closes here.
            drop(s);
            swept(id, note);
        }
    }
    /// Take out the idle connections for `key` that are too old to reuse (curl's
    /// `conn_maxage`: idle longer than `max_idle`, or made longer than `max_life` ago; whole
    /// seconds, as curl counts them), each with the note curl gives.
    pub fn take_too_old(
        &mut self,
        key: &str,
        max_idle: Option<std::time::Duration>,
        max_life: Option<std::time::Duration>,
        now: Instant,
    ) -> Vec<(Conn, String)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.idle.len() {
            let c = &self.idle[i];
            let note = if c.key != key {
                None
            } else {
                too_old(c, max_idle, max_life, now)
            };
            match note {
                Some(n) => out.push((self.idle.remove(i), n)),
                None => i += 1,
            }
        }
        out
    }
    /// A connection for `key` is being set up.
    pub fn pend(&mut self, key: &str, id: i64) {
        self.pending.push((key.to_string(), id));
    }
    /// The connection with `id` is set up, or failed: waiters look again.
    pub fn unpend(&mut self, id: i64) {
        if let Some(i) = self.pending.iter().position(|p| p.1 == id) {
            self.pending.swap_remove(i);
        }
    }
    /// Ids of the connections for `key` being set up.
    pub fn pending_for<'a>(&'a self, key: &'a str) -> impl Iterator<Item = i64> + 'a {
        self.pending.iter().filter(move |p| p.0 == key).map(|p| p.1)
    }
    /// Wake `w` at the next [`Pool::notify`].
    pub fn wait(&mut self, w: &Waker) {
        if !self.waiters.iter().any(|x| x.will_wake(w)) {
            self.waiters.push(w.clone());
        }
    }
    /// Something changed that waiting transfers look for: a connection was set up, learned
    /// its peer's settings or a transfer on it ended.
    pub fn notify(&mut self) {
        for w in self.waiters.drain(..) {
            w.wake();
        }
    }
    /// Start sharing an HTTP/2 connection (Err: no second descriptor could be had).
    pub fn share(&mut self, c: Conn) -> io::Result<SharedConn> {
        let fd = c.stream.fd().try_clone_to_owned()?;
        let s = SharedConn(Arc::new(SharedInner {
            fd,
            conn: Mutex::new(Shared(Some(c))),
        }));
        self.shared.push(s.clone());
        Ok(s)
    }
    /// The shared connection whose watched descriptor is `fd`.
    pub fn shared_by_fd(&self, fd: std::os::fd::RawFd) -> Option<&SharedConn> {
        use std::os::fd::AsRawFd;
        self.shared.iter().find(|c| c.0.fd.as_raw_fd() == fd)
    }
    /// Forget a shared connection (it closed or failed); the last user closes it.
    pub fn unshare(&mut self, c: &SharedConn) {
        self.shared.retain(|x| !x.same(c));
    }
    /// Close the shared connections nobody uses beyond the idle limit, oldest first.
    pub fn trim_shared(&mut self) {
        loop {
            let idle = self.idle.len() + self.shared.iter().filter(|c| c.users() == 0).count();
            if idle <= self.max {
                return;
            }
            let oldest = self
                .shared
                .iter()
                .enumerate()
                .filter(|(_, c)| c.users() == 0)
                .min_by_key(|(_, c)| c.lock().idle_since)
                .map(|(i, _)| i);
            match oldest {
                Some(i) => {
                    let c = self.shared.swap_remove(i);
                    c.lock().close();
                }
                None => return,
            }
        }
    }

    /// Park a connection; the oldest is closed when over the limit.
    pub fn put(&mut self, mut c: Conn, now: Instant) -> Option<Conn> {
        c.idle_since = now;
        self.idle.push(c);
        if self.idle.len() > self.max {
            let oldest = self
                .idle
                .iter()
                .enumerate()
                .min_by_key(|(_, c)| c.idle_since)
                .map(|(i, _)| i)
                .unwrap_or(0);
            return Some(self.idle.swap_remove(oldest));
        }
        None
    }
    /// Exchange the idle connections with another pool's (a share's), keeping the limit.
    pub(crate) fn swap_idle(&mut self, other: &mut Pool) {
        std::mem::swap(&mut self.idle, &mut other.idle);
        std::mem::swap(&mut self.shared, &mut other.shared);
        std::mem::swap(&mut self.pending, &mut other.pending);
        std::mem::swap(&mut self.waiters, &mut other.waiters);
        std::mem::swap(&mut self.last_sweep, &mut other.last_sweep);
    }
    pub fn len(&self) -> usize {
        self.idle.len()
    }
    /// Idle connections to `host:port`.
    pub fn count_dest(&self, host: &str, port: u16) -> usize {
        self.idle
            .iter()
            .filter(|c| c.host == host && c.port == port)
            .count()
    }
    /// Take out the connection idle longest among those `f` accepts.
    pub fn take_oldest(&mut self, f: impl Fn(&Conn) -> bool) -> Option<Conn> {
        let i = self
            .idle
            .iter()
            .enumerate()
            .filter(|(_, c)| f(c))
            .min_by_key(|(_, c)| c.idle_since)
            .map(|(i, _)| i)?;
        Some(self.idle.swap_remove(i))
    }
    pub fn is_empty(&self) -> bool {
        self.idle.is_empty()
    }
    pub fn drain(&mut self) -> impl Iterator<Item = Conn> + '_ {
        for c in self.shared.drain(..) {
            c.lock().close();
        }
        self.idle.drain(..)
    }
}

/// curl's `conn_maxage`: the note for a connection idle longer than `max_idle` or made
/// longer than `max_life` ago (whole seconds, as curl counts them), if it is.
fn too_old(
    c: &Conn,
    max_idle: Option<std::time::Duration>,
    max_life: Option<std::time::Duration>,
    now: Instant,
) -> Option<String> {
    let idle = now.saturating_duration_since(c.idle_since).as_secs();
    let life = now.saturating_duration_since(c.created).as_secs();
    if max_idle.is_some_and(|m| idle > m.as_secs()) {
        Some(format!(
            "Too old connection ({idle} seconds idle), disconnect it"
        ))
    } else if max_life.is_some_and(|m| life > m.as_secs()) {
        Some(format!(
            "Too old connection ({life} seconds since creation), disconnect it"
        ))
    } else {
        None
    }
}

/// Receive buffers lent to transfers only while data is pending (curl's on-demand buffers).
#[derive(Debug, Default)]
pub struct BufPool {
    free: Vec<Vec<u8>>,
}

impl BufPool {
    /// A buffer of exactly `size` bytes.
    pub fn get(&mut self, size: usize) -> Vec<u8> {
        if let Some(i) = self.free.iter().position(|b| b.len() == size) {
            return self.free.swap_remove(i);
        }
        vec![0u8; size]
    }
    pub fn put(&mut self, b: Vec<u8>) {
        if self.free.len() < 8 {
            self.free.push(b);
        }
    }
    /// Release all pooled memory (no transfer running).
    pub fn clear(&mut self) {
        self.free.clear();
    }
}
