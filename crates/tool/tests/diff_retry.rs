//! Differential tests: `--retry` and its companions against the reference curl 8.14.1:
//! which results are retried, the warning text, the output file after a retry, and
//! `%{num_retries}`. curl waits at least a second before a retry, so every retrying case
//! here makes one retry at most, or stops early through `--retry-max-time`.

use std::time::Duration;

use oxcurl_testsupport::diff::mask_digits;
use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name).args(args).compare_stderr(true)
}

/// For refused connections: the "after N ms" in curl's message varies with load.
fn refused_case(name: &str, args: &[&str]) -> Case {
    case(name, args).normalise_with(mask_digits)
}

fn busy(code: u16) -> Reply {
    Reply::status(code, &[], "busy, try later\n")
}

/// A loopback port with nothing listening on it (bound, then released).
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn retry_503_then_success_to_file() {
    case(
        "retry_503_then_success_to_file",
        &[
            "--no-progress-meter",
            "--retry",
            "2",
            "-o",
            "{tmp}/out",
            "-w",
            "%{num_retries} %{http_code}\n",
            "{url}/",
        ],
    )
    .replies(vec![busy(503), Reply::ok("fine\n")])
    .run(OXCURL);
}

#[test]
fn retry_body_to_stdout_is_kept() {
    case(
        "retry_body_to_stdout_is_kept",
        &["--no-progress-meter", "--retry", "1", "{url}/"],
    )
    .replies(vec![busy(408), Reply::ok("second\n")])
    .run(OXCURL);
}

#[test]
fn retry_exhausted_with_fail_reports_each_attempt() {
    case(
        "retry_exhausted_with_fail_reports_each_attempt",
        &[
            "-sSf",
            "--retry",
            "1",
            "-w",
            "%{num_retries} %{http_code}\n",
            "{url}/",
        ],
    )
    .replies(vec![busy(502), busy(504)])
    .run(OXCURL);
}

