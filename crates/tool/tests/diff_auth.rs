//! Differential tests for HTTP authentication (`-u` with `--basic`, `--digest`, `--anyauth`,
//! `--oauth2-bearer`) and `.netrc` (`-n`, `--netrc-file`, `--netrc-optional`): the requests
//! oxcurl and curl 8.14.1 send through a 401 negotiation, their output and exit codes.
//!
//! Digest client nonces are random, so the `cnonce` and `response` values are masked when
//! comparing; each run's response is then checked against RFC 7616 with that run's cnonce.

use md5::{Digest as _, Md5};
use oxcurl_testsupport::{Case, CaseResult, Reply};
use sha2::Sha256;

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn challenge(value: &str) -> Reply {
    Reply::status(
        401,
        &[("WWW-Authenticate", value), ("Content-Type", "text/plain")],
        "denied\n",
    )
}

/// Mask `cnonce="..."` and `response="..."` values (random per run).
fn mask_digest(data: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(data);
    let mut out = String::with_capacity(s.len());
    let mut rest: &str = &s;
    loop {
        let next = ["cnonce=\"", "response=\""]
            .iter()
            .filter_map(|k| rest.find(k).map(|i| (i, k.len())))
            .min();
        match next {
            Some((i, klen)) => {
                out.push_str(&rest[..i + klen]);
                rest = &rest[i + klen..];
                let end = rest.find('"').unwrap_or(rest.len());
                out.push_str("MASKED");
                rest = &rest[end..];
            }
            None => {
                out.push_str(rest);
                break;
            }
        }
    }
    out.into_bytes()
}

/// The verbose lines about authentication and the header lines.
fn auth_lines(d: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(&mask_digest(d)).into_owned();
    s.lines()
        .filter(|l| {
            l.starts_with("> ")
                || l.starts_with("< ")
                || l.contains(" auth ")
                || l.contains("Authentication")
                || l.contains("Ignoring")
                || l.contains("Issue another")
                || l.contains("setting size")
                || l.contains("netrc")
                || l.contains("Couldn't find host")
        })
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes()
}

fn digest_case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .normalise_requests_with(mask_digest)
        .normalise_with(mask_digest)
}

/// Recompute each Digest `Authorization` a run sent (RFC 7616, qop=auth or none) and
/// compare it with the `response` it carried.
fn check_digest(r: &CaseResult, user: &str, pass: &str) {
    for run in [&r.reference, &r.oxcurl] {
        let mut seen = 0;
        for req in &run.requests {
            let Some(auth) = req.header("Authorization") else {
                continue;
            };
            let Some(fields) = auth.strip_prefix("Digest ") else {
                continue;
            };
            seen += 1;
            let get = |k: &str| -> Option<String> {
                let pat = format!("{k}=");
                let mut s = fields;
                loop {
                    let i = s.find(&pat)?;
                    if i == 0 || s.as_bytes()[i - 1] == b' ' {
                        let v = &s[i + pat.len()..];
                        return Some(if let Some(q) = v.strip_prefix('"') {
                            q[..q.find('"').unwrap()].to_string()
                        } else {
                            v.split(',').next().unwrap().to_string()
                        });
                    }
                    s = &s[i + pat.len()..];
                }
            };
            let algo = get("algorithm").unwrap_or_else(|| "MD5".into());
            let h = |d: &str| -> String {
                let bytes: Vec<u8> = if algo.eq_ignore_ascii_case("SHA-256") {
                    Sha256::digest(d.as_bytes()).to_vec()
                } else {
                    Md5::digest(d.as_bytes()).to_vec()
                };
                bytes.iter().map(|b| format!("{b:02x}")).collect()
            };
            let realm = get("realm").unwrap();
            let nonce = get("nonce").unwrap();
            let uri = get("uri").unwrap();
            let ha1 = h(&format!("{user}:{realm}:{pass}"));
            let ha2 = h(&format!("{}:{uri}", req.method));
            let want = match get("qop") {
                Some(qop) => h(&format!(
                    "{ha1}:{nonce}:{}:{}:{qop}:{ha2}",
                    get("nc").unwrap(),
                    get("cnonce").unwrap()
                )),
                None => h(&format!("{ha1}:{nonce}:{ha2}")),
            };
            assert_eq!(
                get("response").unwrap(),
                want,
                "{}: {} sent a wrong digest: {auth}",
                r.name,
                run.program.display()
            );
        }
        assert!(
            seen > 0,
            "{}: {} sent no Digest",
            r.name,
            run.program.display()
        );
    }
}

