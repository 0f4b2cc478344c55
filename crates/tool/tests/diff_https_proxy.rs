//! Differential tests for HTTPS proxies (`-x https://`): TLS to the proxy, absolute-form
//! requests over it, CONNECT over it with TLS to the origin inside (TLS in TLS), and the
//! proxy's own TLS options. oxcurl runs with each TLS backend; the reference curl 8.14.1 is
//! OpenSSL-based. For http:// URLs the scripted TLS server plays the proxy and records the
//! decrypted request; for https:// URLs an [`HttpsProxy`] relays to the scripted origin.

use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{Case, HttpsProxy, Reply, ServerCert, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn with_cert(cert: ServerCert) -> TlsServerOptions {
    TlsServerOptions {
        cert,
        ..TlsServerOptions::default()
    }
}

/// `-v` output as both clients print it: OpenSSL's handshake trace lines and the data
/// notes go (oxcurl prints neither), certificate levels go (rustls lists only what the
/// server sent), curl's h2 offer to the origin becomes oxcurl's http/1.1 (no HTTP/2 yet),
/// digits are masked and the racy "Request completely sent off" line is dropped.
fn verbose_norm(data: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(data);
    let kept: String = text
        .split_inclusive('\n')
        .filter(|l| {
            !(l.starts_with("* TLSv1")
                || l.starts_with("} [")
                || l.starts_with("{ [")
                || l.contains("Certificate level")
                || l.contains("Request completely sent off"))
        })
        .map(|l| l.replace("curl offers h2,http/1.1", "curl offers http/1.1"))
        .collect();
    oxcurl_testsupport::diff::mask_digits(kept.as_bytes())
}

macro_rules! suite {
    ($m:ident, $backend:literal) => {
        mod $m {
            use super::*;

            const BACKEND: &str = $backend;

            /// A case comparing stderr too, with oxcurl on this backend.
            fn case(name: &str) -> Case {
                Case::new(name)
                    .compare_stderr(true)
                    .env("CURL_SSL_BACKEND", BACKEND)
            }

            /// http:// through an HTTPS proxy played by the scripted server.
            fn via_proxy(name: &str, cert: ServerCert, args: &[&str]) -> Case {
                let mut all = vec!["-sS", "-x", "https://localhost:{port}"];
                all.extend_from_slice(args);
                all.push("http://example.com/p");
                case(name)
                    .tls(with_cert(cert))
                    .args(&all)
                    .reply(Reply::ok("through the proxy\n"))
            }

            // ---- http:// over TLS to the proxy (absolute form) ---------------------------

            #[test]
            fn absolute_form_over_tls_with_proxy_cacert() {
                via_proxy(
                    "absolute_form_over_tls_with_proxy_cacert",
                    ServerCert::Good,
                    &["--proxy-cacert", "{ca}"],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_credentials_over_tls() {
                via_proxy(
                    "proxy_credentials_over_tls",
                    ServerCert::Good,
                    &["--proxy-cacert", "{ca}", "-U", "pu:pp", "-H", "X-O: 1"],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_from_env_https_proxy_variable() {
                case("proxy_from_env_https_proxy_variable")
                    .tls(TlsServerOptions::default())
                    .args(&["-sS", "--proxy-cacert", "{ca}", "http://example.com/env"])
                    .env("http_proxy", "https://localhost:{port}")
                    .reply(Reply::ok("env\n"))
                    .run(OXCURL);
            }

            #[test]
            fn untrusted_proxy_is_60() {
                via_proxy("untrusted_proxy_is_60", ServerCert::Good, &[]).run(OXCURL);
            }

            #[test]
            fn insecure_for_origin_does_not_cover_proxy() {
                via_proxy(
                    "insecure_for_origin_does_not_cover_proxy",
                    ServerCert::SelfSigned,
                    &["-k"],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_insecure_accepts_self_signed_proxy() {
                via_proxy(
                    "proxy_insecure_accepts_self_signed_proxy",
                    ServerCert::SelfSigned,
                    &["--proxy-insecure"],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_wrong_name_is_60() {
                via_proxy(
                    "proxy_wrong_name_is_60",
                    ServerCert::WrongName,
                    &["--proxy-cacert", "{ca}"],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_expired_is_60() {
                via_proxy(
                    "proxy_expired_is_60",
                    ServerCert::Expired,
                    &["--proxy-cacert", "{ca}"],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_self_signed_is_60() {
                via_proxy(
                    "proxy_self_signed_is_60",
                    ServerCert::SelfSigned,
                    &["--proxy-cacert", "{ca}"],
                )
                .run(OXCURL);
            }

            #[test]
            fn origin_cacert_does_not_cover_proxy() {
                via_proxy(
                    "origin_cacert_does_not_cover_proxy",
                    ServerCert::Good,
                    &["--cacert", "{ca}"],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_cacert_missing_file_is_77() {
                via_proxy(
                    "proxy_cacert_missing_file_is_77",
                    ServerCert::Good,
                    &["--proxy-cacert", "{tmp}/nope.pem"],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_crlfile_missing_is_82() {
                via_proxy(
                    "proxy_crlfile_missing_is_82",
                    ServerCert::Good,
                    &[
                        "--proxy-cacert",
                        "{ca}",
                        "--proxy-crlfile",
                        "{tmp}/nope.crl",
                    ],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_pinnedpubkey_match() {
                via_proxy(
                    "proxy_pinnedpubkey_match",
                    ServerCert::Good,
                    &[
                        "--proxy-cacert",
                        "{ca}",
                        "--proxy-pinnedpubkey",
                        "{pki}/server.pub.pem",
                    ],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_pinnedpubkey_mismatch_is_90() {
                via_proxy(
                    "proxy_pinnedpubkey_mismatch_is_90",
                    ServerCert::Good,
                    &[
                        "--proxy-cacert",
                        "{ca}",
                        "--proxy-pinnedpubkey",
                        "{pki}/expired.pub.pem",
                    ],
                )
                .run(OXCURL);
            }

            #[test]
            fn origin_pinnedpubkey_does_not_apply_to_proxy() {
                via_proxy(
                    "origin_pinnedpubkey_does_not_apply_to_proxy",
                    ServerCert::Good,
                    &[
                        "--proxy-cacert",
                        "{ca}",
                        "--pinnedpubkey",
                        "{pki}/expired.pub.pem",
                    ],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_ciphers_unknown_is_59() {
                via_proxy(
                    "proxy_ciphers_unknown_is_59",
                    ServerCert::Good,
                    &["--proxy-cacert", "{ca}", "--proxy-ciphers", "BOGUS"],
                )
                .run(OXCURL);
            }

            #[test]
            fn accepted_proxy_switches() {
                via_proxy(
                    "accepted_proxy_switches",
                    ServerCert::Good,
                    &[
                        "--proxy-cacert",
                        "{ca}",
                        "--proxy-tlsv1",
                        "--proxy-ssl-allow-beast",
                        "--proxy-ssl-auto-client-cert",
                        "--proxy-ca-native",
                    ],
                )
                .run(OXCURL);
            }

            #[test]
            fn proxy_client_certificate() {
                case("proxy_client_certificate")
                    .tls(TlsServerOptions {
                        client_auth: true,
                        ..TlsServerOptions::default()
                    })
                    .args(&[
                        "-sS",
                        "-x",
                        "https://localhost:{port}",
                        "--proxy-cacert",
                        "{ca}",
                        "--proxy-cert",
                        "{pki}/client.pem",
                        "--proxy-key",
                        "{pki}/client.key",
                        "--proxy-cert-type",
                        "PEM",
                        "--proxy-key-type",
                        "PEM",
                        "http://example.com/mtls",
                    ])
                    .reply(Reply::ok("client ok\n"))
                    .run(OXCURL);
            }

            #[test]
            fn verbose_proxy_handshake() {
                via_proxy(
                    "verbose_proxy_handshake",
                    ServerCert::Good,
                    &["-v", "--proxy-cacert", "{ca}"],
                )
                .normalise_with(verbose_norm)
                .run(OXCURL);
            }

            #[test]
            fn proxy_connection_is_reused_for_another_origin() {
                let r = case("proxy_connection_is_reused_for_another_origin")
                    .tls(TlsServerOptions::default())
                    .args(&[
                        "-sS",
                        "-x",
                        "https://localhost:{port}",
                        "--proxy-cacert",
                        "{ca}",
                        "http://one.example/a",
                        "http://two.example/b",
                    ])
                    .replies(vec![Reply::ok("a\n"), Reply::ok("b\n")])
                    .run(OXCURL);
                assert_eq!(r.oxcurl.connections.len(), 1);
            }

            #[test]
            fn other_proxy_tls_options_get_another_connection() {
                let r = case("other_proxy_tls_options_get_another_connection")
                    .tls(TlsServerOptions::default())
                    .args(&[
                        "-sS",
                        "-x",
                        "https://localhost:{port}",
                        "--proxy-cacert",
                        "{ca}",
                        "http://one.example/a",
                        "--next",
                        "-sS",
                        "-x",
                        "https://localhost:{port}",
                        "--proxy-insecure",
                        "http://one.example/b",
                    ])
                    .replies(vec![Reply::ok("a\n"), Reply::ok("b\n")])
                    .run(OXCURL);
                assert_eq!(r.oxcurl.connections.len(), 2);
            }

            // ---- https:// through the proxy (TLS inside TLS) -----------------------------

            fn tunnelled(
                name: &str,
                origin: ServerCert,
                proxy: &HttpsProxy,
                args: &[&str],
            ) -> Case {
                let url = proxy.url();
                let mut all = vec!["-sS", "-x", url.as_str()];
                all.extend_from_slice(args);
                all.push("https://localhost:{port}/t");
                case(name)
                    .tls(with_cert(origin))
                    .args(&all)
                    .reply(Reply::ok("inside\n"))
            }

            #[test]
            fn tls_inside_tls() {
                let proxy = HttpsProxy::start(&TlsServerOptions::default());
                tunnelled(
                    "tls_inside_tls",
                    ServerCert::Good,
                    &proxy,
                    &["--proxy-cacert", "{ca}", "--cacert", "{ca}"],
                )
                .run(OXCURL);
                let heads = proxy.heads();
                assert_eq!(heads.len(), 2, "one CONNECT per client");
                assert!(heads[1].starts_with(b"CONNECT localhost:"), "{heads:?}");
            }

            #[test]
            fn tunnel_is_reused_for_the_same_origin() {
                let proxy = HttpsProxy::start(&TlsServerOptions::default());
                let url = proxy.url();
                case("tunnel_is_reused_for_the_same_origin")
                    .tls(TlsServerOptions::default())
                    .args(&[
                        "-sS",
                        "-x",
                        url.as_str(),
                        "--proxy-cacert",
                        "{ca}",
                        "--cacert",
                        "{ca}",
                        "https://localhost:{port}/a",
                        "https://localhost:{port}/b",
                    ])
                    .replies(vec![Reply::ok("a\n"), Reply::ok("b\n")])
                    .run(OXCURL);
                assert_eq!(proxy.heads().len(), 2, "one CONNECT per client");
            }

            #[test]
            fn tls_inside_tls_verbose() {
                let proxy = HttpsProxy::start(&TlsServerOptions::default());
                tunnelled(
                    "tls_inside_tls_verbose",
                    ServerCert::Good,
                    &proxy,
                    &["-v", "--proxy-cacert", "{ca}", "--cacert", "{ca}"],
                )
                .normalise_with(verbose_norm)
                .run(OXCURL);
            }

            #[test]
            fn proxy_insecure_and_k_are_separate() {
                // The proxy is self-signed and the origin untrusted: each needs its own switch.
                let proxy = HttpsProxy::start(&with_cert(ServerCert::SelfSigned));
                tunnelled(
                    "proxy_insecure_and_k_are_separate",
                    ServerCert::SelfSigned,
                    &proxy,
                    &["--proxy-insecure", "-k"],
                )
                .run(OXCURL);
            }

            #[test]
            fn untrusted_origin_inside_tunnel_is_35() {
                // curl 8.14.1 loses OpenSSL's verification error inside the proxy session.
                let proxy = HttpsProxy::start(&TlsServerOptions::default());
                tunnelled(
                    "untrusted_origin_inside_tunnel_is_35",
                    ServerCert::Good,
                    &proxy,
                    &["--proxy-cacert", "{ca}"],
                )
                .compare_requests(false)
                .run(OXCURL);
            }

            #[test]
            fn origin_wrong_name_inside_tunnel_is_60() {
                let proxy = HttpsProxy::start(&TlsServerOptions::default());
                tunnelled(
                    "origin_wrong_name_inside_tunnel_is_60",
                    ServerCert::WrongName,
                    &proxy,
                    &["--proxy-cacert", "{ca}", "--cacert", "{ca}"],
                )
                .run(OXCURL);
            }

            #[test]
            fn origin_pin_mismatch_inside_tunnel_is_90() {
                let proxy = HttpsProxy::start(&TlsServerOptions::default());
                tunnelled(
                    "origin_pin_mismatch_inside_tunnel_is_90",
                    ServerCert::Good,
                    &proxy,
                    &[
                        "--proxy-cacert",
                        "{ca}",
                        "--cacert",
                        "{ca}",
                        "--pinnedpubkey",
                        "{pki}/expired.pub.pem",
                    ],
                )
                .run(OXCURL);
            }

            // ---- --proxy-http2 with a proxy that speaks only HTTP/1.1 ---------------------

            #[test]
            fn proxy_http2_falls_back_to_connect_over_http1() {
                // h2 is offered to the proxy, which picks http/1.1: plain CONNECT.
                let proxy = HttpsProxy::start(&TlsServerOptions::default());
                tunnelled(
                    "proxy_http2_falls_back_to_connect_over_http1",
                    ServerCert::Good,
                    &proxy,
                    &[
                        "-v",
                        "--proxy-http2",
                        "--proxy-cacert",
                        "{ca}",
                        "--cacert",
                        "{ca}",
                    ],
                )
                .normalise_with(verbose_norm)
                .run(OXCURL);
                let heads = proxy.heads();
                assert_eq!(heads.len(), 2, "one CONNECT per client");
                assert_eq!(heads[0], heads[1]);
                assert!(heads[1].starts_with(b"CONNECT localhost:"), "{heads:?}");
            }

            #[test]
            fn proxy_http2_absolute_form_over_http1() {
                let r = via_proxy(
                    "proxy_http2_absolute_form_over_http1",
                    ServerCert::Good,
                    &["-v", "--proxy-http2", "--proxy-cacert", "{ca}"],
                )
                .normalise_with(verbose_norm)
                .run(OXCURL);
                // ALPN is offered to the proxy at all only with --proxy-http2 (the offer is
                // normalised away, digits masked).
                let err = r.oxcurl.stderr_str();
                assert!(err.contains("ALPN: server accepted http/N.N"), "{err}");
            }

            #[test]
            fn untrusted_proxy_before_tunnel_is_60() {
                let proxy = HttpsProxy::start(&with_cert(ServerCert::Expired));
                tunnelled(
                    "untrusted_proxy_before_tunnel_is_60",
                    ServerCert::Good,
                    &proxy,
                    &["--proxy-cacert", "{ca}", "--cacert", "{ca}"],
                )
                .expect_failure()
                .run(OXCURL);
                assert!(
                    proxy.heads().is_empty(),
                    "no CONNECT after a failed handshake"
                );
            }
        }
    };
}

suite!(rustls, "rustls");
suite!(openssl, "openssl");

/// A proxy that closes its TLS connection instead of answering CONNECT: 56 `Proxy CONNECT
/// aborted` on both backends.
fn proxy_closes_on_connect(name: &str, backend: &str) {
    let r = Case::new(name)
        .compare_stderr(true)
        .env("CURL_SSL_BACKEND", backend)
        .tls(TlsServerOptions::default())
        .args(&[
            "-sS",
            "-p",
            "-x",
            "https://localhost:{port}",
            "--proxy-cacert",
            "{ca}",
            "http://example.com/",
        ])
        .reply(Reply::new().close())
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 56, "{}", r.oxcurl.stderr_str());
}

#[test]
fn proxy_closing_on_connect_is_56_openssl() {
    proxy_closes_on_connect("proxy_closing_on_connect_is_56_openssl", "openssl");
}

#[test]
fn proxy_closing_on_connect_is_56_rustls() {
    proxy_closes_on_connect("proxy_closing_on_connect_is_56_rustls", "rustls");
}

#[test]
fn version_lists_https_proxy_feature() {
    let out = oxcurl_testsupport::Exec::new(under_test(OXCURL))
        .arg("-V")
        .run();
    let text = String::from_utf8_lossy(&out.stdout);
    let features = text
        .lines()
        .find(|l| l.starts_with("Features: "))
        .unwrap_or_else(|| panic!("no Features line in {text}"));
    assert!(
        features.contains(" HSTS HTTP2 HTTPS-proxy IDN IPv6 "),
        "HTTPS-proxy in curl's place: {features}"
    );
}

#[test]
fn socks_preproxy_then_https_proxy() {
    let socks =
        oxcurl_testsupport::SocksServer::start(oxcurl_testsupport::SocksMode::Relay { auth: None });
    let pre = format!("socks5h://127.0.0.1:{}", socks.port());
    Case::new("socks_preproxy_then_https_proxy")
        .compare_stderr(true)
        .tls(TlsServerOptions::default())
        .args(&[
            "-sS",
            "--preproxy",
            &pre,
            "-x",
            "https://localhost:{port}",
            "--proxy-cacert",
            "{ca}",
            "http://example.com/pre",
        ])
        .reply(Reply::ok("pre\n"))
        .run(OXCURL);
    assert_eq!(
        socks.handshakes().len(),
        2,
        "one SOCKS handshake per client"
    );
}
