//! A file:// transfer (curl's `file_connect`, `file_do` and `file_upload`): no connection,
//! no name lookup; the file is opened when the transfer starts and read in chunks into the
//! multi's receive buffer, each chunk handed to the write callback before the next is read.
//! A paused receive stops the reading (nothing is read ahead); the file waits where it is.
//! What is decided before reading (path, range, head lines) is in `proto::file`.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions, ReadDir};
use std::io::{self, Read as _, Write as _};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use oxcurl_urlapi::Url;

use super::handler::Handler;
use super::{Cx, Out, Transfer, MAX_WRITE_SIZE};
use crate::error::{Code, Error, Result};
use crate::options::{Body, InfoType, TimeCondition};
use crate::proto::file::{self as proto, PlanError};

/// What is left to do of a file:// transfer.
#[derive(Debug)]
pub(super) enum FileJob {
    /// Reading a file from where the range starts: at most `left` bytes when known.
    Read { file: File, left: Option<u64> },
    /// Listing a directory, one name a line.
    List(ReadDir),
    /// Writing the upload into `file`, the first `skip` bytes of the source left out.
    Upload { file: File, skip: u64, written: u64 },
    /// Nothing to read (a head only, or a time condition not met).
    Done,
    /// Opened (or, for an upload, to be created) and not planned yet: the path, decoded.
    Open { file: Option<File>, path: Vec<u8> },
}

/// The handler of `file://` (curl's `Curl_handler_file`).
pub(super) struct FileHandler;

pub(super) static FILE: FileHandler = FileHandler;

impl Handler for FileHandler {
    /// curl's `file_connect`: the file opens (no network, no connection to look for).
    fn setup(&self, t: &mut Transfer, cx: &mut Cx<'_>, url: &Url) -> Result<()> {
        t.file_open(cx, url)
    }

    /// The start of curl's `file_do`: what to read or write.
    fn do_it(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        t.file_plan(cx)?;
        Ok(true)
    }

    fn perform(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool> {
        t.do_file(cx)
    }

    /// curl's multi_done counts a callback's abort and a read or write error as premature:
    /// the file's connection is closed, else it ends the regular way.
    fn closing(&self, _t: &Transfer, code: Code) -> Option<&'static str> {
        Some(match code {
            Code::AbortedByCallback | Code::ReadError | Code::WriteError => "closing",
            _ => "shutting down",
        })
    }
}

impl Transfer {
    /// `file_connect`: open the file (an upload's may not exist yet).
    fn file_open(&mut self, cx: &mut Cx<'_>, url: &Url) -> Result<()> {
        self.info.scheme = "file".to_string();
        self.info.effective_method = self.request_method().into_owned();
        // No connection until the file opens.
        self.info.conn_id = -1;
        let raw = url.path();
        let path = proto::decode_path(raw).ok_or_else(|| Error::code(Code::UrlMalformat))?;
        let upload = matches!(self.body, Body::Upload(_));
        let opened = File::open(Path::new(OsStr::from_bytes(&path)));
        let file = match opened {
            Ok(f) => Some(f),
            Err(_) if upload => None,
            Err(_) => {
                return Err(Error::new(
                    Code::FileCouldntReadFile,
                    format!("Couldn't open file {raw}"),
                ))
            }
        };
        // The file counts as connected: curl puts a connection for it in its pool.
        let id = *cx.next_conn_id;
        *cx.next_conn_id += 1;
        self.set_conn_id(id);
        self.file = Some(Box::new(FileJob::Open { file, path }));
        Ok(())
    }

    /// The start of `file_do`: decide what to read or write. The transfer then goes on in
    /// `do_file`.
    fn file_plan(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        self.info.time_pretransfer = cx.now.duration_since(self.started);
        let Some(FileJob::Open { file, path }) = self.file.take().map(|j| *j) else {
            unreachable!("opened before planned");
        };
        let upload = matches!(self.body, Body::Upload(_));
        let job = match file {
            _ if upload => self.file_upload_start(&path)?,
            Some(f) => self.file_download_start(f, &path)?,
            None => unreachable!("opened or uploading"),
        };
        self.file = Some(Box::new(job));
        Ok(())
    }

