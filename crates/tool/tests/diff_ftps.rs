//! Differential tests: FTPS (curl's TLS parts of `lib/ftp.c`) against Debian's vsftpd and
//! ProFTPD with TLS, explicit (`ftp://` with `--ssl-reqd`, AUTH then PBSZ and PROT) and
//! implicit (`ftps://`), both requiring data connections to resume the control
//! connection's session (vsftpd's `require_ssl_reuse`, mod_tls's default). Each client gets
//! a fresh server; the exit code, stdout, stderr, the commands the server logged (the
//! control connection is encrypted) and the files left on the server are compared with the
//! reference curl 8.14.1's.

use oxcurl_testsupport::daemons::{Proftpd, ProftpdOptions, Vsftpd, VsftpdOptions};
use oxcurl_testsupport::process::reference_curl;
use oxcurl_testsupport::{under_test, Exec, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// What one client did against its server.
#[derive(Debug, PartialEq, Eq)]
struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
    commands: Vec<String>,
    file: Option<Vec<u8>>,
}

/// The port numbers of EPRT and PORT, which differ from run to run.
fn mask_command(c: &str) -> String {
    if let Some(rest) = c.strip_prefix("EPRT ") {
        let mut parts: Vec<&str> = rest.split('|').collect();
        if parts.len() > 3 {
            parts[3] = "PORT";
        }
        return format!("EPRT {}", parts.join("|"));
    }
    if c.starts_with("PORT ") {
        return "PORT h1,h2,h3,h4,p1,p2".into();
    }
    c.to_string()
}

/// Which server, and how it is set up (the TLS setting: see `VsftpdOptions::tls`; None is
/// plain FTP).
#[derive(Clone, Copy, Debug)]
enum Server {
    Vsftpd(Option<bool>),
    /// With CCC allowed or not.
    Proftpd(Option<bool>, bool),
}

/// A bare TLS setting is vsftpd's.
impl From<Option<bool>> for Server {
    fn from(tls: Option<bool>) -> Server {
        Server::Vsftpd(tls)
    }
}

/// A running server of either kind.
enum Running {
    Vsftpd(Vsftpd),
    Proftpd(Proftpd),
}

impl Running {
    fn start(s: Server, root: &std::path::Path) -> Option<Running> {
        Some(match s {
            Server::Vsftpd(tls) => {
                let mut opts = VsftpdOptions::new().upload_dir("incoming");
                if let Some(implicit) = tls {
                    opts = opts.tls(implicit);
                }
                Running::Vsftpd(Vsftpd::try_start_with(root, &opts)?)
            }
            Server::Proftpd(tls, allow_ccc) => {
                let opts = ProftpdOptions {
                    upload_dir: Some("incoming".into()),
                    tls,
                    allow_ccc,
                };
                Running::Proftpd(Proftpd::try_start_with(root, &opts)?)
            }
        })
    }
    fn port(&self) -> u16 {
        match self {
            Running::Vsftpd(d) => d.port(),
            Running::Proftpd(d) => d.port(),
        }
    }
    fn root(&self) -> &std::path::Path {
        match self {
            Running::Vsftpd(d) => d.root(),
            Running::Proftpd(d) => d.root(),
        }
    }
    fn commands(&self) -> Vec<String> {
        match self {
            Running::Vsftpd(d) => d.commands(),
            Running::Proftpd(d) => d.commands(),
        }
    }
}

/// Run `bin` with `args` against a fresh server. `{ftp}`, `{ftps}` and `{ca}` in the
/// arguments become the server's URLs and the test CA. None when the server is not there.
fn run(bin: &std::path::Path, server: Server, args: &[&str], env: &[(&str, &str)]) -> Option<Run> {
    let root = TempDir::new("ftps-root");
    std::fs::write(root.join("hello.txt"), "hello over TLS\r\nline two\r\n").unwrap();
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
    let local = TempDir::new("ftps-local");
    std::fs::write(local.join("up.txt"), "uploaded\nover TLS\n").unwrap();
    let d = Running::start(server, root.path())?;
    let ca = oxcurl_testsupport::tls::pki().ca();
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            a.replace("{ftp}", &format!("ftp://127.0.0.1:{}", d.port()))
                .replace("{ftps}", &format!("ftps://127.0.0.1:{}", d.port()))
                .replace("{ca}", &ca.display().to_string())
        })
        .collect();
    let mut e = Exec::new(bin).args(&args).cwd(local.path());
    for (k, v) in env {
        e = e.env(k, v);
    }
    let out = e.run();
    // vsftpd writes its log as the session ends, which may be after the client exits.
    let mut commands = d.commands();
    for _ in 0..50 {
        if commands.last().is_some_and(|c| c == "QUIT") || out.exit_code() != 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        commands = d.commands();
    }
    let file = std::fs::read(d.root().join("incoming/up.txt")).ok();
    Some(Run {
        code: out.exit_code(),
        stdout: out.stdout.clone(),
        stderr: out.stderr_str(),
        commands: commands.iter().map(|c| mask_command(c)).collect(),
        file,
    })
}

