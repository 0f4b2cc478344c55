//! Building HTTP/1.x request heads byte-identical to curl's (lib/http.c): the default header
//! order, custom header add/replace/remove rules, and the body framing headers. Does no I/O.

use crate::options::{HttpVersionPref, Options, TimeCondition};

/// Body framing of the request being built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyFraming {
    None,
    /// Known length; `form` adds curl's default POST Content-Type.
    Length {
        len: u64,
        form: bool,
    },
    /// Sent in chunks (`Transfer-Encoding: chunked`).
    Chunked {
        form: bool,
    },
    /// Sent as it comes, without chunks or a length of curl's own: a body of unknown size
    /// when a custom `Transfer-Encoding` that is not chunked was asked for.
    Unframed {
        form: bool,
    },
}

/// Everything that varies per request beyond the options.
#[derive(Debug)]
pub struct RequestParts<'a> {
    pub method: &'a str,
    /// Path and query as sent (`/a?b`), or the `--request-target`.
    pub target: &'a str,
    /// `host[:port]` for the Host header.
    pub host_header: &'a str,
    /// A custom `Host` header may replace curl's own: not a followed redirect, or one back
    /// to the first host name.
    pub custom_host_ok: bool,
    pub framing: BodyFraming,
    /// The connection last answered with HTTP/1.0: curl talks 1.0 on it from then on.
    pub http10: bool,
    /// The `Cookie:` value: the jar's matching cookies and the user's string.
    pub cookie: Option<&'a [u8]>,
    /// The `Authorization:` value (`Basic ...`, `Digest ...`, `Bearer ...`), if any.
    pub authorization: Option<&'a [u8]>,
    pub referer: Option<&'a str>,
    /// The body's own `Content-Type` (a multipart boundary), sent after its length.
    pub content_type: Option<&'a str>,
    /// A MIME body: its `Content-Type` already took in a custom one, which is not sent
    /// where it was given (curl's `HTTPREQ_POST_MIME`).
    pub mime: bool,
    pub expect_100: bool,
    /// Custom `Authorization:` and `Cookie:` headers may go to this host: the first one of a
    /// redirect chain, the same origin again, or any with `--location-trusted`.
    pub sensitive_ok: bool,
    /// Through an HTTP proxy in absolute form: `Proxy-Authorization: Basic` with this value.
    pub proxy_authorization: Option<&'a [u8]>,
    /// Through an HTTP proxy in absolute form: send `Proxy-Connection: Keep-Alive` and the
    /// `--proxy-header` lines after the custom headers, as curl does.
    pub proxy_headers: Option<&'a [String]>,
    /// For a PUT or POST with a range or resume offset: the `Content-Range` value, sent
    /// where a GET's `Range` goes.
    pub content_range: Option<&'a str>,
    /// The cached alternative (`host:port`) the request goes to: `Alt-Used:`.
    pub alt_used: Option<&'a str>,
    /// Negotiating authentication with a bodiless probe (curl's `authneg`): curl's own
    /// `Content-Length: 0` replaces a custom one.
    pub authneg: bool,
    /// Ask to switch to HTTP/2 (`--http2` on a connection without TLS): curl's
    /// `Curl_http2_request_upgrade` headers.
    pub h2_upgrade: bool,
}

/// The SETTINGS payload curl sends in `HTTP2-Settings:` (`populate_binsettings`):
/// SETTINGS_MAX_CONCURRENT_STREAMS 100, SETTINGS_INITIAL_WINDOW_SIZE 64 KiB and
/// SETTINGS_ENABLE_PUSH 0, each a 16-bit id and a 32-bit value.
pub const H2_UPGRADE_SETTINGS: [u8; 18] = [0, 3, 0, 0, 0, 100, 0, 4, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0];

/// [`H2_UPGRADE_SETTINGS`] in base64url without padding, as the header carries it.
pub const H2_UPGRADE_SETTINGS_B64: &str = "AAMAAABkAAQAAQAAAAIAAAAA";

/// Does the custom header list set (or remove) header `name`?
pub fn custom_has(headers: &[String], name: &str) -> bool {
    headers.iter().any(|h| {
        let n = h.find([':', ';']).map(|i| &h[..i]).unwrap_or(h);
        n.trim().eq_ignore_ascii_case(name)
    })
}