#[test]
fn basic_is_default_for_user() {
    Case::new("basic_is_default_for_user")
        .args(&["-s", "-u", "alice:secret", "{url}/"])
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn basic_verbose_names_scheme_and_user() {
    Case::new("basic_verbose_names_scheme_and_user")
        .args(&["-s", "-v", "--basic", "-u", "alice:secret", "{url}/"])
        .reply(Reply::ok("x"))
        .compare_stderr(true)
        .normalise_with(auth_lines)
        .run(OXCURL);
}

#[test]
fn basic_refused_shows_the_401() {
    Case::new("basic_refused_shows_the_401")
        .args(&["-s", "-v", "-u", "alice:wrong", "{url}/"])
        .reply(challenge("Basic realm=\"r\""))
        .compare_stderr(true)
        .normalise_with(auth_lines)
        .run(OXCURL);
}

#[test]
fn basic_refused_with_fail() {
    Case::new("basic_refused_with_fail")
        .args(&["-sS", "-f", "-u", "alice:wrong", "{url}/"])
        .reply(challenge("Basic realm=\"r\""))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn digest_get_md5_qop_auth() {
    let r = digest_case(
        "digest_get_md5_qop_auth",
        &["-s", "--digest", "-u", "alice:secret", "{url}/dir/file?x=1"],
    )
    .replies(vec![
        challenge(
            "Digest realm=\"testrealm\", nonce=\"1053604145\", qop=\"auth\", algorithm=MD5, opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"",
        ),
        Reply::ok("secret data\n"),
    ])
    .run(OXCURL);
    check_digest(&r, "alice", "secret");
}

#[test]
fn digest_verbose_lines() {
    digest_case(
        "digest_verbose_lines",
        &["-s", "-v", "--digest", "-u", "alice:secret", "{url}/"],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"abc\", qop=\"auth\""),
        Reply::ok("ok\n"),
    ])
    .compare_stderr(true)
    .normalise_with(auth_lines)
    .run(OXCURL);
}

#[test]
fn digest_without_qop() {
    let r = digest_case(
        "digest_without_qop",
        &["-s", "--digest", "-u", "testuser:testpass", "{url}/64"],
    )
    .replies(vec![
        challenge("Digest realm=\"testrealm\", nonce=\"1053604145\""),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
    check_digest(&r, "testuser", "testpass");
}

#[test]
fn digest_sha256() {
    let r = digest_case(
        "digest_sha256",
        &["-s", "--digest", "-u", "Mufasa:Circle of Life", "{url}/dir/index.html"],
    )
    .replies(vec![
        challenge(
            "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=SHA-256, nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"",
        ),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
    check_digest(&r, "Mufasa", "Circle of Life");
}

#[test]
fn digest_userhash_and_sha512_256() {
    digest_case(
        "digest_userhash_and_sha512_256",
        &["-s", "--digest", "-u", "J\u{e4}s\u{f8}n Doe:Secret", "{url}/doe.json"],
    )
    .replies(vec![
        challenge(
            "Digest realm=\"api@example.org\", qop=\"auth\", algorithm=SHA-512-256, nonce=\"5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK\", opaque=\"HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS\", charset=UTF-8, userhash=true",
        ),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
}

#[test]
fn digest_post_probes_without_body() {
    let r = digest_case(
        "digest_post_probes_without_body",
        &[
            "-s",
            "--digest",
            "-u",
            "alice:secret",
            "-d",
            "hello=world",
            "{url}/form",
        ],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n1\", qop=\"auth\""),
        Reply::ok("posted\n"),
    ])
    .run(OXCURL);
    check_digest(&r, "alice", "secret");
    assert_eq!(r.oxcurl.requests[0].header("Content-Length"), Some("0"));
    assert_eq!(r.oxcurl.requests[1].body, b"hello=world");
}

#[test]
fn digest_post_probe_answered_with_200() {
    // The server lets the probe through: curl sends the real request once more.
    digest_case(
        "digest_post_probe_answered_with_200",
        &[
            "-s",
            "--digest",
            "-u",
            "alice:secret",
            "-d",
            "a=b",
            "{url}/form",
        ],
    )
    .replies(vec![Reply::ok("probe ok\n"), Reply::ok("real\n")])
    .run(OXCURL);
}

#[test]
fn digest_wrong_password_stops() {
    digest_case(
        "digest_wrong_password_stops",
        &["-s", "-v", "--digest", "-u", "alice:wrong", "{url}/"],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n1\""),
        challenge("Digest realm=\"r\", nonce=\"n2\""),
    ])
    .compare_stderr(true)
    .normalise_with(auth_lines)
    .run(OXCURL);
}

#[test]
fn digest_stale_nonce_retries() {
    digest_case(
        "digest_stale_nonce_retries",
        &["-s", "--digest", "-u", "alice:secret", "{url}/"],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n1\", qop=\"auth\""),
        challenge("Digest realm=\"r\", nonce=\"n2\", qop=\"auth\", stale=true"),
        Reply::ok("fresh\n"),
    ])
    .run(OXCURL);
}

#[test]
fn digest_with_fail_and_wrong_password() {
    digest_case(
        "digest_with_fail_and_wrong_password",
        &["-sS", "-f", "--digest", "-u", "alice:wrong", "{url}/"],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n1\""),
        challenge("Digest realm=\"r\", nonce=\"n2\""),
    ])
    .compare_stderr(true)
    .run(OXCURL);
}

#[test]
fn digest_bad_challenge_is_ignored() {
    digest_case(
        "digest_bad_challenge_is_ignored",
        &["-s", "-v", "--digest", "-u", "alice:secret", "{url}/"],
    )
    .reply(challenge(
        "Digest realm=\"r\", algorithm=SHA-1, nonce=\"n\"",
    ))
    .compare_stderr(true)
    .normalise_with(auth_lines)
    .run(OXCURL);
}

