//! Debian's nginx as a realistic static-file server on an ephemeral loopback port.
//!
//! ```no_run
//! use oxcurl_testsupport::nginx::Nginx;
//! let Some(nginx) = Nginx::try_start(std::path::Path::new("/srv/files")) else {
//!     return; // OXCURL_SKIP_NGINX=1 and nginx is not installed
//! };
//! println!("{}/big.bin", nginx.url());
//! ```

use std::fs;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::fs::TempDir;

/// Where Debian installs nginx.
pub const NGINX_BIN: &str = "/usr/sbin/nginx";

/// A running nginx; killed on drop.
pub struct Nginx {
    child: Child,
    port: u16,
    /// The HTTPS (h2 and http/1.1 by ALPN) port of [`Nginx::start_h2`].
    tls_port: Option<u16>,
    /// [`Nginx::try_start_early_data`]'s second HTTPS port, without early data.
    late_port: Option<u16>,
    dir: TempDir,
}

impl std::fmt::Debug for Nginx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nginx")
            .field("port", &self.port)
            .field("dir", &self.dir.path())
            .finish()
    }
}

/// nginx is not installed and `OXCURL_SKIP_NGINX=1` lets its tests pass without it.
fn skipped() -> bool {
    let skip = std::env::var("OXCURL_SKIP_NGINX").is_ok_and(|v| v == "1");
    if skip && !nginx_bin().is_file() {
        eprintln!("nginx not installed and OXCURL_SKIP_NGINX=1: skipping");
        return true;
    }
    false
}

fn nginx_bin() -> PathBuf {
    std::env::var_os("OXCURL_NGINX")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(NGINX_BIN))
}

