//! Host and domain helpers of the cookie engine: IP detection, tail matching, path matching,
//! path sanitizing, curl's domain hash and the public suffix check.

/// Number of hash buckets curl spreads cookies over (`COOKIE_HASH_SIZE`).
pub(crate) const COOKIE_HASH_SIZE: usize = 63;

/// Whether `host` is a numeric IPv4 or IPv6 address (curl's `Curl_host_is_ipnum`, which is
/// `inet_pton` for both families: dotted quad without leading zeros, or IPv6 without brackets
/// or zone). The whole string must be the address.
pub(crate) fn is_ipnum(host: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(host) else {
        return false;
    };
    s.parse::<std::net::Ipv4Addr>().is_ok() || s.parse::<std::net::Ipv6Addr>().is_ok()
}

/// Whether a cookie for `cookie_domain` may be sent to `hostname`: the host ends with the
/// domain (ASCII case-insensitive) on a label boundary, or equals it.
pub(crate) fn tailmatch(cookie_domain: &[u8], hostname: &[u8]) -> bool {
    let (dl, hl) = (cookie_domain.len(), hostname.len());
    if hl < dl || !hostname[hl - dl..].eq_ignore_ascii_case(cookie_domain) {
        return false;
    }
    hl == dl || hostname[hl - dl - 1] == b'.'
}

/// RFC 6265 path-match of a sanitized cookie path against a request path, curl's way: an
/// empty request path or one not starting with `/` is taken as `/`; the comparison is
/// case-sensitive.
pub(crate) fn pathmatch(cookie_path: &[u8], uri_path: &[u8]) -> bool {
    if cookie_path.len() == 1 {
        // A sanitized path of one byte is "/".
        return true;
    }
    let uri_path: &[u8] = if uri_path.first() == Some(&b'/') {
        uri_path
    } else {
        b"/"
    };
    if uri_path.len() < cookie_path.len() || !uri_path.starts_with(cookie_path) {
        return false;
    }
    uri_path.len() == cookie_path.len() || uri_path[cookie_path.len()] == b'/'
}

/// curl's `sanitize_cookie_path`: drop one surrounding pair of double quotes (each side on its
/// own), fall back to `/` for anything not starting with `/`, and drop one trailing `/` unless
/// the path is just `/`.
pub(crate) fn sanitize_path(path: &[u8]) -> Vec<u8> {
    let mut p = path;
    if p.first() == Some(&b'"') {
        p = &p[1..];
    }
    if p.last() == Some(&b'"') {
        p = &p[..p.len() - 1];
    }
    if p.first() != Some(&b'/') {
        return b"/".to_vec();
    }
    if p.len() > 1 && p.last() == Some(&b'/') {
        p = &p[..p.len() - 1];
    }
    p.to_vec()
}

/// The last two labels of a domain, which is what curl hashes (`get_top_domain`).
fn top_domain(domain: &[u8]) -> &[u8] {
    let Some(last) = domain.iter().rposition(|&b| b == b'.') else {
        return domain;
    };
    match domain[..last].iter().rposition(|&b| b == b'.') {
        Some(first) => &domain[first + 1..],
        None => domain,
    }
}

/// The bucket a cookie domain or a request host belongs to (curl's `cookiehash`): no domain
/// and numeric addresses go to bucket 0, names by a case-insensitive djb2 hash of their top
/// domain. Only cookies in the request host's bucket are ever sent, so this is observable.
pub(crate) fn cookie_hash(domain: Option<&[u8]>) -> usize {
    let Some(domain) = domain else {
        return 0;
    };
    if is_ipnum(domain) {
        return 0;
    }
    let mut h: u64 = 5381;
    for &b in top_domain(domain) {
        h = h.wrapping_add(h << 5);
        h ^= u64::from(b.to_ascii_uppercase());
    }
    (h % COOKIE_HASH_SIZE as u64) as usize
}

/// The longest public suffix of `host` (lower case), as libpsl's `psl_unregistrable_domain`
/// finds it. A name ending in a dot only ever matches the implicit `*` rule there, so its
/// suffix is its last label (with the dot).
#[cfg(feature = "psl")]
fn unregistrable_len(host: &[u8]) -> usize {
    if let Some(stripped) = host.strip_suffix(b".") {
        let label = stripped
            .iter()
            .rposition(|&b| b == b'.')
            .map_or(stripped, |i| &stripped[i + 1..]);
        return label.len() + 1;
    }
    match psl::suffix(host) {
        Some(s) => s.as_bytes().len(),
        // Only for names the list cannot split at all (an empty last label): libpsl then
        // lands on the last label, which is empty.
        None => 0,
    }
}

