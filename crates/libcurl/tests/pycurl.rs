//! pycurl (built from its PyPI sdist by scripts/pycurl.sh against curl's headers and our
//! library) running its own test suite on our libcurl.so.4. The suite has tests for features
//! we lack (see docs/internals/CABI.md for the counts); this asserts a floor of passing tests
//! measured on this library, so a regression in what already works fails it.

mod common;

use oxcurl_testsupport::process::Exec;
use std::time::Duration;

/// Passed tests measured with `scripts/pycurl.sh -- -q --timeout=60 tests` (866 of 1011;
/// the reference libcurl passes the numbers in CABI.md), less a margin for flaky timing tests.
const MIN_PASSED: u64 = 900;

fn count(summary: &str, what: &str) -> u64 {
    summary
        .split(", ")
        .filter_map(|part| part.trim().strip_suffix(what))
        .filter_map(|n| n.trim().rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[test]
fn pycurl_test_suite_passes_on_our_library() {
    if Exec::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .run()
        .code
        != Some(0)
    {
        eprintln!("SKIP: python3 with venv and ensurepip is needed (Debian: python3-venv)");
        return;
    }
    let _ = common::ours();
    let out = Exec::new("bash")
        .arg(common::root().join("scripts/pycurl.sh"))
        .args(["--link-only", "--", "-q", "--timeout=60", "tests"])
        .timeout(Duration::from_secs(900))
        .run();
    let stdout = out.stdout_str();
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.contains(" passed") && l.contains(" in "))
        .unwrap_or_else(|| {
            panic!(
                "no pytest summary: stdout {} stderr {}",
                &stdout[stdout.len().saturating_sub(4000)..],
                out.stderr_str()
            )
        });
    eprintln!("pycurl on our library: {summary}");
    assert!(
        out.stderr_str().contains("oxcurl/"),
        "pycurl did not load our library: {}",
        out.stderr_str()
    );
    let passed = count(summary, " passed");
    assert!(
        passed >= MIN_PASSED,
        "{passed} passed, want at least {MIN_PASSED}: {summary}"
    );
}
