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
//! - `prefixes`: fixed parts of the IV and of the associated data hashed
//!   once (`IvPrefix`, `AadPrefix`) against the same messages hashed whole,
//!   at 16 B to 1500 B.
//!
//! The AES-GCM comparison with aws-lc-rs, ring, RustCrypto and OpenSSL is
//! the command's: `aekit bench --suite peers`, so any user can run it.
#![forbid(unsafe_code)]

mod aether;
mod prefixes;

/// The measuring harness, shared with the `aekit bench` command.
use aekit_harness as harness;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("aether") => aether::run(),
        Some("prefixes") => prefixes::run(),
        Some("peers") => {
            eprintln!(
                "the AES-GCM peers moved to the command: aekit bench --suite peers [--quick]"
            );
            std::process::exit(2);
        }
        _ => {
            eprintln!(
                "usage: aekit-bench <subcommand>\n\nsubcommands:\n  aether     AETHER beside AEGIS-256, Ascon-AEAD128 and AES-256-GCM\n  prefixes   IV and AAD prefixes hashed once against messages hashed whole\n\nAES-GCM beside its peers: aekit bench --suite peers"
            );
            std::process::exit(2);
        }
    }
}
