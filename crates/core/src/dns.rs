//! Name resolution: getaddrinfo on worker threads, completion signalled through a socket pair
//! that the multi watches like any other socket (so an application-owned event loop sees it
//! too), plus curl's DNS cache and `--resolve` entries.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Most worker threads the resolver starts.
const MAX_WORKERS: usize = 4;

type Answer = io::Result<Vec<SocketAddr>>;

/// Answers by lower-case host and port, with when they were stored.
pub type DnsCache = HashMap<(String, u16), (Vec<SocketAddr>, Instant)>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<(u64, String, u16)>,
    done: Vec<(u64, Answer)>,
    idle: usize,
    workers: usize,
    shutdown: bool,
}

struct Shared {
    q: Mutex<Queue>,
    cv: Condvar,
    wake_tx: UnixStream,
}

/// The multi's resolver.
pub struct Resolver {
    shared: Arc<Shared>,
    wake_rx: UnixStream,
    next_id: u64,
    /// Jobs started whose answers were not collected yet: while none are, there is nothing
    /// to drain from the wake socket.
    in_flight: usize,
    results: HashMap<u64, Answer>,
    cache: DnsCache,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("pending", &self.results.len())
            .finish()
    }
}

impl Resolver {
    pub fn new() -> io::Result<Resolver> {
        let (wake_tx, wake_rx) = UnixStream::pair()?;
        wake_rx.set_nonblocking(true)?;
        wake_tx.set_nonblocking(true)?;
        Ok(Resolver {
            shared: Arc::new(Shared {
                q: Mutex::new(Queue::default()),
                cv: Condvar::new(),
                wake_tx,
            }),
            wake_rx,
            next_id: 1,
            in_flight: 0,
            results: HashMap::new(),
            cache: HashMap::new(),
        })
    }

    /// The socket that becomes readable when an answer is ready.
    pub fn wake_socket(&self) -> &UnixStream {
        &self.wake_rx
    }

    /// Look in the DNS cache.
    pub fn cached(
        &mut self,
        host: &str,
        port: u16,
        ttl: Option<Duration>,
        now: Instant,
    ) -> Option<Vec<SocketAddr>> {
        let key = (host.to_ascii_lowercase(), port);
        let (addrs, at) = self.cache.get(&key)?;
        if let Some(ttl) = ttl {
            if now.duration_since(*at) > ttl {
                self.cache.remove(&key);
                return None;
            }
        }
        Some(addrs.clone())
    }

    /// Whether the cache has an entry for `host` and `port`, fresh or not.
    pub fn contains(&self, host: &str, port: u16) -> bool {
        self.cache.contains_key(&(host.to_ascii_lowercase(), port))
    }

    /// Drop the entry for `host` and `port` (`--resolve -host:port`).
    pub fn remove(&mut self, host: &str, port: u16) {
        self.cache.remove(&(host.to_ascii_lowercase(), port));
    }

    /// Add or replace a cache entry (answers and `--resolve`).
    pub fn insert(&mut self, host: &str, port: u16, addrs: Vec<SocketAddr>, now: Instant) {
        self.cache
            .insert((host.to_ascii_lowercase(), port), (addrs, now));
    }

    /// Exchange the cache with another (a share's, while a transfer using it runs).
    pub(crate) fn swap_cache(&mut self, other: &mut DnsCache) {
        std::mem::swap(&mut self.cache, other);
    }

