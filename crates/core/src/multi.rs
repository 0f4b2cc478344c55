//! The multi handle as executor: a slab of transfers, the reactor (epoll through `polling`,
//! level mode, interest diffed after every pass), the timer queue of nearest deadlines, the
//! connection pool, receive buffers, the resolver and the message queue.

use std::io;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::time::{Duration, Instant};

use oxcurl_sys::{Event, Events, Poller};

use crate::conn::{BufPool, Pool};
use crate::dns::Resolver;
use crate::easy::Easy;
use crate::error::{Error, Result};
use crate::info::Info;
use crate::timer::TimerQueue;
use crate::transfer::{Cx, Transfer};

/// Identifies a transfer in its multi.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransferId {
    slot: usize,
    gen: u64,
}

/// The cookie engine shared by the multi's transfers (as the tool shares it through a share
/// handle): the jar, the files read into it, the files to write it to.
#[derive(Debug, Default)]
pub(crate) struct CookieStore {
    pub jar: Option<crate::cookie::CookieJar>,
    pub loaded: Vec<String>,
    pub save_to: Vec<String>,
}

/// A finished transfer (`curl_multi_info_read`'s `CURLMSG_DONE`).
#[derive(Debug)]
pub struct Message {
    pub id: TransferId,
    pub result: Result<()>,
}

/// Event key of the resolver's wake socket (polling reserves usize::MAX).
const WAKE_KEY: usize = usize::MAX - 1;

struct Slot {
    gen: u64,
    t: Option<Transfer>,
    /// Runnable in the next pass.
    ready: bool,
    /// The nearest deadline last queued for it.
    queued: Option<Instant>,
    /// Sockets registered for it: fd, socket identity, readable, writable.
    regs: Vec<(RawFd, u64, bool, bool)>,
}

