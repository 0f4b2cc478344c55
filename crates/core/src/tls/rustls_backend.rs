//! The rustls backend (aws-lc-rs provider): building client configurations from curl's
//! options, certificate verification with OpenSSL-worded failures, and a non-blocking session
//! driven over the connection's socket.

use std::io::{self, Read};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientConnectionData, UnbufferedClientConnection};
use rustls::client::{Resumption, WebPkiServerVerifier};
use rustls::crypto::{CryptoProvider, SupportedKxGroup};
use rustls::kernel::KernelConnection;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::unbuffered::{ConnectionState, EncodeError};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, OtherError, RootCertStore,
    SignatureScheme, SupportedCipherSuite,
};

use super::record::{self, Records};
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

/// The OpenSSL verify code of a handshake that failed with `e`: what the verifier found
/// wrong with the chain, as [`Verifier`] words it; 1 (curl's start value) for a name that
/// does not match (curl checks it before it takes the result) and anything else.
fn verify_code_of(e: &rustls::Error) -> i64 {
    let rustls::Error::InvalidCertificate(e) = e else {
        return 1;
    };
    match e {
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => 10,
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => 9,
        CertificateError::UnknownIssuer => 20,
        CertificateError::Other(o) => match o.0.downcast_ref::<CertProblem>() {
            Some(p) if p.0 == "self-signed certificate" => 18,
            Some(p) if p.0 == "self-signed certificate in certificate chain" => 19,
            _ => 1,
        },
        _ => 1,
    }
}

/// OpenSSL's codes for a chain it cannot complete: a self-issued leaf (18), a self-issued
/// certificate in the chain (19), else no local issuer (20).
fn untrusted_code(end_entity: &CertificateDer<'_>, intermediates: &[CertificateDer<'_>]) -> i64 {
    if Cert::parse(end_entity).is_some_and(|c| c.is_self_issued()) {
        18
    } else if intermediates
        .iter()
        .any(|c| Cert::parse(c).is_some_and(|c| c.is_self_issued()))
    {
        19
    } else {
        20
    }
}

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
    if let Some(blob) = &opts.ca_blob {
        // As curl's backends: the blob replaces the CA file and must hold a certificate (the
        // error in the OpenSSL backend's words, as the CA file's is).
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(blob)
            .filter_map(|c| c.ok())
            .collect();
        if certs.is_empty() {
            return Err(Error::new(
                Code::SslCacertBadfile,
                "error importing CA certificate blob",
            ));
        }
        roots.add_parsable_certificates(certs);
        return Ok(roots);
    }
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

/// A client certificate chain, its key, and the error for a key that does not fit it.
type ClientAuth = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>, Error);

