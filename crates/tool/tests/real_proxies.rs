//! oxcurl and the reference curl 8.14.1 through real proxies: Debian's squid (absolute-form
//! requests, CONNECT tunnels, Basic and Digest proxy authentication with 407 negotiation)
//! and dante (SOCKS4/4a/5/5h, IPv6 targets, as a pre-proxy in front of squid). The scripted
//! origin behind them records what each client's request looked like after the proxy, and
//! the harness compares those bytes, stdout, stderr and the exit code.

use oxcurl_testsupport::daemons::{Dante, Nghttpx, ProxyAuth, Squid};
use oxcurl_testsupport::{Case, Reply, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn squid(auth: ProxyAuth) -> Option<Squid> {
    Squid::try_start(auth)
}

fn basic() -> ProxyAuth {
    ProxyAuth::Basic("pu".into(), "pp".into())
}

fn digest() -> ProxyAuth {
    ProxyAuth::Digest("pu".into(), "pp".into())
}

/// Runs `args` (`{proxy}` is the proxy's `127.0.0.1:PORT`) for both clients.
fn run(name: &str, proxy: &str, args: &[&str], tls: bool) -> oxcurl_testsupport::CaseResult {
    let args: Vec<String> = args.iter().map(|a| a.replace("{proxy}", proxy)).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut c = Case::new(name)
        .compare_stderr(true)
        .args(&args)
        .replies(vec![Reply::ok("through the proxy\n")]);
    if tls {
        c = c.tls(TlsServerOptions::default());
    }
    c.run(OXCURL)
}

/// What oxcurl wrote to stdout: the origin's body when the proxy let the request through.
fn oxcurl_stdout(r: &oxcurl_testsupport::CaseResult) -> String {
    r.oxcurl.stdout_str()
}

// ---- squid: forward proxy -----------------------------------------------------------

#[test]
fn squid_forwards_absolute_form_get() {
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    let r = run(
        "squid_forwards_absolute_form_get",
        &sq.host_port(),
        &["-sS", "-x", "{proxy}", "{url}/forward?q=1"],
        false,
    );
    assert_eq!(oxcurl_stdout(&r), "through the proxy\n");
    assert_eq!(r.oxcurl.code(), 0);
    // squid logged both clients' absolute-form GETs.
    let log = sq.access_log();
    assert_eq!(log.matches(" GET http://127.0.0.1:").count(), 2, "{log}");
}

#[test]
fn squid_post_with_body() {
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    run(
        "squid_post_with_body",
        &sq.host_port(),
        &["-sS", "-x", "http://{proxy}", "-d", "a=1&b=2", "{url}/post"],
        false,
    );
}

#[test]
fn squid_connect_tunnel_to_https() {
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    let r = run(
        "squid_connect_tunnel_to_https",
        &sq.host_port(),
        &["-sS", "-x", "{proxy}", "--cacert", "{ca}", "{url}/tls"],
        true,
    );
    assert_eq!(oxcurl_stdout(&r), "through the proxy\n");
    assert!(sq.access_log().contains(" CONNECT 127.0.0.1:"));
}

#[test]
fn squid_proxytunnel_for_http() {
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    run(
        "squid_proxytunnel_for_http",
        &sq.host_port(),
        &["-sS", "-p", "-x", "{proxy}", "{url}/tunnelled"],
        false,
    );
    assert_eq!(sq.access_log().matches(" CONNECT 127.0.0.1:").count(), 2);
}

#[test]
fn squid_proxy_header_stays_with_the_proxy() {
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    run(
        "squid_proxy_header_stays_with_the_proxy",
        &sq.host_port(),
        &[
            "-sS",
            "-p",
            "-x",
            "{proxy}",
            "--proxy-header",
            "X-For-Proxy: 1",
            "-H",
            "X-For-Origin: 2",
            "{url}/hdr",
        ],
        false,
    );
}

#[test]
fn squid_verbose_tunnel_lines() {
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    // Only the lines curl prints about the proxy and the tunnel; squid's reply headers
    // carry dates, so the whole -v text is not compared.
    let hp = sq.host_port();
    let r = Case::new("squid_verbose_tunnel_lines")
        .args(&["-sS", "-v", "-p", "-x", &hp, "{url}/v", "-o", "/dev/null"])
        .reply(Reply::ok("v\n"))
        .compare_stderr(false)
        .run(OXCURL);
    let pick = |s: String| -> Vec<String> {
        s.lines()
            .filter(|l| {
                l.starts_with("> CONNECT")
                    || l.starts_with("< HTTP/1.1 200")
                    || l.contains("CONNECT tunnel")
                    || l.contains("CONNECT phase")
                    || l.starts_with("> Proxy-")
                    || l.starts_with("> Host:")
            })
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (pick(r.reference.stderr_str()), pick(r.oxcurl.stderr_str()));
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn squid_unreachable_origin_get_is_a_503_page() {
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    let port = oxcurl_testsupport::nginx::free_port();
    let url = format!("http://127.0.0.1:{port}/nothing");
    let hp = sq.host_port();
    Case::new("squid_unreachable_origin_get_is_a_503_page")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}\n",
            "-x",
            &hp,
            &url,
        ])
        .compare_requests(false)
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn squid_unreachable_origin_connect_is_56() {
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    let port = oxcurl_testsupport::nginx::free_port();
    let url = format!("https://127.0.0.1:{port}/nothing");
    let hp = sq.host_port();
    let r = Case::new("squid_unreachable_origin_connect_is_56")
        .args(&["-sS", "-x", &hp, &url])
        .compare_requests(false)
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 56);
}

