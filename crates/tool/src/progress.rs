//! Progress meters as curl 8.14.1 draws them on stderr:
//! - [`Meter`]: the default per-transfer meter (two header lines, then a `\r`-rewritten
//!   statistics line at most once a second, and a final line plus newline);
//! - [`Bar`]: the `-#` / `--progress-bar` hash bar, with its "flying" animation when the
//!   size is unknown;
//! - [`ParallelMeter`]: the combined meter shown for `-Z` / `--parallel`.
//!
//! Time comes in as `Instant`s from the caller, so the output is a pure function of
//! the numbers fed in.

use std::io::{self, Write};
use std::time::{Duration, Instant};

/// A byte count in at most five columns, right aligned: `12345`, ` 976k`, `12.3M`, ` 123M`,
/// `12.3G`, ... as curl's meters show sizes and speeds.
pub fn max5data(bytes: u64) -> String {
    const K: u64 = 1024;
    const M: u64 = K * K;
    const G: u64 = M * K;
    const T: u64 = G * K;
    const P: u64 = T * K;
    if bytes < 100_000 {
        format!("{bytes:5}")
    } else if bytes < 10_000 * K {
        format!("{:4}k", bytes / K)
    } else if bytes < 100 * M {
        format!("{:2}.{}M", bytes / M, (bytes % M) / (M / 10))
    } else if bytes < 10_000 * M {
        format!("{:4}M", bytes / M)
    } else if bytes < 100 * G {
        format!("{:2}.{}G", bytes / G, (bytes % G) / (G / 10))
    } else if bytes < 10_000 * G {
        format!("{:4}G", bytes / G)
    } else if bytes < 10_000 * T {
        format!("{:4}T", bytes / T)
    } else {
        format!("{:4}P", bytes / P)
    }
}

/// A duration in eight columns: `--:--:--` for zero or less, ` 0:00:01`, `99:59:59`,
/// then `  5d 03h` and finally `   1234d`.
pub fn time2str(seconds: i64) -> String {
    if seconds <= 0 {
        return "--:--:--".to_owned();
    }
    let h = seconds / 3600;
    if h <= 99 {
        let m = (seconds - h * 3600) / 60;
        let s = seconds - h * 3600 - m * 60;
        format!("{h:2}:{m:02}:{s:02}")
    } else {
        let d = seconds / 86400;
        let h = (seconds - d * 86400) / 3600;
        if d <= 999 {
            format!("{d:3}d {h:02}h")
        } else {
            format!("{d:7}d")
        }
    }
}

fn micros(d: Duration) -> i64 {
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX)
}

/// Average speed in bytes per second over `us` microseconds.
fn trspeed(size: i64, us: i64) -> i64 {
    if us < 1 {
        size.saturating_mul(1_000_000)
    } else if size < i64::MAX / 1_000_000 {
        size * 1_000_000 / us
    } else if us >= 1_000_000 {
        size / (us / 1_000_000)
    } else {
        i64::MAX
    }
}

fn est_percent(total: i64, cur: i64) -> i64 {
    if total > 10000 {
        cur / (total / 100)
    } else if total > 0 {
        cur * 100 / total
    } else {
        0
    }
}

/// Number of one-second samples kept for the "Current Speed" column (five seconds).
const CURR_TIME: usize = 6;

/// The default progress meter of one transfer.
pub struct Meter {
    start: Instant,
    resume_from: u64,
    headers_out: bool,
    /// Whole seconds since `start` of the last shown line; `None` forces the next one.
    lastshow: Option<u64>,
    speeder: [i64; CURR_TIME],
    speeder_time: [Instant; CURR_TIME],
    speeder_c: usize,
    current_speed: i64,
}

impl Meter {
    pub fn new(start: Instant) -> Self {
        Meter {
            start,
            resume_from: 0,
            headers_out: false,
            lastshow: None,
            speeder: [0; CURR_TIME],
            speeder_time: [start; CURR_TIME],
            speeder_c: 0,
            current_speed: 0,
        }
    }

