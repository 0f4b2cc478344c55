//! Compiles the C shim that turns curl's variadic entry points into typed Rust calls.
fn main() {
    println!("cargo:rerun-if-changed=src/shim.c");
    println!("cargo:rerun-if-changed=src/mprintf.c");
    cc::Build::new()
        .file("src/shim.c")
        .file("src/mprintf.c")
        .warnings(true)
        .flag_if_supported("-fvisibility=hidden")
        .compile("oxcurl_shim");
}
