//! `karatsuba`: constant-time GHASH from 32-bit integer multiplications,
//! in the manner of T. Pornin's BearSSL `ghash_ctmul32`: products with
//! holes, high halves by bit reversal, Karatsuba twice. No table, no
//! branch and no memory index depends on H or the data.
//!
//! # Carry-less 32 × 32 from integer multiplication
//!
//! Keep one bit in four of each operand (x_p = x ∧ 0x11111111·2^p): every
//! set bit of x_p × y_q falls on a position ≡ p + q (mod 4), and there the
//! integer sum counts the pairs (i, j) with i + j = k — at most 8, which
//! fits in the 4-bit digit without reaching the next one. The lowest bit of
//! each digit is the count mod 2, the carry-less coefficient:
//!
//! ```text
//! z_r = ⊕_{p+q ≡ r (mod 4)} x_p × y_q (mod 2^32),   x ⊗ y mod 2^32 = ⊕_r z_r ∧ 0x11111111·2^r
//! ```
//!
//! sixteen `MUL`s (32 × 32 → 32) for the low half (`bmul32`). The high half
//! comes from the bit-reversed operands, rev(x) ⊗ rev(y) = rev₆₃(x ⊗ y):
//! high32(x ⊗ y) = rev(bmul32(rev x, rev y)) ≫ 1 (`RBIT` on ARMv7-M). Only
//! `MUL` is used because it is constant-time on every Cortex-M3/M4;
//! `UMULL` (32 × 32 → 64) exits early on the Cortex-M3 and is avoided.
//!
//! # Karatsuba, twice
//!
//! A 64 × 64 product is three 32 × 32 ones, a 128 × 128 product three
//! 64 × 64 ones:
//!
//! ```text
//! X ⊗ H = x1⊗h1·t^128 ⊕ [(x1⊕x0)⊗(h1⊕h0) ⊕ x1⊗h1 ⊕ x0⊗h0]·t^64 ⊕ x0⊗h0,
//! ```
//!
//! nine 32 × 32 products, 18 `bmul32`, 288 `MUL` per block (BearSSL's
//! count).
//!
//! # Bit reflection and reduction
//!
//! aekit's element is the big-endian integer, the coefficient of x^k at
//! bit 127 − k (`field`), i.e. bit-reflected; the arithmetic stays in that
//! domain. The integer carry-less product of two reflected values holds
//! x^k at bit 254 − k; one left shift of the 256-bit product makes the high
//! 128 bits x^0..x^127 in aekit's order and the low 128 bits `lo` hold
//! x^{128+j} at bit 127 − j. With x^128 ≡ 1 + x + x^2 + x^7 (a right shift
//! by s multiplies by x^s here) the fold, including the bits it pushes out
//! of the bottom, is
//!
//! ```text
//! T = lo ⊕ lo≪127 ⊕ lo≪126 ⊕ lo≪121,    X·H = hi ⊕ T ⊕ T≫1 ⊕ T≫2 ⊕ T≫7
//! ```
//!
//! (Gueron & Kounavis' shift reduction, `field::reduce_reflected`, which
//! aekit's `karatsuba` runs too).
//!
//! # Storage, constant time
//!
//! H's four words and their bit reversals: 32 bytes, zeroized on drop.
//! Every operation is a `MUL`, `RBIT`, AND, XOR or shift by a constant.
//!
//! # Tried and rejected
//!
//! - *`UMULL` for both halves at once* (aekit's 64-bit approach scaled
//!   down): half the multiplications, but variable-time on the Cortex-M3,
//!   one of the two targets.
//! - *Schoolbook 128 × 128* (16 products): 32 `bmul32` instead of 18.

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{GhashKey, field};
use crate::aes::Block;

/// GHASH key for the 32-bit Karatsuba strategy.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Karatsuba {
    /// H as four words, `h[0]` the least significant of aekit's integer.
    h: [u32; 4],
    /// The bit reversal of each word of `h`.
    h_rev: [u32; 4],
}

/// Low 32 bits of the carry-less product x ⊗ y, by multiplications with
/// holes.
#[inline(always)]
fn bmul32(x: u32, y: u32) -> u32 {
    const M0: u32 = 0x1111_1111;
    const M1: u32 = 0x2222_2222;
    const M2: u32 = 0x4444_4444;
    const M3: u32 = 0x8888_8888;
    let (x0, x1, x2, x3) = (x & M0, x & M1, x & M2, x & M3);
    let (y0, y1, y2, y3) = (y & M0, y & M1, y & M2, y & M3);
    let m = u32::wrapping_mul;
    let z0 = m(x0, y0) ^ m(x1, y3) ^ m(x2, y2) ^ m(x3, y1);
    let z1 = m(x0, y1) ^ m(x1, y0) ^ m(x2, y3) ^ m(x3, y2);
    let z2 = m(x0, y2) ^ m(x1, y1) ^ m(x2, y0) ^ m(x3, y3);
    let z3 = m(x0, y3) ^ m(x1, y2) ^ m(x2, y1) ^ m(x3, y0);
    (z0 & M0) | (z1 & M1) | (z2 & M2) | (z3 & M3)
}

