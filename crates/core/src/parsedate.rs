//! curl's date parser (`lib/parsedate.c`, `curl_getdate`), as curl 8.14.1 has it.
//!
//! Pure: a byte string in, seconds since the epoch (UTC) out. It does no I/O and never looks at
//! the clock or the local time zone (except [`unix_now`], the clock the cookie and HSTS caches
//! compare expiry times with). The cookie engine uses it for `Expires`, the HSTS cache for its
//! file's dates; the same parser serves `-z`/`--time-cond` and `CURLOPT_TIMEVALUE` style callers.
//!
//! The parser is deliberately lenient, like curl's. It reads at most six "parts" (words or
//! numbers) separated by any run of bytes that are not ASCII letters or digits, and accepts them
//! in any order:
//!
//! ```text
//! Sun, 06 Nov 1994 08:49:37 GMT    RFC 1123
//! Sunday, 06-Nov-94 08:49:37 GMT   RFC 850
//! Sun Nov  6 08:49:37 1994         asctime()
//! 06 Nov 1994 08:49:37 GMT         no week day
//! 1994 Nov 6 08:49:37              odd orders
//! Sun/Nov/6/94/GMT                 odd separators
//! Sun, 12 Sep 2004 15:05:58 -0700  numeric zones
//! 20040912 15:05:58 -0700          compact dates
//! ```
//!
//! Details that are easy to get wrong and that 8.14.1 really does:
//!
//! * a time is `H:M` or `H:M:S` with one or two digits each, hour < 24, minute < 60,
//!   second <= 60; anything else is read as a plain number;
//! * a plain number has at most eight significant digits (bigger fails the whole date);
//! * two-digit years: 71..99 are 19xx, 0..70 are 20xx; years before 1583 fail;
//! * a four digit number <= 1400 right after `+` or `-` is a zone offset (`+0200` is two hours
//!   ahead of UTC, so two hours are subtracted);
//! * zone names are looked up case-insensitively in curl's table, which includes the military
//!   single letters with the RFC 822 signs (`A` is UTC+1 here, `N` is UTC-1; `J` is unknown);
//! * the day of the month is only checked to be 1..31, so `31 Feb 1994` is 3 March.

/// What [`parsedate`] can answer besides a time (curl's `PARSEDATE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateError {
    /// Not a date curl understands.
    Fail,
}

