//! Parses arbitrary input with several flag sets. For every successful
//! parse, the URL string it produces must parse again (same flags) into a
//! URL with the same parts, except where libcurl 8.14.1 does not round-trip
//! either (see crates/urlapi/tests/roundtrip.rs, which runs the same check
//! over a fixed input set). Joins and part getters must not panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_urlapi::{Flags, GetFlags, Part, Url, UrlError};

const PARTS: [Part; 11] = [
    Part::Scheme,
    Part::User,
    Part::Password,
    Part::Options,
    Part::Host,
    Part::ZoneId,
    Part::Port,
    Part::Path,
    Part::Query,
    Part::Fragment,
    Part::Url,
];

fn flag_sets() -> [Flags; 7] {
    let d = Flags::default();
    [
        d,
        Flags {
            default_scheme: true,
            ..d
        },
        Flags {
            guess_scheme: true,
            ..d
        },
        Flags {
            non_support_scheme: true,
            path_as_is: true,
            ..d
        },
        Flags {
            url_encode: true,
            allow_space: true,
            ..d
        },
        Flags {
            no_authority: true,
            non_support_scheme: true,
            ..d
        },
        // How the engine parses a CURLOPT_CURLU handle's URL: spaces kept as they are.
        Flags {
            guess_scheme: true,
            non_support_scheme: true,
            allow_space: true,
            ..d
        },
    ]
}

fn roundtrip_exempt(input: &str, u: &Url, s: &str) -> bool {
    if u.scheme() == "file"
        && (!u.path().starts_with('/') || u.path() == "/" || s.starts_with("file://(nil)"))
    {
        return true;
    }
    if u.password().is_some_and(|p| p.contains(';')) && u.options().is_some() {
        return true;
    }
    // The authority starts after "//" and any further slashes (`scheme:///%36` has the
    // host `%36`, as in libcurl).
    let authority_end = input
        .find("//")
        .map(|p| p + 2)
        .map(|p| p + input[p..].bytes().take_while(|&b| b == b'/').count())
        .map(|p| p + input[p..].find(['/', '?', '#']).unwrap_or(input.len() - p))
        .unwrap_or(input.len());
    input[..authority_end].contains('%')
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    // the second half (after a NUL) is used as a relative reference
    let (input, rel) = input.split_once('\0').unwrap_or((input, "x/../y?q#f"));
    for flags in flag_sets() {
        let Ok(u) = Url::parse(input, flags) else {
            continue;
        };
        let all = GetFlags {
            url_decode: true,
            punycode: true,
            get_empty: true,
            default_port: true,
            ..GetFlags::default()
        };
        for part in PARTS {
            let _ = u.get(part, GetFlags::default());
            let _ = u.get(part, all);
        }
        let _ = u.host_punycode();
        let _ = u.join(rel, flags);

        let s = u.to_url_string();
        if roundtrip_exempt(input, &u, &s) {
            continue;
        }
        let u2 = match Url::parse(&s, flags) {
            Ok(u2) => u2,
            // libcurl 8.14.1 does the same: `file:.//p://1/x` parses, its URL string
            // `file:///p://1/x` does not (CURLUE_BAD_FILE_URL).
            Err(UrlError::BadFileUrl) if s.starts_with("file:") => continue,
            Err(e) => panic!("URL string of a parsed URL must parse: {e:?}"),
        };
        for part in PARTS {
            assert_eq!(
                u.get(part, GetFlags::default()),
                u2.get(part, GetFlags::default()),
                "{part:?} differs after re-parsing {s:?}"
            );
        }
    }
});
