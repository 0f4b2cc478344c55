//! TLS as a connection filter (curl's `cf-ssl`): the settings curl's `--cacert`, `-k`,
//! `--tlsv1.x` and friends control, a per-multi cache of built client configurations (parsed
//! CA roots and the session cache live there, so later connections resume sessions), and
//! the session that sits between the socket and the protocol.
//!
//! Two backends, picked once per process as curl's MultiSSL builds do (`CURL_SSL_BACKEND`,
//! or `curl_global_sslset` for the library): rustls with the aws-lc-rs provider (the
//! default) and OpenSSL. Sessions never block: the caller hands them the socket for each
//! step.

#[cfg(feature = "openssl")]
pub mod certinfo;
#[cfg(feature = "openssl")]
mod openssl_backend;

/// Built without OpenSSL: certinfo (which parses with OpenSSL, as curl's does) lists nothing.
#[cfg(not(feature = "openssl"))]
pub mod certinfo {
    /// No entries: this build has no certificate printer.
    pub fn certinfo(_der: &[u8]) -> Vec<String> {
        Vec::new()
    }
}
pub mod pin;
pub mod record;
mod rustls_backend;
pub mod x509;

use std::io;
use std::sync::{Arc, OnceLock};

use crate::connect::Stream;
use crate::error::{Code, Error};

/// A TLS library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Rustls,
    OpenSsl,
}

impl Backend {
    /// curl's backend names (`CURL_SSL_BACKEND` values, case-insensitive).
    pub fn from_name(name: &str) -> Option<Backend> {
        match name.to_ascii_lowercase().as_str() {
            "rustls" => Some(Backend::Rustls),
            "openssl" if cfg!(feature = "openssl") => Some(Backend::OpenSsl),
            _ => None,
        }
    }
    /// `rustls/0.23` or `OpenSSL/3.0.19`, as `curl -V` names the library.
    pub fn version_name(self) -> String {
        match self {
            Backend::Rustls => "rustls/0.23".into(),
            #[cfg(feature = "openssl")]
            Backend::OpenSsl => openssl_backend::version_name(),
            #[cfg(not(feature = "openssl"))]
            Backend::OpenSsl => "OpenSSL (not built in)".into(),
        }
    }
}

static BACKEND: OnceLock<Backend> = OnceLock::new();

/// Choose the backend for this process (`curl_global_sslset`); false once one is in use.
pub fn select_backend(b: Backend) -> bool {
    if b == Backend::OpenSsl && !cfg!(feature = "openssl") {
        return false;
    }
    BACKEND.set(b).is_ok() || BACKEND.get() == Some(&b)
}

/// The backend in use: the one selected, else `CURL_SSL_BACKEND`, else rustls.
pub fn backend() -> Backend {
    *BACKEND.get_or_init(default_backend)
}

fn default_backend() -> Backend {
    std::env::var("CURL_SSL_BACKEND")
        .ok()
        .and_then(|n| Backend::from_name(&n))
        .unwrap_or(Backend::Rustls)
}

/// `curl -V`'s TLS part for a build with several backends: the one in use (or the one that
/// would be) first, the others in parentheses. Like curl's, asking does not select it, so
/// `curl_global_sslset` still may after `curl_version_info`.
pub fn version_string() -> String {
    let cur = BACKEND.get().copied().unwrap_or_else(default_backend);
    if !cfg!(feature = "openssl") {
        return cur.version_name();
    }
    let other = match cur {
        Backend::Rustls => Backend::OpenSsl,
        Backend::OpenSsl => Backend::Rustls,
    };
    format!("{} ({})", cur.version_name(), other.version_name())
}

/// What a TLS library reported while a session's trace was on ([`Session::trace_on`]), for
/// curl's `-v` trace: a text line (or none) and the bytes, sent or received. `seq` orders
/// the events of several sessions (TLS inside TLS): a later one has a higher number. A note
/// of the backend (a line curl's backend writes with infof during the handshake) has a text
/// and no bytes.
#[derive(Debug)]
pub struct TraceEvent {
    pub seq: u64,
    pub text: Option<String>,
    pub out: bool,
    pub bytes: Vec<u8>,
}

