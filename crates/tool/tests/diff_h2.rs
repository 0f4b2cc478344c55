//! Differential tests for HTTP/2: oxcurl and the reference curl 8.14.1 against nginx
//! (h2c with prior knowledge, and HTTPS where ALPN picks h2), comparing stdout, the exit
//! code and the deterministic part of `-v` (the `[HTTP/2]`, `>`, `<`, ALPN and `using`
//! lines). Response `date:` values are masked: the two runs may straddle a second.

use std::path::Path;

use oxcurl_testsupport::diff::{isolated_exec, runs_report};
use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{pki, reference_curl, Exec, Nginx, Output, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

struct Site {
    nginx: Nginx,
    _root: TempDir,
}

impl Site {
    fn start() -> Option<Site> {
        let root = TempDir::new("h2-root");
        std::fs::write(root.join("index.html"), "hello h2\n").unwrap();
        std::fs::write(
            root.join("big.bin"),
            oxcurl_testsupport::http::generated_body(300_000),
        )
        .unwrap();
        std::fs::write(root.join("text.txt"), "compress me ".repeat(500)).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/index.html"), "in sub\n").unwrap();
        let nginx = Nginx::try_start_h2(root.path())?;
        Some(Site { nginx, _root: root })
    }

    fn subst(&self, a: &str) -> String {
        a.replace("{h2c}", &format!("http://127.0.0.1:{}", self.nginx.port()))
            .replace(
                "{h2}",
                &format!("https://localhost:{}", self.nginx.tls_port().unwrap()),
            )
            .replace("{ca}", &pki().ca().to_string_lossy())
    }

    fn run(&self, prog: &Path, args: &[&str], env: &[(&str, &str)], tmp: &Path) -> Output {
        let mut e = isolated_exec(prog, tmp, tmp);
        for (k, v) in env {
            e = e.env(k, v);
        }
        e.args(args.iter().map(|a| self.subst(a))).run()
    }
}

/// Lines of `-v` output that do not depend on timing, addresses or the TLS library.
fn verbose_lines(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| {
            l.starts_with("* [HTTP/2]")
                || l.starts_with("> ")
                || l.starts_with("< ")
                || l.starts_with("* ALPN")
                || l.starts_with("* using")
                || l.starts_with("* Re-using")
                || l.starts_with("* Connection #")
                || l.starts_with("* upload completely")
                || l.starts_with("* HTTP/2 stream")
        })
        .map(mask_date)
        .collect::<Vec<_>>()
        .join("\n")
}

fn mask_date(l: &str) -> String {
    let lower = l.to_ascii_lowercase();
    for p in ["date: ", "< date: "] {
        if lower.starts_with(p) {
            return format!("{p}<masked>");
        }
    }
    l.to_string()
}

fn mask_stdout(out: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    for line in out.split_inclusive(|&b| b == b'\n') {
        if line.to_ascii_lowercase().starts_with(b"date: ") {
            v.extend_from_slice(b"date: <masked>\r\n");
        } else {
            v.extend_from_slice(line);
        }
    }
    v
}

#[derive(Default)]
struct Opts<'a> {
    stderr: bool,
    /// Compare stdout's lines in any order (parallel transfers end in any order).
    sorted: bool,
    env: &'a [(&'a str, &'a str)],
    files: &'a [(&'a str, &'a [u8])],
}

fn diff(name: &str, args: &[&str], o: Opts<'_>) {
    let Some(site) = Site::start() else {
        return;
    };
    let tmp = TempDir::new(name);
    for (f, data) in o.files {
        std::fs::write(tmp.join(f), data).unwrap();
    }
    let r = site.run(&reference_curl(), args, o.env, tmp.path());
    let x = site.run(&under_test(OXCURL), args, o.env, tmp.path());
    let report = runs_report(&r, &x);
    assert_eq!(r.code, x.code, "{name}: exit code{report}");
    let out = |b: &[u8]| {
        let text = String::from_utf8_lossy(&mask_stdout(b)).into_owned();
        if !o.sorted {
            return text;
        }
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort();
        lines.join("\n")
    };
    assert_eq!(out(&r.stdout), out(&x.stdout), "{name}: stdout{report}");
    if o.stderr {
        assert_eq!(
            verbose_lines(&r.stderr),
            verbose_lines(&x.stderr),
            "{name}: -v lines{report}"
        );
    }
}

fn v() -> Opts<'static> {
    Opts {
        stderr: true,
        ..Opts::default()
    }
}

// ---- h2c with prior knowledge -------------------------------------------------------------

#[test]
fn h2c_get_verbose() {
    diff(
        "h2c_get_verbose",
        &["-sv", "--http2-prior-knowledge", "{h2c}/"],
        v(),
    );
}

#[test]
fn h2c_include_headers_and_version() {
    diff(
        "h2c_include_headers_and_version",
        &[
            "-s",
            "-i",
            "--http2-prior-knowledge",
            "-w",
            "%{http_version} %{response_code} %{size_download}\n",
            "{h2c}/",
        ],
        Opts::default(),
    );
}

#[test]
fn h2c_dump_header() {
    diff(
        "h2c_dump_header",
        &[
            "-s",
            "--http2-prior-knowledge",
            "-D",
            "-",
            "-o",
            "/dev/null",
            "{h2c}/big.bin",
        ],
        Opts::default(),
    );
}

#[test]
fn h2c_user_headers_verbose() {
    diff(
        "h2c_user_headers_verbose",
        &[
            "-sv",
            "--http2-prior-knowledge",
            "-H",
            "X-One: 1",
            "-H",
            "Connection: close",
            "-A",
            "agent/1",
            "-e",
            "http://ref/",
            "{h2c}/index.html?q=1",
        ],
        v(),
    );
}

#[test]
fn h2c_head() {
    diff(
        "h2c_head",
        &["-sv", "-I", "--http2-prior-knowledge", "{h2c}/"],
        v(),
    );
}

#[test]
fn h2c_big_body() {
    diff(
        "h2c_big_body",
        &["-s", "--http2-prior-knowledge", "{h2c}/big.bin"],
        Opts::default(),
    );
}

#[test]
fn h2c_post_fields() {
    diff(
        "h2c_post_fields",
        &[
            "-sv",
            "-i",
            "--http2-prior-knowledge",
            "-d",
            "a=1&b=2",
            "{h2c}/",
        ],
        v(),
    );
}

#[test]
fn h2c_json() {
    diff(
        "h2c_json",
        &[
            "-sv",
            "--http2-prior-knowledge",
            "--json",
            "{\"a\":1}",
            "{h2c}/",
        ],
        v(),
    );
}

#[test]
fn h2c_put_file() {
    diff(
        "h2c_put_file",
        &["-sv", "--http2-prior-knowledge", "-T", "up.txt", "{h2c}/"],
        Opts {
            stderr: true,
            files: &[("up.txt", &[b'u'; 1000])],
            ..Opts::default()
        },
    );
}

#[test]
fn h2c_fail() {
    diff(
        "h2c_fail",
        &["-sv", "-f", "--http2-prior-knowledge", "{h2c}/missing"],
        v(),
    );
}

