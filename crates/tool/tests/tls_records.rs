//! TLS 1.3 messages after the handshake in the middle of a response, against a rustls server
//! on a real socket: a KeyUpdate that asks for ours, and several NewSessionTickets split over
//! records. oxcurl (whose rustls sessions take the record layer over after the handshake,
//! `tls/record.rs`) must give the same body and exit code as the reference curl, and the
//! server must read our records under the updated keys, up to the close_notify.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use oxcurl_core::tls::record;
use oxcurl_testsupport::http::generated_body;
use oxcurl_testsupport::tls::server_config;
use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{pki, reference_curl, Exec, Output, TlsServerOptions};
use rustls::ServerConnection;

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");
const BODY: usize = 300_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `refresh_traffic_keys` after the first 100 000 bytes of the body.
    KeyUpdate,
    /// Three NewSessionTickets after 100 000 bytes, the third split over two records.
    Tickets,
}

/// What the server saw of one connection: how many requests it answered.
type Seen = Result<usize, String>;

fn response() -> Vec<u8> {
    let mut r = format!("HTTP/1.1 200 OK\r\nContent-Length: {BODY}\r\n\r\n").into_bytes();
    r.extend(generated_body(BODY));
    r
}

/// The handshake (on the first call) and the next request, on rustls' buffered server
/// connection: false when the client closed instead.
fn next_request(conn: &mut ServerConnection, sock: &mut TcpStream) -> io::Result<bool> {
    let mut req = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        while conn.wants_write() {
            conn.write_tls(sock)?;
        }
        loop {
            match conn.reader().read(&mut buf) {
                Ok(0) => return Ok(false),
                Ok(n) => req.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        if req.windows(4).any(|w| w == b"\r\n\r\n") {
            return Ok(true);
        }
        if conn.read_tls(sock)? == 0 {
            return Ok(false);
        }
        conn.process_new_packets().map_err(io::Error::other)?;
    }
}

fn write_all(conn: &mut ServerConnection, sock: &mut TcpStream, data: &[u8]) -> io::Result<()> {
    let mut rest = data;
    while !rest.is_empty() {
        let n = conn.writer().write(rest)?;
        rest = &rest[n..];
        while conn.wants_write() {
            conn.write_tls(sock)?;
        }
    }
    Ok(())
}

/// Answer every request; the first response has a KeyUpdate (asking for ours) after its
/// first 100 000 bytes, so later requests come under the client's new keys. How many
/// requests were answered.
fn key_update(conn: &mut ServerConnection, sock: &mut TcpStream) -> Result<usize, String> {
    let resp = response();
    let mut answered = 0;
    loop {
        let (a, b) = resp.split_at(100_000);
        write_all(conn, sock, a).map_err(|e| e.to_string())?;
        if answered == 0 {
            conn.refresh_traffic_keys().map_err(|e| e.to_string())?;
        }
        write_all(conn, sock, b).map_err(|e| e.to_string())?;
        answered += 1;
        match next_request(conn, sock) {
            Ok(true) => {}
            Ok(false) => return Ok(answered),
            Err(e) => return Err(format!("request {}: {e}", answered + 1)),
        }
    }
}

/// A NewSessionTicket message (RFC 8446 4.6.1) carrying `n`.
fn ticket(n: u8) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend(7200u32.to_be_bytes()); // lifetime
    body.extend([n; 4]); // age_add
    body.extend([1, n]); // nonce
    body.extend(32u16.to_be_bytes());
    body.extend([n; 32]); // ticket
    body.extend(0u16.to_be_bytes()); // extensions
    let mut m = vec![4, 0, 0, body.len() as u8];
    m.extend(body);
    m
}

/// Records sealed with the server's extracted traffic keys.
struct Sealer {
    enc: Box<dyn rustls::crypto::cipher::MessageEncrypter>,
    seq: u64,
}

impl Sealer {
    fn seal(&mut self, typ: rustls::ContentType, data: &[u8]) -> Vec<u8> {
        use rustls::crypto::cipher::{OutboundChunks, OutboundPlainMessage};
        let m = self
            .enc
            .encrypt(
                OutboundPlainMessage {
                    typ,
                    version: rustls::ProtocolVersion::TLSv1_2,
                    payload: OutboundChunks::Single(data),
                },
                self.seq,
            )
            .expect("encrypt");
        self.seq += 1;
        m.encode()
    }
}

