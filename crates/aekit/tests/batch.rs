//! The batch APIs (`AesGcm::{encrypt,decrypt}_batch` and their `_into`
//! forms, `Aether::{encrypt,decrypt}_batch`): every message of a batch
//! equals the one-message API's output, for random batches mixing lengths
//! 0–2000, key sizes, IV and tag lengths, for batches of mostly short
//! messages (the one-message short paths'), and for batches whose messages
//! share a few multi-buffer shapes (the `vaes-avx512` and `vaes-avx2`
//! multi-buffer paths' groups of four); a forged message fails alone and
//! is wiped while the rest decrypt; nothing is read or written past a
//! message's inputs or its tag slot when each ends at a page boundary;
//! AETHER's bitsliced groups (filled batches of one shape) equal the
//! reference on every known answer and on random batches.

mod common;

use aekit::aether::{self, Aether, Strategy};
use aekit::gcm::{BatchMessage, TAG_LENGTHS};
use aekit::{AesGcm, Error};
use common::{Guarded, Rng, classes, unhex};
use serde::Deserialize;

/// One message's inputs, owned.
#[derive(Clone)]
struct Msg {
    iv: Vec<u8>,
    aad: Vec<u8>,
    buf: Vec<u8>,
    tag: Vec<u8>,
}

fn gcm_batch(msgs: &mut [Msg]) -> Vec<BatchMessage<'_>> {
    msgs.iter_mut()
        .map(|m| BatchMessage {
            iv: &m.iv,
            aad: &m.aad,
            buf: &mut m.buf,
            tag: &mut m.tag,
        })
        .collect()
}

fn random_gcm_msgs(rng: &mut Rng, n: usize) -> Vec<Msg> {
    (0..n)
        .map(|_| {
            let iv_len = if rng.below(4) == 0 {
                1 + rng.below(40)
            } else {
                12
            };
            let aad_len = [0, 8, 12, 20, rng.below(100)][rng.below(5)];
            let len = rng.below(2001);
            random_msg(rng, iv_len, aad_len, len)
        })
        .collect()
}

/// A message of these lengths with random contents and a random tag
/// length.
fn random_msg(rng: &mut Rng, iv_len: usize, aad_len: usize, len: usize) -> Msg {
    let tag_len = TAG_LENGTHS[rng.below(TAG_LENGTHS.len())];
    Msg {
        iv: rng.bytes(iv_len),
        aad: rng.bytes(aad_len),
        buf: rng.bytes(len),
        tag: vec![0; tag_len],
    }
}

/// Asserts that the encrypted batch `msgs` (from `plain`, with `results`)
/// equals one-message calls under `gcm`, message for message.
fn assert_equals_one_message_calls(
    gcm: &AesGcm,
    plain: &[Msg],
    msgs: &[Msg],
    results: &[Result<(), Error>],
    what: &str,
) {
    assert_eq!(results.len(), plain.len(), "{what}");
    for (i, (m, p)) in msgs.iter().zip(plain).enumerate() {
        assert_eq!(results[i], Ok(()), "{what} msg {i}");
        let mut want = p.buf.clone();
        let tag = gcm
            .encrypt_in_place_detached(&p.iv, &p.aad, &mut want, p.tag.len())
            .unwrap();
        assert_eq!(m.buf, want, "{what} msg {i}");
        assert_eq!(m.tag, tag.as_bytes(), "{what} msg {i}");
    }
}

/// Runs `f` on a key of every size on every class this CPU runs, with the
/// relaxed tag rules: the batch must agree on every tag length 4–16 with
/// every IV length (the default rules are checked on their own below).
fn each_relaxed_key(rng: &mut Rng, mut f: impl FnMut(&AesGcm, &str, &mut Rng)) {
    for class in classes() {
        for key_len in [16, 24, 32] {
            let key = rng.bytes(key_len);
            let gcm = AesGcm::with_class(&key, class)
                .unwrap()
                .with_relaxed_tag_rules();
            f(&gcm, &format!("{} key {key_len}", class.name()), rng);
        }
    }
}

