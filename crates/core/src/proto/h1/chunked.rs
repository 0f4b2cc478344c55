//! HTTP/1.1 chunked transfer-coding: a push decoder for received bodies and the chunk header
//! writer for uploads.
//!
//! This module does no I/O and knows nothing about connections or callbacks: bytes go in,
//! [`ChunkEvent`]s come out. Body data is handed back as slices of the caller's input (zero copy);
//! the only buffer is the one for a trailer line split across inputs, allocated once in
//! [`ChunkedDecoder::new`].
//!
//! The accepted syntax follows curl 8.14.1 (`lib/http_chunks.c`):
//!
//! * the size is 1 to 16 hex digits ([`CHUNK_MAXNUM_LEN`]) and must fit in a signed 64-bit value;
//! * everything after the digits up to the next LF is ignored (chunk extensions, CR, even junk);
//! * after the data, any number of CRs followed by an LF ends the chunk (a bare LF is fine);
//! * trailer lines end with CRLF or a bare LF and are limited to 4093 bytes each;
//! * the body ends with an empty line (CRLF or LF) after the last chunk and trailers.

use std::fmt;

/// The most hex digits a chunk size may have (curl: `CHUNK_MAXNUM_LEN`, twice the size of
/// `curl_off_t`). Leading zeros count.
pub const CHUNK_MAXNUM_LEN: usize = 16;

/// Longest trailer line (without its line ending) that is accepted. curl collects a trailer line
/// in a 4096 byte buffer that also has to hold the CRLF it appends and a terminating NUL.
pub const MAX_TRAILER_LINE: usize = 4093;

/// The size of curl's trailer buffer (`DYN_H1_TRAILER`). Collecting a trailer line fails as soon
/// as it reaches `TRAILER_BUF - 1` bytes.
const TRAILER_BUF: usize = 4096;

/// What [`ChunkedDecoder::decode`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkEvent<'a> {
    /// Body bytes, a sub-slice of the input.
    Data(&'a [u8]),
    /// One complete trailer header line, without its line ending. curl hands trailers to the
    /// header callback with `"\r\n"` appended, whatever line ending was received.
    Trailer(&'a [u8]),
    /// The chunked body is complete. Any input after the consumed bytes belongs to the next
    /// response on the connection.
    Done,
}

/// Why a chunked body was rejected. `Display` gives the text curl 8.14.1 reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkError {
    /// A byte that is not a hex digit where a chunk size was expected.
    BadHex(u8),
    /// More than [`CHUNK_MAXNUM_LEN`] hex digits.
    TooLongHex,
    /// The hex number does not fit in a signed 64-bit value. Holds the digits as received.
    InvalidSize([u8; CHUNK_MAXNUM_LEN]),
    /// Bad framing around chunk data, trailers or the final line.
    BadCrlf,
    /// A trailer line longer than [`MAX_TRAILER_LINE`].
    TrailerTooLong,
}

impl ChunkError {
    /// The `CURLcode` curl returns for this error: `CURLE_RECV_ERROR` (56), or
    /// `CURLE_TOO_LARGE` (100) for an oversized trailer line.
    pub fn curl_code(&self) -> u32 {
        match self {
            ChunkError::TrailerTooLong => 100,
            _ => 56,
        }
    }
}

impl fmt::Display for ChunkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChunkError::BadHex(b) => write!(f, "chunk hex-length char not a hex digit: 0x{b:x}"),
            ChunkError::TooLongHex => {
                write!(f, "chunk hex-length longer than {CHUNK_MAXNUM_LEN}")
            }
            ChunkError::InvalidSize(digits) => {
                f.write_str("invalid chunk size: '")?;
                for &d in digits.iter().take_while(|&&d| d != 0) {
                    write!(f, "{}", d as char)?;
                }
                f.write_str("'")
            }
            ChunkError::BadCrlf => f.write_str("Malformed encoding found in chunked-encoding"),
            ChunkError::TrailerTooLong => f.write_str("Out of memory in chunked-encoding"),
        }
    }
}

