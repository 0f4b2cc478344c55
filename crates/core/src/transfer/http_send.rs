//! Sending an HTTP/1 request (curl's `http.c` request side and its `cr-*` readers): the
//! method, the request head, and the body from every source with its framing, `Expect:
//! 100-continue` and the rate limit.

use super::*;

impl Transfer {
    /// The method for the current options and body.
    pub(super) fn request_method(&self) -> std::borrow::Cow<'static, str> {
        if let Some(m) = self
            .opts
            .custom_request
            .as_ref()
            .filter(|_| !self.ignore_custom)
        {
            m.clone().into()
        } else if self.opts.nobody {
            "HEAD".into()
        } else {
            match self.body {
                Body::Fields(_) | Body::PostRead(_) | Body::Mime(_) => "POST".into(),
                Body::Upload(_) => "PUT".into(),
                Body::None => "GET".into(),
            }
        }
    }

    /// Build the request head for the current URL and connection.
    /// curl's `http_resume` and the upload half of `Curl_http_range`: for a PUT or POST with
    /// a resume offset or a range, the `Content-Range` value and how many bytes of the source
    /// to skip. A size of -1 (unknown) goes into the header as curl computes it.
    pub(super) fn upload_range(&self) -> Result<(Option<String>, u64)> {
        let clen: i64 = match &self.body {
            Body::Upload(n) | Body::PostRead(n) => n.map_or(-1, |n| n as i64),
            Body::Fields(f) => f.len() as i64,
            Body::None | Body::Mime(_) => return Ok((None, 0)),
        };
        if self.opts.resume_from_unknown {
            return Ok((Some(format!("bytes 0-{}/{clen}", clen - 1)), 0));
        }
        let resume = self.opts.resume_from as i64;
        if resume > 0 {
            if clen >= 0 && clen <= resume {
                return Err(Error::new(
                    Code::PartialFile,
                    "File already completely uploaded",
                ));
            }
            let total = resume + if clen >= 0 { clen - resume } else { -1 };
            let range = format!("bytes {resume}-{}/{total}", total - 1);
            return Ok((Some(range), resume as u64));
        }
        Ok(self
            .opts
            .range
            .as_ref()
            .map(|r| (Some(format!("bytes {r}/{clen}")), 0))
            .unwrap_or((None, 0)))
    }

    pub(super) fn start_request(&mut self, cx: &mut Cx<'_>) {
        // curl updates the progress after every step with a connection, so the callback
        // sees the counters of the request before (the upload counter then starts again).
        self.progress(cx.now);
        // curl's Curl_init_do starts each request's upload count from zero.
        self.info.size_upload = 0;
        // curl's state_do: the application may stop the request before it goes.
        if !self
            .callbacks
            .prereq_live(self.info.primary_ip, self.info.local_addr, &self.info)
        {
            self.req_error = Some(Error::new(
                Code::AbortedByCallback,
                "operation aborted by pre-request callback",
            ));
            self.set_io(HttpIo::Send);
            return;
        }
        let now = cx.now;
        let url = self.url.clone().expect("url");
        self.info.time_pretransfer = now.duration_since(self.started);
        self.info.effective_method = self.method.to_string();
        self.speed.restart();
        let host = url.host_punycode().unwrap_or_default();
        let port = url.port_or_default();
        // curl leaves the port out for http on 80 and https on 443 only (an ftp:// URL
        // through a proxy names 21).
        let default = matches!((url.scheme(), port), ("http", 80) | ("https", 443));
        let host_header: std::borrow::Cow<'_, str> = if default {
            host.clone()
        } else {
            let mut hp = String::with_capacity(host.len() + 6);
            let _ = write!(hp, "{host}:{port}");
            hp.into()
        };
        // The path and query, borrowed from the URL when there is no query.
        let auth_path: std::borrow::Cow<'_, str> = match url.query() {
            Some(q) => format!("{}?{q}", url.path()).into(),
            None => url.path().into(),
        };
        let absolute = self.proxy.as_ref().is_some_and(|p| p.kind.is_http()) && !self.tunnel_wanted;
        let target: std::borrow::Cow<'_, str> = match &self.opts.request_target {
            Some(t) => t.clone().into(),
            None if absolute => {
                let mut t = absolute_form(&url, self.opts.userpwd.as_ref());
                if url.scheme() == "ftp" && self.opts.ftp().proxy_transfer_mode {
                    // curl's http_target: a type the path ends with stays.
                    let path = url.path();
                    let typed = path.find(";type=").is_some_and(|at| {
                        let rest = &path.as_bytes()[at + 6..];
                        rest.len() == 1
                            && matches!(rest[0].to_ascii_uppercase(), b'A' | b'D' | b'I')
                    });
                    if !typed {
                        t.push_str(if self.opts.use_ascii {
                            ";type=a"
                        } else {
                            ";type=i"
                        });
                    }
                }
                t.into()
            }
            None => auth_path.clone(),
        };
        let same_origin = self.on_first_origin(&url);
        let get_or_head = matches!(self.body, Body::None);
        // curl outputs the proxy's authentication before the server's.
        let proxy_authorization = if absolute {
            let custom = request::custom_has(&self.opts.proxy_headers, "Proxy-Authorization")
                || request::custom_has(&self.opts.headers, "Proxy-Authorization");
            let method = self.method.clone();
            self.proxy_authorization(&method, &auth_path, get_or_head, custom)
        } else {
            None
        };
        let url_host = match self.opts.aws_sigv4 {
            Some(_) => self.url_host(),
            None => String::new(),
        };
        let aws = self
            .opts
            .aws_sigv4
            .as_deref()
            .map(|spec| auth::sigv4::Params {
                spec,
                user: self.creds.as_ref().map_or("", |c| c.0.as_str()),
                password: self.creds.as_ref().map_or("", |c| c.1.as_str()),
                method: &self.method,
                path: url.path(),
                query: url.query(),
                hostname: &url_host,
                host_header: (!request::custom_has(&self.opts.headers, "Host"))
                    .then_some(&*host_header),
                headers: &self.opts.headers,
                post_fields: match &self.body {
                    Body::Fields(f) => Some(f.as_slice()),
                    _ => None,
                },
                empty_payload: get_or_head || matches!(self.body, Body::Upload(Some(0))),
                now: crate::parsedate::unix_now(),
            });
        // NTLM authenticates a connection: on another one (a redirect that closed it, say)
        // the handshake starts over.
        if self.ntlm_conn != Some(self.info.conn_id) {
            self.auth.ntlm = auth::ntlm::Ntlm::default();
            self.ntlm_conn = Some(self.info.conn_id);
            // curl's create_conn: a new connection has no NTLM authentication yet.
            if self.auth.picked & auth::NTLM != 0 && self.auth.done {
                if self.opts.verbose {
                    self.callbacks.debug_live(
                        InfoType::Text,
                        b"NTLM picked AND auth done set, clear picked\n",
                        &self.info,
                    );
                }
                self.auth.picked = 0;
                self.auth.done = false;
            }
        }
        let auth_out = self.auth.output(
            &auth::Request {
                method: &self.method,
                path: &auth_path,
                get_or_head,
                creds: self.creds.as_ref().map(|(u, p)| (u.as_str(), p.as_str())),
                bearer: self.opts.bearer.as_deref(),
                allowed: same_origin || self.opts.unrestricted_auth || self.creds_netrc,
                custom_header: request::custom_has(&self.opts.headers, "Authorization"),
                aws,
            },
            random12,
        );
        for n in &auth_out.pre_notes {
            self.verbose(n);
        }
        if let Some(n) = &auth_out.note {
            self.verbose(n);
        }
        // curl fails a request whose authorization it cannot make before it shows it.
        let auth_failed = auth_out.error.is_some();
        self.req_error = auth_out.error;
        // --crlf: the converted body's length is unknown, so it goes chunked (curl keeps
        // the form Content-Type of a POST).
        let crlf = self.opts.crlf && !matches!(self.body, Body::None) && !self.probing();
        // curl's `http_request_version`: HTTP/1.0 when asked for, or when this transfer or
        // this connection has had a 1.0 response (a 401 or a redirect from a 1.0 server).
        let http10 = !self.on_h2()
            && (self.opts.http_version == HttpVersionPref::V1_0
                || self.seen_http10
                || self.conn.as_ref().is_some_and(|c| c.http10));
        let framing = match &self.body {
            Body::None => BodyFraming::None,
            // Negotiating authentication: a probe without the body.
            Body::Fields(_) | Body::Upload(_) | Body::PostRead(_) | Body::Mime(_)
                if self.probing() =>
            {
                BodyFraming::Length {
                    len: 0,
                    form: matches!(self.body, Body::Fields(_) | Body::PostRead(_)),
                }
            }
            Body::Mime(_) => match self.mime_size {
                Some(len) => BodyFraming::Length { len, form: false },
                None => BodyFraming::Chunked { form: false },
            },
            Body::Fields(f) => {
                if self.method == "POST" || self.opts.custom_request.is_some() {
                    BodyFraming::Length {
                        len: f.len() as u64,
                        form: true,
                    }
                } else {
                    BodyFraming::None
                }
            }
            Body::Upload(Some(n)) => BodyFraming::Length {
                len: *n,
                form: false,
            },
            Body::PostRead(Some(n)) => BodyFraming::Length {
                len: *n,
                form: true,
            },
            Body::Upload(None) | Body::PostRead(None) => BodyFraming::Chunked {
                form: matches!(self.body, Body::PostRead(_)),
            },
        };
        let (content_range, skip) = match self.upload_range() {
            Ok(r) => r,
            Err(e) => {
                self.req_error = Some(e);
                (None, 0)
            }
        };
        let framing = match framing {
            BodyFraming::Length { len, form } if !self.probing() => BodyFraming::Length {
                len: len.saturating_sub(skip),
                form,
            },
            f => f,
        };
        // curl asks for h2c on a connection without TLS when HTTP/2 is wanted (`--http2`)
        // and the connection speaks HTTP/1 (`Curl_http2_request_upgrade`).
        self.h2_upgrade = (
            self.opts.http_version == HttpVersionPref::V2
                && !self.on_h2()
                && self
                    .conn
                    .as_ref()
                    .is_some_and(|c| c.tls.is_none() && c.proxy_tls.is_none()),
            false,
        );
        // Expect goes by the size of the body, whatever the framing: 100-continue follows
        // the source's own length, also under --crlf. Not with an Upgrade (curl's
        // `addexpect`), not even a custom one; curl's own only on HTTP/1.1.
        let expect_100 = !http10
            && !self.h2_upgrade.0
            && !self.on_h2()
            && !self.disable_expect
            && !self.probing()
            && match framing {
                BodyFraming::Chunked { .. } | BodyFraming::Unframed { .. } => true,
                BodyFraming::Length { len, .. } => len > EXPECT_100_THRESHOLD,
                BodyFraming::None => false,
            };
        let framing = if crlf {
            BodyFraming::Chunked { form: false }
        } else {
            framing
        };
        // A custom Transfer-Encoding decides about chunks (curl's `http_req_set_reader`):
        // naming chunked, it chunks a body of known size too; otherwise a body of unknown
        // size goes unframed.
        let framing = match (self.custom_chunked(), framing) {
            // A probe too: curl sends the empty chunked body ("0\r\n\r\n"), not a length.
            (Some(true), BodyFraming::Length { form, .. }) => BodyFraming::Chunked { form },
            (Some(false), BodyFraming::Chunked { form }) => BodyFraming::Unframed { form },
            (_, f) => f,
        };
        // curl's http_req_complete: the body's length, when known, is the upload size.
        self.info.content_length_upload = match framing {
            BodyFraming::None => Some(0),
            BodyFraming::Length { len, .. } => Some(len),
            _ => None,
        };
        // A body of unknown size cannot be framed in HTTP/1.0 (curl's
        // `http_req_set_reader`); a custom Transfer-Encoding naming chunked is sent as asked.
        if http10
            && self.custom_chunked().is_none()
            && matches!(framing, BodyFraming::Chunked { .. })
        {
            self.req_error = Some(Error::new(
                Code::UploadFailed,
                "Chunky upload is not supported by HTTP 1.0",
            ));
        }
        // curl's `addexpect`: a custom Expect header decides instead, and waits when it
        // names 100-continue.
        let expect_announced = match request::custom_header(&self.opts.headers, "Expect") {
            Some(h) => {
                framing != BodyFraming::None && expect_names_100_continue(h) && !self.h2_upgrade.0
            }
            None => expect_100,
        };
        self.req.clear();
        // Room for a usual request head at once, rather than growing to it.
        self.req.reserve(256 + target.len());
        let referer = self.referer.clone();
        let mime_type = match &self.body {
            Body::Mime(m) if !self.probing() => {
                Some(m.content_type_as(request::custom_mime_type(&self.opts.headers)))
            }
            Body::Fields(_) | Body::PostRead(_) if crlf && self.method == "POST" => {
                Some("application/x-www-form-urlencoded".to_string())
            }
            _ => None,
        };
        // A custom Cookie header replaces the user's cookie string, not the jar's cookies.
        let user = self
            .opts
            .cookie
            .as_deref()
            .filter(|_| !request::custom_has(&self.opts.headers, "Cookie"))
            .map(str::as_bytes);
        let cookie: Option<Vec<u8>> = match cx.cookies.jar.as_mut() {
            Some(jar) if self.cookie_engine() => {
                jar.new_request();
                let (host, path, secure) = self.cookie_target();
                let h = jar.cookie_header_full(
                    &host,
                    &path,
                    secure,
                    user,
                    crate::parsedate::unix_now(),
                );
                for n in &h.info {
                    self.verbose(n);
                }
                h.value
            }
            _ => user.map(<[u8]>::to_vec),
        };
        let authneg = self.probing();
        request::build(
            &mut self.req,
            &self.opts,
            &RequestParts {
                method: &self.method,
                target: &target,
                host_header: &host_header,
                custom_host_ok: self
                    .first_origin
                    .as_ref()
                    .is_some_and(|(_, h, _)| h.eq_ignore_ascii_case(&host)),
                framing,
                http10,
                cookie: cookie.as_deref(),
                content_type: mime_type.as_deref(),
                mime: matches!(self.body, Body::Mime(_)) && !authneg,
                authorization: auth_out.header.as_deref(),
                referer: referer.as_deref(),
                expect_100: expect_100 && !request::custom_has(&self.opts.headers, "Expect"),
                sensitive_ok: same_origin || self.opts.unrestricted_auth,
                proxy_authorization: proxy_authorization.as_deref(),
                proxy_headers: absolute.then_some(if self.opts.proxy_headers_unified {
                    &[]
                } else {
                    self.opts.proxy_headers.as_slice()
                }),
                content_range: content_range.as_deref(),
                alt_used: self.alt_used.as_deref(),
                authneg,
                h2_upgrade: self.h2_upgrade.0,
            },
        );
        self.info.request_size += self.req.len() as u64;
        if self.on_h2() {
            // curl counts the HTTP/1-style head it hands its HTTP/2 filter, whose request
            // line names "HTTP/2", and then the body bytes as they go; fields are counted
            // whole here, the other bodies as they are read.
            let line = self.req.split(|&b| b == b'\n').next().unwrap_or_default();
            if line.ends_with(b" HTTP/1.1\r") {
                self.info.request_size -= 2;
            }
            if let Body::Fields(f) = &self.body {
                self.info.request_size += f.len() as u64;
            }
        }
        if (self.tls_trace_on() || self.early_pending()) && !self.on_h2() {
            // curl shows the request once it went out, after the record's trace (or the
            // handshake deferred for early data that carries it).
            self.head_pending = Some(self.req.len());
        } else if self.opts.verbose && !self.on_h2() && !auth_failed {
            let req = std::mem::take(&mut self.req);
            self.callbacks
                .debug_live(InfoType::HeaderOut, &req, &self.info);
            self.req = req;
        }
        // curl counts the bytes of each request's body from zero (`Curl_init_do`).
        self.info.size_upload = 0;
        if self.probing() && matches!(framing, BodyFraming::Chunked { .. }) {
            // The probe's body: the last chunk alone, counted as body bytes sent.
            self.req.extend_from_slice(b"0\r\n\r\n");
            self.info.request_size += 5;
            self.info.size_upload += 5;
        }
        self.req_sent = 0;
        self.up = Upload {
            chunked: matches!(framing, BodyFraming::Chunked { .. }),
            await_continue: expect_announced,
            expect_announced,
            body_done: framing == BodyFraming::None || self.probing(),
            upload_base: 0,
            skip,
            limit: match (&self.body, framing) {
                (Body::Upload(_) | Body::PostRead(_), BodyFraming::Length { len, .. }) => Some(len),
                _ => None,
            },
            crlf,
            head_room: if self.on_h2() { 0 } else { self.req.len() },
            chunked_left: match (&self.body, framing) {
                (_, BodyFraming::Chunked { .. }) if crlf => None,
                // A POST from the read callback under a forced chunked encoding disregards
                // its size (curl's `set_reader`, issue 13229); a PUT keeps it.
                (Body::Upload(Some(n)), BodyFraming::Chunked { .. }) => {
                    Some(n.saturating_sub(skip))
                }
                (Body::Fields(f), BodyFraming::Chunked { .. }) => Some(f.len() as u64),
                _ => None,
            },
            ..Upload::default()
        };
        if (crlf
            || self.up.chunked
            || matches!(
                self.body,
                Body::Upload(_) | Body::PostRead(_) | Body::Mime(_)
            ))
            && framing != BodyFraming::None
            && !self.probing()
        {
            self.up.buf = vec![0u8; self.opts.upload_buffer_size + 32];
        }
        let next_no = if self.resp.code == 0 && self.resp.request_no == 0 {
            0
        } else {
            self.resp.request_no + 1
        };
        self.resp = Resp::new(next_no);
        self.set_io(HttpIo::Send);
        if self.on_h2() {
            if let Err(e) = self.h2_start() {
                self.req_error = Some(e);
            }
        }
    }

    pub(super) fn do_send(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if let Some(e) = self.req_error.take() {
            return Err(e);
        }
        let mut sent;
        let mut early_body = 0;
        loop {
            let trace = self.tls_trace_on() && self.req_sent < self.req.len();
            if trace {
                self.tls_trace_start();
            }
            let was_deferred = self.early_pending();
            // Deferred for early data, the first send takes the start of a `-d` body with
            // the head, as curl's send buffer holds both; the same bytes at every try.
            let body_start = match &self.body {
                Body::Fields(f) if was_deferred && !self.up.crlf && !self.up.chunked => {
                    &f[..f.len().min(EARLY_BODY_MAX)]
                }
                _ => &[][..],
            };
            let conn = self.conn.as_mut().expect("conn");
            sent = Ok(());
            while self.req_sent < self.req.len() {
                let r = if was_deferred && self.req_sent == 0 && !body_start.is_empty() {
                    let mut first = Vec::with_capacity(self.req.len() + body_start.len());
                    first.extend_from_slice(&self.req);
                    first.extend_from_slice(body_start);
                    conn.send(&first)
                } else {
                    conn.send(&self.req[self.req_sent..])
                };
                match r {
                    Ok(n) => {
                        let head = n.min(self.req.len() - self.req_sent);
                        self.req_sent += head;
                        early_body = n - head;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        sent = Err(e);
                        break;
                    }
                }
                // A handshake deferred for early data ended: what it came to is written
                // before the rest goes.
                if conn.tls.as_ref().is_some_and(|t| t.early_outcome_ready()) {
                    break;
                }
            }
            let inner = conn.proxy_tls.is_some() || conn.tunnel.is_some();
            if trace {
                self.tls_trace_end();
            }
            if let Err(e) = &mut sent {
                if e.kind() != io::ErrorKind::WouldBlock {
                    if was_deferred {
                        // The deferred handshake failed: its verify result stays, what the
                        // session noted is written, and inside a proxy's session the error
                        // is told as for any handshake there.
                        self.early_handshake_notes();
                        if inner {
                            if let Some(err) = crate::tls::curl_error(e) {
                                *e = crate::tls::io_error(crate::tls::inner_handshake_error(err));
                            }
                        }
                    }
                    break;
                }
            }
            if !self.early_handshake_done(cx)? || sent.is_err() {
                break;
            }
        }
        // A handshake deferred for early data is not through yet: the request has not gone.
        let deferred = self.early_pending();
        if let Some(n) = self.head_pending.take_if(|_| !deferred) {
            let req = std::mem::take(&mut self.req);
            self.callbacks
                .debug(InfoType::HeaderOut, &req[..n.min(req.len())]);
            self.req = req;
        }
        if early_body > 0 {
            // The body's start went as accepted early data: counted and traced as sent.
            if let Body::Fields(f) = &self.body {
                let d = f[..early_body].to_vec();
                self.up.fields_sent = early_body;
                self.info.size_upload += early_body as u64;
                self.info.request_size += early_body as u64;
                if self.opts.verbose {
                    self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
                }
            }
        }
        match sent {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) => return Err(send_error(&e)),
        }
        if self.up.await_continue {
            if self.timers.get(TimerId::Expect100).is_none() {
                self.timers
                    .set(TimerId::Expect100, cx.now + self.opts.expect_100_timeout);
            }
            self.set_io(HttpIo::Recv);
            return Ok(true);
        }
        while !self.up.body_done {
            if !self.send_body_some()? {
                return self.recv_while_sending(cx);
            }
            // Under a send limit, check the speed after every send.
            if self.opts.max_send_speed > 0 && !self.up.body_done {
                return Ok(true);
            }
        }
        self.request_sent(cx);
        // The answer came before the body was all sent (`complete` sent it on).
        if self.resp.phase == Phase::Complete {
            return self.complete(cx);
        }
        self.set_io(HttpIo::Recv);
        Ok(true)
    }

    /// The whole request went: curl's note, times and progress.
    pub(super) fn request_sent(&mut self, cx: &mut Cx<'_>) {
        let sent = self.info.size_upload - self.up.upload_base;
        if sent > 0 {
            self.verbose(&format!("upload completely sent off: {sent} bytes"));
        } else {
            self.verbose("Request completely sent off");
        }
        self.info.time_posttransfer = cx.now.duration_since(self.started);
        // curl updates the progress once the request is sent, before it reads a response
        // byte (its loop receives before it sends), so a meter shows the finished upload.
        if sent > 0 {
            self.progress(cx.now);
        }
    }

    /// The body cannot go on for now (the socket is full, or the read callback paused):
    /// read meanwhile, as curl's loop does, so that an answer before the end of the body
    /// is seen. Once a byte of it came the transfer receives, sending alongside.
    pub(super) fn recv_while_sending(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if self.resp.phase == Phase::Complete {
            return Ok(false);
        }
        let before = self.resp.raw_bytes;
        self.set_io(HttpIo::Recv);
        let r = self.do_recv(cx);
        if self.io_is(HttpIo::Recv) && self.resp.raw_bytes == before && matches!(r, Ok(false)) {
            self.set_io(HttpIo::Send);
            // The read may have let the body go on (an HTTP/2 tunnel reads its window
            // updates with the answer): one more try before waiting.
            if self.paused() & pause::SEND == 0 && self.send_body_some()? {
                return Ok(true);
            }
        }
        r
    }

    /// An answer is being received while the body still goes (after an early answer that
    /// does not stop it: a 2xx, or an error with `KEEP_SENDING_ON_ERROR`).
    pub(super) fn sending_alongside(&self) -> bool {
        self.io_is(HttpIo::Recv)
            && !self.up.body_done
            && !self.up.await_continue
            && self.resp.phase != Phase::Complete
    }

    /// Send what the body has ready while receiving (`sending_alongside`).
    pub(super) fn send_alongside(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        if !self.sending_alongside() || self.paused() & pause::SEND != 0 {
            return Ok(());
        }
        while !self.up.body_done {
            if !self.send_body_some()? {
                return Ok(());
            }
        }
        self.request_sent(cx);
        Ok(())
    }

    /// Send some body bytes; Ok(false) when the socket is full.
    pub(super) fn send_body_some(&mut self) -> Result<bool> {
        let conn = self.conn.as_mut().expect("conn");
        match &self.body {
            Body::Fields(f) if !self.up.crlf && !self.up.chunked => {
                if self.up.fields_sent >= f.len() {
                    self.up.body_done = true;
                    return Ok(true);
                }
                let end = send_end(self.up.fields_sent, f.len(), self.opts.max_send_speed);
                match conn.send(&f[self.up.fields_sent..end]) {
                    Ok(n) => {
                        if self.opts.verbose {
                            let d = f[self.up.fields_sent..self.up.fields_sent + n].to_vec();
                            self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
                        }
                        self.up.fields_sent += n;
                        self.info.size_upload += n as u64;
                        self.info.request_size += n as u64;
                        Ok(true)
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(true),
                    Err(e) => Err(send_error(&e)),
                }
            }
            Body::Fields(_) | Body::Upload(_) | Body::PostRead(_) | Body::Mime(_) => {
                if self.up.pos == self.up.len {
                    if self.up.eof {
                        self.up.body_done = true;
                        return Ok(true);
                    }
                    if self.paused() & pause::SEND != 0 {
                        return Ok(false);
                    }
                    self.fill_upload()?;
                    if self.up.pos == self.up.len && self.up.eof {
                        self.up.body_done = true;
                        return Ok(true);
                    }
                    if self.up.pos == self.up.len {
                        // The read callback paused sending.
                        return Ok(false);
                    }
                }
                let conn = self.conn.as_mut().expect("conn");
                let end = send_end(self.up.pos, self.up.len, self.opts.max_send_speed);
                match conn.send(&self.up.buf[self.up.pos..end]) {
                    Ok(n) => {
                        if self.opts.verbose && n > 0 {
                            // What went, chunk framing included (curl traces its send buffer).
                            let d = self.up.buf[self.up.pos..self.up.pos + n].to_vec();
                            self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
                        }
                        self.up.pos += n;
                        self.info.request_size += n as u64;
                        Ok(true)
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(true),
                    Err(e) => Err(send_error(&e)),
                }
            }
            Body::None => {
                self.up.body_done = true;
                Ok(true)
            }
        }
    }

    /// A resumed upload: read and drop the bytes before the resume offset (curl's
    /// `cr_in_resume_from` when the source cannot seek), using the upload buffer.
    pub(super) fn skip_upload(&mut self, start: usize, room: usize) -> Result<()> {
        let mut passed = 0u64;
        while self.up.skip > 0 {
            let want = room.min(usize::try_from(self.up.skip).unwrap_or(usize::MAX));
            let got = match self
                .callbacks
                .read_live(&mut self.up.buf[start..start + want], &self.info)
            {
                ReadResult::Data(n) if n > 0 && n <= want => n,
                _ => {
                    return Err(Error::new(
                        Code::ReadError,
                        format!("Could only read {passed} bytes from the input"),
                    ))
                }
            };
            passed += got as u64;
            self.up.skip -= got as u64;
        }
        Ok(())
    }

    /// Read the next piece of upload data from the application, framed when chunked.
    pub(super) fn fill_upload(&mut self) -> Result<()> {
        let cap = self.opts.upload_buffer_size;
        // The first read fills what the request head left of curl's send buffer.
        let head = std::mem::take(&mut self.up.head_room);
        let avail = if head < cap { cap - head } else { cap };
        let (start, mut room) = if self.up.chunked {
            // curl's chunked reader (`add_chunk`): no more than 64 KiB a chunk, less the
            // most a chunk's framing takes, or a chunk of 1 KiB when less room is left.
            let blen = avail.min(64 * 1024);
            (18, if blen < 1024 { 1024 } else { blen - 12 })
        } else {
            (0, cap)
        };
        // Read no more than a second's worth under a send limit, so the upload counter
        // (which the limit watches) moves in steps the limit can pace.
        if self.opts.max_send_speed > 0 {
            room = room.min(usize::try_from(self.opts.max_send_speed).unwrap_or(usize::MAX));
        }
        self.skip_upload(start, room)?;
        if self.up.crlf {
            // curl's LF converter (`cr_lc_read`): what an earlier read converted beyond
            // its chunk goes first; otherwise read as much as the chunk takes, pass it on
            // as it is when it has no LF, else convert all of it and hand out a chunk's
            // worth.
            if self.up.crlf_out_pos < self.up.crlf_out.len() {
                let rest = &self.up.crlf_out[self.up.crlf_out_pos..];
                let n = rest.len().min(room);
                self.up.buf[start..start + n].copy_from_slice(&rest[..n]);
                self.up.crlf_out_pos += n;
                return self.frame_upload(start, n);
            }
            let mut inb = std::mem::take(&mut self.up.crlf_in);
            inb.resize(room, 0);
            // A form or the POST fields fill the buffer as curl's readers do; the
            // application's callback is asked once.
            let mut read = self.read_body_source(&mut inb);
            if self.mime.is_some() || matches!(self.body, Body::Fields(_)) {
                while let Ok(got) = read {
                    if got == 0 || got >= room {
                        break;
                    }
                    read = self.read_body_source(&mut inb[got..]).map(|n| got + n);
                    if read.as_ref().is_ok_and(|&n| n == got) {
                        break;
                    }
                }
            }
            if read.as_ref().is_ok_and(|&n| n == 0) && self.paused() & pause::SEND != 0 {
                self.up.crlf_in = inb;
                self.up.pos = 0;
                self.up.len = 0;
                return Ok(());
            }
            let r = read.map(|n| {
                let n = n.min(room);
                let src = &inb[..n];
                let out = &mut self.up.crlf_out;
                out.clear();
                if !crate::codec::lf_to_crlf(src, &mut self.up.prev_cr, out) {
                    self.up.buf[start..start + n].copy_from_slice(src);
                    return n;
                }
                let k = out.len().min(room);
                self.up.buf[start..start + k].copy_from_slice(&out[..k]);
                self.up.crlf_out_pos = k;
                k
            });
            self.up.crlf_in = inb;
            let n = r?;
            return self.frame_upload(start, n);
        }
        let read = match (&self.body, self.mime.as_mut()) {
            // Chunked fields go through the buffer like any other body.
            (Body::Fields(f), _) => {
                let n = (f.len() - self.up.fields_sent).min(room);
                let from = self.up.fields_sent;
                self.up.buf[start..start + n].copy_from_slice(&f[from..from + n]);
                self.up.fields_sent += n;
                ReadResult::Data(n)
            }
            (_, Some(m)) => match m.read(&mut self.up.buf[start..start + room]) {
                Ok(n) => ReadResult::Data(n),
                Err(crate::mime::MimeError::Aborted) => ReadResult::Abort,
                Err(crate::mime::MimeError::Pause) => ReadResult::Pause,
                Err(_) => {
                    return Err(Error::new(
                        Code::ReadError,
                        "Failed to open/read local data from file/application",
                    ))
                }
            },
            (_, None) => {
                let room = match self.up.limit.or(self.up.chunked_left) {
                    Some(limit) if self.up.chunked => {
                        // A chunked PUT of known size reads no more than what is left.
                        room.min(usize::try_from(limit).unwrap_or(room))
                    }
                    Some(limit) => {
                        let sent = self.info.size_upload - self.up.upload_base;
                        room.min(usize::try_from(limit.saturating_sub(sent)).unwrap_or(room))
                    }
                    None => room,
                };
                if room == 0 {
                    ReadResult::Data(0)
                } else {
                    self.callbacks
                        .read_live(&mut self.up.buf[start..start + room], &self.info)
                }
            }
        };
        let n = match read {
            ReadResult::Data(n) => n.min(room),
            ReadResult::Pause => {
                self.pause_now(pause::SEND);
                self.up.pos = 0;
                self.up.len = 0;
                return Ok(());
            }
            ReadResult::Abort => {
                return Err(Error::new(
                    Code::AbortedByCallback,
                    "operation aborted by callback",
                ))
            }
        };
        self.frame_upload(start, n)
    }

    /// Read body bytes from the form, the POST fields or the application into `buf`.
    pub(super) fn read_body_source(&mut self, buf: &mut [u8]) -> Result<usize> {
        let read = match (&self.body, self.mime.as_mut()) {
            (_, Some(m)) => match m.read(buf) {
                Ok(n) => ReadResult::Data(n),
                Err(crate::mime::MimeError::Aborted) => ReadResult::Abort,
                Err(crate::mime::MimeError::Pause) => ReadResult::Pause,
                Err(_) => {
                    return Err(Error::new(
                        Code::ReadError,
                        "Failed to open/read local data from file/application",
                    ))
                }
            },
            (Body::Fields(f), None) => {
                let rest = &f[self.up.fields_sent.min(f.len())..];
                let n = rest.len().min(buf.len());
                buf[..n].copy_from_slice(&rest[..n]);
                self.up.fields_sent += n;
                ReadResult::Data(n)
            }
            _ => self.callbacks.read_live(buf, &self.info),
        };
        match read {
            ReadResult::Data(n) => Ok(n),
            ReadResult::Pause => {
                self.pause_now(pause::SEND);
                Ok(0)
            }
            ReadResult::Abort => Err(Error::new(
                Code::AbortedByCallback,
                "operation aborted by callback",
            )),
        }
    }

    /// The `n` body bytes at `buf[start..]` are read: count, trace and frame them.
    pub(super) fn frame_upload(&mut self, start: usize, n: usize) -> Result<()> {
        self.up.source_read |= n > 0;
        // HTTP/1 traces the bytes as they are sent.
        if self.opts.verbose && n > 0 && self.on_h2() {
            let d = self.up.buf[start..start + n].to_vec();
            self.callbacks.debug_live(InfoType::DataOut, &d, &self.info);
        }
        if self.up.chunked {
            if let Some(left) = &mut self.up.chunked_left {
                *left = left.saturating_sub(n as u64);
            }
            let at_end = n > 0
                && (self.up.chunked_left == Some(0)
                    || self.mime.as_ref().is_some_and(|m| m.at_end()));
            let mut hb = [0u8; 20];
            let h = crate::proto::h1::chunked::chunk_header(n, &mut hb);
            let hl = h.len();
            let hs = start - hl;
            self.up.buf[hs..start].copy_from_slice(&hb[..hl]);
            let mut end = start + n;
            if n > 0 {
                self.up.buf[end..end + 2].copy_from_slice(b"\r\n");
                end += 2;
            }
            if n == 0 || at_end {
                if at_end {
                    if self.up.buf.len() < end + 5 {
                        self.up.buf.resize(end + 5, 0);
                    }
                    self.up.buf[end..end + 3].copy_from_slice(b"0\r\n");
                    end += 3;
                }
                self.up.eof = true;
                end = self.last_chunk_trailers(end)?;
                self.up.buf[end..end + 2].copy_from_slice(b"\r\n");
                end += 2;
            }
            self.up.pos = hs;
            self.up.len = end;
            // curl counts what its chunked encoder hands on: the framing too.
            self.info.size_upload += (end - hs) as u64;
        } else {
            if n == 0 {
                self.up.eof = true;
            }
            self.up.pos = 0;
            self.up.len = n;
            self.info.size_upload += n as u64;
            if self.on_h2() {
                // HTTP/1 counts the bytes as it sends them; see `request_size` at the head.
                self.info.request_size += n as u64;
            }
        }
        Ok(())
    }

    /// The application's trailers after the last chunk's `0\r\n` at `buf[..end]` (curl's
    /// `add_last_chunk`): lines without `: ` after the name are skipped. Returns the new end,
    /// with room for the final CRLF.
    pub(super) fn last_chunk_trailers(&mut self, mut end: usize) -> Result<usize> {
        let Some(lines) = self.callbacks.trailers() else {
            return Err(Error::new(
                Code::AbortedByCallback,
                "operation aborted by trailing headers callback",
            ));
        };
        for line in &lines {
            let ok = line
                .iter()
                .position(|&b| b == b':')
                .is_some_and(|i| line.get(i + 1) == Some(&b' '));
            if !ok {
                self.verbose("Malformatted trailing header, skipping trailer");
                continue;
            }
            let need = end + line.len() + 4;
            if self.up.buf.len() < need {
                self.up.buf.resize(need, 0);
            }
            self.up.buf[end..end + line.len()].copy_from_slice(line);
            end += line.len();
            self.up.buf[end..end + 2].copy_from_slice(b"\r\n");
            end += 2;
        }
        Ok(end)
    }
}
