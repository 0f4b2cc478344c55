//! Turning parsed options into transfers (curl's `tool_operate.c` and `config2setopts.c`):
//! one engine `Options` per URL, the output callbacks (stdout, `-o`, `-O`, `-D`, `-i`), the
//! verbose/trace writer, the progress meter, `-w`, and error reporting with curl's exit codes.

use std::fs::{File, OpenOptions};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxcurl_core::options::{FtpCcc, IpResolve, UseSsl};
use oxcurl_core::{Body, Callbacks, Code, Easy, Error, Info, InfoType, Multi, Options, ReadResult};

use crate::args::{Config, ContinueAt, DataKind, Global, Operation};
use crate::plan::{Plan, Step, Target};
use crate::progress::{Bar, Meter, ParallelMeter, XferProgress};
use crate::writeout::{self, WriteoutContext};

/// The tool's receive buffer (curl's tool default, 100 KiB).
const TOOL_BUFFER_SIZE: usize = 100 * 1024;

/// An upload source: reader, size when known, path for rewinding.
type Upload = (Box<dyn io::Read + Send>, Option<u64>, Option<PathBuf>);

/// Where stderr output goes (`--stderr`).
pub type ErrOut = Arc<Mutex<Box<dyn Write + Send>>>;

/// The `--trace`/`--trace-ascii` file: curl creates it once, on first use, and every
/// transfer of the run writes on after the ones before.
fn trace_file(path: &str) -> Option<ErrOut> {
    static OPEN: Mutex<Option<(String, ErrOut)>> = Mutex::new(None);
    let mut open = OPEN.lock().ok()?;
    if let Some((p, f)) = open.as_ref() {
        if p == path {
            return Some(Arc::clone(f));
        }
    }
    let f: ErrOut = Arc::new(Mutex::new(Box::new(File::create(path).ok()?)));
    *open = Some((path.to_string(), Arc::clone(&f)));
    Some(f)
}

/// The tool's stdout, buffered: the bodies written there and, with `--stderr -` or
/// `--trace -`, the messages and the trace too (through [`StdoutThrough`]), in the order
/// they come, as curl writes them all to the one `FILE *`.
pub type StdoutBuffer = Arc<Mutex<io::BufWriter<io::Stdout>>>;

pub fn stdout_buffer() -> StdoutBuffer {
    Arc::new(Mutex::new(io::BufWriter::with_capacity(
        64 * 1024,
        io::stdout(),
    )))
}

/// A writer to the [`StdoutBuffer`], for the messages and the trace sent to stdout.
pub struct StdoutThrough(pub StdoutBuffer);

impl Write for StdoutThrough {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.0.lock() {
            Ok(mut o) => o.write(buf),
            Err(_) => Err(io::Error::other("stdout lock poisoned")),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self.0.lock() {
            Ok(mut o) => o.flush(),
            Err(_) => Err(io::Error::other("stdout lock poisoned")),
        }
    }
}

fn errout_write(e: &ErrOut, data: &[u8]) {
    if let Ok(mut w) = e.lock() {
        let _ = w.write_all(data);
        let _ = w.flush();
    }
}

/// Body output destination, opened on first write as curl does.
enum Sink {
    Stdout,
    /// Where curl's messages go (`-D %`).
    Err(ErrOut),
    File {
        path: PathBuf,
        append: bool,
        file: Option<File>,
        create_dirs: bool,
        /// `--no-clobber`: never overwrite; an existing name gets `.1` to `.99` added.
        no_clobber: bool,
        /// A name from the server (`-J`): an existing file is not overwritten unless
        /// `--clobber` was given.
        exclusive: bool,
        clobber_always: bool,
    },
}

struct Out {
    sink: Sink,
    stdout: Arc<Mutex<io::BufWriter<io::Stdout>>>,
    /// The output file could not be opened (curl's warning was printed).
    failed: Option<String>,
    /// Where curl's warnings go; None with `-s`.
    warn: Option<ErrOut>,
}

/// Whether stdout is a regular file.
fn stdout_is_file() -> bool {
    use std::os::fd::AsFd;
    io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|f| f.metadata())
        .is_ok_and(|m| m.is_file())
}

impl Out {
    fn write(&mut self, data: &[u8]) -> bool {
        match &mut self.sink {
            Sink::Stdout => match self.stdout.lock() {
                Ok(mut o) => o.write_all(data).is_ok(),
                Err(_) => false,
            },
            Sink::Err(e) => {
                errout_write(e, data);
                true
            }
            Sink::File {
                path,
                append,
                file,
                create_dirs,
                no_clobber,
                exclusive,
                clobber_always,
            } => {
                if file.is_none() {
                    if *create_dirs {
                        if let Some(parent) = path.parent() {
                            let _ = std::fs::create_dir_all(parent);
                        }
                    }
                    // curl names the file as asked for, not its last numbered try.
                    let asked = path.clone();
                    let f = if *append {
                        OpenOptions::new().append(true).create(true).open(&*path)
                    } else if *no_clobber {
                        open_no_clobber(path)
                    } else if *exclusive && !*clobber_always {
                        OpenOptions::new().write(true).create_new(true).open(&*path)
                    } else {
                        File::create(&*path)
                    };
                    match f {
                        Ok(f) => *file = Some(f),
                        Err(e) => {
                            let w = format!(
                                "Failed to open the file {}: {}",
                                asked.display(),
                                oxcurl_core::connect::os_error_text(&e)
                            );
                            if let Some(dest) = &self.warn {
                                errout_write(dest, crate::args::warning_text(&w).as_bytes());
                            }
                            self.failed = Some(w);
                            return false;
                        }
                    }
                }
                file.as_mut().is_some_and(|f| f.write_all(data).is_ok())
            }
        }
    }

    /// Make sure an (empty) output file exists after a successful transfer.
    fn finish(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout => self.stdout.lock().map(|mut o| o.flush()).unwrap_or(Ok(())),
            Sink::Err(_) => Ok(()),
            Sink::File { file: Some(f), .. } => f.flush(),
            Sink::File { file: None, .. } => {
                if self.write(b"") {
                    Ok(())
                } else {
                    Err(io::Error::other("open failed"))
                }
            }
        }
    }
}

/// curl's `tool_create_output_file` with `--no-clobber`: create the file exclusively; while
/// the name exists (or is a directory) try `NAME.1` up to `NAME.99`. `path` ends as the
/// last name tried, which `%{filename_effective}` shows.
fn open_no_clobber(path: &mut PathBuf) -> io::Result<File> {
    let create = |p: &Path| OpenOptions::new().write(true).create_new(true).open(p);
    let base = path.as_os_str().to_os_string();
    let mut r = create(path);
    let mut n = 1;
    while n < 100 {
        match &r {
            Err(e)
                if e.kind() == io::ErrorKind::AlreadyExists
                    || e.kind() == io::ErrorKind::IsADirectory => {}
            _ => break,
        }
        let mut name = base.clone();
        name.push(format!(".{n}"));
        *path = PathBuf::from(name);
        r = create(path);
        n += 1;
    }
    r
}

/// `--xattr` (curl's `tool_xattr.c`): the Content-Type as `user.mime_type`, the URL without
/// its credentials as `user.xdg.origin.url`, and `user.creator` set to `curl`.
fn write_xattrs(f: &File, url: &str, content_type: Option<&str>) -> io::Result<()> {
    use rustix::fs::{fsetxattr, XattrFlags};
    let set = |name: &str, value: &str| {
        fsetxattr(f, name, value.as_bytes(), XattrFlags::empty()).map_err(io::Error::from)
    };
    if let Some(ct) = content_type {
        set("user.mime_type", ct)?;
    }
    let flags = oxcurl_urlapi::Flags {
        guess_scheme: true,
        non_support_scheme: true,
        ..Default::default()
    };
    let origin = oxcurl_urlapi::Url::parse(url, flags)
        .and_then(|mut u| {
            u.set(oxcurl_urlapi::Part::User, None, Default::default())?;
            u.set(oxcurl_urlapi::Part::Password, None, Default::default())?;
            u.get(oxcurl_urlapi::Part::Url, Default::default())
        })
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    set("user.xdg.origin.url", &origin)?;
    set("user.creator", "curl")
}

/// `-R`: the file's access and modification times become the response's Last-Modified.
fn set_remote_time(path: &Path, info: &Info) {
    // A file:// document's time comes without a header.
    let t = match info.filetime {
        Some(t) => t,
        None => {
            let Some(lm) = info
                .last_headers()
                .find(|h| h.name().eq_ignore_ascii_case("Last-Modified"))
            else {
                return;
            };
            let Ok(t) = oxcurl_core::parsedate::parsedate(lm.value().trim().as_bytes()) else {
                return;
            };
            t
        }
    };
    let when = if t >= 0 {
        std::time::UNIX_EPOCH + Duration::from_secs(t as u64)
    } else {
        std::time::UNIX_EPOCH - Duration::from_secs(t.unsigned_abs())
    };
    if let Ok(f) = OpenOptions::new().write(true).open(path) {
        let times = std::fs::FileTimes::new()
            .set_accessed(when)
            .set_modified(when);
        let _ = f.set_times(times);
    }
}

/// Verbose / trace output (curl's `tool_cb_dbg.c`).
struct Tracer {
    dest: ErrOut,
    mode: TraceMode,
    time: bool,
    /// `--trace-ids`, and the transfer's and connection's ids now (-1: none yet).
    ids: bool,
    ids_now: (i64, i64),
    /// Data markers are shown unless the body goes to a terminal on stdout.
    show_data: bool,
}

