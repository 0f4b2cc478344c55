//! Differential tests for how HTTP/2 DATA frames are read: runs of DATA frames are joined
//! before h2 sees them (`proto/h2/merge.rs`), and the frame size the peer is told stays
//! curl's. oxcurl and the reference curl 8.14.1 against the same scripted server; exit code,
//! stdout and the error line compared.

use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use oxcurl_testsupport::diff::isolated_exec;
use oxcurl_testsupport::h2::{self, error_line, frame, hpack, hpack_literal, H2Action, H2Server};
use oxcurl_testsupport::under_test;
use oxcurl_testsupport::{reference_curl, Output, TempDir};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

fn run(prog: &Path, url: &str, tmp: &TempDir) -> Output {
    isolated_exec(prog, tmp.path(), tmp.path())
        .timeout(Duration::from_secs(30))
        .args(["-sS", "--http2-prior-knowledge", url])
        .run()
}

/// Both clients against `script`; the output, which must be the same.
fn diff(name: &str, script: Vec<H2Action>) -> Output {
    let (x, _) = h2::diff_script(&under_test(OXCURL), name, script, &[], true);
    assert!(!x.timed_out, "{name}: hung");
    x
}

fn head(len: usize) -> H2Action {
    H2Action::headers(
        1,
        hpack(200, &[("content-length", &len.to_string())]),
        false,
    )
}

fn data(d: &[u8], end: bool) -> H2Action {
    H2Action::Data {
        stream: 1,
        data: d.to_vec(),
        end_stream: end,
    }
}

/// Bytes that show where they were cut or repeated.
fn body(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| b"0123456789abcdefghijklmnopqrstuvwxyz\n"[i % 37])
        .collect()
}

#[test]
fn many_small_frames_in_one_write_arrive_whole() {
    // 3000 DATA frames of 0 to 99 bytes in one write: joined by the dozen.
    let b = body(150_000);
    let mut wire = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < b.len() {
        let n = (i * 37 % 100).min(b.len() - at);
        wire.extend(frame(0, 0, 1, &b[at..at + n]));
        at += n;
        i += 1;
    }
    wire.extend(frame(0, 1, 1, b""));
    let x = diff(
        "h2_frames_many_small",
        vec![head(b.len()), H2Action::Raw(wire)],
    );
    assert_eq!(x.code, Some(0));
    assert!(x.stdout == b, "the body as sent");
}

#[test]
fn frames_of_the_largest_size_in_one_write_arrive_whole() {
    // Three frames of 16 KiB join up to h2's 48 KiB; the 16 KiB limit itself is kept.
    let b = body(5 * 16384 + 1);
    let mut wire = Vec::new();
    for (i, c) in b.chunks(16384).enumerate() {
        wire.extend(frame(0, u8::from(i == 5), 1, c));
    }
    let x = diff(
        "h2_frames_largest",
        vec![head(b.len()), H2Action::Raw(wire)],
    );
    assert!(x.stdout == b, "the body as sent");
}

#[test]
fn padded_frames_between_plain_ones() {
    let mut wire = frame(0, 0, 1, b"abc");
    wire.extend(frame(0, 0, 1, b"def"));
    wire.extend(frame(0, 0x8, 1, b"\x03ghi\0\0\0"));
    wire.extend(frame(0, 0, 1, b"jkl"));
    wire.extend(frame(0, 1, 1, b"mno\n"));
    let x = diff("h2_frames_padded", vec![head(16), H2Action::Raw(wire)]);
    assert_eq!(x.stdout, b"abcdefghijklmno\n");
}

#[test]
fn a_frame_over_16_kib_is_refused_as_curl_refuses_it() {
    // h2 takes joined frames of up to 48 KiB; the peer was told 16 KiB.
    for n in [16385, 40000] {
        let x = diff("h2_frames_over_16k", vec![head(n), data(&body(n), true)]);
        assert_eq!(x.code, Some(16), "{n} bytes");
    }
}

