//! curl's "pingpong" (`lib/pingpong.c`): the command and response exchange FTP, SMTP, IMAP
//! and POP3 share, sans-IO. A [`Sender`] formats one command line and keeps what the socket
//! did not take; a [`Reader`] splits what the server sent into lines, shows each to the
//! protocol's [`EndOfResp`] check and says where a response ends; [`time_left`] is the
//! response timeout. The handlers do the I/O, trace the lines and hand them to the header
//! callback. Design note: `docs/internals/PINGPONG.md`. Does no I/O.

use std::time::{Duration, Instant};

use crate::error::{Code, Error, Result};

/// The most bytes one command line (CRLF included) or one response line (LF included) may
/// have: curl's send and receive buffers are `dynbuf`s of `DYN_PINGPPONG_CMD` (64 KiB),
/// which keep a byte for a terminating zero. Longer is 100, `CURLE_TOO_LARGE`, what curl's
/// `curlx_dyn_addn` returns; curl writes no message of its own for it.
pub const MAX_LINE: usize = 64 * 1024 - 1;

/// How long a response may take when `CURLOPT_SERVER_RESPONSE_TIMEOUT` is not set: curl's
/// `RESP_TIMEOUT` (`urldata.h`), which `PINGPONG_SETUP` gives every protocol.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(120);

/// The message of a command refused for a CR or LF in it.
const CRLF_REFUSED: &str = "CR or LF in a command";

/// One command on its way out (curl's `sendbuf` and `sendleft`). The buffer is reused, so
/// once it has grown to the longest command, a command allocates nothing.
#[derive(Debug, Default)]
pub struct Sender {
    buf: Vec<u8>,
    sent: usize,
}

impl Sender {
    pub fn new() -> Sender {
        Sender::default()
    }

    /// Queue `CMD` alone, or `CMD arg` (curl's `Curl_pp_sendf(pp, "USER %s", user)`).
    /// An empty `arg` still gets its space, as curl sends `USER ` for an empty name.
    pub fn send(&mut self, cmd: &str, arg: Option<&[u8]>) -> Result<()> {
        match arg {
            Some(arg) => self.send_parts(&[cmd.as_bytes(), b" ", arg]),
            None => self.send_parts(&[cmd.as_bytes()]),
        }
    }

    /// Queue the line made of `parts`, then CRLF, as `Curl_pp_vsendf` formats a command
    /// (`&[b"RCPT TO:<", addr, b">"]`). Refused, with nothing queued: a line longer than
    /// [`MAX_LINE`] with its CRLF (100, as curl's send buffer); a command while the last is
    /// still going out (55; curl asserts it never happens); a CR or LF byte (43,
    /// `CURLE_BAD_FUNCTION_ARGUMENT`), which would make the rest a second command. curl
    /// sends what it is given and keeps CR and LF out earlier, in the URL's parts (3) and
    /// `.netrc` (26) only; handlers check those first to give curl's codes. PINGPONG.md
    /// says what else this refuses.
    pub fn send_parts(&mut self, parts: &[&[u8]]) -> Result<()> {
        if self.is_pending() {
            return Err(Error::new(Code::SendError, "a command is still being sent"));
        }
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if len + 2 > MAX_LINE {
            return Err(Error::code(Code::TooLarge));
        }
        let crlf = |p: &&[u8]| p.contains(&b'\r') || p.contains(&b'\n');
        if parts.iter().any(crlf) {
            return Err(Error::new(Code::BadFunctionArgument, CRLF_REFUSED));
        }
        self.buf.clear();
        for p in parts {
            self.buf.extend_from_slice(p);
        }
        self.buf.extend_from_slice(b"\r\n");
        self.sent = 0;
        Ok(())
    }

    /// The bytes still to send: the rest of the last command, empty once it went.
    pub fn output(&self) -> &[u8] {
        &self.buf[self.sent..]
    }

    /// The socket took `n` bytes of `output()`. True when the whole command has gone: the
    /// moment curl starts the response timer (`pp->response = now`). curl traces only what
    /// its first write took (`CURLINFO_HEADER_OUT`), not the rest of a command sent later.
    pub fn sent(&mut self, n: usize) -> bool {
        self.sent = (self.sent + n).min(self.buf.len());
        !self.is_pending()
    }

    /// Is part of a command still to send (`Curl_pp_needs_flush`)? Then the handler waits
    /// to write, not to read.
    pub fn is_pending(&self) -> bool {
        self.sent < self.buf.len()
    }
}

