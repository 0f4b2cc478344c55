//! The few platform calls that need `unsafe` outside the C ABI.
//!
//! The reactor ([`poll`]): level-triggered epoll and an eventfd, on rustix's safe calls.
//! Two things need `unsafe`. The counting allocator in [`alloc`] (a `GlobalAlloc` impl is `unsafe` by nature),
//! which also writes curl's memdebug log. And resuming OpenSSL client sessions ([`tls`]):
//! `SSL_set_session` is unsafe in the `openssl` crate unless the session comes from the same
//! context, which [`tls`] guarantees by keeping each context's sessions inside that context.
//! Does no other I/O.

use std::io;
use std::os::fd::BorrowedFd;

pub mod poll;
pub use poll::{Event, Events, PollMode, Poller};

/// Register `fd` with `poller` under `interest`, in level-triggered mode.
///
/// The caller should `poller.delete(fd)` before closing the socket; epoll drops a closed
/// descriptor from its interest list by itself anyway.
pub fn register(poller: &Poller, fd: BorrowedFd<'_>, interest: Event) -> io::Result<()> {
    poller.add_with_mode(fd, interest, PollMode::Level)
}

pub mod alloc;
#[cfg(feature = "openssl")]
pub mod tls;
