//! Local servers and helpers for oxcurl's tests and benchmarks.
//!
//! * [`http`]: a scripted HTTP/1.x server modelled on curl's test server `sws`:
//!   tests give it reply scripts and it records the exact bytes it receives.
//! * [`ftp`]: a scripted FTP server modelled on curl's `ftpserver.pl`: a small sane server
//!   with an in-memory file tree whose replies tests override with raw bytes, recording
//!   every control and data connection.
//! * [`process`]: run a program with a timeout and capture its exit code, stdout and
//!   stderr; find the reference curl 8.14.1 ([`process::reference_curl`]) and the oxcurl
//!   binary and libcurl under test ([`process::under_test`], [`process::lib_under_test`]).
//! * [`diff`]: a differential harness that runs the reference curl and oxcurl with the
//!   same command line against the same scripted server and compares everything
//!   observable (request bytes, stdout, exit code, optionally stderr, written files).
//! * [`nginx`]: start Debian's nginx on an ephemeral port serving a directory.
//! * [`fs`]: temporary directories and sparse files.
//! * [`tls`]: a local test PKI and TLS server configurations.
//! * [`proxy`]: a CONNECT proxy that records the handshake and relays the tunnel, and an
//!   HTTPS proxy (TLS in front of it).
//! * [`socks`]: a SOCKS4/4a/5 proxy that records the handshake and relays.
//! * [`daemons`]: Debian's squid, nghttpx and dante as real HTTP, HTTP/2 and SOCKS proxies,
//!   and vsftpd as a real FTP server.
//! * [`hostile`]: differential cases whose oxcurl run must also stay within a heap, RSS and
//!   wall-time budget (hostile servers).
//!
//! Servers listen on loopback only and bind ephemeral ports.
//!
//! The binary under test is replaceable: `OXCURL_UNDER_TEST=/path/to/oxcurl` makes every
//! differential case and every test that starts the oxcurl binary run that one instead of
//! the one cargo built, and `OXCURL_LIB_UNDER_TEST=/dir` makes the C ABI tests link and run
//! with the `libcurl.so.4` in that directory instead of linking their own. The reference
//! curl is `OXCURL_REFERENCE_CURL` ([`process::reference_curl`]).
#![forbid(unsafe_code)]

pub mod daemons;
pub mod diff;
pub mod fs;
pub mod ftp;
pub mod h2;
pub mod hostile;
pub mod http;
pub mod nginx;
pub mod process;
pub mod proxy;
pub mod socks;
pub mod tls;

pub use diff::{Case, CaseResult, Difference, Mismatch, RunRecord};
pub use fs::{sparse_file, TempDir};
pub use ftp::{FtpReply, FtpServer, Transfer};
pub use http::{Action, ContinueMode, Exhausted, RawConn, Reply, Request, ScriptedServer};
pub use nginx::Nginx;
pub use process::{lib_under_test, reference_curl, under_test, Exec, Output};
pub use proxy::{ConnectProxy, HttpsProxy};
pub use socks::{SocksMode, SocksServer};
pub use tls::{pki, ServerCert, TlsServerOptions};
