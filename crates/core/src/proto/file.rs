//! file:// (curl's `lib/file.c`): which path a URL names, which part of the file a range or
//! resume asks for, and the header lines curl makes up for a file. Does no I/O: the
//! transfer opens, reads and writes the file (`transfer/file.rs`).

/// The path of a file URL as the file system takes it: the URL's path percent-decoded
/// (curl's `Curl_urldecode` with `REJECT_ZERO`). None when it holds a zero byte, encoded or
/// not, which curl refuses as a malformed URL (the URL parser refuses a raw one before).
pub fn decode_path(path: &str) -> Option<Vec<u8>> {
    crate::codec::urldecode(path.as_bytes(), crate::codec::Reject::Zero)
}

/// curl's `curlx_str_number` up to `CURL_OFF_T_MAX`: the digits at the start of `s` and
/// what follows them; None (nothing taken) without a digit or on overflow.
fn number(s: &str) -> Option<(i64, &str)> {
    let end = s.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 {
        return None;
    }
    let mut v: i64 = 0;
    for d in s[..end].bytes() {
        v = v.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    Some((v, &s[end..]))
}

/// curl's `Curl_range` as FTP and FILE read `CURLOPT_RANGE`: the first range only, as where
/// to start (negative: that many bytes before the end) and how many bytes at most. None
/// for a range curl refuses (`CURLE_RANGE_ERROR`).
pub fn parse_range(spec: &str) -> Option<(i64, Option<u64>)> {
    // A number that does not parse counts as 0 and takes nothing, as in curl.
    let (from, first, rest) = match number(spec) {
        Some((n, rest)) => (n, true, rest),
        None => (0, false, spec),
    };
    let rest = rest.strip_prefix('-')?;
    match number(rest) {
        // "X-" (or "-"): from X to the end.
        None => Some((from, None)),
        // "-Y": the last Y bytes; "-0" is refused.
        Some((to, _)) if !first => (to != 0).then_some((-to, Some(to as u64))),
        // "X-Y": both ends included.
        Some((to, _)) => {
            if from > to || to - from == i64::MAX {
                return None;
            }
            Some((from, Some((to - from + 1) as u64)))
        }
    }
}

/// What a download reads of a file, decided before reading as `file_do` decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Where reading starts.
    pub start: u64,
    /// Bytes to read at most (curl's `size_known`); None reads to the end.
    pub limit: Option<u64>,
}

/// Why a download cannot start where it was asked to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanError {
    /// `CURLE_RANGE_ERROR` (without a message of its own).
    Range,
    /// `CURLE_BAD_DOWNLOAD_RESUME`, "failed to resume file:// transfer".
    Resume,
    /// `CURLE_BAD_DOWNLOAD_RESUME` from the seek (a directory, or before the start).
    Seek,
}

/// The part of a file (`size` bytes; None for a directory, whose `st_size` is `dir_size`)
/// a download reads. `resume_from` is `CURLOPT_RESUME_FROM_LARGE` (-1: unknown) and
/// `range` `CURLOPT_RANGE`; a resume wins over a range, as curl's `setup_range` has it.
pub fn plan(
    resume_from: i64,
    range: Option<&str>,
    size: Option<u64>,
    dir_size: u64,
) -> Result<Plan, PlanError> {
    let (mut start, most) = if resume_from != 0 {
        // curl formats the resume point unsigned: -1 becomes a number too big to read.
        parse_range(&format!("{}-", resume_from as u64)).ok_or(PlanError::Range)?
    } else if let Some(r) = range {
        parse_range(r).ok_or(PlanError::Range)?
    } else {
        (0, None)
    };
    let st_size = size.unwrap_or(dir_size) as i64;
    if start < 0 {
        start = start.saturating_add(st_size);
    }
    let mut expected: i64 = size.map_or(-1, |s| s as i64);
    if start > 0 {
        if start <= expected {
            expected -= start;
        } else {
            return Err(PlanError::Resume);
        }
    }
    if let Some(m) = most.filter(|m| *m > 0) {
        expected = m.min(i64::MAX as u64) as i64;
    }
    if start != 0 && (size.is_none() || start < 0) {
        return Err(PlanError::Seek);
    }
    Ok(Plan {
        start: start as u64,
        limit: (expected > 0).then_some(expected as u64),
    })
}

