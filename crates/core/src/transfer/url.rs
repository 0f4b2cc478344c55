//! Setting a transfer up from its URL (curl's `url.c`): which protocols are allowed, the URL's
//! credentials and `.netrc`, `--connect-to` and alt-svc routes, and the start of the first
//! request (`do_init`).

use super::*;

impl Transfer {
    pub(super) fn url_flags(&self) -> Flags {
        Flags {
            guess_scheme: self.opts.default_protocol.is_none(),
            default_scheme: false,
            non_support_scheme: true,
            path_as_is: self.opts.path_as_is,
            disallow_user: self.opts.disallow_username_in_url,
            allow_space: self.opts.url_allow_space,
            ..Flags::default()
        }
    }

    /// curl's `findprotocol` check: `CURLOPT_PROTOCOLS_STR` always, and on a redirect also
    /// `CURLOPT_REDIR_PROTOCOLS_STR` (default http, https, ftp, ftps).
    pub(super) fn protocol_allowed(&self, scheme: &str) -> bool {
        let has = |l: &[String]| l.iter().any(|p| p.eq_ignore_ascii_case(scheme));
        if let Some(l) = &self.opts.allowed_protocols {
            if !has(l) {
                return false;
            }
        }
        if self.redirected {
            return match &self.opts.redir_protocols {
                Some(l) => has(l),
                None => crate::scheme::find(scheme)
                    .is_some_and(|s| s.protocol & crate::scheme::proto::REDIR_DEFAULT != 0),
            };
        }
        true
    }