const WKDAY: [&[u8]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
const WEEKDAY: [&[u8]; 7] = [
    b"Monday",
    b"Tuesday",
    b"Wednesday",
    b"Thursday",
    b"Friday",
    b"Saturday",
    b"Sunday",
];
const MONTH: [&[u8]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// Offset for daylight saving time, in minutes.
const DAYZONE: i32 = -60;

/// curl's zone table: name and minutes to add to get UTC. Order does not matter for lookups
/// (names are unique); it is curl's order.
const TZ: &[(&[u8], i32)] = &[
    (b"GMT", 0),
    (b"UT", 0),
    (b"UTC", 0),
    (b"WET", 0),
    (b"BST", DAYZONE),
    (b"WAT", 60),
    (b"AST", 240),
    (b"ADT", 240 + DAYZONE),
    (b"EST", 300),
    (b"EDT", 300 + DAYZONE),
    (b"CST", 360),
    (b"CDT", 360 + DAYZONE),
    (b"MST", 420),
    (b"MDT", 420 + DAYZONE),
    (b"PST", 480),
    (b"PDT", 480 + DAYZONE),
    (b"YST", 540),
    (b"YDT", 540 + DAYZONE),
    (b"HST", 600),
    (b"HDT", 600 + DAYZONE),
    (b"CAT", 600),
    (b"AHST", 600),
    (b"NT", 660),
    (b"IDLW", 720),
    (b"CET", -60),
    (b"MET", -60),
    (b"MEWT", -60),
    (b"MEST", -60 + DAYZONE),
    (b"CEST", -60 + DAYZONE),
    (b"MESZ", -60 + DAYZONE),
    (b"FWT", -60),
    (b"FST", -60 + DAYZONE),
    (b"EET", -120),
    (b"WAST", -420),
    (b"WADT", -420 + DAYZONE),
    (b"CCT", -480),
    (b"JST", -540),
    (b"EAST", -600),
    (b"EADT", -600 + DAYZONE),
    (b"GST", -600),
    (b"NZT", -720),
    (b"NZST", -720),
    (b"NZDT", -720 + DAYZONE),
    (b"IDLE", -720),
    // Military zones, with the signs RFC 822 gave them (which RFC 1123 says are wrong, but
    // this is what curl 8.14.1 uses).
    (b"A", 60),
    (b"B", 2 * 60),
    (b"C", 3 * 60),
    (b"D", 4 * 60),
    (b"E", 5 * 60),
    (b"F", 6 * 60),
    (b"G", 7 * 60),
    (b"H", 8 * 60),
    (b"I", 9 * 60),
    (b"K", 10 * 60),
    (b"L", 11 * 60),
    (b"M", 12 * 60),
    (b"N", -60),
    (b"O", -2 * 60),
    (b"P", -3 * 60),
    (b"Q", -4 * 60),
    (b"R", -5 * 60),
    (b"S", -6 * 60),
    (b"T", -7 * 60),
    (b"U", -8 * 60),
    (b"V", -9 * 60),
    (b"W", -10 * 60),
    (b"X", -11 * 60),
    (b"Y", -12 * 60),
    (b"Z", 0),
];

/// Words longer than this are never a name curl knows ("Wednesday" is the longest).
const NAME_LEN: usize = 12;

/// The largest plain number a date may contain.
const MAX_NUMBER: i64 = 99_999_999;

fn checkday(word: &[u8]) -> i32 {
    let table = match word.len() {
        0..=2 => return -1,
        3 => &WKDAY,
        _ => &WEEKDAY,
    };
    table
        .iter()
        .position(|d| d.eq_ignore_ascii_case(word))
        .map_or(-1, |i| i as i32)
}

fn checkmonth(word: &[u8]) -> i32 {
    MONTH
        .iter()
        .position(|m| m.eq_ignore_ascii_case(word))
        .map_or(-1, |i| i as i32)
}

/// Seconds to add to get UTC, or -1 when the word is not a zone curl knows.
fn checktz(word: &[u8]) -> i32 {
    TZ.iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(word))
        .map_or(-1, |&(_, minutes)| minutes * 60)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Assume {
    MonthDay,
    Year,
}

/// The fields found so far; -1 is "not seen".
struct When {
    wday: i32,
    mon: i32,
    mday: i32,
    hour: i32,
    min: i32,
    sec: i32,
    year: i32,
    tzoff: i32,
}

fn digit(s: &[u8], i: usize) -> Option<i32> {
    s.get(i)
        .filter(|b| b.is_ascii_digit())
        .map(|b| i32::from(b - b'0'))
}

/// One or two digits at `i` (the first is known to be a digit): value and the index after.
fn one_or_two_digits(s: &[u8], i: usize) -> (i32, usize) {
    let first = i32::from(s[i] - b'0');
    match digit(s, i + 1) {
        Some(second) => (first * 10 + second, i + 2),
        None => (first, i + 1),
    }
}

/// `H:M` or `H:M:S` at `i`, one or two digits each. Returns the index after it.
fn match_time(s: &[u8], i: usize, w: &mut When) -> Option<usize> {
    let (hh, p) = one_or_two_digits(s, i);
    if hh >= 24 || s.get(p) != Some(&b':') || digit(s, p + 1).is_none() {
        return None;
    }
    let (mm, p) = one_or_two_digits(s, p + 1);
    if mm >= 60 {
        return None;
    }
    let (ss, p) = if s.get(p) == Some(&b':') && digit(s, p + 1).is_some() {
        let (ss, p) = one_or_two_digits(s, p + 1);
        if ss > 60 {
            return None;
        }
        (ss, p)
    } else {
        (0, p)
    };
    w.hour = hh;
    w.min = mm;
    w.sec = ss;
    Some(p)
}

/// A word of letters at `i`: a week day, a month or a zone, each accepted once.
fn datestring(s: &[u8], i: usize, w: &mut When) -> Result<usize, DateError> {
    let len = s[i..]
        .iter()
        .take(NAME_LEN)
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    if len == NAME_LEN {
        return Err(DateError::Fail);
    }
    let word = &s[i..i + len];
    let mut found = false;
    if w.wday == -1 {
        w.wday = checkday(word);
        found = w.wday != -1;
    }
    if !found && w.mon == -1 {
        w.mon = checkmonth(word);
        found = w.mon != -1;
    }
    if !found && w.tzoff == -1 {
        w.tzoff = checktz(word);
        found = w.tzoff != -1;
    }
    if found {
        Ok(i + len)
    } else {
        Err(DateError::Fail)
    }
}

/// A time or a number at `i`.
fn datenum(s: &[u8], i: usize, w: &mut When, dignext: &mut Assume) -> Result<usize, DateError> {
    if w.sec == -1 {
        if let Some(end) = match_time(s, i, w) {
            return Ok(end);
        }
    }
    // curl's `curlx_str_number` with a maximum: leading zeros are free, a value above the
    // maximum is an overflow and fails the date.
    let mut end = i;
    let mut val: i64 = 0;
    while let Some(d) = digit(s, end) {
        if val > (MAX_NUMBER - i64::from(d)) / 10 {
            return Err(DateError::Fail);
        }
        val = val * 10 + i64::from(d);
        end += 1;
    }
    let digits = end - i;
    let val = val as i32;
    let mut found = false;
    if w.tzoff == -1 && digits == 4 && val <= 1400 && i > 0 && matches!(s[i - 1], b'+' | b'-') {
        // The sign says how local time relates to UTC; we want the way back.
        let off = (val / 100 * 60 + val % 100) * 60;
        w.tzoff = if s[i - 1] == b'+' { -off } else { off };
        found = true;
    } else if digits == 8 && w.year == -1 && w.mon == -1 && w.mday == -1 {
        // YYYYMMDD
        w.year = val / 10000;
        w.mon = (val % 10000) / 100 - 1;
        w.mday = val % 100;
        found = true;
    }
    if !found && *dignext == Assume::MonthDay && w.mday == -1 {
        if val > 0 && val < 32 {
            w.mday = val;
            found = true;
        }
        *dignext = Assume::Year;
    }
    if !found && *dignext == Assume::Year && w.year == -1 {
        w.year = val;
        found = true;
        if w.year < 100 {
            w.year += if w.year > 70 { 1900 } else { 2000 };
        }
        if w.mday == -1 {
            *dignext = Assume::MonthDay;
        }
    }
    if found {
        Ok(end)
    } else {
        Err(DateError::Fail)
    }
}

/// Seconds since the epoch for a broken-down UTC time (no range checks: curl's `time2epoch`).
fn time2epoch(w: &When) -> i64 {
    const CUMULATIVE_DAYS: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    // (1969 / 4) - (1969 / 100) + (1969 / 400)
    const LEAP_DAYS_BEFORE_1969: i64 = 477;
    let year = i64::from(w.year);
    let y = year - i64::from(w.mon <= 1);
    let leap_days = y / 4 - y / 100 + y / 400 - LEAP_DAYS_BEFORE_1969;
    let days =
        (year - 1970) * 365 + leap_days + CUMULATIVE_DAYS[w.mon as usize] + i64::from(w.mday) - 1;
    ((days * 24 + i64::from(w.hour)) * 60 + i64::from(w.min)) * 60 + i64::from(w.sec)
}

/// Parses a date the way curl does and returns seconds since the epoch (may be negative for
/// dates before 1970). `date` is read like a C string: it ends at the first NUL byte.
pub fn parsedate(date: &[u8]) -> Result<i64, DateError> {
    let s = match date.iter().position(|&b| b == 0) {
        Some(nul) => &date[..nul],
        None => date,
    };
    let mut w = When {
        wday: -1,
        mon: -1,
        mday: -1,
        hour: -1,
        min: -1,
        sec: -1,
        year: -1,
        tzoff: -1,
    };
    let mut dignext = Assume::MonthDay;
    let mut i = 0;
    let mut part = 0;
    while i < s.len() && part < 6 {
        while i < s.len() && !s[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if i < s.len() {
            if s[i].is_ascii_alphabetic() {
                i = datestring(s, i, &mut w)?;
            } else {
                i = datenum(s, i, &mut w, &mut dignext)?;
            }
        }
        part += 1;
    }
    if w.sec == -1 {
        w.sec = 0;
        w.min = 0;
        w.hour = 0;
    }
    if w.mday == -1 || w.mon == -1 || w.year == -1 {
        return Err(DateError::Fail);
    }
    // The Gregorian calendar was introduced 1582.
    if w.year < 1583 {
        return Err(DateError::Fail);
    }
    if w.mday > 31 || w.mon > 11 || w.hour > 23 || w.min > 59 || w.sec > 60 {
        return Err(DateError::Fail);
    }
    let t = time2epoch(&w);
    let tzoff = if w.tzoff == -1 { 0 } else { w.tzoff };
    // A year has at most eight digits, so this cannot overflow an i64.
    Ok(t + i64::from(tzoff))
}

/// Now, in seconds since the epoch.
/// Unix seconds to (year, month, day, hour, minute, second), UTC.
pub fn civil(t: i64) -> (i64, i64, i64, i64, i64, i64) {
    let days = t.div_euclid(86400);
    let secs = t.rem_euclid(86400);
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, secs / 3600, secs % 3600 / 60, secs % 60)
}

/// `YYYYMMDDTHHMMSSZ`, the AWS SigV4 timestamp.
pub fn format_amz(t: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(t);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `curl_getdate()`: seconds since the epoch, or -1 when the date cannot be parsed. A date that
/// really is one second before the epoch comes back as 0, so -1 always means failure.
pub fn getdate(date: &[u8]) -> i64 {
    match parsedate(date) {
        Ok(-1) => 0,
        Ok(t) => t,
        Err(DateError::Fail) => -1,
    }
}

/// A time as curl writes it in request headers (`Curl_add_timecondition`):
/// `Wed, 21 Oct 2015 07:28:00 GMT`, the year space-padded to four places.
pub fn http_date(t: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = t.div_euclid(86400);
    let secs = t.rem_euclid(86400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{}, {:02} {} {:4} {:02}:{:02}:{:02} GMT",
        DAYS[days.rem_euclid(7) as usize],
        day,
        MONTHS[(month - 1) as usize],
        year,
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The variant the cookie engine uses (`Curl_getdate_capped`). With a 64-bit time it answers
/// exactly like [`getdate`]; it exists so that callers say which one curl calls.
pub fn getdate_capped(date: &[u8]) -> i64 {
    getdate(date)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    const T1994: i64 = 784111777;

    fn p(s: &str) -> i64 {
        getdate(s.as_bytes())
    }

    #[test]
    fn the_three_http_formats() {
        assert_eq!(p("Sun, 06 Nov 1994 08:49:37 GMT"), T1994);
        assert_eq!(p("Sunday, 06-Nov-94 08:49:37 GMT"), T1994);
        assert_eq!(p("Sun Nov  6 08:49:37 1994"), T1994);
    }

    #[test]
    fn the_formats_curl_documents() {
        // Every example in the comment at the top of curl's lib/parsedate.c.
        for s in [
            "06 Nov 1994 08:49:37 GMT",
            "06-Nov-94 08:49:37 GMT",
            "Nov  6 08:49:37 1994",
            "06 Nov 1994 08:49:37",
            "06-Nov-94 08:49:37",
            "1994 Nov 6 08:49:37",
            "GMT 08:49:37 06-Nov-94 Sunday",
            "94 6 Nov 08:49:37",
        ] {
            assert_eq!(p(s), T1994, "{s}");
        }
        let day = T1994 - (8 * 3600 + 49 * 60 + 37);
        for s in [
            "1994 Nov 6",
            "06-Nov-94",
            "Sun Nov 6 94",
            "1994.Nov.6",
            "Sun/Nov/6/94/GMT",
        ] {
            assert_eq!(p(s), day, "{s}");
        }
        assert_eq!(p("Sun, 06 Nov 1994 08:49:37 CET"), T1994 - 3600);
        assert_eq!(p("06 Nov 1994 08:49:37 EST"), T1994 + 5 * 3600);
        // Sun, 12 Sep 2004 22:05:58 GMT
        assert_eq!(p("Sun, 12 Sep 2004 15:05:58 -0700"), 1095026758);
        assert_eq!(p("Sat, 11 Sep 2004 21:32:11 +0200"), 1094931131);
        assert_eq!(p("20040912 15:05:58 -0700"), 1095026758);
        // Fri, 10 Sep 2004 22:00:00 GMT
        assert_eq!(p("20040911 +0200"), 1094853600);
    }

    #[test]
    fn times() {
        assert_eq!(p("06 Nov 1994 8:49:37"), T1994);
        assert_eq!(p("06 Nov 1994 08:49"), T1994 - 37);
        assert_eq!(p("6 Nov 1994 0:0:0"), T1994 - (8 * 3600 + 49 * 60 + 37));
        // A leap second is allowed and rolls over.
        assert_eq!(p("06 Nov 1994 23:59:60"), p("07 Nov 1994 00:00:00"));
        for bad in [
            "06 Nov 1994 08: 49:37",
            "06 Nov 1994 08:-4:37",
            "06 Nov 1994 25:00:00",
            "06 Nov 1994 23:60:00",
            "06 Nov 1994 23:59:61",
            "06 Nov 1994 123:45:67",
        ] {
            assert_eq!(p(bad), -1, "{bad}");
        }
    }

    #[test]
    fn names() {
        assert_eq!(p("SUNDAY, 06 nov 1994"), p("06 Nov 1994"));
        assert_eq!(p("06 Nov 1994 gmt"), p("06 Nov 1994"));
        assert_eq!(p("06 Nov 1994 UT"), p("06 Nov 1994"));
        for bad in [
            "06 November 1994",
            "Sunda, 06 Nov 1994",
            "Sund, 06 Nov 1994",
            "06 Nov 1994 GMTX",
            "06 Nov 1994 abcdefghijklmnopqrstuvwxyz",
            "06 Nov 1994 12:00:00 PST PDT",
            "Sun Mon 06 Nov 1994",
            "06 Nov 1994 J",
        ] {
            assert_eq!(p(bad), -1, "{bad}");
        }
    }

    #[test]
    fn military_zones_have_rfc822_signs() {
        let t = T1994;
        assert_eq!(p("Sun, 06 Nov 1994 08:49:37 A"), t + 3600);
        assert_eq!(p("Sun, 06 Nov 1994 08:49:37 Z"), t);
        assert_eq!(p("Sun, 06 Nov 1994 08:49:37 N"), t - 3600);
        assert_eq!(p("Sun, 06 Nov 1994 08:49:37 Y"), t - 12 * 3600);
    }

    #[test]
    fn numeric_zones() {
        let day = p("06 Nov 1994");
        assert_eq!(p("06 Nov 1994 +1400"), day - 14 * 3600);
        assert_eq!(p("06 Nov 1994 -0030"), day + 1800);
        // Minutes are not checked: +0090 is 90 minutes.
        assert_eq!(p("06 Nov 1994 +0090"), day - 5400);
        assert_eq!(p("06 Nov 1994 +1401"), -1);
    }

    #[test]
    fn years_and_days() {
        assert_eq!(p("06 Nov 70"), p("06 Nov 2070"));
        assert_eq!(p("06 Nov 69"), p("06 Nov 2069"));
        assert_eq!(p("06 Nov 71"), p("06 Nov 1971"));
        assert_eq!(p("06 Nov 99"), p("06 Nov 1999"));
        assert_eq!(p("31 Feb 1994"), p("03 Mar 1994"));
        assert_eq!(p("06 Nov 1583"), -12185856000);
        for bad in [
            "06 Nov 100",
            "06 Nov 1582",
            "32 Nov 1994",
            "0 Nov 1994",
            "Nov 1994",
        ] {
            assert_eq!(p(bad), -1, "{bad}");
        }
    }

    #[test]
    fn numbers_have_at_most_eight_digits() {
        assert_eq!(p("100000000 Nov 6"), -1);
        assert_eq!(p("06 Nov 1994 99999999"), -1);
        assert_eq!(p("06 Nov 123456789"), -1);
        // Leading zeros do not count.
        assert_eq!(p("000000006 Nov 1994"), p("06 Nov 1994"));
    }

    #[test]
    fn compact_dates() {
        assert_eq!(p("19941106"), p("06 Nov 1994"));
        // Month 00 is "no month".
        assert_eq!(p("19940006"), -1);
        assert_eq!(p("19941306"), -1);
        // Day 00 is the last day of the month before.
        assert_eq!(p("19941100"), p("31 Oct 1994"));
    }

    #[test]
    fn at_most_six_parts() {
        assert_eq!(p("06 Nov 1994 08:49:37 GMT extra junk here"), -1);
        assert_eq!(p("Sun, 06 Nov 1994 08:49:37 GMT;"), T1994);
        // The seventh part is never looked at.
        assert_eq!(p("Sun 06 Nov 1994 08:49:37 GMT junk"), T1994);
        assert_eq!(p("a b c d e f g"), -1);
        assert_eq!(p("1 2 3 4 5 6 7"), -1);
    }

    #[test]
    fn epoch_edges() {
        assert_eq!(p("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
        assert_eq!(p("Thu, 01 Jan 1970 00:00:01 GMT"), 1);
        // -1 is reserved for failure.
        assert_eq!(p("Wed, 31 Dec 1969 23:59:59 GMT"), 0);
        assert_eq!(parsedate(b"Wed, 31 Dec 1969 23:59:59 GMT"), Ok(-1));
        assert_eq!(p("Thu, 01 Jan 1960 00:00:00 GMT"), -315619200);
    }

    #[test]
    fn nul_ends_the_string() {
        assert_eq!(getdate(b"06 Nov 1994\0 junk"), p("06 Nov 1994"));
        assert_eq!(getdate(b""), -1);
        assert_eq!(getdate(b"\xff\xfe 06 Nov 1994"), p("06 Nov 1994"));
    }

    #[test]
    fn http_dates() {
        assert_eq!(http_date(T1994), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(http_date(1445412480), "Wed, 21 Oct 2015 07:28:00 GMT");
        assert_eq!(http_date(-1), "Wed, 31 Dec 1969 23:59:59 GMT");
        assert_eq!(http_date(951782400), "Tue, 29 Feb 2000 00:00:00 GMT");
    }
}
