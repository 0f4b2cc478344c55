//! Pausing transfers: tests/c/pause.c pauses with CURL_WRITEFUNC_PAUSE from the write and
//! header callbacks, CURL_READFUNC_PAUSE from the read callback and curl_easy_pause inside
//! callbacks, and lets go from the progress callback or between curl_multi_perform calls,
//! against our library and the reference libcurl on the same server.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use std::time::Duration;

fn server() -> ScriptedServer {
    let s = ScriptedServer::start();
    s.set_handler(|req| match req.path() {
        "/slow" => Reply::head(
            200,
            &[
                ("Content-Length", "10"),
                ("X-One", "1"),
                ("X-Two", "2"),
                ("X-Three", "3"),
            ],
        )
        .write("part1")
        .sleep(Duration::from_millis(300))
        .write("part2"),
        "/big" => Reply::big(2_000_000),
        _ => Reply::ok("posted\n"),
    });
    s
}

#[test]
fn pause_and_let_go_match_reference() {
    let s = server();
    let base = s.url().trim_end_matches('/').to_string();
    let ours = run_ok("pause", Lib::Ours, &[&base]);
    let reference = run_ok("pause", Lib::Reference, &[&base]);
    // The refused data comes again, first, and nothing is lost or doubled.
    assert!(
        ours.contains(
            "easy write returns PAUSE: rc=0 let go=1 progress while paused=1 pause rc=0 \
             first=part1 body=part1part2 total=10"
        ),
        "{ours}"
    );
    assert!(
        ours.contains("  header (refused): X-Two: 2\r\n  header: X-Two: 2\r\n"),
        "{ours}"
    );
    assert!(ours.contains("total=2000000 max write<=16384=1"), "{ours}");
    assert_eq!(ours, reference, "ours vs reference");
    assert!(
        ours.contains(
            "easy read returns PAUSE: rc=0 let go=1 progress while paused=1 pause rc=0 \
             first=posted"
        ),
        "{ours}"
    );
    let reqs = s.requests();
    let raw: Vec<Vec<u8>> = reqs.iter().map(|r| r.raw()).collect();
    let (a, b) = raw.split_at(raw.len() / 2);
    assert_eq!(a, b, "requests: ours vs reference");
    let posts: Vec<Vec<u8>> = reqs[..reqs.len() / 2]
        .iter()
        .filter(|r| r.path() == "/post")
        .map(|r| r.decoded_body())
        .collect();
    assert_eq!(posts.len(), 2, "{posts:?}");
    for p in posts {
        assert_eq!(String::from_utf8_lossy(&p), "name=value&more=data");
    }
}
