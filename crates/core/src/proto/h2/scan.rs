//! A look at the frames the peer sends, beside h2: the 9-byte headers, and the header
//! blocks; other payloads are skipped. Pure, no I/O.
//!
//! h2 answers every PING and SETTINGS frame and reads on as its write buffer allows, where
//! nghttp2 (curl's) queues the answers and gives up once more than 1000 wait
//! (`NGHTTP2_ERR_FLOODED`). The scanner counts the frames that ask for an answer, so that a
//! burst of them can be refused as curl refuses it.
//!
//! h2 hands a response's fields over in an `http::HeaderMap`, grouped by name; curl shows
//! them in the order they came. [`Order`] decodes every header block a second time
//! ([`hpack`]) and keeps, for the streams a transfer waits on, each head's fields in wire
//! order, for the transfer to show where they agree with h2's map ([`Head::agrees`]).

use super::hpack;

/// Frames asking for an answer (PING, SETTINGS without ACK) taken in one burst before the
/// connection is a flood (nghttp2's `NGHTTP2_DEFAULT_MAX_OBQ_FLOOD_ITEM`).
pub const MAX_ACKS_DUE: u32 = 1000;

/// The most of one header block (its fragments, padding and priority taken out) kept for
/// decoding. h2 takes no head whose fields add up to more than [`super::MAX_HEADER_LIST`]
/// (RFC 7541's size: name, value and 32 bytes each), and a block is not much longer than
/// what it decodes to (only table size updates decode to nothing). A longer block leaves
/// the order unknown for the rest of the connection.
pub const MAX_BLOCK: usize = super::MAX_HEADER_LIST as usize + 16 * 1024;

/// Heads kept for one stream at most (1xx heads, the response, trailers): a peer sending
/// 1xx heads faster than the transfer takes them loses the oldest, which are then shown
/// in h2's order.
const HEADS_PER_STREAM: usize = 8;

const HEADERS: u8 = 1;
const PUSH_PROMISE: u8 = 5;
const CONTINUATION: u8 = 9;
const END_HEADERS: u8 = 4;
const PADDED: u8 = 8;
const PRIORITY: u8 = 0x20;
const PING: u8 = 6;
const SETTINGS: u8 = 4;
const ACK: u8 = 1;

/// Where the scanner is in the byte stream.
#[derive(Debug, Default, Clone)]
pub struct FrameScan {
    head: [u8; 9],
    have: usize,
    /// Payload bytes of the current frame still to skip.
    skip: usize,
    /// Frames asking for an answer since the last [`FrameScan::reset_burst`].
    pub acks_due: u32,
    /// Frame headers seen in all.
    pub frames: u64,
    /// The first PUSH_PROMISE (we never enable push): its stream, length and END_HEADERS
    /// flag, as curl names the invalid frame.
    pub push_promise: Option<(u32, usize, bool)>,
    /// The current frame's payload is a header block fragment for [`FrameScan::order`].
    collect: bool,
    /// The header blocks, decoded in wire order.
    pub order: Order,
}

impl FrameScan {
    /// Look at received bytes; true when the burst so far is a flood.
    pub fn feed(&mut self, mut data: &[u8]) -> bool {
        while !data.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(data.len());
                if self.collect {
                    self.order.fragment(&data[..n]);
                }
                self.skip -= n;
                data = &data[n..];
                if self.skip == 0 && self.collect {
                    self.collect = false;
                    self.order.frame_end();
                }
                continue;
            }
            let n = (9 - self.have).min(data.len());
            self.head[self.have..self.have + n].copy_from_slice(&data[..n]);
            self.have += n;
            data = &data[n..];
            if self.have < 9 {
                break;
            }
            self.have = 0;
            self.frames += 1;
            let h = self.head;
            self.skip = (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
            if h[3] == PUSH_PROMISE && self.push_promise.is_none() {
                let id = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
                self.push_promise = Some((id, self.skip, h[4] & END_HEADERS != 0));
            }
            if (h[3] == PING || h[3] == SETTINGS) && h[4] & ACK == 0 {
                self.acks_due = self.acks_due.saturating_add(1);
            }
            let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
            self.collect = self.order.frame_start(h[3], h[4], stream);
            if self.skip == 0 && self.collect {
                self.collect = false;
                self.order.frame_end();
            }
        }
        self.flooded()
    }

    pub fn flooded(&self) -> bool {
        self.acks_due > MAX_ACKS_DUE
    }

    /// A new burst begins (the answers to the last one could go out).
    pub fn reset_burst(&mut self) {
        self.acks_due = 0;
    }
}

