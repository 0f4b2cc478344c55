//! The round-trip invariant the fuzz target checks (fuzz/fuzz_targets/
//! url_parse.rs), run over a deterministic pseudo-random set of inputs.
//!
//! Invariant: when an input parses, `to_url_string()` parses again with the
//! same flags into a URL with the same parts and the same string form.
//! Cases where libcurl 8.14.1 itself does not round-trip are left out:
//! `file:` URLs whose path is not absolute, is "/" or unset, and hosts that only
//! became what they are by percent-decoding (curl stores them decoded, so
//! "%30x1" turns into the IPv4 number "0x1" on the next parse, and "%7f"
//! turns into a byte the parser refuses), and IMAP/POP3/SMTP userinfo
//! with both options and a ';' in the password.

use oxcurl_urlapi::{Flags, GetFlags, Url};

mod common;
use common::PARTS;

fn check(input: &str, flags: Flags) -> Result<(), String> {
    let Ok(u) = Url::parse(input, flags) else {
        return Ok(());
    };
    let s = u.to_url_string();
    if u.scheme() == "file" && !u.path().starts_with('/') {
        return Ok(());
    }
    if u.scheme() == "file" && (s.starts_with("file://(nil)") || u.path() == "/") {
        // curl prints an unset file path as "(nil)", and a "/" path comes
        // back unset from the next parse
        return Ok(());
    }
    if u.password().is_some_and(|p| p.contains(';')) && u.options().is_some() {
        // "user:pa;ss;opt" style userinfo is ambiguous to curl as well
        return Ok(());
    }
    let authority_end = input
        .find("//")
        .map(|p| p + 2)
        .map(|p| p + input[p..].find(['/', '?', '#']).unwrap_or(input.len() - p))
        .unwrap_or(input.len());
    if input[..authority_end].contains('%') {
        return Ok(());
    }
    let u2 =
        Url::parse(&s, flags).map_err(|e| format!("{input:?} -> {s:?} does not parse: {e:?}"))?;
    for part in PARTS {
        let a = u.get(part, GetFlags::default());
        let b = u2.get(part, GetFlags::default());
        if a != b {
            return Err(format!("{input:?} -> {s:?}: {part:?} {a:?} != {b:?}"));
        }
    }
    Ok(())
}

pub struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[(self.next() % v.len() as u64) as usize]
    }
}

const SCHEMES: &[&str] = &[
    "http://", "HTTPS://", "ftp://", "file://", "file:", "file:///", "imap://", "foo://", "", "",
    "//", "http:/", "http:///", "ws://", "smtp://", "pop3://", "a:",
];
const USERS: &[&str] = &[
    "",
    "",
    "",
    "user@",
    "u:p@",
    "u;o@",
    ":@",
    "a%40b@",
    "@",
    "u:p;AUTH=x@",
    "x;y:z@",
];
const HOSTS: &[&str] = &[
    "example.com",
    "127.1",
    "0x7f.1",
    "[::1]",
    "[fe80::1%25eth0]",
    "[fe80::1%eth0]",
    "[::ffff:1.2.3.4]",
    "[1:0:0:2:0:0:0:3]",
    "[ABCD::1]",
    "räk.se",
    "ex%41mple",
    "xn--rksmrgs-5wao1o.se",
    "ftp.x",
    "",
    "localhost",
    "a_b",
    "2130706433",
    "1.2.3.4.5",
    "h",
    "0",
    "dict.org",
];
const PORTS: &[&str] = &[
    "", "", "", ":", ":80", ":0080", ":65535", ":65536", ":x", ":21",
];
const PATHS: &[&str] = &[
    "",
    "/",
    "/a/b",
    "/a/../b",
    "/./",
    "/%2e%2e/x",
    "/a b",
    "/ä",
    "//x",
    "/..",
    "/a/.",
    "/.a/",
    "/a/b/../../..",
    "/%2E",
    "/x;y",
    "/~u",
];
const QUERIES: &[&str] = &["", "", "?", "?a=b", "?a b", "?x/../y", "?ä", "??"];
const FRAGS: &[&str] = &["", "", "#", "#f", "#a#b", "#a b", "#?x"];
const NOISE: &[&str] = &[
    " ", "%", "@", ":", "[", "]", "/", "?", "#", "\\", "ä", ".", "..", "%25", "%2e", ";", "0",
    "\t", "+", "=", "&", "x",
];