impl std::error::Error for ChunkError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Collecting hex digits of a chunk size.
    Hex,
    /// Skipping to the LF that ends the chunk size line.
    SizeLf,
    /// Inside chunk data.
    Data,
    /// After chunk data: CRs, then an LF.
    PostData,
    /// Collecting a trailer line (or seeing the empty final line).
    Trailer,
    /// A trailer line ended: an LF must follow.
    TrailerLf,
    /// At the start of a line after the last chunk: another trailer, or the final line.
    TrailerLineStart,
    /// The final line's CR was seen (or skipped): its LF must follow.
    FinalLf,
    Done,
    Failed(ChunkError),
}

/// Push decoder for a chunked body. See the module documentation for the accepted syntax.
#[derive(Debug)]
pub struct ChunkedDecoder {
    state: State,
    hex: [u8; CHUNK_MAXNUM_LEN],
    hexlen: usize,
    /// Bytes left in the current chunk.
    left: u64,
    trailer: Box<[u8]>,
    tlen: usize,
    /// A trailer line was returned from `trailer`; clear it on the next call.
    trailer_emitted: bool,
}

impl Default for ChunkedDecoder {
    fn default() -> Self {
        Self::new()
    }
}

fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

fn hexval(b: u8) -> u64 {
    match b {
        b'0'..=b'9' => u64::from(b - b'0'),
        b'a'..=b'f' => u64::from(b - b'a' + 10),
        _ => u64::from(b - b'A' + 10),
    }
}

impl ChunkedDecoder {
    /// A decoder at the start of a chunked body. Allocates the trailer line buffer.
    pub fn new() -> Self {
        ChunkedDecoder {
            state: State::Hex,
            hex: [0; CHUNK_MAXNUM_LEN],
            hexlen: 0,
            left: 0,
            trailer: vec![0u8; TRAILER_BUF].into_boxed_slice(),
            tlen: 0,
            trailer_emitted: false,
        }
    }

    /// Start over for a new body, keeping the buffer.
    pub fn reset(&mut self) {
        self.state = State::Hex;
        self.hexlen = 0;
        self.left = 0;
        self.tlen = 0;
        self.trailer_emitted = false;
    }

