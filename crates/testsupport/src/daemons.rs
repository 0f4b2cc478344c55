//! Debian's squid (an HTTP forward and CONNECT proxy), nghttpx (an HTTP/2 proxy in front of
//! squid, as curl's own test suite runs it), dante (a SOCKS 4/5 server), vsftpd and ProFTPD
//! (FTP servers, with FTPS) on ephemeral loopback ports, for tests that want a real proxy or
//! server rather than a scripted one.
//!
//! ```no_run
//! use oxcurl_testsupport::daemons::{ProxyAuth, Squid};
//! let Some(squid) = Squid::try_start(ProxyAuth::None) else {
//!     return; // OXCURL_SKIP_PROXIES=1 and squid is not installed
//! };
//! println!("-x {}", squid.host_port());
//! ```
//!
//! All run in the foreground, are killed on drop, and keep their configuration and logs
//! in a temporary directory (readable by the unprivileged users they switch to).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::fs::TempDir;
use crate::nginx::{free_port, wait_listening, Listening};

/// Where Debian installs squid.
pub const SQUID_BIN: &str = "/usr/sbin/squid";
/// Where Debian installs nghttpx (package nghttp2-proxy).
pub const NGHTTPX_BIN: &str = "/usr/sbin/nghttpx";
/// Where Debian installs dante's server.
pub const DANTED_BIN: &str = "/usr/sbin/danted";
/// Where Debian installs vsftpd.
pub const VSFTPD_BIN: &str = "/usr/sbin/vsftpd";

/// Proxy authentication squid asks for (407) before it forwards anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProxyAuth {
    /// Open proxy.
    None,
    /// Basic with this user and password (squid's `basic_ncsa_auth`).
    Basic(String, String),
    /// Digest with this user and password (squid's `digest_file_auth`).
    Digest(String, String),
}

/// A running daemon; killed on drop.
#[derive(Debug)]
struct Daemon {
    child: Child,
    port: u16,
    dir: TempDir,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `None` (skip) when `bin` is missing and the environment has `skip=1`; panics when it is
/// missing otherwise, naming the package to install.
fn find(bin: &str, package: &str, skip: &str) -> Option<PathBuf> {
    let p = PathBuf::from(bin);
    if p.is_file() {
        return Some(p);
    }
    if std::env::var(skip).is_ok_and(|v| v == "1") {
        eprintln!("{bin} not installed and {skip}=1: skipping");
        return None;
    }
    panic!(
        "{bin} not found (install it with `apt-get install -y {package}`, or set \
         {skip}=1 to skip these tests)"
    );
}

/// The proxies' skip switch.
const SKIP_PROXIES: &str = "OXCURL_SKIP_PROXIES";

/// Starts `cmd` (built by `make` for a port and a directory) until it listens on the port;
/// retries on another port when the first was taken meanwhile.
fn launch(what: &str, make: impl Fn(u16, &TempDir) -> Command) -> Daemon {
    let mut last = String::new();
    for _ in 0..5 {
        let port = free_port();
        let dir = TempDir::new(what);
        // squid drops privileges: its logs and pid file must be writable by that user.
        let _ = fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777));
        let stderr = fs::File::create(dir.join("stderr.log"))
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null());
        let mut child = make(port, &dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
        match wait_listening(&mut child, port, Duration::from_secs(20)) {
            Listening::Up => return Daemon { child, port, dir },
            Listening::Exited(st) => {
                last = format!(
                    "{what} exited ({st}): {}{}",
                    fs::read_to_string(dir.join("stderr.log")).unwrap_or_default(),
                    fs::read_to_string(dir.join("log")).unwrap_or_default()
                );
            }
            Listening::TimedOut => last = format!("{what} did not listen within 20 s"),
        }
    }
    panic!("cannot start {what}: {last}");
}

/// Debian's squid as a forward proxy on `127.0.0.1:PORT`: absolute-form requests and
/// CONNECT to any port, nothing cached.
#[derive(Debug)]
pub struct Squid {
    d: Daemon,
}

