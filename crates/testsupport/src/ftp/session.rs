//! One control connection of the scripted FTP server: reading command lines, running
//! replies, the built-in commands and the data connections they open.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use super::{
    mdtm, normalize, Command, DataRecord, Entry, FinalAt, FtpAction, FtpReply, Shared, State,
    DEFAULT_GREETING,
};
use crate::http::find;

/// A command line longer than this without a line end gets `500` and a closed connection.
const MAX_LINE: usize = 1 << 20;

/// Accepts control connections until the server stops, each served on its own thread.
pub(super) fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(_) => {
                if shared.stop.load(Ordering::SeqCst) {
                    return;
                }
                thread::sleep(Duration::from_millis(5));
                continue;
            }
        };
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let _ = stream.set_nodelay(true);
        let (id, gen, key) = {
            let mut st = shared.lock();
            let id = st.controls.len();
            st.controls.push(Vec::new());
            st.active += 1;
            let key = register(&mut st, &stream);
            (id, st.gen, key)
        };
        let conn = Conn {
            shared: shared.clone(),
            stream,
            key,
            id,
            gen,
            buf: Vec::new(),
            pos: 0,
            cwd: "/".to_string(),
            user: String::new(),
            binary: false,
            rest: 0,
            rename_from: None,
            data: None,
        };
        // On failure the Conn was dropped with the closure, which unregistered it.
        let _ = thread::Builder::new()
            .name(format!("ftpd-conn-{id}"))
            .spawn(move || conn.serve());
    }
}

/// Keeps a clone of `s` so that drop and reset can shut it down; returns its key.
fn register(st: &mut State, s: &TcpStream) -> u64 {
    st.next_key += 1;
    if let Ok(c) = s.try_clone() {
        st.streams.push((st.next_key, c));
    }
    st.next_key
}

/// The data connection a transfer command will use.
enum DataSetup {
    /// `EPSV`/`PASV`: the client connects here.
    Passive(TcpListener),
    /// `EPRT`/`PORT`: the server already connected to the client.
    Active(DataStream),
}

/// An open data connection: its record number and the key of its registered clone.
/// Dropping it closes the connection, used or not.
struct DataStream {
    s: TcpStream,
    n: usize,
    key: u64,
    shared: Arc<Shared>,
}

impl Drop for DataStream {
    fn drop(&mut self) {
        let _ = self.s.flush();
        let _ = self.s.shutdown(Shutdown::Both);
        let key = self.key;
        self.shared.lock().streams.retain(|(k, _)| *k != key);
    }
}

struct Conn {
    shared: Arc<Shared>,
    stream: TcpStream,
    key: u64,
    id: usize,
    gen: u64,
    buf: Vec<u8>,
    pos: usize,
    cwd: String,
    user: String,
    binary: bool,
    rest: u64,
    rename_from: Option<String>,
    data: Option<DataSetup>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
        let mut st = self.shared.lock();
        if st.gen == self.gen {
            st.active = st.active.saturating_sub(1);
            let key = self.key;
            st.streams.retain(|(k, _)| *k != key);
            if st.active == 0 {
                self.shared.idle.notify_all();
            }
        }
    }
}

enum Next {
    Continue,
    Closed,
}

