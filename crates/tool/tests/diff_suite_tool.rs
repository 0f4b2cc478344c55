//! Differential tests for the command-line failures curl 8.14.1's own test suite
//! (tests/runtests.pl, run by scripts/curl-testsuite.sh) found: config files, `--next`,
//! variables, warnings about arguments, option checks. Each test names the curl test it
//! stands for and runs the same command with the reference curl.

use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// A case comparing exit code, stdout, stderr (without the progress meter) and requests.
fn case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .arg("--no-progress-meter")
        .compare_stderr(true)
}

// ---- config files (curl tests 411, 428, 429, 448, 459, 462, 470, 699, 748, 2080) ----------

/// curl test 411: a config file that cannot be read.
#[test]
fn t411_missing_config_file() {
    case("t411_missing_config_file", &["-K", "missing", "{url}"])
        .expect_failure()
        .run(OXCURL);
    case(
        "t411_missing_config_file_long",
        &["--config", "missing", "{url}"],
    )
    .expect_failure()
    .run(OXCURL);
}

/// curl test 428: `--variable %ENV` and `--expand-data` in a config file; `\{{` is a
/// literal `{{`, bad names stay as written with a warning.
#[test]
fn t428_expand_environment_in_config() {
    case("t428_expand_environment_in_config", &["{url}/428", "-K", "cmd"])
        .file(
            "cmd",
            "--variable %FUNVALUE\n--variable %VALUE2\n--variable %BLANK\n\
             --variable %curl_NOT_SET=default\n\
             --expand-data 1{{FUNVALUE}}2{{VALUE2}}3{{curl_NOT_SET}}4{{BLANK}}5\\{{verbatim}}6{{not.good}}7{{}}\n",
        )
        .env("FUNVALUE", "contents")
        .env("VALUE2", "curl")
        .env("BLANK", "")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
}

