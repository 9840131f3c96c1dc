//! Counter mode as GCM uses it (spec §2.3): the counter block's last four
//! bytes are a big-endian integer incremented modulo 2^32 (incr32); the
//! first twelve never change.
//!
//! A counter mode is a type implementing [`Mode`]: [`Plain`] (pack two
//! counter blocks, run the whole cipher) or one of FACE's variants
//! ([`face`]), which cache the counter-invariant part of the first rounds.
//! The choice is a type rather than an enum so that a firmware links the
//! one mode it uses and none of the others.

pub mod face;

use zeroize::Zeroize;

use crate::aes::fixslice::{GROUP, Start, pack, unpack_xor};
use crate::aes::{Block, Fixslice};

/// incr32: the last four bytes as a big-endian integer, plus one mod 2^32.
#[inline(always)]
pub fn incr32(counter: &mut Block) {
    let low = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
    counter[12..].copy_from_slice(&low.wrapping_add(1).to_be_bytes());
}

/// Plain counter mode: XORs `data` with E(K, counter), E(K,
/// incr32(counter)), … and leaves `counter` at the first unused value. A
/// partial last block consumes a whole counter.
pub fn apply_keystream(aes: &Fixslice, counter: &mut Block, data: &mut [u8]) {
    let mut counters = [[0u8; 16]; GROUP];
    for chunk in data.chunks_mut(16 * GROUP) {
        let blocks = chunk.len().div_ceil(16);
        for k in counters.iter_mut().take(blocks) {
            *k = *counter;
            incr32(counter);
        }
        let mut s = pack(&counters[..blocks]);
        aes.encrypt_from(&mut s, 0, Start::Round);
        unpack_xor(&s, chunk);
        s.zeroize();
    }
    counters.zeroize();
}

/// A way of computing GCM's counter-mode keystream: exactly
/// [`apply_keystream`]'s.
pub trait Mode {
    /// The mode's token: `plain`, `rd0`, `rd1`, `rd1+`, `rd2`, `rd2+`.
    const NAME: &'static str;
    /// XORs `data` with the keystream from `counter`, leaving `counter` at
    /// the first unused value. Whatever the mode caches lives for this
    /// call and is wiped before it returns.
    fn apply(aes: &Fixslice, counter: &mut Block, data: &mut [u8]);
}

/// Plain counter mode, [`apply_keystream`].
pub struct Plain;

impl Mode for Plain {
    const NAME: &'static str = "plain";
    fn apply(aes: &Fixslice, counter: &mut Block, data: &mut [u8]) {
        apply_keystream(aes, counter, data);
    }
}
