//! Fixed parts of the IV processed in advance ([`aekit::IvPrefix`], spec
//! §6, Table 2): for every implementation, every split of random IVs into
//! prefix and rest equals a fresh computation over the whole IV, one-shot
//! and on-line, both directions; the tag rules see the whole IV.

mod common;

use aekit::{AesGcm, Error};
use common::{Rng, implementations};

/// IV lengths around the 12-byte form and GHASH's block boundaries.
const IV_LENGTHS: [usize; 12] = [1, 8, 11, 12, 13, 15, 16, 17, 31, 32, 33, 60];

#[test]
fn every_split_equals_the_whole_iv() {
    let mut rng = Rng(0x1f_9e_ed);
    let mut checked = 0;
    for imp in implementations() {
        let key_len = [16, 24, 32][rng.below(3)];
        let key = rng.bytes(key_len);
        let gcm = imp.build(&key).unwrap();
        for iv_len in IV_LENGTHS {
            let iv = rng.bytes(iv_len);
            let (aad_len, msg_len) = (rng.below(40), rng.below(100));
            let aad = rng.bytes(aad_len);
            let msg = rng.bytes(msg_len);
            let mut expected = msg.clone();
            let tag = gcm
                .encrypt_in_place_detached(&iv, &aad, &mut expected, 16)
                .unwrap();
            for split in 0..=iv_len {
                let id = format!("{imp}: IV {iv_len} B split at {split}");
                let prefix = gcm.iv_prefix(&iv[..split]).unwrap();
                assert_eq!(prefix.len(), split as u64, "{id}");
                let rest = &iv[split..];
                let mut buf = msg.clone();
                let got = prefix
                    .encrypt_in_place_detached(rest, &aad, &mut buf, 16)
                    .unwrap();
                assert_eq!(buf, expected, "{id}: ciphertext");
                assert_eq!(got.as_bytes(), tag.as_bytes(), "{id}: tag");
                prefix
                    .decrypt_in_place_detached(rest, &aad, &mut buf, tag.as_bytes())
                    .unwrap();
                assert_eq!(buf, msg, "{id}: decryption");
                // On-line, in two pieces.
                let mut buf = msg.clone();
                let half = buf.len() / 2;
                let mut enc = prefix.encryptor(rest).unwrap();
                enc.update_aad(&aad).unwrap();
                enc.update(&mut buf[..half]).unwrap();
                enc.update(&mut buf[half..]).unwrap();
                assert_eq!(enc.finish(16).unwrap().as_bytes(), tag.as_bytes(), "{id}");
                assert_eq!(buf, expected, "{id}: on-line ciphertext");
                let mut dec = prefix.decryptor(rest).unwrap();
                dec.update_aad(&aad).unwrap();
                dec.update(&mut buf).unwrap();
                dec.finish(tag.as_bytes()).unwrap();
                assert_eq!(buf, msg, "{id}: on-line decryption");
                // A wrong tag wipes the buffer, as the one-shot call does.
                let mut buf = expected.clone();
                let mut bad = tag.as_bytes().to_vec();
                bad[0] ^= 1;
                assert_eq!(
                    prefix.decrypt_in_place_detached(rest, &aad, &mut buf, &bad),
                    Err(Error::AuthenticationFailed),
                    "{id}"
                );
                assert!(buf.iter().all(|&b| b == 0), "{id}: wiped");
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

/// A prefix is reused: many messages under one prefix each equal their
/// fresh computation, and the prefix is unchanged by them.
#[test]
fn one_prefix_many_messages() {
    let mut rng = Rng(7);
    let gcm = AesGcm::new(&[9u8; 32]).unwrap();
    let fixed = rng.bytes(37);
    let prefix = gcm.iv_prefix(&fixed).unwrap();
    for n in 0u64..50 {
        let rest = n.to_be_bytes();
        let iv = [&fixed[..], &rest].concat();
        let len = rng.below(300);
        let msg = rng.bytes(len);
        let sealed = gcm.encrypt(&iv, b"ad", &msg, 16).unwrap();
        let mut buf = msg.clone();
        let tag = prefix
            .encrypt_in_place_detached(&rest, b"ad", &mut buf, 16)
            .unwrap();
        assert_eq!(
            [buf, tag.as_bytes().to_vec()].concat(),
            sealed,
            "message {n}"
        );
    }
}

/// The tag rules see the whole IV: a short tag is refused when prefix ‖
/// rest is not 12 bytes and allowed when it is; an empty IV and a bound
/// tag length are refused as in the one-shot API.
#[test]
fn tag_rules_see_the_whole_iv() {
    let gcm = AesGcm::new(&[2u8; 16]).unwrap();
    let prefix = gcm.iv_prefix(&[1; 8]).unwrap();
    let mut buf = [0u8; 5];
    assert_eq!(
        prefix
            .encrypt_in_place_detached(&[2; 8], b"", &mut buf, 12)
            .map(drop),
        Err(Error::TagMustBe128Bits {
            iv_len: 16,
            tag_len: 12
        })
    );
    assert_eq!(buf, [0; 5], "refused before computing");
    let short = prefix
        .encrypt_in_place_detached(&[2; 4], b"", &mut buf, 12)
        .unwrap();
    let full = gcm
        .encrypt_in_place_detached(&[[1u8; 8], [2; 8]].concat()[..12], b"", &mut [0; 5], 16)
        .unwrap();
    assert_eq!(short.as_bytes(), &full.as_bytes()[..12]);
    let empty = gcm.iv_prefix(b"").unwrap();
    assert!(empty.is_empty());
    assert!(matches!(empty.encryptor(b""), Err(Error::EmptyIv)));
    assert_eq!(
        empty
            .encrypt_in_place_detached(b"", b"", &mut buf, 16)
            .map(drop),
        Err(Error::EmptyIv)
    );
    let bound = AesGcm::new(&[2u8; 16])
        .unwrap()
        .with_tag_length(16)
        .unwrap();
    assert_eq!(
        bound
            .iv_prefix(&[1; 20])
            .unwrap()
            .decrypt_in_place_detached(&[0; 4], b"", &mut buf, &[0; 8]),
        Err(Error::TagLengthMismatch {
            bound: 16,
            given: 8
        })
    );
}
