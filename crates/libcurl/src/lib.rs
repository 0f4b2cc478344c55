//! libcurl's C ABI (`libcurl.so.4`, `libcurl.a`) on the oxcurl engine.
//!
//! No protocol logic lives here: every export converts C arguments, calls `oxcurl_core`, and
//! converts the result back. This is the one crate with unsafe code; every unsafe block says
//! why it is sound. The variadic entry points are in `shim.c` (see docs/internals/CABI.md).
//! Layouts and constants are curl 8.14.1's headers, which are the contract.

// The exports are C functions: their callers are C programs bound by libcurl's documented
// contract (valid handles, live buffers), which a Rust `unsafe fn` marker cannot express to
// them. Every dereference is still checked for NULL and commented.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

#[macro_use]
mod ffi;
pub mod alloc;
mod certinfo;
pub mod consts;
pub mod easy;
pub mod form;
pub mod global;
pub mod headers;
pub mod mime;
pub mod multi;
pub mod options;
mod opttable;
pub mod push;
pub mod rawio;
pub mod share;
pub mod slist;
mod sockets;
pub mod ssls;
pub mod strings;
pub mod url;
pub mod version;
pub mod ws;
