//! `shoup8`: X · H by Shoup's method with 8-bit tables — GCM spec §4.1,
//! Algorithm 2: one key-dependent table M_0 of 256 entries and one fixed
//! reduction table R, Horner's rule over the 16 bytes of X.
//!
//! Method. With X = ⊕_i x_i · P^{8i} (spec eq. 7, x_i = byte(X, i) standing
//! in the first byte),
//!
//! ```text
//! X · H = ⊕_{i=0}^{15} (x_i · H) · P^{8i}
//!       = ((…(M_0[x_15] · P^8 ⊕ M_0[x_14]) · P^8 ⊕ …) · P^8 ⊕ M_0[x_0]
//! ```
//!
//! with M_0\[v\] = v · H. Multiplying Z by P^8 (spec eq. 9) is, in aekit's
//! order (see [`field`]), a right shift by eight bits plus the
//! reduction of the byte shifted out: Z · P^8 = (Z >> 8) ⊕ R\[byte(Z, 15)\],
//! R\[a\] = a · P^8 for a in the last byte. Algorithm 2 as printed reads
//! `A ← byte(X, 15)`; the byte to reduce is that of Z, which is what this
//! file does (and what the spec's own derivation, eq. 9, requires).
//!
//! Table layout: `m[v]` = v · H (v = byte value, placed at X_0..X_7) as a
//! `u128` in aekit's order: 256 × 16 B = 4 KiB per key. R is a `const`
//! computed at compile time by `field::reduction_table`, 256 entries of
//! which only the top 16 bits can be nonzero, kept as `u16` (512 B; the
//! spec's 1,024 B stores them as 32-bit words); it does not depend on the
//! key and is not counted in `STORAGE_BYTES`.
//!
//! Construction (spec Algorithm 3), by `field::fill_table`: M_0\[128\] = H,
//! M_0\[64\] = H · P, …, M_0\[1\] = H · P^7 by 8 `mul_p` (the eighth, H · P^8,
//! unused), and the other 247 entries by one XOR each.
//!
//! Per block: 16 loads from M_0, and 15 × (shift, load from R, two XORs).
//!
//! Not constant-time: M_0 is indexed by the bytes of Y ⊕ X_i and R by bytes
//! of the running product, and the table contents depend on H; cache timing
//! can reveal both.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::Block;
use crate::ghash::{GhashKey, field};

/// R\[a\] = a · P^8 (a in the last byte), top 16 bits; Algorithm 2's R.
const R8: [u16; 256] = field::reduction_table::<256>();

/// GHASH key as Shoup's 8-bit table M_0.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Shoup8 {
    /// `m[v]` = (byte v at position 0) · H.
    m: [u128; 256],
}

impl GhashKey for Shoup8 {
    const NAME: &'static str = "shoup8";
    const CONSTANT_TIME: bool = false;
    const STORAGE_BYTES: usize = 256 * 16;

    fn new(h: &Block) -> Option<Self> {
        let mut m = [0u128; 256];
        field::fill_table(&mut m, field::from_block(h));
        Some(Shoup8 { m })
    }

    fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
        field::ghash_with(y, blocks, |x| self.mul(x));
    }
}

impl Shoup8 {
    /// Algorithm 2: Horner from byte 15 down to byte 0.
    #[inline(always)]
    fn mul(&self, mut x: u128) -> u128 {
        let mut z = 0u128;
        for _ in 0..15 {
            z ^= self.m[(x as u8) as usize]; // Z ⊕ M_0[byte(X, i)], i = 15 … 1
            x >>= 8;
            let a = z as u8; // byte(Z, 15), shifted out below
            z = (z >> 8) ^ ((R8[a as usize] as u128) << 112); // Z · P^8
        }
        z ^ self.m[(x as u8) as usize] // ⊕ M_0[byte(X, 0)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_entries_and_one_product() {
        let h = 0xb83b_5337_08bf_535d_0aa6_e529_80d5_3b78u128;
        let key = Shoup8::new(&field::to_block(h)).unwrap();
        for (v, &entry) in key.m.iter().enumerate() {
            assert_eq!(entry, field::mul((v as u128) << 120, h), "M_0[{v:#x}]");
        }
        let x = 0x0388_dace_60b6_a392_f328_c2b9_71b2_fe78u128;
        assert_eq!(key.mul(x), field::mul(x, h));
    }
}
