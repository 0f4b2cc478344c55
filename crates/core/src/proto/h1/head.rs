//! Response head helpers (interim version; replaced by the full module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Http09,
    Http10,
    Http11,
    Http2,
    Http3,
}
pub struct StatusLine<'a> {
    pub version: Version,
    pub code: u16,
    pub reason: &'a [u8],
}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    Yes,
    No,
    NeedMore,
}
pub fn parse_status_line(line: &[u8]) -> Option<StatusLine<'_>> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (version, rest) = if let Some(r) = line.strip_prefix(b"HTTP/1.1 ") {
        (Version::Http11, r)
    } else if let Some(r) = line.strip_prefix(b"HTTP/1.0 ") {
        (Version::Http10, r)
    } else if let Some(r) = line.strip_prefix(b"HTTP/2 ") {
        (Version::Http2, r)
    } else {
        return None;
    };
    if rest.len() < 3 || !rest[..3].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let code =
        (rest[0] - b'0') as u16 * 100 + (rest[1] - b'0') as u16 * 10 + (rest[2] - b'0') as u16;
    Some(StatusLine {
        version,
        code,
        reason: rest.get(4..).unwrap_or(b""),
    })
}
pub fn looks_like_status_line(prefix: &[u8]) -> Tri {
    let n = prefix.len().min(5);
    if !b"HTTP/"[..n].eq_ignore_ascii_case(&prefix[..n]) {
        Tri::No
    } else if n < 5 {
        Tri::NeedMore
    } else {
        Tri::Yes
    }
}
pub fn split_header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = line.iter().position(|&b| b == b':')?;
    let v = &line[i + 1..];
    let s = v
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(v.len());
    let e = v
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map(|x| x + 1)
        .unwrap_or(s);
    Some((&line[..i], &v[s..e.max(s)]))
}
#[allow(clippy::result_unit_err)]
pub fn parse_content_length(v: &[u8]) -> Result<u64, ()> {
    std::str::from_utf8(v)
        .map_err(|_| ())?
        .trim()
        .parse()
        .map_err(|_| ())
}
pub fn codings(v: &[u8]) -> impl Iterator<Item = &[u8]> {
    v.split(|&b| b == b',').map(|c| {
        let s = c
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(c.len());
        let e = c
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map(|x| x + 1)
            .unwrap_or(s);
        &c[s..e.max(s)]
    })
}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadError {
    TooLarge,
}
pub struct LineBuf {
    buf: Vec<u8>,
    max: usize,
    total: usize,
    ready: bool,
}
impl LineBuf {
    pub fn new(max: usize) -> Self {
        LineBuf {
            buf: Vec::new(),
            max,
            total: 0,
            ready: false,
        }
    }
    pub fn feed<'a>(&'a mut self, input: &[u8]) -> Result<(usize, Option<&'a [u8]>), HeadError> {
        if self.ready {
            self.buf.clear();
            self.ready = false;
        }
        match input.iter().position(|&b| b == b'\n') {
            Some(i) => {
                self.buf.extend_from_slice(&input[..=i]);
                self.total += i + 1;
                if self.total > self.max {
                    return Err(HeadError::TooLarge);
                }
                self.ready = true;
                Ok((i + 1, Some(&self.buf)))
            }
            None => {
                self.buf.extend_from_slice(input);
                self.total += input.len();
                if self.total > self.max {
                    return Err(HeadError::TooLarge);
                }
                Ok((input.len(), None))
            }
        }
    }
    pub fn clear(&mut self) {
        self.buf.clear();
        self.total = 0;
        self.ready = false;
    }
}
