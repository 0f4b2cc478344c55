//! The OpenSSL handshake trace of a transfer whose handle moves from one thread to another
//! between `curl_multi_perform` calls (tests/c/tlstrace.c): the trace belongs to the
//! connection, not to a thread, so the lines of the calls on the second thread are all
//! there, as one thread would get them and as the reference libcurl writes them.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use common::{compile, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use oxcurl_testsupport::process::Exec;
use oxcurl_testsupport::{pki, TlsServerOptions};

/// Relays one connection to `upstream`, holding the server's first bytes back for `hold`: the
/// `curl_multi_perform` call that sends the ClientHello returns before the answer is there,
/// so the handshake goes on in a later call (on the other thread).
fn slow_relay(upstream: SocketAddr, hold: Duration) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let Ok((mut client, _)) = l.accept() else {
            return;
        };
        let Ok(mut server) = TcpStream::connect(upstream) else {
            return;
        };
        let (mut c2, mut s2) = (
            client.try_clone().expect("clone"),
            server.try_clone().expect("clone"),
        );
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut c2, &mut s2);
            let _ = s2.shutdown(Shutdown::Write);
        });
        let mut buf = [0u8; 16 * 1024];
        let mut first = true;
        while let Ok(n @ 1..) = server.read(&mut buf) {
            if std::mem::take(&mut first) {
                std::thread::sleep(hold);
            }
            if client.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = client.shutdown(Shutdown::Write);
    });
    port
}

fn run(lib: Lib, url: &str) -> String {
    let exe = compile("tlstrace", lib);
    let ca = pki().ca();
    let out = Exec::new(&exe)
        .args([url, ca.to_str().expect("utf-8")])
        .env("LD_LIBRARY_PATH", lib.dir())
        .env("CURL_SSL_BACKEND", "openssl")
        .run();
    let _ = std::fs::remove_file(&exe);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    out.stdout_str()
}

#[test]
fn openssl_trace_follows_the_handle_to_another_thread() {
    let s = ScriptedServer::start_tls(&TlsServerOptions::default());
    s.set_handler(|_| Reply::ok("traced\n"));
    let hold = Duration::from_millis(300);
    let url = |port: u16| format!("https://localhost:{port}/");
    let ours = run(Lib::Ours, &url(slow_relay(s.addr(), hold)));
    for line in [
        "A: TLSv1.3 (OUT), TLS handshake, Client hello (1):\n",
        "B: TLSv1.3 (IN), TLS handshake, Server hello (2):\n",
        "B: TLSv1.3 (IN), TLS handshake, Certificate (11):\n",
        "B: TLSv1.3 (OUT), TLS handshake, Finished (20):\n",
        "B: TLSv1.3 (IN), TLS handshake, Newsession Ticket (4):\n",
        "result=0\n",
    ] {
        assert!(ours.contains(line), "{line:?} missing from\n{ours}");
    }
    assert_eq!(ours.matches("A: ").count(), 1, "{ours}");
    let reference = run(Lib::Reference, &url(slow_relay(s.addr(), hold)));
    assert_eq!(ours, reference, "ours vs reference");
}
