//! Runs of DATA frames joined before h2 reads them. Pure, no I/O.
//!
//! h2's frame reader allocates for every frame it decodes (PERF.md, "HTTP/2 memory and
//! allocations"), and nginx sends 8 or 16 KiB DATA frames whatever maximum frame size we
//! announce. The merger sits between the socket and h2: the connection is read into one
//! staging buffer, and consecutive DATA frames of one stream that are all in it are handed
//! to h2 as one frame with the summed length. What h2 sees means the same: the same bytes
//! per stream in the same order, the same flow-control totals, END_STREAM on the same
//! stream after the same bytes, every other frame byte for byte and in order. Joined are
//! only frames that are
//!
//! * DATA on a stream other than 0, with no flag but END_STREAM (PADDED ones count their
//!   padding against flow control, frames with flags h2 does not know are passed as they
//!   are),
//! * complete in the buffer (an incomplete one waits for more input, as h2 waits for it
//!   too; one that cannot fit is passed on as it comes),
//! * before the run's END_STREAM (a frame with END_STREAM ends the run),
//! * and within the frame size h2 takes.
//!
//! Everything else goes through unchanged, as soon as its bytes are in, and at the end of
//! the input whatever is left goes through as it is.
//!
//! h2 takes joined frames only up to the maximum frame size it announced, but the peer is
//! told curl's (16 KiB, nghttp2's default: [`strip_max_frame_size`] takes the setting out of
//! the SETTINGS frame h2 writes). A frame over what the peer was told is refused as nghttp2
//! refuses it, with FRAME_SIZE_ERROR: h2 is handed its header with a length over its own
//! limit.

/// The staging buffer: what one read of the connection may take.
pub const STAGE: usize = 64 * 1024;

/// The maximum frame size the peer is told (none: the protocol's default, as curl).
pub const WIRE_MAX: usize = 16 * 1024;

const HEAD: usize = 9;
const DATA: u8 = 0;
const END_STREAM: u8 = 1;
const SETTINGS: u8 = 4;
/// SETTINGS_MAX_FRAME_SIZE.
const MAX_FRAME_SIZE: u16 = 5;
/// The length h2 is shown for a frame over [`WIRE_MAX`]: over any limit it may have.
const TOO_LONG: [u8; 3] = [0xff; 3];

fn frame_len(h: &[u8]) -> usize {
    (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2])
}

/// Received bytes on their way to h2, with runs of DATA frames joined.
#[derive(Debug, Clone)]
pub struct Merger {
    /// The staging buffer, [`STAGE`] bytes once anything was read.
    buf: Vec<u8>,
    /// The first byte not yet handed out (in the received framing).
    pos: usize,
    /// The end of what was received.
    end: usize,
    /// The largest frame payload handed out for a run.
    max: usize,
    /// The largest frame the peer may send.
    wire_max: usize,
    /// The input ended: what is left goes through as it is.
    eof: bool,
    /// The joined header of the run being handed out, from `head_at` on.
    head: [u8; HEAD],
    head_at: usize,
    /// Bytes of a frame passed on unchanged still to hand out.
    raw: usize,
    /// Payload bytes of the run's current frame still to hand out.
    frame: usize,
    /// Where the run being handed out ends; the headers before it are skipped.
    run_end: usize,
    /// Frames joined into others so far.
    pub joined: u64,
}

impl Merger {
    /// A merger for a peer that may send frames of `wire_max` bytes, handing out runs of at
    /// most `max` payload bytes (h2's maximum frame size). Nothing is allocated before the
    /// first read.
    pub fn new(wire_max: usize, max: usize) -> Merger {
        assert!(
            max + HEAD <= STAGE,
            "a frame of {max} bytes fits in the staging buffer"
        );
        assert!(wire_max <= max && max < 0xff_ffff);
        Merger {
            buf: Vec::new(),
            pos: 0,
            end: 0,
            max,
            wire_max,
            eof: false,
            head: [0; HEAD],
            head_at: HEAD,
            raw: 0,
            frame: 0,
            run_end: 0,
            joined: 0,
        }
    }

    /// The peer may send frames of up to `n` bytes after all (at most the join limit).
    pub fn set_wire_max(&mut self, n: usize) {
        self.wire_max = n.min(self.max);
    }