/// The client certificate and key, as curl's OpenSSL backend finds them: the certificate
/// from `CURLOPT_SSLCERT_BLOB` or the file, the key from the key blob, the key file, or else
/// where the certificate came from, as the certificate's type. PKCS#12 needs OpenSSL.
fn client_auth(opts: &TlsOptions) -> Result<Option<ClientAuth>, Error> {
    let cert_file = opts.cert.as_deref();
    let cert_blob = opts.cert_blob();
    if cert_file.is_none() && cert_blob.is_none() {
        return Ok(None);
    }
    let problem = |msg: String| Error::new(Code::SslCertproblem, msg);
    let cert_name = match cert_blob {
        Some(_) => "CURLOPT_SSLCERT_BLOB",
        None => cert_file.unwrap_or("(nil)"),
    };
    let kind = |t: Option<&str>| match t.unwrap_or("PEM").to_ascii_uppercase().as_str() {
        "" | "PEM" => Some(false),
        "DER" => Some(true),
        _ => None,
    };
    let Some(der) = kind(opts.cert_type.as_deref()) else {
        return Err(problem(format!(
            "not supported file type '{}' for certificate",
            opts.cert_type.as_deref().unwrap_or("")
        )));
    };
    let what = if der { "ASN1" } else { "PEM" };
    let bad_cert = || {
        problem(format!(
            "could not load {what} client certificate from {cert_name}"
        ))
    };
    let data: Vec<u8> = match cert_blob {
        Some(b) => b.to_vec(),
        None => std::fs::read(cert_file.unwrap_or("")).map_err(|_| bad_cert())?,
    };
    let chain: Vec<CertificateDer<'static>> = if der {
        // One certificate, whole: a blob that is not one fails here, as with OpenSSL.
        match super::x509::Cert::parse(&data) {
            Some(_) => vec![CertificateDer::from(data.clone())],
            None => Vec::new(),
        }
    } else {
        CertificateDer::pem_slice_iter(&data)
            .filter_map(|c| c.ok())
            .collect()
    };
    if chain.is_empty() {
        return Err(bad_cert());
    }
    let (key_file, key_blob, key_der) = if opts.key.is_none() && opts.key_blob().is_none() {
        (cert_file, cert_blob, Some(der))
    } else {
        (
            opts.key.as_deref(),
            opts.key_blob(),
            kind(opts.key_type.as_deref()),
        )
    };
    let Some(key_der) = key_der else {
        return Err(problem(match opts.key_type.as_deref() {
            Some(t) if t.eq_ignore_ascii_case("P12") => {
                "file type P12 for private key not supported".into()
            }
            _ => "not supported file type for private key".into(),
        }));
    };
    let unable = || {
        problem(format!(
            "unable to set private key file: '{}' type {}",
            key_file.unwrap_or("(memory blob)"),
            opts.key_type.as_deref().unwrap_or("PEM")
        ))
    };
    let kdata: Vec<u8> = match key_blob {
        Some(b) => b.to_vec(),
        None if key_file == cert_file && cert_blob.is_none() => data,
        None => std::fs::read(key_file.unwrap_or("")).map_err(|_| unable())?,
    };
    let key = match key_der {
        true => PrivateKeyDer::try_from(kdata).ok(),
        false => PrivateKeyDer::from_pem_slice(&kdata).ok(),
    };
    let key = key.ok_or_else(unable)?;
    Ok(Some((chain, key, unable())))
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
        // OpenSSL refuses a key that does not match the certificate as one it cannot set.
        Some((chain, key, unfit)) => builder
            .with_client_auth_cert(chain, key)
            .map_err(|_| unfit)?,
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = alpn.iter().map(|a| a.to_vec()).collect();
    config.key_log = Arc::new(rustls::KeyLogFile::new());
    // The session takes the record layer over after the handshake (record.rs).
    config.enable_secret_extraction = true;
    if !opts.session_cache {
        config.resumption = Resumption::disabled();
    }
    Ok(Arc::new(config))
}

/// A TLS session over a connection's socket: rustls' unbuffered connection for the
/// handshake, then our own record layer (`record.rs`) with rustls' `KernelConnection` keeping
/// the key schedule, so received records are decrypted in place.
pub struct Session {
    state: State,
    host: String,
    /// What the handshake settled, kept when rustls' connection is taken apart.
    info: Info,
    /// OpenSSL's verify code for the server's chain, as curl reports it (1, curl's start
    /// value, until a certificate was checked).
    verify_code: i64,
    /// The chain is verified (not `-k`).
    verify_peer: bool,
}

#[allow(clippy::large_enum_variant)]
enum State {
    Handshake(Box<Hs>),
    Records(Box<Records<KernelConnection<ClientConnectionData>>>),
    /// Between the two, or after a failed conversion.
    Gone,
}

#[derive(Default)]
struct Info {
    alpn: Option<Vec<u8>>,
    certs: Option<Vec<CertificateDer<'static>>>,
    resumed: bool,
    version: Option<rustls::ProtocolVersion>,
    suite: Option<SupportedCipherSuite>,
    group: Option<&'static dyn SupportedKxGroup>,
}

/// The handshake: rustls' unbuffered connection and the bytes it works in.
struct Hs {
    conn: UnbufferedClientConnection,
    /// Received: `rx[start..end]` not yet discarded by rustls.
    rx: Vec<u8>,
    start: usize,
    end: usize,
    /// Records to send: `tx[tx_pos..]`.
    tx: Vec<u8>,
    tx_pos: usize,
    /// Application data that came with the end of the handshake.
    early: Vec<u8>,
    eof: bool,
}

