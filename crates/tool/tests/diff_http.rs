//! Differential tests: request bytes, stdout and exit code of oxcurl against the
//! reference curl 8.14.1 for the HTTP request-building options.

use oxcurl_testsupport::diff::mask_boundaries;
use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name).args(args).reply(Reply::ok("hello\n"))
}

// ---- GET basics -------------------------------------------------------------------

#[test]
fn get_basic() {
    case("get_basic", &["-s", "{url}/path"]).run(OXCURL);
}

#[test]
fn get_root_without_slash() {
    case("get_root_without_slash", &["-s", "{url}"]).run(OXCURL);
}

#[test]
fn get_with_query() {
    case("get_with_query", &["-s", "{url}/p?a=1&b=2"]).run(OXCURL);
}

#[test]
fn get_with_fragment_not_sent() {
    case("get_with_fragment_not_sent", &["-s", "{url}/p?q=1#frag"]).run(OXCURL);
}

#[test]
fn get_scheme_less_url() {
    case("get_scheme_less_url", &["-s", "{host}/noscheme"]).run(OXCURL);
}

#[test]
fn get_uppercase_scheme() {
    Case::new("get_uppercase_scheme")
        .args(&["-s", "HTTP://{host}/Upper"])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn get_percent_encoded_path_kept() {
    case(
        "get_percent_encoded_path_kept",
        &["-s", "{url}/a%20b/%7Euser"],
    )
    .run(OXCURL);
}

#[test]
fn get_dot_segments_removed() {
    case("get_dot_segments_removed", &["-s", "{url}/a/b/../c/./d"]).run(OXCURL);
}

#[test]
fn get_path_as_is_keeps_dot_segments() {
    case(
        "get_path_as_is_keeps_dot_segments",
        &["-s", "--path-as-is", "{url}/a/b/../c/./d"],
    )
    .run(OXCURL);
}

#[test]
fn get_globbing_off_brackets() {
    case("get_globbing_off_brackets", &["-s", "-g", "{url}/x[1]{a}"]).run(OXCURL);
}

#[test]
fn get_url_glob_range() {
    case("get_url_glob_range", &["-s", "{url}/f[1-3]"]).run(OXCURL);
}

#[test]
fn get_url_glob_list() {
    case("get_url_glob_list", &["-s", "{url}/{one,two}"]).run(OXCURL);
}

#[test]
fn get_404_body_printed_exit_0() {
    Case::new("get_404_body_printed_exit_0")
        .args(&["-s", "{url}/missing"])
        .reply(Reply::status(404, &[], "not here\n"))
        .run(OXCURL);
}

#[test]
fn get_url_option() {
    case("get_url_option", &["-s", "--url", "{url}/via-url-option"]).run(OXCURL);
}

// ---- HEAD and methods ---------------------------------------------------------------

#[test]
fn head_dash_i_upper() {
    Case::new("head_dash_i_upper")
        .args(&["-s", "-I", "{url}/h"])
        .reply(Reply::status(200, &[("X-Test", "yes")], "body-not-sent"))
        .run(OXCURL);
}

#[test]
fn head_via_long_option() {
    Case::new("head_via_long_option")
        .args(&["-s", "--head", "{url}/h"])
        .reply(Reply::status(200, &[("Content-Type", "text/plain")], "abc"))
        .run(OXCURL);
}

#[test]
fn custom_method_delete() {
    case(
        "custom_method_delete",
        &["-s", "-X", "DELETE", "{url}/item/1"],
    )
    .run(OXCURL);
}

#[test]
fn custom_method_lowercase_sent_verbatim() {
    case(
        "custom_method_lowercase_sent_verbatim",
        &["-s", "-X", "patch", "{url}/x"],
    )
    .run(OXCURL);
}

#[test]
fn custom_method_with_data() {
    case(
        "custom_method_with_data",
        &["-s", "-X", "PUT", "-d", "a=b", "{url}/x"],
    )
    .run(OXCURL);
}

#[test]
fn custom_method_post_explicit() {
    case(
        "custom_method_post_explicit",
        &["-s", "-X", "POST", "{url}/x"],
    )
    .run(OXCURL);
}

#[test]
fn request_target_options_star() {
    case(
        "request_target_options_star",
        &["-s", "-X", "OPTIONS", "--request-target", "*", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn request_target_custom_path() {
    case(
        "request_target_custom_path",
        &["-s", "--request-target", "/other?x=y", "{url}/ignored"],
    )
    .run(OXCURL);
}

// ---- headers ------------------------------------------------------------------------

#[test]
fn header_add_custom() {
    case(
        "header_add_custom",
        &["-s", "-H", "X-Custom: value", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_add_several() {
    case(
        "header_add_several",
        &[
            "-s", "-H", "X-A: 1", "-H", "X-B: 2", "-H", "X-A: 3", "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn header_replace_accept() {
    case(
        "header_replace_accept",
        &["-s", "-H", "Accept: text/html", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_replace_user_agent() {
    case(
        "header_replace_user_agent",
        &["-s", "-H", "User-Agent: mine/1.0", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_remove_accept() {
    case("header_remove_accept", &["-s", "-H", "Accept:", "{url}/"]).run(OXCURL);
}

#[test]
fn header_remove_user_agent() {
    case(
        "header_remove_user_agent",
        &["-s", "-H", "User-Agent:", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_remove_host() {
    case("header_remove_host", &["-s", "-H", "Host:", "{url}/"]).run(OXCURL);
}

#[test]
fn header_empty_value_semicolon() {
    case(
        "header_empty_value_semicolon",
        &["-s", "-H", "X-Empty;", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_custom_host() {
    case(
        "header_custom_host",
        &["-s", "-H", "Host: example.com", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_lowercase_name_replaces() {
    case(
        "header_lowercase_name_replaces",
        &["-s", "-H", "accept: */json", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_without_space_after_colon() {
    case(
        "header_without_space_after_colon",
        &["-s", "-H", "X-Tight:value", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_from_file() {
    case("header_from_file", &["-s", "-H", "@{tmp}/hdrs", "{url}/"])
        .file("hdrs", "X-One: 1\nX-Two: 2\r\n\nX-Three: 3\n")
        .run(OXCURL);
}

#[test]
fn header_content_type_override_on_post() {
    case(
        "header_content_type_override_on_post",
        &["-s", "-H", "Content-Type: text/plain", "-d", "hi", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn header_remove_content_type_on_post() {
    case(
        "header_remove_content_type_on_post",
        &["-s", "-H", "Content-Type:", "-d", "hi", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn user_agent_option() {
    case("user_agent_option", &["-s", "-A", "agent/2", "{url}/"]).run(OXCURL);
}

#[test]
fn user_agent_empty_removes_header() {
    case(
        "user_agent_empty_removes_header",
        &["-s", "-A", "", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn referer_option() {
    case(
        "referer_option",
        &["-s", "-e", "http://ref.example/page", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn referer_auto_with_location() {
    Case::new("referer_auto_with_location")
        .args(&["-s", "-L", "-e", ";auto", "{url}/start"])
        .server(|s| {
            s.route("/start", Reply::redirect(302, "/next"));
            s.route("/next", Reply::ok("done\n"));
        })
        .run(OXCURL);
}

#[test]
fn referer_given_and_auto_with_location() {
    Case::new("referer_given_and_auto_with_location")
        .args(&[
            "-s",
            "-L",
            "-e",
            "http://first.example/;auto",
            "{url}/start",
        ])
        .server(|s| {
            s.route("/start", Reply::redirect(301, "/next"));
            s.route("/next", Reply::ok("done\n"));
        })
        .run(OXCURL);
}

#[test]
fn cookie_option_string() {
    case("cookie_option_string", &["-s", "-b", "a=1; b=2", "{url}/"]).run(OXCURL);
}

#[test]
fn range_option() {
    Case::new("range_option")
        .args(&["-s", "-r", "0-4", "{url}/r"])
        .reply(Reply::status(
            206,
            &[("Content-Range", "bytes 0-4/10")],
            "01234",
        ))
        .run(OXCURL);
}

#[test]
fn range_option_multiple() {
    case("range_option_multiple", &["-s", "-r", "0-1,5-", "{url}/r"]).run(OXCURL);
}

#[test]
fn range_option_suffix() {
    case("range_option_suffix", &["-s", "-r", "-100", "{url}/r"]).run(OXCURL);
}

// ---- authentication -----------------------------------------------------------------

#[test]
fn basic_auth_user_pass() {
    case("basic_auth_user_pass", &["-s", "-u", "user:pass", "{url}/"]).run(OXCURL);
}

#[test]
fn basic_auth_empty_password() {
    case(
        "basic_auth_empty_password",
        &["-s", "-u", "user:", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn basic_auth_credentials_in_url() {
    Case::new("basic_auth_credentials_in_url")
        .args(&["-s", "http://alice:s%40cret@{host}/"])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn basic_auth_user_only_in_url() {
    Case::new("basic_auth_user_only_in_url")
        .args(&["-s", "http://bob@{host}/"])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn basic_auth_option_overrides_url() {
    Case::new("basic_auth_option_overrides_url")
        .args(&["-s", "-u", "opt:pw", "http://url:pw@{host}/"])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn basic_auth_explicit_flag() {
    case(
        "basic_auth_explicit_flag",
        &["-s", "--basic", "-u", "a:b", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn oauth2_bearer_not_sent_to_other_host_on_redirect() {
    Case::new("oauth2_bearer_not_sent_to_other_host_on_redirect")
        .args(&[
            "-sL",
            "--oauth2-bearer",
            "tok",
            "http://localhost:{port}/from",
        ])
        .server(|s| {
            s.set_replies(vec![
                Reply::redirect(302, &format!("http://127.0.0.1:{}/to", s.port())),
                Reply::ok("x"),
            ])
        })
        .run(OXCURL);
}

#[test]
fn oauth2_bearer() {
    case(
        "oauth2_bearer",
        &["-s", "--oauth2-bearer", "tok123", "{url}/"],
    )
    .run(OXCURL);
}

// ---- POST data ----------------------------------------------------------------------

#[test]
fn data_simple() {
    case("data_simple", &["-s", "-d", "name=value", "{url}/post"]).run(OXCURL);
}

#[test]
fn data_multiple_joined() {
    case(
        "data_multiple_joined",
        &[
            "-s",
            "-d",
            "a=1",
            "-d",
            "b=2",
            "--data",
            "c=3",
            "{url}/post",
        ],
    )
    .run(OXCURL);
}

#[test]
fn data_empty() {
    case("data_empty", &["-s", "-d", "", "{url}/post"]).run(OXCURL);
}

#[test]
fn data_raw_keeps_at() {
    case(
        "data_raw_keeps_at",
        &["-s", "--data-raw", "@notafile", "{url}/post"],
    )
    .run(OXCURL);
}

#[test]
fn data_ascii() {
    case("data_ascii", &["-s", "--data-ascii", "x=y", "{url}/post"]).run(OXCURL);
}

#[test]
fn data_from_file_strips_newlines() {
    case(
        "data_from_file_strips_newlines",
        &["-s", "-d", "@{tmp}/body", "{url}/post"],
    )
    .file("body", "line1\nline2\r\nline3\n")
    .run(OXCURL);
}

#[test]
fn data_binary_from_file_keeps_newlines() {
    case(
        "data_binary_from_file_keeps_newlines",
        &["-s", "--data-binary", "@{tmp}/body", "{url}/post"],
    )
    .file("body", "line1\nline2\r\nline3\n\0bin")
    .run(OXCURL);
}

#[test]
fn data_binary_literal() {
    case(
        "data_binary_literal",
        &["-s", "--data-binary", "a\nb", "{url}/post"],
    )
    .run(OXCURL);
}

#[test]
fn data_from_stdin() {
    case("data_from_stdin", &["-s", "-d", "@-", "{url}/post"])
        .stdin("from\nstdin\n")
        .run(OXCURL);
}

#[test]
fn data_binary_from_stdin() {
    case(
        "data_binary_from_stdin",
        &["-s", "--data-binary", "@-", "{url}/post"],
    )
    .stdin("from\nstdin\n")
    .run(OXCURL);
}

#[test]
fn data_mixed_literal_and_file() {
    case(
        "data_mixed_literal_and_file",
        &["-s", "-d", "a=1", "-d", "@{tmp}/f", "{url}/post"],
    )
    .file("f", "b=2\n")
    .run(OXCURL);
}

#[test]
fn data_urlencode_plain() {
    case(
        "data_urlencode_plain",
        &["-s", "--data-urlencode", "hello world&x=y", "{url}/post"],
    )
    .run(OXCURL);
}

#[test]
fn data_urlencode_leading_equals() {
    case(
        "data_urlencode_leading_equals",
        &["-s", "--data-urlencode", "=a b=c", "{url}/post"],
    )
    .run(OXCURL);
}

#[test]
fn data_urlencode_name_value() {
    case(
        "data_urlencode_name_value",
        &["-s", "--data-urlencode", "name=J Doe & co/ü", "{url}/post"],
    )
    .run(OXCURL);
}

#[test]
fn data_urlencode_at_file() {
    case(
        "data_urlencode_at_file",
        &["-s", "--data-urlencode", "@{tmp}/v", "{url}/post"],
    )
    .file("v", "a b\nc&d\n")
    .run(OXCURL);
}

#[test]
fn data_urlencode_name_at_file() {
    case(
        "data_urlencode_name_at_file",
        &["-s", "--data-urlencode", "field@{tmp}/v", "{url}/post"],
    )
    .file("v", "a b\nc&d\n")
    .run(OXCURL);
}

#[test]
fn data_urlencode_combined_with_data() {
    case(
        "data_urlencode_combined_with_data",
        &["-s", "-d", "a=1", "--data-urlencode", "b=x y", "{url}/post"],
    )
    .run(OXCURL);
}

#[test]
fn get_with_data_appends_query() {
    case(
        "get_with_data_appends_query",
        &["-s", "-G", "-d", "a=1", "-d", "b=2", "{url}/search"],
    )
    .run(OXCURL);
}

#[test]
fn get_with_data_existing_query() {
    case(
        "get_with_data_existing_query",
        &["-s", "-G", "-d", "a=1", "{url}/search?q=z"],
    )
    .run(OXCURL);
}

#[test]
fn get_with_data_urlencode() {
    case(
        "get_with_data_urlencode",
        &["-s", "-G", "--data-urlencode", "q=a b", "{url}/search"],
    )
    .run(OXCURL);
}

#[test]
fn get_with_data_and_head() {
    case(
        "get_with_data_and_head",
        &["-s", "-G", "-I", "-d", "a=1", "{url}/search"],
    )
    .run(OXCURL);
}

#[test]
fn json_option() {
    case("json_option", &["-s", "--json", "{\"a\":1}", "{url}/api"]).run(OXCURL);
}

#[test]
fn json_option_multiple_joined() {
    case(
        "json_option_multiple_joined",
        &["-s", "--json", "{\"a\":", "--json", "1}", "{url}/api"],
    )
    .run(OXCURL);
}

#[test]
fn json_option_from_file() {
    case(
        "json_option_from_file",
        &["-s", "--json", "@{tmp}/j", "{url}/api"],
    )
    .file("j", "{\n \"k\": \"v\"\n}\n")
    .run(OXCURL);
}

#[test]
fn json_option_user_content_type() {
    case(
        "json_option_user_content_type",
        &[
            "-s",
            "--json",
            "{}",
            "-H",
            "Content-Type: application/vnd.x+json",
            "{url}/api",
        ],
    )
    .run(OXCURL);
}

#[test]
fn json_option_user_accept() {
    case(
        "json_option_user_accept",
        &[
            "-s",
            "--json",
            "{}",
            "-H",
            "Accept: text/plain",
            "{url}/api",
        ],
    )
    .run(OXCURL);
}

#[test]
fn form_multipart_fields() {
    Case::new("form_multipart_fields")
        .args(&["-s", "-F", "a=1", "-F", "b=two", "{url}/form"])
        .reply(Reply::ok("x"))
        .normalise_requests_with(mask_boundaries)
        .run(OXCURL);
}

#[test]
fn form_multipart_file() {
    Case::new("form_multipart_file")
        .args(&["-s", "-F", "f=@{tmp}/up.txt", "{url}/form"])
        .file("up.txt", "file contents\n")
        .reply(Reply::ok("x"))
        .normalise_requests_with(mask_boundaries)
        .run(OXCURL);
}

// ---- uploads ------------------------------------------------------------------------

#[test]
fn upload_file_put() {
    case(
        "upload_file_put",
        &["-s", "-T", "{tmp}/up.txt", "{url}/dest"],
    )
    .file("up.txt", "upload body\n")
    .run(OXCURL);
}

#[test]
fn upload_file_trailing_slash_appends_name() {
    case(
        "upload_file_trailing_slash_appends_name",
        &["-s", "-T", "{tmp}/up.txt", "{url}/dir/"],
    )
    .file("up.txt", "upload body\n")
    .run(OXCURL);
}

#[test]
fn upload_file_no_path_appends_name() {
    case(
        "upload_file_no_path_appends_name",
        &["-s", "-T", "{tmp}/up.txt", "{url}"],
    )
    .file("up.txt", "upload body\n")
    .run(OXCURL);
}

#[test]
fn upload_stdin_chunked() {
    case("upload_stdin_chunked", &["-s", "-T", "-", "{url}/dest"])
        .stdin("data from stdin\n")
        .run(OXCURL);
}

#[test]
fn upload_with_custom_method() {
    case(
        "upload_with_custom_method",
        &["-s", "-X", "POST", "-T", "{tmp}/up.txt", "{url}/dest"],
    )
    .file("up.txt", "abc")
    .run(OXCURL);
}

#[test]
fn upload_empty_file() {
    case(
        "upload_empty_file",
        &["-s", "-T", "{tmp}/empty", "{url}/dest"],
    )
    .file("empty", "")
    .run(OXCURL);
}

#[test]
fn upload_large_file_expect_continue() {
    let big: Vec<u8> = (0..(1024 * 1024 + 100))
        .map(|i| b'a' + (i % 26) as u8)
        .collect();
    case(
        "upload_large_file_expect_continue",
        &["-s", "-T", "{tmp}/big", "{url}/dest"],
    )
    .file("big", big)
    .run(OXCURL);
}

#[test]
fn upload_large_post_expect_continue() {
    let big: Vec<u8> = (0..(1024 * 1024 + 100))
        .map(|i| b'a' + (i % 26) as u8)
        .collect();
    case(
        "upload_large_post_expect_continue",
        &["-s", "--data-binary", "@{tmp}/big", "{url}/dest"],
    )
    .file("big", big)
    .run(OXCURL);
}

#[test]
fn upload_expect_header_removed() {
    let big: Vec<u8> = vec![b'z'; 1024 * 1024 + 10];
    case(
        "upload_expect_header_removed",
        &["-s", "-H", "Expect:", "-T", "{tmp}/big", "{url}/dest"],
    )
    .file("big", big)
    .run(OXCURL);
}

// ---- versions -----------------------------------------------------------------------

#[test]
fn http10_request() {
    case("http10_request", &["-s", "--http1.0", "{url}/old"]).run(OXCURL);
}

#[test]
fn http10_post() {
    case("http10_post", &["-s", "-0", "-d", "x=1", "{url}/old"]).run(OXCURL);
}

#[test]
fn http11_explicit() {
    case("http11_explicit", &["-s", "--http1.1", "{url}/"]).run(OXCURL);
}

// ---- name resolution / connection ---------------------------------------------------

#[test]
fn resolve_option() {
    case(
        "resolve_option",
        &[
            "-s",
            "--resolve",
            "example.test:{port}:127.0.0.1",
            "http://example.test:{port}/r",
        ],
    )
    .run(OXCURL);
}

#[test]
fn connect_to_option() {
    case(
        "connect_to_option",
        &[
            "-s",
            "--connect-to",
            "example.test:80:127.0.0.1:{port}",
            "http://example.test/c",
        ],
    )
    .run(OXCURL);
}

#[test]
fn ipv4_only() {
    case("ipv4_only", &["-s", "-4", "{url}/v4"]).run(OXCURL);
}

#[test]
fn localhost_name() {
    case(
        "localhost_name",
        &["-s", "-4", "http://localhost:{port}/lh"],
    )
    .run(OXCURL);
}

#[test]
fn ipv6_server() {
    Case::new("ipv6_server")
        .ipv6()
        .args(&["-s", "{url}/v6"])
        .reply(Reply::ok("six\n"))
        .run(OXCURL);
}

// ---- connection reuse ----------------------------------------------------------------

#[test]
fn two_urls_reuse_connection() {
    case(
        "two_urls_reuse_connection",
        &["-s", "{url}/one", "{url}/two"],
    )
    .run(OXCURL);
}

#[test]
fn three_urls_glob_reuse_connection() {
    case("three_urls_glob_reuse_connection", &["-s", "{url}/n[1-3]"]).run(OXCURL);
}

#[test]
fn two_urls_server_closes() {
    Case::new("two_urls_server_closes")
        .args(&["-s", "{url}/one", "{url}/two"])
        .reply(Reply::status(200, &[("Connection", "close")], "bye\n"))
        .run(OXCURL);
}

#[test]
fn next_with_different_options() {
    case(
        "next_with_different_options",
        &[
            "-s",
            "-H",
            "X-First: 1",
            "{url}/a",
            "--next",
            "-d",
            "x=y",
            "{url}/b",
        ],
    )
    .run(OXCURL);
}

#[test]
fn next_resets_method() {
    case(
        "next_resets_method",
        &["-s", "-X", "DELETE", "{url}/a", "-:", "{url}/b"],
    )
    .run(OXCURL);
}

#[test]
fn http10_response_closes() {
    Case::new("http10_response_closes")
        .args(&["-s", "{url}/a", "{url}/b"])
        .reply(Reply::raw(
            "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc",
        ))
        .run(OXCURL);
}

// ---- --ignore-content-length ------------------------------------------------------

/// The body runs to the close, longer or shorter than the Content-Length said.
#[test]
fn ignore_content_length_reads_to_close() {
    for (i, body) in ["0123456789", "012"].iter().enumerate() {
        Case::new(&format!("ignore_content_length_{i}"))
            .args(&[
                "-sS",
                "--ignore-content-length",
                "-w",
                " %{size_download}",
                "{url}/",
            ])
            .reply(
                Reply::raw(format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n{body}"
                ))
                .close(),
            )
            .compare_stderr(true)
            .run(OXCURL);
    }
}

/// Without the option, a short body is a partial file.
#[test]
fn content_length_short_body_is_partial_without_ignore() {
    Case::new("content_length_short_body_partial")
        .args(&["-sS", "{url}/"])
        .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n012").close())
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn data_file_is_read_once_for_all_urls() {
    // /dev/stdin can be read only once: a second reading would send an empty body.
    Case::new("data_file_is_read_once_for_all_urls")
        .args(&["-s", "-d", "@/dev/stdin", "{url}/a", "{url}/b"])
        .stdin("payload\n")
        .reply(Reply::ok("ok\n"))
        .compare_stderr(true)
        .run(env!("CARGO_BIN_EXE_oxcurl"));
}

#[test]
fn data_file_that_is_a_directory() {
    Case::new("data_file_that_is_a_directory")
        .args(&["-sS", "-d", "@{tmp}", "{url}/a"])
        .compare_stderr(true)
        .expect_failure()
        .run(env!("CARGO_BIN_EXE_oxcurl"));
}
