//! GCM over a 64-bit block cipher (GCM spec Appendix A, over TDEA): the
//! committed known answers on every GHASH64 strategy, the strategies
//! against each other, tampering, and the per-key data limit.

mod common;

use aekit::Error;
use aekit::gcm64::{self, DEFAULT_BLOCK_LIMIT, Strategy, TAG_LEN, TdeaGcm};
use common::{Rng, unhex};
use proptest::prelude::*;
use serde_json::Value;

fn kat() -> Value {
    let path = format!(
        "{}/../../vectors/gcm64_tdea_kat.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).expect("vector file is JSON")
}

fn field(v: &Value, name: &str) -> Vec<u8> {
    unhex(v[name].as_str().unwrap_or_else(|| panic!("missing {name}")))
}

#[test]
fn known_answers_on_every_strategy() {
    let v = kat();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 12);
    for strategy in Strategy::ALL {
        for case in cases {
            let id = format!("case {} with {}", case["case"], strategy.name());
            let (key, iv, aad) = (field(case, "key"), field(case, "iv"), field(case, "aad"));
            let (pt, ct, tag) = (
                field(case, "plaintext"),
                field(case, "ciphertext"),
                field(case, "tag"),
            );
            let h = u64::from_be_bytes(field(case, "h").try_into().unwrap());
            let ghash = u64::from_be_bytes(field(case, "ghash").try_into().unwrap());
            assert_eq!(
                gcm64::ghash64(strategy, h, &aad, &ct),
                ghash,
                "{id}: GHASH64"
            );

            let gcm = TdeaGcm::with(&key, strategy).unwrap();
            let mut buf = pt.clone();
            let got = gcm.encrypt_in_place_detached(&iv, &aad, &mut buf).unwrap();
            assert_eq!(buf, ct, "{id}: ciphertext");
            assert_eq!(got.as_slice(), tag.as_slice(), "{id}: tag");
            gcm.decrypt_in_place_detached(&iv, &aad, &mut buf, &tag)
                .unwrap();
            assert_eq!(buf, pt, "{id}: decryption");
        }
    }
}

#[test]
fn the_first_case_has_des_known_h() {
    // TDEA with K1 = K2 = K3 = 0 is single DES under the zero key, whose
    // encryption of the zero block is the classic 8ca64de9c1b123a7.
    let v = kat();
    assert_eq!(field(&v["cases"][0], "h"), unhex("8ca64de9c1b123a7"));
}

#[test]
fn every_flipped_bit_is_rejected_and_wipes() {
    let mut rng = Rng(64);
    for strategy in Strategy::ALL {
        let gcm = TdeaGcm::with(&rng.bytes(24), strategy).unwrap();
        for (iv_len, aad_len, len) in [(4, 0, 1), (4, 9, 23), (12, 3, 16), (1, 0, 8)] {
            let (iv, aad, pt) = (rng.bytes(iv_len), rng.bytes(aad_len), rng.bytes(len));
            let mut ct = pt.clone();
            let tag = gcm.encrypt_in_place_detached(&iv, &aad, &mut ct).unwrap();
            let parts = [iv.clone(), aad.clone(), ct.clone(), tag.to_vec()];
            for (which, part) in parts.iter().enumerate() {
                for bit in 0..part.len() * 8 {
                    let mut inputs = parts.clone();
                    inputs[which][bit / 8] ^= 1 << (bit % 8);
                    let [iv, aad, mut buf, tag] = inputs;
                    let r = gcm.decrypt_in_place_detached(&iv, &aad, &mut buf, &tag);
                    assert_eq!(
                        r,
                        Err(Error::AuthenticationFailed),
                        "part {which} bit {bit}"
                    );
                    assert!(buf.iter().all(|&b| b == 0), "output not wiped");
                }
            }
            let mut buf = ct.clone();
            gcm.decrypt_in_place_detached(&iv, &aad, &mut buf, &tag)
                .unwrap();
            assert_eq!(buf, pt);
        }
    }
}

