//! Proxy options through the C ABI: tests/c/setopts.c sets options by name and performs,
//! against our library and the reference libcurl with the same servers; the output, the
//! bytes the origin and the proxies received are compared.

mod common;

use common::{compile, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use oxcurl_testsupport::process::Exec;
use oxcurl_testsupport::proxy::{ConnectProxy, HttpsProxy};
use oxcurl_testsupport::socks::{SocksMode, SocksServer};

/// Runs setopts with `args` against `lib`, with `env` added (and every proxy variable of
/// the test's own environment removed); returns stdout.
fn setopts(lib: Lib, args: &[String], env: &[(&str, &str)]) -> String {
    let exe = compile("setopts", lib);
    let mut e = Exec::new(&exe).args(args).env("LD_LIBRARY_PATH", lib.dir());
    for v in [
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
        "NO_PROXY",
        "no_proxy",
    ] {
        e = e.env_remove(v);
    }
    for (k, v) in env {
        e = e.env(k, v);
    }
    let out = e.run();
    let _ = std::fs::remove_file(&exe);
    assert_eq!(
        out.code,
        Some(0),
        "setopts against {lib:?}: {} {}",
        out.stdout_str(),
        out.stderr_str()
    );
    out.stdout_str()
}

/// Runs both libraries one after the other and asserts the same stdout; returns ours.
fn both(args: &[String], env: &[(&str, &str)]) -> String {
    let ours = setopts(Lib::Ours, args, env);
    let reference = setopts(Lib::Reference, args, env);
    assert_eq!(ours, reference, "ours vs reference");
    ours
}

fn a(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn origin() -> ScriptedServer {
    let s = ScriptedServer::start();
    s.set_handler(|req| Reply::ok(format!("origin saw {}\n", req.path())));
    s
}

/// The requests a server got from each library (ours first): equal halves.
fn halves(s: &ScriptedServer) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let reqs: Vec<Vec<u8>> = s.requests().iter().map(|r| r.raw()).collect();
    assert_eq!(reqs.len() % 2, 0, "{reqs:?}");
    let (a, b) = reqs.split_at(reqs.len() / 2);
    (a.to_vec(), b.to_vec())
}

#[test]
fn http_proxy_absolute_form_with_credentials_headers_and_port() {
    // The scripted server plays the proxy: absolute-form requests arrive there.
    let proxy = ScriptedServer::start();
    proxy.set_handler(|req| Reply::ok(format!("proxy got {}\n", req.target)));
    let port = proxy.port().to_string();
    let out = both(
        &a(&[
            "PROXY=127.0.0.1",
            &format!("PROXYPORT={port}"),
            "PROXYUSERPWD=puser:ppass",
            "PROXYHEADER=X-To-Proxy: 1",
            "HTTPHEADER=X-To-Origin: 2",
            "URL=http://origin.example/path?q",
            "perform",
            // The port of the string wins over PROXYPORT; PROXYUSERNAME/PASSWORD replace
            // the credentials; CURLHEADER_UNIFIED stops PROXYHEADER for the proxy.
            &format!("PROXY=http://127.0.0.1:{port}"),
            "PROXYPORT=1",
            "PROXYUSERNAME=other",
            "PROXYPASSWORD=secret",
            "HEADEROPT=0",
            "perform",
        ]),
        &[],
    );
    assert!(
        out.contains("proxy got http://origin.example/path?q\n\nrc=0 "),
        "{out}"
    );
    assert!(out.contains(" used_proxy=1 "), "{out}");
    let (ours, reference) = halves(&proxy);
    assert_eq!(ours, reference, "requests: ours vs reference");
    let first = String::from_utf8_lossy(&ours[0]);
    assert!(
        first.contains("Proxy-Authorization: Basic cHVzZXI6cHBhc3M=\r\n"),
        "{first}"
    );
    assert!(first.contains("X-To-Proxy: 1\r\n"), "{first}");
    let second = String::from_utf8_lossy(&ours[1]);
    assert!(!second.contains("X-To-Proxy"), "{second}");
    assert!(
        second.contains("Proxy-Authorization: Basic b3RoZXI6c2VjcmV0\r\n"),
        "{second}"
    );
}

#[test]
fn connect_tunnel_headers_separate_and_unified() {
    let s = origin();
    let proxy = ConnectProxy::start();
    let url = format!("{}/t", s.url().trim_end_matches('/'));
    let args = a(&[
        &format!("PROXY={}", proxy.host_port()),
        "HTTPPROXYTUNNEL=1",
        "PROXYHEADER=X-Connect: c",
        "HTTPHEADER=X-Origin: o",
        &format!("URL={url}"),
        "FORBID_REUSE=1",
        "perform",
        "HEADEROPT=0",
        "perform",
        "HEADEROPT=1",
        "SUPPRESS_CONNECT_HEADERS=1",
        "HEADER=1",
        "perform",
    ]);
    let out = both(&args, &[]);
    assert!(out.contains("origin saw /t\n\nrc=0 "), "{out}");
    assert!(out.contains(" connectcode=200 used_proxy=1 "), "{out}");
    // SUPPRESS_CONNECT_HEADERS keeps the proxy's response out of the HEADER output.
    assert!(!out.contains("Connection established"), "{out}");
    let heads = proxy.heads();
    assert_eq!(heads.len(), 6, "three CONNECTs each: {heads:?}");
    assert_eq!(heads[..3], heads[3..], "CONNECTs: ours vs reference");
    let h = |i: usize| String::from_utf8_lossy(&heads[i]).into_owned();
    assert!(h(0).contains("X-Connect: c\r\n") && !h(0).contains("X-Origin"));
    assert!(h(1).contains("X-Origin: o\r\n") && !h(1).contains("X-Connect"));
    let (ours, reference) = halves(&s);
    assert_eq!(ours, reference, "origin requests: ours vs reference");
    assert!(ours
        .iter()
        .all(|r| !String::from_utf8_lossy(r).contains("X-Connect")));
}

#[test]
fn socks_proxy_types_match_reference() {
    let s = origin();
    let socks = SocksServer::start(SocksMode::Relay { auth: None });
    // By address for the types that resolve locally, by name for those that send it.
    let by_ip = format!("http://127.0.0.1:{}/s", s.port());
    let by_name = format!("http://localhost:{}/s", s.port());
    let mut args = a(&["FORBID_REUSE=1"]);
    // PROXYTYPE for a string without a scheme, then schemes in the string.
    for (t, url) in [
        ("4", &by_ip),
        ("6", &by_name),
        ("5", &by_ip),
        ("7", &by_name),
    ] {
        args.extend(a(&[
            &format!("PROXY=127.0.0.1:{}", socks.port()),
            &format!("PROXYTYPE={t}"),
            &format!("URL={url}"),
            "perform",
        ]));
    }
    args.extend(a(&[
        &format!("PROXY=socks5h://127.0.0.1:{}", socks.port()),
        "PROXYTYPE=0",
        "SOCKS5_AUTH=1",
        "perform",
    ]));
    let out = both(&args, &[]);
    assert_eq!(out.matches("origin saw /s\n\nrc=0 ").count(), 5, "{out}");
    let hs = socks.handshakes();
    assert_eq!(hs.len(), 10, "{hs:?}");
    assert_eq!(hs[..5], hs[5..], "SOCKS handshakes: ours vs reference");
    // SOCKS4, SOCKS4a (name sent), SOCKS5 (address), SOCKS5 with the name (ATYP 3).
    assert_eq!(hs[0][0], 4);
    assert!(hs[1].ends_with(b"localhost\0"), "{:?}", hs[1]);
    assert_eq!(hs[2][0], 5);
}

#[test]
fn noproxy_and_environment_proxies_match_reference() {
    let s = origin();
    let proxy = ScriptedServer::start();
    proxy.set_handler(|req| Reply::ok(format!("env proxy got {}\n", req.target)));
    let url = format!("http://127.0.0.1:{}/e", s.port());
    let env_proxy = format!("http://127.0.0.1:{}", proxy.port());
    let out = both(
        &a(&[
            &format!("URL={url}"),
            "perform",
            "NOPROXY=127.0.0.1",
            "perform",
            // An empty PROXY turns the environment's off.
            "NOPROXY=NULL",
            "PROXY=",
            "perform",
        ]),
        &[("http_proxy", &env_proxy)],
    );
    assert!(out.contains(&format!("env proxy got {url}\n")), "{out}");
    assert_eq!(out.matches("origin saw /e\n").count(), 2, "{out}");
    let out = both(
        &a(&[&format!("URL={url}"), "perform"]),
        &[("http_proxy", &env_proxy), ("no_proxy", "127.0.0.1")],
    );
    assert!(out.contains("origin saw /e\n\nrc=0 "), "{out}");
    assert!(out.contains(" used_proxy=0 "), "{out}");
}

#[test]
fn https_proxy_tls_options_match_reference() {
    let pki = oxcurl_testsupport::tls::pki();
    let ca = pki.ca();
    let ca = ca.to_str().expect("utf-8");
    let s = origin();
    let proxy = HttpsProxy::start(&oxcurl_testsupport::tls::TlsServerOptions::default());
    let url = format!("http://127.0.0.1:{}/x", s.port());
    let out = both(
        &a(&[
            &format!("PROXY={}", proxy.url()),
            "HTTPPROXYTUNNEL=1",
            &format!("URL={url}"),
            // The proxy's certificate is not trusted by the default bundle: 60.
            "CAINFO=/nonexistent",
            "perform",
            &format!("PROXY_CAINFO={ca}"),
            "perform",
            "PROXY_CAINFO=/nonexistent",
            "PROXY_SSL_VERIFYPEER=0",
            "PROXY_SSL_VERIFYHOST=0",
            "perform",
        ]),
        &[],
    );
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("rc=")).collect();
    assert!(lines[0].starts_with("rc=60 "), "{out}");
    assert!(lines[1].starts_with("rc=0 "), "{out}");
    assert!(lines[2].starts_with("rc=0 "), "{out}");
    assert_eq!(out.matches("origin saw /x\n").count(), 2, "{out}");
}

