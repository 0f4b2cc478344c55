//! C programs (tests/c/*.c) compiled against curl 8.14.1's headers, run against our
//! libcurl.so.4 and, where the output is observable, against the reference libcurl too.

mod common;

use common::{compile, run, run_ok, Lib};
use oxcurl_testsupport::diff::mask_boundaries;
use oxcurl_testsupport::http::{Reply, ScriptedServer};

fn server() -> ScriptedServer {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        Reply::status(
            200,
            &[("Content-Type", "text/plain")],
            format!("hello from {}\n", req.path()),
        )
    });
    s
}

#[test]
fn get_to_stdout_and_file_matches_reference() {
    let s = server();
    let url = format!("{}/file.txt", s.url().trim_end_matches('/'));
    let dir = std::env::temp_dir();
    let mut outs = Vec::new();
    for lib in [Lib::Ours, Lib::Reference] {
        let file = dir.join(format!("cabi-get-{lib:?}-{}", std::process::id()));
        let stdout = run_ok("get", lib, &[&url, file.to_str().expect("utf-8")]);
        let body = std::fs::read(&file).expect("file written");
        let _ = std::fs::remove_file(&file);
        outs.push((stdout, body));
    }
    assert!(
        outs[0].0.starts_with("hello from /file.txt\n"),
        "{}",
        outs[0].0
    );
    assert!(
        outs[0].0.contains("code=200 type=text/plain"),
        "{}",
        outs[0].0
    );
    assert_eq!(outs[0].0, outs[1].0, "stdout: ours vs reference");
    assert_eq!(outs[0].1, outs[1].1, "file: ours vs reference");
    let reqs = s.requests();
    assert_eq!(reqs.len(), 4);
    assert_eq!(
        reqs[0].raw(),
        reqs[2].raw(),
        "request bytes: ours vs reference"
    );
}

#[test]
fn post_with_postfields_headers_and_header_callback() {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        Reply::status(
            201,
            &[("X-Got", req.header("x-test").unwrap_or("none"))],
            "posted",
        )
    });
    let url = s.url();
    let ours = run_ok("post", Lib::Ours, &[&url]);
    let reference = run_ok("post", Lib::Reference, &[&url]);
    assert!(ours.contains("B: posted\n"), "{ours}");
    assert!(ours.contains("H: X-Got: yes\r\n"), "{ours}");
    assert!(ours.contains("rc=7 errbuf_set=1"), "{ours}");
    assert_eq!(ours, reference);
    let reqs = s.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].raw(),
        reqs[1].raw(),
        "request bytes: ours vs reference"
    );
    assert!(reqs[0].raw().ends_with(b"\r\n\r\nname=oxcurl&x=1"));
}

#[test]
fn multi_two_transfers_with_wait() {
    let s = server();
    let base = s.url();
    let base = base.trim_end_matches('/');
    let (a, b) = (format!("{base}/one"), format!("{base}/two"));
    let ours = run_ok("multi", Lib::Ours, &[&a, &b]);
    assert!(ours.contains("added_again=7\n"), "{ours}");
    assert!(ours.contains("done 0 result=0 code=200\n"), "{ours}");
    assert!(ours.contains("done 1 result=0 code=200\n"), "{ours}");
    assert!(ours.contains("body0=hello from /one\n"), "{ours}");
    assert!(ours.contains("body1=hello from /two\n"), "{ours}");
    assert!(ours.ends_with("messages=2\n"), "{ours}");
    let reference = run_ok("multi", Lib::Reference, &[&a, &b]);
    let sorted = |s: &str| {
        let mut v: Vec<_> = s.lines().map(str::to_string).collect();
        v.sort();
        v
    };
    assert_eq!(
        sorted(&ours),
        sorted(&reference),
        "completion order may differ, not content"
    );
}

#[test]
fn strerror_texts_match_reference() {
    let ours = run_ok("strerror", Lib::Ours, &[]);
    let reference = run_ok("strerror", Lib::Reference, &[]);
    assert!(ours.contains("E0 No error\n"));
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b);
    }
    assert_eq!(ours, reference);
}

#[test]
fn socket_and_framing_option_codes_match_reference() {
    let ours = run_ok("setoptvalues", Lib::Ours, &[]);
    let reference = run_ok("setoptvalues", Lib::Reference, &[]);
    assert!(ours.contains("-1: idle=43"), "{ours}");
    assert!(ours.contains("fnmatch=0 data=0 unset=0\n"), "{ours}");
    assert!(
        ours.contains("1: idle=0 intvl=0 cnt=0 he=0 icl=0 disallow=0 perms=0\n"),
        "{ours}"
    );
    assert_eq!(ours, reference);
}

#[test]
fn no_url_error_text_matches_reference() {
    let ours = run_ok("nourl", Lib::Ours, &[]);
    let reference = run_ok("nourl", Lib::Reference, &[]);
    assert!(ours.starts_with("rc=3 [No URL set]\nrc=3 []\n"), "{ours}");
    assert_eq!(ours, reference);
}

#[test]
fn multi_timer_calls_as_handles_leave_match_reference() {
    let ours = run_ok("multitimer", Lib::Ours, &[]);
    let reference = run_ok("multitimer", Lib::Reference, &[]);
    assert!(ours.contains("remove: timer 0\n"), "{ours}");
    assert!(ours.contains("remove2: timer -1\n"), "{ours}");
    assert!(
        ours.contains("remove again: refusing timer -1\nrc=11\n"),
        "{ours}"
    );
    assert_eq!(ours, reference);
}

