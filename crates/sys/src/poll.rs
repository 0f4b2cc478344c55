#![forbid(unsafe_code)]

//! The engine's reactor: level-triggered epoll, woken from other threads through an eventfd.
//!
//! One `epoll_wait` per wait and nothing else. The `polling` crate this replaces re-armed
//! its notifier and its timerfd around every wait (a `timerfd_settime`, two `epoll_ctl`s and
//! a `read` besides the `epoll_wait`): five system calls where one does, on every turn of a
//! download's loop (docs/internals/PERF.md). Timeouts are epoll's milliseconds, rounded up,
//! as curl's own `poll` has them.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::Duration;

use rustix::buffer::spare_capacity;
use rustix::event::epoll::{self, EventData, EventFlags};
use rustix::event::{eventfd, EventfdFlags, PollFd, Timespec};

pub use rustix::event::PollFlags;

/// The key of the notifier; never reported to callers.
const NOTIFY_KEY: u64 = u64::MAX;

/// How many events one wait can report; more stay ready for the next (level-triggered).
const EVENTS: usize = 256;

/// Interest in, or readiness of, one descriptor, under the caller's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub key: usize,
    pub readable: bool,
    pub writable: bool,
}

impl Event {
    pub fn new(key: usize, readable: bool, writable: bool) -> Event {
        Event {
            key,
            readable,
            writable,
        }
    }

    pub fn readable(key: usize) -> Event {
        Event::new(key, true, false)
    }

    pub fn writable(key: usize) -> Event {
        Event::new(key, false, true)
    }

    pub fn all(key: usize) -> Event {
        Event::new(key, true, true)
    }

    pub fn none(key: usize) -> Event {
        Event::new(key, false, false)
    }

    fn flags(self) -> EventFlags {
        let mut f = EventFlags::empty();
        if self.readable {
            f |= EventFlags::IN | EventFlags::PRI;
        }
        if self.writable {
            f |= EventFlags::OUT;
        }
        f
    }
}

/// The events one wait reported.
pub struct Events {
    list: Vec<epoll::Event>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Default for Events {
    fn default() -> Self {
        Self::new()
    }
}

impl Events {
    pub fn new() -> Events {
        Events {
            list: Vec::with_capacity(EVENTS),
        }
    }

    pub fn clear(&mut self) {
        self.list.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Readable: input, a hang-up or an error (reading tells which); writable: room, a
    /// hang-up or an error.
    pub fn iter(&self) -> impl Iterator<Item = Event> + '_ {
        self.list.iter().map(|e| {
            let f = e.flags;
            Event {
                key: e.data.u64() as usize,
                readable: f.intersects(
                    EventFlags::IN | EventFlags::PRI | EventFlags::HUP | EventFlags::ERR,
                ),
                writable: f.intersects(EventFlags::OUT | EventFlags::HUP | EventFlags::ERR),
            }
        })
    }
}

/// A descriptor of the caller's, polled once along with the poller's own (the extra
/// descriptors of `curl_multi_wait`). `fd: None` is never ready, as poll(2) has a negative fd.
#[derive(Debug)]
pub struct Foreign<'fd> {
    pub fd: Option<BorrowedFd<'fd>>,
    pub events: PollFlags,
    /// What the wait found; left alone when nothing at all was ready, as curl leaves it.
    pub revents: PollFlags,
}

/// An epoll instance and the eventfd that [`Poller::notify`] writes to.
#[derive(Debug)]
pub struct Poller {
    epoll: OwnedFd,
    notifier: OwnedFd,
}