/// Flips one bit of each `forged` message (of its ciphertext, its
/// associated data or its tag), decrypts `msgs` as one batch, and checks
/// that exactly the forged ones fail, wiped, while the others give back
/// `plain`.
fn assert_forged_fail_alone(
    gcm: &AesGcm,
    rng: &mut Rng,
    plain: &[Msg],
    msgs: &mut [Msg],
    forged: &[bool],
    what: &str,
) {
    for (m, _) in msgs.iter_mut().zip(forged).filter(|(_, f)| **f) {
        match rng.below(3) {
            0 if !m.buf.is_empty() => {
                let at = rng.below(m.buf.len());
                m.buf[at] ^= 1 << rng.below(8);
            }
            1 if !m.aad.is_empty() => {
                let at = rng.below(m.aad.len());
                m.aad[at] ^= 1 << rng.below(8);
            }
            _ => {
                let at = rng.below(m.tag.len());
                m.tag[at] ^= 1 << rng.below(8);
            }
        }
    }
    let results = gcm.decrypt_batch(&mut gcm_batch(msgs));
    for (i, ((m, p), &f)) in msgs.iter().zip(plain).zip(forged).enumerate() {
        let what = format!("{what} msg {i}");
        if f {
            assert_eq!(results[i], Err(Error::AuthenticationFailed), "{what}");
            assert!(m.buf.iter().all(|&b| b == 0), "{what} not wiped");
        } else {
            assert_eq!(results[i], Ok(()), "{what}");
            assert_eq!(m.buf, p.buf, "{what}");
        }
    }
}

#[test]
fn gcm_batch_equals_one_message_calls() {
    each_relaxed_key(&mut Rng(0xba7c_0001), |gcm, what, rng| {
        let n = 1 + rng.below(60);
        let plain = random_gcm_msgs(rng, n);
        let mut msgs = plain.clone();
        let results = gcm.encrypt_batch(&mut gcm_batch(&mut msgs));
        assert_equals_one_message_calls(gcm, &plain, &msgs, &results, what);
        // And back.
        let results = gcm.decrypt_batch(&mut gcm_batch(&mut msgs));
        assert!(results.iter().all(|r| r.is_ok()), "{what}");
        for (m, p) in msgs.iter().zip(&plain) {
            assert_eq!(m.buf, p.buf, "{what}");
        }
    });
}

/// Short messages (the one-message whole-message path's: 12-byte IV, at
/// most seven blocks and eight hashed blocks) mixed with a few that are
/// not, in batches of many sizes.
fn random_short_msgs(rng: &mut Rng, n: usize) -> Vec<Msg> {
    (0..n)
        .map(|_| {
            let (iv_len, aad_len, len) = match rng.below(10) {
                // Not short: another IV length, or too long.
                0 => (1 + rng.below(40), rng.below(20), rng.below(150)),
                1 => (12, rng.below(40), 113 + rng.below(200)),
                // Short: every length 0..=112 with up to one block of
                // associated data, or up to seven blocks of it and less data.
                _ => match rng.below(3) {
                    0 => (12, rng.below(17), rng.below(113)),
                    1 => (12, rng.below(113), rng.below(17)),
                    _ => (12, 8, 64),
                },
            };
            random_msg(rng, iv_len, aad_len, len)
        })
        .collect()
}

#[test]
fn gcm_batch_of_short_messages_equals_one_message_calls() {
    each_relaxed_key(&mut Rng(0xba7c_0004), |gcm, what, rng| {
        for n in [1, 2, 7, 15, 16, 17, 40, 100] {
            let plain = random_short_msgs(rng, n);
            let mut msgs = plain.clone();
            let results = gcm.encrypt_batch(&mut gcm_batch(&mut msgs));
            let what = format!("{what} batch {n}");
            assert_equals_one_message_calls(gcm, &plain, &msgs, &results, &what);
            // Forge one message in three, then decrypt the batch.
            let forged: Vec<bool> = (0..n).map(|_| rng.below(3) == 0).collect();
            assert_forged_fail_alone(gcm, rng, &plain, &mut msgs, &forged, &what);
        }
    });
}