#[test]
fn retry_truncates_output_file() {
    case(
        "retry_truncates_output_file",
        &[
            "--no-progress-meter",
            "--retry",
            "1",
            "-o",
            "{tmp}/out",
            "{url}/",
        ],
    )
    .replies(vec![
        Reply::status(
            500,
            &[],
            "a long error page that must not stay in the file\n",
        ),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
}

#[test]
fn retry_appends_header_file() {
    case(
        "retry_appends_header_file",
        &[
            "-s",
            "--retry",
            "1",
            "-D",
            "{tmp}/h",
            "-o",
            "{tmp}/out",
            "{url}/",
        ],
    )
    .replies(vec![busy(429), Reply::ok("ok\n")])
    .run(OXCURL);
}

#[test]
fn retry_after_zero_header() {
    case(
        "retry_after_zero_header",
        &["--no-progress-meter", "--retry", "1", "{url}/"],
    )
    .replies(vec![
        Reply::status(503, &[("Retry-After", "0")], "busy\n"),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
}

#[test]
fn retry_after_beyond_max_time_gives_up() {
    case(
        "retry_after_beyond_max_time_gives_up",
        &[
            "--no-progress-meter",
            "--retry",
            "3",
            "--retry-max-time",
            "5",
            "{url}/",
        ],
    )
    .reply(Reply::status(503, &[("Retry-After", "60")], "busy\n"))
    .run(OXCURL);
}

#[test]
fn retry_after_http_date_beyond_max_time_gives_up() {
    case(
        "retry_after_http_date_beyond_max_time_gives_up",
        &[
            "--no-progress-meter",
            "--retry",
            "3",
            "--retry-max-time",
            "5",
            "{url}/",
        ],
    )
    .reply(Reply::status(
        503,
        &[("Retry-After", "Fri, 31 Dec 2999 23:59:59 GMT")],
        "busy\n",
    ))
    .run(OXCURL);
}

#[test]
fn retry_max_time_stops_retrying() {
    case(
        "retry_max_time_stops_retrying",
        &[
            "--no-progress-meter",
            "--retry",
            "5",
            "--retry-max-time",
            "1",
            "{url}/",
        ],
    )
    .replies(vec![busy(503), busy(503), busy(503)])
    .run(OXCURL);
}

#[test]
fn retry_not_on_404() {
    case("retry_not_on_404", &["-sSf", "--retry", "3", "{url}/"])
        .reply(Reply::status(404, &[], "gone\n"))
        .run(OXCURL);
}

#[test]
fn retry_not_on_501() {
    case(
        "retry_not_on_501",
        &["--no-progress-meter", "--retry", "3", "{url}/"],
    )
    .reply(Reply::status(501, &[], "nope\n"))
    .run(OXCURL);
}

#[test]
fn retry_zero_means_no_retry() {
    case(
        "retry_zero_means_no_retry",
        &["--no-progress-meter", "--retry", "0", "{url}/"],
    )
    .reply(busy(503))
    .run(OXCURL);
}

#[test]
fn retry_silent_hides_warning() {
    case(
        "retry_silent_hides_warning",
        &["-s", "--retry", "1", "{url}/"],
    )
    .replies(vec![busy(503), Reply::ok("ok\n")])
    .run(OXCURL);
}

#[test]
fn connection_refused_not_retried_by_default() {
    let url = format!("http://127.0.0.1:{}/", closed_port());
    refused_case(
        "connection_refused_not_retried_by_default",
        &["--no-progress-meter", "--retry", "2", &url],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn retry_connrefused() {
    let url = format!("http://127.0.0.1:{}/", closed_port());
    refused_case(
        "retry_connrefused",
        &[
            "--no-progress-meter",
            "--retry",
            "1",
            "--retry-connrefused",
            "-w",
            "%{num_retries}\n",
            &url,
        ],
    )
    .run(OXCURL);
}

#[test]
fn retry_all_errors() {
    let url = format!("http://127.0.0.1:{}/", closed_port());
    refused_case(
        "retry_all_errors",
        &[
            "--no-progress-meter",
            "--retry",
            "1",
            "--retry-all-errors",
            &url,
        ],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn retry_all_errors_includes_404_with_fail() {
    case(
        "retry_all_errors_includes_404_with_fail",
        &["-sSf", "--retry", "1", "--retry-all-errors", "{url}/"],
    )
    .replies(vec![Reply::status(404, &[], "x\n"), Reply::ok("ok\n")])
    .run(OXCURL);
}

#[test]
fn retry_on_timeout() {
    case(
        "retry_on_timeout",
        &["--no-progress-meter", "--retry", "1", "-m", "0.3", "{url}/"],
    )
    .replies(vec![
        Reply::ok("late\n").sleep(Duration::from_millis(600)),
        Reply::ok("in time\n"),
    ])
    .unordered_connections()
    .compare_requests(false)
    .run(OXCURL);
}

#[test]
fn retry_negative_count_rejected() {
    case(
        "retry_negative_count_rejected",
        &["--retry", "-1", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn retry_delay_not_a_number() {
    case(
        "retry_delay_not_a_number",
        &["--retry-delay", "0.5", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn retry_max_time_negative_rejected() {
    case(
        "retry_max_time_negative_rejected",
        &["--retry-max-time", "-3", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

// ---- --rate -----------------------------------------------------------------------

#[test]
fn rate_spaces_serial_transfers() {
    case(
        "rate_spaces_serial_transfers",
        &["-sS", "--rate", "5/s", "{url}/a", "{url}/b", "{url}/c"],
    )
    .replies(vec![Reply::ok("a\n"), Reply::ok("b\n"), Reply::ok("c\n")])
    .run(OXCURL);
    // Three transfers at 5 per second: the last starts 400 ms after the first at least.
    let server = oxcurl_testsupport::ScriptedServer::with_replies(vec![
        Reply::ok("a\n"),
        Reply::ok("b\n"),
        Reply::ok("c\n"),
    ]);
    let url = server.url();
    let started = std::time::Instant::now();
    let out = std::process::Command::new(under_test(OXCURL))
        .args(["-sS", "--rate", "5/s"])
        .args([format!("{url}/a"), format!("{url}/b"), format!("{url}/c")])
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"a\nb\nc\n");
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_millis(2000), "{took:?}");
}

#[test]
fn rate_per_minute_with_count() {
    // 120 per 2 minutes: one per second; a single URL never waits.
    let started = std::time::Instant::now();
    case(
        "rate_per_minute_with_count",
        &["-sS", "--rate", "120/2m", "{url}/"],
    )
    .reply(Reply::ok("one\n"))
    .run(OXCURL);
    assert!(started.elapsed() < Duration::from_millis(900));
}

#[test]
fn rate_bad_unit() {
    case("rate_bad_unit", &["--rate", "2/x", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn rate_fractional_unit_count() {
    case(
        "rate_fractional_unit_count",
        &["--rate", "3/1.5s", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn rate_zero() {
    case("rate_zero", &["--rate", "0", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn rate_faster_than_a_millisecond() {
    case(
        "rate_faster_than_a_millisecond",
        &["--rate", "1001/s", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn rate_zero_units() {
    case("rate_zero_units", &["--rate", "1/0s", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn retry_count_with_plus_sign_rejected() {
    case(
        "retry_count_with_plus_sign_rejected",
        &["--retry", "+2", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn retry_delay_too_large() {
    case(
        "retry_delay_too_large",
        &["--retry-delay", "9223372036854776", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
/// With `-C`, a response without Content-Range (the 503) fails with 33 before any retry.
fn retry_with_resume_keeps_the_start() {
    case(
        "retry_with_resume_keeps_the_start",
        &[
            "--no-progress-meter",
            "--retry",
            "1",
            "-C",
            "-",
            "-o",
            "{tmp}/out",
            "{url}/",
        ],
    )
    .file("out", "0123")
    .replies(vec![
        Reply::status(503, &[], "an error page to throw away\n"),
        Reply::status(206, &[("Content-Range", "bytes 4-9/10")], "456789"),
    ])
    .run(OXCURL);
}

/// Only curl's `Note:` and `Warning:` lines of a verbose run.
fn notes_only(d: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(d)
        .lines()
        .filter(|l| l.starts_with("Note: ") || l.starts_with("Warning: "))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn retry_verbose_notes_thrown_away_bytes() {
    case(
        "retry_verbose_notes_thrown_away_bytes",
        &[
            "-v",
            "--no-progress-meter",
            "--retry",
            "1",
            "-o",
            "{tmp}/out",
            "{url}/",
        ],
    )
    .normalise_with(notes_only)
    .replies(vec![busy(503), Reply::ok("ok\n")])
    .run(OXCURL);
}

#[test]
fn retry_silent_verbose_has_no_notes() {
    case(
        "retry_silent_verbose_has_no_notes",
        &["-sv", "--retry", "1", "-o", "{tmp}/out", "{url}/"],
    )
    .normalise_with(notes_only)
    .replies(vec![busy(503), Reply::ok("ok\n")])
    .run(OXCURL);
}

// ---- retries under -Z -------------------------------------------------------------

/// Two parallel URLs, one answered 503 twice: the retries wait without holding up the
/// other transfer, which ends first; the warnings, outputs and -w lines match curl's.
/// The slow transfer's own time shows that nothing slept while it ran: a retry that
/// blocked the loop would hold its end back by the first retry's second.
#[test]
fn parallel_retries_do_not_block_other_transfers() {
    let r = case(
        "parallel_retries_do_not_block_other_transfers",
        &[
            "--no-progress-meter",
            "-Z",
            "--retry",
            "3",
            "-w",
            "%{url.path} %{num_retries} %{http_code} %{time_total}\n",
            "-o",
            "{tmp}/flaky.out",
            "{url}/flaky",
            "-o",
            "{tmp}/slow.out",
            "{url}/slow",
        ],
    )
    .server(|s| {
        s.route_seq("/flaky", vec![busy(503), busy(503), Reply::ok("at last\n")]);
        s.route(
            "/slow",
            Reply::status(200, &[("Content-Length", "8")], "").write_slowly(
                "slowbody",
                1,
                Duration::from_millis(60),
            ),
        );
    })
    // Which connection a request goes on depends on timing; the requests are counted below.
    .compare_requests(false)
    .normalise_with(|d| {
        // Times vary: keep them out of the comparison, checked below instead.
        String::from_utf8_lossy(d)
            .lines()
            .map(|l| match l.rsplit_once(' ') {
                Some((head, t)) if t.contains('.') => format!("{head} T\n"),
                _ => format!("{l}\n"),
            })
            .collect::<String>()
            .into_bytes()
    })
    .run(OXCURL);
    let out = String::from_utf8_lossy(&r.oxcurl.output.stdout).into_owned();
    let slow: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("/slow 0 200 "))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no /slow line in {out:?}"));
    assert!(
        slow < 0.9,
        "the slow transfer took {slow}s: it waited for a retry"
    );
    assert_eq!(
        sorted_paths(&r.reference.requests),
        ["/flaky", "/flaky", "/flaky", "/slow"]
    );
    assert_eq!(
        sorted_paths(&r.oxcurl.requests),
        sorted_paths(&r.reference.requests)
    );
}

/// Retry-After sets the wait of a parallel retry, and --retry-max-time still ends it.
#[test]
fn parallel_retry_after_and_max_time() {
    let r = case(
        "parallel_retry_after_and_max_time",
        &[
            "--no-progress-meter",
            "-Z",
            "--retry",
            "3",
            "--retry-max-time",
            "2",
            "-w",
            "%{url.path} %{num_retries} %{http_code}\n",
            "-o",
            "{tmp}/a.out",
            "{url}/a",
            "-o",
            "{tmp}/b.out",
            "{url}/b",
        ],
    )
    .server(|s| {
        s.route_seq(
            "/a",
            vec![
                Reply::status(503, &[("Retry-After", "1")], "busy\n"),
                Reply::status(429, &[("Retry-After", "5")], "busy\n"),
            ],
        );
        s.route("/b", Reply::ok("b\n"));
    })
    // Which connection a request goes on depends on timing; the requests are counted below.
    .compare_requests(false)
    .run(OXCURL);
    assert_eq!(sorted_paths(&r.reference.requests), ["/a", "/a", "/b"]);
    assert_eq!(
        sorted_paths(&r.oxcurl.requests),
        sorted_paths(&r.reference.requests)
    );
}

/// The paths of the requests a run made, sorted: with `-Z`, which connection carried which
/// request depends on timing, so parallel cases compare these instead.
fn sorted_paths(reqs: &[oxcurl_testsupport::Request]) -> Vec<String> {
    let mut p: Vec<String> = reqs.iter().map(|r| r.path().to_string()).collect();
    p.sort();
    p
}
