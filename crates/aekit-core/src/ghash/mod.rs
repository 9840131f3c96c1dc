//! GHASH (GCM spec §2.3): Y ← (Y ⊕ X_i) · H in GF(2^128), by one of two
//! strategies — `shoup4` (the seed's 256-byte table, not constant-time)
//! and `karatsuba` (constant-time, 32-bit integer multiplications with
//! holes). Both implement [`GhashKey`]; `field` states the bit order.

pub mod field;
pub mod karatsuba;
pub mod shoup4;

pub use karatsuba::Karatsuba;
pub use shoup4::Shoup4;

use crate::aes::Block;

/// GHASH for one hash key H, in one strategy's layout.
pub trait GhashKey: Sized {
    /// The strategy's token (`shoup4`, `karatsuba`).
    const NAME: &'static str;
    /// Whether no branch and no memory index depends on H or the data.
    const CONSTANT_TIME: bool;
    /// Key-dependent bytes held; key-independent tables are not counted.
    const STORAGE_BYTES: usize;

    /// Precomputes whatever the strategy needs from H (the block E(K, 0^128)).
    fn new(h: &Block) -> Self;

    /// X · H for one element in aekit's order (`field`).
    fn mul(&self, x: u128) -> u128;

    /// Y ← (Y ⊕ X_i) · H over `bytes` of any length, the last partial block
    /// zero-padded (the 0^v of the spec's GHASH definition).
    fn update_padded(&self, y: &mut Block, bytes: &[u8]) {
        let mut acc = field::from_block(y);
        let mut chunks = bytes.chunks_exact(16);
        for chunk in &mut chunks {
            let mut x = [0u8; 16];
            x.copy_from_slice(chunk);
            acc = self.mul(acc ^ field::from_block(&x));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut x = [0u8; 16];
            x[..rest.len()].copy_from_slice(rest);
            acc = self.mul(acc ^ field::from_block(&x));
        }
        *y = field::to_block(acc);
    }
}
