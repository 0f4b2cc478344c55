//! The few platform calls that need `unsafe` outside the C ABI.
//!
//! Today that is one thing: registering a socket with the `polling` reactor. `polling` marks
//! `Poller::add` unsafe because on some platforms a source closed while still registered leaves
//! the poller pointing at a dead handle. This crate is Linux-only (epoll): the kernel drops a
//! closed file description from every epoll interest list by itself, and the engine deletes
//! sockets before closing them anyway, so the contract holds and callers get a safe function.
//! Does no other I/O.

use std::io;
use std::os::fd::BorrowedFd;

pub use polling::{Event, Events, PollMode, Poller};

/// Register `fd` with `poller` under `interest`, in level-triggered mode.
///
/// The caller must `poller.delete(fd)` before closing the socket (see the crate docs for why a
/// missed delete is still memory-safe on epoll).
pub fn register(poller: &Poller, fd: BorrowedFd<'_>, interest: Event) -> io::Result<()> {
    // SAFETY: on Linux `polling` is backed by epoll, which removes a closed file description
    // from its interest list itself; no dangling handle can be observed through `poller`. The
    // engine additionally deletes each socket from the poller before dropping it.
    unsafe { poller.add_with_mode(&fd, interest, PollMode::Level) }
}

#[cfg(feature = "alloc-count")]
pub mod alloc {
    //! A counting global allocator (the seed of curl's memdebug): wraps the system allocator
    //! and, once `enable`d, counts calls and live bytes with relaxed atomics.

    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};

    static ENABLED: AtomicBool = AtomicBool::new(false);
    static ALLOCS: AtomicU64 = AtomicU64::new(0);
    static REALLOCS: AtomicU64 = AtomicU64::new(0);
    static FREES: AtomicU64 = AtomicU64::new(0);
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    static PEAK: AtomicUsize = AtomicUsize::new(0);

    /// Install with `#[global_allocator] static A: CountingAlloc = CountingAlloc;`.
    #[derive(Debug)]
    pub struct CountingAlloc;

    /// Totals since `enable`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Stats {
        pub allocs: u64,
        pub reallocs: u64,
        pub frees: u64,
        pub peak_bytes: usize,
        pub live_bytes: usize,
    }

    pub fn enable() {
        ENABLED.store(true, Relaxed);
    }

    pub fn stats() -> Stats {
        Stats {
            allocs: ALLOCS.load(Relaxed),
            reallocs: REALLOCS.load(Relaxed),
            frees: FREES.load(Relaxed),
            peak_bytes: PEAK.load(Relaxed),
            live_bytes: LIVE.load(Relaxed),
        }
    }

    fn grow(n: usize) {
        let now = LIVE.fetch_add(n, Relaxed) + n;
        PEAK.fetch_max(now, Relaxed);
    }

    // SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
    // `GlobalAlloc` contract is exactly the system allocator's; counting touches only atomics.
    unsafe impl GlobalAlloc for CountingAlloc {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            // SAFETY: forwarded as is (see the impl comment).
            let p = unsafe { System.alloc(l) };
            if ENABLED.load(Relaxed) && !p.is_null() {
                ALLOCS.fetch_add(1, Relaxed);
                grow(l.size());
            }
            p
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            // SAFETY: forwarded as is.
            let p = unsafe { System.alloc_zeroed(l) };
            if ENABLED.load(Relaxed) && !p.is_null() {
                ALLOCS.fetch_add(1, Relaxed);
                grow(l.size());
            }
            p
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            if ENABLED.load(Relaxed) {
                FREES.fetch_add(1, Relaxed);
                let _ = LIVE.fetch_update(Relaxed, Relaxed, |v| Some(v.saturating_sub(l.size())));
            }
            // SAFETY: forwarded as is.
            unsafe { System.dealloc(p, l) }
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
            // SAFETY: forwarded as is.
            let q = unsafe { System.realloc(p, l, new) };
            if ENABLED.load(Relaxed) && !q.is_null() {
                REALLOCS.fetch_add(1, Relaxed);
                if new > l.size() {
                    grow(new - l.size());
                } else {
                    let d = l.size() - new;
                    let _ = LIVE.fetch_update(Relaxed, Relaxed, |v| Some(v.saturating_sub(d)));
                }
            }
            q
        }
    }
}