/// What a head is: its `:status` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 1xx.
    Informational,
    /// The response.
    Final,
    /// No `:status`: trailers.
    Trailers,
}

/// One header block's fields in wire order, pseudo-header fields left out (h2's map has
/// none either).
#[derive(Debug, Clone)]
pub struct Head {
    pub stream: u32,
    pub kind: Kind,
    /// Which head of its stream this is, from 0.
    seq: u32,
    /// Per field: the name's and the value's lengths (4 bytes each, little-endian), the
    /// name, the value. One buffer, one allocation per head.
    buf: Vec<u8>,
    count: usize,
    /// RFC 7541's size of the list, as h2 counts it against its limit.
    size: usize,
    /// The `:status` value when it is three digits, else 0.
    status: u16,
    /// Its HEADERS frame's payload length and flags.
    frame: (usize, u8),
}

impl Head {
    fn new(stream: u32, hint: usize) -> Head {
        Head {
            stream,
            kind: Kind::Trailers,
            seq: 0,
            buf: Vec::with_capacity(hint),
            count: 0,
            size: 0,
            status: 0,
            frame: (0, 0),
        }
    }

    /// Take one decoded field; false once the head is larger than h2 takes.
    fn push(&mut self, name: &[u8], value: &[u8]) -> bool {
        self.size += name.len() + value.len() + 32;
        if self.size > super::MAX_HEADER_LIST as usize {
            return false;
        }
        if name.first() == Some(&b':') {
            if name == b":status" {
                self.kind = match value.first() {
                    Some(b'1') => Kind::Informational,
                    _ => Kind::Final,
                };
                self.status = match value {
                    [a, b, c] if value.iter().all(u8::is_ascii_digit) => {
                        u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0')
                    }
                    _ => 0,
                };
            }
            return true;
        }
        self.buf
            .extend_from_slice(&(name.len() as u32).to_le_bytes());
        self.buf
            .extend_from_slice(&(value.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(name);
        self.buf.extend_from_slice(value);
        self.count += 1;
        true
    }

    /// The fields, as (name, value), in wire order.
    pub fn fields(&self) -> Fields<'_> {
        Fields { rest: &self.buf }
    }

    /// How many fields.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Does this head hold the fields of `map`, value for value? h2 decoded the block
    /// too and is the authority: a head that differs in anything (a decoding of ours gone
    /// wrong, a field h2 left out) is not shown, `map`'s order is.
    pub fn agrees(&self, map: &http::HeaderMap) -> bool {
        if self.count != map.len() {
            return false;
        }
        // The fields of each name must be the map's values of that name, in their order.
        // Few fields (the usual head): the values before each field are counted where
        // they are; more: the fields are grouped by name first.
        let value_at = |name: &[u8], k: usize| {
            let name = std::str::from_utf8(name).ok()?;
            map.get_all(name).iter().nth(k).map(|v| v.as_bytes())
        };
        if self.count <= 32 {
            let mut seen: [&[u8]; 32] = [&[]; 32];
            for (i, (n, v)) in self.fields().enumerate() {
                let k = seen[..i].iter().filter(|s| **s == n).count();
                if value_at(n, k) != Some(v) {
                    return false;
                }
                seen[i] = n;
            }
            return true;
        }
        let mut all: Vec<(&[u8], &[u8])> = self.fields().collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        for group in all.chunk_by(|a, b| a.0 == b.0) {
            let Ok(name) = std::str::from_utf8(group[0].0) else {
                return false;
            };
            let mut values = map.get_all(name).iter();
            for (_, v) in group {
                if values.next().map(|x| x.as_bytes()) != Some(*v) {
                    return false;
                }
            }
            if values.next().is_some() {
                return false;
            }
        }
        true
    }
}

/// The fields of a [`Head`].
pub struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Fields<'a> {
    type Item = (&'a [u8], &'a [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        let len = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        if self.rest.len() < 8 {
            return None;
        }
        let (n, v) = (len(self.rest), len(&self.rest[4..]));
        let (name, rest) = self.rest[8..].split_at(n);
        let (value, rest) = rest.split_at(v);
        self.rest = rest;
        Some((name, value))
    }
}

/// The peer's header blocks decoded in connection order (HPACK's dynamic table depends on
/// every block, PUSH_PROMISE ones and those of streams nobody waits on included), and the
/// heads of the streams a transfer waits on ([`Order::want`]) until it takes them.
#[derive(Debug, Default, Clone)]
pub struct Order {
    hpack: hpack::Decoder,
    /// The header block so far, padding and priority taken out.
    block: Vec<u8>,
    /// Its stream, whether it is a PUSH_PROMISE's, and whether CONTINUATION frames must
    /// follow.
    stream: u32,
    push: bool,
    open: bool,
    /// The current frame: its kind, flags, and where its payload starts in `block`.
    frame: (u8, u8, usize),
    /// The block's HEADERS frame: payload length and flags (as nghttp2 names a frame).
    first: (usize, u8),
    /// A block could not be decoded or kept: the table is unknown from here on, and no
    /// more heads are kept.
    lost: bool,
    wanted: Vec<Wanted>,
    heads: Vec<Head>,
}

/// A stream a transfer waits on: its heads decoded and taken so far. The transfer takes
/// every head h2 hands over, in order, so the nth taken is the nth decoded.
#[derive(Debug, Clone, Copy)]
struct Wanted {
    stream: u32,
    decoded: u32,
    taken: u32,
}

impl Order {
    /// A frame header came: whether its payload is a header block fragment to collect.
    fn frame_start(&mut self, kind: u8, flags: u8, stream: u32) -> bool {
        if self.lost {
            return false;
        }
        match kind {
            HEADERS | PUSH_PROMISE if !self.open => {
                self.block.clear();
                self.stream = stream;
                self.push = kind == PUSH_PROMISE;
            }
            CONTINUATION if self.open && stream == self.stream => {}
            // h2 ends the connection for these (RFC 9113, 6.10).
            CONTINUATION => return self.lose(),
            _ if self.open => return self.lose(),
            _ => return false,
        }
        self.frame = (kind, flags, self.block.len());
        true
    }

