//! Differential harness: run the reference curl and oxcurl with the same command line
//! against the same scripted server and compare everything observable.
//!
//! ```no_run
//! use oxcurl_testsupport::diff::Case;
//! use oxcurl_testsupport::http::Reply;
//! # let oxcurl = "target/debug/oxcurl";
//! let r = Case::new("get_basic")
//!     .args(&["-s", "{url}/path", "-o", "{tmp}/out"])
//!     .reply(Reply::ok("hello"))
//!     .run(oxcurl);
//! assert_eq!(r.oxcurl.code(), 0);
//! ```
//!
//! One [`ScriptedServer`] serves both runs: the reference curl runs first, then the
//! server is [reset](ScriptedServer::reset) and oxcurl runs with the same arguments, so
//! the port (and with it `Host:`) is the same. Both runs use the very same scratch
//! directory path for `{tmp}` (emptied in between), so paths in output agree too.
//!
//! Compared by default: the bytes received on each connection (in accept order), the
//! exit status, stdout and the files left in `{tmp}`. stderr only on request
//! ([`Case::compare_stderr`]).
//!
//! Both sides must have done something: a case fails when the reference curl failed
//! without connecting to the server, without writing stdout and without changing `{tmp}`,
//! as two such failures (an unknown option, a refused connection) compare equal without
//! showing anything. A case that expects that says so with [`Case::expect_failure`], and
//! then the reference must fail.
//!
//! Each client runs with an environment holding only `PATH`, `HOME`, `CURL_HOME` and
//! `XDG_CONFIG_HOME` (all an empty directory, so no `.curlrc`), `LC_ALL=C`, `TZ=UTC`
//! and what the case adds with [`Case::env`]; proxy variables are thus never inherited.
//! The working directory is `{tmp}`.
//!
//! Placeholders replaced in arguments, environment values and [`Case::file`] names:
//! `{url}` (`http://127.0.0.1:PORT`, https with [`Case::tls`]), `{host}` (`127.0.0.1:PORT`),
//! `{ca}` and `{pki}` (the test CA file and certificate directory), `{port}`, `{tmp}`,
//! `{home}`.
//!
//! The oxcurl path given to [`Case::run`] and [`Case::try_run`] is the built one: when
//! `OXCURL_UNDER_TEST` is set, that binary runs instead ([`under_test`]).
//! [`Case::run_exact`] and [`Case::try_run_exact`] run exactly the program given (the
//! harness's own tests use them to compare other binaries and deliberately wrong clients).

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::fs::{snapshot_dir, TempDir};
use crate::http::{Reply, Request, ScriptedServer};
use crate::process::{reference_curl, under_test, Exec, Output, DEFAULT_TIMEOUT};

type ServerSetup = Box<dyn Fn(&ScriptedServer)>;
type DirSetup = Box<dyn Fn(&Path)>;
type ByteFn = Box<dyn Fn(&[u8]) -> Vec<u8>>;

enum Normaliser {
    Replace(Vec<u8>, Vec<u8>),
    With(ByteFn),
}

impl Normaliser {
    fn apply(&self, data: &[u8]) -> Vec<u8> {
        match self {
            Normaliser::Replace(from, to) => replace_all(data, from, to),
            Normaliser::With(f) => f(data),
        }
    }
}

/// Replaces the time in curl's "... after N ms" (connect failures, timeouts) by `N`: it
/// depends on the machine's load, so every case compares it masked.
pub fn mask_elapsed_ms(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i..].starts_with(b"after ") {
            let start = i + 6;
            let mut end = start;
            while end < data.len() && data[end].is_ascii_digit() {
                end += 1;
            }
            if end > start && data[end..].starts_with(b" ms") {
                out.extend_from_slice(b"after N ms");
                i = end + 3;
                continue;
            }
        }
        out.push(data[i]);
        i += 1;
    }
    out
}

