//! FTP's wire pieces (curl's `lib/ftp.c`), sans-IO: the numbers, paths and dates curl reads
//! out of server replies, the URL path cut into CWD steps, the `-P` address and the
//! PORT/EPRT commands. The handler (`transfer/ftp.rs`) sends, reads and decides; this only
//! parses and formats. Does no I/O.
//!
//! Every reply parser takes `buf`: curl's receive buffer as its parsers see it, from the
//! first byte of the final reply line (`227 ...\r\n`) to the end of what was read, which can
//! hold bytes after the line when a server sends ahead. Passing the line alone is exact for
//! any server that waits for the next command. curl's parsers start at the fifth byte (after
//! `NNN `) and, where they use C string functions, stop at the first zero byte; so do these.
//! The lenient scans are curl's, quirks included: each was checked against curl 8.14.1 with
//! a scripted server, and the tests below hold what it did.

use crate::error::{Code, Error};
use crate::parsedate;
use oxcurl_urlapi::escape::{urldecode, Reject};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, SocketAddrV4};

/// `memchr`: where `c` first is in `s`.
fn find(s: &[u8], c: u8) -> Option<usize> {
    s.iter().position(|&b| b == c)
}

/// What a C string function sees of `buf`: the bytes before the first zero byte.
fn cstr(buf: &[u8]) -> &[u8] {
    find(buf, 0).map_or(buf, |n| &buf[..n])
}

/// The reply text after the status code and its space, where curl's parsers start.
fn text(buf: &[u8]) -> &[u8] {
    buf.get(4..).unwrap_or_default()
}

/// curl's messages for a PASV or EPSV reply it cannot use.
const WEIRD_227: &str = "Couldn't interpret the 227-response";
const ILLEGAL_EPSV_PORT: &str = "Illegal port number in EPSV reply";

/// `curlx_str_number`: at least one decimal digit at the start of `s` and a value of at most
/// `max` (leading zeros are free); the value and the digits taken. None without a digit or
/// when the value grows past `max`.
fn number(s: &[u8], max: i64) -> Option<(i64, usize)> {
    let mut n: i64 = 0;
    let mut len = 0;
    for &c in s.iter().take_while(|c| c.is_ascii_digit()) {
        let d = i64::from(c - b'0');
        if n > (max - d) / 10 {
            return None;
        }
        n = n * 10 + d;
        len += 1;
    }
    (len > 0).then_some((n, len))
}

/// curl's `match_pasv_6nums`: six numbers of at most 255 at the start of `s`, each after the
/// first behind exactly one comma (no blanks).
fn six_numbers(s: &[u8]) -> Option<[u8; 6]> {
    let mut out = [0u8; 6];
    let mut at = 0;
    for (k, slot) in out.iter_mut().enumerate() {
        if k > 0 {
            if s.get(at) != Some(&b',') {
                return None;
            }
            at += 1;
        }
        let (n, len) = number(&s[at..], 0xff)?;
        *slot = n as u8;
        at += len;
    }
    Some(out)
}

/// The address and port of a 227 reply to PASV (curl's `ftp_state_pasv_resp`). curl tries
/// every position of the text in turn and takes the first where six comma-separated numbers
/// of at most 255 parse, so the parenthesis is optional and a number too large is read from
/// a later digit: `(1127,0,0,1,4,51)` gives 127.0.0.1 and `300,1,127,0,0,1,...` gives
/// 0.1.127.0 port 1 (`00,1,127,...`). The port is `p1 * 256 + p2`.
///
/// With `--ftp-skip-pasv-ip` (on by default since curl 7.74.0) curl ignores this address,
/// connects to the control connection's peer (the host name through a proxy tunnel) and says
/// `Skip a.b.c.d for data connection, reuse HOST instead`; that choice is the handler's.
pub fn pasv_reply(buf: &[u8]) -> Result<(Ipv4Addr, u16), Error> {
    let t = cstr(text(buf));
    (0..t.len())
        .find_map(|at| six_numbers(&t[at..]))
        .map(|n| {
            let port = u16::from(n[4]) << 8 | u16::from(n[5]);
            (Ipv4Addr::new(n[0], n[1], n[2], n[3]), port)
        })
        .ok_or_else(|| Error::new(Code::FtpWeird227Format, WEIRD_227))
}

/// The port of a 229 reply to EPSV (curl's `ftp_state_pasv_resp`): at the first `(` of the
/// text, the next byte is the delimiter, whatever it is; it must come three times, then a
/// digit, a number of at most 65535 and the delimiter again. The closing `)` is never
/// checked, and port 0 passes (curl's connect to it fails and it falls back to PASV).
/// Only the search for `(` stops at a zero byte; what follows is read raw, so curl takes
/// `(\0\0\0PORT\0` too. The address is always the control connection's peer.
pub fn epsv_reply(buf: &[u8]) -> Result<u16, Error> {
    let t = text(buf);
    let weird = || Error::new(Code::FtpWeirdPasvReply, "Weirdly formatted EPSV reply");
    let open = find(cstr(t), b'(').ok_or_else(weird)?;
    let after = &t[open + 1..];
    let sep = *after.first().ok_or_else(weird)?;
    if after.get(1) != Some(&sep)
        || after.get(2) != Some(&sep)
        || !after.get(3).is_some_and(u8::is_ascii_digit)
    {
        return Err(weird());
    }
    match number(&after[3..], 0xffff) {
        Some((port, len)) if after.get(3 + len) == Some(&sep) => Ok(port as u16),
        _ => Err(Error::new(Code::FtpWeirdPasvReply, ILLEGAL_EPSV_PORT)),
    }
}

/// The longest directory a PWD reply may give: curl collects it in a buffer of 1000 bytes
/// with its terminating zero and fails the transfer with `CURLE_TOO_LARGE` on byte 1000.
pub const PWD_MAX: usize = 999;

