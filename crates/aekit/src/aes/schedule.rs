//! The AES key schedule (FIPS-197 §5.2 KeyExpansion), computed once per
//! key in constant time for every strategy, which converts the round keys
//! to its own layout: aekit-core's `key_expansion`, with SubWord from
//! here. And the GF(2^8) arithmetic: `xtime`, products, the S-box
//! computed (inverse and affine map, §5.1.1) rather than looked up, and
//! the S-box table built from it at compile time for the strategies that
//! index one.

use aekit_core::aes::schedule::{MAX_WORDS, key_expansion};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::Error;

/// The FIPS-197 key schedule: `rounds + 1` round keys of 16 bytes, each in
/// the byte order of the state (column-major, as the spec's `w[i]` words
/// laid end to end).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct KeySchedule {
    round_keys: [[u8; 16]; 15],
    rounds: usize,
}

impl KeySchedule {
    /// Expands a 16-, 24- or 32-byte key (FIPS-197 §5.2). Constant-time:
    /// SubWord computes the S-box arithmetically instead of indexing a table.
    pub fn new(key: &[u8]) -> Result<KeySchedule, Error> {
        let nk = match key.len() {
            16 | 24 | 32 => key.len() / 4,
            n => return Err(Error::InvalidKeyLength(n)),
        };
        let rounds = nk + 6;
        let mut w = [[0u8; 4]; MAX_WORDS];
        key_expansion(key, &mut w, sub_word);
        let mut round_keys = [[0u8; 16]; 15];
        for (r, rk) in round_keys.iter_mut().enumerate().take(rounds + 1) {
            for c in 0..4 {
                rk[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
            }
        }
        w.zeroize();
        Ok(KeySchedule { round_keys, rounds })
    }

    /// Number of rounds: 10, 12 or 14.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The `rounds + 1` round keys.
    pub fn round_keys(&self) -> &[[u8; 16]] {
        &self.round_keys[..=self.rounds]
    }
}

/// Multiplication by x in GF(2^8) mod x^8 + x^4 + x^3 + x + 1, branch-free.
#[inline(always)]
pub(crate) const fn xtime(a: u8) -> u8 {
    (a << 1) ^ (0x1b & (a >> 7).wrapping_neg())
}

/// Product in GF(2^8), branch-free (eight masked shift-and-add steps).
/// Used by tests and by AETHER's cryptanalysis (feature `measurement`),
/// not by encryption.
#[cfg(any(test, feature = "measurement"))]
pub(crate) const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    let mut i = 0;
    while i < 8 {
        p ^= a & (b & 1).wrapping_neg();
        a = xtime(a);
        b >>= 1;
        i += 1;
    }
    p
}

/// The AES S-box computed, not looked up: the inverse x^254 followed by
/// the affine map of FIPS-197 §5.1.1. Constant-time; used by the key
/// schedule and to build the lookup tables at compile time. (One byte
/// of [`sub_word`].)
pub(crate) const fn sub_byte(x: u8) -> u8 {
    sub_word([x, 0, 0, 0])[0]
}

