//! Placeholder URL parser with the crate's public API (replaced by the full parser).
#![forbid(unsafe_code)]
use std::fmt;

#[derive(Clone, Copy, Debug, Default)]
pub struct Flags {
    pub default_scheme: bool,
    pub guess_scheme: bool,
    pub non_support_scheme: bool,
    pub path_as_is: bool,
    pub url_encode: bool,
    pub allow_space: bool,
    pub disallow_user: bool,
    pub no_authority: bool,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UrlError {
    MalformedInput,
    BadPortNumber,
    UnsupportedScheme,
    NoHost,
}
impl UrlError {
    pub fn code(self) -> u32 {
        match self {
            UrlError::MalformedInput => 3,
            UrlError::BadPortNumber => 4,
            UrlError::UnsupportedScheme => 5,
            UrlError::NoHost => 14,
        }
    }
    pub fn message(self) -> &'static str {
        match self {
            UrlError::MalformedInput => "Malformed input to a URL function",
            UrlError::BadPortNumber => "Port number was not a decimal number between 0 and 65535",
            UrlError::UnsupportedScheme => "Unsupported URL scheme",
            UrlError::NoHost => "No host part in the URL",
        }
    }
}
impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}
impl std::error::Error for UrlError {}

#[derive(Clone, Debug, PartialEq)]
pub struct Url {
    scheme: String,
    user: Option<String>,
    password: Option<String>,
    host: String,
    port: Option<u16>,
    path: String,
    query: Option<String>,
    fragment: Option<String>,
}
pub fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}
impl Url {
    pub fn parse(input: &str, flags: Flags) -> Result<Url, UrlError> {
        if input.bytes().any(|b| b <= b' ') {
            return Err(UrlError::MalformedInput);
        }
        let (scheme, rest) = match input.find("://") {
            Some(i) => (input[..i].to_ascii_lowercase(), &input[i + 3..]),
            None if flags.guess_scheme => ("http".to_string(), input),
            None => return Err(UrlError::MalformedInput),
        };
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (auth, tail) = rest.split_at(end);
        let (userinfo, hostport) = match auth.rfind('@') {
            Some(i) => (Some(&auth[..i]), &auth[i + 1..]),
            None => (None, auth),
        };
        let (user, password) = match userinfo {
            Some(u) => match u.split_once(':') {
                Some((a, b)) => (Some(a.to_string()), Some(b.to_string())),
                None => (Some(u.to_string()), None),
            },
            None => (None, None),
        };
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(':') => {
                (h, Some(p.parse::<u16>().map_err(|_| UrlError::BadPortNumber)?))
            }
            _ => (hostport, None),
        };
        if host.is_empty() {
            return Err(UrlError::NoHost);
        }
        let (pathq, fragment) = match tail.split_once('#') {
            Some((a, b)) => (a, Some(b.to_string())),
            None => (tail, None),
        };
        let (path, query) = match pathq.split_once('?') {
            Some((a, b)) => (a, Some(b.to_string())),
            None => (pathq, None),
        };
        Ok(Url {
            scheme,
            user,
            password,
            host: host.to_ascii_lowercase(),
            port,
            path: if path.is_empty() { "/".into() } else { path.into() },
            query,
            fragment,
        })
    }
    pub fn join(&self, input: &str, flags: Flags) -> Result<Url, UrlError> {
        if input.contains("://") {
            return Url::parse(input, flags);
        }
        let mut u = self.clone();
        u.fragment = None;
        if let Some(q) = input.strip_prefix('?') {
            u.query = Some(q.to_string());
        } else if input.starts_with('/') {
            u.path = input.to_string();
            u.query = None;
        } else {
            let base = &self.path[..self.path.rfind('/').map(|i| i + 1).unwrap_or(0)];
            u.path = format!("{base}{input}");
            u.query = None;
        }
        if let Some((p, q)) = u.path.clone().split_once('?') {
            u.path = p.to_string();
            u.query = Some(q.to_string());
        }
        Ok(u)
    }
    pub fn scheme(&self) -> &str {
        &self.scheme
    }
    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }
    pub fn options(&self) -> Option<&str> {
        None
    }
    pub fn host(&self) -> &str {
        &self.host
    }
    pub fn host_punycode(&self) -> Result<String, UrlError> {
        Ok(self.host.clone())
    }
    pub fn zone_id(&self) -> Option<&str> {
        None
    }
    pub fn port(&self) -> Option<u16> {
        self.port
    }
    pub fn port_or_default(&self) -> u16 {
        self.port.or(default_port(&self.scheme)).unwrap_or(0)
    }
    pub fn path(&self) -> &str {
        &self.path
    }
    pub fn query(&self) -> Option<&str> {
        self.query.as_deref()
    }
    pub fn fragment(&self) -> Option<&str> {
        self.fragment.as_deref()
    }
    pub fn to_url_string(&self) -> String {
        let mut s = format!("{}://", self.scheme);
        if let Some(u) = &self.user {
            s.push_str(u);
            if let Some(p) = &self.password {
                s.push(':');
                s.push_str(p);
            }
            s.push('@');
        }
        s.push_str(&self.host);
        if let Some(p) = self.port {
            s.push_str(&format!(":{p}"));
        }
        s.push_str(&self.path);
        if let Some(q) = &self.query {
            s.push('?');
            s.push_str(q);
        }
        s
    }
    pub fn append_query(&mut self, q: &str, _url_encode: bool) -> Result<(), UrlError> {
        match &mut self.query {
            Some(x) => {
                x.push('&');
                x.push_str(q)
            }
            None => self.query = Some(q.to_string()),
        }
        Ok(())
    }
}
