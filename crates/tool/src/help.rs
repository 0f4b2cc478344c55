//! `--help` and `--version` output, generated from the option table.

use crate::args::{Kind, Opt, OPTIONS};

/// curl's help categories, in the order `--help` lists them ("important" is the default view).
const CATEGORIES: &[(&str, &str)] = &[
    ("auth", "Authentication methods"),
    ("connection", "Manage connections"),
    ("curl", "The command line tool itself"),
    ("deprecated", "Legacy"),
    ("dns", "Names and resolving"),
    ("file", "FILE protocol"),
    ("ftp", "FTP protocol"),
    ("global", "Global options"),
    ("http", "HTTP and HTTPS protocol"),
    ("imap", "IMAP protocol"),
    ("ldap", "LDAP protocol"),
    ("output", "Filesystem output"),
    ("pop3", "POP3 protocol"),
    ("post", "HTTP POST specific"),
    ("proxy", "Options for proxies"),
    ("scp", "SCP protocol"),
    ("sftp", "SFTP protocol"),
    ("smtp", "SMTP protocol"),
    ("ssh", "SSH protocol"),
    ("telnet", "TELNET protocol"),
    ("tftp", "TFTP protocol"),
    ("timeout", "Timeouts and delays"),
    ("tls", "TLS/SSL related"),
    ("upload", "Upload, sending data"),
    ("verbose", "Tracing, logging etc"),
];

/// The name an option is listed under: `no-clobber` for an option that is on by default.
fn shown_name(o: &Opt) -> String {
    if o.kind == Kind::NoBool {
        format!("no-{}", o.long)
    } else {
        o.long.to_string()
    }
}

/// The option column of a help line: `-d, --data <data>` or `    --anyauth`.
fn opt_text(o: &Opt) -> String {
    let mut s = match o.short {
        Some(c) => format!("-{c}, --{}", shown_name(o)),
        None => format!("    --{}", shown_name(o)),
    };
    if !o.arg.is_empty() {
        s.push(' ');
        s.push_str(o.arg);
    }
    s
}

/// The options of one category (aliases have none), sorted by the name they are listed under.
fn listed(cat: Option<&str>) -> Vec<&'static Opt> {
    let mut v: Vec<&Opt> = OPTIONS
        .iter()
        .filter(|o| !o.cats.is_empty())
        .filter(|o| cat.is_none_or(|c| o.cats.split(' ').any(|x| x == c)))
        .collect();
    v.sort_by_key(|o| shown_name(o));
    v
}

/// curl's `print_category`: one column for the options, as wide as the widest unless that
/// leaves too little room for the longest description in `cols` columns.
fn print_category(opts: &[&Opt], cols: usize, s: &mut String) {
    let texts: Vec<String> = opts.iter().map(|o| opt_text(o)).collect();
    let mut longopt = texts.iter().map(|t| t.len()).max().unwrap_or(0).max(5);
    let longdesc = opts.iter().map(|o| o.help.len()).max().unwrap_or(0).max(5);
    // curl computes in size_t: a description wider than the screen wraps the arithmetic
    // around, and printf takes the width as an int (negative: its absolute value).
    if longopt + longdesc > cols {
        longopt = cols.wrapping_sub(longdesc);
    }
    for (o, t) in opts.iter().zip(texts) {
        let desclen = o.help.len();
        let mut w = longopt;
        if w.wrapping_add(desclen) >= cols.wrapping_sub(2) {
            w = if desclen < cols.wrapping_sub(2) {
                cols.wrapping_sub(3).wrapping_sub(desclen)
            } else {
                0
            };
        }
        let w = (w as u32 as i32).unsigned_abs() as usize;
        s.push_str(&format!(" {t:<w$}  {}\n", o.help));
    }
}

