//! The order of transfers: curl 8.14.1's walk in `single_transfer` (tool_operate.c) over
//! the operations (`--next` groups), their URLs, the `-T` upload globs and the URL globs.
//! It hands out one transfer at a time, as curl creates them, so a glob error in a later
//! URL shows after the earlier transfers ran, and a glob of a million URLs is never held in
//! memory.
//!
//! For each URL, every upload file of its `-T` glob is sent to every URL of its glob (the
//! upload file outermost). Kept from curl: a URL without `-T` that follows one with a
//! `-T` glob in the same operation is fetched once per file of that glob.
//!
//! Does no I/O.

use crate::args::Config;
use crate::glob::{Glob, GlobError};

/// One transfer to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Index of the operation (`--next` group).
    pub op: usize,
    /// The URL's index on the command line, counted over all operations (`%{urlnum}`).
    pub urlnum: usize,
    pub url: String,
    /// `-o` name with `#N` filled in (`-` for stdout), before `--output-dir`.
    pub output: Option<String>,
    /// `-O`: name the file after the URL.
    pub remote_name: bool,
    /// `--no-remote-name` after `--remote-name-all`.
    pub no_remote: bool,
    /// The file to upload (`-T`), one of its glob's names.
    pub upload: Option<String>,
    /// The first transfer of its operation: `-D` starts its file afresh, later ones append.
    pub first_in_op: bool,
    /// A retry: the output file the earlier attempt opened, which curl keeps open, so this
    /// attempt writes on where that one stopped (or where the file was cut back).
    pub continue_output: Option<std::path::PathBuf>,
}

/// What comes next.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    Transfer(Target),
    /// `#N` made the output name empty: curl warns, and ends everything with a write
    /// error after reporting this transfer as failed.
    EmptyOutput(Target),
    /// A glob did not parse: curl reports it (the bytes to write) and stops with exit 3.
    GlobError(Vec<u8>),
    /// The operation had more `-o`/`-O`/`-T` than URLs: curl warns once, after its
    /// transfers.
    MoreOutputs,
    /// An operation without a URL (`URL --next` with nothing after): curl stops there
    /// with "no URL specified" (2).
    NoUrl,
}

/// curl's per-operation `State`.
#[derive(Default)]
struct State {
    /// Index of the URL in the operation.
    node: usize,
    /// Upload files per URL: the last `-T` glob's count, 1 to start with.
    infilenum: i64,
    /// Which upload file of the glob.
    up: i64,
    inglob: Option<Glob>,
    uploadfile: Option<String>,
    urls: Option<Glob>,
    /// The URL glob's count; 0 means "glob the URL (again)".
    urlcount: i64,
    /// Which URL of the glob.
    li: i64,
    /// A transfer of this operation was handed out.
    started: bool,
}

impl State {
    fn new() -> State {
        State {
            infilenum: 1,
            ..State::default()
        }
    }
}

/// The transfers of a command line, in curl's order.
pub struct Plan<'a> {
    cfg: &'a Config,
    op: usize,
    /// URLs of the operations before this one.
    urlnum_base: usize,
    state: State,
    done: bool,
    /// "Got more output options than URLs" was given (curl says it once).
    warned_outputs: bool,
}