impl Nginx {
    /// Starts nginx serving `root`. Panics when nginx is missing or fails to start.
    pub fn start(root: &Path) -> Nginx {
        let bin = nginx_bin();
        if !bin.is_file() {
            panic!(
                "nginx not found at {} (install it with `apt-get install -y nginx-light`, \
                 or set OXCURL_SKIP_NGINX=1 to skip nginx tests)",
                bin.display()
            );
        }
        Nginx::launch(&bin, root, Mode::Plain).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts nginx speaking HTTP/2: cleartext with prior knowledge only (h2c) on
    /// [`Nginx::port`], and HTTPS with ALPN `h2`/`http/1.1` on [`Nginx::tls_port`] with the
    /// test PKI's `localhost` certificate. None when nginx is missing and
    /// `OXCURL_SKIP_NGINX=1`.
    pub fn try_start_h2(root: &Path) -> Option<Nginx> {
        Nginx::try_launch(root, Mode::H2)
    }

    /// Starts nginx with HTTPS on [`Nginx::tls_port`] that takes TLS 1.3 early data
    /// (`ssl_early_data on`, TLS 1.3 only, ALPN `http/1.1`) and closes each connection after
    /// its reply, so that a second request resumes the session on a new connection; and the
    /// same without early data on [`Nginx::late_port`], with the same session ticket key, so
    /// that a session from the first is resumed there and its early data refused. Both answer
    /// `/post` with "posted" whatever the method. None when nginx is missing and
    /// `OXCURL_SKIP_NGINX=1`.
    pub fn try_start_early_data(root: &Path) -> Option<Nginx> {
        Nginx::try_launch(root, Mode::EarlyData)
    }

    /// Like [`Nginx::start`], but returns None when nginx is not installed and the
    /// environment has `OXCURL_SKIP_NGINX=1`, so the test can return early.
    pub fn try_start(root: &Path) -> Option<Nginx> {
        if skipped() {
            return None;
        }
        Some(Nginx::start(root))
    }

    /// Start nginx in `mode`; None when it is not installed and may be skipped.
    fn try_launch(root: &Path, mode: Mode) -> Option<Nginx> {
        if skipped() {
            return None;
        }
        Some(Nginx::launch(&nginx_bin(), root, mode).unwrap_or_else(|e| panic!("{e}")))
    }

    fn launch(bin: &Path, root: &Path, mode: Mode) -> Result<Nginx, String> {
        let ports = match mode {
            Mode::Plain => 1,
            Mode::H2 => 2,
            Mode::EarlyData => 3,
        };
        let root = root
            .canonicalize()
            .map_err(|e| format!("nginx root {}: {e}", root.display()))?;
        let mut last_err = String::new();
        for _ in 0..10 {
            // Both held at once while picked, so the two differ.
            let held = (0..ports)
                .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0"))
                .collect::<Vec<_>>();
            let port_of = |l: &TcpListener| l.local_addr().expect("bound").port();
            let port = port_of(&held[0]);
            let tls_port = held.get(1).map(port_of);
            let late_port = held.get(2).map(port_of);
            drop(held);
            let dir = TempDir::new("nginx");
            let conf = config(dir.path(), &root, port, tls_port, late_port, mode);
            let conf_path = dir.join("nginx.conf");
            fs::write(&conf_path, conf).map_err(|e| format!("write nginx.conf: {e}"))?;
            let mut child = Command::new(bin)
                .arg("-p")
                .arg(dir.path())
                .arg("-e")
                .arg(dir.join("error.log"))
                .arg("-c")
                .arg(&conf_path)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(
                    fs::File::create(dir.join("stderr.log"))
                        .map(Stdio::from)
                        .unwrap_or_else(|_| Stdio::null()),
                )
                .spawn()
                .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
            match wait_listening(&mut child, port, Duration::from_secs(10)) {
                Listening::Up => {
                    return Ok(Nginx {
                        child,
                        port,
                        tls_port,
                        late_port,
                        dir,
                    })
                }
                Listening::Exited(_) => {
                    let err = fs::read_to_string(dir.join("stderr.log")).unwrap_or_default();
                    let log = fs::read_to_string(dir.join("error.log")).unwrap_or_default();
                    last_err = format!("nginx exited early: {err}{log}");
                }
                Listening::TimedOut => {
                    last_err = "nginx did not start listening within 10 s".to_string();
                }
            }
            if !last_err.contains("in use") {
                break;
            }
        }
        Err(format!("cannot start nginx: {last_err}"))
    }

    /// The HTTPS port without early data of [`Nginx::try_start_early_data`].
    pub fn late_port(&self) -> Option<u16> {
        self.late_port
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The HTTPS port ([`Nginx::try_start_h2`] only).
    pub fn tls_port(&self) -> Option<u16> {
        self.tls_port
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The directory holding the config and logs.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The access log so far.
    pub fn access_log(&self) -> String {
        fs::read_to_string(self.dir.join("access.log")).unwrap_or_default()
    }

    /// The error log so far.
    pub fn error_log(&self) -> String {
        fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What became of a server process started to listen on a loopback port.
pub(crate) enum Listening {
    Up,
    /// It exited first, with this status.
    Exited(std::process::ExitStatus),
    /// It did not listen in time and was killed.
    TimedOut,
}

/// Waits until `child` accepts connections on `127.0.0.1:port`, exits, or `within` passes
/// (then it is killed).
pub(crate) fn wait_listening(child: &mut Child, port: u16, within: Duration) -> Listening {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + within;
    loop {
        if let Ok(Some(st)) = child.try_wait() {
            return Listening::Exited(st);
        }
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Listening::Up;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Listening::TimedOut;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// A port that was free a moment ago (bind port 0, read it, release it).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind 127.0.0.1:0")
}

/// What an [`Nginx`] serves besides HTTP/1.1 on its first port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Plain,
    H2,
    EarlyData,
}

fn config(
    dir: &Path,
    root: &Path,
    port: u16,
    tls_port: Option<u16>,
    late_port: Option<u16>,
    mode: Mode,
) -> String {
    let d = dir.display();
    let mut extra = String::new();
    let listen = match tls_port {
        None => format!("listen 127.0.0.1:{port};"),
        Some(tls) if mode == Mode::EarlyData => {
            let pki = crate::tls::pki();
            // One ticket key for both servers (nginx makes one per server otherwise).
            let key = dir.join("ticket.key");
            let bytes: Vec<u8> = (0..80u32).map(|i| (i * 37 + 11) as u8).collect();
            fs::write(&key, bytes).expect("write ticket key");
            let tls_conf = format!(
                "ssl_certificate {};\n        \
                 ssl_certificate_key {};\n        \
                 ssl_protocols TLSv1.3;\n        \
                 ssl_session_ticket_key {};\n        \
                 keepalive_timeout 0;\n        \
                 location = /post {{ return 200 \"posted\\n\"; }}",
                pki.path("server.pem").display(),
                pki.path("server.key").display(),
                key.display(),
            );
            if let Some(late) = late_port {
                extra = format!(
                    "    server {{\n        listen 127.0.0.1:{late} ssl;\n        \
                     {tls_conf}\n        root {};\n    }}\n",
                    root.display()
                );
            }
            format!(
                "listen 127.0.0.1:{port};\n        \
                 listen 127.0.0.1:{tls} ssl;\n        \
                 ssl_early_data on;\n        \
                 {tls_conf}"
            )
        }
        Some(tls) => {
            let pki = crate::tls::pki();
            format!(
                "listen 127.0.0.1:{port} http2;\n        \
                 listen 127.0.0.1:{tls} ssl http2;\n        \
                 ssl_certificate {};\n        \
                 ssl_certificate_key {};\n        \
                 gzip on;\n        \
                 gzip_types text/plain;\n        \
                 gzip_min_length 1;",
                pki.path("server.pem").display(),
                pki.path("server.key").display()
            )
        }
    };
    format!(
        r#"daemon off;
master_process off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{
    worker_connections 1024;
}}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    keepalive_timeout 65;
    types {{
        text/html html htm;
        text/plain txt;
        application/json json;
        application/octet-stream bin;
    }}
    default_type application/octet-stream;
    server {{
        {listen}
        server_name localhost;
        root {root};
        autoindex off;
    }}
{extra}}}
"#,
        root = root.display()
    )
}
