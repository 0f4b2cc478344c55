//! The data connection through the transfer's proxy (curl's filter chain for the second
//! socket with a SOCKS proxy or an HTTP proxy tunnel, `cf-socks` and `cf-h1-proxy`): the
//! TCP connection goes to the proxy, which is asked, with SOCKS or with CONNECT, for the
//! data address: the control connection's `--connect-to` host, else the URL's host (curl's
//! `secondaryhostname`, which with a proxy is the name, never an address), and the port
//! EPSV or PASV named. What PASV says of the host is not used.
//!
//! Through an HTTPS proxy the data connection has its own session to the proxy (made as
//! the control connection's was, resuming it when the backend can), CONNECT inside it, and
//! FTPS inside that after `PROT P`.
//!
//! With a SOCKS pre-proxy in front of the HTTP proxy (`--preproxy` and `-p`), the data
//! connection goes the control connection's way: to the pre-proxy, SOCKS to the HTTP proxy,
//! then (TLS with an HTTPS proxy and) CONNECT to the data address.

use std::net::ToSocketAddrs;

use super::*;
use crate::proto::connect::{self as tunnel, Tunnel};
use crate::proto::socks::{Socks, Target, Version};

/// The handshake with the proxy on the data connection.
pub(super) enum Hop {
    /// The TLS handshake with an HTTPS proxy, before CONNECT for this port.
    ProxyTls(u16),
    /// The SOCKS handshake and the reply bytes read so far; with a pre-proxy, the data
    /// port the HTTP proxy is then asked for.
    Socks(Box<Socks>, Vec<u8>, Option<u16>),
    /// The CONNECT request, how much of it went, and the reply read so far.
    Connect(Box<Tunnel>, Vec<u8>, usize),
}

impl Hop {
    /// Does the handshake have bytes to send?
    pub(super) fn wants_write(&self) -> bool {
        match self {
            Hop::ProxyTls(_) => false,
            Hop::Socks(s, ..) => !s.output().is_empty(),
            Hop::Connect(_, req, sent) => *sent < req.len(),
        }
    }
}

impl Transfer {
    /// Is the data connection to go through the proxy, and where does it connect: the
    /// proxy's host and port (SOCKS, or an HTTP proxy with a tunnel), the pre-proxy's when
    /// there is one.
    pub(super) fn ftp_data_proxy(&self) -> Option<(String, u16)> {
        let p = self.proxy.as_ref()?;
        if p.kind.is_http() && !self.tunnel_wanted {
            return None;
        }
        let first = self.preproxy.as_ref().unwrap_or(p);
        Some((first.host.clone(), first.port))
    }

    /// The host the proxy is asked for.
    fn ftp_hop_host(&self) -> String {
        let (host, _) = self.proxied_dest();
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .to_string()
    }

    /// curl's `ftp_state_pasv_resp` with a proxy: the proxy's address again (from the DNS
    /// cache when it is there), connected to on the proxy's port; the data port is kept for
    /// the handshake.
    pub(super) fn ftp_connect_via_proxy(&mut self, cx: &mut Cx<'_>, port: u16) -> Result<()> {
        let (proxy_host, proxy_port) = self.ftp_data_proxy().expect("a proxy");
        let host = proxy_host.trim_start_matches('[').trim_end_matches(']');
        let ttl = self.opts.dns_cache_timeout;
        let addrs = match cx.resolver.cached(host, proxy_port, ttl, cx.now) {
            Some(a) => {
                self.verbose(&format!("Hostname {host} was found in DNS cache"));
                a
            }
            None => {
                let found: Vec<SocketAddr> = match host.parse::<IpAddr>() {
                    Ok(ip) => vec![SocketAddr::new(ip, proxy_port)],
                    Err(_) => (host, proxy_port)
                        .to_socket_addrs()
                        .map(|a| a.collect())
                        .unwrap_or_default(),
                };
                if found.is_empty() {
                    return Err(Error::new(
                        Code::CouldntResolveProxy,
                        format!("cannot resolve proxy host {host}:{proxy_port}"),
                    ));
                }
                cx.resolver.insert(host, proxy_port, found.clone(), cx.now);
                found
            }
        };
        let target = self.ftp_hop_host();
        if let Some(a) = addrs.first() {
            self.verbose(&format!(
                "Connecting to {target} ({}) port {proxy_port}",
                a.ip()
            ));
        }
        let he = HappyEyeballs::new(&addrs, cx.now, &self.opts.socket());
        let x = self.ftp.as_mut().expect("ftp");
        x.data = Some(Data::Connecting(Box::new(he)));
        x.hop_port = Some(port);
        Ok(())
    }

