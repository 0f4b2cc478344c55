//! The SOCKS4, SOCKS4a and SOCKS5 client handshakes (curl's `socks.c`), sans-IO: the
//! caller writes `output()`, reads exactly `want()` bytes and passes them to `feed()` until
//! the handshake is done. Reading no more than asked means no tunnel byte is ever taken.
//! Errors carry curl's message; they map to `CURLE_PROXY` (97). Does no I/O.

use std::net::IpAddr;

/// Which handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Socks4,
    /// SOCKS4a: the proxy resolves the host name.
    Socks4a,
    Socks5,
    /// SOCKS5 with the host name sent to the proxy (`socks5h`).
    Socks5h,
}

/// Where the proxy should connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Ip(IpAddr),
    Name(String),
}

/// curl's `CURLproxycode`: why a SOCKS handshake failed, in detail
/// (`CURLINFO_PROXY_ERROR`). The values are curl's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u32)]
pub enum ProxyCode {
    #[default]
    Ok = 0,
    BadAddressType = 1,
    BadVersion = 2,
    Closed = 3,
    Gssapi = 4,
    GssapiPermsg = 5,
    GssapiProtection = 6,
    Identd = 7,
    IdentdDiffer = 8,
    LongHostname = 9,
    LongPasswd = 10,
    LongUser = 11,
    NoAuth = 12,
    RecvAddress = 13,
    RecvAuth = 14,
    RecvConnect = 15,
    RecvReqack = 16,
    ReplyAddressTypeNotSupported = 17,
    ReplyCommandNotSupported = 18,
    ReplyConnectionRefused = 19,
    ReplyGeneralServerFailure = 20,
    ReplyHostUnreachable = 21,
    ReplyNetworkUnreachable = 22,
    ReplyNotAllowed = 23,
    ReplyTtlExpired = 24,
    ReplyUnassigned = 25,
    RequestFailed = 26,
    ResolveHost = 27,
    SendAuth = 28,
    SendConnect = 29,
    SendRequest = 30,
    UnknownFail = 31,
    UnknownMode = 32,
    UserRejected = 33,
}

impl ProxyCode {
    /// The code of a SOCKS5 reply's REP field other than 0 (RFC 1928 section 6).
    fn of_reply(rep: u8) -> ProxyCode {
        match rep {
            1 => ProxyCode::ReplyGeneralServerFailure,
            2 => ProxyCode::ReplyNotAllowed,
            3 => ProxyCode::ReplyNetworkUnreachable,
            4 => ProxyCode::ReplyHostUnreachable,
            5 => ProxyCode::ReplyConnectionRefused,
            6 => ProxyCode::ReplyTtlExpired,
            7 => ProxyCode::ReplyCommandNotSupported,
            8 => ProxyCode::ReplyAddressTypeNotSupported,
            _ => ProxyCode::ReplyUnassigned,
        }
    }
}

/// A failed handshake: curl's message and its `CURLproxycode`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SocksError(pub String, pub ProxyCode);

fn fail(code: ProxyCode, msg: impl Into<String>) -> SocksError {
    SocksError(msg.into(), code)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// SOCKS4 reply (8 bytes).
    S4Reply,
    /// SOCKS5 method selection (2 bytes).
    S5Method,
    /// SOCKS5 username/password status (2 bytes).
    S5AuthStatus,
    /// SOCKS5: authenticated, waiting for the caller to resolve the target
    /// (`set_target`), as curl resolves only at this point.
    S5AwaitTarget,
    /// SOCKS5 reply head (4 bytes).
    S5ReplyHead,
    /// SOCKS5 domain name length (1 byte).
    S5ReplyNameLen,
    /// The rest of the SOCKS5 reply: address and port.
    S5ReplyRest,
    Done,
}

/// The handshake in progress.
#[derive(Debug)]
pub struct Socks {
    version: Version,
    target: Option<Target>,
    /// Target host as given, for messages.
    host: String,
    port: u16,
    creds: Option<(String, String)>,
    out: Vec<u8>,
    sent: usize,
    st: St,
    want: usize,
}

