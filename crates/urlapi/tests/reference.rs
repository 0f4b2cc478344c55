//! Table-driven comparison with libcurl 8.14.1.
//!
//! `tests/cases.tsv` holds what the real `curl_url_set`/`curl_url_get`
//! answered for every case; see `tests/ref/urlref.c` for how it is made.

use oxcurl_urlapi::{Flags, GetFlags, Part, Url, UrlError};

fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') && i + 3 < b.len() {
            let h = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
            out.push(u8::from_str_radix(h, 16).unwrap());
            i += 4;
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b't') {
            out.push(b'\t');
            i += 2;
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn text(s: &str) -> String {
    String::from_utf8(unescape(s)).expect("inputs are UTF-8")
}

pub fn set_flags(bits: u32) -> Flags {
    Flags {
        default_scheme: bits & (1 << 2) != 0,
        non_support_scheme: bits & (1 << 3) != 0,
        path_as_is: bits & (1 << 4) != 0,
        disallow_user: bits & (1 << 5) != 0,
        url_encode: bits & (1 << 7) != 0,
        guess_scheme: bits & (1 << 9) != 0,
        no_authority: bits & (1 << 10) != 0,
        allow_space: bits & (1 << 11) != 0,
    }
}

pub fn get_flags(bits: u32) -> GetFlags {
    GetFlags {
        default_port: bits & 1 != 0,
        no_default_port: bits & 2 != 0,
        url_decode: bits & (1 << 6) != 0,
        url_encode: bits & (1 << 7) != 0,
        punycode: bits & (1 << 12) != 0,
        puny2idn: bits & (1 << 13) != 0,
        get_empty: bits & (1 << 14) != 0,
        no_guess_scheme: bits & (1 << 15) != 0,
    }
}

mod common;
use common::PARTS;

fn code(r: &Result<(), UrlError>) -> u32 {
    match r {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}

/// Compares all parts; returns a description of the first difference.
fn compare(u: &Url, gflags: GetFlags, expected: &[&str]) -> Option<String> {
    for (k, part) in PARTS.iter().enumerate() {
        let got = match u.get_bytes(*part, gflags) {
            Ok(v) => {
                let mut s = b"=".to_vec();
                s.extend_from_slice(&v);
                s
            }
            Err(e) => format!("!{}", e.code()).into_bytes(),
        };
        let exp = unescape(expected[k]);
        if got != exp {
            return Some(format!(
                "{part:?}: got {:?} want {:?}",
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&exp)
            ));
        }
    }
    None
}

#[test]
fn matches_libcurl() {
    run_table(include_str!("cases.tsv"));
}

/// Inputs from the round-trip generator (tests/roundtrip.rs), as answered
/// by libcurl.
#[test]
fn matches_libcurl_generated() {
    run_table(include_str!("generated.tsv"));
}

fn run_table(data: &str) {
    let mut failures = Vec::new();
    let mut counts = [0usize; 3];
    for line in data.lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let sbits = u32::from_str_radix(f[1], 16).unwrap();
        let gflags = get_flags(u32::from_str_radix(f[2], 16).unwrap());
        let sflags = set_flags(sbits);
        let (rc_idx, url, result) = match f[0] {
            "P" => {
                counts[0] += 1;
                let r = Url::parse(&text(f[3]), sflags);
                let res = r.as_ref().map(|_| ()).map_err(|e| *e);
                (4, r.unwrap_or_default(), res)
            }
            "J" => {
                counts[1] += 1;
                match Url::parse(&text(f[3]), sflags) {
                    Err(e) => (
                        5,
                        Url::default(),
                        Err(UrlError::from_code(e.code() + 1000).unwrap_or(e)),
                    ),
                    Ok(base) => {
                        let mut u = base.clone();
                        let r = u.set(Part::Url, Some(&text(f[4])), sflags);
                        (5, u, r)
                    }
                }
            }
            _ => {
                let Some(part) = Part::from_code(f[4].parse().unwrap()) else {
                    continue;
                };
                counts[2] += 1;
                let base = Url::parse(&text(f[3]), set_flags(0x8)).expect("base parses");
                let mut u = base.clone();
                let val = if f[5] == "\\N" {
                    None
                } else {
                    Some(text(f[5]))
                };
                let r = if sbits & 0x100 != 0 && part == Part::Query && val.is_some() {
                    u.append_query(val.as_deref().unwrap(), sflags.url_encode)
                } else {
                    u.set(part, val.as_deref(), sflags)
                };
                (6, u, r)
            }
        };
        let want_rc: u32 = f[rc_idx].parse().unwrap();
        if want_rc >= 1000 {
            // the base URL failed in curl; it must fail the same way here
            let got = Url::parse(&text(f[3]), if f[0] == "J" { sflags } else { set_flags(8) });
            if got.as_ref().err().map(|e| e.code()) != Some(want_rc - 1000) {
                failures.push(format!("{line}\n    base: got {:?}", got.err()));
            }
            continue;
        }
        let got_rc = code(&result);
        if got_rc != want_rc {
            failures.push(format!("{line}\n    rc: got {got_rc} want {want_rc}"));
            continue;
        }
        if let Some(d) = compare(&url, gflags, &f[rc_idx + 1..]) {
            failures.push(format!("{line}\n    {d}"));
        }
    }
    eprintln!(
        "parse cases {}, join cases {}, set cases {}",
        counts[0], counts[1], counts[2]
    );
    if !failures.is_empty() {
        let n = failures.len();
        let shown: Vec<_> = failures.into_iter().take(60).collect();
        panic!("{n} mismatches with libcurl:\n{}", shown.join("\n"));
    }
}
