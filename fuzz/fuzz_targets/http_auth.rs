//! Fuzz the authentication challenge parsers: any `WWW-Authenticate` value never panics, and
//! a Digest answer built from whatever was accepted is well-formed (one line, quoted fields).
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::auth::{self, HostAuth, Request};

fuzz_target!(|data: &[u8]| {
    let mut a = HostAuth::new(auth::ANY);
    let req = Request {
        method: "GET",
        path: "/p?q",
        get_or_head: true,
        creds: Some(("u\"ser", "p\\w")),
        bearer: None,
        allowed: true,
        custom_header: false,
        aws: None,
    };
    let _ = a.output(&req, || [1; 12]);
    let mut notes = Vec::new();
    for value in data.split(|&b| b == b'\n') {
        a.input(value, &mut notes);
    }
    if a.act(401, true, false, true) {
        let out = a.output(&req, || [2; 12]);
        if let Some(h) = out.header {
            // Values come from single header lines: never a line break in the answer.
            assert!(!h.contains(&b'\n'));
        }
    }
    let mut n = auth::ntlm::Ntlm::default();
    if n.input(data).is_ok() {
        let _ = n.type3("dom\\user", "pw", [4; 8], 0);
    }
    let mut d = auth::digest::Digest::default();
    if d.input(data).is_ok() {
        let r = d.response(b"user", b"pw", "POST", b"/x", || [3; 12]);
        assert!(r.starts_with(b"username=\""));
    }
});