#[test]
fn digest_challenge_with_connection_close() {
    digest_case(
        "digest_challenge_with_connection_close",
        &["-s", "--digest", "-u", "alice:secret", "{url}/"],
    )
    .replies(vec![
        Reply::status(
            401,
            &[
                ("WWW-Authenticate", "Digest realm=\"r\", nonce=\"n1\""),
                ("Connection", "close"),
            ],
            "denied\n",
        ),
        Reply::ok("ok\n"),
    ])
    .unordered_connections()
    .run(OXCURL);
}

#[test]
fn anyauth_picks_digest() {
    let r = digest_case(
        "anyauth_picks_digest",
        &["-s", "--anyauth", "-u", "alice:secret", "{url}/"],
    )
    .replies(vec![
        Reply::status(
            401,
            &[
                ("WWW-Authenticate", "Basic realm=\"r\""),
                (
                    "WWW-Authenticate",
                    "Digest realm=\"r\", nonce=\"n\", qop=\"auth\"",
                ),
            ],
            "denied\n",
        ),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
    check_digest(&r, "alice", "secret");
}

#[test]
fn anyauth_picks_basic() {
    Case::new("anyauth_picks_basic")
        .args(&["-s", "-v", "--anyauth", "-u", "alice:secret", "{url}/"])
        .replies(vec![challenge("Basic realm=\"r\""), Reply::ok("ok\n")])
        .compare_stderr(true)
        .normalise_with(auth_lines)
        .run(OXCURL);
}

#[test]
fn anyauth_post_sends_body_first() {
    Case::new("anyauth_post_sends_body_first")
        .args(&[
            "-s",
            "--anyauth",
            "-u",
            "alice:secret",
            "-d",
            "x=1",
            "{url}/",
        ])
        .replies(vec![challenge("Basic realm=\"r\""), Reply::ok("ok\n")])
        .run(OXCURL);
}

#[test]
fn anyauth_without_known_scheme() {
    Case::new("anyauth_without_known_scheme")
        .args(&["-s", "--anyauth", "-u", "alice:secret", "{url}/"])
        .reply(challenge("Weird realm=\"r\""))
        .run(OXCURL);
}

#[test]
fn digest_and_basic_together() {
    digest_case(
        "digest_and_basic_together",
        &["-s", "--digest", "--basic", "-u", "alice:secret", "{url}/"],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n\""),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
}

#[test]
fn no_digest_turns_it_off() {
    Case::new("no_digest_turns_it_off")
        .args(&[
            "-s",
            "--digest",
            "--no-digest",
            "--basic",
            "-u",
            "a:b",
            "{url}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn bearer_sent() {
    Case::new("bearer_sent")
        .args(&["-s", "-v", "--oauth2-bearer", "tok123", "{url}/"])
        .reply(Reply::ok("ok\n"))
        .compare_stderr(true)
        .normalise_with(auth_lines)
        .run(OXCURL);
}

#[test]
fn bearer_refused() {
    Case::new("bearer_refused")
        .args(&["-s", "-v", "--oauth2-bearer", "tok123", "{url}/"])
        .reply(challenge("Bearer realm=\"r\""))
        .compare_stderr(true)
        .normalise_with(auth_lines)
        .run(OXCURL);
}

#[test]
fn digest_not_sent_to_other_host_on_redirect() {
    digest_case(
        "digest_not_sent_to_other_host_on_redirect",
        &[
            "-s",
            "-L",
            "--digest",
            "-u",
            "alice:secret",
            "http://127.0.0.1:{port}/a",
        ],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n\""),
        Reply::status(302, &[("Location", "http://localhost:{port}/b")], ""),
        Reply::ok("landed\n"),
    ])
    .run(OXCURL);
}

#[test]
fn auth_headers_with_include() {
    digest_case(
        "auth_headers_with_include",
        &["-s", "-i", "--digest", "-u", "alice:secret", "{url}/"],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n\""),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
}

#[test]
fn write_out_codes_after_auth() {
    digest_case(
        "write_out_codes_after_auth",
        &[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{num_redirects} %{size_download}\\n",
            "--digest",
            "-u",
            "alice:secret",
            "{url}/",
        ],
    )
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n\""),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
}

const NETRC: &str = "machine 127.0.0.1 login alice password secret\n\
                     machine localhost\n  login bob\n  password \"b o b\"\n";

#[test]
fn netrc_file_gives_credentials() {
    Case::new("netrc_file_gives_credentials")
        .file("netrc", NETRC)
        .args(&[
            "-s",
            "--netrc-file",
            "{tmp}/netrc",
            "http://127.0.0.1:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn netrc_quoted_password() {
    Case::new("netrc_quoted_password")
        .file("netrc", NETRC)
        .args(&[
            "-s",
            "--netrc-file",
            "{tmp}/netrc",
            "http://localhost:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn netrc_home_file_with_n() {
    Case::new("netrc_home_file_with_n")
        .file(".netrc", NETRC)
        .env("HOME", "{tmp}")
        .args(&["-s", "-n", "http://127.0.0.1:{port}/"])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn netrc_user_in_url_picks_its_password() {
    Case::new("netrc_user_in_url_picks_its_password")
        .file(
            "netrc",
            "machine 127.0.0.1 login alice password a1\nmachine 127.0.0.1 login bob password b2\n",
        )
        .args(&[
            "-s",
            "--netrc-file",
            "{tmp}/netrc",
            "http://bob@127.0.0.1:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn netrc_required_ignores_url_password() {
    Case::new("netrc_required_ignores_url_password")
        .file("netrc", NETRC)
        .args(&[
            "-s",
            "--netrc-file",
            "{tmp}/netrc",
            "http://alice:url@127.0.0.1:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn netrc_optional_keeps_url_password() {
    Case::new("netrc_optional_keeps_url_password")
        .file("netrc", NETRC)
        .args(&[
            "-s",
            "--netrc-optional",
            "--netrc-file",
            "{tmp}/netrc",
            "http://alice:url@127.0.0.1:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn netrc_user_option_wins() {
    Case::new("netrc_user_option_wins")
        .file("netrc", NETRC)
        .args(&[
            "-s",
            "-n",
            "--netrc-file",
            "{tmp}/netrc",
            "-u",
            "x:y",
            "http://127.0.0.1:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

// ---- .netrc files as curl 8.14.1 reads them (lib/netrc.c) ---------------------------------

/// oxcurl and curl read the same netrc file for `url` (`{port}` filled in): the request (its
/// Authorization line or none), exit code and `-sS` message must agree.
fn netrc_diff(name: &str, file: impl AsRef<[u8]>, url: &str) {
    netrc_case(name, file, url).run(OXCURL);
}

/// [`netrc_diff`] for a file curl refuses (exit 26) before any request.
fn netrc_refused(name: &str, file: impl AsRef<[u8]>, url: &str) {
    netrc_case(name, file, url).expect_failure().run(OXCURL);
}

fn netrc_case(name: &str, file: impl AsRef<[u8]>, url: &str) -> Case {
    Case::new(name)
        .file("netrc", file)
        .args(&["-sS", "--netrc-file", "{tmp}/netrc", url])
        .reply(Reply::ok("ok\n"))
}

const HERE: &str = "http://127.0.0.1:{port}/";

#[test]
fn netrc_macro_body_gives_no_credentials() {
    // The body's `default` and `machine` lines are the macro's text, not entries.
    netrc_diff(
        "netrc_macro_body_gives_no_credentials",
        "macdef init\ndefault login evil password stolen\n\
         machine 127.0.0.1 login evil password x\n\nmachine localhost login b password bp\n",
        HERE,
    );
}

#[test]
fn netrc_macro_body_to_the_end_of_the_file() {
    netrc_diff(
        "netrc_macro_body_to_the_end_of_the_file",
        "machine other login o password o\nmacdef m\ndefault login e password x\n",
        HERE,
    );
}

#[test]
fn netrc_entry_after_a_macro_body() {
    netrc_diff(
        "netrc_entry_after_a_macro_body",
        "macdef m\ncd /pub\n\nmachine 127.0.0.1 login a password p\n",
        HERE,
    );
}

#[test]
fn netrc_macro_name_with_blanks_after_it() {
    netrc_diff(
        "netrc_macro_name_with_blanks_after_it",
        "macdef m \nmachine 127.0.0.1 login a password p\n",
        HERE,
    );
}

#[test]
fn netrc_macro_in_a_crlf_file() {
    netrc_diff(
        "netrc_macro_in_a_crlf_file",
        "macdef m\r\nmachine 127.0.0.1 login a password p\r\n",
        HERE,
    );
}

#[test]
fn netrc_control_character_before_a_token() {
    netrc_refused(
        "netrc_control_character_before_a_token",
        "machine o login a password b \r\nmachine 127.0.0.1 login c password d\r\n",
        HERE,
    );
}

#[test]
fn netrc_token_at_curls_limit() {
    let file = |n: usize| format!("machine 127.0.0.1 login a password {}\n", "x".repeat(n));
    netrc_diff("netrc_token_at_curls_limit_4095", file(4095), HERE);
    netrc_refused("netrc_token_at_curls_limit_4096", file(4096), HERE);
    let quoted = |n: usize| format!("machine 127.0.0.1 login \"{}\" password p\n", "y".repeat(n));
    netrc_diff("netrc_quoted_token_at_curls_limit_4095", quoted(4095), HERE);
    netrc_refused("netrc_quoted_token_at_curls_limit_4096", quoted(4096), HERE);
}

#[test]
fn netrc_comments_and_leading_blanks() {
    netrc_diff(
        "netrc_comments_and_leading_blanks",
        "  # machine 127.0.0.1 login c password c\n\t machine 127.0.0.1\n   login a\n password p\n",
        HERE,
    );
}

#[test]
fn netrc_password_before_the_login_asked_for() {
    netrc_diff(
        "netrc_password_before_the_login_asked_for",
        "machine 127.0.0.1 password P login bob\nmachine 127.0.0.1 login bob password Q\n",
        "http://bob@127.0.0.1:{port}/",
    );
}

#[test]
fn netrc_file_over_curls_size_limit() {
    let mut file = "machine other login o password o\n".repeat(4000);
    file.push_str("machine 127.0.0.1 login a password p\n");
    assert!(file.len() > 128 * 1024);
    netrc_refused("netrc_file_over_curls_size_limit", file, HERE);
    // Comment lines are not kept, so they do not count.
    let mut file = "# a comment that is never kept in memory\n".repeat(4000);
    file.push_str("machine 127.0.0.1 login a password p\n");
    netrc_diff("netrc_comments_over_curls_size_limit", file, HERE);
}

#[test]
fn netrc_overlong_line_ends_the_file() {
    let file = format!(
        "machine other login o password o\n{}\nmachine 127.0.0.1 login a password p\n",
        " ".repeat(16383)
    );
    netrc_diff("netrc_overlong_line_ends_the_file", file, HERE);
    let file = format!(
        "machine other login o password o\n{}\nmachine 127.0.0.1 login a password p\n",
        " ".repeat(16382)
    );
    netrc_diff("netrc_longest_line_is_read", file, HERE);
}

#[test]
fn netrc_nul_bytes() {
    netrc_diff(
        "netrc_nul_byte_inside_a_line",
        b"machine 127.0.0.1\0junk\n login a password p\n",
        HERE,
    );
    netrc_diff(
        "netrc_nul_byte_starting_a_line",
        b"machine other login o password o\n\0machine 127.0.0.1 login a password p\n",
        HERE,
    );
}

#[test]
fn netrc_host_not_found() {
    Case::new("netrc_host_not_found")
        .file("netrc", "machine example.com login a password b\n")
        .args(&[
            "-s",
            "-v",
            "--netrc-file",
            "{tmp}/netrc",
            "http://127.0.0.1:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .compare_stderr(true)
        .normalise_with(auth_lines)
        .run(OXCURL);
}

#[test]
fn netrc_missing_file_is_error_26() {
    Case::new("netrc_missing_file_is_error_26")
        .args(&[
            "-sS",
            "--netrc-file",
            "{tmp}/nope",
            "http://127.0.0.1:{port}/",
        ])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn netrc_optional_missing_file_is_fine() {
    Case::new("netrc_optional_missing_file_is_fine")
        .args(&[
            "-s",
            "--netrc-optional",
            "--netrc-file",
            "{tmp}/nope",
            "http://127.0.0.1:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn netrc_syntax_error() {
    Case::new("netrc_syntax_error")
        .file("netrc", "machine 127.0.0.1 login \"alice password x\n")
        .args(&[
            "-sS",
            "--netrc-file",
            "{tmp}/netrc",
            "http://127.0.0.1:{port}/",
        ])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn netrc_default_entry() {
    Case::new("netrc_default_entry")
        .file(
            "netrc",
            "machine example.com login a password b\ndefault login anon password guest\n",
        )
        .args(&[
            "-s",
            "--netrc-file",
            "{tmp}/netrc",
            "http://127.0.0.1:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn netrc_with_digest() {
    let r = digest_case(
        "netrc_with_digest",
        &[
            "-s",
            "--digest",
            "--netrc-file",
            "{tmp}/netrc",
            "http://127.0.0.1:{port}/",
        ],
    )
    .file("netrc", NETRC)
    .replies(vec![
        challenge("Digest realm=\"r\", nonce=\"n\", qop=\"auth\""),
        Reply::ok("ok\n"),
    ])
    .run(OXCURL);
    check_digest(&r, "alice", "secret");
}

/// A type-2 message without target info or NTLM2 key: curl answers with LM + NTLM v1,
/// which carries no randomness, so the bytes compare exactly.
const TYPE2_V1: &str = "NTLM TlRMTVNTUAACAAAAAgACADAAAACGggEAc51BlZCA7ZcAAAAAAAAAAG4AbgAyAAAAQ0MCAAQAQwBDAAEAEgBFAEwASQBTAEEAQgBFAFQASAAEABgAYwBjAC4AaQBjAGUAZABlAHYALgBuAHUAAwAsAGUAbABpAHMAYQBiAGUAdABoAC4AYwBjAC4AaQBjAGUAZABlAHYALgBuAHUAAAAAAA==";

/// Mask the value of an NTLM type-3 message (random client nonce and time inside).
fn mask_ntlm3(data: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(data);
    s.split_inclusive('\n')
        .map(|l| match l.find("NTLM TlRMTVNTUAAD") {
            Some(i) => {
                // Keep the fixed header (signature, type, first field) for comparison.
                format!("{}NTLM-TYPE3-MASKED\r\n", &l[..i])
            }
            None => l.to_string(),
        })
        .collect::<String>()
        .into_bytes()
}

#[test]
fn ntlm_v1_handshake() {
    Case::new("ntlm_v1_handshake")
        .args(&["-s", "--ntlm", "-u", "dom\\user:pass", "{url}/"])
        .replies(vec![challenge(TYPE2_V1), Reply::ok("ok\n")])
        .run(OXCURL);
}

#[test]
fn ntlm_unicode_user_without_domain() {
    // Flags 0x00008201: unicode, NTLM, always sign.
    Case::new("ntlm_unicode_user_without_domain")
        .args(&["-s", "--ntlm", "-u", "testuser:testpass", "{url}/"])
        .replies(vec![
            challenge("NTLM TlRMTVNTUAACAAAAAAAAADAAAAABggAAU2VydmVyTm9uY2UAAAAAAAAAAAA="),
            Reply::ok("ok\n"),
        ])
        .run(OXCURL);
}

#[test]
fn ntlm_verbose_lines() {
    Case::new("ntlm_verbose_lines")
        .args(&["-s", "-v", "--ntlm", "-u", "dom\\user:pass", "{url}/"])
        .replies(vec![
            challenge("NTLM"),
            challenge(TYPE2_V1),
            Reply::ok("ok\n"),
        ])
        .compare_stderr(true)
        .normalise_with(auth_lines)
        .run(OXCURL);
}

#[test]
fn ntlm_v2_with_target_info() {
    // Flags 0x00888205 (unicode, NTLM, NTLM2 key, target info); the answer is NTLMv2 with a
    // random client nonce and the time, so only its layout and the rest of the exchange
    // compare.
    let t2 = "NTLM TlRMTVNTUAACAAAAAAAAADAAAAAFgogAASNFZ4mrze8AAAAAAAAAABQAFAAwAAAAAgAMAEQATwBNAEEASQBOAAAAAAA=";
    let r = Case::new("ntlm_v2_with_target_info")
        .args(&["-s", "--ntlm", "-u", "user:pass", "{url}/"])
        .replies(vec![challenge(t2), Reply::ok("ok\n")])
        .normalise_requests_with(mask_ntlm3)
        .run(OXCURL);
    let auth = r.oxcurl.requests[1].header("Authorization").unwrap();
    let v = auth.strip_prefix("NTLM ").unwrap();
    let refv = r.reference.requests[1].header("Authorization").unwrap();
    // Same layout: the header with the field lengths and offsets (LMv2 24, NTLMv2 16 + a
    // blob carrying the target info) and the same total length.
    assert_eq!(v.len(), refv.len() - 5, "{auth} vs {refv}");
    assert_eq!(&v[..60], &refv[5..65], "{auth} vs {refv}");

    // A target info flag without the NTLM2 key flag is answered with v1 (exact bytes).
    Case::new("ntlm_target_info_without_ntlm2_key")
        .args(&["-s", "--ntlm", "-u", "user:pass", "{url}/"])
        .replies(vec![
            challenge("NTLM TlRMTVNTUAACAAAADAAMADAAAAAFgoEAASNFZ4mrze8AAAAAAAAAACQAJAA8AAAARABPAE0AQQBJAE4AAgAMAEQATwBNAEEASQBOAAEADABTAEUAUgBWAEUAUgAAAAAA"),
            Reply::ok("ok\n"),
        ])
        .run(OXCURL);
}

#[test]
fn ntlm_rejected_after_type3() {
    Case::new("ntlm_rejected_after_type3")
        .args(&["-s", "-v", "--ntlm", "-u", "dom\\user:wrong", "{url}/"])
        .replies(vec![challenge(TYPE2_V1), challenge("NTLM")])
        .compare_stderr(true)
        .normalise_with(auth_lines)
        .run(OXCURL);
}

#[test]
fn ntlm_post_probe() {
    Case::new("ntlm_post_probe")
        .args(&[
            "-s",
            "--ntlm",
            "-u",
            "dom\\user:pass",
            "-d",
            "data=1",
            "{url}/",
        ])
        .replies(vec![challenge(TYPE2_V1), Reply::ok("ok\n")])
        .run(OXCURL);
}

#[test]
fn anyauth_picks_ntlm_over_basic() {
    Case::new("anyauth_picks_ntlm_over_basic")
        .args(&["-s", "--anyauth", "-u", "dom\\user:pass", "{url}/"])
        .replies(vec![
            Reply::status(
                401,
                &[
                    ("WWW-Authenticate", "Basic realm=\"r\""),
                    ("WWW-Authenticate", "NTLM"),
                ],
                "",
            ),
            challenge(TYPE2_V1),
            Reply::ok("ok\n"),
        ])
        .run(OXCURL);
}

/// Run both clients under libfaketime with a frozen wall clock (monotonic time stays real),
/// so AWS SigV4 timestamps and signatures are the same for both and compare byte for byte.
/// `scripts/test.sh` installs Debian's `faketime`.
fn frozen_clock(c: Case) -> Case {
    let lib = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .map(|d| d.path().join("faketime/libfaketime.so.1"))
        .find(|p| p.exists())
        .expect("libfaketime (Debian package faketime) is needed for the SigV4 tests");
    c.env("LD_PRELOAD", lib.to_str().unwrap())
        .env("FAKETIME", "2026-01-02 03:04:05")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env("FAKETIME_DONT_RESET", "1")
}

fn sigv4_lines(d: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(d)
        .lines()
        .filter(|l| {
            l.starts_with("> ")
                || !l.starts_with(['<', '{', '}', '*'])
                || l.contains("aws_sigv4")
                || l.contains("auth using")
        })
        .filter(|l| !l.contains("Trying") && !l.contains("Connected") && !l.starts_with("< "))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn sigv4_s3_get() {
    frozen_clock(Case::new("sigv4_s3_get"))
        .args(&[
            "-s",
            "-v",
            "--aws-sigv4",
            "aws:amz:us-east-1:s3",
            "-u",
            "AKID:SECRET",
            "{url}/bucket/k%2fey?b=2&a=1&c&x=%2a",
        ])
        .reply(Reply::ok("ok\n"))
        .compare_stderr(true)
        .normalise_with(sigv4_lines)
        .run(OXCURL);
}

#[test]
fn sigv4_service_and_region_from_host_with_post() {
    frozen_clock(Case::new("sigv4_service_and_region_from_host_with_post"))
        .args(&[
            "-s",
            "--aws-sigv4",
            "aws:amz",
            "-u",
            "AKID:SECRET",
            "-H",
            "X-Amz-Meta:  a   b ",
            "-d",
            "body",
            "--resolve",
            "ec2.us-west-2.amazonaws.com:{port}:127.0.0.1",
            "http://ec2.us-west-2.amazonaws.com:{port}/",
        ])
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn sigv4_other_provider_encodes_path_and_uses_date_header() {
    frozen_clock(Case::new(
        "sigv4_other_provider_encodes_path_and_uses_date_header",
    ))
    .args(&[
        "-s",
        "-v",
        "--aws-sigv4",
        "osc:xyz:eu:ec2",
        "-u",
        "AKID:SECRET",
        "-H",
        "Content-Type: text/x",
        "-H",
        "x-xyz-foo:  v  w ",
        "-H",
        "Date: 20250101T000000Z",
        "-T",
        "{tmp}/up.txt",
        "{url}/a%7eb/c%20d+e~?q=1",
    ])
    .file("up.txt", "upload body\n")
    .reply(Reply::ok("ok\n"))
    .compare_stderr(true)
    .normalise_with(sigv4_lines)
    .run(OXCURL);
}

#[test]
fn sigv4_s3_upload_is_unsigned_payload() {
    frozen_clock(Case::new("sigv4_s3_upload_is_unsigned_payload"))
        .args(&[
            "-s",
            "--aws-sigv4",
            "aws:amz:us-east-1:s3",
            "-u",
            "AKID:SECRET",
            "-T",
            "{tmp}/up.txt",
            "{url}/bucket/",
        ])
        .file("up.txt", "upload body\n")
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

/// A SigV4 request for `query` (after `?`), compared with curl's with `-v`: the canonical
/// request in curl's notes and the signature sent.
fn sigv4_query_case(name: &str, query: &str) {
    let url = format!("{{url}}/bucket/key?{query}");
    frozen_clock(Case::new(name))
        .args(&[
            "-s",
            "-v",
            "--aws-sigv4",
            "aws:amz:us-east-1:ec2",
            "-u",
            "AKID:SECRET",
            &url,
        ])
        .reply(Reply::ok("ok\n"))
        .compare_stderr(true)
        .normalise_with(sigv4_lines)
        .run(OXCURL);
}

#[test]
fn sigv4_query_keys_and_values_sorted_and_encoded_again() {
    // Decoded and encoded again (`+` and `%20` alike), sorted by key then value, empty
    // values and keys first, only the first `=` splitting.
    sigv4_query_case(
        "sigv4_query_keys_and_values_sorted_and_encoded_again",
        "b=%7e+x&a=2&a=1&a&b=&&c=d=e&=z&%41=%2a",
    );
}

#[test]
fn sigv4_query_keys_that_prefix_each_other() {
    // Keys that are prefixes of each other, enough of them for the sort to notice a
    // comparison that is not an order.
    let keys: Vec<String> = (0..40)
        .map(|i| "a".repeat(i % 7 + 1) + ["", "b", "c"][i % 3])
        .collect();
    sigv4_query_case("sigv4_query_keys_that_prefix_each_other", &keys.join("&"));
}

#[test]
fn sigv4_query_with_too_many_parts() {
    for (name, n) in [
        ("sigv4_query_with_127_parts", 127),
        ("sigv4_query_with_128_parts", 128),
    ] {
        let q: Vec<String> = (0..n).map(|i| format!("k{i}=v")).collect();
        frozen_clock(Case::new(name))
            .args(&[
                "-sS",
                "--aws-sigv4",
                "aws:amz:us-east-1:s3",
                "-u",
                "AKID:SECRET",
                &format!("{{url}}/b?{}", q.join("&")),
            ])
            .reply(Reply::ok("ok\n"))
            .compare_stderr(true)
            .run(OXCURL);
    }
}

#[test]
fn sigv4_spec_parts_as_curl_8_14_1_reads_them() {
    // Each part is 1 to 64 bytes: a longer first provider is refused, a missing or too long
    // second one is the first, and region and service stop at the first that does not parse
    // (the rest then comes from the host name).
    let long = "p".repeat(65);
    // 65 bytes with a character across byte 64.
    let wide = format!("a{}", "\u{e9}".repeat(32));
    let specs = [
        (
            "sigv4_spec_first_provider_too_long",
            format!("{long}:amz:r:s"),
            true,
        ),
        (
            "sigv4_spec_first_provider_non_ascii",
            format!("{wide}:x"),
            true,
        ),
        (
            "sigv4_spec_second_provider_too_long",
            format!("aws:{long}:r:s"),
            false,
        ),
        (
            "sigv4_spec_empty_second_provider",
            "aws::r:s".to_string(),
            false,
        ),
        (
            "sigv4_spec_region_without_service",
            "aws:amz:eu-1".to_string(),
            false,
        ),
        (
            "sigv4_spec_service_with_a_blank",
            "aws:amz:eu-1:s3 x".to_string(),
            false,
        ),
    ];
    for (name, spec, refused) in specs {
        frozen_clock(Case::new(name))
            .args(&[
                "-sS",
                "-v",
                "--aws-sigv4",
                &spec,
                "-u",
                "AKID:SECRET",
                "--resolve",
                "ec2.us-west-2.amazonaws.com:{port}:127.0.0.1",
                "http://ec2.us-west-2.amazonaws.com:{port}/",
            ])
            .reply(Reply::ok("ok\n"))
            .compare_stderr(true)
            .normalise_with(sigv4_lines)
            .expect_failure_if(refused)
            .run(OXCURL);
    }
}

#[test]
fn sigv4_missing_service_is_url_error() {
    Case::new("sigv4_missing_service_is_url_error")
        // "localhost" has no dot to take a service name from.
        .args(&[
            "-sS",
            "--aws-sigv4",
            "aws:amz",
            "-u",
            "a:b",
            "http://localhost:{port}/",
        ])
        .compare_stderr(true)
        .run(OXCURL);
}

fn proxy_challenge(value: &str) -> Reply {
    Reply::status(407, &[("Proxy-Authenticate", value)], "auth!")
}

#[test]
fn proxy_digest_through_connect() {
    digest_case(
        "proxy_digest_through_connect",
        &[
            "-s",
            "-v",
            "-p",
            "-x",
            "{url}",
            "--proxy-digest",
            "-U",
            "pu:pp",
            "http://example.test/path",
        ],
    )
    .replies(vec![
        proxy_challenge("Digest realm=\"p\", nonce=\"n1\", qop=\"auth\""),
        Reply::raw("HTTP/1.1 200 Connection established\r\n\r\n"),
        Reply::ok("through\n"),
    ])
    .compare_stderr(true)
    .normalise_with(auth_lines)
    .run(OXCURL);
}

#[test]
fn proxy_digest_absolute_form() {
    digest_case(
        "proxy_digest_absolute_form",
        &[
            "-s",
            "-x",
            "{url}",
            "--proxy-digest",
            "-U",
            "pu:pp",
            "http://example.test/path?q=1",
        ],
    )
    .replies(vec![
        proxy_challenge("Digest realm=\"p\", nonce=\"n1\""),
        Reply::ok("proxied\n"),
    ])
    .run(OXCURL);
}

#[test]
fn proxy_ntlm_through_connect() {
    Case::new("proxy_ntlm_through_connect")
        .args(&[
            "-s",
            "-p",
            "-x",
            "{url}",
            "--proxy-ntlm",
            "-U",
            "dom\\pu:pp",
            "http://example.test/",
        ])
        .replies(vec![
            proxy_challenge(TYPE2_V1),
            Reply::raw("HTTP/1.1 200 Connection established\r\n\r\n"),
            Reply::ok("through\n"),
        ])
        .run(OXCURL);
}

#[test]
fn proxy_anyauth_picks_digest() {
    digest_case(
        "proxy_anyauth_picks_digest",
        &[
            "-s",
            "-x",
            "{url}",
            "--proxy-anyauth",
            "-U",
            "pu:pp",
            "http://example.test/",
        ],
    )
    .replies(vec![
        Reply::status(
            407,
            &[
                ("Proxy-Authenticate", "Basic realm=\"p\""),
                ("Proxy-Authenticate", "Digest realm=\"p\", nonce=\"n\""),
            ],
            "",
        ),
        Reply::ok("proxied\n"),
    ])
    .run(OXCURL);
}

#[test]
fn proxy_connect_407_with_close_reconnects() {
    digest_case(
        "proxy_connect_407_with_close_reconnects",
        &[
            "-s",
            "-p",
            "-x",
            "{url}",
            "--proxy-digest",
            "-U",
            "pu:pp",
            "http://example.test/",
        ],
    )
    .replies(vec![
        Reply::status(
            407,
            &[
                ("Proxy-Authenticate", "Digest realm=\"p\", nonce=\"n1\""),
                ("Connection", "close"),
            ],
            "",
        ),
        Reply::raw("HTTP/1.1 200 Connection established\r\n\r\n"),
        Reply::ok("through\n"),
    ])
    .unordered_connections()
    .run(OXCURL);
}

#[test]
fn proxy_digest_wrong_password_fails_56() {
    digest_case(
        "proxy_digest_wrong_password_fails_56",
        &[
            "-sS",
            "-p",
            "-x",
            "{url}",
            "--proxy-digest",
            "-U",
            "pu:wrong",
            "http://example.test/",
        ],
    )
    .replies(vec![
        proxy_challenge("Digest realm=\"p\", nonce=\"n1\""),
        proxy_challenge("Digest realm=\"p\", nonce=\"n2\""),
    ])
    .compare_stderr(true)
    .run(OXCURL);
}

#[test]
fn proxy_and_server_digest_together() {
    digest_case(
        "proxy_and_server_digest_together",
        &[
            "-s",
            "-x",
            "{url}",
            "--proxy-digest",
            "-U",
            "pu:pp",
            "--digest",
            "-u",
            "su:sp",
            "http://example.test/",
        ],
    )
    .replies(vec![
        proxy_challenge("Digest realm=\"p\", nonce=\"pn\""),
        challenge("Digest realm=\"s\", nonce=\"sn\""),
        Reply::ok("both\n"),
    ])
    .run(OXCURL);
}