#[test]
fn escape_getdate_slist_match_reference() {
    let ours = run_ok("misc", Lib::Ours, &[]);
    let reference = run_ok("misc", Lib::Reference, &[]);
    assert!(ours.contains("date[0]=784111777\n"), "{ours}");
    assert_eq!(ours, reference);
}

#[test]
fn strequal_getenv_global_trace_match_reference() {
    let ours = run_ok("strequal", Lib::Ours, &[]);
    let reference = run_ok("strequal", Lib::Reference, &[]);
    assert!(
        ours.contains("strequal[0]=1 n0=1 n1=1 n2=1 n3=1 n10=1\n"),
        "{ours}"
    );
    assert!(ours.contains("getenv=value with spaces\n"), "{ours}");
    assert_eq!(ours, reference);
}

#[test]
fn port_curlu_filetime_retry_after_protocol_condition_unmet_match_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| match req.path() {
        "/lm" => Reply::status(
            200,
            &[
                ("Last-Modified", "Thu, 01 Jan 1970 00:00:30 GMT"),
                ("Retry-After", "120"),
            ],
            "lm\n",
        ),
        "/304" => Reply::head(304, &[("Last-Modified", "Mon, 19 Aug 2019 10:31:20 GMT")]),
        _ if req.head.starts_with(b"GET http://") => {
            let head = String::from_utf8_lossy(&req.head).into_owned();
            let line = head.lines().next().unwrap_or("").to_string();
            Reply::status(200, &[], format!("proxied: {line}\n"))
        }
        "/form" => Reply::status(
            200,
            &[],
            format!(
                "{} length={} type={}\n",
                req.method,
                req.header("Content-Length").unwrap_or("-"),
                req.header("Content-Type").unwrap_or("-")
            ),
        ),
        _ => Reply::status(
            200,
            &[],
            format!(
                "{} host={}\n",
                req.path(),
                req.header("Host").unwrap_or("-")
            ),
        ),
    });
    let host = s.addr().ip().to_string();
    let port = s.addr().port().to_string();
    let ours = run_ok("transferinfo", Lib::Ours, &[&host, &port]);
    let reference = run_ok("transferinfo", Lib::Reference, &[&host, &port]);
    for want in [
        "lm with FILETIME: rc=0 code=200 filetime=30/30 retry_after=120 protocol=1 unmet=0",
        "304 with time condition: rc=0 code=304 filetime=-1/-1 retry_after=0 protocol=1 unmet=1",
        &format!("/echo host={host}:{port}\nPORT: rc=0"),
        "/curlu host=",
        "CURLU changed: rc=0",
        "POST length=0 type=-\nHTTPPOST NULL: 0\nPOST length=0 type=-\nMIMEPOST NULL: 0\n",
        "POST length=0 type=text/mine\n",
        "GET length=- type=-\nHTTPGET: 0",
        "PUT length=26 type=-\nUPLOAD of 26: 0 read calls=2\n",
        "proxied: GET http://example.com/proxied HTTP/1.1\n",
        "long URL: 43\n",
    ] {
        assert!(ours.contains(want), "{want:?} in {ours}");
    }
    assert_eq!(ours, reference);
}

#[test]
fn version_info_sanity() {
    let ours = run_ok("version", Lib::Ours, &[]);
    assert_eq!(
        ours,
        "age=11 version=8.14.1 num=80e01\nhttp=1 https=1 ssl=1 ssl_version_set=1\n\
         feature_names=1 version_prefix=1\n"
    );
}

