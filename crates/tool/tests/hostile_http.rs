//! Hostile HTTP/1 servers: each case compares oxcurl's exit code, message and output with
//! the reference curl 8.14.1 on the same scripted server, and checks that oxcurl's run ends
//! by itself with bounded heap and RSS (see `oxcurl_testsupport::hostile`).
//!
//! Already covered elsewhere (diff_errors.rs) and not repeated here: garbage status digits,
//! HTTP/0.9, cut-short headers and chunks, bad chunk hex, conflicting and negative
//! Content-Length, a server that never answers (`-m`), `--max-filesize` with a length.

use std::io::Write;
use std::time::Duration;

use oxcurl_testsupport::diff::mask_digits;
use oxcurl_testsupport::hostile::Hostile;
use oxcurl_testsupport::{Exec, Reply, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");
const ALLOC_COUNT: bool = cfg!(feature = "alloc-count");

fn hostile(name: &str) -> Hostile {
    Hostile::new(name, ALLOC_COUNT)
}

fn raw(bytes: impl AsRef<[u8]>) -> Reply {
    Reply::raw(bytes).close()
}

// ---- oversized heads ------------------------------------------------------------

#[test]
fn header_line_of_one_mib() {
    let mut head = b"HTTP/1.1 200 OK\r\nX-Big: ".to_vec();
    head.extend(std::iter::repeat_n(b'a', 1 << 20));
    head.extend_from_slice(b"\r\nContent-Length: 2\r\n\r\nok");
    hostile("header_line_of_one_mib")
        .case(|c| c.args(&["-sS", "{url}/"]).reply(raw(head)))
        .run(OXCURL);
}

#[test]
fn hundred_thousand_headers() {
    let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
    for i in 0..100_000 {
        write!(head, "X-H{i}: v\r\n").unwrap();
    }
    head.extend_from_slice(b"Content-Length: 2\r\n\r\nok");
    hostile("hundred_thousand_headers")
        .case(|c| c.args(&["-sS", "{url}/"]).reply(raw(head)))
        .run(OXCURL);
}

#[test]
fn status_line_binary_garbage() {
    let mut head = vec![0xffu8, 0x00, 0x13, b'\r', b'\n'];
    head.extend((0u8..=255).cycle().take(4096));
    hostile("status_line_binary_garbage")
        .case(|c| c.args(&["-sS", "{url}/"]).reply(raw(head)))
        .run(OXCURL);
}

#[test]
fn status_line_without_end() {
    let mut head = b"HTTP/1.1 200 ".to_vec();
    head.extend(std::iter::repeat_n(b'x', 1 << 20));
    hostile("status_line_without_end")
        .case(|c| c.args(&["-sS", "{url}/"]).reply(raw(head)))
        .run(OXCURL);
}

#[test]
fn nul_byte_in_header() {
    hostile("nul_byte_in_header")
        .case(|c| {
            c.args(&["-sS", "-D", "-", "{url}/"]).reply(raw(
                "HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 2\r\n\r\nok",
            ))
        })
        .run(OXCURL);
}

#[test]
fn nul_byte_in_status_line() {
    hostile("nul_byte_in_status_line")
        .case(|c| {
            c.args(&["-sS", "{url}/"])
                .reply(raw("HTTP/1.1 200 O\0K\r\nContent-Length: 2\r\n\r\nok"))
        })
        .run(OXCURL);
}

#[test]
fn bare_cr_in_header() {
    hostile("bare_cr_in_header")
        .case(|c| {
            c.args(&["-sS", "-D", "-", "{url}/"]).reply(raw(
                "HTTP/1.1 200 OK\r\nX-A: a\rX-Injected: 1\r\nContent-Length: 2\r\n\r\nok",
            ))
        })
        .run(OXCURL);
}

/// Lines curl's header store refuses (`Curl_headers_push`): in the head and as trailers.
#[test]
fn header_lines_the_header_store_refuses() {
    for (name, resp) in [
        // A bare CR ends the line for the store: the name then has no colon (43).
        (
            "bare_cr_in_a_header_name",
            &b"HTTP/1.1 200 OK\r\nX-A\rB: c\r\nContent-Length: 2\r\n\r\nok"[..],
        ),
        // Inside a value it only cuts what the store keeps.
        (
            "bare_cr_in_a_header_value",
            b"HTTP/1.1 200 OK\r\nX-A: b\rc\r\nContent-Length: 2\r\n\r\nok",
        ),
        // Trailers: a line without a colon (43), a zero byte before the line end (8).
        (
            "trailer_without_colon",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nbad trailer line\r\n\r\n",
        ),
        (
            "trailer_with_nul",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: a\0b\r\n\r\n",
        ),
        // A folded trailer continues the header before it.
        (
            "trailer_folded",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: a\r\n  b\r\n\r\n",
        ),
    ] {
        hostile(name)
            .case(|c| c.args(&["-sS", "-D", "{tmp}/head", "{url}/"]).reply(raw(resp)))
            .run(OXCURL);
    }
}

#[test]
fn bare_lf_line_ends() {
    hostile("bare_lf_line_ends")
        .case(|c| {
            c.args(&["-sS", "-D", "-", "{url}/"])
                .reply(raw("HTTP/1.1 200 OK\nX-A: a\nContent-Length: 2\n\nok"))
        })
        .run(OXCURL);
}

#[test]
fn endless_1xx_responses() {
    hostile("endless_1xx_responses")
        .case(|c| {
            c.args(&["-sS", "{url}/"]).server(|s| {
                s.set_raw_handler(|mut conn| {
                    conn.read_request();
                    let line = b"HTTP/1.1 102 Processing\r\nX-Filler: 0123456789\r\n\r\n";
                    // Until the client gives up and closes (a write then fails).
                    for _ in 0..1_000_000 {
                        if conn.write_all(line).is_err() {
                            break;
                        }
                    }
                })
            })
        })
        .run(OXCURL);
}

#[test]
fn endless_100_continue_responses() {
    // Small heads: curl counts every head of the response against its 300 KiB limit
    // ("Too large response headers: 307223 > 307200"), so the stream ends there.
    let r = hostile("endless_100_continue_responses")
        .case(|c| {
            c.args(&["-sS", "-m", "20", "{url}/"]).server(|s| {
                s.set_raw_handler(|mut conn| {
                    conn.read_request();
                    let head = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(1000);
                    for _ in 0..100_000 {
                        if conn.write_all(&head).is_err() {
                            break;
                        }
                    }
                })
            })
        })
        .wall(Duration::from_secs(10))
        .run(OXCURL);
    assert_eq!(r.result.oxcurl.code(), 56);
}

// ---- Content-Length and chunked framing -----------------------------------------

#[test]
fn content_length_overflowing() {
    hostile("content_length_overflowing")
        .case(|c| {
            c.args(&["-sS", "{url}/"]).reply(raw(
                "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999999\r\n\r\nok",
            ))
        })
        .run(OXCURL);
}

#[test]
fn content_length_i64_max() {
    hostile("content_length_i64_max")
        .case(|c| {
            c.args(&["-sS", "{url}/"]).reply(raw(
                "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\nok",
            ))
        })
        .run(OXCURL);
}

#[test]
fn content_length_with_sign_and_junk() {
    hostile("content_length_with_sign_and_junk")
        .case(|c| {
            c.args(&["-sS", "{url}/"])
                .reply(raw("HTTP/1.1 200 OK\r\nContent-Length: +2x\r\n\r\nok"))
        })
        .run(OXCURL);
}

#[test]
fn content_length_and_chunked_together() {
    hostile("content_length_and_chunked_together")
        .case(|c| {
            c.args(&["-sS", "{url}/"]).reply(raw(
                "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            ))
        })
        .run(OXCURL);
}

#[test]
fn chunk_size_overflowing() {
    hostile("chunk_size_overflowing")
        .case(|c| {
            c.args(&["-sS", "{url}/"]).reply(raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\nabc",
            ))
        })
        .run(OXCURL);
}

#[test]
fn chunk_size_u64_max() {
    hostile("chunk_size_u64_max")
        .case(|c| {
            c.args(&["-sS", "{url}/"]).reply(raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\nabc",
            ))
        })
        .run(OXCURL);
}

#[test]
fn chunk_size_line_endless() {
    let mut body = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1".to_vec();
    body.extend(std::iter::repeat_n(b'0', 1 << 20));
    hostile("chunk_size_line_endless")
        .case(|c| c.args(&["-sS", "{url}/"]).reply(raw(body)))
        .run(OXCURL);
}

#[test]
fn chunk_extension_endless() {
    let mut body = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;ext=".to_vec();
    body.extend(std::iter::repeat_n(b'e', 1 << 20));
    body.extend_from_slice(b"\r\nok\r\n0\r\n\r\n");
    hostile("chunk_extension_endless")
        .case(|c| c.args(&["-sS", "{url}/"]).reply(raw(body)))
        .run(OXCURL);
}

#[test]
fn chunk_truncated_in_size_line() {
    hostile("chunk_truncated_in_size_line")
        .case(|c| {
            c.args(&["-sS", "{url}/"]).reply(raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n1",
            ))
        })
        .run(OXCURL);
}

