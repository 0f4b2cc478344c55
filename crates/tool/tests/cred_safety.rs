//! Credential safety: where `-u`, `Authorization:`/`Cookie:` headers, proxy credentials,
//! `.netrc` logins and cookies may go, as curl 8.14.1 decides, asserted on the exact bytes each
//! server received (and compared with the reference curl on the same servers).
//!
//! Two servers play two origins: the case's own server (first origin) and a second
//! `ScriptedServer` the first one redirects to. The second server sees the reference curl's
//! requests first, then oxcurl's, so `requests()[0]` and `[1]` are the two clients'.
//!
//! Related cases elsewhere: diff_redirect.rs (`follow_other_host_*`), diff_proxy.rs
//! (`proxy_credentials_never_reach_origin_through_tunnel`), diff_tls.rs (`hsts_*`).

use oxcurl_testsupport::{Case, ConnectProxy, Reply, Request, ScriptedServer};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// "user:secret" in Basic.
const BASIC: &str = "dXNlcjpzZWNyZXQ=";

fn head(r: &Request) -> String {
    String::from_utf8_lossy(&r.head).into_owned()
}

/// The second origin's requests from the reference curl and from oxcurl: equal, and each
/// checked by `check`.
fn second_origin(b: &ScriptedServer, check: impl Fn(&str)) {
    b.wait_idle(std::time::Duration::from_secs(3));
    let reqs = b.requests();
    assert_eq!(reqs.len(), 2, "one request per client at the second origin");
    let (r, o) = (head(&reqs[0]), head(&reqs[1]));
    assert_eq!(
        r, o,
        "reference curl and oxcurl sent the second origin different heads"
    );
    check(&o);
}

fn redirect_to(b: &ScriptedServer, path: &str) -> impl Fn(&ScriptedServer) + 'static {
    let target = format!("{}{path}", b.url());
    move |s: &ScriptedServer| s.route("/start", Reply::redirect(302, &target))
}

fn second() -> ScriptedServer {
    ScriptedServer::with_replies(vec![Reply::ok("second origin\n")])
}

// ---- -u across redirects ----------------------------------------------------------------

#[test]
fn user_not_sent_to_other_port_on_same_host() {
    let b = second();
    let r = Case::new("user_not_sent_to_other_port_on_same_host")
        .args(&["-s", "-L", "-u", "user:secret", "{url}/start"])
        .server(redirect_to(&b, "/final"))
        .run(OXCURL);
    let first = head(&r.oxcurl.requests[0]);
    assert!(
        first.contains(&format!("Authorization: Basic {BASIC}\r\n")),
        "{first}"
    );
    second_origin(&b, |h| assert!(!h.contains("Authorization"), "{h}"));
}

#[test]
fn user_sent_to_other_port_with_location_trusted() {
    let b = second();
    Case::new("user_sent_to_other_port_with_location_trusted")
        .args(&[
            "-s",
            "--location-trusted",
            "-u",
            "user:secret",
            "{url}/start",
        ])
        .server(redirect_to(&b, "/final"))
        .run(OXCURL);
    second_origin(&b, |h| {
        assert!(
            h.contains(&format!("Authorization: Basic {BASIC}\r\n")),
            "{h}"
        )
    });
}

#[test]
fn user_in_url_not_sent_to_other_port() {
    let b = second();
    Case::new("user_in_url_not_sent_to_other_port")
        .args(&["-s", "-L", "http://user:secret@{host}/start"])
        .server(redirect_to(&b, "/final"))
        .run(OXCURL);
    second_origin(&b, |h| assert!(!h.contains("Authorization"), "{h}"));
}

#[test]
fn user_not_sent_after_scheme_and_port_change() {
    // http://localhost:PORT -> https://localhost/ (port 443, connected to the TLS server).
    let tls = ScriptedServer::start_tls(&oxcurl_testsupport::TlsServerOptions::default());
    tls.set_replies(vec![Reply::ok("over tls\n")]);
    let connect_to = format!("localhost:443:127.0.0.1:{}", tls.port());
    Case::new("user_not_sent_after_scheme_and_port_change")
        .args(&["-s", "-L", "-u", "user:secret", "--cacert", "{ca}"])
        .args(&[
            "--connect-to",
            &connect_to,
            "--connect-to",
            "localhost::127.0.0.1:",
        ])
        .arg("http://localhost:{port}/start")
        .server(|s| s.route("/start", Reply::redirect(302, "https://localhost/final")))
        .run(OXCURL);
    second_origin(&tls, |h| {
        assert!(
            h.starts_with("GET /final HTTP/1.1\r\nHost: localhost\r\n"),
            "{h}"
        );
        assert!(!h.contains("Authorization"), "{h}");
    });
}

