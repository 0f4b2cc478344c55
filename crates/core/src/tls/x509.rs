//! Just enough X.509 DER reading for what curl shows and checks about a server certificate:
//! subject and issuer names in OpenSSL's one-line form, validity dates, subjectAltName
//! entries, the public key (type, size, and its DER for `--pinnedpubkey`) and the signature
//! algorithm. Chain validation is the TLS library's job; this only reads. Never panics on
//! hostile input: every accessor returns None for a malformed certificate.

/// One parsed DER element: tag, contents, and the whole encoding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tlv<'a> {
    pub(crate) tag: u8,
    pub(crate) body: &'a [u8],
    pub(crate) whole: &'a [u8],
}

/// Split the first element off `data`.
pub(crate) fn tlv(data: &[u8]) -> Option<(Tlv<'_>, &[u8])> {
    let tag = *data.first()?;
    if tag & 0x1f == 0x1f {
        return None; // multi-byte tags do not occur in certificates
    }
    let l0 = *data.get(1)? as usize;
    let (len, hdr) = if l0 < 0x80 {
        (l0, 2)
    } else {
        let n = l0 & 0x7f;
        if n == 0 || n > 4 {
            return None;
        }
        let mut len = 0usize;
        for i in 0..n {
            len = (len << 8) | *data.get(2 + i)? as usize;
        }
        (len, 2 + n)
    };
    let end = hdr.checked_add(len)?;
    if end > data.len() {
        return None;
    }
    Some((
        Tlv {
            tag,
            body: &data[hdr..end],
            whole: &data[..end],
        },
        &data[end..],
    ))
}

/// The elements of a constructed value.
pub(crate) fn children(mut data: &[u8]) -> impl Iterator<Item = Tlv<'_>> {
    std::iter::from_fn(move || {
        let (t, rest) = tlv(data)?;
        data = rest;
        Some(t)
    })
}

/// A certificate's fields, borrowed from its DER.
#[derive(Clone, Debug)]
pub struct Cert<'a> {
    pub issuer_raw: &'a [u8],
    pub subject_raw: &'a [u8],
    not_before: Tlv<'a>,
    not_after: Tlv<'a>,
    spki: Tlv<'a>,
    extensions: Option<&'a [u8]>,
    sig_alg: &'a [u8],
}

