//! curl's URL API (`CURLU`: `curl_url_set` / `curl_url_get`) as a pure Rust
//! library, following the behaviour of libcurl 8.14.1's `lib/urlapi.c`.
//!
//! It parses, normalises, resolves (redirect-style joins) and re-assembles
//! URLs exactly the way curl does, including curl's quirks: scheme guessing,
//! `file:` URL rules, userinfo with `;options`, IPv4 shorthand
//! normalisation, IPv6 literals with zone ids, dot-segment removal and the
//! same error codes (`CURLUcode`) for the same input.
//!
//! What it is not: it does no I/O of any kind (no name resolution, no
//! network, no file system access) and keeps no global state. It is not a
//! WHATWG URL parser and it does not try to "fix" curl's behaviour.
//!
//! Known differences from libcurl, all at the edges:
//! - Inputs are Rust strings: a NUL byte is refused with
//!   [`UrlError::MalformedInput`] (C callers could never pass one; curl
//!   would see the string end there).
//! - A host that percent-decodes to bytes that are not UTF-8 is refused
//!   with [`UrlError::BadHostname`]; curl stores the raw bytes.
//!   [`Url::get`] replaces non-UTF-8 output of `url_decode` with U+FFFD;
//!   [`Url::get_bytes`] returns the exact bytes.
//! - IDN conversion uses the `idna` crate (UTS 46, non-transitional) plus
//!   libidn2's hyphen rules rather than libidn2 itself, so rare code points
//!   may convert differently.
//! - Scheme support is that of a libcurl built with every protocol.

#![forbid(unsafe_code)]

pub mod escape;
mod ip;
pub mod scheme;

use std::fmt;

use escape::{easy_escape, is_unreserved, push_pct, Reject};

/// Longest accepted input (`CURL_MAX_INPUT_LENGTH`).
const MAX_INPUT_LENGTH: usize = 8_000_000;
/// Longest scheme name.
const MAX_SCHEME_LEN: usize = 40;
const DEFAULT_SCHEME: &str = "https";

/// Flags for parsing / setting (the `curl_url_set` flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// CURLU_DEFAULT_SCHEME: no scheme => "https".
    pub default_scheme: bool,
    /// CURLU_GUESS_SCHEME: no scheme => guess from the host name prefix.
    pub guess_scheme: bool,
    /// CURLU_NON_SUPPORT_SCHEME: accept schemes curl has no handler for.
    pub non_support_scheme: bool,
    /// CURLU_PATH_AS_IS: keep dot segments.
    pub path_as_is: bool,
    /// CURLU_URLENCODE: URL encode what is set.
    pub url_encode: bool,
    /// CURLU_ALLOW_SPACE: accept spaces in URLs.
    pub allow_space: bool,
    /// CURLU_DISALLOW_USER: refuse URLs with userinfo.
    pub disallow_user: bool,
    /// CURLU_NO_AUTHORITY: accept an empty authority.
    pub no_authority: bool,
}

/// Options for getting parts / the whole URL (curl_url_get flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GetFlags {
    /// CURLU_DEFAULT_PORT
    pub default_port: bool,
    /// CURLU_NO_DEFAULT_PORT
    pub no_default_port: bool,
    /// CURLU_URLDECODE
    pub url_decode: bool,
    /// CURLU_URLENCODE
    pub url_encode: bool,
    /// CURLU_PUNYCODE
    pub punycode: bool,
    /// CURLU_PUNY2IDN
    pub puny2idn: bool,
    /// CURLU_GET_EMPTY
    pub get_empty: bool,
    /// CURLU_NO_GUESS_SCHEME
    pub no_guess_scheme: bool,
}

/// The parts of a URL (`CURLUPart`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Url,
    Scheme,
    User,
    Password,
    Options,
    Host,
    Port,
    Path,
    Query,
    Fragment,
    ZoneId,
}

impl Part {
    /// The part for a `CURLUPart` number.
    pub fn from_code(code: u32) -> Option<Part> {
        Some(match code {
            0 => Part::Url,
            1 => Part::Scheme,
            2 => Part::User,
            3 => Part::Password,
            4 => Part::Options,
            5 => Part::Host,
            6 => Part::Port,
            7 => Part::Path,
            8 => Part::Query,
            9 => Part::Fragment,
            10 => Part::ZoneId,
            _ => return None,
        })
    }
}

/// Errors, one per `CURLUcode` above zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UrlError {
    BadHandle,
    BadPartpointer,
    MalformedInput,
    BadPortNumber,
    UnsupportedScheme,
    Urldecode,
    OutOfMemory,
    UserNotAllowed,
    UnknownPart,
    NoScheme,
    NoUser,
    NoPassword,
    NoOptions,
    NoHost,
    NoPort,
    NoQuery,
    NoFragment,
    NoZoneid,
    BadFileUrl,
    BadFragment,
    BadHostname,
    BadIpv6,
    BadLogin,
    BadPassword,
    BadPath,
    BadQuery,
    BadScheme,
    BadSlashes,
    BadUser,
    LacksIdn,
    TooLarge,
}

const ALL_ERRORS: [UrlError; 31] = [
    UrlError::BadHandle,
    UrlError::BadPartpointer,
    UrlError::MalformedInput,
    UrlError::BadPortNumber,
    UrlError::UnsupportedScheme,
    UrlError::Urldecode,
    UrlError::OutOfMemory,
    UrlError::UserNotAllowed,
    UrlError::UnknownPart,
    UrlError::NoScheme,
    UrlError::NoUser,
    UrlError::NoPassword,
    UrlError::NoOptions,
    UrlError::NoHost,
    UrlError::NoPort,
    UrlError::NoQuery,
    UrlError::NoFragment,
    UrlError::NoZoneid,
    UrlError::BadFileUrl,
    UrlError::BadFragment,
    UrlError::BadHostname,
    UrlError::BadIpv6,
    UrlError::BadLogin,
    UrlError::BadPassword,
    UrlError::BadPath,
    UrlError::BadQuery,
    UrlError::BadScheme,
    UrlError::BadSlashes,
    UrlError::BadUser,
    UrlError::LacksIdn,
    UrlError::TooLarge,
];