/// A protocol's end-of-response check (curl's `endofresp` callback). It sees every
/// complete line, its LF and any CR included, and returns the code when the line ends a
/// response. As in curl, "ends a response" means "the state machine acts on it": SMTP's
/// `250-` lines after EHLO or IMAP's untagged lines are responses of their own, with codes
/// the handler knows. Closures `FnMut(&[u8]) -> Option<u32>` are checks too.
pub trait EndOfResp {
    fn check(&mut self, line: &[u8]) -> Option<u32>;
}

impl<F: FnMut(&[u8]) -> Option<u32>> EndOfResp for F {
    fn check(&mut self, line: &[u8]) -> Option<u32> {
        self(line)
    }
}

/// The number in the line's first three bytes when all three are digits.
fn three_digits(line: &[u8]) -> Option<u32> {
    match line {
        [a, b, c, ..] if a.is_ascii_digit() && b.is_ascii_digit() && c.is_ascii_digit() => {
            Some(u32::from(a - b'0') * 100 + u32::from(b - b'0') * 10 + u32::from(c - b'0'))
        }
        _ => None,
    }
}

/// FTP (`ftp_endofresp`): three digits and a space end the reply, the digits its code.
/// `NNN-` lines, and lines not starting with three digits and a space, are inside a
/// multi-line reply. As in curl, any `DDD ` line ends it, not only one repeating the first
/// line's code (RFC 959 section 4.2 asks servers for the same code).
#[derive(Clone, Copy, Debug, Default)]
pub struct Ftp;

impl EndOfResp for Ftp {
    fn check(&mut self, line: &[u8]) -> Option<u32> {
        match line.get(3) {
            Some(b' ') => three_digits(line),
            _ => None,
        }
    }
}

/// SMTP (`smtp_endofresp`): three digits then a space end the reply, as does a line of
/// the code alone (`250\r\n`: curl takes any line of five bytes starting with the code).
/// `NNN-` lines are [`Smtp::CONTINUES`] responses when `multiline` is set (curl's EHLO
/// and custom command states, which read each extension line), else just text.
///
/// Differences from curl: curl reads `2500\n` (five bytes, four digits) as code 2500;
/// here it ends nothing, as an SMTP code has three digits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Smtp {
    pub multiline: bool,
}

impl Smtp {
    /// curl's internal code for a continuation line; a server's `001` reads as 0 instead,
    /// as in curl, so it cannot pass for one.
    pub const CONTINUES: u32 = 1;
}

impl EndOfResp for Smtp {
    fn check(&mut self, line: &[u8]) -> Option<u32> {
        if line.len() < 4 {
            return None;
        }
        let code = three_digits(line)?;
        if line[3] == b' ' || (line.len() == 5 && !line[3].is_ascii_digit()) {
            Some(if code == Smtp::CONTINUES { 0 } else { code })
        } else if line[3] == b'-' && self.multiline {
            Some(Smtp::CONTINUES)
        } else {
            None
        }
    }
}

/// POP3 (`pop3_endofresp`): `-ERR` ends any command; in the CAPA listing (`capa`) every
/// other line is a [`Pop3::CONTINUES`] response and `.` ends it with [`Pop3::OK`];
/// otherwise `+OK` is OK and any other line starting with `+` (the `+ challenge` of AUTH)
/// continues.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pop3 {
    pub capa: bool,
}

impl Pop3 {
    /// curl's codes: the characters it uses.
    pub const OK: u32 = b'+' as u32;
    pub const ERR: u32 = b'-' as u32;
    pub const CONTINUES: u32 = b'*' as u32;
}

impl EndOfResp for Pop3 {
    fn check(&mut self, line: &[u8]) -> Option<u32> {
        Some(match line {
            [b'-', b'E', b'R', b'R', ..] => Pop3::ERR,
            [b'.', ..] if self.capa => Pop3::OK,
            _ if self.capa => Pop3::CONTINUES,
            [b'+', b'O', b'K', ..] => Pop3::OK,
            [b'+', ..] => Pop3::CONTINUES,
            _ => return None,
        })
    }
}

/// Which untagged (`* `) IMAP lines the current command wants (curl's per-state switch in
/// `imap_endofresp`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Untagged {
    /// None: they pass as text (most states).
    #[default]
    Ignore,
    /// All of them (SELECT, whose untagged lines share no name).
    Any,
    /// Those naming this response, without case, after an optional message number
    /// (`* CAPABILITY ...`, `* 3 FETCH ...`).
    Named(String),
    /// STORE or FETCH ones: a custom STORE answers with FETCH lines.
    StoreOrFetch,
}

