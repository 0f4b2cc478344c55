//! Protocol handlers (curl's `Curl_handler`): the code that serves a scheme.
//!
//! The transfer's own state machine is curl's multi states only (`State`: init, pending,
//! resolving, connecting, protocol connect, do, perform, done). What a state means for one
//! protocol is asked of the transfer's handler, picked from the scheme table
//! (`oxcurl_urlapi::scheme`, its `HandlerKind`) when the URL is set up:
//!
//! - `setup` (curl's `setup_connection`): what the URL asks of the protocol before a
//!   connection is looked for: method, credentials, the body to send. A scheme without a
//!   network (`flag::NONETWORK`) does all its opening here and gets no connection.
//! - `connect` (curl's `connect_it` and `connecting`): the protocol's own login or greeting
//!   once the connection's filters are up; true when it is complete.
//! - `do_it` (curl's `do_it` and `doing`): start what the URL asks for; true when started.
//! - `perform` (curl's `readwrite` in `MSTATE_PERFORMING`): move data; the handler finishes
//!   the transfer (or follows, or retries) when the last byte is through.
//! - `interests` (curl's `*_pollset`): the sockets its current phase waits on.
//! - `moving` (is the phase one that rate limits and the low-speed check apply to),
//!   `check_timers` (the protocol's own timers) and `closing` (curl's premature-end
//!   verdict on the connection of a failed transfer).
//!
//! Handlers are stateless values, as curl's handler tables are: a transfer's protocol state
//! lives in the transfer (curl's `data->req.p`), a connection's in the connection.
//!
//! Adding a protocol: a handler module under `transfer/` implementing `Handler` (with its
//! sans-IO wire format under `proto/`), its `HandlerKind` variant and scheme table line in
//! `oxcurl_urlapi::scheme`, and its arm in `of`.

use std::time::Instant;

use super::{Cx, Interest, Transfer};
use crate::error::{Code, Result};
use crate::scheme::HandlerKind;

/// One protocol's side of the multi states. Every method gets the transfer it runs for.
pub(crate) trait Handler: Sync {
    /// curl's `setup_connection`, after the scheme is allowed and the URL's host checked.
    fn setup(&self, t: &mut Transfer, cx: &mut Cx<'_>, url: &oxcurl_urlapi::Url) -> Result<()>;

    /// Protocol connect (curl's `connect_it`, then `connecting` until it says done).
    fn connect(&self, _t: &mut Transfer, _cx: &mut Cx<'_>) -> Result<bool> {
        Ok(true)
    }

    /// curl's `do_it` (then `doing` until it says done): the request starts.
    fn do_it(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool>;

    /// One pass of moving data (`MSTATE_PERFORMING`). `Ok(true)`: call again at once.
    fn perform(&self, t: &mut Transfer, cx: &mut Cx<'_>) -> Result<bool>;

    /// The sockets the handler's current phase waits on, and for what.
    fn interests<'a>(&self, _t: &'a Transfer) -> [Option<Interest<'a>>; 2] {
        [None, None]
    }

    /// Data is moving on the network: rate limits and the low-speed check apply.
    fn moving(&self, _t: &Transfer) -> bool {
        false
    }

    /// The protocol's own timers, looked at before every pass.
    fn check_timers(&self, _t: &mut Transfer, _now: Instant) {}

    /// What the overall timeout (`-m`) says when it fires in this phase, when the protocol
    /// says more than the multi's own "Operation timed out" (FTP's TLS upgrade after AUTH,
    /// which curl runs as a blocking connect: "connect timeout").
    fn timeout_message(&self, _t: &Transfer) -> Option<&'static str> {
        None
    }

    /// How the connection of a transfer failing with `code` in `MSTATE_PERFORMING` ends:
    /// "closing" (premature), "shutting down" (the regular way), or None when the transfer
    /// holds none to end.
    fn closing(&self, t: &Transfer, code: Code) -> Option<&'static str>;

    /// The transfer fails with `code` in protocol connect, do (`premature` false) or
    /// perform (curl's handler `done` with an error status). A handler that keeps the
    /// connection for reuse puts it back itself and returns the notes to show after the
    /// error (one a line); None lets the connection end as `closing` says.
    fn failed(
        &self,
        _t: &mut Transfer,
        _cx: &mut Cx<'_>,
        _code: Code,
        _premature: bool,
    ) -> Option<String> {
        None
    }
}

/// The handler serving `kind`.
pub(crate) fn of(kind: HandlerKind) -> &'static dyn Handler {
    match kind {
        HandlerKind::Http => &super::http::HTTP,
        HandlerKind::File => &super::file::FILE,
        HandlerKind::Ftp => &super::ftp::FTP,
    }
}
