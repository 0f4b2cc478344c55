//! Differential tests for curl's once-a-second sweep of the connection pool
//! (`Curl_cpool_prune_dead`): before a transfer looks for a connection, every idle one the
//! server closed is noted dead and shut down, whatever host it is to, unless the pool was
//! swept less than a second ago.
//!
//! The first URL goes to `127.0.0.1`, the second to `localhost` (pinned to 127.0.0.1 with
//! `--resolve`), so the second transfer never looks at the first one's connection when it
//! searches for one to reuse: only the sweep can find it dead.

use oxcurl_testsupport::diff::mask_digits;
use oxcurl_testsupport::tls::TlsServerOptions;
use oxcurl_testsupport::{Case, CaseResult, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// `-v` output with digits masked, without curl's racy "Request completely sent off" line,
/// and without repeated data markers (that line may split a run of them).
fn verbose_norm(data: &[u8]) -> Vec<u8> {
    let kept: Vec<u8> = mask_digits(data)
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| {
            !(l.ends_with(b"* Request completely sent off\n") || l.ends_with(b"* abort upload\n"))
        })
        .flatten()
        .copied()
        .collect();
    oxcurl_testsupport::diff::drop_repeated_data_markers(&kept)
}

/// `url` then `localhost` on the same port, `rate` apart; the server closes the first
/// connection after its reply (which has a length and no `Connection: close`).
fn two_hosts(name: &str, rate: &str, tls: bool, url: &str, extra: &[&str]) -> CaseResult {
    let second = format!(
        "{}://localhost:{{port}}/b",
        if tls { "https" } else { "http" }
    );
    let mut c = Case::new(name)
        .compare_stderr(true)
        .normalise_with(verbose_norm)
        .args(&["-sS", "-v", "--rate", rate])
        .args(&["--resolve", "localhost:{port}:127.0.0.1"])
        .args(extra)
        .args(&[url, &second])
        .replies(vec![Reply::ok("one\n").close(), Reply::ok("two\n")]);
    if tls {
        // The reference curl's backend, with its handshake trace.
        c = c
            .tls(TlsServerOptions::default())
            .env("CURL_SSL_BACKEND", "openssl");
    }
    c.run(OXCURL)
}

const DEAD: &str = "* Connection N seems to be dead\n* shutting down connection #N\n";

/// More than a second after the first transfer (`--rate 40/m`: 1.5 s apart), the second one
/// sweeps the pool and finds connection #0, to another host, dead: curl notes it before
/// anything about the second URL's host.
#[test]
fn dead_connection_to_other_host_swept_after_a_second() {
    let r = two_hosts(
        "dead_connection_to_other_host_swept_after_a_second",
        "40/m",
        false,
        "{url}/a",
        &[],
    );
    assert_eq!(r.oxcurl.stdout, b"one\ntwo\n");
    let err = String::from_utf8_lossy(&verbose_norm(&r.oxcurl.stderr)).into_owned();
    assert!(
        err.contains(&format!(
            "* Added localhost:N:N.N.N.N to DNS cache\n{DEAD}\
             * Hostname localhost was found in DNS cache\n"
        )),
        "{err}"
    );
}

/// Within the second (`--rate 10/s`) no sweep runs: the dead connection to the other host
/// is not looked at, so nothing is noted about it.
#[test]
fn dead_connection_to_other_host_not_swept_within_a_second() {
    let r = two_hosts(
        "dead_connection_to_other_host_not_swept_within_a_second",
        "10/s",
        false,
        "{url}/a",
        &[],
    );
    assert_eq!(r.oxcurl.stdout, b"one\ntwo\n");
    let err = String::from_utf8_lossy(&verbose_norm(&r.oxcurl.stderr)).into_owned();
    assert!(!err.contains("seems to be dead"), "{err}");
}

/// The same over HTTPS: the sweep finds the TLS connection dead (the server's close_notify
/// and end of stream wait on it) and closes it without sending anything.
#[test]
fn dead_tls_connection_to_other_host_swept_after_a_second() {
    let r = two_hosts(
        "dead_tls_connection_to_other_host_swept_after_a_second",
        "40/m",
        true,
        "{url}/a",
        &["--cacert", "{ca}"],
    );
    assert_eq!(r.oxcurl.stdout, b"one\ntwo\n");
    let err = String::from_utf8_lossy(&verbose_norm(&r.oxcurl.stderr)).into_owned();
    assert!(err.contains(DEAD), "{err}");
}
