//! Opening connections: non-blocking TCP connects with Happy Eyeballs (curl's
//! `cf-happy-eyeballs` and `cf-socket`), Unix domain sockets, and the socket options curl sets.
//! The caller polls; nothing here blocks.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, SockAddr, Socket, TcpKeepalive, Type};

use crate::options::Options;

/// A connected byte stream.
#[derive(Debug)]
pub enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    pub fn fd(&self) -> BorrowedFd<'_> {
        match self {
            Stream::Tcp(s) => s.as_fd(),
            Stream::Unix(s) => s.as_fd(),
        }
    }
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }
    pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        }
    }
    /// A second handle to the same socket.
    pub fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
        })
    }
    /// Is an idle connection still usable? (Not closed, nothing unexpected waiting.)
    pub fn is_alive(&self) -> bool {
        let mut b = [0u8; 1];
        let r = match self {
            Stream::Tcp(s) => s.peek(&mut b),
            Stream::Unix(s) => {
                // UnixStream has no peek in std: a non-blocking read that would consume is
                // only attempted on an idle connection, where any byte is a protocol error.
                (&*s).read(&mut b)
            }
        };
        matches!(r, Err(ref e) if e.kind() == io::ErrorKind::WouldBlock)
    }
}

/// A process-unique socket identity, so a reused descriptor number is never mistaken for
/// the socket that had it before.
pub fn next_sock_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// One connect attempt in flight.
#[derive(Debug)]
struct Attempt {
    sock: Socket,
    addr: SocketAddr,
    id: u64,
}

/// Outcome of a poll of the connect phase.
#[derive(Debug)]
pub enum ConnectPoll {
    Pending,
    Connected(TcpStream, SocketAddr),
    Failed(io::Error),
}

/// What `-v` says while connecting.
pub type Note = String;

/// Happy Eyeballs over one address list: the first address's family starts, the other
/// family follows after `happy_eyeballs_timeout` or when the first runs out of addresses.
#[derive(Debug)]
pub struct HappyEyeballs {
    families: [Family; 2],
    second_at: Option<Instant>,
    last_err: Option<io::Error>,
}

#[derive(Debug, Default)]
struct Family {
    addrs: Vec<SocketAddr>,
    next: usize,
    current: Option<Attempt>,
    started: bool,
}

impl Family {
    fn exhausted(&self) -> bool {
        self.current.is_none() && self.next >= self.addrs.len()
    }
}

impl HappyEyeballs {
    pub fn new(addrs: &[SocketAddr], now: Instant, opts: &Options) -> HappyEyeballs {
        let first_v6 = addrs.first().is_some_and(|a| a.is_ipv6());
        let mut a = Family::default();
        let mut b = Family::default();
        for addr in addrs {
            if addr.is_ipv6() == first_v6 {
                a.addrs.push(*addr);
            } else {
                b.addrs.push(*addr);
            }
        }
        let second_at = (!b.addrs.is_empty()).then(|| now + opts.happy_eyeballs_timeout);
        HappyEyeballs {
            families: [a, b],
            second_at,
            last_err: None,
        }
    }

    /// When the second family is due to start, if it has not started.
    pub fn next_deadline(&self) -> Option<Instant> {
        if self.families[1].started {
            None
        } else {
            self.second_at
        }
    }

    /// Sockets with a connect in flight (wait for writable).
    pub fn pending_fds(&self) -> impl Iterator<Item = (BorrowedFd<'_>, u64)> {
        self.families
            .iter()
            .filter_map(|f| f.current.as_ref().map(|a| (a.sock.as_fd(), a.id)))
    }

