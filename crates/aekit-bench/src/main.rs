//! `aekit-bench`: throughput of aekit beside its peers, measured in one run.
//!
//! ```text
//! cargo run --release -p aekit-bench -- peers [--quick]
//! cargo run --release -p aekit-bench -- aether
//! ```
//!
//! Subcommands:
//!
//! - `peers`: aekit's default AES-128-GCM and AES-256-GCM, encryption and
//!   decryption, 16 B to 1 MiB, beside aws-lc-rs, ring and `aes-gcm`.
//! - `aether`: AETHER encryption in every implementation this CPU runs,
//!   beside AEGIS-256 (the `aegis` crate), Ascon-AEAD128 (`ascon-aead`) and
//!   aekit's AES-256-GCM, at 64 B, 1 KiB, 16 KiB and 1 MiB.
#![forbid(unsafe_code)]

mod aether;
mod peers;

/// The measuring harness, shared with the `aekit bench` command.
use aekit_harness as harness;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("aether") => aether::run(),
        Some("peers") => peers::run(args.iter().any(|a| a == "--quick")),
        _ => {
            eprintln!(
                "usage: aekit-bench <subcommand>\n\nsubcommands:\n  peers    aekit AES-GCM beside aws-lc-rs, ring and aes-gcm [--quick]\n  aether   AETHER beside AEGIS-256, Ascon-AEAD128 and AES-256-GCM"
            );
            std::process::exit(2);
        }
    }
}
