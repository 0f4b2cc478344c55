//! Chunked transfer-coding (interim version; replaced by the full module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkError {
    BadHex,
    TooLongHex,
    BadCrlf,
    TrailerTooLong,
}
impl std::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
pub enum ChunkEvent<'a> {
    Data(&'a [u8]),
    Trailer(&'a [u8]),
    Done,
}
#[derive(Debug, PartialEq)]
enum St {
    Size,
    Ext,
    SizeLf,
    Data(u64),
    DataCr,
    DataLf,
    Trailer,
    Done,
}
pub struct ChunkedDecoder {
    st: St,
    size: u64,
    digits: usize,
    line: Vec<u8>,
}
impl Default for ChunkedDecoder {
    fn default() -> Self {
        Self::new()
    }
}
impl ChunkedDecoder {
    pub fn new() -> Self {
        ChunkedDecoder {
            st: St::Size,
            size: 0,
            digits: 0,
            line: Vec::new(),
        }
    }
    pub fn is_done(&self) -> bool {
        self.st == St::Done
    }
    pub fn decode<'a>(
        &mut self,
        input: &'a [u8],
    ) -> Result<(usize, Option<ChunkEvent<'a>>), ChunkError> {
        let mut i = 0;
        while i < input.len() {
            let b = input[i];
            match self.st {
                St::Size => match (b as char).to_digit(16) {
                    Some(d) => {
                        self.digits += 1;
                        if self.digits > 16 {
                            return Err(ChunkError::TooLongHex);
                        }
                        self.size = self.size * 16 + d as u64;
                        i += 1;
                    }
                    None if self.digits == 0 => return Err(ChunkError::BadHex),
                    None if b == b'\r' => {
                        self.st = St::SizeLf;
                        i += 1
                    }
                    None => {
                        self.st = St::Ext;
                        i += 1
                    }
                },
                St::Ext => {
                    if b == b'\r' {
                        self.st = St::SizeLf;
                    }
                    i += 1;
                }
                St::SizeLf => {
                    if b != b'\n' {
                        return Err(ChunkError::BadCrlf);
                    }
                    i += 1;
                    self.st = if self.size == 0 {
                        St::Trailer
                    } else {
                        St::Data(self.size)
                    };
                    self.digits = 0;
                    self.size = 0;
                }
                St::Data(left) => {
                    let n = (left.min((input.len() - i) as u64)) as usize;
                    self.st = if left == n as u64 {
                        St::DataCr
                    } else {
                        St::Data(left - n as u64)
                    };
                    return Ok((i + n, Some(ChunkEvent::Data(&input[i..i + n]))));
                }
                St::DataCr => {
                    if b != b'\r' {
                        return Err(ChunkError::BadCrlf);
                    }
                    self.st = St::DataLf;
                    i += 1;
                }
                St::DataLf => {
                    if b != b'\n' {
                        return Err(ChunkError::BadCrlf);
                    }
                    self.st = St::Size;
                    i += 1;
                }
                St::Trailer => {
                    i += 1;
                    if b == b'\n' {
                        if self.line.is_empty() || self.line == b"\r" {
                            self.st = St::Done;
                            self.line.clear();
                            return Ok((i, Some(ChunkEvent::Done)));
                        }
                        self.line.clear();
                    } else {
                        self.line.push(b);
                    }
                }
                St::Done => return Ok((i, Some(ChunkEvent::Done))),
            }
        }
        Ok((i, None))
    }
}
pub fn chunk_header(len: usize, buf: &mut [u8; 20]) -> &[u8] {
    let s = format!("{len:x}\r\n");
    buf[..s.len()].copy_from_slice(s.as_bytes());
    &buf[..s.len()]
}
