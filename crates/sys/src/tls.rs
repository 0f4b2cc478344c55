//! OpenSSL client session resumption, as curl's OpenSSL backend does it: every new session a
//! server hands out (at the handshake for TLS 1.2, in a ticket after it for TLS 1.3) is kept per
//! peer, and the next connection to that peer offers it.
//!
//! The sessions of a context live in that context's own ex_data, and [`resume`] only looks in
//! the store of the context the `Ssl` was made from. That is the contract the `openssl` crate
//! states for `SslRef::set_session` (the session must belong to the same `SslContext`), held by
//! construction, so the functions here are safe.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use openssl::ex_data::Index;
use openssl::ssl::{
    Ssl, SslContext, SslContextBuilder, SslRef, SslSession, SslSessionCacheMode, SslVersion,
};

/// How many peers' sessions one context keeps (curl's default session cache holds 25).
const MAX_PEERS: usize = 25;

/// Per peer: whether the session is TLS 1.3 (single use), and the session in DER.
type Store = Mutex<HashMap<String, (bool, Vec<u8>)>>;

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
            map.insert(key.clone(), (tls13, der));
        }
    });
}

/// Name the peer of `ssl` (its new sessions are kept under `peer`) and offer the session kept
/// for it, if its context has one. Returns whether a session was offered. A TLS 1.3 session is
/// taken out of the store (its ticket is meant for one use; the server sends new ones).
pub fn resume(ssl: &mut SslRef, peer: &str) -> bool {
    let (Some(store), Some(peer_idx)) = (store_index(), peer_index()) else {
        return false;
    };
    ssl.set_ex_data(peer_idx, peer.to_string());
    let session = {
        let Some(store) = ssl.ssl_context().ex_data(store) else {
            return false;
        };
        let Ok(mut map) = store.lock() else {
            return false;
        };
        let der = match map.get(peer) {
            Some((true, _)) => map.remove(peer).map(|(_, d)| d),
            Some((false, d)) => Some(d.clone()),
            None => None,
        };
        der.and_then(|d| SslSession::from_der(&d).ok())
    };
    let Some(session) = session else {
        return false;
    };
    // SAFETY: `session` is a copy of one the new-session callback installed on this very
    // context stored (the store is the context's own ex_data, reached through
    // `ssl.ssl_context()`), so it belongs with the same `SslContext` as `ssl`, which is what
    // `SslRef::set_session` requires. OpenSSL takes its own reference to the session.
    unsafe { ssl.set_session(&session).is_ok() }
}
