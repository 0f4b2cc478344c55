//! The multi handle as executor: a slab of transfers, the reactor (level-triggered epoll, `oxcurl_sys::poll`,
//! level mode, interest diffed after every pass), the timer queue of nearest deadlines, the
//! connection pool, receive buffers, the resolver and the message queue.
//!
//! With socket events on (`set_socket_events`), the interests are also aggregated per socket
//! for an application-owned event loop (`multi_ev`), which then drives the multi through
//! `socket_action` (curl's `curl_multi_socket_action`).

use std::io;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oxcurl_sys::{Event, Events, Poller};
pub use oxcurl_sys::{Foreign, PollFlags};

use crate::conn::{BufPool, Pool};
use crate::cookie::CookieStore;
use crate::dns::Resolver;
use crate::easy::Easy;
use crate::error::{Error, Result};
use crate::gather::Gather;
use crate::info::Info;
use crate::multi_ev::{SocketChange, SocketTable, SocketWhat};
use crate::timer::TimerQueue;
use crate::transfer::{ConnLimits, Cx, Transfer};

/// Identifies a transfer in its multi.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransferId {
    slot: usize,
    gen: u64,
}

/// The multi's own caches, for a share's to stand in for while a transfer using it runs.
macro_rules! local {
    ($m:expr) => {
        crate::share::Local {
            cookies: &mut $m.cookies,
            resolver: &mut $m.resolver,
            tls: &mut $m.tls,
            pool: &mut $m.pool,
            hsts: &mut $m.hsts,
        }
    };
}

/// The context a transfer step runs in at `now`: the multi's caches and pool, `limits` its
/// connection limits (None outside a drive).
macro_rules! cx {
    ($m:expr, $now:expr, $limits:expr) => {
        Cx {
            now: $now,
            poller: &$m.poller,
            resolver: &mut $m.resolver,
            pool: &mut $m.pool,
            bufs: &mut $m.bufs,
            next_conn_id: &mut $m.next_conn_id,
            tls: &mut $m.tls,
            hsts: &mut $m.hsts,
            altsvc: &mut $m.altsvc,
            cookies: &mut $m.cookies,
            limits: $limits,
            gather: &mut $m.gather,
        }
    };
}

/// A finished transfer (`curl_multi_info_read`'s `CURLMSG_DONE`).
#[derive(Debug)]
pub struct Message {
    pub id: TransferId,
    pub result: Result<()>,
}

/// Event key of the resolver's wake socket (polling reserves usize::MAX).
const WAKE_KEY: usize = usize::MAX - 1;

/// Event keys of sockets several transfers wait on (multiplexed connections): this bit and
/// the descriptor. Other sockets are keyed by their transfer's slot.
const SHARED_KEY: usize = 1 << (usize::BITS - 2);

/// Transfers woken (by h2 when frames for their stream came, by the pool when a connection
/// they wait for is settled), to run in the next pass.
type WakeList = Arc<std::sync::Mutex<Vec<(usize, u64)>>>;

/// A transfer's waker: queues its slot.
struct SlotWake {
    slot: usize,
    gen: u64,
    list: WakeList,
}

impl std::task::Wake for SlotWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let mut l = self.list.lock().unwrap_or_else(|p| p.into_inner());
        if !l.contains(&(self.slot, self.gen)) {
            l.push((self.slot, self.gen));
        }
    }
}

/// Socket identity of the resolver's wake socket in the socket table (connection sockets
/// count up from 0).
const WAKE_SOCK_ID: u64 = u64::MAX;

/// Ends a `Multi::poll_wakeable` early from any thread (`curl_multi_wakeup`).
#[derive(Clone, Debug)]
pub struct MultiWaker {
    inner: Arc<WakeState>,
}

#[derive(Debug)]
struct WakeState {
    poller: Arc<Poller>,
    /// A wakeup not yet seen by `poll_wakeable`: plain `poll` may be woken by the same
    /// notification, and must leave it for the next `poll_wakeable`.
    pending: AtomicBool,
}

impl MultiWaker {
    pub fn wake(&self) -> io::Result<()> {
        self.inner.pending.store(true, Ordering::SeqCst);
        self.inner.poller.notify()
    }
}

struct Slot {
    gen: u64,
    t: Option<Transfer>,
    /// Runnable in the next pass.
    ready: bool,
    /// The nearest deadline last queued for it.
    queued: Option<Instant>,
    /// Sockets registered for it: fd, socket identity, readable, writable, shared.
    regs: Vec<(RawFd, u64, bool, bool, bool)>,
    /// Sockets it waits on in the socket table (with socket events on), as `regs` plus the
    /// resolver's wake socket while it looks up a name.
    ev_regs: Vec<(RawFd, u64, bool, bool)>,
}

pub struct Multi {
    poller: Arc<Poller>,
    waker: MultiWaker,
    events: Events,
    /// Interests per socket for an application-owned loop, when `socket_events` is on.
    socket_events: bool,
    sockets: SocketTable,
    /// Sockets several transfers wait on, registered with the poller once for all.
    shared: SocketTable,
    woken: WakeList,
    /// When the earliest of the runnable transfers became runnable.
    ready_since: Option<Instant>,
    slots: Vec<Slot>,
    free: Vec<usize>,
    timers: TimerQueue,
    pool: Pool,
    bufs: BufPool,
    /// Wakeups coalesced for a download that outruns its sender ([`Gather`]).
    gather: Gather,
    tls: crate::tls::TlsCache,
    hsts: crate::hsts::Hsts,
    altsvc: crate::altsvc::AltSvc,
    cookies: CookieStore,
    resolver: Resolver,
    resolver_registered: bool,
    msgs: std::collections::VecDeque<Message>,
    next_conn_id: i64,
    next_xfer_id: i64,
    running: usize,
    /// `CURLMOPT_MAX_TOTAL_CONNECTIONS`, `CURLMOPT_MAX_HOST_CONNECTIONS` (0: none).
    max_total: usize,
    max_host: usize,
}

