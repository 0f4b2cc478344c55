//! Fuzz the `--resolve` and `--connect-to` entry parsers (`crates/core/src/dns.rs`): no
//! panics on any entry; a parsed `--resolve` entry has a host and, unless it removes one,
//! at least one address, all on its port; a `--connect-to` rule starting with "::" matches
//! any origin.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::dns;

fuzz_target!(|data: &[u8]| {
    let entry = String::from_utf8_lossy(data);
    if let Ok(Some((host, port, addrs))) = dns::parse_resolve(&entry) {
        assert!(!host.is_empty());
        assert!(addrs.iter().all(|a| a.port() == port));
        assert!(entry.starts_with('-') || !addrs.is_empty());
    }
    for (host, port) in [("example.com", 80), ("[::1]", 443), ("::1", 8080)] {
        let r = dns::connect_to_match(&entry, host, port);
        if entry.starts_with("::") {
            assert!(!matches!(r, Ok(None)), "{entry:?} must match");
        }
    }
});
