//! Differential tests for `--alt-svc`: the cache file curl reads and writes, `Alt-Svc:`
//! headers received over HTTPS, and cached alternatives used on later transfers.

use oxcurl_testsupport::{Case, Reply, TlsServerOptions};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// Masks the expiry dates in a cache file, which depend on the clock.
fn mask_dates(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        let d = &data[i..];
        let date = d.len() >= 19
            && d[0] == b'"'
            && d[1..9].iter().all(u8::is_ascii_digit)
            && d[9] == b' '
            && d[18] == b'"';
        if date {
            out.extend_from_slice(b"\"DATE\"");
            i += 19;
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// A case against a TLS server whose replies carry `Alt-Svc: VALUE`, `{port}` in the value
/// standing for the server's port.
/// Writes `{tmp}/altsvc.txt` with `contents` before each run, `{port}` standing for the
/// server's port.
fn with_cache(case: Case, contents: &str) -> Case {
    let port = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let p2 = port.clone();
    let contents = contents.to_string();
    case.server(move |s| *p2.lock().unwrap() = s.port().to_string())
        .setup(move |tmp| {
            let text = contents.replace("{port}", &port.lock().unwrap());
            std::fs::write(tmp.join("altsvc.txt"), text).unwrap();
        })
}

fn alt_case(name: &str, alt_svc: &[&str], args: &[&str]) -> Case {
    alt_case_exact(name, alt_svc, args).normalise_with(mask_dates)
}

/// [`alt_case`] comparing the dates too: for caches that only hold entries read from the
/// file.
fn alt_case_exact(name: &str, alt_svc: &[&str], args: &[&str]) -> Case {
    let values: Vec<String> = alt_svc.iter().map(|s| s.to_string()).collect();
    Case::new(name)
        .tls(TlsServerOptions::default())
        .args(&["-s", "--cacert", "{ca}", "--alt-svc", "{tmp}/altsvc.txt"])
        .args(args)
        .server(move |s| {
            let port = s.port().to_string();
            let headers: Vec<(String, String)> = values
                .iter()
                .map(|v| ("Alt-Svc".to_string(), v.replace("{port}", &port)))
                .collect();
            let h: Vec<(&str, &str)> = headers
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            s.set_replies(vec![Reply::status(200, &h, "alt\n")]);
        })
}

const FAR: &str = "\"20991231 00:00:00\"";

#[test]
fn altsvc_header_is_saved() {
    alt_case(
        "altsvc_header_is_saved",
        &["h2=\":{port}\"; ma=3600"],
        &["https://localhost:{port}/"],
    )
    .run(OXCURL);
}

#[test]
fn altsvc_only_first_alternative_before_semicolon_and_h3_kept() {
    alt_case(
        "altsvc_only_first_alternative_before_semicolon_and_h3_kept",
        &["h3=\":443\"; ma=86400, h2=\"other.example:8443\", h1=\"127.0.0.1:{port}\"; persist=1"],
        &["https://localhost:{port}/"],
    )
    .run(OXCURL);
}

#[test]
fn altsvc_list_of_alternatives() {
    alt_case(
        "altsvc_list_of_alternatives",
        &["h2=\"a.example:1\", unknown=\":2\", h1=\"[::1]:3\", h3=\":4\"; ma=\"100\"; persist=1"],
        &["https://localhost:{port}/"],
    )
    .run(OXCURL);
}

#[test]
fn altsvc_malformed_values() {
    for (i, v) in [
        "h2=\":99999\"",
        "h2=\"nohost\"",
        "h2=:443",
        "h2",
        "h2=\"[::1\"",
        "h2=\":1\"; ma=abc",
        "h2=\":1\"; ma=0",
        "=\":1\"",
    ]
    .iter()
    .enumerate()
    {
        alt_case(
            &format!("altsvc_malformed_values_{i}"),
            &[v],
            &["https://localhost:{port}/"],
        )
        .run(OXCURL);
    }
}

#[test]
fn altsvc_clear_drops_the_origin() {
    for (i, v) in ["clear", "clear;", " Clear ; ma=1", "clear, h2=\":1\""]
        .iter()
        .enumerate()
    {
        with_cache(
            alt_case(
                &format!("altsvc_clear_{i}"),
                &[v],
                &["https://localhost:{port}/"],
            ),
            &format!(
                "h1 localhost {{port}} h3 localhost 443 {FAR} 0 0\n\
                 h1 other.example 443 h2 x.example 443 {FAR} 0 0\n"
            ),
        )
        .run(OXCURL);
    }
}

#[test]
fn altsvc_ignored_over_plain_http() {
    Case::new("altsvc_ignored_over_plain_http")
        .args(&["-s", "--alt-svc", "{tmp}/altsvc.txt", "{url}/"])
        .reply(Reply::status(
            200,
            &[("Alt-Svc", "h1=\"127.0.0.1:1\"")],
            "plain\n",
        ))
        .run(OXCURL);
}

#[test]
fn altsvc_cached_alternative_is_used() {
    with_cache(
        alt_case(
            "altsvc_cached_alternative_is_used",
            &[],
            &["https://localhost:{port}/x"],
        ),
        &format!("h1 localhost {{port}} h1 127.0.0.1 {{port}} {FAR} 0 0\n"),
    )
    .run(OXCURL);
}

#[test]
fn altsvc_cached_ipv6_alternative() {
    with_cache(
        alt_case(
            "altsvc_cached_ipv6_alternative",
            &[],
            &["https://localhost:{port}/x"],
        ),
        &format!("h1 localhost {{port}} h1 [::1] 1 {FAR} 0 0\n"),
    )
    .compare_exit(true)
    .run(OXCURL);
}

#[test]
fn altsvc_h2_source_tried_first() {
    with_cache(
        alt_case_exact(
            "altsvc_h2_source_tried_first",
            &[],
            &["https://localhost:{port}/x"],
        ),
        &format!(
            "h1 localhost {{port}} h1 nowhere.invalid 1 {FAR} 0 0\n\
             h2 localhost {{port}} h1 127.0.0.1 {{port}} {FAR} 0 0\n"
        ),
    )
    .run(OXCURL);
}

#[test]
fn altsvc_http11_uses_only_h1_sources() {
    with_cache(
        alt_case(
            "altsvc_http11_uses_only_h1_sources",
            &[],
            &["--http1.1", "https://localhost:{port}/x"],
        ),
        &format!(
            "h2 localhost {{port}} h1 nowhere.invalid 1 {FAR} 0 0\n\
             h1 localhost {{port}} h1 127.0.0.1 {{port}} {FAR} 0 0\n"
        ),
    )
    .run(OXCURL);
}

#[test]
fn altsvc_h3_and_expired_entries_not_used() {
    with_cache(
        alt_case_exact(
            "altsvc_h3_and_expired_entries_not_used",
            &[],
            &["https://localhost:{port}/x"],
        ),
        &format!(
            "h1 localhost {{port}} h3 nowhere.invalid 1 {FAR} 1 0\n\
             h1 localhost {{port}} h1 nowhere.invalid 2 \"20200101 00:00:00\" 0 0\n\
             h1 later.example 1 h1 nowhere.invalid 3 \"20200101 00:00:00\" 0 0\n"
        ),
    )
    .run(OXCURL);
}

#[test]
fn altsvc_file_lines_curl_skips() {
    with_cache(
        alt_case_exact(
            "altsvc_file_lines_curl_skips",
            &[],
            &["https://localhost:{port}/x"],
        ),
        &format!(
            "# comment\n\
             \t h1 a.example 1 h2 b.example 2 {FAR} 0 0\n\
             h1 a.example 1 h2 b.example 2 {FAR} 0 5\n\
             h1  a.example 1 h2 b.example 2 {FAR} 0 0\n\
             h1 a.example 99999 h2 b.example 2 {FAR} 0 0\n\
             h9 a.example 1 h2 b.example 2 {FAR} 0 0\n\
             h1 a.example 1 http/1.1 b.example 2 {FAR} 2 0\n\
             h1 a.example 1 H2 c.example. 2 \"junk\" 1 0\n\
             h1 a.example 1 h2 b.example 2 {FAR} 0 0 trailing\n\
             h1 [::1] 1 h2 [::2] 2 {FAR} 0 0\n\
             h1 last.example 1 h2 b.example 2 {FAR} 0 0"
        ),
    )
    .run(OXCURL);
}

#[test]
fn altsvc_connect_to_wins() {
    with_cache(
        alt_case(
            "altsvc_connect_to_wins",
            &[],
            &[
                "--connect-to",
                "localhost:{port}:127.0.0.1:{port}",
                "https://localhost:{port}/x",
            ],
        ),
        &format!("h1 localhost {{port}} h1 nowhere.invalid 1 {FAR} 0 0\n"),
    )
    .run(OXCURL);
}

#[test]
fn altsvc_custom_alt_used_header() {
    with_cache(
        alt_case(
            "altsvc_custom_alt_used_header",
            &[],
            &[
                "-H",
                "Alt-Used: mine",
                "-H",
                "X-A: 1",
                "https://localhost:{port}/x",
            ],
        ),
        &format!("h1 localhost {{port}} h1 127.0.0.1 {{port}} {FAR} 0 0\n"),
    )
    .run(OXCURL);
}

#[test]
fn altsvc_two_urls() {
    alt_case(
        "altsvc_two_urls",
        &["h1=\"127.0.0.1:{port}\""],
        &["https://localhost:{port}/1", "https://localhost:{port}/2"],
    )
    .run(OXCURL);
}

#[test]
fn altsvc_h2_alternative_on_http11_server() {
    alt_case(
        "altsvc_h2_alternative_on_http11_server",
        &["h2=\"127.0.0.1:{port}\""],
        &["https://localhost:{port}/1", "https://localhost:{port}/2"],
    )
    .run(OXCURL);
}
