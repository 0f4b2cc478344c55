//! The oxcurl engine: the Multi as executor, transfers, connections and protocols.
//! No unsafe, no async runtime, no threads but the DNS workers.
#![forbid(unsafe_code)]

pub mod info;
pub mod proto {
    pub mod h1 {
        pub mod chunked;
        pub mod head;
    }
}
pub mod content_encoding;
