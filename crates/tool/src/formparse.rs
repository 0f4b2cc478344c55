//! `-F`/`--form` and `--form-string` arguments as curl's tool_formparse.c reads them:
//! `name=value`, `name=@file[,file...]` (several files make a nested multipart/mixed part),
//! `name=<file` (contents as the value), `@-`/`<-` for stdin, quoted words with `\"` and
//! `\\` escapes, and the `;type=`, `;filename=`, `;headers=` (text, `@file` or `<file`) and
//! `;encoder=` attributes, with curl's warnings for what it skips.

use std::io::Read;
use std::path::PathBuf;

use oxcurl_core::mime::{Encoder, Mime, MimePart, PartData};

/// A parsed `-F` argument and whether it named an unknown encoder (curl accepts the
/// argument and fails the transfer), or the reason it is refused (curl: exit 2).
pub type FormResult = Result<(MimePart, bool), String>;

/// Read one word: a quoted string (escapes `\\` and `\"` undone) or text up to `;` or `end`.
/// Returns the word and the rest, which starts at the separator.
fn word<'a>(s: &'a str, end: Option<char>, warnings: &mut Vec<String>) -> (String, &'a str) {
    let stop = |c: char| c == ';' || Some(c) == end;
    if let Some(q) = s.strip_prefix('"') {
        let mut out = String::new();
        let mut it = q.char_indices();
        while let Some((i, c)) = it.next() {
            match c {
                '\\' if q[i + 1..].starts_with(['\\', '"']) => {
                    let (_, n) = it.next().expect("escaped char");
                    out.push(n);
                }
                '"' => {
                    let rest = &q[i + 1..];
                    let cut = rest.find(stop).unwrap_or(rest.len());
                    if rest[..cut].chars().any(|c| !c.is_ascii_whitespace()) {
                        warnings.push("Trailing data after quoted form parameter".into());
                    }
                    return (out, &rest[cut..]);
                }
                c => out.push(c),
            }
        }
        // No end quote: read it unquoted.
    }
    let cut = s.find(stop).unwrap_or(s.len());
    (s[..cut].trim_end().to_string(), &s[cut..])
}

/// The attributes after a value: fills `part` and returns the separator that ended them.
fn attributes<'a>(
    mut s: &'a str,
    end: Option<char>,
    part: &mut MimePart,
    allow_filename: bool,
    warnings: &mut Vec<String>,
    bad_encoder: &mut bool,
) -> Result<&'a str, String> {
    let mut in_type = false;
    while let Some(rest) = s.strip_prefix(';') {
        let p = rest.trim_start();
        if let Some(t) = p.strip_prefix("type=").filter(|_| !in_type) {
            let t = t.trim_start();
            let cut = t.find([';', ',']).unwrap_or(t.len());
            let cut = if Some(',') != end {
                t.find(';').unwrap_or(t.len())
            } else {
                cut
            };
            part.content_type = Some(t[..cut].trim_end().to_string());
            in_type = true;
            s = &t[cut..];
        } else if let Some(f) = p.strip_prefix("filename=") {
            in_type = false;
            let (w, r) = word(f.trim_start(), end, warnings);
            if allow_filename {
                part.filename = Some(w);
            }
            s = r;
        } else if let Some(h) = p.strip_prefix("headers=") {
            in_type = false;
            if let Some(file) = h.strip_prefix(['@', '<']) {
                let (w, r) = word(file.trim_start(), end, warnings);
                match std::fs::read_to_string(&w) {
                    Ok(text) => part.headers.extend(header_lines(&text)),
                    Err(e) => warnings.push(format!(
                        "Cannot read from {w}: {}",
                        oxcurl_core::connect::os_error_text(&e)
                    )),
                }
                s = r;
            } else {
                let (w, r) = word(h.trim_start(), end, warnings);
                part.headers.push(w);
                s = r;
            }
        } else if let Some(e) = p.strip_prefix("encoder=") {
            in_type = false;
            let (w, r) = word(e.trim_start(), end, warnings);
            match Encoder::from_name(&w) {
                Some(enc) => part.encoder = Some(enc),
                None => *bad_encoder = true,
            }
            s = r;
        } else if in_type {
            // More of the content type (`type=text/plain; charset=utf-8`).
            let cut = p.find(|c| c == ';' || Some(c) == end).unwrap_or(p.len());
            let t = part.content_type.get_or_insert_with(String::new);
            t.push_str("; ");
            t.push_str(p[..cut].trim_end());
            s = &p[cut..];
        } else {
            let (w, r) = word(p, end, warnings);
            if !w.is_empty() {
                warnings.push(format!("skip unknown form field: {w}"));
            }
            s = r;
        }
    }
    Ok(s)
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

/// Parse one `-F` (or, with `literal`, `--form-string`) argument into a form part.
pub fn parse(arg: &str, literal: bool, warnings: &mut Vec<String>) -> FormResult {
    let Some((name, value)) = arg.split_once('=') else {
        return Err("Illegally formatted input field".into());
    };
    let mut bad = false;
    let mut part = MimePart {
        name: Some(name.to_string()),
        ..MimePart::default()
    };
    if literal {
        part.data = PartData::Bytes(value.as_bytes().to_vec());
        return Ok((part, bad));
    }
    if let Some(files) = value.strip_prefix('@') {
        let mut subparts = Vec::new();
        let mut s = files;
        loop {
            let mut sub = MimePart::default();
            let (path, rest) = word(s, Some(','), warnings);
            let rest = attributes(rest, Some(','), &mut sub, true, warnings, &mut bad)?;
            if path == "-" {
                sub.data = PartData::Bytes(read_stdin());
                sub.filename.get_or_insert_with(|| "-".into());
            } else {
                sub.filename.get_or_insert_with(|| basename(&path));
                sub.data = PartData::File(PathBuf::from(&path));
            }
            subparts.push(sub);
            match rest.strip_prefix(',') {
                Some(r) => s = r,
                None => break,
            }
        }
        if subparts.len() == 1 {
            let sub = subparts.pop().expect("one part");
            return Ok((
                MimePart {
                    name: part.name,
                    ..sub
                },
                bad,
            ));
        }
        part.data = PartData::Multipart(Mime {
            subtype: "mixed",
            boundary: oxcurl_core::mime::random_boundary(),
            parts: subparts,
            backslash_escape: false,
        });
        return Ok((part, bad));
    }
    let rest = if let Some(file) = value.strip_prefix('<') {
        let (path, rest) = word(file, None, warnings);
        part.data = if path == "-" {
            PartData::Bytes(read_stdin())
        } else {
            PartData::File(PathBuf::from(path))
        };
        attributes(rest, None, &mut part, false, warnings, &mut bad)?
    } else {
        let (v, rest) = word(value, None, warnings);
        part.data = PartData::Bytes(v.into_bytes());
        attributes(rest, None, &mut part, true, warnings, &mut bad)?
    };
    if !rest.is_empty() {
        warnings.push(format!("garbage at end of field specification: {rest}"));
    }
    Ok((part, bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(arg: &str) -> MimePart {
        parse(arg, false, &mut Vec::new()).unwrap().0
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
        let lit = parse("a=@notafile;type=x", true, &mut w).unwrap().0;
        assert_eq!(lit.data, PartData::Bytes(b"@notafile;type=x".to_vec()));
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
