//! HTTP/1 response head helpers: status line recognition and parsing, header line splitting and
//! folding, Content-Length and coding list parsing, and a bounded line accumulator.
//!
//! This module does no I/O and keeps no per-response state beyond [`LineBuf`]; it decides
//! nothing about redirects, authentication or bodies. The rules follow curl 8.14.1
//! (`lib/http.c`, `lib/headers.c`), including its quirks, which are documented per function.

use std::fmt;

/// Longest single response header line curl accepts, line ending included, is one less than
/// this (curl: `CURL_MAX_HTTP_HEADER`, the cap of its header line buffer).
pub const MAX_HEADER_LINE: usize = 100 * 1024;

/// Most bytes of response headers curl accepts for one request, status line and final empty
/// line included (curl: `MAX_HTTP_RESP_HEADER_SIZE`).
pub const MAX_HEAD_TOTAL: usize = 300 * 1024;

/// HTTP version of a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Http09,
    Http10,
    Http11,
    Http2,
    Http3,
}

/// A parsed status line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusLine<'a> {
    pub version: Version,
    pub code: u16,
    /// Whatever follows the status code, leading blanks and the line ending removed. curl does
    /// not use it; it is empty for a line accepted only through the "HTTP/" fallback.
    pub reason: &'a [u8],
}

/// Why a first response line was refused. `Display` gives curl's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusLineError {
    /// `HTTP/1.x` other than 1.0 / 1.1, or no three-digit code (curl: exit 1,
    /// "Unsupported HTTP/1 subversion in response").
    UnsupportedHttp1Subversion,
    /// `HTTP/` followed by something other than 1, 2 or 3 (exit 1).
    UnsupportedVersion,
    /// Not a status line at all: curl treats the response as HTTP/0.9 (refused by default).
    NotStatusLine,
}

impl fmt::Display for StatusLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StatusLineError::UnsupportedHttp1Subversion => {
                "Unsupported HTTP/1 subversion in response"
            }
            StatusLineError::UnsupportedVersion => "Unsupported HTTP version in response",
            StatusLineError::NotStatusLine => "Received HTTP/0.9 when not allowed",
        })
    }
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// curl's `ISSPACE`: blank, CR, LF, VT, FF.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

fn three_digits(p: &[u8]) -> Option<u16> {
    if p.len() >= 3 && p[..3].iter().all(u8::is_ascii_digit) {
        Some(
            p[..3]
                .iter()
                .fold(0u16, |a, &d| a * 10 + u16::from(d - b'0')),
        )
    } else {
        None
    }
}

fn strip_eol(line: &[u8]) -> &[u8] {
    let mut l = line;
    while let [rest @ .., b'\r' | b'\n'] = l {
        l = rest;
    }
    l
}

fn reason_after(p: &[u8]) -> &[u8] {
    let mut r = strip_eol(p);
    while let [b, rest @ ..] = r {
        if !is_blank(*b) {
            break;
        }
        r = rest;
    }
    r
}

