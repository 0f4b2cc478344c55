//! The rustls backend (aws-lc-rs provider): building client configurations from curl's
//! options, certificate verification with OpenSSL-worded failures, and a non-blocking session
//! driven over the connection's socket.

use std::io::{self, Read, Write};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{Resumption, WebPkiServerVerifier};
use rustls::crypto::{CryptoProvider, SupportedKxGroup};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, ClientConnection, DigitallySignedStruct, OtherError,
    RootCertStore, SignatureScheme, SupportedCipherSuite,
};

use super::x509::Cert;
use super::{connect_error, Handshake, Io, TlsOptions, TlsVersion};
use crate::error::{Code, Error};

/// OpenSSL's names for the TLS 1.2 suites rustls implements; TLS 1.3 suites keep IANA names.
const SUITE_NAMES: &[(&str, &str)] = &[
    (
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "ECDHE-ECDSA-AES128-GCM-SHA256",
    ),
    (
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        "ECDHE-ECDSA-AES256-GCM-SHA384",
    ),
    (
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "ECDHE-ECDSA-CHACHA20-POLY1305",
    ),
    (
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "ECDHE-RSA-AES128-GCM-SHA256",
    ),
    (
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384",
    ),
    (
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        "ECDHE-RSA-CHACHA20-POLY1305",
    ),
    ("TLS13_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"),
    ("TLS13_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384"),
    (
        "TLS13_CHACHA20_POLY1305_SHA256",
        "TLS_CHACHA20_POLY1305_SHA256",
    ),
];

/// The OpenSSL-style name of a suite (what `-v` shows and `--ciphers` accepts).
fn suite_name(s: SupportedCipherSuite) -> String {
    let iana = format!("{:?}", s.suite());
    SUITE_NAMES
        .iter()
        .find(|(i, _)| *i == iana)
        .map(|(_, o)| (*o).to_string())
        .unwrap_or(iana)
}

/// OpenSSL's names for the key exchange groups.
fn group_names(g: &dyn SupportedKxGroup) -> &'static [&'static str] {
    match format!("{:?}", g.name()).as_str() {
        "X25519" => &["X25519", "x25519"],
        "secp256r1" => &["prime256v1", "P-256", "secp256r1"],
        "secp384r1" => &["secp384r1", "P-384"],
        "secp521r1" => &["secp521r1", "P-521"],
        "X25519MLKEM768" => &["X25519MLKEM768"],
        "MLKEM768" => &["MLKEM768"],
        _ => &[],
    }
}

fn ca_problem(text: &str) -> rustls::Error {
    rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(CertProblem(
        text.to_string(),
    )))))
}

/// A verification failure worded as OpenSSL words it.
#[derive(Debug)]
struct CertProblem(String);

impl std::fmt::Display for CertProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CertProblem {}

/// A `--cert-status` failure (curl's 91).
#[derive(Debug)]
struct StatusProblem(&'static str);

impl std::fmt::Display for StatusProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for StatusProblem {}

/// curl's verification: the chain against the trusted roots (`verify_peer`), the name
/// (`verify_host`), both off with `-k`. Handshake signatures are always checked.
#[derive(Debug)]
struct Verifier {
    inner: Option<Arc<WebPkiServerVerifier>>,
    verify_host: bool,
    /// `--cert-status`: a stapled OCSP response is required.
    verify_status: bool,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if self.verify_status {
            // Reading and checking an OCSP response is not implemented: without one curl
            // fails the same way, with one we cannot vouch for it, so both fail.
            let text = if ocsp.is_empty() {
                "No OCSP response received"
            } else {
                "OCSP response checking is not supported by the rustls backend"
            };
            return Err(rustls::Error::InvalidCertificate(CertificateError::Other(
                OtherError(Arc::new(StatusProblem(text))),
            )));
        }
        let Some(inner) = &self.inner else {
            return Ok(ServerCertVerified::assertion());
        };
        match inner.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Ok(v) => Ok(v),
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.verify_host => Ok(ServerCertVerified::assertion()),
            Err(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer
                | CertificateError::BadSignature
                | CertificateError::UnsupportedSignatureAlgorithmContext { .. }
                | CertificateError::UnsupportedSignatureAlgorithmForPublicKeyContext { .. },
            )) => {
                // OpenSSL names an untrusted self-issued leaf first, whatever else is wrong.
                let own = Cert::parse(end_entity).is_some_and(|c| c.is_self_issued());
                let chain = intermediates
                    .iter()
                    .any(|c| Cert::parse(c).is_some_and(|c| c.is_self_issued()));
                Err(if own {
                    ca_problem("self-signed certificate")
                } else if chain {
                    ca_problem("self-signed certificate in certificate chain")
                } else {
                    rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)
                })
            }
            Err(e) => Err(e),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// Trusted roots from the CA file and directory, as OpenSSL would find them.
