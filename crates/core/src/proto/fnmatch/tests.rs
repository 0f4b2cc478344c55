//! Against glibc: `glibc.txt` holds patterns and names (curl's wildcard test patterns and
//! 3,000 random ones over the bytes that matter: `*?[]!^-\:` and letters) with what glibc's
//! `fnmatch(pattern, name, 0)` answered, in the C locale.

use super::*;

fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn matches_as_glibc_matches() {
    let mut n = 0;
    let mut failures = Vec::new();
    for line in include_str!("glibc.txt").lines() {
        if line.starts_with('#') {
            continue;
        }
        let mut f = line.split(' ');
        let (p, s, want) = (
            unhex(f.next().unwrap()),
            unhex(f.next().unwrap()),
            f.next().unwrap() == "1",
        );
        n += 1;
        if fnmatch(&p, &s) != want {
            failures.push(format!(
                "{:?} {:?}: glibc says {want}",
                String::from_utf8_lossy(&p),
                String::from_utf8_lossy(&s)
            ));
        }
    }
    assert!(n >= 3000);
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn curls_wildcard_test_patterns() {
    assert!(fnmatch(b"*.txt", b"file.txt"));
    assert!(fnmatch(b"*.txt", b"weirddir.txt"));
    assert!(!fnmatch(b"*.txt", b"chmod1"));
    assert!(fnmatch(b"*", b".NeXT"));
    // Tests 1162 and 1163: patterns that match nothing there.
    for name in [&b"chmod1"[..], b"file.txt", b"someothertext.txt"] {
        assert!(!fnmatch(b"[*\\s-'tl", name));
        assert!(!fnmatch(b"*[][", name));
    }
}

#[test]
fn a_hostile_name_stays_cheap() {
    let pattern = b"*a*a*a*a*a*a*a*a*a*a*b";
    let name = vec![b'a'; 100_000];
    let t = std::time::Instant::now();
    assert!(!fnmatch(pattern, &name));
    // Generous: the point is that it is not exponential.
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
}
