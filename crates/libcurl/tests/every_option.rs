//! curl.h's options on both libraries (tests/c/everyopt.c): the consistency check of
//! issue 24, item 5.

mod common;

use common::{run_ok, Lib};

/// Every option of curl.h set on a fresh handle to a neutral value (0 or NULL) answers as
/// libcurl 8.14.1 does: `CURLE_OK`, or the code its own build gives. The options this
/// library refuses while curl takes them are listed when it fails.
#[test]
#[ignore = "issue 24: options libcurl 8.14.1 takes that this library refuses"]
fn every_option_answers_as_libcurl_does() {
    let ours = run_ok("everyopt", Lib::Ours, &[]);
    let reference = run_ok("everyopt", Lib::Reference, &[]);
    let theirs: std::collections::BTreeMap<&str, &str> = reference
        .lines()
        .filter_map(|l| l.split_once(' '))
        .collect();
    let mine: std::collections::BTreeMap<&str, &str> =
        ours.lines().filter_map(|l| l.split_once(' ')).collect();
    let differ: Vec<String> = theirs
        .iter()
        .filter(|(k, v)| mine.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}: curl {v}, ours {}", mine.get(k).unwrap_or(&"missing")))
        .collect();
    assert!(
        differ.is_empty(),
        "{} of {} options differ:\n{}",
        differ.len(),
        theirs.len(),
        differ.join("\n")
    );
}
