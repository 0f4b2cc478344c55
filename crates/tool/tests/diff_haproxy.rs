//! Differential tests for `--haproxy-protocol` and `--haproxy-clientip`: the PROXY protocol
//! v1 line curl sends first on a new connection (before TLS over https), byte-compared.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};

use oxcurl_testsupport::{tls, Case, Reply, ScriptedServer, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// The PROXY line carries the client's ephemeral port: mask the source port (the fifth
/// field) of a leading PROXY line.
fn mask_source_port(data: &[u8]) -> Vec<u8> {
    if !data.starts_with(b"PROXY TCP") {
        return data.to_vec();
    }
    let end = data.iter().position(|&b| b == b'\r').unwrap_or(data.len());
    let line = String::from_utf8_lossy(&data[..end]).into_owned();
    let mut f: Vec<&str> = line.split(' ').collect();
    if f.len() == 6 {
        f[4] = "SPORT";
    }
    let mut out = f.join(" ").into_bytes();
    out.extend_from_slice(&data[end..]);
    out
}

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .reply(Reply::ok("hello\n"))
        .normalise_requests_with(mask_source_port)
}

#[test]
fn haproxy_protocol_line_first() {
    let r = case(
        "haproxy_protocol_line_first",
        &["-s", "--haproxy-protocol", "{url}/p"],
    )
    .run(OXCURL);
    // The line really is there, with the server's port as destination.
    let c = String::from_utf8_lossy(&r.oxcurl.connections[0]).into_owned();
    assert!(
        c.starts_with("PROXY TCP4 127.0.0.1 127.0.0.1 SPORT "),
        "{c}"
    );
}

#[test]
fn haproxy_clientip_claims_the_source() {
    case(
        "haproxy_clientip_claims_the_source",
        &["-s", "--haproxy-clientip", "192.0.2.7", "{url}/p"],
    )
    .run(OXCURL);
}

#[test]
fn haproxy_clientip_any_text() {
    case(
        "haproxy_clientip_any_text",
        &[
            "-s",
            "--haproxy-protocol",
            "--haproxy-clientip",
            "2001:db8::1",
            "{url}/p",
        ],
    )
    .run(OXCURL);
}

#[test]
fn haproxy_protocol_ipv6() {
    case(
        "haproxy_protocol_ipv6",
        &["-s", "--haproxy-protocol", "{url}/6"],
    )
    .ipv6()
    .run(OXCURL);
}

#[test]
fn haproxy_protocol_once_per_connection() {
    case(
        "haproxy_protocol_once_per_connection",
        &["-s", "--haproxy-protocol", "{url}/1", "{url}/2"],
    )
    .run(OXCURL);
}

#[test]
fn haproxy_protocol_switched_off_again() {
    case(
        "haproxy_protocol_switched_off_again",
        &[
            "-s",
            "--haproxy-protocol",
            "--no-haproxy-protocol",
            "{url}/p",
        ],
    )
    .run(OXCURL);
}

#[test]
fn haproxy_protocol_with_post() {
    case(
        "haproxy_protocol_with_post",
        &["-s", "--haproxy-protocol", "-d", "a=b", "{url}/post"],
    )
    .run(OXCURL);
}

/// Over https the line comes before the TLS handshake: a server that reads the line, then
/// speaks TLS, and records the line and the decrypted request of each run.
#[test]
fn haproxy_protocol_before_tls() {
    let seen: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    let s2 = seen.clone();
    let config = tls::server_config(&TlsServerOptions::default());
    let server_setup = move |s: &ScriptedServer| {
        let seen = s2.clone();
        let config = config.clone();
        s.set_raw_handler(move |raw| {
            let mut reader = BufReader::new(raw);
            let mut line = Vec::new();
            if reader.read_until(b'\n', &mut line).is_err() {
                return;
            }
            // What is buffered past the line is the ClientHello: keep it in front.
            let rest = reader.buffer().to_vec();
            let raw = reader.into_inner();
            let io = Prefixed {
                rest,
                pos: 0,
                inner: raw,
            };
            let conn = rustls::ServerConnection::new(config.clone()).expect("tls server");
            let mut t = rustls::StreamOwned::new(conn, io);
            let mut req = Vec::new();
            let mut buf = [0u8; 1024];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                match t.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            let mut record = mask_source_port(&line);
            record.extend_from_slice(&req);
            seen.lock().unwrap().push(record);
            let _ = t.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\ntls\n",
            );
            let _ = t.flush();
            t.conn.send_close_notify();
            let _ = t.flush();
        });
    };
    let r = Case::new("haproxy_protocol_before_tls")
        .args(&[
            "-s",
            "--cacert",
            "{ca}",
            "--haproxy-protocol",
            "https://localhost:{port}/t",
        ])
        .server(server_setup)
        .compare_requests(false)
        .run(OXCURL);
    assert_eq!(r.oxcurl.stdout_str(), "tls\n");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "one connection per run");
    assert_eq!(
        String::from_utf8_lossy(&seen[0]),
        String::from_utf8_lossy(&seen[1])
    );
    let ox = String::from_utf8_lossy(&seen[1]).into_owned();
    assert!(
        ox.starts_with("PROXY TCP4 127.0.0.1 127.0.0.1 SPORT "),
        "{ox}"
    );
    assert!(
        ox.contains("\r\nGET /t HTTP/1.1\r\nHost: localhost:"),
        "{ox}"
    );
}

/// Bytes read ahead of the TLS layer, then the connection.
struct Prefixed<T> {
    rest: Vec<u8>,
    pos: usize,
    inner: T,
}

impl<T: Read> Read for Prefixed<T> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos < self.rest.len() {
            let n = (self.rest.len() - self.pos).min(out.len());
            out[..n].copy_from_slice(&self.rest[self.pos..self.pos + n]);
            self.pos += n;
            return Ok(n);
        }
        self.inner.read(out)
    }
}

impl<T: Write> Write for Prefixed<T> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.inner.write(data)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[test]
fn haproxy_protocol_to_http_proxy() {
    case(
        "haproxy_protocol_to_http_proxy",
        &[
            "-s",
            "--haproxy-protocol",
            "-x",
            "{url}",
            "http://origin.example/p",
        ],
    )
    .run(OXCURL);
}
