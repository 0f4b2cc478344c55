//! The scripted FTP server and vsftpd, driven by a plain TCP client: every reply and
//! every recorded byte is checked exactly.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use oxcurl_testsupport::daemons::{Vsftpd, VsftpdOptions};
use oxcurl_testsupport::fs::TempDir;
use oxcurl_testsupport::ftp::{mdtm, FinalAt, FtpReply, FtpServer, Transfer, DEFAULT_GREETING};
use oxcurl_testsupport::process::Exec;

const IDLE: Duration = Duration::from_secs(5);

/// A minimal FTP client that hands back replies exactly as received.
struct Client {
    c: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let c = TcpStream::connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        Client { c, buf: Vec::new() }
    }

    /// One line through its `\n`, or what arrived before EOF.
    fn line(&mut self) -> Vec<u8> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                return self.buf.drain(..=i).collect();
            }
            let mut tmp = [0u8; 4096];
            match self.c.read(&mut tmp).unwrap() {
                0 => return std::mem::take(&mut self.buf),
                n => self.buf.extend_from_slice(&tmp[..n]),
            }
        }
    }

    /// One whole reply (all lines of a multi-line one), verbatim.
    fn reply(&mut self) -> String {
        String::from_utf8(self.reply_bytes()).unwrap()
    }

    fn reply_bytes(&mut self) -> Vec<u8> {
        let first = self.line();
        let mut out = first.clone();
        if first.len() > 3 && first[3] == b'-' {
            loop {
                let l = self.line();
                out.extend_from_slice(&l);
                if l.is_empty() || (l.len() > 3 && l[..3] == first[..3] && l[3] == b' ') {
                    break;
                }
            }
        }
        out
    }

    fn send(&mut self, line: &str) {
        self.c.write_all(format!("{line}\r\n").as_bytes()).unwrap();
    }

    fn cmd(&mut self, line: &str) -> String {
        self.send(line);
        self.reply()
    }

    /// Whether the server closed the connection (after anything still buffered).
    fn at_eof(&mut self) -> bool {
        self.buf.is_empty() && self.line().is_empty()
    }

    fn login(&mut self) {
        assert!(self.reply().starts_with("220"));
        assert!(self.cmd("USER anonymous").starts_with("331"));
        assert!(self.cmd("PASS x").starts_with("230"));
    }

    /// `EPSV`, then a connection to the port it names.
    fn epsv(&mut self) -> TcpStream {
        let r = self.cmd("EPSV");
        assert!(r.starts_with("229 "), "{r}");
        let port: u16 = r.split('|').nth(3).unwrap().parse().unwrap();
        let d = TcpStream::connect(("127.0.0.1", port)).unwrap();
        d.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        d
    }
}

fn read_all(mut s: TcpStream) -> Vec<u8> {
    let mut v = Vec::new();
    s.read_to_end(&mut v).unwrap();
    v
}

#[test]
fn login_pwd_cwd_and_the_recorded_commands() {
    let s = FtpServer::start();
    assert_eq!(s.url(), format!("ftp://127.0.0.1:{}/", s.port()));
    s.file("/pub/a.txt", "a");
    let mut c = Client::connect(s.addr());
    assert_eq!(c.reply(), DEFAULT_GREETING);
    assert_eq!(
        c.cmd("USER anonymous"),
        "331 Password required for anonymous\r\n"
    );
    assert_eq!(c.cmd("PASS ftp@example.com"), "230 Logged in\r\n");
    assert_eq!(c.cmd("PWD"), "257 \"/\" is current directory\r\n");
    assert_eq!(c.cmd("CWD nowhere"), "550 nowhere: No such directory\r\n");
    assert_eq!(c.cmd("CWD pub"), "250 Directory changed to /pub\r\n");
    assert_eq!(c.cmd("PWD"), "257 \"/pub\" is current directory\r\n");
    assert_eq!(c.cmd("SIZE a.txt"), "213 1\r\n");
    assert_eq!(c.cmd("CDUP"), "250 Directory changed to /\r\n");
    assert_eq!(c.cmd("SIZE a.txt"), "550 a.txt: No such file\r\n");
    assert_eq!(c.cmd("TYPE I"), "200 Type set to I\r\n");
    assert_eq!(c.cmd("XYZZY now"), "500 XYZZY: command not understood\r\n");
    assert_eq!(c.cmd("QUIT"), "221 Goodbye\r\n");
    assert!(c.at_eof());
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.connections(), 1);
    let sent = "USER anonymous\r\nPASS ftp@example.com\r\nPWD\r\nCWD nowhere\r\nCWD pub\r\nPWD\r\n\
                SIZE a.txt\r\nCDUP\r\nSIZE a.txt\r\nTYPE I\r\nXYZZY now\r\nQUIT\r\n";
    assert_eq!(s.control_bytes(0), sent.as_bytes());
    let lines: Vec<String> = sent.split_terminator("\r\n").map(String::from).collect();
    assert_eq!(s.commands(0), lines);
    assert!(s.control_bytes(1).is_empty());
}

