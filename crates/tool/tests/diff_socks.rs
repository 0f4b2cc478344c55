//! Differential tests for SOCKS proxies: a scripted SOCKS server records the handshake
//! bytes of oxcurl and the reference curl 8.14.1 and relays to the scripted HTTP server,
//! whose recorded requests the harness compares as usual.

use oxcurl_testsupport::{Case, Reply, SocksMode, SocksServer, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// Run `args` (`{socks}` is the SOCKS server's `127.0.0.1:PORT`) and check both clients
/// sent the same handshake bytes.
fn socks_case(name: &str, mode: SocksMode, args: &[&str], tls: bool) {
    socks_run(name, mode, args, tls, vec![Reply::ok("via socks\n")], false);
}

/// [`socks_case`] where the proxy fails the handshake: curl fails (97) without reaching the
/// server.
fn socks_refused(name: &str, mode: SocksMode, args: &[&str], tls: bool) {
    socks_run(name, mode, args, tls, vec![Reply::ok("via socks\n")], true);
}

fn socks_case_with(name: &str, mode: SocksMode, args: &[&str], tls: bool, replies: Vec<Reply>) {
    socks_run(name, mode, args, tls, replies, false);
}

fn socks_run(
    name: &str,
    mode: SocksMode,
    args: &[&str],
    tls: bool,
    replies: Vec<Reply>,
    refused: bool,
) {
    let socks = SocksServer::start(mode);
    let hp = format!("127.0.0.1:{}", socks.port());
    let args: Vec<String> = args.iter().map(|a| a.replace("{socks}", &hp)).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut c = Case::new(name)
        .compare_stderr(true)
        .args(&args)
        .replies(replies);
    if tls {
        c = c.tls(TlsServerOptions::default());
    }
    c.expect_failure_if(refused).run(OXCURL);
    let hs = socks.handshakes();
    assert_eq!(hs.len() % 2, 0, "{hs:?}");
    let (reference, ours) = hs.split_at(hs.len() / 2);
    assert_eq!(reference, ours);
}

fn relay() -> SocksMode {
    SocksMode::Relay { auth: None }
}

#[test]
fn socks4_ip_target() {
    socks_case(
        "socks4_ip_target",
        relay(),
        &["-sS", "-x", "socks4://{socks}", "{url}/4"],
        false,
    );
}

#[test]
fn socks4_localhost_target() {
    socks_case(
        "socks4_localhost_target",
        relay(),
        &["-sS", "--socks4", "{socks}", "http://localhost:{port}/4"],
        false,
    );
}

#[test]
fn socks4a_hostname_target() {
    socks_case(
        "socks4a_hostname_target",
        relay(),
        &[
            "-sS",
            "-x",
            "socks4a://{socks}",
            "http://localhost:{port}/4a",
        ],
        false,
    );
}

#[test]
fn socks4a_option_with_user() {
    socks_case(
        "socks4a_option_with_user",
        relay(),
        &[
            "-sS",
            "--socks4a",
            "{socks}",
            "-U",
            "someone:pw",
            "http://localhost:{port}/",
        ],
        false,
    );
}

#[test]
fn socks5_ip_target() {
    socks_case(
        "socks5_ip_target",
        relay(),
        &["-sS", "-x", "socks5://{socks}", "{url}/5"],
        false,
    );
}

#[test]
fn socks5_localhost_target() {
    socks_case(
        "socks5_localhost_target",
        relay(),
        &[
            "-sS",
            "-4",
            "--socks5",
            "{socks}",
            "http://localhost:{port}/5",
        ],
        false,
    );
}

#[test]
fn socks5h_hostname_target() {
    socks_case(
        "socks5h_hostname_target",
        relay(),
        &[
            "-sS",
            "-x",
            "socks5h://{socks}",
            "http://localhost:{port}/5h",
        ],
        false,
    );
}

#[test]
fn socks5h_ip_target() {
    socks_case(
        "socks5h_ip_target",
        relay(),
        &["-sS", "-x", "socks5h://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks4a_ip_target() {
    socks_case(
        "socks4a_ip_target",
        relay(),
        &["-sS", "-x", "socks4a://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks5_hostname_option() {
    socks_case(
        "socks5_hostname_option",
        relay(),
        &[
            "-sS",
            "--socks5-hostname",
            "{socks}",
            "http://localhost:{port}/",
        ],
        false,
    );
}

#[test]
fn socks5_user_password() {
    socks_case(
        "socks5_user_password",
        SocksMode::Relay {
            auth: Some(("user".into(), "secret".into())),
        },
        &[
            "-sS",
            "-x",
            "socks5h://user:secret@{socks}",
            "http://localhost:{port}/auth",
        ],
        false,
    );
}

#[test]
fn socks5_basic_only() {
    socks_case(
        "socks5_basic_only",
        SocksMode::Relay {
            auth: Some(("u".into(), "p".into())),
        },
        &[
            "-sS",
            "--socks5-basic",
            "-U",
            "u:p",
            "--socks5",
            "{socks}",
            "{url}/",
        ],
        false,
    );
}

#[test]
fn socks5_wrong_password() {
    socks_refused(
        "socks5_wrong_password",
        SocksMode::Relay {
            auth: Some(("u".into(), "p".into())),
        },
        &["-sS", "-x", "socks5://u:bad@{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks5_https_target() {
    socks_case(
        "socks5_https_target",
        relay(),
        &[
            "-sS",
            "--cacert",
            "{ca}",
            "-x",
            "socks5h://{socks}",
            "https://localhost:{port}/tls",
        ],
        true,
    );
}

#[test]
fn socks5_from_all_proxy_env() {
    let socks = SocksServer::start(relay());
    Case::new("socks5_from_all_proxy_env")
        .compare_stderr(true)
        .args(&["-sS", "{url}/env"])
        .env("all_proxy", &format!("socks5://127.0.0.1:{}", socks.port()))
        .reply(Reply::ok("x"))
        .run(OXCURL);
    assert_eq!(socks.handshakes().len(), 2);
}

// ---- hostile proxies ----------------------------------------------------------------------

#[test]
fn socks5_garbage_reply() {
    socks_refused(
        "socks5_garbage_reply",
        SocksMode::Raw(b"HTTP/1.1 400 Bad\r\n\r\n".to_vec()),
        &["-sS", "-x", "socks5://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks4_garbage_reply() {
    socks_refused(
        "socks4_garbage_reply",
        SocksMode::Raw(b"HTTP/1.1 400 Bad\r\n\r\n".to_vec()),
        &["-sS", "-x", "socks4://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks5_closed_at_once() {
    socks_refused(
        "socks5_closed_at_once",
        SocksMode::Raw(Vec::new()),
        &["-sS", "-x", "socks5://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks4_closed_at_once() {
    socks_refused(
        "socks4_closed_at_once",
        SocksMode::Raw(Vec::new()),
        &["-sS", "-x", "socks4://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks5_connect_refused_reply() {
    socks_refused(
        "socks5_connect_refused_reply",
        SocksMode::Socks5Reply(vec![5, 5, 0, 1, 0, 0, 0, 0, 0, 0]),
        &["-sS", "-x", "socks5://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks5h_host_unreachable_reply() {
    socks_refused(
        "socks5h_host_unreachable_reply",
        SocksMode::Socks5Reply(vec![5, 4, 0, 1, 0, 0, 0, 0, 0, 0]),
        &["-sS", "-x", "socks5h://{socks}", "http://localhost:{port}/"],
        false,
    );
}

#[test]
fn socks4_rejected() {
    socks_refused(
        "socks4_rejected",
        SocksMode::Raw(vec![0, 91, 0, 80, 127, 0, 0, 1]),
        &["-sS", "-x", "socks4://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks5_no_acceptable_method() {
    socks_refused(
        "socks5_no_acceptable_method",
        SocksMode::Raw(vec![5, 0xff]),
        &["-sS", "-x", "socks5://{socks}", "{url}/"],
        false,
    );
}

#[test]
fn socks_silent_proxy_connect_timeout() {
    // Accepts (in the kernel backlog) and never answers the greeting.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    Case::new("socks_silent_proxy_connect_timeout")
        .compare_stderr(true)
        .args(&[
            "-sS",
            "--connect-timeout",
            "1",
            "-x",
            &format!("socks5://127.0.0.1:{port}"),
            "{url}/",
        ])
        .normalise_with(oxcurl_testsupport::diff::mask_digits)
        .expect_failure()
        .run(OXCURL);
    drop(silent);
}

/// `-v` output with digits masked and curl's racy "Request completely sent off" line
/// dropped (curl skips it when the reply arrives before it notices the send finished).
fn verbose_norm(data: &[u8]) -> Vec<u8> {
    let masked = oxcurl_testsupport::diff::mask_digits(data);
    oxcurl_testsupport::diff::replace_all(&masked, b"* Request completely sent off\n", b"")
}

fn verbose_case(name: &str, proxy: &str, url: &str) {
    verbose_run(name, proxy, url, false);
}

fn verbose_run(name: &str, proxy: &str, url: &str, refused: bool) {
    let socks = SocksServer::start(relay());
    let p = format!("{proxy}://127.0.0.1:{}", socks.port());
    Case::new(name)
        .compare_stderr(true)
        .args(&["-s", "-v", "-4", "-x", &p, url])
        .reply(Reply::ok("x"))
        .normalise_with(verbose_norm)
        .expect_failure_if(refused)
        .run(OXCURL);
}

#[test]
fn verbose_socks4_name() {
    verbose_case("verbose_socks4_name", "socks4", "http://localhost:{port}/");
}

/// A name SOCKS4 must resolve and cannot: curl notes the lookup it starts, then names
/// the proxy in the error.
#[test]
fn verbose_socks4_unresolvable_name() {
    verbose_run(
        "verbose_socks4_unresolvable_name",
        "socks4",
        "http://no-such-host.invalid/",
        true,
    );
}

#[test]
fn verbose_socks4_ip() {
    verbose_case("verbose_socks4_ip", "socks4", "{url}/");
}

#[test]
fn verbose_socks4a_name() {
    verbose_case(
        "verbose_socks4a_name",
        "socks4a",
        "http://localhost:{port}/",
    );
}

#[test]
fn verbose_socks4a_ip() {
    verbose_case("verbose_socks4a_ip", "socks4a", "{url}/");
}

#[test]
fn verbose_socks5_name() {
    verbose_case("verbose_socks5_name", "socks5", "http://localhost:{port}/");
}

#[test]
fn verbose_socks5_ip() {
    verbose_case("verbose_socks5_ip", "socks5", "{url}/");
}

#[test]
fn verbose_socks5h_name() {
    verbose_case(
        "verbose_socks5h_name",
        "socks5h",
        "http://localhost:{port}/",
    );
}

#[test]
fn verbose_socks5h_ip() {
    verbose_case("verbose_socks5h_ip", "socks5h", "{url}/");
}

fn ipv6_case(name: &str, proxy: &str) {
    let socks = SocksServer::start(relay());
    let p = format!("{proxy}://127.0.0.1:{}", socks.port());
    Case::new(name)
        .ipv6()
        .compare_stderr(true)
        .args(&["-s", "-v", "-x", &p, "http://[::1]:{port}/v6"])
        .reply(Reply::ok("x"))
        .normalise_with(verbose_norm)
        .run(OXCURL);
    let hs = socks.handshakes();
    assert_eq!(hs.len(), 2, "{hs:?}");
    assert_eq!(hs[0], hs[1]);
}

#[test]
fn socks5_ipv6_target() {
    ipv6_case("socks5_ipv6_target", "socks5");
}

#[test]
fn socks5h_ipv6_target() {
    ipv6_case("socks5h_ipv6_target", "socks5h");
}

// ---- local name resolution -----------------------------------------------------------------

#[test]
fn socks4_resolves_name_locally() {
    socks_case(
        "socks4_resolves_name_locally",
        relay(),
        &[
            "-sS",
            "--resolve",
            "origin.example:{port}:127.0.0.1",
            "-x",
            "socks4://{socks}",
            "http://origin.example:{port}/",
        ],
        false,
    );
}

#[test]
fn socks5_resolves_name_locally() {
    socks_case(
        "socks5_resolves_name_locally",
        relay(),
        &[
            "-sS",
            "--resolve",
            "origin.example:{port}:127.0.0.1",
            "-x",
            "socks5://{socks}",
            "http://origin.example:{port}/",
        ],
        false,
    );
}

#[test]
fn socks4_unresolvable_origin() {
    socks_refused(
        "socks4_unresolvable_origin",
        relay(),
        &[
            "-sS",
            "-x",
            "socks4://{socks}",
            "http://nonexistent.invalid/",
        ],
        false,
    );
}

#[test]
fn socks5_unresolvable_origin() {
    socks_refused(
        "socks5_unresolvable_origin",
        relay(),
        &[
            "-sS",
            "-x",
            "socks5://{socks}",
            "http://nonexistent.invalid/",
        ],
        false,
    );
}

// ---- --preproxy ----------------------------------------------------------------------------

#[test]
fn preproxy_socks5_then_http_proxy() {
    socks_case(
        "preproxy_socks5_then_http_proxy",
        relay(),
        &[
            "-sS",
            "--preproxy",
            "socks5://{socks}",
            "-x",
            "{host}",
            "-U",
            "a:b",
            "http://example.com/pre",
        ],
        false,
    );
}

#[test]
fn preproxy_socks4_with_tunnel() {
    socks_case_with(
        "preproxy_socks4_with_tunnel",
        relay(),
        &[
            "-sS",
            "-i",
            "--preproxy",
            "socks4://{socks}",
            "-p",
            "-x",
            "{host}",
            "http://example.com/pre",
        ],
        false,
        vec![
            Reply::raw("HTTP/1.1 200 Connection established\r\n\r\n").keep_open(true),
            Reply::ok("tunnelled\n"),
        ],
    );
}

#[test]
fn preproxy_https_through_connect_proxy() {
    let proxy = oxcurl_testsupport::ConnectProxy::start();
    let socks = SocksServer::start(relay());
    let pre = format!("socks5h://127.0.0.1:{}", socks.port());
    Case::new("preproxy_https_through_connect_proxy")
        .compare_stderr(true)
        .tls(TlsServerOptions::default())
        .args(&[
            "-sS",
            "--cacert",
            "{ca}",
            "--preproxy",
            &pre,
            "-x",
            &proxy.host_port(),
            "https://localhost:{port}/secure",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
    let (hs, heads) = (socks.handshakes(), proxy.heads());
    assert_eq!((hs.len(), heads.len()), (2, 2), "{hs:?} {heads:?}");
    assert_eq!(hs[0], hs[1]);
    assert_eq!(heads[0], heads[1]);
}

#[test]
fn preproxy_without_scheme_replaces_http_proxy() {
    Case::new("preproxy_without_scheme_replaces_http_proxy")
        .compare_stderr(true)
        .args(&[
            "-sS",
            "--preproxy",
            "{host}",
            "-x",
            "127.0.0.1:1",
            "http://example.com/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}
