//! An easy handle: the settings and callbacks of one transfer. `perform` runs it on an
//! internal multi, as libcurl does, which it keeps so connections are reused across calls.

use crate::cookie::{CookieJar, CookieListAction};
use crate::error::{Code, Error, Result};
use crate::info::Info;
use crate::multi::Multi;
use crate::options::{Callbacks, NullCallbacks, Options};

pub struct Easy {
    pub opts: Options,
    callbacks: Box<dyn Callbacks>,
    multi: Option<Box<Multi>>,
    /// Statistics of the last `perform`; boxed on first use so that an idle handle stays small
    /// (`tests/idle_handles.rs`: 1000 handles under 2 KiB each).
    info: Option<Box<Info>>,
    /// The connection a `CURLOPT_CONNECT_ONLY` transfer left.
    pub(crate) connection: Option<Box<crate::conn::RawConn>>,
    /// The authentication state the last transfer left for the next one.
    pub(crate) auth: Option<Box<crate::auth::AuthCarry>>,
}

/// What `info` reports before any `perform`.
static NO_INFO: std::sync::LazyLock<Info> = std::sync::LazyLock::new(Info::default);

impl std::fmt::Debug for Easy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Easy").field("opts", &self.opts).finish()
    }
}

impl Default for Easy {
    fn default() -> Easy {
        Easy::new(Options::default(), Box::new(NullCallbacks))
    }
}

impl Easy {
    pub fn new(opts: Options, callbacks: Box<dyn Callbacks>) -> Easy {
        Easy {
            opts,
            callbacks,
            multi: None,
            info: None,
            connection: None,
            auth: None,
        }
    }
    pub(crate) fn into_parts(self) -> (Options, Box<dyn Callbacks>) {
        (self.opts, self.callbacks)
    }
    pub(crate) fn from_parts(opts: Options, callbacks: Box<dyn Callbacks>) -> Easy {
        Easy::new(opts, callbacks)
    }
    pub fn set_callbacks(&mut self, h: Box<dyn Callbacks>) {
        self.callbacks = h;
    }
    pub fn callbacks_mut(&mut self) -> &mut dyn Callbacks {
        &mut *self.callbacks
    }
    /// Take the callbacks out, leaving one that discards everything.
    pub fn take_callbacks(&mut self) -> Box<dyn Callbacks> {
        std::mem::replace(&mut self.callbacks, Box::new(NullCallbacks))
    }
    /// The authentication state the last transfer found (see `AuthCarry`), taken out.
    pub fn take_auth(&mut self) -> Option<Box<crate::auth::AuthCarry>> {
        self.auth.take()
    }
    /// The authentication state the next transfer starts from; None forgets it
    /// (`curl_easy_reset`).
    pub fn set_auth(&mut self, auth: Option<Box<crate::auth::AuthCarry>>) {
        self.auth = auth;
    }
    /// The connection the last `CURLOPT_CONNECT_ONLY` transfer made, once.
    pub fn take_connection(&mut self) -> Option<crate::conn::RawConn> {
        self.connection.take().map(|c| *c)
    }
    /// Statistics of the last `perform`.
    pub fn info(&self) -> &Info {
        self.info.as_deref().unwrap_or(&NO_INFO)
    }

    /// Write the cookie jar and the HSTS cache of the transfers performed so far, as
    /// `curl_easy_cleanup` does.
    pub fn save_state(&mut self) -> std::io::Result<()> {
        match self.multi.as_mut() {
            Some(m) => m.save_state_with(self.opts.share.as_ref()),
            None => Ok(()),
        }
    }

    /// Runs `f` on the cookies transfers with `opts` use: the share's when it shares cookies,
    /// else the handle's own (its internal multi's, made when `create` asks for it; None
    /// when there is none).
    fn with_cookies<R>(
        &mut self,
        opts: &Options,
        create: bool,
        f: impl FnOnce(&mut crate::cookie::CookieStore) -> R,
    ) -> Result<Option<R>> {
        let shared = opts
            .share
            .as_ref()
            .filter(|a| a.share.shares(crate::share::ShareData::Cookie));
        if let Some(a) = shared {
            return Ok(Some(a.with_cookies(f)));
        }
        if self.multi.is_none() {
            if !create {
                return Ok(None);
            }
            let m = Multi::new().map_err(|e| Error::new(Code::FailedInit, e.to_string()))?;
            self.multi = Some(Box::new(m));
        }
        Ok(self.multi.as_mut().map(|m| f(m.cookie_store())))
    }