fn load_roots(opts: &TlsOptions) -> Result<RootCertStore, Error> {
    let mut roots = RootCertStore::empty();
    let cafile = opts.effective_cafile();
    let bad_file = || {
        Error::new(
            Code::SslCacertBadfile,
            format!("error setting certificate file: {cafile}"),
        )
    };
    let data = std::fs::read(cafile).map_err(|_| bad_file())?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&data)
        .filter_map(|c| c.ok())
        .collect();
    if certs.is_empty() {
        return Err(bad_file());
    }
    roots.add_parsable_certificates(certs);
    if opts.ca_native {
        // The operating system's store: on Linux the system bundle (or SSL_CERT_FILE).
        let native =
            std::env::var("SSL_CERT_FILE").unwrap_or_else(|_| super::DEFAULT_CAFILE.into());
        if let Ok(d) = std::fs::read(native) {
            roots.add_parsable_certificates(
                CertificateDer::pem_slice_iter(&d).filter_map(|c| c.ok()),
            );
        }
    }
    // The directory holds the system roots under hashed names; with the default bundle it
    // repeats it, so it is only read when either was chosen by the user.
    if opts.cafile.is_some() || opts.capath.is_some() {
        if let Ok(dir) = std::fs::read_dir(opts.effective_capath()) {
            for e in dir.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                let hashed = name.len() >= 10
                    && name.as_bytes()[8] == b'.'
                    && name[..8].bytes().all(|b| b.is_ascii_hexdigit());
                if !hashed {
                    continue;
                }
                if let Ok(d) = std::fs::read(e.path()) {
                    roots.add_parsable_certificates(
                        CertificateDer::pem_slice_iter(&d).filter_map(|c| c.ok()),
                    );
                }
            }
        }
    }
    Ok(roots)
}

fn load_crls(
    file: &str,
) -> Result<Vec<rustls::pki_types::CertificateRevocationListDer<'static>>, Error> {
    use rustls::pki_types::CertificateRevocationListDer as Crl;
    let bad = || {
        Error::new(
            Code::SslCrlBadfile,
            format!("error loading CRL file: {file}"),
        )
    };
    let data = std::fs::read(file).map_err(|_| bad())?;
    let mut crls: Vec<Crl<'static>> = Crl::pem_slice_iter(&data).filter_map(|c| c.ok()).collect();
    if crls.is_empty() && data.first() == Some(&0x30) {
        crls.push(Crl::from(data));
    }
    if crls.is_empty() {
        return Err(bad());
    }
    Ok(crls)
}

