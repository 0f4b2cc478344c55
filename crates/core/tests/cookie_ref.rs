//! The cookie engine against the reference curl 8.14.1, for real.
//!
//! Each case loads an optional cookie file, makes one request to a local server that answers
//! with the case's `Set-Cookie:` headers, and writes the jar: `curl -q -s -b IN -c OUT URL`.
//! The same steps run through [`CookieJar`], and two things must be byte-identical: the
//! `Cookie:` header curl sent, and the jar file it wrote. Expiry times computed from the clock
//! (`Max-Age`, the 400 day cap) may differ by up to a minute, as curl ran a moment earlier.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oxcurl_core::cookie::{secure_context, CookieArg, CookieJar};
use oxcurl_testsupport::{reference_curl, Exec, Reply, ScriptedServer, TempDir};

#[derive(Default)]
struct Case {
    name: &'static str,
    /// Host name in the URL (resolved to 127.0.0.1).
    host: &'static str,
    /// URL path (no query).
    path: &'static str,
    /// Cookie file loaded with `-b`.
    jar_in: Option<Vec<u8>>,
    /// `Set-Cookie:` header values in the response.
    set: Vec<Vec<u8>>,
    /// `-b name=value` arguments.
    user: Vec<&'static str>,
    /// `-j`.
    junk_session: bool,
}

fn case(name: &'static str) -> Case {
    Case {
        name,
        host: "www.example.com",
        path: "/a/b/c",
        ..Case::default()
    }
}

