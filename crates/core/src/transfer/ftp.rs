//! The FTP handler (curl's `lib/ftp.c`): login and the entry path in protocol connect; in
//! do, the quote commands, the working directory, then the data connection and the commands
//! of the transfer; in perform, the file over the data connection and the final reply.
//!
//! The control connection is the transfer's connection and carries the protocol's state
//! between transfers (`FtpConn`: the entry path, the directory it is in, the transfer type
//! set, the response reader): a reused connection logs in once. The data connection belongs
//! to the transfer (`FtpXfer`) and is the transfer's second socket. Commands and replies go
//! through `proto::pingpong`; the reply texts are read by `proto::ftp`.
//!
//! This file holds the control connection, the login, the quote lists and the directory
//! changes; `ftp/steps.rs` the commands between the directory and the data (MDTM, TYPE,
//! SIZE, REST, RETR, LIST, STOR, APPE); `ftp/data.rs` the data connection and the end of a
//! transfer. Design note: `docs/internals/FTP.md`.

use super::handler::Handler;
use super::*;
use crate::options::{FtpAuth, FtpCcc, UseSsl};
use crate::proto::ftp;
use crate::proto::pingpong::{self, Event};

mod data;
mod ftps;
mod port;
mod proxy;
mod sock;
mod steps;
pub(super) mod wildcard;

use sock::DataSock;

use port::PortCmd;

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
    /// The transfer type last asked for with TYPE (`b'A'` or `b'I'`; curl's
    /// `transfertype`, set when TYPE is sent).
    transfer_type: Option<u8>,
    /// USER (and PASS) were accepted.
    logged_in: bool,
    /// SYST's system name, once asked (curl's `server_os`).
    server_os: Option<String>,
    /// EPSV or EPRT failed on this connection: PASV or PORT from now on (curl's
    /// `ftp_use_epsv` and `ftp_use_eprt` connection bits).
    epsv_failed: bool,
    eprt_failed: bool,
    /// Where the last data connection went (curl's `conn->secondary`).
    data_peer: Option<SocketAddr>,
    /// PROT P was accepted: data connections are TLS too (curl's `ftp_use_data_ssl`).
    data_tls: bool,
    /// The last line of the latest response (the one the state machine reads).
    last: Vec<u8>,
}

/// Which quote list is being sent (curl's `FTP_QUOTE`, `FTP_*_PREQUOTE`, `FTP_POSTQUOTE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// `CURLOPT_QUOTE`, before the CWDs.
    Before,
    /// `CURLOPT_PREQUOTE`, after TYPE.
    Pre,
    /// `CURLOPT_POSTQUOTE`, after the transfer.
    Post,
}

/// What TYPE is sent for (curl's `FTP_TYPE`, `FTP_LIST_TYPE`, `FTP_RETR_TYPE`,
/// `FTP_STOR_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypeFor {
    Info,
    List,
    Retr,
    Stor,
}

/// What the transfer is waiting for on the control connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Greeting,
    /// The reply to AUTH SSL or AUTH TLS.
    Auth,
    /// The TLS handshake on the control connection after AUTH.
    AuthTls,
    User,
    Pass,
    Acct,
    Pbsz,
    Prot,
    Ccc,
    /// TLS on the control connection is being ended after CCC.
    CccShutdown,
    Pwd,
    Syst,
    NameFmt,
    /// Logged in; protocol connect is done.
    LoggedIn,
    /// The reply to the quote command at this index of the list.
    Quote(Quote, usize),
    /// CWD to the entry path (index None) or to `dirs[i]`.
    Cwd(Option<usize>),
    /// MKD of `dirs[i]` after its CWD failed.
    Mkd(usize),
    Mdtm,
    Type(TypeFor),
    /// SIZE for `-I`, before a download, before a resumed upload.
    InfoSize,
    Size,
    StorSize,
    /// REST 0 for `-I`, REST before a resumed download.
    InfoRest,
    Rest,
    Pret,
    Epsv,
    Pasv,
    /// The data connection is being made.
    DataConnect,
    /// Active mode's socket is to be made, then announced with this command.
    PortStart(PortCmd),
    /// The reply to EPRT or PORT.
    Port(PortCmd),
    /// Active mode: the server's data connection is awaited.
    Accept,
    /// RETR or the listing command.
    Retr,
    Stor,
    /// The file goes over the data connection.
    Transfer,
    /// The data connection ended: the final reply (226) is awaited.
    Final,
    /// The do phase ended without a transfer: the end of the transfer is next.
    Stop,
    /// All is done: the connection goes back.
    Done,
}

