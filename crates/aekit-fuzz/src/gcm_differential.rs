//! Target `gcm_differential`: every way aekit computes AES-GCM must give
//! the same bytes.
//!
//! One input is a key of any length (16, 24 and 32 bytes are the valid
//! ones), an IV of 0 to 300 bytes, associated data, a message, a tag length
//! (valid or not), the implementations to check, and split points. The
//! implementations are those this CPU runs ([`Implementation::all`]):
//! every (AES, GHASH) strategy pair, every FACE counter-mode variant,
//! every fused kernel, every class [`AesGcm::with_class`] chooses among.
//! The fuzzer checks two of them per input, which the input picks (so
//! coverage leads it to every one; all of them per input would cost 40
//! times as much per execution); the corpus replay checks all of them on
//! every input ([`run_all`]). For each, against the oracle pair (`table`
//! AES, `bitserial` GHASH, Algorithm 1 of the spec), the target checks:
//!
//! - the one-shot encryption, ciphertext and tag byte for byte, or the very
//!   same error;
//! - the on-line encryptor fed the associated data and the message in the
//!   pieces the split points cut, which must equal the one-shot result;
//! - decryption of the result, one-shot and on-line, which must give the
//!   message back, and decryption with one tag bit flipped, which must fail
//!   and leave only zeros in the buffer;
//! - the out-of-place calls (`encrypt_detached_into`,
//!   `decrypt_detached_into`), which must equal the one-shot result;
//! - for the classes, the many-core API on a two-thread pool that splits
//!   every message of two blocks or more, and the batch API on four
//!   messages (the input's and three prefixes of it one to three bytes
//!   shorter, mostly of one shape: `vaes-avx512`'s multi-buffer path takes
//!   them as a group), each against the oracle, then decrypted with one
//!   tag forged, which alone must fail and be wiped.
//!
//! Any disagreement or panic is a finding.

use std::sync::{Arc, OnceLock};

use aekit::gcm::{BatchMessage, Class, Fused, Pool};
use aekit::{AesGcm, Error, Tag, aes, ctr::face, ghash};

use crate::input::Input;

/// Longest key read: longer than any valid one, so wrong lengths occur.
const MAX_KEY: usize = 40;
/// Longest IV read.
pub const MAX_IV: usize = 300;
const MAX_AAD: usize = 1024;
const MAX_MESSAGE: usize = 2048;
/// Most pieces an on-line call is cut into.
const MAX_PIECES: usize = 64;

/// One way aekit can compute AES-GCM.
#[derive(Clone, Copy, Debug)]
pub enum Implementation {
    /// A pair of separate strategies ([`AesGcm::with`]).
    Pair(aes::Strategy, ghash::Strategy),
    /// A pair whose counter mode is a FACE variant ([`AesGcm::with_face`]).
    Face(aes::Strategy, ghash::Strategy, face::Variant),
    /// A fused kernel ([`AesGcm::fused`]).
    Fused(Fused),
    /// A class as [`AesGcm::with_class`] builds it.
    Class(Class),
}

impl Implementation {
    /// Every implementation this CPU runs, from the registries.
    pub fn all() -> &'static [Implementation] {
        static ALL: OnceLock<Vec<Implementation>> = OnceLock::new();
        ALL.get_or_init(|| {
            let aes: Vec<_> = aes::Strategy::ALL
                .into_iter()
                .filter(|s| s.is_available())
                .collect();
            let mut all = Vec::new();
            for &a in &aes {
                for g in ghash::Strategy::ALL
                    .into_iter()
                    .filter(|s| s.is_available())
                {
                    all.push(Implementation::Pair(a, g));
                }
            }
            for &a in aes.iter().filter(|&&a| face::supports(a)) {
                for v in face::Variant::ALL {
                    all.push(Implementation::Face(a, ghash::Strategy::Karatsuba, v));
                }
            }
            all.extend(
                Fused::ALL
                    .into_iter()
                    .filter(|f| f.is_available())
                    .map(Implementation::Fused),
            );
            all.extend(
                Class::ALL
                    .into_iter()
                    .filter(|c| c.is_available())
                    .map(Implementation::Class),
            );
            all
        })
    }

    /// The implementation keyed with `key`.
    pub fn build(self, key: &[u8]) -> Result<AesGcm, Error> {
        match self {
            Implementation::Pair(a, g) => AesGcm::with(key, a, g),
            Implementation::Face(a, g, v) => AesGcm::with_face(key, a, g, v),
            Implementation::Fused(f) => AesGcm::fused(key, f),
            Implementation::Class(c) => AesGcm::with_class(key, c),
        }
    }
}

