//! Reading an HTTP/1 response (curl's `http.c` response side and its `cw-*` writers): the
//! status line and header lines, what each header means for the transfer, transfer and
//! content decoding, and body delivery.

use super::*;

impl Transfer {
    pub(super) fn do_recv(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        self.send_alongside(cx)?;
        if self.recv_held() {
            if !self.flush_held()? {
                return Ok(false);
            }
            if self.resp.phase == Phase::Complete {
                return self.complete(cx);
            }
        }
        let mut buf = cx.bufs.get(self.opts.buffer_size);
        let r = self.recv_loop(cx, &mut buf);
        cx.bufs.put(buf);
        r
    }

    pub(super) fn recv_loop(&mut self, cx: &mut Cx<'_>, buf: &mut [u8]) -> Result<bool> {
        // Under a receive limit, read at most a second's worth at a time and check the
        // speed after every read (curl's `sendrecv_dl`).
        let limited = self.opts.max_recv_speed > 0;
        let buf = match usize::try_from(self.opts.max_recv_speed) {
            Ok(max) if limited && max < buf.len() => &mut buf[..max],
            _ => buf,
        };
        let trace = self.tls_trace_on();
        let mut burst = 0;
        let mut reads = 0u32;
        loop {
            // A peer that never lets the socket drain keeps this loop going: the timeouts
            // are looked at against the clock every few reads, so `-m` holds all the same.
            reads = reads.wrapping_add(1);
            if reads.is_multiple_of(16) {
                self.check_timeouts(Instant::now())?;
            }
            if trace {
                self.tls_trace_start();
            }
            let conn = self.conn.as_mut().expect("conn");
            let got = match conn.flush() {
                Ok(()) => Ok(conn.recv(buf)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(conn.recv(buf)),
                Err(e) => Err(e),
            };
            if trace {
                self.tls_trace_end();
            }
            let n = match got.map_err(|e| send_error(&e))? {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if let Some(err) = crate::tls::curl_error(&e) {
                        if self.resp.raw_bytes > 0 || !self.conn_reused {
                            return Err(err);
                        }
                    }
                    if self.resp.raw_bytes == 0 && self.conn_reused {
                        return self.retry_fresh();
                    }
                    return Err(Error::new(
                        Code::RecvError,
                        format!("Recv failure: {}", connect::os_error_text(&e)),
                    ));
                }
            };
            if n == 0 {
                return self.on_eof(cx);
            }
            if self.info.time_starttransfer.is_zero() {
                self.info.time_starttransfer = cx.now.duration_since(self.started);
            }
            self.resp.raw_bytes += n as u64;
            burst += n;
            self.process(cx, &buf[..n])?;
            if self.is_done() || !self.io_is(HttpIo::Recv) {
                return Ok(!self.is_done());
            }
            if self.result.is_some() {
                return Err(self
                    .result
                    .take()
                    .and_then(|r| r.err())
                    .unwrap_or_else(|| Error::code(Code::RecvError)));
            }
            if limited || self.recv_held() {
                return Ok(true);
            }
            // Drained: the poller says when more comes (level-triggered), so no read just
            // to hear WouldBlock.
            if self
                .conn
                .as_ref()
                .is_some_and(|c| c.input_drained(n, buf.len()))
            {
                if self.conn.as_ref().is_some_and(|c| c.tls.is_some()) {
                    cx.gather.drained(burst);
                }
                return Ok(false);
            }
        }
    }

    pub(super) fn retry_fresh(&mut self) -> Result<bool> {
        const MAX_RETRIES: u32 = 5;
        if self.retries >= MAX_RETRIES {
            return Err(Error::new(
                Code::SendError,
                format!("Connection died, tried {MAX_RETRIES} times before giving up"),
            ));
        }
        self.retries += 1;
        self.conn = None;
        self.h2 = None;
        self.h2conn = None;
        let n = self.retries;
        self.verbose(&format!(
            "Connection died, retrying a fresh connect (retry count: {n})"
        ));
        self.fresh_once = true;
        self.state = State::Init;
        Ok(true)
    }

    pub(super) fn on_eof(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        match self.resp.phase {
            Phase::Head => {
                if self.resp.raw_bytes == 0 {
                    if self.conn_reused {
                        return self.retry_fresh();
                    }
                    return Err(Error::new(Code::GotNothing, "Empty reply from server"));
                }
                // An HTTP/0.9 body ends here; so does a head cut short, as curl ends it: a
                // Location it would follow is followed (curl takes it as the new URL when the
                // header arrives), else a Content-Length it has seen is a body that never came.
                self.resp.keepalive = false;
                if self.follows_location() {
                    self.redirect_to = self.resp.location.clone();
                } else if let Some(n) = self.resp.content_length.filter(|&n| n > 0) {
                    if !self.response_has_no_body() {
                        return Err(Error::new(
                            Code::PartialFile,
                            format!("transfer closed with {n} bytes remaining to read"),
                        ));
                    }
                }
                self.complete(cx)
            }
            Phase::Body => match self.resp.framing {
                Framing::Close => {
                    self.resp.keepalive = false;
                    self.complete(cx)
                }
                Framing::Length(left) => Err(Error::new(
                    Code::PartialFile,
                    format!("end of response with {left} bytes missing"),
                )),
                Framing::Chunked => Err(Error::new(
                    Code::PartialFile,
                    "transfer closed with outstanding read data remaining",
                )),
                Framing::None => self.complete(cx),
            },
            Phase::Complete => self.complete(cx),
        }
    }

