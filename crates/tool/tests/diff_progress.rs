//! Differential tests for the `-#` progress bar: its final line for transfers of known size
//! (earlier lines depend on timing, so only transfers that finish within one update are
//! compared byte for byte).

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

#[test]
fn bar_for_a_known_size_download() {
    Case::new("bar_for_a_known_size_download")
        .args(&["-#", "-o", "{tmp}/out", "{url}/"])
        .reply(Reply::ok("small body\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn bar_width_from_columns() {
    Case::new("bar_width_from_columns")
        .args(&["--progress-bar", "-o", "{tmp}/out", "{url}/"])
        .env("COLUMNS", "40")
        .reply(Reply::ok("small body\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
#[ignore = "issue 3: the engine reports progress once a second and at the end, curl after every chunk, so curl redraws the bar when the upload part completes"]
fn bar_for_an_upload() {
    Case::new("bar_for_an_upload")
        .args(&["-#", "-T", "{tmp}/up.txt", "-o", "{tmp}/out", "{url}/"])
        .file("up.txt", "upload me\n")
        .reply(Reply::ok("ok\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn bar_silenced_by_s() {
    Case::new("bar_silenced_by_s")
        .args(&["-s", "-#", "-o", "{tmp}/out", "{url}/"])
        .reply(Reply::ok("small body\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn bar_then_error() {
    Case::new("bar_then_error")
        .args(&["-#", "-f", "-o", "{tmp}/out", "{url}/"])
        .reply(Reply::status(404, &[], "nope\n"))
        .compare_stderr(true)
        .run(OXCURL);
}