/// Parse the first line of an HTTP/1 response the way curl 8.14.1 does. `line` may include its
/// line ending.
///
/// * Leading blanks are skipped; `HTTP/` is matched case-sensitively here.
/// * `HTTP/1.0` and `HTTP/1.1` need a blank and three digits; nothing is required after them,
///   so `"HTTP/1.1 2000 x"` is code 200. Anything else after `HTTP/1` is an error.
/// * `HTTP/2` and `HTTP/3` need a blank, three digits and another blank. The caller must refuse
///   a major version change on a connection (curl: "Version mismatch (from HTTP/1 to HTTP/2)",
///   exit 8) and HTTP/3 when not built with it ("Unsupported HTTP version (3.0) in response").
/// * A line that does not parse but starts with `HTTP/` in any case (for example
///   `"http/1.1 404"` or `"HTTP/2 2000"`) is accepted as HTTP/1.0 200, which is what curl's
///   HTTP200ALIASES fallback does.
pub fn parse_status_line(line: &[u8]) -> Result<StatusLine<'_>, StatusLineError> {
    let mut p = line;
    while let [b, rest @ ..] = p {
        if !is_blank(*b) {
            break;
        }
        p = rest;
    }
    if let Some(v) = p.strip_prefix(b"HTTP/") {
        match v.first() {
            Some(b'1') => {
                if v.len() >= 4 && v[1] == b'.' && (v[2] == b'0' || v[2] == b'1') && is_blank(v[3])
                {
                    if let Some(code) = three_digits(&v[4..]) {
                        let version = if v[2] == b'0' {
                            Version::Http10
                        } else {
                            Version::Http11
                        };
                        return Ok(StatusLine {
                            version,
                            code,
                            reason: reason_after(&v[7..]),
                        });
                    }
                }
                return Err(StatusLineError::UnsupportedHttp1Subversion);
            }
            Some(&m @ (b'2' | b'3')) => {
                if v.len() >= 6 && is_blank(v[1]) {
                    if let Some(code) = three_digits(&v[2..]) {
                        if v.len() > 5 && is_blank(v[5]) {
                            let version = if m == b'2' {
                                Version::Http2
                            } else {
                                Version::Http3
                            };
                            return Ok(StatusLine {
                                version,
                                code,
                                reason: reason_after(&v[5..]),
                            });
                        }
                    }
                }
            }
            _ => return Err(StatusLineError::UnsupportedVersion),
        }
    }
    if looks_like_status_line(line) == Tri::Yes {
        return Ok(StatusLine {
            version: Version::Http10,
            code: 200,
            reason: b"",
        });
    }
    Err(StatusLineError::NotStatusLine)
}

/// Three-way answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    Yes,
    No,
    NeedMore,
}

/// Can the first bytes of a response start an HTTP/1 status line? curl compares the received
/// bytes, as many as there are up to five, case-insensitively with `"HTTP/"` (no blanks
/// skipped). `No` means curl treats the response as HTTP/0.9: it fails with
/// "Received HTTP/0.9 when not allowed" (exit 1) unless HTTP/0.9 is enabled.
pub fn looks_like_status_line(prefix: &[u8]) -> Tri {
    let n = prefix.len().min(5);
    if !prefix[..n].eq_ignore_ascii_case(&b"HTTP/"[..n]) {
        Tri::No
    } else if n == 5 {
        Tri::Yes
    } else {
        Tri::NeedMore
    }
}

/// Does `s` (the first bytes of a response, or its whole first line) start like one of the
/// `CURLOPT_HTTP200ALIASES` lines? curl's `checkprefixmax`: as many bytes as both have,
/// case-insensitively.
pub fn matches_alias(aliases: &[String], s: &[u8]) -> bool {
    aliases.iter().any(|a| {
        let n = a.len().min(s.len());
        a.as_bytes()[..n].eq_ignore_ascii_case(&s[..n])
    })
}

/// True for the line that ends a response head: curl ends the head at any line whose first
/// byte is CR or LF.
pub fn is_head_end(line: &[u8]) -> bool {
    matches!(line.first(), Some(b'\r' | b'\n'))
}

/// Checks curl applies to every header line after the status line, before anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderLineError {
    /// "Nul byte in header" (exit 8).
    NulByte,
    /// "Header without colon" (exit 8). Folded lines are exempt, except as the first header.
    NoColon,
}

impl fmt::Display for HeaderLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HeaderLineError::NulByte => "Nul byte in header",
            HeaderLineError::NoColon => "Header without colon",
        })
    }
}

/// Validate a header line (not the status line) as curl does. `first_header` is true for the
/// line right after the status line, which cannot be a continuation.
pub fn check_header_line(line: &[u8], first_header: bool) -> Result<(), HeaderLineError> {
    if line.contains(&0) {
        return Err(HeaderLineError::NulByte);
    }
    let folded = !first_header && line.first().is_some_and(|&b| is_blank(b));
    if !folded && !line.contains(&b':') {
        return Err(HeaderLineError::NoColon);
    }
    Ok(())
}

fn cut_eol(line: &[u8]) -> &[u8] {
    let end = line
        .iter()
        .position(|&b| b == b'\r')
        .or_else(|| line.iter().position(|&b| b == b'\n'))
        .unwrap_or(line.len());
    &line[..end]
}

fn trim_end_space(mut v: &[u8]) -> &[u8] {
    while let [rest @ .., b] = v {
        if !is_space(*b) {
            break;
        }
        v = rest;
    }
    v
}