pub struct Multi {
    poller: Poller,
    events: Events,
    slots: Vec<Slot>,
    free: Vec<usize>,
    timers: TimerQueue,
    pool: Pool,
    bufs: BufPool,
    tls: crate::tls::TlsCache,
    hsts: crate::hsts::Hsts,
    cookies: CookieStore,
    resolver: Resolver,
    resolver_registered: bool,
    msgs: std::collections::VecDeque<Message>,
    next_conn_id: i64,
    next_xfer_id: i64,
    running: usize,
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
        Ok(Multi {
            poller: Poller::new()?,
            events: Events::new(),
            slots: Vec::new(),
            free: Vec::new(),
            timers: TimerQueue::default(),
            pool: Pool::default(),
            bufs: BufPool::default(),
            tls: crate::tls::TlsCache::default(),
            hsts: crate::hsts::Hsts::default(),
            cookies: CookieStore::default(),
            resolver: Resolver::new()?,
            resolver_registered: false,
            msgs: Default::default(),
            next_conn_id: 0,
            next_xfer_id: 0,
            running: 0,
        })
    }

    /// Most idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`).
    pub fn set_max_connects(&mut self, n: usize) {
        self.pool.max = n;
    }

    /// Start a transfer (`curl_multi_add_handle`).
    pub fn add(&mut self, easy: Easy) -> TransferId {
        let now = Instant::now();
        let (opts, handler) = easy.into_parts();
        let mut t = Transfer::new(opts, handler, now);
        t.info.xfer_id = self.next_xfer_id;
        self.next_xfer_id += 1;
        let slot = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    gen: 0,
                    t: None,
                    ready: false,
                    queued: None,
                    regs: Vec::with_capacity(2),
                });
                self.slots.len() - 1
            }
        };
        let s = &mut self.slots[slot];
        s.gen += 1;
        s.t = Some(t);
        s.ready = true;
        s.queued = None;
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

    /// Statistics of a transfer, running or finished and not yet removed.
    pub fn info(&self, id: TransferId) -> Option<&Info> {
        self.get(id).map(|t| &t.info)
    }

    /// Take a transfer out (`curl_multi_remove_handle`), giving its settings and handler back.
    pub fn remove(&mut self, id: TransferId) -> Option<(Easy, Info)> {
        let s = self.slots.get_mut(id.slot)?;
        if s.gen != id.gen {
            return None;
        }
        let mut t = s.t.take()?;
        s.ready = false;
        s.queued = None;
        let regs = std::mem::take(&mut s.regs);
        drop(regs);
        if !t.is_done() {
            self.running -= 1;
            let mut cx = Cx {
                now: Instant::now(),
                poller: &self.poller,
                resolver: &mut self.resolver,
                pool: &mut self.pool,
                bufs: &mut self.bufs,
                next_conn_id: &mut self.next_conn_id,
                tls: &mut self.tls,
                hsts: &mut self.hsts,
                cookies: &mut self.cookies,
            };
            t.abort(&mut cx);
        }
        self.free.push(id.slot);
        let info = std::mem::take(&mut t.info);
        Some((Easy::from_parts(t.opts, t.handler), info))
    }

    /// Write the HSTS cache back to the files it was loaded from (curl does this when the
    /// handle is cleaned up).
    pub fn save_hsts(&self) -> io::Result<()> {
        self.hsts.save_all()
    }

    /// Write the cookie jar to the `CURLOPT_COOKIEJAR` files the transfers named (`-` is
    /// stdout), as curl does when the handle is cleaned up.
    pub fn save_cookies(&mut self) -> io::Result<()> {
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
        self.resolver.poll_completions();
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
        for i in 0..self.slots.len() {
            if !self.slots[i].ready {
                continue;
            }
            self.slots[i].ready = false;
            self.run_slot(i, now)?;
        }
        if self.running == 0 {
            self.bufs.clear();
        }
        Ok(self.running)
    }

    fn run_slot(&mut self, i: usize, now: Instant) -> io::Result<()> {
        let Some(t) = self.slots[i].t.as_mut() else {
            return Ok(());
        };
        if t.is_done() {
            return Ok(());
        }
        let mut cx = Cx {
            now,
            poller: &self.poller,
            resolver: &mut self.resolver,
            pool: &mut self.pool,
            bufs: &mut self.bufs,
            next_conn_id: &mut self.next_conn_id,
            tls: &mut self.tls,
            hsts: &mut self.hsts,
            cookies: &mut self.cookies,
        };
        t.drive(&mut cx);
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
        }
        self.apply_interest(i)?;
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
        let t = slot.t.as_ref().expect("transfer");
        let want = t.interests();
        // Forget registrations no longer wanted: such sockets were closed (epoll dropped them
        // itself) or parked in the pool (deleted when parked).
        slot.regs.retain(|(fd, id, _, _)| {
            want.iter()
                .flatten()
                .any(|w| w.fd.as_raw_fd() == *fd && w.id == *id)
        });
        for w in want.iter().flatten() {
            let (fd, id, r, wr) = (w.fd, w.id, w.read, w.write);
            let raw = fd.as_raw_fd();
            let ev = Event::new(i, r, wr);
            match slot.regs.iter_mut().find(|x| x.0 == raw && x.1 == id) {
                Some(reg) if reg.2 == r && reg.3 == wr => {}
                Some(reg) => {
                    reg.2 = r;
                    reg.3 = wr;
                    self.poller.modify(fd, ev)?;
                }
                None => {
                    slot.regs.push((raw, id, r, wr));
                    match oxcurl_sys::register(&self.poller, fd, ev) {
                        Ok(()) => {}
                        // A parked-then-reused socket can still be known to epoll.
                        Err(e) if e.raw_os_error() == Some(17) => self.poller.modify(fd, ev)?,
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        Ok(())
    }

    /// How long `poll` may sleep: until the nearest timer.
    pub fn timeout(&mut self) -> Option<Duration> {
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

    /// Wait for socket activity or the next timer, at most `max` (`curl_multi_poll`).
    pub fn poll(&mut self, max: Duration) -> io::Result<()> {
        if !self.resolver_registered {
            oxcurl_sys::register(
                &self.poller,
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
        let wait = if wait.is_zero() {
            wait
        } else {
            wait + Duration::from_micros(500)
        };
        self.poller.wait(&mut self.events, Some(wait))?;
        let mut resolver = false;
        for ev in self.events.iter() {
            if ev.key == WAKE_KEY {
                resolver = true;
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
        Ok(())
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
