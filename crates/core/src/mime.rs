//! MIME multipart bodies as curl builds them (lib/mime.c): form-data and nested
//! multipart/mixed parts, curl's header order (Content-Disposition, Content-Type,
//! Content-Transfer-Encoding, then the user's headers), content types guessed from file name
//! extensions, curl's escaping of names and file names, and the base64, quoted-printable,
//! 7bit, 8bit and binary encoders. The body streams: file contents are read while sending.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A multipart body (`curl_mime`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mime {
    /// `form-data` at the top of an HTTP form, `mixed` inside a part.
    pub subtype: &'static str,
    pub boundary: String,
    pub parts: Vec<MimePart>,
    /// `--form-escape`: backslash-escape `"` and `\` in names instead of percent-encoding.
    pub backslash_escape: bool,
}

/// Where a part's data comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PartData {
    #[default]
    Empty,
    Bytes(Vec<u8>),
    /// Read when sent (`curl_mime_filedata`).
    File(PathBuf),
    Multipart(Mime),
    /// Produced by the application while sending (`curl_mime_data_cb`).
    Callback(CallbackData),
}

impl PartData {
    /// Data held in memory but read the way a data callback of known size is (curl's tool
    /// sends stdin parts through one): a read that needs it ends a chunked upload's chunk.
    pub fn callback_bytes(data: Vec<u8>) -> PartData {
        let size = Some(data.len() as u64);
        PartData::Callback(CallbackData {
            source: Arc::new(Mutex::new(Box::new(MemSource { data, pos: 0 }))),
            size,
        })
    }
}

/// In-memory data as a [`PartSource`].
struct MemSource {
    data: Vec<u8>,
    pos: usize,
}

impl PartSource for MemSource {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, MimeError> {
        let n = (self.data.len() - self.pos).min(buf.len());
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
    fn rewind(&mut self) -> bool {
        self.pos = 0;
        true
    }
}

/// Part data the application hands out on demand.
pub trait PartSource: Send {
    /// Fill `buf`; `Ok(0)` ends the data.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, MimeError>;
    /// Back to the start before the data is sent (again); false when that cannot be done.
    fn rewind(&mut self) -> bool;
}

/// A [`PartSource`] and its size, unknown when `None` (the body then goes chunked).
#[derive(Clone)]
pub struct CallbackData {
    pub source: Arc<Mutex<Box<dyn PartSource>>>,
    pub size: Option<u64>,
}

impl std::fmt::Debug for CallbackData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackData")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl PartialEq for CallbackData {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.source, &other.source) && self.size == other.size
    }
}

impl Eq for CallbackData {}

impl CallbackData {
    fn read(&self, buf: &mut [u8]) -> Result<usize, MimeError> {
        self.source.lock().map_err(|_| MimeError::Read)?.read(buf)
    }
    fn rewind(&self) -> Result<(), MimeError> {
        let mut s = self.source.lock().map_err(|_| MimeError::Read)?;
        if s.rewind() {
            Ok(())
        } else {
            Err(MimeError::Rewind)
        }
    }
}

/// `curl_mime_encoder` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoder {
    Binary,
    Bit8,
    Bit7,
    Base64,
    QuotedPrintable,
}

impl Encoder {
    pub fn from_name(name: &str) -> Option<Encoder> {
        Some(match name.to_ascii_lowercase().as_str() {
            "binary" => Encoder::Binary,
            "8bit" => Encoder::Bit8,
            "7bit" => Encoder::Bit7,
            "base64" => Encoder::Base64,
            "quoted-printable" => Encoder::QuotedPrintable,
            _ => return None,
        })
    }
    fn name(self) -> &'static str {
        match self {
            Encoder::Binary => "binary",
            Encoder::Bit8 => "8bit",
            Encoder::Bit7 => "7bit",
            Encoder::Base64 => "base64",
            Encoder::QuotedPrintable => "quoted-printable",
        }
    }
}

/// One part (`curl_mimepart`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MimePart {
    pub name: Option<String>,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    /// Extra header lines, without line endings.
    pub headers: Vec<String>,
    pub encoder: Option<Encoder>,
    pub data: PartData,
}

/// A MIME body could not be produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MimeError {
    /// Reading a part failed (curl: `CURLE_READ_ERROR`).
    Read,
    /// A part's read callback asked to abort (curl: `CURLE_ABORTED_BY_CALLBACK`).
    Aborted,
    /// A part's read callback paused the upload (`CURL_READFUNC_PAUSE`): nothing was read,
    /// the next read once sending is let go asks the callback again.
    Pause,
    /// A part's data, read before, cannot be read again from its start (no seek callback,
    /// or it failed): curl's `CURLE_SEND_FAIL_REWIND` when the body must go again.
    Rewind,
}

/// curl's boundary: 24 dashes and 22 random alphanumerics.
pub fn new_boundary(random: &[u8; 22]) -> String {
    const ALNUM: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut s = String::with_capacity(46);
    s.push_str("------------------------");
    for b in random {
        s.push(ALNUM[*b as usize % ALNUM.len()] as char);
    }
    s
}