    /// A resumed transfer: the header is preceded by
    /// `** Resuming transfer from byte position N`.
    pub fn with_resume(mut self, resume_from: u64) -> Self {
        self.resume_from = resume_from;
        self
    }

    /// Called on progress; prints the header on the first call and a line whenever the
    /// whole second (counted from `start`) changed since the last line, to `out`.
    pub fn update(
        &mut self,
        now: Instant,
        dl_total: Option<u64>,
        dl_now: u64,
        ul_total: Option<u64>,
        ul_now: u64,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let sizes = Sizes::new(dl_total, dl_now, ul_total, ul_now);
        if self.calc(now, &sizes) {
            self.show(now, &sizes, out)?;
        }
        Ok(())
    }

    /// Final line (always printed at the end of a transfer, as curl does), then newline.
    pub fn done(
        &mut self,
        now: Instant,
        dl_total: Option<u64>,
        dl_now: u64,
        ul_total: Option<u64>,
        ul_now: u64,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        self.lastshow = None;
        self.update(now, dl_total, dl_now, ul_total, ul_now, out)?;
        out.write_all(b"\n")?;
        // a following transfer starts its speed samples afresh
        self.speeder_c = 0;
        out.flush()
    }

    /// Updates the speed samples; true when a line is due.
    fn calc(&mut self, now: Instant, s: &Sizes) -> bool {
        let elapsed = now.saturating_duration_since(self.start);
        let tick = elapsed.as_secs();
        if self.lastshow == Some(tick) {
            return false;
        }
        self.lastshow = Some(tick);
        let nowindex = self.speeder_c % CURR_TIME;
        self.speeder[nowindex] = s.dl_now + s.ul_now;
        self.speeder_time[nowindex] = now;
        self.speeder_c += 1;
        let countindex = self.speeder_c.min(CURR_TIME) - 1;
        if countindex > 0 {
            let checkindex = if self.speeder_c >= CURR_TIME {
                self.speeder_c % CURR_TIME
            } else {
                0
            };
            let span = now.saturating_duration_since(self.speeder_time[checkindex]);
            let span_ms = i64::try_from(span.as_millis()).unwrap_or(i64::MAX).max(1);
            let amount = self.speeder[nowindex] - self.speeder[checkindex];
            self.current_speed = if amount > 0xffff_ffff / 1000 {
                (amount as f64 / (span_ms as f64 / 1000.0)) as i64
            } else {
                amount * 1000 / span_ms
            };
        } else {
            let us = micros(elapsed);
            self.current_speed = trspeed(s.dl_now, us) + trspeed(s.ul_now, us);
        }
        true
    }

    fn show(&mut self, now: Instant, s: &Sizes, out: &mut dyn Write) -> io::Result<()> {
        if !self.headers_out {
            if self.resume_from > 0 {
                writeln!(
                    out,
                    "** Resuming transfer from byte position {}",
                    self.resume_from
                )?;
            }
            out.write_all(
                b"  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n\
                  \x20                                Dload  Upload   Total   Spent    Left  Speed\n",
            )?;
            self.headers_out = true;
        }
        let us = micros(now.saturating_duration_since(self.start));
        let cur_secs = us / 1_000_000;
        let dl_speed = trspeed(s.dl_now, us);
        let ul_speed = trspeed(s.ul_now, us);
        let estimate = |total: Option<i64>, cur: i64, speed: i64| match total {
            Some(total) if speed > 0 => (total / speed, est_percent(total, cur)),
            _ => (0, 0),
        };
        let (ul_secs, ul_pct) = estimate(s.ul_total, s.ul_now, ul_speed);
        let (dl_secs, dl_pct) = estimate(s.dl_total, s.dl_now, dl_speed);
        let total_secs = ul_secs.max(dl_secs);
        let time_left = time2str(if total_secs > 0 {
            total_secs - cur_secs
        } else {
            0
        });
        let time_total = time2str(total_secs);
        let time_spent = time2str(cur_secs);
        let total_expected = s
            .ul_total
            .unwrap_or(s.ul_now)
            .saturating_add(s.dl_total.unwrap_or(s.dl_now));
        let total_cur = s.dl_now + s.ul_now;
        let total_pct = est_percent(total_expected, total_cur);
        let m = |v: i64| max5data(v.max(0) as u64);
        write!(
            out,
            "\r{:3} {}  {:3} {}  {:3} {}  {}  {} {} {} {} {}",
            total_pct,
            m(total_expected),
            dl_pct,
            m(s.dl_now),
            ul_pct,
            m(s.ul_now),
            m(dl_speed),
            m(ul_speed),
            time_total,
            time_spent,
            time_left,
            m(self.current_speed)
        )?;
        out.flush()
    }
}

