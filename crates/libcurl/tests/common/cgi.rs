//! A small HTTP/1.1 server running one CGI program per request (`git http-backend` for the
//! git tests): keep-alive, `Expect: 100-continue`, chunked or sized request bodies, and the
//! CGI `Status:` header. Each request is recorded (method, target, headers) for assertions.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body_len: usize,
    pub status: u16,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct CgiServer {
    port: u16,
    auth: Arc<Mutex<Option<String>>>,
    log: Arc<Mutex<Vec<Request>>>,
}

impl CgiServer {
    /// Serves every request with `program`, its environment extended by `env`.
    pub fn start(program: PathBuf, env: Vec<(String, String)>) -> CgiServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let auth = Arc::new(Mutex::new(None::<String>));
        let cfg = Arc::new((program, env, Arc::clone(&auth)));
        let l2 = Arc::clone(&log);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let (cfg, log) = (Arc::clone(&cfg), Arc::clone(&l2));
                std::thread::spawn(move || {
                    let _ = serve(conn, &cfg.0, &cfg.1, &cfg.2, &log);
                });
            }
        });
        CgiServer { port, auth, log }
    }

    /// From now on, requests without `Authorization: Basic <base64>` get a 401 asking for
    /// Basic; the CGI program sees the user in REMOTE_USER.
    pub fn require_basic(&self, base64: &str) {
        *self.auth.lock().expect("auth") = Some(base64.to_string());
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().expect("log").clone()
    }
}

fn read_line(r: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_string()))
}

fn serve(
    conn: TcpStream,
    program: &PathBuf,
    env: &[(String, String)],
    auth: &Mutex<Option<String>>,
    log: &Mutex<Vec<Request>>,
) -> std::io::Result<()> {
    let mut out = conn.try_clone()?;
    let mut r = BufReader::new(conn);
    loop {
        let Some(line) = read_line(&mut r)? else {
            return Ok(());
        };
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split(' ');
        let method = parts.next().unwrap_or("").to_string();
        let target = parts.next().unwrap_or("").to_string();
        let mut headers = Vec::new();
        while let Some(h) = read_line(&mut r)? {
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        let find = |n: &str| {
            headers
                .iter()
                .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(n))
                .map(|(_, v)| v.clone())
        };
        if find("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
            out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        }
        let mut body = Vec::new();
        if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            loop {
                let size = read_line(&mut r)?.unwrap_or_default();
                let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
                    .unwrap_or(0);
                if size == 0 {
                    while read_line(&mut r)?.is_some_and(|l| !l.is_empty()) {}
                    break;
                }
                let start = body.len();
                body.resize(start + size, 0);
                r.read_exact(&mut body[start..])?;
                read_line(&mut r)?;
            }
        } else if let Some(n) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
            body.resize(n, 0);
            r.read_exact(&mut body)?;
        }
        let want = auth.lock().expect("auth").clone();
        if let Some(want) = &want {
            let got = find("authorization");
            if got.as_deref() != Some(&format!("Basic {want}")) {
                log.lock().expect("log").push(Request {
                    method,
                    target,
                    headers,
                    body_len: body.len(),
                    status: 401,
                });
                let msg = "auth needed\n";
                let head = format!(
                    "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\n\
                     Content-Length: {}\r\n\r\n{msg}",
                    msg.len()
                );
                out.write_all(head.as_bytes())?;
                continue;
            }
        }
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        let mut cmd = Command::new(program);
        cmd.envs(env.iter().map(|(k, v)| (k, v)))
            .env("GATEWAY_INTERFACE", "CGI/1.1")
            .env("SERVER_PROTOCOL", "HTTP/1.1")
            .env("REQUEST_METHOD", &method)
            .env("PATH_INFO", path)
            .env("QUERY_STRING", query)
            .env("REMOTE_ADDR", "127.0.0.1")
            .env("CONTENT_LENGTH", body.len().to_string());
        if want.is_some() {
            cmd.env("REMOTE_USER", "user").env("AUTH_TYPE", "Basic");
        }
        let mut hdr_env = HashMap::new();
        for (k, v) in &headers {
            let name = k.to_ascii_uppercase().replace('-', "_");
            match name.as_str() {
                "CONTENT_TYPE" => {
                    cmd.env("CONTENT_TYPE", v);
                }
                "CONTENT_LENGTH" | "TRANSFER_ENCODING" => {}
                _ => {
                    hdr_env.insert(format!("HTTP_{name}"), v.clone());
                }
            }
        }
        cmd.envs(hdr_env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn()?;
        let body_len = body.len();
        let mut stdin = child.stdin.take().expect("stdin");
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&body);
        });
        let output = child.wait_with_output()?;
        let _ = writer.join();
        let raw = output.stdout;
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map(|p| (p, p + 4))
            .or_else(|| {
                raw.windows(2)
                    .position(|w| w == b"\n\n")
                    .map(|p| (p, p + 2))
            })
            .unwrap_or((raw.len(), raw.len()));
        let head = String::from_utf8_lossy(&raw[..split.0]).to_string();
        let resp_body = &raw[split.1..];
        let mut status = 200u16;
        let mut reason = "OK".to_string();
        let mut resp = String::new();
        for h in head.lines() {
            let h = h.trim_end_matches('\r');
            if let Some(s) = h.strip_prefix("Status:") {
                let s = s.trim();
                let (code, text) = s.split_once(' ').unwrap_or((s, ""));
                status = code.parse().unwrap_or(500);
                reason = text.to_string();
            } else if !h.is_empty() {
                resp.push_str(h);
                resp.push_str("\r\n");
            }
        }
        log.lock().expect("log").push(Request {
            method,
            target: target.clone(),
            headers: headers.clone(),
            body_len,
            status,
        });
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\n{resp}Content-Length: {}\r\n\r\n",
            resp_body.len()
        );
        out.write_all(head.as_bytes())?;
        out.write_all(resp_body)?;
        out.flush()?;
    }
}
