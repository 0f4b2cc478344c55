//! The OpenSSL backend (the `openssl` crate over the system's libssl), chosen at run time
//! with `CURL_SSL_BACKEND=openssl`. It covers what rustls lacks (TLS 1.0/1.1, PKCS#12 client
//! certificates, OCSP stapling checks, lazy `--capath` lookups) and reports errors with the
//! same texts curl's OpenSSL backend uses.

use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use openssl::error::ErrorStack;
use openssl::pkcs12::Pkcs12;
use openssl::ssl::{
    ErrorCode, HandshakeError, MidHandshakeSslStream, Ssl, SslContext, SslContextBuilder,
    SslFiletype, SslMethod, SslMode, SslOptions, SslRef, SslStream, SslVerifyMode, SslVersion,
    StatusType,
};
use openssl::x509::store::{X509Lookup, X509Store, X509StoreBuilder, X509StoreBuilderRef};
use openssl::x509::verify::X509VerifyFlags;
use openssl::x509::{X509VerifyResult, X509};
use oxcurl_sys::tls::TlsMessage;

use super::x509::Cert;
use super::{connect_error, Handshake, Io, TlsOptions, TlsVersion};
use crate::connect::Stream;
use crate::error::{Code, Error};

/// `OpenSSL/3.0.19`, as curl names the library in messages and `-V`.
pub fn version_name() -> String {
    // "OpenSSL 3.0.19 27 Jan 2026" -> "OpenSSL/3.0.19"
    let v = openssl::version::version();
    let mut it = v.split(' ');
    match (it.next(), it.next()) {
        (Some(n), Some(ver)) => format!("{n}/{ver}"),
        _ => v.to_string(),
    }
}

/// OpenSSL's one-line text of the first queued error, as curl prints it.
fn err_text(e: &ErrorStack) -> String {
    match e.errors().first() {
        // OpenSSL 3's ERR_error_string_n leaves the function out: "lib::reason".
        Some(x) => format!(
            "error:{:08X}:{}::{}",
            x.code(),
            x.library().unwrap_or(""),
            x.reason().unwrap_or("")
        ),
        None => "unknown error".into(),
    }
}

/// The text of the error OpenSSL queued last on this thread (and the queue emptied).
fn openssl_last() -> String {
    err_text(&ErrorStack::get())
}

fn cipher_error(what: &str, list: &str) -> Error {
    Error::new(Code::SslCipher, format!("failed setting {what}: {list}"))
}

/// Build a context for `opts`, offering `alpn`. With an `SSL_CTX` hook the context's own
/// store is filled first, as curl fills it before calling the hook (which may look at it or
/// add to it): the lines that wrote come back, and connections get no store of their own.
#[allow(clippy::type_complexity)]
pub(super) fn build_context(
    opts: &TlsOptions,
    alpn: &[&[u8]],
) -> Result<(SslContext, Option<Vec<String>>), Error> {
    use TlsVersion as V;
    let mut b = SslContextBuilder::new(SslMethod::tls_client())
        .map_err(|e| connect_error(format!("TLS connect error: {}", err_text(&e))))?;
    if opts.max_version != V::Default && opts.min_version > opts.max_version {
        return Err(connect_error(
            "CURL_SSLVERSION_MAX incompatible with CURL_SSLVERSION",
        ));
    }
    let ver = |v: TlsVersion| match v {
        V::V1_0 => Some(SslVersion::TLS1),
        V::V1_1 => Some(SslVersion::TLS1_1),
        V::V1_3 => Some(SslVersion::TLS1_3),
        V::Default | V::V1_2 => Some(SslVersion::TLS1_2),
    };
    let min = ver(opts.min_version);
    let _ = b.set_min_proto_version(min);
    if opts.max_version != V::Default {
        let _ = b.set_max_proto_version(ver(opts.max_version));
    }
    if matches!(opts.min_version, V::V1_0 | V::V1_1) {
        // Old versions need the weaker security level, as curl sets for them.
        b.set_security_level(0);
    }
    b.set_mode(SslMode::ENABLE_PARTIAL_WRITE | SslMode::ACCEPT_MOVING_WRITE_BUFFER);
    // curl's options: OpenSSL's bug workarounds but the one that drops the CBC empty-fragment
    // defence (curl keeps it without --ssl-allow-beast, which oxcurl accepts and ignores), no TLS
    // 1.2 session tickets, no compression. The workarounds pad a ClientHello of 256 to 511
    // bytes to 512, so the server sees curl's hello.
    b.set_options(
        (SslOptions::ALL | SslOptions::NO_TICKET | SslOptions::NO_COMPRESSION)
            - SslOptions::DONT_INSERT_EMPTY_FRAGMENTS,
    );
    if opts.session_cache {
        oxcurl_sys::tls::enable_client_sessions(&mut b);
    }
    // Each connection keeps its messages only while its trace is on (`Session::trace_on`).
    oxcurl_sys::tls::enable_message_trace(&mut b);
    if let Some(c) = &opts.ciphers {
        b.set_cipher_list(c)
            .map_err(|_| cipher_error("cipher list", c))?;
    }
    if let Some(c) = &opts.tls13_ciphers {
        b.set_ciphersuites(c)
            .map_err(|_| cipher_error("TLS 1.3 cipher suite", c))?;
    }
    if let Some(c) = &opts.curves {
        b.set_groups_list(c).map_err(|_| {
            Error::new(
                Code::SslCipher,
                format!("failed setting curves list: '{c}'"),
            )
        })?;
    }
    // The trust store comes once the ClientHello is out (`TrustStore`); until then the
    // context's own store stays empty, as curl's does.
    b.set_verify(if opts.verify_peer {
        SslVerifyMode::PEER
    } else {
        SslVerifyMode::NONE
    });
    if opts.cert.is_some() || opts.cert_blob().is_some() {
        load_client_cert(&mut b, opts)?;
    }
    if !alpn.is_empty() {
        let mut wire = Vec::new();
        for p in alpn {
            wire.push(p.len() as u8);
            wire.extend_from_slice(p);
        }
        let _ = b.set_alpn_protos(&wire);
    }
    let mut preloaded = None;
    if let Some(hook) = &opts.ctx_hook {
        let ca = CaOptions::new(opts);
        if ca.needed() {
            let notes = populate(b.cert_store_mut(), &ca).map_err(|(_, e)| e)?;
            preloaded = Some(notes);
        }
        hook.call(b.as_ptr() as usize)
            .map_err(|c| Error::new(c, "error signaled by ssl ctx callback"))?;
    }
    if let Some(path) = std::env::var_os("SSLKEYLOGFILE") {
        b.set_keylog_callback(move |_, line| {
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
            {
                let _ = writeln!(f, "{line}");
            }
        });
    }
    Ok((b.build(), preloaded))
}

/// The options the trust store is made of; equal ones share a store.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CaOptions {
    verify_peer: bool,
    cafile: String,
    /// `CURLOPT_CAINFO_BLOB`, which replaces the file.
    blob: Option<Arc<[u8]>>,
    capath: String,
    ca_native: bool,
    crlfile: Option<String>,
}

impl CaOptions {
    fn new(opts: &TlsOptions) -> CaOptions {
        CaOptions {
            verify_peer: opts.verify_peer,
            cafile: opts.effective_cafile().to_string(),
            blob: opts.ca_blob.clone(),
            capath: opts.effective_capath().to_string(),
            ca_native: opts.ca_native,
            crlfile: opts.crlfile.clone(),
        }
    }

    /// Is there anything to load? Not with `-k` and no CRL file: curl then loads nothing.
    fn needed(&self) -> bool {
        self.verify_peer || self.crlfile.is_some()
    }