/// The directory of a 257 reply to PWD (curl's `ftp_state_pwd_resp`): the text between the
/// first `"` and the next lone `"`, a doubled `""` standing for one quote (RFC 959). The
/// first quote is looked for up to the line's end only, but once inside, curl reads on to
/// the end of the buffer (the first zero byte), across the line end.
///
/// `Ok(None)` is curl's "Failed to figure out path" (it goes on without an entry path): no
/// quote, no closing quote, or an empty name. A name longer than [`PWD_MAX`] fails with
/// curl's code and no message. This is the parser of CVE-2017-1000254: until 7.56.0 an
/// unterminated name left curl's copy without its terminating zero and later reads ran past
/// the heap buffer; here every read is bounded by the slice and the result has a length.
pub fn pwd_reply(buf: &[u8]) -> Result<Option<Vec<u8>>, Error> {
    let t = cstr(text(buf));
    let Some(open) = t.iter().position(|&c| c == b'"' || c == b'\n') else {
        return Ok(None);
    };
    if t[open] != b'"' {
        return Ok(None);
    }
    let mut dir = Vec::new();
    let mut at = open + 1;
    while let Some(&c) = t.get(at) {
        if c == b'"' {
            if t.get(at + 1) != Some(&b'"') {
                return Ok((!dir.is_empty()).then_some(dir));
            }
            at += 1;
        }
        if dir.len() == PWD_MAX {
            return Err(Error::code(Code::TooLarge));
        }
        dir.push(c);
        at += 1;
    }
    Ok(None)
}

/// Whether curl asks `SYST` after this entry path (`ftp_state_pwd_resp`): the first time on
/// a connection that the path does not start with `/`, which is how OS/400 servers answer
/// in their default name format (VMS-style paths trigger it too).
pub fn pwd_needs_syst(dir: &[u8]) -> bool {
    dir.first() != Some(&b'/')
}

/// The system name of a 215 reply to SYST (curl's `FTP_SYST` state): blanks skipped, then
/// everything to the next space or the end of the buffer. The line end is not a stop, so
/// `215 OS/400\r\n` names `OS/400\r\n` (and curl takes it for no special server).
pub fn syst_reply(buf: &[u8]) -> &[u8] {
    let t = cstr(text(buf));
    let from = t.iter().take_while(|&&c| c == b' ').count();
    let len = t[from..].iter().take_while(|&&c| c != b' ').count();
    &t[from..from + len]
}

/// Whether curl treats the server as OS/400 (case-insensitive): it then sends
/// `SITE NAMEFMT 1` and, on 250, PWD again to learn the entry path in the usual syntax.
pub fn is_os400(os: &[u8]) -> bool {
    os.eq_ignore_ascii_case(b"OS/400")
}

/// The size of a 213 reply to SIZE (curl's `ftp_state_size_resp`), None for unknown (curl's
/// -1). curl allows rubbish before the number: with a CR in the line it steps back from the
/// byte before the CR over the digits before it (not checking that byte itself, so `12x`
/// and `1234 ` give 12 and 1234, `12 34` gives 34); without a CR it parses at the text's
/// start. No digit there or a value past `CURL_OFF_T_MAX` is unknown.
pub fn size_reply(buf: &[u8]) -> Option<i64> {
    const START: usize = 4;
    if buf.len() < START {
        return None;
    }
    // curl looks for the CR in as many bytes from START as the line is long.
    let line = find(buf, b'\n').map_or(buf.len(), |n| n + 1);
    let at = match find(&buf[START..buf.len().min(START + line)], b'\r') {
        Some(cr) => {
            let mut at = START + cr - 1;
            if buf[at] == b'\n' {
                at -= 1;
            }
            while at > START && buf[at - 1].is_ascii_digit() {
                at -= 1;
            }
            at
        }
        None => START,
    };
    number(&buf[at..], i64::MAX).map(|(n, _)| n)
}

/// The time of a 213 reply to MDTM, `YYYYMMDDHHMMSS[.sss]` (curl's `ftp_213_date` and
/// `ftp_state_mdtm_resp`), as Unix seconds; None where curl's file time stays unknown (-1).
/// curl is strict about range and lax about digits: it needs 14 bytes, reads each pair as
/// `(a - '0') * 10 + (b - '0')` without checking for digits (bytes are C's signed `char`
/// on x86-64), refuses a month over 12, day over 31, hour over 23, minute over 59 or second
/// over 60 but nothing negative, and hands `YYYYMMDD HH:MM:SS GMT` (cut to 23 bytes) to its
/// date parser, which then decides. A 13-digit time with its CR passes the first check and
/// fails the second; a day 0 or February 31 rolls over as the date parser does.
pub fn mdtm_reply(buf: &[u8]) -> Option<i64> {
    let t = cstr(text(buf));
    if t.len() < 14 {
        return None;
    }
    let digit = |i: usize| i32::from(t[i] as i8) - i32::from(b'0');
    let two = |i: usize| digit(i) * 10 + digit(i + 1);
    let (year, month, day) = (two(0) * 100 + two(2), two(4), two(6));
    let (hour, minute, second) = (two(8), two(10), two(12));
    if month > 12 || day > 31 || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut stamp = format!("{year:04}{month:02}{day:02} {hour:02}:{minute:02}:{second:02} GMT");
    stamp.truncate(23);
    match parsedate::getdate_capped(stamp.as_bytes()) {
        -1 => None,
        time => Some(time),
    }
}

/// The header line curl makes up from the MDTM time for `-I` (`ftp_state_mdtm_resp`):
/// `Last-Modified: Tue, 01 Jan 2019 00:00:00 GMT\r\n`, the year space-padded to four places.
/// None for a time before 1970, which curl does not write. FTP writes no `Date:` line.
pub fn last_modified_header(filetime: i64) -> Option<String> {
    (filetime >= 0).then(|| format!("Last-Modified: {}\r\n", parsedate::http_date(filetime)))
}