fn retryable(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

impl Conn {
    fn cancelled(&self) -> bool {
        self.shared.stop.load(Ordering::SeqCst) || self.shared.lock().gen != self.gen
    }

    /// Sleeps `d` in small steps; false when the server stopped or was reset meanwhile.
    fn nap(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        loop {
            if self.cancelled() {
                return false;
            }
            let now = Instant::now();
            if now >= end {
                return true;
            }
            thread::sleep((end - now).min(Duration::from_millis(50)));
        }
    }

    fn avail(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// Reads more control bytes into the buffer, recording them; Ok(0) at end of stream.
    fn fill(&mut self) -> io::Result<usize> {
        let n = crate::http::fill_from(&mut self.stream, &mut self.buf, &mut self.pos)?;
        if n > 0 {
            let mut st = self.shared.lock();
            if st.gen == self.gen {
                st.controls[self.id].extend_from_slice(&self.buf[self.buf.len() - n..]);
            }
        }
        Ok(n)
    }

    /// The next command line without its line end (LF alone ends one too). None at end
    /// of stream, on error, or when the line grew past [`MAX_LINE`].
    fn read_line(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(i) = find(self.avail(), b"\n") {
                let mut line = self.avail()[..i].to_vec();
                self.pos += i + 1;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Some(line);
            }
            if self.avail().len() > MAX_LINE {
                let _ = self.stream.write_all(b"500 Line too long\r\n");
                return None;
            }
            if self.fill().ok()? == 0 {
                return None;
            }
        }
    }

    /// Records what the client sends until it closes (or `linger` passes, when given).
    fn drain(&mut self, linger: Option<Duration>) {
        let end = linger.map(|d| Instant::now() + d);
        let _ = self
            .stream
            .set_read_timeout(Some(Duration::from_millis(100)));
        while !self.cancelled() && end.is_none_or(|e| Instant::now() < e) {
            match self.fill() {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if retryable(&e) => {}
                Err(_) => break,
            }
        }
    }

    /// Shuts down the write side and records what the client still sends until it
    /// closes or the linger time passes.
    fn lingering_close(&mut self) {
        let _ = self.stream.flush();
        let _ = self.stream.shutdown(Shutdown::Write);
        let linger = self.shared.lock().linger;
        self.drain(Some(linger));
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    fn send(&mut self, bytes: impl AsRef<[u8]>) -> io::Result<()> {
        self.stream.write_all(bytes.as_ref())
    }

    fn serve(mut self) {
        let greeting = self.shared.lock().greeting.clone();
        if !matches!(self.run(&greeting, None), Ok(Next::Continue)) {
            return;
        }
        while !self.cancelled() {
            let Some(line) = self.read_line() else {
                return;
            };
            let line = String::from_utf8_lossy(&line).into_owned();
            let (name, arg) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            let cmd = Command {
                conn: self.id,
                name: name.to_ascii_uppercase(),
                arg: arg.to_string(),
                cwd: self.cwd.clone(),
                line: line.clone(),
            };
            let reply = self.pick(&cmd);
            if !matches!(self.run(&reply, Some(&cmd)), Ok(Next::Continue)) {
                return;
            }
        }
    }

    fn pick(&self, cmd: &Command) -> FtpReply {
        let handler = self.shared.lock().handler.clone();
        if let Some(r) = handler.and_then(|h| h(cmd)) {
            return r;
        }
        let mut st = self.shared.lock();
        let hit = st.overrides.iter_mut().find(|o| {
            !o.spent
                && match o.key.split_once(' ') {
                    Some((name, arg)) => name.eq_ignore_ascii_case(&cmd.name) && arg == cmd.arg,
                    None => o.key.eq_ignore_ascii_case(&cmd.name),
                }
        });
        match hit {
            Some(o) => {
                o.spent = o.once;
                o.reply.clone()
            }
            None => FtpReply::builtin(),
        }
    }

    /// Runs a reply's actions for `cmd` (None: the greeting).
    fn run(&mut self, reply: &FtpReply, cmd: Option<&Command>) -> io::Result<Next> {
        for a in &reply.actions {
            match a {
                FtpAction::Write(b) => self.send(b)?,
                FtpAction::WriteSlowly { data, piece, delay } => {
                    for (i, p) in data.chunks((*piece).max(1)).enumerate() {
                        if i > 0 && !self.nap(*delay) {
                            return Ok(Next::Closed);
                        }
                        self.send(p)?;
                    }
                }
                FtpAction::Sleep(d) => {
                    if !self.nap(*d) {
                        return Ok(Next::Closed);
                    }
                }
                FtpAction::Builtin => {
                    let next = match cmd {
                        Some(c) => self.builtin(c)?,
                        None => {
                            self.send(DEFAULT_GREETING)?;
                            Next::Continue
                        }
                    };
                    if let Next::Closed = next {
                        return Ok(Next::Closed);
                    }
                }
                FtpAction::Close => {
                    self.lingering_close();
                    return Ok(Next::Closed);
                }
                FtpAction::Hang => {
                    self.drain(None);
                    return Ok(Next::Closed);
                }
            }
        }
        Ok(Next::Continue)
    }

    /// The server's own handling of `cmd`.
    fn builtin(&mut self, cmd: &Command) -> io::Result<Next> {
        let arg = cmd.arg.as_str();
        let path = normalize(&self.cwd, arg);
        let reply = match cmd.name.as_str() {
            "USER" => {
                self.user = arg.to_string();
                format!("331 Password required for {arg}\r\n")
            }
            "PASS" => {
                let login = self.shared.lock().login.clone();
                match login {
                    Some((u, p)) if u != self.user || p != arg => "530 Login incorrect\r\n".into(),
                    _ => "230 Logged in\r\n".into(),
                }
            }
            "ACCT" => "230 Account accepted\r\n".into(),
            "PWD" | "XPWD" => format!("257 \"{}\" is current directory\r\n", self.cwd),
            "CWD" | "CDUP" => {
                let target = if cmd.name == "CDUP" {
                    normalize(&self.cwd, "..")
                } else {
                    path
                };
                if self.shared.lock().is_dir(&target) {
                    let r = format!("250 Directory changed to {target}\r\n");
                    self.cwd = target;
                    r
                } else {
                    format!("550 {arg}: No such directory\r\n")
                }
            }
            "TYPE" => match arg.to_ascii_uppercase().as_str() {
                t @ ("A" | "I" | "A N" | "L 8") => {
                    self.binary = !t.starts_with('A');
                    format!("200 Type set to {arg}\r\n")
                }
                _ => format!("504 Type {arg} not supported\r\n"),
            },
            "SYST" => "215 UNIX Type: L8\r\n".into(),
            "FEAT" => "211-Features:\r\n EPSV\r\n MDTM\r\n PASV\r\n REST STREAM\r\n SIZE\r\n\
                       211 End\r\n"
                .into(),
            "SIZE" => match self.shared.lock().files.get(&path) {
                Some(e) => format!("213 {}\r\n", e.data.len()),
                None => format!("550 {arg}: No such file\r\n"),
            },
            "MDTM" => match self.shared.lock().files.get(&path).and_then(|e| e.mtime) {
                Some(t) => format!("213 {}\r\n", mdtm(t)),
                None => format!("550 {arg}: No modification time\r\n"),
            },
            "EPSV" if arg.eq_ignore_ascii_case("ALL") => "200 EPSV ALL ok\r\n".into(),
            "EPSV" | "PASV" => {
                let ip = if cmd.name == "EPSV" {
                    self.stream.local_addr()?.ip()
                } else {
                    IpAddr::V4(Ipv4Addr::LOCALHOST)
                };
                let listener = TcpListener::bind((ip, 0))?;
                let port = listener.local_addr()?.port();
                self.data = Some(DataSetup::Passive(listener));
                if cmd.name == "EPSV" {
                    format!("229 Entering Passive Mode (|||{port}|)\r\n")
                } else {
                    let (hi, lo) = (port >> 8, port & 0xff);
                    format!("227 Entering Passive Mode (127,0,0,1,{hi},{lo})\r\n")
                }
            }
            "EPRT" | "PORT" => {
                let target = if cmd.name == "EPRT" {
                    parse_eprt(arg)
                } else {
                    parse_port(arg)
                };
                match target {
                    Some(a) if a.ip().is_loopback() => self.connect_back(a),
                    Some(_) => "504 Only loopback data connections here\r\n".into(),
                    None => format!("501 Bad {} argument\r\n", cmd.name),
                }
            }
            "REST" => match arg.trim().parse::<u64>() {
                Ok(n) => {
                    self.rest = n;
                    format!("350 Restarting at {n}\r\n")
                }
                Err(_) => "501 Bad restart offset\r\n".into(),
            },
            "RETR" => return self.retr(cmd, &path),
            "LIST" | "NLST" => return self.list(cmd),
            "STOR" | "APPE" => return self.store(cmd, &path),
            "DELE" => match self.shared.lock().files.remove(&path) {
                Some(_) => format!("250 Deleted {path}\r\n"),
                None => format!("550 {arg}: No such file\r\n"),
            },
            "MKD" | "XMKD" => {
                let mut st = self.shared.lock();
                let parent = normalize(&path, "..");
                if st.is_dir(&path) || st.files.contains_key(&path) || !st.is_dir(&parent) {
                    format!("550 {arg}: Cannot create directory\r\n")
                } else {
                    st.dirs.insert(path.clone());
                    format!("257 \"{path}\" created\r\n")
                }
            }
            "RMD" | "XRMD" => {
                let mut st = self.shared.lock();
                if st.dirs.contains(&path) && st.children(&path).is_empty() {
                    st.dirs.remove(&path);
                    format!("250 Removed {path}\r\n")
                } else {
                    format!("550 {arg}: Cannot remove directory\r\n")
                }
            }
            "RNFR" => {
                if self.shared.lock().files.contains_key(&path) {
                    self.rename_from = Some(path);
                    "350 Ready for RNTO\r\n".into()
                } else {
                    format!("550 {arg}: No such file\r\n")
                }
            }
            "RNTO" => match self.rename_from.take() {
                Some(from) => {
                    let mut st = self.shared.lock();
                    match st.files.remove(&from) {
                        Some(e) => {
                            st.files.insert(path, e);
                            "250 Rename successful\r\n".into()
                        }
                        None => "550 Rename failed\r\n".into(),
                    }
                }
                None => "503 RNFR first\r\n".into(),
            },
            "SITE" => "200 SITE command ok\r\n".into(),
            "NOOP" => "200 NOOP ok\r\n".into(),
            "ABOR" => {
                self.data = None;
                "225 No transfer to abort\r\n".into()
            }
            "QUIT" => {
                self.send("221 Goodbye\r\n")?;
                self.lingering_close();
                return Ok(Next::Closed);
            }
            _ => format!("500 {}: command not understood\r\n", cmd.name),
        };
        self.send(reply)?;
        Ok(Next::Continue)
    }

    /// `EPRT`/`PORT`: connects to the client at once and answers `200`, or `425`.
    fn connect_back(&mut self, to: SocketAddr) -> String {
        self.data = None;
        match TcpStream::connect_timeout(&to, Duration::from_secs(5)) {
            Ok(s) => {
                self.data = Some(DataSetup::Active(self.new_record(s, false)));
                "200 PORT command successful\r\n".into()
            }
            Err(_) => "425 Cannot open data connection\r\n".into(),
        }
    }

    /// Starts the record of a new data connection and registers the stream.
    fn new_record(&self, s: TcpStream, passive: bool) -> DataStream {
        let mut st = self.shared.lock();
        let (n, key) = if st.gen == self.gen {
            st.data.push(DataRecord {
                conn: self.id,
                passive,
                ..DataRecord::default()
            });
            (st.data.len() - 1, register(&mut st, &s))
        } else {
            (usize::MAX, 0)
        };
        DataStream {
            s,
            n,
            key,
            shared: self.shared.clone(),
        }
    }

    /// Answers `425` when no `EPSV`, `PASV`, `EPRT` or `PORT` came first; false then.
    fn data_ready(&mut self) -> io::Result<bool> {
        if self.data.is_some() {
            return Ok(true);
        }
        self.send("425 Use EPSV, PASV, EPRT or PORT first\r\n")?;
        Ok(false)
    }

    /// The data connection for a transfer command: accepted (passive) or the one made
    /// at `PORT` time. Writes `425` and returns None when the client does not connect.
    fn open_data(&mut self, cmd: &Command) -> io::Result<Option<DataStream>> {
        let got = match self.data.take() {
            None => None,
            Some(DataSetup::Active(d)) => Some(d),
            Some(DataSetup::Passive(l)) => {
                let timeout = self.shared.lock().data_timeout;
                let deadline = Instant::now() + timeout;
                l.set_nonblocking(true)?;
                let mut got = None;
                while got.is_none() && Instant::now() < deadline && !self.cancelled() {
                    match l.accept() {
                        Ok((s, _)) => got = Some(s),
                        Err(e) if retryable(&e) => thread::sleep(Duration::from_millis(5)),
                        Err(_) => break,
                    }
                }
                match got {
                    Some(s) => {
                        s.set_nonblocking(false)?;
                        Some(self.new_record(s, true))
                    }
                    None => None,
                }
            }
        };
        match got {
            Some(d) => {
                if let Some(r) = self.shared.lock().data.get_mut(d.n) {
                    r.command = cmd.line.clone();
                }
                Ok(Some(d))
            }
            None => {
                self.send("425 Cannot open data connection\r\n")?;
                Ok(None)
            }
        }
    }

    fn retr(&mut self, cmd: &Command, path: &str) -> io::Result<Next> {
        let entry = self.shared.lock().files.get(path).cloned();
        let Some(entry) = entry else {
            self.send(format!("550 {}: No such file or directory\r\n", cmd.arg))?;
            return Ok(Next::Continue);
        };
        let from = (std::mem::take(&mut self.rest) as usize).min(entry.data.len());
        let data = &entry.data[from..];
        let announce = self.shared.lock().transfer.announce_size;
        let mode = if self.binary { "BINARY" } else { "ASCII" };
        let size = if announce {
            format!(" ({} bytes)", data.len())
        } else {
            String::new()
        };
        let opening = format!(
            "150 Opening {mode} mode data connection for {}{size}\r\n",
            cmd.arg
        );
        self.download(cmd, data, &opening)
    }

    fn list(&mut self, cmd: &Command) -> io::Result<Next> {
        // Options such as `-a` are ignored; what follows them names the path.
        let target = cmd
            .arg
            .split(' ')
            .filter(|w| !w.is_empty() && !w.starts_with('-'))
            .collect::<Vec<_>>()
            .join(" ");
        let path = normalize(&self.cwd, &target);
        let text = self.shared.lock().list(&path, cmd.name == "LIST");
        match text {
            Some(t) => self.download(cmd, &t, "150 Here comes the directory listing\r\n"),
            None => {
                self.send(format!("550 {target}: No such file or directory\r\n"))?;
                Ok(Next::Continue)
            }
        }
    }

    /// Sends `data` over the data connection as the [`Transfer`] setting says.
    fn download(&mut self, cmd: &Command, data: &[u8], opening: &str) -> io::Result<Next> {
        if !self.data_ready()? {
            return Ok(Next::Continue);
        }
        self.send(opening)?;
        let Some(mut d) = self.open_data(cmd)? else {
            return Ok(Next::Continue);
        };
        let t = self.shared.lock().transfer.clone();
        let final_reply = t
            .final_reply
            .clone()
            .unwrap_or_else(|| b"226 Transfer complete\r\n".to_vec());
        let data = &data[..t.limit.map_or(data.len(), |l| (l as usize).min(data.len()))];
        let mut final_sent = false;
        if t.final_at == FinalAt::BeforeData {
            self.send(&final_reply)?;
            final_sent = true;
        }
        let piece = if t.piece == 0 { usize::MAX } else { t.piece };
        let mut sent = 0usize;
        let mut failed = false;
        loop {
            if let FinalAt::AfterBytes(k) = t.final_at {
                if !final_sent && sent as u64 >= k {
                    self.send(&final_reply)?;
                    final_sent = true;
                }
            }
            if sent == data.len() {
                break;
            }
            if sent > 0 && t.piece > 0 && !self.nap(t.delay) {
                return Ok(Next::Closed);
            }
            // A piece ends where the final reply is due, so it goes out exactly there.
            let mut end = sent.saturating_add(piece).min(data.len());
            if let FinalAt::AfterBytes(k) = t.final_at {
                if !final_sent && (k as usize) > sent {
                    end = end.min(k as usize);
                }
            }
            if d.s.write_all(&data[sent..end]).is_err() {
                failed = true;
                break;
            }
            sent = end;
            if let Some(r) = self.shared.lock().data.get_mut(d.n) {
                r.sent = sent as u64;
            }
        }
        drop(d);
        if failed && !final_sent {
            self.send("426 Connection closed; transfer aborted\r\n")?;
        } else if !final_sent && t.final_at != FinalAt::Never {
            self.send(&final_reply)?;
        }
        Ok(Next::Continue)
    }

    /// `STOR`/`APPE`: reads the data connection to its end into the tree.
    fn store(&mut self, cmd: &Command, path: &str) -> io::Result<Next> {
        let parent = normalize(path, "..");
        if !self.shared.lock().is_dir(&parent) || path == "/" {
            self.send(format!("553 {}: Cannot create file\r\n", cmd.arg))?;
            return Ok(Next::Continue);
        }
        if !self.data_ready()? {
            return Ok(Next::Continue);
        }
        self.send("150 Ok to send data\r\n")?;
        let Some(mut d) = self.open_data(cmd)? else {
            return Ok(Next::Continue);
        };
        let _ = d.s.set_read_timeout(Some(Duration::from_millis(100)));
        let mut got = Vec::new();
        let mut tmp = [0u8; 16384];
        let complete = loop {
            if self.cancelled() {
                break false;
            }
            match d.s.read(&mut tmp) {
                Ok(0) => break true,
                Ok(k) => {
                    got.extend_from_slice(&tmp[..k]);
                    if let Some(r) = self.shared.lock().data.get_mut(d.n) {
                        r.received.extend_from_slice(&tmp[..k]);
                    }
                }
                Err(e) if retryable(&e) => {}
                Err(_) => break false,
            }
        };
        drop(d);
        if !complete && self.cancelled() {
            return Ok(Next::Closed);
        }
        let rest = std::mem::take(&mut self.rest) as usize;
        {
            let mut st = self.shared.lock();
            let old = st
                .files
                .get(path)
                .map(|e| e.data.clone())
                .unwrap_or_default();
            let mut content = if cmd.name == "APPE" {
                old
            } else {
                old[..rest.min(old.len())].to_vec()
            };
            content.extend_from_slice(&got);
            // Stamped with the time of the upload, as a real server's file system would.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64);
            let entry = Entry {
                data: content,
                mtime: Some(now),
            };
            st.files.insert(path.to_string(), entry);
            if st.gen == self.gen {
                st.uploads.insert(path.to_string(), got);
            }
        }
        self.send("226 Transfer complete\r\n")?;
        Ok(Next::Continue)
    }
}

/// `h1,h2,h3,h4,p1,p2` as `PORT` sends it.
fn parse_port(arg: &str) -> Option<SocketAddr> {
    let n: Vec<u8> = arg
        .trim()
        .split(',')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    if n.len() != 6 {
        return None;
    }
    let ip = Ipv4Addr::new(n[0], n[1], n[2], n[3]);
    Some(SocketAddr::from((
        ip,
        u16::from(n[4]) << 8 | u16::from(n[5]),
    )))
}

/// `|1|127.0.0.1|port|` or `|2|::1|port|` as `EPRT` sends it (any delimiter).
fn parse_eprt(arg: &str) -> Option<SocketAddr> {
    let d = arg.chars().next()?;
    let parts: Vec<&str> = arg.split(d).collect();
    if parts.len() != 5 {
        return None;
    }
    let port: u16 = parts[3].parse().ok()?;
    let ip = match parts[1] {
        "1" => IpAddr::V4(parts[2].parse::<Ipv4Addr>().ok()?),
        "2" => IpAddr::V6(parts[2].parse::<Ipv6Addr>().ok()?),
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_arguments_parse() {
        assert_eq!(
            parse_port("127,0,0,1,4,1"),
            Some(SocketAddr::from(([127, 0, 0, 1], 1025)))
        );
        assert_eq!(parse_port("127,0,0,1,4"), None);
        assert_eq!(
            parse_eprt("|2|::1|2121|"),
            Some(SocketAddr::from((Ipv6Addr::LOCALHOST, 2121)))
        );
        assert_eq!(
            parse_eprt("!1!127.0.0.1!80!"),
            Some(SocketAddr::from(([127, 0, 0, 1], 80)))
        );
        assert_eq!(parse_eprt("|3|x|1|"), None);
    }
}