/// curl's `get_categories_list`: the category names as a comma list wrapped at `cols`.
fn categories_list(cols: usize, s: &mut String) {
    let mut col = 0;
    for (i, (name, _)) in CATEGORIES.iter().enumerate() {
        let len = name.len();
        if i + 1 == CATEGORIES.len() {
            if col + len + 1 < cols {
                s.push_str(&format!("{name}.\n"));
            } else {
                s.push_str(&format!("\n{name}.\n"));
            }
        } else if col + len + 2 < cols {
            s.push_str(&format!("{name}, "));
            col += len + 2;
        } else {
            s.push_str(&format!("\n{name}, "));
            col = len + 2;
        }
    }
}

/// The screen width as curl takes it when stdin is not a terminal: `COLUMNS`, else 79.
fn columns() -> usize {
    crate::progress::columns_env(std::env::var("COLUMNS").ok().as_deref()).unwrap_or(79)
}

/// The text `-h` prints for a topic (None: the important options); Err: the text for
/// stderr when the topic names no option.
pub fn help(topic: Option<&str>) -> Result<String, String> {
    help_at(topic, columns())
}

fn help_at(topic: Option<&str>, cols: usize) -> Result<String, String> {
    let mut s = String::new();
    match topic {
        None => {
            s.push_str("Usage: curl [options...] <url>\n");
            print_category(&listed(Some("important")), cols, &mut s);
            s.push_str("\nThis is not the full help; this menu is split into categories.\n");
            s.push_str(
                "Use \"--help category\" to get an overview of all categories, which are:\n",
            );
            categories_list(cols, &mut s);
            s.push_str("Use \"--help all\" to list all options\n");
            s.push_str("Use \"--help [option]\" to view documentation for a given option\n");
        }
        Some("all") => print_category(&listed(None), cols, &mut s),
        Some("category") => {
            for (c, d) in CATEGORIES {
                s.push_str(&format!(" {c:<11} {d}\n"));
            }
        }
        // With a built-in manual, curl shows the option's entry in it.
        Some(cat) if cat.starts_with('-') => match help_option(cat) {
            Some(o) => manual_entry(o, &mut s),
            None => return Err("Incorrect option name to show help for, see curl -h\n".into()),
        },
        // curl compares category names without regard to case (`curl_strequal`).
        Some(cat) => match CATEGORIES.iter().find(|c| c.0.eq_ignore_ascii_case(cat)) {
            Some((name, d)) => {
                s.push_str(&format!("{name}: {d}\n"));
                print_category(&listed(Some(name)), cols, &mut s);
            }
            None => {
                s.push_str("Unknown category provided, here is a list of all categories:\n\n");
                s.push_str(&help_at(Some("category"), cols)?);
            }
        },
    }
    Ok(s)
}

/// One option's entry in the manual: its name and argument, then its description and help
/// categories indented by a tab, then a blank line.
fn manual_entry(o: &Opt, s: &mut String) {
    s.push_str("    ");
    s.push_str(opt_text(o).trim_start());
    s.push_str("\n\t    ");
    s.push_str(o.help);
    s.push_str(".\n\t    Category: ");
    let cats: Vec<&str> = o.cats.split(' ').filter(|c| *c != "important").collect();
    s.push_str(&cats.join(", "));
    s.push_str(".\n\n");
}

/// The option `-h --NAME` or `-h -X` asks about, found as curl's `tool_help` finds it: a
/// `no-` prefix only for a switch, a short option alone; None when there is none.
fn help_option(arg: &str) -> Option<&'static Opt> {
    use crate::args::{find_long, find_short};
    let o = match arg.strip_prefix("--") {
        Some(l) => match l.strip_prefix("no-") {
            Some(rest) => match find_long(rest) {
                Some(o) if matches!(o.kind, Kind::Bool | Kind::NoBool) => Some(o),
                Some(_) => None,
                None => find_long(l),
            },
            None => find_long(l),
        },
        None => {
            let mut chars = arg.chars().skip(1);
            match (chars.next(), chars.next()) {
                (Some(c), None) => find_short(c),
                _ => None,
            }
        }
    }?;
    // A switch listed by its `--no-` form (`--buffer` is in the manual as `--no-buffer`).
    if o.cats.is_empty() {
        return crate::args::find_long(&format!("no-{}", o.long)).filter(|n| !n.cats.is_empty());
    }
    Some(o)
}