/// Messages of a few shapes around the multi-buffer ones (1 to 8 message
/// blocks, or 9 to 129, past the longest shape; 0 or 1 block of associated
/// data, a 12-byte IV), every length within the last block and every AAD
/// length 1 to 16, interleaved, with a few that fit no shape.
fn random_shaped_msgs(rng: &mut Rng, n: usize) -> Vec<Msg> {
    let shapes: Vec<(usize, usize)> = (0..3)
        .map(|_| {
            let blocks = match rng.below(3) {
                0 => 9 + rng.below(121),
                _ => 1 + rng.below(8),
            };
            (blocks, rng.below(2))
        })
        .collect();
    (0..n)
        .map(|_| {
            if rng.below(8) == 0 {
                let (aad_len, len) = (rng.below(40), [0, 129 + rng.below(100)][rng.below(2)]);
                return random_msg(rng, 12, aad_len, len);
            }
            let (blocks, aad_blocks) = shapes[rng.below(shapes.len())];
            let len = 16 * (blocks - 1) + 1 + rng.below(16);
            let aad_len = if aad_blocks == 1 {
                1 + rng.below(16)
            } else {
                0
            };
            random_msg(rng, 12, aad_len, len)
        })
        .collect()
}

#[test]
fn gcm_batch_of_shaped_messages_equals_one_message_calls() {
    each_relaxed_key(&mut Rng(0xba7c_0005), |gcm, what, rng| {
        for n in [3, 4, 5, 8, 13, 64, 150] {
            let plain = random_shaped_msgs(rng, n);
            let mut msgs = plain.clone();
            let results = gcm.encrypt_batch(&mut gcm_batch(&mut msgs));
            let what = format!("{what} batch {n}");
            assert_equals_one_message_calls(gcm, &plain, &msgs, &results, &what);
            // Forge one message in four, then decrypt the batch.
            let forged: Vec<bool> = (0..n).map(|_| rng.below(4) == 0).collect();
            assert_forged_fail_alone(gcm, rng, &plain, &mut msgs, &forged, &what);
        }
    });
}

/// Twelve shapes in turn, more than a batch gathers at once: buckets fill,
/// go to the kernel and are taken by other shapes, and messages of a
/// shape that finds every bucket taken run one by one; each message
/// equals its one-message call, in batches of many sizes.
#[test]
fn gcm_batch_of_more_shapes_than_buckets_equals_one_message_calls() {
    each_relaxed_key(&mut Rng(0xba7c_0009), |gcm, what, rng| {
        for n in [8, 12, 47, 200] {
            let plain: Vec<Msg> = (0..n)
                .map(|i| {
                    let k = i % 12;
                    let len = 16 * (2 + 5 * k) + 1 + rng.below(16);
                    let aad_len = (k % 2) * (1 + rng.below(16));
                    random_msg(rng, 12, aad_len, len)
                })
                .collect();
            let mut msgs = plain.clone();
            let results = gcm.encrypt_batch(&mut gcm_batch(&mut msgs));
            let what = format!("{what} batch {n}");
            assert_equals_one_message_calls(gcm, &plain, &msgs, &results, &what);
            let forged: Vec<bool> = (0..n).map(|_| rng.below(5) == 0).collect();
            assert_forged_fail_alone(gcm, rng, &plain, &mut msgs, &forged, &what);
        }
    });
}

/// Every block count the multi-buffer paths take (3 to 128, the long path
/// from 9: each block count meets its own row of the key's table of
/// powers) and 129 (one past them: one by one), with and without a block
/// of associated data, a run of four
/// messages of one shape with lengths ending anywhere in the last block:
/// each equals its one-message call, and one forged message of the run
/// fails alone. (Where a CPU's batch gives the lanes fewer blocks,
/// `Kernel::lanes_pay`, the library's unit test
/// `every_shape_in_lanes_equals_one_message_calls` runs the rest in
/// lanes.)
#[test]
fn gcm_batch_of_every_block_count_equals_one_message_calls() {
    each_relaxed_key(&mut Rng(0xba7c_0008), |gcm, what, rng| {
        for blocks in 3..=129 {
            for aad_blocks in [0, 1] {
                let plain: Vec<Msg> = (0..4)
                    .map(|_| {
                        let len = 16 * (blocks - 1) + 1 + rng.below(16);
                        let aad_len = aad_blocks * (1 + rng.below(16));
                        random_msg(rng, 12, aad_len, len)
                    })
                    .collect();
                let mut msgs = plain.clone();
                let results = gcm.encrypt_batch(&mut gcm_batch(&mut msgs));
                let what = format!("{what} {blocks} blocks, {aad_blocks} of AAD");
                assert_equals_one_message_calls(gcm, &plain, &msgs, &results, &what);
                let mut forged = [false; 4];
                forged[rng.below(4)] = true;
                assert_forged_fail_alone(gcm, rng, &plain, &mut msgs, &forged, &what);
            }
        }
    });
}