/// A two-thread pool that splits every message it is allowed to.
fn pool() -> Arc<Pool> {
    static POOL: OnceLock<Arc<Pool>> = OnceLock::new();
    let pool =
        POOL.get_or_init(|| Arc::new(Pool::new(2).expect("a two-thread pool").with_threshold(0)));
    Arc::clone(pool)
}

/// Runs the target on one input: the two implementations it picks.
pub fn run(data: &[u8]) {
    check(data, |all, picks| {
        picks
            .iter()
            .map(|&p| all[usize::from(p) % all.len()])
            .collect()
    });
}

/// Runs the target on one input with every implementation (the replay).
pub fn run_all(data: &[u8]) {
    check(data, |all, _| all.to_vec());
}

/// Checks the implementations `choose` takes from all of them and the two
/// the input picks.
fn check(data: &[u8], choose: impl Fn(&[Implementation], [u8; 2]) -> Vec<Implementation>) {
    let mut input = Input::new(data);
    let key = input.bytes(MAX_KEY);
    let iv = input.bytes(MAX_IV);
    let aad = input.bytes(MAX_AAD);
    let message = input.bytes(MAX_MESSAGE);
    let tag_len = usize::from(input.byte() % 18);
    let picks = [input.byte(), input.byte()];
    let cuts = Cuts(input.rest());

    let oracle = AesGcm::with(key, aes::Strategy::Table, ghash::Strategy::BitSerial);
    let expected = oracle
        .as_ref()
        .map_err(|e| *e)
        .and_then(|oracle| oracle.encrypt(iv, aad, message, tag_len));
    for imp in choose(Implementation::all(), picks) {
        let gcm = match imp.build(key) {
            Ok(gcm) => gcm,
            Err(e) => {
                assert_eq!(Err(e), expected, "{imp:?}: key setup");
                continue;
            }
        };
        let sealed = gcm.encrypt(iv, aad, message, tag_len);
        assert_eq!(sealed, expected, "{imp:?}: one-shot encryption");
        let streamed = encrypt_online(&gcm, iv, aad, message, tag_len, &cuts);
        match (&streamed, &expected) {
            (Ok(s), Ok(e)) => assert_eq!(s, e, "{imp:?}: on-line encryption"),
            (Err(_), Err(_)) => {}
            _ => panic!("{imp:?}: on-line {streamed:?}, one-shot {expected:?}"),
        }
        check_both_ways(
            &format!("{imp:?}: out-of-place"),
            message,
            &expected,
            |out| gcm.encrypt_detached_into(iv, aad, message, out, tag_len),
            |ciphertext, tag, out| gcm.decrypt_detached_into(iv, aad, ciphertext, out, tag),
        );
        if let Implementation::Class(_) = imp {
            let split = imp.build(key).expect("built above").with_pool(pool());
            check_both_ways(
                "many-core",
                message,
                &expected,
                |buf| {
                    buf.copy_from_slice(message);
                    split.encrypt_in_place_detached(iv, aad, buf, tag_len)
                },
                |ciphertext, tag, buf| {
                    buf.copy_from_slice(ciphertext);
                    split.decrypt_in_place_detached(iv, aad, buf, tag)
                },
            );
            check_both_ways(
                "many-core, out of place",
                message,
                &expected,
                |out| split.encrypt_detached_into(iv, aad, message, out, tag_len),
                |ciphertext, tag, out| split.decrypt_detached_into(iv, aad, ciphertext, out, tag),
            );
            if let Ok(oracle) = &oracle {
                check_batch(imp, &gcm, oracle, iv, aad, message, tag_len);
            }
        }
        if let Ok(sealed) = &sealed {
            check_decryption(imp, &gcm, iv, aad, message, sealed, tag_len, &cuts);
        }
    }
}

