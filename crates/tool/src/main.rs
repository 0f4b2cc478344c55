//! The oxcurl command-line tool (placeholder entry point while the modules land).

#[allow(dead_code)]
mod progress;
#[allow(dead_code)]
mod writeout;

fn main() {}