/// A boundary from the system's random source.
pub fn random_boundary() -> String {
    let mut r = [0u8; 22];
    // The system RNG does not fail on Linux; a fixed boundary would still be valid.
    let _ = aws_lc_rs::rand::fill(&mut r);
    new_boundary(&r)
}

/// curl's `content_type_match`: `t` is `target`, alone or followed by a blank or `;`.
fn content_type_match(t: &str, target: &str) -> bool {
    t.get(..target.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(target))
        && matches!(
            t.as_bytes().get(target.len()),
            None | Some(b'\t' | b'\r' | b'\n' | b' ' | b';')
        )
}

/// curl's `Curl_mime_contenttype`: a type from a file name extension.
pub fn content_type_for(filename: &str) -> Option<&'static str> {
    const TYPES: &[(&str, &str)] = &[
        (".gif", "image/gif"),
        (".jpg", "image/jpeg"),
        (".jpeg", "image/jpeg"),
        (".png", "image/png"),
        (".svg", "image/svg+xml"),
        (".txt", "text/plain"),
        (".htm", "text/html"),
        (".html", "text/html"),
        (".pdf", "application/pdf"),
        (".xml", "application/xml"),
    ];
    let lower = filename.to_ascii_lowercase();
    TYPES
        .iter()
        .find(|(ext, _)| lower.ends_with(ext))
        .map(|(_, t)| *t)
}

/// curl's `match_header`: the value of header line `line` when it is `name:`, blanks after
/// the colon skipped.
fn match_header<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let rest = line
        .get(..name.len())
        .filter(|k| k.eq_ignore_ascii_case(name))
        .map(|_| &line[name.len()..])?;
    rest.strip_prefix(':').map(|v| v.trim_start_matches(' '))
}

fn escape(s: &str, backslash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' if backslash => out.push_str("\\\""),
            '\\' if backslash => out.push_str("\\\\"),
            '"' => out.push_str("%22"),
            '\r' if !backslash => out.push_str("%0D"),
            '\n' if !backslash => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// Longest line the base64 and quoted-printable encoders write (curl's
/// `MAX_ENCODED_LINE_LENGTH`).
const MAX_LINE: usize = 76;
/// Size of an encoder's input buffer (curl's `ENCODING_BUFFER_SIZE`).
const ENC_BUF: usize = 256;

/// What one step of a reader gives (curl's size_t results with their special values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Got {
    /// Bytes written; 0 is the end of the data.
    Data(usize),
    /// Nothing more without a second read callback in this read (curl's `STOP_FILLING`).
    Stop,
    Fail(MimeError),
}

/// An encoder's input buffer and output line position (curl's `mime_encoder_state`).
#[derive(Debug)]
struct EncState {
    pos: usize,
    beg: usize,
    end: usize,
    buf: Box<[u8; ENC_BUF]>,
}

impl EncState {
    fn new() -> EncState {
        EncState {
            pos: 0,
            beg: 0,
            end: 0,
            buf: Box::new([0; ENC_BUF]),
        }
    }

    fn reset(&mut self) {
        self.pos = 0;
        self.beg = 0;
        self.end = 0;
    }

    /// Encode buffered input into `out` (curl's `encodefunc`).
    fn encode(&mut self, enc: Encoder, out: &mut [u8], ateof: bool) -> Got {
        match enc {
            Encoder::Binary | Encoder::Bit8 => self.nop(out),
            Encoder::Bit7 => self.bit7(out),
            Encoder::Base64 => self.base64(out, ateof),
            Encoder::QuotedPrintable => self.qp(out, ateof),
        }
    }

    fn nop(&mut self, out: &mut [u8]) -> Got {
        if out.is_empty() {
            return Got::Stop;
        }
        let n = out.len().min(self.end - self.beg);
        out[..n].copy_from_slice(&self.buf[self.beg..self.beg + n]);
        self.beg += n;
        Got::Data(n)
    }

    /// 7bit: the data as it is, but a byte with the high bit set is a read error.
    fn bit7(&mut self, out: &mut [u8]) -> Got {
        if out.is_empty() {
            return Got::Stop;
        }
        let n = out.len().min(self.end - self.beg);
        for (i, o) in out[..n].iter_mut().enumerate() {
            let b = self.buf[self.beg];
            if b & 0x80 != 0 {
                return if i > 0 {
                    Got::Data(i)
                } else {
                    Got::Fail(MimeError::Read)
                };
            }
            *o = b;
            self.beg += 1;
        }
        Got::Data(n)
    }

