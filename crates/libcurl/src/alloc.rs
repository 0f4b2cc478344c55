//! The allocator for memory handed to the application (`curl_global_init_mem`): strings from
//! `curl_easy_escape`, `curl_url_get`, slist nodes. Such memory is released with `curl_free`
//! (or `curl_slist_free_all`), which must use the matching `free`. Rust's own allocations
//! stay on Rust's allocator.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

pub type MallocFn = unsafe extern "C" fn(usize) -> *mut c_void;
pub type FreeFn = unsafe extern "C" fn(*mut c_void);

extern "C" {
    fn malloc(n: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

/// 0 means the C library's own.
static MALLOC: AtomicUsize = AtomicUsize::new(0);
static FREE: AtomicUsize = AtomicUsize::new(0);

/// Installs the application's allocator (both or neither).
pub(crate) fn install(m: MallocFn, f: FreeFn) {
    MALLOC.store(m as usize, Ordering::SeqCst);
    FREE.store(f as usize, Ordering::SeqCst);
}

/// Back to the C library's allocator (`curl_global_cleanup`).
pub(crate) fn reset() {
    MALLOC.store(0, Ordering::SeqCst);
    FREE.store(0, Ordering::SeqCst);
}

/// Allocates `n` bytes with the application's allocator; NULL on failure.
pub(crate) fn app_malloc(n: usize) -> *mut c_void {
    let m = MALLOC.load(Ordering::SeqCst);
    if m == 0 {
        // SAFETY: malloc accepts any size and returns NULL or a fresh block.
        unsafe { malloc(n.max(1)) }
    } else {
        // SAFETY: `m` was stored from a `MallocFn` in `install`, so transmuting it back is the
        // same function pointer type; the application's malloc has malloc's contract.
        unsafe { std::mem::transmute::<usize, MallocFn>(m)(n.max(1)) }
    }
}

/// Frees memory from [`app_malloc`]; NULL is a no-op.
///
/// # Safety
/// `p` is NULL or came from [`app_malloc`] and was not freed.
pub(crate) unsafe fn app_free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    let f = FREE.load(Ordering::SeqCst);
    if f == 0 {
        // SAFETY: the caller guarantees `p` is a live block from malloc.
        unsafe { free(p) }
    } else {
        // SAFETY: stored from a `FreeFn` in `install`; `p` is a live block of its allocator.
        unsafe { std::mem::transmute::<usize, FreeFn>(f)(p) }
    }
}

/// Copies `bytes` plus a NUL into application memory; NULL when out of memory.
pub(crate) fn app_strdup(bytes: &[u8]) -> *mut c_char {
    let p = app_malloc(bytes.len() + 1) as *mut u8;
    if p.is_null() {
        return p as *mut c_char;
    }
    // SAFETY: `p` is a fresh block of len+1 bytes, not overlapping `bytes`.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        *p.add(bytes.len()) = 0;
    }
    p as *mut c_char
}

/// `malloc` for the C shim's results handed to the application (`curl_maprintf`), freed with
/// `curl_free`. Not exported (the version script keeps only `curl_*`).
#[no_mangle]
pub extern "C" fn oxcurl_app_malloc(n: usize) -> *mut c_void {
    guard!(std::ptr::null_mut(), { app_malloc(n) })
}
