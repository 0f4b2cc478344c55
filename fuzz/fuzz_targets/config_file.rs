//! Fuzz the `-K` config file syntax and the option parser behind it (`crates/tool/src/args.rs`,
//! compiled in here since the tool is a binary): no panics, each line's option is where the
//! line starts, and the lines parse (or fail) cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/tool/src/args.rs"]
#[allow(dead_code)]
mod args;
#[path = "../../crates/tool/src/formparse.rs"]
#[allow(dead_code)]
mod formparse;
#[path = "../../crates/tool/src/proto.rs"]
#[allow(dead_code)]
mod proto;
#[path = "../../crates/tool/src/retry.rs"]
#[allow(dead_code)]
mod retry;
#[path = "../../crates/tool/src/var.rs"]
#[allow(dead_code)]
mod var;

/// Lines that would make the parser read a file or stdin (`@file`, `<file`, `-K`), or
/// create one (`--stderr`).
fn reads_files(text: &str) -> bool {
    text.contains('@')
        || text.contains('<')
        || text.contains("config")
        || text.contains("stderr")
        || text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with('-') && !l.starts_with("--") && l.contains('K')
        })
}

fuzz_target!(|data: &[u8]| {
    // Read as curl's my_get_line: no line is empty or a comment, none has a newline or a
    // zero byte, and none is as long as the limit.
    let lines = args::file_lines(data, 1 << 20).unwrap_or_default();
    for l in &lines {
        let t = l.trim_start_matches([' ', '\t']);
        assert!(!t.is_empty() && !t.starts_with('#'), "{l:?}");
        assert!(!l.contains('\n') && !l.contains('\0'), "{l:?}");
    }
    let text = String::from_utf8_lossy(data);
    for line in &lines {
        let l = args::parse_config_line(line);
        assert!(
            line.starts_with(l.option),
            "the option starts the line: {line:?}"
        );
        if let Some(p) = &l.param {
            assert!(!p.is_empty() || line.contains('"'), "{line:?}");
        }
    }
    if reads_files(&text) {
        return;
    }
    let _ = args::parse_config_text(data);
});