#[test]
fn custom_authorization_header_not_sent_to_other_host() {
    let b = second();
    let r = Case::new("custom_authorization_header_not_sent_to_other_host")
        .args(&[
            "-s",
            "-L",
            "-H",
            "Authorization: Bearer tok",
            "-H",
            "X-Keep: 1",
        ])
        .arg("{url}/start")
        .server(redirect_to(&b, "/final"))
        .run(OXCURL);
    assert!(head(&r.oxcurl.requests[0]).contains("Authorization: Bearer tok\r\n"));
    second_origin(&b, |h| {
        assert!(!h.contains("Authorization"), "{h}");
        assert!(h.contains("X-Keep: 1\r\n"), "{h}");
    });
}

#[test]
fn custom_cookie_header_sent_to_other_host_with_location_trusted() {
    let b = second();
    Case::new("custom_cookie_header_sent_to_other_host_with_location_trusted")
        .args(&[
            "-s",
            "--location-trusted",
            "-H",
            "Cookie: c=1",
            "{url}/start",
        ])
        .server(redirect_to(&b, "/final"))
        .run(OXCURL);
    second_origin(&b, |h| assert!(h.contains("Cookie: c=1\r\n"), "{h}"));
}

#[test]
fn jar_cookie_not_sent_to_other_host() {
    let b = second();
    Case::new("jar_cookie_not_sent_to_other_host")
        .args(&["-s", "-L", "-b", "{tmp}/jar", "{url}/start"])
        .file(
            "jar",
            "127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tfirst-origin-only\n",
        )
        .server(redirect_to(&b, "/final"))
        .run(OXCURL);
    // The second origin is 127.0.0.1 too: cookies ignore ports, so it gets the cookie, as in
    // curl. What must not leak is anything set for another host name.
    second_origin(&b, |h| {
        assert!(h.contains("Cookie: sid=first-origin-only\r\n"), "{h}")
    });
}

#[test]
fn jar_cookie_for_other_name_not_sent() {
    let b = second();
    let resolve = format!("b.test:{}:127.0.0.1", b.port());
    let target = format!("http://b.test:{}/final", b.port());
    Case::new("jar_cookie_for_other_name_not_sent")
        .args(&[
            "-s",
            "-L",
            "-b",
            "{tmp}/jar",
            "--resolve",
            "a.test:{port}:127.0.0.1",
        ])
        .args(&["--resolve", &resolve, "http://a.test:{port}/start"])
        .file("jar", "a.test\tFALSE\t/\tFALSE\t0\tsid\ta-only\n")
        .server(move |s| s.route("/start", Reply::redirect(302, &target)))
        .run(OXCURL);
    second_origin(&b, |h| assert!(!h.contains("Cookie"), "{h}"));
}

// ---- .netrc -----------------------------------------------------------------------------

#[test]
fn netrc_login_only_for_its_host() {
    let b = second();
    let resolve = format!("b.test:{}:127.0.0.1", b.port());
    let target = format!("http://b.test:{}/final", b.port());
    let r = Case::new("netrc_login_only_for_its_host")
        .args(&["-s", "-L", "--netrc-file", "{tmp}/netrc"])
        .args(&[
            "--resolve",
            "a.test:{port}:127.0.0.1",
            "--resolve",
            &resolve,
        ])
        .arg("http://a.test:{port}/start")
        .file("netrc", "machine a.test login user password secret\n")
        .server(move |s| s.route("/start", Reply::redirect(302, &target)))
        .run(OXCURL);
    let first = head(&r.oxcurl.requests[0]);
    assert!(
        first.contains(&format!("Authorization: Basic {BASIC}\r\n")),
        "{first}"
    );
    second_origin(&b, |h| assert!(!h.contains("Authorization"), "{h}"));
}

#[test]
fn netrc_login_of_second_host_used_there() {
    let b = second();
    let resolve = format!("b.test:{}:127.0.0.1", b.port());
    let target = format!("http://b.test:{}/final", b.port());
    Case::new("netrc_login_of_second_host_used_there")
        .args(&["-s", "-L", "--netrc-file", "{tmp}/netrc"])
        .args(&[
            "--resolve",
            "a.test:{port}:127.0.0.1",
            "--resolve",
            &resolve,
        ])
        .arg("http://a.test:{port}/start")
        .file(
            "netrc",
            "machine a.test login user password secret\nmachine b.test login bee password bzz\n",
        )
        .server(move |s| s.route("/start", Reply::redirect(302, &target)))
        .run(OXCURL);
    // Whatever curl sends b.test, it is never a.test's password.
    second_origin(&b, |h| assert!(!h.contains(BASIC), "{h}"));
}

// ---- proxies ----------------------------------------------------------------------------

#[test]
fn proxy_and_origin_credentials_in_absolute_form() {
    // Without a tunnel the proxy is the request's first reader: it gets both, by design.
    let r = Case::new("proxy_and_origin_credentials_in_absolute_form")
        .args(&["-s", "-x", "http://pu:pp@{host}", "-u", "user:secret"])
        .arg("http://origin.test/")
        .reply(Reply::ok("x"))
        .run(OXCURL);
    let h = head(&r.oxcurl.requests[0]);
    assert!(h.starts_with("GET http://origin.test/ HTTP/1.1\r\n"), "{h}");
    assert!(h.contains("Proxy-Authorization: Basic cHU6cHA=\r\n"), "{h}");
    assert!(
        h.contains(&format!("\r\nAuthorization: Basic {BASIC}\r\n")),
        "{h}"
    );
}

