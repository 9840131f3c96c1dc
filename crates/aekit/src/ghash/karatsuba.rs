//! `karatsuba`: constant-time GHASH in portable Rust. The product X · H is
//! a carry-less multiplication built from ordinary integer multiplications,
//! put together by Karatsuba and reduced with shifts and XORs. No table, no
//! branch and no memory index depends on H or the data.
//!
//! # Carry-less multiplication from integer multiplication
//!
//! A carry-less product a ⊗ b (polynomials over GF(2), bit i of the integer
//! = coefficient of t^i) differs from the integer product a × b only by the
//! carries. Keep one bit in four of each operand ("holes" of three zero
//! bits), as in BearSSL's `bmul` (T. Pornin, `ghash_ctmul64.c`): with
//! a_p = a ∧ 0x1111…·2^p and b_q likewise, every set bit of a_p × b_q falls
//! on a position ≡ p + q (mod 4), and at such a position the integer sum
//! counts the pairs (i, j), i + j = k. If every count stays below 16 the
//! counts are base-16 digits that never carry into one another, and the
//! lowest bit of each digit is the count mod 2: the carry-less coefficient.
//! So
//!
//! ```text
//! z_r = ⊕_{p+q ≡ r (mod 4)} a_p × b_q,    a ⊗ b = ⊕_r (z_r ∧ 0x1111…·2^r),
//! ```
//!
//! sixteen integer multiplications for one carry-less product.
//!
//! For 64-bit operands each a_p has up to 16 bits, so the count at t^63 can
//! reach 16 and carry into t^67. BearSSL multiplies u64 × u64 → low 64 bits
//! only, where that carry falls off the top, and gets the high half by
//! multiplying bit-reversed operands (rev(a) ⊗ rev(b) = rev(a ⊗ b) ≫ 1). Here
//! one `u64 × u64 → u128` multiplication (one `mul` on x86-64, `mul`+`umulh`
//! on AArch64) yields both halves at once, so the carry must not happen at
//! all: the low four bits of a are left out of a_0..a_3 (each then has at
//! most 15 bits, so every count is ≤ 15) and added back as four masked
//! shifted copies of b (the approach of BoringSSL's `gcm_nohw.c`).
//!
//! # Karatsuba
//!
//! With X = x1·t^64 + x0 and H = h1·t^64 + h0 (u64 halves),
//!
//! ```text
//! X ⊗ H = (x1⊗h1)·t^128 ⊕ [(x1⊕x0)⊗(h1⊕h0) ⊕ x1⊗h1 ⊕ x0⊗h0]·t^64 ⊕ x0⊗h0,
//! ```
//!
//! three 64 × 64 products instead of four.
//!
//! # Bit reflection
//!
//! aekit's element is `u128::from_be_bytes(block)`, with the coefficient of
//! x^k at integer bit 127 − k ([`field`]): the integer is the bit-reversal of
//! the polynomial. No reversal is done here; the arithmetic runs in the
//! reflected domain. The integer carry-less product of two reflected
//! 128-bit values is the reflected product in 255 bits: the coefficient of
//! x^k of A·H lands at bit 254 − k. One left shift of the 256-bit product
//! puts it at bit 255 − k, so the high 128 bits are x^0..x^127 in the
//! native layout and the low 128 bits `lo` hold x^128..x^255 (x^{128+j} at
//! bit 127 − j).
//!
//! # Reduction modulo x^128 + x^7 + x^2 + x + 1
//!
//! x^128 ≡ 1 + x + x^2 + x^7, so the upper half L = Σ l_j x^{128+j} folds to
//! L' · (1 + x + x^2 + x^7) with L' = Σ l_j x^j. In the reflected layout
//! multiplying by x^s is a right shift by s, so this is
//! `lo ⊕ lo≫1 ⊕ lo≫2 ⊕ lo≫7` — except for the bits shifted out of the
//! bottom, which are x^128..x^134 again. Those bits are
//! `O = lo≪127 ⊕ lo≪126 ⊕ lo≪121` (seven bits at the top of a u128), and O
//! times (1 + x + x^2 + x^7) has degree ≤ 13, so it folds without overflow.
//! Both folds together:
//!
//! ```text
//! T = lo ⊕ lo≪127 ⊕ lo≪126 ⊕ lo≪121,    X·H = hi ⊕ T ⊕ T≫1 ⊕ T≫2 ⊕ T≫7,
//! ```
//!
//! the shift-based reduction of Gueron & Kounavis, *Intel Carry-Less
//! Multiplication Instruction and its Usage for Computing the GCM Mode*
//! (there on 64-bit lanes; here on one u128). The shift and the fold are
//! aekit-core's `field::reduce_reflected`, which its 32-bit Karatsuba runs
//! too.
//!
//! # Storage, cost, constant time
//!
//! Storage: H, 16 bytes (h1 ⊕ h0 is one XOR per block and not stored).
//! Cost per block: 3 × 16 = 48 widening multiplications and about 200
//! AND/OR/XOR/shift instructions (masks, the XOR of the products, the
//! low-nibble fix-up, Karatsuba), of which about 20 are the reduction.
//!
//! Constant time: straight-line code; the only branches are on the public
//! length of the input. This rests on integer multiplication taking the same
//! time for all operands, which holds on x86-64 and on 64-bit ARM
//! application cores, but not on some small cores (ARM Cortex-M3, some
//! PowerPC) with early-terminating multipliers — see BearSSL's notes on
//! constant-time multiplication. On 32-bit targets the u128 product is
//! lowered to several 32-bit multiplications, still branch-free.
//!
//! # Rejected
//!
//! - BearSSL's bit-reversal for the high halves: six 64-bit `bmul`s (96
//!   multiplications) and six 64-bit reversals per block, against 48
//!   widening multiplications here.
//! - Holes of five bits, which avoid the count of 16 without the low-nibble
//!   fix-up: 25 multiplications per 64 × 64 product instead of 16.
//! - Schoolbook (four 64 × 64 products): 64 multiplications, to save the
//!   three XORs of Karatsuba.
//! - Storing the sixteen masked parts of H and of h1 ⊕ h0: saves 12 ANDs per
//!   block at 6× the key storage; the multiplications dominate.
//! - Aggregating blocks with stored powers of H (as `clmul` does): it saves
//!   only the 12-operation reduction, against 48 multiplications per block.
//!
//! [`field`]: crate::ghash::field

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::Block;
use crate::ghash::{GhashKey, field};