/// A built client configuration of the backend in use.
#[derive(Clone)]
pub enum Config {
    Rustls(Arc<rustls::ClientConfig>),
    /// A context (without the CA certificates) and the trust store its connections get
    /// once their ClientHello is out, shared by the contexts with the same CA options.
    #[cfg(feature = "openssl")]
    OpenSsl(openssl::ssl::SslContext, Arc<openssl_backend::TrustStore>),
}

/// Debian's CA bundle and directory, the defaults its curl is built with.
pub const DEFAULT_CAFILE: &str = "/etc/ssl/certs/ca-certificates.crt";
pub const DEFAULT_CAPATH: &str = "/etc/ssl/certs";

/// `CURLOPT_SSLVERSION` minimum values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TlsVersion {
    #[default]
    Default,
    V1_0,
    V1_1,
    V1_2,
    V1_3,
}

impl TlsVersion {
    /// The `--tls-max` argument forms.
    pub fn parse_max(s: &str) -> Option<TlsVersion> {
        Some(match s {
            "default" => TlsVersion::Default,
            "1.0" => TlsVersion::V1_0,
            "1.1" => TlsVersion::V1_1,
            "1.2" => TlsVersion::V1_2,
            "1.3" => TlsVersion::V1_3,
            _ => return None,
        })
    }
}

/// The TLS settings of a transfer; equal settings share one built configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TlsOptions {
    /// `CURLOPT_SSL_VERIFYPEER`.
    pub verify_peer: bool,
    /// `CURLOPT_SSL_VERIFYHOST`.
    pub verify_host: bool,
    /// `CURLOPT_CAINFO`; None is the built-in default bundle.
    pub cafile: Option<String>,
    /// `CURLOPT_CAPATH`; None is the built-in default directory.
    pub capath: Option<String>,
    /// `CURLSSLOPT_NATIVE_CA`: also trust the system store.
    pub ca_native: bool,
    /// `CURLOPT_SSLVERSION` minimum.
    pub min_version: TlsVersion,
    /// `CURLOPT_SSLVERSION` maximum (`--tls-max`); Default is none.
    pub max_version: TlsVersion,
    /// `CURLOPT_SSLCERT` and its type.
    pub cert: Option<String>,
    pub cert_type: Option<String>,
    /// `CURLOPT_SSLKEY` and its type.
    pub key: Option<String>,
    pub key_type: Option<String>,
    pub key_passwd: Option<String>,
    /// `CURLOPT_PINNEDPUBLICKEY`.
    pub pinned_pubkey: Option<String>,
    /// `CURLOPT_SSL_CIPHER_LIST` (TLS 1.2 suites) and `CURLOPT_TLS13_CIPHERS`.
    pub ciphers: Option<String>,
    pub tls13_ciphers: Option<String>,
    /// `CURLOPT_SSL_EC_CURVES`.
    pub curves: Option<String>,
    /// `CURLOPT_SSL_SESSIONID_CACHE`.
    pub session_cache: bool,
    /// `CURLSSLOPT_EARLYDATA` (`--tls-earlydata`): send the request as TLS 1.3 early data
    /// when a resumed session allows it (OpenSSL; curl's rustls backend has no early data).
    pub earlydata: bool,
    /// `CURLOPT_SSL_ENABLE_ALPN`.
    pub alpn: bool,
    /// `CURLOPT_SSL_VERIFYSTATUS` (`--cert-status`).
    pub verify_status: bool,
    /// `CURLOPT_CRLFILE`.
    pub crlfile: Option<String>,
    /// `CURLOPT_CAINFO_BLOB`: PEM certificates trusted in place of the CA file (the CA
    /// directory still counts), as curl's OpenSSL and rustls backends take it.
    pub ca_blob: Option<Arc<[u8]>>,
    /// `CURLOPT_CA_CACHE_TIMEOUT` in seconds, an int as in curl (each easy handle holds two
    /// `TlsOptions`): how long a loaded CA store serves new connections (of the same multi,
    /// OpenSSL); -1 is forever, 0 never. curl's default is 24 hours.
    pub ca_cache_timeout: i32,
    /// `CURLOPT_SSLCERT_BLOB` and `CURLOPT_SSLKEY_BLOB`, behind one thin pointer (every
    /// transfer's options hold two `TlsOptions`); None when neither is set.
    pub client_blobs: Option<Arc<ClientBlobs>>,
    /// `CURLOPT_SSL_CTX_FUNCTION` (OpenSSL only).
    pub ctx_hook: Option<CtxHook>,
}

