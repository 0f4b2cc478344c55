//! Fuzz the tool's `Retry-After` parser and retry decision (`crates/tool/src/retry.rs`,
//! compiled in here since the tool is a binary): no panics, never more than curl's six-hour
//! cap, and a retry never waits less than a second.
#![no_main]

use std::time::Instant;

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/tool/src/retry.rs"]
#[allow(dead_code)]
mod retry;

fuzz_target!(|data: &[u8]| {
    let value = String::from_utf8_lossy(data);
    let secs = retry::parse_retry_after(&value, 1_700_000_000);
    assert!(secs <= 21600);
    let cfg = retry::RetryConfig {
        retries: 3,
        max_time: u64::from(data.first().copied().unwrap_or(0)),
        ..Default::default()
    };
    let now = Instant::now();
    let mut st = retry::RetryState::new(&cfg, now);
    let o = retry::Outcome {
        code: None,
        message: "",
        fail_on_error: false,
        scheme: "http",
        response_code: 503,
        retry_after: secs,
    };
    if let retry::Decision::Retry { delay, .. } = retry::decide(&cfg, &mut st, &o, now) {
        assert!(delay.as_secs() >= 1);
    }
});