impl Socks {
    /// Start a handshake to `host:port`; `target` is the address (local resolution) or the
    /// name (remote resolution); None (SOCKS5 only) defers it to `set_target`.
    pub fn new(
        version: Version,
        target: Option<Target>,
        host: &str,
        port: u16,
        creds: Option<(String, String)>,
        offer_gssapi: bool,
    ) -> Result<Socks, SocksError> {
        let mut s = Socks {
            version,
            target,
            host: host.to_string(),
            port,
            creds,
            out: Vec::new(),
            sent: 0,
            st: St::Done,
            want: 0,
        };
        match version {
            Version::Socks4 | Version::Socks4a => s.socks4_request()?,
            Version::Socks5 | Version::Socks5h => {
                // No authentication, GSS-API (curl offers it unless only Basic is allowed,
                // and fails if the proxy picks it), and username/password with credentials.
                let mut m = vec![0u8];
                if offer_gssapi {
                    m.push(1);
                }
                if s.creds.is_some() {
                    m.push(2);
                }
                s.out.push(5);
                s.out.push(m.len() as u8);
                s.out.extend_from_slice(&m);
                s.expect(St::S5Method, 2);
            }
        }
        Ok(s)
    }

    fn expect(&mut self, st: St, n: usize) {
        self.st = st;
        self.want = n;
    }

    fn socks4_request(&mut self) -> Result<(), SocksError> {
        let user = self.creds.as_ref().map(|c| c.0.clone()).unwrap_or_default();
        let mut o = vec![4u8, 1];
        o.extend_from_slice(&self.port.to_be_bytes());
        match (&self.target, self.version) {
            (Some(Target::Ip(IpAddr::V4(a))), _) => o.extend_from_slice(&a.octets()),
            (Some(Target::Name(_)), Version::Socks4a) => o.extend_from_slice(&[0, 0, 0, 1]),
            _ => {
                return Err(fail(
                    ProxyCode::ResolveHost,
                    format!("SOCKS4 connection to {} not supported", self.host),
                ))
            }
        }
        if user.len() > 255 {
            return Err(fail(ProxyCode::LongUser, "Too long SOCKS proxy username"));
        }
        o.extend_from_slice(user.as_bytes());
        o.push(0);
        if let Some(Target::Name(n)) = &self.target {
            // The name with its zero byte must fit curl's 600-byte request buffer.
            if n.len() + 1 > 255 || o.len() + n.len() + 1 >= 600 {
                return Err(fail(ProxyCode::LongHostname, "SOCKS4: too long hostname"));
            }
            o.extend_from_slice(n.as_bytes());
            o.push(0);
        }
        self.out = o;
        self.sent = 0;
        self.expect(St::S4Reply, 8);
        Ok(())
    }

    /// Is the handshake waiting for `set_target`?
    pub fn needs_target(&self) -> bool {
        self.st == St::S5AwaitTarget
    }

    /// Give the deferred SOCKS5 target and continue.
    pub fn set_target(&mut self, t: Target) -> Result<(), SocksError> {
        self.target = Some(t);
        self.socks5_request()
    }

    fn socks5_request(&mut self) -> Result<(), SocksError> {
        let mut o = vec![5u8, 1, 0];
        let Some(target) = &self.target else {
            self.expect(St::S5AwaitTarget, 0);
            return Ok(());
        };
        match target {
            Target::Ip(IpAddr::V4(a)) => {
                o.push(1);
                o.extend_from_slice(&a.octets());
            }
            Target::Ip(IpAddr::V6(a)) => {
                o.push(4);
                o.extend_from_slice(&a.octets());
            }
            Target::Name(n) => {
                if n.len() > 255 {
                    return Err(fail(ProxyCode::LongHostname, "SOCKS5: the destination hostname is too long to be resolved remotely by the proxy."));
                }
                o.push(3);
                o.push(n.len() as u8);
                o.extend_from_slice(n.as_bytes());
            }
        }
        o.extend_from_slice(&self.port.to_be_bytes());
        self.out = o;
        self.sent = 0;
        self.expect(St::S5ReplyHead, 4);
        Ok(())
    }

    /// Bytes to write now (empty when waiting for the proxy).
    pub fn output(&self) -> &[u8] {
        &self.out[self.sent..]
    }

