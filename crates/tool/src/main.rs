//! The `oxcurl` command-line tool: curl's command line, output and exit codes, on the oxcurl
//! engine. It reaches the engine only through `Options` and the `Handler` callbacks.

mod args;
mod help;
mod operate;
mod progress;
mod writeout;

use std::io::Write;
use std::sync::{Arc, Mutex};

fn main() {
    let argv: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let code = run(argv);
    std::process::exit(code);
}

fn run(argv: Vec<String>) -> i32 {
    let cfg = match args::parse(&argv) {
        Ok(c) => c,
        Err(e) => {
            let mut err = std::io::stderr();
            let _ = writeln!(err, "curl: {}", e.msg);
            let _ = writeln!(err, "curl: try 'curl --help' or 'curl --manual' for more information");
            return e.code;
        }
    };
    match &cfg.action {
        Some(args::Action::Version) => {
            print!("{}", help::version());
            return 0;
        }
        Some(args::Action::Help(topic)) => {
            print!("{}", help::help(topic.as_deref()));
            return 0;
        }
        None => {}
    }
    let errout: operate::ErrOut = match &cfg.global.stderr {
        Some(f) if f != "-" => match std::fs::File::create(f) {
            Ok(file) => Arc::new(Mutex::new(Box::new(file))),
            Err(_) => Arc::new(Mutex::new(Box::new(std::io::stderr()))),
        },
        _ => Arc::new(Mutex::new(Box::new(std::io::stderr()))),
    };
    operate::run(cfg, errout)
}
