//! `--proto` and `--proto-redir` (curl's `proto2num` in `tool_paramhlp.c`): a comma-separated
//! list of protocol names, each with `+` (add, the default), `-` (remove) or `=` (exactly
//! this) in front, `all` for every protocol. Turns the list into the set of names handed to
//! the engine. Does no I/O: unknown names come back for the caller to warn about.

use oxcurl_core::scheme::{self, SCHEMES};

/// Whether `name` is a protocol name curl 8.14.1 knows: one of libcurl's schemes (the scheme
/// table, served here or not), as curl's tool finds it in `curl_version_info`'s list. `ipfs`
/// and `ipns` are the tool's own and not among them.
pub fn known(name: &str) -> bool {
    scheme::find(name).is_some()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Allow,
    Deny,
    Set,
}

/// Apply `spec` to `start` (the set before the list); returns the new set and the names
/// that were not recognised, in order.
pub fn parse(spec: &str, start: &[String]) -> (Vec<String>, Vec<String>) {
    let mut on: Vec<bool> = SCHEMES
        .iter()
        .map(|k| start.iter().any(|s| s.eq_ignore_ascii_case(k.name)))
        .collect();
    let mut unknown = Vec::new();
    // strtok: empty tokens between commas are skipped.
    for token in spec.split(',').filter(|t| !t.is_empty()) {
        let mut action = Action::Allow;
        let mut name = token;
        while let Some(c) = name.chars().next() {
            action = match c {
                '=' => Action::Set,
                '-' => Action::Deny,
                '+' => Action::Allow,
                _ => break,
            };
            name = &name[1..];
        }
        if name.eq_ignore_ascii_case("all") {
            let v = action != Action::Deny;
            on.iter_mut().for_each(|b| *b = v);
            continue;
        }
        match SCHEMES
            .iter()
            .position(|k| k.name.eq_ignore_ascii_case(name))
        {
            Some(i) => match action {
                Action::Allow => on[i] = true,
                Action::Deny => on[i] = false,
                Action::Set => {
                    on.iter_mut().for_each(|b| *b = false);
                    on[i] = true;
                }
            },
            None => {
                if action == Action::Set {
                    on.iter_mut().for_each(|b| *b = false);
                }
                unknown.push(name.to_string());
            }
        }
    }
    let set = SCHEMES
        .iter()
        .zip(on)
        .filter(|(_, b)| *b)
        .map(|(k, _)| k.name.to_string())
        .collect();
    (set, unknown)
}

/// Every known protocol, the starting set of `--proto`.
pub fn all() -> Vec<String> {
    SCHEMES.iter().map(|s| s.name.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(spec: &str) -> (Vec<String>, Vec<String>) {
        parse(spec, &all())
    }

    #[test]
    fn set_allow_deny() {
        assert_eq!(p("=https").0, vec!["https"]);
        assert_eq!(p("-all,+http,https").0, vec!["http", "https"]);
        assert!(!p("-http").0.contains(&"http".to_string()));
        assert_eq!(p("all").0.len(), SCHEMES.len());
        assert_eq!(p("=HTTP").0, vec!["http"]);
    }

    #[test]
    fn unknown_names() {
        let (set, unk) = p("=foo,https");
        assert_eq!(set, vec!["https"]);
        assert_eq!(unk, vec!["foo"]);
        let (set, unk) = p("http,=");
        assert!(set.is_empty());
        assert_eq!(unk, vec![""]);
        let (set, unk) = p(" =https");
        assert_eq!(set.len(), SCHEMES.len());
        assert_eq!(unk, vec![" =https"]);
    }
}
