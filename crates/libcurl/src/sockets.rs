//! `CURLOPT_OPENSOCKETFUNCTION`, `SOCKOPTFUNCTION` and `CLOSESOCKETFUNCTION`: the engine's
//! `SocketHooks` made of the application's C callbacks. Descriptors become `OwnedFd`s here
//! (the application hands a socket over when its open callback returns it) and go back to
//! the application's close callback as plain numbers.

use oxcurl_core::connect::{Opened, SockTarget, SocketHooks, Sockopt};
use std::ffi::{c_int, c_uint, c_void};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd};

/// `curl_opensocket_callback`.
pub type OpenSocketFn = unsafe extern "C" fn(*mut c_void, c_int, *mut CurlSockaddr) -> c_int;
/// `curl_sockopt_callback`.
pub type SockoptFn = unsafe extern "C" fn(*mut c_void, c_int, c_int) -> c_int;
/// `curl_closesocket_callback`.
pub type CloseSocketFn = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;

/// `CURLSOCKTYPE_IPCXN`: a socket for a connection.
const CURLSOCKTYPE_IPCXN: c_int = 0;
/// `CURL_SOCKOPT_ALREADY_CONNECTED`.
const CURL_SOCKOPT_ALREADY_CONNECTED: c_int = 2;

const AF_UNIX: u16 = 1;
const AF_INET: u16 = 2;
const AF_INET6: u16 = 10;

/// `struct curl_sockaddr`, with room after `addr` for any address as curl allocates it
/// (`struct Curl_sockaddr_ex`: the address is a `struct sockaddr_storage`).
#[repr(C, align(8))]
pub struct CurlSockaddr {
    pub family: c_int,
    pub socktype: c_int,
    pub protocol: c_int,
    pub addrlen: c_uint,
    pub addr: [u8; 128],
}

impl CurlSockaddr {
    fn new(target: &SockTarget) -> CurlSockaddr {
        let mut a = CurlSockaddr {
            family: 0,
            socktype: 1, // SOCK_STREAM
            protocol: 6, // IPPROTO_TCP
            addrlen: 0,
            addr: [0; 128],
        };
        let b = &mut a.addr;
        match target {
            SockTarget::Ip(SocketAddr::V4(v)) => {
                b[..2].copy_from_slice(&AF_INET.to_ne_bytes());
                b[2..4].copy_from_slice(&v.port().to_be_bytes());
                b[4..8].copy_from_slice(&v.ip().octets());
                a.family = AF_INET.into();
                a.addrlen = 16;
            }
            SockTarget::Ip(SocketAddr::V6(v)) => {
                b[..2].copy_from_slice(&AF_INET6.to_ne_bytes());
                b[2..4].copy_from_slice(&v.port().to_be_bytes());
                b[4..8].copy_from_slice(&v.flowinfo().to_be_bytes());
                b[8..24].copy_from_slice(&v.ip().octets());
                b[24..28].copy_from_slice(&v.scope_id().to_ne_bytes());
                a.family = AF_INET6.into();
                a.addrlen = 28;
            }
            SockTarget::Unix { path, abstract_ns } => {
                b[..2].copy_from_slice(&AF_UNIX.to_ne_bytes());
                let start = 2 + usize::from(*abstract_ns);
                let n = path.len().min(b.len() - start - 1);
                b[start..start + n].copy_from_slice(&path[..n]);
                a.family = AF_UNIX.into();
                a.protocol = 0;
                // curl counts the terminating NUL of a path name.
                a.addrlen = (start + n + usize::from(!*abstract_ns)) as c_uint;
            }
        }
        a
    }

