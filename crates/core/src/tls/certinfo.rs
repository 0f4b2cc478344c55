//! curl's certificate information (`CURLOPT_CERTINFO`, the tool's `%{certs}`): for each
//! certificate of the server's chain, a list of `Label:value` entries in the text layout of
//! curl's OpenSSL backend (`ossl_certchain`), whichever TLS backend made the connection.
//!
//! OpenSSL itself prints the parts it has printers for (object names, times, extension
//! values, PEM); names are printed here as `X509_NAME_print_ex(.., XN_FLAG_ONELINE)` does,
//! since the `openssl` crate has no binding for it. Never panics on hostile input: a
//! certificate OpenSSL cannot parse yields no entries.

use openssl::asn1::Asn1Object;
use openssl::nid::Nid;
use openssl::pkey::Id;
use openssl::x509::X509;

use super::x509::{children, oid_dotted, tlv, Cert, Tlv};

/// The certinfo entries of one DER certificate, in curl's order.
pub fn certinfo(der: &[u8]) -> Vec<String> {
    let (Ok(x), Some(c)) = (X509::from_der(der), Cert::parse(der)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.push(format!("Subject:{}", name_oneline(c.subject_raw)));
    out.push(format!("Issuer:{}", name_oneline(c.issuer_raw)));
    out.push(format!("Version:{:x}", x.version()));
    out.push(format!("Serial Number:{}", serial(&x)));
    let sig_alg = x.signature_algorithm().object();
    out.push(format!("Signature Algorithm:{}", object_name_of(sig_alg)));
    out.push(format!(
        "Public Key Algorithm:{}",
        object_name(c.key_algorithm_oid())
    ));
    out.extend(extensions(&x, &c));
    out.push(format!("Start date:{}", x.not_before()));
    out.push(format!("Expire date:{}", x.not_after()));
    out.extend(public_key(&x));
    let mut sig = String::from("Signature:");
    for b in x.signature().as_slice() {
        sig.push_str(&format!("{b:02x}:"));
    }
    out.push(sig);
    if let Ok(pem) = x.to_pem() {
        out.push(format!("Cert:{}", String::from_utf8_lossy(&pem)));
    }
    out
}

/// The serial number's content octets in hex, `-` first when negative.
fn serial(x: &X509) -> String {
    let Ok(bn) = x.serial_number().to_bn() else {
        return String::new();
    };
    let mut s = String::new();
    if bn.is_negative() {
        s.push('-');
    }
    let bytes = bn.to_vec();
    if bytes.is_empty() {
        s.push_str("00");
    }
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// An OID as `i2a_ASN1_OBJECT` prints it: OpenSSL's long name, else the dotted form.
fn object_name(oid: &[u8]) -> String {
    let dotted = oid_dotted(oid);
    match Asn1Object::from_str(&dotted) {
        Ok(o) => known_name(o.nid()).unwrap_or(dotted),
        Err(_) => dotted,
    }
}

fn object_name_of(o: &openssl::asn1::Asn1ObjectRef) -> String {
    match known_name(o.nid()) {
        Some(n) => n,
        // The crate's printer clamps at 79 characters; a long dotted OID is rare enough.
        None => o.to_string(),
    }
}

fn known_name(nid: Nid) -> Option<String> {
    if nid == Nid::UNDEF {
        return None;
    }
    nid.long_name()
        .or_else(|_| nid.short_name())
        .ok()
        .map(str::to_owned)
}

/// One entry per extension, `name:value`, the value as `X509V3_EXT_print` writes it with no
/// indent (or the raw contents when OpenSSL has no printer for it). OpenSSL's full text
/// dump prints the same values indented by 16; the values are cut out of that.
fn extensions(x: &X509, c: &Cert<'_>) -> Vec<String> {
    let exts = c.extensions();
    if exts.is_empty() {
        return Vec::new();
    }
    let Ok(text) = x.to_text() else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&text);
    let Some(start) = text.find("        X509v3 extensions:\n") else {
        return Vec::new();
    };
    let end = text
        .rfind("\n    Signature Algorithm: ")
        .filter(|&e| e >= start)
        .map_or(text.len(), |e| e + 1);
    let names: Vec<String> = exts.iter().map(|(oid, _)| object_name(oid)).collect();
    let headers: Vec<String> = names
        .iter()
        .zip(&exts)
        .map(|(n, (_, critical))| {
            let c = if *critical { "critical" } else { "" };
            format!("\n            {n}: {c}\n")
        })
        .collect();
    let mut out = Vec::new();
    let mut pos = start + "        X509v3 extensions:".len();
    for (i, h) in headers.iter().enumerate() {
        let Some(at) = text[pos..end].find(h.as_str()).map(|a| a + pos) else {
            break;
        };
        let vstart = at + h.len();
        let vend = match headers.get(i + 1) {
            Some(next) => text[vstart..end]
                .find(next.as_str())
                .map_or(end, |a| a + vstart),
            None => end.saturating_sub(1).max(vstart),
        };
        // The newline the dump adds after each value starts the next header (or the
        // signature's line after the last), so `value` is the value exactly.
        let value = &text[vstart..vend];
        out.push(format!("{}:{}", names[i], dedent(value, 16)));
        pos = vend;
    }
    out
}

/// Remove up to `n` leading spaces from every line.
fn dedent(s: &str, n: usize) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let spaces = line.bytes().take(n).take_while(|&b| b == b' ').count();
        out.push_str(&line[spaces..]);
    }
    out
}

