//! FTPS (curl's FTP-over-TLS parts of `lib/ftp.c`): implicit TLS for `ftps://` (the
//! connection's filters make it, as for https), and for `ftp://` with `CURLOPT_USE_SSL`
//! the explicit upgrade: AUTH SSL and AUTH TLS in `CURLOPT_FTPSSLAUTH`'s order, the
//! handshake on the control connection, then after the login PBSZ 0 and PROT P (PROT C
//! for `--ftp-ssl-control`), and CCC for `--ftp-ssl-ccc`.
//!
//! A data connection after an accepted PROT P gets its own session, made with the same
//! client configuration and peer key as the control connection's, so it resumes that
//! session (servers such as vsftpd refuse a data connection that does not). The
//! handshake starts as soon as the socket is connected or accepted and ends once the
//! server, having had the transfer command, answers it; "Connected 2nd connection" is
//! said then, as curl says it when the data connection's filters are all up.

use super::*;
use crate::tls::{Handshake, Io};

impl Transfer {
    /// curl's `FTP_WAIT220` with `CURLOPT_USE_SSL`: the first AUTH.
    pub(super) fn ftp_auth(&mut self) -> Result<()> {
        let (first, second) = match self.opts.ftp().ssl_auth {
            FtpAuth::Default | FtpAuth::Ssl => ("SSL", "TLS"),
            FtpAuth::Tls => ("TLS", "SSL"),
        };
        self.ftp.as_mut().expect("ftp").auth_next = Some(second);
        self.ftp_set(Step::Auth);
        self.ftp_send("AUTH", Some(first))
    }

    /// curl's `FTP_AUTH`: 234 or 334 starts TLS; a refusal tries the other method once,
    /// then goes on in the clear unless TLS is required.
    pub(super) fn ftp_auth_reply(&mut self, code: u32) -> Result<()> {
        let m = conn_meta(self.conn.as_mut().expect("conn"));
        if !m.reader.unread().is_empty() {
            // Bytes after the reply would be read as TLS: no pipelining here.
            return Err(Error::code(Code::WeirdServerReply));
        }
        if code == 234 || code == 334 {
            // The handshake step makes the session; the server has the response timeout
            // to finish it.
            m.sent_at = Some(Instant::now());
            self.ftp_set(Step::AuthTls);
            return Ok(());
        }
        if let Some(next) = self.ftp.as_mut().expect("ftp").auth_next.take() {
            return self.ftp_send("AUTH", Some(next));
        }
        if self.opts.use_ssl > UseSsl::Try {
            return Err(Error::code(Code::UseSslFailed));
        }
        self.ftp_user()
    }

    /// A TLS session on the control connection, its handshake next.
    fn ftp_start_control_tls(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let config = self.ftp_tls_config(cx)?;
        let (sni, peer) = self.ftp_tls_peer();
        let conn = self.conn.as_ref().expect("conn");
        let over_tls = conn.proxy_tls.is_some() || conn.tunnel.is_some();
        let mut session =
            crate::tls::Session::new(&config, &sni, &peer, &conn.stream, &self.opts.tls, over_tls)?;
        let opts = self.opts.tls.clone();
        self.tls_notes(&[], &opts, &mut session);
        self.conn.as_mut().expect("conn").tls = Some(Box::new(session));
        Ok(())
    }

    /// The client configuration of the transfer's TLS settings, without ALPN (curl offers
    /// none for FTP): the one the control and data connections share.
    pub(super) fn ftp_tls_config(&mut self, cx: &mut Cx<'_>) -> Result<crate::tls::Config> {
        cx.tls.config(&self.opts.tls, &[])
    }

    /// The name the server is asked for (SNI) and the key its sessions are kept under:
    /// the control connection's host and port, for both connections.
    fn ftp_tls_peer(&self) -> (String, String) {
        let host = self.url_host();
        let sni = host.split('%').next().unwrap_or(&host).to_string();
        let port = self.url.as_ref().map_or(0, |u| u.port_or_default());
        let peer = self.tls_peer_key(&sni, port, &self.opts.tls);
        (sni, peer)
    }

