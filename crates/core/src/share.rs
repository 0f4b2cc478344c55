//! A share (curl's `CURLSH`): caches that several easy handles or multis use together - the
//! cookie jar, the DNS cache, TLS sessions, the connection pool and the HSTS cache.
//!
//! A multi keeps its own copy of each; while it drives a transfer attached to a share, it
//! swaps the shared parts in (`Attached::lend`) and back (`Lease::give_back`), so the
//! transfer code is the same with or without a share. Each shared part sits behind its own
//! mutex, held for the whole drive, so handles on several threads may use one share. The
//! application's lock callbacks (`CURLSHOPT_LOCKFUNC`) are told about each access as curl
//! tells them, one data type at a time and never nested, and never while the share's own
//! mutexes are being waited for.
//!
//! Not here: the `CURL_LOCK_DATA_SHARE` lock and the count of handles using the share, which
//! belong to the C ABI's handle.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::conn::Pool;
use crate::cookie::CookieStore;
use crate::dns::{DnsCache, Resolver};
use crate::hsts::Hsts;
use crate::tls::TlsCache;

/// What can be shared (`curl_lock_data`; the numbers are curl's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareData {
    Share = 1,
    Cookie = 2,
    Dns = 3,
    SslSession = 4,
    Connect = 5,
    Psl = 6,
    Hsts = 7,
}

impl ShareData {
    pub fn from_number(n: i32) -> Option<ShareData> {
        Some(match n {
            1 => ShareData::Share,
            2 => ShareData::Cookie,
            3 => ShareData::Dns,
            4 => ShareData::SslSession,
            5 => ShareData::Connect,
            6 => ShareData::Psl,
            7 => ShareData::Hsts,
            _ => return None,
        })
    }
    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// How the data is going to be used (`curl_lock_access`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockAccess {
    Shared = 1,
    Single = 2,
}

/// The application's lock and unlock callbacks. `user` is the value the easy handle was
/// attached with (the C ABI passes its `CURL *`).
pub trait ShareLock: Send + Sync {
    fn lock(&self, data: ShareData, access: LockAccess, user: usize);
    fn unlock(&self, data: ShareData, user: usize);
}

#[derive(Default)]
struct Inner {
    /// Bits of the `ShareData` shared.
    mask: AtomicU32,
    lock: Mutex<Option<Arc<dyn ShareLock>>>,
    cookies: Mutex<CookieStore>,
    dns: Mutex<DnsCache>,
    tls: Mutex<TlsCache>,
    pool: Mutex<Pool>,
    hsts: Mutex<Hsts>,
}