fn provider_for(opts: &TlsOptions) -> Result<CryptoProvider, Error> {
    let mut p = rustls::crypto::aws_lc_rs::default_provider();
    let pick = |list: &str, tls13: bool, p: &mut CryptoProvider| -> Result<(), Error> {
        let wanted: Vec<&str> = list
            .split([':', ',', ' '])
            .filter(|s| !s.is_empty())
            .collect();
        let keep: Vec<SupportedCipherSuite> = p
            .cipher_suites
            .iter()
            .copied()
            .filter(|s| {
                let is13 = matches!(s, SupportedCipherSuite::Tls13(_));
                if is13 != tls13 {
                    return true;
                }
                let name = suite_name(*s);
                let iana = format!("{:?}", s.suite());
                wanted.iter().any(|w| *w == name || *w == iana)
            })
            .collect();
        let any = keep
            .iter()
            .any(|s| matches!(s, SupportedCipherSuite::Tls13(_)) == tls13);
        if !any {
            return Err(Error::new(
                Code::SslCipher,
                format!("failed setting cipher list: {list}"),
            ));
        }
        p.cipher_suites = keep;
        Ok(())
    };
    if let Some(c) = &opts.ciphers {
        pick(c, false, &mut p)?;
    }
    if let Some(c) = &opts.tls13_ciphers {
        pick(c, true, &mut p)?;
    }
    if let Some(curves) = &opts.curves {
        let wanted: Vec<&str> = curves.split(':').filter(|s| !s.is_empty()).collect();
        let groups: Vec<&'static dyn SupportedKxGroup> = wanted
            .iter()
            .filter_map(|w| {
                p.kx_groups
                    .iter()
                    .copied()
                    .find(|g| group_names(*g).contains(w))
            })
            .collect();
        if groups.is_empty() || groups.len() != wanted.len() {
            return Err(Error::new(
                Code::SslCipher,
                format!("failed setting curves list: '{curves}'"),
            ));
        }
        p.kx_groups = groups;
    }
    Ok(p)
}

fn client_auth(
    opts: &TlsOptions,
) -> Result<Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>, Error> {
    let Some(cert) = &opts.cert else {
        return Ok(None);
    };
    let problem = |msg: String| Error::new(Code::SslCertproblem, msg);
    let ctype = opts
        .cert_type
        .as_deref()
        .unwrap_or("PEM")
        .to_ascii_uppercase();
    let data = std::fs::read(cert)
        .map_err(|_| problem(format!("could not load PEM client certificate from {cert}")))?;
    let chain: Vec<CertificateDer<'static>> = match ctype.as_str() {
        "PEM" => CertificateDer::pem_slice_iter(&data)
            .filter_map(|c| c.ok())
            .collect(),
        "DER" => vec![CertificateDer::from(data.clone())],
        other => {
            return Err(problem(format!(
                "not supported file type '{other}' for certificate"
            )))
        }
    };
    if chain.is_empty() {
        return Err(problem(format!(
            "could not load {ctype} client certificate from {cert}"
        )));
    }
    let keyfile = opts.key.as_deref().unwrap_or(cert);
    let kdata = if keyfile == cert {
        data
    } else {
        std::fs::read(keyfile).map_err(|_| {
            problem(format!(
                "unable to set private key file: '{keyfile}' type PEM"
            ))
        })?
    };
    let ktype = opts
        .key_type
        .as_deref()
        .unwrap_or("PEM")
        .to_ascii_uppercase();
    let key = match ktype.as_str() {
        "DER" => PrivateKeyDer::try_from(kdata).ok(),
        _ => PrivateKeyDer::from_pem_slice(&kdata).ok(),
    };
    let key = key.ok_or_else(|| {
        problem(format!(
            "unable to set private key file: '{keyfile}' type {ktype}"
        ))
    })?;
    Ok(Some((chain, key)))
}