/// The client certificate and key read from memory instead of `cert` and `key` (a blob wins
/// over a file, as in curl), of the types `cert_type` and `key_type` name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClientBlobs {
    pub cert: Option<Arc<[u8]>>,
    pub key: Option<Arc<[u8]>>,
}

/// `CURLOPT_SSL_CTX_FUNCTION`: `call` gets the address of the OpenSSL `SSL_CTX` made for a
/// new connection, once its CA store is loaded, as curl calls it; an error code fails the
/// connect ("error signaled by ssl ctx callback"). Hooks with the same `id` (the application's
/// function and data) are equal, so connections stay reusable across transfers; a context
/// built with a hook is never cached, as curl makes one per connection.
#[derive(Clone)]
pub struct CtxHook(Arc<HookInner>);

/// One allocation behind the hook, so that it costs a pointer in every transfer's options.
struct HookInner {
    id: (usize, usize),
    call: Box<dyn Fn(usize) -> Result<(), Code> + Send + Sync>,
}

impl CtxHook {
    pub fn new(
        id: (usize, usize),
        call: impl Fn(usize) -> Result<(), Code> + Send + Sync + 'static,
    ) -> CtxHook {
        CtxHook(Arc::new(HookInner {
            id,
            call: Box::new(call),
        }))
    }

    /// Calls the hook with an `SSL_CTX` address.
    pub fn call(&self, ctx: usize) -> Result<(), Code> {
        (self.0.call)(ctx)
    }
}

impl PartialEq for CtxHook {
    fn eq(&self, other: &CtxHook) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for CtxHook {}

impl std::hash::Hash for CtxHook {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}

impl std::fmt::Debug for CtxHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CtxHook")
    }
}

impl Default for TlsOptions {
    fn default() -> TlsOptions {
        TlsOptions {
            verify_peer: true,
            verify_host: true,
            cafile: None,
            capath: None,
            ca_native: false,
            min_version: TlsVersion::Default,
            max_version: TlsVersion::Default,
            cert: None,
            cert_type: None,
            key: None,
            key_type: None,
            key_passwd: None,
            pinned_pubkey: None,
            ciphers: None,
            tls13_ciphers: None,
            curves: None,
            session_cache: true,
            earlydata: false,
            alpn: true,
            verify_status: false,
            crlfile: None,
            ca_blob: None,
            ca_cache_timeout: 24 * 60 * 60,
            client_blobs: None,
            ctx_hook: None,
        }
    }
}

impl TlsOptions {
    /// The CA file curl reports and loads.
    pub fn effective_cafile(&self) -> &str {
        self.cafile.as_deref().unwrap_or(DEFAULT_CAFILE)
    }
    /// `CURLOPT_SSLCERT_BLOB`.
    pub fn cert_blob(&self) -> Option<&[u8]> {
        self.client_blobs.as_ref()?.cert.as_deref()
    }
    /// `CURLOPT_SSLKEY_BLOB`.
    pub fn key_blob(&self) -> Option<&[u8]> {
        self.client_blobs.as_ref()?.key.as_deref()
    }
    /// Sets (or with None, unsets) the certificate blob, or the key blob when `key`.
    pub fn set_client_blob(&mut self, key: bool, blob: Option<Arc<[u8]>>) {
        let b = Arc::make_mut(self.client_blobs.get_or_insert_with(Default::default));
        match key {
            true => b.key = blob,
            false => b.cert = blob,
        }
        if b.cert.is_none() && b.key.is_none() {
            self.client_blobs = None;
        }
    }
    /// `ca_cache_timeout` as a duration; None is forever.
    pub fn ca_cache_duration(&self) -> Option<std::time::Duration> {
        u64::try_from(self.ca_cache_timeout)
            .ok()
            .map(std::time::Duration::from_secs)
    }
    /// The CA directory curl reports.
    pub fn effective_capath(&self) -> &str {
        self.capath.as_deref().unwrap_or(DEFAULT_CAPATH)
    }
}

