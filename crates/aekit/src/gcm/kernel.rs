//! What the GCM mode asks of an implementation: an AES, a GHASH, and a way
//! to run counter mode and GHASH over whole blocks.
//!
//! A plain (AES strategy, GHASH strategy) pair runs the two in passes: a
//! few KiB of counter mode, then GHASH over the same bytes while they are
//! still in L1. Fused kernels ([`super::Fused`]) override
//! [`Kernel::crypt_blocks`] to do both in one pass, interleaving the AES
//! rounds of some blocks with the carry-less products of others so that
//! both execution units stay busy.

use super::state::Direction;
use crate::aes::{Block, BlockCipher};
use crate::ghash::GhashKey;

/// Bytes encrypted, then hashed, per pass of the two-pass default: small
/// enough that GHASH reads the ciphertext back from L1.
const PASS: usize = 4096;

/// An implementation of GCM's inner loop.
pub(crate) trait Kernel {
    /// The block cipher, for E(K, Y_0) and partial blocks.
    type Aes: BlockCipher;
    /// The hash, for the IV, the associated data and the lengths.
    type Ghash: GhashKey;

    fn aes(&self) -> &Self::Aes;
    fn ghash(&self) -> &Self::Ghash;

    /// Encrypts or decrypts `data` (whole blocks: `data.len() % 16 == 0`)
    /// in counter mode from `counter`, leaving it at the first unused
    /// value, and folds the ciphertext into the GHASH value `y`.
    fn crypt_blocks(
        &self,
        counter: &mut Block,
        y: &mut Block,
        data: &mut [u8],
        direction: Direction,
    ) {
        debug_assert_eq!(data.len() % 16, 0);
        for pass in data.chunks_mut(PASS) {
            if direction == Direction::Decrypt {
                self.ghash().update_blocks(y, pass);
            }
            self.aes().ctr32(counter, pass);
            if direction == Direction::Encrypt {
                self.ghash().update_blocks(y, pass);
            }
        }
    }
}

/// Any AES strategy with any GHASH strategy, in two passes.
pub(crate) struct Pair<'k, A, G> {
    pub(crate) aes: &'k A,
    pub(crate) ghash: &'k G,
}

impl<A: BlockCipher, G: GhashKey> Kernel for Pair<'_, A, G> {
    type Aes = A;
    type Ghash = G;

    fn aes(&self) -> &A {
        self.aes
    }

    fn ghash(&self) -> &G {
        self.ghash
    }
}
