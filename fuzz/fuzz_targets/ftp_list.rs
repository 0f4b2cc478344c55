//! Fuzz the FTP listing parser (curl's `ftplistparser.c`) with arbitrary listings fed in
//! arbitrary pieces: no panics, the same entries whatever the pieces, and every entry within
//! curl's per-entry limit with a name and fields free of the NULs that end them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::ftp_list::{parse_all, Parser, MAX_ENTRY};

fuzz_target!(|data: &[u8]| {
    // The first byte says where to cut the rest.
    let Some((&cut, listing)) = data.split_first() else {
        return;
    };
    let (whole, err) = parse_all(listing);
    let mut p = Parser::new();
    let mut pieces = Vec::new();
    for piece in listing.chunks(usize::from(cut).max(1)) {
        p.feed(piece, &mut |f| pieces.push(f));
    }
    assert_eq!(whole, pieces);
    assert_eq!(err, p.error());
    for f in &whole {
        assert!(f.filename.len() < MAX_ENTRY);
        assert!(!f.filename.contains(&0) && !f.time.contains(&0));
        for s in [&f.user, &f.group, &f.perm_text, &f.target].into_iter().flatten() {
            assert!(!s.contains(&0));
        }
        assert!(f.size >= 0 && f.hardlinks >= 0);
    }
});
