//! `--help` and `--version` output, generated from the option table.

use crate::args::{Kind, OPTIONS};

const CATEGORIES: &[(&str, &str)] = &[
    ("auth", "Authentication methods"),
    ("connection", "Manage connections"),
    ("curl", "The command line tool itself"),
    ("dns", "Names and resolving"),
    ("file", "FILE protocol"),
    ("http", "HTTP and HTTPS protocol"),
    ("important", "Important options"),
    ("output", "Filesystem output"),
    ("post", "HTTP POST specific"),
    ("proxy", "Options for proxies"),
    ("timeout", "Timeouts and delays"),
    ("upload", "Upload, sending data"),
    ("verbose", "Tracing, logging etc"),
];

fn line(o: &crate::args::Opt, width: usize) -> String {
    let short = match o.short {
        Some(c) => format!(" -{c}, "),
        None => "     ".to_string(),
    };
    let mut left = format!("{short}--{}", o.long);
    if o.kind == Kind::Arg || !o.arg.is_empty() {
        left.push(' ');
        left.push_str(o.arg);
    }
    format!("{left:<width$} {}\n", o.help)
}

/// The text `-h` prints for a topic (None: the important options).
pub fn help(topic: Option<&str>) -> String {
    let mut s = String::from("Usage: curl [options...] <url>\n");
    match topic {
        None => {
            for o in OPTIONS
                .iter()
                .filter(|o| o.cats.split(' ').any(|c| c == "important"))
            {
                s.push_str(&line(o, 28));
            }
            s.push_str("\nThis is not the full help; this menu is split into categories.\n");
            s.push_str(
                "Use \"--help category\" to get an overview of all categories, which are:\n",
            );
            let names: Vec<&str> = CATEGORIES
                .iter()
                .map(|c| c.0)
                .filter(|c| *c != "important")
                .collect();
            s.push_str(&names.join(", "));
            s.push_str(".\nUse \"--help all\" to list all options\n");
            s.push_str("Use \"--help [option]\" to view documentation for a given option\n");
        }
        Some("all") => {
            for o in OPTIONS {
                s.push_str(&line(o, 34));
            }
        }
        Some("category") => {
            for (c, d) in CATEGORIES {
                s.push_str(&format!("{c:<11} {d}\n"));
            }
        }
        Some(cat) => {
            if let Some((_, d)) = CATEGORIES.iter().find(|c| c.0 == cat) {
                s = format!("{d}\n");
                for o in OPTIONS
                    .iter()
                    .filter(|o| o.cats.split(' ').any(|c| c == cat))
                {
                    s.push_str(&line(o, 34));
                }
            } else {
                let name = cat.trim_start_matches('-');
                match crate::args::find_long(name) {
                    Some(o) => s = line(o, 34),
                    None => {
                        s = format!(
                            "Unknown category provided, here is a list of all categories:\n\n{}",
                            help(Some("category"))
                        )
                    }
                }
            }
        }
    }
    s
}

/// `-V`: curl's format, listing only what is really built in.
pub fn version() -> String {
    format!(
        "curl {v} (x86_64-pc-linux-gnu) libcurl/{v} {tls} oxcurl/{o}\n\
         Release-Date: 2025-06-04\n\
         Protocols: http https\n\
         Features: AsynchDNS brotli HSTS HTTP2 HTTPS-proxy IPv6 Largefile libz MultiSSL NTLM PSL SSL UnixSockets zstd\n\
         oxcurl {o}: curl {v} compatible, written in Rust\n",
        v = oxcurl_core::LIBCURL_VERSION,
        o = oxcurl_core::OXCURL_VERSION,
        tls = oxcurl_core::tls::version_string()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_option_is_in_help_all() {
        let all = super::help(Some("all"));
        for o in crate::args::OPTIONS {
            assert!(all.contains(&format!("--{}", o.long)), "{}", o.long);
        }
    }
}