#[allow(deprecated)] // the buffered server has no KernelConnection; these keys do not change
fn tickets(conn: ServerConnection, sock: &mut TcpStream) -> Seen {
    use rustls::ContentType as T;
    let suite = conn.negotiated_cipher_suite().ok_or("no suite")?;
    let secrets = conn
        .dangerous_extract_secrets()
        .map_err(|e| e.to_string())?;
    let mut s = Sealer {
        enc: record::encrypter(suite, secrets.tx.1).map_err(|e| e.to_string())?,
        seq: 0,
    };
    // aws-lc's GCM sealing counter starts at the first sequence number it sees.
    for _ in 0..secrets.tx.0 {
        s.seal(T::ApplicationData, b"");
    }
    let resp = response();
    let (a, b) = resp.split_at(100_000);
    let mut wire = Vec::new();
    for c in a.chunks(16_384) {
        wire.extend(s.seal(T::ApplicationData, c));
    }
    let mut two = ticket(1);
    two.extend(ticket(2));
    wire.extend(s.seal(T::Handshake, &two));
    let third = ticket(3);
    wire.extend(s.seal(T::Handshake, &third[..10]));
    wire.extend(s.seal(T::Handshake, &third[10..]));
    for c in b.chunks(16_384) {
        wire.extend(s.seal(T::ApplicationData, c));
    }
    sock.write_all(&wire).map_err(|e| e.to_string())?;
    // Wait for the client to close.
    let mut buf = [0u8; 4096];
    loop {
        match sock.read(&mut buf) {
            Ok(0) | Err(_) => return Ok(1),
            Ok(_) => {}
        }
    }
}

/// Serve `conns` connections one after the other.
fn serve(mode: Mode, conns: usize) -> (u16, JoinHandle<Vec<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    let mut cfg = (*server_config(&TlsServerOptions::default())).clone();
    cfg.enable_secret_extraction = true;
    if mode == Mode::Tickets {
        cfg.send_tls13_tickets = 0;
    }
    let cfg = Arc::new(cfg);
    let h = thread::spawn(move || {
        let mut seen = Vec::new();
        for _ in 0..conns {
            let (mut sock, _) = listener.accept().expect("accept");
            sock.set_read_timeout(Some(Duration::from_secs(15))).ok();
            let mut conn = ServerConnection::new(cfg.clone()).expect("server connection");
            match next_request(&mut conn, &mut sock) {
                Ok(true) => {}
                Ok(false) => {
                    seen.push(Err("no request".into()));
                    continue;
                }
                Err(e) => {
                    seen.push(Err(format!("handshake: {e}")));
                    continue;
                }
            }
            seen.push(match mode {
                Mode::KeyUpdate => key_update(&mut conn, &mut sock),
                Mode::Tickets => tickets(conn, &mut sock),
            });
        }
        seen
    });
    (port, h)
}

fn run(prog: &std::path::Path, port: u16, urls: usize) -> Output {
    let url = format!("https://127.0.0.1:{port}/");
    let mut args = vec![
        "-sS".to_string(),
        "--tlsv1.3".into(),
        "--cacert".into(),
        pki().ca().to_string_lossy().into_owned(),
    ];
    args.extend(std::iter::repeat_n(url, urls));
    Exec::new(prog)
        .env("CURL_SSL_BACKEND", "rustls")
        .args(args)
        .run()
}

/// Both programs against the same server, `urls` requests each on one connection; the
/// server's view of each connection.
fn both(mode: Mode, urls: usize) -> (Output, Output, Vec<Seen>) {
    let (port, h) = serve(mode, 2);
    let reference = run(&reference_curl(), port, urls);
    let ours = run(&under_test(OXCURL), port, urls);
    (reference, ours, h.join().expect("server thread"))
}

#[test]
fn key_update_mid_response_matches_reference() {
    let (reference, ours, seen) = both(Mode::KeyUpdate, 2);
    assert_eq!(
        reference.code,
        Some(0),
        "{} {seen:?}",
        reference.stderr_str()
    );
    assert_eq!(ours.code, reference.code, "{} {seen:?}", ours.stderr_str());
    let body = generated_body(BODY);
    assert!(ours.stdout == [&body[..], &body[..]].concat());
    assert!(ours.stdout == reference.stdout);
    // The second request went under the keys the update asked for: the server read it.
    assert_eq!(seen, [Ok(2), Ok(2)]);
}

#[test]
fn session_tickets_mid_response_match_reference() {
    let (reference, ours, seen) = both(Mode::Tickets, 1);
    assert_eq!(reference.code, Some(0), "{}", reference.stderr_str());
    assert_eq!(ours.code, reference.code, "{}", ours.stderr_str());
    assert!(ours.stdout == generated_body(BODY));
    assert!(ours.stdout == reference.stdout);
    assert_eq!(seen, [Ok(1), Ok(1)]);
}
