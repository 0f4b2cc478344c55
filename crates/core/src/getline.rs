//! Lines as curl's C readers get them: `fgets` into a 128-byte buffer, then `strlen`. A zero
//! byte cuts the rest of the piece `fgets` read (the next piece runs on in the same line), and
//! a zero byte that starts a piece ends the reading. curl reads `.netrc` files this way
//! (`Curl_get_line`, in `auth/netrc.rs`) and its tool reads config files and `@file` headers
//! so (`get_line` in `tool_parsecfg.c`, here [`tool_lines`]). Pure: any `Read`.

use std::io::Read;

/// The piece `fgets` reads into curl's 128-byte buffer.
const FGETS: usize = 127;

/// A reader read as C's `fgets` reads a `FILE`: pieces of at most 127 bytes that end after a
/// newline, and an end-of-file flag set once a read has found the end.
pub struct Fgets<R> {
    r: R,
    buf: [u8; 4096],
    pos: usize,
    len: usize,
    eof: bool,
}

impl<R: Read> Fgets<R> {
    pub fn new(r: R) -> Self {
        Fgets {
            r,
            buf: [0; 4096],
            pos: 0,
            len: 0,
            eof: false,
        }
    }

    /// Whether a read has found the end (C's `feof`).
    pub fn eof(&self) -> bool {
        self.eof
    }

    fn byte(&mut self) -> Option<u8> {
        if self.pos == self.len {
            if self.eof {
                return None;
            }
            self.pos = 0;
            self.len = loop {
                match self.r.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break 0,
                }
            };
            if self.len == 0 {
                self.eof = true;
                return None;
            }
        }
        self.pos += 1;
        Some(self.buf[self.pos - 1])
    }

    /// The next piece into `piece`; false at the end of the file with nothing read.
    pub fn fgets(&mut self, piece: &mut Vec<u8>) -> bool {
        piece.clear();
        while piece.len() < FGETS {
            match self.byte() {
                Some(c) => {
                    piece.push(c);
                    if c == b'\n' {
                        break;
                    }
                }
                None => break,
            }
        }
        !piece.is_empty()
    }
}

/// Why [`tool_lines`] stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineTooLong;

/// curl's tool `get_line`: the next line into `line`, its newline dropped. False at the end, or
/// at a zero byte that starts a piece (a partial line then is lost, as in curl); a line of
/// `max` bytes or more is an error.
fn tool_line<R: Read>(
    f: &mut Fgets<R>,
    piece: &mut Vec<u8>,
    line: &mut Vec<u8>,
    max: usize,
) -> Result<bool, LineTooLong> {
    line.clear();
    loop {
        if !f.fgets(piece) {
            return Ok(!line.is_empty());
        }
        let n = piece.iter().position(|&c| c == 0).unwrap_or(piece.len());
        if n == 0 {
            return Ok(false);
        }
        if line.len() + n + 1 > max {
            return Err(LineTooLong);
        }
        line.extend_from_slice(&piece[..n]);
        if piece[n - 1] == b'\n' {
            line.pop();
            return Ok(true);
        }
        if f.eof() {
            return Ok(true);
        }
    }
}

/// curl's tool `my_get_line` over a whole input: its lines without newlines, blank lines and
/// comment lines (`#` first after blanks) left out, each shorter than `max` bytes.
pub fn tool_lines(data: &[u8], max: usize) -> Result<Vec<Vec<u8>>, LineTooLong> {
    let mut f = Fgets::new(data);
    let (mut piece, mut line, mut out) = (Vec::new(), Vec::new(), Vec::new());
    while tool_line(&mut f, &mut piece, &mut line, max)? {
        let t = line
            .iter()
            .position(|&c| c != b' ' && c != b'\t')
            .map_or(&[][..], |i| &line[i..]);
        if t.is_empty() || t[0] == b'#' {
            continue;
        }
        out.push(line.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_as_curls_tool_reads_them() {
        let l = |d: &[u8]| tool_lines(d, 1000).unwrap();
        assert_eq!(
            l(b"a\n\n  \n# c\n b\r\nlast"),
            vec![&b"a"[..], b" b\r", b"last"]
        );
        // A zero byte cuts the rest of its piece; the next piece runs on in the same line.
        assert_eq!(l(b"X-A: a\0b\nX-B: c\n"), vec![&b"X-A: aX-B: c"[..]]);
        // One that starts a piece ends the reading, and the partial line with it.
        assert_eq!(l(b"one\n\0two\n"), vec![&b"one"[..]]);
        assert_eq!(tool_lines(&[b'x'; 1000], 1000), Err(LineTooLong));
        assert_eq!(tool_lines(&[b'x'; 999], 1000).unwrap().len(), 1);
    }
}
