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
            self.results.insert(id, ans);
        }
    }

    /// The answer to job `id`, once ready.
    pub fn take(&mut self, id: u64) -> Option<Answer> {
        self.results.remove(&id)
    }

    /// Forget a job whose transfer went away.
    pub fn cancel(&mut self, id: u64) {
        self.results.remove(&id);
        let mut q = self.shared.q.lock().unwrap_or_else(|e| e.into_inner());
        q.jobs.retain(|j| j.0 != id);
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

/// Parse one `--resolve` entry: `[+]host:port:addr[,addr]...` or `-host:port`.
/// Returns (host, port, addrs); an empty address list means "remove".
pub fn parse_resolve(entry: &str) -> Option<(String, u16, Vec<SocketAddr>)> {
    let (remove, e) = match entry.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, entry.strip_prefix('+').unwrap_or(entry)),
    };
    let (host, rest) = e.split_once(':')?;
    let (port_s, addrs_s) = match rest.split_once(':') {
        Some((p, a)) => (p, a),
        None if remove => (rest, ""),
        None => return None,
    };
    let port: u16 = port_s.parse().ok()?;
    let mut addrs = Vec::new();
    if !remove {
        for a in addrs_s.split(',') {
            let a = a.trim();
            let a = a
                .strip_prefix('[')
                .and_then(|x| x.strip_suffix(']'))
                .unwrap_or(a);
            if let Ok(ip) = a.parse::<IpAddr>() {
                addrs.push(SocketAddr::new(ip, port));
            }
        }
        if addrs.is_empty() {
            return None;
        }
    }
    Some((host.to_string(), port, addrs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_entries() {
        let (h, p, a) = parse_resolve("example.com:80:127.0.0.1,[::1]").unwrap();
        assert_eq!((h.as_str(), p), ("example.com", 80));
        assert_eq!(
            a,
            vec!["127.0.0.1:80".parse().unwrap(), "[::1]:80".parse().unwrap()]
        );
        assert_eq!(parse_resolve("-example.com:80").unwrap().2, vec![]);
        assert!(parse_resolve("example.com:x:1.2.3.4").is_none());
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