impl<'a> Plan<'a> {
    pub fn new(cfg: &'a Config) -> Plan<'a> {
        Plan {
            cfg,
            op: 0,
            urlnum_base: 0,
            state: State::new(),
            done: false,
            warned_outputs: false,
        }
    }

    /// Nothing more of the current operation: go on with the next one (curl's way when
    /// the `--etag-save` file cannot be created).
    pub fn skip_operation(&mut self) {
        if let Some(op) = self.cfg.ops.get(self.op) {
            self.urlnum_base += op.urls.len();
            self.op += 1;
            self.state = State::new();
        }
    }

    fn fail(&mut self, e: &GlobError, text: &str) -> Option<Step> {
        self.done = true;
        Some(Step::GlobError(e.report(text)))
    }
}

impl Iterator for Plan<'_> {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        loop {
            if self.done {
                return None;
            }
            let op = self.cfg.ops.get(self.op)?;
            if op.urls.is_empty() {
                self.done = true;
                return Some(Step::NoUrl);
            }
            let st = &mut self.state;
            let Some(spec) = op.urls.get(st.node) else {
                let warn = op.unused_outputs && !self.warned_outputs;
                self.warned_outputs |= warn;
                self.urlnum_base += op.urls.len();
                self.op += 1;
                self.state = State::new();
                if warn {
                    return Some(Step::MoreOutputs);
                }
                continue;
            };
            let infile = spec.upload.as_deref().filter(|f| !f.is_empty());
            if let Some(f) = infile {
                if !op.globoff && st.inglob.is_none() {
                    match Glob::parse(f) {
                        Ok(g) => {
                            st.infilenum = g.count();
                            st.inglob = Some(g);
                        }
                        Err(e) => return self.fail(&e, f),
                    }
                }
            }
            if (st.up > 0 || infile.is_some()) && st.uploadfile.is_none() {
                if let Some(g) = &mut st.inglob {
                    st.uploadfile = g.next_url();
                } else if st.up == 0 {
                    st.uploadfile = infile.map(str::to_string);
                }
            }
            // `-g`, or a URL read with `--url @file`: taken as it is.
            // A URL without brackets or braces globs to itself: skip building its glob.
            let noglob = op.globoff
                || spec.noglob
                || !spec
                    .url
                    .bytes()
                    .any(|b| matches!(b, b'{' | b'}' | b'[' | b']'));
            let count = if st.urlcount == 0 && !noglob {
                match Glob::parse(&spec.url) {
                    Ok(g) => {
                        st.urlcount = g.count();
                        st.urls = Some(g);
                    }
                    Err(e) => return self.fail(&e, &spec.url),
                }
                st.urlcount
            } else if noglob {
                1
            } else {
                st.urlcount
            };
            if st.up >= st.infilenum {
                // This URL is done.
                st.urls = None;
                st.urlcount = 0;
                st.uploadfile = None;
                st.inglob = None;
                st.up = 0;
                st.node += 1;
                continue;
            }
            let url = match &mut st.urls {
                Some(g) => g.next_url(),
                None if st.li == 0 => Some(spec.url.clone()),
                None => None,
            };
            let mut empty = false;
            let output = match (&spec.output, &st.urls) {
                (Some(o), Some(g)) if !spec.remote_name && o != "-" => {
                    let name = g.match_output(o);
                    empty = name.is_empty();
                    Some(name)
                }
                (o, _) => o.clone(),
            };
            let upload = st.uploadfile.clone();
            st.li += 1;
            if st.li >= count {
                st.li = 0;
                st.urlcount = 0;
                st.urls = None;
                st.up += 1;
                st.uploadfile = None;
            }
            let Some(url) = url else { continue };
            let t = Target {
                op: self.op,
                urlnum: self.urlnum_base + st.node,
                url,
                output,
                remote_name: spec.remote_name,
                no_remote: spec.no_remote,
                upload,
                first_in_op: !st.started,
                continue_output: None,
            };
            st.started = true;
            if empty {
                self.done = true;
                return Some(Step::EmptyOutput(t));
            }
            return Some(Step::Transfer(t));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(args: &[&str]) -> Vec<String> {
        let argv: Vec<String> = std::iter::once("-q")
            .chain(args.iter().copied())
            .map(str::to_string)
            .collect();
        let cfg = crate::args::parse(&argv).expect("parses");
        Plan::new(&cfg)
            .map(|s| match s {
                Step::Transfer(t) => format!(
                    "{} {} {}{}{}",
                    t.urlnum,
                    t.url,
                    t.output.as_deref().unwrap_or("-"),
                    if t.remote_name { " O" } else { "" },
                    t.upload.map(|u| format!(" T={u}")).unwrap_or_default()
                ),
                Step::EmptyOutput(t) => format!("empty {}", t.url),
                Step::GlobError(e) => String::from_utf8_lossy(&e).into_owned(),
                Step::NoUrl => "no URL".to_string(),
                Step::MoreOutputs => "more outputs".to_string(),
            })
            .collect()
    }

