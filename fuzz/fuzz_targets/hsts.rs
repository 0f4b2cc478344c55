//! Fuzz the HSTS cache: arbitrary header values and file lines never panic, and a saved cache
//! reads back without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::hsts::Hsts;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut h = Hsts::default();
    let now = 1_795_000_000;
    for (i, line) in text.lines().enumerate() {
        let host = format!("h{}.example", i % 7);
        h.on_header(&host, line, now);
        // File lines as `Hsts::load` passes them on: blanks skipped, comments dropped.
        let file_line = line.trim_start_matches([' ', '\t']);
        if !file_line.starts_with('#') {
            h.add_file_line(file_line, now);
        }
        let _ = h.is_sts_host(&host, now);
    }
    let saved = h.to_file_text();
    let mut again = Hsts::default();
    for line in saved.lines() {
        if !line.starts_with('#') {
            again.add_file_line(line, now);
        }
    }
    // Reading the saved text back must not panic either. It need not give the same entries:
    // like curl, the saver writes host names and far-future dates the loader then refuses
    // (control bytes, quotes, years past 9999).
    let _ = again.to_file_text();
});