impl std::fmt::Debug for Multi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Multi")
            .field("running", &self.running)
            .finish()
    }
}

impl Multi {
    pub fn new() -> io::Result<Multi> {
        let poller = Arc::new(Poller::new()?);
        Ok(Multi {
            waker: MultiWaker {
                inner: Arc::new(WakeState {
                    poller: poller.clone(),
                    pending: AtomicBool::new(false),
                }),
            },
            poller,
            events: Events::new(),
            socket_events: false,
            sockets: SocketTable::default(),
            shared: SocketTable::default(),
            woken: Arc::new(std::sync::Mutex::new(Vec::with_capacity(16))),
            ready_since: None,
            slots: Vec::new(),
            free: Vec::new(),
            timers: TimerQueue::default(),
            pool: Pool::default(),
            bufs: BufPool::default(),
            gather: Gather::default(),
            tls: crate::tls::TlsCache::default(),
            hsts: crate::hsts::Hsts::default(),
            altsvc: crate::altsvc::AltSvc::default(),
            cookies: CookieStore::default(),
            resolver: Resolver::new()?,
            resolver_registered: false,
            msgs: Default::default(),
            next_conn_id: 0,
            next_xfer_id: 0,
            running: 0,
            max_total: 0,
            max_host: 0,
        })
    }

    /// The multi's own cookie store (an easy handle's, for its internal multi).
    pub(crate) fn cookie_store(&mut self) -> &mut CookieStore {
        &mut self.cookies
    }

    /// The multi's own HSTS cache (an easy handle's, for its internal multi).
    pub(crate) fn hsts_cache(&mut self) -> &mut crate::hsts::Hsts {
        &mut self.hsts
    }

    /// Most idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`).
    pub fn set_max_connects(&mut self, n: usize) {
        self.pool.max = n;
    }

    /// Most connections open at once (`CURLMOPT_MAX_TOTAL_CONNECTIONS`; 0: no limit).
    /// Transfers needing a new connection past it wait for one, as curl's do.
    pub fn set_max_total_connections(&mut self, n: usize) {
        self.max_total = n;
        self.wake_pending();
    }

    /// Most connections open to one host and port (`CURLMOPT_MAX_HOST_CONNECTIONS`).
    pub fn set_max_host_connections(&mut self, n: usize) {
        self.max_host = n;
        self.wake_pending();
    }

    /// Run the transfers waiting for a connection again: one may have become free.
    fn wake_pending(&mut self) {
        let now = Instant::now();
        for s in &mut self.slots {
            if s.t.as_ref().is_some_and(Transfer::is_pending) && !s.ready {
                s.ready = true;
                self.ready_since.get_or_insert(now);
            }
        }
    }

    /// Start a transfer (`curl_multi_add_handle`).
    pub fn add(&mut self, easy: Easy) -> TransferId {
        let now = Instant::now();
        let mut easy = easy;
        let auth = easy.auth.take();
        let (opts, callbacks) = easy.into_parts();
        let mut t = Transfer::new(opts, callbacks, now);
        if let Some(a) = auth {
            t.resume_auth(*a);
        }
        // curl gives the handle its id in the pool under the pool's lock.
        t.touch_pool();
        t.info.xfer_id = self.next_xfer_id;
        self.next_xfer_id += 1;
        if t.opts.verbose {
            t.callbacks.debug_ids(t.info.xfer_id, -1);
        }
        let slot = match self.free.pop() {
            Some(i) => i,
            None => {
                // A slot holds a whole transfer (some 6 KiB): grow by a quarter, not by
                // doubling, so that 50 parallel transfers do not keep 14 empty ones.
                let n = self.slots.len();
                if n == self.slots.capacity() {
                    self.slots.reserve_exact(if n < 4 { 1 } else { n / 4 });
                }
                self.slots.push(Slot {
                    gen: 0,
                    t: None,
                    ready: false,
                    queued: None,
                    regs: Vec::with_capacity(2),
                    ev_regs: Vec::new(),
                });
                self.slots.len() - 1
            }
        };
        let s = &mut self.slots[slot];
        s.gen += 1;
        t.set_waker(std::task::Waker::from(Arc::new(SlotWake {
            slot,
            gen: s.gen,
            list: self.woken.clone(),
        })));
        s.t = Some(t);
        s.ready = true;
        s.queued = None;
        self.ready_since.get_or_insert(now);
        self.running += 1;
        TransferId { slot, gen: s.gen }
    }

    fn get(&self, id: TransferId) -> Option<&Transfer> {
        let s = self.slots.get(id.slot)?;
        if s.gen == id.gen {
            s.t.as_ref()
        } else {
            None
        }
    }

    /// Whether a transfer has not been driven yet (its settings may still be replaced).
    pub fn unstarted(&self, id: TransferId) -> bool {
        self.get(id).is_some_and(Transfer::unstarted)
    }

