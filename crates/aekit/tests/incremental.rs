//! The incremental MAC (GCM spec §1, §6): after every edit its tag equals
//! GMAC recomputed from scratch over the edited data, under the IV it was
//! issued with; and no IV is ever issued twice.

mod common;

use std::collections::HashSet;

use aekit::aes::Strategy as Aes;
use aekit::gcm::IncrementalGmac;
use aekit::ghash::Strategy as Ghash;
use aekit::{Error, Gmac};
use common::Rng;
use proptest::prelude::*;

/// One random edit applied to both the MAC and a plain copy of the data.
fn random_edit(rng: &mut Rng, mac: &mut IncrementalGmac, data: &mut Vec<u8>) {
    match rng.below(4) {
        // Overwrite a range in place (possibly empty, possibly everything).
        0 | 1 if !data.is_empty() => {
            let offset = rng.below(data.len());
            let len = rng.below(data.len() - offset + 1).min(1 + rng.below(70));
            let new = rng.bytes(len);
            mac.replace(offset as u64, &data[offset..offset + len], &new)
                .unwrap();
            data[offset..offset + len].copy_from_slice(&new);
        }
        // Append: fills the partial last block, then adds blocks.
        2 => {
            let n = rng.below(50);
            let more = rng.bytes(n);
            mac.append(&more).unwrap();
            data.extend_from_slice(&more);
        }
        // Truncate: leaves a partial last block, or none.
        _ => {
            let new_len = rng.below(data.len() + 1);
            mac.truncate(new_len as u64, &data[new_len..]).unwrap();
            data.truncate(new_len);
        }
    }
}

/// The tag from the MAC's state against GMAC over the data, from scratch.
fn check(mac: &mut IncrementalGmac, gmac: &Gmac, data: &[u8], id: &str) {
    assert_eq!(mac.len(), data.len() as u64, "{id}: length");
    let (iv, tag) = mac.tag().unwrap();
    let expected = gmac.compute(&iv, data, 16).unwrap();
    assert_eq!(tag.as_bytes(), expected.as_bytes(), "{id}");
    mac.verify(&iv, expected.as_bytes()).unwrap();
}

#[test]
fn every_edit_sequence_equals_recomputation() {
    let mut rng = Rng(0x1c4e);
    for sequence in 0..3000 {
        let key = rng.bytes(if sequence % 2 == 0 { 16 } else { 32 });
        let gmac = Gmac::new(&key).unwrap();
        let n = rng.below(300);
        let mut data = rng.bytes(n);
        let mut mac = IncrementalGmac::new(&key, &data).unwrap();
        check(
            &mut mac,
            &gmac,
            &data,
            &format!("sequence {sequence} start"),
        );
        for step in 0..1 + rng.below(12) {
            random_edit(&mut rng, &mut mac, &mut data);
            check(
                &mut mac,
                &gmac,
                &data,
                &format!("sequence {sequence} step {step}"),
            );
        }
    }
}

/// The same on other implementations (the incremental algebra must not
/// depend on how GHASH multiplies).
#[test]
fn edit_sequences_on_other_strategies() {
    let mut rng = Rng(0x1c4f);
    for ghash in [Ghash::BitSerial, Ghash::Shoup4, Ghash::Karatsuba] {
        for sequence in 0..100 {
            let key = rng.bytes(16);
            let gmac = Gmac::new(&key).unwrap();
            let n = rng.below(200);
            let mut data = rng.bytes(n);
            let mut mac = IncrementalGmac::with(&key, Aes::Fixslice, ghash, &data).unwrap();
            for step in 0..8 {
                random_edit(&mut rng, &mut mac, &mut data);
                let id = format!("{} sequence {sequence} step {step}", ghash.name());
                check(&mut mac, &gmac, &data, &id);
            }
        }
    }
}