    /// Room to receive into: the staging buffer after what is still held (allocated on the
    /// first call). Empty only while [`Merger::has_output`].
    pub fn spare(&mut self) -> &mut [u8] {
        if self.buf.is_empty() {
            self.buf = vec![0; STAGE];
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.run_end = self.run_end.saturating_sub(self.pos);
            self.pos = 0;
        }
        &mut self.buf[self.end..]
    }

    /// `n` bytes were received into [`Merger::spare`]; 0 is the end of the input.
    pub fn filled(&mut self, n: usize) {
        if n == 0 {
            self.eof = true;
        } else {
            self.end += n;
            debug_assert!(self.end <= self.buf.len());
        }
    }

    /// Has the input ended with everything handed out? Reports the end once.
    pub fn take_eof(&mut self) -> bool {
        let done = self.eof && !self.has_output();
        if done {
            self.eof = false;
        }
        done
    }

    /// Is the next frame at `pos` one that may start or join a run?
    fn joinable(&self, h: &[u8]) -> bool {
        h[3] == DATA
            && h[4] & !END_STREAM == 0
            && h[5..9] != [0, 0, 0, 0]
            && h[5..9] != [0x80, 0, 0, 0]
            && frame_len(h) <= self.wire_max
    }

    /// Would [`Merger::read`] hand out anything without more input?
    pub fn has_output(&self) -> bool {
        if self.head_at < HEAD || self.frame > 0 || self.pos < self.run_end {
            return true;
        }
        let avail = self.end - self.pos;
        if self.raw > 0 {
            return avail > 0;
        }
        if avail < HEAD {
            return avail > 0 && self.eof;
        }
        let h = &self.buf[self.pos..self.pos + HEAD];
        !self.joinable(h) || avail >= HEAD + frame_len(h) || self.eof
    }

    /// Hand out up to `room` bytes to `put`, in one or more pieces; how many. 0 (with room)
    /// when more input is needed.
    pub fn read(&mut self, room: usize, mut put: impl FnMut(&[u8])) -> usize {
        let mut given = 0;
        while given < room {
            let left = room - given;
            if self.head_at < HEAD {
                let n = (HEAD - self.head_at).min(left);
                put(&self.head[self.head_at..self.head_at + n]);
                self.head_at += n;
                given += n;
                continue;
            }
            if self.raw > 0 || self.frame > 0 {
                let want = if self.raw > 0 { self.raw } else { self.frame };
                let n = want.min(left).min(self.end - self.pos);
                if n == 0 {
                    break;
                }
                put(&self.buf[self.pos..self.pos + n]);
                self.pos += n;
                given += n;
                if self.raw > 0 {
                    self.raw -= n;
                } else {
                    self.frame -= n;
                }
                continue;
            }
            if self.pos < self.run_end {
                self.settle();
                continue;
            }
            if !self.start_frame() {
                break;
            }
        }
        self.settle();
        given
    }

    /// Within a run, step over the headers left out (and the empty frames they head) up to
    /// the next payload byte or the run's end.
    fn settle(&mut self) {
        while self.frame == 0 && self.pos < self.run_end {
            self.frame = frame_len(&self.buf[self.pos..]);
            self.pos += HEAD;
        }
    }