#[test]
fn chunked_trailers_endless() {
    let mut body =
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n".to_vec();
    for i in 0..50_000 {
        write!(body, "X-T{i}: v\r\n").unwrap();
    }
    body.extend_from_slice(b"\r\n");
    hostile("chunked_trailers_endless")
        .case(|c| c.args(&["-sS", "{url}/"]).reply(raw(body)))
        .run(OXCURL);
}

// ---- bodies too large, decompression bombs --------------------------------------
//
// curl 8.14.1 applies --max-filesize to the bytes received, not to the decoded output: a bomb
// smaller than the limit is written out whole (exit 0) by both clients. What matters here is
// that the decoded output streams through bounded memory.

/// `len` zero bytes compressed with `tool` (gzip, brotli or zstd: scripts/test.sh installs
/// them).
fn bomb(tool: &str, len: usize) -> Vec<u8> {
    let dir = TempDir::new("bomb");
    let plain = dir.join("zeros");
    std::fs::write(&plain, vec![0u8; len]).unwrap();
    let args: &[&str] = match tool {
        "gzip" => &["-c", "-1"],
        "brotli" => &["-c", "-q", "1"],
        "zstd" => &["-c", "-q", "-1"],
        _ => unreachable!(),
    };
    let out = Exec::new(tool)
        .args(args)
        .arg(&plain)
        .timeout(Duration::from_secs(60))
        .run();
    assert_eq!(out.code, Some(0), "{tool}: {}", out.stderr_str());
    out.stdout
}