    /// The data socket reached the proxy: SOCKS to the HTTP proxy through a pre-proxy, TLS
    /// with an HTTPS proxy, else the handshake for the data address, starts.
    pub(super) fn ftp_hop_start(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let port = self
            .ftp
            .as_mut()
            .expect("ftp")
            .hop_port
            .take()
            .expect("hop");
        if self.preproxy.is_some() {
            let (host, pport) = self.socks_dest();
            let hop = self.ftp_hop_socks(&host, pport, Some(port))?;
            self.ftp.as_mut().expect("ftp").hop = Some(hop);
            return Ok(());
        }
        self.ftp_hop_http(cx, port)
    }

    /// At the HTTP proxy: TLS first with an HTTPS proxy, else CONNECT for `port`.
    fn ftp_hop_http(&mut self, cx: &mut Cx<'_>, port: u16) -> Result<()> {
        if self.https_proxy() {
            let config = cx.tls.config(&self.opts.proxy_tls, &[])?;
            let p = self.proxy.as_ref().expect("proxy");
            let (host, pport) = (p.host.clone(), p.port);
            let sni = host.split('%').next().unwrap_or(&host).to_string();
            let peer = self.tls_peer_key(&sni, pport, &self.opts.proxy_tls);
            let x = self.ftp.as_mut().expect("ftp");
            let Some(Data::Open(s, _)) = x.data.as_mut() else {
                return Ok(());
            };
            let mut session = crate::tls::Session::new(
                &config,
                &sni,
                &peer,
                &s.stream,
                &self.opts.proxy_tls,
                false,
            )?;
            let opts = self.opts.proxy_tls.clone();
            self.tls_notes(&[], &opts, &mut session);
            let x = self.ftp.as_mut().expect("ftp");
            if let Some(Data::Open(s, _)) = x.data.as_mut() {
                s.proxy_tls = Some(Box::new(session));
            }
            x.hop = Some(Hop::ProxyTls(port));
            return Ok(());
        }
        let hop = self.ftp_hop_request(port)?;
        self.ftp.as_mut().expect("ftp").hop = Some(hop);
        Ok(())
    }