/// Built client configurations, one per distinct set of options, kept by the multi so that
/// roots are parsed once and TLS sessions are resumed across transfers.
#[derive(Default)]
pub struct TlsCache {
    configs: Vec<CachedConfig>,
}

/// A built configuration with the options and ALPN protocols it was built for.
type CachedConfig = (TlsOptions, Vec<Vec<u8>>, Config);

impl std::fmt::Debug for TlsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsCache")
            .field("configs", &self.configs.len())
            .finish()
    }
}

impl TlsCache {
    /// The configuration for these options and ALPN protocols, built on first use.
    pub fn config(&mut self, opts: &TlsOptions, alpn: &[&[u8]]) -> Result<Config, Error> {
        if opts.ctx_hook.is_some() {
            return build(opts, alpn, &[]);
        }
        if let Some((_, _, c)) = self
            .configs
            .iter()
            .find(|(o, a, _)| o == opts && a.iter().map(Vec::as_slice).eq(alpn.iter().copied()))
        {
            return Ok(c.clone());
        }
        let c = build(opts, alpn, &self.configs)?;
        if self.configs.len() >= 8 {
            self.configs.remove(0);
        }
        self.configs.push((
            opts.clone(),
            alpn.iter().map(|a| a.to_vec()).collect(),
            c.clone(),
        ));
        Ok(c)
    }
}

/// A new configuration of the backend in use; with OpenSSL, sharing the trust store of a
/// cached configuration with the same CA options.
fn build(opts: &TlsOptions, alpn: &[&[u8]], cached: &[CachedConfig]) -> Result<Config, Error> {
    #[cfg(not(feature = "openssl"))]
    let _ = cached;
    Ok(match backend() {
        Backend::Rustls => Config::Rustls(rustls_backend::build_config(opts, alpn)?),
        #[cfg(feature = "openssl")]
        Backend::OpenSsl => {
            let (ctx, filled) = openssl_backend::build_context(opts, alpn)?;
            let trust = match filled {
                Some(notes) => Arc::new(openssl_backend::TrustStore::in_context(opts, notes)),
                None => cached
                    .iter()
                    .find_map(|(_, _, c)| match c {
                        Config::OpenSsl(_, t) if t.serves(opts) => Some(t.clone()),
                        _ => None,
                    })
                    .unwrap_or_else(|| Arc::new(openssl_backend::TrustStore::new(opts))),
            };
            Config::OpenSsl(ctx, trust)
        }
        #[cfg(not(feature = "openssl"))]
        Backend::OpenSsl => return Err(connect_error("OpenSSL is not built in")),
    })
}

/// What a handshake step left to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// Waiting for the socket to become readable.
    WantRead,
    /// Waiting for the socket to become writable.
    WantWrite,
    Done,
}

/// A TLS session over a connection's socket. Connections hold it boxed, so the size
/// difference between the backends costs nothing per connection.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Session {
    Rustls(rustls_backend::Session),
    #[cfg(feature = "openssl")]
    OpenSsl(openssl_backend::Session),
}