/// Runs of messages of one length (fixed-size records or packets: the
/// multi-buffer path makes their masks and lengths block once per call),
/// longer and shorter than one kernel call's run, and the same runs with
/// one message a byte shorter (same shape, other lengths) somewhere.
#[test]
fn gcm_batch_of_equal_length_messages_equals_one_message_calls() {
    each_relaxed_key(&mut Rng(0xba7c_0006), |gcm, what, rng| {
        for (aad_len, len) in [
            (0, 64),
            (0, 48),
            (5, 50),
            (16, 128),
            (1, 97),
            (0, 33),
            (8, 145),
            (0, 576),
            (8, 1500),
            (13, 1024),
            (0, 2048),
            (0, 2049),
        ] {
            for n in [4, 8, 12, 31, 32, 33, 36, 100] {
                let mut plain: Vec<Msg> =
                    (0..n).map(|_| random_msg(rng, 12, aad_len, len)).collect();
                for odd in [None, Some(rng.below(n))] {
                    if let Some(i) = odd {
                        plain[i] = random_msg(rng, 12, aad_len, len - 1);
                    }
                    let mut msgs = plain.clone();
                    let results = gcm.encrypt_batch(&mut gcm_batch(&mut msgs));
                    let what = format!("{what} {n} x ({aad_len}, {len}), other length at {odd:?}");
                    assert_equals_one_message_calls(gcm, &plain, &msgs, &results, &what);
                    let forged: Vec<bool> = (0..n).map(|_| rng.below(5) == 0).collect();
                    assert_forged_fail_alone(gcm, rng, &plain, &mut msgs, &forged, &what);
                }
            }
        }
    });
}

#[test]
fn gcm_batch_forged_message_fails_alone_and_is_wiped() {
    let mut rng = Rng(0xba7c_0002);
    let gcm = AesGcm::new(&rng.bytes(16))
        .unwrap()
        .with_relaxed_tag_rules();
    let plain = random_gcm_msgs(&mut rng, 40);
    let mut msgs = plain.clone();
    gcm.encrypt_batch(&mut gcm_batch(&mut msgs));
    // Message 3: a flipped tag bit. Message 17: a flipped ciphertext bit
    // (in a message long enough to have one).
    msgs[3].tag[0] ^= 1;
    let mut long = plain[17].clone();
    long.buf = rng.bytes(100);
    let long_plain = long.buf.clone();
    gcm.encrypt_batch(&mut gcm_batch(std::slice::from_mut(&mut long)));
    // Unflipped, it opens: the flip below is what fails it.
    let mut unflipped = long.clone();
    let opened = gcm.decrypt_batch(&mut gcm_batch(std::slice::from_mut(&mut unflipped)));
    assert_eq!(opened, [Ok(())]);
    assert_eq!(unflipped.buf, long_plain);
    msgs[17] = long;
    msgs[17].buf[50] ^= 0x80;
    let results = gcm.decrypt_batch(&mut gcm_batch(&mut msgs));
    for (i, (m, p)) in msgs.iter().zip(&plain).enumerate() {
        if i == 3 || i == 17 {
            assert_eq!(results[i], Err(Error::AuthenticationFailed), "msg {i}");
            assert!(m.buf.iter().all(|&b| b == 0), "msg {i} not wiped");
        } else {
            assert_eq!(results[i], Ok(()), "msg {i}");
            assert_eq!(m.buf, p.buf, "msg {i}");
        }
    }
}

#[test]
fn gcm_batch_argument_errors_are_per_message() {
    let mut rng = Rng(0xba7c_0003);
    let gcm = AesGcm::new(&rng.bytes(32)).unwrap();
    let mut msgs = random_gcm_msgs(&mut rng, 5);
    msgs[0].iv = rng.bytes(12);
    msgs[0].tag = vec![0; 16];
    msgs[1].tag = vec![0; 3]; // no such tag length
    msgs[2].iv.clear(); // empty IV
    msgs[2].tag = vec![0; 16];
    // The key's default tag rules hold per message: 4 bytes is refused
    // with a 12-byte IV, and a short tag with any other IV length.
    msgs[3].iv = rng.bytes(12);
    msgs[3].tag = vec![0; 4];
    msgs[4].iv = rng.bytes(13);
    msgs[4].tag = vec![0; 12];
    let before = msgs.clone();
    let results = gcm.encrypt_batch(&mut gcm_batch(&mut msgs));
    assert_eq!(results[0], Ok(()));
    assert_eq!(results[1], Err(Error::InvalidTagLength(3)));
    assert_eq!(results[2], Err(Error::EmptyIv));
    assert_eq!(results[3], Err(Error::TagShorterThan64Bits(4)));
    assert_eq!(
        results[4],
        Err(Error::TagMustBe128Bits {
            iv_len: 13,
            tag_len: 12
        })
    );
    for i in 1..5 {
        assert_eq!(
            msgs[i].buf, before[i].buf,
            "rejected message {i} is untouched"
        );
    }
}