    /// `n` bytes of `output()` were written.
    pub fn sent(&mut self, n: usize) {
        self.sent = (self.sent + n).min(self.out.len());
    }

    /// How many bytes to read next (0 while output is pending or when done).
    pub fn want(&self) -> usize {
        if self.sent < self.out.len() {
            0
        } else {
            self.want
        }
    }

    /// The `CURLproxycode` of a failed send (`recv` false) or receive at this step.
    pub fn io_failure(&self, recv: bool) -> ProxyCode {
        match (self.st, recv) {
            (St::S4Reply | St::S5Method, false) => ProxyCode::SendConnect,
            (St::S4Reply | St::S5Method, true) => ProxyCode::RecvConnect,
            (St::S5AuthStatus, false) => ProxyCode::SendAuth,
            (St::S5AuthStatus, true) => ProxyCode::RecvAuth,
            (_, false) => ProxyCode::SendRequest,
            (St::S5ReplyHead | St::S5ReplyNameLen, true) => ProxyCode::RecvReqack,
            (_, true) => ProxyCode::RecvAddress,
        }
    }

    pub fn is_done(&self) -> bool {
        self.st == St::Done
    }

    /// Text curl shows with `-v` once the handshake succeeds.
    pub fn granted_note(&self) -> Option<String> {
        match self.version {
            Version::Socks4 => Some("SOCKS4 request granted.".into()),
            Version::Socks4a => Some("SOCKS4a request granted.".into()),
            _ => Some("SOCKS5 request granted.".into()),
        }
    }

    /// Feed exactly the `want()` bytes read from the proxy.
    pub fn feed(&mut self, data: &[u8]) -> Result<(), SocksError> {
        debug_assert_eq!(data.len(), self.want);
        match self.st {
            St::S4Reply => {
                if data[0] != 0 {
                    return Err(fail(
                        ProxyCode::BadVersion,
                        "SOCKS4 reply has wrong version, version should be 0.",
                    ));
                }
                let addr = format!(
                    "{}.{}.{}.{}:{}",
                    data[4],
                    data[5],
                    data[6],
                    data[7],
                    u16::from_be_bytes([data[2], data[3]])
                );
                let (code, why) = match data[1] {
                    90 => {
                        self.expect(St::Done, 0);
                        return Ok(());
                    }
                    91 => (ProxyCode::RequestFailed, "request rejected or failed."),
                    92 => (ProxyCode::Identd, "request rejected because SOCKS server cannot connect to identd on the client."),
                    93 => (ProxyCode::IdentdDiffer, "request rejected because the client program and identd report different user-ids."),
                    _ => (ProxyCode::UnknownFail, "Unknown."),
                };
                Err(fail(
                    code,
                    format!(
                        "cannot complete SOCKS4 connection to {addr}. ({}), {why}",
                        data[1]
                    ),
                ))
            }
            St::S5Method => {
                if data[0] != 5 {
                    return Err(fail(
                        ProxyCode::BadVersion,
                        "Received invalid version in initial SOCKS5 response.",
                    ));
                }
                match data[1] {
                    0 => self.socks5_request(),
                    2 => {
                        // Without credentials curl sends empty ones.
                        let (u, p) = self.creds.clone().unwrap_or_default();
                        if u.len() > 255 {
                            return Err(fail(
                                ProxyCode::LongUser,
                                "Excessive username length for proxy auth",
                            ));
                        }
                        if p.len() > 255 {
                            return Err(fail(
                                ProxyCode::LongPasswd,
                                "Excessive password length for proxy auth",
                            ));
                        }
                        let mut o = vec![1u8, u.len() as u8];
                        o.extend_from_slice(u.as_bytes());
                        o.push(p.len() as u8);
                        o.extend_from_slice(p.as_bytes());
                        self.out = o;
                        self.sent = 0;
                        self.expect(St::S5AuthStatus, 2);
                        Ok(())
                    }
                    1 => Err(fail(
                        ProxyCode::GssapiPermsg,
                        "SOCKS5 GSSAPI per-message authentication is not supported.",
                    )),
                    0xff => Err(fail(
                        ProxyCode::NoAuth,
                        "No authentication method was acceptable.",
                    )),
                    _ => Err(fail(
                        ProxyCode::UnknownMode,
                        "Undocumented SOCKS5 mode attempted to be used by server.",
                    )),
                }
            }
            St::S5AuthStatus => {
                if data[0] != 1 || data[1] != 0 {
                    return Err(fail(
                        ProxyCode::UserRejected,
                        format!(
                            "User was rejected by the SOCKS5 server ({} {}).",
                            data[0], data[1]
                        ),
                    ));
                }
                self.socks5_request()
            }
            St::S5ReplyHead => {
                if data[0] != 5 {
                    return Err(fail(
                        ProxyCode::BadVersion,
                        "SOCKS5 reply has wrong version, version should be 5.",
                    ));
                }
                if data[1] != 0 {
                    return Err(fail(
                        ProxyCode::of_reply(data[1]),
                        format!(
                            "cannot complete SOCKS5 connection to {}. ({})",
                            self.host, data[1]
                        ),
                    ));
                }
                match data[3] {
                    1 => self.expect(St::S5ReplyRest, 4 + 2),
                    4 => self.expect(St::S5ReplyRest, 16 + 2),
                    3 => self.expect(St::S5ReplyNameLen, 1),
                    _ => {
                        return Err(fail(
                            ProxyCode::BadAddressType,
                            "SOCKS5 reply has wrong address type.",
                        ))
                    }
                }
                Ok(())
            }
            St::S5ReplyNameLen => {
                self.expect(St::S5ReplyRest, usize::from(data[0]) + 2);
                Ok(())
            }
            St::S5ReplyRest => {
                self.expect(St::Done, 0);
                Ok(())
            }
            St::S5AwaitTarget | St::Done => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    /// Run the handshake against scripted proxy bytes; returns what the client sent.
    fn run(mut s: Socks, mut reply: &[u8]) -> Result<Vec<u8>, SocksError> {
        let mut sent = Vec::new();
        while !s.is_done() {
            let o = s.output().to_vec();
            sent.extend_from_slice(&o);
            s.sent(o.len());
            let n = s.want();
            if reply.len() < n {
                return Err(fail(ProxyCode::Closed, "short"));
            }
            s.feed(&reply[..n])?;
            reply = &reply[n..];
        }
        Ok(sent)
    }

    fn v4() -> Target {
        Target::Ip(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)))
    }

