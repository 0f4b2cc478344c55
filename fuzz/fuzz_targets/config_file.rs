//! Fuzz the `-K` config file syntax and the option parser behind it (`crates/tool/src/args.rs`,
//! compiled in here since the tool is a binary): no panics, every option line gives an option
//! argument, and the arguments parse (or fail) cleanly after `-q`.
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

/// Arguments that would make the parser read a file or stdin (`@file`, `<file`, `-K`).
fn reads_files(args: &[String]) -> bool {
    args.iter().any(|a| {
        a.contains('@')
            || a.contains('<')
            || a.starts_with("--config")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('K'))
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let args = args::config_args(&text);
    let option_lines = text
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .count();
    assert!(
        args.iter().filter(|a| a.starts_with('-')).count() >= option_lines,
        "every option line gives an option: {args:?}"
    );
    if reads_files(&args) {
        return;
    }
    let mut argv = vec!["-q".to_string()];
    argv.extend(args);
    let _ = args::parse(&argv);
});
