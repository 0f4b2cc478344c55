//! The FTP handler (curl's `lib/ftp.c`): login and the entry path in protocol connect, the
//! working directory, a passive data connection (EPSV, then PASV), the transfer type, SIZE
//! and RETR in do, the file over the data connection in perform, and the final reply.
//!
//! The control connection is the transfer's connection and carries the protocol's state
//! between transfers (`FtpConn`: the entry path, the directory it is in, the transfer type
//! set, the response reader): a reused connection logs in once. The data connection belongs
//! to the transfer (`FtpXfer`) and is the transfer's second socket. Commands and replies go
//! through `proto::pingpong`; the reply texts are read by `proto::ftp`. Design note:
//! `docs/internals/FTP.md`.

use std::net::TcpStream;

use super::handler::Handler;
use super::*;
use crate::proto::ftp;
use crate::proto::pingpong::{self, Event};

/// How a path becomes CWDs (`--ftp-method`): curl's default, one CWD per directory.
const METHOD: ftp::FileMethod = ftp::FileMethod::MultiCwd;

/// curl's default FTP user and password (`CURL_DEFAULT_USER`, `CURL_DEFAULT_PASSWORD`).
const DEFAULT_USER: &str = "anonymous";
const DEFAULT_PASSWORD: &str = "ftp@example.com";

/// The handler of `ftp`.
pub(super) struct FtpHandler;

pub(super) static FTP: FtpHandler = FtpHandler;

/// What the control connection knows between transfers (curl's `ftp_conn`).
#[derive(Debug, Default)]
pub(crate) struct FtpConn {
    reader: pingpong::Reader,
    sender: pingpong::Sender,
    /// When the command being answered went out (the response timeout counts from here).
    sent_at: Option<Instant>,
    /// The directory PWD named after login (curl's `entrypath`).
    entry_path: Option<String>,
    /// The directory the last transfer left the connection in, relative to the entry path
    /// (curl's `prevpath`); None when unknown (a CWD failed, or none was made yet).
    prev_path: Option<Vec<u8>>,
    /// The transfer type last set with TYPE (`b'A'` or `b'I'`).
    transfer_type: Option<u8>,
    /// USER (and PASS) were accepted.
    logged_in: bool,
    /// The last line of the latest response (the one the state machine reads).
    last: Vec<u8>,
}

/// What the transfer is waiting for on the control connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Greeting,
    User,
    Pass,
    Pwd,
    /// Logged in; protocol connect is done.
    LoggedIn,
    /// CWD to the entry path (index None) or to `dirs[i]`.
    Cwd(Option<usize>),
    Epsv,
    Pasv,
    /// The data connection is being made.
    DataConnect,
    Type,
    Size,
    Retr,
    /// The file comes over the data connection.
    Transfer,
    /// The data connection ended: the final reply (226) is awaited.
    Final,
}

/// The data connection.
enum Data {
    Connecting(Box<HappyEyeballs>),
    Open(TcpStream, u64),
}

/// One FTP transfer (curl's `struct FTP` and the transfer parts of `ftp_conn`).
pub(super) struct FtpXfer {
    step: Step,
    /// The URL's path cut into directories and the file (curl's multicwd method).
    path: ftp::FtpPath,
    /// A directory listing: no file name in the URL, or `;type=D`.
    listing: bool,
    /// `b'I'` (binary, the default) or `b'A'` (`;type=A`, `--use-ascii`, listings).
    want_type: u8,
    data: Option<Data>,
    /// The size from SIZE or the 150 reply, when the server told.
    size: Option<u64>,
    /// Bytes that came over the data connection.
    got: u64,
    /// EPSV was refused: PASV is used.
    epsv_failed: bool,
    /// A CWD was refused: the connection's directory is not known.
    cwd_failed: bool,
}