    #[test]
    fn socks4_bytes() {
        let s = Socks::new(Version::Socks4, Some(v4()), "127.0.0.1", 80, None, true).unwrap();
        let sent = run(s, &[0, 90, 0, 80, 127, 0, 0, 1]).unwrap();
        assert_eq!(sent, [4, 1, 0, 80, 127, 0, 0, 1, 0]);
    }

    #[test]
    fn socks4a_sends_name_and_user() {
        let s = Socks::new(
            Version::Socks4a,
            Some(Target::Name("h".into())),
            "h",
            1,
            Some(("u".into(), "p".into())),
            true,
        )
        .unwrap();
        let sent = run(s, &[0, 90, 0, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(sent, [4, 1, 0, 1, 0, 0, 0, 1, b'u', 0, b'h', 0]);
    }

    #[test]
    fn socks4_rejected() {
        let s = Socks::new(Version::Socks4, Some(v4()), "127.0.0.1", 80, None, true).unwrap();
        let e = run(s, &[0, 91, 0, 80, 127, 0, 0, 1]).unwrap_err();
        assert!(e.0.contains("request rejected or failed"), "{e:?}");
    }

    #[test]
    fn socks5_hostname_with_auth() {
        let s = Socks::new(
            Version::Socks5h,
            Some(Target::Name("ab".into())),
            "ab",
            443,
            Some(("u".into(), "pw".into())),
            true,
        )
        .unwrap();
        let reply = [5, 2, 1, 0, 5, 0, 0, 3, 2, b'x', b'y', 0, 1];
        let sent = run(s, &reply).unwrap();
        assert_eq!(
            sent,
            [5, 3, 0, 1, 2, 1, 1, b'u', 2, b'p', b'w', 5, 1, 0, 3, 2, b'a', b'b', 1, 187]
        );
    }

    #[test]
    fn socks5_ipv6_target() {
        let t = Target::Ip("::1".parse().unwrap());
        let s = Socks::new(Version::Socks5, Some(t), "::1", 80, None, true).unwrap();
        let mut reply = vec![5, 0, 5, 0, 0, 4];
        reply.extend_from_slice(&[0; 18]);
        let sent = run(s, &reply).unwrap();
        assert_eq!(&sent[..6], &[5, 2, 0, 1, 5, 1]);
        assert_eq!(sent[7], 4);
        assert_eq!(sent.len(), 4 + 4 + 16 + 2);
    }

    #[test]
    fn socks5_deferred_target() {
        let mut s = Socks::new(Version::Socks5, None, "h", 80, None, false).unwrap();
        assert_eq!(s.output(), [5, 1, 0]);
        s.sent(3);
        s.feed(&[5, 0]).unwrap();
        assert!(s.needs_target());
        assert_eq!(s.want(), 0);
        s.set_target(v4()).unwrap();
        assert_eq!(s.output(), [5, 1, 0, 1, 127, 0, 0, 1, 0, 80]);
    }

    #[test]
    fn socks5_garbage_fails() {
        let s = Socks::new(Version::Socks5, Some(v4()), "127.0.0.1", 80, None, true).unwrap();
        assert!(run(s, b"HTTP/1.1 200").is_err());
    }

    #[test]
    fn socks5_password_method_without_credentials_sends_empty_ones() {
        let s = Socks::new(Version::Socks5, Some(v4()), "127.0.0.1", 80, None, true).unwrap();
        let e = run(s, &[5, 2, 1, 1]).unwrap_err();
        assert_eq!(e.1, ProxyCode::UserRejected);
        let mut s = Socks::new(Version::Socks5, Some(v4()), "127.0.0.1", 80, None, true).unwrap();
        s.sent(4);
        s.feed(&[5, 2]).unwrap();
        assert_eq!(s.output(), [1, 0, 0]);
    }

    #[test]
    fn failures_carry_curl_proxy_codes() {
        let five = || Socks::new(Version::Socks5, Some(v4()), "127.0.0.1", 80, None, false);
        for (reply, code) in [
            (&[4, 0][..], ProxyCode::BadVersion),
            (&[5, 1], ProxyCode::GssapiPermsg),
            (&[5, 3], ProxyCode::UnknownMode),
            (&[5, 0xff], ProxyCode::NoAuth),
            (&[5, 0, 5, 1, 0, 1], ProxyCode::ReplyGeneralServerFailure),
            (&[5, 0, 5, 8, 0, 1], ProxyCode::ReplyAddressTypeNotSupported),
            (&[5, 0, 5, 9, 0, 1], ProxyCode::ReplyUnassigned),
            (&[5, 0, 5, 0, 0, 7], ProxyCode::BadAddressType),
        ] {
            assert_eq!(
                run(five().unwrap(), reply).unwrap_err().1,
                code,
                "{reply:?}"
            );
        }
        let four = || Socks::new(Version::Socks4, Some(v4()), "127.0.0.1", 80, None, false);
        for (b, code) in [
            (91, ProxyCode::RequestFailed),
            (92, ProxyCode::Identd),
            (93, ProxyCode::IdentdDiffer),
            (94, ProxyCode::UnknownFail),
        ] {
            let e = run(four().unwrap(), &[0, b, 0, 80, 127, 0, 0, 1]).unwrap_err();
            assert_eq!(e.1, code);
        }
        let long = "h".repeat(255);
        let e = Socks::new(
            Version::Socks4a,
            Some(Target::Name(long)),
            "h",
            1,
            None,
            false,
        )
        .unwrap_err();
        assert_eq!(
            (e.0.as_str(), e.1),
            ("SOCKS4: too long hostname", ProxyCode::LongHostname)
        );
        assert_eq!(ProxyCode::UserRejected as u32, 33);
    }

    #[test]
    fn socks5_refused_connect() {
        let s = Socks::new(Version::Socks5, Some(v4()), "127.0.0.1", 80, None, true).unwrap();
        let e = run(s, &[5, 0, 5, 5, 0, 1]).unwrap_err();
        assert_eq!(e.0, "cannot complete SOCKS5 connection to 127.0.0.1. (5)");
    }
}