/// The 63-bit carry-less product x ⊗ y, given the operands and their bit
/// reversals.
#[inline(always)]
fn clmul32(x: u32, y: u32, x_rev: u32, y_rev: u32) -> u64 {
    let lo = bmul32(x, y);
    let hi = bmul32(x_rev, y_rev).reverse_bits() >> 1;
    (u64::from(hi) << 32) | u64::from(lo)
}

/// The 127-bit carry-less product of (x1:x0) and (y1:y0) by Karatsuba;
/// `*_rev` are the words' bit reversals. Out of line: three calls per
/// block, one copy of its six `bmul32` instead of eighteen inlined.
#[inline(never)]
fn clmul64(x: [u32; 2], y: [u32; 2], x_rev: [u32; 2], y_rev: [u32; 2]) -> u128 {
    let p0 = clmul32(x[0], y[0], x_rev[0], y_rev[0]);
    let p2 = clmul32(x[1], y[1], x_rev[1], y_rev[1]);
    let pm = clmul32(
        x[0] ^ x[1],
        y[0] ^ y[1],
        x_rev[0] ^ x_rev[1],
        y_rev[0] ^ y_rev[1],
    ) ^ p0
        ^ p2;
    (u128::from(p2) << 64) ^ (u128::from(pm) << 32) ^ u128::from(p0)
}

/// The four words of an element, least significant first.
#[inline(always)]
fn words(x: u128) -> [u32; 4] {
    [
        x as u32,
        (x >> 32) as u32,
        (x >> 64) as u32,
        (x >> 96) as u32,
    ]
}

impl GhashKey for Karatsuba {
    const NAME: &'static str = "karatsuba";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = 32;

    fn new(h: &Block) -> Self {
        let h = words(field::from_block(h));
        Karatsuba {
            h,
            h_rev: h.map(u32::reverse_bits),
        }
    }

    fn mul(&self, x: u128) -> u128 {
        let x = words(x);
        let xr = x.map(u32::reverse_bits);
        let (h, hr) = (&self.h, &self.h_rev);
        let p0 = clmul64([x[0], x[1]], [h[0], h[1]], [xr[0], xr[1]], [hr[0], hr[1]]);
        let p2 = clmul64([x[2], x[3]], [h[2], h[3]], [xr[2], xr[3]], [hr[2], hr[3]]);
        let pm = clmul64(
            [x[0] ^ x[2], x[1] ^ x[3]],
            [h[0] ^ h[2], h[1] ^ h[3]],
            [xr[0] ^ xr[2], xr[1] ^ xr[3]],
            [hr[0] ^ hr[2], hr[1] ^ hr[3]],
        ) ^ p0
            ^ p2;
        // The 255-bit product, reduced (header).
        field::reduce_reflected(p2 ^ (pm >> 64), p0 ^ (pm << 64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bmul32_is_carry_less() {
        let mut s = 0x1234_5678u32;
        for _ in 0..2000 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let x = s;
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let y = s;
            let mut want = 0u64;
            for i in 0..32 {
                if (y >> i) & 1 == 1 {
                    want ^= u64::from(x) << i;
                }
            }
            let got = clmul32(x, y, x.reverse_bits(), y.reverse_bits());
            assert_eq!(got, want, "{x:#x} ⊗ {y:#x}");
        }
        assert_eq!(clmul32(!0, !0, !0, !0), 0x5555_5555_5555_5555);
    }

    #[test]
    fn products_match_algorithm_1() {
        let mut s = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128;
        for _ in 0..300 {
            s = s.wrapping_mul(0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645) ^ (s >> 61);
            let h = s;
            s = s.wrapping_mul(0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645) ^ (s >> 59);
            let x = s;
            let key = Karatsuba::new(&field::to_block(h));
            assert_eq!(key.mul(x), field::mul(x, h));
            let table = super::super::Shoup4::new(&field::to_block(h));
            assert_eq!(table.mul(x), field::mul(x, h));
        }
        for (x, h) in [(0, 1), (1 << 127, 5), (!0, !0), (1, 1), (1, 1 << 127)] {
            let key = Karatsuba::new(&field::to_block(h));
            assert_eq!(key.mul(x), field::mul(x, h));
        }
    }
}
