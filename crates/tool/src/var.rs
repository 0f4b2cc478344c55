//! `--variable` and `--expand-*` as curl's tool_var.c does them: variables set from text,
//! files (`name@file`, `@-` for stdin) or the environment (`%NAME`, `%NAME=default`), and
//! `{{name}}` / `{{name:fn:fn}}` expansion in the argument of any `--expand-OPTION`, with the
//! functions `trim`, `json`, `url`, `b64` and `64dec`. An unknown variable expands to
//! nothing; `\{{` is a literal `{{`.

use std::collections::HashMap;

/// Why setting or expanding failed; the caller names the option (curl exits 2, or 26 for an
/// unreadable file).
#[derive(Debug, PartialEq, Eq)]
pub enum VarError {
    /// A value with a zero byte: curl's `variable contains null byte`, then the failure.
    NullByte,
    /// An unknown function: the text from it on (`:nope:url`), which curl names first.
    UnknownFunction(String),
    /// A `name@file` that cannot be read: curl's `Failed to open PATH: REASON`.
    ReadFile(String),
    /// `%NAME` without a default, and NAME is not in the environment.
    NotSet(String),
    /// A bad byte range (`name[5-2]=...`).
    Syntax,
}

const MAX_NAME: usize = 128;

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The variables of one command line.
#[derive(Debug, Default)]
pub struct Vars {
    map: HashMap<String, Vec<u8>>,
}

impl Vars {
    /// One `--variable` argument. Warnings go to `warnings` (curl prints them and goes on);
    /// `read_file` reads `name@file` contents (`-` is stdin).
    pub fn set(
        &mut self,
        input: &str,
        warnings: &mut Vec<String>,
        read_file: impl Fn(&str) -> std::io::Result<Vec<u8>>,
    ) -> Result<(), VarError> {
        let (import, s) = match input.strip_prefix('%') {
            Some(rest) => (true, rest),
            None => (false, input),
        };
        let len = s.bytes().take_while(|&c| is_name_char(c)).count();
        if len == 0 || len >= MAX_NAME {
            warnings.push(format!("Bad variable name length ({len}), skipping"));
            return Ok(());
        }
        let name = &s[..len];
        let mut rest = &s[len..];
        // From the environment (a byte range is read but not applied, as in curl).
        let env = if import {
            let v = std::env::var_os(name);
            if v.is_none() && rest.is_empty() {
                return Err(VarError::NotSet(name.to_string()));
            }
            v
        } else {
            None
        };
        // `[N-M]` or `[N-]`: only bytes N to M (counted from 0, both included).
        let mut range = None;
        if rest.starts_with('[') && rest.as_bytes().get(1).is_some_and(u8::is_ascii_digit) {
            let (r, after) = byte_range(&rest[1..]).ok_or(VarError::Syntax)?;
            range = Some(r);
            rest = after;
        }
        let cut = |v: Vec<u8>| match range {
            Some((start, end)) => {
                let start = usize::try_from(start).unwrap_or(usize::MAX);
                let end = usize::try_from(end).unwrap_or(usize::MAX);
                v.get(start..=end.min(v.len().saturating_sub(1)))
                    .map(<[u8]>::to_vec)
                    .unwrap_or_default()
            }
            None => v,
        };
        let content: Vec<u8> = if let Some(v) = env {
            v.into_encoded_bytes()
        } else if let Some(v) = rest.strip_prefix('=') {
            cut(v.as_bytes().to_vec())
        } else if let Some(f) = rest.strip_prefix('@') {
            cut(read_file(f).map_err(|e| {
                let why = oxcurl_core::connect::os_error_text(&e);
                VarError::ReadFile(format!("Failed to open {f}: {why}"))
            })?)
        } else {
            warnings.push(format!("Bad --variable syntax, skipping: {input}"));
            return Ok(());
        };
        self.map.insert(name.to_string(), content);
        Ok(())
    }

