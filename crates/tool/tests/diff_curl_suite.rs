//! Differential tests for what curl 8.14.1's own test suite (tests/runtests.pl, run by
//! scripts/curl-testsuite.sh) found: each test names the curl test it stands for, and checks
//! the same behaviour against the reference curl on a scripted server.

use std::time::Duration;

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

// ---- redirects and the response body (curl tests 54, 187) ---------------------------------

/// curl test 187: a redirect on a connection that closes anyway is followed as soon as its
/// head is in; the body is not read (the server here never ends it).
#[test]
fn t187_redirect_on_closing_connection_skips_the_body() {
    Case::new("t187_redirect_on_closing_connection_skips_the_body")
        .args(&["-s", "-i", "-L", "{url}?oh=what-weird=test/187"])
        .server(|s| {
            s.route(
                "/",
                Reply::head(
                    301,
                    &[
                        ("Location", "/root/1870002.txt?coolsite=yes"),
                        ("Connection", "close"),
                    ],
                )
                .body("This server reply is for testing a simple Location: following\n")
                .keep_open(true),
            );
            s.route("/root/1870002.txt", Reply::ok("followed\n"));
        })
        .run(OXCURL);
}

/// curl test 187 in verbose mode: the messages about the skipped body come before the blank
/// line that ends the head, for a reused connection ("Ignoring the response-body") and for a
/// closing one (none).
#[test]
fn t187_redirect_body_messages() {
    for (name, close) in [("keep", false), ("close", true)] {
        let mut headers = vec![("Location", "/next"), ("Content-Length", "5")];
        if close {
            headers.push(("Connection", "close"));
        }
        // A pause before each answer, so that the request is seen as sent first.
        let pause = Duration::from_millis(100);
        let mut head = String::from("HTTP/1.1 301 Moved Permanently\r\n");
        for (k, v) in &headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let first = Reply::new()
            .sleep(pause)
            .write(head)
            .body("body\n")
            .keep_open(!close);
        let next = Reply::new()
            .sleep(pause)
            .write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nnext\n");
        Case::new(&format!("t187_redirect_body_messages_{name}"))
            .args(&["-s", "-v", "-L", "{url}/start"])
            .server(move |s| {
                s.route("/start", first.clone());
                s.route("/next", next.clone());
            })
            .compare_stderr(true)
            .run(OXCURL);
    }
}

/// curl test 54: an empty Location is ignored, so -L stays with the 301.
#[test]
fn t54_blank_location_is_not_followed() {
    Case::new("t54_blank_location_is_not_followed")
        .args(&["-s", "-i", "-L", "-w", "[%{redirect_url}]", "{url}/want/54"])
        .reply(Reply::head(301, &[("Location", ""), ("Content-Length", "5")]).body("body\n"))
        .run(OXCURL);
}

/// The first Location of a 3xx counts, and a Location on a 2xx is not a redirect.
#[test]
fn t54_first_location_counts_and_only_on_3xx() {
    Case::new("t54_first_location_counts")
        .args(&["-s", "-L", "-w", "[%{redirect_url}]", "{url}/a"])
        .server(|s| {
            s.route(
                "/a",
                Reply::head(
                    302,
                    &[
                        ("Location", "/b"),
                        ("Location", "/c"),
                        ("Content-Length", "0"),
                    ],
                ),
            );
            s.route("/b", Reply::ok("b\n"));
            s.route("/c", Reply::ok("c\n"));
        })
        .run(OXCURL);
    Case::new("t54_location_on_200")
        .args(&["-s", "-w", "[%{redirect_url}]", "{url}/a"])
        .reply(Reply::status(200, &[("Location", "/elsewhere")], "ok\n"))
        .run(OXCURL);
}

// ---- resumed downloads (curl tests 92, 99) -------------------------------------------------

fn resume(name: &str, args: &[&str], reply: Reply) {
    let mut all = vec!["-sS", "-i"];
    all.extend_from_slice(args);
    Case::new(name).args(&all).reply(reply).run(OXCURL);
}

/// curl test 92: a 416 to a resumed download means it is complete: no error, no body.
#[test]
fn t92_resume_416_is_complete() {
    let reply = || {
        Reply::head(
            416,
            &[("Content-Length", "4"), ("Content-Range", "bytes */87")],
        )
        .body("bad\n")
    };
    resume(
        "t92_resume_416_is_complete",
        &["-C", "87", "{url}/want/92"],
        reply(),
    );
    resume(
        "t92_resume_416_with_fail",
        &["-f", "-C", "87", "{url}/want/92"],
        reply(),
    );
}