fn encoded_reply(encoding: &str, body: Vec<u8>) -> Reply {
    Reply::status(200, &[("Content-Encoding", encoding)], body).close()
}

/// Decoded size of the bombs: 256 MiB from about 25 KiB (brotli) to 250 KiB (gzip). gzip's
/// is 64 MiB: the debug build inflates at about 15 MB/s, and the point is the same.
fn bomb_size(tool: &str) -> usize {
    if tool == "gzip" {
        64 << 20
    } else {
        256 << 20
    }
}

/// A brotli stream may ask for a 16 MiB window (the brotli tool's default), which the decoder
/// must allocate, as curl's libbrotli does.
const BROTLI_HEAP: u64 = 24 << 20;

fn bomb_case(name: &str, tool: &str, encoding: &str, args: &[&str]) {
    let body = bomb(tool, bomb_size(tool));
    let h = hostile(name)
        .case(|c| {
            c.args(args)
                .arg("{url}/")
                .reply(encoded_reply(encoding, body))
                .timeout(Duration::from_secs(60))
        })
        // Generous: a debug build, and CPU shared with parallel tests.
        .wall(Duration::from_secs(45));
    let h = if tool == "brotli" {
        h.heap(BROTLI_HEAP)
    } else {
        h
    };
    h.run(OXCURL);
}

#[test]
fn gzip_bomb_max_filesize() {
    bomb_case(
        "gzip_bomb_max_filesize",
        "gzip",
        "gzip",
        &[
            "-sS",
            "--compressed",
            "--max-filesize",
            "1M",
            "-o",
            "/dev/null",
            "-w",
            "%{size_download}\\n",
        ],
    );
}

