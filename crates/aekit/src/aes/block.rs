//! The block-cipher contract every AES strategy implements: [`Block`],
//! [`BlockCipher`] (build from a key schedule, encrypt blocks, counter
//! mode), and the generic counter mode that is `ctr32`'s default.
//!
//! Counter mode is GCM's (spec §2.3): the counter block's last four bytes
//! are a big-endian integer incremented modulo 2^32 ([`incr32`]); the first
//! twelve never change. [`apply_keystream`] runs it over any strategy with
//! `encrypt_blocks` alone; strategies with more blocks in flight override
//! `ctr32`, and tests hold them to this one. (The `ctr` module re-exports
//! both functions, beside FACE.)

use super::schedule::KeySchedule;

/// A 16-byte AES block.
pub type Block = [u8; 16];

/// One AES implementation holding its expanded key.
///
/// Implementations are built from a [`KeySchedule`]; `new` returns `None`
/// when this CPU lacks the instructions the implementation needs, so safe
/// code can never reach an instruction the CPU does not have.
pub trait BlockCipher: Sized + Send + Sync {
    /// The strategy's token (`table`, `fixslice`, `ni`).
    const NAME: &'static str;
    /// Whether no branch and no memory index depends on the key or the data.
    const CONSTANT_TIME: bool;
    /// Key-dependent bytes held for an AES-256 key (round keys in this
    /// strategy's layout); key-independent tables are not counted.
    const STORAGE_BYTES: usize;

    /// Whether this CPU can run the strategy.
    fn is_available() -> bool {
        true
    }

    /// Converts the FIPS-197 round keys to this strategy's layout.
    fn new(keys: &KeySchedule) -> Option<Self>;

    /// Encrypts every block in place.
    fn encrypt_blocks(&self, blocks: &mut [Block]);

    /// Counter mode with GCM's incr32 (spec §2.3): XORs `data` with
    /// E(K, counter), E(K, incr32(counter)), … and leaves `counter` at the
    /// first unused value. A partial last block consumes a whole counter.
    /// Strategies override this to keep more blocks in flight.
    fn ctr32(&self, counter: &mut Block, data: &mut [u8]) {
        apply_keystream(self, counter, data);
    }
}

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
