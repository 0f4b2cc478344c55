//! Differential tests: FTP uploads, ranges and resumes, `-I`, time conditions, quote
//! commands, file methods, listings and limits, against the reference curl 8.14.1 through
//! `oxcurl_testsupport::ftp::diff` (a fresh scripted server for each side; exit code,
//! stdout, control-connection bytes, the files on both ends and stderr compared).

use oxcurl_testsupport::ftp::diff::{self, Case, Side};
use oxcurl_testsupport::ftp::FtpServer;
use oxcurl_testsupport::under_test;

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn run(setup: impl Fn(&FtpServer), case: Case<'_>) -> (Side, Side) {
    diff::ftp_case(&under_test(OXCURL), setup, case)
}

/// 2023-04-05 06:07:08 UTC.
const MTIME: i64 = 1_680_674_828;

fn files(s: &FtpServer) {
    s.file_with_time("/top.txt", "at the top\n", MTIME);
    s.file("/dir/sub/file.txt", "hello ftp world\n");
    s.file("/dir/crlf.txt", "one\r\ntwo\r\nthree\rfour\r\n");
    s.file("/up/partial.txt", "0123");
    s.dir("/up");
}

const LOCAL: &[(&str, &[u8])] = &[("up.txt", b"0123456789\nline two\n"), ("empty.txt", b"")];

// ---- uploads ------------------------------------------------------------------------

#[test]
fn upload_stor() {
    let (_, o) = run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/up.txt"],
            ..Case::new("stor", &["-sS", "-T", "up.txt", "{ftp}/up/"])
        },
    );
    assert_eq!(o.remote[0].as_deref(), Some(&b"0123456789\nline two\n"[..]));
}

#[test]
fn upload_verbose_trace() {
    run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/new.txt"],
            ..Case::new("stor_v", &["-sv", "-T", "up.txt", "{ftp}/up/new.txt"])
        },
    );
}

#[test]
fn upload_empty_file() {
    run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/empty.txt"],
            ..Case::new("stor_empty", &["-sv", "-T", "empty.txt", "{ftp}/up/"])
        },
    );
}

#[test]
fn upload_from_stdin() {
    run(
        files,
        Case {
            stdin: Some(b"from stdin\n"),
            remote: &["/up/in.txt"],
            ..Case::new("stor_stdin", &["-sS", "-T", "-", "{ftp}/up/in.txt"])
        },
    );
}

#[test]
fn upload_append() {
    let (_, o) = run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/partial.txt"],
            ..Case::new(
                "appe",
                &["-sS", "-a", "-T", "up.txt", "{ftp}/up/partial.txt"],
            )
        },
    );
    assert!(o.control[0].contains("APPE partial.txt\r\n"));
}

#[test]
fn upload_resume_asks_size() {
    let (_, o) = run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/partial.txt"],
            ..Case::new(
                "resume_up",
                &["-sv", "-C", "-", "-T", "up.txt", "{ftp}/up/partial.txt"],
            )
        },
    );
    assert!(o.control[0].contains("SIZE partial.txt\r\n"));
}

#[test]
fn upload_resume_of_missing_file_stores() {
    run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/fresh.txt"],
            ..Case::new(
                "resume_up_missing",
                &["-sS", "-C", "-", "-T", "up.txt", "{ftp}/up/fresh.txt"],
            )
        },
    );
}

#[test]
fn upload_resume_at_offset() {
    run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/partial.txt"],
            ..Case::new(
                "resume_up_at",
                &["-sS", "-C", "4", "-T", "up.txt", "{ftp}/up/partial.txt"],
            )
        },
    );
}

#[test]
fn upload_already_complete() {
    run(
        |s| {
            files(s);
            s.file("/up/up.txt", "0123456789\nline two\n");
        },
        Case {
            before: LOCAL,
            remote: &["/up/up.txt"],
            ..Case::new(
                "up_complete",
                &["-sv", "-C", "-", "-T", "up.txt", "{ftp}/up/"],
            )
        },
    );
}