#[test]
fn brotli_bomb_max_filesize() {
    bomb_case(
        "brotli_bomb_max_filesize",
        "brotli",
        "br",
        &[
            "-sS",
            "--compressed",
            "--max-filesize",
            "1M",
            "-o",
            "/dev/null",
            "-w",
            "%{size_download}\\n",
        ],
    );
}

#[test]
fn zstd_bomb_max_filesize() {
    bomb_case(
        "zstd_bomb_max_filesize",
        "zstd",
        "zstd",
        &[
            "-sS",
            "--compressed",
            "--max-filesize",
            "1M",
            "-o",
            "/dev/null",
            "-w",
            "%{size_download}\\n",
        ],
    );
}

#[test]
fn gzip_bomb_streams_to_dev_null() {
    bomb_case(
        "gzip_bomb_streams_to_dev_null",
        "gzip",
        "gzip",
        &[
            "-sS",
            "--compressed",
            "-o",
            "/dev/null",
            "-w",
            "%{size_download}\\n",
        ],
    );
}

#[test]
fn brotli_bomb_streams_to_dev_null() {
    bomb_case(
        "brotli_bomb_streams_to_dev_null",
        "brotli",
        "br",
        &[
            "-sS",
            "--compressed",
            "-o",
            "/dev/null",
            "-w",
            "%{size_download}\\n",
        ],
    );
}

#[test]
fn zstd_bomb_streams_to_dev_null() {
    bomb_case(
        "zstd_bomb_streams_to_dev_null",
        "zstd",
        "zstd",
        &[
            "-sS",
            "--compressed",
            "-o",
            "/dev/null",
            "-w",
            "%{size_download}\\n",
        ],
    );
}

/// A zstd frame whose header asks for a 2 GiB window, then 26,000 RLE blocks of 128 KiB
/// zeros (3.4 GB decoded from 104 KB). curl's libzstd refuses windows over 128 MiB at the
/// frame header: 61 at once, nothing written, and no window allocated.
fn zstd_window_bomb() -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 21 << 3];
    let rle = ((128u32 * 1024) << 3 | 1 << 1).to_le_bytes();
    for i in 0..26_000 {
        let last = u8::from(i == 25_999);
        f.extend_from_slice(&[rle[0] | last, rle[1], rle[2], 0]);
    }
    f
}

#[test]
fn zstd_window_bomb_refused_at_its_header() {
    let r = hostile("zstd_window_bomb_refused_at_its_header")
        .case(|c| {
            c.args(&["-sS", "--compressed", "-o", "{tmp}/out", "{url}/"])
                .reply(encoded_reply("zstd", zstd_window_bomb()))
        })
        // The window is never allocated: what is left is the reply's 104 KB and the buffers.
        .heap(4 << 20)
        .wall(Duration::from_secs(10))
        .run(OXCURL);
    assert_eq!(r.result.oxcurl.code(), 61);
}

#[test]
fn zstd_window_bomb_behind_gzip() {
    // Stacked: the gzip stage passes the frame on and the zstd stage refuses it.
    let body = {
        let dir = TempDir::new("zbomb");
        let p = dir.join("z");
        std::fs::write(&p, zstd_window_bomb()).unwrap();
        let out = Exec::new("gzip").args(["-c", "-1"]).arg(&p).run();
        assert_eq!(out.code, Some(0));
        out.stdout
    };
    let r = hostile("zstd_window_bomb_behind_gzip")
        .case(|c| {
            c.args(&["-sS", "--compressed", "-o", "/dev/null", "{url}/"])
                .reply(encoded_reply("zstd, gzip", body))
        })
        .heap(4 << 20)
        .wall(Duration::from_secs(10))
        .run(OXCURL);
    assert_eq!(r.result.oxcurl.code(), 61);
}

