//! The listings of curl's own wildcard tests (its `tests/directories.pm`, Unix and DOS
//! forms) and what curl's parser makes of them (tests 576 and 1114 print every field).

use super::*;

/// (type, name, perm, hardlinks, size, time, DOS time) of curl's test directory.
const FILES: &[(char, &str, &str, u32, u64, &str, &str)] = &[
    (
        'd',
        ".",
        "rwxrwxrwx",
        4,
        20480,
        "Apr 27  5:12",
        "04-27-10  05:12AM",
    ),
    (
        'd',
        "..",
        "rwxrwxrwx",
        4,
        20480,
        "Apr 23  3:12",
        "04-23-10  03:12AM",
    ),
    (
        '-',
        "chmod1",
        "r--r--r--",
        1,
        38,
        "Jan 11 10:00",
        "01-11-10  10:00AM",
    ),
    (
        '-',
        "chmod2",
        "rw-rw-rw-",
        1,
        38,
        "Feb  1  8:00",
        "02-01-10  08:00AM",
    ),
    (
        '-',
        "chmod3",
        "rwxrwxrwx",
        1,
        38,
        "Feb  1  8:00",
        "02-01-10  08:00AM",
    ),
    (
        'd',
        "chmod4",
        "--S--S--t",
        1,
        4096,
        "May  4  4:31",
        "05-04-10  04:31AM",
    ),
    (
        'd',
        "chmod5",
        "--s--s--T",
        1,
        4096,
        "May  4  4:31",
        "05-04-10  04:31AM",
    ),
    (
        '-',
        "empty_file.dat",
        "rw-r--r--",
        1,
        0,
        "Apr 27 11:01",
        "04-27-10  11:01AM",
    ),
    (
        '-',
        "file.txt",
        "rw-r--r--",
        1,
        35,
        "Apr 27 11:01",
        "04-27-10  11:01AM",
    ),
    (
        'l',
        "link -> file.txt",
        "rwxrwxrwx",
        1,
        0,
        "Jan  6  4:42",
        "",
    ),
    (
        'l',
        "link_absolute -> /data/ftp/file.txt",
        "rwxrwxrwx",
        1,
        0,
        "Jan  6  4:45",
        "",
    ),
    (
        'd',
        ".NeXT",
        "rwxrwxrwx",
        4,
        4096,
        "Jan 23  2:05",
        "01-23-05  02:05AM",
    ),
    (
        '-',
        "someothertext.txt",
        "rw-r--r--",
        1,
        47,
        "Apr 27 11:01",
        "04-27-10  11:01AM",
    ),
    (
        'd',
        "weirddir.txt",
        "rwxr-xrwx",
        2,
        4096,
        "Apr 23  3:12",
        "04-23-10  03:12AM",
    ),
];

/// The Unix listing as curl's test server writes it.
fn unix_listing() -> Vec<u8> {
    let mut out = String::new();
    for (t, name, perm, hl, size, time, _) in FILES {
        out.push_str(&format!(
            "{t}{perm} {hl:4} ftp-default ftp-default {size:7} {time:>10} {name}\r\n"
        ));
    }
    out.into_bytes()
}

/// The DOS listing (no symlinks in it).
fn dos_listing() -> Vec<u8> {
    let mut out = String::new();
    for (t, name, _, _, size, _, dostime) in FILES.iter().filter(|f| f.0 != 'l') {
        let what = if *t == 'd' {
            "      <DIR>         ".to_string()
        } else {
            format!("{size:20}")
        };
        out.push_str(&format!("{dostime} {what} {name}\r\n"));
    }
    out.into_bytes()
}