/// Replaces every run of ASCII digits by `N`: masks timings and ports before comparing.
pub fn mask_digits(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut in_digits = false;
    for &b in data {
        if b.is_ascii_digit() {
            if !in_digits {
                out.push(b'N');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(b);
        }
    }
    out
}

/// Replaces curl's random multipart boundaries (24 dashes and 22 alphanumerics) by
/// `BOUNDARY`, so bodies and `Content-Type` headers of two runs compare.
pub fn mask_boundaries(raw: &[u8]) -> Vec<u8> {
    let dashes = [b'-'; 24];
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i..].starts_with(&dashes)
            && raw.len() >= i + 46
            && raw[i + 24..i + 46].iter().all(u8::is_ascii_alphanumeric)
        {
            out.extend_from_slice(b"BOUNDARY");
            i += 46;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    out
}

/// Replaces every occurrence of `from` in `data` by `to`.
pub fn replace_all(data: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return data.to_vec();
    }
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// One differential test case (a builder; finish with [`Case::run`]).
pub struct Case {
    name: String,
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    replies: Vec<Reply>,
    server_setup: Vec<ServerSetup>,
    files: Vec<(String, Vec<u8>)>,
    dir_setup: Vec<DirSetup>,
    env: Vec<(String, String)>,
    compare_stdout: bool,
    compare_stderr: bool,
    compare_exit: bool,
    compare_requests: bool,
    compare_files: bool,
    unordered_connections: bool,
    normalisers: Vec<Normaliser>,
    request_normalisers: Vec<Normaliser>,
    timeout: Duration,
    ipv6: bool,
    tls: Option<crate::tls::TlsServerOptions>,
    reference: Option<PathBuf>,
    expect_failure: bool,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Case")
            .field("name", &self.name)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// What one client run produced.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// The binary that ran.
    pub program: PathBuf,
    /// The arguments after placeholder substitution.
    pub args: Vec<String>,
    /// Raw process output (stdout/stderr before normalisation).
    pub output: Output,
    /// stdout after normalisation.
    pub stdout: Vec<u8>,
    /// stderr after normalisation.
    pub stderr: Vec<u8>,
    /// Requests the server received, in order.
    pub requests: Vec<Request>,
    /// Bytes received per connection, in accept order (request normalisers applied).
    pub connections: Vec<Vec<u8>>,
    /// Files left in `{tmp}` (relative path -> contents; directories end in `/`).
    pub files: BTreeMap<String, Vec<u8>>,
    /// Whether the server went idle after the client exited.
    pub server_idle: bool,
    /// Whether the run added, removed or changed (length or modification time) anything
    /// in `{tmp}`.
    pub changed_tmp: bool,
}

impl RunRecord {
    /// The exit code (panics if the client was killed).
    pub fn code(&self) -> i32 {
        self.output.exit_code()
    }

    /// stdout (normalised) as lossy UTF-8.
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// stderr (normalised) as lossy UTF-8.
    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Both runs of a [`Case`].
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// The case name.
    pub name: String,
    /// The reference curl's run.
    pub reference: RunRecord,
    /// oxcurl's run.
    pub oxcurl: RunRecord,
}

/// One kind of difference a comparison found (a section of [`Mismatch::report`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Difference {
    /// Both clients were killed by the harness's timeout.
    BothHung,
    /// Exit code, signal or timeout differ.
    Exit,
    /// stdout differs (after normalisation).
    Stdout,
    /// stderr differs (after normalisation; only with [`Case::compare_stderr`]).
    Stderr,
    /// The server accepted a different number of connections.
    ConnectionCount,
    /// The bytes received on this connection (in accept order) differ.
    Request(usize),
    /// This file in `{tmp}` (relative path) differs, or only one client left it.
    File(String),
    /// The reference failed without connecting to the server, writing stdout or changing
    /// `{tmp}`, and the case does not say it expects that ([`Case::expect_failure`]).
    ReferenceDidNothing,
    /// The case expects the reference to fail ([`Case::expect_failure`]) and it exited 0.
    ReferenceSucceeded,
}

/// A failed comparison: both runs, what differed and the readable report.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Both runs.
    pub result: CaseResult,
    /// Each difference found, in the order of the report's sections.
    pub differences: Vec<Difference>,
    /// What differed, with escaped excerpts.
    pub report: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.report)
    }
}

impl std::error::Error for Mismatch {}