// ---- squid: proxy authentication ------------------------------------------------------

#[test]
fn squid_basic_auth_forwards() {
    let Some(sq) = squid(basic()) else { return };
    let r = run(
        "squid_basic_auth_forwards",
        &sq.host_port(),
        &["-sS", "-U", "pu:pp", "-x", "{proxy}", "{url}/basic"],
        false,
    );
    assert_eq!(oxcurl_stdout(&r), "through the proxy\n");
}

#[test]
fn squid_basic_auth_wrong_password_is_407() {
    let Some(sq) = squid(basic()) else { return };
    let hp = sq.host_port();
    Case::new("squid_basic_auth_wrong_password_is_407")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{http_connect}\n",
            "-U",
            "pu:wrong",
            "-x",
            &hp,
            "{url}/no",
        ])
        .compare_requests(false)
        .run(OXCURL);
}

#[test]
fn squid_basic_auth_in_proxy_url() {
    let Some(sq) = squid(basic()) else { return };
    run(
        "squid_basic_auth_in_proxy_url",
        &sq.host_port(),
        &["-sS", "-x", "http://pu:pp@{proxy}", "{url}/inurl"],
        false,
    );
}

#[test]
fn squid_connect_without_credentials_is_56() {
    let Some(sq) = squid(basic()) else { return };
    let hp = sq.host_port();
    let r = Case::new("squid_connect_without_credentials_is_56")
        .args(&["-sS", "-x", &hp, "--cacert", "{ca}", "{url}/x"])
        .tls(TlsServerOptions::default())
        .compare_requests(false)
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 56);
}

#[test]
fn squid_connect_with_basic_auth() {
    let Some(sq) = squid(basic()) else { return };
    run(
        "squid_connect_with_basic_auth",
        &sq.host_port(),
        &[
            "-sS", "-U", "pu:pp", "-x", "{proxy}", "--cacert", "{ca}", "{url}/c",
        ],
        true,
    );
}

#[test]
fn squid_anyauth_picks_basic() {
    let Some(sq) = squid(basic()) else { return };
    run(
        "squid_anyauth_picks_basic",
        &sq.host_port(),
        &[
            "-sS",
            "--proxy-anyauth",
            "-U",
            "pu:pp",
            "-x",
            "{proxy}",
            "{url}/any",
        ],
        false,
    );
    // Both clients probed first and were challenged once each.
    let log = sq.access_log();
    assert_eq!(log.matches("TCP_DENIED/407").count(), 2, "{log}");
}

#[test]
fn squid_digest_auth_forwards() {
    let Some(sq) = squid(digest()) else { return };
    let r = run(
        "squid_digest_auth_forwards",
        &sq.host_port(),
        &[
            "-sS",
            "--proxy-digest",
            "-U",
            "pu:pp",
            "-x",
            "{proxy}",
            "{url}/digest",
        ],
        false,
    );
    assert_eq!(oxcurl_stdout(&r), "through the proxy\n");
}

#[test]
fn squid_digest_auth_over_connect() {
    let Some(sq) = squid(digest()) else { return };
    run(
        "squid_digest_auth_over_connect",
        &sq.host_port(),
        &[
            "-sS",
            "--proxy-digest",
            "-U",
            "pu:pp",
            "-x",
            "{proxy}",
            "--cacert",
            "{ca}",
            "{url}/dc",
        ],
        true,
    );
}

