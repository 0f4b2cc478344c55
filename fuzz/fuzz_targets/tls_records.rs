//! Fuzz the user-space TLS record layer that takes over rustls sessions after the handshake
//! (`tls/record.rs`): no panics, and the bytes handed out and the way the stream ends do not
//! depend on how the input is split into reads. The first byte picks TLS 1.3 or 1.2, raw
//! bytes (header checks, decryption failures) or records sealed with the layer's test keys
//! (alerts, handshake messages joined across records, key updates, padding, empty records),
//! and the read size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::tls::record::{run_split as run, test_pair};

/// Records sealed from `data`: each is [type, length, padding] and that many bytes.
fn sealed(tls13: bool, mut data: &[u8]) -> Vec<u8> {
    let (_, mut s) = test_pair(tls13);
    let mut wire = Vec::new();
    while let [typ, len, pad, rest @ ..] = data {
        let n = usize::from(*len).min(rest.len());
        let typ = match typ % 5 {
            0 => 21,
            1 => 22,
            2 | 3 => 23,
            _ => *typ,
        };
        wire.extend(s.seal(typ, &rest[..n], usize::from(*pad % 4)));
        data = &rest[n..];
    }
    wire
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let tls13 = mode & 1 == 0;
    let wire = if mode & 2 == 0 {
        rest.to_vec()
    } else {
        sealed(tls13, rest)
    };
    let piece = usize::from(mode >> 2) + 1;
    let whole = run(tls13, &wire, usize::MAX);
    assert_eq!(whole, run(tls13, &wire, piece));
});