    /// Payload bytes of a header block frame.
    fn fragment(&mut self, data: &[u8]) {
        if self.lost {
            return;
        }
        if self.block.len() + data.len() > MAX_BLOCK {
            self.lose();
            return;
        }
        self.block.extend_from_slice(data);
    }

    /// A header block frame is complete: its fragment is kept, and with END_HEADERS the
    /// block is decoded.
    fn frame_end(&mut self) {
        if self.lost {
            return;
        }
        let (kind, flags, at) = self.frame;
        let payload = &self.block[at..];
        if kind == HEADERS {
            self.first = (payload.len(), flags);
        }
        let mut prefix = 0;
        let mut pad = 0;
        if kind != CONTINUATION && flags & PADDED != 0 {
            let Some(&p) = payload.first() else {
                self.lose();
                return;
            };
            pad = usize::from(p);
            prefix = 1;
        }
        match kind {
            HEADERS if flags & PRIORITY != 0 => prefix += 5,
            PUSH_PROMISE => prefix += 4,
            _ => {}
        }
        if prefix + pad > payload.len() {
            self.lose();
            return;
        }
        let end = self.block.len() - pad;
        self.block.truncate(end);
        self.block.drain(at..at + prefix);
        self.open = flags & END_HEADERS == 0;
        if !self.open {
            self.decode();
        }
    }

