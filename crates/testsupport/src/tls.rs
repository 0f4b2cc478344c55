//! A local test PKI and TLS server configurations for the scripted server and nginx.
//!
//! [`pki`] creates (once per machine, under the temp dir) a test CA and certificates for
//! `localhost`, `127.0.0.1` and `::1`: a good one, one issued by an intermediate, an expired
//! one, one not yet valid, one for the wrong name, a self-signed one, and a client
//! certificate. Validity periods are fixed dates, so the files never go stale.

use std::fs;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rcgen::{
    BasicConstraints, CertificateParams, CertificateRevocationListParams, DistinguishedName,
    DnType, IsCa, KeyIdMethod, KeyPair, KeyUsagePurpose, RevocationReason, RevokedCertParams,
    SanType, SerialNumber,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Bump when the set of generated files changes.
const PKI_VERSION: u32 = 2;

/// Paths of the generated PEM files.
#[derive(Debug, Clone)]
pub struct Pki {
    pub dir: PathBuf,
}

impl Pki {
    /// A file of the PKI (`ca.pem`, `server.pem`, `server.key`, ...).
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
    /// The test CA certificate (what `--cacert` takes).
    pub fn ca(&self) -> PathBuf {
        self.path("ca.pem")
    }
}

/// Which certificate a test server presents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerCert {
    /// Signed by the test CA; names localhost, 127.0.0.1, ::1.
    Good,
    /// Signed by an intermediate; the server sends leaf and intermediate.
    Chain,
    /// Expired in 2021.
    Expired,
    /// Valid from 2090.
    NotYetValid,
    /// Only for `wrong.example`.
    WrongName,
    /// Self-signed for localhost.
    SelfSigned,
    /// Signed by the test CA and listed in its CRL (`ca.crl`).
    Revoked,
}

impl ServerCert {
    fn files(self) -> (&'static str, &'static str) {
        match self {
            ServerCert::Good => ("server.pem", "server.key"),
            ServerCert::Chain => ("chain-server.pem", "chain-server.key"),
            ServerCert::Expired => ("expired.pem", "expired.key"),
            ServerCert::NotYetValid => ("future.pem", "future.key"),
            ServerCert::WrongName => ("wrongname.pem", "wrongname.key"),
            ServerCert::SelfSigned => ("selfsigned.pem", "selfsigned.key"),
            ServerCert::Revoked => ("revoked.pem", "revoked.key"),
        }
    }
    /// Certificate chain and key file of this server certificate.
    pub fn paths(self) -> (PathBuf, PathBuf) {
        let p = pki();
        let (c, k) = self.files();
        (p.path(c), p.path(k))
    }
}

/// The machine's test PKI, generated on first use.
pub fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| {
        let uid = fs::metadata("/proc/self")
            .map(|m| {
                use std::os::unix::fs::MetadataExt;
                m.uid()
            })
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("oxcurl-pki-{uid}-v{PKI_VERSION}"));
        if !dir.join("done").exists() {
            let tmp = std::env::temp_dir().join(format!(
                "oxcurl-pki-{uid}-v{PKI_VERSION}.{}.tmp",
                std::process::id()
            ));
            let _ = fs::remove_dir_all(&tmp);
            fs::create_dir_all(&tmp).expect("create pki dir");
            generate(&tmp);
            fs::write(tmp.join("done"), b"").expect("write pki marker");
            // Another process may have won the race; either copy is complete.
            if fs::rename(&tmp, &dir).is_err() {
                let _ = fs::remove_dir_all(&tmp);
            }
        }
        Pki { dir }
    })
}

fn dn(cn: &str) -> DistinguishedName {
    let mut d = DistinguishedName::new();
    d.push(DnType::CommonName, cn);
    d
}

fn local_sans() -> Vec<SanType> {
    vec![
        SanType::DnsName("localhost".try_into().expect("dns name")),
        SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        SanType::IpAddress(IpAddr::V6(Ipv6Addr::LOCALHOST)),
    ]
}

fn leaf_params(cn: &str, sans: Vec<SanType>, from: i32, to: i32) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.distinguished_name = dn(cn);
    p.subject_alt_names = sans;
    p.not_before = rcgen::date_time_ymd(from, 1, 1);
    p.not_after = rcgen::date_time_ymd(to, 1, 1);
    p
}

fn ca_params(cn: &str) -> CertificateParams {
    let mut p = leaf_params(cn, Vec::new(), 2020, 2099);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    p
}