/// The `_into` calls write every message's result over whatever the
/// slice held (stale errors from an earlier batch included) and agree
/// with the calls that return a `Vec`: one-message equality, argument
/// errors and a forged message, on every class this CPU runs, in batches
/// of every size 1 to 40 (the small ones, under a group of four, take a
/// path of their own).
#[test]
fn gcm_batch_into_equals_the_vec_calls() {
    each_relaxed_key(&mut Rng(0xba7c_0005), |gcm, what, rng| {
        for n in 1..=40 {
            let what = format!("{what} n {n}");
            let mut plain = random_short_msgs(rng, n);
            if n > 2 {
                plain[n / 2].tag = vec![0; 3]; // no such tag length
            }
            let mut msgs = plain.clone();
            let mut vec_msgs = plain.clone();
            let mut results = vec![Err(Error::AuthenticationFailed); n];
            gcm.encrypt_batch_into(&mut gcm_batch(&mut msgs), &mut results);
            let expected = gcm.encrypt_batch(&mut gcm_batch(&mut vec_msgs));
            assert_eq!(results, expected, "{what}");
            let ok = |v: &[Msg]| -> Vec<Msg> {
                let kept = v.iter().zip(&expected).filter(|(_, r)| r.is_ok());
                kept.map(|(m, _)| m.clone()).collect()
            };
            let oks = vec![Ok(()); ok(&plain).len()];
            assert_equals_one_message_calls(gcm, &ok(&plain), &ok(&msgs), &oks, &what);
            if n > 2 {
                assert_eq!(results[n / 2], Err(Error::InvalidTagLength(3)), "{what}");
                assert_eq!(msgs[n / 2].buf, plain[n / 2].buf, "{what} untouched");
            }
            // Back, with one message forged.
            let forged = rng.below(n);
            if results[forged].is_ok() {
                msgs[forged].tag[0] ^= 1;
            }
            let mut results = vec![Err(Error::EmptyIv); n];
            gcm.decrypt_batch_into(&mut gcm_batch(&mut msgs), &mut results);
            for (i, (m, p)) in msgs.iter().zip(&plain).enumerate() {
                if expected[i].is_err() {
                    assert_eq!(results[i], expected[i], "{what} msg {i}");
                } else if i == forged {
                    assert_eq!(results[i], Err(Error::AuthenticationFailed), "{what}");
                    assert!(m.buf.iter().all(|&b| b == 0), "{what} not wiped");
                } else {
                    assert_eq!(results[i], Ok(()), "{what} msg {i}");
                    assert_eq!(m.buf, p.buf, "{what} msg {i}");
                }
            }
        }
    });
}

