//! SOCKS proxies (curl's `socks.c`): SOCKS4, 4a, 5 and 5h handshakes, resolving for them, and
//! curl's notes.

use super::*;

impl Transfer {
    /// The SOCKS proxy of the transfer: the pre-proxy, else the proxy if it is SOCKS.
    pub(super) fn socks_proxy(&self) -> Option<&crate::proxy::Proxy> {
        self.preproxy
            .as_ref()
            .or(self.proxy.as_ref().filter(|p| !p.kind.is_http()))
    }

    /// A failed SOCKS handshake: curl's `CURLE_PROXY`, with the detail kept for
    /// `CURLINFO_PROXY_ERROR`.
    pub(super) fn socks_failed(&mut self, e: crate::proto::socks::SocksError) -> Error {
        self.info.proxy_error = e.1 as u32;
        Error::new(Code::Proxy, e.0)
    }

    pub(super) fn socks_unix_path(&self) -> Option<String> {
        self.socks_proxy()
            .and_then(|p| p.unix_path())
            .map(str::to_string)
    }

    /// Where the SOCKS proxy connects: the HTTP proxy behind a pre-proxy, else the origin.
    pub(super) fn socks_dest(&self) -> (String, u16) {
        match (&self.preproxy, &self.proxy) {
            (Some(_), Some(p)) => (p.host.clone(), p.port),
            // curl's SOCKS filter asks for the `--connect-to` destination when there is one.
            _ => {
                let (h, p) = self.proxied_dest();
                (
                    h.trim_start_matches('[').trim_end_matches(']').to_string(),
                    p,
                )
            }
        }
    }

    /// curl's SOCKS filter names the HTTP proxy it goes to behind a pre-proxy.
    pub(super) fn socks_to_http_proxy_note(
        &mut self,
        version: crate::proto::socks::Version,
        host: &str,
        port: u16,
    ) {
        use crate::proto::socks::Version;
        if self.preproxy.is_none() {
            return;
        }
        self.verbose(&match version {
            Version::Socks4 => format!("SOCKS4: connecting to HTTP proxy {host} port {port}"),
            Version::Socks4a => format!("SOCKS4a: connecting to HTTP proxy {host} port {port}"),
            _ => format!("SOCKS5: connecting to HTTP proxy {host} port {port}"),
        });
    }

    /// curl's `Curl_verboseconnect` once the SOCKS handshake is done.
    fn socks_connected_note(&mut self) {
        if self.opts.verbose && !self.scheme_tls() {
            let c = self.conn.as_ref().expect("conn");
            let msg = format!("Connected to {} () port {}", c.host, c.port);
            self.verbose(&msg);
            if self.info.scheme.starts_with("http") {
                self.verbose("using HTTP/1.x");
            }
        }
    }

    /// The SOCKS version of the current proxy.
    pub(super) fn socks_version(&self) -> crate::proto::socks::Version {
        use crate::proto::socks::Version;
        use crate::proxy::ProxyKind;
        match self.socks_proxy().map(|p| p.kind) {
            Some(ProxyKind::Socks4) => Version::Socks4,
            Some(ProxyKind::Socks4a) => Version::Socks4a,
            Some(ProxyKind::Socks5) => Version::Socks5,
            _ => Version::Socks5h,
        }
    }

    /// Start the SOCKS handshake for the URL's origin over the fresh proxy connection.
    /// socks4 resolves the origin first; socks5 after the greeting (`do_socks`), as curl.
    pub(super) fn start_socks(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        use crate::proto::socks::{Target, Version};
        self.socks = None;
        let version = self.socks_version();
        let (host, port) = self.socks_dest();
        self.socks_to_http_proxy_note(version, &host, port);
        if matches!(version, Version::Socks4 | Version::Socks4a) {
            self.verbose(&format!("SOCKS4 communication to {host}:{port}"));
        }
        // SOCKS4a sends even an address as a name; SOCKS5h sends addresses as addresses.
        if version == Version::Socks4a {
            return self.begin_socks(Some(Target::Name(host)));
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return self.begin_socks(Some(Target::Ip(ip)));
        }
        match version {
            Version::Socks5h => self.begin_socks(Some(Target::Name(host))),
            Version::Socks5 => self.begin_socks(None),
            _ => match self.socks_lookup(cx)? {
                Some(t) => self.begin_socks(Some(t)),
                None => Ok(()),
            },
        }
    }

