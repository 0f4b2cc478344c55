//! OpenSSL client session resumption, as curl's OpenSSL backend does it: every new session a
//! server hands out (at the handshake for TLS 1.2, in a ticket after it for TLS 1.3) is kept per
//! peer, and the next connection to that peer offers it.
//!
//! The sessions of a context live in that context's own ex_data, and [`resume`] only looks in
//! the store of the context the `Ssl` was made from. That is the contract the `openssl` crate
//! states for `SslRef::set_session` (the session must belong to the same `SslContext`), held by
//! construction, so the functions here are safe.
//!
//! And the handshake message trace (curl's `ossl_trace`): OpenSSL reports each message a
//! connection sends or receives to a callback, which keeps it in that connection's own
//! trace (ex_data of its `SSL`) while the trace is on. Nothing is per thread: a connection
//! may be driven from one thread, then another.
//!
//! And the trust store a connection verifies its peer against, set once its ClientHello is
//! out ([`use_trust_store`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use foreign_types::ForeignTypeRef;
use openssl::ex_data::Index;
use openssl::ssl::{
    MidHandshakeSslStream, Ssl, SslContext, SslContextBuilder, SslRef, SslSession,
    SslSessionCacheMode, SslStream, SslVersion,
};
use openssl::x509::store::X509StoreRef;

/// How many peers' sessions one context keeps (curl's default session cache holds 25).
const MAX_PEERS: usize = 25;

/// A kept session: whether it is TLS 1.3 (single use), the ALPN protocol its connection
/// had agreed on when the session came, and the session in DER.
struct Kept {
    tls13: bool,
    alpn: Option<Vec<u8>>,
    der: Vec<u8>,
}

/// Per peer, its kept session.
type Store = Mutex<HashMap<String, Kept>>;

fn store_index() -> Option<Index<SslContext, Store>> {
    static I: OnceLock<Option<Index<SslContext, Store>>> = OnceLock::new();
    *I.get_or_init(|| SslContext::new_ex_index().ok())
}

fn peer_index() -> Option<Index<Ssl, String>> {
    static I: OnceLock<Option<Index<Ssl, String>>> = OnceLock::new();
    *I.get_or_init(|| Ssl::new_ex_index().ok())
}

/// Make contexts built from `b` keep the sessions their connections get, per peer.
pub fn enable_client_sessions(b: &mut SslContextBuilder) {
    let (Some(store), Some(peer)) = (store_index(), peer_index()) else {
        return;
    };
    b.set_ex_data(store, Mutex::new(HashMap::new()));
    b.set_session_cache_mode(SslSessionCacheMode::CLIENT | SslSessionCacheMode::NO_INTERNAL);
    b.set_new_session_callback(move |ssl, session| {
        let Some(key) = ssl.ex_data(peer) else {
            return;
        };
        let Some(store) = ssl.ssl_context().ex_data(store) else {
            return;
        };
        let Ok(mut map) = store.lock() else {
            return;
        };
        if map.len() >= MAX_PEERS && !map.contains_key(key) {
            // Forget one peer to make room; which one matters little for a bounded cache.
            if let Some(k) = map.keys().next().cloned() {
                map.remove(&k);
            }
        }
        // Kept serialized, as curl keeps them: OpenSSL marks a live session object not
        // resumable when its connection ends without a close_notify, which a copy escapes.
        if let Ok(der) = session.to_der() {
            let tls13 = session.protocol_version() == SslVersion::TLS1_3;
            // curl notes the negotiated protocol once its handshake call returns: a TLS 1.2
            // session, which comes during the handshake (no tickets), is kept without one; a
            // TLS 1.3 ticket comes after it.
            let alpn = tls13
                .then(|| ssl.selected_alpn_protocol().map(<[u8]>::to_vec))
                .flatten();
            map.insert(key.clone(), Kept { tls13, alpn, der });
        }
    });
}