    pub(super) fn do_init(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        // curl refuses to resume a POST of fields or a form before doing anything.
        if self.opts.resume_from > 0 && matches!(self.body, Body::Fields(_) | Body::Mime(_)) {
            return Err(Error::code(Code::FailedInit));
        }
        if self.url.is_none() {
            if let Some(t) = self.opts.timeout {
                self.timers.set(TimerId::Timeout, self.started + t);
            }
            let raw = self.opts.url.as_deref().unwrap_or_default();
            if raw.is_empty() {
                return Err(Error::new(Code::UrlMalformat, "No URL set"));
            }
            // CURLINFO_EFFECTIVE_URL is the URL as set until it parses.
            raw.clone_into(&mut self.info.effective_url);
            let input: std::borrow::Cow<'_, str> = match &self.opts.default_protocol {
                Some(p) if !raw.contains("://") => format!("{p}://{raw}").into(),
                _ => raw.into(),
            };
            let url = Url::parse(&input, self.url_flags()).map_err(|e| {
                // curl's Curl_uc_to_curlcode: credentials where they are prohibited is 67.
                let code = if e == oxcurl_urlapi::UrlError::UserNotAllowed {
                    Code::LoginDenied
                } else {
                    Code::UrlMalformat
                };
                Error::new(code, format!("URL rejected: {}", e.message()))
            })?;
            let mut url = url;
            if let Some(port) = self.opts.port {
                // Only the first request: a redirect goes where the Location says.
                let shown = match &self.opts.url_shown {
                    Some(s) => s.clone(),
                    None => url.to_url_string(),
                };
                url.set(Part::Port, Some(&port.to_string()), self.url_flags())
                    .map_err(|e| Error::new(Code::UrlMalformat, e.message()))?;
                self.port_set = Some((url.clone(), shown));
            } else if let Some(shown) = &self.opts.url_shown {
                self.port_set = Some((url.clone(), shown.clone()));
            }
            self.url = Some(Arc::new(url));
            for entry in self.opts.resolve.clone() {
                match dns::parse_resolve_text(&entry) {
                    Ok(Some(((host, port, addrs), _))) if addrs.is_empty() => {
                        cx.resolver.remove(&host, port);
                    }
                    Ok(Some(((host, port, addrs), text))) => {
                        if cx.resolver.contains(&host, port) {
                            self.verbose(&format!(
                                "RESOLVE {host}:{port} - old addresses discarded"
                            ));
                        }
                        cx.resolver.insert(&host, port, addrs, cx.now);
                        let tail = if entry.starts_with('+') {
                            " (non-permanent)"
                        } else {
                            ""
                        };
                        self.verbose(&format!("Added {host}:{port}:{text} to DNS cache{tail}"));
                        if host == "*" {
                            self.verbose(&format!("RESOLVE *:{port} using wildcard"));
                            self.wildcard_resolve = true;
                        }
                    }
                    Ok(None) => {}
                    Err(illegal) => {
                        if let Some(a) = illegal {
                            self.verbose(&format!("Resolve address '{a}' found illegal"));
                        }
                        return Err(Error::new(
                            Code::SetoptOptionSyntax,
                            format!("Couldn't parse CURLOPT_RESOLVE entry '{entry}'"),
                        ));
                    }
                }
            }
        }
        self.start_cookies(cx);
        let mut url = self.url.clone().expect("url set");
        // curl's parseurlandfillconn, for every URL (redirects too).
        if url.host().len() > MAX_URL_LEN {
            return Err(Error::new(
                Code::UrlMalformat,
                format!("Too long hostname (maximum is {MAX_URL_LEN})"),
            ));
        }
        if let Some(f) = &self.opts.hsts_file {
            let now = crate::parsedate::unix_now();
            cx.hsts.load(f, now);
            // curl's Curl_pretransfer: the files, then the application's entries.
            if !std::mem::replace(&mut self.hsts_pulled, true) {
                loop {
                    match self.callbacks.hsts_read() {
                        crate::hsts::HstsPull::Entry(e) => cx.hsts.add_entry(&e),
                        crate::hsts::HstsPull::Done => break,
                        crate::hsts::HstsPull::Fail => {
                            return Err(Error::code(Code::AbortedByCallback))
                        }
                    }
                }
            }
            if url.scheme() == "http" {
                let host = url.host_punycode().unwrap_or_default();
                if cx.hsts.is_sts_host(&host, now)
                    && Arc::make_mut(&mut url)
                        .set(Part::Scheme, Some("https"), Flags::default())
                        .is_ok()
                {
                    self.url = Some(url.clone());
                    let msg = format!(
                        "Switched from HTTP to HTTPS due to HSTS => {}",
                        url.to_url_string()
                    );
                    self.verbose(&msg);
                }
            }
        }
        if let Some(f) = &self.opts.altsvc_file {
            cx.altsvc.load(f);
        }
        // Set before the scheme is checked: a URL curl cannot use still shows in %{urle.*}.
        self.info.effective_url = match &self.port_set {
            Some((set, shown)) if *set == *url => shown.clone(),
            _ => url.to_url_string(),
        };
        let scheme = url.scheme();
        if !self.protocol_allowed(scheme) {
            let tail = if self.info.redirect_count > 0 {
                " (in redirect)"
            } else {
                ""
            };
            return Err(Error::new(
                Code::UnsupportedProtocol,
                format!("Protocol \"{scheme}\" disabled{tail}"),
            ));
        }
        // The scheme table names the handler serving the scheme.
        let (scheme, kind, flags) = match crate::scheme::find(scheme) {
            Some(s) => match s.handler {
                Some(kind) => (s.name, kind, s.flags),
                None => return Err(not_supported(scheme)),
            },
            None => return Err(not_supported(scheme)),
        };
        let h = handler::of(kind);
        self.handler = h;
        if flags & crate::scheme::flag::NONETWORK != 0 {
            // No resolving, connecting or proxy: the handler opens what it serves.
            h.setup(self, cx, &url)?;
            self.state = State::ProtoConnect;
            return Ok(true);
        }
        // An IDN name that does not convert is curl's bare CURLE_URL_MALFORMAT (its
        // idn_decode says nothing more).
        let host = url
            .host_punycode()
            .map(|h| h.into_owned())
            .map_err(|_| Error::code(Code::UrlMalformat))?;
        let port = url.port_or_default();
        if self.first_origin.is_none() {
            self.first_origin = Some((scheme, host.to_ascii_lowercase(), port));
        }
        self.info.scheme = scheme.to_string();
        h.setup(self, cx, &url)?;