/// curl test 99: a resumed download answered without the asked range fails with 33 before
/// anything of the body is written, whatever the status.
#[test]
fn t99_resume_not_honoured_fails() {
    resume(
        "t99_resume_404",
        &["-C", "9999999999", "{url}/99"],
        Reply::head(404, &[("Connection", "close"), ("Content-Length", "13")])
            .body("0123456789123\n"),
    );
    resume(
        "t99_resume_206_elsewhere",
        &["-C", "10", "{url}/99"],
        Reply::head(
            206,
            &[("Content-Range", "bytes 5-9/10"), ("Content-Length", "5")],
        )
        .body("56789"),
    );
}

/// The other side of curl test 99: a Content-Range at the resume point is honoured, and a
/// whole-document answer as long as the resume point says there is nothing left.
#[test]
fn t99_resume_honoured_or_already_there() {
    resume(
        "t99_resume_206_at_offset",
        &["-C", "5", "{url}/99"],
        Reply::head(
            206,
            &[("Content-Range", "bytes 5-9/10"), ("Content-Length", "5")],
        )
        .body("56789"),
    );
    resume(
        "t99_resume_all_there",
        &["-C", "10", "{url}/99"],
        Reply::status(200, &[], "0123456789"),
    );
}

// ---- a custom Transfer-Encoding (curl tests 56, 98) ---------------------------------------

/// curl test 56: `Transfer-Encoding: chunked` as a custom header chunks a POST of known size
/// (no Content-Length, no Expect for a small body); the server only answers once the last
/// chunk is in.
#[test]
fn t56_custom_chunked_post() {
    Case::new("t56_custom_chunked_post")
        .args(&["-s", "-K", "-", "{url}/that.site.com/56"])
        .stdin("data \"we post this\"\nheader \"Transfer-Encoding: chunked\"\n-A \"aaaa\"\n")
        .reply(Reply::ok("posted\n"))
        .run(OXCURL);
    Case::new("t56_custom_chunked_post_from_file")
        .args(&[
            "-s",
            "-H",
            "Transfer-Encoding: chunked",
            "-d",
            "@{tmp}/big",
            "{url}/56",
        ])
        .file("big", vec![b'x'; 3000])
        .reply(Reply::ok("posted\n"))
        .run(OXCURL);
}

/// Chunks of a large chunked upload: the first fills curl's 64 KiB send buffer after the
/// request head (0xff55 bytes here), the next are 64 KiB less 12.
#[test]
fn t56_custom_chunked_big_post() {
    Case::new("t56_custom_chunked_big_post")
        .args(&[
            "-s",
            "-H",
            "Transfer-Encoding: chunked",
            "-d",
            "@{tmp}/big",
            "{url}/56",
        ])
        .file("big", vec![b'x'; 70000])
        .reply(Reply::ok("posted\n"))
        .run(OXCURL);
}

/// curl test 98: an emptied Transfer-Encoding turns chunks off for a body of unknown size,
/// which then goes as it is, with the user's Content-Length (Expect stays).
#[test]
fn t98_put_from_stdin_unchunked() {
    Case::new("t98_put_from_stdin_unchunked")
        .args(&[
            "-s",
            "-T",
            "-",
            "-H",
            "Transfer-Encoding:",
            "-H",
            "Content-Length: 14",
            "{url}/98",
        ])
        .stdin("data on stdin\n")
        .reply(Reply::ok("stored\n"))
        .run(OXCURL);
}

