//! Link settings for the shared library. Writes nothing outside OUT_DIR.

fn main() {
    // Clients record the SONAME, so minor releases can replace the file in place.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libseqshim.so.0");
    // Refuse to produce a library with undefined symbols: a missing symbol must
    // fail our build, not a user's program at load time.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,defs");
    // Executor threads and the CUDA runtime outlive any dlclose() by the host.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    // The C test programs in ffi-tests/ are compiled from `cargo test` with the
    // `cc` crate, which needs to know the target triple.
    println!(
        "cargo:rustc-env=SEQSHIM_BUILD_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!("cargo:rerun-if-changed=build.rs");
}
