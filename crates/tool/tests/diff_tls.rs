//! Differential tests for HTTPS: oxcurl (rustls) and the reference curl 8.14.1 (OpenSSL)
//! against the same scripted TLS server, comparing the decrypted request bytes, stdout, the
//! exit code, and stderr where the message does not depend on the TLS library.

use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{pki, Case, Exec, Reply, ScriptedServer, ServerCert, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

// ---- HSTS ------------------------------------------------------------------------------

fn hsts_case(name: &str, sts: Option<&str>, args: &[&str]) -> Case {
    let reply = match sts {
        Some(v) => Reply::status(200, &[("Strict-Transport-Security", v)], "hsts\n"),
        None => Reply::ok("hsts\n"),
    };
    Case::new(name)
        .tls(TlsServerOptions::default())
        .args(args)
        .reply(reply)
        // Expiry times depend on the clock.
        .normalise_with(oxcurl_testsupport::diff::mask_digits)
}

#[test]
fn hsts_header_is_saved() {
    hsts_case(
        "hsts_header_is_saved",
        Some("max-age=31536000; includeSubDomains"),
        &[
            "-s",
            "--cacert",
            "{ca}",
            "--hsts",
            "{tmp}/hsts.txt",
            "https://localhost:{port}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn hsts_quoted_max_age_without_subdomains() {
    hsts_case(
        "hsts_quoted_max_age_without_subdomains",
        Some("max-age=\"1000\"; preload"),
        &[
            "-s",
            "--cacert",
            "{ca}",
            "--hsts",
            "{tmp}/hsts.txt",
            "https://localhost:{port}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn hsts_upgrades_http_url() {
    hsts_case(
        "hsts_upgrades_http_url",
        None,
        &[
            "-s",
            "--cacert",
            "{ca}",
            "--hsts",
            "{tmp}/hsts.txt",
            "http://localhost:{port}/up",
        ],
    )
    .file("hsts.txt", "localhost \"unlimited\"\n")
    .run(OXCURL);
}

#[test]
fn hsts_upgrades_subdomain_with_resolve() {
    hsts_case(
        "hsts_upgrades_subdomain_with_resolve",
        None,
        &[
            "-s",
            "-k",
            "--hsts",
            "{tmp}/hsts.txt",
            "--resolve",
            "www.hsts.test:{port}:127.0.0.1",
            "http://www.hsts.test:{port}/sub",
        ],
    )
    .file(
        "hsts.txt",
        "# comment\n.hsts.test \"20991231 23:59:59\"\nexpired.test \"20200101 00:00:00\"\n",
    )
    .run(OXCURL);
}

#[test]
fn hsts_max_age_zero_removes_entry() {
    hsts_case(
        "hsts_max_age_zero_removes_entry",
        Some("max-age=0"),
        &[
            "-s",
            "--cacert",
            "{ca}",
            "--hsts",
            "{tmp}/hsts.txt",
            "https://localhost:{port}/",
        ],
    )
    .file(
        "hsts.txt",
        "localhost \"20991231 23:59:59\"\nother.test \"unlimited\"\n",
    )
    .run(OXCURL);
}

#[test]
fn hsts_ignores_ip_hosts() {
    hsts_case(
        "hsts_ignores_ip_hosts",
        Some("max-age=100"),
        &[
            "-s",
            "--cacert",
            "{ca}",
            "--hsts",
            "{tmp}/hsts.txt",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn hsts_ignores_header_over_plain_http() {
    Case::new("hsts_ignores_header_over_plain_http")
        .args(&["-s", "--hsts", "{tmp}/hsts.txt", "http://localhost:{port}/"])
        .reply(Reply::status(
            200,
            &[("Strict-Transport-Security", "max-age=100")],
            "plain\n",
        ))
        .run(OXCURL);
}

#[test]
fn hsts_malformed_headers_ignored() {
    hsts_case(
        "hsts_malformed_headers_ignored",
        Some("max-age=10; max-age=20"),
        &[
            "-s",
            "--cacert",
            "{ca}",
            "--hsts",
            "{tmp}/hsts.txt",
            "https://localhost:{port}/",
        ],
    )
    .run(OXCURL);
}

/// The lines of `-v` output (`stderr`) that `keep` picks.
fn lines_where(stderr: &[u8], keep: impl Fn(&str) -> bool) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| keep(l))
        .map(str::to_string)
        .collect()
}

macro_rules! suite {
    ($module:ident, $backend:literal) => {
        mod $module {
            use super::*;

            /// The `CURL_SSL_BACKEND` oxcurl runs with (the reference curl has only OpenSSL).
            const BACKEND: &str = $backend;

        fn tls(cert: ServerCert) -> TlsServerOptions {
            TlsServerOptions {
                cert,
                ..TlsServerOptions::default()
            }
        }

        fn case(name: &str, args: &[&str]) -> Case {
            Case::new(name)
                .env("CURL_SSL_BACKEND", BACKEND)
                .tls(TlsServerOptions::default())
                .args(args)
                .reply(Reply::ok("hello over tls\n"))
        }

        // ---- the verify result ---------------------------------------------------------------

        /// `%{ssl_verify_result}` is OpenSSL's verify code for the server's chain, as curl
        /// reports it: 0 when it verified, the code when it did not (exit 60), and with -k,
        /// where curl loads no CA, the code of a chain without a trusted root.
        #[test]
        fn verify_result_for_each_certificate() {
            for cert in [
                ServerCert::Good,
                ServerCert::Chain,
                ServerCert::Expired,
                ServerCert::NotYetValid,
                ServerCert::WrongName,
                ServerCert::SelfSigned,
            ] {
                let w = "%{ssl_verify_result} %{exitcode}\n";
                for (how, opts) in [("k", &["-sk"][..]), ("ca", &["-s", "--cacert", "{ca}"][..])] {
                    Case::new(&format!("verify_result_{cert:?}_{how}"))
                        .env("CURL_SSL_BACKEND", BACKEND)
                        .tls(tls(cert))
                        .args(opts)
                        .args(&["-w", w, "-o", "/dev/null", "{url}/v"])
                        .reply(Reply::ok("v\n"))
                        .run(OXCURL);
                }
            }
        }

        /// `-kv`: curl notes the chain's result and that it goes on anyway.
        #[test]
        fn insecure_verbose_notes_the_verify_result() {
            for cert in [ServerCert::Good, ServerCert::SelfSigned, ServerCert::Chain] {
                let r = Case::new(&format!("insecure_verbose_verify_note_{cert:?}"))
                    .env("CURL_SSL_BACKEND", BACKEND)
                    .tls(tls(cert))
                    .args(&["-skv", "-o", "/dev/null", "{url}/v"])
                    .reply(Reply::ok("v\n"))
                    .run(OXCURL);
                let note = |e: &[u8]| lines_where(e, |l| l.contains("SSL certificate verify"));
                let want = note(&r.reference.stderr);
                assert_eq!(want.len(), 1, "{want:?}");
                assert_eq!(note(&r.oxcurl.stderr), want);
            }
        }

        /// `--tls13-ciphers`, `--ciphers` (TLS 1.2) and `--curves` choose what is negotiated:
        /// the summary line (`SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256 /
        /// prime256v1 / ...`) names the one asked for, as curl's does.
        #[test]
        fn chosen_suite_and_group_are_negotiated() {
            for (name, server12, opts, want) in [
                (
                    "tls13_aes128",
                    false,
                    &["--tls13-ciphers", "TLS_AES_128_GCM_SHA256"][..],
                    "TLS_AES_128_GCM_SHA256",
                ),
                (
                    "tls13_chacha",
                    false,
                    &["--tls13-ciphers", "TLS_CHACHA20_POLY1305_SHA256"][..],
                    "TLS_CHACHA20_POLY1305_SHA256",
                ),
                (
                    "tls12_cipher",
                    true,
                    &["--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256"][..],
                    "ECDHE-ECDSA-AES128-GCM-SHA256",
                ),
                ("curve_p256", false, &["--curves", "P-256"][..], "prime256v1"),
                ("curve_x25519", false, &["--curves", "X25519"][..], "X25519"),
            ] {
                let r = Case::new(&format!("chosen_suite_{name}"))
                    .env("CURL_SSL_BACKEND", BACKEND)
                    .tls(TlsServerOptions {
                        tls12_only: server12,
                        ..TlsServerOptions::default()
                    })
                    .args(&["-sv", "--cacert", "{ca}", "-o", "/dev/null"])
                    .args(opts)
                    .arg("{url}/c")
                    .reply(Reply::ok("c\n"))
                    .run(OXCURL);
                let summary = |e: &[u8]| lines_where(e, |l| l.starts_with("* SSL connection using"));
                let theirs = summary(&r.reference.stderr);
                assert_eq!(theirs.len(), 1, "{name}: {theirs:?}");
                assert!(theirs[0].contains(want), "{name}: {theirs:?}");
                assert_eq!(summary(&r.oxcurl.stderr), theirs, "{name}");
            }
        }

        // ---- verification succeeds ------------------------------------------------------------
        // ---- verification succeeds ------------------------------------------------------------

        #[test]
        fn get_with_cacert() {
            case("get_with_cacert", &["-s", "--cacert", "{ca}", "{url}/path"]).run(OXCURL);
        }

        #[test]
        fn get_with_capath_style_cacert_and_headers() {
            case(
                "get_with_capath_style_cacert_and_headers",
                &["-s", "-i", "--cacert", "{ca}", "-H", "X-Test: 1", "{url}/h"],
            )
            .run(OXCURL);
        }

        #[test]
        fn chain_through_intermediate() {
            case(
                "chain_through_intermediate",
                &["-s", "--cacert", "{ca}", "{url}/chain"],
            )
            .tls(tls(ServerCert::Chain))
            .run(OXCURL);
        }

        #[test]
        fn localhost_name_matches() {
            case(
                "localhost_name_matches",
                &["-s", "--cacert", "{ca}", "https://localhost:{port}/name"],
            )
            .run(OXCURL);
        }

        #[test]
        fn post_over_tls() {
            case(
                "post_over_tls",
                &["-s", "--cacert", "{ca}", "-d", "a=1&b=2", "{url}/post"],
            )
            .run(OXCURL);
        }

        #[test]
        fn upload_over_tls() {
            let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
            case(
                "upload_over_tls",
                &["-s", "--cacert", "{ca}", "-T", "{tmp}/up.bin", "{url}/up"],
            )
            .file("up.bin", data)
            .run(OXCURL);
        }

        #[test]
        fn chunked_upload_from_stdin_over_tls() {
            case(
                "chunked_upload_from_stdin_over_tls",
                &["-s", "--cacert", "{ca}", "-T", "-", "{url}/stdin"],
            )
            .stdin(b"from stdin\n".repeat(1000))
            .run(OXCURL);
        }

        #[test]
        fn big_download_over_tls() {
            Case::new("big_download_over_tls")
                .env("CURL_SSL_BACKEND", BACKEND)
                .tls(TlsServerOptions::default())
                .args(&["-s", "--cacert", "{ca}", "{url}/big"])
                .reply(Reply::big(3 * 1024 * 1024 + 17))
                .run(OXCURL);
        }

        #[test]
        fn chunked_response_over_tls() {
            Case::new("chunked_response_over_tls")
                .env("CURL_SSL_BACKEND", BACKEND)
                .tls(TlsServerOptions::default())
                .args(&["-s", "--cacert", "{ca}", "{url}/c"])
                .reply(Reply::chunked(&["one ", "two ", "three\n"]))
                .run(OXCURL);
        }

        #[test]
        fn two_urls_reuse_the_tls_connection() {
            case(
                "two_urls_reuse_the_tls_connection",
                &["-s", "--cacert", "{ca}", "{url}/1", "{url}/2"],
            )
            .run(OXCURL);
        }

        #[test]
        fn redirect_followed_over_tls() {
            Case::new("redirect_followed_over_tls")
                .env("CURL_SSL_BACKEND", BACKEND)
                .tls(TlsServerOptions::default())
                .args(&["-sL", "--cacert", "{ca}", "{url}/from"])
                .replies(vec![Reply::redirect(302, "/to"), Reply::ok("arrived\n")])
                .run(OXCURL);
        }

        #[test]
        fn write_out_scheme_and_code() {
            case(
                "write_out_scheme_and_code",
                &[
                    "-s",
                    "-o",
                    "/dev/null",
                    "--cacert",
                    "{ca}",
                    "-w",
                    "%{http_code} %{scheme} %{ssl_verify_result}\\n",
                    "{url}/w",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn no_alpn_still_works() {
            case(
                "no_alpn_still_works",
                &["-s", "--no-alpn", "--cacert", "{ca}", "{url}/a"],
            )
            .run(OXCURL);
        }

        #[test]
        fn tls12_only_server() {
            case("tls12_only_server", &["-s", "--cacert", "{ca}", "{url}/12"])
                .tls(TlsServerOptions {
                    tls12_only: true,
                    ..TlsServerOptions::default()
                })
                .run(OXCURL);
        }

        #[test]
        fn tls_max_1_2() {
            case(
                "tls_max_1_2",
                &["-s", "--tls-max", "1.2", "--cacert", "{ca}", "{url}/m"],
            )
            .run(OXCURL);
        }

        #[test]
        fn tlsv1_2_minimum() {
            case(
                "tlsv1_2_minimum",
                &["-s", "--tlsv1.2", "--cacert", "{ca}", "{url}/m"],
            )
            .run(OXCURL);
        }

        #[test]
        fn ignored_tls_switches_are_accepted() {
            case(
                "ignored_tls_switches_are_accepted",
                &[
                    "-s",
                    "--false-start",
                    "--ssl-no-revoke",
                    "--no-sessionid",
                    "--cacert",
                    "{ca}",
                    "{url}/x",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn sslv2_and_sslv3_warn() {
            case(
                "sslv2_and_sslv3_warn",
                &["-2", "-3", "-s", "--cacert", "{ca}", "{url}/x"],
            )
            .compare_stderr(true)
            .run(OXCURL);
        }

        #[test]
        fn client_certificate_accepted() {
            case(
                "client_certificate_accepted",
                &[
                    "-s",
                    "--cacert",
                    "{ca}",
                    "--cert",
                    "{pki}/client.pem",
                    "--key",
                    "{pki}/client.key",
                    "{url}/mtls",
                ],
            )
            .tls(TlsServerOptions {
                client_auth: true,
                ..TlsServerOptions::default()
            })
            .run(OXCURL);
        }

        #[test]
        fn pinned_public_key_file_matches() {
            case(
                "pinned_public_key_file_matches",
                &[
                    "-s",
                    "--cacert",
                    "{ca}",
                    "--pinnedpubkey",
                    "{pki}/server.pub.pem",
                    "{url}/pin",
                ],
            )
            .run(OXCURL);
        }

        // ---- verification fails ---------------------------------------------------------------

        fn failing(name: &str, cert: ServerCert, args: &[&str]) -> Case {
            case(name, args).tls(tls(cert)).compare_stderr(true)
        }

        #[test]
        fn unknown_ca_is_60() {
            failing("unknown_ca_is_60", ServerCert::Good, &["-sS", "{url}/x"]).run(OXCURL);
        }

        #[test]
        fn unknown_ca_message_without_show_error() {
            failing(
                "unknown_ca_message_without_show_error",
                ServerCert::Good,
                &["--no-progress-meter", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn other_ca_is_60() {
            failing(
                "other_ca_is_60",
                ServerCert::Good,
                &["-sS", "--cacert", "{pki}/other-ca.pem", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn expired_is_60() {
            failing(
                "expired_is_60",
                ServerCert::Expired,
                &["-sS", "--cacert", "{ca}", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn not_yet_valid_is_60() {
            failing(
                "not_yet_valid_is_60",
                ServerCert::NotYetValid,
                &["-sS", "--cacert", "{ca}", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn self_signed_is_60() {
            failing(
                "self_signed_is_60",
                ServerCert::SelfSigned,
                &["-sS", "--cacert", "{ca}", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn wrong_name_for_ip_is_60() {
            failing(
                "wrong_name_for_ip_is_60",
                ServerCert::WrongName,
                &["-sS", "--cacert", "{ca}", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn wrong_name_for_host_is_60() {
            failing(
                "wrong_name_for_host_is_60",
                ServerCert::Good,
                &[
                    "-sS",
                    "--cacert",
                    "{ca}",
                    "--resolve",
                    "other.test:{port}:127.0.0.1",
                    "https://other.test:{port}/x",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn insecure_skips_verification() {
            case("insecure_skips_verification", &["-sk", "{url}/k"])
                .tls(tls(ServerCert::SelfSigned))
                .run(OXCURL);
        }

        #[test]
        fn insecure_skips_name_check() {
            case(
                "insecure_skips_name_check",
                &["-s", "--insecure", "{url}/k"],
            )
            .tls(tls(ServerCert::WrongName))
            .run(OXCURL);
        }

        #[test]
        fn insecure_accepts_expired() {
            case("insecure_accepts_expired", &["-sk", "{url}/k"])
                .tls(tls(ServerCert::Expired))
                .run(OXCURL);
        }

        #[test]
        fn crlfile_with_revoked_server_is_60() {
            failing(
                "crlfile_with_revoked_server_is_60",
                ServerCert::Revoked,
                &[
                    "-sS",
                    "--cacert",
                    "{ca}",
                    "--crlfile",
                    "{pki}/ca.crl",
                    "{url}/x",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn crlfile_with_good_server() {
            case(
                "crlfile_with_good_server",
                &[
                    "-s",
                    "--cacert",
                    "{ca}",
                    "--crlfile",
                    "{pki}/ca.crl",
                    "{url}/x",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn revoked_server_without_crlfile_is_accepted() {
            case(
                "revoked_server_without_crlfile_is_accepted",
                &["-s", "--cacert", "{ca}", "{url}/x"],
            )
            .tls(tls(ServerCert::Revoked))
            .run(OXCURL);
        }

        #[test]
        fn missing_crlfile_is_82() {
            failing(
                "missing_crlfile_is_82",
                ServerCert::Good,
                &[
                    "-sS",
                    "--cacert",
                    "{ca}",
                    "--crlfile",
                    "/nonexistent.crl",
                    "{url}/x",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn ca_native_with_cacert() {
            case(
                "ca_native_with_cacert",
                &["-s", "--ca-native", "--cacert", "{ca}", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn missing_cacert_file_is_77() {
            failing(
                "missing_cacert_file_is_77",
                ServerCert::Good,
                &["-sS", "--cacert", "/nonexistent/ca.pem", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn pinned_public_key_mismatch_is_90() {
            failing(
                "pinned_public_key_mismatch_is_90",
                ServerCert::Good,
                &[
                    "-sS",
                    "--cacert",
                    "{ca}",
                    "--pinnedpubkey",
                    "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                    "{url}/x",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn pinned_public_key_other_file_is_90() {
            failing(
                "pinned_public_key_other_file_is_90",
                ServerCert::Good,
                &[
                    "-sS",
                    "--cacert",
                    "{ca}",
                    "--pinnedpubkey",
                    "{pki}/expired.pub.pem",
                    "{url}/x",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn cert_status_without_staple_is_91() {
            failing(
                "cert_status_without_staple_is_91",
                ServerCert::Good,
                &["-sS", "--cacert", "{ca}", "--cert-status", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn min_above_max_is_35() {
            failing(
                "min_above_max_is_35",
                ServerCert::Good,
                &[
                    "-sS",
                    "--tlsv1.3",
                    "--tls-max",
                    "1.2",
                    "--cacert",
                    "{ca}",
                    "{url}/x",
                ],
            )
            .run(OXCURL);
        }

        #[test]
        fn tls_max_bad_value_is_2() {
            failing(
                "tls_max_bad_value_is_2",
                ServerCert::Good,
                &["-sS", "--tls-max", "1.5", "{url}/x"],
            )
            .expect_failure().run(OXCURL);
        }

        #[test]
        fn unknown_cipher_is_59() {
            failing(
                "unknown_cipher_is_59",
                ServerCert::Good,
                &["-sS", "--ciphers", "BOGUS", "--cacert", "{ca}", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn unknown_curve_is_59() {
            failing(
                "unknown_curve_is_59",
                ServerCert::Good,
                &["-sS", "--curves", "bogus", "--cacert", "{ca}", "{url}/x"],
            )
            .run(OXCURL);
        }

        #[test]
        fn tls13_required_against_tls12_server_is_35() {
            case(
                "tls13_required_against_tls12_server_is_35",
                &["-sS", "--tlsv1.3", "--cacert", "{ca}", "{url}/x"],
            )
            .tls(TlsServerOptions {
                tls12_only: true,
                ..TlsServerOptions::default()
            })
            .run(OXCURL);
        }

        #[test]
        fn missing_client_certificate_fails() {
            case(
                "missing_client_certificate_fails",
                &["-sS", "--cacert", "{ca}", "{url}/mtls"],
            )
            .tls(TlsServerOptions {
                client_auth: true,
                ..TlsServerOptions::default()
            })
            .run(OXCURL);
        }

        #[test]
        fn https_url_to_plain_http_server_is_35() {
            Case::new("https_url_to_plain_http_server_is_35")
                .env("CURL_SSL_BACKEND", BACKEND)
                .args(&["-sS", "https://{host}/x"])
                .reply(Reply::ok("plain").without_reading_request())
                // The server receives each TLS library's own ClientHello.
                .compare_requests(false)
                .run(OXCURL);
        }

        #[test]
        fn server_closing_during_handshake_is_35() {
            Case::new("server_closing_during_handshake_is_35")
                .env("CURL_SSL_BACKEND", BACKEND)
                .args(&["-sS", "https://{host}/x"])
                .reply(Reply::close_at_once())
                .compare_requests(false)
                .run(OXCURL);
        }

        // ---- oxcurl only ------------------------------------------------------------------------

        /// `-v` reports the handshake the way curl does: ALPN offer and answer, the connection
        /// summary, the certificate and the verification result, then "Connected to".
        #[test]
        fn verbose_shows_handshake_summary() {
            let server = ScriptedServer::start_tls(&TlsServerOptions::default());
            server.set_replies(vec![Reply::ok("v\n")]);
            let ca = pki().ca();
            let out = Exec::new(under_test(OXCURL))
                .args([
                    "-v",
                    "--cacert",
                    ca.to_str().unwrap(),
                    &format!("{}/v", server.url()),
                ])
                .run();
            assert_eq!(
                out.code,
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let err = String::from_utf8_lossy(&out.stderr);
            let want = [
                "* ALPN: curl offers h2,http/1.1\n",
                &format!("*  CAfile: {}\n", ca.display()),
                "* SSL connection using TLSv1.3 / TLS_",
                " / id-ecPublicKey\n",
                "* ALPN: server accepted http/1.1\n",
                "* Server certificate:\n",
                "*  subject: CN=localhost\n",
                "*  start date: Jan  1 00:00:00 2020 GMT\n",
                "*  expire date: Jan  1 00:00:00 2099 GMT\n",
                "*  subjectAltName: host \"127.0.0.1\" matched cert's IP address!\n",
                "*  issuer: CN=oxcurl test CA\n",
                "*  SSL certificate verify ok.\n",
                "*   Certificate level 0: Public key type EC/prime256v1 (256/128 Bits/secBits), signed using ecdsa-with-SHA256\n",
                "* Connected to 127.0.0.1 (127.0.0.1) port",
            ];
            let mut at = 0;
            for w in want {
                let pos = err[at..]
                    .find(w)
                    .unwrap_or_else(|| panic!("missing {w:?} after offset {at} in:\n{err}"));
                at += pos + w.len();
            }
        }

        /// SSLKEYLOGFILE gets the session's secrets in NSS key log format.
        #[test]
        fn sslkeylogfile_is_written() {
            let server = ScriptedServer::start_tls(&TlsServerOptions::default());
            server.set_replies(vec![Reply::ok("k\n")]);
            let dir = oxcurl_testsupport::TempDir::new("keylog");
            let log = dir.join("keys.log");
            let out = Exec::new(under_test(OXCURL))
                .args([
                    "-s",
                    "--cacert",
                    pki().ca().to_str().unwrap(),
                    &format!("{}/k", server.url()),
                ])
                .env("SSLKEYLOGFILE", &log)
                .env("CURL_SSL_BACKEND", BACKEND)
                .run();
            assert_eq!(out.code, Some(0));
            assert_eq!(out.stdout, b"k\n");
            let text = std::fs::read_to_string(&log).expect("key log written");
            for label in [
                "CLIENT_HANDSHAKE_TRAFFIC_SECRET ",
                "SERVER_HANDSHAKE_TRAFFIC_SECRET ",
                "CLIENT_TRAFFIC_SECRET_0 ",
                "SERVER_TRAFFIC_SECRET_0 ",
            ] {
                assert!(text.contains(label), "{label} missing from {text}");
            }
            for line in text.lines() {
                let f: Vec<&str> = line.split(' ').collect();
                assert_eq!(f.len(), 3, "{line}");
                assert_eq!(f[1].len(), 64, "client random in {line}");
            }
        }

        }
    };
}

suite!(rustls, "rustls");
suite!(openssl, "openssl");

// ---- OpenSSL's handshake trace ----------------------------------------------------------------

/// `-v` output with digits masked (sizes, dates, signature lengths) and without curl's racy
/// "Request completely sent off" line; as that line may split a run of data, a data marker
/// right after an equal one goes too.
fn trace_norm(d: &[u8]) -> Vec<u8> {
    let kept: Vec<u8> = oxcurl_testsupport::diff::mask_digits(d)
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| !l.ends_with(b"Request completely sent off\n"))
        .flatten()
        .copied()
        .collect();
    oxcurl_testsupport::diff::drop_repeated_data_markers(&kept)
}

/// With OpenSSL, `-v` shows every handshake message as curl's `ossl_trace` writes it
/// ("TLSv1.3 (OUT), TLS handshake, Client hello (1):"), a data marker for the record bytes,
/// the CA lines after the ClientHello (curl sets up its CA store at its first read), the
/// request head after the record that carried it, and the session tickets and the
/// close_notify alert read with the response.
#[test]
fn openssl_verbose_shows_handshake_messages() {
    let r = Case::new("openssl_verbose_shows_handshake_messages")
        .env("CURL_SSL_BACKEND", "openssl")
        .tls(TlsServerOptions::default())
        .args(&["-sv", "--cacert", "{ca}", "{url}/t"])
        .reply(Reply::ok("traced\n").close())
        .compare_stderr(true)
        .normalise_with(trace_norm)
        .run(OXCURL);
    let err = String::from_utf8_lossy(&r.oxcurl.stderr);
    assert!(
        err.contains(
            "* TLSvN.N (OUT), TLS handshake, Client hello (N):\n} [N bytes data]\n*  CAfile:"
        ),
        "{err}"
    );
}

/// The trace with `--trace-ascii`: every record header (5 bytes) and TLS 1.3 inner content
/// type (1 byte) goes to the trace as SSL data too. Their bytes are random: only the lines
/// that introduce them are compared.
#[test]
fn openssl_trace_ascii_shows_ssl_data() {
    let drop_dump = |d: &[u8]| {
        let mut out = Vec::new();
        let mut in_ssl = false;
        for l in d.split_inclusive(|&b| b == b'\n') {
            let dump = l.len() > 5 && l[4] == b':' && l[..4].iter().all(u8::is_ascii_hexdigit);
            if !dump {
                in_ssl = l.windows(8).any(|w| w == b"SSL data");
            }
            if dump && in_ssl {
                continue;
            }
            // The hex length, which digit masking leaves: a signature's varies.
            match l.windows(4).position(|w| w == b" (0x") {
                Some(i) => {
                    out.extend_from_slice(&l[..i]);
                    out.push(b'\n');
                }
                None => out.extend_from_slice(l),
            }
        }
        trace_norm(&out)
    };
    Case::new("openssl_trace_ascii_shows_ssl_data")
        .env("CURL_SSL_BACKEND", "openssl")
        .tls(TlsServerOptions::default())
        .args(&["-s", "--trace-ascii", "-", "--cacert", "{ca}", "{url}/t"])
        .reply(Reply::ok("traced\n").close())
        .normalise_with(drop_dump)
        .run(OXCURL);
}

// ---- OpenSSL's trust store, set up after the ClientHello ------------------------------------

/// A `-v` case with OpenSSL, stderr compared with digits masked.
fn ca_case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .env("CURL_SSL_BACKEND", "openssl")
        .tls(TlsServerOptions::default())
        .args(&["-sS", "-v"])
        .args(args)
        .arg("{url}/t")
        .reply(Reply::ok("trusted\n").close())
        .compare_stderr(true)
        .normalise_with(trace_norm)
}

/// `s` with its digits masked, as [`trace_norm`] leaves a path.
fn masked(s: &str) -> String {
    String::from_utf8_lossy(&oxcurl_testsupport::diff::mask_digits(s.as_bytes())).into_owned()
}

/// The lines of a `-v` output from the ClientHello's data marker on, up to "closing".
fn after_hello(stderr: &[u8]) -> String {
    let err = String::from_utf8_lossy(stderr);
    let from = err.find("Client hello").expect("a ClientHello line");
    let rest = &err[from..];
    let rest = &rest[rest.find('\n').map_or(0, |i| i + 1)..];
    rest.lines()
        .take_while(|l| !l.contains("closing connection"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A CA file that does not exist: curl's OpenSSL backend sends its ClientHello first, then
/// fails to set up its store, twice (at its first read, and after `SSL_connect`), with 77.
#[test]
fn openssl_cacert_missing_fails_after_client_hello() {
    let r = ca_case(
        "openssl_cacert_missing_fails_after_client_hello",
        &["--cacert", "{tmp}/no-such-ca.pem"],
    )
    .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 77);
    let path = masked(&r.oxcurl.args[3]);
    let line = format!("* error setting certificate file: {path}");
    assert_eq!(
        after_hello(&r.oxcurl.stderr),
        format!("}} [N bytes data]\n{line}\n{line}")
    );
}

/// A CA file that holds no certificate (garbage, or nothing) fails the same way.
#[test]
fn openssl_cacert_without_certificate() {
    for (name, contents) in [("garbage", "not a certificate\n"), ("empty", "")] {
        let r = ca_case(
            &format!("openssl_cacert_without_certificate_{name}"),
            &["--cacert", "{tmp}/bad.pem"],
        )
        .file("bad.pem", contents)
        .run(OXCURL);
        assert_eq!(r.oxcurl.code(), 77, "{name}");
    }
}

/// A CA directory that does not exist is no error for OpenSSL (it is looked in lazily): the
/// transfer verifies with the CA file, and `-v` names the directory.
#[test]
fn openssl_capath_missing_directory() {
    let r = ca_case(
        "openssl_capath_missing_directory",
        &["--cacert", "{ca}", "--capath", "{tmp}/no-such-dir"],
    )
    .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 0);
    assert_eq!(r.oxcurl.stdout, b"trusted\n");
    let err = String::from_utf8_lossy(&r.oxcurl.stderr);
    assert!(err.contains("*  CApath: "), "{err}");
}

/// A CRL file that cannot be loaded (missing, not PEM): 82 after the ClientHello, the CA
/// lines and the error twice; with -k too, where no CA is loaded but the CRL still is.
#[test]
fn openssl_crlfile_bad() {
    for (name, args) in [
        (
            "missing",
            &["--cacert", "{ca}", "--crlfile", "{tmp}/no.crl"][..],
        ),
        (
            "garbage",
            &["--cacert", "{ca}", "--crlfile", "{tmp}/bad.crl"][..],
        ),
        ("insecure", &["-k", "--crlfile", "{tmp}/no.crl"][..]),
        // The CA file fails first.
        (
            "after_cacert",
            &["--cacert", "{tmp}/no.pem", "--crlfile", "{tmp}/no.crl"][..],
        ),
    ] {
        let r = ca_case(&format!("openssl_crlfile_bad_{name}"), args)
            .file("bad.crl", "not a CRL\n")
            .run(OXCURL);
        let code = if name == "after_cacert" { 77 } else { 82 };
        assert_eq!(r.oxcurl.code(), code, "{name}");
    }
}

/// A CRL file that loads: curl notes it after the CA lines; a revoked server certificate
/// then fails verification (60).
#[test]
fn openssl_crlfile_loaded() {
    for cert in [ServerCert::Good, ServerCert::Revoked] {
        let r = ca_case(
            &format!("openssl_crlfile_loaded_{cert:?}"),
            &["--cacert", "{ca}", "--crlfile", "{pki}/ca.crl"],
        )
        .tls(TlsServerOptions {
            cert,
            ..TlsServerOptions::default()
        })
        .run(OXCURL);
        let want = if cert == ServerCert::Good { 0 } else { 60 };
        assert_eq!(r.oxcurl.code(), want, "{cert:?}");
        let err = String::from_utf8_lossy(&r.oxcurl.stderr);
        assert!(
            err.contains(
                "*  CApath: /etc/ssl/certs\n* successfully loaded CRL file:\n*   CRLfile: "
            ),
            "{err}"
        );
    }
}

/// A verified transfer: the CA lines come between the ClientHello and the ServerHello, on
/// each new connection (here a second one, to the same server by another name), though the
/// store is loaded once.
#[test]
fn openssl_ca_lines_between_client_and_server_hello() {
    let r = ca_case(
        "openssl_ca_lines_between_client_and_server_hello",
        &["--cacert", "{ca}", "https://localhost:{port}/2"],
    )
    .replies(vec![Reply::ok("one\n"), Reply::ok("two\n")])
    .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 0);
    let err = String::from_utf8_lossy(&r.oxcurl.stderr);
    let ca = masked(pki().ca().to_str().unwrap());
    let order = format!(
        "Client hello (N):\n}} [N bytes data]\n*  CAfile: {ca}\n*  CApath: /etc/ssl/certs\n\
         {{ [N bytes data]\n* TLSvN.N (IN), TLS handshake, Server hello (N):"
    );
    assert_eq!(err.matches(order.as_str()).count(), 2, "{err}");
}

/// An intermediate certificate as the only CA: curl's store treats it as a trust anchor
/// (`X509_V_FLAG_PARTIAL_CHAIN`), so a server sending leaf and intermediate verifies.
#[test]
fn openssl_intermediate_as_trust_anchor() {
    let r = Case::new("openssl_intermediate_as_trust_anchor")
        .env("CURL_SSL_BACKEND", "openssl")
        .tls(TlsServerOptions {
            cert: ServerCert::Chain,
            ..TlsServerOptions::default()
        })
        .setup(|tmp| {
            let chain = std::fs::read_to_string(pki().path("chain-server.pem")).unwrap();
            let end = "-----END CERTIFICATE-----\n";
            let first = chain.find(end).expect("leaf") + end.len();
            std::fs::write(tmp.join("inter.pem"), &chain[first..]).unwrap();
        })
        .args(&["-sS", "--cacert", "{tmp}/inter.pem", "{url}/i"])
        .reply(Reply::ok("anchored\n"))
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 0);
    assert_eq!(r.oxcurl.stdout, b"anchored\n");
}

/// TLS inside TLS: the proxy's CA lines follow the proxy's ClientHello, the origin's the
/// origin's ClientHello; during CONNECT the proxy session's records and session tickets are
/// traced, the request head after the record that carried it.
#[test]
fn openssl_ca_lines_inside_https_proxy() {
    let proxy = oxcurl_testsupport::HttpsProxy::start(&TlsServerOptions::default());
    let url = proxy.url();
    let r = Case::new("openssl_ca_lines_inside_https_proxy")
        .env("CURL_SSL_BACKEND", "openssl")
        .tls(TlsServerOptions::default())
        .args(&["-sS", "-v", "-x", url.as_str(), "--proxy-cacert", "{ca}"])
        .args(&["--cacert", "{ca}", "https://localhost:{port}/t"])
        .reply(Reply::ok("inside\n"))
        .compare_stderr(true)
        .normalise_with(trace_norm)
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 0);
    let err = String::from_utf8_lossy(&r.oxcurl.stderr);
    assert_eq!(err.matches("*  CAfile: ").count(), 2, "{err}");
    let connect = "* Establish HTTP proxy tunnel to localhost:N\n} [N bytes data]\n> CONNECT ";
    assert!(err.contains(connect), "{err}");
}

/// rustls reports nothing of the sort, as curl built with rustls does not.
#[test]
fn rustls_verbose_has_no_handshake_messages() {
    let server = ScriptedServer::start_tls(&TlsServerOptions::default());
    server.set_replies(vec![Reply::ok("r\n")]);
    let out = Exec::new(under_test(OXCURL))
        .args(["-sv", "--cacert", pki().ca().to_str().unwrap()])
        .arg(format!("{}/r", server.url()))
        .env("CURL_SSL_BACKEND", "rustls")
        .run();
    assert_eq!(out.code, Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("* SSL connection using TLSv1.3"), "{err}");
    assert!(!err.contains("TLS handshake"), "{err}");
}

// ---- OpenSSL session resumption ---------------------------------------------------------------

/// A second connection to the server (the first found dead: the server closed it after its
/// reply) resumes the TLS session the first got: curl says "SSL reusing session with ALPN"
/// before its ALPN offer, the summary's signature type is UNDEF (no CertificateVerify), and
/// the server certificate is the session's leaf, without the chain's levels. With TLS 1.2,
/// without ALPN and with a pinned key too.
#[test]
fn openssl_resumed_session_notes() {
    let key = pki().path("server.pub.pem");
    let key = key.to_str().unwrap();
    for (name, tls12, args) in [
        ("tls13", false, vec![]),
        ("tls12", true, vec![]),
        ("no_alpn", false, vec!["--no-alpn"]),
        ("pinned", false, vec!["--pinnedpubkey", key]),
    ] {
        let r = Case::new(&format!("openssl_resumed_session_notes_{name}"))
            .env("CURL_SSL_BACKEND", "openssl")
            .tls(TlsServerOptions {
                tls12_only: tls12,
                ..TlsServerOptions::default()
            })
            .args(&["-sSv", "--rate", "10/s", "--cacert", "{ca}"])
            .args(&args)
            .args(&["{url}/1", "{url}/2"])
            .replies(vec![Reply::ok("one\n").close(), Reply::ok("two\n").close()])
            .compare_stderr(true)
            .normalise_with(trace_norm)
            .run(OXCURL);
        assert_eq!(r.oxcurl.code(), 0, "{name}");
        let err = String::from_utf8_lossy(&r.oxcurl.stderr);
        assert_eq!(
            err.matches("* SSL reusing session with ALPN '").count(),
            1,
            "{err}"
        );
        assert_eq!(
            err.matches("* Connection N seems to be dead\n").count(),
            1,
            "{err}"
        );
    }
}

/// curl's session cache key holds the `--connect-to` destination for sessions made
/// without verification (`-k`), so a second transfer to the same URL routed by a rule
/// resumes nothing; with verification on the rule does not count and the session is
/// offered ("SSL reusing session"), as it is when the rule names the URL's own host and
/// port (curl then has no destination). The URL names the server `localhost`, the rule
/// sends it to 127.0.0.1.
#[test]
fn openssl_unverified_session_keyed_by_connect_to() {
    for (name, tls, rule, reused) in [
        (
            "insecure",
            vec!["-k"],
            "localhost:{port}:127.0.0.1:{port}",
            0,
        ),
        (
            "verified",
            vec!["--cacert", "{ca}"],
            "localhost:{port}:127.0.0.1:{port}",
            1,
        ),
        (
            "insecure_same",
            vec!["-k"],
            "localhost:{port}:localhost:{port}",
            1,
        ),
    ] {
        let r = Case::new(&format!("openssl_session_key_connect_to_{name}"))
            .env("CURL_SSL_BACKEND", "openssl")
            .tls(TlsServerOptions::default())
            .args(&["-sSv", "--resolve", "localhost:{port}:127.0.0.1"])
            .args(&tls)
            .args(&["https://localhost:{port}/1", "--next", "-sS"])
            .args(&tls)
            .args(&["--connect-to", rule, "https://localhost:{port}/2"])
            .replies(vec![Reply::ok("one\n").close(), Reply::ok("two\n").close()])
            .compare_stderr(true)
            .normalise_with(trace_norm)
            .run(OXCURL);
        assert_eq!(r.oxcurl.code(), 0, "{name}");
        let err = String::from_utf8_lossy(&r.oxcurl.stderr);
        let n = err.matches("* SSL reusing session").count();
        assert_eq!(n, reused, "{name}: {err}");
    }
}

/// Through a proxy too: curl tunnels to the `--connect-to` destination and keys the
/// unverified session by it, so the second transfer resumes nothing.
#[test]
fn openssl_unverified_session_keyed_by_connect_to_through_a_proxy() {
    let proxy = oxcurl_testsupport::ConnectProxy::start();
    let r = Case::new("openssl_session_key_connect_to_proxy")
        .env("CURL_SSL_BACKEND", "openssl")
        .tls(TlsServerOptions::default())
        .args(&["-sSv", "-k", "-x", &proxy.host_port()])
        .args(&["https://localhost:{port}/1", "--next", "-sS", "-k"])
        .args(&["-x", &proxy.host_port(), "--connect-to"])
        .args(&[
            "localhost:{port}:127.0.0.1:{port}",
            "https://localhost:{port}/2",
        ])
        .replies(vec![Reply::ok("one\n").close(), Reply::ok("two\n").close()])
        .compare_stderr(true)
        .normalise_with(trace_norm)
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 0);
    let err = String::from_utf8_lossy(&r.oxcurl.stderr);
    assert!(!err.contains("* SSL reusing session"), "{err}");
}

/// rustls: the dead connection is noted the same way, but curl built with rustls has no
/// resumption note, so neither has oxcurl's.
#[test]
fn rustls_dead_connection_noted_without_resumption_note() {
    let server = ScriptedServer::start_tls(&TlsServerOptions::default());
    server.set_replies(vec![Reply::ok("one\n").close(), Reply::ok("two\n").close()]);
    let out = Exec::new(under_test(OXCURL))
        .args([
            "-sSv",
            "--rate",
            "10/s",
            "--cacert",
            pki().ca().to_str().unwrap(),
        ])
        .arg(format!("{}/1", server.url()))
        .arg(format!("{}/2", server.url()))
        .env("CURL_SSL_BACKEND", "rustls")
        .run();
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stdout, b"one\ntwo\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("* Connection 0 seems to be dead\n* shutting down connection #0\n"),
        "{err}"
    );
    assert!(!err.contains("reusing session"), "{err}");
}

// ---- OpenSSL trace through real proxies ---------------------------------------------------

/// squid (with `auth`) behind nghttpx, an HTTPS proxy that speaks HTTP/2 and HTTP/1.1.
fn nghttpx_squid(
    auth: oxcurl_testsupport::daemons::ProxyAuth,
) -> Option<(
    oxcurl_testsupport::daemons::Squid,
    oxcurl_testsupport::daemons::Nghttpx,
)> {
    let sq = oxcurl_testsupport::daemons::Squid::try_start(auth)?;
    let nx = oxcurl_testsupport::daemons::Nghttpx::try_start(&sq)?;
    Some((sq, nx))
}

/// CONNECT on an HTTP/2 stream to the proxy: the records of the proxy's TLS session that
/// carry the h2 frames (preface, SETTINGS, the CONNECT HEADERS, the 200 reply, the tunnel's
/// DATA frames) are traced as curl traces them.
#[test]
fn openssl_trace_inside_h2_https_proxy() {
    let Some((_sq, nx)) = nghttpx_squid(oxcurl_testsupport::daemons::ProxyAuth::None) else {
        return;
    };
    let url = nx.url();
    let r = Case::new("openssl_trace_inside_h2_https_proxy")
        .env("CURL_SSL_BACKEND", "openssl")
        .tls(TlsServerOptions::default())
        .args(&["-sS", "-v", "--proxy-http2", "-x", url.as_str()])
        .args(&["--proxy-cacert", "{ca}", "--cacert", "{ca}"])
        .args(&["https://localhost:{port}/t"])
        .reply(Reply::ok("inside the tunnel\n"))
        .compare_stderr(true)
        .normalise_with(h2_setup_norm)
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 0);
    assert_eq!(r.oxcurl.stdout_str(), "inside the tunnel\n");
    let err = String::from_utf8_lossy(&h2_setup_norm(&r.oxcurl.stderr)).into_owned();
    let setup = "* Establish HTTP/N proxy tunnel to localhost:N\n[N bytes data]\n\
                 * TLSvN.N (IN), TLS handshake, Newsession Ticket (N):\n";
    assert!(err.contains(setup), "{err}");
}

/// [`trace_norm`], and the direction of the run of data right after "Establish HTTP/2
/// proxy tunnel" masked: whether the proxy's session tickets (sent after the handshake)
/// came before the client's first read, so that it reads them before writing the preface,
/// or after its first write, is a race both curl and oxcurl run.
fn h2_setup_norm(d: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut after_establish = false;
    for l in trace_norm(d).split_inclusive(|&b| b == b'\n') {
        if after_establish && (l.starts_with(b"{ [") || l.starts_with(b"} [")) {
            out.extend_from_slice(&l[2..]);
        } else {
            out.extend_from_slice(l);
        }
        after_establish = l.starts_with(b"* Establish HTTP/N proxy tunnel");
    }
    out
}

/// With OpenSSL, `-v` to the test server through the HTTPS proxy `proxy` with
/// `--proxy-user pu:pp --proxy-anyauth`, stderr compared.
fn openssl_anyauth_via(proxy: &str, name: &str) -> Case {
    Case::new(name)
        .env("CURL_SSL_BACKEND", "openssl")
        .tls(TlsServerOptions::default())
        .args(&["-sS", "-v", "-x", proxy, "--proxy-cacert", "{ca}"])
        .args(&[
            "--proxy-user",
            "pu:pp",
            "--proxy-anyauth",
            "--cacert",
            "{ca}",
        ])
        .args(&["https://localhost:{port}/t"])
        .compare_stderr(true)
}

/// A 407 with a body (squid's error page, some 3 KB: more than one of nghttpx's first
/// records) answers the first CONNECT; curl reads the body off the proxy's TLS session, its
/// records traced, and skips it before the second CONNECT, with credentials, on the same
/// connection. nghttpx's HTTP/1.1 side answers that one 400 (it takes no second CONNECT on
/// a connection), so both end with 56.
#[test]
fn openssl_trace_across_407_body_in_https_proxy() {
    let auth = oxcurl_testsupport::daemons::ProxyAuth::Basic("pu".into(), "pp".into());
    let Some((_sq, nx)) = nghttpx_squid(auth) else {
        return;
    };
    let url = nx.url();
    let r = openssl_anyauth_via(&url, "openssl_trace_across_407_body_in_https_proxy")
        .normalise_with(trace_norm)
        .expect_failure()
        .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 56);
    let err = String::from_utf8_lossy(&trace_norm(&r.oxcurl.stderr)).into_owned();
    let skipped = "* Ignore N bytes of response-body\n{ [N bytes data]\n\
                   * Proxy auth using Basic with user 'pu'\n";
    assert!(err.contains(skipped), "{err}");
    assert_eq!(
        err.matches("> CONNECT localhost:N HTTP/N.N").count(),
        2,
        "{err}"
    );
}

/// Through the HTTP/2 proxy with Basic credentials sent at once, and with `--proxy-anyauth`,
/// where the 407 (and its body's DATA) ends the transfer: curl does not ask again on an
/// HTTP/2 tunnel.
#[test]
fn openssl_trace_h2_https_proxy_auth() {
    let auth = oxcurl_testsupport::daemons::ProxyAuth::Basic("pu".into(), "pp".into());
    let Some((_sq, nx)) = nghttpx_squid(auth) else {
        return;
    };
    let url = nx.url();
    for (name, args, code) in [
        ("basic", vec!["--proxy-user", "pu:pp"], 0),
        (
            "anyauth",
            vec!["--proxy-user", "pu:pp", "--proxy-anyauth"],
            56,
        ),
    ] {
        let r = Case::new(&format!("openssl_trace_h2_https_proxy_auth_{name}"))
            .env("CURL_SSL_BACKEND", "openssl")
            .tls(TlsServerOptions::default())
            .args(&["-sS", "-v", "--proxy-http2", "-x", url.as_str()])
            .args(&["--proxy-cacert", "{ca}", "--cacert", "{ca}"])
            .args(&args)
            .args(&["https://localhost:{port}/t"])
            .reply(Reply::ok("inside the tunnel\n"))
            .compare_stderr(true)
            .normalise_with(h2_setup_norm)
            .expect_failure_if(code != 0)
            .run(OXCURL);
        assert_eq!(r.oxcurl.code(), code, "{name}");
    }
}

/// An HTTPS proxy (rustls, the test PKI's server certificate) that answers every CONNECT
/// with a 407 asking for Basic, `Connection: close` and a body of `body` bytes written as a
/// record of its own, then closes (close_notify first). It counts the CONNECT requests that
/// came with Basic credentials.
fn closing_407_proxy(body: usize) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let with_basic = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = with_basic.clone();
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let config = oxcurl_testsupport::tls::server_config(&TlsServerOptions::default());
    std::thread::spawn(move || {
        for c in listener.incoming().flatten() {
            let (config, counter) = (config.clone(), counter.clone());
            std::thread::spawn(move || {
                let Ok(conn) = ::rustls::ServerConnection::new(config) else {
                    return;
                };
                let mut tls = ::rustls::StreamOwned::new(conn, c);
                let mut head = Vec::new();
                let mut b = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match tls.read(&mut b) {
                        Ok(1) => head.push(b[0]),
                        _ => return,
                    }
                }
                if head
                    .windows(27)
                    .any(|w| w == b"Proxy-Authorization: Basic ")
                {
                    counter.fetch_add(1, Ordering::SeqCst);
                }
                let reply = format!(
                    "HTTP/1.1 407 Proxy Authentication Required\r\n\
                     Proxy-Authenticate: Basic realm=\"t\"\r\n\
                     Content-Length: {body}\r\n\
                     Connection: close\r\n\r\n"
                );
                let _ = tls.write_all(reply.as_bytes());
                let _ = tls.flush();
                let _ = tls.write_all(&vec![b'x'; body]);
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    (port, with_basic)
}

/// A 407 with a body and `Connection: close`: curl still reads the body off the proxy
/// session (its record traced) before it connects again ("Connect me again please").
/// curl 8.14.1 then crashes (SIGSEGV) setting up the new proxy connection, after its
/// "Establish HTTP proxy tunnel" line and before any TLS handshake with the proxy: the
/// comparison stops at "Connect me again please", and the exit status is oxcurl's own, 56
/// from the second 407 (Basic was sent and refused again).
#[test]
fn openssl_trace_407_body_before_reconnect() {
    let (r, with_basic) = reconnect_407_case(true);
    assert_eq!(r.oxcurl.code(), 56);
    // Only oxcurl got as far as the CONNECT with credentials on the new connection.
    assert_eq!(with_basic.load(std::sync::atomic::Ordering::SeqCst), 1);
    let err = String::from_utf8_lossy(&trace_norm(&r.oxcurl.stderr)).into_owned();
    let skipped = "* Ignore N bytes of response-body\n{ [N bytes data]\n\
                   * Connect me again please\n";
    assert!(err.contains(skipped), "{err}");
}

/// The whole run compared: curl 8.14.1 crashes where oxcurl makes the new proxy connection.
#[test]
#[ignore = "issue 4: curl 8.14.1 crashes (SIGSEGV) connecting again to an HTTPS proxy after a 407 with Connection: close"]
fn openssl_trace_407_reconnect_whole_run() {
    reconnect_407_case(false);
}

fn reconnect_407_case(
    cut: bool,
) -> (
    oxcurl_testsupport::CaseResult,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    let (port, with_basic) = closing_407_proxy(300);
    let proxy = format!("https://localhost:{port}");
    let cut_at_reconnect = |d: &[u8]| {
        let d = trace_norm(d);
        let mark: &[u8] = b"* Connect me again please\n";
        match d.windows(mark.len()).position(|w| w == mark) {
            Some(i) => d[..i + mark.len()].to_vec(),
            None => d,
        }
    };
    let name = if cut {
        "openssl_trace_407_body_before_reconnect"
    } else {
        "openssl_trace_407_reconnect_whole_run"
    };
    // The reference crashes (see above) before it reaches the server.
    let mut c = openssl_anyauth_via(&proxy, name).expect_failure();
    c = if cut {
        c.normalise_with(cut_at_reconnect).compare_exit(false)
    } else {
        c.normalise_with(trace_norm)
    };
    (c.run(OXCURL), with_basic)
}

// ---- TLS 1.3 early data (--tls-earlydata) -----------------------------------------------------

/// `--tls-earlydata` with OpenSSL against nginx with `ssl_early_data on`, which closes each
/// connection after its reply: the first transfer gets a session that allows early data;
/// the second resumes it, is "connected" before its handshake ("ALPN: deferred handshake
/// for early data"), sends its request with the ClientHello ("SSL sending N bytes of early
/// data"), and the server takes it ("Server accepted N bytes", `%{tls_earlydata}`). Then
/// the second transfer goes to nginx's server without early data instead (`--next`,
/// `--connect-to`), which resumes the session (the same ticket key) and refuses the early
/// data: "Server rejected TLS early data.", the request sent again after the handshake,
/// `%{tls_earlydata}` negative. The whole `-v` trace compared with curl's, digits masked;
/// left out are curl's racy notes on when the request went ("Request completely sent off",
/// or "abort upload" when the reply came first), the request heads, which curl does not
/// write when the reply and the close came before it did, and the record data markers
/// (`} [5 bytes data]`): a refused request is sent again before or, rarely, after curl reads
/// the session ticket that follows the handshake.
#[test]
fn openssl_early_data_on_a_resumed_session() {
    let root = oxcurl_testsupport::TempDir::new("earlydata-root");
    std::fs::write(root.join("a.txt"), "first\n").unwrap();
    std::fs::write(root.join("b.txt"), "second\n").unwrap();
    let Some(nginx) = oxcurl_testsupport::Nginx::try_start_early_data(root.path()) else {
        return;
    };
    let port = nginx.tls_port().unwrap();
    let late = nginx.late_port().unwrap();
    let ca = pki().ca().to_string_lossy().to_string();
    let tmp = oxcurl_testsupport::TempDir::new("earlydata-home");
    let run = |prog: &std::path::Path, early: bool, refused: bool| {
        let common = |mut e: Exec| {
            e = e
                .args(["-sS", "-v", "--cacert", &ca])
                .arg("--resolve")
                .arg(format!("localhost:{port}:127.0.0.1"))
                .args(["-w", "%{tls_earlydata}\n"]);
            if early {
                e = e.arg("--tls-earlydata");
            }
            e
        };
        let mut e = common(
            oxcurl_testsupport::diff::isolated_exec(prog, tmp.path(), tmp.path())
                .env("CURL_SSL_BACKEND", "openssl"),
        )
        .arg(format!("https://localhost:{port}/a.txt"));
        if refused {
            e = common(e.arg("--next"))
                .arg("--connect-to")
                .arg(format!("localhost:{port}:127.0.0.1:{late}"));
        }
        e.arg(format!("https://localhost:{port}/b.txt")).run()
    };
    let norm = early_norm;
    for (early, refused) in [(true, false), (false, false), (true, true)] {
        let ours = run(&under_test(OXCURL), early, refused);
        let theirs = run(&oxcurl_testsupport::reference_curl(), early, refused);
        let what = format!("early {early}, refused {refused}");
        assert_eq!(ours.code, theirs.code, "{what}");
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&theirs.stdout),
            "{what}"
        );
        assert_eq!(norm(&ours.stderr), norm(&theirs.stderr), "{what}");
        let out = String::from_utf8_lossy(&ours.stdout);
        let err = String::from_utf8_lossy(&ours.stderr);
        if !early {
            assert_eq!(out, "first\n0\nsecond\n0\n");
            assert!(!err.contains("early data"), "{err}");
            continue;
        }
        // The request (the same bytes as curl's, the server's reply says) went as early
        // data; it was taken, or refused and sent again.
        assert!(out.starts_with("first\n0\nsecond\n"), "{out}");
        let sent: i64 = out.lines().last().unwrap().parse().unwrap();
        let note = if refused {
            assert!(sent < 0, "{out}");
            "* Server rejected TLS early data.\n".to_string()
        } else {
            assert!(sent > 0, "{out}");
            format!("* Server accepted {sent} bytes of TLS early data.\n")
        };
        assert!(err.contains(&note), "{err}");
    }
}

/// The `-v` output of an early-data run, for comparison: digits masked, and without curl's
/// racy lines (see [`openssl_early_data_on_a_resumed_session`]; a body's "upload completely
/// sent off" too, which curl leaves out when it read the reply first).
fn early_norm(d: &[u8]) -> String {
    let kept: Vec<u8> = oxcurl_testsupport::diff::mask_digits(d)
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| {
            !l.ends_with(b"Request completely sent off\n")
                && !l.starts_with(b"* upload completely sent off: ")
                && !l.ends_with(b"we are done reading and this is set to close, stop send\n")
                && !l.ends_with(b"* abort upload\n")
                && !l.starts_with(b"> ")
                && !l.ends_with(b" bytes data]\n")
        })
        .flatten()
        .copied()
        .collect();
    String::from_utf8_lossy(&kept).into_owned()
}

/// A `-d` body goes as early data with the head, as far as the allowance goes: curl's
/// first send holds both, so `%{tls_earlydata}` counts the body too, and the body is not
/// sent again after the handshake.
#[test]
fn openssl_early_data_carries_the_start_of_a_post_body() {
    let root = oxcurl_testsupport::TempDir::new("earlydata-post-root");
    std::fs::write(root.join("a.txt"), "first\n").unwrap();
    let Some(nginx) = oxcurl_testsupport::Nginx::try_start_early_data(root.path()) else {
        return;
    };
    let port = nginx.tls_port().unwrap();
    let ca = pki().ca().to_string_lossy().to_string();
    let tmp = oxcurl_testsupport::TempDir::new("earlydata-post-home");
    // `%{size_upload}` of oxcurl's run alone: curl's is 0 at times, when the reply is read
    // before it counts what its send took.
    let run = |prog: &std::path::Path, w: &str| {
        let resolve = format!("localhost:{port}:127.0.0.1");
        oxcurl_testsupport::diff::isolated_exec(prog, tmp.path(), tmp.path())
            .env("CURL_SSL_BACKEND", "openssl")
            .args(["-sS", "-v", "--tls-earlydata", "--cacert", &ca])
            .args(["--resolve", &resolve])
            .arg(format!("https://localhost:{port}/a.txt"))
            .args(["--next", "--tls-earlydata", "--cacert", &ca])
            .args(["--resolve", &resolve, "-d", "hello", "-w", w])
            .arg(format!("https://localhost:{port}/post"))
            .run()
    };
    let w = "%{tls_earlydata}\n";
    let ours = run(&under_test(OXCURL), w);
    let theirs = run(&oxcurl_testsupport::reference_curl(), w);
    assert_eq!(ours.code, theirs.code);
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&theirs.stdout)
    );
    assert_eq!(early_norm(&ours.stderr), early_norm(&theirs.stderr));
    let out = String::from_utf8_lossy(&ours.stdout);
    let sent: i64 = out.lines().last().unwrap().parse().unwrap();
    // The head (over 100 bytes) and the 5 of the body.
    assert!(out.starts_with("first\nposted\n"), "{out}");
    assert!(sent > 105, "{out}");
    let err = String::from_utf8_lossy(&ours.stderr);
    let note = format!("* SSL sending {sent} bytes of early data\n");
    assert!(err.contains(&note), "{err}");
    // Counted as the body sent, once: no second copy after the handshake.
    let again = run(&under_test(OXCURL), "%{size_upload} %{size_request}\n");
    let out = String::from_utf8_lossy(&again.stdout);
    assert_eq!(out, format!("first\nposted\n5 {sent}\n"));
}