    fn decode(&mut self) {
        let stream = self.stream;
        let want = self.wanted.iter_mut().find(|w| w.stream == stream);
        let seq = match want {
            Some(w) if !self.push => {
                w.decoded = w.decoded.wrapping_add(1);
                Some(w.decoded - 1)
            }
            _ => None,
        };
        let keep = seq.is_some();
        let hint = (self.block.len() * 2 + 64).min(16 * 1024);
        let mut head = keep.then(|| Head::new(self.stream, hint));
        let r = self.hpack.decode(&self.block, |n, v| {
            let more = head.as_mut().is_some_and(|h| h.push(n, v));
            if !more {
                head = None;
            }
            more
        });
        if self.block.capacity() > 16 * 1024 {
            self.block = Vec::new();
        }
        if r.is_err() {
            self.lose();
            return;
        }
        let Some(mut head) = head else {
            return;
        };
        head.seq = seq.unwrap_or_default();
        head.frame = self.first;
        if self.heads.iter().filter(|h| h.stream == stream).count() >= HEADS_PER_STREAM {
            if let Some(i) = self.heads.iter().position(|h| h.stream == stream) {
                self.heads.remove(i);
            }
        }
        self.heads.push(head);
    }

    /// The table is unknown from here: nothing more is decoded (heads kept stay valid).
    fn lose(&mut self) -> bool {
        self.lost = true;
        self.open = false;
        self.block = Vec::new();
        self.hpack = hpack::Decoder::new(0);
        false
    }

    /// Has a block been lost (the order of later heads is unknown)?
    pub fn lost(&self) -> bool {
        self.lost
    }

    /// A transfer waits on `stream`: keep its heads.
    pub fn want(&mut self, stream: u32) {
        if !self.wanted.iter().any(|w| w.stream == stream) {
            self.wanted.push(Wanted {
                stream,
                decoded: 0,
                taken: 0,
            });
        }
    }

    /// Nobody waits on `stream` any more: its heads go.
    pub fn forget(&mut self, stream: u32) {
        self.wanted.retain(|w| w.stream != stream);
        self.heads.retain(|h| h.stream != stream);
    }

    /// The next head of `stream`, the one h2 handed over as of kind `kind`; None when it
    /// was not kept (lost, dropped, too large) or is not of that kind.
    pub fn take(&mut self, stream: u32, kind: Kind) -> Option<Head> {
        let w = self.wanted.iter_mut().find(|w| w.stream == stream)?;
        let seq = w.taken;
        w.taken = w.taken.wrapping_add(1);
        let head = self
            .heads
            .iter()
            .position(|h| h.stream == stream && h.seq == seq)
            .map(|i| self.heads.remove(i));
        // None older stays (they went when newer ones came).
        self.heads
            .retain(|h| h.stream != stream || h.seq.wrapping_sub(seq) as i32 > 0);
        head.filter(|h| h.kind == kind)
    }

    /// The next head of `stream` not taken yet, if it was kept: its `:status` (0 for none
    /// or not three digits) and its HEADERS frame's payload length and flags. When h2
    /// refused a head, this is the one.
    pub fn next_status(&self, stream: u32) -> Option<(u16, usize, u8)> {
        let w = self.wanted.iter().find(|w| w.stream == stream)?;
        self.heads
            .iter()
            .find(|h| h.stream == stream && h.seq == w.taken)
            .map(|h| (h.status, h.frame.0, h.frame.1))
    }

    /// Heads kept, all streams.
    pub fn kept(&self) -> usize {
        self.heads.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, flags: u8, len: usize) -> Vec<u8> {
        let mut f = vec![
            (len >> 16) as u8,
            (len >> 8) as u8,
            len as u8,
            kind,
            flags,
            0,
            0,
            0,
            0,
        ];
        f.extend(std::iter::repeat_n(0u8, len));
        f
    }

