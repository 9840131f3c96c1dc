//! The bodies of aekit's fuzz targets.
//!
//! Each target is a module with one `run(&[u8])` that panics on a finding.
//! The cargo-fuzz binaries in `fuzz/fuzz_targets/` are one line each that
//! call it under libFuzzer (nightly), and `tests/corpus.rs` replays every
//! committed corpus through the same functions on stable, so what the
//! fuzzers found stays found in every `cargo test`.
//!
//! | target             | what it attacks                                          |
//! |--------------------|----------------------------------------------------------|
//! | `gcm_differential` | every AES-GCM implementation and API against the oracle  |
//! | `gcm_decrypt`      | AES-GCM decryption of chosen bytes, every tag length      |
//! | `aether_decrypt`   | AETHER decryption of chosen bytes                         |
//! | `chunked_decrypt`  | C2SP chunked decryption: stream, parallel, random access  |
//! | `esp_inbound`      | ESP receipt against a model of the anti-replay window     |
//!
//! Inputs are read with [`input::Input`]; `examples/seeds.rs` writes seed
//! inputs from the test vectors in `vectors/` with [`input::Writer`].

pub mod aether_decrypt;
pub mod chunked_decrypt;
pub mod esp_inbound;
pub mod gcm_decrypt;
pub mod gcm_differential;
pub mod input;
pub mod tamper;

/// A fuzz target's body: runs one input, panics on a finding.
pub type Target = fn(&[u8]);

/// Every target, by the name of its fuzz binary and corpus directory.
pub const TARGETS: [(&str, Target); 5] = [
    ("gcm_differential", gcm_differential::run),
    ("gcm_decrypt", gcm_decrypt::run),
    ("aether_decrypt", aether_decrypt::run),
    ("chunked_decrypt", chunked_decrypt::run),
    ("esp_inbound", esp_inbound::run),
];
