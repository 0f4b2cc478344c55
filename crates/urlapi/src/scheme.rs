//! The scheme table (curl's handler list, `Curl_getn_scheme_handler`): every URL scheme
//! libcurl 8.14.1 has a handler for, with its default port, `CURLPROTO_*` bit, protocol family,
//! curl's `PROTOPT_*` flags, and which of the engine's handlers serves it.
//!
//! This is the one place a scheme is declared. The URL parser reads it for known schemes,
//! default ports and `;options` in the userinfo; the engine picks a transfer's handler from it;
//! libcurl's `curl_version_info`, `CURLINFO_PROTOCOL`, `CURLOPT_PROTOCOLS(_STR)` and the tool's
//! `-V`, `--proto`, `--proto-redir` and `--proto-default` all read it. Adding a protocol is one
//! handler module in the engine and setting `handler` on its line here.

/// The engine's protocol handlers: which one runs a transfer for a scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandlerKind {
    /// HTTP/1.x and HTTP/2 (`http`, `https`).
    Http,
    /// `file://`.
    File,
    /// `ftp://`.
    Ftp,
}

/// `CURLPROTO_*` bits, as in curl's `include/curl/curl.h` (`WS` and `WSS` from
/// `lib/urldata.h`).
pub mod proto {
    pub const HTTP: u32 = 1 << 0;
    pub const HTTPS: u32 = 1 << 1;
    pub const FTP: u32 = 1 << 2;
    pub const FTPS: u32 = 1 << 3;
    pub const SCP: u32 = 1 << 4;
    pub const SFTP: u32 = 1 << 5;
    pub const TELNET: u32 = 1 << 6;
    pub const LDAP: u32 = 1 << 7;
    pub const LDAPS: u32 = 1 << 8;
    pub const DICT: u32 = 1 << 9;
    pub const FILE: u32 = 1 << 10;
    pub const TFTP: u32 = 1 << 11;
    pub const IMAP: u32 = 1 << 12;
    pub const IMAPS: u32 = 1 << 13;
    pub const POP3: u32 = 1 << 14;
    pub const POP3S: u32 = 1 << 15;
    pub const SMTP: u32 = 1 << 16;
    pub const SMTPS: u32 = 1 << 17;
    pub const RTSP: u32 = 1 << 18;
    pub const RTMP: u32 = 1 << 19;
    pub const RTMPT: u32 = 1 << 20;
    pub const RTMPE: u32 = 1 << 21;
    pub const RTMPTE: u32 = 1 << 22;
    pub const RTMPS: u32 = 1 << 23;
    pub const RTMPTS: u32 = 1 << 24;
    pub const GOPHER: u32 = 1 << 25;
    pub const SMB: u32 = 1 << 26;
    pub const SMBS: u32 = 1 << 27;
    pub const MQTT: u32 = 1 << 28;
    pub const GOPHERS: u32 = 1 << 29;
    pub const WS: u32 = 1 << 30;
    pub const WSS: u32 = 1 << 31;
    /// curl's default `CURLOPT_REDIR_PROTOCOLS` (`CURLPROTO_REDIR`).
    pub const REDIR_DEFAULT: u32 = HTTP | HTTPS | FTP | FTPS;
}

