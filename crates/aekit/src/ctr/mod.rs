//! Counter mode as GCM uses it (spec §2.3): the counter block's last four
//! bytes are a big-endian integer incremented modulo 2^32 (incr32); the
//! first twelve never change.
//!
//! [`apply_keystream`] is plain counter mode over any AES strategy; [`face`]
//! is FACE, which caches the counter-invariant part of the first rounds.

pub mod face;

use crate::aes::{Block, BlockCipher};

/// Blocks of keystream made per call to `encrypt_blocks` in the generic
/// path: enough to let bitsliced and pipelined strategies work in parallel.
const BATCH: usize = 8;

/// incr32: adds one to the low 32 bits of the counter block, wrapping
/// within them.
#[inline(always)]
pub fn incr32(counter: &mut Block) {
    let low = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
    counter[12..].copy_from_slice(&low.wrapping_add(1).to_be_bytes());
}

/// XORs `data` with the keystream E(K, counter), E(K, incr32(counter)), …
/// using only `encrypt_blocks`; the default of [`BlockCipher::ctr32`].
pub fn apply_keystream<A: BlockCipher>(aes: &A, counter: &mut Block, data: &mut [u8]) {
    let mut keystream = [[0u8; 16]; BATCH];
    for chunk in data.chunks_mut(16 * BATCH) {
        let blocks = chunk.len().div_ceil(16);
        for block in &mut keystream[..blocks] {
            *block = *counter;
            incr32(counter);
        }
        aes.encrypt_blocks(&mut keystream[..blocks]);
        for (byte, k) in chunk.iter_mut().zip(keystream.iter().flatten()) {
            *byte ^= k;
        }
    }
    zeroize::Zeroize::zeroize(&mut keystream);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incr32_wraps_inside_the_low_word() {
        let mut c = [0xffu8; 16];
        incr32(&mut c);
        assert_eq!(c[..12], [0xff; 12]);
        assert_eq!(c[12..], [0, 0, 0, 0]);
        let mut c = [0u8; 16];
        c[15] = 0xff;
        incr32(&mut c);
        assert_eq!(c[12..], [0, 0, 1, 0]);
    }
}
