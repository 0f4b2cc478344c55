//! A scripted HTTP CONNECT proxy for tests: it records every CONNECT request head byte for
//! byte, answers `200 Connection established` and relays the tunnel to the requested
//! host and port on loopback (so TLS to a [`crate::ScriptedServer`] runs inside it).
//! Absolute-form proxying needs no helper: a `ScriptedServer` records those requests.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// Longest CONNECT head the proxy reads.
const MAX_HEAD: usize = 64 * 1024;

/// A CONNECT proxy on an ephemeral loopback port.
#[derive(Debug)]
pub struct ConnectProxy {
    port: u16,
    heads: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl ConnectProxy {
    /// Start listening on 127.0.0.1; connections are served until the process ends.
    pub fn start() -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let port = listener.local_addr().expect("addr").port();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let h = heads.clone();
        thread::spawn(move || {
            for c in listener.incoming().flatten() {
                let h = h.clone();
                thread::spawn(move || serve(c, &h));
            }
        });
        ConnectProxy { port, heads }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `127.0.0.1:PORT`, for `-x`.
    pub fn host_port(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The CONNECT request heads received so far, in order of arrival.
    pub fn heads(&self) -> Vec<Vec<u8>> {
        self.heads.lock().expect("heads").clone()
    }
}

fn read_head(c: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_HEAD || c.read(&mut b).ok()? == 0 {
            return None;
        }
        head.push(b[0]);
    }
    Some(head)
}

fn serve(mut c: TcpStream, heads: &Mutex<Vec<Vec<u8>>>) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(30)));
    let Some(head) = read_head(&mut c) else {
        return;
    };
    heads.lock().expect("heads").push(head.clone());
    let text = String::from_utf8_lossy(&head);
    let target = text
        .strip_prefix("CONNECT ")
        .and_then(|r| r.split(' ').next())
        .map(str::to_string);
    let upstream = target
        .and_then(|t| t.to_socket_addrs().ok())
        .and_then(|mut a| a.find(|a| a.is_ipv4()))
        .and_then(|a| TcpStream::connect(a).ok());
    let Some(up) = upstream else {
        let _ = c.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    if c.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
    {
        return;
    }
    relay(c, up);
}

/// Copy both directions until either side closes.
fn relay(a: TcpStream, b: TcpStream) {
    let (Ok(a2), Ok(b2)) = (a.try_clone(), b.try_clone()) else {
        return;
    };
    let t = thread::spawn(move || pipe(a2, b2));
    pipe(b, a);
    let _ = t.join();
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// An HTTPS proxy: TLS is terminated with a test PKI certificate (see [`crate::tls`]) in
/// front of a [`ConnectProxy`], which records the CONNECT heads and relays the tunnel. The
/// client's TLS to the origin thus runs inside its TLS to this proxy.
#[derive(Debug)]
pub struct HttpsProxy {
    port: u16,
    inner: ConnectProxy,
    handshakes_failed: Arc<Mutex<u32>>,
}

impl HttpsProxy {
    /// Start listening on 127.0.0.1 with these TLS settings (ALPN and client certificate
    /// checks as in [`crate::tls::TlsServerOptions`]).
    pub fn start(opts: &crate::tls::TlsServerOptions) -> HttpsProxy {
        let inner = ConnectProxy::start();
        let config = crate::tls::server_config(opts);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind https proxy");
        let port = listener.local_addr().expect("addr").port();
        let failed = Arc::new(Mutex::new(0));
        let (to, f) = (inner.port(), failed.clone());
        thread::spawn(move || {
            for c in listener.incoming().flatten() {
                let (config, f) = (config.clone(), f.clone());
                thread::spawn(move || front(c, config, to, &f));
            }
        });
        HttpsProxy {
            port,
            inner,
            handshakes_failed: failed,
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `https://localhost:PORT`, for `-x` (the certificates name localhost).
    pub fn url(&self) -> String {
        format!("https://localhost:{}", self.port)
    }

    /// The CONNECT request heads received so far, decrypted, in order of arrival.
    pub fn heads(&self) -> Vec<Vec<u8>> {
        self.inner.heads()
    }

    /// Connections whose TLS handshake failed.
    pub fn handshakes_failed(&self) -> u32 {
        *self.handshakes_failed.lock().expect("count")
    }
}

/// Terminate TLS and relay the plaintext to the CONNECT proxy on `to`, polling both sides
/// with short timeouts (one thread, since the TLS stream cannot be split).
fn front(c: TcpStream, config: Arc<rustls::ServerConfig>, to: u16, failed: &Mutex<u32>) {
    use std::io::ErrorKind;
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(conn, c);
    let _ = tls.sock.set_read_timeout(Some(Duration::from_secs(30)));
    while tls.conn.is_handshaking() {
        if tls.conn.complete_io(&mut tls.sock).is_err() {
            *failed.lock().expect("count") += 1;
            return;
        }
    }
    let Ok(mut up) = TcpStream::connect(("127.0.0.1", to)) else {
        return;
    };
    let tick = Some(Duration::from_millis(5));
    let _ = tls.sock.set_read_timeout(tick);
    let _ = up.set_read_timeout(tick);
    let idle = |e: &std::io::Error| matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
    let mut buf = [0u8; 16 * 1024];
    let mut quiet = 0u32;
    loop {
        let mut moved = false;
        match tls.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if up.write_all(&buf[..n]).is_err() {
                    break;
                }
                moved = true;
            }
            Err(e) if idle(&e) => {}
            Err(_) => break,
        }
        match up.read(&mut buf) {
            Ok(0) => {
                tls.conn.send_close_notify();
                let _ = tls.flush();
                break;
            }
            Ok(n) => {
                if tls.write_all(&buf[..n]).and_then(|_| tls.flush()).is_err() {
                    break;
                }
                moved = true;
            }
            Err(e) if idle(&e) => {}
            Err(_) => break,
        }
        quiet = if moved { 0 } else { quiet + 1 };
        if quiet > 6000 {
            break;
        }
    }
    let _ = up.shutdown(Shutdown::Both);
}