fn generate(dir: &Path) {
    let w = |name: &str, data: String| fs::write(dir.join(name), data).expect("write pki file");
    let ca_key = KeyPair::generate().expect("key");
    let ca = ca_params("oxcurl test CA")
        .self_signed(&ca_key)
        .expect("ca");
    w("ca.pem", ca.pem());

    let other_key = KeyPair::generate().expect("key");
    let other = ca_params("oxcurl other CA")
        .self_signed(&other_key)
        .expect("ca");
    w("other-ca.pem", other.pem());

    let issue =
        |name: &str, params: CertificateParams, by: Option<(&rcgen::Certificate, &KeyPair)>| {
            let key = KeyPair::generate().expect("key");
            let cert = match by {
                Some((c, k)) => params.signed_by(&key, c, k).expect("sign"),
                None => params.self_signed(&key).expect("self-sign"),
            };
            w(&format!("{name}.pem"), cert.pem());
            w(&format!("{name}.key"), key.serialize_pem());
            w(&format!("{name}.pub.pem"), key.public_key_pem());
            cert
        };
    issue(
        "server",
        leaf_params("localhost", local_sans(), 2020, 2099),
        Some((&ca, &ca_key)),
    );
    issue(
        "expired",
        leaf_params("localhost", local_sans(), 2020, 2021),
        Some((&ca, &ca_key)),
    );
    issue(
        "future",
        leaf_params("localhost", local_sans(), 2090, 2099),
        Some((&ca, &ca_key)),
    );
    issue(
        "wrongname",
        leaf_params(
            "wrong.example",
            vec![SanType::DnsName("wrong.example".try_into().expect("dns"))],
            2020,
            2099,
        ),
        Some((&ca, &ca_key)),
    );
    issue(
        "selfsigned",
        leaf_params("localhost", local_sans(), 2020, 2099),
        None,
    );
    issue(
        "client",
        leaf_params("oxcurl client", Vec::new(), 2020, 2099),
        Some((&ca, &ca_key)),
    );
    // A revoked leaf and the CA's CRL listing it.
    let mut revoked = leaf_params("localhost", local_sans(), 2020, 2099);
    revoked.serial_number = Some(SerialNumber::from(0x5eed_u64));
    issue("revoked", revoked, Some((&ca, &ca_key)));
    let crl = CertificateRevocationListParams {
        this_update: rcgen::date_time_ymd(2024, 1, 1),
        next_update: rcgen::date_time_ymd(2099, 1, 1),
        crl_number: SerialNumber::from(1u64),
        issuing_distribution_point: None,
        revoked_certs: vec![RevokedCertParams {
            serial_number: SerialNumber::from(0x5eed_u64),
            revocation_time: rcgen::date_time_ymd(2024, 1, 1),
            reason_code: Some(RevocationReason::KeyCompromise),
            invalidity_date: None,
        }],
        key_identifier_method: KeyIdMethod::Sha256,
    }
    .signed_by(&ca, &ca_key)
    .expect("crl");
    w("ca.crl", crl.pem().expect("crl pem"));
    // An intermediate CA and a leaf under it; the chain file holds both.
    let int_key = KeyPair::generate().expect("key");
    let int = ca_params("oxcurl intermediate CA")
        .signed_by(&int_key, &ca, &ca_key)
        .expect("intermediate");
    let leaf = issue(
        "chain-leaf",
        leaf_params("localhost", local_sans(), 2020, 2099),
        Some((&int, &int_key)),
    );
    w("chain-server.pem", format!("{}{}", leaf.pem(), int.pem()));
    fs::copy(dir.join("chain-leaf.key"), dir.join("chain-server.key")).expect("copy key");
}

/// How a test TLS server behaves.
#[derive(Clone, Debug)]
pub struct TlsServerOptions {
    pub cert: ServerCert,
    /// ALPN protocols the server accepts (none: no ALPN answer).
    pub alpn: Vec<Vec<u8>>,
    /// Require a client certificate signed by the test CA.
    pub client_auth: bool,
    /// Only TLS 1.2 (else 1.2 and 1.3).
    pub tls12_only: bool,
}

impl Default for TlsServerOptions {
    fn default() -> TlsServerOptions {
        TlsServerOptions {
            cert: ServerCert::Good,
            alpn: vec![b"http/1.1".to_vec()],
            client_auth: false,
            tls12_only: false,
        }
    }
}

/// A rustls server configuration for these options.
pub fn server_config(o: &TlsServerOptions) -> Arc<rustls::ServerConfig> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let (cert, key) = o.cert.paths();
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&cert)
        .expect("read cert")
        .map(|c| c.expect("cert"))
        .collect();
    let key = PrivateKeyDer::from_pem_file(&key).expect("read key");
    let versions: &[&'static rustls::SupportedProtocolVersion] = if o.tls12_only {
        &[&rustls::version::TLS12]
    } else {
        &[&rustls::version::TLS12, &rustls::version::TLS13]
    };
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(versions)
        .expect("versions");
    let builder = if o.client_auth {
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_file_iter(pki().ca()).expect("ca") {
            roots.add(c.expect("ca cert")).expect("add root");
        }
        let v =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .expect("client verifier");
        builder.with_client_cert_verifier(v)
    } else {
        builder.with_no_client_auth()
    };
    let mut cfg = builder.with_single_cert(chain, key).expect("server cert");
    cfg.alpn_protocols = o.alpn.clone();
    Arc::new(cfg)
}
