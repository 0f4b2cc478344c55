//! `-w` / `--write-out`: expands the user's format string after each finished transfer,
//! the way curl 8.14.1's tool does.
//!
//! Format rules (checked against the reference binary):
//! - `%{name}` is a variable; names are case sensitive. An unknown name prints
//!   `curl: unknown --write-out variable: 'name'` to stderr and nothing to the output.
//! - `%{` with no closing `}` prints `%{` and carries on after the brace.
//! - `%header{name}` prints the first value of that header of the last response.
//! - `%output{file}` / `%output{>>file}` redirects the rest of the output into a file
//!   (truncated / appended); when the file cannot be opened the output stays where it was.
//! - `%%` is a literal `%`; any other `%x` prints as is, as does a trailing `%`.
//! - `\n`, `\r` and `\t` are escapes; any other `\x` prints both bytes.
//! - `%{stdout}` / `%{stderr}` switch the output stream, `%{onerror}` stops the output
//!   unless the transfer failed.
//! - `%{json}` prints every variable as one JSON object (alphabetical, `curl_version` last),
//!   `%{header_json}` the last response's headers as an object of arrays.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::time::Duration;

use oxcurl_core::info::{HttpVersion, Info};

/// Everything one `--write-out` expansion needs about a finished transfer.
pub struct WriteoutContext<'a> {
    pub info: &'a Info,
    /// The transfer's result code (`%{exitcode}`); 0 on success.
    pub exitcode: i32,
    /// The error text (`%{errormsg}`): the error buffer, or the generic text of the result
    /// code when the buffer is empty. Only shown when `exitcode != 0`.
    pub errormsg: &'a str,
    pub filename_effective: Option<&'a str>,
    /// `%{url}`: the URL as the user gave it (after globbing).
    pub url: &'a str,
    /// 0-based index of the URL on the command line (`%{urlnum}`).
    pub urlnum: usize,
    /// Number of headers of the last response (`%{num_headers}`).
    pub num_headers: usize,
    pub num_retries: u32,
    /// Whether a proxy was used (`%{proxy_used}`); or-ed with `Info::used_proxy`.
    pub proxy_used: bool,
    /// `%{ftp_entry_path}` (not carried by `Info`).
    pub ftp_entry_path: Option<&'a str>,
    /// The library version line closing `%{json}` (curl prints `curl_version()`, e.g.
    /// "libcurl/8.14.1 OpenSSL/3.0.19 zlib/1.2.13 ...").
    pub curl_version: &'a str,
    /// url.* / urle.* parts: given a URL string and a part name ("scheme", "user",
    /// "password", "options", "host", "port", "path", "query", "fragment", "zoneid"),
    /// return the part (None = empty). The port part must fall back to the scheme's
    /// default port, as curl asks for it with `CURLU_DEFAULT_PORT`.
    pub url_part: &'a dyn Fn(&str, &str) -> Option<String>,
}

