//! The counting global allocator, and curl's memdebug log.
//!
//! [`CountingAlloc`] wraps the system allocator. What it does is decided once, at the process's
//! first allocation, from the environment (read with `getenv`, which does not allocate):
//!
//! * `OXCURL_MEMDEBUG=FILE`: every allocation, reallocation and free is counted and written to
//!   FILE as one line in the format of curl's memdebug log (`MEM site:0 malloc(32) = 0x...`),
//!   which `oxcurl-memanalyze` (and curl's own `tests/memanalyze.pl`) read. The "site" is the
//!   phase the program declared with [`set_phase`], a coarse stand-in for curl's file:line.
//! * `OXCURL_ALLOCCOUNT` set: calls and live bytes are counted ([`stats`]).
//! * neither: every call costs one relaxed atomic load beyond the system allocator's own work.
//!
//! [`enable`] turns counting on later (tests that measure one stretch of work).
//!
//! The log writer never allocates: each line is formatted into a stack buffer and handed to
//! `write(2)` on a file opened `O_APPEND`, before a block is released and after one is obtained,
//! so lines about one address stay in order even when threads allocate concurrently.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};

const UNINIT: u8 = 0;
/// Deciding (reading the environment); calls made meanwhile are not counted.
const BUSY: u8 = 1;
const OFF: u8 = 2;
const COUNT: u8 = 3;
const LOG: u8 = 4;

static MODE: AtomicU8 = AtomicU8::new(UNINIT);
static LOG_FD: AtomicI32 = AtomicI32::new(-1);
static PHASE: AtomicU8 = AtomicU8::new(0);

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static ZEROED: AtomicU64 = AtomicU64::new(0);
static REALLOCS: AtomicU64 = AtomicU64::new(0);
static FREES: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Install with `#[global_allocator] static A: CountingAlloc = CountingAlloc;`.
#[derive(Debug)]
pub struct CountingAlloc;

/// Totals since counting started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Fresh blocks: `alloc` and `alloc_zeroed` calls.
    pub allocs: u64,
    /// Of `allocs`, the zeroed ones (curl's "Callocs").
    pub zeroed: u64,
    pub reallocs: u64,
    pub frees: u64,
    pub peak_bytes: usize,
    pub live_bytes: usize,
}

/// The phase a program is in, logged as the call site class of each memdebug line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Before `main` declared anything: the runtime's own start-up.
    Init = 0,
    /// Reading the command line and configuration.
    Args = 1,
    /// Running transfers.
    Transfer = 2,
    /// After the work: tear-down until the process exits.
    Exit = 3,
}

const PHASE_NAMES: [&[u8]; 4] = [b"init", b"args", b"transfer", b"exit"];

/// Declare the phase that the following allocations belong to (memdebug's call site class).
pub fn set_phase(p: Phase) {
    PHASE.store(p as u8, Relaxed);
}

/// Start counting now (if the environment did not already).
pub fn enable() {
    let _ = mode();
    let _ = MODE.fetch_max(COUNT, Relaxed);
}

/// Whether a memdebug log is being written.
pub fn logging() -> bool {
    mode() == LOG
}

/// Forget the peak: from now on it is measured from the live bytes of this moment.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

pub fn stats() -> Stats {
    Stats {
        allocs: ALLOCS.load(Relaxed),
        zeroed: ZEROED.load(Relaxed),
        reallocs: REALLOCS.load(Relaxed),
        frees: FREES.load(Relaxed),
        peak_bytes: PEAK.load(Relaxed),
        live_bytes: LIVE.load(Relaxed),
    }
}

#[inline]
fn mode() -> u8 {
    match MODE.load(Relaxed) {
        UNINIT => decide(),
        m => m,
    }
}

/// Read the environment once. The first allocation happens while the process is still
/// single-threaded, so nothing races the `getenv`s; a call that would (BUSY) is not counted.
#[cold]
#[inline(never)]
fn decide() -> u8 {
    if MODE
        .compare_exchange(UNINIT, BUSY, Relaxed, Relaxed)
        .is_err()
    {
        return MODE.load(Relaxed);
    }
    let mut m = OFF;
    // SAFETY: both names are NUL-terminated literals; getenv returns NULL or a pointer to a
    // NUL-terminated value that stays valid while nobody calls setenv, and no other thread
    // exists yet (see above). The value is only read here.
    let file = unsafe { libc::getenv(c"OXCURL_MEMDEBUG".as_ptr()) };
    // SAFETY: `file` is non-null, so it points at a NUL-terminated string (see above).
    if !file.is_null() && unsafe { *file } != 0 {
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_APPEND | libc::O_CLOEXEC;
        // SAFETY: `file` is a NUL-terminated path (see above); open(2) does not keep it.
        let fd = unsafe { libc::open(file, flags, 0o644 as libc::c_uint) };
        if fd >= 0 {
            LOG_FD.store(fd, Relaxed);
            m = LOG;
        }
    }
    // SAFETY: as for OXCURL_MEMDEBUG above.
    if m == OFF && !unsafe { libc::getenv(c"OXCURL_ALLOCCOUNT".as_ptr()) }.is_null() {
        m = COUNT;
    }
    MODE.store(m, Relaxed);
    m
}

