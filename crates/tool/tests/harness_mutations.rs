//! The differential harness fails on each kind of difference. Wrappers around oxcurl
//! (tests/fixtures/mutants/) that each change one thing, one byte of stdout, of stderr, of a
//! file written with `-o` or of the request, or the exit code, make the comparison report
//! exactly that difference; the wrapper that changes nothing matches.
//!
//! The wrappers run through [`Case::try_run_exact`], so `OXCURL_UNDER_TEST` does not replace
//! them; they wrap the oxcurl cargo built. scripts/mutation-check.sh runs ordinary tests with
//! the same wrappers as `OXCURL_UNDER_TEST`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use oxcurl_testsupport::{Case, Difference, Reply, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// The wrapper `name` around the built oxcurl, in its own directory (kept while the
/// returned [`TempDir`] lives).
fn mutant(name: &str) -> (TempDir, PathBuf) {
    let template = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mutants")
        .join(format!("{name}.sh"));
    let text = fs::read_to_string(&template)
        .unwrap_or_else(|e| panic!("read {}: {e}", template.display()));
    assert!(!OXCURL.contains('\''), "{OXCURL}: a quote in the path");
    let dir = TempDir::new(&format!("mutant-{name}"));
    let exe = dir.join(name);
    fs::write(&exe, text.replace("@REAL@", OXCURL)).expect("write wrapper");
    fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).expect("chmod wrapper");
    (dir, exe)
}

/// A case with something in every compared section: two requests on the wire, the first
/// body saved with `-o`, `-w` output on stdout, curl's error for the second (a 404 with
/// `--fail`) on stderr, exit code 22.
fn every_section() -> Case {
    Case::new("every_section")
        .args(&[
            "-sS",
            "--fail",
            "-w",
            "%{http_code}\\n",
            "{url}/a",
            "-o",
            "{tmp}/out",
            "{url}/b",
        ])
        .replies(vec![
            Reply::ok("hello\n"),
            Reply::status(404, &[], "not here\n"),
        ])
        .compare_stderr(true)
}

/// Runs [`every_section`] with the wrapper `name` and returns what differed.
fn differences(name: &str) -> Vec<Difference> {
    let (_dir, exe) = mutant(name);
    match every_section().try_run_exact(&exe) {
        Ok(r) => panic!(
            "wrapper {name}: no difference found; reference stdout {:?} stderr {:?}, \
             oxcurl stdout {:?} stderr {:?}",
            r.reference.stdout_str(),
            r.reference.stderr_str(),
            r.oxcurl.stdout_str(),
            r.oxcurl.stderr_str()
        ),
        Err(m) => {
            eprintln!("wrapper {name}: {:?}\n{}", m.differences, m.report);
            m.differences.clone()
        }
    }
}

#[test]
fn unchanged_wrapper_matches() {
    let (_dir, exe) = mutant("passthrough");
    let r = every_section()
        .try_run_exact(&exe)
        .unwrap_or_else(|m| panic!("{}", m.report));
    // The case does show something in each section, so the mutants below change real data.
    assert_eq!(r.reference.code(), 22);
    assert_eq!(r.reference.stdout_str(), "200\n404\n");
    assert!(
        r.reference.stderr_str().contains("curl: (22)"),
        "{}",
        r.reference.stderr_str()
    );
    assert_eq!(
        r.reference.files.get("out").map(Vec::as_slice),
        Some(&b"hello\n"[..])
    );
    assert!(!r.reference.connections.is_empty());
}

#[test]
fn one_byte_of_stdout_fails() {
    assert_eq!(differences("stdout"), [Difference::Stdout]);
}

#[test]
fn one_byte_of_stderr_fails() {
    assert_eq!(differences("stderr"), [Difference::Stderr]);
}

#[test]
fn one_byte_of_a_written_file_fails() {
    assert_eq!(differences("file"), [Difference::File("out".into())]);
}

#[test]
fn one_byte_of_the_request_fails() {
    // Both requests go on one kept-alive connection.
    assert_eq!(differences("request"), [Difference::Request(0)]);
}

#[test]
fn the_exit_code_fails() {
    assert_eq!(differences("exit"), [Difference::Exit]);
}

/// stderr is compared only on request: a case without [`Case::compare_stderr`] lets a
/// changed stderr pass, and its report (had anything else differed) would show it apart.
#[test]
fn stderr_not_compared_passes() {
    let (_dir, exe) = mutant("stderr");
    every_section()
        .compare_stderr(false)
        .try_run_exact(&exe)
        .unwrap_or_else(|m| panic!("{}", m.report));
}
