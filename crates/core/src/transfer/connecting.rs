//! Finding or making the transfer's connection (curl's `connect.c` and `cf-socket.c`): reuse
//! from the pool, resolving, Happy Eyeballs, Unix sockets, the HAProxy header, and what is
//! noted once the connection is up.

use super::*;

impl Transfer {
    /// Waiting for a pending connection: look again.
    pub(super) fn do_pipewait(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::PipeWait(t) = std::mem::replace(&mut self.state, State::Init) else {
            unreachable!()
        };
        self.find_or_connect(cx, *t)
    }

    /// Reuse a connection for `t`, wait for one being set up, or make a new one.
    pub(super) fn find_or_connect(&mut self, cx: &mut Cx<'_>, t: Target) -> Result<bool> {
        let Target {
            key,
            scheme,
            host,
            port,
            conn_host,
            conn_port,
        } = t;
        // Counted only under connection limits (no allocation otherwise).
        self.conn_dest = cx.limits.map(|_| format!("{host}:{port}"));
        // FRESH_CONNECT is for the first request only: curl acknowledges it when no
        // redirect or authentication retry was followed yet.
        let fresh = self.opts.fresh_connect && self.info.redirect_count == 0;
        // curl locks a shared pool to prune it, then to search it (not for a fresh or a
        // CONNECT_ONLY connection).
        self.touch_pool();
        // curl's Curl_cpool_prune_dead: dead connections to anywhere, once a second.
        let (max_idle, max_life) = (self.opts.maxage_conn, self.opts.maxlifetime_conn);
        cx.pool.sweep(cx.now, max_idle, max_life, |id, too_old| {
            self.note_dead(id, too_old.as_deref());
        });
        if !fresh && !self.opts.connect_only {
            self.touch_pool();
        }
        if !fresh && !self.opts.connect_only && !std::mem::take(&mut self.fresh_once) {
            match self.find_shared(cx, &key) {
                Lookup::Shared(s) => {
                    let (id, remote, local, chost) = {
                        let mut c = s.lock();
                        c.uses += 1;
                        (c.id, c.remote, c.local, c.host.clone())
                    };
                    self.conn_reused = true;
                    self.set_conn_id(id);
                    self.set_peer(remote);
                    self.info.local_addr = local;
                    self.h2conn = Some(s);
                    let chost = chost.trim_start_matches('[').trim_end_matches(']');
                    let msg = self.reuse_note(scheme, chost);
                    self.verbose(&msg);
                    // A reused connection had its protocol connect (curl goes to DO).
                    self.state = State::Do;
                    return Ok(true);
                }
                Lookup::Wait => {
                    self.verbose("Waiting on connection to negotiate possible multiplexing.");
                    cx.pool.wait(&self.waker);
                    self.state = State::PipeWait(Box::new(Target {
                        key,
                        scheme,
                        host,
                        port,
                        conn_host,
                        conn_port,
                    }));
                    return Ok(false);
                }
                Lookup::None => {}
            }
            if self.opts.maxage_conn.is_some() || self.opts.maxlifetime_conn.is_some() {
                let old = cx.pool.take_too_old(
                    &key,
                    self.opts.maxage_conn,
                    self.opts.maxlifetime_conn,
                    cx.now,
                );
                for (mut c, note) in old {
                    c.close();
                    self.note_dead(c.id, Some(&note));
                }
            }
            let mut dead = Vec::new();
            let found = cx.pool.take(&key, &mut dead);
            for c in dead {
                // The peer is gone: nothing is sent.
                self.note_dead(c.id, None);
            }
            if let Some(mut c) = found {
                c.uses += 1;
                // Parked connections were removed from the poller: a new identity makes the
                // multi register the socket again.
                c.sock_id = connect::next_sock_id();
                self.conn_reused = true;
                self.set_conn_id(c.id);
                self.set_peer(c.remote);
                self.info.local_addr = c.local;
                let msg =
                    self.reuse_note(scheme, c.host.trim_start_matches('[').trim_end_matches(']'));
                self.conn = Some(c);
                self.verbose(&msg);
                self.state = State::Do;
                return Ok(true);
            }
        }
        self.conn_reused = false;
        if let (Some(l), Some(dest)) = (cx.limits, self.conn_dest.as_deref()) {
            if let Some(note) = room_for_connection(l, cx.pool, &host, port, dest) {
                // curl's MSTATE_PENDING: the multi runs the transfer again when one of its
                // transfers is done with a connection.
                if !matches!(self.state, State::Pending) {
                    self.verbose(note);
                }
                self.state = State::Pending;
                return Ok(false);
            }
        }
        // NTLM authenticates a connection: on a new one a finished handshake does not count
        // (curl's create_conn), and the scheme is picked again.
        if self.auth.picked & auth::NTLM != 0 && self.auth.done {
            self.verbose("NTLM picked AND auth done set, clear picked");
            self.auth.picked = 0;
            self.auth.done = false;
        }
        if self.proxy_auth.picked & auth::NTLM != 0 && self.proxy_auth.done {
            self.verbose("NTLM-proxy picked AND auth done set, clear picked");
            self.proxy_auth.picked = 0;
            self.proxy_auth.done = false;
        }
        // A new connection joins curl's pool at once.
        self.touch_pool();
        let id = *cx.next_conn_id;
        *cx.next_conn_id += 1;
        cx.pool.pend(&key, id);
        self.pending_conn = Some(id);
        // The id is the connection's from its first attempt on, as curl reports it for a
        // transfer whose connect failed.
        self.set_conn_id(id);
        if let Some(ct) = self.opts.connect_timeout {
            self.timers.set(TimerId::ConnectTimeout, cx.now + ct);
        }
        if let Some(path) = self.socks_unix_path() {
            // curl resolves a SOCKS proxy named `localhost/path` to that Unix socket.
            self.verbose(&format!("  Trying {path}:0..."));
            let s = self.connect_unix(&path, false).map_err(|e| {
                let why = connect::os_error_text(&e);
                self.verbose(&format!("Immediate connect fail for {path}: {why}"));
                connect_failed(&host, port, self.elapsed_ms(cx.now))
            })?;
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.connected(cx, Stream::Unix(s), None, key, host, port)?;
            return Ok(true);
        }
        if let Some(path) = self.opts.unix_socket_path.clone() {
            // curl shows the socket's address: the path, none for an abstract name.
            let shown = self.unix_socket_shown().unwrap_or_default().to_string();
            self.verbose(&format!("  Trying {shown}:0..."));
            let s = self
                .connect_unix(&path, self.opts.abstract_unix_socket)
                .map_err(|e| match e.get_ref() {
                    Some(i) if i.is::<connect::SockoptRefused>() => {
                        sockopt_refused(&host, port, self.elapsed_ms(cx.now))
                    }
                    _ => {
                        let why = connect::os_error_text(&e);
                        self.verbose(&format!("Immediate connect fail for {shown}: {why}"));
                        connect_failed(&host, port, self.elapsed_ms(cx.now))
                    }
                })?;
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.connected(cx, Stream::Unix(s), None, key, host, port)?;
            return Ok(true);
        }
        let lookup_host = conn_host.trim_start_matches('[').trim_end_matches(']');
        // curl's Curl_resolv refuses special-use .onion names (RFC 7686) before any lookup.
        let ends = |suffix: &str| {
            lookup_host.len() >= suffix.len()
                && lookup_host.as_bytes()[lookup_host.len() - suffix.len()..]
                    .eq_ignore_ascii_case(suffix.as_bytes())
        };
        if lookup_host.len() >= 7 && (ends(".onion") || ends(".onion.")) {
            return Err(Error::new(
                Code::CouldntResolveHost,
                "Not resolving .onion address (RFC 7686)",
            ));
        }
        let ttl = self.opts.dns_cache_timeout;
        let cached = cx
            .resolver
            .cached(lookup_host, conn_port, ttl, cx.now)
            .map(|a| (a, lookup_host))
            .or_else(|| {
                // curl's fetch_addr: a `--resolve *:PORT:...` entry answers any host.
                self.wildcard_resolve
                    .then(|| cx.resolver.cached("*", conn_port, ttl, cx.now))
                    .flatten()
                    .map(|a| (a, "*"))
            });
        // curl's fetch_addr: an entry without an address of the family asked for is dropped,
        // and the name is resolved as if it had not been there.
        let want = self.opts.ip_resolve;
        let cached = match cached {
            Some((addrs, entry)) if !addrs.iter().any(|a| want.allows(a)) => {
                self.verbose("Hostname in DNS cache does not have needed family, zapped");
                cx.resolver.remove(entry, conn_port);
                None
            }
            c => c.map(|(addrs, _)| addrs),
        };
        if let Some(addrs) = cached {
            self.info.time_namelookup = cx.now.duration_since(self.started);
            // Connecting again for a proxy tunnel, curl reuses the addresses it had.
            if !self.tunnel_again {
                self.verbose(&format!("Hostname {lookup_host} was found in DNS cache"));
            }
            self.start_connect(cx, &addrs, &host, port, key);
            return Ok(true);
        }
        // curl's Curl_resolv tells the application before any lookup the cache did not
        // answer, literal addresses included.
        if !self.callbacks.resolver_start() {
            return Err(match self.proxy {
                Some(_) => Error::new(
                    Code::CouldntResolveProxy,
                    format!("Could not resolve proxy: {lookup_host}"),
                ),
                None => Error::new(
                    Code::CouldntResolveHost,
                    format!("Could not resolve host: {lookup_host}"),
                ),
            });
        }
        if let Ok(ip) = lookup_host.parse::<IpAddr>() {
            // curl caches literal addresses too (the next use finds them there).
            let addrs = [SocketAddr::new(ip, conn_port)];
            cx.resolver
                .insert(lookup_host, conn_port, addrs.to_vec(), cx.now);
            self.info.time_namelookup = cx.now.duration_since(self.started);
            self.start_connect(cx, &addrs, &host, port, key);
            return Ok(true);
        }
        if let Some(addrs) = dns::localhost_addrs(lookup_host, conn_port) {
            self.info.time_namelookup = cx.now.duration_since(self.started);
            cx.resolver
                .insert(lookup_host, conn_port, addrs.clone(), cx.now);
            self.resolved_notes(lookup_host, conn_port, &addrs);
            self.start_connect(cx, &addrs, &host, port, key);
            return Ok(true);
        }
        let job = cx.resolver.start(lookup_host, conn_port);
        self.pending_key = Some(key);
        self.state = State::Resolving {
            job,
            host: lookup_host.to_string(),
            port: conn_port,
        };
        Ok(false)
    }

