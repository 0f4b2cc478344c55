//! Temporary directories and quickly created big files.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A directory under the system temp dir that is removed (recursively) on drop.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
    keep: bool,
}

impl TempDir {
    /// Creates a fresh, empty directory whose name starts with `oxcurl-<prefix>-`.
    pub fn new(prefix: &str) -> TempDir {
        let base = std::env::temp_dir();
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = base.join(format!(
                "oxcurl-{prefix}-{}-{n}-{nanos:08x}",
                std::process::id()
            ));
            match fs::create_dir(&path) {
                Ok(()) => return TempDir { path, keep: false },
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => panic!("cannot create temp dir {}: {e}", path.display()),
            }
        }
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `path().join(rel)`.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.path.join(rel)
    }

    /// Keeps the directory on disk after drop (useful when debugging a failing test).
    pub fn keep(&mut self) {
        self.keep = true;
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// Creates (or truncates) `path` as a sparse file of `len` bytes, all zero. This is
/// instant even for many gigabytes, which suits big-download and upload tests.
pub fn sparse_file(path: impl AsRef<Path>, len: u64) -> io::Result<File> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    f.set_len(len)?;
    Ok(f)
}

/// Reads every regular file below `dir` into a sorted map keyed by the path relative to
/// `dir` (with `/` separators). Symlinks are reported with the target as content,
/// prefixed by `-> `.
pub fn snapshot_dir(dir: &Path) -> io::Result<std::collections::BTreeMap<String, Vec<u8>>> {
    let mut out = std::collections::BTreeMap::new();
    fn walk(
        root: &Path,
        dir: &Path,
        out: &mut std::collections::BTreeMap<String, Vec<u8>>,
    ) -> io::Result<()> {
        let mut entries: Vec<_> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned();
            let ft = e.file_type()?;
            if ft.is_symlink() {
                let target = fs::read_link(&p)?;
                let mut v = b"-> ".to_vec();
                v.extend_from_slice(target.to_string_lossy().as_bytes());
                out.insert(rel, v);
            } else if ft.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(root, &p, out)?;
            } else {
                out.insert(rel, fs::read(&p)?);
            }
        }
        Ok(())
    }
    walk(dir, dir, &mut out)?;
    Ok(out)
}
