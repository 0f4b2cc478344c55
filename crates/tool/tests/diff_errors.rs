//! Differential tests: exit codes and error messages of oxcurl against the reference
//! curl 8.14.1.

use std::time::Duration;

use oxcurl_testsupport::{Case, Reply};

use oxcurl_testsupport::diff::mask_digits;

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// A loopback port with nothing listening on it (bound, then released).
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn err_case(name: &str, args: &[&str]) -> Case {
    Case::new(name).args(args).compare_stderr(true)
}

// ---- HTTP errors ----------------------------------------------------------------

#[test]
fn fail_on_404() {
    err_case("fail_on_404", &["-sSf", "{url}/missing"])
        .reply(Reply::status(404, &[], "not found body\n"))
        .run(OXCURL);
}

#[test]
fn fail_on_500_silent() {
    err_case("fail_on_500_silent", &["-sf", "{url}/"])
        .reply(Reply::status(500, &[], "oops\n"))
        .run(OXCURL);
}

#[test]
fn fail_not_triggered_by_399() {
    err_case("fail_not_triggered_by_399", &["-sSf", "{url}/"])
        .reply(Reply::status(304, &[], ""))
        .run(OXCURL);
}

#[test]
fn fail_with_body_on_404() {
    err_case(
        "fail_with_body_on_404",
        &["-sS", "--fail-with-body", "{url}/missing"],
    )
    .reply(Reply::status(404, &[], "error page\n"))
    .run(OXCURL);
}

#[test]
fn fail_with_body_to_file() {
    err_case(
        "fail_with_body_to_file",
        &[
            "-sS",
            "--fail-with-body",
            "-o",
            "{tmp}/out",
            "{url}/missing",
        ],
    )
    .reply(Reply::status(403, &[], "error page\n"))
    .run(OXCURL);
}

#[test]
fn fail_with_output_file_not_written() {
    err_case(
        "fail_with_output_file_not_written",
        &["-sSf", "-o", "{tmp}/out", "{url}/missing"],
    )
    .reply(Reply::status(404, &[], "body\n"))
    .run(OXCURL);
}

#[test]
fn fail_with_include() {
    err_case("fail_with_include", &["-sSf", "-i", "{url}/missing"])
        .reply(Reply::status(404, &[], "body\n"))
        .run(OXCURL);
}

#[test]
fn fail_writeout_http_code() {
    err_case(
        "fail_writeout_http_code",
        &["-sf", "-w", "%{http_code} %{exitcode}\n", "{url}/missing"],
    )
    .reply(Reply::status(410, &[], "gone\n"))
    .run(OXCURL);
}

#[test]
fn fail_second_url_continues() {
    err_case(
        "fail_second_url_continues",
        &["-sSf", "{url}/bad", "{url}/good"],
    )
    .server(|s| {
        s.route("/bad", Reply::status(404, &[], "bad\n"));
        s.route("/good", Reply::ok("good\n"));
    })
    .run(OXCURL);
}

#[test]
fn fail_early_stops_after_first_failure() {
    err_case(
        "fail_early_stops_after_first_failure",
        &["-sSf", "--fail-early", "{url}/bad", "{url}/good"],
    )
    .server(|s| {
        s.route("/bad", Reply::status(404, &[], "bad\n"));
        s.route("/good", Reply::ok("good\n"));
    })
    .run(OXCURL);
}

#[test]
fn max_filesize_with_content_length() {
    err_case(
        "max_filesize_with_content_length",
        &["-sS", "--max-filesize", "5", "{url}/"],
    )
    .reply(Reply::ok("0123456789"))
    .run(OXCURL);
}

#[test]
fn max_filesize_not_exceeded() {
    err_case(
        "max_filesize_not_exceeded",
        &["-sS", "--max-filesize", "10", "{url}/"],
    )
    .reply(Reply::ok("0123456789"))
    .run(OXCURL);
}

#[test]
fn max_filesize_chunked_without_length() {
    err_case(
        "max_filesize_chunked_without_length",
        &["-sS", "--max-filesize", "5", "-o", "{tmp}/out", "{url}/"],
    )
    .reply(Reply::chunked(&["0123456789", "abcdefghij"]))
    .run(OXCURL);
}

#[test]
fn max_filesize_suffix_k() {
    err_case(
        "max_filesize_suffix_k",
        &["-sS", "--max-filesize", "1k", "-o", "{tmp}/out", "{url}/"],
    )
    .reply(Reply::big(2048))
    .run(OXCURL);
}

