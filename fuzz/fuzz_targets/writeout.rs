//! Fuzz the `-w` format (`crates/tool/src/writeout.rs`, compiled in here since the tool is a
//! binary): no panics nor write errors, and text without `%` or `\` is written unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::info::Info;

#[path = "../../crates/tool/src/writeout.rs"]
#[allow(dead_code)]
mod writeout;

fuzz_target!(|data: &[u8]| {
    let fmt = String::from_utf8_lossy(data);
    // %output{file} creates files: not here.
    if fmt.contains("%output{") {
        return;
    }
    let info = Info {
        certinfo: vec![vec!["Subject:CN = x".into(), "Cert:-----BEGIN-----\n".into()]],
        ..Info::default()
    };
    let url_part = |url: &str, part: &str| Some(format!("{part}({url})"));
    let ctx = writeout::WriteoutContext {
        info: &info,
        exitcode: i32::from(data.first().copied().unwrap_or(0) % 3),
        errormsg: "an error",
        filename_effective: Some("out.txt"),
        url: "http://user:pw@example.com:8080/p?q=1#f",
        urlnum: 1,
        num_headers: 3,
        num_retries: 2,
        proxy_used: false,
        ftp_entry_path: None,
        curl_version: "libcurl/8.14.1",
        url_part: &url_part,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    writeout::writeout(&fmt, &ctx, &mut out, &mut err).expect("writing to memory");
    if !fmt.contains('%') && !fmt.contains('\\') {
        assert_eq!(out, fmt.as_bytes());
        assert!(err.is_empty());
    }
});