/// Whether the transfer moves a file (curl's `PPTRANSFER_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Body,
    /// `-I`: the size and time only.
    Info,
    /// Nothing to move (a time condition, a file already complete).
    None,
}

/// The data connection.
enum Data {
    Connecting(Box<HappyEyeballs>),
    /// Active mode's socket, listening for the server.
    Listening(port::ListenSock, u64),
    Open(DataSock, u64),
}

/// One FTP transfer (curl's `struct FTP` and the transfer parts of `ftp_conn`).
pub(super) struct FtpXfer {
    step: Step,
    /// How the path becomes CWDs (`--ftp-method`).
    method: ftp::FileMethod,
    /// The URL's path cut into directories and the file.
    path: ftp::FtpPath,
    /// A directory listing: no file name in the URL, `-l`, or `;type=D`.
    listing: bool,
    /// NLST rather than LIST.
    list_only: bool,
    /// `b'I'` (binary, the default) or `b'A'` (`;type=A`, `--use-ascii`).
    want_type: u8,
    mode: Mode,
    /// A STOR or APPE (`CURLOPT_UPLOAD`), with the size of the source when known.
    upload: bool,
    in_size: Option<u64>,
    /// APPE rather than STOR.
    append: bool,
    data: Option<Data>,
    /// The size from SIZE (curl's `downloadsize`, -1 unknown).
    download_size: Option<u64>,
    /// What the data connection is expected to carry (curl's `req.size`).
    size: Option<u64>,
    /// Where the download starts (curl's `state.resume_from`: below 0 counts from the end).
    resume_from: i64,
    /// The upload's start is not known: SIZE asks the server.
    resume_unknown: bool,
    /// `-r`'s length (curl's `req.maxdownload`).
    max_download: Option<u64>,
    /// The final reply is not checked: the download stops early (curl's `dont_check`).
    dont_check: bool,
    /// Body bytes handed on (curl's `req.bytecount`).
    got: u64,
    /// Upload bytes sent (curl's `req.writebytecount`) and read from the source.
    sent: u64,
    src_read: u64,
    /// An ASCII download's CR waits for the byte after it.
    cr_pending: bool,
    /// The upload staging buffer and what of it is still to send; what the source gave
    /// before the LF-to-CRLF conversion.
    up: Vec<u8>,
    up_in: Vec<u8>,
    up_pos: usize,
    up_len: usize,
    up_eof: bool,
    /// The LF-to-CRLF conversion of an upload saw a CR last.
    up_prev_cr: bool,
    /// Active mode: when waiting for the server's connection ends.
    accept_by: Option<Instant>,
    /// The data connection being made is EPSV's (a failure tries PASV).
    via_epsv: bool,
    /// A CWD was refused: the connection's directory is not known.
    cwd_failed: bool,
    /// The CWD being retried after MKD (curl's `count2`) and the MKD allowed to fail once
    /// (`count3`).
    mkd_done: bool,
    mkd_may_fail: bool,
    /// The quote command being answered may fail (it started with `*`).
    quote_may_fail: bool,
    /// USER was already retried with `--ftp-alternative-to-user`.
    alt_user_sent: bool,
    /// The data connection goes through the proxy to this port (then `hop`, the handshake).
    hop_port: Option<u16>,
    hop: Option<proxy::Hop>,
    /// Active mode with PROT P: the TLS configuration for the connection to accept.
    tls_config: Option<crate::tls::Config>,
    /// The AUTH method still to try when the first is refused (curl's `count1..3`).
    auth_next: Option<&'static str>,
    /// The path needs no CWD (curl's `cwddone`, found when the do phase starts).
    cwd_done: bool,
    /// `ftp_done` runs: a failure now leaves the control connection in step.
    in_done: bool,
    /// The URL's path was refused; the do phase fails with it.
    path_error: Option<Error>,
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
    /// curl's `ftp_setup_connection` and `ftp_parse_url_path`: the directories and the
    /// file of the URL's path for the file method; `;type=` picks the transfer type.
    fn setup(&self, t: &mut Transfer, _cx: &mut Cx<'_>, url: &Url) -> Result<()> {
        t.find_credentials(url)?;
        // A wildcard download lists the directory first (curl's `init_wc_data`).
        let listed = t.wildcard_setup(url);
        let url = listed.as_ref().unwrap_or(url);
        // curl decodes the URL's user and password refusing control bytes for protocols
        // that cannot send them (PROTOPT_USERPWDCTRL is HTTP's).
        let ctrl = |v: &Option<String>| v.as_ref().is_some_and(|s| s.bytes().any(|b| b < 0x20));
        if ctrl(&t.url_user) || ctrl(&t.url_password) {
            return Err(Error::code(Code::UrlMalformat));
        }
        // curl's Curl_auth_allowed_to_host: -u's credentials go to the first host only
        // (a redirect elsewhere logs in anonymously) unless --location-trusted.
        if t.opts.userpwd.is_some() && !t.opts.unrestricted_auth && !t.on_first_origin(url) {
            t.creds = None;
        }
        let method = match t.opts.ftp().method {
            // curl's wildcards do not do without CWD.
            ftp::FileMethod::NoCwd if t.wildcard.is_some() => ftp::FileMethod::MultiCwd,
            m => m,
        };
        let (upload, in_size) = match t.opts.body {
            Body::Upload(n) => (true, n),
            _ => (false, None),
        };
        // curl reads the path in its do phase, after the login: a path it refuses fails
        // there.
        let (path, path_error) = match ftp::parse_url_path(url.path(), method, upload) {
            Ok(p) => (p, None),
            Err(e) => (
                ftp::FtpPath {
                    raw: Vec::new(),
                    dirs: Vec::new(),
                    file: None,
                    typecode: None,
                },
                Some(e),
            ),
        };
        let list_only = t.opts.ftp().list_only || path.typecode == Some(ftp::TypeCode::List);
        let listing = !upload && (path.file.is_none() || list_only);
        let ascii = match path.typecode {
            Some(ftp::TypeCode::Ascii) => true,
            Some(ftp::TypeCode::Binary) => false,
            _ => t.opts.use_ascii,
        };
        let mode = if t.opts.nobody {
            Mode::Info
        } else {
            Mode::Body
        };
        t.ftp = Some(Box::new(FtpXfer {
            step: Step::Greeting,
            method,
            path,
            listing,
            list_only,
            want_type: if ascii { b'A' } else { b'I' },
            mode,
            upload,
            in_size,
            append: t.opts.ftp().append,
            data: None,
            download_size: None,
            size: None,
            resume_from: i64::try_from(t.opts.resume_from).unwrap_or(i64::MAX),
            resume_unknown: t.opts.resume_from_unknown,
            max_download: None,
            dont_check: false,
            got: 0,
            sent: 0,
            src_read: 0,
            cr_pending: false,
            up: Vec::new(),
            up_in: Vec::new(),
            up_pos: 0,
            up_len: 0,
            up_eof: false,
            up_prev_cr: false,
            accept_by: None,
            via_epsv: false,
            cwd_failed: false,
            mkd_done: false,
            mkd_may_fail: false,
            quote_may_fail: false,
            alt_user_sent: false,
            auth_next: None,
            tls_config: None,
            hop_port: None,
            hop: None,
            cwd_done: false,
            in_done: false,
            path_error,
        }));
        Ok(())
    }

