//! `oxcurl-memanalyze [-v] [-t] [-l] FILE`: reads a memdebug log (written by oxcurl with
//! `OXCURL_MEMDEBUG=FILE`, or by a memdebug build of curl) and prints what curl's
//! `tests/memanalyze.pl` prints: leaked blocks with where they were allocated, open sockets,
//! FILE handles and address lists, then the summary (`Mallocs: N` ... `Maximum allocated: N`).
//!
//! The summary is always printed (curl's script needs `-v` for it; `-v` is accepted). `-t`
//! traces every allocation and free, `-l` prints only the line where a memory limit was hit.
//! Leaks are listed in the order they were allocated.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};

#[derive(Default)]
struct Analysis {
    mallocs: u64,
    callocs: u64,
    reallocs: u64,
    strdups: u64,
    wcsdups: u64,
    frees: u64,
    sends: u64,
    recvs: u64,
    sockets: u64,
    total: i64,
    max: i64,
    /// Live blocks: address -> (size, where, allocation order).
    live: HashMap<String, (i64, String, u64)>,
    /// Freed addresses and where they were freed (for double frees).
    freed: HashMap<String, String>,
    seq: u64,
    fds: HashMap<String, String>,
    fopens: HashMap<String, String>,
    addrinfos: HashMap<String, String>,
    out: Vec<String>,
    trace: bool,
}

/// `0x1f` or `(nil)`: the hex digits, or None for a null pointer.
fn ptr(s: &str) -> Option<Option<&str>> {
    if s == "(nil)" {
        return Some(None);
    }
    let h = s.strip_prefix("0x")?;
    h.bytes().all(|b| b.is_ascii_hexdigit()).then_some(Some(h))
}

/// `NAME(ARGS) = RESULT` -> (args, result)
fn call<'a>(f: &'a str, name: &str) -> Option<(&'a str, Option<&'a str>)> {
    let rest = f.strip_prefix(name)?.strip_prefix('(')?;
    let close = rest.find(')')?;
    let args = &rest[..close];
    let tail = &rest[close + 1..];
    let res = tail.rsplit_once(" = ").map(|(_, r)| r.trim());
    Some((args, res))
}

impl Analysis {
    fn newtotal(&mut self) {
        self.max = self.max.max(self.total);
    }

    fn add(&mut self, addr: &str, size: i64, at: &str) {
        if self.live.contains_key(addr) {
            self.out.push(format!(
                "Mixed debug compile ({at}), rebuild curl now\nWe think {} bytes are already allocated at that memory address: {addr}!",
                self.live[addr].0
            ));
        }
        self.seq += 1;
        self.live
            .insert(addr.to_string(), (size, at.to_string(), self.seq));
        self.freed.remove(addr);
        self.total += size;
        self.newtotal();
    }

