//! `ctmul`: X · H in GF(2^64) (GCM spec Appendix A) by one constant-time
//! carry-less 64 × 64 multiplication and a shift-and-XOR reduction.
//!
//! # The product
//!
//! The 127-bit carry-less product comes from `ghash::karatsuba`'s
//! `clmul64`: sixteen integer multiplications of operands with holes of
//! three zero bits (BearSSL's `bmul`), so no carry ever crosses a
//! coefficient. One 64-bit product is all GF(2^64) needs; Karatsuba has
//! nothing to split.
//!
//! # Bit reflection
//!
//! An element is a `u64` read big-endian (see [`bitserial`]): the
//! coefficient of α^k sits at integer bit 63 − k, so the integer is the
//! bit-reversal of the polynomial. The carry-less product of two such
//! integers has α^k at bit 126 − k; shifted left by one, α^k is at bit
//! 127 − k of the u128. Its high 64 bits are then α^0..α^63 in the element
//! layout, and its low 64 bits `lo` are α^64..α^127 with α^(64+j) at bit
//! 63 − j: `lo` read as an element L is the quotient by α^64.
//!
//! # Reduction modulo α^64 + α^4 + α^3 + α + 1
//!
//! α^64 ≡ 1 + α + α^3 + α^4, so L · α^64 ≡ L ⊕ L·α ⊕ L·α^3 ⊕ L·α^4, and
//! multiplying by α^s is a right shift by s here. The s bits each shift
//! pushes out of the bottom are α^64.. again; they are, as an element,
//! `O = lo≪63 ⊕ lo≪61 ⊕ lo≪60`, of degree at most 3, and O times
//! 1 + α + α^3 + α^4 (degree at most 7) folds without overflow. Both folds
//! at once:
//!
//! ```text
//! T = lo ⊕ lo≪63 ⊕ lo≪61 ⊕ lo≪60,    X·H = hi ⊕ T ⊕ T≫1 ⊕ T≫3 ⊕ T≫4,
//! ```
//!
//! the 64-bit form of the reduction `ghash::karatsuba` uses for GF(2^128).
//!
//! Storage: H, 8 bytes. Per block: 16 widening multiplications and about
//! 60 AND/XOR/shift instructions. Constant-time under the same condition
//! as `karatsuba`: integer multiplication takes the same time for all
//! operands (x86-64, 64-bit ARM application cores).
//!
//! Rejected: PCLMULQDQ (an intrinsics module and a capability token for a
//! mode whose cipher, TDEA, costs far more per block than this
//! multiplication) and Shoup's 4-bit tables (not constant-time, for the
//! same non-gain).
//!
//! [`bitserial`]: super::bitserial

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::ghash64::Ghash64Key;
use crate::ghash::karatsuba::clmul64;

/// X · H in GF(2^64), both in the element layout.
#[inline(always)]
pub fn mul(x: u64, h: u64) -> u64 {
    let product = clmul64(x, h) << 1; // α^k at bit 127 − k
    let (hi, lo) = ((product >> 64) as u64, product as u64);
    let t = lo ^ (lo << 63) ^ (lo << 61) ^ (lo << 60);
    hi ^ t ^ (t >> 1) ^ (t >> 3) ^ (t >> 4)
}

/// GHASH64 key for the carry-less multiplication: H alone.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Ctmul {
    h: u64,
}

impl Ghash64Key for Ctmul {
    const NAME: &'static str = "ctmul";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = 8;

    fn new(h: u64) -> Ctmul {
        Ctmul { h }
    }

    fn mul_h(&self, x: u64) -> u64 {
        mul(x, self.h)
    }
}

#[cfg(test)]
mod tests {
    use super::super::bitserial;
    use super::*;

    /// The cases where the reduction works hardest: the top coefficients
    /// set (α^63 · α^63 = α^126), all ones, single bits.
    #[test]
    fn matches_algorithm_1_on_edge_elements() {
        let mut edge = vec![0u64, 1, u64::MAX, 1 << 63, bitserial::R, 0xf, 0xf << 60];
        edge.extend((0..64).map(|i| 1u64 << i));
        for &a in &edge {
            for &b in &edge {
                assert_eq!(mul(a, b), bitserial::mul(a, b), "{a:#x} · {b:#x}");
            }
        }
    }
}
