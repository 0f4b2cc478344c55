//! Socket events for an application-owned event loop (curl's `multi_ev.c`): the interests
//! of all transfers aggregated per socket, and the changes to report through
//! `CURLMOPT_SOCKETFUNCTION`. A socket several transfers wait on is reported with the union
//! of their directions; `Remove` is reported when the last of them lets go. Each socket may
//! carry one value of the application's (`curl_multi_assign`).
//!
//! Pure bookkeeping: does no I/O and never calls back; the multi drains the change queue
//! when no borrow is held. Entries are indexed by descriptor and reused, and the queue keeps
//! its capacity, so steady state allocates nothing.

use std::collections::VecDeque;
use std::os::fd::RawFd;

/// What the application is asked to watch a socket for (curl's `CURL_POLL_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocketWhat {
    In,
    Out,
    InOut,
    Remove,
}

impl SocketWhat {
    fn of(read: bool, write: bool) -> Option<SocketWhat> {
        match (read, write) {
            (true, true) => Some(SocketWhat::InOut),
            (true, false) => Some(SocketWhat::In),
            (false, true) => Some(SocketWhat::Out),
            (false, false) => None,
        }
    }
}

/// One change to report: socket `fd` is now to be watched for `what`. `owner` is the slot
/// and generation of the transfer whose change caused it; `user` the value assigned to the
/// socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocketChange {
    pub fd: RawFd,
    /// The socket's identity (the descriptor number may since belong to another socket).
    pub id: u64,
    pub what: SocketWhat,
    pub owner: (usize, u64),
    pub user: usize,
}

#[derive(Debug, Default)]
struct Entry {
    /// Socket identity (a descriptor number can be reused for another socket); `None` when
    /// the descriptor is not in use.
    id: Option<u64>,
    /// The transfers waiting on it: slot, generation, readable, writable.
    users: Vec<(usize, u64, bool, bool)>,
    /// What was last reported.
    reported: Option<SocketWhat>,
    user: usize,
}

/// The per-socket aggregate and the queue of changes not yet reported.
#[derive(Debug, Default)]
pub struct SocketTable {
    by_fd: Vec<Entry>,
    changes: VecDeque<SocketChange>,
}

impl SocketTable {
    fn entry(&mut self, fd: RawFd) -> Option<&mut Entry> {
        self.by_fd.get_mut(usize::try_from(fd).ok()?)
    }

    /// Transfer `slot` (generation `gen`) now waits on socket (`fd`, `id`) for these
    /// directions (at least one).
    pub fn set(&mut self, fd: RawFd, id: u64, slot: usize, gen: u64, read: bool, write: bool) {
        let Ok(i) = usize::try_from(fd) else {
            return;
        };
        if i >= self.by_fd.len() {
            self.by_fd.resize_with(i + 1, Entry::default);
        }
        let e = &mut self.by_fd[i];
        if e.id.is_some_and(|old| old != id) {
            // The descriptor was closed and reused without every user letting go of the old
            // socket: that socket is gone, so say so before reporting the new one.
            e.users.clear();
            Self::settle(e, fd, (slot, gen), &mut self.changes);
        }
        e.id = Some(id);
        match e.users.iter_mut().find(|u| u.0 == slot) {
            Some(u) => *u = (slot, gen, read, write),
            None => e.users.push((slot, gen, read, write)),
        }
        Self::settle(e, fd, (slot, gen), &mut self.changes);
    }

    /// Transfer `slot` no longer waits on socket (`fd`, `id`).
    pub fn unset(&mut self, fd: RawFd, id: u64, slot: usize, gen: u64) {
        let Some(e) = self.entry(fd) else {
            return;
        };
        if e.id != Some(id) {
            return;
        }
        let Some(pos) = e.users.iter().position(|u| u.0 == slot) else {
            return;
        };
        e.users.swap_remove(pos);
        let e = &mut self.by_fd[fd as usize];
        Self::settle(e, fd, (slot, gen), &mut self.changes);
    }

    /// Queue a change if the union of the users' directions differs from what was reported;
    /// free the entry when nobody waits on it any more.
    fn settle(e: &mut Entry, fd: RawFd, owner: (usize, u64), q: &mut VecDeque<SocketChange>) {
        let Some(id) = e.id else {
            return;
        };
        let (r, w) = e
            .users
            .iter()
            .fold((false, false), |(r, w), u| (r || u.2, w || u.3));
        let now = SocketWhat::of(r, w);
        if now == e.reported {
            return;
        }
        match now {
            Some(what) => q.push_back(SocketChange {
                fd,
                id,
                what,
                owner,
                user: e.user,
            }),
            None => {
                q.push_back(SocketChange {
                    fd,
                    id,
                    what: SocketWhat::Remove,
                    owner,
                    user: e.user,
                });
                e.id = None;
                e.user = 0;
            }
        }
        e.reported = now;
    }

    /// Associate the application's value with a socket in use (`curl_multi_assign`);
    /// false if no transfer uses `fd`.
    pub fn assign(&mut self, fd: RawFd, user: usize) -> bool {
        match self.entry(fd) {
            Some(e) if e.id.is_some() => {
                e.user = user;
                true
            }
            _ => false,
        }
    }

