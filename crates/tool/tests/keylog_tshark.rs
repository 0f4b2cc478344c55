//! SSLKEYLOGFILE is only worth something if a capture really decrypts with it: capture an
//! HTTPS transfer on loopback with Debian's dumpcap, then have tshark decrypt it with the
//! key log oxcurl wrote and find the request path, which is only inside the encrypted
//! stream. Without the key log tshark must not find it (the check can fail).
//!
//! Needs root (capturing) and tshark; skipped with a message when either is missing and
//! `OXCURL_SKIP_TSHARK=1`, failing otherwise so CI cannot pass without running it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{pki, Exec, Reply, ScriptedServer, TempDir, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn available() -> bool {
    let have = Path::new("/usr/bin/tshark").is_file() && Path::new("/usr/bin/dumpcap").is_file();
    // Capturing needs root (the effective uid, as `id -u` prints it).
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if have && root {
        return true;
    }
    if std::env::var("OXCURL_SKIP_TSHARK").is_ok_and(|v| v == "1") {
        eprintln!("tshark/dumpcap missing or not root, OXCURL_SKIP_TSHARK=1: skipping");
        return false;
    }
    panic!(
        "this test needs root and tshark (`apt-get install -y tshark`); set \
         OXCURL_SKIP_TSHARK=1 to skip it"
    );
}

/// dumpcap on `lo` for one port, writing `pcap`; returns once it is capturing.
fn start_capture(port: u16, pcap: &Path, dir: &TempDir) -> Child {
    let errlog = dir.join("dumpcap.err");
    let mut child = Command::new("/usr/bin/dumpcap")
        .args(["-q", "-i", "lo", "-f", &format!("tcp port {port}"), "-w"])
        .arg(pcap)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&errlog).map(Stdio::from).unwrap())
        .spawn()
        .expect("start dumpcap");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let err = std::fs::read_to_string(&errlog).unwrap_or_default();
        if err.contains("Capturing on") {
            // The kernel filter is attached once dumpcap says so; a moment more for safety.
            std::thread::sleep(Duration::from_millis(200));
            return child;
        }
        if let Ok(Some(st)) = child.try_wait() {
            panic!("dumpcap exited ({st}): {err}");
        }
        assert!(Instant::now() < deadline, "dumpcap did not start: {err}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Stops dumpcap cleanly (SIGTERM lets it flush the file).
fn stop_capture(mut child: Child) {
    std::thread::sleep(Duration::from_millis(300));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

/// The request URIs tshark finds in the capture, decrypting with `keylog` if given.
fn uris(pcap: &Path, port: u16, keylog: Option<&Path>) -> String {
    let mut c = Command::new("/usr/bin/tshark");
    c.arg("-n")
        .arg("-r")
        .arg(pcap)
        .args(["-d", &format!("tcp.port=={port},tls")])
        .args([
            "-Y",
            "http.request",
            "-T",
            "fields",
            "-e",
            "http.request.uri",
        ]);
    if let Some(k) = keylog {
        c.arg("-o").arg(format!("tls.keylog_file:{}", k.display()));
    }
    let out = c.output().expect("run tshark");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn decrypts(backend: &str, extra: &[&str]) {
    if !available() {
        return;
    }
    let server = ScriptedServer::start_tls(&TlsServerOptions::default());
    server.set_replies(vec![Reply::ok("secret body\n")]);
    let dir = TempDir::new("tshark");
    let pcap = dir.join("cap.pcapng");
    let keylog = dir.join("keys.log");
    let cap = start_capture(server.port(), &pcap, &dir);
    let url = format!("{}/only-inside-tls-{backend}", server.url());
    let ca = pki().ca();
    let mut args = vec!["-s", "--cacert", ca.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push(&url);
    let out = Exec::new(under_test(OXCURL))
        .args(args)
        .env("SSLKEYLOGFILE", &keylog)
        .env("CURL_SSL_BACKEND", backend)
        .run();
    stop_capture(cap);
    assert_eq!(
        out.code,
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"secret body\n");
    let want = format!("/only-inside-tls-{backend}");
    let clear = uris(&pcap, server.port(), Some(&keylog));
    assert_eq!(
        clear.trim(),
        want,
        "tshark with the key log found: {clear:?}"
    );
    let opaque = uris(&pcap, server.port(), None);
    assert!(
        !opaque.contains(&want),
        "the path is visible without the key log: {opaque:?}"
    );
}

#[test]
fn rustls_tls13_capture_decrypts() {
    decrypts("rustls", &[]);
}

#[test]
fn rustls_tls12_capture_decrypts() {
    decrypts("rustls", &["--tls-max", "1.2"]);
}

#[test]
fn openssl_tls13_capture_decrypts() {
    decrypts("openssl", &[]);
}

#[test]
fn openssl_tls12_capture_decrypts() {
    decrypts("openssl", &["--tls-max", "1.2"]);
}
