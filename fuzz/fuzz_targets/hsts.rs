//! Fuzz the HSTS cache: arbitrary header values and file lines never panic, and a saved cache
//! reads back to the same entries (but those dated past year 9999, which curl drops too).
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
    // Reading back keeps every entry, except those whose expiry lies past what curl's date
    // parser reads (a max-age of centuries is saved as a year like 372360803, and curl drops
    // such a line on load just the same).
    let back = again.to_file_text();
    for line in back.lines() {
        assert!(saved.lines().any(|l| l == line), "{line:?} not in {saved:?}");
    }
    for line in saved.lines().filter(|l| !l.starts_with('#')) {
        let year_ok = line
            .rsplit_once(" \"")
            .is_some_and(|(_, d)| d.starts_with("unlimited") || d.find(' ') == Some(8));
        if year_ok {
            assert!(back.lines().any(|l| l == line), "{line:?} lost from {saved:?}");
        }
    }
});