#[test]
fn proxy_credentials_not_sent_to_origin_after_redirect_around_proxy() {
    // The first origin goes through the proxy, the redirect target is excluded by --noproxy:
    // it must see neither the proxy's nor (other port) the origin's credentials.
    let b = second();
    let target = format!("http://localhost:{}/final", b.port());
    Case::new("proxy_credentials_not_sent_to_origin_after_redirect_around_proxy")
        .args(&[
            "-s",
            "-L",
            "-x",
            "http://pu:pp@{host}",
            "--noproxy",
            "localhost",
        ])
        .args(&["-u", "user:secret", "http://origin.test/start"])
        .server(move |s| s.route("http://origin.test/start", Reply::redirect(302, &target)))
        .run(OXCURL);
    second_origin(&b, |h| {
        assert!(!h.contains("Proxy-Authorization"), "{h}");
        assert!(!h.contains("Authorization"), "{h}");
    });
}

#[test]
fn origin_credentials_not_in_connect_request() {
    let proxy = ConnectProxy::start();
    let tls = ScriptedServer::start_tls(&oxcurl_testsupport::TlsServerOptions::default());
    tls.set_replies(vec![Reply::ok("tunnelled\n")]);
    let proxy_url = format!("http://pu:pp@{}", proxy.host_port());
    let url = format!("https://localhost:{}/", tls.port());
    Case::new("origin_credentials_not_in_connect_request")
        .args(&[
            "-s",
            "--cacert",
            "{ca}",
            "-x",
            &proxy_url,
            "-u",
            "user:secret",
            &url,
        ])
        .run(OXCURL);
    let heads = proxy.heads();
    assert_eq!(heads.len(), 2, "one CONNECT per client");
    for h in &heads {
        let h = String::from_utf8_lossy(h);
        assert!(h.contains("Proxy-Authorization: Basic cHU6cHA=\r\n"), "{h}");
        assert!(!h.contains(BASIC), "{h}");
    }
    second_origin(&tls, |h| {
        assert!(
            h.contains(&format!("Authorization: Basic {BASIC}\r\n")),
            "{h}"
        );
        assert!(!h.contains("cHU6cHA="), "{h}");
    });
}

// ---- HSTS -------------------------------------------------------------------------------

#[test]
fn hsts_upgrade_happens_before_any_plaintext() {
    // The server speaks plain HTTP: a client that sent the request before upgrading would
    // leak it here. Both must open with a TLS ClientHello (and then fail the handshake).
    let r = Case::new("hsts_upgrade_happens_before_any_plaintext")
        .args(&[
            "-s",
            "-u",
            "user:secret",
            "-H",
            "Cookie: c=1",
            "--hsts",
            "{tmp}/hsts",
        ])
        .args(&["--connect-to", "hsts.test:443:{host}", "http://hsts.test/"])
        .file("hsts", "hsts.test \"unlimited\"\n")
        .server(|s| {
            // Record the first flight, then hang up: the handshake fails.
            s.set_raw_handler(|mut conn| {
                let _ = conn
                    .stream()
                    .set_read_timeout(Some(std::time::Duration::from_millis(500)));
                let _ = std::io::Read::read(&mut conn, &mut [0u8; 4096]);
            })
        })
        .compare_requests(false)
        .compare_stderr(true)
        .run(OXCURL);
    for run in [&r.reference, &r.oxcurl] {
        assert!(
            !run.connections.is_empty(),
            "{}: no connection",
            run.program.display()
        );
        for c in &run.connections {
            assert_eq!(
                c.first(),
                Some(&0x16),
                "{}: not a TLS record",
                run.program.display()
            );
            let text = String::from_utf8_lossy(c);
            assert!(!text.contains("GET "), "{text}");
            assert!(!text.contains(BASIC) && !text.contains("c=1"), "{text}");
        }
    }
}

#[test]
fn tunnel_goes_to_connect_to_destination() {
    // curl asks the proxy for the --connect-to destination, and the origin's credentials
    // stay out of the CONNECT request.
    let r = Case::new("tunnel_goes_to_connect_to_destination")
        .args(&["-s", "-x", "{host}", "-u", "user:secret"])
        .args(&[
            "--connect-to",
            "origin.test:443:127.0.0.1:4444",
            "https://origin.test/",
        ])
        .reply(Reply::status(403, &[], ""))
        .compare_stderr(true)
        .run(OXCURL);
    let h = head(&r.oxcurl.requests[0]);
    assert!(h.starts_with("CONNECT 127.0.0.1:4444 HTTP/1.1\r\n"), "{h}");
    assert!(!h.contains(BASIC), "{h}");
}
