//! Fuzz target `gcm_decrypt`: the body is `aekit_fuzz::gcm_decrypt`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aekit_fuzz::gcm_decrypt::run(data));
