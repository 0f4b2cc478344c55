//! A CONNECT tunnel on an HTTP/2 stream to a proxy (curl's `cf-h2-proxy.c`): the bytes of
//! the connection to the origin (its TLS records, or plain HTTP/1.1 with `-p`) travel in
//! the stream's DATA frames.
//!
//! The tunnel owns the connection to the proxy (socket, TLS to the proxy, the HTTP/2 mux)
//! and is itself the transport of the connection to the origin ([`crate::tls::Io::Tunnel`]),
//! so everything above it (TLS to the origin, HTTP/1.1, HTTP/2 to the origin) is unchanged.
//! As in curl 8.14.1 every tunnel has its own proxy connection: the stream is the only one
//! on it.
//!
//! Reads and writes follow the socket rule of the other layers: a read returns WouldBlock
//! only when the stream has nothing buffered and the socket has nothing more, so no byte
//! waits in h2 while the transfer waits on the socket. For that, only a read lets h2 read
//! the socket (and takes what came right after); writes and flushes only push frames out
//! ([`super::Mux::flush`]), leaving what arrived in the socket, readable. The one write that
//! must read, for a WINDOW_UPDATE when the stream's window is shut, keeps what came for the
//! stream and asks to be run again ([`Tunnel::wants_write`]).

use std::io;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use h2::{RecvStream, SendStream};

use crate::conn::Conn;
use crate::connect::Stream;

/// The most a write hands to h2 at once; h2 splits it into frames of the peer's size.
const MAX_WRITE: usize = 64 * 1024;

/// An established tunnel: the proxy connection and the stream's two halves.
pub struct Tunnel {
    /// The connection to the proxy, with its mux in `h2`; taken only while lent to it.
    proxy: Option<Conn>,
    pub id: u32,
    send: SendStream<Bytes>,
    recv: RecvStream,
    /// Received bytes not yet read.
    pending: Bytes,
    /// The proxy ended the stream.
    eof: bool,
    /// `pending` (or the end of the stream) was taken in by a write, not a read: the
    /// reader has not been told.
    unread: bool,
}

impl std::fmt::Debug for Tunnel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tunnel").field("id", &self.id).finish()
    }
}

fn noop() -> Context<'static> {
    Context::from_waker(Waker::noop())
}

fn h2_io_error(e: h2::Error) -> io::Error {
    if e.is_io() {
        if let Some(io) = e.into_io() {
            return io;
        }
        return io::Error::from(io::ErrorKind::ConnectionAborted);
    }
    io::Error::new(io::ErrorKind::ConnectionReset, e)
}

impl Tunnel {
    /// The tunnel on `proxy` (which speaks HTTP/2: `proxy.h2` is set) whose CONNECT was
    /// answered with 2xx.
    pub fn new(proxy: Conn, id: u32, send: SendStream<Bytes>, recv: RecvStream) -> Tunnel {
        Tunnel {
            proxy: Some(proxy),
            id,
            send,
            recv,
            pending: Bytes::new(),
            eof: false,
            unread: false,
        }
    }

    fn conn(&self) -> &Conn {
        self.proxy.as_ref().expect("proxy connection")
    }

    /// The connection to the proxy.
    pub(crate) fn conn_mut(&mut self) -> &mut Conn {
        self.proxy.as_mut().expect("proxy connection")
    }

    /// The proxy connection's socket.
    pub fn sock(&mut self) -> &mut Stream {
        &mut self.proxy.as_mut().expect("proxy connection").stream
    }

    /// Let the proxy connection's mux read and write as far as the socket allows.
    fn drive(&mut self) {
        self.lend(|m, c| m.drive(c));
    }

    /// Let the proxy connection's mux write what it queued, reading nothing.
    fn push(&mut self) {
        self.lend(|m, c| m.flush(c));
    }

    fn lend(&mut self, f: impl FnOnce(&mut super::Mux, Conn) -> Conn) {
        let mut c = self.proxy.take().expect("proxy connection");
        if let Some(mut m) = c.h2.take() {
            c = f(&mut m, c);
            c.h2 = Some(m);
        }
        self.proxy = Some(c);
    }

    /// The error that ended the proxy connection, if it ended.
    fn closed(&self) -> Option<io::Error> {
        let m = self.conn().h2.as_ref()?;
        m.error().map(|e| {
            if e.is_io() {
                io::Error::from(io::ErrorKind::ConnectionAborted)
            } else {
                io::Error::new(io::ErrorKind::ConnectionReset, super::clone_error(e))
            }
        })
    }

    /// Does the proxy connection hold bytes the socket did not take? Also while bytes a
    /// write took in for the stream wait unread: the socket no longer shows them, so the
    /// transfer asks for writability, which comes at once, to be run again and read.
    pub fn wants_write(&self) -> bool {
        let c = self.conn();
        c.wants_write() || c.h2.as_ref().is_some_and(|m| m.wants_write()) || self.unread
    }

