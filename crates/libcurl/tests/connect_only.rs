//! `CURLOPT_CONNECT_ONLY` with `curl_easy_send`/`curl_easy_recv` (plain and TLS, easy and
//! multi) and `CURLINFO_ACTIVESOCKET`/`LASTSOCKET`: tests/c/connectonly.c against our library
//! and the reference libcurl on the same servers.

mod common;

use common::{compile, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use oxcurl_testsupport::process::Exec;
use oxcurl_testsupport::{pki, TlsServerOptions};

fn reply(path: &str) -> Reply {
    match path {
        "/raw" => Reply::status(200, &[("Connection", "close")], "raw reply\n"),
        _ => Reply::ok("normal\n"),
    }
}

fn run(lib: Lib, args: &[&str]) -> String {
    let exe = compile("connectonly", lib);
    let out = Exec::new(&exe)
        .args(args)
        .env("LD_LIBRARY_PATH", lib.dir())
        .run();
    let _ = std::fs::remove_file(&exe);
    assert_eq!(out.code, Some(0), "{lib:?}: {}", out.stderr_str());
    out.stdout_str()
}

#[test]
fn connect_only_send_recv_and_sockets_match_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| reply(req.path()));
    let tls = ScriptedServer::start_tls(&TlsServerOptions::default());
    tls.set_handler(|req| reply(req.path()));
    let base = s.url().trim_end_matches('/').to_string();
    let https = format!("https://localhost:{}/", tls.addr().port());
    let ca = pki().ca();
    let args = [base.as_str(), https.as_str(), ca.to_str().expect("utf-8")];
    let ours = run(Lib::Ours, &args);
    let reference = run(Lib::Reference, &args);
    assert!(ours.contains("connect only: rc=0 code=0\n"), "{ours}");
    assert!(
        ours.contains("connect only: active a socket, last a socket, same 1\n"),
        "{ours}"
    );
    assert!(
        ours.contains("easy: recv before sending: rc=81 n=0\n"),
        "{ours}"
    );
    assert!(ours.contains("\r\n\r\nraw reply\n\n"), "{ours}");
    assert!(ours.contains("https: sent "), "{ours}");
    assert_eq!(ours, reference, "ours vs reference");
    // Only the application's requests reached the servers besides the normal transfer.
    let reqs = s.requests();
    let paths: Vec<&str> = reqs.iter().map(|r| r.path()).collect();
    assert_eq!(
        paths,
        ["/normal", "/raw", "/raw", "/normal", "/raw", "/raw"]
    );
    assert_eq!(reqs[1].raw(), reqs[4].raw());
}
