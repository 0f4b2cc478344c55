//! CURLINFO_REQUEST_SIZE over HTTP/2 against nginx: tests/c/h2sizes.c with our library and
//! the reference libcurl, over TLS with ALPN and with prior knowledge, HTTP/1.1 beside.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::{pki, Nginx, TempDir};

fn compare(url: &str, version: &str) -> String {
    let ca = pki().ca();
    let ca = ca.to_str().expect("utf-8");
    let ours = run_ok("h2sizes", Lib::Ours, &[url, ca, version]);
    let reference = run_ok("h2sizes", Lib::Reference, &[url, ca, version]);
    assert_eq!(ours, reference, "{version}: ours vs reference");
    ours
}

#[test]
fn request_size_matches_reference_over_http2() {
    let root = TempDir::new("h2sizes");
    std::fs::write(root.join("f.txt"), "some content\n").expect("write");
    let Some(nginx) = Nginx::try_start_h2(root.path()) else {
        return;
    };
    let tls = format!("https://localhost:{}/f.txt", nginx.tls_port().expect("tls"));
    let clear = format!("http://127.0.0.1:{}/f.txt", nginx.port());
    let out = compare(&tls, "2");
    assert!(out.contains("get: rc=0 version=3 "), "{out}");
    let out = compare(&clear, "2pk");
    assert!(out.contains("get: rc=0 version=3 "), "{out}");
    let out = compare(&tls, "1");
    assert!(out.contains("get: rc=0 version=2 "), "{out}");
}