#[test]
fn login_can_be_required() {
    let s = FtpServer::start();
    s.set_login("alice", "secret");
    let mut c = Client::connect(s.addr());
    c.reply();
    c.cmd("USER alice");
    assert_eq!(c.cmd("PASS wrong"), "530 Login incorrect\r\n");
    c.cmd("USER alice");
    assert_eq!(c.cmd("PASS secret"), "230 Logged in\r\n");
}

#[test]
fn epsv_retr_sends_the_file_then_226() {
    let s = FtpServer::start();
    let body: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    s.file_with_time("dir/blob.bin", &body, 1_709_210_096);
    let mut c = Client::connect(s.addr());
    c.login();
    assert_eq!(c.cmd("CWD /dir"), "250 Directory changed to /dir\r\n");
    let d = c.epsv();
    assert_eq!(c.cmd("TYPE I"), "200 Type set to I\r\n");
    assert_eq!(c.cmd("SIZE blob.bin"), "213 100000\r\n");
    assert_eq!(c.cmd("MDTM blob.bin"), "213 20240229123456\r\n");
    assert_eq!(mdtm(1_709_210_096), "20240229123456");
    assert_eq!(
        c.cmd("RETR blob.bin"),
        "150 Opening BINARY mode data connection for blob.bin (100000 bytes)\r\n"
    );
    assert_eq!(read_all(d), body);
    assert_eq!(c.reply(), "226 Transfer complete\r\n");

    // REST: the rest of the file, and the 150 counts what is sent.
    let d = c.epsv();
    assert_eq!(c.cmd("REST 99990"), "350 Restarting at 99990\r\n");
    assert_eq!(
        c.cmd("RETR blob.bin"),
        "150 Opening BINARY mode data connection for blob.bin (10 bytes)\r\n"
    );
    assert_eq!(read_all(d), &body[99_990..]);
    assert_eq!(c.reply(), "226 Transfer complete\r\n");
    assert_eq!(
        c.cmd("RETR blob.bin"),
        "425 Use EPSV, PASV, EPRT or PORT first\r\n"
    );
    assert_eq!(
        c.cmd("RETR gone.bin"),
        "550 gone.bin: No such file or directory\r\n"
    );
    drop(c);
    assert!(s.wait_idle(IDLE));
    let recs = s.data_records();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].command, "RETR blob.bin");
    assert_eq!(
        (recs[0].conn, recs[0].passive, recs[0].sent),
        (0, true, 100_000)
    );
    assert_eq!(recs[1].sent, 10);
    assert!(s.data_bytes(0).is_empty());
}

