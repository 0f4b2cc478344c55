//! Fuzz the `.netrc` parser: any file and host never panic, and a found login for a named
//! user is that user.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::auth::netrc;

fuzz_target!(|data: &[u8]| {
    let _ = netrc::lookup(data, "example.com", None);
    if let Ok((login, _)) = netrc::lookup(data, "example.com", Some("bob")) {
        assert_eq!(login, "bob");
    }
});
