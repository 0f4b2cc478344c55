//! What the tool takes from response headers for its files (curl's `tool_cb_hdr.c`): the
//! `filename=` parameter of `Content-Disposition` that `-J` uses and the `ETag` value that
//! `--etag-save` stores; and the `If-None-Match` header `--etag-compare` makes from its
//! file's contents. Does no I/O.

/// The header `-J` reads, as curl matches it (any case).
const PREFIX: &[u8] = b"Content-disposition:";

/// curl 8.14.1's scan of one `Content-Disposition:` header line (the whole line, name and
/// line ending included) for `filename=`: parameters are found by skipping to the next
/// letter, the name is matched case-sensitively, and `filename*=` is not supported.
///
/// `None`: no `filename=` parameter. `Some(None)`: one that yields no usable name (empty
/// after its last slash or backslash), which curl ignores: the URL's name stays.
/// `Some(Some(name))`: the name, without any directory part; it may be empty.
pub fn content_disposition_filename(line: &[u8]) -> Option<Option<Vec<u8>>> {
    if !is_content_disposition(line) {
        return None;
    }
    // curl works on a C string: a NUL ends the line.
    let end = line.iter().position(|&b| b == 0).unwrap_or(line.len());
    let mut p = PREFIX.len();
    loop {
        while p < end && !line[p].is_ascii_alphabetic() {
            p += 1;
        }
        if p + 9 > end {
            return None;
        }
        if &line[p..p + 9] != b"filename=" {
            while p < end && line[p] != b';' {
                p += 1;
            }
            if p < end {
                continue;
            }
            return None;
        }
        return Some(parse_filename(&line[p + 9..end]));
    }
}

/// Is this header line one curl's `-J` looks at (`Content-disposition:`, any case, with
/// something after it)?
pub fn is_content_disposition(line: &[u8]) -> bool {
    line.len() > PREFIX.len() && line[..PREFIX.len()].eq_ignore_ascii_case(PREFIX)
}

/// curl's `parse_filename` for a Content-Disposition value: up to the closing quote (or
/// `;` when unquoted), then only what follows the last `/` and the last `\`, cut at CR/LF.
fn parse_filename(v: &[u8]) -> Option<Vec<u8>> {
    let (mut s, stop) = match v.first() {
        Some(&q @ (b'"' | b'\'')) => (&v[1..], q),
        _ => (v, b';'),
    };
    if let Some(i) = s.iter().position(|&b| b == stop) {
        s = &s[..i];
    }
    for sep in [b'/', b'\\'] {
        if let Some(i) = s.iter().rposition(|&b| b == sep) {
            s = &s[i + 1..];
            if s.is_empty() {
                return None;
            }
        }
    }
    if let Some(i) = s.iter().position(|&b| b == b'\r') {
        s = &s[..i];
    }
    if let Some(i) = s.iter().position(|&b| b == b'\n') {
        s = &s[..i];
    }
    Some(s.to_vec())
}

/// curl's `save_etag`: the value of an `ETag:` header line (name included) of a complete
/// line, blanks before and white space after it removed; None when there is nothing to save.
pub fn etag_value(line: &[u8]) -> Option<&[u8]> {
    if line.len() < 5 || !line[..5].eq_ignore_ascii_case(b"etag:") {
        return None;
    }
    if line.last() != Some(&b'\n') {
        return None;
    }
    let mut v = &line[5..];
    while v.len() > 1 && matches!(v[0], b' ' | b'\t') {
        v = &v[1..];
    }
    while let Some((last, rest)) = v.split_last() {
        if !last.is_ascii_whitespace() {
            break;
        }
        v = rest;
    }
    (!v.is_empty()).then_some(v)
}

/// curl 8.14.1's `--etag-compare` header: the file's lines, each cut at its first CR or
/// LF, joined; `""` when that is empty or the file is missing.
pub fn if_none_match(contents: Option<&[u8]>) -> String {
    let mut tag = Vec::new();
    if let Some(c) = contents {
        // fgets reads lines of at most 255 bytes.
        let mut rest = c;
        while !rest.is_empty() {
            let line_end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| i + 1);
            let chunk = &rest[..line_end.min(255)];
            rest = &rest[chunk.len()..];
            let cut = chunk
                .iter()
                .position(|&b| b == b'\r' || b == b'\n' || b == 0)
                .unwrap_or(chunk.len());
            tag.extend_from_slice(&chunk[..cut]);
        }
    }
    if tag.is_empty() {
        "If-None-Match: \"\"".to_string()
    } else {
        format!("If-None-Match: {}", String::from_utf8_lossy(&tag))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(line: &str) -> Option<Option<String>> {
        content_disposition_filename(line.as_bytes())
            .map(|o| o.map(|v| String::from_utf8(v).unwrap()))
    }

    #[test]
    fn quoted_and_plain() {
        assert_eq!(
            name("Content-Disposition: attachment; filename=\"a;b.txt\"\r\n"),
            Some(Some("a;b.txt".into()))
        );
        assert_eq!(
            name("content-disposition: attachment; filename='s.txt'; x=1\r\n"),
            Some(Some("s.txt".into()))
        );
        assert_eq!(
            name("Content-Disposition: inline; filename=plain.txt; size=3\r\n"),
            Some(Some("plain.txt".into()))
        );
        assert_eq!(
            name("Content-Disposition: filename=  sp.txt \r\n"),
            Some(Some("  sp.txt ".into()))
        );
    }

    #[test]
    fn directories_stripped() {
        assert_eq!(
            name("Content-Disposition: a; filename=../../etc/evil.txt\r\n"),
            Some(Some("evil.txt".into()))
        );
        assert_eq!(
            name("Content-Disposition: a; filename=a\\b\\c.txt\r\n"),
            Some(Some("c.txt".into()))
        );
        // The line ending is still there when directories go, so the name is empty.
        assert_eq!(
            name("Content-Disposition: a; filename=dir/\r\n"),
            Some(Some(String::new()))
        );
        assert_eq!(name("Content-Disposition: a; filename=dir/"), Some(None));
    }

    #[test]
    fn not_matched() {
        assert_eq!(name("Content-Disposition: inline\r\n"), None);
        assert_eq!(name("Content-Disposition: a; FILENAME=x\r\n"), None);
        assert_eq!(
            name("Content-Disposition: a; filename*=UTF-8''x.txt\r\n"),
            None
        );
        assert_eq!(
            name("Content-Disposition: a; filename*=UTF-8''x.txt; filename=p.txt\r\n"),
            Some(Some("p.txt".into()))
        );
        assert_eq!(name("Content-Type: text/plain; filename=x\r\n"), None);
    }

    #[test]
    fn etags() {
        assert_eq!(etag_value(b"ETag:   \"abc\"  \r\n"), Some(&b"\"abc\""[..]));
        assert_eq!(etag_value(b"etag: W/\"x\"\n"), Some(&b"W/\"x\""[..]));
        assert_eq!(etag_value(b"ETag:\r\n"), None);
        assert_eq!(etag_value(b"ETag: x"), None);
        assert_eq!(etag_value(b"ETags: x\r\n"), None);
        assert_eq!(if_none_match(None), "If-None-Match: \"\"");
        assert_eq!(if_none_match(Some(b"")), "If-None-Match: \"\"");
        assert_eq!(
            if_none_match(Some(b"\"x1\"\n\"x2\"\n")),
            "If-None-Match: \"x1\"\"x2\""
        );
        assert_eq!(if_none_match(Some(b"  a \r\n")), "If-None-Match:   a ");
    }
}
