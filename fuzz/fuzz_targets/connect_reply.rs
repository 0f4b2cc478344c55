//! Fuzz the CONNECT reply parser, its header line check and the proxy string / no_proxy
//! rules: no panics, bounded consumption, and feeding the reply a byte at a time (as the
//! transfer does) gives the same lines, status and outcome as feeding it whole.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::connect::{Event, Tunnel};
use oxcurl_core::proto::h1::head::store_check;

#[derive(Debug, PartialEq)]
struct Outcome {
    lines: Vec<Vec<u8>>,
    code: u32,
    close: bool,
    done: bool,
    err: bool,
    used: usize,
}

fn run(input: &[u8], piece: usize) -> Outcome {
    let mut t = Tunnel::new();
    let mut lines = Vec::new();
    let mut used = 0;
    let mut err = false;
    'outer: while used < input.len() && !t.done {
        let end = (used + piece).min(input.len());
        let mut chunk = &input[used..end];
        while !chunk.is_empty() && !t.done {
            match t.feed(chunk) {
                Ok((n, ev)) => {
                    if let Some(Event::Line(l)) = ev {
                        // Read as a C string (up to a zero byte), a line that ends in CR or
                        // LF with a colon before that end is never refused.
                        let c = &l[..l.iter().position(|&b| b == 0).unwrap_or(l.len())];
                        let end = c
                            .iter()
                            .position(|&b| b == b'\r')
                            .or_else(|| c.iter().position(|&b| b == b'\n'));
                        let ok = store_check(l, false).is_ok();
                        if end.is_some_and(|e| c[..e].contains(&b':')) {
                            assert!(ok, "{l:?}");
                        }
                        lines.push(l.to_vec());
                    }
                    assert!(n <= chunk.len());
                    used += n;
                    chunk = &chunk[n..];
                }
                Err(_) => {
                    err = true;
                    break 'outer;
                }
            }
        }
    }
    Outcome {
        lines,
        code: t.code,
        close: t.close,
        done: t.done,
        err,
        used: if err { 0 } else { used },
    }
}

fuzz_target!(|data: &[u8]| {
    assert_eq!(run(data, usize::MAX), run(data, 1));
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = oxcurl_core::proxy::parse(s, oxcurl_core::proxy::ProxyKind::Http);
        if let Some((list, host)) = s.split_once('\n') {
            let _ = oxcurl_core::proxy::no_proxy_matches(list, host);
        }
    }
});
