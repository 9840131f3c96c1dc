//! The provider through OpenSSL's EVP interface, against OpenSSL's default
//! provider on the same calls: Wycheproof's AES-GCM vectors, random
//! messages of every length 0–1024 with random IV, AAD and tag lengths and
//! random `update` splits, tampering, duplication, IV reuse, and TLS 1.2
//! records both ways. OpenSSL's own vectors are in `openssl_vectors.rs`.

#![allow(unsafe_code)]

mod common;

use common::{Msg, Prov, copy, ctrl, feed, open, seal, start, tls_ctx, tls_record};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn vectors_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

#[test]
fn wycheproof_vectors() {
    let text = std::fs::read_to_string(vectors_dir().join("aes_gcm_test.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (mut valid, mut invalid, mut refused) = (0, 0, 0);
    for group in doc["testGroups"].as_array().unwrap() {
        for t in group["tests"].as_array().unwrap() {
            let id = &t["tcId"];
            let (key, iv, aad) = (
                hex(t["key"].as_str().unwrap()),
                hex(t["iv"].as_str().unwrap()),
                hex(t["aad"].as_str().unwrap()),
            );
            let (msg, ct, tag) = (
                hex(t["msg"].as_str().unwrap()),
                hex(t["ct"].as_str().unwrap()),
                hex(t["tag"].as_str().unwrap()),
            );
            let m = Msg {
                key: &key,
                iv: &iv,
                aad: &aad,
                text: &msg,
                splits: &[7, 16, 1],
            };
            let c = Msg { text: &ct, ..m };
            let mine = open(Prov::Aekit, &c, &tag);
            let theirs = open(Prov::Default, &c, &tag);
            assert_eq!(
                mine, theirs,
                "tcId {id}: decryption agrees with the default provider"
            );
            if start(Prov::Default, &m, true).is_none() {
                // An IV longer than OpenSSL's 128 bytes, or empty: refused
                // by both.
                assert!(start(Prov::Aekit, &m, true).is_none(), "tcId {id}");
                refused += 1;
                continue;
            }
            if t["result"] == "valid" {
                assert_eq!(mine.as_deref(), Some(&msg[..]), "tcId {id}: decrypts");
                let (c2, t2) = seal(Prov::Aekit, &m, 16).expect("encrypts");
                assert_eq!((c2, t2), (ct.clone(), tag.clone()), "tcId {id}: encrypts");
                valid += 1;
            } else {
                assert_eq!(mine, None, "tcId {id}: an invalid vector fails");
                invalid += 1;
            }
        }
    }
    println!(
        "wycheproof aes_gcm_test.json through EVP: {valid} valid, {invalid} invalid rejected, {refused} IVs refused as the default provider refuses them"
    );
    assert!(valid > 200 && invalid > 50);
}

/// Random `update` piece sizes: none (one piece), or a cycle of 1–3 sizes.
fn splits(rng: &mut StdRng) -> Vec<usize> {
    let n = rng.random_range(0..4);
    (0..n).map(|_| rng.random_range(1..=80)).collect()
}

#[test]
fn every_length_agrees_with_the_default_provider() {
    let seed: u64 = rand::rng().random();
    println!("seed {seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let tag_lens = [4, 8, 9, 10, 11, 12, 13, 14, 15, 16];
    for len in 0..=1024usize {
        let key_len = [16, 24, 32][len % 3];
        let key: Vec<u8> = (0..key_len).map(|_| rng.random()).collect();
        let iv_len = if rng.random_bool(0.5) {
            12
        } else {
            rng.random_range(1..=64)
        };
        let iv: Vec<u8> = (0..iv_len).map(|_| rng.random()).collect();
        let aad: Vec<u8> = (0..rng.random_range(0..=64))
            .map(|_| rng.random())
            .collect();
        let text: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let tag_len = tag_lens[rng.random_range(0..tag_lens.len())];
        let s = splits(&mut rng);
        let m = Msg {
            key: &key,
            iv: &iv,
            aad: &aad,
            text: &text,
            splits: &s,
        };
        let whole = Msg { splits: &[], ..m };
        let (ct, tag) = seal(Prov::Aekit, &m, tag_len).expect("aekit encrypts");
        let expected = seal(Prov::Default, &whole, tag_len).expect("default encrypts");
        assert_eq!(
            (&ct, &tag),
            (&expected.0, &expected.1),
            "len {len} iv {iv_len} splits {s:?}"
        );
        let s2 = splits(&mut rng);
        let c = Msg {
            text: &ct,
            splits: &s2,
            ..m
        };
        assert_eq!(
            open(Prov::Aekit, &c, &tag).as_deref(),
            Some(&text[..]),
            "len {len}"
        );
        assert_eq!(
            open(Prov::Default, &c, &tag).as_deref(),
            Some(&text[..]),
            "len {len}"
        );
        // Tampering: a bit of the tag, of the ciphertext, of the AAD.
        let mut bad = tag.clone();
        bad[rng.random_range(0..tag_len)] ^= 1 << rng.random_range(0..8);
        assert_eq!(open(Prov::Aekit, &c, &bad), None, "tag tampered, len {len}");
        if len > 0 {
            let mut bad = ct.clone();
            bad[rng.random_range(0..len)] ^= 0x80;
            assert_eq!(
                open(Prov::Aekit, &Msg { text: &bad, ..c }, &tag),
                None,
                "ciphertext tampered"
            );
        }
        let mut bad_aad = aad.clone();
        bad_aad.push(0);
        assert_eq!(
            open(Prov::Aekit, &Msg { aad: &bad_aad, ..c }, &tag),
            None,
            "AAD extended"
        );
    }
}

#[test]
fn a_long_message_in_many_pieces_equals_one_piece() {
    let mut rng = StdRng::seed_from_u64(49);
    let text: Vec<u8> = (0..300_000).map(|_| rng.random()).collect();
    let key = [9u8; 32];
    let iv = [3u8; 12];
    for s in [vec![1, 15, 16, 17, 4096], vec![16_384], vec![100_003]] {
        let m = Msg {
            key: &key,
            iv: &iv,
            aad: b"header",
            text: &text,
            splits: &s,
        };
        let a = seal(Prov::Aekit, &m, 16).unwrap();
        let b = seal(Prov::Default, &Msg { splits: &[], ..m }, 16).unwrap();
        assert!(a == b, "splits {s:?}");
    }
}

#[test]
fn tag_lengths_outside_aekits_rules_are_refused_when_set() {
    // OpenSSL takes tags of 1 to 16 bytes; aekit 4 and 8 to 16.
    let (key, iv) = ([1u8; 16], [2u8; 12]);
    let m = Msg {
        key: &key,
        iv: &iv,
        aad: b"",
        text: b"message",
        splits: &[],
    };
    let (ct, tag) = seal(Prov::Default, &m, 16).unwrap();
    let c = Msg { text: &ct, ..m };
    for n in 1..=16 {
        let mine = open(Prov::Aekit, &c, &tag[..n]);
        let allowed = n == 4 || n >= 8;
        assert_eq!(mine.is_some(), allowed, "tag of {n} bytes");
        assert!(open(Prov::Default, &c, &tag[..n]).is_some());
        // Encryption hands out any prefix of the full tag, as OpenSSL does.
        assert_eq!(seal(Prov::Aekit, &m, n).unwrap().1, tag[..n]);
    }
    assert_eq!(
        seal(Prov::Aekit, &m, 17),
        None,
        "no tag longer than 16 bytes"
    );
}

#[test]
fn an_iv_is_not_reused_and_duplication_follows_the_message() {
    let (key, iv) = ([5u8; 16], [6u8; 12]);
    let m = Msg {
        key: &key,
        iv: &iv,
        aad: b"aad",
        text: b"some text",
        splits: &[],
    };
    let expected = seal(Prov::Default, &m, 16).unwrap();
    let ctx = start(Prov::Aekit, &m, true).unwrap();
    // Before the first update: the copy is a whole context.
    let dup = copy(&ctx).expect("a context copies before its message begins");
    for c in [&ctx, &dup] {
        let ct = common::feed(c, &m).unwrap();
        assert_eq!(ct, expected.0);
    }
    // Mid-message: refused (aekit's on-line state is not clonable).
    assert!(copy(&ctx).is_none(), "a message in progress does not copy");
    assert!(final_ok(&ctx));
    let mut tag = [0u8; 16];
    assert!(ctrl(&ctx, common::GET_TAG, 16, tag.as_mut_ptr().cast()));
    assert_eq!(tag[..], expected.1[..]);
    // The IV is spent: neither another update nor another final runs.
    assert!(
        common::feed(&ctx, &m).is_none(),
        "update after final refused"
    );
    assert!(!final_ok(&ctx), "final after final refused");
    assert!(copy(&ctx).is_some(), "a finished context copies");
}

/// An `init` in the middle of a message, as the default provider takes
/// it: without key or IV the message goes on (the same bytes as without
/// the call); with the key alone, or after the IV's length changed, the
/// next update is refused rather than run under the spent IV or a random
/// one.
#[test]
fn init_mid_message_never_restarts_under_the_same_iv() {
    let (key, iv) = ([8u8; 16], [9u8; 12]);
    let m = Msg {
        key: &key,
        iv: &iv,
        aad: b"",
        text: &[0x5a; 64],
        splits: &[],
    };
    let half = Msg {
        text: &m.text[..32],
        ..m
    };
    let expected = seal(Prov::Default, &m, 16).unwrap();
    for prov in [Prov::Default, Prov::Aekit] {
        let ctx = start(prov, &m, true).unwrap();
        let first = common::feed(&ctx, &half).unwrap();
        assert!(reinit(&ctx, None, None), "{prov:?}: init without key or IV");
        let second = common::feed(&ctx, &half).unwrap();
        assert_eq!(
            [first, second].concat(),
            expected.0,
            "{prov:?}: the message went on"
        );
        assert!(final_ok(&ctx));
        let mut tag = [0u8; 16];
        assert!(ctrl(&ctx, common::GET_TAG, 16, tag.as_mut_ptr().cast()));
        assert_eq!(tag[..], expected.1[..], "{prov:?}");
    }
    // aekit's refusals, where a restart would have reused the keystream.
    let ctx = start(Prov::Aekit, &m, true).unwrap();
    let first = common::feed(&ctx, &half).unwrap();
    assert!(reinit(&ctx, Some(&key), None));
    assert!(common::feed(&ctx, &half).is_none(), "key alone: refused");
    assert_eq!(first, expected.0[..32]);
    let ctx = start(Prov::Aekit, &m, true).unwrap();
    common::feed(&ctx, &half).unwrap();
    assert!(ctrl(&ctx, common::SET_IVLEN, 16, std::ptr::null_mut()));
    assert!(
        common::feed(&ctx, &half).is_none(),
        "new IV length: refused"
    );
    // A new IV starts a new message, as always.
    assert!(reinit(&ctx, None, Some(&[1; 16])));
    assert!(common::feed(&ctx, &half).is_some());
}

unsafe extern "C" {
    fn EVP_CipherInit_ex(
        ctx: *mut std::ffi::c_void,
        cipher: *const std::ffi::c_void,
        engine: *mut std::ffi::c_void,
        key: *const u8,
        iv: *const u8,
        enc: i32,
    ) -> i32;
}

/// `EVP_CipherInit_ex` on a started encryption context, with no cipher
/// and the key and IV given or not (each of the context's length).
fn reinit(c: &common::Ctx, key: Option<&[u8]>, iv: Option<&[u8]>) -> bool {
    let [key, iv] = [key, iv].map(|b| b.map_or(std::ptr::null(), <[u8]>::as_ptr));
    // SAFETY: EVP's call on a live context, the key and IV of the
    // lengths its cipher takes.
    unsafe {
        let ok = EVP_CipherInit_ex(c.0, std::ptr::null(), std::ptr::null_mut(), key, iv, 1) == 1;
        ERR_clear_error();
        ok
    }
}

unsafe extern "C" {
    fn EVP_CipherFinal_ex(ctx: *mut std::ffi::c_void, out: *mut u8, outl: *mut i32) -> i32;
    fn ERR_clear_error();
}

/// `EVP_CipherFinal_ex`, true on success.
fn final_ok(c: &common::Ctx) -> bool {
    let mut n = 0;
    // SAFETY: EVP's calls on a live context.
    unsafe {
        let ok = EVP_CipherFinal_ex(c.0, std::ptr::null_mut(), &mut n) == 1;
        ERR_clear_error();
        ok
    }
}

#[test]
fn tls12_records_both_ways() {
    let mut rng = StdRng::seed_from_u64(12);
    for key_len in [16, 32] {
        let key: Vec<u8> = (0..key_len).map(|_| rng.random()).collect();
        let fixed: [u8; 4] = rng.random();
        for (sender, receiver) in [(Prov::Aekit, Prov::Default), (Prov::Default, Prov::Aekit)] {
            let enc = tls_ctx(sender, &key, &fixed, true);
            let dec = tls_ctx(receiver, &key, &fixed, false);
            let mut nonces = std::collections::HashSet::new();
            for (seq, len) in [0usize, 1, 15, 16, 17, 255, 1024, 16_384]
                .into_iter()
                .enumerate()
            {
                let payload: Vec<u8> = (0..len).map(|_| rng.random()).collect();
                let mut record = vec![0u8; 8 + len + 16];
                record[8..8 + len].copy_from_slice(&payload);
                assert!(
                    tls_record(&enc, seq as u64, &mut record, true),
                    "{sender:?} seals"
                );
                assert!(
                    nonces.insert(record[..8].to_vec()),
                    "explicit nonces differ"
                );
                // Encrypted: a short payload may match its ciphertext by
                // chance (one byte in 256 times), a block of 16 may not.
                if len >= 16 {
                    assert_ne!(record[8..8 + len], payload[..]);
                }
                let mut tampered = record.clone();
                let mut good = record;
                assert!(
                    tls_record(&dec, seq as u64, &mut good, false),
                    "{receiver:?} opens"
                );
                assert_eq!(good[8..8 + len], payload[..]);
                // A flipped tag bit fails, and the payload is wiped.
                let last = tampered.len() - 1;
                tampered[last] ^= 1;
                assert!(!tls_record(&dec, seq as u64, &mut tampered, false));
                if receiver == Prov::Aekit {
                    assert!(
                        tampered[8..8 + len].iter().all(|&b| b == 0),
                        "payload wiped"
                    );
                }
            }
        }
    }
}

#[test]
fn tls12_nonce_generation_and_invocation_fields_through_the_on_line_calls() {
    // EVP_CTRL_GCM_IV_GEN (`tlsivgen`) on the sender and
    // EVP_CTRL_GCM_SET_IV_INV (`tlsivinv`) on the receiver, around
    // ordinary update/final calls, as programs that build their own
    // records use them.
    let key = [0x42u8; 16];
    let fixed = [1u8, 2, 3, 4];
    let text = b"a record built by the caller, not by libssl";
    for (sender, receiver) in [(Prov::Aekit, Prov::Default), (Prov::Default, Prov::Aekit)] {
        let enc = tls_ctx(sender, &key, &fixed, true);
        let dec = tls_ctx(receiver, &key, &fixed, false);
        let mut seen = Vec::new();
        for round in 0..3 {
            let mut explicit = [0u8; 8];
            assert!(
                ctrl(&enc, common::IV_GEN, 8, explicit.as_mut_ptr().cast()),
                "{sender:?} tlsivgen"
            );
            assert!(!seen.contains(&explicit), "a new explicit nonce each time");
            seen.push(explicit);
            let m = Msg {
                key: &key,
                iv: &[],
                aad: b"header",
                text,
                splits: &[5],
            };
            let ct = feed(&enc, &m).expect("encrypts");
            assert!(final_ok(&enc));
            let mut tag = [0u8; 16];
            assert!(ctrl(&enc, common::GET_TAG, 16, tag.as_mut_ptr().cast()));
            let mut e = explicit;
            assert!(
                ctrl(&dec, common::SET_IV_INV, 8, e.as_mut_ptr().cast()),
                "{receiver:?} tlsivinv"
            );
            assert!(ctrl(&dec, common::SET_TAG, 16, tag.as_mut_ptr().cast()));
            let pt = feed(&dec, &Msg { text: &ct, ..m }).expect("decrypts");
            assert!(
                final_ok(&dec),
                "{sender:?} to {receiver:?}, round {round}: tag verifies"
            );
            assert_eq!(pt, text);
        }
    }
}
