//! HTTP authentication as curl negotiates it (lib/http.c): which schemes the user wants, which
//! the server offers (`WWW-Authenticate`), the pick in curl's order of preference, the
//! `Authorization` value for the next request, and when a 401 means "ask again". Sans-IO:
//! the transfer feeds headers and asks for values.

pub mod digest;
pub mod netrc;
pub mod ntlm;
pub mod sigv4;

/// `CURLAUTH_*` bits.
pub const BASIC: u32 = 1 << 0;
pub const DIGEST: u32 = 1 << 1;
pub const NEGOTIATE: u32 = 1 << 2;
pub const NTLM: u32 = 1 << 3;
pub const DIGEST_IE: u32 = 1 << 4;
pub const BEARER: u32 = 1 << 6;
pub const AWS_SIGV4: u32 = 1 << 7;
/// `CURLAUTH_ANY`.
pub const ANY: u32 = !DIGEST_IE;
/// `CURLAUTH_ANYSAFE`.
pub const ANYSAFE: u32 = !(BASIC | DIGEST_IE);

/// The schemes this build can answer.
const SUPPORTED: u32 = BASIC | DIGEST | NTLM | BEARER | AWS_SIGV4;
/// curl's `CURLAUTH_PICKNONE`: a round-trip offered nothing usable, so no scheme is used
/// (unlike 0, "not picked yet", which falls back to the wanted ones).
const PICKNONE: u32 = 1 << 30;

/// curl's `struct auth` plus the scheme states, for the origin host of one transfer.
#[derive(Clone, Debug, Default)]
pub struct HostAuth {
    /// Schemes the user allows (`CURLOPT_HTTPAUTH`).
    pub want: u32,
    /// The chosen scheme; before a server round-trip, `want` itself.
    pub picked: u32,
    /// Schemes offered in the current 401 response.
    avail: u32,
    /// Every scheme offered during the transfer (`CURLINFO_HTTPAUTH_AVAIL`).
    pub avail_info: u32,
    /// The scheme picked for the transfer (`CURLINFO_HTTPAUTH_USED`, curl's
    /// `info.httpauthpicked`): set when a challenge picks one, and NTLM once the connection
    /// is authenticated with it.
    pub used: u32,
    /// Authentication needs no further round-trip.
    pub done: bool,
    /// The picked scheme needs another round-trip.
    multipass: bool,
    /// The request being sent is a probe: a POST/PUT without its body.
    pub authneg: bool,
    /// The server rejected what we sent, or sent what we cannot use: stop negotiating.
    pub problem: bool,
    /// A probe was answered without a challenge: send the real request, unprobed.
    probe_passed: bool,
    pub digest: digest::Digest,
    pub ntlm: ntlm::Ntlm,
    /// This is the proxy's state (`authproxy`): 407 and `Proxy-Authenticate`.
    proxy: bool,
}

/// The authentication state a handle keeps from one transfer to its next: curl keeps
/// `state.authhost`, `state.authproxy` and the Digest state in the easy handle, so a handle
/// that found Digest (or picked Basic) sends it at once when it performs again.
#[derive(Clone, Debug)]
pub struct AuthCarry {
    pub(crate) host: HostAuth,
    pub(crate) proxy: HostAuth,
    /// The connection the host's NTLM state belongs to.
    pub(crate) ntlm_conn: Option<i64>,
}

/// What to put in the request.
#[derive(Debug, Default)]
pub struct Output {
    /// The `Authorization` header value.
    pub header: Option<Vec<u8>>,
    /// curl's `Server auth using X with user 'u'` line.
    pub note: Option<String>,
    /// Verbose lines that come before it (the SigV4 canonical request and signature).
    pub pre_notes: Vec<String>,
    /// The header could not be made: the transfer fails with this.
    pub error: Option<crate::error::Error>,
}

/// The request the header is computed for.
#[derive(Debug)]
pub struct Request<'a> {
    pub method: &'a str,
    /// Path and query as sent.
    pub path: &'a str,
    /// GET or HEAD: no body to hold back while negotiating.
    pub get_or_head: bool,
    /// User and password, when the user gave any.
    pub creds: Option<(&'a str, &'a str)>,
    pub bearer: Option<&'a str>,
    /// Credentials may go to this host (same origin, or `--location-trusted`).
    pub allowed: bool,
    /// The user set an `Authorization` header of their own.
    pub custom_header: bool,
    /// What an AWS SigV4 signature covers, when `--aws-sigv4` is set.
    pub aws: Option<sigv4::Params<'a>>,
}