#[test]
fn unix_listing_parses_as_curl_parses_it() {
    let (all, err) = parse_all(&unix_listing());
    assert_eq!(err, None);
    assert_eq!(all.len(), 14);
    let names: Vec<&[u8]> = all.iter().map(|f| &f.filename[..]).collect();
    assert_eq!(names[9], b"link");
    assert_eq!(names[10], b"link_absolute");
    assert_eq!(all[10].target.as_deref(), Some(&b"/data/ftp/file.txt"[..]));
    // Test 576's expected output: permissions in octal, sizes, types, times, owners.
    let perms: Vec<u32> = all.iter().map(|f| f.perm).collect();
    assert_eq!(
        perms,
        [
            0o777, 0o777, 0o444, 0o666, 0o777, 0o7001, 0o7110, 0o644, 0o644, 0o777, 0o777, 0o777,
            0o644, 0o757
        ]
    );
    for (f, want) in all.iter().zip(FILES) {
        assert_eq!(f.size, want.4 as i64, "{:?}", f.filename);
        assert_eq!(f.time, want.5.as_bytes());
        assert_eq!(f.perm_text.as_deref(), Some(want.2.as_bytes()));
        assert_eq!(f.user.as_deref(), Some(&b"ftp-default"[..]));
        assert_eq!(f.group.as_deref(), Some(&b"ftp-default"[..]));
        assert_eq!(f.hardlinks, i64::from(want.3));
        let t = match want.0 {
            'd' => FileType::Directory,
            'l' => FileType::Symlink,
            _ => FileType::File,
        };
        assert_eq!(f.filetype, t);
        assert_eq!(
            f.flags,
            flag::KNOWN_PERM | flag::KNOWN_HLINKCOUNT | flag::KNOWN_SIZE
        );
    }
}

#[test]
fn dos_listing_parses_as_curl_parses_it() {
    let (all, err) = parse_all(&dos_listing());
    assert_eq!(err, None);
    assert_eq!(all.len(), 12);
    assert_eq!(all[2].filename, b"chmod1");
    assert_eq!(all[2].time, b"01-11-10  10:00AM");
    assert_eq!(all[2].size, 38);
    assert_eq!(all[2].filetype, FileType::File);
    assert_eq!(all[0].filetype, FileType::Directory);
    assert_eq!(all[0].size, 0);
    assert_eq!(all[0].perm_text, None);
    assert_eq!(all[0].flags, flag::KNOWN_SIZE);
}

#[test]
fn pieces_of_any_size_give_the_same_entries() {
    for listing in [unix_listing(), dos_listing()] {
        let (whole, _) = parse_all(&listing);
        for step in [1, 2, 3, 7, 64] {
            let mut p = Parser::new();
            let mut got = Vec::new();
            for piece in listing.chunks(step) {
                p.feed(piece, &mut |f| got.push(f));
            }
            assert_eq!(p.error(), None);
            assert_eq!(got, whole, "pieces of {step}");
        }
    }
}

#[test]
fn lines_curl_refuses() {
    for bad in [
        &b"xrwxrwxrwx 1 u g 1 Jan  1 00:00 f\r\n"[..],
        b"-rwxrwxrwq 1 u g 1 Jan  1 00:00 f\r\n",
        b"-rwxrwxrwx  u g 1 Jan  1 00:00 f\r\n",
        b"-rwxrwxrwx 1 u g x Jan  1 00:00 f\r\n",
        b"-rwxrwxrwx 1 u g 1 Jan  1 00:00 f\rX",
        b"lrwxrwxrwx 1 u g 1 Jan  1 00:00 link\r\n",
        // curl 8.14.1 reads the line end after `total N` as the next entry's type.
        b"total 12\r\n-rwxrwxrwx 1 u g 1 Jan  1 00:00 f\r\n",
        b"01-01-10X 10:00AM 5 f\r\n",
        b"01-01-10  10:00XM 5 f\r\n",
        b"01-01-10  10:00AM x f\r\n",
    ] {
        let (_, err) = parse_all(bad);
        assert_eq!(
            err,
            Some(Code::FtpBadFileList),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn an_endless_entry_stops_at_curls_limit() {
    let mut p = Parser::new();
    let mut n = 0;
    let line = vec![b'a'; 4096];
    p.feed(b"-rwxrwxrwx 1 u g 1 Jan  1 00:00 ", &mut |_| n += 1);
    for _ in 0..4 {
        p.feed(&line, &mut |_| n += 1);
    }
    assert_eq!(p.error(), Some(Code::OutOfMemory));
    assert_eq!(n, 0);
    // An entry of 9,999 bytes is within it.
    let mut long = b"-rwxrwxrwx 1 u g 1 Jan  1 00:00 ".to_vec();
    long.resize(9_997, b'n');
    long.extend_from_slice(b"\r\n");
    assert_eq!(long.len(), 9_999);
    let (all, err) = parse_all(&long);
    assert_eq!((all.len(), err), (1, None));
}