    /// Start resolving on a worker; returns a job id to `take` later.
    pub fn start(&mut self, host: &str, port: u16) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.in_flight += 1;
        let mut q = self.shared.q.lock().unwrap_or_else(|e| e.into_inner());
        q.jobs.push_back((id, host.to_string(), port));
        if q.idle == 0 && q.workers < MAX_WORKERS {
            q.workers += 1;
            let shared = Arc::clone(&self.shared);
            let spawned = std::thread::Builder::new()
                .name("oxcurl-dns".into())
                .spawn(move || worker(shared));
            if spawned.is_err() {
                q.workers -= 1;
            }
        }
        drop(q);
        self.shared.cv.notify_one();
        id
    }

    /// Drain the wake socket and collect finished answers.
    pub fn poll_completions(&mut self) {
        let mut buf = [0u8; 64];
        while let Ok(n) = (&self.wake_rx).read(&mut buf) {
            if n == 0 {
                break;
            }
        }
        let mut q = self.shared.q.lock().unwrap_or_else(|e| e.into_inner());
        for (id, ans) in q.done.drain(..) {
            self.in_flight = self.in_flight.saturating_sub(1);
            self.results.insert(id, ans);
        }
    }

    /// Whether a lookup is running or its answer waits to be collected.
    pub fn busy(&self) -> bool {
        self.in_flight > 0
    }

    /// The answer to job `id`, once ready.
    pub fn take(&mut self, id: u64) -> Option<Answer> {
        self.results.remove(&id)
    }

    /// Forget a job whose transfer went away.
    pub fn cancel(&mut self, id: u64) {
        self.results.remove(&id);
        let mut q = self.shared.q.lock().unwrap_or_else(|e| e.into_inner());
        let queued = q.jobs.len();
        q.jobs.retain(|j| j.0 != id);
        // A job no worker took yet never answers.
        self.in_flight = self.in_flight.saturating_sub(queued - q.jobs.len());
    }
}

impl Drop for Resolver {
    fn drop(&mut self) {
        let mut q = self.shared.q.lock().unwrap_or_else(|e| e.into_inner());
        q.shutdown = true;
        drop(q);
        self.shared.cv.notify_all();
    }
}

fn worker(shared: Arc<Shared>) {
    loop {
        let job = {
            let mut q = shared.q.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if q.shutdown {
                    q.workers -= 1;
                    return;
                }
                if let Some(j) = q.jobs.pop_front() {
                    break j;
                }
                q.idle += 1;
                q = shared.cv.wait(q).unwrap_or_else(|e| e.into_inner());
                q.idle -= 1;
            }
        };
        let (id, host, port) = job;
        let ans = (host.as_str(), port)
            .to_socket_addrs()
            .map(|it| it.collect::<Vec<_>>());
        let mut q = shared.q.lock().unwrap_or_else(|e| e.into_inner());
        q.done.push((id, ans));
        drop(q);
        let _ = (&shared.wake_tx).write(&[1]);
    }
}

/// curl resolves "localhost" and "*.localhost" itself, to the loopback addresses.
pub fn localhost_addrs(host: &str, port: u16) -> Option<Vec<SocketAddr>> {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    if h == "localhost" || h.ends_with(".localhost") {
        Some(vec![
            SocketAddr::new(IpAddr::V6(std::net::Ipv6Addr::LOCALHOST), port),
            SocketAddr::new(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), port),
        ])
    } else {
        None
    }
}

/// curl's `curlx_str_number`: leading decimal digits up to `max`; the rest after them.
pub(crate) fn str_number(s: &str, max: u64) -> Option<(u64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let mut n: u64 = 0;
    for b in s[..digits].bytes() {
        n = n * 10 + u64::from(b - b'0');
        if n > max {
            return None;
        }
    }
    Some((n, &s[digits..]))
}

/// curl's `curlx_str_until`: at least one byte before `delim` (or the end), at most `max`.
fn str_until(s: &str, max: usize, delim: char) -> Option<(&str, &str)> {
    let end = s.find(delim).unwrap_or(s.len());
    if end == 0 || end > max {
        return None;
    }
    Some(s.split_at(end))
}

/// A `--resolve` host: `[addr]` or a name up to the next `:`.
fn resolve_host(s: &str) -> Option<(&str, &str)> {
    match s.strip_prefix('[') {
        Some(r) => {
            let (h, rest) = str_until(r, 46, ']')?;
            Some((h, rest.strip_prefix(']')?))
        }
        None => str_until(s, 4096, ':'),
    }
}

/// A `--resolve` entry: host, port and addresses (none: remove the host's entry).
pub type ResolveEntry = (String, u16, Vec<SocketAddr>);

/// One `--resolve` entry as curl's `Curl_loadhostpairs` reads it: `[+]host:port:addr[,addr]...`
/// or `-host:port`. Ok(None): an entry curl skips (no host, or a removal it cannot read);
/// an empty address list means "remove"; Err: an entry curl refuses (exit 49), with the
/// address it found illegal if that was the reason.
pub fn parse_resolve(entry: &str) -> Result<Option<ResolveEntry>, Option<String>> {
    parse_resolve_text(entry).map(|o| o.map(|(e, _)| e))
}

