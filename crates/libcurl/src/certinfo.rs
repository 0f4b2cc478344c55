//! `struct curl_certinfo` (`CURLINFO_CERTINFO`): one `curl_slist` of `Label:value` entries per
//! certificate of the server's chain. The lists are the handle's, handed out until the next
//! transfer, `curl_easy_reset` or `curl_easy_cleanup`, as curl keeps them.

use crate::slist::{curl_slist_append, curl_slist_free_all, CurlSlist};
use std::ffi::{c_int, CString};

/// `struct curl_certinfo` from curl.h.
#[repr(C)]
pub struct CurlCertinfo {
    pub num_of_certs: c_int,
    pub certinfo: *mut *mut CurlSlist,
}

/// The C form of a transfer's certificate list, built on first request.
pub(crate) struct Certinfo {
    c: Box<CurlCertinfo>,
    lists: Vec<*mut CurlSlist>,
}

impl Certinfo {
    pub(crate) fn new(certs: &[Vec<String>]) -> Certinfo {
        let mut lists: Vec<*mut CurlSlist> = certs
            .iter()
            .map(|entries| {
                let mut list: *mut CurlSlist = std::ptr::null_mut();
                for e in entries {
                    let s = CString::new(e.replace('\0', ".")).unwrap_or_default();
                    let next = curl_slist_append(list, s.as_ptr());
                    if next.is_null() {
                        break;
                    }
                    list = next;
                }
                list
            })
            .collect();
        let c = Box::new(CurlCertinfo {
            num_of_certs: c_int::try_from(lists.len()).unwrap_or(c_int::MAX),
            certinfo: if lists.is_empty() {
                std::ptr::null_mut()
            } else {
                lists.as_mut_ptr()
            },
        });
        Certinfo { c, lists }
    }

    /// What `CURLINFO_CERTINFO` hands out; valid while `self` lives.
    pub(crate) fn as_ptr(&mut self) -> *mut CurlCertinfo {
        &mut *self.c
    }
}

impl Drop for Certinfo {
    fn drop(&mut self) {
        for l in self.lists.drain(..) {
            curl_slist_free_all(l);
        }
    }
}
