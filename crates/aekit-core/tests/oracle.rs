//! aekit-core against aekit: every configuration (AES-128/192/256 ×
//! plain/rd0/rd1/rd1+/rd2/rd2+ × shoup4/karatsuba) on the GCM spec's test
//! cases 1–18, Wycheproof's AES-GCM file, and random messages checked
//! against aekit's plain pair (`table`, `bitserial`) at every length
//! 0–1100, associated data 0–64 bytes and odd IV lengths, in place, with
//! every tag length, and with wrong tags that must wipe the buffer.

use aekit::aes::Strategy as OracleAes;
use aekit::ghash::Strategy as OracleGhash;
use aekit_core::aes::{Block, Fixslice};
use aekit_core::ctr::face::{Rd0, Rd1, Rd1Plus, Rd2, Rd2Plus};
use aekit_core::ctr::{Mode, Plain, apply_keystream};
use aekit_core::gcm::TAG_LENGTHS;
use aekit_core::ghash::{GhashKey, Karatsuba, Shoup4};
use aekit_core::{AesGcm, Error};
use serde_json::Value;
use zeroize::Zeroize;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

fn vectors(name: &str) -> Value {
    let path = format!("{}/../../vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).expect("vector file is JSON")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn field(v: &Value, name: &str) -> Vec<u8> {
    unhex(v[name].as_str().unwrap_or_else(|| panic!("missing {name}")))
}

/// The plain pair of aekit every configuration is checked against.
fn oracle(key: &[u8]) -> aekit::AesGcm {
    aekit::AesGcm::with(key, OracleAes::Table, OracleGhash::BitSerial)
        .unwrap()
        .with_relaxed_tag_rules()
}

/// One configuration of the core, type-erased for the tests.
trait Config {
    fn name(&self) -> String;
    fn seal(&self, key: &[u8], iv: &[u8], aad: &[u8], buf: &mut [u8], tag_len: usize) -> Vec<u8>;
    fn open(
        &self,
        key: &[u8],
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error>;
    fn spec_rules(&self, key: &[u8], iv: &[u8], tag_len: usize) -> Result<(), Error>;
}

struct Pair<G, C>(core::marker::PhantomData<(G, C)>);

impl<G: GhashKey + Zeroize, C: Mode> Config for Pair<G, C> {
    fn name(&self) -> String {
        format!("fixslice+{}+{}", G::NAME, C::NAME)
    }
    fn seal(&self, key: &[u8], iv: &[u8], aad: &[u8], buf: &mut [u8], tag_len: usize) -> Vec<u8> {
        let gcm = AesGcm::<G, C>::new(key).unwrap().with_relaxed_tag_rules();
        let tag = gcm
            .encrypt_in_place_detached(iv, aad, buf, tag_len)
            .unwrap();
        tag.as_bytes().to_vec()
    }
    fn open(
        &self,
        key: &[u8],
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        let gcm = AesGcm::<G, C>::new(key)?.with_relaxed_tag_rules();
        gcm.decrypt_in_place_detached(iv, aad, buf, tag)
    }
    fn spec_rules(&self, key: &[u8], iv: &[u8], tag_len: usize) -> Result<(), Error> {
        let gcm = AesGcm::<G, C>::new(key).unwrap();
        gcm.encrypt_in_place_detached(iv, b"", &mut [0u8; 3], tag_len)
            .map(|_| ())
    }
}

fn pair<G: GhashKey + Zeroize + 'static, C: Mode + 'static>() -> Box<dyn Config> {
    Box::new(Pair::<G, C>(core::marker::PhantomData))
}

/// Every configuration: two GHASH strategies × six counter modes.
fn configs() -> Vec<Box<dyn Config>> {
    vec![
        pair::<Karatsuba, Plain>(),
        pair::<Karatsuba, Rd0>(),
        pair::<Karatsuba, Rd1>(),
        pair::<Karatsuba, Rd1Plus>(),
        pair::<Karatsuba, Rd2>(),
        pair::<Karatsuba, Rd2Plus>(),
        pair::<Shoup4, Plain>(),
        pair::<Shoup4, Rd0>(),
        pair::<Shoup4, Rd1>(),
        pair::<Shoup4, Rd1Plus>(),
        pair::<Shoup4, Rd2>(),
        pair::<Shoup4, Rd2Plus>(),
    ]
}

#[test]
fn spec_appendix_b_test_cases_1_to_18_every_config() {
    let v = vectors("gcm_spec_appendix_b.json");
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 18);
    for config in configs() {
        for case in cases {
            let (key, iv, aad) = (field(case, "key"), field(case, "iv"), field(case, "aad"));
            let (pt, ct, tag) = (
                field(case, "plaintext"),
                field(case, "ciphertext"),
                field(case, "tag"),
            );
            let id = format!("case {} with {}", case["case"], config.name());
            for tag_len in TAG_LENGTHS {
                let mut buf = pt.clone();
                let got = config.seal(&key, &iv, &aad, &mut buf, tag_len);
                assert_eq!(buf, ct, "{id}: ciphertext");
                assert_eq!(got, tag[..tag_len], "{id}: tag of {tag_len}");
                config
                    .open(&key, &iv, &aad, &mut buf, &tag[..tag_len])
                    .unwrap();
                assert_eq!(buf, pt, "{id}: decryption");
            }
        }
    }
}

#[test]
fn wycheproof_aes_gcm_every_config() {
    let v = vectors("aes_gcm_test.json");
    let mut checked = 0;
    for config in configs() {
        for group in v["testGroups"].as_array().unwrap() {
            let tag_len = group["tagSize"].as_u64().unwrap() as usize / 8;
            for t in group["tests"].as_array().unwrap() {
                let id = format!("tcId {} with {}", t["tcId"], config.name());
                let (key, iv, aad) = (field(t, "key"), field(t, "iv"), field(t, "aad"));
                let (msg, ct, tag) = (field(t, "msg"), field(t, "ct"), field(t, "tag"));
                if ![16, 24, 32].contains(&key.len()) {
                    let err = config.open(&key, &iv, &aad, &mut ct.clone(), &tag);
                    assert_eq!(err, Err(Error::InvalidKeyLength(key.len())), "{id}");
                    continue;
                }
                let mut buf = ct.clone();
                let opened = config.open(&key, &iv, &aad, &mut buf, &tag);
                match t["result"].as_str().unwrap() {
                    "valid" | "acceptable" => {
                        opened.unwrap_or_else(|e| panic!("{id}: {e}"));
                        assert_eq!(buf, msg, "{id}: plaintext");
                        let mut sealed = msg.clone();
                        let got = config.seal(&key, &iv, &aad, &mut sealed, tag_len);
                        assert_eq!((sealed, got), (ct, tag), "{id}: ciphertext and tag");
                    }
                    _ => {
                        let err = opened.expect_err(&id);
                        let want = if iv.is_empty() {
                            Error::EmptyIv
                        } else {
                            Error::AuthenticationFailed
                        };
                        assert_eq!(err, want, "{id}");
                        if err == Error::AuthenticationFailed {
                            assert!(buf.iter().all(|&b| b == 0), "{id}: output not wiped");
                        }
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 12 * 200, "only {checked} Wycheproof checks ran");
}

/// Random messages at every length 0..=1100 against aekit, for every
/// configuration and key size; the oracle's output is computed once per
/// message and every configuration must match it.
#[test]
fn every_config_matches_aekit_at_every_length() {
    let configs = configs();
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let iv_lengths = [12, 12, 12, 1, 7, 13, 16, 60];
    let mut checks = 0usize;
    for key_len in [16, 24, 32] {
        for len in 0..=1100 {
            let key = rng.bytes(key_len);
            let iv = rng.bytes(iv_lengths[len % iv_lengths.len()]);
            let aad_len = rng.below(65);
            let aad = rng.bytes(aad_len);
            let pt = rng.bytes(len);
            let tag_len = TAG_LENGTHS[rng.below(TAG_LENGTHS.len())];
            let mut want = pt.clone();
            let want_tag = oracle(&key)
                .encrypt_in_place_detached(&iv, &aad, &mut want, tag_len)
                .unwrap();
            for config in &configs {
                let id = format!(
                    "{} AES-{} len {len} iv {}",
                    config.name(),
                    key_len * 8,
                    iv.len()
                );
                let mut buf = pt.clone();
                let tag = config.seal(&key, &iv, &aad, &mut buf, tag_len);
                assert!(buf == want, "{id}: ciphertext");
                assert_eq!(tag, want_tag.as_bytes(), "{id}: tag");
                config.open(&key, &iv, &aad, &mut buf, &tag).unwrap();
                assert!(buf == pt, "{id}: round trip");
                checks += 1;
            }
        }
    }
    assert_eq!(checks, 3 * 1101 * 12);
}

/// Every kind of tampering fails and wipes the buffer; the untampered
/// message opens. Tags of every length, IVs of 12 and other lengths.
#[test]
fn tampering_fails_and_wipes() {
    let mut rng = Rng(42);
    for config in configs() {
        for (i, tag_len) in TAG_LENGTHS.into_iter().enumerate() {
            let key = rng.bytes([16, 24, 32][i % 3]);
            let iv = rng.bytes([12, 8, 20][i % 3]);
            let aad = rng.bytes(i * 3);
            let pt = rng.bytes(1 + 37 * i);
            let mut ct = pt.clone();
            let tag = config.seal(&key, &iv, &aad, &mut ct, tag_len);
            let id = format!("{} tag {tag_len}", config.name());
            let wrong = |what: &str, key: &[u8], iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8]| {
                let mut buf = ct.to_vec();
                let err = config.open(key, iv, aad, &mut buf, tag);
                assert_eq!(err, Err(Error::AuthenticationFailed), "{id}: {what}");
                assert!(buf.iter().all(|&b| b == 0), "{id}: {what}: not wiped");
            };
            let mut bad_tag = tag.clone();
            bad_tag[rng.below(tag_len)] ^= 1 << rng.below(8);
            wrong("tag", &key, &iv, &aad, &ct, &bad_tag);
            let mut bad_ct = ct.clone();
            bad_ct[rng.below(ct.len())] ^= 0x80;
            wrong("ciphertext", &key, &iv, &aad, &bad_ct, &tag);
            let mut bad_iv = iv.clone();
            bad_iv[0] ^= 2;
            wrong("iv", &key, &bad_iv, &aad, &ct, &tag);
            wrong(
                "aad",
                &key,
                &iv,
                &[aad.as_slice(), b"x"].concat(),
                &ct,
                &tag,
            );
            let mut bad_key = key.clone();
            bad_key[3] ^= 8;
            wrong("key", &bad_key, &iv, &aad, &ct, &tag);
            if tag_len > 8 {
                // A prefix of the tag is the tag of that length (MSB_t):
                // it opens, which is why the spec binds a key to one length.
                let mut buf = ct.clone();
                config
                    .open(&key, &iv, &aad, &mut buf, &tag[..tag_len - 1])
                    .unwrap();
                assert_eq!(buf, pt, "{id}: truncated to {}", tag_len - 1);
            }
            let mut buf = ct.clone();
            config.open(&key, &iv, &aad, &mut buf, &tag).unwrap();
            assert_eq!(buf, pt, "{id}: opens");
        }
    }
}

/// The default (spec) tag rules give aekit's verdicts, variant for
/// variant, for every length 0..=20 with 12-byte and other IVs.
#[test]
fn spec_tag_rules_match_aekit() {
    let key = [7u8; 16];
    for config in configs() {
        for iv_len in [1, 8, 12, 16] {
            let iv = vec![1u8; iv_len];
            for tag_len in 0..=20 {
                let got = config.spec_rules(&key, &iv, tag_len);
                let want = aekit::AesGcm::with(&key, OracleAes::Table, OracleGhash::BitSerial)
                    .unwrap()
                    .encrypt_in_place_detached(&iv, b"", &mut [0u8; 3], tag_len)
                    .map(|_| ());
                assert_eq!(
                    format!("{got:?}"),
                    format!("{want:?}"),
                    "iv {iv_len} tag {tag_len}"
                );
            }
        }
        let empty = config.spec_rules(&key, b"", 16);
        assert_eq!(empty, Err(Error::EmptyIv), "{}", config.name());
    }
}

/// FACE's keystream equals plain counter mode's from arbitrary counters:
/// across the resets when bytes 12..14 change, the 32-bit wrap, odd
/// starting low bytes, and messages ending anywhere in a group.
#[test]
fn face_matches_plain_counter_mode_from_any_counter() {
    fn check<C: Mode>(aes: &Fixslice, counter: Block, len: usize) {
        let data: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
        let (mut c1, mut d1) = (counter, data.clone());
        let (mut c2, mut d2) = (counter, data);
        apply_keystream(aes, &mut c1, &mut d1);
        C::apply(aes, &mut c2, &mut d2);
        let id = format!("{} from {:02x?} len {len}", C::NAME, &counter[12..]);
        assert!(d1 == d2, "{id}: keystream");
        assert_eq!(c1, c2, "{id}: counter");
    }
    for key in [[7u8; 16].as_slice(), &[9; 24], &[11; 32]] {
        let aes = Fixslice::new(key).unwrap();
        for start in [0xffff_fefdu32, 0xffff_ffff, 0x0000_00fe, 3, 0x1234_56f0, 0] {
            for len in [0, 1, 16, 17, 31, 32, 33, 16 * 600 + 5, 16 * 257] {
                let mut counter = [0x3cu8; 16];
                counter[12..].copy_from_slice(&start.to_be_bytes());
                check::<Rd0>(&aes, counter, len);
                check::<Rd1>(&aes, counter, len);
                check::<Rd1Plus>(&aes, counter, len);
                check::<Rd2>(&aes, counter, len);
                check::<Rd2Plus>(&aes, counter, len);
            }
        }
    }
}

/// The core's plain counter mode and block cipher equal aekit's `table`
/// AES on random keys, blocks and counters.
#[test]
fn aes_and_counter_mode_match_aekit() {
    let mut rng = Rng(7);
    for key_len in [16, 24, 32] {
        for n in 0..40 {
            let key = rng.bytes(key_len);
            let ours = Fixslice::new(&key).unwrap();
            let theirs = aekit::aes::Cipher::new(OracleAes::Table, &key).unwrap();
            let mut blocks: Vec<Block> =
                (0..n).map(|_| rng.bytes(16).try_into().unwrap()).collect();
            let mut want = blocks.clone();
            ours.encrypt_blocks(&mut blocks);
            theirs.encrypt_blocks(&mut want);
            assert_eq!(blocks, want, "AES-{} {n} blocks", key_len * 8);
            let counter: Block = rng.bytes(16).try_into().unwrap();
            let data = rng.bytes(n * 13);
            let (mut c1, mut d1) = (counter, data.clone());
            let (mut c2, mut d2) = (counter, data);
            apply_keystream(&ours, &mut c1, &mut d1);
            theirs.ctr32(&mut c2, &mut d2);
            assert_eq!((c1, d1), (c2, d2), "ctr32 AES-{} {n}", key_len * 8);
        }
    }
    assert_eq!(
        Fixslice::new(&[0; 17]).err(),
        Some(Error::InvalidKeyLength(17))
    );
}

/// RustCrypto's `aead` traits: the same bytes as aekit's `Aes128Gcm` /
/// `Aes256Gcm`, in place, and a wrong tag refused.
#[test]
fn aead_traits_match_aekit() {
    use aead::{AeadInOut, KeyInit};
    let mut rng = Rng(99);
    for len in [0usize, 1, 15, 16, 17, 100, 1000] {
        let key = rng.bytes(16);
        let nonce = rng.bytes(12);
        let aad = rng.bytes(len % 40);
        let pt = rng.bytes(len);
        let ours = aekit_core::Aes128Gcm::new_from_slice(&key).unwrap();
        let theirs = aekit::Aes128Gcm::new_from_slice(&key).unwrap();
        let (mut a, mut b) = (pt.clone(), pt.clone());
        let n = nonce.as_slice().try_into().unwrap();
        let ta = ours
            .encrypt_inout_detached(n, &aad, a.as_mut_slice().into())
            .unwrap();
        let tb = theirs
            .encrypt_inout_detached(n, &aad, b.as_mut_slice().into())
            .unwrap();
        assert_eq!((&a, ta.as_slice()), (&b, tb.as_slice()), "len {len}");
        let mut bad = ta;
        bad[0] ^= 1;
        assert!(
            ours.decrypt_inout_detached(n, &aad, a.clone().as_mut_slice().into(), &bad)
                .is_err()
        );
        ours.decrypt_inout_detached(n, &aad, a.as_mut_slice().into(), &ta)
            .unwrap();
        assert_eq!(a, pt);

        let key = rng.bytes(32);
        let ours = aekit_core::Aes256Gcm::new_from_slice(&key).unwrap();
        let theirs = aekit::Aes256Gcm::new_from_slice(&key).unwrap();
        let (mut a, mut b) = (pt.clone(), pt.clone());
        let ta = ours
            .encrypt_inout_detached(n, &aad, a.as_mut_slice().into())
            .unwrap();
        let tb = theirs
            .encrypt_inout_detached(n, &aad, b.as_mut_slice().into())
            .unwrap();
        assert_eq!(
            (&a, ta.as_slice()),
            (&b, tb.as_slice()),
            "AES-256 len {len}"
        );
    }
}