    /// The control connection's handshake after AUTH; true once done (then USER).
    pub(super) fn ftp_control_handshake(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if self.conn.as_ref().is_some_and(|c| c.tls.is_none()) {
            self.ftp_start_control_tls(cx)?;
        }
        let trace = self.tls_trace_on();
        if trace {
            self.tls_trace_start();
        }
        let conn = self.conn.as_mut().expect("conn");
        let step = conn.handshake();
        if let Some(code) = conn.tls.as_ref().map(|t| t.verify_result()) {
            self.info.ssl_verify_result = code;
        }
        if trace {
            self.tls_trace_end();
        } else {
            let conn = self.conn.as_mut().expect("conn");
            let notes = conn
                .tls
                .as_mut()
                .map(|t| t.take_notes())
                .unwrap_or_default();
            for n in notes {
                self.verbose(&n);
            }
        }
        // curl: a failed upgrade is "Requested SSL level failed" only when the filter
        // could not be added; the handshake's own error stands.
        match step? {
            Handshake::WantRead | Handshake::WantWrite => return Ok(false),
            Handshake::Done => {}
        }
        self.info.time_appconnect = cx.now.duration_since(self.started);
        self.tls_established(false, false)?;
        // curl's verboseconnect once the control connection's filters are up again.
        self.verbose_connected();
        conn_meta(self.conn.as_mut().expect("conn")).data_tls = false;
        self.ftp_user()?;
        Ok(true)
    }

    /// PBSZ's reply is not read: PROT follows.
    pub(super) fn ftp_pbsz_reply(&mut self) -> Result<()> {
        let level = if self.opts.use_ssl == UseSsl::Control {
            "C"
        } else {
            "P"
        };
        self.ftp_set(Step::Prot);
        self.ftp_send("PROT", Some(level))
    }

    /// curl's `FTP_PROT`: a 2xx makes data connections TLS (unless only the control
    /// connection was asked for); a refusal fails when TLS is required everywhere.
    pub(super) fn ftp_prot_reply(&mut self, code: u32) -> Result<()> {
        if code / 100 == 2 {
            let data_tls = self.opts.use_ssl != UseSsl::Control;
            conn_meta(self.conn.as_mut().expect("conn")).data_tls = data_tls;
        } else if self.opts.use_ssl > UseSsl::Control {
            return Err(Error::code(Code::UseSslFailed));
        }
        if self.opts.ftp().ssl_ccc != FtpCcc::None {
            self.ftp_set(Step::Ccc);
            return self.ftp_send("CCC", None);
        }
        self.ftp_pwd()
    }

    /// curl's `FTP_CCC`: below 500 the control connection's TLS ends (active: our
    /// close_notify first), then the login goes on in the clear.
    pub(super) fn ftp_ccc_reply(&mut self, code: u32) -> Result<()> {
        if code >= 500 {
            return self.ftp_pwd();
        }
        if self.opts.ftp().ssl_ccc == FtpCcc::Active {
            let conn = self.conn.as_mut().expect("conn");
            if let Some(t) = conn.tls.as_mut() {
                t.close(&mut Io::Sock(&mut conn.stream));
            }
        }
        // The server has the response timeout to send its close_notify.
        conn_meta(self.conn.as_mut().expect("conn")).sent_at = Some(Instant::now());
        self.ftp_set(Step::CccShutdown);
        Ok(())
    }

    /// Wait for the server's close_notify, then take TLS off the control connection; true
    /// once it is off.
    pub(super) fn ftp_ccc_shutdown(&mut self) -> Result<bool> {
        let failed = || {
            Error::new(
                Code::SslShutdownFailed,
                "Failed to clear the command channel (CCC)",
            )
        };
        let conn = self.conn.as_mut().expect("conn");
        let mut buf = [0u8; 512];
        while let Some(t) = conn.tls.as_mut() {
            match t.recv(&mut Io::Sock(&mut conn.stream), &mut buf) {
                Ok(0) => break,
                // Bytes before the close_notify are dropped, as curl's shutdown drops them.
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if let Err(e) = t.flush(&mut Io::Sock(&mut conn.stream)) {
                        if e.kind() != io::ErrorKind::WouldBlock {
                            return Err(failed());
                        }
                    }
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Err(failed()),
            }
        }
        conn.tls = None;
        self.ftp_pwd()?;
        Ok(true)
    }