#[test]
fn h2c_redirect_follow_reuses() {
    diff(
        "h2c_redirect_follow_reuses",
        &["-sv", "-L", "--http2-prior-knowledge", "{h2c}/sub"],
        v(),
    );
}

#[test]
fn h2c_several_urls_one_connection() {
    diff(
        "h2c_several_urls_one_connection",
        &[
            "-sv",
            "--http2-prior-knowledge",
            "-w",
            "%{num_connects} %{http_version}\n",
            "{h2c}/",
            "{h2c}/sub/",
            "{h2c}/big.bin",
            "-o",
            "/dev/null",
        ],
        v(),
    );
}

// ---- HTTPS with ALPN ----------------------------------------------------------------------

#[test]
fn h2_alpn_get_verbose() {
    diff(
        "h2_alpn_get_verbose",
        &["-sv", "--cacert", "{ca}", "{h2}/"],
        v(),
    );
}

#[test]
fn h2_parallel_transfers_share_a_tls_connection() {
    // The second transfer waits for the TLS handshake (ALPN) and then multiplexes.
    diff(
        "h2_parallel_transfers_share_a_tls_connection",
        &[
            "-s",
            "-Z",
            "--cacert",
            "{ca}",
            "-w",
            "%{num_connects} %{http_version}\n",
            "{h2}/big.bin",
            "{h2}/",
            "-o",
            "/dev/null",
            "-o",
            "/dev/null",
        ],
        Opts {
            sorted: true,
            ..Opts::default()
        },
    );
}

#[test]
fn h2_alpn_get_openssl() {
    diff(
        "h2_alpn_get_openssl",
        &["-sv", "--cacert", "{ca}", "{h2}/"],
        Opts {
            stderr: true,
            env: &[("CURL_SSL_BACKEND", "openssl")],
            ..Opts::default()
        },
    );
}

#[test]
fn h2_http11_offers_only_http11() {
    diff(
        "h2_http11_offers_only_http11",
        &[
            "-sv",
            "--http1.1",
            "--cacert",
            "{ca}",
            "-w",
            "%{http_version}\n",
            "{h2}/",
        ],
        v(),
    );
}

#[test]
fn h2_prior_knowledge_over_tls_offers_only_h2() {
    diff(
        "h2_prior_knowledge_over_tls_offers_only_h2",
        &[
            "-sv",
            "--http2-prior-knowledge",
            "--cacert",
            "{ca}",
            "{h2}/",
        ],
        v(),
    );
}

#[test]
fn h2_compressed() {
    diff(
        "h2_compressed",
        &[
            "-s",
            "-i",
            "--compressed",
            "--cacert",
            "{ca}",
            "{h2}/text.txt",
        ],
        Opts::default(),
    );
}

#[test]
fn h2_several_urls_reuse() {
    diff(
        "h2_several_urls_reuse",
        &[
            "-sv",
            "--cacert",
            "{ca}",
            "-w",
            "%{num_connects}\n",
            "{h2}/big.bin",
            "{h2}/",
            "-o",
            "/dev/null",
        ],
        v(),
    );
}

#[test]
fn h2_post_openssl() {
    diff(
        "h2_post_openssl",
        &["-s", "-i", "--cacert", "{ca}", "-d", "x=1", "{h2}/"],
        Opts {
            env: &[("CURL_SSL_BACKEND", "openssl")],
            ..Opts::default()
        },
    );
}

// ---- broken and hostile servers -----------------------------------------------------------

use oxcurl_testsupport::h2::{self, error_line, hpack, hpack_literal, H2Action, H2Server};

/// Run both against a scripted server; compare exit code, stdout and the error line.
fn diff_script(name: &str, script: Vec<H2Action>, extra: &[&str]) -> Output {
    diff_script_peak(name, script, extra, true).0
}

/// [`diff_script`] for a hostile peer: neither client may hang, and oxcurl's heap peak
/// (with the `alloc-count` feature, else None) is returned. The error text is compared
/// only with `text` (see HTTP2.md for where nghttp2's words differ).
fn diff_hostile(
    name: &str,
    script: Vec<H2Action>,
    extra: &[&str],
    text: bool,
) -> (Output, Option<u64>) {
    let (x, peak) = diff_script_peak(name, script, extra, text);
    assert!(!x.timed_out, "{name}: oxcurl hung");
    (x, peak)
}

fn diff_script_peak(
    name: &str,
    script: Vec<H2Action>,
    extra: &[&str],
    text: bool,
) -> (Output, Option<u64>) {
    h2::diff_script(&under_test(OXCURL), name, script, extra, text)
}

fn ok_head(len: &str) -> H2Action {
    H2Action::headers(1, hpack(200, &[("content-length", len)]), false)
}

fn data(d: &[u8], end: bool) -> H2Action {
    H2Action::Data {
        stream: 1,
        data: d.to_vec(),
        end_stream: end,
    }
}

#[test]
fn h2_script_plain_response() {
    diff_script(
        "h2_script_plain_response",
        vec![ok_head("5"), data(b"hello", true)],
        &["-i"],
    );
}

#[test]
fn h2_script_no_content_length() {
    diff_script(
        "h2_script_no_content_length",
        vec![
            H2Action::headers(1, hpack(200, &[("x-a", "1")]), false),
            data(b"abc", false),
            data(b"def", true),
        ],
        &["-i"],
    );
}

#[test]
fn h2_script_rst_stream_mid_body() {
    diff_script(
        "h2_script_rst_stream_mid_body",
        vec![
            ok_head("10"),
            data(b"hello", false),
            H2Action::RstStream { stream: 1, code: 2 },
        ],
        &[],
    );
}

#[test]
fn h2_script_rst_stream_before_head() {
    diff_script(
        "h2_script_rst_stream_before_head",
        vec![H2Action::RstStream { stream: 1, code: 1 }],
        &[],
    );
}

#[test]
fn h2_script_goaway_mid_body() {
    diff_script(
        "h2_script_goaway_mid_body",
        vec![
            ok_head("10"),
            data(b"hello", false),
            H2Action::GoAway {
                last_stream: 1,
                code: 0,
            },
            H2Action::Close,
        ],
        &[],
    );
}

#[test]
fn h2_script_close_mid_body() {
    diff_script(
        "h2_script_close_mid_body",
        vec![ok_head("10"), data(b"hello", false), H2Action::Close],
        &[],
    );
}

#[test]
fn h2_script_close_before_head() {
    diff_script("h2_script_close_before_head", vec![H2Action::Close], &[]);
}

#[test]
fn h2_script_data_on_stream_zero() {
    diff_script(
        "h2_script_data_on_stream_zero",
        vec![H2Action::Data {
            stream: 0,
            data: b"x".to_vec(),
            end_stream: false,
        }],
        &[],
    );
}

#[test]
fn h2_script_huge_header_block() {
    // 40 CONTINUATION frames of 8000-byte fields: over curl's 300 KiB for a response head.
    let mut script = vec![H2Action::Headers {
        stream: 1,
        block: hpack(200, &[]),
        end_stream: false,
        end_headers: false,
    }];
    let value = vec![b'a'; 8000];
    for i in 0..40 {
        let mut block = Vec::new();
        hpack_literal(&mut block, &format!("x-big-{i}"), &value);
        script.push(H2Action::Continuation {
            stream: 1,
            block,
            end_headers: i == 39,
        });
    }
    script.push(data(b"x", true));
    diff_script("h2_script_huge_header_block", script, &[]);
}

