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
            Err(MimeError::Read)
        }
    }
    fn read_all(&self) -> Result<Vec<u8>, MimeError> {
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let n = self.read(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
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

/// curl's base64 part encoder: lines of 76 characters separated by CRLF.
fn base64_lines(data: &[u8]) -> Vec<u8> {
    let enc = crate::transfer::base64(data).into_bytes();
    let mut out = Vec::with_capacity(enc.len() + enc.len() / 38);
    for (i, line) in enc.chunks(76).enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(line);
    }
    out
}

/// curl's quoted-printable part encoder: `=XX` for bytes outside printable ASCII and for
/// `=`, blanks kept unless they end a line, CRLF kept as a line break, soft breaks (`=`
/// CRLF) keep lines within 76 characters.
fn quoted_printable(data: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(data.len() * 3 / 2);
    let mut line = 0usize;
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'\r' && data.get(i + 1) == Some(&b'\n') {
            out.extend_from_slice(b"\r\n");
            line = 0;
            i += 2;
            continue;
        }
        let c = data[i];
        let ends_line =
            i + 1 == data.len() || (data[i + 1] == b'\r' && data.get(i + 2) == Some(&b'\n'));
        let literal = match c {
            b' ' | b'\t' => !ends_line,
            b'=' => false,
            33..=126 => true,
            _ => false,
        };
        let piece: &[u8] = if literal {
            std::slice::from_ref(&data[i])
        } else {
            &[]
        };
        let width = if literal { 1 } else { 3 };
        // Room for the piece and, unless the line ends here, a soft break.
        let limit = if ends_line { 76 } else { 75 };
        if line + width > limit {
            out.extend_from_slice(b"=\r\n");
            line = 0;
        }
        if literal {
            out.extend_from_slice(piece);
        } else {
            out.extend_from_slice(&[b'=', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]]);
        }
        line += width;
        i += 1;
    }
    out
}

