//! The HTTP CONNECT tunnel handshake (curl's `cf-h1-proxy.c`), sans-IO: the caller sends
//! `request()` and feeds the proxy's reply bytes in; the tunnel says when the head is
//! complete and with which status. Bounded memory: header lines and the whole head have
//! limits, so a hostile proxy cannot grow it. Does no I/O.

use crate::proto::h1::head::{self, LineBuf};

/// Longest CONNECT response header line (curl's `DYN_PROXY_CONNECT_HEADERS`).
pub const MAX_LINE: usize = 16 * 1024;
/// Largest CONNECT response head in total (curl's `MAX_HTTP_RESP_HEADER_SIZE`).
pub const MAX_HEAD: usize = 300 * 1024;

/// Most header lines in a CONNECT response (curl's `MAX_HTTP_RESP_HEADER_COUNT`).
pub const MAX_HEADERS: usize = 5000;

/// What building the CONNECT request needs.
#[derive(Debug)]
pub struct ConnectRequest<'a> {
    /// `host:port` (IPv6 in brackets).
    pub authority: &'a str,
    pub http10: bool,
    /// The `Proxy-Authorization` value (`Basic ...`, `Digest ...`, `NTLM ...`).
    pub authorization: Option<&'a [u8]>,
    pub useragent: Option<&'a str>,
    /// `--proxy-header` lines.
    pub headers: &'a [String],
}

fn has(headers: &[String], name: &str) -> bool {
    crate::proto::h1::request::custom_has(headers, name)
}