    /// Advance: start attempts, check in-flight ones. `notes` gets `-v` lines.
    pub fn poll(&mut self, now: Instant, opts: &Options, notes: &mut Vec<Note>) -> ConnectPoll {
        if !self.families[0].started {
            self.families[0].started = true;
        }
        let second_due = self.second_at.is_some_and(|t| t <= now) || self.families[0].exhausted();
        if second_due && !self.families[1].addrs.is_empty() {
            self.families[1].started = true;
        }
        for i in 0..2 {
            // The first family may have run out just now: the second starts at once.
            if i == 1 && self.families[0].exhausted() && !self.families[1].addrs.is_empty() {
                self.families[1].started = true;
            }
            if !self.families[i].started {
                continue;
            }
            loop {
                let fam = &mut self.families[i];
                if let Some(at) = &fam.current {
                    match check_connected(&at.sock) {
                        Ok(true) => {
                            let at = fam.current.take().expect("attempt present");
                            let stream: TcpStream = at.sock.into();
                            // Drop the other family's attempt.
                            self.families[1 - i].current = None;
                            return ConnectPoll::Connected(stream, at.addr);
                        }
                        Ok(false) => break,
                        Err(e) => {
                            let at = fam.current.take().expect("attempt present");
                            let local = at
                                .sock
                                .local_addr()
                                .ok()
                                .and_then(|a| a.as_socket())
                                .map(|a| format!(" from {} port {}", a.ip(), a.port()))
                                .unwrap_or_default();
                            notes.push(format!(
                                "connect to {} port {}{} failed: {}",
                                at.addr.ip(),
                                at.addr.port(),
                                local,
                                os_error_text(&e)
                            ));
                            self.last_err = Some(e);
                        }
                    }
                }
                let fam = &mut self.families[i];
                if fam.next >= fam.addrs.len() {
                    break;
                }
                let addr = fam.addrs[fam.next];
                fam.next += 1;
                notes.push(format!("  Trying {}...", fmt_addr(&addr)));
                match start_connect(addr, opts) {
                    Ok(sock) => {
                        fam.current = Some(Attempt {
                            sock,
                            addr,
                            id: next_sock_id(),
                        })
                    }
                    Err(e) => {
                        notes.push(format!(
                            "connect to {} port {} failed: {}",
                            addr.ip(),
                            addr.port(),
                            os_error_text(&e)
                        ));
                        self.last_err = Some(e);
                    }
                }
            }
        }
        if self.families.iter().all(|f| f.exhausted()) {
            let e = self
                .last_err
                .take()
                .unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no address"));
            return ConnectPoll::Failed(e);
        }
        ConnectPoll::Pending
    }
}

/// `127.0.0.1:80` or `[::1]:80`, as curl prints addresses.
pub fn fmt_addr(a: &SocketAddr) -> String {
    match a {
        SocketAddr::V4(v) => format!("{}:{}", v.ip(), v.port()),
        SocketAddr::V6(v) => format!("[{}]:{}", v.ip(), v.port()),
    }
}

/// strerror text of an OS error, without Rust's " (os error N)" suffix.
pub fn os_error_text(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

fn check_connected(sock: &Socket) -> io::Result<bool> {
    if let Some(e) = sock.take_error()? {
        return Err(e);
    }
    match sock.peer_addr() {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(false),
        Err(e) => Err(e),
    }
}

fn start_connect(addr: SocketAddr, opts: &Options) -> io::Result<Socket> {
    let sock = Socket::new(
        Domain::for_address(addr),
        Type::STREAM.nonblocking().cloexec(),
        Some(Protocol::TCP),
    )?;
    if opts.tcp_nodelay {
        sock.set_nodelay(true)?;
    }
    // Like curl, a keepalive or TOS value the kernel refuses (a zero idle time, say) is
    // skipped, not a reason to fail the connection; each setting stands on its own.
    if opts.tcp_keepalive {
        let _ = sock.set_keepalive(true);
        let secs = |s: u32| Duration::from_secs(s.into());
        let _ = sock.set_tcp_keepalive(&TcpKeepalive::new().with_time(secs(opts.tcp_keepidle)));
        let _ =
            sock.set_tcp_keepalive(&TcpKeepalive::new().with_interval(secs(opts.tcp_keepintvl)));
        let _ = sock.set_tcp_keepalive(&TcpKeepalive::new().with_retries(opts.tcp_keepcnt));
    }
    if let Some(tos) = opts.ip_tos {
        let _ = if addr.is_ipv6() {
            sock.set_tclass_v6(tos)
        } else {
            sock.set_tos(tos)
        };
    }
    if let Some(ifname) = &opts.interface {
        bind_interface(&sock, ifname)?;
    }
    if opts.local_port != 0 {
        bind_local_port(&sock, addr, opts.local_port, opts.local_port_range)?;
    }
    match sock.connect(&SockAddr::from(addr)) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(115) || e.kind() == io::ErrorKind::WouldBlock => {}
        Err(e) => return Err(e),
    }
    Ok(sock)
}

fn bind_interface(sock: &Socket, ifname: &str) -> io::Result<()> {
    let name = ifname
        .strip_prefix("if!")
        .or_else(|| ifname.strip_prefix("host!"))
        .unwrap_or(ifname);
    if let Ok(ip) = name.parse::<std::net::IpAddr>() {
        return sock.bind(&SockAddr::from(SocketAddr::new(ip, 0)));
    }
    sock.bind_device(Some(name.as_bytes()))
}

