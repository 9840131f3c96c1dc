//! `bitserial`: X · H by Algorithm 1 of the GCM spec (§2.5), one bit of X at
//! a time, with no tables.
//!
//! Method. With X = X_0 X_1 … X_127 (X_0 the coefficient of α^0, see
//! [`field`]),
//!
//! ```text
//! X · H = ⊕_{i=0}^{127} X_i · (H · P^i)
//! ```
//!
//! so V runs through H, H·P, H·P^2, … by [`field::mul_p`] (right shift by
//! one, XOR R = 0xE1 ‖ 0^120 when the bit shifted out was set), and Z
//! accumulates V wherever X_i = 1. Here X is consumed from its top: each step
//! takes the most significant bit (X_i) and shifts X left by one, an
//! equivalent of the spec's indexing that the oracle [`field::mul`] writes
//! the other way, so the test suite compares two formulations.
//!
//! Storage: H only, 16 bytes. Construction: nothing. Per block: 128 steps of
//! one `mul_p` (shift, AND, negate, XOR) plus mask-and-XOR into Z.
//!
//! Constant-time: yes. X_i becomes an all-zeros or all-ones mask
//! (`wrapping_neg`) and Z ^= V & mask; the reduction in `mul_p` is masked
//! the same way. No branch and no memory index depends on H or the data.
//! The price is speed: the spec's Table 1 has this at about 9× the cost of
//! the 8-bit tables.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::Block;
use crate::ghash::{GhashKey, field};

/// GHASH key for Algorithm 1: just H.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct BitSerial {
    /// H as a field element.
    h: u128,
}

impl GhashKey for BitSerial {
    const NAME: &'static str = "bitserial";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = 16;

    fn new(h: &Block) -> Option<Self> {
        Some(BitSerial {
            h: field::from_block(h),
        })
    }

    fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
        field::ghash_with(y, blocks, |x| self.mul(x));
    }
}

impl BitSerial {
    /// X · H: Z ← Z ⊕ (H · P^i masked by X_i), for i = 0..127.
    #[inline(always)]
    fn mul(&self, mut x: u128) -> u128 {
        let mut v = self.h; // H · P^i
        let mut z = 0u128;
        for _ in 0..128 {
            let mask = (x >> 127).wrapping_neg(); // all ones when X_i = 1
            z ^= v & mask;
            v = field::mul_p(v);
            x <<= 1;
        }
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiplies_like_algorithm_1() {
        let h = field::to_block(0x66e9_4bd4_ef8a_2c3b_884c_fa59_ca34_2b2e);
        let key = BitSerial::new(&h).unwrap();
        let x = 0x0388_dace_60b6_a392_f328_c2b9_71b2_fe78u128;
        let mut y = [0u8; 16];
        key.update_blocks(&mut y, &field::to_block(x));
        assert_eq!(field::from_block(&y), field::mul(x, field::from_block(&h)));
    }
}
