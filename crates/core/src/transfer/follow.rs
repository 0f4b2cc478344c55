//! Redirects and retries with credentials (curl's `Curl_follow` and the auth retry in
//! `multi.c`).

use super::*;

impl Transfer {
    pub(super) fn follow(&mut self, cx: &mut Cx<'_>, next: String) -> Result<()> {
        let max = self.opts.max_redirs;
        if max >= 0 && self.info.redirect_count as i64 >= max {
            // curl's FOLLOW_FAKE: %{redirect_url} still tells where it would have gone (the
            // Location as given when it does not parse).
            let base = self.url.clone().expect("url");
            let fake = Flags {
                non_support_scheme: true,
                ..Flags::default()
            };
            self.info.redirect_url = Some(match base.join(&next, fake) {
                Ok(u) => u.to_url_string(),
                Err(_) => next,
            });
            return Err(Error::new(
                Code::TooManyRedirects,
                format!("Maximum ({max}) redirects followed"),
            ));
        }
        self.info.redirect_count += 1;
        self.redirected = true;
        let code = self.resp.code;
        let cur = self.url.clone().expect("url");
        // curl resolves the Location without accepting unknown schemes, so a redirect to one
        // fails here rather than when connecting.
        let flags = Flags {
            url_encode: true,
            allow_space: true,
            path_as_is: self.opts.path_as_is,
            ..Flags::default()
        };
        // curl's override_login wrote the credentials in use into the URL handle the Location
        // is resolved against: a relative redirect keeps them in the URL it shows (the "Issue
        // another request" line, %{url_effective}). The next request reads them as before.
        let base = self.url_with_credentials(&cur);
        let new = base
            .as_ref()
            .unwrap_or(&cur)
            .join(&next, flags)
            .map_err(|e| {
                let code = match e {
                    oxcurl_urlapi::UrlError::UnsupportedScheme => Code::UnsupportedProtocol,
                    _ => Code::UrlMalformat,
                };
                Error::new(
                    code,
                    format!(
                        "The redirect target URL could not be parsed: {}",
                        e.message()
                    ),
                )
            })?;
        // A Location with a user of its own (another host, say) is read as before.
        self.creds_injected = base
            .as_ref()
            .is_some_and(|b| b.user() == new.user() && b.password() == new.password());
        // curl's Curl_http_follow: credentials from the URL are kept for another host (they
        // are sent only where allowed) but dropped for another port or scheme.
        if !self.opts.unrestricted_auth {
            let (from, to) = (cur.port_or_default(), new.port_or_default());
            let note = if from != to {
                Some(format!("Clear auth, redirects to port from {from} to {to}"))
            } else if new.scheme() != cur.scheme() {
                Some(format!(
                    "Clear auth, redirects scheme from {} to {}",
                    cur.scheme(),
                    new.scheme()
                ))
            } else {
                None
            };
            if let Some(note) = note {
                self.verbose(&note);
                self.url_user = None;
                self.url_password = None;
            }
        }
        self.verbose(&format!(
            "Issue another request to this URL: '{}'",
            new.to_url_string()
        ));
        if self.opts.autoreferer {
            self.referer = Some(referer_for(&cur));
            self.info.referer.clone_from(&self.referer);
        }
        // curl's method rules (lib/http.c, Curl_follow): they look at the kind of request (a
        // POST is one with a request body from -d and friends), not at a -X method, which is
        // kept; switching to GET drops the body.
        let is_post = matches!(
            self.body,
            Body::Fields(_) | Body::PostRead(_) | Body::Mime(_)
        );
        let is_get = matches!(self.body, Body::None) && !self.opts.nobody;
        let switch_to_get = match code {
            301 => is_post && !self.opts.post301,
            302 => is_post && !self.opts.post302,
            // --post303 keeps a POST; anything but a GET becomes one.
            303 => !(is_get || is_post && self.opts.post303),
            _ => false,
        };
        // curl's Curl_http_follow and http_switch_to_get: the custom method as the mode says.
        let custom = self.opts.custom_request.clone();
        let mode = self.opts.follow_mode;
        if mode == FollowMode::FirstOnly && custom.is_some() && !self.ignore_custom {
            self.ignore_custom = true;
            self.verbose("Drop custom request method for next request");
        }
        if switch_to_get {
            if mode == FollowMode::ObeyCode {
                self.verbose(&format!("Switch to GET because of {code} response"));
                self.ignore_custom = true;
            } else if let Some(m) = custom.filter(|_| mode != FollowMode::FirstOnly) {
                self.verbose(&format!("Stick to {m} instead of GET"));
            }
            self.body = Body::None;
        } else if matches!(self.body, Body::Upload(_) | Body::PostRead(_)) && {
            // curl's Curl_follow has the new URL in place before it rewinds.
            self.info.effective_url = new.to_url_string();
            !self.callbacks.rewind_live(&self.info)
        } {
            return Err(Error::new(
                Code::SendFailRewind,
                "necessary data rewind was not possible",
            ));
        }
        self.info.time_redirect = cx.now.duration_since(self.started);
        // Curl_pgrsResetTransferSizes: the next request's sizes are not known yet.
        self.info.content_length_download = None;
        self.info.content_length_upload = None;
        self.url = Some(Arc::new(new));
        self.state = State::Init;
        Ok(())
    }

    /// `url` with the user and password of this transfer in it, URL-encoded (curl's
    /// `override_login` sets them on its URL handle), or None without credentials.
    pub(super) fn url_with_credentials(&self, url: &Url) -> Option<Url> {
        let (user, pass) = self.creds.as_ref()?;
        let mut with = url.clone();
        let encode = Flags {
            url_encode: true,
            ..Flags::default()
        };
        let nonempty = |s: &String| (!s.is_empty()).then(|| s.clone());
        with.set(Part::User, nonempty(user).as_deref(), encode)
            .ok()?;
        with.set(Part::Password, nonempty(pass).as_deref(), encode)
            .ok()?;
        Some(with)
    }

    /// Request the same URL again to answer an authentication challenge (curl's
    /// `FOLLOW_RETRY`): no redirect is counted.
    pub(super) fn retry_for_auth(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        // curl counts the retry as a followed redirect, against --max-redirs too.
        let max = self.opts.max_redirs;
        if max >= 0 && self.info.redirect_count as i64 >= max {
            return Err(Error::new(
                Code::TooManyRedirects,
                format!("Maximum ({max}) redirects followed"),
            ));
        }
        self.info.redirect_count += 1;
        let url = self.url.clone().expect("url");
        self.verbose(&format!(
            "Issue another request to this URL: '{}'",
            url.to_url_string()
        ));
        if matches!(self.body, Body::Upload(_) | Body::PostRead(_))
            && self.up.source_read
            && !self.callbacks.rewind_live(&self.info)
        {
            return Err(Error::new(
                Code::SendFailRewind,
                "necessary data rewind was not possible",
            ));
        }
        let _ = cx;
        self.state = State::Init;
        Ok(())
    }
}
