//! Error texts and length limits, checked against libcurl 8.14.1's answers
//! in tests/strerror.tsv (made by tests/ref/strerror.c).

use oxcurl_urlapi::{Flags, Part, Url, UrlError};

fn expected() -> Vec<(String, String)> {
    include_str!("strerror.tsv")
        .lines()
        .map(|l| {
            let (a, b) = l.split_once('\t').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect()
}

#[test]
fn messages_match_curl_url_strerror() {
    let mut n = 0;
    for (code, text) in expected() {
        let Ok(code) = code.parse::<u32>() else {
            continue;
        };
        let e = UrlError::from_code(code).expect("known code");
        assert_eq!(e.code(), code);
        assert_eq!(e.message(), text, "code {code}");
        assert_eq!(e.to_string(), text);
        n += 1;
    }
    assert_eq!(n, 31);
    assert_eq!(UrlError::from_code(0), None);
    assert_eq!(UrlError::from_code(32), None);
}

fn want(key: &str) -> u32 {
    let all = expected();
    all.iter()
        .find(|(k, _)| k == key)
        .unwrap()
        .1
        .parse()
        .unwrap()
}

fn code(r: Result<(), UrlError>) -> u32 {
    r.err().map(|e| e.code()).unwrap_or(0)
}

#[test]
fn input_length_limit() {
    let n = 8_000_000;
    let mut big = String::from("http://h/");
    big.push_str(&"a".repeat(n - big.len()));
    assert_eq!(
        code(Url::parse(&big, Flags::default()).map(|_| ())),
        want("len8000000")
    );
    big.push('a');
    assert_eq!(
        code(Url::parse(&big, Flags::default()).map(|_| ())),
        want("len8000001")
    );
    let mut u = Url::parse("http://h/", Flags::default()).unwrap();
    assert_eq!(
        code(u.set(Part::Path, Some(&big), Flags::default())),
        want("path8000001")
    );
}

#[test]
fn error_cases() {
    let f = Flags::default();
    let cases: &[(&str, UrlError)] = &[
        ("", UrlError::MalformedInput),
        ("http://a b/", UrlError::MalformedInput),
        ("http://example.com:65536/", UrlError::BadPortNumber),
        ("foo://x/", UrlError::UnsupportedScheme),
        ("http:////x", UrlError::BadSlashes),
        ("example.com", UrlError::BadScheme),
        ("http://[::1/", UrlError::BadIpv6),
        ("http://a<b/", UrlError::BadHostname),
        ("file://host/x", UrlError::BadFileUrl),
        ("http:///", UrlError::NoHost),
    ];
    for (input, e) in cases {
        assert_eq!(Url::parse(input, f).err(), Some(*e), "{input:?}");
    }
    let nouser = Flags {
        disallow_user: true,
        ..Flags::default()
    };
    assert_eq!(
        Url::parse("http://u@h/", nouser).err(),
        Some(UrlError::UserNotAllowed)
    );
}

#[test]
fn accessors() {
    let u = Url::parse("imap://u:p;AUTH=x@[::1]:143/INBOX?q#f", Flags::default()).unwrap();
    assert_eq!(u.options(), Some("AUTH=x"));
    assert_eq!(u.host(), "[::1]");
    assert_eq!(u.host_punycode().unwrap(), "[::1]");
    assert_eq!(u.port(), Some(143));
    assert_eq!(u.port_or_default(), 143);
    let u = Url::parse(
        "ftp.example.com/x",
        Flags {
            guess_scheme: true,
            ..Flags::default()
        },
    )
    .unwrap();
    assert_eq!(u.scheme(), "ftp");
    assert_eq!(u.port(), None);
    assert_eq!(u.port_or_default(), 21);
    assert_eq!(oxcurl_urlapi::default_port("file"), None);
    assert_eq!(oxcurl_urlapi::default_port("mqtt"), Some(1883));
    // joins: redirects
    let base = Url::parse("http://a/b/c/d;p?q", Flags::default()).unwrap();
    let j = |r: &str| base.join(r, Flags::default()).unwrap().to_url_string();
    assert_eq!(j("../g"), "http://a/b/g");
    assert_eq!(j("//g/x"), "http://g/x");
    assert_eq!(j("?y"), "http://a/b/c/d;p?y");
    assert_eq!(j("#s"), "http://a/b/c/d;p?q#s");
    assert_eq!(j("https://x/"), "https://x/");
    // a handle without URL parses the input as is
    assert_eq!(
        Url::default()
            .join("http://x/", Flags::default())
            .unwrap()
            .to_url_string(),
        "http://x/"
    );
    // append_query
    let mut u = Url::parse("http://h/?a=1", Flags::default()).unwrap();
    u.append_query("b=2 3", true).unwrap();
    assert_eq!(u.query(), Some("a=1&b=2+3"));
}
