//! A scripted HTTP/2 server (cleartext, prior knowledge) for hostile and broken peers: raw
//! frames written by hand, HPACK header blocks as literals only.
//!
//! ```no_run
//! use oxcurl_testsupport::h2::{hpack, H2Action, H2Server};
//! let srv = H2Server::start(vec![H2Action::headers(1, hpack(200, &[]), false),
//!                                H2Action::RstStream { stream: 1, code: 2 }]);
//! println!("{}", srv.url());
//! ```
//!
//! Every connection gets the same script: the server reads the client preface and frames up
//! to the first complete HEADERS block, sends an empty SETTINGS frame and a SETTINGS ack,
//! then plays the actions while it drains what the client sends, until the client closes.
//! [`flood`] repeats a frame, for floods.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One step of a script.
#[derive(Clone, Debug)]
pub enum H2Action {
    /// A HEADERS frame (END_HEADERS set unless `more` follows in CONTINUATION frames).
    Headers {
        stream: u32,
        block: Vec<u8>,
        end_stream: bool,
        end_headers: bool,
    },
    /// A CONTINUATION frame.
    Continuation {
        stream: u32,
        block: Vec<u8>,
        end_headers: bool,
    },
    Data {
        stream: u32,
        data: Vec<u8>,
        end_stream: bool,
    },
    RstStream {
        stream: u32,
        code: u32,
    },
    GoAway {
        last_stream: u32,
        code: u32,
    },
    /// Bytes as they are.
    Raw(Vec<u8>),
    Sleep(Duration),
    /// Close the sending side now (the server still reads until the client closes).
    Close,
}

impl H2Action {
    /// A complete header block on `stream`.
    pub fn headers(stream: u32, block: Vec<u8>, end_stream: bool) -> H2Action {
        H2Action::Headers {
            stream,
            block,
            end_stream,
            end_headers: true,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        match self {
            H2Action::Headers {
                stream,
                block,
                end_stream,
                end_headers,
            } => frame(
                1,
                u8::from(*end_stream) | (u8::from(*end_headers) << 2),
                *stream,
                block,
            ),
            H2Action::Continuation {
                stream,
                block,
                end_headers,
            } => frame(9, u8::from(*end_headers) << 2, *stream, block),
            H2Action::Data {
                stream,
                data,
                end_stream,
            } => frame(0, u8::from(*end_stream), *stream, data),
            H2Action::RstStream { stream, code } => frame(3, 0, *stream, &code.to_be_bytes()),
            H2Action::GoAway { last_stream, code } => {
                let mut p = last_stream.to_be_bytes().to_vec();
                p.extend_from_slice(&code.to_be_bytes());
                frame(7, 0, 0, &p)
            }
            H2Action::Raw(b) => b.clone(),
            H2Action::Sleep(_) | H2Action::Close => Vec::new(),
        }
    }
}

/// `n` copies of `f` as one write (a flood of frames).
pub fn flood(f: &[u8], n: usize) -> H2Action {
    H2Action::Raw(f.repeat(n))
}

/// A frame: 24-bit length, type, flags, stream id, payload.
pub fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len() as u32;
    let mut f = len.to_be_bytes()[1..].to_vec();
    f.push(kind);
    f.push(flags);
    f.extend_from_slice(&(stream & 0x7fff_ffff).to_be_bytes());
    f.extend_from_slice(payload);
    f
}

/// An HPACK integer with an `n`-bit prefix whose high bits are `first`.
fn hpack_int(out: &mut Vec<u8>, first: u8, n: u32, mut v: usize) {
    let max = (1usize << n) - 1;
    if v < max {
        out.push(first | v as u8);
        return;
    }
    out.push(first | max as u8);
    v -= max;
    while v >= 128 {
        out.push((v % 128) as u8 | 0x80);
        v /= 128;
    }
    out.push(v as u8);
}

/// A literal header field without indexing, new name, no Huffman coding.
pub fn hpack_literal(out: &mut Vec<u8>, name: &str, value: &[u8]) {
    out.push(0);
    hpack_int(out, 0, 7, name.len());
    out.extend_from_slice(name.as_bytes());
    hpack_int(out, 0, 7, value.len());
    out.extend_from_slice(value);
}

/// A header block: `:status` and the fields, all literals.
pub fn hpack(status: u16, fields: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    hpack_literal(&mut out, ":status", status.to_string().as_bytes());
    for (n, v) in fields {
        hpack_literal(&mut out, n, v.as_bytes());
    }
    out
}