/// The header line curl makes up from a known SIZE for `-I` (`ftp_state_size_resp`).
pub fn content_length_header(size: i64) -> String {
    format!("Content-Length: {size}\r\n")
}

/// The header line curl writes for `-I` when the server answers `REST 0` with 350
/// (`ftp_state_rest_resp`), with its lower-case `r`.
pub const ACCEPT_RANGES_HEADER: &str = "Accept-ranges: bytes\r\n";

/// The size a 150 or 125 reply to RETR announces, `(NNN bytes)` (curl's `ftp_state_get_resp`),
/// None for unknown (-1). curl finds the first ` bytes` in the whole buffer (the status code
/// included) and walks back from the byte before it over digits to a `(`; any other byte
/// means unknown. Digits that run back to the third byte of the buffer are taken from
/// there, so `150 bytes` gives 0 and `125 bytes` gives 5. Found but not a number (`( bytes)`
/// or past `CURL_OFF_T_MAX`) gives 1, as in curl. The handler uses this only for binary
/// RETR without `--ignore-content-length` when SIZE gave no size above 0.
pub fn retr_size(buf: &[u8]) -> Option<i64> {
    let s = cstr(buf);
    let found = s.windows(6).position(|w| w == b" bytes")?;
    // curl would run off the buffer's start here; a status line cannot get here.
    if found < 2 {
        return None;
    }
    let mut at = found - 1;
    let mut left = found - 1;
    loop {
        left -= 1;
        if left == 0 || s[at] == b'(' {
            break;
        }
        if !s[at].is_ascii_digit() {
            return None;
        }
        at -= 1;
    }
    Some(number(&s[at + 1..], i64::MAX).map_or(1, |(n, _)| n))
}

/// `--ftp-method` (`CURLOPT_FTP_FILEMETHOD`), with curl's `CURLFTPMETHOD_*` values
/// (`CURLFTPMETHOD_DEFAULT`, 0, is multicwd).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u32)]
pub enum FileMethod {
    /// One CWD for each directory in the path (RFC 1738).
    #[default]
    MultiCwd = 1,
    /// No CWD: the whole path goes to SIZE, RETR, STOR and LIST.
    NoCwd = 2,
    /// One CWD to the whole directory.
    SingleCwd = 3,
}

/// A URL's `;type=` code (curl's `ftp_setup_connection`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeCode {
    /// `A`: ASCII transfer (curl's `prefer_ascii`).
    Ascii,
    /// `I` and any other byte, none included: binary (`prefer_ascii` off).
    Binary,
    /// `D`: a name-only listing (NLST, as `-l`); the transfer type is left alone.
    List,
}

/// A URL path cut as curl's `ftp_parse_url_path` cuts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FtpPath {
    /// The decoded path, `;type=` cut off: the argument source for LIST with nocwd and what
    /// a reused connection's remembered directory is compared with.
    pub raw: Vec<u8>,
    /// The directories to CWD into, in order (never empty ones; `/` when the path is
    /// absolute).
    pub dirs: Vec<Vec<u8>>,
    /// The file name; None when there is none, which makes the transfer a directory listing.
    pub file: Option<Vec<u8>>,
    /// The `;type=` code, if the URL had one.
    pub typecode: Option<TypeCode>,
}

/// Cut a URL path (percent-encoded, as after the host, with its leading `/`) for `method`.
///
/// First `ftp_setup_connection`: the first `;type=` anywhere in the encoded path ends it and
/// the byte after it (case-insensitive) is the code: `A`, `D`, else binary (`;type=`,
/// `;type=x`); `%3btype=a` is part of the name. Then `ftp_parse_url_path`: the rest, without
/// its first `/`, is percent-decoded once (`Curl_urldecode` with `REJECT_CTRL`: a byte below
/// 0x20, encoded or not, is `CURLE_URL_MALFORMAT`, "path contains control characters"; the
/// singlecwd out-of-bounds write of CVE-2018-1000120 came from a `%00` here), then:
/// - multicwd: each `/`-ended part is a CWD; an empty first part (`//etc/x` or `%2fetc/x`)
///   becomes `/`, later empty parts (`a//b`) are skipped: CWD `/`, CWD `etc`, file `x`.
/// - singlecwd: everything before the last `/` is one CWD (`/` if that is empty): `/etc`.
/// - nocwd: no CWD; the file is the whole path unless it ends in `/`.
///
/// What is left after the last `/` is the file; empty means a listing (LIST, or NLST with
/// `-l` or `;type=d`), which an upload refuses: "Uploading to a URL without a filename".
pub fn parse_url_path(url_path: &str, method: FileMethod, upload: bool) -> Result<FtpPath, Error> {
    let mut path = url_path.strip_prefix('/').unwrap_or(url_path);
    let mut typecode = None;
    if let Some(at) = path.find(";type=") {
        typecode = Some(match path.as_bytes().get(at + 6) {
            Some(b'A' | b'a') => TypeCode::Ascii,
            Some(b'D' | b'd') => TypeCode::List,
            _ => TypeCode::Binary,
        });
        path = &path[..at];
    }
    let raw = urldecode(path.as_bytes(), Reject::Ctrl)
        .ok_or_else(|| Error::new(Code::UrlMalformat, "path contains control characters"))?;
    let mut dirs: Vec<Vec<u8>> = Vec::new();
    let file: &[u8] = match method {
        FileMethod::NoCwd if raw.last().is_some_and(|&c| c != b'/') => &raw,
        FileMethod::NoCwd => b"",
        FileMethod::SingleCwd => match raw.iter().rposition(|&c| c == b'/') {
            Some(slash) => {
                dirs.push(raw[..slash.max(1)].to_vec());
                &raw[slash + 1..]
            }
            None => &raw,
        },
        FileMethod::MultiCwd => {
            let mut rest: &[u8] = &raw;
            while let Some(slash) = rest.iter().position(|&c| c == b'/') {
                if slash > 0 {
                    dirs.push(rest[..slash].to_vec());
                } else if dirs.is_empty() {
                    dirs.push(b"/".to_vec());
                }
                rest = &rest[slash + 1..];
            }
            rest
        }
    };
    let file = (!file.is_empty()).then(|| file.to_vec());
    if upload && file.is_none() {
        let msg = "Uploading to a URL without a filename";
        return Err(Error::new(Code::UrlMalformat, msg));
    }
    Ok(FtpPath {
        raw,
        dirs,
        file,
        typecode,
    })
}