/// One piece of the serialized body.
#[derive(Debug)]
enum Seg {
    Bytes(Vec<u8>),
    File(PathBuf, u64),
    Source(CallbackData, u64),
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
        let ctype: Option<String> = match (&part.content_type, &part.data) {
            (Some(t), _) => Some(t.clone()),
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
        let has = |n: &str| {
            part.headers.iter().any(|l| {
                l.split_once(':')
                    .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case(n))
            })
        };
        if !has("Content-Disposition") {
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
            if !has("Content-Type") {
                h.push_str("Content-Type: ");
                h.push_str(t);
                if let PartData::Multipart(m) = &part.data {
                    h.push_str("; boundary=");
                    h.push_str(&m.boundary);
                }
                h.push_str("\r\n");
            }
        }
        if let Some(e) = part.encoder {
            if !has("Content-Transfer-Encoding") {
                h.push_str("Content-Transfer-Encoding: ");
                h.push_str(e.name());
                h.push_str("\r\n");
            }
        }
        for l in &part.headers {
            h.push_str(l);
            h.push_str("\r\n");
        }
        h.push_str("\r\n");
        h.into_bytes()
    }

    /// Flatten into segments; `known` becomes false when the size cannot be known up front.
    /// `form`: the parts are `form-data` (this body's type is multipart/form-data).
    fn segments(&self, out: &mut Vec<Seg>, known: &mut bool, form: bool) -> Result<(), MimeError> {
        let push = |out: &mut Vec<Seg>, b: &[u8]| match out.last_mut() {
            Some(Seg::Bytes(v)) => v.extend_from_slice(b),
            _ => out.push(Seg::Bytes(b.to_vec())),
        };
        for part in &self.parts {
            push(out, b"--");
            push(out, self.boundary.as_bytes());
            push(out, b"\r\n");
            push(out, &self.headers(part, self.backslash_escape, form));
            let encode = |data: &[u8]| -> Vec<u8> {
                match part.encoder {
                    Some(Encoder::Base64) => base64_lines(data),
                    Some(Encoder::QuotedPrintable) => quoted_printable(data),
                    _ => data.to_vec(),
                }
            };
            if part.encoder == Some(Encoder::QuotedPrintable) {
                // curl cannot tell the encoded size in advance.
                *known = false;
            }
            match &part.data {
                PartData::Empty => {}
                PartData::Bytes(b) => push(out, &encode(b)),
                PartData::File(p) => {
                    let meta = std::fs::metadata(p).map_err(|_| MimeError::Read)?;
                    if part
                        .encoder
                        .is_some_and(|e| matches!(e, Encoder::Base64 | Encoder::QuotedPrintable))
                        || !meta.is_file()
                    {
                        let mut data = Vec::new();
                        File::open(p)
                            .and_then(|mut f| f.read_to_end(&mut data))
                            .map_err(|_| MimeError::Read)?;
                        if !meta.is_file() {
                            *known = false;
                        }
                        push(out, &encode(&data));
                    } else {
                        File::open(p).map_err(|_| MimeError::Read)?;
                        out.push(Seg::File(p.clone(), meta.len()));
                    }
                }
                PartData::Multipart(m) => m.segments(out, known, m.subtype == "form-data")?,
                PartData::Callback(c) => {
                    c.rewind()?;
                    if part
                        .encoder
                        .is_some_and(|e| matches!(e, Encoder::Base64 | Encoder::QuotedPrintable))
                    {
                        push(out, &encode(&c.read_all()?));
                    } else {
                        if c.size.is_none() {
                            *known = false;
                        }
                        out.push(Seg::Source(c.clone(), c.size.unwrap_or(0)));
                    }
                }
            }
            push(out, b"\r\n");
        }
        push(out, b"--");
        push(out, self.boundary.as_bytes());
        push(out, b"--\r\n");
        Ok(())
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
        let mut segs = Vec::new();
        let mut known = true;
        self.segments(&mut segs, &mut known, form)?;
        let size: u64 = segs
            .iter()
            .map(|s| match s {
                Seg::Bytes(b) => b.len() as u64,
                Seg::File(_, n) | Seg::Source(_, n) => *n,
            })
            .sum();
        segs.reverse();
        Ok((
            MimeReader {
                segs,
                pos: 0,
                file: None,
            },
            known.then_some(size),
        ))
    }
}

/// Streams a serialized MIME body.
#[derive(Debug)]
pub struct MimeReader {
    /// Remaining segments, last one first.
    segs: Vec<Seg>,
    pos: usize,
    file: Option<File>,
}

impl MimeReader {
    /// Fill `buf`; 0 means the end.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, MimeError> {
        let mut n = 0;
        while n < buf.len() {
            match self.segs.last() {
                None => break,
                Some(Seg::Bytes(b)) => {
                    let take = (b.len() - self.pos).min(buf.len() - n);
                    buf[n..n + take].copy_from_slice(&b[self.pos..self.pos + take]);
                    n += take;
                    self.pos += take;
                    if self.pos == b.len() {
                        self.segs.pop();
                        self.pos = 0;
                    }
                }
                Some(Seg::File(p, _)) => {
                    if self.file.is_none() {
                        self.file = Some(File::open(p).map_err(|_| MimeError::Read)?);
                    }
                    let f = self.file.as_mut().expect("opened");
                    let got = f.read(&mut buf[n..]).map_err(|_| MimeError::Read)?;
                    if got == 0 {
                        self.file = None;
                        self.segs.pop();
                    } else {
                        n += got;
                        // Hand out file data as read, as curl does.
                        break;
                    }
                }
                Some(Seg::Source(c, _)) => {
                    let got = c.read(&mut buf[n..])?;
                    if got == 0 {
                        self.segs.pop();
                    } else {
                        n += got;
                        break;
                    }
                }
            }
        }
        Ok(n)
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

    #[test]
    fn encoders() {
        assert_eq!(base64_lines(b"v"), b"dg==");
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