/// The batch API on the message and three prefixes of it, one to three
/// bytes shorter (as many as the message allows): each result equals the
/// oracle's one-shot result (or is its very error); then the batch is
/// decrypted with the third message's tag forged (where it was sealed),
/// and that message alone fails, wiped.
fn check_batch(
    imp: Implementation,
    gcm: &AesGcm,
    oracle: &AesGcm,
    iv: &[u8],
    aad: &[u8],
    message: &[u8],
    tag_len: usize,
) {
    let lens: Vec<usize> = (0..4)
        .filter_map(|k| message.len().checked_sub(k))
        .collect();
    let mut bufs: Vec<Vec<u8>> = lens.iter().map(|&n| message[..n].to_vec()).collect();
    let mut tags = vec![vec![0u8; tag_len]; lens.len()];
    let results = gcm.encrypt_batch(&mut batch(iv, aad, &mut bufs, &mut tags));
    let mut sealed = Vec::new();
    for (k, (&n, result)) in lens.iter().zip(&results).enumerate() {
        let expected = oracle.encrypt(iv, aad, &message[..n], tag_len);
        let got = result.map(|()| [&bufs[k][..], &tags[k][..]].concat());
        assert_eq!(got, expected, "{imp:?}: batch encryption, message {k}");
        sealed.push(got.is_ok());
    }
    let forged = 2;
    if sealed.get(forged) == Some(&true) {
        tags[forged][tag_len - 1] ^= 1;
    }
    let results = gcm.decrypt_batch(&mut batch(iv, aad, &mut bufs, &mut tags));
    for (k, (&n, result)) in lens.iter().zip(&results).enumerate() {
        if !sealed[k] {
            continue;
        }
        if k == forged {
            assert_eq!(
                *result,
                Err(Error::AuthenticationFailed),
                "{imp:?}: batch forgery"
            );
            assert!(
                bufs[k].iter().all(|&b| b == 0),
                "{imp:?}: batch forgery not wiped"
            );
        } else {
            assert_eq!(*result, Ok(()), "{imp:?}: batch decryption, message {k}");
            assert_eq!(
                bufs[k],
                message[..n],
                "{imp:?}: batch decryption, message {k}"
            );
        }
    }
}

/// A batch over `bufs` and `tags`, every message with `iv` and `aad`.
fn batch<'a>(
    iv: &'a [u8],
    aad: &'a [u8],
    bufs: &'a mut [Vec<u8>],
    tags: &'a mut [Vec<u8>],
) -> Vec<BatchMessage<'a>> {
    bufs.iter_mut()
        .zip(tags.iter_mut())
        .map(|(buf, tag)| BatchMessage { iv, aad, buf, tag })
        .collect()
}

/// The split points: lengths of the successive pieces, cycled.
struct Cuts<'a>(&'a [u8]);

impl Cuts<'_> {
    /// `len` bytes cut into pieces, as ranges: each piece takes the next
    /// cut value modulo what is left plus one (so empty pieces occur).
    fn ranges(&self, len: usize) -> Vec<core::ops::Range<usize>> {
        let mut values = self.0.chunks(2).map(|c| {
            let mut v = [0u8; 2];
            v[..c.len()].copy_from_slice(c);
            usize::from(u16::from_be_bytes(v))
        });
        let mut ranges = Vec::new();
        let mut at = 0;
        while at < len && ranges.len() + 1 < MAX_PIECES {
            let Some(v) = values.next() else { break };
            let n = v % (len - at + 1);
            ranges.push(at..at + n);
            at += n;
        }
        ranges.push(at..len);
        ranges
    }
}

