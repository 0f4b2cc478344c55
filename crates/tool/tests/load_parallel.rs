//! Load: thousands of transfers through one multi (`-Z --parallel-max 200`) against nginx
//! serving distinct small files; every byte checked, and memory bounded independently of the
//! number of URLs. 10,000 transfers take about 1 s in a debug build.

use std::time::Duration;

use oxcurl_testsupport::hostile::AllocReport;
use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{Exec, Nginx, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// The distinct contents of file `i`: a header naming it and a body whose length and bytes
/// depend on `i`.
fn contents(i: usize) -> Vec<u8> {
    let mut v = format!("file {i}\n").into_bytes();
    v.extend((0..(i * 7919) % 1500).map(|k| b'a' + ((i + k) % 26) as u8));
    v
}

struct Run {
    heap_peak: Option<u64>,
    rss_kib: Option<u64>,
    elapsed: Duration,
}

fn run(n: usize) -> Run {
    let root = TempDir::new("load-root");
    for i in 1..=n {
        std::fs::write(root.join(format!("f{i}")), contents(i)).unwrap();
    }
    let nginx = Nginx::start(root.path());
    let out = TempDir::new("load-out");
    let report = out.join("allocs.txt");
    let o = Exec::new(under_test(OXCURL))
        .args([
            "-q",
            "-s",
            "-S",
            "-Z",
            "--parallel-max",
            "200",
            "--create-dirs",
        ])
        .arg("-o")
        .arg(out.join("got/f#1"))
        .arg(format!("{}/f[1-{n}]", nginx.url()))
        .env("OXCURL_ALLOCCOUNT", &report)
        .timeout(Duration::from_secs(240))
        .run();
    assert_eq!(o.code, Some(0), "{}: {}", o.status_text(), o.stderr_str());
    for i in 1..=n {
        let got = std::fs::read(out.join(format!("got/f{i}")))
            .unwrap_or_else(|e| panic!("transfer {i} wrote no file: {e}"));
        assert!(got == contents(i), "transfer {i}: wrong bytes");
    }
    Run {
        heap_peak: AllocReport::read(&report).map(|a| a.peak),
        rss_kib: o.peak_rss_kib,
        elapsed: o.elapsed,
    }
}

#[test]
fn parallel_transfers_every_byte_checked_memory_bounded() {
    let n = 10_000;
    let small = run(400);
    let big = run(n);
    eprintln!(
        "400 transfers: {:?}, heap peak {:?}, RSS {:?} KiB; {n} transfers: {:?}, heap peak {:?}, RSS {:?} KiB",
        small.elapsed, small.heap_peak, small.rss_kib, big.elapsed, big.heap_peak, big.rss_kib
    );
    // Both keep 200 transfers in flight: memory follows that, not the URL count.
    if let (Some(s), Some(b)) = (small.heap_peak, big.heap_peak) {
        assert!(
            b <= s + s / 2 + (1 << 20),
            "heap peak grew with the URL count: {s} bytes for 400, {b} for {n}"
        );
    } else if cfg!(feature = "alloc-count") {
        panic!("no allocation report written");
    }
    if let (Some(s), Some(b)) = (small.rss_kib, big.rss_kib) {
        assert!(
            b <= s * 2 + 8 * 1024,
            "peak RSS grew with the URL count: {s} KiB for 400, {b} KiB for {n}"
        );
    }
}
