//! The oxcurl engine: the Multi as executor, transfers, connections and protocols.
//! No unsafe, no async runtime, no threads but the DNS workers.
#![forbid(unsafe_code)]

pub mod info;