    /// curl's `cache_criteria_met`: a store is kept for the next connections only when it
    /// comes from the CA file alone (no CA path, blob, CRL file or native store), and
    /// `CURLOPT_CA_CACHE_TIMEOUT` is not 0.
    fn cacheable(&self, timeout: Option<Duration>) -> bool {
        timeout != Some(Duration::ZERO)
            && self.verify_peer
            && self.capath.is_empty()
            && self.blob.is_none()
            && self.crlfile.is_none()
            && !self.ca_native
    }
}

/// The CA certificates (and CRLs) connections verify their peer against, loaded when the first
/// connection that needs them has sent its ClientHello, as curl's OpenSSL backend does
/// (`Curl_ssl_setup_x509_store`, called at the first read of the server's reply), and shared by
/// the connections with the same CA options after that, as curl's per-multi X509 store cache
/// does: only a store from the CA file alone, and until `CURLOPT_CA_CACHE_TIMEOUT` (of the
/// connection asking) has passed since it was loaded; otherwise each connection loads its own.
/// A load that failed is not kept: the next connection tries again.
pub struct TrustStore {
    ca: CaOptions,
    loaded: Mutex<Option<Loaded>>,
    /// For a context built with an `SSL_CTX` hook: its own store was filled before the hook
    /// ran, writing these lines; its connections get nothing more.
    in_context: Option<Vec<String>>,
}

struct Loaded {
    store: Arc<X509Store>,
    /// The `-v` lines loading wrote, written again for each connection using the store.
    notes: Vec<String>,
    at: Instant,
}

impl std::fmt::Debug for TrustStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrustStore")
            .field("cafile", &self.ca.cafile)
            .finish()
    }
}

impl TrustStore {
    pub(super) fn new(opts: &TlsOptions) -> TrustStore {
        TrustStore {
            ca: CaOptions::new(opts),
            loaded: Mutex::new(None),
            in_context: None,
        }
    }

    /// The store of a context [`build_context`] filled itself, with the lines it wrote.
    pub(super) fn in_context(opts: &TlsOptions, notes: Vec<String>) -> TrustStore {
        TrustStore {
            in_context: Some(notes),
            ..TrustStore::new(opts)
        }
    }

    /// Can connections with `opts` use this store?
    pub(super) fn serves(&self, opts: &TlsOptions) -> bool {
        self.in_context.is_none() && self.ca == CaOptions::new(opts)
    }

    /// The store and the lines loading it wrote; on failure, the lines written before it
    /// failed and the error.
    #[allow(clippy::type_complexity)]
    fn get(
        &self,
        timeout: Option<Duration>,
    ) -> Result<(Arc<X509Store>, Vec<String>), (Vec<String>, Error)> {
        let cacheable = self.ca.cacheable(timeout);
        let mut slot = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        let fresh = |l: &&Loaded| timeout.is_none_or(|t| l.at.elapsed() < t);
        if let Some(l) = slot.as_ref().filter(fresh).filter(|_| cacheable) {
            return Ok((l.store.clone(), l.notes.clone()));
        }
        let mut b =
            X509StoreBuilder::new().map_err(|_| (Vec::new(), Error::code(Code::OutOfMemory)))?;
        let notes = populate(&mut b, &self.ca)?;
        let store = Arc::new(b.build());
        if !cacheable {
            return Ok((store, notes));
        }
        *slot = Some(Loaded {
            store: store.clone(),
            notes: notes.clone(),
            at: Instant::now(),
        });
        Ok((store, notes))
    }
}

/// curl's `ossl_populate_x509_store`: the CA blob or else the CA file (which must hold a
/// certificate), the CA directory (looked up lazily by subject hash), the CRL file (PEM) and
/// the verify flags, with the lines curl's `-v` writes and its errors.
fn populate(
    b: &mut X509StoreBuilderRef,
    ca: &CaOptions,
) -> Result<Vec<String>, (Vec<String>, Error)> {
    let mut notes = Vec::new();
    if ca.verify_peer {
        let badfile = |m: String| Error::new(Code::SslCacertBadfile, m);
        if let Some(blob) = &ca.blob {
            let certs = X509::stack_from_pem(blob).unwrap_or_default();
            if certs.is_empty() {
                let e = badfile("error importing CA certificate blob".into());
                return Err((notes, e));
            }
            for c in certs {
                // A certificate already in the store is not an error, as for OpenSSL's loaders.
                let _ = b.add_cert(c);
            }
            notes.push("successfully imported CA certificate blob".to_string());
        } else {
            let file_ok = b
                .add_lookup(X509Lookup::file())
                .and_then(|l| l.load_cert_file(&ca.cafile, SslFiletype::PEM))
                .is_ok();
            if !file_ok {
                let e = badfile(format!("error setting certificate file: {}", ca.cafile));
                return Err((notes, e));
            }
        }
        // An empty path is none (`CURLOPT_CAPATH` set to NULL).
        let dir_ok = ca.capath.is_empty()
            || b.add_lookup(X509Lookup::hash_dir())
                .and_then(|l| l.add_dir(&ca.capath, SslFiletype::PEM))
                .is_ok();
        if !dir_ok && ca.blob.is_some() {
            notes.push("error setting certificate path, continuing anyway".to_string());
        } else if !dir_ok {
            let e = badfile(format!("error setting certificate path: {}", ca.capath));
            return Err((notes, e));
        }
        let cafile = if ca.blob.is_some() {
            "none"
        } else {
            &ca.cafile
        };
        notes.push(format!(" CAfile: {cafile}"));
        let capath = if ca.capath.is_empty() {
            "none"
        } else {
            &ca.capath
        };
        notes.push(format!(" CApath: {capath}"));
        if ca.ca_native {
            let _ = b.set_default_paths();
        }
    }
    if let Some(f) = &ca.crlfile {
        let loaded = b
            .add_lookup(X509Lookup::file())
            .and_then(|l| l.load_crl_file(f, SslFiletype::PEM));
        if loaded.is_err() {
            let e = Error::new(Code::SslCrlBadfile, format!("error loading CRL file: {f}"));
            return Err((notes, e));
        }
        notes.push("successfully loaded CRL file:".to_string());
        notes.push(format!("  CRLfile: {f}"));
        let _ = b.set_flags(X509VerifyFlags::CRL_CHECK | X509VerifyFlags::CRL_CHECK_ALL);
    }
    if ca.verify_peer {
        // Issuers from the store before those the server sent; and, without a CRL (OpenSSL
        // cannot check one on a partial chain), an intermediate in the store is an anchor.
        let mut flags = X509VerifyFlags::TRUSTED_FIRST;
        if ca.crlfile.is_none() {
            flags |= X509VerifyFlags::PARTIAL_CHAIN;
        }
        let _ = b.set_flags(flags);
    }
    Ok(notes)
}

/// `ossl_do_file_type`: curl's names of certificate and key types (any case); None for one
/// it does not know. ENG and PROV (engines, providers) are not supported here.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FileType {
    Pem,
    Der,
    P12,
}

fn file_type(t: Option<&str>) -> Option<FileType> {
    match t {
        None | Some("") => Some(FileType::Pem),
        Some(t) if t.eq_ignore_ascii_case("PEM") => Some(FileType::Pem),
        Some(t) if t.eq_ignore_ascii_case("DER") => Some(FileType::Der),
        Some(t) if t.eq_ignore_ascii_case("P12") => Some(FileType::P12),
        Some(_) => None,
    }
}