/// Ciphertext ‖ tag by the on-line encryptor, fed in pieces.
fn encrypt_online(
    gcm: &AesGcm,
    iv: &[u8],
    aad: &[u8],
    message: &[u8],
    tag_len: usize,
    cuts: &Cuts<'_>,
) -> Result<Vec<u8>, Error> {
    let mut encryptor = gcm.encryptor(iv)?;
    for range in cuts.ranges(aad.len()) {
        encryptor.update_aad(&aad[range])?;
    }
    let mut out = message.to_vec();
    for range in cuts.ranges(out.len()) {
        encryptor.update(&mut out[range])?;
    }
    let tag = encryptor.finish(tag_len)?;
    out.extend_from_slice(tag.as_bytes());
    Ok(out)
}

/// Another way to encrypt and decrypt (out of place, on many cores):
/// `seal` (writing a buffer of the message's length that starts as junk)
/// must give the one-shot result, and `open` (ciphertext, tag, junk
/// buffer) must give the message back from it.
fn check_both_ways(
    what: &str,
    message: &[u8],
    expected: &Result<Vec<u8>, Error>,
    seal: impl FnOnce(&mut [u8]) -> Result<Tag, Error>,
    open: impl FnOnce(&[u8], &[u8], &mut [u8]) -> Result<(), Error>,
) {
    let mut out = vec![0x5a; message.len()];
    let got = seal(&mut out).map(|tag| [&out[..], tag.as_bytes()].concat());
    assert_eq!(&got, expected, "{what} encryption");
    if let Ok(sealed) = got {
        let (ciphertext, tag) = sealed.split_at(message.len());
        let mut back = vec![0xa5; message.len()];
        assert_eq!(
            open(ciphertext, tag, &mut back),
            Ok(()),
            "{what} decryption"
        );
        assert_eq!(back, message, "{what} decryption");
    }
}

/// Decryption of a valid ciphertext gives the message back, one-shot and
/// on-line; with a tag bit flipped it fails and releases only zeros.
#[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
fn check_decryption(
    imp: Implementation,
    gcm: &AesGcm,
    iv: &[u8],
    aad: &[u8],
    message: &[u8],
    sealed: &[u8],
    tag_len: usize,
    cuts: &Cuts<'_>,
) {
    assert_eq!(
        gcm.decrypt(iv, aad, sealed, tag_len).as_deref(),
        Ok(message),
        "{imp:?}: one-shot decryption"
    );
    let (ciphertext, tag) = sealed.split_at(message.len());
    let mut buf = ciphertext.to_vec();
    let mut decryptor = gcm.decryptor(iv).expect("the IV encrypted");
    for range in cuts.ranges(aad.len()) {
        decryptor.update_aad(&aad[range]).expect("associated data");
    }
    for range in cuts.ranges(buf.len()) {
        decryptor.update(&mut buf[range]).expect("message piece");
    }
    assert_eq!(decryptor.finish(tag), Ok(()), "{imp:?}: on-line tag");
    assert_eq!(buf, message, "{imp:?}: on-line decryption");

    let mut forged_tag = tag.to_vec();
    forged_tag[tag_len - 1] ^= 1;
    let mut buf = ciphertext.to_vec();
    let refused = gcm.decrypt_in_place_detached(iv, aad, &mut buf, &forged_tag);
    assert_eq!(
        refused,
        Err(Error::AuthenticationFailed),
        "{imp:?}: forged tag"
    );
    assert!(
        buf.iter().all(|&b| b == 0),
        "{imp:?}: unverified plaintext left"
    );
}