impl crate::conn::ConnProto for FtpConn {
    /// curl's `ftp_disconnect`: QUIT, once the login went through.
    fn goodbye(&self) -> Option<&'static [u8]> {
        self.logged_in.then_some(&b"QUIT\r\n"[..])
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

fn conn_meta(conn: &mut Conn) -> &mut FtpConn {
    if conn.proto_ref::<FtpConn>().is_none() {
        conn.proto = Some(Box::<FtpConn>::default());
    }
    conn.proto_mut::<FtpConn>().expect("FTP connection state")
}

impl Handler for FtpHandler {
    /// curl's `ftp_setup_connection` and `ftp_parse_url_path` (multicwd): the directories
    /// and the file of the URL's path; `;type=` picks the transfer type.
    fn setup(&self, t: &mut Transfer, _cx: &mut Cx<'_>, url: &Url) -> Result<()> {
        t.find_credentials(url)?;
        let path = ftp::parse_url_path(url.path(), METHOD, false)?;
        let listing = path.file.is_none() || path.typecode == Some(ftp::TypeCode::List);
        let ascii = match path.typecode {
            Some(ftp::TypeCode::Ascii) => true,
            Some(ftp::TypeCode::Binary) => false,
            _ => t.opts.use_ascii,
        };
        t.ftp = Some(Box::new(FtpXfer {
            step: Step::Greeting,
            path,
            listing,
            want_type: if ascii || listing { b'A' } else { b'I' },
            data: None,
            size: None,
            got: 0,
            epsv_failed: false,
            cwd_failed: false,
        }));
        Ok(())
    }

    /// curl's `ftp_connect` and the login states: the greeting, USER, PASS, PWD.
    fn connect(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        // Only a new connection comes here. The greeting's response time counts from the
        // connect.
        let m = conn_meta(t.conn.as_mut().expect("conn"));
        if t.ftp.as_ref().is_some_and(|x| x.step == Step::Greeting) && m.sent_at.is_none() {
            m.sent_at = Some(cx.now);
        }
        loop {
            if t.ftp_step() == Step::LoggedIn {
                return Ok(true);
            }
            let Some(code) = t.ftp_response(cx)? else {
                return Ok(false);
            };
            t.ftp_connect_reply(code)?;
        }
    }

    /// curl's `ftp_do`: CWD, then the data connection, TYPE, SIZE, RETR.
    fn do_it(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        // A reused connection skipped protocol connect: it is logged in.
        if matches!(t.ftp_step(), Step::LoggedIn | Step::Greeting) {
            // curl updates the progress after every step with a connection.
            t.progress(cx.now);
            t.ftp_start_cwd()?;
        }
        loop {
            match t.ftp_step() {
                Step::Transfer => return Ok(true),
                Step::DataConnect => {
                    if !t.ftp_data_connect(cx)? {
                        return Ok(false);
                    }
                    continue;
                }
                _ => {}
            }
            let Some(code) = t.ftp_response(cx)? else {
                return Ok(false);
            };
            t.ftp_do_reply(cx, code)?;
        }
    }

    fn perform(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        t.ftp_perform(cx)
    }

    fn interests<'a>(&self, t: &'a Transfer) -> [Option<Interest<'a>>; 2] {
        let mut out = [None, None];
        let (Some(c), Some(x)) = (&t.conn, &t.ftp) else {
            return out;
        };
        let pending = c
            .proto_ref::<FtpConn>()
            .is_some_and(|f| f.sender.is_pending());
        let control = Interest {
            fd: c.stream.fd(),
            id: c.sock_id,
            read: !pending,
            write: pending || c.wants_write(),
            shared: false,
        };
        match &x.data {
            Some(Data::Connecting(he)) => {
                out[0] = Some(control);
                if let Some((fd, id)) = he.pending_fds().next() {
                    out[1] = Some(Interest {
                        fd,
                        id,
                        read: false,
                        write: true,
                        shared: false,
                    });
                }
            }
            Some(Data::Open(s, id)) if x.step == Step::Transfer => {
                out[0] = Some(Interest {
                    fd: std::os::fd::AsFd::as_fd(s),
                    id: *id,
                    read: t.paused() & pause::RECV == 0,
                    write: false,
                    shared: false,
                });
            }
            _ => out[0] = Some(control),
        }
        out
    }

