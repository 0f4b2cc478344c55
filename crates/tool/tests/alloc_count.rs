//! Allocation accounting: the transfer loop allocates nothing per byte, so a 64 MiB HTTP/1.1
//! download makes exactly as many heap allocations as a 1 MiB one. Needs the `alloc-count`
//! feature (scripts/test.sh enables it).
#![cfg(feature = "alloc-count")]

use oxcurl_testsupport::under_test;
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
    let o = Exec::new(under_test(OXCURL))
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
    let o = Exec::new(under_test(OXCURL))
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

/// The peak live heap in an `OXCURL_ALLOCCOUNT` report.
fn report_peak(text: &str) -> u64 {
    text.split_whitespace()
        .skip_while(|w| *w != "peak")
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no peak in {text}"))
}

/// Issue 6: 300 small files (1-10 KiB, as the bench's `h2c-par50-1000`) multiplexed 50 at a
/// time on one h2c connection. A transfer waiting for its response reads the connection
/// only after the streams h2 woke took their frames, and then 16 KiB at a time, so h2 holds
/// a few frames rather than every response in flight (each frame keeping the read buffer it
/// came in alive). Debug build: 865 KiB, and 1350 KiB when every waiting transfer read 64 KiB
/// ahead (PERF.md, "HTTP/2 memory and allocations").
#[test]
fn h2_parallel_small_files_peak_heap() {
    let root = TempDir::new("h2-par-root");
    std::fs::create_dir(root.join("small")).unwrap();
    let mut want = Vec::new();
    let mut urls = Vec::new();
    let Some(nginx) = oxcurl_testsupport::Nginx::try_start_h2(root.path()) else {
        return;
    };
    for i in 1..=300usize {
        let len = 1024 + (i * 4099) % 9217;
        let body: Vec<u8> = (0..len).map(|j| (i * 31 + j * 7) as u8).collect();
        std::fs::write(root.join(format!("small/f{i:04}.bin")), &body).unwrap();
        want.extend_from_slice(&body);
        urls.push(format!("{}/small/f{i:04}.bin", nginx.url()));
    }
    let dir = TempDir::new("h2-par");
    let report = dir.join("allocs.txt");
    let o = Exec::new(under_test(OXCURL))
        .args([
            "-q",
            "-s",
            "--http2-prior-knowledge",
            "-Z",
            "--parallel-max",
            "50",
        ])
        .args(urls.iter().map(String::as_str))
        .env("OXCURL_ALLOCCOUNT", &report)
        .run();
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr_str());
    // In the order the transfers end: the same bytes, not necessarily in URL order.
    assert_eq!(o.stdout.len(), want.len(), "the 300 bodies");
    let (mut got, mut all) = (o.stdout.clone(), want);
    got.sort_unstable();
    all.sort_unstable();
    assert!(got == all, "the 300 bodies' bytes");
    let text = std::fs::read_to_string(&report).expect("report written");
    let peak = report_peak(&text);
    eprintln!("h2c, 300 files, -Z --parallel-max 50: {text}");
    assert!(
        peak < 1 << 20,
        "300 files, 50 streams at a time over h2c, peaked at {peak} bytes: {text}"
    );
}

/// nginx's response to the bench's `get-600B` (bench/bench.sh), header for header.
fn nginx_600b() -> Reply {
    Reply::raw(
        "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Mon, 23 Nov 2026 23:27:17 GMT\r\n\
         Content-Type: application/octet-stream\r\nContent-Length: 600\r\n\
         Last-Modified: Mon, 23 Nov 2026 23:09:57 GMT\r\nConnection: keep-alive\r\n\
         ETag: \"6b04c7c5-258\"\r\nAccept-Ranges: bytes\r\n\r\n",
    )
    .body([b'x'; 600])
}

/// Allocations plus reallocations (heapcount.so's rule) of `oxcurl -q -s -o /dev/null URL...`
/// for `n` GETs of the 600-byte page, all on one connection.
fn plain_get_allocs(n: usize) -> u64 {
    let srv = ScriptedServer::with_replies((0..n).map(|_| nginx_600b()).collect());
    let dir = TempDir::new("alloc-get");
    let report = dir.join("allocs.txt");
    let urls: Vec<String> = (0..n).map(|_| format!("{}/600B", srv.url())).collect();
    let o = Exec::new(under_test(OXCURL))
        .args(["-q", "-s", "-o", "/dev/null"])
        .args(urls.iter().map(String::as_str))
        .env("OXCURL_ALLOCCOUNT", &report)
        .run();
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr_str());
    assert_eq!(srv.requests().len(), n, "one request per URL");
    let text = std::fs::read_to_string(&report).expect("report written");
    let mut it = text.split_whitespace();
    let mut get = |k: &str| {
        assert_eq!(it.next(), Some(k), "{text}");
        it.next().unwrap().parse::<u64>().unwrap()
    };
    get("allocs") + get("reallocs")
}

/// Issue 6's goal: a plain GET makes fewer allocations than curl 8.14.1's 130 (bench:
/// `get-600B`). Counted here by the program itself (`OXCURL_ALLOCCOUNT`, which also counts
/// writing its report): 102 in a debug build, where heapcount.so counts 99 of a release one.
/// Counts are deterministic: the limit is the count, lowered with each saving and raised only
/// with a reason (docs/internals/PERF.md, "Own allocations for a plain GET").
#[test]
fn plain_get_allocations_stay_under_curls() {
    let n = plain_get_allocs(1);
    assert!(
        n <= 102,
        "a plain 600-byte GET made {n} allocations (limit 102)"
    );
}

/// Each further GET on the same connection costs what a request needs, not copies of the URL
/// per step: 41.2 (bench: `seq-100`, about 41 per request; curl: 82).
#[test]
fn sequential_gets_allocate_little_per_request() {
    let one = plain_get_allocs(1);
    let eleven = plain_get_allocs(11);
    let per_request = (eleven - one) as f64 / 10.0;
    assert!(
        per_request <= 42.0,
        "{per_request} allocations per further request ({one} for 1 GET, {eleven} for 11)"
    );
}
