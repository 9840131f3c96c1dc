//! AES-GCM for every available (AES, GHASH) pair, enumerated from the
//! strategy registries: the specification's test cases, Wycheproof, the
//! `aes-gcm` crate, and properties against the plain pair (`table`,
//! `bitserial`).

mod common;

use aekit::aes::Strategy as Aes;
use aekit::ghash::Strategy as Ghash;
use aekit::{AesGcm, Error, Gmac};
use common::{Rng, implementations, unhex};
use proptest::prelude::*;
use serde_json::Value;

/// The GCM spec's whole-byte tags (64 to 128 bits) and SP 800-38D's 32 bits.
const TAG_LENGTHS: [usize; 10] = [4, 8, 9, 10, 11, 12, 13, 14, 15, 16];

fn vectors(name: &str) -> Value {
    let path = format!("{}/../../vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).expect("vector file is JSON")
}

fn field(v: &Value, name: &str) -> Vec<u8> {
    unhex(v[name].as_str().unwrap_or_else(|| panic!("missing {name}")))
}

/// The plain pair every other pair is checked against.
fn oracle(key: &[u8]) -> AesGcm {
    AesGcm::with(key, Aes::Table, Ghash::BitSerial).unwrap()
}

#[test]
fn spec_appendix_b_test_cases_1_to_18_every_pair() {
    let v = vectors("gcm_spec_appendix_b.json");
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 18);
    for imp in implementations() {
        for case in cases {
            let (key, iv, aad) = (field(case, "key"), field(case, "iv"), field(case, "aad"));
            let (pt, ct, tag) = (
                field(case, "plaintext"),
                field(case, "ciphertext"),
                field(case, "tag"),
            );
            let id = format!("case {} with {imp}", case["case"]);
            // Every tag length on the spec's IVs of 8, 12 and 60 bytes.
            let gcm = imp.build(&key).unwrap().with_relaxed_tag_rules();
            for tag_len in TAG_LENGTHS {
                let mut buf = pt.clone();
                let got = gcm
                    .encrypt_in_place_detached(&iv, &aad, &mut buf, tag_len)
                    .unwrap();
                assert_eq!(buf, ct, "{id}: ciphertext");
                assert_eq!(got.as_bytes(), &tag[..tag_len], "{id}: tag of {tag_len}");
                gcm.decrypt_in_place_detached(&iv, &aad, &mut buf, &tag[..tag_len])
                    .unwrap();
                assert_eq!(buf, pt, "{id}: decryption");
            }
        }
    }
}