/// A share. Clones are the same share.
#[derive(Clone, Default)]
pub struct Share {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Share {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Share")
            .field("mask", &self.inner.mask.load(Ordering::Relaxed))
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Share {
    pub fn new() -> Share {
        let s = Share::default();
        s.inner.mask.store(ShareData::Share.bit(), Ordering::SeqCst);
        s
    }

    /// Start sharing `data` (`CURLSHOPT_SHARE`). As in curl, a shared jar is used only by
    /// handles with the cookie engine on (`CURLOPT_COOKIEFILE` and friends).
    pub fn share(&self, data: ShareData) {
        self.inner.mask.fetch_or(data.bit(), Ordering::SeqCst);
    }

    /// Stop sharing `data` (`CURLSHOPT_UNSHARE`); what was collected is dropped.
    pub fn unshare(&self, data: ShareData) {
        self.inner.mask.fetch_and(!data.bit(), Ordering::SeqCst);
        match data {
            ShareData::Cookie => *lock(&self.inner.cookies) = CookieStore::default(),
            ShareData::Dns => *lock(&self.inner.dns) = DnsCache::default(),
            ShareData::SslSession => *lock(&self.inner.tls) = TlsCache::default(),
            ShareData::Hsts => *lock(&self.inner.hsts) = Hsts::default(),
            ShareData::Connect => {
                let mut p = lock(&self.inner.pool);
                for mut c in p.drain() {
                    c.close();
                }
            }
            ShareData::Share | ShareData::Psl => {}
        }
    }

    pub fn shares(&self, data: ShareData) -> bool {
        self.inner.mask.load(Ordering::SeqCst) & data.bit() != 0
    }

    /// Set the application's lock callbacks (`CURLSHOPT_LOCKFUNC`/`UNLOCKFUNC`).
    pub fn set_lock(&self, l: Option<Arc<dyn ShareLock>>) {
        *lock(&self.inner.lock) = l;
    }

    fn locker(&self) -> Option<Arc<dyn ShareLock>> {
        lock(&self.inner.lock).clone()
    }

    /// Attach for an easy handle; `user` is handed to the lock callbacks.
    pub fn attach(&self, user: usize) -> Attached {
        Attached {
            share: self.clone(),
            user,
        }
    }
}

/// A share as one easy handle uses it (`CURLOPT_SHARE`).
#[derive(Clone, Debug)]
pub struct Attached {
    pub share: Share,
    pub user: usize,
}

/// The multi's own parts a share may stand in for.
pub(crate) struct Local<'a> {
    pub cookies: &'a mut CookieStore,
    pub resolver: &'a mut Resolver,
    pub tls: &'a mut TlsCache,
    pub pool: &'a mut Pool,
    pub hsts: &'a mut Hsts,
}

/// The shared parts a multi holds while it drives a transfer.
pub(crate) struct Lease<'s> {
    att: &'s Attached,
    cookies: Option<MutexGuard<'s, CookieStore>>,
    dns: Option<MutexGuard<'s, DnsCache>>,
    tls: Option<MutexGuard<'s, TlsCache>>,
    pool: Option<MutexGuard<'s, Pool>>,
    hsts: Option<MutexGuard<'s, Hsts>>,
}

/// The kinds a lease announces to the application's lock callback. The connection pool is
/// announced by the transfer where curl takes its lock instead (`Attached::touch`): when a
/// transfer is added, before the pool is searched and when it is searched, when a new
/// connection joins it, when a transfer is done with its connection, and when a handle
/// whose connection was kept is removed.
const ANNOUNCED: [ShareData; 4] = [
    ShareData::Cookie,
    ShareData::Dns,
    ShareData::SslSession,
    ShareData::Hsts,
];

impl Attached {
    /// Tell the application's lock callback about an access to each shared part in turn
    /// (lock, then unlock, one at a time, so a single application mutex for every type is
    /// fine), with no mutex of ours held.
    fn announce(&self, locker: &Option<Arc<dyn ShareLock>>, access: LockAccess) {
        let Some(l) = locker else {
            return;
        };
        for d in ANNOUNCED {
            if self.share.shares(d) {
                l.lock(d, access, self.user);
                l.unlock(d, self.user);
            }
        }
    }

    /// Tell the application's lock callback about one access to `data`, if it is shared:
    /// lock, then unlock (the data itself is behind the share's own mutex).
    pub(crate) fn touch(&self, data: ShareData) {
        if !self.share.shares(data) {
            return;
        }
        if let Some(l) = self.share.locker() {
            l.lock(data, LockAccess::Single, self.user);
            l.unlock(data, self.user);
        }
    }

    /// Runs `f` on the shared cookie store alone (the caller checked that cookies are
    /// shared), under the application's lock as curl's `CURLOPT_COOKIELIST` takes it.
    pub(crate) fn with_cookies<R>(&self, f: impl FnOnce(&mut CookieStore) -> R) -> R {
        let locker = self.share.locker();
        if let Some(l) = &locker {
            l.lock(ShareData::Cookie, LockAccess::Single, self.user);
        }
        let r = f(&mut lock(&self.share.inner.cookies));
        if let Some(l) = &locker {
            l.unlock(ShareData::Cookie, self.user);
        }
        r
    }

    /// Runs `f` on the shared HSTS cache alone (the caller checked that it is shared),
    /// under the application's lock.
    pub(crate) fn with_hsts<R>(&self, f: impl FnOnce(&mut Hsts) -> R) -> R {
        let locker = self.share.locker();
        if let Some(l) = &locker {
            l.lock(ShareData::Hsts, LockAccess::Single, self.user);
        }
        let r = f(&mut lock(&self.share.inner.hsts));
        if let Some(l) = &locker {
            l.unlock(ShareData::Hsts, self.user);
        }
        r
    }

