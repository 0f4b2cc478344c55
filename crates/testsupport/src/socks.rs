//! A scripted SOCKS4/4a/5 proxy for tests: it records the handshake bytes the client sends
//! and then relays to the requested target on loopback, or answers with raw scripted bytes
//! (for hostile-proxy tests).

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// How the proxy answers.
#[derive(Clone, Debug)]
pub enum SocksMode {
    /// Speak SOCKS properly and relay; `auth` makes SOCKS5 pick username/password when the
    /// client offers it and accept only these credentials.
    Relay { auth: Option<(String, String)> },
    /// After the client's first bytes, write these bytes and close.
    Raw(Vec<u8>),
    /// SOCKS5: answer the greeting properly (no auth), then write these bytes as the reply
    /// to the connect request and close.
    Socks5Reply(Vec<u8>),
}

/// A SOCKS proxy on an ephemeral loopback port.
#[derive(Debug)]
pub struct SocksServer {
    port: u16,
    handshakes: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl SocksServer {
    pub fn start(mode: SocksMode) -> SocksServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind socks");
        let port = listener.local_addr().expect("addr").port();
        let handshakes = Arc::new(Mutex::new(Vec::new()));
        let h = handshakes.clone();
        thread::spawn(move || {
            for c in listener.incoming().flatten() {
                let (h, mode) = (h.clone(), mode.clone());
                thread::spawn(move || serve(c, &mode, &h));
            }
        });
        SocksServer { port, handshakes }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The bytes each client sent before the tunnel started (or before the scripted
    /// reply), in order of arrival.
    pub fn handshakes(&self) -> Vec<Vec<u8>> {
        self.handshakes.lock().expect("handshakes").clone()
    }
}

struct Rec<'a> {
    c: TcpStream,
    seen: Vec<u8>,
    out: &'a Mutex<Vec<Vec<u8>>>,
}

impl Rec<'_> {
    fn read(&mut self, n: usize) -> Option<Vec<u8>> {
        let mut b = vec![0u8; n];
        self.c.read_exact(&mut b).ok()?;
        self.seen.extend_from_slice(&b);
        Some(b)
    }
    fn read_until_nul(&mut self) -> Option<Vec<u8>> {
        let mut v = Vec::new();
        loop {
            let b = self.read(1)?[0];
            if b == 0 {
                return Some(v);
            }
            if v.len() > 1024 {
                return None;
            }
            v.push(b);
        }
    }
    fn finish(&mut self) {
        self.out
            .lock()
            .expect("handshakes")
            .push(std::mem::take(&mut self.seen));
    }
}

fn serve(c: TcpStream, mode: &SocksMode, out: &Mutex<Vec<Vec<u8>>>) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(30)));
    let mut r = Rec {
        c,
        seen: Vec::new(),
        out,
    };
    if let SocksMode::Raw(bytes) = mode {
        let mut b = [0u8; 1024];
        if let Ok(n) = r.c.read(&mut b) {
            r.seen.extend_from_slice(&b[..n]);
        }
        r.finish();
        let _ = r.c.write_all(bytes);
        return;
    }
    let target = match r.read(1).map(|v| v[0]) {
        Some(4) => socks4(&mut r),
        Some(5) => socks5(&mut r, mode),
        _ => None,
    };
    r.finish();
    let Some(target) = target else {
        return;
    };
    let Some(up) = target.and_then(|a| TcpStream::connect(a).ok()) else {
        return;
    };
    relay(r.c, up);
}

fn resolve(host: &str, port: u16) -> Option<SocketAddr> {
    (host, port).to_socket_addrs().ok()?.find(|a| a.is_ipv4())
}

/// SOCKS4/4a after the version byte; Some(target) when the reply was sent.
fn socks4(r: &mut Rec<'_>) -> Option<Option<SocketAddr>> {
    let h = r.read(7)?;
    let port = u16::from_be_bytes([h[1], h[2]]);
    let ip = Ipv4Addr::new(h[3], h[4], h[5], h[6]);
    r.read_until_nul()?;
    let target = if h[3..6] == [0, 0, 0] && h[6] != 0 {
        let name = r.read_until_nul()?;
        resolve(&String::from_utf8_lossy(&name), port)
    } else {
        Some(SocketAddr::new(IpAddr::V4(ip), port))
    };
    let mut reply = vec![0, 90];
    reply.extend_from_slice(&h[1..7]);
    r.c.write_all(&reply).ok()?;
    Some(target)
}

/// SOCKS5 after the version byte.
fn socks5(r: &mut Rec<'_>, mode: &SocksMode) -> Option<Option<SocketAddr>> {
    let n = r.read(1)?[0];
    let methods = r.read(usize::from(n))?;
    let auth = match mode {
        SocksMode::Relay { auth } => auth.clone(),
        _ => None,
    };
    if let Some((u, p)) = auth.filter(|_| methods.contains(&2)) {
        r.c.write_all(&[5, 2]).ok()?;
        let v = r.read(2)?;
        let user = r.read(usize::from(v[1]))?;
        let plen = r.read(1)?[0];
        let pass = r.read(usize::from(plen))?;
        let ok = user == u.as_bytes() && pass == p.as_bytes();
        r.c.write_all(&[1, if ok { 0 } else { 1 }]).ok()?;
        if !ok {
            return None;
        }
    } else if methods.contains(&0) {
        r.c.write_all(&[5, 0]).ok()?;
    } else {
        r.c.write_all(&[5, 0xff]).ok()?;
        return None;
    }
    let h = r.read(4)?;
    let target = match h[3] {
        1 => {
            let a = r.read(6)?;
            Some(SocketAddr::new(
                IpAddr::V4(Ipv4Addr::new(a[0], a[1], a[2], a[3])),
                u16::from_be_bytes([a[4], a[5]]),
            ))
        }
        3 => {
            let len = r.read(1)?[0];
            let name = r.read(usize::from(len))?;
            let p = r.read(2)?;
            resolve(
                &String::from_utf8_lossy(&name),
                u16::from_be_bytes([p[0], p[1]]),
            )
        }
        4 => {
            let a = r.read(18)?;
            let mut o = [0u8; 16];
            o.copy_from_slice(&a[..16]);
            Some(SocketAddr::new(
                IpAddr::V6(Ipv6Addr::from(o)),
                u16::from_be_bytes([a[16], a[17]]),
            ))
        }
        _ => return None,
    };
    if let SocksMode::Socks5Reply(bytes) = mode {
        r.c.write_all(bytes).ok()?;
        return None;
    }
    r.c.write_all(&[5, 0, 0, 1, 127, 0, 0, 1, 0, 0]).ok()?;
    Some(target)
}

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
    let _ = to.shutdown(std::net::Shutdown::Write);
}
