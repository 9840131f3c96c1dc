//! The contract between AETHER's mode (`mod.rs`) and its implementations
//! (`reference.rs`, `portable.rs`, `avx2.rs`, `avx512.rs`, `neon.rs`): the
//! state as the spec's bytes, and [`Engine`], what each implementation
//! computes on it. The mode chooses an engine and calls it; the engines
//! use this file and nothing of the mode.

use crate::secret::wipe;

/// The rate: bytes absorbed per round update.
pub const BLOCK_LEN: usize = 48;

/// A 128-bit word, big-endian.
pub(crate) type Word = [u8; 16];
/// The nine words `S0..S8`.
pub(crate) type State = [Word; 9];

/// What an implementation supplies: the state is always handed over in the
/// spec's byte order, so each implementation converts to its own layout at
/// the edges of a call and keeps it inside.
pub(crate) trait Engine: Copy {
    /// The keystream words `F(S0⊕S1)⊕S4 ‖ F(S2⊕S6)⊕S7 ‖ F(S3⊕S5)⊕S8`,
    /// without updating the state.
    fn keystream(self, s: &State) -> [u8; BLOCK_LEN];

    /// `R(S, B0, B1, B2)` for each 48-byte block of `blocks` (whose length
    /// is a multiple of 48).
    fn absorb(self, s: &mut State, blocks: &[u8]);

    /// Encrypts whole 48-byte blocks in place: for each, XOR the keystream,
    /// then absorb the plaintext block.
    fn encrypt(self, s: &mut State, blocks: &mut [u8]) {
        for block in blocks.chunks_exact_mut(BLOCK_LEN) {
            let mut ks = self.keystream(s);
            self.absorb(s, block);
            block.iter_mut().zip(&ks).for_each(|(b, k)| *b ^= k);
            wipe(&mut ks);
        }
    }

    /// Decrypts whole 48-byte blocks in place.
    fn decrypt(self, s: &mut State, blocks: &mut [u8]) {
        for block in blocks.chunks_exact_mut(BLOCK_LEN) {
            let mut ks = self.keystream(s);
            block.iter_mut().zip(&ks).for_each(|(b, k)| *b ^= k);
            self.absorb(s, block);
            wipe(&mut ks);
        }
    }

    /// `R(S, X0, X1, X2)` applied `times` times with the same input
    /// (initialization and finalization). Engines override it to keep the
    /// state in their own layout across all the rounds.
    fn absorb_repeated(self, s: &mut State, x: &[Word; 3], times: usize) {
        let mut block = [0u8; BLOCK_LEN];
        for (j, w) in x.iter().enumerate() {
            block[16 * j..16 * j + 16].copy_from_slice(w);
        }
        for _ in 0..times {
            self.absorb(s, &block);
        }
        wipe(&mut block);
    }
}
