//! `--pinnedpubkey`: the server's public key (its SubjectPublicKeyInfo DER) must equal a key
//! from a PEM or DER file, or hash to one of the `sha256//BASE64` values given.

/// Does `spki` satisfy the pin?
pub fn matches(pin: &str, spki: &[u8]) -> bool {
    if spki.is_empty() {
        return false;
    }
    if pin.starts_with("sha256//") {
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, spki);
        let ours = crate::transfer::base64(digest.as_ref());
        return pin
            .split(';')
            .filter_map(|p| p.trim().strip_prefix("sha256//"))
            .any(|p| p == ours);
    }
    let Ok(data) = std::fs::read(pin) else {
        return false;
    };
    key_der(&data).is_some_and(|k| k == spki)
}

/// The DER of a `PUBLIC KEY` PEM file, or the file itself when it is not PEM.
fn key_der(data: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(data).ok();
    let Some(text) = text.filter(|t| t.contains("-----BEGIN PUBLIC KEY-----")) else {
        return Some(data.to_vec());
    };
    let start = text.find("-----BEGIN PUBLIC KEY-----")? + "-----BEGIN PUBLIC KEY-----".len();
    let end = text[start..].find("-----END PUBLIC KEY-----")? + start;
    base64_decode(&text[start..end])
}

/// Standard base64, whitespace ignored.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            b' ' | b'\t' | b'\r' | b'\n' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVs\nbG8h").unwrap(), b"hello!");
        assert!(base64_decode("a*b").is_none());
    }

    #[test]
    fn sha256_pins() {
        let spki = b"not really a key";
        let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, spki);
        let pin = format!(
            "sha256//AAAA;sha256//{}",
            crate::transfer::base64(d.as_ref())
        );
        assert!(matches(&pin, spki));
        assert!(!matches("sha256//AAAA", spki));
        assert!(!matches(&pin, b""));
    }
}