/// Build a client configuration for `opts`, offering `alpn`.
pub(super) fn build_config(opts: &TlsOptions, alpn: &[&[u8]]) -> Result<Arc<ClientConfig>, Error> {
    use TlsVersion as V;
    if opts.max_version != V::Default && opts.min_version > opts.max_version {
        return Err(connect_error(
            "CURL_SSLVERSION_MAX incompatible with CURL_SSLVERSION",
        ));
    }
    let mut versions: Vec<&'static rustls::SupportedProtocolVersion> = Vec::new();
    if opts.min_version <= V::V1_2
        && (opts.max_version == V::Default || opts.max_version >= V::V1_2)
    {
        versions.push(&rustls::version::TLS12);
    }
    if opts.max_version == V::Default || opts.max_version >= V::V1_3 {
        versions.push(&rustls::version::TLS13);
    }
    if versions.is_empty() {
        return Err(connect_error(
            "TLS: the requested maximum TLS version is not supported",
        ));
    }
    let provider = Arc::new(provider_for(opts)?);
    let inner = if opts.verify_peer {
        let roots = load_roots(opts)?;
        let mut b = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone());
        if let Some(f) = &opts.crlfile {
            // As OpenSSL with X509_V_FLAG_CRL_CHECK: the leaf's issuer must have a CRL.
            b = b
                .with_crls(load_crls(f)?)
                .only_check_end_entity_revocation();
        }
        Some(
            b.build()
                .map_err(|e| Error::new(Code::SslCacertBadfile, format!("{e}")))?,
        )
    } else {
        None
    };
    let verifier = Arc::new(Verifier {
        inner,
        verify_host: opts.verify_host,
        verify_status: opts.verify_status,
        provider: provider.clone(),
    });
    let builder = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&versions)
        .map_err(|e| connect_error(format!("TLS connect error: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut config = match client_auth(opts)? {
        Some((chain, key)) => builder.with_client_auth_cert(chain, key).map_err(|_| {
            Error::new(
                Code::SslCertproblem,
                "unable to use client certificate (no key found or wrong pass phrase?)",
            )
        })?,
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = alpn.iter().map(|a| a.to_vec()).collect();
    config.key_log = Arc::new(rustls::KeyLogFile::new());
    if !opts.session_cache {
        config.resumption = Resumption::disabled();
    }
    Ok(Arc::new(config))
}

/// A TLS session over a connection's socket.
pub struct Session {
    conn: ClientConnection,
    host: String,
    /// The socket reached end of stream.
    eof: bool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("host", &self.host).finish()
    }
}

impl Session {
    /// Start a session to `host` (a name or an IP literal, no brackets); no SNI for IPs.
    pub fn new(config: Arc<ClientConfig>, host: &str) -> Result<Session, Error> {
        let name = ServerName::try_from(host.to_string()).map_err(|_| {
            connect_error(format!("TLS connect error: invalid server name '{host}'"))
        })?;
        let conn = ClientConnection::new(config, name)
            .map_err(|e| connect_error(format!("TLS connect error: {e}")))?;
        Ok(Session {
            conn,
            host: host.to_string(),
            eof: false,
        })
    }

    /// Advance the handshake as far as the socket allows.
    pub fn handshake(&mut self, io: &mut Io<'_>) -> Result<Handshake, Error> {
        loop {
            while self.conn.wants_write() {
                match self.conn.write_tls(io) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        return Ok(Handshake::WantWrite)
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        return Err(connect_error(format!(
                            "TLS connect error: {}",
                            crate::connect::os_error_text(&e)
                        )))
                    }
                }
            }
            if !self.conn.is_handshaking() {
                return Ok(Handshake::Done);
            }
            if self.eof {
                return Err(connect_error(
                    "TLS connect error: peer closed the connection during the handshake",
                ));
            }
            match self.conn.read_tls(io) {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Handshake::WantRead),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(connect_error(format!(
                        "TLS connect error: {}",
                        crate::connect::os_error_text(&e)
                    )))
                }
            }
            if let Err(e) = self.conn.process_new_packets() {
                // Send the alert rustls queued, then report.
                let _ = self.conn.write_tls(io);
                return Err(self.map_error(&e, true));
            }
        }
    }

    /// curl's error for a TLS failure: 60 for verification, 35 during the handshake, 56 after.
    fn map_error(&self, e: &rustls::Error, handshake: bool) -> Error {
        if let rustls::Error::InvalidCertificate(CertificateError::Other(o)) = e {
            if let Some(s) = o.0.downcast_ref::<StatusProblem>() {
                return Error::new(Code::SslInvalidcertstatus, s.0);
            }
        }
        if let rustls::Error::InvalidCertificate(ce) = e {
            return Error::new(Code::PeerFailedVerification, self.cert_message(ce));
        }
        if handshake {
            connect_error(format!("TLS connect error: {e}"))
        } else {
            Error::new(Code::RecvError, format!("TLS recv error: {e}"))
        }
    }

    fn cert_message(&self, ce: &CertificateError) -> String {
        let problem = match ce {
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                return self.name_mismatch();
            }
            CertificateError::UnknownIssuer => "unable to get local issuer certificate".into(),
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                "certificate has expired".into()
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                "certificate is not yet valid".into()
            }
            CertificateError::Revoked => "certificate revoked".into(),
            CertificateError::UnknownRevocationStatus => "unable to get certificate CRL".into(),
            CertificateError::BadSignature => "certificate signature failure".into(),
            CertificateError::Other(o) => o.to_string(),
            other => format!("{other:?}"),
        };
        format!("SSL certificate problem: {problem}")
    }

    /// OpenSSL-backend wording of a name mismatch.
    fn name_mismatch(&self) -> String {
        let leaf = self.conn.peer_certificates().and_then(|c| c.first());
        let cert = leaf.and_then(|c| Cert::parse(c));
        super::x509::mismatch_message(cert.as_ref(), &self.host)
    }

    /// Write out queued TLS records; WouldBlock while some remain.
    pub fn flush(&mut self, io: &mut Io<'_>) -> io::Result<()> {
        while self.conn.wants_write() {
            match self.conn.write_tls(io) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Are TLS records waiting for the socket to become writable?
    pub fn wants_write(&self) -> bool {
        self.conn.wants_write()
    }

    /// Decrypted bytes into `buf`; Ok(0) at the peer's close_notify; WouldBlock when the
    /// socket has nothing more.
    pub fn recv(&mut self, io: &mut Io<'_>, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.conn.reader().read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    return Err(super::io_error(Error::new(
                        Code::RecvError,
                        "TLS recv error: peer closed the connection without sending close_notify",
                    )))
                }
                Err(e) => return Err(e),
            }
            if self.eof {
                return Ok(0);
            }
            match self.conn.read_tls(io) {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) => return Err(e),
            }
            if let Err(e) = self.conn.process_new_packets() {
                let _ = self.conn.write_tls(io);
                return Err(super::io_error(self.map_error(&e, false)));
            }
            // Records the peer's messages made us queue (key updates, alerts).
            match self.flush(io) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Encrypt up to `buf.len()` bytes; queued records beyond what the socket takes wait
    /// for [`Session::flush`]. WouldBlock while earlier records are still queued.
    pub fn send(&mut self, io: &mut Io<'_>, buf: &[u8]) -> io::Result<usize> {
        self.flush(io)?;
        let n = self.conn.writer().write(buf)?;
        match self.flush(io) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        Ok(n)
    }

    /// Is an idle pooled connection still usable? Handles records that arrived meanwhile
    /// (session tickets are fine; a close_notify or data is not).
    pub fn is_alive(&mut self, io: &mut Io<'_>) -> bool {
        let mut probe = [0u8; 1];
        loop {
            match self.conn.read_tls(io) {
                Ok(0) => return false,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => return false,
            }
            match self.conn.process_new_packets() {
                Ok(st) if st.peer_has_closed() => return false,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
        matches!(self.conn.reader().read(&mut probe), Err(ref e) if e.kind() == io::ErrorKind::WouldBlock)
    }

    /// Send close_notify (best effort) before the socket is closed.
    pub fn close(&mut self, io: &mut Io<'_>) {
        self.conn.send_close_notify();
        let _ = self.flush(io);
    }

    /// The negotiated ALPN protocol.
    pub fn alpn(&self) -> Option<&[u8]> {
        self.conn.alpn_protocol()
    }

    /// The server's certificate chain, leaf first.
    pub fn peer_certificates(&self) -> Option<&[CertificateDer<'static>]> {
        self.conn.peer_certificates()
    }

    /// Did the handshake resume an earlier session?
    pub fn resumed(&self) -> bool {
        self.conn.handshake_kind() == Some(rustls::HandshakeKind::Resumed)
    }

    /// curl's `SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / id-ecPublicKey`.
    pub fn connection_summary(&self) -> String {
        let version = match self.conn.protocol_version() {
            Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3",
            Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2",
            _ => "unknown",
        };
        let suite = self
            .conn
            .negotiated_cipher_suite()
            .map(suite_name)
            .unwrap_or_default();
        let group = self
            .conn
            .negotiated_key_exchange_group()
            .and_then(|g| group_names(g).first().copied())
            .unwrap_or("unknown");
        let sig = self
            .peer_certificates()
            .and_then(|c| c.first())
            .and_then(|c| Cert::parse(c).map(|c| c.signature_type(version == "TLSv1.3")))
            .unwrap_or("unknown");
        format!("SSL connection using {version} / {suite} / {group} / {sig}")
    }
}
