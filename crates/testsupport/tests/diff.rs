//! The differential harness passes for identical binaries and reports differences.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Duration;

use oxcurl_testsupport::diff::{escape, show_diff, Case, Difference};
use oxcurl_testsupport::http::{ContinueMode, Reply};
use oxcurl_testsupport::process::reference_curl;

#[test]
fn same_binary_passes() {
    let curl = reference_curl();
    let r = Case::new("get_basic")
        .args(&[
            "-s",
            "{url}/path",
            "-o",
            "{tmp}/out",
            "-w",
            "%{http_code} {tmp}\\n",
        ])
        .reply(Reply::ok("hello"))
        .compare_stderr(true)
        .run_exact(&curl);
    assert_eq!(r.reference.code(), 0);
    assert_eq!(
        r.oxcurl.files.get("out").map(|v| &v[..]),
        Some(&b"hello"[..])
    );
    assert!(r.oxcurl.stdout_str().starts_with("200 /"));
    assert_eq!(r.reference.requests.len(), 1);
    assert!(r.oxcurl.requests[0]
        .head
        .starts_with(b"GET /path HTTP/1.1\r\nHost: 127.0.0.1:"));
}

#[test]
fn same_binary_redirects_uploads_and_failures() {
    let curl = reference_curl();
    let r = Case::new("redirect_post")
        .args(&["-sL", "-d", "@{tmp}/in", "-f", "{url}/a"])
        .file("in", "name=value")
        .server(|s| {
            s.route("/a", Reply::redirect(307, "/b"));
            s.route("/b", Reply::status(404, &[], "nope"));
        })
        .run_exact(&curl);
    assert_eq!(r.oxcurl.code(), 22);
    assert_eq!(r.reference.requests.len(), 2);
    assert_eq!(r.reference.requests[1].body, b"name=value");

    // Small stdin upload (chunk framing of big pipe uploads depends on read sizes).
    Case::new("stdin_upload")
        .args(&["-s", "-T", "-", "{url}/up"])
        .stdin(vec![b'z'; 1000])
        .reply(Reply::ok("stored"))
        .compare_stderr(true)
        .run_exact(&curl);

    Case::new("file_upload_expect")
        .args(&["-s", "-T", "{tmp}/data", "{url}/up"])
        .file("data", vec![b'z'; 2_000_000])
        .reply(Reply::ok("stored"))
        .server(|s| s.set_continue_mode(ContinueMode::Continue))
        .compare_stderr(true)
        .run_exact(&curl);
}

#[test]
fn same_binary_keepalive_and_big_body() {
    let curl = reference_curl();
    let r = Case::new("two_urls")
        .args(&[
            "-s",
            "{url}/1",
            "{url}/2",
            "-o",
            "{tmp}/one",
            "-o",
            "{tmp}/two",
        ])
        .replies(vec![Reply::big(3_000_000), Reply::chunked(&["ab", "cd"])])
        .run_exact(&curl);
    assert_eq!(r.reference.connections.len(), 1);
    assert_eq!(r.oxcurl.files["one"].len(), 3_000_000);
    assert_eq!(r.oxcurl.files["two"], b"abcd");
}

#[test]
fn connection_refused_and_timing_normaliser() {
    let curl = reference_curl();
    // A server that closes at once: curl reports an empty reply (exit 52).
    let r = Case::new("empty_reply")
        .args(&["-sS", "{url}/", "-w", "%{time_total}"])
        .reply(Reply::close_at_once())
        .normalise_with(|b| {
            // Mask the number printed by -w.
            b.iter()
                .map(|&c| if c.is_ascii_digit() { b'9' } else { c })
                .collect()
        })
        .compare_stderr(true)
        .timeout(Duration::from_secs(10))
        .run_exact(&curl);
    assert_eq!(r.reference.code(), 52);
    assert!(r.reference.stderr_str().contains("Empty reply from server"));
}

/// Two clients failing alike without a transfer compare equal but show nothing: such a case
/// fails unless it says it expects the failure, and then the reference must fail.
#[test]
fn a_failure_without_a_transfer_must_be_expected() {
    let curl = reference_curl();
    let unknown = || Case::new("unknown_option").args(&["--no-such-option", "{url}/"]);
    let err = unknown()
        .try_run_exact(&curl)
        .expect_err("an unexpected failure without a transfer");
    assert_eq!(
        err.differences,
        [Difference::ReferenceDidNothing],
        "{}",
        err.report
    );
    assert_eq!(
        unknown().expect_failure().run_exact(&curl).reference.code(),
        2
    );

    // A refused connection, the same.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind")
        .port();
    let refused = format!("http://127.0.0.1:{closed}/");
    let err = Case::new("refused")
        .args(&["-s", &refused])
        .try_run_exact(&curl)
        .expect_err("an unexpected refused connection");
    assert_eq!(err.differences, [Difference::ReferenceDidNothing]);
    assert_eq!(
        Case::new("refused")
            .args(&["-s", &refused])
            .expect_failure()
            .run_exact(&curl)
            .reference
            .code(),
        7
    );

    // A failure that shows something needs no mark: after a transfer, or with stdout.
    Case::new("fail_404")
        .args(&["-sf", "{url}/"])
        .reply(Reply::status(404, &[], "nope"))
        .run_exact(&curl);
    Case::new("refused_writeout")
        .args(&["-s", "-w", "%{http_code}\\n", &refused])
        .run_exact(&curl);

    // The mark on a case whose reference succeeds fails it.
    let err = Case::new("expected_but_fine")
        .args(&["-s", "{url}/"])
        .reply(Reply::ok("fine"))
        .expect_failure()
        .try_run_exact(&curl)
        .expect_err("a reference that succeeds where a failure is expected");
    assert_eq!(err.differences, [Difference::ReferenceSucceeded]);
}

#[test]
fn different_binaries_are_reported() {
    let other = Path::new("/usr/bin/curl");
    if !other.exists() {
        return;
    }
    let case = Case::new("version_differs").args(&["-V"]);
    let err = case
        .try_run_exact(other)
        .expect_err("curl 7.88.1 -V must differ");
    assert!(
        err.report.contains("stdout differs at byte"),
        "{}",
        err.report
    );
    assert!(err.report.contains("curl 8.14.1"), "{}", err.report);

    // And `run` panics with that report.
    let panic = catch_unwind(AssertUnwindSafe(|| {
        Case::new("ua_differs")
            .args(&["-s", "{url}/"])
            .reply(Reply::ok("same"))
            .run_exact(other)
    }))
    .expect_err("request bytes differ (User-Agent)");
    let msg = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains("bytes received on connection 0 differs"),
        "{msg}"
    );
    assert!(msg.contains("User-Agent: curl/8.14.1\\r\\n"), "{msg}");
    assert!(msg.contains("User-Agent: curl/7.88.1\\r\\n"), "{msg}");
    assert!(!msg.contains("stdout differs"), "{msg}");
}

#[test]
fn diff_rendering() {
    assert_eq!(escape(b"a\r\nb\x01\\"), "a\\r\\n\nb\\x01\\\\");
    let d = show_diff("stdout", b"line1\nline2\n", b"line1\nlineX\n");
    assert!(d.contains("differs at byte 10 (line 2)"), "{d}");
    assert!(d.contains("reference has 2, oxcurl has X"), "{d}");
    let big_a = vec![b'a'; 100_000];
    let mut big_b = big_a.clone();
    big_b[50_000] = b'b';
    let d = show_diff("body", &big_a, &big_b);
    assert!(d.contains("bytes before"), "{d}");
    assert!(d.len() < 10_000);
}
