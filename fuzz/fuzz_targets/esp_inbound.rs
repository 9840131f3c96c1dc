//! Fuzz target `esp_inbound`: the body is `aekit_fuzz::esp_inbound`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aekit_fuzz::esp_inbound::run(data));