/// Split a header line (with or without its line ending) into name and value, as curl's header
/// store does: the line ends at its first CR (or LF), the name is everything before the first
/// colon (not trimmed), the value has leading blanks and trailing white space removed.
/// `None` for a line without colon and for a continuation line (starting with a blank); use
/// [`continuation`] for those.
pub fn split_header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let line = cut_eol(line);
    if line.first().is_some_and(|&b| is_blank(b)) {
        return None;
    }
    let colon = line.iter().position(|&b| b == b':')?;
    let name = &line[..colon];
    let mut value = &line[colon + 1..];
    while let [b, rest @ ..] = value {
        if !is_blank(*b) {
            break;
        }
        value = rest;
    }
    Some((name, trim_end_space(value)))
}

/// For an obs-fold continuation line (starting with a space or tab), the bytes curl appends to
/// the previous header's value: trailing white space removed and the leading white space
/// squeezed to its last character, so `"X: a\r\n   b  \r\n"` gives the value `"a b"`. `None`
/// when `line` is not a continuation. curl keeps the raw lines for the header callback.
pub fn continuation(line: &[u8]) -> Option<&[u8]> {
    let line = cut_eol(line);
    if !line.first().is_some_and(|&b| is_blank(b)) {
        return None;
    }
    let mut v = trim_end_space(line);
    while v.len() > 1 && is_space(v[0]) && is_space(v[1]) {
        v = &v[1..];
    }
    Some(v)
}

/// Why a Content-Length value was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentLengthError {
    /// Digits beyond 2^63-1. curl does not fail: it notes "Overflow Content-Length: value",
    /// ignores the header and reads until the connection closes (unless a maximum file size is
    /// set: "Maximum file size exceeded", exit 63).
    Overflow,
    /// No digit after optional blanks (sign, empty, junk): "Invalid Content-Length: value",
    /// exit 8.
    Invalid,
}

/// Parse a Content-Length value (the bytes after the colon) as curl does: blanks are skipped,
/// then at least one digit is required; no sign; whatever follows the digits is ignored
/// (`"2abc"` is 2). The result is at most `i64::MAX`.
pub fn parse_content_length(v: &[u8]) -> Result<u64, ContentLengthError> {
    let mut p = v;
    while let [b, rest @ ..] = p {
        if !is_blank(*b) {
            break;
        }
        p = rest;
    }
    if !p.first().is_some_and(u8::is_ascii_digit) {
        return Err(ContentLengthError::Invalid);
    }
    let mut n: u64 = 0;
    for &d in p.iter().take_while(|b| b.is_ascii_digit()) {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
            .filter(|&n| n <= i64::MAX as u64)
            .ok_or(ContentLengthError::Overflow)?;
    }
    Ok(n)
}

/// Iterator over the codings of a Transfer-Encoding or Content-Encoding value, see [`codings`].
#[derive(Clone, Debug)]
pub struct Codings<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Codings<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        loop {
            while let [b, rest @ ..] = self.rest {
                if !(is_blank(*b) || *b == b',') {
                    break;
                }
                self.rest = rest;
            }
            if self.rest.is_empty() {
                return None;
            }
            let end = self
                .rest
                .iter()
                .position(|&b| b == b',')
                .unwrap_or(self.rest.len());
            let mut name = &self.rest[..end];
            self.rest = &self.rest[end..];
            while let [rest @ .., b] = name {
                if *b > b' ' {
                    break;
                }
                name = rest;
            }
            if !name.is_empty() {
                return Some(name);
            }
        }
    }
}

/// Why curl's header store (`Curl_headers_push`, which every response header line, CONNECT
/// reply line and trailer passes through before the header callback) refuses a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// No colon in the name: curl fails with 43, "Invalid response header".
    NoColon,
    /// Only blanks, with no header before to fold into: curl fails with 8, no message.
    Blank,
    /// No CR or LF before a zero byte (curl reads the line as a C string): 8, no message.
    NoEnd,
}

