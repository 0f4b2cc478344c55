//! The scripted server records exactly what clients send and replies as scripted.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use oxcurl_testsupport::http::{generated_body, ContinueMode, Exhausted, Reply, ScriptedServer};
use oxcurl_testsupport::process::Exec;

const IDLE: Duration = Duration::from_secs(5);

fn connect(s: &ScriptedServer) -> TcpStream {
    let c = TcpStream::connect(s.addr()).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c
}

/// Reads until `n` bytes arrived (or EOF).
fn read_n(c: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut v = vec![0; n];
    let mut got = 0;
    while got < n {
        match c.read(&mut v[got..]).unwrap() {
            0 => break,
            k => got += k,
        }
    }
    v.truncate(got);
    v
}

fn read_all(c: &mut TcpStream) -> Vec<u8> {
    let mut v = Vec::new();
    c.read_to_end(&mut v).unwrap();
    v
}

const OK_HELLO: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

#[test]
fn records_exact_bytes_and_replies() {
    let s = ScriptedServer::with_replies(vec![Reply::ok("hello")]);
    let req = b"GET /a?b HTTP/1.1\r\nHost: x\r\nX-Odd:  spaced \r\n\r\n";
    let mut c = connect(&s);
    c.write_all(req).unwrap();
    assert_eq!(read_n(&mut c, OK_HELLO.len()), OK_HELLO);
    drop(c);
    assert!(s.wait_idle(IDLE));
    let reqs = s.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].raw(), req);
    assert_eq!(reqs[0].method, "GET");
    assert_eq!(reqs[0].target, "/a?b");
    assert_eq!(reqs[0].path(), "/a");
    assert_eq!(reqs[0].header("x-odd"), Some("spaced"));
    assert_eq!(s.connection_bytes(), vec![req.to_vec()]);
    assert_eq!(s.connections(), 1);
    assert!(s.url().starts_with("http://127.0.0.1:"));
}

