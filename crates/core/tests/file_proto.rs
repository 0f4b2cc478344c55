//! file:// through the engine's callbacks: what curl's `file.c` does that the tool cannot
//! show. Run against real files in a temporary directory.

use std::sync::{Arc, Mutex};

use oxcurl_core::easy::Easy;
use oxcurl_core::error::Code;
use oxcurl_core::options::{Callbacks, Options, WRITEFUNC_PAUSE};
use oxcurl_testsupport::TempDir;

/// Records the sizes the write callback got; pauses on the first call when asked.
struct Writes {
    sizes: Arc<Mutex<Vec<usize>>>,
    pause_first: bool,
}

impl Callbacks for Writes {
    fn write(&mut self, data: &[u8]) -> usize {
        let mut s = self.sizes.lock().unwrap();
        s.push(data.len());
        if self.pause_first && s.len() == 1 {
            return WRITEFUNC_PAUSE;
        }
        data.len()
    }
}

fn run(len: usize, pause_first: bool, buffer_size: usize) -> (Result<(), Code>, Vec<usize>) {
    let dir = TempDir::new("file-proto");
    let path = dir.join("f");
    std::fs::write(&path, vec![7u8; len]).unwrap();
    let sizes = Arc::new(Mutex::new(Vec::new()));
    let opts = Options {
        url: Some(format!("file://{}", path.to_string_lossy())),
        buffer_size,
        ..Options::default()
    };
    let mut e = Easy::new(
        opts,
        Box::new(Writes {
            sizes: sizes.clone(),
            pause_first,
        }),
    );
    let r = e.perform().map_err(|e| e.code);
    let s = sizes.lock().unwrap().clone();
    (r, s)
}

/// curl reads one byte less than its buffer at a time and hands at most 16 KiB to each call.
#[test]
fn file_chunks_as_curl_reads_them() {
    let (r, sizes) = run(100_000, false, 16_384);
    assert_eq!(r, Ok(()));
    assert_eq!(sizes.iter().sum::<usize>(), 100_000);
    assert!(sizes.iter().all(|&n| n <= 16_383), "{sizes:?}");
    assert_eq!(sizes[0], 16_383);
    let (_, sizes) = run(100_000, false, 102_400);
    assert_eq!(
        sizes,
        vec![16_384; 6]
            .into_iter()
            .chain([1_696])
            .collect::<Vec<_>>()
    );
}

/// curl's cw_out refuses a pause for a protocol without a network: 23.
#[test]
fn file_write_callback_pause_fails() {
    let (r, sizes) = run(1000, true, 16_384);
    assert_eq!(r, Err(Code::WriteError));
    assert_eq!(sizes, vec![1000]);
}