impl Squid {
    /// Starts squid; `None` when it is not installed and `OXCURL_SKIP_PROXIES=1`.
    pub fn try_start(auth: ProxyAuth) -> Option<Squid> {
        let bin = find(SQUID_BIN, "squid", SKIP_PROXIES)?;
        let d = launch("squid", |port, dir| {
            let conf = dir.join("squid.conf");
            fs::write(&conf, squid_config(port, dir.path(), &auth)).expect("write squid.conf");
            let mut c = Command::new(&bin);
            c.arg("-N").arg("-f").arg(&conf);
            c
        });
        Some(Squid { d })
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.d.port
    }

    /// `127.0.0.1:PORT`, for `-x`.
    pub fn host_port(&self) -> String {
        format!("127.0.0.1:{}", self.d.port)
    }

    /// squid's access log so far (one line per request it handled).
    pub fn access_log(&self) -> String {
        fs::read_to_string(self.d.dir.join("access.log")).unwrap_or_default()
    }

    /// The directory holding the configuration and logs.
    pub fn dir(&self) -> &Path {
        self.d.dir.path()
    }
}

fn squid_config(port: u16, dir: &Path, auth: &ProxyAuth) -> String {
    let d = dir.display();
    let helper_dir = "/usr/lib/squid";
    let auth_lines = match auth {
        ProxyAuth::None => "http_access allow all\n".to_string(),
        ProxyAuth::Basic(user, pass) => {
            let hash = md5_crypt(pass);
            fs::write(dir.join("passwd"), format!("{user}:{hash}\n")).expect("write passwd");
            format!(
                "auth_param basic program {helper_dir}/basic_ncsa_auth {d}/passwd\n\
                 auth_param basic realm oxcurl-test\n\
                 acl authed proxy_auth REQUIRED\n\
                 http_access allow authed\n\
                 http_access deny all\n"
            )
        }
        ProxyAuth::Digest(user, pass) => {
            fs::write(dir.join("digest"), format!("{user}:{pass}\n")).expect("write digest");
            format!(
                "auth_param digest program {helper_dir}/digest_file_auth {d}/digest\n\
                 auth_param digest realm oxcurl-test\n\
                 auth_param digest nonce_garbage_interval 5 minutes\n\
                 acl authed proxy_auth REQUIRED\n\
                 http_access allow authed\n\
                 http_access deny all\n"
            )
        }
    };
    format!(
        "http_port 127.0.0.1:{port}\n\
         pid_filename {d}/squid.pid\n\
         cache_log {d}/log\n\
         access_log {d}/access.log squid\n\
         coredump_dir {d}\n\
         cache deny all\n\
         cache_mem 8 MB\n\
         pinger_enable off\n\
         shutdown_lifetime 0 seconds\n\
         visible_hostname oxcurl-test\n\
         forwarded_for on\n\
         server_persistent_connections off\n\
         {auth_lines}"
    )
}

