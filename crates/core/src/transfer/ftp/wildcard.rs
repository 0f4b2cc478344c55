//! Wildcard downloads (curl's `wc_statemach` in `lib/ftp.c`, `CURLOPT_WILDCARDMATCH`): the
//! URL's last path part is a pattern. The first round lists the directory, the listing going
//! to `proto::ftp_list`'s parser instead of the application, keeping the entries the pattern
//! matches (`CURLOPT_FNMATCH_FUNCTION` or `proto::fnmatch`, glibc's `fnmatch` as curl's is on
//! Linux; a symlink whose target holds another ` -> ` is dropped). Then each entry in turn:
//! `CURLOPT_CHUNK_BGN_FUNCTION` sees it (and may skip it or fail the transfer), a regular
//! file is downloaded in a round of its own on the same connection, its size known from the
//! listing (no SIZE), and `CURLOPT_CHUNK_END_FUNCTION` is called after it; entries that are
//! not regular files are skipped. Each round is the transfer starting over at `Init` with the
//! next URL, as curl's multi goes back to MSTATE_INIT; the application sees one transfer.

use std::collections::VecDeque;

use super::*;
use crate::options::ChunkBgn;
use crate::proto::ftp_list::{self, FileInfo, FileType};

/// Where a wildcard download is (curl's `wildcard->state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WcState {
    /// The directory's listing is being read.
    Listing,
    /// The entry taken from the list is being downloaded.
    Downloading,
}

#[derive(Debug)]
pub(crate) struct Wildcard {
    state: WcState,
    /// The directory's URL path, with its trailing `/`, as the URL wrote it.
    dir: String,
    pattern: Vec<u8>,
    parser: ftp_list::Parser,
    files: VecDeque<FileInfo>,
    /// The size the listing gave the file being downloaded.
    known_size: Option<u64>,
}

impl Transfer {
    /// curl's `init_wc_data`, on the first round: a pattern after the URL's last `/` makes
    /// the transfer a listing of the directory (the URL to list it with is returned). A URL
    /// ending in `/` is a plain listing, and later rounds use the URL as set for them.
    pub(super) fn wildcard_setup(&mut self, url: &Url) -> Option<Url> {
        if !self.opts.ftp().wildcard || self.wildcard.is_some() {
            return None;
        }
        let path = url.path();
        let cut = path.rfind('/').map_or(0, |i| i + 1);
        if cut >= path.len() {
            return None;
        }
        let (dir, pattern) = path.split_at(cut);
        let mut listing = url.clone();
        listing.set(Part::Path, Some(dir), Flags::default()).ok()?;
        self.wildcard = Some(Box::new(Wildcard {
            state: WcState::Listing,
            dir: dir.to_string(),
            pattern: pattern.as_bytes().to_vec(),
            parser: ftp_list::Parser::new(),
            files: VecDeque::new(),
            known_size: None,
        }));
        self.verbose("Wildcard - Parsing started");
        Some(listing)
    }

    /// Listing bytes of a wildcard download: parsed, the matching entries kept. False when
    /// the transfer is no wildcard listing (the bytes are the application's).
    pub(super) fn wildcard_listing(&mut self, data: &[u8]) -> bool {
        let Some(wc) = self
            .wildcard
            .as_mut()
            .filter(|w| w.state == WcState::Listing)
        else {
            return false;
        };
        let mut found = Vec::new();
        wc.parser.feed(data, &mut |f| found.push(f));
        for f in found {
            let wc = self.wildcard.as_ref().expect("wildcard");
            let matched = match self.callbacks.fnmatch(&wc.pattern, &f.filename) {
                Some(rc) => rc == 0,
                None => crate::proto::fnmatch::fnmatch(&wc.pattern, &f.filename),
            };
            let looped_link = f.filetype == FileType::Symlink
                && f.target
                    .as_ref()
                    .is_some_and(|t| t.windows(4).any(|w| w == b" -> "));
            if matched && !looped_link {
                self.wildcard.as_mut().expect("wildcard").files.push_back(f);
            }
        }
        true
    }

