//! Opening connections: non-blocking TCP connects with Happy Eyeballs (curl's
//! `cf-happy-eyeballs` and `cf-socket`), Unix domain sockets, and the socket options curl sets.
//! The caller polls; nothing here blocks.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, SockAddr, Socket, TcpKeepalive, Type};

/// A connected byte stream.
#[derive(Debug)]
pub enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
    /// Given to the application's close hook: only while its connection is dropped.
    Closed,
}

/// Only a connection being dropped has a closed stream (see `Conn`'s `Drop`).
const NEVER_CLOSED: &str = "a stream is closed only while its connection is dropped";

/// Where a new socket is to connect (what `CURLOPT_OPENSOCKETFUNCTION` is shown, and may
/// change).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SockTarget {
    Ip(SocketAddr),
    /// A Unix domain socket path (abstract: in the abstract namespace).
    Unix {
        path: Vec<u8>,
        abstract_ns: bool,
    },
}

/// What the application's socket-option hook answered (`CURL_SOCKOPT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sockopt {
    Ok,
    /// `CURL_SOCKOPT_ERROR`: the transfer fails with `CURLE_ABORTED_BY_CALLBACK`.
    Error,
    /// `CURL_SOCKOPT_ALREADY_CONNECTED`: the socket is connected, no connect is made.
    AlreadyConnected,
}

/// What the application's open hook answered.
#[derive(Debug)]
pub enum Opened {
    /// No hook: the engine makes the socket.
    Default,
    /// The application's socket, now the engine's until it gives it to [`SocketHooks::close`].
    Fd(OwnedFd),
    /// `CURL_SOCKET_BAD`: this address cannot be connected to.
    Bad,
}

/// The application's say in how connection sockets are made and closed
/// (`CURLOPT_OPENSOCKETFUNCTION`, `SOCKOPTFUNCTION`, `CLOSESOCKETFUNCTION`). The engine owns
/// sockets as `OwnedFd`s; descriptors cross to the application only in the C layer.
pub trait SocketHooks: Send + Sync + std::fmt::Debug {
    /// Make a socket for `target` (which the hook may change).
    fn open(&self, _target: &mut SockTarget) -> Opened {
        Opened::Default
    }
    /// The socket is made, not yet bound or connected.
    fn sockopt(&self, _fd: BorrowedFd<'_>) -> Sockopt {
        Sockopt::Ok
    }
    /// Close a socket the engine is done with.
    fn close(&self, fd: OwnedFd) {
        drop(fd);
    }
    /// Whether `close` is the application's (else sockets just close when dropped).
    fn closes(&self) -> bool {
        false
    }
}

/// What the socket code reads of a transfer's options ([`crate::Options::socket`]): the
/// Happy Eyeballs delay, local binding, TCP settings and the application's socket hooks.
#[derive(Clone, Copy, Debug)]
pub struct SocketOptions<'a> {
    pub happy_eyeballs_timeout: Duration,
    pub local_port: u16,
    pub local_port_range: u16,
    /// `--interface`.
    pub interface: Option<&'a str>,
    pub tcp_nodelay: bool,
    pub tcp_keepalive: bool,
    pub tcp_keepidle: u32,
    pub tcp_keepintvl: u32,
    pub tcp_keepcnt: u32,
    pub ip_tos: Option<u8>,
    pub socket_hooks: &'a Hooks,
}

/// The hooks of a transfer (`Options::socket_hooks`).
pub type Hooks = Option<Arc<dyn SocketHooks>>;

/// The socket-option hook refused a socket: the transfer fails with
/// `CURLE_ABORTED_BY_CALLBACK`.
#[derive(Debug)]
pub struct SockoptRefused;

impl std::fmt::Display for SockoptRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("setsockopt callback returned error")
    }
}

impl std::error::Error for SockoptRefused {}

/// The local binding (`--interface`, `--local-port`) failed: the transfer fails with
/// `CURLE_INTERFACE_FAILED` and curl's message, which this carries.
#[derive(Debug)]
pub struct BindFailed(pub String);

impl std::fmt::Display for BindFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BindFailed {}

/// Hands a socket to the application's close hook when there is one, else closes it.
pub fn close_with(hooks: &Hooks, fd: OwnedFd) {
    match hooks {
        Some(h) if h.closes() => h.close(fd),
        _ => drop(fd),
    }
}

