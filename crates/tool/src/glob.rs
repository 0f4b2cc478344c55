//! URL globbing, curl 8.14.1's `tool_urlglob.c`: `{a,b,c}` sets, `[1-100]`, `[001-100]`,
//! `[1-10:3]`, `[a-z]` and `[A-Z:2]` ranges in URLs and `-T` file names, the expansion in
//! order (the rightmost glob varies fastest), and `#N` in `-o` names.
//!
//! Pure: no I/O. The only outside call is the URL parser, to tell an IPv6 literal such as
//! `http://[::1]/` from a range (curl's `peek_ipv6`).
//!
//! The quirks of curl 8.14.1 are kept on purpose, since scripts see them:
//! - error positions do not count a set's closing `}` or a skipped `[::1]` / `[]`;
//! - a URL holds at most 99 pieces (literal runs and globs), and reaching the 100th reports
//!   "too many globs" even when that piece had an error of its own;
//! - counts multiply in a signed 64-bit value; an overflow is an error, but a single range
//!   of `i64::MAX + 1` values wraps to a count of 0 (the tool then makes one transfer);
//! - a numeric range whose next value would pass `i64::MAX` wraps to negative numbers
//!   instead of carrying to the glob on its left.

/// curl's `GLOB_PATTERN_NUM`: the size of its fixed pattern array.
const MAX_PATTERNS: usize = 100;

/// curl's buffer for the error text (`char text[512]`).
const ERROR_TEXT_MAX: usize = 511;

/// A parse error: curl's message and 1-based position in the string (0: none shown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobError {
    pub msg: &'static str,
    pub pos: usize,
}

impl GlobError {
    /// What curl writes to stderr: `curl: (3) MSG in URL position N:`, the string, and a
    /// caret under the position (the text cut at curl's 511 bytes).
    pub fn report(&self, url: &str) -> Vec<u8> {
        let mut text = if self.pos > 0 {
            // `%*s` with a width of pos - 1 and " " as argument: never fewer than one space.
            let spaces = " ".repeat(self.pos.saturating_sub(1).max(1));
            format!(
                "{} in URL position {}:\n{}\n{}^",
                self.msg, self.pos, url, spaces
            )
            .into_bytes()
        } else {
            self.msg.as_bytes().to_vec()
        };
        text.truncate(ERROR_TEXT_MAX);
        let mut out = b"curl: (3) ".to_vec();
        out.extend_from_slice(&text);
        out.push(b'\n');
        out
    }
}

fn err<T>(msg: &'static str, pos: usize) -> Result<T, GlobError> {
    Err(GlobError { msg, pos })
}

#[derive(Clone, Debug)]
enum Pattern {
    /// A literal run (one element, `index` None) or a `{...}` set.
    Set {
        elems: Vec<Vec<u8>>,
        idx: usize,
        index: Option<usize>,
    },
    /// `[a-z:step]`; bounds compare as C's signed `char`.
    Ascii {
        min: u8,
        max: u8,
        step: u8,
        letter: u8,
        index: usize,
    },
    /// `[min-max:step]`, zero-padded to `pad` digits.
    Num {
        min: i64,
        max: i64,
        step: i64,
        idx: i64,
        pad: usize,
        index: usize,
    },
}

impl Pattern {
    fn index(&self) -> Option<usize> {
        match self {
            Pattern::Set { index, .. } => *index,
            Pattern::Ascii { index, .. } | Pattern::Num { index, .. } => Some(*index),
        }
    }

    /// About how many bytes [`Pattern::append`] adds.
    fn len_hint(&self) -> usize {
        match self {
            Pattern::Set { elems, idx, .. } => elems[*idx].len(),
            Pattern::Ascii { .. } => 1,
            Pattern::Num { pad, .. } => (*pad).max(4),
        }
    }