    /// Base64 in lines of 76 characters separated by CRLF; groups of three input bytes
    /// until the input ends.
    fn base64(&mut self, out: &mut [u8], ateof: bool) -> Got {
        const TABLE: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut n = 0;
        while self.beg < self.end {
            if self.pos > MAX_LINE - 4 {
                if out.len() - n < 2 {
                    if n == 0 {
                        return Got::Stop;
                    }
                    break;
                }
                out[n..n + 2].copy_from_slice(b"\r\n");
                self.pos = 0;
                n += 2;
            }
            if out.len() - n < 4 {
                if n == 0 {
                    return Got::Stop;
                }
                break;
            }
            if self.end - self.beg < 3 {
                break;
            }
            let b = &self.buf[self.beg..self.beg + 3];
            let i = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            self.beg += 3;
            for (k, o) in out[n..n + 4].iter_mut().enumerate() {
                *o = TABLE[((i >> (18 - 6 * k)) & 0x3f) as usize];
            }
            n += 4;
            self.pos += 4;
        }
        if ateof {
            if out.len() - n < 4 {
                if n == 0 {
                    return Got::Stop;
                }
            } else if self.end != self.beg {
                // One or two bytes left.
                let two = self.end - self.beg == 2;
                let mut i = u32::from(self.buf[self.beg]) << 16;
                if two {
                    i |= u32::from(self.buf[self.beg + 1]) << 8;
                }
                out[n] = TABLE[((i >> 18) & 0x3f) as usize];
                out[n + 1] = TABLE[((i >> 12) & 0x3f) as usize];
                out[n + 2] = if two {
                    TABLE[((i >> 6) & 0x3f) as usize]
                } else {
                    b'='
                };
                out[n + 3] = b'=';
                self.beg = self.end;
                n += 4;
                self.pos += 4;
            }
        }
        Got::Data(n)
    }

    /// Is there a CRLF or the end of the data `k` bytes ahead? `None`: more input needed
    /// (curl's `qp_lookahead_eol`).
    fn qp_eol_at(&self, ateof: bool, k: usize) -> Option<bool> {
        let k = self.beg + k;
        if k >= self.end && ateof {
            return Some(true);
        }
        if k + 2 > self.end {
            return if ateof { Some(false) } else { None };
        }
        Some(self.buf[k] == b'\r' && self.buf[k + 1] == b'\n')
    }

    /// Quoted-printable: `=XX` for bytes outside printable ASCII and for `=`, blanks kept
    /// unless a line break follows, CRLF kept, soft breaks (`=` CRLF) keep lines within 76.
    fn qp(&mut self, out: &mut [u8], ateof: bool) -> Got {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let mut n = 0;
        while self.beg < self.end {
            let c = self.buf[self.beg];
            let mut piece = [c, HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]];
            let mut len = 1;
            let mut consumed = 1;
            match c {
                b' ' | b'\t' => match self.qp_eol_at(ateof, 1) {
                    None => return Got::Data(n),
                    Some(false) => {}
                    Some(true) => {
                        piece[0] = b'=';
                        len = 3;
                    }
                },
                b'\r' => match self.qp_eol_at(ateof, 0) {
                    None => return Got::Data(n),
                    Some(true) => {
                        piece[1] = b'\n';
                        len = 2;
                        consumed = 2;
                    }
                    Some(false) => {
                        piece[0] = b'=';
                        len = 3;
                    }
                },
                33..=60 | 62..=126 => {}
                _ => {
                    piece[0] = b'=';
                    len = 3;
                }
            }
            if piece[len - 1] != b'\n' {
                let mut soft = self.pos + len > MAX_LINE;
                if !soft && self.pos + len == MAX_LINE {
                    // The line may be filled only at the end of the data or before a CRLF.
                    match self.qp_eol_at(ateof, consumed) {
                        None => return Got::Data(n),
                        Some(false) => soft = true,
                        Some(true) => {}
                    }
                }
                if soft {
                    piece = *b"=\r\n";
                    len = 3;
                    consumed = 0;
                }
            }
            if len > out.len() - n {
                if n == 0 {
                    return Got::Stop;
                }
                break;
            }
            out[n..n + len].copy_from_slice(&piece[..len]);
            n += len;
            self.pos += len;
            if piece[len - 1] == b'\n' {
                self.pos = 0;
            }
            self.beg += consumed;
        }
        Got::Data(n)
    }
}

/// Size of a part's encoded data (curl's `sizefunc`s); `None` when unknown.
fn encoded_size(enc: Option<Encoder>, size: Option<u64>) -> Option<u64> {
    match enc {
        None | Some(Encoder::Binary | Encoder::Bit8 | Encoder::Bit7) => size,
        Some(Encoder::Base64) => match size? {
            0 => Some(0),
            s => {
                let chars = 4 * (1 + (s - 1) / 3);
                Some(chars + 2 * ((chars - 1) / MAX_LINE as u64))
            }
        },
        // Known only when there is no data.
        Some(Encoder::QuotedPrintable) => (size == Some(0)).then_some(0),
    }
}

impl Mime {
    /// `Content-Type` value of this body.
    pub fn content_type(&self) -> String {
        format!("multipart/{}; boundary={}", self.subtype, self.boundary)
    }

    /// `Content-Type` value of this body sent as `custom` (a request's own `Content-Type`
    /// header): curl keeps the type as given and appends the boundary.
    pub fn content_type_as(&self, custom: Option<&str>) -> String {
        match custom {
            Some(t) => format!("{t}; boundary={}", self.boundary),
            None => self.content_type(),
        }
    }

