//! Which proxy a transfer uses (curl's `url.c` proxy selection): the proxy string from the
//! options or the environment, `no_proxy` matching, and parsing of proxy URLs with their
//! credentials. Does no I/O; the environment is read through a lookup function.

use std::net::IpAddr;

use oxcurl_urlapi::{Flags, Part, Url};

use crate::error::{Code, Error, Result};

/// The kind of proxy (`CURLOPT_PROXYTYPE` and proxy URL schemes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ProxyKind {
    #[default]
    Http,
    /// `--proxy1.0`: CONNECT is sent as HTTP/1.0.
    Http10,
    Https,
    /// An HTTPS proxy offered HTTP/2 as well (`CURLPROXY_HTTPS2`, `--proxy-http2`).
    Https2,
    Socks4,
    Socks4a,
    Socks5,
    Socks5h,
}

impl ProxyKind {
    fn from_scheme(s: &str) -> Option<ProxyKind> {
        Some(match s.to_ascii_lowercase().as_str() {
            "http" => ProxyKind::Http,
            "https" => ProxyKind::Https,
            "socks4" => ProxyKind::Socks4,
            "socks4a" => ProxyKind::Socks4a,
            "socks5" => ProxyKind::Socks5,
            "socks5h" => ProxyKind::Socks5h,
            _ => return None,
        })
    }
    /// The scheme as curl names it in messages and pool keys.
    pub fn scheme(self) -> &'static str {
        match self {
            ProxyKind::Http | ProxyKind::Http10 => "http",
            ProxyKind::Https | ProxyKind::Https2 => "https",
            ProxyKind::Socks4 => "socks4",
            ProxyKind::Socks4a => "socks4a",
            ProxyKind::Socks5 => "socks5",
            ProxyKind::Socks5h => "socks5h",
        }
    }
    pub fn is_http(self) -> bool {
        matches!(
            self,
            ProxyKind::Http | ProxyKind::Http10 | ProxyKind::Https | ProxyKind::Https2
        )
    }
    /// TLS to the proxy first.
    pub fn is_https(self) -> bool {
        matches!(self, ProxyKind::Https | ProxyKind::Https2)
    }
}

/// A parsed proxy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Proxy {
    pub kind: ProxyKind,
    /// Host as written (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    /// Credentials: `CURLOPT_PROXYUSERPWD` or the proxy URL's, percent-decoded.
    pub creds: Option<(String, String)>,
}

impl Proxy {
    /// The Unix socket path of a SOCKS proxy given as `localhost/path`.
    pub fn unix_path(&self) -> Option<&str> {
        if self.kind.is_http() {
            return None;
        }
        self.host
            .strip_prefix("localhost")
            .filter(|p| p.starts_with('/'))
    }

    /// What makes connections through this proxy interchangeable. Credentials are not part
    /// of it: Basic is sent with every request, so curl reuses a proxy connection across
    /// proxy users (connection-bound schemes such as NTLM must add them when they land).
    pub fn key(&self) -> String {
        format!("{}://{}:{}", self.kind.scheme(), self.host, self.port)
    }
}

/// Parse a proxy string: `[scheme://][user[:password]@]host[:port]`. A string without a
/// scheme takes `default_kind`; the port defaults to 1080 (443 for https) as in curl.
pub fn parse(s: &str, default_kind: ProxyKind) -> Result<Proxy> {
    parse_with_port(s, default_kind, None)
}

/// [`parse`] with `CURLOPT_PROXYPORT`: `default_port`, when given, is the port of a string
/// that names none.
pub fn parse_with_port(
    s: &str,
    default_kind: ProxyKind,
    default_port: Option<u16>,
) -> Result<Proxy> {
    let has_scheme = s.contains("://");
    let flags = Flags {
        guess_scheme: true,
        non_support_scheme: true,
        ..Flags::default()
    };
    let url = Url::parse(s, flags).map_err(|e| {
        Error::new(
            Code::CouldntResolveProxy,
            format!("Unsupported proxy syntax in '{s}': {}", e.message()),
        )
    })?;
    let kind = if has_scheme {
        let k = ProxyKind::from_scheme(url.scheme()).ok_or_else(|| {
            Error::new(
                Code::CouldntConnect,
                format!("Unsupported proxy scheme for '{s}'"),
            )
        })?;
        // curl keeps HTTPS2 for an https:// proxy URL, and leaves the type as it is for an
        // http:// one (so `--proxy1.0 http://...` stays HTTP/1.0).
        if k == ProxyKind::Https && default_kind == ProxyKind::Https2 {
            ProxyKind::Https2
        } else if k == ProxyKind::Http && default_kind == ProxyKind::Http10 {
            ProxyKind::Http10
        } else {
            k
        }
    } else {
        default_kind
    };
    let mut host = url.host().trim_start_matches('[').trim_end_matches(']');
    // A SOCKS proxy on a Unix socket: `localhost/path` (curl's UNIX_SOCKET_PREFIX); the
    // path stays in the host name, as curl keeps it.
    let unix_host;
    if !kind.is_http() && host.eq_ignore_ascii_case("localhost") {
        let path = url
            .get(
                Part::Path,
                oxcurl_urlapi::GetFlags {
                    url_decode: true,
                    ..Default::default()
                },
            )
            .unwrap_or_default();
        if !path.is_empty() && path != "/" {
            unix_host = format!("localhost{path}");
            host = &unix_host;
        }
    }
    let port = url.port().or(default_port).unwrap_or(match kind {
        ProxyKind::Https | ProxyKind::Https2 => 443,
        _ => 1080,
    });
    let creds = url.user().map(|_| {
        let get = |p: Part| {
            url.get(
                p,
                oxcurl_urlapi::GetFlags {
                    url_decode: true,
                    ..Default::default()
                },
            )
            .unwrap_or_default()
        };
        (get(Part::User), get(Part::Password))
    });
    Ok(Proxy {
        kind,
        host: host.to_string(),
        port,
        creds,
    })
}

