//! Shared by the URL test files.

use oxcurl_urlapi::Part;

/// The parts in the column order of the reference tables (tests/ref/urlref.c).
pub const PARTS: [Part; 11] = [
    Part::Scheme,
    Part::User,
    Part::Password,
    Part::Options,
    Part::Host,
    Part::ZoneId,
    Part::Port,
    Part::Path,
    Part::Query,
    Part::Fragment,
    Part::Url,
];
