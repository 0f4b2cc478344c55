//! Share handles: `curl_share_*` and `CURLOPT_SHARE`. A `CURLSH *` is a `Box<ShareHandle>`:
//! the engine's `Share` (the shared caches, each behind its own mutex), the application's
//! lock callbacks and the count of easy handles using it (curl's `dirty`). The handle is
//! `Send + Sync`: easy handles on several threads reach it at once.

use crate::easy::EasyHandle;
use oxcurl_core::share::{LockAccess, Share, ShareData, ShareLock};
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub type CURLSHcode = c_int;
pub const CURLSHE_OK: CURLSHcode = 0;
pub const CURLSHE_BAD_OPTION: CURLSHcode = 1;
pub const CURLSHE_IN_USE: CURLSHcode = 2;
pub const CURLSHE_INVALID: CURLSHcode = 3;

const CURLSHOPT_SHARE: c_int = 1;
const CURLSHOPT_UNSHARE: c_int = 2;
const CURLSHOPT_LOCKFUNC: c_int = 3;
const CURLSHOPT_UNLOCKFUNC: c_int = 4;
const CURLSHOPT_USERDATA: c_int = 5;

pub type LockFn = unsafe extern "C" fn(*mut EasyHandle, c_int, c_int, *mut c_void);
pub type UnlockFn = unsafe extern "C" fn(*mut EasyHandle, c_int, *mut c_void);

/// The application's lock callbacks and their userdata.
#[derive(Clone, Copy)]
struct CLock {
    lock: Option<LockFn>,
    unlock: Option<UnlockFn>,
    data: *mut c_void,
}

// SAFETY: the callbacks and their userdata are the application's, which curl documents as
// called from whichever thread uses the share; synchronising them is the application's job
// (that is what they are for).
unsafe impl Send for CLock {}
// SAFETY: as above; CLock is only copied and called, never mutated through a shared ref.
unsafe impl Sync for CLock {}

impl CLock {
    fn lock(&self, h: *mut EasyHandle, data: c_int, access: c_int) {
        if let Some(f) = self.lock {
            // SAFETY: a curl_lock_function set with CURLSHOPT_LOCKFUNC; no Rust borrow of
            // any handle is held by the caller.
            unsafe { f(h, data, access, self.data) }
        }
    }
    fn unlock(&self, h: *mut EasyHandle, data: c_int) {
        if let Some(f) = self.unlock {
            // SAFETY: a curl_unlock_function set with CURLSHOPT_UNLOCKFUNC.
            unsafe { f(h, data, self.data) }
        }
    }
}

impl ShareLock for CLock {
    fn lock(&self, data: ShareData, access: LockAccess, user: usize) {
        CLock::lock(
            self,
            user as *mut EasyHandle,
            data as c_int,
            access as c_int,
        );
    }
    fn unlock(&self, data: ShareData, user: usize) {
        CLock::unlock(self, user as *mut EasyHandle, data as c_int);
    }
}

const MAGIC: u32 = 0xc0de_5a4e;

/// What a `CURLSH *` points to.
pub struct ShareHandle {
    magic: AtomicU32,
    pub(crate) share: Share,
    cb: Mutex<CLock>,
    /// Easy handles using the share.
    users: AtomicUsize,
}

impl ShareHandle {
    /// The share behind a `CURLSH *`, if it is one.
    ///
    /// # Safety
    /// `p` is NULL or a pointer from `curl_share_init` not yet cleaned up.
    pub(crate) unsafe fn from_ptr<'a>(p: *mut ShareHandle) -> Option<&'a ShareHandle> {
        if p.is_null() {
            return None;
        }
        // SAFETY: per the caller, a live ShareHandle.
        let s = unsafe { &*p };
        (s.magic.load(Ordering::SeqCst) == MAGIC).then_some(s)
    }