#[test]
fn upload_refused() {
    run(
        files,
        Case {
            before: LOCAL,
            ..Case::new("stor_refused", &["-sS", "-T", "up.txt", "{ftp}/"])
        },
    );
    run(
        |s| {
            files(s);
            s.reply_always("STOR", "552 Quota exceeded\r\n");
        },
        Case {
            before: LOCAL,
            ..Case::new("stor_552", &["-sS", "-T", "up.txt", "{ftp}/up/"])
        },
    );
}

#[test]
fn upload_creates_missing_dirs() {
    let (_, o) = run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/a/b/up.txt"],
            ..Case::new(
                "create_dirs",
                &["-sv", "--ftp-create-dirs", "-T", "up.txt", "{ftp}/up/a/b/"],
            )
        },
    );
    assert!(o.control[0].contains("MKD a\r\n"));
}

#[test]
fn upload_without_create_dirs_fails_on_missing_dir() {
    run(
        files,
        Case {
            before: LOCAL,
            ..Case::new("no_create_dirs", &["-sS", "-T", "up.txt", "{ftp}/up/a/"])
        },
    );
}

#[test]
fn upload_crlf_and_ascii_convert_line_ends() {
    run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/up.txt"],
            ..Case::new("up_crlf", &["-sS", "--crlf", "-T", "up.txt", "{ftp}/up/"])
        },
    );
    run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/up.txt"],
            ..Case::new("up_ascii", &["-sS", "-B", "-T", "up.txt", "{ftp}/up/"])
        },
    );
}

#[test]
fn upload_to_url_without_file_name_gets_the_local_name() {
    run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up.txt"],
            ..Case::new("stor_root", &["-sS", "-T", "up.txt", "{ftp}"])
        },
    );
}

// ---- ranges and resumed downloads ---------------------------------------------------

#[test]
fn range_from_to_sends_rest_and_abor() {
    let (_, o) = run(
        files,
        Case::new("range", &["-sv", "-r", "2-6", "{ftp}/dir/sub/file.txt"]),
    );
    assert_eq!(o.out.stdout, b"llo f");
}

#[test]
fn range_open_ended_and_suffix() {
    run(
        files,
        Case::new("range_from", &["-sS", "-r", "6-", "{ftp}/dir/sub/file.txt"]),
    );
    run(
        files,
        Case::new("range_last", &["-sv", "-r", "-4", "{ftp}/dir/sub/file.txt"]),
    );
}

#[test]
fn range_beyond_the_file() {
    run(
        files,
        Case::new(
            "range_beyond",
            &["-sS", "-r", "100-200", "{ftp}/dir/sub/file.txt"],
        ),
    );
    run(
        files,
        Case::new(
            "range_last_beyond",
            &["-sS", "-r", "-100", "{ftp}/dir/sub/file.txt"],
        ),
    );
}

#[test]
fn resume_download_at_offset() {
    run(
        files,
        Case::new("resume_at", &["-sv", "-C", "6", "{ftp}/dir/sub/file.txt"]),
    );
}

#[test]
fn resume_download_from_local_file() {
    let before: &[(&str, &[u8])] = &[("file.txt", b"hello")];
    run(
        files,
        Case {
            before,
            local: &["file.txt"],
            ..Case::new(
                "resume_auto",
                &["-sS", "-C", "-", "-O", "{ftp}/dir/sub/file.txt"],
            )
        },
    );
}

#[test]
fn resume_download_already_complete() {
    run(
        files,
        Case::new(
            "resume_done",
            &["-sv", "-C", "16", "{ftp}/dir/sub/file.txt"],
        ),
    );
}

#[test]
fn resume_download_rest_refused() {
    run(
        |s| {
            files(s);
            s.reply_always("REST", "502 REST not implemented\r\n");
        },
        Case::new(
            "rest_refused",
            &["-sS", "-C", "3", "{ftp}/dir/sub/file.txt"],
        ),
    );
}

// ---- -I, -R and -z ------------------------------------------------------------------