#[test]
fn h2_script_close_mid_body_without_length() {
    diff_script(
        "h2_script_close_mid_body_without_length",
        vec![
            H2Action::headers(1, hpack(200, &[]), false),
            data(b"hello", false),
            H2Action::Close,
        ],
        &[],
    );
}

#[test]
fn h2_script_goaway_with_error_before_head() {
    diff_script(
        "h2_script_goaway_with_error_before_head",
        vec![
            H2Action::GoAway {
                last_stream: 0,
                code: 2,
            },
            H2Action::Close,
        ],
        &[],
    );
}

#[test]
fn h2_script_rst_stream_refused() {
    diff_script(
        "h2_script_rst_stream_refused",
        vec![H2Action::RstStream { stream: 1, code: 7 }],
        &[],
    );
}

#[test]
fn h2_script_interleaved_header_order() {
    diff_script(
        "h2_script_interleaved_header_order",
        vec![H2Action::headers(
            1,
            hpack(
                200,
                &[
                    ("x-a", "1"),
                    ("x-b", "2"),
                    ("x-a", "3"),
                    ("content-length", "0"),
                ],
            ),
            true,
        )],
        &["-i"],
    );
}

/// An HPACK literal field: `first` is the representation's first byte (0x40 with
/// incremental indexing, 0x00 without, 0x10 never indexed), with a new name.
fn hpack_field(out: &mut Vec<u8>, first: u8, name: &str, value: &str) {
    out.extend_from_slice(&[first, name.len() as u8]);
    out.extend_from_slice(name.as_bytes());
    out.push(value.len() as u8);
    out.extend_from_slice(value.as_bytes());
}

/// Run both against fresh multi-stream servers made by `server`, the URLs one after the
/// other on one connection; compare exit code, stdout and the `<` lines of `-v`.
fn diff_sequential(name: &str, urls: usize, extra: &[&str], server: impl Fn() -> H2Server) {
    diff_sequential_on(name, urls, extra, 1, server)
}