    pub(super) fn resolved_notes(&mut self, host: &str, port: u16, addrs: &[SocketAddr]) {
        if !self.opts.verbose {
            return;
        }
        self.verbose(&format!("Host {host}:{port} was resolved."));
        let list = |v6: bool| {
            let v: Vec<String> = addrs
                .iter()
                .filter(|a| a.is_ipv6() == v6)
                .map(|a| a.ip().to_string())
                .collect();
            if v.is_empty() {
                "(none)".to_string()
            } else {
                v.join(", ")
            }
        };
        let (six, four) = (list(true), list(false));
        self.verbose(&format!("IPv6: {six}"));
        self.verbose(&format!("IPv4: {four}"));
    }

    pub(super) fn start_connect(
        &mut self,
        cx: &mut Cx<'_>,
        addrs: &[SocketAddr],
        host: &str,
        port: u16,
        key: String,
    ) {
        // Filtered into a copy only when a family is asked for (HappyEyeballs copies them).
        let filtered: Vec<SocketAddr>;
        let addrs = match self.opts.ip_resolve {
            IpResolve::Whatever => addrs,
            want => {
                filtered = addrs.iter().copied().filter(|a| want.allows(a)).collect();
                &filtered
            }
        };
        let he = HappyEyeballs::new(addrs, cx.now, &self.opts.socket());
        if let Some(t) = he.next_deadline() {
            self.timers.set(TimerId::HappyEyeballs, t);
        }
        self.pending_key = Some(key);
        self.state = State::Connecting {
            he,
            host: host.to_string(),
            port,
        };
    }