/// A write-out variable, in curl's alphabetical table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Var {
    Certs,
    ConnId,
    ContentType,
    Errormsg,
    Exitcode,
    FilenameEffective,
    FtpEntryPath,
    HeaderJson,
    HttpCode,
    HttpConnect,
    HttpVersion,
    Json,
    LocalIp,
    LocalPort,
    Method,
    NumCerts,
    NumConnects,
    NumHeaders,
    NumRedirects,
    NumRetries,
    Onerror,
    ProxySslVerifyResult,
    ProxyUsed,
    RedirectUrl,
    Referer,
    RemoteIp,
    RemotePort,
    ResponseCode,
    Scheme,
    SizeDownload,
    SizeHeader,
    SizeRequest,
    SizeUpload,
    SpeedDownload,
    SpeedUpload,
    SslVerifyResult,
    Stderr,
    Stdout,
    TimeAppconnect,
    TimeConnect,
    TimeNamelookup,
    TimePosttransfer,
    TimePretransfer,
    TimeQueue,
    TimeRedirect,
    TimeStarttransfer,
    TimeTotal,
    TlsEarlydata,
    Url,
    /// `url.<part>`: a part of the URL as given.
    UrlPart(&'static str),
    UrlEffective,
    /// `urle.<part>`: a part of the effective URL.
    UrlePart(&'static str),
    Urlnum,
    XferId,
}

/// All variables, sorted by name (byte order), which is also `%{json}`'s key order.
const VARIABLES: &[(&str, Var)] = &[
    ("certs", Var::Certs),
    ("conn_id", Var::ConnId),
    ("content_type", Var::ContentType),
    ("errormsg", Var::Errormsg),
    ("exitcode", Var::Exitcode),
    ("filename_effective", Var::FilenameEffective),
    ("ftp_entry_path", Var::FtpEntryPath),
    ("header_json", Var::HeaderJson),
    ("http_code", Var::HttpCode),
    ("http_connect", Var::HttpConnect),
    ("http_version", Var::HttpVersion),
    ("json", Var::Json),
    ("local_ip", Var::LocalIp),
    ("local_port", Var::LocalPort),
    ("method", Var::Method),
    ("num_certs", Var::NumCerts),
    ("num_connects", Var::NumConnects),
    ("num_headers", Var::NumHeaders),
    ("num_redirects", Var::NumRedirects),
    ("num_retries", Var::NumRetries),
    ("onerror", Var::Onerror),
    ("proxy_ssl_verify_result", Var::ProxySslVerifyResult),
    ("proxy_used", Var::ProxyUsed),
    ("redirect_url", Var::RedirectUrl),
    ("referer", Var::Referer),
    ("remote_ip", Var::RemoteIp),
    ("remote_port", Var::RemotePort),
    ("response_code", Var::ResponseCode),
    ("scheme", Var::Scheme),
    ("size_download", Var::SizeDownload),
    ("size_header", Var::SizeHeader),
    ("size_request", Var::SizeRequest),
    ("size_upload", Var::SizeUpload),
    ("speed_download", Var::SpeedDownload),
    ("speed_upload", Var::SpeedUpload),
    ("ssl_verify_result", Var::SslVerifyResult),
    ("stderr", Var::Stderr),
    ("stdout", Var::Stdout),
    ("time_appconnect", Var::TimeAppconnect),
    ("time_connect", Var::TimeConnect),
    ("time_namelookup", Var::TimeNamelookup),
    ("time_posttransfer", Var::TimePosttransfer),
    ("time_pretransfer", Var::TimePretransfer),
    ("time_queue", Var::TimeQueue),
    ("time_redirect", Var::TimeRedirect),
    ("time_starttransfer", Var::TimeStarttransfer),
    ("time_total", Var::TimeTotal),
    ("tls_earlydata", Var::TlsEarlydata),
    ("url", Var::Url),
    ("url.fragment", Var::UrlPart("fragment")),
    ("url.host", Var::UrlPart("host")),
    ("url.options", Var::UrlPart("options")),
    ("url.password", Var::UrlPart("password")),
    ("url.path", Var::UrlPart("path")),
    ("url.port", Var::UrlPart("port")),
    ("url.query", Var::UrlPart("query")),
    ("url.scheme", Var::UrlPart("scheme")),
    ("url.user", Var::UrlPart("user")),
    ("url.zoneid", Var::UrlPart("zoneid")),
    ("url_effective", Var::UrlEffective),
    ("urle.fragment", Var::UrlePart("fragment")),
    ("urle.host", Var::UrlePart("host")),
    ("urle.options", Var::UrlePart("options")),
    ("urle.password", Var::UrlePart("password")),
    ("urle.path", Var::UrlePart("path")),
    ("urle.port", Var::UrlePart("port")),
    ("urle.query", Var::UrlePart("query")),
    ("urle.scheme", Var::UrlePart("scheme")),
    ("urle.user", Var::UrlePart("user")),
    ("urle.zoneid", Var::UrlePart("zoneid")),
    ("urlnum", Var::Urlnum),
    ("xfer_id", Var::XferId),
];

fn lookup(name: &[u8]) -> Option<Var> {
    VARIABLES
        .binary_search_by(|(n, _)| n.as_bytes().cmp(name))
        .ok()
        .map(|i| VARIABLES[i].1)
}

/// The value of a plain variable. `None` inside means "not available": nothing in the
/// text output, `null` in JSON.
enum Value {
    Str(Option<String>),
    /// A `long`; `true` when the text form is zero-padded to 3 digits (`http_code`).
    Long(Option<i64>, bool),
    Offset(i64),
    Time(Duration),
}

/// `%{http_version}`'s text: curl maps HTTP/1.0 to "1" and anything it does not
/// know (HTTP/0.9 included) to "0".
fn http_version_str(v: HttpVersion) -> &'static str {
    match v {
        HttpVersion::None | HttpVersion::V0_9 => "0",
        HttpVersion::V1_0 => "1",
        HttpVersion::V1_1 => "1.1",
        HttpVersion::V2 => "2",
        HttpVersion::V3 => "3",
    }
}