/// Why a handshake step stopped.
enum HsStop {
    Want(Handshake),
    Convert,
    Tls(rustls::Error),
    Io(io::Error),
    Closed,
}

/// The receive buffer may grow during the handshake up to this (a handshake message is at
/// most 64 KiB, in records).
const HS_RX_MAX: usize = 4 * record::RX_CAPACITY;

impl Hs {
    fn flush(&mut self, io: &mut Io<'_>) -> io::Result<()> {
        record::write_queued(io, &mut self.tx, &mut self.tx_pos)
    }

    fn encode(
        tx: &mut Vec<u8>,
        enc: &mut rustls::unbuffered::EncodeTlsData<'_, ClientConnectionData>,
    ) -> Result<(), rustls::Error> {
        let used = tx.len();
        let need = match enc.encode(&mut []) {
            Ok(_) => return Ok(()),
            Err(EncodeError::InsufficientSize(s)) => s.required_size,
            Err(e) => return Err(rustls::Error::General(e.to_string())),
        };
        tx.resize(used + need, 0);
        let n = enc
            .encode(&mut tx[used..])
            .map_err(|e| rustls::Error::General(e.to_string()))?;
        tx.truncate(used + n);
        Ok(())
    }

    /// Advance until the socket blocks, the handshake is done, or it fails.
    fn step(&mut self, io: &mut Io<'_>) -> HsStop {
        loop {
            match self.flush(io) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    return HsStop::Want(Handshake::WantWrite)
                }
                Err(e) => return HsStop::Io(e),
            }
            let (from, to) = (self.start, self.end);
            let status = self.conn.process_tls_records(&mut self.rx[from..to]);
            let mut discard = status.discard;
            let mut read = false;
            match status.state {
                Err(e) => {
                    self.start += discard;
                    return HsStop::Tls(e);
                }
                Ok(ConnectionState::EncodeTlsData(mut enc)) => {
                    if let Err(e) = Self::encode(&mut self.tx, &mut enc) {
                        return HsStop::Tls(e);
                    }
                }
                Ok(ConnectionState::TransmitTlsData(t)) => t.done(),
                Ok(ConnectionState::BlockedHandshake) => read = true,
                Ok(ConnectionState::ReadTraffic(mut r)) => {
                    while let Some(rec) = r.next_record() {
                        match rec {
                            Ok(rec) => {
                                discard += rec.discard;
                                self.early.extend_from_slice(rec.payload);
                            }
                            Err(e) => return HsStop::Tls(e),
                        }
                    }
                }
                Ok(ConnectionState::WriteTraffic(_)) => {
                    // Done. rustls holds part of a handshake message only in whole records
                    // left in the buffer; then its state waits for the rest.
                    if !record::holds_whole_record(&self.rx[from + discard..to]) {
                        self.start += discard;
                        return HsStop::Convert;
                    }
                    read = true;
                }
                Ok(ConnectionState::PeerClosed | ConnectionState::Closed) => return HsStop::Closed,
                Ok(_) => {
                    return HsStop::Tls(rustls::Error::General(
                        "unexpected TLS connection state".into(),
                    ))
                }
            }
            self.start += discard;
            if !read {
                continue;
            }
            if self.eof {
                return HsStop::Closed;
            }
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
            } else if self.end == self.rx.len() {
                if self.start > 0 {
                    self.rx.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.start = 0;
                } else if self.rx.len() < HS_RX_MAX {
                    self.rx.resize(self.rx.len() * 2, 0);
                } else {
                    return HsStop::Tls(rustls::Error::InvalidMessage(
                        rustls::InvalidMessage::HandshakePayloadTooLarge,
                    ));
                }
            }
            match io.read(&mut self.rx[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    return HsStop::Want(Handshake::WantRead)
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return HsStop::Io(e),
            }
        }
    }

    /// After a failure: send the alert rustls queued, best effort. rustls hands queued
    /// records out before it looks at the input again, so one call gets the alert without
    /// failing on the same bytes a second time.
    fn send_alert(&mut self, io: &mut Io<'_>) {
        let (from, to) = (self.start, self.end);
        let status = self.conn.process_tls_records(&mut self.rx[from..to]);
        if let Ok(ConnectionState::EncodeTlsData(mut enc)) = status.state {
            let _ = Self::encode(&mut self.tx, &mut enc);
        }
        let _ = self.flush(io);
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("host", &self.host).finish()
    }
}