/// The CONNECT request head, byte-identical to curl's.
pub fn request(r: &ConnectRequest<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    let ver = if r.http10 { "1.0" } else { "1.1" };
    out.extend_from_slice(format!("CONNECT {} HTTP/{ver}\r\n", r.authority).as_bytes());
    if !has(r.headers, "Host") {
        out.extend_from_slice(format!("Host: {}\r\n", r.authority).as_bytes());
    }
    if let Some(a) = r.authorization {
        out.extend_from_slice(b"Proxy-Authorization: ");
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    if let Some(ua) = r.useragent.filter(|u| !u.is_empty()) {
        if !has(r.headers, "User-Agent") {
            out.extend_from_slice(format!("User-Agent: {ua}\r\n").as_bytes());
        }
    }
    if !has(r.headers, "Proxy-Connection") {
        out.extend_from_slice(b"Proxy-Connection: Keep-Alive\r\n");
    }
    for h in r.headers {
        crate::proto::h1::request::add_custom(&mut out, h);
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// Why the handshake failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TunnelError {
    /// A line or the whole head was over the limit.
    TooLarge,
    /// More than [`MAX_HEADERS`] header lines.
    TooManyHeaders,
}

/// Something the reply produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// One complete header line (status line included) with its line ending.
    Line(&'a [u8]),
    /// The head ended: the tunnel is up when `code` is 2xx.
    Done,
}

/// The reply side of the handshake.
#[derive(Debug)]
pub struct Tunnel {
    lines: LineBuf,
    first: bool,
    headers: usize,
    pub code: u32,
    /// The proxy said `Connection: close` or `Proxy-Connection: close` (or spoke HTTP/1.0 without keep-alive).
    pub close: bool,
    pub done: bool,
}

impl Default for Tunnel {
    fn default() -> Tunnel {
        Tunnel::new()
    }
}

impl Tunnel {
    pub fn new() -> Tunnel {
        Tunnel {
            lines: LineBuf::with_limits(MAX_LINE, MAX_HEAD),
            first: true,
            headers: 0,
            code: 0,
            close: false,
            done: false,
        }
    }

    /// How many header lines after the status line the reply had so far.
    pub fn header_lines(&self) -> usize {
        self.headers
    }

    /// Feed reply bytes; returns how many were used and the event they completed, if any.
    /// Bytes after the head are not consumed: they belong to the tunnel.
    pub fn feed<'a>(
        &'a mut self,
        input: &'a [u8],
    ) -> Result<(usize, Option<Event<'a>>), TunnelError> {
        if self.done {
            return Ok((0, None));
        }
        let (used, line) = self.lines.feed(input).map_err(|_| TunnelError::TooLarge)?;
        let Some(line) = line else {
            return Ok((used, None));
        };
        if head::is_head_end(line) {
            self.done = true;
            return Ok((used, Some(Event::Line(line))));
        }
        if self.first {
            self.first = false;
            self.code = status_code(line);
            return Ok((used, Some(Event::Line(line))));
        }
        self.headers += 1;
        if self.headers > MAX_HEADERS {
            return Err(TunnelError::TooManyHeaders);
        }
        if let Some((name, value)) = head::split_header(line) {
            if (name.eq_ignore_ascii_case(b"connection")
                || name.eq_ignore_ascii_case(b"proxy-connection"))
                && trim(value).eq_ignore_ascii_case(b"close")
            {
                self.close = true;
            }
        }
        Ok((used, Some(Event::Line(line))))
    }
}

/// The status code of `HTTP/1.x NNN ...`, 0 when the line is not one.
fn status_code(line: &[u8]) -> u32 {
    let Some(rest) = line.strip_prefix(b"HTTP/1.") else {
        return 0;
    };
    let rest = match rest.first() {
        Some(b'0'..=b'9') => &rest[1..],
        _ => return 0,
    };
    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
    if rest.len() < 3 || !rest[..3].iter().all(u8::is_ascii_digit) {
        return 0;
    }
    rest[..3]
        .iter()
        .fold(0u32, |n, d| n * 10 + u32::from(d - b'0'))
}

fn trim(v: &[u8]) -> &[u8] {
    let s = v
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(v.len());
    let e = v
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(s, |i| i + 1);
    &v[s..e.max(s)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(t: &mut Tunnel, mut data: &[u8]) -> Result<Vec<Vec<u8>>, TunnelError> {
        let mut lines = Vec::new();
        while !data.is_empty() && !t.done {
            let (n, ev) = t.feed(data)?;
            if let Some(Event::Line(l)) = ev {
                lines.push(l.to_vec());
            }
            data = &data[n..];
        }
        Ok(lines)
    }

    #[test]
    fn request_bytes() {
        let r = request(&ConnectRequest {
            authority: "example.com:443",
            http10: false,
            authorization: Some(b"Basic YTpi"),
            useragent: Some("curl/8.14.1"),
            headers: &["X-P: 1".to_string()],
        });
        assert_eq!(
            r,
            b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\
Proxy-Authorization: Basic YTpi\r\nUser-Agent: curl/8.14.1\r\n\
Proxy-Connection: Keep-Alive\r\nX-P: 1\r\n\r\n"
        );
    }

    #[test]
    fn reply_established() {
        let mut t = Tunnel::new();
        let lines = run(&mut t, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nTLS").unwrap();
        assert_eq!(lines.len(), 3);
        assert!(t.done);
        assert_eq!(t.code, 200);
        assert!(t.close);
    }

    #[test]
    fn leftover_not_consumed() {
        let mut t = Tunnel::new();
        let data = b"HTTP/1.0 407 No\r\n\r\nbody";
        let mut used = 0;
        while !t.done {
            used += t.feed(&data[used..]).unwrap().0;
        }
        assert_eq!(&data[used..], b"body");
        assert_eq!(t.code, 407);
    }

    #[test]
    fn garbage_status() {
        let mut t = Tunnel::new();
        run(&mut t, b"garbage\r\n\r\n").unwrap();
        assert_eq!(t.code, 0);
    }

    #[test]
    fn oversized_line_fails() {
        let mut t = Tunnel::new();
        let big = vec![b'a'; MAX_LINE + 10];
        assert_eq!(run(&mut t, &big), Err(TunnelError::TooLarge));
    }

    #[test]
    fn endless_headers_fail() {
        let mut t = Tunnel::new();
        let mut data = b"HTTP/1.1 200 OK\r\n".to_vec();
        while data.len() < MAX_HEAD + 100 {
            data.extend_from_slice(b"X-Junk: ");
            data.extend(std::iter::repeat_n(b'a', 1000));
            data.extend_from_slice(b"\r\n");
        }
        assert_eq!(run(&mut t, &data), Err(TunnelError::TooLarge));
    }

    #[test]
    fn too_many_headers_fail() {
        let mut t = Tunnel::new();
        let mut data = b"HTTP/1.1 200 OK\r\n".to_vec();
        for _ in 0..=MAX_HEADERS {
            data.extend_from_slice(b"A: b\r\n");
        }
        assert_eq!(run(&mut t, &data), Err(TunnelError::TooManyHeaders));
    }
}