    #[test]
    fn counts_frames_asking_for_answers_in_any_split() {
        let mut all = Vec::new();
        all.extend(frame(SETTINGS, 0, 6));
        all.extend(frame(SETTINGS, ACK, 0));
        all.extend(frame(PING, 0, 8));
        all.extend(frame(PING, ACK, 8));
        all.extend(frame(0, 0, 100));
        all.extend(frame(1, 4, 3));
        for piece in [1, 2, 7, 9, 10, all.len()] {
            let mut s = FrameScan::default();
            for c in all.chunks(piece) {
                assert!(!s.feed(c));
            }
            assert_eq!((s.frames, s.acks_due), (6, 2), "pieces of {piece}");
        }
    }

    #[test]
    fn the_first_push_promise_is_kept_with_its_stream_length_and_flag() {
        let mut all = frame(1, 4, 3);
        let mut pp = frame(PUSH_PROMISE, END_HEADERS, 17);
        pp[8] = 3;
        all.extend(pp);
        let mut later = frame(PUSH_PROMISE, 0, 5);
        later[8] = 5;
        all.extend(later);
        for piece in [1, 4, 9, all.len()] {
            let mut s = FrameScan::default();
            for c in all.chunks(piece) {
                s.feed(c);
            }
            assert_eq!(s.push_promise, Some((3, 17, true)), "pieces of {piece}");
        }
    }

