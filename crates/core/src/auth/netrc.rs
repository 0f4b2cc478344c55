//! The `.netrc` file as curl reads it (lib/netrc.c): `machine`, `default`, `login`,
//! `password`, `macdef` blocks, quoted tokens with `\n \r \t` escapes, and curl's rules for a
//! login the user already named. Pure: the caller reads the file.

/// Why no credentials came out (curl's `NETRCcode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetrcError {
    NoMatch,
    SyntaxError,
    FileMissing,
}

impl NetrcError {
    /// curl's `Curl_netrc_strerror`.
    pub fn message(self) -> &'static str {
        match self {
            NetrcError::NoMatch => "no matching entry",
            NetrcError::SyntaxError => "syntax error",
            NetrcError::FileMissing => "no such file",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Nothing,
    HostFound,
    HostValid,
    Macdef,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Keyword {
    None,
    Login,
    Password,
}

/// Look up `host` in the contents of a netrc file. With `login` given, only that login's
/// password is taken. Returns (login, password).
pub fn lookup(
    contents: &[u8],
    host: &str,
    login: Option<&str>,
) -> Result<(String, String), NetrcError> {
    let specific = login.map(|l| l.as_bytes().to_vec());
    let mut found_host = false;
    let mut cur_login: Option<Vec<u8>> = specific.clone();
    let mut password: Option<Vec<u8>> = None;
    let mut state = State::Nothing;
    let mut keyword = Keyword::None;
    let (mut found_login, mut found_password) = (false, false);
    let mut our_login = false;
    let mut done = false;

    'lines: for line in contents.split(|&c| c == b'\n') {
        let mut i = 0;
        loop {
            while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
                i += 1;
            }
            if state == State::Macdef && (i >= line.len() || line[i] == b'\r') {
                // An empty line ends a macro definition.
                state = State::Nothing;
            }
            if i >= line.len() {
                break;
            }
            let mut token = Vec::new();
            if line[i] != b'"' {
                while i < line.len() && line[i] > b' ' {
                    token.push(line[i]);
                    i += 1;
                }
                if token.is_empty() {
                    // A control character: skip it.
                    i += 1;
                    continue;
                }
            } else {
                i += 1;
                let (mut escape, mut end) = (false, false);
                while i < line.len() {
                    let mut c = line[i];
                    i += 1;
                    if escape {
                        escape = false;
                        c = match c {
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            other => other,
                        };
                    } else if c == b'\\' {
                        escape = true;
                        continue;
                    } else if c == b'"' {
                        end = true;
                        break;
                    }
                    token.push(c);
                }
                if escape || !end {
                    return Err(NetrcError::SyntaxError);
                }
            }
            let is = |k: &str| token.eq_ignore_ascii_case(k.as_bytes());
            match state {
                State::Nothing => {
                    if is("macdef") {
                        state = State::Macdef;
                    } else if is("machine") {
                        state = State::HostFound;
                        keyword = Keyword::None;
                        (found_login, found_password, our_login) = (false, false, false);
                        password = None;
                        if specific.is_none() {
                            cur_login = None;
                        }
                    } else if is("default") {
                        state = State::HostValid;
                        found_host = true;
                    }
                }
                State::Macdef => {}
                State::HostFound => {
                    if token.eq_ignore_ascii_case(host.as_bytes()) {
                        state = State::HostValid;
                        found_host = true;
                    } else {
                        state = State::Nothing;
                    }
                }
                State::HostValid => {
                    if keyword == Keyword::Login {
                        match &specific {
                            Some(l) => our_login = *l == token,
                            None => {
                                our_login = true;
                                cur_login = Some(token.clone());
                            }
                        }
                        found_login = true;
                        keyword = Keyword::None;
                    } else if keyword == Keyword::Password {
                        password = Some(token.clone());
                        found_password = true;
                        keyword = Keyword::None;
                    } else if is("login") {
                        keyword = Keyword::Login;
                    } else if is("password") {
                        keyword = Keyword::Password;
                    } else if is("machine") {
                        if found_password && (our_login || specific.is_none()) {
                            done = true;
                        } else {
                            state = State::HostFound;
                            keyword = Keyword::None;
                            (found_login, found_password) = (false, false);
                            password = None;
                            if specific.is_none() {
                                cur_login = None;
                            }
                        }
                    } else if is("default") {
                        state = State::HostValid;
                        found_host = true;
                        password = None;
                        if specific.is_none() {
                            cur_login = None;
                        }
                    }
                    if found_login && found_password && our_login {
                        done = true;
                    }
                }
            }
            if done {
                break 'lines;
            }
        }
    }
    if !found_host {
        return Err(NetrcError::NoMatch);
    }
    let password = match password {
        None if our_login => Vec::new(),
        None if cur_login.is_none() => return Err(NetrcError::NoMatch),
        p => p.unwrap_or_default(),
    };
    let login = cur_login.unwrap_or_default();
    Ok((
        String::from_utf8_lossy(&login).into_owned(),
        String::from_utf8_lossy(&password).into_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &[u8] = b"machine other.example login o password op\n\
        machine example.com\n  login alice password secret\n\
        machine example.com login bob password \"b\\\"ob pw\"\n\
        macdef init\ncd /pub\n\nmachine after.example login a password p\n";

    #[test]
    fn first_entry_for_host() {
        assert_eq!(
            lookup(FILE, "EXAMPLE.com", None),
            Ok(("alice".into(), "secret".into()))
        );
    }

    #[test]
    fn specific_login() {
        assert_eq!(
            lookup(FILE, "example.com", Some("bob")),
            Ok(("bob".into(), "b\"ob pw".into()))
        );
        // A later machine line drops what the entries before it gave.
        assert_eq!(
            lookup(FILE, "example.com", Some("carol")),
            Ok(("carol".into(), String::new()))
        );
        // curl 8.14.1 keeps the last password of the host's entries for an unknown login.
        let f = b"machine h login alice password secret\nmachine h login bob password bobpw\n";
        assert_eq!(
            lookup(f, "h", Some("carol")),
            Ok(("carol".into(), "bobpw".into()))
        );
    }

    #[test]
    fn after_macdef() {
        assert_eq!(
            lookup(FILE, "after.example", None),
            Ok(("a".into(), "p".into()))
        );
    }

    #[test]
    fn default_entry() {
        let f = b"machine a login x password y\ndefault login anon password guest\n";
        assert_eq!(lookup(f, "zzz", None), Ok(("anon".into(), "guest".into())));
        assert_eq!(lookup(f, "a", None), Ok(("x".into(), "y".into())));
    }

    #[test]
    fn no_match_and_syntax_error() {
        assert_eq!(lookup(FILE, "nope", None), Err(NetrcError::NoMatch));
        assert_eq!(
            lookup(b"machine a login \"open", "a", None),
            Err(NetrcError::SyntaxError)
        );
    }

    #[test]
    fn login_without_password_gets_empty_password() {
        assert_eq!(
            lookup(b"machine a login x\n", "a", None),
            Ok(("x".into(), String::new()))
        );
    }
}
