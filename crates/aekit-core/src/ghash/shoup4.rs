//! `shoup4`: X · H by Shoup's method with 4-bit tables — GCM spec §4.1,
//! Algorithm 2 with nibbles in place of bytes, the seed's 256-byte table.
//!
//! With X = ⊕_j x_j · P^{4j} (x_j the nibble X_{4j}..X_{4j+3}),
//!
//! ```text
//! X · H = ((…(M_0[x_31] · P^4 ⊕ M_0[x_30]) · P^4 ⊕ …) · P^4 ⊕ M_0[x_0]
//! ```
//!
//! with M_0\[v\] = v · H and Z · P^4 = (Z >> 4) ⊕ R\[Z mod 16\] (`field`).
//! M_0 is 16 × 16 B = 256 B per key (spec Algorithm 3: four `mul_p` and
//! eleven XORs), zeroized on drop; R is a compile-time `const` of 16
//! `u16` (32 B), key-independent.
//!
//! Per block: 32 loads from M_0 and 31 × (shift, load from R, two XORs).
//!
//! **Not constant-time**: M_0 is indexed by nibbles of Y ⊕ X_i and R by
//! nibbles of the running product, as in the seed. On a Cortex-M4 without
//! a data cache a load from SRAM takes the same time at every address,
//! which narrows the channel to the memory system's wait states (flash
//! accelerators, bus contention); it does not close it on cores with
//! caches. [`Karatsuba`](super::Karatsuba) is the constant-time strategy.

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{GhashKey, field};
use crate::aes::Block;

/// R\[a\] = a · P^4, top 16 bits.
const R4: [u16; 16] = field::reduction_table::<16>();

/// GHASH key as Shoup's 4-bit table M_0.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Shoup4 {
    /// `m[v]` = (nibble v at position 0) · H.
    m: [u128; 16],
}

impl GhashKey for Shoup4 {
    const NAME: &'static str = "shoup4";
    const CONSTANT_TIME: bool = false;
    const STORAGE_BYTES: usize = 16 * 16;

    fn new(h: &Block) -> Self {
        let mut m = [0u128; 16];
        // H · P^4, the top of a next table that this one has no use for.
        let mut next = field::fill_table(&mut m, field::from_block(h));
        next.zeroize();
        Shoup4 { m }
    }

    /// Horner from nibble 31 down to nibble 0.
    #[inline(always)]
    fn mul(&self, mut x: u128) -> u128 {
        let mut z = 0u128;
        for _ in 0..31 {
            z ^= self.m[(x & 0xf) as usize];
            x >>= 4;
            let a = (z & 0xf) as usize;
            z = (z >> 4) ^ ((R4[a] as u128) << 112);
        }
        z ^ self.m[(x & 0xf) as usize]
    }
}
