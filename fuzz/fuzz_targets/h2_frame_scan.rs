//! Fuzz the HTTP/2 frame scanner that counts frames asking for answers (PING, SETTINGS) and
//! keeps the heads of the streams a transfer waits on: no panics, the heads kept stay
//! bounded, and feeding the bytes in any pieces counts the same frames and hands over the
//! same heads, in the same order, as feeding them whole.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::h2::scan::{FrameScan, Kind};

type Taken = Vec<Option<(Kind, Vec<(Vec<u8>, Vec<u8>)>)>>;

fn run(data: &[u8], piece: usize) -> (u64, u32, bool, Taken) {
    let mut s = FrameScan::default();
    s.order.want(1);
    s.order.want(3);
    let mut flooded = false;
    for c in data.chunks(piece.max(1)) {
        flooded |= s.feed(c);
        assert!(s.order.kept() <= 16, "heads kept: {}", s.order.kept());
    }
    // A transfer takes heads in turn: 1xx heads, the response, trailers.
    let mut taken = Vec::new();
    for stream in [1, 3] {
        for kind in [Kind::Informational, Kind::Informational, Kind::Final, Kind::Trailers] {
            let h = s.order.take(stream, kind);
            if let Some(h) = &h {
                assert_eq!(h.kind, kind);
                assert_eq!(h.stream, stream);
            }
            taken.push(h.map(|h| {
                let fields = h.fields().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
                (h.kind, fields)
            }));
        }
    }
    (s.frames, s.acks_due, flooded, taken)
}

fuzz_target!(|data: &[u8]| {
    let whole = run(data, data.len());
    let piece = data.first().map_or(1, |b| usize::from(*b % 17) + 1);
    assert_eq!(whole, run(data, piece));
    assert_eq!(whole, run(data, 1));
});
