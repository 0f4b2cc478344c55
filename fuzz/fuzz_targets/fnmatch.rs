//! Fuzz the wildcard matcher (glibc's `fnmatch(pattern, name, 0)` as curl uses it): no panics
//! for any pattern and name, and a name always matches itself with its special bytes
//! escaped, and `*`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::fnmatch::fnmatch;

fuzz_target!(|data: &[u8]| {
    let cut = data.first().map_or(0, |&c| usize::from(c)).min(data.len());
    let (pattern, name) = data.split_at(cut);
    let _ = fnmatch(pattern, name);
    let mut escaped = Vec::with_capacity(name.len() * 2);
    for &c in name {
        if b"*?[]\\".contains(&c) {
            escaped.push(b'\\');
        }
        escaped.push(c);
    }
    assert!(fnmatch(&escaped, name));
    assert!(fnmatch(b"*", name));
});