    /// Expand `{{...}}` in an `--expand-*` argument, as curl's `varexpand`: `\{{` gives
    /// `{{` (the backslash dropped), a reference with a bad name stays as written (with a
    /// warning), a missing `}}` ends the expansion (with a warning) and keeps the rest. When
    /// no variable was expanded at all, the argument is used exactly as given.
    pub fn expand(&self, input: &str, warnings: &mut Vec<String>) -> Result<String, VarError> {
        let mut out: Vec<u8> = Vec::with_capacity(input.len());
        let mut rest = input;
        let mut added = false;
        while let Some(i) = rest.find("{{") {
            if i > 0 && rest.as_bytes()[i - 1] == b'\\' {
                out.extend_from_slice(&rest.as_bytes()[..i - 1]);
                out.extend_from_slice(b"{{");
                rest = &rest[i + 2..];
                continue;
            }
            let inner_start = &rest[i + 2..];
            let Some(end) = inner_start.find("}}") else {
                warnings.push(format!("missing close '}}}}' in '{input}'"));
                break;
            };
            let inner = &inner_start[..end];
            let name = inner.split(':').next().unwrap_or("");
            let after = &inner_start[end + 2..];
            if name.is_empty() || name.len() >= MAX_NAME {
                warnings.push(format!("bad variable name length '{input}'"));
                out.extend_from_slice(&rest.as_bytes()[..i + 2 + end + 2]);
                rest = after;
                continue;
            }
            out.extend_from_slice(&rest.as_bytes()[..i]);
            if !name.bytes().all(is_name_char) {
                warnings.push(format!("bad variable name: {name}"));
                out.extend_from_slice(&rest.as_bytes()[i..i + 2 + end + 2]);
                rest = after;
                continue;
            }
            let mut value = self.map.get(name).cloned().unwrap_or_default();
            let funcs = &inner[name.len()..];
            let mut at = 0;
            for f in inner.split(':').skip(1) {
                value = apply(f, &value)
                    .ok_or_else(|| VarError::UnknownFunction(funcs[at..].to_string()))?;
                at += f.len() + 1;
            }
            if value.contains(&0) {
                return Err(VarError::NullByte);
            }
            out.extend_from_slice(&value);
            added = true;
            rest = after;
        }
        if !added {
            return Ok(input.to_string());
        }
        out.extend_from_slice(rest.as_bytes());
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

/// `N-M]` or `N-]` after a variable name's `[`: the first and last byte, and the rest.
fn byte_range(s: &str) -> Option<((u64, u64), &str)> {
    let number = |s: &str| -> Option<(u64, usize)> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        let v = s[..n].parse::<i64>().ok()?;
        Some((v as u64, n))
    };
    let (start, n) = number(s)?;
    let rest = s[n..].strip_prefix('-')?;
    let (end, rest) = match rest.strip_prefix(']') {
        Some(r) => (i64::MAX as u64, r),
        None => {
            let (end, n) = number(rest)?;
            (end, rest[n..].strip_prefix(']')?)
        }
    };
    (start <= end).then_some(((start, end), rest))
}

/// One expansion function, None when unknown.
fn apply(f: &str, v: &[u8]) -> Option<Vec<u8>> {
    Some(match f {
        "trim" => v.trim_ascii().to_vec(),
        "json" => json(v),
        "url" => url(v),
        "b64" => oxcurl_core::base64(v).into_bytes(),
        "64dec" => match oxcurl_core::codec::base64_decode(std::str::from_utf8(v).unwrap_or("!")) {
            Some(d) => d,
            None => b"[64dec-fail]".to_vec(),
        },
        _ => return None,
    })
}

fn json(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    for &c in v {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c if c < 0x20 => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            c => out.push(c),
        }
    }
    out
}

