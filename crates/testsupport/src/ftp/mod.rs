//! A scripted FTP server modelled on curl's test server `ftpserver.pl`.
//!
//! Out of the box it is a small, sane server with an in-memory file tree: it logs anyone
//! in, keeps a working directory per control connection, offers passive (`EPSV`, `PASV`)
//! and active (`EPRT`, `PORT`) data connections on loopback, and serves `RETR`, `LIST`,
//! `NLST`, `STOR` and `APPE` from and into its tree. Tests then replace the reply to any
//! command with raw bytes ([`FtpServer::reply_once`], [`FtpServer::reply_always`]) to
//! play a hostile server, shape how downloads go ([`Transfer`]), and afterwards inspect
//! the exact bytes the client sent on every control connection
//! ([`FtpServer::control_bytes`], [`FtpServer::commands`]) and data connection
//! ([`FtpServer::data_bytes`], [`FtpServer::uploaded`]).
//!
//! ```no_run
//! use oxcurl_testsupport::ftp::{FtpReply, FtpServer};
//! let server = FtpServer::start();
//! server.file("/dir/hello.txt", "hello\n");
//! server.reply_once("EPSV", "500 no EPSV here\r\n"); // the client falls back to PASV
//! server.reply_always("SIZE", FtpReply::delayed(std::time::Duration::from_millis(200)));
//! // ... run a client against format!("{}dir/hello.txt", server.url()) ...
//! server.wait_idle(std::time::Duration::from_secs(2));
//! assert!(server.commands(0).contains(&"CWD dir".to_string()));
//! ```
//!
//! Reply selection for each command line, first match wins:
//! 1. the handler set with [`FtpServer::set_handler`], when it returns a reply;
//! 2. the overrides in the order they were added; a key without a space matches the
//!    command name (case-insensitive), a key with one matches name and argument exactly
//!    (`"RETR missing.txt"`); an override made with [`FtpServer::reply_once`] is spent
//!    by its first use;
//! 3. the built-in behaviour ([`FtpAction::Builtin`]).
//!
//! Every control connection gets its own thread; connections are numbered from 0 in
//! accept order. Data connections are numbered from 0 in the order they were opened,
//! across all control connections. The transfer type is recorded but never changes the
//! bytes: `TYPE A` downloads are sent as stored.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::http::find;

pub mod diff;
mod session;

/// The greeting sent to each new control connection unless [`FtpServer::set_greeting`]
/// changed it.
pub const DEFAULT_GREETING: &str = "220 oxcurl test FTP server\r\n";

/// The modification time listings show for files without one (2000-01-01 00:00:00 UTC).
pub const DEFAULT_MTIME: i64 = 946_684_800;

/// One step of an [`FtpReply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FtpAction {
    /// Write these bytes on the control connection, exactly as given.
    Write(Vec<u8>),
    /// Write `data` in pieces of `piece` bytes with `delay` between them.
    WriteSlowly {
        /// bytes to send
        data: Vec<u8>,
        /// piece size (at least 1)
        piece: usize,
        /// pause before each piece after the first
        delay: Duration,
    },
    /// Pause.
    Sleep(Duration),
    /// Do what the server does for this command by default, side effects included (for
    /// the greeting: send [`DEFAULT_GREETING`]).
    Builtin,
    /// Close the control connection: shut down the write side, then record whatever the
    /// client still sends until it closes too.
    Close,
    /// Never answer again: record whatever the client sends until it closes the
    /// connection.
    Hang,
}

/// What the server does for one command (or for the greeting): a list of
/// [`FtpAction`]s. Raw text converts into one with `.into()`, so overrides take
/// `"550 nope\r\n"` directly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FtpReply {
    /// The steps, run in order.
    pub actions: Vec<FtpAction>,
}

impl FtpReply {
    /// A reply that sends nothing (the client waits for the next one).
    pub fn new() -> FtpReply {
        FtpReply::default()
    }

    /// Exactly these bytes, nothing added: no line end, no reply code.
    pub fn raw(bytes: impl AsRef<[u8]>) -> FtpReply {
        FtpReply::new().write(bytes)
    }