/// An MD5-crypt (`$1$`) hash of `pass`, which squid's `basic_ncsa_auth` accepts, made by
/// `openssl passwd -1` with a fixed salt.
fn md5_crypt(pass: &str) -> String {
    let out = Command::new("openssl")
        .args(["passwd", "-1", "-salt", "oxcurlts", pass])
        .output()
        .expect("run openssl passwd");
    assert!(out.status.success(), "openssl passwd failed");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Debian's nghttpx as an HTTPS proxy speaking HTTP/2 (`--http2-proxy`, ALPN `h2` and
/// `http/1.1`) on `127.0.0.1:PORT`, with the test PKI's server certificate (good for
/// `localhost` and `127.0.0.1`), forwarding absolute-form requests and CONNECT to a squid.
#[derive(Debug)]
pub struct Nghttpx {
    d: Daemon,
}

impl Nghttpx {
    /// Starts nghttpx in front of `squid`; `None` when it is not installed and
    /// `OXCURL_SKIP_PROXIES=1`.
    pub fn try_start(squid: &Squid) -> Option<Nghttpx> {
        let bin = find(NGHTTPX_BIN, "nghttp2-proxy", SKIP_PROXIES)?;
        let (cert, key) = crate::tls::ServerCert::Good.paths();
        let backend = squid.port();
        let d = launch("nghttpx", |port, dir| {
            let mut c = Command::new(&bin);
            c.arg("--http2-proxy")
                .arg(format!("--frontend=127.0.0.1,{port}"))
                .arg(format!("--backend=127.0.0.1,{backend}"))
                .arg("--workers=1")
                .arg("--no-ocsp")
                .arg("--conf=/dev/null")
                .arg("--log-level=INFO")
                .arg(format!("--errorlog-file={}", dir.join("log").display()))
                .arg(format!(
                    "--accesslog-file={}",
                    dir.join("access.log").display()
                ))
                .arg("--accesslog-format=$remote_port $alpn \"$request\" $status")
                .arg(&key)
                .arg(&cert);
            c
        });
        Some(Nghttpx { d })
    }

    /// Starts nghttpx as a cleartext reverse proxy in front of the HTTP/1.1 server on
    /// `127.0.0.1:backend`: HTTP/1.1, HTTP/2 with prior knowledge, and HTTP/1.1 switched to
    /// HTTP/2 by `Upgrade: h2c` (curl's suite uses it so for its `http/2` server). `None`
    /// when it is not installed and `OXCURL_SKIP_PROXIES=1`.
    pub fn try_start_h2c(backend: u16) -> Option<Nghttpx> {
        let bin = find(NGHTTPX_BIN, "nghttp2-proxy", SKIP_PROXIES)?;
        let d = launch("nghttpx-h2c", |port, dir| {
            let mut c = Command::new(&bin);
            c.arg(format!("--frontend=127.0.0.1,{port};no-tls"))
                .arg(format!("--backend=127.0.0.1,{backend}"))
                .arg("--workers=1")
                .arg("--conf=/dev/null")
                .arg("--log-level=INFO")
                .arg(format!("--errorlog-file={}", dir.join("log").display()))
                .arg(format!(
                    "--accesslog-file={}",
                    dir.join("access.log").display()
                ))
                .arg("--accesslog-format=$remote_port $alpn \"$request\" $status");
            c
        });
        Some(Nghttpx { d })
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.d.port
    }

    /// `https://localhost:PORT`, for `-x` (the certificate names localhost).
    pub fn url(&self) -> String {
        format!("https://localhost:{}", self.d.port)
    }

    /// The access log so far: one line per request, `CLIENTPORT ALPN "REQUEST" STATUS`.
    pub fn access_log(&self) -> String {
        fs::read_to_string(self.d.dir.join("access.log")).unwrap_or_default()
    }

    /// How many client connections the logged requests came on (distinct client ports).
    pub fn connections(&self) -> usize {
        let log = self.access_log();
        let mut ports: Vec<&str> = log.lines().filter_map(|l| l.split(' ').next()).collect();
        ports.sort_unstable();
        ports.dedup();
        ports.len()
    }

    /// The header blocks clients sent over HTTP/2, in order, one field a line (`:method:
    /// GET`), as nghttpx logs them.
    pub fn h2_request_heads(&self) -> Vec<String> {
        let log = fs::read_to_string(self.d.dir.join("log")).unwrap_or_default();
        let mut out = Vec::new();
        let mut lines = log.lines();
        while let Some(l) = lines.next() {
            if !(l.contains("http2_upstream") && l.contains("HTTP request headers.")) {
                continue;
            }
            let mut block = String::new();
            for f in lines.by_ref() {
                if f.is_empty() {
                    break;
                }
                block.push_str(f);
                block.push('\n');
            }
            out.push(block);
        }
        out
    }
}

/// Debian's dante as a SOCKS 4/5 server on `127.0.0.1:PORT`, no authentication, reaching
/// out through the loopback interface (IPv4 and IPv6 targets).
#[derive(Debug)]
pub struct Dante {
    d: Daemon,
}

impl Dante {
    /// Starts danted; `None` when it is not installed and `OXCURL_SKIP_PROXIES=1`.
    pub fn try_start() -> Option<Dante> {
        let bin = find(DANTED_BIN, "dante-server", SKIP_PROXIES)?;
        let d = launch("dante", |port, dir| {
            let conf = dir.join("danted.conf");
            let cfg = format!(
                "logoutput: {d}/log\n\
                 internal: 127.0.0.1 port = {port}\n\
                 external: lo\n\
                 clientmethod: none\n\
                 socksmethod: none\n\
                 user.privileged: root\n\
                 user.unprivileged: nobody\n\
                 client pass {{ from: 0.0.0.0/0 to: 0.0.0.0/0 }}\n\
                 socks pass {{ from: 0.0.0.0/0 to: 0.0.0.0/0 }}\n",
                d = dir.path().display()
            );
            fs::write(&conf, cfg).expect("write danted.conf");
            let mut c = Command::new(&bin);
            c.arg("-f")
                .arg(&conf)
                .arg("-p")
                .arg(dir.join("danted.pid"))
                .arg("-N")
                .arg("1");
            c
        });
        Some(Dante { d })
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.d.port
    }

    /// `127.0.0.1:PORT`.
    pub fn host_port(&self) -> String {
        format!("127.0.0.1:{}", self.d.port)
    }

    /// dante's log so far.
    pub fn log(&self) -> String {
        fs::read_to_string(self.d.dir.join("log")).unwrap_or_default()
    }
}

/// What a [`Vsftpd`] allows besides anonymous download.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VsftpdOptions {
    /// A directory below the root (e.g. `upload`) where anonymous users may upload
    /// (`STOR`, `APPE`), create directories, delete and rename. It is created, and made
    /// writable for everyone, when missing.
    pub upload_dir: Option<String>,
    /// FTPS with the test PKI's `localhost` certificate: `Some(false)` explicit (AUTH TLS,
    /// then TLS required for logins and data), `Some(true)` implicit (TLS from the first
    /// byte, as on port 990). Data connections must resume the control connection's TLS
    /// session (`require_ssl_reuse`).
    pub tls: Option<bool>,
}