/// Name the peer of `ssl` (its new sessions are kept under `peer`) and offer the session kept
/// for it, if its context has one. Returns, when a session was offered, the ALPN protocol its
/// connection had agreed on (curl's "SSL reusing session with ALPN" note names it). A TLS 1.3
/// session is taken out of the store (its ticket is meant for one use; the server sends new
/// ones).
pub fn resume(ssl: &mut SslRef, peer: &str) -> Option<Option<Vec<u8>>> {
    let (Some(store), Some(peer_idx)) = (store_index(), peer_index()) else {
        return None;
    };
    ssl.set_ex_data(peer_idx, peer.to_string());
    let (session, alpn) = {
        let store = ssl.ssl_context().ex_data(store)?;
        let mut map = store.lock().ok()?;
        let kept = match map.get(peer) {
            Some(k) if k.tls13 => map.remove(peer)?,
            Some(k) => Kept {
                tls13: false,
                alpn: k.alpn.clone(),
                der: k.der.clone(),
            },
            None => return None,
        };
        (SslSession::from_der(&kept.der).ok()?, kept.alpn)
    };
    // SAFETY: `session` is a copy of one the new-session callback installed on this very
    // context stored (the store is the context's own ex_data, reached through
    // `ssl.ssl_context()`), so it belongs with the same `SslContext` as `ssl`, which is what
    // `SslRef::set_session` requires. OpenSSL takes its own reference to the session.
    let set = unsafe { ssl.set_session(&session).is_ok() };
    set.then_some(alpn)
}

// ---- handshake message trace -----------------------------------------------------------------

/// One message OpenSSL's message callback reported: sent (`out`) or received, the protocol
/// version (`TLS1_3_VERSION`...; 0 for a record header before one is chosen), the content
/// type (22 handshake, 21 alert, 20 change cipher spec; 256 a record header, 257 the inner
/// content type of a TLS 1.3 record) and the bytes. `seq` orders the messages of several
/// connections (TLS inside TLS reports on both): a later message has a higher one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsMessage {
    pub seq: u64,
    pub out: bool,
    pub version: i32,
    pub content_type: i32,
    pub bytes: Vec<u8>,
}

/// The messages of one connection while its trace is on ([`trace_on`]); None while off,
/// when the callback keeps nothing. It lives in the connection's `SSL` (ex_data), so it
/// goes wherever the connection goes, from thread to thread, and ends with it.
type TraceSlot = Mutex<Option<Vec<TlsMessage>>>;

fn trace_index() -> Option<Index<Ssl, TraceSlot>> {
    static I: OnceLock<Option<Index<Ssl, TraceSlot>>> = OnceLock::new();
    *I.get_or_init(|| Ssl::new_ex_index().ok())
}

/// The order of messages across connections ([`TlsMessage::seq`]).
static SEQ: AtomicU64 = AtomicU64::new(0);

type MsgCallback = unsafe extern "C" fn(
    write_p: std::ffi::c_int,
    version: std::ffi::c_int,
    content_type: std::ffi::c_int,
    buf: *const std::ffi::c_void,
    len: usize,
    ssl: *mut std::ffi::c_void,
    arg: *mut std::ffi::c_void,
);

extern "C" {
    fn SSL_CTX_set_msg_callback(ctx: *mut std::ffi::c_void, cb: Option<MsgCallback>);
    fn SSL_get_early_data_status(ssl: *const std::ffi::c_void) -> std::ffi::c_int;
    fn SSL_alert_desc_string_long(value: std::ffi::c_int) -> *const std::ffi::c_char;
    fn X509_verify_cert_error_string(n: std::ffi::c_long) -> *const std::ffi::c_char;
    fn SSL_ctrl(
        ssl: *mut std::ffi::c_void,
        cmd: std::ffi::c_int,
        larg: std::ffi::c_long,
        parg: *mut std::ffi::c_void,
    ) -> std::ffi::c_long;
}

/// A place in the order of the messages ([`TlsMessage::seq`]) for something else that
/// happens between them (a note of the backend).
pub fn next_seq() -> u64 {
    SEQ.fetch_add(1, Ordering::Relaxed)
}

/// `SSL_CTRL_SET_VERIFY_CERT_STORE` and `SSL_CTRL_SET_CHAIN_CERT_STORE` (ssl.h).
const SET_VERIFY_CERT_STORE: std::ffi::c_int = 106;
const SET_CHAIN_CERT_STORE: std::ffi::c_int = 107;

/// Verify the peer of the connection in `m` against `store`, and complete the connection's
/// own certificate chain from it (`SSL_set1_verify_cert_store`, `SSL_set1_chain_cert_store`):
/// what curl's OpenSSL backend gets by filling its context's store, once the ClientHello is
/// out. The store stays shared: the connection takes a reference of its own (OpenSSL counts
/// them), so one loaded store serves every connection with the same CA options. False if
/// OpenSSL refused.
pub fn use_trust_store<S>(m: &mut MidHandshakeSslStream<S>, store: &X509StoreRef) -> bool {
    set_trust_store(m.ssl(), store)
}

