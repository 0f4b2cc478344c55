//! Differential tests for speed control: `--limit-rate` (the engine sleeps on a timer while
//! the average speed is over the limit) and its argument syntax. Timing is checked only as
//! a generous lower bound.

use std::time::Duration;

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name).args(args).compare_stderr(true)
}

#[test]
fn limit_rate_download_takes_its_time() {
    let r = case(
        "limit_rate_download_takes_its_time",
        &["-s", "--limit-rate", "100k", "-o", "{tmp}/out", "{url}/"],
    )
    .reply(Reply::big(200 * 1024))
    .timeout(Duration::from_secs(20))
    .run(OXCURL);
    // 200 KiB at 100 KiB/s: the first 100 KiB at once, then a second's sleep per 100 KiB.
    let took = r.oxcurl.output.elapsed;
    assert!(took >= Duration::from_millis(1500), "took {took:?}");
}

#[test]
fn limit_rate_upload_takes_its_time() {
    let r = case(
        "limit_rate_upload_takes_its_time",
        &["-s", "--limit-rate", "20K", "-T", "{tmp}/up", "{url}/"],
    )
    .file("up", vec![b'u'; 50 * 1024])
    .reply(Reply::ok("stored\n"))
    .timeout(Duration::from_secs(20))
    .run(OXCURL);
    // 50 KiB at 20 KiB/s: at least two sleeps of a second.
    let took = r.oxcurl.output.elapsed;
    assert!(took >= Duration::from_millis(1500), "took {took:?}");
}

#[test]
fn limit_rate_with_progress_meter_off_and_small_unit() {
    case(
        "limit_rate_with_progress_meter_off_and_small_unit",
        &["-s", "--limit-rate", "1m", "{url}/"],
    )
    .reply(Reply::ok("quick\n"))
    .run(OXCURL);
}

#[test]
fn limit_rate_argument_errors() {
    for (i, v) in [
        "1T",
        "10x",
        "abc",
        "",
        "-5",
        " 5",
        "5 ",
        "1.5k",
        "9000000000G",
        "1kb",
    ]
    .iter()
    .enumerate()
    {
        case(
            &format!("limit_rate_argument_errors_{i}"),
            &["--limit-rate", v, "{url}/"],
        )
        .run(OXCURL);
    }
}

#[test]
fn limit_rate_warning_silenced_by_s() {
    case(
        "limit_rate_warning_silenced_by_s",
        &["-s", "--limit-rate", "7q", "{url}/"],
    )
    .run(OXCURL);
}
