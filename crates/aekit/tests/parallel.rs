//! One message on many cores (`aekit::gcm::Pool`, set with
//! `AesGcm::with_pool`): the split path equals
//! the one-thread path byte for byte — ciphertext and tag — for every
//! implementation this CPU runs, random sizes (empty, one block, not
//! multiples of 16), random IV and associated-data lengths, 1 to 8
//! threads, and a 32-bit counter that wraps inside the message, in place
//! and out of place (into initialized and uninitialized memory);
//! decryption round-trips, and every kind of tampering fails and wipes
//! the buffer.

mod common;

use std::sync::Arc;

use aekit::gcm::{DEFAULT_THRESHOLD, Pool};
use aekit::{AesGcm, Error, aes, ghash};
use common::{Implementation, Rng, implementations};

/// Pools of 1 to 8 threads that split every message, however short, so
/// that small sizes exercise the slicing too.
fn pools() -> Vec<Arc<Pool>> {
    (1..=8)
        .map(|t| Arc::new(Pool::new(t).unwrap().with_threshold(0)))
        .collect()
}

/// Encrypts with `gcm` (no pool) and with `split` (the same key with a
/// pool); asserts both give the same ciphertext and tag, then decrypts the
/// split way and gets the plaintext back. Returns the ciphertext and tag.
fn agrees(
    gcm: &AesGcm,
    split: &AesGcm,
    iv: &[u8],
    aad: &[u8],
    plain: &[u8],
    tag_len: usize,
    id: &str,
) -> (Vec<u8>, Vec<u8>) {
    let mut one = plain.to_vec();
    let tag_one = gcm
        .encrypt_in_place_detached(iv, aad, &mut one, tag_len)
        .unwrap();
    let mut par = plain.to_vec();
    let tag_par = split
        .encrypt_in_place_detached(iv, aad, &mut par, tag_len)
        .unwrap();
    assert!(one == par, "{id}: ciphertext differs");
    assert_eq!(tag_one.as_bytes(), tag_par.as_bytes(), "{id}: tag differs");
    let mut back = par.clone();
    split
        .decrypt_in_place_detached(iv, aad, &mut back, tag_par.as_bytes())
        .unwrap_or_else(|e| panic!("{id}: decryption failed: {e}"));
    assert!(back == plain, "{id}: decryption is not the plaintext");

    // Out of place, into a buffer and into uninitialized memory.
    let mut out = vec![0xa5; plain.len()];
    let tag_into = split
        .encrypt_detached_into(iv, aad, plain, &mut out, tag_len)
        .unwrap();
    assert!(out == one, "{id}: ciphertext out of place differs");
    assert_eq!(
        tag_into.as_bytes(),
        tag_one.as_bytes(),
        "{id}: tag out of place"
    );
    let mut space = Vec::<u8>::with_capacity(plain.len());
    let spare = &mut space.spare_capacity_mut()[..plain.len()];
    let (sealed, tag_uninit) = split
        .encrypt_detached_into_uninit(iv, aad, plain, spare, tag_len)
        .unwrap();
    assert!(
        sealed == &one[..],
        "{id}: ciphertext into uninitialized memory"
    );
    assert_eq!(
        tag_uninit.as_bytes(),
        tag_one.as_bytes(),
        "{id}: tag uninit"
    );
    let mut back = vec![0x5a; plain.len()];
    split
        .decrypt_detached_into(iv, aad, &one, &mut back, tag_one.as_bytes())
        .unwrap_or_else(|e| panic!("{id}: out-of-place decryption failed: {e}"));
    assert!(back == plain, "{id}: out-of-place decryption");
    let mut space = Vec::<u8>::with_capacity(plain.len());
    let spare = &mut space.spare_capacity_mut()[..plain.len()];
    let opened = split
        .decrypt_detached_into_uninit(iv, aad, &one, spare, tag_one.as_bytes())
        .unwrap();
    assert!(
        opened == plain,
        "{id}: decryption into uninitialized memory"
    );
    (par, tag_par.as_bytes().to_vec())
}

