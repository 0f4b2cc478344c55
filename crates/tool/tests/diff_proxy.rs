//! Differential tests for HTTP proxies (`-x`, `--proxy1.0`, `-U`, `-p`, `--proxy-header`,
//! `--noproxy`, the `*_proxy` environment): the scripted server plays the proxy and records
//! the exact bytes oxcurl and the reference curl 8.14.1 send it.

use oxcurl_testsupport::{Case, ConnectProxy, Reply, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// A case comparing stderr too: proxy errors and `-v` lines are part of the contract.
fn case(name: &str) -> Case {
    Case::new(name).compare_stderr(true)
}

/// `-v` output with digits masked and curl's racy "Request completely sent off" line
/// dropped (curl skips it when the reply arrives before it notices the send finished).
fn verbose_norm(data: &[u8]) -> Vec<u8> {
    let masked = oxcurl_testsupport::diff::mask_digits(data);
    oxcurl_testsupport::diff::replace_all(&masked, b"* Request completely sent off\n", b"")
}

fn established() -> Reply {
    Reply::raw("HTTP/1.1 200 Connection established\r\n\r\n").keep_open(true)
}

// ---- absolute form ---------------------------------------------------------------------

#[test]
fn absolute_form_request() {
    case("absolute_form_request")
        .args(&["-s", "-x", "{host}", "http://example.com/path?q=1#frag"])
        .reply(Reply::ok("via proxy\n"))
        .run(OXCURL);
}

#[test]
fn absolute_form_with_port_and_credentials() {
    case("absolute_form_with_port_and_credentials")
        .args(&[
            "-s",
            "--proxy",
            "http://{host}",
            "-U",
            "pu:pp",
            "http://ou:op@example.com:8080/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn credentials_in_proxy_url_are_decoded() {
    case("credentials_in_proxy_url_are_decoded")
        .args(&[
            "-s",
            "-x",
            "http://us%40er:p%3Aw@{host}",
            "http://example.com/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn proxy_header_and_header_in_absolute_form() {
    case("proxy_header_and_header_in_absolute_form")
        .args(&[
            "-s",
            "-x",
            "{host}",
            "--proxy-header",
            "X-To-Proxy: 1",
            "-H",
            "X-To-Origin: 2",
            "http://example.com/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn proxy_connection_header_can_be_replaced() {
    case("proxy_connection_header_can_be_replaced")
        .args(&[
            "-s",
            "-x",
            "{host}",
            "--proxy-header",
            "Proxy-Connection: close",
            "http://example.com/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn request_target_through_proxy() {
    case("request_target_through_proxy")
        .args(&[
            "-s",
            "-x",
            "{host}",
            "--request-target",
            "*",
            "-X",
            "OPTIONS",
            "http://example.com/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn proxy10_absolute_form() {
    case("proxy10_absolute_form")
        .args(&["-s", "--proxy1.0", "{host}", "http://example.com/"])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn verbose_absolute_form() {
    case("verbose_absolute_form")
        .args(&[
            "-s",
            "-v",
            "-x",
            "{host}",
            "-U",
            "a:b",
            "http://example.com/",
        ])
        .reply(Reply::ok("x"))
        .normalise_with(verbose_norm)
        .run(OXCURL);
}

#[test]
fn one_proxy_connection_for_two_origins() {
    case("one_proxy_connection_for_two_origins")
        .args(&[
            "-s",
            "-x",
            "{host}",
            "http://one.example/",
            "http://two.example/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

// ---- environment -----------------------------------------------------------------------

#[test]
fn env_http_proxy() {
    case("env_http_proxy")
        .args(&["-s", "http://example.com/env"])
        .env("http_proxy", "http://{host}")
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn env_all_proxy_upper() {
    case("env_all_proxy_upper")
        .args(&["-s", "http://example.com/all"])
        .env("ALL_PROXY", "{host}")
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn env_upper_http_proxy_is_ignored() {
    case("env_upper_http_proxy_is_ignored")
        .args(&["-s", "{url}/direct"])
        .env("HTTP_PROXY", "http://127.0.0.1:1")
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn env_no_proxy_skips_proxy() {
    case("env_no_proxy_skips_proxy")
        .args(&["-s", "{url}/direct"])
        .env("http_proxy", "http://127.0.0.1:1")
        .env("no_proxy", "localhost, 127.0.0.0/8")
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn noproxy_option_skips_proxy() {
    case("noproxy_option_skips_proxy")
        .args(&["-s", "-x", "127.0.0.1:1", "--noproxy", "*", "{url}/direct"])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn empty_proxy_disables_env_proxy() {
    case("empty_proxy_disables_env_proxy")
        .args(&["-s", "-x", "", "{url}/direct"])
        .env("http_proxy", "http://127.0.0.1:1")
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

// ---- CONNECT tunnel --------------------------------------------------------------------

#[test]
fn proxytunnel_for_http() {
    case("proxytunnel_for_http")
        .args(&[
            "-s",
            "-p",
            "-x",
            "{host}",
            "-U",
            "a:b",
            "--proxy-header",
            "X-P: 1",
            "-H",
            "X-O: 2",
            "http://example.com:8080/x",
        ])
        .replies(vec![established(), Reply::ok("tunnelled\n")])
        .run(OXCURL);
}

#[test]
fn connect_headers_shown_with_include() {
    case("connect_headers_shown_with_include")
        .args(&["-s", "-i", "-p", "-x", "{host}", "http://example.com/"])
        .replies(vec![
            Reply::raw("HTTP/1.1 200 OK\r\nX-Proxy: yes\r\n\r\n").keep_open(true),
            Reply::ok("body\n"),
        ])
        .run(OXCURL);
}

#[test]
fn suppress_connect_headers() {
    case("suppress_connect_headers")
        .args(&[
            "-s",
            "-i",
            "--suppress-connect-headers",
            "-p",
            "-x",
            "{host}",
            "http://example.com/",
        ])
        .replies(vec![
            Reply::raw("HTTP/1.1 200 OK\r\nX-Proxy: yes\r\n\r\n").keep_open(true),
            Reply::ok("body\n"),
        ])
        .run(OXCURL);
}

#[test]
fn verbose_tunnel() {
    case("verbose_tunnel")
        .args(&[
            "-s",
            "-v",
            "-p",
            "-x",
            "{host}",
            "-U",
            "a:b",
            "http://example.com/",
        ])
        .replies(vec![established(), Reply::ok("x")])
        .normalise_with(verbose_norm)
        .run(OXCURL);
}

#[test]
fn proxy10_connect() {
    case("proxy10_connect")
        .args(&["-s", "-p", "--proxy1.0", "{host}", "http://example.com/"])
        .replies(vec![established(), Reply::ok("x")])
        .run(OXCURL);
}

#[test]
fn connect_407_fails_56() {
    case("connect_407_fails_56")
        .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
        .reply(Reply::status(
            407,
            &[("Proxy-Authenticate", "Basic realm=\"p\"")],
            "denied",
        ))
        .run(OXCURL);
}

#[test]
fn connect_garbage_reply() {
    case("connect_garbage_reply")
        .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
        .reply(Reply::raw("garbage\r\n\r\n").close())
        .run(OXCURL);
}

#[test]
fn connect_reply_header_lines_curls_header_store_refuses() {
    // A zero byte before the line end (8), a bare CR cutting the name (43), a line without a
    // colon (43), as curl's header store sees each CONNECT reply line.
    for (name, head) in [
        (
            "connect_reply_nul_in_a_header",
            &b"HTTP/1.1 200 OK\r\nX-A: a\0b\r\n\r\n"[..],
        ),
        (
            "connect_reply_cr_in_a_header_name",
            b"HTTP/1.1 200 OK\r\nX-A\rB: c\r\n\r\n",
        ),
        (
            "connect_reply_header_without_colon",
            b"HTTP/1.1 200 OK\r\nX-A\r\n\r\n",
        ),
    ] {
        case(name)
            .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
            .reply(Reply::raw(head).close())
            .run(OXCURL);
    }
}

#[test]
fn idn_host_through_a_proxy_goes_as_punycode() {
    // The absolute-form target names the converted host, as the Host header does.
    case("idn_host_through_a_proxy_goes_as_punycode")
        .env("LC_ALL", "C.UTF-8")
        .args(&[
            "-sS",
            "-x",
            "{host}",
            "http://www.\u{e5}\u{e4}\u{f6}.se/page",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn idn_host_that_does_not_convert() {
    // A label over 63 bytes once converted, and a label ending in a hyphen: curl's bare 3.
    for (name, url) in [
        (
            "idn_label_too_long_once_converted",
            "http://too-long-IDN-name-c\u{fc}rl-r\u{fc}le\u{df}-la-la-la-dee-da-flooby-nooby.local/",
        ),
        ("idn_label_ending_in_a_hyphen", "http://a-.\u{fc}.se/"),
    ] {
        case(name)
            .env("LC_ALL", "C.UTF-8")
            .args(&["-sS", "-x", "{host}", url])
            .reply(Reply::ok("never\n"))
            .expect_failure()
            .run(OXCURL);
    }
}

#[test]
fn connect_closed_early() {
    case("connect_closed_early")
        .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
        .reply(Reply::raw("HTTP/1.1 200 OK\r\nX-A: 1\r\n").close())
        .run(OXCURL);
}

#[test]
fn connect_closed_at_once() {
    case("connect_closed_at_once")
        .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
        .reply(Reply::close_at_once())
        .run(OXCURL);
}

#[test]
fn connect_oversized_header_line() {
    let mut line = b"HTTP/1.1 200 OK\r\nX-Big: ".to_vec();
    line.extend(std::iter::repeat_n(b'a', 20_000));
    line.extend_from_slice(b"\r\n\r\n");
    case("connect_oversized_header_line")
        .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
        .reply(Reply::raw(line).close())
        .run(OXCURL);
}

#[test]
fn connect_endless_headers() {
    let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
    while head.len() < 400 * 1024 {
        head.extend_from_slice(b"X-Junk: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
    }
    case("connect_endless_headers")
        .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
        .reply(Reply::raw(head).close())
        .run(OXCURL);
}

#[test]
fn connect_silent_proxy_times_out() {
    case("connect_silent_proxy_times_out")
        .args(&[
            "-sS",
            "-m",
            "1",
            "-p",
            "-x",
            "{host}",
            "http://example.com/",
        ])
        .reply(
            Reply::new()
                .sleep(std::time::Duration::from_secs(3))
                .close(),
        )
        .normalise_with(oxcurl_testsupport::diff::mask_digits)
        .run(OXCURL);
}

// ---- HTTPS through a tunnel -------------------------------------------------------------

/// Runs `args` (with `{proxy}` replaced) against a TLS server through a relaying CONNECT
/// proxy; both clients must send the same CONNECT heads.
fn tunnel_case(name: &str, args: &[&str]) {
    let proxy = ConnectProxy::start();
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("{proxy}", &proxy.host_port()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    case(name)
        .tls(TlsServerOptions::default())
        .args(&args)
        .reply(Reply::ok("secret\n"))
        .normalise_with(verbose_norm)
        .run(OXCURL);
    let heads = proxy.heads();
    assert_eq!(heads.len() % 2, 0, "{heads:?}");
    let (reference, ours) = heads.split_at(heads.len() / 2);
    assert_eq!(reference, ours);
}

#[test]
fn https_through_connect_tunnel() {
    tunnel_case(
        "https_through_connect_tunnel",
        &[
            "-sS",
            "--cacert",
            "{ca}",
            "-x",
            "{proxy}",
            "-U",
            "pu:pp",
            "-u",
            "ou:op",
            "--proxy-header",
            "X-P: 1",
            "-H",
            "X-O: 2",
            "https://localhost:{port}/secure",
        ],
    );
}

#[test]
fn https_tunnel_headers_with_include() {
    tunnel_case(
        "https_tunnel_headers_with_include",
        &[
            "-sS",
            "-i",
            "--cacert",
            "{ca}",
            "-x",
            "{proxy}",
            "https://localhost:{port}/",
        ],
    );
}

#[test]
fn https_via_env_https_proxy() {
    let proxy = ConnectProxy::start();
    case("https_via_env_https_proxy")
        .tls(TlsServerOptions::default())
        .args(&["-sS", "--cacert", "{ca}", "https://localhost:{port}/env"])
        .env("HTTPS_PROXY", &proxy.host_port())
        .reply(Reply::ok("x"))
        .run(OXCURL);
    assert_eq!(proxy.heads().len(), 2);
}

// ---- errors ------------------------------------------------------------------------------

#[test]
fn unresolvable_proxy() {
    case("unresolvable_proxy")
        .args(&["-sS", "-x", "nonexistent.invalid", "http://example.com/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn refused_proxy() {
    case("refused_proxy")
        .args(&["-sS", "-x", "127.0.0.1:1", "http://example.com/"])
        .normalise_with(oxcurl_testsupport::diff::mask_digits)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn unknown_proxy_scheme() {
    case("unknown_proxy_scheme")
        .args(&["-sS", "-x", "gopher://{host}", "http://example.com/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn https_proxy() {
    case("https_proxy")
        .tls(TlsServerOptions::default())
        .args(&[
            "-sS",
            "--proxy-insecure",
            "-x",
            "https://localhost:{port}",
            "http://example.com/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

fn many_headers(n: usize) -> Reply {
    let mut head = b"HTTP/1.1 407 No\r\n".to_vec();
    for _ in 0..n {
        head.extend_from_slice(b"A: b\r\n");
    }
    head.extend_from_slice(b"\r\n");
    Reply::raw(head).close()
}

#[test]
fn connect_5000_headers_allowed() {
    case("connect_5000_headers_allowed")
        .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
        .reply(many_headers(5000))
        .run(OXCURL);
}

#[test]
fn connect_5001_headers_too_many() {
    case("connect_5001_headers_too_many")
        .args(&["-sS", "-p", "-x", "{host}", "http://example.com/"])
        .reply(many_headers(5001))
        .run(OXCURL);
}

// ---- connection reuse -------------------------------------------------------------------

#[test]
fn proxied_connection_never_serves_direct_transfer() {
    case("proxied_connection_never_serves_direct_transfer")
        .args(&[
            "-s",
            "-x",
            "{host}",
            "{url}/via-proxy",
            "--next",
            "-s",
            "{url}/direct",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn proxy_connection_reused_across_proxy_users() {
    case("proxy_connection_reused_across_proxy_users")
        .args(&[
            "-s",
            "-x",
            "{host}",
            "-U",
            "a:1",
            "http://example.com/one",
            "--next",
            "-s",
            "-x",
            "{host}",
            "-U",
            "b:2",
            "http://example.com/two",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn connect_timeout_covers_tunnel() {
    case("connect_timeout_covers_tunnel")
        .args(&[
            "-sS",
            "--connect-timeout",
            "1",
            "-p",
            "-x",
            "{host}",
            "http://example.com/",
        ])
        .reply(
            Reply::new()
                .sleep(std::time::Duration::from_secs(3))
                .close(),
        )
        .normalise_with(oxcurl_testsupport::diff::mask_digits)
        .run(OXCURL);
}

// ---- more ---------------------------------------------------------------------------------

#[test]
fn write_out_http_connect() {
    case("write_out_http_connect")
        .args(&[
            "-s",
            "-p",
            "-x",
            "{host}",
            "-w",
            "%{http_connect} %{http_code}\\n",
            "http://example.com/",
        ])
        .replies(vec![established(), Reply::ok("x")])
        .run(OXCURL);
}

#[test]
fn write_out_http_connect_on_407() {
    case("write_out_http_connect_on_407")
        .args(&[
            "-s",
            "-p",
            "-x",
            "{host}",
            "-w",
            "%{http_connect} %{http_code}\\n",
            "http://example.com/",
        ])
        .reply(Reply::status(407, &[], ""))
        .run(OXCURL);
}

#[test]
fn redirect_followed_through_proxy() {
    case("redirect_followed_through_proxy")
        .args(&["-s", "-L", "-x", "{host}", "http://one.example/start"])
        .replies(vec![
            Reply::redirect(302, "http://two.example/next"),
            Reply::ok("landed\n"),
        ])
        .run(OXCURL);
}

#[test]
fn noproxy_domain_suffix() {
    case("noproxy_domain_suffix")
        .args(&[
            "-s",
            "--resolve",
            "www.example.com:{port}:127.0.0.1",
            "-x",
            "127.0.0.1:1",
            "--noproxy",
            "example.com",
            "http://www.example.com:{port}/direct",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn env_no_proxy_ipv6_literal() {
    case("env_no_proxy_ipv6_literal")
        .ipv6()
        .args(&["-s", "http://[::1]:{port}/direct"])
        .env("http_proxy", "http://127.0.0.1:1")
        .env("NO_PROXY", "::1")
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn proxy_credentials_never_reach_origin_through_tunnel() {
    let r = case("proxy_credentials_never_reach_origin_through_tunnel")
        .args(&[
            "-s",
            "-p",
            "-x",
            "http://pu:pp@{host}",
            "-u",
            "ou:op",
            "http://example.com/",
        ])
        .replies(vec![established(), Reply::ok("x")])
        .run(OXCURL);
    let conn = String::from_utf8_lossy(&r.oxcurl.connections[0]).to_string();
    let (connect, origin) = conn.split_once("\r\n\r\n").expect("two heads");
    // Basic cHU6cHA= is pu:pp, b3U6b3A= is ou:op.
    assert!(
        connect.contains("Proxy-Authorization: Basic cHU6cHA="),
        "{connect}"
    );
    assert!(!connect.contains("b3U6b3A="), "{connect}");
    assert!(origin.contains("Authorization: Basic b3U6b3A="), "{origin}");
    assert!(!origin.contains("cHU6cHA="), "{origin}");
}

/// `-v` through a tunnel with `--proxy-anyauth -U pu:pp`: the proxy answers the first
/// CONNECT with `first` (a 407), then the tunnel is made and the page comes through it.
fn anyauth_tunnel(name: &str, first: Reply) -> Case {
    proxy_credentials_case(name, &["--proxy-anyauth"]).replies(vec![
        first,
        established(),
        Reply::ok("through\n"),
    ])
}

/// `-v` through a CONNECT tunnel with proxy credentials (`-U pu:pp`) and `auth` (none for
/// Basic sent at once, `--proxy-anyauth` for a probe first); no replies queued.
fn proxy_credentials_case(name: &str, auth: &[&str]) -> Case {
    case(name)
        .args(&["-sS", "-v", "-p", "-x", "{url}"])
        .args(auth)
        .args(&["-U", "pu:pp", "http://example.test/"])
        .normalise_with(verbose_norm)
}

#[test]
fn connect_407_with_close_verbose_lines() {
    // The proxy closes after its 407: curl reconnects for the authenticated CONNECT, and
    // -v tells of the closed connection and the new one in its own words.
    anyauth_tunnel(
        "connect_407_with_close_verbose_lines",
        Reply::status(
            407,
            &[
                ("Proxy-Authenticate", "Basic realm=\"p\""),
                ("Connection", "close"),
            ],
            "denied",
        ),
    )
    .unordered_connections()
    .run(OXCURL);
}

#[test]
fn connect_407_closed_inside_its_body() {
    // The proxy said it would close and closes before its 407 body is all there: with no
    // credentials sent yet, curl reports the CONNECT aborted (56), it does not connect again.
    anyauth_tunnel(
        "connect_407_closed_inside_its_body",
        Reply::head(
            407,
            &[
                ("Proxy-Authenticate", "Basic realm=\"p\""),
                ("Connection", "close"),
                ("Content-Length", "100"),
            ],
        )
        .body("only part")
        .keep_open(false),
    )
    .unordered_connections()
    .run(OXCURL);
}

#[test]
fn connect_407_to_credentials_shows_the_header_before_the_auth_note() {
    // Credentials went with the first CONNECT and the proxy refuses them: curl shows each
    // 407 header line before it reads it, so "< Proxy-Authenticate" comes before the note
    // on the rejected Basic credentials (a 401's line comes after its note), then 56.
    proxy_credentials_case(
        "connect_407_to_credentials_shows_the_header_before_the_auth_note",
        &[],
    )
    .reply(Reply::status(
        407,
        &[("Proxy-Authenticate", "Basic realm=\"p\"")],
        "denied",
    ))
    .run(OXCURL);
}

#[test]
fn connect_407_to_credentials_closed_inside_its_headers() {
    // The proxy refuses the credentials and closes before its 407 head is complete: curl
    // reports the CONNECT aborted (56) and does not connect again.
    proxy_credentials_case("connect_407_to_credentials_closed_inside_its_headers", &[])
        .reply(
            Reply::raw("HTTP/1.1 407 no\r\nProxy-Authenticate: Basic realm=\"p\"\r\nContent-Le")
                .close(),
        )
        .run(OXCURL);
}

#[test]
fn connect_407_anyauth_second_refusal_closed_inside_its_headers() {
    // --proxy-anyauth: the probe's 407 is answered with credentials on the same connection,
    // and the proxy refuses those too, closing inside the head: 56, no new connection.
    proxy_credentials_case(
        "connect_407_anyauth_second_refusal_closed_inside_its_headers",
        &["--proxy-anyauth"],
    )
    .replies(vec![
        Reply::status(407, &[("Proxy-Authenticate", "Basic realm=\"p\"")], "").keep_open(true),
        Reply::raw("HTTP/1.1 407 no\r\nProxy-Authenticate: Basic realm=\"p\"\r\nContent-Le")
            .close(),
    ])
    .run(OXCURL);
}

#[test]
fn connect_407_keepalive_verbose_lines() {
    // The same exchange on one connection: the 407 body is skipped and CONNECT sent again.
    anyauth_tunnel(
        "connect_407_keepalive_verbose_lines",
        Reply::status(
            407,
            &[("Proxy-Authenticate", "Basic realm=\"p\"")],
            "denied",
        )
        .keep_open(true),
    )
    .run(OXCURL);
}
