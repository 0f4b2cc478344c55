//! Compiles the C shim that turns curl's variadic entry points into typed Rust calls.
fn main() {
    println!("cargo:rerun-if-changed=src/shim.c");
    cc::Build::new()
        .file("src/shim.c")
        .warnings(true)
        .flag_if_supported("-fvisibility=hidden")
        .compile("oxcurl_shim");
}
