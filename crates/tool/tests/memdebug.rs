//! curl's memdebug, the oxcurl way: `OXCURL_MEMDEBUG=FILE` in a normal build logs every
//! allocation and free in curl's memdump format, and `oxcurl-memanalyze FILE` summarises it as
//! curl's `tests/memanalyze.pl -v` does. The numbers must balance: every block is either freed
//! or reported as a leak, and a plain GET leaks nothing but the runtime's start-up statics.

use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{Exec, Reply, ScriptedServer, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");
const MEMANALYZE: &str = env!("CARGO_BIN_EXE_oxcurl-memanalyze");

struct Summary {
    text: String,
    mallocs: u64,
    callocs: u64,
    reallocs: u64,
    frees: u64,
    allocations: u64,
    max: u64,
    /// (bytes, allocated by) of every leaked block
    leaks: Vec<(u64, String)>,
}

fn analyze(log: &std::path::Path) -> Summary {
    let o = Exec::new(MEMANALYZE).arg(log).run();
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr_str());
    let text = o.stdout_str();
    let num = |key: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key:?} in\n{text}"))
            .trim()
            .parse()
            .unwrap()
    };
    let mut leaks = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if let Some(rest) = l.strip_prefix("At ") {
            let bytes = rest
                .split(", there's ")
                .nth(1)
                .and_then(|t| t.strip_suffix(" bytes."))
                .unwrap()
                .parse()
                .unwrap();
            let by = lines
                .next()
                .and_then(|n| n.strip_prefix(" allocated by "))
                .unwrap()
                .to_string();
            leaks.push((bytes, by));
        }
    }
    Summary {
        mallocs: num("Mallocs: "),
        callocs: num("Callocs: "),
        reallocs: num("Reallocs: "),
        frees: num("Frees: "),
        allocations: num("Allocations: "),
        max: num("Maximum allocated: "),
        leaks,
        text,
    }
}

#[test]
fn memdebug_log_balances_for_a_plain_get() {
    let srv = ScriptedServer::with_replies(vec![Reply::big(256 << 10)]);
    let dir = TempDir::new("memdebug");
    let log = dir.join("memdump");
    let totals = dir.join("totals");
    let o = Exec::new(under_test(OXCURL))
        .args(["-q", "-s", "-o", "/dev/null", &format!("{}/big", srv.url())])
        .env("OXCURL_MEMDEBUG", &log)
        .env("OXCURL_ALLOCCOUNT", &totals)
        .run();
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr_str());
    let dump = std::fs::read_to_string(&log).expect("memdebug log written");
    assert!(
        dump.lines().all(|l| l.starts_with("MEM ")),
        "every line is a MEM line: {dump}"
    );
    assert!(dump.contains("MEM transfer:0 "), "{dump}");
    let s = analyze(&log);
    let t = &s.text;
    assert!(!t.contains("ERROR") && !t.contains("Not recognized"), "{t}");
    assert_eq!(s.allocations, s.mallocs + s.callocs + s.reallocs, "{t}");
    assert!(s.mallocs > 0 && s.frees > 0, "{t}");
    // Every fresh block is either freed or listed as a leak.
    assert_eq!(
        s.frees + s.leaks.len() as u64,
        s.mallocs + s.callocs,
        "frees + leaked blocks vs blocks\n{t}"
    );
    // The only blocks alive at exit are the runtime's own start-up statics (allocated before
    // main runs: the main thread's bookkeeping); nothing the tool or the engine allocated.
    assert!(
        s.leaks.iter().all(|(_, by)| by == "init:0"),
        "leaks other than start-up statics:\n{t}"
    );
    assert!(s.leaks.iter().map(|l| l.0).sum::<u64>() <= 1024, "{t}");
    // The counters the allocator keeps agree with the log it writes.
    let totals = std::fs::read_to_string(&totals).unwrap();
    let field = |k: &str| -> u64 {
        let mut it = totals.split_whitespace();
        it.position(|w| w == k).unwrap();
        it.next().unwrap().parse().unwrap()
    };
    assert_eq!(field("peak"), s.max, "peak: {totals} vs\n{t}");
    // The totals are taken just before the report is written; the log goes on to the end.
    assert!(
        field("allocs") <= s.mallocs + s.callocs && s.mallocs + s.callocs <= field("allocs") + 20,
        "{totals} vs\n{t}"
    );
}

#[test]
fn memanalyze_reports_leaks_double_frees_and_curls_summary() {
    let dir = TempDir::new("memanalyze");
    let log = dir.join("memdump");
    std::fs::write(
        &log,
        "MEM a.c:1 malloc(32) = 0x10\n\
         MEM a.c:2 calloc(2,8) = 0x20\n\
         MEM a.c:3 realloc(0x10, 64) = 0x30\n\
         MEM a.c:4 strdup(0x99) (5) = 0x40\n\
         MEM a.c:5 free(0x30)\n\
         MEM a.c:6 free(0x30)\n\
         MEM a.c:7 free((nil))\n\
         FD a.c:8 socket() = 3\n\
         SEND a.c:9 send(83) = 83\n\
         RECV a.c:10 recv(100) = 10\n",
    )
    .unwrap();
    let s = analyze(&log);
    let t = &s.text;
    assert!(
        t.contains("FREE ERROR: Memory freed twice: MEM a.c:6 free(0x30)"),
        "{t}"
    );
    assert!(
        t.contains("Leak detected: memory still allocated: 21 bytes"),
        "{t}"
    );
    assert_eq!(
        s.leaks,
        vec![(16, "a.c:2".into()), (5, "a.c:4".into())],
        "{t}"
    );
    assert!(t.contains("Open file descriptor created at a.c:8"), "{t}");
    let tail: Vec<&str> = t
        .lines()
        .rev()
        .take(12)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    assert_eq!(
        tail,
        [
            "Mallocs: 1",
            "Reallocs: 1",
            "Callocs: 1",
            "Strdups:  1",
            "Wcsdups:  0",
            "Frees: 1",
            "Sends: 1",
            "Recvs: 1",
            "Sockets: 1",
            "Allocations: 4",
            "Operations: 7",
            "Maximum allocated: 85",
        ]
    );
    assert_eq!(s.max, 85);
}