impl Poller {
    pub fn new() -> io::Result<Poller> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)?;
        let notifier = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?;
        epoll::add(
            &epoll,
            &notifier,
            EventData::new_u64(NOTIFY_KEY),
            EventFlags::IN,
        )?;
        Ok(Poller { epoll, notifier })
    }

    /// Watch `fd` for `interest`, level-triggered: a descriptor stays reported while it is
    /// ready, so a reader may stop before `EAGAIN`. The kernel forgets a descriptor when it
    /// is closed, so a socket dropped without [`Poller::delete`] leaves nothing behind.
    pub fn add(&self, fd: impl AsFd, interest: Event) -> io::Result<()> {
        check_key(interest.key)?;
        epoll::add(
            &self.epoll,
            fd,
            EventData::new_u64(interest.key as u64),
            interest.flags(),
        )?;
        Ok(())
    }

    pub fn modify(&self, fd: impl AsFd, interest: Event) -> io::Result<()> {
        check_key(interest.key)?;
        epoll::modify(
            &self.epoll,
            fd,
            EventData::new_u64(interest.key as u64),
            interest.flags(),
        )?;
        Ok(())
    }

    pub fn delete(&self, fd: impl AsFd) -> io::Result<()> {
        epoll::delete(&self.epoll, fd)?;
        Ok(())
    }

    /// Wait until a descriptor is ready, `notify` is called, or `timeout` passes (None: no
    /// limit). The events replace what `events` held; a notification is taken and not
    /// reported, so a wait it ended may return with no events. A signal ends a wait early
    /// the same way.
    pub fn wait(&self, events: &mut Events, timeout: Option<Duration>) -> io::Result<()> {
        events.list.clear();
        let ts = timeout.map(timespec);
        match epoll::wait(&self.epoll, spare_capacity(&mut events.list), ts.as_ref()) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(()),
            Err(e) => return Err(e.into()),
        }
        if let Some(i) = events.list.iter().position(|e| e.data.u64() == NOTIFY_KEY) {
            events.list.swap_remove(i);
            let mut buf = [0u8; 8];
            // Non-blocking: a second waiter may have taken it already.
            let _ = rustix::io::read(&self.notifier, &mut buf);
        }
        Ok(())
    }

    /// `wait` that also ends when one of `extra` is ready: one poll(2) on the epoll
    /// descriptor and the extra ones, then the epoll's events, if it had any, without waiting.
    /// Returns how many of `extra` were ready.
    pub fn wait_with(
        &self,
        events: &mut Events,
        timeout: Option<Duration>,
        extra: &mut [Foreign<'_>],
    ) -> io::Result<usize> {
        if extra.is_empty() {
            self.wait(events, timeout)?;
            return Ok(0);
        }
        events.list.clear();
        let mut fds = Vec::with_capacity(extra.len() + 1);
        fds.push(PollFd::new(&self.epoll, PollFlags::IN));
        fds.extend(
            extra
                .iter()
                .filter_map(|e| e.fd.map(|fd| PollFd::from_borrowed_fd(fd, e.events))),
        );
        let ts = timeout.map(timespec);
        match rustix::event::poll(&mut fds, ts.as_ref()) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(0),
            Err(e) => return Err(e.into()),
        }
        let mut ready = 0;
        if fds.iter().any(|f| !f.revents().is_empty()) {
            let mut found = fds[1..].iter();
            for e in extra.iter_mut() {
                e.revents = match e.fd {
                    Some(_) => found.next().map_or(PollFlags::empty(), PollFd::revents),
                    None => PollFlags::empty(),
                };
                ready += usize::from(!e.revents.is_empty());
            }
        }
        if !fds[0].revents().is_empty() {
            self.wait(events, Some(Duration::ZERO))?;
        }
        Ok(ready)
    }

    /// End a `wait` in progress, or the next one, from any thread.
    pub fn notify(&self) -> io::Result<()> {
        match rustix::io::write(&self.notifier, &1u64.to_ne_bytes()) {
            // The counter is full: a wakeup is pending anyway.
            Ok(_) | Err(rustix::io::Errno::AGAIN) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

impl AsFd for Poller {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.epoll.as_fd()
    }
}

fn timespec(d: Duration) -> Timespec {
    Timespec {
        tv_sec: d.as_secs().min(i64::MAX as u64) as i64,
        tv_nsec: d.subsec_nanos().into(),
    }
}

fn check_key(key: usize) -> io::Result<()> {
    if key as u64 == NOTIFY_KEY {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the poller's own key",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    use std::sync::Arc;
    use std::time::Instant;

    #[test]
    fn level_triggered_readiness_stays_until_read() {
        let p = Poller::new().unwrap();
        let (mut a, b) = UnixStream::pair().unwrap();
        p.add(b.as_fd(), Event::readable(7)).unwrap();
        let mut ev = Events::new();
        p.wait(&mut ev, Some(Duration::ZERO)).unwrap();
        assert!(ev.is_empty());
        a.write_all(b"x").unwrap();
        for _ in 0..2 {
            p.wait(&mut ev, Some(Duration::from_secs(5))).unwrap();
            let got: Vec<_> = ev.iter().collect();
            assert_eq!(got, vec![Event::readable(7)]);
        }
        p.modify(b.as_fd(), Event::none(7)).unwrap();
        p.wait(&mut ev, Some(Duration::ZERO)).unwrap();
        assert!(ev.is_empty());
        p.modify(b.as_fd(), Event::all(7)).unwrap();
        p.wait(&mut ev, Some(Duration::ZERO)).unwrap();
        assert_eq!(ev.iter().collect::<Vec<_>>(), vec![Event::all(7)]);
        p.delete(b.as_fd()).unwrap();
        p.wait(&mut ev, Some(Duration::ZERO)).unwrap();
        assert!(ev.is_empty());
    }

    #[test]
    fn a_hang_up_is_readable() {
        let p = Poller::new().unwrap();
        let (a, b) = UnixStream::pair().unwrap();
        p.add(b.as_fd(), Event::readable(1)).unwrap();
        drop(a);
        let mut ev = Events::new();
        p.wait(&mut ev, Some(Duration::from_secs(5))).unwrap();
        assert!(ev.iter().any(|e| e.key == 1 && e.readable));
    }

    #[test]
    fn notify_ends_a_wait_without_events_and_only_once() {
        let p = Arc::new(Poller::new().unwrap());
        let q = p.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            q.notify().unwrap();
        });
        let start = Instant::now();
        let mut ev = Events::new();
        p.wait(&mut ev, Some(Duration::from_secs(10))).unwrap();
        assert!(ev.is_empty());
        assert!(start.elapsed() < Duration::from_secs(5));
        t.join().unwrap();
        // Taken: the next wait times out.
        let start = Instant::now();
        p.wait(&mut ev, Some(Duration::from_millis(30))).unwrap();
        assert!(ev.is_empty());
        assert!(start.elapsed() >= Duration::from_millis(30));
    }

    #[test]
    fn a_timeout_is_not_cut_short() {
        let p = Poller::new().unwrap();
        let mut ev = Events::new();
        let start = Instant::now();
        p.wait(&mut ev, Some(Duration::from_micros(1500))).unwrap();
        assert!(start.elapsed() >= Duration::from_micros(1500));
    }

    #[test]
    fn wait_with_reports_foreign_descriptors_and_the_pollers_own() {
        let p = Poller::new().unwrap();
        let (mut a, b) = UnixStream::pair().unwrap();
        let (mut c, d) = UnixStream::pair().unwrap();
        p.add(b.as_fd(), Event::readable(3)).unwrap();
        let mut ev = Events::new();
        let mut extra = [
            Foreign {
                fd: Some(d.as_fd()),
                events: PollFlags::IN,
                revents: PollFlags::ERR,
            },
            Foreign {
                fd: None,
                events: PollFlags::IN,
                revents: PollFlags::empty(),
            },
        ];
        // Nothing ready: the revents are left as they were.
        let n = p
            .wait_with(&mut ev, Some(Duration::ZERO), &mut extra)
            .unwrap();
        assert_eq!((n, ev.is_empty()), (0, true));
        assert_eq!(extra[0].revents, PollFlags::ERR);
        c.write_all(b"x").unwrap();
        let n = p
            .wait_with(&mut ev, Some(Duration::from_secs(5)), &mut extra)
            .unwrap();
        assert_eq!((n, ev.is_empty()), (1, true));
        assert_eq!(extra[0].revents, PollFlags::IN);
        assert_eq!(extra[1].revents, PollFlags::empty());
        a.write_all(b"y").unwrap();
        let n = p
            .wait_with(&mut ev, Some(Duration::from_secs(5)), &mut extra)
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(ev.iter().collect::<Vec<_>>(), vec![Event::readable(3)]);
    }

    #[test]
    fn the_notifier_key_is_refused() {
        let p = Poller::new().unwrap();
        let (_a, b) = UnixStream::pair().unwrap();
        assert!(p.add(b.as_fd(), Event::readable(usize::MAX)).is_err());
    }
}
