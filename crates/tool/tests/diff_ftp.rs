//! Differential tests: ftp:// downloads (curl's `lib/ftp.c`) against the reference curl
//! 8.14.1, through `oxcurl_testsupport::ftp::diff` (a fresh scripted server for each side;
//! exit code, stdout, control-connection bytes and stderr compared). `vsftpd_*` run against
//! Debian's vsftpd.

use oxcurl_testsupport::daemons::Vsftpd;
use oxcurl_testsupport::ftp::diff::{self, Case, Side};
use oxcurl_testsupport::ftp::{FtpServer, Transfer};
use oxcurl_testsupport::process::reference_curl;
use oxcurl_testsupport::{under_test, Exec, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn ftp_case(
    name: &str,
    setup: impl Fn(&FtpServer),
    args: &[&str],
    compare_stderr: bool,
) -> (Side, Side) {
    let case = Case {
        compare_stderr,
        ..Case::new(name, args)
    };
    diff::ftp_case(&under_test(OXCURL), setup, case)
}

fn files(s: &FtpServer) {
    s.file("/top.txt", "at the top\n");
    s.file("/dir/sub/file.txt", "hello ftp world\n");
    s.file(
        "/dir/other.bin",
        oxcurl_testsupport::http::generated_body(100_000),
    );
}

// ---- downloads ------------------------------------------------------------------

#[test]
fn ftp_download_root_file() {
    let (_, o) = ftp_case("root", files, &["-sS", "{ftp}/top.txt"], true);
    assert_eq!(o.out.stdout, b"at the top\n");
}

#[test]
fn ftp_download_nested_dirs() {
    let (_, o) = ftp_case("nested", files, &["-sS", "{ftp}/dir/sub/file.txt"], true);
    assert!(o.control[0].contains("CWD dir\r\nCWD sub\r\n"));
}

#[test]
fn ftp_download_large_binary() {
    ftp_case("large", files, &["-sS", "{ftp}/dir/other.bin"], true);
}

#[test]
fn ftp_reuse_across_urls_goes_back_to_the_entry_path() {
    let (_, o) = ftp_case(
        "reuse",
        files,
        &[
            "-sS",
            "{ftp}/dir/sub/file.txt",
            "{ftp}/top.txt",
            "{ftp}/dir/other.bin",
        ],
        true,
    );
    assert_eq!(o.control.len(), 1, "one control connection for all three");
    assert!(o.control[0].contains("CWD /\r\n"));
}

#[test]
fn ftp_same_path_twice_needs_no_cwd() {
    ftp_case(
        "same_path",
        files,
        &["-sS", "{ftp}/dir/sub/file.txt", "{ftp}/dir/sub/file.txt"],
        true,
    );
}

#[test]
fn ftp_verbose_trace() {
    ftp_case(
        "verbose",
        files,
        &["-sv", "{ftp}/dir/sub/file.txt", "{ftp}/top.txt"],
        true,
    );
}

#[test]
fn ftp_dump_header_gets_the_replies() {
    ftp_case(
        "dump_header",
        files,
        &["-sS", "-D", "-", "{ftp}/dir/sub/file.txt"],
        true,
    );
}

#[test]
fn ftp_user_and_password() {
    ftp_case(
        "userpwd",
        |s| {
            files(s);
            s.set_login("alice", "s3cret");
        },
        &["-sS", "-u", "alice:s3cret", "{ftp}/top.txt"],
        true,
    );
    ftp_case(
        "url_userpwd",
        |s| {
            files(s);
            s.set_login("bob", "p@ss");
        },
        &["-sS", "ftp://bob:p%40ss@{hp}/top.txt"],
        true,
    );
}

#[test]
fn ftp_type_a_from_url_and_option() {
    ftp_case("type_a", files, &["-sS", "{ftp}/top.txt;type=A"], true);
    ftp_case("use_ascii", files, &["-sS", "-B", "{ftp}/top.txt"], true);
}

#[test]
fn ftp_percent_encoded_path() {
    ftp_case(
        "pct",
        |s| s.file("/a dir/b.txt", "spaced\n"),
        &["-sS", "{ftp}/a%20dir/b.txt"],
        true,
    );
}

// ---- passive mode -------------------------------------------------------------------

#[test]
fn ftp_epsv_refused_falls_back_to_pasv() {
    ftp_case(
        "epsv_refused",
        |s| {
            files(s);
            s.reply_once("EPSV", "500 no EPSV here\r\n");
        },
        &["-sv", "{ftp}/top.txt"],
        true,
    );
}

#[test]
fn ftp_disable_epsv_uses_pasv() {
    let (_, o) = ftp_case(
        "disable_epsv",
        files,
        &["-sS", "--disable-epsv", "{ftp}/top.txt"],
        true,
    );
    assert!(o.control[0].contains("PASV\r\n") && !o.control[0].contains("EPSV"));
}

#[test]
fn ftp_weird_epsv_reply() {
    ftp_case(
        "weird_epsv",
        |s| {
            files(s);
            s.reply_always("EPSV", "229 Entering Extended Passive Mode (no port)\r\n");
        },
        &["-sS", "{ftp}/top.txt"],
        true,
    );
}

#[test]
fn ftp_weird_pasv_reply() {
    ftp_case(
        "weird_pasv",
        |s| {
            files(s);
            s.reply_always("PASV", "227 Entering Passive Mode (1,2,3)\r\n");
        },
        &["-sS", "--disable-epsv", "{ftp}/top.txt"],
        true,
    );
}

#[test]
fn ftp_pasv_address_used_without_skip_pasv_ip() {
    // Nothing listens on 127.0.0.2:1: the client fails where the reply sends it, and only
    // when it takes the reply's address.
    let pasv = |s: &FtpServer| {
        files(s);
        s.reply_always("PASV", "227 Entering Passive Mode (127,0,0,2,0,1)\r\n");
    };
    let (_, o) = ftp_case(
        "pasv_ip_used",
        pasv,
        &[
            "-sv",
            "--disable-epsv",
            "--no-ftp-skip-pasv-ip",
            "{ftp}/top.txt",
        ],
        true,
    );
    assert!(o.stderr.contains("127.0.0.2"), "{}", o.stderr);
    ftp_case(
        "pasv_ip_skipped",
        pasv,
        &["-sv", "--disable-epsv", "{ftp}/top.txt"],
        true,
    );
}

// ---- errors -------------------------------------------------------------------------

#[test]
fn ftp_missing_file() {
    ftp_case("missing", files, &["-sS", "{ftp}/nope.txt"], true);
}

#[test]
fn ftp_missing_dir() {
    ftp_case("missing_dir", files, &["-sS", "{ftp}/nodir/x.txt"], true);
}

#[test]
fn ftp_login_denied() {
    ftp_case(
        "login_denied",
        |s| {
            files(s);
            s.reply_always("PASS", "530 Login incorrect.\r\n");
        },
        &["-sS", "{ftp}/top.txt"],
        true,
    );
}

#[test]
fn ftp_greeting_not_220() {
    ftp_case(
        "greeting",
        |s| s.set_greeting("421 Too many users\r\n"),
        &["-sS", "{ftp}/top.txt"],
        true,
    );
}

#[test]
fn ftp_multiline_greeting_and_replies() {
    ftp_case(
        "multiline",
        |s| {
            files(s);
            s.set_greeting("220-Welcome\r\n220-to the\r\n220 server\r\n");
            s.reply_once("PWD", "257-\"/\" is current\r\n257 directory\r\n");
        },
        &["-sv", "{ftp}/top.txt"],
        true,
    );
}

#[test]
fn ftp_truncated_download() {
    ftp_case(
        "truncated",
        |s| {
            files(s);
            s.set_transfer(Transfer::new().truncate(5));
        },
        &["-sS", "{ftp}/dir/sub/file.txt"],
        true,
    );
    ftp_case(
        "truncated_verbose",
        |s| {
            files(s);
            s.set_transfer(Transfer::new().truncate(5));
        },
        &["-sv", "{ftp}/dir/sub/file.txt"],
        true,
    );
}

#[test]
fn ftp_server_closes_control_connection() {
    ftp_case(
        "closed",
        |s| {
            files(s);
            s.reply_always("PWD", oxcurl_testsupport::ftp::FtpReply::new().close());
        },
        &["-sS", "{ftp}/top.txt"],
        false,
    );
}

// ---- a real server ------------------------------------------------------------------

fn vsftpd_case(name: &str, paths: &[&str]) {
    let root = TempDir::new("vsftpd-root");
    std::fs::write(root.join("hello.txt"), "hello from vsftpd\n").unwrap();
    std::fs::create_dir_all(root.join("pub/deep")).unwrap();
    std::fs::write(
        root.join("pub/deep/data.bin"),
        oxcurl_testsupport::http::generated_body(300_000),
    )
    .unwrap();
    let Some(d) = Vsftpd::try_start(root.path()) else {
        return;
    };
    let base = d.url();
    let base = base.trim_end_matches('/');
    let args: Vec<String> = std::iter::once("-sS".to_string())
        .chain(paths.iter().map(|p| format!("{base}/{p}")))
        .collect();
    let r = Exec::new(reference_curl()).args(&args).run();
    let o = Exec::new(under_test(OXCURL)).args(&args).run();
    assert_eq!(r.exit_code(), o.exit_code(), "{name}: {}", o.stderr_str());
    assert!(r.stdout == o.stdout, "{name}: stdout differs");
    assert_eq!(r.stderr_str(), o.stderr_str(), "{name}: stderr differs");
}

#[test]
fn vsftpd_download() {
    vsftpd_case("vsftpd_one", &["hello.txt"]);
}

#[test]
fn vsftpd_downloads_on_one_connection() {
    vsftpd_case(
        "vsftpd_reuse",
        &["pub/deep/data.bin", "hello.txt", "pub/deep/data.bin"],
    );
}

#[test]
fn vsftpd_missing_file() {
    vsftpd_case("vsftpd_missing", &["nope.txt"]);
}

/// One command line against a fresh vsftpd for each client (anonymous uploads allowed in
/// `incoming/`): exit code, stdout, stderr and the named file of the served tree afterwards
/// must agree.
fn vsftpd_each(name: &str, args: &[&str], after: Option<&str>) {
    use oxcurl_testsupport::daemons::VsftpdOptions;
    let mut results = Vec::new();
    for bin in [reference_curl(), under_test(OXCURL)] {
        let root = TempDir::new("vsftpd-each");
        std::fs::write(root.join("hello.txt"), "hello from vsftpd\r\nline two\r\n").unwrap();
        std::fs::create_dir_all(root.join("pub")).unwrap();
        std::fs::write(
            root.join("pub/data.bin"),
            oxcurl_testsupport::http::generated_body(200_000),
        )
        .unwrap();
        // One file time for both runs: -I shows it.
        for f in ["hello.txt", "pub/data.bin"] {
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
            let file = std::fs::File::options()
                .write(true)
                .open(root.join(f))
                .unwrap();
            file.set_modified(t).unwrap();
        }
        let local = TempDir::new("vsftpd-local");
        std::fs::write(local.join("up.txt"), "uploaded\nby the client\n").unwrap();
        let opts = VsftpdOptions::new().upload_dir("incoming");
        let Some(d) = Vsftpd::try_start_with(root.path(), &opts) else {
            return;
        };
        let base = d.url();
        let base = base.trim_end_matches('/');
        let args: Vec<String> = args.iter().map(|a| a.replace("{ftp}", base)).collect();
        let out = Exec::new(&bin).args(&args).cwd(local.path()).run();
        let file = after.and_then(|p| std::fs::read(d.root().join(p)).ok());
        results.push((out.exit_code(), out.stdout.clone(), out.stderr_str(), file));
    }
    if results.len() == 2 {
        assert_eq!(
            results[0].0, results[1].0,
            "{name}: exit codes differ: {}",
            results[1].2
        );
        assert!(results[0].1 == results[1].1, "{name}: stdout differs");
        assert_eq!(results[0].2, results[1].2, "{name}: stderr differs");
        assert!(
            results[0].3 == results[1].3,
            "{name}: the served file differs"
        );
        assert!(
            after.is_none() || results[1].3.is_some(),
            "{name}: no file was left"
        );
        assert_eq!(results[1].0, 0, "{name}: {}", results[1].2);
    }
}

/// [`vsftpd_each`] for a command line both clients must fail the same way.
fn vsftpd_each_failing(name: &str, args: &[&str]) {
    let mut results = Vec::new();
    for bin in [reference_curl(), under_test(OXCURL)] {
        let root = TempDir::new("vsftpd-each");
        std::fs::write(root.join("hello.txt"), "hello from vsftpd\r\n").unwrap();
        let Some(d) = Vsftpd::try_start(root.path()) else {
            return;
        };
        let base = d.url();
        let base = base.trim_end_matches('/');
        let args: Vec<String> = args.iter().map(|a| a.replace("{ftp}", base)).collect();
        let out = Exec::new(&bin).args(&args).run();
        results.push((out.exit_code(), out.stdout.clone(), out.stderr_str()));
    }
    if results.len() == 2 {
        assert_eq!(results[0], results[1], "{name}");
        assert_ne!(results[1].0, 0, "{name}: it was to fail");
    }
}

#[test]
fn vsftpd_upload_listing_range_and_active_mode() {
    vsftpd_each(
        "upload",
        &["-sS", "-T", "up.txt", "{ftp}/incoming/"],
        Some("incoming/up.txt"),
    );
    vsftpd_each("listing", &["-sS", "-l", "{ftp}/pub/"], None);
    vsftpd_each("ascii", &["-sS", "{ftp}/hello.txt;type=a"], None);
    vsftpd_each(
        "range",
        &["-sS", "-r", "100-199", "{ftp}/pub/data.bin"],
        None,
    );
    vsftpd_each("active", &["-sS", "-P", "-", "{ftp}/pub/data.bin"], None);
    // An interface's name: its address (lo: 127.0.0.1, case-insensitive as curl); one
    // without an IPv4 address fails with 30; a name that is none is a host to look up.
    vsftpd_each(
        "active_iface",
        &["-sS", "-P", "LO", "{ftp}/pub/data.bin"],
        None,
    );
    vsftpd_each_failing(
        "active_not_an_iface",
        &["-sS", "-P", "no-such-iface.invalid", "{ftp}/hello.txt"],
    );
    vsftpd_each("head", &["-sS", "-I", "{ftp}/hello.txt"], None);
    vsftpd_each(
        "quote",
        &["-sS", "-Q", "NOOP", "-Q", "-STAT", "{ftp}/hello.txt"],
        None,
    );
}