/// Transfer sizes as signed numbers, the way the meter computes with them.
struct Sizes {
    dl_total: Option<i64>,
    dl_now: i64,
    ul_total: Option<i64>,
    ul_now: i64,
}

impl Sizes {
    fn new(dl_total: Option<u64>, dl_now: u64, ul_total: Option<u64>, ul_now: u64) -> Self {
        let c = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        Sizes {
            dl_total: dl_total.map(c),
            dl_now: c(dl_now),
            ul_total: ul_total.map(c),
            ul_now: c(ul_now),
        }
    }
}

/// Widest bar curl draws.
const MAX_BARLENGTH: usize = 400;
/// Width used when neither `COLUMNS` nor the terminal tell.
const DEFAULT_WIDTH: usize = 79;

/// The width `COLUMNS` gives, as curl reads it: the leading decimal digits (whatever
/// follows is ignored), when they make a number from 21 to 10000.
pub fn columns_env(v: Option<&str>) -> Option<usize> {
    let v = v?;
    let digits = v.bytes().take_while(|b| b.is_ascii_digit()).count();
    v[..digits]
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 20 && n <= 10000)
}

/// The bar width: `COLUMNS` (see `columns_env`), else the terminal's width
/// (`terminal_cols`, from stderr's tty), else 79; never above 400.
pub fn bar_width(columns_env_value: Option<&str>, terminal_cols: Option<usize>) -> usize {
    let from_env = columns_env(columns_env_value);
    let width = from_env
        .or(terminal_cols.filter(|&n| n > 0))
        .unwrap_or(DEFAULT_WIDTH);
    width.min(MAX_BARLENGTH)
}

/// Positions of the flying hashes: `sin(i/200 * 2 * 3.1415) * 5000 + 5000` for i in 1..=200.
/// curl's table was generated with that truncated pi; the exact constant would move
/// some hashes by a column.
#[allow(clippy::approx_constant)]
fn sinus(index: usize) -> usize {
    let i = (index % 200 + 1) as f64;
    ((i / 200.0 * 2.0 * 3.1415).sin() * 5000.0 + 5000.0) as usize
}

/// The `-#` progress bar of one transfer.
pub struct Bar {
    calls: u64,
    prev: u64,
    prevtime: Option<Instant>,
    width: usize,
    initial_size: u64,
    tick: usize,
    bar: isize,
    barmove: isize,
}

impl Bar {
    /// `width` from [`bar_width`]; `initial_size` is the resume offset, so the bar shows
    /// progress towards the whole file.
    pub fn new(width: usize, initial_size: u64) -> Self {
        Bar {
            calls: 0,
            prev: 0,
            prevtime: None,
            width: width.clamp(7, MAX_BARLENGTH),
            initial_size,
            tick: 150,
            bar: 0,
            barmove: 1,
        }
    }