    /// Replaces the settings and callbacks of a transfer that has not started (curl reads a
    /// handle's options when its transfer starts, not when it is added); false, and nothing
    /// changed, once it started.
    pub fn renew(&mut self, id: TransferId, easy: Easy) -> bool {
        let Some(s) = self.slots.get_mut(id.slot).filter(|s| s.gen == id.gen) else {
            return false;
        };
        match s.t.as_mut() {
            Some(t) if t.unstarted() => {
                let (opts, callbacks) = easy.into_parts();
                t.renew(opts, callbacks);
                true
            }
            _ => false,
        }
    }

    /// Statistics of a transfer, running or finished and not yet removed.
    pub fn info(&self, id: TransferId) -> Option<&Info> {
        self.get(id).map(|t| &t.info)
    }

    /// Take a transfer out (`curl_multi_remove_handle`), giving its settings and callbacks back.
    pub fn remove(&mut self, id: TransferId) -> Option<(Easy, Info)> {
        let s = self.slots.get_mut(id.slot)?;
        if s.gen != id.gen {
            return None;
        }
        let mut t = s.t.take()?;
        s.ready = false;
        s.queued = None;
        for (fd, sid, _, _, shared) in s.regs.drain(..) {
            if shared {
                self.shared.unset(fd, sid, id.slot, id.gen);
            }
        }
        for (fd, sid, _, _) in s.ev_regs.drain(..) {
            self.sockets.unset(fd, sid, id.slot, id.gen);
        }
        if !t.is_done() {
            self.running -= 1;
            let share = t.opts.share.clone();
            let lease = share.as_ref().map(|a| a.lend(local!(self)));
            let mut cx = cx!(self, Instant::now(), None);
            t.abort(&mut cx);
            if let Some(l) = lease {
                l.give_back(local!(self));
            }
            self.wake_pending();
        }
        self.free.push(id.slot);
        // The earliest runnable transfer may be the one leaving: as curl's expire times, the
        // deadline is now that of the others, if any is runnable (a later one), else none.
        self.ready_since = self.slots.iter().any(|s| s.ready).then(Instant::now);
        // curl looks for a kept connection of the handle under the pool's lock.
        if t.info.last_socket.is_some() {
            t.touch_pool();
        }
        let info = std::mem::take(&mut t.info);
        let connection = t.take_detached();
        let auth = t.auth_carry();
        let mut easy = Easy::from_parts(t.opts, t.callbacks);
        easy.connection = connection.map(|c| Box::new(crate::conn::RawConn(c)));
        easy.auth = auth.map(Box::new);
        Some((easy, info))
    }

    /// End a running transfer with `e` (curl fails every transfer of a multi whose socket or
    /// timer callback refused): it stays in the multi, finished, and its message is queued.
    pub fn fail(&mut self, id: TransferId, e: Error) {
        let Some(s) = self.slots.get_mut(id.slot) else {
            return;
        };
        if s.gen != id.gen {
            return;
        }
        let Some(t) = s.t.as_mut() else {
            return;
        };
        if t.is_done() {
            return;
        }
        let share = t.opts.share.clone();
        let lease = share.as_ref().map(|a| a.lend(local!(self)));
        let Some(t) = self.slots[id.slot].t.as_mut() else {
            return;
        };
        let mut cx = cx!(self, Instant::now(), None);
        t.abort_with(&mut cx, e);
        if let Some(l) = lease {
            l.give_back(local!(self));
        }
        self.running -= 1;
        let result = t.result.clone().unwrap_or(Ok(()));
        self.msgs.push_back(Message { id, result });
        self.slots[id.slot].ready = false;
        self.slots[id.slot].queued = None;
        if self.apply_interest(id.slot).is_ok() && self.socket_events {
            self.report_interest(id.slot);
        }
        self.wake_pending();
    }

    /// Write the HSTS cache back to the files it was loaded from (curl does this when the
    /// handle is cleaned up).
    pub fn save_hsts(&self) -> io::Result<()> {
        self.hsts.save_all()
    }

    /// Write the alt-svc cache back to the files it was loaded from (curl does this when
    /// the handle is cleaned up).
    pub fn save_altsvc(&self) -> io::Result<()> {
        self.altsvc.save_all()
    }

    /// Write the cookie jar to the `CURLOPT_COOKIEJAR` files the transfers named (`-` is
    /// stdout), as curl does when the handle is cleaned up.
    pub fn save_cookies(&mut self) -> io::Result<()> {
        self.save_cookies_of(None)
    }

    /// `save_cookies` and `save_hsts` with `share`'s jar and cache standing in for the
    /// multi's own when it shares them (curl writes the shared jar at the cleanup of each
    /// handle using it).
    pub fn save_state_with(&mut self, share: Option<&crate::share::Attached>) -> io::Result<()> {
        self.save_cookies_of(share)?;
        let lease = share.map(|a| a.lend(local!(self)));
        let r = self.hsts.save_all();
        if let Some(l) = lease {
            l.give_back(local!(self));
        }
        r?;
        self.altsvc.save_all()
    }

    fn save_cookies_of(&mut self, share: Option<&crate::share::Attached>) -> io::Result<()> {
        let lease = share.map(|a| a.lend(local!(self)));
        let r = self.write_jar();
        if let Some(l) = lease {
            l.give_back(local!(self));
        }
        r
    }