/// [`use_trust_store`] for a connection whose handshake its stream drives itself (a
/// handshake that sends early data first).
pub fn use_trust_store_early<S>(s: &mut SslStream<S>, store: &X509StoreRef) -> bool {
    set_trust_store(s.ssl(), store)
}

/// Both take the connection by `&mut`, so nothing else uses its `SSL` meanwhile.
fn set_trust_store(ssl: &SslRef, store: &X509StoreRef) -> bool {
    let ssl = ssl.as_ptr().cast::<std::ffi::c_void>();
    let st = store.as_ptr().cast::<std::ffi::c_void>();
    // SAFETY: `ssl` and `st` are live objects, borrowed for the call; the callers' `&mut` on
    // the stream means nothing else uses its `SSL` meanwhile. The "set1" form (larg 1) makes
    // OpenSSL take its own reference to the store, which it drops when the `SSL` is freed or
    // given another store; ours stays with the caller.
    unsafe {
        SSL_ctrl(ssl, SET_VERIFY_CERT_STORE, 1, st) == 1
            && SSL_ctrl(ssl, SET_CHAIN_CERT_STORE, 1, st) == 1
    }
}

/// `SSL_EARLY_DATA_ACCEPTED` (ssl.h); the other answers are "not sent" (0) and "rejected" (1).
const EARLY_DATA_ACCEPTED: std::ffi::c_int = 2;

/// Did the server take the early data of the connection's handshake
/// (`SSL_get_early_data_status`)? Meaningful once the handshake is done.
pub fn early_data_accepted(ssl: &SslRef) -> bool {
    let p = ssl.as_ptr().cast::<std::ffi::c_void>();
    // SAFETY: `p` is the live `SSL` behind `ssl`, borrowed for the call, which only reads it.
    unsafe { SSL_get_early_data_status(p) == EARLY_DATA_ACCEPTED }
}

/// `SSL_CTRL_GET_NEGOTIATED_GROUP` (ssl.h).
const GET_NEGOTIATED_GROUP: std::ffi::c_int = 134;

/// The short name of the group the connection's key exchange used, as curl's OpenSSL backend
/// names it for OpenSSL 3.0 (`OBJ_nid2sn(SSL_get_negotiated_group(ssl) & 0xFFFF)`); a resumed
/// TLS 1.2 session has it from the session, where there was no key exchange this time.
pub fn negotiated_group(ssl: &SslRef) -> Option<&'static str> {
    let p = ssl.as_ptr().cast::<std::ffi::c_void>();
    // SAFETY: `ssl` is a live `SSL`, borrowed for the call; this control only reads the
    // connection's (or its session's) group id and takes no pointer argument.
    let nid = unsafe { SSL_ctrl(p, GET_NEGOTIATED_GROUP, 0, std::ptr::null_mut()) };
    let nid = i32::try_from(nid & 0xFFFF).ok()?;
    openssl::nid::Nid::from_raw(nid).short_name().ok()
}

extern "C" {
    fn BIO_new_mem_buf(buf: *const std::ffi::c_void, len: std::ffi::c_int)
        -> *mut std::ffi::c_void;
    fn BIO_free(b: *mut std::ffi::c_void) -> std::ffi::c_int;
    fn d2i_X509_bio(
        bp: *mut std::ffi::c_void,
        x: *mut *mut std::ffi::c_void,
    ) -> *mut std::ffi::c_void;
}

/// A DER certificate read as curl reads a DER client certificate blob, with `d2i_X509_bio`
/// over a memory BIO: OpenSSL takes the DER object whole from the BIO before decoding it, so
/// a short or junk blob fails with its "not enough data" where `X509::from_der` would say
/// "too long".
pub fn x509_from_der_bio(data: &[u8]) -> Result<openssl::x509::X509, openssl::error::ErrorStack> {
    use foreign_types::ForeignType;
    openssl::init();
    let len = std::ffi::c_int::try_from(data.len()).unwrap_or(std::ffi::c_int::MAX);
    // SAFETY: a read-only memory BIO over `len` bytes of `data`, which outlives the BIO (it
    // is freed below, before returning).
    let bio = unsafe { BIO_new_mem_buf(data.as_ptr().cast(), len) };
    if bio.is_null() {
        return Err(openssl::error::ErrorStack::get());
    }
    // SAFETY: `bio` is the live BIO above; a NULL second argument asks for a new X509.
    let x = unsafe { d2i_X509_bio(bio, std::ptr::null_mut()) };
    // SAFETY: `bio` is ours, freed once; the X509 does not refer to it.
    unsafe { BIO_free(bio) };
    if x.is_null() {
        return Err(openssl::error::ErrorStack::get());
    }
    // SAFETY: `x` is a new X509 whose one reference is handed to the wrapper.
    Ok(unsafe { openssl::x509::X509::from_ptr(x.cast()) })
}