#[test]
fn squid_anyauth_picks_digest() {
    let Some(sq) = squid(digest()) else { return };
    run(
        "squid_anyauth_picks_digest",
        &sq.host_port(),
        &[
            "-sS",
            "--proxy-anyauth",
            "-U",
            "pu:pp",
            "-x",
            "{proxy}",
            "{url}/anyd",
        ],
        false,
    );
}

#[test]
fn squid_digest_wrong_password_is_407() {
    let Some(sq) = squid(digest()) else { return };
    let hp = sq.host_port();
    Case::new("squid_digest_wrong_password_is_407")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}\n",
            "--proxy-digest",
            "-U",
            "pu:nope",
            "-x",
            &hp,
            "{url}/no",
        ])
        .compare_requests(false)
        .run(OXCURL);
}

// ---- dante: SOCKS -----------------------------------------------------------------------

#[test]
fn dante_socks5() {
    let Some(d) = Dante::try_start() else { return };
    run(
        "dante_socks5",
        &d.host_port(),
        &["-sS", "-x", "socks5://{proxy}", "{url}/s5"],
        false,
    );
}

#[test]
fn dante_socks5h_resolves_localhost_remotely() {
    let Some(d) = Dante::try_start() else { return };
    run(
        "dante_socks5h_resolves_localhost_remotely",
        &d.host_port(),
        &[
            "-sS",
            "-x",
            "socks5h://{proxy}",
            "http://localhost:{port}/s5h",
        ],
        false,
    );
}

#[test]
fn dante_socks5_hostname_option() {
    let Some(d) = Dante::try_start() else { return };
    run(
        "dante_socks5_hostname_option",
        &d.host_port(),
        &[
            "-sS",
            "--socks5-hostname",
            "{proxy}",
            "http://localhost:{port}/opt",
        ],
        false,
    );
}

#[test]
fn dante_socks4() {
    let Some(d) = Dante::try_start() else { return };
    run(
        "dante_socks4",
        &d.host_port(),
        &[
            "-sS",
            "-x",
            "socks4://{proxy}",
            "http://localhost:{port}/s4",
        ],
        false,
    );
}

#[test]
fn dante_socks4a_is_refused_alike() {
    // dante answers SOCKS4a requests with a rejection (91); both clients report it the same
    // way. The address in the message is the one dante's reply carries, which varies.
    let Some(d) = Dante::try_start() else { return };
    let hp = d.host_port();
    let r = Case::new("dante_socks4a_is_refused_alike")
        .args(&[
            "-sS",
            "-x",
            &format!("socks4a://{hp}"),
            "http://localhost:{port}/s4a",
        ])
        .reply(Reply::ok("x"))
        .compare_stderr(true)
        .normalise_with(oxcurl_testsupport::diff::mask_digits)
        .expect_failure()
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 97);
    assert_ne!(r.oxcurl.code(), 0, "{}", r.oxcurl.stderr_str());
}

