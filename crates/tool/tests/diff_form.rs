//! Differential tests for multipart forms (`-F`, `--form-string`, `--form-escape`): the
//! bodies oxcurl and curl 8.14.1 send, their framing and the errors, with the random
//! boundaries masked. Most chunked bodies are compared after removing the chunk framing;
//! the `chunked_form_*` tests keep it, as oxcurl's mime reader ends chunks where curl's does.

use oxcurl_testsupport::diff::mask_boundaries;
use oxcurl_testsupport::{Case, Reply};

const OXCURL: &str = env!("CARGO_BIN_EXE_oxcurl");

/// Undo chunked framing after the head of each request on the connection.
fn dechunk(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some(h) = find(rest, b"\r\n\r\n") {
        let head = &rest[..h + 4];
        out.extend_from_slice(head);
        rest = &rest[h + 4..];
        let chunked = String::from_utf8_lossy(head)
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        if !chunked {
            let len = String::from_utf8_lossy(head)
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0)
                .min(rest.len());
            out.extend_from_slice(&rest[..len]);
            rest = &rest[len..];
            continue;
        }
        out.extend_from_slice(b"<dechunked>");
        loop {
            let Some(e) = find(rest, b"\r\n") else {
                return out;
            };
            let n =
                usize::from_str_radix(String::from_utf8_lossy(&rest[..e]).trim(), 16).unwrap_or(0);
            rest = &rest[e + 2..];
            if n == 0 {
                rest = &rest[rest.len().min(2)..];
                break;
            }
            out.extend_from_slice(&rest[..n.min(rest.len())]);
            rest = &rest[(n + 2).min(rest.len())..];
        }
    }
    out.extend_from_slice(rest);
    out
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

fn form_case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .reply(Reply::ok("ok\n"))
        .normalise_requests_with(|d| mask_boundaries(&dechunk(d)))
}

