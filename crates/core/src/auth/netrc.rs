//! The `.netrc` file as curl 8.14.1 reads it (lib/netrc.c): [`load`] takes the file in as
//! curl's `file2memory` does (leading blanks and `#` comment lines dropped, curl's line and
//! file size limits), and [`lookup`] walks the loaded text as `parsenetrc` does: `machine`,
//! `default`, `login`, `password`, quoted tokens with `\n \r \t` escapes, `macdef` bodies
//! skipped up to the first empty line, and curl's rules for a login the user already named.

use std::io::Read;

use crate::getline::Fgets;

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

/// curl's `MAX_NETRC_LINE`: a line this long or longer (its newline counted) ends the file.
const MAX_LINE: usize = 16384;
/// curl's `MAX_NETRC_FILE`: loaded text past this is a syntax error.
const MAX_FILE: usize = 128 * 1024;
/// curl's `MAX_NETRC_TOKEN`: a token this long or longer is a syntax error.
const MAX_TOKEN: usize = 4096;
/// curl's `Curl_get_line`: the next whole line into `line`, newline-terminated (one is added at
/// the end of the file). False at the end, for a line of `MAX_LINE` bytes or more, or at a NUL
/// that starts a piece; a NUL elsewhere cuts the rest of its piece, as `strlen` does.
fn get_line<R: Read>(f: &mut Fgets<R>, piece: &mut Vec<u8>, line: &mut Vec<u8>) -> bool {
    line.clear();
    loop {
        if !f.fgets(piece) {
            return !line.is_empty();
        }
        let n = piece.iter().position(|&c| c == 0).unwrap_or(piece.len());
        if n == 0 || line.len() + n + 1 > MAX_LINE {
            return false;
        }
        line.extend_from_slice(&piece[..n]);
        if piece[n - 1] == b'\n' {
            return true;
        }
        if f.eof() {
            if line.len() + 2 > MAX_LINE {
                return false;
            }
            line.push(b'\n');
            return true;
        }
    }
}

