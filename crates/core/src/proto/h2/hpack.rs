//! An HPACK decoder (RFC 7541) beside h2's: it decodes the header blocks the peer sends, in
//! connection order, so that a response's fields can be shown in the order they came.
//!
//! h2 decodes the same blocks into an `http::HeaderMap`, which groups every value of a name
//! with the name's first one: `a: 1`, `b: 2`, `a: 3` comes out as a, a, b, where curl
//! (nghttp2 calls it per field) shows a, b, a. h2 stays the authority on what a block means:
//! what this decoder finds is only used where it agrees with h2's map ([`super::scan`]).
//!
//! Static table, dynamic table with size updates (bounded by the size we announce), integer
//! and string representations, Huffman decoding from the code of Appendix B. Pure, no I/O;
//! the dynamic table is one byte ring that never grows past its limit.

use std::collections::VecDeque;

/// SETTINGS_HEADER_TABLE_SIZE as we announce it: h2 sends no value, so the protocol's
/// default holds.
pub const TABLE_SIZE: usize = 4096;

/// Why a header block could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The block ends inside a representation.
    Truncated,
    /// An integer too large for anything a block can mean.
    Integer,
    /// Index 0, or past the end of both tables.
    Index,
    /// A Huffman string with the EOS symbol, or padding that is not a prefix of it.
    Huffman,
    /// A table size update over the size we announced.
    TableSize,
}

/// RFC 7541 Appendix A.
const STATIC: [(&str, &str); 61] = [
    (":authority", ""),
    (":method", "GET"),
    (":method", "POST"),
    (":path", "/"),
    (":path", "/index.html"),
    (":scheme", "http"),
    (":scheme", "https"),
    (":status", "200"),
    (":status", "204"),
    (":status", "206"),
    (":status", "304"),
    (":status", "400"),
    (":status", "404"),
    (":status", "500"),
    ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"),
    ("accept-language", ""),
    ("accept-ranges", ""),
    ("accept", ""),
    ("access-control-allow-origin", ""),
    ("age", ""),
    ("allow", ""),
    ("authorization", ""),
    ("cache-control", ""),
    ("content-disposition", ""),
    ("content-encoding", ""),
    ("content-language", ""),
    ("content-length", ""),
    ("content-location", ""),
    ("content-range", ""),
    ("content-type", ""),
    ("cookie", ""),
    ("date", ""),
    ("etag", ""),
    ("expect", ""),
    ("expires", ""),
    ("from", ""),
    ("host", ""),
    ("if-match", ""),
    ("if-modified-since", ""),
    ("if-none-match", ""),
    ("if-range", ""),
    ("if-unmodified-since", ""),
    ("last-modified", ""),
    ("link", ""),
    ("location", ""),
    ("max-forwards", ""),
    ("proxy-authenticate", ""),
    ("proxy-authorization", ""),
    ("range", ""),
    ("referer", ""),
    ("refresh", ""),
    ("retry-after", ""),
    ("server", ""),
    ("set-cookie", ""),
    ("strict-transport-security", ""),
    ("transfer-encoding", ""),
    ("user-agent", ""),
    ("vary", ""),
    ("via", ""),
    ("www-authenticate", ""),
];

/// The bit length of each symbol's code (0-255, then EOS) in Appendix B. The code is
/// canonical: codes of one length are consecutive in symbol order, each length's first code
/// follows the last of the shorter lengths, so the lengths alone give every code.
const CODE_LEN: [u8; 257] = [
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28,
    28, 28, 28, 28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5,
    5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
    7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6,
    6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23, 22,
    23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22,
    21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20,
    22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19,
    21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22,
    22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
];

const EOS: u16 = 256;
const MAX_LEN: usize = 30;

/// The canonical code's decoding tables: symbols ordered by (length, symbol), and per length
/// its first code and where its symbols start in that order.
struct Canon {
    sorted: [u16; 257],
    first: [u32; MAX_LEN + 1],
    count: [u16; MAX_LEN + 1],
    start: [u16; MAX_LEN + 1],
}

