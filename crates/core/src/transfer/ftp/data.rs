//! The FTP data connection and the end of a transfer (curl's `ftp_state_use_pasv`,
//! `ftp_state_pasv_resp`, the transfer loop's FTP writers and readers, and `ftp_done`):
//! EPSV then PASV, the connect, the download written through curl's ASCII line-end
//! conversion and its range and size limits, the upload read through the LF-to-CRLF
//! conversion, then ABOR after a range, the final reply, the size checks and the post-quote
//! commands.

use super::*;

impl Transfer {
    /// curl's `ftp_state_prepare_transfer`: active mode, or PRET first when asked, then
    /// passive.
    pub(super) fn ftp_start_data(&mut self) -> Result<()> {
        if self.opts.ftp().port.is_some() {
            // Made in the do phase's loop, which has the DNS cache at hand.
            self.ftp_set(Step::PortStart(PortCmd::Eprt));
            return Ok(());
        }
        if self.opts.ftp().use_pret {
            let x = self.ftp.as_ref().expect("ftp");
            let line: Vec<u8> = match &x.path.file {
                None => {
                    let verb = match &self.opts.custom_request {
                        Some(c) => c.as_bytes(),
                        None if x.list_only => b"NLST",
                        None => b"LIST",
                    };
                    [&b"PRET "[..], verb].concat()
                }
                Some(f) if x.upload => [&b"PRET STOR "[..], f].concat(),
                Some(f) => [&b"PRET RETR "[..], f].concat(),
            };
            self.ftp_set(Step::Pret);
            return self.ftp_send_line(&[&line]);
        }
        self.ftp_use_pasv()
    }

    /// PRET's reply: 200, or the transfer fails.
    pub(super) fn ftp_pret_reply(&mut self, code: u32) -> Result<()> {
        if code != 200 {
            return Err(Error::new(
                Code::FtpPretFailed,
                format!("PRET command not accepted: {code:03}"),
            ));
        }
        self.ftp_use_pasv()
    }

    /// curl's `ftp_state_use_pasv`: EPSV, or PASV once EPSV failed or is disabled.
    fn ftp_use_pasv(&mut self) -> Result<()> {
        // curl cannot do without EPSV over IPv6.
        let v6 = self
            .conn
            .as_ref()
            .and_then(|c| c.remote)
            .is_some_and(|a| a.is_ipv6());
        let m = conn_meta(self.conn.as_mut().expect("conn"));
        let epsv = (self.opts.ftp_use_epsv && !m.epsv_failed) || v6;
        let (cmd, step) = if epsv {
            ("EPSV", Step::Epsv)
        } else {
            ("PASV", Step::Pasv)
        };
        self.ftp_set(step);
        self.ftp_send(cmd, None)?;
        self.verbose("Connect data stream passively");
        Ok(())
    }

    /// curl's `ftp_state_pasv_resp`: where the data connection goes.
    pub(super) fn ftp_pasv_reply(&mut self, cx: &mut Cx<'_>, code: u32) -> Result<()> {
        let line = self.ftp_last();
        let peer = self.conn.as_ref().and_then(|c| c.remote);
        let step = self.ftp_step();
        // A 229 naming port 0 falls back to PASV, as a refused EPSV does.
        let epsv = match (step, code) {
            (Step::Epsv, 229) => ftp::epsv_reply(line.as_bytes())?,
            _ => 0,
        };
        let Some(peer) = peer else {
            return Err(Error::code(Code::CouldntConnect));
        };
        // EPSV's data connection goes to the control connection's peer; PASV's to the
        // address it names unless --ftp-skip-pasv-ip (curl's default) says the peer.
        let (ip, port) = match (step, code) {
            (Step::Epsv, _) if epsv != 0 => (peer.ip(), epsv),
            (Step::Pasv, 227) => {
                let (ip, port) = ftp::pasv_reply(line.as_bytes())?;
                if self.opts.ftp_skip_pasv_ip {
                    self.verbose(&format!(
                        "Skip {ip} for data connection, reuse {} instead",
                        peer.ip()
                    ));
                    (peer.ip(), port)
                } else {
                    (IpAddr::V4(ip), port)
                }
            }
            (Step::Epsv, _) => return self.ftp_epsv_disable(),
            _ => {
                return Err(Error::new(
                    Code::FtpWeirdPasvReply,
                    format!("Bad PASV/EPSV response: {code:03}"),
                ))
            }
        };
        if self.ftp_data_proxy().is_some() {
            self.ftp_connect_via_proxy(cx, port)?;
        } else {
            let addr = SocketAddr::new(ip, port);
            let host = ip.to_string();
            self.verbose(&format!("Connecting to {host} ({host}) port {port}"));
            let he = HappyEyeballs::new(&[addr], cx.now, &self.opts.socket());
            self.ftp.as_mut().expect("ftp").data = Some(Data::Connecting(Box::new(he)));
        }
        let x = self.ftp.as_mut().expect("ftp");
        x.via_epsv = step == Step::Epsv;
        self.ftp_set(Step::DataConnect);
        Ok(())
    }