    /// Take what the stream received; Ready(false) at its end.
    fn poll_recv(&mut self) -> Poll<io::Result<bool>> {
        match self.recv.poll_data(&mut noop()) {
            Poll::Ready(Some(Ok(d))) => {
                let _ = self.recv.flow_control().release_capacity(d.len());
                self.pending = d;
                Poll::Ready(Ok(true))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Err(h2_io_error(e))),
            Poll::Ready(None) => {
                self.eof = true;
                Poll::Ready(Ok(false))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// Bytes from the origin; Ok(0) when the proxy ended the stream.
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut driven = false;
        loop {
            if !self.pending.is_empty() {
                let n = buf.len().min(self.pending.len());
                buf[..n].copy_from_slice(&self.pending[..n]);
                let _ = self.pending.split_to(n);
                self.unread = false;
                return Ok(n);
            }
            if self.eof {
                self.unread = false;
                return Ok(0);
            }
            match self.poll_recv() {
                Poll::Ready(Ok(_)) => continue,
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Pending => {}
            }
            if driven {
                return Err(self
                    .closed()
                    .unwrap_or_else(|| io::ErrorKind::WouldBlock.into()));
            }
            self.drive();
            driven = true;
        }
    }

    /// Bytes to the origin, as far as the stream's window and h2's send buffer allow.
    pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(MAX_WRITE);
        if self.send.capacity() == 0 {
            self.send.reserve_capacity(want);
            let mut driven = false;
            loop {
                match self.send.poll_capacity(&mut noop()) {
                    Poll::Ready(Some(Ok(n))) if n > 0 => break,
                    Poll::Ready(Some(Err(e))) => return Err(h2_io_error(e)),
                    Poll::Ready(None) => return Err(io::ErrorKind::BrokenPipe.into()),
                    _ if self.send.capacity() > 0 => break,
                    _ => {}
                }
                if driven {
                    return Err(self
                        .closed()
                        .unwrap_or_else(|| io::ErrorKind::WouldBlock.into()));
                }
                // Our queued frames may go out, a WINDOW_UPDATE may have come: this drive
                // reads, and what it read for the stream is kept for the reader.
                self.drive();
                self.keep_unread()?;
                driven = true;
            }
        }
        let n = self.send.capacity().min(want);
        self.send
            .send_data(Bytes::copy_from_slice(&buf[..n]), false)
            .map_err(h2_io_error)?;
        self.push();
        Ok(n)
    }

    /// After a drive outside [`Tunnel::read`]: take what h2 holds for the stream, so that
    /// [`Tunnel::wants_write`] can tell.
    fn keep_unread(&mut self) -> io::Result<()> {
        if self.pending.is_empty() && !self.eof {
            match self.poll_recv() {
                Poll::Ready(Ok(_)) => self.unread = true,
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Pending => {}
            }
        }
        Ok(())
    }

    /// Push out what h2 and the proxy's TLS hold; WouldBlock while some remains.
    pub fn flush(&mut self) -> io::Result<()> {
        self.push();
        if self.wants_write() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        Ok(())
    }

    /// Is an idle tunnel still usable? Its proxy connection is open and the stream has
    /// neither ended nor brought anything.
    pub fn is_alive(&mut self) -> bool {
        self.drive();
        if self.eof || !self.pending.is_empty() || self.closed().is_some() {
            return false;
        }
        self.poll_recv().is_pending()
    }

    /// End the stream and close the proxy connection, best effort.
    pub fn close(&mut self) {
        self.send.send_reset(h2::Reason::CANCEL);
        self.push();
        if let Some(c) = self.proxy.as_mut() {
            c.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxcurl_testsupport::h2::{frame, hpack};
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    /// Reads the client preface and frames up to the first HEADERS frame.
    fn read_to_headers(s: &mut TcpStream) {
        let mut preface = [0u8; 24];
        s.read_exact(&mut preface).expect("preface");
        loop {
            let mut head = [0u8; 9];
            s.read_exact(&mut head).expect("frame header");
            let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
            let mut payload = vec![0u8; len];
            s.read_exact(&mut payload).expect("frame payload");
            if head[3] == 1 {
                return;
            }
        }
    }

    fn conn(s: TcpStream) -> Conn {
        Conn {
            id: 0,
            sock_id: 0,
            stream: Stream::Tcp(s),
            tls: None,
            proxy_tls: None,
            tunnel: None,
            key: String::new(),
            host: "127.0.0.1".into(),
            port: 0,
            remote: None,
            local: None,
            uses: 0,
            http10: false,
            h2: Some(super::super::Mux::new()),
            version_seen: false,
            idle_since: Instant::now(),
            created: Instant::now(),
            hooks: None,
            proto: None,
        }
    }

    /// Is something waiting in the socket (without taking it)?
    fn readable(s: &TcpStream) -> bool {
        let mut b = [0u8; 1];
        matches!(s.peek(&mut b), Ok(n) if n > 0)
    }

    /// A tunnel to a scripted proxy that sends `settings` and answers CONNECT with 200,
    /// then sends `later` when told; with a second handle to the socket, to look into it.
    struct Scripted {
        t: Tunnel,
        watch: TcpStream,
        go: mpsc::Sender<()>,
        server: std::thread::JoinHandle<()>,
    }

    fn scripted(settings: Vec<u8>, later: Vec<u8>) -> Scripted {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = l.local_addr().expect("addr");
        let (go, go_rx) = mpsc::channel::<()>();
        let server = std::thread::spawn(move || {
            let (mut s, _) = l.accept().expect("accept");
            read_to_headers(&mut s);
            let mut out = frame(4, 0, 0, &settings);
            out.extend(frame(4, 1, 0, &[]));
            out.extend(frame(1, 4, 1, &hpack(200, &[])));
            s.write_all(&out).expect("answer CONNECT");
            go_rx.recv().expect("go");
            s.write_all(&later).expect("later");
            // Drain until the client closes.
            let mut sink = [0u8; 4096];
            while matches!(s.read(&mut sink), Ok(n) if n > 0) {}
        });
        let sock = TcpStream::connect(addr).expect("connect");
        let watch = sock.try_clone().expect("clone");
        sock.set_nonblocking(true).expect("nonblocking");
        let mut c = conn(sock);
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut sender = loop {
            let mut m = c.h2.take().expect("mux");
            c = m.drive(c);
            let s = m.sender();
            c.h2 = Some(m);
            if let Some(s) = s {
                break s;
            }
            assert!(Instant::now() < deadline, "no handshake");
        };
        let req = http::Request::builder()
            .method(http::Method::CONNECT)
            .uri("origin.example:443")
            .body(())
            .expect("request");
        let (mut response, send) = sender.send_request(req, false).expect("CONNECT");
        let id = response.stream_id().as_u32();
        let resp = loop {
            let mut m = c.h2.take().expect("mux");
            c = m.drive(c);
            c.h2 = Some(m);
            if let Poll::Ready(r) = super::super::poll_response(&mut response, Waker::noop()) {
                break r.expect("response");
            }
            assert!(Instant::now() < deadline, "no CONNECT answer");
            std::thread::sleep(Duration::from_millis(5));
        };
        assert_eq!(resp.status(), 200);
        Scripted {
            t: Tunnel::new(c, id, send, resp.into_body()),
            watch,
            go,
            server,
        }
    }

    impl Scripted {
        /// The reader finds nothing (it waits on the socket from now on); then the
        /// proxy's next bytes reach the socket.
        fn reader_waits_then_bytes_come(&mut self) {
            let mut buf = [0u8; 64];
            let e = self.t.read(&mut buf).expect_err("nothing yet");
            assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
            assert!(!self.t.wants_write());
            self.go.send(()).expect("go");
            // The socket is non-blocking (one file description for both handles).
            let deadline = Instant::now() + Duration::from_secs(10);
            while !readable(&self.watch) {
                assert!(Instant::now() < deadline, "the proxy sent nothing");
                std::thread::sleep(Duration::from_millis(2));
            }
        }

        /// What the transfer waits on next would show the bytes: the socket is still
        /// readable, or the tunnel asks to be run again. The reader then gets them.
        fn reader_is_told(mut self, want: &[u8]) {
            assert!(
                readable(&self.watch) || self.t.wants_write(),
                "the stream's data was taken in by a write with nobody told"
            );
            let mut buf = [0u8; 64];
            let n = self.t.read(&mut buf).expect("read");
            assert_eq!(&buf[..n], want);
            assert!(!self.t.wants_write());
            self.t.close();
            drop(self.t);
            drop(self.watch);
            self.server.join().expect("server");
        }
    }

    /// A write to the tunnel and its flush push frames out without taking in what came
    /// for the stream after the reader saw WouldBlock. (That lost wakeup hung parallel
    /// tunnels under load: the inner TLS handshake's answer sat in h2's queue.)
    #[test]
    fn what_arrives_while_writing_stays_in_the_socket() {
        let mut s = scripted(Vec::new(), frame(0, 0, 1, b"from the origin"));
        s.reader_waits_then_bytes_come();
        assert_eq!(s.t.write(b"client hello").expect("write"), 12);
        s.t.flush().expect("flush");
        s.reader_is_told(b"from the origin");
    }

    /// A write the stream's window held back reads, for the WINDOW_UPDATE; what came for
    /// the stream with it is kept, and the tunnel asks to be run again to read it.
    #[test]
    fn a_write_waiting_for_window_keeps_what_it_read() {
        // SETTINGS_INITIAL_WINDOW_SIZE 0: nothing may be sent before a WINDOW_UPDATE.
        let settings = [0, 4, 0, 0, 0, 0].to_vec();
        let mut later = frame(0, 0, 1, b"early answer");
        later.extend(frame(8, 0, 1, &100u32.to_be_bytes()));
        let mut s = scripted(settings, later);
        s.reader_waits_then_bytes_come();
        assert_eq!(s.t.write(b"client hello").expect("write"), 12);
        assert!(!readable(&s.watch), "the write read the socket");
        assert!(s.t.wants_write());
        s.reader_is_told(b"early answer");
    }
}