    /// The built-in behaviour, as if there were no override.
    pub fn builtin() -> FtpReply {
        FtpReply::new().then_builtin()
    }

    /// The built-in behaviour after a pause: a slow server.
    pub fn delayed(d: Duration) -> FtpReply {
        FtpReply::new().sleep(d).then_builtin()
    }

    /// No answer, ever: the server only records what arrives until the client gives up.
    pub fn never() -> FtpReply {
        FtpReply::new().hang()
    }

    /// Appends an [`FtpAction::Write`].
    pub fn write(mut self, bytes: impl AsRef<[u8]>) -> FtpReply {
        self.actions.push(FtpAction::Write(bytes.as_ref().to_vec()));
        self
    }

    /// Appends an [`FtpAction::WriteSlowly`].
    pub fn write_slowly(
        mut self,
        bytes: impl AsRef<[u8]>,
        piece: usize,
        delay: Duration,
    ) -> FtpReply {
        self.actions.push(FtpAction::WriteSlowly {
            data: bytes.as_ref().to_vec(),
            piece: piece.max(1),
            delay,
        });
        self
    }

    /// Appends an [`FtpAction::Sleep`].
    pub fn sleep(mut self, d: Duration) -> FtpReply {
        self.actions.push(FtpAction::Sleep(d));
        self
    }

    /// Appends an [`FtpAction::Builtin`].
    pub fn then_builtin(mut self) -> FtpReply {
        self.actions.push(FtpAction::Builtin);
        self
    }

    /// Appends an [`FtpAction::Close`].
    pub fn close(mut self) -> FtpReply {
        self.actions.push(FtpAction::Close);
        self
    }

    /// Appends an [`FtpAction::Hang`].
    pub fn hang(mut self) -> FtpReply {
        self.actions.push(FtpAction::Hang);
        self
    }
}

impl From<&str> for FtpReply {
    fn from(s: &str) -> FtpReply {
        FtpReply::raw(s)
    }
}

impl From<String> for FtpReply {
    fn from(s: String) -> FtpReply {
        FtpReply::raw(s)
    }
}

impl From<&[u8]> for FtpReply {
    fn from(b: &[u8]) -> FtpReply {
        FtpReply::raw(b)
    }
}

impl<const N: usize> From<&[u8; N]> for FtpReply {
    fn from(b: &[u8; N]) -> FtpReply {
        FtpReply::raw(b)
    }
}

impl From<Vec<u8>> for FtpReply {
    fn from(b: Vec<u8>) -> FtpReply {
        FtpReply::raw(b)
    }
}

/// When a download's final reply (`226`) goes out on the control connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FinalAt {
    /// After the data connection was closed, as a sane server does (default).
    #[default]
    AfterData,
    /// Right after the `150`, before the first data byte: the client must still read the
    /// data connection to its end.
    BeforeData,
    /// Once this many data bytes were sent, while the rest still follows.
    AfterBytes(u64),
    /// Not at all: the data connection just closes (after all or, with
    /// [`Transfer::truncate`], part of the data) and the control connection stays quiet.
    Never,
}

/// How the server sends downloads (`RETR`, `LIST`, `NLST`); see
/// [`FtpServer::set_transfer`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Send at most this many bytes, then close the data connection as if all were sent.
    pub limit: Option<u64>,
    /// Send the data in pieces of this size (0: all at once).
    pub piece: usize,
    /// The pause before each piece after the first.
    pub delay: Duration,
    /// When the final reply goes out.
    pub final_at: FinalAt,
    /// The final reply; `None`: `226 Transfer complete\r\n`.
    pub final_reply: Option<Vec<u8>>,
    /// Whether `RETR`'s `150` names the size, `(N bytes)` (default true). The size is the
    /// number of bytes from the restart offset on, before any truncation.
    pub announce_size: bool,
}

