//! CURLOPT_RESOLVER_START_FUNCTION, CURLOPT_PREREQFUNCTION and CURLOPT_TRAILERFUNCTION:
//! tests/c/hooks.c against our library and the reference libcurl on the same server, the
//! output (what the callbacks saw, results, error texts) and the request bytes compared.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};

/// Runs MODE against both libraries; asserts the same output and the same requests, and
/// returns our output and our requests' raw bytes.
fn compare(mode: &str, path: &str) -> (String, Vec<Vec<u8>>) {
    let s = ScriptedServer::start();
    s.set_handler(|req| match req.path() {
        "/moved" => Reply::redirect(302, "/there"),
        _ => Reply::ok(format!("{} {} done\n", req.method, req.target)),
    });
    let url = format!("{}{path}", s.url().trim_end_matches('/'));
    let ours = run_ok("hooks", Lib::Ours, &[mode, &url]);
    let reference = run_ok("hooks", Lib::Reference, &[mode, &url]);
    assert_eq!(ours, reference, "{mode}: ours vs reference");
    let raw: Vec<Vec<u8>> = s.requests().iter().map(|r| r.raw()).collect();
    let (a, b) = raw.split_at(raw.len() / 2);
    assert_eq!(a, b, "{mode}: requests, ours vs reference");
    (ours, a.to_vec())
}

#[test]
fn resolver_start_is_called_before_a_lookup_and_can_fail_it() {
    let (out, reqs) = compare("resolve-ok", "/a");
    // The second transfer finds the address in the cache: no second call.
    assert!(out.contains("calls=1 rc=0"), "{out}");
    assert!(
        out.contains("state NULL reserved NULL data the data"),
        "{out}"
    );
    assert_eq!(reqs.len(), 2);
    let (out, reqs) = compare("resolve-fail", "/a");
    assert!(out.contains("calls=1 rc=6 "), "{out}");
    assert!(
        out.contains("err=[Could not resolve host: 127.0.0.1]"),
        "{out}"
    );
    assert!(reqs.is_empty());
}

#[test]
fn prereq_is_called_before_each_request_and_can_abort() {
    let (out, reqs) = compare("prereq-ok", "/a");
    assert!(
        out.contains("prereq 1: 127.0.0.1 port as in the URL, from 127.0.0.1 port set"),
        "{out}"
    );
    assert!(out.contains("prereq 2: 127.0.0.1"), "{out}");
    assert!(out.contains("calls=2 rc=0"), "{out}");
    assert_eq!(reqs.len(), 2);
    let (out, reqs) = compare("prereq-follow", "/moved");
    assert!(out.contains("GET /there done"), "{out}");
    assert!(out.contains("calls=4 rc=0"), "{out}");
    assert_eq!(reqs.len(), 4);
    let (out, reqs) = compare("prereq-abort", "/a");
    assert!(
        out.contains("calls=1 rc=42 (Operation was aborted by an application callback) err=[operation aborted by pre-request callback]"),
        "{out}"
    );
    assert!(reqs.is_empty(), "no request goes");
}

#[test]
fn trailers_follow_the_last_chunk() {
    let (out, reqs) = compare("trailers-ok", "/up");
    assert!(out.contains("calls=1 rc=0"), "{out}");
    let req = String::from_utf8_lossy(&reqs[0]).into_owned();
    assert!(
        req.ends_with("\r\n\r\ne\r\nchunk of body\n\r\n0\r\nX-First: one\r\nX-Last: three\r\n\r\n"),
        "{req:?}"
    );
    let (_, reqs) = compare("trailers-malformed", "/up");
    let req = String::from_utf8_lossy(&reqs[0]).into_owned();
    assert!(
        req.ends_with("0\r\nX-First: one\r\nX-Last: three\r\n\r\n"),
        "{req:?}"
    );
    let (_, reqs) = compare("trailers-none", "/up");
    let req = String::from_utf8_lossy(&reqs[0]).into_owned();
    assert!(req.ends_with("\r\n0\r\n\r\n"), "{req:?}");
    // An aborted upload leaves a cut-off request that the server may or may not have read
    // before the close: only the outputs are compared.
    let s = ScriptedServer::start();
    let url = format!("{}/up", s.url().trim_end_matches('/'));
    let out = run_ok("hooks", Lib::Ours, &["trailers-abort", &url]);
    let reference = run_ok("hooks", Lib::Reference, &["trailers-abort", &url]);
    assert_eq!(out, reference, "trailers-abort: ours vs reference");
    assert!(
        out.contains("calls=1 rc=42 (Operation was aborted by an application callback) err=[operation aborted by trailing headers callback]"),
        "{out}"
    );
}