/// GHASH by constant-time carry-less multiplication on 64-bit words.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Karatsuba {
    /// H in the native layout of [`field`].
    h: u128,
}

impl GhashKey for Karatsuba {
    const NAME: &'static str = "karatsuba";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = 16;

    fn new(h: &Block) -> Option<Self> {
        Some(Karatsuba {
            h: field::from_block(h),
        })
    }

    fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
        let mut acc = field::from_block(y);
        for x in blocks.chunks_exact(16) {
            let x = u128::from_be_bytes(x.try_into().expect("a 16-byte chunk"));
            acc = mul(acc ^ x, self.h);
        }
        *y = field::to_block(acc);
    }
}

/// Bits 0, 4, 8, … of a u64: the positions of residue 0 mod 4.
const HOLES: u64 = 0x1111_1111_1111_1111;
/// Bits 0, 4, 8, … of a u128.
const HOLES128: u128 = 0x1111_1111_1111_1111_1111_1111_1111_1111;

/// The 128-bit carry-less product of two 64-bit polynomials (bit i =
/// coefficient of t^i), from sixteen integer multiplications with holes.
/// Also the product behind GHASH64's `ctmul` (`crate::gcm64`).
#[inline(always)]
pub(crate) fn clmul64(a: u64, b: u64) -> u128 {
    // The low nibble of a is left out so each a_p has at most 15 bits: every
    // digit of the integer products stays below 16 and nothing carries.
    let a_top = a & !0xf;
    let a0 = (a_top & HOLES) as u128;
    let a1 = (a_top & (HOLES << 1)) as u128;
    let a2 = (a_top & (HOLES << 2)) as u128;
    let a3 = (a_top & (HOLES << 3)) as u128;
    let b0 = (b & HOLES) as u128;
    let b1 = (b & (HOLES << 1)) as u128;
    let b2 = (b & (HOLES << 2)) as u128;
    let b3 = (b & (HOLES << 3)) as u128;

    // z_r collects the products whose bits sit on positions ≡ r (mod 4).
    let z0 = (a0 * b0) ^ (a1 * b3) ^ (a2 * b2) ^ (a3 * b1);
    let z1 = (a0 * b1) ^ (a1 * b0) ^ (a2 * b3) ^ (a3 * b2);
    let z2 = (a0 * b2) ^ (a1 * b1) ^ (a2 * b0) ^ (a3 * b3);
    let z3 = (a0 * b3) ^ (a1 * b2) ^ (a2 * b1) ^ (a3 * b0);
    let mut z =
        (z0 & HOLES128) | (z1 & (HOLES128 << 1)) | (z2 & (HOLES128 << 2)) | (z3 & (HOLES128 << 3));

    // The low nibble of a: b · t^i for each set bit i, selected by a mask.
    let b = b as u128;
    for i in 0..4 {
        let bit = ((a >> i) & 1) as u128;
        z ^= (b << i) & bit.wrapping_neg();
    }
    z
}

