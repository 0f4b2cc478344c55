//! Differential tests: FTPS (curl's TLS parts of `lib/ftp.c`) against Debian's vsftpd with
//! TLS, explicit (`ftp://` with `--ssl-reqd`, AUTH then PBSZ and PROT) and implicit
//! (`ftps://`), requiring data connections to resume the control connection's session as
//! vsftpd's `require_ssl_reuse` does. Each client gets a fresh server; the exit code,
//! stdout, stderr, the commands vsftpd logged (the control connection is encrypted) and
//! the files left on the server are compared with the reference curl 8.14.1's.

use oxcurl_testsupport::daemons::{Vsftpd, VsftpdOptions};
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

/// Run `bin` with `args` against a fresh vsftpd (`tls`: see `VsftpdOptions::tls`; None is
/// plain FTP). `{ftp}`, `{ftps}` and `{ca}` in the arguments become the server's URLs and
/// the test CA. None when vsftpd is not there.
fn run(
    bin: &std::path::Path,
    tls: Option<bool>,
    args: &[&str],
    env: &[(&str, &str)],
) -> Option<Run> {
    let root = TempDir::new("ftps-root");
    std::fs::write(root.join("hello.txt"), "hello over TLS\r\nline two\r\n").unwrap();
    std::fs::create_dir_all(root.join("pub")).unwrap();
    std::fs::write(
        root.join("pub/data.bin"),
        oxcurl_testsupport::http::generated_body(200_000),
    )
    .unwrap();
    let local = TempDir::new("ftps-local");
    std::fs::write(local.join("up.txt"), "uploaded\nover TLS\n").unwrap();
    let mut opts = VsftpdOptions::new().upload_dir("incoming");
    if let Some(implicit) = tls {
        opts = opts.tls(implicit);
    }
    let d = Vsftpd::try_start_with(root.path(), &opts)?;
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
fn each(name: &str, tls: Option<bool>, args: &[&str], env: &[(&str, &str)]) -> Option<Run> {
    let r = run(&reference_curl(), tls, args, &[])?;
    let o = run(&under_test(OXCURL), tls, args, env)?;
    assert_eq!(r.code, o.code, "{name}: exit codes differ: {}", o.stderr);
    assert!(r.stdout == o.stdout, "{name}: stdout differs");
    assert_eq!(r.stderr, o.stderr, "{name}: stderr differs");
    assert_eq!(r.commands, o.commands, "{name}: the commands differ");
    assert!(r.file == o.file, "{name}: the uploaded file differs");
    Some(o)
}

/// Each case on both TLS backends.
fn both_backends(name: &str, tls: Option<bool>, args: &[&str]) -> Option<Run> {
    let o = each(name, tls, args, &[("CURL_SSL_BACKEND", "rustls")])?;
    each(name, tls, args, &[("CURL_SSL_BACKEND", "openssl")]);
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