    /// Feed received bytes through the response parser.
    pub(super) fn process(&mut self, cx: &mut Cx<'_>, mut data: &[u8]) -> Result<()> {
        while !data.is_empty() {
            match self.resp.phase {
                Phase::Head => {
                    // The start of a response (all of it is here or held as a partial
                    // line; not one that follows a 1xx in the middle of a read): does it look
                    // like a status line? The held bytes count, so a split read cannot fool it.
                    let pending = self.resp.lines.pending();
                    if self.resp.first_line
                        && self.resp.raw_bytes as usize == data.len() + pending.len()
                        && !self.resp.http09
                    {
                        let mut prefix = [0u8; 5];
                        let p = pending.len().min(5);
                        prefix[..p].copy_from_slice(&pending[..p]);
                        let d = data.len().min(5 - p);
                        prefix[p..p + d].copy_from_slice(&data[..d]);
                        let start = &prefix[..p + d];
                        match head::looks_like_status_line(start) {
                            // curl's checkhttpprefix: an HTTP200ALIASES line may start it too.
                            Tri::No if head::matches_alias(&self.opts.http200_aliases, start) => {}
                            Tri::No => {
                                // curl: "Cannot be 0.9 if version was detected or connection
                                // was reused."
                                if self.conn_reused || self.resp.after_1xx {
                                    return Err(Error::new(
                                        Code::WeirdServerReply,
                                        "Invalid status line",
                                    ));
                                }
                                if !self.opts.http09_allowed {
                                    return Err(Error::new(
                                        Code::UnsupportedProtocol,
                                        "Received HTTP/0.9 when not allowed",
                                    ));
                                }
                                // curl's download writer: body bytes for a request that
                                // wants none, before any header, are a weird reply. curl
                                // drops the first line (held as a would-be header) and
                                // traces what follows it in this read.
                                if self.opts.nobody {
                                    if self.opts.verbose {
                                        if let Some(i) = data.iter().position(|&b| b == b'\n') {
                                            if i + 1 < data.len() {
                                                self.callbacks
                                                    .debug(InfoType::DataIn, &data[i + 1..]);
                                            }
                                        }
                                    }
                                    return Err(Error::code(Code::WeirdServerReply));
                                }
                                self.resp.http09 = true;
                                self.resp.version = HttpVersion::V0_9;
                                self.resp.code = 200;
                                self.info.response_code = 200;
                                self.info.http_version = HttpVersion::V0_9;
                                self.resp.framing = Framing::Close;
                                self.resp.keepalive = false;
                                self.resp.phase = Phase::Body;
                                continue;
                            }
                            Tri::Yes | Tri::NeedMore => {}
                        }
                    }
                    let (used, at) = self.resp.lines.feed_at(data).map_err(|e| {
                        Error::new(
                            Code::from_u32(e.curl_code()).unwrap_or(Code::RecvError),
                            e.to_string(),
                        )
                    })?;
                    let input = data;
                    data = &data[used..];
                    // A line whole in this read is used where it is; only one split across
                    // reads is copied out of the accumulator.
                    let held;
                    let line = match at {
                        Some(head::LineAt::Input(n)) => Some(&input[..n]),
                        Some(head::LineAt::Held(_)) => {
                            held = self.resp.lines.held().to_vec();
                            Some(&held[..])
                        }
                        None => None,
                    };
                    if let Some(line) = line {
                        self.on_header_line(line)?;
                        if self.h2_upgrade.1 {
                            self.h2_switch(cx, data);
                            return Ok(());
                        }
                        if !self.pending_cookies.is_empty() {
                            self.store_cookies(cx);
                        }
                        if let Some(v) = self.pending_sts.take() {
                            let host = self.url_host();
                            cx.hsts.on_header(&host, &v, crate::parsedate::unix_now());
                        }
                        if let Some(v) = self.pending_altsvc.take() {
                            self.store_altsvc(cx, &v);
                        }
                    }
                }
                Phase::Body => {
                    let used = self.on_body(data)?;
                    data = &data[used..];
                }
                Phase::Complete => {
                    // Bytes after a complete response: the connection is not clean.
                    self.resp.keepalive = false;
                    break;
                }
            }
        }
        if self.resp.phase == Phase::Complete && !self.h2_awaits_end() {
            self.complete(cx)?;
        }
        Ok(())
    }