/// Every input and tag slot of a batch ending at a page boundary, the
/// next page unmapped: IV, associated data, buffer and tag slot (16, 12,
/// 8 or 4 bytes) of each of eight messages of one length (two groups of
/// four), encrypted and then decrypted in place, so that a load past an
/// input or a store past the buffer or the slot faults. Lengths: every
/// length from 0 to 320 bytes (each residue of a partial last block, up
/// to 20 blocks), and each side of the multi-buffer paths' limits
/// (`Kernel::lanes_pay`'s 72 and 80 blocks, the 128-block shapes) and of
/// the whole 256-byte batches `vaes-avx2` runs one by one on AMD;
/// associated data each side of one block.
#[test]
fn gcm_batch_reads_and_writes_nothing_past_its_inputs_at_a_page_boundary() {
    let mut rng = Rng(0xba7c_9a9e);
    let lens = (0..=320).chain([
        511, 512, 767, 768, 769, 1023, 1024, 1025, 1151, 1152, 1153, 1279, 1280, 1281, 1500, 2047,
        2048, 2049,
    ]);
    let lens: Vec<usize> = lens.collect();
    for class in classes() {
        let key = rng.bytes(16);
        let gcm = AesGcm::with_class(&key, class)
            .unwrap()
            .with_relaxed_tag_rules();
        for &n in &lens {
            for a in [0, 1, 15, 16, 17] {
                let plain: Vec<Msg> = (0..8)
                    .map(|i| Msg {
                        iv: rng.bytes(12),
                        aad: rng.bytes(a),
                        buf: rng.bytes(n),
                        tag: vec![0; [16, 12, 8, 4][i % 4]],
                    })
                    .collect();
                let mut regions: Vec<[Guarded; 4]> = plain
                    .iter()
                    .map(|m| [&m.iv, &m.aad, &m.buf, &m.tag].map(|b| Guarded::holding(b)))
                    .collect();
                let what = format!("{}: {n} B, AAD {a} B", class.name());
                let mut batch: Vec<BatchMessage<'_>> = regions
                    .iter_mut()
                    .map(|[iv, aad, buf, tag]| BatchMessage {
                        iv: iv.slice(),
                        aad: aad.slice(),
                        buf: buf.slice(),
                        tag: tag.slice(),
                    })
                    .collect();
                let results = gcm.encrypt_batch(&mut batch);
                let sealed: Vec<Msg> = batch
                    .iter()
                    .zip(&plain)
                    .map(|(b, p)| Msg {
                        buf: b.buf.to_vec(),
                        tag: b.tag.to_vec(),
                        ..p.clone()
                    })
                    .collect();
                assert_equals_one_message_calls(&gcm, &plain, &sealed, &results, &what);
                let results = gcm.decrypt_batch(&mut batch);
                for (i, (b, p)) in batch.iter().zip(&plain).enumerate() {
                    assert_eq!(results[i], Ok(()), "{what} msg {i}: decrypted");
                    assert!(*b.buf == p.buf[..], "{what} msg {i}: decrypted");
                }
            }
        }
    }
}

#[test]
#[should_panic(expected = "one result slot per message")]
fn gcm_batch_into_refuses_a_results_slice_of_another_length() {
    let gcm = AesGcm::new(&[7; 16]).unwrap();
    let mut msgs = random_gcm_msgs(&mut Rng(0xba7c_0006), 3);
    let mut results = vec![Ok(()); 2];
    gcm.encrypt_batch_into(&mut gcm_batch(&mut msgs), &mut results);
}

// ---- AETHER ----

/// One AETHER message's inputs, owned.
#[derive(Clone)]
struct AMsg {
    nonce: [u8; 16],
    ad: Vec<u8>,
    buf: Vec<u8>,
    tag: [u8; 16],
}

fn aether_batch(msgs: &mut [AMsg]) -> Vec<aether::AetherMessage<'_>> {
    msgs.iter_mut()
        .map(|m| aether::AetherMessage {
            nonce: &m.nonce,
            ad: &m.ad,
            buf: &mut m.buf,
            tag: &mut m.tag,
        })
        .collect()
}

fn amsg(rng: &mut Rng, ad_len: usize, len: usize) -> AMsg {
    AMsg {
        nonce: rng.block(),
        ad: rng.bytes(ad_len),
        buf: rng.bytes(len),
        tag: [0; 16],
    }
}

/// The strategies this CPU runs, each giving its own batch engines
/// (`reference`, `avx2` and `neon`: one message at a time; `avx512`: its own
/// one-message engine or the AVX-512 bitsliced engine, 256 or 512 lanes;
/// `portable`: the bitsliced engine of the widest instruction set).
fn strategies() -> Vec<Strategy> {
    Strategy::ALL
        .into_iter()
        .filter(|s| {
            let on = s.is_available();
            if !on {
                common::skip(&format!("{}: not available on this CPU", s.name()));
            }
            on
        })
        .collect()
}