impl<'a> Cert<'a> {
    pub fn parse(der: &'a [u8]) -> Option<Cert<'a>> {
        let (cert, _) = tlv(der)?;
        if cert.tag != 0x30 {
            return None;
        }
        let mut top = children(cert.body);
        let tbs = top.next()?;
        let sig_alg_seq = top.next()?;
        let sig_alg = children(sig_alg_seq.body).next()?.body;
        let mut it = children(tbs.body).peekable();
        if it.peek()?.tag == 0xa0 {
            it.next();
        }
        let _serial = it.next()?;
        let _sig = it.next()?;
        let issuer = it.next()?;
        let validity = it.next()?;
        let subject = it.next()?;
        let spki = it.next()?;
        let mut extensions = None;
        for t in it {
            if t.tag == 0xa3 {
                extensions = Some(tlv(t.body)?.0.body);
            }
        }
        let mut v = children(validity.body);
        let not_before = v.next()?;
        let not_after = v.next()?;
        if issuer.tag != 0x30 || subject.tag != 0x30 || spki.tag != 0x30 {
            return None;
        }
        Some(Cert {
            issuer_raw: issuer.whole,
            subject_raw: subject.whole,
            not_before,
            not_after,
            spki,
            extensions,
            sig_alg,
        })
    }

    pub fn subject(&self) -> String {
        name_oneline(self.subject_raw)
    }
    pub fn issuer(&self) -> String {
        name_oneline(self.issuer_raw)
    }
    pub fn is_self_issued(&self) -> bool {
        self.issuer_raw == self.subject_raw
    }
    /// `Nov  3 11:28:23 2026 GMT`, as OpenSSL prints times.
    pub fn start_date(&self) -> String {
        time_text(&self.not_before).unwrap_or_default()
    }
    pub fn expire_date(&self) -> String {
        time_text(&self.not_after).unwrap_or_default()
    }
    /// The DER of the SubjectPublicKeyInfo (what `--pinnedpubkey` hashes).
    pub fn spki_der(&self) -> &'a [u8] {
        self.spki.whole
    }
    /// DNS names and IP addresses of the subjectAltName extension.
    pub fn alt_names(&self) -> Vec<AltName> {
        let mut out = Vec::new();
        let Some(exts) = self.extensions else {
            return out;
        };
        for ext in children(exts) {
            let mut f = children(ext.body);
            let Some(oid) = f.next() else { continue };
            if oid.body != [0x55, 0x1d, 0x11] {
                continue;
            }
            let Some(val) = f.find(|t| t.tag == 0x04) else {
                continue;
            };
            let Some((seq, _)) = tlv(val.body) else {
                continue;
            };
            for gn in children(seq.body) {
                match gn.tag {
                    0x82 => out.push(AltName::Dns(String::from_utf8_lossy(gn.body).into_owned())),
                    0x87 => {
                        if let Some(ip) = ip_from(gn.body) {
                            out.push(AltName::Ip(ip));
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }
    /// The extensions in certificate order: OID (contents octets) and the critical flag.
    pub fn extensions(&self) -> Vec<(&'a [u8], bool)> {
        let mut out = Vec::new();
        for ext in children(self.extensions.unwrap_or_default()) {
            let mut f = children(ext.body);
            let Some(oid) = f.next() else { continue };
            let critical = f.next().is_some_and(|t| t.tag == 0x01 && t.body != [0]);
            out.push((oid.body, critical));
        }
        out
    }
    /// The public key's algorithm OID (contents octets).
    pub fn key_algorithm_oid(&self) -> &'a [u8] {
        self.key_algorithm().0
    }
    /// The public key's algorithm OID and its parameters.
    fn key_algorithm(&self) -> (&'a [u8], Option<Tlv<'a>>) {
        let alg = children(self.spki.body).next();
        let mut a = alg.map(|alg| children(alg.body)).into_iter().flatten();
        let oid = a.next().map(|t| t.body).unwrap_or_default();
        (oid, a.next())
    }

    /// The last part of curl's `SSL connection using ...` line: the server's signature type
    /// as OpenSSL names it (RSA signs with PSS in TLS 1.3).
    pub fn signature_type(&self, tls13: bool) -> &'static str {
        match self.key_algorithm().0 {
            RSA_OID if tls13 => "RSASSA-PSS",
            RSA_OID => "rsaEncryption",
            EC_OID => "id-ecPublicKey",
            [0x2b, 0x65, 0x70] => "ED25519",
            _ => "unknown",
        }
    }

    /// curl's `Public key type EC/prime256v1 (256/128 Bits/secBits)` part.
    pub fn key_summary(&self) -> String {
        let (oid, param) = self.key_algorithm();
        let key = children(self.spki.body).nth(1);
        match oid {
            RSA_OID => {
                let bits = key.and_then(rsa_bits).unwrap_or(0);
                format!("RSA ({bits}/{} Bits/secBits)", rsa_sec_bits(bits))
            }
            EC_OID => {
                let curve = param.map(|p| p.body).unwrap_or_default();
                let (name, bits) = match curve {
                    [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07] => ("prime256v1", 256),
                    [0x2b, 0x81, 0x04, 0x00, 0x22] => ("secp384r1", 384),
                    [0x2b, 0x81, 0x04, 0x00, 0x23] => ("secp521r1", 521),
                    _ => ("unknown", 0),
                };
                format!("EC/{name} ({bits}/{} Bits/secBits)", ec_sec_bits(bits))
            }
            [0x2b, 0x65, 0x70] => "ED25519 (253/128 Bits/secBits)".into(),
            [0x2b, 0x65, 0x71] => "ED448 (456/224 Bits/secBits)".into(),
            _ => "unknown".into(),
        }
    }
    /// OpenSSL's long name of the signature algorithm.
    pub fn signature_name(&self) -> &'static str {
        match self.sig_alg {
            [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b] => "sha256WithRSAEncryption",
            [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c] => "sha384WithRSAEncryption",
            [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d] => "sha512WithRSAEncryption",
            [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05] => "sha1WithRSAEncryption",
            [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a] => "RSASSA-PSS",
            [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02] => "ecdsa-with-SHA256",
            [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03] => "ecdsa-with-SHA384",
            [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x04] => "ecdsa-with-SHA512",
            [0x2b, 0x65, 0x70] => "ED25519",
            [0x2b, 0x65, 0x71] => "ED448",
            _ => "unknown",
        }
    }
}

/// How curl's `-v` reports the name check (`subjectAltName: host "x" matched cert's "x"`),
/// or the common name fallback; None when nothing matches.
pub fn san_match(cert: &Cert<'_>, host: &str) -> Option<String> {
    let sans = cert.alt_names();
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return sans
            .contains(&AltName::Ip(ip))
            .then(|| format!("host \"{host}\" matched cert's IP address!"));
    }
    let dns: Vec<&str> = sans
        .iter()
        .filter_map(|a| match a {
            AltName::Dns(d) => Some(d.as_str()),
            AltName::Ip(_) => None,
        })
        .collect();
    if dns.is_empty() {
        let subject = cert.subject();
        let cn = subject.split("; ").find_map(|p| p.strip_prefix("CN="))?;
        return host_matches(cn, host).then(|| format!("common name: {cn} (matched)"));
    }
    dns.iter()
        .find(|p| host_matches(p, host))
        .map(|p| format!("host \"{host}\" matched cert's \"{p}\""))
}

/// curl's (OpenSSL backend) message for a certificate that does not name `host`: the
/// certificate has subjectAltNames and none matched, or it has none and the subject CN
/// did not match.
pub fn mismatch_message(cert: Option<&Cert<'_>>, host: &str) -> String {
    let kind = match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(_)) => "ipv4 address",
        Ok(std::net::IpAddr::V6(_)) => "ipv6 address",
        Err(_) => "hostname",
    };
    if let Some(cert) = cert.filter(|c| c.alt_names().is_empty()) {
        let subject = cert.subject();
        let cn = subject
            .split("; ")
            .find_map(|p| p.strip_prefix("CN="))
            .unwrap_or("");
        return format!(
            "SSL: certificate subject name '{cn}' does not match target hostname '{host}'"
        );
    }
    format!("SSL: no alternative certificate subject name matches target {kind} '{host}'")
}