#[test]
fn precise_errors_for_bad_input() {
    for n in [0, 8, 16, 23, 25, 32] {
        assert_eq!(
            TdeaGcm::new(&vec![0; n]).err(),
            Some(Error::InvalidKeyLength(n))
        );
    }
    let gcm = TdeaGcm::new(&[1; 24]).unwrap();
    let mut buf = [5u8; 10];
    assert_eq!(
        gcm.encrypt_in_place_detached(&[], b"", &mut buf),
        Err(Error::EmptyIv)
    );
    for bad in [0, 4, 7, 9, 12, 16] {
        assert_eq!(
            gcm.decrypt_in_place_detached(&[0; 4], b"", &mut buf, &vec![0; bad]),
            Err(Error::InvalidTagLength(bad))
        );
    }
    assert_eq!(buf, [5; 10], "a refused call touches nothing");
    assert_eq!(
        gcm.decrypt(&[0; 4], b"", &[0; TAG_LEN - 1]),
        Err(Error::AuthenticationFailed)
    );
    let sealed = gcm.encrypt(&[0; 4], b"a", b"message").unwrap();
    assert_eq!(sealed.len(), 7 + TAG_LEN);
    assert_eq!(gcm.decrypt(&[0; 4], b"a", &sealed).unwrap(), b"message");
}

/// Every call reserves 1 + ⌈n/8⌉ blocks; one that does not fit is refused
/// with the precise error, touches nothing, and reserves nothing.
#[test]
fn the_data_limit_is_counted_exactly_and_refuses_before_computing() {
    let gcm = TdeaGcm::new(&[2; 24])
        .unwrap()
        .with_block_limit(40)
        .unwrap();
    assert_eq!(gcm.blocks_remaining(), 39, "H = E(K, 0) is the first block");
    let mut buf = vec![7u8; 17]; // 1 + 3 blocks
    let tag = gcm
        .encrypt_in_place_detached(&[0; 4], b"", &mut buf)
        .unwrap();
    assert_eq!(gcm.blocks_remaining(), 35);
    gcm.decrypt_in_place_detached(&[0; 4], b"", &mut buf, &tag)
        .unwrap();
    assert_eq!(gcm.blocks_remaining(), 31, "decryption counts too");
    let mut big = vec![9u8; 8 * 31]; // 32 blocks > 31
    let refused = gcm.encrypt_in_place_detached(&[1; 4], b"", &mut big);
    assert_eq!(refused, Err(Error::KeyDataLimit { limit_blocks: 40 }));
    assert!(big.iter().all(|&b| b == 9), "nothing computed");
    assert_eq!(gcm.blocks_remaining(), 31, "nothing reserved");
    big.truncate(8 * 30); // 31 blocks: exactly what is left
    gcm.encrypt_in_place_detached(&[1; 4], b"", &mut big)
        .unwrap();
    assert_eq!(gcm.blocks_remaining(), 0);
    assert_eq!(
        gcm.encrypt(&[2; 4], b"even an empty message costs E(K, Y_0)", b""),
        Err(Error::KeyDataLimit { limit_blocks: 40 })
    );
    assert!(matches!(
        TdeaGcm::new(&[2; 24])
            .unwrap()
            .with_block_limit(DEFAULT_BLOCK_LIMIT + 1),
        Err(Error::Unsupported(_))
    ));
}

