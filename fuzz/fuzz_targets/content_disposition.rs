//! Fuzz the `-J` Content-Disposition name parser of the tool (`crates/tool/src/output.rs`,
//! compiled in here since the tool is a binary): no panics, and a name never keeps a
//! directory part or a line ending.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/tool/src/output.rs"]
#[allow(dead_code)]
mod output;

fuzz_target!(|data: &[u8]| {
    let mut line = b"Content-Disposition: ".to_vec();
    line.extend_from_slice(data);
    if let Some(Some(name)) = output::content_disposition_filename(&line) {
        assert!(!name.contains(&b'/') && !name.contains(&b'\\'));
        assert!(!name.contains(&b'\r') && !name.contains(&b'\n'));
    }
});
