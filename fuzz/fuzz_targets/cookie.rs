//! Fuzz the cookie engine: a cookie file and `Set-Cookie:` headers go into a jar, which then
//! builds `Cookie:` headers, lists and saves itself. Nothing may panic, and a saved jar must
//! survive being loaded and saved again.
//!
//! Input layout: byte 0 picks the request host, path and secure flag; the rest is split at the
//! first 0xFF byte into a cookie file and header lines (one `Set-Cookie:` value per line).
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::cookie::CookieJar;
use oxcurl_core::parsedate;

const NOW: i64 = 1_790_000_000;
const HOSTS: [&str; 8] = [
    "www.example.com",
    "127.0.0.1",
    "localhost",
    "www.example.co.uk",
    "a.b.c",
    "::1",
    "example.com.",
    "com",
];
const PATHS: [&str; 4] = ["/", "/a/b/c", "/a/", ""];

/// Loads `text` into a fresh jar and saves it again.
fn reload(text: &[u8]) -> Vec<u8> {
    let mut jar = CookieJar::new();
    jar.load_netscape(text, NOW);
    jar.save_netscape(NOW)
}

/// Whether loading and saving `text` can legitimately change it more than once (curl does the
/// same): lines near the file line limit (saving may lengthen them past it); domains with more
/// leading dots than one load strips (each load strips one, which can make two cookies the
/// same); and domains starting with `#`, which are saved as a comment line.
fn unstable(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n').skip(4).any(|line| {
        let line = line.strip_prefix(b"#HttpOnly_").unwrap_or(line);
        let tail = line.split(|&b| b == b'\t').nth(1) == Some(b"TRUE".as_slice());
        line.len() > 4900
            || line.starts_with(b"..")
            || line.starts_with(b"#")
            || (!tail && line.starts_with(b"."))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let host = HOSTS[usize::from(sel) % HOSTS.len()];
    let path = PATHS[usize::from(sel >> 3) % PATHS.len()];
    let secure = sel & 0x20 != 0;
    let (file, headers) = match rest.iter().position(|&b| b == 0xff) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };

    let mut jar = CookieJar::new();
    jar.set_new_session(sel & 0x40 != 0);
    jar.load_netscape(file, NOW);
    jar.new_request();
    for line in headers.split(|&b| b == b'\n') {
        let _ = jar.add_set_cookie(line, host, path, secure, NOW);
    }
    let _ = jar.add_line(headers, NOW);
    let _ = jar.cookie_header_full(host, path, secure, Some(b"x=y"), NOW);
    let _ = jar.cookie_header(host, path, !secure, NOW + 1000);
    let _ = jar.cookie_list();
    let _ = parsedate::getdate(rest);

    // Loading a saved jar normalises it once (and reverses the order); after that, loading
    // and saving twice must give back the same bytes.
    let saved = jar.save_netscape(NOW);
    let once = reload(&saved);
    if unstable(&once) {
        return;
    }
    let twice = reload(&once);
    let thrice = reload(&twice);
    assert_eq!(
        String::from_utf8_lossy(&once),
        String::from_utf8_lossy(&thrice)
    );
});