#[test]
fn data_beyond_content_length_in_one_write() {
    // The frames before the one that overflows content-length are written, the rest not.
    let mut wire = frame(0, 0, 1, b"hello ");
    wire.extend(frame(0, 0, 1, b"world, "));
    wire.extend(frame(0, 1, 1, b"and more\n"));
    let x = diff("h2_frames_over_length", vec![head(12), H2Action::Raw(wire)]);
    assert_eq!(x.code, Some(92));
    assert_eq!(x.stdout, b"hello ");
}

/// Time for the client to take the response head before the next frames come, so that
/// the merger knows the body's limit when they do.
fn pause() -> H2Action {
    H2Action::Sleep(Duration::from_millis(200))
}

/// DATA frames of `sizes` bytes on `stream` out of `b` from `at` on, END_STREAM on the last
/// with `end`; where they stopped.
fn frames_of(stream: u32, b: &[u8], at: usize, sizes: &[usize], end: bool) -> (Vec<u8>, usize) {
    let mut wire = Vec::new();
    let mut at = at;
    for (i, n) in sizes.iter().enumerate() {
        let last = end && i + 1 == sizes.len();
        wire.extend(frame(0, u8::from(last), stream, &b[at..at + n]));
        at += n;
    }
    (wire, at)
}

#[test]
fn data_beyond_content_length_in_a_later_read() {
    // The head is taken, so the merger knows the length: it joins the first read's frames,
    // and in the second stops before the frame that overflows.
    let b = body(5 * 4000);
    let (first, at) = frames_of(1, &b, 0, &[4000, 4000], false);
    let (second, _) = frames_of(1, &b, at, &[4000, 4000, 4000], true);
    let x = diff(
        "h2_frames_over_length_later",
        vec![
            head(14000),
            pause(),
            H2Action::Raw(first),
            pause(),
            H2Action::Raw(second),
        ],
    );
    assert_eq!(x.code, Some(92));
    assert!(x.stdout == b[..12000], "the three frames within the length");
}

#[test]
fn data_beyond_content_length_in_the_first_frame_of_a_read() {
    let b = body(4 * 4000);
    let (first, at) = frames_of(1, &b, 0, &[4000, 4000], false);
    let (second, _) = frames_of(1, &b, at, &[4000, 4000], true);
    let x = diff(
        "h2_frames_over_length_first",
        vec![
            head(9000),
            pause(),
            H2Action::Raw(first),
            pause(),
            H2Action::Raw(second),
        ],
    );
    assert_eq!(x.code, Some(92));
    assert!(x.stdout == b[..8000], "the first read's frames");
}

#[test]
fn content_length_exactly_met_in_later_reads() {
    let b = body(6 * 5000 + 7);
    let (first, at) = frames_of(1, &b, 0, &[5000, 5000, 5000], false);
    let (second, _) = frames_of(1, &b, at, &[5000, 5000, 5000, 7], true);
    let x = diff(
        "h2_frames_length_met",
        vec![
            head(b.len()),
            pause(),
            H2Action::Raw(first),
            pause(),
            H2Action::Raw(second),
        ],
    );
    assert_eq!(x.code, Some(0));
    assert!(x.stdout == b, "the body as sent");
}

#[test]
fn no_content_length_frames_in_later_reads() {
    let b = body(8 * 6000);
    let (first, at) = frames_of(1, &b, 0, &[6000; 4], false);
    let (second, _) = frames_of(1, &b, at, &[6000; 4], true);
    let x = diff(
        "h2_frames_no_length",
        vec![
            H2Action::headers(1, hpack(200, &[]), false),
            pause(),
            H2Action::Raw(first),
            pause(),
            H2Action::Raw(second),
        ],
    );
    assert_eq!(x.code, Some(0));
    assert!(x.stdout == b, "the body as sent");
}

