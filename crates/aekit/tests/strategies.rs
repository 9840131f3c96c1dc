//! Every AES and GHASH strategy against an oracle: AES against FIPS-197
//! and the RustCrypto `aes` crate, GHASH against Algorithm 1
//! (`ghash::field::mul`). Strategies come from the registries, so a new
//! one is tested here without touching this file.

mod common;

use aekit::aes::{Cipher, Strategy as AesStrategy};
use aekit::ghash::{self, Key, field};
use common::{Rng, aes_strategies, ghash_strategies, oracle_aes as oracle_encrypt};
use hex_literal::hex;

#[test]
fn aes_fips197_appendix_c() {
    let plaintext = hex!("00112233445566778899aabbccddeeff");
    let cases: [(&[u8], [u8; 16]); 3] = [
        (
            &hex!("000102030405060708090a0b0c0d0e0f"),
            hex!("69c4e0d86a7b0430d8cdb78070b4c55a"),
        ),
        (
            &hex!("000102030405060708090a0b0c0d0e0f1011121314151617"),
            hex!("dda97ca4864cdfe06eaf70a0ec0d7191"),
        ),
        (
            &hex!("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
            hex!("8ea2b7ca516745bfeafc49904b496089"),
        ),
    ];
    for strategy in aes_strategies() {
        for (key, expected) in cases {
            let aes = Cipher::new(strategy, key).unwrap();
            let mut blocks = [plaintext];
            aes.encrypt_blocks(&mut blocks);
            assert_eq!(
                blocks[0],
                expected,
                "{} AES-{}",
                strategy.name(),
                key.len() * 8
            );
        }
    }
}

#[test]
fn aes_matches_oracle_for_every_batch_length() {
    let mut rng = Rng(1);
    for strategy in aes_strategies() {
        for key_len in [16, 24, 32] {
            for n in 0..=40 {
                let key = rng.bytes(key_len);
                let aes = Cipher::new(strategy, &key).unwrap();
                let mut blocks: Vec<[u8; 16]> = (0..n).map(|_| rng.block()).collect();
                let mut expected = blocks.clone();
                expected.iter_mut().for_each(|b| oracle_encrypt(&key, b));
                aes.encrypt_blocks(&mut blocks);
                assert_eq!(
                    blocks,
                    expected,
                    "{} AES-{} {n} blocks",
                    strategy.name(),
                    key_len * 8
                );
            }
        }
    }
}

#[test]
fn ctr32_is_the_keystream_of_incr32_counters() {
    let mut rng = Rng(2);
    for strategy in aes_strategies() {
        for key_len in [16, 32] {
            let key = rng.bytes(key_len);
            let aes = Cipher::new(strategy, &key).unwrap();
            for len in (0..300).chain([1023, 1024, 1025, 4096 + 7]) {
                let mut start = rng.block();
                if len % 3 == 0 {
                    start[12..].copy_from_slice(&[0xff, 0xff, 0xff, 0xfd]); // wraps mid-stream
                }
                let data = rng.bytes(len);
                let mut expected = data.clone();
                let mut counter = start;
                for chunk in expected.chunks_mut(16) {
                    let mut k = counter;
                    oracle_encrypt(&key, &mut k);
                    chunk.iter_mut().zip(k).for_each(|(d, k)| *d ^= k);
                    aekit::ctr::incr32(&mut counter);
                }
                let mut got = data;
                let mut got_counter = start;
                aes.ctr32(&mut got_counter, &mut got);
                assert_eq!(
                    got,
                    expected,
                    "{} AES-{} len {len}",
                    strategy.name(),
                    key_len * 8
                );
                assert_eq!(
                    got_counter,
                    counter,
                    "{} counter after {len}",
                    strategy.name()
                );
            }
        }
    }
}

#[test]
fn aes_bad_key_lengths_are_errors() {
    for strategy in AesStrategy::ALL {
        for n in [0, 15, 17, 31, 33] {
            assert_eq!(
                Cipher::new(strategy, &vec![0; n]).err(),
                Some(aekit::Error::InvalidKeyLength(n))
            );
        }
    }
}

/// Hash keys that stress the reductions: zero, one, single high and low
/// bits, all ones, and random ones.
fn hash_keys(rng: &mut Rng) -> Vec<[u8; 16]> {
    let mut keys = vec![
        [0u8; 16],
        [0xff; 16],
        field::to_block(1 << 127),
        field::to_block(1),
    ];
    keys.extend((0..12).map(|_| rng.block()));
    keys
}

#[test]
fn ghash_matches_algorithm_1() {
    let mut rng = Rng(3);
    for strategy in ghash_strategies() {
        for h in hash_keys(&mut rng) {
            let key = Key::new(strategy, &h).unwrap();
            for n in 0..=20 {
                let data = rng.bytes(16 * n);
                let start = rng.block();
                let mut expected = field::from_block(&start);
                for x in data.chunks(16) {
                    let x = field::from_block(x.try_into().unwrap());
                    expected = field::mul(expected ^ x, field::from_block(&h));
                }
                let mut y = start;
                key.update_blocks(&mut y, &data);
                assert_eq!(
                    y,
                    field::to_block(expected),
                    "{} with {n} blocks",
                    strategy.name()
                );
            }
        }
    }
}

#[test]
fn ghash_split_updates_equal_one_update() {
    let mut rng = Rng(4);
    for strategy in ghash_strategies() {
        let key = Key::new(strategy, &rng.block()).unwrap();
        let data = rng.bytes(16 * 37);
        let mut whole = [0u8; 16];
        key.update_blocks(&mut whole, &data);
        for split in 0..=37 {
            let mut y = [0u8; 16];
            key.update_blocks(&mut y, &data[..16 * split]);
            key.update_blocks(&mut y, &data[16 * split..]);
            assert_eq!(y, whole, "{} split at block {split}", strategy.name());
        }
    }
}

/// Any length, the last block zero-padded: every strategy (with its own
/// padded read where it has one) equals `update_blocks` over a padded
/// copy, for lengths around the blocks and the wide strategies' chunks.
#[test]
fn ghash_padded_updates_equal_padded_copies() {
    let mut rng = Rng(5);
    for strategy in ghash_strategies() {
        let key = Key::new(strategy, &rng.block()).unwrap();
        for len in (0..=80).chain([127, 128, 129, 255, 256, 257, 300, 511, 513]) {
            let data = rng.bytes(len);
            let start = rng.block();
            let mut padded = data.clone();
            padded.resize(len.next_multiple_of(16), 0);
            let mut expected = start;
            key.update_blocks(&mut expected, &padded);
            let mut y = start;
            key.update_padded(&mut y, &data);
            assert_eq!(y, expected, "{} over {len} bytes", strategy.name());
        }
    }
}

#[test]
fn registry_reports_metadata() {
    for s in ghash::Strategy::ALL {
        assert_eq!(ghash::Strategy::from_name(s.name()), Some(s));
    }
    for s in AesStrategy::ALL {
        assert_eq!(AesStrategy::from_name(s.name()), Some(s));
    }
    assert!(ghash::Strategy::best().is_constant_time());
    assert!(ghash::Strategy::best().is_available());
    assert!(AesStrategy::best().is_constant_time());
    assert!(AesStrategy::best().is_available());
}

/// On AArch64 likewise: `armv8`, `pmull` and the `aes-pmull` kernel run
/// wherever the CPU has the AES instructions (with PMULL).
#[test]
#[cfg(target_arch = "aarch64")]
fn aarch64_strategies_run_where_the_cpu_has_them() {
    let has = std::arch::is_aarch64_feature_detected!("aes");
    assert_eq!(AesStrategy::Armv8.is_available(), has);
    assert_eq!(ghash::Strategy::Pmull.is_available(), has);
    assert_eq!(aekit::gcm::Fused::AesPmull.is_available(), has);
    // With no cap set, the default key runs on the kernel.
    if has && std::env::var_os("AEKIT_KERNEL").is_none_or(|v| v.is_empty()) {
        let gcm = aekit::AesGcm::new(&[0x11; 16]).unwrap();
        assert_eq!(gcm.fused_kernel(), Some(aekit::gcm::Fused::AesPmull));
        assert_eq!(gcm.implementation(), "fused aes-pmull");
    }
    if !has {
        common::skip("armv8, pmull, aes-pmull: no AES instructions on this CPU");
    }
}

/// A strategy this CPU can run must report itself available: a detection
/// bug would otherwise silently drop it from every test above.
#[test]
#[cfg(target_arch = "x86_64")]
fn hardware_strategies_run_where_the_cpu_has_them() {
    use std::arch::is_x86_feature_detected as has;
    if has!("aes") && has!("sse4.1") {
        assert!(AesStrategy::Ni.is_available());
    }
    if has!("pclmulqdq") && has!("ssse3") {
        assert!(ghash::Strategy::Clmul.is_available());
    }
    for s in AesStrategy::ALL
        .into_iter()
        .filter(|s| !s.is_constant_time())
    {
        assert!(
            s.is_available(),
            "portable strategy {} must always run",
            s.name()
        );
    }
}