    pub(super) fn do_resolving(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::Resolving {
            job,
            ref host,
            port,
        } = self.state
        else {
            unreachable!()
        };
        let host = host.clone();
        let Some(ans) = cx.resolver.take(job) else {
            return Ok(false);
        };
        let url = self.url.clone().expect("url");
        let (uhost, uport) = match &self.proxy {
            Some(p) => (p.host.clone(), p.port),
            None => (
                url.host_punycode().unwrap_or_default().into_owned(),
                url.port_or_default(),
            ),
        };
        match ans {
            Ok(addrs) if !addrs.is_empty() => {
                self.info.time_namelookup = cx.now.duration_since(self.started);
                cx.resolver.insert(&host, port, addrs.clone(), cx.now);
                self.resolved_notes(&host, port, &addrs);
                let key = self.pending_key.take().unwrap_or_default();
                self.start_connect(cx, &addrs, &uhost, uport, key);
                Ok(true)
            }
            _ if self.proxy.is_some() => Err(Error::new(
                Code::CouldntResolveProxy,
                format!("Could not resolve proxy: {host}"),
            )),
            _ => Err(Error::new(
                Code::CouldntResolveHost,
                format!("Could not resolve host: {host}"),
            )),
        }
    }

    /// `connect::connect_unix` with this transfer's values lent to the socket callbacks.
    pub(super) fn connect_unix(
        &mut self,
        path: &str,
        abstract_ns: bool,
    ) -> io::Result<std::os::unix::net::UnixStream> {
        let opts = self.opts.socket();
        let mut made = None;
        self.callbacks.lend_info(&self.info, &mut || {
            made = Some(connect::connect_unix(path, abstract_ns, &opts))
        });
        made.unwrap_or_else(|| connect::connect_unix(path, abstract_ns, &opts))
    }