/// Both clients, one command line; `env` is for oxcurl only (the reference has one TLS
/// backend). Returns oxcurl's run when vsftpd is there.
fn each(name: &str, server: impl Into<Server>, args: &[&str], env: &[(&str, &str)]) -> Option<Run> {
    let server = server.into();
    let r = run(&reference_curl(), server, args, &[])?;
    let o = run(&under_test(OXCURL), server, args, env)?;
    assert_eq!(r.code, o.code, "{name}: exit codes differ: {}", o.stderr);
    assert!(r.stdout == o.stdout, "{name}: stdout differs");
    assert_eq!(r.stderr, o.stderr, "{name}: stderr differs");
    assert_eq!(r.commands, o.commands, "{name}: the commands differ");
    assert!(r.file == o.file, "{name}: the uploaded file differs");
    Some(o)
}

/// Each case on both TLS backends.
fn both_backends(name: &str, server: impl Into<Server>, args: &[&str]) -> Option<Run> {
    let server = server.into();
    let o = each(name, server, args, &[("CURL_SSL_BACKEND", "rustls")])?;
    each(name, server, args, &[("CURL_SSL_BACKEND", "openssl")]);
    Some(o)
}

#[test]
fn explicit_download_resumes_the_session_on_the_data_connection() {
    let Some(o) = both_backends(
        "explicit",
        Some(false),
        &["-sS", "--ssl-reqd", "--cacert", "{ca}", "{ftp}/hello.txt"],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, b"hello over TLS\r\nline two\r\n");
    assert_eq!(&o.commands[..2], ["AUTH SSL", "USER anonymous"]);
    assert!(o.commands.iter().any(|c| c == "PROT P"), "{:?}", o.commands);
}

#[test]
fn explicit_two_files_on_one_connection() {
    let Some(o) = both_backends(
        "explicit_reuse",
        Some(false),
        &[
            "-sS",
            "--ssl-reqd",
            "--cacert",
            "{ca}",
            "{ftp}/hello.txt",
            "{ftp}/pub/data.bin",
        ],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.commands.iter().filter(|c| *c == "USER anonymous").count(),
        1
    );
}

#[test]
fn implicit_download_listing_and_range() {
    let Some(o) = both_backends(
        "implicit",
        Some(true),
        &[
            "-sS",
            "--cacert",
            "{ca}",
            "{ftps}/pub/data.bin",
            "{ftps}/pub/",
            "{ftps}/hello.txt",
        ],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.commands[0], "USER anonymous");
}

#[test]
fn implicit_range() {
    both_backends(
        "implicit_range",
        Some(true),
        &[
            "-sS",
            "--cacert",
            "{ca}",
            "-r",
            "100-199",
            "{ftps}/pub/data.bin",
        ],
    );
}

#[test]
fn uploads_over_tls() {
    let Some(o) = both_backends(
        "implicit_upload",
        Some(true),
        &[
            "-sS",
            "--cacert",
            "{ca}",
            "-T",
            "up.txt",
            "{ftps}/incoming/",
        ],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.file.as_deref(), Some(&b"uploaded\nover TLS\n"[..]));
    both_backends(
        "explicit_upload",
        Some(false),
        &[
            "-sS",
            "--ssl-reqd",
            "--cacert",
            "{ca}",
            "-T",
            "up.txt",
            "{ftp}/incoming/",
        ],
    );
}

#[test]
fn active_mode_over_tls() {
    let Some(o) = both_backends(
        "active",
        Some(false),
        &[
            "-sS",
            "--ssl-reqd",
            "--cacert",
            "{ca}",
            "-P",
            "-",
            "{ftp}/pub/data.bin",
        ],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.commands.iter().any(|c| c.starts_with("EPRT")),
        "{:?}",
        o.commands
    );
}

