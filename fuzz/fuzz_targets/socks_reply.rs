//! Fuzz the SOCKS4/4a/5/5h handshakes with arbitrary proxy replies: no panics, the client
//! never asks for more than a bounded number of bytes, and it never asks to read while it
//! still has bytes to send.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::socks::{Socks, Target, Version};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, mut reply)) = data.split_first() else {
        return;
    };
    let version = match sel & 3 {
        0 => Version::Socks4,
        1 => Version::Socks4a,
        2 => Version::Socks5,
        _ => Version::Socks5h,
    };
    let target = if sel & 4 == 0 {
        Target::Name("example.com".into())
    } else if sel & 8 == 0 {
        Target::Ip("127.0.0.1".parse().unwrap())
    } else {
        Target::Ip("::1".parse().unwrap())
    };
    let creds = (sel & 16 != 0).then(|| ("user".to_string(), "pass".to_string()));
    let deferred = sel & 64 != 0 && matches!(version, Version::Socks5);
    let first = (!deferred).then(|| target.clone());
    let Ok(mut s) = Socks::new(version, first, "example.com", 443, creds, sel & 32 != 0) else {
        return;
    };
    while !s.is_done() {
        let n = s.output().len();
        s.sent(n);
        if s.needs_target() {
            if s.set_target(target.clone()).is_err() {
                return;
            }
            continue;
        }
        let want = s.want();
        assert!(want > 0 && want <= 300);
        if reply.len() < want {
            return;
        }
        if s.feed(&reply[..want]).is_err() {
            return;
        }
        reply = &reply[want..];
    }
});
