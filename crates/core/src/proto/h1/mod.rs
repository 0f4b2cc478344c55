//! HTTP/1.x: request building and response framing, sans-IO.
pub mod chunked;
pub mod head;
pub mod request;
