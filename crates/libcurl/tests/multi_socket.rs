//! The event-driven multi API (curl_multi_socket_action with SOCKETFUNCTION/TIMERFUNCTION,
//! curl_multi_assign), curl_multi_wakeup, curl_multi_get_handles and curl_multi_waitfds:
//! C programs run against our libcurl.so.4 and the reference libcurl, outputs compared.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use std::net::ToSocketAddrs;

/// Replies to `/i` with "hello from /i\n" repeated `repeat` times.
fn server(repeat: usize) -> ScriptedServer {
    let s = ScriptedServer::start();
    s.set_handler(move |req| {
        Reply::status(
            200,
            &[("Content-Type", "text/plain")],
            format!("hello from {}\n", req.path()).repeat(repeat),
        )
    });
    s
}

/// The machine's own name when it resolves to 127.0.0.1 through the system resolver (so a
/// transfer goes through the threaded lookup and its wake socket), else 127.0.0.1.
fn name_for_loopback(port: u16) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host = host.trim();
    let loopback = !host.is_empty()
        && (host, port)
            .to_socket_addrs()
            .is_ok_and(|mut a| a.all(|a| a.ip() == std::net::IpAddr::from([127, 0, 0, 1])));
    if loopback {
        host.to_string()
    } else {
        "127.0.0.1".to_string()
    }
}

fn port(url: &str) -> u16 {
    url.rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port")
}

#[test]
fn socket_action_epoll_loop_100_transfers_matches_reference() {
    let s = server(300);
    let url = s.url();
    let base = format!("http://{}:{}", name_for_loopback(port(&url)), port(&url));
    let ours = run_ok("sockaction", Lib::Ours, &[&base, "100", "300"]);
    let expected = "assign_unknown=5\n\
         timer_after_add=0\n\
         running=0 messages=100 ok=100 bodies_ok=100\n\
         violations=0 assign_in_callback=0\n\
         recursive_in_socket_cb=8 recursive_in_timer_cb=8\n";
    assert!(ours.starts_with(expected), "{ours}");
    assert!(
        ours.ends_with("sockets_used=1 live_sockets_at_end=0\ntimer_after_remove=-1\n"),
        "{ours}"
    );
    let reference = run_ok("sockaction", Lib::Reference, &[&base, "100", "300"]);
    assert_eq!(ours, reference);
    assert_eq!(s.requests().len(), 200);
}

#[test]
fn wakeup_ends_poll_from_another_thread_matches_reference() {
    let ours = run_ok("wakeup", Lib::Ours, &[]);
    let expected = "wakeup_null=1\n\
         poll_from_thread rc=0 numfds=0 early=1\n\
         poll_after_wakeup rc=0 numfds=0 early=1\n\
         wait_leaves_wakeup rc=0 numfds=0\n\
         next_poll rc=0 early=1\n\
         poll_without_wakeup rc=0 full=1\n";
    assert_eq!(ours, expected);
    let reference = run_ok("wakeup", Lib::Reference, &[]);
    assert_eq!(ours, reference);
}

#[test]
fn get_handles_and_waitfds_match_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|_| {
        // Slow enough that the transfer is seen waiting for the response.
        std::thread::sleep(std::time::Duration::from_millis(300));
        Reply::status(200, &[], "slow\n")
    });
    let url = s.url();
    let ours = run_ok("handles", Lib::Ours, &[&url]);
    assert!(ours.contains("two=2\nafter_remove=1\n"), "{ours}");
    assert!(
        ours.contains("waiting_for_response count=1 events=1 revents=0\n"),
        "{ours}"
    );
    let reference = run_ok("handles", Lib::Reference, &[&url]);
    assert_eq!(ours, reference);
}

#[test]
fn wait_and_poll_with_extra_fds_match_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|_| {
        std::thread::sleep(std::time::Duration::from_millis(300));
        Reply::status(200, &[], "slow\n")
    });
    let url = s.url();
    let ours = run_ok("waitextra", Lib::Ours, &[&url]);
    let expected = "idle rc=0 numfds=0 revents=0x70 waited=1\n\
         ready rc=0 numfds=2 revents=0x1,0,0x4 fast=1\n\
         poll_ready rc=0 numfds=1 revents=0x1\n\
         transfer running=0\n\
         after rc=0 numfds=1 revents=0x1\n";
    assert_eq!(ours, expected);
    let reference = run_ok("waitextra", Lib::Reference, &[&url]);
    assert_eq!(ours, reference);
}

#[test]
fn valgrind_socket_action_wakeup_handles_are_clean() {
    if std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("valgrind is not installed (scripts/test.sh installs it)");
    }
    let s = server(50);
    let url = s.url();
    let slow = ScriptedServer::start();
    slow.set_handler(|_| {
        std::thread::sleep(std::time::Duration::from_millis(300));
        Reply::status(200, &[], "slow\n")
    });
    let slow_url = slow.url();
    for (prog, args) in [
        ("sockaction", vec![url.as_str(), "20", "50"]),
        ("wakeup", vec![]),
        ("handles", vec![slow_url.as_str()]),
    ] {
        let exe = common::compile(prog, Lib::Ours);
        let out = oxcurl_testsupport::process::Exec::new("valgrind")
            .args([
                "--error-exitcode=1",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite",
                "-q",
            ])
            .arg(&exe)
            .args(&args)
            .env("LD_LIBRARY_PATH", Lib::Ours.dir())
            .timeout(std::time::Duration::from_secs(120))
            .run();
        let _ = std::fs::remove_file(&exe);
        assert_eq!(out.code, Some(0), "valgrind {prog}: {}", out.stderr_str());
        assert!(
            !out.stdout_str().contains("violation:") && !out.stdout_str().contains("stuck"),
            "{prog}: {}",
            out.stdout_str()
        );
    }
}