/// Encrypts `plain` as a batch and checks every message against the
/// reference's one-message output, then decrypts the batch back.
fn check_aether_batch(key: &[u8], s: Strategy, plain: &[AMsg], what: &str) {
    let a = Aether::with(key, s).unwrap();
    let oracle = Aether::with(key, Strategy::Reference).unwrap();
    let mut msgs = plain.to_vec();
    let results = a.encrypt_batch(&mut aether_batch(&mut msgs));
    assert_eq!(results.len(), plain.len());
    for (i, (m, p)) in msgs.iter().zip(plain).enumerate() {
        assert_eq!(results[i], Ok(()));
        let mut want = p.buf.clone();
        let tag = oracle
            .encrypt_in_place_detached(&p.nonce, &p.ad, &mut want)
            .unwrap();
        assert_eq!(
            m.buf,
            want,
            "{} {what} msg {i} ({} bytes)",
            s.name(),
            p.buf.len()
        );
        assert_eq!(m.tag, tag, "{} {what} msg {i} tag", s.name());
    }
    let results = a.decrypt_batch(&mut aether_batch(&mut msgs));
    for (i, (m, p)) in msgs.iter().zip(plain).enumerate() {
        assert_eq!(results[i], Ok(()), "{} {what} msg {i}", s.name());
        assert_eq!(m.buf, p.buf, "{} {what} msg {i} decryption", s.name());
    }
}

#[test]
fn aether_batch_random_lengths_0_to_2000() {
    let mut rng = Rng(0xba7c_0004);
    for s in strategies() {
        let key = rng.bytes(32);
        let plain: Vec<AMsg> = (0..200)
            .map(|_| {
                let ad = [0, 16, rng.below(120)][rng.below(3)];
                let len = rng.below(2001);
                amsg(&mut rng, ad, len)
            })
            .collect();
        check_aether_batch(&key, s, &plain, "random");
    }
}

#[test]
fn aether_batch_filled_groups_of_one_shape() {
    // 300 messages of 31 padded blocks (1440..=1487 bytes) with 0..47 bytes
    // of AD: for a `portable` key one full group of 256 lanes (with AVX2;
    // two of 128 without) and a remainder of 44 on 128 lanes, every
    // short last block different; plus 150 of exactly 576 bytes (the
    // padding-only last block) and a few of other lengths.
    let mut rng = Rng(0xba7c_0005);
    for s in strategies() {
        let key = rng.bytes(32);
        let mut plain: Vec<AMsg> = Vec::new();
        for _ in 0..300 {
            let (ad, len) = (rng.below(48), 1440 + rng.below(48));
            plain.push(amsg(&mut rng, ad, len));
        }
        for _ in 0..150 {
            plain.push(amsg(&mut rng, 0, 576));
        }
        for len in [0, 1, 47, 48, 49, 2000] {
            plain.push(amsg(&mut rng, 5, len));
        }
        // Interleave the shapes: grouping must not depend on order.
        for i in 0..plain.len() {
            let j = rng.below(plain.len());
            plain.swap(i, j);
        }
        check_aether_batch(&key, s, &plain, "shaped");
    }
}

#[test]
fn aether_batch_empty_messages_fill_a_group() {
    let mut rng = Rng(0xba7c_0006);
    for s in strategies() {
        let key = rng.bytes(32);
        let plain: Vec<AMsg> = (0..256).map(|_| amsg(&mut rng, 0, 0)).collect();
        check_aether_batch(&key, s, &plain, "empty");
    }
}

#[test]
fn aether_batch_fills_512_lanes() {
    // 600 messages of 90..=95 bytes (two padded blocks) with 20 bytes of
    // AD, and a forged one: where AVX-512 runs, a group of 512 lanes
    // (cheaper per message than the one-message engines at this length)
    // and a remainder on whatever costs least; one padding-only block
    // (96 bytes) among them.
    let mut rng = Rng(0xba7c_0009);
    for s in strategies() {
        let key = rng.bytes(32);
        let mut plain: Vec<AMsg> = (0..600)
            .map(|_| {
                let len = 90 + rng.below(6);
                amsg(&mut rng, 20, len)
            })
            .collect();
        plain[333] = amsg(&mut rng, 20, 95);
        check_aether_batch(&key, s, &plain, "512 lanes");
        let a = Aether::with(&key, s).unwrap();
        let mut msgs = plain.clone();
        a.encrypt_batch(&mut aether_batch(&mut msgs));
        msgs[511].buf[89] ^= 0x80;
        let results = a.decrypt_batch(&mut aether_batch(&mut msgs));
        for (i, (m, p)) in msgs.iter().zip(&plain).enumerate() {
            if i == 511 {
                assert_eq!(results[i], Err(Error::AuthenticationFailed), "{}", s.name());
                assert!(m.buf.iter().all(|&b| b == 0), "{} not wiped", s.name());
            } else {
                assert_eq!(results[i], Ok(()), "{} msg {i}", s.name());
                assert_eq!(m.buf, p.buf, "{} msg {i}", s.name());
            }
        }
    }
}

