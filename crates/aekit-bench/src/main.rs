//! `aekit-bench`: throughput of aekit beside its peers, measured in one run.
//!
//! ```text
//! cargo run --release -p aekit-bench -- aether
//! ```
//!
//! Subcommands:
//!
//! - `aether`: AETHER encryption in every implementation this CPU runs,
//!   beside AEGIS-256 (the `aegis` crate), Ascon-AEAD128 (`ascon-aead`) and
//!   aekit's AES-256-GCM, at 64 B, 1 KiB, 16 KiB and 1 MiB.
#![deny(unsafe_code)] // allowed once, for `rdtsc` in harness.rs

mod aether;
mod harness;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("aether") => aether::run(),
        _ => {
            eprintln!(
                "usage: aekit-bench <subcommand>\n\nsubcommands:\n  aether   AETHER beside AEGIS-256, Ascon-AEAD128 and AES-256-GCM"
            );
            std::process::exit(2);
        }
    }
}