/// [`diff_sequential`] where each client makes `conns` connections.
fn diff_sequential_on(
    name: &str,
    urls: usize,
    extra: &[&str],
    conns: usize,
    server: impl Fn() -> H2Server,
) {
    let tmp = TempDir::new(name);
    let run = |p: &Path| {
        let srv = server();
        let mut args: Vec<String> =
            vec!["-sS".into(), "-v".into(), "--http2-prior-knowledge".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        for i in 0..urls {
            args.push(format!("{}/{i}", srv.url()));
        }
        let out = isolated_exec(p, tmp.path(), tmp.path()).args(&args).run();
        (out, srv.connections())
    };
    let (r, rc) = run(&reference_curl());
    let (x, xc) = run(&under_test(OXCURL));
    let received = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .lines()
            .filter(|l| l.starts_with("< "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let report = runs_report(&r, &x);
    assert_eq!(r.code, x.code, "{name}: exit code{report}");
    assert_eq!((rc, xc), (conns, conns), "{name}: connections{report}");
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&x.stdout),
        "{name}: stdout{report}"
    );
    assert_eq!(
        received(&r.stderr),
        received(&x.stderr),
        "{name}: -v lines{report}"
    );
}

/// Repeated names interleaved, in a header block split over HEADERS (padded, with
/// priority) and two CONTINUATION frames in the middle of fields, Huffman-coded and
/// never-indexed fields among them; the second response is mostly references into the
/// dynamic table the first one filled.
#[test]
fn h2_script_header_order_across_continuation_and_dynamic_table() {
    let mut first = vec![0x88];
    hpack_field(&mut first, 0x40, "x-a", "1");
    hpack_field(&mut first, 0x40, "x-b", "2");
    hpack_field(&mut first, 0x00, "x-a", "3");
    // set-cookie (static 55) with incremental indexing, then never indexed.
    first.extend_from_slice(&[0x77, 3, b'a', b'=', b'1', 0x1f, 0x28, 3, b'b', b'=', b'2']);
    // RFC 7541 C.4.3: custom-key: custom-value, both Huffman-coded, indexed.
    first.extend_from_slice(&[
        0x40, 0x88, 0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xa9, 0x7d, 0x7f, 0x89, 0x25, 0xa8, 0x49, 0xe9,
        0x5b, 0xb8, 0xe8, 0xb4, 0xbf,
    ]);
    hpack_field(&mut first, 0x00, "x-b", "4");
    // content-length (static 28), without indexing.
    first.extend_from_slice(&[0x0f, 0x0d, 1, b'5']);
    // The table, newest first: custom-key (62), set-cookie: a=1, x-b: 2, x-a: 1 (65).
    let mut second = vec![0x3f, 0xe1, 0x1f, 0x88, 0xc1];
    hpack_field(&mut second, 0x40, "x-c", "5");
    // Now x-c is 62 and x-a: 1 is 66.
    second.extend_from_slice(&[0xc2, 0xbf, 0xc1, 0xbe, 0x0f, 0x0d, 1, b'5']);
    let (k, m) = (20, 40);
    let mut payload = vec![2, 0, 0, 0, 0, 15];
    payload.extend_from_slice(&first[..k]);
    payload.extend_from_slice(&[0, 0]);
    let script = move |stream: u32, n: usize| {
        let body = H2Action::Data {
            stream,
            data: b"hello".to_vec(),
            end_stream: true,
        };
        if n == 0 {
            vec![
                H2Action::Raw(frame(1, 0x08 | 0x20, stream, &payload)),
                H2Action::Raw(frame(9, 0, stream, &first[k..m])),
                H2Action::Raw(frame(9, 4, stream, &first[m..])),
                body,
            ]
        } else {
            vec![H2Action::headers(stream, second.clone(), false), body]
        }
    };
    diff_sequential(
        "h2_script_header_order_across_continuation_and_dynamic_table",
        2,
        &["-i"],
        || H2Server::start_multi(&[], script.clone()),
    );
}

/// Trailers (a HEADERS frame ending the stream after DATA) come after the body as header
/// lines, in wire order.
#[test]
fn h2_script_trailers_in_wire_order() {
    let mut trailers = Vec::new();
    for (n, v) in [("t-a", "1"), ("t-b", "2"), ("t-a", "3")] {
        hpack_field(&mut trailers, 0x00, n, v);
    }
    let script = move |stream: u32, _| {
        vec![
            H2Action::headers(stream, hpack(200, &[("x-a", "1")]), false),
            H2Action::Data {
                stream,
                data: b"hello".to_vec(),
                end_stream: false,
            },
            H2Action::headers(stream, trailers.clone(), true),
        ]
    };
    diff_sequential("h2_script_trailers_in_wire_order", 1, &["-i"], || {
        H2Server::start_multi(&[], script.clone())
    });
}

/// 1xx heads before the response: curl shows them (`HTTP/2 103` and its fields).
#[test]
fn h2_script_informational_head_in_wire_order() {
    let mut info = Vec::new();
    for (n, v) in [
        (":status", "103"),
        ("link", "1"),
        ("x-b", "2"),
        ("link", "3"),
    ] {
        hpack_field(&mut info, 0x00, n, v);
    }
    let script = move |stream: u32, _| {
        vec![
            H2Action::headers(stream, info.clone(), false),
            H2Action::headers(stream, hpack(200, &[("content-length", "2")]), false),
            H2Action::Data {
                stream,
                data: b"ok".to_vec(),
                end_stream: true,
            },
        ]
    };
    diff_sequential(
        "h2_script_informational_head_in_wire_order",
        1,
        &["-i"],
        || H2Server::start_multi(&[], script.clone()),
    );
}

/// A 1xx head as a header block: `:status` and the fields, literals.
fn informational(code: u16, fields: &[(&str, &str)]) -> Vec<u8> {
    hpack(code, fields)
}

/// `heads` (1xx header blocks) on a stream, then a response with `code` and body "ok".
fn after_informational(stream: u32, heads: &[Vec<u8>], code: u16) -> Vec<H2Action> {
    let mut v: Vec<H2Action> = heads
        .iter()
        .map(|b| H2Action::headers(stream, b.clone(), false))
        .collect();
    v.push(H2Action::headers(
        stream,
        hpack(code, &[("content-length", "2"), ("x-a", "1")]),
        false,
    ));
    v.push(H2Action::Data {
        stream,
        data: b"ok".to_vec(),
        end_stream: true,
    });
    v
}

/// 103 Early Hints with Link fields: `-D` writes the 1xx head as curl's header callback
/// gets it, and `-w` reports the response's code, its header count and the bytes of both
/// heads.
#[test]
fn h2_script_early_hints_dump_header_and_write_out() {
    let hints = informational(
        103,
        &[
            ("link", "</style.css>; rel=preload; as=style"),
            ("link", "</script.js>; rel=preload; as=script"),
        ],
    );
    diff_sequential(
        "h2_script_early_hints_dump_header_and_write_out",
        1,
        &[
            "-D",
            "-",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{num_headers} %{size_header} %{header_json}\n",
        ],
        || {
            let hints = hints.clone();
            H2Server::start_multi(&[], move |s, _| {
                after_informational(s, std::slice::from_ref(&hints), 200)
            })
        },
    );
}

/// A 100 Continue to a POST: shown with `-i` before the response, as curl shows it (curl
/// sends no `Expect` on HTTP/2 unless told to).
#[test]
fn h2_script_continue_to_a_post() {
    diff_sequential(
        "h2_script_continue_to_a_post",
        1,
        &["-i", "-d", "abc"],
        || H2Server::start_multi(&[], |s, _| after_informational(s, &[hpack(100, &[])], 200)),
    );
}

/// `-H 'Expect: 100-continue' -d abc` and `extra` over HTTP/2, each client against a fresh
/// server answering every stream with `script`; compares the exit code, stdout and the
/// lines of `-v` that tell what was sent when (request head, 1xx and final heads, the
/// body's `}` line and the notes about waiting, sending and aborting), in their order.
fn diff_expect(
    name: &str,
    extra: &[&str],
    script: impl Fn(u32, usize) -> Vec<H2Action> + Clone + Send + Sync + 'static,
) -> (Output, Output) {
    let tmp = TempDir::new(name);
    let run = |p: &Path| {
        let srv = H2Server::start_multi(&[], script.clone());
        let mut args = vec![
            "-sS".to_string(),
            "-v".into(),
            "--http2-prior-knowledge".into(),
            "-H".into(),
            "Expect: 100-continue".into(),
            "-d".into(),
            "abc".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push(srv.url());
        isolated_exec(p, tmp.path(), tmp.path()).args(&args).run()
    };
    let (r, x) = (run(&reference_curl()), run(&under_test(OXCURL)));
    let report = runs_report(&r, &x);
    let lines = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .lines()
            .filter(|l| {
                (l.starts_with("> ") && !l.starts_with("> Host:"))
                    || l.starts_with("< ")
                    || l.starts_with("} ")
                    || l.contains("expect")
                    || l.contains("100-continue")
                    || l.contains("send")
                    || l.contains("sent")
                    || l.contains("upload")
                    || l.starts_with("* Connection #")
                    || l.starts_with("* stream ")
                    || l.starts_with("curl: (")
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(r.code, x.code, "{name}: exit code{report}");
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&x.stdout),
        "{name}: stdout{report}"
    );
    assert_eq!(
        lines(&r.stderr),
        lines(&x.stderr),
        "{name}: -v lines{report}"
    );
    (r, x)
}

/// A custom `Expect: 100-continue` on HTTP/2: curl sends it (`expect: 100-continue`) and
/// holds the body until the 100 comes, which the server sends late here.
#[test]
fn h2_script_expect_continue_waits_for_the_100() {
    let (_, x) = diff_expect(
        "h2_script_expect_continue_waits_for_the_100",
        &[],
        |s, _| {
            let mut v = vec![H2Action::Sleep(std::time::Duration::from_millis(200))];
            v.extend(after_informational(s, &[hpack(100, &[])], 200));
            v.insert(2, H2Action::Sleep(std::time::Duration::from_millis(300)));
            v
        },
    );
    assert!(
        x.elapsed < std::time::Duration::from_millis(900),
        "the 100 ends the wait, not the timer: {:?}",
        x.elapsed
    );
}

/// No 100 comes: after `--expect100-timeout` (1 s by default) curl gives up waiting
/// (`Done waiting for 100-continue`), sends the body and takes the response after it.
#[test]
fn h2_script_expect_continue_times_out() {
    let (_, x) = diff_expect("h2_script_expect_continue_times_out", &[], |s, _| {
        let mut v = vec![H2Action::Sleep(std::time::Duration::from_millis(1500))];
        v.extend(after_informational(s, &[], 200));
        v
    });
    assert!(
        x.elapsed >= std::time::Duration::from_millis(1500),
        "{:?}",
        x.elapsed
    );
}

/// The same with `--expect100-timeout 0.2`: the body goes after 200 ms.
#[test]
fn h2_script_expect_continue_short_timeout() {
    diff_expect(
        "h2_script_expect_continue_short_timeout",
        &["--expect100-timeout", "0.2"],
        |s, _| {
            let mut v = vec![H2Action::Sleep(std::time::Duration::from_millis(600))];
            v.extend(after_informational(s, &[], 200));
            v
        },
    );
}

/// A final response instead of the 100, before the timer fires. After a 200 curl goes on
/// waiting and, the stream being closed when the timer fires, fails the send (55, `stream
/// 1 closed`); after a 404 it stops sending at once.
#[test]
fn h2_script_expect_continue_final_response_instead() {
    for code in [200, 404] {
        let (r, x) = diff_expect(
            &format!("h2_script_expect_continue_final_{code}_instead"),
            &[],
            move |s, _| after_informational(s, &[], code),
        );
        let second = std::time::Duration::from_millis(900);
        assert_eq!(
            r.elapsed >= second,
            code == 200,
            "reference: {:?}",
            r.elapsed
        );
        assert_eq!(x.elapsed >= second, code == 200, "oxcurl: {:?}", x.elapsed);
    }
}

/// A 417 instead of the 100: curl's answer to a failed expectation.
#[test]
fn h2_script_expect_continue_417() {
    diff_expect("h2_script_expect_continue_417", &[], |s, n| {
        after_informational(s, &[], if n == 0 { 417 } else { 200 })
    });
}

/// Several 1xx heads in a row (100, 103, 102, 103), then a 404 with `--fail`: every head is
/// shown, and the response's code is the one that fails and that `-w` reports.
#[test]
fn h2_script_several_informational_heads_then_fail() {
    let heads = vec![
        informational(100, &[]),
        informational(103, &[("link", "<a>")]),
        informational(102, &[("x-progress", "1")]),
        informational(103, &[("link", "<b>"), ("x-b", "2"), ("link", "<c>")]),
    ];
    for (name, extra) in [
        (
            "h2_script_several_informational_heads_then_fail",
            &["-i", "--fail", "-w", "%{http_code} %{num_headers}\n"][..],
        ),
        (
            "h2_script_several_informational_heads_then_404",
            &["-i", "-w", "%{http_code} %{num_headers}\n"][..],
        ),
    ] {
        diff_sequential(name, 2, extra, || {
            let heads = heads.clone();
            H2Server::start_multi(&[], move |s, _| after_informational(s, &heads, 404))
        });
    }
}

#[test]
fn h2c_upgrade_request() {
    oxcurl_testsupport::Case::new("h2c_upgrade_request")
        .args(&["-s", "--http2", "{url}/"])
        .reply(oxcurl_testsupport::Reply::ok("plain\n"))
        .run(OXCURL);
}

/// A server that ignores the upgrade keeps the connection HTTP/1.1: the next request on it
/// asks again.
#[test]
fn h2c_upgrade_request_again_on_reuse() {
    oxcurl_testsupport::Case::new("h2c_upgrade_request_again_on_reuse")
        .args(&["-s", "--http2", "{url}/a", "{url}/b"])
        .replies(vec![
            oxcurl_testsupport::Reply::ok("one\n"),
            oxcurl_testsupport::Reply::ok("two\n"),
        ])
        .run(OXCURL);
}

/// Through an HTTP proxy (absolute form, no TLS) the request asks for the upgrade too.
#[test]
fn h2c_upgrade_request_through_http_proxy() {
    oxcurl_testsupport::Case::new("h2c_upgrade_request_through_http_proxy")
        .args(&["-s", "--http2", "-x", "{url}", "http://example.invalid/"])
        .reply(oxcurl_testsupport::Reply::ok("plain\n"))
        .run(OXCURL);
}

/// A body over curl's Expect threshold goes without `Expect: 100-continue` when the request
/// asks for an upgrade, even with a custom Expect header (curl's `addexpect`).
#[test]
fn h2c_upgrade_post_without_expect() {
    let body = vec![b'x'; 1024 * 1024 + 10];
    oxcurl_testsupport::Case::new("h2c_upgrade_post_without_expect")
        .args(&["-s", "--http2", "--data-binary", "@big", "{url}/"])
        .file("big", &body)
        .reply(oxcurl_testsupport::Reply::ok("plain\n"))
        .run(OXCURL);
    oxcurl_testsupport::Case::new("h2c_upgrade_post_custom_expect")
        .args(&[
            "-s",
            "--http2",
            "-H",
            "Expect: 100-continue",
            "-d",
            "abc",
            "{url}/",
        ])
        .reply(oxcurl_testsupport::Reply::ok("plain\n"))
        .run(OXCURL);
}

/// Over TLS there is no upgrade (ALPN decides), nor with `--http1.1` or
/// `--http2-prior-knowledge` on a server that does not speak HTTP/2.
#[test]
fn h2c_upgrade_not_asked_over_tls() {
    oxcurl_testsupport::Case::new("h2c_upgrade_not_asked_over_tls")
        .tls(oxcurl_testsupport::TlsServerOptions::default())
        .args(&["-s", "--cacert", "{ca}", "--http2", "{url}/"])
        .reply(oxcurl_testsupport::Reply::ok("plain\n"))
        .run(OXCURL);
    oxcurl_testsupport::Case::new("h2c_upgrade_not_asked_http11")
        .args(&["-s", "--http1.1", "{url}/"])
        .reply(oxcurl_testsupport::Reply::ok("plain\n"))
        .run(OXCURL);
}

#[test]
fn h2c_parallel_transfers_share_a_connection() {
    diff(
        "h2c_parallel_transfers_share_a_connection",
        &[
            "-s",
            "-Z",
            "--http2-prior-knowledge",
            "-w",
            "%{num_connects}\n",
            "{h2c}/big.bin",
            "{h2c}/",
            "-o",
            "/dev/null",
            "-o",
            "/dev/null",
        ],
        Opts {
            sorted: true,
            ..Opts::default()
        },
    );
}

// ---- many streams on one connection (scripted server) -------------------------------------

/// A response of `len` bytes on `stream`, after `delay` (so that streams overlap).
fn answer(stream: u32, len: usize, delay: u64) -> Vec<H2Action> {
    let body = oxcurl_testsupport::http::generated_body(len);
    vec![
        H2Action::Sleep(std::time::Duration::from_millis(delay)),
        H2Action::headers(
            stream,
            hpack(200, &[("content-length", &len.to_string())]),
            false,
        ),
        H2Action::Data {
            stream,
            data: body,
            end_stream: true,
        },
    ]
}

/// Run both with `-Z` against fresh multi-stream servers made by `server`; compare the exit
/// code, the `-w` lines (sorted: parallel transfers end in any order), the error lines
/// (sorted) and how many connections each made.
fn diff_multi(name: &str, urls: usize, extra: &[&str], server: impl Fn() -> H2Server) {
    let tmp = TempDir::new(name);
    let run = |p: &Path| {
        let srv = server();
        let mut args: Vec<String> = vec![
            "-sS".into(),
            "-Z".into(),
            "--http2-prior-knowledge".into(),
            "-w".into(),
            "%{response_code} %{size_download} %{http_version}\\n".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        for i in 0..urls {
            args.push(format!("{}/{i}", srv.url()));
            args.push("-o".into());
            args.push("/dev/null".into());
        }
        let out = isolated_exec(p, tmp.path(), tmp.path()).args(&args).run();
        (out, srv.connections())
    };
    let (r, rc) = run(&reference_curl());
    let (x, xc) = run(&under_test(OXCURL));
    let sorted = |b: &[u8]| {
        let mut v: Vec<String> = String::from_utf8_lossy(b)
            .lines()
            .map(String::from)
            .collect();
        v.sort();
        v.join("\n")
    };
    let errors = |b: &[u8]| {
        let mut v: Vec<String> = error_line(b).lines().map(String::from).collect();
        v.sort();
        v.join("\n")
    };
    let report = format!(
        "\n--- reference {:?}, {rc} connections\n{}\n{}\n--- oxcurl {:?}, {xc} connections\n{}\n{}",
        r.code,
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr),
        x.code,
        String::from_utf8_lossy(&x.stdout),
        String::from_utf8_lossy(&x.stderr)
    );
    assert_eq!(r.code, x.code, "{name}: exit code{report}");
    assert_eq!(
        sorted(&r.stdout),
        sorted(&x.stdout),
        "{name}: -w lines{report}"
    );
    assert_eq!(
        errors(&r.stderr),
        errors(&x.stderr),
        "{name}: errors{report}"
    );
    assert_eq!(rc, xc, "{name}: connections{report}");
}

#[test]
fn h2_multi_two_streams_share_a_connection() {
    diff_multi("h2_multi_two_streams_share_a_connection", 2, &[], || {
        H2Server::start_multi(&[], |id, _| answer(id, 1000, 200))
    });
}

#[test]
fn h2_multi_twenty_urls_parallel_max_5_mixed_bodies() {
    diff_multi(
        "h2_multi_twenty_urls_parallel_max_5_mixed_bodies",
        20,
        &["--parallel-max", "5"],
        || H2Server::start_multi(&[], |id, _| answer(id, 300 * id as usize, 50)),
    );
}

#[test]
fn h2_multi_server_stream_limit_opens_more_connections() {
    // SETTINGS_MAX_CONCURRENT_STREAMS 2: curl looks for a connection again as transfers end;
    // six slow transfers take two connections.
    diff_multi(
        "h2_multi_server_stream_limit_opens_more_connections",
        6,
        &[],
        || H2Server::start_multi(&[(3, 2)], |id, _| answer(id, 100, 400)),
    );
}

#[test]
fn h2_multi_one_stream_reset_others_complete() {
    diff_multi("h2_multi_one_stream_reset_others_complete", 3, &[], || {
        H2Server::start_multi(&[], |id, _| {
            if id == 3 {
                vec![
                    H2Action::Sleep(std::time::Duration::from_millis(100)),
                    H2Action::headers(3, hpack(200, &[("content-length", "10")]), false),
                    H2Action::RstStream { stream: 3, code: 2 },
                ]
            } else {
                answer(id, 2000, 300)
            }
        })
    });
}

#[test]
fn h2_multi_goaway_below_an_active_stream_retries_it() {
    // GOAWAY names stream 1 as the last one processed while stream 3 waits: stream 1
    // completes, stream 3 is tried again on a new connection.
    diff_multi(
        "h2_multi_goaway_below_an_active_stream_retries_it",
        2,
        &[],
        || {
            H2Server::start_multi(&[], |id, n| match n {
                1 => vec![
                    H2Action::Sleep(std::time::Duration::from_millis(100)),
                    H2Action::GoAway {
                        last_stream: 1,
                        code: 0,
                    },
                ],
                _ => answer(id, 500, 300),
            })
        },
    );
}

// ---- hostile peers: floods, overflows, invalid frames ----------------------------------

use oxcurl_testsupport::h2::{flood, frame};

/// A heap peak oxcurl must stay under against any of these peers (measured with the
/// `alloc-count` feature; the stream and connection windows bound what h2 buffers).
const HOSTILE_PEAK: u64 = 16 << 20;

fn hostile(name: &str, script: Vec<H2Action>) {
    hostile_with(name, script, true)
}

/// A connection error nghttp2 finds through curl's invalid-frame callback: curl says
/// `nghttp2 recv error -902: The user callback function failed` where h2 gives the reason
/// (`PROTOCOL_ERROR`...); the exit code is the same.
fn hostile_code(name: &str, script: Vec<H2Action>) {
    hostile_with(name, script, false)
}

fn hostile_with(name: &str, script: Vec<H2Action>, text: bool) {
    let (_, peak) = diff_hostile(name, script, &[], text);
    if let Some(p) = peak {
        assert!(
            p < HOSTILE_PEAK,
            "{name}: oxcurl's heap peaked at {p} bytes"
        );
    }
}

fn window_update(stream: u32, inc: u32) -> Vec<u8> {
    frame(8, 0, stream, &inc.to_be_bytes())
}

#[test]
fn h2_hostile_endless_continuation() {
    // A header block that never ends: empty CONTINUATION frames, then more.
    hostile(
        "h2_hostile_endless_continuation",
        vec![
            H2Action::Headers {
                stream: 1,
                block: hpack(200, &[]),
                end_stream: false,
                end_headers: false,
            },
            flood(&frame(9, 0, 1, &[]), 100_000),
        ],
    );
}

/// `n` 1xx heads with `fields` as one write, then a response.
fn informational_flood(n: usize, fields: &[(&str, &str)]) -> Vec<H2Action> {
    let head = frame(1, 4, 1, &hpack(103, fields));
    vec![flood(&head, n), ok_head("2"), data(b"ok", true)]
}

/// Endless 103 heads: curl keeps each head's `:status` and its fields for its header API and
/// fails at 5000 of them, in the header callback, which fails the stream with 16 (curl's
/// words for the limit), after 2500 heads shown; `-w` reports the last 1xx code.
#[test]
fn h2_hostile_endless_informational_heads() {
    let (x, peak) = diff_hostile(
        "h2_hostile_endless_informational_heads",
        informational_flood(10_000, &[("link", "</a.css>; rel=preload")]),
        &["-i", "-w", "%{http_code} %{num_headers}\n"],
        true,
    );
    assert_eq!(x.code, Some(16));
    if let Some(p) = peak {
        eprintln!("heap peak: {p} bytes");
        assert!(p < HOSTILE_PEAK, "oxcurl's heap peaked at {p} bytes");
    }
}

/// The limit reached at a field line rather than at a `:status` (three header entries per
/// head): curl skips the rest of that head and fails at the next head's `:status`.
#[test]
fn h2_hostile_informational_heads_overflow_at_a_field() {
    let (x, _) = diff_hostile(
        "h2_hostile_informational_heads_overflow_at_a_field",
        informational_flood(3000, &[("link", "<a>"), ("x-b", "2")]),
        &["-i", "-w", "%{http_code} %{num_headers}\n"],
        true,
    );
    assert_eq!(x.code, Some(16));
}

/// 1xx heads whose lines add up to more than 300 KiB: curl counts the heads of a request
/// together and fails with 56 at the line that passes the limit, which it has shown.
#[test]
fn h2_hostile_informational_heads_too_large_in_all() {
    let link = "l".repeat(4000);
    let (x, _) = diff_hostile(
        "h2_hostile_informational_heads_too_large_in_all",
        informational_flood(100, &[("link", &link)]),
        &["-D", "-", "-w", "%{http_code} %{size_header}\n"],
        true,
    );
    assert_eq!(x.code, Some(56));
}

/// After a stream failed at the header limit the connection is not used again: curl's
/// nghttp2 session is broken by the failed callback and its next stream goes to a new
/// connection.
#[test]
fn h2_hostile_informational_heads_then_next_url_connects_again() {
    let head = frame(1, 4, 1, &hpack(103, &[("link", "x")]));
    diff_sequential_on(
        "h2_hostile_informational_heads_then_next_url_connects_again",
        2,
        &["-o", "/dev/null", "-o", "/dev/null"],
        2,
        || {
            let head = head.clone();
            H2Server::start_multi(&[], move |s, n| {
                let mut v = Vec::new();
                if n == 0 {
                    let mut f = head.clone();
                    f[5..9].copy_from_slice(&s.to_be_bytes());
                    v.push(flood(&f, 3000));
                }
                v.extend(after_informational(s, &[], 200));
                v
            })
        },
    );
}

/// A 101 over HTTP/2 (RFC 9113, 8.6) fails the stream in both, with nghttp2's words for
/// the field, and in `-v` for the frame (its length and flags) and the stream's close.
#[test]
fn h2_script_switching_protocols_refused() {
    for (name, end) in [
        ("h2_script_switching_protocols_refused", false),
        ("h2_script_switching_protocols_refused_eos", true),
    ] {
        let script = vec![
            H2Action::headers(1, hpack(101, &[("upgrade", "x")]), end),
            ok_head("2"),
            data(b"ok", true),
        ];
        diff_script(name, script.clone(), &["-i"]);
        let run = |p: &Path| {
            let srv = H2Server::start(script.clone());
            let o = Exec::new(p)
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("LC_ALL", "C")
                .args([
                    "-sSv",
                    "--http2-prior-knowledge",
                    &format!("{}/", srv.url()),
                ])
                .run();
            // What follows the request head. Whether curl says "Request completely sent
            // off" depends on how soon the refused head comes: with END_STREAM on it, the
            // stream may be gone first (about 1 run in 20), so that line is not compared.
            let notes = String::from_utf8_lossy(&o.stderr)
                .lines()
                .skip_while(|l| !l.starts_with('>'))
                .skip_while(|l| l.starts_with('>'))
                .filter(|l| !l.starts_with("* Request completely sent off"))
                .map(str::to_string)
                .collect::<Vec<_>>();
            (o, notes)
        };
        let ((r, rn), (x, xn)) = (run(&reference_curl()), run(&under_test(OXCURL)));
        assert!(rn.len() > 3, "{name}: reference notes {rn:?}");
        assert_eq!(rn, xn, "{name}: -v lines{}", runs_report(&r, &x));
    }
}

#[test]
fn h2_hostile_window_update_overflows_connection() {
    hostile_code(
        "h2_hostile_window_update_overflows_connection",
        vec![
            H2Action::Raw(window_update(0, 0x7fff_ffff)),
            ok_head("5"),
            data(b"hello", true),
        ],
    );
}

#[test]
fn h2_hostile_window_update_overflows_stream() {
    // h2 takes it without a look once the request is sent; nghttp2 fails the stream.
    hostile(
        "h2_hostile_window_update_overflows_stream",
        vec![
            H2Action::Raw(window_update(1, 0x7fff_ffff)),
            ok_head("5"),
            data(b"hello", true),
        ],
    );
}

#[test]
fn h2_hostile_window_update_overflows_stream_mid_body() {
    // What came before is written; the rest of the stream is not.
    let (x, _) = diff_hostile(
        "h2_hostile_window_update_overflows_stream_mid_body",
        vec![
            ok_head("5"),
            data(b"hel", false),
            H2Action::Sleep(std::time::Duration::from_millis(200)),
            H2Action::Raw(window_update(1, 0x7fff_ffff)),
            data(b"lo", true),
        ],
        &[],
        true,
    );
    assert_eq!(x.code, Some(92));
    assert_eq!(x.stdout, b"hel");
}

#[test]
fn h2_hostile_window_update_overflows_stream_in_the_responses_read() {
    let wire = [
        frame(1, 4, 1, &hpack(200, &[("content-length", "5")])),
        frame(0, 0, 1, b"hel"),
        window_update(1, 0x7fff_ffff),
        frame(0, 1, 1, b"lo"),
    ]
    .concat();
    let (x, _) = diff_hostile(
        "h2_hostile_window_update_overflows_stream_in_the_responses_read",
        vec![H2Action::Raw(wire)],
        &[],
        true,
    );
    assert_eq!(x.stdout, b"hel");
}

#[test]
fn h2_hostile_window_update_up_to_the_largest_window() {
    // 65535 and the increment make 2^31 - 1: taken.
    let (x, _) = diff_hostile(
        "h2_hostile_window_update_up_to_the_largest_window",
        vec![
            H2Action::Raw(window_update(1, 0x7fff_ffff - 65_535)),
            ok_head("5"),
            data(b"hello", true),
        ],
        &[],
        true,
    );
    assert_eq!(x.code, Some(0));
}

#[test]
fn h2_hostile_window_update_overflows_stream_after_the_body_went() {
    // The request body's 10 bytes took from the window: 2^31 - 1 with one increment,
    // one over with the other.
    for (extra, code) in [(10, 0), (11, 92)] {
        let (x, _) = diff_hostile(
            "h2_hostile_window_update_overflows_stream_after_the_body_went",
            vec![
                H2Action::Sleep(std::time::Duration::from_millis(200)),
                H2Action::Raw(window_update(1, 0x7fff_ffff - 65_535 + extra)),
                ok_head("5"),
                data(b"hello", true),
            ],
            &["-d", "0123456789"],
            true,
        );
        assert_eq!(x.code, Some(code), "increment {extra} over");
    }
}

#[test]
fn h2_hostile_window_update_overflows_stream_verbose() {
    // -v: curl's two lines for it (the callback's, then the stream's close), no body.
    let (x, _) = diff_hostile(
        "h2_hostile_window_update_overflows_stream_verbose",
        vec![
            H2Action::Raw(window_update(1, 0x7fff_ffff)),
            ok_head("5"),
            data(b"hello", true),
        ],
        &["-v"],
        true,
    );
    let err = String::from_utf8_lossy(&x.stderr);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("invalid frame") || l.contains("not closed cleanly"))
        .collect();
    assert_eq!(
        lines,
        [
            "* [HTTP2] [1] received invalid frame: FRAME[WINDOW_UPDATE, incr=2147483647], \
             error -524: Flow control error",
            "* HTTP/2 stream 1 was not closed cleanly: unknown (err 4294966772)",
            "curl: (92) [HTTP2] [1] received invalid frame: FRAME[WINDOW_UPDATE, \
             incr=2147483647], error -524: Flow control error",
        ]
    );
    assert!(!err.contains("< HTTP/2 200"), "{err}");
}

#[test]
fn h2_hostile_window_update_of_zero() {
    hostile_code(
        "h2_hostile_window_update_of_zero",
        vec![
            H2Action::Raw(window_update(0, 0)),
            ok_head("5"),
            data(b"hello", true),
        ],
    );
}

#[test]
fn h2_hostile_rst_stream_flood_on_idle_streams() {
    let mut frames = Vec::new();
    for i in 0..10_000u32 {
        frames.extend(frame(3, 0, 3 + 2 * i, &8u32.to_be_bytes()));
    }
    hostile_code(
        "h2_hostile_rst_stream_flood_on_idle_streams",
        vec![ok_head("5"), H2Action::Raw(frames), data(b"hello", true)],
    );
}

#[test]
fn h2_hostile_rst_stream_flood_after_the_response() {
    hostile(
        "h2_hostile_rst_stream_flood_after_the_response",
        vec![
            ok_head("5"),
            data(b"hello", true),
            flood(&frame(3, 0, 1, &8u32.to_be_bytes()), 10_000),
        ],
    );
}

#[test]
fn h2_hostile_settings_flood() {
    hostile(
        "h2_hostile_settings_flood",
        vec![
            flood(&frame(4, 0, 0, &[]), 20_000),
            ok_head("5"),
            data(b"hello", true),
        ],
    );
}

#[test]
fn h2_hostile_ping_flood() {
    hostile(
        "h2_hostile_ping_flood",
        vec![
            flood(&frame(6, 0, 0, b"12345678"), 20_000),
            ok_head("5"),
            data(b"hello", true),
        ],
    );
}

#[test]
fn h2_hostile_unknown_frame_types_are_ignored() {
    hostile(
        "h2_hostile_unknown_frame_types_are_ignored",
        vec![
            flood(&frame(0x20, 0xff, 1, b"whatever"), 1000),
            ok_head("5"),
            data(b"hello", true),
        ],
    );
}

#[test]
fn h2_hostile_settings_enable_push_2() {
    let mut p = 2u16.to_be_bytes().to_vec();
    p.extend_from_slice(&2u32.to_be_bytes());
    hostile_code(
        "h2_hostile_settings_enable_push_2",
        vec![
            H2Action::Raw(frame(4, 0, 0, &p)),
            ok_head("5"),
            data(b"hello", true),
        ],
    );
}

#[test]
fn h2_hostile_push_promise_when_disabled() {
    let mut p = 2u32.to_be_bytes().to_vec();
    p.extend(hpack(200, &[]));
    hostile(
        "h2_hostile_push_promise_when_disabled",
        vec![
            ok_head("5"),
            H2Action::Raw(frame(5, 4, 1, &p)),
            data(b"hello", true),
        ],
    );
}

#[test]
fn h2_hostile_frame_over_max_size() {
    hostile(
        "h2_hostile_frame_over_max_size",
        vec![ok_head("20000"), data(&[b'x'; 20_000], true)],
    );
}

#[test]
fn h2_hostile_padding_longer_than_frame() {
    hostile(
        "h2_hostile_padding_longer_than_frame",
        vec![
            ok_head("5"),
            H2Action::Raw(frame(0, 0x8 | 0x1, 1, b"\x09hello")),
        ],
    );
}

#[test]
fn h2_hostile_bad_hpack() {
    // An indexed field beyond both tables.
    hostile_code(
        "h2_hostile_bad_hpack",
        vec![H2Action::headers(1, vec![0xff, 0xff, 0x7f], true)],
    );
}

#[test]
fn h2_hostile_headers_on_stream_zero() {
    hostile_code(
        "h2_hostile_headers_on_stream_zero",
        vec![H2Action::headers(0, hpack(200, &[]), true)],
    );
}

#[test]
fn h2_hostile_data_between_our_window_and_curls() {
    let chunk = vec![b'z'; 16_384];
    let mut frames = Vec::new();
    for _ in 0..200 {
        frames.extend(frame(0, 0, 1, &chunk));
    }
    hostile(
        "h2_hostile_data_between_our_window_and_curls",
        vec![
            H2Action::headers(1, hpack(200, &[]), false),
            H2Action::Raw(frames),
            data(b"", true),
        ],
    );
}

/// With OpenSSL, the TLS trace of an HTTP/2 connection, in curl's words and order: the
/// handshake and what the connection reads after it (nginx here speaks TLS 1.2, where curl
/// asks for no session tickets).
#[test]
fn h2_openssl_tls_trace() {
    let Some(site) = Site::start() else {
        return;
    };
    let tmp = TempDir::new("h2_openssl_tls_trace");
    let args = ["-sv", "--cacert", "{ca}", "{h2}/", "{h2}/sub/"];
    let env = [("CURL_SSL_BACKEND", "openssl")];
    let r = site.run(&reference_curl(), &args, &env, tmp.path());
    let x = site.run(&under_test(OXCURL), &args, &env, tmp.path());
    let tls = |o: &Output| {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| l.starts_with("* TLSv"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(r.code, x.code);
    assert!(tls(&r).contains("Client hello"), "{}", tls(&r));
    assert_eq!(
        tls(&r),
        tls(&x),
        "\n--- reference\n{}\n--- oxcurl\n{}",
        String::from_utf8_lossy(&r.stderr),
        String::from_utf8_lossy(&x.stderr)
    );
}

/// A stream error leaves the multiplexed connection for the next transfer, and `-v` says so
/// as curl does ("left intact" before the error line): a reset stream, and a stream whose
/// send window overflowed. The whole of `-v` is compared, digits masked.
#[test]
fn h2_stream_error_verbose_leaves_the_connection() {
    use oxcurl_testsupport::diff::{mask_digits, show_diff};
    let scripts = || {
        [
            (
                "rst",
                vec![
                    ok_head("5"),
                    H2Action::Raw(frame(3, 0, 1, &2u32.to_be_bytes())),
                ],
            ),
            (
                "window",
                vec![
                    H2Action::Raw(window_update(1, 0x7fff_ffff)),
                    ok_head("5"),
                    data(b"hello", true),
                ],
            ),
        ]
    };
    for ((name, a), (_, b)) in scripts().into_iter().zip(scripts()) {
        let run = |exe: &Path, script: Vec<H2Action>| {
            let srv = H2Server::start(script);
            let tmp = TempDir::new(name);
            isolated_exec(exe, tmp.path(), tmp.path())
                .args(["-sS", "-v", "--http2-prior-knowledge"])
                .arg(format!("{}/", srv.url()))
                .run()
        };
        let r = run(&reference_curl(), a);
        let x = run(&under_test(OXCURL), b);
        assert_eq!(r.code, Some(92), "{name}{}", runs_report(&r, &x));
        assert_eq!(x.code, r.code, "{name}{}", runs_report(&r, &x));
        // curl leaves out "Request completely sent off" when the bad frame, sent at
        // once, is taken before the request is (under load, now and then): not compared.
        let sent = |e: &[u8]| {
            let e = String::from_utf8_lossy(e).replace("* Request completely sent off\n", "");
            mask_digits(e.as_bytes())
        };
        let (re, xe) = (sent(&r.stderr), sent(&x.stderr));
        assert!(re == xe, "{name}: {}", show_diff("stderr", &re, &xe));
        assert!(
            String::from_utf8_lossy(&x.stderr).contains("left intact\ncurl: (92)"),
            "{name}"
        );
    }
}

/// Waiting on an HTTP/2 connection sleeps. A connection shared after its connect (h2c with
/// prior knowledge) once stayed registered for writability under the transfer's own key,
/// so every wait returned at once: a second of waiting for a silent server took a second of
/// CPU. The client's CPU time is read from /proc while it waits (curl: about none).
#[test]
fn h2c_waiting_for_a_reply_sleeps() {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        // Take the preface and the request, answer nothing until the client gives up.
        let mut buf = [0u8; 4096];
        while matches!(s.read(&mut buf), Ok(n) if n > 0) {}
    });
    let mut child = std::process::Command::new(under_test(OXCURL))
        .args(["-s", "-m", "3", "--http2-prior-knowledge"])
        .arg(format!("http://127.0.0.1:{port}/"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    server.join().unwrap();
    // utime and stime, the 14th and 15th fields, after the ")" that ends the name.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<u64> = rest
        .split(' ')
        .skip(11)
        .take(2)
        .map(|v| v.parse().unwrap())
        .collect();
    let ticks = f[0] + f[1];
    // 100 ticks a second: a busy wait takes about 150 here, a sleeping one 0-2.
    assert!(
        ticks < 40,
        "{ticks} ticks of CPU in 1.5 s of waiting: {stat}"
    );
}
