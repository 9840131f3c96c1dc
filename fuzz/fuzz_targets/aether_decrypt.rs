//! Fuzz target `aether_decrypt`: the body is `aekit_fuzz::aether_decrypt`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aekit_fuzz::aether_decrypt::run(data));