    pub(super) fn on_header_line(&mut self, line: &[u8]) -> Result<()> {
        let trimmed = trim_eol(line);
        if self.resp.first_line {
            self.resp.first_line = false;
            let st = match head::parse_status_line(line) {
                // An HTTP200ALIASES line is an HTTP/1.0 200, as curl's fallback has it.
                Err(head::StatusLineError::NotStatusLine)
                    if head::matches_alias(&self.opts.http200_aliases, line) =>
                {
                    head::StatusLine {
                        version: Version::Http10,
                        code: 200,
                        reason: b"",
                    }
                }
                r => r.map_err(|e| {
                    if e == head::StatusLineError::NotStatusLine
                        && (self.conn_reused || self.resp.after_1xx)
                    {
                        Error::new(Code::WeirdServerReply, "Invalid status line")
                    } else {
                        Error::new(Code::UnsupportedProtocol, e.to_string())
                    }
                })?,
            };
            // curl's http_statusline: no major version change on a connection that sent
            // HTTP/1, and no HTTP/3 in a build without it.
            match st.version {
                // HTTP/2 responses come through here too, as the status line curl shows.
                Version::Http2 if !self.on_h2() => {
                    return Err(Error::new(
                        Code::WeirdServerReply,
                        "Version mismatch (from HTTP/1 to HTTP/2)",
                    ))
                }
                Version::Http3 if !self.on_h2() => {
                    return Err(Error::new(
                        Code::UnsupportedProtocol,
                        "Unsupported HTTP version (3.0) in response",
                    ))
                }
                _ => {}
            }
            self.resp.code = st.code as u32;
            self.resp.version = match st.version {
                Version::Http09 => HttpVersion::V0_9,
                Version::Http10 => HttpVersion::V1_0,
                Version::Http11 => HttpVersion::V1_1,
                Version::Http2 => HttpVersion::V2,
                Version::Http3 => HttpVersion::V3,
            };
            self.resp.keepalive = matches!(self.resp.version, HttpVersion::V1_1 | HttpVersion::V2);
            if self.resp.version == HttpVersion::V1_0 {
                self.seen_http10 = true;
                self.verbose("HTTP 1.0, assume close after body");
            }
            // curl takes a 416 to a resumed download as "already complete" and drops its body.
            self.resp.ignore_body = self.resp.code == 416 && self.resuming_get();
            self.info.response_code = self.resp.code;
            self.info.http_version = self.resp.version;
            // curl's verify_header, which follows the status line parse.
            if line.contains(&0) {
                return Err(Error::new(
                    Code::WeirdServerReply,
                    head::HeaderLineError::NulByte.to_string(),
                ));
            }
            self.deliver_header(line)?;
            return Ok(());
        }
        if head::is_head_end(line) {
            if self.resp.code >= 200 {
                self.auth_act()?;
            }
            let unmet = self.time_condition_unmet();
            // curl decides about the body (and fails) before it passes on the blank line, and
            // passes it on even when it fails.
            let decided = self.end_of_head();
            if let Err(e) = &decided {
                if self.opts.verbose {
                    self.verbose(e.message());
                    self.resp.error_shown = true;
                }
            }
            let delivered = self.deliver_header(line);
            decided?;
            delivered?;
            if unmet {
                // curl answers as if the server had said 304 and drops the body, and with it
                // the connection.
                self.info.response_code = 304;
                self.info.content_length_download = None;
                self.resp.keepalive = false;
                self.resp.framing = Framing::None;
                self.resp.decoder = None;
                self.resp.phase = Phase::Complete;
            }
            return Ok(());
        }
        let first_header = !self.resp.seen_header;
        head::check_header_line(trimmed, first_header)
            .map_err(|e| Error::new(Code::WeirdServerReply, e.to_string()))?;
        self.count_header()?;
        if self.resp.code == 401 || self.resp.code == 407 {
            // curl reads a challenge before it shows the header line.
            if let Some((name, value)) = head::split_header(trimmed) {
                let mut notes = Vec::new();
                if self.resp.code == 401 && name.eq_ignore_ascii_case(b"WWW-Authenticate") {
                    self.auth.input(value, &mut notes);
                } else if self.resp.code == 407 && name.eq_ignore_ascii_case(b"Proxy-Authenticate")
                {
                    self.proxy_auth.input(value, &mut notes);
                }
                for n in notes {
                    self.verbose(n);
                }
            }
        }
        // curl acts on a header line (http_header) before it shows and passes it on, so a
        // bad one (a negative Content-Length) fails before it is written; it builds its
        // decoders from Transfer-Encoding then too.
        let continued = !first_header && head::continuation(trimmed).is_some();
        if !continued && !trimmed.starts_with(b" ") && !trimmed.starts_with(b"\t") {
            if let Some((name, value)) = head::split_header(trimmed) {
                if name.eq_ignore_ascii_case(b"Transfer-Encoding") {
                    self.transfer_codings(value)?;
                }
                self.apply_header(&String::from_utf8_lossy(name), value)?;
            }
        }
        // The header store folds a line starting with a blank into the header before it (any
        // of this response's heads).
        let folds = self.resp.seen_header || self.resp.after_1xx;
        self.deliver_header_stored(line, Some(folds))?;
        self.resp.seen_header = true;
        if !first_header {
            if let Some(more) = head::continuation(trimmed) {
                // obs-fold: the header callback got the raw line; the header API sees the
                // previous value continued. HTTP semantics ignore the line, as in curl.
                let no = self.resp.request_no;
                if let Some(h) = self.info.headers.last_mut().filter(|h| h.request == no) {
                    h.push_value(&String::from_utf8_lossy(more));
                }
                return Ok(());
            }
        }
        // A first header line that starts with blanks cannot continue anything: curl stores
        // it without them, but does not act on it.
        let blanks = trimmed
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if let Some((name, value)) = head::split_header(&trimmed[blanks..]) {
            if blanks == 0 && name.eq_ignore_ascii_case(b"Set-Cookie") && self.cookie_engine() {
                if let Some(colon) = line.iter().position(|&b| b == b':') {
                    self.pending_cookies.push(line[colon + 1..].to_vec());
                }
            }
            if self.info.headers.capacity() == 0 {
                // A typical response's headers in one allocation, not four.
                self.info.headers.reserve(16);
            }
            self.info.headers.push(Header::new(
                &String::from_utf8_lossy(name),
                &String::from_utf8_lossy(value),
                self.resp.request_no,
            ));
        }
        Ok(())
    }