#[test]
fn wycheproof_aes_gcm_every_pair() {
    let v = vectors("aes_gcm_test.json");
    let mut checked = 0;
    for imp in implementations() {
        for group in v["testGroups"].as_array().unwrap() {
            let tag_len = group["tagSize"].as_u64().unwrap() as usize / 8;
            for t in group["tests"].as_array().unwrap() {
                let id = format!("tcId {} with {imp}", t["tcId"]);
                let (key, iv, aad) = (field(t, "key"), field(t, "iv"), field(t, "aad"));
                let (msg, ct, tag) = (field(t, "msg"), field(t, "ct"), field(t, "tag"));
                let gcm = imp.build(&key).unwrap().with_relaxed_tag_rules();
                let mut buf = ct.clone();
                let opened = gcm.decrypt_in_place_detached(&iv, &aad, &mut buf, &tag);
                match t["result"].as_str().unwrap() {
                    "valid" | "acceptable" => {
                        opened.unwrap_or_else(|e| panic!("{id}: {e}"));
                        assert_eq!(buf, msg, "{id}: plaintext");
                        let sealed = gcm.encrypt(&iv, &aad, &msg, tag_len).unwrap();
                        assert_eq!(sealed, [ct, tag].concat(), "{id}: ciphertext and tag");
                    }
                    _ => {
                        let err = opened.expect_err(&id);
                        let expected = if iv.is_empty() {
                            Error::EmptyIv
                        } else {
                            Error::AuthenticationFailed
                        };
                        assert_eq!(err, expected, "{id}");
                        if err == Error::AuthenticationFailed {
                            assert!(buf.iter().all(|&b| b == 0), "{id}: output not wiped");
                        }
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 256, "only {checked} Wycheproof checks ran");
}

/// The expected verdict of the GCM spec's tag rules (§2.1) on a tag of
/// `tag_len` bytes with an IV of `iv_len` bytes.
fn spec_rule(tag_len: usize, iv_len: usize) -> Result<(), Error> {
    if !TAG_LENGTHS.contains(&tag_len) {
        Err(Error::InvalidTagLength(tag_len))
    } else if tag_len < 8 {
        Err(Error::TagShorterThan64Bits(tag_len))
    } else if iv_len != 12 && tag_len != 16 {
        Err(Error::TagMustBe128Bits { iv_len, tag_len })
    } else {
        Ok(())
    }
}

/// Wycheproof through the default constructor, with each tag also cut to
/// 12, 8 and 4 bytes (the file's tags are all 16 bytes): every case the
/// spec's rules allow behaves as under the relaxed rules; every other one
/// is refused with the rule it breaks, before anything is computed.
#[test]
fn wycheproof_under_the_default_tag_rules() {
    let v = vectors("aes_gcm_test.json");
    let (mut allowed, mut refused) = (0, 0);
    for group in v["testGroups"].as_array().unwrap() {
        for t in group["tests"].as_array().unwrap() {
            let (key, iv, aad) = (field(t, "key"), field(t, "iv"), field(t, "aad"));
            let (ct, full_tag) = (field(t, "ct"), field(t, "tag"));
            let Ok(gcm) = AesGcm::new(&key) else {
                continue; // key sizes AES does not take
            };
            if iv.is_empty() {
                continue;
            }
            let relaxed = AesGcm::new(&key).unwrap().with_relaxed_tag_rules();
            for tag_len in [full_tag.len(), 12, 8, 4] {
                let id = format!("tcId {} with a {tag_len}-byte tag", t["tcId"]);
                let tag = &full_tag[..tag_len.min(full_tag.len())];
                let mut buf = ct.clone();
                let got = gcm.decrypt_in_place_detached(&iv, &aad, &mut buf, tag);
                match spec_rule(tag.len(), iv.len()) {
                    Ok(()) => {
                        let mut expected_buf = ct.clone();
                        let expected =
                            relaxed.decrypt_in_place_detached(&iv, &aad, &mut expected_buf, tag);
                        assert_eq!(got, expected, "{id}");
                        assert_eq!(buf, expected_buf, "{id}");
                        allowed += 1;
                    }
                    Err(rule) => {
                        assert_eq!(got, Err(rule), "{id}");
                        assert_eq!(buf, ct, "{id}: a refused call touches nothing");
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(
        allowed > 500 && refused > 300,
        "{allowed} allowed, {refused} refused"
    );
}

/// The spec's rules on every entry point and every constructor, for every
/// tag length 0..=17 and IVs of 12 and other lengths; the relaxed rules
/// accept every length of either document with any IV.
#[test]
fn tag_rules_on_every_entry_point() {
    use aekit::gcm::{Class, Pool, TagRules};
    let key = [6u8; 16];
    let mut keys = vec![
        AesGcm::new(&key).unwrap(),
        AesGcm::with(&key, Aes::Table, Ghash::Shoup4).unwrap(),
        AesGcm::with_class(&key, Class::Portable).unwrap(),
        AesGcm::with_face(
            &key,
            Aes::Fixslice,
            Ghash::Karatsuba,
            aekit::ctr::face::Variant::Rd2Plus,
        )
        .unwrap(),
    ];
    keys.extend(
        aekit::gcm::Fused::ALL
            .into_iter()
            .filter(|f| f.is_available())
            .map(|f| AesGcm::fused(&key, f).unwrap()),
    );
    // The first key once more with a pool that splits every message.
    let pool = std::sync::Arc::new(Pool::new(2).unwrap().with_threshold(0));
    keys.push(AesGcm::new(&key).unwrap().with_pool(pool));
    for gcm in &keys {
        assert_eq!(gcm.tag_rules(), TagRules::Spec, "{}", gcm.implementation());
        for iv_len in [12, 1, 8, 11, 13, 16, 60] {
            let iv = vec![3u8; iv_len];
            for tag_len in 0..=17 {
                let id = format!("{}: IV {iv_len} B, tag {tag_len} B", gcm.implementation());
                let rule = spec_rule(tag_len, iv_len);
                let tag = vec![0u8; tag_len];
                let ok_or_rule = |r: Result<(), Error>| match r {
                    Err(Error::AuthenticationFailed) => Ok(()),
                    other => other,
                };
                let mut buf = [9u8; 40];
                let r = gcm.encrypt_in_place_detached(&iv, b"a", &mut buf, tag_len);
                assert_eq!(r.map(drop), rule, "{id}: encrypt_in_place_detached");
                if rule.is_err() {
                    assert_eq!(buf, [9; 40], "{id}: refused before computing");
                }
                let r = gcm.decrypt_in_place_detached(&iv, b"a", &mut buf, &tag);
                assert_eq!(ok_or_rule(r), rule, "{id}: decrypt_in_place_detached");
                assert_eq!(gcm.encrypt(&iv, b"", b"m", tag_len).map(drop), rule, "{id}");
                let r = gcm.decrypt(&iv, b"", &[0; 20], tag_len).map(drop);
                assert_eq!(ok_or_rule(r), rule, "{id}: decrypt");
                let r = gcm.encryptor(&iv).unwrap().finish(tag_len).map(drop);
                assert_eq!(r, rule, "{id}: Encryptor::finish");
                let r = gcm.decryptor(&iv).unwrap().finish(&tag);
                assert_eq!(ok_or_rule(r), rule, "{id}: Decryptor::finish");
                let mut out = [0u8; 40];
                let r = gcm.encrypt_detached_into(&iv, b"", &buf, &mut out, tag_len);
                assert_eq!(r.map(drop), rule, "{id}: encrypt_detached_into");
                let r = gcm.decrypt_detached_into(&iv, b"", &buf, &mut out, &tag);
                assert_eq!(ok_or_rule(r), rule, "{id}: decrypt_detached_into");
            }
        }
        // A supplied keystream hides the IV: only the 64-bit minimum applies.
        let keystream = [0u8; 64];
        for tag_len in 0..=17 {
            let rule = spec_rule(tag_len, 12);
            let r = gcm.encrypt_with_keystream(&keystream, b"", &mut [0; 8], tag_len);
            assert_eq!(r.map(drop), rule, "keystream, tag {tag_len}");
        }
    }
    let relaxed = AesGcm::new(&key).unwrap().with_relaxed_tag_rules();
    assert_eq!(relaxed.tag_rules(), TagRules::Relaxed);
    for iv_len in [12, 1, 8, 60] {
        for tag_len in 0..=17 {
            let expected = if TAG_LENGTHS.contains(&tag_len) {
                Ok(())
            } else {
                Err(Error::InvalidTagLength(tag_len))
            };
            let r = relaxed.encrypt(&vec![1; iv_len], b"", b"m", tag_len);
            assert_eq!(r.map(drop), expected, "relaxed: IV {iv_len}, tag {tag_len}");
            assert_eq!(TagRules::Relaxed.check(tag_len, iv_len), expected);
            assert_eq!(
                TagRules::Spec.check(tag_len, iv_len),
                spec_rule(tag_len, iv_len)
            );
        }
    }
}

#[test]
fn gmac_follows_the_same_tag_rules() {
    let gmac = Gmac::new(&[8u8; 16]).unwrap();
    assert_eq!(
        gmac.compute(&[0; 12], b"data", 4).err(),
        Some(Error::TagShorterThan64Bits(4))
    );
    assert_eq!(
        gmac.compute(&[0; 16], b"data", 12).err(),
        Some(Error::TagMustBe128Bits {
            iv_len: 16,
            tag_len: 12
        })
    );
    let tag = gmac.compute(&[0; 16], b"data", 16).unwrap();
    gmac.verify(&[0; 16], b"data", tag.as_bytes()).unwrap();
    assert_eq!(
        gmac.verify(&[0; 16], b"data", &tag.as_bytes()[..8]),
        Err(Error::TagMustBe128Bits {
            iv_len: 16,
            tag_len: 8
        })
    );
    let relaxed = gmac.with_relaxed_tag_rules();
    let short = relaxed.compute(&[0; 16], b"data", 8).unwrap();
    assert_eq!(short.as_bytes(), &tag.as_bytes()[..8]);
    relaxed.verify(&[0; 16], b"data", short.as_bytes()).unwrap();
}

#[test]
fn wycheproof_aes_gmac_every_pair() {
    let v = vectors("aes_gmac_test.json");
    let mut checked = 0;
    for imp in implementations() {
        for group in v["testGroups"].as_array().unwrap() {
            let tag_len = group["tagSize"].as_u64().unwrap() as usize / 8;
            for t in group["tests"].as_array().unwrap() {
                let id = format!("tcId {} with {imp}", t["tcId"]);
                let (key, iv, msg, tag) = (
                    field(t, "key"),
                    field(t, "iv"),
                    field(t, "msg"),
                    field(t, "tag"),
                );
                let gmac = Gmac::from(imp.build(&key).unwrap()).with_relaxed_tag_rules();
                let verified = gmac.verify(&iv, &msg, &tag);
                if t["result"] == "valid" {
                    verified.unwrap_or_else(|e| panic!("{id}: {e}"));
                    let computed = gmac.compute(&iv, &msg, tag_len).unwrap();
                    assert_eq!(computed.as_bytes(), &tag[..], "{id}");
                } else {
                    assert!(verified.is_err(), "{id}: invalid tag accepted");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

/// Every pair against the oracle pair on every length 0..=1024 and lengths
/// around the internal 4 KiB pass, with 12-byte and odd IVs.
/// An IV for a message of `len` bytes: 12 bytes for even lengths, 1 to 40
/// for odd ones, so both GCM paths (J0 = IV ‖ 1 and GHASH(IV)) see every
/// length class.
fn iv_for(rng: &mut Rng, len: usize) -> Vec<u8> {
    if len.is_multiple_of(2) {
        rng.bytes(12)
    } else {
        rng.bytes(1 + len % 40)
    }
}

/// Every implementation against the oracle pair at every length to
/// 1 KiB and around the batch and pass sizes beyond, for AES-128; and for
/// AES-192 and AES-256, whose longer key schedules the fused kernels run
/// through schedules of their own, at every tail length of the batches
/// (16 KiB is too many lengths for the slow strategies in a debug build).
#[test]
fn every_length_agrees_with_the_oracle_pair() {
    let mut rng = Rng(10);
    let data = rng.bytes(16384 + 257);
    let aad = rng.bytes(37);
    let lengths: Vec<usize> = (0..=1024)
        .chain((1024..2100).step_by(16).flat_map(|n| [n + 1, n + 15]))
        .chain((4096 - 17..4096 + 17).step_by(3))
        .chain([8192 - 1, 8192, 8193, 16384 + 255, 16384 + 256, 16384 + 257])
        .collect();
    let longer_keys: Vec<usize> = (0..=300).chain((1000..1300).step_by(7)).collect();
    for (key_len, lengths) in [(16, &lengths), (24, &longer_keys), (32, &longer_keys)] {
        let key = rng.bytes(key_len);
        let reference = oracle(&key);
        for imp in implementations() {
            let gcm = imp.build(&key).unwrap();
            for &len in lengths {
                let iv = iv_for(&mut rng, len);
                let expected = reference
                    .encrypt(&iv, &aad[..len % 38], &data[..len], 16)
                    .unwrap();
                let got = gcm
                    .encrypt(&iv, &aad[..len % 38], &data[..len], 16)
                    .unwrap();
                assert_eq!(got, expected, "{imp}, AES-{} at length {len}", key_len * 8);
                let back = gcm.decrypt(&iv, &aad[..len % 38], &got, 16).unwrap();
                assert_eq!(
                    back,
                    &data[..len],
                    "{imp}, AES-{} at length {len}",
                    key_len * 8
                );
            }
        }
    }
}

/// The out-of-place calls equal copying and calling the in-place ones, on
/// every implementation, at the lengths around their pass size (16 KiB)
/// and its multiples; a forged message leaves `out` zeroed; an output of
/// the wrong length is refused before anything is written.
#[test]
fn out_of_place_equals_in_place() {
    let mut rng = Rng(11);
    let key = rng.bytes(32);
    let pass = aekit::gcm::OUT_OF_PLACE_PASS;
    let data = rng.bytes(3 * pass + 100);
    // Around the fused kernels' batches (128 and 256 bytes) and their
    // short paths (seven blocks) too.
    let lengths = [
        0, 1, 15, 16, 64, 112, 113, 127, 128, 129, 255, 256, 257, 1000,
    ]
    .into_iter()
    .chain([pass - 1, pass, pass + 1])
    .chain([2 * pass - 16, 2 * pass + 7, 3 * pass + 100]);
    let lengths: Vec<usize> = lengths.collect();
    let every = implementations().into_iter();
    for (imp, key_len) in every.flat_map(|imp| [(imp, 16), (imp, 24), (imp, 32)]) {
        let gcm = imp.build(&key[..key_len]).unwrap();
        // Both kinds of IV at every length: 12 bytes (the whole-message
        // paths) and another length (the general path).
        let ivs = lengths
            .iter()
            .flat_map(|&len| [(len, rng.bytes(12)), (len, iv_for(&mut rng, 2 * len + 1))]);
        for (len, iv) in ivs.collect::<Vec<_>>() {
            let aad = rng.bytes(len % 29);
            let plaintext = &data[..len];
            let mut want = plaintext.to_vec();
            let want_tag = gcm
                .encrypt_in_place_detached(&iv, &aad, &mut want, 16)
                .unwrap();
            let mut out = vec![0xaa; len];
            let tag = gcm
                .encrypt_detached_into(&iv, &aad, plaintext, &mut out, 16)
                .unwrap();
            assert_eq!(out, want, "{imp} at length {len}");
            assert_eq!(tag.as_bytes(), want_tag.as_bytes(), "{imp} at length {len}");

            let mut back = vec![0x55; len];
            gcm.decrypt_detached_into(&iv, &aad, &out, &mut back, tag.as_bytes())
                .unwrap();
            assert_eq!(back, plaintext, "{imp} at length {len}");

            // Into uninitialized memory (a vector's spare capacity).
            let mut space = Vec::<u8>::with_capacity(len);
            let spare = &mut space.spare_capacity_mut()[..len];
            let (sealed, tag2) = gcm
                .encrypt_detached_into_uninit(&iv, &aad, plaintext, spare, 16)
                .unwrap();
            assert_eq!(sealed, &want[..], "{imp} at length {len}: uninit");
            assert_eq!(
                tag2.as_bytes(),
                want_tag.as_bytes(),
                "{imp} at length {len}"
            );
            let mut space = Vec::<u8>::with_capacity(len);
            let spare = &mut space.spare_capacity_mut()[..len];
            let opened = gcm
                .decrypt_detached_into_uninit(&iv, &aad, &out, spare, tag.as_bytes())
                .unwrap();
            assert_eq!(opened, plaintext, "{imp} at length {len}: uninit");

            let mut forged = tag.as_bytes().to_vec();
            forged[len % 16] ^= 0x20;
            let mut back = vec![0x55; len];
            assert_eq!(
                gcm.decrypt_detached_into(&iv, &aad, &out, &mut back, &forged),
                Err(Error::AuthenticationFailed),
                "{imp} at length {len}"
            );
            assert!(
                back.iter().all(|&b| b == 0),
                "{imp} at length {len}: not wiped"
            );
            let mut space = Vec::<u8>::with_capacity(len);
            let spare = &mut space.spare_capacity_mut()[..len];
            assert_eq!(
                gcm.decrypt_detached_into_uninit(&iv, &aad, &out, spare, &forged)
                    .map(drop),
                Err(Error::AuthenticationFailed),
                "{imp} at length {len}: uninit"
            );
            // SAFETY: on `AuthenticationFailed` the call has zeroed `out`
            // (its contract), so every byte is initialized.
            let wiped = spare.iter().map(|b| unsafe { b.assume_init() });
            assert!(
                wiped.into_iter().all(|b| b == 0),
                "{imp} at length {len}: uninit not wiped"
            );
        }
    }
    let gcm = AesGcm::new(&key).unwrap();
    let mut out = vec![7u8; 10];
    assert_eq!(
        gcm.encrypt_detached_into(&[0; 12], b"", &[1; 11], &mut out, 16)
            .map(|_| ()),
        Err(Error::OutputLength {
            input: 11,
            output: 10
        })
    );
    assert_eq!(
        gcm.decrypt_detached_into(&[0; 12], b"", &[1; 9], &mut out, &[0; 16]),
        Err(Error::OutputLength {
            input: 9,
            output: 10
        })
    );
    assert_eq!(out, [7; 10], "a refused call writes nothing");
}

/// The `aes-gcm` crate, an independent implementation, for 12-byte nonces,
/// through aekit's own API and through its RustCrypto traits.
#[test]
fn differential_against_the_aes_gcm_crate() {
    use aes_gcm::aead::{Aead, KeyInit, Payload};
    let mut rng = Rng(11);
    for _ in 0..200 {
        let (len, aad_len) = (rng.below(600), rng.below(70));
        let (pt, aad, nonce) = (rng.bytes(len), rng.bytes(aad_len), rng.bytes(12));
        for key_len in [16, 32] {
            let key = rng.bytes(key_len);
            let payload = Payload {
                msg: &pt,
                aad: &aad,
            };
            let expected = if key_len == 16 {
                let c = aes_gcm::Aes128Gcm::new_from_slice(&key).unwrap();
                c.encrypt(nonce.as_slice().try_into().unwrap(), payload)
                    .unwrap()
            } else {
                let c = aes_gcm::Aes256Gcm::new_from_slice(&key).unwrap();
                c.encrypt(nonce.as_slice().try_into().unwrap(), payload)
                    .unwrap()
            };
            for imp in implementations() {
                let got = imp
                    .build(&key)
                    .unwrap()
                    .encrypt(&nonce, &aad, &pt, 16)
                    .unwrap();
                assert_eq!(got, expected, "{imp} len {len}");
            }
            let payload = Payload {
                msg: &pt,
                aad: &aad,
            };
            let ours = if key_len == 16 {
                let c = <aekit::Aes128Gcm as aead::KeyInit>::new_from_slice(&key).unwrap();
                aead::Aead::encrypt(&c, nonce.as_slice().try_into().unwrap(), payload).unwrap()
            } else {
                let c = <aekit::Aes256Gcm as aead::KeyInit>::new_from_slice(&key).unwrap();
                aead::Aead::encrypt(&c, nonce.as_slice().try_into().unwrap(), payload).unwrap()
            };
            assert_eq!(ours, expected, "aead traits, len {len}");
        }
    }
}

#[test]
fn aead_traits_round_trip_and_reject() {
    use aead::{Aead, KeyInit};
    let key = [7u8; 32];
    let c = aekit::Aes256Gcm::new_from_slice(&key).unwrap();
    let nonce = [9u8; 12].into();
    let mut sealed = c.encrypt(&nonce, &b"drop-in"[..]).unwrap();
    assert_eq!(c.decrypt(&nonce, sealed.as_slice()).unwrap(), b"drop-in");
    sealed[0] ^= 1;
    assert!(c.decrypt(&nonce, sealed.as_slice()).is_err());
    assert!(aekit::Aes128Gcm::new_from_slice(&key).is_err());
    // AES-192 through the generic type: the bytes of the library's own
    // call, which the spec's AES-192 cases check.
    let c = aekit::gcm::AeadAesGcm::<aead::consts::U24>::new_from_slice(&key[..24]).unwrap();
    let sealed = c.encrypt(&nonce, &b"drop-in"[..]).unwrap();
    let want = aekit::AesGcm::new(&key[..24])
        .unwrap()
        .encrypt(&[9u8; 12], b"", b"drop-in", 16)
        .unwrap();
    assert_eq!(sealed, want);
    assert_eq!(c.decrypt(&nonce, sealed.as_slice()).unwrap(), b"drop-in");
}

/// `AeadInOut` with an `InOutBuf` of two buffers (one pass from the input
/// into the output) against the same call in place, both directions, at
/// lengths around the block and chunk boundaries; a forged tag is refused
/// and the output zeroed.
#[test]
fn aead_traits_out_of_place_match_in_place() {
    use aead::KeyInit;
    let mut rng = Rng(0x1a0d);
    let key = rng.bytes(32);
    let c = aekit::Aes128Gcm::new_from_slice(&key[..16]).unwrap();
    out_of_place_matches_in_place(&c, &mut rng, "AES-128");
    let c = aekit::Aes256Gcm::new_from_slice(&key).unwrap();
    out_of_place_matches_in_place(&c, &mut rng, "AES-256");
}

fn out_of_place_matches_in_place<C: aead::AeadInOut>(c: &C, rng: &mut Rng, what: &str) {
    use aead::inout::InOutBuf;
    for len in [0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 1500, 4099, 70_000] {
        let (pt, aad) = (rng.bytes(len), rng.bytes(len % 37));
        let nonce = aead::Nonce::<C>::try_from(rng.bytes(12).as_slice()).unwrap();
        let mut sealed = pt.clone();
        let tag = c
            .encrypt_inout_detached(&nonce, &aad, InOutBuf::from(&mut sealed[..]))
            .unwrap();
        let mut out = vec![0u8; len];
        let into = InOutBuf::new(&pt, &mut out).unwrap();
        let tag_into = c.encrypt_inout_detached(&nonce, &aad, into).unwrap();
        assert!(
            out == sealed && tag_into == tag,
            "{what} {len} B: encryption"
        );
        let mut opened = vec![0u8; len];
        let into = InOutBuf::new(&sealed, &mut opened).unwrap();
        c.decrypt_inout_detached(&nonce, &aad, into, &tag).unwrap();
        assert!(opened == pt, "{what} {len} B: decryption");
        let mut forged = tag.clone();
        forged[len % 16] ^= 1;
        let mut wiped = vec![0x5a; len];
        let into = InOutBuf::new(&sealed, &mut wiped).unwrap();
        assert!(
            c.decrypt_inout_detached(&nonce, &aad, into, &forged)
                .is_err()
        );
        assert!(
            wiped.iter().all(|&b| b == 0),
            "{what} {len} B: forged, output zeroed"
        );
    }
}

#[test]
fn precise_errors_for_bad_input() {
    let gcm = AesGcm::new(&[0u8; 16]).unwrap();
    for n in [0, 8, 15, 17, 31, 33] {
        assert_eq!(
            AesGcm::new(&vec![0; n]).err(),
            Some(Error::InvalidKeyLength(n))
        );
        assert_eq!(
            Gmac::new(&vec![0; n]).err(),
            Some(Error::InvalidKeyLength(n))
        );
    }
    let mut buf = [1u8; 20];
    assert_eq!(
        gcm.encrypt_in_place_detached(&[], b"", &mut buf, 16).err(),
        Some(Error::EmptyIv)
    );
    assert_eq!(buf, [1; 20], "nothing is touched on a rejected call");
    assert_eq!(
        gcm.decrypt_in_place_detached(&[], b"", &mut buf, &[0; 16]),
        Err(Error::EmptyIv)
    );
    assert_eq!(gcm.encryptor(&[]).err().unwrap(), Error::EmptyIv);
    for bad in [0, 1, 3, 5, 6, 7, 17, 32] {
        let expected = Some(Error::InvalidTagLength(bad));
        assert_eq!(
            gcm.encrypt_in_place_detached(&[0; 12], b"", &mut buf, bad)
                .err(),
            expected
        );
        assert_eq!(
            gcm.decrypt_in_place_detached(&[0; 12], b"", &mut buf, &vec![0; bad])
                .err(),
            expected
        );
        assert_eq!(gcm.encrypt(&[0; 12], b"", b"x", bad).err(), expected);
        assert_eq!(gcm.decrypt(&[0; 12], b"", &[0; 40], bad).err(), expected);
        assert_eq!(gcm.encryptor(&[0; 12]).unwrap().finish(bad).err(), expected);
        assert_eq!(
            gcm.decryptor(&[0; 12]).unwrap().finish(&vec![0; bad]).err(),
            expected
        );
    }
    assert_eq!(buf, [1; 20]);
    assert_eq!(
        gcm.decrypt(&[0; 12], b"", &[0; 15], 16),
        Err(Error::AuthenticationFailed)
    );
    let mut enc = gcm.encryptor(&[0; 12]).unwrap();
    enc.update(&mut [0; 3]).unwrap();
    assert_eq!(enc.update_aad(b"late"), Err(Error::AadAfterMessage));
    let sealed = gcm.encrypt(&[0; 12], b"a", b"message", 16).unwrap();
    assert_eq!(
        gcm.decrypt(&[1; 12], b"a", &sealed, 16),
        Err(Error::AuthenticationFailed)
    );
}

#[test]
fn strategies_chosen_by_default_are_the_best_constant_time_ones() {
    // `AesGcm::new` is the best class (as `AEKIT_KERNEL` caps it), on
    // constant-time strategies only.
    let key = [0u8; 32];
    let gcm = AesGcm::new(&key).unwrap();
    let best = AesGcm::with_class(&key, aekit::gcm::Class::best().unwrap()).unwrap();
    assert_eq!(gcm.implementation(), best.implementation());
    let (aes, ghash) = gcm.strategies();
    assert!(aes.is_constant_time() && ghash.is_constant_time());
    assert!(Aes::best().is_constant_time() && Ghash::best().is_constant_time());
    // Table-driven strategies are never chosen by default.
    for s in Ghash::ALL.into_iter().filter(|s| !s.is_constant_time()) {
        assert_ne!(Ghash::best(), s);
    }
}

/// A fixed AAD prefix hashed once and cloned for many messages gives, for
/// every implementation, exactly the one-shot result with the whole
/// associated data — however the prefix ends inside a block — and the
/// prefix is left as it was, for the next message.
#[test]
fn a_cloned_aad_prefix_equals_a_fresh_computation() {
    let mut rng = Rng(0xf1ed);
    for imp in implementations() {
        let gcm = imp.build(&rng.bytes(16)).unwrap();
        for fixed_len in [0usize, 1, 13, 16, 17, 64, 100] {
            let fixed = rng.bytes(fixed_len);
            let header = gcm.aad_prefix(&fixed).unwrap();
            for message in 0..6 {
                let id = format!("{imp}: prefix {fixed_len} B, message {message}");
                let iv = rng.bytes(if message % 3 == 2 { 20 } else { 12 });
                let n = rng.below(40);
                let more = rng.bytes(n);
                let n = rng.below(90);
                let pt = rng.bytes(n);
                let aad = [fixed.clone(), more.clone()].concat();
                let expected = gcm.encrypt(&iv, &aad, &pt, 16).unwrap();

                let mut prefix = header.clone();
                prefix.update_aad(&more).unwrap();
                let mut enc = prefix.encryptor(&iv).unwrap();
                let mut ct = pt.clone();
                enc.update(&mut ct).unwrap();
                let tag = enc.finish(16).unwrap();
                assert_eq!(
                    [ct.clone(), tag.as_bytes().to_vec()].concat(),
                    expected,
                    "{id}"
                );

                // Associated data may also follow on the encryptor itself,
                // from the uncloned prefix, which stays reusable.
                let mut enc = header.encryptor(&iv).unwrap();
                enc.update_aad(&more).unwrap();
                let mut ct2 = pt.clone();
                enc.update(&mut ct2).unwrap();
                assert_eq!(enc.finish(16).unwrap().as_bytes(), tag.as_bytes(), "{id}");

                let mut dec = prefix.decryptor(&iv).unwrap();
                dec.update(&mut ct).unwrap();
                dec.finish(tag.as_bytes()).unwrap();
                assert_eq!(ct, pt, "{id}: decryption");
                let mut dec = prefix.decryptor(&iv).unwrap();
                let mut forged = expected[..pt.len()].to_vec();
                dec.update(&mut forged).unwrap();
                let mut bad = tag.as_bytes().to_vec();
                bad[0] ^= 1;
                assert_eq!(dec.finish(&bad), Err(Error::AuthenticationFailed), "{id}");
            }
        }
    }
}

#[test]
fn an_aad_prefix_keeps_the_rules_of_its_key() {
    let gcm = AesGcm::new(&[2u8; 16]).unwrap();
    let prefix = gcm.aad_prefix(b"fixed").unwrap();
    assert_eq!(prefix.encryptor(&[]).err().unwrap(), Error::EmptyIv);
    assert_eq!(
        prefix.encryptor(&[0; 8]).unwrap().finish(12).err(),
        Some(Error::TagMustBe128Bits {
            iv_len: 8,
            tag_len: 12
        })
    );
    let mut enc = prefix.encryptor(&[0; 12]).unwrap();
    enc.update(&mut [0; 3]).unwrap();
    assert_eq!(enc.update_aad(b"late"), Err(Error::AadAfterMessage));
}

/// Splits `len` into pieces at the cut points given (each taken modulo
/// what is left), so pieces straddle block boundaries.
fn pieces(len: usize, cuts: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for &c in cuts {
        if at >= len {
            break;
        }
        let next = at + c % (len - at + 1);
        out.push(at..next);
        at = next;
    }
    out.push(at..len);
    out
}

fn any_tag_len() -> impl Strategy<Value = usize> {
    proptest::sample::select(TAG_LENGTHS.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every pair agrees with the oracle pair; decryption inverts it.
    #[test]
    fn every_pair_agrees_and_round_trips(
        key in prop::sample::select(vec![16usize, 24, 32]).prop_flat_map(|n| prop::collection::vec(any::<u8>(), n)),
        iv in prop::collection::vec(any::<u8>(), 1..=200),
        aad in prop::collection::vec(any::<u8>(), 0..=300),
        pt in prop::collection::vec(any::<u8>(), 0..=300),
        tag_len in any_tag_len(),
    ) {
        let expected = oracle(&key).with_relaxed_tag_rules().encrypt(&iv, &aad, &pt, tag_len).unwrap();
        for imp in implementations() {
            let gcm = imp.build(&key).unwrap().with_relaxed_tag_rules();
            let sealed = gcm.encrypt(&iv, &aad, &pt, tag_len).unwrap();
            prop_assert_eq!(&sealed, &expected, "{}", imp);
            prop_assert_eq!(gcm.decrypt(&iv, &aad, &sealed, tag_len).unwrap(), pt.clone());
        }
    }

    /// Any single flipped bit of IV, AAD, ciphertext or tag is rejected and
    /// the output wiped.
    #[test]
    fn any_flipped_bit_is_rejected(
        iv in prop::collection::vec(any::<u8>(), 1..=40),
        aad in prop::collection::vec(any::<u8>(), 0..=40),
        pt in prop::collection::vec(any::<u8>(), 1..=80),
        tag_len in any_tag_len(),
        which in 0usize..4,
        bit in any::<prop::sample::Index>(),
    ) {
        for imp in implementations() {
            let gcm = imp.build(&[3u8; 16]).unwrap().with_relaxed_tag_rules();
            let (mut iv, mut aad, mut ct) = (iv.clone(), aad.clone(), pt.clone());
            let mut tag = gcm.encrypt_in_place_detached(&iv, &aad, &mut ct, tag_len).unwrap().as_bytes().to_vec();
            let target: &mut Vec<u8> = match which {
                0 => &mut iv,
                1 if !aad.is_empty() => &mut aad,
                2 => &mut ct,
                _ => &mut tag,
            };
            let i = bit.index(target.len() * 8);
            target[i / 8] ^= 1 << (i % 8);
            let r = gcm.decrypt_in_place_detached(&iv, &aad, &mut ct, &tag);
            prop_assert_eq!(r, Err(Error::AuthenticationFailed));
            prop_assert!(ct.iter().all(|&b| b == 0), "output not wiped");
        }
    }

    /// On-line encryption and decryption with random split points equal the
    /// one-shot result.
    #[test]
    fn streaming_equals_one_shot_for_every_split(
        iv in prop::collection::vec(any::<u8>(), 1..=30),
        aad in prop::collection::vec(any::<u8>(), 0..=100),
        pt in prop::collection::vec(any::<u8>(), 0..=300),
        aad_cuts in prop::collection::vec(0usize..40, 0..6),
        pt_cuts in prop::collection::vec(0usize..70, 0..10),
        tag_len in any_tag_len(),
    ) {
        for imp in implementations() {
            let gcm = imp.build(&[5u8; 32]).unwrap().with_relaxed_tag_rules();
            let expected = gcm.encrypt(&iv, &aad, &pt, tag_len).unwrap();
            let mut enc = gcm.encryptor(&iv).unwrap();
            for r in pieces(aad.len(), &aad_cuts) {
                enc.update_aad(&aad[r]).unwrap();
            }
            let mut ct = pt.clone();
            for r in pieces(ct.len(), &pt_cuts) {
                enc.update(&mut ct[r]).unwrap();
            }
            let tag = enc.finish(tag_len).unwrap();
            prop_assert_eq!([ct.clone(), tag.as_bytes().to_vec()].concat(), expected.clone());

            let mut dec = gcm.decryptor(&iv).unwrap();
            for r in pieces(aad.len(), &pt_cuts) {
                dec.update_aad(&aad[r]).unwrap();
            }
            for r in pieces(ct.len(), &aad_cuts) {
                dec.update(&mut ct[r]).unwrap();
            }
            dec.finish(tag.as_bytes()).unwrap();
            prop_assert_eq!(&ct, &pt);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On-line pieces written into another buffer (`update_into`, into
    /// uninitialized memory) mixed with pieces in place, at random split
    /// points and lengths past the kernels' whole-block loops, equal the
    /// one-shot result in both directions.
    #[test]
    fn streaming_into_equals_one_shot_for_every_split(
        iv in prop::collection::vec(any::<u8>(), 1..=20),
        aad in prop::collection::vec(any::<u8>(), 0..=40),
        pt in prop::collection::vec(any::<u8>(), 0..=1500),
        cuts in prop::collection::vec(0usize..600, 0..6),
        into in prop::collection::vec(any::<bool>(), 6),
        tag_len in any_tag_len(),
    ) {
        for imp in implementations() {
            let gcm = imp.build(&[9u8; 16]).unwrap().with_relaxed_tag_rules();
            let expected = gcm.encrypt(&iv, &aad, &pt, tag_len).unwrap();
            let mut enc = gcm.encryptor(&iv).unwrap();
            enc.update_aad(&aad).unwrap();
            let mut ct = vec![0u8; pt.len()];
            for (k, r) in pieces(pt.len(), &cuts).into_iter().enumerate() {
                if into[k % into.len()] {
                    let mut space = Vec::with_capacity(r.len());
                    let spare = &mut space.spare_capacity_mut()[..r.len()];
                    let written = enc.update_into_uninit(&pt[r.clone()], spare).unwrap();
                    ct[r].copy_from_slice(written);
                } else {
                    ct[r.clone()].copy_from_slice(&pt[r.clone()]);
                    enc.update(&mut ct[r]).unwrap();
                }
            }
            let tag = enc.finish(tag_len).unwrap();
            prop_assert_eq!([ct.clone(), tag.as_bytes().to_vec()].concat(), expected);

            let mut dec = gcm.decryptor(&iv).unwrap();
            dec.update_aad(&aad).unwrap();
            let mut back = vec![0x55u8; ct.len()];
            for (k, r) in pieces(ct.len(), &cuts).into_iter().enumerate() {
                if into[(k + 1) % into.len()] {
                    dec.update_into(&ct[r.clone()], &mut back[r]).unwrap();
                } else {
                    back[r.clone()].copy_from_slice(&ct[r.clone()]);
                    dec.update(&mut back[r]).unwrap();
                }
            }
            dec.finish(tag.as_bytes()).unwrap();
            prop_assert_eq!(&back, &pt);
        }
    }
}

/// An on-line piece into an output of another length fails with
/// `OutputLength`, touching nothing: the message goes on as if it had not
/// been offered.
#[test]
fn streaming_into_a_wrong_length_fails_alone() {
    let gcm = AesGcm::new(&[1u8; 16]).unwrap();
    let (iv, pt) = ([2u8; 12], [3u8; 100]);
    let expected = gcm.encrypt(&iv, b"", &pt, 16).unwrap();
    let mut enc = gcm.encryptor(&iv).unwrap();
    for wrong in [0, 99, 101] {
        let mut out = vec![0xaau8; wrong];
        let r = enc.update_into(&pt, &mut out);
        let e = Error::OutputLength {
            input: 100,
            output: wrong,
        };
        assert_eq!(r, Err(e));
        assert!(out.iter().all(|&b| b == 0xaa), "output touched");
    }
    let mut ct = [0u8; 100];
    enc.update_into(&pt, &mut ct).unwrap();
    let tag = enc.finish(16).unwrap();
    assert_eq!([&ct[..], tag.as_bytes()].concat(), expected);
}

/// `Tag::copy_to` writes exactly the tag's bytes, for a full tag (one
/// store) and a truncated one, and refuses a slot of another length.
#[test]
fn tag_copy_to_writes_the_tag() {
    let gcm = AesGcm::new(&[3u8; 16]).unwrap();
    for tag_len in [16, 12, 8] {
        let mut buf = [5u8; 40];
        let tag = gcm
            .encrypt_in_place_detached(&[1u8; 12], b"aad", &mut buf, tag_len)
            .unwrap();
        let mut slot = vec![0u8; tag_len];
        tag.copy_to(&mut slot);
        assert_eq!(slot, tag.as_bytes());
        for wrong_len in [tag_len - 4, tag_len + 4] {
            let wrong = std::panic::catch_unwind(move || {
                let mut slot = vec![0u8; wrong_len];
                tag.copy_to(&mut slot);
            });
            assert!(
                wrong.is_err(),
                "a {wrong_len}-byte slot for a {tag_len}-byte tag"
            );
        }
    }
}

/// GCM with the keystream supplied (the keystream pipeline's consumer)
/// equals the one-shot API on every implementation: the keystream is made
/// by an independent AES over the counter blocks IV ‖ 1, IV ‖ 2, …; lengths
/// around the consumer kernels' 16-block chunks and 64-byte vectors, for
/// the message and the associated data, every tag length; decryption
/// round-trips, and a flipped bit anywhere fails and wipes.
#[test]
fn supplied_keystream_matches_one_shot_on_every_implementation() {
    let mut rng = Rng(0x5eed_cafe);
    let imps = implementations();
    let mut cases: Vec<(usize, usize)> = Vec::new();
    for aad in [0, 1, 8, 12, 16, 17, 63, 64, 240, 255, 256, 257, 300] {
        for len in [
            0, 1, 15, 16, 17, 48, 63, 64, 65, 200, 239, 240, 241, 255, 256, 257,
        ] {
            cases.push((aad, len));
        }
    }
    for len in [511, 512, 513, 1500, 4000] {
        cases.push((8, len));
    }
    for _ in 0..60 {
        cases.push((rng.below(600), rng.below(2100)));
    }
    for (i, &(aad_len, len)) in cases.iter().enumerate() {
        let key = rng.bytes(if i % 2 == 0 { 16 } else { 32 });
        let iv: [u8; 12] = rng.bytes(12).try_into().unwrap();
        let (aad, msg) = (rng.bytes(aad_len), rng.bytes(len));
        let tag_len = TAG_LENGTHS[i % TAG_LENGTHS.len()];
        let keystream = common::oracle_keystream(&key, &iv, len);
        for imp in &imps {
            let id = format!("{imp}, key {}, aad {aad_len}, len {len}", key.len());
            let gcm = imp.build(&key).unwrap().with_relaxed_tag_rules();
            let mut expected = msg.clone();
            let tag = gcm
                .encrypt_in_place_detached(&iv, &aad, &mut expected, tag_len)
                .unwrap();
            let mut got = msg.clone();
            let got_tag = gcm
                .encrypt_with_keystream(&keystream, &aad, &mut got, tag_len)
                .unwrap();
            assert_eq!(got, expected, "{id}: ciphertext");
            assert_eq!(got_tag.as_bytes(), tag.as_bytes(), "{id}: tag");
            gcm.decrypt_with_keystream(&keystream, &aad, &mut got, tag.as_bytes())
                .unwrap();
            assert_eq!(got, msg, "{id}: round trip");
            // A flipped bit in the ciphertext, the AAD or the tag.
            let which = rng.below(3);
            let (mut ct, mut aad2, mut tag2) =
                (expected.clone(), aad.clone(), tag.as_bytes().to_vec());
            let target = match which {
                0 if !ct.is_empty() => &mut ct,
                1 if !aad2.is_empty() => &mut aad2,
                _ => &mut tag2,
            };
            let at = rng.below(target.len());
            target[at] ^= 1 << rng.below(8);
            let r = gcm.decrypt_with_keystream(&keystream, &aad2, &mut ct, &tag2);
            assert_eq!(r, Err(Error::AuthenticationFailed), "{id}: forgery {which}");
            assert!(ct.iter().all(|&b| b == 0), "{id}: wiped");
        }
    }
}

/// A key bound to one tag length (the spec's "t must be fixed for any
/// fixed value of the key", §2.1) refuses every other length on every entry
/// point, before computing anything; a tag an attacker truncated, which an
/// unbound key checks and accepts, is refused.
#[test]
fn a_key_bound_to_its_tag_length_refuses_every_other() {
    use aekit::gcm::{BatchMessage, Pool};
    let pool = std::sync::Arc::new(Pool::new(2).unwrap().with_threshold(0));
    for imp in implementations() {
        let key = [0x42u8; 16];
        let (iv, aad) = ([5u8; 12], b"header");
        let unbound = imp.build(&key).unwrap();
        let gcm = imp.build(&key).unwrap().with_tag_length(16).unwrap();
        assert_eq!(gcm.tag_length(), Some(16));
        assert_eq!(unbound.tag_length(), None);
        let id = imp.to_string();
        let mut sealed = *b"wire transfer: 100 EUR to account 1234";
        let tag = gcm
            .encrypt_in_place_detached(&iv, aad, &mut sealed, 16)
            .unwrap();
        // The attack: the last four tag bytes cut off in transit.
        let truncated = &tag.as_bytes()[..12];
        let mut buf = sealed;
        unbound
            .decrypt_in_place_detached(&iv, aad, &mut buf, truncated)
            .expect("an unbound key checks a truncated tag and accepts it");
        let mismatch = |given| Error::TagLengthMismatch { bound: 16, given };
        let mut buf = sealed;
        assert_eq!(
            gcm.decrypt_in_place_detached(&iv, aad, &mut buf, truncated),
            Err(mismatch(12)),
            "{id}"
        );
        assert_eq!(buf, sealed, "{id}: refused before anything was computed");
        let mut whole = sealed.to_vec();
        whole.extend_from_slice(truncated);
        assert_eq!(gcm.decrypt(&iv, aad, &whole, 12), Err(mismatch(12)), "{id}");
        assert_eq!(
            gcm.decryptor(&iv).unwrap().finish(truncated),
            Err(mismatch(12)),
            "{id}: Decryptor::finish"
        );
        let split = imp
            .build(&key)
            .unwrap()
            .with_tag_length(16)
            .unwrap()
            .with_pool(std::sync::Arc::clone(&pool));
        assert_eq!(
            split.decrypt_in_place_detached(&iv, aad, &mut buf, truncated),
            Err(mismatch(12)),
            "{id}: parallel"
        );
        let mut out = vec![0u8; sealed.len()];
        assert_eq!(
            gcm.decrypt_detached_into(&iv, aad, &sealed, &mut out, truncated),
            Err(mismatch(12)),
            "{id}: out of place"
        );
        let prefix = gcm.aad_prefix(b"head").unwrap();
        assert_eq!(
            prefix.decryptor(&iv).unwrap().finish(truncated),
            Err(mismatch(12)),
            "{id}: AadPrefix"
        );
        let ivp = gcm.iv_prefix(&iv[..4]).unwrap();
        assert_eq!(
            ivp.decrypt_in_place_detached(&iv[4..], aad, &mut buf, truncated),
            Err(mismatch(12)),
            "{id}: IvPrefix"
        );
        // Batches refuse the message, not the batch.
        let mut short_tag = [0u8; 12];
        let mut data = *b"batch";
        let mut messages = [BatchMessage {
            iv: &iv,
            aad,
            buf: &mut data,
            tag: &mut short_tag,
        }];
        let mut results = [Ok(())];
        gcm.encrypt_batch_into(&mut messages, &mut results);
        assert_eq!(results[0], Err(mismatch(12)), "{id}: batch");
        // Encryption under another length is refused too; the bound one runs.
        for tag_len in [4, 8, 12, 15] {
            let mut buf = *b"m";
            assert_eq!(
                gcm.encrypt_in_place_detached(&iv, aad, &mut buf, tag_len)
                    .map(drop),
                Err(mismatch(tag_len)),
                "{id}"
            );
            assert_eq!(&buf, b"m", "{id}");
        }
        let mut buf = sealed;
        gcm.decrypt_in_place_detached(&iv, aad, &mut buf, tag.as_bytes())
            .unwrap();
        assert_eq!(&buf, b"wire transfer: 100 EUR to account 1234", "{id}");
    }
}

/// Every call's tag-length check, against its definition (the bound
/// length first, then the rules for the IV's length), for keys given the
/// two settings in either order, every IV length class and every tag
/// length up to past the largest the check's bit sets hold.
#[test]
fn the_tag_check_is_the_bound_then_the_rules() {
    let key = [3u8; 16];
    for relaxed in [false, true] {
        for bound in [None, Some(4), Some(8), Some(12), Some(16)] {
            for relax_first in [false, true] {
                let mut gcm = AesGcm::new(&key).unwrap();
                if relaxed && relax_first {
                    gcm = gcm.with_relaxed_tag_rules();
                }
                if let Some(b) = bound {
                    match gcm.with_tag_length(b) {
                        Ok(bound_gcm) => gcm = bound_gcm,
                        // Binding follows the rules in force
                        // (`binding_a_tag_length_follows_the_rules`).
                        Err(_) => continue,
                    }
                }
                if relaxed && !relax_first {
                    gcm = gcm.with_relaxed_tag_rules();
                }
                for iv_len in [1, 12, 16] {
                    for n in 0..=40 {
                        let expected = match bound {
                            Some(b) if b != n => {
                                Err(Error::TagLengthMismatch { bound: b, given: n })
                            }
                            _ if relaxed && TAG_LENGTHS.contains(&n) => Ok(()),
                            _ if relaxed => Err(Error::InvalidTagLength(n)),
                            _ => spec_rule(n, iv_len),
                        };
                        let mut buf = *b"m";
                        let got = gcm
                            .encrypt_in_place_detached(&vec![9u8; iv_len], b"", &mut buf, n)
                            .map(drop);
                        let id = format!(
                            "relaxed {relaxed}, bound {bound:?} (relaxed first {relax_first}), IV {iv_len}, tag {n}"
                        );
                        assert_eq!(got, expected, "{id}");
                        assert_eq!(buf == *b"m", got.is_err(), "{id}");
                    }
                }
            }
        }
    }
}

/// Binding checks the length against the key's rules (with a 12-byte IV),
/// and a bound key still applies the rules for other IVs.
#[test]
fn binding_a_tag_length_follows_the_rules() {
    let key = [1u8; 16];
    let bind = |gcm: AesGcm, n| gcm.with_tag_length(n).map(|g| g.tag_length());
    for n in 0..=17 {
        assert_eq!(
            bind(AesGcm::new(&key).unwrap(), n),
            spec_rule(n, 12).map(|()| Some(n)),
            "spec, {n}"
        );
        let relaxed = AesGcm::new(&key).unwrap().with_relaxed_tag_rules();
        let expected = if TAG_LENGTHS.contains(&n) {
            Ok(Some(n))
        } else {
            Err(Error::InvalidTagLength(n))
        };
        assert_eq!(bind(relaxed, n), expected, "relaxed, {n}");
    }
    let gcm = AesGcm::new(&key).unwrap().with_tag_length(12).unwrap();
    assert_eq!(
        gcm.encrypt(&[0; 16], b"", b"m", 12),
        Err(Error::TagMustBe128Bits {
            iv_len: 16,
            tag_len: 12
        })
    );
    gcm.encrypt(&[0; 12], b"", b"m", 12).unwrap();
    // GMAC built from a bound key keeps the binding.
    let gmac = Gmac::from(AesGcm::new(&key).unwrap().with_tag_length(16).unwrap());
    let tag = gmac.compute(&[0; 12], b"data", 16).unwrap();
    assert_eq!(
        gmac.verify(&[0; 12], b"data", &tag.as_bytes()[..8]),
        Err(Error::TagLengthMismatch {
            bound: 16,
            given: 8
        })
    );
}

/// Tags of 9, 10 and 11 bytes (72 to 88 bits, which the spec's "between 64
/// and 128" includes) are the full tag's first bytes, with the spec's
/// test cases 1–18 where the IV is 96 bits.
#[test]
fn tags_of_nine_to_eleven_bytes_are_the_full_tags_prefix() {
    let v = vectors("gcm_spec_appendix_b.json");
    let mut checked = 0;
    for case in v["cases"].as_array().unwrap() {
        let (key, iv, aad) = (field(case, "key"), field(case, "iv"), field(case, "aad"));
        if iv.len() != 12 {
            continue;
        }
        let (pt, ct, tag) = (
            field(case, "plaintext"),
            field(case, "ciphertext"),
            field(case, "tag"),
        );
        let gcm = AesGcm::new(&key).unwrap();
        for tag_len in 9..=11 {
            let mut buf = pt.clone();
            let got = gcm
                .encrypt_in_place_detached(&iv, &aad, &mut buf, tag_len)
                .unwrap();
            assert_eq!(
                (buf.as_slice(), got.as_bytes()),
                (ct.as_slice(), &tag[..tag_len])
            );
            gcm.decrypt_in_place_detached(&iv, &aad, &mut buf, &tag[..tag_len])
                .unwrap();
            assert_eq!(buf, pt);
            checked += 1;
        }
    }
    assert!(checked >= 18, "only {checked} checks");
}