impl FtpPath {
    /// The directory part of the path as curl remembers and compares it: nothing with
    /// nocwd (a relative path works from the entry directory), else the path without the
    /// file name (`a/b/` for `a/b/c`).
    fn dir_part(&self, method: FileMethod) -> &[u8] {
        let n = match method {
            FileMethod::NoCwd => 0,
            _ => self.raw.len() - self.file.as_ref().map_or(0, Vec::len),
        };
        &self.raw[..n]
    }

    /// Whether curl skips the CWDs (`ftp_parse_url_path`'s `cwddone`): always for an
    /// absolute path with nocwd, else when `prev` is the directory part of this path (curl:
    /// "Request has same path as previous transfer"). `prev` is `Some(b"")` on a new
    /// connection (it is in the entry directory), the remembered directory on a reused one,
    /// None when it remembers none.
    pub fn cwd_done(&self, method: FileMethod, prev: Option<&[u8]>) -> bool {
        if method == FileMethod::NoCwd && self.raw.first() == Some(&b'/') {
            return true;
        }
        prev == Some(self.dir_part(method))
    }

    /// What curl remembers as the connection's directory after a transfer (`ftp_done`),
    /// when the CWDs worked: None to keep what it had (nocwd with an absolute path did no
    /// CWD), else the directory part. curl says `Remembering we are in dir "..."`.
    pub fn remembered_dir(&self, method: FileMethod) -> Option<&[u8]> {
        if method == FileMethod::NoCwd && self.raw.first() == Some(&b'/') {
            return None;
        }
        Some(self.dir_part(method))
    }

    /// The listing command (curl's `ftp_state_list`): `-X`'s command, else NLST for a
    /// name-only listing (`-l`, `;type=d`), else LIST. With nocwd the directory goes along:
    /// the decoded path up to its last `/` (`/` itself for `/x`), none without a slash.
    pub fn list_command(
        &self,
        method: FileMethod,
        custom: Option<&[u8]>,
        list_only: bool,
    ) -> Vec<u8> {
        let verb: &[u8] = match custom {
            Some(c) => c,
            None if list_only => b"NLST",
            None => b"LIST",
        };
        let mut cmd = verb.to_vec();
        if method == FileMethod::NoCwd {
            if let Some(slash) = self.raw.iter().rposition(|&c| c == b'/') {
                cmd.push(b' ');
                cmd.extend_from_slice(&self.raw[..slash.max(1)]);
            }
        }
        cmd
    }
}

/// A range for FTP (curl's `Curl_range`): where the download starts (below 0: that many
/// bytes from the end) and how many bytes it takes, None to the end. `X-Y`, `X-` and `-Y`;
/// blanks before the first number are skipped. A number too large for `curl_off_t` reads as
/// none (curl's parser stays where it was), so `-r 36893488147419103232-` is refused.
/// Refused (`CURLE_RANGE_ERROR`): no dash where one must be, `-0`, a start past the end,
/// a length that overflows.
pub fn parse_range(range: &[u8]) -> Result<(i64, Option<u64>), Error> {
    let s = range;
    let num = |at: &mut usize| -> Option<i64> {
        let start = *at;
        while *at < s.len() && s[*at].is_ascii_digit() {
            *at += 1;
        }
        let n = std::str::from_utf8(&s[start..*at]).ok()?.parse().ok();
        if n.is_none() {
            *at = start;
        }
        n
    };
    let bad = || Error::code(Code::RangeError);
    let mut at = 0;
    while at < s.len() && (s[at] == b' ' || s[at] == b'\t') {
        at += 1;
    }
    let from = num(&mut at);
    if s.get(at) != Some(&b'-') {
        return Err(bad());
    }
    at += 1;
    match (from, num(&mut at)) {
        (from, None) => Ok((from.unwrap_or(0), None)),
        (None, Some(0)) => Err(bad()),
        (None, Some(to)) => Ok((-to, Some(to as u64))),
        (Some(from), Some(to)) if from > to || to - from == i64::MAX => Err(bad()),
        (Some(from), Some(to)) => Ok((from, Some((to - from) as u64 + 1))),
    }
}

/// What `-P`/`--ftp-port` (`CURLOPT_FTPPORT`) asks for (curl's `ftp_state_use_port`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortSpec {
    /// An interface, host name or address to listen on; None for the local address of the
    /// control connection.
    pub addr: Option<String>,
    /// The ports to try binding, in order; 0 to 0 lets the system pick.
    pub port_min: u16,
    pub port_max: u16,
}

