//! getinfo inside the debug, read, seek, sockopt, opensocket, prereq and xferinfo callbacks:
//! tests/c/infolive.c against our library and the reference libcurl over the same server,
//! every value printed from each callback compared.

mod common;

use std::collections::BTreeMap;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};

/// (ours, reference) for one run each against the same server.
fn both() -> (String, String) {
    let s = ScriptedServer::start();
    s.set_handler(|req| match req.path() {
        "/up" => Reply::redirect(307, "/final"),
        "/final" => Reply::ok("the final body\n"),
        _ => Reply::ok("first\n"),
    });
    let url = s.url().trim_end_matches('/').to_string();
    let ours = run_ok("infolive", Lib::Ours, &[&url]);
    let reference = run_ok("infolive", Lib::Reference, &[&url]);
    (ours, reference)
}

/// The lines of each callback in order, without the request size in the read callback and
/// at the request head: curl reads a small body into the request before it shows the head,
/// and so counts it there (see the ignored test below).
fn by_callback(out: &str) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in out.lines() {
        let kind = l.split(':').next().unwrap_or_default().to_string();
        let l = match kind.starts_with("read") || kind.starts_with("debug request") {
            true => l
                .split(' ')
                .filter(|w| !w.starts_with("request_size="))
                .collect::<Vec<_>>()
                .join(" "),
            false => l.to_string(),
        };
        m.entry(kind).or_default().push(l);
    }
    m
}

#[test]
fn getinfo_inside_every_callback_matches_reference() {
    let (ours, reference) = both();
    // The running transfer's values, not the first transfer's: its URL, codes and sizes.
    for line in [
        "opensocket: code=0 url=/up redirects=0 header_size=0 ",
        "sockopt: code=0 url=/up ",
        "prereq: code=0 url=/up redirects=0 header_size=0 request_size=0 connects=1 ",
        "debug status 307: code=307 url=/up ",
        "seek: code=307 url=/final redirects=1 ",
        "prereq: code=307 url=/final redirects=1 ",
        "debug status 200: code=200 url=/final redirects=1 ",
        "xferinfo: code=200 url=/final ",
        "after second: code=200 url=/final redirects=1 ",
    ] {
        assert!(ours.contains(line), "{line:?} in {ours}");
    }
    // Each request starts its counts again; the 307's head is counted after its last line.
    for (start, end) in [
        ("prereq: code=307", "up=0 down=0 clen_up=-1 clen_down=-1\n"),
        ("debug status 200", "up=15 down=0 clen_up=15 clen_down=-1\n"),
        ("after second", "up=15 down=15 clen_up=15 clen_down=15\n"),
    ] {
        let at = ours.find(start).expect(start);
        let line = &ours[at..at + ours[at..].find('\n').expect("line") + 1];
        assert!(line.ends_with(end), "{line:?} should end with {end:?}");
    }
    assert_eq!(by_callback(&ours), by_callback(&reference));
}

#[test]
#[ignore = "issue 5: curl reads a small request body before it shows the head: its read callback \
            comes first and sees a request size of 0, the head's debug call the head and body"]
fn read_callback_comes_before_the_head_as_in_curl() {
    let (ours, reference) = both();
    assert_eq!(ours, reference);
}
