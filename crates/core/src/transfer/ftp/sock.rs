//! The data connection's socket and the TLS layers over it (curl's filter chain for the
//! second socket): the session to an HTTPS proxy (which carries the CONNECT, then the
//! tunnel), and the FTPS session after `PROT P`, inside the proxy's when there is one.
//! Handed to the application's close hook when it goes.

use std::net::TcpStream;

use super::*;
use crate::tls::{Io, Session};

pub(super) struct DataSock {
    pub(super) stream: Stream,
    /// The FTPS session of the data connection (`ftp/ftps.rs`).
    pub(super) tls: Option<Box<Session>>,
    /// The FTPS handshake is still going.
    pub(super) handshaking: bool,
    /// The session to an HTTPS proxy the data connection goes through (`ftp/proxy.rs`).
    pub(super) proxy_tls: Option<Box<Session>>,
    hooks: connect::Hooks,
}

impl DataSock {
    pub(super) fn new(stream: TcpStream, hooks: &connect::Hooks) -> DataSock {
        DataSock {
            stream: Stream::Tcp(stream),
            tls: None,
            handshaking: false,
            proxy_tls: None,
            hooks: hooks.clone(),
        }
    }

    /// Run `f` on the FTPS session with what it reads and writes through: the proxy's
    /// session, or the socket. None without FTPS.
    pub(super) fn with_tls<R>(
        &mut self,
        f: impl FnOnce(&mut Session, &mut Io<'_>) -> R,
    ) -> Option<R> {
        let t = self.tls.as_deref_mut()?;
        Some(match self.proxy_tls.as_deref_mut() {
            Some(p) => f(t, &mut Io::Tls(p, &mut self.stream)),
            None => f(t, &mut Io::Sock(&mut self.stream)),
        })
    }

    /// Bytes below FTPS: through the proxy's session when there is one, else the socket.
    pub(super) fn raw_read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.proxy_tls {
            Some(p) => p.recv(&mut Io::Sock(&mut self.stream), buf),
            None => self.stream.read(buf),
        }
    }

    /// [`Self::raw_read`]'s way out.
    pub(super) fn raw_write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.proxy_tls {
            Some(p) => {
                let mut io = Io::Sock(&mut self.stream);
                let n = p.send(&mut io, buf)?;
                match p.flush(&mut io) {
                    Err(e) if e.kind() != io::ErrorKind::WouldBlock => Err(e),
                    _ => Ok(n),
                }
            }
            None => self.stream.write(buf),
        }
    }

    /// Push out what the proxy's session still holds.
    fn flush_proxy(&mut self) -> io::Result<()> {
        match &mut self.proxy_tls {
            Some(p) => p.flush(&mut Io::Sock(&mut self.stream)),
            None => Ok(()),
        }
    }

    /// Bytes received (decrypted); Ok(0) at the end.
    pub(super) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.with_tls(|t, io| t.recv(io, buf)) {
            Some(r) => r,
            None => self.raw_read(buf),
        }
    }

    /// Bytes sent (encrypted), as many as were taken.
    pub(super) fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.with_tls(|t, io| {
            let n = t.send(io, buf)?;
            match t.flush(io) {
                Err(e) if e.kind() != io::ErrorKind::WouldBlock => Err(e),
                _ => Ok(n),
            }
        });
        match r {
            Some(r) => {
                let n = r?;
                match self.flush_proxy() {
                    Err(e) if e.kind() != io::ErrorKind::WouldBlock => Err(e),
                    _ => Ok(n),
                }
            }
            None => self.raw_write(buf),
        }
    }

    /// Does a TLS layer hold bytes for the socket?
    pub(super) fn wants_write(&self) -> bool {
        self.tls.as_ref().is_some_and(|t| t.wants_write())
            || self.proxy_tls.as_ref().is_some_and(|t| t.wants_write())
    }

    /// The address at the other end.
    pub(super) fn stream_peer(&self) -> Option<SocketAddr> {
        match &self.stream {
            Stream::Tcp(s) => s.peer_addr().ok(),
            _ => None,
        }
    }

    pub(super) fn trace_on(&mut self) {
        if let Some(t) = self.tls.as_mut() {
            t.trace_on();
        }
    }

    pub(super) fn trace_take(&mut self) -> Vec<crate::tls::TraceEvent> {
        self.tls
            .as_mut()
            .map(|t| t.trace_take())
            .unwrap_or_default()
    }
}

impl std::os::fd::AsFd for DataSock {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.stream.fd()
    }
}

impl Drop for DataSock {
    fn drop(&mut self) {
        // TLS ends with close_notify, inner first, best effort (curl's data connection
        // shutdown).
        self.with_tls(|t, io| t.close(io));
        let _ = self.flush_proxy();
        if let Some(p) = &mut self.proxy_tls {
            p.close(&mut Io::Sock(&mut self.stream));
        }
        let stream = std::mem::replace(&mut self.stream, Stream::Closed);
        if let Some(fd) = stream.into_fd() {
            connect::close_with(&self.hooks, fd);
        }
    }
}
