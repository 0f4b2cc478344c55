//! Numeric host handling: curl's IPv4 shorthand normalisation and the
//! IPv6 text <-> binary conversions (with glibc's `inet_pton`/`inet_ntop`
//! rules, which is what libcurl uses on Linux).

/// Parses an unsigned number like C `strtoul(s, &end, 0)` for a string that
/// starts with a digit. Returns the value (None on overflow of 64 bits) and
/// the number of bytes consumed.
fn strtoul_base0(s: &[u8]) -> (Option<u64>, usize) {
    // only a lower case "0x" prefix means hex to curl
    let (base, start) = if s.len() >= 2 && s[0] == b'0' && s[1] == b'x' {
        if s.get(2).is_some_and(|c| c.is_ascii_hexdigit()) {
            (16, 2)
        } else {
            // "0x" without hex digits: only the "0" is parsed
            return (Some(0), 1);
        }
    } else if s.first() == Some(&b'0') {
        (8, 0)
    } else {
        (10, 0)
    };
    let mut val: Option<u64> = Some(0);
    let mut i = start;
    while i < s.len() {
        let d = match (s[i] as char).to_digit(base) {
            Some(d) => d as u64,
            None => break,
        };
        val = val
            .and_then(|v| v.checked_mul(base as u64))
            .and_then(|v| v.checked_add(d));
        i += 1;
    }
    (val, i)
}

/// curl's `ipv4_normalize`: returns the dotted-quad form if `host` is a
/// (possibly shorthand, octal or hex) IPv4 address, otherwise None.
pub(crate) fn ipv4_normalize(host: &[u8]) -> Option<String> {
    let mut parts = [0u64; 4];
    let mut n = 0usize;
    let mut c = 0usize;
    loop {
        if !host.get(c).is_some_and(|b| b.is_ascii_digit()) {
            return None;
        }
        let (v, used) = strtoul_base0(&host[c..]);
        let v = v?;
        if v > u32::MAX as u64 {
            return None;
        }
        parts[n] = v;
        c += used;
        match host.get(c) {
            Some(b'.') => {
                if n == 3 {
                    return None;
                }
                n += 1;
                c += 1;
            }
            None => break,
            _ => return None,
        }
    }
    let quad = match n {
        0 => {
            let a = parts[0];
            [a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff]
        }
        1 => {
            if parts[0] > 0xff || parts[1] > 0xff_ffff {
                return None;
            }
            let b = parts[1];
            [parts[0], (b >> 16) & 0xff, (b >> 8) & 0xff, b & 0xff]
        }
        2 => {
            if parts[0] > 0xff || parts[1] > 0xff || parts[2] > 0xffff {
                return None;
            }
            [parts[0], parts[1], (parts[2] >> 8) & 0xff, parts[2] & 0xff]
        }
        _ => {
            if parts.iter().any(|&p| p > 0xff) {
                return None;
            }
            parts
        }
    };
    Some(format!("{}.{}.{}.{}", quad[0], quad[1], quad[2], quad[3]))
}

/// Strict dotted-quad parser as glibc's `inet_pton(AF_INET)`.
fn pton4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut octets = 0;
    let mut saw_digit = false;
    let mut cur: u32 = 0;
    for &ch in s {
        if ch.is_ascii_digit() {
            if saw_digit && cur == 0 {
                return None; // leading zero
            }
            cur = cur * 10 + (ch - b'0') as u32;
            if cur > 255 {
                return None;
            }
            if !saw_digit {
                octets += 1;
                if octets > 4 {
                    return None;
                }
                saw_digit = true;
            }
            out[octets - 1] = cur as u8;
        } else if ch == b'.' && saw_digit {
            if octets == 4 {
                return None;
            }
            cur = 0;
            saw_digit = false;
        } else {
            return None;
        }
    }
    if octets < 4 || !saw_digit {
        return None;
    }
    Some(out)
}