impl Case {
    /// A new case; `name` appears in reports and scratch directory names.
    pub fn new(name: &str) -> Case {
        Case {
            name: name.to_string(),
            args: Vec::new(),
            stdin: None,
            replies: Vec::new(),
            server_setup: Vec::new(),
            files: Vec::new(),
            dir_setup: Vec::new(),
            env: Vec::new(),
            compare_stdout: true,
            compare_stderr: false,
            compare_exit: true,
            compare_requests: true,
            compare_files: true,
            unordered_connections: false,
            normalisers: Vec::new(),
            request_normalisers: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            ipv6: false,
            tls: None,
            reference: None,
            expect_failure: false,
        }
    }

    /// Appends arguments (placeholders allowed).
    pub fn args(mut self, args: &[&str]) -> Case {
        self.args.extend(args.iter().map(|s| s.to_string()));
        self
    }

    /// Appends one argument.
    pub fn arg(mut self, a: &str) -> Case {
        self.args.push(a.to_string());
        self
    }

    /// Appends a reply to the server's script.
    pub fn reply(mut self, r: Reply) -> Case {
        self.replies.push(r);
        self
    }

    /// Appends replies to the server's script.
    pub fn replies(mut self, rs: Vec<Reply>) -> Case {
        self.replies.extend(rs);
        self
    }

