//! The scheme table (`oxcurl_core::scheme`) is what libcurl reports: `curl_version_info`'s
//! protocols are the schemes served, `CURLOPT_PROTOCOLS_STR` takes exactly those, the URL API's
//! default ports are the table's and libcurl 8.14.1's, and `CURLINFO_PROTOCOL` is the table's
//! bit, equal to the reference libcurl's.

mod common;

use common::{compile, run, Lib};
use oxcurl_core::scheme::{self, SCHEMES};

/// Runs tests/c/schemes.c against `lib` for a transfer of `url`, naming every scheme.
fn report(lib: Lib, url: &str) -> Vec<String> {
    let exe = compile("schemes", lib);
    let mut args = vec![url];
    args.extend(SCHEMES.iter().map(|s| s.name));
    let out = run(&exe, lib, &args);
    let _ = std::fs::remove_file(&exe);
    assert_eq!(out.code, Some(0), "{lib:?}: {}", out.stderr_str());
    out.stdout_str().lines().map(str::to_string).collect()
}

fn lines<'a>(report: &'a [String], key: &str) -> Vec<&'a str> {
    report.iter().filter_map(|l| l.strip_prefix(key)).collect()
}

fn file_url() -> String {
    format!("file://{}", env!("CARGO_MANIFEST_DIR")) + "/tests/c/schemes.c"
}

#[test]
fn version_info_lists_the_served_schemes() {
    let ours = report(Lib::Ours, &file_url());
    let listed = lines(&ours, "listed ");
    let served: Vec<&str> = scheme::served().map(|s| s.name).collect();
    assert_eq!(listed, served);
    assert!(served.contains(&"http") && served.contains(&"file"));
}

#[test]
fn the_table_is_the_reference_libcurls_scheme_list() {
    // The reference build serves every scheme: its list is the table's, in the same order.
    let reference = report(Lib::Reference, &file_url());
    let names: Vec<&str> = SCHEMES.iter().map(|s| s.name).collect();
    assert_eq!(lines(&reference, "listed "), names);
}

#[test]
fn protocols_str_takes_the_served_schemes_only() {
    let ours = report(Lib::Ours, &file_url());
    let answers = lines(&ours, "protocols_str ");
    assert_eq!(answers.len(), SCHEMES.len());
    for (s, line) in SCHEMES.iter().zip(&answers) {
        // CURLE_OK, or CURLE_UNSUPPORTED_PROTOCOL as a libcurl built without the scheme.
        let want = if s.handler.is_some() { 0 } else { 1 };
        assert_eq!(*line, format!("{} {want}", s.name), "{}", s.name);
    }
}

#[test]
fn default_ports_agree_with_the_reference() {
    let ours = report(Lib::Ours, &file_url());
    let reference = report(Lib::Reference, &file_url());
    assert_eq!(
        lines(&ours, "default_port "),
        lines(&reference, "default_port ")
    );
    for (s, line) in SCHEMES.iter().zip(lines(&ours, "default_port ")) {
        let want = match s.default_port {
            // Only file has none, and `file://host/` names a host that is not this one:
            // CURLUE_BAD_FILE_URL.
            0 => format!("{} 19 -", s.name),
            p => format!("{} 0 {p}", s.name),
        };
        assert_eq!(line, want);
        assert_eq!(
            oxcurl_urlapi::default_port(s.name),
            Some(s.default_port).filter(|&p| p > 0)
        );
    }
}

#[test]
fn info_protocol_and_scheme_after_a_transfer() {
    let url = file_url();
    let ours = report(Lib::Ours, &url);
    let reference = report(Lib::Reference, &url);
    let done = lines(&ours, "perform ");
    assert_eq!(done, lines(&reference, "perform "));
    let bit = scheme::find("file").map(|s| s.protocol).unwrap();
    assert_eq!(done, vec![format!("0 protocol {bit} scheme file")]);
}
