//! curl URL API semantics.