/// curl's `traced_data` in `tool_debug_cb`: a `[N bytes data]` marker was written since the
/// last text or header line. One flag for the whole run, as curl's is a static: with `-Z`,
/// the transfers' data share it.
static TRACED_DATA: AtomicBool = AtomicBool::new(false);

#[derive(Clone, Copy, PartialEq, Eq)]
enum TraceMode {
    Verbose,
    Ascii,
    Hex,
}

impl Tracer {
    /// What starts each trace line: the time (`--trace-time`), then `[XFER-CONN] `
    /// (`--trace-ids`, `x` for a connection not known yet).
    fn stamp(&self) -> String {
        let mut out = String::new();
        if self.time {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            let secs = now.as_secs() % 86400;
            out = format!(
                "{:02}:{:02}:{:02}.{:06} ",
                secs / 3600,
                (secs / 60) % 60,
                secs % 60,
                now.subsec_micros()
            );
        }
        if self.ids && self.ids_now.0 >= 0 {
            match self.ids_now {
                (x, c) if c >= 0 => out.push_str(&format!("[{x}-{c}] ")),
                (x, _) => out.push_str(&format!("[{x}-x] ")),
            }
        }
        out
    }

    fn emit(&mut self, kind: InfoType, data: &[u8]) {
        let mut out = Vec::with_capacity(data.len() + 32);
        match self.mode {
            TraceMode::Verbose => self.verbose(kind, data, &mut out),
            TraceMode::Ascii | TraceMode::Hex => self.dump(kind, data, &mut out),
        }
        errout_write(&self.dest, &out);
    }

    fn verbose(&mut self, kind: InfoType, data: &[u8], out: &mut Vec<u8>) {
        let ts = self.stamp();
        match kind {
            InfoType::Text => {
                out.extend_from_slice(ts.as_bytes());
                out.extend_from_slice(b"* ");
                out.extend_from_slice(data);
            }
            InfoType::HeaderOut | InfoType::HeaderIn => {
                let p: &[u8] = if kind == InfoType::HeaderOut {
                    b"> "
                } else {
                    b"< "
                };
                let mut rest = data;
                while !rest.is_empty() {
                    let end = rest
                        .iter()
                        .position(|&b| b == b'\n')
                        .map(|i| i + 1)
                        .unwrap_or(rest.len());
                    out.extend_from_slice(ts.as_bytes());
                    out.extend_from_slice(p);
                    out.extend_from_slice(&rest[..end]);
                    rest = &rest[end..];
                }
            }
            InfoType::DataOut | InfoType::DataIn | InfoType::SslDataOut | InfoType::SslDataIn => {
                // One marker for a run of data: the next text or header line allows another.
                if self.show_data && !TRACED_DATA.swap(true, Ordering::Relaxed) {
                    let c = if matches!(kind, InfoType::DataOut | InfoType::SslDataOut) {
                        '}'
                    } else {
                        '{'
                    };
                    out.extend_from_slice(
                        format!("{ts}{c} [{} bytes data]\n", data.len()).as_bytes(),
                    );
                }
                return;
            }
        }
        TRACED_DATA.store(false, Ordering::Relaxed);
    }

    fn dump(&mut self, kind: InfoType, data: &[u8], out: &mut Vec<u8>) {
        let ts = self.stamp();
        let text = match kind {
            InfoType::Text => {
                out.extend_from_slice(format!("{ts}== Info: ").as_bytes());
                out.extend_from_slice(data);
                return;
            }
            InfoType::HeaderOut => "=> Send header",
            InfoType::DataOut => "=> Send data",
            InfoType::HeaderIn => "<= Recv header",
            InfoType::DataIn => "<= Recv data",
            InfoType::SslDataIn => "<= Recv SSL data",
            InfoType::SslDataOut => "=> Send SSL data",
        };
        let ascii = self.mode == TraceMode::Ascii;
        out.extend_from_slice(
            format!("{ts}{text}, {} bytes (0x{:x})\n", data.len(), data.len()).as_bytes(),
        );
        let width = if ascii { 0x40 } else { 0x10 };
        let nohex = ascii;
        let mut i = 0;
        while i < data.len() {
            out.extend_from_slice(format!("{i:04x}: ").as_bytes());
            if !nohex {
                for c in 0..width {
                    if i + c < data.len() {
                        out.extend_from_slice(format!("{:02x} ", data[i + c]).as_bytes());
                    } else {
                        out.extend_from_slice(b"   ");
                    }
                }
            }
            let mut c = 0;
            while c < width && i + c < data.len() {
                let b = data[i + c];
                if nohex && i + c + 1 < data.len() && b == b'\r' && data[i + c + 1] == b'\n' {
                    i += 2; // the CRLF ends the line and is not shown
                    break;
                }
                out.push(if (0x20..0x7f).contains(&b) { b } else { b'.' });
                if nohex
                    && i + c + 2 < data.len()
                    && data[i + c + 1] == b'\r'
                    && data[i + c + 2] == b'\n'
                {
                    i += 2;
                    c += 1;
                    break;
                }
                c += 1;
            }
            out.push(b'\n');
            i += c;
        }
    }
}

/// The engine's callbacks for one URL.
struct ToolCallbacks {
    out: Out,
    headers: Option<Out>,
    upload: Option<Box<dyn io::Read + Send>>,
    upload_path: Option<PathBuf>,
    tracer: Option<Tracer>,
    meter: Option<(Meter, ErrOut)>,
    /// The `-#` bar instead of the meter.
    bar: Option<(Bar, ErrOut)>,
    /// With `-Z`: where the combined meter reads this transfer's progress.
    xfer: Option<SharedProgress>,
    /// With `--fail`, the body of an error response is not written.
    wrote: u64,
    /// Body bytes written (curl's `outs->bytes`: `-i` header lines not counted): a retry
    /// starts the output file over only when there are some.
    body_bytes: u64,
    /// `-J` still waiting for a Content-Disposition name: the `--output-dir` to put it in.
    cd_pending: Option<Option<String>>,
    /// A Content-Disposition line without a usable name was seen: curl opened the output
    /// file under the URL's name then, so a later name is too late (a write error).
    cd_opened: bool,
    /// The status code of the response whose headers are arriving.
    code: u32,
    /// `-i` with `-J`: the length of the header line the engine writes next, and the
    /// header lines held back until the output file's name is known.
    echo: Option<usize>,
    held: Vec<u8>,
    include: bool,
    /// The engine reported progress: the meter has something to finish.
    progressed: bool,
    /// Where an appending output file started (`-C`), for a retry to go back to.
    resume_from: u64,
    /// `--etag-save`: the file that gets the ETag of a 2xx or 3xx response.
    etag_save: Option<PathBuf>,
}

impl ToolCallbacks {
    /// curl's `content_disposition` for `-J`; returns false to fail the transfer.
    fn content_disposition(&mut self, line: &[u8]) -> bool {
        let Some(dir) = &self.cd_pending else {
            return true;
        };
        if self.code / 100 != 2 && self.code / 100 != 3 {
            return true;
        }
        if !crate::output::is_content_disposition(line) {
            return true;
        }
        let name = match crate::output::content_disposition_filename(line) {
            // curl creates the file under the URL's name and keeps looking.
            None | Some(None) => {
                self.cd_opened = true;
                let held = std::mem::take(&mut self.held);
                return self.out.write(&held);
            }
            Some(Some(_)) if self.cd_opened => return false,
            Some(Some(n)) => n,
        };
        let name = std::ffi::OsString::from(String::from_utf8_lossy(&name).into_owned());
        let path = match dir {
            // curl joins with a slash whatever the name is.
            Some(d) => {
                let mut p = std::ffi::OsString::from(format!("{d}/"));
                p.push(&name);
                PathBuf::from(p)
            }
            None => PathBuf::from(name),
        };
        self.cd_pending = None;
        if let Sink::File {
            path: p, exclusive, ..
        } = &mut self.out.sink
        {
            *p = path;
            *exclusive = true;
        }
        // curl creates the file right away and writes the held headers into it.
        let held = std::mem::take(&mut self.held);
        self.out.write(&held)
    }
}

