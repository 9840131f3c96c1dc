//! FACE counter mode (`aekit::ctr::face`) makes exactly the plain counter
//! mode keystream: every variant, on every AES strategy FACE applies to,
//! for AES-128/192/256, from every low counter byte, across every cache
//! reset (a change of bytes 12..14), across the 32-bit wrap of incr32, and
//! inside GCM (one-shot over several passes, and on-line in pieces).
//! The oracle is plain counter mode on `table` AES.

mod common;

use aekit::aes::{Cipher, Strategy as Aes};
use aekit::ctr::face::{self, Variant};
use aekit::ghash::Strategy as Ghash;
use aekit::{AesGcm, Error};
use common::Rng;

const KEY_LENGTHS: [usize; 3] = [16, 24, 32];

/// The AES strategies FACE applies to (all of them run everywhere).
fn face_strategies() -> Vec<Aes> {
    let all: Vec<Aes> = Aes::ALL
        .into_iter()
        .filter(|&a| face::supports(a))
        .collect();
    assert_eq!(all, [Aes::Table, Aes::Fixslice]);
    all
}

/// FACE from `counter` over `len` bytes equals plain counter mode, data
/// and final counter both.
fn check(key: &[u8], strategy: Aes, variant: Variant, counter: [u8; 16], len: usize, id: &str) {
    let oracle = Cipher::new(Aes::Table, key).unwrap();
    let cipher = Cipher::new(strategy, key).unwrap();
    let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
    let (mut want, mut want_counter) = (data.clone(), counter);
    oracle.ctr32(&mut want_counter, &mut want);
    let (mut got, mut got_counter) = (data, counter);
    face::ctr32(&cipher, variant, &mut got_counter, &mut got).unwrap();
    let id = format!(
        "{}/{} AES-{} {id}, {len} bytes",
        strategy.name(),
        variant.name(),
        key.len() * 8
    );
    if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
        panic!("{id}: keystream differs first in block {}", i / 16);
    }
    assert_eq!(got_counter, want_counter, "{id}: counter left");
}

fn counter_with_low(prefix: u8, low: u32) -> [u8; 16] {
    let mut c = [prefix; 16];
    c[12..].copy_from_slice(&low.to_be_bytes());
    c
}

#[test]
fn every_start_byte_and_every_short_length() {
    let mut rng = Rng(0xface_0001);
    for strategy in face_strategies() {
        for key_len in KEY_LENGTHS {
            let key = rng.bytes(key_len);
            for variant in Variant::ALL {
                for low in 0..=255u32 {
                    // Low bytes near a reset of bytes 12..14, and the wrap.
                    for high in [0x1234_5600, 0xffff_ff00] {
                        let counter = counter_with_low(0xa7, high | low);
                        let len = 16 * (low as usize % 9) + low as usize % 17;
                        let id = format!("from {:#010x}", high | low);
                        check(&key, strategy, variant, counter, len, &id);
                    }
                }
            }
        }
    }
}

#[test]
fn across_every_reset_and_the_32_bit_wrap() {
    let mut rng = Rng(0xface_0002);
    for strategy in face_strategies() {
        for key_len in KEY_LENGTHS {
            let key = rng.bytes(key_len);
            for variant in Variant::ALL {
                // 1100 blocks from just below 0xffffff00 cross the resets
                // at ffffff00, the wrap to 00000000, then 100, 200, 300;
                // aligned and misaligned starts, and a partial last block.
                for start in [0xffff_fef7u32, 0xffff_fef8, 0xffff_feff, 0xffff_fffe] {
                    for len in [1100 * 16, 1100 * 16 - 5] {
                        let counter = counter_with_low(0x5c, start);
                        check(
                            &key,
                            strategy,
                            variant,
                            counter,
                            len,
                            &format!("from {start:#010x}"),
                        );
                    }
                }
                // Carries into byte 13 and byte 12.
                for start in [0x0000_fffd_u32, 0x00ff_fffa, 0x7fff_ff03] {
                    let counter = counter_with_low(0x11, start);
                    check(
                        &key,
                        strategy,
                        variant,
                        counter,
                        40 * 16 + 9,
                        &format!("from {start:#010x}"),
                    );
                }
            }
        }
    }
}

