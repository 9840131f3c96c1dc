//! GF(2^128) as GCM defines it: the one place that states the bit order.
//!
//! GCM spec §2.3: an element is a 128-bit string X_0 X_1 … X_127, X_0 is the
//! leftmost bit, and X_i is the coefficient of α^i. The field polynomial is
//! f = 1 + α + α^2 + α^7 + α^128.
//!
//! aekit carries an element as a `u128` read **big-endian** from its 16 bytes
//! (`u128::from_be_bytes`). Bit X_0 — the most significant bit of byte 0 — is
//! then the most significant bit of the integer, and X_127 the least
//! significant. In this representation:
//!
//! - multiplying by P (= α, spec §4.1) is a right shift by one, and when the
//!   bit shifted out (the coefficient of α^127) was set, α^128 is replaced by
//!   1 + α + α^2 + α^7, which is XOR with R = 11100001 ‖ 0^120 = `0xE1 << 120`;
//! - multiplying by P^8 is a right shift by eight with a reduction that depends
//!   only on the byte shifted out (the R table of the spec's Algorithm 2).
//!
//! Strategies may use other layouts internally (the carry-less ones
//! bit-reflect), but they take and return elements in this one.

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

/// X · P: one step of Algorithm 1's `V ← rightshift(V) ⊕ R if V_127`.
/// Constant-time: the reduction is masked, not branched on.
#[inline(always)]
pub fn mul_p(v: u128) -> u128 {
    let carry = (v & 1).wrapping_neg(); // all ones when V_127 = 1
    (v >> 1) ^ (R & carry)
}

/// X · Y by Algorithm 1, the oracle every strategy is checked against.
/// Constant-time: every bit of X selects through a mask.
pub fn mul(x: u128, y: u128) -> u128 {
    let mut z = 0u128;
    let mut v = y;
    for i in 0..128 {
        let bit = (x >> (127 - i)) & 1; // X_i
        z ^= v & bit.wrapping_neg();
        v = mul_p(v);
    }
    z
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex_literal::hex;

    /// GCM spec Appendix B, test case 2: H and X_1 = C_1 · H, and the final
    /// GHASH value (X_1 ⊕ len) · H.
    #[test]
    fn spec_test_case_2_ghash_steps() {
        let h = from_block(&hex!("66e94bd4ef8a2c3b884cfa59ca342b2e"));
        let c = from_block(&hex!("0388dace60b6a392f328c2b971b2fe78"));
        let x1 = mul(c, h);
        assert_eq!(to_block(x1), hex!("5e2ec746917062882c85b0685353deb7"));
        let len = from_block(&hex!("00000000000000000000000000000080"));
        assert_eq!(
            to_block(mul(x1 ^ len, h)),
            hex!("f38cbb1ad69223dcc3457ae5b6b0f885")
        );
    }

    #[test]
    fn one_is_the_identity_and_p_shifts() {
        let one = 1u128 << 127; // α^0 is bit X_0
        let h = from_block(&hex!("b83b533708bf535d0aa6e52980d53b78"));
        assert_eq!(mul(one, h), h);
        assert_eq!(mul(h, one), h);
        assert_eq!(mul(one >> 1, h), mul_p(h)); // α · H = H · P
        assert_eq!(mul(h, 0), 0);
    }
}