    fn framed(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let mut f = frame(kind, flags, 0);
        f[..3].copy_from_slice(&(payload.len() as u32).to_be_bytes()[1..]);
        f[5..9].copy_from_slice(&stream.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    fn lit(out: &mut Vec<u8>, first: u8, name: &str, value: &str) {
        out.extend_from_slice(&[first, name.len() as u8]);
        out.extend_from_slice(name.as_bytes());
        out.push(value.len() as u8);
        out.extend_from_slice(value.as_bytes());
    }

    #[test]
    fn next_status_names_the_head_not_taken_with_its_headers_frame() {
        let mut s = FrameScan::default();
        s.order.want(1);
        let mut b = Vec::new();
        lit(&mut b, 0x00, ":status", "101");
        lit(&mut b, 0x00, "upgrade", "x");
        let (a, rest) = b.split_at(5);
        let mut padded = vec![2];
        padded.extend_from_slice(a);
        padded.extend_from_slice(&[0, 0]);
        s.feed(&framed(HEADERS, PADDED | 1, 1, &padded));
        assert_eq!(s.order.next_status(1), None, "block not complete");
        s.feed(&framed(CONTINUATION, END_HEADERS, 1, rest));
        assert_eq!(
            s.order.next_status(1),
            Some((101, padded.len(), PADDED | 1))
        );
        assert_eq!(s.order.next_status(3), None);
        let mut b = Vec::new();
        lit(&mut b, 0x00, ":status", "2x0");
        s.feed(&framed(HEADERS, END_HEADERS, 1, &b));
        assert!(s.order.take(1, Kind::Informational).is_some());
        assert_eq!(s.order.next_status(1), Some((0, b.len(), END_HEADERS)));
    }

    fn names(h: &Head) -> Vec<String> {
        h.fields()
            .map(|(n, v)| {
                format!(
                    "{}: {}",
                    String::from_utf8_lossy(n),
                    String::from_utf8_lossy(v)
                )
            })
            .collect()
    }

    /// A response split over HEADERS (padded, with priority) and CONTINUATION, a DATA frame
    /// and trailers; then on stream 3 a head using what the first put in the table.
    fn wire() -> Vec<u8> {
        let mut b1 = vec![0x88]; // :status: 200
        lit(&mut b1, 0x40, "x-a", "1");
        lit(&mut b1, 0x00, "x-b", "2");
        let mut b2 = Vec::new();
        lit(&mut b2, 0x00, "x-a", "3");
        let mut all = Vec::new();
        let mut p = vec![3, 0, 0, 0, 0, 16];
        p.extend_from_slice(&b1);
        p.extend_from_slice(&[0, 0, 0]);
        all.extend(framed(HEADERS, PADDED | PRIORITY, 1, &p));
        all.extend(framed(CONTINUATION, END_HEADERS, 1, &b2));
        all.extend(framed(0, 0, 1, b"body"));
        let mut t = Vec::new();
        lit(&mut t, 0x00, "t", "1");
        all.extend(framed(HEADERS, END_HEADERS | 1, 1, &t));
        // 0xbe: the dynamic table's newest entry, x-a: 1.
        all.extend(framed(
            HEADERS,
            END_HEADERS,
            3,
            &[0x88, 0xbe, 0x0f, 0x10, 1, b'z'],
        ));
        all
    }

    #[test]
    fn heads_come_in_wire_order_in_any_split() {
        let all = wire();
        for piece in [1, 2, 5, 9, 10, 13, all.len()] {
            let mut s = FrameScan::default();
            s.order.want(1);
            s.order.want(3);
            for c in all.chunks(piece) {
                s.feed(c);
            }
            let o = &mut s.order;
            assert!(!o.lost(), "pieces of {piece}");
            let h = o.take(1, Kind::Final).unwrap();
            assert_eq!(
                names(&h),
                ["x-a: 1", "x-b: 2", "x-a: 3"],
                "pieces of {piece}"
            );
            let t = o.take(1, Kind::Trailers).unwrap();
            assert_eq!(names(&t), ["t: 1"]);
            // 0x0f 0x10: literal without indexing, name index 31 (content-type).
            let h = o.take(3, Kind::Final).unwrap();
            assert_eq!(
                names(&h),
                ["x-a: 1", "content-type: z"],
                "pieces of {piece}"
            );
            assert_eq!(o.kept(), 0);
        }
    }

    #[test]
    fn heads_of_streams_nobody_waits_on_are_decoded_not_kept() {
        let mut s = FrameScan::default();
        s.order.want(3);
        s.feed(&wire());
        assert_eq!(s.order.kept(), 1);
        assert_eq!(names(&s.order.take(3, Kind::Final).unwrap())[0], "x-a: 1");
        s.order.want(5);
        s.feed(&framed(HEADERS, END_HEADERS, 5, &[0x88]));
        s.order.forget(5);
        assert_eq!(s.order.kept(), 0);
    }

    fn info(code: &str, link: &str) -> Vec<u8> {
        let mut b = Vec::new();
        lit(&mut b, 0x00, ":status", code);
        lit(&mut b, 0x00, "link", link);
        framed(HEADERS, END_HEADERS, 1, &b)
    }

    #[test]
    fn informational_heads_are_taken_one_by_one_before_the_response() {
        let mut s = FrameScan::default();
        s.order.want(1);
        s.feed(&info("100", "a"));
        s.feed(&info("103", "b"));
        s.feed(&framed(HEADERS, END_HEADERS, 1, &[0x88]));
        assert_eq!(s.order.kept(), 3);
        let h = s.order.take(1, Kind::Informational).unwrap();
        assert_eq!(names(&h), ["link: a"]);
        let h = s.order.take(1, Kind::Informational).unwrap();
        assert_eq!(names(&h), ["link: b"]);
        let h = s.order.take(1, Kind::Final).unwrap();
        assert!(h.is_empty());
        assert_eq!(s.order.kept(), 0);
    }

    #[test]
    fn heads_dropped_for_room_are_not_taken_for_later_ones() {
        let mut s = FrameScan::default();
        s.order.want(1);
        let n = HEADS_PER_STREAM + 3;
        for i in 0..n {
            s.feed(&info("103", &i.to_string()));
        }
        s.feed(&framed(HEADERS, END_HEADERS, 1, &[0x88]));
        assert_eq!(s.order.kept(), HEADS_PER_STREAM);
        // The first four went: the transfer asking for them gets none, not a later one.
        for _ in 0..n + 1 - HEADS_PER_STREAM {
            assert!(s.order.take(1, Kind::Informational).is_none());
        }
        for i in n + 1 - HEADS_PER_STREAM..n {
            let h = s.order.take(1, Kind::Informational).unwrap();
            assert_eq!(names(&h), [format!("link: {i}")]);
        }
        assert!(s.order.take(1, Kind::Final).is_some());
        assert_eq!(s.order.kept(), 0);
    }

    #[test]
    fn a_head_of_another_kind_than_asked_is_not_shown() {
        let mut s = FrameScan::default();
        s.order.want(1);
        s.feed(&info("103", "a"));
        s.feed(&framed(HEADERS, END_HEADERS, 1, &[0x88]));
        // Asked for the response where the 1xx head is next: none, and the 1xx head went.
        assert!(s.order.take(1, Kind::Final).is_none());
        assert!(s.order.take(1, Kind::Final).is_some());
    }

    #[test]
    fn a_broken_sequence_loses_the_order() {
        // DATA inside a header block.
        let mut s = FrameScan::default();
        s.order.want(1);
        s.feed(&framed(HEADERS, 0, 1, &[0x88]));
        s.feed(&framed(0, 0, 1, b"x"));
        assert!(s.order.lost());
        // Padding longer than the frame.
        let mut s = FrameScan::default();
        s.feed(&framed(HEADERS, END_HEADERS | PADDED, 1, &[5, 0x88]));
        assert!(s.order.lost());
        // A block that does not decode.
        let mut s = FrameScan::default();
        s.feed(&framed(HEADERS, END_HEADERS, 1, &[0x80]));
        assert!(s.order.lost());
        s.order.want(3);
        s.feed(&framed(HEADERS, END_HEADERS, 3, &[0x88]));
        assert_eq!(s.order.kept(), 0);
    }

    #[test]
    fn a_block_over_the_limit_is_not_kept() {
        let mut s = FrameScan::default();
        s.order.want(1);
        let chunk = framed(CONTINUATION, 0, 1, &vec![0x20; 16 * 1024]);
        s.feed(&framed(HEADERS, 0, 1, &[0x88]));
        for _ in 0..MAX_BLOCK / (16 * 1024) + 1 {
            s.feed(&chunk);
        }
        assert!(s.order.lost());
        assert_eq!(s.order.block.capacity(), 0);
    }

    #[test]
    fn agreement_with_h2s_map() {
        let mut h = Head::new(1, 0);
        for (n, v) in [("a", "1"), ("b", "2"), ("a", "3")] {
            h.push(n.as_bytes(), v.as_bytes());
        }
        let mut map = http::HeaderMap::new();
        for (n, v) in [("a", "1"), ("a", "3"), ("b", "2")] {
            map.append(n, http::HeaderValue::from_static(v));
        }
        assert!(h.agrees(&map));
        map.append("c", http::HeaderValue::from_static("4"));
        assert!(!h.agrees(&map));
        let mut other = http::HeaderMap::new();
        for (n, v) in [("a", "3"), ("a", "1"), ("b", "2")] {
            other.append(n, http::HeaderValue::from_static(v));
        }
        assert!(!h.agrees(&other));
        // Many fields: grouped by name.
        let mut h = Head::new(1, 0);
        let mut map = http::HeaderMap::new();
        for i in 0..100 {
            let (n, v) = (["x", "y", "z"][i % 3], i.to_string());
            h.push(n.as_bytes(), v.as_bytes());
            map.append(n, http::HeaderValue::from_str(&v).unwrap());
        }
        assert!(h.agrees(&map));
        map.append("x", http::HeaderValue::from_static("more"));
        assert!(!h.agrees(&map));
    }

    #[test]
    fn a_burst_over_the_limit_is_a_flood() {
        let ping = frame(PING, 0, 8);
        let mut s = FrameScan::default();
        for _ in 0..MAX_ACKS_DUE {
            assert!(!s.feed(&ping));
        }
        assert!(s.feed(&ping));
        s.reset_burst();
        assert!(!s.feed(&ping));
    }
}