fn value(var: Var, ctx: &WriteoutContext) -> Option<Value> {
    let info = ctx.info;
    let long = |v: i64| Value::Long(Some(v), false);
    let string = |s: Option<&str>| Value::Str(s.map(str::to_owned));
    Some(match var {
        Var::Certs => Value::Str(Some(certs_text(&ctx.info.certinfo))),
        Var::ConnId => Value::Offset(info.conn_id),
        Var::ContentType => string(info.content_type.as_deref()),
        Var::Errormsg => Value::Str((ctx.exitcode != 0).then(|| ctx.errormsg.to_owned())),
        Var::Exitcode => long(ctx.exitcode.into()),
        Var::FilenameEffective => string(ctx.filename_effective),
        Var::FtpEntryPath => string(ctx.ftp_entry_path),
        Var::HttpCode | Var::ResponseCode => Value::Long(Some(info.response_code.into()), true),
        Var::HttpConnect => Value::Long(Some(info.http_connectcode.into()), true),
        Var::HttpVersion => string(Some(http_version_str(info.http_version))),
        Var::LocalIp => Value::Str(Some(
            info.local_addr
                .map(|a| a.ip().to_string())
                .unwrap_or_default(),
        )),
        // A Unix socket has no ports: curl gives 0 for both.
        Var::LocalPort => long(match (info.local_addr, &info.unix_peer) {
            (Some(a), _) => a.port().into(),
            (None, Some(_)) => 0,
            (None, None) => -1,
        }),
        Var::Method => string(Some(&info.effective_method)),
        Var::NumCerts => long(ctx.info.certinfo.len() as i64),
        Var::NumConnects => long(info.num_connects.into()),
        Var::NumHeaders => long(ctx.num_headers as i64),
        Var::NumRedirects => long(info.redirect_count.into()),
        Var::NumRetries => long(ctx.num_retries.into()),
        Var::ProxySslVerifyResult => long(info.proxy_ssl_verify_result),
        Var::ProxyUsed => long((ctx.proxy_used || info.used_proxy).into()),
        Var::RedirectUrl => string(info.redirect_url.as_deref()),
        Var::Referer => string(info.referer.as_deref()),
        Var::RemoteIp => Value::Str(Some(match (info.primary_ip, &info.unix_peer) {
            (Some(a), _) => a.ip().to_string(),
            (None, Some(path)) => path.clone(),
            (None, None) => String::new(),
        })),
        Var::RemotePort => long(match (info.primary_ip, &info.unix_peer) {
            (Some(a), _) => a.port().into(),
            (None, Some(_)) => 0,
            (None, None) => -1,
        }),
        Var::Scheme => string((!info.scheme.is_empty()).then_some(info.scheme.as_str())),
        Var::SizeDownload => Value::Offset(clamp(info.size_download)),
        Var::SizeHeader => long(clamp(info.header_size)),
        Var::SizeRequest => long(clamp(info.request_size)),
        Var::SizeUpload => Value::Offset(clamp(info.size_upload)),
        Var::SpeedDownload => Value::Offset(clamp(info.speed_download())),
        Var::SpeedUpload => Value::Offset(clamp(info.speed_upload())),
        Var::SslVerifyResult => long(info.ssl_verify_result),
        Var::TimeAppconnect => Value::Time(info.time_appconnect),
        Var::TimeConnect => Value::Time(info.time_connect),
        Var::TimeNamelookup => Value::Time(info.time_namelookup),
        Var::TimePosttransfer => Value::Time(info.time_posttransfer),
        Var::TimePretransfer => Value::Time(info.time_pretransfer),
        Var::TimeQueue => Value::Time(info.time_queue),
        Var::TimeRedirect => Value::Time(info.time_redirect),
        Var::TimeStarttransfer => Value::Time(info.time_starttransfer),
        Var::TimeTotal => Value::Time(info.time_total),
        Var::TlsEarlydata => Value::Offset(ctx.info.earlydata_sent),
        Var::Url => string(Some(ctx.url)),
        Var::UrlPart(part) => Value::Str((ctx.url_part)(ctx.url, part)),
        Var::UrlEffective => string(Some(&info.effective_url)),
        Var::UrlePart(part) => Value::Str((ctx.url_part)(&info.effective_url, part)),
        Var::Urlnum => long(ctx.urlnum as i64),
        Var::XferId => Value::Offset(info.xfer_id),
        Var::HeaderJson | Var::Json | Var::Onerror | Var::Stderr | Var::Stdout => return None,
    })
}

