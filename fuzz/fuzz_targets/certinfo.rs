//! Fuzz the certinfo formatter: arbitrary DER never panics, every entry is `Label:value`,
//! and the name printer stops where a malformed Name does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::tls::certinfo::{certinfo, name_oneline};

fuzz_target!(|data: &[u8]| {
    let _ = name_oneline(data);
    for entry in certinfo(data) {
        assert!(entry.contains(':'), "{entry}");
    }
});
