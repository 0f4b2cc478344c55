//! `-F`/`--form` and `--form-string` arguments as curl's tool_formparse.c reads them:
//! `name=value`, `name=@file[,file...]` (several files make a nested multipart/mixed part),
//! `name=<file` (contents as the value), `@-`/`<-` for stdin, quoted words with `\"` and
//! `\\` escapes, the `;type=`, `;filename=`, `;headers=` (text, `@file` or `<file`) and
//! `;encoder=` attributes, and `name=(;type=multipart/...)` ... `=)` nesting, with curl's
//! warnings for what it skips. Reads files only for `headers=@file` and stdin; does no
//! network I/O.

use std::io::Read;
use std::path::PathBuf;

use oxcurl_core::mime::{Encoder, Mime, MimePart, PartData};

/// What one `-F` argument adds, and whether it named an unknown encoder (curl accepts the
/// argument and fails the transfer), or the reason it is refused (curl: exit 2).
pub type FormResult = Result<(FormItem, bool), String>;

/// The effect of one `-F` argument on the form being built.
#[derive(Debug, PartialEq, Eq)]
pub enum FormItem {
    /// Parts added to the multipart currently open (usually one).
    Parts(Vec<MimePart>),
    /// `name=(`: a part holding a multipart that the following parts go into.
    Open(MimePart),
    /// `=)`: back to the enclosing multipart.
    Close,
}

/// A form as the `-F` arguments build it: parts, some of them open multiparts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Form {
    pub parts: Vec<MimePart>,
    /// How many `(` are still open. The open multipart at each level is the last part of
    /// the level above, since nothing is added to a level while a deeper one is open.
    depth: usize,
    /// A part names an encoder curl does not know: the transfer fails (exit 43).
    pub bad_encoder: bool,
}

impl Form {
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Add one `-F` (or, with `literal`, `--form-string`) argument.
    pub fn add(
        &mut self,
        arg: &str,
        literal: bool,
        warnings: &mut Vec<String>,
    ) -> Result<(), String> {
        let (item, bad) = parse(arg, literal, warnings)?;
        match item {
            FormItem::Parts(parts) => self.current().extend(parts),
            FormItem::Open(part) => {
                self.current().push(part);
                self.depth += 1;
            }
            FormItem::Close => {
                if self.depth == 0 {
                    return Err("no multipart to terminate".into());
                }
                self.depth -= 1;
            }
        }
        self.bad_encoder |= bad;
        Ok(())
    }

