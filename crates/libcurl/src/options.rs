//! The option introspection API (`curl_easy_option_*`, options.h) over the generated table.

use crate::ffi::cstr;
use crate::opttable::OPTIONS;
use std::ffi::{c_char, c_int, c_uint};
use std::sync::OnceLock;

/// `struct curl_easyoption` from options.h.
#[repr(C)]
pub struct CurlEasyOption {
    pub name: *const c_char,
    pub id: c_int,
    pub kind: c_uint,
    pub flags: c_uint,
}

/// `CURLOT_FLAG_ALIAS`.
pub const CURLOT_FLAG_ALIAS: c_uint = 1;

struct Table(Vec<CurlEasyOption>);
// SAFETY: built once, never mutated; the names are static string literals.
unsafe impl Sync for Table {}
// SAFETY: as above; only created inside the OnceLock initializer.
unsafe impl Send for Table {}

fn table() -> &'static [CurlEasyOption] {
    static T: OnceLock<Table> = OnceLock::new();
    &T.get_or_init(|| {
        Table(
            OPTIONS
                .iter()
                .map(|&(name, id, kind, flags)| CurlEasyOption {
                    name: name.as_ptr(),
                    id,
                    kind,
                    flags,
                })
                .collect(),
        )
    })
    .0
}

/// `curl_easy_option_by_name`: case-insensitive, without the `CURLOPT_` prefix.
#[no_mangle]
pub extern "C" fn curl_easy_option_by_name(name: *const c_char) -> *const CurlEasyOption {
    guard!(std::ptr::null(), {
        // SAFETY: NULL or a NUL-terminated string, per curl_easy_option_by_name(3).
        let Some(name) = (unsafe { cstr(name) }) else {
            return std::ptr::null();
        };
        OPTIONS
            .iter()
            .position(|o| o.0.to_bytes().eq_ignore_ascii_case(name))
            .map_or(std::ptr::null(), |i| &table()[i] as *const CurlEasyOption)
    })
}

/// `curl_easy_option_by_id`: the option's own entry, not an alias.
#[no_mangle]
pub extern "C" fn curl_easy_option_by_id(id: c_int) -> *const CurlEasyOption {
    guard!(std::ptr::null(), {
        table()
            .iter()
            .find(|o| o.id == id && o.flags & CURLOT_FLAG_ALIAS == 0)
            .map_or(std::ptr::null(), |o| o as *const CurlEasyOption)
    })
}

/// `curl_easy_option_next`: iterates the table; NULL starts, NULL ends.
#[no_mangle]
pub extern "C" fn curl_easy_option_next(prev: *const CurlEasyOption) -> *const CurlEasyOption {
    guard!(std::ptr::null(), {
        let t = table();
        let next = if prev.is_null() {
            0
        } else {
            let base = t.as_ptr() as usize;
            let at = prev as usize;
            let size = std::mem::size_of::<CurlEasyOption>();
            if at < base || at >= base + std::mem::size_of_val(t) {
                return std::ptr::null();
            }
            (at - base) / size + 1
        };
        t.get(next)
            .map_or(std::ptr::null(), |o| o as *const CurlEasyOption)
    })
}