impl HostAuth {
    pub fn new(want: u32) -> HostAuth {
        HostAuth {
            want,
            ..HostAuth::default()
        }
    }

    /// This state as the next transfer of the handle starts with it (curl's
    /// `Curl_pretransfer`): the new `want`, the picked scheme only when still wanted, and
    /// no problem or probe of the previous transfer.
    pub(crate) fn carried(&self, want: u32) -> HostAuth {
        HostAuth {
            want,
            picked: self.picked & want,
            avail_info: 0,
            used: 0,
            authneg: false,
            problem: false,
            probe_passed: false,
            ..self.clone()
        }
    }

    /// The state for authenticating to an HTTP proxy (`CURLOPT_PROXYAUTH`).
    pub fn for_proxy(want: u32) -> HostAuth {
        HostAuth {
            want,
            proxy: true,
            ..HostAuth::default()
        }
    }

    /// curl's `Curl_http_output_auth` for the host: the header for this request, if any.
    pub fn output(&mut self, req: &Request<'_>, random: impl FnOnce() -> [u8; 12]) -> Output {
        let mut out = Output::default();
        if req.creds.is_none() && req.bearer.is_none() {
            self.done = true;
            self.authneg = false;
            return out;
        }
        if self.want != 0 && self.picked == 0 {
            self.picked = self.want;
        }
        if req.allowed {
            out = self.output_headers(req, random);
        } else {
            self.done = true;
        }
        self.authneg = self.multipass && !self.done && !req.get_or_head && !self.probe_passed;
        out
    }