    fn moving(&self, t: &Transfer) -> bool {
        t.ftp.as_ref().is_some_and(|x| x.step == Step::Transfer)
    }

    /// curl's multi_done: a failure while doing ends the connection the regular way; one
    /// in protocol connect or in the middle of the transfer is premature.
    fn closing(&self, t: &Transfer, _code: Code) -> Option<&'static str> {
        t.conn.as_ref()?;
        Some(if matches!(t.state, State::Do) {
            "shutting down"
        } else {
            "closing"
        })
    }

    /// curl's `ftp_done` with an error: after the errors that leave the control connection
    /// in step (a file or directory refused, a reply about the data connection) it is kept
    /// for the next transfer, remembering its directory; after any other, or in the middle
    /// of a transfer, it is not trusted again and ends without QUIT.
    fn failed(
        &self,
        t: &mut Transfer,
        cx: &mut Cx<'_>,
        code: Code,
        premature: bool,
    ) -> Option<String> {
        let alive = matches!(
            code,
            Code::BadDownloadResume
                | Code::FtpWeirdPasvReply
                | Code::FtpPortFailed
                | Code::FtpAcceptFailed
                | Code::FtpAcceptTimeout
                | Code::FtpCouldntSetType
                | Code::FtpCouldntRetrFile
                | Code::PartialFile
                | Code::UploadFailed
                | Code::RemoteAccessDenied
                | Code::FilesizeExceeded
                | Code::RemoteFileNotFound
                | Code::WriteError
        );
        let x = t.ftp.take()?;
        let conn = t.conn.as_mut()?;
        if !alive || premature || t.opts.forbid_reuse || x.step == Step::Final {
            // curl's ctl_valid goes false: no QUIT on this connection.
            conn_meta(conn).logged_in = false;
            return None;
        }
        let mut notes = String::new();
        let m = conn_meta(conn);
        m.sent_at = None;
        if !x.cwd_failed {
            if let Some(dir) = x.path.remembered_dir(METHOD) {
                notes.push_str(&format!(
                    "Remembering we are in dir \"{}\"\n",
                    String::from_utf8_lossy(dir)
                ));
                m.prev_path = Some(dir.to_vec());
            }
        }
        let c = t.conn.take()?;
        let _ = cx.poller.delete(c.stream.fd());
        t.info.last_socket = Some(std::os::fd::AsRawFd::as_raw_fd(&c.stream.fd()));
        notes.push_str(&t.left_intact(c.id, &c.host));
        t.touch_pool();
        drop(cx.pool.put(c, cx.now));
        Some(notes)
    }
}

impl Transfer {
    fn ftp_step(&self) -> Step {
        self.ftp.as_ref().map_or(Step::Greeting, |x| x.step)
    }

    fn ftp_set(&mut self, s: Step) {
        if let Some(x) = self.ftp.as_mut() {
            x.step = s;
        }
    }

    /// Queue a command on the control connection and try to send it; `shown` is what the
    /// trace shows of it (curl shows every command as it goes, PASS too).
    fn ftp_send(&mut self, cmd: &str, arg: Option<&str>) -> Result<()> {
        self.ftp_send_bytes(cmd, arg.map(str::as_bytes))
    }

