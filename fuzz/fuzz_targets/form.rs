//! Fuzz `-F` argument parsing (`crates/tool/src/formparse.rs`, compiled in here since the
//! tool is a binary) and the multipart serializer: no panics; a parsed part serializes, and
//! when the body size is announced the reader yields exactly that many bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::mime::{Mime, MimePart, PartData};

#[path = "../../crates/tool/src/formparse.rs"]
#[allow(dead_code)]
mod formparse;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut form = formparse::Form::default();
    for (i, arg) in text.split('\n').enumerate() {
        // Keep stdin out of it: '@-' and '<-' would block on the fuzzer's stdin.
        if arg.contains("@-") || arg.contains("<-") {
            continue;
        }
        let mut warnings = Vec::new();
        let _ = form.add(arg, i % 3 == 2, &mut warnings);
    }
    // Files are not read here: only the in-memory parts are serialized.
    let mut parts = form.parts;
    unfile(&mut parts);
    let m = Mime {
        subtype: "form-data",
        boundary: "------------------------fuzzfuzzfuzzfuzzfuzz".into(),
        parts,
        backslash_escape: data.first().is_some_and(|b| b & 1 == 1),
    };
    let (mut r, size) = m.reader().expect("in-memory parts");
    let mut total = 0u64;
    let mut buf = [0u8; 977];
    loop {
        let n = r.read(&mut buf).expect("in-memory read");
        if n == 0 {
            break;
        }
        total += n as u64;
    }
    if let Some(s) = size {
        assert_eq!(s, total);
    }
});

/// Replace file data with bytes, at every level.
fn unfile(parts: &mut [MimePart]) {
    for p in parts {
        match &mut p.data {
            PartData::File(_) => p.data = PartData::Bytes(b"file".to_vec()),
            PartData::Multipart(m) => unfile(&mut m.parts),
            _ => {}
        }
    }
}