    /// The origin's address for socks4/socks5 from the cache or `localhost`; otherwise
    /// start resolving (`State::SocksResolving`) and return None.
    pub(super) fn socks_lookup(
        &mut self,
        cx: &mut Cx<'_>,
    ) -> Result<Option<crate::proto::socks::Target>> {
        let (host, port) = self.socks_dest();
        if let Some(addrs) = cx
            .resolver
            .cached(&host, port, self.opts.dns_cache_timeout, cx.now)
        {
            self.verbose(&format!("Hostname {host} was found in DNS cache"));
            return self.socks_choose(&addrs).map(Some);
        }
        let known = dns::localhost_addrs(&host, port);
        if let Some(a) = &known {
            // As any answer, kept for the next connection.
            cx.resolver.insert(&host, port, a.clone(), cx.now);
        }
        match known {
            Some(addrs) => self.socks_pick(&addrs).map(Some),
            None => {
                let job = cx.resolver.start(&host, port);
                self.state = State::Filter(FilterStep::SocksResolving { job });
                if self.socks_version() == crate::proto::socks::Version::Socks4 {
                    self.verbose(&format!("SOCKS4 non-blocking resolve of {host}"));
                }
                Ok(None)
            }
        }
    }

    /// The origin's name resolution for a socks4/socks5 handshake finished.
    pub(super) fn do_socks_resolving(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::Filter(FilterStep::SocksResolving { job }) = self.state else {
            unreachable!()
        };
        let Some(ans) = cx.resolver.take(job) else {
            return Ok(false);
        };
        let (host, port) = self.socks_dest();
        let addrs = match ans {
            Ok(addrs) if !addrs.is_empty() => addrs,
            // curl names the proxy in this message although the origin failed.
            _ => {
                self.info.proxy_error = ProxyCode::ResolveHost as u32;
                return Err(Error::new(
                    Code::Proxy,
                    format!(
                        "Could not resolve proxy: {}",
                        self.socks_proxy().map(|p| p.host.as_str()).unwrap_or("")
                    ),
                ));
            }
        };
        cx.resolver.insert(&host, port, addrs.clone(), cx.now);
        let t = self.socks_pick(&addrs)?;
        if self.socks.is_some() {
            // A SOCKS5 handshake waiting after its greeting.
            self.socks_note(&t);
            let s = &mut self.socks.as_mut().expect("socks").0;
            let r = s.set_target(t);
            r.map_err(|e| self.socks_failed(e))?;
            self.state = State::Filter(FilterStep::Socks);
        } else {
            self.begin_socks(Some(t))?;
        }
        Ok(true)
    }

    /// Pick the address a socks4/socks5 handshake sends, with curl's resolver notes.
    pub(super) fn socks_pick(
        &mut self,
        addrs: &[SocketAddr],
    ) -> Result<crate::proto::socks::Target> {
        let (host, port) = self.socks_dest();
        self.resolved_notes(&host, port, addrs);
        self.socks_choose(addrs)
    }

    /// The address of `addrs` a socks4/socks5 handshake sends.
    pub(super) fn socks_choose(
        &mut self,
        addrs: &[SocketAddr],
    ) -> Result<crate::proto::socks::Target> {
        use crate::proto::socks::{Target, Version};
        let (host, _) = self.socks_dest();
        let v4 = self.socks_version() == Version::Socks4;
        let pick = addrs
            .iter()
            .filter(|a| match self.opts.ip_resolve {
                IpResolve::Whatever => true,
                IpResolve::V4 => a.is_ipv4(),
                IpResolve::V6 => a.is_ipv6(),
            })
            .find(|a| a.is_ipv4() || !v4)
            .ok_or_else(|| {
                self.info.proxy_error = ProxyCode::ResolveHost as u32;
                Error::new(
                    Code::CouldntResolveHost,
                    format!("Failed to resolve \"{host}\" for SOCKS4 connect."),
                )
            })?;
        Ok(Target::Ip(pick.ip()))
    }

    /// curl's `-v` line naming the SOCKS connect target.
    pub(super) fn socks_note(&mut self, target: &crate::proto::socks::Target) {
        let (host, port) = self.socks_dest();
        self.socks_note_for(target, &host, port);
    }