/// [`parse_resolve`], and the address list as written (what curl's "Added ... to DNS
/// cache" shows).
pub fn parse_resolve_text(entry: &str) -> Result<Option<(ResolveEntry, &str)>, Option<String>> {
    if let Some(e) = entry.strip_prefix('-') {
        let Some((host, rest)) = resolve_host(e) else {
            return Ok(None);
        };
        let parsed = rest.strip_prefix(':').and_then(|r| str_number(r, 0xffff));
        return Ok(parsed.map(|(port, _)| ((host.to_string(), port as u16, Vec::new()), "")));
    }
    let e = entry.strip_prefix('+').unwrap_or(entry);
    let Some((host, rest)) = resolve_host(e) else {
        return Ok(None);
    };
    let (port, rest) = rest
        .strip_prefix(':')
        .and_then(|r| str_number(r, 0xffff))
        .ok_or(None)?;
    let port = port as u16;
    let mut rest = rest.strip_prefix(':').ok_or(None)?;
    let text = rest;
    let mut addrs = Vec::new();
    while !rest.is_empty() {
        let target = if let Some(r) = rest.strip_prefix('[') {
            let (t, after) = str_until(r, 46, ']').ok_or(None)?;
            rest = after.strip_prefix(']').ok_or(None)?;
            t
        } else if let Some((t, after)) = str_until(rest, 4096, ',') {
            rest = after;
            t
        } else {
            // Nothing but a comma.
            rest = rest.strip_prefix(',').ok_or(None)?;
            continue;
        };
        // curl copies the address into 64 bytes and reads it with inet_pton.
        if target.len() >= 64 {
            return Err(None);
        }
        let ip = target
            .parse::<IpAddr>()
            .map_err(|_| Some(target.to_string()))?;
        addrs.push(SocketAddr::new(ip, port));
        match rest.strip_prefix(',') {
            Some(r) => rest = r,
            None => break,
        }
    }
    if addrs.is_empty() {
        return Err(None);
    }
    Ok(Some(((host.to_string(), port, addrs), text)))
}

