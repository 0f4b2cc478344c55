//! The tool reads the scheme table (`oxcurl_core::scheme`): `-V` lists the schemes served, and
//! `--proto`, `--proto-redir` and `--proto-default` know every scheme curl 8.14.1 knows by
//! name, as the reference curl does, whether or not this build serves it.

use oxcurl_core::scheme::{self, SCHEMES};
use oxcurl_testsupport::diff::{isolated_exec, runs_report};
use oxcurl_testsupport::process::{reference_curl, Output};
use oxcurl_testsupport::TempDir;

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn run(program: &std::path::Path, args: &[&str]) -> Output {
    let dir = TempDir::new("schemes");
    isolated_exec(program, dir.path(), dir.path())
        .args(args)
        .run()
}

/// The names on `-V`'s Protocols line.
fn protocols_line(program: &std::path::Path) -> Vec<String> {
    let out = run(program, &["-V"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    let text = out.stdout_str();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("Protocols: "))
        .expect("a Protocols line");
    line.split(' ').map(str::to_string).collect()
}

#[test]
fn version_lists_the_schemes_served() {
    let want: Vec<String> = scheme::served()
        .filter(|s| !scheme::hidden_in_version(s.name))
        .map(|s| s.name.to_string())
        .collect();
    assert_eq!(protocols_line(OXCURL.as_ref()), want);
}

#[test]
fn the_table_is_what_the_reference_lists() {
    // The reference serves every scheme; its tool adds its own ipfs and ipns after https.
    let mut reference = protocols_line(&reference_curl());
    reference.retain(|p| p != "ipfs" && p != "ipns");
    let table: Vec<String> = SCHEMES
        .iter()
        .filter(|s| !scheme::hidden_in_version(s.name))
        .map(|s| s.name.to_string())
        .collect();
    assert_eq!(reference, table);
}

#[test]
fn proto_options_know_the_schemes_curl_knows() {
    let mut names: Vec<&str> = SCHEMES.iter().map(|s| s.name).collect();
    // Not libcurl schemes: the tool's own ipfs, a made-up one, and letter case.
    names.extend(["ipfs", "ipns", "bogus", "HTTP", "Rtmpe"]);
    for name in names {
        let set = format!("={name}");
        let args = [
            "--proto",
            &set,
            "--proto-redir",
            &set,
            "--proto-default",
            name,
            "file:///nonexistent/oxcurl-scheme-table",
        ];
        let reference = run(&reference_curl(), &args);
        let ours = run(OXCURL.as_ref(), &args);
        assert!(
            reference.code == ours.code && reference.stderr == ours.stderr,
            "{name}:\n{}",
            runs_report(&reference, &ours)
        );
        // Each case did something: it refused the name, refused file://, or tried the file.
        let err = ours.stderr_str();
        assert!(
            err.contains("unsupported by libcurl")
                || err.contains("Protocol \"file\" disabled")
                || err.contains("Couldn't open file"),
            "{name}: {err}"
        );
    }
}