    fn output_headers(&mut self, req: &Request<'_>, random: impl FnOnce() -> [u8; 12]) -> Output {
        let mut out = Output::default();
        let mut scheme = None;
        let (user, pass) = req.creds.unwrap_or(("", ""));
        if self.picked == AWS_SIGV4 {
            scheme = Some("AWS_SIGV4");
            if !req.custom_header {
                match req.aws.as_ref().map(sigv4::sign) {
                    Some(Ok(signed)) => {
                        out.header = Some(signed.value);
                        out.pre_notes = signed.notes;
                    }
                    Some(Err(e)) => {
                        out.error = Some(e);
                        return out;
                    }
                    None => {}
                }
            }
            self.done = true;
        } else if self.picked == NTLM {
            scheme = Some("NTLM");
            match self.ntlm.state {
                ntlm::State::Type2 => {
                    let r = random();
                    let entropy = [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]];
                    let v = self.ntlm.type3(user, pass, entropy, filetime_now());
                    out.header = Some(format!("NTLM {v}").into_bytes());
                    self.done = true;
                }
                ntlm::State::Type3 | ntlm::State::Last => {
                    // Authenticated: the connection carries it from now on.
                    self.ntlm.state = ntlm::State::Last;
                    self.done = true;
                    self.used = NTLM;
                }
                ntlm::State::None | ntlm::State::Type1 => {
                    out.header = Some(format!("NTLM {}", ntlm::type1()).into_bytes());
                }
            }
        } else if self.picked == DIGEST {
            scheme = Some("Digest");
            if self.digest.has_challenge() {
                let mut path = req.path;
                if self.want & DIGEST_IE != 0 {
                    // IE style: the URI without its query.
                    path = path.split('?').next().unwrap_or(path);
                }
                let mut v = b"Digest ".to_vec();
                v.extend(self.digest.response(
                    user.as_bytes(),
                    pass.as_bytes(),
                    req.method,
                    path.as_bytes(),
                    random,
                ));
                out.header = Some(v);
                self.done = true;
            } else {
                self.done = false;
            }
        } else if self.picked == BASIC {
            if req.creds.is_some() && !req.custom_header {
                scheme = Some("Basic");
                let mut v = b"Basic ".to_vec();
                v.extend(crate::codec::base64(format!("{user}:{pass}").as_bytes()).bytes());
                out.header = Some(v);
            }
            self.done = true;
        } else if self.picked == BEARER {
            if let Some(t) = req.bearer.filter(|_| !req.custom_header) {
                scheme = Some("Bearer");
                let mut v = b"Bearer ".to_vec();
                v.extend_from_slice(t.as_bytes());
                out.header = Some(v);
            }
            self.done = true;
        }
        match scheme {
            Some(s) => {
                let who = if self.proxy { "Proxy" } else { "Server" };
                out.note = Some(format!("{who} auth using {s} with user '{user}'"));
                self.multipass = !self.done;
            }
            None => self.multipass = false,
        }
        out
    }

    /// curl's `Curl_http_input_auth`: one `WWW-Authenticate` value of a 401 response.
    /// Returns the verbose lines curl prints.
    pub fn input(&mut self, value: &[u8], notes: &mut Vec<&'static str>) {
        let mut s = value;
        while !s.is_empty() {
            let starts = |p: &[u8]| {
                s.len() >= p.len()
                    && s[..p.len()].eq_ignore_ascii_case(p)
                    && s.get(p.len())
                        .is_none_or(|&c| c == b',' || c.is_ascii_whitespace())
            };
            if starts(b"Digest") {
                if self.avail & DIGEST != 0 {
                    notes.push("Ignoring duplicate digest auth header.");
                } else {
                    self.avail |= DIGEST;
                    self.avail_info |= DIGEST;
                    let rest = s[6..].trim_ascii_start();
                    if self.digest.input(rest).is_err() {
                        notes.push("Digest authentication problem, ignoring.");
                        self.problem = true;
                    }
                }
            } else if starts(b"Basic") {
                self.avail |= BASIC;
                self.avail_info |= BASIC;
                if self.picked == BASIC {
                    // Basic was sent and refused: the credentials are wrong.
                    self.avail = 0;
                    notes.push("Basic authentication problem, ignoring.");
                    self.problem = true;
                }
            } else if starts(b"Bearer") {
                self.avail |= BEARER;
                self.avail_info |= BEARER;
                if self.picked == BEARER {
                    self.avail = 0;
                    notes.push("Bearer authentication problem, ignoring.");
                    self.problem = true;
                }
            } else if starts(b"NTLM") {
                self.avail |= NTLM;
                self.avail_info |= NTLM;
                if self.picked == NTLM {
                    let rest = s[4..].trim_ascii_start();
                    let rest = &rest[..rest.iter().position(|&c| c == b',').unwrap_or(rest.len())];
                    match self.ntlm.input(rest.trim_ascii_end()) {
                        Ok(()) => self.problem = false,
                        Err(e) => {
                            notes.push(match e {
                                ntlm::NtlmError::Rejected => "NTLM handshake rejected",
                                ntlm::NtlmError::Internal => {
                                    "NTLM handshake failure (internal error)"
                                }
                                ntlm::NtlmError::BadType2 => {
                                    "NTLM handshake failure (bad type-2 message)"
                                }
                            });
                            notes.push("NTLM authentication problem, ignoring.");
                            self.problem = true;
                        }
                    }
                }
            } else if starts(b"Negotiate") {
                // Offered but not built in: never picked.
            }
            while let Some((&c, rest)) = s.split_first() {
                s = rest;
                if c == b',' {
                    break;
                }
            }
            s = s.trim_ascii_start();
        }
    }

    /// curl's `pickoneauth`: the most favoured scheme both sides accept.
    fn pick_one(&mut self, mask: u32) -> bool {
        let avail = self.avail & self.want & mask & SUPPORTED;
        self.picked = [NEGOTIATE, BEARER, DIGEST, NTLM, BASIC, AWS_SIGV4]
            .into_iter()
            .find(|b| avail & b != 0)
            .unwrap_or(PICKNONE);
        self.avail = 0;
        self.picked != PICKNONE
    }

    /// curl's `Curl_http_auth_act` once a final response head is in: true when the same
    /// URL is to be requested again with (new) credentials.
    pub fn act(&mut self, code: u16, has_user: bool, has_bearer: bool, get_or_head: bool) -> bool {
        if (100..200).contains(&code) || self.problem {
            return false;
        }
        let mut mask = !0u32;
        if !has_bearer || self.proxy {
            mask &= !BEARER;
        }
        let challenge = if self.proxy { 407 } else { 401 };
        let mut pick = false;
        if (has_user || has_bearer) && (code == challenge || (self.authneg && code < 300)) {
            pick = self.pick_one(mask);
            if pick {
                self.used = self.picked;
            } else {
                self.problem = true;
            }
        }
        if pick {
            return true;
        }
        if code < 300 && !self.done && self.authneg && !get_or_head && !self.proxy {
            // The probe went through without a challenge: send the real request.
            self.done = true;
            self.probe_passed = true;
            return true;
        }
        false
    }

    /// curl's `http_should_fail` for `--fail` on this side's challenge (401 for the host,
    /// 407 for the proxy): only when not negotiating.
    pub fn fails_on_challenge(&self, has_user: bool) -> bool {
        !has_user || self.problem
    }
}