/// Check a header line (not the status line) as curl's header store does. `folds`: a header
/// line came before, so a line starting with a blank continues it. The blank line ending a
/// head passes.
pub fn store_check(line: &[u8], folds: bool) -> Result<(), StoreError> {
    if matches!(line.first(), Some(b'\r' | b'\n')) {
        return Ok(());
    }
    // As a C string: up to the first zero byte; the line ends at its first CR, else LF.
    let c = &line[..line.iter().position(|&b| b == 0).unwrap_or(line.len())];
    let end = c
        .iter()
        .position(|&b| b == b'\r')
        .or_else(|| c.iter().position(|&b| b == b'\n'))
        .ok_or(StoreError::NoEnd)?;
    let mut line = &c[..end];
    if matches!(line.first(), Some(b' ' | b'\t')) {
        if folds {
            return Ok(());
        }
        while let Some(b' ' | b'\t') = line.first() {
            line = &line[1..];
        }
        if line.is_empty() {
            return Err(StoreError::Blank);
        }
    }
    if line.contains(&b':') {
        Ok(())
    } else {
        Err(StoreError::NoColon)
    }
}

/// The non-empty comma-separated names of a coding list, as curl splits them: blanks and commas
/// before a name are skipped, a name runs to the next comma and loses trailing bytes <= space
/// (so `"gzip foo"` is one unknown name). Compare with [`coding_is`].
pub fn codings(v: &[u8]) -> Codings<'_> {
    Codings { rest: v }
}

/// Case-insensitive coding name comparison.
pub fn coding_is(name: &[u8], coding: &str) -> bool {
    name.eq_ignore_ascii_case(coding.as_bytes())
}

/// Why a response head was refused by [`LineBuf`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadError {
    /// One header line reached the line limit (curl: `CURLE_TOO_LARGE`, exit 100, with the
    /// generic text "A value or data field grew larger than allowed").
    LineTooLong,
    /// All header lines together exceed the total limit (curl: exit 56,
    /// "Too large response headers: <total> > 307200").
    TooLarge { total: usize, max: usize },
}

impl HeadError {
    /// The `CURLcode` curl returns.
    pub fn curl_code(&self) -> u32 {
        match self {
            HeadError::LineTooLong => 100,
            HeadError::TooLarge { .. } => 56,
        }
    }
}

impl fmt::Display for HeadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeadError::LineTooLong => f.write_str("A value or data field grew larger than allowed"),
            HeadError::TooLarge { total, max } => {
                write!(f, "Too large response headers: {total} > {max}")
            }
        }
    }
}

/// Where a line [`LineBuf::feed_at`] completed is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineAt {
    /// The first N bytes of the input.
    Input(usize),
    /// N bytes in the buffer ([`LineBuf::held`]): the line was split across reads.
    Held(usize),
}

/// Bounded accumulator that cuts received bytes into header lines ending in LF (a lone CR does
/// not end a line). Lines are returned with their line ending, as curl passes them to the header
/// callback. It also counts the bytes of all lines returned since [`LineBuf::clear`] against the
/// total limit. The buffer only holds a line split across reads, so it grows on demand (up to
/// the line limit) and keeps its capacity: most lines are handed out straight from the input.
#[derive(Debug)]
pub struct LineBuf {
    buf: Vec<u8>,
    max_line: usize,
    len: usize,
    /// The last returned line came from `buf`: drop it on the next call.
    emitted: bool,
    total: usize,
    max_total: usize,
}

impl Default for LineBuf {
    fn default() -> Self {
        Self::new(MAX_HEADER_LINE)
    }
}

impl LineBuf {
    /// An accumulator refusing lines of `max` bytes or more (line ending included; curl's limit
    /// is [`MAX_HEADER_LINE`]) and more than [`MAX_HEAD_TOTAL`] bytes in all.
    pub fn new(max: usize) -> Self {
        Self::with_limits(max, MAX_HEAD_TOTAL)
    }

    /// Like [`LineBuf::new`] with an explicit total limit.
    pub fn with_limits(max_line: usize, max_total: usize) -> Self {
        LineBuf {
            buf: Vec::new(),
            max_line: max_line.max(1),
            len: 0,
            emitted: false,
            total: 0,
            max_total,
        }
    }

