//! The `oxcurl` command-line tool: curl's command line, output and exit codes, on the oxcurl
//! engine. It reaches the engine only through `Options` and the `Callbacks` callbacks.

#![forbid(unsafe_code)]

mod args;
mod formparse;
mod glob;
mod help;
mod operate;
mod output;
mod plan;
#[allow(dead_code)] // the -# bar and the -Z meter are wired in with parallel output
mod progress;
mod proto;
mod retry;
mod var;
mod writeout;

use std::io::Write;
use std::sync::{Arc, Mutex};

/// The system allocator behind a counter that is off unless the environment asks:
/// `OXCURL_MEMDEBUG=FILE` writes curl's memdebug log (read it with `oxcurl-memanalyze FILE`),
/// `OXCURL_ALLOCCOUNT=FILE` writes allocation totals to FILE at exit
/// (`allocs N reallocs N frees N peak N`). Unset, each call costs one relaxed atomic load.
#[global_allocator]
static ALLOC: oxcurl_sys::alloc::CountingAlloc = oxcurl_sys::alloc::CountingAlloc;

fn alloc_report_end() {
    use oxcurl_sys::alloc::{set_phase, stats, Phase};
    set_phase(Phase::Exit);
    let Some(f) = std::env::var_os("OXCURL_ALLOCCOUNT") else {
        return;
    };
    let s = stats();
    let _ = std::fs::write(
        f,
        format!(
            "allocs {} reallocs {} frees {} peak {}\n",
            s.allocs, s.reallocs, s.frees, s.peak_bytes
        ),
    );
}

fn main() {
    oxcurl_sys::alloc::set_phase(oxcurl_sys::alloc::Phase::Args);
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        // Valid UTF-8 (the usual case) is taken as it is, not copied.
        .map(|a| {
            a.into_string()
                .unwrap_or_else(|a| a.to_string_lossy().into_owned())
        })
        .collect();
    let code = run(argv);
    alloc_report_end();
    std::process::exit(code);
}

fn run(argv: Vec<String>) -> i32 {
    let cfg = match args::parse(&argv) {
        Ok(c) => c,
        // An empty message: the warnings already said it all.
        Err(e) if e.msg.is_empty() => return e.code,
        Err(e) => {
            args::msg_out(&format!(
                "curl: {}\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
                e.msg
            ));
            return e.code;
        }
    };
    for topic in &cfg.config_help {
        match help::help(topic.as_deref()) {
            Ok(text) => print!("{text}"),
            Err(text) => args::msg_out(&text),
        }
    }
    // No arguments and no URL from a .curlrc: curl only points at its help.
    if argv.is_empty() && cfg.ops.iter().all(|op| op.urls.is_empty()) {
        let _ = writeln!(
            std::io::stderr(),
            "curl: try 'curl --help' or 'curl --manual' for more information"
        );
        return 2;
    }
    match &cfg.action {
        Some(args::Action::Version) => {
            print!("{}", help::version());
            return 0;
        }
        Some(args::Action::Manual) => {
            // A reader that stops after the first line (runtests.pl does) is not an error.
            let _ = std::io::stdout()
                .lock()
                .write_all(help::manual().as_bytes());
            return 0;
        }
        Some(args::Action::DumpCaEmbed) => return 0,
        Some(args::Action::Help(topic)) => {
            match help::help(topic.as_deref()) {
                Ok(text) => print!("{text}"),
                Err(text) => eprint!("{text}"),
            }
            return 0;
        }
        None => {}
    }
    // The --stderr file the parser opened, with its warnings already in it.
    let errout: Option<operate::ErrOut> = match args::msg_dest() {
        args::MsgDest::File(file) => Some(Arc::new(Mutex::new(Box::new(file)))),
        args::MsgDest::Stdout => None,
        args::MsgDest::Stderr => Some(Arc::new(Mutex::new(Box::new(std::io::stderr())))),
    };
    oxcurl_sys::alloc::set_phase(oxcurl_sys::alloc::Phase::Transfer);
    let stdout = operate::stdout_buffer();
    // `--stderr -`: the messages share the body's buffered stdout.
    let errout = errout.unwrap_or_else(|| {
        Arc::new(Mutex::new(Box::new(operate::StdoutThrough(Arc::clone(
            &stdout,
        )))))
    });
    operate::run(cfg, errout, stdout)
}