    /// Configures the server (routes, handler, raw mode, continue mode...). Runs once,
    /// before the first client; the configuration survives the reset between runs, but
    /// state captured by closures does not get reset.
    pub fn server<F: Fn(&ScriptedServer) + 'static>(mut self, f: F) -> Case {
        self.server_setup.push(Box::new(f));
        self
    }

    /// Serve on `[::1]` instead of `127.0.0.1`.
    pub fn ipv6(mut self) -> Case {
        self.ipv6 = true;
        self
    }

    /// Bytes fed to the client's stdin.
    pub fn stdin(mut self, data: impl AsRef<[u8]>) -> Case {
        self.stdin = Some(data.as_ref().to_vec());
        self
    }

    /// Creates `{tmp}/name` with `contents` before each run (placeholders allowed in
    /// `name`; subdirectories are created).
    pub fn file(mut self, name: &str, contents: impl AsRef<[u8]>) -> Case {
        self.files
            .push((name.to_string(), contents.as_ref().to_vec()));
        self
    }

    /// Runs `f({tmp})` before each run (e.g. to create a big sparse file).
    pub fn setup<F: Fn(&Path) + 'static>(mut self, f: F) -> Case {
        self.dir_setup.push(Box::new(f));
        self
    }

    /// Adds an environment variable (placeholders allowed in the value).
    pub fn env(mut self, k: &str, v: &str) -> Case {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    /// Compare stdout (default true).
    pub fn compare_stdout(mut self, on: bool) -> Case {
        self.compare_stdout = on;
        self
    }

    /// Compare stderr (default false).
    pub fn compare_stderr(mut self, on: bool) -> Case {
        self.compare_stderr = on;
        self
    }

    /// Compare exit status (default true).
    pub fn compare_exit(mut self, on: bool) -> Case {
        self.compare_exit = on;
        self
    }

    /// Compare the bytes received per connection (default true).
    pub fn compare_requests(mut self, on: bool) -> Case {
        self.compare_requests = on;
        self
    }

    /// Compare the files left in `{tmp}` (default true).
    pub fn compare_files(mut self, on: bool) -> Case {
        self.compare_files = on;
        self
    }

    /// Compare connections as a sorted set instead of in accept order (for parallel
    /// transfers).
    pub fn unordered_connections(mut self) -> Case {
        self.unordered_connections = true;
        self
    }

    /// Replaces `from` by `to` in stdout and stderr of both runs before comparing.
    pub fn normalise(mut self, from: &str, to: &str) -> Case {
        self.normalisers.push(Normaliser::Replace(
            from.as_bytes().to_vec(),
            to.as_bytes().to_vec(),
        ));
        self
    }

    /// Applies `f` to stdout and stderr of both runs before comparing.
    pub fn normalise_with<F: Fn(&[u8]) -> Vec<u8> + 'static>(mut self, f: F) -> Case {
        self.normalisers.push(Normaliser::With(Box::new(f)));
        self
    }

    /// Replaces `from` by `to` in the received connection bytes before comparing.
    pub fn normalise_requests(mut self, from: &str, to: &str) -> Case {
        self.request_normalisers.push(Normaliser::Replace(
            from.as_bytes().to_vec(),
            to.as_bytes().to_vec(),
        ));
        self
    }

    /// Applies `f` to each connection's received bytes before comparing.
    pub fn normalise_requests_with<F: Fn(&[u8]) -> Vec<u8> + 'static>(mut self, f: F) -> Case {
        self.request_normalisers.push(Normaliser::With(Box::new(f)));
        self
    }

    /// Per-run timeout (default 20 s); a killed client is reported as such.
    pub fn timeout(mut self, d: Duration) -> Case {
        self.timeout = d;
        self
    }

    /// The reference curl is expected to fail, possibly without a transfer: exit non-zero
    /// without connecting to the case's server and without writing stdout or a file (an
    /// unknown option, a bad URL, a refused connection, a proxy that says no). Without this
    /// such a run of the reference fails the case; with it, a reference that exits 0 does.
    pub fn expect_failure(mut self) -> Case {
        self.expect_failure = true;
        self
    }

    /// [`Case::expect_failure`] when `yes`: for tables of command lines of which some are
    /// refused.
    pub fn expect_failure_if(mut self, yes: bool) -> Case {
        self.expect_failure = yes;
        self
    }

    /// Uses this binary as the reference instead of [`reference_curl`].
    pub fn reference(mut self, path: impl AsRef<Path>) -> Case {
        self.reference = Some(path.as_ref().to_path_buf());
        self
    }

    /// Runs both clients and compares; panics with a readable report on any difference.
    /// Returns both runs for further assertions. `oxcurl` is the built binary;
    /// `OXCURL_UNDER_TEST` replaces it when set ([`under_test`]).
    pub fn run(&self, oxcurl: impl AsRef<Path>) -> CaseResult {
        match self.try_run(oxcurl) {
            Ok(r) => r,
            Err(m) => panic!("{}", m.report),
        }
    }

    /// Like [`Case::run`] but returns the mismatch instead of panicking.
    pub fn try_run(&self, oxcurl: impl AsRef<Path>) -> Result<CaseResult, Box<Mismatch>> {
        self.try_run_exact(under_test(oxcurl))
    }

    /// Like [`Case::run`] but runs exactly `program` against the reference, whatever
    /// `OXCURL_UNDER_TEST` says: for tests of the harness itself.
    pub fn run_exact(&self, program: impl AsRef<Path>) -> CaseResult {
        match self.try_run_exact(program) {
            Ok(r) => r,
            Err(m) => panic!("{}", m.report),
        }
    }

    /// Like [`Case::try_run`] but runs exactly `program` against the reference, whatever
    /// `OXCURL_UNDER_TEST` says: for tests of the harness itself.
    pub fn try_run_exact(&self, program: impl AsRef<Path>) -> Result<CaseResult, Box<Mismatch>> {
        let oxcurl = program;
        let reference = self.reference.clone().unwrap_or_else(reference_curl);
        let server = if let Some(t) = &self.tls {
            ScriptedServer::start_tls(t)
        } else if self.ipv6 {
            ScriptedServer::start_v6().expect("bind [::1]:0")
        } else {
            ScriptedServer::start()
        };
        if !self.replies.is_empty() {
            server.set_replies(self.replies.clone());
        }
        for f in &self.server_setup {
            f(&server);
        }
        let scratch = TempDir::new(&sanitize(&self.name));
        let ref_run = self.run_one(&reference, &server, &scratch);
        server.reset();
        let ox_run = self.run_one(oxcurl.as_ref(), &server, &scratch);
        let result = CaseResult {
            name: self.name.clone(),
            reference: ref_run,
            oxcurl: ox_run,
        };
        match self.compare(&result, &server) {
            None => Ok(result),
            Some((differences, report)) => Err(Box::new(Mismatch {
                result,
                differences,
                report,
            })),
        }
    }

    fn subst(&self, s: &str, server: &ScriptedServer, tmp: &Path, home: &Path) -> String {
        s.replace("{url}", &server.url())
            .replace("{host}", &server.host_port())
            .replace("{port}", &server.port().to_string())
            .replace("{tmp}", &tmp.to_string_lossy())
            .replace("{home}", &home.to_string_lossy())
            .replace("{ca}", &crate::tls::pki().ca().to_string_lossy())
            .replace("{pki}", &crate::tls::pki().dir.to_string_lossy())
    }

    /// Serves HTTPS with these settings: `{url}` becomes `https://127.0.0.1:PORT`; `{ca}` is
    /// the test CA file and `{pki}` the directory of the test certificates.
    pub fn tls(mut self, opts: crate::tls::TlsServerOptions) -> Case {
        self.tls = Some(opts);
        self
    }

    fn run_one(&self, program: &Path, server: &ScriptedServer, scratch: &TempDir) -> RunRecord {
        let tmp = scratch.join("tmp");
        let home = scratch.join("home");
        for d in [&tmp, &home] {
            let _ = fs::remove_dir_all(d);
            fs::create_dir_all(d).expect("create scratch dir");
        }
        for (name, contents) in &self.files {
            let p = tmp.join(self.subst(name, server, &tmp, &home));
            if let Some(parent) = p.parent() {
                fs::create_dir_all(parent).expect("create dir for input file");
            }
            fs::write(&p, contents).expect("write input file");
        }
        for f in &self.dir_setup {
            f(&tmp);
        }
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| self.subst(a, server, &tmp, &home))
            .collect();
        let mut exec = isolated_exec(program, &home, &tmp)
            .args(&args)
            .timeout(self.timeout);
        for (k, v) in &self.env {
            exec = exec.env(k, self.subst(v, server, &tmp, &home));
        }
        if let Some(s) = &self.stdin {
            exec = exec.stdin(s);
        }
        let before = dir_state(&tmp);
        let output = exec.run();
        let changed_tmp = dir_state(&tmp) != before;
        let server_idle = server.wait_idle(Duration::from_secs(3));
        let norm = |data: &[u8]| {
            self.normalisers
                .iter()
                .fold(mask_elapsed_ms(data), |d, n| n.apply(&d))
        };
        let connections = server
            .connection_bytes()
            .into_iter()
            .map(|c| self.request_normalisers.iter().fold(c, |d, n| n.apply(&d)))
            .collect();
        RunRecord {
            program: program.to_path_buf(),
            args,
            stdout: norm(&output.stdout),
            stderr: norm(&output.stderr),
            output,
            requests: server.requests(),
            connections,
            files: snapshot_dir(&tmp)
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, norm(&v)))
                .collect(),
            server_idle,
            changed_tmp,
        }
    }

    fn compare(
        &self,
        r: &CaseResult,
        server: &ScriptedServer,
    ) -> Option<(Vec<Difference>, String)> {
        let (a, b) = (&r.reference, &r.oxcurl);
        let mut sections: Vec<(Difference, String)> = Vec::new();
        // Both sides must have done something (a hang is dealt with below).
        if self.expect_failure && a.output.code == Some(0) {
            sections.push((
                Difference::ReferenceSucceeded,
                format!(
                    "the case expects the reference curl to fail (expect_failure), and it \
                     ended with {}",
                    a.output.status_text()
                ),
            ));
        }
        if !self.expect_failure
            && a.output.code != Some(0)
            && !a.output.timed_out
            && a.connections.is_empty()
            && a.output.stdout.is_empty()
            && !a.changed_tmp
        {
            sections.push((
                Difference::ReferenceDidNothing,
                format!(
                    "the reference curl failed ({}) without connecting to the server, writing \
                     stdout or changing {{tmp}}: two such failures compare equal without \
                     showing anything. A case that expects it says so with \
                     Case::expect_failure()",
                    a.output.status_text()
                ),
            ));
        }
        // Both killed by the harness compare equal but show nothing: a hang is a failure.
        if a.output.timed_out && b.output.timed_out {
            sections.push((
                Difference::BothHung,
                format!(
                    "both clients were killed after {:?}: the case hangs",
                    self.timeout
                ),
            ));
        }
        if self.compare_exit
            && (a.output.code != b.output.code
                || a.output.signal != b.output.signal
                || a.output.timed_out != b.output.timed_out)
        {
            sections.push((
                Difference::Exit,
                format!(
                    "exit status differs: reference {}, oxcurl {}",
                    a.output.status_text(),
                    b.output.status_text()
                ),
            ));
        }
        if self.compare_stdout && a.stdout != b.stdout {
            sections.push((
                Difference::Stdout,
                show_diff("stdout", &a.stdout, &b.stdout),
            ));
        }
        if self.compare_stderr && a.stderr != b.stderr {
            sections.push((
                Difference::Stderr,
                show_diff("stderr", &a.stderr, &b.stderr),
            ));
        }
        if self.compare_requests {
            let (mut ca, mut cb) = (a.connections.clone(), b.connections.clone());
            if self.unordered_connections {
                ca.sort();
                cb.sort();
            }
            if ca.len() != cb.len() {
                sections.push((
                    Difference::ConnectionCount,
                    format!(
                        "number of connections differs: reference {}, oxcurl {}",
                        ca.len(),
                        cb.len()
                    ),
                ));
            }
            let empty = Vec::new();
            for i in 0..ca.len().max(cb.len()) {
                let x = ca.get(i).unwrap_or(&empty);
                let y = cb.get(i).unwrap_or(&empty);
                if x != y {
                    sections.push((
                        Difference::Request(i),
                        show_diff(&format!("bytes received on connection {i}"), x, y),
                    ));
                }
            }
        }
        if self.compare_files && a.files != b.files {
            let names: std::collections::BTreeSet<&String> =
                a.files.keys().chain(b.files.keys()).collect();
            for n in names {
                let text = match (a.files.get(n), b.files.get(n)) {
                    (Some(x), Some(y)) if x != y => show_diff(&format!("file {{tmp}}/{n}"), x, y),
                    (Some(_), None) => format!("file {{tmp}}/{n} written by the reference only"),
                    (None, Some(_)) => format!("file {{tmp}}/{n} written by oxcurl only"),
                    _ => continue,
                };
                sections.push((Difference::File(n.clone()), text));
            }
        }
        if sections.is_empty() {
            return None;
        }
        let mut report = format!(
            "case `{}`: oxcurl differs from the reference curl\n  server: {}\n  args: {:?}\n  reference: {} ({})\n  oxcurl: {} ({})\n",
            self.name,
            server.url(),
            a.args,
            a.program.display(),
            a.output.status_text(),
            b.program.display(),
            b.output.status_text(),
        );
        let mut differences = Vec::with_capacity(sections.len());
        for (d, s) in sections {
            differences.push(d);
            report.push_str("\n--- ");
            report.push_str(&s);
            if !report.ends_with('\n') {
                report.push('\n');
            }
        }
        if !self.compare_stderr && (a.stderr != b.stderr) {
            report.push_str("\n(stderr not compared) ");
            report.push_str(&show_diff("stderr", &a.stderr, &b.stderr));
        }
        Some((differences, report))
    }
}

