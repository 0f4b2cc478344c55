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
//! * within the frame size h2 takes,
//! * and on a stream whose body limit is known ([`Limit`]), within it.
//!
//! h2 checks a response's content-length frame by frame and refuses the frame that
//! overflows it (or ends the stream short of it) with what came before it kept; a joined
//! run is one frame to h2, refused whole. So runs are joined only on the streams the
//! transfers tell the merger about ([`Merger::track`]), once the response head gave the
//! limit, and only as far as h2 takes each of the run's frames: a frame h2 would refuse, and
//! everything after it on that stream, passes as it came.
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
const HEADERS: u8 = 1;
const PRIORITY: u8 = 2;
const PADDED: u8 = 8;
const RST_STREAM: u8 = 3;
const SETTINGS: u8 = 4;
const ACK: u8 = 1;
const WINDOW_UPDATE: u8 = 8;
/// SETTINGS_INITIAL_WINDOW_SIZE, and its value until the peer says otherwise.
const INITIAL_WINDOW_SIZE: u16 = 4;
const DEFAULT_WINDOW: i64 = 65_535;
/// The largest flow-control window (2^31 - 1).
const MAX_WINDOW: i64 = 0x7fff_ffff;
/// The longest frame the merger makes up: a PRIORITY frame (5 bytes of payload).
const SYNTH: usize = HEAD + 5;
/// SETTINGS_MAX_FRAME_SIZE.
const MAX_FRAME_SIZE: u16 = 5;
/// The length h2 is shown for a frame over [`WIRE_MAX`]: over any limit it may have.
const TOO_LONG: [u8; 3] = [0xff; 3];

pub(crate) fn frame_len(h: &[u8]) -> usize {
    (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2])
}

/// The stream a frame header names (without the reserved bit, which h2 ignores).
pub(crate) fn stream_of(h: &[u8]) -> u32 {
    u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff
}

/// What the merger knows of a stream's response body, which h2 holds DATA frames to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The transfer has not taken the response head: frames pass as they come.
    Unknown,
    /// No content-length: h2 takes any length, and runs join freely.
    Open,
    /// The body's length (content-length, 0 for HEAD): h2 refuses a DATA frame that goes
    /// over it, and one with END_STREAM that ends the body short of it.
    Length(u64),
}

impl Limit {
    /// The limit h2 holds a response's DATA to: a HEAD request's body is empty, otherwise
    /// the first content-length (h2 refuses a response with one it cannot parse, or with
    /// two that differ), for every status.
    pub fn of_response(head_request: bool, headers: &http::HeaderMap) -> Limit {
        if head_request {
            return Limit::Length(0);
        }
        match headers.get(http::header::CONTENT_LENGTH) {
            None => Limit::Open,
            Some(v) => match std::str::from_utf8(v.as_bytes()).map(str::parse::<u64>) {
                Ok(Ok(n)) => Limit::Length(n),
                _ => Limit::Unknown,
            },
        }
    }
}

/// A stream the merger keeps count of.
#[derive(Debug, Clone, Copy)]
struct Tracked {
    id: u32,
    limit: Limit,
    /// DATA payload bytes handed to h2 for the stream since it was tracked.
    passed: u64,
    /// The stream's send window beyond the peer's initial window: the WINDOW_UPDATE
    /// increments handed to h2 less the DATA bytes h2 wrote ([`Merger::wrote`]).
    window: i64,
}

