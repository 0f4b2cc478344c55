//! Running programs with a timeout, and locating the reference curl.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The default timeout of [`Exec::run`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// Path of the reference curl 8.14.1: `$OXCURL_REFERENCE_CURL` if set, else
/// `$HOME/.cache/oxcurl-reference/bin/curl`. Panics with instructions when missing.
pub fn reference_curl() -> PathBuf {
    let path = match std::env::var_os("OXCURL_REFERENCE_CURL") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => {
            let home = std::env::var_os("HOME").unwrap_or_else(|| OsString::from("/"));
            PathBuf::from(home).join(".cache/oxcurl-reference/bin/curl")
        }
    };
    if !path.is_file() {
        panic!(
            "reference curl 8.14.1 not found at {}: run ../shared/reference/get-reference-curl \
             (relative to the repository root) to install it, or set OXCURL_REFERENCE_CURL",
            path.display()
        );
    }
    path
}

/// The oxcurl binary the tests run: `$OXCURL_UNDER_TEST` when set (and not empty), else
/// `built`, the one cargo built with the tests. The runners taking oxcurl's path
/// ([`crate::diff::Case::run`], [`crate::hostile::Hostile::run`], [`crate::h2::diff_script`])
/// resolve it through here, and so does every test that starts the binary itself, so one
/// variable puts another build (or a deliberately wrong client) under every test. A relative
/// value is taken from the current directory; a value that is not a file panics.
pub fn under_test(built: impl AsRef<Path>) -> PathBuf {
    match std::env::var_os("OXCURL_UNDER_TEST") {
        Some(p) if !p.is_empty() => {
            let p = absolute(Path::new(&p));
            assert!(
                p.is_file(),
                "OXCURL_UNDER_TEST={} is not a file: point it at an oxcurl binary or unset it",
                p.display()
            );
            p
        }
        _ => built.as_ref().to_path_buf(),
    }
}