/// curl's host name pattern match: case-insensitive, a leading `*.` wildcard covers exactly
/// one label and never a bare top-level domain.
pub fn host_matches(pattern: &str, host: &str) -> bool {
    let pattern = pattern.trim_end_matches('.');
    let host = host.trim_end_matches('.');
    if let Some(rest) = pattern.strip_prefix("*.") {
        if !rest.contains('.') {
            return false;
        }
        return match host.split_once('.') {
            Some((label, hrest)) => !label.is_empty() && hrest.eq_ignore_ascii_case(rest),
            None => false,
        };
    }
    pattern.eq_ignore_ascii_case(host)
}

const RSA_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const EC_OID: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];

/// A subjectAltName entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AltName {
    Dns(String),
    Ip(std::net::IpAddr),
}

fn ip_from(b: &[u8]) -> Option<std::net::IpAddr> {
    match b.len() {
        4 => Some(std::net::IpAddr::from(<[u8; 4]>::try_from(b).ok()?)),
        16 => Some(std::net::IpAddr::from(<[u8; 16]>::try_from(b).ok()?)),
        _ => None,
    }
}

fn rsa_bits(key: Tlv<'_>) -> Option<u32> {
    // BIT STRING: unused-bits byte, then RSAPublicKey SEQUENCE { modulus, exponent }.
    let inner = key.body.get(1..)?;
    let (seq, _) = tlv(inner)?;
    let modulus = children(seq.body).next()?;
    let m = modulus.body;
    let skip = m.iter().take_while(|&&b| b == 0).count();
    let m = &m[skip..];
    let first = *m.first()?;
    Some((m.len() as u32 - 1) * 8 + (8 - first.leading_zeros()))
}