#[test]
fn split_equals_one_thread_for_every_implementation() {
    let mut rng = Rng(0x9a7a);
    let pools = pools();
    let key = rng.bytes(32);
    let fixed = [
        0usize,
        1,
        15,
        16,
        17,
        31,
        32,
        33,
        511,
        512,
        513,
        4096 * 3 + 7,
    ];
    for imp in implementations() {
        // Every SP 800-38D tag length with any IV: the relaxed rules.
        let gcm = imp.build(&key).unwrap().with_relaxed_tag_rules();
        let mut sizes: Vec<usize> = fixed.to_vec();
        sizes.extend((0..4).map(|_| rng.below(200 << 10)));
        for size in sizes {
            let pool = &pools[rng.below(pools.len())];
            let iv_len = if rng.below(2) == 0 {
                12
            } else {
                1 + rng.below(40)
            };
            let iv = rng.bytes(iv_len);
            let aad_len = rng.below(70);
            let aad = rng.bytes(aad_len);
            let plain = rng.bytes(size);
            let tag_len = aekit::gcm::TAG_LENGTHS[rng.below(aekit::gcm::TAG_LENGTHS.len())];
            let id = format!(
                "{imp}: {size} B, {} threads, IV {iv_len} B, AAD {} B, tag {tag_len}",
                pool.threads(),
                aad.len()
            );
            let split = imp
                .build(&key)
                .unwrap()
                .with_relaxed_tag_rules()
                .with_pool(Arc::clone(pool));
            agrees(&gcm, &split, &iv, &aad, &plain, tag_len, &id);
        }
    }
}

#[test]
fn every_thread_count_on_one_message() {
    let mut rng = Rng(0x7e4d);
    let key = rng.bytes(16);
    let gcm = AesGcm::new(&key).unwrap();
    let plain = rng.bytes(300_001);
    let (iv, aad) = (rng.bytes(12), rng.bytes(20));
    for pool in pools() {
        let id = format!("{} threads", pool.threads());
        let split = AesGcm::new(&key).unwrap().with_pool(pool);
        agrees(&gcm, &split, &iv, &aad, &plain, 16, &id);
    }
}

/// Y_0 = GHASH(H, {}, IV) for an IV that is not 96 bits (spec §2.3),
/// computed here from the public strategies.
fn pre_counter(key: &[u8], iv: &[u8]) -> [u8; 16] {
    let aes = aes::Cipher::new(aes::Strategy::Table, key).unwrap();
    let mut h = [[0u8; 16]];
    aes.encrypt_blocks(&mut h);
    let g = ghash::Key::new(ghash::Strategy::Karatsuba, &h[0]).unwrap();
    let mut padded = iv.to_vec();
    padded.resize(iv.len().div_ceil(16) * 16, 0);
    padded.extend_from_slice(&[0; 8]);
    padded.extend_from_slice(&(iv.len() as u64 * 8).to_be_bytes());
    let mut y = [0u8; 16];
    g.update_blocks(&mut y, &padded);
    y
}

/// A 32-bit counter that wraps in the middle of the message: an IV is
/// searched whose Y_0 puts the wrap (counter low word 0xffffffff → 0) at a
/// block inside the middle half, not on a slice boundary, and the split is
/// checked against the one-thread path for every implementation.
#[test]
fn counter_wrapping_inside_a_slice() {
    let mut rng = Rng(0x3a9f);
    let key = rng.bytes(16);
    let len = (256 << 10) + 5;
    let blocks = (len / 16) as u64;
    let (iv, wrap_at) = loop {
        let iv = rng.bytes(16);
        let j0 = pre_counter(&key, &iv);
        let low = u32::from_be_bytes(j0[12..].try_into().unwrap()) as u64;
        // Block i (from 0) uses low + 1 + i mod 2^32: 0 at i = 2^32 − 1 − low.
        let wrap_at = (1u64 << 32) - 1 - low;
        if (blocks / 4..3 * blocks / 4).contains(&wrap_at) && !wrap_at.is_multiple_of(32) {
            break (iv, wrap_at);
        }
    };
    let plain = rng.bytes(len);
    let aad = rng.bytes(9);
    let pools = pools();
    for imp in implementations() {
        let gcm = imp.build(&key).unwrap();
        for threads in [2, 3, 8] {
            let pool = &pools[threads - 1];
            let id = format!("{imp}, {} threads, wrap at block {wrap_at}", pool.threads());
            let split = imp.build(&key).unwrap().with_pool(Arc::clone(pool));
            agrees(&gcm, &split, &iv, &aad, &plain, 16, &id);
        }
    }
}

