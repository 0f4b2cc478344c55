//! curl's `Curl_http_req_to_h2`: the HTTP/1 request head the engine builds, turned into
//! HTTP/2 fields. Pure, no I/O.
//!
//! The request line gives `:method` and `:path`, `Host` gives `:authority`; names are
//! lower-cased and the connection-specific headers HTTP/2 forbids are dropped. The head is
//! also rewritten for `-v` as curl shows it (`GET / HTTP/2`).

/// A request head in HTTP/2 terms.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct H2Head {
    pub method: String,
    pub path: String,
    pub authority: Option<String>,
    /// Regular fields in request order: lower-case name, value.
    pub fields: Vec<(String, String)>,
    /// The head as `-v` shows it: the HTTP/1 head with `HTTP/2` as version and without the
    /// lines dropped by `skip`.
    pub shown: Vec<u8>,
}

/// Headers that only make sense on an HTTP/1 connection (curl's `h2_non_field`).
fn connection_specific(name: &str, value: &str) -> bool {
    match name {
        "connection" | "keep-alive" | "proxy-connection" | "transfer-encoding" | "upgrade"
        | "host" => true,
        "te" => !value.eq_ignore_ascii_case("trailers"),
        _ => false,
    }
}

/// Parse `head` (request line, header lines, blank line). `skip(name, value)` says which
/// header lines the HTTP/1 builder added for HTTP/1 framing only (`Transfer-Encoding:
/// chunked`, `Expect: 100-continue`), which HTTP/2 neither sends nor shows.
pub fn from_h1(head: &[u8], skip: impl Fn(&str, &str) -> bool) -> Result<H2Head, &'static str> {
    let mut lines = head.split_inclusive(|&b| b == b'\n');
    let first = lines.next().ok_or("empty request")?;
    let first = first
        .strip_suffix(b"\n")
        .ok_or("request line not terminated")?;
    let first = std::str::from_utf8(trim_cr(first)).map_err(|_| "request line not UTF-8")?;
    let mut parts = first.splitn(3, ' ');
    let method = parts.next().filter(|m| !m.is_empty()).ok_or("no method")?;
    let rest = parts.next().ok_or("no target")?;
    let version = parts.next().ok_or("no version")?;
    if !version.starts_with("HTTP/") {
        return Err("no HTTP version");
    }
    let mut out = H2Head {
        method: method.to_string(),
        path: rest.to_string(),
        ..H2Head::default()
    };
    out.shown.extend_from_slice(method.as_bytes());
    out.shown.push(b' ');
    out.shown.extend_from_slice(rest.as_bytes());
    out.shown.extend_from_slice(b" HTTP/2\r\n");
    let mut ended = false;
    for raw in lines {
        let Some(raw) = raw.strip_suffix(b"\n") else {
            break;
        };
        let line = trim_cr(raw);
        if line.is_empty() {
            ended = true;
            break;
        }
        let text = String::from_utf8_lossy(line);
        let Some((name, value)) = text.split_once(':') else {
            return Err("header line without colon");
        };
        let value = value.trim_matches([' ', '\t']);
        let lower = name.to_ascii_lowercase();
        if skip(&lower, value) {
            continue;
        }
        out.shown.extend_from_slice(line);
        out.shown.extend_from_slice(b"\r\n");
        if lower == "host" && out.authority.is_none() {
            out.authority = Some(value.to_string());
        }
        if connection_specific(&lower, value) {
            continue;
        }
        out.fields.push((lower, value.to_string()));
    }
    if !ended {
        return Err("request head not terminated");
    }
    out.shown.extend_from_slice(b"\r\n");
    Ok(out)
}

fn trim_cr(l: &[u8]) -> &[u8] {
    l.strip_suffix(b"\r").unwrap_or(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_in_curl_order() {
        let h = from_h1(
            b"GET /a?b HTTP/1.1\r\nHost: x:81\r\nUser-Agent: curl/8.14.1\r\nAccept: */*\r\n\
              Connection: close\r\nTE: trailers\r\nX-A: 1\r\n\r\n",
            |_, _| false,
        )
        .unwrap();
        assert_eq!(h.method, "GET");
        assert_eq!(h.path, "/a?b");
        assert_eq!(h.authority.as_deref(), Some("x:81"));
        let names: Vec<&str> = h.fields.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["user-agent", "accept", "te", "x-a"]);
        assert!(h.shown.starts_with(b"GET /a?b HTTP/2\r\nHost: x:81\r\n"));
        assert!(h
            .shown
            .ends_with(b"Connection: close\r\nTE: trailers\r\nX-A: 1\r\n\r\n"));
    }

    #[test]
    fn skipped_lines_are_neither_sent_nor_shown() {
        let h = from_h1(
            b"PUT / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
            |n, v| n == "transfer-encoding" && v == "chunked",
        )
        .unwrap();
        assert!(h.fields.is_empty());
        assert_eq!(h.shown, b"PUT / HTTP/2\r\nHost: x\r\n\r\n");
    }

    #[test]
    fn malformed() {
        assert!(from_h1(b"GET /\r\n\r\n", |_, _| false).is_err());
        assert!(from_h1(b"GET / HTTP/1.1\r\nbad\r\n\r\n", |_, _| false).is_err());
        assert!(from_h1(b"GET / HTTP/1.1\r\n", |_, _| false).is_err());
    }
}