impl Untagged {
    /// What curl's LIST state takes for the request `custom` (`CURLOPT_CUSTOMREQUEST`):
    /// LIST lines without one; any line for the commands curl lets through whole; for
    /// STORE also FETCH lines; else lines naming the command.
    pub fn for_list(custom: Option<&str>) -> Untagged {
        const WHOLE: &str = "SELECT EXAMINE SEARCH EXPUNGE LSUB UID GETQUOTAROOT NOOP";
        match custom {
            None => Untagged::Named("LIST".into()),
            Some(c) if WHOLE.split(' ').any(|w| w.eq_ignore_ascii_case(c)) => Untagged::Any,
            Some(c) if c.eq_ignore_ascii_case("STORE") => Untagged::StoreOrFetch,
            Some(c) => Untagged::Named(c.into()),
        }
    }
}

/// What a `+` continuation line means to the current IMAP command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Plus {
    /// AUTHENTICATE and APPEND wait for it: [`Imap::CONTINUE`].
    Expected,
    /// Any other command: [`Imap::UNEXPECTED`], which fails the transfer.
    #[default]
    Unexpected,
    /// A custom request: curl leaves `+` lines to it as text.
    Ignored,
}

/// IMAP (`imap_endofresp`): the tagged reply to the command sent ends it; untagged lines
/// the command wants ([`Untagged`]) and `+` continuations ([`Plus`]) are responses of their
/// own. A continuation is `+` alone with CRLF or `+ ` and text, as curl accepts both.
#[derive(Clone, Debug, Default)]
pub struct Imap {
    /// The tag of the command whose reply is awaited (`A001`); `*` for the greeting, so
    /// `* OK` and `* PREAUTH` answer it.
    pub tag: String,
    pub untagged: Untagged,
    pub plus: Plus,
}

impl Imap {
    /// curl's codes: a tagged OK, anything else tagged, a tagged PREAUTH.
    pub const OK: u32 = 1;
    pub const NOT_OK: u32 = 2;
    pub const PREAUTH: u32 = 3;
    /// An untagged line the command wants.
    pub const UNTAGGED: u32 = b'*' as u32;
    /// A continuation the command waits for.
    pub const CONTINUE: u32 = b'+' as u32;
    /// A continuation nothing waits for (curl's -1): the handler fails with 8,
    /// `CURLE_WEIRD_SERVER_REPLY`, "Unexpected continuation response".
    pub const UNEXPECTED: u32 = u32::MAX;

    /// Does the untagged `line` name `name` (curl's `imap_matchresp`)? The name must be
    /// followed by a space or be last, with exactly two bytes after it: curl counts on CRLF,
    /// so `* CAPABILITY\n` does not match.
    fn names(line: &[u8], name: &str) -> bool {
        let mut rest = &line[2..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 {
            if rest.get(digits) != Some(&b' ') {
                return false;
            }
            rest = &rest[digits + 1..];
        }
        let n = name.len();
        rest.len() >= n
            && rest[..n].eq_ignore_ascii_case(name.as_bytes())
            && (rest.get(n) == Some(&b' ') || rest.len() == n + 2)
    }
}

impl EndOfResp for Imap {
    fn check(&mut self, line: &[u8]) -> Option<u32> {
        let tag = self.tag.as_bytes();
        if line.len() > tag.len() && line.starts_with(tag) && line[tag.len()] == b' ' {
            let rest = &line[tag.len() + 1..];
            return Some(match rest {
                [b'O', b'K', ..] => Imap::OK,
                _ if rest.starts_with(b"PREAUTH") => Imap::PREAUTH,
                _ => Imap::NOT_OK,
            });
        }
        if line.starts_with(b"* ") {
            let wanted = match &self.untagged {
                Untagged::Ignore => false,
                Untagged::Any => true,
                Untagged::Named(name) => Imap::names(line, name),
                Untagged::StoreOrFetch => Imap::names(line, "STORE") || Imap::names(line, "FETCH"),
            };
            return wanted.then_some(Imap::UNTAGGED);
        }
        if (line.len() == 3 && line[0] == b'+') || line.starts_with(b"+ ") {
            return match self.plus {
                Plus::Expected => Some(Imap::CONTINUE),
                Plus::Unexpected => Some(Imap::UNEXPECTED),
                Plus::Ignored => None,
            };
        }
        None
    }
}

/// A line the [`Reader`] found. Lines keep their LF and any CR, as curl passes them to the
/// debug and header callbacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A line inside a response.
    Line(&'a [u8]),
    /// The line that ends a response, the code the check gave it, and the response's
    /// size: the bytes of all its lines.
    End {
        line: &'a [u8],
        code: u32,
        size: usize,
    },
}

impl<'a> Event<'a> {
    /// The line, whichever the event.
    pub fn line(&self) -> &'a [u8] {
        match *self {
            Event::Line(l) | Event::End { line: l, .. } => l,
        }
    }
}

