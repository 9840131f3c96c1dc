//! Target `gcm_decrypt`: AES-GCM decryption of bytes an attacker chose,
//! with every tag length.
//!
//! The input is a key, an IV, associated data, a tag length (4 to 16 bytes
//! and the invalid ones around them) and either raw bytes taken as
//! ciphertext ‖ tag, or a message that the target seals and the input then
//! edits ([`tamper`](crate::tamper)). Two implementations open it — the
//! default ([`AesGcm::new`]) and a strategy pair the input picks (the
//! differential target compares them all) — each through the one-shot
//! API, the in-place API and the on-line decryptor. The target checks that:
//!
//! - they all agree, on the plaintext or on the error;
//! - a failure leaves only zeros in the in-place buffer;
//! - a success gives a plaintext that encrypts back to exactly the bytes
//!   given (it is the authenticated one, not a guess);
//! - an edited ciphertext fails, an unedited one opens to the message.

use aekit::{AesGcm, Error};

use crate::gcm_differential::{Implementation, MAX_IV};
use crate::input::Input;
use crate::tamper;

const MAX_KEY: usize = 40;
const MAX_AAD: usize = 512;
const MAX_MESSAGE: usize = 2048;

/// Runs the target on one input.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let key = input.bytes(MAX_KEY);
    let iv = input.bytes(MAX_IV);
    let aad = input.bytes(MAX_AAD);
    let tag_len = usize::from(input.byte() % 18);
    let pick = usize::from(input.byte());
    let mode = input.byte();

    let pairs: Vec<_> = Implementation::all()
        .iter()
        .filter(|i| matches!(i, Implementation::Pair(..)))
        .collect();
    let (default, picked) = match (AesGcm::new(key), pairs[pick % pairs.len()].build(key)) {
        (Ok(d), Ok(p)) => (d, p),
        (d, p) => {
            assert_eq!(d.err(), p.err(), "key setup");
            return;
        }
    };

    let (sealed, original) = if mode.is_multiple_of(2) {
        (input.rest().to_vec(), None)
    } else {
        let message = input.bytes(MAX_MESSAGE);
        let Ok(mut sealed) = default.encrypt(iv, aad, message, tag_len) else {
            return; // an invalid IV or tag length: the raw mode covers it
        };
        let edited = tamper::apply(&mut sealed, &mut input);
        (sealed, (!edited).then_some(message))
    };

    let opened = open(&default, iv, aad, &sealed, tag_len);
    assert_eq!(
        open(&picked, iv, aad, &sealed, tag_len),
        opened,
        "{:?}",
        picked.implementation()
    );
    if let Ok(plaintext) = &opened {
        let again = picked.encrypt(iv, aad, plaintext, tag_len);
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

/// Opens ciphertext ‖ tag through the one-shot, in-place and on-line APIs,
/// which must agree; returns the plaintext or the error.
fn open(
    gcm: &AesGcm,
    iv: &[u8],
    aad: &[u8],
    sealed: &[u8],
    tag_len: usize,
) -> Result<Vec<u8>, Error> {
    let one_shot = gcm.decrypt(iv, aad, sealed, tag_len);
    let Some(split) = sealed.len().checked_sub(tag_len) else {
        assert!(
            one_shot.is_err(),
            "a ciphertext shorter than its tag opened"
        );
        return one_shot;
    };
    let (ciphertext, tag) = sealed.split_at(split);

    let mut buf = ciphertext.to_vec();
    let in_place = gcm.decrypt_in_place_detached(iv, aad, &mut buf, tag);
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

    let mut buf = ciphertext.to_vec();
    let online = gcm.decryptor(iv).and_then(|mut d| {
        d.update_aad(aad)?;
        d.update(&mut buf)?;
        d.finish(tag)
    });
    assert_eq!(online.is_ok(), one_shot.is_ok(), "on-line: {online:?}");
    if let Ok(plaintext) = &one_shot {
        assert_eq!(&buf, plaintext, "on-line");
    }
    one_shot
}
