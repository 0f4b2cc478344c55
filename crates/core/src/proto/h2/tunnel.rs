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
//! waits in h2 while the transfer waits on the socket.

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
        }
    }

    fn conn(&self) -> &Conn {
        self.proxy.as_ref().expect("proxy connection")
    }

    /// The proxy connection's socket.
    pub fn sock(&mut self) -> &mut Stream {
        &mut self.proxy.as_mut().expect("proxy connection").stream
    }

    /// Let the proxy connection's mux read and write as far as the socket allows.
    fn drive(&mut self) {
        let mut c = self.proxy.take().expect("proxy connection");
        if let Some(mut m) = c.h2.take() {
            c = m.drive(c);
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

    /// Does the proxy connection hold bytes the socket did not take?
    pub fn wants_write(&self) -> bool {
        let c = self.conn();
        c.wants_write() || c.h2.as_ref().is_some_and(|m| m.wants_write())
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
                return Ok(n);
            }
            if self.eof {
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
                // Our queued frames may go out, a WINDOW_UPDATE may have come.
                self.drive();
                driven = true;
            }
        }
        let n = self.send.capacity().min(want);
        self.send
            .send_data(Bytes::copy_from_slice(&buf[..n]), false)
            .map_err(h2_io_error)?;
        self.drive();
        Ok(n)
    }

    /// Push out what h2 and the proxy's TLS hold; WouldBlock while some remains.
    pub fn flush(&mut self) -> io::Result<()> {
        self.drive();
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
        self.drive();
        if let Some(c) = self.proxy.as_mut() {
            c.close();
        }
    }
}
