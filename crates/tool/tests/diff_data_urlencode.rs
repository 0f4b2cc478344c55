//! Differential tests for `--data-urlencode` with an empty file: curl 8.14.1 sends nothing
//! for it (not even `name=`).

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .reply(Reply::ok("ok\n"))
        .file("empty.txt", "")
        .file("full.txt", "x y\n")
}

#[test]
fn urlencode_empty_file_alone() {
    case(
        "urlencode_empty_file_alone",
        &["-s", "--data-urlencode", "name@empty.txt", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn urlencode_empty_file_between() {
    case(
        "urlencode_empty_file_between",
        &[
            "-s",
            "-d",
            "a=1",
            "--data-urlencode",
            "name@empty.txt",
            "-d",
            "b=2",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn urlencode_empty_file_first() {
    case(
        "urlencode_empty_file_first",
        &[
            "-s",
            "--data-urlencode",
            "name@empty.txt",
            "-d",
            "b=2",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn urlencode_empty_file_no_name() {
    case(
        "urlencode_empty_file_no_name",
        &[
            "-s",
            "--data-urlencode",
            "@empty.txt",
            "--data-urlencode",
            "n@full.txt",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn urlencode_empty_file_with_get() {
    case(
        "urlencode_empty_file_with_get",
        &[
            "-s",
            "-G",
            "--data-urlencode",
            "name@empty.txt",
            "-d",
            "b=2",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn urlencode_empty_value_text() {
    case(
        "urlencode_empty_value_text",
        &["-s", "--data-urlencode", "name=", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn empty_data_pieces_and_separators() {
    case(
        "empty_data_pieces_and_separators",
        &[
            "-s",
            "-d",
            "",
            "-d",
            "b=2",
            "-d",
            "",
            "--data-urlencode",
            "c d",
            "{url}/",
        ],
    )
    .run(OXCURL);
}
