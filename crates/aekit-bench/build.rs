//! Compiles `c/ipsec_mb.c`, the calls into Intel's ipsec-mb, where the
//! library's header is installed (Debian: `libipsec-mb-dev`), and links the
//! library; the benchmarks then measure it as a peer (`cfg(ipsec_mb)`).
//! Where it is not, the peer prints one SKIP line and the rest builds as
//! before (set `AEKIT_BENCH_NO_IPSEC_MB=1` to build that way here).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(ipsec_mb)");
    println!("cargo::rerun-if-changed=c/ipsec_mb.c");
    println!("cargo::rerun-if-env-changed=AEKIT_BENCH_NO_IPSEC_MB");
    let x86_64 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
    let wanted = std::env::var_os("AEKIT_BENCH_NO_IPSEC_MB").is_none();
    let found = x86_64
        && wanted
        && cc::Build::new()
            .file("c/ipsec_mb.c")
            .warnings(true)
            .cargo_warnings(false)
            .try_compile("aekit_ipsec_mb")
            .is_ok();
    if found {
        println!("cargo::rustc-link-lib=dylib=IPSec_MB");
        println!("cargo::rustc-cfg=ipsec_mb");
    } else {
        println!(
            "cargo::warning=ipsec-mb not found (Debian: libipsec-mb-dev): its peer rows will say SKIP"
        );
    }
}
