//! Byte codecs the engine shares: base64 (curl's `lib/curlx/base64.c`), lower-case hex, the
//! LF-to-CRLF conversion of uploads (curl's `cr_lc_read`), and percent-decoding (curl's
//! `Curl_urldecode`, from `oxcurl_urlapi::escape`, the one implementation the URL parser
//! uses too). Pure functions, no I/O.

pub use oxcurl_urlapi::escape::{easy_escape, hexval, is_unreserved, urldecode, Reject};

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// curl's LF-to-CRLF reader (`cr_lc_read`, for `--crlf` and FTP's ASCII uploads) on one
/// piece read from the source: each LF not after a CR gets a CR before it, appended to
/// `out`; `prev_cr` carries the piece's last byte to the next. A piece without an LF is not
/// looked at, as in curl (it goes on as it is and `prev_cr` stays): false then, with
/// nothing appended.
pub fn lf_to_crlf(src: &[u8], prev_cr: &mut bool, out: &mut Vec<u8>) -> bool {
    if !src.contains(&b'\n') {
        return false;
    }
    for &b in src {
        if b == b'\n' && !*prev_cr {
            out.push(b'\r');
        }
        out.push(b);
        *prev_cr = b == b'\r';
    }
    true
}

/// Standard base64 (RFC 4648) with padding, as curl encodes credentials and values.
pub fn base64(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = u32::from(c[0]) << 16
            | u32::from(*c.get(1).unwrap_or(&0)) << 8
            | u32::from(*c.get(2).unwrap_or(&0));
        let sym = |shift: u32| char::from(B64[(n >> shift) as usize & 63]);
        s.push(sym(18));
        s.push(sym(12));
        s.push(if c.len() > 1 { sym(6) } else { '=' });
        s.push(if c.len() > 2 { sym(0) } else { '=' });
    }
    s
}

/// Standard base64 decoded, whitespace ignored and the input ending at the first `=`; None
/// for any other byte outside the alphabet.
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

/// Lower-case hex, as the Digest and SigV4 hashes are written.
pub fn hex(bytes: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(H[usize::from(b >> 4)]));
        s.push(char::from(H[usize::from(b & 15)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lf_to_crlf_as_curls_reader() {
        let mut prev = false;
        let mut out = Vec::new();
        assert!(lf_to_crlf(b"a\nb\r\nc\r", &mut prev, &mut out));
        assert_eq!(out, b"a\r\nb\r\nc\r");
        assert!(prev);
        out.clear();
        assert!(lf_to_crlf(b"\nx", &mut prev, &mut out));
        assert_eq!(out, b"\nx");
        // No LF: untouched, and the CR before it is not remembered.
        out.clear();
        let mut prev = false;
        assert!(!lf_to_crlf(b"ab\r", &mut prev, &mut out));
        assert!(out.is_empty() && !prev);
    }

    #[test]
    fn base64_vectors() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"us:pw"), "dXM6cHc=");
        for v in [&b""[..], b"f", b"fo", b"foo", b"\xff\x00\x10 binary"] {
            assert_eq!(base64_decode(&base64(v)).unwrap(), v);
        }
        assert_eq!(base64_decode("Zm9v\r\n YmFy").unwrap(), b"foobar");
        assert_eq!(base64_decode("Zm9v!"), None);
    }

    #[test]
    fn hex_lower() {
        assert_eq!(hex(b"\x00\xab\x7f"), "00ab7f");
    }
}
