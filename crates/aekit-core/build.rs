//! Sets `aekit_armv7m` on the Thumb-2 M-profile targets (ARMv7-M,
//! ARMv7E-M, ARMv8-M Mainline), where the AES round has its assembly
//! (`src/aes/fixslice/armv7m.rs`): stable Rust exposes no target feature
//! that tells them from other ARM targets.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(aekit_armv7m)");
    println!("cargo::rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if ["thumbv7m-", "thumbv7em-", "thumbv8m.main-"]
        .iter()
        .any(|p| target.starts_with(p))
    {
        println!("cargo::rustc-cfg=aekit_armv7m");
    }
}
