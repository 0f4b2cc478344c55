//! Content decoding for `--compressed` (curl's lib/content_encoding.c): gzip, deflate, br and
//! zstd, chained in the reverse order of the `Content-Encoding` list. Push-style and sans-IO:
//! compressed bytes in, decoded bytes out through a sink, from fixed buffers allocated once.

use std::fmt;

use brotli_decompressor::{BrotliDecompressStream, BrotliResult, BrotliState, StandardAlloc};
use flate2::{Decompress, FlushDecompress, Status};

/// The `Accept-Encoding` value curl 8.14.1 sends with `--compressed`.
pub const ACCEPT_ENCODING: &str = "deflate, gzip, br, zstd";

/// Decoded output is produced in pieces of this size.
const OUT_CHUNK: usize = 16 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    Identity,
    Gzip,
    Deflate,
    Br,
    Zstd,
}

/// Why decoding failed; `Display` gives the text curl puts after its error code.
#[derive(Debug)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The sink refused data (a write error, reported by the caller).
const SINK: &str = "sink";

enum Stage {
    Zlib {
        z: Box<Decompress>,
        gzip: bool,
        done: bool,
        tried_raw: bool,
        seen: u64,
    },
    Br(
        Box<BrotliState<StandardAlloc, StandardAlloc, StandardAlloc>>,
        bool,
    ),
    Zstd {
        d: Box<ruzstd::decoding::FrameDecoder>,
        pending: Vec<u8>,
    },
}

/// A chain of decoders for one response body.
pub struct Decoder {
    stages: Vec<Stage>,
    /// One output buffer per stage.
    bufs: Vec<Vec<u8>>,
}

impl fmt::Debug for Decoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder")
            .field("stages", &self.stages.len())
            .finish()
    }
}

fn coding(name: &[u8]) -> Option<Coding> {
    let n = name.to_ascii_lowercase();
    Some(match n.as_slice() {
        b"identity" | b"none" => Coding::Identity,
        b"gzip" | b"x-gzip" => Coding::Gzip,
        b"deflate" => Coding::Deflate,
        b"br" => Coding::Br,
        b"zstd" => Coding::Zstd,
        _ => return None,
    })
}

impl Decoder {
    /// A decoder for a `Content-Encoding` value.
    pub fn new(content_encoding: &[u8]) -> Result<Decoder, DecodeError> {
        let mut stages = Vec::new();
        for name in crate::proto::h1::head::codings(content_encoding) {
            if name.is_empty() {
                continue;
            }
            let stage = match coding(name) {
                Some(Coding::Identity) => continue,
                Some(Coding::Gzip) => Stage::Zlib { z: Box::new(Decompress::new_gzip(15)), gzip: true, done: false, tried_raw: false, seen: 0 },
                Some(Coding::Deflate) => Stage::Zlib { z: Box::new(Decompress::new(true)), gzip: false, done: false, tried_raw: false, seen: 0 },
                Some(Coding::Br) => Stage::Br(
                    Box::new(BrotliState::new(StandardAlloc::default(), StandardAlloc::default(), StandardAlloc::default())),
                    false,
                ),
                Some(Coding::Zstd) => Stage::Zstd { d: Box::new(ruzstd::decoding::FrameDecoder::new()), pending: Vec::new() },
                None => {
                    return Err(DecodeError(format!(
                        "Unrecognized content encoding type. libcurl understands {ACCEPT_ENCODING} content encodings."
                    )))
                }
            };
            stages.push(stage);
        }
        // Applied in listed order, so decoded in reverse.
        stages.reverse();
        let bufs = (0..stages.len()).map(|_| vec![0u8; OUT_CHUNK]).collect();
        Ok(Decoder { stages, bufs })
    }

    /// Decode a piece of the body.
    pub fn decode(
        &mut self,
        input: &[u8],
        sink: &mut dyn FnMut(&[u8]) -> Result<(), ()>,
    ) -> Result<(), DecodeError> {
        run(&mut self.stages, &mut self.bufs, input, false, sink)
    }

    /// The body ended: flush and check the streams are complete.
    pub fn finish(
        &mut self,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), ()>,
    ) -> Result<(), DecodeError> {
        run(&mut self.stages, &mut self.bufs, &[], true, sink)
    }
}