const fn canon() -> Canon {
    let mut c = Canon {
        sorted: [0; 257],
        first: [0; MAX_LEN + 1],
        count: [0; MAX_LEN + 1],
        start: [0; MAX_LEN + 1],
    };
    let mut s = 0;
    while s < 257 {
        c.count[CODE_LEN[s] as usize] += 1;
        s += 1;
    }
    let mut code = 0u32;
    let mut at = 0u16;
    let mut len = 1;
    while len <= MAX_LEN {
        c.first[len] = code;
        c.start[len] = at;
        code = (code + c.count[len] as u32) << 1;
        at += c.count[len];
        len += 1;
    }
    let mut next = c.start;
    let mut s = 0;
    while s < 257 {
        let l = CODE_LEN[s] as usize;
        c.sorted[next[l] as usize] = s as u16;
        next[l] += 1;
        s += 1;
    }
    c
}

static CANON: Canon = canon();

/// The Huffman code of `sym` (0-255, or 256 for EOS): its bits, right-aligned, and length.
pub fn huffman_code(sym: usize) -> (u32, u32) {
    let len = CODE_LEN[sym] as usize;
    let c = &CANON;
    let start = c.start[len] as usize;
    let rank = c.sorted[start..start + c.count[len] as usize]
        .iter()
        .position(|&s| usize::from(s) == sym)
        .unwrap_or(0);
    (c.first[len] + rank as u32, len as u32)
}

/// Append `data` Huffman-coded to `out`, padded with the EOS prefix: the inverse of the
/// decoder, for the tests and the fuzz target that check the two against each other (the
/// engine only decodes).
pub fn huffman_encode(data: &[u8], out: &mut Vec<u8>) {
    let (mut bits, mut n) = (0u64, 0u32);
    for &b in data {
        let (code, len) = huffman_code(usize::from(b));
        bits = (bits << len) | u64::from(code);
        n += len;
        while n >= 8 {
            out.push((bits >> (n - 8)) as u8);
            n -= 8;
        }
    }
    if n > 0 {
        out.push(((bits << (8 - n)) as u8) | (0xff >> n));
    }
}

/// Append the Huffman-decoded `data` to `out`.
fn huffman_decode(data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
    let c = &CANON;
    let mut code = 0u32;
    let mut len = 0usize;
    // Bits of the current code that are all ones, for the padding check at the end.
    let mut ones = true;
    for &byte in data {
        for i in (0..8).rev() {
            let bit = u32::from(byte >> i) & 1;
            code = (code << 1) | bit;
            ones &= bit == 1;
            len += 1;
            let n = u32::from(c.count[len]);
            if n > 0 && code >= c.first[len] && code - c.first[len] < n {
                let sym = c.sorted[usize::from(c.start[len]) + (code - c.first[len]) as usize];
                if sym == EOS {
                    return Err(Error::Huffman);
                }
                out.push(sym as u8);
                code = 0;
                len = 0;
                ones = true;
            } else if len == MAX_LEN {
                return Err(Error::Huffman);
            }
        }
    }
    // What is left is padding: at most 7 bits, the most significant bits of EOS (all ones).
    if len > 7 || !ones {
        return Err(Error::Huffman);
    }
    Ok(())
}

/// An integer with an `n`-bit prefix at the start of `data`: its value and length.
fn integer(data: &[u8], n: u32) -> Result<(usize, usize), Error> {
    let max = (1usize << n) - 1;
    let first = usize::from(*data.first().ok_or(Error::Truncated)?) & max;
    if first < max {
        return Ok((first, 1));
    }
    let mut v = max;
    let mut shift = 0u32;
    for (i, &b) in data[1..].iter().enumerate() {
        // Nothing in a block needs more than 32 bits; more is a hostile encoding.
        if shift > 28 {
            return Err(Error::Integer);
        }
        v += usize::from(b & 0x7f) << shift;
        if v > u32::MAX as usize {
            return Err(Error::Integer);
        }
        if b & 0x80 == 0 {
            return Ok((v, i + 2));
        }
        shift += 7;
    }
    Err(Error::Truncated)
}

/// A string literal at the start of `data`, appended (decoded) to `out`; its encoded length.
fn string(data: &[u8], out: &mut Vec<u8>) -> Result<usize, Error> {
    let huffman = data.first().ok_or(Error::Truncated)? & 0x80 != 0;
    let (len, at) = integer(data, 7)?;
    let raw = data.get(at..at + len).ok_or(Error::Truncated)?;
    if huffman {
        huffman_decode(raw, out)?;
    } else {
        out.extend_from_slice(raw);
    }
    Ok(at + len)
}