#[derive(Deserialize)]
struct Kat {
    aead: Vec<KatCase>,
}

#[derive(Deserialize)]
struct KatCase {
    key: String,
    nonce: String,
    ad: String,
    msg: String,
    ct: String,
    tag: String,
}

#[test]
fn aether_batch_known_answers_in_a_full_group() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/aether-kat.json"
    ))
    .expect("vectors/aether-kat.json");
    let kat: Kat = serde_json::from_str(&text).expect("KAT JSON");
    assert!(!kat.aead.is_empty());
    let mut rng = Rng(0xba7c_0007);
    for s in strategies() {
        for (n, c) in kat.aead.iter().enumerate() {
            // The known answer in lane `at` of 256 messages of its shape.
            let (ad, msg) = (unhex(&c.ad), unhex(&c.msg));
            let mut plain: Vec<AMsg> = (0..256)
                .map(|_| amsg(&mut rng, ad.len(), msg.len()))
                .collect();
            let at = rng.below(256);
            plain[at] = AMsg {
                nonce: unhex(&c.nonce).try_into().unwrap(),
                ad,
                buf: msg,
                tag: [0; 16],
            };
            let a = Aether::with(&unhex(&c.key), s).unwrap();
            let mut msgs = plain.clone();
            a.encrypt_batch(&mut aether_batch(&mut msgs));
            assert_eq!(
                msgs[at].buf,
                unhex(&c.ct),
                "{} case {n}: ciphertext",
                s.name()
            );
            assert_eq!(
                msgs[at].tag.to_vec(),
                unhex(&c.tag),
                "{} case {n}: tag",
                s.name()
            );
            let results = a.decrypt_batch(&mut aether_batch(&mut msgs));
            assert_eq!(results[at], Ok(()), "{} case {n}", s.name());
            assert_eq!(
                msgs[at].buf,
                plain[at].buf,
                "{} case {n}: decryption",
                s.name()
            );
        }
    }
}

#[test]
fn aether_batch_forged_messages_fail_alone_and_are_wiped() {
    let mut rng = Rng(0xba7c_0008);
    for s in strategies() {
        let key = rng.bytes(32);
        let a = Aether::with(&key, s).unwrap();
        // A full group of one shape plus a few stragglers.
        let mut plain: Vec<AMsg> = (0..256).map(|_| amsg(&mut rng, 8, 1500)).collect();
        plain.extend((0..5).map(|_| amsg(&mut rng, 8, 64)));
        let mut msgs = plain.clone();
        // Through the `_into` calls, over stale results: every entry is
        // written (a group's encryption writes none of its own).
        let mut results = vec![Err(Error::AuthenticationFailed); msgs.len()];
        a.encrypt_batch_into(&mut aether_batch(&mut msgs), &mut results);
        assert!(results.iter().all(Result::is_ok), "{}", s.name());
        let forged = [7, 100, 255, 258];
        msgs[7].tag[15] ^= 1;
        msgs[100].buf[1499] ^= 0x01; // the short last block
        msgs[255].buf[0] ^= 0x40;
        msgs[258].nonce[3] ^= 2;
        let mut results = vec![Err(Error::EmptyIv); msgs.len()];
        a.decrypt_batch_into(&mut aether_batch(&mut msgs), &mut results);
        for (i, (m, p)) in msgs.iter().zip(&plain).enumerate() {
            if forged.contains(&i) {
                assert_eq!(
                    results[i],
                    Err(Error::AuthenticationFailed),
                    "{} msg {i}",
                    s.name()
                );
                assert!(
                    m.buf.iter().all(|&b| b == 0),
                    "{} msg {i} not wiped",
                    s.name()
                );
            } else {
                assert_eq!(results[i], Ok(()), "{} msg {i}", s.name());
                assert_eq!(m.buf, p.buf, "{} msg {i}", s.name());
            }
        }
    }
}

#[test]
#[should_panic(expected = "one result slot per message")]
fn aether_batch_into_refuses_a_results_slice_of_another_length() {
    let a = Aether::new(&[7; 32]).unwrap();
    let mut msgs: Vec<AMsg> = (0..3).map(|_| amsg(&mut Rng(0xba7c_0009), 0, 10)).collect();
    let mut results = vec![Ok(()); 4];
    a.decrypt_batch_into(&mut aether_batch(&mut msgs), &mut results);
}
