//! The transfer's use of the cookie engine and the alt-svc cache (curl's `cookie.c` and
//! `altsvc.c` glue): loading before the first request, storing after each response.

use super::*;

impl Transfer {
    /// Is the cookie engine on for this transfer (`CURLOPT_COOKIEFILE` or `COOKIEJAR` set)?
    pub(super) fn cookie_engine(&self) -> bool {
        !self.opts.cookie_files.is_empty() || self.opts.cookie_jar.is_some()
    }

    /// Turn the multi's cookie engine on and read the files this transfer names that were
    /// not read yet.
    pub(super) fn start_cookies(&mut self, cx: &mut Cx<'_>) {
        if !self.cookie_engine() {
            return;
        }
        let now = crate::parsedate::unix_now();
        let jar = cx
            .cookies
            .jar
            .get_or_insert_with(crate::cookie::CookieJar::new);
        jar.set_new_session(self.opts.cookie_session);
        for f in &self.opts.cookie_files {
            if f.is_empty() || cx.cookies.loaded.contains(f) {
                continue;
            }
            cx.cookies.loaded.push(f.clone());
            jar.load_file(f, now);
        }
        if let Some(j) = &self.opts.cookie_jar {
            if !cx.cookies.save_to.contains(j) {
                cx.cookies.save_to.push(j.clone());
            }
        }
    }

    /// Host, path and secure-context of the current request, as cookies see them.
    pub(super) fn cookie_target(&self) -> (String, String, bool) {
        let url = self.url.as_ref().expect("url");
        let host = match request::custom_value(&self.opts.headers, "Host") {
            Some(h) => {
                // The name part of a custom Host header.
                let h = h.trim();
                if let Some(rest) = h.strip_prefix('[') {
                    rest.split(']').next().unwrap_or("").to_string()
                } else {
                    h.split(':').next().unwrap_or("").to_string()
                }
            }
            None => self.url_host(),
        };
        let secure = crate::cookie::secure_context(url.scheme() == "https", &host);
        (host, url.path().to_string(), secure)
    }

    /// Hand the `Set-Cookie:` headers of the response to the jar.
    pub(super) fn store_cookies(&mut self, cx: &mut Cx<'_>) {
        let values = std::mem::take(&mut self.pending_cookies);
        let Some(jar) = cx.cookies.jar.as_mut() else {
            return;
        };
        let (host, path, secure) = self.cookie_target();
        let now = crate::parsedate::unix_now();
        let mut notes = Vec::new();
        for v in &values {
            let info = match jar.add_set_cookie(v, &host, &path, secure, now) {
                Ok(stored) => stored.info,
                Err(rej) => rej.info(),
            };
            notes.extend(info);
        }
        for n in notes {
            self.verbose(&n);
        }
    }

    /// The URL's host in punycode, an IPv6 address without its brackets: the name TLS and
    /// cookies use.
    /// An `Alt-Svc:` header of this origin's response into the multi's cache.
    pub(super) fn store_altsvc(&mut self, cx: &mut Cx<'_>, value: &[u8]) {
        use crate::altsvc::Alpn;
        let src = if self.resp.version == HttpVersion::V2 {
            Alpn::H2
        } else {
            Alpn::H1
        };
        let host = self.url_host();
        let port = self.url.as_ref().map_or(0, |u| u.port_or_default());
        let now = crate::parsedate::unix_now();
        for n in cx.altsvc.on_header(value, src, &host, port, now) {
            self.verbose(&n);
        }
    }
}
