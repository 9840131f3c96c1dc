//! Fuzz target `gcm_differential`: the body is `aekit_fuzz::gcm_differential`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aekit_fuzz::gcm_differential::run(data));