impl Session {
    /// Start a session to `host` (a name or an IP literal, no brackets); no SNI for IPs.
    /// `over_tls`: the session runs inside the session to an HTTPS proxy.
    /// `peer` keys the OpenSSL sessions kept and resumed for it (curl's session cache key:
    /// `host:port`, and when unverified the `--connect-to` destination; the rest of curl's
    /// key is the TLS options, and a context, with its own store, is made per set of them
    /// and ALPN offer).
    pub fn new(
        config: &Config,
        host: &str,
        peer: &str,
        sock: &Stream,
        opts: &TlsOptions,
        over_tls: bool,
    ) -> Result<Session, Error> {
        #[cfg(not(feature = "openssl"))]
        let _ = (sock, opts, over_tls, peer);
        Ok(match config {
            Config::Rustls(c) => Session::Rustls(rustls_backend::Session::new(
                c.clone(),
                host,
                opts.verify_peer,
            )?),
            #[cfg(feature = "openssl")]
            Config::OpenSsl(c, trust) => Session::OpenSsl(openssl_backend::Session::new(
                c, trust, host, peer, sock, opts, over_tls,
            )?),
        })
    }
    /// Advance the handshake as far as the transport allows.
    pub fn handshake(&mut self, io: &mut Io<'_>) -> Result<Handshake, Error> {
        match self {
            Session::Rustls(s) => s.handshake(io),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.handshake(io),
        }
    }
    /// Decrypted bytes; Ok(0) at the peer's close_notify.
    pub fn recv(&mut self, io: &mut Io<'_>, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Session::Rustls(s) => s.recv(io, buf),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.recv(io, buf),
        }
    }
    /// Nothing decrypted or buffered is left and the socket had no more at the last read:
    /// waiting for readability loses nothing. Always false with OpenSSL, which may hold
    /// input of its own.
    pub fn input_drained(&self) -> bool {
        match self {
            Session::Rustls(s) => s.input_drained(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(_) => false,
        }
    }
    /// Encrypt and send; how many plaintext bytes were taken.
    pub fn send(&mut self, io: &mut Io<'_>, buf: &[u8]) -> io::Result<usize> {
        match self {
            Session::Rustls(s) => s.send(io, buf),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.send(io, buf),
        }
    }
    /// Take in the records that already came without handing out any plaintext: the
    /// session tickets are read (and traced), application data waits in the session for
    /// the next [`Self::recv`]. curl reads what the proxy sent before it writes the first
    /// HTTP/2 frames of a CONNECT; this puts the proxy session's records in that order.
    /// Nothing to do with rustls, whose records are not traced.
    #[cfg_attr(not(feature = "openssl"), allow(unused_variables))]
    pub fn read_ahead(&mut self, io: &mut Io<'_>) {
        match self {
            Session::Rustls(_) => {}
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.read_ahead(io),
        }
    }
    /// Write out queued records; WouldBlock while some remain.
    pub fn flush(&mut self, io: &mut Io<'_>) -> io::Result<()> {
        match self {
            Session::Rustls(s) => s.flush(io),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.flush(io),
        }
    }
    /// Are records waiting for the transport to become writable?
    pub fn wants_write(&self) -> bool {
        match self {
            Session::Rustls(s) => s.wants_write(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.wants_write(),
        }
    }
    /// Is an idle pooled connection still usable?
    pub fn is_alive(&mut self, io: &mut Io<'_>) -> bool {
        match self {
            Session::Rustls(s) => s.is_alive(io),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.is_alive(io),
        }
    }
    /// Send close_notify, best effort.
    pub fn close(&mut self, io: &mut Io<'_>) {
        match self {
            Session::Rustls(s) => s.close(io),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.close(io),
        }
    }
    /// With `--tls-earlydata`, on a resumed session that allows it and whose ALPN is in
    /// `offer`: defer the handshake to the first send, which carries early data. The
    /// session's allowance and ALPN. Never with rustls, as curl's rustls backend.
    #[cfg_attr(not(feature = "openssl"), allow(unused_variables))]
    pub fn defer_for_early_data(&mut self, offer: &[&[u8]]) -> Option<(usize, Vec<u8>)> {
        match self {
            Session::Rustls(_) => None,
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.defer_for_early_data(offer),
        }
    }
    /// Is the handshake deferred for early data (not done yet)?
    pub fn early_pending(&self) -> bool {
        match self {
            Session::Rustls(_) => false,
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.early_pending(),
        }
    }
    /// Does a deferred handshake wait for the server's answer?
    pub fn early_wants_read(&self) -> bool {
        match self {
            Session::Rustls(_) => false,
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.early_wants_read(),
        }
    }
    /// Once a deferred handshake is done: the early data bytes the server accepted, or
    /// minus those it rejected. Once.
    pub fn take_early_outcome(&mut self) -> Option<i64> {
        match self {
            Session::Rustls(_) => None,
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.take_early_outcome(),
        }
    }
    /// Has a deferred handshake ended in the last send, its outcome not taken yet? The
    /// transfer writes what it came to before it sends on.
    pub fn early_outcome_ready(&self) -> bool {
        match self {
            Session::Rustls(_) => false,
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.early_outcome_ready(),
        }
    }
    /// The negotiated ALPN protocol.
    pub fn alpn(&self) -> Option<&[u8]> {
        match self {
            Session::Rustls(s) => s.alpn(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.alpn(),
        }
    }
    /// The server's certificates, leaf first (with OpenSSL: the verified chain to the root).
    pub fn chain_der(&self) -> Vec<Vec<u8>> {
        match self {
            Session::Rustls(s) => s
                .peer_certificates()
                .map(|c| c.iter().map(|c| c.to_vec()).collect())
                .unwrap_or_default(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.chain_der(),
        }
    }
    /// The server's certificate: the chain's first, or with OpenSSL after a resumed handshake
    /// (no chain then) the one the session kept, as curl's `SSL_get1_peer_certificate` has it.
    pub fn leaf_der(&self) -> Option<Vec<u8>> {
        match self {
            Session::Rustls(_) => self.chain_der().into_iter().next(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.leaf_der(),
        }
    }
    /// The certificates the server sent, leaf first, as OpenSSL's `SSL_get_peer_cert_chain`
    /// gives them to a client (what curl's certinfo lists). None after a resumed handshake:
    /// curl keeps its OpenSSL sessions serialized, which keeps the leaf but not the chain, so
    /// its certinfo is empty then.
    pub fn peer_chain_der(&self) -> Vec<Vec<u8>> {
        match self {
            Session::Rustls(s) if s.resumed() => Vec::new(),
            Session::Rustls(s) => s
                .peer_certificates()
                .map(|c| c.iter().map(|c| c.to_vec()).collect())
                .unwrap_or_default(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.peer_chain_der(),
        }
    }
    /// curl's `SSL connection using ...` line.
    pub fn connection_summary(&self) -> String {
        match self {
            Session::Rustls(s) => s.connection_summary(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.connection_summary(),
        }
    }

    /// Keep what the TLS library reports for this session from now on: with OpenSSL, the
    /// handshake messages, alerts and record headers of its calls, as curl's `ossl_trace`
    /// shows them with `-v` (curl installs it when a debug callback is set). rustls reports
    /// nothing, as in curl. The trace lives in the session, so the calls may come from any
    /// thread; while it is off, nothing is kept.
    pub fn trace_on(&mut self) {
        match self {
            Session::Rustls(_) => {}
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.trace_on(),
        }
    }

    /// Turn the trace off; what was reported since [`Self::trace_on`], in order.
    pub fn trace_take(&mut self) -> Vec<TraceEvent> {
        match self {
            Session::Rustls(_) => Vec::new(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => {
                let mut all: Vec<TraceEvent> = s
                    .trace_take()
                    .into_iter()
                    .map(|m| TraceEvent {
                        seq: m.seq,
                        text: openssl_backend::trace_text(&m),
                        out: m.out,
                        bytes: m.bytes,
                    })
                    .collect();
                let notes = s.take_notes();
                if !notes.is_empty() {
                    all.extend(notes.into_iter().map(|(seq, text)| TraceEvent {
                        seq,
                        text: Some(text),
                        out: false,
                        bytes: Vec::new(),
                    }));
                    all.sort_by_key(|e| e.seq);
                }
                all
            }
        }
    }

    /// The `-v` lines the backend wrote during the handshake since last asked (or since
    /// [`Self::trace_take`], which gives them in their place among the messages): with
    /// OpenSSL, what setting up the trust store after the ClientHello wrote (the CA
    /// locations, the CRL file, why it failed), as curl's OpenSSL backend writes them.
    pub fn take_notes(&mut self) -> Vec<String> {
        match self {
            Session::Rustls(_) => Vec::new(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.take_notes().into_iter().map(|(_, t)| t).collect(),
        }
    }

    /// OpenSSL's verify code (`X509_V_ERR_*`) for the peer's chain, as curl reports it in
    /// `CURLINFO_SSL_VERIFYRESULT`: 0 when it verified, OpenSSL's code when it did not
    /// (with `-k` too: no CA is loaded then), 1 before a certificate was checked.
    pub fn verify_result(&self) -> i64 {
        match self {
            Session::Rustls(s) => s.verify_result(),
            #[cfg(feature = "openssl")]
            Session::OpenSsl(s) => s.verify_result(),
        }
    }
}

/// OpenSSL's text for a verify code (`X509_verify_cert_error_string`).
pub fn verify_error_text(code: i64) -> String {
    #[cfg(feature = "openssl")]
    {
        openssl_backend::verify_error_text(code)
    }
    #[cfg(not(feature = "openssl"))]
    {
        match code {
            0 => "ok",
            1 => "unspecified certificate verification error",
            9 => "certificate is not yet valid",
            10 => "certificate has expired",
            18 => "self-signed certificate",
            19 => "self-signed certificate in certificate chain",
            20 => "unable to get local issuer certificate",
            _ => "unknown certificate verification error",
        }
        .to_string()
    }
}

/// What a session reads and writes its records through: the socket, or (TLS inside TLS,
/// to an origin through an HTTPS proxy) the session to the proxy over the socket, or a
/// CONNECT tunnel on an HTTP/2 stream to the proxy.
pub enum Io<'a> {
    Sock(&'a mut Stream),
    Tls(&'a mut Session, &'a mut Stream),
    Tunnel(&'a mut crate::proto::h2::tunnel::Tunnel),
}

impl Io<'_> {
    /// The socket under every layer.
    pub fn sock(&mut self) -> &mut Stream {
        match self {
            Io::Sock(s) | Io::Tls(_, s) => s,
            Io::Tunnel(t) => t.sock(),
        }
    }
    /// Is an idle transport still usable (nothing unexpected arrived, not closed)?
    pub fn is_alive(&mut self) -> bool {
        match self {
            Io::Sock(s) | Io::Tls(_, s) => s.is_alive(),
            Io::Tunnel(t) => t.is_alive(),
        }
    }
}

impl io::Read for Io<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Io::Sock(s) => s.read(buf),
            Io::Tls(t, s) => t.recv(&mut Io::Sock(s), buf),
            Io::Tunnel(t) => t.read(buf),
        }
    }
}

impl io::Write for Io<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Io::Sock(s) => s.write(buf),
            Io::Tls(t, s) => t.send(&mut Io::Sock(s), buf),
            Io::Tunnel(t) => t.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An I/O error carrying the curl error a TLS failure maps to.
pub fn io_error(e: Error) -> io::Error {
    io::Error::other(e)
}

/// The curl error inside an I/O error made by [`io_error`], if any.
pub fn curl_error(e: &io::Error) -> Option<Error> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<Error>())
        .cloned()
}

/// What a failed handshake with the origin inside an HTTPS proxy's session reports. curl's
/// OpenSSL backend loses the verification error there (the proxy session's reads clear
/// OpenSSL's error queue), so a chain that does not verify fails with 35 and an empty
/// OpenSSL error, as curl 8.14.1 does. Name mismatches are checked after the handshake and
/// keep their 60.
pub fn inner_handshake_error(e: Error) -> Error {
    if e.code == Code::PeerFailedVerification && !e.message().starts_with("SSL: ") {
        return connect_error("TLS connect error: error:00000000:lib(0)::reason(0)");
    }
    e
}

/// The hint the tool prints after a verification failure (curl's `CURL_CA_CERT_ERRORMSG`).
pub const CA_CERT_HELP: &str = "More details here: https://curl.se/docs/sslcerts.html\n\n\
curl failed to verify the legitimacy of the server and therefore could not\n\
establish a secure connection to it. To learn more about this situation and\n\
how to fix it, please visit the webpage mentioned above.\n";

pub fn connect_error(msg: impl Into<String>) -> Error {
    Error::new(Code::SslConnectError, msg)
}
