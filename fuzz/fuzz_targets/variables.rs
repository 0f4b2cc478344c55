//! Fuzz `--variable` definitions and `{{...}}` expansion (`crates/tool/src/var.rs`, compiled
//! in here since the tool is a binary): no panics, and text without `{{` expands to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/tool/src/var.rs"]
#[allow(dead_code)]
mod var;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let mut vars = var::Vars::default();
    let mut warnings = Vec::new();
    for def in lines.by_ref().take(4) {
        // Files are not read: every name@file fails to open.
        let _ = vars.set(def, &mut warnings, |_| {
            Err(std::io::Error::from(std::io::ErrorKind::NotFound))
        });
    }
    for arg in lines {
        let r = vars.expand(arg, &mut warnings);
        if !arg.contains("{{") && !arg.contains('\0') {
            assert_eq!(r.as_deref(), Ok(arg));
        }
    }
});
