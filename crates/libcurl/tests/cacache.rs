//! `CURLOPT_CA_CACHE_TIMEOUT` through the C ABI: tests/c/cacache.c against our library and
//! the reference libcurl over the same TLS server, with OpenSSL: the CA file is rewritten
//! between two transfers on new connections, so the second one's result shows whether the
//! loaded store was reused (curl's per-multi X509 store cache and its conditions).

mod common;

use common::{compile, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use oxcurl_testsupport::pki;
use oxcurl_testsupport::process::Exec;

fn run(lib: Lib, url: &str) -> String {
    let exe = compile("cacache", lib);
    let p = pki();
    let cafile =
        std::env::temp_dir().join(format!("oxcurl-cacache-{lib:?}-{}", std::process::id()));
    let s = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    let out = Exec::new(&exe)
        .args([
            url.to_string(),
            s(&cafile),
            s(&p.ca()),
            s(&p.path("selfsigned.pem")),
        ])
        .env("LD_LIBRARY_PATH", lib.dir())
        .env("CURL_SSL_BACKEND", "openssl")
        .run();
    let _ = std::fs::remove_file(&exe);
    let _ = std::fs::remove_file(&cafile);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    out.stdout_str()
}

#[test]
fn ca_cache_timeout_matches_reference() {
    let s = ScriptedServer::start_tls(&Default::default());
    s.set_handler(|_| Reply::ok("x"));
    let url = format!("https://localhost:{}/", s.addr().port());
    let ours = run(Lib::Ours, &url);
    let reference = run(Lib::Reference, &url);
    assert_eq!(
        ours,
        "setopt -2=43 -1=0 0=0 big=0\n\
         multi timeout=-2/-2 capath=0 pause=0: first=0 second=0\n\
         multi timeout=-1/-1 capath=0 pause=0: setopt=0 setopt=0 first=0 second=0\n\
         multi timeout=0/0 capath=0 pause=0: setopt=0 setopt=0 first=0 second=60\n\
         multi timeout=-2/0 capath=0 pause=0: setopt=0 first=0 second=60\n\
         multi timeout=0/-2 capath=0 pause=0: setopt=0 first=0 second=60\n\
         multi timeout=1/1 capath=0 pause=2: setopt=0 setopt=0 first=0 second=60\n\
         multi timeout=-2/-2 capath=1 pause=0: first=0 second=60\n\
         multi timeout=-1/-1 capath=1 pause=0: setopt=0 setopt=0 first=0 second=60\n\
         easy timeout=-2 capath=0: first=0 second=0\n\
         easy timeout=0 capath=0: setopt=0 first=0 second=60\n\
         easy timeout=-2 capath=1: first=0 second=60\n"
    );
    assert_eq!(ours, reference);
}