#[test]
fn struct_layouts_match_headers() {
    use oxcurl_libcurl::{consts, easy, global, multi, options, slist, version};
    use std::mem::{offset_of, size_of};
    let c = run_ok("layout", Lib::Ours, &[]);
    let expected = [
        ("curl_slist.size", size_of::<slist::CurlSlist>()),
        ("curl_slist.next", offset_of!(slist::CurlSlist, next)),
        ("CURLMsg.size", size_of::<multi::CurlMsg>()),
        (
            "CURLMsg.easy_handle",
            offset_of!(multi::CurlMsg, easy_handle),
        ),
        ("CURLMsg.data", offset_of!(multi::CurlMsg, data)),
        ("curl_waitfd.size", size_of::<multi::CurlWaitFd>()),
        ("curl_waitfd.events", offset_of!(multi::CurlWaitFd, events)),
        (
            "curl_waitfd.revents",
            offset_of!(multi::CurlWaitFd, revents),
        ),
        ("curl_ssl_backend.size", size_of::<global::CurlSslBackend>()),
        (
            "curl_ssl_backend.name",
            offset_of!(global::CurlSslBackend, name),
        ),
        ("version_info.size", size_of::<version::VersionInfo>()),
        (
            "version_info.protocols",
            offset_of!(version::VersionInfo, protocols),
        ),
        (
            "version_info.iconv_ver_num",
            offset_of!(version::VersionInfo, iconv_ver_num),
        ),
        (
            "version_info.brotli_ver_num",
            offset_of!(version::VersionInfo, brotli_ver_num),
        ),
        (
            "version_info.cainfo",
            offset_of!(version::VersionInfo, cainfo),
        ),
        (
            "version_info.zstd_ver_num",
            offset_of!(version::VersionInfo, zstd_ver_num),
        ),
        (
            "version_info.feature_names",
            offset_of!(version::VersionInfo, feature_names),
        ),
        (
            "version_info.rtmp_version",
            offset_of!(version::VersionInfo, rtmp_version),
        ),
        ("curl_easyoption.size", size_of::<options::CurlEasyOption>()),
        (
            "curl_easyoption.type",
            offset_of!(options::CurlEasyOption, kind),
        ),
        (
            "curl_easyoption.flags",
            offset_of!(options::CurlEasyOption, flags),
        ),
        ("curl_fileinfo.size", size_of::<easy::FileInfoC>()),
        (
            "curl_fileinfo.filetype",
            offset_of!(easy::FileInfoC, filetype),
        ),
        ("curl_fileinfo.time", offset_of!(easy::FileInfoC, time)),
        ("curl_fileinfo.perm", offset_of!(easy::FileInfoC, perm)),
        (
            "curl_fileinfo.size_field",
            offset_of!(easy::FileInfoC, size),
        ),
        (
            "curl_fileinfo.hardlinks",
            offset_of!(easy::FileInfoC, hardlinks),
        ),
        (
            "curl_fileinfo.strings.time",
            offset_of!(easy::FileInfoC, s_time),
        ),
        (
            "curl_fileinfo.strings.target",
            offset_of!(easy::FileInfoC, s_target),
        ),
        ("curl_fileinfo.flags", offset_of!(easy::FileInfoC, flags)),
        ("curl_fileinfo.b_used", offset_of!(easy::FileInfoC, b_used)),
        ("curl_hstsentry.size", size_of::<easy::HstsEntryC>()),
        (
            "curl_hstsentry.namelen",
            offset_of!(easy::HstsEntryC, namelen),
        ),
        (
            "curl_hstsentry.expire",
            offset_of!(easy::HstsEntryC, expire),
        ),
        ("curl_index.size", size_of::<easy::CurlIndex>()),
        ("curl_index.total", offset_of!(easy::CurlIndex, total)),
        ("CURLVERSION_NOW", version::CURLVERSION_NOW as usize),
        ("CURL_ERROR_SIZE", consts::CURL_ERROR_SIZE),
        (
            "CURLOPT_XFERINFOFUNCTION",
            consts::opt::XFERINFOFUNCTION as usize,
        ),
        (
            "CURLOPT_POSTFIELDSIZE_LARGE",
            consts::opt::POSTFIELDSIZE_LARGE as usize,
        ),
        ("CURLOPT_HSTS", consts::opt::HSTS as usize),
        ("CURLMOPT_MAXCONNECTS", consts::mopt::MAXCONNECTS as usize),
        (
            "CURLINFO_SIZE_DOWNLOAD_T",
            (consts::info::OFF_T + 8) as usize,
        ),
    ];
    let got: Vec<String> = c.lines().map(str::to_string).collect();
    let want: Vec<String> = expected.iter().map(|(n, v)| format!("{n}={v}")).collect();
    assert_eq!(got, want);
}

#[test]
fn valgrind_get_post_multi_are_clean() {
    if std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("valgrind is not installed (scripts/test.sh installs it)");
    }
    let s = server();
    let url = s.url();
    let file = std::env::temp_dir().join(format!("cabi-vg-{}", std::process::id()));
    let file = file.to_str().expect("utf-8").to_string();
    let (a, b) = (format!("{url}/a"), format!("{url}/b"));
    for (prog, args) in [
        ("get", vec![url.clone(), file.clone()]),
        ("post", vec![url.clone()]),
        ("multi", vec![a, b]),
        ("mprintf", vec![]),
    ] {
        let exe = compile(prog, Lib::Ours);
        let out = oxcurl_testsupport::process::Exec::new("valgrind")
            .args([
                "--error-exitcode=1",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite",
                "-q",
            ])
            .arg(&exe)
            .args(&args)
            .env("LD_LIBRARY_PATH", Lib::Ours.dir())
            .timeout(std::time::Duration::from_secs(120))
            .run();
        let _ = std::fs::remove_file(&exe);
        assert_eq!(out.code, Some(0), "valgrind {prog}: {}", out.stderr_str());
    }
    let _ = std::fs::remove_file(&file);
    let _ = run;
}

#[test]
fn url_api_round_trips_match_reference() {
    let ours = run_ok("urlapi", Lib::Ours, &[]);
    let reference = run_ok("urlapi", Lib::Reference, &[]);
    assert!(
        ours.contains("u0 f0 set=0 part=5 get=0 rc=0 [Example.COM]\n"),
        "{ours}"
    );
    assert!(ours.contains("U0 No error\n"));
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b, "ours vs reference");
    }
    assert_eq!(ours, reference);
}

#[test]
#[ignore = "issue 5: the reference libcurl is built without IDN (CURLUE_LACKS_IDN); ours converts IDN hosts with CURLU_PUNYCODE"]
fn url_api_idn_hosts_match_reference() {
    let ours = run_ok("urlapi", Lib::Ours, &["idn"]);
    let reference = run_ok("urlapi", Lib::Reference, &["idn"]);
    assert_eq!(ours, reference);
}

#[test]
fn option_table_matches_reference() {
    let ours = run_ok("options", Lib::Ours, &[]);
    let reference = run_ok("options", Lib::Reference, &[]);
    assert!(ours.contains("by_name url: URL 10002\n"), "{ours}");
    assert!(ours.contains("by_name ENCODING: ENCODING 1\n"), "{ours}");
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b, "ours vs reference");
    }
    assert_eq!(ours, reference);
}

