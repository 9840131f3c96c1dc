//! GF(2^128) as GCM defines it: the one place that states the bit order,
//! the same as aekit's.
//!
//! GCM spec §2.3: an element is a 128-bit string X_0 X_1 … X_127, X_0 is
//! the leftmost bit (the most significant bit of byte 0), and X_i is the
//! coefficient of α^i; f = 1 + α + α^2 + α^7 + α^128. An element is a
//! `u128` read big-endian from its 16 bytes, so X_0 is the integer's most
//! significant bit. Multiplying by P (= α) is a right shift by one, with
//! R = 11100001 ‖ 0^120 XORed in when the bit shifted out was set.

/// R = 11100001 ‖ 0^120, the reduction constant of Algorithm 1.
pub const R: u128 = 0xE1 << 120;

/// Reads a 16-byte block as a field element.
#[inline(always)]
pub fn from_block(block: &[u8; 16]) -> u128 {
    u128::from_be_bytes(*block)
}

/// Writes a field element as a 16-byte block.
#[inline(always)]
pub fn to_block(x: u128) -> [u8; 16] {
    x.to_be_bytes()
}

/// X · P, branch-free.
#[inline(always)]
pub const fn mul_p(v: u128) -> u128 {
    let carry = (v & 1).wrapping_neg();
    (v >> 1) ^ (R & carry)
}

/// Shoup's key-independent reduction table for a shift by w bits, N = 2^w
/// entries (spec Algorithm 2's R): R\[a\] = a · P^w, of which only the top
/// 16 bits can be set; use as `(R[a] as u128) << 112`.
pub const fn reduction_table<const N: usize>() -> [u16; N] {
    let w = N.trailing_zeros();
    let mut table = [0u16; N];
    let mut a = 0;
    while a < N {
        let mut v = a as u128;
        let mut s = 0;
        while s < w {
            v = mul_p(v);
            s += 1;
        }
        table[a] = (v >> 112) as u16;
        a += 1;
    }
    table
}

/// X · Y by Algorithm 1, the oracle the strategies are tested against.
/// Constant-time: every bit of X selects through a mask.
pub fn mul(x: u128, y: u128) -> u128 {
    let mut z = 0u128;
    let mut v = y;
    for i in 0..128 {
        let bit = (x >> (127 - i)) & 1;
        z ^= v & bit.wrapping_neg();
        v = mul_p(v);
    }
    z
}
