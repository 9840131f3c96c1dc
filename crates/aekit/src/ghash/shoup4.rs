//! `shoup4`: X · H by Shoup's method with 4-bit tables — GCM spec §4.1, the
//! smallest variant it lists ("M_0 and R consume 256 bytes and 64 bytes"):
//! Algorithm 2 with nibbles in place of bytes.
//!
//! Method. With X = ⊕_j x_j · P^{4j} (x_j = bits X_{4j}..X_{4j+3}, standing
//! in the first nibble),
//!
//! ```text
//! X · H = ⊕_{j=0}^{31} (x_j · H) · P^{4j}
//!       = ((…(M_0[x_31] · P^4 ⊕ M_0[x_30]) · P^4 ⊕ …) · P^4 ⊕ M_0[x_0]
//! ```
//!
//! with M_0\[v\] = v · H. In aekit's order (see [`field`])
//! Z · P^4 = (Z >> 4) ⊕ R\[Z mod 16\]: a right shift by four bits plus the
//! reduction of the nibble shifted out, R\[a\] = a · P^4.
//!
//! Table layout: `m[v]` = v · H (v = nibble value, placed at X_0..X_3) as a
//! `u128` in aekit's order: 16 × 16 B = 256 B per key. R is a `const` of
//! 16 entries of which only the top 16 bits can be nonzero, kept as `u16`
//! (32 B; the spec counts 64 B, 32-bit words); it does not depend on the
//! key and is not counted in `STORAGE_BYTES`.
//!
//! Construction (spec Algorithm 3 for w = 4, blog §5.2 for M_0):
//! M_0\[8\] = H, M_0\[4\] = H · P, M_0\[2\] = H · P^2, M_0\[1\] = H · P^3
//! by `mul_p`, and the other 11 entries by one XOR each.
//!
//! Per block: 32 loads from M_0, and 31 × (shift, load from R, two XORs) —
//! twice the steps of `shoup8` for a sixteenth of its table.
//!
//! The table, its construction and the product are aekit-core's
//! (`aekit_core::ghash::Shoup4`, the seed's strategy on Cortex-M); this
//! file puts them behind aekit's [`GhashKey`].
//!
//! Not constant-time: M_0 is indexed by the nibbles of Y ⊕ X_i and R by
//! nibbles of the running product, and M_0 depends on H. The tables are
//! small (256 B + 32 B, a few cache lines), which narrows the cache channel
//! but does not close it.

use aekit_core::ghash::GhashKey as _;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::Block;
use crate::ghash::{GhashKey, field};

/// The core's strategy, under its own name there.
type Core = aekit_core::ghash::Shoup4;

/// GHASH key as Shoup's 4-bit table M_0.
#[derive(Zeroize)]
pub struct Shoup4(Core);

/// The table is wiped when the core's key it holds drops.
impl ZeroizeOnDrop for Shoup4 {}

impl GhashKey for Shoup4 {
    const NAME: &'static str = "shoup4";
    const CONSTANT_TIME: bool = false;
    const STORAGE_BYTES: usize = <Core as aekit_core::ghash::GhashKey>::STORAGE_BYTES;

    fn new(h: &Block) -> Option<Self> {
        Some(Shoup4(Core::new(h)))
    }

    fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
        field::ghash_with(y, blocks, |x| self.0.mul(x));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_match_algorithm_1() {
        let h = 0xb83b_5337_08bf_535d_0aa6_e529_80d5_3b78u128;
        let key = Shoup4::new(&field::to_block(h)).unwrap();
        let xs = (0..16u128).map(|v| v << 124); // M_0[v], one entry each
        for x in xs.chain([0x0388_dace_60b6_a392_f328_c2b9_71b2_fe78, u128::MAX]) {
            let mut y = [0u8; 16];
            key.update_blocks(&mut y, &field::to_block(x));
            assert_eq!(field::from_block(&y), field::mul(x, h), "{x:#x}");
        }
    }
}
