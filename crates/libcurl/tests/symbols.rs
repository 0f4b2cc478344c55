//! The exports of libcurl.so.4: only `curl_*` functions, each versioned `CURL_OPENSSL_4` as
//! in Debian's build, and exactly the functions of curl.h/easy.h/multi.h/urlapi.h/options.h/
//! header.h/mprintf.h/websockets.h minus an
//! explicit list of those not implemented yet (and options.h's) (so adding an export updates this list).

mod common;

use std::collections::BTreeSet;
use std::process::Command;

/// Declared in curl 8.14.1's headers and not exported yet (none now; each would be a later landing).
const NOT_YET: &[&str] = &[];

/// Function names declared with `CURL_EXTERN` in one header.
fn declared(header: &str) -> BTreeSet<String> {
    let path = common::include_dir().join("curl").join(header);
    let text = std::fs::read_to_string(&path).expect("read header");
    let mut out = BTreeSet::new();
    for decl in text.split("CURL_EXTERN").skip(1) {
        let decl = decl.split(';').next().unwrap_or("");
        // Drop string literals (deprecation messages name other functions).
        let decl: String = decl.split('"').step_by(2).collect();
        // The first lower-case `curl_name(`: macros such as CURL_DEPRECATED are upper case.
        let mut rest = decl.as_str();
        while let Some(i) = rest.find("curl_") {
            let tail = &rest[i..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            if tail[end..].trim_start().starts_with('(') {
                out.insert(tail[..end].to_string());
                break;
            }
            rest = &tail[end..];
        }
    }
    out
}

fn exported() -> Vec<(String, String, String)> {
    let so = common::ours().join("libcurl.so.4");
    let out = Command::new("objdump")
        .arg("-T")
        .arg(&so)
        .output()
        .expect("objdump");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .filter(|l| l.contains(" g ") && !l.contains("*UND*"))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let n = f.len();
            (f[n - 1].to_string(), f[n - 2].to_string(), f[2].to_string())
        })
        .collect()
}

#[test]
fn every_export_is_a_curl_function_versioned_curl_openssl_4() {
    let syms = exported();
    assert!(syms.len() > 20, "{syms:?}");
    for (name, version, kind) in &syms {
        if name == "CURL_OPENSSL_4" {
            continue; // the version definition itself
        }
        assert!(name.starts_with("curl_"), "unexpected export {name}");
        assert_eq!(version, "CURL_OPENSSL_4", "{name}");
        assert_eq!(kind, "DF", "{name} is not a function");
    }
}

#[test]
fn soname_is_libcurl_so_4() {
    let so = common::ours().join("libcurl.so.4");
    let out = Command::new("objdump")
        .arg("-p")
        .arg(&so)
        .output()
        .expect("objdump");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["SONAME", "libcurl.so.4"]),
        "{text}"
    );
}

#[test]
fn exports_are_the_headers_minus_the_not_yet_list() {
    let mut decl = BTreeSet::new();
    for h in [
        "curl.h",
        "easy.h",
        "multi.h",
        "urlapi.h",
        "options.h",
        "header.h",
        "mprintf.h",
        "websockets.h",
    ] {
        decl.extend(declared(h));
    }
    assert!(decl.contains("curl_easy_setopt") && decl.contains("curl_url_set"));
    let ours: BTreeSet<String> = exported()
        .into_iter()
        .map(|s| s.0)
        .filter(|n| n.starts_with("curl_"))
        .collect();
    let missing: BTreeSet<String> = decl.difference(&ours).cloned().collect();
    let expected: BTreeSet<String> = NOT_YET.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        missing, expected,
        "declared but not exported vs the NOT_YET list"
    );
    let extra: Vec<&String> = ours.difference(&decl).collect();
    assert!(
        extra.is_empty(),
        "exported but not declared in those headers: {extra:?}"
    );
}