/// OpenSSL's text for a verify code (`X509_verify_cert_error_string`): any code, known or
/// not ("unknown certificate verification error").
pub fn verify_error_text(code: i64) -> String {
    // A code that does not fit (a 32-bit long) reads as one OpenSSL does not know.
    let n = std::ffi::c_long::try_from(code).unwrap_or(std::ffi::c_long::MAX);
    // SAFETY: the function takes any long and returns a pointer to a static NUL-terminated
    // string (a fixed table entry, or a static buffer with a generic message), never NULL.
    let p = unsafe { X509_verify_cert_error_string(n) };
    if p.is_null() {
        return "unknown certificate verification error".to_string();
    }
    // SAFETY: `p` is a NUL-terminated C string from OpenSSL (above).
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

/// OpenSSL calls this from inside `SSL_connect`, `SSL_read`, `SSL_write`... on the
/// connection `ssl`: the message joins that connection's trace, if it is on.
///
/// # Safety
/// OpenSSL's contract for a message callback: `ssl` is the live `SSL` making the call and
/// `buf` points to `len` readable bytes, both for the duration of the call.
unsafe extern "C" fn on_message(
    write_p: std::ffi::c_int,
    version: std::ffi::c_int,
    content_type: std::ffi::c_int,
    buf: *const std::ffi::c_void,
    len: usize,
    ssl: *mut std::ffi::c_void,
    _arg: *mut std::ffi::c_void,
) {
    if (write_p != 0 && write_p != 1) || ssl.is_null() {
        return;
    }
    let Some(idx) = trace_index() else {
        return;
    };
    // SAFETY: `ssl` is the `SSL` whose call reports the message (the contract above), alive
    // and not freed during the call; only shared access is taken (its ex_data, read), which
    // OpenSSL's own callers of the callback allow.
    let ssl = unsafe { SslRef::from_ptr(ssl.cast::<<SslRef as ForeignTypeRef>::CType>()) };
    let Some(slot) = ssl.ex_data(idx) else {
        return;
    };
    // Nothing here may unwind into OpenSSL, nor wait: no lock that can block, no panic.
    // (The slot is locked elsewhere only briefly, never around an OpenSSL call.)
    let Ok(mut slot) = slot.try_lock() else {
        return;
    };
    let Some(list) = slot.as_mut() else {
        return;
    };
    let bytes = if buf.is_null() || len == 0 {
        Vec::new()
    } else {
        // SAFETY: OpenSSL hands `len` valid bytes at `buf` for this call (the contract
        // above); they are copied before returning.
        unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), len) }.to_vec()
    };
    list.push(TlsMessage {
        seq: next_seq(),
        out: write_p == 1,
        version,
        content_type,
        bytes,
    });
}

/// Make the connections of contexts built from `b` report their messages to their own
/// trace ([`add_trace`], [`trace_on`]); with it off they cost a call per record.
pub fn enable_message_trace(b: &mut SslContextBuilder) {
    // SAFETY: `b.as_ptr()` is the live SSL_CTX being built; the callback is a plain function
    // that lives as long as the program, with the signature `SSL_CTX_set_msg_callback` takes
    // (`SSL *` passed as an opaque pointer).
    unsafe { SSL_CTX_set_msg_callback(b.as_ptr().cast(), Some(on_message)) }
}

/// Give the connection `ssl` a trace, off: until [`trace_on`], its messages are dropped.
pub fn add_trace(ssl: &mut SslRef) {
    if let Some(idx) = trace_index() {
        ssl.set_ex_data(idx, Mutex::new(None));
    }
}

/// Keep the messages of `ssl` from now on (anything kept before is dropped).
pub fn trace_on(ssl: &SslRef) {
    let Some(slot) = trace_index().and_then(|i| ssl.ex_data(i)) else {
        return;
    };
    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(Vec::new());
}