    /// At a frame boundary: decide how the next frame goes out. False when it needs more
    /// input first.
    fn start_frame(&mut self) -> bool {
        let avail = self.end - self.pos;
        if avail < HEAD {
            if self.eof && avail > 0 {
                self.raw = avail;
                return true;
            }
            return false;
        }
        let h: [u8; HEAD] = self.buf[self.pos..self.pos + HEAD]
            .try_into()
            .expect("frame header");
        let len = frame_len(&h);
        if len > self.wire_max {
            self.head = h;
            self.head[..3].copy_from_slice(&TOO_LONG);
            self.head_at = 0;
            self.pos += HEAD;
            self.raw = len;
            return true;
        }
        if !self.joinable(&h) {
            self.raw = HEAD + len;
            return true;
        }
        if avail < HEAD + len {
            if self.eof {
                self.raw = HEAD + len;
                return true;
            }
            return false;
        }
        let mut total = len;
        let mut flags = h[4];
        let mut next = self.pos + HEAD + len;
        let mut count = 1;
        while flags == 0 && self.end - next >= HEAD {
            let g = &self.buf[next..next + HEAD];
            let glen = frame_len(g);
            if !self.joinable(g)
                || g[5..9] != h[5..9]
                || total + glen > self.max
                || self.end - next - HEAD < glen
            {
                break;
            }
            total += glen;
            flags = g[4];
            next += HEAD + glen;
            count += 1;
        }
        if count == 1 {
            self.raw = HEAD + len;
            return true;
        }
        self.joined += count - 1;
        self.head = [
            (total >> 16) as u8,
            (total >> 8) as u8,
            total as u8,
            DATA,
            flags,
            h[5],
            h[6],
            h[7],
            h[8],
        ];
        self.head_at = 0;
        self.frame = len;
        self.pos += HEAD;
        self.run_end = next;
        true
    }
}

/// Take SETTINGS_MAX_FRAME_SIZE out of the SETTINGS frame at the start of `out` (what h2
/// writes after the preface): the frame as the peer is to get it, and the length of the
/// frame h2 wrote. None when `out` does not start with a complete SETTINGS frame.
pub fn strip_max_frame_size(out: &[u8]) -> Option<(Vec<u8>, usize)> {
    let h = out.get(..HEAD)?;
    let len = frame_len(h);
    if h[3] != SETTINGS || h[4] != 0 || !len.is_multiple_of(6) || out.len() < HEAD + len {
        return None;
    }
    let mut f = h.to_vec();
    for p in out[HEAD..HEAD + len].chunks(6) {
        if u16::from_be_bytes([p[0], p[1]]) != MAX_FRAME_SIZE {
            f.extend_from_slice(p);
        }
    }
    let n = f.len() - HEAD;
    f[..3].copy_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
    Some((f, HEAD + len))
}

/// A frame as the tests see it: type, flags, stream, declared length, payload.
pub type Frame = (u8, u8, u32, usize, Vec<u8>);

/// The frames in `wire`, in order; a trailing incomplete frame with what it has, and a
/// trailing piece of a header as type, flags 0xff. For tests and the fuzz target.
pub fn frames(mut wire: &[u8]) -> Vec<Frame> {
    let mut out = Vec::new();
    while wire.len() >= HEAD {
        let len = frame_len(wire);
        let stream = u32::from_be_bytes([wire[5], wire[6], wire[7], wire[8]]);
        let end = (HEAD + len).min(wire.len());
        out.push((wire[3], wire[4], stream, len, wire[HEAD..end].to_vec()));
        wire = &wire[end..];
    }
    if !wire.is_empty() {
        out.push((0xff, 0xff, u32::MAX, usize::MAX, wire.to_vec()));
    }
    out
}

/// Feed `wire` through a merger in reads of at most `piece` bytes, taking the output in
/// reads of at most `take` bytes, then end the input; everything handed out. For tests
/// and the fuzz target.
pub fn run_split(wire: &[u8], wire_max: usize, max: usize, piece: usize, take: usize) -> Vec<u8> {
    let mut m = Merger::new(wire_max, max);
    let mut out = Vec::new();
    let mut input = wire;
    loop {
        let before = m.has_output();
        let n = m.read(take.max(1), |b| out.extend_from_slice(b));
        assert_eq!(before, n > 0, "has_output says what read does");
        if n > 0 {
            continue;
        }
        if m.take_eof() {
            break;
        }
        let spare = m.spare();
        assert!(!spare.is_empty(), "room while nothing is handed out");
        let n = piece.max(1).min(spare.len()).min(input.len());
        spare[..n].copy_from_slice(&input[..n]);
        input = &input[n..];
        m.filled(n);
    }
    assert!(input.is_empty());
    out
}