/// `%{certs}`: every entry of every certificate on a line of its own, the `Cert:` entry
/// (its PEM) without its label.
fn certs_text(certs: &[Vec<String>]) -> String {
    let mut out = String::new();
    for entry in certs.iter().flatten() {
        let e = entry.as_str();
        match e.get(..5) {
            Some(l) if l.eq_ignore_ascii_case("cert:") => out.push_str(&e[5..]),
            _ => out.push_str(e),
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

fn clamp(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Seconds with six decimals, as curl prints every `time_*` variable.
fn write_time(out: &mut dyn Write, d: Duration) -> io::Result<()> {
    let us = d.as_micros();
    write!(out, "{}.{:06}", us / 1_000_000, us % 1_000_000)
}

fn write_plain(out: &mut dyn Write, v: &Value) -> io::Result<()> {
    match v {
        Value::Str(Some(s)) => out.write_all(s.as_bytes()),
        Value::Str(None) | Value::Long(None, _) => Ok(()),
        Value::Long(Some(n), true) => write!(out, "{n:03}"),
        Value::Long(Some(n), false) => write!(out, "{n}"),
        Value::Offset(n) => write!(out, "{n}"),
        Value::Time(d) => write_time(out, *d),
    }
}

fn write_json_value(out: &mut dyn Write, name: &str, v: &Value) -> io::Result<()> {
    write!(out, "\"{name}\":")?;
    match v {
        Value::Str(Some(s)) => json_string(out, s.as_bytes(), false),
        Value::Str(None) | Value::Long(None, _) => out.write_all(b"null"),
        Value::Long(Some(n), _) => write!(out, "{n}"),
        Value::Offset(n) => write!(out, "{n}"),
        Value::Time(d) => write_time(out, *d),
    }
}

/// A JSON string with curl's escaping: the two-letter escapes for `\\ " \b \f \n \r \t`,
/// `\u00XX` for other control bytes, every other byte (UTF-8 or not) as is. `lowercase`
/// folds ASCII letters, as `%{header_json}` does for names.
fn json_string(out: &mut dyn Write, s: &[u8], lowercase: bool) -> io::Result<()> {
    let mut buf = Vec::with_capacity(s.len() + 2);
    buf.push(b'"');
    for &b in s {
        match b {
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'"' => buf.extend_from_slice(b"\\\""),
            0x08 => buf.extend_from_slice(b"\\b"),
            0x0c => buf.extend_from_slice(b"\\f"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            0..=0x1f => buf.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ if lowercase => buf.push(b.to_ascii_lowercase()),
            _ => buf.push(b),
        }
    }
    buf.push(b'"');
    out.write_all(&buf)
}

/// `%{json}`: all variables in table order, then `curl_version`.
fn write_json(out: &mut dyn Write, ctx: &WriteoutContext) -> io::Result<()> {
    out.write_all(b"{")?;
    for &(name, var) in VARIABLES {
        if let Some(v) = value(var, ctx) {
            write_json_value(out, name, &v)?;
            out.write_all(b",")?;
        }
    }
    out.write_all(b"\"curl_version\":")?;
    json_string(out, ctx.curl_version.as_bytes(), false)?;
    out.write_all(b"}")
}

/// `%{header_json}`: the last response's headers in arrival order, each name (lower
/// cased) once, at its first appearance, with all its values; entries separated by
/// `",\n"`, the object closed by `"\n}"`.
fn write_header_json(out: &mut dyn Write, info: &Info) -> io::Result<()> {
    let headers: Vec<_> = info.last_headers().collect();
    out.write_all(b"{")?;
    let mut first = true;
    for (i, h) in headers.iter().enumerate() {
        if headers[..i]
            .iter()
            .any(|p| p.name().eq_ignore_ascii_case(h.name()))
        {
            continue;
        }
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        json_string(out, h.name().as_bytes(), true)?;
        out.write_all(b":[")?;
        let mut sep = false;
        for same in headers[i..]
            .iter()
            .filter(|p| p.name().eq_ignore_ascii_case(h.name()))
        {
            if sep {
                out.write_all(b",")?;
            }
            sep = true;
            json_string(out, same.value().as_bytes(), false)?;
        }
        out.write_all(b"]")?;
    }
    out.write_all(b"\n}")
}

/// Where the expansion currently writes.
enum Target {
    Stdout,
    Stderr,
    File(File),
}

/// Longest header name `%header{}` looks up (curl's buffer holds 255 bytes plus the nul).
const MAX_HEADER_NAME: usize = 255;
/// Longest file name `%output{}` opens.
const MAX_OUTPUT_NAME: usize = 511;

/// Expand `fmt` (the -w argument, already read from @file if given) for one finished
/// transfer. Output goes to `stdout` until `%{stderr}` or `%output{}` switches it;
/// warnings about unknown variables always go to `stderr`.
pub fn writeout(
    fmt: &str,
    ctx: &WriteoutContext,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> io::Result<()> {
    let p = fmt.as_bytes();
    let mut target = Target::Stdout;
    let mut i = 0;
    macro_rules! out {
        () => {
            match &mut target {
                Target::Stdout => &mut *stdout as &mut dyn Write,
                Target::Stderr => &mut *stderr as &mut dyn Write,
                Target::File(f) => f as &mut dyn Write,
            }
        };
    }
    while i < p.len() {
        let c = p[i];
        let next = p.get(i + 1).copied();
        if c == b'%' && next.is_some() {
            let rest = &p[i + 1..];
            if next == Some(b'%') {
                out!().write_all(b"%")?;
                i += 2;
            } else if next == Some(b'{') {
                let start = i + 2;
                let Some(len) = p[start..].iter().position(|&b| b == b'}') else {
                    out!().write_all(b"%{")?;
                    i = start;
                    continue;
                };
                let name = &p[start..start + len];
                i = start + len + 1;
                match lookup(name) {
                    None => {
                        stderr.write_all(b"curl: unknown --write-out variable: '")?;
                        stderr.write_all(name)?;
                        stderr.write_all(b"'\n")?;
                    }
                    Some(Var::Onerror) => {
                        if ctx.exitcode == 0 {
                            break;
                        }
                    }
                    Some(Var::Stdout) => target = Target::Stdout,
                    Some(Var::Stderr) => target = Target::Stderr,
                    Some(Var::Json) => write_json(out!(), ctx)?,
                    Some(Var::HeaderJson) => write_header_json(out!(), ctx.info)?,
                    Some(var) => {
                        if let Some(v) = value(var, ctx) {
                            write_plain(out!(), &v)?;
                        }
                    }
                }
            } else if rest.starts_with(b"header{") {
                let start = i + 8;
                match p[start..].iter().position(|&b| b == b'}') {
                    Some(len) => {
                        let name = &p[start..start + len];
                        if len <= MAX_HEADER_NAME {
                            let found = ctx
                                .info
                                .last_headers()
                                .find(|h| h.name().as_bytes().eq_ignore_ascii_case(name));
                            if let Some(h) = found {
                                out!().write_all(h.value().as_bytes())?;
                            }
                        }
                        i = start + len + 1;
                    }
                    None => {
                        out!().write_all(b"%header{")?;
                        i = start;
                    }
                }
            } else if rest.starts_with(b"output{") {
                let mut start = i + 8;
                let append = p[start..].starts_with(b">>");
                if append {
                    start += 2;
                }
                match p[start..].iter().position(|&b| b == b'}') {
                    Some(len) => {
                        let name = &fmt[start..start + len];
                        if len <= MAX_OUTPUT_NAME && !name.is_empty() {
                            let opened = if append {
                                OpenOptions::new().append(true).create(true).open(name)
                            } else {
                                File::create(name)
                            };
                            if let Ok(f) = opened {
                                target = Target::File(f);
                            }
                        }
                        i = start + len + 1;
                    }
                    None => {
                        out!().write_all(b"%output{")?;
                        i = start;
                    }
                }
            } else {
                // Not a variable: both bytes go out as they are.
                out!().write_all(&p[i..i + 2])?;
                i += 2;
            }
        } else if c == b'\\' && next.is_some() {
            match next {
                Some(b'n') => out!().write_all(b"\n")?,
                Some(b'r') => out!().write_all(b"\r")?,
                Some(b't') => out!().write_all(b"\t")?,
                _ => out!().write_all(&p[i..i + 2])?,
            }
            i += 2;
        } else {
            out!().write_all(&p[i..i + 1])?;
            i += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxcurl_core::info::Header;

    const VERSION: &str = "libcurl/8.14.1 OpenSSL/3.0.19";

    fn parts(url: &str, part: &str) -> Option<String> {
        // enough of a URL parser for these tests: scheme://host:port/path?query
        let (scheme, rest) = url.split_once("://")?;
        let (hostport, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let (host, port) = hostport.split_once(':').unwrap_or((hostport, "80"));
        let (path, query) = match path.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (path, None),
        };
        match part {
            "scheme" => Some(scheme.into()),
            "host" => Some(host.into()),
            "port" => Some(port.into()),
            "path" => Some(path.into()),
            "query" => query.map(Into::into),
            _ => None,
        }
    }

    fn info() -> Info {
        let h = |name: &str, value: &str| Header::new(name, value, 0);
        Info {
            effective_url: "http://127.0.0.1:18765/small".into(),
            effective_method: "GET".into(),
            response_code: 200,
            http_version: HttpVersion::V1_0,
            scheme: "http".into(),
            content_type: Some("application/octet-stream".into()),
            primary_ip: Some("127.0.0.1:18765".parse().unwrap()),
            local_addr: Some("127.0.0.1:56618".parse().unwrap()),
            num_connects: 1,
            size_download: 6,
            header_size: 199,
            request_size: 84,
            time_queue: Duration::from_micros(19),
            time_namelookup: Duration::from_micros(17),
            time_connect: Duration::from_micros(340),
            time_pretransfer: Duration::from_micros(367),
            time_posttransfer: Duration::from_micros(377),
            time_starttransfer: Duration::from_micros(3413),
            time_total: Duration::from_micros(3447),
            headers: vec![
                h("Server", "SimpleHTTP/0.6 Python/3.11.7"),
                h("Date", "Mon, 23 Nov 2026 10:54:58 GMT"),
                h("Content-type", "application/octet-stream"),
                h("Content-Length", "6"),
                h("Last-Modified", "Mon, 23 Nov 2026 10:54:57 GMT"),
            ],
            ..Default::default()
        }
    }

    fn ctx<'a>(
        info: &'a Info,
        url_part: &'a dyn Fn(&str, &str) -> Option<String>,
    ) -> WriteoutContext<'a> {
        WriteoutContext {
            info,
            exitcode: 0,
            errormsg: "",
            filename_effective: Some("/dev/null"),
            url: "http://127.0.0.1:18765/small",
            urlnum: 0,
            num_headers: 5,
            num_retries: 0,
            proxy_used: false,
            ftp_entry_path: None,
            curl_version: VERSION,
            url_part,
        }
    }

    fn run(fmt: &str, c: &WriteoutContext) -> (String, String) {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        writeout(fmt, c, &mut o, &mut e).unwrap();
        (String::from_utf8(o).unwrap(), String::from_utf8(e).unwrap())
    }

    #[test]
    fn json_matches_reference() {
        let i = info();
        let c = ctx(&i, &parts);
        let (out, err) = run("%{json}", &c);
        assert_eq!(err, "");
        let want = include_str!("../tests/fixtures/writeout_json.txt").trim_end();
        assert_eq!(out, want.replace("@VERSION@", VERSION));
    }

    #[test]
    fn header_json_matches_reference() {
        let mut i = info();
        let h = |name: &str, value: &str, request| Header::new(name, value, request);
        i.headers = vec![
            h("X-Early", "1", 0),
            h("Set-Cookie", "a=1", 1),
            h("X-Foo", "one", 1),
            h("set-cookie", "b=2", 1),
            h("X-Ctl", "a\u{1}b\"c\\d\té", 1),
            h("Content-Length", "2", 1),
        ];
        let c = ctx(&i, &parts);
        let (out, _) = run("%{header_json}|%header{SET-COOKIE}|%header{x-early}", &c);
        assert_eq!(
            out,
            "{\"set-cookie\":[\"a=1\",\"b=2\"],\n\"x-foo\":[\"one\"],\n\
             \"x-ctl\":[\"a\\u0001b\\\"c\\\\d\\té\"],\n\"content-length\":[\"2\"]\n}|a=1|"
        );
        i.headers.clear();
        let c = ctx(&i, &parts);
        assert_eq!(run("%{header_json}", &c).0, "{\n}");
    }

    #[test]
    fn plain_variables() {
        let i = info();
        let c = ctx(&i, &parts);
        let (out, err) = run(
            "%{http_code}|%{response_code}|%{http_connect}|%{http_version}|%{time_total}|\
             %{speed_download}|%{remote_ip}:%{remote_port}|%{url.port}|%{url.query}|%{urle.path}|\
             %{errormsg}|%{exitcode}|%{HTTP_CODE}|%{redirect_url}|%{scheme}",
            &c,
        );
        assert_eq!(
            out,
            "200|200|000|1|0.003447|1740|127.0.0.1:18765|18765||/small||0|||http"
        );
        assert_eq!(err, "curl: unknown --write-out variable: 'HTTP_CODE'\n");
    }

    #[test]
    fn failed_transfer() {
        let i = Info {
            effective_url: "http://127.0.0.1:1/x".into(),
            effective_method: "GET".into(),
            scheme: "http".into(),
            ..Default::default()
        };
        let mut c = ctx(&i, &parts);
        c.exitcode = 7;
        c.errormsg =
            "Failed to connect to 127.0.0.1 port 1 after 0 ms: Could not connect to server";
        let (out, _) = run(
            "%{exitcode} %{errormsg}|%{local_ip}|%{local_port}|%{remote_port}|%{http_version}%{onerror}!",
            &c,
        );
        assert_eq!(
            out,
            "7 Failed to connect to 127.0.0.1 port 1 after 0 ms: Could not connect to server||-1|-1|0!"
        );
        c.exitcode = 0;
        assert_eq!(run("a%{onerror}b", &c).0, "a");
    }

    #[test]
    fn escapes_and_malformed_syntax() {
        let i = info();
        let c = ctx(&i, &parts);
        let (out, err) = run(r"a\nb\tc\rd\xe\\f%%g%xh%{i%header{j", &c);
        assert_eq!(out, "a\nb\tc\rd\\xe\\\\f%g%xh%{i%header{j");
        assert_eq!(err, "");
        assert_eq!(run("x%", &c).0, "x%");
        assert_eq!(run("x\\", &c).0, "x\\");
        assert_eq!(run("A%output{>>q", &c).0, "A%output{q");
        let (_, err) = run("%{}%{ http_code}", &c);
        assert_eq!(
            err,
            "curl: unknown --write-out variable: ''\ncurl: unknown --write-out variable: ' http_code'\n"
        );
    }

    #[test]
    fn stream_switching_and_output_files() {
        let i = info();
        let c = ctx(&i, &parts);
        let dir = std::env::temp_dir().join(format!("oxcurl-wo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("o1");
        let f = f.to_str().unwrap();
        let fmt = format!(
            "A%output{{{f}}}B%{{stderr}}C%output{{>>{f}}}D%{{stdout}}E%output{{/nonexistent/x}}F"
        );
        let (out, err) = run(&fmt, &c);
        assert_eq!(out, "AEF");
        assert_eq!(err, "C");
        assert_eq!(std::fs::read_to_string(f).unwrap(), "BD");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