    /// The download side of `file_do` up to the reading: time condition, head lines,
    /// range and resume.
    fn file_download_start(&mut self, file: File, path: &[u8]) -> Result<FileJob> {
        let meta = file
            .metadata()
            .map_err(|_| Error::code(Code::FileCouldntReadFile))?;
        let is_dir = meta.is_dir();
        let size = (!is_dir).then_some(meta.len());
        let mtime = meta.mtime();
        self.info.filetime = Some(mtime);
        let ranged =
            self.opts.range.is_some() || self.opts.resume_from > 0 || self.opts.resume_from_unknown;
        if !ranged && self.file_time_unmet(mtime) {
            self.info.condition_unmet = true;
            return Ok(FileJob::Done);
        }
        for line in proto::head_lines(size, mtime) {
            self.file_header(line.as_bytes())?;
        }
        self.resp.content_length = size;
        self.info.content_length_download = size;
        if self.opts.nobody {
            return Ok(FileJob::Done);
        }
        let resume = if self.opts.resume_from_unknown {
            -1
        } else {
            i64::try_from(self.opts.resume_from).unwrap_or(i64::MAX)
        };
        let plan = proto::plan(resume, self.opts.range.as_deref(), size, meta.len()).map_err(
            |e| match e {
                PlanError::Range => Error::code(Code::RangeError),
                PlanError::Resume => {
                    Error::new(Code::BadDownloadResume, "failed to resume file:// transfer")
                }
                PlanError::Seek => Error::code(Code::BadDownloadResume),
            },
        )?;
        if let Some(n) = plan.limit {
            self.resp.content_length = Some(n);
            self.info.content_length_download = Some(n);
        }
        if is_dir {
            let list = std::fs::read_dir(Path::new(OsStr::from_bytes(path)))
                .map_err(|_| Error::code(Code::ReadError))?;
            return Ok(FileJob::List(list));
        }
        let mut file = file;
        if plan.start > 0 {
            use std::io::Seek as _;
            file.seek(io::SeekFrom::Start(plan.start))
                .map_err(|_| Error::code(Code::BadDownloadResume))?;
        }
        Ok(FileJob::Read {
            file,
            left: plan.limit,
        })
    }

    /// curl's `Curl_meets_timecondition` on the file's modification time; says so in
    /// verbose mode when unmet.
    fn file_time_unmet(&mut self, mtime: i64) -> bool {
        let Some((cond, value)) = self.opts.time_condition else {
            return false;
        };
        if mtime == 0 || value == 0 {
            return false;
        }
        let msg = match cond {
            TimeCondition::IfUnmodSince if mtime >= value => {
                "The requested document is not old enough"
            }
            TimeCondition::IfModSince | TimeCondition::LastMod if mtime <= value => {
                "The requested document is not new enough"
            }
            _ => return false,
        };
        self.verbose(msg);
        true
    }

    /// `file_upload` up to the writing: the path checked, the file opened (appending when
    /// resuming) and the bytes of the source to leave out.
    fn file_upload_start(&mut self, path: &[u8]) -> Result<FileJob> {
        if !proto::upload_path_ok(path) {
            return Err(Error::code(Code::FileCouldntReadFile));
        }
        let resume = self.opts.resume_from > 0 || self.opts.resume_from_unknown;
        let mut oo = OpenOptions::new();
        oo.write(true)
            .create(true)
            .mode(u32::from(self.opts.new_file_perms));
        if resume {
            oo.append(true);
        } else {
            oo.truncate(true);
        }
        let shown = String::from_utf8_lossy(path);
        let file = oo.open(Path::new(OsStr::from_bytes(path))).map_err(|_| {
            Error::new(Code::WriteError, format!("cannot open {shown} for writing"))
        })?;
        if let Body::Upload(Some(n)) = self.body {
            self.info.content_length_upload = Some(n);
        }
        let skip = if self.opts.resume_from_unknown {
            file.metadata()
                .map_err(|_| {
                    Error::new(Code::WriteError, format!("cannot get the size of {shown}"))
                })?
                .len()
        } else {
            self.opts.resume_from
        };
        Ok(FileJob::Upload {
            file,
            skip,
            written: 0,
        })
    }

    /// A made-up header line: to the header callback, and with `CURLOPT_HEADER` to the write
    /// callback. curl neither traces these nor counts them in the header size.
    fn file_header(&mut self, line: &[u8]) -> Result<()> {
        self.file_started();
        self.file_emit(Out::Header, line)?;
        if self.opts.include_header {
            self.file_emit(Out::HeaderBody, line)?;
        }
        Ok(())
    }

    /// Hand data to its callback. file:// cannot pause (curl's `cw_out` refuses it for
    /// protocols without a network): a callback that asks fails the transfer.
    fn file_emit(&mut self, out: Out, data: &[u8]) -> Result<()> {
        if self.call_writer(out, data)? {
            return Err(Error::new(
                Code::WriteError,
                "Write callback asked for PAUSE when not supported",
            ));
        }
        Ok(())
    }

