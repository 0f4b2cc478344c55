//! HTTP proxies (curl's `http_proxy.c` and `cf-h1-proxy.c`): choosing the proxy, its
//! credentials, and the HTTP/1 CONNECT tunnel with its 407 retries.

use super::*;

impl Transfer {
    /// Decide the proxy for the current URL (options, then environment, minus `no_proxy`).
    pub(super) fn select_proxy(&mut self, scheme: &str, host: &str) -> Result<()> {
        use crate::proxy;
        self.proxy = None;
        self.preproxy = None;
        self.tunnel_wanted = false;
        self.info.used_proxy = false;
        if self.opts.unix_socket_path.is_some() {
            return Ok(());
        }
        let env = |k: &str| std::env::var(k).ok();
        let Some(s) = proxy::select(
            self.opts.proxy.as_deref(),
            self.opts.noproxy.as_deref(),
            scheme,
            host,
            &env,
        ) else {
            return Ok(());
        };
        let mut p = proxy::parse_with_port(&s, self.opts.proxy_type, self.opts.proxy_port)?;
        self.info.used_proxy = true;
        if let Some(c) = &self.opts.proxy_userpwd {
            p.creds = Some(c.clone());
        }
        // A --connect-to destination is reached through a tunnel (curl's create_conn).
        let port = self.url.as_ref().map_or(0, |u| u.port_or_default());
        self.tunnel_wanted = p.kind.is_http()
            && (crate::scheme::find(scheme).is_some_and(|s| s.has(crate::scheme::flag::SSL))
                || self.opts.http_proxy_tunnel
                || self.connect_to_rule(host, port).ok().flatten().is_some());
        // CURLINFO_USED_PROXY: this URL goes through a proxy.
        self.info.used_proxy = true;
        if let Some(pre) = self.opts.pre_proxy.as_deref().filter(|s| !s.is_empty()) {
            if p.kind.is_http() {
                let pre = proxy::parse(pre, self.opts.proxy_type)?;
                if pre.kind.is_http() {
                    // curl then talks HTTP proxy to the pre-proxy instead of the proxy.
                    self.proxy = Some(pre);
                    return Ok(());
                }
                self.preproxy = Some(pre);
            }
        }
        self.proxy = Some(p);
        Ok(())
    }

    /// The `Proxy-Authorization` value for a request to the proxy (a CONNECT, or an
    /// absolute-form request), with curl's verbose notes. `custom`: the user sent their own.
    pub(super) fn proxy_authorization(
        &mut self,
        method: &str,
        path: &str,
        get_or_head: bool,
        custom: bool,
    ) -> Option<Vec<u8>> {
        let creds = self.proxy.as_ref()?.creds.clone();
        let out = self.proxy_auth.output(
            &auth::Request {
                method,
                path,
                get_or_head,
                creds: creds.as_ref().map(|(u, p)| (u.as_str(), p.as_str())),
                bearer: None,
                allowed: true,
                custom_header: custom,
                aws: None,
            },
            random12,
        );
        for n in &out.pre_notes {
            self.verbose(n);
        }
        if let Some(n) = &out.note {
            self.verbose(n);
        }
        out.header
    }

    /// The proxy of this transfer has credentials (`-U` or in the proxy URL).
    pub(super) fn proxy_has_user(&self) -> bool {
        self.proxy.as_ref().is_some_and(|p| p.creds.is_some())
    }

    /// A request body is held back: the host or the proxy authentication needs a probe.
    pub(super) fn probing(&self) -> bool {
        self.auth.authneg || self.proxy_auth.authneg
    }

    /// `host:port` a CONNECT asks the proxy for (over HTTP/1.x or HTTP/2): curl tunnels to
    /// the --connect-to destination, not to the URL's host.
    pub(super) fn tunnel_authority(&self) -> String {
        let (host, port) = self.proxied_dest();
        if host.contains(':') && !host.starts_with('[') {
            format!("{}:{port}", bracket(&host))
        } else {
            format!("{host}:{port}")
        }
    }

