//! Shell-style name matching for wildcard downloads (curl's `Curl_fnmatch`, which on Linux
//! is glibc's `fnmatch(pattern, name, 0)`): `*`, `?`, `[...]` sets with ranges, `!`/`^`
//! negation and `[:class:]` names, and `\` escapes, in the C locale (bytes). With no flags,
//! `/` and a leading `.` are ordinary characters.
//!
//! The pattern is cut into one-character matchers and stars first, then matched with the
//! usual backtracking to the last star, which gives what glibc's recursion gives (every
//! matcher takes exactly one character) in time linear in the name times the pattern, so a
//! hostile name cannot make it slow. glibc's corners are kept: an unterminated `[` is a plain
//! `[` (and the characters after it are pattern again); a pattern ending in `\` matches
//! nothing; an unknown class name fails the set unless a byte before it matched.

/// What one pattern position takes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// `*`.
    Star,
    /// `?`.
    Any,
    Lit(u8),
    /// A set: the bytes it holds (`in_set`), negated or not.
    Set {
        bits: [u64; 4],
        negate: bool,
    },
    /// A set with an unknown class name in it: only what comes before the name can match
    /// (glibc stops at the name unless a byte matched already).
    Broken {
        bits: [u64; 4],
        negate: bool,
    },
    /// Matches nothing (a trailing `\`, an unknown class name).
    Never,
}

fn set_bit(bits: &mut [u64; 4], c: u8) {
    bits[usize::from(c >> 6)] |= 1 << (c & 63);
}

fn has_bit(bits: &[u64; 4], c: u8) -> bool {
    bits[usize::from(c >> 6)] & (1 << (c & 63)) != 0
}

/// The C locale's `isalpha` and friends, by name; None for a name that is no class.
fn class(name: &[u8]) -> Option<fn(u8) -> bool> {
    Some(match name {
        b"alnum" => |c: u8| c.is_ascii_alphanumeric(),
        b"alpha" => |c: u8| c.is_ascii_alphabetic(),
        b"blank" => |c: u8| c == b' ' || c == b'\t',
        b"cntrl" => |c: u8| c.is_ascii_control(),
        b"digit" => |c: u8| c.is_ascii_digit(),
        b"graph" => |c: u8| c.is_ascii_graphic(),
        b"lower" => |c: u8| c.is_ascii_lowercase(),
        b"print" => |c: u8| c.is_ascii_graphic() || c == b' ',
        b"punct" => |c: u8| c.is_ascii_punctuation(),
        b"space" => |c: u8| c.is_ascii_whitespace() || c == 0x0b,
        b"upper" => |c: u8| c.is_ascii_uppercase(),
        b"xdigit" => |c: u8| c.is_ascii_hexdigit(),
        _ => return None,
    })
}

/// Read the set that starts after `[` at `p[start..]`; the token and where the pattern goes
/// on.
fn bracket(p: &[u8], start: usize) -> (Tok, usize) {
    let mut i = start;
    let negate = matches!(p.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut bits = [0u64; 4];
    let mut first = true;
    loop {
        let Some(&c) = p.get(i) else {
            // Unterminated: a plain `[`, the pattern going on right after it.
            return (Tok::Lit(b'['), start);
        };
        if c == b']' && !first {
            return (Tok::Set { bits, negate }, i + 1);
        }
        first = false;
        let mut lo = c;
        i += 1;
        if c == b'\\' {
            let Some(&e) = p.get(i) else {
                return (Tok::Never, p.len());
            };
            lo = e;
            i += 1;
        } else if c == b'[' && p.get(i) == Some(&b':') {
            // `[:name:]`, lower-case letters only; anything else is a plain `[`.
            let name_start = i + 1;
            let mut j = name_start;
            // glibc takes `a` to `y` only.
            while j < p.len() && (b'a'..=b'y').contains(&p[j]) && j - name_start < 255 {
                j += 1;
            }
            if p.get(j) == Some(&b':') && p.get(j + 1) == Some(&b']') {
                match class(&p[name_start..j]) {
                    Some(f) => {
                        for b in 0..=255u8 {
                            if f(b) {
                                set_bit(&mut bits, b);
                            }
                        }
                        i = j + 2;
                        continue;
                    }
                    None => return (Tok::Broken { bits, negate }, skip_set(p, j + 2)),
                }
            }
        }
        // A range `lo-hi`, unless the `-` is last in the set.
        if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&h| h != b']') {
            let mut hi = p[i + 1];
            i += 2;
            if hi == b'\\' {
                let Some(&e) = p.get(i) else {
                    return (Tok::Never, p.len());
                };
                hi = e;
                i += 1;
            }
            for b in lo..=hi.max(lo) {
                if b <= hi {
                    set_bit(&mut bits, b);
                }
            }
            continue;
        }
        set_bit(&mut bits, lo);
    }
}

/// Past the `]` that ends the set the pattern is in at `i` (the end when there is none).
fn skip_set(p: &[u8], mut i: usize) -> usize {
    while i < p.len() {
        match p[i] {
            b']' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    p.len()
}

fn tokens(p: &[u8]) -> Vec<Tok> {
    let mut out = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        i += 1;
        match c {
            b'*' => {
                if out.last() != Some(&Tok::Star) {
                    out.push(Tok::Star);
                }
            }
            b'?' => out.push(Tok::Any),
            b'\\' => match p.get(i) {
                Some(&e) => {
                    out.push(Tok::Lit(e));
                    i += 1;
                }
                None => out.push(Tok::Never),
            },
            b'[' => {
                // An unterminated one is the `[` alone: what follows it is pattern again.
                let (t, next) = bracket(p, i);
                out.push(t);
                i = next;
            }
            c => out.push(Tok::Lit(c)),
        }
    }
    out
}

fn one(t: &Tok, c: u8) -> bool {
    match t {
        Tok::Star => unreachable!("stars are matched apart"),
        Tok::Any => true,
        Tok::Lit(l) => *l == c,
        Tok::Set { bits, negate } => has_bit(bits, c) != *negate,
        Tok::Broken { bits, negate } => has_bit(bits, c) && !negate,
        Tok::Never => false,
    }
}

/// Does `name` match `pattern` (glibc `fnmatch(pattern, name, 0)` returning 0)?
pub fn fnmatch(pattern: &[u8], name: &[u8]) -> bool {
    let toks = tokens(pattern);
    let (mut t, mut n) = (0usize, 0usize);
    // Where the last star was, and the name position it stands for now.
    let mut star: Option<(usize, usize)> = None;
    loop {
        if t < toks.len() && toks[t] == Tok::Star {
            star = Some((t, n));
            t += 1;
            continue;
        }
        if n == name.len() {
            if t == toks.len() {
                return true;
            }
        } else if t < toks.len() && one(&toks[t], name[n]) {
            t += 1;
            n += 1;
            continue;
        }
        // Mismatch: the last star takes one more byte, if there is one.
        match star {
            Some((st, sn)) if sn < name.len() => {
                star = Some((st, sn + 1));
                t = st + 1;
                n = sn + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests;