#[test]
fn dante_socks5_ipv6_target() {
    let Some(d) = Dante::try_start() else { return };
    let hp = d.host_port();
    let socks = format!("socks5://{hp}");
    Case::new("dante_socks5_ipv6_target")
        .ipv6()
        .args(&["-sS", "-x", &socks, "{url}/v6"])
        .reply(Reply::ok("six\n"))
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn dante_socks5h_to_https() {
    let Some(d) = Dante::try_start() else { return };
    run(
        "dante_socks5h_to_https",
        &d.host_port(),
        &[
            "-sS",
            "-x",
            "socks5h://{proxy}",
            "--cacert",
            "{ca}",
            "https://localhost:{port}/tls",
        ],
        true,
    );
}

#[test]
fn dante_preproxy_in_front_of_squid() {
    let Some(d) = Dante::try_start() else { return };
    let Some(sq) = squid(ProxyAuth::None) else {
        return;
    };
    let pre = format!("socks5://{}", d.host_port());
    let r = run(
        "dante_preproxy_in_front_of_squid",
        &sq.host_port(),
        &["-sS", "--preproxy", &pre, "-x", "{proxy}", "{url}/pre"],
        false,
    );
    assert_eq!(oxcurl_stdout(&r), "through the proxy\n");
    assert_eq!(sq.access_log().matches(" GET http://127.0.0.1:").count(), 2);
}

// ---- nghttpx: an HTTPS proxy speaking HTTP/2 (--proxy-http2), squid behind it ---------

/// squid with nghttpx in front (`--http2-proxy`), as curl's test suite runs them.
fn h2_proxy(auth: ProxyAuth) -> Option<(Squid, Nghttpx)> {
    let sq = Squid::try_start(auth)?;
    let nx = Nghttpx::try_start(&sq)?;
    Some((sq, nx))
}

/// Both clients with `--proxy-http2 -x https://localhost:NX --proxy-cacert CA` and `args`.
fn via_h2(name: &str, nx: &Nghttpx, args: &[&str]) -> Case {
    let url = nx.url();
    let mut all = vec![
        "--proxy-http2",
        "--proxy-cacert",
        "{ca}",
        "-x",
        url.as_str(),
    ];
    all.extend_from_slice(args);
    Case::new(name).compare_stderr(true).args(&all)
}

/// The two header blocks nghttpx received over HTTP/2, the reference's first: equal.
fn same_h2_heads(nx: &Nghttpx) -> String {
    let heads = nx.h2_request_heads();
    assert_eq!(heads.len(), 2, "one HTTP/2 request per client: {heads:?}");
    assert_eq!(heads[0], heads[1], "reference vs oxcurl");
    heads[1].clone()
}

#[test]
fn nghttpx_absolute_form_get_is_an_h2_stream() {
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    let r = via_h2(
        "nghttpx_absolute_form_get_is_an_h2_stream",
        &nx,
        &["-sS", "{url}/abs?q=1"],
    )
    .reply(Reply::ok("through the h2 proxy\n"))
    .run(OXCURL);
    assert_eq!(r.oxcurl.stdout_str(), "through the h2 proxy\n");
    let head = same_h2_heads(&nx);
    assert!(head.starts_with(":method: GET\n:scheme: http\n"), "{head}");
    assert!(head.contains("\n:path: /abs?q=1\n"), "{head}");
    assert!(!head.contains("proxy-connection"), "{head}");
    let log = nx.access_log();
    assert_eq!(
        log.matches(" h2 \"GET http://127.0.0.1:").count(),
        2,
        "{log}"
    );
}

#[test]
fn nghttpx_post_is_an_h2_stream() {
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    via_h2(
        "nghttpx_post_is_an_h2_stream",
        &nx,
        &["-sS", "-d", "a=1&b=2", "{url}/post"],
    )
    .reply(Reply::ok("posted\n"))
    .run(OXCURL);
    let head = same_h2_heads(&nx);
    assert!(head.starts_with(":method: POST\n"), "{head}");
}

#[test]
fn nghttpx_connect_tunnel_to_https() {
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    let r = via_h2(
        "nghttpx_connect_tunnel_to_https",
        &nx,
        &["-sS", "--cacert", "{ca}", "{url}/tls"],
    )
    .tls(TlsServerOptions::default())
    .reply(Reply::ok("inside the h2 tunnel\n"))
    .run(OXCURL);
    assert_eq!(r.oxcurl.stdout_str(), "inside the h2 tunnel\n");
    let head = same_h2_heads(&nx);
    // CONNECT has :authority only (no :scheme, no :path), then user-agent.
    assert!(
        head.starts_with(":method: CONNECT\n:authority: 127.0.0.1:"),
        "{head}"
    );
    assert!(
        !head.contains(":path") && !head.contains(":scheme"),
        "{head}"
    );
    assert!(head.ends_with("user-agent: curl/8.14.1\n"), "{head}");
}

#[test]
fn nghttpx_connect_tunnel_goes_to_the_connect_to_destination() {
    // CONNECT asks for the --connect-to destination on an HTTP/2 stream too.
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    let r = via_h2(
        "nghttpx_connect_tunnel_goes_to_the_connect_to_destination",
        &nx,
        &[
            "-sS",
            "-p",
            "--connect-to",
            "elsewhere.example:80:127.0.0.1:{port}",
            "http://elsewhere.example/ct",
        ],
    )
    .reply(Reply::ok("redirected tunnel\n"))
    .run(OXCURL);
    assert_eq!(r.oxcurl.stdout_str(), "redirected tunnel\n");
    let head = same_h2_heads(&nx);
    assert!(
        head.starts_with(":method: CONNECT\n:authority: 127.0.0.1:"),
        "{head}"
    );
}

#[test]
fn nghttpx_proxytunnel_for_http() {
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    via_h2(
        "nghttpx_proxytunnel_for_http",
        &nx,
        &[
            "-sS",
            "-p",
            "--proxy-header",
            "X-For-Proxy: 1",
            "-H",
            "X-For-Origin: 2",
            "{url}/p",
        ],
    )
    .reply(Reply::ok("plain inside\n"))
    .run(OXCURL);
    let head = same_h2_heads(&nx);
    assert!(head.ends_with("x-for-proxy: 1\n"), "{head}");
}

#[test]
fn nghttpx_big_download_and_upload_through_tunnel() {
    // Several windows' worth each way: h2 flow control on the tunnel stream, TLS inside.
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    let body: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let upload: Vec<u8> = (0..2_000_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let r = via_h2(
        "nghttpx_big_download_and_upload_through_tunnel",
        &nx,
        &[
            "-sS",
            "--cacert",
            "{ca}",
            "--data-binary",
            "@up.bin",
            "{url}/big",
        ],
    )
    .tls(TlsServerOptions::default())
    .file("up.bin", &upload)
    .reply(Reply::ok(&body))
    .run(OXCURL);
    assert_eq!(r.oxcurl.stdout.len(), body.len());
}

#[test]
fn nghttpx_verbose_lines() {
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    // The lines about the proxy, its ALPN, the tunnel and the streams; the replies carry
    // dates and the handshake traces differ, so the whole -v text is not compared.
    let pick = |s: String| -> Vec<String> {
        s.lines()
            .filter(|l| {
                l.starts_with("* ALPN")
                    || l.contains("CONNECT")
                    || l.contains("[HTTP/2]")
                    || l.starts_with("> ")
                    || l.starts_with("* using HTTP")
                    || l.starts_with("* Proxy certificate")
                    || l.starts_with("* Connected to")
            })
            .map(str::to_string)
            .collect()
    };
    for (name, tls, url) in [
        ("nghttpx_verbose_lines_absolute", false, "{url}/v"),
        ("nghttpx_verbose_lines_tunnel", true, "{url}/v"),
        ("nghttpx_verbose_lines_proxytunnel", false, "-p"),
    ] {
        let mut args = vec!["-sS", "-v", "--cacert", "{ca}", "-o", "/dev/null", url];
        if url == "-p" {
            args.push("{url}/pv");
        }
        let mut c = via_h2(name, &nx, &args)
            .reply(Reply::ok("v\n"))
            .compare_stderr(false);
        if tls {
            c = c.tls(TlsServerOptions::default());
        }
        let r = c.run(OXCURL);
        let (a, b) = (pick(r.reference.stderr_str()), pick(r.oxcurl.stderr_str()));
        assert!(a.iter().any(|l| l == "* ALPN: server accepted h2"), "{a:?}");
        assert_eq!(a, b, "{name}");
    }
}

/// The client ports of the access log's lines, the reference's half and oxcurl's.
fn ports_per_client(nx: &Nghttpx) -> (Vec<String>, Vec<String>) {
    let log = nx.access_log();
    let ports: Vec<String> = log
        .lines()
        .filter_map(|l| l.split(' ').next().map(str::to_string))
        .collect();
    let half = ports.len() / 2;
    let distinct = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v.dedup();
        v
    };
    (distinct(&ports[..half]), distinct(&ports[half..]))
}

#[test]
fn nghttpx_parallel_tunnels_take_a_connection_each() {
    // curl 8.14.1 opens one proxy connection per tunnel, even with -Z: never a second
    // CONNECT stream on a proxy connection. (The origin closes after each reply, so no
    // tunnel is reused either; which transfers wait for which is timing.)
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    via_h2(
        "nghttpx_parallel_tunnels_take_a_connection_each",
        &nx,
        &[
            "-sS", "-Z", "--cacert", "{ca}", "{url}/1", "{url}/2", "{url}/3",
        ],
    )
    .tls(TlsServerOptions::default())
    .replies(
        ["1\n", "2\n", "3\n"]
            .iter()
            .map(|b| Reply::status(200, &[("Connection", "close")], b))
            .collect(),
    )
    .unordered_connections()
    .compare_stdout(false)
    .run(OXCURL);
    let (a, b) = ports_per_client(&nx);
    assert_eq!((a.len(), b.len()), (3, 3), "{}", nx.access_log());
    assert_eq!(nx.connections(), 6);
}

#[test]
fn nghttpx_parallel_absolute_form_shares_one_connection() {
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    let r = via_h2(
        "nghttpx_parallel_absolute_form_shares_one_connection",
        &nx,
        &["-sS", "-Z", "{url}/1", "{url}/2", "{url}/3"],
    )
    .replies(vec![Reply::ok("x\n"), Reply::ok("x\n"), Reply::ok("x\n")])
    .unordered_connections()
    .run(OXCURL);
    assert_eq!(r.oxcurl.stdout_str(), "x\nx\nx\n");
    let (a, b) = ports_per_client(&nx);
    assert_eq!((a.len(), b.len()), (1, 1), "{}", nx.access_log());
}

#[test]
fn nghttpx_unreachable_origin_connect_is_56() {
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    let port = oxcurl_testsupport::nginx::free_port();
    let url = format!("https://127.0.0.1:{port}/nothing");
    let r = via_h2(
        "nghttpx_unreachable_origin_connect_is_56",
        &nx,
        &["-sS", "-v", &url],
    )
    .compare_requests(false)
    .compare_stderr(false)
    .expect_failure()
    .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 56);
    let last = |s: String| s.lines().last().unwrap_or_default().to_string();
    assert_eq!(last(r.reference.stderr_str()), last(r.oxcurl.stderr_str()));
}