    fn headers(&self, part: &MimePart, esc: bool, form: bool) -> Vec<u8> {
        let mut h = String::new();
        let user = |n: &str| part.headers.iter().find_map(|l| match_header(l, n));
        // A Content-Type among the part's headers is its type, written where curl's goes.
        let custom = part
            .content_type
            .as_deref()
            .or_else(|| user("Content-Type"));
        let ctype: Option<String> = match (custom, &part.data) {
            (Some(t), _) => Some(t.to_string()),
            (None, PartData::Multipart(m)) => Some(format!("multipart/{}", m.subtype)),
            (None, PartData::File(p)) => {
                let f = part.filename.clone().unwrap_or_default();
                content_type_for(&f)
                    .or_else(|| content_type_for(&p.to_string_lossy()))
                    // A guessed text/plain goes unsaid for a part without a file name.
                    .filter(|t| part.filename.is_some() || *t != "text/plain")
                    .map(str::to_string)
                    .or_else(|| {
                        part.filename
                            .as_ref()
                            .map(|_| "application/octet-stream".to_string())
                    })
            }
            (None, _) => part
                .filename
                .as_deref()
                .and_then(content_type_for)
                .map(str::to_string),
        };
        if user("Content-Disposition").is_none() {
            let disposition = if form {
                Some("form-data")
            } else if part.filename.is_some() || part.name.is_some() {
                // curl drops an "attachment" that would name nothing.
                Some("attachment")
            } else {
                None
            };
            if let Some(d) = disposition {
                h.push_str("Content-Disposition: ");
                h.push_str(d);
                if let Some(n) = &part.name {
                    h.push_str("; name=\"");
                    h.push_str(&escape(n, esc));
                    h.push('"');
                }
                if let Some(f) = &part.filename {
                    h.push_str("; filename=\"");
                    h.push_str(&escape(f, esc));
                    h.push('"');
                }
                h.push_str("\r\n");
            }
        }
        if let Some(t) = &ctype {
            h.push_str("Content-Type: ");
            h.push_str(t);
            if let PartData::Multipart(m) = &part.data {
                h.push_str("; boundary=");
                h.push_str(&m.boundary);
            }
            h.push_str("\r\n");
        }
        if let Some(e) = part.encoder {
            if user("Content-Transfer-Encoding").is_none() {
                h.push_str("Content-Transfer-Encoding: ");
                h.push_str(e.name());
                h.push_str("\r\n");
            }
        }
        for l in part
            .headers
            .iter()
            .filter(|l| match_header(l, "Content-Type").is_none())
        {
            h.push_str(l);
            h.push_str("\r\n");
        }
        h.push_str("\r\n");
        h.into_bytes()
    }

    /// The reader of this body's parts, from their current state (files looked at, data
    /// callbacks rewound).
    fn multi_reader(&self, form: bool) -> Result<MultiReader, MimeError> {
        let b = self.boundary.as_bytes();
        let n = self.parts.len();
        let mut delims = Vec::with_capacity(n + 1);
        // The first boundary follows the headers' empty line: no CRLF of its own.
        for i in 0..=n {
            let mut d = Vec::with_capacity(b.len() + 8);
            if i > 0 {
                d.extend_from_slice(b"\r\n");
            }
            d.extend_from_slice(b"--");
            d.extend_from_slice(b);
            d.extend_from_slice(if i < n { b"\r\n" } else { b"--\r\n" });
            delims.push(d);
        }
        let mut parts = Vec::with_capacity(n);
        for part in &self.parts {
            let (src, size) = match &part.data {
                PartData::Empty => (Source::Empty, Some(0)),
                PartData::Bytes(v) => (Source::Bytes(v.clone()), Some(v.len() as u64)),
                PartData::File(p) => {
                    // curl looks at the file when the part is set: a regular file has a size.
                    let meta = std::fs::metadata(p).map_err(|_| MimeError::Read)?;
                    File::open(p).map_err(|_| MimeError::Read)?;
                    let size = meta.is_file().then_some(meta.len());
                    (
                        Source::File {
                            path: p.clone(),
                            file: None,
                            eof: false,
                        },
                        size,
                    )
                }
                PartData::Multipart(m) => {
                    let r = m.multi_reader(m.subtype == "form-data")?;
                    let size = r.size();
                    (Source::Multi(Box::new(r)), size)
                }
                PartData::Callback(c) => {
                    c.rewind()?;
                    (Source::Callback(c.clone()), c.size)
                }
            };
            parts.push(PartReader {
                headers: self.headers(part, self.backslash_escape, form),
                hoff: 0,
                state: PartState::Headers,
                enc: part.encoder.map(|e| (e, EncState::new())),
                content: Content {
                    src,
                    size,
                    offset: 0,
                    last: Last::Ok,
                },
            });
        }
        Ok(MultiReader {
            delims,
            parts,
            state: MultiState::Delim(0),
            offset: 0,
        })
    }

    /// A reader for the whole body, and its size when known.
    pub fn reader(&self) -> Result<(MimeReader, Option<u64>), MimeError> {
        self.reader_as(None)
    }

