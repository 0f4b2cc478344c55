//! Debian's git over HTTP on our library: `git-remote-http` links `libcurl-gnutls.so.4`
//! (symbols versioned `CURL_GNUTLS_3`), which scripts/build-libcurl.sh also builds; git runs
//! with LD_LIBRARY_PATH pointing at it, against `git http-backend` behind a local CGI server.

mod common;

use common::cgi::CgiServer;
use oxcurl_testsupport::fs::TempDir;
use oxcurl_testsupport::process::{Exec, Output};
use std::path::{Path, PathBuf};

const GIT: &str = "/usr/bin/git";
const EXEC_PATH: &str = "/usr/lib/git-core";

/// Debian's git, or None (with the reason printed) when the package is not installed.
fn debian_git() -> Option<PathBuf> {
    let remote = Path::new(EXEC_PATH).join("git-remote-http");
    if !Path::new(GIT).is_file() || !remote.is_file() {
        eprintln!(
            "SKIP: Debian's git is not installed ({GIT}, {}); scripts/test.sh installs it as root",
            remote.display()
        );
        return None;
    }
    Some(remote)
}

struct Git<'a> {
    home: &'a Path,
    lib: PathBuf,
}

impl Git<'_> {
    fn exec(&self, dir: &Path, args: &[&str]) -> Exec {
        Exec::new(GIT)
            .arg("-c")
            .arg("user.name=oxcurl")
            .arg("-c")
            .arg("user.email=oxcurl@example.invalid")
            .arg("-c")
            .arg("init.defaultBranch=main")
            .args(args)
            .cwd(dir)
            .env("HOME", self.home)
            .env("GIT_EXEC_PATH", EXEC_PATH)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LD_LIBRARY_PATH", &self.lib)
            .timeout(std::time::Duration::from_secs(120))
    }

    fn ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.exec(dir, args).run();
        check(&out, args);
        out.stdout_str()
    }
}

fn check(out: &Output, args: &[&str]) {
    assert_eq!(
        out.code,
        Some(0),
        "git {args:?}: stdout {} stderr {}",
        out.stdout_str(),
        out.stderr_str()
    );
}