    /// Consume bytes from `input` up to and including the next LF. Returns the number of bytes
    /// consumed and, when a line completed, the whole line (borrowed from `input` when it was not
    /// split, else from the buffer). `(input.len(), None)` means everything was buffered as a
    /// partial line. Bytes after the returned line are not consumed.
    pub fn feed<'a>(&'a mut self, input: &'a [u8]) -> Result<(usize, Option<&'a [u8]>), HeadError> {
        let (used, at) = self.feed_at(input)?;
        Ok((
            used,
            at.map(|at| match at {
                LineAt::Input(n) => &input[..n],
                LineAt::Held(n) => &self.buf[..n],
            }),
        ))
    }

    /// [`LineBuf::feed`], saying where the line is rather than borrowing it, so that a caller
    /// can use a line taken straight from `input` while it changes what holds this buffer
    /// (no copy of the line; a held one is [`LineBuf::held`]).
    pub fn feed_at(&mut self, input: &[u8]) -> Result<(usize, Option<LineAt>), HeadError> {
        if self.emitted {
            self.emitted = false;
            self.len = 0;
        }
        let lf = input.iter().position(|&b| b == b'\n');
        let take = lf.map_or(input.len(), |i| i + 1);
        if self.len + take >= self.max_line {
            return Err(HeadError::LineTooLong);
        }
        let Some(_) = lf else {
            self.buf.truncate(self.len);
            self.buf.extend_from_slice(&input[..take]);
            self.len += take;
            return Ok((take, None));
        };
        let line_len = self.len + take;
        self.total += line_len;
        if self.total > self.max_total {
            return Err(HeadError::TooLarge {
                total: self.total,
                max: self.max_total,
            });
        }
        if self.len == 0 {
            return Ok((take, Some(LineAt::Input(take))));
        }
        self.buf.truncate(self.len);
        self.buf.extend_from_slice(&input[..take]);
        self.len = line_len;
        self.emitted = true;
        Ok((take, Some(LineAt::Held(line_len))))
    }

    /// The line [`LineBuf::feed_at`] returned as [`LineAt::Held`].
    pub fn held(&self) -> &[u8] {
        if self.emitted {
            &self.buf[..self.len]
        } else {
            &[]
        }
    }

    /// Bytes of a partial line held.
    pub fn pending(&self) -> &[u8] {
        if self.emitted {
            &[]
        } else {
            &self.buf[..self.len]
        }
    }

    /// Total bytes of complete lines returned since the last [`LineBuf::clear`].
    pub fn total(&self) -> usize {
        self.total
    }

    /// Forget any partial line and reset the total count (for a new request).
    pub fn clear(&mut self) {
        self.len = 0;
        self.emitted = false;
        self.total = 0;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn header_store_checks_as_curl() {
        assert_eq!(store_check(b"A: b\r\n", false), Ok(()));
        assert_eq!(store_check(b"\r\n", false), Ok(()));
        assert_eq!(
            store_check(b"<h1>400</h1>\n", false),
            Err(StoreError::NoColon)
        );
        // A bare CR ends the line for the store: the name has no colon then.
        assert_eq!(store_check(b"a\rb: c\r\n", false), Err(StoreError::NoColon));
        assert_eq!(store_check(b"a: b\rc\r\n", false), Ok(()));
        // A zero byte before the line end leaves the C string without one.
        assert_eq!(store_check(b"a\0:\n", false), Err(StoreError::NoEnd));
        assert_eq!(store_check(b"X-T: a\0b\r\n", true), Err(StoreError::NoEnd));
        assert_eq!(store_check(b" folded\r\n", true), Ok(()));
        assert_eq!(store_check(b" x: y\r\n", false), Ok(()));
        assert_eq!(store_check(b" \t\r\n", false), Err(StoreError::Blank));
    }

    /// Small deterministic generator for the corpus tests.
    pub(crate) struct Rng(pub u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub(crate) fn below(&mut self, n: u32) -> u32 {
            if n == 0 {
                0
            } else {
                (self.next() % u64::from(n)) as u32
            }
        }
        pub(crate) fn byte(&mut self) -> u8 {
            let pool = b"\r\n:; \t0aF\x00Hh/T.12";
            if self.below(3) == 0 {
                self.next() as u8
            } else {
                pool[self.below(pool.len() as u32) as usize]
            }
        }
    }

    fn st(line: &[u8]) -> Result<(Version, u16), StatusLineError> {
        parse_status_line(line).map(|s| (s.version, s.code))
    }

    #[test]
    fn status_lines() {
        use StatusLineError::*;
        use Version::*;
        assert_eq!(st(b"HTTP/1.1 200 OK\r\n"), Ok((Http11, 200)));
        assert_eq!(
            parse_status_line(b"HTTP/1.1 200 OK\r\n").unwrap().reason,
            b"OK"
        );
        assert_eq!(st(b"HTTP/1.0 404"), Ok((Http10, 404)));
        assert_eq!(st(b"HTTP/1.1 2000 x"), Ok((Http11, 200)));
        assert_eq!(st(b"HTTP/1.1\t204\tx"), Ok((Http11, 204)));
        assert_eq!(st(b"  HTTP/1.1 203 x"), Ok((Http11, 203)));
        assert_eq!(st(b"HTTP/1.1 99 x"), Err(UnsupportedHttp1Subversion));
        assert_eq!(st(b"HTTP/1.2 200 x"), Err(UnsupportedHttp1Subversion));
        assert_eq!(st(b"HTTP/4 200 x"), Err(UnsupportedVersion));
        assert_eq!(st(b"HTTP/2 201 x"), Ok((Http2, 201)));
        assert_eq!(st(b"HTTP/3 200 x"), Ok((Http3, 200)));
        assert_eq!(st(b"HTTP/2 2010 x"), Ok((Http10, 200)));
        assert_eq!(st(b"http/1.1 404 x"), Ok((Http10, 200)));
        assert_eq!(st(b"hTtP/1.1 201 x"), Ok((Http10, 200)));
        assert_eq!(st(b"ICY 200 OK"), Err(NotStatusLine));
    }

    #[test]
    fn prefix() {
        assert_eq!(looks_like_status_line(b""), Tri::NeedMore);
        assert_eq!(looks_like_status_line(b"ht"), Tri::NeedMore);
        assert_eq!(looks_like_status_line(b"HTTP/"), Tri::Yes);
        assert_eq!(looks_like_status_line(b"http/1.1 200"), Tri::Yes);
        assert_eq!(looks_like_status_line(b"ICY"), Tri::No);
        assert_eq!(looks_like_status_line(b" HTTP/1.1"), Tri::No);
        assert_eq!(looks_like_status_line(b"hello world"), Tri::No);
    }

    #[test]
    fn headers() {
        assert_eq!(
            split_header(b"X-A:  a b \t\r\n"),
            Some((&b"X-A"[..], &b"a b"[..]))
        );
        assert_eq!(split_header(b"X-A:\r\n"), Some((&b"X-A"[..], &b""[..])));
        assert_eq!(split_header(b"Name :v\n"), Some((&b"Name "[..], &b"v"[..])));
        assert_eq!(split_header(b"nocolon\r\n"), None);
        assert_eq!(split_header(b" x: y\r\n"), None);
        assert_eq!(continuation(b"   b  \r\n"), Some(&b" b"[..]));
        assert_eq!(continuation(b"\tb\r\n"), Some(&b"\tb"[..]));
        assert_eq!(continuation(b"b\r\n"), None);
        // curl 8.14.1 shows "X-F: a\r\n   b  \r\n\tc\r\n" as the value "a b\tc".
        let mut v = split_header(b"X-F: a\r\n").unwrap().1.to_vec();
        v.extend_from_slice(continuation(b"   b  \r\n").unwrap());
        v.extend_from_slice(continuation(b"\tc\r\n").unwrap());
        assert_eq!(v, b"a b\tc");
        assert_eq!(continuation(b" \r\n"), Some(&b""[..]));
        assert_eq!(
            check_header_line(b" folded\r\n", true),
            Err(HeaderLineError::NoColon)
        );
        assert_eq!(check_header_line(b" folded\r\n", false), Ok(()));
        assert_eq!(
            check_header_line(b"X: a\0b\r\n", false),
            Err(HeaderLineError::NulByte)
        );
        assert!(is_head_end(b"\r\n") && is_head_end(b"\n") && !is_head_end(b"X: y\r\n"));
    }

    #[test]
    fn content_length() {
        use ContentLengthError::*;
        assert_eq!(parse_content_length(b" 2"), Ok(2));
        assert_eq!(parse_content_length(b"\t 2 \r\n"), Ok(2));
        assert_eq!(parse_content_length(b"2abc"), Ok(2));
        assert_eq!(parse_content_length(b"+2"), Err(Invalid));
        assert_eq!(parse_content_length(b"-2"), Err(Invalid));
        assert_eq!(parse_content_length(b" "), Err(Invalid));
        assert_eq!(
            parse_content_length(b"9223372036854775807"),
            Ok(i64::MAX as u64)
        );
        assert_eq!(parse_content_length(b"9223372036854775808"), Err(Overflow));
        assert_eq!(parse_content_length(b"99999999999999999999"), Err(Overflow));
    }

    #[test]
    fn coding_lists() {
        let v: Vec<&[u8]> = codings(b" , gzip ,, BR,zstd\t").collect();
        assert_eq!(v, vec![&b"gzip"[..], b"BR", b"zstd"]);
        assert!(coding_is(v[1], "br"));
        let v: Vec<&[u8]> = codings(b"gzip foo").collect();
        assert_eq!(v, vec![&b"gzip foo"[..]]);
        assert_eq!(codings(b" ,, ").count(), 0);
    }

    #[test]
    fn line_buf_limits() {
        let mut lb = LineBuf::new(MAX_HEADER_LINE);
        let mut line = vec![b'a'; MAX_HEADER_LINE - 2];
        line.push(b'\n');
        assert_eq!(lb.feed(&line).unwrap().1.map(<[u8]>::len), Some(line.len()));
        line.insert(0, b'a');
        assert_eq!(lb.feed(&line), Err(HeadError::LineTooLong));
        // Split across feeds.
        let mut lb = LineBuf::new(MAX_HEADER_LINE);
        assert_eq!(lb.feed(b"HTTP/1.1 2").unwrap(), (10, None));
        let (n, l) = lb.feed(b"00 OK\r\nX: y\r\n").unwrap();
        assert_eq!((n, l), (7, Some(&b"HTTP/1.1 200 OK\r\n"[..])));
        assert_eq!(lb.feed(b"X: y\r\n").unwrap(), (6, Some(&b"X: y\r\n"[..])));
        assert_eq!(lb.total(), 23);
        // Total limit: exactly at the limit is fine.
        let mut lb = LineBuf::with_limits(100, 10);
        assert!(lb.feed(b"12345678\r\n").is_ok());
        let err = lb.feed(b"\n").unwrap_err();
        assert_eq!(err, HeadError::TooLarge { total: 11, max: 10 });
        assert_eq!(err.to_string(), "Too large response headers: 11 > 10");
    }

    /// Deterministic stand-in for the `h1_head` fuzz target: no panics, and line splitting does
    /// not depend on how the input is cut.
    #[test]
    fn corpus() {
        let mut rng = Rng(42);
        for _ in 0..3000 {
            let input: Vec<u8> = (0..rng.below(60)).map(|_| rng.byte()).collect();
            let _ = parse_status_line(&input);
            let _ = looks_like_status_line(&input);
            let _ = split_header(&input);
            let _ = continuation(&input);
            let _ = parse_content_length(&input);
            let _ = check_header_line(&input, false);
            for c in codings(&input) {
                assert!(!c.is_empty() && !c.contains(&b','));
            }
            let lines = |piece: &mut dyn FnMut() -> usize| {
                let mut lb = LineBuf::with_limits(20, 50);
                let mut out: Vec<Result<Vec<u8>, HeadError>> = Vec::new();
                let mut off = 0;
                'outer: while off < input.len() {
                    let n = piece().clamp(1, input.len() - off);
                    let mut chunk = &input[off..off + n];
                    while !chunk.is_empty() {
                        match lb.feed(chunk) {
                            Ok((used, line)) => {
                                if let Some(l) = line {
                                    out.push(Ok(l.to_vec()));
                                }
                                chunk = &chunk[used..];
                            }
                            Err(e) => {
                                out.push(Err(e));
                                break 'outer;
                            }
                        }
                    }
                    off += n;
                }
                out
            };
            let whole = lines(&mut || usize::MAX);
            let mut r2 = Rng(rng.next() | 1);
            let split = lines(&mut || r2.below(5) as usize + 1);
            assert_eq!(whole, split, "{input:?}");
        }
    }
}
