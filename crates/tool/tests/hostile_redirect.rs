//! Hostile redirects, file names and cookies: compared with the reference curl 8.14.1 on the
//! same scripted server, with oxcurl's heap, RSS and wall time bounded
//! (`oxcurl_testsupport::hostile`).

use std::io::Write;

use oxcurl_testsupport::hostile::Hostile;
use oxcurl_testsupport::{Reply, Request};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");
const ALLOC_COUNT: bool = cfg!(feature = "alloc-count");

fn hostile(name: &str) -> Hostile {
    Hostile::new(name, ALLOC_COUNT)
}

/// `/hop/N` redirects to `/hop/N+1` until `last`, which answers 200.
fn chain(last: u32) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
    move |r: &Request| {
        let n: u32 = r
            .path()
            .strip_prefix("/hop/")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        if n >= last {
            Reply::ok("end of chain\n")
        } else {
            Reply::redirect(302, &format!("/hop/{}", n + 1))
        }
    }
}

#[test]
fn redirect_loop_stops_at_default_limit() {
    hostile("redirect_loop_stops_at_default_limit")
        .case(|c| {
            c.args(&["-sS", "-L", "{url}/loop"])
                .reply(Reply::redirect(302, "/loop"))
        })
        .run(OXCURL);
}

#[test]
fn redirect_chain_of_1000_hops_unlimited() {
    hostile("redirect_chain_of_1000_hops_unlimited")
        .case(|c| {
            c.args(&[
                "-sS",
                "-L",
                "--max-redirs",
                "-1",
                "-w",
                "%{num_redirects}\\n",
            ])
            .arg("{url}/hop/0")
            .server(|s| s.set_handler(chain(1000)))
        })
        .run(OXCURL);
}

#[test]
fn redirect_to_file_scheme_refused() {
    hostile("redirect_to_file_scheme_refused")
        .case(|c| {
            c.args(&["-sS", "-L", "{url}/start"])
                .reply(Reply::redirect(302, "file:///etc/passwd"))
        })
        .run(OXCURL);
}

#[test]
fn redirect_to_disallowed_protocols_refused() {
    for (i, target) in ["ftp://127.0.0.1:1/x", "dict://127.0.0.1:1/x", "scp://h/x"]
        .into_iter()
        .enumerate()
    {
        hostile(&format!("redirect_to_disallowed_protocols_refused_{i}"))
            .case(|c| {
                c.args(&["-sS", "-L", "--proto-redir", "=http,https", "{url}/start"])
                    .reply(Reply::redirect(302, target))
            })
            .run(OXCURL);
    }
}

#[test]
fn location_with_encoded_crlf_does_not_inject_headers() {
    let r = hostile("location_with_encoded_crlf_does_not_inject_headers")
        .case(|c| {
            c.args(&["-sS", "-L", "{url}/start"]).server(|s| {
                s.route(
                    "/start",
                    Reply::redirect(302, "/next%0d%0aX-Injected:%20yes"),
                );
                s.set_exhausted(oxcurl_testsupport::Exhausted::Reply(Reply::ok("ok\n")));
            })
        })
        .run(OXCURL);
    for req in &r.result.oxcurl.requests {
        assert!(
            !req.head.windows(12).any(|w| w == b"\nX-Injected"),
            "{}",
            String::from_utf8_lossy(&req.head)
        );
    }
}

#[test]
fn location_with_bare_cr_and_raw_bytes() {
    hostile("location_with_bare_cr_and_raw_bytes")
        .case(|c| {
            c.args(&["-sS", "-L", "{url}/start"])
                .server(|s| {
                    s.route(
                        "/start",
                        Reply::raw(
                            b"HTTP/1.1 302 Found\r\nLocation: /a\rX-Injected: yes\xff\x01\r\nContent-Length: 0\r\n\r\n",
                        ),
                    );
                    s.set_exhausted(oxcurl_testsupport::Exhausted::Reply(Reply::ok("ok\n")));
                })
        })
        .run(OXCURL);
}

#[test]
fn content_disposition_filename_with_dot_dot() {
    hostile("content_disposition_filename_with_dot_dot")
        .case(|c| {
            c.args(&["-sS", "-O", "-J", "{url}/download"])
                .reply(Reply::status(
                    200,
                    &[(
                        "Content-Disposition",
                        "attachment; filename=\"../../escaped.txt\"",
                    )],
                    "payload\n",
                ))
        })
        .run(OXCURL);
}

#[test]
fn content_disposition_absolute_filename() {
    hostile("content_disposition_absolute_filename")
        .case(|c| {
            c.args(&["-sS", "-O", "-J", "{url}/download"])
                .reply(Reply::status(
                    200,
                    &[(
                        "Content-Disposition",
                        "attachment; filename=/tmp/abs-oxcurl.txt",
                    )],
                    "payload\n",
                ))
        })
        .run(OXCURL);
    assert!(
        !std::path::Path::new("/tmp/abs-oxcurl.txt").exists(),
        "a file was written at the absolute path"
    );
}

#[test]
fn content_disposition_backslashes_and_empty() {
    hostile("content_disposition_backslashes_and_empty")
        .case(|c| {
            c.args(&["-sS", "-O", "-J", "{url}/download"])
                .reply(Reply::status(
                    200,
                    &[(
                        "Content-Disposition",
                        "attachment; filename=\"..\\\\..\\\\\"",
                    )],
                    "payload\n",
                ))
        })
        .run(OXCURL);
}

#[test]
fn oversized_set_cookie_values() {
    let big = "v".repeat(8 << 10);
    let reply = Reply::status(
        200,
        &[
            ("Set-Cookie", &format!("big={big}; Path=/")),
            ("Set-Cookie", &format!("{}=1", "n".repeat(5000))),
            ("Set-Cookie", "small=1; Path=/"),
        ],
        "ok\n",
    );
    hostile("oversized_set_cookie_values")
        .case(|c| {
            c.args(&["-sS", "-c", "{tmp}/jar", "{url}/a", "{url}/b"])
                .reply(reply)
        })
        .run(OXCURL);
}

#[test]
fn thousands_of_set_cookie_headers() {
    let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
    for i in 0..3000 {
        write!(head, "Set-Cookie: c{i}=v{i}; Path=/\r\n").unwrap();
    }
    head.extend_from_slice(b"Content-Length: 3\r\n\r\nok\n");
    hostile("thousands_of_set_cookie_headers")
        .case(|c| {
            c.args(&["-sS", "-c", "{tmp}/jar", "{url}/a", "{url}/b"])
                .reply(Reply::raw(head))
        })
        .run(OXCURL);
}

#[test]
fn oversized_cookie_jar_file() {
    let mut jar = String::from("# Netscape HTTP Cookie File\n");
    for i in 0..20_000 {
        jar.push_str(&format!(
            "127.0.0.1\tFALSE\t/\tFALSE\t0\tc{i}\t{}\n",
            "x".repeat(40)
        ));
    }
    // One line far over curl's line limit, and binary junk.
    jar.push_str(&format!(
        "127.0.0.1\tFALSE\t/\tFALSE\t0\tlong\t{}\n",
        "y".repeat(1 << 20)
    ));
    jar.push_str("\u{1}\u{2}\t\t\t\n");
    hostile("oversized_cookie_jar_file")
        .case(|c| {
            c.args(&["-sS", "-b", "{tmp}/in", "-c", "{tmp}/out", "{url}/"])
                .file("in", jar)
                .reply(Reply::ok("ok\n"))
        })
        // The 20,000 cookies are the user's and are all kept, as curl keeps them.
        .heap(16 << 20)
        .run(OXCURL);
}