/// One entry of the dynamic table: where its bytes start (counted over all bytes ever
/// inserted) and its name's and value's lengths.
#[derive(Debug, Clone, Copy)]
struct Entry {
    at: u64,
    name: u32,
    value: u32,
}

/// The decoding context of one connection.
#[derive(Debug, Clone)]
pub struct Decoder {
    /// The largest size the peer may set (what we announce).
    limit: usize,
    /// The size the peer set last.
    max: usize,
    /// The entries' sizes, 32 bytes of overhead each included (RFC 7541, 4.1).
    size: usize,
    /// Names and values, oldest first.
    bytes: VecDeque<u8>,
    /// Where `bytes[0]` is in the count of all bytes inserted.
    front: u64,
    /// Entries, oldest first.
    entries: VecDeque<Entry>,
    name: Vec<u8>,
    value: Vec<u8>,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new(TABLE_SIZE)
    }
}

impl Decoder {
    /// A decoder for a peer told `limit` as SETTINGS_HEADER_TABLE_SIZE.
    pub fn new(limit: usize) -> Decoder {
        Decoder {
            limit,
            max: limit,
            size: 0,
            bytes: VecDeque::new(),
            front: 0,
            entries: VecDeque::new(),
            name: Vec::new(),
            value: Vec::new(),
        }
    }

    /// The dynamic table's size (RFC 7541, 4.1), never over its limit.
    pub fn table_size(&self) -> usize {
        self.size
    }

    /// Entries in the dynamic table.
    pub fn table_len(&self) -> usize {
        self.entries.len()
    }

    /// The table's maximum size as the peer set it last.
    pub fn max_size(&self) -> usize {
        self.max
    }

    /// Decode one complete header block, calling `field` with each name and value in order
    /// while it returns true (after that the table is still kept, fields are not looked
    /// up). After an error the table is in no known state: the connection's later blocks
    /// cannot be decoded either.
    pub fn decode(
        &mut self,
        mut block: &[u8],
        mut field: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), Error> {
        let mut emit = true;
        while let Some(&b) = block.first() {
            let used = if b & 0x80 != 0 {
                let (i, n) = integer(block, 7)?;
                if emit {
                    self.load(i, true)?;
                    emit = field(&self.name, &self.value);
                } else if i == 0 || i > STATIC.len() + self.entries.len() {
                    return Err(Error::Index);
                }
                n
            } else if b & 0xe0 == 0x20 {
                let (size, n) = integer(block, 5)?;
                if size > self.limit {
                    return Err(Error::TableSize);
                }
                self.max = size;
                self.evict(0);
                n
            } else {
                // A literal: with incremental indexing (01), without (0000) or never
                // indexed (0001).
                let (prefix, index) = if b & 0xc0 == 0x40 {
                    (6, true)
                } else {
                    (4, false)
                };
                let (i, mut n) = integer(block, prefix)?;
                if i == 0 {
                    self.name.clear();
                    n += string(&block[n..], &mut self.name)?;
                } else if emit || index {
                    self.load(i, false)?;
                } else if i > STATIC.len() + self.entries.len() {
                    return Err(Error::Index);
                }
                self.value.clear();
                n += string(&block[n..], &mut self.value)?;
                if emit {
                    emit = field(&self.name, &self.value);
                }
                if index {
                    self.insert();
                }
                n
            };
            block = &block[used..];
        }
        Ok(())
    }

    /// Copy entry `i` of the index space (static, then dynamic, newest first) into the
    /// name (and with `value`, the value) buffers.
    fn load(&mut self, i: usize, value: bool) -> Result<(), Error> {
        self.name.clear();
        self.value.clear();
        if i == 0 {
            return Err(Error::Index);
        }
        if let Some((n, v)) = STATIC.get(i - 1) {
            self.name.extend_from_slice(n.as_bytes());
            if value {
                self.value.extend_from_slice(v.as_bytes());
            }
            return Ok(());
        }
        let d = i - STATIC.len();
        let e = *self
            .entries
            .len()
            .checked_sub(d)
            .and_then(|k| self.entries.get(k))
            .ok_or(Error::Index)?;
        let at = (e.at - self.front) as usize;
        let (n, v) = (e.name as usize, e.value as usize);
        let bytes = self.bytes.make_contiguous();
        self.name.extend_from_slice(&bytes[at..at + n]);
        if value {
            self.value.extend_from_slice(&bytes[at + n..at + n + v]);
        }
        Ok(())
    }