/// A custom Transfer-Encoding that is not chunked leaves a body of known size as it was.
#[test]
fn t98_other_transfer_encoding_keeps_length() {
    Case::new("t98_other_transfer_encoding_keeps_length")
        .args(&[
            "-s",
            "-H",
            "Transfer-Encoding: gzip",
            "-d",
            "abc",
            "{url}/98",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

// ---- header lines are acted on before they are passed on (curl test 178) ----------------

/// curl test 178: a negative Content-Length fails (8) before that header line is written.
#[test]
fn t178_negative_content_length_fails_before_the_line() {
    Case::new("t178_negative_content_length_fails_before_the_line")
        .args(&["-s", "-i", "{url}/178"])
        .reply(Reply::raw(
            "HTTP/1.1 200 OK\r\nDate: Tue, 09 Nov 2010 14:49:00 GMT\r\nContent-Length: -6\r\n\
             Content-Type: text/html\r\n\r\nmoooooooooooo\n",
        ))
        .run(OXCURL);
}

/// The note about an oversized Content-Length comes before the line in verbose output.
#[test]
fn t178_overflowing_content_length_note_order() {
    Case::new("t178_overflowing_content_length_note_order")
        .args(&["-s", "-v", "{url}/178"])
        .reply(
            Reply::new()
                .sleep(Duration::from_millis(100))
                .write("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nmoo\n")
                .close(),
        )
        .compare_stderr(true)
        .run(OXCURL);
}

// ---- authentication (curl test 176) ---------------------------------------------------------

/// curl test 176: a POST --ntlm whose probe is answered without a challenge is sent again
/// with its body and without any Authorization.
#[test]
fn t176_ntlm_post_to_server_without_auth() {
    Case::new("t176_ntlm_post_to_server_without_auth")
        .args(&[
            "-s",
            "-u",
            "auser:apasswd",
            "--ntlm",
            "-d",
            "junkelijunk",
            "{url}/176",
        ])
        .replies(vec![
            Reply::head(
                200,
                &[
                    ("Server", "Microsoft-IIS/6.0"),
                    ("Content-Type", "text/html; charset=iso-8859-1"),
                ],
            ),
            Reply::status(200, &[], "content for you\n"),
        ])
        .run(OXCURL);
}

/// curl tests 1284, 1285, 2067-2069: while a Digest probe goes without its body, curl's own
/// `Content-Length: 0` replaces a custom Content-Length (which would make the server wait for
/// a body that never comes); the real request then carries the custom one.
#[test]
fn t1284_digest_probe_replaces_custom_content_length() {
    let challenge = || {
        Reply::status(
            401,
            &[(
                "WWW-Authenticate",
                "Digest realm=\"testrealm\", nonce=\"1053604144\"",
            )],
            "",
        )
    };
    Case::new("t1284_digest_post")
        .args(&[
            "-s",
            "-H",
            "Content-Length: 11",
            "-u",
            "auser:apasswd",
            "--digest",
            "-d",
            "junkelijunk",
            "{url}/1284",
        ])
        .replies(vec![challenge(), Reply::ok("ok\n")])
        .run(OXCURL);
    Case::new("t1285_digest_put")
        .args(&[
            "-s",
            "-H",
            "Content-Length: 85",
            "-u",
            "auser:apasswd",
            "--digest",
            "-T",
            "{tmp}/put",
            "{url}/1285",
        ])
        .file("put", vec![b'p'; 85])
        .replies(vec![challenge(), Reply::ok("ok\n")])
        .run(OXCURL);
}

// ---- status lines split across reads (curl test 1033) ----------------------------------------

/// curl test 1033 failed now and then: after a 102 the next status line came in two reads,
/// and its second part was taken for the start of an HTTP/0.9 response.
#[test]
fn t1033_status_line_split_after_1xx() {
    let pause = Duration::from_millis(100);
    Case::new("t1033_status_line_split_after_1xx")
        .args(&["-s", "-i", "{url}/1033"])
        .reply(
            Reply::new()
                .write("HTTP/1.1 102 unexpected huh?!\r\n\r\nHTTP/1.1 2")
                .sleep(pause)
                .write("00 OK\r\nContent-Length: 6\r\n\r\n-foo-\n"),
        )
        .run(OXCURL);
    Case::new("t1033_status_line_split_at_start")
        .args(&["-s", "-i", "{url}/1033"])
        .reply(
            Reply::new()
                .write("HT")
                .sleep(pause)
                .write("TP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n-foo-\n"),
        )
        .run(OXCURL);
}

// ---- name resolution (curl tests 1471, 1472) ---------------------------------------------

/// curl tests 1471, 1472: .onion names are refused before any lookup (RFC 7686), also with a
/// trailing dot, and before the progress meter starts.
#[test]
fn t1471_onion_names_are_not_resolved() {
    for (name, host) in [
        ("t1471_onion", "red.onion"),
        ("t1472_onion_dot", "tasty.onion."),
    ] {
        Case::new(name)
            .args(&[host])
            .compare_stderr(true)
            .compare_requests(false)
            .expect_failure()
            .run(OXCURL);
    }
}
