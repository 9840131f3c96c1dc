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
//! unedited one opens to the message.

use aekit::Error;
use aekit::aether::{Aether, Strategy, TAG_LEN};

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