#[test]
fn timeout_stalled_body() {
    err_case("timeout_stalled_body", &["-sS", "-m", "1", "{url}/"])
        .reply(
            Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab")
                .sleep(Duration::from_secs(4)),
        )
        .normalise_with(mask_digits)
        .compare_requests(false)
        .run(OXCURL);
}

#[test]
fn timeout_no_response() {
    err_case("timeout_no_response", &["-sS", "--max-time", "1", "{url}/"])
        .reply(Reply::new().sleep(Duration::from_secs(4)))
        .normalise_with(mask_digits)
        .run(OXCURL);
}

#[test]
fn timeout_fractional_seconds() {
    err_case(
        "timeout_fractional_seconds",
        &["-sS", "-m", "0.5", "{url}/"],
    )
    .reply(Reply::new().sleep(Duration::from_secs(3)))
    .normalise_with(mask_digits)
    .run(OXCURL);
}

// ---- broken responses -----------------------------------------------------------

#[test]
fn empty_reply() {
    err_case("empty_reply", &["-sS", "{url}/"])
        .reply(Reply::new().close())
        .run(OXCURL);
}

#[test]
fn partial_body_content_length() {
    err_case("partial_body_content_length", &["-sS", "{url}/"])
        .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort body").close())
        .run(OXCURL);
}

#[test]
fn partial_body_to_file() {
    err_case(
        "partial_body_to_file",
        &["-sS", "-o", "{tmp}/out", "{url}/"],
    )
    .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort body").close())
    .run(OXCURL);
}

#[test]
fn chunked_cut_short() {
    err_case("chunked_cut_short", &["-sS", "{url}/"])
        .reply(
            Reply::raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n10\r\nabc",
            )
            .close(),
        )
        .run(OXCURL);
}

#[test]
fn chunked_bad_hex() {
    err_case("chunked_bad_hex", &["-sS", "{url}/"])
        .reply(
            Reply::raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
            )
            .close(),
        )
        .run(OXCURL);
}

#[test]
fn headers_cut_short() {
    err_case("headers_cut_short", &["-sS", "{url}/"])
        .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Len").close())
        .run(OXCURL);
}

#[test]
fn head_cut_short_after_content_length() {
    // The promised body never came: 18, and --remove-on-error removes the file.
    for (name, args) in [
        (
            "head_cut_short_after_content_length",
            &["-sS", "{url}/"][..],
        ),
        (
            "head_cut_short_after_content_length_remove_on_error",
            &["-sS", "--remove-on-error", "-o", "{tmp}/out", "{url}/"][..],
        ),
        (
            "head_cut_short_after_content_length_to_a_file",
            &["-sS", "-o", "{tmp}/out", "{url}/"][..],
        ),
        // A HEAD, a 204 and a length of 0 have no body to miss.
        (
            "head_cut_short_after_content_length_head",
            &["-sS", "-I", "{url}/"][..],
        ),
    ] {
        err_case(name, args)
            .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nX-A: b\r\n").close())
            .run(OXCURL);
    }
    for (name, head) in [
        (
            "head_cut_short_204",
            "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n",
        ),
        (
            "head_cut_short_length_0",
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-A: b\r\n",
        ),
    ] {
        err_case(name, &["-sS", "{url}/"])
            .reply(Reply::raw(head).close())
            .run(OXCURL);
    }
}

#[test]
fn redirect_head_cut_short_is_followed() {
    // curl takes a 3xx's Location as the next URL when the header arrives.
    for (name, head) in [
        (
            "redirect_head_cut_short_is_followed",
            "HTTP/1.1 302 Found\r\nLocation: /next\r\n",
        ),
        (
            "redirect_head_cut_short_with_length_is_followed",
            "HTTP/1.1 301 Moved\r\nLocation: /next\r\nContent-Length: 5\r\n",
        ),
    ] {
        err_case(name, &["-sS", "-L", "{url}/"])
            .replies(vec![Reply::raw(head).close(), Reply::ok("next\n")])
            .run(OXCURL);
    }
    // Not followed without -L: the length seen is a missing body.
    err_case("redirect_head_cut_short_not_followed", &["-sS", "{url}/"])
        .reply(Reply::raw("HTTP/1.1 301 Moved\r\nLocation: /next\r\nContent-Length: 5\r\n").close())
        .run(OXCURL);
}

