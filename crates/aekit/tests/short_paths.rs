//! The fused kernels' whole-message paths for short messages, in place and
//! out of place (into initialized and into uninitialized memory), against
//! the portable pair: every length from 0 to 2048 bytes (the short paths
//! take up to seven blocks, the AVX-512 one up to sixteen hashed, the
//! loops the rest), every associated-data length from 0 to 64 at the short
//! lengths, buffers at odd offsets, decryption back and a forged tag
//! wiping the output; and messages that end at a page boundary with the
//! next page unmapped, so a load past the input or a store past the output
//! faults, through the one-shot calls, the on-line calls (each piece at a
//! boundary) and the supplied-keystream calls.

mod common;

use aekit::gcm::Fused;
use aekit::{AesGcm, Error, aes, ghash};
use common::{Guarded, Rng, skip};

/// The default key and each fused kernel this CPU runs, with the
/// portable pair as the oracle.
fn keys(key: &[u8]) -> (AesGcm, Vec<(String, AesGcm)>) {
    let oracle = AesGcm::with(key, aes::Strategy::Fixslice, ghash::Strategy::Karatsuba).unwrap();
    let mut keys = vec![("default".to_string(), AesGcm::new(key).unwrap())];
    for f in Fused::ALL {
        if f.is_available() {
            keys.push((
                format!("fused {}", f.name()),
                AesGcm::fused(key, f).unwrap(),
            ));
        } else {
            skip(&format!(
                "fused {} (this CPU lacks its instructions)",
                f.name()
            ));
        }
    }
    (oracle, keys)
}

/// `plain` sealed by `oracle`: the ciphertext and the 16-byte tag.
fn sealed_by(oracle: &AesGcm, iv: &[u8; 12], aad: &[u8], plain: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let mut ct = plain.to_vec();
    let tag = oracle
        .encrypt_in_place_detached(iv, aad, &mut ct, 16)
        .unwrap();
    (ct, tag.as_bytes().try_into().unwrap())
}

/// One message every way on `gcm` against `oracle`: in place, into a
/// buffer at `offsets.1` from `plain` at `offsets.0`, into uninitialized
/// memory; decrypted back each way; a forged tag refused and the output
/// wiped.
fn every_way(
    (name, gcm): (&str, &AesGcm),
    oracle: &AesGcm,
    (iv, aad, plain): (&[u8; 12], &[u8], &[u8]),
    offsets: (usize, usize),
) {
    let n = plain.len();
    let id = format!("{name}: {n} B, AAD {} B, offsets {offsets:?}", aad.len());
    let (want, want_tag) = sealed_by(oracle, iv, aad, plain);

    let mut inplace = plain.to_vec();
    let tag = gcm
        .encrypt_in_place_detached(iv, aad, &mut inplace, 16)
        .unwrap();
    assert!(
        inplace == want && tag.as_bytes() == &want_tag[..],
        "{id}: in place"
    );

    let mut src = vec![0u8; n + offsets.0];
    src[offsets.0..].copy_from_slice(plain);
    let mut dst = vec![0x5au8; n + offsets.1];
    let tag = gcm
        .encrypt_detached_into(iv, aad, &src[offsets.0..], &mut dst[offsets.1..], 16)
        .unwrap();
    assert!(dst[offsets.1..] == want[..], "{id}: into");
    assert_eq!(tag.as_bytes(), &want_tag[..], "{id}: into, tag");
    assert!(
        dst[..offsets.1].iter().all(|&b| b == 0x5a),
        "{id}: wrote before out"
    );

    let mut space = Vec::<u8>::with_capacity(n + offsets.1);
    let spare = &mut space.spare_capacity_mut()[offsets.1..n + offsets.1];
    let (ct, tag) = gcm
        .encrypt_detached_into_uninit(iv, aad, &src[offsets.0..], spare, 16)
        .unwrap();
    assert!(
        ct == &want[..] && tag.as_bytes() == &want_tag[..],
        "{id}: uninit"
    );

    let mut sealed = vec![0u8; n + offsets.0];
    sealed[offsets.0..].copy_from_slice(&want);
    let mut back = vec![0xa5u8; n + offsets.1];
    gcm.decrypt_detached_into(
        iv,
        aad,
        &sealed[offsets.0..],
        &mut back[offsets.1..],
        &want_tag,
    )
    .unwrap_or_else(|e| panic!("{id}: decrypt into: {e}"));
    assert!(back[offsets.1..] == *plain, "{id}: decrypted into");
    let mut space = Vec::<u8>::with_capacity(n);
    let opened = gcm
        .decrypt_detached_into_uninit(
            iv,
            aad,
            &want,
            &mut space.spare_capacity_mut()[..n],
            &want_tag,
        )
        .unwrap();
    assert!(opened == plain, "{id}: decrypted into uninitialized memory");
    let mut back = want.clone();
    gcm.decrypt_in_place_detached(iv, aad, &mut back, &want_tag)
        .unwrap();
    assert!(back == plain, "{id}: decrypted in place");

    let mut forged = want_tag;
    forged[n % 16] ^= 1;
    let mut out = vec![0xa5u8; n];
    assert_eq!(
        gcm.decrypt_detached_into(iv, aad, &want, &mut out, &forged),
        Err(Error::AuthenticationFailed),
        "{id}: forged"
    );
    assert!(
        out.iter().all(|&b| b == 0),
        "{id}: forged, output not wiped"
    );
}

