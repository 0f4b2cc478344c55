//! The FTP directory listing parser (curl's `ftplistparser.c`), for wildcard downloads: the
//! lines of a `LIST` reply in the Unix `ls -l` format or the Windows NT (DOS) format, fed
//! in pieces, become [`FileInfo`] entries as curl's `curl_fileinfo` has them.
//!
//! The format is decided by the first byte of the listing (a digit: Windows NT) and kept.
//! As in curl, each entry is read a byte at a time by a state machine, a line that does not
//! fit fails the whole listing (`CURLE_FTP_BAD_FILE_LIST`), an entry longer than curl's
//! buffer (10,000 bytes) fails with `CURLE_OUT_OF_MEMORY`, and a `total N` line is accepted
//! only where curl accepts it. Memory is bounded by that per-entry limit and by what the
//! caller keeps of the entries.

use crate::error::Code;

/// curl's `MAX_FTPLIST_BUFFER`: the longest entry line.
pub const MAX_ENTRY: usize = 10_000;

/// `curlfiletype` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u32)]
pub enum FileType {
    #[default]
    File = 0,
    Directory = 1,
    Symlink = 2,
    DeviceBlock = 3,
    DeviceChar = 4,
    NamedPipe = 5,
    Socket = 6,
    Door = 7,
    Unknown = 8,
}

/// `CURLFINFOFLAG_*` bits: which numeric fields are known.
pub mod flag {
    pub const KNOWN_FILENAME: u32 = 1 << 0;
    pub const KNOWN_FILETYPE: u32 = 1 << 1;
    pub const KNOWN_TIME: u32 = 1 << 2;
    pub const KNOWN_PERM: u32 = 1 << 3;
    pub const KNOWN_UID: u32 = 1 << 4;
    pub const KNOWN_GID: u32 = 1 << 5;
    pub const KNOWN_SIZE: u32 = 1 << 6;
    pub const KNOWN_HLINKCOUNT: u32 = 1 << 7;
}

/// One entry of the listing (curl's `curl_fileinfo` and the strings it points into).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileInfo {
    pub filename: Vec<u8>,
    pub filetype: FileType,
    /// The permission bits (`perm`), with set-uid, set-gid and sticky.
    pub perm: u32,
    pub hardlinks: i64,
    pub size: i64,
    /// `CURLFINFOFLAG_*`.
    pub flags: u32,
    /// The fields as the line wrote them.
    pub time: Vec<u8>,
    pub perm_text: Option<Vec<u8>>,
    pub user: Option<Vec<u8>>,
    pub group: Option<Vec<u8>>,
    /// A symlink's target.
    pub target: Option<Vec<u8>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Os {
    Unknown,
    Unix,
    WinNt,
}

/// Where the Unix parser is (curl's `pl_unix_mainstate` with its sub-states).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unix {
    TotalInit,
    TotalReading,
    FileType,
    Permission,
    HlinksPre,
    HlinksNumber,
    UserPre,
    User,
    GroupPre,
    Group,
    SizePre,
    SizeNumber,
    TimePre1,
    Time1,
    TimePre2,
    Time2,
    TimePre3,
    Time3,
    NamePre,
    Name,
    NameCr,
    LinkPre,
    LinkName,
    LinkArrow1,
    LinkArrow2,
    LinkArrow3,
    LinkTargetPre,
    LinkTarget,
    LinkTargetCr,
}

/// Where the Windows NT parser is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Nt {
    Date,
    TimePre,
    Time,
    DirOrSizePre,
    DirOrSize,
    NamePre,
    Name,
    NameCr,
}

/// The offsets of an entry's fields in its line buffer (curl's `offsets`; 0: none).
#[derive(Clone, Copy, Debug, Default)]
struct Offsets {
    filename: usize,
    user: usize,
    group: usize,
    time: usize,
    perm: usize,
    target: usize,
}

/// The listing parser: [`Parser::feed`] it the listing's bytes as they come.
#[derive(Debug)]
pub struct Parser {
    os: Os,
    unix: Unix,
    nt: Nt,
    /// The entry being read: its bytes, with each field ended by a NUL as curl ends them.
    buf: Vec<u8>,
    /// The entry's numbers and type so far.
    cur: FileInfo,
    item_length: usize,
    item_offset: usize,
    offsets: Offsets,
    /// The first error; every later byte is ignored (curl's `parser->error`).
    error: Option<Code>,
}