impl Stream {
    pub fn fd(&self) -> BorrowedFd<'_> {
        match self {
            Stream::Tcp(s) => s.as_fd(),
            Stream::Unix(s) => s.as_fd(),
            Stream::Closed => unreachable!("{NEVER_CLOSED}"),
        }
    }
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
            Stream::Closed => Err(io::ErrorKind::NotConnected.into()),
        }
    }
    pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
            Stream::Closed => Err(io::ErrorKind::NotConnected.into()),
        }
    }
    /// The socket, to close.
    pub fn into_fd(self) -> Option<OwnedFd> {
        match self {
            Stream::Tcp(s) => Some(s.into()),
            Stream::Unix(s) => Some(s.into()),
            Stream::Closed => None,
        }
    }
    /// A second handle to the same socket.
    pub fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Closed => return Err(io::ErrorKind::NotConnected.into()),
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
            Stream::Closed => return false,
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
    /// Taken out once connected.
    sock: Option<Socket>,
    addr: SocketAddr,
    id: u64,
    /// connect(2) answered EINPROGRESS and the attempt was not looked at since: as curl's
    /// socket filter, the first check waits for the next round (the socket's writability),
    /// even on a loopback that has connected already.
    in_progress: bool,
}

/// A socket that goes to the application's close hook when dropped.
struct Guard<'a> {
    sock: Option<Socket>,
    hooks: &'a Hooks,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.sock.take() {
            close_with(self.hooks, s.into());
        }
    }
}

impl Guard<'_> {
    fn keep(mut self) -> Socket {
        self.sock.take().expect("socket")
    }
}

/// An attempt given up: its socket closes through the hooks.
fn discard(hooks: &Hooks, at: Option<Attempt>) {
    if let Some(s) = at.and_then(|a| a.sock) {
        close_with(hooks, s.into());
    }
}

/// Outcome of a poll of the connect phase.
#[derive(Debug)]
pub enum ConnectPoll {
    Pending,
    /// The socket, its peer, and the identity it had while connecting (kept, so the
    /// multi sees the same socket change its interest rather than a new one).
    Connected(TcpStream, SocketAddr, u64),
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
    /// The application's socket hooks (its close hook closes what is given up).
    hooks: Hooks,
}