    pub(super) fn apply_header(&mut self, name: &str, value: &[u8]) -> Result<()> {
        if name.eq_ignore_ascii_case("Content-Length") {
            // curl takes each Content-Length as it comes: the last valid one wins.
            match head::parse_content_length(value) {
                Ok(n) => self.resp.content_length = Some(n),
                Err(head::ContentLengthError::Overflow) => {
                    if self.opts.max_filesize.is_some() {
                        return Err(Error::new(
                            Code::FilesizeExceeded,
                            "Maximum file size exceeded",
                        ));
                    }
                    self.resp.keepalive = false;
                    // curl's message names no value here, literally.
                    self.verbose("Overflow Content-Length: value");
                }
                // curl's message names no value here, literally.
                Err(head::ContentLengthError::Invalid) => {
                    return Err(Error::new(
                        Code::WeirdServerReply,
                        "Invalid Content-Length: value",
                    ))
                }
            }
        } else if name.eq_ignore_ascii_case("Content-Encoding") {
            // curl stacks the codings of every Content-Encoding line, in order, and refuses
            // the fifth as it is added (`Curl_build_unencoding_stack`), when it decodes at all
            // and the response may have a body.
            let code = self.resp.code;
            let bodyless = (100..200).contains(&code) || code == 204 || code == 304;
            if !bodyless && self.opts.accept_encoding.is_some() && self.opts.http_content_decoding {
                let have = self
                    .resp
                    .content_encoding
                    .as_deref()
                    .map_or(0, |c| head::codings(c).count());
                if have + head::codings(value).count() >= crate::content_encoding::MAX_ENCODE_STACK
                {
                    return Err(Error::new(
                        Code::BadContentEncoding,
                        "Reject response due to more than 5 content encodings",
                    ));
                }
            }
            match &mut self.resp.content_encoding {
                Some(ce) => {
                    ce.push(b',');
                    ce.extend_from_slice(value);
                }
                None => self.resp.content_encoding = Some(value.to_vec()),
            }
        } else if name.eq_ignore_ascii_case("Content-Range") {
            // curl's forms: "bytes N-", "bytes: N-", "N-" and "*/TOTAL"; only the start counts.
            let rest = value.iter().position(|&b| b.is_ascii_digit() || b == b'*');
            match rest.map(|i| &value[i..]) {
                Some(v) if v[0].is_ascii_digit() => {
                    let end = v
                        .iter()
                        .position(|b| !b.is_ascii_digit())
                        .unwrap_or(v.len());
                    let start = std::str::from_utf8(&v[..end])
                        .ok()
                        .and_then(|d| d.parse::<u64>().ok());
                    if start.is_some_and(|n| n == self.opts.resume_from) {
                        self.resp.range_matches = true;
                    }
                }
                _ if self.resp.code < 300 => self.resp.range_everything = true,
                _ => {}
            }
        } else if name.eq_ignore_ascii_case("Location") {
            // curl keeps the first non-empty Location of a 3xx and ignores the others.
            if (300..400).contains(&self.resp.code)
                && self.resp.location.is_none()
                && !value.trim_ascii().is_empty()
            {
                self.resp.location = Some(String::from_utf8_lossy(value).into_owned());
            }
        } else if name.eq_ignore_ascii_case("Strict-Transport-Security") {
            if self.opts.hsts_file.is_some() && self.info.scheme == "https" {
                self.pending_sts = Some(String::from_utf8_lossy(value).into_owned());
            }
        } else if name.eq_ignore_ascii_case("Alt-Svc") {
            if self.opts.altsvc_file.is_some() && self.info.scheme == "https" {
                self.pending_altsvc = Some(value.to_vec());
            }
        } else if name.eq_ignore_ascii_case("Content-Type") {
            self.info.content_type = Some(String::from_utf8_lossy(value).into_owned());
        } else if name.eq_ignore_ascii_case("Connection") {
            let says = |w: &[u8]| head::codings(value).any(|c| c.eq_ignore_ascii_case(w));
            if says(b"close") {
                self.resp.keepalive = false;
            } else if says(b"keep-alive") {
                self.resp.keepalive = true;
                if self.resp.version == HttpVersion::V1_0 {
                    self.verbose("HTTP/1.0 connection set to keep alive");
                }
            }
        } else if name.eq_ignore_ascii_case("Proxy-Connection") && self.via_http_proxy() {
            // curl: what an HTTP proxy says of the connection to it.
            let says = |w: &[u8]| head::codings(value).any(|c| c.eq_ignore_ascii_case(w));
            if self.resp.version == HttpVersion::V1_0 && says(b"keep-alive") {
                self.resp.keepalive = true;
                self.verbose("HTTP/1.0 proxy connection set to keep alive");
            } else if self.resp.version == HttpVersion::V1_1 && says(b"close") {
                self.resp.keepalive = false;
                self.verbose("HTTP/1.1 proxy connection set close");
            }
        }
        Ok(())
    }