    fn file_started(&mut self) {
        if self.info.time_starttransfer.is_zero() {
            self.info.time_starttransfer = self.started.elapsed();
        }
    }

    /// Body bytes read from the file: traced whole, cut at `--max-filesize`, written in
    /// pieces a write callback may get, then counted (curl's raw and download writers).
    fn file_body(&mut self, data: &[u8]) -> Result<()> {
        self.file_started();
        if self.opts.verbose {
            self.callbacks
                .debug_live(InfoType::DataIn, data, &self.info);
        }
        let mut n = data.len();
        if let Some(max) = self.opts.max_filesize {
            n = n.min(max.saturating_sub(self.info.size_download) as usize);
        }
        for piece in data[..n].chunks(MAX_WRITE_SIZE) {
            self.file_emit(Out::Body, piece)?;
        }
        self.info.size_download += n as u64;
        if n < data.len() {
            return Err(super::filesize_exceeded(
                self.opts.max_filesize.unwrap_or(0),
                self.info.size_download,
            ));
        }
        Ok(())
    }

    /// Read, list or write the whole file, then finish.
    pub(super) fn do_file(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let Some(mut job) = self.file.take() else {
            return Ok(false);
        };
        match &mut *job {
            FileJob::Read { file, left } => {
                let mut buf = cx.bufs.get(self.opts.buffer_size.max(2));
                let r = self.file_read(file, left, &mut buf);
                cx.bufs.put(buf);
                r?
            }
            FileJob::List(dir) => self.file_list(dir)?,
            FileJob::Upload {
                file,
                skip,
                written,
            } => {
                let mut buf = cx.bufs.get(self.opts.upload_buffer_size.max(1));
                let r = self.file_write(file, skip, written, &mut buf);
                cx.bufs.put(buf);
                r?
            }
            FileJob::Done | FileJob::Open { .. } => {}
        }
        drop(job);
        let id = self.info.conn_id;
        self.verbose(&format!("shutting down connection #{id}"));
        self.finish(cx, Ok(()));
        Ok(false)
    }

    /// Read chunks of at most one byte less than the buffer (as curl does) until the end or
    /// the range's length.
    fn file_read(&mut self, file: &mut File, left: &mut Option<u64>, buf: &mut [u8]) -> Result<()> {
        let room = buf.len() - 1;
        loop {
            let want = left.map_or(room, |l| room.min(usize::try_from(l).unwrap_or(room)));
            let n = match file.read(&mut buf[..want]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // curl stops at a read error as at the end.
                Err(_) => 0,
            };
            if n == 0 {
                return Ok(());
            }
            if let Some(l) = left {
                *l -= n as u64;
            }
            self.file_body(&buf[..n])?;
            self.file_progress()?;
        }
    }

    /// Directory entries not starting with a dot, in the order the system gives them, each
    /// name and its newline written apart (as curl writes them).
    fn file_list(&mut self, dir: &mut ReadDir) -> Result<()> {
        loop {
            let Some(Ok(entry)) = dir.next() else {
                return Ok(());
            };
            let name = entry.file_name();
            let name = name.as_bytes();
            if name.first() == Some(&b'.') {
                continue;
            }
            self.file_body(name)?;
            self.file_body(b"\n")?;
        }
    }

    /// Read the source and write it to the file, the resumed part left out; a source that
    /// pauses ends the upload, as in curl.
    fn file_write(
        &mut self,
        file: &mut File,
        skip: &mut u64,
        written: &mut u64,
        buf: &mut [u8],
    ) -> Result<()> {
        loop {
            let n = self.read_body_source(buf)?;
            if n == 0 {
                return Ok(());
            }
            let from = (*skip).min(n as u64) as usize;
            *skip -= from as u64;
            let data = &buf[from..n];
            if !data.is_empty() {
                file.write_all(data)
                    .map_err(|_| Error::code(Code::SendError))?;
            }
            *written += data.len() as u64;
            self.info.size_upload = *written;
            self.file_progress()?;
        }
    }

    /// curl's `Curl_pgrsUpdate` after each chunk: the progress callback may stop it.
    fn file_progress(&mut self) -> Result<()> {
        self.progress(std::time::Instant::now());
        match self.result.take() {
            Some(Err(e)) => Err(e),
            other => {
                self.result = other;
                Ok(())
            }
        }
    }
}