#[test]
fn proxy_auth_challenge_and_available_schemes_match_reference() {
    let proxy = ScriptedServer::start();
    proxy.set_handler(|req| {
        if req.header("Proxy-Authorization").is_some() {
            Reply::ok("through\n")
        } else {
            Reply::status(
                407,
                &[
                    ("Proxy-Authenticate", "Basic realm=\"p\""),
                    ("Proxy-Authenticate", "NTLM"),
                ],
                "auth please\n",
            )
        }
    });
    let out = both(
        &a(&[
            &format!("PROXY=127.0.0.1:{}", proxy.port()),
            "URL=http://origin.example/a",
            "perform",
            "PROXYUSERPWD=u:p",
            "PROXYAUTH=1",
            "perform",
        ]),
        &[],
    );
    assert!(out.contains("auth please\n\nrc=0 "), "{out}");
    assert!(out.contains(" code=407 "), "{out}");
    assert!(out.contains(" proxyauth_avail=9 "), "{out}");
    assert!(out.contains("through\n\nrc=0 "), "{out}");
    let (ours, reference) = halves(&proxy);
    assert_eq!(ours, reference, "requests: ours vs reference");
}

#[test]
fn proxy_option_values_are_checked_as_curl_does() {
    let out = both(
        &a(&[
            "PROXYTYPE=8",
            "PROXYTYPE=-1",
            "PROXYPORT=65536",
            "PROXYPORT=-1",
            "SOCKS5_AUTH=8",
            "PROXYAUTH=0",
            "PROXY_SSLVERSION=2",
            "PROXY_SSLVERSION=3",
            "PROXY_SSLVERSION=8",
            "PROXY_SSLVERSION=458758",
            "SSLVERSION=524288",
            "HTTPAUTH=2147483648",
            "PROTOCOLS_STR=",
            "PROTOCOLS_STR=http,nope",
            "PROTOCOLS_STR=ALL",
            "REDIR_PROTOCOLS_STR=https",
            "NETRC=3",
            "TIMECONDITION=4",
            "DNS_CACHE_TIMEOUT=-2",
            "MAX_RECV_SPEED_LARGE=-1",
        ]),
        &[],
    );
    assert!(out.contains("setopt PROXYTYPE=8 -> 43\n"), "{out}");
}

#[test]
fn proxy_ssl_verify_result_matches_reference() {
    let s = origin();
    let proxy = HttpsProxy::start(&oxcurl_testsupport::tls::TlsServerOptions::default());
    both(
        &a(&[
            "verifyresult",
            &format!("PROXY={}", proxy.url()),
            "HTTPPROXYTUNNEL=1",
            &format!("URL=http://127.0.0.1:{}/v", s.port()),
            "CAINFO=/nonexistent",
            "perform",
            "PROXY_SSL_VERIFYPEER=0",
            "perform",
        ]),
        &[],
    );
}