/// "Large window" brotli (a 1 GiB window, RFC 7932's incompatible extension) is refused by
/// curl's libbrotli, which leaves the extension off: 61 at once, and no window allocated.
#[test]
fn brotli_large_window_refused() {
    let body = {
        let dir = TempDir::new("lwbr");
        let p = dir.join("z");
        std::fs::write(&p, vec![0u8; 64 << 20]).unwrap();
        let out = Exec::new("brotli")
            .args(["-c", "-q", "5", "--large_window=30"])
            .arg(&p)
            .timeout(Duration::from_secs(60))
            .run();
        assert_eq!(out.code, Some(0), "brotli: {}", out.stderr_str());
        // The large-window marker and 30 window bits.
        assert_eq!((out.stdout[0], out.stdout[1] & 0x3f), (0x11, 30));
        out.stdout
    };
    let r = hostile("brotli_large_window_refused")
        .case(|c| {
            c.args(&["-sS", "--compressed", "-o", "{tmp}/out", "{url}/"])
                .reply(encoded_reply("br", body))
        })
        .heap(4 << 20)
        .wall(Duration::from_secs(10))
        .run(OXCURL);
    assert_eq!(r.result.oxcurl.code(), 61);
}

#[test]
fn gzip_bomb_streams_to_file() {
    let body = bomb("gzip", 32 << 20);
    let r = hostile("gzip_bomb_streams_to_file")
        .case(|c| {
            c.args(&["-sS", "--compressed", "-o", "{tmp}/out", "{url}/"])
                .reply(encoded_reply("gzip", body))
                .timeout(Duration::from_secs(60))
                // 32 MiB of zeros compared byte by byte would only repeat the size check.
                .compare_files(false)
        })
        .wall(Duration::from_secs(45))
        .run(OXCURL);
    assert_eq!(r.result.oxcurl.code(), 0);
}

#[test]
fn body_larger_than_max_filesize_close_delimited() {
    hostile("body_larger_than_max_filesize_close_delimited")
        .case(|c| {
            c.args(&["-sS", "--max-filesize", "1M", "-o", "{tmp}/out", "{url}/"])
                .reply(
                    Reply::raw("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
                        .generated(64 << 20)
                        .close(),
                )
        })
        .run(OXCURL);
}

#[test]
fn body_larger_than_max_filesize_chunked() {
    hostile("body_larger_than_max_filesize_chunked")
        .case(|c| {
            c.args(&["-sS", "--max-filesize", "100K", "-o", "{tmp}/out", "{url}/"])
                .reply(Reply::chunked(&vec![vec![b'z'; 16 << 10]; 64]).close())
        })
        .run(OXCURL);
}

// ---- slow, silent and resetting servers ------------------------------------------

#[test]
fn drip_one_byte_per_second_speed_limit() {
    hostile("drip_one_byte_per_second_speed_limit")
        .case(|c| {
            c.args(&["-sS", "-Y", "100", "-y", "2", "{url}/"])
                .reply(
                    Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
                        .write_slowly(vec![b'd'; 100], 1, Duration::from_secs(1))
                        .close(),
                )
                .normalise_with(mask_digits)
                // How many bytes arrive before the 2 s window closes depends on timing.
                .compare_stdout(false)
                .compare_requests(false)
        })
        .run(OXCURL);
}

#[test]
fn drip_headers_one_byte_per_second_max_time() {
    hostile("drip_headers_one_byte_per_second_max_time")
        .case(|c| {
            c.args(&["-sS", "-m", "2", "{url}/"])
                .reply(
                    Reply::new()
                        .write_slowly(
                            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                            1,
                            Duration::from_secs(1),
                        )
                        .close(),
                )
                .normalise_with(mask_digits)
                .compare_requests(false)
        })
        .run(OXCURL);
}

#[test]
fn accepts_and_never_answers_connect_timeout_does_not_apply() {
    hostile("accepts_and_never_answers_connect_timeout_does_not_apply")
        .case(|c| {
            c.args(&["-sS", "--connect-timeout", "1", "-m", "2", "{url}/"])
                .reply(Reply::new().sleep(Duration::from_secs(5)))
                .normalise_with(mask_digits)
        })
        .run(OXCURL);
}

#[test]
fn reset_mid_body() {
    hostile("reset_mid_body")
        .case(|c| {
            c.args(&["-sS", "-o", "{tmp}/out", "{url}/"]).reply(
                Reply::raw("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
                    .generated(50_000)
                    .sleep(Duration::from_millis(200))
                    .reset(),
            )
        })
        .run(OXCURL);
}

#[test]
fn reset_before_any_answer() {
    hostile("reset_before_any_answer")
        .case(|c| c.args(&["-sS", "{url}/"]).reply(Reply::new().reset()))
        .run(OXCURL);
}