#[test]
fn keep_alive_two_requests_one_connection() {
    let s = ScriptedServer::with_replies(vec![Reply::ok("one"), Reply::ok("two!")]);
    let mut c = connect(&s);
    c.write_all(b"GET /1 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let r1 = read_n(&mut c, 41);
    assert_eq!(r1, b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none");
    c.write_all(b"POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        .unwrap();
    let r2 = read_n(&mut c, 42);
    assert_eq!(r2, b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ntwo!");
    drop(c);
    assert!(s.wait_idle(IDLE));
    let reqs = s.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!((reqs[0].conn, reqs[1].conn), (0, 0));
    assert_eq!(reqs[1].body, b"abc");
    assert_eq!(s.connections(), 1);
    // Exhausted script repeats the last reply.
    let mut c = connect(&s);
    c.write_all(b"GET /3 HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(
        read_n(&mut c, 42),
        b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ntwo!"
    );
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.connections(), 2);
    assert_eq!(s.requests()[2].conn, 1);
}

#[test]
fn exhausted_close_policy() {
    let s = ScriptedServer::with_replies(vec![Reply::ok("hello")]);
    s.set_exhausted(Exhausted::Close);
    let mut c = connect(&s);
    c.write_all(b"GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n")
        .unwrap();
    assert_eq!(read_all(&mut c), OK_HELLO);
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.request_count(), 2);
}

#[test]
fn chunked_request_body_read_completely() {
    let s = ScriptedServer::with_replies(vec![Reply::ok("hello")]);
    let body = b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n";
    let head = b"POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    let mut c = connect(&s);
    // Send in awkward pieces.
    c.write_all(head).unwrap();
    for piece in body.chunks(3) {
        c.write_all(piece).unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(read_n(&mut c, OK_HELLO.len()), OK_HELLO);
    c.write_all(b"GET /next HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(read_n(&mut c, OK_HELLO.len()), OK_HELLO);
    drop(c);
    assert!(s.wait_idle(IDLE));
    let reqs = s.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].head, head);
    assert_eq!(reqs[0].body, body);
    assert!(reqs[0].complete);
    assert_eq!(reqs[0].decoded_body(), b"hello, world");
    assert_eq!(reqs[1].target, "/next");
}

#[test]
fn expect_100_continue_default() {
    let s = ScriptedServer::with_replies(vec![Reply::ok("hello")]);
    let mut c = connect(&s);
    c.write_all(b"PUT /f HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        .unwrap();
    let cont = b"HTTP/1.1 100 Continue\r\n\r\n";
    assert_eq!(read_n(&mut c, cont.len()), cont);
    c.write_all(b"data").unwrap();
    assert_eq!(read_n(&mut c, OK_HELLO.len()), OK_HELLO);
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.requests()[0].body, b"data");
}

#[test]
fn expect_final_reply_without_body() {
    let s = ScriptedServer::with_replies(vec![Reply::status(417, &[], "no")]);
    s.set_continue_mode(ContinueMode::FinalReply);
    let mut c = connect(&s);
    let head = b"PUT /f HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n";
    c.write_all(head).unwrap();
    let want = b"HTTP/1.1 417 Expectation Failed\r\nContent-Length: 2\r\n\r\nno";
    assert_eq!(read_n(&mut c, want.len()), want);
    c.write_all(b"late").unwrap();
    c.shutdown(Shutdown::Write).unwrap();
    assert_eq!(read_all(&mut c), b"");
    assert!(s.wait_idle(IDLE));
    let reqs = s.requests();
    assert_eq!(reqs.len(), 1);
    assert!(!reqs[0].complete);
    let mut all = head.to_vec();
    all.extend_from_slice(b"late");
    assert_eq!(s.connection_bytes()[0], all);
}

#[test]
fn expect_ignored_reads_body() {
    let s = ScriptedServer::with_replies(vec![Reply::ok("hello").on_expect(ContinueMode::Ignore)]);
    let mut c = connect(&s);
    c.write_all(b"PUT /f HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    c.write_all(b"ab").unwrap();
    assert_eq!(read_n(&mut c, OK_HELLO.len()), OK_HELLO);
}

#[test]
fn path_routing_and_reset() {
    let s = ScriptedServer::with_replies(vec![Reply::redirect(302, "/b")]);
    s.route("/b", Reply::ok("at b"));
    s.route_seq("/seq", vec![Reply::ok("s1"), Reply::ok("s2")]);
    let get = |path: &str| {
        let mut c = connect(&s);
        c.write_all(format!("GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n").as_bytes())
            .unwrap();
        c.shutdown(Shutdown::Write).unwrap();
        String::from_utf8(read_all(&mut c)).unwrap()
    };
    assert!(get("/a").starts_with("HTTP/1.1 302 Found\r\nContent-Length: 0\r\nLocation: /b\r\n"));
    assert!(get("/b?x=1").ends_with("at b"));
    assert!(get("/seq").ends_with("s1"));
    assert!(get("/seq").ends_with("s2"));
    assert!(get("/seq").ends_with("s2"));
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.connections(), 5);
    s.reset();
    assert_eq!(s.connections(), 0);
    assert!(s.requests().is_empty());
    assert!(get("/seq").ends_with("s1"));
    assert!(get("/zzz").starts_with("HTTP/1.1 302"));
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.connections(), 2);
    assert_eq!(s.requests()[1].target, "/zzz");
}

#[test]
fn handler_chooses_replies() {
    let s = ScriptedServer::start();
    s.set_handler(|r| Reply::ok(format!("you asked for {}", r.target)));
    let mut c = connect(&s);
    c.write_all(b"GET /x HTTP/1.1\r\n\r\n").unwrap();
    let want = b"HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\nyou asked for /x";
    assert_eq!(read_n(&mut c, want.len()), want);
}

#[test]
fn no_script_gives_404() {
    let s = ScriptedServer::start();
    let mut c = connect(&s);
    c.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    let want = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    assert_eq!(read_n(&mut c, want.len()), want);
}

#[test]
fn generated_big_body_streams() {
    let len: u64 = 50 * 1024 * 1024 + 7;
    let s = ScriptedServer::with_replies(vec![Reply::big(len)]);
    let mut c = connect(&s);
    c.write_all(b"GET /big HTTP/1.1\r\n\r\n").unwrap();
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\n\r\n");
    assert_eq!(read_n(&mut c, head.len()), head.as_bytes());
    let mut got = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    let mut first = Vec::new();
    while got < len {
        let n = c.read(&mut buf).unwrap();
        assert!(n > 0);
        if first.len() < 1000 {
            first.extend_from_slice(&buf[..n.min(1000)]);
        }
        got += n as u64;
    }
    assert_eq!(got, len);
    assert_eq!(&first[..1000], &generated_body(1000)[..]);
    // HEAD gets no body.
    c.write_all(b"HEAD /big HTTP/1.1\r\n\r\nGET /x HTTP/1.1\r\n\r\n")
        .unwrap();
    assert_eq!(read_n(&mut c, head.len()), head.as_bytes());
    assert_eq!(read_n(&mut c, head.len()), head.as_bytes());
}

#[test]
fn slow_writes_sleep_and_close() {
    let s = ScriptedServer::with_replies(vec![Reply::raw("HTTP/1.1 200 OK\r\n\r\n")
        .write_slowly("abcdef", 2, Duration::from_millis(30))
        .sleep(Duration::from_millis(50))
        .write("!")]);
    let mut c = connect(&s);
    let t = Instant::now();
    c.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    // No Content-Length: body delimited by close, so the server closes by itself.
    assert_eq!(read_all(&mut c), b"HTTP/1.1 200 OK\r\n\r\nabcdef!");
    assert!(t.elapsed() >= Duration::from_millis(100));
}

#[test]
fn close_without_reading_request() {
    let s = ScriptedServer::with_replies(vec![Reply::close_at_once()]);
    let mut c = connect(&s);
    c.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(read_all(&mut c), b"");
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.connections(), 1);
    assert_eq!(s.request_count(), 0);
    assert_eq!(s.connection_bytes()[0], b"GET / HTTP/1.1\r\n\r\n");
}

