//! Idle easy handles are cheap: an application may keep a thousand of them (libcurl users do,
//! one per pending request) and pay for settings only. Receive buffers exist only while a
//! transfer runs, so a handle that has finished its transfer holds none.
//!
//! Measured with the counting allocator (requested bytes, as curl's memanalyze counts them).

use std::sync::Mutex;

use oxcurl_core::easy::Easy;
use oxcurl_core::options::{NullCallbacks, Options};
use oxcurl_sys::alloc::{enable, reset_peak, stats, CountingAlloc};
use oxcurl_testsupport::{Reply, ScriptedServer};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The counters are process-wide: one measurement at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn handle(url: &str) -> Easy {
    let opts = Options {
        url: Some(url.to_string()),
        ..Options::default()
    };
    Easy::new(opts, Box::new(NullCallbacks))
}

#[test]
fn thousand_idle_easy_handles_stay_under_2_kib_each() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    enable();
    let urls: Vec<String> = (0..1000)
        .map(|i| format!("http://127.0.0.1:1/file/{i:04}"))
        .collect();
    // Boxed, as libcurl hands out its handles: each one's own size counts.
    let mut handles: Vec<Box<Easy>> = Vec::with_capacity(1000);
    let before = stats().live_bytes;
    reset_peak();
    for u in &urls {
        handles.push(Box::new(handle(u)));
    }
    let peak = stats().peak_bytes - before;
    let per_handle = peak / 1000;
    eprintln!(
        "1000 idle easy handles: peak +{peak} bytes ({per_handle} per handle; Easy is {} bytes)",
        std::mem::size_of::<Easy>()
    );
    assert!(
        peak < 1000 * 2048,
        "1000 idle easy handles peaked at +{peak} bytes, {per_handle} per handle"
    );
    drop(handles);
}

#[test]
fn a_handle_idle_after_its_transfer_keeps_no_receive_buffer() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    enable();
    const N: usize = 10;
    let srv = ScriptedServer::with_replies((0..N).map(|_| Reply::big(256 << 10)).collect());
    let url = format!("{}/big", srv.url());
    let mut handles: Vec<Easy> = (0..N).map(|_| handle(&url)).collect();
    let before = stats().live_bytes;
    reset_peak();
    for h in &mut handles {
        h.perform().expect("transfer");
    }
    let peak = stats().peak_bytes - before;
    let kept = stats().live_bytes.saturating_sub(before) / N;
    eprintln!("after one transfer each: {kept} bytes kept per handle; peak +{peak}");
    // The receive buffer is 100 KiB (curl's default CURLOPT_BUFFERSIZE, the tool's too): none
    // of it may stay with an idle handle. What does stay is the handle's connection cache.
    assert!(
        kept < 32 << 10,
        "{kept} bytes stay with each idle handle after its transfer"
    );
    // While transfers run one after another, only one receive buffer exists at a time.
    assert!(peak < 2 * (100 << 10) + N * (32 << 10), "peak +{peak}");
    drop(handles);
}