/// Edits far apart in a megabyte: large powers of H, both directions.
#[test]
fn edits_across_a_megabyte() {
    let mut rng = Rng(0x1c50);
    let key = rng.bytes(16);
    let gmac = Gmac::new(&key).unwrap();
    let mut data = rng.bytes((1 << 20) + 7);
    let mut mac = IncrementalGmac::new(&key, &data).unwrap();
    for (offset, len) in [(0, 1), (3, 4096), ((1 << 20) - 5, 12), (777_777, 1000)] {
        let new = rng.bytes(len);
        mac.replace(offset as u64, &data[offset..offset + len], &new)
            .unwrap();
        data[offset..offset + len].copy_from_slice(&new);
        check(&mut mac, &gmac, &data, &format!("replace at {offset}"));
    }
    let cut = 12_345;
    mac.truncate(cut as u64, &data[cut..]).unwrap();
    data.truncate(cut);
    check(&mut mac, &gmac, &data, "truncated");
    let more = rng.bytes(300_001);
    mac.append(&more).unwrap();
    data.extend_from_slice(&more);
    check(&mut mac, &gmac, &data, "appended");
}

#[test]
fn bad_edits_and_tags_are_refused_precisely() {
    let data = vec![3u8; 40];
    let mut mac = IncrementalGmac::new(&[9; 16], &data).unwrap();
    assert!(matches!(
        mac.replace(0, &data[..3], b"ab"),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        mac.replace(39, &data[..2], b"ab"),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        mac.replace(u64::MAX, b"a", b"b"),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        mac.truncate(10, &data[11..]),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(mac.truncate(41, &[]), Err(Error::Unsupported(_))));
    assert_eq!(mac.len(), 40, "refused edits change nothing");
    let (iv, tag) = mac.tag().unwrap();
    let mut wrong = tag.as_bytes().to_vec();
    wrong[15] ^= 1;
    assert_eq!(mac.verify(&iv, &wrong), Err(Error::AuthenticationFailed));
    assert_eq!(
        mac.verify(&iv, &tag.as_bytes()[..12]),
        Err(Error::TagLengthMismatch {
            bound: 16,
            given: 12
        })
    );
    // A tag for the old data does not verify after an edit.
    mac.replace(5, &data[5..6], b"x").unwrap();
    assert_eq!(
        mac.verify(&iv, tag.as_bytes()),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(
        IncrementalGmac::new(&[0; 15], b"").err(),
        Some(Error::InvalidKeyLength(15))
    );
}

#[test]
fn two_instances_under_one_key_draw_different_iv_prefixes() {
    let key = [4u8; 16];
    let mut a = IncrementalGmac::new(&key, b"same data").unwrap();
    let mut b = IncrementalGmac::new(&key, b"same data").unwrap();
    let (iv_a, _) = a.tag().unwrap();
    let (iv_b, _) = b.tag().unwrap();
    assert_ne!(iv_a[..8], iv_b[..8]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever the edits, and however many tags are taken between them,
    /// no IV is issued twice; the tags stay equal to recomputation.
    #[test]
    fn no_iv_repeats_across_updates(
        seed in any::<u64>(),
        initial in 0usize..200,
        tags_per_step in prop::collection::vec(1usize..4, 1..40),
    ) {
        let mut rng = Rng(seed);
        let key = rng.bytes(16);
        let gmac = Gmac::new(&key).unwrap();
        let mut data = rng.bytes(initial);
        let mut mac = IncrementalGmac::new(&key, &data).unwrap();
        let mut seen = HashSet::new();
        let mut issued = 0u64;
        for &tags in &tags_per_step {
            random_edit(&mut rng, &mut mac, &mut data);
            for _ in 0..tags {
                let (iv, tag) = mac.tag().unwrap();
                issued += 1;
                prop_assert!(seen.insert(iv), "IV {:02x?} issued twice", iv);
                gmac.verify(&iv, &data, tag.as_bytes()).unwrap();
            }
        }
        prop_assert_eq!(mac.tags_remaining(), (1u64 << 32) - issued);
    }
}