/// NIST SP 800-57 security bits, as OpenSSL reports them.
fn rsa_sec_bits(bits: u32) -> u32 {
    match bits {
        b if b >= 15360 => 256,
        b if b >= 7680 => 192,
        b if b >= 3072 => 128,
        b if b >= 2048 => 112,
        b if b >= 1024 => 80,
        _ => 0,
    }
}

fn ec_sec_bits(bits: u32) -> u32 {
    match bits {
        521 => 256,
        384 => 192,
        256 => 128,
        _ => bits / 2,
    }
}

/// Short names OpenSSL prints for the attribute types certificates use.
fn attr_name(oid: &[u8]) -> Option<&'static str> {
    Some(match oid {
        [0x55, 0x04, 0x03] => "CN",
        [0x55, 0x04, 0x06] => "C",
        [0x55, 0x04, 0x07] => "L",
        [0x55, 0x04, 0x08] => "ST",
        [0x55, 0x04, 0x09] => "street",
        [0x55, 0x04, 0x0a] => "O",
        [0x55, 0x04, 0x0b] => "OU",
        [0x55, 0x04, 0x05] => "serialNumber",
        [0x55, 0x04, 0x2a] => "GN",
        [0x55, 0x04, 0x04] => "SN",
        [0x55, 0x04, 0x0c] => "title",
        [0x55, 0x04, 0x11] => "postalCode",
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01] => "emailAddress",
        [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x19] => "DC",
        [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x01] => "UID",
        _ => return None,
    })
}

/// Dotted form of an OID for types without a short name.
pub fn oid_dotted(oid: &[u8]) -> String {
    let mut out = String::new();
    let mut v: u64 = 0;
    for (i, &b) in oid.iter().enumerate() {
        v = (v << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if out.is_empty() && i < oid.len() {
                let (a, b) = if v < 80 {
                    (v / 40, v % 40)
                } else {
                    (2, v - 80)
                };
                out.push_str(&format!("{a}.{b}"));
            } else {
                out.push_str(&format!(".{v}"));
            }
            v = 0;
        }
    }
    out
}

/// A Name as OpenSSL's `X509_NAME_print_ex(.., XN_FLAG_SEP_SPLUS_SPC)` prints it:
/// `C=SE; O=Example; CN=host`, multi-valued RDNs joined with ` + `.
pub fn name_oneline(name_der: &[u8]) -> String {
    let Some((name, _)) = tlv(name_der) else {
        return String::new();
    };
    let mut out = String::new();
    for (i, rdn) in children(name.body).enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        for (j, atv) in children(rdn.body).enumerate() {
            if j > 0 {
                out.push_str(" + ");
            }
            let mut f = children(atv.body);
            let (Some(oid), Some(val)) = (f.next(), f.next()) else {
                continue;
            };
            match attr_name(oid.body) {
                Some(n) => out.push_str(n),
                None => out.push_str(&oid_dotted(oid.body)),
            }
            out.push('=');
            push_value(&mut out, val);
        }
    }
    out
}

