//! The HTTP handler (curl's `Curl_handler_http` and `Curl_handler_https`): HTTP/1.x and
//! HTTP/2 as two modes of one protocol. The request is made in `http_send`, the response read
//! in `http_recv`, HTTP/2 streams run in `http2`; this module is what the multi states ask of
//! them.

use super::handler::Handler;
use super::*;

/// The handler of `http` and `https`.
pub(super) struct Http;

pub(super) static HTTP: Http = Http;

impl Handler for Http {
    /// Method, credentials (`-u`, the URL, `.netrc`) and a fresh reader of a multipart body
    /// for every request (redirects and authentication retries send it again).
    fn setup(&self, t: &mut Transfer, _cx: &mut Cx<'_>, url: &Url) -> Result<()> {
        t.method = t.request_method();
        t.find_credentials(url)?;
        if let Body::Mime(m) = &t.body {
            let custom = request::custom_mime_type(&t.opts.headers);
            let (r, size) = m.reader_as(custom).map_err(|e| match e {
                // curl's cr_mime_rewind, for a body sent before.
                crate::mime::MimeError::Rewind => {
                    Error::new(Code::SendFailRewind, "Cannot rewind mime/post data")
                }
                _ => Error::new(
                    Code::ReadError,
                    "Failed to open/read local data from file/application",
                ),
            })?;
            t.mime = Some(r);
            t.mime_size = size;
        }
        Ok(())
    }

    /// A new connection: whether it speaks HTTP/2 (curl names HTTP/2 here only when ALPN
    /// chose it, not for prior knowledge).
    fn connect(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        let alpn_h2 = t.h2_negotiate(cx);
        t.verbose(if alpn_h2 {
            "using HTTP/2"
        } else {
            "using HTTP/1.x"
        });
        Ok(true)
    }

    fn do_it(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        t.start_request(cx);
        Ok(true)
    }

    fn perform(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        match t.http_io {
            HttpIo::Send => t.do_send(cx),
            HttpIo::Recv => t.do_recv(cx),
            HttpIo::H2 => t.do_h2(cx),
        }
    }

    fn interests<'a>(&self, t: &'a Transfer) -> [Option<Interest<'a>>; 2] {
        let mut out = [None, None];
        if !matches!(t.state, State::Perform) {
            return out;
        }
        if t.http_io == HttpIo::H2 {
            out[0] = t.h2_interest();
            return out;
        }
        if let Some(c) = &t.conn {
            let recv = t.http_io == HttpIo::Recv;
            // curl reads while it sends the body, so that an early answer is seen; after
            // one it may go on sending the body (`sending_alongside`).
            let read = recv || (t.req_sent >= t.req.len() && t.resp.phase != Phase::Complete);
            // A handshake deferred for early data that waits for the server.
            let early_read =
                !recv && c.tls.as_ref().is_some_and(|t| t.early_wants_read()) && !c.wants_write();
            out[0] = Some(Interest {
                fd: c.stream.fd(),
                id: c.sock_id,
                read: read || early_read,
                write: !early_read && (!recv || t.sending_alongside() || c.wants_write()),
                shared: false,
            });
        }
        out
    }

    fn moving(&self, t: &Transfer) -> bool {
        t.http_io != HttpIo::H2
    }

    fn check_timers(&self, t: &mut Transfer, now: Instant) {
        if t.timers.expired(TimerId::Expect100, now) && t.up.await_continue {
            t.timers.clear(TimerId::Expect100);
            t.up.await_continue = false;
            t.verbose("Done waiting for 100-continue");
            if t.io_is(HttpIo::Recv) && t.resp.phase == Phase::Head && t.resp.raw_bytes == 0 {
                t.set_io(HttpIo::Send);
            }
        }
    }

    /// A premature end closes the connection; an empty reply ends it the regular way. An
    /// HTTP/2 connection stays open for the other streams on it.
    fn closing(&self, t: &Transfer, code: Code) -> Option<&'static str> {
        match t.http_io {
            HttpIo::H2 => None,
            _ if t.conn.is_none() => None,
            _ if code == Code::GotNothing => Some("shutting down"),
            _ => Some("closing"),
        }
    }
}

impl Transfer {
    /// Performing, doing `io`.
    pub(super) fn set_io(&mut self, io: HttpIo) {
        self.state = State::Perform;
        self.http_io = io;
    }

    /// Performing, doing `io`?
    pub(super) fn io_is(&self, io: HttpIo) -> bool {
        matches!(self.state, State::Perform) && self.http_io == io
    }

    /// The response is fully received: follow a redirect or finish.
    pub(super) fn complete(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if let Some(mut dec) = self.resp.decoder.take() {
            let mut failed = None;
            let r = dec
                .finish(&mut |out: &[u8]| self.emit(Out::Body, out).map_err(|e| failed = Some(e)));
            if let Some(e) = failed {
                return Err(e);
            }
            r.map_err(|e| {
                Error::new(
                    Code::from_u32(e.curl_code()).unwrap_or(Code::BadContentEncoding),
                    e.to_string(),
                )
            })?;
        }
        self.resp.phase = Phase::Complete;
        // Data kept during a pause goes first: the transfer completes when it is let go.
        if self.recv_held() {
            return Ok(false);
        }
        // The answer came before the whole body and the body goes on: the transfer ends
        // once it is sent (`do_send` comes back here).
        if !self.up.body_done && !self.up.await_continue {
            self.set_io(HttpIo::Send);
            return Ok(true);
        }
        let reusable = self.resp.keepalive && self.up.body_done && !self.opts.forbid_reuse;
        // The connection is settled before a next request begins: one that fails before it
        // connects has none (curl's "closing connection #-1").
        self.settle_pending(cx);
        if self.auth_retry {
            self.auth_retry = false;
            self.redirect_to = None;
            self.release_conn(cx, reusable);
            return self.retry_for_auth(cx).map(|_| true);
        }
        if let Some(next) = self.redirect_to.take() {
            self.release_conn(cx, reusable);
            return self.follow(cx, next).map(|_| true);
        }
        self.release_conn(cx, reusable);
        self.finish(cx, Ok(()));
        Ok(false)
    }
}