    /// The SOCKS handshake or the CONNECT request for the data address.
    fn ftp_hop_request(&mut self, port: u16) -> Result<Hop> {
        let host = self.ftp_hop_host();
        let kind = self.proxy.as_ref().expect("proxy").kind;
        let hop = if kind.is_http() {
            let authority = if host.contains(':') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            };
            let http10 = kind == crate::proxy::ProxyKind::Http10;
            self.verbose(if http10 {
                "CONNECT tunnel: HTTP/1.0 negotiated"
            } else {
                "CONNECT tunnel: HTTP/1.1 negotiated"
            });
            self.verbose("allocate connect buffer");
            self.verbose(&format!("Establish HTTP proxy tunnel to {authority}"));
            let custom = request::custom_has(&self.opts.proxy_headers, "Proxy-Authorization");
            let authorization = self.proxy_authorization("CONNECT", &authority, true, custom);
            let req = tunnel::request(&tunnel::ConnectRequest {
                authority: &authority,
                http10,
                authorization: authorization.as_deref(),
                useragent: self.opts.useragent.as_deref(),
                headers: &self.opts.proxy_headers,
            });
            if self.opts.verbose {
                self.callbacks
                    .debug_live(InfoType::HeaderOut, &req, &self.info);
            }
            Hop::Connect(Box::default(), req, 0)
        } else {
            return self.ftp_hop_socks(&host, port, None);
        };
        Ok(hop)
    }

    /// The SOCKS request for `host` and `port` to the transfer's SOCKS proxy (the pre-proxy
    /// when there is one); `then`, the data port for the CONNECT that follows it there.
    fn ftp_hop_socks(&mut self, host: &str, port: u16, then: Option<u16>) -> Result<Hop> {
        let creds = self.socks_proxy().and_then(|p| p.creds.clone());
        let version = self.socks_version();
        let target = self.ftp_socks_target(version, host, port)?;
        self.socks_note_for(&target, host, port);
        let s = Socks::new(
            version,
            Some(target),
            host,
            port,
            creds,
            self.opts.socks5_gssapi,
        )
        .map_err(|e| self.socks_failed(e))?;
        Ok(Hop::Socks(Box::new(s), Vec::new(), then))
    }

    /// The HTTPS proxy's handshake on the data connection; true once done (then CONNECT).
    fn ftp_hop_tls(&mut self) -> Result<bool> {
        let x = self.ftp.as_mut().expect("ftp");
        let Some(Data::Open(s, _)) = x.data.as_mut() else {
            return Ok(true);
        };
        let Some(p) = s.proxy_tls.as_mut() else {
            return Ok(true);
        };
        let step = p.handshake(&mut crate::tls::Io::Sock(&mut s.stream));
        let code = p.verify_result();
        let notes = p.take_notes();
        self.info.proxy_ssl_verify_result = code;
        for n in notes {
            self.verbose(&n);
        }
        match step? {
            crate::tls::Handshake::WantRead | crate::tls::Handshake::WantWrite => return Ok(false),
            crate::tls::Handshake::Done => {}
        }
        let x = self.ftp.as_mut().expect("ftp");
        let Some(Data::Open(s, _)) = x.data.as_mut() else {
            return Ok(true);
        };
        let p = s.proxy_tls.take().expect("proxy tls");
        let r = self.tls_report(&p, true, false);
        let x = self.ftp.as_mut().expect("ftp");
        if let Some(Data::Open(s, _)) = x.data.as_mut() {
            s.proxy_tls = Some(p);
        }
        r?;
        Ok(true)
    }

    /// What the SOCKS request names: the address for socks4 and socks5 (looked up here,
    /// as curl's SOCKS filter resolves it), the name for socks4a and socks5h.
    fn ftp_socks_target(&mut self, version: Version, host: &str, port: u16) -> Result<Target> {
        let v4 = version == Version::Socks4;
        self.socks_to_http_proxy_note(version, host, port);
        if self.preproxy.is_some() && matches!(version, Version::Socks4 | Version::Socks5) {
            // The HTTP proxy's name was looked up for the control connection.
            self.verbose(&format!("Hostname {host} was found in DNS cache"));
        }
        if v4 {
            self.verbose(&format!("SOCKS4 communication to {host}:{port}"));
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            if version != Version::Socks4a {
                return Ok(Target::Ip(ip));
            }
        }
        if matches!(version, Version::Socks4a | Version::Socks5h) {
            return Ok(Target::Name(host.to_string()));
        }
        // curl's resolver answers localhost itself, both families.
        let found: Vec<SocketAddr> = dns::localhost_addrs(host, port).unwrap_or_else(|| {
            (host, port)
                .to_socket_addrs()
                .map(|a| a.collect())
                .unwrap_or_default()
        });
        if !found.is_empty() {
            self.resolved_notes(host, port, &found);
        }
        match found.iter().find(|a| a.is_ipv4() || !v4) {
            Some(a) => Ok(Target::Ip(a.ip())),
            None => {
                self.info.proxy_error = ProxyCode::ResolveHost as u32;
                Err(Error::new(
                    Code::CouldntResolveHost,
                    format!("Failed to resolve \"{host}\" for SOCKS connect."),
                ))
            }
        }
    }

    /// Drive the handshake on the data connection; true once the data address is reached.
    pub(super) fn ftp_hop_drive(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        if let Some(Hop::ProxyTls(port)) = self.ftp.as_ref().and_then(|x| x.hop.as_ref()) {
            let port = *port;
            if !self.ftp_hop_tls()? {
                return Ok(false);
            }
            let hop = self.ftp_hop_request(port)?;
            self.ftp.as_mut().expect("ftp").hop = Some(hop);
        }
        let x = self.ftp.as_mut().expect("ftp");
        let (Some(Data::Open(s, _)), Some(hop)) = (x.data.as_mut(), x.hop.as_mut()) else {
            return Ok(true);
        };
        let mut lines = Vec::new();
        let r = match hop {
            Hop::ProxyTls(_) => Ok(false),
            Hop::Socks(socks, got, _) => drive_socks(s, socks, got),
            Hop::Connect(t, req, sent) => drive_connect(s, t, req, sent, &mut lines),
        };
        // The reply's lines, as the control connection's tunnel shows and hands them on.
        for line in &lines {
            self.info.header_size += line.len() as u64;
            if self.opts.verbose {
                self.callbacks
                    .debug_live(InfoType::HeaderIn, line, &self.info);
            }
            self.connect_line_out(line)?;
        }
        let done = match r {
            Ok(done) => done,
            Err(HopError::Socks(e)) => return Err(self.socks_failed(e)),
            Err(HopError::Proxy(code, e)) => {
                self.info.proxy_error = code as u32;
                return Err(e);
            }
            Err(HopError::Other(e)) => return Err(e),
        };
        if !done {
            return Ok(false);
        }
        let hop = self.ftp.as_mut().expect("ftp").hop.take().expect("hop");
        match hop {
            Hop::ProxyTls(_) => {}
            Hop::Socks(socks, _, then) => {
                if let Some(n) = socks.granted_note() {
                    self.verbose(&n);
                }
                // curl's SOCKS filter reports the connection before the socket's own does,
                // with the address the connection's last data connection had (none yet:
                // empty).
                let last = conn_meta(self.conn.as_mut().expect("conn")).data_peer;
                self.verbose(&match last {
                    Some(a) => format!("Connected 2nd connection to {} port {}", a.ip(), a.port()),
                    None => "Connected 2nd connection to  port 0".into(),
                });
                if let Some(port) = then {
                    // The pre-proxy reached the HTTP proxy: its own leg follows.
                    self.ftp_hop_http(cx, port)?;
                    return self.ftp_hop_drive(cx);
                }
            }
            Hop::Connect(t, _, _) => {
                self.info.http_connectcode = t.code;
                self.connect_established(t.code)?;
            }
        }
        Ok(true)
    }
}

