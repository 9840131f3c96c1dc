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
//!
//! The order's primitives are aekit-core's (`aekit_core::ghash::field`),
//! re-exported: R, `from_block`, `to_block`, `mul_p`, the oracle `mul`
//! (Algorithm 1), `reduction_table` (Shoup's key-independent table R for
//! a shift by w bits), `fill_table` (the table construction of Algorithm
//! 3) and `reduce_reflected` (the carry-less strategies' reduction). This
//! file adds what only aekit's strategies use: the GHASH loop over blocks.

pub use aekit_core::ghash::field::{R, from_block, mul, mul_p, to_block};
pub(crate) use aekit_core::ghash::field::{fill_table, reduce_reflected, reduction_table};

/// The GHASH loop every portable strategy shares: for each 16-byte block X_i
/// of `blocks`, Y ← (Y ⊕ X_i) · H, where `mul_h` is the strategy's product by
/// its H. Y is read into a `u128` once and written back once; a trailing
/// partial block (never passed by callers) is ignored.
#[inline(always)]
pub(crate) fn ghash_with(y: &mut [u8; 16], blocks: &[u8], mul_h: impl Fn(u128) -> u128) {
    debug_assert_eq!(blocks.len() % 16, 0);
    let mut acc = from_block(y);
    for chunk in blocks.chunks_exact(16) {
        let mut x = [0u8; 16];
        x.copy_from_slice(chunk);
        acc = mul_h(acc ^ from_block(&x));
    }
    *y = to_block(acc);
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

    #[test]
    fn fill_table_matches_algorithm_1() {
        let h = from_block(&hex!("b83b533708bf535d0aa6e52980d53b78"));
        let mut t = [0u128; 256];
        let next = fill_table(&mut t, h);
        for (v, &entry) in t.iter().enumerate() {
            assert_eq!(entry, mul((v as u128) << 120, h), "entry {v}");
        }
        assert_eq!(next, mul(1 << 119, h)); // H · P^8
    }

    #[test]
    fn reduction_table_is_the_product_by_p_to_the_w() {
        let r4 = reduction_table::<16>();
        let r8 = reduction_table::<256>();
        for a in 0..256u128 {
            assert_eq!((r8[a as usize] as u128) << 112, mul(a, 1 << 119)); // a · P^8
        }
        for a in 0..16u128 {
            assert_eq!((r4[a as usize] as u128) << 112, mul(a, 1 << 123)); // a · P^4
        }
    }
}