/// Read a `-P` value, `(ipv4|ipv6|host|interface)?(:port(-range)?)?`, exactly as curl does.
/// A value of one byte (`-`) means the control connection's address. `[v6]:port` takes the
/// address in brackets; a value that is an IPv6 address as a whole has no port, but curl
/// still takes the address to its first colon (`fe80::1` asks for `fe80`; `::1` starts with
/// a colon and asks for no address). A range lower end above its upper end is 0 to 0, and
/// so, in curl 8.14.1, is a single port (`host:32000` binds any port): the upper end stays
/// 0. An address of 50 bytes or more fails with `CURLE_FTP_PORT_FAILED`, without a message.
pub fn parse_port_spec(spec: &str) -> Result<PortSpec, Error> {
    let mut out = PortSpec::default();
    if spec.len() <= 1 {
        return Ok(out);
    }
    let s = spec.as_bytes();
    // Where the address is, and where the search for the port's colon starts.
    let (addr, port_from) = if let Some(inner) = spec.strip_prefix('[') {
        match inner.find(']') {
            Some(end) => (&inner[..end], Some(end + 1)),
            None => ("", None),
        }
    } else if s[0] == b':' {
        ("", Some(0))
    } else {
        match spec.find(':') {
            Some(colon) if spec.parse::<std::net::Ipv6Addr>().is_ok() => (&spec[..colon], None),
            Some(colon) => (&spec[..colon], Some(colon)),
            None => (spec, None),
        }
    };
    let colon = port_from.and_then(|from| spec[from..].find(':').map(|c| from + c));
    if let Some(colon) = colon {
        let p = &s[colon + 1..];
        match number(p, 0xffff) {
            Some((first, len)) => {
                out.port_min = first as u16;
                if p.get(len) == Some(&b'-') {
                    if let Some((last, _)) = number(&p[len + 1..], 0xffff) {
                        out.port_max = last as u16;
                    }
                }
            }
            None => out.port_max = out.port_min,
        }
    }
    if out.port_min > out.port_max {
        out.port_min = 0;
        out.port_max = 0;
    }
    if !addr.is_empty() {
        if addr.len() >= 50 {
            return Err(Error::code(Code::FtpPortFailed));
        }
        out.addr = Some(addr.to_string());
    }
    Ok(out)
}

/// An address as glibc's `inet_ntop` writes it (curl's `Curl_printable_address`): as Rust
/// does, except an IPv4-compatible IPv6 address (`::a.b.c.d`, six zero groups first).
fn ntop(ip: IpAddr) -> String {
    match ip {
        IpAddr::V6(v6) if v6.segments()[..6] == [0; 6] && v6.segments()[6] != 0 => {
            let o = v6.octets();
            format!("::{}", Ipv4Addr::new(o[12], o[13], o[14], o[15]))
        }
        ip => ip.to_string(),
    }
}

/// The EPRT command for the listening socket (RFC 2428, curl's `ftp_state_use_port`):
/// `EPRT |1|132.235.1.2|6275|` or `EPRT |2|1080::8:800:200c:417a|5282|`, no zone.
pub fn eprt_command(listen: SocketAddr) -> String {
    let family = if listen.is_ipv4() { 1 } else { 2 };
    format!("EPRT |{family}|{}|{}|", ntop(listen.ip()), listen.port())
}

/// The PORT command for the listening socket (IPv4 only; curl skips PORT for IPv6):
/// `PORT 127,0,0,1,4,51`, the port as its high and low byte.
pub fn port_command(listen: SocketAddrV4) -> String {
    let [a, b, c, d] = listen.ip().octets();
    let port = listen.port();
    format!("PORT {a},{b},{c},{d},{},{}", port >> 8, port & 0xff)
}

#[cfg(test)]
mod tests {

    //! The tables are `reply => expected`. A case marked "curl" was run through curl 8.14.1
    //! against a scripted server sending that reply; what curl did (`-v` for the address and
    //! size, `-I` for the header lines, the commands it sent) is the expected value.
    use super::*;

    #[test]
    fn ranges_as_curl_range_reads_them() {
        assert_eq!(parse_range(b"2-6").unwrap(), (2, Some(5)));
        assert_eq!(parse_range(b"6-").unwrap(), (6, None));
        assert_eq!(parse_range(b"-4").unwrap(), (-4, Some(4)));
        assert_eq!(parse_range(b" 0-0").unwrap(), (0, Some(1)));
        assert!(parse_range(b"-0").is_err());
        assert!(parse_range(b"7-3").is_err());
        assert!(parse_range(b"36893488147419103232-").is_err());
        assert!(parse_range(b"abc").is_err());
        assert!(parse_range(b"0-9223372036854775807").is_err());
    }

    /// Each `input => expected` of a table.
    fn cases<'a>(table: &'a [&'a str]) -> impl Iterator<Item = (&'a str, &'a str)> {
        table.iter().map(|c| c.split_once(" => ").unwrap())
    }

    fn opt<T: ToString>(v: Option<T>) -> String {
        v.map_or("-".into(), |v| v.to_string())
    }

    /// An error as `curl: (N) message` shows it.
    fn err<T: std::fmt::Debug>(r: Result<T, Error>) -> String {
        let e = r.unwrap_err();
        format!("({}) {}", e.code as u32, e.message())
    }

    #[test]
    fn numbers_as_curlx_str_number() {
        assert_eq!(number(b"255,", 255), Some((255, 3)));
        assert_eq!(number(b"000255", 255), Some((255, 6)));
        assert_eq!(number(b"256", 255), None);
        assert_eq!(number(b"-1", 255), None);
        assert_eq!(number(b"", 255), None);
        let max = b"9223372036854775807";
        assert_eq!(number(max, i64::MAX), Some((i64::MAX, 19)));
        assert_eq!(number(b"9223372036854775808", i64::MAX), None);
    }

    #[test]
    fn pasv_scans_as_curl() {
        for (reply, want) in cases(&[
            "227 Entering Passive Mode (127,0,0,1,4,51)\r\n => 127.0.0.1:1075",
            "227 Data transfer will passively listen to 127,0,0,1,4,51 => 127.0.0.1:1075",
            "227 Entering passive mode. 127,0,0,1,4,51 => 127.0.0.1:1075",
            // curl: a number too large is read from a later digit.
            "227 x (1127,0,0,1,158,163)\r\n => 127.0.0.1:40611",
            "227 x 300,1,127,0,0,1,220,179\r\n => 0.1.127.0:1",
            "227 x 127,000,000,001,131,3\r\n => 127.0.0.1:33539",
            "227 (255,255,255,255,255,255) => 255.255.255.255:65535",
            "227 1,2,3,4,5,6,7 => 1.2.3.4:1286",
            "227 x 127, 0,0,1,178,167\r\n => {W227}", // curl
            "227 x 1,2,3\r\n => {W227}",              // curl
            "227 x 127,0,0,1,0,300\r\n => {W227}",    // curl
            "227 x \0 (127,0,0,1,4,51)\r\n => {W227}", // curl
            "227 (127,0,0,1,4,) => {W227}",
            "1,2,3,4,5,6 => {W227}",
            " => {W227}",
        ]) {
            let want = want.replace("{W227}", "(14) Couldn't interpret the 227-response");
            let got = match pasv_reply(reply.as_bytes()) {
                Ok((addr, port)) => SocketAddrV4::new(addr, port).to_string(),
                e => err(e),
            };
            assert_eq!(got, want, "{reply:?}");
        }
    }