    /// The client configuration a data connection will need, when PROT P was accepted.
    pub(super) fn ftp_data_tls_config(
        &mut self,
        cx: &mut Cx<'_>,
    ) -> Result<Option<crate::tls::Config>> {
        if !conn_meta(self.conn.as_mut().expect("conn")).data_tls {
            return Ok(None);
        }
        self.ftp_tls_config(cx).map(Some)
    }

    /// A data connection was connected or accepted: TLS on it with `config` (PROT P was
    /// accepted), its ClientHello sent now. "Connected 2nd connection" waits for the
    /// handshake.
    pub(super) fn ftp_data_tls_start(&mut self, config: crate::tls::Config) -> Result<()> {
        let (sni, peer) = self.ftp_tls_peer();
        let x = self.ftp.as_mut().expect("ftp");
        let Some(Data::Open(s, _)) = x.data.as_mut() else {
            return Ok(());
        };
        let mut session =
            crate::tls::Session::new(&config, &sni, &peer, &s.stream, &self.opts.tls, false)?;
        let opts = self.opts.tls.clone();
        self.tls_notes(&[], &opts, &mut session);
        let x = self.ftp.as_mut().expect("ftp");
        if let Some(Data::Open(s, _)) = x.data.as_mut() {
            s.tls = Some(Box::new(session));
            s.handshaking = true;
        }
        self.ftp_data_handshake()?;
        Ok(())
    }

    /// Drive the data connection's handshake; true once it is done (or there is none).
    pub(super) fn ftp_data_handshake(&mut self) -> Result<bool> {
        let trace = self.tls_trace_wanted();
        let x = self.ftp.as_mut().expect("ftp");
        let Some(Data::Open(s, _)) = x.data.as_mut() else {
            return Ok(true);
        };
        if !s.handshaking {
            return Ok(true);
        }
        let Some(t) = s.tls.as_mut() else {
            return Ok(true);
        };
        if trace {
            t.trace_on();
        }
        let step = s.with_tls(|t, io| t.handshake(io)).expect("data tls");
        let t = s.tls.as_mut().expect("data tls");
        let code = t.verify_result();
        let (events, notes) = if trace {
            (t.trace_take(), Vec::new())
        } else {
            (Vec::new(), t.take_notes())
        };
        let peer = s.stream_peer();
        self.info.ssl_verify_result = code;
        self.tls_trace_emit(events);
        for n in notes {
            self.verbose(&n);
        }
        match step? {
            Handshake::WantRead | Handshake::WantWrite => return Ok(false),
            Handshake::Done => {}
        }
        let x = self.ftp.as_mut().expect("ftp");
        let Some(Data::Open(s, _)) = x.data.as_mut() else {
            return Ok(true);
        };
        s.handshaking = false;
        let tls = s.tls.take().expect("data tls");
        let r = self.tls_report(&tls, false, false);
        let x = self.ftp.as_mut().expect("ftp");
        if let Some(Data::Open(s, _)) = x.data.as_mut() {
            s.tls = Some(tls);
        }
        r?;
        if let Some(p) = peer {
            self.verbose(&format!(
                "Connected 2nd connection to {} port {}",
                p.ip(),
                p.port()
            ));
        }
        Ok(true)
    }
}

impl Transfer {
    /// The data connection ends: TLS with close_notify (traced as curl traces it), then
    /// the socket.
    pub(super) fn ftp_data_close(&mut self) {
        let trace = self.tls_trace_wanted();
        let x = self.ftp.as_mut().expect("ftp");
        let Some(Data::Open(mut s, _)) = x.data.take() else {
            return;
        };
        if s.tls.is_none() {
            return;
        }
        if trace {
            s.trace_on();
        }
        // As curl's shutdown: what the peer sent first (its close_notify, often), then
        // ours.
        s.with_tls(|t, io| {
            let mut buf = [0u8; 256];
            for _ in 0..4 {
                match t.recv(io, &mut buf) {
                    Ok(n) if n > 0 => {}
                    _ => break,
                }
            }
            t.close(io);
        });
        if trace {
            let events = s.trace_take();
            self.tls_trace_emit(events);
        }
        // Closed: the socket's drop does not close it again.
        s.tls = None;
    }
}