#[test]
fn reset_action_closes() {
    let s = ScriptedServer::with_replies(vec![Reply::raw(
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
    )
    .reset()]);
    let mut c = connect(&s);
    c.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    let mut v = Vec::new();
    let _ = c.read_to_end(&mut v);
    let sent = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
    assert!(sent.starts_with(&v), "{v:?}");
}

#[test]
fn concurrent_connections() {
    let s =
        ScriptedServer::with_replies(vec![Reply::ok("hello").sleep(Duration::from_millis(200))]);
    let t = Instant::now();
    let mut conns: Vec<_> = (0..4).map(|_| connect(&s)).collect();
    for c in &mut conns {
        c.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    }
    for c in &mut conns {
        assert_eq!(read_n(c, OK_HELLO.len()), OK_HELLO);
    }
    assert!(t.elapsed() < Duration::from_millis(700));
    drop(conns);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.connections(), 4);
}

#[test]
fn raw_mode_records_reads() {
    let s = ScriptedServer::raw(|mut conn| {
        let req = conn.read_request().unwrap();
        let body = format!("conn {} {}", conn.id(), req.path());
        conn.send(&Reply::ok(body).keep_open(false));
    });
    let mut c = connect(&s);
    c.write_all(b"GET /raw HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(
        read_all(&mut c),
        b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nconn 0 /raw"
    );
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.connection_bytes()[0], b"GET /raw HTTP/1.1\r\n\r\n");
    assert_eq!(s.request_count(), 1);
}

#[test]
fn drop_stops_server_with_open_connections() {
    let s = ScriptedServer::with_replies(vec![Reply::ok("x").sleep(Duration::from_secs(60))]);
    let addr = s.addr();
    let mut c = connect(&s);
    c.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let t = Instant::now();
    drop(s);
    assert!(t.elapsed() < Duration::from_secs(2));
    let mut v = Vec::new();
    let _ = c.read_to_end(&mut v);
    assert!(TcpStream::connect(addr).is_err());
}

#[test]
fn ipv6_loopback() {
    let Ok(s) = ScriptedServer::start_v6() else {
        return; // no IPv6 loopback on this machine
    };
    s.set_replies(vec![Reply::ok("hello")]);
    assert!(s.url().starts_with("http://[::1]:"));
    let mut c = connect(&s);
    c.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(read_n(&mut c, OK_HELLO.len()), OK_HELLO);
}

#[test]
fn system_curl_upload_is_recorded() {
    if !Path::new("/usr/bin/curl").exists() {
        return;
    }
    let s = ScriptedServer::with_replies(vec![Reply::ok("hello")]);
    let out = Exec::new("/usr/bin/curl")
        .args(["-sS", "-q", "-T", "-"])
        .arg(format!("{}/up", s.url()))
        .arg(format!("{}/second", s.url()))
        .stdin(b"some upload data")
        .env_remove("http_proxy")
        // cargo puts target/<profile> on the library path, where our libcurl.so.4 is
        // built: the system curl must load the system's.
        .env_remove("LD_LIBRARY_PATH")
        .run();
    assert!(s.wait_idle(IDLE));
    let reqs = s.requests();
    assert_eq!(
        out.code,
        Some(0),
        "{} {:?}",
        out.stderr_str(),
        s.connection_bytes()
    );
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert!(reqs[0]
        .head
        .starts_with(b"PUT /up HTTP/1.1\r\nHost: 127.0.0.1:"));
    assert!(reqs[0].is_chunked());
    assert_eq!(reqs[0].decoded_body(), b"some upload data");
    assert!(reqs[0].complete);
    // -T - applies to the first URL only; the second is a GET on the same connection.
    assert!(reqs[1].head.starts_with(b"GET /second HTTP/1.1\r\n"));
    assert_eq!(s.connections(), 1);
    assert_eq!(out.stdout, b"hellohello");
}

#[test]
fn system_curl_expect_100() {
    if !Path::new("/usr/bin/curl").exists() {
        return;
    }
    let s = ScriptedServer::with_replies(vec![Reply::ok("hello")]);
    let body = vec![b'x'; 2_000_000];
    let out = Exec::new("/usr/bin/curl")
        .args([
            "-sS",
            "-q",
            "--data-binary",
            "@-",
            "-H",
            "Expect: 100-continue",
        ])
        .arg(format!("{}/post", s.url()))
        .stdin(&body)
        .env_remove("LD_LIBRARY_PATH")
        .run();
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    assert!(s.wait_idle(IDLE));
    let reqs = s.requests();
    assert_eq!(reqs[0].body.len(), body.len());
    assert!(
        out.elapsed < Duration::from_millis(900),
        "100-continue not answered"
    );
}
