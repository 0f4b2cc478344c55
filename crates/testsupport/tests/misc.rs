//! Process runner, nginx fixture and file helpers.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use oxcurl_testsupport::fs::{sparse_file, TempDir};
use oxcurl_testsupport::nginx::Nginx;
use oxcurl_testsupport::process::{reference_curl, Exec};

#[test]
fn exec_captures_and_times_out() {
    let out = Exec::new("/bin/sh")
        .args(["-c", "cat; echo err >&2; echo \"$FOO\" \"$PWD\"; exit 3"])
        .stdin(b"in:")
        .env("FOO", "bar")
        .cwd("/tmp")
        .run();
    assert_eq!(out.code, Some(3));
    assert_eq!(out.stdout, b"in:bar /tmp\n");
    assert_eq!(out.stderr, b"err\n");
    assert!(!out.timed_out);

    let out = Exec::new("/bin/sleep")
        .arg("30")
        .timeout(Duration::from_millis(200))
        .run();
    assert!(out.timed_out);
    assert_eq!(out.code, None);
    assert_eq!(out.signal, Some(9));
    assert!(out.elapsed < Duration::from_secs(5));
}

#[test]
fn reference_curl_is_8_14_1() {
    let out = Exec::new(reference_curl()).arg("-V").run();
    assert!(
        out.stdout_str().starts_with("curl 8.14.1 "),
        "{}",
        out.stdout_str()
    );
}

#[test]
fn sparse_files_are_instant() {
    let dir = TempDir::new("sparse");
    let p = dir.join("big.bin");
    sparse_file(&p, 10 << 30).unwrap();
    assert_eq!(std::fs::metadata(&p).unwrap().len(), 10 << 30);
    let kept = dir.path().to_path_buf();
    drop(dir);
    assert!(!kept.exists());
}

#[test]
fn nginx_serves_files() {
    let root = TempDir::new("www");
    std::fs::write(root.join("hello.txt"), "hello nginx\n").unwrap();
    sparse_file(root.join("big.bin"), 5 << 20).unwrap();
    let Some(nginx) = Nginx::try_start(root.path()) else {
        return;
    };
    let mut c = TcpStream::connect(nginx.addr()).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(b"GET /hello.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut v = Vec::new();
    c.read_to_end(&mut v).unwrap();
    let text = String::from_utf8_lossy(&v);
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.ends_with("\r\n\r\nhello nginx\n"), "{text}");

    let out = Exec::new(reference_curl())
        .args(["-s", "-q", "-o", "/dev/null", "-w", "%{size_download}"])
        .arg(format!("{}/big.bin", nginx.url()))
        .env_remove("http_proxy")
        .run();
    assert_eq!(out.stdout_str(), (5u64 << 20).to_string());
    assert!(nginx.access_log().contains("GET /big.bin"));
}
