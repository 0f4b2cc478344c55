//! Building libcurl.so.4 and C test programs, for the C ABI tests.
#![allow(dead_code)]

pub mod cgi;

use oxcurl_testsupport::process::{lib_under_test, reference_curl, Exec, Output};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The directory of the libcurl.so.4 under test: `$OXCURL_LIB_UNDER_TEST` when set (used
/// as it is, nothing linked), else target/debug, where scripts/build-libcurl.sh links (or
/// finds up to date) libcurl.so.4 from the staticlib cargo built together with this test (so
/// no nested cargo build).
pub fn ours() -> PathBuf {
    static SO: OnceLock<PathBuf> = OnceLock::new();
    SO.get_or_init(|| {
        if let Some(dir) = lib_under_test() {
            return dir;
        }
        let out = Command::new("bash")
            .arg(root().join("scripts/build-libcurl.sh"))
            .arg("--link-only")
            .output()
            .expect("run build-libcurl.sh");
        assert!(
            out.status.success(),
            "build-libcurl.sh failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let so = root().join(String::from_utf8_lossy(&out.stdout).trim());
        assert!(so.is_file(), "{} missing", so.display());
        so.parent().expect("dir").to_path_buf()
    })
    .clone()
}

/// The reference installation (bin/, lib/, include/ under one prefix).
pub fn reference_prefix() -> PathBuf {
    reference_curl()
        .parent()
        .and_then(|p| p.parent())
        .expect("prefix")
        .to_path_buf()
}

pub fn include_dir() -> PathBuf {
    reference_prefix().join("include")
}

/// Which libcurl a program links to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lib {
    Ours,
    Reference,
}

impl Lib {
    pub fn dir(self) -> PathBuf {
        match self {
            Lib::Ours => ours(),
            Lib::Reference => reference_prefix().join("lib"),
        }
    }
}

/// Compiles tests/c/<name>.c against curl's headers and links it to `lib`.
pub fn compile(name: &str, lib: Lib) -> PathBuf {
    let libdir = lib.dir();
    let outdir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cabi-tests");
    std::fs::create_dir_all(&outdir).expect("mkdir");
    let exe = outdir.join(format!("{name}-{lib:?}-{}", std::process::id()));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/c/{name}.c"));
    let out = Command::new("gcc")
        .args(["-g", "-O0", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg("-I")
        .arg(include_dir())
        .arg(&src)
        .arg("-L")
        .arg(&libdir)
        // By its soname: a directory under test need not have the development link
        // libcurl.so.
        .arg("-l:libcurl.so.4")
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "gcc {name}.c: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs a compiled program with its library found through LD_LIBRARY_PATH.
pub fn run(exe: &Path, lib: Lib, args: &[&str]) -> Output {
    Exec::new(exe)
        .args(args)
        .env("LD_LIBRARY_PATH", lib.dir())
        .run()
}

/// Compiles and runs `name` against `lib`, asserting it exits 0.
pub fn run_ok(name: &str, lib: Lib, args: &[&str]) -> String {
    let exe = compile(name, lib);
    let out = run(&exe, lib, args);
    let _ = std::fs::remove_file(&exe);
    assert_eq!(
        out.code,
        Some(0),
        "{name} against {lib:?}: stdout {} stderr {}",
        out.stdout_str(),
        out.stderr_str()
    );
    out.stdout_str()
}