#[test]
fn head_shows_size_time_and_ranges() {
    let (_, o) = run(files, Case::new("head", &["-sS", "-I", "{ftp}/top.txt"]));
    let text = o.out.stdout_str();
    assert!(text.contains("Content-Length: 11\r\n"), "{text}");
    assert!(
        text.contains("Last-Modified: Wed, 05 Apr 2023 06:07:08 GMT\r\n"),
        "{text}"
    );
    run(
        files,
        Case::new("head_v", &["-sv", "-I", "{ftp}/dir/sub/file.txt"]),
    );
    run(
        files,
        Case::new("head_missing", &["-sS", "-I", "{ftp}/nope.txt"]),
    );
    run(files, Case::new("head_dir", &["-sS", "-I", "{ftp}/dir/"]));
}

#[test]
fn remote_time_sets_the_file_time() {
    let (_, o) = run(
        files,
        Case {
            local: &["top.txt"],
            ..Case::new("remote_time", &["-sS", "-R", "-O", "{ftp}/top.txt"])
        },
    );
    assert!(o.control[0].contains("MDTM top.txt\r\n"));
}

#[test]
fn time_conditions() {
    run(
        files,
        Case::new("z_newer", &["-sv", "-z", "2020-01-01", "{ftp}/top.txt"]),
    );
    run(
        files,
        Case::new("z_older", &["-sv", "-z", "2024-01-01", "{ftp}/top.txt"]),
    );
    run(
        files,
        Case::new("z_unmod", &["-sS", "-z", "-2020-01-01", "{ftp}/top.txt"]),
    );
    run(
        files,
        Case::new(
            "z_no_mdtm",
            &["-sv", "-z", "2020-01-01", "{ftp}/dir/sub/file.txt"],
        ),
    );
}

// ---- quote commands -----------------------------------------------------------------

#[test]
fn quote_before_during_and_after() {
    let (_, o) = run(
        files,
        Case::new(
            "quote",
            &[
                "-sv",
                "-Q",
                "NOOP",
                "-Q",
                "+SITE pre",
                "-Q",
                "-SITE post",
                "{ftp}/top.txt",
            ],
        ),
    );
    let c = &o.control[0];
    let noop = c.find("NOOP").unwrap();
    let pre = c.find("SITE pre").unwrap();
    let retr = c.find("RETR top.txt").unwrap();
    let post = c.find("SITE post").unwrap();
    assert!(noop < pre && pre < retr && retr < post, "{c}");
}

#[test]
fn quote_failures() {
    run(
        files,
        Case::new("quote_fail", &["-sS", "-Q", "BOGUS", "{ftp}/top.txt"]),
    );
    run(
        files,
        Case::new("quote_star", &["-sS", "-Q", "*BOGUS", "{ftp}/top.txt"]),
    );
    run(
        files,
        Case::new("postquote_fail", &["-sS", "-Q", "-BOGUS", "{ftp}/top.txt"]),
    );
    run(
        files,
        Case::new("prequote_fail", &["-sS", "-Q", "+BOGUS", "{ftp}/top.txt"]),
    );
}

#[test]
fn quote_with_head_only() {
    run(
        files,
        Case::new(
            "quote_head",
            &["-sS", "-I", "-Q", "-DELE top.txt", "{ftp}/top.txt"],
        ),
    );
}

// ---- file methods, listings, limits, login extras -----------------------------------

#[test]
fn file_methods() {
    for m in ["singlecwd", "nocwd", "multicwd"] {
        run(
            files,
            Case::new(
                m,
                &[
                    "-sS",
                    "--ftp-method",
                    m,
                    "{ftp}/dir/sub/file.txt",
                    "{ftp}/top.txt",
                ],
            ),
        );
        run(
            files,
            Case::new(m, &["-sS", "--ftp-method", m, "{ftp}/dir/sub/"]),
        );
    }
}

#[test]
fn listings_convert_line_ends() {
    let (_, o) = run(files, Case::new("list", &["-sS", "{ftp}/dir/"]));
    assert!(!o.out.stdout.contains(&b'\r'));
    run(files, Case::new("nlst", &["-sS", "-l", "{ftp}/dir/"]));
    run(
        files,
        Case::new("ascii_file", &["-sS", "{ftp}/dir/crlf.txt;type=a"]),
    );
}