fn url(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 3);
    for &c in v {
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
            out.push(c);
        } else {
            out.extend_from_slice(format!("%{c:02X}").as_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &str) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn vars(defs: &[&str]) -> Vars {
        let mut v = Vars::default();
        for d in defs {
            v.set(d, &mut Vec::new(), read).unwrap();
        }
        v
    }

    #[test]
    fn expansion_and_functions() {
        let v = vars(&["n=YWJj", "s=  a b  "]);
        let mut w = Vec::new();
        assert_eq!(
            v.expand("/{{n:64dec}}/{{n:b64}}/{{n:json}}", &mut w)
                .unwrap(),
            "/abc/WVdKag==/YWJj"
        );
        assert_eq!(v.expand("{{s:trim:url}}", &mut w).unwrap(), "a%20b");
        assert_eq!(v.expand("x{{nope}}y", &mut w).unwrap(), "xy");
        // Nothing expanded: the argument as given; else `\{{` loses its backslash.
        assert_eq!(v.expand("\\{{n}}", &mut w).unwrap(), "\\{{n}}");
        assert_eq!(v.expand("\\{{n}}{{n}}", &mut w).unwrap(), "{{n}}YWJj");
        assert_eq!(
            v.expand("{{n:trim:bad:url}}", &mut w),
            Err(VarError::UnknownFunction(":bad:url".into()))
        );
        assert!(w.is_empty());
        assert_eq!(v.expand("a{{n", &mut w).unwrap(), "a{{n");
        assert_eq!(w, ["missing close '}}' in 'a{{n'"]);
        w.clear();
        let long = "A".repeat(128);
        let arg = format!("{{{{n}}}}{{{{{long}}}}}{{{{a.b}}}}{{{{}}}}x{{{{y");
        assert_eq!(
            v.expand(&arg, &mut w).unwrap(),
            format!("YWJj{{{{{long}}}}}{{{{a.b}}}}{{{{}}}}x{{{{y")
        );
        assert_eq!(
            w,
            [
                format!("bad variable name length '{arg}'"),
                "bad variable name: a.b".to_string(),
                format!("bad variable name length '{arg}'"),
                format!("missing close '}}}}' in '{arg}'"),
            ]
        );
    }

    #[test]
    fn setting() {
        let mut v = Vars::default();
        let mut w = Vec::new();
        v.set("n=v", &mut w, read).unwrap();
        v.set("n=w", &mut w, read).unwrap();
        v.set("bad-name=v", &mut w, read).unwrap();
        v.set("=v", &mut w, read).unwrap();
        assert_eq!(
            w,
            [
                "Bad --variable syntax, skipping: bad-name=v",
                "Bad variable name length (0), skipping"
            ]
        );
        assert_eq!(v.expand("{{n}}", &mut w).unwrap(), "w");
        assert_eq!(
            v.set("%OXCURL_SURELY_UNSET_VAR", &mut w, read),
            Err(VarError::NotSet("OXCURL_SURELY_UNSET_VAR".into()))
        );
        v.set("%OXCURL_SURELY_UNSET_VAR=d", &mut w, read).unwrap();
        assert_eq!(
            v.expand("{{OXCURL_SURELY_UNSET_VAR}}", &mut w).unwrap(),
            "d"
        );
        assert_eq!(v.expand("{{x:json}}", &mut w).unwrap(), "");
        for (def, want) in [
            ("r[5-9]=0123456789abcdef", "56789"),
            ("r[10-30]=0123456789abcdef", "abcdef"),
            ("r[3-]=0123456789", "3456789"),
            ("r[4-4]=0123456789", "4"),
            ("r[20-30]=0123456789", ""),
        ] {
            v.set(def, &mut w, read).unwrap();
            assert_eq!(v.expand("{{r}}", &mut w).unwrap(), want, "{def}");
        }
        for bad in ["r[5-2]=x", "r[5]=x", "r[5-x]=x", "r[1-2=x"] {
            assert_eq!(v.set(bad, &mut w, read), Err(VarError::Syntax), "{bad}");
        }
        assert_eq!(json(b"a\"\x01\n"), b"a\\\"\\u0001\\n");
    }
}