#[test]
fn callbacks_reentrancy_progress_debug_and_upload_match_reference() {
    let s = server();
    let url = format!("{}/cb", s.url());
    let ours = run_ok("callbacks", Lib::Ours, &[&url]);
    assert!(
        ours.contains("easy rc=0 recursive_easy=2 getinfo=0 setopt=0 progress_called=1\n"),
        "{ours}"
    );
    assert!(
        ours.contains("multi recursive_easy=2 recursive_multi=8\n"),
        "{ours}"
    );
    assert!(
        ours.contains("upload rc=0 left=0 header_out=1 put_first=1 text=1\n"),
        "{ours}"
    );
    let reference = run_ok("callbacks", Lib::Reference, &[&url]);
    assert_eq!(ours, reference);
    let reqs = s.requests();
    let put: Vec<_> = reqs
        .iter()
        .filter(|r| r.raw().starts_with(b"PUT "))
        .collect();
    assert_eq!(put.len(), 2, "one PUT from each library");
    assert!(put[0].raw().ends_with(b"\r\n\r\nuploaded-body"));
    assert_eq!(
        put[0].raw(),
        put[1].raw(),
        "request bytes: ours vs reference"
    );
}

#[test]
fn global_init_mem_allocator_is_used_for_application_memory() {
    let ours = run_ok("initmem", Lib::Ours, &[]);
    assert_eq!(
        ours,
        "null_callback=2\ninit=0\nescape=a%20b via_app_malloc=1\nfree_via_app_free=1\n\
         slist_via_app_malloc=1\nslist_free_via_app_free=1\n"
    );
    assert_eq!(ours, run_ok("initmem", Lib::Reference, &[]));
}

#[test]
fn multi_fdset_select_loop_matches_reference() {
    let s = server();
    let url = format!("{}/sel", s.url());
    let ours = run_ok("fdset", Lib::Ours, &[&url]);
    assert_eq!(
        ours,
        "hello from /sel\n\ndone=1 result=0 left=0\ncleanup=0\n"
    );
    assert_eq!(ours, run_ok("fdset", Lib::Reference, &[&url]));
}

#[test]
fn cookie_jar_written_at_cleanup_matches_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        let sent = req.header("cookie").unwrap_or("none").to_string();
        Reply::status(
            200,
            &[(
                "Set-Cookie",
                "flavour=oat; Path=/; Expires=Wed, 01 Jan 2110 00:00:00 GMT",
            )],
            sent,
        )
    });
    let url = format!("{}/c", s.url());
    let mut jars = Vec::new();
    for lib in [Lib::Ours, Lib::Reference] {
        let jar = std::env::temp_dir().join(format!("cabi-jar-{lib:?}-{}", std::process::id()));
        let out = run_ok("cookies", lib, &[&url, jar.to_str().expect("utf-8")]);
        assert_eq!(out, "first=0\nsecond=0\n");
        jars.push(std::fs::read_to_string(&jar).expect("jar written"));
        let _ = std::fs::remove_file(&jar);
    }
    assert!(jars[0].contains("flavour\toat"), "{}", jars[0]);
    assert_eq!(jars[0], jars[1]);
    let reqs = s.requests();
    assert_eq!(reqs[1].header("cookie"), Some("flavour=oat"));
    assert_eq!(
        reqs[1].raw(),
        reqs[3].raw(),
        "request bytes: ours vs reference"
    );
}

#[test]
fn getinfo_inside_callback_matches_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        let code = if req.path().ends_with("/missing") {
            404
        } else {
            200
        };
        Reply::status(code, &[], format!("body of {}\n", req.path()))
    });
    let url = s.url().trim_end_matches('/').to_string();
    let ours = run_ok("infocb", Lib::Ours, &[&url]);
    for line in [
        "first header: connect>0=1 pretransfer>0=1 starttransfer>0=1 total>0=1 appconnect=0 speed>0=0\n",
        "code_in_write_callback=404 size_download=0\n",
        "end of headers: code=404 content_length=",
        "progress after body: code=404\n",
    ] {
        assert!(ours.contains(line), "{line:?} in {ours}");
    }
    assert_eq!(ours, run_ok("infocb", Lib::Reference, &[&url]));
}

/// stderr of the verbose program against `lib`, the Date header line dropped.
fn verbose_trace(lib: Lib, url: &str) -> String {
    let exe = compile("verbose", lib);
    let out = run(&exe, lib, &[url]);
    let _ = std::fs::remove_file(&exe);
    assert_eq!(out.stdout_str(), "rc=0\n");
    out.stderr_str()
        .lines()
        .filter(|l| !l.starts_with("< Date:"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn verbose_default_trace_matches_reference() {
    let s = server();
    let url = format!("{}/v", s.url());
    // Against a slower server ours printed this line and the reference did not; here both
    // agree. Not compared until that case is understood.
    let drop_sent = |t: String| t.replace("* Request completely sent off\n", "");
    let ours = verbose_trace(Lib::Ours, &url);
    assert!(ours.contains("> GET /v HTTP/1.1\n"), "{ours}");
    assert!(ours.contains("< HTTP/1.1 200 OK\n"), "{ours}");
    assert_eq!(
        drop_sent(ours),
        drop_sent(verbose_trace(Lib::Reference, &url))
    );
}

#[test]
fn mime_api_uploads_and_misuse_match_reference() {
    let s = server();
    let url = format!("{}/up", s.url());
    let file = std::env::temp_dir().join(format!("cabi-mime-{}.txt", std::process::id()));
    let file = file.to_str().expect("utf-8");
    let ours = run_ok("mime", Lib::Ours, &[&url, file]);
    assert!(ours.contains("known: rc=0 code=200\n"), "{ours}");
    assert!(ours.contains("chunked: rc=0 code=200\n"), "{ours}");
    assert!(ours.contains("gone: rc=26\n"), "{ours}");
    assert!(ours.contains("subparts(own root)=43\n"), "{ours}");
    let reference = run_ok("mime", Lib::Reference, &[&url, file]);
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b, "ours vs reference");
    }
    assert_eq!(ours, reference);
    let reqs = s.requests();
    let heads: Vec<String> = reqs
        .iter()
        .map(|r| {
            String::from_utf8_lossy(&r.raw())
                .chars()
                .take(300)
                .collect()
        })
        .collect();
    // Two uploads from each library; the reference also starts sending the request whose
    // file is gone (it finds out while reading), ours fails before sending it (both: 26).
    assert!(reqs.len() >= 4, "{heads:#?}");
    for (a, b) in [(0, 2), (1, 3)] {
        let (a, b) = (
            mask_boundaries(&reqs[a].raw()),
            mask_boundaries(&reqs[b].raw()),
        );
        assert_eq!(
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b),
            "request bytes: ours vs reference"
        );
    }
    let first = String::from_utf8_lossy(&reqs[0].raw()).into_owned();
    assert!(first.contains("Content-Length: "), "{first}");
    assert!(first.contains("name=\"bin%22quote\""), "{first}");
    let second = String::from_utf8_lossy(&reqs[1].raw()).into_owned();
    assert!(second.contains("Transfer-Encoding: chunked"), "{second}");
    assert!(
        second.contains("name=\"esc\\\"aped\\\\name\"; filename=\"f\\\"ile.txt\""),
        "{second}"
    );
}

