//! FTP through the engine's callbacks, against the scripted FTP server: wildcard downloads
//! (`CURLOPT_WILDCARDMATCH`: which files are fetched and in which order, what the chunk
//! callbacks see, skipping, failing, a custom matcher, the listing errors curl gives) and
//! `CURLOPT_CONNECT_ONLY`.

use std::sync::{Arc, Mutex};

use oxcurl_core::easy::Easy;
use oxcurl_core::error::Code;
use oxcurl_core::options::{Callbacks, ChunkBgn, Options};
use oxcurl_core::proto::ftp_list::FileInfo;
use oxcurl_testsupport::ftp::FtpServer;

#[derive(Default)]
struct Seen {
    body: Vec<u8>,
    begun: Vec<(String, usize)>,
    ended: usize,
}

struct Record {
    seen: Arc<Mutex<Seen>>,
    skip: Option<&'static str>,
    fail: Option<&'static str>,
    match_all: bool,
}

impl Callbacks for Record {
    fn write(&mut self, data: &[u8]) -> usize {
        self.seen.lock().unwrap().body.extend_from_slice(data);
        data.len()
    }
    fn chunk_bgn(&mut self, f: &FileInfo, remains: usize) -> ChunkBgn {
        let name = String::from_utf8_lossy(&f.filename).into_owned();
        self.seen
            .lock()
            .unwrap()
            .begun
            .push((name.clone(), remains));
        if self.fail == Some(name.as_str()) {
            return ChunkBgn::Fail;
        }
        if self.skip == Some(name.as_str()) {
            return ChunkBgn::Skip;
        }
        ChunkBgn::Ok
    }
    fn chunk_end(&mut self) {
        self.seen.lock().unwrap().ended += 1;
    }
    fn fnmatch(&mut self, _pattern: &[u8], _name: &[u8]) -> Option<i32> {
        self.match_all.then_some(0)
    }
}

const LISTING: &str = "\
drwxr-xr-x    2 ftp ftp        4096 Jan  1  2020 sub\r\n\
-rw-r--r--    1 ftp ftp           6 Jan  1  2020 a.txt\r\n\
-rw-r--r--    1 ftp ftp           4 Jan  1  2020 b.dat\r\n\
-rw-r--r--    1 ftp ftp           6 Jan  1  2020 c.txt\r\n";

fn server() -> FtpServer {
    let s = FtpServer::start();
    s.file("/dir/a.txt", "aaaaa\n");
    s.file("/dir/b.dat", "bbb\n");
    s.file("/dir/c.txt", "ccccc\n");
    s.dir("/dir/sub");
    s.listing("/dir", LISTING);
    s
}

fn run(
    s: &FtpServer,
    path: &str,
    skip: Option<&'static str>,
    fail: Option<&'static str>,
    match_all: bool,
) -> (Result<(), Code>, Seen) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut opts = Options {
        url: Some(format!("{}{path}", s.url())),
        ..Options::default()
    };
    opts.ftp_mut().wildcard = true;
    let cb = Record {
        seen: seen.clone(),
        skip,
        fail,
        match_all,
    };
    let mut e = Easy::new(opts, Box::new(cb));
    let r = e.perform().map_err(|e| e.code);
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    (r, seen)
}

#[test]
fn the_matching_files_in_listing_order() {
    let s = server();
    let (r, seen) = run(&s, "dir/*.txt", None, None, false);
    assert_eq!(r, Ok(()));
    assert_eq!(seen.body, b"aaaaa\nccccc\n");
    assert_eq!(
        seen.begun,
        [("a.txt".to_string(), 2), ("c.txt".to_string(), 1)]
    );
    assert_eq!(seen.ended, 2);
    // One connection, one login, the listing, then each file without SIZE (the listing
    // gave the sizes), as curl's test 574 shows.
    let cmds = s.commands(0);
    let after_pwd: Vec<&str> = cmds
        .iter()
        .skip_while(|c| *c != "PWD")
        .skip(1)
        .map(String::as_str)
        .filter(|c| *c != "QUIT")
        .collect();
    assert_eq!(
        after_pwd,
        [
            "CWD dir",
            "EPSV",
            "TYPE A",
            "LIST",
            "EPSV",
            "TYPE I",
            "RETR a.txt",
            "EPSV",
            "RETR c.txt"
        ]
    );
}

#[test]
fn everything_with_a_matcher_that_matches_all_directories_skipped() {
    let s = server();
    let (r, seen) = run(&s, "dir/x", None, None, true);
    assert_eq!(r, Ok(()));
    // The directory is shown to CHUNK_BGN, then skipped.
    assert_eq!(seen.begun.len(), 4);
    assert_eq!(seen.body, b"aaaaa\nbbb\nccccc\n");
    assert_eq!(seen.ended, 4);
}

#[test]
fn skipping_and_failing_from_the_chunk_callback() {
    let s = server();
    let (r, seen) = run(&s, "dir/*.txt", Some("a.txt"), None, false);
    assert_eq!(r, Ok(()));
    assert_eq!(seen.body, b"ccccc\n");
    let (r, seen) = run(&s, "dir/*", None, Some("b.dat"), false);
    assert_eq!(r, Err(Code::ChunkFailed));
    assert_eq!(seen.body, b"aaaaa\n");
}

#[test]
fn nothing_matching_is_remote_file_not_found() {
    let s = server();
    let (r, seen) = run(&s, "dir/*.none", None, None, false);
    assert_eq!(r, Err(Code::RemoteFileNotFound));
    assert!(seen.body.is_empty() && seen.begun.is_empty());
}

#[test]
fn a_listing_curl_cannot_parse_fails_with_87() {
    let s = server();
    s.listing(
        "/dir",
        "total 3\r\n-rw-r--r-- 1 ftp ftp 6 Jan  1  2020 a.txt\r\n",
    );
    let (r, _) = run(&s, "dir/*.txt", None, None, false);
    assert_eq!(r, Err(Code::FtpBadFileList));
}

#[test]
fn a_url_ending_in_a_slash_is_a_plain_listing() {
    let s = server();
    let (r, seen) = run(&s, "dir/", None, None, false);
    assert_eq!(r, Ok(()));
    // An ASCII listing, its CRLF made LF as curl does.
    assert_eq!(seen.body, LISTING.replace("\r\n", "\n").as_bytes());
    assert!(seen.begun.is_empty());
}

/// CONNECT_ONLY with ftp:// logs in and stops there (curl's test 597), with no QUIT when the
/// connection goes.
#[test]
fn connect_only_logs_in_and_stops() {
    let s = server();
    let opts = Options {
        url: Some(s.url()),
        connect_only: true,
        ..Options::default()
    };
    let seen = Arc::new(Mutex::new(Seen::default()));
    let cb = Record {
        seen,
        skip: None,
        fail: None,
        match_all: false,
    };
    let mut e = Easy::new(opts, Box::new(cb));
    assert_eq!(e.perform().map_err(|e| e.code), Ok(()));
    drop(e);
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_eq!(
        s.commands(0),
        ["USER anonymous", "PASS ftp@example.com", "PWD"]
    );
}