/// curl's `cert_stuff`: the client certificate from `CURLOPT_SSLCERT_BLOB` or the file, then
/// the key from the key blob, the key file, or else wherever the certificate came from, with
/// curl's error texts (`CURLE_SSL_CERTPROBLEM`).
fn load_client_cert(b: &mut SslContextBuilder, opts: &TlsOptions) -> Result<(), Error> {
    let problem = |m: String| Error::new(Code::SslCertproblem, m);
    let cert_file = opts.cert.as_deref();
    let cert_blob = opts.cert_blob();
    // Where the certificate comes from, as curl names it in messages.
    let cert_name = match cert_blob {
        Some(_) => "CURLOPT_SSLCERT_BLOB",
        None => cert_file.unwrap_or("(nil)"),
    };
    let read = |f: &str| std::fs::read(f).map_err(|e| e.to_string());
    let mut cert_done = false;
    let ctype = file_type(opts.cert_type.as_deref());
    match ctype {
        Some(FileType::Pem) => {
            let loaded = match cert_blob {
                Some(blob) => use_certificate_chain_blob(b, blob),
                None => b.set_certificate_chain_file(cert_file.unwrap_or("")),
            };
            loaded.map_err(|e| {
                problem(format!(
                    "could not load PEM client certificate from {cert_name}, OpenSSL error {}, \
                     (no key found, wrong pass phrase, or wrong file format?)",
                    err_text(&e)
                ))
            })?;
        }
        Some(FileType::Der) => {
            let loaded = match cert_blob {
                Some(blob) => {
                    oxcurl_sys::tls::x509_from_der_bio(blob).and_then(|x| b.set_certificate(&x))
                }
                None => b.set_certificate_file(cert_file.unwrap_or(""), SslFiletype::ASN1),
            };
            loaded.map_err(|e| {
                problem(format!(
                    "could not load ASN1 client certificate from {cert_name}, OpenSSL error {}, \
                     (no key found, wrong pass phrase, or wrong file format?)",
                    err_text(&e)
                ))
            })?;
        }
        Some(FileType::P12) => {
            let data = match cert_blob {
                Some(blob) => blob.to_vec(),
                None => {
                    let f = cert_file.unwrap_or("");
                    read(f).map_err(|_| problem(format!("could not open PKCS12 file '{f}'")))?
                }
            };
            let shown = match cert_blob {
                Some(_) => "(memory blob)",
                None => cert_name,
            };
            let p12 = Pkcs12::from_der(&data)
                .map_err(|_| problem(format!("error reading PKCS12 file '{shown}'")))?;
            let parsed = p12
                .parse2(opts.key_passwd.as_deref().unwrap_or(""))
                .map_err(|e| {
                    problem(format!(
                        "could not parse PKCS12 file, check password, OpenSSL error {}",
                        err_text(&e)
                    ))
                })?;
            // curl prints the file name here, NULL for a blob.
            let file = cert_file.unwrap_or("(nil)");
            if let Some(c) = parsed.cert {
                b.set_certificate(&c).map_err(|e| {
                    problem(format!(
                        "could not load PKCS12 client certificate, OpenSSL error {}",
                        err_text(&e)
                    ))
                })?;
            }
            if let Some(k) = parsed.pkey {
                b.set_private_key(&k).map_err(|_| {
                    problem(format!(
                        "unable to use private key from PKCS12 file '{file}'"
                    ))
                })?;
            }
            b.check_private_key().map_err(|_| {
                problem(format!(
                    "private key from PKCS12 file '{file}' does not match certificate in same file"
                ))
            })?;
            if let Some(chain) = parsed.ca {
                for c in chain {
                    b.add_client_ca(&c)
                        .map_err(|_| problem("cannot add certificate to client CA list".into()))?;
                    b.add_extra_chain_cert(c).map_err(|_| {
                        problem("cannot add certificate to certificate chain".into())
                    })?;
                }
            }
            cert_done = true;
        }
        None => {
            return Err(problem(format!(
                "not supported file type '{}' for certificate",
                opts.cert_type.as_deref().unwrap_or("")
            )))
        }
    }
    // Without a key of its own the key is read from where the certificate was, as that type.
    let (key_file, key_blob, ktype) = if opts.key.is_none() && opts.key_blob().is_none() {
        (cert_file, cert_blob, ctype)
    } else {
        (
            opts.key.as_deref(),
            opts.key_blob(),
            file_type(opts.key_type.as_deref()),
        )
    };
    let der = match ktype {
        Some(FileType::Pem) if cert_done => return Ok(()),
        Some(FileType::Pem) => false,
        Some(FileType::Der) => true,
        Some(FileType::P12) if cert_done => return Ok(()),
        Some(FileType::P12) => {
            return Err(problem(
                "file type P12 for private key not supported".into(),
            ))
        }
        None => return Err(problem("not supported file type for private key".into())),
    };
    let unable = || {
        problem(format!(
            "unable to set private key file: '{}' type {}",
            key_file.unwrap_or("(memory blob)"),
            opts.key_type.as_deref().unwrap_or("PEM")
        ))
    };
    let data = match key_blob {
        Some(blob) => blob.to_vec(),
        None => read(key_file.unwrap_or("")).map_err(|_| unable())?,
    };
    // An encrypted key without KEYPASSWD fails here instead of prompting on a terminal.
    let pkey = match der {
        false => openssl::pkey::PKey::private_key_from_pem_passphrase(
            &data,
            opts.key_passwd.as_deref().unwrap_or("").as_bytes(),
        ),
        true => openssl::pkey::PKey::private_key_from_der(&data),
    }
    .map_err(|_| unable())?;
    // OpenSSL refuses a key that does not match the certificate already here.
    b.set_private_key(&pkey).map_err(|_| unable())?;
    b.check_private_key()
        .map_err(|_| problem("Private key does not match the certificate public key".into()))?;
    Ok(())
}

/// curl's `use_certificate_chain_blob`: the first PEM certificate is the client's, the
/// others its chain.
fn use_certificate_chain_blob(b: &mut SslContextBuilder, blob: &[u8]) -> Result<(), ErrorStack> {
    let leaf = X509::from_pem(blob)?;
    b.set_certificate(&leaf)?;
    for c in X509::stack_from_pem(blob)?.into_iter().skip(1) {
        b.add_extra_chain_cert(c)?;
    }
    Ok(())
}

/// What OpenSSL's BIO reads and writes: a duplicate descriptor of the connection's socket
/// (so the connection keeps its own for polling), or, for a session inside an HTTPS
/// proxy's session, byte queues the session fills from and drains into [`Io`]. Reads can be
/// held back: until the trust store is set, OpenSSL gets none of the server's reply.
#[derive(Debug)]
pub struct Dup {
    io: DupIo,
    hold_reads: bool,
}

#[derive(Debug)]
enum DupIo {
    Sock(Stream),
    Mem { rx: Vec<u8>, tx: Vec<u8>, eof: bool },
}

impl Read for Dup {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.hold_reads {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        match &mut self.io {
            DupIo::Sock(s) => s.read(buf),
            DupIo::Mem { rx, eof, .. } => {
                if rx.is_empty() {
                    return if *eof {
                        Ok(0)
                    } else {
                        Err(io::ErrorKind::WouldBlock.into())
                    };
                }
                let n = buf.len().min(rx.len());
                buf[..n].copy_from_slice(&rx[..n]);
                rx.drain(..n);
                Ok(n)
            }
        }
    }
}

