//! `CURLOPT_OPENSOCKETFUNCTION`, `SOCKOPTFUNCTION` and `CLOSESOCKETFUNCTION`: tests/c/sockets.c
//! against our library and the reference libcurl on the same server.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};

#[test]
fn socket_callbacks_match_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| Reply::ok(format!("hello {}\n", req.path())));
    let url = format!("http://127.0.0.1:{}/x", s.port());
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let elsewhere = format!("http://127.0.0.1:{closed}/moved");
    let ours = run_ok("sockets", Lib::Ours, &[&url, &elsewhere]);
    let reference = run_ok("sockets", Lib::Reference, &[&url, &elsewhere]);
    assert!(ours.contains("sockopt error: rc=42 "), "{ours}");
    assert!(
        ours.contains("open and close: rc=0 opens=1 sockopts=1 closes before cleanup=0\n"),
        "{ours}"
    );
    assert!(
        ours.contains("closes=1 closed the opened socket=1 purpose ok=1"),
        "{ours}"
    );
    assert!(ours.contains("open bad: rc=7 "), "{ours}");
    assert!(
        ours.contains("  body: hello /moved\nopen changes the port: rc=0"),
        "{ours}"
    );
    assert!(
        ours.contains("  body: hello /x\nalready connected: rc=0"),
        "{ours}"
    );
    assert_eq!(mask_ms(&ours), mask_ms(&reference), "ours vs reference");
}

/// "after 3 ms" becomes "after N ms": the time a failed connect took.
fn mask_ms(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("after ") {
        out.push_str(&rest[..i + 6]);
        rest = &rest[i + 6..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(" ms") {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}