impl Case {
    fn host(mut self, host: &'static str) -> Case {
        self.host = host;
        self
    }
    fn path(mut self, path: &'static str) -> Case {
        self.path = path;
        self
    }
    fn set(mut self, headers: &[&str]) -> Case {
        self.set
            .extend(headers.iter().map(|h| h.as_bytes().to_vec()));
        self
    }
    fn set_bytes(mut self, header: &[u8]) -> Case {
        self.set.push(header.to_vec());
        self
    }
    fn jar(mut self, text: impl AsRef<[u8]>) -> Case {
        self.jar_in = Some(text.as_ref().to_vec());
        self
    }
    fn user(mut self, s: &'static str) -> Case {
        self.user.push(s);
        self
    }
    fn junk(mut self) -> Case {
        self.junk_session = true;
        self
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64
}

/// The value of the request's `Cookie:` header, bytes as sent.
fn cookie_header(head: &[u8]) -> Option<Vec<u8>> {
    head.split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .find_map(|l| {
            (l.len() >= 7 && l[..7].eq_ignore_ascii_case(b"cookie:"))
                .then(|| l[7..].strip_prefix(b" ").unwrap_or(&l[7..]).to_vec())
        })
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Jar files equal, allowing clock-derived expiry times to differ by up to 61 seconds.
fn same_jar(reference: &[u8], ours: &[u8], now: i64) -> bool {
    let a: Vec<&[u8]> = reference.split(|&b| b == b'\n').collect();
    let b: Vec<&[u8]> = ours.split(|&b| b == b'\n').collect();
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(&b).all(|(la, lb)| {
        if la == lb {
            return true;
        }
        let fa: Vec<&[u8]> = la.split(|&c| c == b'\t').collect();
        let fb: Vec<&[u8]> = lb.split(|&c| c == b'\t').collect();
        if fa.len() != 7 || fb.len() != 7 {
            return false;
        }
        let num = |f: &[u8]| std::str::from_utf8(f).ok()?.parse::<i64>().ok();
        let (Some(ea), Some(eb)) = (num(fa[4]), num(fb[4])) else {
            return false;
        };
        let near_now = |e: i64| e > now - 120 && e < now + 401 * 24 * 3600;
        fa.iter()
            .zip(&fb)
            .enumerate()
            .all(|(i, (x, y))| i == 4 || x == y)
            && (ea - eb).abs() <= 61
            && near_now(ea)
            && near_now(eb)
    })
}

/// Runs one case through curl and through the jar; returns a description of any difference.
fn run(c: &Case) -> Option<String> {
    let mut response = b"HTTP/1.1 200 OK\r\n".to_vec();
    for h in &c.set {
        response.extend_from_slice(b"Set-Cookie: ");
        response.extend_from_slice(h);
        response.extend_from_slice(b"\r\n");
    }
    response.extend_from_slice(b"Content-Length: 0\r\n\r\n");
    let v6 = c.host.contains(':');
    let server = if v6 {
        match ScriptedServer::start_v6() {
            Ok(s) => s,
            // No IPv6 loopback here: nothing to compare.
            Err(_) => return None,
        }
    } else {
        ScriptedServer::start()
    };
    server.set_replies(vec![Reply::raw(&response)]);
    let port = server.port();
    let dir = TempDir::new("cookie-ref");
    let jar_in = dir.join("in.txt");
    let jar_out = dir.join("out.txt");
    let url = if v6 {
        format!("http://[{}]:{port}{}", c.host, c.path)
    } else {
        format!("http://{}:{port}{}", c.host, c.path)
    };
    let mut exec = Exec::new(reference_curl())
        .args(["-q", "-s", "-o", "/dev/null"])
        .timeout(Duration::from_secs(20));
    if c.host.parse::<std::net::IpAddr>().is_err() {
        exec = exec.args(["--resolve", &format!("{}:{port}:127.0.0.1", c.host)]);
    }
    if let Some(text) = &c.jar_in {
        std::fs::write(&jar_in, text).expect("write jar");
        exec = exec.arg("-b").arg(&jar_in);
    }
    for u in &c.user {
        exec = exec.args(["-b", u]);
    }
    if c.junk_session {
        exec = exec.arg("-j");
    }
    let out = exec.arg("-c").arg(&jar_out).arg(&url).run();
    if out.code != Some(0) {
        return Some(format!("curl failed: {}", out.status_text()));
    }
    server.wait_idle(Duration::from_secs(2));
    let requests = server.requests();
    let Some(request) = requests.first() else {
        return Some("curl made no request".to_string());
    };
    let sent = cookie_header(&request.head);
    let written = std::fs::read(&jar_out).expect("curl wrote no jar");

    let now = now();
    let secure = secure_context(false, c.host);
    let mut jar = CookieJar::new();
    jar.set_new_session(c.junk_session);
    if let Some(text) = &c.jar_in {
        jar.load_netscape(text, now);
    }
    jar.new_request();
    let user = CookieArg::join_data(&c.user);
    let ours_sent = jar
        .cookie_header_full(
            c.host,
            c.path,
            secure,
            user.as_deref().map(str::as_bytes),
            now,
        )
        .value;
    for h in &c.set {
        let value = [b" ", h.as_slice(), b"\r\n"].concat();
        let _ = jar.add_set_cookie(&value, c.host, c.path, secure, now);
    }
    let ours_written = jar.save_netscape(now);

    let mut diff = String::new();
    if sent != ours_sent {
        diff.push_str(&format!(
            "Cookie header\n  curl: {:?}\n  ours: {:?}\n",
            sent.as_deref().map(show),
            ours_sent.as_deref().map(show)
        ));
    }
    if !same_jar(&written, &ours_written, now) {
        diff.push_str(&format!(
            "jar\n--- curl\n{}--- ours\n{}",
            show(&written),
            show(&ours_written)
        ));
    }
    (!diff.is_empty()).then_some(diff)
}

fn check(cases: Vec<Case>) {
    let mut failures = Vec::new();
    for c in &cases {
        if let Some(d) = run(c) {
            failures.push(format!("== {}\n{d}", c.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from curl 8.14.1:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn set_cookie_parsing_matches_curl() {
    check(vec![
        case("plain").set(&["a=b"]),
        case("newest first").set(&["a=b", "c=d; Path=/", "e=f; path=/a"]),
        case("empty name").set(&["=foo", " =bar; path=/x"]),
        case("no equals").set(&["a", "foo; a=b", ";a=b"]),
        case("spaces and trimming").set(&["  a  b  =  c d  ;  path  =  /p  ", "x=a = b"]),
        case("quoted value and path").set(&["a=\"b\"; path=\"/q/\""]),
        case("odd paths").set(&["a=1; path=x", "b=1; path=", "c=1; path", "d=1; path=//"]),
        case("repeated path").set(&["a=b; Path=/P; PATH=/Q"]),
        case("ignored attributes").set(&["a=b; domain=; version=1; foo; bar=baz; =c"]),
        case("httponly").set(&["a=1; HttpOnly", "b=1; httponly=", "c=1; httponly=yes"]),
        case("secure over http").set(&["a=1; Secure", "b=1; secure="]),
        case("secure on 127.0.0.1")
            .host("127.0.0.1")
            .set(&["a=1; Secure", "b=1; secure=; path=/"]),
        case("secure on localhost")
            .host("localhost")
            .set(&["a=1; Secure"]),
        case("tabs").set(&["x=a\tb", "y=b\t; path=/t", "z=c ;\tpath=/t"]),
        case("control bytes").set(&["a=\x01b", "b=b\x7f", "c\x01=b", "d=ok; foo=\x01"]),
        case("high bytes").set_bytes(b"a=b\x80\xff; path=/\xc3\xa9"),
        case("domain attribute").set(&[
            "a=1; domain=.www.example.com",
            "b=1; domain=example.com",
            "c=1; domain=WWW.Example.COM",
            "d=1; domain=..www.example.com",
            "e=1; domain=other.com",
            "f=1; domain=sub.www.example.com",
        ]),
        case("public suffix").set(&["a=1; domain=com", "b=1; domain=.com"]),
        case("co.uk")
            .host("www.example.co.uk")
            .set(&["a=1; domain=co.uk", "b=1; domain=example.co.uk"]),
        case("private suffix")
            .host("foo.github.io")
            .set(&["a=1; domain=github.io", "b=1; domain=foo.github.io"]),
        case("suffix host itself")
            .host("co.uk")
            .set(&["a=1; domain=co.uk", "b=1"]),
        case("localhost domains")
            .host("a.b.localhost")
            .set(&["a=1; domain=b.localhost", "b=1; domain=localhost"]),
        case("ip host").host("127.0.0.1").set(&[
            "a=1; domain=127.0.0.1",
            "b=1; domain=0.0.1",
            "c=1",
        ]),
        case("ipv6 host").host("::1").set(&[
            "a=1; Secure",
            "b=1; domain=::1",
            "c=1; domain=[::1]",
            "__Host-d=1; Secure; Path=/",
        ]),
        case("trailing dot host").host("www.example.com.").set(&[
            "a=1; domain=www.example.com",
            "b=1; domain=example.com.",
            "c=1; domain=com.",
            "d=1",
        ]),
        case("prefixes").host("127.0.0.1").set(&[
            "__Secure-a=1",
            "__Secure-b=1; Secure",
            "__secure-c=1",
            "__Host-d=1; Secure",
            "__Host-e=1; Secure; Path=/",
            "__Host-f=1; Secure; Path=/; Domain=127.0.0.1",
            "__host-g=1",
            "h=1; __Secure-x=1",
        ]),
        case("host prefix with domain")
            .host("localhost")
            .set(&["__Host-a=1; Secure; Path=/; Domain=localhost"]),
        case("max-age").host("127.0.0.1").set(&[
            "a=1; Max-Age=100",
            "b=1; Max-Age=\"200\"",
            "c=1; Max-Age=0",
            "d=1; Max-Age=-1",
            "e=1; Max-Age=abc",
            "f=1; Max-Age=+5",
            "g=1; Max-Age= 300x",
            "h=1; Max-Age=99999999999999999999",
            "i=1; Max-Age=",
        ]),
        case("expires").host("127.0.0.1").set(&[
            "a=1; Expires=Thu, 01 Jan 2090 00:00:00 GMT",
            "b=1; Expires=Thu, 01 Jan 1960 00:00:00 GMT",
            "c=1; Expires=bogus",
            "d=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
            "e=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT",
            "f=1; Expires=Thu, 01 Jan 2090 00:00:00 GMT; Max-Age=50",
            "g=1; Max-Age=50; Expires=Thu, 01 Jan 2090 00:00:00 GMT",
            "h=1; Expires=bogus; Expires=Thu, 01 Jan 2090 00:00:00 GMT",
        ]),
        case("replaced in one response").set(&["a=1", "b=1", "a=2", "a=3; path=/a/b", "A=1"]),
        case("deleted in one response").set(&["a=1; path=/", "b=1", "a=x; path=/; max-age=0"]),
        case("fifty per response").host("127.0.0.1").set(
            &(0..55)
                .map(|i| format!("c{i}={i}"))
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        ),
        case("name and value sizes").set(&[
            &format!("{}=1", "n".repeat(4094)),
            &format!("{}=1", "m".repeat(4095)),
            &format!("{}={}", "o".repeat(2048), "v".repeat(2048)),
            &format!("{}={}", "p".repeat(2048), "v".repeat(2049)),
            &format!("q=1; path=/{}", "p".repeat(4093)),
        ]),
        // curl counts the space after the colon and the CRLF towards its 5000 bytes.
        case("header line limit").set(&[
            &format!(
                "a=1; x={}; y={}",
                "x".repeat(2400),
                "y".repeat(4997 - 2400 - 11)
            ),
            &format!(
                "b=1; x={}; y={}",
                "x".repeat(2400),
                "y".repeat(4998 - 2400 - 11)
            ),
        ]),
        case("default path from the root").path("/").set(&["a=1"]),
        case("default path without slash")
            .path("/file")
            .set(&["a=1"]),
    ]);
}

const SEND_FILE: &str = ".example.com\tTRUE\t/\tFALSE\t0\ta\t1\n\
                         .example.com\tTRUE\t/p\tFALSE\t0\tb\t2\n\
                         www.example.com\tFALSE\t/p/q\tFALSE\t0\tc\t3\n\
                         example.com\tFALSE\t/\tFALSE\t0\td\t4\n\
                         .example.com\tTRUE\t/\tTRUE\t0\te\t5\n\
                         .www.example.com\tTRUE\t/\tFALSE\t0\tlonger\t6\n\
                         .www.example.com\tTRUE\t/\tFALSE\t9999999999\tz\t7\n\
                         .www.example.com\tTRUE\t/\tFALSE\t0\ty\t8\n\
                         .www.example.com\tTRUE\t/\tFALSE\t1\told\t9\n\
                         #HttpOnly_www.example.com\tFALSE\t/\tFALSE\t0\th\t10\n";

#[test]
fn cookie_files_and_sending_match_curl() {
    check(vec![
        case("send /").path("/").jar(SEND_FILE),
        case("send /p").path("/p").jar(SEND_FILE),
        case("send /p/").path("/p/").jar(SEND_FILE),
        case("send /p/q/r").path("/p/q/r").jar(SEND_FILE),
        case("send /pq").path("/pq").jar(SEND_FILE),
        case("send to the parent")
            .host("example.com")
            .path("/")
            .jar(SEND_FILE),
        case("send to a sibling")
            .host("x.example.com")
            .path("/")
            .jar(SEND_FILE),
        case("send elsewhere")
            .host("example.org")
            .path("/")
            .jar(SEND_FILE),
        case("ipv6 host sends")
            .host("::1")
            .path("/")
            .jar("::1\tFALSE\t/\tTRUE\t0\ts\t1\n.::1\tTRUE\t/\tFALSE\t0\tt\t1\n"),
        case("junk session cookies").path("/").jar(SEND_FILE).junk(),
        case("secure over a secure context")
            .host("127.0.0.1")
            .path("/")
            .jar("127.0.0.1\tFALSE\t/\tTRUE\t0\ts\t1\n127.0.0.1\tFALSE\t/\tFALSE\t0\tp\t1\n"),
        case("user string")
            .host("127.0.0.1")
            .path("/")
            .jar("127.0.0.1\tFALSE\t/\tFALSE\t0\ta\t1\n")
            .user("x=y; z=w")
            .user("@v=1"),
        case("user string alone")
            .path("/")
            .jar("127.0.0.1\tFALSE\t/\tFALSE\t0\ta\t1\n")
            .user("x=y"),
        case("path as written orders")
            .host("127.0.0.1")
            .path("/p/x")
            .jar(
                "127.0.0.1\tFALSE\t/p/\tFALSE\t0\ta\t1\n\
             127.0.0.1\tFALSE\t/p\tFALSE\t0\tb\t1\n\
             127.0.0.1\tFALSE\t\"/p\"\tFALSE\t0\tc\t1\n\
             127.0.0.1\tFALSE\t/p\tFALSE\t0\td\t1\n",
            ),
        case("150 sent").host("127.0.0.1").path("/").jar(
            (1..=160)
                .map(|i| format!("127.0.0.1\tFALSE\t/\tFALSE\t0\tc{i}\t{i}\n"))
                .collect::<String>(),
        ),
        case("header size cap")
            .host("127.0.0.1")
            .path("/")
            .jar(format!(
                "127.0.0.1\tFALSE\t/\tFALSE\t0\ta\t{v}\n\
                 127.0.0.1\tFALSE\t/\tFALSE\t0\tb\t{v}\n\
                 127.0.0.1\tFALSE\t/\tFALSE\t0\tc\t{w}\n\
                 127.0.0.1\tFALSE\t/\tFALSE\t0\td\t1\n",
                v = "v".repeat(4000),
                w = "w".repeat(172)
            ))
            .user("x=y"),
        case("odd file lines").host("127.0.0.1").path("/").jar(
            "127.0.0.1\tFALSE\tFALSE\t0\tnopath\ty\n\
             127.0.0.1\tTRU\t/\tTR\t0\tprefixes\ty\n\
             127.0.0.1\t\t/\t\t0\tempty\ty\n\
             127.0.0.1\tTRUEX\t/\tyes\t0\tlong\ty\n\
             127.0.0.1\tFALSE\t/\tFALSE\t0\tsix\n\
             127.0.0.1\tFALSE\t/\tFALSE\t0\teight\ty\tz\n\
             127.0.0.1\tFALSE\t\tFALSE\t0\temptypath\ty\n\
             \tFALSE\t/\tFALSE\t0\tnodomain\ty\n\
             127.0.0.1\tFALSE\t/\tFALSE\t12abc\tbadexp\ty\n\
             127.0.0.1\tFALSE\t/\tFALSE\t0\tctrl\ta\x01b\n\
             127.0.0.1\tFALSE\t/\tFALSE\t0\tcr\ty\r\n\
             # comment\n\
             #httponly_127.0.0.1\tFALSE\t/\tFALSE\t0\tlowerhttponly\ty\n\
             #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\thttponly\ty\n\
             \n\
             127.0.0.1\tFALSE\t/\tFALSE\t0\t__secure-x\t1\n\
             127.0.0.1\tFALSE\t/\tTRUE\t0\t__host-y\t1\n",
        ),
        case("set-cookie lines in files")
            .host("127.0.0.1")
            .path("/x")
            .jar(
                ".co.uk\tTRUE\t/\tFALSE\t0\ta\t1\n\
             Set-Cookie: c=1; domain=com\n\
             set-cookie:\td=1\n\
             Set-Cookie: e=1; secure; path=/\n\
             Set-Cookie: f=1; domain=127.0.0.1\n",
            ),
        case("fifty set-cookie lines in a file")
            .host("127.0.0.1")
            .path("/")
            .jar(
                (1..=52)
                    .map(|i| format!("Set-Cookie: c{i}={i}; domain=127.0.0.1\n"))
                    .collect::<String>()
                    + "127.0.0.1\tFALSE\t/\tFALSE\t0\tnet\t1\n",
            )
            .set(&["live=1"]),
        case("file bucket never reaches a name")
            .host("example.com")
            .path("/")
            .jar(".com\tTRUE\t/\tFALSE\t0\ta\t1\nSet-Cookie: b=1\n"),
        case("nul bytes and long lines")
            .host("127.0.0.1")
            .path("/")
            .jar(
                [
                    b"127.0.0.1\tFALSE\t/\tFALSE\t0\tx\ta\0".as_slice(),
                    "b".repeat(200).as_bytes(),
                    b"\n127.0.0.1\tFALSE\t/\tFALSE\t0\ty\t1\n",
                    b"127.0.0.1\tFALSE\t/\tFALSE\t0\tlong\t",
                    "v".repeat(4971).as_bytes(),
                    b"\n127.0.0.1\tFALSE\t/\tFALSE\t0\tafter\t1\n",
                ]
                .concat(),
            ),
        case("set-cookie lines in files, junked")
            .host("127.0.0.1")
            .path("/")
            .jar(
                "Set-Cookie: a=1; domain=127.0.0.1; max-age=100\n\
                 Set-Cookie: b=1; domain=127.0.0.1\n\
                 Set-Cookie: c=1; domain=127.0.0.1; expires=Thu, 01 Jan 2090 00:00:00 GMT\n",
            )
            .junk(),
        case("same name on several paths").path("/a/b/c").jar(
            "www.example.com\tFALSE\t/\tFALSE\t0\tn\troot\n\
             www.example.com\tFALSE\t/a/b\tFALSE\t0\tn\tab\n\
             .example.com\tTRUE\t/a\tFALSE\t0\tn\ta\n\
             www.example.com\tFALSE\t/a/b/c/d\tFALSE\t0\tn\tabcd\n",
        ),
        case("no newline at the end")
            .host("127.0.0.1")
            .path("/")
            .jar(format!(
                "127.0.0.1\tFALSE\t/\tFALSE\t0\tl\t{}",
                "v".repeat(99)
            )),
    ]);
}

#[test]
fn replacing_stored_cookies_matches_curl() {
    let secure_login = "www.example.com\tFALSE\t/login\tTRUE\t0\ta\t1\n";
    check(vec![
        case("overlay below")
            .path("/login/x")
            .jar(secure_login)
            .set(&["a=2; path=/login/en"]),
        case("overlay beside")
            .path("/login/x")
            .jar(secure_login)
            .set(&["a=2; path=/loginhelper"]),
        case("overlay any case")
            .path("/login/x")
            .jar(secure_login)
            .set(&["a=2; path=/LOGIN/en"]),
        case("overlay other path")
            .path("/login/x")
            .jar(secure_login)
            .set(&["a=2; path=/other"]),
        case("overlay parent domain")
            .path("/login/x")
            .jar(".example.com\tTRUE\t/login\tTRUE\t0\ta\t1\n")
            .set(&["a=2; path=/login/en"]),
        case("overlay root")
            .path("/")
            .jar("www.example.com\tFALSE\t/\tTRUE\t0\ta\t1\n")
            .set(&["a=2; path=/x", "b=2; path=/"]),
        case("secure origin replaces secure")
            .host("127.0.0.1")
            .path("/login/x")
            .jar("127.0.0.1\tFALSE\t/login\tTRUE\t0\ta\t1\n")
            .set(&["a=2; path=/login"]),
        case("replace keeps creation order")
            .path("/login/x")
            .jar(
                "www.example.com\tFALSE\t/login\tFALSE\t0\ta\t1\n\
                 www.example.com\tFALSE\t/\tFALSE\t0\tb\t1\n",
            )
            .set(&["a=2; path=/login/", "c=3"]),
        case("replace by sanitized path")
            .path("/")
            .jar(
                "www.example.com\tFALSE\t/login\tFALSE\t0\ta\t1\n\
                 www.example.com\tFALSE\t\"/x\"\tFALSE\t0\tb\t1\n\
                 www.example.com\tFALSE\t/\tFALSE\t0\tc\t1\n\
                 www.example.com\tFALSE\t/\tFALSE\t0\td\t1\n",
            )
            .set(&[
                "a=2; path=/LOGIN",
                "b=2; path=/x",
                "c=2; path=",
                "d=2; path=//",
            ]),
        case("subdomain flag differs")
            .path("/")
            .jar("www.example.com\tFALSE\t/\tFALSE\t0\ta\t1\n")
            .set(&["a=2; path=/; domain=www.example.com"]),
        case("domain case")
            .path("/")
            .jar("WWW.example.com\tFALSE\t/\tFALSE\t0\ta\t1\n")
            .set(&["a=2; path=/"]),
        case("expire a stored one")
            .path("/")
            .jar(
                "www.example.com\tFALSE\t/\tFALSE\t0\ta\t1\n\
                 www.example.com\tFALSE\t/\tFALSE\t0\tb\t1\n",
            )
            .set(&["a=2; path=/; expires=Sun, 06 Nov 1994 08:49:37 GMT"]),
    ]);
}
