//! Differential tests: FTP through proxies, both connections (curl's second socket gets the
//! same proxy filters as the first): SOCKS 4, 4a, 5 and 5h through Debian's dante, and an
//! HTTP proxy tunnel (`-p`) through squid, and an HTTPS one through nghttpx in front of
//! squid, and dante as a pre-proxy in front of squid, to Debian's vsftpd. Each client gets a fresh
//! server and proxy; the exit code, stdout, stderr (`-v` too, port numbers masked) and the
//! commands vsftpd logged are compared with the reference curl 8.14.1's.

use oxcurl_testsupport::daemons::{Dante, Nghttpx, ProxyAuth, Squid, Vsftpd};
use oxcurl_testsupport::process::reference_curl;
use oxcurl_testsupport::{under_test, Exec, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

#[derive(Debug)]
struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
    commands: Vec<String>,
}

/// Port numbers (four or five digits), which differ from run to run.
fn mask(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut digits = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if (4..=5).contains(&digits.len()) {
            out.push('N');
        } else {
            out.push_str(&digits);
        }
        digits.clear();
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

#[derive(Clone, Copy)]
enum Proxy {
    Socks,
    Http,
    /// nghttpx (TLS, HTTP/1.1 CONNECT) in front of squid.
    Https,
    /// dante as the pre-proxy (`{pre}`) in front of squid (`{proxy}`).
    SocksThenHttp,
}

fn run(bin: &std::path::Path, proxy: Proxy, args: &[&str]) -> Option<Run> {
    let root = TempDir::new("ftp-proxy-root");
    std::fs::write(root.join("hello.txt"), "hello through a proxy\n").unwrap();
    std::fs::create_dir_all(root.join("pub")).unwrap();
    std::fs::write(
        root.join("pub/data.bin"),
        oxcurl_testsupport::http::generated_body(100_000),
    )
    .unwrap();
    // One file time for both runs: -I shows it.
    for f in ["hello.txt", "pub/data.bin"] {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
        let file = std::fs::File::options()
            .write(true)
            .open(root.join(f))
            .unwrap();
        file.set_modified(t).unwrap();
    }
    let d = Vsftpd::try_start(root.path())?;
    let mut pre_at = String::new();
    let (_dante, _squid, _nghttpx, proxy_at) = match proxy {
        Proxy::Socks => {
            let p = Dante::try_start()?;
            let at = p.host_port();
            (Some(p), None, None, at)
        }
        Proxy::Http => {
            let p = Squid::try_start(ProxyAuth::None)?;
            let at = p.host_port();
            (None, Some(p), None, at)
        }
        Proxy::SocksThenHttp => {
            let pre = Dante::try_start()?;
            let sq = Squid::try_start(ProxyAuth::None)?;
            pre_at = pre.host_port();
            let at = sq.host_port();
            (Some(pre), Some(sq), None, at)
        }
        Proxy::Https => {
            let sq = Squid::try_start(ProxyAuth::None)?;
            let nx = Nghttpx::try_start(&sq)?;
            let at = nx.url();
            (None, Some(sq), Some(nx), at)
        }
    };
    let ca = oxcurl_testsupport::tls::pki().ca();
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            a.replace("{port}", &d.port().to_string())
                .replace("{proxy}", &proxy_at)
                .replace("{pre}", &pre_at)
                .replace("{ca}", &ca.display().to_string())
        })
        .collect();
    let out = Exec::new(bin).args(&args).run();
    let mut commands = d.commands();
    for _ in 0..50 {
        if commands.last().is_some_and(|c| c == "QUIT") || out.exit_code() != 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        commands = d.commands();
    }
    Some(Run {
        code: out.exit_code(),
        stdout: out.stdout.clone(),
        stderr: mask(&out.stderr_str()),
        commands: commands.iter().map(|c| mask(c)).collect(),
    })
}

