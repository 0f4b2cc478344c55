//! Fuzz the HPACK decoder that learns the wire order of HTTP/2 response fields: no panics
//! on any block, the dynamic table never over its size, and a block made by the small
//! encoder here (literals with and without indexing, references into both tables, Huffman
//! coding, table size updates) decodes to the fields it was made of, across several blocks
//! sharing one table.
#![no_main]

use std::collections::VecDeque;

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::h2::hpack::{huffman_encode, Decoder};

fn int(out: &mut Vec<u8>, first: u8, n: u32, mut v: usize) {
    let max = (1usize << n) - 1;
    if v < max {
        out.push(first | v as u8);
        return;
    }
    out.push(first | max as u8);
    v -= max;
    while v >= 128 {
        out.push((v % 128) as u8 | 0x80);
        v /= 128;
    }
    out.push(v as u8);
}

fn string(out: &mut Vec<u8>, s: &[u8], huffman: bool) {
    if !huffman {
        int(out, 0, 7, s.len());
        out.extend_from_slice(s);
        return;
    }
    let mut enc = Vec::new();
    huffman_encode(s, &mut enc);
    int(out, 0x80, 7, enc.len());
    out.extend_from_slice(&enc);
}

/// The encoder's copy of the dynamic table, newest first.
struct Table {
    max: usize,
    size: usize,
    entries: VecDeque<(Vec<u8>, Vec<u8>)>,
}

impl Table {
    fn evict(&mut self, room: usize) {
        while self.size + room > self.max {
            let Some((n, v)) = self.entries.pop_back() else {
                break;
            };
            self.size -= n.len() + v.len() + 32;
        }
    }
    fn insert(&mut self, n: &[u8], v: &[u8]) {
        let s = n.len() + v.len() + 32;
        if s > self.max {
            self.entries.clear();
            self.size = 0;
            return;
        }
        self.evict(s);
        self.entries.push_front((n.to_vec(), v.to_vec()));
        self.size += s;
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let limit = usize::from(first) * 20;

    // Any bytes as a block.
    let mut d = Decoder::new(limit);
    let _ = d.decode(rest, |_, _| true);
    assert!(d.table_size() <= d.max_size() && d.max_size() <= limit);

    // Blocks made from the bytes: each field is a control byte, two lengths and the bytes.
    let mut t = Table {
        max: limit,
        size: 0,
        entries: VecDeque::new(),
    };
    let mut d = Decoder::new(limit);
    let mut input = rest;
    while !input.is_empty() {
        let mut block = Vec::new();
        let mut want: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        while let Some((&c, r)) = input.split_first() {
            input = r;
            if c == 0xff {
                break;
            }
            if c & 0xe0 == 0xe0 && want.is_empty() {
                let size = (usize::from(c & 0x1f) * 50).min(limit);
                int(&mut block, 0x20, 5, size);
                t.max = size;
                t.evict(0);
                continue;
            }
            let (Some(&nl), Some(&vl)) = (input.first(), input.get(1)) else {
                break;
            };
            let (nl, vl) = (usize::from(nl % 32), usize::from(vl % 64));
            let Some(bytes) = input.get(2..2 + nl + vl) else {
                break;
            };
            input = &input[2 + nl + vl..];
            let (n, v) = bytes.split_at(nl);
            if c & 3 == 0 && !t.entries.is_empty() {
                // A reference to an entry of the table.
                let i = usize::from(c >> 2) % t.entries.len();
                int(&mut block, 0x80, 7, 62 + i);
                want.push(t.entries[i].clone());
                continue;
            }
            match (c >> 2) & 3 {
                0 => {
                    block.push(0x40);
                    t.insert(n, v);
                }
                1 => block.push(0x00),
                _ => block.push(0x10),
            }
            string(&mut block, n, c & 0x10 != 0);
            string(&mut block, v, c & 0x20 != 0);
            want.push((n.to_vec(), v.to_vec()));
        }
        let mut got = Vec::new();
        d.decode(&block, |n, v| {
            got.push((n.to_vec(), v.to_vec()));
            true
        })
        .expect("an encoded block decodes");
        assert_eq!(got, want);
        assert_eq!(d.table_size(), t.size);
        assert_eq!(d.table_len(), t.entries.len());
        assert!(d.table_size() <= limit);
    }
});
