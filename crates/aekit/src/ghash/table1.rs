//! `table1`: X · H from a table of the 128 products H · P^i, one per bit of
//! X — the "1-bit table" of the table blog (§4.3, built in §5.3), which the
//! GCM spec does not list.
//!
//! Method. X · H = ⊕_{i=0}^{127} X_i · M\[i\] with M\[i\] = H · P^i
//! (X_i the coefficient of α^i, bit 127 − i of the `u128`; see
//! [`field`]). This is Algorithm 1 with the chain
//! V ← V · P read from memory instead of recomputed for every block.
//!
//! Table layout: `m[i]` = H · P^i as a `u128` in aekit's order, i = 0..127;
//! 128 × 16 B = 2 KiB per key. Construction: M\[0\] = H and M\[i\] =
//! M\[i−1\] · P, 127 [`field::mul_p`] and no other work.
//!
//! Per block: 128 × (load an entry, AND with the mask of X_i, XOR into Z).
//! Unlike `bitserial` there is no `mul_p` chain carried from step to step:
//! only the XOR into Z.
//!
//! Constant-time: yes, by choice. The blog adds M\[i\] only when X_i = 1 (a
//! branch on every data bit, which also mispredicts half the time on random
//! data); here every entry is loaded, in the same order for every X, and X_i
//! only selects through an all-ones/all-zeros mask. No branch and no memory
//! index depends on H or the data. Not taken: visiting only the set bits
//! (`trailing_zeros`, clear the lowest bit) — data-dependent, and random
//! data still has 64 of them on average.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::Block;
use crate::ghash::{GhashKey, field};

/// GHASH key as the 128 products H · P^i.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Table1 {
    /// `m[i]` = H · P^i.
    m: [u128; 128],
}

impl GhashKey for Table1 {
    const NAME: &'static str = "table1";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = 128 * 16;

    fn new(h: &Block) -> Option<Self> {
        let mut m = [0u128; 128];
        let mut v = field::from_block(h);
        m[0] = v;
        for entry in m.iter_mut().skip(1) {
            v = field::mul_p(v); // H · P^i = (H · P^(i−1)) · P
            *entry = v;
        }
        Some(Table1 { m })
    }

    fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
        field::ghash_with(y, blocks, |x| self.mul(x));
    }
}

impl Table1 {
    /// X · H = ⊕ (M\[i\] masked by X_i).
    #[inline(always)]
    fn mul(&self, x: u128) -> u128 {
        let mut z = 0u128;
        for (i, entry) in self.m.iter().enumerate() {
            // All ones when X_i = 1. The bit passes through `black_box` so that the
            // optimizer cannot turn the masked XOR back into a branch on X_i
            // (it does, at opt-level 3: the constant-time check caught it).
            let mask = core::hint::black_box((x >> (127 - i)) & 1).wrapping_neg();
            z ^= entry & mask;
        }
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_h_times_p_to_the_i() {
        let h = 0xb83b_5337_08bf_535d_0aa6_e529_80d5_3b78u128;
        let key = Table1::new(&field::to_block(h)).unwrap();
        for (i, &entry) in key.m.iter().enumerate() {
            assert_eq!(entry, field::mul(1 << (127 - i), h), "M[{i}]");
        }
        // A composite X: the product is the XOR of its bits' entries.
        let x = 0x8000_0000_0000_0000_0000_0000_0000_0301u128;
        assert_eq!(key.mul(x), field::mul(x, h));
    }
}