fn grow(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

fn shrink(n: usize) {
    // Saturating: blocks obtained before `enable` may be freed after it.
    let _ = LIVE.fetch_update(Relaxed, Relaxed, |v| Some(v.saturating_sub(n)));
}

/// One memdebug line, built on the stack.
struct Line {
    buf: [u8; 160],
    len: usize,
}

impl Line {
    fn new() -> Line {
        let mut l = Line {
            buf: [0; 160],
            len: 0,
        };
        l.put(b"MEM ");
        let phase = PHASE.load(Relaxed) as usize;
        l.put(PHASE_NAMES[phase.min(PHASE_NAMES.len() - 1)]);
        l.put(b":0 ");
        l
    }

    fn put(&mut self, s: &[u8]) {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s[..n]);
        self.len += n;
    }

    fn dec(&mut self, mut v: usize) {
        let mut tmp = [0u8; 20];
        let mut i = tmp.len();
        loop {
            i -= 1;
            tmp[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.put(&tmp[i..]);
    }

    fn addr(&mut self, p: *mut u8) {
        let mut v = p as usize;
        let mut tmp = [0u8; 16];
        let mut i = tmp.len();
        loop {
            i -= 1;
            tmp[i] = b"0123456789abcdef"[v & 15];
            v >>= 4;
            if v == 0 {
                break;
            }
        }
        self.put(b"0x");
        self.put(&tmp[i..]);
    }

    fn send(mut self) {
        self.put(b"\n");
        let fd = LOG_FD.load(Relaxed);
        let mut off = 0;
        while off < self.len {
            // SAFETY: the pointer and length describe initialised bytes of `self.buf`.
            let n = unsafe { libc::write(fd, self.buf[off..].as_ptr().cast(), self.len - off) };
            if n <= 0 {
                if n < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                return;
            }
            off += n as usize;
        }
    }
}

#[cold]
#[inline(never)]
fn note_alloc(m: u8, p: *mut u8, size: usize, zeroed: bool) {
    if m < COUNT || p.is_null() {
        return;
    }
    ALLOCS.fetch_add(1, Relaxed);
    if zeroed {
        ZEROED.fetch_add(1, Relaxed);
    }
    grow(size);
    if m == LOG {
        let mut l = Line::new();
        if zeroed {
            l.put(b"calloc(1,");
        } else {
            l.put(b"malloc(");
        }
        l.dec(size);
        l.put(b") = ");
        l.addr(p);
        l.send();
    }
}

#[cold]
#[inline(never)]
fn note_free(m: u8, p: *mut u8, size: usize) {
    if m < COUNT {
        return;
    }
    FREES.fetch_add(1, Relaxed);
    shrink(size);
    if m == LOG {
        let mut l = Line::new();
        l.put(b"free(");
        l.addr(p);
        l.put(b")");
        l.send();
    }
}

#[cold]
#[inline(never)]
fn note_realloc(m: u8, old: *mut u8, old_size: usize, new: *mut u8, new_size: usize) {
    if m < COUNT || new.is_null() {
        return;
    }
    REALLOCS.fetch_add(1, Relaxed);
    if new_size > old_size {
        grow(new_size - old_size);
    } else {
        shrink(old_size - new_size);
    }
    if m == LOG {
        let mut l = Line::new();
        l.put(b"realloc(");
        l.addr(old);
        l.put(b", ");
        l.dec(new_size);
        l.put(b") = ");
        l.addr(new);
        l.send();
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract is exactly the system allocator's; accounting touches only atomics and
// the log's file descriptor, and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    #[inline]
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl comment).
        let p = unsafe { System.alloc(l) };
        let m = mode();
        if m != OFF {
            note_alloc(m, p, l.size(), false);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc_zeroed(l) };
        let m = mode();
        if m != OFF {
            note_alloc(m, p, l.size(), true);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // Logged before the block is released, so no other thread can be handed the same
        // address and log it first.
        let m = mode();
        if m != OFF {
            note_free(m, p, l.size());
        }
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(p, l) }
    }

    #[inline]
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // SAFETY: forwarded as is.
        let q = unsafe { System.realloc(p, l, new) };
        let m = mode();
        if m != OFF {
            note_realloc(m, p, l.size(), q, new);
        }
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_format() {
        let mut l = Line::new();
        l.put(b"realloc(");
        l.addr(0xdead_beef_usize as *mut u8);
        l.put(b", ");
        l.dec(0);
        l.put(b") = ");
        l.addr(std::ptr::null_mut());
        assert_eq!(
            std::str::from_utf8(&l.buf[..l.len]).unwrap(),
            "MEM init:0 realloc(0xdeadbeef, 0) = 0x0"
        );
        let mut l = Line::new();
        l.dec(18446744073709551615);
        assert!(std::str::from_utf8(&l.buf[..l.len])
            .unwrap()
            .ends_with(":0 18446744073709551615"));
    }
}
