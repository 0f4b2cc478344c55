//! Fuzz `--pinnedpubkey`'s key reading (`tls/pin.rs`) and the base64 decoder under it
//! (`codec`): a PEM or DER key file and any pin string never panic, a PEM made from any
//! bytes gives those bytes back, and a `sha256//` pin of a key's own hash matches it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::codec;
use oxcurl_core::tls::pin;

fuzz_target!(|data: &[u8]| {
    let _ = pin::key_der(data);
    let _ = codec::base64_decode(&String::from_utf8_lossy(data));
    // A PEM wrapping of the bytes, with its base64 cut into 64-column lines.
    let b64 = codec::base64(data);
    let lines: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let pem = format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
        lines.join("\n")
    );
    assert_eq!(pin::key_der(pem.as_bytes()).as_deref(), Some(data));
    // Pins as text: only sha256// forms are tried without a file.
    let text = String::from_utf8_lossy(data);
    if text.starts_with("sha256//") {
        let _ = pin::matches(&text, b"key");
    }
    if !data.is_empty() {
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(data);
        let own = format!("sha256//AAAA; sha256//{}", codec::base64(&digest));
        assert!(pin::matches(&own, data));
    }
});