    /// Evict the oldest entries until `room` more bytes fit under the maximum size.
    fn evict(&mut self, room: usize) {
        while self.size + room > self.max {
            let Some(e) = self.entries.pop_front() else {
                break;
            };
            let n = (e.name + e.value) as usize;
            self.bytes.drain(..n);
            self.front += n as u64;
            self.size -= n + 32;
        }
    }

    /// Insert the field in the name and value buffers (RFC 7541, 4.4): an entry larger
    /// than the table empties it and is not kept.
    fn insert(&mut self) {
        let n = self.name.len() + self.value.len();
        if n + 32 > self.max {
            self.evict(self.max + 1);
            return;
        }
        self.evict(n + 32);
        let at = self.front + self.bytes.len() as u64;
        self.bytes.extend(self.name.iter().chain(self.value.iter()));
        self.entries.push_back(Entry {
            at,
            name: self.name.len() as u32,
            value: self.value.len() as u32,
        });
        self.size += n + 32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn decode(d: &mut Decoder, block: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        d.decode(&hex(block), |n, v| {
            out.push((
                String::from_utf8(n.to_vec()).unwrap(),
                String::from_utf8(v.to_vec()).unwrap(),
            ));
            true
        })
        .unwrap();
        out
    }

    fn fields(f: &[(&str, &str)]) -> Vec<(String, String)> {
        f.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    /// The dynamic table, newest first, as the RFC's examples list it.
    fn table(d: &mut Decoder) -> Vec<(String, String)> {
        (1..=d.table_len())
            .map(|i| {
                d.load(STATIC.len() + i, true).unwrap();
                (
                    String::from_utf8(d.name.clone()).unwrap(),
                    String::from_utf8(d.value.clone()).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn codes_match_appendix_b() {
        assert_eq!(huffman_code(0), (0x1ff8, 13));
        assert_eq!(huffman_code(1), (0x7fffd8, 23));
        assert_eq!(huffman_code(9), (0xffffea, 24));
        assert_eq!(huffman_code(10), (0x3ffffffc, 30));
        assert_eq!(huffman_code(b' ' as usize), (0x14, 6));
        assert_eq!(huffman_code(b'0' as usize), (0x0, 5));
        assert_eq!(huffman_code(b'a' as usize), (0x3, 5));
        assert_eq!(huffman_code(b'z' as usize), (0x7b, 7));
        assert_eq!(huffman_code(b'~' as usize), (0x1ffd, 13));
        assert_eq!(huffman_code(255), (0x3ffffee, 26));
        assert_eq!(huffman_code(256), (0x3fffffff, 30));
    }

    #[test]
    fn every_symbol_round_trips_through_the_code() {
        let all: Vec<u8> = (0..=255).collect();
        let mut enc = Vec::new();
        huffman_encode(&all, &mut enc);
        let mut out = Vec::new();
        huffman_decode(&enc, &mut out).unwrap();
        assert_eq!(out, all);
    }

    #[test]
    fn huffman_padding_and_eos_are_checked() {
        let mut out = Vec::new();
        // 'a' (00011) padded with 111: fine; with 101: not a prefix of EOS.
        assert_eq!(huffman_decode(&[0x1f], &mut out), Ok(()));
        assert_eq!(out, b"a");
        assert_eq!(huffman_decode(&[0x1d], &mut out), Err(Error::Huffman));
        // A whole byte of padding.
        assert_eq!(huffman_decode(&[0x1f, 0xff], &mut out), Err(Error::Huffman));
        // EOS itself.
        assert_eq!(
            huffman_decode(&[0xff, 0xff, 0xff, 0xff], &mut out),
            Err(Error::Huffman)
        );
    }

    #[test]
    fn integers_of_appendix_c1() {
        assert_eq!(integer(&[0x0a], 5), Ok((10, 1)));
        assert_eq!(integer(&[0x1f, 0x9a, 0x0a], 5), Ok((1337, 3)));
        assert_eq!(integer(&[0x2a], 8), Ok((42, 1)));
        assert_eq!(integer(&[0x1f, 0x9a], 5), Err(Error::Truncated));
        assert_eq!(
            integer(&[0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], 5),
            Err(Error::Integer)
        );
    }

    #[test]
    fn appendix_c2_single_fields() {
        let mut d = Decoder::default();
        assert_eq!(
            decode(
                &mut d,
                "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"
            ),
            fields(&[("custom-key", "custom-header")])
        );
        assert_eq!(d.table_size(), 55);
        let mut d = Decoder::default();
        assert_eq!(
            decode(&mut d, "040c 2f73 616d 706c 652f 7061 7468"),
            fields(&[(":path", "/sample/path")])
        );
        assert_eq!(d.table_len(), 0);
        let mut d = Decoder::default();
        assert_eq!(
            decode(&mut d, "1008 7061 7373 776f 7264 0673 6563 7265 74"),
            fields(&[("password", "secret")])
        );
        assert_eq!(d.table_len(), 0);
        assert_eq!(decode(&mut d, "82"), fields(&[(":method", "GET")]));
        assert_eq!(d.table_len(), 0);
    }

    const C3: [&str; 3] = [
        "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
        "8286 84be 5808 6e6f 2d63 6163 6865",
        "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
    ];
    const C4: [&str; 3] = [
        "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
        "8286 84be 5886 a8eb 1064 9cbf",
        "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
    ];

    /// C.3 and C.4: requests, without and with Huffman coding, sharing one table.
    fn requests(blocks: [&str; 3]) {
        let mut d = Decoder::default();
        let base = [
            (":method", "GET"),
            (":scheme", "http"),
            (":path", "/"),
            (":authority", "www.example.com"),
        ];
        assert_eq!(decode(&mut d, blocks[0]), fields(&base));
        assert_eq!(table(&mut d), fields(&[(":authority", "www.example.com")]));
        assert_eq!(d.table_size(), 57);
        let mut second = base.to_vec();
        second.push(("cache-control", "no-cache"));
        assert_eq!(decode(&mut d, blocks[1]), fields(&second));
        assert_eq!(
            table(&mut d),
            fields(&[
                ("cache-control", "no-cache"),
                (":authority", "www.example.com")
            ])
        );
        assert_eq!(d.table_size(), 110);
        assert_eq!(
            decode(&mut d, blocks[2]),
            fields(&[
                (":method", "GET"),
                (":scheme", "https"),
                (":path", "/index.html"),
                (":authority", "www.example.com"),
                ("custom-key", "custom-value"),
            ])
        );
        assert_eq!(
            table(&mut d),
            fields(&[
                ("custom-key", "custom-value"),
                ("cache-control", "no-cache"),
                (":authority", "www.example.com")
            ])
        );
        assert_eq!(d.table_size(), 164);
    }

    #[test]
    fn appendix_c3_requests_without_huffman() {
        requests(C3);
    }

    #[test]
    fn appendix_c4_requests_with_huffman() {
        requests(C4);
    }

    const C5: [&str; 3] = [
        "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 \
         2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 \
         6c65 2e63 6f6d",
        "4803 3330 37c1 c0bf",
        "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d \
         54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 \
         5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e \
         3d31",
    ];
    const C6: [&str; 3] = [
        "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 \
         2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
        "4883 640e ffc1 c0bf",
        "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab \
         77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f \
         9587 3160 65c0 03ed 4ee5 b106 3d50 07",
    ];

    /// C.5 and C.6: responses with a 256-byte table, so that entries are evicted.
    fn responses(blocks: [&str; 3]) {
        let mut d = Decoder::new(256);
        let date1 = ("date", "Mon, 21 Oct 2013 20:13:21 GMT");
        let loc = ("location", "https://www.example.com");
        let first = [("cache-control", "private"), date1, loc];
        let mut all = vec![(":status", "302")];
        all.extend(first);
        assert_eq!(decode(&mut d, blocks[0]), fields(&all));
        assert_eq!(
            table(&mut d),
            fields(&[loc, date1, ("cache-control", "private"), (":status", "302")])
        );
        assert_eq!(d.table_size(), 222);
        let mut all = vec![(":status", "307")];
        all.extend(first);
        assert_eq!(decode(&mut d, blocks[1]), fields(&all));
        // ":status: 302" went to make room.
        assert_eq!(
            table(&mut d),
            fields(&[(":status", "307"), loc, date1, ("cache-control", "private")])
        );
        assert_eq!(d.table_size(), 222);
        let date2 = ("date", "Mon, 21 Oct 2013 20:13:22 GMT");
        let enc = ("content-encoding", "gzip");
        let cookie = (
            "set-cookie",
            "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
        );
        assert_eq!(
            decode(&mut d, blocks[2]),
            fields(&[
                (":status", "200"),
                ("cache-control", "private"),
                date2,
                loc,
                enc,
                cookie
            ])
        );
        assert_eq!(table(&mut d), fields(&[cookie, enc, date2]));
        assert_eq!(d.table_size(), 215);
    }

    #[test]
    fn appendix_c5_responses_without_huffman() {
        responses(C5);
    }

    #[test]
    fn appendix_c6_responses_with_huffman() {
        responses(C6);
    }

    #[test]
    fn size_updates_evict_and_are_bounded() {
        let mut d = Decoder::default();
        decode(&mut d, C3[0]);
        decode(&mut d, C3[1]);
        assert_eq!(d.table_len(), 2);
        // Size 57 keeps only the newest entry (cache-control: no-cache, 53 bytes).
        let mut b = vec![0x3f, 57 - 31];
        d.decode(&b, |_, _| true).unwrap();
        assert_eq!(table(&mut d), fields(&[("cache-control", "no-cache")]));
        // 0 empties it; back to 4096 keeps it empty.
        d.decode(&[0x20, 0x3f, 0xe1, 0x1f], |_, _| true).unwrap();
        assert_eq!((d.table_len(), d.table_size(), d.max_size()), (0, 0, 4096));
        // Over what we announced.
        b = vec![0x3f, 0xe2, 0x1f];
        assert_eq!(d.decode(&b, |_, _| true), Err(Error::TableSize));
    }

    #[test]
    fn an_entry_larger_than_the_table_empties_it() {
        let mut d = Decoder::new(64);
        decode(&mut d, "4003 6162 6303 7879 7a");
        assert_eq!(d.table_size(), 38);
        let mut b = vec![0x40, 0x01, b'n', 0x20];
        b.extend_from_slice(&[b'v'; 32]);
        let mut seen = 0;
        d.decode(&b, |n, v| {
            assert_eq!((n, v.len()), (&b"n"[..], 32));
            seen += 1;
            true
        })
        .unwrap();
        assert_eq!((seen, d.table_len(), d.table_size()), (1, 0, 0));
    }

    #[test]
    fn fields_are_not_looked_up_once_refused_but_the_table_is_kept() {
        let mut d = Decoder::default();
        decode(&mut d, C3[0]);
        decode(&mut d, C3[1]);
        let mut seen = Vec::new();
        let block = hex(C3[2]);
        d.decode(&block, |n, _| {
            seen.push(n.to_vec());
            false
        })
        .unwrap();
        assert_eq!(seen, vec![b":method".to_vec()]);
        assert_eq!(
            table(&mut d)[0],
            ("custom-key".into(), "custom-value".into())
        );
        assert_eq!(d.table_len(), 3);
        // Indexes are still checked.
        assert_eq!(d.decode(&[0x82, 0xc1], |_, _| false), Err(Error::Index));
    }

    #[test]
    fn bad_blocks_are_errors() {
        let mut d = Decoder::default();
        assert_eq!(d.decode(&[0x80], |_, _| true), Err(Error::Index));
        assert_eq!(d.decode(&[0xbe], |_, _| true), Err(Error::Index));
        assert_eq!(
            d.decode(&[0x40, 0x05, b'a'], |_, _| true),
            Err(Error::Truncated)
        );
        assert_eq!(
            d.decode(&[0x00, 0x01, b'a'], |_, _| true),
            Err(Error::Truncated)
        );
        assert_eq!(
            d.decode(&[0x00, 0x81, 0x1d, 0x00], |_, _| true),
            Err(Error::Huffman)
        );
    }
}
