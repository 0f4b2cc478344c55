//! Differential tests for speed control: `--limit-rate` (the engine sleeps on a timer while
//! the average speed is over the limit) and the low-speed abort (`-Y`/`-y`), with their
//! argument syntax. Timing is checked only as a generous lower bound.

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
        .expect_failure()
        .run(OXCURL);
    }
}

#[test]
fn limit_rate_warning_silenced_by_s() {
    case(
        "limit_rate_warning_silenced_by_s",
        &["-s", "--limit-rate", "7q", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

/// A response head, then nothing for `stall`, then the body.
fn stalling(stall: Duration) -> Reply {
    Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
        .sleep(stall)
        .body("0123456789")
}

#[test]
fn speed_limit_aborts_a_stalled_body() {
    let r = case(
        "speed_limit_aborts_a_stalled_body",
        &["-sS", "-Y", "1000", "-y", "2", "{url}/"],
    )
    .reply(stalling(Duration::from_secs(3)))
    .timeout(Duration::from_secs(20))
    .run(OXCURL);
    assert_eq!(r.oxcurl.code(), 28);
    let took = r.oxcurl.output.elapsed;
    assert!(took >= Duration::from_millis(1500), "took {took:?}");
}

#[test]
fn speed_time_alone_means_one_byte_per_second() {
    case(
        "speed_time_alone_means_one_byte_per_second",
        &["-sS", "--speed-time", "1", "{url}/"],
    )
    .reply(
        Reply::new()
            .sleep(Duration::from_secs(2))
            .write("HTTP/1.1 200 OK\r\n\r\n"),
    )
    .timeout(Duration::from_secs(20))
    .run(OXCURL);
}

#[test]
fn speed_limit_met_by_a_short_pause() {
    case(
        "speed_limit_met_by_a_short_pause",
        &["-sS", "-Y", "1", "-y", "3", "{url}/"],
    )
    .reply(stalling(Duration::from_millis(300)))
    .run(OXCURL);
}

#[test]
fn speed_options_argument_errors() {
    for (i, args) in [
        ["-Y", "abc"],
        ["-Y", "-1"],
        ["-y", "1.5"],
        ["--speed-time", "-3"],
        ["--speed-limit", "1k"],
    ]
    .iter()
    .enumerate()
    {
        case(
            &format!("speed_options_argument_errors_{i}"),
            &[args[0], args[1], "{url}/"],
        )
        .expect_failure()
        .run(OXCURL);
    }
}