#[test]
fn pasv_list_and_nlst() {
    let s = FtpServer::start();
    s.file_with_time("/pub/one.txt", "1", 0);
    s.file("/pub/two.txt", "22");
    s.dir("/pub/sub");
    let mut c = Client::connect(s.addr());
    c.login();
    assert_eq!(c.cmd("CWD pub"), "250 Directory changed to /pub\r\n");
    let pasv = |c: &mut Client| {
        let r = c.cmd("PASV");
        let inner = r
            .split('(')
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap()
            .to_string();
        let n: Vec<u16> = inner.split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!(&n[..4], &[127, 0, 0, 1], "{r}");
        assert_eq!(
            r,
            format!(
                "227 Entering Passive Mode (127,0,0,1,{},{})\r\n",
                n[4], n[5]
            )
        );
        TcpStream::connect(("127.0.0.1", n[4] << 8 | n[5])).unwrap()
    };
    let d = pasv(&mut c);
    assert_eq!(c.cmd("TYPE A"), "200 Type set to A\r\n");
    assert_eq!(c.cmd("LIST"), "150 Here comes the directory listing\r\n");
    let listing = "-rw-r--r--   1 ftp      ftp               1 Jan 01  1970 one.txt\r\n\
                   drwxr-xr-x   1 ftp      ftp            4096 Jan 01  2000 sub\r\n\
                   -rw-r--r--   1 ftp      ftp               2 Jan 01  2000 two.txt\r\n";
    assert_eq!(String::from_utf8(read_all(d)).unwrap(), listing);
    assert_eq!(c.reply(), "226 Transfer complete\r\n");
    assert_eq!(s.list_text("/pub", true).unwrap(), listing.as_bytes());

    let d = pasv(&mut c);
    assert_eq!(c.cmd("NLST"), "150 Here comes the directory listing\r\n");
    assert_eq!(read_all(d), b"one.txt\r\nsub\r\ntwo.txt\r\n");
    assert_eq!(c.reply(), "226 Transfer complete\r\n");

    s.listing("/", "a listing in no known format\r\n");
    let d = pasv(&mut c);
    c.cmd("LIST -a /");
    assert_eq!(read_all(d), b"a listing in no known format\r\n");
    c.reply();
    assert_eq!(
        c.cmd("LIST /missing"),
        "550 /missing: No such file or directory\r\n"
    );
}

#[test]
fn stor_and_appe_record_the_upload() {
    let s = FtpServer::start();
    s.dir("/in");
    let mut c = Client::connect(s.addr());
    c.login();
    let mut d = c.epsv();
    assert_eq!(c.cmd("STOR in/up.txt"), "150 Ok to send data\r\n");
    d.write_all(b"uploaded\0bytes\r\n").unwrap();
    d.shutdown(Shutdown::Write).unwrap();
    assert_eq!(c.reply(), "226 Transfer complete\r\n");
    assert_eq!(c.cmd("SIZE /in/up.txt"), "213 16\r\n");
    let mut d = c.epsv();
    assert_eq!(c.cmd("APPE in/up.txt"), "150 Ok to send data\r\n");
    d.write_all(b"more").unwrap();
    drop(d);
    assert_eq!(c.reply(), "226 Transfer complete\r\n");
    assert_eq!(c.cmd("STOR nodir/x"), "553 nodir/x: Cannot create file\r\n");
    assert_eq!(c.cmd("MKD nodir"), "257 \"/nodir\" created\r\n");
    assert_eq!(c.cmd("RNFR in/up.txt"), "350 Ready for RNTO\r\n");
    assert_eq!(c.cmd("RNTO nodir/x"), "250 Rename successful\r\n");
    assert_eq!(c.cmd("DELE in/up.txt"), "550 in/up.txt: No such file\r\n");
    assert_eq!(c.cmd("RMD in"), "250 Removed /in\r\n");
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.data_bytes(0), b"uploaded\0bytes\r\n");
    assert_eq!(s.data_bytes(1), b"more");
    assert_eq!(s.uploaded("in/up.txt").unwrap(), b"more");
    assert_eq!(
        s.file_content("/nodir/x").unwrap(),
        b"uploaded\0bytes\r\nmore"
    );
    assert_eq!(s.data_records()[0].command, "STOR in/up.txt");
}

