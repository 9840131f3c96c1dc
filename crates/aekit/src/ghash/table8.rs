//! `table8`: X · H from 16 tables of 256 entries, one table per byte of X —
//! the "simple, 8-bit tables" of GCM spec §4.1, equations 6–8, built as in
//! the table blog §5.1.
//!
//! Method. Cut X into bytes x_0 … x_15 (x_0 = byte 0, bits X_0..X_7).
//! X = ⊕_i x_i · P^{8i} with each x_i standing in the first byte (spec eq. 7),
//! so
//!
//! ```text
//! X · H = ⊕_{i=0}^{15} M_i[byte(X, i)],   M_i[v] = v · H · P^{8i}   (eq. 8)
//! ```
//!
//! Table layout: `m[i][v]` (i = byte position 0..15, v = byte value) as a
//! `u128` in aekit's order; 16 × 256 × 16 B = 64 KiB per key. The tables are
//! a boxed slice built in place on the heap, so the 64 KiB of key material
//! is neither built on the stack nor left there by moves, and the heap copy
//! is what zeroize clears.
//!
//! Construction (spec Algorithm 3 extended to every table, blog §5.1), by
//! `field::fill_table`: the single-bit entries M_i\[128\], …, M_i\[1\] are
//! H · P^{8i}, …, H · P^{8i+7}, one chain of `mul_p` running from
//! M_0\[128\] = H through all 16 tables (M_{i+1}\[128\] = M_i\[1\] · P) —
//! 128 `mul_p`, the last one (H · P^128) unused; every other entry is the
//! XOR of two already computed, 247 XORs a table (the spec's count), 3,952
//! in all. The spec's M_i\[x\] = M_0\[x\] · P^{8i} is not used entry by
//! entry: a P^8 shift-and-reduce for each of 256 entries costs more than
//! 8 `mul_p` and 247 XORs.
//!
//! Per block: 16 table loads and 15 XORs — the fewest operations of the
//! table methods, at the largest footprint (64 KiB, larger than many L1
//! caches).
//!
//! Not constant-time: the load address depends on each byte of Y ⊕ X_i,
//! which cache timing can reveal, and the table contents depend on H.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::Block;
use crate::ghash::{GhashKey, field};

/// GHASH key as the 16 byte tables M_0..M_15.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Table8 {
    /// `m[i][v]` = (byte v at position i) · H; 16 tables.
    m: Box<[[u128; 256]]>,
}

impl GhashKey for Table8 {
    const NAME: &'static str = "table8";
    const CONSTANT_TIME: bool = false;
    const STORAGE_BYTES: usize = 16 * 256 * 16;

    fn new(h: &Block) -> Option<Self> {
        let mut m = vec![[0u128; 256]; 16].into_boxed_slice();
        let mut top = field::from_block(h); // H · P^{8i}
        for table in m.iter_mut() {
            top = field::fill_table(table, top);
        }
        Some(Table8 { m })
    }

    fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
        field::ghash_with(y, blocks, |x| self.mul(x));
    }
}

impl Table8 {
    /// X · H = ⊕_i M_i\[byte(X, i)\], taking bytes from the top of X.
    #[inline(always)]
    fn mul(&self, mut x: u128) -> u128 {
        let mut z = 0u128;
        for table in self.m.iter() {
            z ^= table[(x >> 120) as usize]; // byte(X, i): the top byte
            x <<= 8;
        }
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_bytes_times_h() {
        let h = 0xb83b_5337_08bf_535d_0aa6_e529_80d5_3b78u128;
        let key = Table8::new(&field::to_block(h)).unwrap();
        assert_eq!(key.m.len(), 16);
        for (i, table) in key.m.iter().enumerate() {
            for v in [0usize, 1, 2, 0x80, 0xc0, 0x5a, 0xff] {
                let x = (v as u128) << (120 - 8 * i);
                assert_eq!(table[v], field::mul(x, h), "M_{i}[{v:#x}]");
            }
        }
    }
}