/// Flipping a bit of the ciphertext, the tag, the associated data or the
/// IV, or cutting the ciphertext short, fails with `AuthenticationFailed`
/// and leaves the buffer zeroed.
#[test]
fn tampering_fails_and_wipes() {
    let mut rng = Rng(0x5eed);
    let key = rng.bytes(32);
    let pool = Arc::new(Pool::new(3).unwrap().with_threshold(0));
    let imps = [
        Implementation::Pair(aes::Strategy::Fixslice, ghash::Strategy::Karatsuba),
        Implementation::Pair(aes::Strategy::best(), ghash::Strategy::best()),
    ];
    for imp in imps {
        let gcm = imp.build(&key).unwrap();
        let split = imp.build(&key).unwrap().with_pool(Arc::clone(&pool));
        for len in [1usize, 100, 70_000] {
            let (iv, aad, plain) = (rng.bytes(12), rng.bytes(13), rng.bytes(len));
            let id = format!("{imp} at {len} B");
            let (ct, tag) = agrees(&gcm, &split, &iv, &aad, &plain, 16, &id);
            let open = |iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8]| {
                let mut buf = ct.to_vec();
                let r = split.decrypt_in_place_detached(iv, aad, &mut buf, tag);
                (r, buf)
            };
            let flip = |v: &[u8], i: usize| {
                let mut v = v.to_vec();
                let at = i % v.len();
                v[at] ^= 1 << (i % 8);
                v
            };
            let bit = rng.below(1 << 20);
            for (what, (r, buf)) in [
                ("ciphertext", open(&iv, &aad, &flip(&ct, bit), &tag)),
                ("tag", open(&iv, &aad, &ct, &flip(&tag, bit))),
                ("AAD", open(&iv, &flip(&aad, bit), &ct, &tag)),
                ("IV", open(&flip(&iv, bit), &aad, &ct, &tag)),
                (
                    "shortened ciphertext",
                    open(&iv, &aad, &ct[..len - 1], &tag),
                ),
            ] {
                assert_eq!(r, Err(Error::AuthenticationFailed), "{id}: {what}");
                assert!(buf.iter().all(|&b| b == 0), "{id}: {what} not wiped");
            }
            // Out of place: the output wiped, the input untouched.
            let forged = flip(&ct, bit);
            let mut out = vec![0x77; len];
            let r = split.decrypt_detached_into(&iv, &aad, &forged, &mut out, &tag);
            assert_eq!(r, Err(Error::AuthenticationFailed), "{id}: out of place");
            assert!(out.iter().all(|&b| b == 0), "{id}: out of place not wiped");
        }
    }
}

#[test]
fn same_errors_as_the_one_thread_api() {
    let pool = Pool::new(2).unwrap().with_threshold(0);
    let gcm = AesGcm::new(&[1; 16]).unwrap().with_pool(pool);
    let mut buf = vec![0u8; 1000];
    assert_eq!(
        gcm.encrypt_in_place_detached(&[], b"", &mut buf, 16).err(),
        Some(Error::EmptyIv)
    );
    assert_eq!(
        gcm.encrypt_in_place_detached(&[0; 12], b"", &mut buf, 5)
            .err(),
        Some(Error::InvalidTagLength(5))
    );
    assert_eq!(
        gcm.decrypt_in_place_detached(&[0; 12], b"", &mut buf, &[0; 3]),
        Err(Error::InvalidTagLength(3))
    );
    let mut out = vec![0u8; 999];
    assert_eq!(
        gcm.encrypt_detached_into(&[0; 12], b"", &buf, &mut out, 16)
            .err(),
        Some(Error::OutputLength {
            input: 1000,
            output: 999
        })
    );
}

