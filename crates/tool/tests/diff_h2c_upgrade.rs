//! Differential tests for `--http2` on http:// URLs against a server that takes the
//! `Upgrade: h2c` (Debian's nghttpx as a cleartext reverse proxy in front of nginx): the
//! request goes as HTTP/1.1, the 101 switches the connection, and the response comes on
//! HTTP/2 stream 1. Compared are stdout (response `date:` masked), the exit code and the
//! deterministic part of `-v`. Servers that ignore the upgrade are in `diff_h2.rs`.

use std::path::Path;

use oxcurl_testsupport::daemons::Nghttpx;
use oxcurl_testsupport::diff::{isolated_exec, runs_report};
use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{reference_curl, Nginx, Output, Reply, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

struct Site {
    nghttpx: Nghttpx,
    _nginx: Nginx,
    _root: TempDir,
}

impl Site {
    fn start() -> Option<Site> {
        let root = TempDir::new("h2c-up-root");
        std::fs::write(root.join("index.html"), "hello upgrade\n").unwrap();
        std::fs::write(
            root.join("big.bin"),
            oxcurl_testsupport::http::generated_body(300_000),
        )
        .unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/index.html"), "in sub\n").unwrap();
        let nginx = Nginx::try_start(root.path())?;
        let nghttpx = Nghttpx::try_start_h2c(nginx.port())?;
        Some(Site {
            nghttpx,
            _nginx: nginx,
            _root: root,
        })
    }

    /// Runs `prog` with `-v` (to see that the reference switched) and `args`.
    fn run(&self, prog: &Path, args: &[&str], tmp: &Path) -> Output {
        let base = format!("http://127.0.0.1:{}", self.nghttpx.port());
        let args = std::iter::once("-v").chain(args.iter().copied());
        isolated_exec(prog, tmp, tmp)
            .args(args.map(|a| a.replace("{u}", &base)))
            .run()
    }
}

/// Lines of `-v` output that do not depend on timing or addresses. Left out are where curl
/// notes "Request completely sent off" (before or after the 101, as the reads fall) and how
/// many bytes came with the 101.
fn verbose_lines(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| {
            l.starts_with("* [HTTP/2]")
                || l.starts_with("> ")
                || l.starts_with("< ")
                || l.starts_with("* using")
                || l.starts_with("* Re-using")
                || l.starts_with("* Connection #")
                || l.starts_with("* Received 101")
                || l.starts_with("* upload completely")
        })
        .map(|l| {
            let lower = l.to_ascii_lowercase();
            if lower.starts_with("< date: ") || lower.starts_with("< last-modified: ") {
                return l[..l.find(':').unwrap_or(0)].to_string();
            }
            l.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn mask_stdout(out: &[u8], sorted: bool) -> String {
    let text = String::from_utf8_lossy(out);
    let mut lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|l| {
            let lower = l.to_ascii_lowercase();
            if lower.starts_with("date: ") {
                "date: <masked>\r\n".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    if sorted {
        lines.sort();
    }
    lines.concat()
}

fn diff(name: &str, args: &[&str], stderr: bool, sorted: bool) {
    let Some(site) = Site::start() else {
        return;
    };
    let tmp = TempDir::new(name);
    let r = site.run(&reference_curl(), args, tmp.path());
    let x = site.run(&under_test(OXCURL), args, tmp.path());
    let report = runs_report(&r, &x);
    assert!(
        r.stderr
            .windows(b"Received 101".len())
            .any(|w| w == b"Received 101"),
        "{name}: the reference did not switch{report}"
    );
    assert_eq!(r.code, x.code, "{name}: exit code{report}");
    assert_eq!(
        mask_stdout(&r.stdout, sorted),
        mask_stdout(&x.stdout, sorted),
        "{name}: stdout{report}"
    );
    if stderr {
        assert_eq!(
            verbose_lines(&r.stderr),
            verbose_lines(&x.stderr),
            "{name}: -v lines{report}"
        );
    }
}

#[test]
fn h2c_upgrade_get_verbose() {
    diff(
        "h2c_upgrade_get_verbose",
        &["-sv", "--http2", "{u}/index.html"],
        true,
        false,
    );
}

/// `-i` shows the 101's head, then the HTTP/2 response's.
#[test]
fn h2c_upgrade_include_headers() {
    diff(
        "h2c_upgrade_include_headers",
        &[
            "-si",
            "--http2",
            "-w",
            "%{http_version} %{response_code} %{num_connects}\n",
            "{u}/index.html",
        ],
        true,
        false,
    );
}

/// A HEAD switched: the response on stream 1 has a content-length and no body.
#[test]
fn h2c_upgrade_head() {
    diff(
        "h2c_upgrade_head",
        &["-sv", "-I", "--http2", "{u}/index.html"],
        true,
        false,
    );
}

#[test]
fn h2c_upgrade_big_body() {
    diff(
        "h2c_upgrade_big_body",
        &[
            "-s",
            "--http2",
            "-w",
            "%{size_download} %{http_version}\n",
            "{u}/big.bin",
        ],
        false,
        false,
    );
}

/// The upgraded connection takes the next requests as HTTP/2 streams 3, 5, ...; their
/// header blocks must decode right after the one of stream 1 that never went on the wire.
#[test]
fn h2c_upgrade_then_streams_on_the_same_connection() {
    let long = format!("X-Long: {}", "v".repeat(300));
    diff(
        "h2c_upgrade_then_streams_on_the_same_connection",
        &[
            "-sv",
            "--http2",
            "-H",
            &long,
            "-H",
            "X-A: 1",
            "-w",
            "%{num_connects} %{http_version}\n",
            "{u}/index.html",
            "{u}/index.html",
            "{u}/big.bin",
            "-o",
            "/dev/null",
            "{u}/index.html?again",
        ],
        true,
        false,
    );
}

/// A redirect followed on the upgraded connection: the next request is stream 3.
#[test]
fn h2c_upgrade_redirect_follow_reuses() {
    diff(
        "h2c_upgrade_redirect_follow_reuses",
        &[
            "-sv",
            "-L",
            "--http2",
            "-w",
            "%{num_connects} %{num_redirects} %{http_version}\n",
            "{u}/sub",
        ],
        true,
        false,
    );
}

/// Parallel transfers wait for the connection that asked to upgrade and then share it.
#[test]
fn h2c_upgrade_parallel_transfers_share_a_connection() {
    diff(
        "h2c_upgrade_parallel_transfers_share_a_connection",
        &[
            "-s",
            "-Z",
            "--http2",
            "-w",
            "%{num_connects} %{http_version}\n",
            "{u}/big.bin",
            "{u}/index.html",
            "{u}/index.html?b",
            "-o",
            "/dev/null",
            "-o",
            "/dev/null",
            "-o",
            "/dev/null",
        ],
        false,
        true,
    );
}

// ---- scripted servers -----------------------------------------------------------------

const SWITCH: &str =
    "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";

/// A 101 and then nothing: the connection ends before any HTTP/2 response.
#[test]
fn h2c_upgrade_101_then_close() {
    oxcurl_testsupport::Case::new("h2c_upgrade_101_then_close")
        .args(&["-s", "--http2", "{url}/"])
        .reply(Reply::raw(SWITCH))
        .compare_requests(false)
        .run(OXCURL);
}

/// A 101 followed by bytes that are no HTTP/2 frames.
#[test]
fn h2c_upgrade_101_then_garbage() {
    oxcurl_testsupport::Case::new("h2c_upgrade_101_then_garbage")
        .args(&["-s", "--http2", "{url}/"])
        .reply(Reply::raw(format!(
            "{SWITCH}HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
        )))
        .compare_requests(false)
        .run(OXCURL);
}

/// A 101 to no upgrade of ours is the final response (curl: "We silently accept this as
/// the final response"), whose body lasts until the connection closes.
#[test]
fn h2c_unrequested_101_is_final() {
    oxcurl_testsupport::Case::new("h2c_unrequested_101_is_final")
        .args(&[
            "-s",
            "-i",
            "-w",
            "%{response_code} %{size_download}\n",
            "{url}/",
        ])
        .reply(Reply::raw(format!("{SWITCH}some bytes")).close())
        .run(OXCURL);
}