    /// curl's `ftp_epsv_disable`: PASV instead, and no EPSV again on this connection; over
    /// IPv6 there is nothing else to try.
    fn ftp_epsv_disable(&mut self) -> Result<()> {
        let v6 = self
            .conn
            .as_ref()
            .and_then(|c| c.remote)
            .is_some_and(|a| a.is_ipv6());
        if v6 && self.proxy.is_none() {
            return Err(Error::new(
                Code::WeirdServerReply,
                "Failed EPSV attempt, exiting",
            ));
        }
        self.verbose("Failed EPSV attempt. Disabling EPSV");
        conn_meta(self.conn.as_mut().expect("conn")).epsv_failed = true;
        self.ftp_set(Step::Pasv);
        self.ftp_send("PASV", None)
    }

    /// Drive the data connection's connect; true once it is up (then TYPE and the rest).
    pub(super) fn ftp_data_connect(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let x = self.ftp.as_mut().expect("ftp");
        if x.hop.is_some() {
            if !self.ftp_hop_drive(cx)? {
                return Ok(false);
            }
            return self.ftp_data_connected(cx).map(|()| true);
        }
        let Some(Data::Connecting(he)) = x.data.as_mut() else {
            return Ok(true);
        };
        let opts = self.opts.socket();
        let r = super::super::connecting::eyeballs_pass(
            &mut *self.callbacks,
            &self.info,
            &opts,
            &mut self.notes,
            he,
            cx.now,
        );
        let next = he.next_deadline();
        self.eyeballs_after(next);
        match r {
            ConnectPoll::Pending => Ok(false),
            ConnectPoll::Connected(s, _, sock_id) => {
                self.timers.clear(TimerId::HappyEyeballs);
                let x = self.ftp.as_mut().expect("ftp");
                x.data = Some(Data::Open(
                    DataSock::new(s, &self.opts.socket_hooks),
                    sock_id,
                ));
                if x.hop_port.is_some() {
                    // Through the proxy first.
                    self.ftp_hop_start(cx)?;
                    return self.ftp_data_connect(cx);
                }
                self.ftp_data_connected(cx)?;
                Ok(true)
            }
            // The attempt noted why; curl's failure names the connection's host and port,
            // not the data address.
            ConnectPoll::Failed(_) => {
                let x = self.ftp.as_mut().expect("ftp");
                x.data = None;
                if x.via_epsv {
                    // curl's ftp_do_more: a failed EPSV connect is tried again with PASV.
                    x.via_epsv = false;
                    self.ftp_epsv_disable()?;
                    return Ok(false);
                }
                let c = self.conn.as_ref().expect("conn");
                let host = c.host.trim_start_matches('[').trim_end_matches(']');
                Err(connect_failed(host, c.port, self.elapsed_ms(cx.now)))
            }
        }
    }

    /// The data connection reached where it goes: TLS on it after PROT P (the handshake
    /// says when it is connected), then the commands of the transfer.
    fn ftp_data_connected(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let tls = self.ftp_data_tls_config(cx)?;
        let x = self.ftp.as_mut().expect("ftp");
        let peer = match x.data.as_ref() {
            Some(Data::Open(s, _)) => s.stream_peer(),
            _ => None,
        };
        conn_meta(self.conn.as_mut().expect("conn")).data_peer = peer;
        if tls.is_none() {
            if let Some(a) = peer {
                self.verbose(&format!(
                    "Connected 2nd connection to {} port {}",
                    a.ip(),
                    a.port()
                ));
            }
        }
        if let Some(config) = tls {
            self.ftp_data_tls_start(config)?;
        }
        self.ftp_data_ready()
    }

    /// The perform phase: the data, then the end of the transfer.
    pub(super) fn ftp_perform(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        match self.ftp_step() {
            Step::Transfer if self.ftp.as_ref().expect("ftp").upload => self.ftp_upload(cx),
            Step::Transfer => self.ftp_download(cx),
            Step::Stop => {
                self.ftp_done(cx)?;
                Ok(true)
            }
            Step::Final => self.ftp_final(cx),
            Step::Quote(Quote::Post, i) => {
                let Some(code) = self.ftp_response(cx)? else {
                    return Ok(false);
                };
                self.ftp_quote_reply(Quote::Post, i, code)?;
                Ok(true)
            }
            _ => {
                self.ftp_end(cx, true);
                // A wildcard download's next round starts at once.
                Ok(matches!(self.state, State::Init))
            }
        }
    }