    fn write_jar(&mut self) -> io::Result<()> {
        let Some(jar) = self.cookies.jar.as_mut() else {
            return Ok(());
        };
        let text = jar.save_netscape(crate::parsedate::unix_now());
        for path in &self.cookies.save_to {
            if path == "-" {
                use std::io::Write;
                let mut out = io::stdout().lock();
                out.write_all(&text)?;
                out.flush()?;
            } else {
                std::fs::write(path, &text)?;
            }
        }
        Ok(())
    }

    /// Number of transfers not yet done.
    pub fn running(&self) -> usize {
        self.running
    }

    /// Next completion message (`curl_multi_info_read`).
    pub fn info_read(&mut self) -> Option<Message> {
        self.msgs.pop_front()
    }

    /// Run every transfer that can make progress, without blocking (`curl_multi_perform`).
    pub fn perform(&mut self) -> io::Result<usize> {
        let now = Instant::now();
        if self.resolver.busy() {
            self.resolver.poll_completions();
        }
        // Expired timers make their transfers runnable.
        let slots = &mut self.slots;
        self.timers.pop_due(now, |slot, gen| {
            if let Some(s) = slots.get_mut(slot) {
                if s.gen == gen && s.queued.is_some_and(|q| q <= now) {
                    s.ready = true;
                    s.queued = None;
                }
            }
        });
        self.take_woken(now);
        // Runnable transfers that were ready before the pass began run in it; one woken
        // during the pass runs in it if its slot comes later, else in the next.
        self.ready_since = None;
        for i in 0..self.slots.len() {
            if !self.slots[i].ready {
                continue;
            }
            self.slots[i].ready = false;
            self.run_slot(i, now)?;
            self.take_woken(now);
        }
        if self.slots.iter().any(|s| s.ready) {
            self.ready_since.get_or_insert(now);
        }
        if self.running == 0 {
            self.bufs.clear();
        }
        Ok(self.running)
    }

    /// Report socket interests through [`Multi::socket_change`] for an application-owned
    /// event loop (on when `CURLMOPT_SOCKETFUNCTION` is set). Turning it on reports the
    /// sockets running transfers wait on; turning it off forgets them without reports.
    pub fn set_socket_events(&mut self, on: bool) {
        if on == self.socket_events {
            return;
        }
        self.socket_events = on;
        if on {
            for i in 0..self.slots.len() {
                if self.slots[i].t.is_some() {
                    self.report_interest(i);
                }
            }
        } else {
            self.sockets.clear();
            for s in &mut self.slots {
                s.ev_regs.clear();
            }
        }
    }

    /// The next socket change for the application's loop (`CURLMOPT_SOCKETFUNCTION`); `owner`
    /// identifies the transfer it came from, if still there.
    pub fn socket_change(&mut self) -> Option<(SocketChange, Option<TransferId>)> {
        let c = self.sockets.pop()?;
        let (slot, gen) = c.owner;
        let id = TransferId { slot, gen };
        Some((c, self.get(id).is_some().then_some(id)))
    }

    /// Associate the application's value with a socket in use (`curl_multi_assign`); false
    /// if no transfer waits on `fd`.
    pub fn assign(&mut self, fd: RawFd, user: usize) -> bool {
        self.sockets.assign(fd, user)
    }

    /// Mark the woken transfers runnable.
    fn take_woken(&mut self, now: Instant) {
        let mut l = self.woken.lock().unwrap_or_else(|p| p.into_inner());
        for (slot, gen) in l.drain(..) {
            if let Some(s) = self.slots.get_mut(slot) {
                if s.gen == gen && s.t.as_ref().is_some_and(|t| !t.is_done()) {
                    s.ready = true;
                    self.ready_since.get_or_insert(now);
                }
            }
        }
    }

    fn mark_ready(&mut self, slot: usize, now: Instant) {
        if let Some(s) = self.slots.get_mut(slot) {
            if s.t.is_some() {
                s.ready = true;
                self.ready_since.get_or_insert(now);
            }
        }
    }

    /// Activity on `fd` (`curl_multi_socket_action`), or `None` for `CURL_SOCKET_TIMEOUT`:
    /// run the transfers waiting on the socket, those whose timers expired and anything
    /// else runnable. An unknown descriptor just runs the rest, as curl does.
    pub fn socket_action(&mut self, fd: Option<RawFd>) -> io::Result<usize> {
        if let Some(fd) = fd {
            let now = Instant::now();
            let (slots, since) = (&mut self.slots, &mut self.ready_since);
            for (slot, gen) in self.sockets.users(fd) {
                if let Some(s) = slots
                    .get_mut(slot)
                    .filter(|s| s.gen == gen && s.t.is_some())
                {
                    s.ready = true;
                    since.get_or_insert(now);
                }
            }
            if !self.socket_events {
                // Without the table, find the owners among the poller registrations.
                for i in 0..self.slots.len() {
                    if self.slots[i].regs.iter().any(|r| r.0 == fd) {
                        self.mark_ready(i, now);
                    }
                }
            }
        }
        self.perform()
    }

    /// Run every transfer, ready or not (`curl_multi_socket_all`).
    pub fn socket_all(&mut self) -> io::Result<usize> {
        let now = Instant::now();
        for i in 0..self.slots.len() {
            self.mark_ready(i, now);
        }
        self.perform()
    }

