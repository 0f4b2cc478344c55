//! `struct curl_slist`: the C linked list of strings, in application memory.

use crate::alloc::{app_free, app_malloc, app_strdup};
use crate::ffi::cstr;
use std::ffi::{c_char, c_void};

/// `struct curl_slist` from curl.h.
#[repr(C)]
pub struct CurlSlist {
    pub data: *mut c_char,
    pub next: *mut CurlSlist,
}

/// `curl_slist_append`: appends a copy of `s`; returns the list head, NULL on failure (the
/// list is left as it was).
#[no_mangle]
pub extern "C" fn curl_slist_append(list: *mut CurlSlist, s: *const c_char) -> *mut CurlSlist {
    guard!(std::ptr::null_mut(), {
        // SAFETY: NULL or a NUL-terminated string, per curl_slist_append(3).
        let Some(bytes) = (unsafe { cstr(s) }) else {
            return std::ptr::null_mut();
        };
        let data = app_strdup(bytes);
        if data.is_null() {
            return std::ptr::null_mut();
        }
        let node = app_malloc(std::mem::size_of::<CurlSlist>()) as *mut CurlSlist;
        if node.is_null() {
            // SAFETY: `data` came from app_strdup just above.
            unsafe { app_free(data as *mut c_void) };
            return std::ptr::null_mut();
        }
        // SAFETY: `node` is a fresh, suitably sized and aligned (malloc) block.
        unsafe {
            node.write(CurlSlist {
                data,
                next: std::ptr::null_mut(),
            })
        };
        if list.is_null() {
            return node;
        }
        let mut last = list;
        // SAFETY: `list` is a list built by curl_slist_append, each `next` NULL or a node.
        unsafe {
            while !(*last).next.is_null() {
                last = (*last).next;
            }
            (*last).next = node;
        }
        list
    })
}

/// `curl_slist_free_all`.
#[no_mangle]
pub extern "C" fn curl_slist_free_all(list: *mut CurlSlist) {
    guard!((), {
        let mut p = list;
        while !p.is_null() {
            // SAFETY: each node and its data came from curl_slist_append's allocations.
            unsafe {
                let next = (*p).next;
                app_free((*p).data as *mut c_void);
                app_free(p as *mut c_void);
                p = next;
            }
        }
    })
}

/// The strings of a list as bytes, as they are (FTP's quote commands go out unchanged).
///
/// # Safety
/// `list` is NULL or a live list.
pub(crate) unsafe fn to_byte_vec(list: *const CurlSlist) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut p = list;
    while !p.is_null() {
        // SAFETY: live nodes per the caller; data is NULL or a C string.
        unsafe {
            if let Some(b) = cstr((*p).data) {
                out.push(b.to_vec());
            }
            p = (*p).next;
        }
    }
    out
}

/// The strings of a list, for options that take one (HTTPHEADER, RESOLVE...).
///
/// # Safety
/// `list` is NULL or a live list.
pub(crate) unsafe fn to_vec(list: *const CurlSlist) -> Vec<String> {
    let mut out = Vec::new();
    let mut p = list;
    while !p.is_null() {
        // SAFETY: live nodes per the caller; data is NULL or a C string.
        unsafe {
            if let Some(b) = cstr((*p).data) {
                out.push(String::from_utf8_lossy(b).into_owned());
            }
            p = (*p).next;
        }
    }
    out
}