/// Now in Windows FILETIME units (100 ns since 1601), for NTLMv2.
fn filetime_now() -> u64 {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (unix.as_nanos() / 100) as u64 + 116_444_736_000_000_000
}

/// The name of one scheme bit, as curl prints it.
pub fn scheme_name(bit: u32) -> &'static str {
    match bit {
        BASIC => "Basic",
        DIGEST => "Digest",
        NTLM => "NTLM",
        NEGOTIATE => "Negotiate",
        BEARER => "Bearer",
        AWS_SIGV4 => "AWS_SIGV4",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req<'a>(method: &'a str) -> Request<'a> {
        Request {
            method,
            path: "/p?q",
            get_or_head: method == "GET",
            creds: Some(("u", "p")),
            bearer: None,
            allowed: true,
            custom_header: false,
            aws: None,
        }
    }

    #[test]
    fn digest_probe_then_answer() {
        let mut a = HostAuth::new(DIGEST);
        let o = a.output(&req("POST"), || [0; 12]);
        assert!(o.header.is_none());
        assert_eq!(
            o.note.as_deref(),
            Some("Server auth using Digest with user 'u'")
        );
        assert!(a.authneg, "a POST probes without its body");
        let mut notes = vec![];
        a.input(br#"Digest realm="r", nonce="n""#, &mut notes);
        assert!(notes.is_empty());
        assert!(a.act(401, true, false, false));
        let o = a.output(&req("POST"), || [0; 12]);
        assert!(o.header.unwrap().starts_with(b"Digest username=\"u\""));
        assert!(!a.authneg);
        // A second challenge without stale: wrong password, stop.
        a.input(br#"Digest realm="r", nonce="m""#, &mut notes);
        assert_eq!(notes, ["Digest authentication problem, ignoring."]);
        assert!(!a.act(401, true, false, false));
    }

    #[test]
    fn anyauth_picks_digest_over_basic() {
        let mut a = HostAuth::new(ANY);
        let o = a.output(&req("GET"), || [0; 12]);
        assert!(o.header.is_none() && o.note.is_none());
        let mut notes = vec![];
        a.input(b"Basic realm=\"x\"", &mut notes);
        a.input(b"Digest realm=\"x\", nonce=\"1\"", &mut notes);
        assert!(a.act(401, true, false, true));
        assert_eq!(a.picked, DIGEST);
        assert_eq!(a.avail_info, BASIC | DIGEST);
    }

    #[test]
    fn basic_refused_is_a_problem() {
        let mut a = HostAuth::new(BASIC);
        let o = a.output(&req("GET"), || [0; 12]);
        assert_eq!(o.header.unwrap(), b"Basic dTpw");
        let mut notes = vec![];
        a.input(b"Basic realm=\"x\"", &mut notes);
        assert!(a.problem);
        assert!(!a.act(401, true, false, true));
    }

    #[test]
    fn several_schemes_on_one_line() {
        let mut a = HostAuth::new(ANY);
        a.picked = ANY;
        let mut notes = vec![];
        a.input(b"NTLM, Basic realm=\"a\"", &mut notes);
        assert_eq!(a.avail_info, NTLM | BASIC);
        a.input(b"Digestive realm=\"a\"", &mut notes);
        assert_eq!(a.avail_info, NTLM | BASIC);
    }
}