impl VsftpdOptions {
    /// Anonymous download only.
    pub fn new() -> VsftpdOptions {
        VsftpdOptions::default()
    }

    /// Also lets anonymous users write in `dir` below the root.
    pub fn upload_dir(mut self, dir: &str) -> VsftpdOptions {
        self.upload_dir = Some(dir.trim_matches('/').to_string());
        self
    }

    /// FTPS, explicit or implicit (see [`VsftpdOptions::tls`]).
    pub fn tls(mut self, implicit: bool) -> VsftpdOptions {
        self.tls = Some(implicit);
        self
    }
}

/// Debian's vsftpd on `127.0.0.1:PORT`, serving a directory to anonymous users (any
/// password, `USER anonymous` or `USER ftp`), passive ports in 40000-44999, active mode
/// from any port.
///
/// As root it runs as the package expects: it serves each session as its unprivileged
/// `ftp` user (which the package creates), chrooted into the root. vsftpd refuses a root
/// that user can write to, so [`Vsftpd::try_start`] takes away the group and other write
/// bits (and makes the root readable); uploads go to [`VsftpdOptions::upload_dir`]. As
/// another user it needs `run_as_launching_user` and then serves as that user, without a
/// chroot. Its namespace isolation and seccomp sandbox are off: both can fail inside a
/// container that withholds the privileges they need. Only world-readable files are
/// served.
#[derive(Debug)]
pub struct Vsftpd {
    d: Daemon,
    root: PathBuf,
}

impl Vsftpd {
    /// Starts vsftpd serving `root` for anonymous download; `None` when it is not
    /// installed and `OXCURL_SKIP_FTPD=1`.
    pub fn try_start(root: &Path) -> Option<Vsftpd> {
        Vsftpd::try_start_with(root, &VsftpdOptions::new())
    }