/// How the frame at the front of the buffer goes to h2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    /// As it comes, even before it is complete.
    Pass,
    /// A DATA frame that may start a run ([`Merger::may_start`]).
    Run,
    /// A DATA frame with END_STREAM that may end the body short of its length: its bytes
    /// first, then an empty frame with END_STREAM ([`Merger::splits`]).
    Split,
    /// A WINDOW_UPDATE on a tracked stream, checked against the stream's send window.
    Window,
    /// The peer's SETTINGS, read for its initial window.
    Settings,
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
    /// The joined header of the run being handed out (or a frame made up whole), from
    /// `head_at` to `head_end`.
    head: [u8; SYNTH],
    head_at: usize,
    head_end: usize,
    /// The empty DATA frame with END_STREAM that follows a split frame, from `tail_at` on.
    tail: [u8; HEAD],
    tail_at: usize,
    /// Bytes of a frame passed on unchanged still to hand out.
    raw: usize,
    /// Payload bytes of the run's current frame still to hand out.
    frame: usize,
    /// Where the run being handed out ends; the headers before it are skipped.
    run_end: usize,
    /// Frames joined into others so far.
    pub joined: u64,
    /// The streams runs may be joined on, once their limit is known: the open streams
    /// whose transfers took them up (a handful; searched in order).
    streams: Vec<Tracked>,
    /// The peer's SETTINGS_INITIAL_WINDOW_SIZE: every stream's send window starts there.
    peer_window: i64,
    /// Streams a WINDOW_UPDATE overflowed, with its increment, until their transfers let
    /// them go.
    overflowed: Vec<(u32, u32)>,
    /// The frame header being read out of what h2 writes, and the payload bytes still to
    /// skip there.
    out_head: [u8; HEAD],
    out_have: usize,
    out_skip: usize,
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
            head: [0; SYNTH],
            head_at: 0,
            head_end: 0,
            tail: [0; HEAD],
            tail_at: HEAD,
            raw: 0,
            frame: 0,
            run_end: 0,
            joined: 0,
            streams: Vec::new(),
            peer_window: DEFAULT_WINDOW,
            overflowed: Vec::new(),
            out_head: [0; HEAD],
            out_have: 0,
            out_skip: 0,
        }
    }

    /// A transfer opened stream `id`: count what is handed to h2 for it, joining nothing
    /// before [`Merger::set_limit`].
    pub fn track(&mut self, id: u32) {
        self.untrack(id);
        self.streams.push(Tracked {
            id,
            limit: Limit::Unknown,
            passed: 0,
            window: 0,
        });
    }

    /// The transfer took stream `id`'s response head: its body's limit. Nothing for a
    /// stream that ended or was given up in the meantime.
    pub fn set_limit(&mut self, id: u32, limit: Limit) {
        if let Some(t) = self.streams.iter_mut().find(|t| t.id == id) {
            t.limit = limit;
        }
    }

    /// Stream `id` ended or its transfer left it: its frames pass as they come.
    pub fn untrack(&mut self, id: u32) {
        if let Some(i) = self.streams.iter().position(|t| t.id == id) {
            self.streams.swap_remove(i);
        }
        self.overflowed.retain(|o| o.0 != id);
    }

    /// Did a WINDOW_UPDATE overflow stream `id`'s send window? Its increment.
    ///
    /// nghttp2 refuses such a frame (curl's invalid-frame callback fails the stream), where
    /// h2 takes it without a look once the request is sent. So the merger checks the
    /// tracked streams' windows itself and hands h2, in the frame's place, a PRIORITY frame
    /// making the stream depend on itself: h2 resets the stream as nghttp2 does (a stream
    /// error, the frames after it on the stream ignored, what came before kept for the
    /// transfer), and the transfer reports it as curl does.
    pub fn overflow(&self, id: u32) -> Option<u32> {
        self.overflowed.iter().find(|o| o.0 == id).map(|o| o.1)
    }

    /// h2 wrote `data` (its frames as it made them, in order, from the first SETTINGS on):
    /// the DATA sent on a tracked stream takes from its send window.
    pub fn wrote(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.out_skip > 0 {
                let n = self.out_skip.min(data.len());
                self.out_skip -= n;
                data = &data[n..];
                continue;
            }
            let n = (HEAD - self.out_have).min(data.len());
            self.out_head[self.out_have..self.out_have + n].copy_from_slice(&data[..n]);
            self.out_have += n;
            data = &data[n..];
            if self.out_have < HEAD {
                break;
            }
            self.out_have = 0;
            let h = self.out_head;
            self.out_skip = frame_len(&h);
            if h[3] == DATA {
                let id = stream_of(&h);
                if let Some(t) = self.streams.iter_mut().find(|t| t.id == id) {
                    t.window -= self.out_skip as i64;
                }
            }
        }
    }

    /// The streams tracked.
    pub fn tracked(&self) -> usize {
        self.streams.len()
    }

    fn find(&self, id: u32) -> Option<&Tracked> {
        self.streams.iter().find(|t| t.id == id)
    }

    /// Would h2 take a DATA frame of `len` bytes (END_STREAM with `end`) on `t` after
    /// `more` bytes handed out beyond what `t` counts?
    fn takes(t: &Tracked, more: usize, len: usize, end: bool) -> bool {
        match t.limit {
            Limit::Unknown => false,
            Limit::Open => true,
            Limit::Length(l) => {
                let after = t.passed + more as u64 + len as u64;
                after <= l && (!end || after == l)
            }
        }
    }

    /// The frame `h` is decided, with `payload` DATA bytes for h2 (None: not known): count
    /// a tracked stream's DATA, and forget the stream when the frame ends it (END_STREAM,
    /// RST_STREAM), is one h2 refuses, or has a payload not known.
    fn passed(&mut self, h: &[u8], payload: Option<usize>) {
        let id = stream_of(h);
        let Some(i) = self.streams.iter().position(|t| t.id == id) else {
            return;
        };
        let end = h[4] & END_STREAM != 0;
        let gone = match (h[3], payload) {
            (DATA, None) => true,
            (DATA, Some(n)) => {
                let t = &self.streams[i];
                let refused = matches!(t.limit, Limit::Length(_)) && !Self::takes(t, 0, n, end);
                self.streams[i].passed += n as u64;
                end || refused
            }
            (HEADERS, _) => end,
            (RST_STREAM, _) => true,
            _ => false,
        };
        if gone {
            self.streams.swap_remove(i);
        }
    }

    /// The DATA bytes h2 gets of the frame `h` at `pos`: a PADDED frame's without its pad
    /// length and padding (None while the pad length is not in, or when h2 refuses it).
    fn payload(&self, h: &[u8]) -> Option<usize> {
        let len = frame_len(h);
        if h[4] & PADDED == 0 {
            return Some(len);
        }
        let pad = usize::from(*self.buf[..self.end].get(self.pos + HEAD)?);
        (len > pad).then(|| len - 1 - pad)
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

    /// Is the frame `h` one that may join a run, as far as the frame goes?
    fn joinable(&self, h: &[u8]) -> bool {
        h[3] == DATA
            && h[4] & !END_STREAM == 0
            && h[5..9] != [0, 0, 0, 0]
            && h[5..9] != [0x80, 0, 0, 0]
            && frame_len(h) <= self.wire_max
    }

    /// May the frame `h` start a run: joinable, on a stream with a known limit that h2
    /// takes it within? Anything else passes as it comes.
    fn may_start(&self, h: &[u8]) -> bool {
        self.joinable(h)
            && self
                .find(stream_of(h))
                .is_some_and(|t| Self::takes(t, 0, frame_len(h), h[4] & END_STREAM != 0))
    }

    /// Is `h` a DATA frame with END_STREAM and bytes (no padding, no other flag) that may
    /// end its tracked stream's body short of the length: the limit is not known yet, or
    /// the frame stays within it without meeting it? h2 refuses such a frame before it
    /// queues its bytes, where nghttp2 hands them to curl, which writes them before the
    /// stream is reset. Split in two (the bytes, then an empty frame with END_STREAM), the
    /// bytes are queued for the transfer and the empty frame is refused; flow control
    /// counts the same bytes.
    fn splits(&self, h: &[u8]) -> bool {
        let len = frame_len(h);
        h[3] == DATA
            && h[4] == END_STREAM
            && len > 0
            && len <= self.wire_max
            && self.find(stream_of(h)).is_some_and(|t| match t.limit {
                Limit::Unknown => true,
                Limit::Open => false,
                Limit::Length(l) => t.passed + (len as u64) < l,
            })
    }

    /// How the frame `h` at the front goes to h2.
    fn action(&self, h: &[u8]) -> Act {
        let len = frame_len(h);
        if len > self.wire_max {
            Act::Pass
        } else if self.may_start(h) {
            Act::Run
        } else if self.splits(h) {
            Act::Split
        } else if h[3] == WINDOW_UPDATE && len == 4 && self.find(stream_of(h)).is_some() {
            Act::Window
        } else if h[3] == SETTINGS && h[4] & ACK == 0 && stream_of(h) == 0 && len.is_multiple_of(6)
        {
            Act::Settings
        } else {
            Act::Pass
        }
    }

    /// Would [`Merger::read`] hand out anything without more input?
    pub fn has_output(&self) -> bool {
        if self.head_at < self.head_end
            || self.frame > 0
            || self.pos < self.run_end
            || self.tail_at < HEAD
        {
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
        if self.awaits_pad(h, avail) {
            return false;
        }
        self.action(h) == Act::Pass || avail >= HEAD + frame_len(h) || self.eof
    }

    /// Is `h` a PADDED DATA frame on a tracked stream whose pad length is not in yet
    /// (`avail` bytes from its header on, more to come)? It waits for that byte: what h2
    /// gets of it is counted against the stream's length, where passing it not knowing
    /// would forget the stream, and a later frame ending the body short would no longer
    /// be split for its bytes to reach the transfer as curl's do.
    fn awaits_pad(&self, h: &[u8], avail: usize) -> bool {
        !self.eof
            && avail <= HEAD
            && h[3] == DATA
            && h[4] & PADDED != 0
            && frame_len(h) > 0
            && frame_len(h) <= self.wire_max
            && self.find(stream_of(h)).is_some()
    }

    /// Hand out up to `room` bytes to `put`, in one or more pieces; how many. 0 (with room)
    /// when more input is needed.
    pub fn read(&mut self, room: usize, mut put: impl FnMut(&[u8])) -> usize {
        let mut given = 0;
        while given < room {
            let left = room - given;
            if self.head_at < self.head_end {
                let n = (self.head_end - self.head_at).min(left);
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
            if self.tail_at < HEAD {
                let n = (HEAD - self.tail_at).min(left);
                put(&self.tail[self.tail_at..self.tail_at + n]);
                self.tail_at += n;
                given += n;
                continue;
            }
            if !self.start_frame() {
                break;
            }
        }
        self.settle();
        given
    }

    /// The WINDOW_UPDATE `h`, whole at the front, on a tracked stream: within the stream's
    /// send window it passes as it came; one that overflows it (nghttp2's check: the
    /// window and the increment over 2^31 - 1, whatever the stream's state) goes to h2 as
    /// a PRIORITY frame making the stream depend on itself, which h2 resets the stream for
    /// ([`Merger::overflow`]). An increment of 0 passes, for h2 to refuse.
    fn window_update(&mut self, h: &[u8; HEAD]) {
        let id = stream_of(h);
        let p = &self.buf[self.pos + HEAD..self.pos + HEAD + 4];
        let inc = u32::from_be_bytes([p[0], p[1], p[2], p[3]]) & 0x7fff_ffff;
        let peer = self.peer_window;
        let i = self
            .streams
            .iter()
            .position(|t| t.id == id)
            .expect("tracked");
        let t = &mut self.streams[i];
        if inc == 0 || peer + t.window + i64::from(inc) <= MAX_WINDOW {
            t.window += i64::from(inc);
            self.raw = HEAD + 4;
            return;
        }
        self.streams.swap_remove(i);
        self.overflowed.push((id, inc));
        let s = id.to_be_bytes();
        self.head = [
            0, 0, 5, PRIORITY, 0, s[0], s[1], s[2], s[3], s[0], s[1], s[2], s[3], 0,
        ];
        self.head_at = 0;
        self.head_end = SYNTH;
        self.pos += HEAD + 4;
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
            self.head[..HEAD].copy_from_slice(&h);
            self.head[..3].copy_from_slice(&TOO_LONG);
            self.head_at = 0;
            self.head_end = HEAD;
            self.pos += HEAD;
            self.raw = len;
            return true;
        }
        if self.awaits_pad(&h, avail) {
            return false;
        }
        let act = self.action(&h);
        if act != Act::Pass && avail < HEAD + len {
            if !self.eof {
                return false;
            }
            // The input ended inside the frame: it goes as it is.
            self.passed(&h, self.payload(&h));
            self.raw = HEAD + len;
            return true;
        }
        match act {
            Act::Run => {}
            Act::Pass => {
                self.passed(&h, self.payload(&h));
                self.raw = HEAD + len;
                return true;
            }
            Act::Settings => {
                let p = &self.buf[self.pos + HEAD..self.pos + HEAD + len];
                for e in p.chunks(6) {
                    if u16::from_be_bytes([e[0], e[1]]) == INITIAL_WINDOW_SIZE {
                        self.peer_window = i64::from(u32::from_be_bytes([e[2], e[3], e[4], e[5]]));
                    }
                }
                self.raw = HEAD + len;
                return true;
            }
            Act::Window => {
                self.window_update(&h);
                return true;
            }
            Act::Split => {
                let id = stream_of(&h);
                let mut bytes = h;
                bytes[4] = 0;
                self.tail = [0, 0, 0, DATA, END_STREAM, h[5], h[6], h[7], h[8]];
                self.passed(&bytes, Some(len));
                let tail = self.tail;
                self.passed(&tail, Some(0));
                debug_assert!(self.find(id).is_none(), "the empty frame is refused");
                self.head[..HEAD].copy_from_slice(&bytes);
                self.head_at = 0;
                self.head_end = HEAD;
                self.tail_at = 0;
                self.frame = len;
                self.pos += HEAD;
                self.run_end = self.pos + len;
                return true;
            }
        }
        let t = *self.find(stream_of(&h)).expect("a run's stream is tracked");
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
                || !Self::takes(&t, total, glen, g[4] & END_STREAM != 0)
            {
                break;
            }
            total += glen;
            flags = g[4];
            next += HEAD + glen;
            count += 1;
        }
        let mut run = h;
        run[4] = flags;
        self.passed(&run, Some(total));
        if count == 1 {
            self.raw = HEAD + len;
            return true;
        }
        self.joined += count - 1;
        self.head[..HEAD].copy_from_slice(&[
            (total >> 16) as u8,
            (total >> 8) as u8,
            total as u8,
            DATA,
            flags,
            h[5],
            h[6],
            h[7],
            h[8],
        ]);
        self.head_at = 0;
        self.head_end = HEAD;
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

/// The streams a test run tracks, each with the limit h2 holds its DATA to, told to the
/// merger once `known_at` bytes of input were received (before that, the limit is
/// [`Limit::Unknown`], as before a transfer takes the response head). For tests and the
/// fuzz target.
#[derive(Debug, Clone, Default)]
pub struct Tracking {
    pub limits: Vec<(u32, Limit)>,
    pub known_at: usize,
}

impl Tracking {
    /// Every stream of `ids` tracked, without a limit, from the start.
    pub fn open(ids: &[u32]) -> Tracking {
        Tracking {
            limits: ids.iter().map(|&id| (id, Limit::Open)).collect(),
            known_at: 0,
        }
    }
}

/// Feed `wire` through a merger in reads of at most `piece` bytes, taking the output in
/// reads of at most `take` bytes, then end the input; everything handed out. For tests
/// and the fuzz target.
pub fn run_split(
    wire: &[u8],
    wire_max: usize,
    max: usize,
    piece: usize,
    take: usize,
    tracking: &Tracking,
) -> Vec<u8> {
    let mut m = Merger::new(wire_max, max);
    for (id, _) in &tracking.limits {
        m.track(*id);
    }
    let mut known = false;
    let mut out = Vec::new();
    let mut input = wire;
    loop {
        if !known && wire.len() - input.len() >= tracking.known_at {
            known = true;
            for (id, limit) in &tracking.limits {
                m.set_limit(*id, *limit);
            }
        }
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
    assert!(m.tracked() <= tracking.limits.len());
    out
}

/// What h2 takes of each stream of `limits` that has a [`Limit::Length`], frame by frame:
/// the DATA bytes before the frame that overflows the length or ends the stream short of
/// it, and whether such a frame came. With `curl`, what curl (nghttp2) writes instead: the
/// bytes of a frame that ends the stream short are taken before it is refused (for a
/// frame without padding: those are the frames the merger splits). A stream ends with a
/// PRIORITY frame making it depend on itself (h2 resets it), and for curl with a
/// WINDOW_UPDATE overflowing its send window (the peer's initial window and the increments
/// so far). Frames after the first incomplete one, or after a PADDED one h2 refuses as
/// malformed, are not looked at.
fn taken(fs: &[Frame], limits: &[(u32, Limit)], curl: bool) -> Vec<(u32, Vec<u8>, bool)> {
    let mut out: Vec<(u32, Vec<u8>, bool)> = Vec::new();
    // Stream, length, ended, send window beyond the peer's initial one.
    let mut state: Vec<(u32, u64, bool, i64)> = Vec::new();
    for (id, limit) in limits {
        if let Limit::Length(l) = limit {
            out.push((*id, Vec::new(), false));
            state.push((*id, *l, false, 0));
        }
    }
    let mut peer = DEFAULT_WINDOW;
    for f in fs {
        if f.4.len() != f.3 {
            break;
        }
        if f.0 == SETTINGS && f.1 & ACK == 0 && f.2 == 0 && f.3.is_multiple_of(6) {
            for e in f.4.chunks(6) {
                if u16::from_be_bytes([e[0], e[1]]) == INITIAL_WINDOW_SIZE {
                    peer = i64::from(u32::from_be_bytes([e[2], e[3], e[4], e[5]]));
                }
            }
        }
        let Some(i) = state.iter().position(|s| s.0 == f.2 & 0x7fff_ffff) else {
            continue;
        };
        if state[i].2 {
            continue;
        }
        let end = f.1 & END_STREAM != 0;
        match f.0 {
            DATA => {
                let payload = if f.1 & PADDED != 0 {
                    match f.4.split_first() {
                        Some((&pad, rest)) if usize::from(pad) <= rest.len() => {
                            &rest[..rest.len() - usize::from(pad)]
                        }
                        _ => break,
                    }
                } else {
                    &f.4[..]
                };
                let had = out[i].1.len() as u64;
                let after = had + payload.len() as u64;
                if curl && f.1 == END_STREAM && after < state[i].1 {
                    out[i].1.extend_from_slice(payload);
                    out[i].2 = true;
                    state[i].2 = true;
                } else if after > state[i].1 || (end && after != state[i].1) {
                    out[i].2 = true;
                    state[i].2 = true;
                } else {
                    out[i].1.extend_from_slice(payload);
                    state[i].2 = end;
                }
            }
            HEADERS => state[i].2 |= end,
            RST_STREAM => state[i].2 = true,
            PRIORITY => state[i].2 |= f.4.len() == 5 && f.4[..4] == f.2.to_be_bytes(),
            WINDOW_UPDATE if curl && f.3 == 4 => {
                let inc = u32::from_be_bytes([f.4[0], f.4[1], f.4[2], f.4[3]]) & 0x7fff_ffff;
                let inc = i64::from(inc);
                if inc > 0 && peer + state[i].3 + inc > MAX_WINDOW {
                    state[i].2 = true;
                } else {
                    state[i].3 += inc;
                }
            }
            _ => {}
        }
    }
    out
}

/// Is `out` a valid re-framing of `wire` by a merger that tracks the streams of
/// `tracking`? The same frames in the same order once consecutive DATA frames without
/// padding are flattened into one (the same DATA bytes per stream, END_STREAM after the
/// same bytes, every other frame and every padded one unchanged), but for a WINDOW_UPDATE
/// on a tracked stream that overflows its send window (the peer's initial window and the
/// increments so far: nothing is sent in these tests), shown as a PRIORITY frame making
/// the stream depend on itself; every frame that is not one of the input's a DATA frame
/// within `max` on a tracked stream, joined on one with a limit, or a frame with
/// END_STREAM split into its bytes and an empty frame with END_STREAM; for a stream with a
/// length, h2 takes the bytes curl would take of the input and refuses a frame where it
/// does; the first frame over `wire_max` shown with a length over any limit, and nothing
/// compared after it. Panics with the first difference. For tests and the fuzz target.
pub fn check_reframing(wire: &[u8], out: &[u8], wire_max: usize, max: usize, tracking: &Tracking) {
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
    let (fa, fb) = (flat(&a), flat(&b));
    assert_eq!(fa.len(), fb.len(), "the same frames: {fa:?} / {fb:?}");
    let tracked = |id: u32| tracking.limits.iter().find(|t| t.0 == id).map(|t| t.1);
    let mut peer = DEFAULT_WINDOW;
    let mut windows: Vec<(u32, i64)> = Vec::new();
    for (x, y) in fa.iter().zip(&fb) {
        if x.0 == SETTINGS && x.1 & ACK == 0 && x.2 == 0 && x.3.len().is_multiple_of(6) {
            for e in x.3.chunks(6) {
                if u16::from_be_bytes([e[0], e[1]]) == INITIAL_WINDOW_SIZE {
                    peer = i64::from(u32::from_be_bytes([e[2], e[3], e[4], e[5]]));
                }
            }
        }
        if x.0 == WINDOW_UPDATE && x.3.len() == 4 {
            let inc = i64::from(u32::from_be_bytes([x.3[0], x.3[1], x.3[2], x.3[3]]) & 0x7fff_ffff);
            let id = x.2 & 0x7fff_ffff;
            let w = match windows.iter_mut().find(|w| w.0 == id) {
                Some(w) => w,
                None => {
                    windows.push((id, 0));
                    windows.last_mut().expect("pushed")
                }
            };
            if y.0 == PRIORITY {
                let s = id.to_be_bytes();
                let mut dep = s.to_vec();
                dep.push(0);
                assert_eq!(
                    (y.1, y.2, &y.3),
                    (0, id, &dep),
                    "the PRIORITY shown for {x:?}"
                );
                assert!(
                    tracked(id).is_some(),
                    "a WINDOW_UPDATE on an untracked stream"
                );
                assert!(
                    inc > 0 && peer + w.1 + inc > MAX_WINDOW,
                    "no overflow: {x:?}"
                );
                continue;
            }
            w.1 += inc;
        }
        assert_eq!(x, y, "the same frames, DATA bytes and END_STREAM");
    }
    for f in b.iter().filter(|f| !a.contains(f)) {
        if f.0 == PRIORITY {
            continue;
        }
        assert!(plain(f), "a frame that is not the input's: {f:?}");
        assert!(f.2 & 0x7fff_ffff != 0, "DATA joined on stream 0");
        assert!(f.4.len() <= max, "a joined frame of {} bytes", f.4.len());
        let limit = tracked(f.2 & 0x7fff_ffff);
        let split = (f.1 == 0 && a.contains(&(f.0, END_STREAM, f.2, f.3, f.4.clone())))
            || (f.1 == END_STREAM && f.3 == 0);
        assert!(
            matches!(limit, Some(Limit::Open | Limit::Length(_))) || (split && limit.is_some()),
            "joined on stream {} with limit {limit:?}",
            f.2
        );
    }
    assert_eq!(
        taken(&a, &tracking.limits, true),
        taken(&b, &tracking.limits, false),
        "h2 takes the bytes of a stream with a length that curl takes"
    );
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
    fn two_reads(
        wire: &[u8],
        (wire_max, max): (usize, usize),
        cut: usize,
        take: usize,
        t: &Tracking,
    ) -> Vec<u8> {
        let mut m = Merger::new(wire_max, max);
        for &(id, limit) in &t.limits {
            m.track(id);
            m.set_limit(id, limit);
        }
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
        merged_tracking(wire, wire_max, max, &Tracking::open(&ids(wire)))
    }

    /// The streams of the frames in `wire`.
    fn ids(wire: &[u8]) -> Vec<u32> {
        let mut ids: Vec<u32> = frames(wire).iter().map(|f| f.2 & 0x7fff_ffff).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    fn merged_tracking(wire: &[u8], wire_max: usize, max: usize, t: &Tracking) -> Vec<u8> {
        let whole = run_split(wire, wire_max, max, usize::MAX, usize::MAX, t);
        check_reframing(wire, &whole, wire_max, max, t);
        for take in [1, 2, 5, 9, 10, 17] {
            let out = run_split(wire, wire_max, max, usize::MAX, take, t);
            assert_eq!(out, whole, "takes of {take}");
        }
        for piece in 1..=wire.len() {
            for take in [3, usize::MAX] {
                let out = run_split(wire, wire_max, max, piece, take, t);
                check_reframing(wire, &out, wire_max, max, t);
            }
        }
        for cut in 0..=wire.len() {
            let out = two_reads(wire, (wire_max, max), cut, usize::MAX, t);
            check_reframing(wire, &out, wire_max, max, t);
            assert_eq!(
                two_reads(wire, (wire_max, max), cut, 4, t),
                out,
                "cut at {cut}"
            );
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
        // The stream ended: what comes after it (which h2 refuses) passes as it came.
        let want = cat(&[
            data(1, true, b"abcd"),
            data(1, false, b"ef"),
            data(1, false, b"gh"),
        ]);
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
        m.track(1);
        m.set_limit(1, Limit::Open);
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
        m.track(1);
        m.set_limit(1, Limit::Open);
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

    fn lengths(limits: &[(u32, u64)]) -> Tracking {
        Tracking {
            limits: limits
                .iter()
                .map(|&(id, l)| (id, Limit::Length(l)))
                .collect(),
            known_at: 0,
        }
    }

    #[test]
    fn nothing_joins_on_a_stream_not_tracked_or_without_a_known_limit() {
        let wire = cat(&[data(1, false, b"ab"), data(1, false, b"cd")]);
        let none = Tracking::default();
        assert_eq!(merged_tracking(&wire, 1000, 1000, &none), wire);
        let unknown = Tracking {
            limits: vec![(1, Limit::Unknown)],
            known_at: 0,
        };
        assert_eq!(merged_tracking(&wire, 1000, 1000, &unknown), wire);
    }

    #[test]
    fn a_run_stops_before_the_frame_that_overflows_the_length() {
        let wire = cat(&[
            data(1, false, b"aaaa"),
            data(1, false, b"bbbb"),
            data(1, false, b"cccc"),
            data(1, false, b"d"),
            data(1, true, b"e"),
        ]);
        // h2 takes "aaaabbbb" and refuses "cccc": what comes after passes as it came.
        let want = cat(&[
            data(1, false, b"aaaabbbb"),
            data(1, false, b"cccc"),
            data(1, false, b"d"),
            data(1, true, b"e"),
        ]);
        assert_eq!(
            merged_tracking(&wire, 1000, 1000, &lengths(&[(1, 10)])),
            want
        );
    }

    #[test]
    fn a_length_exactly_met_joins_up_to_end_stream() {
        let wire = cat(&[
            data(1, false, b"aaaa"),
            data(1, false, b"bbbb"),
            data(1, true, b"cc"),
        ]);
        let t = lengths(&[(1, 10)]);
        assert_eq!(
            merged_tracking(&wire, 1000, 1000, &t),
            data(1, true, b"aaaabbbbcc")
        );
        // One byte more allowed: the END_STREAM frame ends the body short. Its bytes go
        // first, for h2 to queue them as nghttp2 hands them to curl; h2 refuses the empty
        // frame with END_STREAM after them.
        let want = cat(&[
            data(1, false, b"aaaabbbb"),
            data(1, false, b"cc"),
            data(1, true, b""),
        ]);
        assert_eq!(
            merged_tracking(&wire, 1000, 1000, &lengths(&[(1, 11)])),
            want
        );
    }

    #[test]
    fn a_limit_known_late_counts_what_passed_before() {
        let wire = cat(&[
            data(1, false, b"aaaa"),
            data(1, false, b"bbbb"),
            data(1, false, b"cccc"),
            data(1, false, b"dddd"),
            data(1, false, b"eeee"),
        ]);
        let mut m = Merger::new(1000, 1000);
        m.track(1);
        let mut out = Vec::new();
        m.spare()[..26].copy_from_slice(&wire[..26]);
        m.filled(26);
        while m.read(usize::MAX, |b| out.extend_from_slice(b)) > 0 {}
        assert_eq!(out, wire[..26], "nothing joined before the limit is known");
        m.set_limit(1, Limit::Length(16));
        m.spare()[..39].copy_from_slice(&wire[26..]);
        m.filled(39);
        out.clear();
        while m.read(usize::MAX, |b| out.extend_from_slice(b)) > 0 {}
        let want = cat(&[data(1, false, b"ccccdddd"), data(1, false, b"eeee")]);
        assert_eq!(out, want, "8 bytes passed already, 8 more join");
        assert_eq!(m.tracked(), 0, "the overflow ends the tracking");
        // The same whatever the reads, with the limit told after the first two frames.
        let t = Tracking {
            limits: vec![(1, Limit::Length(16))],
            known_at: 26,
        };
        for piece in 1..=wire.len() {
            let out = run_split(&wire, 1000, 1000, piece, usize::MAX, &t);
            check_reframing(&wire, &out, 1000, 1000, &t);
        }
    }

    #[test]
    fn two_streams_interleaved_one_overflowing() {
        let wire = cat(&[
            data(1, false, b"aaaa"),
            data(1, false, b"bbbb"),
            data(3, false, b"xx"),
            data(3, false, b"yy"),
            data(1, false, b"cccc"),
            data(1, false, b"dddd"),
            data(3, false, b"zz"),
            data(3, true, b"!"),
        ]);
        let t = Tracking {
            limits: vec![(1, Limit::Length(8)), (3, Limit::Open)],
            known_at: 0,
        };
        let want = cat(&[
            data(1, false, b"aaaabbbb"),
            data(3, false, b"xxyy"),
            data(1, false, b"cccc"),
            data(1, false, b"dddd"),
            data(3, true, b"zz!"),
        ]);
        assert_eq!(merged_tracking(&wire, 1000, 1000, &t), want);
    }

    #[test]
    fn padding_is_not_counted_against_the_length() {
        // PADDED: pad length 2, "xy", two bytes of padding; h2 counts 2 bytes.
        let padded = frame(DATA, 0x8, 1, b"\x02xy\0\0");
        let wire = cat(&[
            data(1, false, b"aaaa"),
            padded.clone(),
            data(1, false, b"bb"),
            data(1, true, b"cc"),
        ]);
        let want = cat(&[data(1, false, b"aaaa"), padded, data(1, true, b"bbcc")]);
        assert_eq!(
            merged_tracking(&wire, 1000, 1000, &lengths(&[(1, 10)])),
            want
        );
    }

    #[test]
    fn a_padded_frame_waits_for_its_pad_length_to_be_counted() {
        // "def", then "x" padded by one byte, then "end" ending the body short of the
        // length: whatever the cut (the padded frame's header alone among them), h2 gets
        // all seven bytes before it refuses the end, as curl writes them.
        let padded = frame(DATA, PADDED, 1, b"\x01x\x00");
        let wire = cat(&[
            data(1, false, b"def"),
            padded.clone(),
            data(1, true, b"end"),
        ]);
        let t = lengths(&[(1, 1008)]);
        merged_tracking(&wire, 100, 100, &t);
        let cut = data(1, false, b"def").len() + HEAD;
        let out = two_reads(&wire, (100, 100), cut, usize::MAX, &t);
        let want = cat(&[
            data(1, false, b"def"),
            padded,
            data(1, false, b"end"),
            data(1, true, b""),
        ]);
        assert_eq!(out, want, "the last frame split after the pad length came");
    }

    #[test]
    fn the_reserved_bit_of_a_stream_id_names_the_same_stream() {
        // h2 ignores the reserved bit, as RFC 9113 says: a frame with it set is on the
        // stream the other 31 bits name, tracked and split as that stream's.
        let mut end = data(1, true, b"e");
        end[5] |= 0x80;
        let t = Tracking {
            limits: vec![(1, Limit::Unknown)],
            known_at: 0,
        };
        let out = merged_tracking(&end, 100, 100, &t);
        let mut want = cat(&[data(1, false, b"e"), data(1, true, b"")]);
        want[5] |= 0x80;
        want[HEAD + 1 + 5] |= 0x80;
        assert_eq!(out, want);
    }

    #[test]
    fn a_stream_ends_its_tracking() {
        let mut m = Merger::new(1000, 1000);
        for id in [1, 3, 5, 7] {
            m.track(id);
            m.set_limit(id, Limit::Open);
        }
        let wire = cat(&[
            frame(RST_STREAM, 0, 1, &[0, 0, 0, 8]),
            frame(HEADERS, 5, 3, b"\x88"),
            data(5, true, b""),
            data(7, false, b"still"),
        ]);
        m.spare()[..wire.len()].copy_from_slice(&wire);
        m.filled(wire.len());
        while m.read(usize::MAX, |_| {}) > 0 {}
        assert_eq!(m.tracked(), 1, "RST_STREAM, END_STREAM on HEADERS or DATA");
        m.untrack(7);
        assert_eq!(m.tracked(), 0);
        m.set_limit(7, Limit::Open);
        assert_eq!(m.tracked(), 0, "a limit for a stream gone is dropped");
    }

    #[test]
    fn the_limit_of_a_response() {
        let mut h = http::HeaderMap::new();
        assert_eq!(Limit::of_response(false, &h), Limit::Open);
        assert_eq!(Limit::of_response(true, &h), Limit::Length(0));
        h.insert("content-length", http::HeaderValue::from_static("12"));
        assert_eq!(Limit::of_response(false, &h), Limit::Length(12));
        assert_eq!(Limit::of_response(true, &h), Limit::Length(0));
        h.insert("content-length", http::HeaderValue::from_static("1x"));
        assert_eq!(Limit::of_response(false, &h), Limit::Unknown);
    }

    #[test]
    fn a_head_response_joins_only_empty_frames() {
        let wire = cat(&[
            data(1, false, b""),
            data(1, false, b""),
            data(1, false, b"x"),
            data(1, false, b"y"),
        ]);
        let want = cat(&[
            data(1, false, b""),
            data(1, false, b"x"),
            data(1, false, b"y"),
        ]);
        assert_eq!(
            merged_tracking(&wire, 1000, 1000, &lengths(&[(1, 0)])),
            want
        );
    }

    #[test]
    fn an_end_stream_frame_is_split_while_the_limit_is_not_known() {
        // The head not taken yet: the frame may end the body short of a content-length,
        // which h2 would refuse before queueing its bytes.
        let wire = cat(&[data(1, false, b"ab"), data(1, true, b"cd")]);
        let unknown = Tracking {
            limits: vec![(1, Limit::Unknown)],
            known_at: 0,
        };
        let want = cat(&[
            data(1, false, b"ab"),
            data(1, false, b"cd"),
            data(1, true, b""),
        ]);
        assert_eq!(merged_tracking(&wire, 1000, 1000, &unknown), want);
        // Not on a stream nobody tracks, nor without a length, nor when it meets it, nor an
        // empty one, nor one that overflows (refused whole by both).
        assert_eq!(
            merged_tracking(&wire, 1000, 1000, &Tracking::default()),
            wire
        );
        let joined = data(1, true, b"abcd");
        assert_eq!(merged(&wire, 1000), joined);
        assert_eq!(
            merged_tracking(&wire, 1000, 1000, &lengths(&[(1, 4)])),
            joined
        );
        let empty = cat(&[data(1, false, b"ab"), data(1, true, b"")]);
        assert_eq!(
            merged_tracking(&empty, 1000, 1000, &lengths(&[(1, 4)])),
            empty
        );
        let over = cat(&[data(1, false, b"ab"), data(1, true, b"cd")]);
        let want = cat(&[data(1, false, b"ab"), data(1, true, b"cd")]);
        assert_eq!(
            merged_tracking(&over, 1000, 1000, &lengths(&[(1, 3)])),
            want
        );
        // A padded one passes as it came (h2 refuses it whole).
        let padded = cat(&[data(1, false, b"ab"), frame(DATA, 9, 1, b"\x01cd\0")]);
        assert_eq!(
            merged_tracking(&padded, 1000, 1000, &lengths(&[(1, 9)])),
            padded
        );
    }

    fn window_update(stream: u32, inc: u32) -> Vec<u8> {
        frame(WINDOW_UPDATE, 0, stream, &inc.to_be_bytes())
    }

    fn priority_on_itself(stream: u32) -> Vec<u8> {
        let mut p = stream.to_be_bytes().to_vec();
        p.push(0);
        frame(PRIORITY, 0, stream, &p)
    }

    fn initial_window(n: u32) -> Vec<u8> {
        let mut p = INITIAL_WINDOW_SIZE.to_be_bytes().to_vec();
        p.extend(n.to_be_bytes());
        frame(SETTINGS, 0, 0, &p)
    }

    #[test]
    fn a_window_update_overflowing_a_tracked_stream_is_shown_as_priority_on_itself() {
        let max = 0x7fff_ffff;
        let t = Tracking {
            limits: vec![(1, Limit::Unknown), (3, Limit::Open)],
            known_at: 0,
        };
        // 65535 + (2^31 - 1 - 65535) is the largest window; one more overflows.
        let wire = cat(&[
            window_update(1, max - 65_535),
            window_update(3, max - 65_534),
            window_update(5, max),
            data(1, true, b"x"),
        ]);
        let want = cat(&[
            window_update(1, max - 65_535),
            priority_on_itself(3),
            window_update(5, max),
            data(1, false, b"x"),
            data(1, true, b""),
        ]);
        assert_eq!(merged_tracking(&wire, 1000, 1000, &t), want);
        let mut m = Merger::new(1000, 1000);
        m.track(1);
        m.track(3);
        m.spare()[..wire.len()].copy_from_slice(&wire);
        m.filled(wire.len());
        while m.read(usize::MAX, |_| {}) > 0 {}
        assert_eq!((m.overflow(1), m.overflow(3)), (None, Some(max - 65_534)));
        assert_eq!(m.tracked(), 0, "stream 1 ended, stream 3 was reset");
        m.untrack(3);
        assert_eq!(m.overflow(3), None, "forgotten with the stream");
        // Increments add up; one of 0 is left for h2 to refuse.
        let wire = cat(&[
            window_update(1, max / 2),
            window_update(1, 0),
            window_update(1, max / 2),
        ]);
        let want = cat(&[
            window_update(1, max / 2),
            window_update(1, 0),
            priority_on_itself(1),
        ]);
        assert_eq!(merged_tracking(&wire, 1000, 1000, &t), want);
    }

    #[test]
    fn the_send_window_starts_at_the_peers_initial_window_and_pays_for_what_h2_sent() {
        let mut m = Merger::new(1000, 1000);
        m.track(1);
        let feed = |m: &mut Merger, wire: &[u8]| {
            let mut out = Vec::new();
            m.spare()[..wire.len()].copy_from_slice(wire);
            m.filled(wire.len());
            while m.read(usize::MAX, |b| out.extend_from_slice(b)) > 0 {}
            out
        };
        // The peer's window is 0: the whole range is open to increments.
        let wire = cat(&[initial_window(0), window_update(1, 0x7fff_0000)]);
        assert_eq!(feed(&mut m, &wire), wire);
        // h2 sent 0x10000 bytes on stream 1 (in pieces, as it writes them), and on 3.
        let mut sent = cat(&[
            data(1, false, &[0; 0x8000]),
            data(3, false, &[0; 100]),
            data(1, false, &[0; 0x8000]),
        ]);
        sent.extend(frame(RST_STREAM, 0, 3, &[0, 0, 0, 8]));
        for piece in sent.chunks(7) {
            m.wrote(piece);
        }
        let wire = window_update(1, 0x1_ffff);
        assert_eq!(feed(&mut m, &wire), wire, "2^31 - 1 exactly");
        assert_eq!(feed(&mut m, &window_update(1, 1)), priority_on_itself(1));
        assert_eq!(m.overflow(1), Some(1));
        // The peer's initial window counts for every stream, tracked before or after.
        m.track(5);
        let wire = cat(&[initial_window(0x7fff_fff0), window_update(5, 15)]);
        assert_eq!(feed(&mut m, &wire), wire);
        assert_eq!(feed(&mut m, &window_update(5, 1)), priority_on_itself(5));
    }

    #[test]
    fn nothing_is_taken_of_a_stream_after_its_window_overflowed() {
        // Found by the fuzz target: the stream is reset, so the short frame after the
        // overflow is not split (and neither h2 nor curl takes its bytes).
        let wire = cat(&[window_update(1, 0x7fff_ffff), data(1, true, b"abcd")]);
        let want = cat(&[priority_on_itself(1), data(1, true, b"abcd")]);
        assert_eq!(merged_tracking(&wire, 80, 80, &lengths(&[(1, 64)])), want);
    }
}