    /// The transfers (slot, generation) waiting on `fd`.
    pub fn users(&self, fd: RawFd) -> impl Iterator<Item = (usize, u64)> + '_ {
        usize::try_from(fd)
            .ok()
            .and_then(|i| self.by_fd.get(i))
            .into_iter()
            .flat_map(|e| e.users.iter().map(|u| (u.0, u.1)))
    }

    /// The next change to report. The value assigned to a socket still in use is read now,
    /// so an assignment made while earlier changes were reported is passed on.
    pub fn pop(&mut self) -> Option<SocketChange> {
        let mut c = self.changes.pop_front()?;
        if c.what != SocketWhat::Remove {
            if let Some(e) = self.entry(c.fd).filter(|e| e.id == Some(c.id)) {
                c.user = e.user;
            }
        }
        Some(c)
    }

    /// Forget everything, reporting nothing (the application stopped listening).
    pub fn clear(&mut self) {
        for e in &mut self.by_fd {
            e.id = None;
            e.users.clear();
            e.reported = None;
            e.user = 0;
        }
        self.changes.clear();
    }

    /// Sockets in use, with what was reported for them.
    pub fn live(&self) -> impl Iterator<Item = (RawFd, SocketWhat)> + '_ {
        self.by_fd
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((i as RawFd, e.reported?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SocketWhat::*;

    fn drain(t: &mut SocketTable) -> Vec<(RawFd, SocketWhat, usize)> {
        std::iter::from_fn(|| t.pop())
            .map(|c| (c.fd, c.what, c.user))
            .collect()
    }

    #[test]
    fn reports_changes_only() {
        let mut t = SocketTable::default();
        t.set(5, 1, 0, 1, true, false);
        t.set(5, 1, 0, 1, true, false);
        assert_eq!(drain(&mut t), [(5, In, 0)]);
        t.set(5, 1, 0, 1, false, true);
        t.set(5, 1, 0, 1, false, true);
        assert_eq!(drain(&mut t), [(5, Out, 0)]);
        t.unset(5, 1, 0, 1);
        t.unset(5, 1, 0, 1);
        assert_eq!(drain(&mut t), [(5, Remove, 0)]);
        assert_eq!(t.live().count(), 0);
    }

    #[test]
    fn shared_socket_gets_the_union_and_one_remove() {
        let mut t = SocketTable::default();
        // The resolver's wake socket, waited on by three looking-up transfers.
        t.set(9, 77, 0, 1, true, false);
        t.set(9, 77, 1, 1, true, false);
        t.set(9, 77, 2, 1, false, true);
        assert_eq!(drain(&mut t), [(9, In, 0), (9, InOut, 0)]);
        assert_eq!(t.users(9).count(), 3);
        t.unset(9, 77, 2, 1);
        assert_eq!(drain(&mut t), [(9, In, 0)]);
        t.unset(9, 77, 0, 1);
        assert_eq!(drain(&mut t), []);
        t.unset(9, 77, 1, 1);
        assert_eq!(drain(&mut t), [(9, Remove, 0)]);
        assert_eq!(t.users(9).count(), 0);
    }

    #[test]
    fn assigned_value_follows_the_socket_until_removed() {
        let mut t = SocketTable::default();
        assert!(!t.assign(3, 42), "not in use");
        t.set(3, 1, 0, 1, true, false);
        t.set(3, 1, 0, 1, true, true);
        // Assigned while reporting the first change: the queued second one carries it.
        assert_eq!(t.pop().map(|c| (c.what, c.user)), Some((In, 0)));
        assert!(t.assign(3, 42));
        assert_eq!(drain(&mut t), [(3, InOut, 42)]);
        t.unset(3, 1, 0, 1);
        assert_eq!(drain(&mut t), [(3, Remove, 42)]);
        assert!(!t.assign(3, 1), "removed");
        t.set(3, 2, 0, 1, true, false);
        assert_eq!(
            drain(&mut t),
            [(3, In, 0)],
            "a new socket starts unassigned"
        );
    }

    #[test]
    fn reused_descriptor_is_removed_then_reported_again() {
        let mut t = SocketTable::default();
        t.set(4, 1, 0, 1, false, true);
        assert_eq!(drain(&mut t), [(4, Out, 0)]);
        assert!(t.assign(4, 7));
        // Another socket got descriptor 4 while slot 0 still held the old one.
        t.set(4, 2, 1, 1, true, false);
        assert_eq!(drain(&mut t), [(4, Remove, 7), (4, In, 0)]);
        // The stale user's late unset does not touch the new socket.
        t.unset(4, 1, 0, 1);
        assert_eq!(drain(&mut t), []);
        assert_eq!(t.users(4).collect::<Vec<_>>(), [(1, 1)]);
    }

    #[test]
    fn steady_state_reuses_entries() {
        let mut t = SocketTable::default();
        for round in 0..3u64 {
            for fd in 0..100 {
                t.set(fd, round * 1000 + fd as u64, fd as usize, 1, true, false);
            }
            for fd in 0..100 {
                t.unset(fd, round * 1000 + fd as u64, fd as usize, 1);
            }
            assert_eq!(drain(&mut t).len(), 200);
        }
        assert_eq!(t.by_fd.len(), 100);
        assert!(t.by_fd.iter().all(|e| e.id.is_none() && e.users.is_empty()));
    }
}