impl UrlError {
    /// The numeric `CURLUcode`.
    pub fn code(self) -> u32 {
        ALL_ERRORS.iter().position(|&e| e == self).unwrap_or(0) as u32 + 1
    }

    /// The error for a `CURLUcode` (None for 0 and unknown codes).
    pub fn from_code(code: u32) -> Option<UrlError> {
        if code == 0 {
            return None;
        }
        ALL_ERRORS.get(code as usize - 1).copied()
    }

    /// The text `curl_url_strerror` returns.
    pub fn message(self) -> &'static str {
        use UrlError::*;
        match self {
            BadHandle => "An invalid CURLU pointer was passed as argument",
            BadPartpointer => "An invalid 'part' argument was passed as argument",
            MalformedInput => "Malformed input to a URL function",
            BadPortNumber => "Port number was not a decimal number between 0 and 65535",
            UnsupportedScheme => "Unsupported URL scheme",
            Urldecode => "URL decode error, most likely because of rubbish in the input",
            OutOfMemory => "A memory function failed",
            UserNotAllowed => "Credentials was passed in the URL when prohibited",
            UnknownPart => "An unknown part ID was passed to a URL API function",
            NoScheme => "No scheme part in the URL",
            NoUser => "No user part in the URL",
            NoPassword => "No password part in the URL",
            NoOptions => "No options part in the URL",
            NoHost => "No host part in the URL",
            NoPort => "No port part in the URL",
            NoQuery => "No query part in the URL",
            NoFragment => "No fragment part in the URL",
            NoZoneid => "No zoneid part in the URL",
            BadFileUrl => "Bad file:// URL",
            BadFragment => "Bad fragment",
            BadHostname => "Bad hostname",
            BadIpv6 => "Bad IPv6 address",
            BadLogin => "Bad login part",
            BadPassword => "Bad password",
            BadPath => "Bad path",
            BadQuery => "Bad query",
            BadScheme => "Bad scheme",
            BadSlashes => "Unsupported number of slashes following scheme",
            BadUser => "Bad user",
            LacksIdn => "libcurl lacks IDN support",
            TooLarge => "A value or data field is larger than allowed",
        }
    }
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for UrlError {}

/// Default port of a scheme, if curl knows it (`file` has none).
pub fn default_port(scheme: &str) -> Option<u16> {
    scheme::find(scheme)
        .map(|h| h.default_port)
        .filter(|&p| p != 0)
}

/// A parsed URL: the equivalent of a `CURLU` handle. All parts are kept the
/// way curl stores them (still percent-encoded).
///
/// `Url::default()` is an empty handle, like a fresh `curl_url()`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    scheme: Option<String>,
    user: Option<String>,
    password: Option<String>,
    options: Option<String>,
    host: Option<String>,
    zoneid: Option<String>,
    port: Option<String>,
    portnum: u16,
    path: Option<String>,
    query: Option<String>,
    fragment: Option<String>,
    query_present: bool,
    fragment_present: bool,
    guessed_scheme: bool,
}

// ---------------------------------------------------------------------------
// helpers

