//! Fuzz target `chunked_decrypt`: the body is `aekit_fuzz::chunked_decrypt`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aekit_fuzz::chunked_decrypt::run(data));
