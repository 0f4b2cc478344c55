//! Fuzz the `--proto` list parser of the tool (`crates/tool/src/proto.rs`, compiled in here
//! since the tool is a binary). No panics; the result only names known protocols, each once.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/tool/src/proto.rs"]
#[allow(dead_code)]
mod proto;

fuzz_target!(|data: &[u8]| {
    let spec = String::from_utf8_lossy(data);
    let (set, _) = proto::parse(&spec, &proto::all());
    assert!(set.iter().all(|p| proto::known(p)));
    assert!(set.windows(2).all(|w| w[0] != w[1]));
});
