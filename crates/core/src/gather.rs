//! Letting input gather before a wait: how a transfer that reads faster than its peer sends
//! keeps from making the peer wake it for every burst.

use std::time::Duration;

/// A transfer that reads faster than its peer sends empties the socket after every burst
/// and sleeps; the peer then pays for waking it with each burst it sends (on one machine,
/// a cross-CPU wakeup per TLS record: nginx serving HTTPS spent 5-15 % of its time there,
/// see PERF.md). When a read round emptied the socket after a burst of
/// [`Gather::MIN`]..[`Gather::MAX`] bytes (a fast sender, yet no backlog), the next wait
/// first sleeps [`Gather::PAUSE`]: the peer's next records arrive while nobody waits on the
/// socket, cost it no wakeup, and are read in one round. A slow link (small bursts), a
/// sender faster than us (large bursts: sleeping would fill the socket and stall it) and a
/// rate-limited transfer (which does not report) wait as before. HTTP/1.1 notes its
/// bursts over TLS only: a cleartext sender (nginx's sendfile) outruns us, and there the
/// pause cost wall time (1 GiB: 0.42 -> 0.45 s) where over TLS it saved 16 % of nginx's
/// time. HTTP/2 notes them over TLS and cleartext alike (`transfer/http2.rs`).
#[derive(Debug, Default)]
pub(crate) struct Gather {
    pause: bool,
}

impl Gather {
    pub const MIN: usize = 16 * 1024;
    pub const MAX: usize = 64 * 1024;
    pub const PAUSE: Duration = Duration::from_micros(25);

    /// A transfer's read round took `burst` bytes, then found its socket empty.
    pub fn drained(&mut self, burst: usize) {
        if (Self::MIN..Self::MAX).contains(&burst) {
            self.pause = true;
        }
    }

    /// How long the next wait first lets input gather (once per note).
    pub(crate) fn take_pause(&mut self) -> Duration {
        if std::mem::take(&mut self.pause) {
            Self::PAUSE
        } else {
            Duration::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_middling_burst_that_emptied_the_socket_pauses_the_next_wait_once() {
        let mut g = Gather::default();
        for small_or_large in [1460, Gather::MIN - 1, Gather::MAX, 1 << 20] {
            g.drained(small_or_large);
            assert_eq!(g.take_pause(), Duration::ZERO, "{small_or_large}");
        }
        g.drained(Gather::MIN);
        g.drained(Gather::MAX - 1);
        assert_eq!(g.take_pause(), Gather::PAUSE);
        assert_eq!(g.take_pause(), Duration::ZERO, "once per note");
    }
}