impl Default for Transfer {
    fn default() -> Transfer {
        Transfer {
            limit: None,
            piece: 0,
            delay: Duration::ZERO,
            final_at: FinalAt::AfterData,
            final_reply: None,
            announce_size: true,
        }
    }
}

impl Transfer {
    /// A sane transfer: everything at once, then close, then `226`.
    pub fn new() -> Transfer {
        Transfer::default()
    }

    /// Sends only the first `n` bytes.
    pub fn truncate(mut self, n: u64) -> Transfer {
        self.limit = Some(n);
        self
    }

    /// Sends `piece` bytes at a time with `delay` in between.
    pub fn slowly(mut self, piece: usize, delay: Duration) -> Transfer {
        self.piece = piece.max(1);
        self.delay = delay;
        self
    }

    /// Sets when the final reply goes out.
    pub fn final_at(mut self, at: FinalAt) -> Transfer {
        self.final_at = at;
        self
    }

    /// Replaces `226 Transfer complete\r\n` with these bytes.
    pub fn final_reply(mut self, bytes: impl AsRef<[u8]>) -> Transfer {
        self.final_reply = Some(bytes.as_ref().to_vec());
        self
    }

    /// Leaves `(N bytes)` out of `RETR`'s `150`.
    pub fn without_size(mut self) -> Transfer {
        self.announce_size = false;
        self
    }
}

/// A command line as the server parsed it, for [`FtpServer::set_handler`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The control connection number.
    pub conn: usize,
    /// The line without its line end.
    pub line: String,
    /// The command name, upper-cased.
    pub name: String,
    /// Everything after the first space (empty without one).
    pub arg: String,
    /// The connection's working directory when the command arrived.
    pub cwd: String,
}

/// What went over one data connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataRecord {
    /// The control connection it belongs to.
    pub conn: usize,
    /// The command line it served (`RETR file`), empty while none used it yet.
    pub command: String,
    /// Whether the client connected to the server (EPSV/PASV) rather than the other way.
    pub passive: bool,
    /// Every byte received on it.
    pub received: Vec<u8>,
    /// The number of bytes sent on it.
    pub sent: u64,
}

type Handler = Arc<dyn Fn(&Command) -> Option<FtpReply> + Send + Sync>;

#[derive(Clone)]
struct Entry {
    data: Vec<u8>,
    mtime: Option<i64>,
}

struct Override {
    key: String,
    reply: FtpReply,
    once: bool,
    spent: bool,
}

struct State {
    gen: u64,
    controls: Vec<Vec<u8>>,
    data: Vec<DataRecord>,
    active: usize,
    next_key: u64,
    streams: Vec<(u64, TcpStream)>,
    files: BTreeMap<String, Entry>,
    dirs: BTreeSet<String>,
    listings: BTreeMap<String, Vec<u8>>,
    uploads: BTreeMap<String, Vec<u8>>,
    overrides: Vec<Override>,
    handler: Option<Handler>,
    greeting: FtpReply,
    transfer: Transfer,
    login: Option<(String, String)>,
    linger: Duration,
    data_timeout: Duration,
}

impl State {
    fn is_dir(&self, path: &str) -> bool {
        if path == "/" || self.dirs.contains(path) {
            return true;
        }
        let prefix = format!("{path}/");
        self.files.keys().any(|k| k.starts_with(&prefix))
            || self.dirs.iter().any(|d| d.starts_with(&prefix))
    }

    /// The names directly inside `dir`, each with its file entry (None for a directory).
    fn children(&self, dir: &str) -> BTreeMap<String, Option<Entry>> {
        let prefix = if dir == "/" {
            "/".to_string()
        } else {
            format!("{dir}/")
        };
        let mut out = BTreeMap::new();
        let paths = self.files.keys().chain(self.dirs.iter());
        for p in paths {
            let Some(rest) = p.strip_prefix(&prefix) else {
                continue;
            };
            match rest.split_once('/') {
                Some((d, _)) => {
                    out.insert(d.to_string(), None);
                }
                None if !rest.is_empty() => {
                    let e = self.files.get(p).cloned();
                    out.entry(rest.to_string()).or_insert(e);
                }
                None => {}
            }
        }
        out
    }