impl Callbacks for ToolCallbacks {
    fn write(&mut self, data: &[u8]) -> usize {
        let echo = self.echo.take() == Some(data.len());
        if echo && self.cd_pending.is_some() {
            // A header line for -i while -J still waits for the file's name.
            self.held.extend_from_slice(data);
            return data.len();
        }
        if !self.held.is_empty() {
            let held = std::mem::take(&mut self.held);
            if !self.out.write(&held) {
                return oxcurl_core::options::WRITEFUNC_ERROR;
            }
        }
        if self.out.write(data) {
            self.wrote += data.len() as u64;
            if !echo {
                self.body_bytes += data.len() as u64;
            }
            data.len()
        } else if self.out.failed.is_some() {
            oxcurl_core::options::WRITEFUNC_ERROR
        } else {
            0
        }
    }
    fn header(&mut self, line: &[u8]) -> usize {
        if let Some(h) = &mut self.headers {
            if !h.write(line) {
                return 0;
            }
        }
        if line.starts_with(b"HTTP/") {
            self.code = line
                .split(|&b| b == b' ')
                .nth(1)
                .and_then(|c| std::str::from_utf8(c).ok())
                .and_then(|c| c.trim().parse().ok())
                .unwrap_or(0);
        }
        let wanted = self.code / 100 == 2 || self.code / 100 == 3;
        if let (Some(f), true) = (&self.etag_save, wanted) {
            if line.len() >= 5 && line[..5].eq_ignore_ascii_case(b"etag:") {
                if let Some(v) = crate::output::etag_value(line) {
                    // Only the latest ETag stays in the file.
                    let mut data = v.to_vec();
                    data.push(b'\n');
                    if f.as_os_str() == "-" {
                        // curl truncates stdout first, which fails unless it is a file.
                        if !stdout_is_file() {
                            return oxcurl_core::options::WRITEFUNC_ERROR;
                        }
                        if let Ok(mut o) = self.out.stdout.lock() {
                            let _ = o.write_all(&data);
                        }
                    } else {
                        let _ = std::fs::write(f, data);
                    }
                }
                if self.include {
                    self.echo = Some(line.len());
                }
                return line.len();
            }
        }
        if !self.content_disposition(line) {
            return oxcurl_core::options::WRITEFUNC_ERROR;
        }
        if self.include {
            self.echo = Some(line.len());
        }
        line.len()
    }
    fn read(&mut self, buf: &mut [u8]) -> ReadResult {
        match &mut self.upload {
            Some(r) => loop {
                match r.read(buf) {
                    Ok(n) => return ReadResult::Data(n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => return ReadResult::Abort,
                }
            },
            None => ReadResult::Data(0),
        }
    }
    fn rewind(&mut self) -> bool {
        match &self.upload_path {
            Some(p) => match File::open(p) {
                Ok(f) => {
                    self.upload = Some(Box::new(f));
                    true
                }
                Err(_) => false,
            },
            // Standard input goes back to its start when it is a file (curl's seek callback
            // calls lseek on it); a pipe cannot.
            None => self.upload.is_some() && stdin_rewind(),
        }
    }
    fn debug(&mut self, kind: InfoType, data: &[u8]) {
        if let Some(t) = &mut self.tracer {
            t.emit(kind, data);
        }
    }
    fn debug_ids(&mut self, xfer_id: i64, conn_id: i64) {
        if let Some(t) = &mut self.tracer {
            t.ids_now = (xfer_id, conn_id);
        }
    }
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
    fn progress(&mut self, dltotal: u64, dlnow: u64, ultotal: u64, ulnow: u64) -> bool {
        self.progressed = true;
        if let Some(x) = &self.xfer {
            if let Ok(mut x) = x.lock() {
                x.dl_total = dltotal;
                x.dl_now = dlnow;
                x.ul_total = ultotal;
                x.ul_now = ulnow;
            }
        }
        if let Some((b, dest)) = &mut self.bar {
            let mut buf = Vec::new();
            let _ = b.update(Instant::now(), dltotal, dlnow, ultotal, ulnow, &mut buf);
            if !buf.is_empty() {
                errout_write(dest, &buf);
            }
        }
        if let Some((m, dest)) = &mut self.meter {
            let mut buf = Vec::new();
            let dt = (dltotal > 0).then_some(dltotal);
            let ut = (ultotal > 0).then_some(ultotal);
            let _ = m.update(Instant::now(), dt, dlnow, ut, ulnow, &mut buf);
            if !buf.is_empty() {
                errout_write(dest, &buf);
            }
        }
        true
    }
}

/// One URL ready to run: its transfer, or the error that stopped it before it started.
struct Job {
    easy: Result<Easy, Error>,
    meta: JobMeta,
}

/// Run everything; returns the exit code.
pub fn run(cfg: Config, errout: ErrOut, stdout: StdoutBuffer) -> i32 {
    let g = cfg.global.clone();
    if cfg.ops.iter().all(|op| op.urls.is_empty()) {
        errout_write(&errout, b"curl: (2) no URL specified\n");
        errout_write(
            &errout,
            b"curl: try 'curl --help' or 'curl --manual' for more information\n",
        );
        return 2;
    }
    let mut multi = match Multi::new() {
        Ok(m) => m,
        Err(_) => return Code::FailedInit as i32,
    };
    let mut last = 0;
    // An error in setting up a transfer (a bad glob, an empty output name) ends the run
    // once the running transfers are done, with its code.
    let mut stop: Option<Code> = None;
    let mut performed = false;
    let par = if g.parallel { g.parallel_max.max(1) } else { 1 };
    // Transfers are set up one at a time as curl does: in serial mode once the previous
    // one is done, with -Z one ahead of those running.
    let ahead = usize::from(g.parallel);
    let mut plan = Plan::new(&cfg);
    let mut running: Vec<(oxcurl_core::TransferId, JobMeta)> = Vec::new();
    let mut pending: std::collections::VecDeque<(Easy, JobMeta)> = Default::default();
    // Set up but never run: reported failed with the stop code at the end.
    let mut leftovers: Vec<JobMeta> = Vec::new();
    // When the last serial transfer started, for --rate.
    let mut last_start: Option<Instant> = None;
    let mut pmeter = parallel_meter(&g).then(|| ParallelMeter::new(Instant::now()));
    let mut all_xfers = 0u64;
    let mut scratch = Vec::new();
    // -Z retries waiting for their time, soonest first; the others keep running meanwhile.
    let mut sleeping: Vec<(Instant, Box<JobMeta>)> = Vec::new();
    // A transfer got past the etag and header files: without one, curl says "no transfer
    // performed" (26).
    let mut tried = false;
    // A header file that cannot be opened ends everything (curl reports the code).
    let mut fatal: Option<Code> = None;
    loop {
        // Retries whose time has come start before anything new, as curl adds its
        // transfers in list order and a retry keeps its place.
        let now = Instant::now();
        let due = sleeping.iter().take_while(|(at, _)| *at <= now).count();
        for (_, meta) in sleeping.drain(..due).rev() {
            let op = &cfg.ops[meta.op];
            match retry_job(&g, op, &meta, &stdout, &errout) {
                Ok(job) => pending.push_front(job),
                Err(code) => last = code,
            }
        }
        while stop.is_none() && running.len() + pending.len() < par + ahead {
            let Some(step) = plan.next() else { break };
            let target = match step {
                Step::Transfer(t) => t,
                Step::GlobError(text) => {
                    if !g.silent || g.show_error {
                        errout_write(&errout, &text);
                    }
                    stop = Some(Code::UrlMalformat);
                    break;
                }
                Step::MoreOutputs => {
                    if !g.silent {
                        let w = crate::args::warning_text("Got more output options than URLs");
                        errout_write(&errout, w.as_bytes());
                    }
                    continue;
                }
                Step::NoUrl => {
                    errout_write(
                        &errout,
                        b"curl: (2) no URL specified\n\
                          curl: try 'curl --help' or 'curl --manual' for more information\n",
                    );
                    stop = Some(Code::FailedInit);
                    break;
                }
                Step::EmptyOutput(t) => {
                    if !g.silent {
                        let w = crate::args::warning_text("output glob produces empty string");
                        errout_write(&errout, w.as_bytes());
                    }
                    leftovers.push(job_meta(&cfg.ops[t.op], &t, None, true));
                    stop = Some(Code::WriteError);
                    break;
                }
            };
            let op = &cfg.ops[target.op];
            match open_side_files(&g, op, &target, &errout) {
                Side::Ready => {}
                Side::SkipOperation => {
                    plan.skip_operation();
                    continue;
                }
                Side::Fatal(code) => {
                    stop = Some(code);
                    fatal = Some(code);
                    break;
                }
            }
            tried = true;
            // --skip-existing: an output file already there means no transfer (curl says
            // so when tracing); -w still reports it.
            if op.skip_existing {
                if let Some(p) = output_path(op, &target, || {}).filter(|p| p.exists()) {
                    if (g.verbose > 0 || g.trace.is_some()) && !g.silent {
                        let n = format!("skips transfer, \"{}\" exists locally", p.display());
                        errout_write(&errout, crate::args::note_text(&n).as_bytes());
                    }
                    let meta = job_meta(op, &target, Some(p.to_string_lossy().into_owned()), true);
                    conclude(&g, op, &meta, &Info::default(), Ok(()), &stdout, &errout);
                    continue;
                }
            }
            let job = build_job(&g, op, &target, &stdout, &errout);
            match job.easy {
                Ok(easy) => {
                    all_xfers += 1;
                    pending.push_back((easy, job.meta));
                    // -Z adds each transfer to the multi as it is set up (curl's
                    // add_parallel_transfers), so the queue holds one or two and does not
                    // keep room for --parallel-max set-ups (2 KiB each) for the whole run.
                    if g.parallel && running.len() < par {
                        if let Some((easy, meta)) = pending.pop_front() {
                            if g.rate_ms > 0 {
                                last_start = Some(Instant::now());
                            }
                            let id = multi.add(easy);
                            running.push((id, meta));
                        }
                    }
                }
                Err(e) => last = report(&g, &errout, &e),
            }
        }
        if stop.is_some() {
            // What is set up but not running never runs; curl -Z, giving up before it ran
            // anything, fails the transfers it had added too. In setup order.
            let mut never = Vec::new();
            if g.parallel && !performed {
                for (id, meta) in running.drain(..) {
                    let _ = multi.remove(id);
                    never.push(meta);
                }
            }
            never.extend(pending.drain(..).map(|(_, m)| m));
            never.extend(sleeping.drain(..).map(|(_, m)| *m));
            never.append(&mut leftovers);
            leftovers = never;
        }
        while running.len() < par && stop.is_none() {
            let Some((easy, meta)) = pending.pop_front() else {
                break;
            };
            // --rate: serial transfers start at most once per interval.
            if let (false, Some(t)) = (g.parallel, last_start) {
                let wait = Duration::from_millis(g.rate_ms).saturating_sub(t.elapsed());
                if !wait.is_zero() {
                    std::thread::sleep(wait);
                }
            }
            if g.rate_ms > 0 {
                last_start = Some(Instant::now());
            }
            let id = multi.add(easy);
            running.push((id, meta));
        }
        if running.is_empty() {
            match sleeping.first() {
                Some((at, _)) => {
                    // Only retries are left: wait for the first one.
                    std::thread::sleep(at.saturating_duration_since(Instant::now()));
                    continue;
                }
                None => break,
            }
        }
        performed = true;
        // curl draws after each pass, but its first pass only starts connecting while
        // ours can finish a loopback transfer: drawing before the pass shows the same.
        if let Some(m) = pmeter.as_mut() {
            let xfers = running.iter().map(|(_, meta)| (meta, true));
            let xfers = xfers.chain(pending.iter().map(|(_, meta)| (meta, false)));
            draw_parallel_meter(m, xfers, all_xfers, false, &mut scratch, &errout);
        }
        if let Err(e) = multi.perform() {
            errout_write(
                &errout,
                format!("curl: ({}) {e}\n", Code::UnrecoverablePoll as i32).as_bytes(),
            );
            return Code::UnrecoverablePoll as i32;
        }
        // curl's check_finished: the result of a pass is the error of a transfer that
        // failed in it, whatever succeeded in the same pass; the last pass's result is the
        // exit code.
        let mut failed_in_pass = false;
        while let Some(msg) = multi.info_read() {
            let Some(pos) = running.iter().position(|(id, _)| *id == msg.id) else {
                continue;
            };
            let (id, meta) = running.swap_remove(pos);
            if let (Some(m), Some(x)) = (pmeter.as_mut(), &meta.xfer) {
                if let Ok(mut x) = x.lock() {
                    m.finalize(&mut x);
                }
            }
            let (easy, info) = multi.remove(id).expect("finished transfer");
            let op = &cfg.ops[meta.op];
            match finish_job(&g, op, meta, easy, info, msg.result, &stdout, &errout) {
                Finished::Done(code) => {
                    if code != 0 {
                        last = code;
                        failed_in_pass = true;
                    } else if !failed_in_pass {
                        last = 0;
                    }
                }
                Finished::Retry(meta, delay) if g.parallel => {
                    let at = Instant::now()
                        + crate::retry::parallel_wait(delay, std::time::SystemTime::now());
                    let i = sleeping.partition_point(|(t, _)| *t <= at);
                    sleeping.insert(i, (at, meta));
                }
                Finished::Retry(meta, delay) => {
                    std::thread::sleep(delay);
                    // A retry does not wait for --rate.
                    last_start = None;
                    match retry_job(&g, op, &meta, &stdout, &errout) {
                        Ok(job) => pending.push_front(job),
                        Err(code) => last = code,
                    }
                }
            }
            if g.fail_early && last != 0 {
                break;
            }
        }
        if g.fail_early && last != 0 {
            // --fail-early: nothing more starts, what runs is dropped.
            break;
        }
        if running.is_empty() {
            // Room for the next transfer: go and set it up.
            continue;
        }
        if multi.running() > 0 {
            let wake = sleeping.first().map_or(Duration::from_secs(1), |(at, _)| {
                at.saturating_duration_since(Instant::now())
                    .min(Duration::from_secs(1))
            });
            if let Err(e) = multi.poll(wake) {
                errout_write(
                    &errout,
                    format!("curl: ({}) {e}\n", Code::UnrecoverablePoll as i32).as_bytes(),
                );
                return Code::UnrecoverablePoll as i32;
            }
        }
    }
    if let Some(code) = fatal {
        if !g.silent || g.show_error {
            let text = format!("curl: ({}) {}\n", code as i32, code.strerror());
            errout_write(&errout, text.as_bytes());
        }
    } else if !tried && stop.is_none() {
        if !g.silent {
            errout_write(&errout, b"curl: no transfer performed\n");
        }
        return Code::ReadError as i32;
    }
    // Nothing ran (a setup error came first): curl draws no meter at all.
    if let (Some(m), true) = (pmeter.as_mut(), performed) {
        let xfers = running.iter().map(|(_, meta)| (meta, true));
        let xfers = xfers.chain(pending.iter().map(|(_, meta)| (meta, false)));
        draw_parallel_meter(m, xfers, all_xfers, true, &mut scratch, &errout);
    }
    let _ = multi.save_hsts();
    let _ = multi.save_altsvc();
    let _ = multi.save_cookies();
    if let Some(code) = stop {
        for meta in leftovers {
            let op = &cfg.ops[meta.op];
            let e = Error::new(code, "");
            conclude(&g, op, &meta, &Info::default(), Err(e), &stdout, &errout);
        }
    }
    if let Ok(mut o) = stdout.lock() {
        let _ = o.flush();
    }
    stop.map_or(last, |c| c as i32)
}

/// A transfer set up again for a retry: from the start, keeping the retry count (-D
/// appends). The error code when it cannot be set up.
fn retry_job(
    g: &Global,
    op: &Operation,
    meta: &JobMeta,
    stdout: &Arc<Mutex<io::BufWriter<io::Stdout>>>,
    errout: &ErrOut,
) -> std::result::Result<(Easy, JobMeta), i32> {
    let target = Target {
        first_in_op: false,
        ..meta.target.clone()
    };
    let mut job = build_job(g, op, &target, stdout, errout);
    job.meta.retry = meta.retry;
    match job.easy {
        Ok(easy) => Ok((easy, job.meta)),
        Err(e) => Err(report(g, errout, &e)),
    }
}

/// What opening a transfer's side files gave.
enum Side {
    Ready,
    /// `--etag-save` cannot be written: curl warns and skips the rest of the operation.
    SkipOperation,
    /// `-D` cannot be written: curl stops everything with this code.
    Fatal(Code),
}

/// curl opens the `--etag-save` file (to append) and the `-D` file (emptied by the first
/// transfer of an operation) before each transfer, making their directories with
/// `--create-dirs`; both then exist even if nothing is written to them.
fn open_side_files(g: &Global, op: &Operation, target: &Target, errout: &ErrOut) -> Side {
    let make_dirs = |f: &str| {
        if op.create_dirs {
            if let Some(parent) = Path::new(f).parent().filter(|p| !p.as_os_str().is_empty()) {
                let _ = std::fs::create_dir_all(parent);
            }
        }
    };
    if let Some(f) = op.etag_save.as_deref().filter(|f| *f != "-") {
        make_dirs(f);
        if OpenOptions::new()
            .append(true)
            .create(true)
            .open(f)
            .is_err()
        {
            if !g.silent {
                let w =
                    format!("Failed creating file for saving etags: \"{f}\". Skip this transfer");
                errout_write(errout, crate::args::warning_text(&w).as_bytes());
            }
            return Side::SkipOperation;
        }
    }
    if let Some(d) = op.dump_header.as_deref().filter(|d| *d != "-" && *d != "%") {
        make_dirs(d);
        if target.first_in_op {
            let _ = File::create(d);
        }
        if OpenOptions::new()
            .append(true)
            .create(true)
            .open(d)
            .is_err()
        {
            if !g.silent {
                errout_write(
                    errout,
                    crate::args::error_text(&format!("Failed to open {d}")).as_bytes(),
                );
            }
            return Side::Fatal(Code::WriteError);
        }
    }
    Side::Ready
}

/// What `-w` and the error report need of a URL after its transfer.
struct JobMeta {
    url: String,
    urlnum: usize,
    op: usize,
    filename: Option<String>,
    fail_with_body: bool,
    /// The transfer as planned, to run it again on a retry.
    target: Target,
    /// The error is for -w only; curl prints no `curl: (N)` line for it.
    no_report: bool,
    retry: crate::retry::RetryState,
    /// The progress the `-Z` meter shows for it.
    xfer: Option<SharedProgress>,
}

/// Print `curl: (N) message` unless silenced; returns the exit code.
fn report(g: &Global, errout: &ErrOut, e: &Error) -> i32 {
    if !g.silent || g.show_error {
        errout_write(
            errout,
            format!("curl: ({}) {}\n", e.code as u32, e.message()).as_bytes(),
        );
        if e.code == Code::PeerFailedVerification {
            errout_write(errout, oxcurl_core::tls::CA_CERT_HELP.as_bytes());
        }
    }
    e.code as i32
}

/// What became of a finished transfer.
enum Finished {
    /// Reported; the exit code.
    Done(i32),
    /// To be run again after the delay (`--retry`).
    Retry(Box<JobMeta>, Duration),
}

/// curl's retry check after an attempt: on a retry, the attempt's error and the warning
/// are printed here and the wait is returned.
fn retry_decision(
    g: &Global,
    op: &Operation,
    meta: &mut JobMeta,
    info: &Info,
    result: &Result<(), Error>,
    errout: &ErrOut,
) -> Option<Duration> {
    use crate::retry::{decide, parse_retry_after, Decision, Outcome};
    if op.retry.retries == 0 {
        return None;
    }
    let retry_after = info
        .last_headers()
        .filter(|h| h.name().eq_ignore_ascii_case("Retry-After"))
        .last()
        .map_or(0, |h| {
            parse_retry_after(h.value(), oxcurl_core::parsedate::unix_now())
        });
    let scheme = info
        .effective_url
        .split_once("://")
        .map_or("", |(s, _)| s)
        .to_ascii_lowercase();
    let outcome = Outcome {
        code: result.as_ref().err().map(|e| e.code),
        message: result.as_ref().err().map_or("", |e| e.message()),
        fail_on_error: op.fail || op.fail_with_body,
        scheme: &scheme,
        response_code: info.response_code,
        retry_after,
    };
    match decide(&op.retry, &mut meta.retry, &outcome, Instant::now()) {
        Decision::Done => None,
        Decision::GiveUp(w) => {
            if !g.silent {
                errout_write(errout, crate::args::warning_text(&w).as_bytes());
            }
            None
        }
        Decision::Retry { warning, delay } => {
            if let Err(e) = result {
                report(g, errout, e);
            }
            if !g.silent {
                errout_write(errout, crate::args::warning_text(&warning).as_bytes());
            }
            Some(delay)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn finish_job(
    g: &Global,
    op: &Operation,
    mut meta: JobMeta,
    mut easy: Easy,
    info: Info,
    mut result: Result<(), Error>,
    stdout: &Arc<Mutex<io::BufWriter<io::Stdout>>>,
    errout: &ErrOut,
) -> Finished {
    if meta.fail_with_body && result.is_ok() && info.response_code >= 400 {
        result = Err(Error::new(
            Code::HttpReturnedError,
            format!("The requested URL returned error: {}", info.response_code),
        ));
    }
    let mut late_note = None;
    let mut bar_end: Option<(Vec<u8>, ErrOut)> = None;
    // Take the callbacks back out to close files and print the meter's last line.
    let mut callbacks = easy.take_callbacks();
    let th = callbacks
        .as_any_mut()
        .and_then(|a| a.downcast_mut::<ToolCallbacks>());
    if let Some(th) = th {
        if let (Some((b, dest)), true) = (&mut th.bar, th.progressed) {
            let mut buf = Vec::new();
            let dt = info.content_length_download.unwrap_or(0);
            let _ = b.update(
                Instant::now(),
                dt,
                info.size_download,
                0,
                info.size_upload,
                &mut buf,
            );
            errout_write(dest, &buf);
            // The newline that ends the bar comes after the transfer's error, as in curl.
            let mut end = Vec::new();
            let _ = b.finish(&mut end);
            bar_end = Some((end, Arc::clone(dest)));
        }
        if let (Some((m, dest)), true) = (&mut th.meter, th.progressed) {
            let mut buf = Vec::new();
            let dt = info.content_length_download;
            let _ = m.done(
                Instant::now(),
                dt,
                info.size_download,
                None,
                info.size_upload,
                &mut buf,
            );
            errout_write(dest, &buf);
        }
        // No empty file for a 304 (a time condition not met, simulated or from the
        // server): curl leaves what is there alone.
        let unmet = info.response_code == 304 && th.wrote == 0;
        // --xattr only labels a file the transfer wrote to, not one created empty after.
        let written = matches!(th.out.sink, Sink::File { file: Some(_), .. });
        if (result.is_ok() || th.wrote > 0) && !unmet && th.out.finish().is_err() && result.is_ok()
        {
            // curl creates the empty file after reporting errors: the failure only
            // shows in the exit code and -w.
            result = Err(Error::new(Code::WriteError, Code::WriteError.strerror()));
            meta.no_report = true;
        }
        if let Some(h) = &mut th.headers {
            let _ = h.finish();
        }
        if let Some(delay) = retry_decision(g, op, &mut meta, &info, &result, errout) {
            // The output file goes back to where this transfer started writing (empty, or
            // the resume offset with -C); the -D file keeps what it has and gets the new
            // headers appended.
            if let Sink::File {
                file: Some(f),
                append,
                path,
                ..
            } = &mut th.out.sink
            {
                meta.target.continue_output = Some(path.clone());
                if th.body_bytes > 0 {
                    // curl's notef: verbose and not silent.
                    if g.verbose > 0 && !g.silent {
                        let note = format!("Throwing away {} bytes", th.body_bytes);
                        errout_write(errout, crate::args::note_text(&note).as_bytes());
                    }
                    let _ = f.set_len(if *append { th.resume_from } else { 0 });
                }
            }
            return Finished::Retry(Box::new(meta), delay);
        }
        if let Sink::File { path, file, .. } = &mut th.out.sink {
            let f = file.take();
            let opened = f.is_some();
            if let (Some(f), true, true) = (&f, result.is_ok(), op.xattr && written) {
                if let Err(e) = write_xattrs(f, &meta.url, info.content_type.as_deref()) {
                    if !g.silent {
                        let w = format!(
                            "Error setting extended attributes on '{}': {}",
                            path.display(),
                            oxcurl_core::connect::os_error_text(&e)
                        );
                        errout_write(errout, crate::args::warning_text(&w).as_bytes());
                    }
                }
            }
            drop(f);
            if meta.filename.is_some() {
                // --no-clobber may have picked another name.
                meta.filename = Some(path.to_string_lossy().into_owned());
            }
            if opened && result.is_err() && op.remove_on_error {
                // curl's notef, shown only in verbose mode without -s.
                let removed = match std::fs::metadata(&*path) {
                    Ok(m) if m.is_file() => std::fs::remove_file(&*path).is_ok(),
                    _ => false,
                };
                if removed && g.verbose > 0 && !g.silent {
                    // Printed after the transfer's error, as in curl.
                    late_note = Some(format!("Removed output file: {}", path.display()));
                }
            }
            if opened && result.is_ok() && op.remote_time {
                set_remote_time(path, &info);
            }
        }
    }
    let code = conclude(g, op, &meta, &info, result, stdout, errout);
    if let Some((end, dest)) = bar_end {
        errout_write(&dest, &end);
    }
    if let Some(n) = late_note {
        errout_write(errout, crate::args::note_text(&n).as_bytes());
    }
    Finished::Done(code)
}

/// The end of a transfer, run or not: `-w` output, then the error message; returns the
/// exit code.
fn conclude(
    g: &Global,
    op: &Operation,
    meta: &JobMeta,
    info: &Info,
    result: Result<(), Error>,
    stdout: &Arc<Mutex<io::BufWriter<io::Stdout>>>,
    errout: &ErrOut,
) -> i32 {
    let code = match &result {
        Ok(()) => 0,
        Err(e) => e.code as i32,
    };
    if let Some(fmt) = &op.write_out {
        if let Ok(mut o) = stdout.lock() {
            let _ = o.flush();
        }
        let errmsg = match &result {
            Ok(()) => String::new(),
            Err(e) => e.message().to_string(),
        };
        let part = |u: &str, p: &str| url_part(u, p);
        let num_headers = info.last_headers().count();
        let ctx = WriteoutContext {
            info,
            exitcode: code,
            errormsg: &errmsg,
            filename_effective: meta.filename.as_deref(),
            url: &meta.url,
            urlnum: meta.urlnum,
            num_headers,
            num_retries: meta.retry.num_retries,
            proxy_used: false,
            ftp_entry_path: info.ftp_entry_path.as_deref(),
            curl_version: &oxcurl_core::version_line(),
            url_part: &part,
        };
        let mut so = Vec::new();
        let mut se = Vec::new();
        let _ = writeout::writeout(fmt, &ctx, &mut so, &mut se);
        if let Ok(mut o) = stdout.lock() {
            let _ = o.write_all(&so);
            let _ = o.flush();
        }
        errout_write(errout, &se);
    }
    match result {
        Ok(()) => 0,
        Err(e) => {
            if let Ok(mut o) = stdout.lock() {
                let _ = o.flush();
            }
            if meta.no_report {
                return e.code as i32;
            }
            report(g, errout, &e)
        }
    }
}

fn url_part(u: &str, part: &str) -> Option<String> {
    let flags = oxcurl_urlapi::Flags {
        guess_scheme: true,
        non_support_scheme: true,
        ..Default::default()
    };
    let url = oxcurl_urlapi::Url::parse(u, flags).ok()?;
    match part {
        "scheme" => Some(url.scheme().to_string()),
        "user" => url.user().map(str::to_string),
        "password" => url.password().map(str::to_string),
        "options" => url.options().map(str::to_string),
        "host" => Some(url.host().to_string()),
        "port" => Some(url.port_or_default().to_string()),
        "path" => Some(url.path().to_string()),
        "query" => url.query().map(str::to_string),
        "fragment" => url.fragment().map(str::to_string),
        "zoneid" => url.zone_id().map(str::to_string),
        _ => None,
    }
}

/// The first line of `-V`, as `%{json}`'s `curl_version` wants it (libcurl part only).
/// URL-encode all but unreserved characters, space as `+` (curl's `--data-urlencode`).
fn urlencode(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len() * 3);
    for &b in data {
        if b == b' ' {
            s.push('+');
        } else if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Assemble the POST data of all `-d`-style options (joined with `&`; `--json` pieces join
/// without a separator).
fn build_data(op: &Operation) -> Result<Option<Vec<u8>>, Error> {
    if op.data.is_empty() {
        return Ok(None);
    }
    let mut out: Vec<u8> = Vec::new();
    for (kind, arg, loaded) in &op.data {
        let piece: Vec<u8> = match kind {
            DataKind::Raw => arg.as_bytes().to_vec(),
            DataKind::Ascii | DataKind::Binary | DataKind::Json => {
                if let Some(f) = arg.strip_prefix('@') {
                    let mut d = match loaded {
                        Some(d) => d.clone(),
                        None => crate::args::read_arg_file(f).map_err(|_| {
                            Error::new(Code::ReadError, format!("Failed to open {f}"))
                        })?,
                    };
                    if *kind == DataKind::Ascii {
                        d = crate::args::file_to_string(&d);
                    }
                    d
                } else {
                    arg.as_bytes().to_vec()
                }
            }
            DataKind::UrlEncode => urlencode_piece(arg, loaded.as_deref())?,
        };
        // curl joins the pieces in one buffer and puts '&' only after something: an
        // empty first piece leaves no separator, an empty later one leaves two.
        if !out.is_empty() && *kind != DataKind::Json {
            out.push(b'&');
        }
        out.extend_from_slice(&piece);
    }
    Ok(Some(out))
}

/// The file name `-O` uses, curl's `get_url_file_name`: the last segment of the URL's
/// path as written (`/` or `\\` ends a segment); for a path ending in a slash, the segment
/// before it. None when the path has no slash left: curl then uses `curl_response`.
fn remote_name(url: &str) -> Option<String> {
    let flags = oxcurl_urlapi::Flags {
        guess_scheme: true,
        ..Default::default()
    };
    let parsed = oxcurl_urlapi::Url::parse(url, flags).ok()?;
    let mut path = parsed.path();
    for first in [true, false] {
        let slash = path.rfind('/');
        let after = slash.map_or(0, |i| i + 1);
        let cut = path[after..].rfind('\\').map(|i| after + i).or(slash);
        match cut {
            Some(i) if first && i + 1 == path.len() => path = &path[..i],
            Some(i) => return Some(path[i + 1..].to_string()),
            None => return None,
        }
    }
    None
}

/// curl's `add_file_name_to_url` for `-T`: a URL whose path ends in a slash (or has no
/// path) and has no query gets the upload file's name, URL-encoded, appended; the URL is
/// then written out again by the URL parser. A URL the parser refuses fails here, before
/// the file is opened, with curl's `urlerr_cvt` codes.
fn add_file_name_to_url(url: &str, file: &str) -> Result<String, Error> {
    use oxcurl_urlapi::{Flags, GetFlags, Part, Url};
    let flags = Flags {
        guess_scheme: true,
        non_support_scheme: true,
        ..Default::default()
    };
    let mut u = Url::parse(url, flags).map_err(urlerr_cvt)?;
    if u.query().is_some_and(|q| !q.is_empty()) {
        return Ok(url.to_string());
    }
    let path = u.path().to_string();
    let slash = path.rfind('/');
    if slash.is_some_and(|i| i + 1 < path.len()) {
        return Ok(url.to_string());
    }
    // The part of the local name right of the last slash or backslash.
    let after = file.rfind('/').map_or(0, |i| i + 1);
    let name = match file[after..].rfind('\\') {
        Some(i) => &file[after + i + 1..],
        None => &file[after..],
    };
    let mut newpath = path;
    if slash.is_none() {
        newpath.push('/');
    }
    for &b in name.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            newpath.push(b as char);
        } else {
            newpath.push_str(&format!("%{b:02x}"));
        }
    }
    u.set(Part::Path, Some(&newpath), Flags::default())
        .map_err(urlerr_cvt)?;
    u.get(Part::Url, GetFlags::default()).map_err(urlerr_cvt)
}

/// curl's `urlerr_cvt`: the tool's exit code for a URL the parser refused; the message is
/// the code's own (curl leaves its error buffer empty).
fn urlerr_cvt(e: oxcurl_urlapi::UrlError) -> Error {
    use oxcurl_urlapi::UrlError;
    let code = match e {
        UrlError::OutOfMemory => Code::OutOfMemory,
        UrlError::UnsupportedScheme => Code::UnsupportedProtocol,
        UrlError::LacksIdn => Code::NotBuiltIn,
        UrlError::BadHandle => Code::BadFunctionArgument,
        _ => Code::UrlMalformat,
    };
    Error::new(code, code.strerror())
}

/// curl's `append2query` for `-G`: the data joins the query through the URL parser, which
/// also writes the URL out again (as `%{url}` shows it).
/// One `--data-urlencode` (or `--url-query`) argument: `content`, `=content`,
/// `name=content`, `@file` or `name@file`, the content percent-encoded.
/// `loaded` is the file's contents when the parser already read them.
fn urlencode_piece(arg: &str, loaded: Option<&[u8]>) -> Result<Vec<u8>, Error> {
    use crate::args::UrlEncodeSource;
    let (name, source) = crate::args::urlencode_parts(arg);
    let from_file = matches!(source, UrlEncodeSource::File(_));
    let content = match (source, loaded) {
        (UrlEncodeSource::Text(t), _) => t.as_bytes().to_vec(),
        (UrlEncodeSource::File(_), Some(d)) => d.to_vec(),
        (UrlEncodeSource::File(f), None) => crate::args::read_arg_file(f)
            .map_err(|_| Error::new(Code::ReadError, format!("Failed to open {f}")))?,
    };
    // An empty file gives nothing at all, not even the name.
    if from_file && content.is_empty() {
        return Ok(Vec::new());
    }
    let mut p = Vec::new();
    if let Some(n) = name {
        p.extend_from_slice(n.as_bytes());
        p.push(b'=');
    }
    p.extend_from_slice(urlencode(&content).as_bytes());
    Ok(p)
}

fn append_query(url: &str, q: &str) -> Option<String> {
    use oxcurl_urlapi::{Flags, GetFlags, Part, Url};
    let flags = Flags {
        guess_scheme: true,
        ..Default::default()
    };
    let mut u = Url::parse(url, flags).ok()?;
    u.append_query(q, false).ok()?;
    u.get(Part::Url, GetFlags::default()).ok()
}

/// `with_url`: copy the target's URL (else the caller sets the URL as configured).
fn job_meta(op: &Operation, t: &Target, filename: Option<String>, with_url: bool) -> JobMeta {
    JobMeta {
        target: t.clone(),
        no_report: false,
        retry: crate::retry::RetryState::new(&op.retry, Instant::now()),
        url: if with_url {
            t.url.clone()
        } else {
            String::new()
        },
        urlnum: t.urlnum,
        op: t.op,
        filename,
        fail_with_body: op.fail_with_body,
        xfer: None,
    }
}

fn build_job(
    g: &Global,
    op: &Operation,
    target: &Target,
    stdout: &Arc<Mutex<io::BufWriter<io::Stdout>>>,
    errout: &ErrOut,
) -> Job {
    let easy = configure(g, op, target, stdout, errout);
    let mut meta = job_meta(op, target, None, easy.is_err());
    let easy = easy.map(|(easy, filename, url, xfer)| {
        // %{url} shows the URL as -T and -G left it.
        meta.filename = filename;
        meta.url = url;
        meta.xfer = xfer;
        easy
    });
    Job { easy, meta }
}

/// Whether a URL's output file is named after the URL (`-O`, or `--remote-name-all` without
/// an `-o` for it).
fn remote_named(op: &Operation, spec: &Target) -> bool {
    spec.remote_name || (op.remote_name_all && spec.output.is_none() && !spec.no_remote)
}

/// The file a URL's body goes to (None: stdout): `-o`, or with `-O` the URL's last path
/// segment (`no_name` is called when it has none and `curl_response` is used), under
/// `--output-dir`.
fn output_path(op: &Operation, spec: &Target, no_name: impl FnOnce()) -> Option<PathBuf> {
    let remote = remote_named(op, spec);
    let mut path: Option<PathBuf> = None;
    if let Some(out) = &spec.output {
        if out != "-" {
            path = Some(PathBuf::from(out));
        }
    } else if remote {
        // The name comes from the URL as globbed, before -T or -G change it.
        let name = remote_name(&spec.url).unwrap_or_else(|| {
            no_name();
            "curl_response".to_string()
        });
        path = Some(PathBuf::from(name));
    }
    if let (Some(p), Some(dir)) = (&path, &op.output_dir) {
        // curl joins with a slash whatever the name is, absolute names too.
        if !dir.is_empty() {
            path = Some(PathBuf::from(format!("{dir}/{}", p.display())));
        }
    }
    path
}

/// Standard input to upload (`-T -`), read unbuffered through its own descriptor so that a
/// rewind (`stdin_rewind`) leaves nothing read ahead behind.
fn stdin_upload() -> Box<dyn io::Read + Send> {
    use std::os::fd::AsFd;
    match io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(File::from(fd)),
        Err(_) => Box::new(io::stdin()),
    }
}

/// Seek standard input back to its start, as curl's `tool_seek_cb` does for `-T -`: the
/// descriptor `stdin_upload` reads shares its offset.
fn stdin_rewind() -> bool {
    use io::Seek;
    use std::os::fd::AsFd;
    io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|mut f| f.seek(io::SeekFrom::Start(0)))
        .is_ok()
}

fn configure(
    g: &Global,
    op: &Operation,
    spec: &Target,
    stdout: &Arc<Mutex<io::BufWriter<io::Stdout>>>,
    errout: &ErrOut,
) -> Result<(Easy, Option<String>, String, Option<SharedProgress>), Error> {
    let mut o = Options {
        useragent: Some(["curl/", oxcurl_core::LIBCURL_VERSION].concat()),
        buffer_size: TOOL_BUFFER_SIZE,
        max_redirs: 50,
        ..Options::default()
    };
    let mut url = spec.url.clone();
    let data = build_data(op)?;
    let data_was_set = data.is_some();
    let mut upload: Option<Upload> = None;
    if let Some(up) = &spec.upload {
        if up == "-" || up == "." {
            upload = Some((stdin_upload(), None, None));
        } else {
            url = add_file_name_to_url(&url, up)?;
            let f = File::open(up).map_err(|_| {
                // curl prints these (even with -s) before the transfer's own error.
                let text = format!(
                    "curl: cannot open '{up}'\n\
                     curl: try 'curl --help' or 'curl --manual' for more information\n"
                );
                errout_write(errout, text.as_bytes());
                Error::new(Code::ReadError, Code::ReadError.strerror())
            })?;
            let len = f.metadata().ok().map(|m| m.len());
            upload = Some((Box::new(f), len, Some(PathBuf::from(up))));
        }
    }
    if op.get {
        if let Some(d) = &data {
            let q = String::from_utf8_lossy(d);
            url = append_query(&url, &q).unwrap_or_else(|| {
                let (base, frag) = match url.find('#') {
                    Some(i) => (url[..i].to_string(), url[i..].to_string()),
                    None => (url.clone(), String::new()),
                };
                let sep = if base.contains('?') { '&' } else { '?' };
                format!("{base}{sep}{q}{frag}")
            });
        }
    } else if let Some(d) = data {
        o.body = Body::Fields(d);
    }
    if op.form.bad_encoder {
        return Err(Error::new(
            Code::BadFunctionArgument,
            Code::BadFunctionArgument.strerror(),
        ));
    }
    if !op.form.is_empty() {
        o.body = Body::Mime(oxcurl_core::mime::Mime {
            subtype: "form-data",
            boundary: oxcurl_core::mime::random_boundary(),
            parts: op.form.parts.clone(),
            backslash_escape: op.form_escape,
        });
        if let Body::Mime(m) = &mut o.body {
            // --form-escape holds for names at every level, as the option is the handle's.
            escape_nested(&mut m.parts, op.form_escape);
        }
    }
    // curl 8.14.1 keeps -G data in place of the --url-query parts when both are given.
    let url_query_dropped = op.get && data_was_set;
    if !op.url_query.is_empty() && !url_query_dropped {
        let mut q: Vec<u8> = Vec::new();
        for (i, a) in op.url_query.iter().enumerate() {
            if i > 0 {
                q.push(b'&');
            }
            match a.strip_prefix('+') {
                Some(raw) => q.extend_from_slice(raw.as_bytes()),
                None => q.extend(urlencode_piece(a, None)?),
            }
        }
        let q = String::from_utf8_lossy(&q);
        if let Some(u) = append_query(&url, &q) {
            url = u;
        }
    }
    if let Some((_, len, _)) = &upload {
        o.body = Body::Upload(*len);
    }
    o.url = Some(url.clone());
    o.nobody = op.head;
    o.custom_request = op.method.clone();
    o.request_target = op.request_target.clone();
    let mut headers = op.headers.clone();
    if op.json {
        if !headers
            .iter()
            .any(|h| h.to_ascii_lowercase().starts_with("content-type:"))
        {
            headers.push("Content-Type: application/json".into());
        }
        if !headers
            .iter()
            .any(|h| h.to_ascii_lowercase().starts_with("accept:"))
        {
            headers.push("Accept: application/json".into());
        }
    }
    if let Some(f) = &op.etag_compare {
        // Added after the user's headers, read again for every transfer.
        let contents = match std::fs::read(f) {
            Ok(c) => Some(c),
            Err(e) => {
                if !g.silent {
                    let w = format!(
                        "Failed to open {f}: {}",
                        oxcurl_core::connect::os_error_text(&e)
                    );
                    errout_write(errout, crate::args::warning_text(&w).as_bytes());
                }
                None
            }
        };
        headers.push(crate::output::if_none_match(contents.as_deref()));
    }
    o.headers = headers;
    if let Some(ua) = &op.useragent {
        o.useragent = Some(ua.clone());
    }
    o.referer = op.referer.clone();
    o.autoreferer = op.autoreferer;
    if let Some(u) = &op.user {
        let (user, pass) = match u.split_once(':') {
            Some((a, b)) => (a.to_string(), b.to_string()),
            None => (u.clone(), String::new()),
        };
        o.userpwd = Some((user, pass));
    }
    crate::args::apply_proxy(op, &mut o);
    o.range = op.range.clone();
    o.follow_location = op.location;
    o.unrestricted_auth = op.location_trusted;
    if let Some(m) = op.max_redirs {
        o.max_redirs = m;
    }
    o.post301 = op.post301;
    o.post302 = op.post302;
    o.post303 = op.post303;
    if op.compressed {
        o.accept_encoding = Some(String::new());
    }
    if op.raw {
        o.http_content_decoding = false;
        o.http_transfer_decoding = false;
    }
    if let Some(v) = op.http_version {
        o.http_version = v;
    }
    // curl's tool: parallel transfers wait to multiplex unless --parallel-immediate.
    o.pipewait = g.parallel && !g.parallel_immediate;
    o.http09_allowed = op.http09;
    // -I shows the headers like -i does.
    o.include_header = op.include || op.head;
    o.include_header_http_only = true;
    o.fail_on_error = op.fail && !op.fail_with_body;
    o.timeout = op
        .max_time
        .filter(|t| *t > 0.0)
        .map(Duration::from_secs_f64);
    o.connect_timeout = op
        .connect_timeout
        .filter(|t| *t > 0.0)
        .map(Duration::from_secs_f64);
    if let Some(t) = op.expect100_timeout {
        o.expect_100_timeout = Duration::from_secs_f64(t);
    }
    o.max_filesize = op.max_filesize.filter(|n| *n > 0);
    o.low_speed_limit = op.low_speed_limit;
    o.low_speed_time = Some(Duration::from_secs(op.low_speed_time)).filter(|t| !t.is_zero());
    o.max_recv_speed = op.limit_rate;
    o.max_send_speed = op.limit_rate;
    // A smaller buffer under a low limit, for finer sleeps (as curl's tool does).
    if op.limit_rate > 0 && op.limit_rate < TOOL_BUFFER_SIZE as u64 {
        o.buffer_size = (op.limit_rate as usize).max(oxcurl_core::options::MIN_BUFFER_SIZE);
    }
    o.resolve = op.resolve.clone();
    o.connect_to = op.connect_to.clone();
    o.ip_resolve = if op.ipv4 {
        IpResolve::V4
    } else if op.ipv6 {
        IpResolve::V6
    } else {
        IpResolve::Whatever
    };
    if let Some((p, abs)) = &op.unix_socket {
        o.unix_socket_path = Some(p.clone());
        o.abstract_unix_socket = *abs;
    }
    if let Some((p, r)) = op.local_port {
        o.local_port = p;
        o.local_port_range = r;
    }
    o.interface = op.interface.clone();
    o.tcp_nodelay = op.tcp_nodelay;
    o.tls = op.tls.clone();
    o.proxy_tls = op.proxy_tls.clone();
    o.hsts_file = op.hsts.clone();
    o.altsvc_file = op.alt_svc.clone();
    o.haproxy_protocol = op.haproxy_protocol;
    o.transfer_encoding = op.tr_encoding;
    o.crlf = op.crlf;
    o.haproxy_client_ip = op.haproxy_clientip.clone();
    o.tcp_keepalive = op.keepalive || op.keepalive_time.is_some();
    if let Some(t) = op.keepalive_time {
        o.tcp_keepidle = t;
        o.tcp_keepintvl = t;
    }
    if let Some(n) = op.keepalive_cnt {
        o.tcp_keepcnt = n;
    }
    if let Some(ms) = op.happy_eyeballs_ms {
        o.happy_eyeballs_timeout = std::time::Duration::from_millis(ms);
    }
    // At most 0xff (args.rs refuses more).
    o.ip_tos = op.ip_tos.map(|t| t as u8);
    o.ignore_content_length = op.ignore_content_length;
    o.disallow_username_in_url = op.disallow_username_in_url;
    o.path_as_is = op.path_as_is;
    o.default_protocol = op.proto_default.clone();
    if let Some(mode) = op.create_file_mode {
        // At most 0o777 (args.rs refuses more).
        o.new_file_perms = mode as u16;
    }
    o.allowed_protocols = op.proto.clone();
    o.redir_protocols = op.proto_redir.clone();
    o.time_condition = op.time_cond;
    // -b: strings with '=' are cookies to send, anything else a file to read.
    let mut data: Vec<&str> = Vec::new();
    for c in &op.cookie {
        match oxcurl_core::cookie::CookieArg::classify(c) {
            oxcurl_core::cookie::CookieArg::Data(d) => data.push(d),
            oxcurl_core::cookie::CookieArg::File(f) => o.cookie_files.push(f.to_string()),
        }
    }
    o.cookie = oxcurl_core::cookie::CookieArg::join_data(&data);
    o.cookie_jar = op.cookie_jar.clone();
    o.bearer = op.bearer.clone();
    if op.authtype != 0 {
        o.httpauth = op.authtype;
    }
    // curl: --netrc-optional wins; --netrc or --netrc-file make .netrc required.
    o.ftp_use_epsv = !op.disable_epsv;
    o.ftp_skip_pasv_ip = !op.ftp_use_pasv_ip;
    o.use_ascii = op.use_ascii;
    // curl asks for the file's time for -I and -R (FTP's MDTM).
    o.filetime = op.head || op.remote_time;
    let mut ftp = op.ftp.clone();
    if op.ftp_ssl_ccc {
        ftp.ssl_ccc = op.ftp_ssl_ccc_mode.unwrap_or(FtpCcc::Passive);
    }
    if ftp != oxcurl_core::options::FtpOptions::default() {
        o.ftp = Some(Box::new(ftp));
    }
    // curl's config2setopts: the strongest wins.
    o.use_ssl = if op.ftp_ssl_reqd {
        UseSsl::All
    } else if op.ftp_ssl {
        UseSsl::Try
    } else if op.ftp_ssl_control {
        UseSsl::Control
    } else {
        UseSsl::None
    };
    o.netrc = if op.netrc_optional {
        oxcurl_core::options::NetrcMode::Optional
    } else if op.netrc || op.netrc_file.is_some() {
        oxcurl_core::options::NetrcMode::Required
    } else {
        oxcurl_core::options::NetrcMode::Ignored
    };
    o.netrc_file = op.netrc_file.clone();
    o.aws_sigv4 = op.aws_sigv4.clone();
    o.cookie_session = op.junk_session_cookies;
    o.verbose = g.verbose > 0 || g.trace.is_some();
    // curl asks for the certificate chain whenever -w is given (for %{certs}).
    o.certinfo = op.write_out.is_some();

    // Output.
    let mut filename = None;
    let path = output_path(op, spec, || {
        if !g.silent {
            let w = crate::args::warning_text("No remote file name, uses \"curl_response\"");
            errout_write(errout, w.as_bytes());
        }
    });
    let mut append = false;
    if let Some(c) = op.continue_at {
        match c {
            ContinueAt::At(n) => o.resume_from = n,
            // An upload cannot look at a local file to learn where to resume: curl passes
            // -1, "find out yourself", which HTTP cannot and so sends everything.
            ContinueAt::Auto if spec.upload.is_some() => o.resume_from_unknown = true,
            ContinueAt::Auto => {
                if let Some(p) = &path {
                    o.resume_from = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
                }
            }
        }
        append = o.resume_from > 0;
    }
    if let Some(p) = &path {
        filename = Some(p.to_string_lossy().into_owned());
    }
    let sink = match (path, &spec.continue_output) {
        (Some(_), Some(p)) => Sink::File {
            path: p.clone(),
            append: true,
            file: None,
            create_dirs: false,
            no_clobber: false,
            exclusive: false,
            clobber_always: false,
        },
        (Some(p), None) => Sink::File {
            path: p,
            append,
            file: None,
            create_dirs: op.create_dirs,
            no_clobber: op.no_clobber,
            exclusive: false,
            clobber_always: op.clobber_always,
        },
        (None, _) => Sink::Stdout,
    };
    // --etag-save: the file was opened (created) before, in `open_side_files`.
    let etag_save = op.etag_save.as_ref().map(PathBuf::from);
    // -J: only for a name taken from the URL (-O), not for -o.
    let cd_pending = (op.content_disposition && remote_named(op, spec) && spec.output.is_none())
        .then(|| op.output_dir.clone());
    let body_to_tty = matches!(sink, Sink::Stdout) && io::stdout().is_terminal();
    let headers_out = op.dump_header.as_ref().map(|d| Out {
        sink: if d == "-" {
            Sink::Stdout
        } else if d == "%" {
            Sink::Err(Arc::clone(errout))
        } else {
            // Created (or emptied) in `open_side_files`; every transfer appends.
            Sink::File {
                path: PathBuf::from(d),
                append: true,
                file: None,
                create_dirs: op.create_dirs,
                no_clobber: false,
                exclusive: false,
                clobber_always: false,
            }
        },
        stdout: Arc::clone(stdout),
        failed: None,
        warn: None,
    });
    let tracer = if let Some((file, ascii)) = &g.trace {
        let dest: ErrOut = if file == "-" {
            Arc::new(Mutex::new(Box::new(StdoutThrough(Arc::clone(stdout)))))
        } else if file == "%" {
            Arc::clone(errout)
        } else {
            trace_file(file).unwrap_or_else(|| Arc::clone(errout))
        };
        Some(Tracer {
            dest,
            mode: if *ascii {
                TraceMode::Ascii
            } else {
                TraceMode::Hex
            },
            time: g.trace_time,
            ids: g.trace_ids,
            ids_now: (-1, -1),
            show_data: true,
        })
    } else if g.verbose > 0 {
        Some(Tracer {
            dest: Arc::clone(errout),
            mode: TraceMode::Verbose,
            time: g.trace_time,
            ids: g.trace_ids,
            ids_now: (-1, -1),
            show_data: !body_to_tty,
        })
    } else {
        None
    };
    let show_meter = !g.silent && !g.no_progress && !body_to_tty && !g.parallel && !g.progress_bar;
    let show_bar = !g.silent && !g.no_progress && !g.parallel && g.progress_bar;
    let xfer = parallel_meter(g).then(|| Arc::new(Mutex::new(XferProgress::default())));
    o.no_progress = !show_meter && !show_bar && xfer.is_none();
    let bar = show_bar.then(|| {
        let width = crate::progress::bar_width(std::env::var("COLUMNS").ok().as_deref(), None);
        (Bar::new(width, o.resume_from), Arc::clone(errout))
    });
    let meter = show_meter.then(|| {
        (
            Meter::new(Instant::now()).with_resume(o.resume_from),
            Arc::clone(errout),
        )
    });
    let (upload_r, upload_path) = match upload {
        Some((r, _, p)) => (Some(r), p),
        None => (None, None),
    };
    let callbacks = ToolCallbacks {
        out: Out {
            sink,
            stdout: Arc::clone(stdout),
            failed: None,
            warn: (!g.silent).then(|| Arc::clone(errout)),
        },
        headers: headers_out,
        upload: upload_r,
        upload_path,
        tracer,
        meter,
        bar,
        xfer: xfer.clone(),
        wrote: 0,
        body_bytes: 0,
        cd_pending,
        cd_opened: false,
        code: 0,
        echo: None,
        held: Vec::new(),
        include: o.include_header,
        progressed: false,
        resume_from: o.resume_from,
        etag_save,
    };
    Ok((Easy::new(o, Box::new(callbacks)), filename, url, xfer))
}

/// A transfer's progress as its callbacks records it and the `-Z` meter reads it.
type SharedProgress = Arc<Mutex<XferProgress>>;

/// `-Z` shows one combined meter instead of the per-transfer ones, unless silenced.
fn parallel_meter(g: &Global) -> bool {
    g.parallel && !g.silent && !g.no_progress
}

/// Draw the `-Z` meter over the transfers set up (`pending`) or running, as curl's
/// `progress_meter` does; `scratch` is reused between calls.
fn draw_parallel_meter<'a>(
    meter: &mut ParallelMeter,
    xfers: impl Iterator<Item = (&'a JobMeta, bool)>,
    all_xfers: u64,
    last: bool,
    scratch: &mut Vec<XferProgress>,
    errout: &ErrOut,
) {
    scratch.clear();
    let mut shared = Vec::new();
    for (meta, added) in xfers {
        if let Some(x) = &meta.xfer {
            let mut p = x.lock().map(|p| p.clone()).unwrap_or_default();
            p.added = added;
            scratch.push(p);
            shared.push(x);
        }
    }
    let mut out = Vec::new();
    let _ = meter.update(Instant::now(), scratch, all_xfers, last, &mut out);
    // Keep what the meter noted (totals already counted) with each transfer.
    for (x, p) in shared.iter().zip(scratch.iter()) {
        if let Ok(mut x) = x.lock() {
            *x = p.clone();
        }
    }
    if !out.is_empty() {
        errout_write(errout, &out);
    }
}

/// Give multiparts nested inside form parts the form's name escaping.
fn escape_nested(parts: &mut [oxcurl_core::mime::MimePart], on: bool) {
    for p in parts {
        if let oxcurl_core::mime::PartData::Multipart(m) = &mut p.data {
            m.backslash_escape = on;
            escape_nested(&mut m.parts, on);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_names() {
        assert_eq!(
            remote_name("http://h/a/b.txt?x#y").as_deref(),
            Some("b.txt")
        );
        assert_eq!(remote_name("http://h/a/").as_deref(), Some("a"));
        assert_eq!(remote_name("http://h/a/b//").as_deref(), Some(""));
        assert_eq!(remote_name("http://h/a\\b").as_deref(), Some("b"));
        assert_eq!(remote_name("http://h/a\\").as_deref(), Some("a"));
        assert_eq!(remote_name("http://h/%41b?x=1/2").as_deref(), Some("%41b"));
        assert_eq!(remote_name("h/x/a%2F").as_deref(), Some("a%2F"));
        assert_eq!(remote_name("http://h/"), None);
        assert_eq!(remote_name("http://h"), None);
    }

    #[test]
    fn upload_names_appended() {
        assert_eq!(
            add_file_name_to_url("127.0.0.1:9/up/", "d/{a} b.txt").unwrap(),
            "http://127.0.0.1:9/up/%7ba%7d%20b.txt"
        );
        let ok = |u, f| add_file_name_to_url(u, f).unwrap();
        assert_eq!(ok("http://h", "x\\y"), "http://h/y");
        assert_eq!(ok("http://h/up", "a"), "http://h/up");
        assert_eq!(ok("h/up/?q", "a"), "h/up/?q");
        // curl test 1469: refused before the file is opened or the scheme looked at.
        let err = add_file_name_to_url("ftp://h/1469%/with space/", "f").unwrap_err();
        assert_eq!(err.code, Code::UrlMalformat);
    }

    #[test]
    fn urlencoding() {
        assert_eq!(urlencode(b"a b&c=d~"), "a+b%26c%3Dd~");
    }

    #[test]
    fn data_joining() {
        let op = Operation {
            data: vec![
                (DataKind::Ascii, "a=1".into(), None),
                (DataKind::UrlEncode, "b=x y".into(), None),
                (DataKind::Raw, "@c".into(), None),
                (
                    DataKind::Binary,
                    "@not-read-again".into(),
                    Some(b"kept".to_vec()),
                ),
            ],
            ..Operation::default()
        };
        assert_eq!(build_data(&op).unwrap().unwrap(), b"a=1&b=x+y&@c&kept");
    }
}