    /// The last round's remembered directory: the URL-decoded path (without its leading
    /// `/`), as curl's `ftp_done` keeps it when no file was cut from it.
    fn wildcard_remember(&mut self, path: &[u8]) {
        let raw = String::from_utf8_lossy(path);
        let raw = raw.strip_prefix('/').unwrap_or(&raw);
        let Some(decoded) =
            oxcurl_urlapi::escape::urldecode(raw.as_bytes(), oxcurl_urlapi::escape::Reject::Ctrl)
        else {
            return;
        };
        let note = format!(
            "Remembering we are in dir \"{}\"",
            String::from_utf8_lossy(&decoded)
        );
        if let Some(c) = self.conn.as_mut() {
            conn_meta(c).prev_path = Some(decoded);
            self.verbose(&note);
        }
    }

    /// The size the listing gave the file this round downloads.
    pub(super) fn wildcard_known_size(&self) -> Option<u64> {
        self.wildcard
            .as_ref()
            .filter(|w| w.state == WcState::Downloading)
            .and_then(|w| w.known_size)
    }

    /// After a round: the next file's round (true: the transfer starts over), or the end of
    /// the wildcard download (false), or its error.
    pub(super) fn wildcard_next(&mut self) -> Result<bool> {
        let Some(wc) = self.wildcard.as_mut() else {
            return Ok(false);
        };
        match wc.state {
            WcState::Listing => {
                if let Some(e) = wc.parser.error() {
                    self.wildcard = None;
                    return Err(Error::code(e));
                }
                if wc.files.is_empty() {
                    self.wildcard = None;
                    return Err(Error::code(Code::RemoteFileNotFound));
                }
                wc.state = WcState::Downloading;
            }
            WcState::Downloading => self.callbacks.chunk_end(),
        }
        // curl ends with a round that transfers nothing and remembers its path as the
        // connection's directory: the URL's (pattern included) after a download, the last
        // skipped entry's after skips.
        let mut final_path = {
            let wc = self.wildcard.as_ref().expect("wildcard");
            let mut p = wc.dir.clone().into_bytes();
            p.extend_from_slice(&wc.pattern);
            p
        };
        loop {
            let wc = self.wildcard.as_mut().expect("wildcard");
            let remains = wc.files.len();
            let Some(f) = wc.files.pop_front() else {
                self.wildcard_remember(&final_path);
                self.wildcard = None;
                return Ok(false);
            };
            let name = String::from_utf8_lossy(&f.filename).into_owned();
            final_path = [wc.dir.as_bytes(), &f.filename].concat();
            self.verbose(&format!("Wildcard - START of \"{name}\""));
            match self.callbacks.chunk_bgn(&f, remains) {
                ChunkBgn::Ok => {}
                ChunkBgn::Skip => {
                    self.verbose(&format!("Wildcard - \"{name}\" skipped by user"));
                    self.callbacks.chunk_end();
                    continue;
                }
                ChunkBgn::Fail => {
                    self.wildcard = None;
                    return Err(Error::code(Code::ChunkFailed));
                }
            }
            if f.filetype != FileType::File {
                self.callbacks.chunk_end();
                continue;
            }
            let wc = self.wildcard.as_mut().expect("wildcard");
            wc.known_size = (f.flags & ftp_list::flag::KNOWN_SIZE != 0)
                .then(|| u64::try_from(f.size).ok())
                .flatten();
            // curl's path is the directory and the name as the listing wrote it; an
            // unusual byte in it is written as the URL parser writes it.
            let path = format!("{}{}", wc.dir, name);
            let mut url = (**self.url.as_ref().expect("url")).clone();
            let encode = Flags {
                url_encode: true,
                ..Flags::default()
            };
            if url.set(Part::Path, Some(&path), encode).is_err() {
                self.wildcard = None;
                return Err(Error::code(Code::UrlMalformat));
            }
            self.url = Some(Arc::new(url));
            self.state = State::Init;
            return Ok(true);
        }
    }
}
