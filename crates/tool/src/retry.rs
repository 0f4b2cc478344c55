//! `--retry` and friends (curl's retry logic in `tool_operate.c`'s `post_per_transfer`):
//! which finished transfers are tried again, after how long, and the warning curl prints.
//! Does no I/O and takes the clock as an argument; the caller sleeps (or, with `-Z`,
//! schedules the retry while the other transfers run), rewinds the output and starts the
//! transfer again.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use oxcurl_core::Code;

/// curl's first wait when `--retry-delay` is not given (or 0), doubled after every retry.
const SLEEP_DEFAULT_MS: u64 = 1000;
/// The longest exponential wait: 10 minutes.
const SLEEP_MAX_MS: u64 = 600_000;

/// The retry settings of one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetryConfig {
    /// `--retry N`: how many times to try again.
    pub retries: u64,
    /// `--retry-delay` in seconds; 0 means exponential backoff.
    pub delay: u64,
    /// `--retry-max-time` in seconds; 0 means no limit.
    pub max_time: u64,
    pub all_errors: bool,
    pub connrefused: bool,
}

/// The retry progress of one transfer, kept across its attempts.
#[derive(Clone, Copy, Debug)]
pub struct RetryState {
    pub remaining: u64,
    pub sleep_ms: u64,
    pub start: Instant,
    /// `%{num_retries}`.
    pub num_retries: u32,
}

impl RetryState {
    pub fn new(cfg: &RetryConfig, now: Instant) -> RetryState {
        RetryState {
            remaining: cfg.retries,
            sleep_ms: if cfg.delay > 0 {
                cfg.delay.saturating_mul(1000)
            } else {
                SLEEP_DEFAULT_MS
            },
            start: now,
            num_retries: 0,
        }
    }
}

/// How one attempt ended, as far as the retry decision needs it.
#[derive(Clone, Copy, Debug)]
pub struct Outcome<'a> {
    /// None for success.
    pub code: Option<Code>,
    /// The error text (connection refusals are told apart from timeouts by it).
    pub message: &'a str,
    pub fail_on_error: bool,
    pub scheme: &'a str,
    pub response_code: u32,
    /// The response's `Retry-After` in seconds (0 when absent).
    pub retry_after: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    AllErrors,
    Timeout,
    ConnRefused,
    Http,
    Ftp,
}

impl Why {
    fn text(self) -> &'static str {
        match self {
            Why::AllErrors => "(retrying all errors)",
            Why::Timeout => ": timeout",
            Why::ConnRefused => ": connection refused",
            Why::Http => ": HTTP error",
            Why::Ftp => ": FTP error",
        }
    }
}

/// What to do after an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Done: report the result.
    Done,
    /// Done, after this warning (Retry-After would overrun `--retry-max-time`).
    GiveUp(String),
    /// Print the warning, wait, try again.
    Retry { warning: String, delay: Duration },
}

/// Decide after an attempt; on a retry `state` counts it.
pub fn decide(
    cfg: &RetryConfig,
    state: &mut RetryState,
    o: &Outcome<'_>,
    now: Instant,
) -> Decision {
    if state.remaining == 0 {
        return Decision::Done;
    }
    let elapsed = now.saturating_duration_since(state.start);
    if cfg.max_time > 0 && elapsed.as_millis() >= u128::from(cfg.max_time) * 1000 {
        return Decision::Done;
    }
    let mut why = match o.code {
        Some(Code::OperationTimedout | Code::CouldntResolveHost | Code::CouldntResolveProxy) => {
            Some(Why::Timeout)
        }
        Some(Code::CouldntConnect) if cfg.connrefused => {
            // curl asks for ECONNREFUSED; the engine's text for a timed-out connect says so.
            (!o.message.contains("Timeout")).then_some(Why::ConnRefused)
        }
        None | Some(Code::HttpReturnedError)
            if (o.code.is_none() || o.fail_on_error)
                && matches!(o.scheme, "http" | "https")
                && matches!(
                    o.response_code,
                    408 | 429 | 500 | 502 | 503 | 504 | 522 | 524
                ) =>
        {
            Some(Why::Http)
        }
        // All 4xx replies of FTP are transient (a server full of users, typically).
        Some(_) if matches!(o.scheme, "ftp" | "ftps") && o.response_code / 100 == 4 => {
            Some(Why::Ftp)
        }
        _ => None,
    };
    if why.is_none() && o.code.is_some() && cfg.all_errors {
        why = Some(Why::AllErrors);
    }
    let Some(why) = why else {
        return Decision::Done;
    };
    let mut sleep_ms = state.sleep_ms;
    if why == Why::Http && o.retry_after > 0 {
        sleep_ms = sleep_ms.max(o.retry_after.saturating_mul(1000));
        if cfg.max_time > 0 && elapsed.as_secs().saturating_add(o.retry_after) > cfg.max_time {
            return Decision::GiveUp(
                "The Retry-After: time would make this command line exceed the maximum \
                 allowed time for retries."
                    .to_string(),
            );
        }
    }
    let secs = sleep_ms / 1000;
    let warning = format!(
        "Problem {}. Will retry in {secs} second{}. {} retr{} left.",
        why.text(),
        if secs == 1 { "" } else { "s" },
        state.remaining,
        if state.remaining > 1 { "ies" } else { "y" },
    );
    state.remaining -= 1;
    state.num_retries += 1;
    if cfg.delay == 0 {
        state.sleep_ms = (state.sleep_ms * 2).min(SLEEP_MAX_MS);
    }
    Decision::Retry {
        warning,
        delay: Duration::from_millis(sleep_ms),
    }
}