/// A server answering `/307` with a 307 to `/up`, everything else with 200.
fn redirecting_server() -> ScriptedServer {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        if req.path() == "/307" {
            Reply::raw("HTTP/1.1 307 Again\r\nLocation: /up\r\nContent-Length: 0\r\n\r\n")
        } else {
            Reply::status(200, &[("Content-Type", "text/plain")], "ok")
        }
    });
    s
}

#[test]
fn mime_callback_data_is_rewound_for_a_307_and_copied_by_duphandle() {
    let s = redirecting_server();
    let base = s.url().trim_end_matches('/').to_string();
    let (up, again) = (format!("{base}/up"), format!("{base}/307"));
    let file = std::env::temp_dir().join(format!("cabi-mime307-{}.txt", std::process::id()));
    let file = file.to_str().expect("utf-8");
    let ours = run_ok("mime", Lib::Ours, &[&up, file, &again]);
    assert!(ours.contains("307: rc=0 code=200 seeks=1\n"), "{ours}");
    assert!(ours.contains("307: frees=1\n"), "{ours}");
    let reference = run_ok("mime", Lib::Reference, &[&up, file, &again]);
    assert_eq!(ours, reference);
    let bodies: Vec<Vec<u8>> = s
        .requests()
        .iter()
        .filter(|r| r.raw().windows(10).any(|w| w == b"sent twice"))
        .map(|r| mask_boundaries(&r.raw()))
        .collect();
    assert_eq!(bodies.len(), 4, "two requests from each library");
    assert_eq!(bodies[0], bodies[2]);
    assert_eq!(bodies[1], bodies[3]);
    assert!(ours.contains("dup: rc=0 code=200\n"), "{ours}");
    let dups: Vec<Vec<u8>> = s
        .requests()
        .iter()
        .filter(|r| r.raw().windows(10).any(|w| w == b"duplicated"))
        .map(|r| mask_boundaries(&r.raw()))
        .collect();
    assert_eq!(dups.len(), 2, "one from each library");
    assert_eq!(
        String::from_utf8_lossy(&dups[0]),
        String::from_utf8_lossy(&dups[1])
    );
}

#[test]
fn mime_chunks_and_upload_counts_match_reference() {
    let s = server();
    let url = s.url().trim_end_matches('/').to_string();
    let dir = std::env::temp_dir();
    let file = dir.join(format!("cabi-mimechunks-{}.txt", std::process::id()));
    let stdin = dir.join(format!("cabi-mimechunks-in-{}.txt", std::process::id()));
    let (file, stdin) = (
        file.to_str().expect("utf-8"),
        stdin.to_str().expect("utf-8"),
    );
    let ours = run_ok("mimechunks", Lib::Ours, &[&url, file, stdin]);
    let ours_reqs = s.requests().len();
    let reference = run_ok("mimechunks", Lib::Reference, &[&url, file, stdin]);
    let _ = std::fs::remove_file(file);
    let _ = std::fs::remove_file(stdin);
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b, "ours vs reference");
    }
    assert_eq!(ours, reference);
    assert!(ours.contains("unsized: rc=0 code=200"), "{ours}");
    assert!(ours.contains("freed: rc=0 code=200"), "{ours}");
    let reqs = s.requests();
    assert_eq!(ours_reqs, 8, "one request per perform");
    assert_eq!(reqs.len(), 2 * ours_reqs);
    for i in 0..ours_reqs {
        let (a, b) = (
            mask_boundaries(&reqs[i].raw()),
            mask_boundaries(&reqs[i + ours_reqs].raw()),
        );
        assert_eq!(
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b),
            "request {i}: ours vs reference"
        );
    }
    let raw = |i: usize| String::from_utf8_lossy(&reqs[i].raw()).into_owned();
    // Chunks of one byte from the bytewise callback part.
    assert!(raw(0).contains("\r\n1\r\nn\r\n1\r\ne\r\n"), "{}", raw(0));
    assert!(raw(1).contains("Transfer-Encoding: chunked"), "{}", raw(1));
    assert!(raw(2).contains("Content-Length: "), "{}", raw(2));
    assert!(raw(3).contains(" Some data from stdin"), "{}", raw(3));
    assert!(raw(5).contains("Content-Length: 0\r\n"), "{}", raw(5));
    assert!(!raw(5).contains("Content-Type"), "{}", raw(5));
    assert!(raw(6).contains("copied"), "{}", raw(6));
}

