//! Differential tests for resumed uploads (`-T FILE -C N`, `-C -`, `-r` with `-T`): curl
//! sends `Content-Range` for PUT and POST instead of `Range`, skips the first N bytes of
//! the source and shortens `Content-Length`; with `-C -` it does not know the remote size
//! and says so by sending the whole file with a range covering all of it.

use oxcurl_testsupport::diff::mask_boundaries;
use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .compare_stderr(true)
        .file("up", "0123456789")
        .reply(Reply::ok("stored\n"))
}

#[test]
fn upload_resumed_at_offset() {
    case(
        "upload_resumed_at_offset",
        &["-sS", "-T", "{tmp}/up", "-C", "4", "{url}/up"],
    )
    .run(OXCURL);
}

#[test]
fn upload_resumed_from_unknown_offset() {
    case(
        "upload_resumed_from_unknown_offset",
        &["-sS", "-T", "{tmp}/up", "-C", "-", "{url}/up"],
    )
    .run(OXCURL);
}

#[test]
fn upload_already_complete() {
    case(
        "upload_already_complete",
        &["-sS", "-T", "{tmp}/up", "-C", "10", "{url}/up"],
    )
    .run(OXCURL);
}

#[test]
fn upload_resumed_past_the_end() {
    case(
        "upload_resumed_past_the_end",
        &["-sS", "-T", "{tmp}/up", "-C", "12", "{url}/up"],
    )
    .run(OXCURL);
}

#[test]
fn upload_with_a_range() {
    case(
        "upload_with_a_range",
        &["-sS", "-T", "{tmp}/up", "-r", "2-5", "{url}/up"],
    )
    .run(OXCURL);
}

#[test]
fn upload_resumed_with_custom_content_range() {
    case(
        "upload_resumed_with_custom_content_range",
        &[
            "-sS",
            "-T",
            "{tmp}/up",
            "-C",
            "4",
            "-H",
            "Content-Range: bytes */10",
            "{url}/up",
        ],
    )
    .run(OXCURL);
}

#[test]
fn upload_resumed_from_stdin() {
    case(
        "upload_resumed_from_stdin",
        &["-sS", "-T", "-", "-C", "3", "{url}/up"],
    )
    .stdin("abcdefgh")
    .run(OXCURL);
}