    #[test]
    fn epsv_as_curl() {
        for (reply, want) in cases(&[
            "229 Entering Extended Passive Mode (|||6446|)\r\n => 6446",
            // curl: any delimiter, port 0, leading zeros, no ')', zero bytes as delimiter.
            "229 x (!!!52641!)\r\n => 52641",
            "229 x (|||0|)\r\n => 0",
            "229 x (|||0000048609|)\r\n => 48609",
            "229 x (|||38551|\r\n => 38551",
            "229 x (|||65535|) => 65535",
            "229 x (\0\0\x0041261\0)\r\n => 41261",
            "229 x (||55413|)\r\n => (13) Weirdly formatted EPSV reply", // curl
            "229 x (|||)\r\n => (13) Weirdly formatted EPSV reply",      // curl
            "229 x (a) (|||56941|)\r\n => (13) Weirdly formatted EPSV reply", // curl
            "229 x \0(|||5|)\r\n => (13) Weirdly formatted EPSV reply",  // curl
            "229 x (|||+5|) => (13) Weirdly formatted EPSV reply",
            "229 no parenthesis => (13) Weirdly formatted EPSV reply",
            "229 ( => (13) Weirdly formatted EPSV reply",
            "229 (|| => (13) Weirdly formatted EPSV reply",
            " => (13) Weirdly formatted EPSV reply",
            "229 x (|||65536|)\r\n => (13) Illegal port number in EPSV reply", // curl
            "229 x (|||12a|)\r\n => (13) Illegal port number in EPSV reply",   // curl
            "229 x (|||12 => (13) Illegal port number in EPSV reply",
            "229 (111234) => (13) Illegal port number in EPSV reply",
        ]) {
            let got = match epsv_reply(reply.as_bytes()) {
                Ok(port) => port.to_string(),
                e => err(e),
            };
            assert_eq!(got, want, "{reply:?}");
        }
    }

    #[test]
    fn pwd_as_curl() {
        // curl: "Entry path is '...'", or "Failed to figure out path" for None (-).
        for (reply, want) in cases(&[
            "257 \"/home/x\" is cwd\r\n => /home/x",
            "257 \"/a\"\"b\" is cwd\r\n => /a\"b",
            "257 x\"/a\" \"b\"\r\n => /a",
            "257 \"/a\"\"\"\r\n => /a\"",
            "257 \"abc\"\r\n => abc",
            // Inside the quotes curl reads on past the line end.
            "257 \"/a\r\nb\" x => /a\r\nb",
            "257 /nopath\r\n => -",
            "257 \"/unterminated\r\n => -",
            "257 \"\"\r\n => -",
            "257 \0\"/x\"\r\n => -",
            "257 \"/a\0b\" x\r\n => -",
            "257 \n\"/x\" => -",
            "257 => -",
        ]) {
            let got = pwd_reply(reply.as_bytes()).unwrap();
            assert_eq!(
                opt(got.map(|d| String::from_utf8(d).unwrap())),
                want,
                "{reply:?}"
            );
        }
        // curl: 999 bytes pass, the 1000th is curl: (100).
        let long = |n: usize| format!("257 \"/{}\"\r\n", "a".repeat(n - 1)).into_bytes();
        assert_eq!(pwd_reply(&long(PWD_MAX)).unwrap().unwrap().len(), PWD_MAX);
        let too_large = "(100) A value or data field grew larger than allowed";
        assert_eq!(err(pwd_reply(&long(PWD_MAX + 1))), too_large);
        assert_eq!(pwd_reply(&long(PWD_MAX + 1)[..900]), Ok(None));
    }

    #[test]
    fn syst_and_os400() {
        assert!(!pwd_needs_syst(b"/home"));
        assert!(pwd_needs_syst(b"QGPL"));
        assert_eq!(syst_reply(b"215 UNIX Type: L8\r\n"), b"UNIX");
        // curl: SITE NAMEFMT 1 for these two; not for the third, whose name holds the CRLF.
        assert!(is_os400(syst_reply(b"215 os/400 is the OS\r\n")));
        assert_eq!(syst_reply(b"215   OS/400 x\r\n"), b"OS/400");
        assert_eq!(syst_reply(b"215 OS/400\r\n"), b"OS/400\r\n");
        assert!(!is_os400(b"OS/400\r\n"));
        assert_eq!(syst_reply(b"215"), b"");
    }

    #[test]
    fn size_as_curl() {
        // curl -I: the Content-Length, or none (-).
        for (reply, want) in cases(&[
            "213 1234\r\n => 1234",
            "213 size is 1234\r\n => 1234",
            "213 1234 \r\n => 1234",
            "213 12x\r\n => 12",
            "213 12 34\r\n => 34",
            "213 1234\n => 1234",
            "213 abc 1234\n => -",
            "213 99999999999999999999\r\n => -",
            "213 \r\n => -",
            "213 9223372036854775807\r\n => 9223372036854775807",
            "213 9223372036854775808\r\n => -",
            "213 1\n\r\n => 1",
            // The CR search reaches a few bytes past the line, as in curl.
            "213 x 7\n\r => 7",
            "213 7\0 8\r\n => 8",
            "213 => -",
            "21\n\r => -",
        ]) {
            assert_eq!(opt(size_reply(reply.as_bytes())), want, "{reply:?}");
        }
        assert_eq!(content_length_header(1234), "Content-Length: 1234\r\n");
        assert_eq!(ACCEPT_RANGES_HEADER, "Accept-ranges: bytes\r\n");
    }