/// Server bytes into lines (curl's `recvbuf` and `Curl_pp_readresp`). A line ends at LF;
/// a CR before it stays part of the line and a lone CR ends nothing, as in curl. Bytes
/// after the end of a response stay for the next one: a server may pipeline. The reader
/// holds at most [`MAX_LINE`] unread bytes; a line longer than that is 100
/// (`CURLE_TOO_LARGE`), so memory is bounded by the limit whatever the server sends.
///
/// curl's limit is on its buffer (the line so far and the latest read of up to 900
/// bytes), so where it fails depends on how the bytes arrive. Here it is on the line
/// alone: one of `MAX_LINE` bytes passes, as in curl when bytes come one at a time.
#[derive(Debug, Default)]
pub struct Reader {
    buf: Vec<u8>,
    /// Where the unread bytes start; the lines before were handed out.
    start: usize,
    /// How many unread bytes are known to hold no LF, not to search them twice.
    scanned: usize,
    /// Bytes of the current response so far.
    size: usize,
}

impl Reader {
    pub fn new() -> Reader {
        Reader::default()
    }

    /// Take bytes from the server; returns how many were taken: all of them unless the
    /// reader holds [`MAX_LINE`] unread bytes. The caller offers the rest again after
    /// [`Reader::next`] has handed out lines.
    pub fn feed(&mut self, data: &[u8]) -> usize {
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        } else if self.start > 0 && self.buf.len() + data.len() > MAX_LINE {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let n = data.len().min(MAX_LINE - self.buf.len());
        let need = self.buf.len() + n;
        if need > self.buf.capacity() {
            // Grow by doubling, but never past the limit.
            let to = need.max(2 * self.buf.capacity()).clamp(1024, MAX_LINE);
            self.buf.reserve_exact(to - self.buf.len());
        }
        self.buf.extend_from_slice(&data[..n]);
        n
    }

    /// The next line of what was fed, shown to `check`; None until a whole line is in.
    /// A response goes on after each `End`: the next call reads the following one.
    /// Err when `MAX_LINE` bytes hold no LF; the unread bytes are dropped then.
    pub fn next<C: EndOfResp + ?Sized>(&mut self, check: &mut C) -> Result<Option<Event<'_>>> {
        let unread = self.buf.len() - self.start;
        let from = self.start + self.scanned;
        let Some(i) = self.buf[from..].iter().position(|&b| b == b'\n') else {
            if unread >= MAX_LINE {
                self.clear();
                return Err(Error::code(Code::TooLarge));
            }
            self.scanned = unread;
            return Ok(None);
        };
        let at = self.start;
        let len = self.scanned + i + 1;
        self.start += len;
        self.scanned = 0;
        self.size += len;
        let line = &self.buf[at..at + len];
        Ok(Some(match check.check(line) {
            Some(code) => {
                let size = std::mem::take(&mut self.size);
                Event::End { line, code, size }
            }
            None => Event::Line(line),
        }))
    }

    /// The bytes fed but not yet handed out. Right after an `End`, what the server sent
    /// past the response (curl's `overflow`): handlers refuse it after STARTTLS or AUTH
    /// TLS, and an IMAP FETCH literal starts there.
    pub fn unread(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// Drop `n` unread bytes the handler used as something else than lines (the body of an
    /// IMAP literal).
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.buf.len() - self.start);
        self.start += n;
        self.scanned = self.scanned.saturating_sub(n);
    }

    /// Drop everything unread and the response in progress.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.start = 0;
        self.scanned = 0;
        self.size = 0;
    }
}

