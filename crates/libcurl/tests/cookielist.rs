//! CURLOPT_COOKIELIST (cookie lines, SESS, ALL, RELOAD, FLUSH), CURLINFO_COOKIELIST and
//! CURLOPT_COOKIEFILE set to NULL: tests/c/cookielist.c against our library and the
//! reference libcurl on the same server, output and request bytes compared.

mod common;

use common::{run_ok, Lib};
use oxcurl_testsupport::http::{Reply, ScriptedServer};

#[test]
fn cookielist_commands_match_reference() {
    let s = ScriptedServer::start();
    s.set_handler(|req| {
        Reply::ok(format!(
            "Cookie: {}\n",
            req.header("cookie").unwrap_or("(none)")
        ))
    });
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let file = dir.join(format!("cookielist-file-{pid}"));
    std::fs::write(
        &file,
        "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tfromfile\tfour\n",
    )
    .expect("write cookie file");
    let url = format!("{}/c", s.url());
    let mut outs = Vec::new();
    for lib in [Lib::Ours, Lib::Reference] {
        let jar = dir.join(format!("cookielist-jar-{lib:?}-{pid}"));
        let args = [
            url.as_str(),
            file.to_str().expect("utf-8"),
            jar.to_str().expect("utf-8"),
        ];
        outs.push(run_ok("cookielist", lib, &args));
    }
    let _ = std::fs::remove_file(&file);
    assert_eq!(outs[0], outs[1], "ours vs reference");
    let out = &outs[0];
    assert!(
        out.contains("-- after keywords (getinfo 0, NULL)\n"),
        "{out}"
    );
    assert!(
        out.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\thttponly\tthree"),
        "{out}"
    );
    assert!(
        out.contains("Cookie: httponly=three; kept=two; sess=one\nperform=0\n"),
        "{out}"
    );
    let after_sess = out.split("-- after SESS").nth(1).expect("SESS step");
    let after_sess = after_sess.split("-- after ALL").next().expect("ALL step");
    assert!(!after_sess.contains("sess\tone"), "{after_sess}");
    assert!(after_sess.contains("kept\ttwo"), "{after_sess}");
    assert!(out.contains("-- after ALL (getinfo 0, NULL)\n"), "{out}");
    assert!(out.contains("fromfile\tfour"), "{out}");
    assert!(
        out.contains("-- jar after FLUSH\n# Netscape HTTP Cookie File\n"),
        "{out}"
    );
    assert!(
        out.ends_with("-- after COOKIEFILE NULL (getinfo 0, NULL)\nCookie: (none)\nperform=0\n"),
        "{out}"
    );
    let reqs: Vec<Vec<u8>> = s.requests().iter().map(|r| r.raw()).collect();
    let (a, b) = reqs.split_at(reqs.len() / 2);
    assert_eq!(a, b, "requests, ours vs reference");
}