/// One `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` rule against the URL's `host` and `port`
/// as curl's `parse_connect_to_string` reads it: None when it does not match, else the host
/// and the port to connect to (either absent when not given). An empty HOST or PORT matches
/// anything; the URL's IPv6 host is matched in brackets.
pub fn connect_to_match(
    rule: &str,
    host: &str,
    port: u16,
) -> crate::error::Result<Option<(Option<String>, Option<u16>)>> {
    let mut rest = match rule.strip_prefix(':') {
        Some(r) => r,
        None => {
            let want = if host.contains(':') && !host.starts_with('[') {
                format!("[{host}]")
            } else {
                host.to_string()
            };
            match rule.get(..want.len()) {
                Some(h) if h.eq_ignore_ascii_case(&want) => {
                    match rule[want.len()..].strip_prefix(':') {
                        Some(r) => r,
                        None => return Ok(None),
                    }
                }
                _ => return Ok(None),
            }
        }
    };
    match rest.strip_prefix(':') {
        Some(r) => rest = r,
        None => {
            let Some(colon) = rest.find(':') else {
                return Ok(None);
            };
            match str_number(rest, 0xffff) {
                Some((n, _)) if n == u64::from(port) => rest = &rest[colon + 1..],
                _ => return Ok(None),
            }
        }
    }
    // curl's parse_connect_to_host_port.
    if rest.is_empty() {
        return Ok(Some((None, None)));
    }
    let (name, port_from) = match rest.strip_prefix('[') {
        Some(r) => {
            let mut end = r
                .bytes()
                .take_while(|b| b.is_ascii_hexdigit() || *b == b':' || *b == b'.')
                .count();
            if r[end..].starts_with('%') {
                end += 1;
                end += r[end..]
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || b"-._~".contains(b))
                    .count();
            }
            match r[end..].strip_prefix(']') {
                Some(after) => (&r[..end], Some(after)),
                None => (r, None),
            }
        }
        None => (rest, None),
    };
    let (name, port_text) = match port_from {
        // After "[addr]": a port after the next colon, the name is the address.
        Some(after) => (name, after.split_once(':').map(|(_, p)| p)),
        None => match name.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (name, None),
        },
    };
    let target_port = match port_text {
        Some(p) if !p.is_empty() => match str_number(p, 0xffff) {
            Some((n, _)) => Some(n as u16),
            None => {
                return Err(crate::error::Error::new(
                    crate::error::Code::SetoptOptionSyntax,
                    format!("No valid port number in connect to host string ({p})"),
                ))
            }
        },
        _ => None,
    };
    let name = (!name.is_empty()).then(|| name.to_string());
    Ok(Some((name, target_port)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_entries() {
        let (h, p, a) = parse_resolve("example.com:80:127.0.0.1,[::1]")
            .unwrap()
            .unwrap();
        assert_eq!((h.as_str(), p), ("example.com", 80));
        assert_eq!(
            a,
            vec!["127.0.0.1:80".parse().unwrap(), "[::1]:80".parse().unwrap()]
        );
        assert_eq!(parse_resolve("-example.com:80").unwrap().unwrap().2, vec![]);
        assert_eq!(
            parse_resolve("[::1]:80:,1.2.3.4").unwrap().unwrap().0,
            "::1"
        );
        // Skipped as curl skips them: no host name.
        assert_eq!(parse_resolve(":80:1.2.3.4"), Ok(None));
        assert_eq!(parse_resolve("-:80"), Ok(None));
        // Refused (curl test 3019 and its neighbours).
        for bad in [
            "8990:example.com:127.0.0.1",
            "example.com:x:1.2.3.4",
            "example.com:80",
            "example.com:80:",
            "example.com::1.2.3.4",
            "example.com:70000:1.2.3.4",
            "example.com:80:notanip",
            "example.com:80:[::1",
        ] {
            assert!(parse_resolve(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_resolve("example.com:80:notanip"),
            Err(Some("notanip".to_string()))
        );
    }

    #[test]
    fn connect_to_rules() {
        let m = |rule: &str| connect_to_match(rule, "a", 80).map_err(|e| e.code);
        let some = |h: Option<&str>, p: Option<u16>| Ok(Some((h.map(String::from), p)));
        assert_eq!(m("a:80:b:81"), some(Some("b"), Some(81)));
        assert_eq!(m("A:80:b:"), some(Some("b"), None));
        assert_eq!(m("::b:"), some(Some("b"), None));
        assert_eq!(m(":80:[::2]:81"), some(Some("::2"), Some(81)));
        assert_eq!(m("a:80::81"), some(None, Some(81)));
        assert_eq!(m("a::"), Ok(Some((None, None))));
        assert_eq!(m("a:81:b:1"), Ok(None));
        assert_eq!(m("ab:80:b:1"), Ok(None));
        assert_eq!(m("a:80"), Ok(None));
        // curl test 3020 and its neighbours: a target port that is not a number.
        for bad in ["::example.com:example.com", "::b:99999", "a:80:b:x"] {
            assert_eq!(m(bad), Err(crate::error::Code::SetoptOptionSyntax), "{bad}");
        }
        assert_eq!(
            connect_to_match("[::1]:80:[::2]:81", "::1", 80).map_err(|e| e.code),
            some(Some("::2"), Some(81))
        );
        assert_eq!(
            connect_to_match("[::1]:80:[::2]:81", "[::1]", 80).map_err(|e| e.code),
            some(Some("::2"), Some(81))
        );
    }

    #[test]
    fn resolve_and_connect_to_never_panic() {
        // Every string of up to five pieces from an alphabet of separators, digits, brackets
        // and a multi-byte character.
        let pieces = [
            "", ":", "[", "]", ",", "-", "+", "1", "99999", "::1", "é", "a", "%", " ",
        ];
        let mut idx = [0usize; 5];
        loop {
            let s: String = idx.iter().map(|&i| pieces[i]).collect();
            let _ = parse_resolve(&s);
            for (h, p) in [("a", 1), ("[::1]", 1), ("é", 80)] {
                let _ = connect_to_match(&s, h, p);
            }
            let mut k = 0;
            while k < idx.len() {
                idx[k] += 1;
                if idx[k] < pieces.len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
            if k == idx.len() {
                break;
            }
        }
    }

    #[test]
    fn worker_answers_and_wakes() {
        let mut r = Resolver::new().unwrap();
        let id = r.start("127.0.0.1", 80);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            r.poll_completions();
            if let Some(ans) = r.take(id) {
                assert_eq!(ans.unwrap(), vec!["127.0.0.1:80".parse().unwrap()]);
                break;
            }
            assert!(Instant::now() < deadline);
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