    pub(super) fn do_connecting(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let State::Connecting { ref mut he, .. } = self.state else {
            unreachable!()
        };
        let he_port = he.port();
        let opts = self.opts.socket();
        let r = eyeballs_pass(
            &mut *self.callbacks,
            &self.info,
            &opts,
            &mut self.notes,
            he,
            cx.now,
        );
        let next = he.next_deadline();
        self.eyeballs_after(next);
        if matches!(r, ConnectPoll::Pending) {
            return Ok(false);
        }
        // The host is copied only once the attempt is over (a wait costs no allocation).
        let State::Connecting { ref host, port, .. } = self.state else {
            unreachable!()
        };
        let host = host.clone();
        match r {
            ConnectPoll::Pending => Ok(false),
            ConnectPoll::Connected(s, addr, sock_id) => {
                let key = self.pending_key.take().unwrap_or_default();
                self.connected(cx, Stream::Tcp(s), Some((addr, sock_id)), key, host, port)?;
                Ok(true)
            }
            // curl names the host and port it tried: a `--connect-to` destination, an IPv6
            // address without brackets.
            // No address of the family asked for (`-6` with an IPv4 literal): curl had nothing
            // to try, and says only that it could not connect.
            ConnectPoll::Failed(_) if he_port.is_none() => Err(Error::code(Code::CouldntConnect)),
            ConnectPoll::Failed(e) => {
                let name = self.conn_to_host.as_deref().unwrap_or(&host);
                let name = name.trim_start_matches('[').trim_end_matches(']');
                let port = he_port.unwrap_or(port);
                let ms = self.elapsed_ms(cx.now);
                if e.get_ref()
                    .is_some_and(|i| i.is::<connect::SockoptRefused>())
                {
                    Err(sockopt_refused(name, port, ms))
                } else if e.get_ref().is_some_and(|i| i.is::<connect::BindFailed>()) {
                    Err(Error::new(Code::InterfaceFailed, e.to_string()))
                } else {
                    Err(connect_failed(name, port, ms))
                }
            }
        }
    }

