//! Fuzz the URL glob parser of the tool (`crates/tool/src/glob.rs`, compiled in here since
//! the tool is a binary without a library). No panics; an error report keeps curl's shape
//! and size; a glob that parses expands to exactly as many URLs as it counts (checked up to
//! a cap, and past the end only where curl's numeric wrap-around cannot apply); `#N` output
//! names fill in without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/tool/src/glob.rs"]
#[allow(dead_code)]
mod glob;

/// Expansions walked per input, to keep each run short.
const CAP: i64 = 4096;

fn check(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    // What follows a NUL is used as an output name pattern.
    let (url, out) = input.split_once('\0').unwrap_or((&input, "f_#1_#2_#10_#"));
    match glob::Glob::parse(url) {
        Err(e) => {
            let r = e.report(url);
            assert!(r.starts_with(b"curl: (3) ") && r.ends_with(b"\n"));
            assert!(r.len() <= "curl: (3) ".len() + 511 + 1);
        }
        Ok(mut g) => {
            let count = g.count();
            assert!(count >= 0);
            for n in 0..count.min(CAP) {
                assert!(
                    g.next_url().is_some(),
                    "URL {n} of {count} missing for {url:?}"
                );
                let _ = g.match_output(out);
            }
            if count <= CAP && !g.may_wrap() {
                assert!(g.next_url().is_none(), "more than {count} URLs for {url:?}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| check(data));