impl Write for Dup {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.io {
            DupIo::Sock(s) => s.write(buf),
            DupIo::Mem { tx, .. } => {
                tx.extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

enum State {
    Start(Ssl),
    Mid(MidHandshakeSslStream<Dup>),
    /// A handshake that sends early data: the stream exists before the handshake is done
    /// (`SSL_write_early_data`, then `SSL_connect`).
    Early(SslStream<Dup>),
    Done(SslStream<Dup>),
    Failed,
}

/// A handshake deferred for TLS 1.3 early data (curl's `ssl_connection_deferred`): the
/// resumed session allows it, the connection counts as connected with the session's ALPN,
/// and the first bytes sent (up to the session's limit) go out as early data with the
/// ClientHello; the handshake is finished in that send.
#[derive(Debug)]
struct EarlyData {
    max: usize,
    alpn: Vec<u8>,
    /// The bytes sent as early data, once the first send gave them.
    data: Option<Vec<u8>>,
    written: usize,
    /// What OpenSSL waited for at the last step (curl's `io_need`): the socket to take
    /// more, or the server.
    want_write: bool,
}

/// A TLS session over the connection's socket.
pub struct Session {
    state: State,
    dup: Option<Dup>,
    host: String,
    verify_peer: bool,
    verify_host: bool,
    verify_status: bool,
    /// `SSL_get_verify_result` as curl keeps it: 1 (curl's start value) until the
    /// handshake is through and the name checked.
    verify_code: i64,
    /// The trace a failed handshake took from its `SSL` before dropping it.
    lost_trace: Vec<TlsMessage>,
    /// The trust store to set once the ClientHello is out; None once set (or with nothing
    /// to load).
    trust: Option<Arc<TrustStore>>,
    /// `CURLOPT_CA_CACHE_TIMEOUT` of the transfer that made the connection.
    ca_cache_timeout: Option<Duration>,
    /// What setting the trust store wrote for `-v` (curl's infof lines), with their place
    /// among the trace's messages.
    notes: Vec<(u64, String)>,
    /// A resumed session's early data allowance and ALPN, when `--tls-earlydata` may use
    /// it; the deferred handshake's state once [`Self::defer_for_early_data`] took it.
    early_offer: Option<(usize, Vec<u8>)>,
    early: Option<Box<EarlyData>>,
    /// What became of the early data, for the transfer (bytes the server accepted, or
    /// the negative count it rejected); taken once.
    early_outcome: Option<i64>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenSslSession")
            .field("host", &self.host)
            .finish()
    }
}

impl Session {
    pub fn new(
        ctx: &SslContext,
        trust: &Arc<TrustStore>,
        host: &str,
        peer: &str,
        sock: &Stream,
        opts: &TlsOptions,
        over_tls: bool,
    ) -> Result<Session, Error> {
        let io = if over_tls {
            DupIo::Mem {
                rx: Vec::new(),
                tx: Vec::new(),
                eof: false,
            }
        } else {
            DupIo::Sock(
                sock.try_clone()
                    .map_err(|e| connect_error(format!("TLS connect error: {e}")))?,
            )
        };
        let pending = trust.in_context.is_none() && trust.ca.needed();
        let trust_notes = trust
            .in_context
            .iter()
            .flatten()
            .map(|n| (oxcurl_sys::tls::next_seq(), n.clone()))
            .collect();
        let trust = Some(trust.clone()).filter(|_| pending);
        let dup = Dup {
            io,
            hold_reads: trust.is_some(),
        };
        let mut ssl = Ssl::new(ctx)
            .map_err(|e| connect_error(format!("TLS connect error: {}", err_text(&e))))?;
        if host.parse::<std::net::IpAddr>().is_err() {
            let _ = ssl.set_hostname(host);
        }
        if opts.verify_status {
            let _ = ssl.set_status_type(StatusType::OCSP);
        }
        let resumed = if opts.session_cache {
            oxcurl_sys::tls::resume(&mut ssl, peer)
        } else {
            None
        };
        oxcurl_sys::tls::add_trace(&mut ssl);
        let mut session = Session {
            state: State::Start(ssl),
            dup: Some(dup),
            host: host.to_string(),
            verify_peer: opts.verify_peer,
            verify_host: opts.verify_host,
            verify_status: opts.verify_status,
            verify_code: 1,
            lost_trace: Vec::new(),
            trust,
            ca_cache_timeout: opts.ca_cache_duration(),
            // Written before the ALPN offer, as curl fills a hooked context's store first.
            notes: trust_notes,
            early_offer: None,
            early: None,
            early_outcome: None,
        };
        if let (true, Some(Some(alpn)), State::Start(ssl)) =
            (opts.earlydata, &resumed, &session.state)
        {
            // curl's condition: a TLS 1.3 session that allows early data, with an ALPN.
            if let Some(sess) = ssl.session() {
                let max = sess.max_early_data() as usize;
                if max > 0 && sess.protocol_version() == SslVersion::TLS1_3 {
                    session.early_offer = Some((max, alpn.clone()));
                }
            }
        }
        if let Some(alpn) = resumed {
            // curl's ossl_init_session_and_alpns, after the context is set up.
            let alpn = alpn.as_deref().map_or("-".into(), String::from_utf8_lossy);
            session.note(format!("SSL reusing session with ALPN '{alpn}'"));
        }
        Ok(session)
    }

    /// The connection's `SSL`, whatever the handshake state; none after a failed one.
    fn ssl(&self) -> Option<&SslRef> {
        match &self.state {
            State::Start(ssl) => Some(ssl),
            State::Mid(m) => Some(m.ssl()),
            State::Early(s) | State::Done(s) => Some(s.ssl()),
            State::Failed => None,
        }
    }

    /// Keep the messages OpenSSL reports for this connection from now on.
    pub fn trace_on(&mut self) {
        self.lost_trace.clear();
        if let Some(ssl) = self.ssl() {
            oxcurl_sys::tls::trace_on(ssl);
        }
    }

    /// Stop keeping messages; those kept since [`Self::trace_on`], in order.
    pub fn trace_take(&mut self) -> Vec<TlsMessage> {
        let mut list = std::mem::take(&mut self.lost_trace);
        if let Some(ssl) = self.ssl() {
            list.extend(oxcurl_sys::tls::trace_take(ssl));
        }
        list
    }

    /// The `-v` lines setting the trust store wrote since last asked, with their place in
    /// the order of the trace's messages.
    pub fn take_notes(&mut self) -> Vec<(u64, String)> {
        std::mem::take(&mut self.notes)
    }

    fn note(&mut self, text: String) {
        self.notes.push((oxcurl_sys::tls::next_seq(), text));
    }

    /// OpenSSL's verify code for the server's chain (curl's `CURLINFO_SSL_VERIFYRESULT`).
    pub fn verify_result(&self) -> i64 {
        self.verify_code
    }

    /// The BIO of the session, whatever the handshake state.
    fn bio(&mut self) -> Option<&mut Dup> {
        match &mut self.state {
            State::Start(_) => self.dup.as_mut(),
            State::Mid(m) => Some(m.get_mut()),
            State::Early(s) | State::Done(s) => Some(s.get_mut()),
            State::Failed => None,
        }
    }

    /// Inside a proxy session: the BIO's byte queues.
    fn queues(&mut self) -> Option<(&mut Vec<u8>, &mut Vec<u8>, &mut bool)> {
        match self.bio().map(|d| &mut d.io) {
            Some(DupIo::Mem { rx, tx, eof }) => Some((rx, tx, eof)),
            _ => None,
        }
    }