#[test]
fn every_length_and_aad_length_in_place_and_out_of_place() {
    let mut rng = Rng(0x5407);
    for key_len in [16, 32] {
        let key = rng.bytes(key_len);
        let (oracle, keys) = keys(&key);
        let iv: [u8; 12] = rng.bytes(12).try_into().unwrap();
        let data = rng.bytes(2048);
        for n in 0..=2048 {
            // Every AAD length at the short paths' lengths; a few beyond.
            let aads: Vec<usize> = if n <= 272 {
                (0..=64).collect()
            } else {
                vec![0, 16, 13 + n % 51]
            };
            for a in aads {
                let aad = &data[..a];
                let offsets = [(0, 0), (1, 3), (15, 8)][(n + a) % 3];
                for (name, gcm) in &keys {
                    every_way((name, gcm), &oracle, (&iv, aad, &data[..n]), offsets);
                }
            }
        }
    }
}

#[test]
fn long_associated_data_at_every_path_limit() {
    // Whole-message paths choose by the hashed blocks (the AAD's, the
    // message's and the lengths block): an empty message with a long
    // AAD, and AAD that brings the count to each side of a limit
    // (8, 16 and 132 hashed blocks) for messages of every shape.
    let mut rng = Rng(0xaad1);
    for key_len in [16, 32] {
        let key = rng.bytes(key_len);
        let (oracle, keys) = keys(&key);
        let iv: [u8; 12] = rng.bytes(12).try_into().unwrap();
        let data = rng.bytes(2400);
        for n in (0..=80usize).chain([255, 256, 257, 1000, 2000, 2047]) {
            let c = n.div_ceil(16);
            let mut aads = vec![65, 200, 255, 256, 257, 600, 2100];
            for hashed in [8, 9, 16, 17, 131, 132, 133] {
                if let Some(a) = (hashed - 1usize).checked_sub(c) {
                    // a blocks: a partial last block and a whole one.
                    aads.extend([(16 * a).saturating_sub(5), 16 * a]);
                }
            }
            for a in aads {
                let aad = &data[..a.min(data.len())];
                let offsets = [(0, 0), (1, 3), (15, 8)][(n + a) % 3];
                for (name, gcm) in &keys {
                    every_way((name, gcm), &oracle, (&iv, aad, &data[..n]), offsets);
                }
            }
        }
    }
}