/// The previous release's `_par` calls, kept deprecated for one release,
/// give what the pool setting gives.
#[test]
#[allow(deprecated)]
fn deprecated_par_calls_equal_the_pool_setting() {
    let mut rng = Rng(0xde90);
    let pool = Arc::new(Pool::new(3).unwrap().with_threshold(0));
    let key = rng.bytes(16);
    let plain = rng.bytes(70_001);
    let (iv, aad) = (rng.bytes(12), rng.bytes(5));
    let gcm = AesGcm::new(&key).unwrap();
    let split = AesGcm::new(&key).unwrap().with_pool(Arc::clone(&pool));
    let mut sealed = plain.clone();
    let tag = split
        .encrypt_in_place_detached(&iv, &aad, &mut sealed, 16)
        .unwrap();

    let mut buf = plain.clone();
    let t = gcm
        .encrypt_in_place_detached_par(&pool, &iv, &aad, &mut buf, 16)
        .unwrap();
    assert!(buf == sealed && t.as_bytes() == tag.as_bytes(), "in place");
    gcm.decrypt_in_place_detached_par(&pool, &iv, &aad, &mut buf, tag.as_bytes())
        .unwrap();
    assert!(buf == plain, "in place, decrypted");

    let mut out = vec![0u8; plain.len()];
    let t = gcm
        .encrypt_detached_into_par(&pool, &iv, &aad, &plain, &mut out, 16)
        .unwrap();
    assert!(out == sealed && t.as_bytes() == tag.as_bytes(), "into");
    gcm.decrypt_detached_into_par(&pool, &iv, &aad, &sealed, &mut out, tag.as_bytes())
        .unwrap();
    assert!(out == plain, "into, decrypted");

    let mut space = Vec::<u8>::with_capacity(plain.len());
    let spare = &mut space.spare_capacity_mut()[..plain.len()];
    let (ct, t) = gcm
        .encrypt_detached_into_uninit_par(&pool, &iv, &aad, &plain, spare, 16)
        .unwrap();
    assert!(
        ct == &sealed[..] && t.as_bytes() == tag.as_bytes(),
        "uninit"
    );
    let mut space = Vec::<u8>::with_capacity(plain.len());
    let spare = &mut space.spare_capacity_mut()[..plain.len()];
    let pt = gcm
        .decrypt_detached_into_uninit_par(&pool, &iv, &aad, &sealed, spare, tag.as_bytes())
        .unwrap();
    assert!(pt == &plain[..], "uninit, decrypted");
    let mut forged = sealed.clone();
    forged[7] ^= 1;
    assert_eq!(
        gcm.decrypt_in_place_detached_par(&pool, &iv, &aad, &mut forged, tag.as_bytes()),
        Err(Error::AuthenticationFailed)
    );
    assert!(forged.iter().all(|&b| b == 0), "wiped");
}

#[test]
fn pool_reports_its_threads_and_threshold() {
    let pool = Pool::new(3).unwrap();
    assert_eq!(pool.threads(), 3);
    assert_eq!(pool.threshold(), DEFAULT_THRESHOLD);
    assert!(Pool::new(0).unwrap().threads() >= 1);
    assert_eq!(pool.with_threshold(1).threshold(), 1);
    let gcm = AesGcm::new(&[1; 16]).unwrap();
    assert!(gcm.pool().is_none());
    let gcm = gcm.with_pool(Pool::new(2).unwrap());
    assert_eq!(gcm.pool().map(Pool::threads), Some(2));
}
