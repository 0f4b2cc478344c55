//! Differential tests: how oxcurl writes its output files (`--no-clobber`,
//! `--remove-on-error`, `-R`) and which protocols it allows (`--proto`, `--proto-redir`),
//! against the reference curl 8.14.1.

use std::path::Path;
use std::process::Command;

use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{reference_curl, Case, Reply, ScriptedServer, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

// ---- --no-clobber ---------------------------------------------------------------

#[test]
fn no_clobber_numbers_the_name() {
    Case::new("no_clobber_numbers_the_name")
        .args(&[
            "-s",
            "--no-clobber",
            "-o",
            "{tmp}/out",
            "-w",
            "%{filename_effective}\n",
            "{url}/",
        ])
        .file("out", "old\n")
        .file("out.1", "old one\n")
        .reply(Reply::ok("new\n"))
        .run(OXCURL);
}

#[test]
fn no_clobber_new_file_keeps_name() {
    Case::new("no_clobber_new_file_keeps_name")
        .args(&[
            "-s",
            "--no-clobber",
            "-O",
            "--output-dir",
            "{tmp}",
            "{url}/f.txt",
        ])
        .reply(Reply::ok("fresh\n"))
        .run(OXCURL);
}

#[test]
fn no_clobber_then_clobber_overwrites() {
    Case::new("no_clobber_then_clobber_overwrites")
        .args(&[
            "-s",
            "--no-clobber",
            "--clobber",
            "-o",
            "{tmp}/out",
            "{url}/",
        ])
        .file("out", "old old old\n")
        .reply(Reply::ok("new\n"))
        .run(OXCURL);
}

#[test]
fn no_clobber_directory_in_the_way() {
    Case::new("no_clobber_directory_in_the_way")
        .args(&["-s", "--no-clobber", "-o", "{tmp}/d", "{url}/"])
        .setup(|dir| std::fs::create_dir(dir.join("d")).unwrap())
        .reply(Reply::ok("body\n"))
        .run(OXCURL);
}

// ---- --remove-on-error ----------------------------------------------------------

#[test]
fn remove_on_error_after_partial_body() {
    Case::new("remove_on_error_after_partial_body")
        .args(&["-sS", "--remove-on-error", "-o", "{tmp}/part", "{url}/"])
        .compare_stderr(true)
        .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly some").close())
        .run(OXCURL);
}

#[test]
fn partial_body_kept_without_remove_on_error() {
    Case::new("partial_body_kept_without_remove_on_error")
        .args(&["-sS", "-o", "{tmp}/part", "{url}/"])
        .compare_stderr(true)
        .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly some").close())
        .run(OXCURL);
}

#[test]
fn remove_on_error_with_fail_with_body() {
    Case::new("remove_on_error_with_fail_with_body")
        .args(&[
            "-sS",
            "--fail-with-body",
            "--remove-on-error",
            "-o",
            "{tmp}/err",
            "{url}/",
        ])
        .compare_stderr(true)
        .reply(Reply::status(500, &[], "server broke\n"))
        .run(OXCURL);
}

#[test]
fn remove_on_error_success_keeps_file() {
    Case::new("remove_on_error_success_keeps_file")
        .args(&["-sS", "--remove-on-error", "-o", "{tmp}/ok", "{url}/"])
        .reply(Reply::ok("fine\n"))
        .run(OXCURL);
}

// ---- -R / --remote-time ---------------------------------------------------------

/// Download with `-R` and return the file's modification time (seconds since the epoch).
fn mtime_after(program: &Path, reply: Reply, extra: &[&str]) -> Option<i64> {
    let server = ScriptedServer::with_replies(vec![reply]);
    let dir = TempDir::new("remote_time");
    let out = dir.path().join("f");
    let status = Command::new(program)
        .args(["-s", "-o"])
        .arg(&out)
        .args(extra)
        .arg(format!("{}/", server.url()))
        .status()
        .unwrap();
    assert!(status.success());
    let m = std::fs::metadata(&out).ok()?.modified().ok()?;
    Some(
        m.duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or_else(|e| -(e.duration().as_secs() as i64)),
    )
}

#[test]
fn remote_time_sets_mtime_from_last_modified() {
    let reply = || {
        Reply::status(
            200,
            &[("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")],
            "dated\n",
        )
    };
    let ours = mtime_after(&under_test(OXCURL), reply(), &["-R"]);
    let theirs = mtime_after(&reference_curl(), reply(), &["-R"]);
    assert_eq!(ours, Some(1445412480));
    assert_eq!(ours, theirs);
}

#[test]
fn remote_time_without_last_modified_leaves_mtime() {
    let ours = mtime_after(&under_test(OXCURL), Reply::ok("x\n"), &["-R"]).unwrap();
    let theirs = mtime_after(&reference_curl(), Reply::ok("x\n"), &["-R"]).unwrap();
    let now = oxcurl_core_now();
    assert!((now - ours).abs() < 60 && (now - theirs).abs() < 60);
}

#[test]
fn no_remote_time_by_default() {
    let reply = Reply::status(
        200,
        &[("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")],
        "dated\n",
    );
    let ours = mtime_after(&under_test(OXCURL), reply, &[]).unwrap();
    assert!((oxcurl_core_now() - ours).abs() < 60);
}

fn oxcurl_core_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

// ---- --proto / --proto-redir ----------------------------------------------------

fn proto_case(name: &str, args: &[&str]) -> Case {
    Case::new(name).args(args).compare_stderr(true)
}

#[test]
fn proto_only_https_refuses_http() {
    proto_case(
        "proto_only_https_refuses_http",
        &["-sS", "--proto", "=https", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn proto_refusal_shows_no_meter() {
    proto_case(
        "proto_refusal_shows_no_meter",
        &["--proto", "=https", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn proto_deny_http() {
    proto_case("proto_deny_http", &["-sS", "--proto", "-http", "{url}/"])
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn proto_all_then_add() {
    proto_case(
        "proto_all_then_add",
        &["-sS", "--proto", "-all,+http", "{url}/"],
    )
    .reply(Reply::ok("allowed\n"))
    .run(OXCURL);
}

#[test]
fn proto_unknown_name_warns() {
    proto_case(
        "proto_unknown_name_warns",
        &["--proto", "=foo,http", "{url}/"],
    )
    .args(&["--no-progress-meter"])
    .reply(Reply::ok("allowed\n"))
    .run(OXCURL);
}

#[test]
fn proto_unknown_alone_disables_all() {
    proto_case(
        "proto_unknown_alone_disables_all",
        &["--no-progress-meter", "--proto", "=nope", "{url}/"],
    )
    .expect_failure()
    .run(OXCURL);
}

#[test]
fn proto_warning_silenced_by_s() {
    proto_case(
        "proto_warning_silenced_by_s",
        &["-s", "--proto", "bogus", "{url}/"],
    )
    .reply(Reply::ok("allowed\n"))
    .run(OXCURL);
}

#[test]
fn proto_last_one_wins() {
    proto_case(
        "proto_last_one_wins",
        &["-sS", "--proto", "=https", "--proto", "http", "{url}/"],
    )
    .reply(Reply::ok("allowed\n"))
    .run(OXCURL);
}

#[test]
fn proto_redir_refuses_https_target() {
    proto_case(
        "proto_redir_refuses_https_target",
        &["-sS", "-L", "--proto-redir", "=http", "{url}/start"],
    )
    .reply(Reply::redirect(302, "https://127.0.0.1:1/x"))
    .run(OXCURL);
}

#[test]
fn proto_redir_allows_http_target() {
    proto_case(
        "proto_redir_allows_http_target",
        &["-sS", "-L", "--proto-redir", "-all,http", "{url}/start"],
    )
    .server(|s| {
        s.route("/start", Reply::redirect(302, "/end"));
        s.route("/end", Reply::ok("end\n"));
    })
    .run(OXCURL);
}

#[test]
fn proto_restricts_redirects_too() {
    proto_case(
        "proto_restricts_redirects_too",
        &["-sS", "-L", "--proto", "=http", "{url}/start"],
    )
    .reply(Reply::redirect(302, "https://127.0.0.1:1/x"))
    .run(OXCURL);
}

// ---- -z / --time-cond -----------------------------------------------------------

const LM: &str = "Wed, 21 Oct 2015 07:28:00 GMT";

fn dated(body: &str) -> Reply {
    Reply::status(200, &[("Last-Modified", LM)], body)
}

fn tc_case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(&[
            "--no-progress-meter",
            "-w",
            "%{http_code} %{size_download}\n",
        ])
        .args(args)
        .compare_stderr(true)
}

#[test]
fn time_cond_not_new_enough_skips_body() {
    tc_case(
        "time_cond_not_new_enough_skips_body",
        &["-z", LM, "-o", "{tmp}/out", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_newer_document_is_fetched() {
    tc_case(
        "time_cond_newer_document_is_fetched",
        &["-z", "Tue, 20 Oct 2015 00:00:00 GMT", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_unmodified_since_not_old_enough() {
    tc_case(
        "time_cond_unmodified_since_not_old_enough",
        &["-z", "-Tue, 20 Oct 2015 00:00:00 GMT", "-i", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_unmodified_since_old_enough() {
    tc_case(
        "time_cond_unmodified_since_old_enough",
        &["-z", "-Thu, 22 Oct 2015 00:00:00 GMT", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_plus_prefix_and_other_date_format() {
    tc_case(
        "time_cond_plus_prefix_and_other_date_format",
        &["-z", "+20151021 07:28:01", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_last_modified_header() {
    tc_case(
        "time_cond_last_modified_header",
        &["-z", "=1 Jan 2001", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_from_file_mtime() {
    tc_case("time_cond_from_file_mtime", &["-z", "{tmp}/ref", "{url}/"])
        .setup(|dir| {
            let f = std::fs::File::create(dir.join("ref")).unwrap();
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1445412480 + 60);
            f.set_times(std::fs::FileTimes::new().set_modified(t))
                .unwrap();
        })
        .compare_files(false)
        .reply(dated("the body\n"))
        .run(OXCURL);
}

#[test]
fn time_cond_neither_date_nor_file_warns() {
    tc_case(
        "time_cond_neither_date_nor_file_warns",
        &["-z", "{tmp}/missing", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_custom_header_wins() {
    tc_case(
        "time_cond_custom_header_wins",
        &["-z", LM, "-H", "If-Modified-Since: yesterday", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_ignored_with_range() {
    tc_case(
        "time_cond_ignored_with_range",
        &["-z", LM, "-r", "0-3", "{url}/"],
    )
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn time_cond_without_last_modified() {
    tc_case("time_cond_without_last_modified", &["-z", LM, "{url}/"])
        .reply(Reply::ok("undated\n"))
        .run(OXCURL);
}

#[test]
fn time_cond_unreadable_last_modified() {
    tc_case("time_cond_unreadable_last_modified", &["-z", LM, "{url}/"])
        .reply(Reply::status(200, &[("Last-Modified", "whenever")], "x\n"))
        .run(OXCURL);
}

#[test]
fn time_cond_verbose_lines() {
    Case::new("time_cond_verbose_lines")
        .args(&["-sv", "-z", LM, "{url}/a"])
        .compare_stderr(true)
        // curl sometimes reads the response before it says the request went out.
        .normalise_with(|d| {
            String::from_utf8_lossy(d)
                .lines()
                .filter(|l| *l != "* Request completely sent off")
                .map(|l| format!("{l}\n"))
                .collect::<String>()
                .into_bytes()
        })
        .reply(dated("first\n"))
        .run(OXCURL);
}

#[test]
fn time_cond_unmet_keeps_existing_file() {
    tc_case(
        "time_cond_unmet_keeps_existing_file",
        &["-z", LM, "-o", "{tmp}/out", "{url}/"],
    )
    .file("out", "the old copy\n")
    .reply(dated("the body\n"))
    .run(OXCURL);
}

#[test]
fn server_304_creates_no_file() {
    tc_case("server_304_creates_no_file", &["-o", "{tmp}/out", "{url}/"])
        .reply(Reply::status(304, &[], ""))
        .run(OXCURL);
}

// ---- -J / --remote-header-name --------------------------------------------------

fn cd_reply(value: &str) -> Reply {
    Reply::status(200, &[("Content-Disposition", value)], "payload\n")
}

fn cd_case(name: &str, value: &str, extra: &[&str]) -> Case {
    Case::new(name)
        .args(&[
            "--no-progress-meter",
            "-OJ",
            "--output-dir",
            "{tmp}",
            "-w",
            "%{filename_effective}\n",
        ])
        .args(extra)
        .arg("{url}/dir/from-url.txt")
        .compare_stderr(true)
        .reply(cd_reply(value))
}

#[test]
fn cd_quoted_filename() {
    cd_case(
        "cd_quoted_filename",
        "attachment; filename=\"cd name.txt\"",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_unquoted_stops_at_semicolon() {
    cd_case(
        "cd_unquoted_stops_at_semicolon",
        "attachment; filename=plain.txt; size=8",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_quoted_keeps_semicolon() {
    cd_case(
        "cd_quoted_keeps_semicolon",
        "attachment; filename=\"a;b.txt\"",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_single_quotes() {
    cd_case(
        "cd_single_quotes",
        "attachment; filename='single.txt'; x=1",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_directories_stripped() {
    cd_case(
        "cd_directories_stripped",
        "attachment; filename=\"../../etc/evil.txt\"",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_backslash_directories_stripped() {
    cd_case(
        "cd_backslash_directories_stripped",
        "attachment; filename=a\\b\\c.txt",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_name_ending_in_slash_fails() {
    cd_case(
        "cd_name_ending_in_slash_fails",
        "attachment; filename=dir/",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_empty_name_fails() {
    cd_case("cd_empty_name_fails", "attachment; filename=\"\"", &[]).run(OXCURL);
}

#[test]
fn cd_encoded_filename_not_supported() {
    cd_case(
        "cd_encoded_filename_not_supported",
        "attachment; filename*=UTF-8''na%C3%AFve.txt",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_encoded_then_plain_uses_plain() {
    cd_case(
        "cd_encoded_then_plain_uses_plain",
        "attachment; filename*=UTF-8''x.txt; filename=plain.txt",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_parameter_name_is_case_sensitive() {
    cd_case(
        "cd_parameter_name_is_case_sensitive",
        "attachment; FILENAME=up.txt",
        &[],
    )
    .run(OXCURL);
}

#[test]
fn cd_no_header_uses_url_name() {
    Case::new("cd_no_header_uses_url_name")
        .args(&[
            "-sS",
            "-OJ",
            "--output-dir",
            "{tmp}",
            "{url}/dir/from-url.txt",
        ])
        .reply(Reply::ok("payload\n"))
        .run(OXCURL);
}

#[test]
fn cd_existing_file_refused() {
    cd_case(
        "cd_existing_file_refused",
        "attachment; filename=\"cd.txt\"",
        &[],
    )
    .file("cd.txt", "old\n")
    .run(OXCURL);
}

#[test]
fn cd_existing_file_with_clobber() {
    cd_case(
        "cd_existing_file_with_clobber",
        "attachment; filename=\"cd.txt\"",
        &["--clobber"],
    )
    .file("cd.txt", "old\n")
    .run(OXCURL);
}

#[test]
fn cd_existing_file_with_no_clobber() {
    cd_case(
        "cd_existing_file_with_no_clobber",
        "attachment; filename=\"cd.txt\"",
        &["--no-clobber"],
    )
    .file("cd.txt", "old\n")
    .run(OXCURL);
}

#[test]
fn cd_with_include_puts_headers_in_named_file() {
    cd_case(
        "cd_with_include_puts_headers_in_named_file",
        "attachment; filename=\"cdi.txt\"",
        &["-i"],
    )
    .run(OXCURL);
}

#[test]
fn cd_ignored_with_output() {
    Case::new("cd_ignored_with_output")
        .args(&["-sS", "-J", "-o", "{tmp}/x.txt", "{url}/a"])
        .reply(cd_reply("attachment; filename=\"cd.txt\""))
        .run(OXCURL);
}

#[test]
fn cd_ignored_without_remote_name() {
    Case::new("cd_ignored_without_remote_name")
        .args(&["-sS", "-J", "{url}/a"])
        .reply(cd_reply("attachment; filename=\"cd.txt\""))
        .run(OXCURL);
}

#[test]
fn cd_ignored_on_error_response() {
    Case::new("cd_ignored_on_error_response")
        .args(&["-sS", "-OJ", "--output-dir", "{tmp}", "{url}/a/name.txt"])
        .reply(Reply::status(
            404,
            &[("Content-Disposition", "attachment; filename=\"cd.txt\"")],
            "missing\n",
        ))
        .run(OXCURL);
}

#[test]
fn cd_after_redirect() {
    Case::new("cd_after_redirect")
        .args(&["-sS", "-L", "-OJ", "--output-dir", "{tmp}", "{url}/start"])
        .server(|s| {
            s.route("/start", Reply::redirect(302, "/final"));
            s.route("/final", cd_reply("attachment; filename=\"final.txt\""));
        })
        .run(OXCURL);
}

#[test]
fn cd_output_dir_created() {
    Case::new("cd_output_dir_created")
        .args(&[
            "-sS",
            "-OJ",
            "--create-dirs",
            "--output-dir",
            "{tmp}/sub/dir",
            "{url}/a/name.txt",
        ])
        .reply(cd_reply("attachment; filename=\"../x.txt\""))
        .run(OXCURL);
}

// ---- output file errors ---------------------------------------------------------

#[test]
fn output_open_failure_warns() {
    Case::new("output_open_failure_warns")
        .args(&[
            "--no-progress-meter",
            "-o",
            "{tmp}/no/such/dir/out",
            "{url}/",
        ])
        .compare_stderr(true)
        .reply(Reply::ok("x"))
        .run(OXCURL);
}

#[test]
fn empty_output_open_failure_is_silent_but_fails() {
    Case::new("empty_output_open_failure_is_silent_but_fails")
        .args(&[
            "-sS",
            "-o",
            "{tmp}/no/such/dir/out",
            "-w",
            "%{exitcode} %{errormsg}\n",
            "{url}/",
        ])
        .compare_stderr(true)
        .reply(Reply::ok(""))
        .run(OXCURL);
}

// ---- --etag-save / --etag-compare -----------------------------------------------

fn etagged(tag: &str) -> Reply {
    Reply::status(200, &[("ETag", tag)], "tagged\n")
}

#[test]
fn etag_save_writes_trimmed_value() {
    Case::new("etag_save_writes_trimmed_value")
        .args(&["-sS", "--etag-save", "{tmp}/etag", "{url}/"])
        .reply(etagged("   \"abc123\"   "))
        .run(OXCURL);
}

#[test]
fn etag_save_replaces_old_value() {
    Case::new("etag_save_replaces_old_value")
        .args(&["-sS", "--etag-save", "{tmp}/etag", "{url}/"])
        .file("etag", "\"a much longer old etag value\"\n")
        .reply(etagged("W/\"new\""))
        .run(OXCURL);
}

#[test]
fn etag_save_without_etag_keeps_file() {
    Case::new("etag_save_without_etag_keeps_file")
        .args(&["-sS", "--etag-save", "{tmp}/etag", "{url}/"])
        .file("etag", "\"old\"\n")
        .reply(Reply::ok("untagged\n"))
        .run(OXCURL);
}

#[test]
fn etag_save_without_etag_creates_empty_file() {
    Case::new("etag_save_without_etag_creates_empty_file")
        .args(&["-sS", "--etag-save", "{tmp}/etag", "{url}/"])
        .reply(Reply::ok("untagged\n"))
        .run(OXCURL);
}

#[test]
fn etag_save_ignores_error_responses() {
    Case::new("etag_save_ignores_error_responses")
        .args(&["-sS", "--etag-save", "{tmp}/etag", "{url}/"])
        .reply(Reply::status(404, &[("ETag", "\"err\"")], "no\n"))
        .run(OXCURL);
}

#[test]
fn etag_save_with_include() {
    Case::new("etag_save_with_include")
        .args(&["-sS", "-i", "--etag-save", "{tmp}/etag", "{url}/"])
        .reply(etagged("\"abc\""))
        .run(OXCURL);
}

#[test]
fn etag_compare_sends_if_none_match() {
    Case::new("etag_compare_sends_if_none_match")
        .args(&["-sS", "--etag-compare", "{tmp}/etag", "{url}/"])
        .file("etag", "\"abc123\"\n")
        .reply(Reply::status(304, &[], ""))
        .run(OXCURL);
}

#[test]
fn etag_compare_joins_lines() {
    Case::new("etag_compare_joins_lines")
        .args(&["-sS", "--etag-compare", "{tmp}/etag", "{url}/"])
        .file("etag", "\"x1\"\r\n\"x2\"\n")
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn etag_compare_empty_file() {
    Case::new("etag_compare_empty_file")
        .args(&["-sS", "--etag-compare", "{tmp}/etag", "{url}/"])
        .file("etag", "")
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn etag_compare_missing_file_warns() {
    Case::new("etag_compare_missing_file_warns")
        .args(&[
            "--no-progress-meter",
            "--etag-compare",
            "{tmp}/nope",
            "{url}/",
        ])
        .compare_stderr(true)
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn etag_compare_after_custom_header() {
    Case::new("etag_compare_after_custom_header")
        .args(&[
            "-sS",
            "-H",
            "If-None-Match: \"mine\"",
            "--etag-compare",
            "{tmp}/etag",
            "{url}/",
        ])
        .file("etag", "\"file\"\n")
        .reply(Reply::ok("ok\n"))
        .run(OXCURL);
}

#[test]
fn etag_compare_and_save_same_file() {
    Case::new("etag_compare_and_save_same_file")
        .args(&[
            "-sS",
            "--etag-compare",
            "{tmp}/etag",
            "--etag-save",
            "{tmp}/etag",
            "{url}/",
        ])
        .file("etag", "\"old\"\n")
        .reply(etagged("\"new\""))
        .run(OXCURL);
}

// ---- --xattr ----------------------------------------------------------------------

/// Download to a file with `args` and list the file's `user.*` attributes, sorted.
fn xattrs_after(
    program: &Path,
    reply: Reply,
    url_path: &str,
    args: &[&str],
) -> Vec<(String, Vec<u8>)> {
    let server = ScriptedServer::with_replies(vec![reply]);
    // Under target/, on the checkout's file system (a tmpfs /tmp may lack user xattrs).
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "xattr-{}-{}",
        std::process::id(),
        XATTR_RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("f");
    let _ = std::fs::remove_file(&out);
    let url = server.url().replacen("http://", "http://user:secret@", 1);
    let status = Command::new(program)
        .args(["-s", "-o"])
        .arg(&out)
        .args(args)
        .arg(format!("{url}{url_path}"))
        .status()
        .unwrap();
    let _ = status;
    let Ok(f) = std::fs::File::open(&out) else {
        let _ = std::fs::remove_dir_all(&dir);
        return Vec::new();
    };
    let mut names = vec![0u8; 4096];
    let n = rustix::fs::flistxattr(&f, &mut names[..]).unwrap();
    let port = server.port().to_string();
    let mut all: Vec<(String, Vec<u8>)> = names[..n]
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| {
            let name = String::from_utf8_lossy(n).into_owned();
            let mut v = vec![0u8; 4096];
            let len = rustix::fs::fgetxattr(&f, name.as_str(), &mut v[..]).unwrap();
            v.truncate(len);
            // The two runs use different servers.
            let v = String::from_utf8_lossy(&v)
                .replace(&port, "PORT")
                .into_bytes();
            (name, v)
        })
        .collect();
    all.sort();
    let _ = std::fs::remove_dir_all(&dir);
    all
}

static XATTR_RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn xattr_compare(
    reply: impl Fn() -> Reply,
    url_path: &str,
    args: &[&str],
) -> Vec<(String, Vec<u8>)> {
    let ours = xattrs_after(&under_test(OXCURL), reply(), url_path, args);
    let theirs = xattrs_after(&reference_curl(), reply(), url_path, args);
    assert_eq!(ours, theirs);
    ours
}

#[test]
fn xattr_origin_mime_and_creator() {
    let got = xattr_compare(
        || {
            Reply::status(
                200,
                &[("Content-Type", "text/plain; charset=utf-8")],
                "hello\n",
            )
        },
        "/dir/file.txt?q=1#frag",
        &["--xattr"],
    );
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["user.creator", "user.mime_type", "user.xdg.origin.url"]
    );
}

#[test]
fn xattr_without_content_type() {
    let got = xattr_compare(|| Reply::ok("hello\n"), "/x", &["--xattr"]);
    assert_eq!(got.len(), 2);
}

#[test]
fn xattr_not_set_for_empty_body() {
    let got = xattr_compare(|| Reply::ok(""), "/x", &["--xattr"]);
    assert!(got.is_empty());
}

#[test]
fn xattr_not_set_on_error() {
    let got = xattr_compare(
        || Reply::status(404, &[("Content-Type", "text/html")], "missing\n"),
        "/x",
        &["--xattr", "-f"],
    );
    assert!(got.is_empty());
}

#[test]
fn xattr_off_by_default() {
    let got = xattr_compare(|| Reply::ok("hello\n"), "/x", &[]);
    assert!(got.is_empty());
}

// ---- --create-file-mode -----------------------------------------------------------

#[test]
fn create_file_mode_leaves_http_downloads_alone() {
    let mode = |program: &Path| {
        let server = ScriptedServer::with_replies(vec![Reply::ok("x\n")]);
        let dir = TempDir::new("mode");
        let out = dir.path().join("f");
        let ok = Command::new(program)
            .args(["-s", "--create-file-mode", "0600", "-o"])
            .arg(&out)
            .arg(server.url())
            .status()
            .unwrap()
            .success();
        assert!(ok);
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(&out).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode(&under_test(OXCURL)), mode(&reference_curl()));
}

#[test]
fn create_file_mode_rejects_non_octal() {
    Case::new("create_file_mode_rejects_non_octal")
        .args(&["--create-file-mode", "0789", "{url}/"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn create_file_mode_too_large() {
    Case::new("create_file_mode_too_large")
        .args(&["--create-file-mode", "1000", "{url}/"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn no_clobber_gives_up_after_99() {
    Case::new("no_clobber_gives_up_after_99")
        .args(&[
            "--no-progress-meter",
            "--no-clobber",
            "-o",
            "{tmp}/out",
            "-w",
            "%{filename_effective}\n",
            "{url}/",
        ])
        .setup(|dir| {
            std::fs::write(dir.join("out"), "0\n").unwrap();
            for n in 1..100 {
                std::fs::write(dir.join(format!("out.{n}")), format!("{n}\n")).unwrap();
            }
        })
        .compare_stderr(true)
        .reply(Reply::ok("new\n"))
        .run(OXCURL);
}

#[test]
fn no_clobber_with_remote_name() {
    Case::new("no_clobber_with_remote_name")
        .args(&[
            "-sS",
            "--no-clobber",
            "-O",
            "--output-dir",
            "{tmp}",
            "{url}/f.txt",
        ])
        .file("f.txt", "old\n")
        .reply(Reply::ok("new\n"))
        .run(OXCURL);
}

#[test]
fn etag_save_to_stdout_pipe_fails() {
    // curl 8.14.1 truncates the ETag stream before writing, which a pipe refuses.
    Case::new("etag_save_to_stdout_pipe_fails")
        .args(&["-sS", "--etag-save", "-", "{url}/"])
        .compare_stderr(true)
        .reply(etagged("\"abc\""))
        .run(OXCURL);
}

#[test]
fn etag_save_to_stdout_without_etag() {
    Case::new("etag_save_to_stdout_without_etag")
        .args(&["-sS", "--etag-save", "-", "{url}/"])
        .compare_stderr(true)
        .reply(Reply::ok("untagged\n"))
        .run(OXCURL);
}

#[test]
fn out_null_is_unknown_in_8_14() {
    // --out-null came with curl 8.16; 8.14.1 rejects it.
    Case::new("out_null_is_unknown_in_8_14")
        .args(&["-s", "--out-null", "{url}/"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn remove_on_error_verbose_note() {
    Case::new("remove_on_error_verbose_note")
        .args(&[
            "-v",
            "--no-progress-meter",
            "--remove-on-error",
            "-o",
            "{tmp}/part",
            "{url}/",
        ])
        .compare_stderr(true)
        .normalise_with(|d| {
            String::from_utf8_lossy(d)
                .lines()
                .filter(|l| l.starts_with("Note: ") || l.starts_with("curl: "))
                .map(|l| format!("{l}\n"))
                .collect::<String>()
                .into_bytes()
        })
        .reply(Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly some").close())
        .run(OXCURL);
}

#[test]
fn cd_without_name_then_a_name_is_too_late() {
    // The first Content-Disposition line has no filename: curl opens the URL's file then,
    // so the name in the second one is a write error.
    Case::new("cd_without_name_then_a_name_is_too_late")
        .args(&["-sS", "-OJ", "--output-dir", "{tmp}", "{url}/a/name.txt"])
        .reply(Reply::status(
            200,
            &[
                ("Content-Disposition", "inline"),
                ("Content-Disposition", "attachment; filename=\"late.txt\""),
            ],
            "body\n",
        ))
        .run(OXCURL);
}

#[test]
fn cd_slash_ending_name_keeps_the_url_name() {
    Case::new("cd_slash_ending_name_keeps_the_url_name")
        .args(&[
            "-sS",
            "-i",
            "-OJ",
            "--output-dir",
            "{tmp}",
            "{url}/a/name.txt",
        ])
        .reply(Reply::status(
            200,
            &[("Content-Disposition", "attachment; filename=\"dir/\"")],
            "body\n",
        ))
        .run(OXCURL);
}