/// IPv6 text to binary, as glibc's `inet_pton(AF_INET6)`.
pub(crate) fn pton6(s: &[u8]) -> Option<[u8; 16]> {
    let mut out = [0u8; 16];
    let mut tp = 0usize;
    let mut colonp: Option<usize> = None;
    let mut i = 0usize;
    if s.first() == Some(&b':') {
        if s.get(1) != Some(&b':') {
            return None;
        }
        i = 1;
    }
    let mut curtok = i;
    let mut saw_xdigit = false;
    let mut val: u32 = 0;
    let mut ndigits = 0;
    while i < s.len() {
        let ch = s[i];
        i += 1;
        if let Some(d) = (ch as char).to_digit(16) {
            ndigits += 1;
            if ndigits > 4 {
                return None;
            }
            val = (val << 4) | d;
            saw_xdigit = true;
            continue;
        }
        if ch == b':' {
            curtok = i;
            if !saw_xdigit {
                if colonp.is_some() {
                    return None;
                }
                colonp = Some(tp);
                continue;
            } else if i >= s.len() {
                return None; // trailing single colon
            }
            if tp + 2 > 16 {
                return None;
            }
            out[tp] = (val >> 8) as u8;
            out[tp + 1] = val as u8;
            tp += 2;
            saw_xdigit = false;
            ndigits = 0;
            val = 0;
            continue;
        }
        if ch == b'.' && tp + 4 <= 16 {
            let v4 = pton4(&s[curtok..])?;
            out[tp..tp + 4].copy_from_slice(&v4);
            tp += 4;
            saw_xdigit = false;
            break;
        }
        return None;
    }
    if saw_xdigit {
        if tp + 2 > 16 {
            return None;
        }
        out[tp] = (val >> 8) as u8;
        out[tp + 1] = val as u8;
        tp += 2;
    }
    if let Some(cp) = colonp {
        if tp == 16 {
            return None;
        }
        let n = tp - cp;
        for k in 1..=n {
            out[16 - k] = out[cp + n - k];
            out[cp + n - k] = 0;
        }
        tp = 16;
    }
    if tp != 16 {
        return None;
    }
    Some(out)
}

/// IPv6 binary to text, as glibc's `inet_ntop(AF_INET6)`.
pub(crate) fn ntop6(a: &[u8; 16]) -> String {
    let words: Vec<u16> = (0..8)
        .map(|k| ((a[2 * k] as u16) << 8) | a[2 * k + 1] as u16)
        .collect();
    let (mut best_base, mut best_len) = (None::<usize>, 0usize);
    let (mut cur_base, mut cur_len) = (None::<usize>, 0usize);
    for (k, &w) in words.iter().enumerate() {
        if w == 0 {
            if cur_base.is_none() {
                cur_base = Some(k);
                cur_len = 1;
            } else {
                cur_len += 1;
            }
        } else if cur_base.is_some() {
            if best_base.is_none() || cur_len > best_len {
                best_base = cur_base;
                best_len = cur_len;
            }
            cur_base = None;
        }
    }
    if cur_base.is_some() && (best_base.is_none() || cur_len > best_len) {
        best_base = cur_base;
        best_len = cur_len;
    }
    if best_base.is_some() && best_len < 2 {
        best_base = None;
    }
    let mut out = String::new();
    let mut k = 0;
    while k < 8 {
        if let Some(b) = best_base {
            if k >= b && k < b + best_len {
                if k == b {
                    out.push(':');
                }
                k += 1;
                continue;
            }
        }
        if k != 0 {
            out.push(':');
        }
        if k == 6
            && best_base == Some(0)
            && (best_len == 6 || (best_len == 5 && words[5] == 0xffff))
        {
            out.push_str(&format!("{}.{}.{}.{}", a[12], a[13], a[14], a[15]));
            break;
        }
        out.push_str(&format!("{:x}", words[k]));
        k += 1;
    }
    if let Some(b) = best_base {
        if b + best_len == 8 {
            out.push(':');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4() {
        assert_eq!(ipv4_normalize(b"127.1").as_deref(), Some("127.0.0.1"));
        assert_eq!(ipv4_normalize(b"0x7f.1").as_deref(), Some("127.0.0.1"));
        assert_eq!(ipv4_normalize(b"2130706433").as_deref(), Some("127.0.0.1"));
        assert_eq!(ipv4_normalize(b"08"), None);
        assert_eq!(ipv4_normalize(b"0x"), None);
        assert_eq!(ipv4_normalize(b"1.2.3."), None);
    }

    #[test]
    fn v6() {
        let r = |s: &str| pton6(s.as_bytes()).map(|a| ntop6(&a));
        assert_eq!(r("::1").as_deref(), Some("::1"));
        assert_eq!(r("::").as_deref(), Some("::"));
        assert_eq!(r("1:0:0:2:0:0:0:3").as_deref(), Some("1:0:0:2::3"));
        assert_eq!(r("::ffff:c0a8:1").as_deref(), Some("::ffff:192.168.0.1"));
        assert_eq!(r("1:2:3:4:5:6:7::").as_deref(), Some("1:2:3:4:5:6:7:0"));
        assert_eq!(r("::1:2:3:4:5:6:7:8"), None);
        assert_eq!(r("1::2::3"), None);
        assert_eq!(r(":1::2"), None);
        assert_eq!(r("1::2:"), None);
        assert_eq!(r("::01.2.3.4"), None);
        assert_eq!(r("12345::1"), None);
    }
}