fn recv_error(e: record::Failure) -> io::Error {
    match e {
        record::Failure::Io(e) => e,
        record::Failure::Tls(e) => {
            super::io_error(Error::new(Code::RecvError, format!("TLS recv error: {e}")))
        }
        record::Failure::Truncated => super::io_error(Error::new(
            Code::RecvError,
            "TLS recv error: peer closed the connection without sending close_notify",
        )),
    }
}

fn not_ready() -> io::Error {
    io::ErrorKind::WouldBlock.into()
}

impl Session {
    /// Start a session to `host` (a name or an IP literal, no brackets); no SNI for IPs.
    pub fn new(config: Arc<ClientConfig>, host: &str, verify_peer: bool) -> Result<Session, Error> {
        let name = ServerName::try_from(host.to_string()).map_err(|_| {
            connect_error(format!("TLS connect error: invalid server name '{host}'"))
        })?;
        let conn = UnbufferedClientConnection::new(config, name)
            .map_err(|e| connect_error(format!("TLS connect error: {e}")))?;
        Ok(Session {
            state: State::Handshake(Box::new(Hs {
                conn,
                rx: vec![0; record::RX_CAPACITY],
                start: 0,
                end: 0,
                tx: Vec::new(),
                tx_pos: 0,
                early: Vec::new(),
                eof: false,
            })),
            host: host.to_string(),
            info: Info::default(),
            verify_code: 1,
            verify_peer,
        })
    }

    /// OpenSSL's verify code for the server's chain (curl's `CURLINFO_SSL_VERIFYRESULT`).
    pub fn verify_result(&self) -> i64 {
        self.verify_code
    }

    /// Advance the handshake as far as the socket allows.
    pub fn handshake(&mut self, io: &mut Io<'_>) -> Result<Handshake, Error> {
        let State::Handshake(hs) = &mut self.state else {
            return Ok(Handshake::Done);
        };
        match hs.step(io) {
            HsStop::Want(w) => Ok(w),
            HsStop::Convert => {
                let r = self.convert();
                // With -k curl loads no CA: OpenSSL's result is that of a chain without a
                // trusted root; a verified chain is 0 (the name is curl's own check).
                self.verify_code = match &self.info.certs {
                    Some(c) if !self.verify_peer && !c.is_empty() => untrusted_code(&c[0], &c[1..]),
                    _ => 0,
                };
                r
            }
            HsStop::Tls(e) => {
                self.verify_code = verify_code_of(&e);
                hs.send_alert(io);
                Err(self.map_error(&e, true))
            }
            HsStop::Io(e) => Err(connect_error(format!(
                "TLS connect error: {}",
                crate::connect::os_error_text(&e)
            ))),
            HsStop::Closed => Err(connect_error(
                "TLS connect error: peer closed the connection during the handshake",
            )),
        }
    }