fn flag_sets() -> Vec<Flags> {
    vec![
        Flags::default(),
        Flags {
            default_scheme: true,
            ..Flags::default()
        },
        Flags {
            guess_scheme: true,
            ..Flags::default()
        },
        Flags {
            non_support_scheme: true,
            path_as_is: true,
            ..Flags::default()
        },
        Flags {
            url_encode: true,
            allow_space: true,
            ..Flags::default()
        },
        Flags {
            no_authority: true,
            non_support_scheme: true,
            ..Flags::default()
        },
    ]
}

pub fn gen_input(r: &mut Rng) -> String {
    let mut s = String::new();
    s.push_str(r.pick(SCHEMES));
    s.push_str(r.pick(USERS));
    s.push_str(r.pick(HOSTS));
    s.push_str(r.pick(PORTS));
    s.push_str(r.pick(PATHS));
    s.push_str(r.pick(QUERIES));
    s.push_str(r.pick(FRAGS));
    // a few random insertions
    for _ in 0..(r.next() % 3) {
        let noise = r.pick(NOISE);
        let mut at = (r.next() % (s.len() as u64 + 1)) as usize;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.insert_str(at, noise);
    }
    s
}

#[test]
fn reparse_roundtrip_20000() {
    let mut r = Rng(0x0123_4567_89ab_cdef);
    let flags = flag_sets();
    let mut failures = Vec::new();
    let mut parsed = 0;
    for n in 0..20_000 {
        let input = gen_input(&mut r);
        let f = flags[n % flags.len()];
        if Url::parse(&input, f).is_ok() {
            parsed += 1;
        }
        if let Err(e) = check(&input, f) {
            failures.push(format!("{e} (flags {f:?})"));
        }
    }
    eprintln!("{parsed} of 20000 inputs parsed");
    assert!(parsed > 5000, "the generator should make mostly valid URLs");
    if !failures.is_empty() {
        let n = failures.len();
        failures.truncate(30);
        panic!("{n} round-trip failures:\n{}", failures.join("\n"));
    }
}

fn flag_bits(f: &Flags) -> u32 {
    (f.default_scheme as u32) << 2
        | (f.non_support_scheme as u32) << 3
        | (f.path_as_is as u32) << 4
        | (f.disallow_user as u32) << 5
        | (f.url_encode as u32) << 7
        | (f.guess_scheme as u32) << 9
        | (f.no_authority as u32) << 10
        | (f.allow_space as u32) << 11
}

fn escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

/// Writes the first 6000 generated inputs as input lines for
/// tests/ref/urlref.c, so libcurl's answers for them can be recorded in
/// tests/generated.tsv:
///   URLAPI_GEN_OUT=/tmp/gen.txt cargo test -p oxcurl-urlapi --test roundtrip -- --ignored
///   LD_LIBRARY_PATH=$R/lib /tmp/urlref < /tmp/gen.txt > tests/generated.tsv
#[test]
#[ignore]
fn write_generated_inputs() {
    let path = std::env::var("URLAPI_GEN_OUT").expect("URLAPI_GEN_OUT");
    let mut r = Rng(0x0123_4567_89ab_cdef);
    let flags = flag_sets();
    let mut out = String::from("# generated by tests/roundtrip.rs write_generated_inputs\n");
    for n in 0..6000 {
        let input = gen_input(&mut r);
        let f = flags[n % flags.len()];
        out.push_str(&format!("P\t{:x}\t0\t{}\n", flag_bits(&f), escape(&input)));
    }
    std::fs::write(path, out).unwrap();
}

/// As in libcurl 8.14.1 (checked with its curl_url_set/get): `file:.//p://1/le` parses,
/// and the URL string it gives, `file:///p://1/le`, does not parse again (19, Bad file://
/// URL). Found by the url_parse fuzz target, which exempts this case.
#[test]
fn file_url_whose_string_does_not_parse_again_like_libcurl() {
    use oxcurl_urlapi::{Flags, Url, UrlError};
    let u = Url::parse("file:.//p://1/le", Flags::default()).expect("parses");
    let s = u.to_url_string();
    assert_eq!(s, "file:///p://1/le");
    assert_eq!(
        Url::parse(&s, Flags::default()).err(),
        Some(UrlError::BadFileUrl)
    );
}
