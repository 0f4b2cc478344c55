//! Allocation accounting: the transfer loop allocates nothing per byte, so a 64 MiB HTTP/1.1
//! download makes exactly as many heap allocations as a 1 MiB one. Needs the `alloc-count`
//! feature (scripts/test.sh enables it).
#![cfg(feature = "alloc-count")]

use oxcurl_testsupport::{pki, Exec, Reply, ScriptedServer, TempDir, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn allocs_for(len: u64, out: &str) -> (u64, u64) {
    let srv = ScriptedServer::with_replies(vec![Reply::big(len)]);
    allocs_from(&srv, out)
}

fn allocs_from(srv: &ScriptedServer, out: &str) -> (u64, u64) {
    allocs_with_backend(srv, out, "rustls")
}

fn allocs_with_backend(srv: &ScriptedServer, out: &str, backend: &str) -> (u64, u64) {
    let dir = TempDir::new("alloc");
    let report = dir.join("allocs.txt");
    let outp = if out == "file" {
        dir.join("body").to_string_lossy().into_owned()
    } else {
        "/dev/null".into()
    };
    let o = Exec::new(OXCURL)
        .args([
            "-q",
            "-s",
            "--cacert",
            &pki().ca().to_string_lossy(),
            "-o",
            &outp,
            &format!("{}/big", srv.url()),
        ])
        .env("OXCURL_ALLOCCOUNT", &report)
        .env("CURL_SSL_BACKEND", backend)
        .run();
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr_str());
    let text = std::fs::read_to_string(&report).expect("report written");
    let mut it = text.split_whitespace();
    let mut get = |k: &str| {
        assert_eq!(it.next(), Some(k), "{text}");
        it.next().unwrap().parse::<u64>().unwrap()
    };
    let allocs = get("allocs");
    let reallocs = get("reallocs");
    (allocs, reallocs)
}

#[test]
fn download_64mib_allocates_as_much_as_1mib() {
    let small = allocs_for(1 << 20, "null");
    let big = allocs_for(64 << 20, "null");
    assert_eq!(
        small, big,
        "allocations (allocs, reallocs) for 1 MiB vs 64 MiB"
    );
    assert!(small.0 < 400, "a plain GET made {} allocations", small.0);
}

#[test]
fn download_to_file_64mib_allocates_as_much_as_1mib() {
    let small = allocs_for(1 << 20, "file");
    let big = allocs_for(64 << 20, "file");
    assert_eq!(
        small, big,
        "allocations (allocs, reallocs) for 1 MiB vs 64 MiB to a file"
    );
}

fn https_allocs(len: u64) -> (u64, u64) {
    https_allocs_with(len, "rustls")
}

fn https_allocs_with(len: u64, backend: &str) -> (u64, u64) {
    let srv = ScriptedServer::start_tls(&TlsServerOptions::default());
    srv.set_replies(vec![Reply::big(len)]);
    allocs_with_backend(&srv, "null", backend)
}

/// With rustls the session decrypts each record in place in its receive buffer (tls/record.rs):
/// nothing is allocated per record.
#[test]
fn https_download_16mib_allocates_as_much_as_1mib() {
    let small = https_allocs(1 << 20);
    let big = https_allocs(16 << 20);
    assert_eq!(
        small, big,
        "allocations (allocs, reallocs) for 1 MiB vs 16 MiB over TLS"
    );
}

/// With the OpenSSL backend `SSL_read` decrypts into the transfer's buffer: nothing is
/// allocated per record (counted: the program's own allocations; OpenSSL's are its own).
#[test]
fn https_openssl_download_16mib_allocates_as_much_as_1mib() {
    let small = https_allocs_with(1 << 20, "openssl");
    let big = https_allocs_with(16 << 20, "openssl");
    assert_eq!(
        small, big,
        "allocations (allocs, reallocs) for 1 MiB vs 16 MiB over OpenSSL"
    );
}

/// A looser bound over TLS with rustls, kept from before records were decrypted in place: at
/// most 66 allocations per MiB (one per 16 KiB record would be 64).
#[test]
fn https_download_allocations_are_bounded_per_record() {
    let small = https_allocs(1 << 20);
    let big = https_allocs(9 << 20);
    let per_mib = (big.0 - small.0) as f64 / 8.0;
    assert!(
        per_mib <= 66.0,
        "{per_mib} allocations per MiB over TLS ({small:?} vs {big:?})"
    );
}

/// HTTP/2 (h2c from nginx): memory stays bounded however large the body, and well under the
/// 1 MiB stream window: the mux reads a few frames at a time and the transfer takes them
/// before more are read, rather than h2 queueing all the socket has. h2 allocates per DATA
/// frame, so the count grows with the size (see HTTP2.md).
#[test]
fn h2_download_memory_is_bounded() {
    let root = TempDir::new("h2-alloc-root");
    std::fs::write(root.join("big.bin"), vec![7u8; 16 << 20]).unwrap();
    let Some(nginx) = oxcurl_testsupport::Nginx::try_start_h2(root.path()) else {
        return;
    };
    let dir = TempDir::new("h2-alloc");
    let report = dir.join("allocs.txt");
    let o = Exec::new(OXCURL)
        .args([
            "-q",
            "-s",
            "--http2-prior-knowledge",
            "-o",
            "/dev/null",
            &format!("{}/big.bin", nginx.url()),
        ])
        .env("OXCURL_ALLOCCOUNT", &report)
        .run();
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr_str());
    let text = std::fs::read_to_string(&report).expect("report written");
    let peak: u64 = text
        .split_whitespace()
        .skip_while(|w| *w != "peak")
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no peak in {text}"));
    assert!(
        peak < 512 << 10,
        "16 MiB over HTTP/2 peaked at {peak} bytes: {text}"
    );
}