/// The type a MIME body is sent as when a custom `Content-Type` header is given: the value
/// of the first `Content-Type:` line (leading blanks skipped), else what follows the first
/// `Content-Type;` (curl's `search_header` and `Curl_checkheaders` in `set_post_reader`).
pub fn custom_mime_type(headers: &[String]) -> Option<&str> {
    const N: usize = "Content-Type:".len();
    let colon = headers.iter().find(|h| {
        h.get(..N)
            .is_some_and(|n| n.eq_ignore_ascii_case("Content-Type:"))
    });
    colon
        .map(String::as_str)
        .or_else(|| custom_header(headers, "Content-Type"))
        .map(|h| h[N..].trim_start_matches(' '))
}

/// The first custom header line named `name` (followed by `:` or `;`), as curl's
/// `Curl_checkheaders` finds it.
pub fn custom_header<'a>(headers: &'a [String], name: &str) -> Option<&'a str> {
    headers.iter().map(String::as_str).find(|h| {
        h.len() > name.len()
            && h.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && matches!(h.as_bytes()[name.len()], b':' | b';')
    })
}

/// The value of custom header `name`, if set with a value.
pub fn custom_value<'a>(headers: &'a [String], name: &str) -> Option<&'a str> {
    headers.iter().rev().find_map(|h| {
        let (n, v) = h.split_once(':')?;
        if n.trim().eq_ignore_ascii_case(name) {
            let v = v.trim();
            (!v.is_empty()).then_some(v)
        } else {
            None
        }
    })
}

