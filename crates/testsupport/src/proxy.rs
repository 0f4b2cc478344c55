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
