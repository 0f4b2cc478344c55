//! Differential tests for `-w`/`--write-out` variables beyond the basics in diff_output.rs:
//! connection and transfer ids, every `url.*`/`urle.*` part, `%header{}` and
//! `%{header_json}` edge cases, output switching, `%{onerror}`, retries, proxies and TLS
//! certificate variables, each compared with curl 8.14.1.

use oxcurl_testsupport::diff::mask_digits;
use oxcurl_testsupport::{Case, Reply, ServerCert, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// Every `url.*` part, then every `urle.*` part, separated by `|`.
fn all_parts(prefix: &str) -> String {
    [
        "scheme", "user", "password", "options", "host", "port", "path", "query", "fragment",
        "zoneid",
    ]
    .iter()
    .map(|p| format!("%{{{prefix}.{p}}}"))
    .collect::<Vec<_>>()
    .join("|")
}

fn parts_format() -> String {
    format!("{}\\n{}\\n", all_parts("url"), all_parts("urle"))
}

#[test]
fn ids_count_transfers_and_connections() {
    Case::new("ids_count_transfers_and_connections")
        .args(&[
            "-s",
            "-w",
            "%{xfer_id} %{conn_id} %{num_connects}\\n",
            "{url}/a",
            "{url}/b",
            "{url}/c",
        ])
        .server(|s| {
            s.route("/a", Reply::ok("a"));
            // The server closes: the next transfer needs a new connection.
            s.route("/b", Reply::ok("b").close());
            s.route("/c", Reply::ok("c"));
        })
        .run(OXCURL);
}

#[test]
fn ids_with_next_and_a_failed_transfer() {
    Case::new("ids_with_next_and_a_failed_transfer")
        .args(&[
            "-s",
            "-w",
            "%{xfer_id} %{conn_id} %{exitcode}\\n",
            "{url}/a",
            "--next",
            "-w",
            "%{xfer_id} %{conn_id} %{exitcode}\\n",
            "http://127.0.0.1:1/",
            "--next",
            "-w",
            "%{xfer_id} %{conn_id}\\n",
            "{url}/b",
        ])
        .reply(Reply::ok("x"))
        .reply(Reply::ok("y"))
        .run(OXCURL);
}

#[test]
fn url_parts_with_credentials_query_and_fragment() {
    Case::new("url_parts_with_credentials_query_and_fragment")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "--connect-to",
            "::{host}",
            "-w",
            &parts_format(),
            "http://us%65r:p%40ss@Example.COM/p%20a/th?q=1&r=%20#fr%41g",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn url_parts_default_port_and_bare_host() {
    Case::new("url_parts_default_port_and_bare_host")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "--connect-to",
            "::{host}",
            "-w",
            &parts_format(),
            "example.com",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn url_parts_after_a_redirect() {
    Case::new("url_parts_after_a_redirect")
        .args(&[
            "-s",
            "-L",
            "-o",
            "/dev/null",
            "-w",
            &format!("%{{url}} %{{url_effective}}\\n{}", parts_format()),
            "{url}/from?a=b",
        ])
        .server(|s| {
            s.route("/from", Reply::redirect(302, "/to%20x?c=d#e"));
            s.route("/to%20x", Reply::ok("x"));
        })
        .normalise_with(mask_digits)
        .run(OXCURL);
}

#[test]
fn url_parts_of_an_ipv6_zone_url_that_fails() {
    Case::new("url_parts_of_an_ipv6_zone_url_that_fails")
        .args(&[
            "-s",
            "--connect-timeout",
            "1",
            "-w",
            &format!("%{{exitcode}}\\n{}", parts_format()),
            "http://[fe80::1%25lo]:1/z?x",
        ])
        .run(OXCURL);
}

#[test]
fn url_parts_of_a_bad_url() {
    Case::new("url_parts_of_a_bad_url")
        .args(&[
            "-s",
            "-w",
            &format!("%{{exitcode}} [%{{url}}]\\n{}", parts_format()),
            "http://exa mple.com/",
        ])
        .run(OXCURL);
}

fn header_reply() -> Reply {
    Reply::status(
        200,
        &[
            ("Content-Type", "text/plain"),
            ("X-Dup", "one"),
            ("x-dup", "two"),
            ("X-Empty", ""),
            ("X-Spaces", "  padded  "),
            ("X-Quote", "a\"b\\c"),
            ("Set-Cookie", "a=1"),
            ("Set-Cookie", "b=2"),
            ("X-Dup", "three"),
        ],
        "body",
    )
}

#[test]
fn header_lookups_edge_cases() {
    Case::new("header_lookups_edge_cases")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "[%header{x-dup}] [%header{X-DUP}] [%header{x-empty}] [%header{x-spaces}] [%header{}] [%header{nope}] [%header{set-cookie}] [%header{x-dup] %header{content-type:}\\n",
            "{url}/",
        ])
        .reply(header_reply())
        .run(OXCURL);
}

#[test]
fn header_json_duplicates_and_escapes() {
    Case::new("header_json_duplicates_and_escapes")
        .args(&["-s", "-o", "/dev/null", "-w", "%{header_json}", "{url}/"])
        .reply(header_reply())
        .normalise_with(mask_digits)
        .run(OXCURL);
}

#[test]
fn header_json_and_header_after_redirect_are_the_last_response() {
    Case::new("header_json_and_header_after_redirect_are_the_last_response")
        .args(&[
            "-s",
            "-L",
            "-o",
            "/dev/null",
            "-w",
            "%header{x-first}|%header{x-last}|%header{location}\\n%{header_json}\\n",
            "{url}/from",
        ])
        .server(|s| {
            s.route(
                "/from",
                Reply::status(302, &[("Location", "/to"), ("X-First", "1")], ""),
            );
            s.route("/to", Reply::status(200, &[("X-Last", "2")], "x"));
        })
        .normalise_with(mask_digits)
        .run(OXCURL);
}

#[test]
fn header_json_with_trailers_and_continue() {
    Case::new("header_json_with_trailers_and_continue")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%header{x-trailer}|%header{content-type}\\n%{header_json}\\n",
            "{url}/",
        ])
        .reply(Reply::chunked_with_trailers(
            &["abc"],
            &[("X-Trailer", "t")],
        ))
        .normalise_with(mask_digits)
        .run(OXCURL);
}