/// libpsl's `psl_is_cookie_domain_acceptable(hostname, cookie_domain)`, both lower case: the
/// exact host is always fine; otherwise the host must be a name, end with the domain on a label
/// boundary, and the domain must be longer than the host's public suffix.
#[cfg(feature = "psl")]
pub(crate) fn psl_acceptable(host: &[u8], cookie_domain: &[u8]) -> bool {
    let mut cd = cookie_domain;
    while cd.first() == Some(&b'.') {
        cd = &cd[1..];
    }
    if host == cd {
        return true;
    }
    if is_ipnum(host) {
        return false;
    }
    if cd.len() >= host.len() {
        return false;
    }
    let start = host.len() - cd.len();
    if &host[start..] != cd || host[start - 1] != b'.' {
        return false;
    }
    cd.len() > unregistrable_len(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_numbers() {
        assert!(is_ipnum(b"127.0.0.1"));
        assert!(is_ipnum(b"::1"));
        assert!(is_ipnum(b"::ffff:1.2.3.4"));
        assert!(!is_ipnum(b"127.0.0.1\n"));
        assert!(!is_ipnum(b"01.2.3.4"));
        assert!(!is_ipnum(b"1.2.3"));
        assert!(!is_ipnum(b"[::1]"));
        assert!(!is_ipnum(b"example.com"));
    }

    #[test]
    fn tail_matching() {
        assert!(tailmatch(b"example.com", b"www.example.com"));
        assert!(tailmatch(b"example.com", b"example.com"));
        assert!(tailmatch(b"EXAMPLE.com", b"www.Example.COM"));
        assert!(!tailmatch(b"example.com", b"wwwexample.com"));
        assert!(!tailmatch(b"www.example.com", b"example.com"));
        assert!(!tailmatch(b"", b"example.com"));
        assert!(tailmatch(b"", b"example.com."));
    }

    #[test]
    fn path_matching() {
        assert!(pathmatch(b"/", b"/anything"));
        assert!(pathmatch(b"/p", b"/p"));
        assert!(pathmatch(b"/p", b"/p/"));
        assert!(pathmatch(b"/p", b"/p/q"));
        assert!(!pathmatch(b"/p", b"/pq"));
        assert!(!pathmatch(b"/p", b"/P"));
        assert!(!pathmatch(b"/p/q", b"/p"));
        assert!(!pathmatch(b"/p", b""));
        assert!(pathmatch(b"/", b""));
    }

    #[test]
    fn path_sanitizing() {
        assert_eq!(sanitize_path(b"/"), b"/");
        assert_eq!(sanitize_path(b"//"), b"/");
        assert_eq!(sanitize_path(b"/a/b/"), b"/a/b");
        assert_eq!(sanitize_path(b"\"/x/\""), b"/x");
        assert_eq!(sanitize_path(b"\"/x"), b"/x");
        assert_eq!(sanitize_path(b"/x\""), b"/x");
        assert_eq!(sanitize_path(b"\"\""), b"/");
        assert_eq!(sanitize_path(b"x"), b"/");
        assert_eq!(sanitize_path(b""), b"/");
    }

    #[test]
    fn hashing() {
        assert_eq!(top_domain(b"a.b.example.com"), b"example.com");
        assert_eq!(top_domain(b"example.com"), b"example.com");
        assert_eq!(top_domain(b"localhost"), b"localhost");
        assert_eq!(top_domain(b"www.example.com."), b"com.");
        assert_eq!(cookie_hash(None), 0);
        assert_eq!(cookie_hash(Some(b"127.0.0.1")), 0);
        assert_eq!(
            cookie_hash(Some(b"www.example.com")),
            cookie_hash(Some(b"EXAMPLE.COM"))
        );
        assert!(cookie_hash(Some(b"example.com")) < COOKIE_HASH_SIZE);
    }

    #[cfg(feature = "psl")]
    #[test]
    fn public_suffixes() {
        assert!(psl_acceptable(b"www.example.com", b"example.com"));
        assert!(psl_acceptable(b"www.example.com", b".example.com"));
        assert!(!psl_acceptable(b"www.example.com", b"com"));
        assert!(!psl_acceptable(b"www.example.co.uk", b"co.uk"));
        assert!(psl_acceptable(b"www.example.co.uk", b"example.co.uk"));
        assert!(!psl_acceptable(b"foo.github.io", b"github.io"));
        assert!(psl_acceptable(b"github.io", b"github.io"));
        assert!(psl_acceptable(b"com", b"com"));
        assert!(psl_acceptable(b"a.b.localhost", b"b.localhost"));
        assert!(!psl_acceptable(b"a.b.localhost", b"localhost"));
        assert!(!psl_acceptable(b"www.example.invalidtld", b"invalidtld"));
        assert!(psl_acceptable(b"x.foo.bar.ck", b"foo.bar.ck"));
        assert!(psl_acceptable(b"x.www.ck", b"www.ck"));
        assert!(!psl_acceptable(b"x.foo.kawasaki.jp", b"foo.kawasaki.jp"));
        assert!(psl_acceptable(b"www.example.com.", b"example.com."));
        assert!(!psl_acceptable(b"www.example.com.", b"com."));
        assert!(psl_acceptable(b"www.example.co.uk.", b"co.uk."));
        assert!(!psl_acceptable(b"127.0.0.1", b"0.0.1"));
    }
}