    /// The parts of the innermost open multipart.
    fn current(&mut self) -> &mut Vec<MimePart> {
        let mut parts = &mut self.parts;
        for _ in 0..self.depth {
            match parts.last_mut().map(|p| &mut p.data) {
                Some(PartData::Multipart(m)) => parts = &mut m.parts,
                _ => unreachable!("an open level ends with its multipart part"),
            }
        }
        parts
    }
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `checkprefix`: a case-insensitive prefix.
fn has_prefix(s: &[u8], prefix: &str) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Read one word at `at`: a quoted string (escapes `\\` and `\"` undone) or text up to `;`
/// or `end`. Returns the word, whether it was quoted, and where the separator is.
fn word(
    s: &[u8],
    at: usize,
    end: Option<u8>,
    warnings: &mut Vec<String>,
) -> (Vec<u8>, bool, usize) {
    let stop = |c: u8| c == b';' || Some(c) == end;
    if s.get(at) == Some(&b'"') {
        let mut out = Vec::new();
        let mut i = at + 1;
        while i < s.len() {
            match s[i] {
                b'\\' if matches!(s.get(i + 1), Some(b'\\' | b'"')) => {
                    out.push(s[i + 1]);
                    i += 2;
                    continue;
                }
                b'"' => {
                    let mut j = i + 1;
                    let mut trailing = false;
                    while j < s.len() && !stop(s[j]) {
                        trailing |= !s[j].is_ascii_whitespace();
                        j += 1;
                    }
                    if trailing {
                        warnings.push("Trailing data after quoted form parameter".into());
                    }
                    return (out, true, j);
                }
                c => out.push(c),
            }
            i += 1;
        }
        // No end quote: read it unquoted.
    }
    let cut = s[at..]
        .iter()
        .position(|&c| stop(c))
        .map_or(s.len(), |n| at + n);
    (s[at..cut].to_vec(), false, cut)
}

/// A word with leading blanks skipped and, unless quoted, trailing ones dropped.
fn trimmed_word(
    s: &[u8],
    mut at: usize,
    end: Option<u8>,
    warnings: &mut Vec<String>,
) -> (String, usize) {
    while s.get(at).copied().is_some_and(is_blank) {
        at += 1;
    }
    let (mut w, quoted, next) = word(s, at, end, warnings);
    if !quoted {
        while w.last().copied().is_some_and(is_blank) {
            w.pop();
        }
    }
    (String::from_utf8_lossy(&w).into_owned(), next)
}

/// One value and its attributes, as curl's `get_param_part` splits them.
#[derive(Default)]
struct Param {
    data: String,
    ctype: Option<String>,
    filename: Option<String>,
    encoder: Option<String>,
    headers: Vec<String>,
    /// The byte that ended the value and attributes (not `;`), and where it is.
    sep: Option<(u8, usize)>,
}

/// Which attributes the caller takes; the others are warned about and dropped.
#[derive(Clone, Copy)]
struct Allowed {
    filename: bool,
    encoder: bool,
}

/// Characters that end a `type=` token (RFC 2045's tspecials, space and line ends); `/` is
/// not one, so a type is one token and what follows up to `;` makes curl warn.
const TYPE_END: &[u8] = b"()<>@,;:\\\"[]?=\r\n ";

fn param(
    s: &[u8],
    at: usize,
    end: Option<u8>,
    allowed: Allowed,
    warnings: &mut Vec<String>,
) -> Param {
    let mut out = Param::default();
    let (data, mut p) = trimmed_word(s, at, end, warnings);
    out.data = data;
    // The type as written, from its start to the end of the last piece belonging to it.
    let mut ctype: Option<(usize, usize)> = None;
    let mut in_type = false;
    while s.get(p) == Some(&b';') {
        p += 1;
        while s.get(p).copied().is_some_and(is_blank) {
            p += 1;
        }
        let rest = &s[p..];
        if !in_type && has_prefix(rest, "type=") {
            p += 5;
            while s.get(p).copied().is_some_and(is_blank) {
                p += 1;
            }
            let len = s[p..]
                .iter()
                .position(|c| TYPE_END.contains(c))
                .unwrap_or(s.len() - p);
            ctype = Some((p, p + len));
            in_type = true;
            p += len;
        } else if has_prefix(rest, "filename=") {
            in_type = false;
            let (w, next) = trimmed_word(s, p + 9, end, warnings);
            out.filename = Some(w);
            p = next;
        } else if has_prefix(rest, "headers=") {
            in_type = false;
            p += 8;
            if matches!(s.get(p), Some(b'@' | b'<')) {
                let (file, next) = trimmed_word(s, p + 1, end, warnings);
                match std::fs::read(&file) {
                    Ok(text) => out
                        .headers
                        .extend(header_lines(&String::from_utf8_lossy(&text))),
                    Err(e) => warnings.push(format!(
                        "Cannot read from {file}: {}",
                        oxcurl_core::connect::os_error_text(&e)
                    )),
                }
                p = next;
            } else {
                let (w, next) = trimmed_word(s, p, end, warnings);
                out.headers.push(w);
                p = next;
            }
        } else if has_prefix(rest, "encoder=") {
            in_type = false;
            let (w, next) = trimmed_word(s, p + 8, end, warnings);
            out.encoder = Some(w);
            p = next;
        } else if in_type {
            // More of the content type (`type=text/plain; charset=utf-8`), kept as written.
            let mut last = p;
            while p < s.len() && s[p] != b';' && Some(s[p]) != end {
                if !is_blank(s[p]) {
                    last = p + 1;
                }
                p += 1;
            }
            if let Some((_, e)) = ctype.as_mut() {
                *e = last;
            }
        } else {
            let (w, _, next) = word(s, p, end, warnings);
            if !w.is_empty() {
                warnings.push(format!(
                    "skip unknown form field: {}",
                    String::from_utf8_lossy(&w)
                ));
            }
            p = next;
        }
    }
    out.ctype = ctype.map(|(a, b)| String::from_utf8_lossy(&s[a..b]).into_owned());
    if !allowed.filename {
        if let Some(f) = out.filename.take() {
            warnings.push(format!("Field filename not allowed here: {f}"));
        }
    }
    if !allowed.encoder {
        if let Some(e) = out.encoder.take() {
            warnings.push(format!("Field encoder not allowed here: {e}"));
        }
    }
    out.sep = s.get(p).map(|&c| (c, p));
    out
}

/// Header lines from a `headers=@file`: one per line, `#` comments skipped, folded lines
/// joined.
fn header_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                last.push(' ');
                last.push_str(line.trim_start());
                continue;
            }
        }
        out.push(line.to_string());
    }
    out
}

fn read_stdin() -> Vec<u8> {
    let mut v = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut v);
    v
}

fn basename(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_string()
}

/// Fill a part's type, file name, encoder and headers from `p`.
fn apply(part: &mut MimePart, p: Param, bad_encoder: &mut bool) {
    if p.ctype.is_some() {
        part.content_type = p.ctype;
    }
    if p.filename.is_some() {
        part.filename = p.filename;
    }
    if let Some(e) = p.encoder {
        match Encoder::from_name(&e) {
            Some(enc) => part.encoder = Some(enc),
            None => *bad_encoder = true,
        }
    }
    part.headers = p.headers;
}