/// curl's `PROTOPT_*` flags (`lib/urldata.h`), same bits.
pub mod flag {
    /// TLS from the start (`PROTOPT_SSL`).
    pub const SSL: u32 = 1 << 0;
    /// Two connections: control and data (`PROTOPT_DUAL`).
    pub const DUAL: u32 = 1 << 1;
    /// Something is sent before the connection closes (`PROTOPT_CLOSEACTION`).
    pub const CLOSEACTION: u32 = 1 << 2;
    /// The path is a directory to lock to (`PROTOPT_DIRLOCK`).
    pub const DIRLOCK: u32 = 1 << 3;
    /// No network: no resolving, connecting or proxy (`PROTOPT_NONETWORK`).
    pub const NONETWORK: u32 = 1 << 4;
    /// A password is needed; an empty one is sent when none is given (`PROTOPT_NEEDSPWD`).
    pub const NEEDSPWD: u32 = 1 << 5;
    /// The URL's query is not part of what the protocol asks for (`PROTOPT_NOURLQUERY`).
    pub const NOURLQUERY: u32 = 1 << 6;
    /// Credentials go with every request, not once per connection
    /// (`PROTOPT_CREDSPERREQUEST`).
    pub const CREDSPERREQUEST: u32 = 1 << 7;
    /// ALPN is offered in the TLS handshake (`PROTOPT_ALPN`).
    pub const ALPN: u32 = 1 << 8;
    /// `;options` in the userinfo are parsed (`PROTOPT_URLOPTIONS`).
    pub const URLOPTIONS: u32 = 1 << 10;
    /// Through a non-tunnelling HTTP proxy the transfer is an HTTP request for the URL
    /// (`PROTOPT_PROXY_AS_HTTP`); without this flag an HTTP proxy is always a CONNECT tunnel.
    pub const PROXY_AS_HTTP: u32 = 1 << 11;
    /// Wildcard matching of remote names (`PROTOPT_WILDCARD`).
    pub const WILDCARD: u32 = 1 << 12;
    /// Control bytes are allowed in credentials (`PROTOPT_USERPWDCTRL`).
    pub const USERPWDCTRL: u32 = 1 << 13;
    /// Cannot go through a TCP proxy (UDP: `PROTOPT_NOTCPPROXY`).
    pub const NOTCPPROXY: u32 = 1 << 14;
}

/// One scheme.
#[derive(Debug)]
pub struct Scheme {
    /// Lower case, as curl lists it.
    pub name: &'static str,
    /// 0 for none (`file`).
    pub default_port: u16,
    /// Its `CURLPROTO_*` bit.
    pub protocol: u32,
    /// The `CURLPROTO_*` bit of its family (`https` and `ws` are of the HTTP family).
    pub family: u32,
    /// `flag::*` bits.
    pub flags: u32,
    /// The handler that serves it here; `None` for a scheme curl has and this build does not
    /// serve yet (the URL parser still knows it, as libcurl's does).
    pub handler: Option<HandlerKind>,
}

impl Scheme {
    /// Whether it has every bit of `f` (`flag::*`).
    pub fn has(&self, f: u32) -> bool {
        self.flags & f == f
    }
}

use flag::*;
use HandlerKind::*;

const fn s(
    name: &'static str,
    default_port: u16,
    protocol: u32,
    family: u32,
    flags: u32,
    handler: Option<HandlerKind>,
) -> Scheme {
    Scheme {
        name,
        default_port,
        protocol,
        family,
        flags,
        handler,
    }
}

const MAIL: u32 = CLOSEACTION | NOURLQUERY | URLOPTIONS;
const SSH: u32 = DIRLOCK | CLOSEACTION | NOURLQUERY;
const FTP_FLAGS: u32 = DUAL | CLOSEACTION | NEEDSPWD | NOURLQUERY | WILDCARD;
const HTTP_FLAGS: u32 = CREDSPERREQUEST | USERPWDCTRL;