#[test]
fn post_resumed_at_offset() {
    case(
        "post_resumed_at_offset",
        &["-sS", "-d", "abcdefgh", "-C", "3", "{url}/post"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn upload_resumed_verbose_and_write_out() {
    case(
        "upload_resumed_verbose_and_write_out",
        &[
            "-s",
            "-T",
            "{tmp}/up",
            "-C",
            "4",
            "-w",
            "%{size_upload} %{http_code}\\n",
            "{url}/up",
        ],
    )
    .run(OXCURL);
}

#[test]
fn upload_from_stdin_resumed_from_unknown_offset() {
    case(
        "upload_from_stdin_resumed_from_unknown_offset",
        &["-sS", "-T", "-", "-C", "-", "{url}/up"],
    )
    .stdin("abcdefgh")
    .run(OXCURL);
}

#[test]
fn form_resumed_fails_before_connecting() {
    case(
        "form_resumed_fails_before_connecting",
        &[
            "-sS",
            "-F",
            "a=b",
            "-C",
            "3",
            "-w",
            "w:%{http_code} %{exitcode}\\n",
            "{url}/post",
        ],
    )
    .run(OXCURL);
}

#[test]
fn post_with_a_range() {
    case(
        "post_with_a_range",
        &["-sS", "-d", "abcdefgh", "-r", "0-1", "{url}/post"],
    )
    .run(OXCURL);
}

#[test]
fn download_resume_still_sends_range() {
    Case::new("download_resume_still_sends_range")
        .args(&["-sS", "-C", "3", "{url}/get"])
        .compare_stderr(true)
        .reply(Reply::status(
            206,
            &[("Content-Range", "bytes 3-5/6")],
            "def",
        ))
        .run(OXCURL);
}

/// `%{size_upload}` counts the body bytes sent, chunk framing included (curl counts what
/// its chunked encoder hands to the connection), and each request starts again from zero.
fn size_upload_case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .compare_stderr(true)
        .file("up", "0123456789".repeat(7000))
        .file("small", "small body\n")
}

#[test]
fn size_upload_of_a_chunked_file_upload_counts_the_framing() {
    size_upload_case(
        "size_upload_of_a_chunked_file_upload_counts_the_framing",
        &[
            "-sS",
            "-T",
            "{tmp}/up",
            "-H",
            "Transfer-Encoding: chunked",
            "-w",
            "%{size_upload} %{size_request}\\n",
            "{url}/up",
        ],
    )
    .reply(Reply::ok("stored\n"))
    .run(OXCURL);
}

#[test]
fn size_upload_of_stdin_counts_the_framing() {
    size_upload_case(
        "size_upload_of_stdin_counts_the_framing",
        &[
            "-sS",
            "-T",
            "-",
            "-w",
            "%{size_upload} %{size_request}\\n",
            "{url}/up",
        ],
    )
    .stdin("from a pipe\n".repeat(3000))
    .reply(Reply::ok("stored\n"))
    .run(OXCURL);
}

#[test]
fn size_upload_of_a_chunked_form() {
    size_upload_case(
        "size_upload_of_a_chunked_form",
        &[
            "-sS",
            "-F",
            "f=@{tmp}/small;encoder=quoted-printable",
            "-w",
            "%{size_upload} %{size_request}\\n",
            "{url}/up",
        ],
    )
    .normalise_requests_with(mask_boundaries)
    .reply(Reply::ok("stored\n"))
    .run(OXCURL);
}

#[test]
fn size_upload_is_the_last_request_s_after_a_redirect() {
    size_upload_case(
        "size_upload_is_the_last_request_s_after_a_redirect",
        &[
            "-sS",
            "-L",
            "-T",
            "{tmp}/small",
            "-w",
            "%{size_upload} %{size_request}\\n",
            "{url}/up",
        ],
    )
    .reply(Reply::raw(
        "HTTP/1.1 307 Again\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n",
    ))
    .reply(Reply::ok("stored\n"))
    .run(OXCURL);
}

#[test]
fn size_upload_of_a_chunked_digest_upload() {
    // The first request is a probe: its body is only the last chunk.
    size_upload_case(
        "size_upload_of_a_chunked_digest_upload",
        &[
            "-sS",
            "--digest",
            "-u",
            "foo:bar",
            "-T",
            "{tmp}/small",
            "-H",
            "Transfer-Encoding: chunked",
            "-w",
            "%{size_upload}\\n",
            "{url}/up",
        ],
    )
    .normalise_requests_with(|d| {
        let s = String::from_utf8_lossy(d);
        s.lines()
            .filter(|l| !l.starts_with("Authorization:"))
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes()
    })
    .reply(Reply::status(
        401,
        &[("WWW-Authenticate", "Digest realm=\"r\", nonce=\"abc\"")],
        "",
    ))
    .reply(Reply::ok("stored\n"))
    .run(OXCURL);
}

#[test]
fn chunked_uploads_trace_their_chunks() {
    // curl traces what it sends, chunk framing included; when the source's size is known
    // (a file, POST fields) the last chunk goes with the last data.
    for (name, args) in [
        (
            "chunked_file_trace",
            &["-T", "{tmp}/small", "-H", "Transfer-Encoding: chunked"][..],
        ),
        (
            "chunked_fields_trace",
            &["-d", "name=value", "-H", "Transfer-Encoding: chunked"][..],
        ),
        ("chunked_stdin_trace", &["-T", "-"][..]),
    ] {
        let mut all = vec!["-s", "--trace-ascii", "-", "-o", "/dev/null"];
        all.extend_from_slice(args);
        all.push("{url}/up");
        size_upload_case(name, &all)
            .stdin("from a pipe\n")
            .reply(Reply::ok("stored\n"))
            .run(OXCURL);
    }
}