/// curl tests 429 and 448: a name of 128 characters is not a variable; an unclosed `{{`
/// ends the expansion; nothing expanded leaves the argument as it is (`\{{` included).
#[test]
fn t429_t448_expansion_edges() {
    let long = "F".repeat(129);
    case("t429_too_long_name", &["{url}/429", "-K", "cmd"])
        .file("cmd", format!("--expand-data {{{{{long}}}}}\n"))
        .env(&long, "contents2023")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    let a = "A".repeat(128);
    case("t448_unbalanced_braces", &["{url}/448", "-K", "cmd"])
        .file(
            "cmd",
            format!(
                "--variable %FUNVALUE\n--variable %VALUE2\n\
                 --expand-data 1{{{{FUNVALUE}}}}2{{{{VALUE2}}}}3{{{{curl_NOT_SET}}}}4{{{{{a}}}}}5{{{{broken\n"
            ),
        )
        .env("FUNVALUE", "contents")
        .env("VALUE2", "curl")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    case(
        "t448_nothing_expanded",
        &["{url}/x", "--expand-data", "a\\{{b}}{{c.d}}"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

/// curl test 458: `--expand-output` in a config file names the file from a variable.
#[test]
fn t458_expand_output_in_config() {
    case("t458_expand_output_in_config", &["{url}/458", "-K", "cmd"])
        .file(
            "cmd",
            "--variable %FUNVALUE\n--expand-output out-{{FUNVALUE}}\n",
        )
        .env("FUNVALUE", "contents458")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
}

/// curl test 462: a `%VARIABLE` that is not set fails the config file (26).
#[test]
fn t462_missing_environment_variable_in_config() {
    case("t462_missing_env_in_config", &["{url}/462", "-K", "cmd"])
        .file("cmd", "variable %MISSING\nexpand-data {{MISSING}}\n")
        .expect_failure()
        .run(OXCURL);
}

/// curl test 459: an unquoted argument with white space: a warning naming file and line
/// (comment lines not counted), and only the first word is used.
#[test]
fn t459_unquoted_whitespace_warning() {
    case(
        "t459_unquoted_whitespace",
        &["{url}/459", "--config", "config"],
    )
    .file(
        "config",
        "# comment\n\nsilent\ndata = arg with space\nurl: \"{url}/2\" # ok\n",
    )
    .replies(vec![Reply::ok("one\n"), Reply::ok("two\n")])
    .run(OXCURL);
}

/// Lines that fail: an unknown option, an argument a switch does not take, a missing
/// one; each names the file and line, then the `-K` fails with 26.
#[test]
fn config_line_errors() {
    for (name, text) in [
        ("unknown", "silent\nnope\n"),
        ("garbage", "silent yes\n"),
        ("missing", "output\n"),
        ("short_unknown", "-sJQ\n"),
        ("nested", "config nothere\n"),
    ] {
        case(
            &format!("config_line_errors_{name}"),
            &["-K", "cmd", "{url}"],
        )
        .file("cmd", text)
        .expect_failure()
        .run(OXCURL);
    }
}

/// curl test 2080: an overly long option name in a config file (the message wraps).
#[test]
fn t2080_overly_long_config_option() {
    case("t2080_overly_long_option", &["-K", "config", "{url}"])
        .file("config", format!("{}\n", "D".repeat(20000)))
        .expect_failure()
        .run(OXCURL);
}

/// curl test 699: short options grouped in a config file, the last taking the rest.
#[test]
fn t699_short_options_in_config() {
    case("t699_short_options_in_config", &["{url}/699", "-K", "cmd"])
        .file("cmd", "-Lfuhej:you\n")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
}

/// curl test 748: `-h` in a config file shows the help and reading goes on: without a
/// URL that ends with "no URL specified" (2).
#[test]
fn t748_help_in_config_without_url() {
    case("t748_help_in_config", &["-K", "cmd"])
        .file("cmd", "-h all\n")
        .compare_stdout(false)
        .run(OXCURL);
    case("t748_help_topic_in_config", &["-K", "cmd", "{url}"])
        .file("cmd", "--help output\n")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
}

/// A `--next` in a config file before any URL is ignored; after one, it starts the next
/// group.
#[test]
fn next_in_config() {
    case("next_in_config", &["-K", "cmd"])
        .file("cmd", "next\nurl {url}/a\nnext\n-I\nurl {url}/b\n")
        .replies(vec![Reply::ok("a\n"), Reply::ok("b\n")])
        .expect_failure()
        .run(OXCURL);
}

// ---- curlrc (curl tests 433, 436) ----------------------------------------------------------

/// curl test 433: `$XDG_CONFIG_HOME/curlrc`; test 436: `$CURL_HOME/.config/curlrc` when
/// `XDG_CONFIG_HOME` is not set; `$CURL_HOME/.curlrc` first.
#[test]
fn t433_t436_curlrc_locations() {
    let rc = "--data \"curlrc read\"\n";
    case("t433_xdg_config_home", &["{url}/433"])
        .file("xdg/curlrc", rc)
        .env("XDG_CONFIG_HOME", "{tmp}/xdg")
        .env("CURL_HOME", "{tmp}/none")
        .env("HOME", "{tmp}/none")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    case("t436_curl_home_dot_config", &["{url}/436"])
        .file("ch/.config/curlrc", rc)
        .env("XDG_CONFIG_HOME", "")
        .env("CURL_HOME", "{tmp}/ch")
        .env("HOME", "{tmp}/none")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    case("curl_home_first", &["{url}/1"])
        .file("ch/.curlrc", rc)
        .file("xdg/curlrc", "-I\n")
        .env("XDG_CONFIG_HOME", "{tmp}/xdg")
        .env("CURL_HOME", "{tmp}/ch")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    // An error in the curlrc is shown, and the command line goes on.
    case("curlrc_error_is_ignored", &["{url}/2"])
        .file("ch/.curlrc", "nope\n")
        .env("CURL_HOME", "{tmp}/ch")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
}

// ---- --next (curl tests 422, 686) ------------------------------------------------------------

/// curl test 422: `--next` before any URL is refused.
#[test]
fn t422_next_without_url_before() {
    case(
        "t422_next_without_url_before",
        &["-O", "-I", "--next", "{url}/422"],
    )
    .expect_failure()
    .run(OXCURL);
    case("t422_short_next", &["-s", "-:", "{url}/422"])
        .expect_failure()
        .run(OXCURL);
}

/// curl test 686: `URL --next` with no URL after: the first transfer runs, then "no URL
/// specified" (2).
#[test]
fn t686_next_without_url_after() {
    case("t686_next_without_url_after", &["{url}/686", "--next"])
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    case(
        "t686_next_then_output_only",
        &["{url}/686", "--next", "-o", "x"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

// ---- warnings about arguments (curl tests 469, 470, 1268) -----------------------------------

/// curl tests 469 and 470: an argument starting with a Unicode opening quote, on the
/// command line and in a config file.
#[test]
fn t469_t470_unicode_quote_warning() {
    case(
        "t469_unicode_quote",
        &["-H", "\u{201c}host: x", "{url}/469", "-s"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
    case(
        "t470_unicode_quote_in_config",
        &["{url}", "--no-progress-meter", "-K", "input"],
    )
    .file("input", "-H \u{201c}host:fake\u{201d}\n")
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

/// curl test 371: more `-o` than URLs: a warning once the transfers got there.
#[test]
fn t371_more_outputs_than_urls() {
    case(
        "t371_more_outputs_than_urls",
        &["{url}/371", "-o", "dump", "-o", "dump2"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
    case(
        "t371_said_once",
        &[
            "{url}/1", "-o", "a", "-O", "--next", "-T", "up", "-T", "up", "{url}/2", "-s",
        ],
    )
    .file("up", "data\n")
    .replies(vec![Reply::ok("one\n"), Reply::ok("two\n")])
    .run(OXCURL);
}

/// curl tests 681 and 1278: `--no-remote-name` undoes `--remote-name-all` for the next
/// URL (stdout), and without it does nothing (no extra output option).
#[test]
fn t681_t1278_no_remote_name() {
    case(
        "t681_remote_name_all_then_no",
        &[
            "--remote-name-all",
            "--no-remote-name",
            "{url}/681",
            "{url}/two",
        ],
    )
    .replies(vec![Reply::ok("-foo-\n"), Reply::ok("two\n")])
    .run(OXCURL);
    case(
        "t1278_extra_no_remote_name",
        &[
            "{url}/1278",
            "-o",
            "out",
            "--no-remote-name",
            "-w",
            "%{stderr}yes\n",
        ],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

/// curl test 1268: a file name argument that looks like an option gets a warning, which
/// goes to the `--stderr` file given before it.
#[test]
fn t1268_filename_looks_like_a_flag() {
    case(
        "t1268_filename_looks_like_a_flag",
        &["--stderr", "moo", "--unix-socket", "-q", "hej://moo"],
    )
    .run(OXCURL);
    case(
        "t1268_output_looks_like_a_flag",
        &["-o", "-x", "{url}/1", "-o", "-"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

// ---- the built-in manual (curl tests 411, 422, 481, 482, 484, 485, 746, 1026) ------------

/// runtests.pl runs `curl -M` and, unless its first line says the manual was left out,
/// expects the help hint that names `--manual`. The texts differ (ours is made from the
/// option table), so this compares what runtests looks at: that there is a manual, that
/// it lists the options, and the exit code; with a URL, `-M` still only prints it.
#[test]
fn manual_is_built_in() {
    /// `curl\s*-\s*transfer\sa\s*URL`, test 1026's pattern.
    fn is_name_line(l: &str) -> bool {
        l.split("curl").skip(1).any(|rest| {
            let rest = rest.trim_start().strip_prefix('-').unwrap_or("#");
            let rest = rest.trim_start().strip_prefix("transfer").unwrap_or("#");
            rest.starts_with(char::is_whitespace)
                && rest
                    .trim_start()
                    .strip_prefix('a')
                    .is_some_and(|r| r.trim_start().starts_with("URL"))
        })
    }
    fn what_runtests_sees(d: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(d);
        let first = text.lines().next().unwrap_or("");
        format!(
            "disabled: {}\nlists -v: {}\nlists --url: {}\nsentinel lines: {}\n",
            first.contains("built-in manual was disabled"),
            text.contains("\n    -v, --verbose\n"),
            text.contains("\n    --url <url/file>\n"),
            // curl test 1026's check that the whole manual is there.
            text.lines()
                .filter(|l| l.contains("AUTHORS") || is_name_line(l))
                .count(),
        )
        .into_bytes()
    }
    for (name, args) in [
        ("manual_short", &["-M"][..]),
        ("manual_long", &["--manual"][..]),
        ("manual_with_url", &["-M", "{url}/never"][..]),
    ] {
        Case::new(name)
            .args(args)
            .compare_stderr(true)
            .normalise_with(what_runtests_sees)
            .run(OXCURL);
    }
}

/// curl test 1709 and its neighbours: `-h OPTION` shows the option's entry in the built-in
/// manual (ours has other text, so only its first line, the heading, is compared), found as
/// curl finds it: `--no-` only for a switch, a switch under the name it is listed by, a
/// short option alone; anything else is refused on stderr.
#[test]
fn t1709_help_for_an_option() {
    for arg in [
        "--badone",
        "-J",
        "-j",
        "-xx",
        "--",
        "--url",
        "--no-proxy",
        "--no-buffer",
        "--buffer",
        "--clobber",
        "--no-insecure",
        "--keepalive",
        "--progress-meter",
        "--no-progress-meter",
    ] {
        Case::new(&format!("help_{arg}"))
            .args(&["-h", arg])
            .compare_stderr(true)
            .normalise_with(|d| {
                let first = d.split(|&b| b == b'\n').next().unwrap_or(b"");
                first.to_vec()
            })
            .run(OXCURL);
    }
}

/// `--progress-meter` turns the meter back on after `--no-progress-meter`.
#[test]
fn progress_meter_switch() {
    Case::new("progress_meter_switch")
        .args(&[
            "--no-progress-meter",
            "--progress-meter",
            "{url}/",
            "-o",
            "out",
        ])
        .compare_stderr(true)
        .normalise_with(|d| {
            // The meter's figures depend on timing; its heading shows it is there.
            let t = String::from_utf8_lossy(d);
            format!("meter: {}\n", t.contains("% Total")).into_bytes()
        })
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
}

// ---- options refused together or badly used (curl tests 360, 481, 482, 484, 485, 746,
// 1427, 2044) ------------------------------------------------------------------------------

/// Command lines refused while parsing: each compared on its messages and exit code.
fn refused(name: &str, args: &[&str]) {
    case(name, args).expect_failure().run(OXCURL);
}

/// curl test 360: `--fail` and `--fail-with-body` together, in either order.
#[test]
fn t360_fail_and_fail_with_body() {
    refused(
        "t360_fail_with_body_then_fail",
        &["{url}/360", "--fail-with-body", "--fail"],
    );
    refused(
        "t360_fail_then_fail_with_body",
        &["{url}/360", "-f", "--fail-with-body"],
    );
    case(
        "t360_turned_off_first",
        &["{url}/360", "--fail-with-body", "--no-fail-with-body", "-f"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

/// curl tests 481 and 482: `-C` with `--no-clobber`, `--remove-on-error` or `--range`,
/// whichever comes first.
#[test]
fn t481_t482_continue_at_exclusions() {
    refused(
        "t481_no_clobber_then_c",
        &["{url}/481", "--no-clobber", "-C", "1", "-o", "f"],
    );
    refused(
        "t481_c_then_no_clobber",
        &["{url}/481", "-C", "1", "--no-clobber", "-o", "f"],
    );
    refused(
        "t482_remove_on_error_then_c",
        &["{url}/482", "--remove-on-error", "-C", "1"],
    );
    refused(
        "t482_c_then_remove_on_error",
        &["{url}/482", "-C", "-", "--remove-on-error"],
    );
    refused("c_with_range", &["{url}/1", "-r", "1-2", "-C", "5"]);
    refused("c_negative", &["{url}/1", "-C", "-5"]);
    refused("c_garbage", &["{url}/1", "-C", "5x"]);
}

/// curl tests 484 and 485: the etag options with a second URL, the URL or the option
/// coming last.
#[test]
fn t484_t485_etag_with_several_urls() {
    refused(
        "t484_etag_then_url",
        &[
            "{url}/484",
            "--etag-compare",
            "e",
            "--etag-save",
            "e",
            "--url",
            "{url}/b",
        ],
    );
    refused(
        "t484_etag_then_bare_url",
        &["--etag-save", "e", "{url}/a", "{url}/b"],
    );
    refused(
        "t485_urls_then_etag",
        &["{url}/485", "{url}/b", "--etag-save", "e"],
    );
}

/// curl tests 746 and 1427: timeouts as curl reads them: whole seconds below
/// `LONG_MAX / 1000`, a fraction, anything after ignored.
#[test]
fn t746_t1427_timeouts() {
    refused("t746_too_large", &["{url}/746", "-m", "22222242222222222"]);
    refused(
        "t1427_too_large",
        &["{url}/1427", "-m", "184467440737095510"],
    );
    refused("negative", &["{url}/1", "-m", "-1"]);
    refused(
        "dot_without_digits",
        &["{url}/1", "--connect-timeout", "5."],
    );
    refused("blank_first", &["{url}/1", "--expect100-timeout", " 5"]);
    case(
        "largest",
        &[
            "{url}/1",
            "--connect-timeout",
            "9223372036854774",
            "-m",
            "5s",
        ],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
    refused(
        "one_more",
        &["{url}/1", "--connect-timeout", "9223372036854775"],
    );
}

/// curl test 2044: an unknown `--proto-default` protocol (exit 1, before any URL check).
#[test]
fn t2044_unknown_default_protocol() {
    refused(
        "t2044_unknown_default_protocol",
        &["--proto-default", "DOESNOTEXIST"],
    );
    case("known_any_case", &["--proto-default", "HTTP", "{host}/x"])
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
}

// ---- ranges, header and etag files (curl tests 368, 369, 370, 419, 693, 994, 996, 1489) ----

/// curl test 368: a range without a dash gets one (with a warning); other characters
/// get a warning and are sent as given.
#[test]
fn t368_range_without_dash() {
    for (name, r) in [
        ("number", "4"),
        ("number_junk", "4x"),
        ("letters", "a-b"),
        ("ok", "1-2,5-"),
    ] {
        case(&format!("t368_range_{name}"), &["{url}/368", "-r", r])
            .reply(Reply::ok("hello\n"))
            .run(OXCURL);
    }
    refused(
        "range_after_continue_at",
        &["{url}/1", "-C", "5", "-r", "1-2"],
    );
}

/// curl tests 369 and 370: an `--etag-save` file that cannot be created: a warning, the
/// rest of that operation is skipped; with nothing left, "no transfer performed" (26).
#[test]
fn t369_t370_etag_save_unwritable() {
    case(
        "t370_etag_save_unwritable",
        &["{url}/370", "--etag-save", "nowhere/etag"],
    )
    .expect_failure()
    .run(OXCURL);
    case(
        "t369_next_operation_runs",
        &[
            "{url}/a",
            "--etag-save",
            "nowhere/etag",
            "--next",
            "{url}/369",
            "-i",
        ],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

/// curl test 693: `--etag-save` with `--create-dirs` makes the directories.
#[test]
fn t693_etag_save_create_dirs() {
    case(
        "t693_etag_save_create_dirs",
        &["{url}/693", "--etag-save", "moo/boo/etag", "--create-dirs"],
    )
    .reply(Reply::status(200, &[("ETag", "W/\"asdf\"")], "hello\n"))
    .run(OXCURL);
}

/// curl test 419: a `-D` file that cannot be created stops everything with 23; with
/// `--create-dirs` its directories are made.
#[test]
fn t419_dump_header_unwritable() {
    case(
        "t419_dump_header_unwritable",
        &["{url}/419", "{url}/b", "-D", "nowhere/h"],
    )
    .expect_failure()
    .run(OXCURL);
    case(
        "dump_header_create_dirs",
        &["{url}/1", "-D", "a/b/h", "--create-dirs"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

/// curl test 1489: `-D %` writes the headers where the messages go.
#[test]
fn t1489_dump_header_to_stderr() {
    case(
        "t1489_dump_header_to_stderr",
        &["{url}/1489", "-D", "%", "-s"],
    )
    .reply(Reply::status(200, &[("Funny-head", "yesyes")], "hello\n"))
    .run(OXCURL);
}

/// curl tests 994 and 996: `--skip-existing` says it skips when tracing.
#[test]
fn t994_t996_skip_existing_note() {
    case(
        "t994_skip_existing_note",
        &[
            "-o",
            "#1",
            "{url}/994/{hey,ho}",
            "--skip-existing",
            "--trace-ascii",
            "%",
        ],
    )
    .file("hey", "there\n")
    .file("ho", "there\n")
    .run(OXCURL);
    case(
        "t996_skip_existing_quiet",
        &["-o", "there", "{url}/996", "--skip-existing"],
    )
    .file("there", "content\n")
    .run(OXCURL);
}

// ---- --url @file (curl tests 488, 489) ------------------------------------------------------

/// curl tests 488 and 489: `--url @file` and `--url @-`: one URL a line (blank and `#`
/// lines skipped), each saved under its remote name, none globbed.
#[test]
fn t488_t489_urls_from_a_file() {
    // The file cannot hold the server's port: the names go there with --connect-to.
    let urls = "http://a.example/a\n\n  # note\nhttp://a.example/b[1-2]\n";
    let args = |from| {
        [
            "--connect-to",
            "::{host}",
            "--output-dir",
            "out",
            "--create-dirs",
            "--url",
            from,
        ]
    };
    case("t489_urls_from_file", &args("@urls"))
        .file("urls", urls)
        .replies(vec![Reply::ok("a\n"), Reply::ok("b\n")])
        .run(OXCURL);
    case("t488_urls_from_stdin", &args("@-"))
        .stdin("http://a.example/a\nhttp://a.example/b\n")
        .replies(vec![Reply::ok("a\n"), Reply::ok("b\n")])
        .run(OXCURL);
    refused("urls_file_missing", &["--url", "@nothere"]);
}

/// curl test 75: `--stderr -` sends the messages to stdout (here a bad glob range).
#[test]
fn t75_stderr_to_stdout() {
    case(
        "t75_stderr_to_stdout",
        &["{url}/[2-1]", "-o", "weee#1.dump", "--stderr", "-"],
    )
    .run(OXCURL);
    case(
        "stderr_dash_warning",
        &["--stderr", "-", "-r", "4", "{url}/1"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

/// curl test 463: `-d @file` drops CR, LF and zero bytes; `--data-binary` keeps them.
#[test]
fn t463_data_file_crlf_and_nul() {
    let data = b"one\rtwo\rthree\nfour\x00five\r\n";
    case("t463_data_file", &["-d", "@input", "{url}/463"])
        .file("input", data)
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    case("t463_data_stdin", &["-d", "@-", "{url}/463"])
        .stdin(data)
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    case(
        "t463_data_binary_file",
        &["--data-binary", "@input", "{url}/463"],
    )
    .file("input", data)
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

// ---- --variable byte ranges (curl tests 784 to 791) -----------------------------------------

/// curl tests 784 to 791: `name[N-M]@file`, `@-` and `=text` keep bytes N to M.
#[test]
fn t784_t791_variable_byte_ranges() {
    let text = "On the first Monday of the month of April, 1625, the market town of Meung\n";
    for (name, def) in [
        ("t784_file", "name[5-15]@in"),
        ("t785_file_open_end", "name[5-]@in"),
        ("t786_stdin", "name[5-15]@-"),
        ("t788_one_byte", "name[15-15]@in"),
        ("t789_past_the_end", "name[75-85]@in"),
        ("t790_text", "name[5-9]=0123456789abcdef"),
        ("t791_text_end_beyond", "name[10-30]=0123456789abcdef"),
    ] {
        case(
            name,
            &["{url}/78x", "--variable", def, "--expand-data", "{{name}}"],
        )
        .file("in", text)
        .stdin(text)
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    }
    refused(
        "t787_backwards",
        &["{url}/787", "--variable", "name[15-14]@in"],
    );
    refused(
        "range_without_end_bracket",
        &["{url}/1", "--variable", "name[1-2=x"],
    );
}

// ---- --resolve and --connect-to syntax (curl tests 2053, 3019, 3020) ------------------------

/// curl test 3019: a `--resolve` entry curl cannot read fails the transfer with 49 before any
/// connection; an entry without a host name is skipped; a good one is used.
#[test]
fn t3019_resolve_syntax() {
    for (name, entry) in [
        ("t3019_port_first", "{port}:example.com:127.0.0.1"),
        ("no_addresses", "example.com:{port}:"),
        ("no_port", "example.com::127.0.0.1"),
        ("port_too_large", "example.com:65536:127.0.0.1"),
        ("bad_address", "example.com:{port}:127.0.0.1,notanip"),
        ("unclosed_bracket", "example.com:{port}:[::1"),
    ] {
        refused(
            name,
            &["--resolve", entry, "http://example.com:{port}/3019"],
        );
    }
    for (name, entry) in [
        ("good", "example.com:{port}:127.0.0.1"),
        ("empty_address_first", "example.com:{port}:,127.0.0.1"),
        ("non_permanent", "+example.com:{port}:127.0.0.1"),
    ] {
        case(
            name,
            &["--resolve", entry, "http://example.com:{port}/3019"],
        )
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
    }
    case(
        "no_host_is_skipped",
        &["--resolve", ":{port}:192.0.2.1", "{url}/3019"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

/// curl test 3020: a `--connect-to` target port that is not a number fails with 49; a rule
/// that does not match is not read further; a matching rule naming neither host nor port
/// leaves the next rules to decide.
#[test]
fn t3020_connect_to_syntax() {
    refused(
        "t3020_host_as_port",
        &["--connect-to", "::example.com:example.com", "{url}/3020"],
    );
    refused(
        "port_too_large",
        &["--connect-to", "::127.0.0.1:99999", "{url}/3020"],
    );
    case(
        "bad_port_in_rule_not_matching",
        &["--connect-to", "other:1:b:x", "{url}/3020"],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
    case(
        "empty_target_then_next_rule",
        &[
            "--connect-to",
            "example.com:1::",
            "--connect-to",
            "::127.0.0.1:{port}",
            "http://example.com:1/3020",
        ],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
    // curl test 2053: the URL's IPv6 host is matched in brackets.
    case(
        "t2053_ipv6_url_host",
        &[
            "--connect-to",
            "[fc00::1]:8082:127.0.0.1:{port}",
            "http://[fc00::1]:8082/2053",
        ],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
    case(
        "port_digits_then_junk",
        &[
            "--connect-to",
            "EXAMPLE.com:1:127.0.0.1:{port}x",
            "http://example.com:1/3020",
        ],
    )
    .reply(Reply::ok("hello\n"))
    .run(OXCURL);
}

// ---- -T and the URL (curl test 1469) --------------------------------------------------------

/// curl test 1469: with `-T`, the URL is parsed (to append the file name) before the file is
/// opened or the scheme looked at: a space in an FTP URL is 3, not 26 or 1.
#[test]
fn t1469_upload_url_checked_first() {
    refused(
        "t1469_space_in_ftp_url",
        &[
            "ftp://127.0.0.1:{port}/1469%/with space/",
            "-T",
            "irrelevant-file",
        ],
    );
    refused("space_in_http_url", &["{url}/a b", "-T", "here"]);
    refused("missing_file_good_url", &["{url}/up/", "-T", "missing"]);
    case("good_url_and_file", &["{url}/up/", "-T", "here"])
        .file("here", "data\n")
        .reply(Reply::ok("hello\n"))
        .run(OXCURL);
}

// ---- -w variables (curl tests 424, 1261, 1067, 2081) ----------------------------------------

/// curl test 424: `%{urle.*}` parts of the effective URL: after a redirect through a proxy,
/// for a URL with a scheme curl does not support (the transfer fails, the URL still shows),
/// and for one that does not parse (all empty).
#[test]
fn t424_urle_variables() {
    let moved = || Reply::redirect(301, "http://anotherhost.example:2023/4240002?moo.html");
    let case = case(
        "t424_urle_variables",
        &[
            "http://uuuu:pppp@127.0.0.1:{port}/424?qqqq#ffff",
            "h55p://hello2000:1/424?qqqq#ffff",
            "local host",
            "http://u22u:p22p@127.0.0.1:{port}/424?qqqq#ffff",
            "-w",
            "%{urle.host}+%{urle.path}+%{urle.scheme}+%{urle.user}+%{urle.password}+%{urle.port}+%{urle.query}+%{urle.fragment}|%{url_effective}\\n",
            "-x",
            "{url}/",
            "-L",
        ],
    )
    .replies(vec![
        moved(),
        Reply::ok(""),
        moved(),
        Reply::ok(""),
    ]);
    let out = case.run(OXCURL).oxcurl.stdout_str();
    assert!(
        out.contains("\nhello2000+/424+h55p+++1+qqqq+ffff|h55p://hello2000:1/424?qqqq#ffff\n"),
        "{out}"
    );
}

/// curl test 1261: `%{redirect_url}` when `--max-redirs` stops the following: where it
/// would have gone.
#[test]
fn t1261_redirect_url_at_max_redirs() {
    for (name, location) in [
        ("t1261_relative", "data/10290002.txt?coolsite=yes"),
        ("unknown_scheme", "foo://elsewhere/x"),
        ("does_not_parse", "http://a b:c/x"),
    ] {
        case(
            name,
            &[
                "{url}/we/want/our/1261",
                "-w",
                "%{redirect_url}\\n",
                "--location",
                "--max-redirs",
                "0",
            ],
        )
        .reply(Reply::redirect(301, location))
        .run(OXCURL);
    }
    case(
        "after_one_redirect",
        &[
            "{url}/a",
            "-w",
            "%{redirect_url}|%{num_redirects}\\n",
            "-L",
            "--max-redirs",
            "1",
        ],
    )
    .replies(vec![Reply::redirect(302, "/b"), Reply::redirect(302, "/c")])
    .run(OXCURL);
}

/// curl tests 1067 and 2081: `--referer 'x;auto'` sends `x` first, then the previous URL
/// without credentials and fragment, which `%{referer}` shows; without `;auto` it stays.
#[test]
fn t1067_t2081_auto_referer() {
    case(
        "t1067_auto_referer",
        &[
            "{url}/want/1067",
            "--silent",
            "--location",
            "--referer",
            "firstone.html;auto",
            "--write-out",
            "%{stderr}|%{referer}|",
        ],
    )
    .replies(vec![
        Reply::redirect(301, "data/10670002.txt?coolsite=yes"),
        Reply::ok("followed\n"),
    ])
    .run(OXCURL);
    case(
        "t2081_credentials_and_fragment_stripped",
        &[
            "http://user:pass@127.0.0.1:{port}/we/want/our/2081#anchor",
            "--location",
            "--referer",
            ";auto",
            "--write-out",
            "%{referer}\\n",
        ],
    )
    .replies(vec![
        Reply::redirect(301, "data/20810002.txt?coolsite=yes"),
        Reply::ok("Thanks for following.\n"),
    ])
    .run(OXCURL);
    case(
        "set_referer_without_transfer",
        &[
            "http://127.0.0.1:1/",
            "--referer",
            "x",
            "-w",
            "%{referer}\\n",
        ],
    )
    .run(OXCURL);
}

// ---- --retry and 429 (curl tests 1633, 1634) ------------------------------------------------

/// curl test 1633: a POST redirected to a 429 with `Retry-After`, `--retry 1 -L`: the whole
/// chain is tried again, the first POST included, and both answers are written.
#[test]
fn t1633_retry_429_after_redirect() {
    let moved = || {
        Reply::raw(
            "HTTP/1.1 301 OK\r\nAccept-Ranges: bytes\r\nContent-Length: 0\r\n\
             Connection: close\r\nLocation: /16330002\r\n\r\n",
        )
        .close()
    };
    let busy = || {
        Reply::raw(
            "HTTP/1.1 429 too many requests\r\nRetry-After: 1\r\nContent-Length: 0\r\n\
             Connection: close\r\n\r\n",
        )
        .close()
    };
    case(
        "t1633_retry_429_after_redirect",
        &["{url}/1633", "-d", "moo", "--retry", "1", "-L", "-i"],
    )
    .replies(vec![moved(), busy(), moved(), busy()])
    .run(OXCURL);
    // Into a file (as runtests runs it): only body bytes written make a retry start the
    // file over, so both attempts' headers stay.
    case(
        "t1633_into_a_file",
        &[
            "{url}/1633",
            "-d",
            "moo",
            "--retry",
            "1",
            "-L",
            "-i",
            "-o",
            "out",
        ],
    )
    .replies(vec![moved(), busy(), moved(), busy()])
    .run(OXCURL);
}

/// curl test 1634: a 429 with `Retry-After` and a body on a kept connection, `--retry 1
/// --fail`: tried again after the second, the 429's body not written.
#[test]
fn t1634_retry_429_with_fail() {
    for (name, extra) in [
        ("t1634_retry_429_with_fail", &[][..]),
        ("t1634_into_a_file", &["-o", "out"][..]),
    ] {
        case(name, &["{url}/1634", "--retry", "1", "--fail", "-i"])
            .args(extra)
            .replies(vec![
                Reply::raw(
                    "HTTP/1.1 429 too many requests swsbounce\r\nRetry-After: 1\r\n\
                     Content-Length: 4\r\n\r\nmoo\n",
                ),
                Reply::raw(
                    "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nhey\n",
                )
                .close(),
            ])
            .run(OXCURL);
    }
}