impl Default for Parser {
    fn default() -> Parser {
        Parser::new()
    }
}

fn is_alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// curl's `ftp_pl_get_permission`; None when malformed.
fn permission(s: &[u8]) -> Option<u32> {
    let mut p = 0u32;
    let mut bad = false;
    let mut rw = |c: u8, want: u8, bit: u32| {
        if c == want {
            p |= 1 << bit;
        } else if c != b'-' {
            bad = true;
        }
    };
    rw(s[0], b'r', 8);
    rw(s[1], b'w', 7);
    rw(s[3], b'r', 5);
    rw(s[4], b'w', 4);
    rw(s[6], b'r', 2);
    rw(s[7], b'w', 1);
    // The execute places, with set-uid (s/S), set-gid (s/S) and sticky (t/T).
    let mut x = |c: u8, exec: u32, special: u32, lower: u8, upper: u8| match c {
        b'x' => p |= 1 << exec,
        c if c == lower => p |= (1 << exec) | (1 << special),
        c if c == upper => p |= 1 << special,
        b'-' => {}
        _ => bad = true,
    };
    x(s[2], 6, 11, b's', b'S');
    x(s[5], 3, 10, b's', b'S');
    x(s[8], 0, 9, b't', b'T');
    (!bad).then_some(p)
}

fn unix_filetype(c: u8) -> Option<FileType> {
    Some(match c {
        b'-' => FileType::File,
        b'd' => FileType::Directory,
        b'l' => FileType::Symlink,
        b'p' => FileType::NamedPipe,
        b's' => FileType::Socket,
        b'c' => FileType::DeviceChar,
        b'b' => FileType::DeviceBlock,
        b'D' => FileType::Door,
        _ => return None,
    })
}