#[test]
fn mime_callback_abort_matches_reference() {
    let s = redirecting_server();
    let base = s.url().trim_end_matches('/').to_string();
    let (up, again) = (format!("{base}/up"), format!("{base}/307"));
    let file = std::env::temp_dir().join(format!("cabi-mimeabort-{}.txt", std::process::id()));
    let file = file.to_str().expect("utf-8");
    let ours = run_ok("mime", Lib::Ours, &[&up, file, &again, "abort"]);
    let reference = run_ok("mime", Lib::Reference, &[&up, file, &again, "abort"]);
    assert!(reference.contains("abort: rc=42\n"), "{reference}");
    assert_eq!(ours, reference);
}

#[test]
fn valgrind_mime_and_headers_are_clean() {
    let s = redirecting_server();
    let base = s.url().trim_end_matches('/').to_string();
    let (url, again) = (format!("{base}/up"), format!("{base}/307"));
    let file = std::env::temp_dir().join(format!("cabi-mime-vg-{}.txt", std::process::id()));
    let hs = header_server();
    let hbase = hs.url().trim_end_matches('/').to_string();
    let hurls: Vec<String> = ["rep", "redir", "early", "trailer"]
        .iter()
        .map(|p| format!("{hbase}/{p}"))
        .collect();
    let form_file = std::env::temp_dir().join(format!("cabi-form-vg-{}.txt", std::process::id()));
    std::fs::write(&form_file, "file contents\n").expect("write");
    let form_file = form_file.to_str().expect("utf-8").to_string();
    let chunks_in = std::env::temp_dir().join(format!("cabi-chunks-vg-{}.txt", std::process::id()));
    let chunks_in = chunks_in.to_str().expect("utf-8").to_string();
    let runs: [(&str, Vec<String>); 4] = [
        (
            "mime",
            vec![
                url.clone(),
                file.to_str().expect("utf-8").to_string(),
                again,
            ],
        ),
        ("headers", hurls),
        ("formadd", vec![url.clone(), form_file.clone()]),
        // A freed MIMEPOST mime: the handle must not read it.
        (
            "mimechunks",
            vec![base, form_file.clone(), chunks_in.clone()],
        ),
    ];
    for (prog, args) in runs {
        let exe = compile(prog, Lib::Ours);
        let out = oxcurl_testsupport::process::Exec::new("valgrind")
            .args(["--error-exitcode=1", "--leak-check=full", "-q"])
            .arg(&exe)
            .args(&args)
            .env("LD_LIBRARY_PATH", Lib::Ours.dir())
            .timeout(std::time::Duration::from_secs(120))
            .run();
        let _ = std::fs::remove_file(&exe);
        assert_eq!(out.code, Some(0), "valgrind {prog}: {}", out.stderr_str());
    }
    let _ = std::fs::remove_file(&form_file);
    let _ = std::fs::remove_file(&chunks_in);
}

fn header_server() -> ScriptedServer {
    let s = ScriptedServer::start();
    s.set_handler(|req| match req.path() {
        "/rep" => Reply::raw(
            "HTTP/1.1 200 OK\r\nX-Rep: a\r\nContent-Length: 2\r\nx-rep:   b  \r\n\
             X-Fold: one\r\n   two  \r\n\tthree\r\nX-Other: o\r\nX-REP: c\r\n\r\nok",
        ),
        "/redir" => Reply::raw(
            "HTTP/1.1 302 Found\r\nLocation: /hop\r\nX-Rep: first\r\nContent-Length: 0\r\n\r\n",
        ),
        "/hop" => Reply::raw(
            "HTTP/1.1 301 Moved\r\nLocation: /rep\r\nX-Rep: second\r\nContent-Length: 0\r\n\r\n",
        ),
        "/early" => Reply::raw(
            "HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n\
             HTTP/1.1 200 OK\r\nX-Rep: final\r\nContent-Length: 2\r\n\r\nok",
        ),
        "/trailer" => Reply::chunked_with_trailers(&["ab", "cd"], &[("X-Trailer", "t")]),
        _ => Reply::status(404, &[], ""),
    });
    s
}

#[test]
fn header_api_through_a_connect_tunnel_matches_reference() {
    let s = header_server();
    let proxy = oxcurl_testsupport::proxy::ConnectProxy::start();
    let base = s.url().trim_end_matches('/').to_string();
    let urls = [
        format!("proxy={}", proxy.host_port()),
        format!("{base}/redir"),
        format!("{base}/early"),
    ];
    let args: Vec<&str> = urls.iter().map(String::as_str).collect();
    let ours = run_ok("headers", Lib::Ours, &args);
    // The proxy's answer has no header fields: this checks that CONNECT responses are not
    // counted as requests.
    assert!(ours.contains("url 2: rc=0 redirects=2\n"), "{ours}");
    let reference = run_ok("headers", Lib::Reference, &args);
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b, "ours vs reference\n{ours}");
    }
    assert_eq!(ours, reference);
}

