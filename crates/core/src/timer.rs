//! Transfer timers, curl's way: each transfer has one fixed slot per purpose (curl's
//! `EXPIRE_*` ids), and the multi's queue holds only each transfer's nearest deadline.
//! Re-setting a timer writes a slot; the queue grows only to its high-water mark, so steady
//! state allocates nothing. Does no I/O.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// What a timer is for (curl's `expire_id`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerId {
    /// The whole-transfer timeout (`-m`).
    Timeout = 0,
    /// Connect phase timeout (`--connect-timeout`).
    ConnectTimeout,
    /// Start the next address family (Happy Eyeballs).
    HappyEyeballs,
    /// Stop waiting for `100 Continue` and send the body.
    Expect100,
    /// Low-speed check interval.
    SpeedCheck,
    /// Progress meter tick.
    Progress,
    /// Back under the speed limits (`EXPIRE_TOOFAST`).
    RateLimit,
    /// A protocol's own deadline (a text protocol's server response timeout).
    Protocol,
}
const SLOTS: usize = 8;

/// A transfer's timer slots.
#[derive(Clone, Debug, Default)]
pub struct Timers {
    slots: [Option<Instant>; SLOTS],
}

impl Timers {
    pub fn set(&mut self, id: TimerId, at: Instant) {
        self.slots[id as usize] = Some(at);
    }
    pub fn clear(&mut self, id: TimerId) {
        self.slots[id as usize] = None;
    }
    pub fn get(&self, id: TimerId) -> Option<Instant> {
        self.slots[id as usize]
    }
    pub fn clear_all(&mut self) {
        self.slots = [None; SLOTS];
    }
    /// Has timer `id` expired at `now`?
    pub fn expired(&self, id: TimerId, now: Instant) -> bool {
        self.get(id).is_some_and(|t| t <= now)
    }
    /// The earliest set deadline.
    pub fn nearest(&self) -> Option<Instant> {
        self.slots.iter().flatten().min().copied()
    }
}

/// The multi's queue of nearest deadlines, one live entry per transfer (stale entries are
/// skipped on pop: lazy invalidation).
#[derive(Debug, Default)]
pub struct TimerQueue {
    heap: BinaryHeap<Reverse<(Instant, usize, u64)>>,
}

impl TimerQueue {
    /// Record that transfer `slot` (generation `gen`) now has nearest deadline `at`.
    pub fn schedule(&mut self, at: Instant, slot: usize, gen: u64) {
        self.heap.push(Reverse((at, slot, gen)));
    }
    /// The earliest queued deadline (possibly stale; callers re-check).
    pub fn peek(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }
    /// Pop entries due at `now`; `is_live` says whether an entry still matches its transfer.
    pub fn pop_due(&mut self, now: Instant, mut due: impl FnMut(usize, u64)) {
        while let Some(Reverse((t, slot, gen))) = self.heap.peek().copied() {
            if t > now {
                break;
            }
            self.heap.pop();
            due(slot, gen);
        }
    }
    /// Drop stale entries at the top so `peek` is meaningful.
    pub fn prune(&mut self, mut is_live: impl FnMut(Instant, usize, u64) -> bool) {
        while let Some(Reverse((t, slot, gen))) = self.heap.peek().copied() {
            if is_live(t, slot, gen) {
                break;
            }
            self.heap.pop();
        }
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn nearest_is_min_of_slots() {
        let t0 = Instant::now();
        let mut t = Timers::default();
        assert_eq!(t.nearest(), None);
        t.set(TimerId::Timeout, t0 + Duration::from_secs(5));
        t.set(TimerId::HappyEyeballs, t0 + Duration::from_millis(200));
        assert_eq!(t.nearest(), Some(t0 + Duration::from_millis(200)));
        t.clear(TimerId::HappyEyeballs);
        assert_eq!(t.nearest(), Some(t0 + Duration::from_secs(5)));
        assert!(!t.expired(TimerId::Timeout, t0));
        assert!(t.expired(TimerId::Timeout, t0 + Duration::from_secs(5)));
    }

    #[test]
    fn queue_pops_due_in_order_and_prunes_stale() {
        let t0 = Instant::now();
        let mut q = TimerQueue::default();
        q.schedule(t0 + Duration::from_millis(30), 1, 0);
        q.schedule(t0 + Duration::from_millis(10), 2, 0);
        q.schedule(t0 + Duration::from_millis(20), 3, 0);
        let mut got = Vec::new();
        q.pop_due(t0 + Duration::from_millis(20), |s, _| got.push(s));
        assert_eq!(got, vec![2, 3]);
        q.prune(|_, s, _| s != 1);
        assert!(q.is_empty());
    }
}
