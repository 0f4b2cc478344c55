//! Transfer rate limiting as curl's `progress.c` does it (`Curl_pgrsLimitWaitTime`,
//! `Curl_ratelimit`): per direction a starting point (time and byte count) from which the
//! average speed is measured; when bytes came faster than the limit allows, the transfer
//! sleeps for the difference. The starting point moves forward at most every three seconds,
//! so the average covers a few seconds rather than the whole transfer. Does no I/O and
//! keeps no clock: `now` comes in.

use std::time::{Duration, Instant};

/// The shortest time between two moves of the starting point (`MIN_RATE_LIMIT_PERIOD`).
const MIN_PERIOD: Duration = Duration::from_millis(3000);

#[derive(Clone, Copy, Debug)]
struct Stamp {
    at: Instant,
    size: u64,
}

/// Both directions' starting points, and whether the transfer sleeps (curl's
/// `MSTATE_RATELIMITING`).
#[derive(Clone, Debug)]
pub struct RateLimit {
    dl: Stamp,
    ul: Stamp,
    /// Over a limit: neither reading nor writing until the rate-limit timer fires.
    pub sleeping: bool,
}

impl RateLimit {
    /// Starting points at `now` with nothing transferred (`Curl_pgrsStartNow`).
    pub fn new(now: Instant) -> RateLimit {
        let s = Stamp { at: now, size: 0 };
        RateLimit {
            dl: s,
            ul: s,
            sleeping: false,
        }
    }

    /// How long to wait until both directions are back under their limits (0: no limit),
    /// given the bytes received and sent so far; None when no wait is needed.
    pub fn wait(
        &self,
        now: Instant,
        (dl_now, ul_now): (u64, u64),
        (max_recv, max_send): (u64, u64),
    ) -> Option<Duration> {
        let w =
            wait_ms(&self.dl, dl_now, max_recv, now).max(wait_ms(&self.ul, ul_now, max_send, now));
        (w > 0).then(|| Duration::from_millis(w))
    }

    /// Move the starting point of each limited direction to `now` unless it moved less than
    /// three seconds ago (`Curl_ratelimit`).
    pub fn restamp(
        &mut self,
        now: Instant,
        (dl_now, ul_now): (u64, u64),
        (max_recv, max_send): (u64, u64),
    ) {
        for (s, cur, max) in [
            (&mut self.dl, dl_now, max_recv),
            (&mut self.ul, ul_now, max_send),
        ] {
            if max > 0 && now.saturating_duration_since(s.at) >= MIN_PERIOD {
                *s = Stamp { at: now, size: cur };
            }
        }
    }
}

/// Milliseconds until `cur` bytes since `s` are within `limit` bytes per second.
fn wait_ms(s: &Stamp, cur: u64, limit: u64, now: Instant) -> u64 {
    let bytes = cur.saturating_sub(s.size);
    if limit == 0 || bytes == 0 {
        return 0;
    }
    // curl rounds the time taken up to whole milliseconds (`Curl_timediff_ceil`).
    let took = now.saturating_duration_since(s.at);
    let took_ms =
        took.as_millis() as u64 + u64::from(!took.subsec_nanos().is_multiple_of(1_000_000));
    let should_ms = match bytes.checked_mul(1000) {
        Some(b) => b / limit,
        None => (bytes / limit).saturating_mul(1000),
    };
    should_ms.saturating_sub(took_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn waits_for_the_difference() {
        let t0 = Instant::now();
        let r = RateLimit::new(t0);
        // 100 KiB at 100 KiB/s should take a second; 250 ms went by.
        assert_eq!(
            r.wait(t0 + 250 * MS, (102_400, 0), (102_400, 0)),
            Some(750 * MS)
        );
        assert_eq!(r.wait(t0 + 1000 * MS, (102_400, 0), (102_400, 0)), None);
        // No limit, or no bytes yet: no wait.
        assert_eq!(r.wait(t0, (102_400, 0), (0, 0)), None);
        assert_eq!(r.wait(t0, (0, 0), (10, 10)), None);
        // The slower direction decides.
        assert_eq!(r.wait(t0, (1000, 3000), (1000, 1000)), Some(3000 * MS));
    }

    #[test]
    fn starting_point_moves_after_three_seconds() {
        let t0 = Instant::now();
        let mut r = RateLimit::new(t0);
        r.restamp(t0 + 2000 * MS, (50_000, 0), (1000, 1000));
        assert_eq!(
            r.wait(t0 + 2000 * MS, (50_000, 0), (1000, 0)),
            Some(48_000 * MS)
        );
        r.restamp(t0 + 3000 * MS, (50_000, 0), (1000, 1000));
        assert_eq!(r.wait(t0 + 3000 * MS, (50_000, 0), (1000, 0)), None);
        assert_eq!(
            r.wait(t0 + 3000 * MS, (51_000, 0), (1000, 0)),
            Some(1000 * MS)
        );
    }
}
