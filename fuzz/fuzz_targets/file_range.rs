//! Fuzz the file:// planning: arbitrary ranges, resume points and sizes never panic, a plan
//! never starts past the file's end, and a decoded path never holds a zero byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::file::{decode_path, parse_range, plan};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(p) = decode_path(&text) {
        assert!(!p.contains(&0));
    }
    let _ = parse_range(&text);
    let size = data.len() as u64 * 997;
    let resume = data.first().map_or(0, |b| i64::from(*b) - 128);
    for s in [Some(size), None] {
        if let Ok(p) = plan(resume, Some(&text), s, 4096) {
            if let Some(n) = s {
                assert!(p.start <= n, "{p:?} past {n}");
            } else {
                assert_eq!(p.start, 0);
            }
        }
    }
});