#[test]
fn output_to_files_truncate_and_append() {
    Case::new("output_to_files_truncate_and_append")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "start %output{{tmp}/w.txt}one %{http_code}\\n%output{>>{tmp}/a.txt}two\\n%{stdout}back\\n%{stderr}err\\n",
            "{url}/",
            "{url}/",
        ])
        .file("a.txt", "existing\n")
        .reply(Reply::ok("x"))
        .reply(Reply::ok("y"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn output_to_a_file_that_cannot_be_opened() {
    Case::new("output_to_a_file_that_cannot_be_opened")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "a %output{{tmp}/no/such/dir/f}b\\n",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn onerror_on_a_failed_and_a_good_transfer() {
    Case::new("onerror_on_a_failed_and_a_good_transfer")
        .args(&[
            "-s",
            "-w",
            "before %{onerror}%{exitcode} %{errormsg}\\n",
            "http://127.0.0.1:1/",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn num_retries_after_two_503() {
    Case::new("num_retries_after_two_503")
        .args(&[
            "-s",
            "--retry",
            "3",
            "--retry-delay",
            "1",
            "-w",
            "%{num_retries} %{http_code} %{xfer_id}\\n",
            "{url}/",
        ])
        .replies(vec![
            Reply::status(503, &[], "busy"),
            Reply::status(503, &[], "busy"),
            Reply::ok("done\n"),
        ])
        .run(OXCURL);
}

#[test]
fn proxy_used_through_a_proxy_and_without() {
    Case::new("proxy_used_through_a_proxy_and_without")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{proxy_used} %{url.host}\\n",
            "-x",
            "{url}",
            "http://proxied.example/",
            "--next",
            "-o",
            "/dev/null",
            "-w",
            "%{proxy_used}\\n",
            "{url}/",
            "--next",
            "-o",
            "/dev/null",
            "-w",
            "%{proxy_used}\\n",
            "-x",
            "{url}",
            "--noproxy",
            "127.0.0.1",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .reply(Reply::ok("y"))
        .reply(Reply::ok("z"))
        .run(OXCURL);
}

#[test]
fn times_are_all_there() {
    Case::new("times_are_all_there")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{time_queue} %{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} %{time_posttransfer} %{time_starttransfer} %{time_redirect} %{time_total}\\n",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .normalise_with(mask_digits)
        .run(OXCURL);
}

/// curl's tool asks for the certificate chain (`CURLOPT_CERTINFO`) whenever `-w` is given;
/// `%{certs}` is OpenSSL's certinfo text for each certificate the server sent.
#[test]
fn tls_certificate_variables() {
    Case::new("tls_certificate_variables")
        .tls(TlsServerOptions::default())
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "--cacert",
            "{ca}",
            "-w",
            "[%{certs}] %{num_certs}\\n",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

/// The chain the server sends (leaf and intermediate), not the verified path to the root,
/// with each TLS backend.
fn certificate_chain(name: &str, backend: &str) {
    Case::new(name)
        .tls(TlsServerOptions {
            cert: ServerCert::Chain,
            ..TlsServerOptions::default()
        })
        .env("CURL_SSL_BACKEND", backend)
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "--cacert",
            "{ca}",
            "-w",
            "%{num_certs}\\n%{certs}",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn tls_certificate_chain_rustls() {
    certificate_chain("tls_certificate_chain_rustls", "rustls");
}

#[test]
fn tls_certificate_chain_openssl() {
    certificate_chain("tls_certificate_chain_openssl", "openssl");
}

/// `%{json}` carries the same text as its `"certs"` string; the rest (timings, ports, the
/// library versions) is masked.
#[test]
fn tls_certificates_in_json() {
    fn mask_after_certs(d: &[u8]) -> Vec<u8> {
        let s = String::from_utf8_lossy(d);
        let (certs, rest) = s.split_at(s.find("\",\"conn_id\":").unwrap_or(0));
        let rest = match rest.find("\"curl_version\":\"") {
            Some(i) => format!("{}VERSION\"}}", &rest[..i + 16]),
            None => rest.to_string(),
        };
        let mut out = certs.as_bytes().to_vec();
        out.extend(mask_digits(rest.as_bytes()));
        out
    }
    Case::new("tls_certificates_in_json")
        .tls(TlsServerOptions {
            cert: ServerCert::Chain,
            ..TlsServerOptions::default()
        })
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "--cacert",
            "{ca}",
            "-w",
            "%{json}\\n",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .normalise_with(mask_after_certs)
        .run(OXCURL);
}

/// With `-k` a certificate that does not verify is still listed.
#[test]
fn tls_certificates_of_an_unverified_server() {
    for backend in ["rustls", "openssl"] {
        Case::new(&format!(
            "tls_certificates_of_an_unverified_server_{backend}"
        ))
        .tls(TlsServerOptions {
            cert: ServerCert::SelfSigned,
            ..TlsServerOptions::default()
        })
        .env("CURL_SSL_BACKEND", backend)
        .args(&[
            "-sk",
            "-o",
            "/dev/null",
            "-w",
            "%{num_certs}\\n%{certs}",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
    }
}

/// A handshake that fails verification leaves no certificates.
#[test]
fn tls_certificates_after_a_failed_verification() {
    Case::new("tls_certificates_after_a_failed_verification")
        .tls(TlsServerOptions {
            cert: ServerCert::Expired,
            ..TlsServerOptions::default()
        })
        .args(&[
            "-s",
            "--cacert",
            "{ca}",
            "-w",
            "[%{certs}] %{num_certs}\\n",
            "{url}/",
        ])
        .run(OXCURL);
}

/// Each URL is its own transfer: the second, on the reused connection, had no handshake and
/// lists no certificates.
#[test]
fn tls_certificates_of_a_reused_connection() {
    Case::new("tls_certificates_of_a_reused_connection")
        .tls(TlsServerOptions::default())
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-o",
            "/dev/null",
            "--cacert",
            "{ca}",
            "-w",
            "%{num_certs} %{num_connects}\\n",
            "{url}/a",
            "{url}/b",
        ])
        .replies(vec![Reply::ok("a"), Reply::ok("b")])
        .run(OXCURL);
}

/// A new connection that resumes the TLS session lists no certificates: curl keeps its
/// OpenSSL sessions serialized, which drops the chain.
fn certificates_after_resumption(name: &str, backend: &str) {
    certificates_second_connection(name, backend, &[]);
}

/// With `--no-sessionid` the second connection does a full handshake and lists the chain.
fn certificates_second_connection(name: &str, backend: &str, extra: &[&str]) {
    Case::new(name)
        .tls(TlsServerOptions::default())
        .env("CURL_SSL_BACKEND", backend)
        .args(extra)
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-o",
            "/dev/null",
            "--cacert",
            "{ca}",
            "-w",
            "%{num_certs} %{num_connects}\\n",
            "{url}/a",
            "{url}/b",
        ])
        .replies(vec![Reply::ok("a").close(), Reply::ok("b")])
        .run(OXCURL);
}

#[test]
fn tls_certificates_after_resumption_rustls() {
    certificates_after_resumption("tls_certificates_after_resumption_rustls", "rustls");
}

#[test]
fn tls_certificates_after_resumption_openssl() {
    certificates_after_resumption("tls_certificates_after_resumption_openssl", "openssl");
}

#[test]
fn tls_certificates_without_session_reuse_openssl() {
    certificates_second_connection(
        "tls_certificates_without_session_reuse_openssl",
        "openssl",
        &["--no-sessionid"],
    );
}

#[test]
fn tls_certificates_without_session_reuse_rustls() {
    certificates_second_connection(
        "tls_certificates_without_session_reuse_rustls",
        "rustls",
        &["--no-sessionid"],
    );
}

/// The handshake with an HTTPS proxy fills the certificate list too (curl keeps the last
/// handshake's): a plain http:// URL through it lists the proxy's certificate.
#[test]
fn tls_certificates_of_an_https_proxy() {
    Case::new("tls_certificates_of_an_https_proxy")
        .tls(TlsServerOptions::default())
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "--proxy-cacert",
            "{ca}",
            "-x",
            "https://localhost:{port}",
            "-w",
            "%{num_certs}\\n%{certs}",
            "http://example.com/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

/// No TLS, no certificates.
#[test]
fn certificate_variables_over_plain_http() {
    Case::new("certificate_variables_over_plain_http")
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "[%{certs}] %{num_certs}\\n",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn tls_variables() {
    Case::new("tls_variables")
        .tls(TlsServerOptions::default())
        .args(&[
            "-s",
            "-o",
            "/dev/null",
            "--cacert",
            "{ca}",
            "-w",
            "%{tls_earlydata} %{ssl_verify_result} %{http_version} %{scheme} %{urle.port}\\n",
            "{url}/",
        ])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}
