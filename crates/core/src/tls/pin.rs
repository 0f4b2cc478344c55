//! `--pinnedpubkey`: the server's public key (its SubjectPublicKeyInfo DER) must equal a key
//! from a PEM or DER file, or hash to one of the `sha256//BASE64` values given.

/// Does `spki` satisfy the pin?
pub fn matches(pin: &str, spki: &[u8]) -> bool {
    if spki.is_empty() {
        return false;
    }
    if pin.starts_with("sha256//") {
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, spki);
        let ours = crate::codec::base64(digest.as_ref());
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
pub fn key_der(data: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(data).ok();
    let Some(text) = text.filter(|t| t.contains("-----BEGIN PUBLIC KEY-----")) else {
        return Some(data.to_vec());
    };
    let start = text.find("-----BEGIN PUBLIC KEY-----")? + "-----BEGIN PUBLIC KEY-----".len();
    let end = text[start..].find("-----END PUBLIC KEY-----")? + start;
    crate::codec::base64_decode(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_pins() {
        let spki = b"not really a key";
        let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, spki);
        let pin = format!("sha256//AAAA;sha256//{}", crate::codec::base64(d.as_ref()));
        assert!(matches(&pin, spki));
        assert!(!matches("sha256//AAAA", spki));
        assert!(!matches(&pin, b""));
    }
}