    /// A reader for the whole body sent as `custom` (see [`Mime::content_type_as`]): its
    /// parts are `form-data` only when that type is multipart/form-data, as in curl's
    /// `Curl_mime_prepare_headers`; otherwise named parts are attachments.
    pub fn reader_as(&self, custom: Option<&str>) -> Result<(MimeReader, Option<u64>), MimeError> {
        let form = match custom {
            Some(t) => content_type_match(t, "multipart/form-data"),
            None => self.subtype == "form-data",
        };
        let root = self.multi_reader(form)?;
        let total = root.size();
        Ok((
            MimeReader {
                root,
                total,
                read_len: 0,
                tmp: Vec::new(),
                tmp_pos: 0,
                eos: false,
            },
            total,
        ))
    }
}

/// Where a part's data comes from while reading.
#[derive(Debug)]
enum Source {
    Empty,
    Bytes(Vec<u8>),
    /// Opened at the first read; `eof` once a read came back short (curl's `feof`).
    File {
        path: PathBuf,
        file: Option<File>,
        eof: bool,
    },
    Callback(CallbackData),
    Multi(Box<MultiReader>),
}

/// How the last read of a part's data went (curl's `lastreadstatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    Ok,
    End,
    Failed(MimeError),
}

/// A part's data, its size when known and how far it has been read.
#[derive(Debug)]
struct Content {
    src: Source,
    size: Option<u64>,
    offset: u64,
    last: Last,
}

impl Content {
    /// curl's `read_part_content`: in-memory data fills `buf`; a file or a callback is read
    /// at most once per [`MimeReader::read`] (`hasread`), so that the bytes a read of the
    /// application's data gives end what that read hands out.
    fn read(&mut self, buf: &mut [u8], hasread: &mut bool) -> Got {
        match self.last {
            Last::End => return Got::Data(0),
            Last::Failed(e) => return Got::Fail(e),
            Last::Ok => {}
        }
        let got = if self.size.is_some_and(|s| self.offset >= s) {
            Got::Data(0)
        } else {
            match &mut self.src {
                Source::Empty => Got::Data(0),
                Source::Bytes(v) => {
                    let from = usize::try_from(self.offset)
                        .unwrap_or(usize::MAX)
                        .min(v.len());
                    let n = (v.len() - from).min(buf.len());
                    buf[..n].copy_from_slice(&v[from..from + n]);
                    Got::Data(n)
                }
                Source::Multi(m) => m.read(buf, hasread),
                Source::File {
                    file: Some(_),
                    eof: true,
                    ..
                } => Got::Data(0),
                _ if *hasread => return Got::Stop,
                Source::File { path, file, eof } => {
                    *hasread = true;
                    read_file(path, file, eof, buf)
                }
                Source::Callback(c) => {
                    *hasread = true;
                    match c.read(buf) {
                        Ok(n) => Got::Data(n),
                        Err(e) => Got::Fail(e),
                    }
                }
            }
        };
        match got {
            // A pause is no failure: the next read asks the source again (curl's
            // `mime_unpause` resets the part's `lastreadstatus`).
            Got::Stop | Got::Fail(MimeError::Pause) => {}
            Got::Data(0) => self.last = Last::End,
            Got::Fail(e) => self.last = Last::Failed(e),
            Got::Data(n) => {
                self.offset += n as u64;
                self.last = Last::Ok;
            }
        }
        got
    }

    /// The file goes once its data is read, sparing descriptors (as curl).
    fn close(&mut self) {
        if let Source::File { file, .. } = &mut self.src {
            *file = None;
        }
    }
}

/// `fread`: fill `buf` unless the file ends first.
fn read_file(path: &PathBuf, file: &mut Option<File>, eof: &mut bool, buf: &mut [u8]) -> Got {
    if file.is_none() {
        match File::open(path) {
            Ok(f) => *file = Some(f),
            Err(_) => return Got::Fail(MimeError::Read),
        }
    }
    let f = file.as_mut().expect("opened");
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => {
                *eof = true;
                break;
            }
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => {
                return if n > 0 {
                    Got::Data(n)
                } else {
                    Got::Fail(MimeError::Read)
                }
            }
        }
    }
    Got::Data(n)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PartState {
    Headers,
    Content,
    End,
}

/// Reads one part: its headers, then its (encoded) data (curl's `readback_part`).
#[derive(Debug)]
struct PartReader {
    headers: Vec<u8>,
    hoff: usize,
    state: PartState,
    enc: Option<(Encoder, EncState)>,
    content: Content,
}

impl PartReader {
    fn size(&self) -> Option<u64> {
        let data = match &self.content.src {
            Source::Multi(m) => m.size(),
            _ => self.content.size,
        };
        encoded_size(self.enc.as_ref().map(|e| e.0), data).map(|s| s + self.headers.len() as u64)
    }