    /// Inside a proxy session: move what the proxy session has decrypted into the BIO.
    fn pump_in(&mut self, io: &mut Io<'_>) -> io::Result<()> {
        let Some((rx, _, eof)) = self.queues() else {
            return Ok(());
        };
        let mut buf = [0u8; 16 * 1024];
        while !*eof {
            match io.read(&mut buf) {
                Ok(0) => *eof = true,
                Ok(n) => rx.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Inside a proxy session: hand the records OpenSSL wrote to the proxy session;
    /// WouldBlock while some remain.
    fn pump_out(&mut self, io: &mut Io<'_>) -> io::Result<()> {
        let Some((_, tx, _)) = self.queues() else {
            return Ok(());
        };
        while !tx.is_empty() {
            match io.write(tx) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    tx.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Records waiting for the proxy session to take them.
    pub fn wants_write(&self) -> bool {
        let bio = match &self.state {
            State::Start(_) => self.dup.as_ref(),
            State::Mid(m) => Some(m.get_ref()),
            State::Early(s) | State::Done(s) => Some(s.get_ref()),
            State::Failed => None,
        };
        matches!(bio.map(|d| &d.io), Some(DupIo::Mem { tx, .. }) if !tx.is_empty())
    }

    /// Write out what the proxy session has not taken yet.
    pub fn flush(&mut self, io: &mut Io<'_>) -> io::Result<()> {
        self.pump_out(io)
    }

    pub fn handshake(&mut self, io: &mut Io<'_>) -> Result<Handshake, Error> {
        let io_failed = |e: io::Error| {
            connect_error(format!(
                "TLS connect error: {}",
                crate::connect::os_error_text(&e)
            ))
        };
        self.pump_in(io).map_err(io_failed)?;
        let mut r = self.handshake_step();
        let mut out = self.pump_out(io);
        if let Some(trust) = self.trust.take() {
            // curl's OpenSSL backend sets its trust store up once the first handshake step
            // has sent the ClientHello (its reply held back until then), whatever that step
            // came to: a failure to load it is the connection's error.
            self.set_trust(&trust)?;
            let out_ok = !matches!(&out, Err(e) if e.kind() != io::ErrorKind::WouldBlock);
            if out_ok && matches!(r, Ok(Handshake::WantRead)) {
                // The reply may be there already.
                r = self.handshake_step();
                out = self.pump_out(io);
            }
        }
        match (r, out) {
            (Err(e), _) => Err(e),
            (Ok(_), Err(e)) if e.kind() != io::ErrorKind::WouldBlock => Err(io_failed(e)),
            (Ok(Handshake::WantRead), Err(_)) => Ok(Handshake::WantWrite),
            (Ok(h), _) => Ok(h),
        }
    }

    /// Load (or take from the cache) the trust store and give it to the connection; write
    /// what curl writes meanwhile.
    fn set_trust(&mut self, trust: &TrustStore) -> Result<(), Error> {
        match trust.get(self.ca_cache_timeout) {
            Ok((store, notes)) => {
                for n in notes {
                    self.note(n);
                }
                let set = match &mut self.state {
                    State::Mid(m) => {
                        m.get_mut().hold_reads = false;
                        oxcurl_sys::tls::use_trust_store(m, &store)
                    }
                    State::Early(s) => {
                        s.get_mut().hold_reads = false;
                        oxcurl_sys::tls::use_trust_store_early(s, &store)
                    }
                    _ => true,
                };
                if !set {
                    return Err(connect_error(format!(
                        "TLS connect error: {}",
                        openssl_last()
                    )));
                }
                Ok(())
            }
            Err((notes, e)) => {
                // curl tries twice, at its BIO's first read and again once `SSL_connect`
                // returned, writing each time what it loaded and why it failed; the second
                // failure is the transfer's error, written as it ends.
                let twice = [notes.clone(), vec![e.msg.clone()], notes];
                for n in twice.into_iter().flatten() {
                    self.note(n);
                }
                if let Some(ssl) = self.ssl() {
                    let kept = oxcurl_sys::tls::trace_take(ssl);
                    self.lost_trace.extend(kept);
                }
                self.state = State::Failed;
                Err(e)
            }
        }
    }

    fn handshake_step(&mut self) -> Result<Handshake, Error> {
        let r = match std::mem::replace(&mut self.state, State::Failed) {
            State::Start(ssl) => ssl.connect(self.dup.take().expect("socket")),
            State::Mid(m) => m.handshake(),
            s @ State::Done(_) => {
                self.state = s;
                return Ok(Handshake::Done);
            }
            // Driven by the first send ([`Self::send_early`]), not from here.
            s @ State::Early(_) => {
                self.state = s;
                return Ok(Handshake::WantRead);
            }
            State::Failed => return Err(connect_error("TLS connect error: handshake failed")),
        };
        match r {
            Ok(s) => {
                self.state = State::Done(s);
                self.after_handshake()?;
                Ok(Handshake::Done)
            }
            Err(HandshakeError::WouldBlock(m)) => {
                let want = if m.error().code() == ErrorCode::WANT_WRITE {
                    Handshake::WantWrite
                } else {
                    Handshake::WantRead
                };
                self.state = State::Mid(m);
                Ok(want)
            }
            Err(HandshakeError::Failure(m)) => Err(self.handshake_failed(m.ssl(), m.error())),
            Err(HandshakeError::SetupFailure(e)) => Err(connect_error(format!(
                "TLS connect error: {}",
                err_text(&e)
            ))),
        }
    }

    /// The error of a handshake that failed on `ssl` with `err`.
    fn handshake_failed(&mut self, ssl: &SslRef, err: &openssl::ssl::Error) -> Error {
        // The alert that ended it, say, is still to be shown; the `SSL` goes now.
        self.lost_trace = oxcurl_sys::tls::trace_take(ssl);
        let verify = ssl.verify_result();
        if verify != X509VerifyResult::OK {
            self.verify_code = i64::from(verify.as_raw());
        }
        if self.verify_peer && verify != X509VerifyResult::OK {
            return Error::new(
                Code::PeerFailedVerification,
                format!("SSL certificate problem: {}", verify.error_string()),
            );
        }
        let text = match err.ssl_error() {
            Some(stack) => err_text(stack),
            None => match err.io_error() {
                Some(e) => e.to_string(),
                None => "error:0A000126:SSL routines::unexpected eof while reading".to_string(),
            },
        };
        connect_error(format!("TLS connect error: {text}"))
    }

    /// With `--tls-earlydata`: when the resumed session allows early data and its ALPN is
    /// one of `offer`, defer the handshake (curl's `ossl_init_session_and_alpns` and
    /// `sess_reuse_cb`): only that ALPN is offered, and the connection counts as connected
    /// with it until the first send. The allowance and the ALPN, for the transfer's notes.
    pub fn defer_for_early_data(&mut self, offer: &[&[u8]]) -> Option<(usize, Vec<u8>)> {
        let (max, alpn) = self.early_offer.take()?;
        if !offer.contains(&alpn.as_slice()) {
            return None;
        }
        let State::Start(ssl) = &mut self.state else {
            return None;
        };
        let mut wire = Vec::with_capacity(alpn.len() + 1);
        wire.push(alpn.len() as u8);
        wire.extend_from_slice(&alpn);
        ssl.set_alpn_protos(&wire).ok()?;
        self.note(format!(
            "SSL session allows {max} bytes of early data, reusing ALPN '{}'",
            String::from_utf8_lossy(&alpn)
        ));
        self.early = Some(Box::new(EarlyData {
            max,
            alpn: alpn.clone(),
            data: None,
            written: 0,
            want_write: false,
        }));
        Some((max, alpn))
    }

    /// Is the handshake deferred for early data, or under way in a send?
    pub fn early_pending(&self) -> bool {
        self.early.is_some()
    }

    /// Does the deferred handshake wait for the server (rather than to write)?
    pub fn early_wants_read(&self) -> bool {
        self.early
            .as_ref()
            .is_some_and(|e| e.data.is_some() && !e.want_write)
    }

    /// What became of the early data once the handshake is done: the bytes accepted, or
    /// minus those rejected. Once.
    pub fn take_early_outcome(&mut self) -> Option<i64> {
        self.early_outcome.take()
    }

    /// Has a deferred handshake ended, its outcome not taken yet?
    pub fn early_outcome_ready(&self) -> bool {
        self.early_outcome.is_some()
    }

    /// A send while the handshake is deferred (curl's `ssl_cf_connect_deferred`): the first
    /// one's bytes, up to the session's allowance, go as early data with the ClientHello,
    /// and the handshake is driven to its end; WouldBlock until then. Afterwards the bytes
    /// the server accepted count as sent, and the rest goes as usual.
    fn send_early(&mut self, io: &mut Io<'_>, buf: &[u8]) -> io::Result<usize> {
        self.pump_in(io)?;
        let e = self.early.as_mut().expect("deferred handshake");
        if e.data.is_none() {
            e.data = Some(buf[..buf.len().min(e.max)].to_vec());
            let State::Start(ssl) = std::mem::replace(&mut self.state, State::Failed) else {
                return Err(super::io_error(connect_error(
                    "TLS connect error: handshake failed",
                )));
            };
            let stream = SslStream::new(ssl, self.dup.take().expect("socket")).map_err(|e| {
                super::io_error(connect_error(format!(
                    "TLS connect error: {}",
                    err_text(&e)
                )))
            })?;
            self.state = State::Early(stream);
        }
        let mut r = self.early_step();
        let mut out = self.pump_out(io);
        if let Some(trust) = self.trust.take() {
            // As for a handshake without early data: once the ClientHello is out.
            self.set_trust(&trust).map_err(super::io_error)?;
            let out_ok = !matches!(&out, Err(e) if e.kind() != io::ErrorKind::WouldBlock);
            if out_ok && matches!(r, Ok(false)) {
                r = self.early_step();
                out = self.pump_out(io);
            }
        }
        match out {
            Err(e) if e.kind() != io::ErrorKind::WouldBlock => return Err(e),
            _ => {}
        }
        if !r.map_err(super::io_error)? {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        // Done. What the server accepted counts as sent; anything else goes with the next
        // send, once the transfer has written what the handshake came to (curl writes it
        // before it sends the rest, or all again when the early data was refused).
        match self.early_outcome {
            Some(n) if n > 0 => Ok((n as usize).min(buf.len())),
            _ => Err(io::ErrorKind::Interrupted.into()),
        }
    }

    /// One step of the deferred handshake: write the early data, then connect. True when
    /// the handshake is done.
    fn early_step(&mut self) -> Result<bool, Error> {
        let State::Early(stream) = &mut self.state else {
            return Err(connect_error("TLS connect error: handshake failed"));
        };
        let e = self.early.as_mut().expect("deferred handshake");
        let data = e.data.as_deref().unwrap_or_default();
        while e.written < data.len() {
            match stream.write_early_data(&data[e.written..]) {
                Ok(n) => {
                    e.written += n;
                    if e.written == data.len() {
                        let text = format!("SSL sending {} bytes of early data", data.len());
                        self.notes.push((oxcurl_sys::tls::next_seq(), text));
                    }
                }
                Err(err) => {
                    if matches!(err.code(), ErrorCode::WANT_READ | ErrorCode::WANT_WRITE) {
                        e.want_write = err.code() == ErrorCode::WANT_WRITE;
                        return Ok(false);
                    }
                    return Err(early_write_error(&err));
                }
            }
        }
        match stream.connect() {
            Ok(()) => {}
            Err(err) if matches!(err.code(), ErrorCode::WANT_READ | ErrorCode::WANT_WRITE) => {
                e.want_write = err.code() == ErrorCode::WANT_WRITE;
                return Ok(false);
            }
            Err(err) => {
                let State::Early(stream) = std::mem::replace(&mut self.state, State::Failed) else {
                    unreachable!()
                };
                return Err(self.handshake_failed(stream.ssl(), &err));
            }
        }
        let e = self.early.take().expect("deferred handshake");
        let State::Early(stream) = std::mem::replace(&mut self.state, State::Failed) else {
            unreachable!()
        };
        let sent = e.data.as_ref().map_or(0, Vec::len);
        let accepted = oxcurl_sys::tls::early_data_accepted(stream.ssl());
        let selected = stream.ssl().selected_alpn_protocol().map(<[u8]>::to_vec);
        self.state = State::Done(stream);
        self.after_handshake()?;
        // curl's Curl_alpn_set_negotiated with the ALPN asked for from the session.
        let asked = String::from_utf8_lossy(&e.alpn);
        match selected {
            None => {
                return Err(connect_error(format!(
                    "ALPN: asked for '{asked}' from previous session, but server did not \
                     confirm it. Refusing to continue."
                )))
            }
            Some(p) if p != e.alpn => {
                return Err(connect_error(format!(
                    "ALPN: asked for '{asked}' from previous session, but server selected \
                     '{}'. Refusing to continue.",
                    String::from_utf8_lossy(&p)
                )))
            }
            Some(_) => {}
        }
        self.early_outcome = Some(if accepted {
            sent as i64
        } else {
            -(sent as i64)
        });
        Ok(true)
    }

    /// curl's own checks after the handshake: the host name, the OCSP staple.
    fn after_handshake(&mut self) -> Result<(), Error> {
        let State::Done(s) = &self.state else {
            return Ok(());
        };
        // curl checks the name first; the verify result is taken after it.
        let code = i64::from(s.ssl().verify_result().as_raw());
        if self.verify_host {
            let leaf = s.ssl().peer_certificate().and_then(|c| c.to_der().ok());
            if let Some(der) = leaf {
                if let Some(c) = Cert::parse(&der) {
                    if super::x509::san_match(&c, &self.host).is_none() {
                        return Err(Error::new(
                            Code::PeerFailedVerification,
                            super::x509::mismatch_message(Some(&c), &self.host),
                        ));
                    }
                }
            }
        }
        self.verify_code = code;
        if self.verify_status && s.ssl().ocsp_status().is_none() {
            return Err(Error::new(
                Code::SslInvalidcertstatus,
                "No OCSP response received",
            ));
        }
        Ok(())
    }

    fn stream(&mut self) -> io::Result<&mut SslStream<Dup>> {
        match &mut self.state {
            State::Done(s) => Ok(s),
            _ => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "handshake not done",
            )),
        }
    }

    pub fn recv(&mut self, io: &mut Io<'_>, buf: &mut [u8]) -> io::Result<usize> {
        self.pump_in(io)?;
        let r = self.recv_plain(buf);
        match self.pump_out(io) {
            Err(e) if e.kind() != io::ErrorKind::WouldBlock => return Err(e),
            _ => {}
        }
        r
    }

    /// `SSL_peek` for one byte: OpenSSL processes the records that came (tickets, alerts,
    /// the first application data record, which it keeps for the next read). Failures
    /// are left for that read to meet.
    pub fn read_ahead(&mut self, io: &mut Io<'_>) {
        if self.pump_in(io).is_err() {
            return;
        }
        if let Ok(s) = self.stream() {
            let _ = s.ssl_peek(&mut [0u8; 1]);
        }
    }

    fn recv_plain(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let s = self.stream()?;
        match s.ssl_read(buf) {
            Ok(n) => Ok(n),
            Err(e) => match e.code() {
                ErrorCode::ZERO_RETURN => Ok(0),
                ErrorCode::WANT_READ | ErrorCode::WANT_WRITE => {
                    Err(io::ErrorKind::WouldBlock.into())
                }
                ErrorCode::SYSCALL if e.io_error().is_some() => {
                    let io = e
                        .into_io_error()
                        .unwrap_or_else(|e| io::Error::other(e.to_string()));
                    if io.kind() == io::ErrorKind::WouldBlock {
                        Err(io)
                    } else {
                        let errno = io.raw_os_error().unwrap_or(0);
                        Err(super::io_error(Error::new(
                            Code::RecvError,
                            format!("OpenSSL SSL_read: {}, errno {errno}", io),
                        )))
                    }
                }
                _ => {
                    let text = match e.ssl_error() {
                        Some(st) => err_text(st),
                        None => "error:0A000126:SSL routines::unexpected eof while reading".into(),
                    };
                    Err(super::io_error(Error::new(
                        Code::RecvError,
                        format!("OpenSSL SSL_read: {}: {text}, errno 0", version_name()),
                    )))
                }
            },
        }
    }

    pub fn send(&mut self, io: &mut Io<'_>, buf: &[u8]) -> io::Result<usize> {
        if self.early.is_some() {
            return self.send_early(io, buf);
        }
        self.pump_out(io)?;
        let n = self.send_plain(buf)?;
        match self.pump_out(io) {
            Err(e) if e.kind() != io::ErrorKind::WouldBlock => Err(e),
            _ => Ok(n),
        }
    }

    fn send_plain(&mut self, buf: &[u8]) -> io::Result<usize> {
        let s = self.stream()?;
        match s.ssl_write(buf) {
            Ok(n) => Ok(n),
            Err(e) => match e.code() {
                ErrorCode::WANT_READ | ErrorCode::WANT_WRITE => {
                    Err(io::ErrorKind::WouldBlock.into())
                }
                _ => {
                    let text = match e.ssl_error() {
                        Some(st) => err_text(st),
                        None => e.to_string(),
                    };
                    Err(super::io_error(Error::new(
                        Code::SendError,
                        format!("SSL_write() returned SYSCALL, errno = 0: {text}"),
                    )))
                }
            },
        }
    }

    pub fn is_alive(&mut self, io: &mut Io<'_>) -> bool {
        if io.sock().is_alive() {
            return true;
        }
        if self.pump_in(io).is_err() {
            return false;
        }
        // Something arrived while idle: a session ticket is fine, data or a close is not.
        let Ok(s) = self.stream() else {
            return false;
        };
        let mut b = [0u8; 1];
        matches!(s.ssl_read(&mut b), Err(ref e) if e.code() == ErrorCode::WANT_READ)
    }

    pub fn close(&mut self, io: &mut Io<'_>) {
        if let State::Done(s) = &mut self.state {
            let _ = s.shutdown();
        }
        let _ = self.pump_out(io);
    }

    pub fn alpn(&self) -> Option<&[u8]> {
        if let Some(e) = &self.early {
            // Deferred for early data: the session's, until the server confirms it.
            return Some(&e.alpn);
        }
        match &self.state {
            State::Done(s) => s.ssl().selected_alpn_protocol(),
            _ => None,
        }
    }

    /// The verified chain (leaf first, up to the trusted root) or else what the server sent.
    pub fn chain_der(&self) -> Vec<Vec<u8>> {
        let State::Done(s) = &self.state else {
            return Vec::new();
        };
        let ssl = s.ssl();
        let chain = ssl.verified_chain().or_else(|| ssl.peer_cert_chain());
        chain
            .map(|c| c.iter().filter_map(|x| x.to_der().ok()).collect())
            .unwrap_or_default()
    }

    /// The server's certificate, which a resumed session keeps though it lost the chain.
    pub fn leaf_der(&self) -> Option<Vec<u8>> {
        let State::Done(s) = &self.state else {
            return None;
        };
        s.ssl().peer_certificate().and_then(|c| c.to_der().ok())
    }

    /// The certificates the server sent, leaf first; none after a resumed handshake (curl
    /// keeps its sessions serialized, which drops the chain).
    pub fn peer_chain_der(&self) -> Vec<Vec<u8>> {
        let State::Done(s) = &self.state else {
            return Vec::new();
        };
        if s.ssl().session_reused() {
            return Vec::new();
        }
        s.ssl()
            .peer_cert_chain()
            .map(|c| c.iter().filter_map(|x| x.to_der().ok()).collect())
            .unwrap_or_default()
    }

    pub fn connection_summary(&self) -> String {
        let State::Done(s) = &self.state else {
            return String::new();
        };
        let ssl = s.ssl();
        let cipher = ssl.current_cipher().map(|c| c.name()).unwrap_or("");
        let group = ssl
            .peer_tmp_key()
            .ok()
            .map(|k| match k.id() {
                openssl::pkey::Id::X25519 => "X25519".to_string(),
                openssl::pkey::Id::X448 => "X448".to_string(),
                openssl::pkey::Id::EC => k
                    .ec_key()
                    .ok()
                    .and_then(|e| e.group().curve_name())
                    .and_then(|n| n.short_name().ok())
                    .unwrap_or("EC")
                    .to_string(),
                _ => "unknown".to_string(),
            })
            .or_else(|| {
                // A resumed TLS 1.2 session had no key exchange: the session's group.
                ssl.session_reused()
                    .then(|| oxcurl_sys::tls::negotiated_group(ssl))
                    .flatten()
                    .map(String::from)
            })
            .unwrap_or_else(|| "unknown".into());
        let leaf = ssl.peer_certificate().and_then(|c| c.to_der().ok());
        // A resumed handshake has no CertificateVerify: OpenSSL knows no peer signature
        // type, which curl's `OBJ_nid2sn(NID_undef)` writes as UNDEF.
        let key = if ssl.session_reused() {
            "UNDEF"
        } else {
            leaf.as_deref()
                .and_then(Cert::parse)
                .map(|c| c.signature_type(ssl.version_str() == "TLSv1.3"))
                .unwrap_or("unknown")
        };
        format!(
            "SSL connection using {} / {cipher} / {group} / {key}",
            ssl.version_str()
        )
    }
}

/// The error of a failed `SSL_write_early_data`, in curl's words (`ossl_send_earlydata`),
/// 55.
fn early_write_error(err: &openssl::ssl::Error) -> Error {
    let errno = err
        .io_error()
        .and_then(io::Error::raw_os_error)
        .unwrap_or(0);
    let msg = match err.code() {
        ErrorCode::SSL => format!(
            "SSL_write_early_data() error: {}",
            err.ssl_error().map(err_text).unwrap_or_default()
        ),
        ErrorCode::SYSCALL => {
            let text = match (err.ssl_error(), err.io_error()) {
                (Some(st), _) => err_text(st),
                (None, Some(e)) if errno != 0 => crate::connect::os_error_text(e),
                _ => "SSL_ERROR_SYSCALL".to_string(),
            };
            format!("OpenSSL SSL_write:early_data: {text}, errno {errno}")
        }
        _ => format!(
            "OpenSSL SSL_write_early_data: {}, errno {errno}",
            error_name(err.code())
        ),
    };
    Error::new(Code::SendError, msg)
}

/// OpenSSL's name of an `SSL_get_error` code, as curl's `SSL_ERROR_to_str` gives it.
fn error_name(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::ZERO_RETURN => "SSL_ERROR_ZERO_RETURN",
        ErrorCode::WANT_READ => "SSL_ERROR_WANT_READ",
        ErrorCode::WANT_WRITE => "SSL_ERROR_WANT_WRITE",
        ErrorCode::SYSCALL => "SSL_ERROR_SYSCALL",
        ErrorCode::SSL => "SSL_ERROR_SSL",
        _ => "SSL_ERROR unknown",
    }
}

/// curl's `ossl_trace` text for a message: `TLSv1.3 (OUT), TLS handshake, Client hello (1):`;
/// None for record headers, TLS 1.3 inner content types and messages before a version is
/// known, which only go out as SSL data.
pub fn trace_text(m: &TlsMessage) -> Option<String> {
    const HEADER: i32 = 256;
    const INNER_CONTENT_TYPE: i32 = 257;
    if m.version == 0 || m.content_type == HEADER || m.content_type == INNER_CONTENT_TYPE {
        return None;
    }
    let ver = match m.version {
        0x0300 => "SSLv3".to_string(),
        0x0301 => "TLSv1.0".to_string(),
        0x0302 => "TLSv1.1".to_string(),
        0x0303 => "TLSv1.2".to_string(),
        0x0304 => "TLSv1.3".to_string(),
        v => format!("({v:x})"),
    };
    let major = m.version >> 8;
    let rt = if major == 3 && m.content_type != 0 {
        match m.content_type {
            20 => "TLS change cipher",
            21 => "TLS alert",
            22 => "TLS handshake",
            23 => "TLS app data",
            _ => "TLS Unknown",
        }
    } else {
        ""
    };
    // curl reads the first bytes as a (signed) char.
    let byte = |i: usize| m.bytes.get(i).map_or(0, |&b| i32::from(b as i8));
    let (msg, kind) = match m.content_type {
        20 => ("Change cipher spec".to_string(), byte(0)),
        21 => {
            let code = (byte(0) << 8) + byte(1);
            (oxcurl_sys::tls::alert_description(code), code)
        }
        _ => {
            let t = byte(0);
            (message_name(major, t).to_string(), t)
        }
    };
    let dir = if m.out { "OUT" } else { "IN" };
    Some(format!("{ver} ({dir}), {rt}, {msg} ({kind}):"))
}

/// curl's `ssl_msg_type` for SSL 3 and later (OpenSSL 3 has no SSL 2).
fn message_name(major: i32, t: i32) -> &'static str {
    if major != 3 {
        return "Unknown";
    }
    match t {
        0 => "Hello request",
        1 => "Client hello",
        2 => "Server hello",
        4 => "Newsession Ticket",
        5 => "End of early data",
        8 => "Encrypted Extensions",
        11 => "Certificate",
        12 => "Server key exchange",
        13 => "Request CERT",
        14 => "Server finished",
        15 => "CERT verify",
        16 => "Client key exchange",
        20 => "Finished",
        22 => "Certificate Status",
        23 => "Supplemental data",
        24 => "Key update",
        67 => "Next protocol",
        254 => "Message hash",
        _ => "Unknown",
    }
}

/// OpenSSL's text for a verify code (`X509_verify_cert_error_string`).
pub fn verify_error_text(code: i64) -> String {
    oxcurl_sys::tls::verify_error_text(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(cafile: &str) -> TlsOptions {
        TlsOptions {
            cafile: Some(cafile.to_string()),
            ..TlsOptions::default()
        }
    }

    const DAY: Option<Duration> = Some(Duration::from_secs(24 * 60 * 60));

    /// A store from the CA file alone (no CA path) loads once: later connections get the same
    /// one, with the same `-v` lines, until the cache timeout; with a timeout of zero, and with
    /// a CA path, each connection loads its own (curl's `cache_criteria_met`).
    #[test]
    fn trust_store_loads_once_from_the_ca_file_alone() {
        let ca = oxcurl_testsupport::pki().ca();
        let no_path = TlsOptions {
            capath: Some(String::new()),
            ..opts(ca.to_str().unwrap())
        };
        let t = TrustStore::new(&no_path);
        let (a, notes) = t.get(DAY).expect("loads");
        let (b, again) = t.get(DAY).expect("cached");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(notes, again);
        assert_eq!(
            notes,
            [format!(" CAfile: {}", ca.display()), " CApath: none".into()]
        );
        let (c, _) = t.get(None).expect("cached forever");
        assert!(Arc::ptr_eq(&a, &c));
        let (d, _) = t.get(Some(Duration::ZERO)).expect("loads again");
        assert!(!Arc::ptr_eq(&a, &d));
        let (e, _) = t.get(Some(Duration::from_nanos(1))).expect("expired");
        assert!(!Arc::ptr_eq(&a, &e));

        let t = TrustStore::new(&opts(ca.to_str().unwrap()));
        let (a, notes) = t.get(None).expect("loads");
        let (b, _) = t.get(None).expect("loads again");
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(
            notes,
            [
                format!(" CAfile: {}", ca.display()),
                format!(" CApath: {}", crate::tls::DEFAULT_CAPATH),
            ]
        );
    }

    /// A failed load is not kept: the next connection tries again (and finds the file).
    #[test]
    fn failed_trust_store_is_tried_again() {
        let dir = std::env::temp_dir().join(format!("oxcurl-trust-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("ca.pem");
        let _ = std::fs::remove_file(&file);
        let t = TrustStore::new(&opts(file.to_str().unwrap()));
        let Err((notes, e)) = t.get(DAY) else {
            panic!("loaded a file that is not there");
        };
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(e.code, Code::SslCacertBadfile);
        assert_eq!(
            e.msg,
            format!("error setting certificate file: {}", file.display())
        );
        std::fs::copy(oxcurl_testsupport::pki().ca(), &file).unwrap();
        assert!(t.get(DAY).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A CA blob replaces the file, in the store and in the lines; one without a certificate
    /// fails with curl's text.
    #[test]
    fn trust_store_from_blob() {
        let pem = std::fs::read(oxcurl_testsupport::pki().ca()).unwrap();
        let blob = |b: &[u8]| TlsOptions {
            ca_blob: Some(Arc::from(b)),
            ..opts("/no/such/file.pem")
        };
        let (_, notes) = TrustStore::new(&blob(&pem)).get(DAY).expect("blob loads");
        assert_eq!(
            notes,
            [
                "successfully imported CA certificate blob".to_string(),
                " CAfile: none".to_string(),
                format!(" CApath: {}", crate::tls::DEFAULT_CAPATH),
            ]
        );
        let Err((_, e)) = TrustStore::new(&blob(b"garbage")).get(DAY) else {
            panic!("a blob without a certificate loaded");
        };
        assert_eq!(
            (e.code, e.msg.as_str()),
            (
                Code::SslCacertBadfile,
                "error importing CA certificate blob"
            )
        );
    }

    /// Options that differ only outside the CA settings share a store; other CA settings do not.
    #[test]
    fn trust_store_serves_equal_ca_options() {
        let ca = oxcurl_testsupport::pki().ca();
        let base = opts(ca.to_str().unwrap());
        let t = TrustStore::new(&base);
        let other_alpn_and_version = TlsOptions {
            alpn: false,
            min_version: TlsVersion::V1_3,
            ca_cache_timeout: -1,
            ..base.clone()
        };
        assert!(t.serves(&other_alpn_and_version));
        for o in [
            TlsOptions {
                crlfile: Some("x.crl".into()),
                ..base.clone()
            },
            TlsOptions {
                capath: Some("/nowhere".into()),
                ..base.clone()
            },
            TlsOptions {
                verify_peer: false,
                ..base.clone()
            },
            opts("/elsewhere.pem"),
        ] {
            assert!(!t.serves(&o), "{o:?}");
        }
    }
}