    /// When the multi next needs to run: the earliest timer, or when a transfer became
    /// runnable (`CURLMOPT_TIMERFUNCTION`'s deadline). Unchanged until it is run, so the
    /// application is told once.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        self.take_woken(Instant::now());
        let slots = &self.slots;
        self.timers.prune(|at, slot, gen| {
            slots
                .get(slot)
                .is_some_and(|s| s.gen == gen && s.queued == Some(at))
        });
        match (self.timers.peek(), self.ready_since) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Diff what transfer `i` waits on, with the resolver's wake socket while it looks up a
    /// name, against what the socket table holds for it.
    fn report_interest(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        let gen = slot.gen;
        let mut want: [Option<(RawFd, u64, bool, bool)>; 3] = [None; 3];
        if let Some(t) = slot.t.as_ref().filter(|t| !t.is_done()) {
            for (w, x) in want.iter_mut().zip(t.interests().iter().flatten()) {
                *w = Some((x.fd.as_raw_fd(), x.id, x.read, x.write));
            }
            if t.resolving() {
                want[2] = Some((
                    self.resolver.wake_socket().as_raw_fd(),
                    WAKE_SOCK_ID,
                    true,
                    false,
                ));
            }
        }
        // As curl's `singlesocket`: the sockets still or newly wanted first, then those let
        // go of (a descriptor reused for a new socket is reported removed by `set` itself).
        for &(fd, id, r, w) in want.iter().flatten() {
            match slot.ev_regs.iter_mut().find(|x| x.0 == fd && x.1 == id) {
                Some(x) if x.2 == r && x.3 == w => continue,
                Some(x) => *x = (fd, id, r, w),
                None => slot.ev_regs.push((fd, id, r, w)),
            }
            self.sockets.set(fd, id, i, gen, r, w);
        }
        let sockets = &mut self.sockets;
        slot.ev_regs.retain(|&(fd, id, _, _)| {
            let keep = want.iter().flatten().any(|w| w.0 == fd && w.1 == id);
            if !keep {
                sockets.unset(fd, id, i, gen);
            }
            keep
        });
    }

    fn run_slot(&mut self, i: usize, now: Instant) -> io::Result<()> {
        let Some(t) = self.slots[i].t.as_mut() else {
            return Ok(());
        };
        if t.is_done() {
            return Ok(());
        }
        // The connections the other transfers hold, only when there are limits to count.
        let limits = (self.max_total > 0 || self.max_host > 0).then(|| ConnLimits {
            max_total: self.max_total,
            max_host: self.max_host,
            in_use: self
                .slots
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .filter_map(|(_, s)| s.t.as_ref()?.conn_dest().map(str::to_string))
                .collect(),
        });
        let Some(t) = self.slots[i].t.as_mut() else {
            return Ok(());
        };
        // Arc clones: no allocation in the transfer loop.
        let share = t.opts.share.clone();
        let lease = share.as_ref().map(|a| a.lend(local!(self)));
        let mut cx = cx!(self, now, limits.as_ref());
        t.drive(&mut cx);
        if let Some(l) = lease {
            l.give_back(local!(self));
        }
        let done = t.is_done();
        let gen = self.slots[i].gen;
        if done {
            self.running -= 1;
            let t = self.slots[i].t.as_mut().expect("transfer");
            let result = t.result.clone().unwrap_or(Ok(()));
            self.msgs.push_back(Message {
                id: TransferId { slot: i, gen },
                result,
            });
            if limits.is_some() {
                self.wake_pending();
            }
        }
        self.apply_interest(i)?;
        if self.socket_events {
            self.report_interest(i);
        }
        // Queue the nearest deadline if it changed.
        let t = self.slots[i].t.as_ref().expect("transfer");
        let nearest = if done { None } else { t.timers.nearest() };
        if nearest != self.slots[i].queued {
            self.slots[i].queued = nearest;
            if let Some(at) = nearest {
                self.timers.schedule(at, i, gen);
            }
        }
        Ok(())
    }

