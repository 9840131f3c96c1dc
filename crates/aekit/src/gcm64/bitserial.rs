//! `bitserial`: X · H in GF(2^64) by the GCM spec's Algorithm 1 (§2.5),
//! carried over to the field of Appendix A, one bit of X at a time.
//!
//! Appendix A keeps everything of §2.5 but the size and the field
//! polynomial: f = 1 + α + α^3 + α^4 + α^64. Bit X_0 — the leftmost bit,
//! the most significant bit of byte 0 — is the coefficient of α^0, so
//! rightshift(V) multiplies V by α, and when the bit shifted out (the
//! coefficient of α^63) was set, α^64 comes back as 1 + α + α^3 + α^4:
//! XOR with R = 11011000 ‖ 0^56 (bits 0, 1, 3 and 4). Algorithm 1 then
//! reads, with 64 for 128:
//!
//! ```text
//! Z ← 0, V ← X
//! for i = 0 to 63:
//!     if Y_i = 1: Z ← Z ⊕ V
//!     if V_63 = 0: V ← rightshift(V) else V ← rightshift(V) ⊕ R
//! return Z
//! ```
//!
//! An element is a `u64` read big-endian from its 8 bytes, so X_0 is the
//! integer's top bit and rightshift is `>> 1` (the layout of
//! `ghash::field`, at half the width).
//!
//! Storage: H, 8 bytes. Per block: 64 steps of shift, mask and XOR.
//! Constant-time: both `if`s become masks (`wrapping_neg` of the bit); no
//! branch and no memory index depends on H or the data.
//!
//! This is the oracle the other GHASH64 strategy is checked against and the
//! multiplication that computed the committed known answers
//! (`vectors/gcm64_tdea_kat.json`).

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::ghash64::Ghash64Key;

/// R = 11011000 ‖ 0^56: α^64 = 1 + α + α^3 + α^4 in the bit order above.
pub const R: u64 = 0xD8 << 56;

/// V · α: Algorithm 1's `V ← rightshift(V) ⊕ R if V_63`, masked.
#[inline(always)]
const fn mul_alpha(v: u64) -> u64 {
    (v >> 1) ^ (R & (v & 1).wrapping_neg())
}

/// X · Y in GF(2^64) by Algorithm 1: Z accumulates X · α^i wherever
/// Y_i = 1.
pub const fn mul(x: u64, y: u64) -> u64 {
    let (mut z, mut v) = (0u64, x);
    let mut i = 0;
    while i < 64 {
        let y_i = (y >> (63 - i)) & 1;
        z ^= v & y_i.wrapping_neg();
        v = mul_alpha(v);
        i += 1;
    }
    z
}

/// GHASH64 key for Algorithm 1: H alone.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct BitSerial {
    h: u64,
}

impl Ghash64Key for BitSerial {
    const NAME: &'static str = "bitserial";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = 8;

    fn new(h: u64) -> BitSerial {
        BitSerial { h }
    }

    fn mul_h(&self, x: u64) -> u64 {
        mul(x, self.h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: u64 = 1 << 63; // α^0 is bit X_0

    #[test]
    fn one_is_the_identity_and_alpha_shifts() {
        let h = 0x0123_4567_89ab_cdef;
        assert_eq!(mul(ONE, h), h);
        assert_eq!(mul(h, ONE), h);
        assert_eq!(mul(h, ONE >> 1), mul_alpha(h)); // H · α
        assert_eq!(mul(h, 0), 0);
    }

    /// α^63 · α = α^64 = 1 + α + α^3 + α^4: the field polynomial of
    /// Appendix A, read back bit by bit.
    #[test]
    fn alpha_to_the_64_is_the_appendix_polynomial() {
        let alpha_63 = 1u64; // X_63, the integer's lowest bit
        let expected = ONE | ONE >> 1 | ONE >> 3 | ONE >> 4;
        assert_eq!(mul(alpha_63, ONE >> 1), expected);
        assert_eq!(expected, R);
    }

    /// Multiplication is commutative and distributes over XOR.
    #[test]
    fn field_laws_on_a_few_elements() {
        let xs = [
            1u64,
            0xdead_beef_0bad_f00d,
            u64::MAX,
            0x8000_0000_0000_0001,
            R,
        ];
        for &a in &xs {
            for &b in &xs {
                assert_eq!(mul(a, b), mul(b, a));
                for &c in &xs {
                    assert_eq!(mul(a, b ^ c), mul(a, b) ^ mul(a, c));
                    assert_eq!(mul(mul(a, b), c), mul(a, mul(b, c)));
                }
            }
        }
    }
}