/// Turn the trace of `ssl` off; the messages kept since [`trace_on`], in order.
pub fn trace_take(ssl: &SslRef) -> Vec<TlsMessage> {
    let Some(slot) = trace_index().and_then(|i| ssl.ex_data(i)) else {
        return Vec::new();
    };
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    slot.take().unwrap_or_default()
}

/// OpenSSL's long description of an alert (`SSL_alert_desc_string_long`), for the alert
/// `level << 8 | description`.
pub fn alert_description(code: i32) -> String {
    // SAFETY: the function takes any int and returns a pointer to a static NUL-terminated
    // string ("unknown" for codes it does not know), never NULL.
    let p = unsafe { SSL_alert_desc_string_long(code) };
    if p.is_null() {
        return "unknown".to_string();
    }
    // SAFETY: `p` is a static C string from OpenSSL (above).
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use openssl::asn1::Asn1Time;
    use openssl::ec::{EcGroup, EcKey};
    use openssl::hash::MessageDigest;
    use openssl::nid::Nid;
    use openssl::pkey::PKey;
    use openssl::ssl::{SslAcceptor, SslMethod, SslStream, SslVerifyMode};
    use openssl::x509::{X509NameBuilder, X509};
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    /// A TLS 1.3 server on one end of a socket pair, with a fresh self-signed certificate:
    /// it answers each `ping\n` with `pong\n` until the end of the stream.
    fn server(sock: UnixStream) -> std::thread::JoinHandle<()> {
        let key = EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap())
            .and_then(PKey::from_ec_key)
            .unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_nid(Nid::COMMONNAME, "localhost")
            .unwrap();
        let name = name.build();
        let mut cert = X509::builder().unwrap();
        cert.set_version(2).unwrap();
        cert.set_subject_name(&name).unwrap();
        cert.set_issuer_name(&name).unwrap();
        cert.set_pubkey(&key).unwrap();
        cert.set_not_before(&Asn1Time::days_from_now(0).unwrap())
            .unwrap();
        cert.set_not_after(&Asn1Time::days_from_now(1).unwrap())
            .unwrap();
        cert.sign(&key, MessageDigest::sha256()).unwrap();
        let mut b = SslAcceptor::mozilla_modern_v5(SslMethod::tls_server()).unwrap();
        b.set_private_key(&key).unwrap();
        b.set_certificate(&cert.build()).unwrap();
        let acceptor = b.build();
        std::thread::spawn(move || {
            let Ok(mut s) = acceptor.accept(sock) else {
                return;
            };
            let mut buf = [0u8; 5];
            while s.read_exact(&mut buf).is_ok() {
                if s.write_all(b"pong\n").is_err() {
                    return;
                }
            }
        })
    }

    fn ping(s: &mut SslStream<UnixStream>) {
        s.write_all(b"ping\n").unwrap();
        let mut buf = [0u8; 5];
        s.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"pong\n");
    }

    #[test]
    fn trace_is_the_connections_whichever_thread_drives_it() {
        let (client, other) = UnixStream::pair().unwrap();
        let srv = server(other);
        let mut b = SslContextBuilder::new(SslMethod::tls_client()).unwrap();
        b.set_verify(SslVerifyMode::NONE);
        enable_message_trace(&mut b);
        let ctx = b.build();
        let mut ssl = Ssl::new(&ctx).unwrap();
        add_trace(&mut ssl);

        // Off: the handshake and a first exchange keep nothing.
        let mut s = ssl.connect(client).unwrap();
        ping(&mut s);
        assert_eq!(trace_take(s.ssl()), Vec::new());

        // On here, the calls on another thread, taken there: all of them are in it.
        trace_on(s.ssl());
        let (mut s, got) = std::thread::spawn(move || {
            ping(&mut s);
            let got = trace_take(s.ssl());
            (s, got)
        })
        .join()
        .unwrap();
        const HEADER: i32 = 256;
        assert!(
            got.iter().any(|m| m.out && m.content_type == HEADER),
            "{got:?}"
        );
        assert!(
            got.iter().any(|m| !m.out && m.content_type == HEADER),
            "{got:?}"
        );
        assert!(got.windows(2).all(|w| w[0].seq < w[1].seq), "{got:?}");

        // Taking turned it off: what comes after is not kept.
        ping(&mut s);
        assert_eq!(trace_take(s.ssl()), Vec::new());
        drop(s);
        srv.join().unwrap();
    }
}
