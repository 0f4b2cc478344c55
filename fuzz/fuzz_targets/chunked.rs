//! Fuzz the chunked decoder: no panics, and feeding the input in pieces (sizes taken from the
//! first byte) gives the same events and consumed count as feeding it whole.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::h1::chunked::{ChunkEvent, ChunkedDecoder};

#[derive(Debug, PartialEq)]
enum Ev {
    Data(Vec<u8>),
    Trailer(Vec<u8>),
    Done(usize),
    Err(String),
}

fn run(input: &[u8], piece: usize) -> Vec<Ev> {
    let mut d = ChunkedDecoder::new();
    let mut out = Vec::new();
    let mut data = Vec::new();
    let mut off = 0;
    while off < input.len() {
        let n = piece.min(input.len() - off);
        let mut chunk = &input[off..off + n];
        let mut base = off;
        while !chunk.is_empty() {
            match d.decode(chunk) {
                Ok((used, ev)) => {
                    match ev {
                        Some(ChunkEvent::Data(s)) => data.extend_from_slice(s),
                        Some(ChunkEvent::Trailer(t)) => {
                            let t = t.to_vec();
                            if !data.is_empty() {
                                out.push(Ev::Data(std::mem::take(&mut data)));
                            }
                            out.push(Ev::Trailer(t));
                        }
                        Some(ChunkEvent::Done) => {
                            if !data.is_empty() {
                                out.push(Ev::Data(std::mem::take(&mut data)));
                            }
                            out.push(Ev::Done(base + used));
                            return out;
                        }
                        None => assert_eq!(used, chunk.len()),
                    }
                    base += used;
                    chunk = &chunk[used..];
                }
                Err(e) => {
                    if !data.is_empty() {
                        out.push(Ev::Data(std::mem::take(&mut data)));
                    }
                    out.push(Ev::Err(e.to_string()));
                    return out;
                }
            }
        }
        off += n;
    }
    if !data.is_empty() {
        out.push(Ev::Data(data));
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&p, input)) = data.split_first() else {
        return;
    };
    let whole = run(input, usize::MAX);
    let split = run(input, usize::from(p % 16) + 1);
    assert_eq!(whole, split);
});