/// curl's `Curl_pp_state_timeout`: how long the current response may still take, zero when
/// it has timed out (the handler fails with 28, "server response timeout"). Each response
/// gets `response_timeout` (`CURLOPT_SERVER_RESPONSE_TIMEOUT`; None or zero:
/// [`RESPONSE_TIMEOUT`]) from `sent_at`, when its command went out in full (or the connect,
/// for the greeting). `overall`, the transfer's start and `CURLOPT_TIMEOUT` (zero: none),
/// caps it. At the goodbye (`disconnecting`) curl caps it with the overall time left even
/// when there is none, which its `Curl_timeleft` gives as 0: it does not wait at all then.
pub fn time_left(
    now: Instant,
    sent_at: Instant,
    response_timeout: Option<Duration>,
    overall: Option<(Instant, Duration)>,
    disconnecting: bool,
) -> Duration {
    let each = response_timeout
        .filter(|d| !d.is_zero())
        .unwrap_or(RESPONSE_TIMEOUT);
    let left = each.saturating_sub(now.saturating_duration_since(sent_at));
    match overall.filter(|(_, total)| !total.is_zero()) {
        Some((start, total)) => {
            left.min(total.saturating_sub(now.saturating_duration_since(start)))
        }
        None if disconnecting => Duration::ZERO,
        None => left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a reader made of the input: each line with the code that ended a response.
    type Seen = Vec<(Vec<u8>, Option<u32>)>;

    /// Feed `chunks` in turn, taking every line after each, as a handler would.
    fn run<C: EndOfResp>(check: &mut C, chunks: &[&[u8]]) -> Result<Seen> {
        let mut r = Reader::new();
        let mut seen = Seen::new();
        for chunk in chunks {
            let mut rest = *chunk;
            loop {
                rest = &rest[r.feed(rest)..];
                assert!(r.unread().len() <= MAX_LINE);
                while let Some(ev) = r.next(check)? {
                    let code = match ev {
                        Event::End { code, .. } => Some(code),
                        Event::Line(_) => None,
                    };
                    seen.push((ev.line().to_vec(), code));
                }
                if rest.is_empty() {
                    break;
                }
            }
        }
        Ok(seen)
    }

    fn end(line: &[u8], code: u32, size: usize) -> Option<Event<'_>> {
        Some(Event::End { line, code, size })
    }

    fn codes(seen: &Seen) -> Vec<Option<u32>> {
        seen.iter().map(|s| s.1).collect()
    }

    /// `check` must make each line into the code after it.
    macro_rules! expect {
        ($check:ident; $($line:literal => $code:expr),+ $(,)?) => {
            $(assert_eq!(
                EndOfResp::check(&mut $check, $line), $code, "{}", String::from_utf8_lossy($line)
            );)+
        };
    }

    #[test]
    fn ftp_check() {
        let mut f = Ftp;
        expect!(f;
            b"220 Welcome\r\n" => Some(220), b"000 zero\n" => Some(0), b"999 \n" => Some(999),
            b"220-Welcome\r\n" => None, b"220\r\n" => None, b"2200 x\r\n" => None,
            b"22 x\r\n" => None, b" 220 x\r\n" => None, b"2a0 x\r\n" => None);
    }

    #[test]
    fn ftp_multiline_reply() {
        let input = b"230-Welcome\r\n230-2 users\r\n 150 indented\r\n12 files\r\n230 Done\r\n";
        let seen = run(&mut Ftp, &[input]).unwrap();
        let lines: Vec<&[u8]> = seen.iter().map(|(l, _)| l.as_slice()).collect();
        let want: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
        assert_eq!((lines.len(), lines), (5, want));
        assert_eq!(codes(&seen), [None, None, None, None, Some(230)]);
        // RFC 959 wants the first line's code to close; curl closes at any "DDD ".
        let seen = run(&mut Ftp, &[b"150-Opening\r\n226 Done\r\n150 late\r\n"]).unwrap();
        assert_eq!(codes(&seen), [None, Some(226), Some(150)]);
    }

    #[test]
    fn smtp_check() {
        let mut s = Smtp { multiline: false };
        expect!(s;
            b"250 OK\r\n" => Some(250), b"250\r\n" => Some(250), b"250-\n" => Some(250),
            b"250-SIZE 100\r\n" => None, b"250\n" => None, b"2500\n" => None,
            b"001 x\r\n" => Some(0), b"25 \r\n" => None, b"250" => None);
        s.multiline = true;
        expect!(s;
            b"250-SIZE 100\r\n" => Some(Smtp::CONTINUES), b"250 HELP\r\n" => Some(250),
            b"250+x\r\n" => None);
    }

    #[test]
    fn smtp_ehlo_lines_are_responses() {
        let input = b"250-mail.example\r\n250-SIZE 1000\r\n250 AUTH PLAIN\r\n";
        let seen = run(&mut Smtp { multiline: true }, &[input]).unwrap();
        assert_eq!(codes(&seen), [Some(1), Some(1), Some(250)]);
        let seen = run(&mut Smtp { multiline: false }, &[input]).unwrap();
        assert_eq!(codes(&seen), [None, None, Some(250)]);
    }

    #[test]
    fn pop3_check() {
        assert_eq!((Pop3::OK, Pop3::ERR, Pop3::CONTINUES), (43, 45, 42));
        let mut p = Pop3 { capa: false };
        expect!(p;
            b"+OK ready\r\n" => Some(Pop3::OK), b"-ERR no\r\n" => Some(Pop3::ERR),
            b"+ dXNlcg==\r\n" => Some(Pop3::CONTINUES), b"+\r\n" => Some(Pop3::CONTINUES),
            b"-ER\r\n" => None, b"hello\r\n" => None, b".\r\n" => None);
        p.capa = true;
        expect!(p;
            b"+OK list\r\n" => Some(Pop3::CONTINUES), b"USER\r\n" => Some(Pop3::CONTINUES),
            b"-ERR\r\n" => Some(Pop3::ERR), b".\r\n" => Some(Pop3::OK));
    }

    fn imap(tag: &str, untagged: Untagged, plus: Plus) -> Imap {
        Imap {
            tag: tag.into(),
            untagged,
            plus,
        }
    }

    #[test]
    fn imap_tagged() {
        let mut i = imap("A001", Untagged::Ignore, Plus::Unexpected);
        expect!(i;
            b"A001 OK done\r\n" => Some(Imap::OK), b"A001 NO denied\r\n" => Some(Imap::NOT_OK),
            b"A001 BAD\r\n" => Some(Imap::NOT_OK), b"A001 PREAUTH x\r\n" => Some(Imap::PREAUTH),
            b"A0011 OK\r\n" => None, b"A002 OK\r\n" => None, b"A001" => None,
            b"* OK hi\r\n" => None);
        let mut greet = imap("*", Untagged::Ignore, Plus::Unexpected);
        expect!(greet;
            b"* OK ready\r\n" => Some(Imap::OK), b"* PREAUTH in\r\n" => Some(Imap::PREAUTH),
            b"* BYE\r\n" => Some(Imap::NOT_OK));
    }

    #[test]
    fn imap_untagged() {
        let mut i = imap(
            "A001",
            Untagged::Named("CAPABILITY".into()),
            Plus::Unexpected,
        );
        expect!(i;
            b"* CAPABILITY IMAP4rev1\r\n" => Some(Imap::UNTAGGED),
            b"* capability\r\n" => Some(Imap::UNTAGGED), b"* CAPABILITY\n" => None,
            b"* CAPABILITYX\r\n" => None, b"* OK x\r\n" => None);
        let mut i = imap("A002", Untagged::Named("FETCH".into()), Plus::Unexpected);
        expect!(i;
            b"* 12 FETCH (BODY[] {5}\r\n" => Some(Imap::UNTAGGED),
            b"* 12FETCH (x)\r\n" => None, b"* 12 LIST\r\n" => None);
        let mut i = imap("A003", Untagged::Any, Plus::Unexpected);
        expect!(i; b"* 3 EXISTS\r\n" => Some(Imap::UNTAGGED));
        let mut i = imap("A004", Untagged::Ignore, Plus::Unexpected);
        expect!(i; b"* 3 EXISTS\r\n" => None);
    }

    #[test]
    fn imap_list_custom_requests() {
        assert_eq!(Untagged::for_list(None), Untagged::Named("LIST".into()));
        assert_eq!(Untagged::for_list(Some("noop")), Untagged::Any);
        assert_eq!(Untagged::for_list(Some("EXAMINE")), Untagged::Any);
        assert_eq!(Untagged::for_list(Some("store")), Untagged::StoreOrFetch);
        assert_eq!(
            Untagged::for_list(Some("XLIST")),
            Untagged::Named("XLIST".into())
        );
        let mut i = imap("A005", Untagged::for_list(Some("STORE")), Plus::Ignored);
        expect!(i;
            b"* 1 FETCH (FLAGS)\r\n" => Some(Imap::UNTAGGED),
            b"* 1 store x\r\n" => Some(Imap::UNTAGGED), b"* 1 LIST x\r\n" => None);
    }

    #[test]
    fn imap_continuation() {
        let mut i = imap("A001", Untagged::Ignore, Plus::Expected);
        expect!(i;
            b"+ \r\n" => Some(Imap::CONTINUE), b"+\r\n" => Some(Imap::CONTINUE),
            b"+ Z28=\r\n" => Some(Imap::CONTINUE), b"+\n" => None, b"+x\r\n" => None);
        i.plus = Plus::Unexpected;
        expect!(i; b"+ go\r\n" => Some(Imap::UNEXPECTED));
        i.plus = Plus::Ignored;
        expect!(i; b"+ go\r\n" => None);
    }

    #[test]
    fn closures_are_checks() {
        let mut n = 0;
        let mut second = |_: &[u8]| {
            n += 1;
            (n == 2).then_some(7)
        };
        let seen = run(&mut second, &[b"a\nb\nc\n"]).unwrap();
        assert_eq!(codes(&seen), [None, Some(7), None]);
    }

    /// Three FTP responses, one multi-line, bare LF and CR LF mixed, a lone CR inside.
    const STREAM: &[u8] = b"220-hi\r\n220 there\r\n331 pass\n230-a\rb\n 230 c\r\n230 in\r\n";

    fn stream_seen() -> Seen {
        let codes = [None, Some(220), Some(331), None, None, Some(230)];
        let lines = STREAM.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec);
        lines.zip(codes).collect()
    }

    #[test]
    fn lines_end_at_lf_whatever_the_split() {
        assert_eq!(run(&mut Ftp, &[STREAM]).unwrap(), stream_seen());
        let bytes: Vec<&[u8]> = STREAM.chunks(1).collect();
        assert_eq!(run(&mut Ftp, &bytes).unwrap(), stream_seen());
        for at in 0..=STREAM.len() {
            let (a, b) = STREAM.split_at(at);
            let got = run(&mut Ftp, &[a, b]).unwrap();
            assert_eq!(got, stream_seen(), "split at {at}");
        }
    }

    #[test]
    fn pipelined_response_waits_in_the_reader() {
        let mut r = Reader::new();
        assert_eq!(r.feed(b"220 a\r\n331 b\r\n33"), 16);
        let ev = r.next(&mut Ftp).unwrap();
        assert_eq!(ev, end(b"220 a\r\n", 220, 7));
        assert_eq!(r.unread(), b"331 b\r\n33");
        let ev = r.next(&mut Ftp).unwrap();
        assert_eq!(ev, end(b"331 b\r\n", 331, 7));
        assert_eq!(r.next(&mut Ftp).unwrap(), None);
        assert_eq!(r.feed(b"1-x\r\n331 y\r\n"), 12);
        assert_eq!(r.next(&mut Ftp).unwrap(), Some(Event::Line(b"331-x\r\n")));
        let ev = r.next(&mut Ftp).unwrap();
        assert_eq!(ev, end(b"331 y\r\n", 331, 14));
        assert_eq!(r.unread(), b"");
    }

    #[test]
    fn imap_literal_is_consumed_from_unread() {
        let mut i = imap("A003", Untagged::Named("FETCH".into()), Plus::Unexpected);
        let mut r = Reader::new();
        r.feed(b"* 1 FETCH (BODY[] {5}\r\nhel");
        let ev = r.next(&mut i).unwrap().unwrap();
        assert_eq!(ev.line(), b"* 1 FETCH (BODY[] {5}\r\n");
        assert_eq!(r.unread(), b"hel");
        r.consume(3);
        r.feed(b"lo)\r\nA003 OK\r\n");
        r.consume(2);
        assert_eq!(r.next(&mut i).unwrap(), Some(Event::Line(b")\r\n")));
        let ev = r.next(&mut i).unwrap();
        assert_eq!(ev, end(b"A003 OK\r\n", Imap::OK, 12));
    }

    /// A 220 reply of `len` bytes.
    fn long_line(len: usize) -> Vec<u8> {
        [&b"220 "[..], &vec![b'x'; len - 6], b"\r\n"].concat()
    }

    #[test]
    fn line_of_max_line_bytes_passes() {
        let line = long_line(MAX_LINE);
        let seen = run(&mut Ftp, &[&line, b"221 bye\r\n"]).unwrap();
        let bye = (b"221 bye\r\n".to_vec(), Some(221));
        assert_eq!(seen, [(line.clone(), Some(220)), bye]);
        let bytes: Vec<&[u8]> = line.chunks(1).collect();
        assert_eq!(run(&mut Ftp, &bytes).unwrap(), [(line, Some(220))]);
    }

    #[test]
    fn longer_line_is_too_large_however_it_arrives() {
        let line = long_line(MAX_LINE + 1);
        for size in [MAX_LINE + 1, 900, 1] {
            let chunks: Vec<&[u8]> = line.chunks(size).collect();
            let e = run(&mut Ftp, &chunks).unwrap_err();
            assert_eq!((e.code, e.msg.as_str()), (Code::TooLarge, ""));
        }
        // Lines before the long one are all handed out first; memory stays at the limit.
        let mut r = Reader::new();
        let mut input = b"220-a\r\n".to_vec();
        input.extend_from_slice(&vec![b'y'; 200_000]);
        assert_eq!(r.feed(&input), MAX_LINE);
        assert_eq!(r.next(&mut Ftp).unwrap(), Some(Event::Line(b"220-a\r\n")));
        assert_eq!(r.next(&mut Ftp).unwrap(), None);
        assert_eq!(r.feed(&input[MAX_LINE..]), 7);
        assert_eq!(r.feed(&input[MAX_LINE + 7..]), 0);
        assert!(r.buf.capacity() <= MAX_LINE);
        assert_eq!(r.next(&mut Ftp).unwrap_err().code, Code::TooLarge);
        assert_eq!(r.unread(), b"");
    }

    #[test]
    fn command_partial_send() {
        let mut s = Sender::new();
        assert_eq!((s.output(), s.is_pending()), (&b""[..], false));
        s.send("USER", Some(b"anonymous")).unwrap();
        assert_eq!(s.output(), b"USER anonymous\r\n");
        assert!(!s.sent(4));
        assert_eq!((s.output(), s.is_pending()), (&b" anonymous\r\n"[..], true));
        assert_eq!(s.send("PASS", None).unwrap_err().code, Code::SendError);
        assert!(!s.sent(11));
        assert_eq!(s.output(), b"\n");
        assert!(s.sent(1) && s.output().is_empty());
        s.send("USER", Some(b"")).unwrap();
        assert_eq!(s.output(), b"USER \r\n");
        assert!(s.sent(99));
        let rcpt: [&[u8]; 3] = [b"RCPT TO:<", b"a@example.com", b">"];
        s.send_parts(&rcpt).unwrap();
        assert_eq!(s.output(), b"RCPT TO:<a@example.com>\r\n");
        s.sent(25);
        // The buffer is reused: shorter commands after it allocate nothing.
        let (cap, at) = (s.buf.capacity(), s.buf.as_ptr());
        s.send("PWD", None).unwrap();
        assert_eq!(s.output(), b"PWD\r\n");
        s.sent(5);
        s.send("MAIL", Some(b"FROM:<b@example.com>")).unwrap();
        assert_eq!((s.buf.capacity(), s.buf.as_ptr()), (cap, at));
    }

    #[test]
    fn command_with_cr_or_lf_is_refused() {
        let mut s = Sender::new();
        for arg in [&b"a\r\nDELE x"[..], b"a\nDELE x", b"a\rDELE x", b"\n"] {
            let e = s.send("USER", Some(arg)).unwrap_err();
            let want = (Code::BadFunctionArgument, CRLF_REFUSED);
            assert_eq!((e.code, e.msg.as_str()), want);
            assert_eq!(s.output(), b"");
        }
        let e = s.send("NO\rOP", None).unwrap_err();
        assert_eq!(e.code, Code::BadFunctionArgument);
        // NUL and other control bytes pass: they cannot end a line.
        s.send("USER", Some(b"a\0\t")).unwrap();
        assert_eq!(s.output(), b"USER a\0\t\r\n");
    }

    #[test]
    fn command_longer_than_max_line_is_too_large() {
        let mut s = Sender::new();
        let arg = vec![b'a'; MAX_LINE - 7];
        s.send("STOR", Some(&arg)).unwrap();
        assert_eq!(s.output().len(), MAX_LINE);
        s.sent(MAX_LINE);
        let longer = [&arg[..], b"a"].concat();
        let e = s.send("STOR", Some(&longer)).unwrap_err();
        assert_eq!((e.code, e.msg.as_str()), (Code::TooLarge, ""));
        assert_eq!(s.output(), b"");
    }

    #[test]
    fn timeout_arithmetic() {
        let t0 = Instant::now() + Duration::from_secs(10);
        let (s, ms) = (Duration::from_secs, Duration::from_millis);
        // The command went at t0; how long is left at `now`?
        let left = |now, each, overall, bye| time_left(now, t0, each, overall, bye);
        // The default, 120 s, from when the command went.
        assert_eq!(left(t0 + s(20), None, None, false), s(100));
        assert_eq!(left(t0 + s(20), Some(s(0)), None, false), s(100));
        assert_eq!(left(t0 + s(120), None, None, false), s(0));
        assert_eq!(left(t0 + s(500), None, None, false), s(0));
        // CURLOPT_SERVER_RESPONSE_TIMEOUT.
        assert_eq!(left(t0 + ms(2500), Some(s(5)), None, false), ms(2500));
        // The transfer's timeout caps it: started 10 s before the command, 15 s allowed.
        let overall = Some((t0 - s(10), s(15)));
        assert_eq!(left(t0 + s(2), None, overall, false), s(3));
        assert_eq!(left(t0 + s(2), Some(s(1)), overall, false), s(0));
        assert_eq!(left(t0 + s(9), None, overall, false), s(0));
        assert_eq!(left(t0 + s(2), None, Some((t0, s(0))), false), s(118));
        // At disconnect the overall time left caps it, and without one it is zero.
        assert_eq!(left(t0 + s(2), None, None, true), s(0));
        assert_eq!(left(t0 + s(2), None, overall, true), s(3));
        assert_eq!(left(t0 + s(2), Some(s(1)), Some((t0, s(60))), true), s(0));
        // A clock read before the command counts as no time gone.
        assert_eq!(time_left(t0, t0 + s(1), Some(s(5)), None, false), s(5));
    }
}