    /// The handshake is done: keep what it settled, and take over the record layer.
    fn convert(&mut self) -> Result<Handshake, Error> {
        let State::Handshake(hs) = std::mem::replace(&mut self.state, State::Gone) else {
            return Ok(Handshake::Done);
        };
        let hs = *hs;
        let c = &hs.conn;
        self.info = Info {
            alpn: c.alpn_protocol().map(<[u8]>::to_vec),
            certs: c
                .peer_certificates()
                .map(<[CertificateDer<'static>]>::to_vec),
            resumed: c.handshake_kind() == Some(rustls::HandshakeKind::Resumed),
            version: c.protocol_version(),
            suite: c.negotiated_cipher_suite(),
            group: c.negotiated_key_exchange_group(),
        };
        let fail = |e: rustls::Error| connect_error(format!("TLS connect error: {e}"));
        let (secrets, kernel) = hs.conn.dangerous_into_kernel_connection().map_err(fail)?;
        let suite = kernel.negotiated_cipher_suite();
        let records = Records::new(
            kernel, suite, secrets.rx, secrets.tx, hs.rx, hs.start, hs.end, hs.early,
        )
        .map_err(fail)?;
        self.state = State::Records(Box::new(records));
        Ok(Handshake::Done)
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
        let leaf = self.peer_certificates().and_then(|c| c.first());
        let cert = leaf.and_then(|c| Cert::parse(c));
        super::x509::mismatch_message(cert.as_ref(), &self.host)
    }

    /// Write out queued TLS records; WouldBlock while some remain.
    pub fn flush(&mut self, io: &mut Io<'_>) -> io::Result<()> {
        match &mut self.state {
            State::Handshake(hs) => hs.flush(io),
            State::Records(r) => r.flush(io),
            State::Gone => Ok(()),
        }
    }

    /// Are TLS records waiting for the socket to become writable?
    pub fn wants_write(&self) -> bool {
        match &self.state {
            State::Handshake(hs) => hs.tx_pos < hs.tx.len(),
            State::Records(r) => r.wants_write(),
            State::Gone => false,
        }
    }

    /// Decrypted bytes into `buf`; Ok(0) at the peer's close_notify; WouldBlock when the
    /// socket has nothing more.
    pub fn recv(&mut self, io: &mut Io<'_>, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.state {
            State::Records(r) => r.recv(io, buf).map_err(recv_error),
            _ => Err(not_ready()),
        }
    }

    /// See [`Records::input_drained`]; false during the handshake.
    pub fn input_drained(&self) -> bool {
        match &self.state {
            State::Records(r) => r.input_drained(),
            _ => false,
        }
    }

    /// Encrypt up to `buf.len()` bytes; queued records beyond what the socket takes wait
    /// for [`Session::flush`]. WouldBlock while earlier records are still queued.
    pub fn send(&mut self, io: &mut Io<'_>, buf: &[u8]) -> io::Result<usize> {
        match &mut self.state {
            State::Records(r) => r.send(io, buf).map_err(|e| match e {
                record::Failure::Io(e) => e,
                record::Failure::Tls(e) => {
                    super::io_error(Error::new(Code::SendError, format!("TLS send error: {e}")))
                }
                record::Failure::Truncated => io::ErrorKind::BrokenPipe.into(),
            }),
            _ => Err(not_ready()),
        }
    }

    /// Is an idle pooled connection still usable? Handles records that arrived meanwhile
    /// (session tickets are fine; a close_notify or data is not).
    pub fn is_alive(&mut self, io: &mut Io<'_>) -> bool {
        match &mut self.state {
            State::Records(r) => r.is_alive(io),
            _ => false,
        }
    }

    /// Send close_notify (best effort) before the socket is closed.
    pub fn close(&mut self, io: &mut Io<'_>) {
        if let State::Records(r) = &mut self.state {
            r.close(io);
        }
    }

    fn common(&self) -> Option<&rustls::CommonState> {
        match &self.state {
            State::Handshake(hs) => Some(&hs.conn),
            _ => None,
        }
    }

    /// The negotiated ALPN protocol.
    pub fn alpn(&self) -> Option<&[u8]> {
        match self.common() {
            Some(c) => c.alpn_protocol(),
            None => self.info.alpn.as_deref(),
        }
    }

    /// The server's certificate chain, leaf first.
    pub fn peer_certificates(&self) -> Option<&[CertificateDer<'static>]> {
        match self.common() {
            Some(c) => c.peer_certificates(),
            None => self.info.certs.as_deref(),
        }
    }

    /// Did the handshake resume an earlier session?
    pub fn resumed(&self) -> bool {
        match self.common() {
            Some(c) => c.handshake_kind() == Some(rustls::HandshakeKind::Resumed),
            None => self.info.resumed,
        }
    }

    /// curl's `SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / id-ecPublicKey`.
    pub fn connection_summary(&self) -> String {
        let (version, suite, group) = match self.common() {
            Some(c) => (
                c.protocol_version(),
                c.negotiated_cipher_suite(),
                c.negotiated_key_exchange_group(),
            ),
            None => (self.info.version, self.info.suite, self.info.group),
        };
        let version = match version {
            Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3",
            Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2",
            _ => "unknown",
        };
        let suite = suite.map(suite_name).unwrap_or_default();
        let group = group
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