#[test]
fn fields_and_types() {
    form_case(
        "fields_and_types",
        &[
            "-s",
            "-F",
            "name=value",
            "-F",
            "q=\"quoted;x\";type=text/plain",
            "-F",
            "t=v;type=text/plain; charset=utf-8",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn file_parts() {
    form_case(
        "file_parts",
        &[
            "-s",
            "-F",
            "f=@{tmp}/up.txt",
            "-F",
            "g=@{tmp}/up.txt;type=text/x-foo;filename=renamed.bin",
            "-F",
            "p=@{tmp}/pic.png",
            "-F",
            "u=@{tmp}/data.unknownext",
            "{url}/",
        ],
    )
    .file("up.txt", "file content\n")
    .file("pic.png", "\u{89}PNG")
    .file("data.unknownext", "raw")
    .run(OXCURL);
}

#[test]
fn file_contents_as_value() {
    form_case(
        "file_contents_as_value",
        &["-s", "-F", "h=<{tmp}/up.txt", "{url}/"],
    )
    .file("up.txt", "file content\n")
    .run(OXCURL);
}

#[test]
fn several_files_nest_a_multipart() {
    form_case(
        "several_files_nest_a_multipart",
        &["-s", "-F", "m=@{tmp}/a.png,{tmp}/up.txt", "{url}/"],
    )
    .file("a.png", "abc")
    .file("up.txt", "file content\n")
    .run(OXCURL);
}

#[test]
fn quotes_in_names_are_escaped() {
    form_case(
        "quotes_in_names_are_escaped",
        &[
            "-s",
            "-F",
            "we\"ird=1",
            "-F",
            "fn=@{tmp}/up.txt;filename=\"a\\\"b.txt\"",
            "{url}/",
        ],
    )
    .file("up.txt", "x")
    .run(OXCURL);
}

#[test]
fn form_escape_uses_backslashes() {
    form_case(
        "form_escape_uses_backslashes",
        &["-s", "--form-escape", "-F", "we\"ird\\x=1", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn form_string_is_literal() {
    form_case(
        "form_string_is_literal",
        &["-s", "--form-string", "a=@notafile;type=x", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn part_headers_inline_and_from_file() {
    form_case(
        "part_headers_inline_and_from_file",
        &[
            "-s",
            "-F",
            "n=v;headers=X-A: 1;headers=\"X-B: 2\"",
            "-F",
            "m=w;headers=@{tmp}/hdrs",
            "{url}/",
        ],
    )
    .file("hdrs", "# comment\nX-C: 3\nX-D: 4\n")
    .run(OXCURL);
}

#[test]
fn base64_encoder_has_a_length() {
    form_case(
        "base64_encoder_has_a_length",
        &[
            "-s",
            "-F",
            "n=value;encoder=base64",
            "-F",
            "f=@{tmp}/big.txt;encoder=base64",
            "{url}/",
        ],
    )
    .file("big.txt", "0123456789".repeat(20))
    .run(OXCURL);
}

#[test]
fn quoted_printable_is_chunked() {
    form_case(
        "quoted_printable_is_chunked",
        &[
            "-s",
            "-F",
            "e=caf\u{e9} = ok ;encoder=quoted-printable",
            "{url}/",
        ],
    )
    .run(OXCURL);
}

#[test]
fn stdin_file_part() {
    form_case("stdin_file_part", &["-s", "-F", "f=@-", "{url}/"])
        .stdin("from stdin\n")
        .run(OXCURL);
}

#[test]
fn stdin_value_part() {
    form_case("stdin_value_part", &["-s", "-F", "f=<-", "{url}/"])
        .stdin("from stdin\n")
        .run(OXCURL);
}

#[test]
fn unknown_attribute_warns() {
    form_case("unknown_attribute_warns", &["-F", "a=b;c", "{url}/"])
        .compare_stderr(true)
        .normalise_with(|d| {
            String::from_utf8_lossy(d)
                .lines()
                .filter(|l| l.starts_with("Warning"))
                .map(|l| format!("{l}\n"))
                .collect::<String>()
                .into_bytes()
        })
        .run(OXCURL);
}

#[test]
fn illegal_field_is_exit_2() {
    Case::new("illegal_field_is_exit_2")
        .args(&["-F", "novalue", "{url}/"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn unknown_encoder_is_exit_43() {
    Case::new("unknown_encoder_is_exit_43")
        .args(&["-sS", "-F", "a=b;encoder=rot13", "{url}/"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn missing_file_is_exit_26() {
    Case::new("missing_file_is_exit_26")
        .args(&["-sS", "-F", "f=@{tmp}/nope", "{url}/"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn form_and_data_conflict() {
    Case::new("form_and_data_conflict")
        .args(&["-s", "-d", "x", "-F", "a=b", "{url}/"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn redirect_302_switches_to_get() {
    form_case(
        "redirect_302_switches_to_get",
        &["-s", "-L", "-F", "a=b", "{url}/from"],
    )
    .replies(vec![
        Reply::status(302, &[("Location", "/to")], ""),
        Reply::ok("landed\n"),
    ])
    .run(OXCURL);
}

#[test]
fn redirect_307_sends_the_form_again() {
    form_case(
        "redirect_307_sends_the_form_again",
        &[
            "-s",
            "-L",
            "-F",
            "a=b",
            "-F",
            "f=@{tmp}/up.txt",
            "{url}/from",
        ],
    )
    .file("up.txt", "again\n")
    .replies(vec![
        Reply::status(307, &[("Location", "/to")], ""),
        Reply::ok("landed\n"),
    ])
    .run(OXCURL);
}

#[test]
fn custom_headers_and_form() {
    form_case(
        "custom_headers_and_form",
        &["-s", "-H", "X-Custom: 1", "-F", "a=b", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn verbose_shows_form_body() {
    form_case(
        "verbose_shows_form_body",
        &["-s", "-v", "-F", "a=b", "{url}/"],
    )
    .compare_stderr(true)
    .normalise_with(|d| {
        let s = String::from_utf8_lossy(&mask_boundaries(d)).into_owned();
        s.lines()
            .filter(|l| l.starts_with("> ") || l.starts_with("} ") || l.contains("upload"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
    })
    .run(OXCURL);
}

#[test]
fn nested_alternative_multipart() {
    form_case(
        "nested_alternative_multipart",
        &[
            "-s",
            "-F",
            "=(;type=multipart/alternative",
            "-F",
            "=plain text message",
            "-F",
            "= <body>HTML message</body>;type=text/html",
            "-F",
            "=)",
            "-F",
            "=@{tmp}/up.txt",
            "-F",
            "after=1",
            "{url}/",
        ],
    )
    .file("up.txt", "attached\n")
    .run(OXCURL);
}

#[test]
fn nested_multiparts_two_deep() {
    form_case(
        "nested_multiparts_two_deep",
        &[
            "-s",
            "-F",
            "outer=(;headers=X-Outer: 1",
            "-F",
            "named=v",
            "-F",
            "=(;type=multipart/form-data",
            "-F",
            "in=deep",
            "-F",
            "=@{tmp}/up.txt",
            "-F",
            "=)",
            "-F",
            "x=)",
            "-F",
            "=)",
            "-F",
            "top=1",
            "{url}/",
        ],
    )
    .file("up.txt", "file content\n")
    .run(OXCURL);
}

#[test]
fn unclosed_multipart_is_sent_as_is() {
    form_case(
        "unclosed_multipart_is_sent_as_is",
        &["-s", "-F", "a=(", "-F", "=inside", "{url}/"],
    )
    .run(OXCURL);
}

#[test]
fn nested_attributes_not_allowed_warn() {
    form_case(
        "nested_attributes_not_allowed_warn",
        &[
            "-F",
            "a=(;type=multipart/mixed;filename=f;encoder=base64",
            "-F",
            "=x",
            "-F",
            "b=<{tmp}/up.txt;filename=q",
            "{url}/",
        ],
    )
    .file("up.txt", "file content\n")
    .compare_stderr(true)
    .normalise_with(|d| {
        String::from_utf8_lossy(d)
            .lines()
            .filter(|l| l.starts_with("Warning"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
    })
    .run(OXCURL);
}

#[test]
fn unbalanced_close_is_exit_2() {
    Case::new("unbalanced_close_is_exit_2")
        .args(&["-F", "a=b", "-F", "=)", "{url}/"])
        .compare_stderr(true)
        .expect_failure()
        .run(OXCURL);
}

#[test]
fn content_types_with_spaces_and_parameters() {
    form_case(
        "content_types_with_spaces_and_parameters",
        &[
            "-F",
            "a=b;type=text/plain;charset=utf-8",
            "-F",
            "c=d;type= text/plain ; charset=utf-8",
            "-F",
            "e=f;type=text / plain",
            "-F",
            "g=h;TYPE=text/plain;  charset=utf-8 ;  format=flowed  ;filename=a b ",
            "-F",
            "i=@{tmp}/up.txt;type=image/png,{tmp}/up.txt;type=text/x;q=1",
            "{url}/",
        ],
    )
    .file("up.txt", "file content\n")
    .compare_stderr(true)
    .normalise_with(|d| {
        String::from_utf8_lossy(d)
            .lines()
            .filter(|l| l.starts_with("Warning"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
    })
    .run(OXCURL);
}

// ---- curl's own tests (scripts/curl-testsuite.sh), the same command lines ------------------

/// curl test 173: a file part from stdin with a faked file name and a content type whose
/// parameter is kept as given (`text/x-null;format=x-curl`).
#[test]
fn t173_stdin_file_with_type_parameter() {
    form_case(
        "t173_stdin_file_with_type_parameter",
        &[
            "{url}/we/want/173",
            "-F",
            "field1=contents1",
            "-F",
            "fileupload=@-;filename=/dev/null;type=text/x-null;format=x-curl",
        ],
    )
    .stdin("line1\nline2\nline3\n")
    .run(OXCURL);
}

/// curl test 186: types on text fields; `type=text/html;charset=verymoo` is sent without a
/// blank after the `;`.
#[test]
fn t186_types_on_text_fields() {
    form_case(
        "t186_types_on_text_fields",
        &[
            "{url}/we/want/186",
            "-F",
            "name=daniel;type=moo/foo-.4",
            "-F",
            "html= <body>hello</body>;type=text/html;charset=verymoo",
        ],
    )
    .run(OXCURL);
}

/// curl test 1186: `--form-escape` with a `"` in file names, sent as `\"`.
#[test]
fn t1186_quote_in_file_name_escaped() {
    form_case(
        "t1186_quote_in_file_name_escaped",
        &[
            "{url}/we/want/1186",
            "--form-escape",
            "-F",
            "file=@\"{tmp}/test1186\\\".txt\";type=mo/foo;filename=\"test1186\\\".txt\"",
            "-F",
            "file2=@\"{tmp}/test1186\\\".txt\"",
            "-F",
            "file3=@\"{tmp}/test1186\\\".txt\";type=m/f,\"{tmp}/test1186\\\".txt\"",
        ],
    )
    .file("test1186\".txt", "foo bar\nThis is a bar foo\n")
    .run(OXCURL);
}

/// curl test 1293: `-F=` for two URLs, the first failing to connect: the part for the second
/// has no name at all.
#[test]
fn t1293_form_to_two_urls_first_failing() {
    form_case(
        "t1293_form_to_two_urls_first_failing",
        &["http://0", "{url}/1293", "-F="],
    )
    .run(OXCURL);
}

/// curl tests 277 and 669: a custom `Content-Type` header becomes the body's type, sent
/// after `Content-Length` with the boundary appended; the parts are `form-data` only when
/// that type is multipart/form-data, otherwise named parts are attachments.
#[test]
fn t277_t669_custom_content_type() {
    for (name, headers) in [
        ("t277_text_info", &["Content-Type: text/info"][..]),
        (
            "t669_form_data_with_parameter",
            &["Content-type: multipart/form-data; charset=utf-8"][..],
        ),
        ("mixed", &["content-TYPE:multipart/mixed"][..]),
        (
            "form_data_prefix_only",
            &["Content-Type: multipart/form-dataX"][..],
        ),
        ("blanks_kept_after", &["Content-Type:   text/x  "][..]),
        ("empty_value", &["Content-Type:"][..]),
        ("sent_empty", &["Content-Type;"][..]),
        (
            "semicolon_form_then_colon_form",
            &["Content-Type;", "Content-Type: text/second"][..],
        ),
        (
            "two_colon_forms",
            &["Content-Type: text/first", "Content-Type: text/second"][..],
        ),
        ("blank_before_colon", &["Content-Type : text/x"][..]),
    ] {
        let mut args = vec![
            "{url}/we/want/277",
            "-F",
            "name=daniel",
            "-F",
            "f=@{tmp}/a.txt",
        ];
        for h in headers {
            args.push("-H");
            args.push(h);
        }
        form_case(name, &args).file("a.txt", "file\n").run(OXCURL);
    }
}

/// A chunked form with its chunk framing kept: curl's mime reader ends a read (and so a
/// chunk) where a second read of a file part would be needed within it, and encoders
/// stream what they have.
fn chunked_form_case(name: &str, args: &[&str]) -> Case {
    Case::new(name)
        .args(args)
        .reply(Reply::ok("ok\n"))
        .normalise_requests_with(mask_boundaries)
}

#[test]
fn chunked_form_chunks_end_where_curl_ends_them() {
    chunked_form_case(
        "chunked_form_chunks_end_where_curl_ends_them",
        &[
            "-s",
            "-H",
            "Transfer-Encoding: chunked",
            "-F",
            "a=@{tmp}/one.txt",
            "-F",
            "b=@{tmp}/two.txt",
            "-F",
            "c=value",
            "-F",
            "big=@{tmp}/big.bin",
            "-F",
            "d=@{tmp}/two.txt;encoder=base64",
            "-F",
            "e=<{tmp}/one.txt",
            "-F",
            "f=@{tmp}/two.txt;encoder=7bit",
            "{url}/",
        ],
    )
    .file("one.txt", "first file\n")
    .file("two.txt", "second file, a little longer\n".repeat(9))
    .file(
        "big.bin",
        (0..150_000u32)
            .map(|i| (i % 251) as u8)
            .collect::<Vec<u8>>(),
    )
    .run(OXCURL);
}

#[test]
fn chunked_form_quoted_printable_streams() {
    // Quoted-printable has no size in advance: the body goes chunked on its own.
    chunked_form_case(
        "chunked_form_quoted_printable_streams",
        &[
            "-s",
            "-F",
            "q=@{tmp}/text.txt;encoder=quoted-printable",
            "-F",
            "r=@{tmp}/short.txt;encoder=quoted-printable",
            "-F",
            "s=café = ok ;encoder=quoted-printable",
            "{url}/",
        ],
    )
    .file(
        "text.txt",
        "caf\u{e9} au lait = tr\u{e8}s bon \t\r\nline two with trailing blank \r\n".repeat(40)
            + &"x".repeat(300),
    )
    .file("short.txt", "a=b\r\n")
    .run(OXCURL);
}

#[test]
fn chunked_form_with_stdin_after_a_file() {
    chunked_form_case(
        "chunked_form_with_stdin_after_a_file",
        &[
            "-s",
            "-H",
            "Transfer-Encoding: chunked",
            "-F",
            "a=@{tmp}/one.txt",
            "-F",
            "b=@-",
            "-F",
            "c=<-",
            "{url}/",
        ],
    )
    .file("one.txt", "first file\n")
    .stdin("from stdin\n")
    .run(OXCURL);
}

/// The random part of every boundary in `d`, also where a trace cut it across lines.
fn mask_boundary_tokens(d: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(d).into_owned();
    let dashes = "-".repeat(24);
    let mut tokens = Vec::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find(&dashes) {
        let t = &rest[i + 24..];
        let n = t.bytes().take_while(u8::is_ascii_alphanumeric).count();
        if n == 22 {
            tokens.push(t[..22].to_string());
        }
        rest = &rest[i + 1..];
    }
    tokens
        .iter()
        .fold(s.clone(), |acc, t| acc.replace(t.as_str(), "TOKEN"))
        .into_bytes()
}

#[test]
fn chunked_form_trace_shows_the_chunks() {
    // curl traces its send buffer: the chunk framing, and the last chunk sent with the
    // data when the body's size is known.
    chunked_form_case(
        "chunked_form_trace_shows_the_chunks",
        &[
            "-s",
            "--trace-ascii",
            "-",
            "-H",
            "Transfer-Encoding: chunked",
            "-F",
            "a=@{tmp}/one.txt",
            "-F",
            "b=value",
            "{url}/",
            "-o",
            "/dev/null",
        ],
    )
    .normalise_with(mask_boundary_tokens)
    .file("one.txt", "first file\n")
    .run(OXCURL);
}

#[test]
fn chunked_form_trace_of_unknown_size() {
    chunked_form_case(
        "chunked_form_trace_of_unknown_size",
        &[
            "-s",
            "--trace-ascii",
            "-",
            "-F",
            "a=@{tmp}/one.txt;encoder=quoted-printable",
            "-F",
            "b=value",
            "{url}/",
            "-o",
            "/dev/null",
        ],
    )
    .normalise_with(mask_boundary_tokens)
    .file("one.txt", "first file\n")
    .run(OXCURL);
}