    /// What `LIST` (long) or `NLST` sends for `path`; None when it does not exist.
    fn list(&self, path: &str, long: bool) -> Option<Vec<u8>> {
        if long {
            if let Some(text) = self.listings.get(path) {
                return Some(text.clone());
            }
        }
        let entries = if let Some(e) = self.files.get(path) {
            let name = path.rsplit('/').next().unwrap_or(path).to_string();
            BTreeMap::from([(name, Some(e.clone()))])
        } else if self.is_dir(path) {
            self.children(path)
        } else {
            return None;
        };
        let mut out = String::new();
        for (name, e) in entries {
            if !long {
                out.push_str(&format!("{name}\r\n"));
                continue;
            }
            let (kind, size, t) = match &e {
                Some(e) => ("-rw-r--r--", e.data.len(), e.mtime.unwrap_or(DEFAULT_MTIME)),
                None => ("drwxr-xr-x", 4096, DEFAULT_MTIME),
            };
            let (y, mo, d, ..) = civil(t);
            let month = MONTHS[(mo - 1) as usize];
            out.push_str(&format!(
                "{kind}   1 ftp      ftp      {size:>10} {month} {d:02} {y:>5} {name}\r\n"
            ));
        }
        Some(out.into_bytes())
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

struct Shared {
    stop: AtomicBool,
    state: Mutex<State>,
    idle: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The scripted FTP server. Stops (closing its connections) on drop.
pub struct FtpServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for FtpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FtpServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl FtpServer {
    /// Starts a server on `127.0.0.1` (ephemeral port) with an empty file tree.
    pub fn start() -> FtpServer {
        FtpServer::bind("127.0.0.1:0").expect("bind 127.0.0.1:0")
    }

    /// Starts a server on `[::1]` (ephemeral port). `EPSV` listens on `::1`; `PASV`,
    /// which can only name IPv4, still listens on `127.0.0.1`.
    pub fn start_v6() -> io::Result<FtpServer> {
        FtpServer::bind("[::1]:0")
    }

    /// Starts a server on an explicit address (use port 0 for an ephemeral port).
    pub fn bind(addr: impl ToSocketAddrs) -> io::Result<FtpServer> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            state: Mutex::new(State {
                gen: 0,
                controls: Vec::new(),
                data: Vec::new(),
                active: 0,
                next_key: 0,
                streams: Vec::new(),
                files: BTreeMap::new(),
                dirs: BTreeSet::new(),
                listings: BTreeMap::new(),
                uploads: BTreeMap::new(),
                overrides: Vec::new(),
                handler: None,
                greeting: FtpReply::raw(DEFAULT_GREETING),
                transfer: Transfer::default(),
                login: None,
                linger: Duration::from_secs(2),
                data_timeout: Duration::from_secs(10),
            }),
            idle: Condvar::new(),
        });
        let sh = shared.clone();
        let accept = thread::Builder::new()
            .name(format!("ftpd-accept-{}", addr.port()))
            .spawn(move || session::accept_loop(listener, sh))?;
        Ok(FtpServer {
            addr,
            shared,
            accept: Some(accept),
        })
    }

    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `127.0.0.1:PORT` or `[::1]:PORT`.
    pub fn host_port(&self) -> String {
        self.addr.to_string()
    }

    /// `ftp://127.0.0.1:PORT/` (or `ftp://[::1]:PORT/`), with the trailing slash.
    pub fn url(&self) -> String {
        format!("ftp://{}/", self.addr)
    }

    /// Puts a file into the tree (replacing one at that path). Relative paths are taken
    /// from `/`; the directories above it exist from then on.
    pub fn file(&self, path: &str, bytes: impl AsRef<[u8]>) {
        self.put(path, bytes.as_ref(), None);
    }

