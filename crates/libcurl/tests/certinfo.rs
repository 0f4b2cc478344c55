//! `CURLOPT_CERTINFO` and `CURLINFO_CERTINFO` through the C ABI, compared with the reference
//! libcurl over the same TLS server (tests/c/certinfo.c), with each TLS backend.

mod common;

use common::{compile, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use oxcurl_testsupport::process::Exec;
use oxcurl_testsupport::{pki, ServerCert, TlsServerOptions};

fn run(lib: Lib, backend: &str, url: &str, fresh: bool) -> String {
    let exe = compile("certinfo", lib);
    let ca = pki().ca();
    let out = Exec::new(&exe)
        .args([
            url,
            ca.to_str().expect("utf-8"),
            if fresh { "fresh" } else { "" },
        ])
        .env("LD_LIBRARY_PATH", lib.dir())
        .env("CURL_SSL_BACKEND", backend)
        .run();
    let _ = std::fs::remove_file(&exe);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    out.stdout_str()
}

fn chain_matches_reference(backend: &str, fresh: bool) {
    let s = ScriptedServer::start_tls(&TlsServerOptions {
        cert: ServerCert::Chain,
        ..TlsServerOptions::default()
    });
    s.set_handler(|_| Reply::ok("x"));
    let url = format!("https://localhost:{}/", s.addr().port());
    let ours = run(Lib::Ours, backend, &url, fresh);
    let reference = run(Lib::Reference, backend, &url, fresh);
    assert!(ours.contains("first: rc=0 set=1 num=2 list=1\n"), "{ours}");
    assert!(
        ours.contains("[Subject:CN = oxcurl intermediate CA]\n"),
        "{ours}"
    );
    assert!(ours.contains("reused: rc=0 set=1 num=0 list=0\n"), "{ours}");
    if fresh {
        // The new connection resumed the session: curl keeps no chain then.
        assert!(
            ours.contains("fresh connection: rc=0 set=1 num=0 list=0\n"),
            "{ours}"
        );
    }
    assert_eq!(ours, reference);
}

#[test]
fn certinfo_rustls_matches_reference() {
    chain_matches_reference("rustls", true);
}

#[test]
fn certinfo_openssl_matches_reference() {
    chain_matches_reference("openssl", false);
}

#[test]
fn certinfo_openssl_after_resumption_matches_reference() {
    chain_matches_reference("openssl", true);
}