#[test]
fn data_ending_short_of_content_length_in_a_later_read() {
    // nghttp2 hands curl the bytes of the frame that ends the stream short before it
    // resets the stream; h2 refuses such a frame before it queues them, so the merger
    // splits it (its bytes, then an empty frame with END_STREAM).
    let b = body(3 * 4000);
    let (first, at) = frames_of(1, &b, 0, &[4000], false);
    let (second, _) = frames_of(1, &b, at, &[4000, 4000], true);
    let x = diff(
        "h2_frames_short_of_length",
        vec![
            head(b.len() + 1),
            pause(),
            H2Action::Raw(first),
            pause(),
            H2Action::Raw(second),
        ],
    );
    assert_eq!(x.code, Some(92));
    assert!(x.stdout == b, "all the frames' bytes");
}

#[test]
fn data_ending_short_of_content_length_in_the_heads_read() {
    // The head and the whole body in one write: the merger does not know the length yet.
    let b = body(2 * 4000);
    let mut wire = frame(1, 4, 1, &hpack(200, &[("content-length", "8001")]));
    wire.extend(frames_of(1, &b, 0, &[4000, 4000], true).0);
    let x = diff(
        "h2_frames_short_of_length_at_once",
        vec![H2Action::Raw(wire)],
    );
    assert_eq!(x.code, Some(92));
    assert!(x.stdout == b, "all the frames' bytes");
}

#[test]
fn data_beyond_content_length_after_the_length_was_met() {
    // curl completes the transfer at the stream's end, not when the length is met: the
    // frame after it is refused, and the transfer fails.
    let b = body(3 * 4000);
    let (first, at) = frames_of(1, &b, 0, &[4000, 4000], false);
    let (second, _) = frames_of(1, &b, at, &[4000], true);
    let x = diff(
        "h2_frames_beyond_met_length",
        vec![
            head(8000),
            pause(),
            H2Action::Raw(first),
            pause(),
            H2Action::Raw(second),
        ],
    );
    assert_eq!(x.code, Some(92));
    assert!(x.stdout == b[..8000], "the length's bytes");
}

#[test]
fn the_length_met_and_the_stream_reset_before_its_end() {
    let x = diff(
        "h2_frames_met_length_reset",
        vec![
            head(5),
            data(b"hello", false),
            pause(),
            H2Action::RstStream { stream: 1, code: 8 },
        ],
    );
    assert_eq!(x.code, Some(92));
    assert_eq!(x.stdout, b"hello");
}

#[test]
fn the_length_met_and_the_connection_closed_before_the_streams_end() {
    let x = diff(
        "h2_frames_met_length_closed",
        vec![head(5), data(b"hello", false), pause(), H2Action::Close],
    );
    assert_eq!(x.code, Some(18));
}

#[test]
fn the_stream_ends_later_in_an_empty_frame() {
    // Waited for, as curl waits; a response without a body too (204, length 0).
    let x = diff(
        "h2_frames_met_length_later_end",
        vec![head(5), data(b"hello", false), pause(), data(b"", true)],
    );
    assert_eq!((x.code, &x.stdout[..]), (Some(0), &b"hello"[..]));
    for (name, status, length) in [
        ("h2_frames_204_later_end", 204, None),
        ("h2_frames_0_later_end", 200, Some("0")),
    ] {
        let fields: Vec<(&str, &str)> = length.map(|l| ("content-length", l)).into_iter().collect();
        let x = diff(
            name,
            vec![
                H2Action::headers(1, hpack(status, &fields), false),
                pause(),
                H2Action::RstStream { stream: 1, code: 8 },
            ],
        );
        assert_eq!(x.code, Some(92), "{name}: the reset is seen");
    }
}

