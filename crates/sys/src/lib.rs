//! The few platform calls that need `unsafe` outside the C ABI.
//!
//! The reactor ([`poll`]): level-triggered epoll and an eventfd, on rustix's safe calls.
//! Two things need `unsafe`. The counting allocator in [`alloc`] (a `GlobalAlloc` impl is
//! `unsafe` by nature), which also writes curl's memdebug log. And OpenSSL ([`tls`]): resuming
//! client sessions (`SSL_set_session` is unsafe in the `openssl` crate unless the session
//! comes from the same context, which [`tls`] guarantees by keeping each context's sessions
//! inside that context), and the handshake message trace, a C callback that finds the
//! connection's trace through the `SSL *` it is called for. And the interface list
//! ([`ifaddrs`]): `getifaddrs`, which the standard library does not wrap.
//! Does no other I/O.

pub mod poll;
pub use poll::{Event, Events, Foreign, PollFlags, Poller};

pub mod alloc;
pub mod ifaddrs;
#[cfg(feature = "openssl")]
pub mod tls;
