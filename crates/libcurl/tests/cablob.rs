//! `CURLOPT_CAINFO_BLOB` and `CURLOPT_SSL_CTX_FUNCTION` through the C ABI: tests/c/cablob.c
//! against our library and the reference libcurl over the same TLS server, with each TLS
//! backend; the output (results, error texts, what the SSL_CTX callback saw) compared.

mod common;

use common::{compile, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use oxcurl_testsupport::pki;
use oxcurl_testsupport::process::Exec;

fn run(lib: Lib, backend: &str, url: &str) -> String {
    let exe = compile("cablob", lib);
    let ca = pki().ca();
    let out = Exec::new(&exe)
        .args([url, ca.to_str().expect("utf-8")])
        .env("LD_LIBRARY_PATH", lib.dir())
        .env("CURL_SSL_BACKEND", backend)
        .run();
    let _ = std::fs::remove_file(&exe);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    out.stdout_str()
}

/// Our output with `backend` and the reference's (built with OpenSSL only), up to the SSL_CTX
/// part when `upto_ctx`, compared; returns ours whole.
fn compare(backend: &str, upto_ctx: bool) -> String {
    let s = ScriptedServer::start_tls(&Default::default());
    s.set_handler(|_| Reply::ok("x"));
    let url = format!("https://localhost:{}/", s.addr().port());
    let ours = run(Lib::Ours, backend, &url);
    let reference = run(Lib::Reference, backend, &url);
    let cut = |o: &str| match upto_ctx {
        true => o[..o.find("setopt ctx").unwrap_or(o.len())].to_string(),
        false => o.to_string(),
    };
    assert_eq!(cut(&ours), cut(&reference), "{backend}: ours vs reference");
    assert!(ours.contains("ca blob: rc=0 err=[]\n"), "{ours}");
    assert!(ours.contains("duplicate: rc=0 err=[]\n"), "{ours}");
    assert!(ours.contains("unset, CAINFO: rc=0 err=[]\n"), "{ours}");
    ours
}

#[test]
fn ca_blob_openssl_matches_reference() {
    let out = compare("openssl", false);
    assert!(
        out.contains("junk blob: rc=77 err=[error importing CA certificate blob]\n"),
        "{out}"
    );
    assert!(out.contains("setopt ctx function=0 data=0\n"), "{out}");
    assert!(
        out.contains("ctx callback error: rc=58 err=[error signaled by ssl ctx callback]\n"),
        "{out}"
    );
    // The first connection and the fresh one: the reused connection makes no context.
    assert!(out.contains("ctx calls=2\n"), "{out}");
}

#[test]
fn ca_blob_rustls_matches_reference() {
    let out = compare("rustls", true);
    assert!(
        out.contains("junk blob: rc=77 err=[error importing CA certificate blob]\n"),
        "{out}"
    );
    // No SSL_CTX to hand out: refused as curl built with rustls refuses it.
    assert!(
        out.ends_with("setopt ctx function=4 data=4\nctx calls=0\n"),
        "{out}"
    );
}
