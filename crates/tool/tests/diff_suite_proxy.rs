//! Differential tests for proxy behaviour that curl 8.14.1's own test suite
//! (scripts/curl-testsuite.sh) found different: each test names the curl test it stands for
//! and checks the same behaviour against the reference curl, the scripted server playing the
//! proxy.

use oxcurl_testsupport::{Case, Reply, SocksMode, SocksServer, TlsServerOptions};
use std::io::{Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// A case comparing stderr too: the errors and `-v` notes are what these tests are about.
fn case(name: &str) -> Case {
    Case::new(name).compare_stderr(true)
}

/// `-v` output and trace files with digits masked, without curl's racy "Request completely
/// sent off" line (curl skips it when the whole response arrived before it noticed the
/// request was sent).
fn verbose_norm(data: &[u8]) -> Vec<u8> {
    let masked = oxcurl_testsupport::diff::mask_digits(data);
    let masked =
        oxcurl_testsupport::diff::replace_all(&masked, b"* Request completely sent off\n", b"");
    // The same line in a trace file.
    oxcurl_testsupport::diff::replace_all(&masked, b"== Info: Request completely sent off\n", b"")
}

fn established() -> Reply {
    Reply::raw("HTTP/1.1 200 Connection established\r\n\r\n").keep_open(true)
}

// ---- CONNECT replies (curl tests 750, 1287, 1008) --------------------------------------

/// curl test 750: a proxy answering CONNECT with an HTML page and closing. The page's
/// second line has no colon: curl's header store refuses it, "Invalid response header" (43).
#[test]
fn t750_connect_answered_with_html() {
    case("t750_connect_answered_with_html")
        .args(&["-sS", "-p", "-x", "{url}", "http://test.example/"])
        .reply(Reply::raw("<html>\n<h1>400 Bad request</h1>\n</html>\n").close())
        .run(OXCURL);
}

/// The same with `-v`: the refused line is shown first, then the error.
#[test]
fn t750_connect_answered_with_html_verbose() {
    case("t750_connect_answered_with_html_verbose")
        .args(&["-sS", "-v", "-p", "-x", "{url}", "http://test.example/"])
        .reply(Reply::raw("<html>\n<h1>400 Bad request</h1>\n</html>\n").close())
        .normalise_with(verbose_norm)
        .run(OXCURL);
}

/// A CONNECT header line that is only blanks, after the status line: curl fails with 8.
#[test]
fn connect_blank_header_line() {
    case("connect_blank_header_line")
        .args(&["-sS", "-p", "-x", "{url}", "http://test.example/"])
        .reply(Reply::raw("HTTP/1.1 200 OK\r\n  \r\n\r\n").close())
        .run(OXCURL);
}

/// A folded CONNECT header line continues the one before: no error.
#[test]
fn connect_folded_header_line() {
    case("connect_folded_header_line")
        .args(&["-sS", "-i", "-p", "-x", "{url}", "http://test.example/"])
        .replies(vec![
            Reply::raw("HTTP/1.1 200 OK\r\nX-A: 1\r\n  more\r\n\r\n").keep_open(true),
            Reply::ok("through\n"),
        ])
        .run(OXCURL);
}

/// A failed CONNECT is not "CONNECT phase completed": curl says so only of a tunnel that is
/// up.
#[test]
fn connect_403_verbose() {
    case("connect_403_verbose")
        .args(&["-sS", "-v", "-p", "-x", "{url}", "http://test.example/"])
        .reply(Reply::status(403, &[], "no\n").close())
        .normalise_with(verbose_norm)
        .run(OXCURL);
}

/// curl test 1287: Content-Length and Transfer-Encoding in a 2xx reply to CONNECT are
/// ignored, with a note for each.
#[test]
fn t1287_connect_2xx_ignores_length_and_encoding() {
    case("t1287_connect_2xx_ignores_length_and_encoding")
        .args(&["-sS", "-v", "-p", "-x", "{url}", "http://test.1287/page"])
        .replies(vec![
            Reply::raw(
                "HTTP/1.1 200 Mighty fine indeed\r\nContent-Length: 123\r\n\
                 Transfer-Encoding: chunked\r\n\r\n",
            )
            .keep_open(true),
            Reply::ok("contents\n"),
        ])
        .normalise_with(verbose_norm)
        .run(OXCURL);
}

/// runtests runs curl test 1287 with `--trace-ascii FILE` before the test's own `-v`: the
/// later `-v` wins, so the notes go to stderr and no trace file is written.
#[test]
fn t1287_verbose_after_trace_ascii_goes_to_stderr() {
    case("t1287_verbose_after_trace_ascii_goes_to_stderr")
        .args(&[
            "-s",
            "--trace-ascii",
            "{tmp}/trace",
            "-v",
            "-p",
            "-x",
            "{url}",
            "http://test.1287/page",
        ])
        .replies(vec![
            Reply::raw("HTTP/1.1 200 Fine\nContent-Length: 123\nTransfer-Encoding: chunked\n\n")
                .keep_open(true),
            Reply::ok("contents\n"),
        ])
        .normalise_with(verbose_norm)
        .compare_files(true)
        .run(OXCURL);
}

/// The trace options and `-v` in every order: the last one wins, with curl's warnings
/// (shown without `-s`; no progress meter to compare).
#[test]
fn trace_and_verbose_last_one_wins() {
    for (name, args) in [
        ("ascii_then_v", &["--trace-ascii", "{tmp}/t", "-v"][..]),
        ("v_then_ascii", &["-v", "--trace-ascii", "{tmp}/t"]),
        (
            "trace_then_ascii",
            &["--trace", "{tmp}/t", "--trace-ascii", "{tmp}/t"],
        ),
        (
            "ascii_then_no_verbose",
            &["--trace-ascii", "{tmp}/t", "--no-verbose"],
        ),
    ] {
        let mut all = vec!["--no-progress-meter"];
        all.extend_from_slice(args);
        all.push("{url}/t");
        case(&format!("trace_and_verbose_{name}"))
            .args(&all)
            .reply(Reply::ok("t\n"))
            .normalise_with(verbose_norm)
            .compare_files(true)
            .run(OXCURL);
    }
}

/// A 407 with a Content-Length curl cannot read: "Unsupported Content-Length value" (8).
#[test]
fn connect_407_bad_content_length() {
    case("connect_407_bad_content_length")
        .args(&["-sS", "-p", "-x", "{url}", "http://test.example/"])
        .reply(
            Reply::raw(
                "HTTP/1.1 407 Who\r\nProxy-Authenticate: Basic realm=\"p\"\r\n\
                 Content-Length: x\r\n\r\n",
            )
            .close(),
        )
        .run(OXCURL);
}

/// The NTLM type-2 message of curl test 1008 (no NTLM2 key: the answer is LM + NTLM v1,
/// without randomness, so the requests compare byte for byte).
const TYPE2_1008: &str = "NTLM TlRMTVNTUAACAAAAAgACADAAAACGggEAc51AYVDgyNcAAAAAAAAAAG4AbgAyAAAAQ0MCAAQAQwBDAAEAEgBFAEwASQBTAEEAQgBFAFQASAAEABgAYwBjAC4AaQBjAGUAZABlAHYALgBuAHUAAwAsAGUAbABpAHMAYQBiAGUAdABoAC4AYwBjAC4AaQBjAGUAZABlAHYALgBuAHUAAAAAAA==";

/// A 407 to CONNECT with a chunked body (with a chunk extension and a trailer) on a
/// connection the proxy keeps open.
fn chunked_407() -> Reply {
    let mut r = format!(
        "HTTP/1.1 407 Authorization Required to proxy me my dear\r\n\
         Proxy-Authenticate: {TYPE2_1008}\r\nTransfer-Encoding: chunked\r\n\r\n\
         20\r\nAnd you should ignore this data.\r\nFA0;ext=1\r\n"
    );
    r.push_str(&"X".repeat(0xfa0));
    r.push_str("\r\n0\r\nX-Trailer: t\r\n\r\n");
    Reply::raw(r).keep_open(true)
}

/// curl test 1008: NTLM through a CONNECT whose 407 is chunked. curl reads the chunked body
/// to its end and sends the type-3 CONNECT on the same connection.
#[test]
fn t1008_ntlm_chunked_407_same_connection() {
    case("t1008_ntlm_chunked_407_same_connection")
        .args(&[
            "-sS",
            "-v",
            "-p",
            "-x",
            "{url}",
            "--proxy-ntlm",
            "-U",
            "testuser:testpass",
            "http://test.remote.example.com.1008/path/10080002",
        ])
        .replies(vec![chunked_407(), established(), Reply::ok("daniel\n")])
        .normalise_with(verbose_norm)
        .run(OXCURL);
}

/// A malformed chunked 407 body fails the transfer as curl's chunk reader does.
#[test]
fn connect_407_bad_chunk() {
    case("connect_407_bad_chunk")
        .args(&[
            "-sS",
            "-p",
            "-x",
            "{url}",
            "--proxy-basic",
            "-U",
            "u:p",
            "http://test.example/",
        ])
        .reply(
            Reply::raw(
                "HTTP/1.1 407 Who\r\nProxy-Authenticate: Basic realm=\"p\"\r\n\
                 Transfer-Encoding: chunked\r\n\r\nzz\r\n",
            )
            .close(),
        )
        .run(OXCURL);
}

// ---- SOCKS over a Unix socket (curl tests 1467, 1468, 1470) -----------------------------

/// A Unix socket in front of the scripted SOCKS server: each connection to it is relayed to
/// the SOCKS server's TCP port, which records the handshake.
struct UnixSocks {
    socks: SocksServer,
    path: PathBuf,
}

impl UnixSocks {
    fn start(name: &str) -> UnixSocks {
        let socks = SocksServer::start(SocksMode::Relay { auth: None });
        let path =
            std::env::temp_dir().join(format!("oxcurl-socks-{}-{name}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).expect("bind unix socket");
        let port = socks.port();
        std::thread::spawn(move || {
            for c in listener.incoming().flatten() {
                let Ok(up) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
                    continue;
                };
                let (Ok(c2), Ok(up2)) = (c.try_clone(), up.try_clone()) else {
                    continue;
                };
                // Each direction passes its end of stream on, so both sides see the close.
                std::thread::spawn(move || {
                    pipe(&c2, &up2);
                    let _ = up2.shutdown(Shutdown::Write);
                });
                std::thread::spawn(move || {
                    pipe(&up, &c);
                    let _ = c.shutdown(Shutdown::Write);
                });
            }
        });
        UnixSocks { socks, path }
    }

    fn path(&self) -> &str {
        self.path.to_str().expect("utf-8 path")
    }

    /// Both clients sent the same SOCKS handshake, through the Unix socket.
    fn assert_same_handshakes(&self) {
        let hs = self.socks.handshakes();
        assert_eq!(hs.len(), 2, "one handshake per client: {hs:?}");
        assert_eq!(hs[0], hs[1]);
    }
}

impl Drop for UnixSocks {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn pipe(mut from: impl Read, mut to: impl Write) {
    let mut buf = [0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 || to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
}

/// `args` with `{sock}` replaced by the Unix socket's path.
fn with_sock(args: &[&str], sock: &UnixSocks) -> Vec<String> {
    args.iter()
        .map(|a| a.replace("{sock}", sock.path()))
        .collect()
}

/// curl test 1467: `--socks5 localhost/path` connects to the SOCKS proxy over that Unix
/// socket and resolves the origin locally.
#[test]
fn t1467_socks5_over_unix_socket() {
    let sock = UnixSocks::start("t1467");
    let args = with_sock(&["-sS", "--socks5", "localhost{sock}", "{url}/1467"], &sock);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    case("t1467_socks5_over_unix_socket")
        .args(&args)
        .reply(Reply::ok("via unix socks\n"))
        .run(OXCURL);
    sock.assert_same_handshakes();
}

/// curl test 1468: a `socks5h://localhost/path` proxy URL; the host name goes to the proxy.
#[test]
fn t1468_socks5h_over_unix_socket() {
    let sock = UnixSocks::start("t1468");
    let args = with_sock(
        &[
            "-sS",
            "http://localhost:{port}/1468",
            "--proxy",
            "socks5h://LOCALHOST{sock}",
        ],
        &sock,
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    case("t1468_socks5h_over_unix_socket")
        .args(&args)
        .reply(Reply::ok("via unix socks\n"))
        .run(OXCURL);
    sock.assert_same_handshakes();
}

/// curl test 1470: HTTPS through a SOCKS5h proxy on a Unix socket.
#[test]
fn t1470_https_socks5h_over_unix_socket() {
    let sock = UnixSocks::start("t1470");
    let args = with_sock(
        &[
            "-sS",
            "-k",
            "https://localhost:{port}/1470",
            "--proxy",
            "socks5h://localhost{sock}",
        ],
        &sock,
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    case("t1470_https_socks5h_over_unix_socket")
        .tls(TlsServerOptions::default())
        .args(&args)
        .reply(Reply::ok("secret\n"))
        .run(OXCURL);
    sock.assert_same_handshakes();
}

/// The `-v` story of a SOCKS proxy on a Unix socket: "Trying /path:0...", the SOCKS notes,
/// and the connection named after the proxy and its socket.
#[test]
fn socks5h_over_unix_socket_verbose() {
    let sock = UnixSocks::start("verbose");
    let args = with_sock(
        &[
            "-sS",
            "-v",
            "--proxy",
            "socks5h://localhost{sock}",
            "http://localhost:{port}/v",
        ],
        &sock,
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    case("socks5h_over_unix_socket_verbose")
        .args(&args)
        .reply(Reply::ok("v\n"))
        .normalise_with(verbose_norm)
        .run(OXCURL);
    sock.assert_same_handshakes();
}

/// `-w`'s addresses through a SOCKS proxy on a Unix socket: curl gives the socket's path
/// as the remote address, no local address, and 0 for both ports.
#[test]
fn socks5h_over_unix_socket_writeout_addresses() {
    let sock = UnixSocks::start("writeout");
    let args = with_sock(
        &[
            "-sS",
            "--proxy",
            "socks5h://localhost{sock}",
            "-w",
            "[%{remote_ip}] [%{remote_port}] [%{local_ip}] [%{local_port}]\\n",
            "http://localhost:{port}/w",
        ],
        &sock,
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    case("socks5h_over_unix_socket_writeout_addresses")
        .args(&args)
        .reply(Reply::ok("w\n"))
        .run(OXCURL);
    sock.assert_same_handshakes();
}

/// A Unix socket that is not there: curl's note on the failed connect and error 7, naming
/// the proxy with its path.
#[test]
fn socks5_missing_unix_socket() {
    let path = std::env::temp_dir().join(format!("oxcurl-no-such-{}.sock", std::process::id()));
    let proxy = format!("localhost{}", path.display());
    case("socks5_missing_unix_socket")
        .args(&["-sS", "-v", "--socks5", &proxy, "{url}/none"])
        .normalise_with(verbose_norm)
        .expect_failure()
        .run(OXCURL);
}

// ---- --connect-to through proxies (curl tests 2050, 2055) -------------------------------

/// curl test 2050: a `--connect-to` destination through an HTTP proxy switches to a tunnel
/// to that destination; the request inside keeps the URL's Host.
#[test]
fn t2050_connect_to_through_http_proxy_tunnels() {
    case("t2050_connect_to_through_http_proxy_tunnels")
        .args(&[
            "-sS",
            "-v",
            "http://www.example.com.2050/2050",
            "--connect-to",
            "::connect.example.com.2050:{port}",
            "-x",
            "{host}",
        ])
        .replies(vec![established(), Reply::ok("OK\n")])
        .normalise_with(verbose_norm)
        .run(OXCURL);
}

/// curl test 2055: the same with a SOCKS5 pre-proxy in front of the HTTP proxy.
#[test]
fn t2055_connect_to_through_socks_and_http_proxy_tunnels() {
    let socks = SocksServer::start(SocksMode::Relay { auth: None });
    let pre = format!("socks5://127.0.0.1:{}", socks.port());
    case("t2055_connect_to_through_socks_and_http_proxy_tunnels")
        .args(&[
            "-sS",
            "http://www.example.com.2055/2055",
            "--connect-to",
            "::connect.example.com.2055:{port}",
            "-x",
            "{host}",
            "--preproxy",
            &pre,
        ])
        .replies(vec![established(), Reply::ok("OK\n")])
        .run(OXCURL);
    let hs = socks.handshakes();
    assert_eq!(hs.len(), 2, "{hs:?}");
    assert_eq!(hs[0], hs[1]);
}

/// A rule naming no destination is skipped for the next one (`-v` names what was picked),
/// and the tunnel goes to the port alone when only the port changes.
#[test]
fn connect_to_rule_without_destination_is_skipped() {
    case("connect_to_rule_without_destination_is_skipped")
        .args(&[
            "-sS",
            "-v",
            "http://www.example.com/p",
            "--connect-to",
            "www.example.com:80::",
            "--connect-to",
            "www.example.com:80::{port}",
            "-x",
            "{host}",
        ])
        .replies(vec![established(), Reply::ok("OK\n")])
        .normalise_with(verbose_norm)
        .run(OXCURL);
}

/// A `--connect-to` rule for another host leaves the proxy request in absolute form.
#[test]
fn connect_to_other_host_keeps_absolute_form() {
    case("connect_to_other_host_keeps_absolute_form")
        .args(&[
            "-sS",
            "http://www.example.com/p",
            "--connect-to",
            "elsewhere.example::127.0.0.1:1",
            "-x",
            "{host}",
        ])
        .reply(Reply::ok("proxied\n"))
        .run(OXCURL);
}

// ---- SOCKS5 method replies --------------------------------------------------------------

/// A SOCKS5 "proxy" that reads the greeting, waits, answers `reply` and closes. The wait
/// matters: curl 8.14.1 only takes the GSS-API path when the answer is there as soon as it
/// sent the greeting (its `allow_gssapi` is set in that same call only); read later, an
/// answer picking GSS-API gets "per-message authentication is not supported". An answer
/// written at once made the reference take either path, as the scheduler had it.
fn slow_socks_reply(reply: Vec<u8>) -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut b = [0u8; 64];
            let _ = c.read(&mut b);
            std::thread::sleep(std::time::Duration::from_millis(100));
            let _ = c.write_all(&reply);
        }
    });
    port
}

/// A SOCKS5 proxy picking GSS-API, or a method curl does not know: curl 8.14.1's messages.
#[test]
fn socks5_unusable_method_replies() {
    for (name, method) in [
        ("gssapi", 1u8),
        ("undocumented", 3),
        ("none_acceptable", 0xff),
    ] {
        for basic in [false, true] {
            let proxy = format!("socks5://127.0.0.1:{}", slow_socks_reply(vec![5, method]));
            let mut args = vec!["-sS", "-x", &proxy, "{url}/m"];
            if basic {
                args.push("--socks5-basic");
            }
            case(&format!("socks5_method_{name}_{basic}"))
                .args(&args)
                .expect_failure()
                .run(OXCURL);
        }
    }
}
