//! TLS on the transfer's connections (curl's `vtls.c` glue): ALPN offers, the handshake to the
//! origin and to an HTTPS proxy, early data, session keys, and curl's handshake notes and
//! traces.

use super::*;

impl Transfer {
    /// Does the scheme start with TLS (https, ftps; the table's `flag::SSL`)?
    pub(super) fn scheme_tls(&self) -> bool {
        crate::scheme::find(&self.info.scheme).is_some_and(|s| s.has(crate::scheme::flag::SSL))
    }

    /// The ALPN protocols offered, in curl's order (HTTP's only: curl's other protocols
    /// offer none).
    pub(super) fn alpn_offer(&self) -> &'static [&'static [u8]] {
        if !self.opts.tls.alpn || !self.info.scheme.starts_with("http") {
            &[]
        } else {
            match self.opts.http_version {
                HttpVersionPref::V1_0 => &[b"http/1.0"],
                HttpVersionPref::V1_1 => &[b"http/1.1"],
                HttpVersionPref::V2PriorKnowledge => &[b"h2"],
                // A cached alternative on another protocol asks for only that one.
                _ if self.alt_alpn == Some(crate::altsvc::Alpn::H1) => &[b"http/1.1"],
                _ if self.alt_alpn == Some(crate::altsvc::Alpn::H2) => &[b"h2"],
                _ if self.proxy.as_ref().is_some_and(|p| p.kind.is_http())
                    && !self.tunnel_wanted =>
                {
                    &[b"http/1.1"]
                }
                // The application speaks on the connection itself.
                _ if self.opts.connect_only => &[b"http/1.1"],
                _ => &[b"h2", b"http/1.1"],
            }
        }
    }

    pub(super) fn start_tls(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let alpn = self.alpn_offer();
        let config = cx.tls.config(&self.opts.tls, alpn)?;
        let host = self.url_host();
        let sni = host.split('%').next().unwrap_or(&host).to_string();
        let conn = self.conn.as_ref().expect("conn");
        let port = self.url.as_ref().map_or(0, |u| u.port_or_default());
        let peer = self.tls_peer_key(&sni, port, &self.opts.tls);
        let mut session = crate::tls::Session::new(
            &config,
            &sni,
            &peer,
            &conn.stream,
            &self.opts.tls,
            conn.proxy_tls.is_some() || conn.tunnel.is_some(),
        )?;
        let opts = self.opts.tls.clone();
        // `--tls-earlydata` on a resumed session that allows it: the connection counts as
        // connected now and the first send carries the request with the ClientHello
        // (curl's deferred handshake; never for a connect-only transfer).
        // Not yet for a session that had agreed on h2: curl sends its first frames and the
        // request's HEADERS as early data, which takes gathering h2's first writes.
        let early = if opts.earlydata && !self.opts.connect_only {
            let offer: Vec<&[u8]> = alpn.iter().copied().filter(|p| *p != b"h2").collect();
            session.defer_for_early_data(&offer)
        } else {
            None
        };
        // Deferred, curl does not write its ALPN offer but what it goes on with.
        self.tls_notes(
            if early.is_some() { &[] } else { alpn },
            &opts,
            &mut session,
        );
        self.conn.as_mut().expect("conn").tls = Some(Box::new(session));
        if let Some((_, p)) = early {
            self.verbose(&format!(
                "ALPN: deferred handshake for early data using '{}'.",
                String::from_utf8_lossy(&p)
            ));
            self.established(cx);
            return Ok(());
        }
        self.state = State::Filter(FilterStep::Tls {
            want_write: true,
            proxy: false,
        });
        Ok(())
    }

    /// What the OpenSSL backend keeps a peer's sessions under (curl's session cache key):
    /// `host:port`, and for a connection made without verification the `--connect-to` or
    /// alt-svc destination. Empty for rustls, which keys its own.
    pub(super) fn tls_peer_key(
        &self,
        sni: &str,
        port: u16,
        opts: &crate::tls::TlsOptions,
    ) -> String {
        if crate::tls::backend() == crate::tls::Backend::Rustls {
            return String::new();
        }
        let unverified = !opts.verify_peer || !opts.verify_host;
        let extra = if unverified { &*self.conn_to_key } else { "" };
        format!("{sni}:{port}{extra}")
    }

    /// Is the handshake of the transfer's connection deferred for early data?
    pub(super) fn early_pending(&self) -> bool {
        self.conn
            .as_ref()
            .and_then(|c| c.tls.as_ref())
            .is_some_and(|t| t.early_pending())
    }

    /// A handshake deferred for early data ended in a send, or failed: its verify result,
    /// and what the session noted when there was no trace to carry it.
    pub(super) fn early_handshake_notes(&mut self) {
        let Some(tls) = self.conn.as_mut().and_then(|c| c.tls.as_mut()) else {
            return;
        };
        let code = tls.verify_result();
        let notes = tls.take_notes();
        self.info.ssl_verify_result = code;
        for n in notes {
            self.verbose(&n);
        }
    }

    /// A handshake deferred for early data ended in a send: what ending a handshake does
    /// ([`Self::do_tls_connect`]), and curl's note on the early data.
    /// True when it did (the request then goes on).
    pub(super) fn early_handshake_done(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let Some(tls) = self.conn.as_mut().and_then(|c| c.tls.as_mut()) else {
            return Ok(false);
        };
        let Some(n) = tls.take_early_outcome() else {
            return Ok(false);
        };
        self.early_handshake_notes();
        self.info.time_appconnect = cx.now.duration_since(self.started);
        self.tls_established(false, true)?;
        self.info.earlydata_sent = n;
        if n >= 0 {
            self.verbose(&format!("Server accepted {n} bytes of TLS early data."));
        } else {
            self.verbose("Server rejected TLS early data.");
        }
        Ok(true)
    }

    /// Is the proxy of this transfer an HTTPS proxy (TLS to the proxy first)?
    pub(super) fn https_proxy(&self) -> bool {
        self.proxy.as_ref().is_some_and(|p| p.kind.is_https())
    }

    /// The ALPN protocols offered to an HTTPS proxy: curl offers them only when the
    /// transfer itself is https (tunnelled); absolute-form requests go without ALPN. With
    /// `--proxy-http2` (`CURLPROXY_HTTPS2`) h2 comes first, always.
    pub(super) fn proxy_alpn_offer(&self) -> &'static [&'static [u8]] {
        if self
            .proxy
            .as_ref()
            .is_some_and(|p| p.kind == crate::proxy::ProxyKind::Https2)
        {
            &[b"h2", b"http/1.1"]
        } else if self.info.scheme == "https" && self.opts.tls.alpn {
            &[b"http/1.1"]
        } else {
            &[]
        }
    }

    /// Start TLS with the HTTPS proxy on the fresh connection (SNI: the proxy's name).
    pub(super) fn start_proxy_tls(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let alpn = self.proxy_alpn_offer();
        let config = cx.tls.config(&self.opts.proxy_tls, alpn)?;
        let host = self
            .proxy
            .as_ref()
            .map(|p| p.host.clone())
            .unwrap_or_default();
        let port = self.proxy.as_ref().map_or(0, |p| p.port);
        let sni = host.split('%').next().unwrap_or(&host).to_string();
        let conn = self.conn.as_ref().expect("conn");
        let peer = self.tls_peer_key(&sni, port, &self.opts.proxy_tls);
        let mut session = crate::tls::Session::new(
            &config,
            &sni,
            &peer,
            &conn.stream,
            &self.opts.proxy_tls,
            false,
        )?;
        let opts = self.opts.proxy_tls.clone();
        self.tls_notes(alpn, &opts, &mut session);
        self.conn.as_mut().expect("conn").proxy_tls = Some(Box::new(session));
        self.state = State::Filter(FilterStep::Tls {
            want_write: true,
            proxy: true,
        });
        Ok(())
    }

    /// curl's `-v` lines before a handshake: what the backend wrote setting the session up
    /// (with an `SSL_CTX` hook, the CA store it filled first), the ALPN offer and, with
    /// rustls, the CA locations.
    pub(super) fn tls_notes(
        &mut self,
        alpn: &[&[u8]],
        opts: &crate::tls::TlsOptions,
        session: &mut crate::tls::Session,
    ) {
        let early = session.take_notes();
        if !self.opts.verbose {
            return;
        }
        for n in &early {
            self.verbose(n);
        }
        if !alpn.is_empty() {
            let offer: Vec<&str> = alpn
                .iter()
                .map(|a| std::str::from_utf8(a).unwrap_or(""))
                .collect();
            self.verbose(&format!("ALPN: curl offers {}", offer.join(",")));
        }
        // The OpenSSL backend writes these itself, once the ClientHello is out, as curl's
        // does ([`crate::tls::Session::take_notes`]).
        if opts.verify_peer && crate::tls::backend() == crate::tls::Backend::Rustls {
            // A CA blob replaces the file (curl's populate_x509_store).
            let ca = match opts.ca_blob {
                Some(_) => vec![
                    "successfully imported CA certificate blob".to_string(),
                    " CAfile: none".to_string(),
                    format!(" CApath: {}", opts.effective_capath()),
                ],
                None => vec![
                    format!(" CAfile: {}", opts.effective_cafile()),
                    format!(" CApath: {}", opts.effective_capath()),
                ],
            };
            for l in &ca {
                self.verbose(l);
            }
        }
    }

    /// curl's `ossl_trace`: with `-v` and a debug callback, OpenSSL's handshake messages,
    /// alerts and record headers are written as they pass (`Conn::trace_on`).
    pub(super) fn tls_trace_wanted(&self) -> bool {
        self.opts.verbose
            && crate::tls::backend() == crate::tls::Backend::OpenSsl
            && self.callbacks.has_debug_callback()
    }

    /// [`Self::tls_trace_wanted`] on a connection with TLS.
    pub(super) fn tls_trace_on(&self) -> bool {
        self.tls_trace_wanted()
            && self
                .conn
                .as_ref()
                .is_some_and(|c| c.tls.is_some() || c.proxy_tls.is_some())
    }

    /// Turn on the TLS trace of the transfer's connection for the calls to come.
    pub(super) fn tls_trace_start(&mut self) {
        if let Some(c) = self.conn.as_mut() {
            c.trace_on();
        }
    }

    /// Turn the trace of the transfer's connection off and write what it kept.
    pub(super) fn tls_trace_end(&mut self) {
        let events = self
            .conn
            .as_mut()
            .map(|c| c.trace_take())
            .unwrap_or_default();
        self.tls_trace_emit(events);
    }

    /// Write what a connection's TLS trace kept ([`crate::conn::Conn::trace_take`]): the
    /// messages and the backend's notes, in the order they came.
    pub(super) fn tls_trace_emit(&mut self, events: Vec<crate::tls::TraceEvent>) {
        for e in events {
            if let Some(t) = &e.text {
                self.verbose(t);
            }
            if e.bytes.is_empty() {
                continue;
            }
            let kind = if e.out {
                InfoType::SslDataOut
            } else {
                InfoType::SslDataIn
            };
            self.callbacks.debug_live(kind, &e.bytes, &self.info);
        }
    }

    pub(super) fn do_tls_connect(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::Filter(FilterStep::Tls { proxy, .. }) = self.state else {
            unreachable!()
        };
        let trace = self.tls_trace_on();
        if trace {
            self.tls_trace_start();
        }
        let conn = self.conn.as_mut().expect("conn");
        let inner = !proxy && (conn.proxy_tls.is_some() || conn.tunnel.is_some());
        let step = conn.handshake();
        // CURLINFO_(PROXY_)SSL_VERIFYRESULT: what the session checking the certificate came
        // to, also when the handshake failed over it.
        let session = if proxy { &conn.proxy_tls } else { &conn.tls };
        if let Some(code) = session.as_ref().map(|t| t.verify_result()) {
            if proxy {
                self.info.proxy_ssl_verify_result = code;
            } else {
                self.info.ssl_verify_result = code;
            }
        }
        if trace {
            self.tls_trace_end();
        } else {
            let conn = self.conn.as_mut().expect("conn");
            let session = if proxy {
                &mut conn.proxy_tls
            } else {
                &mut conn.tls
            };
            let notes = session.as_mut().map(|t| t.take_notes()).unwrap_or_default();
            for n in notes {
                self.verbose(&n);
            }
        }
        let step = step.map_err(|e| {
            if inner {
                crate::tls::inner_handshake_error(e)
            } else {
                e
            }
        })?;
        match step {
            crate::tls::Handshake::WantRead => {
                self.state = State::Filter(FilterStep::Tls {
                    want_write: false,
                    proxy,
                });
                return Ok(false);
            }
            crate::tls::Handshake::WantWrite => {
                self.state = State::Filter(FilterStep::Tls {
                    want_write: true,
                    proxy,
                });
                return Ok(false);
            }
            crate::tls::Handshake::Done => {}
        }
        if proxy {
            self.tls_established(true, false)?;
            if self.tunnel_wanted && self.proxy_speaks_h2() {
                self.start_h2_tunnel()?;
            } else if self.tunnel_wanted {
                self.start_tunnel();
            } else {
                self.timers.clear(TimerId::ConnectTimeout);
                self.info.time_appconnect = cx.now.duration_since(self.started);
                self.origin_ready(cx)?;
            }
            return Ok(true);
        }
        self.info.time_appconnect = cx.now.duration_since(self.started);
        self.tls_established(false, false)?;
        self.established(cx);
        Ok(true)
    }

    /// After a handshake (with the proxy or the origin): the pinned key check, `-v` lines.
    /// `early`: the handshake was deferred for early data, its ALPN asked for from the
    /// resumed session (and checked by the session).
    pub(super) fn tls_established(&mut self, proxy: bool, early: bool) -> Result<()> {
        let conn = self.conn.as_mut().expect("conn");
        let slot = if proxy {
            &mut conn.proxy_tls
        } else {
            &mut conn.tls
        };
        let tls = slot.take().expect("tls");
        let r = self.tls_report(&tls, proxy, early);
        let conn = self.conn.as_mut().expect("conn");
        if proxy {
            conn.proxy_tls = Some(tls);
        } else {
            conn.tls = Some(tls);
        }
        r
    }

    /// [`Self::tls_established`] for any session of the transfer (FTP's data connection
    /// has its own).
    pub(super) fn tls_report(
        &mut self,
        tls: &crate::tls::Session,
        proxy: bool,
        early: bool,
    ) -> Result<()> {
        let opts = if proxy {
            &self.opts.proxy_tls
        } else {
            &self.opts.tls
        };
        if self.opts.certinfo {
            // As curl, the proxy's handshake fills it too, and the origin's replaces it.
            self.info.certinfo = tls
                .peer_chain_der()
                .iter()
                .map(|c| crate::tls::certinfo::certinfo(c))
                .collect();
        }
        let certs = tls.chain_der();
        // After a resumed OpenSSL handshake there is no chain, only the session's leaf.
        let leaf_der = certs.first().cloned().or_else(|| tls.leaf_der());
        if let Some(pin) = opts.pinned_pubkey.clone() {
            let spki = leaf_der
                .as_deref()
                .and_then(|c| crate::tls::x509::Cert::parse(c).map(|c| c.spki_der().to_vec()))
                .unwrap_or_default();
            if !crate::tls::pin::matches(&pin, &spki) {
                return Err(Error::new(
                    Code::SslPinnedpubkeynotmatch,
                    "SSL: public key does not match pinned public key",
                ));
            }
        }
        if !self.opts.verbose {
            return Ok(());
        }
        let mut lines = vec![tls.connection_summary()];
        let offered = if proxy {
            !self.proxy_alpn_offer().is_empty()
        } else {
            !self.alpn_offer().is_empty()
        };
        if offered {
            lines.push(match tls.alpn() {
                Some(p) if early => {
                    format!(
                        "ALPN: server confirmed to use '{}'",
                        String::from_utf8_lossy(p)
                    )
                }
                Some(p) => format!("ALPN: server accepted {}", String::from_utf8_lossy(p)),
                None => "ALPN: server did not agree on a protocol. Uses default.".into(),
            });
        }
        let host = if proxy {
            self.proxy
                .as_ref()
                .map(|p| p.host.clone())
                .unwrap_or_default()
        } else {
            self.url_host()
        };
        let (verify_host, verify_peer) = (opts.verify_host, opts.verify_peer);
        if let Some(leaf) = leaf_der.as_deref().and_then(crate::tls::x509::Cert::parse) {
            lines.push(if proxy {
                "Proxy certificate:".into()
            } else {
                "Server certificate:".into()
            });
            lines.push(format!(" subject: {}", leaf.subject()));
            lines.push(format!(" start date: {}", leaf.start_date()));
            lines.push(format!(" expire date: {}", leaf.expire_date()));
            if verify_host {
                if let Some(m) = crate::tls::x509::san_match(&leaf, &host) {
                    lines.push(format!(" subjectAltName: {m}"));
                }
            }
            lines.push(format!(" issuer: {}", leaf.issuer()));
            // curl's OpenSSL backend: with -k the chain's result is told and let pass.
            let code = tls.verify_result();
            if verify_peer || code == 0 {
                lines.push(" SSL certificate verify ok.".into());
            } else {
                lines.push(format!(
                    " SSL certificate verify result: {} ({code}), continuing anyway.",
                    crate::tls::verify_error_text(code)
                ));
            }
        }
        for (i, c) in certs.iter().enumerate() {
            if let Some(c) = crate::tls::x509::Cert::parse(c) {
                lines.push(format!(
                    "  Certificate level {i}: Public key type {}, signed using {}",
                    c.key_summary(),
                    c.signature_name()
                ));
            }
        }
        for l in &lines {
            self.verbose(l);
        }
        Ok(())
    }
}