/// The decimal number at the start of `s` (curl's `curlx_str_number` with `max`), None
/// when there is none or it is over `max`.
fn number(s: &[u8], max: i64) -> Option<(i64, usize)> {
    let mut n: i64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n = n.checked_mul(10)?.checked_add(i64::from(s[i] - b'0'))?;
        if n > max {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

/// curl's `curlx_str_numblanks`: blanks, then a number.
fn number_blanks(s: &[u8]) -> Option<(i64, usize)> {
    let blanks = s.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    let (n, used) = number(&s[blanks..], i64::MAX)?;
    Some((n, blanks + used))
}

/// The NUL-ended field at `at`.
fn field(buf: &[u8], at: usize) -> Vec<u8> {
    let rest = buf.get(at..).unwrap_or_default();
    let end = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
    rest[..end].to_vec()
}

impl Parser {
    pub fn new() -> Parser {
        Parser {
            os: Os::Unknown,
            unix: Unix::TotalInit,
            nt: Nt::Date,
            buf: Vec::new(),
            cur: FileInfo::default(),
            item_length: 0,
            item_offset: 0,
            offsets: Offsets::default(),
            error: None,
        }
    }

    /// The error the listing failed with, if it did.
    pub fn error(&self) -> Option<Code> {
        self.error
    }

    /// Feed listing bytes; every complete entry is handed to `out`. After an error the
    /// rest is ignored (see [`Parser::error`]).
    pub fn feed(&mut self, data: &[u8], out: &mut dyn FnMut(FileInfo)) {
        if self.error.is_some() {
            return;
        }
        if self.os == Os::Unknown {
            match data.first() {
                Some(c) if c.is_ascii_digit() => self.os = Os::WinNt,
                Some(_) => self.os = Os::Unix,
                None => return,
            }
        }
        for &c in data {
            // curl's buffer keeps room for its terminating NUL.
            if self.buf.len() + 1 >= MAX_ENTRY {
                self.fail(Code::OutOfMemory);
                return;
            }
            self.buf.push(c);
            let r = match self.os {
                Os::Unix => self.unix_byte(c, out),
                _ => self.nt_byte(c, out),
            };
            if let Err(e) = r {
                self.fail(e);
                return;
            }
        }
    }

    fn fail(&mut self, e: Code) {
        self.error = Some(e);
        self.buf = Vec::new();
    }

    /// The entry is complete: hand it on and start the next.
    fn emit(&mut self, out: &mut dyn FnMut(FileInfo)) {
        let o = self.offsets;
        let buf = std::mem::take(&mut self.buf);
        let mut f = std::mem::take(&mut self.cur);
        let opt = |at: usize| (at != 0).then(|| field(&buf, at));
        f.filename = field(&buf, o.filename);
        f.time = field(&buf, o.time);
        f.perm_text = opt(o.perm);
        f.user = opt(o.user);
        f.group = opt(o.group);
        f.target = opt(o.target);
        self.offsets = Offsets::default();
        self.item_length = 0;
        self.item_offset = 0;
        out(f);
    }

    /// The NUL that ends the item at `offset + length - 1` (curl writes it over the byte
    /// that ended the item).
    fn end_item(&mut self) {
        let at = self.item_offset + self.item_length - 1;
        if let Some(b) = self.buf.get_mut(at) {
            *b = 0;
        }
    }

    fn unix_byte(&mut self, c: u8, out: &mut dyn FnMut(FileInfo)) -> Result<(), Code> {
        use Unix::*;
        let bad = Code::FtpBadFileList;
        let len = self.buf.len();
        match self.unix {
            TotalInit => {
                if c == b't' {
                    self.unix = TotalReading;
                    self.item_length += 1;
                } else {
                    self.unix = FileType;
                    return self.unix_byte_filetype(c);
                }
            }
            TotalReading => {
                self.item_length += 1;
                if c == b'\r' {
                    self.item_length -= 1;
                    self.buf.pop();
                } else if c == b'\n' {
                    let line = &self.buf[..self.item_length - 1];
                    let Some(rest) = line.strip_prefix(b"total ") else {
                        return Err(bad);
                    };
                    let blanks = rest
                        .iter()
                        .take_while(|&&c| c == b' ' || c == b'\t')
                        .count();
                    let digits = rest[blanks..]
                        .iter()
                        .take_while(|c| c.is_ascii_digit())
                        .count();
                    if blanks + digits != rest.len() {
                        return Err(bad);
                    }
                    self.unix = FileType;
                    self.buf.clear();
                    // curl goes on with this byte as the next entry's file type, which a
                    // line end is not.
                    return self.unix_byte_filetype(c);
                }
            }
            FileType => return self.unix_byte_filetype(c),
            Permission => {
                self.item_length += 1;
                if self.item_length <= 9 && !b"rwx-tTsS".contains(&c) {
                    return Err(bad);
                } else if self.item_length == 10 {
                    if c != b' ' {
                        return Err(bad);
                    }
                    self.buf[10] = 0;
                    let perm = permission(&self.buf[self.item_offset..10]).ok_or(bad)?;
                    self.cur.flags |= flag::KNOWN_PERM;
                    self.cur.perm = perm;
                    self.offsets.perm = self.item_offset;
                    self.item_length = 0;
                    self.unix = HlinksPre;
                }
            }
            HlinksPre => {
                if c != b' ' {
                    if c.is_ascii_digit() && len > 0 {
                        self.item_offset = len - 1;
                        self.item_length = 1;
                        self.unix = HlinksNumber;
                    } else {
                        return Err(bad);
                    }
                }
            }
            HlinksNumber => {
                self.item_length += 1;
                if c == b' ' {
                    self.end_item();
                    if let Some((n, _)) = number(&self.buf[self.item_offset..], i64::MAX) {
                        self.cur.flags |= flag::KNOWN_HLINKCOUNT;
                        self.cur.hardlinks = n;
                    }
                    self.item_length = 0;
                    self.item_offset = 0;
                    self.unix = UserPre;
                } else if !c.is_ascii_digit() {
                    return Err(bad);
                }
            }
            UserPre | GroupPre | NamePre | LinkPre => {
                if c != b' ' && len > 0 {
                    self.item_offset = len - 1;
                    self.item_length = 1;
                    self.unix = match self.unix {
                        UserPre => User,
                        GroupPre => Group,
                        NamePre => Name,
                        _ => LinkName,
                    };
                }
            }
            User | Group => {
                self.item_length += 1;
                if c == b' ' {
                    self.end_item();
                    if self.unix == User {
                        self.offsets.user = self.item_offset;
                        self.unix = GroupPre;
                    } else {
                        self.offsets.group = self.item_offset;
                        self.unix = SizePre;
                    }
                    self.item_offset = 0;
                    self.item_length = 0;
                }
            }
            SizePre => {
                if c != b' ' {
                    if c.is_ascii_digit() && len > 0 {
                        self.item_offset = len - 1;
                        self.item_length = 1;
                        self.unix = SizeNumber;
                    } else {
                        return Err(bad);
                    }
                }
            }
            SizeNumber => {
                self.item_length += 1;
                if c == b' ' {
                    self.end_item();
                    let item = field(&self.buf, self.item_offset);
                    if let Some((n, used)) = number_blanks(&item) {
                        if used == item.len() && n != i64::MAX {
                            self.cur.flags |= flag::KNOWN_SIZE;
                            self.cur.size = n;
                        }
                        self.item_length = 0;
                        self.item_offset = 0;
                        self.unix = TimePre1;
                    }
                } else if !c.is_ascii_digit() {
                    return Err(bad);
                }
            }
            TimePre1 => {
                if c != b' ' {
                    if is_alnum(c) && len > 0 {
                        self.item_offset = len - 1;
                        self.item_length = 1;
                        self.unix = Time1;
                    } else {
                        return Err(bad);
                    }
                }
            }
            Time1 | Time2 => {
                self.item_length += 1;
                if c == b' ' {
                    self.unix = if self.unix == Time1 {
                        TimePre2
                    } else {
                        TimePre3
                    };
                } else if !is_alnum(c) && c != b'.' {
                    return Err(bad);
                }
            }
            TimePre2 | TimePre3 => {
                self.item_length += 1;
                if c != b' ' {
                    if is_alnum(c) {
                        self.unix = if self.unix == TimePre2 { Time2 } else { Time3 };
                    } else {
                        return Err(bad);
                    }
                }
            }
            Time3 => {
                self.item_length += 1;
                if c == b' ' {
                    self.end_item();
                    self.offsets.time = self.item_offset;
                    self.unix = if self.cur.filetype == self::FileType::Symlink {
                        LinkPre
                    } else {
                        NamePre
                    };
                } else if !is_alnum(c) && c != b'.' && c != b':' {
                    return Err(bad);
                }
            }
            Name => {
                self.item_length += 1;
                if c == b'\r' {
                    self.unix = NameCr;
                } else if c == b'\n' {
                    self.name_done(out);
                }
            }
            NameCr => {
                if c == b'\n' {
                    self.name_done(out);
                } else {
                    return Err(bad);
                }
            }
            LinkName => {
                self.item_length += 1;
                if c == b' ' {
                    self.unix = LinkArrow1;
                } else if c == b'\r' || c == b'\n' {
                    return Err(bad);
                }
            }
            LinkArrow1 | LinkArrow2 => {
                self.item_length += 1;
                let want = if self.unix == LinkArrow1 { b'-' } else { b'>' };
                if c == want {
                    self.unix = if self.unix == LinkArrow1 {
                        LinkArrow2
                    } else {
                        LinkArrow3
                    };
                } else if c == b'\r' || c == b'\n' {
                    return Err(bad);
                } else {
                    self.unix = LinkName;
                }
            }
            LinkArrow3 => {
                self.item_length += 1;
                if c == b' ' {
                    self.unix = LinkTargetPre;
                    // The name ends before " -> ".
                    let at = self.item_offset + self.item_length - 4;
                    if let Some(b) = self.buf.get_mut(at) {
                        *b = 0;
                    }
                    self.offsets.filename = self.item_offset;
                    self.item_length = 0;
                    self.item_offset = 0;
                } else if c == b'\r' || c == b'\n' {
                    return Err(bad);
                } else {
                    self.unix = LinkName;
                }
            }
            LinkTargetPre => {
                if c != b'\r' && c != b'\n' && len > 0 {
                    self.unix = LinkTarget;
                    self.item_offset = len - 1;
                    self.item_length = 1;
                } else {
                    return Err(bad);
                }
            }
            LinkTarget => {
                self.item_length += 1;
                if c == b'\r' {
                    self.unix = LinkTargetCr;
                } else if c == b'\n' {
                    self.target_done(out);
                }
            }
            LinkTargetCr => {
                if c == b'\n' {
                    self.target_done(out);
                } else {
                    return Err(bad);
                }
            }
        }
        Ok(())
    }

    fn unix_byte_filetype(&mut self, c: u8) -> Result<(), Code> {
        self.cur.filetype = unix_filetype(c).ok_or(Code::FtpBadFileList)?;
        self.unix = Unix::Permission;
        self.item_length = 0;
        self.item_offset = 1;
        Ok(())
    }

    fn name_done(&mut self, out: &mut dyn FnMut(FileInfo)) {
        self.end_item();
        self.offsets.filename = self.item_offset;
        self.unix = Unix::FileType;
        self.emit(out);
    }

    fn target_done(&mut self, out: &mut dyn FnMut(FileInfo)) {
        self.end_item();
        self.offsets.target = self.item_offset;
        self.unix = Unix::FileType;
        self.emit(out);
    }

    fn nt_byte(&mut self, c: u8, out: &mut dyn FnMut(FileInfo)) -> Result<(), Code> {
        let bad = Code::FtpBadFileList;
        let len = self.buf.len();
        match self.nt {
            Nt::Date => {
                self.item_length += 1;
                if self.item_length < 9 {
                    if !b"0123456789-".contains(&c) {
                        return Err(bad);
                    }
                } else if self.item_length == 9 {
                    if c == b' ' {
                        self.nt = Nt::TimePre;
                    } else {
                        return Err(bad);
                    }
                } else {
                    return Err(bad);
                }
            }
            Nt::TimePre => {
                self.item_length += 1;
                if c != b' ' && c != b'\t' {
                    self.nt = Nt::Time;
                }
            }
            Nt::Time => {
                self.item_length += 1;
                if c == b' ' {
                    self.offsets.time = self.item_offset;
                    self.end_item();
                    self.nt = Nt::DirOrSizePre;
                    self.item_length = 0;
                } else if !b"APM0123456789:".contains(&c) {
                    return Err(bad);
                }
            }
            Nt::DirOrSizePre => {
                if c != b' ' && len > 0 {
                    self.item_offset = len - 1;
                    self.item_length = 1;
                    self.nt = Nt::DirOrSize;
                }
            }
            Nt::DirOrSize => {
                self.item_length += 1;
                if c == b' ' {
                    self.end_item();
                    let item = field(&self.buf, self.item_offset);
                    if item == b"<DIR>" {
                        self.cur.filetype = FileType::Directory;
                        self.cur.size = 0;
                    } else {
                        let (n, _) = number_blanks(&item).ok_or(bad)?;
                        self.cur.size = n;
                        self.cur.filetype = FileType::File;
                    }
                    self.cur.flags |= flag::KNOWN_SIZE;
                    self.item_length = 0;
                    self.nt = Nt::NamePre;
                }
            }
            Nt::NamePre => {
                if c != b' ' && len > 0 {
                    self.item_offset = len - 1;
                    self.item_length = 1;
                    self.nt = Nt::Name;
                }
            }
            Nt::Name => {
                self.item_length += 1;
                if len == 0 {
                    return Err(bad);
                }
                if c == b'\r' {
                    self.nt = Nt::NameCr;
                    self.buf[len - 1] = 0;
                } else if c == b'\n' {
                    self.offsets.filename = self.item_offset;
                    self.buf[len - 1] = 0;
                    self.nt = Nt::Date;
                    self.emit(out);
                }
            }
            Nt::NameCr => {
                if c == b'\n' {
                    self.offsets.filename = self.item_offset;
                    self.nt = Nt::Date;
                    self.emit(out);
                } else {
                    return Err(bad);
                }
            }
        }
        Ok(())
    }
}

/// Parse a whole listing: its entries, or the error it failed with (with the entries
/// before it, as curl keeps them).
pub fn parse_all(listing: &[u8]) -> (Vec<FileInfo>, Option<Code>) {
    let mut p = Parser::new();
    let mut all = Vec::new();
    p.feed(listing, &mut |f| all.push(f));
    (all, p.error())
}

#[cfg(test)]
mod tests;
