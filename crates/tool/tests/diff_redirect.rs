//! Differential tests: following redirects (-L and friends) against the reference
//! curl 8.14.1.

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn redirect_case(name: &str, code: u16, args: &[&str]) -> Case {
    Case::new(name).args(args).server(move |s| {
        s.route("/start", Reply::redirect(code, "/final"));
        s.route("/final", Reply::ok("final body\n"));
    })
}

#[test]
fn follow_301_get() {
    redirect_case("follow_301_get", 301, &["-s", "-L", "{url}/start"]).run(OXCURL);
}

#[test]
fn follow_302_get() {
    redirect_case("follow_302_get", 302, &["-s", "-L", "{url}/start"]).run(OXCURL);
}

#[test]
fn follow_303_get() {
    redirect_case("follow_303_get", 303, &["-s", "-L", "{url}/start"]).run(OXCURL);
}

#[test]
fn follow_307_get() {
    redirect_case("follow_307_get", 307, &["-s", "-L", "{url}/start"]).run(OXCURL);
}

#[test]
fn follow_308_get() {
    redirect_case("follow_308_get", 308, &["-s", "-L", "{url}/start"]).run(OXCURL);
}

#[test]
fn follow_301_post_becomes_get() {
    redirect_case(
        "follow_301_post_becomes_get",
        301,
        &["-s", "-L", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_302_post_becomes_get() {
    redirect_case(
        "follow_302_post_becomes_get",
        302,
        &["-s", "-L", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_303_post_becomes_get() {
    redirect_case(
        "follow_303_post_becomes_get",
        303,
        &["-s", "-L", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_307_post_kept() {
    redirect_case(
        "follow_307_post_kept",
        307,
        &["-s", "-L", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_308_post_kept() {
    redirect_case(
        "follow_308_post_kept",
        308,
        &["-s", "-L", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_301_post_with_post301() {
    redirect_case(
        "follow_301_post_with_post301",
        301,
        &["-s", "-L", "--post301", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_302_post_with_post302() {
    redirect_case(
        "follow_302_post_with_post302",
        302,
        &["-s", "-L", "--post302", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_303_post_with_post303() {
    redirect_case(
        "follow_303_post_with_post303",
        303,
        &["-s", "-L", "--post303", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_302_post_with_post301_only() {
    redirect_case(
        "follow_302_post_with_post301_only",
        302,
        &["-s", "-L", "--post301", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_302_custom_post_method_kept() {
    redirect_case(
        "follow_302_custom_post_method_kept",
        302,
        &["-s", "-L", "-X", "POST", "-d", "a=1", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_303_put_upload_becomes_get() {
    redirect_case(
        "follow_303_put_upload_becomes_get",
        303,
        &["-s", "-L", "-T", "{tmp}/up", "{url}/start"],
    )
    .file("up", "upload\n")
    .run(OXCURL);
}

#[test]
fn follow_307_put_upload_resent() {
    redirect_case(
        "follow_307_put_upload_resent",
        307,
        &["-s", "-L", "-T", "{tmp}/up", "{url}/start"],
    )
    .file("up", "upload\n")
    .run(OXCURL);
}

#[test]
fn follow_302_head() {
    redirect_case("follow_302_head", 302, &["-s", "-L", "-I", "{url}/start"]).run(OXCURL);
}

#[test]
fn no_follow_prints_redirect_body() {
    Case::new("no_follow_prints_redirect_body")
        .args(&["-s", "{url}/start"])
        .reply(Reply::status(302, &[("Location", "/final")], "moved\n"))
        .run(OXCURL);
}

#[test]
fn follow_skips_redirect_body() {
    Case::new("follow_skips_redirect_body")
        .args(&["-s", "-L", "{url}/start"])
        .server(|s| {
            s.route(
                "/start",
                Reply::status(302, &[("Location", "/final")], "moved body\n"),
            );
            s.route("/final", Reply::ok("final\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_include_shows_both_heads() {
    redirect_case(
        "follow_include_shows_both_heads",
        301,
        &["-s", "-i", "-L", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_dump_header_both_heads() {
    redirect_case(
        "follow_dump_header_both_heads",
        301,
        &["-s", "-D", "{tmp}/h", "-L", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_writeout_counts() {
    redirect_case(
        "follow_writeout_counts",
        302,
        &[
            "-s",
            "-L",
            "-o",
            "/dev/null",
            "-w",
            "%{num_redirects} %{url_effective} %{http_code}\n",
            "{url}/start",
        ],
    )
    .run(OXCURL);
}

#[test]
fn no_follow_writeout_redirect_url() {
    redirect_case(
        "no_follow_writeout_redirect_url",
        302,
        &[
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{redirect_url}\n",
            "{url}/start",
        ],
    )
    .run(OXCURL);
}

#[test]
fn no_location_cancels_follow() {
    redirect_case(
        "no_location_cancels_follow",
        302,
        &["-s", "-L", "--no-location", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_chain_of_three() {
    Case::new("follow_chain_of_three")
        .args(&["-s", "-L", "-w", "%{num_redirects}\n", "{url}/a"])
        .server(|s| {
            s.route("/a", Reply::redirect(301, "/b"));
            s.route("/b", Reply::redirect(302, "/c"));
            s.route("/c", Reply::redirect(307, "/d"));
            s.route("/d", Reply::ok("end\n"));
        })
        .run(OXCURL);
}

#[test]
fn max_redirs_exceeded() {
    Case::new("max_redirs_exceeded")
        .args(&["-sS", "-L", "--max-redirs", "2", "{url}/loop"])
        .reply(Reply::redirect(302, "/loop"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn max_redirs_zero() {
    Case::new("max_redirs_zero")
        .args(&["-sS", "-L", "--max-redirs", "0", "{url}/loop"])
        .reply(Reply::redirect(302, "/loop"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn max_redirs_exact_limit_ok() {
    Case::new("max_redirs_exact_limit_ok")
        .args(&["-s", "-L", "--max-redirs", "1", "{url}/a"])
        .server(|s| {
            s.route("/a", Reply::redirect(302, "/b"));
            s.route("/b", Reply::ok("ok\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_relative_location() {
    Case::new("follow_relative_location")
        .args(&["-s", "-L", "{url}/dir/sub/start"])
        .server(|s| {
            s.route("/dir/sub/start", Reply::redirect(302, "../other?x=1"));
            s.route("/dir/other", Reply::ok("rel\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_query_only_location() {
    Case::new("follow_query_only_location")
        .args(&["-s", "-L", "{url}/p?a=1"])
        .server(|s| {
            s.route("/p?a=1", Reply::redirect(302, "?b=2"));
            s.route("/p?b=2", Reply::ok("q\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_absolute_location_same_host() {
    Case::new("follow_absolute_location_same_host")
        .args(&["-s", "-L", "{url}/start"])
        .server(|s| {
            let port = s.port();
            s.route(
                "/start",
                Reply::redirect(301, &format!("http://127.0.0.1:{port}/abs")),
            );
            s.route("/abs", Reply::ok("abs\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_location_with_space_encoded() {
    Case::new("follow_location_with_space_encoded")
        .args(&["-s", "-L", "{url}/start"])
        .server(|s| {
            s.route("/start", Reply::redirect(302, "/with space"));
        })
        .reply(Reply::ok("spaced\n"))
        .run(OXCURL);
}

#[test]
fn follow_other_host_drops_credentials() {
    Case::new("follow_other_host_drops_credentials")
        .args(&[
            "-s",
            "-L",
            "-u",
            "user:secret",
            "--resolve",
            "a.test:{port}:127.0.0.1",
            "--resolve",
            "b.test:{port}:127.0.0.1",
            "http://a.test:{port}/start",
        ])
        .server(|s| {
            let port = s.port();
            s.route(
                "/start",
                Reply::redirect(302, &format!("http://b.test:{port}/final")),
            );
            s.route("/final", Reply::ok("other host\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_other_host_location_trusted_sends_credentials() {
    Case::new("follow_other_host_location_trusted_sends_credentials")
        .args(&[
            "-s",
            "--location-trusted",
            "-u",
            "user:secret",
            "--resolve",
            "a.test:{port}:127.0.0.1",
            "--resolve",
            "b.test:{port}:127.0.0.1",
            "http://a.test:{port}/start",
        ])
        .server(|s| {
            let port = s.port();
            s.route(
                "/start",
                Reply::redirect(302, &format!("http://b.test:{port}/final")),
            );
            s.route("/final", Reply::ok("other host\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_same_host_keeps_credentials() {
    redirect_case(
        "follow_same_host_keeps_credentials",
        302,
        &["-s", "-L", "-u", "user:secret", "{url}/start"],
    )
    .run(OXCURL);
}

#[test]
fn follow_other_host_drops_custom_cookie_header() {
    Case::new("follow_other_host_drops_custom_cookie_header")
        .args(&[
            "-s",
            "-L",
            "-H",
            "Cookie: c=1",
            "-H",
            "X-Keep: 1",
            "--resolve",
            "a.test:{port}:127.0.0.1",
            "--resolve",
            "b.test:{port}:127.0.0.1",
            "http://a.test:{port}/start",
        ])
        .server(|s| {
            let port = s.port();
            s.route(
                "/start",
                Reply::redirect(302, &format!("http://b.test:{port}/final")),
            );
            s.route("/final", Reply::ok("other host\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_other_port_new_connection() {
    // The second server is the same scripted server reached through a different name
    // and, with --connect-to, a different nominal port.
    Case::new("follow_other_port_new_connection")
        .args(&[
            "-s",
            "-L",
            "-u",
            "u:p",
            "--connect-to",
            "::127.0.0.1:{port}",
            "http://127.0.0.1:{port}/start",
        ])
        .server(|s| {
            s.route("/start", Reply::redirect(302, "http://127.0.0.1:1/final"));
            s.route("/final", Reply::ok("moved port\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_redirect_with_connection_close() {
    Case::new("follow_redirect_with_connection_close")
        .args(&["-s", "-L", "{url}/start"])
        .server(|s| {
            s.route(
                "/start",
                Reply::status(302, &[("Location", "/final"), ("Connection", "close")], ""),
            );
            s.route("/final", Reply::ok("after close\n"));
        })
        .run(OXCURL);
}

#[test]
fn follow_redirect_to_unsupported_scheme() {
    Case::new("follow_redirect_to_unsupported_scheme")
        .args(&["-sS", "-L", "{url}/start"])
        .reply(Reply::redirect(302, "nope://x/y"))
        .compare_stderr(true)
        .run(OXCURL);
}

#[test]
fn location_without_follow_with_include() {
    redirect_case(
        "location_without_follow_with_include",
        301,
        &["-s", "-i", "{url}/start"],
    )
    .run(OXCURL);
}