    fn append(&self, out: &mut Vec<u8>) {
        match self {
            Pattern::Set { elems, idx, .. } => out.extend_from_slice(&elems[*idx]),
            Pattern::Ascii { letter, .. } => out.push(*letter),
            Pattern::Num { idx, pad, .. } => {
                out.extend_from_slice(format!("{idx:0pad$}").as_bytes());
            }
        }
    }
}

/// A parsed glob: its pieces, the number of strings it expands to, and the position of
/// the expansion (an odometer over the pieces).
#[derive(Clone, Debug)]
pub struct Glob {
    patterns: Vec<Pattern>,
    count: i64,
    started: bool,
}

/// Multiply with overflow check, curl's `multiply()`: a non-positive factor gives 0.
fn multiply(amount: &mut i64, with: i64) -> bool {
    if with <= 0 || *amount <= 0 {
        *amount = 0;
        return true;
    }
    match amount.checked_mul(with) {
        Some(v) => {
            *amount = v;
            true
        }
        None => false,
    }
}

/// A cursor over the pattern bytes with curl's `curlx_str_*` helpers: each advances only
/// on success.
struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> u8 {
        self.peek_at(0)
    }

    /// The byte `n` ahead, NUL past the end as in a C string.
    fn peek_at(&self, n: usize) -> u8 {
        self.s.get(self.i + n).copied().unwrap_or(0)
    }

    /// `curlx_str_number`: decimal digits up to `max`; no sign, no leading blanks.
    fn number(&mut self, max: i64) -> Option<i64> {
        let mut j = self.i;
        if !self.s.get(j).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let mut num: i64 = 0;
        while let Some(d) = self.s.get(j).filter(|d| d.is_ascii_digit()) {
            let n = i64::from(d - b'0');
            if max < 10 {
                // curl's special case for a small maximum.
                num = num * 10 + n;
                if num > max {
                    return None;
                }
            } else {
                if num > (max - n) / 10 {
                    return None;
                }
                num = num * 10 + n;
            }
            j += 1;
        }
        self.i = j;
        Some(num)
    }

    /// `curlx_str_single`: consume `c` if it is next.
    fn single(&mut self, c: u8) -> bool {
        if self.peek() == c && self.i < self.s.len() {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// `curlx_str_passblanks`: skip spaces and tabs.
    fn pass_blanks(&mut self) {
        while matches!(self.peek(), b' ' | b'\t') && self.i < self.s.len() {
            self.i += 1;
        }
    }
}

/// curl's `peek_ipv6`: does `s` (starting at `[`) begin with a bracketed host the URL
/// parser accepts? Returns the length through the `]`.
fn peek_ipv6(s: &[u8]) -> Option<usize> {
    let end = s.iter().position(|&b| b == b']')?;
    let hlen = end + 1;
    if hlen >= 128 {
        return None;
    }
    let host = std::str::from_utf8(&s[..hlen]).ok()?;
    let flags = oxcurl_urlapi::Flags {
        guess_scheme: true,
        ..Default::default()
    };
    oxcurl_urlapi::Url::parse(host, flags).ok().map(|_| hlen)
}

impl Glob {
    /// Parse a URL (or `-T` file name) into its globs, curl's `glob_url`.
    pub fn parse(url: &str) -> Result<Glob, GlobError> {
        let s = url.as_bytes();
        let mut c = Cursor { s, i: 0 };
        let mut pos: usize = 1;
        let mut amount: i64 = 1;
        let mut globindex = 0;
        let mut patterns: Vec<Pattern> = Vec::new();
        while c.i < s.len() {
            // Room for the rest of the URL: a URL without globs is one literal, copied once.
            let mut buf = Vec::with_capacity(s.len() - c.i);
            while c.i < s.len() && c.peek() != b'{' {
                let b = c.peek();
                if b == b'[' {
                    // An IPv6 literal or `[]` stays literal (and, as in curl, uncounted).
                    let skip = peek_ipv6(&s[c.i..]).or_else(|| (c.peek_at(1) == b']').then_some(2));
                    if let Some(n) = skip {
                        buf.extend_from_slice(&s[c.i..c.i + n]);
                        c.i += n;
                        continue;
                    }
                    break;
                }
                if b == b'}' || b == b']' {
                    return err("unmatched close brace/bracket", pos);
                }
                if b == b'\\' && matches!(c.peek_at(1), b'{' | b'[' | b'}' | b']') {
                    c.i += 1;
                    pos += 1;
                }
                buf.push(c.peek());
                c.i += 1;
                pos += 1;
            }
            if buf.is_empty() && c.i >= s.len() {
                break;
            }
            let res = if !buf.is_empty() {
                patterns.push(Pattern::Set {
                    elems: vec![buf],
                    idx: 0,
                    index: None,
                });
                Ok(())
            } else {
                let open = c.peek();
                c.i += 1;
                pos += 1;
                let r = if open == b'{' {
                    glob_set(&mut c, &mut pos, &mut amount, globindex)
                } else {
                    glob_range(&mut c, &mut pos, &mut amount, globindex)
                };
                globindex += 1;
                r.map(|p| patterns.push(p))
            };
            // curl counts the piece even when it failed, and this error wins.
            if patterns.len() + usize::from(res.is_err()) >= MAX_PATTERNS {
                return err("too many globs", pos);
            }
            res?;
        }
        Ok(Glob {
            patterns,
            count: amount,
            started: false,
        })
    }

    /// How many strings the glob expands to (curl's `urlnum`), possibly 0 (see the
    /// module notes); the tool makes at least one transfer.
    pub fn count(&self) -> i64 {
        self.count
    }

    /// Whether a numeric range can step past `i64::MAX`, where curl wraps instead of
    /// ending: then more than [`Glob::count`] strings come out.
    #[allow(dead_code)] // for tests and the fuzz target
    pub fn may_wrap(&self) -> bool {
        self.patterns.iter().any(|p| match p {
            Pattern::Num { max, step, .. } => max.checked_add(*step).is_none(),
            _ => false,
        }) || self.count == 0
    }

    /// The next string, curl's `glob_next_url`: the first call gives the first string,
    /// then the rightmost glob advances, carrying to the left; None once all carried.
    pub fn next_url(&mut self) -> Option<String> {
        if !self.started {
            self.started = true;
        } else {
            let mut carry = true;
            for p in self.patterns.iter_mut().rev() {
                if !carry {
                    break;
                }
                carry = false;
                match p {
                    Pattern::Set { elems, idx, .. } => {
                        *idx += 1;
                        if *idx == elems.len() {
                            *idx = 0;
                            carry = true;
                        }
                    }
                    Pattern::Ascii {
                        min,
                        max,
                        step,
                        letter,
                        ..
                    } => {
                        *letter += *step;
                        if *letter > *max {
                            *letter = *min;
                            carry = true;
                        }
                    }
                    Pattern::Num {
                        min,
                        max,
                        step,
                        idx,
                        ..
                    } => {
                        *idx = idx.wrapping_add(*step);
                        if *idx > *max {
                            *idx = *min;
                            carry = true;
                        }
                    }
                }
            }
            if carry {
                return None;
            }
        }
        let mut out = Vec::with_capacity(self.patterns.iter().map(Pattern::len_hint).sum());
        for p in &self.patterns {
            p.append(&mut out);
        }
        Some(bytes_to_string(out))
    }

    /// Fill `#N` in an output name with the current value of the Nth glob, curl's
    /// `glob_match_url`. `#` with no number, `#0` and numbers of no glob stay as written.
    pub fn match_output(&self, filename: &str) -> String {
        let s = filename.as_bytes();
        let mut out = Vec::with_capacity(s.len());
        let mut c = Cursor { s, i: 0 };
        while c.i < s.len() {
            if c.peek() == b'#' && c.peek_at(1).is_ascii_digit() {
                let start = c.i;
                c.i += 1;
                let limit = i64::try_from(self.patterns.len()).unwrap_or(i64::MAX);
                let pat = c.number(limit).filter(|&n| n > 0).and_then(|n| {
                    let want = usize::try_from(n - 1).ok()?;
                    self.patterns.iter().find(|p| p.index() == Some(want))
                });
                match pat {
                    Some(p) => p.append(&mut out),
                    None => out.extend_from_slice(&s[start..c.i]),
                }
            } else {
                out.push(c.peek());
                c.i += 1;
            }
        }
        bytes_to_string(out)
    }
}

/// Pieces split only at ASCII bytes of a `str`, so this is valid UTF-8; be lenient anyway.
fn bytes_to_string(v: Vec<u8>) -> String {
    String::from_utf8(v).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `{a,b,...}` with the cursor after the `{`: curl's `glob_set`.
fn glob_set(
    c: &mut Cursor<'_>,
    pos: &mut usize,
    amount: &mut i64,
    index: usize,
) -> Result<Pattern, GlobError> {
    let open = c.i;
    let open_pos = *pos - 1;
    let mut elems: Vec<Vec<u8>> = Vec::new();
    let mut buf = Vec::new();
    loop {
        if c.i >= c.s.len() {
            return err("unmatched brace", open_pos);
        }
        match c.peek() {
            b'{' | b'[' => return err("nested brace", *pos),
            b'}' => {
                if c.i == open {
                    return err("empty string within braces", *pos);
                }
                let n = i64::try_from(elems.len() + 1).unwrap_or(i64::MAX);
                if !multiply(amount, n) {
                    return err("range overflow", 0);
                }
                elems.push(std::mem::take(&mut buf));
                // The closing brace is not counted in the position.
                c.i += 1;
                break;
            }
            b',' => {
                elems.push(std::mem::take(&mut buf));
                c.i += 1;
                *pos += 1;
            }
            b']' => return err("unexpected close bracket", *pos),
            b => {
                if b == b'\\' && c.i + 1 < c.s.len() {
                    c.i += 1;
                    *pos += 1;
                }
                buf.push(c.peek());
                c.i += 1;
                *pos += 1;
            }
        }
    }
    Ok(Pattern::Set {
        elems,
        idx: 0,
        index: Some(index),
    })
}

/// `[...]` with the cursor after the `[`: curl's `glob_range`.
fn glob_range(
    c: &mut Cursor<'_>,
    pos: &mut usize,
    amount: &mut i64,
    index: usize,
) -> Result<Pattern, GlobError> {
    let start = c.i;
    let first = c.peek();
    if first.is_ascii_alphabetic() {
        let mut pmatch = false;
        let (mut min, mut max) = (0u8, 0u8);
        let mut step: u8 = 1;
        if c.peek_at(1) == b'-' && c.peek_at(2) != 0 && c.peek_at(3) != 0 {
            min = first;
            max = c.peek_at(2);
            let end = c.peek_at(3);
            pmatch = true;
            if end == b':' {
                c.i += 4;
                step = match c.number(256) {
                    // A step of 256 truncates to 0 in curl's unsigned char: bad.
                    Some(n) if c.single(b']') => n as u8,
                    _ => 0,
                };
            } else if end != b']' {
                pmatch = false;
            } else {
                c.i += 4;
            }
        }
        *pos += c.i - start;
        // C's signed char: bytes above 0x7f are negative.
        let (lo, hi) = (i32::from(min as i8), i32::from(max as i8));
        let span = hi - lo;
        let st = i32::from(step);
        if !pmatch
            || step == 0
            || (lo == hi && step != 1)
            || (lo != hi && (lo > hi || st > span || span > i32::from(b'z' - b'a')))
        {
            return err("bad range", *pos);
        }
        if !multiply(amount, i64::from(span / st + 1)) {
            return err("range overflow", *pos);
        }
        Ok(Pattern::Ascii {
            min,
            max,
            step,
            letter: min,
            index,
        })
    } else if first.is_ascii_digit() {
        let pad = if first == b'0' {
            c.s[c.i..].iter().take_while(|b| b.is_ascii_digit()).count()
        } else {
            0
        };
        let (mut min, mut max, mut step) = (0i64, 0i64, 0i64);
        if let Some(n) = c.number(i64::MAX) {
            min = n;
            if c.single(b'-') {
                c.pass_blanks();
                if let Some(n) = c.number(i64::MAX) {
                    max = n;
                    if c.single(b']') {
                        step = 1;
                    } else if c.single(b':') {
                        if let Some(n) = c.number(i64::MAX) {
                            if c.single(b']') {
                                step = n;
                            }
                        }
                    }
                }
            }
        }
        *pos += c.i - start;
        if step == 0 || (min == max && step != 1) || (min != max && (min > max || step > max - min))
        {
            return err("bad range", *pos);
        }
        // (max - min) / step + 1 overflows to a negative count for [0-i64::MAX]: curl
        // then counts 0 URLs.
        if !multiply(amount, ((max - min) / step).wrapping_add(1)) {
            return err("range overflow", *pos);
        }
        Ok(Pattern::Num {
            min,
            max,
            step,
            idx: min,
            pad,
            index,
        })
    } else {
        err("bad range specification", *pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(url: &str) -> Vec<String> {
        let mut g = Glob::parse(url).expect("parses");
        let mut v = Vec::new();
        while let Some(u) = g.next_url() {
            v.push(u);
            assert!(v.len() <= 10_000, "runaway expansion");
        }
        assert_eq!(v.len() as i64, g.count(), "count of {url}");
        v
    }

    fn fails(url: &str) -> (&'static str, usize) {
        let e = Glob::parse(url).expect_err("must fail");
        (e.msg, e.pos)
    }

    #[test]
    fn plain_url_is_one_literal() {
        assert_eq!(all("http://h/a.txt"), ["http://h/a.txt"]);
        assert_eq!(all(""), [""]);
    }

    #[test]
    fn sets_expand_in_order_with_empty_elements() {
        assert_eq!(all("x{a,b,c}y"), ["xay", "xby", "xcy"]);
        assert_eq!(all("{a,}"), ["a", ""]);
        assert_eq!(all("{,}"), ["", ""]);
        assert_eq!(all("{a}"), ["a"]);
    }

    #[test]
    fn the_rightmost_glob_varies_fastest() {
        assert_eq!(
            all("{a,b}[3-7:3]{c,d}"),
            ["a3c", "a3d", "a6c", "a6d", "b3c", "b3d", "b6c", "b6d"]
        );
    }

    #[test]
    fn numeric_ranges_steps_and_padding() {
        assert_eq!(all("[1-3]"), ["1", "2", "3"]);
        assert_eq!(all("[8-11]"), ["8", "9", "10", "11"]);
        assert_eq!(all("[1-10:3]"), ["1", "4", "7", "10"]);
        assert_eq!(all("[1-10:4]"), ["1", "5", "9"]);
        assert_eq!(all("[098-101]"), ["098", "099", "100", "101"]);
        assert_eq!(all("[0-2]"), ["0", "1", "2"]);
        assert_eq!(all("[00-2]"), ["00", "01", "02"]);
        assert_eq!(all("[5-5]"), ["5"]);
        assert_eq!(all("[1- 2]"), ["1", "2"]);
        assert_eq!(all("[1-\t2]"), ["1", "2"]);
    }

    #[test]
    fn letter_ranges() {
        assert_eq!(all("[a-d]"), ["a", "b", "c", "d"]);
        assert_eq!(all("[A-Z:10]"), ["A", "K", "U"]);
        assert_eq!(all("[a-z:25]"), ["a", "z"]);
        assert_eq!(all("[a-a]"), ["a"]);
        // Only the first bound must be a letter.
        assert_eq!(all("[Z-a]"), ["Z", "[", "\\", "]", "^", "_", "`", "a"]);
    }

    #[test]
    fn escapes() {
        assert_eq!(all("\\{a\\}\\[\\]"), ["{a}[]"]);
        // Only the four specials are escaped outside sets.
        assert_eq!(all("a\\b"), ["a\\b"]);
        assert_eq!(all("{a\\,b,c\\}}"), ["a,b", "c}"]);
        assert_eq!(all("{\\x}"), ["x"]);
    }

    #[test]
    fn ipv6_literals_and_empty_brackets_stay_literal() {
        assert_eq!(
            all("http://[::1]/[1-2]"),
            ["http://[::1]/1", "http://[::1]/2"]
        );
        assert_eq!(
            all("http://[fe80::1%25eth0]/"),
            ["http://[fe80::1%25eth0]/"]
        );
        assert_eq!(all("http://h/x[]"), ["http://h/x[]"]);
        assert_eq!(all("http://h/[::1]/x"), ["http://h/[::1]/x"]);
        assert_eq!(fails("http://h/[1.2.3.4]"), ("bad range", 12));
    }

    #[test]
    fn counts_multiply() {
        let g = Glob::parse("h/{a,b,c}[1-100][a-z]").unwrap();
        assert_eq!(g.count(), 3 * 100 * 26);
        let g = Glob::parse("[1-1000000][1-1000000][1-1000000]").unwrap();
        assert_eq!(g.count(), 1_000_000_000_000_000_000);
    }

    #[test]
    fn error_kinds_and_positions() {
        assert_eq!(fails("http://h/{a,b"), ("unmatched brace", 10));
        assert_eq!(fails("{"), ("unmatched brace", 1));
        assert_eq!(fails("http://h/{a,{b}}"), ("nested brace", 13));
        assert_eq!(fails("http://h/{a,[1-2]}"), ("nested brace", 13));
        assert_eq!(fails("http://h/{}"), ("empty string within braces", 11));
        assert_eq!(fails("http://h/a}"), ("unmatched close brace/bracket", 11));
        assert_eq!(fails("http://h/a]"), ("unmatched close brace/bracket", 11));
        assert_eq!(fails("http://h/{a]}"), ("unexpected close bracket", 12));
        assert_eq!(fails("http://h/[3-1]"), ("bad range", 15));
        assert_eq!(fails("http://h/[1-3"), ("bad range", 14));
        assert_eq!(fails("http://h/[1-3 ]"), ("bad range", 14));
        assert_eq!(fails("http://h/[1-10:0]"), ("bad range", 18));
        assert_eq!(fails("http://h/[1-10:20]"), ("bad range", 19));
        assert_eq!(fails("http://h/[1-3:+1]"), ("bad range", 15));
        assert_eq!(fails("http://h/[5-5:2]"), ("bad range", 17));
        assert_eq!(
            fails("http://h/[1-99999999999999999999]"),
            ("bad range", 13)
        );
        assert_eq!(fails("http://h/[a-]"), ("bad range", 11));
        assert_eq!(fails("http://h/[a-Z]"), ("bad range", 15));
        assert_eq!(fails("http://h/[A-z]"), ("bad range", 15));
        assert_eq!(fails("http://h/[a-a:2]"), ("bad range", 17));
        assert_eq!(fails("http://h/[a-z:26]"), ("bad range", 18));
        assert_eq!(fails("http://h/[a-c:2"), ("bad range", 16));
        assert_eq!(fails("http://h/[a-c:256]"), ("bad range", 19));
        assert_eq!(fails("http://h/[a-c:257]"), ("bad range", 15));
        assert_eq!(fails("http://h/[abc]"), ("bad range", 11));
        assert_eq!(fails("http://h/[-1]"), ("bad range specification", 11));
        assert_eq!(fails("http://h/[ 1-3]"), ("bad range specification", 11));
        assert_eq!(fails("["), ("bad range specification", 2));
    }

    #[test]
    fn positions_skip_closing_braces_and_literal_brackets() {
        assert_eq!(
            fails("http://h/{a}x}"),
            ("unmatched close brace/bracket", 13)
        );
        assert_eq!(
            fails("http://[::1]/x}"),
            ("unmatched close brace/bracket", 10)
        );
        assert_eq!(
            fails("http://h/x[]y}"),
            ("unmatched close brace/bracket", 12)
        );
    }

    #[test]
    fn overflow() {
        assert_eq!(
            fails("http://h/[1-9999999999][1-9999999999]"),
            ("range overflow", 38)
        );
        assert_eq!(
            fails("http://h/[1-4000000000][1-3000000000]"),
            ("range overflow", 38)
        );
        // A set's overflow has no position.
        assert_eq!(
            fails("http://h/[1-4611686018427387904]{a,b,c}"),
            ("range overflow", 0)
        );
    }

    #[test]
    fn a_full_i64_range_counts_zero() {
        let mut g = Glob::parse("h/[0-9223372036854775807][1-3]").unwrap();
        assert_eq!(g.count(), 0);
        assert!(g.may_wrap());
        assert_eq!(g.next_url().as_deref(), Some("h/01"));
    }

    #[test]
    fn ranges_near_i64_max_wrap() {
        let mut g = Glob::parse("{a,b}[9223372036854775800-9223372036854775807:5]").unwrap();
        assert_eq!(g.count(), 4);
        assert!(g.may_wrap());
        let v: Vec<String> = (0..4).filter_map(|_| g.next_url()).collect();
        assert_eq!(
            v,
            [
                "a9223372036854775800",
                "a9223372036854775805",
                "a-9223372036854775806",
                "a-9223372036854775801"
            ]
        );
        let g = Glob::parse("[9223372036854775806-9223372036854775807]").unwrap();
        assert!(g.may_wrap());
        assert!(!Glob::parse("[1-3]").unwrap().may_wrap());
    }

    #[test]
    fn at_most_99_pieces() {
        let u99 = format!("http://h/a{}", "{b}a".repeat(49));
        assert_eq!(all(&u99).len(), 1);
        assert_eq!(fails(&format!("{u99}{{b}}")), ("too many globs", 160));
        // The 100th piece's own error loses to this one.
        assert_eq!(fails(&format!("{u99}[")), ("too many globs", 159));
        let u98 = format!("http://h/a{}", "{b}a".repeat(48));
        assert_eq!(
            fails(&format!("{u98}{{b}}[")),
            ("bad range specification", 158)
        );
    }

    #[test]
    fn output_names() {
        let mut g = Glob::parse("http://h/{a,b}/[1-2]").unwrap();
        g.next_url();
        assert_eq!(
            g.match_output("f_#2_#1_#0_#3_#x_#_#12#"),
            "f_1_a_#0_#3_#x_#_#12#"
        );
        g.next_url();
        g.next_url();
        assert_eq!(g.match_output("#1#2"), "b1");
        let mut g = Glob::parse("h{a,b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}").unwrap();
        g.next_url();
        assert_eq!(g.match_output("#1_#10_#11_#12_#011#01"), "a_k_l_#12_la");
        let mut g = Glob::parse("h/x").unwrap();
        g.next_url();
        assert_eq!(g.match_output("f#1"), "f#1");
    }

    #[test]
    fn error_report_format() {
        let e = Glob::parse("http://h/[3-1]").unwrap_err();
        assert_eq!(
            e.report("http://h/[3-1]"),
            b"curl: (3) bad range in URL position 15:\nhttp://h/[3-1]\n              ^\n"
        );
        // Position 1 still gets one space before the caret.
        let e = Glob::parse("}").unwrap_err();
        assert_eq!(
            e.report("}"),
            b"curl: (3) unmatched close brace/bracket in URL position 1:\n}\n ^\n"
        );
        let e = GlobError {
            msg: "range overflow",
            pos: 0,
        };
        assert_eq!(e.report("x"), b"curl: (3) range overflow\n");
        // curl's 512-byte buffer cuts long texts.
        let long = format!("http://h/{}[", "a".repeat(600));
        let r = Glob::parse(&long).unwrap_err().report(&long);
        assert_eq!(r.len(), 10 + 511 + 1);
    }
}