    /// Starts vsftpd serving `root` with `opts`; `None` when it is not installed and
    /// `OXCURL_SKIP_FTPD=1`.
    pub fn try_start_with(root: &Path, opts: &VsftpdOptions) -> Option<Vsftpd> {
        let bin = find(VSFTPD_BIN, "vsftpd", "OXCURL_SKIP_FTPD")?;
        let root = root
            .canonicalize()
            .unwrap_or_else(|e| panic!("vsftpd root {}: {e}", root.display()));
        let meta = fs::metadata(&root).expect("stat vsftpd root");
        let mode = ((meta.permissions().mode() & 0o7777) | 0o555) & !0o022;
        fs::set_permissions(&root, fs::Permissions::from_mode(mode)).expect("chmod vsftpd root");
        if let Some(up) = &opts.upload_dir {
            let dir = root.join(up);
            if !dir.is_dir() {
                fs::create_dir_all(&dir).expect("create vsftpd upload dir");
                fs::set_permissions(&dir, fs::Permissions::from_mode(0o777))
                    .expect("chmod vsftpd upload dir");
            }
        }
        let d = launch("vsftpd", |port, dir| {
            let empty = dir.join("empty");
            let _ = fs::create_dir(&empty);
            let _ = fs::set_permissions(&empty, fs::Permissions::from_mode(0o755));
            let conf = dir.join("vsftpd.conf");
            fs::write(&conf, vsftpd_config(port, dir.path(), &root, opts))
                .expect("write vsftpd.conf");
            let mut c = Command::new(&bin);
            c.arg(&conf);
            c
        });
        Some(Vsftpd { d, root })
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.d.port
    }

    /// `127.0.0.1:PORT`.
    pub fn host_port(&self) -> String {
        format!("127.0.0.1:{}", self.d.port)
    }

    /// `ftp://127.0.0.1:PORT/`, with the trailing slash.
    pub fn url(&self) -> String {
        format!("ftp://127.0.0.1:{}/", self.d.port)
    }

    /// The directory it serves (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// vsftpd's own log so far: connections, logins, and every command and response
    /// (`FTP command: Client "127.0.0.1", "RETR file"`).
    pub fn log(&self) -> String {
        fs::read_to_string(self.d.dir.join("log")).unwrap_or_default()
    }

    /// The commands vsftpd received so far, in order, as its protocol log has them
    /// (the only record of what went over a TLS control connection).
    pub fn commands(&self) -> Vec<String> {
        self.log()
            .lines()
            .filter_map(|l| {
                let at = l.find("FTP command: Client ")?;
                let rest = &l[at..];
                let start = rest.find("\", \"")? + 4;
                Some(rest[start..].trim_end_matches('"').to_string())
            })
            .collect()
    }

    /// The transfer log so far, one line per file sent or received (wu-ftpd `xferlog`
    /// format).
    pub fn xferlog(&self) -> String {
        fs::read_to_string(self.d.dir.join("xferlog")).unwrap_or_default()
    }

    /// The directory holding the configuration and logs.
    pub fn dir(&self) -> &Path {
        self.d.dir.path()
    }
}

/// Whether this process runs as root (the effective uid in `/proc/self/status`).
fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("Uid:"))?.to_string();
            line.split_whitespace().nth(2).map(|e| e == "0")
        })
        .unwrap_or(false)
}