#[test]
fn nghttpx_basic_auth_on_the_connect_stream() {
    let Some((_sq, nx)) = h2_proxy(basic()) else {
        return;
    };
    via_h2(
        "nghttpx_basic_auth_on_the_connect_stream",
        &nx,
        &["-sS", "-U", "pu:pp", "--cacert", "{ca}", "{url}/authed"],
    )
    .tls(TlsServerOptions::default())
    .reply(Reply::ok("authed\n"))
    .run(OXCURL);
    let head = same_h2_heads(&nx);
    assert!(
        head.contains("\nproxy-authorization: Basic cHU6cHA=\n"),
        "{head}"
    );
}

#[test]
fn nghttpx_407_on_the_connect_stream_is_56() {
    // curl 8.14.1 reads Proxy-Authenticate on an HTTP/2 tunnel but never asks again: a
    // 407 fails the tunnel like any other answer, with or without a scheme to negotiate.
    let Some((_sq, nx)) = h2_proxy(digest()) else {
        return;
    };
    for (name, extra) in [
        ("nghttpx_407_without_credentials", &[][..]),
        (
            "nghttpx_407_with_digest",
            &["--proxy-digest", "-U", "pu:pp"][..],
        ),
    ] {
        let mut args = vec!["-sS", "--cacert", "{ca}"];
        args.extend_from_slice(extra);
        args.push("{url}/denied");
        let r = via_h2(name, &nx, &args)
            .tls(TlsServerOptions::default())
            .compare_requests(false)
            .expect_failure()
            .run(OXCURL);
        assert_eq!(r.oxcurl.code(), 56, "{name}");
    }
}