/// RSA, DSA and DH keys' numbers as curl lists them; nothing for other key types.
fn public_key(x: &X509) -> Vec<String> {
    let Ok(k) = x.public_key() else {
        return Vec::new();
    };
    let bn = |label: &str, v: Option<&openssl::bn::BigNumRef>| {
        format!("{label}:{}", v.map(bn_print).unwrap_or_default())
    };
    match k.id() {
        Id::RSA => match k.rsa() {
            Ok(r) => vec![
                format!("RSA Public Key:{}", r.n().num_bits()),
                bn("rsa(n)", Some(r.n())),
                bn("rsa(e)", Some(r.e())),
            ],
            Err(_) => Vec::new(),
        },
        Id::DSA => match k.dsa() {
            Ok(d) => vec![
                bn("dsa(p)", Some(d.p())),
                bn("dsa(q)", Some(d.q())),
                bn("dsa(g)", Some(d.g())),
                bn("dsa(pub_key)", Some(d.pub_key())),
            ],
            Err(_) => Vec::new(),
        },
        Id::DH => match k.dh() {
            Ok(d) => vec![
                bn("dh(p)", Some(d.prime_p())),
                bn("dh(q)", d.prime_q()),
                bn("dh(g)", Some(d.generator())),
                bn("dh(pub_key)", Some(d.public_key())),
            ],
            Err(_) => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// `BN_print`: upper-case hex without leading zeros, `0` for zero, `-` when negative.
fn bn_print(v: &openssl::bn::BigNumRef) -> String {
    let Ok(hex) = v.to_hex_str() else {
        return String::new();
    };
    let (neg, digits) = match hex.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, &hex[..]),
    };
    let digits = digits.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    format!("{}{digits}", if neg { "-" } else { "" })
}

// Escape classes of OpenSSL's string printer (`char_type` in its charmap).
const ESC_2253: u8 = 0x01;
const ESC_CTRL: u8 = 0x02;
const ESC_QUOTE: u8 = 0x08;
const FIRST_ESC: u8 = 0x20;
const LAST_ESC: u8 = 0x40;
const ESC_2254: u16 = 0x400;

/// OpenSSL's class bits of an ASCII character.
fn char_type(c: u8) -> u16 {
    match c {
        0 => ESC_2254 | u16::from(ESC_CTRL),
        1..=0x1f | 0x7f => u16::from(ESC_CTRL),
        b' ' => u16::from(ESC_QUOTE | 0x10 | FIRST_ESC | LAST_ESC),
        b'"' | b'\\' => u16::from(ESC_2253),
        b'#' => u16::from(ESC_QUOTE | FIRST_ESC),
        b'+' | b',' => u16::from(ESC_2253 | ESC_QUOTE | 0x10),
        b';' | b'<' | b'>' => u16::from(ESC_2253 | ESC_QUOTE),
        _ => 0,
    }
}

/// A Name as `X509_NAME_print_ex(.., XN_FLAG_ONELINE)` prints it: `C = SE, O = Example,
/// CN = host`, multi-valued RDNs joined with ` + `, values escaped as RFC 2253 asks except
/// that values with separators in them are quoted rather than escaped.
pub fn name_oneline(name_der: &[u8]) -> String {
    let Some((name, _)) = tlv(name_der) else {
        return String::new();
    };
    let mut out = String::new();
    for (i, rdn) in children(name.body).enumerate() {
        for (j, atv) in children(rdn.body).enumerate() {
            if j > 0 {
                out.push_str(" + ");
            } else if i > 0 {
                out.push_str(", ");
            }
            let mut f = children(atv.body);
            let (Some(oid), Some(val)) = (f.next(), f.next()) else {
                continue;
            };
            let dotted = oid_dotted(oid.body);
            let field = Asn1Object::from_str(&dotted)
                .ok()
                .map(|o| o.nid())
                .filter(|&n| n != Nid::UNDEF)
                .and_then(|n| n.short_name().ok().map(str::to_owned))
                .unwrap_or(dotted);
            out.push_str(&field);
            out.push_str(" = ");
            push_value(&mut out, val);
        }
    }
    out
}

/// One attribute value, as OpenSSL's `do_print_ex` with `ASN1_STRFLGS_RFC2253 |
/// ASN1_STRFLGS_ESC_QUOTE` does.
fn push_value(out: &mut String, val: Tlv<'_>) {
    // Bytes per character for the string types; others are dumped as `#` and DER hex.
    let width = match val.tag {
        0x0c => 1, // UTF8String: printed byte by byte, as it is UTF-8 already
        0x12 | 0x13 | 0x14 | 0x16 | 0x17 | 0x18 | 0x1a => 1,
        0x1c => 4,
        0x1e => 2,
        _ => {
            out.push('#');
            for b in val.whole {
                out.push_str(&format!("{b:02X}"));
            }
            return;
        }
    };
    if !val.body.len().is_multiple_of(width) {
        return;
    }
    let convert = val.tag != 0x0c;
    let chars: Vec<u32> = val
        .body
        .chunks_exact(width)
        .map(|c| c.iter().fold(0u32, |a, &b| (a << 8) | u32::from(b)))
        .collect();
    let mut body = String::new();
    let mut quotes = false;
    let n = chars.len();
    for (k, &c) in chars.iter().enumerate() {
        let mut pos = 0;
        if k == 0 {
            pos = FIRST_ESC;
        }
        if k + 1 == n {
            pos = LAST_ESC;
        }
        if convert && c > 0x7f {
            let mut buf = [0u8; 4];
            let s = char::from_u32(c)
                .unwrap_or('\u{fffd}')
                .encode_utf8(&mut buf);
            for &b in s.as_bytes() {
                esc_char(&mut body, b, 0, &mut quotes);
            }
        } else {
            esc_char(&mut body, c as u8, pos, &mut quotes);
        }
    }
    if quotes {
        out.push('"');
        out.push_str(&body);
        out.push('"');
    } else {
        out.push_str(&body);
    }
}

/// OpenSSL's `do_esc_char` for one byte under the one-line flags.
fn esc_char(out: &mut String, c: u8, pos: u8, quotes: &mut bool) {
    let flags = u16::from(ESC_2253 | ESC_CTRL | ESC_QUOTE | pos) | 0x04;
    if c > 0x7f {
        out.push_str(&format!("\\{c:02X}"));
        return;
    }
    let ch = char_type(c) & flags;
    if ch & u16::from(ESC_2253 | FIRST_ESC | LAST_ESC) != 0 {
        if ch & u16::from(ESC_QUOTE) != 0 {
            *quotes = true;
            out.push(c as char);
        } else {
            out.push('\\');
            out.push(c as char);
        }
        return;
    }
    if ch & (u16::from(ESC_CTRL) | ESC_2254) != 0 {
        out.push_str(&format!("\\{c:02X}"));
        return;
    }
    if c == b'\\' {
        out.push_str("\\\\");
        return;
    }
    out.push(c as char);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An attribute: type OID contents, string tag, value.
    type Atv<'a> = (&'a [u8], u8, &'a [u8]);

    fn name(atvs: &[&[Atv<'_>]]) -> Vec<u8> {
        let enc = |tag: u8, body: &[u8]| {
            let mut v = vec![tag, body.len() as u8];
            v.extend_from_slice(body);
            v
        };
        let mut rdns = Vec::new();
        for rdn in atvs {
            let mut set = Vec::new();
            for (oid, tag, val) in *rdn {
                let mut atv = enc(0x06, oid);
                atv.extend(enc(*tag, val));
                set.extend(enc(0x30, &atv));
            }
            rdns.extend(enc(0x31, &set));
        }
        enc(0x30, &rdns)
    }

    const CN: &[u8] = &[0x55, 0x04, 0x03];
    const O: &[u8] = &[0x55, 0x04, 0x0a];

    #[test]
    fn names_print_like_openssl_oneline() {
        let n = name(&[&[(O, 0x13, b"Example")], &[(CN, 0x0c, b"host")]]);
        assert_eq!(name_oneline(&n), "O = Example, CN = host");
        let n = name(&[&[(O, 0x0c, b"a"), (CN, 0x0c, b"b")]]);
        assert_eq!(name_oneline(&n), "O = a + CN = b");
        // Separators quote the value; quote and backslash are escaped.
        let n = name(&[&[(CN, 0x0c, b"a, b")], &[(O, 0x0c, b"x\"y\\z")]]);
        assert_eq!(name_oneline(&n), "CN = \"a, b\", O = x\\\"y\\\\z");
        // Leading or trailing space quotes; inner space does not; '#' only first.
        let n = name(&[&[(CN, 0x0c, b" a b")], &[(O, 0x0c, b"#1#")]]);
        assert_eq!(name_oneline(&n), "CN = \" a b\", O = \"#1#\"");
        // Bytes above 0x7f and controls are hex escaped; BMP is converted to UTF-8 first.
        let n = name(&[&[(CN, 0x0c, "é\n".as_bytes())], &[(O, 0x1e, &[0, 0xe9])]]);
        assert_eq!(name_oneline(&n), "CN = \\C3\\A9\\0A, O = \\C3\\A9");
        // Unknown attribute types by number; unknown string types dumped as DER.
        let n = name(&[&[(&[0x2a, 0x03], 0x04, &[1, 2])]]);
        assert_eq!(name_oneline(&n), "1.2.3 = #04020102");
    }

    /// Certificates made with `openssl req` (an RSA key, a negative serial, names needing
    /// quotes and escapes, multi-line and unknown extensions; a multi-valued RDN; a v1
    /// certificate with BMPString names; Ed25519), each with the `%{certs}` text curl 8.14.1
    /// printed for a server presenting it.
    #[test]
    fn certificates_print_as_curl_printed_them() {
        let cases = [
            (
                include_str!("testdata/certinfo-rsa.pem"),
                include_str!("testdata/certinfo-rsa.txt"),
            ),
            (
                include_str!("testdata/certinfo-m.pem"),
                include_str!("testdata/certinfo-m.txt"),
            ),
            (
                include_str!("testdata/certinfo-b.pem"),
                include_str!("testdata/certinfo-b.txt"),
            ),
            (
                include_str!("testdata/certinfo-e.pem"),
                include_str!("testdata/certinfo-e.txt"),
            ),
        ];
        for (pem, curl) in cases {
            let der = X509::from_pem(pem.as_bytes()).unwrap().to_der().unwrap();
            // The tool's layout: an entry a line, the PEM without its label.
            let mut text = String::new();
            for e in certinfo(&der) {
                text.push_str(e.strip_prefix("Cert:").unwrap_or(&e));
                if !text.ends_with('\n') {
                    text.push('\n');
                }
            }
            assert_eq!(text, curl);
        }
    }

    #[test]
    fn garbage_gives_nothing() {
        assert!(certinfo(b"").is_empty());
        assert!(certinfo(&[0x30, 0x03, 0x02, 0x01, 0x00]).is_empty());
        assert_eq!(name_oneline(&[0x30, 0x80]), "");
    }

    #[test]
    fn bignums_print_like_bn_print() {
        let v = openssl::bn::BigNum::from_u32(65537).unwrap();
        assert_eq!(bn_print(&v), "10001");
        let v = openssl::bn::BigNum::from_u32(0).unwrap();
        assert_eq!(bn_print(&v), "0");
    }
}
