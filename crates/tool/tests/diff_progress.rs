//! Differential tests for the `-#` progress bar: its final line for transfers of known size
//! (earlier lines depend on timing, so only transfers that finish within one update are
//! compared byte for byte).

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

#[test]
fn bar_for_a_known_size_download() {
    Case::new("bar_for_a_known_size_download")
        .args(&["-#", "-o", "{tmp}/out", "{url}/"])
        .reply(Reply::ok("small body\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn bar_width_from_columns() {
    Case::new("bar_width_from_columns")
        .args(&["--progress-bar", "-o", "{tmp}/out", "{url}/"])
        .env("COLUMNS", "40")
        .reply(Reply::ok("small body\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
/// The bar is drawn when the upload is complete, and again at the end.
fn bar_for_an_upload() {
    Case::new("bar_for_an_upload")
        .args(&["-#", "-T", "{tmp}/up.txt", "-o", "{tmp}/out", "{url}/"])
        .file("up.txt", "upload me\n")
        .reply(Reply::ok("ok\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn bar_silenced_by_s() {
    Case::new("bar_silenced_by_s")
        .args(&["-s", "-#", "-o", "{tmp}/out", "{url}/"])
        .reply(Reply::ok("small body\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn bar_then_error() {
    Case::new("bar_then_error")
        .args(&["-#", "-f", "-o", "{tmp}/out", "{url}/"])
        .reply(Reply::status(404, &[], "nope\n"))
        .compare_stderr(true)
        .run(OXCURL);
}

/// The deterministic parts of the `-Z` meter: the header, the first line (drawn before any
/// transfer got anywhere) and the final line's columns, with times' digits masked and the
/// speed left out. How many lines come between depends on timing.
fn parallel_meter_shape(data: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(data);
    let Some((header, rest)) = text.split_once('\n') else {
        return data.to_vec();
    };
    let Some((meter, after)) = rest.split_once('\n') else {
        return data.to_vec();
    };
    let lines: Vec<&str> = meter.split('\r').filter(|l| !l.is_empty()).collect();
    let first = lines.first().copied().unwrap_or_default();
    let last = lines.last().copied().unwrap_or_default();
    let mut cols: Vec<String> = last.split_whitespace().map(str::to_string).collect();
    if cols.len() == 10 {
        for c in &mut cols[6..9] {
            *c = String::from_utf8(oxcurl_testsupport::diff::mask_digits(c.as_bytes())).unwrap();
        }
        cols[9] = "SPEED".into();
    }
    format!(
        "{header}\nfirst:{first}|\nlines:{}\nlast:{}\n{after}",
        lines.len().min(2),
        cols.join(" ")
    )
    .into_bytes()
}

fn parallel_case(name: &str, args: &[&str]) -> Case {
    // curl -Z waits to see whether a second transfer can share the first one's connection
    // (PIPEWAIT) and then reuses it; oxcurl opens a second one: only the meter is compared.
    Case::new(name)
        .args(args)
        .compare_stderr(true)
        .compare_requests(false)
        .normalise_with(parallel_meter_shape)
}

#[test]
fn parallel_meter_two_downloads() {
    parallel_case(
        "parallel_meter_two_downloads",
        &["-Z", "-o", "{tmp}/a", "-o", "{tmp}/b", "{url}/a", "{url}/b"],
    )
    .reply(Reply::big(300_000))
    .run(OXCURL);
}

#[test]
fn parallel_meter_upload_and_download() {
    parallel_case(
        "parallel_meter_upload_and_download",
        &["-Z", "-T", "{tmp}/up", "-o", "{tmp}/out", "{url}/up"],
    )
    .file("up", vec![b'x'; 5000])
    .reply(Reply::ok("stored\n"))
    .run(OXCURL);
}

#[test]
fn parallel_meter_silenced() {
    for (i, quiet) in ["-s", "--no-progress-meter"].iter().enumerate() {
        Case::new(&format!("parallel_meter_silenced_{i}"))
            .args(&[quiet, "-Z", "-o", "{tmp}/a", "{url}/a", "{url}/b"])
            .reply(Reply::ok("body\n"))
            .compare_stderr(true)
            .compare_requests(false)
            .run(OXCURL);
    }
}
