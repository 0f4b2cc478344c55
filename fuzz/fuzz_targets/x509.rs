//! Fuzz the certificate reader: arbitrary DER never panics, and what it reports stays within
//! the input (names, dates, alt names, the public key bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::tls::x509::{host_matches, name_oneline, san_match, Cert};

fuzz_target!(|data: &[u8]| {
    let _ = name_oneline(data);
    if let Some(c) = Cert::parse(data) {
        let spki = c.spki_der();
        assert!(spki.len() <= data.len());
        let _ = (c.subject(), c.issuer(), c.start_date(), c.expire_date());
        let _ = (c.key_summary(), c.signature_name(), c.is_self_issued());
        for name in c.alt_names() {
            let _ = name;
        }
        let _ = san_match(&c, "localhost");
        let _ = san_match(&c, "127.0.0.1");
    }
    if let Ok(s) = std::str::from_utf8(data) {
        if let Some((p, h)) = s.split_once('\n') {
            let _ = host_matches(p, h);
        }
    }
});