    /// curl's `ftp_connect` and the login states: the greeting, USER, PASS, ACCT, PWD.
    fn connect(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        // Only a new connection comes here. The greeting's response time counts from the
        // connect.
        let m = conn_meta(t.conn.as_mut().expect("conn"));
        if t.ftp.as_ref().is_some_and(|x| x.step == Step::Greeting) && m.sent_at.is_none() {
            m.sent_at = Some(cx.now);
        }
        loop {
            match t.ftp_step() {
                Step::LoggedIn => return Ok(true),
                // Both wait for the server within the response timeout, as its replies do.
                Step::AuthTls => {
                    if !t.ftp_control_handshake(cx)? {
                        t.ftp_response_timeout(cx.now)?;
                        return Ok(false);
                    }
                    continue;
                }
                Step::CccShutdown => {
                    if !t.ftp_ccc_shutdown()? {
                        t.ftp_response_timeout(cx.now)?;
                        return Ok(false);
                    }
                    continue;
                }
                _ => {}
            }
            let Some(code) = t.ftp_response(cx)? else {
                return Ok(false);
            };
            t.ftp_connect_reply(code)?;
        }
    }

    /// curl's `ftp_perform` and `ftp_do_more`: the quote commands, CWD, MDTM, then the
    /// data connection and the commands that start the transfer.
    fn do_it(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        // A reused connection skipped protocol connect: it is logged in.
        if matches!(t.ftp_step(), Step::LoggedIn | Step::Greeting) {
            // curl updates the progress after every step with a connection.
            t.progress(cx.now);
            // curl's state_do: the application may stop the transfer before it starts.
            if !t
                .callbacks
                .prereq_live(t.info.primary_ip, t.info.local_addr, &t.info)
            {
                return Err(Error::new(
                    Code::AbortedByCallback,
                    "operation aborted by pre-request callback",
                ));
            }
            if let Some(e) = t.ftp.as_mut().and_then(|x| x.path_error.take()) {
                return Err(e);
            }
            t.ftp_check_cwd_done();
            t.ftp_quote(Quote::Before, 0)?;
        }
        loop {
            match t.ftp_step() {
                Step::Transfer | Step::Stop => return Ok(true),
                Step::PortStart(cmd) => {
                    t.ftp_use_port(cx, cmd)?;
                    continue;
                }
                Step::Accept => {
                    if !t.ftp_accept_wait(cx)? {
                        return Ok(false);
                    }
                    continue;
                }
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
            // The handshake with the proxy on the data connection.
            Some(Data::Open(s, id)) if x.hop.is_some() => {
                let write = x.hop.as_ref().is_some_and(|h| h.wants_write()) || s.wants_write();
                out[0] = Some(Interest {
                    fd: std::os::fd::AsFd::as_fd(s),
                    id: *id,
                    read: !write,
                    write,
                    shared: false,
                });
            }
            // curl's listening socket filter asks for reading from the moment it exists,
            // beside the control connection, so an event loop sees both while the commands
            // before the transfer go (the server may connect before its 150). The control
            // connection comes first, as in curl's pollset.
            Some(Data::Listening(l, id)) => {
                out[0] = Some(control);
                out[1] = Some(Interest {
                    fd: std::os::fd::AsFd::as_fd(l),
                    id: *id,
                    read: true,
                    write: false,
                    shared: false,
                });
            }
            Some(Data::Open(s, id)) if x.step == Step::Transfer => {
                // The TLS handshake first, reading unless it has bytes to write.
                let (read, write) = if s.handshaking {
                    (!s.wants_write(), s.wants_write())
                } else {
                    (
                        !x.upload && t.paused() & pause::RECV == 0,
                        (x.upload && t.paused() & pause::SEND == 0) || s.wants_write(),
                    )
                };
                out[0] = Some(Interest {
                    fd: std::os::fd::AsFd::as_fd(s),
                    id: *id,
                    read,
                    write,
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

    fn timeout_message(&self, t: &Transfer) -> Option<&'static str> {
        (t.ftp_step() == Step::AuthTls).then_some("connect timeout")
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
        // Errors of ftp_done's own (the final reply, the size checks, the post-quote
        // commands) come after a transfer that went well: the connection is in step, unless
        // it failed to talk.
        let in_done = t.ftp.as_ref().is_some_and(|x| x.in_done)
            && !matches!(
                code,
                Code::RecvError | Code::SendError | Code::OperationTimedout
            );
        if alive && !premature {
            // curl's ftp_done sends ABOR after a range even when the transfer failed.
            let x = t.ftp.as_ref()?;
            if x.data.is_some() && x.dont_check && x.max_download.is_some_and(|m| m > 0) {
                let _ = t.ftp_send("ABOR", None);
            }
        }
        let (step, conn) = (t.ftp.as_ref()?.step, t.conn.as_mut());
        let Some(conn) = conn else {
            t.ftp = None;
            return None;
        };
        if in_done {
            t.ftp = None;
            return t.ftp_keep_conn(cx);
        }
        if !alive || premature || t.opts.forbid_reuse || step == Step::Final {
            // curl's ctl_valid goes false: no QUIT on this connection.
            conn_meta(conn).logged_in = false;
            t.ftp = None;
            return None;
        }
        conn_meta(conn).sent_at = None;
        let mut notes = t.ftp_remember_dir().map_or(String::new(), |n| n + "\n");
        t.ftp = None;
        notes.push_str(&t.ftp_keep_conn(cx)?);
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
        match arg {
            Some(arg) => self.ftp_send_line(&[cmd.as_bytes(), b" ", arg]),
            None => self.ftp_send_line(&[cmd.as_bytes()]),
        }
    }

    /// Queue the command made of `parts` and try to send it.
    fn ftp_send_line(&mut self, parts: &[&[u8]]) -> Result<()> {
        // curl's pingpong sends first, then traces the command: TLS records go before it.
        let trace = self.tls_trace_on();
        let conn = self.conn.as_mut().expect("conn");
        let m = conn_meta(conn);
        m.sender.send_parts(parts)?;
        if !trace {
            if self.opts.verbose {
                self.callbacks
                    .debug_live(InfoType::HeaderOut, m.sender.output(), &self.info);
            }
            return self.ftp_flush();
        }
        let line = m.sender.output().to_vec();
        self.tls_trace_start();
        let r = self.ftp_flush();
        self.tls_trace_end();
        self.callbacks
            .debug_live(InfoType::HeaderOut, &line, &self.info);
        r
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
                if let Some(c) = code {
                    // curl's ftp_readresp: CURLINFO_RESPONSE_CODE is the latest reply's.
                    self.info.response_code = c;
                    m.sent_at = None;
                    m.last.clear();
                    m.last.extend_from_slice(&line);
                }
                conn.proto = Some(meta);
                self.ftp_show_line(&line)?;
                if let Some(code) = code {
                    // Waiting for the server's data connection, a 421 is its refusal.
                    if code == 421 && self.ftp_step() != Step::Accept {
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
            conn.proto = Some(meta);
            let trace = self.tls_trace_on();
            if trace {
                self.tls_trace_start();
            }
            let conn = self.conn.as_mut().expect("conn");
            let r = conn.recv(&mut buf);
            if trace {
                self.tls_trace_end();
            }
            let conn = self.conn.as_mut().expect("conn");
            let mut meta = conn.proto.take().expect("FTP connection state");
            let m = meta
                .as_any_mut()
                .downcast_mut::<FtpConn>()
                .expect("FTP connection state");
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
        // curl's ftp_done waits a minute for the reply after the data, with the blocking
        // reader's message.
        let last = self.ftp_step() == Step::Final;
        let wait = self
            .opts
            .ftp()
            .response_timeout
            .or(last.then_some(Duration::from_secs(60)));
        let left = pingpong::time_left(now, sent_at, wait, overall, false);
        if left.is_zero() {
            let msg = if last {
                "FTP response timeout"
            } else {
                "server response timeout"
            };
            return Err(Error::new(Code::OperationTimedout, msg));
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

    /// curl's `ftp_done` remembering the directory the transfer left the connection in
    /// (unless a CWD failed); the line it says so with.
    fn ftp_remember_dir(&mut self) -> Option<String> {
        let x = self.ftp.as_ref()?;
        if x.cwd_failed {
            return None;
        }
        let dir = x.path.remembered_dir(x.method)?.to_vec();
        let note = format!(
            "Remembering we are in dir \"{}\"",
            String::from_utf8_lossy(&dir)
        );
        conn_meta(self.conn.as_mut()?).prev_path = Some(dir);
        Some(note)
    }

    /// The control connection goes back to the pool after a failed transfer that left it
    /// in step; the line that says so.
    fn ftp_keep_conn(&mut self, cx: &mut Cx<'_>) -> Option<String> {
        let c = self.conn.take()?;
        let _ = cx.poller.delete(c.stream.fd());
        self.info.last_socket = Some(std::os::fd::AsRawFd::as_raw_fd(&c.stream.fd()));
        let note = self.left_intact(c.id, &c.host);
        self.touch_pool();
        drop(cx.pool.put(c, cx.now));
        Some(note)
    }

    /// A response during login (curl's `ftp_pp_statemachine` for `FTP_WAIT220`, `FTP_USER`,
    /// `FTP_PASS`, `FTP_ACCT`, `FTP_PWD`).
    fn ftp_connect_reply(&mut self, code: u32) -> Result<()> {
        match self.ftp_step() {
            Step::Greeting => {
                let tls = self.conn.as_ref().is_some_and(|c| c.tls.is_some());
                // Logged in already: as a 220 when TLS is still to be asked for.
                if code == 230 && (self.opts.use_ssl <= UseSsl::Try || tls) {
                    return self.ftp_logged_in();
                }
                if code != 220 && code != 230 {
                    return Err(Error::new(
                        Code::WeirdServerReply,
                        format!("Got a {code:03} ftp-server response when 220 was expected"),
                    ));
                }
                if self.opts.use_ssl != UseSsl::None && !tls {
                    return self.ftp_auth();
                }
                self.ftp_user()
            }
            Step::Auth => self.ftp_auth_reply(code),
            Step::Pbsz => self.ftp_pbsz_reply(),
            Step::Prot => self.ftp_prot_reply(code),
            Step::Ccc => self.ftp_ccc_reply(code),
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
                    let Some(acct) = self.opts.ftp().account.clone() else {
                        return Err(Error::new(
                            Code::LoginDenied,
                            "ACCT requested but none available",
                        ));
                    };
                    self.ftp_set(Step::Acct);
                    return self.ftp_send("ACCT", Some(&acct));
                }
                let alt = self.opts.ftp().alternative_to_user.clone();
                let x = self.ftp.as_mut().expect("ftp");
                match alt {
                    Some(cmd) if !x.alt_user_sent => {
                        x.alt_user_sent = true;
                        self.ftp_set(Step::User);
                        self.ftp_send_line(&[cmd.as_bytes()])
                    }
                    _ => Err(Error::new(
                        Code::LoginDenied,
                        format!("Access denied: {code:03}"),
                    )),
                }
            }
            Step::Acct => {
                if code != 230 {
                    return Err(Error::new(
                        Code::FtpWeirdPassReply,
                        format!("ACCT rejected by server: {code:03}"),
                    ));
                }
                self.ftp_logged_in()
            }
            Step::Pwd => {
                if code == 257 {
                    let line = self.ftp_last();
                    if let Some(dir) = ftp::pwd_reply(line.as_bytes())? {
                        let dir = String::from_utf8_lossy(&dir).into_owned();
                        self.info.ftp_entry_path = Some(dir.clone());
                        let m = conn_meta(self.conn.as_mut().expect("conn"));
                        // A path not starting with / may be a server's own syntax (OS/400):
                        // curl asks which system it is, once (SYST goes before it says the
                        // path).
                        let ask = m.server_os.is_none() && ftp::pwd_needs_syst(dir.as_bytes());
                        m.entry_path = Some(dir.clone());
                        if ask {
                            self.ftp_set(Step::Syst);
                            self.ftp_send("SYST", None)?;
                        }
                        self.verbose(&format!("Entry path is '{dir}'"));
                        if ask {
                            return Ok(());
                        }
                    } else {
                        self.verbose("Failed to figure out path");
                    }
                }
                self.ftp_set(Step::LoggedIn);
                Ok(())
            }
            Step::Syst => {
                if code == 215 {
                    let line = self.ftp_last();
                    let os = ftp::syst_reply(line.as_bytes());
                    let os400 = ftp::is_os400(os);
                    let os = String::from_utf8_lossy(os).into_owned();
                    conn_meta(self.conn.as_mut().expect("conn")).server_os = Some(os);
                    if os400 {
                        // The standard name format, then the entry path again in it.
                        self.ftp_set(Step::NameFmt);
                        return self.ftp_send("SITE NAMEFMT", Some("1"));
                    }
                }
                self.ftp_set(Step::LoggedIn);
                Ok(())
            }
            Step::NameFmt => {
                if code == 250 {
                    self.ftp_set(Step::Pwd);
                    return self.ftp_send("PWD", None);
                }
                self.ftp_set(Step::LoggedIn);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// curl's `ftp_state_user`.
    fn ftp_user(&mut self) -> Result<()> {
        let (user, _) = self.ftp_creds();
        self.ftp_set(Step::User);
        self.ftp_send("USER", Some(&user))
    }

    /// curl's `ftp_state_loggedin`: PBSZ and PROT over TLS, then PWD.
    fn ftp_logged_in(&mut self) -> Result<()> {
        let c = self.conn.as_mut().expect("conn");
        let tls = c.tls.is_some();
        conn_meta(c).logged_in = true;
        if tls {
            self.ftp_set(Step::Pbsz);
            return self.ftp_send("PBSZ", Some("0"));
        }
        self.ftp_pwd()
    }

    fn ftp_pwd(&mut self) -> Result<()> {
        self.ftp_set(Step::Pwd);
        self.ftp_send("PWD", None)
    }

    /// curl's `ftp_state_quote`: send the command at `i` of the list, or go on to what
    /// follows the list (the CWDs, the download's SIZE or the upload's STOR, the end).
    fn ftp_quote(&mut self, list: Quote, i: usize) -> Result<()> {
        let f = self.opts.ftp();
        let cmds = match list {
            Quote::Before => &f.quote,
            Quote::Pre => &f.prequote,
            Quote::Post => &f.postquote,
        };
        if let Some(cmd) = cmds.get(i) {
            let (cmd, may_fail) = match cmd.strip_prefix(b"*") {
                Some(rest) => (rest.to_vec(), true),
                None => (cmd.clone(), false),
            };
            let x = self.ftp.as_mut().expect("ftp");
            x.quote_may_fail = may_fail;
            x.step = Step::Quote(list, i);
            return self.ftp_send_line(&[&cmd]);
        }
        match list {
            Quote::Before => self.ftp_start_cwd(),
            Quote::Pre => self.ftp_after_prequote(),
            Quote::Post => {
                self.ftp_set(Step::Done);
                Ok(())
            }
        }
    }

    /// A quote command's reply: 400 and up fails the transfer unless the command may fail.
    fn ftp_quote_reply(&mut self, list: Quote, i: usize, code: u32) -> Result<()> {
        if code >= 400 && !self.ftp.as_ref().expect("ftp").quote_may_fail {
            if list == Quote::Post {
                // curl's ftp_sendquote names the command.
                let cmd = &self.opts.ftp().postquote[i];
                let cmd = String::from_utf8_lossy(cmd).into_owned();
                return Err(Error::new(
                    Code::QuoteError,
                    format!("QUOT string not accepted: {cmd}"),
                ));
            }
            return Err(Error::new(
                Code::QuoteError,
                format!("QUOT command failed with {code:03}"),
            ));
        }
        self.ftp_quote(list, i + 1)
    }

    /// curl's `ftp_state_cwd`: on a reused connection, back to the entry path first (unless
    /// the first directory is absolute); the same path as the transfer before needs none.
    /// curl's `ftp_parse_url_path` end: the connection is where the path leads already.
    fn ftp_check_cwd_done(&mut self) {
        let reused = self.conn_reused;
        let m = conn_meta(self.conn.as_mut().expect("conn"));
        // A new connection is in the entry directory.
        let prev = if reused {
            m.prev_path.clone()
        } else {
            Some(Vec::new())
        };
        let x = self.ftp.as_mut().expect("ftp");
        x.cwd_done = x.path.cwd_done(x.method, prev.as_deref());
        if x.cwd_done {
            self.verbose("Request has same path as previous transfer");
        }
    }

    fn ftp_start_cwd(&mut self) -> Result<()> {
        let reused = self.conn_reused;
        let entry = conn_meta(self.conn.as_mut().expect("conn"))
            .entry_path
            .clone();
        let x = self.ftp.as_ref().expect("ftp");
        if x.cwd_done {
            return self.ftp_mdtm();
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
        let x = self.ftp.as_mut().expect("ftp");
        x.mkd_done = false;
        match x.path.dirs.get(i).cloned() {
            Some(d) => {
                self.ftp_set(Step::Cwd(Some(i)));
                self.ftp_send_bytes("CWD", Some(&d))
            }
            None => self.ftp_mdtm(),
        }
    }

    /// A CWD's reply; a refused one may be followed by MKD (`--ftp-create-dirs`), once per
    /// directory.
    fn ftp_cwd_reply(&mut self, i: Option<usize>, code: u32) -> Result<()> {
        if code / 100 == 2 {
            return self.ftp_next_cwd(i.map_or(0, |i| i + 1));
        }
        let create = self.opts.ftp().create_dirs;
        let x = self.ftp.as_mut().expect("ftp");
        if let (Some(i), true) = (i, create > 0 && !x.mkd_done) {
            x.mkd_done = true;
            x.mkd_may_fail = create == 2;
            let dir = x.path.dirs[i].clone();
            x.step = Step::Mkd(i);
            return self.ftp_send_bytes("MKD", Some(&dir));
        }
        x.cwd_failed = true;
        Err(Error::new(
            Code::RemoteAccessDenied,
            "Server denied you to change to the given directory",
        ))
    }

    /// MKD's reply: CWD into the directory again (also after a refused MKD when another
    /// client may have made it).
    fn ftp_mkd_reply(&mut self, i: usize, code: u32) -> Result<()> {
        let x = self.ftp.as_mut().expect("ftp");
        if code / 100 != 2 {
            if !x.mkd_may_fail {
                return Err(Error::new(
                    Code::RemoteAccessDenied,
                    format!("Failed to MKD dir: {code:03}"),
                ));
            }
            x.mkd_may_fail = false;
        }
        let dir = x.path.dirs[i].clone();
        x.step = Step::Cwd(Some(i));
        self.ftp_send_bytes("CWD", Some(&dir))
    }

    /// A response in the do phase.
    fn ftp_do_reply(&mut self, cx: &mut Cx<'_>, code: u32) -> Result<()> {
        match self.ftp_step() {
            Step::Quote(list, i) => self.ftp_quote_reply(list, i, code),
            Step::Cwd(i) => self.ftp_cwd_reply(i, code),
            Step::Mkd(i) => self.ftp_mkd_reply(i, code),
            Step::Mdtm => self.ftp_mdtm_reply(code),
            Step::Type(next) => self.ftp_type_reply(next, code),
            Step::InfoSize | Step::Size | Step::StorSize => self.ftp_size_reply(code),
            Step::InfoRest | Step::Rest => self.ftp_rest_reply(code),
            Step::Pret => self.ftp_pret_reply(code),
            Step::Epsv | Step::Pasv => self.ftp_pasv_reply(cx, code),
            Step::Port(cmd) => self.ftp_port_reply(cmd, code),
            Step::Retr => self.ftp_retr_reply(code),
            Step::Stor => self.ftp_stor_reply(code),
            _ => Ok(()),
        }
    }
}
