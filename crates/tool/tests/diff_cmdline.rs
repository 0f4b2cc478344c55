//! Differential tests: command-line parsing, config files and informational options
//! of oxcurl against the reference curl 8.14.1, plus plain assertions where the two
//! cannot produce identical output (version, verbose timings).

use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::sync::{Arc, Mutex};

use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{Case, Exec, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name).args(args).reply(Reply::ok("hello\n"))
}

#[test]
fn combined_short_flags_ssl() {
    Case::new("combined_short_flags_ssl")
        .args(&["-sSL", "{url}/start"])
        .server(|s| {
            s.route(
                "/start",
                Reply::status(301, &[("Location", "/end"), ("Connection", "close")], ""),
            );
            s.route("/end", Reply::ok("end\n"));
        })
        .run(OXCURL);
}

#[test]
fn combined_short_flags_with_value() {
    case(
        "combined_short_flags_with_value",
        &["-sHX-Glued: 1", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn short_option_value_attached() {
    case("short_option_value_attached", &["-s", "-XPUT", "{url}/"]).run(OXCURL);
}

#[test]
fn double_dash_ends_options() {
    case(
        "double_dash_ends_options",
        &["-s", "--", "{url}/after-dashes"],
    )
    .run(OXCURL);
}

#[test]
fn url_before_options() {
    case(
        "url_before_options",
        &["{url}/first", "-s", "-H", "X-Late: 1"],
    )
    .run(OXCURL);
}

#[test]
fn later_option_wins() {
    case(
        "later_option_wins",
        &["-s", "-A", "one", "-A", "two", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn no_progress_meter() {
    case("no_progress_meter", &["--no-progress-meter", "{url}/"])
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn silent_then_no_silent() {
    case(
        "silent_then_no_silent",
        &["-s", "--no-silent", "-o", "{tmp}/o", "{url}/"],
    )
    .compare_stderr(false)
    .run(OXCURL);
}

#[test]
fn show_error_without_silent_error() {
    case("show_error_without_silent_error", &["-sS", "{url}/"])
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn url_query_option() {
    case(
        "url_query_option",
        &[
            "-s",
            "--url-query",
            "a=b c",
            "--url-query",
            "+raw=x%20y",
            "{url}/q?z=1",
        ],
    )
    .run(OXCURL);
}

#[test]
fn variable_expand_url() {
    case(
        "variable_expand_url",
        &[
            "-s",
            "--variable",
            "name=val",
            "--expand-url",
            "{url}/{{name}}",
        ],
    )
    .run(OXCURL);
}

#[test]
fn variable_expand_header_with_function() {
    case(
        "variable_expand_header_with_function",
        &[
            "-s",
            "--variable",
            "v=a b",
            "--expand-header",
            "X-V: {{v:url}}",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

// ---- config files ---------------------------------------------------------------

#[test]
fn config_file_basic() {
    case(
        "config_file_basic",
        &["--connect-to", "cfg.test:80:{host}", "-K", "{tmp}/c.cfg"],
    )
    .file(
        "c.cfg",
        "# comment\nsilent\nurl = \"http://cfg.test/from-config\"\nheader = \"X-Cfg: 1\"\n",
    )
    .run(OXCURL);
}

#[test]
fn config_file_dash_prefixed_options() {
    case(
        "config_file_dash_prefixed_options",
        &["-K", "{tmp}/c.cfg", "{url}/cli"],
    )
    .file("c.cfg", "-s\n--user-agent \"cfg agent\"\n-H X-Short:1\n")
    .run(OXCURL);
}

#[test]
fn config_file_data_and_escapes() {
    case(
        "config_file_data_and_escapes",
        &["-s", "-K", "{tmp}/c.cfg", "{url}/p"],
    )
    .file("c.cfg", "data = \"a=1\\tb\\\\c\"\ndata: second=2\n")
    .run(OXCURL);
}

#[test]
fn config_from_stdin() {
    case(
        "config_from_stdin",
        &["--connect-to", "cfg.test:80:{host}", "-K", "-"],
    )
    .stdin("silent\nurl = http://cfg.test/stdin-config\n")
    .run(OXCURL);
}

#[test]
fn config_file_multiple_urls() {
    case(
        "config_file_multiple_urls",
        &[
            "-s",
            "--connect-to",
            "cfg.test:80:{host}",
            "-K",
            "{tmp}/c.cfg",
        ],
    )
    .file(
        "c.cfg",
        "url = http://cfg.test/one\nurl = http://cfg.test/two\n",
    )
    .run(OXCURL);
}

#[test]
fn curlrc_in_home_is_read() {
    case("curlrc_in_home_is_read", &["{url}/"])
        .file("{home}/.curlrc", "silent\nheader = \"X-From-Curlrc: 1\"\n")
        .run(OXCURL);
}

#[test]
fn curlrc_ignored_with_q() {
    case("curlrc_ignored_with_q", &["-q", "-s", "{url}/"])
        .file("{home}/.curlrc", "header = \"X-From-Curlrc: 1\"\n")
        .run(OXCURL);
}

#[test]
fn curlrc_ignored_with_disable() {
    case(
        "curlrc_ignored_with_disable",
        &["--disable", "-s", "{url}/"],
    )
    .file("{home}/.curlrc", "header = \"X-From-Curlrc: 1\"\n")
    .run(OXCURL);
}

#[test]
fn q_not_first_is_an_error_free_noop() {
    case("q_not_first_is_an_error_free_noop", &["-s", "-q", "{url}/"])
        .file("{home}/.curlrc", "header = \"X-From-Curlrc: 1\"\n")
        .run(OXCURL);
}

// ---- verbose and trace ----------------------------------------------------------

#[test]
fn verbose_stdout_and_exit_match() {
    case("verbose_stdout_and_exit_match", &["-s", "-v", "{url}/"]).run(OXCURL);
}

#[test]
fn verbose_stderr_header_lines() {
    // Only the request and response header lines (`> ` and `< `) are compared; the
    // connection lines carry ports and timings.
    case("verbose_stderr_header_lines", &["-s", "-v", "{url}/"])
        .compare_stderr(true)
        .normalise_with(|d| {
            let s = String::from_utf8_lossy(d);
            s.lines()
                .filter(|l| l.starts_with("> ") || l.starts_with("< "))
                .map(|l| format!("{l}\n"))
                .collect::<String>()
                .into_bytes()
        })
        .run(OXCURL);
}

#[test]
fn trace_ascii_to_file_stdout_matches() {
    case(
        "trace_ascii_to_file_stdout_matches",
        &["-s", "--trace-ascii", "{tmp}/trace.txt", "{url}/"],
    )
    .compare_files(false)
    .run(OXCURL);
}

#[test]
fn trace_ascii_file_written() {
    let r = case(
        "trace_ascii_file_written",
        &["-s", "--trace-ascii", "{tmp}/trace.txt", "{url}/"],
    )
    .compare_files(false)
    .run(OXCURL);
    let t = r.oxcurl.files.get("trace.txt").expect("trace file written");
    let t = String::from_utf8_lossy(t);
    assert!(
        t.contains("=> Send header"),
        "trace lacks '=> Send header':\n{t}"
    );
    assert!(
        t.contains("<= Recv header"),
        "trace lacks '<= Recv header':\n{t}"
    );
    assert!(
        t.contains("<= Recv data"),
        "trace lacks '<= Recv data':\n{t}"
    );
}

#[test]
fn trace_ascii_data_lines_match_reference() {
    let r = case(
        "trace_ascii_data_lines_match_reference",
        &["-s", "--trace-ascii", "{tmp}/trace.txt", "{url}/"],
    )
    .compare_files(false)
    .run(OXCURL);
    let keep = |d: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(d)
            .lines()
            .filter(|l| l.starts_with("=> ") || l.starts_with("<= ") || l.starts_with("00"))
            .map(|l| l.to_string())
            .collect()
    };
    let a = keep(r.reference.files.get("trace.txt").expect("reference trace"));
    let b = keep(r.oxcurl.files.get("trace.txt").expect("oxcurl trace"));
    assert_eq!(a, b, "trace data lines differ");
}

/// Data lines of both trace formats for a body with every byte value and CRLFs placed at
/// and around the 64-column line end of `--trace-ascii`.
#[test]
fn trace_dump_lines_of_binary_and_crlf_body_match_reference() {
    let mut body: Vec<u8> = (0u8..=255).collect();
    body.extend_from_slice(&[b'a'; 62]);
    body.extend_from_slice(b"\r\n");
    body.extend_from_slice(&[b'b'; 63]);
    body.extend_from_slice(b"\r\n\r\n\x7f\r");
    for (name, opt) in [
        ("trace_dump_ascii", "--trace-ascii"),
        ("trace_dump_hex", "--trace"),
    ] {
        let r = Case::new(name)
            .args(&["-s", opt, "{tmp}/trace.txt", "{url}/"])
            .reply(Reply::ok(&body))
            .compare_files(false)
            .run(OXCURL);
        let keep = |d: &[u8]| -> Vec<String> {
            String::from_utf8_lossy(d)
                .lines()
                .filter(|l| l.starts_with("<= Recv data") || l.starts_with('0'))
                .map(|l| l.to_string())
                .collect()
        };
        let a = keep(r.reference.files.get("trace.txt").expect("reference trace"));
        let b = keep(r.oxcurl.files.get("trace.txt").expect("oxcurl trace"));
        assert!(
            a.iter().any(|l| l.starts_with("<= Recv data, 389 bytes")),
            "{a:?}"
        );
        assert_eq!(a, b, "{opt} data lines differ");
    }
}

// ---- informational --------------------------------------------------------------

#[test]
fn version_first_line_shape() {
    let out = Exec::new(under_test(OXCURL)).arg("-V").run();
    assert_eq!(out.exit_code(), 0);
    let s = out.stdout_str();
    assert!(s.starts_with("curl 8.14.1 ("), "unexpected -V output: {s}");
    assert!(
        s.lines().any(|l| l.starts_with("Protocols: ")),
        "no Protocols line: {s}"
    );
    assert!(
        s.lines().any(|l| l.starts_with("Features: ")),
        "no Features line: {s}"
    );
}

/// The Features line names what oxcurl has with curl's words, in curl's order: each feature
/// both list comes in the reference's order, and the ones oxcurl has beyond what a scripted
/// test checks elsewhere (alt-svc, threadsafe) are named, as runtests reads them from here.
#[test]
fn version_features_in_curls_order() {
    let features = |exe: &std::path::Path| -> Vec<String> {
        let out = Exec::new(exe).arg("-V").run();
        let s = out.stdout_str();
        s.lines()
            .find_map(|l| l.strip_prefix("Features: "))
            .unwrap_or_else(|| panic!("no Features line: {s}"))
            .split(' ')
            .map(str::to_string)
            .collect()
    };
    let ours = features(&under_test(OXCURL));
    let theirs = features(&oxcurl_testsupport::reference_curl());
    for f in [
        "alt-svc",
        "AsynchDNS",
        "HTTP2",
        "HTTPS-proxy",
        "IDN",
        "threadsafe",
        "UnixSockets",
    ] {
        assert!(ours.iter().any(|o| o == f), "{f} missing: {ours:?}");
    }
    let shared: Vec<&String> = ours.iter().filter(|f| theirs.contains(f)).collect();
    let in_their_order: Vec<&String> = theirs.iter().filter(|f| ours.contains(f)).collect();
    assert_eq!(shared, in_their_order, "ours {ours:?}, curl's {theirs:?}");
}

#[test]
fn version_long_option() {
    let out = Exec::new(under_test(OXCURL)).arg("--version").run();
    assert_eq!(out.exit_code(), 0);
    assert!(out.stdout_str().starts_with("curl 8.14.1 ("));
}

#[test]
fn help_output_matches() {
    Case::new("help_output_matches")
        .args(&["--help"])
        .run(OXCURL);
}

#[test]
fn help_all_output_matches() {
    Case::new("help_all_output_matches")
        .args(&["--help", "all"])
        .run(OXCURL);
}

/// Every category and the layouts `COLUMNS` selects, including widths where curl's size_t
/// arithmetic wraps around.
#[test]
fn help_categories_and_widths_match() {
    let topics = [
        vec!["--help", "category"],
        vec!["--help", "http"],
        vec!["--help", "tls"],
        vec!["--help", "ftp"],
        vec!["--help", "deprecated"],
        vec!["--help", "nosuchcategory"],
        vec!["--help", "--nosuchoption"],
        vec!["-h"],
        vec!["-h", "tls"],
        vec!["-htls"],
        vec!["--help", "http://example.com/"],
    ];
    for (i, t) in topics.iter().enumerate() {
        for cols in ["79", "40", "21", "200", "200x", "10001", "abc"] {
            // curl refuses `-htls` (exit 2).
            Case::new(&format!("help_categories_and_widths_{i}_{cols}"))
                .args(t)
                .env("COLUMNS", cols)
                .expect_failure_if(t[..] == ["-htls"])
                .run(OXCURL);
        }
    }
    for cols in ["40", "21", "200"] {
        Case::new(&format!("help_all_width_{cols}"))
            .args(&["--help", "all"])
            .env("COLUMNS", cols)
            .run(OXCURL);
    }
}

/// Options of protocols oxcurl does not speak are accepted and leave an HTTP transfer as
/// curl leaves it: same request, same output.
#[test]
fn other_protocol_options_leave_http_alone() {
    let args: &[&[&str]] = &[
        &[
            "-a",
            "-B",
            "-l",
            "--ftp-pasv",
            "--ftp-create-dirs",
            "--disable-epsv",
        ],
        &[
            "-P",
            "-",
            "-Q",
            "NOOP",
            "--ftp-account",
            "acct",
            "--ftp-method",
            "nocwd",
        ],
        &[
            "--mail-from",
            "a@b",
            "--mail-rcpt",
            "c@d",
            "--mail-auth",
            "e@f",
            "--sasl-ir",
        ],
        &[
            "-t",
            "TTYPE=vt100",
            "--tftp-blksize",
            "1024",
            "--tftp-no-options",
        ],
        &[
            "--pubkey",
            "k",
            "--hostpubsha256",
            "x",
            "--compressed-ssh",
            "--ssl-reqd",
        ],
        &[
            "--login-options",
            "AUTH=*",
            "--sasl-authzid",
            "z",
            "--tlsuser",
            "u",
        ],
        &[
            "--hostpubmd5",
            "0123456789abcdef0123456789abcdef",
            "--ipfs-gateway",
            "http://x",
        ],
    ];
    for (i, a) in args.iter().enumerate() {
        let mut v = vec!["-sS"];
        v.extend_from_slice(a);
        v.push("{url}/");
        case(&format!("other_protocol_options_{i}"), &v)
            .compare_stderr(true)
            .run(OXCURL);
    }
}

/// Option arguments curl checks even when the option has no effect on HTTP.
#[test]
fn other_protocol_option_arguments_are_checked() {
    let args: &[&[&str]] = &[
        &["--tftp-blksize", "x"],
        &["--hostpubmd5", "short"],
        &["--ftp-method", "sideways"],
        &["--ftp-ssl-ccc-mode", "xx"],
        &["--delegation", "maybe"],
        &["--metalink"],
        &["--no-npn"],
        &["--egd-file", "f", "--random-file", "g"],
        &["--ntlm-wb"],
    ];
    for (i, a) in args.iter().enumerate() {
        let mut v: Vec<&str> = vec!["--no-progress-meter", "-o", "/dev/null"];
        v.extend_from_slice(a);
        v.push("{url}/");
        // These two are refused (exit 2), the others only warned about.
        let refused = matches!(a[0], "--tftp-blksize" | "--hostpubmd5");
        case(&format!("other_protocol_option_arguments_{i}"), &v)
            .compare_stderr(true)
            .normalise_with(oxcurl_testsupport::diff::mask_digits)
            .expect_failure_if(refused)
            .run(OXCURL);
    }
}

/// Features this build lacks answer as curl does when its libcurl lacks them.
#[test]
fn unbuilt_features_are_reported_like_curl() {
    for opt in [
        "--http3",
        "--http3-only",
        "--dns-servers",
        "--ech",
        "--tlsauthtype",
    ] {
        case(&format!("unbuilt_{opt}"), &["-sS", opt, "x", "{url}/"])
            .compare_stderr(true)
            .expect_failure()
            .run(OXCURL);
    }
}

/// curl shows the option's entry in its manual; oxcurl its entry in the built-in manual.
#[test]
fn help_for_one_option_shows_its_manual_entry() {
    let out = Exec::new(under_test(OXCURL)).args(["-h", "-s"]).run();
    assert_eq!(out.exit_code(), 0);
    assert_eq!(
        out.stdout_str(),
        "    -s, --silent\n\t    Silent mode.\n\t    Category: verbose.\n\n"
    );
}

/// Socket options: the transfer is the same; bad values get curl's messages.
#[test]
fn socket_option_values_match_reference() {
    // (arguments, refused with exit 2 before any request)
    let args: &[(&[&str], bool)] = &[
        (&["--ip-tos", "CS1"], false),
        (&["--ip-tos", "184"], false),
        (&["--ip-tos", "300"], true),
        (&["--ip-tos", "lowdelay"], true),
        (&["--ip-tos", "-1"], true),
        (&["--keepalive-cnt", "3"], false),
        (&["--keepalive-cnt", "-1"], true),
        (&["--keepalive-cnt", "0"], false),
        (&["--keepalive-time", "0"], false),
        (&["--ip-tos", "255"], false),
        (&["--happy-eyeballs-timeout-ms", "50"], false),
        (&["--happy-eyeballs-timeout-ms", "-5"], true),
        (&["--tftp-blksize", "-1"], true),
    ];
    for (i, (a, refused)) in args.iter().enumerate() {
        let mut v = vec!["-sS"];
        v.extend_from_slice(a);
        v.push("{url}/");
        case(&format!("socket_option_values_{i}"), &v)
            .compare_stderr(true)
            .expect_failure_if(*refused)
            .run(OXCURL);
    }
}

/// --skip-existing: no request for an output file that exists, the verbose note, -w still
/// runs; a missing file is downloaded.
#[test]
fn skip_existing_matches_reference() {
    case(
        "skip_existing_present",
        &[
            "-v",
            "--skip-existing",
            "-o",
            "{tmp}/have.txt",
            "-w",
            "%{http_code} %{filename_effective}\n",
            "{url}/",
        ],
    )
    .file("have.txt", "old\n")
    .normalise("{tmp}", "TMP")
    .compare_stderr(true)
    .run(OXCURL);
    case(
        "skip_existing_absent",
        &[
            "-s",
            "--skip-existing",
            "-o",
            "{tmp}/new.txt",
            "-w",
            "%{http_code}\n",
            "{url}/",
        ],
    )
    .run(OXCURL);
    case(
        "skip_existing_remote_name",
        &[
            "-s",
            "--skip-existing",
            "--output-dir",
            "{tmp}",
            "-O",
            "{url}/have.txt",
        ],
    )
    .file("have.txt", "old\n")
    .run(OXCURL);
}

#[test]
fn dump_ca_embed_prints_no_bundle_and_transfers_nothing() {
    case("dump_ca_embed", &["--dump-ca-embed", "{url}/"])
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn default_user_agent_is_curl_version() {
    let r = case("default_user_agent_is_curl_version", &["-s", "{url}/"]).run(OXCURL);
    let req = &r.oxcurl.requests[0];
    assert_eq!(req.header("User-Agent"), Some("curl/8.14.1"));
}

// ---- stderr redirection ---------------------------------------------------------

#[test]
fn stderr_option_to_file() {
    Case::new("stderr_option_to_file")
        .args(&["-sS", "--stderr", "{tmp}/err.txt", "{url}/"])
        .reply(Reply::new().close())
        .compare_stderr(true)
        .run(OXCURL);
}

// ---- unix socket ----------------------------------------------------------------

/// What each client of the Unix socket server sent, in order.
type Seen = Arc<Mutex<Vec<Vec<u8>>>>;

/// Serves `count` connections on a Unix socket with a fixed reply, recording what
/// each client sent.
fn unix_server(path: &std::path::Path, count: usize) -> (Seen, std::thread::JoinHandle<()>) {
    let _ = std::fs::remove_file(path);
    let listener = UnixListener::bind(path).expect("bind unix socket");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let rec = seen.clone();
    let h = std::thread::spawn(move || {
        for _ in 0..count {
            let (mut s, _) = match listener.accept() {
                Ok(x) => x,
                Err(_) => return,
            };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nunix socket\n",
            );
            rec.lock().unwrap().push(buf);
        }
    });
    (seen, h)
}

#[test]
fn unix_socket_request() {
    let dir = std::env::temp_dir().join(format!("oxcurl-unix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sock = dir.join("s.sock");
    let (seen, h) = unix_server(&sock, 2);
    let sock_s = sock.to_string_lossy().into_owned();
    let r = Case::new("unix_socket_request")
        .args(&["-s", "--unix-socket", &sock_s, "http://localhost/unix/path"])
        .run(OXCURL);
    h.join().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "both clients connected over the unix socket");
    assert_eq!(
        String::from_utf8_lossy(&seen[0]),
        String::from_utf8_lossy(&seen[1]),
        "request bytes over the unix socket differ (reference first)"
    );
    assert_eq!(r.oxcurl.stdout_str(), "unix socket\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn url_query_forms_and_file() {
    case(
        "url_query_forms_and_file",
        &[
            "-s",
            "--url-query",
            "=only me",
            "--url-query",
            "name@{tmp}/q.txt",
            "--url-query",
            "plain text",
            "{url}/q#frag",
        ],
    )
    .file("q.txt", "from file&more")
    .run(OXCURL);
}

#[test]
fn url_query_with_get_data_keeps_the_data() {
    // curl 8.14.1 sends the -G data and drops the --url-query parts.
    case(
        "url_query_with_get_data_keeps_the_data",
        &["-s", "-G", "-d", "d=1", "--url-query", "a=b", "{url}/p?x=1"],
    )
    .run(OXCURL);
}

#[test]
fn variable_from_file_trimmed_and_encoded() {
    case(
        "variable_from_file_trimmed_and_encoded",
        &[
            "-s",
            "--variable",
            "f@{tmp}/v.txt",
            "--expand-url",
            "{url}/{{f:trim:url}}",
            "--expand-data",
            "{\"v\":\"{{f:trim:json}}\",\"b\":\"{{f:b64}}\"}",
        ],
    )
    .file("v.txt", "  a \"quoted\" value\n")
    .run(OXCURL);
}

#[test]
fn variable_from_environment_with_default() {
    case(
        "variable_from_environment_with_default",
        &[
            "-s",
            "--variable",
            "%OXCURL_TEST_VAR",
            "--variable",
            "%OXCURL_TEST_UNSET=fallback",
            "--expand-header",
            "X-Env: {{OXCURL_TEST_VAR}} {{OXCURL_TEST_UNSET}}",
            "{url}/",
        ],
    )
    .env("OXCURL_TEST_VAR", "from env")
    .run(OXCURL);
}

#[test]
fn variable_errors_and_warnings() {
    for (name, args) in [
        (
            "variable_unknown_function",
            vec!["--variable", "n=v", "--expand-url", "{url}/{{n:nope}}"],
        ),
        (
            "variable_unset_import",
            vec!["--variable", "%OXCURL_SURELY_UNSET", "{url}/"],
        ),
        (
            "variable_bad_syntax",
            vec!["--variable", "bad-name=v", "--variable", "=x", "{url}/"],
        ),
        (
            "variable_missing_close",
            vec!["-g", "--variable", "n=v", "--expand-url", "{url}/{{n"],
        ),
        (
            "variable_unreadable_file",
            vec!["--variable", "n@{tmp}/nope", "{url}/"],
        ),
        (
            "variable_base64_decode",
            vec![
                "--variable",
                "n=YWJj",
                "--variable",
                "bad=*",
                "--expand-url",
                "{url}/{{n:64dec}}/{{bad:64dec}}",
            ],
        ),
    ] {
        // Warnings need a non-silent run; the meter's speeds would differ.
        let mut all = vec!["--no-progress-meter"];
        all.extend(args);
        // The others fail before any request.
        let transfers = ["variable_bad_syntax", "variable_missing_close"].contains(&name);
        case(name, &all)
            .compare_stderr(true)
            .expect_failure_if(!transfers)
            .run(OXCURL);
    }
}

/// Files the tool reads line by line (`-H @file`, `-K`; `--url @file` reads the same way), as curl's
/// `my_get_line` reads them: a zero byte cuts the rest of its 127-byte `fgets` piece and the
/// next piece runs on in the same line; blank and comment lines are left out.
#[test]
fn files_read_line_by_line_with_nul_bytes_and_comments() {
    Case::new("header_file_with_nul_and_comments")
        .file(
            "h.txt",
            &b"X-A: a\0b\nX-B: c\n# not a header\n   \nX-D: e\n"[..],
        )
        .args(&["-sS", "-H", "@{tmp}/h.txt", "{url}/"])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
    // The NUL swallows the line end: the quoted header runs into the url line, and there
    // is no URL left.
    Case::new("config_file_with_nul")
        .file(
            "c.txt",
            &b"header = \"X-C: d\0e\"\nurl = \"http://127.0.0.1:1/\"\n"[..],
        )
        .args(&["-sS", "-K", "{tmp}/c.txt"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}
