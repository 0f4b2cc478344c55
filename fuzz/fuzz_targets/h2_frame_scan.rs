//! Fuzz the HTTP/2 frame scanner that counts frames asking for answers (PING, SETTINGS):
//! no panics, and feeding the bytes in any pieces counts the same frames as feeding them
//! whole.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::h2::scan::FrameScan;

fn run(data: &[u8], piece: usize) -> (u64, u32, bool) {
    let mut s = FrameScan::default();
    let mut flooded = false;
    for c in data.chunks(piece.max(1)) {
        flooded |= s.feed(c);
    }
    (s.frames, s.acks_due, flooded)
}

fuzz_target!(|data: &[u8]| {
    let whole = run(data, data.len());
    let piece = data.first().map_or(1, |b| usize::from(*b % 17) + 1);
    assert_eq!(whole, run(data, piece));
    assert_eq!(whole, run(data, 1));
});