#[test]
fn nothing_is_read_or_written_past_a_message_at_a_page_boundary() {
    let mut rng = Rng(0x9a9e);
    let key = rng.bytes(16);
    let (oracle, keys) = keys(&key);
    let iv: [u8; 12] = rng.bytes(12).try_into().unwrap();
    for n in (0..=300).chain([511, 512, 1023, 1500, 4095, 4096, 5000]) {
        for a in [0, 5, 16, 33] {
            let aad_data = rng.bytes(a);
            let plain = rng.bytes(n);
            let mut aad = Guarded::holding(&aad_data);
            let (want, want_tag) = sealed_by(&oracle, &iv, &aad_data, &plain);
            let mut keystream = Guarded::holding(&common::oracle_keystream(&key, &iv, n));
            for (name, gcm) in &keys {
                let id = format!("{name}: {n} B, AAD {a} B");
                let (mut input, mut out) = (Guarded::holding(&plain), Guarded::new(n));
                let tag = gcm
                    .encrypt_detached_into(&iv, aad.slice(), input.slice(), out.slice(), 16)
                    .unwrap();
                assert!(out.slice() == &want[..], "{id}: into");
                assert_eq!(tag.as_bytes(), &want_tag[..], "{id}");
                let tag = gcm
                    .encrypt_in_place_detached(&iv, aad.slice(), input.slice(), 16)
                    .unwrap();
                assert!(input.slice() == &want[..], "{id}: in place");
                assert_eq!(tag.as_bytes(), &want_tag[..], "{id}");
                gcm.decrypt_detached_into(&iv, aad.slice(), input.slice(), out.slice(), &want_tag)
                    .unwrap();
                assert!(out.slice() == &plain[..], "{id}: decrypted into");
                online_and_supplied_at_a_page_boundary(
                    (&id, gcm),
                    (&iv, &aad_data, &plain),
                    (&want, &want_tag),
                    (&mut keystream, &mut aad),
                );
            }
        }
    }
}

/// The on-line calls with every piece of input at a page boundary (the
/// associated data in two pieces and the message in three, each in a
/// mapping of its own, encrypted and decrypted in place there), and the
/// supplied-keystream calls with the keystream (Y_0's block, then the
/// message's, no byte more), the associated data (`aad`, at a boundary
/// already in `guarded_aad`) and the message each at one.
fn online_and_supplied_at_a_page_boundary(
    (id, gcm): (&str, &AesGcm),
    (iv, aad, plain): (&[u8; 12], &[u8], &[u8]),
    (want, want_tag): (&[u8], &[u8; 16]),
    (keystream, guarded_aad): (&mut Guarded, &mut Guarded),
) {
    let (n, a) = (plain.len(), aad.len());
    let (aad_cut, cuts) = (a / 2, [n / 3, 2 * n / 3]);
    let pieces = |bytes: &[u8]| {
        [
            &bytes[..cuts[0]],
            &bytes[cuts[0]..cuts[1]],
            &bytes[cuts[1]..],
        ]
        .map(Guarded::holding)
    };
    let mut aad_pieces = [&aad[..aad_cut], &aad[aad_cut..]].map(Guarded::holding);
    let mut text = pieces(plain);
    let mut enc = gcm.encryptor(iv).unwrap();
    for piece in &mut aad_pieces {
        enc.update_aad(piece.slice()).unwrap();
    }
    for piece in &mut text {
        enc.update(piece.slice()).unwrap();
    }
    let tag = enc.finish(16).unwrap();
    assert_eq!(tag.as_bytes(), &want_tag[..], "{id}: on-line tag");
    let sealed: Vec<u8> = text.iter_mut().flat_map(|p| p.slice().to_vec()).collect();
    assert!(sealed == want, "{id}: on-line");
    let mut dec = gcm.decryptor(iv).unwrap();
    for piece in &mut aad_pieces {
        dec.update_aad(piece.slice()).unwrap();
    }
    for piece in &mut text {
        dec.update(piece.slice()).unwrap();
    }
    dec.finish(want_tag).unwrap();
    let opened: Vec<u8> = text.iter_mut().flat_map(|p| p.slice().to_vec()).collect();
    assert!(opened == plain, "{id}: on-line, decrypted");

    let mut buf = Guarded::holding(plain);
    let tag = gcm
        .encrypt_with_keystream(keystream.slice(), guarded_aad.slice(), buf.slice(), 16)
        .unwrap();
    assert!(buf.slice() == want, "{id}: supplied keystream");
    assert_eq!(tag.as_bytes(), &want_tag[..], "{id}: supplied keystream");
    gcm.decrypt_with_keystream(
        keystream.slice(),
        guarded_aad.slice(),
        buf.slice(),
        want_tag,
    )
    .unwrap();
    assert!(buf.slice() == plain, "{id}: supplied keystream, decrypted");
}
