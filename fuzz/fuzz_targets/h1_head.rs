//! Fuzz the response head helpers: no panics on arbitrary lines, and LineBuf cuts lines the same
//! way whatever the input split.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::h1::head::{
    check_header_line, codings, continuation, looks_like_status_line, parse_content_length,
    parse_status_line, split_header, store_check, HeadError, LineBuf, StoreError,
};

fn lines(input: &[u8], piece: usize) -> Vec<Result<Vec<u8>, HeadError>> {
    let mut lb = LineBuf::with_limits(64, 256);
    let mut out = Vec::new();
    let mut off = 0;
    while off < input.len() {
        let n = piece.min(input.len() - off);
        let mut chunk = &input[off..off + n];
        while !chunk.is_empty() {
            match lb.feed(chunk) {
                Ok((used, line)) => {
                    if let Some(l) = line {
                        assert_eq!(l.last(), Some(&b'\n'));
                        out.push(Ok(l.to_vec()));
                    }
                    chunk = &chunk[used..];
                }
                Err(e) => {
                    out.push(Err(e));
                    return out;
                }
            }
        }
        off += n;
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let _ = parse_status_line(data);
    let _ = looks_like_status_line(data);
    if let Some((name, value)) = split_header(data) {
        assert!(!name.contains(&b':'));
        assert!(!value.ends_with(b" "));
    }
    let _ = continuation(data);
    let _ = parse_content_length(data);
    let _ = check_header_line(data, false);
    // The header store: a line it takes has a colon or folds; a refusal is one of its three.
    match store_check(data, false) {
        Ok(()) | Err(StoreError::NoColon | StoreError::Blank | StoreError::NoEnd) => {}
    }
    if store_check(data, true).is_err() {
        assert!(store_check(data, false).is_err());
    }
    for c in codings(data) {
        assert!(!c.is_empty() && !c.contains(&b','));
    }
    if let Some((&p, input)) = data.split_first() {
        assert_eq!(
            lines(input, usize::MAX),
            lines(input, usize::from(p % 16) + 1)
        );
    }
});