    #[test]
    fn mdtm_as_curl() {
        assert_eq!(mdtm_reply(b"213 20190101000000\r\n"), Some(1_546_300_800));
        // Before 1970: a time, but no header line.
        assert_eq!(mdtm_reply(b"213 18000101000000\r\n"), Some(-5_364_662_400));
        assert_eq!(last_modified_header(-5_364_662_400), None);
        // curl -I: the Last-Modified line, or none (-).
        for (reply, want) in cases(&[
            "213 20190101000000\r\n => Tue, 01 Jan 2019 00:00:00",
            "213 20190101000000.123\r\n => Tue, 01 Jan 2019 00:00:00",
            "213 19691231235959\r\n => Thu, 01 Jan 1970 00:00:00",
            "213 20190100000000\r\n => Mon, 31 Dec 2018 00:00:00",
            "213 20190231000000\r\n => Sun, 03 Mar 2019 00:00:00",
            "213 99991231235959\r\n => Fri, 31 Dec 9999 23:59:59",
            "213 20190101000060\r\n => Tue, 01 Jan 2019 00:01:00",
            "213 18000101000000\r\n => -",
            "213 2019010100000\r\n => -",
            "213 20191301000000\r\n => -",
            "213 2019010100006O\r\n => -",
            "213 x20190101000000\r\n => -",
            "213 2019-1-1000000\r\n => -",
            "213 20190101 00000\r\n => -",
            "213 15000101000000\r\n => -",
            "213 2019010100000 => -",
            "213 2019010\x00000000\r\n => -",
            "213 \u{ff}\u{ff}\u{ff}\u{ff}\u{ff}\u{ff}\u{ff}\u{ff} => -",
        ]) {
            let want = (want != "-").then(|| format!("Last-Modified: {want} GMT\r\n"));
            let got = mdtm_reply(reply.as_bytes()).and_then(last_modified_header);
            assert_eq!(got, want, "{reply:?}");
        }
    }

    #[test]
    fn retr_size_as_curl() {
        // curl -v, SIZE refused so that it reads the 150: "Getting file with size: N".
        for (reply, want) in cases(&[
            "150 Opening BINARY mode data connection for /etc/passwd (2241 bytes). => 2241",
            "150 ASCII data connection for /bin/ls (137.167.104.91,37445) (0 bytes). => 0",
            "150 x (0.0.0.0,0) (545 bytes)\r\n => 545",
            "150 Opening ASCII mode data connection for /bin/ls\r\n => -",
            "150 ( bytes)\r\n => 1",
            "150 (99999999999999999999 bytes)\r\n => 1",
            "150 bytes\r\n => 0",
            "125 bytes\r\n => 5",
            "150 x 12 bytes\r\n => -",
            "150 x(12 bytes) (34 bytes)\r\n => 12",
            "150 x (12bytes)\r\n => -",
            "150 (12 bytes\r\n => 12",
            "150 x (1a2 bytes)\r\n => -",
            "150 4 bytes\r\n => -",
            "150 (12  bytes)\r\n => -",
            "150 x\0 (12 bytes)\r\n => -",
            " bytes => -",
            "1 bytes => -",
            "12 bytes => 1",
        ]) {
            assert_eq!(opt(retr_size(reply.as_bytes())), want, "{reply:?}");
        }
    }

    /// A path cut as `[dir][dir] file`, `-` for no file.
    fn cut(p: &FtpPath) -> String {
        let s = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
        let dirs: String = p.dirs.iter().map(|d| format!("[{}]", s(d))).collect();
        format!("{dirs} {}", opt(p.file.as_deref().map(s)))
    }

    #[test]
    fn url_paths_as_curl() {
        use FileMethod::*;
        // curl: the CWDs and the SIZE/RETR argument it sent.
        for (case, want) in cases(&[
            "multi /a/b/c.txt => [a][b] c.txt",
            "multi /%2fetc/x => [/][etc] x",
            "multi //etc/x => [/][etc] x",
            "multi /a//b/c => [a][b] c",
            "multi ///x => [/] x",
            "multi /a/b/ => [a][b] -",
            "multi / =>  -",
            "multi /a%7fb =>  a\x7fb",
            "multi /d/a%3btype=a => [d] a;type=a",
            "multi /d;type=a/a =>  d",
            "single /%2fetc/x => [/etc] x",
            "single //etc/x => [/etc] x",
            "single /a//b/c => [a//b] c",
            "single //x => [/] x",
            "single /a/b/ => [a/b] -",
            "single  =>  -",
            "no /%2fetc/x =>  /etc/x",
            "no /a/b/ =>  -",
            "no /a/b/c =>  a/b/c",
        ]) {
            let (method, path) = case.split_once(' ').unwrap();
            let method = [("multi", MultiCwd), ("single", SingleCwd), ("no", NoCwd)]
                .into_iter()
                .find_map(|(name, m)| (name == method).then_some(m))
                .unwrap();
            let p = parse_url_path(path, method, false).unwrap();
            assert_eq!(cut(&p), want, "{case}");
        }
        let ctrl = "(3) path contains control characters";
        for p in ["/a%0ab", "/a%00b", "/a%0a;type=a", "/a\tb", "/d/%0d/x"] {
            assert_eq!(err(parse_url_path(p, MultiCwd, false)), ctrl, "{p}");
        }
        let up = err(parse_url_path("/x/%2f", MultiCwd, true));
        assert_eq!(up, "(3) Uploading to a URL without a filename");
        assert!(parse_url_path("/x/y", MultiCwd, true).is_ok());
    }