    /// [`Self::socks_note`] for a connection to `host:port` (FTP's data connection).
    pub(super) fn socks_note_for(
        &mut self,
        target: &crate::proto::socks::Target,
        host: &str,
        port: u16,
    ) {
        use crate::proto::socks::{Target, Version};
        let note = match (target, self.socks_version()) {
            // An IPv6 host goes without brackets here, as in curl.
            (_, Version::Socks5h) => Some(format!(
                "SOCKS5 connect to {host}:{port} (remotely resolved)"
            )),
            (Target::Ip(ip), Version::Socks5) => Some(format!(
                "SOCKS5 connect to {}:{port} (locally resolved)",
                bracket(&ip.to_string())
            )),
            (Target::Ip(ip), _) => Some(format!("SOCKS4 connect to IPv4 {ip} (locally resolved)")),
            (Target::Name(_), _) => None,
        };
        if let Some(n) = note {
            self.verbose(&n);
        }
    }

    /// Send the first SOCKS message; a SOCKS5 `target` of None is resolved after the greeting.
    pub(super) fn begin_socks(
        &mut self,
        target: Option<crate::proto::socks::Target>,
    ) -> Result<()> {
        use crate::proto::socks::Socks;
        let version = self.socks_version();
        let (host, port) = self.socks_dest();
        if let Some(t) = &target {
            self.socks_note(t);
        }
        let creds = self.socks_proxy().and_then(|p| p.creds.clone());
        let s = Socks::new(version, target, &host, port, creds, self.opts.socks5_gssapi)
            .map_err(|e| self.socks_failed(e))?;
        self.socks = Some((s, Vec::new()));
        self.state = State::Filter(FilterStep::Socks);
        Ok(())
    }

    /// Drive the SOCKS handshake, reading only the bytes the handshake asks for.
    pub(super) fn do_socks(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let (mut s, mut got) = self.socks.take().expect("socks");
        loop {
            while !s.output().is_empty() {
                let conn = self.conn.as_mut().expect("conn");
                match conn.send(s.output()) {
                    Ok(n) => s.sent(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        self.socks = Some((s, got));
                        return Ok(false);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        // The socket's message, curl's code for the SOCKS step.
                        self.info.proxy_error = s.io_failure(false) as u32;
                        return Err(Error::new(Code::Proxy, send_error(&e).message()));
                    }
                }
            }
            if s.is_done() {
                break;
            }
            if s.needs_target() {
                self.socks = Some((s, got));
                match self.socks_lookup(cx)? {
                    Some(t) => {
                        self.socks_note(&t);
                        let (mut s2, g2) = self.socks.take().expect("socks");
                        s2.set_target(t).map_err(|e| self.socks_failed(e))?;
                        s = s2;
                        got = g2;
                        continue;
                    }
                    // Resolving: `do_socks_resolving` resumes the handshake.
                    None => return Ok(false),
                }
            }
            let want = s.want();
            let mut buf = [0u8; 300];
            let conn = self.conn.as_mut().expect("conn");
            match conn.recv(&mut buf[..want - got.len()]) {
                Ok(0) => {
                    self.info.proxy_error = ProxyCode::Closed as u32;
                    return Err(Error::new(Code::Proxy, "connection to proxy closed"));
                }
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.socks = Some((s, got));
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.info.proxy_error = s.io_failure(true) as u32;
                    return Err(Error::new(
                        Code::Proxy,
                        format!("Recv failure: {}", connect::os_error_text(&e)),
                    ));
                }
            }
            if got.len() == want {
                s.feed(&got).map_err(|e| self.socks_failed(e))?;
                got.clear();
            }
        }
        if let Some(n) = s.granted_note() {
            self.verbose(&n);
        }
        if self.preproxy.is_some() {
            self.socks_connected_note();
            // The SOCKS leg reached the HTTP proxy; the HTTP proxy paths follow.
            if self.https_proxy() {
                self.start_proxy_tls(cx)?;
            } else if self.tunnel_wanted {
                self.start_tunnel();
            } else {
                self.timers.clear(TimerId::ConnectTimeout);
                self.origin_ready(cx)?;
            }
            return Ok(true);
        }
        self.timers.clear(TimerId::ConnectTimeout);
        // curl's SOCKS filter reports the connection once more, without the address.
        self.socks_connected_note();
        self.origin_ready(cx)?;
        Ok(true)
    }
}