    /// True once the final empty line has been consumed.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Consume bytes from `input`. Returns how many bytes were consumed and at most one event.
    ///
    /// * `Data` borrows from `input`; `Trailer` borrows from `input` or from the decoder.
    /// * `(n, None)` means all `n == input.len()` bytes were consumed without an event.
    /// * After `Done`, the consumed count stops exactly after the final LF; further calls
    ///   return `(0, Some(Done))` and consume nothing.
    /// * After an error every further call returns the same error.
    ///
    /// Callers loop, advancing `input` by the consumed count, until the input is used up or
    /// `Done` is seen.
    pub fn decode<'a>(
        &'a mut self,
        input: &'a [u8],
    ) -> Result<(usize, Option<ChunkEvent<'a>>), ChunkError> {
        if self.trailer_emitted {
            self.trailer_emitted = false;
            self.tlen = 0;
        }
        let mut pos = 0;
        while pos < input.len() {
            let b = input[pos];
            match self.state {
                State::Failed(e) => return Err(e),
                State::Done => return Ok((pos, Some(ChunkEvent::Done))),
                State::Hex => {
                    if is_hex(b) {
                        if self.hexlen >= CHUNK_MAXNUM_LEN {
                            return self.fail(ChunkError::TooLongHex);
                        }
                        self.hex[self.hexlen] = b;
                        self.hexlen += 1;
                        pos += 1;
                    } else {
                        if self.hexlen == 0 {
                            return self.fail(ChunkError::BadHex(b));
                        }
                        let mut v: u64 = 0;
                        for &d in &self.hex[..self.hexlen] {
                            v = (v << 4) | hexval(d);
                        }
                        // 16 digits fit in u64; the limit is curl_off_t.
                        if v > i64::MAX as u64 {
                            let mut digits = [0u8; CHUNK_MAXNUM_LEN];
                            digits[..self.hexlen].copy_from_slice(&self.hex[..self.hexlen]);
                            return self.fail(ChunkError::InvalidSize(digits));
                        }
                        self.left = v;
                        self.state = State::SizeLf;
                    }
                }
                State::SizeLf => {
                    // Skip extensions and anything else up to the LF.
                    match input[pos..].iter().position(|&c| c == b'\n') {
                        Some(i) => {
                            pos += i + 1;
                            self.state = if self.left == 0 {
                                self.tlen = 0;
                                State::Trailer
                            } else {
                                State::Data
                            };
                        }
                        None => pos = input.len(),
                    }
                }
                State::Data => {
                    let avail = (input.len() - pos) as u64;
                    let n = avail.min(self.left) as usize;
                    self.left -= n as u64;
                    if self.left == 0 {
                        self.state = State::PostData;
                    }
                    return Ok((pos + n, Some(ChunkEvent::Data(&input[pos..pos + n]))));
                }
                State::PostData => {
                    if b == b'\n' {
                        self.state = State::Hex;
                        self.hexlen = 0;
                    } else if b != b'\r' {
                        return self.fail(ChunkError::BadCrlf);
                    }
                    pos += 1;
                }
                State::Trailer => {
                    if b == b'\r' || b == b'\n' {
                        if self.tlen == 0 {
                            // No trailer: this is the final line.
                            self.state = State::TrailerLineStart;
                            continue;
                        }
                        if self.tlen > MAX_TRAILER_LINE {
                            return self.fail(ChunkError::TrailerTooLong);
                        }
                        self.state = State::TrailerLf;
                        if b == b'\r' {
                            pos += 1;
                        }
                        self.trailer_emitted = true;
                        let line = &self.trailer[..self.tlen];
                        return Ok((pos, Some(ChunkEvent::Trailer(line))));
                    }
                    // Fast path: a whole line in the input and nothing buffered.
                    let rest = &input[pos..];
                    let end = rest.iter().position(|&c| c == b'\r' || c == b'\n');
                    if self.tlen == 0 {
                        if let Some(i) = end {
                            if i > MAX_TRAILER_LINE {
                                return self.fail(ChunkError::TrailerTooLong);
                            }
                            let mut used = pos + i;
                            if rest[i] == b'\r' {
                                used += 1;
                            }
                            self.state = State::TrailerLf;
                            return Ok((used, Some(ChunkEvent::Trailer(&rest[..i]))));
                        }
                    }
                    let take = end.unwrap_or(rest.len());
                    // curl's buffer refuses a byte once the line holds TRAILER_BUF - 1 bytes.
                    let room = TRAILER_BUF - 1 - self.tlen;
                    if take > room {
                        return self.fail(ChunkError::TrailerTooLong);
                    }
                    self.trailer[self.tlen..self.tlen + take].copy_from_slice(&rest[..take]);
                    self.tlen += take;
                    pos += take;
                }
                State::TrailerLf => {
                    if b != b'\n' {
                        return self.fail(ChunkError::BadCrlf);
                    }
                    pos += 1;
                    self.tlen = 0;
                    self.state = State::TrailerLineStart;
                }
                State::TrailerLineStart => {
                    if b != b'\r' && b != b'\n' {
                        self.tlen = 0;
                        self.state = State::Trailer;
                        continue;
                    }
                    if b == b'\r' {
                        pos += 1;
                    }
                    self.state = State::FinalLf;
                }
                State::FinalLf => {
                    if b != b'\n' {
                        return self.fail(ChunkError::BadCrlf);
                    }
                    self.state = State::Done;
                    return Ok((pos + 1, Some(ChunkEvent::Done)));
                }
            }
        }
        match self.state {
            State::Failed(e) => Err(e),
            State::Done => Ok((pos, Some(ChunkEvent::Done))),
            _ => Ok((pos, None)),
        }
    }

    fn fail<T>(&mut self, e: ChunkError) -> Result<T, ChunkError> {
        self.state = State::Failed(e);
        Err(e)
    }
}