fn push_value(out: &mut String, val: Tlv<'_>) {
    match val.tag {
        // BMPString: UTF-16BE.
        0x1e => {
            let units: Vec<u16> = val
                .body
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            out.push_str(&String::from_utf16_lossy(&units));
        }
        _ => {
            for &b in val.body {
                if (0x20..0x7f).contains(&b) {
                    out.push(b as char);
                } else {
                    out.push_str(&format!("\\{b:02X}"));
                }
            }
        }
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The broken-down time of a UTCTime or GeneralizedTime: (year, month 1-12, day, h, m, s).
pub fn time_fields(t: &[u8], generalized: bool) -> Option<(u32, u32, u32, u32, u32, u32)> {
    let digits = |s: &[u8]| -> Option<u32> {
        s.iter().try_fold(0u32, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
    };
    let (year, rest) = if generalized {
        (digits(t.get(..4)?)?, t.get(4..)?)
    } else {
        let y = digits(t.get(..2)?)?;
        (if y < 50 { 2000 + y } else { 1900 + y }, t.get(2..)?)
    };
    let mon = digits(rest.get(..2)?)?;
    let day = digits(rest.get(2..4)?)?;
    let h = digits(rest.get(4..6)?)?;
    let m = digits(rest.get(6..8)?)?;
    let s = digits(rest.get(8..10)?)?;
    if !(1..=12).contains(&mon) {
        return None;
    }
    Some((year, mon, day, h, m, s))
}

fn time_text(t: &Tlv<'_>) -> Option<String> {
    let (y, mo, d, h, mi, s) = time_fields(t.body, t.tag == 0x18)?;
    Some(format!(
        "{} {:2} {:02}:{:02}:{:02} {} GMT",
        MONTHS[(mo - 1) as usize],
        d,
        h,
        mi,
        s,
        y
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_bounded() {
        assert!(tlv(&[0x30, 0x82, 0xff, 0xff, 0x00]).is_none());
        assert!(tlv(&[0x30]).is_none());
        assert!(tlv(&[0x30, 0x80]).is_none());
        let (t, rest) = tlv(&[0x04, 0x01, 0xaa, 0x05]).unwrap();
        assert_eq!(t.body, &[0xaa]);
        assert_eq!(rest, &[0x05]);
    }

    #[test]
    fn names_print_like_openssl() {
        // SEQUENCE { SET { SEQ { CN, "a" } }, SET { SEQ { O, "b" }, SEQ { OU, "c" } } }
        let der = [
            0x30, 0x1e, 0x31, 0x0a, 0x30, 0x08, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x01, b'a',
            0x31, 0x11, 0x30, 0x07, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x0c, 0x01, 0x30, 0x06, 0x06,
            0x03, 0x55, 0x04, 0x0b,
        ];
        // Deliberately malformed tail: the printer stops where the encoding does.
        assert_eq!(name_oneline(&der), "CN=a");
        let good = [
            0x30, 0x1a, 0x31, 0x0a, 0x30, 0x08, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x01, b'a',
            0x31, 0x0c, 0x30, 0x0a, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x0c, 0x03, b'b', 0xc3, 0xa9,
        ];
        assert_eq!(name_oneline(&good), "CN=a; O=b\\C3\\A9");
    }

    #[test]
    fn times() {
        assert_eq!(
            time_fields(b"261123112823Z", false),
            Some((2026, 11, 23, 11, 28, 23))
        );
        assert_eq!(
            time_fields(b"20500101000000Z", true),
            Some((2050, 1, 1, 0, 0, 0))
        );
        assert_eq!(time_fields(b"26132311", false), None);
        let t = Tlv {
            tag: 0x17,
            body: b"261203010203Z",
            whole: b"",
        };
        assert_eq!(time_text(&t).unwrap(), "Dec  3 01:02:03 2026 GMT");
    }

    #[test]
    fn wildcards() {
        assert!(host_matches("*.example.com", "www.example.com"));
        assert!(host_matches("WWW.example.com.", "www.EXAMPLE.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(!host_matches("*.example.com", "a.b.example.com"));
        assert!(!host_matches("*.com", "example.com"));
    }

    #[test]
    fn oids() {
        assert_eq!(
            oid_dotted(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d]),
            "1.2.840.113549"
        );
        assert_eq!(oid_dotted(&[0x55, 0x04, 0x03]), "2.5.4.3");
    }

    #[test]
    fn garbage_never_panics() {
        let mut x: u32 = 12345;
        for len in 0..200 {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x = x.wrapping_mul(1103515245).wrapping_add(12345);
                    (x >> 16) as u8
                })
                .collect();
            if let Some(c) = Cert::parse(&data) {
                let _ = (c.subject(), c.issuer(), c.alt_names(), c.key_summary());
            }
            let _ = name_oneline(&data);
        }
    }
}
