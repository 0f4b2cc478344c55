//! The FTP differential harness: the reference curl and the client under test each run the
//! same command line against a fresh scripted server set up the same way, and must agree on
//! the exit code, stdout, the exact bytes of every control connection (the commands, in
//! order, the closing QUIT included), the files left on both ends and, where the case asks,
//! stderr. Port numbers and times, which differ between runs, are masked.

use std::path::Path;
use std::time::Duration;

use super::FtpServer;
use crate::process::{reference_curl, Output};
use crate::{Exec, TempDir};

/// What one client did against its server.
pub struct Side {
    pub out: Output,
    /// The bytes of each control connection, ports masked.
    pub control: Vec<String>,
    /// stderr, ports and connect times masked.
    pub stderr: String,
    /// stdout with ports masked when it is text (`-D -` shows the EPSV reply).
    pub stdout: Vec<u8>,
    /// The server's files the case names, after the run (None: not there).
    pub remote: Vec<Option<Vec<u8>>>,
    /// The local files the case names, after the run.
    pub local: Vec<Option<Vec<u8>>>,
}

/// One command line to run on both sides.
#[derive(Clone, Copy, Default)]
pub struct Case<'a> {
    pub name: &'a str,
    /// The arguments; `{ftp}` is the server's `ftp://host:port`, `{hp}` its `host:port`,
    /// `{tmp}` the run's working directory.
    pub args: &'a [&'a str],
    pub compare_stderr: bool,
    /// Files written in the working directory before the run.
    pub before: &'a [(&'a str, &'a [u8])],
    /// What the client reads on stdin.
    pub stdin: Option<&'a [u8]>,
    /// Server paths whose contents must agree after the run.
    pub remote: &'a [&'a str],
    /// Working-directory files whose contents must agree after the run.
    pub local: &'a [&'a str],
}

impl<'a> Case<'a> {
    pub fn new(name: &'a str, args: &'a [&'a str]) -> Case<'a> {
        Case {
            name,
            args,
            compare_stderr: true,
            ..Case::default()
        }
    }
}

/// Digits after `port ` and `port=`, in `(|||N|)`, after `127.0.0.1:` and `|127.0.0.1|`
/// (EPRT), and the last two numbers of a PASV reply's or a PORT command's tuple are masked:
/// the ports differ between runs.
pub fn mask_ports(text: &str, server_port: u16) -> String {
    let text = text.replace(&server_port.to_string(), "SERVERPORT");
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    let after = |i: usize, pat: &str| i >= pat.len() && text[..i].ends_with(pat);
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (after(i, "port ")
                || after(i, "(|||")
                || after(i, "127.0.0.1:")
                || after(i, "|127.0.0.1|")
                || after(i, "port="))
        {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push('N');
            continue;
        }
        out.push(b[i] as char);
        i += 1;
    }
    // A PORT command's port: the last two numbers.
    while let Some(at) = out.find("PORT 127,0,0,1,") {
        let from = at + "PORT 127,0,0,1,".len();
        let len = out[from..]
            .find(|c: char| !c.is_ascii_digit() && c != ',')
            .unwrap_or(out.len() - from);
        out.replace_range(at..from + len, "PORT [127,0,0,1,P1,P2]");
    }
    // A PASV reply's port: the last two numbers of its tuple.
    while let Some(at) = out.find("(127,0,0,1,") {
        let from = at + "(127,0,0,1,".len();
        let Some(len) = out[from..].find(')') else {
            break;
        };
        out.replace_range(at..from + len + 1, "[127,0,0,1,P1,P2]");
    }
    out
}

fn run_side(bin: &Path, setup: &dyn Fn(&FtpServer), case: &Case<'_>, tmp: &Path) -> Side {
    let server = FtpServer::start();
    setup(&server);
    for (name, bytes) in case.before {
        std::fs::write(tmp.join(name), bytes).expect("write a local file");
    }
    let base = server.url();
    let base = base.trim_end_matches('/');
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| {
            a.replace("{ftp}", base)
                .replace("{hp}", &server.host_port())
                .replace("{tmp}", &tmp.display().to_string())
        })
        .collect();
    let mut exec = Exec::new(bin)
        .args(&args)
        .cwd(tmp)
        .timeout(Duration::from_secs(30));
    if let Some(input) = case.stdin {
        exec = exec.stdin(input);
    }
    let out = exec.run();
    server.wait_idle(Duration::from_secs(5));
    let port = server.port();
    let control = (0..server.connections())
        .map(|c| mask_ports(&String::from_utf8_lossy(&server.control_bytes(c)), port))
        .collect();
    let stderr = mask_ports(
        &String::from_utf8_lossy(&crate::diff::mask_elapsed_ms(&out.stderr)),
        port,
    );
    let stdout = if out.stdout.is_ascii() {
        mask_ports(&out.stdout_str(), port).into_bytes()
    } else {
        out.stdout.clone()
    };
    let remote = case.remote.iter().map(|p| server.file_content(p)).collect();
    let local = case
        .local
        .iter()
        .map(|p| std::fs::read(tmp.join(p)).ok())
        .collect();
    Side {
        out,
        stdout,
        control,
        stderr,
        remote,
        local,
    }
}

/// Run the reference and `under_test` on `case`, each against its own server made by
/// `setup`; assert they agree; return (reference, under test).
pub fn ftp_case(under_test: &Path, setup: impl Fn(&FtpServer), case: Case<'_>) -> (Side, Side) {
    let name = case.name;
    let rt = TempDir::new(&format!("ftp-ref-{name}"));
    let ot = TempDir::new(&format!("ftp-ox-{name}"));
    let r = run_side(&reference_curl(), &setup, &case, rt.path());
    let o = run_side(under_test, &setup, &case, ot.path());
    assert_eq!(
        r.out.exit_code(),
        o.out.exit_code(),
        "{name}: exit codes differ\nreference stderr:\n{}\nunder test stderr:\n{}",
        r.stderr,
        o.stderr
    );
    assert!(
        r.stdout == o.stdout,
        "{name}: stdout differs\nreference:  {:?}\nunder test: {:?}\nreference stderr:\n{}\n\
         under test stderr:\n{}",
        r.out.stdout_str(),
        o.out.stdout_str(),
        r.stderr,
        o.stderr
    );
    assert_eq!(
        r.control, o.control,
        "{name}: control connection bytes differ\nreference stderr:\n{}\nunder test stderr:\n{}",
        r.stderr, o.stderr
    );
    assert!(
        r.remote == o.remote,
        "{name}: the server's files differ\nreference:  {:?}\nunder test: {:?}",
        r.remote,
        o.remote
    );
    assert!(r.local == o.local, "{name}: the local files differ");
    if case.compare_stderr {
        assert_eq!(r.stderr, o.stderr, "{name}: stderr differs");
    }
    (r, o)
}