/// How long a `-Z` retry waits: curl schedules it at a whole second of the wall clock,
/// `delay` (whole seconds) after the current second began, so the wait is up to a second
/// shorter than `delay`.
pub fn parallel_wait(delay: Duration, now: SystemTime) -> Duration {
    let since_second = now.duration_since(UNIX_EPOCH).map_or(Duration::ZERO, |d| {
        Duration::from_nanos(u64::from(d.subsec_nanos()))
    });
    Duration::from_secs(delay.as_secs()).saturating_sub(since_second)
}

/// curl's `Retry-After` parsing: an HTTP date (seconds from now, 0 if past) or a number
/// of seconds; anything else is 0; capped at 6 hours.
pub fn parse_retry_after(value: &str, now_unix: i64) -> u64 {
    let v = value.trim_start_matches([' ', '\t']);
    let date = oxcurl_core::parsedate::getdate_capped(v.as_bytes());
    let secs = if date != -1 {
        u64::try_from(date - now_unix).unwrap_or(0)
    } else {
        let digits: &str = &v[..v.bytes().take_while(u8::is_ascii_digit).count()];
        digits.parse::<u64>().unwrap_or(0)
    };
    secs.min(21600)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(code: u32, retry_after: u64) -> Outcome<'static> {
        Outcome {
            code: None,
            message: "",
            fail_on_error: false,
            scheme: "http",
            response_code: code,
            retry_after,
        }
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let cfg = RetryConfig {
            retries: 20,
            ..Default::default()
        };
        let t = Instant::now();
        let mut st = RetryState::new(&cfg, t);
        let mut delays = Vec::new();
        for _ in 0..12 {
            match decide(&cfg, &mut st, &http(503, 0), t) {
                Decision::Retry { delay, .. } => delays.push(delay.as_secs()),
                d => panic!("{d:?}"),
            }
        }
        assert_eq!(&delays[..4], &[1, 2, 4, 8]);
        assert_eq!(*delays.last().unwrap(), 600);
    }

    #[test]
    fn warning_wording() {
        let cfg = RetryConfig {
            retries: 2,
            ..Default::default()
        };
        let t = Instant::now();
        let mut st = RetryState::new(&cfg, t);
        let Decision::Retry { warning, .. } = decide(&cfg, &mut st, &http(429, 0), t) else {
            panic!()
        };
        assert_eq!(
            warning,
            "Problem : HTTP error. Will retry in 1 second. 2 retries left."
        );
        let Decision::Retry { warning, .. } = decide(&cfg, &mut st, &http(429, 3), t) else {
            panic!()
        };
        assert_eq!(
            warning,
            "Problem : HTTP error. Will retry in 3 seconds. 1 retry left."
        );
        assert_eq!(decide(&cfg, &mut st, &http(429, 0), t), Decision::Done);
    }

    #[test]
    fn only_transient_codes() {
        let cfg = RetryConfig {
            retries: 1,
            ..Default::default()
        };
        let t = Instant::now();
        for code in [200, 404, 501, 505] {
            let mut st = RetryState::new(&cfg, t);
            assert_eq!(decide(&cfg, &mut st, &http(code, 0), t), Decision::Done);
        }
    }

    #[test]
    fn parallel_waits_end_on_whole_seconds() {
        let at = |s: u64, ms: u64| UNIX_EPOCH + Duration::from_millis(s * 1000 + ms);
        let one = Duration::from_secs(1);
        assert_eq!(parallel_wait(one, at(100, 0)), one);
        assert_eq!(parallel_wait(one, at(100, 250)), Duration::from_millis(750));
        assert_eq!(
            parallel_wait(Duration::from_secs(4), at(7, 999)),
            Duration::from_millis(3001)
        );
        assert_eq!(parallel_wait(Duration::ZERO, at(7, 500)), Duration::ZERO);
    }

    #[test]
    fn retry_after_values() {
        assert_eq!(parse_retry_after("120", 0), 120);
        assert_eq!(parse_retry_after(" 5x", 0), 5);
        assert_eq!(parse_retry_after("soon", 0), 0);
        assert_eq!(parse_retry_after("999999", 0), 21600);
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", 1445412480),
            10
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412490),
            0
        );
    }
}