enum HopError {
    Socks(crate::proto::socks::SocksError),
    Proxy(ProxyCode, Error),
    Other(Error),
}

/// The SOCKS handshake on the data socket, reading only what it asks for.
fn drive_socks(
    s: &mut DataSock,
    socks: &mut Socks,
    got: &mut Vec<u8>,
) -> std::result::Result<bool, HopError> {
    loop {
        while !socks.output().is_empty() {
            match s.raw_write(socks.output()) {
                Ok(n) => socks.sent(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let code = socks.io_failure(false);
                    return Err(HopError::Proxy(
                        code,
                        Error::new(Code::Proxy, send_error(&e).message()),
                    ));
                }
            }
        }
        if socks.is_done() {
            return Ok(true);
        }
        let want = socks.want();
        let mut buf = [0u8; 300];
        let room = want.saturating_sub(got.len()).min(buf.len());
        match s.raw_read(&mut buf[..room]) {
            Ok(0) => {
                return Err(HopError::Proxy(
                    ProxyCode::Closed,
                    Error::new(Code::Proxy, "connection to proxy closed"),
                ))
            }
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                let code = socks.io_failure(true);
                return Err(HopError::Proxy(
                    code,
                    Error::new(
                        Code::Proxy,
                        format!("Recv failure: {}", connect::os_error_text(&e)),
                    ),
                ));
            }
        }
        if got.len() == want {
            socks.feed(got).map_err(HopError::Socks)?;
            got.clear();
        }
    }
}

/// The CONNECT request, then its reply a byte at a time (what follows the head is the
/// tunnel's).
fn drive_connect(
    s: &mut DataSock,
    t: &mut Tunnel,
    req: &[u8],
    sent: &mut usize,
    lines: &mut Vec<Vec<u8>>,
) -> std::result::Result<bool, HopError> {
    while *sent < req.len() {
        match s.raw_write(&req[*sent..]) {
            Ok(n) => *sent += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(HopError::Other(send_error(&e))),
        }
    }
    let mut byte = [0u8; 1];
    while !t.done {
        match s.raw_read(&mut byte) {
            Ok(0) => {
                return Err(HopError::Other(Error::new(
                    Code::RecvError,
                    "Proxy CONNECT aborted",
                )))
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(HopError::Other(Error::new(
                    Code::RecvError,
                    format!("Recv failure: {}", connect::os_error_text(&e)),
                )))
            }
        }
        match t.feed(&byte) {
            Ok((_, Some(tunnel::Event::Line(l)))) => lines.push(l.to_vec()),
            Ok(_) => {}
            Err(e) => {
                return Err(HopError::Other(
                    super::super::http_proxy::connect_reply_error(e),
                ))
            }
        }
    }
    Ok(true)
}
