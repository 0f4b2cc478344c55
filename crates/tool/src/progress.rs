//! Progress meters.
