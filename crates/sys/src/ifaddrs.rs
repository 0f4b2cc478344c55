//! The system's network interface addresses (`getifaddrs`), for FTP's `-P NAME` (curl's
//! `Curl_if2ip`): the standard library has no interface list.

use std::ffi::CStr;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One address of one interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfAddr {
    /// The interface's name (`lo`, `eth0`).
    pub name: String,
    /// Its address, when it is IPv4 or IPv6 (None for the interface's other entries, such
    /// as its link-layer one).
    pub addr: Option<IpAddr>,
    /// The IPv6 scope id (0 otherwise).
    pub scope_id: u32,
}

/// Every interface address, in the order the system lists them.
pub fn interface_addrs() -> io::Result<Vec<IfAddr>> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a pointer to a list it allocated into `head`, which is a
    // valid place for one; on failure it returns -1 and allocates nothing.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut out = Vec::new();
    let mut cur = head;
    while !cur.is_null() {
        // SAFETY: `cur` is a non-null node of the list getifaddrs made, alive until
        // freeifaddrs below; its fields are read, never written.
        let ifa = unsafe { &*cur };
        let name = if ifa.ifa_name.is_null() {
            String::new()
        } else {
            // SAFETY: a non-null ifa_name is a NUL-terminated string owned by the list.
            unsafe { CStr::from_ptr(ifa.ifa_name) }
                .to_string_lossy()
                .into_owned()
        };
        let (addr, scope_id) = if ifa.ifa_addr.is_null() {
            (None, 0)
        } else {
            // SAFETY: a non-null ifa_addr points to a sockaddr whose family says how long
            // it is: sockaddr_in for AF_INET, sockaddr_in6 for AF_INET6; other families
            // are not read past sa_family.
            unsafe {
                match i32::from((*ifa.ifa_addr).sa_family) {
                    libc::AF_INET => {
                        let sa = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                        let ip = Ipv4Addr::from(u32::from_be(sa.sin_addr.s_addr));
                        (Some(IpAddr::V4(ip)), 0)
                    }
                    libc::AF_INET6 => {
                        let sa = &*(ifa.ifa_addr as *const libc::sockaddr_in6);
                        let ip = Ipv6Addr::from(sa.sin6_addr.s6_addr);
                        (Some(IpAddr::V6(ip)), sa.sin6_scope_id)
                    }
                    _ => (None, 0),
                }
            }
        };
        out.push(IfAddr {
            name,
            addr,
            scope_id,
        });
        cur = ifa.ifa_next;
    }
    // SAFETY: `head` came from a successful getifaddrs and is freed once; no reference
    // into the list outlives this point (names were copied).
    unsafe { libc::freeifaddrs(head) };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_listed_with_its_address() {
        let all = interface_addrs().expect("getifaddrs");
        assert!(
            all.iter()
                .any(|a| a.name == "lo" && a.addr == Some(IpAddr::V4(Ipv4Addr::LOCALHOST))),
            "{all:?}"
        );
    }
}