fn bind_local_port(sock: &Socket, addr: SocketAddr, port: u16, range: u16) -> io::Result<()> {
    let ip: std::net::IpAddr = if addr.is_ipv6() {
        std::net::Ipv6Addr::UNSPECIFIED.into()
    } else {
        std::net::Ipv4Addr::UNSPECIFIED.into()
    };
    let mut last = None;
    for p in port..=port.saturating_add(range.saturating_sub(1)) {
        match sock.bind(&SockAddr::from(SocketAddr::new(ip, p))) {
            Ok(()) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("bind failed")))
}

/// Connect to a Unix domain socket (blocking connect is immediate for local sockets).
pub fn connect_unix(path: &str, abstract_ns: bool) -> io::Result<UnixStream> {
    let s = if abstract_ns {
        use std::os::linux::net::SocketAddrExt;
        let a = std::os::unix::net::SocketAddr::from_abstract_name(path.as_bytes())?;
        UnixStream::connect_addr(&a)?
    } else {
        UnixStream::connect(path)?
    };
    s.set_nonblocking(true)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A loopback port nothing listens on (bound, then released).
    fn closed_port() -> u16 {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    }

    #[test]
    fn second_family_starts_as_soon_as_the_first_runs_out() {
        let port = closed_port();
        let addrs = [
            SocketAddr::from(([0, 0, 0, 0, 0, 0, 0, 1], port)),
            SocketAddr::from(([127, 0, 0, 1], port)),
        ];
        let opts = Options::default();
        let now = Instant::now();
        let mut he = HappyEyeballs::new(&addrs, now, &opts);
        let mut notes = Vec::new();
        // The clock never reaches the Happy Eyeballs delay: only the first family's
        // failure can start the second one.
        let mut failed = false;
        for _ in 0..50 {
            let r = he.poll(now, &opts, &mut notes);
            // Nothing else would wake the transfer before the delay: the poll that sees
            // the first family fail must already have started the second.
            if notes.iter().any(|n| n.starts_with("connect to ::1")) {
                assert!(
                    notes.iter().any(|n| n.starts_with("  Trying 127.0.0.1:")),
                    "{notes:?}"
                );
            }
            match r {
                ConnectPoll::Failed(_) => {
                    failed = true;
                    break;
                }
                ConnectPoll::Connected(..) => panic!("nothing listens there"),
                ConnectPoll::Pending => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        assert!(failed, "{notes:?}");
        assert!(
            notes.iter().any(|n| n.starts_with("  Trying 127.0.0.1:")),
            "{notes:?}"
        );
    }

    #[test]
    fn socket_gets_keepalive_count_and_type_of_service() {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let opts = Options {
            tcp_keepalive: true,
            tcp_keepcnt: 4,
            ip_tos: Some(0x20),
            ..Options::default()
        };
        let sock = start_connect(l.local_addr().expect("addr"), &opts).expect("connect");
        assert_eq!(sock.keepalive_retries().expect("TCP_KEEPCNT"), 4);
        assert_eq!(
            sock.keepalive_time().expect("TCP_KEEPIDLE"),
            Duration::from_secs(60)
        );
        assert_eq!(sock.tos().expect("IP_TOS"), 0x20);
        let plain =
            start_connect(l.local_addr().expect("addr"), &Options::default()).expect("connect");
        assert_eq!(plain.tos().expect("IP_TOS"), 0);
    }

    #[test]
    fn ipv6_socket_gets_the_traffic_class() {
        let Ok(l) = TcpListener::bind("[::1]:0") else {
            return; // no IPv6 loopback on this machine
        };
        let opts = Options {
            ip_tos: Some(0xb8),
            ..Options::default()
        };
        let sock = start_connect(l.local_addr().expect("addr"), &opts).expect("connect");
        assert_eq!(sock.tclass_v6().expect("IPV6_TCLASS"), 0xb8);
    }

    #[test]
    fn refused_keepalive_values_do_not_fail_the_socket() {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let opts = Options {
            tcp_keepalive: true,
            tcp_keepidle: 0,
            tcp_keepintvl: 0,
            tcp_keepcnt: 5,
            ..Options::default()
        };
        let sock = start_connect(l.local_addr().expect("addr"), &opts).expect("connect");
        assert!(sock.keepalive().expect("SO_KEEPALIVE"));
        assert_eq!(sock.keepalive_retries().expect("TCP_KEEPCNT"), 5);
    }
}
