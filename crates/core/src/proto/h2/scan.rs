//! A look at the frames the peer sends, beside h2: the 9-byte headers only, payloads are
//! skipped. h2 answers every PING and SETTINGS frame and reads on as its write buffer
//! allows, where nghttp2 (curl's) queues the answers and gives up once more than 1000 wait
//! (`NGHTTP2_ERR_FLOODED`). The scanner counts the frames that ask for an answer, so that a
//! burst of them can be refused as curl refuses it. Pure, no I/O.

/// Frames asking for an answer (PING, SETTINGS without ACK) taken in one burst before the
/// connection is a flood (nghttp2's `NGHTTP2_DEFAULT_MAX_OBQ_FLOOD_ITEM`).
pub const MAX_ACKS_DUE: u32 = 1000;

const PUSH_PROMISE: u8 = 5;
const END_HEADERS: u8 = 4;
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
}

impl FrameScan {
    /// Look at received bytes; true when the burst so far is a flood.
    pub fn feed(&mut self, mut data: &[u8]) -> bool {
        while !data.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(data.len());
                self.skip -= n;
                data = &data[n..];
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