    /// The address as the callback left it.
    fn target(&self) -> Option<SockTarget> {
        let b = &self.addr;
        let family = u16::from_ne_bytes([b[0], b[1]]);
        let port = u16::from_be_bytes([b[2], b[3]]);
        match family {
            AF_INET => {
                let ip = Ipv4Addr::new(b[4], b[5], b[6], b[7]);
                Some(SockTarget::Ip(SocketAddrV4::new(ip, port).into()))
            }
            AF_INET6 => {
                let mut o = [0u8; 16];
                o.copy_from_slice(&b[8..24]);
                let flow = u32::from_be_bytes([b[4], b[5], b[6], b[7]]);
                let scope = u32::from_ne_bytes([b[24], b[25], b[26], b[27]]);
                let a = SocketAddrV6::new(Ipv6Addr::from(o), port, flow, scope);
                Some(SockTarget::Ip(a.into()))
            }
            AF_UNIX => {
                let len = (self.addrlen as usize).clamp(2, b.len());
                let raw = &b[2..len];
                let abstract_ns = raw.first() == Some(&0);
                let path = if abstract_ns { &raw[1..] } else { raw };
                let end = if abstract_ns {
                    path.len()
                } else {
                    path.iter().position(|&c| c == 0).unwrap_or(path.len())
                };
                Some(SockTarget::Unix {
                    path: path[..end].to_vec(),
                    abstract_ns,
                })
            }
            _ => None,
        }
    }
}

/// The socket callbacks and their userdata, as set with setopt.
#[derive(Clone, Copy)]
pub(crate) struct SocketCallbacks {
    pub open: Option<OpenSocketFn>,
    pub open_data: *mut c_void,
    pub sockopt: Option<SockoptFn>,
    pub sockopt_data: *mut c_void,
    pub close: Option<CloseSocketFn>,
    pub close_data: *mut c_void,
}

impl Default for SocketCallbacks {
    fn default() -> SocketCallbacks {
        SocketCallbacks {
            open: None,
            open_data: std::ptr::null_mut(),
            sockopt: None,
            sockopt_data: std::ptr::null_mut(),
            close: None,
            close_data: std::ptr::null_mut(),
        }
    }
}

impl SocketCallbacks {
    /// The engine's hooks, when any callback is set.
    pub(crate) fn hooks(&self) -> oxcurl_core::connect::Hooks {
        if self.open.is_none() && self.sockopt.is_none() && self.close.is_none() {
            return None;
        }
        Some(std::sync::Arc::new(CHooks(*self)))
    }
}

struct CHooks(SocketCallbacks);

impl std::fmt::Debug for CHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CHooks")
    }
}

// SAFETY: libcurl's contract: a handle (and so its callbacks and their userdata) is used by
// one thread at a time; the hooks run on the thread driving its transfer, as curl's do.
unsafe impl Send for CHooks {}
// SAFETY: as above; the engine never calls the hooks from two threads at once.
unsafe impl Sync for CHooks {}

impl SocketHooks for CHooks {
    fn open(&self, target: &mut SockTarget) -> Opened {
        let Some(f) = self.0.open else {
            return Opened::Default;
        };
        let mut sa = CurlSockaddr::new(target);
        // SAFETY: an OPENSOCKETFUNCTION-shaped pointer; `sa` is a live curl_sockaddr with
        // room for any address, which the callback may change.
        let fd = unsafe { f(self.0.open_data, CURLSOCKTYPE_IPCXN, &mut sa) };
        if fd < 0 {
            return Opened::Bad;
        }
        if let Some(t) = sa.target() {
            *target = t;
        }
        // SAFETY: the callback hands the socket it returns to the library (curl closes it,
        // or gives it to CLOSESOCKETFUNCTION); nothing else owns it now.
        Opened::Fd(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    fn sockopt(&self, fd: BorrowedFd<'_>) -> Sockopt {
        let Some(f) = self.0.sockopt else {
            return Sockopt::Ok;
        };
        // SAFETY: a SOCKOPTFUNCTION-shaped pointer; the descriptor is open for the call.
        match unsafe { f(self.0.sockopt_data, fd.as_raw_fd(), CURLSOCKTYPE_IPCXN) } {
            0 => Sockopt::Ok,
            CURL_SOCKOPT_ALREADY_CONNECTED => Sockopt::AlreadyConnected,
            _ => Sockopt::Error,
        }
    }

    fn closes(&self) -> bool {
        self.0.close.is_some()
    }

    fn close(&self, fd: OwnedFd) {
        let raw = fd.into_raw_fd();
        match self.0.close {
            // SAFETY: a CLOSESOCKETFUNCTION-shaped pointer; the socket is the
            // application's to close from here on.
            Some(f) => unsafe {
                f(self.0.close_data, raw);
            },
            // SAFETY: `raw` came from an OwnedFd just now; it is closed once.
            None => drop(unsafe { OwnedFd::from_raw_fd(raw) }),
        }
    }
}
