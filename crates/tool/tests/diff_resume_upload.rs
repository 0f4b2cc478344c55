//! Differential tests for resumed uploads (`-T FILE -C N`, `-C -`, `-r` with `-T`): curl
//! sends `Content-Range` for PUT and POST instead of `Range`, skips the first N bytes of
//! the source and shortens `Content-Length`; with `-C -` it does not know the remote size
//! and says so by sending the whole file with a range covering all of it.

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