#[test]
fn refusing_socket_or_timer_callback_fails_the_transfers_as_curl_does() {
    let s = oxcurl_testsupport::http::ScriptedServer::start();
    // A slow answer: a transfer that finished inside one call would never show its socket.
    s.set_handler(|_| {
        oxcurl_testsupport::http::Reply::new()
            .sleep(std::time::Duration::from_millis(300))
            .write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
    });
    let url = format!("{}/dead", s.url().trim_end_matches('/'));
    // The socket callback's -1 fails the transfer (and b is refused); the timer's makes
    // curl_multi_add_handle fail and take a back out, and b runs.
    for (mode, done) in [
        ("socket", "done: a=42 b=-1\n"),
        ("timer", "done: a=-1 b=0\n"),
    ] {
        let ours = run_ok("deadmulti", Lib::Ours, &[mode, &url]);
        assert!(ours.contains(done), "{mode}: {ours}");
        let reference = run_ok("deadmulti", Lib::Reference, &[mode, &url]);
        assert_eq!(ours, reference, "{mode}: ours vs reference");
    }
}

/// The sockets an `events=` line (tag, then `CURL_POLL_*`: 1 IN, 2 OUT, 3 INOUT, 4 REMOVE)
/// had live together at each step, as (tag, what) lists.
fn live_sets(out: &str) -> Vec<Vec<(char, u8)>> {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("events="))
        .expect("events line");
    let mut live: Vec<(char, u8)> = Vec::new();
    let mut steps = Vec::new();
    for ev in line.split(' ') {
        let tag = ev.chars().next().expect("tag");
        let what: u8 = ev[1..].parse().expect("what");
        live.retain(|l| l.0 != tag);
        if what != 4 {
            live.push((tag, what));
        }
        steps.push(live.clone());
    }
    steps
}

/// FTP through the event API: the socket callback is told about the control connection and
/// the data connection while both are in use. Passive: the data connection's connect is
/// watched beside the control connection. Active: the listening socket is watched beside
/// the control connection from the moment it exists (curl's listening filter), then the
/// accepted socket. A socket keeps its identity from connect to use (its interest changes
/// in place). The same program on libcurl 8.14.1 shows the same.
#[test]
fn socket_action_ftp_sees_control_and_data_connections_matches_reference() {
    use oxcurl_testsupport::ftp::{FtpReply, FtpServer, Transfer};
    let s = FtpServer::start();
    for i in 0..3 {
        s.file(&format!("/{i}"), format!("hello from /{i}\n").repeat(2000));
    }
    // Slow enough that the transfer waits on its data connection more than once; late
    // replies to the commands that make the data connection, so that the client always
    // waits with that socket live (how far it gets within one call otherwise depends on
    // how fast the server thread answers).
    s.set_transfer(Transfer::new().slowly(7000, std::time::Duration::from_millis(40)));
    for cmd in ["EPRT", "EPSV", "RETR"] {
        s.reply_always(
            cmd,
            FtpReply::delayed(std::time::Duration::from_millis(100)),
        );
    }
    let base = s.url();
    let base = base.trim_end_matches('/');
    // A control socket watched for reading beside a data socket: the listening one in
    // active mode, the connecting one (watched for writing) in passive mode.
    let both = |out: &str, data_what: u8| {
        live_sets(out)
            .iter()
            .any(|l| l.len() == 2 && l.contains(&('A', 1)) && l.iter().any(|x| x.1 == data_what))
    };
    for (mode, data_what) in [("pasv", 2), ("-", 1)] {
        for n in ["1", "3"] {
            let ours = run_ok("sockaction", Lib::Ours, &[base, n, "2000", mode]);
            assert!(
                ours.contains(&format!(
                    "running=0 messages={n} ok={n} bodies_ok={n}\nviolations=0"
                )),
                "{mode} {n}: {ours}"
            );
            assert!(
                ours.contains("live_sockets_at_end=0\n"),
                "{mode} {n}: {ours}"
            );
            if n == "1" {
                assert!(ours.contains("max_live_sockets=2\n"), "{mode}: {ours}");
                assert!(both(&ours, data_what), "{mode}: {ours}");
                // The connection's socket is reported once, OUT then IN: no REMOVE and new
                // report between its connect and its use.
                assert!(ours.contains("events=A2 A1 "), "{mode}: {ours}");
                if mode == "-" {
                    // Listening (B), then the accepted socket (C) for reading.
                    assert!(
                        ours.contains(" B4 ") && ours.contains(" C1"),
                        "{mode}: {ours}"
                    );
                }
                let reference = run_ok("sockaction", Lib::Reference, &[base, n, "2000", mode]);
                assert!(both(&reference, data_what), "{mode}: {reference}");
                let fixed = |o: &str| -> String {
                    o.lines()
                        .filter(|l| !l.starts_with("events="))
                        .map(|l| format!("{l}\n"))
                        .collect()
                };
                assert_eq!(fixed(&ours), fixed(&reference), "{mode}: ours vs reference");
            } else {
                // Three transfers at once: each has its control connection and its data
                // connection (and, active, a listening socket) at some point.
                let max: usize = ours
                    .split("max_live_sockets=")
                    .nth(1)
                    .and_then(|r| r.lines().next())
                    .and_then(|v| v.parse().ok())
                    .expect("max_live_sockets");
                assert!((4..=9).contains(&max), "{mode}: {ours}");
            }
        }
    }
    assert!(s.data_connections() >= 8, "{}", s.data_connections());
}