    #[test]
    fn urls_expand_in_place() {
        assert_eq!(
            plan(&["h/{a,b}", "-o", "f#1", "h/c"]),
            ["0 h/a fa", "0 h/b fb", "1 h/c -"]
        );
    }

    #[test]
    fn globoff_keeps_brackets_and_hashes() {
        assert_eq!(plan(&["-g", "h/{a,b}", "-o", "f#1"]), ["0 h/{a,b} f#1"]);
    }

    #[test]
    fn outputs_pair_with_urls() {
        assert_eq!(
            plan(&["-o", "x#1", "h/[1-2]", "-O", "h/{c,d}", "-o", "-", "h/[3-3]"]),
            ["0 h/1 x1", "0 h/2 x2", "1 h/c - O", "1 h/d - O", "2 h/3 -"]
        );
    }

    #[test]
    fn uploads_outermost() {
        assert_eq!(
            plan(&["-T", "{a,b}", "h/x[1-2]"]),
            [
                "0 h/x1 - T=a",
                "0 h/x2 - T=a",
                "0 h/x1 - T=b",
                "0 h/x2 - T=b"
            ]
        );
    }

    #[test]
    fn a_url_after_an_upload_glob_repeats() {
        assert_eq!(
            plan(&["-T", "{a,b}", "h/up/", "h/z"]),
            ["0 h/up/ - T=a", "0 h/up/ - T=b", "1 h/z -", "1 h/z -"]
        );
        assert_eq!(
            plan(&["-T", "{a,b}", "h/up/", "--next", "h/z"]),
            ["0 h/up/ - T=a", "0 h/up/ - T=b", "1 h/z -"]
        );
        assert_eq!(
            plan(&["-T", "{a,b}", "-T", "c", "h/1/", "h/2/", "h/3"]),
            ["0 h/1/ - T=a", "0 h/1/ - T=b", "1 h/2/ - T=c", "2 h/3 -"]
        );
    }

    #[test]
    fn errors_stop_the_plan() {
        let v = plan(&["h/a", "h/{b", "h/c"]);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0], "0 h/a -");
        assert!(v[1].starts_with("curl: (3) unmatched brace in URL position 3:\n"));
        let v = plan(&["-T", "[1-", "h/"]);
        assert_eq!(
            v,
            ["curl: (3) bad range in URL position 4:\n[1-\n   ^\n".to_string()]
        );
        assert_eq!(
            plan(&["h/{a,}", "-o", "#1", "h/z"]),
            ["0 h/a a", "empty h/"]
        );
    }

    #[test]
    fn first_transfer_of_each_operation_is_marked() {
        let argv: Vec<String> = ["-q", "h/{a,b}", "h/c", "--next", "h/d"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let cfg = crate::args::parse(&argv).unwrap();
        let firsts: Vec<bool> = Plan::new(&cfg)
            .map(|s| match s {
                Step::Transfer(t) => t.first_in_op,
                _ => panic!("{s:?}"),
            })
            .collect();
        assert_eq!(firsts, [true, false, false, true]);
    }

    #[test]
    fn an_operation_without_url_stops_the_plan() {
        assert_eq!(plan(&["h/a", "--next"]), ["0 h/a -", "no URL"]);
    }

    #[test]
    fn more_outputs_than_urls_is_said_once() {
        assert_eq!(
            plan(&["h/a", "-o", "x", "-o", "y", "--next", "h/b", "-T", "f", "-T", "g"]),
            ["0 h/a x", "more outputs", "1 h/b - T=f"]
        );
    }

    #[test]
    fn a_zero_count_glob_still_makes_one_transfer() {
        assert_eq!(plan(&["h/[0-9223372036854775807]"]), ["0 h/0 -"]);
    }
}
