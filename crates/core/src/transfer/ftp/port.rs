//! FTP active mode (curl's `ftp_state_use_port`, `ftp_state_port_resp` and the TCP-ACCEPT
//! filter): a socket listening where `-P` says, announced with EPRT (then PORT, IPv4 only),
//! and the server's connection accepted once RETR, the listing command or STOR is answered,
//! within `CURLOPT_ACCEPTTIMEOUT_MS`. While it waits, a reply on the control connection is
//! the server giving up on the data connection.
//!
//! `-P`'s address may name an interface (curl's `Curl_if2ip`): its first address of the
//! control connection's family is announced (IPv6: one of the peer's scope); an interface
//! with none fails with 30, and a name that is no interface is looked up as a host.

use std::net::{TcpListener, ToSocketAddrs};

use socket2::{Domain, SockAddr, Socket, Type};

use super::*;

/// curl's `DEFAULT_ACCEPT_TIMEOUT`.
const DEFAULT_ACCEPT_TIMEOUT: Duration = Duration::from_secs(60);

/// Which command announces the listening socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PortCmd {
    Eprt,
    Port,
}

fn port_failed(msg: impl Into<String>) -> Error {
    Error::new(Code::FtpPortFailed, msg)
}

/// The text curl's `Curl_strerror` gives for an errno.
fn strerror(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(at) => s[..at].to_string(),
        None => s,
    }
}

/// Active mode's listening socket, handed to the application's close hook when it goes
/// (once the server connected, or the transfer failed).
pub(super) struct ListenSock {
    l: Option<TcpListener>,
    hooks: connect::Hooks,
}

impl ListenSock {
    fn accept(&self) -> io::Result<(std::net::TcpStream, SocketAddr)> {
        self.l.as_ref().expect("listening socket").accept()
    }
}

impl std::os::fd::AsFd for ListenSock {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.l.as_ref().expect("listening socket").as_fd()
    }
}

impl Drop for ListenSock {
    fn drop(&mut self) {
        if let Some(l) = self.l.take() {
            connect::close_with(&self.hooks, l.into());
        }
    }
}

/// What an interface name gives (curl's `if2ip_result_t`).
enum If2Ip {
    /// No interface of that name.
    NotFound,
    /// The interface has no address of the family (and scope) wanted.
    NoAddress,
    Found(String),
}

/// curl's `Curl_ipv6_scope`: global 0, link-local 1, site-local 2, unique local 3, node-local
/// (loopback) 4.
fn ipv6_scope(ip: IpAddr) -> u8 {
    let IpAddr::V6(v6) = ip else {
        return 0;
    };
    let b = v6.octets();
    if b[0] & 0xfe == 0xfc {
        return 3;
    }
    let w = u16::from_be_bytes([b[0], b[1]]);
    match w & 0xffc0 {
        0xfe80 => 1,
        0xfec0 => 2,
        0x0000 if b[1..15].iter().all(|&x| x == 0) && b[15] == 1 => 4,
        _ => 0,
    }
}

/// curl's `Curl_if2ip` for the control connection's peer `remote`: the first address of the
/// interface `name` (case-insensitive) in the peer's family and, for IPv6, its scope (with
/// the interface's scope id, as curl writes it).
fn if2ip(remote: SocketAddr, name: &str) -> If2Ip {
    let Ok(all) = oxcurl_sys::ifaddrs::interface_addrs() else {
        return If2Ip::NotFound;
    };
    let want_scope = ipv6_scope(remote.ip());
    let mut res = If2Ip::NotFound;
    for a in all.iter().filter(|a| a.name.eq_ignore_ascii_case(name)) {
        match a.addr {
            Some(ip) if ip.is_ipv6() == remote.is_ipv6() => {
                if ip.is_ipv6() && ipv6_scope(ip) != want_scope {
                    res = If2Ip::NoAddress;
                    continue;
                }
                return If2Ip::Found(match (ip, a.scope_id) {
                    (IpAddr::V6(_), id) if id != 0 => format!("{ip}%{id}"),
                    _ => ip.to_string(),
                });
            }
            _ => res = If2Ip::NoAddress,
        }
    }
    res
}