    /// Like [`FtpServer::file`], with a modification time (seconds since the Unix epoch,
    /// UTC) that `MDTM` reports and `LIST` shows. Files without one get `550` to `MDTM`.
    pub fn file_with_time(&self, path: &str, bytes: impl AsRef<[u8]>, unix_time: i64) {
        self.put(path, bytes.as_ref(), Some(unix_time));
    }

    fn put(&self, path: &str, data: &[u8], mtime: Option<i64>) {
        let path = normalize("/", path);
        let entry = Entry {
            data: data.to_vec(),
            mtime,
        };
        self.shared.lock().files.insert(path, entry);
    }

    /// Creates an empty directory (files create the directories above them anyway).
    pub fn dir(&self, path: &str) {
        self.shared.lock().dirs.insert(normalize("/", path));
    }

    /// Makes `LIST` of directory `dir` send exactly `text` instead of the generated
    /// listing (`NLST` is unaffected), e.g. a listing in another server's format.
    pub fn listing(&self, dir: &str, text: impl AsRef<[u8]>) {
        let dir = normalize("/", dir);
        self.shared
            .lock()
            .listings
            .insert(dir, text.as_ref().to_vec());
    }

    /// What `LIST` (`long`) or `NLST` of `path` sends now; None when it does not exist.
    pub fn list_text(&self, path: &str, long: bool) -> Option<Vec<u8>> {
        self.shared.lock().list(&normalize("/", path), long)
    }

    /// The file's content now (after any uploads, deletes and renames).
    pub fn file_content(&self, path: &str) -> Option<Vec<u8>> {
        let path = normalize("/", path);
        self.shared.lock().files.get(&path).map(|e| e.data.clone())
    }

    /// The bytes the last `STOR` or `APPE` to this path received on its data connection
    /// (whatever the file holds now).
    pub fn uploaded(&self, path: &str) -> Option<Vec<u8>> {
        let path = normalize("/", path);
        self.shared.lock().uploads.get(&path).cloned()
    }

    /// Sets the greeting, e.g. raw hostile bytes, a multi-line `220-`, or
    /// `FtpReply::delayed(d)` for a slow one.
    pub fn set_greeting(&self, reply: impl Into<FtpReply>) {
        self.shared.lock().greeting = reply.into();
    }

    /// Answers the next command matching `key` with `reply` (see the module docs for
    /// matching); later ones get what follows in the selection order.
    pub fn reply_once(&self, key: &str, reply: impl Into<FtpReply>) {
        self.add_override(key, reply.into(), true);
    }

    /// Answers every command matching `key` with `reply`.
    pub fn reply_always(&self, key: &str, reply: impl Into<FtpReply>) {
        self.add_override(key, reply.into(), false);
    }

    fn add_override(&self, key: &str, reply: FtpReply, once: bool) {
        self.shared.lock().overrides.push(Override {
            key: key.to_string(),
            reply,
            once,
            spent: false,
        });
    }

    /// Forgets every override made with [`FtpServer::reply_once`] and
    /// [`FtpServer::reply_always`].
    pub fn clear_replies(&self) {
        self.shared.lock().overrides.clear();
    }

    /// Chooses replies with `f`, before any override: `None` passes the command on.
    pub fn set_handler<F>(&self, f: F)
    where
        F: Fn(&Command) -> Option<FtpReply> + Send + Sync + 'static,
    {
        self.shared.lock().handler = Some(Arc::new(f));
    }

    /// How every later download is sent (default [`Transfer::new`]).
    pub fn set_transfer(&self, t: Transfer) {
        self.shared.lock().transfer = t;
    }

    /// Accepts only this user and password: any other `PASS` gets `530` (default: anyone
    /// is welcome).
    pub fn set_login(&self, user: &str, pass: &str) {
        self.shared.lock().login = Some((user.to_string(), pass.to_string()));
    }

    /// How long a transfer command waits for the client to connect to the passive port
    /// before it answers `425` (default 10 s).
    pub fn set_data_timeout(&self, d: Duration) {
        self.shared.lock().data_timeout = d;
    }

    /// How long a closing control connection waits for the client to close its side
    /// (default 2 s).
    pub fn set_linger(&self, d: Duration) {
        self.shared.lock().linger = d;
    }