/// The directory holding the libcurl.so.4 the C ABI tests link and run with:
/// `$OXCURL_LIB_UNDER_TEST` when set (and not empty), else None (the tests link the built
/// one). A relative value is taken from the current directory; a directory without
/// `libcurl.so.4` panics.
pub fn lib_under_test() -> Option<PathBuf> {
    match std::env::var_os("OXCURL_LIB_UNDER_TEST") {
        Some(p) if !p.is_empty() => {
            let p = absolute(Path::new(&p));
            assert!(
                p.join("libcurl.so.4").is_file(),
                "OXCURL_LIB_UNDER_TEST={} holds no libcurl.so.4: point it at the directory of one \
                 or unset it",
                p.display()
            );
            Some(p)
        }
        _ => None,
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// What a finished (or killed) program produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// Exit code, None when killed by a signal.
    pub code: Option<i32>,
    /// The signal that ended the program, if any.
    pub signal: Option<i32>,
    /// Captured standard output.
    pub stdout: Vec<u8>,
    /// Captured standard error.
    pub stderr: Vec<u8>,
    /// Whether the program ran into the timeout and was killed.
    pub timed_out: bool,
    /// Wall time until exit (or kill).
    pub elapsed: Duration,
    /// The program's peak resident set size in KiB (`VmHWM` of `/proc/PID/status`, sampled
    /// while it ran: at least 1 ms apart, at most 10 ms); None if never sampled.
    pub peak_rss_kib: Option<u64>,
}

impl Output {
    /// The exit code; panics (showing stderr) if the program did not exit normally.
    pub fn exit_code(&self) -> i32 {
        match self.code {
            Some(c) => c,
            None => panic!(
                "program did not exit normally (signal {:?}, timed out: {}); stderr:\n{}",
                self.signal,
                self.timed_out,
                String::from_utf8_lossy(&self.stderr)
            ),
        }
    }

    /// stdout as (lossy) UTF-8.
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// stderr as (lossy) UTF-8.
    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// A one-line description of how the program ended.
    pub fn status_text(&self) -> String {
        if self.timed_out {
            format!("timed out after {:?} and was killed", self.elapsed)
        } else if let Some(c) = self.code {
            format!("exit code {c}")
        } else {
            format!("killed by signal {:?}", self.signal)
        }
    }
}

/// A program invocation: path, arguments, stdin bytes, environment, working directory
/// and timeout.
///
/// ```no_run
/// use oxcurl_testsupport::process::Exec;
/// let out = Exec::new("/usr/bin/curl").args(["-s", "-V"]).run();
/// assert_eq!(out.code, Some(0));
/// ```
#[derive(Clone, Debug)]
pub struct Exec {
    program: PathBuf,
    args: Vec<OsString>,
    stdin: Option<Vec<u8>>,
    env_clear: bool,
    env: Vec<(OsString, Option<OsString>)>,
    cwd: Option<PathBuf>,
    timeout: Duration,
}

impl Exec {
    /// Runs `program` (a path, or a name looked up in `PATH`).
    pub fn new(program: impl AsRef<Path>) -> Exec {
        Exec {
            program: program.as_ref().to_path_buf(),
            args: Vec::new(),
            stdin: None,
            env_clear: false,
            env: Vec::new(),
            cwd: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Exec {
        self.args.push(a.as_ref().to_os_string());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Exec
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// Bytes fed to stdin (stdin is empty, not inherited, without this).
    pub fn stdin(mut self, data: impl AsRef<[u8]>) -> Exec {
        self.stdin = Some(data.as_ref().to_vec());
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Exec {
        self.env
            .push((k.as_ref().to_os_string(), Some(v.as_ref().to_os_string())));
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(mut self, k: impl AsRef<OsStr>) -> Exec {
        self.env.push((k.as_ref().to_os_string(), None));
        self
    }

    /// Starts from an empty environment (variables set with [`Exec::env`] still apply).
    pub fn env_clear(mut self) -> Exec {
        self.env_clear = true;
        self
    }

    /// Working directory.
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Exec {
        self.cwd = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Kill the program after this long (default 20 s).
    pub fn timeout(mut self, d: Duration) -> Exec {
        self.timeout = d;
        self
    }

    /// Runs the program to completion (or until the timeout kills it). Panics only if
    /// the program cannot be started.
    pub fn run(&self) -> Output {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if self.env_clear {
            cmd.env_clear();
        }
        for (k, v) in &self.env {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        if let Some(d) = &self.cwd {
            cmd.current_dir(d);
        }
        let start = Instant::now();
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program.display()));
        let stdin_thread = match (child.stdin.take(), self.stdin.clone()) {
            (Some(mut pipe), Some(data)) => Some(thread::spawn(move || {
                let _ = pipe.write_all(&data);
            })),
            _ => None,
        };
        let mut out_pipe = child.stdout.take().expect("stdout pipe");
        let mut err_pipe = child.stderr.take().expect("stderr pipe");
        let out_thread = thread::spawn(move || {
            let mut v = Vec::new();
            let _ = out_pipe.read_to_end(&mut v);
            v
        });
        let err_thread = thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err_pipe.read_to_end(&mut v);
            v
        });
        let mut timed_out = false;
        let mut nap = Duration::from_millis(1);
        let mut peak_rss_kib = None;
        let status_file = format!("/proc/{}/status", child.id());
        let status = loop {
            // Sampled before reaping: a zombie's status has no memory lines.
            if let Some(kib) = vm_hwm_kib(&status_file) {
                peak_rss_kib = peak_rss_kib.max(Some(kib));
            }
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) => {}
                Err(e) => panic!("waiting for {}: {e}", self.program.display()),
            }
            if start.elapsed() >= self.timeout {
                timed_out = true;
                let _ = child.kill();
                break child.wait().expect("wait after kill");
            }
            thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(10));
        };
        let elapsed = start.elapsed();
        if let Some(t) = stdin_thread {
            let _ = t.join();
        }
        let stdout = out_thread.join().unwrap_or_default();
        let stderr = err_thread.join().unwrap_or_default();
        Output {
            code: status.code(),
            signal: status.signal(),
            stdout,
            stderr,
            timed_out,
            elapsed,
            peak_rss_kib,
        }
    }
}

/// The `VmHWM` line of a `/proc/PID/status` file, in KiB.
fn vm_hwm_kib(status_file: &str) -> Option<u64> {
    let text = std::fs::read_to_string(status_file).ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line["VmHWM:".len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}
