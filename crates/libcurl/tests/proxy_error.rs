//! CURLINFO_PROXY_ERROR through the C ABI: tests/c/proxyerror.c performs through SOCKS
//! proxies that fail in different ways (and through ones that do not) on one handle, with
//! our library and the reference libcurl against the same servers; the codes must agree.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use oxcurl_testsupport::socks::{SocksMode, SocksServer};

#[test]
fn proxy_error_codes_match_reference() {
    let origin = ScriptedServer::start();
    origin.set_handler(|_| Reply::ok("origin\n"));
    let url = format!("http://127.0.0.1:{}/", origin.port());
    let socks = |mode: SocksMode| {
        let s = SocksServer::start(mode);
        (format!("socks5://127.0.0.1:{}", s.port()), s)
    };
    // A SOCKS5 reply refusing the connection (REP 5), then one with REP 1.
    let (refused, _r1) = socks(SocksMode::Socks5Reply(vec![5, 5, 0, 1, 0, 0, 0, 0, 0, 0]));
    let (failure, _r2) = socks(SocksMode::Socks5Reply(vec![5, 1, 0, 1, 0, 0, 0, 0, 0, 0]));
    // Not SOCKS at all; and a proxy that closes without a word.
    let (garbage, _r3) = socks(SocksMode::Raw(b"HTTP/1.1 400 Bad\r\n\r\n".to_vec()));
    let (closed, _r4) = socks(SocksMode::Raw(Vec::new()));
    let (good, _r5) = socks(SocksMode::Relay { auth: None });
    // An HTTP proxy refusing CONNECT is not a SOCKS failure: the code stays.
    let http = ScriptedServer::start();
    http.set_handler(|_| Reply::status(403, &[], "no\n"));
    let http = format!("http://127.0.0.1:{}", http.port());
    let https_url = format!("https://127.0.0.1:{}/", origin.port());
    let steps = [
        format!("{url},{refused}"),
        format!("{url},{good}"),
        format!("{https_url},{http}"),
        "reset".to_string(),
        format!("{url},{failure}"),
        format!("{url},{garbage}"),
        format!("{url},{closed}"),
        "dup".to_string(),
        format!("{url},{good}"),
    ];
    let args: Vec<&str> = steps.iter().map(String::as_str).collect();
    let ours = run_ok("proxyerror", Lib::Ours, &args);
    let reference = run_ok("proxyerror", Lib::Reference, &args);
    assert_eq!(ours, reference, "ours vs reference");
    // The codes the steps stand for: 19 connection refused, 20 general server failure,
    // 2 bad version, 3 closed; sticky until the duplicate.
    let codes: Vec<&str> = ours
        .lines()
        .map(|l| l.rsplit('=').next().unwrap_or(""))
        .collect();
    assert_eq!(
        codes,
        ["0", "19", "19", "19", "19", "20", "2", "3", "0", "0"],
        "{ours}"
    );
}
