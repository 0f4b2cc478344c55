//! The low-speed abort (`CURLOPT_LOW_SPEED_LIMIT` / `LOW_SPEED_TIME`), as curl's
//! `speedcheck.c` with the "current speed" of `progress.c`'s `progress_calc`: once a second
//! the byte count (both directions) is sampled into a ring of six, and the current speed is
//! the rate over the oldest and newest sample (the average until a second has passed).
//! A transfer whose current speed stays under the limit for the whole period fails with
//! curl's "Operation too slow" error. Does no I/O; `now` comes in.

use std::time::{Duration, Instant};

/// Samples kept: five seconds of history (`CURR_TIME`).
const CURR_TIME: usize = 5 + 1;

/// The current-speed ring and the time the speed went under the limit.
#[derive(Clone, Debug)]
pub struct SpeedCheck {
    start: Instant,
    bytes: [u64; CURR_TIME],
    times: [Option<Instant>; CURR_TIME],
    count: usize,
    /// The whole second (since `start`) of the last sample.
    last_second: Option<u64>,
    /// Unknown until the first sample (curl's -1).
    current: Option<u64>,
    /// When the speed went under the limit (`keeps_speed`).
    under_since: Option<Instant>,
}

impl SpeedCheck {
    pub fn new(now: Instant) -> SpeedCheck {
        SpeedCheck {
            start: now,
            bytes: [0; CURR_TIME],
            times: [None; CURR_TIME],
            count: 0,
            last_second: None,
            current: None,
            under_since: None,
        }
    }

    /// A new request starts (`Curl_speedinit`).
    pub fn restart(&mut self) {
        self.under_since = None;
    }

    /// Take a sample of `total` bytes moved so far if a new second began (`progress_calc`).
    pub fn sample(&mut self, now: Instant, total: u64) {
        let elapsed = now.saturating_duration_since(self.start);
        let second = elapsed.as_secs();
        if self.last_second == Some(second) {
            return;
        }
        self.last_second = Some(second);
        let now_i = self.count % CURR_TIME;
        self.bytes[now_i] = total;
        self.times[now_i] = Some(now);
        self.count += 1;
        let filled = self.count.min(CURR_TIME) - 1;
        self.current = Some(if filled == 0 {
            // The first second: the average since the start.
            let us = elapsed.as_micros().max(1);
            (u128::from(total) * 1_000_000 / us) as u64
        } else {
            let check_i = if self.count >= CURR_TIME {
                self.count % CURR_TIME
            } else {
                0
            };
            let then = self.times[check_i].unwrap_or(self.start);
            let span_ms = now.saturating_duration_since(then).as_millis().max(1);
            let amount = total.saturating_sub(self.bytes[check_i]);
            (u128::from(amount) * 1000 / span_ms) as u64
        });
    }

    /// `Curl_speedcheck`: Err(message) when the current speed has been under `limit` bytes
    /// per second for `time`.
    pub fn check(&mut self, now: Instant, limit: u64, time: Duration) -> Result<(), String> {
        let Some(speed) = self.current else {
            return Ok(());
        };
        if time.is_zero() {
            return Ok(());
        }
        if speed >= limit {
            self.under_since = None;
            return Ok(());
        }
        match self.under_since {
            None => self.under_since = Some(now),
            Some(since) if now.saturating_duration_since(since) >= time => {
                return Err(format!(
                    "Operation too slow. Less than {limit} bytes/sec transferred the last {} seconds",
                    time.as_secs()
                ));
            }
            Some(_) => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn stalled_transfer_fails_after_the_period() {
        let t0 = Instant::now();
        let mut s = SpeedCheck::new(t0);
        let time = Duration::from_secs(2);
        assert!(s.check(t0, 100, time).is_ok(), "no speed known yet");
        s.sample(t0 + 10 * MS, 0);
        assert!(s.check(t0 + 10 * MS, 100, time).is_ok());
        s.sample(t0 + 1010 * MS, 0);
        assert!(s.check(t0 + 1010 * MS, 100, time).is_ok());
        s.sample(t0 + 2010 * MS, 0);
        assert_eq!(
            s.check(t0 + 2010 * MS, 100, time).unwrap_err(),
            "Operation too slow. Less than 100 bytes/sec transferred the last 2 seconds"
        );
    }

    #[test]
    fn speed_over_the_limit_resets_the_clock() {
        let t0 = Instant::now();
        let mut s = SpeedCheck::new(t0);
        let time = Duration::from_secs(2);
        s.sample(t0 + 10 * MS, 0);
        assert!(s.check(t0 + 10 * MS, 100, time).is_ok());
        s.sample(t0 + 1010 * MS, 5000);
        assert!(s.check(t0 + 1010 * MS, 100, time).is_ok());
        // Still fast over the window of samples, so no abort.
        s.sample(t0 + 2010 * MS, 5000);
        assert!(s.check(t0 + 2010 * MS, 100, time).is_ok());
        s.restart();
        assert!(s.check(t0 + 3010 * MS, 100_000, time).is_ok());
    }
}