    /// Called on progress. Draws `\r####...   12.3%` when the total is known (at most
    /// every 100 ms unless finished), or the flying animation when it is not.
    pub fn update(
        &mut self,
        now: Instant,
        dl_total: u64,
        dl_now: u64,
        ul_total: u64,
        ul_now: u64,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let mut total = dl_total
            .saturating_add(ul_total)
            .saturating_add(self.initial_size);
        let point = dl_now
            .saturating_add(ul_now)
            .saturating_add(self.initial_size);
        let since = self
            .prevtime
            .map_or(Duration::MAX, |p| now.saturating_duration_since(p));
        let fast = since < Duration::from_millis(100);
        if self.calls > 0 {
            if total > 0 {
                if self.prev == point || (fast && point < total) {
                    return Ok(());
                }
            } else {
                if fast {
                    return Ok(());
                }
                self.fly(point != self.prev, out)?;
            }
        }
        self.calls += 1;
        if total > 0 && point != self.prev {
            if point > total {
                total = point;
            }
            let frac = point as f64 / total as f64;
            let percent = frac * 100.0;
            let barwidth = self.width - 7;
            let num = ((barwidth as f64 * frac) as usize).min(MAX_BARLENGTH);
            write!(
                out,
                "\r{:<barwidth$} {:5.1}%",
                "#".repeat(num),
                percent,
                barwidth = barwidth
            )?;
        }
        out.flush()?;
        self.prev = point;
        self.prevtime = Some(now);
        Ok(())
    }

    /// End of the transfer: the newline after the bar, when anything was drawn.
    pub fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.calls > 0 {
            out.write_all(b"\n")?;
            out.flush()?;
        }
        Ok(())
    }

    fn fly(&mut self, moved: bool, out: &mut dyn Write) -> io::Result<()> {
        let width = self.width;
        let mut line = vec![b' '; width];
        let at = self.bar.max(0) as usize;
        let end = (at + 5).min(width);
        line[at..end].copy_from_slice(&b"-=O=-"[..end - at]);
        let check = (width - 2).max(1);
        for off in [0, 5, 10, 15] {
            let pos = sinus(self.tick + off) / (10000 / check).max(1);
            if let Some(b) = line.get_mut(pos) {
                *b = b'#';
            }
        }
        out.write_all(b"\r")?;
        out.write_all(&line)?;
        self.tick += 2;
        if self.tick >= 200 {
            self.tick -= 200;
        }
        if moved {
            self.bar += self.barmove;
        }
        let last = width as isize - 6;
        if self.bar >= last {
            self.barmove = -1;
            self.bar = last;
        } else if self.bar < 0 {
            self.barmove = 1;
            self.bar = 0;
        }
        Ok(())
    }
}

/// One transfer as the parallel meter sees it.
#[derive(Clone, Debug, Default)]
pub struct XferProgress {
    /// Expected download size; 0 = unknown.
    pub dl_total: u64,
    pub dl_now: u64,
    /// Expected upload size; 0 = unknown.
    pub ul_total: u64,
    pub ul_now: u64,
    /// Whether the transfer has been started (else it is still queued).
    pub added: bool,
    dl_total_added: bool,
    ul_total_added: bool,
}

/// Samples kept for the parallel meter's speed column.
const SPEEDCNT: usize = 10;

/// The combined meter of `--parallel`:
/// `DL% UL%  Dled  Uled  Xfers  Live Total     Current  Left    Speed`.
pub struct ParallelMeter {
    start: Instant,
    stamp: Option<Instant>,
    header: bool,
    all_dltotal: u64,
    all_ultotal: u64,
    all_dlalready: u64,
    all_ulalready: u64,
    speedstore: [(u64, u64, Instant); SPEEDCNT],
    speedindex: usize,
    wrapped: bool,
}

impl ParallelMeter {
    pub fn new(start: Instant) -> Self {
        ParallelMeter {
            start,
            stamp: None,
            header: false,
            all_dltotal: 0,
            all_ultotal: 0,
            all_dlalready: 0,
            all_ulalready: 0,
            speedstore: [(0, 0, start); SPEEDCNT],
            speedindex: 0,
            wrapped: false,
        }
    }