    /// Every byte received on control connection `conn` (empty when there is none).
    pub fn control_bytes(&self, conn: usize) -> Vec<u8> {
        self.shared
            .lock()
            .controls
            .get(conn)
            .cloned()
            .unwrap_or_default()
    }

    /// The command lines received on control connection `conn`, split at CRLF, without
    /// the CRLF. A last line without CRLF is left out ([`FtpServer::control_bytes`] has
    /// it).
    pub fn commands(&self, conn: usize) -> Vec<String> {
        let bytes = self.control_bytes(conn);
        let mut out = Vec::new();
        let mut rest = &bytes[..];
        while let Some(i) = find(rest, b"\r\n") {
            out.push(String::from_utf8_lossy(&rest[..i]).into_owned());
            rest = &rest[i + 2..];
        }
        out
    }

    /// The number of control connections accepted.
    pub fn connections(&self) -> usize {
        self.shared.lock().controls.len()
    }

    /// Every byte received on data connection `n` (empty when there is none).
    pub fn data_bytes(&self, n: usize) -> Vec<u8> {
        let st = self.shared.lock();
        st.data
            .get(n)
            .map(|d| d.received.clone())
            .unwrap_or_default()
    }

    /// Every data connection opened so far, in order.
    pub fn data_records(&self) -> Vec<DataRecord> {
        self.shared.lock().data.clone()
    }

    /// The number of data connections opened so far.
    pub fn data_connections(&self) -> usize {
        self.shared.lock().data.len()
    }

    /// Forgets the records of connections and uploads, closes open connections and makes
    /// spent overrides usable again, keeping the file tree and the configuration: ready
    /// for another client run.
    pub fn reset(&self) {
        let mut st = self.shared.lock();
        st.gen += 1;
        for (_, s) in st.streams.drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
        st.controls.clear();
        st.data.clear();
        st.uploads.clear();
        st.active = 0;
        for o in &mut st.overrides {
            o.spent = false;
        }
        self.shared.idle.notify_all();
    }

    /// Waits until no control connection is open any more (and none arrived for a short
    /// while), at most `timeout`. Returns whether the server became idle. Call after the
    /// client exited, before reading the records.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        crate::http::wait_quiet(&self.shared.state, &self.shared.idle, timeout, |st| {
            (st.active, st.gen, st.controls.len())
        })
    }
}

impl Drop for FtpServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        {
            let mut st = self.shared.lock();
            st.gen += 1;
            for (_, s) in st.streams.drain(..) {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
        // Unblock accept().
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

/// `rel` taken from directory `cwd` (or from `/` when absolute), with `.`, `..` and
/// repeated slashes resolved: always absolute, no trailing slash except for `/`.
pub fn normalize(cwd: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let joined = if rel.starts_with('/') {
        rel.to_string()
    } else {
        format!("{cwd}/{rel}")
    };
    for p in joined.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The `MDTM` timestamp `YYYYMMDDHHMMSS` (UTC) for seconds since the Unix epoch.
pub fn mdtm(unix_time: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(unix_time);
    format!("{y:04}{mo:02}{d:02}{h:02}{mi:02}{s:02}")
}

/// Seconds since the epoch as UTC year, month, day, hour, minute, second.
fn civil(t: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400) as u32;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, secs / 3600, secs / 60 % 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_cwd() {
        assert_eq!(normalize("/", "a.txt"), "/a.txt");
        assert_eq!(normalize("/d/e", "../f//g/./h"), "/d/f/g/h");
        assert_eq!(normalize("/d", "/x/"), "/x");
        assert_eq!(normalize("/", "../.."), "/");
        assert_eq!(normalize("/d", ""), "/d");
    }

    #[test]
    fn mdtm_is_utc() {
        assert_eq!(mdtm(0), "19700101000000");
        assert_eq!(mdtm(DEFAULT_MTIME), "20000101000000");
        assert_eq!(mdtm(1_709_210_096), "20240229123456");
    }
}
