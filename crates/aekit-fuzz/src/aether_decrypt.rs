//! Target `aether_decrypt`: AETHER decryption of bytes an attacker chose.
//!
//! The input is a key and a nonce of any length (32 and 16 bytes are the
//! valid ones), associated data, and either raw bytes taken as ciphertext
//! ‖ tag or a message that the target seals and the input then edits
//! ([`tamper`](crate::tamper)). Every AETHER implementation this CPU runs
//! opens it, one-shot and in place. The target checks that they agree on
//! the plaintext or the error, that a failure leaves only zeros in the
//! in-place buffer, that a success gives a plaintext that encrypts back to
//! exactly the bytes given, and that an edited ciphertext fails while an
//! unedited one opens to the message. A sealed message with a 32-byte key
//! and a 16-byte nonce also goes through the batch API on a `portable` key
//! ([`check_batch`]), which runs a group of enough messages of one shape
//! bitsliced across messages.

use aekit::Error;
use aekit::aether::{Aether, AetherMessage, NONCE_LEN, Strategy, TAG_LEN};

use crate::input::Input;
use crate::tamper;

const MAX_KEY: usize = 40;
const MAX_NONCE: usize = 20;
const MAX_AD: usize = 512;
const MAX_MESSAGE: usize = 2048;

/// Runs the target on one input.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let key = input.bytes(MAX_KEY);
    let nonce = input.bytes(MAX_NONCE);
    let ad = input.bytes(MAX_AD);
    let mode = input.byte();

    let reference = match Aether::with(key, Strategy::Reference) {
        Ok(a) => a,
        Err(e) => {
            for s in available() {
                assert_eq!(Aether::with(key, s).err(), Some(e), "{s:?}: key setup");
            }
            return;
        }
    };
    let (sealed, original) = if mode.is_multiple_of(2) {
        (input.rest().to_vec(), None)
    } else {
        let message = input.bytes(MAX_MESSAGE);
        let Ok(mut sealed) = reference.encrypt(nonce, ad, message) else {
            return; // a wrong nonce length: the raw mode covers it
        };
        // Half of the sealed inputs (a batch costs ten single messages).
        if let Ok(nonce) = <&[u8; NONCE_LEN]>::try_from(nonce)
            && mode % 4 == 1
        {
            check_batch(key, nonce, ad, message);
        }
        let edited = tamper::apply(&mut sealed, &mut input);
        (sealed, (!edited).then_some(message))
    };

    let opened = open(&reference, nonce, ad, &sealed);
    for s in available() {
        let aether = Aether::with(key, s).expect("available, and the key was taken");
        assert_eq!(open(&aether, nonce, ad, &sealed), opened, "{s:?}");
    }
    if let Ok(plaintext) = &opened {
        let again = reference.encrypt(nonce, ad, plaintext);
        assert_eq!(
            again.as_ref(),
            Ok(&sealed),
            "released a plaintext that is not the sealed one"
        );
    }
    match original {
        Some(message) => assert_eq!(opened.as_deref(), Ok(message), "an unedited ciphertext"),
        None if !mode.is_multiple_of(2) => assert!(opened.is_err(), "an edited ciphertext opened"),
        None => {}
    }
}

/// Messages in [`check_batch`]'s batch: enough of one shape that a
/// `portable` key runs them as a bitsliced group (with AVX-512 from about
/// a dozen, `aether/batch.rs`, "Which engine"), few enough to stay fast.
const BATCH: usize = 40;