#[test]
fn a_last_frame_with_end_stream_ends_the_transfer_at_once() {
    // The server keeps the connection open for seconds after the response.
    let t = std::time::Instant::now();
    let x = diff(
        "h2_frames_end_at_once",
        vec![
            head(5),
            data(b"hello", true),
            H2Action::Sleep(Duration::from_secs(3)),
        ],
    );
    assert_eq!(x.stdout, b"hello");
    // Both clients ran in that time.
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

/// Both clients with `-Z` fetching `/1`, `/3` and `/5` on one connection of a server
/// playing `script`. It starts once stream 1's request came; the other two transfers wait
/// to learn that the connection multiplexes, which they do when the first one ends, and
/// then open streams 3 and 5 together. The exit code, the error lines and each file
/// compared; the files.
fn diff_three(name: &str, script: Vec<H2Action>) -> Vec<Vec<u8>> {
    let names = ["one", "three", "five"];
    let run = |prog: &Path| {
        let srv = H2Server::start(script.clone());
        let tmp = TempDir::new(name);
        let mut args: Vec<String> =
            vec!["-sS".into(), "-Z".into(), "--http2-prior-knowledge".into()];
        for (id, n) in [1, 3, 5].iter().zip(names) {
            args.extend([format!("{}/{id}", srv.url()), "-o".into(), n.into()]);
        }
        let out = isolated_exec(prog, tmp.path(), tmp.path())
            .timeout(Duration::from_secs(30))
            .args(&args)
            .run();
        let files: Vec<Vec<u8>> = names
            .iter()
            .map(|n| std::fs::read(tmp.path().join(n)).unwrap_or_default())
            .collect();
        (out, files, srv.connections())
    };
    let (r, rf, rc) = run(&reference_curl());
    let (x, xf, xc) = run(&under_test(OXCURL));
    assert!(!r.timed_out && !x.timed_out, "{name}: hung");
    let report = format!(
        "\n--- reference {:?}, {rc} connections\n{}\n--- oxcurl {:?}, {xc} connections\n{}",
        r.code,
        String::from_utf8_lossy(&r.stderr),
        x.code,
        String::from_utf8_lossy(&x.stderr)
    );
    assert_eq!((r.code, rc), (x.code, xc), "{name}: exit code{report}");
    assert_eq!(rc, 1, "{name}: one connection{report}");
    let errors = |b: &[u8]| {
        let mut v: Vec<String> = error_line(b).lines().map(String::from).collect();
        v.sort();
        v
    };
    assert_eq!(
        errors(&r.stderr),
        errors(&x.stderr),
        "{name}: errors{report}"
    );
    for (i, n) in names.iter().enumerate() {
        assert!(rf[i] == xf[i], "{name}: file {n} differs{report}");
    }
    xf
}

fn head_of(stream: u32, len: usize) -> H2Action {
    let block = hpack(200, &[("content-length", &len.to_string())]);
    H2Action::headers(stream, block, false)
}

#[test]
fn two_streams_interleaved_one_overflowing() {
    // Stream 3 overflows its length in a read that carries stream 5's frames between its
    // own: stream 3 has what came before the overflow, stream 5 all of that read. Stream 5
    // overflows in the next read (so that both transfers fail, the last one the same in
    // both clients).
    let three = body(5 * 3000);
    let five = body(7 * 3000);
    let (a, at3) = frames_of(3, &three, 0, &[3000, 3000], false);
    let (x, at5) = frames_of(5, &five, 0, &[3000, 3000], false);
    let (b, at3) = frames_of(3, &three, at3, &[3000], false);
    let (y, at5) = frames_of(5, &five, at5, &[3000, 3000], false);
    let (c, _) = frames_of(3, &three, at3, &[1500, 1000], true);
    let (z, _) = frames_of(5, &five, at5, &[3000, 3000, 3000], true);
    let files = diff_three(
        "h2_frames_two_streams_overflow",
        vec![
            head(3),
            data(b"ok\n", true),
            pause(),
            head_of(3, 10000),
            head_of(5, 17000),
            pause(),
            H2Action::Raw([a, x, b, c, y].concat()),
            pause(),
            H2Action::Raw(z),
        ],
    );
    assert_eq!(files[0], b"ok\n");
    assert!(files[1] == three[..9000], "stream 3 up to the overflow");
    assert!(files[2] == five[..15000], "stream 5 up to the overflow");
}

/// -Z: stream 3 fails (content-length overflow) and stream 5 succeeds in the same pass:
/// the exit code is the failure's, as curl's check_finished keeps it.
#[test]
fn parallel_exit_code_keeps_an_earlier_error() {
    let (c, _) = frames_of(3, &body(2000), 0, &[1500, 500], true);
    diff_three(
        "h2_frames_parallel_exit_code",
        vec![
            head(3),
            data(b"ok\n", true),
            pause(),
            head_of(3, 1000),
            head_of(5, 3),
            pause(),
            H2Action::Raw([c, frame(0, 1, 5, b"ok\n")].concat()),
        ],
    );
}

/// A header block in a HEADERS frame and `n` CONTINUATION frames.
fn continued(n: usize) -> Vec<H2Action> {
    let mut script = vec![H2Action::Headers {
        stream: 1,
        block: hpack(200, &[("content-length", "6")]),
        end_stream: false,
        end_headers: false,
    }];
    for i in 0..n {
        let mut block = Vec::new();
        hpack_literal(&mut block, &format!("x-c-{i}"), b"v");
        script.push(H2Action::Continuation {
            stream: 1,
            block,
            end_headers: i + 1 == n,
        });
    }
    script.push(data(b"hello\n", true));
    script
}

#[test]
fn eight_continuation_frames_are_taken() {
    // nghttp2 takes 8 CONTINUATION frames; h2 with 48 KiB frames allows as many.
    let x = diff("h2_frames_8_continuations", continued(8));
    assert_eq!(x.code, Some(0));
}

#[test]
fn nine_continuation_frames_are_refused() {
    let x = diff("h2_frames_9_continuations", continued(9));
    assert_ne!(x.code, Some(0));
}

/// The SETTINGS frame a client sends after the preface: (id, value) pairs.
fn client_settings(prog: &Path) -> Vec<(u16, u32)> {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}/", l.local_addr().unwrap().port());
    let tmp = TempDir::new("h2-settings");
    let p = prog.to_path_buf();
    let client = std::thread::spawn(move || run(&p, &url, &tmp));
    let (mut c, _) = l.accept().unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut pre = [0u8; 24 + 9];
    c.read_exact(&mut pre).unwrap();
    assert_eq!(&pre[..24], b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    assert_eq!(pre[24 + 3], 4, "SETTINGS after the preface");
    let len = usize::from(pre[24 + 1]) << 8 | usize::from(pre[24 + 2]);
    let mut p = vec![0u8; len];
    c.read_exact(&mut p).unwrap();
    let _ = c.shutdown(std::net::Shutdown::Both);
    drop(c);
    let started = std::time::Instant::now();
    let out = client.join().unwrap();
    assert!(!out.timed_out, "{}: hung", prog.display());
    eprintln!("{}: {:?} {:?}", prog.display(), out.code, started.elapsed());
    p.chunks(6)
        .map(|s| {
            (
                u16::from_be_bytes([s[0], s[1]]),
                u32::from_be_bytes([s[2], s[3], s[4], s[5]]),
            )
        })
        .collect()
}

#[test]
fn the_peer_is_not_told_a_larger_frame_size() {
    // SETTINGS_MAX_FRAME_SIZE (5) is not sent, as curl does not send it.
    let ours = client_settings(&under_test(OXCURL));
    let curls = client_settings(&reference_curl());
    assert!(curls.iter().all(|s| s.0 != 5), "curl: {curls:?}");
    assert!(ours.iter().all(|s| s.0 != 5), "oxcurl: {ours:?}");
    assert!(ours.contains(&(2, 0)), "push still off: {ours:?}");
}
