//! The FTP commands between the working directory and the data (curl's `ftp_state_mdtm`,
//! `ftp_state_type`, `ftp_state_size`, `ftp_state_rest`, `ftp_state_retr`,
//! `ftp_state_ul_setup` and their replies): the file's time and the time condition, the
//! `-I` headers made up from SIZE and REST, the range or resume offset checked against the
//! size, and RETR, the listing command, STOR or APPE.

use super::*;

impl Transfer {
    /// curl's `ftp_state_mdtm`: the file's time when asked for (`-R`, `-I`, `-z`).
    pub(super) fn ftp_mdtm(&mut self) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        let want = self.opts.filetime || self.opts.time_condition.is_some();
        match x.path.file.clone().filter(|_| want) {
            Some(file) => {
                self.ftp_set(Step::Mdtm);
                self.ftp_send_bytes("MDTM", Some(&file))
            }
            None => self.ftp_info_type(),
        }
    }

    /// curl's `ftp_state_mdtm_resp`: the time, the made-up `Last-Modified:` of `-I`, the
    /// time condition.
    pub(super) fn ftp_mdtm_reply(&mut self, code: u32) -> Result<()> {
        match code {
            213 => {
                let line = self.ftp_last();
                if let Some(t) = ftp::mdtm_reply(line.as_bytes()) {
                    self.info.filetime = Some(t);
                }
                let x = self.ftp.as_ref().expect("ftp");
                let header = (x.mode == Mode::Info && x.path.file.is_some() && self.opts.filetime)
                    .then(|| self.info.filetime.and_then(ftp::last_modified_header))
                    .flatten();
                if let Some(h) = header {
                    self.ftp_header(&h)?;
                }
            }
            550 => {
                self.verbose("MDTM failed: file does not exist or permission problem, continuing")
            }
            _ => self.verbose("unsupported MDTM reply format"),
        }
        if let Some((cond, value)) = self.opts.time_condition {
            let t = self.info.filetime.unwrap_or(-1);
            if t > 0 && value > 0 {
                let unmet = match cond {
                    TimeCondition::IfUnmodSince => {
                        (t > value).then_some("The requested document is not old enough")
                    }
                    _ => (t <= value).then_some("The requested document is not new enough"),
                };
                if let Some(msg) = unmet {
                    self.verbose(msg);
                    self.info.condition_unmet = true;
                    let x = self.ftp.as_mut().expect("ftp");
                    x.mode = Mode::None;
                    x.step = Step::Stop;
                    return Ok(());
                }
            } else {
                self.verbose("Skipping time comparison");
            }
        }
        self.ftp_info_type()
    }

    /// A header line curl makes up for FTP (`client_write_header`): to the header callback
    /// and, as FTP always did, to the body output too.
    fn ftp_header(&mut self, line: &str) -> Result<()> {
        self.emit(Out::Header, line.as_bytes())?;
        self.emit(Out::HeaderBody, line.as_bytes())
    }

    /// curl's `ftp_state_type`: `-I` on a file sets the transfer type before SIZE (servers
    /// may count differently in ASCII).
    fn ftp_info_type(&mut self) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        if self.opts.nobody && x.path.file.is_some() {
            return self.ftp_type(TypeFor::Info, x.want_type);
        }
        self.ftp_info_size()
    }

    /// curl's `ftp_state_size`: SIZE for `-I`.
    fn ftp_info_size(&mut self) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        match x.path.file.clone().filter(|_| x.mode == Mode::Info) {
            Some(file) => {
                self.ftp_set(Step::InfoSize);
                self.ftp_send_bytes("SIZE", Some(&file))
            }
            None => self.ftp_info_rest(),
        }
    }

    /// curl's `ftp_state_rest`: `REST 0` for `-I`, to tell whether ranges work.
    fn ftp_info_rest(&mut self) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        if x.mode != Mode::Body && x.path.file.is_some() {
            self.ftp_set(Step::InfoRest);
            return self.ftp_send("REST", Some("0"));
        }
        self.ftp_prepare_transfer()
    }

    /// curl's `ftp_state_prepare_transfer`: the data connection, or only the prequote
    /// commands when nothing is to move.
    fn ftp_prepare_transfer(&mut self) -> Result<()> {
        if self.ftp.as_ref().expect("ftp").mode != Mode::Body {
            return self.ftp_quote(Quote::Pre, 0);
        }
        self.ftp_start_data()
    }

    /// The data connection is up (curl's `ftp_do_more`): TYPE, then the upload's or the
    /// download's commands; the range is read here.
    pub(super) fn ftp_data_ready(&mut self) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        let (upload, listing, want) = (x.upload, x.listing, x.want_type);
        if upload {
            return self.ftp_type(TypeFor::Stor, want);
        }
        self.ftp_range();
        if self.ftp_step() == Step::Stop {
            return Ok(());
        }
        if listing {
            return self.ftp_type(TypeFor::List, b'A');
        }
        self.ftp_type(TypeFor::Retr, want)
    }

    /// curl's `Curl_range` for FTP: `X-Y`, `X-` and `-Y` set the start and the length.
    fn ftp_range(&mut self) {
        let Some(range) = self.opts.range.clone() else {
            return;
        };
        let Ok((from, length)) = ftp::parse_range(range.as_bytes()) else {
            // curl's ftp_do_more loses the range's error to the state machine run after
            // it: nothing is transferred and the transfer ends well.
            let x = self.ftp.as_mut().expect("ftp");
            x.mode = Mode::None;
            x.step = Step::Stop;
            return;
        };
        let x = self.ftp.as_mut().expect("ftp");
        x.resume_from = from;
        x.max_download = length;
        x.dont_check = length.is_some();
    }

    /// curl's `ftp_nb_type`: TYPE when the connection is in another type, else on at once.
    fn ftp_type(&mut self, next: TypeFor, want: u8) -> Result<()> {
        let m = conn_meta(self.conn.as_mut().expect("conn"));
        if m.transfer_type == Some(want) {
            return self.ftp_type_next(next);
        }
        m.transfer_type = Some(want);
        self.ftp_set(Step::Type(next));
        self.ftp_send("TYPE", Some(if want == b'A' { "A" } else { "I" }))
    }

    /// curl's `ftp_state_type_resp`.
    pub(super) fn ftp_type_reply(&mut self, next: TypeFor, code: u32) -> Result<()> {
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
        self.ftp_type_next(next)
    }

    fn ftp_type_next(&mut self, next: TypeFor) -> Result<()> {
        match next {
            TypeFor::Info => self.ftp_info_size(),
            TypeFor::List => self.ftp_list(),
            TypeFor::Retr | TypeFor::Stor => self.ftp_quote(Quote::Pre, 0),
        }
    }

    /// After the prequote commands (curl's `ftp_state_quote` end for `FTP_RETR_PREQUOTE`
    /// and `FTP_STOR_PREQUOTE`): nothing more without a transfer; an upload's STOR; a
    /// download's SIZE (not for ASCII, whose size would not match, nor with
    /// `--ignore-content-length`), else RETR.
    pub(super) fn ftp_after_prequote(&mut self) -> Result<()> {
        let x = self.ftp.as_ref().expect("ftp");
        if x.mode != Mode::Body {
            self.ftp_set(Step::Stop);
            return Ok(());
        }
        if x.upload {
            return self.ftp_upload_setup(false);
        }
        let file = x.path.file.clone().unwrap_or_default();
        // A wildcard download knows the size from the listing (curl's `known_filesize`).
        if let Some(size) = self.wildcard_known_size() {
            self.set_download_size(Some(size));
            return self.ftp_retr(Some(size));
        }
        if self.opts.ignore_content_length || x.want_type == b'A' {
            self.ftp_set(Step::Retr);
            return self.ftp_send_bytes("RETR", Some(&file));
        }
        self.ftp_set(Step::Size);
        self.ftp_send_bytes("SIZE", Some(&file))
    }

    /// curl's `ftp_state_size_resp`, for the three SIZEs.
    pub(super) fn ftp_size_reply(&mut self, code: u32) -> Result<()> {
        let step = self.ftp_step();
        let mut size: Option<u64> = None;
        if code == 213 {
            let line = self.ftp_last();
            size = ftp::size_reply(line.as_bytes()).and_then(|n| u64::try_from(n).ok());
        } else if code == 550 && step != Step::StorSize {
            return Err(Error::new(
                Code::RemoteFileNotFound,
                "The file does not exist",
            ));
        }
        match step {
            Step::InfoSize => {
                if let Some(n) = size {
                    self.ftp_header(&ftp::content_length_header(n as i64))?;
                }
                self.set_download_size(size);
                self.ftp_info_rest()
            }
            Step::Size => {
                self.set_download_size(size);
                self.ftp_retr(size)
            }
            _ => {
                let x = self.ftp.as_mut().expect("ftp");
                x.resume_from = size.map_or(-1, |n| n as i64);
                x.resume_unknown = false;
                self.ftp_upload_setup(true)
            }
        }
    }

    /// curl's `Curl_pgrsSetDownloadSize`.
    pub(super) fn set_download_size(&mut self, size: Option<u64>) {
        self.info.content_length_download = size;
        self.resp.content_length = size;
    }

    /// curl's `ftp_state_retr`: the size against `--max-filesize`, the range or resume
    /// offset against the size, then REST or RETR.
    fn ftp_retr(&mut self, filesize: Option<u64>) -> Result<()> {
        if let (Some(max), Some(size)) = (self.opts.max_filesize, filesize) {
            if size > max {
                return Err(Error::new(
                    Code::FilesizeExceeded,
                    "Maximum file size exceeded",
                ));
            }
        }
        let x = self.ftp.as_mut().expect("ftp");
        x.download_size = filesize;
        if x.resume_from == 0 {
            let file = x.path.file.clone().unwrap_or_default();
            self.ftp_set(Step::Retr);
            return self.ftp_send_bytes("RETR", Some(&file));
        }
        match filesize {
            None => self.verbose("ftp server does not support SIZE"),
            Some(size) => {
                let size = size as i64;
                let beyond = || {
                    Error::new(
                        Code::BadDownloadResume,
                        format!("Offset ({}) was beyond file size ({size})", x.resume_from),
                    )
                };
                let left = if x.resume_from < 0 {
                    if size < -x.resume_from {
                        return Err(beyond());
                    }
                    let want = -x.resume_from;
                    x.resume_from = size - want;
                    want
                } else {
                    if size < x.resume_from {
                        return Err(beyond());
                    }
                    size - x.resume_from
                };
                x.download_size = Some(left as u64);
                if left == 0 {
                    x.mode = Mode::None;
                    x.step = Step::Stop;
                    self.verbose("File already completely downloaded");
                    return Ok(());
                }
            }
        }
        let from = self.ftp.as_ref().expect("ftp").resume_from;
        self.verbose(&format!("Instructs server to resume from offset {from}"));
        self.ftp_set(Step::Rest);
        self.ftp_send("REST", Some(&from.to_string()))
    }

    /// curl's `ftp_state_rest_resp`: `-I`'s `Accept-ranges:`, or RETR after REST.
    pub(super) fn ftp_rest_reply(&mut self, code: u32) -> Result<()> {
        if self.ftp_step() == Step::InfoRest {
            if code == 350 {
                self.ftp_header(ftp::ACCEPT_RANGES_HEADER)?;
            }
            return self.ftp_prepare_transfer();
        }
        if code != 350 {
            return Err(Error::new(Code::FtpCouldntUseRest, "Couldn't use REST"));
        }
        let file = self.ftp.as_ref().expect("ftp").path.file.clone();
        self.ftp_set(Step::Retr);
        self.ftp_send_bytes("RETR", Some(&file.unwrap_or_default()))
    }

    /// The listing command (curl's `ftp_state_list`).
    fn ftp_list(&mut self) -> Result<()> {
        self.ftp_set(Step::Retr);
        let x = self.ftp.as_ref().expect("ftp");
        let custom = self.opts.custom_request.clone();
        let cmd = x
            .path
            .list_command(x.method, custom.as_deref().map(str::as_bytes), x.list_only);
        self.ftp_send_line(&[&cmd])
    }

    /// curl's `ftp_state_get_resp` for RETR and the listing.
    pub(super) fn ftp_retr_reply(&mut self, code: u32) -> Result<()> {
        let listing = self.ftp.as_ref().expect("ftp").listing;
        if code == 150 || code == 125 {
            let line = self.ftp_last();
            let x = self.ftp.as_mut().expect("ftp");
            let ascii = x.want_type == b'A';
            let mut size = if !listing
                && !ascii
                && !self.opts.ignore_content_length
                && x.download_size.is_none_or(|d| d < 1)
            {
                ftp::retr_size(line.as_bytes()).and_then(|n| u64::try_from(n).ok())
            } else {
                x.download_size
            };
            match (size, x.max_download) {
                (Some(s), Some(m)) if s > m && m > 0 => size = Some(m),
                _ if !listing && ascii => size = None,
                _ => {}
            }
            x.size = size;
            let max = x.max_download.map_or(-1, |m| m as i64);
            self.verbose(&format!("Maxdownload = {max}"));
            if !listing {
                let shown = size.map_or(-1, |n| n as i64);
                self.verbose(&format!("Getting file with size: {shown}"));
            }
            if let Some(n) = size {
                self.resp.content_length = Some(n);
                self.info.content_length_download = Some(n);
            }
            self.info.time_pretransfer = self.started.elapsed();
            return self.ftp_accept_start();
        }
        if listing && code == 450 {
            // No files match the listing.
            let x = self.ftp.as_mut().expect("ftp");
            x.mode = Mode::None;
            x.step = Step::Stop;
            return Ok(());
        }
        let code_err = if !listing && code == 550 {
            Code::RemoteFileNotFound
        } else {
            Code::FtpCouldntRetrFile
        };
        Err(Error::new(code_err, format!("RETR response: {code:03}")))
    }

    /// curl's `ftp_state_ul_setup`: a resumed upload asks SIZE when it does not know where
    /// to start, leaves out what the server has and appends the rest; then STOR or APPE.
    fn ftp_upload_setup(&mut self, size_checked: bool) -> Result<()> {
        let x = self.ftp.as_mut().expect("ftp");
        let resuming = if size_checked {
            x.resume_from > 0
        } else {
            x.resume_from != 0 || x.resume_unknown
        };
        if resuming {
            if x.resume_unknown || x.resume_from < 0 {
                let file = x.path.file.clone().unwrap_or_default();
                self.ftp_set(Step::StorSize);
                return self.ftp_send_bytes("SIZE", Some(&file));
            }
            x.append = true;
            let skip = x.resume_from as u64;
            self.ftp_skip_source(skip)?;
            let x = self.ftp.as_mut().expect("ftp");
            if let Some(n) = x.in_size.filter(|&n| n > 0) {
                if n <= skip {
                    x.mode = Mode::None;
                    x.step = Step::Stop;
                    self.verbose("File already completely uploaded");
                    return Ok(());
                }
                x.in_size = Some(n - skip);
            }
        }
        let x = self.ftp.as_ref().expect("ftp");
        let cmd = if x.append { "APPE" } else { "STOR" };
        let file = x.path.file.clone().unwrap_or_default();
        self.ftp_set(Step::Stor);
        self.ftp_send_bytes(cmd, Some(&file))
    }

    /// Read and drop the first `n` bytes of the upload source (curl reads them when the
    /// source cannot seek).
    fn ftp_skip_source(&mut self, n: u64) -> Result<()> {
        let mut scratch = [0u8; 4096];
        let mut passed = 0u64;
        while passed < n {
            let want = scratch
                .len()
                .min(usize::try_from(n - passed).unwrap_or(usize::MAX));
            match self.callbacks.read_live(&mut scratch[..want], &self.info) {
                ReadResult::Data(got) if got > 0 && got <= want => passed += got as u64,
                _ => return Err(Error::new(Code::FtpCouldntUseRest, "Failed to read data")),
            }
        }
        Ok(())
    }

    /// curl's `ftp_state_stor_resp`: a refusal fails the upload; else the data goes.
    pub(super) fn ftp_stor_reply(&mut self, code: u32) -> Result<()> {
        if code >= 400 {
            return Err(Error::new(
                Code::UploadFailed,
                format!("Failed FTP upload: {code}"),
            ));
        }
        let x = self.ftp.as_ref().expect("ftp");
        self.info.content_length_upload = x.in_size;
        self.info.time_pretransfer = self.started.elapsed();
        self.ftp_accept_start()
    }
}