#[test]
fn nghttpx_tunnel_to_an_h2_origin_multiplexes_inside() {
    // HTTP/2 to the origin inside the HTTP/2 tunnel: -Z puts the three transfers on one
    // tunnel as streams of the origin's connection, as curl does.
    let Some((_sq, nx)) = h2_proxy(ProxyAuth::None) else {
        return;
    };
    let root = oxcurl_testsupport::TempDir::new("h2-origin");
    std::fs::write(root.join("a.txt"), "alpha\n").unwrap();
    let big: Vec<u8> = (0..2_500_000u32).map(|i| (i % 253) as u8).collect();
    std::fs::write(root.join("big.bin"), &big).unwrap();
    let Some(ng) = oxcurl_testsupport::Nginx::try_start_h2(root.path()) else {
        return;
    };
    let tls = ng.tls_port().expect("tls port");
    let a = format!("https://localhost:{tls}/a.txt");
    let b = format!("https://localhost:{tls}/big.bin");
    let r = via_h2(
        "nghttpx_tunnel_to_an_h2_origin_multiplexes_inside",
        &nx,
        &["-sS", "-Z", "--cacert", "{ca}", &a, &b, &a],
    )
    .compare_requests(false)
    .compare_stdout(false) // the three bodies interleave in completion order
    .run(OXCURL);
    let out = &r.oxcurl.stdout;
    assert_eq!(out.len(), 12 + big.len());
    assert_eq!(out.windows(6).filter(|w| w == b"alpha\n").count(), 2);
    let (x, y) = ports_per_client(&nx);
    assert_eq!((x.len(), y.len()), (1, 1), "{}", nx.access_log());
    assert_eq!(ng.access_log().matches(" HTTP/2.0\" 200").count(), 6);
}