/// The default limit, 2^20 blocks, in one 8 MiB message.
#[test]
fn the_default_limit_is_2_pow_20_blocks() {
    let gcm = TdeaGcm::new(&[3; 24]).unwrap();
    assert_eq!(gcm.blocks_remaining(), (1 << 20) - 1);
    let mut buf = vec![0u8; 8 * ((1 << 20) - 2)];
    gcm.encrypt_in_place_detached(&[0; 4], b"", &mut buf)
        .unwrap();
    assert_eq!(gcm.blocks_remaining(), 0);
    assert_eq!(
        gcm.encrypt_in_place_detached(&[1; 4], b"", &mut []),
        Err(Error::KeyDataLimit {
            limit_blocks: 1 << 20
        })
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The two multiplications agree on random elements.
    #[test]
    fn bitserial_and_ctmul_multiply_alike(x in any::<u64>(), h in any::<u64>()) {
        prop_assert_eq!(gcm64::ctmul::mul(x, h), gcm64::bitserial::mul(x, h));
    }

    /// The two GHASH64 strategies agree on random H, AAD and ciphertext,
    /// and the whole mode agrees and round-trips on both.
    #[test]
    fn the_strategies_agree_on_random_inputs(
        h in any::<u64>(),
        key in prop::collection::vec(any::<u8>(), 24),
        iv in prop::collection::vec(any::<u8>(), 1..=24),
        aad in prop::collection::vec(any::<u8>(), 0..=80),
        pt in prop::collection::vec(any::<u8>(), 0..=120),
    ) {
        prop_assert_eq!(
            gcm64::ghash64(Strategy::Ctmul, h, &aad, &pt),
            gcm64::ghash64(Strategy::BitSerial, h, &aad, &pt)
        );
        let sealed: Vec<Vec<u8>> = Strategy::ALL
            .iter()
            .map(|&s| TdeaGcm::with(&key, s).unwrap().encrypt(&iv, &aad, &pt).unwrap())
            .collect();
        prop_assert_eq!(&sealed[0], &sealed[1]);
        let opened = TdeaGcm::new(&key).unwrap().decrypt(&iv, &aad, &sealed[0]).unwrap();
        prop_assert_eq!(opened, pt);
    }
}

/// E(K, x) by the `des` crate directly, outside aekit's mode.
fn tdea(key: &[u8], x: u64) -> u64 {
    use des::cipher::{Array, BlockCipherEncrypt, KeyInit};
    let cipher = des::TdesEde3::new_from_slice(key).unwrap();
    let mut block = Array::from(x.to_be_bytes());
    cipher.encrypt_block(&mut block);
    u64::from_be_bytes(block.into())
}

/// The appendix's printed layout, Y_0 = 0^31 1 ‖ IV: checked against TDEA
/// computed directly (the tag of an empty message with no associated data
/// is E(K, Y_0), its GHASH64 being 0), and its hazard shown: the keystream
/// of the message under IV v is the tag mask of the message under v+1 and
/// runs through the keystream of v+1's message, which the default layout
/// never does.
#[test]
fn printed_appendix_layout_and_its_overlap_hazard() {
    use aekit::gcm64::IvLayout;
    let key: Vec<u8> = (0u8..24).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
    let printed = TdeaGcm::new(&key)
        .unwrap()
        .with_printed_appendix_iv_layout();
    let default = TdeaGcm::new(&key).unwrap();
    assert_eq!(printed.iv_layout(), IvLayout::PrintedAppendix);
    assert_eq!(default.iv_layout(), IvLayout::IvThenCounter);
    let v = 0x0102_0304u32;
    let tag_of_nothing = |gcm: &TdeaGcm, iv: u32| {
        let tag = gcm.encrypt(&iv.to_be_bytes(), b"", b"").unwrap();
        u64::from_be_bytes(tag.try_into().unwrap())
    };
    assert_eq!(
        tag_of_nothing(&printed, v),
        tdea(&key, 1 << 32 | u64::from(v))
    );
    assert_eq!(
        tag_of_nothing(&default, v),
        tdea(&key, u64::from(v) << 32 | 1)
    );
    // Both directions agree under the printed layout.
    let sealed = printed
        .encrypt(&v.to_be_bytes(), b"ad", b"legacy peer")
        .unwrap();
    assert_eq!(
        printed.decrypt(&v.to_be_bytes(), b"ad", &sealed).unwrap(),
        b"legacy peer"
    );
    assert!(default.decrypt(&v.to_be_bytes(), b"ad", &sealed).is_err());
    // The hazard: 16 zero bytes under v are E(K, Y_1) ‖ E(K, Y_2).
    let zeros = |gcm: &TdeaGcm, iv: u32| gcm.encrypt(&iv.to_be_bytes(), b"", &[0; 16]).unwrap();
    let under_v = zeros(&printed, v);
    let under_next = zeros(&printed, v + 1);
    assert_eq!(
        u64::from_be_bytes(under_v[..8].try_into().unwrap()),
        tag_of_nothing(&printed, v + 1),
        "the keystream under v is the tag mask under v+1"
    );
    assert_eq!(under_v[8..16], under_next[..8], "the keystreams overlap");
    let under_v = zeros(&default, v);
    let under_next = zeros(&default, v + 1);
    assert_ne!(
        u64::from_be_bytes(under_v[..8].try_into().unwrap()),
        tag_of_nothing(&default, v + 1)
    );
    assert_ne!(under_v[8..16], under_next[..8]);
}