    /// Prints the header on the first call, and a line when `last` or more than 500 ms
    /// passed since the previous line. `transfers` are the ones not yet finalized,
    /// `all_xfers` counts every transfer added so far. Returns whether a line was printed.
    pub fn update(
        &mut self,
        now: Instant,
        transfers: &mut [XferProgress],
        all_xfers: u64,
        last: bool,
        out: &mut dyn Write,
    ) -> io::Result<bool> {
        if !self.header {
            self.header = true;
            out.write_all(b"DL% UL%  Dled  Uled  Xfers  Live Total     Current  Left    Speed\n")?;
        }
        let due = self
            .stamp
            .is_none_or(|s| now.saturating_duration_since(s) > Duration::from_millis(500));
        if !(last || due) {
            return Ok(false);
        }
        self.stamp = Some(now);
        let spent = now.saturating_duration_since(self.start).as_secs() as i64;
        let mut dlnow = self.all_dlalready;
        let mut ulnow = self.all_ulalready;
        let mut dlknown = true;
        let mut ulknown = true;
        let mut running = 0u64;
        for per in transfers.iter_mut() {
            dlnow += per.dl_now;
            ulnow += per.ul_now;
            if per.dl_total == 0 {
                dlknown = false;
            } else if !per.dl_total_added {
                self.all_dltotal += per.dl_total;
                per.dl_total_added = true;
            }
            if per.ul_total == 0 {
                ulknown = false;
            } else if !per.ul_total_added {
                self.all_ultotal += per.ul_total;
                per.ul_total_added = true;
            }
            if per.added {
                running += 1;
            }
        }
        let pct = |known: bool, total: u64, now: u64| {
            if known && total > 0 {
                format!("{:3}", u128::from(now) * 100 / u128::from(total))
            } else {
                "--".to_owned()
            }
        };
        let dlpercen = pct(dlknown, self.all_dltotal, dlnow);
        let ulpercen = pct(ulknown, self.all_ultotal, ulnow);

        self.speedstore[self.speedindex] = (dlnow, ulnow, now);
        self.speedindex += 1;
        if self.speedindex >= SPEEDCNT {
            self.wrapped = true;
            self.speedindex = 0;
        }
        let (since, dl, ul) = if self.wrapped {
            let (odl, oul, ostamp) = self.speedstore[self.speedindex];
            (ostamp, dlnow - odl, ulnow - oul)
        } else {
            (self.start, dlnow, ulnow)
        };
        // At least a millisecond, as curl avoids dividing by zero.
        let deltams = now.saturating_duration_since(since).as_millis().max(1) as f64;
        let per_sec = |n: u64| (n as f64 / (deltams / 1000.0)) as u64;
        let speed = per_sec(dl).max(per_sec(ul));

        let (time_total, time_left) = if dlknown && speed > 0 {
            let est = self.all_dltotal / speed;
            let left = self.all_dltotal.saturating_sub(dlnow) / speed;
            (time2str(est as i64), time2str(left as i64))
        } else {
            (time2str(0), time2str(0))
        };
        write!(
            out,
            "\r{:<3} {:<3} {} {} {:5} {:5}  {} {} {} {} {:>5}",
            dlpercen,
            ulpercen,
            max5data(dlnow),
            max5data(ulnow),
            all_xfers,
            running,
            time_total,
            time2str(spent),
            time_left,
            max5data(speed),
            if last { "\n" } else { "" }
        )?;
        out.flush()?;
        Ok(true)
    }