    pub(super) fn connected(
        &mut self,
        cx: &mut Cx<'_>,
        stream: Stream,
        // The peer, and the socket's identity while it was connecting.
        remote: Option<(SocketAddr, u64)>,
        key: String,
        host: String,
        port: u16,
    ) -> Result<()> {
        let (remote, sock_id) = (remote.map(|(a, _)| a), remote.map(|(_, id)| id));
        let local = match &stream {
            Stream::Tcp(s) => s.local_addr().ok(),
            Stream::Unix(_) | Stream::Closed => None,
        };
        let id = match self.pending_conn {
            Some(id) => id,
            None => {
                let id = *cx.next_conn_id;
                *cx.next_conn_id += 1;
                id
            }
        };
        // A proxy handshake is still part of connecting.
        if self.proxy.is_none() {
            self.timers.clear(TimerId::ConnectTimeout);
        }
        self.timers.clear(TimerId::HappyEyeballs);
        self.info.num_connects += 1;
        self.set_peer(remote);
        self.info.local_addr = local;
        self.set_conn_id(id);
        self.info.time_connect = cx.now.duration_since(self.started);
        self.info.time_appconnect = Duration::ZERO;
        self.haproxy = None;
        self.conn = Some(Conn {
            id,
            sock_id: sock_id.unwrap_or_else(connect::next_sock_id),
            stream,
            tls: None,
            proxy_tls: None,
            tunnel: None,
            key,
            host,
            port,
            remote,
            local,
            uses: 1,
            http10: false,
            h2: None,
            version_seen: false,
            idle_since: cx.now,
            created: cx.now,
            hooks: self.opts.socket_hooks.clone(),
            proto: None,
        });
        if self.socks_proxy().is_some() {
            return self.start_socks(cx);
        }
        if self.https_proxy() {
            return self.start_proxy_tls(cx);
        }
        if self.tunnel_wanted {
            self.start_tunnel();
            return Ok(());
        }
        self.origin_ready(cx)
    }

    /// Everything below the origin's TLS is up (socket, SOCKS, proxy TLS, tunnel): send the
    /// PROXY line when asked (curl's HAProxy filter sits here), then TLS to the origin or the
    /// request.
    pub(super) fn origin_ready(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let wanted = self.opts.haproxy_protocol || self.opts.haproxy_client_ip.is_some();
        if wanted && self.haproxy.is_none() {
            let c = self.conn.as_ref().expect("conn");
            let line = match (c.local, c.remote, &self.opts.unix_socket_path) {
                (Some(l), Some(r), None) => format!(
                    "PROXY {} {} {} {} {}\r\n",
                    if r.is_ipv6() { "TCP6" } else { "TCP4" },
                    self.opts
                        .haproxy_client_ip
                        .clone()
                        .unwrap_or_else(|| l.ip().to_string()),
                    r.ip(),
                    l.port(),
                    r.port()
                ),
                _ => "PROXY UNKNOWN\r\n".to_string(),
            };
            self.haproxy = Some((line.into_bytes(), 0));
            self.state = State::Filter(FilterStep::HaProxy);
            return Ok(());
        }
        if self.scheme_tls() {
            return self.start_tls(cx);
        }
        self.established(cx);
        Ok(())
    }

