//! The one shape of every export: a panic boundary that turns a panic into the function's
//! documented failure value instead of unwinding into C.

/// Runs `$body`; a panic returns `$fail` instead (with `panic = "abort"` the process aborts,
/// which is also never undefined behaviour).
macro_rules! guard {
    ($fail:expr, $body:block) => {
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(v) => v,
            Err(_) => $fail,
        }
    };
}

use std::ffi::{c_char, CStr};

/// A C string argument as bytes; `None` for NULL.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string alive for `'a`.
pub(crate) unsafe fn cstr<'a>(p: *const c_char) -> Option<&'a [u8]> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller guarantees a live NUL-terminated string.
        Some(unsafe { CStr::from_ptr(p) }.to_bytes())
    }
}

/// A C string argument as an owned Rust string (lossy for non-UTF-8 bytes).
///
/// # Safety
/// As [`cstr`].
pub(crate) unsafe fn cstring_opt(p: *const c_char) -> Option<String> {
    // SAFETY: forwarded contract.
    unsafe { cstr(p) }.map(|b| String::from_utf8_lossy(b).into_owned())
}