/// Is `out` a valid re-framing of `wire` by a merger? The same frames in the same order
/// once consecutive DATA frames without padding are flattened into one (the same DATA
/// bytes per stream, END_STREAM after the same bytes, every other frame and every padded
/// one unchanged); every frame that is not one of the input's a DATA frame on a stream
/// other than 0 within `max`; the first frame over `wire_max` shown with a length over any
/// limit, and nothing compared after it. Panics with the first difference. For tests and
/// the fuzz target.
pub fn check_reframing(wire: &[u8], out: &[u8], wire_max: usize, max: usize) {
    let plain = |f: &Frame| f.0 == DATA && f.1 & !END_STREAM == 0 && f.2 != u32::MAX;
    let flat = |fs: &[Frame]| -> Vec<(u8, u8, u32, Vec<u8>)> {
        let mut ev: Vec<(u8, u8, u32, Vec<u8>)> = Vec::new();
        for f in fs {
            if plain(f) {
                if let Some(last) = ev.last_mut() {
                    if last.0 == DATA && last.1 == 0 && last.2 == f.2 {
                        last.1 = f.1;
                        last.3.extend_from_slice(&f.4);
                        continue;
                    }
                }
            }
            ev.push((f.0, f.1, f.2, f.4.clone()));
        }
        ev
    };
    let (mut a, mut b) = (frames(wire), frames(out));
    let too_long = |f: &Frame| f.3 != usize::MAX && f.3 > wire_max;
    if let Some(i) = a.iter().position(too_long) {
        let shown = |f: &Frame| f.3 == 0xff_ffff;
        let j = b
            .iter()
            .position(shown)
            .expect("the frame over the limit shown too long");
        let kind = |f: &Frame| (f.0, f.1, f.2);
        assert_eq!(kind(&b[j]), kind(&a[i]), "the frame over the limit");
        a.truncate(i);
        b.truncate(j);
    }
    assert_eq!(
        flat(&a),
        flat(&b),
        "the same frames, DATA bytes and END_STREAM"
    );
    for f in b.iter().filter(|f| !a.contains(f)) {
        assert!(plain(f), "a frame that is not the input's: {f:?}");
        assert!(f.2 & 0x7fff_ffff != 0, "DATA joined on stream 0");
        assert!(f.4.len() <= max, "a joined frame of {} bytes", f.4.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let len = payload.len();
        let mut f = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
        f.extend(stream.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    fn data(stream: u32, end: bool, payload: &[u8]) -> Vec<u8> {
        frame(DATA, u8::from(end), stream, payload)
    }

    /// Feed `wire` in two reads cut at `cut`, taking the output `take` bytes at a time.
    fn two_reads(wire: &[u8], wire_max: usize, max: usize, cut: usize, take: usize) -> Vec<u8> {
        let mut m = Merger::new(wire_max, max);
        let mut out = Vec::new();
        for part in [&wire[..cut], &wire[cut..]] {
            m.spare()[..part.len()].copy_from_slice(part);
            m.filled(part.len());
            while m.read(take, |b| out.extend_from_slice(b)) > 0 {}
        }
        m.filled(0);
        while m.read(take, |b| out.extend_from_slice(b)) > 0 {}
        assert!(m.take_eof());
        out
    }

    /// The merged output of `wire` read whole, which does not depend on how it is taken;
    /// read in pieces of every size, or cut in two at every position, the output is a
    /// valid re-framing of the input (joins depend on what one read brings: nothing
    /// complete is held back for input that may not come).
    fn merged(wire: &[u8], max: usize) -> Vec<u8> {
        merged_with(wire, max, max)
    }

    fn merged_with(wire: &[u8], wire_max: usize, max: usize) -> Vec<u8> {
        let whole = run_split(wire, wire_max, max, usize::MAX, usize::MAX);
        check_reframing(wire, &whole, wire_max, max);
        for take in [1, 2, 5, 9, 10, 17] {
            let out = run_split(wire, wire_max, max, usize::MAX, take);
            assert_eq!(out, whole, "takes of {take}");
        }
        for piece in 1..=wire.len() {
            for take in [3, usize::MAX] {
                let out = run_split(wire, wire_max, max, piece, take);
                check_reframing(wire, &out, wire_max, max);
            }
        }
        for cut in 0..=wire.len() {
            let out = two_reads(wire, wire_max, max, cut, usize::MAX);
            check_reframing(wire, &out, wire_max, max);
            assert_eq!(two_reads(wire, wire_max, max, cut, 4), out, "cut at {cut}");
        }
        whole
    }

    fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
        parts.concat()
    }

    #[test]
    fn consecutive_data_of_one_stream_become_one_frame_whatever_the_split() {
        let wire = cat(&[
            data(1, false, b"hello "),
            data(1, false, b"big "),
            data(1, true, b"world"),
        ]);
        assert_eq!(merged(&wire, 1000), data(1, true, b"hello big world"));
    }

    #[test]
    fn end_stream_ends_a_run() {
        let wire = cat(&[
            data(1, false, b"ab"),
            data(1, true, b"cd"),
            data(1, false, b"ef"),
            data(1, false, b"gh"),
        ]);
        let want = cat(&[data(1, true, b"abcd"), data(1, false, b"efgh")]);
        assert_eq!(merged(&wire, 1000), want);
    }

    #[test]
    fn padded_frames_and_unknown_flags_pass_unchanged() {
        // PADDED (0x8): pad length 2, "xy", two bytes of padding.
        let padded = frame(DATA, 0x8, 1, b"\x02xy\0\0");
        let odd = frame(DATA, 0x40, 1, b"q");
        let wire = cat(&[
            data(1, false, b"a"),
            padded.clone(),
            data(1, false, b"b"),
            data(1, false, b"c"),
            odd.clone(),
            data(1, false, b"d"),
        ]);
        let want = cat(&[
            data(1, false, b"a"),
            padded,
            data(1, false, b"bc"),
            odd,
            data(1, false, b"d"),
        ]);
        assert_eq!(merged(&wire, 1000), want);
    }

    #[test]
    fn other_streams_and_other_frames_break_runs_and_pass_byte_for_byte() {
        let headers = frame(1, 4, 3, b"\x88");
        let ping = frame(6, 0, 0, b"12345678");
        let wire = cat(&[
            data(1, false, b"a"),
            data(1, false, b"b"),
            data(3, false, b"x"),
            data(3, false, b"y"),
            data(1, false, b"c"),
            headers.clone(),
            data(1, false, b"d"),
            ping.clone(),
            data(1, false, b"e"),
            data(1, true, b"f"),
        ]);
        let want = cat(&[
            data(1, false, b"ab"),
            data(3, false, b"xy"),
            data(1, false, b"c"),
            headers,
            data(1, false, b"d"),
            ping,
            data(1, true, b"ef"),
        ]);
        assert_eq!(merged(&wire, 1000), want);
    }

    #[test]
    fn data_on_stream_zero_is_left_for_h2_to_refuse() {
        let wire = cat(&[data(0, false, b"a"), data(0, false, b"b")]);
        assert_eq!(merged(&wire, 1000), wire);
    }

    #[test]
    fn runs_stop_at_the_cap() {
        let wire = cat(&[
            data(1, false, &[b'a'; 40]),
            data(1, false, &[b'b'; 40]),
            data(1, false, &[b'c'; 40]),
            data(1, false, &[b'd'; 100]),
            data(1, true, &[b'e'; 1]),
        ]);
        let mut ab = vec![b'a'; 40];
        ab.extend([b'b'; 40]);
        let want = cat(&[
            data(1, false, &ab),
            data(1, false, &[b'c'; 40]),
            data(1, true, &[[b'd'; 100].as_slice(), b"e"].concat()),
        ]);
        assert_eq!(merged_with(&wire, 100, 101), want);
    }

    #[test]
    fn a_frame_over_what_the_peer_may_send_is_shown_to_h2_as_too_long() {
        let over = frame(1, 4, 1, &[b'h'; 101]);
        let wire = cat(&[
            data(1, false, b"a"),
            data(1, false, b"b"),
            over.clone(),
            data(1, false, b"c"),
        ]);
        let mut shown = over;
        shown[..3].copy_from_slice(&TOO_LONG);
        let want = cat(&[data(1, false, b"ab"), shown, data(1, false, b"c")]);
        assert_eq!(merged_with(&wire, 100, 1000), want);
        // A DATA frame too: it does not join a run.
        let wire = cat(&[data(1, false, b"a"), data(1, false, &[b'x'; 101])]);
        let mut want = data(1, false, b"a");
        want.extend(TOO_LONG);
        want.extend(&data(1, false, &[b'x'; 101])[3..]);
        assert_eq!(merged_with(&wire, 100, 1000), want);
    }

    #[test]
    fn max_frame_size_is_taken_out_of_our_settings() {
        let settings = frame(
            SETTINGS,
            0,
            0,
            &[
                [0, 2, 0, 0, 0, 0],
                [0, 5, 0, 0, 0xc0, 0],
                [0, 6, 0, 4, 0xb0, 0],
            ]
            .concat(),
        );
        let mut out = settings.clone();
        out.extend(frame(8, 0, 0, &[0, 0, 1, 0]));
        let want = frame(
            SETTINGS,
            0,
            0,
            &[[0, 2, 0, 0, 0, 0], [0, 6, 0, 4, 0xb0, 0]].concat(),
        );
        assert_eq!(strip_max_frame_size(&out), Some((want, settings.len())));
        assert_eq!(strip_max_frame_size(&settings[..settings.len() - 1]), None);
        assert_eq!(strip_max_frame_size(&frame(8, 0, 0, &[0, 0, 1, 0])), None);
        let ack = frame(SETTINGS, 1, 0, &[]);
        assert_eq!(strip_max_frame_size(&ack), None);
    }

    #[test]
    fn zero_length_data_frames_join_too() {
        let wire = cat(&[
            data(1, false, b""),
            data(1, false, b"a"),
            data(1, false, b""),
            data(1, true, b""),
            data(1, true, b""),
        ]);
        let want = cat(&[data(1, true, b"a"), data(1, true, b"")]);
        assert_eq!(merged(&wire, 1000), want);
    }

    #[test]
    fn only_complete_frames_join_and_the_rest_waits() {
        let wire = cat(&[data(1, false, b"abc"), data(1, false, b"def")]);
        let mut m = Merger::new(1000, 1000);
        let cut = wire.len() - 2;
        m.spare()[..cut].copy_from_slice(&wire[..cut]);
        m.filled(cut);
        let mut out = Vec::new();
        m.read(usize::MAX, |b| out.extend_from_slice(b));
        assert_eq!(out, data(1, false, b"abc"));
        assert!(!m.has_output());
        m.spare()[..2].copy_from_slice(&wire[cut..]);
        m.filled(2);
        out.clear();
        m.read(usize::MAX, |b| out.extend_from_slice(b));
        assert_eq!(out, data(1, false, b"def"));
    }

    #[test]
    fn an_incomplete_frame_at_the_end_of_input_goes_through_as_it_is() {
        let mut wire = cat(&[data(1, false, b"abc"), data(1, false, b"def")]);
        wire.truncate(wire.len() - 1);
        assert_eq!(merged(&wire, 1000), wire);
        let mut wire = data(1, false, b"abc");
        wire.extend(&data(1, false, b"def")[..4]);
        assert_eq!(merged(&wire, 1000), wire);
    }

    #[test]
    fn non_data_frames_stream_through_before_they_are_complete() {
        let headers = frame(1, 4, 1, &[b'h'; 100]);
        let mut m = Merger::new(1000, 1000);
        m.spare()[..20].copy_from_slice(&headers[..20]);
        m.filled(20);
        let mut out = Vec::new();
        m.read(usize::MAX, |b| out.extend_from_slice(b));
        assert_eq!(out, &headers[..20]);
    }

    #[test]
    fn the_staging_buffer_is_allocated_once_and_reused() {
        let mut m = Merger::new(16 * 1024, 48 * 1024);
        assert!(m.buf.is_empty());
        let f = data(1, false, &[7; 16 * 1024]);
        let mut total = 0;
        for _ in 0..20 {
            let spare = m.spare();
            let n = spare.len().min(f.len() * 3);
            let ptr = spare.as_ptr() as usize - m.end;
            for (i, b) in m.spare()[..n].iter_mut().enumerate() {
                *b = f[(total + i) % f.len()];
            }
            m.filled(n);
            total += n;
            m.read(usize::MAX, |_| {});
            assert_eq!(m.buf.as_ptr() as usize, ptr);
            assert_eq!(m.buf.len(), STAGE);
        }
        assert!(m.joined > 0);
    }
}