    /// `CURLOPT_COOKIELIST`: `arg` on the cookies transfers with `opts` use. `ALL`, `SESS`
    /// and `FLUSH` do nothing without a jar; a cookie line or `RELOAD` starts one. `FLUSH`
    /// writes the jar to `opts.cookie_jar` (`-` is stdout; errors are ignored, as curl's),
    /// `RELOAD` reads `opts.cookie_files` again.
    pub fn cookie_list(&mut self, opts: &Options, arg: &[u8]) -> Result<CookieListAction> {
        let now = crate::parsedate::unix_now();
        let keyword = [&b"ALL"[..], b"SESS", b"FLUSH"]
            .iter()
            .any(|k| arg.eq_ignore_ascii_case(k));
        let r = self.with_cookies(opts, true, |store| {
            let jar = match store.jar.as_mut() {
                Some(j) => j,
                None if keyword => return CookieJar::new().cookielist(arg, now),
                None => store.jar.insert(CookieJar::new()),
            };
            let action = jar.cookielist(arg, now);
            match &action {
                CookieListAction::Flush => {
                    if let Some(path) = &opts.cookie_jar {
                        let text = jar.save_netscape(now);
                        let _ = if path == "-" {
                            std::io::Write::write_all(&mut std::io::stdout().lock(), &text)
                        } else {
                            std::fs::write(path, &text)
                        };
                    }
                }
                CookieListAction::Reload => {
                    jar.set_new_session(opts.cookie_session);
                    for f in opts.cookie_files.iter().filter(|f| !f.is_empty()) {
                        jar.load_file(f, now);
                    }
                }
                _ => {}
            }
            action
        })?;
        Ok(r.expect("created"))
    }

    /// `CURLOPT_COOKIEFILE` set to NULL: the handle's own jar (not a shared one) is thrown
    /// away, and the files it read may be read again.
    pub fn cookies_off(&mut self, opts: &Options) {
        let _ = self.with_cookies(opts, false, |store| {
            let shared = opts
                .share
                .as_ref()
                .is_some_and(|a| a.share.shares(crate::share::ShareData::Cookie));
            if !shared {
                store.jar = None;
                store.loaded.clear();
            }
        });
    }

    /// `CURLINFO_COOKIELIST`: the cookies transfers with `opts` use, as Netscape lines.
    pub fn cookie_lines(&mut self, opts: &Options) -> Vec<Vec<u8>> {
        self.with_cookies(opts, false, |store| {
            store.jar.as_ref().map(CookieJar::cookie_list)
        })
        .ok()
        .flatten()
        .flatten()
        .unwrap_or_default()
    }

    /// The HSTS cache entries transfers with `opts` used (the share's when it shares HSTS),
    /// oldest first, for `CURLOPT_HSTSWRITEFUNCTION`.
    pub fn hsts_entries(&mut self, opts: &Options) -> Vec<crate::hsts::HstsEntry> {
        let shared = opts
            .share
            .as_ref()
            .filter(|a| a.share.shares(crate::share::ShareData::Hsts));
        match (shared, self.multi.as_mut()) {
            (Some(a), _) => a.with_hsts(|h| h.entries()),
            (None, Some(m)) => m.hsts_cache().entries(),
            (None, None) => Vec::new(),
        }
    }

    /// Run the transfer to completion (`curl_easy_perform`).
    pub fn perform(&mut self) -> Result<()> {
        let mut multi = match self.multi.take() {
            Some(m) => m,
            None => {
                Box::new(Multi::new().map_err(|e| Error::new(Code::FailedInit, e.to_string()))?)
            }
        };
        if let Some(n) = self.opts.max_connects {
            multi.set_max_connects(n);
        }
        let mut me = Easy::new(
            self.opts.clone(),
            std::mem::replace(&mut self.callbacks, Box::new(NullCallbacks)),
        );
        me.auth = self.auth.take();
        let id = multi.add(me);
        let r = multi.run_all();
        let (back, info) = multi.remove(id).expect("transfer present");
        let result = multi.result_of_last(id);
        self.callbacks = back.callbacks;
        self.connection = back.connection;
        self.auth = back.auth;
        match &mut self.info {
            Some(b) => **b = info,
            None => self.info = Some(Box::new(info)),
        }
        self.multi = Some(multi);
        r.map_err(|e| Error::new(Code::UnrecoverablePoll, e.to_string()))?;
        result
    }
}
