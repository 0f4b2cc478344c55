//! A transfer's request and response over an HTTP/2 stream (curl's `http2.c` as seen from
//! one easy handle): the HTTP/1 request head the transfer built becomes the stream's fields,
//! the response head comes back as HTTP/1-style lines (`HTTP/2 200 \r\n`, lower-case names)
//! through the same parser as HTTP/1, and DATA frames are body bytes.
//!
//! The connection's [`Mux`] is lent the connection on every drive; this module only moves
//! one stream's bytes.

use std::io::Write as _;
use std::sync::Arc;
use std::task::{Poll, Waker};

use bytes::Bytes;

use super::{Cx, Framing, HttpIo, Interest, Lookup, Phase, State, Transfer};

use crate::error::{Code, Error, Result};
use crate::options::{Body, HttpVersionPref, InfoType};
use crate::proto::h1::head::MAX_HEAD_TOTAL;
use crate::proto::h2::merge::Limit;
use crate::proto::h2::scan::Kind;
use crate::proto::h2::{self as mux, req, Mux};
use crate::timer::TimerId;

/// curl's default for `CURLMOPT_MAX_CONCURRENT_STREAMS`: streams one transfer's multi puts
/// on a connection.
const CLIENT_MAX_STREAMS: usize = 100;

/// The stream of the current request.
pub(super) struct H2Stream {
    /// The request head waiting for the connection to accept a new stream.
    head: Option<req::H2Head>,
    /// This transfer's handle to open streams with.
    sender: Option<h2::client::SendRequest<Bytes>>,
    stream: Option<mux::Stream>,
    /// All request body bytes are handed to h2.
    body_sent: bool,
    /// The waker h2 is given for this stream (once on the connection), which counts the
    /// stream among the connection's woken ones until the transfer runs.
    wake: Option<(Arc<mux::StreamWake>, Waker)>,
    /// What [`mux::Waiting::defer`] saw when this stream last let others go first.
    deferred: Option<usize>,
    /// The request is a HEAD: its response has no body, whatever content-length says.
    head_request: bool,
    /// The stream as the connection's DATA frame merger knows it.
    track: Option<mux::StreamTrack>,
    /// Bytes of the response heads shown so far (1xx heads included), as curl counts them
    /// against [`MAX_HEAD_TOTAL`] for one request.
    head_bytes: usize,
    /// The server ended the stream while the body still waited for a 100 (curl then fails
    /// the send once the wait is over).
    ended: bool,
}

impl Drop for H2Stream {
    fn drop(&mut self) {
        if let Some((w, _)) = &self.wake {
            w.retire();
        }
    }
}

/// curl's wording for h2's error codes (`nghttp2_http2_strerror`).
fn reason_name(r: h2::Reason) -> String {
    let name = match u32::from(r) {
        0 => "NO_ERROR",
        1 => "PROTOCOL_ERROR",
        2 => "INTERNAL_ERROR",
        3 => "FLOW_CONTROL_ERROR",
        4 => "SETTINGS_TIMEOUT",
        5 => "STREAM_CLOSED",
        6 => "FRAME_SIZE_ERROR",
        7 => "REFUSED_STREAM",
        8 => "CANCEL",
        9 => "COMPRESSION_ERROR",
        10 => "CONNECT_ERROR",
        11 => "ENHANCE_YOUR_CALM",
        12 => "INADEQUATE_SECURITY",
        13 => "HTTP_1_1_REQUIRED",
        _ => "unknown",
    };
    name.to_string()
}

/// The origin form of a request target: an absolute URL (`http://host:port/p?q`) loses its
/// scheme and authority (curl's `:path` for requests to an HTTP/2 proxy); other targets are
/// kept.
fn origin_form(target: &str) -> &str {
    let Some(i) = target.find("://") else {
        return target;
    };
    if target[..i].contains('/') {
        return target;
    }
    let rest = &target[i + 3..];
    match rest.find(['/', '?']) {
        Some(j) if rest.as_bytes()[j] == b'/' => &rest[j..],
        _ => "/",
    }
}

impl Transfer {
    /// Does the connection speak HTTP/2?
    pub(super) fn on_h2(&self) -> bool {
        self.h2conn.is_some()
    }

    /// The response is complete as its head frames it, but its stream has not ended: curl
    /// completes an HTTP/2 transfer at the stream's end (END_STREAM, or the reset of a
    /// stream that sent DATA beyond its content-length, which fails it), unless no body was
    /// asked for (`-I`). A last DATA frame with END_STREAM ends the stream at once.
    pub(super) fn h2_awaits_end(&self) -> bool {
        self.h2_open && self.on_h2()
    }

    /// May this transfer share a connection with others (curl's `xfer_may_multiplex`)?
    /// HTTP with HTTP/2 allowed.
    fn may_multiplex(&self) -> bool {
        !matches!(
            self.opts.http_version,
            HttpVersionPref::V1_0 | HttpVersionPref::V1_1
        )
    }

