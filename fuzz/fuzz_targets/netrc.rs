//! Fuzz the `.netrc` reader and parser: any file and host never panic, the loaded text stays
//! within curl's 128 KiB, and a found login for a named user is that user.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::auth::netrc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = netrc::load(data) else {
        return;
    };
    assert!(text.len() < 128 * 1024);
    let _ = netrc::lookup(&text, "example.com", None);
    if let Ok((login, _)) = netrc::lookup(&text, "example.com", Some("bob")) {
        assert_eq!(login, "bob");
    }
    // The raw bytes too, as a caller might hand them over without loading.
    let _ = netrc::lookup(data, "example.com", None);
});
