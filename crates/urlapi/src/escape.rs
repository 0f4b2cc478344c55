//! Percent-encoding and -decoding as curl's `lib/escape.c` does them: `Curl_urldecode` with
//! its three rejection modes and `curl_easy_escape`'s unreserved set. The one implementation
//! for the URL parser, the engine (credentials, file paths) and libcurl's
//! `curl_easy_(un)escape`; `oxcurl_core::codec` re-exports it beside base64 and hex.

/// What `Curl_urldecode` refuses in the decoded result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reject {
    /// Nothing (`REJECT_NADA`).
    Nothing,
    /// Any byte below 0x20 (`REJECT_CTRL`).
    Ctrl,
    /// A zero byte (`REJECT_ZERO`).
    Zero,
}

/// The value of one hex digit.
pub fn hexval(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// `Curl_urldecode`: `%XX` with two hex digits becomes that byte; anything else, a lone or
/// short `%` included, is kept as it is. None when the result holds a byte `reject` refuses
/// (curl's `CURLE_URL_MALFORMAT`), encoded or not.
pub fn urldecode(s: &[u8], reject: Reject) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let mut c = s[i];
        i += 1;
        if c == b'%' && i + 1 < s.len() {
            if let (Some(hi), Some(lo)) = (hexval(s[i]), hexval(s[i + 1])) {
                c = hi << 4 | lo;
                i += 2;
            }
        }
        let refused = match reject {
            Reject::Nothing => false,
            Reject::Ctrl => c < 0x20,
            Reject::Zero => c == 0,
        };
        if refused {
            return None;
        }
        out.push(c);
    }
    Some(out)
}

/// RFC 3986's unreserved characters, which curl never encodes.
pub fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')
}

/// Append `%XX` for `c`, in upper or lower case hex.
pub fn push_pct(out: &mut Vec<u8>, c: u8, upper: bool) {
    let digits: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    out.extend_from_slice(&[
        b'%',
        digits[usize::from(c >> 4)],
        digits[usize::from(c & 15)],
    ]);
}

/// `curl_easy_escape`: everything but unreserved characters, upper case hex.
pub fn easy_escape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if is_unreserved(c) {
            out.push(c);
        } else {
            push_pct(&mut out, c, true);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_as_curl() {
        let d = |s: &str, r| urldecode(s.as_bytes(), r);
        assert_eq!(d("a%41%4a%2", Reject::Nothing).unwrap(), b"aAJ%2");
        assert_eq!(d("%zz%", Reject::Nothing).unwrap(), b"%zz%");
        assert_eq!(d("%41", Reject::Ctrl).unwrap(), b"A");
        assert_eq!(d("a%0ab", Reject::Ctrl), None);
        assert_eq!(d("a%0ab", Reject::Zero).unwrap(), b"a\nb");
        assert_eq!(d("a%00", Reject::Zero), None);
        assert_eq!(urldecode(b"a\0", Reject::Zero), None);
        assert_eq!(urldecode(b"a\0", Reject::Nothing).unwrap(), b"a\0");
    }

    #[test]
    fn escapes_as_curl() {
        assert_eq!(easy_escape(b"a b/~\xff"), b"a%20b%2F~%FF");
        let mut v = Vec::new();
        push_pct(&mut v, 0xab, false);
        assert_eq!(v, b"%ab");
    }
}
