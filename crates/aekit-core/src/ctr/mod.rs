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

use crate::aes::{Block, Fixslice, fixslice::GROUP};

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
    let mut keystream = [[0u8; 16]; GROUP];
    for chunk in data.chunks_mut(16 * GROUP) {
        let blocks = chunk.len().div_ceil(16);
        for k in keystream.iter_mut().take(blocks) {
            *k = *counter;
            incr32(counter);
        }
        aes.encrypt_blocks(&mut keystream[..blocks]);
        xor_keystream(chunk, &keystream);
    }
    keystream.zeroize();
}

/// XORs `chunk` (at most `16 · GROUP` bytes) with the keystream blocks,
/// a 32-bit word at a time and the last one to three bytes alone. One
/// copy in the binary: its callers are several and the saving is in the
/// loop, not the call.
#[inline(never)]
pub(crate) fn xor_keystream(chunk: &mut [u8], keystream: &[Block; GROUP]) {
    let keystream = keystream.as_flattened();
    let whole = chunk.len() / 4 * 4;
    let (words, tail) = chunk.split_at_mut(whole);
    for (w, k) in words.chunks_exact_mut(4).zip(keystream.chunks_exact(4)) {
        let x = u32::from_ne_bytes([w[0], w[1], w[2], w[3]])
            ^ u32::from_ne_bytes([k[0], k[1], k[2], k[3]]);
        w.copy_from_slice(&x.to_ne_bytes());
    }
    for (byte, k) in tail.iter_mut().zip(&keystream[whole..]) {
        *byte ^= k;
    }
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