/// SubWord (FIPS-197 §5.2): the S-box on four bytes at once, each byte a
/// lane of one 32-bit integer (SIMD within a register), so the key
/// schedule pays one addition chain per word instead of four: the chain
/// of square-and-multiply steps is most of a key setup's cost, and one
/// lane per byte would run it four times. Constant-time: the same
/// operations whatever the bytes.
pub(crate) const fn sub_word(w: [u8; 4]) -> [u8; 4] {
    const LOW7: u32 = 0x7f7f_7f7f;
    const LSB: u32 = 0x0101_0101;
    // xtime in every lane: shift each byte left, reduce by 0x1b (bits 4,
    // 3, 1, 0) where its top bit was set: four shifts of that bit, not a
    // multiplication, which would lengthen the chain each product is.
    const fn xtime4(a: u32) -> u32 {
        let top = a & !LOW7;
        ((a & LOW7) << 1) ^ (top >> 3) ^ (top >> 4) ^ (top >> 6) ^ (top >> 7)
    }
    // Lane-wise product in GF(2^8): eight masked shift-and-add steps.
    const fn mul4(mut a: u32, b: u32) -> u32 {
        let mut p = 0u32;
        let mut i = 0;
        while i < 8 {
            p ^= a & (((b >> i) & LSB) * 0xff);
            a = xtime4(a);
            i += 1;
        }
        p
    }
    // Lane-wise rotation of each byte left by k (1 to 7).
    const fn rotl4(x: u32, k: u32) -> u32 {
        let high = (0xffu32 << k) & 0xff;
        ((x << k) & (high * LSB)) | ((x >> (8 - k)) & ((0xff >> (8 - k)) * LSB))
    }
    let x = u32::from_le_bytes(w);
    // x^254 = x^-1 (and 0 ↦ 0) by square-and-multiply on the fixed
    // exponent.
    let x2 = mul4(x, x);
    let x3 = mul4(x2, x);
    let x6 = mul4(x3, x3);
    let x12 = mul4(x6, x6);
    let x15 = mul4(x12, x3);
    let x30 = mul4(x15, x15);
    let x60 = mul4(x30, x30);
    let x120 = mul4(x60, x60);
    let x126 = mul4(x120, x6);
    let x127 = mul4(x126, x);
    let inv = mul4(x127, x127); // x^254
    let s = inv ^ rotl4(inv, 1) ^ rotl4(inv, 2) ^ rotl4(inv, 3) ^ rotl4(inv, 4) ^ (0x63 * LSB);
    s.to_le_bytes()
}

/// The S-box as a table, built at compile time from [`sub_byte`]. Only the
/// non-constant-time `table` strategy indexes it.
pub(crate) const SBOX: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = sub_byte(i as u8);
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use hex_literal::hex;

    #[test]
    fn sbox_known_entries() {
        // FIPS-197 Figure 7.
        assert_eq!(SBOX[0x00], 0x63);
        assert_eq!(SBOX[0x01], 0x7c);
        assert_eq!(SBOX[0x53], 0xed);
        assert_eq!(SBOX[0xff], 0x16);
    }

    #[test]
    fn sub_word_is_the_sbox_in_every_lane() {
        // Each lane on its own: every byte in every lane, beside other
        // bytes, against the S-box of one byte (checked above against
        // FIPS-197's figure).
        for x in 0..=255u8 {
            let w = [x, x ^ 0x5a, x.wrapping_mul(7), !x];
            assert_eq!(sub_word(w), w.map(|b| SBOX[usize::from(b)]), "{w:02x?}");
        }
    }

    #[test]
    fn key_expansion_fips197_appendix_a() {
        // FIPS-197 A.1: w[40..44] of the AES-128 key 2b7e1516...
        let ks = KeySchedule::new(&hex!("2b7e151628aed2a6abf7158809cf4f3c")).unwrap();
        assert_eq!(ks.rounds(), 10);
        assert_eq!(
            ks.round_keys()[10],
            hex!("d014f9a8c9ee2589e13f0cc8b6630ca6")
        );
        // A.2: AES-192, last round key w[48..52].
        let ks =
            KeySchedule::new(&hex!("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b")).unwrap();
        assert_eq!(
            ks.round_keys()[12],
            hex!("e98ba06f448c773c8ecc720401002202")
        );
        // A.3: AES-256, last round key w[56..60].
        let ks = KeySchedule::new(&hex!(
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"
        ))
        .unwrap();
        assert_eq!(
            ks.round_keys()[14],
            hex!("fe4890d1e6188d0b046df344706c631e")
        );
    }

    #[test]
    fn bad_key_lengths() {
        for n in [0, 1, 15, 17, 23, 25, 31, 33, 64] {
            assert_eq!(
                KeySchedule::new(&vec![0; n]).err(),
                Some(Error::InvalidKeyLength(n))
            );
        }
    }
}
