//! Differential tests for `--tr-encoding`: the `TE: gzip` request header with `TE` named in
//! `Connection:` (merged with a custom one), and replies whose transfer codings include
//! gzip or deflate besides chunked.

use oxcurl_testsupport::http::chunk_body;
use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// "compressed body line\n" twice, gzipped and zlib-wrapped.
const GZIP_HEX: &str =
    "1f8b08000000000000034bcecf2d284a2d2e4e4d5148ca4fa954c8c9cc4be54ac6260800461b4c282a000000";
const ZLIB_HEX: &str = "789c4bcecf2d284a2d2e4e4d5148ca4fa954c8c9cc4be54ac62608005bfa0fab";

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name).args(args).reply(Reply::ok("plain\n"))
}

#[test]
fn tr_encoding_request_headers() {
    case(
        "tr_encoding_request_headers",
        &["-s", "--tr-encoding", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn tr_encoding_with_compressed_and_referer() {
    case(
        "tr_encoding_with_compressed_and_referer",
        &[
            "-s",
            "--tr-encoding",
            "--compressed",
            "-e",
            "http://r.example/",
            "-A",
            "ua",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn tr_encoding_merges_custom_connection() {
    case(
        "tr_encoding_merges_custom_connection",
        &[
            "-s",
            "--tr-encoding",
            "-H",
            "X-A: 1",
            "-H",
            "Connection: keep-alive",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn tr_encoding_custom_connection_variants() {
    for (i, h) in [
        "Connection:",
        "Connection;",
        "connection:  close  ",
        "Connection : x",
    ]
    .iter()
    .enumerate()
    {
        case(
            &format!("tr_encoding_custom_connection_{i}"),
            &["-s", "--tr-encoding", "-H", h, "{url}/"],
        )
        .run(OXCURL);
    }
}

#[test]
fn tr_encoding_custom_te_wins() {
    case(
        "tr_encoding_custom_te_wins",
        &[
            "-s",
            "--tr-encoding",
            "-H",
            "TE: trailers",
            "-H",
            "Connection: x",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn tr_encoding_switched_off() {
    case(
        "tr_encoding_switched_off",
        &["-s", "--tr-encoding", "--no-tr-encoding", "{url}/"],
    )
    .run(OXCURL);
}

fn te_reply(te: &str, body: &[u8], chunked: bool) -> Reply {
    let head = format!("HTTP/1.1 200 OK\r\nTransfer-Encoding: {te}\r\n");
    if chunked {
        Reply::raw(format!("{head}\r\n")).body(chunk_body(&[&body[..10], &body[10..]], &[]))
    } else {
        Reply::raw(format!("{head}Connection: close\r\n\r\n"))
            .body(body)
            .close()
    }
}

#[test]
fn tr_encoding_decodes_gzip_chunked() {
    Case::new("tr_encoding_decodes_gzip_chunked")
        .args(&["-s", "--tr-encoding", "{url}/"])
        .reply(te_reply("gzip, chunked", &unhex(GZIP_HEX), true))
        .run(OXCURL);
}

#[test]
fn tr_encoding_decodes_deflate_until_close() {
    Case::new("tr_encoding_decodes_deflate_until_close")
        .args(&["-s", "-i", "--tr-encoding", "{url}/"])
        .reply(te_reply("deflate", &unhex(ZLIB_HEX), false))
        .run(OXCURL);
}

#[test]
fn gzip_transfer_coding_not_asked_for_fails() {
    Case::new("gzip_transfer_coding_not_asked_for_fails")
        .args(&["-sS", "{url}/"])
        .compare_stderr(true)
        .reply(te_reply("gzip, chunked", &unhex(GZIP_HEX), true))
        .run(OXCURL);
}

#[test]
fn transfer_codings_without_tr_encoding() {
    for (i, te) in [
        "deflate",
        "gzip",
        "identity, chunked",
        "identityx, chunked",
        "br, chunked",
        "zstd, chunked",
        "foo, chunked",
        "chunked, gzip",
        "chunked, chunked",
        "identity, identity, gzip, chunked",
        "gzip, deflate, gzip, deflate, chunked",
    ]
    .iter()
    .enumerate()
    {
        let chunked = te.ends_with("chunked");
        for tr in [false, true] {
            // -i shows that a refused Transfer-Encoding line is never written.
            let mut args = vec!["-sSi", "{url}/"];
            if tr {
                args = vec!["--tr-encoding", "-sS", "{url}/"];
            }
            Case::new(&format!("transfer_codings_{i}_{tr}"))
                .args(&args)
                .compare_stderr(true)
                .reply(te_reply(te, &unhex(GZIP_HEX), chunked))
                .run(OXCURL);
        }
    }
}

#[test]
fn tr_encoding_with_gzip_content_encoding() {
    // Content gzip inside transfer deflate? Both are undone, transfer first.
    let reply = Reply::raw(
        "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    )
    .body(chunk_body(&[unhex(GZIP_HEX)], &[]));
    Case::new("tr_encoding_with_gzip_content_encoding")
        .args(&["-s", "--tr-encoding", "--compressed", "{url}/"])
        .reply(reply)
        .run(OXCURL);
}

#[test]
fn unknown_transfer_coding_in_chunks() {
    Case::new("unknown_transfer_coding_in_chunks")
        .args(&["-sS", "--tr-encoding", "{url}/"])
        .compare_stderr(true)
        .reply(te_reply("identityx, chunked", &unhex(GZIP_HEX), true))
        .run(OXCURL);
}

#[test]
fn decoding_errors_in_chunked_and_close_delimited_bodies() {
    let body = unhex(GZIP_HEX);
    let cases: [(&str, &str, bool); 7] = [
        (
            "ce_unknown_chunked",
            "Content-Encoding: foo\r\nTransfer-Encoding: chunked",
            true,
        ),
        (
            "ce_bad_gzip_chunked",
            "Content-Encoding: deflate\r\nTransfer-Encoding: chunked",
            true,
        ),
        ("te_unknown_close", "Transfer-Encoding: foo", false),
        ("te_bad_deflate_close", "Transfer-Encoding: deflate", false),
        (
            "te_bad_deflate_chunked",
            "Transfer-Encoding: deflate, chunked",
            true,
        ),
        (
            "ce_bad_br_chunked",
            "Content-Encoding: br\r\nTransfer-Encoding: chunked",
            true,
        ),
        ("ce_bad_br_close", "Content-Encoding: br", false),
    ];
    for (name, head, chunked) in cases {
        let reply = if chunked {
            Reply::raw(format!("HTTP/1.1 200 OK\r\n{head}\r\n\r\n"))
                .body(chunk_body(&[&body[..10], &body[10..]], &[]))
        } else {
            Reply::raw(format!(
                "HTTP/1.1 200 OK\r\n{head}\r\nConnection: close\r\n\r\n"
            ))
            .body(&body)
            .close()
        };
        Case::new(name)
            .args(&["-sS", "--compressed", "--tr-encoding", "{url}/"])
            .compare_stderr(true)
            .reply(reply)
            .run(OXCURL);
    }
}

/// curl tests 387 and 418: more than five transfer codings, in one header line or in
/// repeated ones, are refused (61) before any decoding.
#[test]
fn t387_t418_too_many_transfer_codings() {
    let chain = vec!["gzip"; 100].join(",");
    Case::new("t387_long_chain")
        .args(&["{url}/387", "-sS", "--tr-encoding"])
        .compare_stderr(true)
        .reply(Reply::raw(format!(
            "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nTransfer-Encoding: {chain}\r\n\r\n-foo-\n"
        )))
        .run(OXCURL);
    let repeated = "Transfer-Encoding: gzip\r\n".repeat(9);
    Case::new("t418_repeated_headers")
        .args(&["{url}/418", "-sS", "--tr-encoding"])
        .compare_stderr(true)
        .reply(
            Reply::raw(format!(
                "HTTP/1.1 200 swsclose OK\r\nContent-Length: 6\r\n{repeated}\r\n-foo-\n"
            ))
            .close(),
        )
        .run(OXCURL);
    // Five are still decoded (or fail on the data, as curl's do).
    let five = "Transfer-Encoding: gzip\r\n".repeat(5);
    Case::new("five_transfer_codings")
        .args(&["{url}/5", "-sS", "--tr-encoding"])
        .compare_stderr(true)
        .reply(
            Reply::raw(format!(
                "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n{five}\r\n-foo-\n"
            ))
            .close(),
        )
        .run(OXCURL);
}