fn vsftpd_config(port: u16, dir: &Path, root: &Path, opts: &VsftpdOptions) -> String {
    let d = dir.display();
    let writes = if opts.upload_dir.is_some() {
        "write_enable=YES\n\
         anon_upload_enable=YES\n\
         anon_mkdir_write_enable=YES\n\
         anon_other_write_enable=YES\n\
         anon_umask=022\n"
    } else {
        "write_enable=NO\n"
    };
    let tls = match opts.tls {
        None => String::new(),
        Some(implicit) => {
            let (cert, key) = crate::tls::ServerCert::Good.paths();
            format!(
                "ssl_enable=YES\n\
                 allow_anon_ssl=YES\n\
                 force_anon_logins_ssl=YES\n\
                 force_anon_data_ssl=YES\n\
                 require_ssl_reuse=YES\n\
                 implicit_ssl={}\n\
                 rsa_cert_file={}\n\
                 rsa_private_key_file={}\n",
                if implicit { "YES" } else { "NO" },
                cert.display(),
                key.display()
            )
        }
    };
    let user = if is_root() {
        ""
    } else {
        "run_as_launching_user=YES\n"
    };
    format!(
        "listen=YES\n\
         listen_ipv6=NO\n\
         listen_address=127.0.0.1\n\
         listen_port={port}\n\
         background=NO\n\
         anonymous_enable=YES\n\
         local_enable=NO\n\
         anon_root={root}\n\
         secure_chroot_dir={d}/empty\n\
         pasv_enable=YES\n\
         pasv_min_port=40000\n\
         pasv_max_port=44999\n\
         port_enable=YES\n\
         connect_from_port_20=NO\n\
         seccomp_sandbox=NO\n\
         isolate=NO\n\
         isolate_network=NO\n\
         syslog_enable=NO\n\
         xferlog_enable=YES\n\
         dual_log_enable=YES\n\
         xferlog_file={d}/xferlog\n\
         vsftpd_log_file={d}/log\n\
         log_ftp_protocol=YES\n\
         {writes}{user}{tls}",
        root = root.display()
    )
}

/// Where `scripts/get-proftpd.sh` unpacks Debian's ProFTPD (proftpd-core, and
/// proftpd-mod-crypto for FTPS): `$OXCURL_PROFTPD_DIR`, else `~/.cache/oxcurl-proftpd`. The
/// package cannot be installed beside vsftpd (both conflict with `ftp-server`).
pub fn proftpd_dir() -> PathBuf {
    match std::env::var_os("OXCURL_PROFTPD_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/root".into()))
            .join(".cache/oxcurl-proftpd"),
    }
}

/// What a [`Proftpd`] serves besides anonymous download.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProftpdOptions {
    /// A directory below the root where anonymous users may upload and make directories
    /// (created world-writable when missing).
    pub upload_dir: Option<String>,
    /// FTPS with the test PKI's `localhost` certificate (mod_tls): `Some(false)` explicit
    /// (TLS required for the login and the data), `Some(true)` implicit. Data connections
    /// must resume the control connection's session (mod_tls's default).
    pub tls: Option<bool>,
    /// CCC is accepted: TLS is required for the login and the data only, so the control
    /// connection may go back to the clear after the login (`TLSRequired auth+data`).
    pub allow_ccc: bool,
}

/// Debian's ProFTPD on `127.0.0.1:PORT`, in the foreground, serving a directory to
/// anonymous users (`USER anonymous` or `ftp`, any password), passive ports in
/// 45000-49999. As root it serves each session as the `ftp` user (vsftpd's package makes
/// it), chrooted into the root; as another user, as that user.
#[derive(Debug)]
pub struct Proftpd {
    d: Daemon,
    root: PathBuf,
}

