//! An easy handle's connection cache limits: CURLOPT_MAXCONNECTS, CURLOPT_MAXAGE_CONN and
//! CURLOPT_MAXLIFETIME_CONN, tests/c/connage.c against our library and the reference
//! libcurl on the same keep-alive server.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};

fn compare(mode: &str) -> String {
    let s = ScriptedServer::start();
    s.set_handler(|_| Reply::ok("x\n"));
    let port = s
        .url()
        .rsplit(':')
        .next()
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string();
    let ours = run_ok("connage", Lib::Ours, &[&port, mode]);
    let reference = run_ok("connage", Lib::Reference, &[&port, mode]);
    assert_eq!(ours, reference, "{mode}: ours vs reference");
    ours
}

#[test]
fn maxconnects_closes_the_oldest_idle_connection() {
    let out = compare("maxconnects");
    assert_eq!(
        out,
        "server1: rc=0 new connections=1\nserver2: rc=0 new connections=1\n\
         server3: rc=0 new connections=1\nserver1: rc=0 new connections=1\n\
         server3: rc=0 new connections=0\n"
    );
}

#[test]
fn too_old_connections_are_not_reused() {
    let out = compare("maxage");
    assert!(
        out.ends_with("server1: rc=0 new connections=1\nserver1: rc=0 new connections=0\n"),
        "{out}"
    );
    let out = compare("maxlifetime");
    assert_eq!(
        out,
        "server1: rc=0 new connections=1\nserver1: rc=0 new connections=0\n\
         server1: rc=0 new connections=1\n"
    );
}

/// A too old connection is noted as curl notes it, both when the once-a-second sweep of the
/// pool finds it (to another host) and when the search for one to reuse does.
#[test]
fn too_old_connections_are_noted() {
    let out = compare("notes");
    assert_eq!(
        out,
        "server1: rc=0 new connections=1\n\
         Too old connection (2 seconds idle), disconnect it\n\
         Connection 0 seems to be dead\n\
         shutting down connection #0\n\
         server2: rc=0 new connections=1\nserver1: rc=0 new connections=1\n\
         Too old connection (2 seconds since creation), disconnect it\n\
         Connection 1 seems to be dead\n\
         shutting down connection #1\n\
         server2: rc=0 new connections=1\n"
    );
}

#[test]
fn negative_values_and_too_many_connections_are_refused() {
    let out = compare("codes");
    assert!(out.contains("MAXCONNECTS -1: 43\n"), "{out}");
    assert!(out.contains("MAXLIFETIME_CONN 0: 0\n"), "{out}");
    assert!(out.contains("MAXCONNECTS max: 43\n"), "{out}");
    assert!(out.contains("MAXLIFETIME_CONN max: 0\n"), "{out}");
}