impl Drop for HappyEyeballs {
    fn drop(&mut self) {
        for f in &mut self.families {
            discard(&self.hooks, f.current.take());
        }
    }
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
    pub fn new(addrs: &[SocketAddr], now: Instant, opts: &SocketOptions<'_>) -> HappyEyeballs {
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
            hooks: opts.socket_hooks.clone(),
        }
    }

    /// When the second family is due to start, if it has not started.
    /// The port the attempts go to (curl names it when they all failed).
    pub fn port(&self) -> Option<u16> {
        self.families
            .iter()
            .find_map(|f| f.addrs.first())
            .map(SocketAddr::port)
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        if self.families[1].started {
            None
        } else {
            self.second_at
        }
    }

    /// Sockets with a connect in flight (wait for writable).
    pub fn pending_fds(&self) -> impl Iterator<Item = (BorrowedFd<'_>, u64)> {
        self.families.iter().filter_map(|f| {
            let a = f.current.as_ref()?;
            Some((a.sock.as_ref()?.as_fd(), a.id))
        })
    }

    /// Advance: start attempts, check in-flight ones. `notes` gets `-v` lines.
    pub fn poll(
        &mut self,
        now: Instant,
        opts: &SocketOptions<'_>,
        notes: &mut Vec<Note>,
    ) -> ConnectPoll {
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
                if let Some(at) = &mut fam.current {
                    if std::mem::take(&mut at.in_progress) {
                        break;
                    }
                    let sock = at.sock.as_ref().expect("socket until connected");
                    match check_connected(sock) {
                        Ok(true) => {
                            let mut at = fam.current.take().expect("attempt present");
                            let stream: TcpStream =
                                at.sock.take().expect("socket until connected").into();
                            // Drop the other family's attempt.
                            discard(&self.hooks, self.families[1 - i].current.take());
                            return ConnectPoll::Connected(stream, at.addr, at.id);
                        }
                        Ok(false) => break,
                        Err(e) => {
                            let at = fam.current.take().expect("attempt present");
                            let local = at
                                .sock
                                .as_ref()
                                .and_then(|s| s.local_addr().ok())
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
                            discard(&self.hooks, Some(at));
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
                match start_connect(addr, opts, notes) {
                    Ok((sock, addr, in_progress)) => {
                        fam.current = Some(Attempt {
                            sock: Some(sock),
                            addr,
                            id: next_sock_id(),
                            in_progress,
                        })
                    }
                    Err(e)
                        if e.get_ref()
                            .is_some_and(|i| i.is::<SockoptRefused>() || i.is::<BindFailed>()) =>
                    {
                        return ConnectPoll::Failed(e);
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

/// A socket from the application's open hook, or a new one; `target` may change.
fn open_socket(target: &mut SockTarget, opts: &SocketOptions<'_>) -> io::Result<Option<Socket>> {
    match opts.socket_hooks.as_ref().map(|h| h.open(target)) {
        None | Some(Opened::Default) => Ok(None),
        Some(Opened::Fd(fd)) => {
            let s = Socket::from(fd);
            s.set_nonblocking(true)?;
            s.set_cloexec(true)?;
            Ok(Some(s))
        }
        Some(Opened::Bad) => Err(io::Error::new(
            io::ErrorKind::ConnectionRefused,
            "Could not open socket",
        )),
    }
}

/// The application's socket-option hook: whether the socket is already connected.
fn sockopt_hook(sock: &Socket, opts: &SocketOptions<'_>) -> io::Result<bool> {
    match opts.socket_hooks.as_ref().map(|h| h.sockopt(sock.as_fd())) {
        None | Some(Sockopt::Ok) => Ok(false),
        Some(Sockopt::AlreadyConnected) => Ok(true),
        Some(Sockopt::Error) => Err(io::Error::other(SockoptRefused)),
    }
}

fn start_connect(
    addr: SocketAddr,
    opts: &SocketOptions<'_>,
    notes: &mut Vec<String>,
) -> io::Result<(Socket, SocketAddr, bool)> {
    let mut target = SockTarget::Ip(addr);
    let hooked = open_socket(&mut target, opts)?;
    let addr = match target {
        SockTarget::Ip(a) => a,
        SockTarget::Unix { .. } => addr,
    };
    let sock = match hooked {
        Some(s) => s,
        None => Socket::new(
            Domain::for_address(addr),
            Type::STREAM.nonblocking().cloexec(),
            Some(Protocol::TCP),
        )?,
    };
    // The socket closes through the application's hook from here on, also on failure.
    let guard = Guard {
        sock: Some(sock),
        hooks: opts.socket_hooks,
    };
    let sock = guard.sock.as_ref().expect("socket");
    let connected = setup_socket(sock, addr, opts, notes)?;
    let mut in_progress = false;
    if !connected {
        match sock.connect(&SockAddr::from(addr)) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(115) || e.kind() == io::ErrorKind::WouldBlock => {
                in_progress = true
            }
            Err(e) => return Err(e),
        }
    }
    Ok((guard.keep(), addr, in_progress))
}

/// curl's socket options, then the application's hook, then the local binding; whether
/// the hook said the socket is connected already.
fn setup_socket(
    sock: &Socket,
    addr: SocketAddr,
    opts: &SocketOptions<'_>,
    notes: &mut Vec<String>,
) -> io::Result<bool> {
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
    if let Some(tos) = opts.ip_tos.map(u32::from) {
        let _ = if addr.is_ipv6() {
            sock.set_tclass_v6(tos)
        } else {
            sock.set_tos(tos)
        };
    }
    let connected = sockopt_hook(sock, opts)?;
    bind_local(sock, addr, opts, notes)?;
    Ok(connected)
}

/// The parts of `CURLOPT_INTERFACE` (curl's `Curl_setopt` for it): `if!NAME` an interface
/// only, `host!NAME` a host name or address only, `ifhost!IF!HOST` both, anything else
/// either (tried as an interface first).
/// What `--interface` names (curl's `Curl_parse_interface`): an interface, a host, or both,
/// and which of them the `if!`, `host!` and `ifhost!` prefixes fixed.
#[derive(Debug, PartialEq, Eq)]
pub struct LocalBind<'a> {
    pub iface: Option<&'a str>,
    pub host: Option<&'a str>,
    pub iface_given: bool,
    pub host_given: bool,
}

/// `--interface` read as curl reads it: `if!NAME`, `host!NAME`, `ifhost!IFACE!HOST`, or a
/// plain name tried as an interface and then as a host.
pub fn parse_interface(v: &str) -> LocalBind<'_> {
    if let Some(i) = v.strip_prefix("if!") {
        LocalBind {
            iface: Some(i),
            host: None,
            iface_given: true,
            host_given: false,
        }
    } else if let Some(h) = v.strip_prefix("host!") {
        LocalBind {
            iface: None,
            host: Some(h),
            iface_given: false,
            host_given: true,
        }
    } else if let Some((i, h)) = v.strip_prefix("ifhost!").and_then(|r| r.split_once('!')) {
        LocalBind {
            iface: Some(i),
            host: Some(h),
            iface_given: true,
            host_given: true,
        }
    } else {
        LocalBind {
            iface: Some(v),
            host: Some(v),
            iface_given: false,
            host_given: false,
        }
    }
}

fn bind_error(e: &io::Error) -> (i32, String) {
    (e.raw_os_error().unwrap_or(0), os_error_text(e))
}

fn bind_failed(msg: String) -> io::Error {
    io::Error::other(BindFailed(msg))
}

/// curl's `bindlocal`: bind the socket to the interface, the local address and the local
/// port asked for, with curl's messages when that fails.
fn bind_local(
    sock: &Socket,
    addr: SocketAddr,
    opts: &SocketOptions<'_>,
    notes: &mut Vec<String>,
) -> io::Result<()> {
    let mut port = opts.local_port;
    let b = opts.interface.map(parse_interface);
    let mut ip: std::net::IpAddr = if addr.is_ipv6() {
        std::net::Ipv6Addr::UNSPECIFIED.into()
    } else {
        std::net::Ipv4Addr::UNSPECIFIED.into()
    };
    if let Some(b) = b {
        let mut err = (0, String::new());
        if let Some(iface) = b.iface {
            match sock.bind_device(Some(iface.as_bytes())) {
                Ok(()) if !b.host_given => {
                    notes.push(format!("socket successfully bound to interface '{iface}'"));
                    return Ok(());
                }
                Ok(()) => {}
                Err(e) => err = bind_error(&e),
            }
            if b.iface_given && !b.host_given {
                return Err(bind_failed(format!(
                    "Couldn't bind to interface '{iface}' with errno {}: {}",
                    err.0, err.1
                )));
            }
        }
        let host = b.host.unwrap_or_default();
        let want_v6 = addr.is_ipv6();
        let found = match host.parse::<std::net::IpAddr>() {
            Ok(a) => Some(a),
            Err(_) => std::net::ToSocketAddrs::to_socket_addrs(&(host, 80))
                .ok()
                .and_then(|mut it| it.find(|a| a.is_ipv6() == want_v6 || !want_v6))
                .map(|a| a.ip()),
        };
        match found {
            Some(a) => {
                notes.push(format!(
                    "Name '{host}' family {} resolved to '{a}' family {}",
                    if want_v6 { 10 } else { 2 },
                    if a.is_ipv6() { 10 } else { 2 }
                ));
                if a.is_ipv6() != want_v6 {
                    // Another address family: this address cannot be used from here.
                    return Err(io::Error::from(io::ErrorKind::AddrNotAvailable));
                }
                ip = a;
            }
            None => {
                if b.iface.is_none() {
                    err = bind_error(&io::Error::last_os_error());
                }
                return Err(bind_failed(format!(
                    "Couldn't bind to '{host}' with errno {}: {}",
                    err.0, err.1
                )));
            }
        }
    } else if port == 0 {
        return Ok(());
    }
    let mut left = opts.local_port_range.max(1);
    loop {
        match sock.bind(&SockAddr::from(SocketAddr::new(ip, port))) {
            Ok(()) => {
                notes.push(format!("Local port: {port}"));
                return Ok(());
            }
            Err(e) => {
                left -= 1;
                if left > 0 && port < u16::MAX && port != 0 {
                    notes.push(format!("Bind to local port {port} failed, trying next"));
                    port += 1;
                    continue;
                }
                let (no, text) = bind_error(&e);
                return Err(bind_failed(format!("bind failed with errno {no}: {text}")));
            }
        }
    }
}

/// Connect to a Unix domain socket (blocking connect is immediate for local sockets),
/// through the application's hooks when it has them.
pub fn connect_unix(
    path: &str,
    abstract_ns: bool,
    opts: &SocketOptions<'_>,
) -> io::Result<UnixStream> {
    if opts.socket_hooks.is_some() {
        let mut target = SockTarget::Unix {
            path: path.as_bytes().to_vec(),
            abstract_ns,
        };
        let sock = match open_socket(&mut target, opts)? {
            Some(s) => s,
            None => Socket::new(Domain::UNIX, Type::STREAM.cloexec(), None)?,
        };
        let guard = Guard {
            sock: Some(sock),
            hooks: opts.socket_hooks,
        };
        let sock = guard.sock.as_ref().expect("socket");
        if !sockopt_hook(sock, opts)? {
            use std::os::unix::ffi::OsStrExt;
            let mut name = Vec::new();
            match &target {
                SockTarget::Unix { path, abstract_ns } => {
                    if *abstract_ns {
                        name.push(0);
                    }
                    name.extend_from_slice(path);
                }
                SockTarget::Ip(_) => name.extend_from_slice(path.as_bytes()),
            }
            sock.connect(&SockAddr::unix(std::ffi::OsStr::from_bytes(&name))?)?;
        }
        sock.set_nonblocking(true)?;
        let s: OwnedFd = guard.keep().into();
        return Ok(UnixStream::from(s));
    }
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
    use crate::options::Options;
    use std::net::TcpListener;

    /// A loopback port nothing listens on (bound, then released).
    fn closed_port() -> u16 {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    }

    #[test]
    fn an_in_progress_connect_is_looked_at_in_the_next_round() {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addrs = [l.local_addr().expect("addr")];
        let opts = Options::default();
        let now = Instant::now();
        let mut he = HappyEyeballs::new(&addrs, now, &opts.socket());
        let mut notes = Vec::new();
        // A loopback connect is done almost at once, but as in curl the round that started
        // it waits for the socket's writability.
        assert!(matches!(
            he.poll(now, &opts.socket(), &mut notes),
            ConnectPoll::Pending
        ));
        std::thread::sleep(Duration::from_millis(20));
        assert!(matches!(
            he.poll(now, &opts.socket(), &mut notes),
            ConnectPoll::Connected(..)
        ));
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
        let mut he = HappyEyeballs::new(&addrs, now, &opts.socket());
        let mut notes = Vec::new();
        // The clock never reaches the Happy Eyeballs delay: only the first family's
        // failure can start the second one.
        let mut failed = false;
        for _ in 0..50 {
            let r = he.poll(now, &opts.socket(), &mut notes);
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
        let (sock, _, _) = start_connect(
            l.local_addr().expect("addr"),
            &opts.socket(),
            &mut Vec::new(),
        )
        .expect("connect");
        assert_eq!(sock.keepalive_retries().expect("TCP_KEEPCNT"), 4);
        assert_eq!(
            sock.keepalive_time().expect("TCP_KEEPIDLE"),
            Duration::from_secs(60)
        );
        assert_eq!(sock.tos().expect("IP_TOS"), 0x20);
        let (plain, _, _) = start_connect(
            l.local_addr().expect("addr"),
            &Options::default().socket(),
            &mut Vec::new(),
        )
        .expect("connect");
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
        let (sock, _, _) = start_connect(
            l.local_addr().expect("addr"),
            &opts.socket(),
            &mut Vec::new(),
        )
        .expect("connect");
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
        let (sock, _, _) = start_connect(
            l.local_addr().expect("addr"),
            &opts.socket(),
            &mut Vec::new(),
        )
        .expect("connect");
        assert!(sock.keepalive().expect("SO_KEEPALIVE"));
        assert_eq!(sock.keepalive_retries().expect("TCP_KEEPCNT"), 5);
    }
}