    /// A `Transfer-Encoding` value, as curl's `Curl_build_unencoding_stack` takes it:
    /// chunked is always undone and must come last; other codings are undone with
    /// `--tr-encoding` and refused without it (unless `--raw`, which ignores them and
    /// everything after).
    pub(super) fn transfer_codings(&mut self, value: &[u8]) -> Result<()> {
        /// `MAX_ENCODE_STACK`: decoders per phase, the new one included.
        const MAX_STACK: usize = 5;
        let bad = |msg: String| Error::new(Code::BadContentEncoding, msg);
        self.resp.te_seen = true;
        let mut has_chunked = false;
        for c in head::codings(value) {
            let name = String::from_utf8_lossy(c);
            let chunked = c.eq_ignore_ascii_case(b"chunked");
            if !self.opts.transfer_encoding && !chunked {
                if !self.opts.http_transfer_decoding {
                    return Ok(());
                }
                if has_chunked {
                    return Err(bad(format!(
                        "A Transfer-Encoding ({name}) was listed after chunked"
                    )));
                }
                if c.len() >= 8 && c[..8].eq_ignore_ascii_case(b"identity") {
                    continue;
                }
                return Err(bad(format!("Unsolicited Transfer-Encoding ({name}) found")));
            }
            let stacked = self.resp.transfer_stack + usize::from(self.resp.chunked_te);
            if stacked + 1 >= MAX_STACK {
                return Err(bad(format!(
                    "Reject response due to more than {MAX_STACK} content encodings"
                )));
            }
            if chunked {
                if self.resp.chunked_te {
                    // A second chunked is ignored, with the rest of the list.
                    return Ok(());
                }
                self.resp.chunked_te = true;
                has_chunked = true;
                continue;
            }
            if self.resp.chunked_te {
                return Err(bad(
                    "Reject response due to 'chunked' not being the last Transfer-Encoding".into(),
                ));
            }
            self.resp.transfer_stack += 1;
            if !self.resp.transfer_codings.is_empty() {
                self.resp.transfer_codings.push(b',');
            }
            self.resp.transfer_codings.extend_from_slice(c);
        }
        Ok(())
    }

    /// curl keeps at most [`MAX_RESP_HEADERS`] header lines (1xx heads, trailers and earlier
    /// responses of the transfer included; status lines not) for its header API.
    pub(super) fn count_header(&mut self) -> Result<()> {
        if self.header_count >= MAX_RESP_HEADERS {
            return Err(Error::new(
                Code::TooLarge,
                format!("Too many response headers, {MAX_RESP_HEADERS} is max"),
            ));
        }
        self.header_count += 1;
        Ok(())
    }

    pub(super) fn deliver_header(&mut self, line: &[u8]) -> Result<()> {
        self.deliver_header_stored(line, None)
    }

