//! `aekit info`: what this machine offers and what aekit makes of it.
//!
//! The CPU features that matter to AES-GCM (detected at run time, as the
//! strategies themselves detect them), then both strategy registries read
//! as data: availability, constant-time or not, key-dependent storage, and
//! which one `best()` picks; then the fused kernels and the implementation
//! `AesGcm::new` chooses, which is what `encrypt` and `decrypt` use.

use aekit::chunked::Aead;
use aekit::gcm::Fused;
use aekit::{AesGcm, aes, ghash};

use std::io::{self, Write};

/// The CPU features found, as (name, present) pairs.
fn cpu_features() -> Vec<(&'static str, bool)> {
    #[cfg(target_arch = "x86_64")]
    {
        vec![
            ("sse2", is_x86_feature_detected!("sse2")),
            ("ssse3", is_x86_feature_detected!("ssse3")),
            ("sse4.1", is_x86_feature_detected!("sse4.1")),
            ("aes", is_x86_feature_detected!("aes")),
            ("pclmulqdq", is_x86_feature_detected!("pclmulqdq")),
            ("avx", is_x86_feature_detected!("avx")),
            ("avx2", is_x86_feature_detected!("avx2")),
            ("bmi2", is_x86_feature_detected!("bmi2")),
            ("avx512f", is_x86_feature_detected!("avx512f")),
            ("avx512vl", is_x86_feature_detected!("avx512vl")),
            ("vaes", is_x86_feature_detected!("vaes")),
            ("vpclmulqdq", is_x86_feature_detected!("vpclmulqdq")),
        ]
    }
    #[cfg(target_arch = "aarch64")]
    {
        vec![
            ("neon", std::arch::is_aarch64_feature_detected!("neon")),
            ("aes", std::arch::is_aarch64_feature_detected!("aes")),
            ("pmull", std::arch::is_aarch64_feature_detected!("pmull")),
        ]
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Vec::new()
    }
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// One registry as a table: ((token, available, constant-time), storage,
/// default) per strategy.
fn table<const N: usize>(
    out: &mut dyn Write,
    title: &str,
    rows: [((&str, bool, bool), usize, bool); N],
) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "{title}")?;
    writeln!(
        out,
        "  {:<10} {:<10} {:<14} {:>8}",
        "strategy", "available", "constant-time", "bytes"
    )?;
    for ((name, available, constant_time), storage, default) in rows {
        let line = format!(
            "  {name:<10} {:<10} {:<14} {storage:>8}  {}",
            yes(available),
            yes(constant_time),
            if default { "default" } else { "" }
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Writes the report to `out`; a failed write is returned, not a panic.
pub fn run(out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "aekit {}", env!("CARGO_PKG_VERSION"))?;
    let features = cpu_features();
    let found: Vec<&str> = features.iter().filter(|f| f.1).map(|f| f.0).collect();
    let missing: Vec<&str> = features.iter().filter(|f| !f.1).map(|f| f.0).collect();
    writeln!(out, "CPU ({}):", std::env::consts::ARCH)?;
    let list = |names: Vec<&str>| match names.is_empty() {
        true => "(none)".to_owned(),
        false => names.join(" "),
    };
    writeln!(out, "  found:   {}", list(found))?;
    writeln!(out, "  missing: {}", list(missing))?;
    writeln!(
        out,
        "  threads: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )?;
    table(
        out,
        "AES strategies (bytes: key-dependent storage for an AES-256 key)",
        aes::Strategy::ALL.map(|s| {
            let row = (s.name(), s.is_available(), s.is_constant_time());
            (row, s.storage_bytes(), s == aes::Strategy::best())
        }),
    )?;
    table(
        out,
        "GHASH strategies (bytes: key-dependent storage)",
        ghash::Strategy::ALL.map(|s| {
            let row = (s.name(), s.is_available(), s.is_constant_time());
            (row, s.storage_bytes(), s == ghash::Strategy::best())
        }),
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "Fused kernels (AES and GHASH in one pass; all constant-time)"
    )?;
    for f in Fused::ALL {
        let (a, g) = f.strategies();
        let line = format!(
            "  {:<12} {:<10} keys of {} + {}  {}",
            f.name(),
            yes(f.is_available()),
            a.name(),
            g.name(),
            if Some(f) == Fused::best() {
                "default"
            } else {
                ""
            }
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    writeln!(out)?;
    let default = AesGcm::new(&[0; 16]).map_or_else(|e| e.to_string(), |g| g.implementation());
    writeln!(
        out,
        "Default: {default} (the fastest constant-time implementation here)"
    )?;
    if let Ok(cap) = std::env::var("AEKIT_KERNEL")
        && !cap.is_empty()
    {
        writeln!(
            out,
            "  capped by AEKIT_KERNEL={cap} (vaes-avx512, vaes-avx2, ni-clmul, aes-pmull, pair, portable)"
        )?;
    }
    gpu(out)?;
    writeln!(out, "File format: C2SP chunked encryption, 16 KiB chunks")?;
    for aead in Aead::ALL {
        writeln!(
            out,
            "  {:<16} --aead {}  ({}-byte keys; chosen by the key's size)",
            aead.instantiation(),
            aead.name(),
            aead.key_len()
        )?;
    }
    Ok(())
}

/// The GPU line: the device the GPU keystream producer would use.
#[cfg(feature = "gpu")]
fn gpu(out: &mut dyn Write) -> io::Result<()> {
    match aekit::keystream::device_info(0) {
        Ok(gpu) => writeln!(
            out,
            "GPU: {} (compute capability {}.{}, {} multiprocessors, {} MiB), CUDA driver {}.{}: the GPU keystream producer is usable",
            gpu.name,
            gpu.compute_capability.0,
            gpu.compute_capability.1,
            gpu.multiprocessors,
            gpu.memory_bytes >> 20,
            gpu.driver_version / 1000,
            gpu.driver_version % 1000 / 10
        ),
        Err(e) => writeln!(out, "GPU: none usable ({e})"),
    }
}

/// The GPU line of a build without the GPU producer.
#[cfg(not(feature = "gpu"))]
fn gpu(out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "GPU: not in this build (the GPU keystream producer is feature `gpu`)"
    )
}