    /// Diff what transfer `i` waits on against what is registered, and apply the changes.
    fn apply_interest(&mut self, i: usize) -> io::Result<()> {
        let slot = &mut self.slots[i];
        let gen = slot.gen;
        let t = slot.t.as_ref().expect("transfer");
        let want = t.interests();
        // Forget registrations no longer wanted: such sockets were closed (epoll dropped them
        // itself), parked in the pool (deleted when parked) or shared for HTTP/2 (deleted
        // when shared, watched through the pool's own descriptor from then on). A shared
        // socket is let go of in the table; the last transfer to let go removes it.
        let shared = &mut self.shared;
        slot.regs.retain(|&(fd, id, _, _, sh)| {
            let keep = want
                .iter()
                .flatten()
                .any(|w| w.fd.as_raw_fd() == fd && w.id == id);
            if !keep && sh {
                shared.unset(fd, id, i, gen);
            }
            keep
        });
        // Removals before additions: a descriptor just closed may be back as a new socket.
        Self::apply_shared(&self.poller, &mut self.shared, &self.pool)?;
        for w in want.iter().flatten() {
            let (fd, id, r, wr) = (w.fd, w.id, w.read, w.write);
            let raw = fd.as_raw_fd();
            if w.shared {
                match slot.regs.iter_mut().find(|x| x.0 == raw && x.1 == id) {
                    Some(reg) if reg.2 == r && reg.3 == wr => continue,
                    Some(reg) => {
                        reg.2 = r;
                        reg.3 = wr;
                    }
                    None => slot.regs.push((raw, id, r, wr, true)),
                }
                self.shared.set(raw, id, i, gen, r, wr);
                continue;
            }
            let ev = Event::new(i, r, wr);
            match slot.regs.iter_mut().find(|x| x.0 == raw && x.1 == id) {
                Some(reg) if reg.2 == r && reg.3 == wr => {}
                Some(reg) => {
                    reg.2 = r;
                    reg.3 = wr;
                    self.poller.modify(fd, ev)?;
                }
                None => {
                    slot.regs.push((raw, id, r, wr, false));
                    match self.poller.add(fd, ev) {
                        Ok(()) => {}
                        // A parked-then-reused socket can still be known to epoll.
                        Err(e) if e.raw_os_error() == Some(17) => self.poller.modify(fd, ev)?,
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        Self::apply_shared(&self.poller, &mut self.shared, &self.pool)
    }

    /// Register shared sockets as the union of what their transfers want. A socket nobody
    /// waits on any more is deleted if its connection is still in the pool; otherwise it
    /// was closed, and epoll forgot it itself.
    fn apply_shared(
        poller: &oxcurl_sys::Poller,
        table: &mut SocketTable,
        pool: &Pool,
    ) -> io::Result<()> {
        while let Some(c) = table.pop() {
            let Some(conn) = pool.shared_by_fd(c.fd) else {
                continue;
            };
            let fd = conn.fd();
            let key = SHARED_KEY | c.fd as usize;
            let ev = match c.what {
                SocketWhat::In => Event::readable(key),
                SocketWhat::Out => Event::writable(key),
                SocketWhat::InOut => Event::all(key),
                SocketWhat::Remove => {
                    let _ = poller.delete(fd);
                    continue;
                }
            };
            match poller.add(fd, ev) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(17) => poller.modify(fd, ev)?,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// How long `poll` may sleep: until the nearest timer.
    pub fn timeout(&mut self) -> Option<Duration> {
        self.take_woken(Instant::now());
        let slots = &self.slots;
        self.timers.prune(|at, slot, gen| {
            slots
                .get(slot)
                .is_some_and(|s| s.gen == gen && s.queued == Some(at))
        });
        if self.slots.iter().any(|s| s.ready) {
            return Some(Duration::ZERO);
        }
        self.timers
            .peek()
            .map(|t| t.saturating_duration_since(Instant::now()))
    }

    /// A handle that ends a `poll_wakeable` from another thread (`curl_multi_wakeup`).
    pub fn waker(&self) -> MultiWaker {
        self.waker.clone()
    }

    /// `poll` that a [`MultiWaker`] ends early (`curl_multi_poll`); a wakeup that came
    /// while nobody waited ends the next call at once. Returns whether it was woken.
    pub fn poll_wakeable(&mut self, max: Duration) -> io::Result<bool> {
        self.poll_wakeable_with(max, &mut [])
            .map(|(woken, _)| woken)
    }

    /// `poll_wakeable` that also ends when one of the application's descriptors `extra`
    /// is ready (`curl_multi_poll`); also returns how many descriptors were ready, the
    /// transfers' and `extra`'s (not the wakeup).
    pub fn poll_wakeable_with(
        &mut self,
        max: Duration,
        extra: &mut [Foreign<'_>],
    ) -> io::Result<(bool, usize)> {
        if self.waker.inner.pending.swap(false, Ordering::SeqCst) {
            // The wakeup's notification is still in the poller: take it now (with whatever
            // else is ready), or the next poll would end at once.
            let n = self.wait(Duration::ZERO, true, extra)?;
            self.waker.inner.pending.store(false, Ordering::SeqCst);
            return Ok((true, n));
        }
        let n = self.wait(max, true, extra)?;
        Ok((self.waker.inner.pending.swap(false, Ordering::SeqCst), n))
    }

    /// Wait for socket activity or the next timer, at most `max` (`curl_multi_wait`).
    pub fn poll(&mut self, max: Duration) -> io::Result<()> {
        self.wait(max, false, &mut []).map(drop)
    }

    /// `poll` that also ends when one of the application's descriptors `extra` is ready
    /// (`curl_multi_wait`); returns how many descriptors were ready, the transfers' and
    /// `extra`'s.
    pub fn poll_with(&mut self, max: Duration, extra: &mut [Foreign<'_>]) -> io::Result<usize> {
        self.wait(max, false, extra)
    }

    fn wait(
        &mut self,
        max: Duration,
        wakeable: bool,
        extra: &mut [Foreign<'_>],
    ) -> io::Result<usize> {
        if !self.resolver_registered {
            self.poller.add(
                self.resolver.wake_socket().as_fd(),
                Event::readable(WAKE_KEY),
            )?;
            self.resolver_registered = true;
        }
        let mut wait = max;
        if let Some(t) = self.timeout() {
            wait = wait.min(t);
        }
        self.events.clear();
        // Round up so a timer is not polled for a fraction of a millisecond early.
        let mut wait = if wait.is_zero() {
            wait
        } else {
            wait + Duration::from_micros(500)
        };
        // A download that emptied its socket after a middling burst: let the next burst
        // gather before waiting for it, so the sender is not the one waking us per record.
        let pause = self.gather.take_pause().min(wait);
        if !pause.is_zero() {
            std::thread::sleep(pause);
            wait -= pause;
        }
        let until = Instant::now() + wait;
        let mut foreign;
        loop {
            foreign = self.poller.wait_with(&mut self.events, Some(wait), extra)?;
            // A wakeup is for `poll_wakeable` only (curl_multi_wait ignores it): keep
            // waiting for the rest of the time.
            if wakeable
                || foreign > 0
                || !self.events.is_empty()
                || !self.waker.inner.pending.load(Ordering::SeqCst)
            {
                break;
            }
            let now = Instant::now();
            if now >= until {
                break;
            }
            wait = until - now;
        }
        let mut resolver = false;
        for ev in self.events.iter() {
            if ev.key == WAKE_KEY {
                resolver = true;
            } else if ev.key & SHARED_KEY != 0 {
                let fd = (ev.key & !SHARED_KEY) as RawFd;
                for (slot, gen) in self.shared.users(fd) {
                    if let Some(s) = self.slots.get_mut(slot).filter(|s| s.gen == gen) {
                        s.ready = true;
                    }
                }
            } else if let Some(s) = self.slots.get_mut(ev.key) {
                s.ready = true;
            }
        }
        if resolver {
            self.resolver.poll_completions();
            for s in self.slots.iter_mut() {
                if s.t.as_ref().is_some_and(|t| t.resolving()) {
                    s.ready = true;
                }
            }
        }
        Ok(self.events.len() + foreign)
    }

    /// The sockets transfers wait on and in which directions (`curl_multi_fdset`): fd,
    /// readable, writable; plus the resolver's wake socket, readable, while a lookup runs.
    pub fn wait_fds(&self) -> Vec<(RawFd, bool, bool)> {
        let mut v: Vec<_> = self
            .slots
            .iter()
            .flat_map(|s| s.regs.iter().map(|r| (r.0, r.2, r.3)))
            .collect();
        if self
            .slots
            .iter()
            .any(|s| s.t.as_ref().is_some_and(|t| t.resolving()))
        {
            v.push((self.resolver.wake_socket().as_raw_fd(), true, false));
        }
        v
    }

    /// Whether `wait_fds` would name any socket.
    pub fn has_wait_fds(&self) -> bool {
        self.slots
            .iter()
            .any(|s| !s.regs.is_empty() || s.t.as_ref().is_some_and(|t| t.resolving()))
    }

    /// Run until every transfer is done, collecting nothing (callers read `info_read`).
    pub fn run_all(&mut self) -> io::Result<()> {
        loop {
            if self.perform()? == 0 {
                return Ok(());
            }
            self.poll(Duration::from_secs(1))?;
        }
    }

    /// Result of a finished transfer, if it is done.
    pub fn result(&self, id: TransferId) -> Option<std::result::Result<(), Error>> {
        self.get(id).and_then(|t| t.result.clone())
    }

    /// The completion message of `id`, taken out of the queue (after `remove`).
    pub(crate) fn result_of_last(&mut self, id: TransferId) -> Result<()> {
        let pos = self.msgs.iter().position(|m| m.id == id);
        match pos.and_then(|p| self.msgs.remove(p)) {
            Some(m) => m.result,
            None => Err(Error::new(
                crate::error::Code::AbortedByCallback,
                "Transfer removed",
            )),
        }
    }
}

/// Coalescing the wakeups of a download whose sender is a little slower than we are.
///
#[cfg(test)]
mod tests {
    use super::*;
    use crate::multi_ev::SocketWhat;
    use crate::options::{Callbacks, Options};
    use oxcurl_testsupport::http::{Reply, ScriptedServer};
    use std::collections::HashMap;
    use std::sync::Mutex;

    struct Keep(Arc<Mutex<Vec<u8>>>);
    impl Callbacks for Keep {
        fn write(&mut self, d: &[u8]) -> usize {
            self.0.lock().expect("lock").extend_from_slice(d);
            d.len()
        }
    }

    /// A read callback pauses sending once; let go, the request goes and the response head
    /// comes in two pieces 300 ms apart. The socket's changed interest must stay
    /// level-triggered: the second piece wakes the transfer (nothing else would, no progress
    /// timer runs).
    #[test]
    fn a_socket_whose_interest_changed_still_wakes_its_transfer() {
        struct PauseOnce(u8, Arc<Mutex<Vec<u8>>>);
        impl Callbacks for PauseOnce {
            fn read(&mut self, buf: &mut [u8]) -> crate::options::ReadResult {
                self.0 += 1;
                match self.0 {
                    1 => crate::options::ReadResult::Pause,
                    2 => {
                        buf[..3].copy_from_slice(b"a=b");
                        crate::options::ReadResult::Data(3)
                    }
                    _ => crate::options::ReadResult::Data(0),
                }
            }
            fn write(&mut self, d: &[u8]) -> usize {
                self.1.lock().expect("lock").extend_from_slice(d);
                d.len()
            }
        }
        let s = ScriptedServer::start();
        s.set_handler(|_| {
            Reply::raw("HTTP/1.1 200 OK\r\n")
                .sleep(Duration::from_millis(300))
                .write("Content-Length: 3\r\n\r\nyes")
        });
        let pause = crate::pause::Pause::default();
        let opts = Options {
            url: Some(s.url()),
            body: crate::options::Body::PostRead(Some(3)),
            pause: Some(pause.clone()),
            ..Options::default()
        };
        let body = Arc::new(Mutex::new(Vec::new()));
        let mut m = Multi::new().expect("multi");
        m.add(Easy::new(opts, Box::new(PauseOnce(0, body.clone()))));
        let give_up = Instant::now() + Duration::from_secs(5);
        while m.perform().expect("perform") > 0 {
            assert!(Instant::now() < give_up, "the transfer was not woken");
            if pause.get() != 0 {
                pause.set(0);
            }
            m.poll(Duration::from_secs(1)).expect("poll");
        }
        assert_eq!(&*body.lock().expect("lock"), b"yes");
        assert_eq!(s.requests()[0].body, b"a=b");
    }

    /// An outside loop that knows only the reported sockets and the deadline: it pokes every
    /// watched socket (readiness is the application's business; a spurious call is allowed)
    /// and runs timers when due. A socket not reported would leave its transfer stuck.
    #[test]
    fn socket_action_runs_parallel_transfers_from_reported_sockets_only() {
        let s = ScriptedServer::start();
        s.set_handler(|req| Reply::status(200, &[], format!("body of {}\n", req.path())));
        let base = s.url();
        let base = base.trim_end_matches('/');
        let mut m = Multi::new().expect("multi");
        m.set_socket_events(true);
        let mut bodies = Vec::new();
        for i in 0..20 {
            let opts = Options {
                url: Some(format!("{base}/{i}")),
                ..Options::default()
            };
            let b = Arc::new(Mutex::new(Vec::new()));
            m.add(Easy::new(opts, Box::new(Keep(b.clone()))));
            bodies.push(b);
        }
        let mut watched: HashMap<RawFd, (SocketWhat, usize)> = HashMap::new();
        let give_up = Instant::now() + Duration::from_secs(30);
        let mut running = m.running();
        let mut seen = 0;
        let mut fds: Vec<RawFd> = Vec::new();
        while running > 0 {
            assert!(Instant::now() < give_up, "stuck with {running} running");
            while let Some((c, owner)) = m.socket_change() {
                seen += 1;
                assert!(owner.is_some() || c.what == SocketWhat::Remove);
                match c.what {
                    SocketWhat::Remove => {
                        let (_, user) = watched.remove(&c.fd).expect("removed a watched socket");
                        assert_eq!(user, c.user, "assigned value comes back");
                    }
                    what => {
                        let prev = watched.get(&c.fd).map(|w| w.0);
                        assert_ne!(prev, Some(what), "changes only");
                        if prev.is_none() {
                            assert!(m.assign(c.fd, 1000 + c.fd as usize));
                        }
                        watched.insert(c.fd, (what, 1000 + c.fd as usize));
                    }
                }
            }
            let due = m
                .next_deadline()
                .is_some_and(|d| d <= Instant::now() + Duration::from_millis(1));
            if due {
                running = m.socket_action(None).expect("timeout action");
                continue;
            }
            fds.clear();
            fds.extend(watched.keys());
            for &fd in &fds {
                running = m.socket_action(Some(fd)).expect("socket action");
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        while let Some((c, _)) = m.socket_change() {
            seen += 1;
            assert_eq!(c.what, SocketWhat::Remove);
            watched.remove(&c.fd);
        }
        assert!(watched.is_empty(), "every socket removed: {watched:?}");
        // Transfers that start after another one finished reuse its connection, so how many
        // sockets there were depends on timing; each of them was reported and removed.
        let conns = s.connections();
        assert!(conns >= 1);
        assert!(
            seen >= 2 * conns,
            "each of the {conns} connections' sockets reported and removed: {seen}"
        );
        let mut done = 0;
        while let Some(msg) = m.info_read() {
            assert!(msg.result.is_ok(), "{:?}", msg.result);
            done += 1;
        }
        assert_eq!(done, 20);
        for (i, b) in bodies.iter().enumerate() {
            assert_eq!(
                String::from_utf8_lossy(&b.lock().expect("lock")),
                format!("body of /{i}\n")
            );
        }
        assert_eq!(m.next_deadline(), None, "no timer left");
    }

    #[test]
    fn deadline_of_added_transfers_is_the_first_add() {
        let mut m = Multi::new().expect("multi");
        assert_eq!(m.next_deadline(), None);
        let opts = Options {
            url: Some("http://127.0.0.1:9/".into()),
            ..Options::default()
        };
        m.add(Easy::new(
            opts.clone(),
            Box::new(crate::options::NullCallbacks),
        ));
        let first = m.next_deadline().expect("runnable");
        std::thread::sleep(Duration::from_millis(2));
        m.add(Easy::new(opts, Box::new(crate::options::NullCallbacks)));
        assert_eq!(m.next_deadline(), Some(first), "unchanged: told once");
    }

    #[test]
    fn a_wakeup_ends_the_current_or_next_wakeable_poll_only() {
        let mut m = Multi::new().expect("multi");
        let w = m.waker();
        w.wake().expect("wake");
        // A plain poll may be woken too, but leaves the wakeup for poll_wakeable.
        m.poll(Duration::from_millis(1)).expect("poll");
        let t0 = Instant::now();
        assert!(m.poll_wakeable(Duration::from_secs(10)).expect("poll"));
        assert!(t0.elapsed() < Duration::from_secs(5));
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            w.wake().expect("wake");
        });
        let t0 = Instant::now();
        assert!(m.poll_wakeable(Duration::from_secs(10)).expect("poll"));
        assert!(t0.elapsed() < Duration::from_secs(5));
        t.join().expect("join");
        assert!(!m.poll_wakeable(Duration::from_millis(10)).expect("poll"));
    }
}