#[test]
fn max_filesize_from_size() {
    run(
        files,
        Case::new(
            "maxfs",
            &["-sS", "--max-filesize", "5", "{ftp}/dir/sub/file.txt"],
        ),
    );
    run(
        files,
        Case::new(
            "maxfs_ok",
            &["-sS", "--max-filesize", "50", "{ftp}/dir/sub/file.txt"],
        ),
    );
}

#[test]
fn account_and_alternative_user() {
    run(
        |s| {
            files(s);
            s.reply_always("PASS", "332 Need account\r\n");
        },
        Case::new("acct", &["-sS", "--ftp-account", "acct1", "{ftp}/top.txt"]),
    );
    run(
        |s| {
            files(s);
            s.reply_always("PASS", "332 Need account\r\n");
        },
        Case::new("no_acct", &["-sS", "{ftp}/top.txt"]),
    );
    run(
        |s| {
            files(s);
            s.reply_once("USER", "530 No anonymous\r\n");
        },
        Case::new(
            "alt_user",
            &[
                "-sS",
                "--ftp-alternative-to-user",
                "USER other",
                "{ftp}/top.txt",
            ],
        ),
    );
}

// ---- active mode --------------------------------------------------------------------

#[test]
fn active_mode_download_upload_listing() {
    let (_, o) = run(
        files,
        Case::new("port_get", &["-sv", "-P", "-", "{ftp}/dir/sub/file.txt"]),
    );
    assert!(
        o.control[0].contains("EPRT |1|127.0.0.1|N|\r\n"),
        "{}",
        o.control[0]
    );
    run(
        files,
        Case {
            before: LOCAL,
            remote: &["/up/up.txt"],
            ..Case::new(
                "port_put",
                &["-sv", "-P", "127.0.0.1", "-T", "up.txt", "{ftp}/up/"],
            )
        },
    );
    run(
        files,
        Case::new("port_list", &["-sS", "-P", "-", "{ftp}/dir/"]),
    );
}

#[test]
fn active_mode_port_command() {
    let (_, o) = run(
        files,
        Case::new(
            "port_cmd",
            &["-sv", "--disable-eprt", "-P", "-", "{ftp}/top.txt"],
        ),
    );
    assert!(
        o.control[0].contains("PORT [127,0,0,1,P1,P2]\r\n"),
        "{}",
        o.control[0]
    );
    run(
        |s| {
            files(s);
            s.reply_always("EPRT", "500 EPRT not understood\r\n");
        },
        Case::new(
            "eprt_refused",
            &["-sv", "-P", "-", "{ftp}/top.txt", "{ftp}/top.txt"],
        ),
    );
    run(
        |s| {
            files(s);
            s.reply_always("EPRT", "500 EPRT not understood\r\n");
            s.reply_always("PORT", "500 PORT not understood\r\n");
        },
        Case::new("port_refused", &["-sS", "-P", "-", "{ftp}/top.txt"]),
    );
}

#[test]
fn active_mode_server_gives_up() {
    run(
        |s| {
            files(s);
            s.reply_always("EPRT", "200 fine\r\n");
            s.reply_always("RETR", "150 Opening\r\n425 Cannot open data connection\r\n");
        },
        Case::new("port_425", &["-sS", "-P", "-", "{ftp}/top.txt"]),
    );
}

#[test]
fn active_mode_bad_addresses() {
    run(
        files,
        Case::new(
            "port_noresolve",
            &["-sS", "-P", "no.such.host.invalid", "{ftp}/top.txt"],
        ),
    );
    run(
        files,
        Case::new(
            "port_range",
            &["-sS", "-P", "127.0.0.1:0-0", "{ftp}/top.txt"],
        ),
    );
}

// ---- through an HTTP proxy ----------------------------------------------------------

