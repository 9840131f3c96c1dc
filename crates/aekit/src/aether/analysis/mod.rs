//! AETHER's design tables recomputed from the pinned specification: what
//! the paper (Sakamoto et al., *Design of an Ultra-High Throughput and
//! Low-Energy Authenticated Encryption Scheme*, §3 and §4) reports about
//! its S-box, its matrix, its inner function and its round update, computed
//! here from the very tables and functions the `reference` implementation
//! runs, so the analysis and the cipher cannot drift apart.
//!
//! | paper | what | here |
//! |---|---|---|
//! | Table 3 | S-box DP, C², degree, full diffusion | [`sbox`] |
//! | Table 4 | branch numbers of the linear layer | [`matrix`] |
//! | Table 5 | best characteristic of one and of two F | [`inner`] |
//! | Table 6 | round updates whose collisions need ≥ 8 active F | [`words::search_family`] |
//! | Table 7 | active F per initialization round | [`words::init_active_bounds`] |
//! | §3.2.1, §4.4 | active F of an internal collision | [`words::collision_active_bound`] |
//!
//! Every search is exhaustive over its model and says what the model is:
//! the truncated word-level model of `words.rs` gives lower bounds on real
//! characteristics; the S-box and branch-number figures are exact. What the
//! paper measured with SAT, MILP or division-property tools (the linear
//! keystream bias 2^-208 of §4.2, the 8-round integral distinguisher of
//! §4.3, the bit-level collision bound 2^-164 of §4.4) is not recomputed.
//!
//! `aekit-bench aether-analysis` prints every table beside the
//! paper's figures.

pub mod inner;
pub mod matrix;
pub mod sbox;
pub mod words;

use crate::aes::schedule::gf_mul;

/// Orthros' 4-bit S-box as the reference implementation applies it.
pub fn aether_sbox() -> [u8; 16] {
    super::reference::SBOX
}

/// The AES S-box (FIPS-197), for comparison in Table 3.
pub fn aes_sbox() -> [u8; 256] {
    crate::aes::SBOX
}

/// AES's MixColumns on one column (byte r of the column at bits 8r..8r+8),
/// for comparison in Tables 4 and 5.
pub fn aes_mix_columns() -> matrix::BitMatrix {
    const M: [[u8; 4]; 4] = [[2, 3, 1, 1], [1, 2, 3, 1], [1, 1, 2, 3], [3, 1, 1, 2]];
    matrix::BitMatrix::from_linear_map(32, |x| {
        let a: [u8; 4] = core::array::from_fn(|r| (x >> (8 * r)) as u8);
        (0..4).fold(0, |y, r| {
            let b = (0..4).fold(0, |acc, c| acc ^ gf_mul(M[r][c], a[c]));
            y | (u64::from(b) << (8 * r))
        })
    })
}

/// SplitMix64: a small fixed-seed generator for the sampled searches and
/// the experiments (nothing secret comes from it).
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform below `n` (by rejection, so without bias).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let v = self.next();
            if v < zone {
                return v % n;
            }
        }
    }
}