#[test]
fn eprt_and_port_connect_back() {
    let s = FtpServer::start();
    s.file("f", "active data");
    let mut c = Client::connect(s.addr());
    c.login();
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    assert_eq!(
        c.cmd(&format!("EPRT |1|127.0.0.1|{port}|")),
        "200 PORT command successful\r\n"
    );
    let (d, _) = l.accept().unwrap();
    c.cmd("RETR f");
    assert_eq!(read_all(d), b"active data");
    assert_eq!(c.reply(), "226 Transfer complete\r\n");
    let (hi, lo) = (port >> 8, port & 0xff);
    assert_eq!(
        c.cmd(&format!("PORT 127,0,0,1,{hi},{lo}")),
        "200 PORT command successful\r\n"
    );
    let (d, _) = l.accept().unwrap();
    c.cmd("RETR f");
    assert_eq!(read_all(d), b"active data");
    c.reply();
    assert_eq!(
        c.cmd("PORT 10,0,0,1,4,1"),
        "504 Only loopback data connections here\r\n"
    );
    assert_eq!(c.cmd("EPRT |1|nonsense|"), "501 Bad EPRT argument\r\n");
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert!(!s.data_records()[0].passive);
}

#[test]
fn overrides_replace_replies_once_or_always() {
    let s = FtpServer::start();
    s.file("f", "x");
    s.set_greeting(b"220-first\r\n220-\0nul\xff\r\n220 last\r\n");
    s.reply_once("PASV", "227 Entering Passive Mode (1,2,3)\r\n");
    s.reply_always("size", "550 nope\r\n");
    s.reply_once("RETR secret", "550-multi\r\n550 line\r\n");
    s.reply_once("NOOP", FtpReply::delayed(Duration::from_millis(300)));
    let mut c = Client::connect(s.addr());
    assert_eq!(
        c.reply_bytes(),
        b"220-first\r\n220-\0nul\xff\r\n220 last\r\n" as &[u8]
    );
    assert_eq!(c.cmd("PASV"), "227 Entering Passive Mode (1,2,3)\r\n");
    assert!(c
        .cmd("PASV")
        .starts_with("227 Entering Passive Mode (127,0,0,1,"));
    assert_eq!(c.cmd("SIZE f"), "550 nope\r\n");
    assert_eq!(c.cmd("SIZE f"), "550 nope\r\n");
    assert_eq!(c.cmd("RETR secret"), "550-multi\r\n550 line\r\n");
    let t = Instant::now();
    assert_eq!(c.cmd("NOOP"), "200 NOOP ok\r\n");
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert_eq!(c.cmd("NOOP"), "200 NOOP ok\r\n");

    // A handler comes first; then a reply that closes the control connection midway.
    s.set_handler(|cmd| (cmd.name == "SYST").then(|| FtpReply::raw("215 handled\r\n")));
    assert_eq!(c.cmd("SYST"), "215 handled\r\n");
    s.reply_once("PWD", FtpReply::raw("257 \"/").close());
    assert_eq!(c.cmd("PWD"), "257 \"/");
    assert!(c.at_eof());
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.commands(0).last().unwrap(), "PWD");
}

#[test]
fn a_reply_that_never_comes_still_records() {
    let s = FtpServer::start();
    s.reply_always("PWD", FtpReply::never());
    s.set_greeting(FtpReply::new().write_slowly("220 slow\r\n", 3, Duration::from_millis(20)));
    let mut c = Client::connect(s.addr());
    assert_eq!(c.reply(), "220 slow\r\n");
    c.send("PWD");
    c.c.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut tmp = [0u8; 16];
    let e = c.c.read(&mut tmp).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::WouldBlock | ErrorKind::TimedOut
    ));
    c.send("NOOP");
    drop(c);
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.commands(0), ["PWD", "NOOP"]);
    s.reset();
    assert_eq!(s.connections(), 0);
}

