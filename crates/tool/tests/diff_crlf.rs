//! Differential tests for `--crlf`: curl 8.14.1 turns LF into CRLF in uploads over HTTP
//! (`-T FILE`, `-T -`) and leaves `-d` data alone; the request bytes (and the length or
//! chunked framing curl picks) are compared with the reference.

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

const TEXT: &str = "line one\nline two\r\nline three\n\nend";

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .reply(Reply::ok("ok\n"))
        .file("up.txt", TEXT)
}

#[test]
fn crlf_upload_file() {
    case(
        "crlf_upload_file",
        &["-s", "--crlf", "-T", "up.txt", "{url}/f"],
    )
    .run(OXCURL);
}

#[test]
fn crlf_upload_stdin() {
    case("crlf_upload_stdin", &["-s", "--crlf", "-T", "-", "{url}/s"])
        .stdin(TEXT)
        .run(OXCURL);
}

#[test]
fn crlf_post_data() {
    case(
        "crlf_post_data",
        &["-s", "--crlf", "--data-binary", "@up.txt", "{url}/d"],
    )
    .run(OXCURL);
}

#[test]
fn crlf_post_data_inline() {
    case(
        "crlf_post_data_inline",
        &["-s", "--crlf", "-d", "a\nb", "{url}/d"],
    )
    .run(OXCURL);
}

#[test]
fn crlf_form() {
    case("crlf_form", &["-s", "--crlf", "-F", "f=@up.txt", "{url}/m"])
        .normalise_requests_with(oxcurl_testsupport::diff::mask_boundaries)
        .run(OXCURL);
}

#[test]
fn crlf_upload_file_post() {
    case(
        "crlf_upload_file_post",
        &["-s", "--crlf", "-X", "POST", "-T", "up.txt", "{url}/p"],
    )
    .run(OXCURL);
}

#[test]
fn crlf_switched_off() {
    case(
        "crlf_switched_off",
        &["-s", "--crlf", "--no-crlf", "-T", "up.txt", "{url}/f"],
    )
    .run(OXCURL);
}

#[test]
fn crlf_large_upload_chunk_sizes() {
    let big: String = (0..20000).map(|i| format!("row {i}\n")).collect();
    Case::new("crlf_large_upload_chunk_sizes")
        .args(&["-s", "--crlf", "-T", "big.txt", "{url}/big"])
        .reply(Reply::ok("ok\n"))
        .file("big.txt", big)
        .run(OXCURL);
}

#[test]
fn crlf_large_post_data() {
    let big: String = (0..20000).map(|i| format!("row {i}\n")).collect();
    Case::new("crlf_large_post_data")
        .args(&["-s", "--crlf", "--data-binary", "@big.txt", "{url}/big"])
        .reply(Reply::ok("ok\n"))
        .file("big.txt", big)
        .run(OXCURL);
}

#[test]
fn crlf_http10_upload() {
    case(
        "crlf_http10_upload",
        &["-s", "-0", "--crlf", "-T", "up.txt", "{url}/f"],
    )
    .run(OXCURL);
}

#[test]
fn crlf_get_with_data_in_url() {
    case(
        "crlf_get_with_data_in_url",
        &["-s", "--crlf", "-G", "-d", "a=b", "{url}/g"],
    )
    .run(OXCURL);
}