    /// A CONNECT reply line handed on, unless `--suppress-connect-headers`: to the header
    /// callback, and to the output as [`Self::echo_connect_headers`] says.
    pub(super) fn connect_line_out(&mut self, line: &[u8]) -> Result<()> {
        if self.opts.suppress_connect_headers {
            return Ok(());
        }
        if self.callbacks.header(line) != line.len() {
            return Err(Error::new(Code::WriteError, "Failed writing header"));
        }
        if self.echo_connect_headers() && self.callbacks.write(line) != line.len() {
            return Err(Error::new(Code::WriteError, "Failed writing header"));
        }
        Ok(())
    }

    /// The end of a CONNECT exchange: a reply other than 2xx fails it, else curl's notes on
    /// the tunnel turning 'established'.
    pub(super) fn connect_established(&mut self, code: u32) -> Result<()> {
        if !(200..300).contains(&code) {
            return Err(Error::new(
                Code::RecvError,
                format!("CONNECT tunnel failed, response {code}"),
            ));
        }
        self.verbose("CONNECT phase completed");
        self.verbose(&format!("CONNECT tunnel established, response {code}"));
        Ok(())
    }

    /// Are the CONNECT reply's lines written to the output (`CURLOPT_HEADER`; with the
    /// tool's `-i` not for an FTP transfer, as curl's tool shows headers for HTTP only)?
    pub(super) fn echo_connect_headers(&self) -> bool {
        self.opts.include_header && !(self.opts.include_header_http_only && self.ftp.is_some())
    }

    /// Does the transfer go through an HTTP proxy (curl's `conn->bits.httpproxy`)?
    pub(super) fn via_http_proxy(&self) -> bool {
        self.proxy.as_ref().is_some_and(|p| p.kind.is_http())
    }

    /// Where a proxy is asked to connect: the `--connect-to` destination of the URL's
    /// origin (curl's `conn_to_host` and `conn_to_port`), else the origin.
    pub(super) fn proxied_dest(&self) -> (String, u16) {
        let url = self.url.as_ref().expect("url");
        let host = url.host_punycode().unwrap_or_default();
        let port = url.port_or_default();
        // A rule curl refuses failed the transfer before any connection.
        let rule = self.connect_to_rule(&host, port).ok().flatten();
        rule.unwrap_or((host.into_owned(), port))
    }

    /// Send CONNECT for the URL's origin over the fresh proxy connection.
    pub(super) fn start_tunnel(&mut self) {
        let authority = self.tunnel_authority();
        let http10 = self
            .proxy
            .as_ref()
            .is_some_and(|p| p.kind == crate::proxy::ProxyKind::Http10);
        if !std::mem::take(&mut self.tunnel_again) {
            if http10 {
                self.verbose("CONNECT tunnel: HTTP/1.0 negotiated");
            } else {
                self.verbose("CONNECT tunnel: HTTP/1.1 negotiated");
            }
            self.verbose("allocate connect buffer");
        }
        self.tunnel_body = None;
        self.tunnel_chunked = None;
        let custom = request::custom_has(&self.opts.proxy_headers, "Proxy-Authorization");
        let authorization = self.proxy_authorization("CONNECT", &authority, true, custom);
        self.verbose(&format!("Establish HTTP proxy tunnel to {authority}"));
        let req = crate::proto::connect::request(&crate::proto::connect::ConnectRequest {
            authority: &authority,
            http10,
            authorization: authorization.as_deref(),
            useragent: self.opts.useragent.as_deref(),
            headers: &self.opts.proxy_headers,
        });
        // With the TLS trace, the request shows after the record that carried it
        // (`do_tunnel`), as curl's does.
        if self.opts.verbose && !self.tls_trace_on() {
            self.callbacks
                .debug_live(InfoType::HeaderOut, &req, &self.info);
        }
        self.info.request_size += req.len() as u64;
        self.tunnel = Some((crate::proto::connect::Tunnel::new(), req, 0));
        self.state = State::Filter(FilterStep::Tunnel);
    }