#[test]
fn header_api_matches_reference() {
    let s = header_server();
    let base = s.url().trim_end_matches('/').to_string();
    let urls: Vec<String> = ["rep", "redir", "early", "trailer"]
        .iter()
        .map(|p| format!("{base}/{p}"))
        .collect();
    let args: Vec<&str> = urls.iter().map(String::as_str).collect();
    let ours = run_ok("headers", Lib::Ours, &args);
    for want in [
        " header(Location,0,1,0)=0 Location: /hop (0/1) origin=1\n",
        " header(X-REP,2,1,-1)=0 X-REP: c (2/3) origin=1\n",
        "  Link: </style.css> (0/1) origin=8 reserved=1\n",
        " header(X-Trailer,0,2,-1)=0 X-Trailer: t (0/1) origin=2\n",
        "url 2: rc=0 redirects=2\n",
        "  X-Fold: one two\tthree (0/1) origin=1 reserved=1\n",
    ] {
        assert!(ours.contains(want), "{want:?} in\n{ours}");
    }
    let reference = run_ok("headers", Lib::Reference, &args);
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b, "ours vs reference\n{ours}");
    }
    assert_eq!(ours, reference);
}

#[test]
fn mprintf_family_matches_reference() {
    let ours = run_ok("mprintf", Lib::Ours, &[]);
    let reference = run_ok("mprintf", Lib::Reference, &[]);
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b, "ours vs reference");
    }
    assert_eq!(ours, reference);
    assert!(ours.contains("|hello world| 11\n"), "{ours}");
    assert!(ours.contains("truncated: |hell| 4\n"), "{ours}");
}

#[test]
fn formadd_form_api_matches_reference() {
    let s = server();
    let url = format!("{}/form", s.url());
    let file = std::env::temp_dir().join(format!("cabi-form-{}.txt", std::process::id()));
    std::fs::write(&file, "file contents\n").expect("write");
    let file = file.to_str().expect("utf-8");
    let out = |lib| {
        let exe = compile("formadd", lib);
        let out = run(&exe, lib, &[&url, file]);
        let _ = std::fs::remove_file(&exe);
        assert_eq!(out.code, Some(0), "formadd {lib:?}: {}", out.stderr_str());
        String::from_utf8_lossy(&mask_boundaries(&out.stdout)).into_owned()
    };
    let ours = out(Lib::Ours);
    let reference = out(Lib::Reference);
    let _ = std::fs::remove_file(file);
    for (a, b) in ours.lines().zip(reference.lines()) {
        assert_eq!(a, b, "ours vs reference");
    }
    assert_eq!(ours, reference);
    assert!(ours.contains("perform=0 code=200\n"), "{ours}");
    assert!(ours.contains("formget refused=26\n"), "{ours}");
    assert!(ours.contains("nested array=6\n"), "{ours}");
    let reqs = s.requests();
    assert_eq!(reqs.len(), 2);
    let (a, b) = (
        mask_boundaries(&reqs[0].raw()),
        mask_boundaries(&reqs[1].raw()),
    );
    assert_eq!(
        String::from_utf8_lossy(&a),
        String::from_utf8_lossy(&b),
        "request bytes: ours vs reference"
    );
    let body = String::from_utf8_lossy(&a).into_owned();
    assert!(
        body.contains("name=\"stream\"; filename=\"s.txt\""),
        "{body}"
    );
    assert!(body.contains("\r\n\r\n0123456789\r\n"), "{body}");
}

#[test]
fn send_recv_upkeep_without_connect_only_match_reference() {
    let ours = run_ok("rawio", Lib::Ours, &[]);
    let reference = run_ok("rawio", Lib::Reference, &[]);
    assert!(
        ours.starts_with("send=1 n=0 err=CONNECT_ONLY is required\n"),
        "{ours}"
    );
    assert_eq!(ours, reference);
}

#[test]
fn options_set_after_multi_add_are_read_at_start_as_reference() {
    let s = server();
    let url = s.url().trim_end_matches('/').to_string();
    let ours = run_ok("lateopts", Lib::Ours, &[&url]);
    let ours_reqs = s.requests();
    let reference = run_ok("lateopts", Lib::Reference, &[&url]);
    let all = s.requests();
    assert_eq!(ours, reference);
    assert!(ours.contains("code=200\n"), "{ours}");
    let (ours_reqs, ref_reqs) = all.split_at(ours_reqs.len());
    assert_eq!(ours_reqs.len(), 2, "{ours}");
    assert_eq!(ours_reqs[0].raw(), ref_reqs[0].raw(), "first request");
    assert_eq!(ours_reqs[1].raw(), ref_reqs[1].raw(), "second request");
    let first = ours_reqs[0].raw();
    assert!(first.starts_with(b"POST /late HTTP/1.1\r\n"), "{first:?}");
    assert!(first.ends_with(b"\r\n\r\nlate\0fields"), "{first:?}");
    assert_eq!(ours_reqs[0].header("x-late"), Some("yes"));
    assert!(ours_reqs[1].raw().ends_with(b"\r\n\r\nfrom-callback"));
}

#[test]
fn follow_modes_with_a_custom_method_match_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        let path = req.path().to_string();
        match path.strip_prefix("/r").and_then(|c| c.parse::<u16>().ok()) {
            Some(code) => Reply::status(code, &[("Location", "/done")], ""),
            None => Reply::status(200, &[], "done\n"),
        }
    });
    let url = s.url().trim_end_matches('/').to_string();
    let ours = run_ok("followmode", Lib::Ours, &[&url]);
    assert!(ours.starts_with("mode 4: 43\nmode -1: 43\n"), "{ours}");
    // OBEYCODE drops the method where the code switches to GET, FIRSTONLY after the first
    // request whatever the code.
    assert!(ours.contains("mode 2 code 302 post 1\n> IGLOO /r302 HTTP/1.1\nSwitch to GET because of 302 response\n> GET /done HTTP/1.1\n"), "{ours}");
    assert!(ours.contains("mode 3 code 307 post 1\n> IGLOO /r307 HTTP/1.1\nDrop custom request method for next request\n> POST /done HTTP/1.1\n"), "{ours}");
    assert!(ours.contains("mode 1 code 302 post 1\n> IGLOO /r302 HTTP/1.1\nStick to IGLOO instead of GET\n> IGLOO /done HTTP/1.1\n"), "{ours}");
    assert_eq!(ours, run_ok("followmode", Lib::Reference, &[&url]));
}