/// Length and modification time of everything below `dir` (relative path as key), to tell
/// whether a run changed it without reading file contents.
fn dir_state(dir: &Path) -> BTreeMap<PathBuf, (bool, u64, Option<std::time::SystemTime>)> {
    fn walk(
        root: &Path,
        dir: &Path,
        out: &mut BTreeMap<PathBuf, (bool, u64, Option<std::time::SystemTime>)>,
    ) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(m) = fs::symlink_metadata(&p) else {
                continue;
            };
            let rel = p.strip_prefix(root).unwrap_or(&p).to_path_buf();
            out.insert(rel, (m.is_dir(), m.len(), m.modified().ok()));
            if m.is_dir() {
                walk(root, &p, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(40)
        .collect()
}

/// Escapes bytes the way curl's test logs show them: printable ASCII as is, `\r`, `\n`,
/// `\t`, `\\` and `\xNN` otherwise; a real line break follows each `\n`.
/// `-v` output without a `{ [N bytes data]` or `} [N bytes data]` marker that repeats the
/// line before it (after digit masking, any two such markers do). curl writes one marker per
/// run of data; where a racy line it prints now and then ("Request completely sent off")
/// was taken out, the run it split shows two.
pub fn drop_repeated_data_markers(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut last: &[u8] = b"";
    for l in data.split_inclusive(|&b| b == b'\n') {
        if !(l == last && (l.starts_with(b"{ [") || l.starts_with(b"} ["))) {
            out.extend_from_slice(l);
        }
        last = l;
    }
    out
}

/// `program` as every differential run starts it: an environment of only `PATH` (the
/// caller's, else `/usr/bin:/bin`), `HOME`, `CURL_HOME` and `XDG_CONFIG_HOME` (all `home`),
/// `LC_ALL=C` and `TZ=UTC`, in the directory `cwd`.
pub fn isolated_exec(program: impl AsRef<Path>, home: &Path, cwd: &Path) -> Exec {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    Exec::new(program)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("CURL_HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .cwd(cwd)
}

/// Exit code, stdout and stderr of both runs, for the message of a failed comparison.
pub fn runs_report(reference: &Output, oxcurl: &Output) -> String {
    let show = |w: &Output| {
        format!(
            "code {:?}\nstdout:\n{}\nstderr:\n{}",
            w.code,
            String::from_utf8_lossy(&w.stdout),
            String::from_utf8_lossy(&w.stderr)
        )
    };
    format!(
        "\n--- reference\n{}\n--- oxcurl\n{}",
        show(reference),
        show(oxcurl)
    )
}

pub fn escape(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len() + 16);
    for &b in data {
        match b {
            b'\r' => s.push_str("\\r"),
            b'\n' => s.push_str("\\n\n"),
            b'\t' => s.push_str("\\t"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

/// The index of the first differing byte (the shorter length if one is a prefix).
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    if a == b {
        return None;
    }
    Some(
        a.iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len())),
    )
}

const SHOW_WHOLE: usize = 4096;
const WINDOW: usize = 600;

fn excerpt(data: &[u8], pos: usize) -> String {
    let (start, end) = if data.len() <= SHOW_WHOLE {
        (0, data.len())
    } else {
        (pos.saturating_sub(WINDOW), (pos + WINDOW).min(data.len()))
    };
    let mut out = String::new();
    if start > 0 {
        out.push_str(&format!("    [... {start} bytes before]\n"));
    }
    for line in escape(&data[start..end]).lines() {
        out.push_str("    | ");
        out.push_str(line);
        out.push('\n');
    }
    if end < data.len() {
        out.push_str(&format!("    [... {} bytes after]\n", data.len() - end));
    }
    out
}

/// A readable report of how `reference` and `oxcurl` differ.
pub fn show_diff(what: &str, reference: &[u8], oxcurl: &[u8]) -> String {
    let pos = first_difference(reference, oxcurl).unwrap_or(0);
    let line = reference[..pos.min(reference.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    let at = |d: &[u8]| match d.get(pos) {
        Some(&b) => escape(&[b]).trim_end().to_string(),
        None => "end of data".to_string(),
    };
    format!(
        "{what} differs at byte {pos} (line {line}): reference has {}, oxcurl has {}\n  reference ({} bytes):\n{}  oxcurl ({} bytes):\n{}",
        at(reference),
        at(oxcurl),
        reference.len(),
        excerpt(reference, pos),
        oxcurl.len(),
        excerpt(oxcurl, pos),
    )
}

#[cfg(test)]
mod elapsed_tests {
    use super::mask_elapsed_ms;

    #[test]
    fn masks_only_the_milliseconds_after_after() {
        assert_eq!(
            mask_elapsed_ms(b"Failed to connect to 127.0.0.1 port 1 after 12 ms: x after 3 s"),
            b"Failed to connect to 127.0.0.1 port 1 after N ms: x after 3 s".to_vec()
        );
        assert_eq!(
            mask_elapsed_ms(b"after  ms after 7"),
            b"after  ms after 7".to_vec()
        );
    }
}
