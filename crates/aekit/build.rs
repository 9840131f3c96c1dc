//! Compiles the GPU kernel's source (`src/keystream/cuda/aes_ctr.cu`) as
//! plain C into a static library that only the unit tests link: the same
//! per-block code the GPU runs, checked against the CPU producer on every
//! machine, with or without a GPU (see `keystream/cuda/host_test.rs`).

fn main() {
    let source = "src/keystream/cuda/aes_ctr.cu";
    println!("cargo:rerun-if-changed={source}");
    println!("cargo:rerun-if-changed=build.rs");
    cc::Build::new()
        .file(source)
        // The file ends in .cu: tell the C compiler what it is.
        .flag("-xc")
        .flag("-std=c99")
        .opt_level(2)
        .warnings(true)
        // No link line for the library's own targets: only the test module
        // names it, so release builds carry none of it.
        .cargo_metadata(false)
        .compile("aekit_cu_host");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rustc-link-search=native={out}");
}