#[test]
fn no_address_of_the_family_asked_for() {
    // An IP literal of the other family leaves nothing to try: 7 with curl's bare message.
    for (name, args) in [
        (
            "ipv6_only_with_an_ipv4_literal",
            &["-sSv", "-6", "{url}/"][..],
        ),
        (
            "ipv4_only_with_an_ipv6_literal",
            &["-sSv", "-4", "http://[::1]:{port}/"][..],
        ),
    ] {
        err_case(name, args)
            .reply(Reply::ok("never\n"))
            .expect_failure()
            .run(OXCURL);
    }
    // A --resolve entry without the family is dropped and the name resolved for real.
    err_case(
        "ipv6_only_with_an_ipv4_resolve_entry",
        &[
            "-sSv",
            "-6",
            "--resolve",
            "oxcurl-test.invalid:{port}:127.0.0.1",
            "http://oxcurl-test.invalid:{port}/",
        ],
    )
    .reply(Reply::ok("never\n"))
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn garbage_status_line() {
    err_case("garbage_status_line", &["-sS", "{url}/"])
        .reply(Reply::raw("HTTP/1.1 abc Weird\r\nContent-Length: 2\r\n\r\nok").close())
        .run(OXCURL);
}

#[test]
fn http09_rejected() {
    err_case("http09_rejected", &["-sS", "{url}/"])
        .reply(Reply::raw("hello there\n").close())
        .run(OXCURL);
}

#[test]
fn duplicate_content_length_conflict() {
    err_case("duplicate_content_length_conflict", &["-sS", "{url}/"])
        .reply(
            Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok")
                .close(),
        )
        .run(OXCURL);
}

#[test]
fn negative_content_length() {
    err_case("negative_content_length", &["-sS", "{url}/"])
        .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok").close())
        .run(OXCURL);
}

// ---- connection errors ----------------------------------------------------------

#[test]
fn connection_refused() {
    let port = closed_port().to_string();
    let url = format!("http://127.0.0.1:{port}/");
    err_case("connection_refused", &["-sS", &url])
        .normalise_with(mask_digits)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn connection_refused_silent() {
    let port = closed_port().to_string();
    let url = format!("http://127.0.0.1:{port}/");
    err_case("connection_refused_silent", &["-s", &url])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn connection_refused_writeout() {
    let port = closed_port().to_string();
    let url = format!("http://127.0.0.1:{port}/");
    err_case(
        "connection_refused_writeout",
        &["-s", "-w", "%{http_code} %{exitcode}\n", &url],
    )
    .run(OXCURL);
}

#[test]
fn unresolvable_host_with_resolve_elsewhere() {
    err_case(
        "unresolvable_host_with_resolve_elsewhere",
        &["-sS", "http://no-such-host.invalid/"],
    )
    .expect_failure()
    .run(OXCURL);
}

// ---- URL errors -----------------------------------------------------------------

#[test]
fn url_with_space_rejected() {
    err_case("url_with_space_rejected", &["-sS", "{url}/a b"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn url_bad_port() {
    err_case("url_bad_port", &["-sS", "http://127.0.0.1:99999/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn url_empty_host() {
    err_case("url_empty_host", &["-sS", "http:///path"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn url_unsupported_protocol() {
    err_case("url_unsupported_protocol", &["-sS", "foo://example.com/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn url_unsupported_protocol_not_silent() {
    err_case(
        "url_unsupported_protocol_not_silent",
        &["foo://example.com/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn url_empty_string() {
    err_case("url_empty_string", &["-sS", ""])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn blank_output_argument() {
    err_case("blank_output_argument", &["-o", "", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn blank_url_option_argument() {
    err_case("blank_url_option_argument", &["--url", ""])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn blank_request_argument_long_form() {
    err_case(
        "blank_request_argument_long_form",
        &["--request", "", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn blank_url_after_other_url() {
    err_case("blank_url_after_other_url", &["-s", "{url}/", ""])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn blank_header_is_allowed() {
    err_case("blank_header_is_allowed", &["-sS", "-H", "", "{url}/"]).run(OXCURL);
}

#[test]
fn disallow_username_in_url() {
    for (i, url) in ["http://u:p@{host}/", "http://u@{host}/"]
        .iter()
        .enumerate()
    {
        err_case(
            &format!("disallow_username_{i}"),
            &["-S", "-s", "--disallow-username-in-url", url],
        )
        .expect_failure()
        .run(OXCURL);
    }
    // Without credentials in the URL the transfer runs.
    err_case(
        "disallow_username_plain",
        &["-sS", "--disallow-username-in-url", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn proto_restriction() {
    err_case("proto_restriction", &["-sS", "--proto", "=https", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

// ---- local file errors ----------------------------------------------------------

#[test]
fn upload_missing_file() {
    err_case(
        "upload_missing_file",
        &["-sS", "-T", "{tmp}/nope", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn data_missing_file_warns() {
    err_case(
        "data_missing_file_warns",
        &["-sS", "-d", "@{tmp}/nope", "{url}/"],
    )
    .reply(Reply::ok("x"))
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn output_into_missing_dir() {
    err_case(
        "output_into_missing_dir",
        &["-sS", "-o", "{tmp}/no/such/dir/out", "{url}/"],
    )
    .reply(Reply::ok("x"))
    .run(OXCURL);
}

#[test]
fn config_file_missing() {
    err_case(
        "config_file_missing",
        &["-sS", "-K", "{tmp}/nope.cfg", "{url}/"],
    )
    .reply(Reply::ok("x"))
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn header_file_missing() {
    err_case(
        "header_file_missing",
        &["-sS", "-H", "@{tmp}/nope", "{url}/"],
    )
    .reply(Reply::ok("x"))
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn writeout_file_missing() {
    err_case(
        "writeout_file_missing",
        &["-sS", "-w", "@{tmp}/nope", "{url}/"],
    )
    .reply(Reply::ok("x"))
    .expect_failure()
    .run(OXCURL);
}

// ---- command-line errors --------------------------------------------------------

#[test]
fn unknown_long_option() {
    err_case("unknown_long_option", &["--no-such-option", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn unknown_short_option() {
    err_case("unknown_short_option", &["-j9", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn missing_option_parameter() {
    err_case("missing_option_parameter", &["{url}/", "-H"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn missing_long_option_parameter() {
    err_case("missing_long_option_parameter", &["{url}/", "--output"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn no_url_given() {
    err_case("no_url_given", &["-s"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn no_arguments_at_all() {
    err_case("no_arguments_at_all", &[])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn equals_syntax_not_supported() {
    err_case("equals_syntax_not_supported", &["--header=X: y", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn abbreviated_long_option_rejected() {
    err_case("abbreviated_long_option_rejected", &["--verb", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn bad_numeric_max_time() {
    err_case("bad_numeric_max_time", &["-m", "abc", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn bad_numeric_max_redirs() {
    err_case("bad_numeric_max_redirs", &["--max-redirs", "x1", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn bad_range_option() {
    err_case("bad_range_option", &["-sS", "-r", "abc", "{url}/"])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn conflicting_data_and_head() {
    err_case("conflicting_data_and_head", &["-I", "-d", "x", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn conflicting_head_and_upload_either_order() {
    err_case(
        "conflicting_head_and_upload_either_order",
        &["-T", "{tmp}/f", "-I", "{url}/"],
    )
    .file("f", "x")
    .expect_failure()
    .run(OXCURL);
    err_case(
        "conflicting_head_and_upload_either_order2",
        &["-I", "-T", "{tmp}/f", "{url}/"],
    )
    .file("f", "x")
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn conflicting_methods_silent() {
    err_case(
        "conflicting_methods_silent",
        &["-s", "-I", "-d", "x", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn get_with_head_and_data_is_no_conflict() {
    err_case(
        "get_with_head_and_data_is_no_conflict",
        &["-G", "-I", "-d", "x", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn conflicting_upload_and_data() {
    err_case(
        "conflicting_upload_and_data",
        &["-T", "{tmp}/f", "-d", "x", "{url}/"],
    )
    .file("f", "x")
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn boolean_option_with_no_prefix() {
    err_case(
        "boolean_option_with_no_prefix",
        &["--no-silent", "-s", "{url}/"],
    )
    .reply(Reply::ok("x"))
    .run(OXCURL);
}

#[test]
fn upload_missing_file_not_silent() {
    err_case(
        "upload_missing_file_not_silent",
        &["-T", "{tmp}/nope", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn upload_missing_file_silent() {
    err_case(
        "upload_missing_file_silent",
        &["-s", "-T", "{tmp}/nope", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}