    /// Read the data connection into the write callback; at its end (or the range's),
    /// curl's `ftp_done`.
    fn ftp_download(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if !self.ftp_data_handshake()? {
            return Ok(false);
        }
        if self.recv_held() && !self.flush_held()? {
            return Ok(false);
        }
        let mut buf = cx.bufs.get(self.opts.buffer_size.max(1024));
        let trace = self.tls_trace_wanted();
        let mut events = Vec::new();
        let r = loop {
            let x = self.ftp.as_mut().expect("ftp");
            // curl reads no more than the size it expects, and takes having it all as the
            // end (`xfer_recv_resp`).
            let want = match x.size {
                Some(size) => usize::try_from(size.saturating_sub(x.got))
                    .unwrap_or(usize::MAX)
                    .min(buf.len()),
                None => buf.len(),
            };
            let Some(Data::Open(s, _)) = x.data.as_mut().filter(|_| want > 0) else {
                break Ok(0);
            };
            if trace {
                s.trace_on();
            }
            let r = s.read(&mut buf[..want]);
            if trace {
                events.extend(s.trace_take());
            }
            match r {
                Ok(n) => break Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.tls_trace_emit(events);
        let r = match r {
            Ok(0) => Ok(None),
            Ok(n) => self.ftp_body(&buf[..n]).map(Some),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                cx.bufs.put(buf);
                return Ok(false);
            }
            Err(e) => Err(Error::new(Code::RecvError, format!("Recv failure: {e}"))),
        };
        cx.bufs.put(buf);
        match r? {
            // More to read, unless the range is complete.
            Some(false) => Ok(true),
            Some(true) => {
                self.ftp_done(cx)?;
                Ok(true)
            }
            None => {
                // The data connection ended: the end of the body goes out (curl's
                // end-of-stream write, traced as no data).
                self.ftp_data_close();
                self.verbose("abort upload");
                if self.opts.verbose {
                    self.callbacks.debug_live(InfoType::DataIn, &[], &self.info);
                }
                if std::mem::take(&mut self.ftp.as_mut().expect("ftp").cr_pending) {
                    self.ftp_write(b"\n")?;
                }
                let x = self.ftp.as_mut().expect("ftp");
                if let Some(max) = x.max_download.filter(|&m| m > x.got) {
                    let left = max - x.got;
                    return Err(Error::new(
                        Code::PartialFile,
                        format!("end of response with {left} bytes missing"),
                    ));
                }
                if let Some(size) = x.size.filter(|&s| s > x.got) {
                    let left = size - x.got;
                    return Err(Error::new(
                        Code::PartialFile,
                        format!("transfer closed with {left} bytes remaining to read"),
                    ));
                }
                self.ftp_done(cx)?;
                Ok(true)
            }
        }
    }

    /// The last of the upload went: curl's request end, then `ftp_done`.
    fn ftp_upload_end(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        let n = x.sent;
        if n > 0 {
            self.verbose(&format!("upload completely sent off: {n} bytes"));
        } else if x.in_size == Some(0) {
            self.verbose("Request completely sent off");
        } else {
            self.verbose("We are completely uploaded and fine");
        }
        self.ftp_done(cx)
    }

    /// Body bytes from the data connection (curl's raw, download and FTP line-end
    /// writers): traced whole, cut at the range's end and at `--max-filesize`, converted,
    /// written, counted. True when the range is complete.
    fn ftp_body(&mut self, data: &[u8]) -> Result<bool> {
        if self.info.time_starttransfer.is_zero() {
            self.info.time_starttransfer = self.started.elapsed();
        }
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::DataIn, data, &self.info);
        }
        let x = self.ftp.as_ref().expect("ftp");
        let mut n = data.len();
        let mut done = false;
        let mut excess = 0;
        if let Some(max) = x.max_download {
            let room = usize::try_from(max.saturating_sub(x.got)).unwrap_or(usize::MAX);
            if n >= room {
                excess = n - room;
                n = room;
                done = true;
            }
        }
        let mut w = n;
        if let Some(max) = self.opts.max_filesize {
            w = w.min(usize::try_from(max.saturating_sub(x.got)).unwrap_or(usize::MAX));
        }
        let ascii = conn_meta(self.conn.as_mut().expect("conn")).transfer_type == Some(b'A');
        if ascii {
            self.ftp_write_ascii(&data[..w])?;
        } else {
            self.ftp_write(&data[..w])?;
        }
        self.info.size_download += w as u64;
        let x = self.ftp.as_mut().expect("ftp");
        x.got += w as u64;
        if excess > 0 {
            let msg = format!(
                "Excess found writing body: excess = {excess}, size = {}, maxdownload = {}, \
                 bytecount = {}",
                x.size.map_or(-1, |s| s as i64),
                x.max_download.map_or(-1, |m| m as i64),
                x.got
            );
            self.verbose(&msg);
        } else if w < n {
            return Err(filesize_exceeded(
                self.opts.max_filesize.unwrap_or(0),
                x.got,
            ));
        }
        Ok(done)
    }

    /// Write body bytes in pieces a write callback may get.
    fn ftp_write(&mut self, data: &[u8]) -> Result<()> {
        // A wildcard download's listing goes to its parser, not to the application.
        if self.wildcard_listing(data) {
            return Ok(());
        }
        for piece in data.chunks(MAX_WRITE_SIZE) {
            self.emit(Out::Body, piece)?;
        }
        Ok(())
    }

    /// curl's `ftp_cw_lc_write`: in an ASCII transfer CRLF becomes LF and a lone CR an LF;
    /// a CR at the end of a piece waits for the next byte.
    fn ftp_write_ascii(&mut self, mut data: &[u8]) -> Result<()> {
        while !data.is_empty() {
            let x = self.ftp.as_mut().expect("ftp");
            if x.cr_pending {
                x.cr_pending = false;
                if data[0] != b'\n' {
                    self.ftp_write(b"\n")?;
                }
            }
            let Some(cr) = data.iter().position(|&b| b == b'\r') else {
                break;
            };
            if cr > 0 {
                self.ftp_write(&data[..cr])?;
            }
            data = &data[cr + 1..];
            self.ftp.as_mut().expect("ftp").cr_pending = true;
        }
        if !data.is_empty() {
            self.ftp_write(data)?;
        }
        Ok(())
    }

    /// Send the upload over the data connection, reading the source as the sending takes
    /// it; at its end, close the data connection and go to `ftp_done`.
    fn ftp_upload(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if !self.ftp_data_handshake()? {
            return Ok(false);
        }
        loop {
            let x = self.ftp.as_mut().expect("ftp");
            if x.up_pos == x.up_len {
                if x.up_eof {
                    self.ftp_data_close();
                    self.ftp_upload_end(cx)?;
                    return Ok(true);
                }
                if !self.ftp_fill_upload()? {
                    return Ok(false);
                }
                continue;
            }
            let Some(Data::Open(s, _)) = x.data.as_mut() else {
                return Err(Error::code(Code::SendError));
            };
            let r = s.write(&x.up[x.up_pos..x.up_len]);
            match r {
                Ok(n) => {
                    if self.opts.verbose {
                        let x = self.ftp.as_ref().expect("ftp");
                        let d = &x.up[x.up_pos..x.up_pos + n];
                        self.callbacks.debug_live(InfoType::DataOut, d, &self.info);
                    }
                    let x = self.ftp.as_mut().expect("ftp");
                    x.up_pos += n;
                    x.sent += n as u64;
                    self.info.size_upload += n as u64;
                    if self.info.time_starttransfer.is_zero() {
                        self.info.time_starttransfer = self.started.elapsed();
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) => return Err(send_error(&e)),
            }
        }
    }

    /// Read the next piece of the upload source (no more than its announced size), LF
    /// made CRLF with `--crlf` or in ASCII (curl's `cr_lc_read`). False when the source
    /// paused.
    fn ftp_fill_upload(&mut self) -> Result<bool> {
        let cap = self.opts.upload_buffer_size.max(1024);
        let convert = self.opts.crlf || self.ftp.as_ref().expect("ftp").want_type == b'A';
        let x = self.ftp.as_mut().expect("ftp");
        // Converting reads into `up_in` and converts into `up`.
        let mut buf = std::mem::take(if convert { &mut x.up_in } else { &mut x.up });
        buf.resize(cap, 0);
        let mut room = cap;
        if let Some(total) = x.in_size {
            room = room.min(usize::try_from(total.saturating_sub(x.src_read)).unwrap_or(room));
        }
        let read = if room == 0 {
            ReadResult::Data(0)
        } else {
            self.callbacks.read_live(&mut buf[..room], &self.info)
        };
        let x = self.ftp.as_mut().expect("ftp");
        let n = match read {
            ReadResult::Data(n) => n.min(room),
            other => {
                *(if convert { &mut x.up_in } else { &mut x.up }) = buf;
                if matches!(other, ReadResult::Pause) {
                    self.pause_now(pause::SEND);
                    return Ok(false);
                }
                return Err(Error::new(
                    Code::AbortedByCallback,
                    "operation aborted by callback",
                ));
            }
        };
        x.src_read += n as u64;
        if convert {
            let mut out = std::mem::take(&mut x.up);
            out.clear();
            if !crate::codec::lf_to_crlf(&buf[..n], &mut x.up_prev_cr, &mut out) {
                out.extend_from_slice(&buf[..n]);
            }
            x.up_len = out.len();
            x.up = out;
            x.up_in = buf;
        } else {
            x.up_len = n;
            x.up = buf;
        }
        x.up_pos = 0;
        x.up_eof = n == 0;
        Ok(true)
    }

    /// curl's `ftp_done` after a transfer that went well or did not start: the directory
    /// remembered, ABOR after a range, the data connection closed, then the final reply
    /// when data moved, else the checks and the post-quote commands.
    fn ftp_done(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        self.ftp.as_mut().expect("ftp").in_done = true;
        if let Some(note) = self.ftp_remember_dir() {
            self.verbose(&note);
        }
        let x = self.ftp.as_ref().expect("ftp");
        let open = x.data.is_some();
        if open && x.dont_check && x.max_download.is_some_and(|m| m > 0) {
            self.ftp_send("ABOR", None)?;
        }
        self.ftp_data_close();
        if self.ftp.as_ref().expect("ftp").mode == Mode::Body {
            conn_meta(self.conn.as_mut().expect("conn")).sent_at = Some(cx.now);
            self.ftp_set(Step::Final);
            return Ok(());
        }
        self.ftp_checks()?;
        self.ftp_quote(Quote::Post, 0)
    }

    /// The final reply after the data (the 226), with curl's lowered timeout for it.
    fn ftp_final(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let Some(code) = self.ftp_response(cx)? else {
            return Ok(false);
        };
        let x = self.ftp.as_ref().expect("ftp");
        if x.dont_check && x.max_download.is_some_and(|m| m > 0) {
            // ABOR went: there is no telling whether the reply is the transfer's.
            self.verbose("partial download completed, closing connection");
            self.ftp_end(cx, false);
            return Ok(false);
        }
        if !x.dont_check {
            match code {
                226 | 250 => {}
                552 => {
                    return Err(Error::new(
                        Code::RemoteDiskFull,
                        "Exceeded storage allocation",
                    ))
                }
                _ => {
                    return Err(Error::new(
                        Code::PartialFile,
                        format!("server did not report OK, got {code}"),
                    ))
                }
            }
        }
        self.ftp_checks()?;
        self.ftp_quote(Quote::Post, 0)?;
        Ok(true)
    }

    /// `ftp_done`'s size checks: an upload of known size sent whole, a download of known
    /// size received whole.
    fn ftp_checks(&mut self) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        if x.upload {
            let converted = self.opts.crlf || x.want_type == b'A';
            if let Some(total) = x.in_size.filter(|_| x.mode == Mode::Body) {
                if (!converted && total != x.sent) || (converted && total > x.sent) {
                    return Err(Error::new(
                        Code::PartialFile,
                        format!(
                            "Uploaded unaligned file size ({} out of {total} bytes)",
                            x.sent
                        ),
                    ));
                }
            }
            return Ok(());
        }
        if let Some(size) = x.size {
            if size != x.got && x.max_download != Some(x.got) {
                return Err(Error::new(
                    Code::PartialFile,
                    format!("Received only partial file: {} bytes", x.got),
                ));
            }
            if !x.dont_check && x.got == 0 && size > 0 {
                return Err(Error::new(Code::FtpCouldntRetrFile, "No data was received"));
            }
        }
        Ok(())
    }

    /// The transfer is over: the connection kept (or closed), then done.
    fn ftp_end(&mut self, cx: &mut Cx<'_>, keep: bool) {
        self.timers.clear(TimerId::Protocol);
        self.ftp = None;
        // curl's multi_done updates the progress before the connection is kept.
        self.progress(cx.now);
        // A wildcard download goes on with its next file, as curl's MSTATE_INIT again.
        let next = self.wildcard_next();
        self.release_conn(cx, keep && !self.opts.forbid_reuse);
        match next {
            Ok(true) => {}
            Ok(false) => self.finish(cx, Ok(())),
            Err(e) => self.finish(cx, Err(e)),
        }
    }
}