#[test]
fn control_only_tls_meets_a_server_that_requires_it_for_data() {
    // PROT C: vsftpd refuses the clear data connection.
    let Some(o) = each(
        "ssl_control",
        Some(false),
        &[
            "-sS",
            "--ftp-ssl-control",
            "--cacert",
            "{ca}",
            "{ftp}/hello.txt",
        ],
        &[],
    ) else {
        return;
    };
    assert!(o.commands.iter().any(|c| c == "PROT C"), "{:?}", o.commands);
    assert_ne!(o.code, 0);
}

#[test]
fn tls_tried_and_refused_goes_on_in_the_clear() {
    for flag in ["--ssl", "--ftp-ssl"] {
        // The warning comes out before -s is read.
        let Some(o) = each(flag, None, &[flag, "-sS", "{ftp}/hello.txt"], &[]) else {
            return;
        };
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(&o.commands[..2], ["AUTH SSL", "AUTH TLS"]);
        assert!(o.stderr.contains("insecure option"), "{}", o.stderr);
    }
}

#[test]
fn tls_required_and_refused_fails() {
    let Some(o) = each(
        "ssl_reqd_refused",
        None,
        &["-sS", "--ssl-reqd", "{ftp}/hello.txt"],
        &[],
    ) else {
        return;
    };
    assert_eq!(o.code, 64);
}

#[test]
fn ccc_refused_keeps_tls() {
    let Some(o) = each(
        "ccc",
        Some(false),
        &[
            "-sS",
            "--ssl-reqd",
            "--ftp-ssl-ccc",
            "--cacert",
            "{ca}",
            "{ftp}/hello.txt",
        ],
        &[],
    ) else {
        return;
    };
    assert!(o.commands.iter().any(|c| c == "CCC"), "{:?}", o.commands);
}

#[test]
fn an_untrusted_certificate_fails_as_curl_fails() {
    // The system's CA store does not know the test CA.
    for (name, tls, url) in [
        ("untrusted_implicit", true, "{ftps}/hello.txt"),
        ("untrusted_explicit", false, "{ftp}/hello.txt"),
    ] {
        let Some(o) = both_backends(name, Some(tls), &["-sS", "--ssl-reqd", url]) else {
            return;
        };
        assert_eq!(o.code, 60, "{name}: {}", o.stderr);
    }
}

// ---- ProFTPD ----------------------------------------------------------------------------

#[test]
fn proftpd_explicit_and_implicit_downloads_listings_and_uploads() {
    for (name, server, base) in [
        (
            "proftpd_explicit",
            Server::Proftpd(Some(false), false),
            "{ftp}",
        ),
        (
            "proftpd_implicit",
            Server::Proftpd(Some(true), false),
            "{ftps}",
        ),
    ] {
        let file = format!("{base}/pub/data.bin");
        let list = format!("{base}/pub/");
        let args = ["-sS", "--ssl-reqd", "--cacert", "{ca}", &file, &list];
        let Some(o) = both_backends(name, server, &args) else {
            return;
        };
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let up = format!("{base}/incoming/");
        let args = ["-sS", "--ssl-reqd", "--cacert", "{ca}", "-T", "up.txt", &up];
        let Some(o) = both_backends(name, server, &args) else {
            return;
        };
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        assert_eq!(
            o.file.as_deref(),
            Some(&b"uploaded\nover TLS\n"[..]),
            "{name}"
        );
    }
}

#[test]
fn proftpd_active_mode_and_range() {
    let Some(o) = both_backends(
        "proftpd_active",
        Server::Proftpd(Some(false), false),
        &[
            "-sS",
            "--ssl-reqd",
            "--cacert",
            "{ca}",
            "-P",
            "-",
            // To the end: a range that stops early sends ABOR, which ProFTPD logs before or
            // after the RETR it ends as the two race.
            "-r",
            "199000-",
            "{ftp}/pub/data.bin",
        ],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.len(), 1000);
}