    /// curl's connection matching for multiplexing (`url_match_conn` as far as HTTP/2
    /// goes): a shared connection to `key` with room for a stream, or word to wait for a
    /// connection being set up.
    pub(super) fn find_shared(&mut self, cx: &mut Cx<'_>, key: &str) -> Lookup {
        let may = self.may_multiplex();
        let upgrade_wait = self.info.scheme == "http";
        let mut i = 0;
        while may && i < cx.pool.shared.len() {
            let s = cx.pool.shared[i].clone();
            i += 1;
            let users = s.users() - 1;
            let mut c = s.lock();
            if c.key != key {
                continue;
            }
            if users == 0 {
                // Idle: frames (SETTINGS, PING, GOAWAY) may wait, which h2 reads.
                c.drive();
            }
            let open = c.h2.as_ref().is_some_and(|m| m.is_open());
            if !open || !c.h2.as_mut().is_some_and(|m| m.accepting()) {
                drop(c);
                // A connection going away stays known while streams finish on it.
                if !open || users == 0 {
                    cx.pool.unshare(&s);
                    i -= 1;
                }
                continue;
            }
            if upgrade_wait && !c.version_seen {
                if self.opts.pipewait {
                    drop(c);
                    self.verbose("Server upgrade does not support multiplex yet, wait");
                    return Lookup::Wait;
                }
                drop(c);
                self.verbose("Server upgrade cannot be used");
                continue;
            }
            if users > 0 {
                let max =
                    c.h2.as_ref()
                        .map_or(CLIENT_MAX_STREAMS, |m| m.max_streams());
                drop(c);
                if users >= CLIENT_MAX_STREAMS {
                    self.verbose(&format!(
                        "client side MAX_CONCURRENT_STREAMS reached, skip ({users})"
                    ));
                    continue;
                }
                if users >= max {
                    self.verbose(&format!("MAX_CONCURRENT_STREAMS reached, skip ({users})"));
                    continue;
                }
                self.verbose("Multiplexed connection found");
            } else {
                drop(c);
            }
            return Lookup::Shared(s);
        }
        if !(may && self.opts.pipewait) {
            return Lookup::None;
        }
        let mut seen = false;
        let pending: Vec<i64> = cx.pool.pending_for(key).collect();
        for id in pending {
            seen = true;
            self.verbose(&format!(
                "Connection #{id} is not open enough, cannot reuse"
            ));
        }
        if seen {
            self.verbose("Found pending candidate for reuse and CURLOPT_PIPEWAIT is set");
            return Lookup::Wait;
        }
        Lookup::None
    }

    /// Leave the shared connection: the stream ends (h2 resets it if still open) and a
    /// connection that failed is forgotten.
    ///
    /// Returns curl's "left intact" note when this was the connection's last transfer; the
    /// caller writes it after the transfer's error, where curl's `multi_done` writes it (a
    /// transfer that failed on a multiplexed connection leaves it for the next when only the
    /// stream went wrong).
    #[must_use]
    pub(super) fn h2_release(&mut self, cx: &mut Cx<'_>) -> Option<String> {
        self.h2 = None;
        self.h2_open = false;
        let s = self.h2conn.take()?;
        self.h2_leave(cx, &s, true)
    }

    /// Leave the shared connection `s`: it is forgotten unless `keep` and still open; the
    /// last transfer on a kept one marks it idle and gets curl's "left intact" note.
    pub(super) fn h2_leave(
        &self,
        cx: &mut Cx<'_>,
        s: &super::SharedConn,
        keep: bool,
    ) -> Option<String> {
        let mut c = s.lock();
        if !keep || !c.h2.as_ref().is_some_and(|m| m.is_open()) {
            drop(c);
            cx.pool.unshare(s);
            return None;
        }
        if s.users() != 1 {
            return None;
        }
        c.idle_since = cx.now;
        let note = self.left_intact(c.id, &c.host);
        drop(c);
        cx.pool.trim_shared();
        Some(note)
    }

    /// Decide HTTP/2 for a new connection: ALPN picked h2, or prior knowledge on http. An
    /// HTTP/2 connection becomes shared, for other transfers to open streams on.
    pub(super) fn h2_negotiate(&mut self, cx: &mut Cx<'_>) -> bool {
        let Some(c) = self.conn.as_mut() else {
            return false;
        };
        // The origin's ALPN, or for absolute-form requests the HTTPS proxy's.
        let alpn_h2 = match (&c.tls, &c.proxy_tls) {
            (Some(t), _) => t.alpn() == Some(&b"h2"[..]),
            (None, Some(p)) => !self.tunnel_wanted && p.alpn() == Some(&b"h2"[..]),
            (None, None) => false,
        };
        let prior = c.tls.is_none()
            && self.opts.http_version == crate::options::HttpVersionPref::V2PriorKnowledge
            && self
                .proxy
                .as_ref()
                .is_none_or(|p| !p.kind.is_http() || self.tunnel_wanted);
        if (alpn_h2 || prior) && c.h2.is_none() {
            c.h2 = Some(Mux::new());
            let c = self.conn.take().expect("conn");
            match share(cx, c) {
                Ok(s) => self.h2conn = Some(s),
                Err(e) => {
                    self.req_error = Some(Error::new(
                        Code::CouldntConnect,
                        format!("socket: {}", crate::connect::os_error_text(&e)),
                    ))
                }
            }
        }
        alpn_h2
    }

    /// A 101 answered the request's `Upgrade: h2c` (curl's `Curl_http2_upgrade`): the
    /// connection speaks HTTP/2 from here, `rest` (what followed the 101 in its read) first,
    /// and the response comes on stream 1, which the request is.
    pub(super) fn h2_switch(&mut self, cx: &mut Cx<'_>, rest: &[u8]) {
        self.h2_upgrade = (false, false);
        self.verbose("Received 101, Switching to HTTP/2");
        if !rest.is_empty() {
            self.verbose(&format!(
                "Copied HTTP/2 data in stream buffer to connection buffer after upgrade: len={}",
                rest.len()
            ));
        }
        let Some(mut c) = self.conn.take() else {
            return;
        };
        let head_request = self.method == "HEAD";
        c.h2 = Some(Mux::upgrade(rest, head_request));
        match share(cx, c) {
            Ok(s) => self.h2conn = Some(s),
            Err(e) => {
                self.result = Some(Err(Error::new(
                    Code::CouldntConnect,
                    format!("socket: {}", crate::connect::os_error_text(&e)),
                )));
                return;
            }
        }
        // The whole request went as HTTP/1.1.
        self.up.body_done = true;
        self.h2_open = false;
        self.h2 = Some(Box::new(H2Stream {
            head: None,
            sender: None,
            stream: None,
            body_sent: true,
            wake: None,
            deferred: None,
            head_request,
            track: None,
            head_bytes: 0,
            ended: false,
        }));
        self.h2_sid = 1;
        self.set_io(HttpIo::H2);
    }

