//! A request body sent again after a 307/308 redirect: tests/c/rewind.c rewinds it with
//! CURLOPT_SEEKFUNCTION, CURLOPT_IOCTLFUNCTION or fseek on READDATA, or fails with
//! CURLE_SEND_FAIL_REWIND, against our library and the reference libcurl.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};

fn server() -> ScriptedServer {
    let s = ScriptedServer::start();
    s.set_handler(|req| match req.path() {
        "/r307" => Reply::redirect(307, "/echo"),
        "/r308" => Reply::redirect(308, "/echo"),
        _ => Reply::ok(format!("{} done\n", req.method)),
    });
    s
}

/// A request with its multipart boundary (random) replaced by a fixed word.
fn no_boundary(raw: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(raw).into_owned();
    let Some(at) = text.find("boundary=") else {
        return raw.to_vec();
    };
    let b: String = text[at + 9..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    text.replace(&b, "BOUNDARY").into_bytes()
}

/// Runs MODE against both libraries on the same server; asserts the same output and the
/// same request bytes (but the boundary), and returns our output and the bodies of our
/// requests.
fn compare(mode: &str, path: &str, extra: &[&str]) -> (String, Vec<Vec<u8>>) {
    let s = server();
    let url = format!("{}{path}", s.url().trim_end_matches('/'));
    let mut args = vec![mode, url.as_str()];
    args.extend_from_slice(extra);
    let ours = run_ok("rewind", Lib::Ours, &args);
    let reference = run_ok("rewind", Lib::Reference, &args);
    assert_eq!(ours, reference, "{mode} {path}: ours vs reference");
    let reqs = s.requests();
    let raw: Vec<Vec<u8>> = reqs.iter().map(|r| r.raw()).collect();
    let (a, b) = raw.split_at(raw.len() / 2);
    let (a, b): (Vec<_>, Vec<_>) = (
        a.iter().map(|r| no_boundary(r)).collect(),
        b.iter().map(|r| no_boundary(r)).collect(),
    );
    assert_eq!(a, b, "{mode} {path}: requests, ours vs reference");
    let bodies = reqs[..reqs.len() / 2]
        .iter()
        .map(|r| r.decoded_body())
        .collect();
    (ours, bodies)
}

fn sent_twice(bodies: &[Vec<u8>]) {
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    for b in bodies {
        assert_eq!(String::from_utf8_lossy(b), BODY);
    }
}

const BODY: &str = "the body that must be sent twice\n";

#[test]
fn seek_callback_rewinds_for_307_and_308() {
    for path in ["/r307", "/r308"] {
        let (out, bodies) = compare("seek", path, &[]);
        assert!(out.starts_with("PUT done\n"), "{out}");
        assert!(out.contains("rc=0 (No error)"), "{out}");
        assert!(out.contains(" redirects=1 seeks=1 ioctls=0"), "{out}");
        sent_twice(&bodies);
    }
    let (out, bodies) = compare("seek", "/r307", &["post"]);
    assert!(out.starts_with("POST done\n"), "{out}");
    sent_twice(&bodies);
}

#[test]
fn ioctl_callback_rewinds_when_there_is_no_seek_callback() {
    let (out, bodies) = compare("ioctl", "/r307", &[]);
    assert!(out.contains(" seeks=0 ioctls=1"), "{out}");
    sent_twice(&bodies);
}

#[test]
fn default_reader_is_rewound_with_fseek() {
    let (out, bodies) = compare("file", "/r308", &[]);
    assert!(out.starts_with("PUT done\n"), "{out}");
    sent_twice(&bodies);
}

#[test]
fn refused_or_impossible_rewinds_fail_with_send_fail_rewind() {
    for (mode, err) in [
        ("seek-fail", "seek callback returned error 1"),
        ("seek-cantseek", "seek callback returned error 2"),
        ("ioctl-fail", "ioctl callback returned error 2"),
        ("none", "necessary data rewind was not possible"),
    ] {
        let (out, bodies) = compare(mode, "/r307", &[]);
        assert_eq!(bodies.len(), 1, "{mode}: no second request");
        assert!(
            out.contains(&format!(
                "rc=65 (Send failed since rewinding of the data stream failed) err=[{err}]"
            )),
            "{mode}: {out}"
        );
    }
}

#[test]
fn mime_part_rewinds_with_its_seek_callback() {
    let (out, bodies) = compare("mime-seek", "/r307", &[]);
    assert!(out.contains("rc=0 "), "{out}");
    assert_eq!(bodies.len(), 2, "{out}");
    assert_eq!(bodies[0], bodies[1]);
}

#[test]
fn mime_part_that_cannot_rewind_fails_with_send_fail_rewind() {
    for mode in ["mime-seek-fail", "mime-noseek"] {
        let (out, bodies) = compare(mode, "/r307", &[]);
        assert_eq!(bodies.len(), 1, "{mode}: no second request");
        assert!(
            out.contains(
                "rc=65 (Send failed since rewinding of the data stream failed) err=[Cannot rewind mime/post data]"
            ),
            "{mode}: {out}"
        );
    }
}