/// Read a netrc file as curl's `file2memory`: each line without its leading blanks, comment
/// lines (`#` first) left out. Reading stops quietly at a line of curl's maximum length or
/// more; more than 128 KiB of text kept is a syntax error. Memory is bounded by those limits
/// whatever the file holds.
pub fn load(r: impl Read) -> Result<Vec<u8>, NetrcError> {
    let mut f = Fgets::new(r);
    let (mut piece, mut line, mut text) = (Vec::new(), Vec::new(), Vec::new());
    while get_line(&mut f, &mut piece, &mut line) {
        let start = line
            .iter()
            .position(|&c| c != b' ' && c != b'\t')
            .unwrap_or(line.len());
        let rest = &line[start..];
        if rest.first() == Some(&b'#') {
            continue;
        }
        if text.len() + rest.len() + 1 > MAX_FILE {
            return Err(NetrcError::SyntaxError);
        }
        text.extend_from_slice(rest);
    }
    Ok(text)
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

/// Look up `host` in netrc text as [`load`] gives it. With `login` given, only that login's
/// password is taken. Returns (login, password).
///
/// The walk is curl's: a token starts after the one character that ended the previous token
/// (so lines run on into each other), a `macdef` body ends where a token would start at a
/// line end (an empty line, or right after the macro's name when blanks follow it), and a
/// control character where a token should start is a syntax error.
pub fn lookup(
    text: &[u8],
    host: &str,
    login: Option<&str>,
) -> Result<(String, String), NetrcError> {
    // The text read as a C string: NUL past its end.
    let at = |i: usize| text.get(i).copied().unwrap_or(0);
    let specific = login.map(|l| l.as_bytes().to_vec());
    let mut found_host = false;
    let mut cur_login: Option<Vec<u8>> = specific.clone();
    let mut password: Option<Vec<u8>> = None;
    let mut state = State::Nothing;
    let mut keyword = Keyword::None;
    let (mut found_login, mut found_password) = (false, false);
    let mut our_login = false;
    let mut done = false;
    let mut token = Vec::new();
    let mut line = 0;

    while !done {
        let mut tok = line;
        while !done {
            token.clear();
            while at(tok) == b' ' || at(tok) == b'\t' {
                tok += 1;
            }
            if state == State::Macdef && (at(tok) == b'\n' || at(tok) == b'\r') {
                state = State::Nothing;
            }
            if at(tok) == 0 || at(tok) == b'\n' {
                break;
            }
            let mut end = tok;
            if at(tok) != b'"' {
                while at(end) > b' ' {
                    end += 1;
                }
                let len = end - tok;
                if len == 0 || len + 1 > MAX_TOKEN {
                    return Err(NetrcError::SyntaxError);
                }
                token.extend_from_slice(&text[tok..end]);
            } else {
                end += 1;
                let (mut escape, mut endquote) = (false, false);
                while at(end) != 0 {
                    let mut c = at(end);
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
                        end += 1;
                        continue;
                    } else if c == b'"' {
                        end += 1;
                        endquote = true;
                        break;
                    }
                    if token.len() + 2 > MAX_TOKEN {
                        return Err(NetrcError::SyntaxError);
                    }
                    token.push(c);
                    end += 1;
                }
                if escape || !endquote {
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
                State::Macdef => {
                    // Only an empty quoted token ("") ends a macro this way.
                    if token.is_empty() {
                        state = State::Nothing;
                    }
                }
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
                        // A password counts only for the login asked for.
                        if specific.is_none() || our_login {
                            found_password = true;
                        }
                        keyword = Keyword::None;
                    } else if is("login") {
                        keyword = Keyword::Login;
                    } else if is("password") {
                        keyword = Keyword::Password;
                    } else if is("machine") {
                        if found_password {
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
                    if !done && found_login && found_password && our_login {
                        done = true;
                    }
                }
            }
            tok = end + 1;
        }
        if !done {
            match text
                .get(tok..)
                .and_then(|t| t.iter().position(|&c| c == b'\n'))
            {
                Some(nl) => line = tok + nl + 1,
                None => break,
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
    fn loaded(file: &[u8]) -> Vec<u8> {
        load(file).unwrap()
    }

    fn find(file: &[u8], host: &str, login: Option<&str>) -> Result<(String, String), NetrcError> {
        lookup(&loaded(file), host, login)
    }

    #[test]
    fn macro_bodies_are_not_read_as_entries() {
        let f = b"macdef init\ndefault login evil password stolen\n\
            machine a.test login evil password x\n\nmachine b.test login b password bp\n";
        assert_eq!(find(f, "a.test", None), Err(NetrcError::NoMatch));
        assert_eq!(find(f, "other.test", None), Err(NetrcError::NoMatch));
        assert_eq!(find(f, "b.test", None), Ok(("b".into(), "bp".into())));
        // A line of blanks is empty once loaded, and ends the body too.
        let f = b"macdef m\nmachine a.test login e password x\n \t \nmachine a.test login a password p\n";
        assert_eq!(find(f, "a.test", None), Ok(("a".into(), "p".into())));
        // A body running to the end of the file hides everything after it.
        assert_eq!(
            find(b"macdef m\ndefault login e password x\n", "a.test", None),
            Err(NetrcError::NoMatch)
        );
    }

    #[test]
    fn macro_ends_where_curl_ends_it() {
        // Blanks after the macro's name, or a CR LF line end, end it on its own line (curl's
        // walk sees the line end where the next token would start).
        let f = b"macdef m \nmachine a.test login a password p\n";
        assert_eq!(find(f, "a.test", None), Ok(("a".into(), "p".into())));
        let f = b"macdef m\r\nmachine a.test login a password p\r\n";
        assert_eq!(find(f, "a.test", None), Ok(("a".into(), "p".into())));
        // So does an empty quoted token.
        let f = b"macdef m \"\" machine a.test login a password p\n";
        assert_eq!(find(f, "a.test", None), Ok(("a".into(), "p".into())));
    }

    #[test]
    fn password_counts_only_for_the_login_asked_for() {
        let f = b"machine h password P login bob\nmachine h login bob password Q\n";
        assert_eq!(find(f, "h", Some("bob")), Ok(("bob".into(), "Q".into())));
        assert_eq!(find(f, "h", None), Ok(("bob".into(), "P".into())));
    }

    #[test]
    fn tokens_over_curls_limit_are_a_syntax_error() {
        for quoted in [false, true] {
            let token = |n: usize| {
                let t = "x".repeat(n);
                if quoted {
                    format!("\"{t}\"")
                } else {
                    t
                }
            };
            let file = |n: usize| format!("machine h login a password {}\n", token(n));
            let (ok, long) = (file(4095), file(4096));
            assert_eq!(
                find(ok.as_bytes(), "h", None),
                Ok(("a".into(), "x".repeat(4095)))
            );
            assert_eq!(
                find(long.as_bytes(), "h", None),
                Err(NetrcError::SyntaxError)
            );
        }
    }

    #[test]
    fn control_character_where_a_token_starts_is_a_syntax_error() {
        let f = b"machine o login a password b \r\nmachine h login c password d\r\n";
        assert_eq!(find(f, "h", None), Err(NetrcError::SyntaxError));
        // Without the blank, the CR ends the token and the LF the line.
        let f = b"machine o login a password b\r\nmachine h login c password d\r\n";
        assert_eq!(find(f, "h", None), Ok(("c".into(), "d".into())));
    }

    #[test]
    fn lines_run_on_after_a_quoted_token() {
        // The character after a closing quote is skipped, whatever it is.
        let f = b"machine h login \"a\"Xpassword p\n";
        assert_eq!(find(f, "h", None), Ok(("a".into(), "p".into())));
    }

    #[test]
    fn load_drops_blanks_and_comments() {
        assert_eq!(
            loaded(b"  # machine h login x password y\n\tmachine h\n login a password p"),
            b"machine h\nlogin a password p\n"
        );
        assert_eq!(
            find(
                b"#machine h login x password y\nmachine h login a password p\n",
                "h",
                None
            ),
            Ok(("a".into(), "p".into()))
        );
    }

    #[test]
    fn load_keeps_curls_limits() {
        // 128 KiB of text kept is a syntax error; comments do not count.
        let mut f = b"machine h login a password p\n".repeat(4520);
        assert!(f.len() > MAX_FILE);
        assert_eq!(load(&f[..]), Err(NetrcError::SyntaxError));
        let mut c = b"# a comment line that is dropped when loaded\n".repeat(10_000);
        c.extend_from_slice(b"machine h login a password p\n");
        assert_eq!(find(&c, "h", None), Ok(("a".into(), "p".into())));
        // A line of 16 KiB ends the file there, without an error.
        f.truncate(29 * 10);
        f.extend_from_slice(&[b'x'; MAX_LINE - 1]);
        f.extend_from_slice(b"\nmachine z login z password z\n");
        let text = loaded(&f);
        assert_eq!(text.len(), 29 * 10);
        assert_eq!(lookup(&text, "z", None), Err(NetrcError::NoMatch));
        // One byte shorter is kept (blanks here, dropped when loaded: a token that long would
        // be a syntax error).
        let mut g = vec![b' '; MAX_LINE - 2];
        g.extend_from_slice(b"\nmachine z login z password z\n");
        assert_eq!(find(&g, "z", None), Ok(("z".into(), "z".into())));
    }

    #[test]
    fn load_reads_nul_bytes_as_curl_does() {
        // A NUL cuts the rest of fgets' piece, and the next line runs on from there.
        assert_eq!(
            loaded(b"machine h\0junk\n login a password p\n"),
            b"machine h login a password p\n"
        );
        // A NUL that starts a piece ends the file.
        assert_eq!(
            loaded(b"machine h login a password p\n\0machine z\n"),
            b"machine h login a password p\n"
        );
    }
}