    pub(super) fn do_haproxy(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let (line, mut sent) = self.haproxy.take().expect("haproxy line");
        let conn = self.conn.as_mut().expect("conn");
        let r = loop {
            if sent == line.len() {
                break conn.flush();
            }
            match conn.send(&line[sent..]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let done = sent == line.len();
        self.haproxy = Some((line, sent));
        match r {
            Ok(()) if done => {
                self.origin_ready(cx)?;
                Ok(true)
            }
            Ok(()) => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) => Err(send_error(&e)),
        }
    }

    /// The `--unix-socket` address as curl shows it: the path, or nothing for an abstract
    /// name.
    pub(super) fn unix_socket_shown(&self) -> Option<&str> {
        let path = self.opts.unix_socket_path.as_deref()?;
        Some(if self.opts.abstract_unix_socket {
            ""
        } else {
            path
        })
    }

    /// The connection is ready for requests (after TLS for https).
    pub(super) fn established(&mut self, cx: &mut Cx<'_>) {
        self.verbose_connected();
        // curl's CONNECT_ONLY stops after the connect for HTTP; other protocols have their
        // protocol connect first (FTP's login).
        if self.opts.connect_only && self.info.scheme.starts_with("http") {
            self.connect_only_done(cx);
            return;
        }
        self.state = State::ProtoConnect;
    }

    /// curl's note on a reused connection: through a proxy it names the proxy (the SOCKS
    /// one first), else the host.
    fn reuse_note(&self, scheme: &str, host: &str) -> String {
        let proxy = self
            .preproxy
            .as_ref()
            .or(self.proxy.as_ref().filter(|p| !p.kind.is_http()))
            .or(self.proxy.as_ref());
        match proxy {
            Some(p) => format!(
                "Re-using existing {scheme}: connection with proxy {}",
                p.host.trim_start_matches('[').trim_end_matches(']')
            ),
            None => format!("Re-using existing {scheme}: connection with host {host}"),
        }
    }

    /// curl's `Curl_verboseconnect` for the first connection: where it went.
    pub(super) fn verbose_connected(&mut self) {
        if self.opts.verbose {
            let c = self.conn.as_ref().expect("conn");
            let ip = c
                .remote
                .map(|a| a.ip().to_string())
                .unwrap_or_else(|| "".into());
            let host = self.conn_to_host.as_deref().unwrap_or(&c.host);
            let host = host.trim_start_matches('[').trim_end_matches(']');
            let msg = match (self.unix_socket_shown(), self.socks_unix_path()) {
                (Some(p), _) => format!("Connected to {host} ({p}) port 0"),
                // curl's peer of a Unix socket has the path for address and no port.
                (None, Some(p)) => format!("Connected to {host} ({p}) port 0"),
                // The port connected to, which a `--connect-to` rule may have changed.
                (None, None) => {
                    let port = c.remote.map_or(c.port, |a| a.port());
                    format!("Connected to {host} ({ip}) port {port}")
                }
            };
            self.verbose(&msg);
        }
    }

    /// The Unix socket of the SOCKS proxy, when it is one (`localhost/path`).
    /// The connection the transfer uses from now on; the debug callback learns it too.
    pub(super) fn set_conn_id(&mut self, id: i64) {
        self.info.conn_id = id;
        if self.opts.verbose {
            self.callbacks.debug_ids(self.info.xfer_id, id);
        }
    }

    /// The connection's peer: its address, or for a Unix socket its path.
    pub(super) fn set_peer(&mut self, remote: Option<SocketAddr>) {
        self.info.primary_ip = remote;
        self.info.unix_peer = match remote {
            Some(_) => None,
            None => self
                .opts
                .unix_socket_path
                .clone()
                .or_else(|| self.socks_unix_path()),
        };
    }
}

impl Transfer {
    /// After a Happy Eyeballs pass: its notes shown, the timer for its next attempt set.
    pub(super) fn eyeballs_after(&mut self, next: Option<Instant>) {
        self.flush_notes();
        match next {
            Some(t) => self.timers.set(TimerId::HappyEyeballs, t),
            None => self.timers.clear(TimerId::HappyEyeballs),
        }
    }
}

/// One pass of the Happy Eyeballs attempts `he` (the transfer's connection, or a protocol's
/// second one). The attempts may open sockets: the socket callbacks see the transfer's
/// values (`lend_info`).
pub(super) fn eyeballs_pass(
    callbacks: &mut dyn Callbacks,
    info: &Info,
    opts: &connect::SocketOptions<'_>,
    notes: &mut Vec<String>,
    he: &mut HappyEyeballs,
    now: Instant,
) -> ConnectPoll {
    let mut polled = None;
    callbacks.lend_info(info, &mut || polled = Some(he.poll(now, opts, notes)));
    match polled {
        Some(r) => r,
        None => he.poll(now, opts, notes),
    }
}