/// tests/c/hstscb.c with MODE against both libraries; the same output asserted.
fn hsts_compare(mode: &str) -> String {
    // A server that hangs up at once: the TLS handshake the HSTS switch asks for fails.
    let s = ScriptedServer::raw(drop);
    let port = s
        .url()
        .rsplit(':')
        .next()
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string();
    let ours = run_ok("hstscb", Lib::Ours, &[&port, mode]);
    let reference = run_ok("hstscb", Lib::Reference, &[&port, mode]);
    assert_eq!(ours, reference, "{mode}: ours vs reference");
    ours
}

#[test]
fn hsts_callbacks_preload_and_save_the_cache() {
    let out = hsts_compare("all");
    assert!(
        out.starts_with("read: namelen 2048, expire [], sub 0\n"),
        "{out}"
    );
    // The subdomain entry switched the URL to HTTPS, where the plain server fails TLS.
    assert!(
        out.contains("rc=35 scheme https reads=3\nagain rc=35 reads=3\n"),
        "{out}"
    );
    assert!(
        out.contains("write [0/2] sub.example (namelen 11) 20990102 03:04:05 sub 1\n"),
        "{out}"
    );
    assert!(
        out.contains("write [1/2] plain.example (namelen 13) unlimited sub 0\n"),
        "{out}"
    );
    let out = hsts_compare("stop");
    assert!(out.contains("write [0/2]"), "{out}");
    assert!(!out.contains("write [1/2]"), "{out}");
    let out = hsts_compare("fail");
    assert!(out.contains("rc=42 scheme http reads=0\n"), "{out}");
    assert!(!out.contains("write"), "{out}");
}

/// tests/c/aliases.c against both libraries, the server answering with an ICY status line.
fn aliases_compare(aliases: &[&str]) -> String {
    let s = ScriptedServer::start();
    s.set_handler(|_| Reply::raw("ICY 200 OK\r\nContent-Length: 7\r\n\r\nMooMoo\n"));
    let url = s.url();
    let mut args = vec![url.as_str()];
    args.extend_from_slice(aliases);
    let ours = run_ok("aliases", Lib::Ours, &args);
    let reference = run_ok("aliases", Lib::Reference, &args);
    assert_eq!(ours, reference, "{aliases:?}: ours vs reference");
    ours
}

#[test]
fn http200_aliases_make_other_status_lines_http_1_0_200() {
    let ok = "referer before: (null)\nreferer set: http://example.com/from\nMooMoo\n\
              rc=0 code=200 version=1\nreferer after: http://example.com/from\n";
    assert_eq!(aliases_compare(&["ICY 200 OK"]), ok);
    // As many bytes as both have, any case.
    assert_eq!(aliases_compare(&["SHOUT", "icy"]), ok);
    // An alias longer than the line is compared over the whole line: no match.
    assert!(aliases_compare(&["ICY 200 OK and more"]).contains("\nrc=1 "));
    // Without a matching alias it is HTTP/0.9, which is refused.
    assert!(aliases_compare(&[]).contains("\nrc=1 "));
    assert!(aliases_compare(&["ICX"]).contains("\nrc=1 "));
}
