//! Hostile-server cases: a differential [`Case`] whose oxcurl run must also stay inside a
//! resource budget, so a malicious or broken server can neither hang the client nor make it
//! grow without bound.
//!
//! ```no_run
//! use oxcurl_testsupport::hostile::Hostile;
//! use oxcurl_testsupport::Reply;
//! # let oxcurl = "target/debug/oxcurl";
//! Hostile::new("huge_header_line", true)
//!     .case(|c| c.args(&["-sS", "{url}/"]).reply(Reply::raw("HTTP/1.1 200 OK\r\nX: ...")))
//!     .run(oxcurl);
//! ```
//!
//! [`Hostile::run`] runs the case as [`Case::run`] does (exit code, stdout, stderr, request
//! bytes and files compared with the reference curl's, where the case says so), then checks
//! oxcurl's run against the budget:
//! * it ended by itself within the wall-time budget (no hang, no harness kill);
//! * its peak heap, from the `alloc-count` feature's `OXCURL_ALLOCCOUNT` report, is within
//!   the heap budget (the report is required when the tool was built with the feature);
//! * its peak resident set (`VmHWM`, sampled by [`crate::process::Exec`]) is within the RSS
//!   budget.
//!
//! The budgets default to [`DEFAULT_HEAP`], [`DEFAULT_RSS_KIB`] and [`DEFAULT_WALL`]; a case
//! that needs more says so (and why) with [`Hostile::heap`], [`Hostile::rss_kib`] and
//! [`Hostile::wall`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diff::{Case, CaseResult};
use crate::fs::TempDir;

/// Default peak-heap budget: 8 MiB. A plain transfer peaks well under 1 MiB; curl's own
/// limits (300 KiB of response headers, 100 KiB per header line, 16 KiB buffers) keep every
/// hostile case near that.
pub const DEFAULT_HEAP: u64 = 8 << 20;

/// Default peak-RSS budget: 64 MiB (a debug build's text and TLS libraries included).
pub const DEFAULT_RSS_KIB: u64 = 64 << 10;

/// Default wall-time budget for oxcurl's run.
pub const DEFAULT_WALL: Duration = Duration::from_secs(15);

/// The totals the `alloc-count` feature writes to `OXCURL_ALLOCCOUNT`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocReport {
    /// Allocations made.
    pub allocs: u64,
    /// Reallocations made.
    pub reallocs: u64,
    /// Deallocations made.
    pub frees: u64,
    /// The most heap bytes live at once.
    pub peak: u64,
}

impl AllocReport {
    /// Parses `allocs N reallocs N frees N peak N`; None if the file is missing or malformed.
    pub fn read(path: &Path) -> Option<AllocReport> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut r = AllocReport::default();
        let mut it = text.split_whitespace();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            let v: u64 = v.parse().ok()?;
            match k {
                "allocs" => r.allocs = v,
                "reallocs" => r.reallocs = v,
                "frees" => r.frees = v,
                "peak" => r.peak = v,
                _ => return None,
            }
        }
        Some(r)
    }
}

/// A hostile-server case (a builder; finish with [`Hostile::run`]).
#[derive(Debug)]
pub struct Hostile {
    case: Case,
    report_dir: TempDir,
    report: PathBuf,
    require_report: bool,
    heap: u64,
    rss_kib: u64,
    wall: Duration,
}

/// What [`Hostile::run`] measured.
#[derive(Clone, Debug)]
pub struct HostileResult {
    /// Both runs.
    pub result: CaseResult,
    /// oxcurl's allocation totals (None without the `alloc-count` feature).
    pub alloc: Option<AllocReport>,
    /// oxcurl's peak RSS in KiB.
    pub rss_kib: Option<u64>,
    /// The reference curl's peak RSS in KiB.
    pub reference_rss_kib: Option<u64>,
}

impl Hostile {
    /// A case named `name`, with stderr compared (curl's message is part of every hostile
    /// case). `alloc_count` says whether oxcurl was built with the `alloc-count` feature
    /// (tests pass `cfg!(feature = "alloc-count")`); then its heap report is required.
    pub fn new(name: &str, alloc_count: bool) -> Hostile {
        let report_dir = TempDir::new(&format!("hostile-{name}"));
        let report = report_dir.join("allocs.txt");
        let case = Case::new(name)
            .compare_stderr(true)
            .env("OXCURL_ALLOCCOUNT", &report.to_string_lossy());
        Hostile {
            case,
            report_dir,
            report,
            require_report: alloc_count,
            heap: DEFAULT_HEAP,
            rss_kib: DEFAULT_RSS_KIB,
            wall: DEFAULT_WALL,
        }
    }

    /// Configures the differential case (args, replies, server, normalisers...).
    pub fn case(mut self, f: impl FnOnce(Case) -> Case) -> Hostile {
        self.case = f(self.case);
        self
    }

    /// Peak-heap budget in bytes.
    pub fn heap(mut self, bytes: u64) -> Hostile {
        self.heap = bytes;
        self
    }

    /// Peak-RSS budget in KiB.
    pub fn rss_kib(mut self, kib: u64) -> Hostile {
        self.rss_kib = kib;
        self
    }

    /// Wall-time budget of oxcurl's run (the harness kills it at 20 s regardless).
    pub fn wall(mut self, d: Duration) -> Hostile {
        self.wall = d;
        self
    }

    /// Runs the differential case, then checks oxcurl's run against the budget; panics with
    /// a readable report on any difference or overrun. `oxcurl` is the built binary;
    /// `OXCURL_UNDER_TEST` replaces it when set ([`crate::under_test`]).
    pub fn run(self, oxcurl: impl AsRef<Path>) -> HostileResult {
        let _ = std::fs::remove_file(&self.report);
        let result = self.case.run(oxcurl);
        let out = &result.oxcurl.output;
        let name = &result.name;
        assert!(
            !out.timed_out,
            "case `{name}`: oxcurl hung and was killed after {:?}",
            out.elapsed
        );
        assert!(
            out.elapsed <= self.wall,
            "case `{name}`: oxcurl took {:?}, budget {:?}",
            out.elapsed,
            self.wall
        );
        let alloc = AllocReport::read(&self.report);
        if self.require_report {
            let a = alloc.unwrap_or_else(|| {
                panic!(
                    "case `{name}`: oxcurl wrote no allocation report to {}",
                    self.report.display()
                )
            });
            assert!(
                a.peak <= self.heap,
                "case `{name}`: oxcurl's heap peaked at {} bytes, budget {}",
                a.peak,
                self.heap
            );
        }
        let rss_kib = out.peak_rss_kib;
        if let Some(kib) = rss_kib {
            assert!(
                kib <= self.rss_kib,
                "case `{name}`: oxcurl's peak RSS was {kib} KiB, budget {} KiB (reference curl: {:?} KiB)",
                self.rss_kib,
                result.reference.output.peak_rss_kib
            );
        }
        eprintln!(
            "case `{name}`: oxcurl {:?}, heap peak {:?} bytes, peak RSS {:?} KiB; reference curl {:?}, peak RSS {:?} KiB",
            out.elapsed,
            alloc.map(|a| a.peak),
            rss_kib,
            result.reference.output.elapsed,
            result.reference.output.peak_rss_kib
        );
        drop(self.report_dir);
        HostileResult {
            reference_rss_kib: result.reference.output.peak_rss_kib,
            result,
            alloc,
            rss_kib,
        }
    }
}