/// The header lines curl writes for a file (`size` None for a directory, which gets no
/// length) modified at `mtime`, the blank line included.
pub fn head_lines(size: Option<u64>, mtime: i64) -> Vec<String> {
    let mut lines = Vec::with_capacity(4);
    if let Some(n) = size {
        lines.push(format!("Content-Length: {n}\r\n"));
        lines.push("Accept-ranges: bytes\r\n".to_string());
    }
    lines.push(format!(
        "Last-Modified: {}\r\n",
        crate::parsedate::http_date(mtime)
    ));
    lines.push("\r\n".to_string());
    lines
}

/// curl's `file_upload` check on the path before it opens it: a path whose first `/` is its
/// last byte (or without one) is refused.
pub fn upload_path_ok(path: &[u8]) -> bool {
    match path.iter().position(|&c| c == b'/') {
        Some(i) => i + 1 < path.len(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_decode() {
        assert_eq!(decode_path("/a%20b").unwrap(), b"/a b");
        assert_eq!(decode_path("/a%2").unwrap(), b"/a%2");
        assert_eq!(decode_path("/a%zz%41").unwrap(), b"/a%zzA");
        assert_eq!(decode_path("/a%00b"), None);
        // Found by the file_range fuzz target: a raw zero byte (the URL parser refuses it
        // before, but the decoder must not hand it to the file system either).
        assert_eq!(decode_path("\0\0\0\u{4}"), None);
    }

    #[test]
    fn ranges_as_curl_reads_them() {
        assert_eq!(parse_range("0-4"), Some((0, Some(5))));
        assert_eq!(parse_range("6-"), Some((6, None)));
        assert_eq!(parse_range("-3"), Some((-3, Some(3))));
        assert_eq!(parse_range("0-1,3-4"), Some((0, Some(2))));
        assert_eq!(parse_range("-0"), None);
        assert_eq!(parse_range("5-2"), None);
        assert_eq!(parse_range("x"), None);
        assert_eq!(parse_range("-"), Some((0, None)));
        assert_eq!(parse_range("3-x"), Some((3, None)));
        assert_eq!(parse_range("18446744073709551615-"), None);
    }

    #[test]
    fn plans() {
        let p = |r: Option<&str>, resume| plan(resume, r, Some(12), 0);
        assert_eq!(
            p(Some("3-100"), 0),
            Ok(Plan {
                start: 3,
                limit: Some(98)
            })
        );
        assert_eq!(
            p(Some("12-"), 0),
            Ok(Plan {
                start: 12,
                limit: None
            })
        );
        assert_eq!(p(Some("20-30"), 0), Err(PlanError::Resume));
        assert_eq!(p(Some("-100"), 0), Err(PlanError::Seek));
        assert_eq!(p(None, 13), Err(PlanError::Resume));
        assert_eq!(
            p(Some("0-1"), 3),
            Ok(Plan {
                start: 3,
                limit: Some(9)
            })
        );
        assert_eq!(p(None, -1), Err(PlanError::Range));
        assert_eq!(plan(1, None, None, 4096), Err(PlanError::Resume));
        assert_eq!(plan(0, Some("-2"), None, 4096), Err(PlanError::Resume));
    }

    #[test]
    fn head() {
        assert_eq!(
            head_lines(Some(12), 1577836800).concat(),
            "Content-Length: 12\r\nAccept-ranges: bytes\r\n\
             Last-Modified: Wed, 01 Jan 2020 00:00:00 GMT\r\n\r\n"
        );
        assert_eq!(
            head_lines(None, 0).concat(),
            "Last-Modified: Thu, 01 Jan 1970 00:00:00 GMT\r\n\r\n"
        );
    }

    #[test]
    fn upload_paths() {
        assert!(upload_path_ok(b"/tmp/x"));
        assert!(!upload_path_ok(b"/"));
        assert!(!upload_path_ok(b"x"));
    }
}