    fn mem(&mut self, at: &str, f: &str, line: &str) {
        if let Some((a, _)) = call(f, "free") {
            match ptr(a) {
                Some(None) => {}
                Some(Some(addr)) => match self.live.remove(addr) {
                    Some((size, from, _)) => {
                        self.total -= size;
                        if self.trace {
                            self.out
                                .push(format!("FREE: malloc at {from} is freed again at {at}"));
                            self.out.push(format!(
                                "FREE: {size} bytes freed, left allocated: {} bytes",
                                self.total
                            ));
                        }
                        self.frees += 1;
                        self.freed.insert(addr.to_string(), at.to_string());
                    }
                    None => match self.freed.get(addr) {
                        Some(prev) => {
                            self.out
                                .push(format!("FREE ERROR: Memory freed twice: {line}"));
                            self.out
                                .push(format!("FREE ERROR: Previously freed at: {prev}"));
                        }
                        None => self
                            .out
                            .push(format!("FREE ERROR: No memory allocated: {line}")),
                    },
                },
                None => self.out.push(format!("Not recognized input line: {f}")),
            }
            return;
        }
        if let Some((a, Some(r))) = call(f, "malloc") {
            if let (Ok(size), Some(Some(addr))) = (a.parse::<i64>(), ptr(r)) {
                self.add(addr, size, at);
                if self.trace {
                    self.out.push(format!(
                        "MALLOC: malloc({size}) at {at} makes totally {} bytes",
                        self.total
                    ));
                }
                self.mallocs += 1;
                return;
            }
        }
        if let Some((a, Some(r))) = call(f, "calloc") {
            let mut it = a.split(',').map(|v| v.trim().parse::<i64>());
            if let (Some(Ok(n)), Some(Ok(m)), Some(Some(addr))) = (it.next(), it.next(), ptr(r)) {
                self.add(addr, n * m, at);
                if self.trace {
                    self.out.push(format!(
                        "CALLOC: calloc({n},{m}) at {at} makes totally {} bytes",
                        self.total
                    ));
                }
                self.callocs += 1;
                return;
            }
        }
        if let Some((a, Some(r))) = call(f, "realloc") {
            let parts = a.split_once(", ");
            if let Some((old, size)) = parts {
                if let (Some(old), Ok(size), Some(Some(new))) = (ptr(old), size.parse(), ptr(r)) {
                    let prev = old.and_then(|o| self.live.remove(o));
                    let old_size = prev.as_ref().map_or(0, |p| p.0);
                    self.total -= old_size;
                    if self.trace {
                        self.out.push(format!(
                            "REALLOC: {old_size} less bytes and {size} more bytes ({at})"
                        ));
                    }
                    // The block keeps its place in the allocation order.
                    let seq = prev.map(|p| p.2).unwrap_or_else(|| {
                        self.seq += 1;
                        self.seq
                    });
                    self.live
                        .insert(new.to_string(), (size, at.to_string(), seq));
                    self.freed.remove(new);
                    self.total += size;
                    self.newtotal();
                    self.reallocs += 1;
                    return;
                }
            }
        }
        for (name, wide) in [("strdup", false), ("wcsdup", true)] {
            // strdup(0xa5b50) (8) = 0xdf7c0
            if let Some((_, Some(r))) = call(f, name) {
                let size = f
                    .split_once(") (")
                    .and_then(|(_, t)| t.split_once(')'))
                    .and_then(|(n, _)| n.parse::<i64>().ok());
                if let (Some(size), Some(Some(addr))) = (size, ptr(r)) {
                    self.add(addr, size, at);
                    if wide {
                        self.wcsdups += 1;
                    } else {
                        self.strdups += 1;
                    }
                    return;
                }
            }
        }
        self.out.push(format!("Not recognized input line: {f}"));
    }

    fn fd(&mut self, at: &str, f: &str, line: &str) {
        if let Some((_, Some(r))) = call(f, "socket") {
            self.fds.insert(r.to_string(), at.to_string());
            self.sockets += 1;
        } else if let Some((_, Some(r))) = call(f, "socketpair") {
            for fd in r.split_whitespace() {
                self.fds.insert(fd.to_string(), at.to_string());
            }
        } else if let Some((_, Some(r))) = call(f, "accept") {
            self.fds.insert(r.to_string(), at.to_string());
        } else if let Some((a, _)) = call(f, "sclose") {
            if self.fds.remove(a).is_none() {
                self.out.push(format!("Close without open: {line}"));
            }
        }
    }

    fn file(&mut self, at: &str, f: &str, line: &str) {
        if f.starts_with("fopen(") || f.starts_with("fdopen(") {
            if let Some((_, r)) = f.rsplit_once(" = ") {
                if let Some(Some(h)) = ptr(r) {
                    self.fopens.insert(h.to_string(), at.to_string());
                }
            }
        } else if let Some((a, _)) = call(f, "fclose") {
            if let Some(Some(h)) = ptr(a) {
                if self.fopens.remove(h).is_none() {
                    self.out.push(format!("fclose() without fopen(): {line}"));
                }
            }
        }
    }

    fn addr(&mut self, at: &str, f: &str, line: &str) {
        if let Some((_, Some(r))) = call(f, "getaddrinfo") {
            if let Some(Some(h)) = ptr(r) {
                self.addrinfos.insert(h.to_string(), at.to_string());
            }
        } else if let Some((a, _)) = call(f, "freeaddrinfo") {
            if let Some(Some(h)) = ptr(a) {
                if self.addrinfos.remove(h).is_none() {
                    self.out
                        .push(format!("freeaddrinfo() without getaddrinfo(): {line}"));
                }
            }
        }
    }