    #[test]
    fn typecodes_as_curl() {
        // curl: the TYPE it sent (NLST for D) and the CWD/RETR.
        for (path, want) in cases(&[
            "/d/a;type=a => d/a Some(Ascii)",
            "/d/a;type=A => d/a Some(Ascii)",
            "/d/a;type=d => d/a Some(List)",
            "/d/;type=d => d/ Some(List)",
            "/d/a;type=i => d/a Some(Binary)",
            "/d/a;type=x => d/a Some(Binary)",
            "/d/a;type= => d/a Some(Binary)",
            "/d/a;type=ab/c/e => d/a Some(Ascii)",
            "/d/a;type=i;type=a => d/a Some(Binary)",
            "/d/a => d/a None",
        ]) {
            let p = parse_url_path(path, FileMethod::MultiCwd, false).unwrap();
            let raw = String::from_utf8(p.raw).unwrap();
            assert_eq!(format!("{raw} {:?}", p.typecode), want, "{path}");
        }
    }

    #[test]
    fn listing_commands_as_curl() {
        use FileMethod::*;
        // curl: the listing command it sent.
        for (method, list_only, path, want) in [
            (MultiCwd, false, "/a/b/", "LIST"),
            (NoCwd, false, "/a/b/", "LIST a/b"),
            (NoCwd, true, "/a/b/", "NLST a/b"),
            (NoCwd, false, "//", "LIST /"),
            (MultiCwd, true, "/a/b.txt", "NLST"),
            (NoCwd, true, "/a/b.txt", "NLST a"),
            (NoCwd, false, "/", "LIST"),
        ] {
            let p = parse_url_path(path, method, false).unwrap();
            assert_eq!(p.list_command(method, None, list_only), want.as_bytes());
        }
        let p = parse_url_path("/x/", NoCwd, false).unwrap();
        assert_eq!(p.list_command(NoCwd, Some(b"MLSD"), true), b"MLSD x");
    }

    #[test]
    fn remembered_directories() {
        use FileMethod::*;
        let p = |s: &str, m| parse_url_path(s, m, false).unwrap();
        let abc = p("/a/b/c", MultiCwd);
        assert_eq!(abc.remembered_dir(MultiCwd), Some(&b"a/b/"[..]));
        assert!(abc.cwd_done(MultiCwd, Some(b"a/b/")));
        assert!(!abc.cwd_done(MultiCwd, Some(b"")));
        assert!(!abc.cwd_done(MultiCwd, None));
        // A file in the entry directory needs no CWD on a new connection.
        assert!(p("/c", MultiCwd).cwd_done(MultiCwd, Some(b"")));
        let rel = p("/a/b/c", NoCwd);
        assert_eq!(rel.remembered_dir(NoCwd), Some(&b""[..]));
        assert!(rel.cwd_done(NoCwd, Some(b"")));
        assert!(!rel.cwd_done(NoCwd, Some(b"a/b/")));
        let abs = p("/%2fa/c", NoCwd);
        assert_eq!(abs.remembered_dir(NoCwd), None);
        assert!(abs.cwd_done(NoCwd, None));
        let dir = p("/a/b/", SingleCwd);
        assert_eq!(dir.remembered_dir(SingleCwd), Some(&b"a/b/"[..]));
    }

    #[test]
    fn port_specs_as_curl() {
        // curl: the EPRT it sent showed the address and port it bound (`a p-q`).
        for (spec, want) in cases(&[
            "- => - 0-0",
            " => - 0-0",
            "127.0.0.1:40123-40125 => 127.0.0.1 40123-40125",
            "127.0.0.1:40123 => 127.0.0.1 0-0",
            ":40124-40126 => - 40124-40126",
            "[::1]:40130-40131 => ::1 40130-40131",
            "[::1] => ::1 0-0",
            "[::1 => - 0-0",
            "::1 => - 0-0",
            "fe80::1 => fe80 0-0",
            "127.0.0.1:40140-40130 => 127.0.0.1 0-0",
            "127.0.0.1:x => 127.0.0.1 0-0",
            "127.0.0.1:-40150 => 127.0.0.1 0-0",
            "eth0 => eth0 0-0",
            "h:1-x => h 0-0",
            "h:0-65535 => h 0-65535",
            "h:1-65536 => h 0-0",
        ]) {
            let p = parse_port_spec(spec).unwrap();
            let got = format!("{} {}-{}", opt(p.addr), p.port_min, p.port_max);
            assert_eq!(got, want, "{spec}");
        }
        let long = |n| parse_port_spec(&"a".repeat(n));
        assert_eq!(long(49).unwrap().addr.unwrap().len(), 49);
        // curl: "curl: (30) FTP: command PORT failed".
        assert_eq!(err(long(50)), "(30) FTP: command PORT failed");
    }

    #[test]
    fn port_commands_as_curl() {
        for (addr, want) in cases(&[
            "127.0.0.1:40123 => EPRT |1|127.0.0.1|40123|",
            "[::1]:40130 => EPRT |2|::1|40130|",
            "[1080::8:800:200C:417A]:5282 => EPRT |2|1080::8:800:200c:417a|5282|",
            "[::ffff:1.2.3.4]:1 => EPRT |2|::ffff:1.2.3.4|1|",
            "[::1.2.3.4]:1 => EPRT |2|::1.2.3.4|1|",
            "[::1.2.0.0]:1 => EPRT |2|::1.2.0.0|1|",
            "[::]:1 => EPRT |2|::|1|",
        ]) {
            assert_eq!(eprt_command(addr.parse().unwrap()), want);
        }
        // curl --disable-eprt sent "PORT 127,0,0,1,237,237" for port 60909.
        for (addr, want) in cases(&[
            "127.0.0.1:60909 => PORT 127,0,0,1,237,237",
            "10.0.0.2:0 => PORT 10,0,0,2,0,0",
            "1.2.3.4:65535 => PORT 1,2,3,4,255,255",
        ]) {
            assert_eq!(port_command(addr.parse().unwrap()), want);
        }
    }
}
