//! `aekit-trace IMPL DIRECTION LEN AAD_LEN`: sets up a key of `IMPL`,
//! makes one warm-up call, then one call of `LEN` bytes with `AAD_LEN`
//! bytes of AAD between two calls of [`mark`]. It prints the marker's
//! address, which `../model.py` finds in qemu's execution log to cut the
//! call's instructions out of it.
//!
//! `IMPL`: AES-128-GCM with a 12-byte nonce by `aekit` (its default
//! class, capped as `AEKIT_KERNEL` says), `ring` or `aws-lc`, AES-256 with
//! the suffix `-256`; `aether`, AETHER (256-bit key, 16-byte nonce);
//! `leaky`, no cipher but a search through the key, the control flow that
//! `model.py --flow` must find depends on it. The key and the message are
//! made from `AEKIT_TRACE_SECRET` (a byte; 66 by default).

use std::hint::black_box;

/// The marker around the traced call: a function of its own that the
/// trace can recognize by address.
#[inline(never)]
extern "C" fn mark(n: u64) -> u64 {
    black_box(n)
}

/// `$name(key, nonce, aad, plain, encrypt)`: one traced call of a peer
/// whose API is ring's (`ring::aead` or `aws_lc_rs::aead`), checked
/// against a call made before the markers.
#[cfg(feature = "peers")]
macro_rules! peer {
    ($name:ident, $aead:path) => {
        fn $name(key: &[u8], nonce: [u8; 12], aad: &[u8], plain: &[u8], encrypt: bool) {
            use $aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
            let alg = if key.len() == 16 {
                &AES_128_GCM
            } else {
                &AES_256_GCM
            };
            let key = LessSafeKey::new(UnboundKey::new(alg, key).expect("key"));
            let nonce = || Nonce::assume_unique_for_key(nonce);
            let mut sealed = plain.to_vec();
            let tag = key
                .seal_in_place_separate_tag(nonce(), Aad::from(aad), &mut sealed)
                .expect("seal");
            let mut buf = if encrypt {
                plain.to_vec()
            } else {
                [sealed.as_slice(), tag.as_ref()].concat()
            };
            mark(1);
            if encrypt {
                let again = black_box(key.seal_in_place_separate_tag(
                    nonce(),
                    Aad::from(aad),
                    black_box(&mut buf),
                ))
                .expect("seal");
                assert_eq!(again.as_ref(), tag.as_ref());
            } else {
                black_box(key.open_in_place(nonce(), Aad::from(aad), black_box(&mut buf)))
                    .expect("open");
            }
            mark(2);
            buf.truncate(plain.len());
            assert_eq!(buf, if encrypt { sealed } else { plain.to_vec() });
        }
    };
}
#[cfg(feature = "peers")]
peer!(ring_call, ring::aead);
#[cfg(feature = "peers")]
peer!(aws_lc_call, aws_lc_rs::aead);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        "usage: aekit-trace aekit|ring|aws-lc|aether|leaky[-256] encrypt|decrypt LEN AAD_LEN";
    let [_, imp, dir, len, aad_len] = args.as_slice() else {
        panic!("{usage}");
    };
    let len: usize = len.parse().expect(usage);
    let aad_len: usize = aad_len.parse().expect(usage);
    let (imp, key_len) = match imp.strip_suffix("-256") {
        Some(imp) => (imp, 32),
        None => (imp.as_str(), 16),
    };
    let encrypt = match dir.as_str() {
        "encrypt" => true,
        "decrypt" => false,
        _ => panic!("{usage}"),
    };
    // The secrets, varied by `AEKIT_TRACE_SECRET` (a byte) to compare
    // the control flow of calls that differ only in them.
    let secret =
        std::env::var("AEKIT_TRACE_SECRET").map_or(0x42, |s| s.parse::<u8>().expect("a byte"));
    let key = vec![secret; key_len];
    let nonce = [7u8; 12];
    let aad = vec![0x11u8; aad_len];
    let plain: Vec<u8> = (0..len)
        .map(|i| secret.wrapping_mul(i as u8) ^ 0x5a)
        .collect();
    println!("mark {:#x}", mark as *const () as usize);

    match imp {
        "aekit" => {
            let gcm = aekit::AesGcm::new(&key).expect("key");
            let mut sealed = plain.clone();
            let tag = gcm
                .encrypt_in_place_detached(&nonce, &aad, &mut sealed, 16)
                .expect("seal");
            let mut buf = if encrypt {
                plain.clone()
            } else {
                sealed.clone()
            };
            mark(1);
            if encrypt {
                let again =
                    black_box(gcm.encrypt_in_place_detached(&nonce, &aad, black_box(&mut buf), 16))
                        .expect("seal");
                assert_eq!(again.as_ref(), tag.as_ref());
            } else {
                black_box(gcm.decrypt_in_place_detached(
                    &nonce,
                    &aad,
                    black_box(&mut buf),
                    tag.as_ref(),
                ))
                .expect("open");
            }
            mark(2);
            assert_eq!(buf, if encrypt { sealed } else { plain });
        }
        #[cfg(feature = "peers")]
        "ring" => ring_call(&key, nonce, &aad, &plain, encrypt),
        #[cfg(feature = "peers")]
        "aws-lc" => aws_lc_call(&key, nonce, &aad, &plain, encrypt),
        // AETHER (its 32-byte key and 16-byte nonce whatever the suffix).
        "aether" => {
            let key = vec![secret; 32];
            let nonce = [7u8; 16];
            let aether = aekit::aether::Aether::new(&key).expect("key");
            let mut sealed = plain.clone();
            let tag = aether
                .encrypt_in_place_detached(&nonce, &aad, &mut sealed)
                .expect("seal");
            let mut buf = if encrypt {
                plain.clone()
            } else {
                sealed.clone()
            };
            mark(1);
            if encrypt {
                let again =
                    black_box(aether.encrypt_in_place_detached(&nonce, &aad, black_box(&mut buf)))
                        .expect("seal");
                assert_eq!(again, tag);
            } else {
                black_box(aether.decrypt_in_place_detached(
                    &nonce,
                    &aad,
                    black_box(&mut buf),
                    &tag,
                ))
                .expect("open");
            }
            mark(2);
            assert_eq!(buf, if encrypt { sealed } else { plain });
        }
        // The negative control of `model.py --flow`: a search whose
        // length depends on the key, which the check must catch.
        "leaky" => {
            mark(1);
            black_box(black_box(&key).iter().position(|&b| b == 0));
            mark(2);
        }
        _ => panic!("{usage}"),
    }
}