    /// Swap the shared parts in for the multi's own.
    pub(crate) fn lend(&self, local: Local<'_>) -> Lease<'_> {
        let locker = self.share.locker();
        self.announce(&locker, LockAccess::Single);
        let i = &self.share.inner;
        let on = |d: ShareData| self.share.shares(d);
        let mut l = Lease {
            att: self,
            cookies: on(ShareData::Cookie).then(|| lock(&i.cookies)),
            dns: on(ShareData::Dns).then(|| lock(&i.dns)),
            tls: on(ShareData::SslSession).then(|| lock(&i.tls)),
            pool: on(ShareData::Connect).then(|| lock(&i.pool)),
            hsts: on(ShareData::Hsts).then(|| lock(&i.hsts)),
        };
        l.swap(local);
        l
    }
}

impl Lease<'_> {
    fn swap(&mut self, local: Local<'_>) {
        if let Some(c) = self.cookies.as_mut() {
            std::mem::swap(local.cookies, &mut **c);
        }
        if let Some(d) = self.dns.as_mut() {
            local.resolver.swap_cache(d);
        }
        if let Some(t) = self.tls.as_mut() {
            std::mem::swap(local.tls, &mut **t);
        }
        if let Some(p) = self.pool.as_mut() {
            local.pool.swap_idle(p);
        }
        if let Some(h) = self.hsts.as_mut() {
            std::mem::swap(local.hsts, &mut **h);
        }
    }

    /// Swap the multi's own parts back and let go of the shared ones.
    pub(crate) fn give_back(mut self, local: Local<'_>) {
        self.swap(local);
        let att = self.att;
        drop(self);
        att.announce(&att.share.locker(), LockAccess::Single);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_and_unshare_set_the_mask() {
        let s = Share::new();
        assert!(s.shares(ShareData::Share));
        assert!(!s.shares(ShareData::Cookie));
        s.share(ShareData::Cookie);
        s.share(ShareData::Dns);
        assert!(s.shares(ShareData::Cookie) && s.shares(ShareData::Dns));
        lock(&s.inner.cookies).loaded.push("f".into());
        s.unshare(ShareData::Cookie);
        assert!(!s.shares(ShareData::Cookie));
        assert!(lock(&s.inner.cookies).loaded.is_empty());
    }

    struct Count(Mutex<Vec<(ShareData, bool)>>);
    impl ShareLock for Count {
        fn lock(&self, data: ShareData, _: LockAccess, user: usize) {
            assert_eq!(user, 7);
            lock(&self.0).push((data, true));
        }
        fn unlock(&self, data: ShareData, _: usize) {
            lock(&self.0).push((data, false));
        }
    }

    #[test]
    fn a_lease_swaps_the_jar_and_pairs_the_callbacks() {
        let s = Share::new();
        s.share(ShareData::Cookie);
        let count = Arc::new(Count(Mutex::new(Vec::new())));
        s.set_lock(Some(count.clone()));
        let att = s.attach(7);
        let mut cookies = CookieStore::default();
        let mut resolver = Resolver::new().expect("resolver");
        let mut tls = TlsCache::default();
        let mut pool = Pool::default();
        let mut hsts = Hsts::default();
        macro_rules! local {
            () => {
                Local {
                    cookies: &mut cookies,
                    resolver: &mut resolver,
                    tls: &mut tls,
                    pool: &mut pool,
                    hsts: &mut hsts,
                }
            };
        }
        cookies.loaded.push("own".into());
        let lease = att.lend(local!());
        assert!(cookies.loaded.is_empty(), "the shared store is in use");
        cookies.loaded.push("x".into());
        lease.give_back(local!());
        assert_eq!(cookies.loaded, ["own"], "the multi's own is back");
        assert_eq!(lock(&s.inner.cookies).loaded, ["x"]);
        let calls = lock(&count.0).clone();
        assert_eq!(
            calls,
            [
                (ShareData::Cookie, true),
                (ShareData::Cookie, false),
                (ShareData::Cookie, true),
                (ShareData::Cookie, false)
            ]
        );
    }
}