impl Transfer {
    /// curl's `ftp_state_use_port`: listen, then EPRT or PORT.
    pub(super) fn ftp_use_port(&mut self, cx: &mut Cx<'_>, mut cmd: PortCmd) -> Result<()> {
        let spec_text = self.opts.ftp().port.clone().unwrap_or_default();
        let spec = ftp::parse_port_spec(&spec_text)?;
        let c = self.conn.as_ref().expect("conn");
        let (Some(local), Some(remote)) = (c.local, c.remote) else {
            return Err(port_failed("getsockname() failed: Bad file descriptor"));
        };
        let conn_host = c
            .host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let mut possibly_non_local = spec.addr.is_some();
        let host = match spec.addr.clone() {
            None => local.ip().to_string(),
            Some(a) => match if2ip(remote, &a) {
                If2Ip::Found(ip) => ip,
                If2Ip::NoAddress => return Err(Error::code(Code::FtpPortFailed)),
                If2Ip::NotFound => a,
            },
        };
        // curl's Curl_resolv_blocking, through the DNS cache as every lookup goes (port 0).
        let ttl = self.opts.dns_cache_timeout;
        let addrs = match cx.resolver.cached(&host, 0, ttl, cx.now) {
            Some(a) => {
                self.verbose(&format!("Hostname {host} was found in DNS cache"));
                a
            }
            None => {
                let found: Vec<SocketAddr> = match host.parse::<IpAddr>() {
                    Ok(ip) => vec![SocketAddr::new(ip, 0)],
                    Err(_) => (host.as_str(), 0)
                        .to_socket_addrs()
                        .map(|a| a.collect())
                        .unwrap_or_default(),
                };
                if found.is_empty() {
                    // The resolver's message names the connection's host; curl keeps the
                    // first message.
                    return Err(Error::new(
                        Code::CouldntResolveHost,
                        format!("Could not resolve host: {conn_host}"),
                    ));
                }
                cx.resolver.insert(&host, 0, found.clone(), cx.now);
                found
            }
        };
        let target = addrs
            .iter()
            .find(|a| a.is_ipv6() == remote.is_ipv6())
            .unwrap_or(&addrs[0])
            .ip();
        let domain = if target.is_ipv6() {
            Domain::IPV6
        } else {
            Domain::IPV4
        };
        // Through the application's open hook when it has one, as curl's Curl_socket_open
        // (its close hook closes it once the server connected).
        let mut want = connect::SockTarget::Ip(SocketAddr::new(target, 0));
        let opened = self.opts.socket_hooks.as_ref().map(|h| h.open(&mut want));
        let sock = match opened {
            Some(connect::Opened::Fd(fd)) => {
                let s = Socket::from(fd);
                s.set_nonblocking(true)
                    .map_err(|e| port_failed(format!("socket failure: {}", strerror(&e))))?;
                s
            }
            Some(connect::Opened::Bad) => {
                return Err(port_failed("socket failure: Bad file descriptor"))
            }
            _ => Socket::new(domain, Type::STREAM.nonblocking().cloexec(), None)
                .map_err(|e| port_failed(format!("socket failure: {}", strerror(&e))))?,
        };
        let mut ip = target;
        let mut port = spec.port_min;
        loop {
            match sock.bind(&SockAddr::from(SocketAddr::new(ip, port))) {
                Ok(()) => break,
                Err(e) => {
                    let no = e.raw_os_error().unwrap_or(0);
                    if possibly_non_local && no == 99 {
                        // EADDRNOTAVAIL: not an address of this host; the control
                        // connection's then, from the first port again.
                        self.verbose(&format!(
                            "bind(port={port}) on non-local address failed: {}",
                            strerror(&e)
                        ));
                        ip = local.ip();
                        port = spec.port_min;
                        possibly_non_local = false;
                        continue;
                    }
                    // EADDRINUSE and EACCES try the next port.
                    if no != 98 && no != 13 {
                        return Err(port_failed(format!(
                            "bind(port={port}) failed: {}",
                            strerror(&e)
                        )));
                    }
                }
            }
            if port >= spec.port_max {
                return Err(port_failed("bind() failed, we ran out of ports"));
            }
            port += 1;
        }
        let bound = sock
            .local_addr()
            .ok()
            .and_then(|a| a.as_socket())
            .ok_or_else(|| port_failed("getsockname() failed: Bad file descriptor"))?;
        sock.listen(1)
            .map_err(|e| port_failed(format!("socket failure: {}", strerror(&e))))?;
        // curl cannot do without EPRT over IPv6.
        let m = conn_meta(self.conn.as_mut().expect("conn"));
        let eprt = !(self.opts.ftp().disable_eprt || m.eprt_failed) || remote.is_ipv6();
        if cmd == PortCmd::Eprt && !eprt {
            cmd = PortCmd::Port;
        }
        // curl announces the address it resolved, with the port it bound (also when the
        // bind fell back to the control connection's address: a host behind NAT names its
        // outside address this way).
        let announced = SocketAddr::new(target, bound.port());
        let line = match (cmd, announced) {
            (PortCmd::Eprt, a) => ftp::eprt_command(a),
            (PortCmd::Port, SocketAddr::V4(a)) => ftp::port_command(a),
            (PortCmd::Port, SocketAddr::V6(_)) => return Err(port_failed("Failed to do PORT")),
        };
        let listener = ListenSock {
            l: Some(sock.into()),
            hooks: self.opts.socket_hooks.clone(),
        };
        let x = self.ftp.as_mut().expect("ftp");
        x.data = Some(Data::Listening(listener, connect::next_sock_id()));
        let wait = self
            .opts
            .ftp()
            .accept_timeout
            .unwrap_or(DEFAULT_ACCEPT_TIMEOUT);
        x.accept_by = Some(cx.now + wait);
        x.step = Step::Port(cmd);
        // curl adds the TLS filter to the listening socket's chain.
        let tls = self.ftp_data_tls_config(cx)?;
        let x = self.ftp.as_mut().expect("ftp");
        x.tls_config = tls;
        self.ftp_send_line(&[line.as_bytes()])
    }