impl Proftpd {
    /// Starts ProFTPD with `opts`; `None` when it (or, for TLS, mod_tls) is not installed
    /// and `OXCURL_SKIP_FTPD=1`.
    pub fn try_start_with(root: &Path, opts: &ProftpdOptions) -> Option<Proftpd> {
        let base = proftpd_dir();
        let bin = base.join("usr/sbin/proftpd");
        if !bin.is_file() && std::env::var("OXCURL_SKIP_FTPD").is_ok_and(|v| v == "1") {
            eprintln!(
                "{} not there and OXCURL_SKIP_FTPD=1: skipping",
                bin.display()
            );
            return None;
        }
        assert!(
            bin.is_file(),
            "{} not found (bash scripts/get-proftpd.sh unpacks it, or set \
             OXCURL_SKIP_FTPD=1 to skip these tests)",
            bin.display()
        );
        let root = root
            .canonicalize()
            .unwrap_or_else(|e| panic!("proftpd root {}: {e}", root.display()));
        let meta = fs::metadata(&root).expect("stat proftpd root");
        let mode = (meta.permissions().mode() & 0o7777) | 0o555;
        fs::set_permissions(&root, fs::Permissions::from_mode(mode)).expect("chmod root");
        if let Some(up) = &opts.upload_dir {
            let dir = root.join(up);
            if !dir.is_dir() {
                fs::create_dir_all(&dir).expect("create proftpd upload dir");
                fs::set_permissions(&dir, fs::Permissions::from_mode(0o777))
                    .expect("chmod proftpd upload dir");
            }
        }
        let d = launch("proftpd", |port, dir| {
            // ProFTPD refuses a scoreboard or logs in a world-writable directory (it opens
            // them before it drops privileges).
            let _ = fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755));
            let run = dir.join("run");
            let _ = fs::create_dir(&run);
            let conf = dir.join("proftpd.conf");
            fs::write(&conf, proftpd_config(port, dir.path(), &root, opts))
                .expect("write proftpd.conf");
            let mut c = Command::new(&bin);
            c.arg("-n").arg("-c").arg(&conf);
            c
        });
        Some(Proftpd { d, root })
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.d.port
    }

    /// The directory it serves (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The commands it received so far, in order (its command log; PASS shows as
    /// `PASS (hidden)`).
    pub fn commands(&self) -> Vec<String> {
        fs::read_to_string(self.d.dir.join("commands.log"))
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect()
    }

    /// The directory holding the configuration and logs.
    pub fn dir(&self) -> &Path {
        self.d.dir.path()
    }
}

fn proftpd_config(port: u16, dir: &Path, root: &Path, opts: &ProftpdOptions) -> String {
    let d = dir.display();
    let (server_user, anon_user) = if is_root() {
        (
            "User nobody\nGroup nogroup\n".to_string(),
            "ftp".to_string(),
        )
    } else {
        let me = std::env::var("USER").unwrap_or_else(|_| "nobody".into());
        (String::new(), me)
    };
    let tls = match opts.tls {
        None => String::new(),
        Some(implicit) => {
            let (cert, key) = crate::tls::ServerCert::Good.paths();
            format!(
                "ModulePath {}\n\
                 LoadModule mod_tls.c\n\
                 TLSEngine on\n\
                 TLSRequired {}\n\
                 TLSProtocol TLSv1.2 TLSv1.3\n\
                 TLSECCertificateFile {}\n\
                 TLSECCertificateKeyFile {}\n\
                 TLSLog {d}/tls.log\n\
                 {}",
                proftpd_dir().join("usr/lib/proftpd").display(),
                if opts.allow_ccc { "auth+data" } else { "on" },
                cert.display(),
                key.display(),
                if implicit {
                    "TLSOptions UseImplicitSSL\n"
                } else {
                    ""
                }
            )
        }
    };
    let upload = match &opts.upload_dir {
        Some(up) => format!(
            "  <Directory {up}>\n    <Limit STOR APPE MKD>\n      AllowAll\n    </Limit>\n  </Directory>\n"
        ),
        None => String::new(),
    };
    format!(
        "ServerType standalone\n\
         ServerName \"oxcurl test\"\n\
         Port {port}\n\
         DefaultAddress 127.0.0.1\n\
         SocketBindTight on\n\
         UseIPv6 off\n\
         {server_user}\
         PidFile {d}/run/proftpd.pid\n\
         ScoreboardFile {d}/run/scoreboard\n\
         DelayEngine off\n\
         ControlsEngine off\n\
         WtmpLog off\n\
         UseReverseDNS off\n\
         SystemLog {d}/log\n\
         TransferLog {d}/xferlog\n\
         LogFormat commands \"%m %J\"\n\
         ExtendedLog {d}/commands.log ALL commands\n\
         RequireValidShell off\n\
         PassivePorts 45000 49999\n\
         MaxInstances 50\n\
         {tls}\
         <Anonymous {root}>\n\
         \x20 User {anon_user}\n\
         \x20 Group nogroup\n\
         \x20 UserAlias anonymous {anon_user}\n\
         \x20 RequireValidShell off\n\
         {upload}\
         </Anonymous>\n",
        root = root.display()
    )
}
