//! `clmul`: GHASH with the x86-64 carry-less multiply instruction
//! PCLMULQDQ, eight blocks per reduction. Constant time.
//!
//! CPU features: `pclmulqdq` (the multiply), `ssse3` (PSHUFB for the byte
//! swap), `sse2` (everything else; always present on x86-64). The type
//! [`Clmul`] is the capability token: `new` returns it only after
//! `is_x86_feature_detected!` has seen all three, and the intrinsics live in
//! `#[target_feature]` functions reachable only through a `Clmul`. On other
//! architectures `Clmul` is an uninhabited enum and `new` returns `None`.
//!
//! # Reflection
//!
//! aekit's element is `u128::from_be_bytes(block)`: the coefficient of x^k
//! sits at integer bit 127 − k ([`field`]), so the integer is the
//! bit-reversal ("reflection") of the polynomial. A block loaded with MOVDQU
//! is the little-endian integer; PSHUFB with the mask 15, 14, …, 0 reverses
//! the bytes and gives exactly this integer, so no bit is ever reversed: the
//! arithmetic runs in the reflected domain (Gueron & Kounavis, *Intel
//! Carry-Less Multiplication Instruction and its Usage for Computing the GCM
//! Mode*, on the bit-reflected representation).
//!
//! Write ψ(A) = t^127 · A(1/t) for the reflected integer of A (an integer is
//! a polynomial in t, bit i ↦ t^i). Then ψ(A) ⊗ ψ(B) = t^254 · (AB)(1/t):
//! the coefficient of x^k of the unreduced product lands at bit 254 − k, the
//! reflected product one bit short of the 256-bit window. Modulo the
//! reflected polynomial g̃ below, that is t^127 · ψ(A·B mod g).
//!
//! # Reduction: two folds with 0xC2…
//!
//! Reflection turns x^128 + x^7 + x^2 + x + 1 into
//! g̃(t) = t^128 + t^127 + t^126 + t^121 + 1, and reducing the high powers of
//! x into reducing the *low* bits of the integer: Montgomery reduction. For
//! a 256-bit Z = (Z3, Z2, Z1, Z0) in 64-bit words, g̃ ≡ 1 (mod t^64), so
//! m = Z0 makes Z ⊕ m·g̃ divisible by t^64, and
//!
//! ```text
//! (Z ⊕ Z0·g̃) / t^64 = (Z3, Z2, Z1) ⊕ Z0 ⊗ C ⊕ Z0·t^64,  C = t^63+t^62+t^57 = 0xC200_0000_0000_0000.
//! ```
//!
//! One fold is one PCLMULQDQ, one PSHUFD (the ·t^64 is a qword swap) and two
//! XORs; two folds give R = Z · t^−128 mod g̃ in 128 bits, fully reduced.
//! For Z = ψ(A) ⊗ ψ(B) ≡ t^127·ψ(AB) that is t^−1·ψ(AB) = ψ(A·B·x): the
//! product comes out multiplied by x. So every stored H is "twisted" by
//! x^−1 beforehand, ψ(H·x^−1) = ψ(H)·t mod g̃: a left shift by one bit and,
//! when the bit shifted out was set, an XOR with
//! g̃ − t^128 = 0xC2000000_00000000_00000000_00000001 (the constant of
//! OpenSSL's and BoringSSL's `gcm_init_clmul`; Gueron's RWC 2013 slides
//! derive it). Then multiply-and-fold of ψ(A) by the
//! twisted ψ(H) yields ψ(A·H) exactly, and the twisted H^k are powers of the
//! twisted H under the same operation.
//!
//! # Aggregated reduction (spec §4.2, generalized to eight multipliers)
//!
//! GCM spec §4.2 splits Horner's rule over even and odd blocks with H^2.
//! Unrolling it eight ways:
//!
//! ```text
//! Y' = (((Y ⊕ X1)·H ⊕ X2)·H ⊕ … ⊕ X8)·H = (Y ⊕ X1)·H^8 ⊕ X2·H^7 ⊕ … ⊕ X8·H.
//! ```
//!
//! Reduction is linear, so the eight unreduced 256-bit products are XORed
//! together and folded once: 32 + 2 PCLMULQDQ per eight blocks, and the
//! eight products are independent, so they overlap in the pipeline instead
//! of waiting on one another's reductions. The r < 8 remaining blocks go
//! the same way with H^r … H, one reduction for all of them.
//!
//! Each 128 × 128 product is schoolbook: a0⊗h0, a1⊗h1 and the middle
//! a0⊗h1 ⊕ a1⊗h0, the middle split across the halves after summing.
//!
//! # Storage, cost, constant time
//!
//! Storage: the twisted H, H^2, …, H^8, 8 × 16 = 128 bytes, zeroized on
//! drop. Cost: 4.25 PCLMULQDQ per block for long inputs, 6 for a lone one.
//! Constant time: PCLMULQDQ's latency does not depend on its operands; the
//! code is straight-line with branches only on the public input length; the
//! powers are read at fixed indices.
//!
//! # Rejected
//!
//! - Karatsuba (3 PCLMULQDQ per block instead of 4, plus h1 ⊕ h0 for each
//!   power: 64 more bytes): since Broadwell and Zen PCLMULQDQ issues once
//!   per cycle, so the saved multiply buys little against the extra XORs
//!   and shuffles (an estimate, not measured here). The portable `karatsuba` strategy uses it, where each
//!   64 × 64 product is sixteen multiplications.
//! - The white paper's shift-based reduction (as in `karatsuba`): it needs the
//!   256-bit product shifted left by one and about twenty shifts and XORs,
//!   since SSE has no 128-bit bit shift; the twist removes the shift and two
//!   PCLMULQDQ do the fold.
//! - One reduction per block: eight times the folds, and every block waits
//!   for the previous reduction (three dependent PCLMULQDQ).
//! - Sixteen blocks per reduction: twice the storage for a small gain; wider
//!   aggregation belongs to a VPCLMULQDQ strategy.
//!
//! [`field`]: crate::ghash::field