    /// A transfer finished: keep its numbers in the totals before it leaves the list.
    pub fn finalize(&mut self, per: &mut XferProgress) {
        self.all_dlalready += per.dl_now;
        self.all_ulalready += per.ul_now;
        if !per.dl_total_added {
            self.all_dltotal += per.dl_total;
            per.dl_total_added = true;
        }
        if !per.ul_total_added {
            self.all_ultotal += per.ul_total;
            per.ul_total_added = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    const HEADER: &str = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n";

    #[test]
    fn sizes_and_times() {
        assert_eq!(max5data(0), "    0");
        assert_eq!(max5data(99_999), "99999");
        assert_eq!(max5data(100_000), "  97k");
        assert_eq!(max5data(10_000 * 1024), " 9.7M");
        assert_eq!(max5data(50_000_000), "47.6M");
        assert_eq!(max5data(500 * 1024 * 1024), " 500M");
        assert_eq!(max5data(20 * 1024 * 1024 * 1024), "20.0G");
        assert_eq!(time2str(0), "--:--:--");
        assert_eq!(time2str(-3), "--:--:--");
        assert_eq!(time2str(1), " 0:00:01");
        assert_eq!(time2str(3 * 3600 + 62), " 3:01:02");
        assert_eq!(time2str(100 * 3600), "  4d 04h");
        assert_eq!(time2str(1000 * 86400), "   1000d");
    }

    #[test]
    fn fast_transfer_prints_header_first_and_final_line() {
        let t0 = Instant::now();
        let mut m = Meter::new(t0);
        let mut out = Vec::new();
        m.update(t0, None, 0, None, 0, &mut out).unwrap();
        // a second call within the same second prints nothing
        m.update(t0 + ms(1), Some(100_000), 0, None, 0, &mut out)
            .unwrap();
        m.done(t0 + ms(2), Some(100_000), 100_000, None, 0, &mut out)
            .unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(
            s,
            format!(
                "{HEADER}\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0\
                 \r100   97k  100   97k    0     0  47.6M      0 --:--:-- --:--:-- --:--:-- 47.6M\n"
            )
        );
    }

    #[test]
    fn slow_transfer_lines_once_a_second() {
        let t0 = Instant::now();
        let mut m = Meter::new(t0);
        let mut out = Vec::new();
        m.update(t0, None, 0, None, 0, &mut out).unwrap();
        m.update(t0 + ms(1000), Some(100_000), 40_960, None, 0, &mut out)
            .unwrap();
        m.update(t0 + ms(1500), Some(100_000), 60_000, None, 0, &mut out)
            .unwrap();
        m.update(t0 + ms(2000), Some(100_000), 81_920, None, 0, &mut out)
            .unwrap();
        let s = String::from_utf8(out).unwrap();
        let lines: Vec<_> = s[HEADER.len()..].split('\r').skip(1).collect();
        assert_eq!(
            lines,
            [
                "  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0",
                " 40   97k   40 40960    0     0  40960      0  0:00:02  0:00:01  0:00:01 40960",
                " 81   97k   81 81920    0     0  40960      0  0:00:02  0:00:02 --:--:-- 40960",
            ]
        );
    }

    #[test]
    fn resume_line_precedes_header() {
        let t0 = Instant::now();
        let mut m = Meter::new(t0).with_resume(500);
        let mut out = Vec::new();
        m.update(t0, None, 0, None, 0, &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.starts_with("** Resuming transfer from byte position 500\n  % Total"));
    }

    #[test]
    fn bar_width_rules() {
        assert_eq!(bar_width(None, None), 79);
        assert_eq!(bar_width(Some("40"), None), 40);
        assert_eq!(bar_width(Some("21"), Some(100)), 21);
        assert_eq!(bar_width(Some("20"), None), 79);
        assert_eq!(bar_width(Some("abc"), Some(120)), 120);
        assert_eq!(bar_width(Some("500"), None), 400);
        assert_eq!(bar_width(None, Some(1000)), 400);
    }

    #[test]
    fn known_size_bar() {
        // reference: COLUMNS=40 curl -# --limit-rate 40k (100000 bytes)
        let t0 = Instant::now();
        let mut b = Bar::new(40, 0);
        let mut out = Vec::new();
        b.update(t0, 0, 0, 0, 0, &mut out).unwrap();
        b.update(t0 + ms(50), 100_000, 40_960, 0, 0, &mut out)
            .unwrap();
        b.update(t0 + ms(1000), 100_000, 40_960, 0, 0, &mut out)
            .unwrap();
        b.update(t0 + ms(2000), 100_000, 81_920, 0, 0, &mut out)
            .unwrap();
        b.update(t0 + ms(2001), 100_000, 100_000, 0, 0, &mut out)
            .unwrap();
        b.finish(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\r#############                      41.0%\
             \r###########################        81.9%\
             \r################################# 100.0%\n"
        );
    }

    #[test]
    fn default_width_full_bar() {
        let t0 = Instant::now();
        let mut b = Bar::new(79, 0);
        let mut out = Vec::new();
        b.update(t0, 100_000, 100_000, 0, 0, &mut out).unwrap();
        b.finish(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("\r{} 100.0%\n", "#".repeat(72))
        );
    }

    #[test]
    fn flying_bar_for_unknown_size() {
        // reference: COLUMNS=30 curl -# against an HTTP/0.9 body trickling in
        let t0 = Instant::now();
        let mut b = Bar::new(30, 0);
        let mut out = Vec::new();
        b.update(t0, 0, 0, 0, 0, &mut out).unwrap();
        for (i, n) in [1u64, 2, 3].iter().enumerate() {
            b.update(t0 + ms(400 * (i as u64 + 1)), 0, *n, 0, 0, &mut out)
                .unwrap();
        }
        b.finish(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\r##O=-                         \r###O=-                        \
             \r###=O=-                       \n"
        );
    }

    #[test]
    fn flying_bar_stays_when_nothing_moved() {
        let t0 = Instant::now();
        let mut b = Bar::new(30, 0);
        let mut out = Vec::new();
        b.update(t0, 0, 0, 0, 0, &mut out).unwrap();
        for (i, n) in [1u64, 1, 2, 3, 4, 5, 6, 7].iter().enumerate() {
            b.update(t0 + ms(400 * (i as u64 + 1)), 0, *n, 0, 0, &mut out)
                .unwrap();
        }
        b.finish(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\r##O=-                         \r###O=-                        \
             \r###O=-                        \r##-#O=-                       \
             \r####=O=-                      \r### #=O=-                     \
             \r ### #=O=-                    \r ## ##-=O=-                   \n"
        );
    }

    #[test]
    fn parallel_meter() {
        let t0 = Instant::now();
        let mut p = ParallelMeter::new(t0);
        let mut out = Vec::new();
        let mut xfers = vec![
            XferProgress {
                added: true,
                ..Default::default()
            },
            XferProgress {
                added: true,
                ..Default::default()
            },
        ];
        assert!(p.update(t0, &mut xfers, 2, false, &mut out).unwrap());
        assert!(!p
            .update(t0 + ms(100), &mut xfers, 2, false, &mut out)
            .unwrap());
        xfers[0].dl_total = 100_000;
        xfers[0].dl_now = 94_216;
        xfers[1].dl_total = 6;
        xfers[1].dl_now = 6;
        let mut done = xfers.remove(1);
        p.finalize(&mut done);
        assert!(p
            .update(t0 + ms(1000), &mut xfers, 2, false, &mut out)
            .unwrap());
        xfers[0].dl_now = 100_000;
        let mut done = xfers.remove(0);
        p.finalize(&mut done);
        assert!(p
            .update(t0 + ms(1500), &mut xfers, 2, true, &mut out)
            .unwrap());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "DL% UL%  Dled  Uled  Xfers  Live Total     Current  Left    Speed\n\
             \r--  --      0     0     2     2  --:--:-- --:--:-- --:--:--     0      \
             \r 94 --  94222     0     2     1   0:00:01  0:00:01 --:--:-- 94222      \
             \r100 --    97k     0     2     0   0:00:01  0:00:01 --:--:-- 66670     \n"
        );
    }
}
