//! `CURLMOPT_MAX_TOTAL_CONNECTIONS` and `CURLMOPT_MAX_HOST_CONNECTIONS` (tests/c/connlimits.c):
//! transfers past a limit wait for a connection and then reuse it, as with the reference
//! libcurl; the server counts the connections made.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use std::time::Duration;

/// Every reply waits a little, so the transfers of one multi overlap.
fn slow_server() -> ScriptedServer {
    let s = ScriptedServer::start();
    s.set_handler(|_| {
        Reply::new()
            .sleep(Duration::from_millis(150))
            .write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    });
    s
}

/// Runs connlimits against `lib` with a fresh server; the output and the server's count of
/// connections.
fn run(lib: Lib, total: &str, host: &str, hosts: &[&str]) -> (String, usize) {
    let s = slow_server();
    let urls: Vec<String> = hosts
        .iter()
        .map(|h| format!("http://{h}:{}/", s.port()))
        .collect();
    let mut args = vec![total, host];
    args.extend(urls.iter().map(String::as_str));
    let out = run_ok("connlimits", lib, &args);
    (out, s.connections())
}

fn both(total: &str, host: &str, hosts: &[&str]) -> (String, usize) {
    let ours = run(Lib::Ours, total, host, hosts);
    let reference = run(Lib::Reference, total, host, hosts);
    assert_eq!(ours, reference, "ours vs reference");
    ours
}

#[test]
fn max_total_connections_one_serialises_transfers_on_one_connection() {
    let (out, conns) = both("1", "0", &["127.0.0.1"; 4]);
    assert!(out.starts_with("negative=0\ntotal=0\nhost=0\n"), "{out}");
    assert!(
        out.contains("0: result=0 code=200 new=1\n1: result=0 code=200 new=0\n"),
        "{out}"
    );
    assert!(out.ends_with("connects=1\n"), "{out}");
    assert_eq!(conns, 1);
}

#[test]
fn max_host_connections_two_of_four() {
    let (out, conns) = both("0", "2", &["127.0.0.1"; 4]);
    assert!(
        out.contains(
            "0: result=0 code=200 new=1\n1: result=0 code=200 new=1\n\
             2: result=0 code=200 new=0\n3: result=0 code=200 new=0\n"
        ),
        "{out}"
    );
    assert!(out.ends_with("connects=2\n"), "{out}");
    assert_eq!(conns, 2);
}

#[test]
fn max_total_closes_an_idle_connection_to_another_host() {
    // The second host's transfer waits for the first, then its idle connection is closed to
    // make room.
    let (out, conns) = both("1", "0", &["127.0.0.1", "localhost"]);
    assert!(out.ends_with("connects=2\n"), "{out}");
    assert_eq!(conns, 2);
}

#[test]
fn no_limits_connect_each_transfer() {
    let (out, conns) = both("0", "0", &["127.0.0.1"; 3]);
    assert!(out.ends_with("connects=3\n"), "{out}");
    assert_eq!(conns, 3);
}
