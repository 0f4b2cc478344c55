//! Fuzz the HTTP/1 to HTTP/2 request head conversion: no panics; a head it accepts yields
//! lower-case field names without connection-specific ones, and a shown head that converts
//! again to the same fields.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::h2::req::from_h1;

fuzz_target!(|data: &[u8]| {
    let Ok(h) = from_h1(data, |n, _| n == "expect") else {
        return;
    };
    for (n, _) in &h.fields {
        assert_eq!(n, &n.to_ascii_lowercase());
        assert!(!matches!(
            n.as_str(),
            "host" | "connection" | "transfer-encoding" | "upgrade" | "expect"
        ));
    }
    let again = from_h1(&h.shown, |_, _| false).expect("shown head parses");
    assert_eq!(again.fields, h.fields);
    assert_eq!(again.authority, h.authority);
});