/// Write the chunk header for an upload chunk of `len` bytes (`"1a2b\r\n"`, lower-case hex as
/// curl sends it) into `buf` and return the used part. `len == 0` gives the last-chunk line
/// `"0\r\n"`; the caller adds the final `"\r\n"` (or trailers).
pub fn chunk_header(len: usize, buf: &mut [u8; 20]) -> &[u8] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut digits = [0u8; 16];
    let mut n = 0;
    let mut v = len as u64;
    loop {
        digits[n] = HEX[(v & 0xf) as usize];
        n += 1;
        v >>= 4;
        if v == 0 {
            break;
        }
    }
    for i in 0..n {
        buf[i] = digits[n - 1 - i];
    }
    buf[n] = b'\r';
    buf[n + 1] = b'\n';
    &buf[..n + 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Eq)]
    enum Ev {
        Data(Vec<u8>),
        Trailer(Vec<u8>),
        Done(usize),
        Err(ChunkError),
    }

    /// Decode `input` fed in pieces of the given sizes; data events are merged.
    fn run(input: &[u8], piece: &mut dyn FnMut() -> usize) -> Vec<Ev> {
        let mut d = ChunkedDecoder::new();
        let mut out: Vec<Ev> = Vec::new();
        let mut off = 0;
        let mut data = Vec::new();
        let flush = |data: &mut Vec<u8>, out: &mut Vec<Ev>| {
            if !data.is_empty() {
                out.push(Ev::Data(std::mem::take(data)));
            }
        };
        while off < input.len() {
            let n = piece().max(1).min(input.len() - off);
            let mut chunk = &input[off..off + n];
            let mut base = off;
            loop {
                match d.decode(chunk) {
                    Ok((used, ev)) => {
                        match ev {
                            Some(ChunkEvent::Data(s)) => data.extend_from_slice(s),
                            Some(ChunkEvent::Trailer(t)) => {
                                let t = t.to_vec();
                                flush(&mut data, &mut out);
                                out.push(Ev::Trailer(t));
                            }
                            Some(ChunkEvent::Done) => {
                                flush(&mut data, &mut out);
                                out.push(Ev::Done(base + used));
                                return out;
                            }
                            None => {}
                        }
                        base += used;
                        chunk = &chunk[used..];
                        if chunk.is_empty() {
                            break;
                        }
                    }
                    Err(e) => {
                        flush(&mut data, &mut out);
                        out.push(Ev::Err(e));
                        return out;
                    }
                }
            }
            off += n;
        }
        flush(&mut data, &mut out);
        out
    }

    fn whole(input: &[u8]) -> Vec<Ev> {
        run(input, &mut || usize::MAX)
    }

    fn bytewise(input: &[u8]) -> Vec<Ev> {
        run(input, &mut || 1)
    }

    fn both(input: &[u8]) -> Vec<Ev> {
        let a = whole(input);
        assert_eq!(a, bytewise(input), "split mismatch for {input:?}");
        a
    }

    #[test]
    fn simple() {
        let r = both(b"3\r\nabc\r\n0\r\nX-T: v\r\n\r\nNEXT");
        assert_eq!(
            r,
            vec![
                Ev::Data(b"abc".to_vec()),
                Ev::Trailer(b"X-T: v".to_vec()),
                Ev::Done(21)
            ]
        );
    }

    #[test]
    fn lenient_line_endings() {
        // Bare LF after size and data, CRs before the LF after data, junk after the size.
        for input in [
            &b"3\nabc\r\n0\r\n\r\n"[..],
            b"3\r\nabc\n0\r\n\r\n",
            b"3\r\nabc\r\r\r\n0\r\n\r\n",
            b"3;foo=bar\r\nabc\r\n0;x\r\n\r\n",
            b"3 zz\x01\rq\r\nabc\r\n0\r\n\r\n",
            b"0000000000000003\r\nabc\r\n0\r\n\n",
        ] {
            let r = both(input);
            assert_eq!(r[0], Ev::Data(b"abc".to_vec()));
            assert_eq!(*r.last().unwrap(), Ev::Done(input.len()), "{input:?}");
        }
    }

    #[test]
    fn errors() {
        let e = |input: &[u8]| match both(input).pop().unwrap() {
            Ev::Err(e) => e,
            other => panic!("{other:?}"),
        };
        assert_eq!(e(b"g\r\n"), ChunkError::BadHex(b'g'));
        assert_eq!(e(b"\r\n3\r\n"), ChunkError::BadHex(b'\r'));
        assert_eq!(e(b" 3\r\n"), ChunkError::BadHex(b' '));
        assert_eq!(e(b"00000000000000003\r\n"), ChunkError::TooLongHex);
        let big = e(b"ffffffffffffffff\r\n");
        assert_eq!(big.to_string(), "invalid chunk size: 'ffffffffffffffff'");
        assert_eq!(e(b"3\r\nabcX\r\n"), ChunkError::BadCrlf);
        assert_eq!(e(b"3\r\nabc\r\n0\r\nA: 1\r\r\n\r\n"), ChunkError::BadCrlf);
        assert_eq!(e(b"0\r\n\rX"), ChunkError::BadCrlf);
        assert_eq!(
            ChunkError::BadHex(b'g').to_string(),
            "chunk hex-length char not a hex digit: 0x67"
        );
        assert_eq!(
            ChunkError::TooLongHex.to_string(),
            "chunk hex-length longer than 16"
        );
        assert_eq!(
            ChunkError::BadCrlf.to_string(),
            "Malformed encoding found in chunked-encoding"
        );
        assert_eq!(ChunkError::TrailerTooLong.curl_code(), 100);
    }

    #[test]
    fn max_size_accepted() {
        let mut d = ChunkedDecoder::new();
        let (n, ev) = d.decode(b"7fffffffffffffff\r\nab").unwrap();
        assert_eq!(n, 20);
        assert_eq!(ev, Some(ChunkEvent::Data(b"ab")));
    }

    #[test]
    fn trailers_lf_and_limits() {
        let r = both(b"0\r\nA: 1\nB: 2\n\n");
        assert_eq!(
            r,
            vec![
                Ev::Trailer(b"A: 1".to_vec()),
                Ev::Trailer(b"B: 2".to_vec()),
                Ev::Done(14)
            ]
        );
        for (len, ok) in [(4093, true), (4094, false), (4095, false), (5000, false)] {
            let mut input = b"0\r\n".to_vec();
            input.extend(std::iter::repeat_n(b'x', len));
            input.extend_from_slice(b"\r\n\r\n");
            let r = both(&input);
            if ok {
                assert_eq!(r[0], Ev::Trailer(vec![b'x'; len]));
            } else {
                assert_eq!(r, vec![Ev::Err(ChunkError::TrailerTooLong)], "{len}");
            }
        }
    }

    #[test]
    fn done_is_sticky_and_consumes_nothing() {
        let mut d = ChunkedDecoder::new();
        let input = b"0\r\n\r\nHTTP/1.1";
        let (n, ev) = d.decode(input).unwrap();
        assert_eq!((n, ev), (5, Some(ChunkEvent::Done)));
        assert!(d.is_done());
        assert_eq!(d.decode(b"xyz").unwrap(), (0, Some(ChunkEvent::Done)));
    }

    #[test]
    fn header_writer() {
        let mut buf = [0u8; 20];
        assert_eq!(chunk_header(0, &mut buf), b"0\r\n");
        assert_eq!(chunk_header(0x1a2b, &mut buf), b"1a2b\r\n");
        assert_eq!(chunk_header(usize::MAX, &mut buf), b"ffffffffffffffff\r\n");
    }

    /// Deterministic stand-in for the `chunked` fuzz target: arbitrary and mutated inputs never
    /// panic and decode the same whatever the split.
    #[test]
    fn split_invariance_corpus() {
        let mut rng = crate::proto::h1::head::tests::Rng(0x1234_5678);
        let seeds: [&[u8]; 4] = [
            b"3\r\nabc\r\n0\r\nX: y\r\n\r\n",
            b"a;ext\r\n0123456789\r\n1\nz\n0\n\n",
            b"0\r\nA: 1\r\nB: 2\r\n\r\nrest",
            b"10\r\n0123456789abcdef\r\r\n0\r\n\r\n",
        ];
        for i in 0..3000 {
            let mut input = seeds[i % seeds.len()].to_vec();
            for _ in 0..rng.below(4) {
                let p = rng.below(input.len() as u32 + 1) as usize;
                match rng.below(3) {
                    0 if p < input.len() => input[p] = rng.byte(),
                    1 => input.insert(p, rng.byte()),
                    _ if p < input.len() => {
                        input.remove(p);
                    }
                    _ => {}
                }
            }
            if i % 7 == 0 {
                input = (0..rng.below(40)).map(|_| rng.byte()).collect();
            }
            let a = whole(&input);
            let mut r2 = crate::proto::h1::head::tests::Rng(i as u64 + 1);
            let b = run(&input, &mut || r2.below(6) as usize + 1);
            assert_eq!(a, b, "{input:?}");
        }
    }
}