    /// [`Transfer::deliver_header`] for a header line or trailer, which curl's header store
    /// takes in after `-v` shows it and before the header callback: `folds` as
    /// [`head::store_check`] has it. The store's refusals end the transfer.
    pub(super) fn deliver_header_stored(&mut self, line: &[u8], folds: Option<bool>) -> Result<()> {
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::HeaderIn, line, &self.info);
        }
        if let Some(folds) = folds {
            head::store_check(line, folds).map_err(store_refused)?;
        }
        self.emit(Out::Header, line)?;
        // curl's http_write_header counts the line once the callbacks had it.
        self.info.header_size += line.len() as u64;
        if self.opts.include_header {
            self.emit(Out::HeaderBody, line)?;
        }
        Ok(())
    }

    /// curl's `Curl_http_auth_act` at the end of a final response head: decide whether the
    /// URL is asked again with (other) credentials, and then ignore this body.
    pub(super) fn auth_act(&mut self) -> Result<()> {
        let code = self.resp.code as u16;
        let get_or_head = matches!(self.body, Body::None);
        let mut retry = self.auth.act(
            code,
            self.creds.is_some(),
            self.opts.bearer.is_some(),
            get_or_head,
        );
        if self.proxy.is_some() && !self.tunnel_wanted {
            let proxy_user = self.proxy_has_user();
            retry |= self.proxy_auth.act(code, proxy_user, false, get_or_head);
        }
        if !retry {
            return Ok(());
        }
        self.auth_retry = true;
        Ok(())
    }

    /// curl's `Curl_meets_timecondition` for a final response with a `Last-Modified`, when a
    /// time condition is set and no range asked for; says so in verbose mode when unmet.
    pub(super) fn time_condition_unmet(&mut self) -> bool {
        let Some((cond, value)) = self.opts.time_condition else {
            return false;
        };
        if (100..200).contains(&self.resp.code)
            || self.opts.range.is_some()
            || self.opts.resume_from > 0
            || value == 0
        {
            return false;
        }
        let no = self.resp.request_no;
        let doc = self
            .info
            .headers
            .iter()
            .rev()
            .find(|h| h.request == no && h.name().eq_ignore_ascii_case("Last-Modified"))
            .map(|h| crate::parsedate::getdate_capped(h.value().trim().as_bytes()))
            // An unreadable date (-1) counts as very old, as in curl.
            .filter(|t| *t != 0);
        let Some(doc) = doc else {
            return false;
        };
        let msg = match cond {
            TimeCondition::IfUnmodSince if doc >= value => {
                "The requested document is not old enough"
            }
            TimeCondition::IfModSince | TimeCondition::LastMod if doc <= value => {
                "The requested document is not new enough"
            }
            _ => return false,
        };
        self.verbose(msg);
        self.verbose("Simulate an HTTP 304 response");
        true
    }

    pub(super) fn end_of_head(&mut self) -> Result<()> {
        let code = self.resp.code;
        if code < 100 {
            return Err(Error::new(
                Code::UnsupportedProtocol,
                "Unsupported response code in HTTP response",
            ));
        }
        // A 101 to no Upgrade of ours ends the head as a final response would (curl: "We
        // silently accept this as the final response").
        if (100..200).contains(&code) && (code != 101 || self.h2_upgrade.0) {
            // Informational: another head follows.
            let no = self.resp.request_no;
            let waiting = self.up.await_continue;
            // The heads of one response count together against curl's 300 KiB limit
            // (`allheadercount`), so an endless run of 1xx heads ends there. (HTTP/2 counts
            // its heads' fields itself, in `http2.rs`.)
            let lines = std::mem::take(&mut self.resp.lines);
            self.resp = Resp::new(no + 1);
            if !self.on_h2() {
                self.resp.lines = lines;
            }
            self.resp.after_1xx = true;
            if code == 100 && waiting {
                self.up.await_continue = false;
                self.timers.clear(TimerId::Expect100);
                self.set_io(HttpIo::Send);
            }
            // The h2c upgrade asked for: HTTP/2 follows ([`Transfer::h2_switch`]).
            if code == 101 && self.h2_upgrade.0 {
                self.h2_upgrade.1 = true;
            }
            return Ok(());
        }
        if std::mem::take(&mut self.h2_upgrade.0) {
            self.h2_denied = true;
        }
        let mut keep_sending = false;
        if self.up.await_continue || !self.up.body_done {
            let sending = matches!(
                self.body,
                Body::Upload(_) | Body::PostRead(_) | Body::Fields(_) | Body::Mime(_)
            );
            let sent = self.info.size_upload - self.up.upload_base;
            let abort_note = if sent > 0 {
                format!("abort upload after having sent {sent} bytes")
            } else {
                "abort upload".to_string()
            };
            if code == 417 && self.up.expect_announced && sending && !self.probing() {
                // curl sends the request again without Expect; the connection stays when
                // no body byte went yet.
                if self.up.await_continue && self.info.size_upload == self.up.upload_base {
                    self.verbose("Got HTTP failure 417 while waiting for a 100");
                    self.up.await_continue = false;
                    self.up.body_done = true;
                    self.timers.clear(TimerId::Expect100);
                } else {
                    self.verbose("Got HTTP failure 417 while sending data");
                }
                self.verbose(&abort_note);
                self.disable_expect = true;
                self.auth_retry = true;
            } else if code >= 300 && sending && !self.probing() {
                if self.opts.keep_sending_on_error {
                    // curl's http_exp100_send_anyway: no more waiting for a 100.
                    self.verbose("HTTP error before end of send, keep sending");
                    self.up.await_continue = false;
                    self.timers.clear(TimerId::Expect100);
                    keep_sending = true;
                } else {
                    self.verbose("HTTP error before end of send, stop sending");
                    self.verbose(&abort_note);
                }
            } else if code < 300 && !self.up.await_continue {
                // An early success: curl goes on sending the body.
                keep_sending = true;
            }
        }
        if !keep_sending && (self.up.await_continue || !self.up.body_done) {
            // A final answer before the body went: do not send it, and do not reuse.
            self.up.await_continue = false;
            self.up.body_done = true;
            self.timers.clear(TimerId::Expect100);
            self.resp.keepalive = false;
        }
        if self.fails_on(code) {
            self.resp.keepalive = false;
            return Err(Error::new(
                Code::HttpReturnedError,
                format!("The requested URL returned error: {code}"),
            ));
        }
        let follow = self.follows_location();
        if let Some(loc) = &self.resp.location {
            if follow {
                // Resolved against the current URL when followed, after the body.
                self.redirect_to = Some(loc.clone());
            } else if (300..400).contains(&code) {
                // curl's FOLLOW_FAKE: the Location as given when it does not parse.
                let base = self.url.clone().expect("url");
                self.info.redirect_url = Some(match base.join(loc, self.url_flags()) {
                    Ok(u) => u.to_url_string(),
                    Err(_) => loc.clone(),
                });
            }
        }
        if self.resp.version == HttpVersion::V1_0 || self.opts.http_version == HttpVersionPref::V1_0
        {
            // HTTP/1.0 keeps the connection only when the server says so (or the HTTP
            // proxy, with Proxy-Connection).
            if self.resp.version == HttpVersion::V1_0 {
                let proxy = self.via_http_proxy();
                self.resp.keepalive = self
                    .info
                    .headers
                    .iter()
                    .filter(|h| h.request == self.resp.request_no)
                    .any(|h| {
                        (h.name().eq_ignore_ascii_case("Connection")
                            || (proxy && h.name().eq_ignore_ascii_case("Proxy-Connection")))
                            && h.value().eq_ignore_ascii_case("keep-alive")
                    });
            }
        }
        // curl's `http_firstwrite`. A response that leads to another request is not
        // delivered; on a connection that closes anyway it is not even read.
        let newurl = self.redirect_to.is_some() || self.auth_retry;
        let mut stop = newurl && !self.resp.keepalive;
        if newurl && !stop {
            self.resp.ignore_body = true;
            self.verbose("Ignoring the response-body");
        }
        // Only a GET resumes a download (curl checks `HTTPREQ_GET`); uploads say where they
        // resume with Content-Range and take whatever answer. Any response that does not
        // start at the resume point ends it, unless it is exactly the part already there.
        if !stop
            && !self.resp.ignore_body
            && self.resuming_get()
            && !self.resp.range_matches
            && !self.resp.range_everything
        {
            if self.resp.content_length != Some(self.opts.resume_from) {
                return Err(Error::new(
                    Code::RangeError,
                    "HTTP server does not seem to support byte ranges. Cannot resume.",
                ));
            }
            self.verbose("The entire document is already downloaded");
            self.resp.keepalive = false;
            stop = true;
        }
        let no_body = self.response_has_no_body();
        // CURLOPT_IGNORE_CONTENT_LENGTH: the body runs until the server closes; so does a
        // transfer-encoded body without chunks when curl decodes transfer codings.
        let te_unchunked =
            self.opts.transfer_encoding && self.resp.te_seen && !self.resp.chunked_te;
        if self.opts.ignore_content_length || te_unchunked {
            self.resp.content_length = None;
        }
        self.resp.framing = if no_body {
            Framing::None
        } else if self.resp.chunked_te {
            // Without transfer decoding (--raw) the chunks are still tracked to find the end
            // of the body; only the delivery differs.
            self.resp.chunked = Some(ChunkedDecoder::new());
            Framing::Chunked
        } else if let Some(n) = self.resp.content_length {
            Framing::Length(n)
        } else {
            self.resp.keepalive = false;
            Framing::Close
        };
        self.info.content_length_download = if no_body {
            None
        } else {
            self.resp.content_length
        };
        if let (Some(max), Some(n)) = (self.opts.max_filesize, self.resp.content_length) {
            if n > max && !no_body && !self.resp.ignore_body {
                return Err(Error::new(
                    Code::FilesizeExceeded,
                    "Maximum file size exceeded",
                ));
            }
        }
        if self.resp.ignore_body && self.resp.content_length.is_some() && !self.resp.chunked_te {
            self.verbose("setting size while ignoring");
        }
        if stop {
            self.resp.phase = Phase::Complete;
            return Ok(());
        }
        // Transfer codings are undone first, then content codings: one chain, the
        // transfer codings listed last.
        let content = self
            .resp
            .content_encoding
            .as_ref()
            .filter(|_| self.opts.accept_encoding.is_some() && self.opts.http_content_decoding);
        let codings = match (content, self.resp.transfer_codings.is_empty()) {
            (Some(ce), true) => Some(ce.clone()),
            (Some(ce), false) => Some([&ce[..], b",", &self.resp.transfer_codings].concat()),
            (None, false) => Some(self.resp.transfer_codings.clone()),
            (None, true) => None,
        };
        if let Some(ce) = &codings {
            if !no_body {
                let d = Decoder::new(ce).map_err(|e| {
                    Error::new(
                        Code::from_u32(e.curl_code()).unwrap_or(Code::BadContentEncoding),
                        e.to_string(),
                    )
                })?;
                self.resp.decoder = Some(d);
            }
        }
        self.resp.phase = match self.resp.framing {
            Framing::None | Framing::Length(0) => Phase::Complete,
            _ => Phase::Body,
        };
        Ok(())
    }

    /// With `-L`, a redirect code and a Location: the response leads to its Location.
    pub(super) fn follows_location(&self) -> bool {
        self.opts.follow_location
            && matches!(self.resp.code, 301 | 302 | 303 | 307 | 308)
            && self.resp.location.is_some()
    }

    /// The response can have no body: the answer to a HEAD, a 204 or a 304.
    pub(super) fn response_has_no_body(&self) -> bool {
        self.method == "HEAD" || matches!(self.resp.code, 204 | 304)
    }

    /// Does `--fail` end the transfer on this response code?
    pub(super) fn fails_on(&self, code: u32) -> bool {
        self.opts.fail_on_error
            && code >= 400
            && match code {
                401 => self.auth.fails_on_challenge(self.creds.is_some()),
                407 => self.proxy_auth.fails_on_challenge(self.proxy_has_user()),
                // A resumed download that was already complete.
                416 => !self.resuming_get(),
                _ => true,
            }
    }

    /// A custom `Transfer-Encoding` header (also an empty one that removes it): does it
    /// name chunked? curl's `Curl_checkheaders` and `Curl_compareheader`.
    pub(super) fn custom_chunked(&self) -> Option<bool> {
        if !request::custom_has(&self.opts.headers, "Transfer-Encoding") {
            return None;
        }
        let chunked =
            request::custom_value(&self.opts.headers, "Transfer-Encoding").is_some_and(|v| {
                v.split(',')
                    .any(|t| t.trim().eq_ignore_ascii_case("chunked"))
            });
        Some(chunked)
    }

    /// A resumed download (curl: `resume_from` set and `HTTPREQ_GET`).
    pub(super) fn resuming_get(&self) -> bool {
        self.opts.resume_from > 0
            && self.opts.range.is_none()
            && matches!(self.body, Body::None)
            && self.method != "HEAD"
    }

    /// Consume body bytes; returns how many belonged to this response.
    pub(super) fn on_body(&mut self, data: &[u8]) -> Result<usize> {
        match self.resp.framing {
            Framing::Length(left) => {
                let n = (left.min(data.len() as u64)) as usize;
                self.deliver_body(&data[..n])?;
                let left = left - n as u64;
                self.resp.framing = Framing::Length(left);
                if left == 0 {
                    self.resp.phase = Phase::Complete;
                }
                Ok(n)
            }
            Framing::Close => {
                self.deliver_body(data)?;
                Ok(data.len())
            }
            Framing::None => {
                self.resp.phase = Phase::Complete;
                Ok(0)
            }
            Framing::Chunked => {
                // Raw mode passes on what arrived, framing and all, before parsing it (curl
                // does the same, so even bytes after the last chunk are written).
                let raw = !self.opts.http_transfer_decoding;
                if raw {
                    self.deliver_body(data)?;
                }
                let mut dec = self.resp.chunked.take().expect("chunked decoder");
                let mut used = 0;
                let r = (|| {
                    while used < data.len() {
                        let (n, ev) = dec.decode(&data[used..]).map_err(|e| {
                            Error::new(
                                Code::from_u32(e.curl_code()).unwrap_or(Code::RecvError),
                                e.to_string(),
                            )
                        })?;
                        used += n;
                        match ev {
                            Some(ChunkEvent::Data(d)) => {
                                if !raw {
                                    self.deliver_body(d)?;
                                }
                            }
                            Some(ChunkEvent::Trailer(t)) if !raw => {
                                self.count_header()?;
                                let mut line = t.to_vec();
                                line.extend_from_slice(b"\r\n");
                                // A refusal of the header store is curl's "passthru" error
                                // of the chunked reader, worded so unless the store said why.
                                self.deliver_header_stored(&line, Some(true)).map_err(|e| {
                                    if e.code == Code::WeirdServerReply {
                                        Error::new(
                                            Code::WeirdServerReply,
                                            "Failed reading the chunked-encoded stream",
                                        )
                                    } else {
                                        e
                                    }
                                })?;
                            }
                            Some(ChunkEvent::Done) => {
                                self.resp.phase = Phase::Complete;
                                break;
                            }
                            Some(ChunkEvent::Trailer(_)) | None => {}
                        }
                    }
                    Ok(())
                })();
                self.resp.chunked = Some(dec);
                r.map(|_| used)
            }
        }
    }

    pub(super) fn deliver_body(&mut self, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        self.resp.body_bytes += data.len() as u64;
        if self.redirect_to.is_some() || self.auth_retry || self.resp.ignore_body {
            return Ok(());
        }
        if let Some(max) = self.opts.max_filesize {
            // curl writes up to the limit, then fails naming the limit and the bytes written.
            let room = max.saturating_sub(self.info.size_download);
            if data.len() as u64 > room {
                self.deliver_body_bytes(&data[..room as usize])?;
                return Err(filesize_exceeded(max, self.info.size_download));
            }
        }
        self.deliver_body_bytes(data)
    }

    /// Count, trace, decode and write body bytes that are within the limits.
    pub(super) fn deliver_body_bytes(&mut self, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        // curl's download writer counts the bytes once the writers after it took them:
        // CURLINFO_SIZE_DOWNLOAD inside the write callback is what came before.
        self.hand_over_body(data)?;
        self.info.size_download += data.len() as u64;
        Ok(())
    }

    pub(super) fn hand_over_body(&mut self, data: &[u8]) -> Result<()> {
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::DataIn, data, &self.info);
        }
        if let Some(mut dec) = self.resp.decoder.take() {
            let mut failed = None;
            let r = dec.decode(data, &mut |out: &[u8]| {
                self.emit(Out::Body, out).map_err(|e| failed = Some(e))
            });
            self.resp.decoder = Some(dec);
            if let Some(e) = failed {
                return Err(e);
            }
            let chunked = self.resp.framing == Framing::Chunked;
            return r.map_err(|e| {
                let code = Code::from_u32(e.curl_code()).unwrap_or(Code::BadContentEncoding);
                // A decoder without a message of its own under chunked: curl's chunked
                // reader names itself.
                if chunked && e.kind() == crate::content_encoding::DecodeErrorKind::Bad {
                    Error::new(code, "Failed reading the chunked-encoded stream")
                } else {
                    Error::new(code, e.to_string())
                }
            });
        }
        self.emit(Out::Body, data)
    }
}