    /// The request head is built: open a stream for it instead of writing it. A custom
    /// `Expect: 100-continue` goes as it is, and the body waits for the 100 as on HTTP/1
    /// (curl adds no Expect of its own on HTTP/2).
    pub(super) fn h2_start(&mut self) -> Result<()> {
        let chunked = self.up.chunked;
        let head = req::from_h1(&self.req, |n, v| {
            chunked && n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked")
        })
        .map_err(|e| Error::new(Code::SendError, e))?;
        self.up.chunked = false;
        self.h2_open = false;
        self.h2 = Some(Box::new(H2Stream {
            head: Some(head),
            sender: None,
            stream: None,
            body_sent: false,
            wake: None,
            deferred: None,
            head_request: false,
            track: None,
            head_bytes: 0,
            ended: false,
        }));
        self.set_io(HttpIo::H2);
        Ok(())
    }

    /// Sockets an HTTP/2 transfer waits on: always readable (frames may arrive any time),
    /// writable while h2 has bytes the socket did not take.
    pub(super) fn h2_interest(&self) -> Option<Interest<'_>> {
        let s = self.h2conn.as_ref()?;
        let c = s.lock();
        let write = c.wants_write() || c.h2.as_ref().is_some_and(|m| m.wants_write());
        Some(Interest {
            fd: s.fd(),
            id: c.sock_id,
            read: true,
            write,
            shared: true,
        })
    }

    /// Let h2 read and write on the shared connection, a little at a time; whether input
    /// may still be waiting, and the bytes read.
    fn h2_io(&mut self) -> (bool, usize) {
        // The TLS trace of what this transfer reads and writes for the connection (the
        // session tickets of TLS 1.3 come here), as curl's goes to the transfer driving it.
        let trace = self.tls_trace_wanted()
            && self.h2conn.as_ref().is_some_and(|s| {
                let c = s.lock();
                c.tls.is_some() || c.proxy_tls.is_some()
            });
        // On and off under one lock: another transfer driving the connection in between
        // adds nothing to this one's trace.
        let (more, events) = match &self.h2conn {
            Some(s) => {
                let mut c = s.lock();
                if trace {
                    c.trace_on();
                }
                let more = c.drive_some();
                (more, if trace { c.trace_take() } else { Vec::new() })
            }
            None => ((false, 0), Vec::new()),
        };
        if trace {
            self.tls_trace_emit(events);
        }
        more
    }

    /// The transfer runs: its stream stops counting as woken (see [`mux::Waiting`]).
    fn h2_claim(&mut self) {
        let Some(st) = self.h2.as_mut() else {
            return;
        };
        match &st.wake {
            Some((w, _)) => w.claim(),
            None => {
                let Some(s) = &self.h2conn else {
                    return;
                };
                let c = s.lock();
                if let Some(m) = c.h2.as_deref() {
                    st.wake = Some(mux::StreamWake::new(m, &self.waker));
                }
            }
        }
    }

    /// Should this transfer, waiting for input, leave the connection's frames to the
    /// streams h2 woke (and read only when they took theirs)?
    fn h2_defer(&mut self) -> bool {
        let Some(st) = self.h2.as_mut() else {
            return false;
        };
        let Some(s) = &self.h2conn else {
            return false;
        };
        let c = s.lock();
        c.h2.as_deref()
            .is_some_and(|m| m.waiting().defer(&mut st.deferred))
    }

    /// Run `f` on the connection's mux.
    fn with_mux<R>(&self, f: impl FnOnce(&mut Mux) -> R) -> R {
        let s = self.h2conn.as_ref().expect("h2 connection");
        let mut c = s.lock();
        f(c.h2.as_deref_mut().expect("h2 mux"))
    }

    /// Drive the stream: open it, send the body, receive head and body.
    pub(super) fn do_h2(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if let Some(e) = self.req_error.take() {
            return Err(e);
        }
        // The stream first takes what h2 already holds for it; the connection is read only
        // when the stream waits for input. Frames read for other streams wait in h2 (each
        // keeping the buffer it was read into alive) until their transfers take them, so a
        // transfer that reads everything the socket has for fifty streams before they run
        // holds all their responses in memory at once (PERF.md, "HTTP/2 memory").
        self.h2_claim();
        let mut read = false;
        let mut more = false;
        let mut burst = 0;
        loop {
            let progress = match self.h2_step(cx) {
                Err(e) if self.h2_refused.0 => return self.h2_retry(e),
                r => r?,
            };
            if !self.io_is(HttpIo::H2) {
                return Ok(!self.is_done());
            }
            if let Some(r) = self.result.take() {
                return Err(r.err().unwrap_or_else(|| Error::code(Code::RecvError)));
            }
            if progress {
                read = false;
                continue;
            }
            if !read {
                if self.h2_defer() {
                    // Other streams have frames to take: they go first, this transfer
                    // runs again after them. What it queued (a new stream's HEADERS, window
                    // updates) goes out now.
                    if let Some(s) = &self.h2conn {
                        s.lock().flush();
                    }
                    self.waker.wake_by_ref();
                    return Ok(false);
                }
                let got;
                (more, got) = self.h2_io();
                burst += got;
                read = true;
                continue;
            }
            if more {
                // The budget went on other streams' frames: their transfers take them
                // before this one reads more, in the multi's next pass.
                self.waker.wake_by_ref();
                return Ok(false);
            }
            if let Some(e) = self.with_mux(|m| m.error().map(mux::clone_error)) {
                let e = self.h2_error(&e, true);
                if self.h2_refused.0 {
                    return self.h2_retry(e);
                }
                return Err(e);
            }
            // The connection had no more: the next frames may gather (gather::Gather).
            // While a body comes, a wakeup often brings part of a frame or of a TLS record
            // only, nothing for the stream yet: those are the ones most worth letting the
            // rest gather for, over TLS and cleartext alike (nginx frames every DATA
            // itself, without sendfile). Waiting for a response head does not pause.
            let body = self.resp.phase == Phase::Body;
            cx.gather.drained(if body {
                burst.max(crate::gather::Gather::MIN)
            } else {
                burst
            });
            return Ok(false);
        }
    }

    /// One round of stream work; whether anything moved.
    fn h2_step(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let mut st = self.h2.take().expect("h2 stream");
        let r = self.h2_step_with(cx, &mut st);
        if self.io_is(HttpIo::H2) {
            self.h2 = Some(st);
        }
        r
    }

    fn h2_step_with(&mut self, cx: &mut Cx<'_>, st: &mut H2Stream) -> Result<bool> {
        let mut progress = false;
        let waker = match &st.wake {
            Some((_, w)) => w.clone(),
            None => self.waker.clone(),
        };
        if st.head.is_none() && st.stream.is_none() {
            // Upgraded: stream 1 once h2 has opened it.
            let Some(stream) = self.with_mux(|m| m.take_upgraded()) else {
                if let Some(e) = self.with_mux(|m| m.error().map(mux::clone_error)) {
                    return Err(self.h2_error(&e, true));
                }
                return Ok(false);
            };
            st.track = Some(self.with_mux(|m| m.track(stream.id)));
            st.stream = Some(stream);
            progress = true;
        }
        if st.head.is_some() {
            if st.sender.is_none() {
                match self.with_mux(|m| m.error().map(mux::clone_error).ok_or(m.sender())) {
                    Ok(e) => return Err(self.h2_error(&e, true)),
                    Err(None) => return Ok(false),
                    Err(Some(s)) => st.sender = Some(s),
                }
            }
            let sender = st.sender.as_mut().expect("sender");
            match mux::ready(sender, &waker) {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(e) => return Err(self.h2_error(&e, true)),
            }
            let head = st.head.take().expect("head");
            let end = matches!(self.body, Body::None) || self.up.body_done;
            st.head_request = head.method == "HEAD";
            let stream = self.h2_open(st.sender.as_mut().expect("sender"), head, end)?;
            // The merger joins the response's DATA frames once its head gives their limit.
            st.track = Some(self.with_mux(|m| m.track(stream.id)));
            st.stream = Some(stream);
            st.body_sent = end;
            if end {
                self.verbose("Request completely sent off");
                self.info.time_posttransfer = cx.now.duration_since(self.started);
            }
            if self.up.await_continue && self.timers.get(TimerId::Expect100).is_none() {
                self.timers
                    .set(TimerId::Expect100, cx.now + self.opts.expect_100_timeout);
            }
            progress = true;
        }
        let Some(s) = st.stream.as_mut() else {
            return Ok(progress);
        };
        if !st.body_sent && !self.up.await_continue && st.ended {
            // The wait is over and the stream is gone: curl's send fails.
            self.verbose(&format!("stream {} closed", s.id));
            return Err(Error::code(Code::SendError));
        }
        if !st.body_sent && !self.up.await_continue {
            if let Some(out) = s.body_out.as_mut() {
                progress |= self.h2_send_body(out, &mut st.body_sent, &waker)?;
                if st.body_sent {
                    let sent = self.info.size_upload - self.up.upload_base;
                    self.verbose(&format!("upload completely sent off: {sent} bytes"));
                    self.info.time_posttransfer = cx.now.duration_since(self.started);
                }
            }
        }
        let s = st.stream.as_mut().expect("stream");
        if let Some(f) = s.response.as_mut() {
            // 1xx heads first, each shown as curl shows it (`HTTP/2 103`, its fields, a blank
            // line), then the response.
            let id = s.id;
            loop {
                match mux::poll_informational(f, &waker) {
                    Poll::Pending => return Ok(progress),
                    Poll::Ready(Some(Err(e))) => return Err(self.h2_error(&e, false)),
                    Poll::Ready(Some(Ok(info))) => {
                        progress = true;
                        if info.status() == 100 && self.up.await_continue {
                            // The body goes now; the HTTP/1 parser would turn to sending
                            // the request itself.
                            self.up.await_continue = false;
                            self.timers.clear(TimerId::Expect100);
                        }
                        self.h2_informational(cx, id, &info, &mut st.head_bytes)?;
                        if !self.io_is(HttpIo::H2) {
                            return Ok(true);
                        }
                    }
                    Poll::Ready(None) => break,
                }
            }
            match mux::poll_response(f, &waker) {
                Poll::Pending => return Ok(progress),
                Poll::Ready(Err(e)) => return Err(self.h2_error(&e, false)),
                Poll::Ready(Ok(resp)) => {
                    s.response = None;
                    // Waiting transfers see it when they look again, at the end of a
                    // transfer, as in curl.
                    if let Some(c) = &self.h2conn {
                        c.lock().version_seen = true;
                    }
                    let (parts, body) = resp.into_parts();
                    s.body_in = Some(body);
                    // The stream's end completes the transfer, as in curl; but h2 holds a
                    // 204 or 304 to its content-length, which nghttp2 does not, and would
                    // refuse the END_STREAM after it: such a response ends with its head.
                    let held = matches!(parts.status.as_u16(), 204 | 304)
                        && parts
                            .headers
                            .get(http::header::CONTENT_LENGTH)
                            .is_some_and(|v| v.as_bytes() != b"0");
                    self.h2_open = !self.opts.nobody && !held;
                    if let Some(t) = &st.track {
                        t.set(Limit::of_response(st.head_request, &parts.headers));
                    }
                    self.h2_count_status()
                        .map_err(|e| self.h2_head_failed(cx, e, false))?;
                    let head = self.h2_head(id, Kind::Final, parts.status, &parts.headers);
                    if self.info.time_starttransfer.is_zero() {
                        self.info.time_starttransfer = cx.now.duration_since(self.started);
                    }
                    // A response before the whole body went does not spoil the connection:
                    // the rest of the stream is reset, not left on the wire.
                    self.up.body_done = true;
                    self.resp.raw_bytes += head.len() as u64 + 2;
                    let code = parts.status.as_u16() as u32;
                    // Still waiting for a 100: curl goes on waiting after a success (and
                    // sends the body when the timer fires); a failure it answers as on
                    // HTTP/1 (417: again without waiting; else stop sending).
                    let waiting = self.up.await_continue;
                    if waiting && code < 300 {
                        self.up.await_continue = false;
                    }
                    self.h2_process_head(cx, &head, &mut st.head_bytes)
                        .map_err(|e| self.h2_head_failed(cx, e, false))?;
                    if waiting && code >= 300 {
                        st.body_sent = true;
                        if let Some(s) = st.stream.as_mut() {
                            s.body_out = None;
                        }
                    }
                    if code >= 300 && !st.body_sent {
                        st.body_sent = true;
                        if let Some(s) = st.stream.as_mut() {
                            s.body_out = None;
                        }
                        let pending = (self.up.len - self.up.pos) as u64;
                        let sent = self.info.size_upload - self.up.upload_base - pending;
                        self.verbose("HTTP error before end of send, stop sending");
                        self.verbose(&format!("abort upload after having sent {sent} bytes"));
                    }
                    if code >= 200 && self.fails_on(code) && self.io_is(HttpIo::H2) {
                        // curl fails before it shows the blank line, and the stream's end
                        // leaves the connection usable.
                        self.h2_fail(cx, code)?;
                        return Ok(true);
                    }
                    self.h2_process_head(cx, b"\r\n", &mut st.head_bytes)
                        .map_err(|e| self.h2_head_failed(cx, e, false))?;
                    if waiting && code < 300 {
                        self.up.await_continue = true;
                    }
                    if !self.io_is(HttpIo::H2) {
                        return Ok(true);
                    }
                    progress = true;
                }
            }
        }
        if self.recv_held() {
            if !self.flush_held()? {
                return Ok(progress);
            }
            if self.resp.phase == Phase::Complete && !self.h2_open {
                self.complete(cx)?;
                return Ok(true);
            }
        }
        let s = st.stream.as_mut().expect("stream");
        let Some(body) = s.body_in.as_mut() else {
            return Ok(progress);
        };
        loop {
            match mux::poll_data(body, &waker) {
                Poll::Pending => return Ok(progress),
                Poll::Ready(Some(Err(e))) => return Err(self.h2_error(&e, false)),
                Poll::Ready(Some(Ok(data))) => {
                    progress = true;
                    let _ = body.flow_control().release_capacity(data.len());
                    if data.is_empty() {
                        continue;
                    }
                    self.resp.raw_bytes += data.len() as u64;
                    self.process(cx, &data)?;
                    if !self.io_is(HttpIo::H2) || self.result.is_some() {
                        return Ok(true);
                    }
                    if self.recv_held() {
                        // Paused: the rest stays in the stream (its window closes).
                        return Ok(true);
                    }
                }
                Poll::Ready(None) => {
                    let id = s.id;
                    let mut tcx = std::task::Context::from_waker(&waker);
                    if let Poll::Ready(Ok(Some(map))) = body.poll_trailers(&mut tcx) {
                        self.h2_trailers(id, &map)?;
                    }
                    self.h2_open = false;
                    if self.up.await_continue && !st.body_sent {
                        // The body still waits for its timer.
                        s.body_in = None;
                        st.ended = true;
                        return Ok(true);
                    }
                    self.h2_end_of_stream(cx)?;
                    return Ok(true);
                }
            }
        }
    }

    fn h2_open(
        &mut self,
        sender: &mut h2::client::SendRequest<Bytes>,
        head: req::H2Head,
        end: bool,
    ) -> Result<mux::Stream> {
        let url = self.url.clone().expect("url");
        let scheme = url.scheme().to_string();
        let authority = head.authority.clone().unwrap_or_default();
        // To a proxy the request line has the absolute form; `:path` is its origin form.
        let path = origin_form(&head.path).to_string();
        let uri = format!("{scheme}://{authority}{path}");
        let mut b = http::Request::builder()
            .method(head.method.as_str())
            .uri(uri.as_str());
        for (n, v) in &head.fields {
            b = b.header(n.as_str(), v.as_str());
        }
        let request = b
            .body(())
            .map_err(|e| Error::new(Code::SendError, format!("HTTP/2 request: {e}")))?;
        let stream = mux::open(sender, request, end).map_err(|e| self.h2_error(&e, true))?;
        self.h2_sid = stream.id;
        if self.opts.verbose {
            let id = stream.id;
            let mut lines = vec![format!(
                "[HTTP/2] [{id}] OPENED stream for {}",
                url.to_url_string()
            )];
            lines.push(format!("[HTTP/2] [{id}] [:method: {}]", head.method));
            lines.push(format!("[HTTP/2] [{id}] [:scheme: {scheme}]"));
            lines.push(format!("[HTTP/2] [{id}] [:authority: {authority}]"));
            lines.push(format!("[HTTP/2] [{id}] [:path: {path}]"));
            for (n, v) in &head.fields {
                lines.push(format!("[HTTP/2] [{id}] [{n}: {v}]"));
            }
            for l in &lines {
                self.verbose(l);
            }
            self.callbacks
                .debug_live(InfoType::HeaderOut, &head.shown, &self.info);
        }
        Ok(stream)
    }

    /// Hand request body bytes to h2 as flow control allows; whether any went.
    fn h2_send_body(
        &mut self,
        out: &mut h2::SendStream<Bytes>,
        done: &mut bool,
        waker: &Waker,
    ) -> Result<bool> {
        let mut progress = false;
        loop {
            // Next piece of the body, without consuming it yet.
            let piece: &[u8] = match &self.body {
                Body::Fields(f) => &f[self.up.fields_sent.min(f.len())..],
                Body::Upload(_) | Body::PostRead(_) | Body::Mime(_) => {
                    if self.up.pos == self.up.len && !self.up.eof {
                        if self.paused() & crate::pause::SEND != 0 {
                            return Ok(progress);
                        }
                        self.fill_upload()?;
                    }
                    &self.up.buf[self.up.pos..self.up.len]
                }
                Body::None => &[],
            };
            let eof = match &self.body {
                Body::Fields(_) | Body::None => true,
                _ => self.up.eof,
            };
            if piece.is_empty() {
                if eof {
                    let _ = out.send_data(Bytes::new(), true);
                    *done = true;
                    return Ok(true);
                }
                return Ok(progress);
            }
            if out.capacity() == 0 {
                out.reserve_capacity(piece.len());
                match mux::poll_capacity(out, waker) {
                    Poll::Ready(Some(Ok(n))) if n > 0 => {}
                    // The server closed or reset its side: stop sending; what it said
                    // comes with the response.
                    Poll::Ready(Some(Err(_))) | Poll::Ready(None) => {
                        *done = true;
                        return Ok(true);
                    }
                    _ => return Ok(progress),
                }
            }
            let n = out.capacity().min(piece.len());
            let data = Bytes::copy_from_slice(&piece[..n]);
            if out.send_data(data, false).is_err() {
                *done = true;
                return Ok(true);
            }
            progress = true;
            match &self.body {
                Body::Fields(f) => {
                    if self.opts.verbose {
                        let d = f[self.up.fields_sent..self.up.fields_sent + n].to_vec();
                        self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
                    }
                    self.up.fields_sent += n;
                    self.info.size_upload += n as u64;
                }
                _ => self.up.pos += n,
            }
        }
    }

    /// A response head of stream `id` as curl's HTTP/1-style lines, the blank line left
    /// out: `HTTP/2 {code} ` and the fields, in wire order where the connection's own
    /// decoding of the head agrees with h2's map, which groups the values of a name.
    fn h2_head(
        &self,
        id: u32,
        kind: Kind,
        status: http::StatusCode,
        map: &http::HeaderMap,
    ) -> Vec<u8> {
        let mut head = Vec::with_capacity(256);
        let _ = write!(head, "HTTP/2 {} \r\n", status.as_u16());
        let wire = self
            .with_mux(|m| m.take_head(id, kind))
            .filter(|h| h.agrees(map));
        let mut line = |name: &[u8], value: &[u8]| {
            head.extend_from_slice(name);
            head.extend_from_slice(b": ");
            head.extend_from_slice(value);
            head.extend_from_slice(b"\r\n");
        };
        match &wire {
            Some(h) => h.fields().for_each(|(n, v)| line(n, v)),
            None => map
                .iter()
                .for_each(|(n, v)| line(n.as_str().as_bytes(), v.as_bytes())),
        }
        head
    }

    /// A 1xx head of stream `id`: shown and passed on as the HTTP/1 parser does an
    /// informational head, which leaves the parser waiting for the next one.
    fn h2_informational(
        &mut self,
        cx: &mut Cx<'_>,
        id: u32,
        info: &http::Response<()>,
        seen: &mut usize,
    ) -> Result<()> {
        // The connection answered with HTTP/2 (curl's `httpversion_seen` comes with any
        // status line).
        if let Some(c) = &self.h2conn {
            c.lock().version_seen = true;
        }
        self.h2_count_status()
            .map_err(|e| self.h2_head_failed(cx, e, true))?;
        let head = self.h2_head(id, Kind::Informational, info.status(), info.headers());
        if self.info.time_starttransfer.is_zero() {
            self.info.time_starttransfer = cx.now.duration_since(self.started);
        }
        self.resp.raw_bytes += head.len() as u64 + 2;
        self.h2_process_head(cx, &head, seen)
            .and_then(|_| self.h2_process_head(cx, b"\r\n", seen))
            .map_err(|e| self.h2_head_failed(cx, e, true))
    }

    /// A head that went past curl's limits ends the stream's transfer, not the connection
    /// (curl: "left intact"); other errors are left as they are.
    fn h2_head_failed(&mut self, cx: &mut Cx<'_>, e: Error, informational: bool) -> Error {
        let e = match e.code {
            // A field line beyond the count: curl skips the rest of this head, and the next
            // head (a 1xx head is never the last) fails at its `:status`.
            Code::TooLarge if informational => {
                self.verbose(e.message());
                self.h2_header_overflow(e)
            }
            Code::TooLarge | Code::RecvError | Code::Http2 => {
                if self.opts.verbose && !self.resp.error_shown {
                    self.verbose(e.message());
                    self.resp.error_shown = true;
                }
                e
            }
            _ => return e,
        };
        // A failed header callback leaves nghttp2's session broken: curl's next stream on
        // the connection fails, and it connects again. This one is not offered again.
        let broken = match &self.h2conn {
            Some(s) if e.code == Code::Http2 => Some(s.lock().id),
            _ => None,
        };
        self.release_conn(cx, true);
        if let Some(id) = broken {
            if let Some(s) = cx.pool.shared.iter().find(|s| s.lock().id == id).cloned() {
                cx.pool.unshare(&s);
            }
        }
        e
    }

    /// Lines of a response head through the parser, `seen` the bytes of the request's heads
    /// before them. curl counts every head line of a request, 1xx heads included, and fails
    /// the transfer once they pass [`MAX_HEAD_TOTAL`], after it showed the line that did.
    fn h2_process_head(&mut self, cx: &mut Cx<'_>, head: &[u8], seen: &mut usize) -> Result<()> {
        let mut end = 0;
        for line in head.split_inclusive(|&b| b == b'\n') {
            end += line.len();
            *seen += line.len();
            if *seen > MAX_HEAD_TOTAL {
                self.process(cx, &head[..end])?;
                return Err(Error::new(
                    Code::RecvError,
                    format!("Too large response headers: {seen} > {MAX_HEAD_TOTAL}"),
                ));
            }
        }
        self.process(cx, head)
    }

    /// curl keeps each HTTP/2 head's `:status` for its header API as a header of its own,
    /// counted against the same limit as the lines: a head beyond it fails in nghttp2's
    /// header callback, which ends the stream with curl's error for the framing layer, the
    /// limit's words first.
    fn h2_count_status(&mut self) -> Result<()> {
        self.count_header().map_err(|e| self.h2_header_overflow(e))
    }

    fn h2_header_overflow(&mut self, e: Error) -> Error {
        if self.opts.verbose {
            self.verbose(e.message());
            self.verbose(
                "Error receiving HTTP2 header: 100(A value or data field grew larger than \
                 allowed)",
            );
            self.verbose("nghttp2 recv error -902: The user callback function failed");
            self.resp.error_shown = true;
        }
        Error::new(Code::Http2, e.message())
    }

    /// The trailers that ended stream `id`, as header lines (curl's
    /// `http2_handle_stream_close`), in wire order where the connection's decoding agrees.
    fn h2_trailers(&mut self, id: u32, map: &http::HeaderMap) -> Result<()> {
        let wire = self
            .with_mux(|m| m.take_head(id, Kind::Trailers))
            .filter(|h| h.agrees(map));
        let mut line = Vec::new();
        let mut each = |this: &mut Self, name: &[u8], value: &[u8]| {
            line.clear();
            line.extend_from_slice(name);
            line.extend_from_slice(b": ");
            line.extend_from_slice(value);
            line.extend_from_slice(b"\r\n");
            this.count_header()?;
            this.deliver_header(&line)
        };
        match &wire {
            Some(h) => h.fields().try_for_each(|(n, v)| each(self, n, v))?,
            None => map
                .iter()
                .try_for_each(|(n, v)| each(self, n.as_str().as_bytes(), v.as_bytes()))?,
        }
        // The stream's end comes after them as a body write of its own, which curl's trace
        // shows.
        if self.opts.verbose {
            self.callbacks.debug_live(InfoType::DataIn, &[], &self.info);
        }
        Ok(())
    }

    /// `--fail` on an HTTP/2 response: the error, the end of the head, the connection kept.
    fn h2_fail(&mut self, cx: &mut Cx<'_>, code: u32) -> Result<()> {
        let e = Error::new(
            Code::HttpReturnedError,
            format!("The requested URL returned error: {code}"),
        );
        self.verbose(e.message());
        self.deliver_header(b"\r\n")?;
        self.h2 = None;
        self.release_conn(cx, !self.opts.forbid_reuse);
        // Shown already, in curl's place.
        let verbose = std::mem::replace(&mut self.opts.verbose, false);
        self.finish(cx, Err(e));
        self.opts.verbose = verbose;
        Ok(())
    }

    /// The server ended the stream.
    fn h2_end_of_stream(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        // HTTP/2 ends bodies with the stream, the connection stays.
        self.resp.keepalive = true;
        match (self.resp.phase, self.resp.framing) {
            (Phase::Body, Framing::Length(left)) if left > 0 => Err(Error::new(
                Code::Http2Stream,
                format!(
                    "HTTP/2 stream {} was not closed cleanly before end of the underlying stream",
                    self.h2_stream_id()
                ),
            )),
            (Phase::Head, _) => Err(Error::new(
                Code::Http2Stream,
                format!(
                    "HTTP/2 stream {} was not closed cleanly before end of the underlying stream",
                    self.h2_stream_id()
                ),
            )),
            _ => self.complete(cx).map(|_| ()),
        }
    }

    fn h2_stream_id(&self) -> u32 {
        self.h2_sid
    }

    /// The server refused the stream or went away before it: curl tries a new connection,
    /// five times at most.
    fn h2_retry(&mut self, e: Error) -> Result<bool> {
        self.h2_refused.0 = false;
        if self.h2_refused.1 >= 5 {
            self.h2_refused.1 = 0;
            let _ = e;
            return Err(Error::new(
                Code::RecvError,
                "Connection died, tried 5 times before giving up",
            ));
        }
        self.h2_refused.1 += 1;
        self.h2 = None;
        self.conn = None;
        self.h2conn = None;
        let n = self.h2_refused.1;
        self.verbose(&format!(
            "Connection died, retrying a fresh connect (retry count: {n})"
        ));
        self.opts.fresh_connect = true;
        self.state = State::Init;
        Ok(true)
    }

    /// A WINDOW_UPDATE overflowed the stream's send window (the merger had h2 reset the
    /// stream for it): curl's invalid-frame callback fails the stream with its text, and
    /// when the stream closes curl notes the callback's error as the stream's (nghttp2's
    /// -524, printed unsigned).
    fn h2_window_overflow(&mut self, id: u32, inc: u32) -> Error {
        let e = Error::new(
            Code::Http2Stream,
            format!(
                "[HTTP2] [{id}] received invalid frame: FRAME[WINDOW_UPDATE, incr={inc}], \
                 error -524: Flow control error"
            ),
        );
        if self.opts.verbose {
            self.verbose(e.message());
            self.verbose(&format!(
                "HTTP/2 stream {id} was not closed cleanly: unknown (err {})",
                -524i32 as u32
            ));
            self.resp.error_shown = true;
        }
        e
    }

    /// curl's code and message for an h2 error; `conn` for errors of the whole connection.
    fn h2_error(&mut self, e: &h2::Error, conn: bool) -> Error {
        let id = self.h2_stream_id();
        let overflow = self
            .h2conn
            .as_ref()
            .and_then(|s| s.lock().h2.as_ref().and_then(|m| m.overflow(id)));
        if let Some(inc) = overflow {
            return self.h2_window_overflow(id, inc);
        }
        let unanswered = self.resp.phase == Phase::Head && self.resp.raw_bytes == 0;
        if unanswered
            && ((e.is_reset() && e.reason() == Some(h2::Reason::REFUSED_STREAM))
                || (e.is_go_away() && e.is_remote()))
        {
            self.h2_refused.0 = true;
        }
        if let Some(r) = e.reason() {
            if e.is_go_away() && e.is_library() {
                // We (h2, as nghttp2 in curl) found the peer broken.
                let push = self
                    .h2conn
                    .as_ref()
                    .and_then(|s| s.lock().h2.as_ref().and_then(|m| m.push_promise()));
                if let Some((sid, len, hend)) = push.filter(|p| p.0 == id) {
                    // Push is off, so a PUSH_PROMISE is a protocol error; curl's
                    // invalid-frame callback fails the stream it came on.
                    return Error::new(
                        Code::Http2Stream,
                        format!(
                            "[HTTP2] [{sid}] received invalid frame: FRAME[PUSH_PROMISE, \
                             len={len}, hend={}], error -505: Protocol error",
                            u8::from(hend)
                        ),
                    );
                }
                if e.to_string().contains("too_many_continuations") {
                    return Error::new(
                        Code::Http2,
                        "nghttp2 recv error -905: Too many CONTINUATION frames following a \
                         HEADER frame",
                    );
                }
                return Error::new(
                    Code::Http2,
                    format!(
                        "nghttp2 shuts down connection with error {}: {}",
                        u32::from(r),
                        reason_name(r)
                    ),
                );
            }
            if e.is_reset() && !conn && e.is_library() && r == h2::Reason::PROTOCOL_ERROR {
                // h2 refuses a 101 (RFC 9113, 8.6) by resetting the stream; nghttp2 names
                // the field in curl's invalid-header callback, then the frame, and the
                // stream closes with the callback's error (-531, printed unsigned).
                let head = self
                    .h2conn
                    .as_ref()
                    .and_then(|s| s.lock().h2.as_ref().and_then(|m| m.next_status(id)));
                if let Some((101, len, flags)) = head {
                    let e = Error::new(
                        Code::Http2Stream,
                        format!(
                            "Invalid HTTP header field was received: frame type: 1, stream: \
                             {id}, name: [:status], value: [101]"
                        ),
                    );
                    if self.opts.verbose {
                        self.verbose(e.message());
                        self.verbose(&format!(
                            "[HTTP2] [{id}] received invalid frame: FRAME[HEADERS, len={len}, \
                             hend={}, eos={}], error -531: Invalid HTTP header field was \
                             received",
                            (flags >> 2) & 1,
                            flags & 1
                        ));
                        self.verbose(&format!(
                            "HTTP/2 stream {id} was not closed cleanly: unknown (err {})",
                            -531i32 as u32
                        ));
                        self.resp.error_shown = true;
                    }
                    return e;
                }
            }
            if e.is_reset() && !conn {
                return Error::new(
                    Code::Http2Stream,
                    format!(
                        "HTTP/2 stream {id} was not closed cleanly: {} (err {})",
                        reason_name(r),
                        u32::from(r)
                    ),
                );
            }
            return Error::new(
                Code::Http2Stream,
                format!(
                    "HTTP/2 stream {id} was not closed cleanly before end of the underlying stream"
                ),
            );
        }
        let flooded = self
            .h2conn
            .as_ref()
            .is_some_and(|s| s.lock().h2.as_ref().is_some_and(|m| m.flooded()));
        if let Some(io) = e.get_io() {
            if flooded || io.to_string() == mux::FLOODED {
                return Error::new(
                    Code::Http2,
                    "nghttp2 recv error -904: Flooding was detected in this HTTP/2 session, and \
                     it must be closed",
                );
            }
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                // h2's word for the connection's end while the stream was open.
                return match (self.resp.phase, self.resp.framing) {
                    (Phase::Body, _) => Error::code(Code::PartialFile),
                    // The body's length came, the stream's end did not.
                    (Phase::Complete, _) if self.h2_open => Error::code(Code::PartialFile),
                    (Phase::Head, _) => Error::code(Code::Http2),
                    _ => Error::new(
                        Code::Http2Stream,
                        format!(
                            "HTTP/2 stream {id} was not closed cleanly before end of the \
                             underlying stream"
                        ),
                    ),
                };
            }
            // h2 keeps an I/O error's kind, not the system's text: a reset is ECONNRESET.
            let text = match io.kind() {
                std::io::ErrorKind::ConnectionReset if io.raw_os_error().is_none() => {
                    "Connection reset by peer".to_string()
                }
                _ => crate::connect::os_error_text(io),
            };
            return Error::new(Code::RecvError, format!("Recv failure: {text}"));
        }
        Error::code(Code::Http2)
    }
}

/// Share `c` as an HTTP/2 connection. The pool watches it through a descriptor of its
/// own, so the transfer's registration of the socket itself goes: left behind, it would
/// keep reporting what the transfer last waited for (writable, after a connect: a wait
/// that never sleeps) for as long as the connection lives.
fn share(cx: &mut Cx<'_>, c: crate::conn::Conn) -> std::io::Result<crate::conn::SharedConn> {
    let _ = cx.poller.delete(c.stream.fd());
    cx.pool.share(c)
}

#[cfg(test)]
mod tests {
    use super::origin_form;

    #[test]
    fn origin_form_of_targets() {
        assert_eq!(origin_form("/a?b"), "/a?b");
        assert_eq!(origin_form("http://h:1/a/b?c"), "/a/b?c");
        assert_eq!(origin_form("http://[::1]:8/"), "/");
        assert_eq!(origin_form("http://h"), "/");
        assert_eq!(origin_form("*"), "*");
        assert_eq!(origin_form("/x?u=http://y/"), "/x?u=http://y/");
    }
}