/// The multipart a `(` part holds: its content type decides how its own parts are
/// labelled (curl: `form-data` only inside `multipart/form-data`).
fn nested(ctype: Option<&str>) -> Mime {
    let form = ctype.is_some_and(|t| {
        let t = t.as_bytes();
        has_prefix(t, "multipart/form-data")
            && t.get(19).is_none_or(|c| matches!(c, b';' | b' ' | b'\t'))
    });
    Mime {
        subtype: if form { "form-data" } else { "mixed" },
        boundary: oxcurl_core::mime::random_boundary(),
        parts: Vec::new(),
        backslash_escape: false,
    }
}

/// Parse one `-F` (or, with `literal`, `--form-string`) argument.
pub fn parse(arg: &str, literal: bool, warnings: &mut Vec<String>) -> FormResult {
    let Some((name, value)) = arg.split_once('=') else {
        return Err("Illegally formatted input field".into());
    };
    let name = (!name.is_empty()).then(|| name.to_string());
    let mut bad = false;
    let mut part = MimePart {
        name: name.clone(),
        ..MimePart::default()
    };
    if literal {
        part.data = PartData::Bytes(value.as_bytes().to_vec());
        return Ok((FormItem::Parts(vec![part]), bad));
    }
    let s = value.as_bytes();
    let all = Allowed {
        filename: true,
        encoder: true,
    };
    if value.starts_with('(') {
        let none = Allowed {
            filename: false,
            encoder: false,
        };
        let p = param(s, 0, None, none, warnings);
        let mime = nested(p.ctype.as_deref());
        apply(&mut part, p, &mut bad);
        part.data = PartData::Multipart(mime);
        return Ok((FormItem::Open(part), bad));
    }
    if name.is_none() && value == ")" {
        return Ok((FormItem::Close, bad));
    }
    if value.starts_with('@') {
        let mut files = Vec::new();
        let mut at = 1;
        let mut several = None;
        loop {
            let p = param(s, at, Some(b','), all, warnings);
            let path = p.data.clone();
            let sep = p.sep;
            several.get_or_insert(matches!(sep, Some((b',', _))));
            let mut sub = MimePart::default();
            apply(&mut sub, p, &mut bad);
            if path == "-" {
                // curl's tool reads stdin parts through a read callback.
                sub.data = PartData::callback_bytes(read_stdin());
                sub.filename.get_or_insert_with(|| "-".into());
            } else {
                sub.filename.get_or_insert_with(|| basename(&path));
                sub.data = PartData::File(PathBuf::from(&path));
            }
            files.push(sub);
            match sep {
                // Whatever ended the file (usually ','), another one follows it.
                Some((_, i)) => at = i + 1,
                None => break,
            }
        }
        if several == Some(true) {
            part.data = PartData::Multipart(Mime {
                subtype: "mixed",
                boundary: oxcurl_core::mime::random_boundary(),
                parts: files,
                backslash_escape: false,
            });
            return Ok((FormItem::Parts(vec![part]), bad));
        }
        // Files not separated by ',' are parts of their own; the name goes to the last.
        if let Some(last) = files.last_mut() {
            last.name = name;
        }
        return Ok((FormItem::Parts(files), bad));
    }
    let p = if value.starts_with('<') {
        let p = param(
            s,
            1,
            None,
            Allowed {
                filename: false,
                encoder: true,
            },
            warnings,
        );
        part.data = if p.data == "-" {
            PartData::callback_bytes(read_stdin())
        } else {
            PartData::File(PathBuf::from(&p.data))
        };
        p
    } else {
        let p = param(s, 0, None, all, warnings);
        part.data = PartData::Bytes(p.data.clone().into_bytes());
        p
    };
    if let Some((_, i)) = p.sep {
        warnings.push(format!(
            "garbage at end of field specification: {}",
            String::from_utf8_lossy(&s[i..])
        ));
    }
    apply(&mut part, p, &mut bad);
    Ok((FormItem::Parts(vec![part]), bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(arg: &str) -> MimePart {
        match parse(arg, false, &mut Vec::new()).unwrap().0 {
            FormItem::Parts(mut v) if v.len() == 1 => v.pop().unwrap(),
            other => panic!("{other:?}"),
        }
    }

    fn warnings(arg: &str) -> Vec<String> {
        let mut w = Vec::new();
        let _ = parse(arg, false, &mut w);
        w
    }

    #[test]
    fn content_types_as_curl_cuts_them() {
        let t = |a: &str| p(a).content_type;
        assert_eq!(
            t("a=b;type=text/plain;charset=utf-8").as_deref(),
            Some("text/plain;charset=utf-8")
        );
        assert_eq!(
            t("a=b;type=text/plain;  charset=utf-8 ;  format=flowed  ;filename=x").as_deref(),
            Some("text/plain;  charset=utf-8 ;  format=flowed")
        );
        assert_eq!(t("a=b;TYPE= text/html").as_deref(), Some("text/html"));
        // A space ends the type token; the rest is garbage.
        assert_eq!(t("a=b;type=text / plain").as_deref(), Some("text"));
        assert_eq!(
            warnings("a=b;type=text/plain ; charset=utf-8"),
            ["garbage at end of field specification:  ; charset=utf-8"]
        );
        assert_eq!(
            p("a=  spaced  ;type=a/b").data,
            PartData::Bytes(b"spaced".to_vec())
        );
    }

    #[test]
    fn nesting() {
        let mut f = Form::default();
        let mut w = Vec::new();
        f.add("=(;type=multipart/alternative;filename=x", false, &mut w)
            .unwrap();
        assert_eq!(w, ["Field filename not allowed here: x"]);
        f.add("=plain", false, &mut w).unwrap();
        f.add("x=(", false, &mut w).unwrap();
        f.add("=deep", false, &mut w).unwrap();
        f.add("=)", false, &mut w).unwrap();
        f.add("y=)", false, &mut w).unwrap();
        f.add("=)", false, &mut w).unwrap();
        f.add("z=top", false, &mut w).unwrap();
        assert_eq!(
            f.add("=)", false, &mut w),
            Err("no multipart to terminate".into())
        );
        assert_eq!(f.parts.len(), 2);
        let PartData::Multipart(alt) = &f.parts[0].data else {
            panic!()
        };
        assert_eq!(f.parts[0].name, None);
        assert_eq!(
            f.parts[0].content_type.as_deref(),
            Some("multipart/alternative")
        );
        assert_eq!(alt.parts.len(), 3);
        assert_eq!(alt.parts[2].data, PartData::Bytes(b")".to_vec()));
        let PartData::Multipart(inner) = &alt.parts[1].data else {
            panic!()
        };
        assert_eq!(inner.parts[0].data, PartData::Bytes(b"deep".to_vec()));
        // --form-string has no nesting.
        let mut g = Form::default();
        g.add("=(", true, &mut w).unwrap();
        g.add("=)", true, &mut w).unwrap();
        assert_eq!(g.parts.len(), 2);
    }

    #[test]
    fn plain_and_typed_values() {
        assert_eq!(p("a=b").data, PartData::Bytes(b"b".to_vec()));
        let t = p("q=\"quoted;x\";type=text/plain");
        assert_eq!(t.data, PartData::Bytes(b"quoted;x".to_vec()));
        assert_eq!(t.content_type.as_deref(), Some("text/plain"));
        let t = p("q=v;type=text/plain; charset=utf-8");
        assert_eq!(t.content_type.as_deref(), Some("text/plain; charset=utf-8"));
    }

    #[test]
    fn files() {
        let f = p("f=@/tmp/x/up.txt;type=text/x-foo;filename=\"we\\\"ird.txt\"");
        assert_eq!(f.data, PartData::File("/tmp/x/up.txt".into()));
        assert_eq!(f.filename.as_deref(), Some("we\"ird.txt"));
        assert_eq!(f.content_type.as_deref(), Some("text/x-foo"));
        let m = p("m=@a.png,b.txt");
        match m.data {
            PartData::Multipart(mm) => {
                assert_eq!(mm.parts.len(), 2);
                assert_eq!(mm.parts[1].filename.as_deref(), Some("b.txt"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn warnings_and_errors() {
        let mut w = Vec::new();
        parse("a=b;c", false, &mut w).unwrap();
        assert_eq!(w, ["skip unknown form field: c"]);
        assert!(parse("novalue", false, &mut w).is_err());
        assert!(parse("a=b;encoder=rot13", false, &mut w).unwrap().1);
        let FormItem::Parts(lit) = parse("a=@notafile;type=x", true, &mut w).unwrap().0 else {
            panic!()
        };
        assert_eq!(lit[0].data, PartData::Bytes(b"@notafile;type=x".to_vec()));
        assert_eq!(
            warnings("a=<f;filename=q"),
            ["Field filename not allowed here: q"]
        );
    }

    #[test]
    fn headers_attribute() {
        let h = p("n=v;headers=X-A: 1;headers=\"X-B: 2\"");
        assert_eq!(h.headers, ["X-A: 1", "X-B: 2"]);
        assert_eq!(
            header_lines("# c\nX-A: 1\n  folded\nX-B: 2\r\n"),
            ["X-A: 1 folded", "X-B: 2"]
        );
    }
}
