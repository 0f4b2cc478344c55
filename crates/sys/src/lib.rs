//! The few platform calls that need `unsafe` outside the C ABI.
//!
//! Two things. First, registering a socket with the `polling` reactor. `polling` marks
//! `Poller::add` unsafe because on some platforms a source closed while still registered leaves
//! the poller pointing at a dead handle. This crate is Linux-only (epoll): the kernel drops a
//! closed file description from every epoll interest list by itself, and the engine deletes
//! sockets before closing them anyway, so the contract holds and callers get a safe function.
//! Second, the counting allocator in [`alloc`] (a `GlobalAlloc` impl is `unsafe` by nature),
//! which also writes curl's memdebug log. Third, resuming OpenSSL client sessions ([`tls`]):
//! `SSL_set_session` is unsafe in the `openssl` crate unless the session comes from the same
//! context, which [`tls`] guarantees by keeping each context's sessions inside that context.
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

pub mod alloc;
#[cfg(feature = "openssl")]
pub mod tls;
