//! `CURLOPT_SSLCERT_BLOB`, `CURLOPT_SSLKEY_BLOB` and their `PROXY_` forms through the C ABI:
//! tests/c/certblob.c against our library and the reference libcurl (OpenSSL) over the same
//! servers, which require a client certificate signed by the test CA; the results and error
//! texts compared.

mod common;

use std::path::{Path, PathBuf};

use common::{compile, Lib};
use openssl::pkcs12::Pkcs12;
use openssl::pkey::PKey;
use openssl::x509::X509;
use oxcurl_testsupport::http::{Reply, ScriptedServer};
use oxcurl_testsupport::pki;
use oxcurl_testsupport::process::Exec;
use oxcurl_testsupport::proxy::HttpsProxy;
use oxcurl_testsupport::tls::TlsServerOptions;

/// A directory with the client certificate and key in the forms certblob.c reads.
fn material() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxcurl-certblob-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let p = pki();
    let cert_pem = std::fs::read(p.path("client.pem")).expect("client.pem");
    let key_pem = std::fs::read(p.path("client.key")).expect("client.key");
    let cert = X509::from_pem(&cert_pem).expect("cert");
    let key = PKey::private_key_from_pem(&key_pem).expect("key");
    let w = |name: &str, data: &[u8]| std::fs::write(dir.join(name), data).expect("write");
    w("client.pem", &cert_pem);
    w("client.key", &key_pem);
    w("client.der", &cert.to_der().expect("der"));
    w(
        "client-key.der",
        &key.private_key_to_der().expect("key der"),
    );
    let mut b = Pkcs12::builder();
    b.name("oxcurl client").pkey(&key).cert(&cert);
    let p12 = b.build2("secret").expect("p12");
    w("client.p12", &p12.to_der().expect("p12 der"));
    w(
        "other.key",
        &std::fs::read(p.path("server.key")).expect("server.key"),
    );
    dir
}

fn run(lib: Lib, backend: &str, args: &[String]) -> String {
    let exe = compile("certblob", lib);
    let out = Exec::new(&exe)
        .args(args)
        .env("LD_LIBRARY_PATH", lib.dir())
        .env("CURL_SSL_BACKEND", backend)
        .run();
    let _ = std::fs::remove_file(&exe);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    out.stdout_str()
}

/// Runs certblob with each library against one origin and one proxy requiring client
/// certificates; returns (ours, reference).
fn both(backend: &str) -> (String, String) {
    let require = TlsServerOptions {
        client_auth: true,
        ..Default::default()
    };
    let s = ScriptedServer::start_tls(&require);
    s.set_handler(|_| Reply::ok("x"));
    let origin = ScriptedServer::start();
    origin.set_handler(|_| Reply::ok("y"));
    let proxy = HttpsProxy::start(&require);
    let dir = material();
    let args = vec![
        format!("https://localhost:{}/", s.addr().port()),
        dir.to_str().expect("utf-8").to_string(),
        pki().ca().to_str().expect("utf-8").to_string(),
        proxy.url(),
        format!("http://127.0.0.1:{}/", origin.port()),
    ];
    let ours = run(Lib::Ours, backend, &args);
    let reference = run(Lib::Reference, backend, &args);
    let _ = std::fs::remove_dir_all(Path::new(&dir));
    (ours, reference)
}

#[test]
fn cert_blobs_openssl_match_reference() {
    let (ours, reference) = both("openssl");
    assert_eq!(ours, reference, "ours vs reference");
    for ok in [
        "pem blobs",
        "pem blob, key in it",
        "der blobs",
        "p12 blob",
        "duplicate",
        "nocopy blobs",
        "proxy blobs",
    ] {
        assert!(
            ours.contains(&format!("{ok}: rc=0 err=[]\n")),
            "{ok}: {ours}"
        );
    }
    assert!(
        ours.contains("junk p12: rc=58 err=[error reading PKCS12 file '(memory blob)']\n"),
        "{ours}"
    );
    assert!(!ours.contains("unset: rc=0 "), "{ours}");
    assert!(ours.contains("too long=43\n"), "{ours}");
    assert!(!ours.contains("after too long: rc=0 "), "{ours}");
}

/// With rustls: what it can load is loaded as with OpenSSL. Error texts keep curl's OpenSSL
/// wording up to OpenSSL's own error string (rustls has none to give); PKCS#12 needs OpenSSL,
/// so those cases fail with `CURLE_SSL_CERTPROBLEM` instead.
#[test]
fn cert_blobs_rustls_match_reference() {
    let (ours, reference) = both("rustls");
    let cut = |l: &str| match l.find(", OpenSSL error") {
        Some(i) => format!("{}]", &l[..i]),
        None => l.to_string(),
    };
    let (mut n, mut p12) = (0, 0);
    for (o, r) in ours.lines().zip(reference.lines()) {
        n += 1;
        if o.starts_with("p12 blob") || o.starts_with("junk p12") {
            p12 += 1;
            assert!(o.contains(": rc=58 err=["), "{o}");
            continue;
        }
        if r.contains("alert certificate required") {
            // rustls words the server's alert its own way.
            assert!(o.contains(": rc=56 "), "{o} vs {r}");
            assert_eq!(o.split(" err=").next(), r.split(" err=").next());
            continue;
        }
        assert_eq!(cut(o), cut(r));
    }
    assert_eq!(n, reference.lines().count(), "{ours}");
    assert_eq!(n, ours.lines().count(), "{ours}");
    assert_eq!(p12, 4, "{ours}");
}