/// Append the request head to `out`.
pub fn build(out: &mut Vec<u8>, opts: &Options, p: &RequestParts<'_>) {
    let ver = match opts.http_version {
        HttpVersionPref::V1_0 => "1.0",
        _ if p.http10 => "1.0",
        _ => "1.1",
    };
    let h = &opts.headers;
    push(out, &[p.method, " ", p.target, " HTTP/", ver, "\r\n"]);
    // curl's `http_host`: the first custom Host header goes out as `Host:` and what follows
    // its name; a bare `Host:` sends none.
    let host_sent = match custom_header(h, "Host").filter(|_| p.custom_host_ok) {
        Some(line) if line.eq_ignore_ascii_case("Host:") => false,
        Some(line) => {
            push(out, &["Host:", &line[4 + 1..], "\r\n"]);
            true
        }
        None => {
            push(out, &["Host: ", p.host_header, "\r\n"]);
            true
        }
    };
    if let Some(a) = p.proxy_authorization {
        out.extend_from_slice(b"Proxy-Authorization: ");
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    if let Some(a) = p.authorization {
        out.extend_from_slice(b"Authorization: ");
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    if let Some(cr) = p.content_range {
        if !custom_has(h, "Content-Range") {
            push(out, &["Content-Range: ", cr, "\r\n"]);
        }
    } else if let Some(r) = range_value(opts) {
        if !custom_has(h, "Range") {
            push(out, &["Range: bytes=", &r, "\r\n"]);
        }
    }
    if let Some(ua) = &opts.useragent {
        if !ua.is_empty() && !custom_has(h, "User-Agent") {
            push(out, &["User-Agent: ", ua, "\r\n"]);
        }
    }
    if !custom_has(h, "Accept") {
        out.extend_from_slice(b"Accept: */*\r\n");
    }
    // --tr-encoding: TE must be named in Connection too, so a custom Connection value is
    // merged in here and the custom line itself left out.
    let te = opts.transfer_encoding && !custom_has(h, "TE");
    if te {
        out.extend_from_slice(b"Connection: ");
        if let Some(v) = custom_connection(h).filter(|v| !v.is_empty()) {
            push(out, &[v, ", "]);
        }
        out.extend_from_slice(b"TE\r\nTE: gzip\r\n");
    }
    if let Some(ae) = &opts.accept_encoding {
        if !custom_has(h, "Accept-Encoding") {
            let v = if ae.is_empty() {
                crate::content_encoding::ACCEPT_ENCODING
            } else {
                ae
            };
            push(out, &["Accept-Encoding: ", v, "\r\n"]);
        }
    }
    if let Some(r) = p.referer {
        if !custom_has(h, "Referer") {
            push(out, &["Referer: ", r, "\r\n"]);
        }
    }
    if let Some(ph) = p.proxy_headers {
        if !custom_has(h, "Proxy-Connection") && !custom_has(ph, "Proxy-Connection") {
            out.extend_from_slice(b"Proxy-Connection: Keep-Alive\r\n");
        }
    }
    if matches!(p.framing, BodyFraming::Chunked { .. }) && !custom_has(h, "Transfer-Encoding") {
        out.extend_from_slice(b"Transfer-Encoding: chunked\r\n");
    }
    if let Some(a) = p.alt_used {
        if !custom_has(h, "Alt-Used") {
            push(out, &["Alt-Used: ", a, "\r\n"]);
        }
    }
    if p.h2_upgrade {
        push(
            out,
            &[
                "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: ",
                H2_UPGRADE_SETTINGS_B64,
                "\r\n",
            ],
        );
    }
    // The caller leaves out the user's cookie string when a custom Cookie header is given;
    // the jar's cookies are sent anyway, as curl does.
    if let Some(c) = p.cookie {
        out.extend_from_slice(b"Cookie: ");
        out.extend_from_slice(c);
        out.extend_from_slice(b"\r\n");
    }
    if let Some((cond, t)) = opts.time_condition {
        let name = match cond {
            TimeCondition::IfModSince => "If-Modified-Since",
            TimeCondition::IfUnmodSince => "If-Unmodified-Since",
            TimeCondition::LastMod => "Last-Modified",
        };
        if !custom_has(h, name) {
            push(out, &[name, ": ", &crate::parsedate::http_date(t), "\r\n"]);
        }
    }
    for line in h {
        // `Connection;` (sent empty) counts too: curl looks after turning it into
        // `Connection:`.
        if te
            && (starts_with_ignore_case(line, "Connection:")
                || starts_with_ignore_case(line, "Connection;"))
        {
            continue;
        }
        if p.authneg && starts_with_ignore_case(line, "Content-Length:") {
            continue;
        }
        if p.mime && header_name(line).is_some_and(|n| n.eq_ignore_ascii_case("Content-Type")) {
            continue;
        }
        if !host_sent && header_name(line).is_some_and(|n| n.eq_ignore_ascii_case("Host")) {
            // No Host header of curl's own: a later custom one goes as any other.
            add_custom_line(out, line);
        } else if p.sensitive_ok || !is_sensitive(line) {
            add_custom(out, line);
        }
    }
    for line in p.proxy_headers.unwrap_or(&[]) {
        add_custom(out, line);
    }
    let form = match p.framing {
        BodyFraming::None => false,
        BodyFraming::Length { len, form } => {
            if p.authneg || !custom_has(h, "Content-Length") {
                let mut b = [0u8; 20];
                out.extend_from_slice(b"Content-Length: ");
                out.extend_from_slice(fmt_u64(len, &mut b));
                out.extend_from_slice(b"\r\n");
            }
            form
        }
        BodyFraming::Chunked { form } | BodyFraming::Unframed { form } => form,
    };
    if form && !custom_has(h, "Content-Type") {
        out.extend_from_slice(b"Content-Type: application/x-www-form-urlencoded\r\n");
    }
    if let Some(ct) = p.content_type {
        if p.mime || !custom_has(h, "Content-Type") {
            push(out, &["Content-Type: ", ct, "\r\n"]);
        }
    }
    if p.expect_100 && !custom_has(h, "Expect") {
        out.extend_from_slice(b"Expect: 100-continue\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

/// The value of the first custom `Connection` header (`Connection:` or `Connection;`),
/// trimmed, as curl's `Curl_checkheaders` and `Curl_copy_header_value` find it.
fn custom_connection(headers: &[String]) -> Option<&str> {
    headers.iter().find_map(|h| {
        h.get(..10)
            .filter(|n| n.eq_ignore_ascii_case("Connection"))?;
        let tail = &h[10..];
        if !tail.starts_with([':', ';']) {
            return None;
        }
        let v = tail.split_once(':').map_or("", |(_, v)| v);
        Some(v.trim_matches([' ', '\t', '\r', '\n']))
    })
}

fn starts_with_ignore_case(line: &str, prefix: &str) -> bool {
    line.len() >= prefix.len()
        && line.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// curl's test for custom headers it keeps from other hosts after a redirect: the line starts
/// with `Authorization:` or `Cookie:` (case-insensitively, no blank before the colon).
fn is_sensitive(line: &str) -> bool {
    let b = line.as_bytes();
    ["Authorization:", "Cookie:"]
        .iter()
        .any(|p| b.len() >= p.len() && b[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
}

fn range_value(opts: &Options) -> Option<String> {
    if let Some(r) = &opts.range {
        return Some(r.clone());
    }
    (opts.resume_from > 0).then(|| format!("{}-", opts.resume_from))
}

/// The name of a custom header line: before the `;` of `Name;`, else before the colon.
fn header_name(line: &str) -> Option<&str> {
    match line.strip_suffix(';') {
        Some(n) if !n.contains([':', ';']) => Some(n),
        _ => line.split_once(':').map(|(n, _)| n),
    }
}

/// One `-H` entry: `Name: value` is sent as given; `Name:` (nothing after the colon) only
/// removes an internal header; `Name;` sends the header with an empty value. Host was handled
/// in place of the internal one.
pub(crate) fn add_custom(out: &mut Vec<u8>, line: &str) {
    if !header_name(line).is_some_and(|n| n.eq_ignore_ascii_case("Host")) {
        add_custom_line(out, line);
    }
}

/// [`add_custom`] without the Host rule.
fn add_custom_line(out: &mut Vec<u8>, line: &str) {
    if let Some((_, value)) = line.split_once(':') {
        if value.trim().is_empty() {
            return;
        }
        // Sent exactly as given.
        push(out, &[line, "\r\n"]);
    } else if let Some(name) = line.strip_suffix(';') {
        let name = name.trim_end();
        if !name.is_empty() && !name.contains(';') {
            push(out, &[name, ":\r\n"]);
        }
    }
}

fn push(out: &mut Vec<u8>, parts: &[&str]) {
    for p in parts {
        out.extend_from_slice(p.as_bytes());
    }
}

/// Decimal digits of `n` without allocating.
pub fn fmt_u64(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(opts: &Options, framing: BodyFraming) -> String {
        req_to(opts, framing, true)
    }

    fn req_to(opts: &Options, framing: BodyFraming, sensitive_ok: bool) -> String {
        let mut v = Vec::new();
        build(
            &mut v,
            opts,
            &RequestParts {
                method: "GET",
                target: "/",
                host_header: "h:1",
                custom_host_ok: true,
                framing,
                http10: false,
                cookie: opts
                    .cookie
                    .as_deref()
                    .filter(|_| !custom_has(&opts.headers, "Cookie"))
                    .map(str::as_bytes),
                authorization: None,
                content_type: None,
                mime: false,
                referer: None,
                expect_100: false,
                sensitive_ok,
                proxy_authorization: None,
                proxy_headers: None,
                content_range: None,
                alt_used: None,
                authneg: false,
                h2_upgrade: false,
            },
        );
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn h2_upgrade_settings_encoded() {
        // 18 bytes: base64 without padding, and no '+' or '/' to turn into base64url.
        let b64 = crate::codec::base64(&H2_UPGRADE_SETTINGS);
        assert_eq!(b64, H2_UPGRADE_SETTINGS_B64);
    }

    #[test]
    fn default_get() {
        let o = Options {
            useragent: Some("curl/8.14.1".into()),
            ..Options::default()
        };
        assert_eq!(
            req(&o, BodyFraming::None),
            "GET / HTTP/1.1\r\nHost: h:1\r\nUser-Agent: curl/8.14.1\r\nAccept: */*\r\n\r\n"
        );
    }

    #[test]
    fn custom_headers_replace_remove_and_empty() {
        let o = Options {
            useragent: Some("curl/8.14.1".into()),
            headers: vec![
                "X-A: 1".into(),
                "Host: foo".into(),
                "Accept:".into(),
                "Y;".into(),
                "User-Agent: ua".into(),
            ],
            ..Options::default()
        };
        assert_eq!(
            req(&o, BodyFraming::None),
            "GET / HTTP/1.1\r\nHost: foo\r\nX-A: 1\r\nY:\r\nUser-Agent: ua\r\n\r\n"
        );
    }

    #[test]
    fn post_form_framing() {
        let o = Options::default();
        assert_eq!(
            req(&o, BodyFraming::Length { len: 3, form: true }),
            "GET / HTTP/1.1\r\nHost: h:1\r\nAccept: */*\r\nContent-Length: 3\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n"
        );
    }

    #[test]
    fn sensitive_custom_headers_only_where_allowed() {
        let o = Options {
            headers: vec![
                "cookie: c=1".into(),
                "X-Keep: 1".into(),
                "Authorization: Bearer t".into(),
                "Cookie : spaced".into(),
            ],
            ..Options::default()
        };
        assert_eq!(
            req_to(&o, BodyFraming::None, false),
            "GET / HTTP/1.1\r\nHost: h:1\r\nAccept: */*\r\nX-Keep: 1\r\nCookie : spaced\r\n\r\n"
        );
        assert!(req_to(&o, BodyFraming::None, true).contains("cookie: c=1\r\n"));
    }
}