    /// curl's `ftp_state_port_resp`: on with the transfer, or PORT after a refused EPRT.
    pub(super) fn ftp_port_reply(&mut self, cmd: PortCmd, code: u32) -> Result<()> {
        if code / 100 == 2 {
            self.verbose("Connect data stream actively");
            // curl's do-more phase tries the accepting filter first.
            self.ftp_try_accept()?;
            return self.ftp_data_ready();
        }
        self.ftp.as_mut().expect("ftp").data = None;
        match cmd {
            PortCmd::Eprt => {
                self.verbose("disabling EPRT usage");
                conn_meta(self.conn.as_mut().expect("conn")).eprt_failed = true;
                // The next pass of the do phase makes the socket again.
                self.ftp_set(Step::PortStart(PortCmd::Port));
                Ok(())
            }
            PortCmd::Port => Err(port_failed("Failed to do PORT")),
        }
    }

    /// After the reply that starts the transfer in active mode: the server's connection,
    /// taken at once when it is there (curl's `Curl_conn_connect` on the accepting filter).
    pub(super) fn ftp_accept_start(&mut self) -> Result<()> {
        if self.ftp_try_accept()? {
            self.ftp_set(Step::Transfer);
            return Ok(());
        }
        self.verbose("Data conn was not available immediately");
        self.ftp_set(Step::Accept);
        Ok(())
    }

    /// Accept the server's data connection if it is there; true once the transfer can go.
    fn ftp_try_accept(&mut self) -> Result<bool> {
        let x = self.ftp.as_mut().expect("ftp");
        let Some(Data::Listening(l, _)) = &x.data else {
            return Ok(true);
        };
        match l.accept() {
            Ok((s, peer)) => {
                self.verbose("Ready to accept data connection from server");
                s.set_nonblocking(true).map_err(|_| {
                    Error::new(Code::FtpPortFailed, "Error accept()ing server connect")
                })?;
                self.verbose("Connection accepted from server");
                let x = self.ftp.as_mut().expect("ftp");
                let tls = x.tls_config.take();
                if tls.is_none() {
                    self.verbose(&format!(
                        "Connected 2nd connection to {} port {}",
                        peer.ip(),
                        peer.port()
                    ));
                }
                let x = self.ftp.as_mut().expect("ftp");
                // curl closes an accepted socket itself, not through the close callback.
                x.data = Some(Data::Open(DataSock::new(s, &None), connect::next_sock_id()));
                self.timers.clear(TimerId::Protocol);
                if let Some(config) = tls {
                    self.ftp_data_tls_start(config)?;
                }
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            Err(_) => Err(Error::new(
                Code::FtpPortFailed,
                "Error accept()ing server connect",
            )),
        }
    }

    /// Waiting for the server to connect (curl's `wait_data_conn`): accept it, or fail on
    /// the accept timeout or a reply on the control connection
    /// (`ftp_check_ctrl_on_data_wait`). True when the transfer can go.
    pub(super) fn ftp_accept_wait(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if self.ftp_try_accept()? {
            self.ftp_set(Step::Transfer);
            return Ok(true);
        }
        let by = self.ftp.as_ref().expect("ftp").accept_by;
        if let Some(by) = by {
            if cx.now >= by {
                return Err(Error::new(
                    Code::FtpAcceptTimeout,
                    "Accept timeout occurred while waiting server connect",
                ));
            }
            self.timers.set(TimerId::Protocol, by);
        }
        // A reply now is about the data connection.
        let Some(code) = self.ftp_response(cx)? else {
            return Ok(false);
        };
        self.verbose("Ctrl conn has data while waiting for data conn");
        self.verbose(&format!("FTP code: {code:03}"));
        if code / 100 > 3 {
            return Err(Error::code(Code::FtpAcceptFailed));
        }
        Err(Error::code(Code::WeirdServerReply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_scopes_as_curl_names_them() {
        let s = |t: &str| ipv6_scope(t.parse().unwrap());
        assert_eq!(s("127.0.0.1"), 0);
        assert_eq!(s("2001:db8::1"), 0);
        assert_eq!(s("fe80::1"), 1);
        assert_eq!(s("fec0::1"), 2);
        assert_eq!(s("fd00::2"), 3);
        assert_eq!(s("::1"), 4);
        assert_eq!(s("::2"), 0);
    }

    #[test]
    fn loopback_by_name() {
        let peer: SocketAddr = "127.0.0.1:21".parse().unwrap();
        assert!(matches!(if2ip(peer, "lo"), If2Ip::Found(ref ip) if ip == "127.0.0.1"));
        assert!(matches!(if2ip(peer, "Lo"), If2Ip::Found(_)));
        assert!(matches!(if2ip(peer, "no-such-interface"), If2Ip::NotFound));
        let peer6: SocketAddr = "[::1]:21".parse().unwrap();
        assert!(matches!(if2ip(peer6, "lo"), If2Ip::Found(ref ip) if ip == "::1"));
    }
}