/// X · H in GF(2^128), both in the native layout of [`field`]. Also the
/// constant-time product behind the multi-core GCM's powers of H.
#[inline(always)]
pub(crate) fn mul(x: u128, h: u128) -> u128 {
    let (x1, x0) = ((x >> 64) as u64, x as u64);
    let (h1, h0) = ((h >> 64) as u64, h as u64);

    // Karatsuba: the 255-bit carry-less product as hi·t^128 ⊕ lo.
    let high = clmul64(x1, h1);
    let low = clmul64(x0, h0);
    let middle = clmul64(x1 ^ x0, h1 ^ h0) ^ high ^ low;

    // Reflected domain: the one-bit shift and the fold of the header.
    field::reduce_reflected(high ^ (middle >> 64), low ^ (middle << 64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex_literal::hex;

    /// The carry-less product one bit at a time.
    fn clmul64_naive(a: u64, b: u64) -> u128 {
        (0..64)
            .filter(|i| (a >> i) & 1 == 1)
            .fold(0, |z, i| z ^ ((b as u128) << i))
    }

    /// SplitMix64, for reproducible operands.
    fn operands(n: usize) -> impl Iterator<Item = u64> {
        let mut s = 0x243f_6a88_85a3_08d3u64;
        (0..n).map(move |_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
    }

    #[test]
    fn clmul64_matches_the_bit_loop() {
        // All ones gives the largest digit counts (16 at t^63 without the
        // low-nibble split); single bits and nibbles probe each class.
        let mut edge = vec![0, 1, 0xf, 0x10, u64::MAX, u64::MAX - 0xf, 1 << 63];
        edge.extend((0..64).map(|i| 1u64 << i));
        edge.extend((0..4).map(|p| HOLES << p));
        for &a in &edge {
            for &b in &edge {
                assert_eq!(clmul64(a, b), clmul64_naive(a, b), "{a:#x} ⊗ {b:#x}");
            }
        }
        let random: Vec<u64> = operands(2000).collect();
        for pair in random.chunks_exact(2) {
            let (a, b) = (pair[0], pair[1]);
            assert_eq!(clmul64(a, b), clmul64_naive(a, b), "{a:#x} ⊗ {b:#x}");
            assert_eq!(clmul64(a, u64::MAX), clmul64_naive(a, u64::MAX));
        }
    }

    #[test]
    fn mul_matches_algorithm_1() {
        let words: Vec<u64> = operands(800).collect();
        let mut elements: Vec<u128> = words
            .chunks_exact(2)
            .map(|w| ((w[0] as u128) << 64) | w[1] as u128)
            .collect();
        elements.extend([0, 1, 1 << 127, u128::MAX, field::R, 1 << 64, (1 << 64) - 1]);
        for pair in elements.windows(2) {
            let (x, h) = (pair[0], pair[1]);
            assert_eq!(mul(x, h), field::mul(x, h), "{x:#x} · {h:#x}");
        }
    }

    /// GCM spec Appendix B, test case 2: GHASH(H, {}, C) over C and the
    /// length block.
    #[test]
    fn spec_test_case_2() {
        let key = Karatsuba::new(&hex!("66e94bd4ef8a2c3b884cfa59ca342b2e")).unwrap();
        let mut y = [0u8; 16];
        key.update_blocks(
            &mut y,
            &hex!("0388dace60b6a392f328c2b971b2fe78 00000000000000000000000000000080"),
        );
        assert_eq!(y, hex!("f38cbb1ad69223dcc3457ae5b6b0f885"));
    }
}