/// `-M`: the built-in manual, made from the option table: a short introduction, then every
/// listed option with its one-line description and the help categories it is shown under.
pub fn manual() -> String {
    let mut s = String::from(
        "NAME\n\n    curl - transfer a URL (oxcurl, compatible with curl 8.14.1)\n\n\
         SYNOPSIS\n\n    curl [options / URLs]\n\n\
         DESCRIPTION\n\n    \
         Transfers data from or to a server named by a URL, over HTTP or HTTPS (HTTP/1.1\n    \
         and HTTP/2, with proxies). Options and URLs can be given in any order; the\n    \
         URLs are fetched one after the other unless --parallel is used. Options can\n    \
         also be read from a config file (--config, or .curlrc in the home directory).\n\n    \
         Most switches can be turned off again with --no- before their name.\n    \
         \"curl --help category\" lists the options by category.\n\n\
         OPTIONS\n\n",
    );
    for o in listed(None) {
        manual_entry(o, &mut s);
    }
    s.push_str(
        "EXIT CODES\n\n    \
         0 when every transfer succeeded; otherwise the code of the last failure, as curl's\n    \
         (for example 6: could not resolve the host, 7: could not connect, 22: HTTP error\n    \
         with --fail, 28: timeout).\n\n\
         AUTHORS\n\n    \
         The oxcurl developers. The options, their behaviour and the exit codes follow\n    \
         curl 8.14.1 by Daniel Stenberg and the curl contributors.\n",
    );
    s
}

/// `-V`'s protocols: those this build serves, from the scheme table, as curl's tool lists
/// them (the `rtmp` variants only as `rtmp`).
fn protocols_line() -> String {
    use oxcurl_core::scheme;
    let names: Vec<&str> = scheme::served()
        .map(|s| s.name)
        .filter(|n| !scheme::hidden_in_version(n))
        .collect();
    names.join(" ")
}

/// `-V`: curl's format, listing only what is really built in.
pub fn version() -> String {
    format!(
        "curl {v} (x86_64-pc-linux-gnu) {line}\n\
         Release-Date: 2025-06-04\n\
         Protocols: {p}\n\
         Features: {f}\n\
         oxcurl {o}: curl {v} compatible, written in Rust\n",
        v = oxcurl_core::LIBCURL_VERSION,
        p = protocols_line(),
        f = oxcurl_core::features_line(),
        o = oxcurl_core::OXCURL_VERSION,
        line = oxcurl_core::version_line()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_listed_option_is_in_help_all() {
        let all = super::help_at(Some("all"), 79).expect("help all");
        for o in crate::args::OPTIONS.iter().filter(|o| !o.cats.is_empty()) {
            let name = super::shown_name(o);
            assert!(
                all.contains(&format!("--{name} ")) || all.contains(&format!("--{name}\n")),
                "{name}"
            );
        }
    }

    #[test]
    fn manual_describes_every_listed_option() {
        let man = super::manual();
        assert!(man.starts_with("NAME\n"));
        // runtests.pl takes this sentence as "no manual" and expects another help hint.
        assert!(!man.contains("built-in manual was disabled"));
        for o in crate::args::OPTIONS.iter().filter(|o| !o.cats.is_empty()) {
            let name = super::shown_name(o);
            let entry = format!("--{name}");
            let at = man
                .find(&format!("{entry} "))
                .or_else(|| man.find(&format!("{entry}\n")));
            let at = at.unwrap_or_else(|| panic!("{name} missing"));
            assert!(man[at..].contains(o.help), "{name}: description");
        }
    }

    #[test]
    fn category_list_wraps_like_curl() {
        let mut s = String::new();
        super::categories_list(40, &mut s);
        assert_eq!(
            s,
            "auth, connection, curl, deprecated, \ndns, file, ftp, global, http, imap, \n\
             ldap, output, pop3, post, proxy, scp, \nsftp, smtp, ssh, telnet, tftp, \n\
             timeout, tls, upload, verbose.\n"
        );
    }
}