/// A bare repository with three commits, served by `git http-backend` (push allowed).
fn served_repo(git: &Git, tmp: &TempDir) -> (CgiServer, PathBuf) {
    let root = tmp.join("srv");
    std::fs::create_dir_all(&root).expect("mkdir");
    let bare = root.join("repo.git");
    git.ok(&root, &["init", "-q", "--bare", "repo.git"]);
    git.ok(&bare, &["config", "http.receivepack", "true"]);
    let seed = tmp.join("seed");
    std::fs::create_dir_all(&seed).expect("mkdir");
    git.ok(&seed, &["init", "-q"]);
    for i in 1..=3 {
        std::fs::write(seed.join(format!("f{i}.txt")), format!("file {i}\n")).expect("write");
        git.ok(&seed, &["add", "."]);
        git.ok(&seed, &["commit", "-q", "-m", &format!("commit {i}")]);
    }
    git.ok(
        &seed,
        &["push", "-q", bare.to_str().expect("utf-8"), "main"],
    );
    let server = CgiServer::start(
        Path::new(EXEC_PATH).join("git-http-backend"),
        vec![
            ("GIT_PROJECT_ROOT".into(), root.display().to_string()),
            ("GIT_HTTP_EXPORT_ALL".into(), "1".into()),
            ("HOME".into(), tmp.path().display().to_string()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        ],
    );
    (server, bare)
}

/// Random bytes that do not compress, so the pack is bigger than git's http.postBuffer (1 MiB)
/// and the push streams it with a read callback (chunked) instead of one POSTFIELDS buffer.
fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn git_clone_and_push_over_http_use_our_library() {
    let Some(remote) = debian_git() else { return };
    let lib = common::ours();
    let so = lib.join("libcurl-gnutls.so.4");
    assert!(so.is_file(), "{} missing", so.display());
    // The dynamic linker picks our build for git-remote-http's libcurl-gnutls.so.4.
    let ldd = Exec::new("ldd")
        .arg(&remote)
        .env("LD_LIBRARY_PATH", &lib)
        .run();
    let want = format!("libcurl-gnutls.so.4 => {}", so.display());
    assert!(ldd.stdout_str().contains(&want), "{}", ldd.stdout_str());

    let tmp = TempDir::new("oxcurl-git");
    let git = Git {
        home: tmp.path(),
        lib: lib.clone(),
    };
    let (server, bare) = served_repo(&git, &tmp);
    let url = format!("{}/repo.git", server.url());

    // Clone, with the loader telling which libcurl-gnutls it initialises.
    let out = git
        .exec(tmp.path(), &["clone", "-q", &url, "clone"])
        .env("LD_DEBUG", "libs")
        .run();
    check(&out, &["clone"]);
    let init = format!("calling init: {}", so.display());
    assert!(
        out.stderr_str().contains(&init),
        "our library was not loaded: {}",
        out.stderr_str()
    );
    let clone = tmp.join("clone");
    let log = git.ok(&clone, &["log", "--format=%s"]);
    assert_eq!(log, "commit 3\ncommit 2\ncommit 1\n");
    assert_eq!(
        std::fs::read_to_string(clone.join("f2.txt")).expect("f2"),
        "file 2\n"
    );

    // A small push (the pack goes as one buffer) ...
    std::fs::write(clone.join("f4.txt"), "file 4\n").expect("write");
    git.ok(&clone, &["add", "."]);
    git.ok(&clone, &["commit", "-q", "-m", "commit 4"]);
    git.ok(&clone, &["push", "-q", "origin", "main"]);
    let head = git.ok(&clone, &["rev-parse", "HEAD"]);
    assert_eq!(git.ok(&bare, &["rev-parse", "main"]), head);

    // ... and one bigger than http.postBuffer (streamed through the read callback).
    std::fs::write(clone.join("big.bin"), noise(3 << 20)).expect("write");
    git.ok(&clone, &["add", "."]);
    git.ok(&clone, &["commit", "-q", "-m", "commit 5"]);
    git.ok(&clone, &["push", "-q", "origin", "main"]);
    let head = git.ok(&clone, &["rev-parse", "HEAD"]);
    assert_eq!(git.ok(&bare, &["rev-parse", "main"]), head);
    assert_eq!(
        git.ok(&bare, &["log", "--format=%s", "main"]),
        "commit 5\ncommit 4\ncommit 3\ncommit 2\ncommit 1\n"
    );

    // The server saw smart-HTTP requests from git's libcurl use: the ref advertisement, the
    // upload-pack and receive-pack POSTs, the big one chunked.
    let reqs = server.requests();
    let posts: Vec<_> = reqs.iter().filter(|r| r.method == "POST").collect();
    assert!(
        posts.iter().any(|r| r.target.ends_with("/git-upload-pack")),
        "{reqs:?}"
    );
    let pushes: Vec<_> = posts
        .iter()
        .filter(|r| r.target.ends_with("/git-receive-pack"))
        .collect();
    assert!(pushes.len() >= 2, "{reqs:?}");
    assert!(
        pushes
            .iter()
            .any(|r| r.header("transfer-encoding") == Some("chunked") && r.body_len > 1 << 20),
        "{pushes:?}"
    );
    assert!(reqs.iter().all(|r| r.status == 200), "{reqs:?}");
}

#[test]
fn git_push_answers_a_basic_auth_challenge() {
    if debian_git().is_none() {
        return;
    }
    let tmp = TempDir::new("oxcurl-git-auth");
    let git = Git {
        home: tmp.path(),
        lib: common::ours(),
    };
    let (server, bare) = served_repo(&git, &tmp);
    let url = format!("{}/repo.git", server.url());
    git.ok(tmp.path(), &["clone", "-q", &url, "clone"]);
    let clone = tmp.join("clone");
    // "user:secret"
    server.require_basic("dXNlcjpzZWNyZXQ=");
    std::fs::write(clone.join("f4.txt"), "file 4\n").expect("write");
    git.ok(&clone, &["add", "."]);
    git.ok(&clone, &["commit", "-q", "-m", "commit 4"]);
    // Without credentials the push fails with the 401 (no prompt: GIT_TERMINAL_PROMPT=0).
    let out = git.exec(&clone, &["push", "-q", "origin", "main"]).run();
    assert_ne!(out.code, Some(0), "{}", out.stderr_str());
    assert!(
        out.stderr_str().contains("Authentication failed")
            || out.stderr_str().contains("could not read Username"),
        "{}",
        out.stderr_str()
    );
    let authed = url.replace("http://", "http://user:secret@");
    git.ok(&clone, &["push", "-q", &authed, "main"]);
    let head = git.ok(&clone, &["rev-parse", "HEAD"]);
    assert_eq!(git.ok(&bare, &["rev-parse", "main"]), head);
    let reqs = server.requests();
    assert!(reqs.iter().any(|r| r.status == 401), "{reqs:?}");
    assert!(
        reqs.iter()
            .any(|r| r.status == 200 && r.target.ends_with("/git-receive-pack")),
        "{reqs:?}"
    );
}