fn each(name: &str, proxy: Proxy, args: &[&str]) -> Option<Run> {
    let r = run(&reference_curl(), proxy, args)?;
    let o = run(&under_test(OXCURL), proxy, args)?;
    assert_eq!(r.code, o.code, "{name}: exit codes differ: {}", o.stderr);
    assert!(
        r.stdout == o.stdout,
        "{name}: stdout differs: {:?} against {:?}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(r.stderr, o.stderr, "{name}: stderr differs");
    assert_eq!(r.commands, o.commands, "{name}: the commands differ");
    Some(o)
}

#[test]
fn socks_carries_both_connections() {
    // localhost resolved here is ::1 first, which this dante does not reach, and it refuses
    // SOCKS4 requests: failures both have to tell the same way.
    for (flag, host, ok) in [
        ("--socks5", "127.0.0.1", true),
        ("--socks5", "localhost", false),
        ("--socks5-hostname", "localhost", true),
        ("--socks4", "localhost", false),
        ("--socks4a", "localhost", false),
    ] {
        let file = format!("ftp://{host}:{{port}}/hello.txt");
        let list = format!("ftp://{host}:{{port}}/pub/");
        let name = format!("{flag} {host}");
        let Some(o) = each(&name, Proxy::Socks, &["-sv", flag, "{proxy}", &file, &list]) else {
            return;
        };
        if ok {
            assert_eq!(o.code, 0, "{name}: {}", o.stderr);
            assert!(o.stdout.starts_with(b"hello through a proxy\n"), "{name}");
        }
    }
}

#[test]
fn socks_download_of_a_bigger_file() {
    let Some(o) = each(
        "socks5 data.bin",
        Proxy::Socks,
        &[
            "-sS",
            "--socks5",
            "{proxy}",
            "ftp://127.0.0.1:{port}/pub/data.bin",
        ],
    ) else {
        return;
    };
    assert_eq!(o.stdout.len(), 100_000);
}

#[test]
fn http_proxy_tunnel_carries_both_connections() {
    let Some(o) = each(
        "tunnel",
        Proxy::Http,
        &[
            "-sS",
            "-p",
            "-x",
            "{proxy}",
            "ftp://127.0.0.1:{port}/hello.txt",
            "ftp://127.0.0.1:{port}/pub/data.bin",
        ],
    ) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.len(), 22 + 100_000);
}

/// curl 8.14.1 converts an ASCII listing's CRLF line ends to LF when the data connection is
/// direct or goes through SOCKS, and not when it goes through an HTTP proxy tunnel (its
/// line-end writer sees no ASCII transfer there); oxcurl converts them in every case.
#[test]
#[ignore = "issue 19: curl 8.14.1 leaves CRLF in an ASCII listing through an HTTP tunnel"]
fn http_proxy_tunnel_listing() {
    each(
        "tunnel listing",
        Proxy::Http,
        &["-sS", "-p", "-x", "{proxy}", "ftp://127.0.0.1:{port}/pub/"],
    );
}

#[test]
fn http_proxy_tunnel_verbose() {
    each(
        "tunnel -v",
        Proxy::Http,
        &[
            "-sv",
            "-p",
            "-x",
            "{proxy}",
            "ftp://127.0.0.1:{port}/hello.txt",
        ],
    );
}

#[test]
fn https_proxy_tunnel_carries_both_connections() {
    // Not -v: the TLS lines differ between the backends (diff_tls.rs compares those).
    {
        let name = "https tunnel";
        let Some(o) = each(
            name,
            Proxy::Https,
            &[
                "-sS",
                "-p",
                "--proxy-cacert",
                "{ca}",
                "-x",
                "{proxy}",
                "ftp://127.0.0.1:{port}/hello.txt",
                "ftp://127.0.0.1:{port}/pub/data.bin",
            ],
        ) else {
            return;
        };
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        assert_eq!(o.stdout.len(), 22 + 100_000, "{name}");
    }
}

/// `--preproxy` with `-p`: both connections go to dante, through it to squid, and through
/// squid's tunnel to vsftpd.
#[test]
fn socks_preproxy_then_http_tunnel_carries_both_connections() {
    for args in [
        &["-sS", "-p", "--preproxy", "socks5://{pre}", "-x", "{proxy}"][..],
        &[
            "-sS",
            "-p",
            "--preproxy",
            "socks5h://{pre}",
            "-x",
            "{proxy}",
        ][..],
    ] {
        let mut all = args.to_vec();
        all.extend([
            "ftp://127.0.0.1:{port}/hello.txt",
            "ftp://127.0.0.1:{port}/pub/data.bin",
        ]);
        let Some(o) = each("preproxy tunnel", Proxy::SocksThenHttp, &all) else {
            return;
        };
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(o.stdout.len(), 22 + 100_000);
    }
}

#[test]
fn socks_preproxy_then_http_tunnel_verbose() {
    each(
        "preproxy tunnel -v",
        Proxy::SocksThenHttp,
        &[
            "-sv",
            "-p",
            "--preproxy",
            "socks5://{pre}",
            "-x",
            "{proxy}",
            "ftp://127.0.0.1:{port}/hello.txt",
        ],
    );
}
