//! Fuzz the merger that joins runs of HTTP/2 DATA frames before h2 reads them
//! (`proto/h2/merge.rs`): no panics, and whatever the reads, the room h2 gives and the
//! streams' limits, the output is a valid re-framing of the input: the same DATA bytes per
//! stream, END_STREAM after the same bytes, every other frame byte for byte and in order,
//! joined frames within the cap and only on streams with a known limit, h2 taking the same
//! bytes of a stream with a content-length that curl takes and refusing the same frame
//! (a frame with END_STREAM that ends the body short split in two), a WINDOW_UPDATE shown
//! as PRIORITY only where it overflows a tracked stream's send window, a frame over the
//! peer's limit shown to h2 as too long. The first bytes pick the sizes, the streams'
//! limits and when they are told, then raw bytes or frames built from [type, flags,
//! stream, length] and that many bytes; the SETTINGS rewrite is fed the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::h2::merge::{
    check_reframing, run_split, strip_max_frame_size, Limit, Tracking,
};

/// Frames built from `data`, mostly DATA on streams 1 and 3, some WINDOW_UPDATE and
/// SETTINGS.
fn built(mut data: &[u8]) -> Vec<u8> {
    let mut wire = Vec::new();
    while let [kind, flags, stream, len, rest @ ..] = data {
        let n = usize::from(*len).min(rest.len());
        let len = if kind & 0x80 != 0 { n + 200 } else { n };
        let kind = match kind % 8 {
            0..=4 => 0,
            5 => 1,
            6 if kind & 0x40 != 0 => 8,
            6 if kind & 0x20 != 0 => 4,
            6 => 6,
            _ => *kind >> 3,
        };
        let flags = match flags % 4 {
            0 | 1 => 0,
            2 => 1,
            _ => *flags,
        };
        let stream = u32::from(stream % 4);
        wire.extend([(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags]);
        wire.extend(stream.to_be_bytes());
        wire.extend_from_slice(&rest[..n]);
        data = &rest[n..];
    }
    wire
}

/// The limit of a stream from one byte: not tracked, unknown, open, or a length.
fn limit(b: u8) -> Option<Limit> {
    match b % 4 {
        0 => None,
        1 => Some(Limit::Unknown),
        2 => Some(Limit::Open),
        _ => Some(Limit::Length(u64::from(b >> 2) * 16)),
    }
}

fuzz_target!(|data: &[u8]| {
    let [mode, piece, take, lim1, lim3, at, rest @ ..] = data else {
        return;
    };
    let _ = strip_max_frame_size(rest);
    let wire = if mode & 1 == 0 { rest.to_vec() } else { built(rest) };
    let wire_max = 64 + usize::from(mode >> 4) * 16;
    let max = wire_max + usize::from(mode >> 1 & 7) * 50;
    let piece = usize::from(*piece) + 1;
    let take = usize::from(*take) + 1;
    let mut tracking = Tracking {
        limits: Vec::new(),
        known_at: usize::from(*at) * 8,
    };
    for (id, b) in [(1, *lim1), (3, *lim3)] {
        if let Some(l) = limit(b) {
            tracking.limits.push((id, l));
        }
    }
    let whole = run_split(&wire, wire_max, max, usize::MAX, usize::MAX, &tracking);
    check_reframing(&wire, &whole, wire_max, max, &tracking);
    assert_eq!(
        whole,
        run_split(&wire, wire_max, max, usize::MAX, take, &tracking)
    );
    let split = run_split(&wire, wire_max, max, piece, take, &tracking);
    check_reframing(&wire, &split, wire_max, max, &tracking);
});
