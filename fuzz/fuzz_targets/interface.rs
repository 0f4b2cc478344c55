//! Fuzz `--interface` parsing (`connect::parse_interface`, curl's `Curl_parse_interface`):
//! any value is read without panicking, and what it names is exactly the value less its
//! prefix (`if!`, `host!`, `ifhost!IFACE!HOST`), or the plain value as both.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::connect::parse_interface;

fuzz_target!(|data: &[u8]| {
    let v = String::from_utf8_lossy(data);
    let b = parse_interface(&v);
    let rebuilt = match (b.iface_given, b.host_given) {
        (true, true) => format!("ifhost!{}!{}", b.iface.unwrap(), b.host.unwrap()),
        (true, false) => {
            assert!(b.host.is_none());
            format!("if!{}", b.iface.unwrap())
        }
        (false, true) => {
            assert!(b.iface.is_none());
            format!("host!{}", b.host.unwrap())
        }
        (false, false) => {
            assert_eq!(b.iface, b.host);
            b.iface.unwrap().to_string()
        }
    };
    assert_eq!(rebuilt, v);
});