#[test]
fn transfers_can_be_truncated_slow_or_finish_early() {
    let s = FtpServer::start();
    s.file("f", "0123456789");
    let mut c = Client::connect(s.addr());
    c.login();

    // Closed after 4 bytes, and no final reply at all.
    s.set_transfer(Transfer::new().truncate(4).final_at(FinalAt::Never));
    let d = c.epsv();
    assert!(c.cmd("RETR f").ends_with("(10 bytes)\r\n"));
    assert_eq!(read_all(d), b"0123");
    assert_eq!(c.cmd("NOOP"), "200 NOOP ok\r\n");

    // 226 before the data, which comes slowly.
    s.set_transfer(
        Transfer::new()
            .final_at(FinalAt::BeforeData)
            .slowly(3, Duration::from_millis(30))
            .without_size(),
    );
    let d = c.epsv();
    assert_eq!(
        c.cmd("RETR f"),
        "150 Opening ASCII mode data connection for f\r\n"
    );
    assert_eq!(c.reply(), "226 Transfer complete\r\n");
    let t = Instant::now();
    assert_eq!(read_all(d), b"0123456789");
    assert!(t.elapsed() >= Duration::from_millis(60));

    // A custom final reply once 5 bytes went out, with the rest still to come.
    s.set_transfer(
        Transfer::new()
            .final_at(FinalAt::AfterBytes(5))
            .final_reply("226 early\r\n")
            .truncate(8),
    );
    let mut d = c.epsv();
    c.cmd("RETR f");
    assert_eq!(c.reply(), "226 early\r\n");
    let mut first = [0u8; 5];
    d.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"01234");
    assert_eq!(read_all(d), b"567");
    drop(c);
    assert!(s.wait_idle(IDLE));
    let sent: Vec<u64> = s.data_records().iter().map(|r| r.sent).collect();
    assert_eq!(sent, [4, 10, 8]);
}

#[test]
fn v6_server_offers_epsv_on_v6() {
    let Ok(s) = FtpServer::start_v6() else {
        return; // no IPv6 loopback here
    };
    s.file("f", "six");
    assert_eq!(s.url(), format!("ftp://[::1]:{}/", s.port()));
    let mut c = Client::connect(s.addr());
    c.login();
    let r = c.cmd("EPSV");
    let port: u16 = r.split('|').nth(3).unwrap().parse().unwrap();
    let d = TcpStream::connect(("::1", port)).unwrap();
    c.cmd("RETR f");
    assert_eq!(read_all(d), b"six");
}

/// The reference curl, when `OXCURL_REFERENCE_CURL` names it.
fn reference() -> Option<String> {
    std::env::var("OXCURL_REFERENCE_CURL")
        .ok()
        .filter(|p| !p.is_empty())
}

#[test]
fn reference_curl_downloads_and_uploads_with_the_scripted_server() {
    let Some(curl) = reference() else {
        eprintln!("OXCURL_REFERENCE_CURL not set: skipping");
        return;
    };
    let s = FtpServer::start();
    s.file("/dir/hello.txt", "hello ftp\n");
    let out = Exec::new(&curl)
        .args(["-sS", &format!("{}dir/hello.txt", s.url())])
        .timeout(Duration::from_secs(20))
        .run();
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    assert_eq!(out.stdout, b"hello ftp\n");
    assert!(s.wait_idle(IDLE));
    assert_eq!(
        s.commands(0),
        [
            "USER anonymous",
            "PASS ftp@example.com",
            "PWD",
            "CWD dir",
            "EPSV",
            "TYPE I",
            "SIZE hello.txt",
            "RETR hello.txt",
            "QUIT"
        ]
    );
    let tmp = TempDir::new("ftp-up");
    std::fs::write(tmp.join("up.txt"), "up\n").unwrap();
    let out = Exec::new(&curl)
        .args(["-sS", "-T"])
        .arg(tmp.join("up.txt"))
        .arg(format!("{}dir/", s.url()))
        .timeout(Duration::from_secs(20))
        .run();
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    assert!(s.wait_idle(IDLE));
    assert_eq!(s.uploaded("/dir/up.txt").unwrap(), b"up\n");
}