    fn ftp_send_bytes(&mut self, cmd: &str, arg: Option<&[u8]>) -> Result<()> {
        let conn = self.conn.as_mut().expect("conn");
        let m = conn_meta(conn);
        m.sender.send(cmd, arg)?;
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::HeaderOut, m.sender.output(), &self.info);
        }
        self.ftp_flush()
    }

    /// Send what is left of the command; the response timer starts once it all went.
    fn ftp_flush(&mut self) -> Result<()> {
        let conn = self.conn.as_mut().expect("conn");
        let mut meta = conn.proto.take();
        let m = meta
            .as_mut()
            .and_then(|p| p.as_any_mut().downcast_mut::<FtpConn>())
            .expect("FTP connection state");
        let mut r = Ok(());
        while m.sender.is_pending() {
            match conn.send(m.sender.output()) {
                Ok(n) => {
                    if m.sender.sent(n) {
                        m.sent_at = Some(Instant::now());
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => {
                    r = Err(send_error(&e));
                    break;
                }
            }
        }
        if r.is_ok() && !m.sender.is_pending() {
            if let Err(e) = conn.flush() {
                if e.kind() != io::ErrorKind::WouldBlock {
                    r = Err(send_error(&e));
                }
            }
        }
        conn.proto = meta;
        r
    }

    /// The code of the next whole response on the control connection, each of its lines
    /// traced and handed to the header callback; None while it is not all in.
    fn ftp_response(&mut self, cx: &mut Cx<'_>) -> Result<Option<u32>> {
        self.ftp_flush()?;
        if conn_meta(self.conn.as_mut().expect("conn"))
            .sender
            .is_pending()
        {
            return Ok(None);
        }
        self.ftp_response_timeout(cx.now)?;
        loop {
            let conn = self.conn.as_mut().expect("conn");
            let mut meta = conn.proto.take().expect("FTP connection state");
            let m = meta
                .as_any_mut()
                .downcast_mut::<FtpConn>()
                .expect("FTP connection state");
            let ev = match m.reader.next(&mut pingpong::Ftp) {
                Ok(Some(Event::Line(l))) => Some((l.to_vec(), None)),
                Ok(Some(Event::End { line, code, .. })) => Some((line.to_vec(), Some(code))),
                Ok(None) => None,
                Err(e) => {
                    conn.proto = Some(meta);
                    return Err(e);
                }
            };
            if let Some((line, code)) = ev {
                if code.is_some() {
                    m.sent_at = None;
                    m.last.clear();
                    m.last.extend_from_slice(&line);
                }
                conn.proto = Some(meta);
                self.ftp_show_line(&line)?;
                if let Some(code) = code {
                    if code == 421 {
                        // curl's ftp_readresp: a 421 at any point ends the session.
                        self.verbose("We got a 421 - timeout");
                        return Err(Error::code(Code::OperationTimedout));
                    }
                    return Ok(Some(code));
                }
                continue;
            }
            // More bytes are needed.
            let mut buf = cx.bufs.get(self.opts.buffer_size.clamp(1024, 64 * 1024));
            let r = conn.recv(&mut buf);
            let r = match r {
                // curl's Curl_pp_readresp names the errno left from before: no read
                // failed, the peer closed.
                Ok(0) => Err(Error::new(
                    Code::RecvError,
                    format!(
                        "response reading failed (errno: {})",
                        io::Error::last_os_error().raw_os_error().unwrap_or(0)
                    ),
                )),
                Ok(n) => {
                    let mut at = 0;
                    while at < n {
                        let took = m.reader.feed(&buf[at..n]);
                        if took == 0 {
                            break;
                        }
                        at += took;
                    }
                    Ok(true)
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(true),
                Err(e) => Err(Error::new(Code::RecvError, format!("Recv failure: {e}"))),
            };
            cx.bufs.put(buf);
            conn.proto = Some(meta);
            if !r? {
                return Ok(None);
            }
        }
    }

    /// curl's `Curl_pp_state_timeout`: a response slower than
    /// `CURLOPT_SERVER_RESPONSE_TIMEOUT` (120 s by default) fails the transfer.
    fn ftp_response_timeout(&mut self, now: Instant) -> Result<()> {
        let sent_at = conn_meta(self.conn.as_mut().expect("conn")).sent_at;
        let Some(sent_at) = sent_at else {
            return Ok(());
        };
        let overall = self.opts.timeout.map(|d| (self.started, d));
        let left = pingpong::time_left(now, sent_at, None, overall, false);
        if left.is_zero() {
            return Err(Error::new(Code::OperationTimedout, "FTP response timeout"));
        }
        self.timers.set(TimerId::Protocol, now + left);
        Ok(())
    }

    /// A response line: traced as header data and handed to the header callback, as curl's
    /// pingpong does.
    fn ftp_show_line(&mut self, line: &[u8]) -> Result<()> {
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::HeaderIn, line, &self.info);
        }
        self.emit(Out::Header, line)
    }

    fn ftp_last(&mut self) -> String {
        let m = conn_meta(self.conn.as_mut().expect("conn"));
        String::from_utf8_lossy(&m.last).into_owned()
    }

    fn ftp_creds(&self) -> (String, String) {
        match &self.creds {
            Some((u, p)) => (u.clone(), p.clone()),
            None => (DEFAULT_USER.to_string(), DEFAULT_PASSWORD.to_string()),
        }
    }

    /// A response during login (curl's `ftp_pp_statemachine` for `FTP_WAIT220`, `FTP_USER`,
    /// `FTP_PASS`, `FTP_PWD`).
    fn ftp_connect_reply(&mut self, code: u32) -> Result<()> {
        match self.ftp_step() {
            Step::Greeting => {
                if code == 230 {
                    return self.ftp_logged_in();
                }
                if code != 220 {
                    return Err(Error::new(
                        Code::WeirdServerReply,
                        format!("Got a {code:03} ftp-server response when 220 was expected"),
                    ));
                }
                let (user, _) = self.ftp_creds();
                self.ftp_set(Step::User);
                self.ftp_send("USER", Some(&user))
            }
            Step::User | Step::Pass => {
                if code == 331 && self.ftp_step() == Step::User {
                    let (_, pass) = self.ftp_creds();
                    self.ftp_set(Step::Pass);
                    return self.ftp_send("PASS", Some(&pass));
                }
                if code / 100 == 2 {
                    return self.ftp_logged_in();
                }
                if code == 332 {
                    return Err(Error::new(
                        Code::LoginDenied,
                        "ACCT requested but none available",
                    ));
                }
                Err(Error::new(
                    Code::LoginDenied,
                    format!("Access denied: {code:03}"),
                ))
            }
            Step::Pwd => {
                if code == 257 {
                    let line = self.ftp_last();
                    if let Some(dir) = ftp::pwd_reply(line.as_bytes())? {
                        let dir = String::from_utf8_lossy(&dir).into_owned();
                        self.verbose(&format!("Entry path is '{dir}'"));
                        conn_meta(self.conn.as_mut().expect("conn")).entry_path = Some(dir);
                    } else {
                        self.verbose("Failed to figure out path");
                    }
                }
                self.ftp_set(Step::LoggedIn);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn ftp_logged_in(&mut self) -> Result<()> {
        conn_meta(self.conn.as_mut().expect("conn")).logged_in = true;
        self.ftp_set(Step::Pwd);
        self.ftp_send("PWD", None)
    }

    /// curl's `ftp_state_cwd`: on a reused connection, back to the entry path first (unless
    /// the first directory is absolute); the same path as the transfer before needs none.
    fn ftp_start_cwd(&mut self) -> Result<()> {
        let reused = self.conn_reused;
        let (prev, entry) = {
            let m = conn_meta(self.conn.as_mut().expect("conn"));
            // A new connection is in the entry directory.
            let prev = if reused {
                m.prev_path.clone()
            } else {
                Some(Vec::new())
            };
            (prev, m.entry_path.clone())
        };
        let x = self.ftp.as_ref().expect("ftp");
        if x.path.cwd_done(METHOD, prev.as_deref()) {
            self.verbose("Request has same path as previous transfer");
            return self.ftp_start_data();
        }
        conn_meta(self.conn.as_mut().expect("conn")).prev_path = None;
        let absolute = x
            .path
            .dirs
            .first()
            .is_some_and(|d| d.first() == Some(&b'/'));
        if reused && !absolute {
            if let Some(e) = entry {
                self.ftp_set(Step::Cwd(None));
                return self.ftp_send_bytes("CWD", Some(e.as_bytes()));
            }
        }
        self.ftp_next_cwd(0)
    }

    fn ftp_next_cwd(&mut self, i: usize) -> Result<()> {
        let dir = self.ftp.as_ref().expect("ftp").path.dirs.get(i).cloned();
        match dir {
            Some(d) => {
                self.ftp_set(Step::Cwd(Some(i)));
                self.ftp_send_bytes("CWD", Some(&d))
            }
            None => self.ftp_start_data(),
        }
    }

    /// curl's `ftp_state_use_pasv`: EPSV, or PASV once EPSV failed or is disabled.
    fn ftp_start_data(&mut self) -> Result<()> {
        let epsv = self.opts.ftp_use_epsv && !self.ftp.as_ref().expect("ftp").epsv_failed;
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

    /// A response in the do phase.
    fn ftp_do_reply(&mut self, cx: &mut Cx<'_>, code: u32) -> Result<()> {
        match self.ftp_step() {
            Step::Cwd(i) => {
                if code / 100 != 2 {
                    self.ftp.as_mut().expect("ftp").cwd_failed = true;
                    return Err(Error::new(
                        Code::RemoteAccessDenied,
                        "Server denied you to change to the given directory",
                    ));
                }
                self.ftp_next_cwd(i.map_or(0, |i| i + 1))
            }
            Step::Epsv | Step::Pasv => self.ftp_pasv_reply(cx, code),
            Step::Type => {
                if code / 100 != 2 {
                    return Err(Error::new(
                        Code::FtpCouldntSetType,
                        "Couldn't set desired mode",
                    ));
                }
                if code != 200 {
                    self.verbose(&format!(
                        "Got a {code:03} response code instead of the assumed 200"
                    ));
                }
                let want = self.ftp.as_ref().expect("ftp").want_type;
                conn_meta(self.conn.as_mut().expect("conn")).transfer_type = Some(want);
                self.ftp_size()
            }
            Step::Size => {
                if code == 550 {
                    return Err(Error::new(
                        Code::RemoteFileNotFound,
                        "The file does not exist",
                    ));
                }
                if code == 213 {
                    let line = self.ftp_last();
                    if let Some(n) = ftp::size_reply(line.as_bytes()) {
                        self.ftp.as_mut().expect("ftp").size = u64::try_from(n).ok();
                    }
                }
                self.ftp_retr()
            }
            Step::Retr => self.ftp_retr_reply(code),
            _ => Ok(()),
        }
    }

    /// curl's `ftp_state_pasv_resp`: where the data connection goes.
    fn ftp_pasv_reply(&mut self, cx: &mut Cx<'_>, code: u32) -> Result<()> {
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
            (Step::Epsv, _) => {
                // curl's ftp_epsv_disable.
                self.verbose("Failed EPSV attempt. Disabling EPSV");
                self.ftp.as_mut().expect("ftp").epsv_failed = true;
                self.ftp_set(Step::Pasv);
                self.ftp_send("PASV", None)?;
                return Ok(());
            }
            _ => {
                return Err(Error::new(
                    Code::FtpWeirdPasvReply,
                    format!("Bad PASV/EPSV response: {code:03}"),
                ))
            }
        };
        let addr = SocketAddr::new(ip, port);
        let host = ip.to_string();
        self.verbose(&format!("Connecting to {host} ({host}) port {port}"));
        let he = HappyEyeballs::new(&[addr], cx.now, &self.opts.socket());
        self.ftp.as_mut().expect("ftp").data = Some(Data::Connecting(Box::new(he)));
        self.ftp_set(Step::DataConnect);
        Ok(())
    }

    /// Drive the data connection's connect; true once it is up (then TYPE or SIZE).
    fn ftp_data_connect(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let x = self.ftp.as_mut().expect("ftp");
        let Some(Data::Connecting(he)) = x.data.as_mut() else {
            return Ok(true);
        };
        let opts = self.opts.socket();
        let r = super::connecting::eyeballs_pass(
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
            ConnectPoll::Connected(s, addr) => {
                self.timers.clear(TimerId::HappyEyeballs);
                self.verbose(&format!(
                    "Connected 2nd connection to {} port {}",
                    addr.ip(),
                    addr.port()
                ));
                let x = self.ftp.as_mut().expect("ftp");
                x.data = Some(Data::Open(s, connect::next_sock_id()));
                let want = x.want_type;
                let have = conn_meta(self.conn.as_mut().expect("conn")).transfer_type;
                if have != Some(want) {
                    self.ftp_set(Step::Type);
                    let t = if want == b'A' { "A" } else { "I" };
                    self.ftp_send("TYPE", Some(t))?;
                } else {
                    self.ftp_size()?;
                }
                Ok(true)
            }
            // The attempt noted why; curl's failure names the connection's host and port,
            // not the data address.
            ConnectPoll::Failed(_) => {
                self.ftp.as_mut().expect("ftp").data = None;
                let c = self.conn.as_ref().expect("conn");
                let host = c.host.trim_start_matches('[').trim_end_matches(']');
                Err(connect_failed(host, c.port, self.elapsed_ms(cx.now)))
            }
        }
    }

    /// SIZE before a download (a listing goes straight to LIST).
    fn ftp_size(&mut self) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        // curl asks no SIZE for a listing, an ASCII transfer (the size would not match)
        // or with --ignore-content-length.
        let skip = x.listing || x.want_type == b'A' || self.opts.ignore_content_length;
        let Some(file) = x.path.file.clone().filter(|_| !skip) else {
            return self.ftp_retr();
        };
        self.ftp_set(Step::Size);
        self.ftp_send_bytes("SIZE", Some(&file))
    }

    /// RETR, or the listing command (curl's `ftp_state_list`).
    fn ftp_retr(&mut self) -> Result<()> {
        self.ftp_set(Step::Retr);
        let x = self.ftp.as_ref().expect("ftp");
        if x.listing {
            let custom = self.opts.custom_request.clone();
            let cmd = x
                .path
                .list_command(METHOD, custom.as_deref().map(str::as_bytes), false);
            let cmd = String::from_utf8_lossy(&cmd).into_owned();
            return self.ftp_send(&cmd, None);
        }
        let file = x.path.file.clone().unwrap_or_default();
        self.ftp_send_bytes("RETR", Some(&file))
    }

    /// curl's `ftp_state_get_resp` for RETR.
    fn ftp_retr_reply(&mut self, code: u32) -> Result<()> {
        if code == 150 || code == 125 {
            let line = self.ftp_last();
            let x = self.ftp.as_mut().expect("ftp");
            if x.size.is_none() {
                x.size = ftp::retr_size(line.as_bytes()).and_then(|n| u64::try_from(n).ok());
            }
            let size = x.size;
            self.verbose("Maxdownload = -1");
            if let Some(n) = size {
                self.verbose(&format!("Getting file with size: {n}"));
                self.resp.content_length = Some(n);
                self.info.content_length_download = Some(n);
            }
            self.info.time_pretransfer = self.started.elapsed();
            self.ftp_set(Step::Transfer);
            return Ok(());
        }
        if code == 550 {
            return Err(Error::new(
                Code::RemoteFileNotFound,
                format!("RETR response: {code:03}"),
            ));
        }
        Err(Error::new(
            Code::FtpCouldntRetrFile,
            format!("RETR response: {code:03}"),
        ))
    }

    /// Read the data connection into the write callback; at its end, the final reply.
    fn ftp_perform(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if self.ftp_step() == Step::Final {
            return self.ftp_final(cx);
        }
        if self.recv_held() && !self.flush_held()? {
            return Ok(false);
        }
        let mut buf = cx.bufs.get(self.opts.buffer_size.max(1024));
        let r = loop {
            let x = self.ftp.as_mut().expect("ftp");
            let Some(Data::Open(s, _)) = x.data.as_mut() else {
                break Ok(0);
            };
            match io::Read::read(s, &mut buf) {
                Ok(0) => break Ok(0),
                Ok(n) => break Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let r = match r {
            Ok(0) => Ok(None),
            Ok(n) => self.ftp_body(&buf[..n]).map(|_| Some(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                cx.bufs.put(buf);
                return Ok(false);
            }
            Err(e) => Err(Error::new(Code::RecvError, format!("Recv failure: {e}"))),
        };
        cx.bufs.put(buf);
        match r? {
            Some(_) => Ok(true),
            None => {
                // The data connection ended: the end of the body goes out (curl's
                // end-of-stream write, traced as no data), then curl's ftp_done.
                self.verbose("abort upload");
                if self.opts.verbose {
                    self.callbacks.debug_live(InfoType::DataIn, &[], &self.info);
                }
                let x = self.ftp.as_mut().expect("ftp");
                x.data = None;
                if let Some(size) = x.size.filter(|&s| s > x.got) {
                    let left = size - x.got;
                    return Err(Error::new(
                        Code::PartialFile,
                        format!("transfer closed with {left} bytes remaining to read"),
                    ));
                }
                let key = self
                    .ftp
                    .as_ref()
                    .expect("ftp")
                    .path
                    .remembered_dir(METHOD)
                    .map(<[u8]>::to_vec);
                if let Some(key) = key {
                    let shown = String::from_utf8_lossy(&key).into_owned();
                    self.verbose(&format!("Remembering we are in dir \"{shown}\""));
                    conn_meta(self.conn.as_mut().expect("conn")).prev_path = Some(key);
                }
                conn_meta(self.conn.as_mut().expect("conn")).sent_at = Some(cx.now);
                self.ftp_set(Step::Final);
                self.ftp_final(cx)
            }
        }
    }

    /// Body bytes from the data connection: traced, cut at `--max-filesize`, written,
    /// counted.
    fn ftp_body(&mut self, data: &[u8]) -> Result<()> {
        if self.info.time_starttransfer.is_zero() {
            self.info.time_starttransfer = self.started.elapsed();
        }
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::DataIn, data, &self.info);
        }
        for piece in data.chunks(MAX_WRITE_SIZE) {
            self.emit(Out::Body, piece)?;
        }
        self.info.size_download += data.len() as u64;
        self.ftp.as_mut().expect("ftp").got += data.len() as u64;
        Ok(())
    }

    /// curl's `ftp_done`: the 226 after the data, the size check, the connection kept.
    fn ftp_final(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let Some(code) = self.ftp_response(cx)? else {
            return Ok(false);
        };
        if code != 226 && code != 250 {
            return Err(Error::new(
                Code::PartialFile,
                format!("server did not report OK, got {code}"),
            ));
        }
        let x = self.ftp.as_ref().expect("ftp");
        if let Some(size) = x.size {
            if x.got != size {
                return Err(Error::new(
                    Code::PartialFile,
                    format!("Received only partial file: {} bytes", x.got),
                ));
            }
        }
        self.timers.clear(TimerId::Protocol);
        self.ftp = None;
        // curl's multi_done updates the progress before the connection is kept.
        self.progress(cx.now);
        self.release_conn(cx, !self.opts.forbid_reuse);
        self.finish(cx, Ok(()));
        Ok(false)
    }
}