#[test]
fn proftpd_ccc_refused_keeps_tls() {
    // TLS required on the control connection: CCC is refused and TLS stays.
    let Some(o) = each(
        "proftpd_ccc_refused",
        Server::Proftpd(Some(false), false),
        &[
            "-sS",
            "--ssl-reqd",
            "--ftp-ssl-ccc",
            "--cacert",
            "{ca}",
            "{ftp}/hello.txt",
        ],
        &[],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// curl 8.14.1's CCC does not work against ProFTPD 1.3.8: in passive mode it waits forever
/// after the server's close_notify, in active mode it fails with 55 ("SSL_write() error:
/// protocol is shutdown") as it goes on writing through the TLS layer it shut down. oxcurl
/// takes TLS off the control connection and goes on in the clear, as CCC means (the
/// behaviour documented in docs/internals/FTP.md); so this case runs oxcurl alone.
#[test]
fn proftpd_ccc_clears_the_control_connection() {
    for mode in ["passive", "active"] {
        for backend in ["rustls", "openssl"] {
            let name = format!("proftpd_ccc_{mode}_{backend}");
            let Some(o) = run(
                &under_test(OXCURL),
                Server::Proftpd(Some(false), true),
                &[
                    "-sS",
                    "--ssl-reqd",
                    "--ftp-ssl-ccc-mode",
                    mode,
                    "--cacert",
                    "{ca}",
                    "{ftp}/hello.txt",
                    "{ftp}/pub/data.bin",
                ],
                &[("CURL_SSL_BACKEND", backend)],
            ) else {
                return;
            };
            assert_eq!(o.code, 0, "{name}: {}", o.stderr);
            let mut want = b"hello over TLS\r\nline two\r\n".to_vec();
            want.extend(oxcurl_testsupport::http::generated_body(200_000));
            assert!(o.stdout == want, "{name}: stdout is not the two files");
            let at = o.commands.iter().position(|c| c == "CCC");
            let at = at.unwrap_or_else(|| panic!("{name}: no CCC: {:?}", o.commands));
            // The login, then CCC; the commands after it went in the clear.
            assert_eq!(o.commands[at - 1], "PROT P", "{name}");
            assert_eq!(o.commands[at + 1], "PWD", "{name}");
            assert_eq!(
                o.commands.iter().filter(|c| *c == "RETR data.bin").count(),
                1
            );
        }
    }
}

#[test]
fn proftpd_plain_with_tls_tried() {
    let Some(o) = each(
        "proftpd_plain_ssl",
        Server::Proftpd(None, false),
        &["-sS", "--ssl", "{ftp}/hello.txt", "{ftp}/pub/"],
        &[],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
}

#[test]
fn proftpd_plain_transfers() {
    let cases: [(&str, &[&str]); 5] = [
        (
            "proftpd_upload",
            &["-sS", "-T", "up.txt", "{ftp}/incoming/"],
        ),
        ("proftpd_active", &["-sS", "-P", "-", "{ftp}/pub/data.bin"]),
        ("proftpd_head", &["-sS", "-I", "{ftp}/hello.txt"]),
        (
            "proftpd_ascii",
            &["-sS", "{ftp}/hello.txt;type=a", "-l", "{ftp}/pub/"],
        ),
        (
            "proftpd_quote",
            &["-sS", "-Q", "NOOP", "-Q", "-SYST", "{ftp}/hello.txt"],
        ),
    ];
    for (name, args) in cases {
        let Some(o) = each(name, Server::Proftpd(None, false), args, &[]) else {
            return;
        };
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
    }
}

// ---- hostile servers (the scripted one) -------------------------------------------------

/// A server that accepts AUTH and then never speaks TLS: the wait ends with the user's
/// timeout, with curl's message (the upgrade is curl's blocking connect: "connect timeout").
#[test]
fn a_server_that_stalls_the_tls_upgrade_is_timed_out() {
    use oxcurl_testsupport::ftp::{FtpReply, FtpServer};
    {
        let (name, cmd) = ("auth", "AUTH");
        let mut outs = Vec::new();
        for bin in [reference_curl(), under_test(OXCURL)] {
            let s = FtpServer::start();
            s.reply_always(cmd, FtpReply::raw("234 go ahead\r\n").hang());
            let started = std::time::Instant::now();
            let out = Exec::new(&bin)
                .args([
                    "-sS",
                    "--ssl-reqd",
                    "-m",
                    "2",
                    &format!("{}/f.txt", s.url()),
                ])
                .run();
            let took = started.elapsed();
            assert!(
                took < std::time::Duration::from_secs(6),
                "{name}: took {took:?}"
            );
            outs.push((out.exit_code(), out.stderr_str()));
        }
        assert_eq!(outs[0], outs[1], "{name}");
        assert_eq!(outs[1].0, 28, "{name}");
    }
}