/// A running scripted server; stops accepting on drop.
pub struct H2Server {
    port: u16,
    stop: Arc<AtomicBool>,
    accepted: Arc<AtomicUsize>,
}

/// How a multi-stream server answers the request on stream `id` that is the `n`th (from 0)
/// of the whole server: the actions to play for it, on a thread of its own.
pub type Responder = dyn Fn(u32, usize) -> Vec<H2Action> + Send + Sync;

impl std::fmt::Debug for H2Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("H2Server")
            .field("port", &self.port)
            .finish()
    }
}

impl H2Server {
    pub fn start(script: Vec<H2Action>) -> H2Server {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = l.local_addr().expect("addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        l.set_nonblocking(true).expect("nonblocking");
        let accepted = Arc::new(AtomicUsize::new(0));
        let a2 = accepted.clone();
        thread::spawn(move || loop {
            if s2.load(Ordering::Relaxed) {
                return;
            }
            match l.accept() {
                Ok((c, _)) => {
                    a2.fetch_add(1, Ordering::SeqCst);
                    let script = script.clone();
                    thread::spawn(move || serve(c, &script));
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        });
        H2Server {
            port,
            stop,
            accepted,
        }
    }

    /// A server for many streams per connection: it announces `settings` (id, value), acks
    /// the client's SETTINGS and answers every complete request header block with
    /// `respond`, each on a thread of its own so that slow answers overlap.
    pub fn start_multi(
        settings: &[(u16, u32)],
        respond: impl Fn(u32, usize) -> Vec<H2Action> + Send + Sync + 'static,
    ) -> H2Server {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = l.local_addr().expect("addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let accepted = Arc::new(AtomicUsize::new(0));
        let a2 = accepted.clone();
        let mut payload = Vec::new();
        for (id, v) in settings {
            payload.extend_from_slice(&id.to_be_bytes());
            payload.extend_from_slice(&v.to_be_bytes());
        }
        let respond: Arc<Responder> = Arc::new(respond);
        let count = Arc::new(AtomicUsize::new(0));
        l.set_nonblocking(true).expect("nonblocking");
        thread::spawn(move || loop {
            if s2.load(Ordering::Relaxed) {
                return;
            }
            match l.accept() {
                Ok((c, _)) => {
                    a2.fetch_add(1, Ordering::SeqCst);
                    let (p, r, n) = (payload.clone(), respond.clone(), count.clone());
                    thread::spawn(move || serve_multi(c, &p, r, n));
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        });
        H2Server {
            port,
            stop,
            accepted,
        }
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for H2Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn read_exact(c: &mut TcpStream, n: usize) -> Option<Vec<u8>> {
    let mut b = vec![0u8; n];
    c.read_exact(&mut b).ok()?;
    Some(b)
}

fn serve(mut c: TcpStream, script: &[H2Action]) {
    let _ = c.set_nonblocking(false);
    let _ = c.set_read_timeout(Some(Duration::from_secs(10)));
    if read_exact(&mut c, 24).is_none() {
        return;
    }
    let _ = c.write_all(&frame(4, 0, 0, &[]));
    // Frames until a complete HEADERS block.
    loop {
        let Some(h) = read_exact(&mut c, 9) else {
            return;
        };
        let len = (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
        let (kind, flags) = (h[3], h[4]);
        if read_exact(&mut c, len).is_none() {
            return;
        }
        if kind == 4 && flags & 1 == 0 {
            let _ = c.write_all(&frame(4, 1, 0, &[]));
        }
        if (kind == 1 || kind == 9) && flags & 4 != 0 {
            break;
        }
    }
    // What the client sends from now on (acks, window updates, resets) is read while the
    // script plays, so a flood the client answers frame by frame cannot stall both sides.
    let drain = c.try_clone().ok().map(|mut r| {
        thread::spawn(move || {
            let mut sink = [0u8; 16384];
            while matches!(r.read(&mut sink), Ok(n) if n > 0) {}
        })
    });
    for a in script {
        match a {
            H2Action::Sleep(d) => thread::sleep(*d),
            H2Action::Close => {
                let _ = c.shutdown(Shutdown::Write);
                break;
            }
            a => {
                if c.write_all(&a.bytes()).is_err() {
                    break;
                }
            }
        }
    }
    match drain {
        Some(t) => {
            let _ = t.join();
        }
        None => {
            let mut sink = [0u8; 16384];
            while matches!(c.read(&mut sink), Ok(n) if n > 0) {}
        }
    }
}

fn serve_multi(c: TcpStream, settings: &[u8], respond: Arc<Responder>, count: Arc<AtomicUsize>) {
    let _ = c.set_nonblocking(false);
    let _ = c.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(w) = c.try_clone() else {
        return;
    };
    let w = Arc::new(Mutex::new(w));
    let mut c = c;
    if read_exact(&mut c, 24).is_none() {
        return;
    }
    let send = |w: &Arc<Mutex<TcpStream>>, b: &[u8]| {
        let mut g = w.lock().unwrap_or_else(|p| p.into_inner());
        g.write_all(b).is_ok()
    };
    send(&w, &frame(4, 0, 0, settings));
    loop {
        let Some(h) = read_exact(&mut c, 9) else {
            return;
        };
        let len = (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
        let (kind, flags) = (h[3], h[4]);
        let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
        if read_exact(&mut c, len).is_none() {
            return;
        }
        if kind == 4 && flags & 1 == 0 {
            send(&w, &frame(4, 1, 0, &[]));
        }
        if (kind == 1 || kind == 9) && flags & 4 != 0 {
            let n = count.fetch_add(1, Ordering::SeqCst);
            let actions = respond(stream, n);
            let w = w.clone();
            thread::spawn(move || {
                for a in actions {
                    match a {
                        H2Action::Sleep(d) => thread::sleep(d),
                        H2Action::Close => {
                            let g = w.lock().unwrap_or_else(|p| p.into_inner());
                            let _ = g.shutdown(Shutdown::Write);
                            return;
                        }
                        a => {
                            let mut g = w.lock().unwrap_or_else(|p| p.into_inner());
                            if g.write_all(&a.bytes()).is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        }
    }
}

/// The `curl: (N) ...` lines of a client's stderr.
pub fn error_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.starts_with("curl: ("))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The reference curl, then `oxcurl`, each against its own [`H2Server`] playing `script`,
/// with `-sS --http2-prior-knowledge`, `extra` and the server's URL, in a clean environment
/// (with `OXCURL_ALLOCCOUNT` set, for builds with the counting allocator). The reference
/// must not hang; exit codes, stdout bytes and, with `text`, the `curl: (N)` lines must be
/// equal. Returns oxcurl's output and its heap peak, when it wrote one. `oxcurl` is the
/// built binary; `OXCURL_UNDER_TEST` replaces it when set ([`crate::under_test`]).
pub fn diff_script(
    oxcurl: &std::path::Path,
    name: &str,
    script: Vec<H2Action>,
    extra: &[&str],
    text: bool,
) -> (crate::Output, Option<u64>) {
    let srv = H2Server::start(script);
    let tmp = crate::TempDir::new(name);
    let url = format!("{}/", srv.url());
    let mut args = vec!["-sS", "--http2-prior-knowledge"];
    args.extend_from_slice(extra);
    args.push(&url);
    let report = tmp.join("allocs.txt");
    let run = |p: &std::path::Path| {
        crate::Exec::new(p)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", tmp.path())
            .env("LC_ALL", "C")
            .env("OXCURL_ALLOCCOUNT", &report)
            .cwd(tmp.path())
            .timeout(Duration::from_secs(30))
            .args(&args)
            .run()
    };
    let r = run(&crate::reference_curl());
    assert!(!r.timed_out, "{name}: the reference hung");
    let x = run(&crate::under_test(oxcurl));
    let peak = std::fs::read_to_string(&report).ok().and_then(|t| {
        let mut it = t.split_whitespace();
        while let Some(k) = it.next() {
            if k == "peak" {
                return it.next()?.parse().ok();
            }
        }
        None
    });
    let report = format!(
        "\n--- reference {:?}\n{}\n--- oxcurl {:?}\n{}",
        r.code,
        String::from_utf8_lossy(&r.stderr),
        x.code,
        String::from_utf8_lossy(&x.stderr)
    );
    assert_eq!(r.code, x.code, "{name}: exit code{report}");
    if text {
        assert_eq!(
            error_line(&r.stderr),
            error_line(&x.stderr),
            "{name}: error{report}"
        );
    }
    let head = |b: &[u8]| String::from_utf8_lossy(&b[..b.len().min(256)]).into_owned();
    assert!(
        r.stdout == x.stdout,
        "{name}: stdout differs ({} / {} bytes): {:?} / {:?}{report}",
        r.stdout.len(),
        x.stdout.len(),
        head(&r.stdout),
        head(&x.stdout)
    );
    (x, peak)
}