fn run(
    stages: &mut [Stage],
    bufs: &mut [Vec<u8>],
    input: &[u8],
    last: bool,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), ()>,
) -> Result<(), DecodeError> {
    let Some((first, rest)) = stages.split_first_mut() else {
        if input.is_empty() {
            return Ok(());
        }
        return sink(input).map_err(|_| DecodeError(SINK.into()));
    };
    let (buf, rest_bufs) = bufs.split_first_mut().expect("one buffer per stage");
    let mut next =
        |out: &[u8]| -> Result<(), DecodeError> { run(rest, rest_bufs, out, false, sink) };
    match first {
        Stage::Zlib {
            z,
            gzip,
            done,
            tried_raw,
            seen,
        } => {
            let mut inp = input;
            loop {
                if *done {
                    // Data after the end of a gzip/zlib stream is ignored, as curl does.
                    break;
                }
                let before_in = z.total_in();
                let before_out = z.total_out();
                let flush = if last {
                    FlushDecompress::Finish
                } else {
                    FlushDecompress::None
                };
                let r = z.decompress(inp, buf, flush);
                let used = (z.total_in() - before_in) as usize;
                let made = (z.total_out() - before_out) as usize;
                *seen += used as u64;
                inp = &inp[used..];
                match r {
                    Ok(st) => {
                        if made > 0 {
                            next(&buf[..made])?;
                        }
                        if st == Status::StreamEnd {
                            *done = true;
                            break;
                        }
                        if made == 0 && (inp.is_empty() || used == 0) {
                            if last && !*done {
                                return Err(DecodeError("Error while processing content unencoding: invalid code lengths set".into()).truncated());
                            }
                            break;
                        }
                    }
                    Err(e) => {
                        if !*gzip && !*tried_raw && *seen <= 2 {
                            // Servers send raw deflate as "deflate"; curl retries without the
                            // zlib header.
                            *tried_raw = true;
                            **z = Decompress::new(false);
                            inp = input;
                            *seen = 0;
                            continue;
                        }
                        return Err(DecodeError(format!(
                            "Error while processing content unencoding: {}",
                            zmsg(&e)
                        )));
                    }
                }
            }
            if last && !*done {
                return Err(DecodeError(
                    "Error while processing content unencoding: unexpected end of file".into(),
                ));
            }
            if last {
                next(&[])?;
            }
            Ok(())
        }
        Stage::Br(state, finished) => {
            let mut avail_in = input.len();
            let mut in_off = 0;
            loop {
                let mut avail_out = buf.len();
                let mut out_off = 0;
                let mut total = 0;
                let r = BrotliDecompressStream(
                    &mut avail_in,
                    &mut in_off,
                    input,
                    &mut avail_out,
                    &mut out_off,
                    buf,
                    &mut total,
                    state,
                );
                if out_off > 0 {
                    next(&buf[..out_off])?;
                }
                match r {
                    BrotliResult::ResultSuccess => {
                        *finished = true;
                        break;
                    }
                    BrotliResult::NeedsMoreOutput => continue,
                    BrotliResult::NeedsMoreInput => break,
                    BrotliResult::ResultFailure => {
                        return Err(DecodeError(
                            "Error while processing content unencoding: brotli decoding failed"
                                .into(),
                        ))
                    }
                }
            }
            if last && !*finished {
                return Err(DecodeError(
                    "Error while processing content unencoding: brotli stream incomplete".into(),
                ));
            }
            if last {
                next(&[])?;
            }
            Ok(())
        }
        Stage::Zstd { d, pending } => {
            pending.extend_from_slice(input);
            let mut off = 0;
            loop {
                match d.decode_from_to(&pending[off..], buf) {
                    Ok((read, written)) => {
                        off += read;
                        if written > 0 {
                            next(&buf[..written])?;
                        }
                        if d.is_finished() && d.can_collect() == 0 {
                            if off < pending.len() {
                                // Another frame follows.
                                **d = ruzstd::decoding::FrameDecoder::new();
                                continue;
                            }
                            break;
                        }
                        if read == 0 && written == 0 {
                            break;
                        }
                    }
                    Err(e) => {
                        if matches!(
                            e,
                            ruzstd::decoding::errors::FrameDecoderError::ReadFrameHeaderError(_)
                        ) && !last
                            && pending.len() - off < 18
                        {
                            break;
                        }
                        return Err(DecodeError(format!(
                            "Error while processing content unencoding: {e}"
                        )));
                    }
                }
            }
            pending.drain(..off);
            if last {
                if !d.is_finished() || !pending.is_empty() {
                    return Err(DecodeError(
                        "Error while processing content unencoding: zstd stream incomplete".into(),
                    ));
                }
                next(&[])?;
            }
            Ok(())
        }
    }
}

trait Truncated {
    fn truncated(self) -> DecodeError;
}
impl Truncated for DecodeError {
    fn truncated(self) -> DecodeError {
        DecodeError("Error while processing content unencoding: unexpected end of file".into())
    }
}

fn zmsg(e: &flate2::DecompressError) -> String {
    let s = e.to_string();
    s.strip_prefix("deflate decompression error: ")
        .unwrap_or(&s)
        .to_string()
}

/// True when a sink error (not a decoding error) stopped decoding.
pub fn is_sink_error(e: &DecodeError) -> bool {
    e.0 == SINK
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn decode_in_pieces(ce: &str, body: &[u8], piece: usize) -> Result<Vec<u8>, DecodeError> {
        let mut d = Decoder::new(ce.as_bytes())?;
        let mut out = Vec::new();
        for p in body.chunks(piece.max(1)) {
            d.decode(p, &mut |b| {
                out.extend_from_slice(b);
                Ok(())
            })?;
        }
        d.finish(&mut |b| {
            out.extend_from_slice(b);
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn gzip_any_split() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let z = gz(&data);
        for piece in [1, 7, 4096, z.len()] {
            assert_eq!(decode_in_pieces("gzip", &z, piece).unwrap(), data);
        }
    }

    #[test]
    fn deflate_zlib_and_raw() {
        let data = b"hello hello hello hello";
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        assert_eq!(
            decode_in_pieces("deflate", &e.finish().unwrap(), 3).unwrap(),
            data
        );
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        assert_eq!(
            decode_in_pieces("deflate", &e.finish().unwrap(), 100).unwrap(),
            data
        );
    }

    #[test]
    fn chained_and_errors() {
        let data = b"abcabcabc";
        let twice = gz(&gz(data));
        assert_eq!(decode_in_pieces("gzip, gzip", &twice, 5).unwrap(), data);
        assert!(decode_in_pieces("gzip", b"not gzip at all", 4).is_err());
        let z = gz(data);
        assert!(decode_in_pieces("gzip", &z[..z.len() - 5], 4).is_err());
        assert!(Decoder::new(b"foo").is_err());
        assert_eq!(decode_in_pieces("identity", b"x", 1).unwrap(), b"x");
    }
}