fn to_string(v: Vec<u8>) -> String {
    match String::from_utf8(v) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// `Curl_is_absolute_url`: the lower-cased scheme and its length if `url`
/// starts with one.
fn absolute_scheme(url: &[u8], guess: bool) -> Option<(usize, String)> {
    let mut i = 0;
    if url.first().is_some_and(|c| c.is_ascii_alphabetic()) {
        i = 1;
        while i < MAX_SCHEME_LEN {
            match url.get(i) {
                Some(&c) if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.') => i += 1,
                _ => break,
            }
        }
    }
    if i > 0 && url.get(i) == Some(&b':') && (!guess || url.get(i + 1) == Some(&b'/')) {
        let s = String::from_utf8_lossy(&url[..i]).to_ascii_lowercase();
        return Some((i, s));
    }
    None
}

/// Where the host name ends (`find_host_sep`): the first '/' or '?' after
/// the "//" (or from the start if there is none).
fn find_host_sep(url: &[u8]) -> usize {
    let start = url
        .windows(2)
        .position(|w| w == b"//")
        .map(|p| p + 2)
        .unwrap_or(0);
    url[start..]
        .iter()
        .position(|&c| c == b'/' || c == b'?')
        .map(|p| p + start)
        .unwrap_or(url.len())
}

/// `urlencode_str`: escape spaces (`%20`, or `+` in a query), control
/// bytes and bytes from 0x7f up. Before the host separator nothing is
/// touched unless `relative`.
/// A query or fragment as stored: percent-encoded with `CURLU_URLENCODE`, else as given.
fn encoded_if(url_encode: bool, part: &[u8], query: bool) -> String {
    if url_encode {
        let mut enc = Vec::new();
        urlencode_str(&mut enc, part, true, query);
        to_string(enc)
    } else {
        to_string(part.to_vec())
    }
}

fn urlencode_str(out: &mut Vec<u8>, url: &[u8], relative: bool, query: bool) {
    let mut left = !query;
    let host_sep = if relative { 0 } else { find_host_sep(url) };
    out.extend_from_slice(&url[..host_sep]);
    for &c in &url[host_sep..] {
        if c == b' ' {
            if left {
                out.extend_from_slice(b"%20");
            } else {
                out.push(b'+');
            }
        } else if !(b' '..0x7f).contains(&c) {
            push_pct(out, c, false);
        } else {
            out.push(c);
            if c == b'?' {
                left = false;
            }
        }
    }
}

fn junkscan(url: &str, flags: Flags) -> Result<(), UrlError> {
    if url.len() > MAX_INPUT_LENGTH {
        return Err(UrlError::MalformedInput);
    }
    let bad = url
        .bytes()
        .any(|c| c < 0x20 || c == 0x7f || (c == b' ' && !flags.allow_space));
    if bad {
        return Err(UrlError::MalformedInput);
    }
    Ok(())
}

/// Windows drive letter prefix check as `STARTS_WITH_URL_DRIVE_PREFIX`.
fn starts_with_url_drive(s: &[u8]) -> bool {
    s.len() >= 2
        && s[0].is_ascii_alphabetic()
        && (s[1] == b':' || s[1] == b'|')
        && (s.len() == 2 || s[2] == b'/' || s[2] == b'\\')
}

/// Consumes a '.' or "%2e"/"%2E" at `*i`.
fn is_dot(input: &[u8], i: &mut usize) -> bool {
    if input.get(*i) == Some(&b'.') {
        *i += 1;
        true
    } else if input.len() >= *i + 3
        && input[*i] == b'%'
        && input[*i + 1] == b'2'
        && (input[*i + 2] | 0x20) == b'e'
    {
        *i += 3;
        true
    } else {
        false
    }
}

/// `dedotdotify`: remove dot segments per RFC 3986 5.2.4 the curl way
/// (a percent-encoded dot counts as a dot). Returns None for inputs
/// shorter than two bytes, which are kept unchanged.
fn dedotdotify(input: &[u8]) -> Option<Vec<u8>> {
    let end = input.len();
    if end < 2 {
        return None;
    }
    let mut out: Vec<u8> = Vec::with_capacity(end);
    let mut i = 0;
    // A and D: leading "./", "../", "." or ".."
    if is_dot(input, &mut i) {
        if i == end {
            return Some(out);
        }
        let mut p = i;
        if input[p] == b'/' {
            i = p + 1;
        } else if is_dot(input, &mut p) {
            if p == end {
                return Some(out);
            }
            if input[p] == b'/' {
                i = p + 1;
            }
        }
    }
    while i < end {
        if input[i] == b'/' {
            let mut p = i + 1;
            if is_dot(input, &mut p) {
                if p == end {
                    // "/." at the end
                    out.push(b'/');
                    break;
                } else if input[p] == b'/' {
                    // "/./"
                    i = p;
                    continue;
                } else if is_dot(input, &mut p) && (p == end || input[p] == b'/') {
                    // "/../" or "/.." at the end: drop the last segment
                    if let Some(last) = out.iter().rposition(|&c| c == b'/') {
                        out.truncate(last);
                    }
                    if p < end {
                        i = p;
                        continue;
                    }
                    out.push(b'/');
                    break;
                }
            }
        }
        out.push(input[i]);
        i += 1;
    }
    Some(out)
}

/// The characters curl refuses in host names.
fn hostname_bad_char(c: u8) -> bool {
    b" \r\n\t/:#?!@{}[]\\$'\"^`*<>=;,+&()%".contains(&c)
}

/// `ipv6_parse`: validate and normalise a bracketed IPv6 literal (the
/// closing bracket is assumed to be the last byte). Returns the host to
/// store and the zone id, if any.
fn ipv6_parse(host: &[u8]) -> Result<(Vec<u8>, Option<String>), UrlError> {
    if host.len() < 4 {
        return Err(UrlError::BadIpv6);
    }
    let h = &host[1..];
    let mut hlen = host.len() - 2;
    let len = h
        .iter()
        .position(|c| !(c.is_ascii_hexdigit() || *c == b':' || *c == b'.'))
        .unwrap_or(h.len());
    let mut zone = None;
    if len != hlen {
        if h.get(len) != Some(&b'%') {
            return Err(UrlError::BadIpv6);
        }
        let mut z = &h[len + 1..];
        if z.starts_with(b"25") && z.len() > 2 && z[2] != b']' {
            z = &z[2..];
        }
        let n = z.iter().position(|&c| c == b']').unwrap_or(z.len());
        if n == 0 || n > 15 || n >= z.len() {
            return Err(UrlError::BadIpv6);
        }
        zone = Some(to_string(z[..n].to_vec()));
        hlen = len;
    }
    let addr = &h[..hlen];
    let bin = ip::pton6(addr).ok_or(UrlError::BadIpv6)?;
    let norm = ip::ntop6(&bin);
    let mut out = Vec::with_capacity(hlen + 2);
    out.push(b'[');
    // curl formats into the original buffer: only used when it fits
    if norm.len() < hlen {
        out.extend_from_slice(norm.as_bytes());
    } else {
        out.extend_from_slice(addr);
    }
    out.push(b']');
    Ok((out, zone))
}

/// A normalised bracketed IPv6 host and its zone id.
type Ipv6Host = (Vec<u8>, Option<String>);

/// `hostname_check`. Returns a normalised host and zone id for IPv6.
fn hostname_check(host: &[u8]) -> Result<Option<Ipv6Host>, UrlError> {
    if host.is_empty() {
        return Err(UrlError::NoHost);
    }
    if host[0] == b'[' {
        return ipv6_parse(host).map(Some);
    }
    // C string semantics: the check stops at a NUL byte
    let clen = host.iter().position(|&c| c == 0).unwrap_or(host.len());
    if host[..clen].iter().any(|&c| hostname_bad_char(c)) || clen != host.len() {
        return Err(UrlError::BadHostname);
    }
    Ok(None)
}

struct Login {
    user: String,
    password: Option<String>,
    options: Option<String>,
}

/// `Curl_parse_login_details`.
fn parse_login(login: &[u8], want_options: bool) -> Login {
    let psep = login.iter().position(|&c| c == b':');
    let osep = if want_options {
        login.iter().position(|&c| c == b';')
    } else {
        None
    };
    let len = login.len();
    let ulen = match (psep, osep) {
        (Some(p), Some(o)) if p > o => o,
        (Some(p), _) => p,
        (None, Some(o)) => o,
        (None, None) => len,
    };
    let password = psep.map(|p| {
        let end = match osep {
            Some(o) if o > p => o,
            _ => len,
        };
        to_string(login[p + 1..end].to_vec())
    });
    let options = osep.and_then(|o| {
        let end = match psep {
            Some(p) if p > o => p,
            _ => len,
        };
        if end > o + 1 {
            Some(to_string(login[o + 1..end].to_vec()))
        } else {
            None
        }
    });
    Login {
        user: to_string(login[..ulen].to_vec()),
        password,
        options,
    }
}

// ---------------------------------------------------------------------------
// parsing

impl Url {
    /// Parses `input` like `curl_url_set(CURLUPART_URL)` on a fresh handle.
    pub fn parse(input: &str, flags: Flags) -> Result<Url, UrlError> {
        if input.is_empty() {
            return Err(UrlError::MalformedInput);
        }
        if input.len() > MAX_INPUT_LENGTH {
            return Err(UrlError::MalformedInput);
        }
        parse_url(input, flags)
    }

    /// Resolves `input` against this URL, as `curl_url_set(CURLUPART_URL)`
    /// on a handle that already holds a URL: relative references,
    /// absolute paths, scheme-relative `//host/x`, query-only `?a`,
    /// fragment-only `#f` and absolute URLs.
    pub fn join(&self, input: &str, flags: Flags) -> Result<Url, UrlError> {
        if input.len() > MAX_INPUT_LENGTH {
            return Err(UrlError::MalformedInput);
        }
        let gflags = GetFlags {
            url_encode: flags.url_encode,
            ..GetFlags::default()
        };
        if input.is_empty() {
            // a blank URL is fine as a redirect from a complete URL: no change
            return match self.get_url(gflags, flags.default_scheme) {
                Ok(_) => Ok(self.clone()),
                Err(_) => Err(UrlError::MalformedInput),
            };
        }
        let guess = flags.guess_scheme || flags.default_scheme;
        if absolute_scheme(input.as_bytes(), guess).is_some() {
            return parse_url(input, flags);
        }
        let base = match self.get_url(gflags, flags.default_scheme) {
            Ok(b) => b,
            Err(_) => return parse_url(input, flags),
        };
        redirect_url(self, base, input, flags)
    }
}

fn redirect_url(u: &Url, base: Vec<u8>, rel: &str, flags: Flags) -> Result<Url, UrlError> {
    let relb = rel.as_bytes();
    // the host starts after "scheme://"
    let protsep = (u.scheme().len() + 3).min(base.len());
    let find = |c: u8| {
        base[protsep..]
            .iter()
            .position(|&x| x == c)
            .map(|p| p + protsep)
    };
    let mut useurl = relb;
    let mut host_changed = false;
    let mut cutoff: Option<usize> = None;
    match relb[0] {
        b'/' => {
            if relb.get(1) == Some(&b'/') {
                cutoff = Some(protsep);
                useurl = &relb[2..];
                host_changed = true;
            } else {
                cutoff = find(b'/');
            }
        }
        b'#' => {
            if u.fragment.is_some() {
                cutoff = find(b'#');
            }
        }
        _ => {
            if u.query.as_deref().is_some_and(|q| !q.is_empty()) {
                cutoff = find(b'?');
            } else if u.fragment.as_deref().is_some_and(|f| !f.is_empty()) {
                cutoff = find(b'#');
            }
            if relb[0] != b'?' {
                let end = cutoff.unwrap_or(base.len());
                cutoff = base[protsep..end]
                    .iter()
                    .rposition(|&x| x == b'/')
                    .map(|p| protsep + p + 1);
            }
        }
    }
    let prelen = cutoff.unwrap_or(base.len());
    let mut newurl = base[..prelen].to_vec();
    urlencode_str(&mut newurl, useurl, !host_changed, false);
    let newurl = to_string(newurl);
    let mut f = flags;
    f.path_as_is = false;
    parse_url(&newurl, f)
}

fn parse_url(url: &str, flags: Flags) -> Result<Url, UrlError> {
    junkscan(url, flags)?;
    let b = url.as_bytes();
    if b.contains(&0) {
        return Err(UrlError::MalformedInput);
    }
    let urllen = b.len();
    let mut u = Url::default();
    let guess = flags.guess_scheme || flags.default_scheme;
    let scheme = absolute_scheme(b, guess);
    let path_start: usize;

    match &scheme {
        Some((_, s)) if s == "file" => {
            if urllen <= 6 {
                return Err(UrlError::BadFileUrl);
            }
            let mut p = 5;
            u.scheme = Some("file".to_string());
            if b[p..].starts_with(b"//") {
                let ptr = p + 2;
                let mut q = ptr;
                if b.get(ptr) != Some(&b'/') && !starts_with_url_drive(&b[ptr..]) {
                    let rest = &b[ptr..];
                    let pre =
                        |x: &[u8]| rest.len() >= x.len() && rest[..x.len()].eq_ignore_ascii_case(x);
                    if pre(b"localhost/") || pre(b"127.0.0.1/") {
                        q = ptr + 9;
                    } else {
                        return Err(UrlError::BadFileUrl);
                    }
                }
                p = q;
            }
            let path = &b[p..];
            if (path.first() == Some(&b'/') && starts_with_url_drive(&path[1..]))
                || starts_with_url_drive(path)
            {
                return Err(UrlError::BadFileUrl);
            }
            path_start = p;
        }
        _ => {
            let hostp;
            let mut schemep: Option<String> = None;
            if let Some((slen, s)) = &scheme {
                let mut p = slen + 1;
                let mut i = 0;
                while b.get(p) == Some(&b'/') && i < 4 {
                    p += 1;
                    i += 1;
                }
                if scheme::find(s).is_none() && !flags.non_support_scheme {
                    return Err(UrlError::UnsupportedScheme);
                }
                if !(1..=3).contains(&i) {
                    return Err(UrlError::BadSlashes);
                }
                schemep = Some(s.clone());
                hostp = p;
            } else {
                if !(flags.default_scheme || flags.guess_scheme) {
                    return Err(UrlError::BadScheme);
                }
                if flags.default_scheme {
                    schemep = Some(DEFAULT_SCHEME.to_string());
                }
                hostp = 0;
            }
            u.scheme = schemep.clone();
            let hostlen = b[hostp..]
                .iter()
                .position(|&c| matches!(c, b'/' | b'?' | b'#'))
                .unwrap_or(urllen - hostp);
            path_start = hostp + hostlen;
            if hostlen > 0 {
                parse_authority(&mut u, &b[hostp..hostp + hostlen], flags, scheme.is_some())?;
                if flags.guess_scheme && schemep.is_none() {
                    let host = u.host.as_deref().unwrap_or("").as_bytes();
                    let pre =
                        |x: &[u8]| host.len() >= x.len() && host[..x.len()].eq_ignore_ascii_case(x);
                    let g = if pre(b"ftp.") {
                        "ftp"
                    } else if pre(b"dict.") {
                        "dict"
                    } else if pre(b"ldap.") {
                        "ldap"
                    } else if pre(b"imap.") {
                        "imap"
                    } else if pre(b"smtp.") {
                        "smtp"
                    } else if pre(b"pop3.") {
                        "pop3"
                    } else {
                        "http"
                    };
                    u.scheme = Some(g.to_string());
                    u.guessed_scheme = true;
                }
            } else if flags.no_authority {
                u.host = Some(String::new());
            } else {
                return Err(UrlError::NoHost);
            }
        }
    }

    let rest = &b[path_start..];
    let mut pathlen = rest.len();
    let frag_pos = rest.iter().position(|&c| c == b'#');
    if let Some(fp) = frag_pos {
        u.fragment_present = true;
        let frag = &rest[fp + 1..];
        if !frag.is_empty() {
            u.fragment = Some(encoded_if(flags.url_encode, frag, false));
        }
        pathlen = fp;
    }
    if let Some(qp) = rest[..pathlen].iter().position(|&c| c == b'?') {
        let q = &rest[qp + 1..pathlen];
        u.query_present = true;
        u.query = Some(encoded_if(flags.url_encode, q, true));
        pathlen = qp;
    }
    let mut path: Vec<u8> = rest[..pathlen].to_vec();
    if !path.is_empty() && flags.url_encode {
        let mut enc = Vec::new();
        urlencode_str(&mut enc, &path, true, false);
        path = enc;
        // curl keeps the encoded copy even when it is just "/"
        u.path = Some(to_string(path.clone()));
    }
    if path.len() > 1 {
        if !flags.path_as_is {
            if let Some(d) = dedotdotify(&path) {
                path = d;
            }
        }
        u.path = Some(to_string(path));
    }
    Ok(u)
}

fn parse_authority(
    u: &mut Url,
    auth: &[u8],
    flags: Flags,
    has_scheme: bool,
) -> Result<(), UrlError> {
    // login
    let mut hoststart = 0;
    if let Some(at) = auth.iter().position(|&c| c == b'@') {
        let want_opts = u
            .scheme
            .as_deref()
            .and_then(scheme::find)
            .is_some_and(|h| h.has(scheme::flag::URLOPTIONS));
        let login = parse_login(&auth[..at], want_opts);
        if flags.disallow_user {
            return Err(UrlError::UserNotAllowed);
        }
        u.user = Some(login.user);
        u.password = login.password;
        u.options = login.options;
        hoststart = at + 1;
    }
    let mut host = &auth[hoststart..];

    // port
    let portpos = if host.first() == Some(&b'[') {
        let close = host
            .iter()
            .position(|&c| c == b']')
            .ok_or(UrlError::BadIpv6)?;
        match host.get(close + 1) {
            None => None,
            Some(b':') => Some(close + 1),
            Some(_) => return Err(UrlError::BadPortNumber),
        }
    } else {
        host.iter().position(|&c| c == b':')
    };
    if let Some(pp) = portpos {
        let portstr = &host[pp + 1..];
        host = &host[..pp];
        if portstr.is_empty() {
            if !has_scheme {
                return Err(UrlError::BadPortNumber);
            }
        } else {
            if !portstr.iter().all(|c| c.is_ascii_digit()) {
                return Err(UrlError::BadPortNumber);
            }
            let digits = {
                let nz = portstr
                    .iter()
                    .position(|&c| c != b'0')
                    .unwrap_or(portstr.len());
                &portstr[nz..]
            };
            if digits.len() > 5 {
                return Err(UrlError::BadPortNumber);
            }
            let mut port: u32 = 0;
            for &d in digits {
                port = port * 10 + (d - b'0') as u32;
            }
            if port > 0xffff {
                return Err(UrlError::BadPortNumber);
            }
            u.portnum = port as u16;
            u.port = Some(port.to_string());
        }
    }
    if host.is_empty() {
        return Err(UrlError::NoHost);
    }
    if host[0] == b'[' {
        let (h, zone) = ipv6_parse(host)?;
        u.host = Some(to_string(h));
        u.zoneid = zone;
        return Ok(());
    }
    if let Some(v4) = ip::ipv4_normalize(host) {
        u.host = Some(v4);
        return Ok(());
    }
    let decoded;
    let name: &[u8] = if host.contains(&b'%') {
        decoded = escape::urldecode(host, Reject::Ctrl).ok_or(UrlError::BadHostname)?;
        &decoded
    } else {
        host
    };
    hostname_check(name)?;
    let name = String::from_utf8(name.to_vec()).map_err(|_| UrlError::BadHostname)?;
    u.host = Some(name);
    Ok(())
}

// ---------------------------------------------------------------------------
// getting

fn is_ascii_name(s: &str) -> bool {
    s.is_ascii()
}

/// libidn2's `IDN2_LABEL_MAX_LENGTH`: the longest label it converts to.
const IDN_LABEL_MAX: usize = 63;

/// IDN to punycode (UTS 46, non-transitional), refusing labels that start
/// or end with a hyphen or have "--" at positions 3-4, and converted labels
/// longer than 63 bytes, as libidn2 does.
fn idn_to_ascii(host: &str) -> Result<String, UrlError> {
    for label in host.split('.') {
        let b = label.as_bytes();
        let xn = b.len() >= 4 && b[..4].eq_ignore_ascii_case(b"xn--");
        if label.starts_with('-') || label.ends_with('-') || (!xn && b.get(2..4) == Some(b"--")) {
            return Err(UrlError::BadHostname);
        }
    }
    let ascii = idna::domain_to_ascii(host).map_err(|_| UrlError::BadHostname)?;
    if ascii.split('.').any(|l| l.len() > IDN_LABEL_MAX) {
        return Err(UrlError::BadHostname);
    }
    Ok(ascii)
}

/// Punycode to IDN, label by label (like `idn2_to_unicode_8z8z`).
fn idn_to_unicode(host: &str) -> Result<String, UrlError> {
    let mut out = String::with_capacity(host.len());
    for (n, label) in host.split('.').enumerate() {
        if n > 0 {
            out.push('.');
        }
        if label.len() >= 4 && label[..4].eq_ignore_ascii_case("xn--") {
            let d = idna::punycode::decode_to_string(&label[4..]).ok_or(UrlError::BadHostname)?;
            if d.is_empty() {
                return Err(UrlError::BadHostname);
            }
            out.push_str(&d);
        } else {
            out.push_str(label);
        }
    }
    Ok(out)
}

impl Url {
    /// The scheme, lower case (empty if none is set).
    pub fn scheme(&self) -> &str {
        self.scheme.as_deref().unwrap_or("")
    }

    /// The user name, still percent-encoded.
    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// The password, still percent-encoded.
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// The ";options" part of the userinfo (only for schemes that have
    /// URL options: IMAP, POP3, SMTP).
    pub fn options(&self) -> Option<&str> {
        self.options.as_deref()
    }

    /// The host as `curl_url_get(CURLUPART_HOST)` returns it: IPv6
    /// literals in brackets (without zone id), IDN names as given.
    pub fn host(&self) -> &str {
        self.host.as_deref().unwrap_or("")
    }

    /// The host to connect to / send in a Host: header: an IDN name
    /// converted to punycode, IPv6 literals in brackets.
    /// Borrowed from the URL unless an IDN name had to be converted.
    pub fn host_punycode(&self) -> Result<std::borrow::Cow<'_, str>, UrlError> {
        let h = self.host.as_deref().ok_or(UrlError::NoHost)?;
        if is_ascii_name(h) {
            Ok(h.into())
        } else {
            idn_to_ascii(h).map(Into::into)
        }
    }

    /// The IPv6 zone id, if any.
    pub fn zone_id(&self) -> Option<&str> {
        self.zoneid.as_deref()
    }

    /// The port, if one was given explicitly.
    pub fn port(&self) -> Option<u16> {
        self.port.as_ref().map(|_| self.portnum)
    }

    /// The explicit port, else the scheme's default (0 if none is known).
    pub fn port_or_default(&self) -> u16 {
        self.port()
            .or_else(|| self.scheme.as_deref().and_then(default_port))
            .unwrap_or(0)
    }

    /// The path. For hierarchical URLs it starts with "/"; "/" if none.
    pub fn path(&self) -> &str {
        self.path.as_deref().unwrap_or("/")
    }

    /// The query without the '?' (None if absent or empty).
    pub fn query(&self) -> Option<&str> {
        self.query.as_deref().filter(|q| !q.is_empty())
    }

    /// The fragment without the '#' (None if absent or empty).
    pub fn fragment(&self) -> Option<&str> {
        self.fragment.as_deref()
    }

    /// `curl_url_get(CURLUPART_URL, 0)`.
    pub fn to_url_string(&self) -> String {
        self.get(Part::Url, GetFlags::default()).unwrap_or_default()
    }

    /// Like `curl_url_get`. Bytes that are not UTF-8 (possible after
    /// `url_decode`) are replaced; use [`Url::get_bytes`] to get them raw.
    pub fn get(&self, part: Part, flags: GetFlags) -> Result<String, UrlError> {
        self.get_bytes(part, flags).map(to_string)
    }

    /// Like `curl_url_get`, returning the raw bytes.
    pub fn get_bytes(&self, part: Part, flags: GetFlags) -> Result<Vec<u8>, UrlError> {
        let mut urldecode_f = flags.url_decode;
        let urlencode_f = flags.url_encode;
        let mut punycode = false;
        let mut depunyfy = false;
        let mut plusdecode = false;
        let portbuf;
        let ptr: Option<&str>;
        let ifmissing;
        match part {
            Part::Url => return self.get_url(flags, false),
            Part::Scheme => {
                ptr = self.scheme.as_deref();
                ifmissing = UrlError::NoScheme;
                urldecode_f = false;
                if flags.no_guess_scheme && self.guessed_scheme {
                    return Err(UrlError::NoScheme);
                }
            }
            Part::User => {
                ptr = self.user.as_deref();
                ifmissing = UrlError::NoUser;
            }
            Part::Password => {
                ptr = self.password.as_deref();
                ifmissing = UrlError::NoPassword;
            }
            Part::Options => {
                ptr = self.options.as_deref();
                ifmissing = UrlError::NoOptions;
            }
            Part::Host => {
                ptr = self.host.as_deref();
                ifmissing = UrlError::NoHost;
                punycode = flags.punycode;
                depunyfy = flags.puny2idn;
            }
            Part::ZoneId => {
                ptr = self.zoneid.as_deref();
                ifmissing = UrlError::NoZoneid;
            }
            Part::Port => {
                ifmissing = UrlError::NoPort;
                urldecode_f = false;
                let h = self.scheme.as_deref().and_then(scheme::find);
                if self.port.is_none() && flags.default_port && self.scheme.is_some() {
                    portbuf = h.map(|h| h.default_port.to_string());
                    ptr = portbuf.as_deref();
                } else if self.port.is_some()
                    && self.scheme.is_some()
                    && h.is_some_and(|h| h.default_port == self.portnum)
                    && flags.no_default_port
                {
                    ptr = None;
                } else {
                    ptr = self.port.as_deref();
                }
            }
            Part::Path => {
                ptr = Some(self.path.as_deref().unwrap_or("/"));
                ifmissing = UrlError::UnknownPart;
            }
            Part::Query => {
                ifmissing = UrlError::NoQuery;
                plusdecode = urldecode_f;
                ptr = self
                    .query
                    .as_deref()
                    .filter(|q| !q.is_empty() || flags.get_empty);
            }
            Part::Fragment => {
                ifmissing = UrlError::NoFragment;
                ptr = match self.fragment.as_deref() {
                    None if self.fragment_present && flags.get_empty => Some(""),
                    f => f,
                };
            }
        }
        let Some(val) = ptr else {
            return Err(ifmissing);
        };
        let mut out: Vec<u8> = val.as_bytes().to_vec();
        if plusdecode {
            for c in out.iter_mut() {
                if *c == b'+' {
                    *c = b' ';
                }
            }
        }
        if urldecode_f {
            out = escape::urldecode(&out, Reject::Ctrl).ok_or(UrlError::Urldecode)?;
        }
        if urlencode_f {
            let mut enc = Vec::new();
            urlencode_str(&mut enc, &out, true, part == Part::Query);
            out = enc;
        } else if punycode {
            if !is_ascii_name(self.host()) {
                out = idn_to_ascii(&to_string(out))?.into_bytes();
            }
        } else if depunyfy && is_ascii_name(self.host()) {
            out = idn_to_unicode(&to_string(out))?.into_bytes();
        }
        Ok(out)
    }

    fn get_url(&self, flags: GetFlags, default_scheme: bool) -> Result<Vec<u8>, UrlError> {
        let show_fragment = self.fragment.is_some() || (self.fragment_present && flags.get_empty);
        let show_query = self.query.as_deref().is_some_and(|q| !q.is_empty())
            || (self.query_present && flags.get_empty);
        let q = self.query.as_deref().unwrap_or("");
        let f = self.fragment.as_deref().unwrap_or("");
        // One allocation for the usual URL: room for every part, its separators and a port.
        let parts = [
            &self.scheme,
            &self.user,
            &self.password,
            &self.options,
            &self.host,
            &self.zoneid,
            &self.path,
        ];
        let cap = parts
            .iter()
            .map(|p| p.as_deref().map_or(0, str::len))
            .sum::<usize>()
            + q.len()
            + f.len()
            + 32;
        let mut out: Vec<u8> = Vec::with_capacity(cap);
        if self
            .scheme
            .as_deref()
            .is_some_and(|s| s.eq_ignore_ascii_case("file"))
        {
            out.extend_from_slice(b"file://");
            out.extend_from_slice(self.path.as_deref().unwrap_or("(nil)").as_bytes());
            if show_query {
                out.push(b'?');
                out.extend_from_slice(q.as_bytes());
            }
            if show_fragment {
                out.push(b'#');
                out.extend_from_slice(f.as_bytes());
            }
            return Ok(out);
        }
        let Some(host) = self.host.as_deref() else {
            return Err(UrlError::NoHost);
        };
        let scheme = match self.scheme.as_deref() {
            Some(s) => s,
            None if default_scheme => DEFAULT_SCHEME,
            None => return Err(UrlError::NoScheme),
        };
        let h = scheme::find(scheme);
        let defport;
        let mut port: Option<&str> = self.port.as_deref();
        if port.is_none() && flags.default_port {
            if let Some(h) = h {
                defport = h.default_port.to_string();
                port = Some(&defport);
            }
        } else if port.is_some()
            && h.is_some_and(|h| h.default_port == self.portnum)
            && flags.no_default_port
        {
            port = None;
        }
        let options = if h.is_some_and(|h| !h.has(scheme::flag::URLOPTIONS)) {
            None
        } else {
            self.options.as_deref()
        };
        let hostout: std::borrow::Cow<'_, [u8]> = if host.starts_with('[') {
            match &self.zoneid {
                Some(z) => {
                    let mut v = host.as_bytes()[..host.len() - 1].to_vec();
                    v.extend_from_slice(b"%25");
                    v.extend_from_slice(z.as_bytes());
                    v.push(b']');
                    v.into()
                }
                None => host.as_bytes().into(),
            }
        } else if flags.url_encode {
            easy_escape(host.as_bytes()).into()
        } else if flags.punycode {
            if is_ascii_name(host) {
                host.as_bytes().into()
            } else {
                idn_to_ascii(host)?.into_bytes().into()
            }
        } else if flags.puny2idn && is_ascii_name(host) {
            idn_to_unicode(host)?.into_bytes().into()
        } else {
            host.as_bytes().into()
        };
        if !flags.no_guess_scheme || !self.guessed_scheme {
            out.extend_from_slice(scheme.as_bytes());
            out.extend_from_slice(b"://");
        }
        if let Some(u) = &self.user {
            out.extend_from_slice(u.as_bytes());
        }
        if let Some(p) = &self.password {
            out.push(b':');
            out.extend_from_slice(p.as_bytes());
        }
        if let Some(o) = options {
            out.push(b';');
            out.extend_from_slice(o.as_bytes());
        }
        if self.user.is_some() || self.password.is_some() || options.is_some() {
            out.push(b'@');
        }
        out.extend_from_slice(&hostout);
        if let Some(p) = &port {
            out.push(b':');
            out.extend_from_slice(p.as_bytes());
        }
        out.extend_from_slice(self.path.as_deref().unwrap_or("/").as_bytes());
        if show_query {
            out.push(b'?');
            out.extend_from_slice(q.as_bytes());
        }
        if show_fragment {
            out.push(b'#');
            out.extend_from_slice(f.as_bytes());
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------
// setting

impl Url {
    /// `curl_url_set` of one part. `None` clears the part (for
    /// [`Part::Url`]: the whole handle).
    pub fn set(&mut self, part: Part, value: Option<&str>, flags: Flags) -> Result<(), UrlError> {
        self.set_inner(part, value, flags, false)
    }

    /// `curl_url_set(CURLUPART_QUERY, q, CURLU_APPENDQUERY)`: add `q` to
    /// the query, with a '&' separator if needed.
    pub fn append_query(&mut self, q: &str, url_encode: bool) -> Result<(), UrlError> {
        let flags = Flags {
            url_encode,
            ..Flags::default()
        };
        self.set_inner(Part::Query, Some(q), flags, true)
    }

    fn set_inner(
        &mut self,
        part: Part,
        value: Option<&str>,
        flags: Flags,
        appendquery: bool,
    ) -> Result<(), UrlError> {
        let Some(value) = value else {
            match part {
                Part::Url => *self = Url::default(),
                Part::Scheme => {
                    self.scheme = None;
                    self.guessed_scheme = false;
                }
                Part::User => self.user = None,
                Part::Password => self.password = None,
                Part::Options => self.options = None,
                Part::Host => self.host = None,
                Part::ZoneId => self.zoneid = None,
                Part::Port => {
                    self.portnum = 0;
                    self.port = None;
                }
                Part::Path => self.path = None,
                Part::Query => {
                    self.query = None;
                    self.query_present = false;
                }
                Part::Fragment => {
                    self.fragment = None;
                    self.fragment_present = false;
                }
            }
            return Ok(());
        };
        if value.len() > MAX_INPUT_LENGTH {
            return Err(UrlError::MalformedInput);
        }
        let mut urlencode = flags.url_encode;
        let mut plusencode = false;
        let mut urlskipslash = false;
        let mut leadingslash = false;
        let mut equalsencode = false;
        let vb = value.as_bytes();
        match part {
            Part::Url => {
                let new = self.join(value, flags)?;
                *self = new;
                return Ok(());
            }
            Part::Scheme => {
                if vb.is_empty() || vb.len() > MAX_SCHEME_LEN {
                    return Err(UrlError::BadScheme);
                }
                if !flags.non_support_scheme && scheme::find(value).is_none() {
                    return Err(UrlError::UnsupportedScheme);
                }
                let ok = vb[0].is_ascii_alphabetic()
                    && vb[..vb.len() - 1]
                        .iter()
                        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
                if !ok {
                    return Err(UrlError::BadScheme);
                }
                urlencode = false;
                self.guessed_scheme = false;
            }
            Part::Host => {
                self.zoneid = None;
            }
            Part::Port => {
                if !vb.first().is_some_and(|c| c.is_ascii_digit()) {
                    return Err(UrlError::BadPortNumber);
                }
                let mut port: u64 = 0;
                for &c in vb {
                    if !c.is_ascii_digit() {
                        return Err(UrlError::BadPortNumber);
                    }
                    port = port * 10 + (c - b'0') as u64;
                    if port > 0xffff {
                        return Err(UrlError::BadPortNumber);
                    }
                }
                self.port = Some(port.to_string());
                self.portnum = port as u16;
                return Ok(());
            }
            Part::Path => {
                urlskipslash = true;
                leadingslash = true;
            }
            Part::Query => {
                plusencode = urlencode;
                equalsencode = appendquery;
            }
            _ => {}
        }

        let mut enc: Vec<u8> = Vec::with_capacity(vb.len() + 1);
        if leadingslash && vb.first() != Some(&b'/') {
            enc.push(b'/');
        }
        if urlencode {
            for &c in vb {
                if c == b' ' && plusencode {
                    enc.push(b'+');
                } else if is_unreserved(c)
                    || (c == b'/' && urlskipslash)
                    || (c == b'=' && equalsencode)
                {
                    if c == b'=' && equalsencode {
                        equalsencode = false;
                    }
                    enc.push(c);
                } else {
                    push_pct(&mut enc, c, false);
                }
            }
        } else {
            let start = enc.len();
            enc.extend_from_slice(vb);
            let mut i = start;
            while i < enc.len() {
                if enc[i] == b'%'
                    && i + 2 < enc.len()
                    && enc[i + 1].is_ascii_hexdigit()
                    && enc[i + 2].is_ascii_hexdigit()
                    && (enc[i + 1].is_ascii_uppercase() || enc[i + 2].is_ascii_uppercase())
                {
                    enc[i + 1] = enc[i + 1].to_ascii_lowercase();
                    enc[i + 2] = enc[i + 2].to_ascii_lowercase();
                    i += 3;
                } else {
                    i += 1;
                }
            }
        }

        // an empty URL-encoded value ends up as no value at all in curl
        let null = urlencode && enc.is_empty();
        if appendquery && !null {
            let cur = self.query.as_deref().unwrap_or("");
            if !cur.is_empty() {
                let mut q = cur.as_bytes().to_vec();
                if !cur.ends_with('&') {
                    q.push(b'&');
                }
                q.extend_from_slice(&enc);
                self.query = Some(to_string(q));
                self.query_present = true;
                return Ok(());
            }
        } else if part == Part::Host && !(enc.is_empty() && flags.no_authority) {
            let bad = if enc.is_empty() {
                true
            } else if !urlencode {
                match escape::urldecode(&enc, Reject::Ctrl) {
                    None => true,
                    Some(d) => match hostname_check(&d) {
                        Ok(Some((_, zone))) => {
                            self.zoneid = zone;
                            false
                        }
                        Ok(None) => false,
                        Err(_) => true,
                    },
                }
            } else {
                hostname_check(&enc).is_err()
            };
            if bad {
                return Err(UrlError::BadHostname);
            }
        }
        let newv = if null { None } else { Some(to_string(enc)) };
        match part {
            Part::Scheme => self.scheme = newv,
            Part::User => self.user = newv,
            Part::Password => self.password = newv,
            Part::Options => self.options = newv,
            Part::Host => self.host = newv,
            Part::ZoneId => self.zoneid = newv,
            Part::Path => self.path = newv,
            Part::Query => {
                self.query = newv;
                self.query_present = true;
            }
            Part::Fragment => {
                self.fragment = newv;
                self.fragment_present = true;
            }
            Part::Url | Part::Port => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedot() {
        let d = |s: &str| {
            dedotdotify(s.as_bytes())
                .map(|v| String::from_utf8(v).unwrap())
                .unwrap_or_else(|| s.to_string())
        };
        assert_eq!(d("/a/./b/../c"), "/a/c");
        assert_eq!(d("/../a"), "/a");
        assert_eq!(d("/a/.."), "/");
        assert_eq!(d("/a/."), "/a/");
        assert_eq!(d(".."), "");
        assert_eq!(d("./a"), "a");
    }

    #[test]
    fn error_codes() {
        assert_eq!(UrlError::BadHandle.code(), 1);
        assert_eq!(UrlError::TooLarge.code(), 31);
        assert_eq!(UrlError::from_code(21), Some(UrlError::BadHostname));
        assert_eq!(UrlError::NoHost.to_string(), "No host part in the URL");
    }

    #[test]
    fn basics() {
        let u = Url::parse(
            "http://user:pw@[fe80::1%25eth0]:8080/a/../b?q#f",
            Flags::default(),
        )
        .unwrap();
        assert_eq!(u.scheme(), "http");
        assert_eq!(u.user(), Some("user"));
        assert_eq!(u.password(), Some("pw"));
        assert_eq!(u.host(), "[fe80::1]");
        assert_eq!(u.zone_id(), Some("eth0"));
        assert_eq!(u.port(), Some(8080));
        assert_eq!(u.path(), "/b");
        assert_eq!(u.query(), Some("q"));
        assert_eq!(u.fragment(), Some("f"));
        assert_eq!(
            u.to_url_string(),
            "http://user:pw@[fe80::1%25eth0]:8080/b?q#f"
        );
        assert_eq!(default_port("HTTPS"), Some(443));
        let i = Url::parse("http://räksmörgås.se/", Flags::default()).unwrap();
        assert_eq!(i.host_punycode().unwrap(), "xn--rksmrgs-5wao1o.se");
    }
}