/// Every scheme, in the order of curl's `curl_version_info` list (alphabetical). The tool's
/// `--proto`, `--proto-redir` and `--proto-default` know all of them by name, as curl 8.14.1
/// built with every protocol does, so a command line written for curl reads the same whether
/// or not this build serves the scheme.
pub static SCHEMES: &[Scheme] = &[
    s("dict", 2628, proto::DICT, proto::DICT, NOURLQUERY, None),
    s(
        "file",
        0,
        proto::FILE,
        proto::FILE,
        NONETWORK | NOURLQUERY,
        Some(File),
    ),
    s(
        "ftp",
        21,
        proto::FTP,
        proto::FTP,
        FTP_FLAGS | PROXY_AS_HTTP,
        Some(Ftp),
    ),
    s(
        "ftps",
        990,
        proto::FTPS,
        proto::FTP,
        FTP_FLAGS | SSL,
        Some(Ftp),
    ),
    s("gopher", 70, proto::GOPHER, proto::GOPHER, 0, None),
    s("gophers", 70, proto::GOPHERS, proto::GOPHER, SSL, None),
    s("http", 80, proto::HTTP, proto::HTTP, HTTP_FLAGS, Some(Http)),
    s(
        "https",
        443,
        proto::HTTPS,
        proto::HTTP,
        HTTP_FLAGS | SSL | ALPN,
        Some(Http),
    ),
    s(
        "imap",
        143,
        proto::IMAP,
        proto::IMAP,
        CLOSEACTION | URLOPTIONS,
        None,
    ),
    s(
        "imaps",
        993,
        proto::IMAPS,
        proto::IMAP,
        CLOSEACTION | URLOPTIONS | SSL,
        None,
    ),
    s("ldap", 389, proto::LDAP, proto::LDAP, 0, None),
    s("ldaps", 636, proto::LDAPS, proto::LDAP, SSL, None),
    s("mqtt", 1883, proto::MQTT, proto::MQTT, 0, None),
    s("pop3", 110, proto::POP3, proto::POP3, MAIL, None),
    s("pop3s", 995, proto::POP3S, proto::POP3, MAIL | SSL, None),
    s("rtmp", 1935, proto::RTMP, proto::RTMP, 0, None),
    s("rtmpe", 1935, proto::RTMPE, proto::RTMPE, 0, None),
    s("rtmps", 443, proto::RTMPS, proto::RTMP, 0, None),
    s("rtmpt", 80, proto::RTMPT, proto::RTMPT, 0, None),
    s("rtmpte", 80, proto::RTMPTE, proto::RTMPTE, 0, None),
    s("rtmpts", 443, proto::RTMPTS, proto::RTMPT, 0, None),
    s("rtsp", 554, proto::RTSP, proto::RTSP, 0, None),
    s("scp", 22, proto::SCP, proto::SCP, SSH, None),
    s("sftp", 22, proto::SFTP, proto::SFTP, SSH, None),
    s("smb", 445, proto::SMB, proto::SMB, 0, None),
    s("smbs", 445, proto::SMBS, proto::SMB, SSL, None),
    s("smtp", 25, proto::SMTP, proto::SMTP, MAIL, None),
    s("smtps", 465, proto::SMTPS, proto::SMTP, MAIL | SSL, None),
    s("telnet", 23, proto::TELNET, proto::TELNET, NOURLQUERY, None),
    s(
        "tftp",
        69,
        proto::TFTP,
        proto::TFTP,
        NOTCPPROXY | NOURLQUERY,
        None,
    ),
    s("ws", 80, proto::WS, proto::HTTP, HTTP_FLAGS, None),
    s("wss", 443, proto::WSS, proto::HTTP, HTTP_FLAGS | SSL, None),
];

/// The scheme of a name, case-insensitively (`Curl_get_scheme_handler`).
pub fn find(name: &str) -> Option<&'static Scheme> {
    SCHEMES.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

/// The scheme whose `CURLPROTO_*` bit is `bit`.
pub fn by_protocol(bit: u32) -> Option<&'static Scheme> {
    SCHEMES.iter().find(|s| s.protocol == bit)
}

/// The schemes this build serves, in curl's order: `curl -V`'s Protocols line and
/// `curl_version_info`'s list.
pub fn served() -> impl Iterator<Item = &'static Scheme> {
    SCHEMES.iter().filter(|s| s.handler.is_some())
}

/// Whether `curl -V` leaves the scheme out of its Protocols line: the `rtmp` variants,
/// which curl's tool shows only as `rtmp`.
pub fn hidden_in_version(name: &str) -> bool {
    name.len() > 4 && name[..4].eq_ignore_ascii_case("rtmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for (i, a) in SCHEMES.iter().enumerate() {
            assert_eq!(a.name, a.name.to_ascii_lowercase());
            assert_eq!(a.protocol.count_ones(), 1, "{}", a.name);
            assert_eq!(by_protocol(a.protocol).map(|s| s.name), Some(a.name));
            // The family is a scheme of the table, the plain one of its group.
            let fam = by_protocol(a.family).expect("family");
            assert!(!fam.has(SSL) || fam.name == a.name, "{}", a.name);
            if let Some(b) = SCHEMES.get(i + 1) {
                assert!(a.name < b.name, "sorted: {} {}", a.name, b.name);
            }
        }
        assert_eq!(find("HTTPS").map(|s| s.default_port), Some(443));
        assert_eq!(find("nope").map(|s| s.name), None);
    }
}