#[cfg(target_arch = "x86_64")]
pub use imp::Clmul;
/// The field arithmetic, for the fused kernels that interleave it with AES
/// and for `vclmul`, which keeps its powers in the same twisted form.
#[cfg(target_arch = "x86_64")]
pub(crate) use imp::{
    FOLD, KaratsubaSum, Wide, byte_reverse_mask, load, mul_wide, reduce, store, to_m128, twist,
};
#[cfg(not(target_arch = "x86_64"))]
pub use unsupported::Clmul;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m128i, _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_set_epi8,
        _mm_set_epi64x, _mm_setzero_si128, _mm_shuffle_epi8, _mm_shuffle_epi32, _mm_slli_si128,
        _mm_srli_si128, _mm_storeu_si128, _mm_unpackhi_epi64, _mm_xor_si128,
    };

    use zeroize::{Zeroize, ZeroizeOnDrop};

    use crate::aes::Block;
    use crate::ghash::GhashKey;

    /// g̃(t) − t^128: the reflected field polynomial without its top term.
    const G_LOW: u128 = 0xC200_0000_0000_0000_0000_0000_0000_0001;
    /// t^63 + t^62 + t^57: the fold multiplier, (g̃ − 1 − t^128) / t^64
    /// (`vclmul` and the `vaes-avx2` multi-buffer path fold with it too).
    pub(crate) const FOLD: u64 = 0xC200_0000_0000_0000;

    /// GHASH with PCLMULQDQ. Holding one proves the CPU has PCLMULQDQ,
    /// SSSE3 and SSE2.
    #[derive(Zeroize, ZeroizeOnDrop)]
    pub struct Clmul {
        /// `powers[k]` = ψ(H^(k+1) · x^−1), the twisted H^(k+1).
        powers: [u128; 8],
    }

    impl Clmul {
        /// The twisted H, H^2, …, H^8 (`powers[k]` is H^(k+1)).
        pub(crate) fn powers(&self) -> &[u128; 8] {
            &self.powers
        }

        /// The twisted H, H^2, …, H^N (entry k is H^(k+1)): the eight
        /// stored, then H^(k+1) = H^8 · H^(k−7) with this key's own
        /// product, for kernels that aggregate more blocks per reduction.
        /// As secret as H: the caller zeroizes what it keeps no longer.
        pub(crate) fn powers_to<const N: usize>(&self) -> [u128; N] {
            let mut all = [0u128; N];
            for (k, x) in all.iter_mut().enumerate().take(8) {
                *x = self.powers[k];
            }
            for k in 8..N {
                // SAFETY: holding a `Clmul` proves PCLMULQDQ, SSSE3 and SSE2.
                all[k] = unsafe { mul_twisted(all[7], all[k - 8]) };
            }
            all
        }
    }

    /// `reduce(mul_wide(a, b))` on integers.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ and SSE2.
    #[target_feature(enable = "pclmulqdq,sse2")]
    unsafe fn mul_twisted(a: u128, b: u128) -> u128 {
        from_m128(reduce(mul_wide(to_m128(a), to_m128(b))))
    }

    impl GhashKey for Clmul {
        const NAME: &'static str = "clmul";
        const CONSTANT_TIME: bool = true;
        const STORAGE_BYTES: usize = 8 * 16;

        fn is_available() -> bool {
            is_x86_feature_detected!("pclmulqdq")
                && is_x86_feature_detected!("ssse3")
                && is_x86_feature_detected!("sse2")
        }

        fn new(h: &Block) -> Option<Self> {
            if !Self::is_available() {
                return None;
            }
            // SAFETY: PCLMULQDQ, SSSE3 and SSE2 were detected just above.
            let powers = unsafe { powers(h) };
            Some(Clmul { powers })
        }

        fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
            // SAFETY: a `Clmul` is built only by `new`, after the features
            // were detected.
            unsafe { update(&self.powers, y, blocks) }
        }

        /// The partial last block assembled in a register, zero-padded:
        /// no copy through memory.
        fn update_padded(&self, y: &mut Block, bytes: &[u8]) {
            let full = bytes.len() / 16 * 16;
            let (blocks, last) = bytes.split_at(full);
            // Byte i of the block is bits 127 − 8i … 120 − 8i of the
            // integer `load` makes (`u128::from_be_bytes`); the shifts
            // depend on the position only.
            let x = last
                .iter()
                .enumerate()
                .fold(0u128, |x, (i, &b)| x | u128::from(b) << (120 - 8 * i));
            // SAFETY: as in `update_blocks`.
            unsafe {
                update(&self.powers, y, blocks);
                if !last.is_empty() {
                    fold_one(&self.powers, y, x);
                }
            }
        }
    }

    /// Y ← (Y ⊕ X) · H for one block X given as its integer.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ, SSSE3 and SSE2.
    #[target_feature(enable = "pclmulqdq,ssse3,sse2")]
    unsafe fn fold_one(powers: &[u128; 8], y: &mut Block, x: u128) {
        let acc = _mm_xor_si128(load(y), to_m128(x));
        store(y, reduce(mul_wide(acc, to_m128(powers[0]))));
    }

    /// ψ(H) · t mod g̃ = ψ(H · x^−1): left shift, reduce the bit shifted out.
    /// Constant time: the reduction is masked.
    pub(crate) fn twist(h: u128) -> u128 {
        let carry = (h >> 127).wrapping_neg();
        (h << 1) ^ (G_LOW & carry)
    }

    /// The twisted H, H^2, …, H^8.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ, SSSE3 and SSE2.
    #[target_feature(enable = "pclmulqdq,ssse3,sse2")]
    unsafe fn powers(h: &Block) -> [u128; 8] {
        let h1 = to_m128(twist(u128::from_be_bytes(*h)));
        let mut powers = [0u128; 8];
        let mut p = h1;
        powers[0] = from_m128(p);
        for slot in &mut powers[1..] {
            p = reduce(mul_wide(p, h1)); // twisted · twisted = twisted product
            *slot = from_m128(p);
        }
        powers
    }

    /// For each 16-byte block X_i: Y ← (Y ⊕ X_i) · H, eight at a time.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ, SSSE3 and SSE2.
    #[target_feature(enable = "pclmulqdq,ssse3,sse2")]
    unsafe fn update(h: &[u128; 8], y: &mut Block, blocks: &[u8]) {
        let mut acc = load(y);

        let mut eights = blocks.chunks_exact(8 * 16);
        for chunk in &mut eights {
            acc = aggregate(h, acc, chunk);
        }
        // The last r < 8 blocks the same way with H^r … H.
        let rest = eights.remainder();
        if !rest.is_empty() {
            acc = aggregate(h, acc, rest);
        }

        store(y, acc);
    }

    /// (Y ⊕ X1)·H^r ⊕ X2·H^(r−1) ⊕ … ⊕ Xr·H for the r ≤ 8 blocks of
    /// `chunk`, unreduced, then one fold.
    #[inline]
    #[target_feature(enable = "pclmulqdq,ssse3,sse2")]
    fn aggregate(h: &[u128; 8], acc: __m128i, chunk: &[u8]) -> __m128i {
        let r = chunk.len() / 16;
        let (x1, rest) = chunk.split_at(16);
        let mut sum = mul_wide(_mm_xor_si128(acc, load(x1)), to_m128(h[r - 1]));
        for (x, hk) in rest.chunks_exact(16).zip(h[..r - 1].iter().rev()) {
            sum = sum.xor(mul_wide(load(x), to_m128(*hk)));
        }
        reduce(sum)
    }

    /// PSHUFB mask reversing the 16 bytes: spec byte order ↔ the integer.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) fn byte_reverse_mask() -> __m128i {
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    }

    /// A 16-byte block in spec byte order as the integer
    /// `u128::from_be_bytes(block)`.
    #[inline]
    #[target_feature(enable = "ssse3,sse2")]
    pub(crate) fn load(block: &[u8]) -> __m128i {
        let block: &[u8; 16] = block.try_into().expect("a 16-byte block");
        // SAFETY: `block` is 16 readable bytes; MOVDQU needs no alignment.
        let x = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
        _mm_shuffle_epi8(x, byte_reverse_mask())
    }

    /// The inverse of [`load`].
    #[inline]
    #[target_feature(enable = "ssse3,sse2")]
    pub(crate) fn store(block: &mut [u8; 16], x: __m128i) {
        let x = _mm_shuffle_epi8(x, byte_reverse_mask());
        // SAFETY: `block` is 16 writable bytes; MOVDQU needs no alignment.
        unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), x) }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) fn to_m128(x: u128) -> __m128i {
        _mm_set_epi64x((x >> 64) as i64, x as i64)
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn from_m128(x: __m128i) -> u128 {
        let lo = _mm_cvtsi128_si64(x) as u64;
        let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)) as u64;
        ((hi as u128) << 64) | lo as u128
    }

    /// An unreduced 255-bit product a ⊗ b = hi·t^128 ⊕ mid·t^64 ⊕ lo.
    #[derive(Clone, Copy)]
    pub(crate) struct Wide {
        pub(crate) lo: __m128i,
        pub(crate) mid: __m128i,
        pub(crate) hi: __m128i,
    }

    impl Wide {
        /// The empty sum.
        #[inline]
        #[target_feature(enable = "sse2")]
        pub(crate) fn zero() -> Wide {
            let z = _mm_setzero_si128();
            Wide {
                lo: z,
                mid: z,
                hi: z,
            }
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        pub(crate) fn xor(self, other: Wide) -> Wide {
            Wide {
                lo: _mm_xor_si128(self.lo, other.lo),
                mid: _mm_xor_si128(self.mid, other.mid),
                hi: _mm_xor_si128(self.hi, other.hi),
            }
        }
    }

    /// A sum of products a ⊗ b in Karatsuba's form: Σ a0b0, Σ a1b1 and the
    /// raw middle Σ (a1 ⊕ a0)(b1 ⊕ b0), which still holds the other two.
    /// Three PCLMULQDQ a product instead of the schoolbook's four, where
    /// PCLMULQDQ is the scarce unit (AMD Zen 1–2: one every two to three
    /// cycles), for two PSHUFD and two PXOR more; the middle is corrected
    /// once for the whole sum ([`KaratsubaSum::wide`]), the bracket being
    /// linear.
    #[derive(Clone, Copy)]
    pub(crate) struct KaratsubaSum {
        lo: __m128i,
        raw_mid: __m128i,
        hi: __m128i,
    }

    impl KaratsubaSum {
        /// The empty sum.
        #[inline]
        #[target_feature(enable = "sse2")]
        pub(crate) fn zero() -> KaratsubaSum {
            let z = _mm_setzero_si128();
            KaratsubaSum {
                lo: z,
                raw_mid: z,
                hi: z,
            }
        }

        /// The sum plus a ⊗ b.
        #[inline]
        #[target_feature(enable = "pclmulqdq,sse2")]
        pub(crate) fn add(self, a: __m128i, b: __m128i) -> KaratsubaSum {
            // (x1 ⊕ x0) in the low qword.
            let b_fold = _mm_xor_si128(b, _mm_shuffle_epi32(b, 0b01_00_11_10));
            self.add_folded(a, b, b_fold)
        }

        /// [`add`](Self::add) given b's fold b1 ⊕ b0 in the low qword of
        /// `b_fold` (a key's power, folded once at key setup).
        #[inline]
        #[target_feature(enable = "pclmulqdq,sse2")]
        pub(crate) fn add_folded(self, a: __m128i, b: __m128i, b_fold: __m128i) -> KaratsubaSum {
            let a_fold = _mm_xor_si128(a, _mm_shuffle_epi32(a, 0b01_00_11_10));
            KaratsubaSum {
                lo: _mm_xor_si128(self.lo, _mm_clmulepi64_si128(a, b, 0x00)),
                raw_mid: _mm_xor_si128(self.raw_mid, _mm_clmulepi64_si128(a_fold, b_fold, 0x00)),
                hi: _mm_xor_si128(self.hi, _mm_clmulepi64_si128(a, b, 0x11)),
            }
        }

        /// The sum as a [`Wide`]: middle = raw ⊕ lo ⊕ hi.
        #[inline]
        #[target_feature(enable = "sse2")]
        pub(crate) fn wide(self) -> Wide {
            Wide {
                lo: self.lo,
                mid: _mm_xor_si128(self.raw_mid, _mm_xor_si128(self.lo, self.hi)),
                hi: self.hi,
            }
        }
    }

    /// The schoolbook 128 × 128 carry-less product: four PCLMULQDQ.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub(crate) fn mul_wide(a: __m128i, b: __m128i) -> Wide {
        // imm8 bit 0 picks a's qword, bit 4 picks b's.
        Wide {
            lo: _mm_clmulepi64_si128(a, b, 0x00),
            mid: _mm_xor_si128(
                _mm_clmulepi64_si128(a, b, 0x01),
                _mm_clmulepi64_si128(a, b, 0x10),
            ),
            hi: _mm_clmulepi64_si128(a, b, 0x11),
        }
    }

    /// Z · t^−128 mod g̃ by two Montgomery folds (see the module header).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub(crate) fn reduce(z: Wide) -> __m128i {
        // Z = (Z3, Z2) : (Z1, Z0) as two 128-bit halves.
        let lo = _mm_xor_si128(z.lo, _mm_slli_si128(z.mid, 8));
        let hi = _mm_xor_si128(z.hi, _mm_srli_si128(z.mid, 8));
        let fold = _mm_set_epi64x(FOLD as i64, 0);
        let lo = fold_once(lo, fold); // (Z'1 without its Z2, Z'0)
        let lo = fold_once(lo, fold);
        _mm_xor_si128(lo, hi)
    }

    /// One fold of the low qword: (w1, w0) ↦ (w0, w1) ⊕ w0 ⊗ C, which is
    /// (w1, w0)·t^−64 mod g̃ short of the higher words it XORs into.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    fn fold_once(w: __m128i, fold: __m128i) -> __m128i {
        let t = _mm_clmulepi64_si128(w, fold, 0x10); // w0 ⊗ C
        let swapped = _mm_shuffle_epi32(w, 0b01_00_11_10); // (w0, w1): w0·t^64 and w1/t^64
        _mm_xor_si128(swapped, t)
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::ghash::field;
        use hex_literal::hex;

        const H: Block = hex!("66e94bd4ef8a2c3b884cfa59ca342b2e");

        fn key(h: &Block) -> Option<Clmul> {
            let key = Clmul::new(h);
            if key.is_none() {
                eprintln!("SKIP clmul: PCLMULQDQ not available on this CPU");
            }
            key
        }

        #[test]
        fn powers_are_twisted_powers_of_h() {
            for h in [H, [0xff; 16], field::to_block(1), field::to_block(1 << 127)] {
                let Some(key) = key(&h) else { return };
                let h = field::from_block(&h);
                let mut expected = h;
                for (k, &p) in key.powers.iter().enumerate() {
                    // the twist is · x^−1; · P (= x) undoes it
                    assert_eq!(field::mul_p(p), expected, "H^{}", k + 1);
                    assert_eq!(p, twist(expected), "H^{}", k + 1);
                    expected = field::mul(expected, h);
                }
            }
        }

        #[test]
        fn zero_key_is_all_zero() {
            let Some(key) = key(&[0; 16]) else { return };
            assert_eq!(key.powers, [0; 8]);
        }

        /// GCM spec Appendix B, test case 2, and the same GHASH over 9
        /// blocks (one eight-block pass and one single block).
        #[test]
        fn spec_test_case_2_and_aggregation() {
            let Some(key) = key(&H) else { return };
            let mut y = [0u8; 16];
            key.update_blocks(
                &mut y,
                &hex!("0388dace60b6a392f328c2b971b2fe78 00000000000000000000000000000080"),
            );
            assert_eq!(y, hex!("f38cbb1ad69223dcc3457ae5b6b0f885"));

            let data: Vec<u8> = (0..9 * 16).map(|i| (i * 37 + 11) as u8).collect();
            let h = field::from_block(&H);
            let expected = data.chunks_exact(16).fold(0, |y, x| {
                field::mul(y ^ field::from_block(x.try_into().unwrap()), h)
            });
            let mut y = [0u8; 16];
            key.update_blocks(&mut y, &data);
            assert_eq!(field::from_block(&y), expected);
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod unsupported {
    unavailable_ghash!(
        /// PCLMULQDQ is x86-64 only: here `Clmul` has no values.
        Clmul,
        "clmul",
        8 * 16
    );
}