#[test]
fn arbitrary_counters_and_ivs() {
    let mut rng = Rng(0xface_0003);
    for _ in 0..40 {
        let counter = rng.block();
        let key_len = KEY_LENGTHS[rng.below(3)];
        let key = rng.bytes(key_len);
        let len = rng.below(5000);
        for strategy in face_strategies() {
            for variant in Variant::ALL {
                check(
                    &key,
                    strategy,
                    variant,
                    counter,
                    len,
                    "from a random counter",
                );
            }
        }
    }
}

#[test]
fn gcm_with_face_equals_plain_gcm() {
    let mut rng = Rng(0xface_0004);
    for strategy in face_strategies() {
        for variant in Variant::ALL {
            for key_len in KEY_LENGTHS {
                let key = rng.bytes(key_len);
                let plain = AesGcm::with(&key, Aes::Table, Ghash::Karatsuba).unwrap();
                let fast = AesGcm::with_face(&key, strategy, Ghash::Karatsuba, variant).unwrap();
                assert_eq!(fast.face_variant(), Some(variant));
                assert_eq!(
                    fast.implementation(),
                    format!("{}/{} + karatsuba", strategy.name(), variant.name())
                );
                // 12-byte IVs start at low byte 2; other lengths anywhere.
                for iv_len in [12, 1, 16, 40] {
                    let iv = rng.bytes(iv_len);
                    let aad_len = rng.below(40);
                    let aad = rng.bytes(aad_len);
                    // Several 4 KiB passes, so one engine serves many calls.
                    let msg_len = 9000 + rng.below(9000);
                    let msg = rng.bytes(msg_len);
                    let sealed = fast.encrypt(&iv, &aad, &msg, 16).unwrap();
                    assert_eq!(sealed, plain.encrypt(&iv, &aad, &msg, 16).unwrap());
                    assert_eq!(fast.decrypt(&iv, &aad, &sealed, 16).unwrap(), msg);

                    // On-line, in pieces that split blocks.
                    let mut enc = fast.encryptor(&iv).unwrap();
                    enc.update_aad(&aad).unwrap();
                    let mut buf = msg.clone();
                    let mut at = 0;
                    while at < buf.len() {
                        let n = (1 + rng.below(3000)).min(buf.len() - at);
                        enc.update(&mut buf[at..at + n]).unwrap();
                        at += n;
                    }
                    let tag = enc.finish(16).unwrap();
                    buf.extend_from_slice(tag.as_bytes());
                    assert_eq!(buf, sealed, "{} on-line", fast.implementation());
                }
            }
        }
    }
}

#[test]
fn face_refuses_aes_strategies_it_does_not_apply_to() {
    let key = [1u8; 16];
    for strategy in Aes::ALL.into_iter().filter(|&a| !face::supports(a)) {
        assert!(
            Variant::ALL
                .iter()
                .all(|v| v.memory_bytes(strategy).is_none())
        );
        if !strategy.is_available() {
            continue;
        }
        let cipher = Cipher::new(strategy, &key).unwrap();
        let mut counter = [0u8; 16];
        assert!(matches!(
            face::ctr32(&cipher, Variant::Rd0, &mut counter, &mut [0; 16]),
            Err(Error::Unsupported(_))
        ));
        assert!(matches!(
            AesGcm::with_face(&key, strategy, Ghash::Karatsuba, Variant::Rd2Plus),
            Err(Error::Unsupported(_))
        ));
    }
}

#[test]
fn memory_is_what_the_seed_table_says_for_the_tables() {
    // The `+` variants hold the seed's tables (1 KiB and 4 KiB) plus a
    // small cache of their 2^8 sibling and, on `fixslice`, what makes
    // the entries as the counter reaches them (three packed states: the
    // inputs and the keys of a state's two steps, the first all zero).
    for strategy in face_strategies() {
        let rd1p = Variant::Rd1Plus.memory_bytes(strategy).unwrap();
        let rd2p = Variant::Rd2Plus.memory_bytes(strategy).unwrap();
        assert!((1024..1024 + 320).contains(&rd1p), "{rd1p}");
        assert!((4096..4096 + 320).contains(&rd2p), "{rd2p}");
    }
}