    /// Drive the CONNECT handshake: send the request, read the reply a byte at a time so
    /// nothing that belongs to the tunnel is consumed.
    pub(super) fn do_tunnel(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if self.h2connect.is_some() {
            return self.do_h2_tunnel(cx);
        }
        let (mut t, req, mut sent) = self.tunnel.take().expect("tunnel");
        // The HTTPS proxy's records and tickets during CONNECT (curl's `ossl_trace`).
        let trace = self.tls_trace_on();
        if trace && sent < req.len() {
            let first = sent == 0;
            self.tls_trace_start();
            let conn = self.conn.as_mut().expect("conn");
            let mut failed = None;
            while sent < req.len() {
                match conn.send(&req[sent..]) {
                    Ok(n) => sent += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            self.tls_trace_end();
            if first && self.opts.verbose {
                self.callbacks
                    .debug_live(InfoType::HeaderOut, &req, &self.info);
            }
            match failed {
                None => {}
                Some(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.tunnel = Some((t, req, sent));
                    return Ok(false);
                }
                Some(e) => return Err(send_error(&e)),
            }
        }
        let conn = self.conn.as_mut().expect("conn");
        while sent < req.len() {
            match conn.send(&req[sent..]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.tunnel = Some((t, req, sent));
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(send_error(&e)),
            }
        }
        let mut byte = [0u8; 1];
        loop {
            match self.tunnel_recv(&mut byte) {
                Ok(0) => {
                    return Err(Error::new(Code::RecvError, "Proxy CONNECT aborted"));
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.tunnel = Some((t, req, sent));
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // A TLS failure on the way to an HTTPS proxy keeps its own text.
                    return Err(crate::tls::curl_error(&e).unwrap_or_else(|| {
                        Error::new(
                            Code::RecvError,
                            format!("Recv failure: {}", connect::os_error_text(&e)),
                        )
                    }));
                }
            }
            let line = match t.feed(&byte) {
                Ok((_, Some(crate::proto::connect::Event::Line(l)))) => l.to_vec(),
                Ok(_) => continue,
                Err(e) => return Err(connect_reply_error(e)),
            };
            self.info.header_size += line.len() as u64;
            if self.opts.verbose {
                self.callbacks
                    .debug_live(InfoType::HeaderIn, &line, &self.info);
            }
            if !t.done && t.header_lines() > 0 {
                // curl's header store sees the line before the header callback does.
                crate::proto::h1::head::store_check(&line, t.header_lines() > 1)
                    .map_err(store_refused)?;
            }
            self.connect_line_out(&line)?;
            if t.done {
                break;
            }
            // Read after the line is shown and handed on, as curl's `on_resp_header` does
            // (a response to a request, `http.c`, reads it first).
            if let Some((name, value)) = head::split_header(trim_eol(&line)) {
                if t.code == 407 && name.eq_ignore_ascii_case(b"Proxy-Authenticate") {
                    let mut notes = Vec::new();
                    self.proxy_auth.input(value, &mut notes);
                    for n in notes {
                        self.verbose(n);
                    }
                }
            }
            self.tunnel_body_header(t.code, &line)?;
        }
        self.info.http_connectcode = t.code;
        if t.code == 407 {
            let proxy_user = self.proxy_has_user();
            if self.proxy_auth.act(407, proxy_user, false, true) {
                return self.tunnel_auth_retry(t.close);
            }
        }
        self.connect_established(t.code)?;
        self.timers.clear(TimerId::ConnectTimeout);
        self.origin_ready(cx)?;
        Ok(true)
    }

    /// What a CONNECT reply header line says about the reply's body, after the line was
    /// shown (curl's `on_resp_header`): a 2xx reply has none whatever it says.
    pub(super) fn tunnel_body_header(&mut self, code: u32, line: &[u8]) -> Result<()> {
        let Some((name, value)) = head::split_header(trim_eol(line)) else {
            return Ok(());
        };
        let success = code / 100 == 2;
        if name.eq_ignore_ascii_case(b"Content-Length") {
            if success {
                self.verbose(&format!(
                    "Ignoring Content-Length in CONNECT {code:03} response"
                ));
            } else {
                let n = head::parse_content_length(value).map_err(|_| {
                    Error::new(Code::WeirdServerReply, "Unsupported Content-Length value")
                })?;
                self.tunnel_body = Some(n);
            }
        } else if name.eq_ignore_ascii_case(b"Transfer-Encoding") {
            if success {
                self.verbose(&format!(
                    "Ignoring Transfer-Encoding in CONNECT {code:03} response"
                ));
            } else if head::codings(value).any(|c| c.eq_ignore_ascii_case(b"chunked")) {
                self.verbose("CONNECT responded chunked");
                self.tunnel_chunked = Some(Box::default());
            }
        }
        Ok(())
    }

    /// A 407 to CONNECT picked a scheme: drop the reply body, then send CONNECT again on
    /// this connection, or on a new one when the proxy closes it. As curl's, the body is
    /// read (and its records traced) also when the proxy closes after it.
    pub(super) fn tunnel_auth_retry(&mut self, close: bool) -> Result<bool> {
        let body = self.tunnel_body.take().unwrap_or(0);
        // A Content-Length counts the body down; else a chunked one is decoded to its end.
        if body > 0 {
            self.verbose(&format!("Ignore {body} bytes of response-body"));
            self.tunnel_chunked = None;
        } else if self.tunnel_chunked.is_some() {
            self.verbose("Ignore chunked response-body");
        }
        self.tunnel_again = true;
        self.tunnel_skip = body;
        self.tunnel_reconnect = close;
        self.state = State::Filter(FilterStep::TunnelSkip);
        Ok(true)
    }

    /// Read from the proxy connection while CONNECT is answered. With the TLS trace, the
    /// records of an HTTPS proxy's session read on the way go to it (curl's `ossl_trace`
    /// on the proxy filter), the session tickets and the records of a skipped body too.
    pub(super) fn tunnel_recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let trace = self.tls_trace_on();
        if trace {
            self.tls_trace_start();
        }
        let got = self.conn.as_mut().expect("conn").recv(buf);
        if trace {
            self.tls_trace_end();
        }
        got
    }

    /// Read and drop the body of a 407 reply to CONNECT, then send CONNECT again.
    pub(super) fn do_tunnel_skip(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let mut buf = [0u8; 1024];
        while self.tunnel_skip > 0 {
            let want = (self.tunnel_skip as usize).min(buf.len());
            match self.tunnel_recv(&mut buf[..want]) {
                Ok(0) => return Err(Error::new(Code::RecvError, "Proxy CONNECT aborted")),
                Ok(n) => self.tunnel_skip -= n as u64,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(Error::new(
                        Code::RecvError,
                        format!("Recv failure: {}", connect::os_error_text(&e)),
                    ))
                }
            }
        }
        if let Some(mut dec) = self.tunnel_chunked.take() {
            // A byte at a time, as curl: the next CONNECT's reply follows on this connection.
            let mut byte = [0u8; 1];
            while !dec.is_done() {
                match self.tunnel_recv(&mut byte) {
                    Ok(0) => return Err(Error::new(Code::RecvError, "Proxy CONNECT aborted")),
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        self.tunnel_chunked = Some(dec);
                        return Ok(false);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        return Err(Error::new(
                            Code::RecvError,
                            format!("Recv failure: {}", connect::os_error_text(&e)),
                        ))
                    }
                }
                dec.decode(&byte).map_err(|e| {
                    Error::new(
                        Code::from_u32(e.curl_code()).unwrap_or(Code::RecvError),
                        e.to_string(),
                    )
                })?;
            }
            self.verbose("chunk reading DONE");
        }
        if std::mem::take(&mut self.tunnel_reconnect) {
            self.verbose("Connect me again please");
            if let Some(mut c) = self.conn.take() {
                let _ = cx.poller.delete(c.stream.fd());
                c.close();
            }
            self.state = State::Init;
            return Ok(true);
        }
        self.start_tunnel();
        Ok(true)
    }
}

/// curl's errors for a CONNECT reply past its limits.
pub(super) fn connect_reply_error(e: crate::proto::connect::TunnelError) -> Error {
    match e {
        crate::proto::connect::TunnelError::TooLarge => {
            Error::new(Code::RecvError, "CONNECT response too large")
        }
        crate::proto::connect::TunnelError::TooManyHeaders => Error::new(
            Code::TooLarge,
            format!(
                "Too many response headers, {} is max",
                crate::proto::connect::MAX_HEADERS
            ),
        ),
    }
}
