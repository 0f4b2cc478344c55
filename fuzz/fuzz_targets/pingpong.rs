//! Fuzz the pingpong reader with arbitrary server bytes in arbitrary chunks, through each
//! protocol's end-of-response check: no panics, the reader never holds more than its limit,
//! every line ends at LF, a response's size is the sum of its lines, FTP and SMTP codes
//! have three digits, and how the bytes are cut never changes what comes out. The bytes
//! also go out as a command argument: refused exactly when they hold a CR or LF.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::pingpong::{
    EndOfResp, Event, Ftp, Imap, Plus, Pop3, Reader, Sender, Smtp, Untagged, MAX_LINE,
};

/// Each line and the code that ended a response; true when the reader failed.
type Seen = (Vec<(Vec<u8>, Option<u32>)>, bool);

/// Feed `data` in chunks of the sizes in `cuts` (cycling; none: all at once).
fn run(check: &mut dyn EndOfResp, data: &[u8], cuts: &[u8]) -> Seen {
    let mut r = Reader::new();
    let mut seen = Vec::new();
    let mut size = 0;
    let mut rest = data;
    for i in 0.. {
        if rest.is_empty() {
            break;
        }
        let n = match cuts {
            [] => rest.len(),
            _ => (usize::from(cuts[i % cuts.len()]) + 1).min(rest.len()),
        };
        let (mut chunk, tail) = rest.split_at(n);
        rest = tail;
        while !chunk.is_empty() {
            chunk = &chunk[r.feed(chunk)..];
            assert!(r.unread().len() <= MAX_LINE);
            loop {
                let ev = match r.next(check) {
                    Ok(Some(ev)) => ev,
                    Ok(None) => break,
                    Err(_) => return (seen, true),
                };
                let line = ev.line();
                assert!(line.ends_with(b"\n") && line.len() <= MAX_LINE);
                assert!(!line[..line.len() - 1].contains(&b'\n'));
                size += line.len();
                let code = match ev {
                    Event::End { code, size: s, .. } => {
                        assert_eq!(s, size);
                        size = 0;
                        Some(code)
                    }
                    Event::Line(_) => None,
                };
                seen.push((line.to_vec(), code));
            }
        }
    }
    (seen, false)
}

/// Run `check` on `body` whole and cut; both must agree.
fn both(check: &mut dyn EndOfResp, body: &[u8], cuts: &[u8]) -> Seen {
    let whole = run(check, body, &[]);
    let cut = run(check, body, cuts);
    assert_eq!(whole, cut);
    whole
}

fn three_digit_codes(seen: &Seen) {
    for (_, code) in &seen.0 {
        assert!(code.is_none_or(|c| c < 1000));
    }
}

fuzz_target!(|data: &[u8]| {
    let [sel, ncuts, rest @ ..] = data else {
        return;
    };
    let (cuts, body) = rest.split_at(usize::from(ncuts % 16).min(rest.len()));

    three_digit_codes(&both(&mut Ftp, body, cuts));
    let mut smtp = Smtp {
        multiline: sel & 1 != 0,
    };
    three_digit_codes(&both(&mut smtp, body, cuts));
    both(&mut Pop3 { capa: sel & 2 != 0 }, body, cuts);
    let mut imap = Imap {
        tag: if sel & 64 != 0 { "*" } else { "A001" }.into(),
        untagged: match (sel >> 2) & 3 {
            0 => Untagged::Ignore,
            1 => Untagged::Any,
            2 => Untagged::Named("FETCH".into()),
            _ => Untagged::StoreOrFetch,
        },
        plus: match (sel >> 4) & 3 {
            0 => Plus::Expected,
            1 => Plus::Unexpected,
            _ => Plus::Ignored,
        },
    };
    both(&mut imap, body, cuts);

    let mut s = Sender::new();
    let crlf = body.contains(&b'\r') || body.contains(&b'\n');
    match s.send("CMD", Some(body)) {
        Ok(()) => {
            assert!(!crlf);
            assert_eq!(s.output(), [b"CMD ", body, b"\r\n"].concat());
            for &c in cuts.iter().cycle().take(body.len() + 6) {
                if s.sent(usize::from(c) + 1) {
                    break;
                }
            }
            assert!(cuts.is_empty() || !s.is_pending());
        }
        Err(_) => assert!(crlf || body.len() + 6 > MAX_LINE),
    }
});