/// The batch API on a `portable` key: `BATCH` messages of `message`'s
/// length (it and copies with one byte changed each, each with its own
/// nonce) must equal the one-message output of the fastest strategy (the
/// decryptions above check every strategy against the reference);
/// decrypted back with one tag changed, that message fails alone and is
/// wiped.
fn check_batch(key: &[u8], nonce: &[u8; NONCE_LEN], ad: &[u8], message: &[u8]) {
    let batched = Aether::with(key, Strategy::Portable).expect("the key was taken");
    let oracle = Aether::new(key).expect("the key was taken");
    let nonces: Vec<[u8; NONCE_LEN]> = (0..BATCH)
        .map(|i| {
            let mut n = *nonce;
            n[i % NONCE_LEN] ^= (i / NONCE_LEN) as u8;
            n
        })
        .collect();
    let plain: Vec<Vec<u8>> = (0..BATCH)
        .map(|i| {
            let mut m = message.to_vec();
            if let Some(b) = m.get_mut((i * 37) % message.len().max(1)) {
                *b ^= i as u8;
            }
            m
        })
        .collect();
    let mut bufs = plain.clone();
    let mut tags = vec![[0u8; TAG_LEN]; BATCH];
    let results = batched.encrypt_batch(&mut batch_of(&mut bufs, &mut tags, &nonces, ad));
    assert!(results.iter().all(|r| r.is_ok()));
    for (i, ((buf, tag), p)) in bufs.iter().zip(&tags).zip(&plain).enumerate() {
        let mut want = p.clone();
        let t = oracle
            .encrypt_in_place_detached(&nonces[i], ad, &mut want)
            .expect("a valid nonce");
        assert_eq!((buf, tag), (&want, &t), "batch message {i}");
    }
    let forged = message.len() % BATCH;
    tags[forged][0] ^= 1;
    let results = batched.decrypt_batch(&mut batch_of(&mut bufs, &mut tags, &nonces, ad));
    for (i, ((r, buf), p)) in results.iter().zip(&bufs).zip(&plain).enumerate() {
        if i == forged {
            assert_eq!(*r, Err(Error::AuthenticationFailed), "forged batch message");
            assert!(
                buf.iter().all(|&x| x == 0),
                "forged batch message not wiped"
            );
        } else {
            assert_eq!((r, buf), (&Ok(()), p), "batch message {i} decrypted");
        }
    }
}

/// The batch of `bufs`, each with its tag slot and nonce and `ad`.
fn batch_of<'a>(
    bufs: &'a mut [Vec<u8>],
    tags: &'a mut [[u8; TAG_LEN]],
    nonces: &'a [[u8; NONCE_LEN]],
    ad: &'a [u8],
) -> Vec<AetherMessage<'a>> {
    bufs.iter_mut()
        .zip(tags.iter_mut())
        .zip(nonces)
        .map(|((buf, tag), nonce)| AetherMessage {
            nonce,
            ad,
            buf,
            tag,
        })
        .collect()
}

/// The implementations this CPU runs, besides the reference.
fn available() -> impl Iterator<Item = Strategy> {
    Strategy::ALL
        .into_iter()
        .filter(|&s| s != Strategy::Reference && s.is_available())
}

/// Opens ciphertext ‖ tag one-shot and in place, which must agree.
fn open(aether: &Aether, nonce: &[u8], ad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
    let one_shot = aether.decrypt(nonce, ad, sealed);
    let Some(split) = sealed.len().checked_sub(TAG_LEN) else {
        assert!(
            one_shot.is_err(),
            "a ciphertext shorter than its tag opened"
        );
        return one_shot;
    };
    let (ciphertext, tag) = sealed.split_at(split);
    let mut buf = ciphertext.to_vec();
    let in_place = aether.decrypt_in_place_detached(nonce, ad, &mut buf, tag);
    match &one_shot {
        Ok(plaintext) => {
            assert_eq!(in_place, Ok(()), "in place");
            assert_eq!(&buf, plaintext, "in place");
        }
        Err(e) => {
            assert_eq!(in_place, Err(*e), "in place");
            // A tag that failed wipes what was decrypted; an argument
            // refused up front leaves the ciphertext as it was.
            if *e == Error::AuthenticationFailed {
                assert!(buf.iter().all(|&b| b == 0), "unverified plaintext left");
            } else {
                assert_eq!(buf, ciphertext, "refused, yet the buffer changed");
            }
        }
    }
    one_shot
}