#[test]
fn handle_keeps_found_auth_for_next_perform_as_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        let auth = req.header("authorization").unwrap_or("");
        if auth.starts_with("Digest ") {
            Reply::status(200, &[], "in\n")
        } else {
            Reply::status(
                401,
                &[("WWW-Authenticate", "Digest realm=\"r\", nonce=\"n1\"")],
                "",
            )
        }
    });
    let url = s.url().trim_end_matches('/').to_string();
    let ours = run_ok("authagain", Lib::Ours, &[&url]);
    let n = s.requests().len();
    let reference = run_ok("authagain", Lib::Reference, &[&url]);
    let all = s.requests();
    // CURLINFO_HTTPAUTH_USED: Digest (2) where a challenge picked it.
    assert!(
        ours.starts_with("first rc=0 code=200 avail=2 used=2 proxy_used=0\n"),
        "{ours}"
    );
    assert_eq!(ours, reference);
    let (ours_reqs, ref_reqs) = all.split_at(n);
    let lines = |r: &[oxcurl_testsupport::http::Request]| {
        r.iter()
            .map(|q| format!("{} {}", q.path(), q.header("authorization").unwrap_or("-")))
            .collect::<Vec<_>>()
    };
    let ours_lines = lines(ours_reqs);
    assert_eq!(ours_lines, lines(ref_reqs));
    // One probe for the first perform; then Digest at once, until the reset.
    let paths: Vec<_> = ours_lines
        .iter()
        .map(|l| (l.split(' ').next().unwrap_or(""), l.contains("Digest")))
        .collect();
    assert_eq!(
        paths,
        [
            ("/first", false),
            ("/first", true),
            ("/second", true),
            ("/third", true),
            ("/multi", true),
            ("/after-multi", true),
            ("/after-reset", false),
            ("/after-reset", true),
        ]
    );
}

#[test]
fn fresh_connect_is_for_the_first_request_only_as_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        if !req
            .header("authorization")
            .unwrap_or("")
            .starts_with("Digest ")
        {
            Reply::status(
                401,
                &[("WWW-Authenticate", "Digest realm=\"r\", nonce=\"n1\"")],
                "",
            )
        } else if req.path() == "/start" {
            Reply::status(302, &[("Location", "/next")], "")
        } else {
            Reply::status(200, &[], "in\n")
        }
    });
    let url = format!("{}/start", s.url().trim_end_matches('/'));
    let ours = run_ok("freshauth", Lib::Ours, &[&url]);
    let n = s.requests().len();
    let reference = run_ok("freshauth", Lib::Reference, &[&url]);
    assert_eq!(ours, "rc=0 code=200 connects=1\n");
    assert_eq!(ours, reference);
    let all = s.requests();
    let (o, r) = all.split_at(n);
    let conns = |v: &[oxcurl_testsupport::http::Request]| {
        v.iter().map(|q| q.conn - v[0].conn).collect::<Vec<_>>()
    };
    assert_eq!(conns(o), [0, 0, 0]);
    assert_eq!(conns(o), conns(r));
}

#[test]
fn curlu_url_with_spaces_is_requested_as_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        if req.path().ends_with("/file") {
            Reply::status(302, &[("Location", "../next")], "")
        } else {
            Reply::status(200, &[], "ok\n")
        }
    });
    let url = format!("{}/ /with/ space/ /file", s.url().trim_end_matches('/'));
    // The query goes as it is, spaces and all; the fragment is not sent but stays in the
    // effective URL.
    let plain = format!("{}/a b/plain?q r#f g", s.url().trim_end_matches('/'));
    let ours = run_ok("curluspace", Lib::Ours, &[&url, &plain]);
    let n = s.requests().len();
    let reference = run_ok("curluspace", Lib::Reference, &[&url, &plain]);
    let base = s.url().trim_end_matches('/').to_string();
    // Not redirected, the effective URL is the handle's as it holds it: spaces kept.
    assert_eq!(
        ours,
        format!(
            "set=0\nrc=0 redirects=1 effective={base}/%20/with/%20space/next\n\
             set=0\nrc=0 redirects=0 effective={base}/a b/plain?q r#f g\n"
        )
    );
    assert_eq!(ours, reference);
    let all = s.requests();
    let (o, r) = all.split_at(n);
    // The request lines as sent (the target alone would stop at the query's space).
    let targets = |v: &[oxcurl_testsupport::http::Request]| {
        v.iter()
            .map(|q| {
                let raw = q.raw();
                let line = raw.split(|&b| b == b'\r').next().unwrap_or_default();
                String::from_utf8_lossy(line).into_owned()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        targets(o),
        [
            "GET /%20/with/%20space/%20/file HTTP/1.1",
            "GET /%20/with/%20space/next HTTP/1.1",
            "GET /a%20b/plain?q r HTTP/1.1"
        ]
    );
    assert_eq!(targets(o), targets(r));
}