        self.select_proxy(scheme, &host)?;
        // curl's create_conn: an HTTP proxy that does not tunnel carries the schemes that
        // allow it (ftp) as an HTTP request for the whole URL; HTTP serves the transfer.
        let http_proxy = self.proxy.as_ref().is_some_and(|p| p.kind.is_http());
        if flags & crate::scheme::flag::PROXY_AS_HTTP != 0
            && kind != crate::scheme::HandlerKind::Http
            && http_proxy
            && !self.tunnel_wanted
        {
            self.ftp = None;
            let h = handler::of(crate::scheme::HandlerKind::Http);
            self.handler = h;
            h.setup(self, cx, &url)?;
        }
        if !self.tunnel_again {
            if let Some((th, tp)) = self.connect_to_target(&host, port)? {
                if !th.is_empty() {
                    self.verbose(&format!("Connecting to hostname: {th}"));
                }
                if let Some(tp) = tp {
                    self.verbose(&format!("Connecting to port: {tp}"));
                }
            }
        }
        self.alt_used = None;
        self.alt_alpn = None;
        let target = self.connect_to_target(&host, port)?;
        let connect_to = self.connect_to_rule(&host, port)?;
        // curl's conn_to_host and conn_to_port, which key TLS sessions made unverified (a
        // proxy tunnels to them too). As in curl, a destination equal to the URL's is none.
        self.conn_to_key.clear();
        fn unbracket(h: &str) -> &str {
            h.trim_start_matches('[').trim_end_matches(']')
        }
        let note_route = |key: &mut String, h: Option<&str>, p: Option<u16>| {
            if let Some(h) = h.map(unbracket).filter(|h| !h.is_empty()) {
                if !h.eq_ignore_ascii_case(unbracket(&host)) {
                    let _ = write!(key, ":CHOST-{h}");
                }
            }
            if let Some(p) = p.filter(|&p| p != port) {
                let _ = write!(key, ":CPORT-{p}");
            }
        };
        if let Some((th, tp)) = &target {
            note_route(&mut self.conn_to_key, Some(th), *tp);
        }
        let (conn_host, conn_port) = match self.preproxy.as_ref().or(self.proxy.as_ref()) {
            Some(p) => (bracket(&p.host), p.port),
            None => match connect_to {
                Some(hp) => hp,
                None => match self.alt_svc_route(cx, scheme, port) {
                    Some((h, p)) => {
                        note_route(&mut self.conn_to_key, Some(&h), Some(p));
                        (h, p)
                    }
                    None => (host.clone(), port),
                },
            },
        };
        self.conn_to_host = (self.preproxy.is_none() && self.proxy.is_none() && conn_host != host)
            .then(|| {
                conn_host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string()
            });
        // scheme://host:port/route[/tls-hash], written into one buffer of the right size.
        let unix = self.opts.unix_socket_path.as_deref();
        let mut key =
            String::with_capacity(64 + host.len() + conn_host.len() + unix.map_or(0, str::len));
        let _ = write!(key, "{scheme}://{host}:{port}/");
        let _ = match unix {
            Some(p) => write!(
                key,
                "unix:{}{}",
                if self.opts.abstract_unix_socket {
                    "@"
                } else {
                    ""
                },
                p
            ),
            None => write!(key, "{conn_host}:{conn_port}"),
        };
        // An FTP connection asked to secure itself with AUTH is not one that was not
        // (curl's ftp_conn use_ssl match).
        let use_ssl = self.opts.use_ssl;
        if scheme.starts_with("ftp") && use_ssl != crate::options::UseSsl::None {
            let _ = write!(key, "/ssl{}", use_ssl as u8);
        }
        let tls = crate::scheme::find(scheme).is_some_and(|s| s.has(crate::scheme::flag::SSL));
        if tls || (scheme == "ftp" && use_ssl != crate::options::UseSsl::None) {
            // Connections made with other TLS settings are not interchangeable.
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            self.opts.tls.hash(&mut h);
            let _ = write!(key, "/{:x}", h.finish());
        }
        // Absolute-form requests share one proxy connection across origins; a tunnel is
        // bound to its origin. Neither ever serves a direct transfer.
        let proxy_key = self.proxy.as_ref().map(|p| {
            if p.kind.is_https() {
                // Connections to the proxy made with other proxy TLS settings differ too.
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                self.opts.proxy_tls.hash(&mut h);
                format!("{}/{:x}", p.key(), h.finish())
            } else {
                p.key()
            }
        });
        let key = match (&self.proxy, proxy_key) {
            (Some(p), Some(pk)) if p.kind.is_http() && !self.tunnel_wanted => format!("proxy:{pk}"),
            // A tunnel goes where a `--connect-to` rule sends it (curl's conn_to_host and
            // conn_to_port, which its connection reuse compares).
            (Some(_), Some(pk)) => format!("{key}{}|tunnel:{pk}", self.conn_to_key),
            _ => key,
        };
        let key = match &self.preproxy {
            Some(p) => format!("{key}|pre:{}", p.key()),
            None => key,
        };
        let (host, port) = match self.preproxy.as_ref().or(self.proxy.as_ref()) {
            Some(p) => (p.host.clone(), p.port),
            None => (host, port),
        };
        self.find_or_connect(
            cx,
            Target {
                key,
                scheme,
                host,
                port,
                conn_host,
                conn_port,
            },
        )
    }

    /// curl's `override_login`: the credentials for this URL from `-u`, the URL or `.netrc`.
    pub(super) fn find_credentials(&mut self, url: &Url) -> Result<()> {
        self.creds_netrc = false;
        let injected = std::mem::take(&mut self.creds_injected);
        if let Some((u, p)) = &self.opts.userpwd {
            self.creds = Some((u.clone(), p.clone()));
            return Ok(());
        }
        if url.user().is_some() && !injected {
            self.url_user = Some(decoded(url, Part::User));
        }
        if url.password().is_some() && !injected {
            self.url_password = Some(decoded(url, Part::Password));
        }
        let mut user = self.url_user.clone();
        let mut pass = self.url_password.clone();
        if self.opts.netrc != NetrcMode::Ignored {
            if self.opts.netrc == NetrcMode::Required {
                pass = None;
            }
            if pass.is_none() {
                let host = self.url_host();
                let file = self.opts.netrc_file.clone().or_else(|| {
                    std::env::var_os("HOME")
                        .map(|h| format!("{}/.netrc", std::path::Path::new(&h).display()))
                });
                let found = match file.as_deref().map(std::fs::File::open) {
                    Some(Ok(f)) => netrc::load(f).and_then(|text| {
                        netrc::lookup(&text, &host, user.as_deref().filter(|u| !u.is_empty()))
                    }),
                    _ => Err(netrc::NetrcError::FileMissing),
                };
                match found {
                    Ok((l, p)) => {
                        if user.as_deref().is_none_or(str::is_empty) {
                            user = Some(l);
                        }
                        pass = Some(p);
                        self.creds_netrc = true;
                    }
                    Err(e)
                        if e == netrc::NetrcError::NoMatch
                            || self.opts.netrc == NetrcMode::Optional =>
                    {
                        let name = self.opts.netrc_file.as_deref().unwrap_or(".netrc");
                        let msg =
                            format!("Couldn't find host {host} in the {name} file; using defaults");
                        self.verbose(&msg);
                    }
                    Err(e) => {
                        return Err(Error::new(
                            Code::ReadError,
                            format!(".netrc error: {}", e.message()),
                        ));
                    }
                }
            }
            if user.is_none() && pass.is_some() {
                user = Some(String::new());
            }
        }
        self.creds = user.map(|u| (u, pass.unwrap_or_default()));
        Ok(())
    }

    /// Where the first `--connect-to HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` rule matching
    /// `host:port` and naming a host or a port sends the transfer; Err for a target port curl
    /// cannot read (49).
    pub(super) fn connect_to_rule(&self, host: &str, port: u16) -> Result<Option<(String, u16)>> {
        Ok(self.connect_to_target(host, port)?.map(|(th, tp)| {
            let nh = if th.is_empty() { host.to_string() } else { th };
            (nh, tp.unwrap_or(port))
        }))
    }

    /// The destination of the first `--connect-to` rule for `host:port` that names one (curl's
    /// `parse_connect_to_slist`): its host (empty: the URL's) and port. A rule that names no
    /// destination does not count: the next one is tried.
    pub(super) fn connect_to_target(
        &self,
        host: &str,
        port: u16,
    ) -> Result<Option<(String, Option<u16>)>> {
        for rule in &self.opts.connect_to {
            if let Some((h, p)) = dns::connect_to_match(rule, host, port)? {
                if h.is_some() || p.is_some() {
                    return Ok(Some((h.unwrap_or_default(), p)));
                }
            }
        }
        Ok(None)
    }

    /// A cached alternative for an https origin no `--connect-to` rule redirected (curl's
    /// alt-svc lookup in `parse_connect_to_slist`): the source protocols tried are the one
    /// asked for, else h2 then h1.
    pub(super) fn alt_svc_route(
        &mut self,
        cx: &mut Cx<'_>,
        scheme: &str,
        port: u16,
    ) -> Option<(String, u16)> {
        use crate::altsvc::Alpn;
        if self.opts.altsvc_file.is_none() || scheme != "https" {
            return None;
        }
        let wishes: &[Alpn] = match self.opts.http_version {
            HttpVersionPref::V1_0 | HttpVersionPref::V1_1 => &[Alpn::H1],
            HttpVersionPref::V2PriorKnowledge => &[Alpn::H2],
            _ => &[Alpn::H2, Alpn::H1],
        };
        let allowed = self.opts.altsvc_ctrl & (Alpn::H1 as u32 | Alpn::H2 as u32);
        let host = self.url_host();
        let now = crate::parsedate::unix_now();
        for &src in wishes {
            let Some(e) = cx.altsvc.lookup(src, &host, port, allowed, now) else {
                continue;
            };
            self.verbose(&format!(
                "Alt-svc connecting from [{}]{host}:{port} to [{}]{}:{}",
                src.name(),
                e.dst_alpn.name(),
                e.dst_host,
                e.dst_port
            ));
            if src != e.dst_alpn {
                self.alt_alpn = Some(e.dst_alpn);
            }
            self.alt_used = Some(format!("{}:{}", e.dst_host, e.dst_port));
            return Some((bracket(&e.dst_host), e.dst_port));
        }
        None
    }

    pub(super) fn url_host(&self) -> String {
        let h = self
            .url
            .as_ref()
            .and_then(|u| u.host_punycode().ok())
            .unwrap_or_default();
        h.trim_start_matches('[').trim_end_matches(']').to_string()
    }
}

/// curl's refusal of a scheme it has no handler for.
fn not_supported(scheme: &str) -> Error {
    Error::new(
        Code::UnsupportedProtocol,
        format!("Protocol \"{scheme}\" not supported"),
    )
}