    fn read(&mut self, buf: &mut [u8], hasread: &mut bool) -> Got {
        let mut n = 0;
        while n < buf.len() {
            match self.state {
                PartState::Headers => {
                    let k = (self.headers.len() - self.hoff).min(buf.len() - n);
                    buf[n..n + k].copy_from_slice(&self.headers[self.hoff..self.hoff + k]);
                    self.hoff += k;
                    n += k;
                    if self.hoff == self.headers.len() {
                        if let Some((_, st)) = &mut self.enc {
                            st.reset();
                        }
                        self.state = PartState::Content;
                    }
                }
                PartState::Content => {
                    let got = match &mut self.enc {
                        Some((e, st)) => {
                            read_encoded(*e, st, &mut self.content, &mut buf[n..], hasread)
                        }
                        None => self.content.read(&mut buf[n..], hasread),
                    };
                    match got {
                        Got::Data(0) => {
                            self.state = PartState::End;
                            self.content.close();
                            return Got::Data(n);
                        }
                        Got::Data(k) => n += k,
                        other => return if n > 0 { Got::Data(n) } else { other },
                    }
                }
                PartState::End => return Got::Data(n),
            }
        }
        Got::Data(n)
    }
}

/// curl's `read_encoded_part_content`: encode what the encoder holds, refill it from the
/// part's data when it needs more.
fn read_encoded(
    enc: Encoder,
    st: &mut EncState,
    content: &mut Content,
    buf: &mut [u8],
    hasread: &mut bool,
) -> Got {
    let mut n = 0;
    let mut ateof = false;
    loop {
        if st.beg < st.end || ateof {
            match st.encode(enc, &mut buf[n..], ateof) {
                Got::Data(0) if ateof => return Got::Data(n),
                Got::Data(0) => {}
                Got::Data(k) => {
                    n += k;
                    continue;
                }
                other => return if n > 0 { Got::Data(n) } else { other },
            }
        }
        // More input needed.
        if st.beg > 0 {
            st.buf.copy_within(st.beg..st.end, 0);
            st.end -= st.beg;
            st.beg = 0;
        }
        if st.end >= ENC_BUF {
            return if n > 0 {
                Got::Data(n)
            } else {
                Got::Fail(MimeError::Read)
            };
        }
        let end = st.end;
        match content.read(&mut st.buf[end..], hasread) {
            Got::Data(0) => ateof = true,
            Got::Data(k) => st.end += k,
            other => return if n > 0 { Got::Data(n) } else { other },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MultiState {
    /// The boundary before part i (or the closing one after the last).
    Delim(usize),
    Part(usize),
    End,
}

/// Reads a multipart: boundaries and parts (curl's `mime_subparts_read`).
#[derive(Debug)]
struct MultiReader {
    delims: Vec<Vec<u8>>,
    parts: Vec<PartReader>,
    state: MultiState,
    offset: usize,
}

impl MultiReader {
    /// curl's `multipart_size`.
    fn size(&self) -> Option<u64> {
        let mut size = self.delims.iter().map(|d| d.len() as u64).sum::<u64>();
        for p in &self.parts {
            size += p.size()?;
        }
        Some(size)
    }

    fn read(&mut self, buf: &mut [u8], hasread: &mut bool) -> Got {
        let mut n = 0;
        while n < buf.len() {
            match self.state {
                MultiState::Delim(i) => {
                    let d = &self.delims[i];
                    let k = (d.len() - self.offset).min(buf.len() - n);
                    buf[n..n + k].copy_from_slice(&d[self.offset..self.offset + k]);
                    self.offset += k;
                    n += k;
                    if self.offset == d.len() {
                        self.offset = 0;
                        self.state = if i < self.parts.len() {
                            MultiState::Part(i)
                        } else {
                            MultiState::End
                        };
                    }
                }
                MultiState::Part(i) => match self.parts[i].read(&mut buf[n..], hasread) {
                    Got::Data(0) => self.state = MultiState::Delim(i + 1),
                    Got::Data(k) => n += k,
                    other => return if n > 0 { Got::Data(n) } else { other },
                },
                MultiState::End => break,
            }
        }
        Got::Data(n)
    }
}

/// Streams a MIME body as curl's mime client reader does (`cr_mime_read` over
/// `Curl_mime_read`): each read ends where a second read of a part's file or callback data
/// would be needed, so a chunked upload makes the chunks curl makes.
#[derive(Debug)]
pub struct MimeReader {
    root: MultiReader,
    /// The body's size when known: no more is handed out, and less is an error.
    total: Option<u64>,
    read_len: u64,
    /// What a read into a buffer of four bytes or less got beyond it.
    tmp: Vec<u8>,
    tmp_pos: usize,
    eos: bool,
}

impl MimeReader {
    /// curl's `Curl_mime_read`: read again while a part's read must wait for the next call.
    fn read_once(&mut self, buf: &mut [u8]) -> Got {
        loop {
            let mut hasread = false;
            match self.root.read(buf, &mut hasread) {
                Got::Stop => continue,
                got => return got,
            }
        }
    }

    /// The body's size is known and it has all been read: no more to come.
    pub fn at_end(&self) -> bool {
        self.eos
    }

    /// Fill `buf`; 0 means the end.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, MimeError> {
        if self.eos {
            return Ok(0);
        }
        let mut blen = buf.len();
        if let Some(total) = self.total {
            let remain = total.saturating_sub(self.read_len);
            blen = blen.min(usize::try_from(remain).unwrap_or(usize::MAX));
        }
        let got = if self.tmp_pos < self.tmp.len() {
            let n = (self.tmp.len() - self.tmp_pos).min(blen);
            buf[..n].copy_from_slice(&self.tmp[self.tmp_pos..self.tmp_pos + n]);
            self.tmp_pos += n;
            Got::Data(n)
        } else if blen <= 4 {
            // An encoder cannot always fit its output into a few bytes: read into a
            // larger buffer and hand it out from there.
            let mut tmp = std::mem::take(&mut self.tmp);
            tmp.resize(256, 0);
            let got = self.read_once(&mut tmp);
            if let Got::Data(k) = got {
                tmp.truncate(k);
                let n = k.min(blen);
                buf[..n].copy_from_slice(&tmp[..n]);
                self.tmp_pos = n;
                self.tmp = tmp;
                Got::Data(n)
            } else {
                tmp.clear();
                self.tmp = tmp;
                got
            }
        } else {
            self.read_once(&mut buf[..blen])
        };
        match got {
            Got::Data(0) => {
                if self.total.is_some_and(|t| self.read_len < t) {
                    return Err(MimeError::Read);
                }
                self.eos = true;
                Ok(0)
            }
            Got::Data(n) => {
                self.read_len += n as u64;
                if self.total.is_some_and(|t| self.read_len >= t) {
                    self.eos = true;
                }
                Ok(n)
            }
            Got::Fail(e) => Err(e),
            Got::Stop => Err(MimeError::Read),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(m: &Mime) -> (Vec<u8>, Option<u64>) {
        let (mut r, size) = m.reader().unwrap();
        let mut out = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        (out, size)
    }

    #[test]
    fn form_with_value_and_type() {
        let m = Mime {
            subtype: "form-data",
            boundary: "B".into(),
            parts: vec![
                MimePart {
                    name: Some("name".into()),
                    data: PartData::Bytes(b"value".to_vec()),
                    ..MimePart::default()
                },
                MimePart {
                    name: Some("q\"x".into()),
                    content_type: Some("text/plain".into()),
                    data: PartData::Bytes(b"v".to_vec()),
                    ..MimePart::default()
                },
            ],
            backslash_escape: false,
        };
        let (body, size) = read_all(&m);
        let want = "--B\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nvalue\r\n\
                    --B\r\nContent-Disposition: form-data; name=\"q%22x\"\r\n\
                    Content-Type: text/plain\r\n\r\nv\r\n--B--\r\n";
        assert_eq!(String::from_utf8(body).unwrap(), want);
        assert_eq!(size, Some(want.len() as u64));
    }

    fn encode_all(e: Encoder, data: &[u8]) -> Vec<u8> {
        let mut content = Content {
            src: Source::Bytes(data.to_vec()),
            size: Some(data.len() as u64),
            offset: 0,
            last: Last::Ok,
        };
        let mut st = EncState::new();
        let mut out = Vec::new();
        loop {
            let mut buf = [0u8; 100];
            match read_encoded(e, &mut st, &mut content, &mut buf, &mut false) {
                Got::Data(0) => return out,
                Got::Data(n) => out.extend_from_slice(&buf[..n]),
                other => panic!("{other:?}"),
            }
        }
    }

    fn base64_lines(data: &[u8]) -> Vec<u8> {
        let out = encode_all(Encoder::Base64, data);
        assert_eq!(
            encoded_size(Some(Encoder::Base64), Some(data.len() as u64)),
            Some(out.len() as u64)
        );
        out
    }

    fn quoted_printable(data: &[u8]) -> Vec<u8> {
        encode_all(Encoder::QuotedPrintable, data)
    }

    #[test]
    fn encoders() {
        assert_eq!(base64_lines(b"v"), b"dg==");
        assert_eq!(base64_lines(b"dummy"), b"ZHVtbXk=");
        assert_eq!(base64_lines(&[0u8; 57 * 3]).len(), 76 * 3 + 4);
        let long = base64_lines(&[0u8; 60]);
        assert_eq!(long.len(), 80 + 2);
        assert_eq!(&long[76..78], b"\r\n");
        assert_eq!(quoted_printable("caf\u{e9} ok".as_bytes()), b"caf=C3=A9 ok");
        assert_eq!(quoted_printable(b"a \r\nb="), b"a=20\r\nb=3D");
        let soft = quoted_printable(&[b'x'; 80]);
        assert_eq!(&soft[75..78], b"=\r\n");
    }

    struct Chunks(Vec<u8>, usize, u32);

    impl PartSource for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> Result<usize, MimeError> {
            let n = (self.0.len() - self.1).min(buf.len()).min(3);
            buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
        fn rewind(&mut self) -> bool {
            self.1 = 0;
            self.2 += 1;
            true
        }
    }

    #[test]
    fn callback_parts_with_and_without_size() {
        let src = |size| {
            PartData::Callback(CallbackData {
                source: Arc::new(Mutex::new(Box::new(Chunks(b"abcdefg".to_vec(), 0, 0)))),
                size,
            })
        };
        for size in [Some(7), None] {
            let m = Mime {
                subtype: "form-data",
                boundary: "B".into(),
                parts: vec![MimePart {
                    name: Some("cb".into()),
                    data: src(size),
                    ..MimePart::default()
                }],
                backslash_escape: false,
            };
            let (body, got) = read_all(&m);
            let want =
                "--B\r\nContent-Disposition: form-data; name=\"cb\"\r\n\r\nabcdefg\r\n--B--\r\n";
            assert_eq!(String::from_utf8(body).unwrap(), want);
            assert_eq!(got, size.map(|_| want.len() as u64));
            // A second reader (a redirect) rewinds the source and sends it again.
            assert_eq!(read_all(&m).0.len(), want.len());
        }
    }

    /// Gives "A", pauses once, then gives "B" (curl's libtest 670's read callback).
    struct PauseOnce(u8);

    impl PartSource for PauseOnce {
        fn read(&mut self, buf: &mut [u8]) -> Result<usize, MimeError> {
            self.0 += 1;
            match self.0 {
                1 => buf[0] = b'A',
                2 => return Err(MimeError::Pause),
                3 => buf[0] = b'B',
                _ => return Ok(0),
            }
            Ok(1)
        }
        fn rewind(&mut self) -> bool {
            self.0 = 0;
            true
        }
    }

    /// A paused callback ends the read with what came before, the next read says paused,
    /// and the read after that asks the callback again: the body is whole, as if never paused.
    #[test]
    fn a_paused_callback_part_resumes_where_it_stopped() {
        for (enc, data) in [(None, "AB"), (Some(Encoder::Base64), "QUI=")] {
            for size in [Some(2), None] {
                let m = Mime {
                    subtype: "form-data",
                    boundary: "B".into(),
                    parts: vec![MimePart {
                        name: Some("field".into()),
                        encoder: enc,
                        data: PartData::Callback(CallbackData {
                            source: Arc::new(Mutex::new(Box::new(PauseOnce(0)))),
                            size,
                        }),
                        ..MimePart::default()
                    }],
                    backslash_escape: false,
                };
                let (mut r, total) = m.reader().unwrap();
                let mut body = Vec::new();
                let mut buf = [0u8; 1024];
                let mut pauses = 0;
                loop {
                    match r.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => body.extend_from_slice(&buf[..n]),
                        Err(MimeError::Pause) if pauses == 0 => pauses += 1,
                        Err(e) => panic!("{e:?} after {pauses} pause(s)"),
                    }
                }
                assert_eq!(pauses, 1, "{enc:?} {size:?}");
                let head = match enc {
                    Some(_) => "Content-Transfer-Encoding: base64\r\n",
                    None => "",
                };
                let want = format!(
                    "--B\r\nContent-Disposition: form-data; name=\"field\"\r\n{head}\r\n\
                     {data}\r\n--B--\r\n"
                );
                assert_eq!(String::from_utf8(body).unwrap(), want, "{enc:?} {size:?}");
                assert_eq!(total, size.map(|_| want.len() as u64));
            }
        }
    }

    #[test]
    fn any_read_size_gives_the_same_body_and_its_announced_size() {
        for len in [0usize, 1, 2, 3, 56, 57, 58, 59, 114, 200] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 % 256) as u8).collect();
            let m = Mime {
                subtype: "form-data",
                boundary: "B".into(),
                parts: vec![
                    MimePart {
                        name: Some("b".into()),
                        encoder: Some(Encoder::Base64),
                        data: PartData::Bytes(data.clone()),
                        ..MimePart::default()
                    },
                    MimePart {
                        name: Some("c".into()),
                        encoder: Some(Encoder::Base64),
                        data: PartData::callback_bytes(data.clone()),
                        ..MimePart::default()
                    },
                ],
                backslash_escape: false,
            };
            let mut bodies = Vec::new();
            for step in [1usize, 2, 4, 5, 7, 100, 4096] {
                let (mut r, size) = m.reader().unwrap();
                let mut out = Vec::new();
                let mut buf = vec![0u8; step];
                loop {
                    let n = r.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    assert!(n <= step);
                    out.extend_from_slice(&buf[..n]);
                }
                assert_eq!(size, Some(out.len() as u64), "len {len} step {step}");
                bodies.push(out);
            }
            assert!(bodies.windows(2).all(|w| w[0] == w[1]), "len {len}");
        }
    }

    #[test]
    fn types_from_extensions() {
        assert_eq!(content_type_for("a.PNG"), Some("image/png"));
        assert_eq!(content_type_for("a.tar"), None);
    }

    #[test]
    fn boundary_shape() {
        let b = new_boundary(&[61; 22]);
        assert_eq!(b.len(), 46);
        assert!(b.starts_with("------------------------Z"));
    }
}
