//! An easy handle: the settings and callbacks of one transfer. `perform` runs it on an
//! internal multi, as libcurl does, which it keeps so connections are reused across calls.

use crate::error::{Code, Error, Result};
use crate::info::Info;
use crate::multi::Multi;
use crate::options::{Handler, NullHandler, Options};

pub struct Easy {
    pub opts: Options,
    handler: Box<dyn Handler>,
    multi: Option<Box<Multi>>,
    /// Statistics of the last `perform`; boxed on first use so that an idle handle stays small
    /// (`tests/idle_handles.rs`: 1000 handles under 2 KiB each).
    info: Option<Box<Info>>,
    /// The connection a `CURLOPT_CONNECT_ONLY` transfer left.
    pub(crate) connection: Option<Box<crate::conn::RawConn>>,
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
        Easy::new(Options::default(), Box::new(NullHandler))
    }
}

impl Easy {
    pub fn new(opts: Options, handler: Box<dyn Handler>) -> Easy {
        Easy {
            opts,
            handler,
            multi: None,
            info: None,
            connection: None,
        }
    }
    pub(crate) fn into_parts(self) -> (Options, Box<dyn Handler>) {
        (self.opts, self.handler)
    }
    pub(crate) fn from_parts(opts: Options, handler: Box<dyn Handler>) -> Easy {
        Easy::new(opts, handler)
    }
    pub fn set_handler(&mut self, h: Box<dyn Handler>) {
        self.handler = h;
    }
    pub fn handler_mut(&mut self) -> &mut dyn Handler {
        &mut *self.handler
    }
    /// Take the handler out, leaving one that discards everything.
    pub fn take_handler(&mut self) -> Box<dyn Handler> {
        std::mem::replace(&mut self.handler, Box::new(NullHandler))
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

    /// Run the transfer to completion (`curl_easy_perform`).
    pub fn perform(&mut self) -> Result<()> {
        let mut multi = match self.multi.take() {
            Some(m) => m,
            None => {
                Box::new(Multi::new().map_err(|e| Error::new(Code::FailedInit, e.to_string()))?)
            }
        };
        let me = Easy::new(
            self.opts.clone(),
            std::mem::replace(&mut self.handler, Box::new(NullHandler)),
        );
        let id = multi.add(me);
        let r = multi.run_all();
        let (back, info) = multi.remove(id).expect("transfer present");
        let result = multi.result_of_last(id);
        self.handler = back.handler;
        self.connection = back.connection;
        match &mut self.info {
            Some(b) => **b = info,
            None => self.info = Some(Box::new(info)),
        }
        self.multi = Some(multi);
        r.map_err(|e| Error::new(Code::UnrecoverablePoll, e.to_string()))?;
        result
    }
}