    fn callbacks(&self) -> CLock {
        *self.cb.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Count an easy handle in or out, inside `CURL_LOCK_DATA_SHARE` as curl does.
    pub(crate) fn attach(&self, h: *mut EasyHandle, on: bool) {
        let cb = self.callbacks();
        cb.lock(h, ShareData::Share as c_int, LockAccess::Single as c_int);
        if on {
            self.users.fetch_add(1, Ordering::SeqCst);
        } else {
            self.users.fetch_sub(1, Ordering::SeqCst);
        }
        cb.unlock(h, ShareData::Share as c_int);
    }
}

/// `curl_share_init`.
#[no_mangle]
pub extern "C" fn curl_share_init() -> *mut ShareHandle {
    guard!(std::ptr::null_mut(), {
        Box::into_raw(Box::new(ShareHandle {
            magic: AtomicU32::new(MAGIC),
            share: Share::new(),
            cb: Mutex::new(CLock {
                lock: None,
                unlock: None,
                data: std::ptr::null_mut(),
            }),
            users: AtomicUsize::new(0),
        }))
    })
}

/// Typed half of `curl_share_setopt`: `v` is the int of SHARE/UNSHARE, else the pointer.
#[no_mangle]
pub extern "C" fn oxcurl_share_setopt(
    sh: *mut ShareHandle,
    opt: c_int,
    n: c_int,
    v: *mut c_void,
) -> CURLSHcode {
    guard!(CURLSHE_INVALID, {
        // SAFETY: NULL or a handle from curl_share_init.
        let Some(s) = (unsafe { ShareHandle::from_ptr(sh) }) else {
            return CURLSHE_INVALID;
        };
        // curl refuses every change while a handle uses the share.
        if s.users.load(Ordering::SeqCst) > 0 {
            return CURLSHE_IN_USE;
        }
        match opt {
            CURLSHOPT_SHARE | CURLSHOPT_UNSHARE => {
                let Some(d) = ShareData::from_number(n).filter(|d| *d != ShareData::Share) else {
                    return CURLSHE_BAD_OPTION;
                };
                if opt == CURLSHOPT_SHARE {
                    s.share.share(d);
                } else {
                    s.share.unshare(d);
                }
            }
            CURLSHOPT_LOCKFUNC | CURLSHOPT_UNLOCKFUNC | CURLSHOPT_USERDATA => {
                let cb = {
                    let mut cb = s.cb.lock().unwrap_or_else(|e| e.into_inner());
                    match opt {
                        // SAFETY: the shim passed the function pointer curl.h types this
                        // option with (NULL for none); same size as a data pointer.
                        CURLSHOPT_LOCKFUNC => {
                            cb.lock =
                                unsafe { std::mem::transmute::<*mut c_void, Option<LockFn>>(v) }
                        }
                        // SAFETY: as above, a curl_unlock_function.
                        CURLSHOPT_UNLOCKFUNC => {
                            cb.unlock =
                                unsafe { std::mem::transmute::<*mut c_void, Option<UnlockFn>>(v) }
                        }
                        _ => cb.data = v,
                    }
                    *cb
                };
                let l: Option<Arc<dyn ShareLock>> =
                    (cb.lock.is_some() || cb.unlock.is_some()).then(|| Arc::new(cb) as _);
                s.share.set_lock(l);
            }
            _ => return CURLSHE_BAD_OPTION,
        }
        CURLSHE_OK
    })
}

/// `curl_share_cleanup`: refused with `CURLSHE_IN_USE` while easy handles use the share.
#[no_mangle]
pub extern "C" fn curl_share_cleanup(sh: *mut ShareHandle) -> CURLSHcode {
    guard!(CURLSHE_INVALID, {
        // SAFETY: NULL or a handle from curl_share_init.
        let Some(s) = (unsafe { ShareHandle::from_ptr(sh) }) else {
            return CURLSHE_INVALID;
        };
        let cb = s.callbacks();
        let null = std::ptr::null_mut();
        cb.lock(null, ShareData::Share as c_int, LockAccess::Single as c_int);
        if s.users.load(Ordering::SeqCst) > 0 {
            cb.unlock(null, ShareData::Share as c_int);
            return CURLSHE_IN_USE;
        }
        s.magic.store(0, Ordering::SeqCst);
        cb.unlock(null, ShareData::Share as c_int);
        // SAFETY: a live handle from Box::into_raw that no easy handle uses any more; the
        // magic is cleared so a stale pointer is refused.
        drop(unsafe { Box::from_raw(sh) });
        CURLSHE_OK
    })
}

const SHARE_TEXTS: &[&std::ffi::CStr] = &[
    c"No error",
    c"Unknown share option",
    c"Share currently in use",
    c"Invalid share handle",
    c"Out of memory",
    c"Feature not enabled in this library",
];

/// `curl_share_strerror`.
#[no_mangle]
pub extern "C" fn curl_share_strerror(code: CURLSHcode) -> *const c_char {
    guard!(c"CURLSHcode unknown".as_ptr(), {
        usize::try_from(code)
            .ok()
            .and_then(|i| SHARE_TEXTS.get(i))
            .map_or(c"CURLSHcode unknown".as_ptr(), |s| s.as_ptr())
    })
}

// Easy handles on several threads use one share at once.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ShareHandle>();
};