/// Logs in to vsftpd anonymously, fetches `name` over EPSV and checks every reply.
fn vsftpd_retr(ftpd: &Vsftpd, name: &str, want: &[u8]) {
    let mut c = Client::connect(SocketAddr::from(([127, 0, 0, 1], ftpd.port())));
    assert_eq!(c.reply(), "220 (vsFTPd 3.0.3)\r\n");
    assert_eq!(
        c.cmd("USER anonymous"),
        "331 Please specify the password.\r\n"
    );
    assert_eq!(c.cmd("PASS x"), "230 Login successful.\r\n");
    assert_eq!(c.cmd("TYPE I"), "200 Switching to Binary mode.\r\n");
    let d = c.epsv();
    assert_eq!(
        c.cmd(&format!("RETR {name}")),
        format!(
            "150 Opening BINARY mode data connection for {name} ({} bytes).\r\n",
            want.len()
        )
    );
    assert_eq!(read_all(d), want);
    assert_eq!(c.reply(), "226 Transfer complete.\r\n");
    assert_eq!(c.cmd("QUIT"), "221 Goodbye.\r\n");
}

#[test]
fn vsftpd_serves_anonymous_downloads() {
    let root = TempDir::new("vsftpd-root");
    let body: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    std::fs::write(root.join("file.bin"), &body).unwrap();
    let Some(ftpd) = Vsftpd::try_start(root.path()) else {
        return;
    };
    assert_eq!(ftpd.url(), format!("ftp://127.0.0.1:{}/", ftpd.port()));
    vsftpd_retr(&ftpd, "file.bin", &body);
    assert!(ftpd.log().contains("\"RETR file.bin\""), "{}", ftpd.log());
    assert!(
        ftpd.xferlog().contains("/file.bin b _ o a"),
        "{}",
        ftpd.xferlog()
    );
    if let Some(curl) = reference() {
        let out = Exec::new(&curl)
            .args(["-sS", &format!("{}file.bin", ftpd.url())])
            .timeout(Duration::from_secs(20))
            .run();
        assert_eq!(out.code, Some(0), "{}", out.stderr_str());
        assert_eq!(out.stdout, body);
    }
}

#[test]
fn vsftpd_takes_anonymous_uploads() {
    let root = TempDir::new("vsftpd-up");
    let opts = VsftpdOptions::new().upload_dir("incoming");
    let Some(ftpd) = Vsftpd::try_start_with(root.path(), &opts) else {
        return;
    };
    let mut c = Client::connect(SocketAddr::from(([127, 0, 0, 1], ftpd.port())));
    c.login();
    // The root itself is not writable.
    let _d = c.epsv();
    assert_eq!(c.cmd("STOR nope.txt"), "553 Could not create file.\r\n");
    let mut d = c.epsv();
    assert_eq!(c.cmd("STOR incoming/up.txt"), "150 Ok to send data.\r\n");
    d.write_all(b"sent by test\n").unwrap();
    drop(d);
    assert_eq!(c.reply(), "226 Transfer complete.\r\n");
    assert_eq!(
        std::fs::read(ftpd.root().join("incoming/up.txt")).unwrap(),
        b"sent by test\n"
    );
    vsftpd_retr(&ftpd, "incoming/up.txt", b"sent by test\n");
    if let Some(curl) = reference() {
        let src = TempDir::new("vsftpd-src");
        std::fs::write(src.join("c.txt"), "from curl\n").unwrap();
        let out = Exec::new(&curl)
            .args(["-sS", "--ftp-create-dirs", "-T"])
            .arg(src.join("c.txt"))
            .arg(format!("{}incoming/new/", ftpd.url()))
            .timeout(Duration::from_secs(20))
            .run();
        assert_eq!(out.code, Some(0), "{}", out.stderr_str());
        assert_eq!(
            std::fs::read(root.join("incoming/new/c.txt")).unwrap(),
            b"from curl\n"
        );
    }
}