/// The request each client sends an HTTP proxy for `url`, and its stdout.
fn via_proxy(args: &[&str]) -> Vec<(Vec<u8>, Vec<u8>, i32)> {
    use oxcurl_testsupport::{Exec, Reply, ScriptedServer};
    [
        oxcurl_testsupport::process::reference_curl(),
        under_test(OXCURL),
    ]
    .iter()
    .map(|bin| {
        let proxy = ScriptedServer::with_replies(vec![Reply::ok("from the proxy\n")]);
        let out = Exec::new(bin)
            .args(["-sS", "-x", &proxy.url()])
            .args(args)
            .run();
        proxy.wait_idle(std::time::Duration::from_secs(5));
        let raw = proxy
            .requests()
            .first()
            .map(|r| r.raw())
            .unwrap_or_default();
        let code = out.exit_code();
        (raw, out.stdout, code)
    })
    .collect()
}

#[test]
fn ftp_through_an_http_proxy_is_an_http_get() {
    for args in [
        &["ftp://ftp.example/dir/file.txt"][..],
        &["-u", "michal:aybabtu", "ftp://host.com/we/want/299"],
        &["ftp://u%40x:p@host.com:2121/a;type=a"],
        &["-B", "ftp://host.com/list/"],
    ] {
        let sides = via_proxy(args);
        assert_eq!(
            String::from_utf8_lossy(&sides[0].0),
            String::from_utf8_lossy(&sides[1].0),
            "{args:?}: the requests differ"
        );
        assert_eq!(sides[0].1, sides[1].1, "{args:?}: stdout differs");
        assert_eq!(sides[0].2, sides[1].2, "{args:?}: exit codes differ");
        assert!(sides[1].0.starts_with(b"GET ftp://"), "{args:?}");
    }
}

// ---- replies curl reacts to ---------------------------------------------------------

#[test]
fn response_code_and_entry_path_in_write_out() {
    run(
        files,
        Case::new(
            "writeout",
            &[
                "-sS",
                "-w",
                "%{response_code} [%{ftp_entry_path}]\\n",
                "{ftp}/top.txt",
            ],
        ),
    );
    run(
        files,
        Case::new(
            "writeout_err",
            &["-sS", "-w", "%{response_code}\\n", "{ftp}/nope.txt"],
        ),
    );
}

#[test]
fn transient_ftp_errors_are_retried() {
    run(
        |s| {
            files(s);
            s.reply_once("RETR", "450 Busy, try later\r\n");
        },
        Case::new(
            "retry_4xx",
            &["-sS", "--retry", "1", "--retry-delay", "1", "{ftp}/top.txt"],
        ),
    );
}

#[test]
fn pret_before_the_data_connection() {
    let (_, o) = run(
        files,
        Case::new(
            "pret",
            &["-sS", "--ftp-pret", "{ftp}/top.txt", "{ftp}/dir/"],
        ),
    );
    assert!(
        o.control[0].contains("PRET RETR top.txt\r\n"),
        "{}",
        o.control[0]
    );
    run(
        |s| {
            files(s);
            s.reply_always("PRET", "500 What is PRET\r\n");
        },
        Case::new("pret_refused", &["-sS", "--ftp-pret", "{ftp}/top.txt"]),
    );
}

#[test]
fn epsv_port_that_does_not_connect_falls_back_to_pasv() {
    run(
        |s| {
            files(s);
            s.reply_always("EPSV", "229 Entering Extended Passive Mode (|||1|)\r\n");
        },
        Case::new("epsv_noconnect", &["-sS", "{ftp}/top.txt"]),
    );
}

#[test]
fn os400_entry_path_asks_syst_and_name_format() {
    let (_, o) = run(
        |s| {
            files(s);
            s.reply_once("PWD", "257 \"QGPL\" is the current library\r\n");
            s.reply_once("SYST", "215 OS/400 is the remote operating system\r\n");
            s.reply_once("SITE", "250 Now using naming format \"1\"\r\n");
        },
        Case::new("os400", &["-sv", "{ftp}/top.txt"]),
    );
    assert!(
        o.control[0].contains("SYST\r\nSITE NAMEFMT 1\r\nPWD\r\n"),
        "{}",
        o.control[0]
    );
    run(
        |s| {
            files(s);
            s.reply_once("PWD", "257 \"C:\\\" is current\r\n");
        },
        Case::new("not_os400", &["-sS", "{ftp}/top.txt"]),
    );
}
