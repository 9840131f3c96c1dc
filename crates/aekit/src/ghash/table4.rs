//! `table4`: X · H from 32 tables of 16 entries, one table per nibble of X —
//! the "simple, 4-bit tables" of GCM spec §4.1 (the 8,192-byte variant of
//! equation 8), built as in the table blog §5.2.
//!
//! Method. Cut X into 32 nibbles x_0 … x_31, x_j = X_{4j} … X_{4j+3} (x_0 is
//! the top nibble of byte 0). X = ⊕_j x_j · P^{4j} with each x_j standing in
//! the first four bits, so by linearity
//!
//! ```text
//! X · H = ⊕_{j=0}^{31} M_j[x_j],   M_j[v] = v · H · P^{4j}
//! ```
//!
//! where v · H means the nibble v placed at bits X_0..X_3 times H.
//!
//! Table layout: `m[j][v]` (j = nibble position 0..31, v = nibble value) as
//! a `u128` in aekit's order; 32 × 16 × 16 B = 8 KiB per key.
//!
//! Construction (spec Algorithm 3 extended to every table, blog §5.2), by
//! `field::fill_table`: the single-bit entries M_j\[8\], M_j\[4\], M_j\[2\],
//! M_j\[1\] are H · P^{4j}, …, H · P^{4j+3}, one chain of `mul_p` running
//! from M_0\[8\] = H through all 32 tables (M_{j+1}\[8\] = M_j\[1\] · P) —
//! 128 `mul_p`, the last one (H · P^128) unused; every other entry is
//! the XOR of two already computed (M\[i + k\] = M\[i\] ⊕ M\[k\]), 11 XORs a
//! table, 352 in all. No table is derived from another by a P^4 reduction:
//! the `mul_p` chain is 4 per table against 16 shift-and-reduce per table.
//!
//! Per block: 32 table loads and 31 XORs.
//!
//! Not constant-time: the load address depends on each nibble of Y ⊕ X_i,
//! which cache timing can reveal, and the table contents depend on H.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::Block;
use crate::ghash::{GhashKey, field};

/// GHASH key as the 32 nibble tables M_0..M_31.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Table4 {
    /// `m[j][v]` = (nibble v at position j) · H.
    m: [[u128; 16]; 32],
}

impl GhashKey for Table4 {
    const NAME: &'static str = "table4";
    const CONSTANT_TIME: bool = false;
    const STORAGE_BYTES: usize = 32 * 16 * 16;

    fn new(h: &Block) -> Option<Self> {
        let mut m = [[0u128; 16]; 32];
        let mut top = field::from_block(h); // H · P^{4j}
        for table in m.iter_mut() {
            top = field::fill_table(table, top);
        }
        Some(Table4 { m })
    }

    fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
        field::ghash_with(y, blocks, |x| self.mul(x));
    }
}

impl Table4 {
    /// X · H = ⊕_j M_j\[x_j\], taking nibbles from the top of X.
    #[inline(always)]
    fn mul(&self, mut x: u128) -> u128 {
        let mut z = 0u128;
        for table in self.m.iter() {
            z ^= table[(x >> 124) as usize]; // x_j: the top nibble
            x <<= 4;
        }
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_nibbles_times_h() {
        let h = 0xb83b_5337_08bf_535d_0aa6_e529_80d5_3b78u128;
        let key = Table4::new(&field::to_block(h)).unwrap();
        for (j, table) in key.m.iter().enumerate() {
            for (v, &entry) in table.iter().enumerate() {
                let x = (v as u128) << (124 - 4 * j);
                assert_eq!(entry, field::mul(x, h), "M_{j}[{v}]");
            }
        }
    }
}
