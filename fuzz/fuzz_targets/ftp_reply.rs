//! Fuzz the FTP wire pieces with arbitrary server replies, URL paths and ranges: no panics, and
//! every result within the range curl's parsers allow (a PWD name non-empty and at most
//! PWD_MAX bytes, sizes never negative, cut URL paths free of control bytes and empty
//! directories, a port range never upside down).
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxcurl_core::proto::ftp::{self, FileMethod};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4};

fuzz_target!(|data: &[u8]| {
    if ftp::pasv_reply(data).is_ok() {
        // "NNN " and the shortest six numbers, "0,0,0,0,0,0".
        assert!(data.len() >= 15);
    }
    let _ = ftp::epsv_reply(data);
    if let Ok(Some(dir)) = ftp::pwd_reply(data) {
        assert!(!dir.is_empty() && dir.len() <= ftp::PWD_MAX);
        assert!(!dir.contains(&0));
        let _ = ftp::pwd_needs_syst(&dir);
    }
    match ftp::parse_range(data) {
        // A length is at least one byte; a start from the end takes exactly those bytes.
        Ok((from, Some(len))) => {
            assert!(len >= 1);
            if from < 0 {
                assert_eq!(len, from.unsigned_abs());
            }
        }
        Ok((from, None)) => assert!(from >= 0),
        Err(_) => {}
    }
    let os = ftp::syst_reply(data);
    assert!(!os.contains(&b' ') && !os.contains(&0));
    let _ = ftp::is_os400(os);
    if let Some(size) = ftp::size_reply(data) {
        assert!(size >= 0);
        assert!(ftp::content_length_header(size).ends_with("\r\n"));
    }
    if let Some(size) = ftp::retr_size(data) {
        assert!(size >= 0);
    }
    if let Some(t) = ftp::mdtm_reply(data) {
        if let Some(h) = ftp::last_modified_header(t) {
            assert!(h.starts_with("Last-Modified: ") && h.ends_with(" GMT\r\n"));
        }
    }

    let text = String::from_utf8_lossy(data);
    for method in [
        FileMethod::MultiCwd,
        FileMethod::SingleCwd,
        FileMethod::NoCwd,
    ] {
        let Ok(p) = ftp::parse_url_path(&text, method, false) else {
            continue;
        };
        assert!(!p.raw.iter().any(|&c| c < 0x20));
        assert!(p.dirs.iter().all(|d| !d.is_empty()));
        match method {
            FileMethod::NoCwd => assert!(p.dirs.is_empty()),
            FileMethod::SingleCwd => assert!(p.dirs.len() <= 1),
            FileMethod::MultiCwd => {}
        }
        if let Some(f) = &p.file {
            assert!(!f.is_empty() && p.raw.ends_with(f));
            if method != FileMethod::NoCwd {
                assert!(!f.contains(&b'/'));
            }
        }
        let _ = p.cwd_done(method, Some(b""));
        let _ = p.remembered_dir(method);
        let cmd = p.list_command(method, None, data.len() % 2 == 0);
        assert!(cmd.starts_with(b"LIST") || cmd.starts_with(b"NLST"));
        assert!(!cmd.contains(&b'\r') && !cmd.contains(&b'\n'));
    }
    if let Ok(spec) = ftp::parse_port_spec(&text) {
        assert!(spec.port_min <= spec.port_max);
        assert!(spec.addr.is_none_or(|a| !a.is_empty() && a.len() < 50));
    }

    if data.len() >= 18 {
        let port = u16::from_be_bytes([data[16], data[17]]);
        let v4 = SocketAddrV4::new(Ipv4Addr::new(data[0], data[1], data[2], data[3]), port);
        let cmd = ftp::port_command(v4);
        assert_eq!(cmd.matches(',').count(), 5);
        let v6: [u8; 16] = data[..16].try_into().unwrap();
        for addr in [
            SocketAddr::V4(v4),
            SocketAddr::new(Ipv6Addr::from(v6).into(), port),
        ] {
            let cmd = ftp::eprt_command(addr);
            assert!(cmd.starts_with("EPRT |") && cmd.ends_with(&format!("|{port}|")));
        }
    }
});
