//! Fuzz the AWS SigV4 signer (`auth/sigv4.rs`): its `--aws-sigv4` spec, path and query
//! canonicalisation, header trimming and sorting, and date handling take any input without
//! panicking, and signing is a function of its input (the same parameters sign the same).
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::auth::sigv4::{sign, Params};

fuzz_target!(|data: &[u8]| {
    // Fields split at 0xff: spec, path, query, host name, user headers (split at '\n'),
    // method, POST fields; the first byte picks the flags.
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let mut f = text.split('\u{fffd}');
    let mut next = || f.next().unwrap_or("");
    let spec = next().to_string();
    let path = next().to_string();
    let query = next().to_string();
    let hostname = next().to_string();
    let headers: Vec<String> = next().split('\n').map(str::to_string).collect();
    let method = next().to_string();
    let fields = next().as_bytes().to_vec();
    let p = Params {
        spec: &spec,
        user: "AKID",
        password: "secret",
        method: if method.is_empty() { "GET" } else { &method },
        path: if path.is_empty() { "/" } else { &path },
        query: (flags & 1 != 0).then_some(query.as_str()),
        hostname: &hostname,
        host_header: (flags & 2 != 0).then_some(hostname.as_str()),
        headers: &headers,
        post_fields: (flags & 4 != 0).then_some(fields.as_slice()),
        empty_payload: flags & 8 != 0,
        now: i64::from(flags >> 4) * 86_400 * 365 + 1_700_000_000,
    };
    let a = sign(&p).map(|s| (s.value, s.notes));
    let b = sign(&p).map(|s| (s.value, s.notes));
    match (a, b) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("signing the same parameters twice gave different outcomes"),
    }
});