    fn line(&mut self, line: &str) {
        let Some((kind, rest)) = line.split_once(' ') else {
            self.out.push(format!("Not recognized prefix line: {line}"));
            return;
        };
        let Some((at, f)) = rest.split_once(' ') else {
            self.out.push(format!("Not recognized prefix line: {line}"));
            return;
        };
        match kind {
            "MEM" => self.mem(at, f, line),
            "FD" => self.fd(at, f, line),
            "FILE" => self.file(at, f, line),
            "ADDR" => self.addr(at, f, line),
            "SEND" => self.sends += 1,
            "RECV" => self.recvs += 1,
            "GETNAME" | "LIMIT" => {}
            _ => self.out.push(format!("Not recognized prefix line: {line}")),
        }
    }

    fn report(&mut self) {
        if self.total != 0 {
            self.out.push(format!(
                "Leak detected: memory still allocated: {} bytes",
                self.total
            ));
            let mut leaks: Vec<_> = self.live.iter().filter(|(_, v)| v.0 > 0).collect();
            leaks.sort_by_key(|(_, v)| v.2);
            let lines: Vec<String> = leaks
                .iter()
                .map(|(a, (size, at, _))| {
                    format!("At {a}, there's {size} bytes.\n allocated by {at}")
                })
                .collect();
            self.out.extend(lines);
        }
        let mut fds: Vec<_> = self.fds.values().cloned().collect();
        fds.sort();
        for at in fds {
            self.out
                .push(format!("Open file descriptor created at {at}"));
        }
        if !self.fopens.is_empty() {
            self.out.push("Open FILE handles left at:".into());
            for at in self.fopens.values() {
                self.out.push(format!("fopen() called at {at}"));
            }
        }
        if !self.addrinfos.is_empty() {
            self.out
                .push("IPv6-style name resolve data left at:".into());
            for at in self.addrinfos.values() {
                self.out.push(format!("getaddrinfo() called at {at}"));
            }
        }
        let allocs = self.mallocs + self.callocs + self.reallocs + self.strdups + self.wcsdups;
        self.out.push(format!(
            "Mallocs: {}\nReallocs: {}\nCallocs: {}\nStrdups:  {}\nWcsdups:  {}\nFrees: {}\nSends: {}\nRecvs: {}\nSockets: {}\nAllocations: {}\nOperations: {}\nMaximum allocated: {}",
            self.mallocs,
            self.reallocs,
            self.callocs,
            self.strdups,
            self.wcsdups,
            self.frees,
            self.sends,
            self.recvs,
            self.sockets,
            allocs,
            allocs + self.sends + self.recvs + self.sockets,
            self.max
        ));
    }
}

fn usage() -> ! {
    eprint!(
        "Usage: oxcurl-memanalyze [options] <dump file>\nOptions:\n -l  memlimit failure displayed\n -v  Verbose (the summary is always shown)\n -t  Trace\n"
    );
    std::process::exit(2)
}

fn main() {
    let mut a = Analysis::default();
    let mut showlimit = false;
    let mut file = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "-v" => {}
            "-t" => a.trace = true,
            "-l" => showlimit = true,
            _ if file.is_none() => file = Some(arg),
            _ => usage(),
        }
    }
    let Some(file) = file else { usage() };
    let f = match std::fs::File::open(&file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("oxcurl-memanalyze: {file}: {e}");
            std::process::exit(1);
        }
    };
    let mut stdout = std::io::stdout().lock();
    for line in BufReader::new(f).split(b'\n') {
        let Ok(line) = line else { break };
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches('\r');
        if showlimit {
            if line.starts_with("LIMIT") && line.ends_with("memlimit") {
                let _ = writeln!(stdout, "{line}");
                return;
            }
            continue;
        }
        a.line(line);
    }
    if showlimit {
        return;
    }
    a.report();
    for l in &a.out {
        let _ = writeln!(stdout, "{l}");
    }
}