/// The proxy string the environment gives for `scheme` (libcurl's `detect_proxy`):
/// `scheme_proxy` (the upper-case form too, except `HTTP_PROXY`), then `all_proxy`/`ALL_PROXY`.
pub fn from_env(scheme: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    // The usual schemes' names are spelled out: looking them up allocates nothing.
    type Name = std::borrow::Cow<'static, str>;
    let (lower, upper): (Name, Option<Name>) = match scheme {
        "http" => ("http_proxy".into(), None),
        "https" => ("https_proxy".into(), Some("HTTPS_PROXY".into())),
        _ => {
            let lower = format!("{}_proxy", scheme.to_ascii_lowercase());
            let upper = (lower != "http_proxy").then(|| lower.to_ascii_uppercase().into());
            (lower.into(), upper)
        }
    };
    let mut v = env(&lower);
    if v.is_none() {
        if let Some(upper) = upper {
            v = env(&upper);
        }
    }
    if v.is_none() {
        v = env("all_proxy").or_else(|| env("ALL_PROXY"));
    }
    v.filter(|s| !s.is_empty())
}

/// Does the `no_proxy` list exclude `host` (curl's `Curl_check_noproxy`)? Entries are
/// separated by commas or spaces: `*` alone matches every host, a name matches itself and
/// its subdomains (a leading dot is ignored), an IP address or `addr/bits` range matches
/// addresses.
pub fn no_proxy_matches(list: &str, host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let host = host.strip_suffix('.').unwrap_or(host);
    if list.trim() == "*" {
        return true;
    }
    let ip: Option<IpAddr> = host.split('%').next().and_then(|h| h.parse().ok());
    for token in list.split([',', ' ', '\t']).filter(|t| !t.is_empty()) {
        if token == "*" {
            return true;
        }
        match ip {
            Some(addr) => {
                let (net, bits) = match token.split_once('/') {
                    Some((n, b)) => (n, b.parse::<u32>().ok()),
                    None => (token, None),
                };
                let net = net.trim_start_matches('[').trim_end_matches(']');
                if let Ok(n) = net.parse::<IpAddr>() {
                    if cidr_match(addr, n, bits) {
                        return true;
                    }
                }
            }
            None => {
                let t = token.strip_prefix('.').unwrap_or(token);
                let t = t.strip_suffix('.').unwrap_or(t);
                if t.is_empty() {
                    continue;
                }
                if host.eq_ignore_ascii_case(t) {
                    return true;
                }
                if host.len() > t.len() {
                    // Bytes: the cut may fall inside a multibyte character of the host.
                    let (head, tail) = host.as_bytes().split_at(host.len() - t.len());
                    if head.ends_with(b".") && tail.eq_ignore_ascii_case(t.as_bytes()) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

fn cidr_match(addr: IpAddr, net: IpAddr, bits: Option<u32>) -> bool {
    match (addr, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let bits = bits.unwrap_or(32);
            if bits > 32 {
                return false;
            }
            let mask = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - bits)
            };
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let bits = bits.unwrap_or(128);
            if bits > 128 {
                return false;
            }
            let mask = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - bits)
            };
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// The proxy for a transfer to `scheme://host`, or None for a direct connection.
///
/// `option` is `CURLOPT_PROXY` (None: use the environment; empty: no proxy), `noproxy`
/// is `CURLOPT_NOPROXY` (None: the environment's `no_proxy`).
pub fn select(
    option: Option<&str>,
    noproxy: Option<&str>,
    scheme: &str,
    host: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let noproxy = match noproxy {
        Some(n) => Some(n.to_string()),
        None => env("no_proxy").or_else(|| env("NO_PROXY")),
    };
    if noproxy
        .as_deref()
        .is_some_and(|n| no_proxy_matches(n, host))
    {
        return None;
    }
    match option {
        Some("") => None,
        Some(p) => Some(p.to_string()),
        None => from_env(scheme, env),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_defaults() {
        let p = parse("127.0.0.1", ProxyKind::Http).unwrap();
        assert_eq!(
            (p.kind, p.host.as_str(), p.port),
            (ProxyKind::Http, "127.0.0.1", 1080)
        );
        let p = parse("https://proxy", ProxyKind::Http).unwrap();
        assert_eq!((p.kind, p.port), (ProxyKind::Https, 443));
        let p = parse("socks5h://[::1]:9", ProxyKind::Http).unwrap();
        assert_eq!(
            (p.kind, p.host.as_str(), p.port),
            (ProxyKind::Socks5h, "::1", 9)
        );
        let p = parse("host:8", ProxyKind::Http10).unwrap();
        assert_eq!(p.kind, ProxyKind::Http10);
        let p = parse("http://host:8", ProxyKind::Http10).unwrap();
        assert_eq!(p.kind, ProxyKind::Http10);
    }

    #[test]
    fn parse_socks_unix_socket() {
        let p = parse("socks5h://LOCALHOST/tmp/s%2esock", ProxyKind::Http).unwrap();
        assert_eq!(
            (p.host.as_str(), p.unix_path(), p.port),
            ("localhost/tmp/s.sock", Some("/tmp/s.sock"), 1080)
        );
        let p = parse("localhost:9/run/x", ProxyKind::Socks5).unwrap();
        assert_eq!((p.unix_path(), p.port), (Some("/run/x"), 9));
        // Not for HTTP proxies, nor without a path.
        let p = parse("localhost/tmp/s", ProxyKind::Http).unwrap();
        assert_eq!((p.host.as_str(), p.unix_path()), ("localhost", None));
        let p = parse("socks5://localhost/", ProxyKind::Http).unwrap();
        assert_eq!((p.host.as_str(), p.unix_path()), ("localhost", None));
    }

    #[test]
    fn parse_https2() {
        // CURLPROXY_HTTPS2 stays for https:// and scheme-less strings, not for http://.
        let p = parse("https://proxy", ProxyKind::Https2).unwrap();
        assert_eq!((p.kind, p.port), (ProxyKind::Https2, 443));
        let p = parse("proxy", ProxyKind::Https2).unwrap();
        assert_eq!((p.kind, p.port), (ProxyKind::Https2, 443));
        let p = parse("http://proxy", ProxyKind::Https2).unwrap();
        assert_eq!(p.kind, ProxyKind::Http);
        assert_eq!(p.key(), "http://proxy:1080");
        assert!(ProxyKind::Https2.is_https() && ProxyKind::Https2.is_http());
    }

    #[test]
    fn parse_credentials_decoded() {
        let p = parse("http://us%40r:p%3Aw@h:1", ProxyKind::Http).unwrap();
        assert_eq!(p.creds, Some(("us@r".into(), "p:w".into())));
    }

    #[test]
    fn parse_unknown_scheme() {
        let e = parse("gopher://h", ProxyKind::Http).unwrap_err();
        assert_eq!(e.code, Code::CouldntConnect);
    }

    #[test]
    fn env_lookup_order() {
        let env = |k: &str| match k {
            "HTTP_PROXY" => Some("upper".to_string()),
            "HTTPS_PROXY" => Some("S".to_string()),
            "ALL_PROXY" => Some("all".to_string()),
            _ => None,
        };
        // Upper-case HTTP_PROXY is never used.
        assert_eq!(from_env("http", &env).as_deref(), Some("all"));
        assert_eq!(from_env("https", &env).as_deref(), Some("S"));
    }

    #[test]
    fn no_proxy_names() {
        assert!(no_proxy_matches("*", "a.b"));
        assert!(no_proxy_matches("example.com", "www.example.com"));
        assert!(no_proxy_matches(".example.com", "example.com"));
        assert!(no_proxy_matches("a, example.com", "EXAMPLE.com."));
        assert!(!no_proxy_matches("example.com", "badexample.com"));
        assert!(!no_proxy_matches("a.*", "a.b"));
    }

    /// Found by the connect_reply fuzz target: a suffix cut inside a multibyte character of
    /// the host panicked.
    #[test]
    fn no_proxy_non_ascii_host() {
        assert!(!no_proxy_matches("x", "é"));
        assert!(!no_proxy_matches("lée", "Connection: clée"));
        assert!(no_proxy_matches("b.test", "é.b.test"));
    }

    #[test]
    fn no_proxy_addresses() {
        assert!(no_proxy_matches("127.0.0.1", "127.0.0.1"));
        assert!(no_proxy_matches("10.0.0.0/8", "10.2.3.4"));
        assert!(!no_proxy_matches("10.0.0.0/8", "11.2.3.4"));
        assert!(no_proxy_matches("::1", "[::1]"));
        assert!(no_proxy_matches("fe80::/16", "[fe80::5]"));
        assert!(!no_proxy_matches("127.0.0.1", "127.0.0.2"));
    }

    #[test]
    fn select_rules() {
        let env = |k: &str| (k == "http_proxy").then(|| "envproxy:1".to_string());
        let s = |o, n, h| select(o, n, "http", h, &env);
        assert_eq!(s(None, None, "h").as_deref(), Some("envproxy:1"));
        assert_eq!(s(Some(""), None, "h"), None);
        assert_eq!(s(Some("p"), Some("h"), "h"), None);
        assert_eq!(s(Some("p"), None, "h").as_deref(), Some("p"));
    }
}
