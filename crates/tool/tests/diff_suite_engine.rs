//! Differential tests for engine behaviour that curl 8.14.1's own test suite
//! (scripts/curl-testsuite.sh) found different: each test names the curl test it stands for
//! and checks the same behaviour against the reference curl on a scripted server.

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

// ---- custom Host headers (curl tests 184, 1121, 1292) --------------------------------------

/// curl test 184: a custom `Host:` goes with the first request only; following to another
/// host sends curl's own.
#[test]
fn t184_custom_host_dropped_on_redirect_to_another_host() {
    Case::new("t184_custom_host_dropped")
        .args(&[
            "-s",
            "-L",
            "-H",
            "Host: another.visitor.stay",
            "-x",
            "{url}",
            "http://deathstar.another.galaxy/184",
        ])
        .server(|s| {
            s.route(
                "http://deathstar.another.galaxy/184",
                Reply::head(
                    301,
                    &[
                        ("Location", "http://yet.another.host/184"),
                        ("Content-Length", "4"),
                    ],
                )
                .body("moo\n"),
            );
            s.route("http://yet.another.host/184", Reply::ok("moo\n"));
        })
        .run(OXCURL);
}

/// A redirect back to the same host name keeps the custom `Host:`.
#[test]
fn t184_custom_host_kept_on_redirect_to_the_same_host() {
    Case::new("t184_custom_host_kept")
        .args(&["-s", "-L", "-H", "Host: custom.example", "{url}/a"])
        .server(|s| {
            s.route("/a", Reply::redirect(302, "/b"));
            s.route("/b", Reply::ok("b\n"));
        })
        .run(OXCURL);
}

/// curl test 1121: of several custom `Host:` headers the first one is sent.
#[test]
fn t1121_first_of_several_custom_hosts() {
    Case::new("t1121_first_of_several_custom_hosts")
        .args(&[
            "-s",
            "-H",
            "Host: host1",
            "-H",
            "Host: host2",
            "-H",
            "Host: host3",
            "{url}/1121",
        ])
        .reply(Reply::ok("blaha\n"))
        .run(OXCURL);
}

/// curl test 1292: `Host;` replaces the Host header with an empty one, in its place;
/// `Host:` alone sends none, and then a later custom Host goes out as any custom header.
#[test]
fn t1292_blank_and_removed_host() {
    for (name, headers) in [
        ("blank", vec!["Host;", "Accept;"]),
        ("removed", vec!["Host:", "X-A: 1"]),
        (
            "removed_then_custom",
            vec!["Host:", "X-A: 1", "Host: later"],
        ),
        ("spaced_value", vec!["Host:   spaced  "]),
        ("semicolon_value", vec!["Host;odd"]),
    ] {
        let mut args = vec!["-s"];
        for h in &headers {
            args.extend_from_slice(&["-H", h]);
        }
        args.push("{url}/1292");
        Case::new(&format!("t1292_{name}"))
            .args(&args)
            .reply(Reply::ok("ok\n"))
            .run(OXCURL);
    }
}
