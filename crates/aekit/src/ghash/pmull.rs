//! `pmull`: GHASH with the ARMv8 64-bit polynomial multiply PMULL/PMULL2
//! (FEAT_PMULL), eight blocks per reduction. Constant time.
//!
//! CPU features: `aes`, which in Rust's aarch64 feature set is FEAT_AES
//! together with FEAT_PMULL (the two come as one in every core that has
//! either). The type [`Pmull`] is the capability token: `new` returns it
//! only after `is_aarch64_feature_detected!("aes")`, and the intrinsics
//! live in `#[target_feature]` functions reachable only through a
//! `Pmull`. On other architectures `Pmull` is an uninhabited enum.
//!
//! # Representation and math
//!
//! The arithmetic is `clmul.rs`'s, instruction for instruction, on NEON
//! registers: the element is the reflected integer
//! `u128::from_be_bytes(block)` ([`field`]), made from a loaded block by
//! one TBL with the byte-reversal indices (lane 0 then holds the integer's
//! low 64 bits, little-endian as the core is). `PMULL` multiplies lanes 0,
//! `PMULL2` lanes 1 (ARM ARM, "PMULL, PMULL2", 1Q form). H and its powers
//! are stored twisted by x^−1, ψ(H)·t mod g̃, so that the two Montgomery
//! folds with C = t^63 + t^62 + t^57 (0xC2 ‖ 0^56) return the exact
//! product (Gueron & Kounavis, *Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode*, the reflected
//! representation; the derivation is in `clmul.rs`'s header).
//!
//! Each product is Karatsuba's: for a = a1·t^64 + a0, h likewise,
//! `a ⊗ h = a1h1·t^128 ⊕ [(a1 ⊕ a0)(h1 ⊕ h0) ⊕ a1h1 ⊕ a0h0]·t^64 ⊕ a0h0`:
//! three PMULL. Sums of products keep lo, hi and the raw middle apart and
//! correct the middle once per reduction (the bracket is linear).
//!
//! # Aggregated reduction (spec §4.2, eight multipliers)
//!
//! `Y' = (Y ⊕ X1)·H^8 ⊕ X2·H^7 ⊕ … ⊕ X8·H`: the eight unreduced
//! products are summed and reduced once, 24 + 2 PMULL per eight blocks; the
//! r < 8 remaining blocks likewise with H^r … H.
//!
//! # Three-way XORs
//!
//! The sums and the reduction are written with `xor3`, which is one
//! `EOR3` (FEAT_SHA3, `veor3q_u8`) where the caller was compiled with
//! `sha3` and asked for it (`EOR3 = true`), two `EOR` otherwise. The
//! strategy's own [`GhashKey`](crate::ghash::GhashKey) path uses the two EORs (it runs everywhere
//! `pmull` does); the fused kernel `aes-pmull` chooses at key setup.
//!
//! # Storage, cost, constant time
//!
//! Storage: the twisted H … H^8, 128 bytes, zeroized on drop (their
//! Karatsuba folds h1 ⊕ h0 are made per call, in registers). Cost: 3.25
//! PMULL per block for long inputs. Constant time: PMULL's latency does
//! not depend on its operands (Arm's optimization guides list fixed
//! latencies); branches only on public lengths; powers at fixed indices.
//!
//! # Rejected
//!
//! - Schoolbook products (four PMULL): PMULL issues on one pipe on
//!   Neoverse N1, where the multiply is the bound.
//! - A shift-and-XOR reduction: NEON has no 128-bit bit shift; two PMULL
//!   fold as cheaply.
//! - Rev64 with swapped halves instead of a full byte reversal: saves
//!   nothing against one TBL and makes every stored power a second layout.
//!
//! [`field`]: crate::ghash::field

#[cfg(target_arch = "aarch64")]
pub use imp::Pmull;
/// The field arithmetic, for the fused kernel that interleaves it with AES.
#[cfg(target_arch = "aarch64")]
pub(crate) use imp::{Sum, load, product, reduce, reflect, to_vec, xor3};
#[cfg(not(target_arch = "aarch64"))]
pub use unsupported::Pmull;

#[cfg(target_arch = "aarch64")]
mod imp {
    use core::arch::aarch64::{
        uint8x16_t, vdupq_n_u64, veor3q_u8, veorq_u8, vextq_u8, vgetq_lane_p64, vld1q_u8,
        vmull_high_p64, vmull_p64, vqtbl1q_u8, vreinterpretq_p64_u8, vreinterpretq_p128_u8,
        vreinterpretq_u8_p128, vreinterpretq_u8_u64, vst1q_u8,
    };

    use zeroize::{Zeroize, ZeroizeOnDrop};

    use crate::aes::Block;
    use crate::ghash::GhashKey;

    // Lane 0 is the integer's low half, and `to_vec` reinterprets a
    // `u128` as a register: both little-endian AArch64's layout.
    const _: () = assert!(
        cfg!(target_endian = "little"),
        "pmull needs little-endian AArch64"
    );

    /// g̃(t) − t^128: the reflected field polynomial without its top term.
    const G_LOW: u128 = 0xC200_0000_0000_0000_0000_0000_0000_0001;
    /// t^63 + t^62 + t^57: the fold multiplier.
    const FOLD: u64 = 0xC200_0000_0000_0000;
    /// TBL indices reversing the 16 bytes: spec byte order ↔ the integer.
    const REVERSE: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

    /// GHASH with PMULL. Holding one proves the CPU has FEAT_PMULL.
    #[derive(Zeroize, ZeroizeOnDrop)]
    pub struct Pmull {
        /// `powers[k]` = ψ(H^(k+1) · x^−1), the twisted H^(k+1).
        powers: [u128; 8],
    }

    impl Pmull {
        /// The twisted H, H^2, …, H^N (entry k is H^(k+1)), the first
        /// eight stored and the rest made with this key's own product. As
        /// secret as H: the caller zeroizes what it keeps no longer.
        pub(crate) fn powers_to<const N: usize>(&self) -> [u128; N] {
            let mut all = [0u128; N];
            for (k, x) in all.iter_mut().enumerate().take(8) {
                *x = self.powers[k];
            }
            for k in 8..N {
                // SAFETY: holding a `Pmull` proves FEAT_PMULL.
                all[k] = unsafe { mul_twisted(all[7], all[k - 8]) };
            }
            all
        }
    }

    /// `a ^ b ^ c`: one EOR3 when `EOR3`, two EOR otherwise.
    ///
    /// # Safety
    ///
    /// With `EOR3`, the CPU must support FEAT_SHA3, and the caller should
    /// be compiled with `sha3` enabled (else the EOR3 is a call).
    #[inline(always)]
    pub(crate) unsafe fn xor3<const EOR3: bool>(
        a: uint8x16_t,
        b: uint8x16_t,
        c: uint8x16_t,
    ) -> uint8x16_t {
        if EOR3 {
            // SAFETY: the caller's contract: the CPU has FEAT_SHA3.
            unsafe { eor3(a, b, c) }
        } else {
            // SAFETY: NEON is aarch64's baseline.
            unsafe { veorq_u8(veorq_u8(a, b), c) }
        }
    }

    /// EOR3 itself, inlined wherever the caller has `sha3` (`xor3` has no
    /// target features of its own, so it cannot take the intrinsic's
    /// always-inline form).
    #[inline]
    #[target_feature(enable = "sha3")]
    fn eor3(a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
        veor3q_u8(a, b, c)
    }

    /// An integer (bits 0..64 in lane 0) in a register.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn to_vec(x: u128) -> uint8x16_t {
        vreinterpretq_u8_p128(x)
    }

    /// The inverse of [`to_vec`].
    #[inline]
    #[target_feature(enable = "aes")]
    fn from_vec(x: uint8x16_t) -> u128 {
        vreinterpretq_p128_u8(x)
    }

    /// The byte reversal between spec order and the integer (its own
    /// inverse).
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn reflect(x: uint8x16_t) -> uint8x16_t {
        // SAFETY: `REVERSE` is 16 readable bytes.
        vqtbl1q_u8(x, unsafe { vld1q_u8(REVERSE.as_ptr()) })
    }

    /// A 16-byte block in spec byte order as the integer
    /// `u128::from_be_bytes(block)`.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn load(block: &Block) -> uint8x16_t {
        // SAFETY: `block` is 16 readable bytes.
        reflect(unsafe { vld1q_u8(block.as_ptr()) })
    }

    /// The inverse of [`load`].
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn store(block: &mut Block, x: uint8x16_t) {
        // SAFETY: `block` is 16 writable bytes.
        unsafe { vst1q_u8(block.as_mut_ptr(), reflect(x)) }
    }

    /// h1 ⊕ h0 in both lanes: the second operand of Karatsuba's middle.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn fold_of(h: uint8x16_t) -> uint8x16_t {
        veorq_u8(h, vextq_u8::<8>(h, h))
    }

    /// Lane 0 of `a` times lane 0 of `b` (PMULL).
    #[inline]
    #[target_feature(enable = "aes")]
    fn pmull(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        let (a, b) = (vreinterpretq_p64_u8(a), vreinterpretq_p64_u8(b));
        vreinterpretq_u8_p128(vmull_p64(vgetq_lane_p64::<0>(a), vgetq_lane_p64::<0>(b)))
    }

    /// Lane 1 of `a` times lane 1 of `b` (PMULL2).
    #[inline]
    #[target_feature(enable = "aes")]
    fn pmull2(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        vreinterpretq_u8_p128(vmull_high_p64(
            vreinterpretq_p64_u8(a),
            vreinterpretq_p64_u8(b),
        ))
    }

    /// An unreduced sum of products in Karatsuba's form: Σ a0h0, Σ a1h1
    /// and the raw middle Σ (a1 ⊕ a0)(h1 ⊕ h0).
    #[derive(Clone, Copy)]
    pub(crate) struct Sum {
        pub(crate) lo: uint8x16_t,
        pub(crate) mid: uint8x16_t,
        pub(crate) hi: uint8x16_t,
    }

    /// `x ⊗ h` in Karatsuba's form, `hf` = [`fold_of`]`(h)`: three PMULL.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn product(x: uint8x16_t, h: uint8x16_t, hf: uint8x16_t) -> Sum {
        Sum {
            lo: pmull(x, h),
            mid: pmull(fold_of(x), hf),
            hi: pmull2(x, h),
        }
    }

    impl Sum {
        /// The sum of two sums.
        #[inline]
        #[target_feature(enable = "aes")]
        pub(crate) fn add(self, o: Sum) -> Sum {
            Sum {
                lo: veorq_u8(self.lo, o.lo),
                mid: veorq_u8(self.mid, o.mid),
                hi: veorq_u8(self.hi, o.hi),
            }
        }

        /// The sum of three sums: one [`xor3`] per part.
        ///
        /// # Safety
        ///
        /// As for [`xor3`].
        #[inline(always)]
        pub(crate) unsafe fn add2<const EOR3: bool>(self, a: Sum, b: Sum) -> Sum {
            // SAFETY: passed on.
            unsafe {
                Sum {
                    lo: xor3::<EOR3>(self.lo, a.lo, b.lo),
                    mid: xor3::<EOR3>(self.mid, a.mid, b.mid),
                    hi: xor3::<EOR3>(self.hi, a.hi, b.hi),
                }
            }
        }
    }

    /// The sum times t^−128 mod g̃, fully reduced. With the product's
    /// qwords w0 = l0, w1 = l1 ⊕ m0, w2 = h0 ⊕ m1, w3 = h1 (m the
    /// corrected middle, raw ⊕ lo ⊕ hi), two folds of the low qword,
    /// (w0, w1) ↦ (w1, w0) ⊕ w0 ⊗ C, then the high half added. The first
    /// fold is taken on lo alone, before the middle is split: m ⊕ swap(lo)
    /// ⊕ l0 ⊗ C has the folded w1 in lane 0 and w2's missing m1 ⊕ (the
    /// fold's high qword) in lane 1, so that the second fold, swap of that
    /// ⊕ its lane 0 ⊗ C ⊕ hi, is the result: no split of the middle into
    /// halves.
    ///
    /// # Safety
    ///
    /// As for [`xor3`]; and the CPU must support FEAT_PMULL.
    #[inline(always)]
    pub(crate) unsafe fn reduce<const EOR3: bool>(s: Sum) -> uint8x16_t {
        // SAFETY: the caller's contract covers the features used.
        unsafe {
            let c = vreinterpretq_u8_u64(vdupq_n_u64(FOLD));
            let mid = xor3::<EOR3>(s.mid, s.lo, s.hi);
            // (w1 ⊕ (l0⊗C)_0, m1 ⊕ l0 ⊕ (l0⊗C)_1)
            let m = xor3::<EOR3>(mid, vextq_u8::<8>(s.lo, s.lo), pmull(s.lo, c));
            xor3::<EOR3>(vextq_u8::<8>(m, m), pmull(m, c), s.hi)
        }
    }

    /// `reduce(a ⊗ b)` on integers.
    ///
    /// # Safety
    /// The CPU must support FEAT_PMULL.
    #[target_feature(enable = "aes")]
    unsafe fn mul_twisted(a: u128, b: u128) -> u128 {
        let (a, b) = (to_vec(a), to_vec(b));
        // SAFETY: no EOR3; PMULL is enabled here.
        from_vec(unsafe { reduce::<false>(product(a, b, fold_of(b))) })
    }

    /// ψ(H) · t mod g̃ = ψ(H · x^−1): left shift, reduce the bit shifted
    /// out. Constant time: the reduction is masked.
    fn twist(h: u128) -> u128 {
        let carry = (h >> 127).wrapping_neg();
        (h << 1) ^ (G_LOW & carry)
    }

    impl GhashKey for Pmull {
        const NAME: &'static str = "pmull";
        const CONSTANT_TIME: bool = true;
        const STORAGE_BYTES: usize = 8 * 16;

        fn is_available() -> bool {
            std::arch::is_aarch64_feature_detected!("aes")
        }

        fn new(h: &Block) -> Option<Self> {
            if !Self::is_available() {
                return None;
            }
            let h1 = twist(u128::from_be_bytes(*h));
            let mut powers = [h1; 8];
            for k in 1..8 {
                // SAFETY: FEAT_PMULL was detected just above.
                powers[k] = unsafe { mul_twisted(powers[k - 1], h1) };
            }
            Some(Pmull { powers })
        }

        fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
            // SAFETY: a `Pmull` is built only by `new`, after detection.
            unsafe { update(&self.powers, y, blocks) }
        }
    }

    /// For each 16-byte block X_i: Y ← (Y ⊕ X_i) · H, eight at a time.
    ///
    /// # Safety
    /// The CPU must support FEAT_PMULL.
    #[target_feature(enable = "aes")]
    unsafe fn update(powers: &[u128; 8], y: &mut Block, blocks: &[u8]) {
        let h = powers.map(|p| to_vec(p));
        let hf = h.map(|x| fold_of(x));
        let mut acc = load(y);
        for chunk in blocks.chunks(8 * 16) {
            // (Y ⊕ X1)·H^r ⊕ X2·H^(r−1) ⊕ … ⊕ Xr·H, one reduction.
            let r = chunk.len() / 16;
            let mut sum: Option<Sum> = None;
            for (j, x) in chunk.chunks_exact(16).enumerate() {
                let mut x = load(x.try_into().expect("a 16-byte block"));
                if j == 0 {
                    x = veorq_u8(x, acc);
                }
                let p = product(x, h[r - 1 - j], hf[r - 1 - j]);
                sum = Some(sum.map_or(p, |s| s.add(p)));
            }
            if let Some(sum) = sum {
                // SAFETY: no EOR3; PMULL is enabled here.
                acc = unsafe { reduce::<false>(sum) };
            }
        }
        store(y, acc);
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::ghash::field;
        use hex_literal::hex;

        const H: Block = hex!("66e94bd4ef8a2c3b884cfa59ca342b2e");

        fn key(h: &Block) -> Option<Pmull> {
            let key = Pmull::new(h);
            if key.is_none() {
                eprintln!("SKIP pmull: PMULL not available on this CPU");
            }
            key
        }

        #[test]
        fn powers_are_twisted_powers_of_h() {
            for h in [H, [0xff; 16], field::to_block(1), field::to_block(1 << 127)] {
                let Some(key) = key(&h) else { return };
                let h = field::from_block(&h);
                let mut expected = h;
                for (k, &p) in key.powers_to::<12>().iter().enumerate() {
                    assert_eq!(field::mul_p(p), expected, "H^{}", k + 1);
                    assert_eq!(p, twist(expected), "H^{}", k + 1);
                    expected = field::mul(expected, h);
                }
            }
        }

        /// GCM spec Appendix B, test case 2, and GHASH over 0 to 20 blocks
        /// against the field's plain product.
        #[test]
        fn spec_test_case_2_and_aggregation() {
            let Some(key) = key(&H) else { return };
            let mut y = [0u8; 16];
            key.update_blocks(
                &mut y,
                &hex!("0388dace60b6a392f328c2b971b2fe78 00000000000000000000000000000080"),
            );
            assert_eq!(y, hex!("f38cbb1ad69223dcc3457ae5b6b0f885"));

            let h = field::from_block(&H);
            for n in 0..=20 {
                let data: Vec<u8> = (0..n * 16).map(|i| (i * 37 + 11) as u8).collect();
                let expected = data.chunks_exact(16).fold(0x1234, |y, x| {
                    field::mul(y ^ field::from_block(x.try_into().unwrap()), h)
                });
                let mut y = field::to_block(0x1234);
                key.update_blocks(&mut y, &data);
                assert_eq!(field::from_block(&y), expected, "{n} blocks");
            }
        }

        /// The EOR3 form of the reduction equals the EOR form.
        #[test]
        fn eor3_reduction_matches() {
            if !std::arch::is_aarch64_feature_detected!("sha3") {
                eprintln!("SKIP pmull eor3: SHA3 not available on this CPU");
                return;
            }
            let Some(key) = key(&H) else { return };
            #[target_feature(enable = "aes,sha3")]
            fn both(a: u128, b: u128) -> (u128, u128) {
                let (a, b) = (to_vec(a), to_vec(b));
                let p = product(a, b, fold_of(b));
                let q = product(b, a, fold_of(a));
                // SAFETY: SHA3 and PMULL were detected by the caller.
                unsafe {
                    (
                        from_vec(reduce::<true>(p.add2::<true>(q, p))),
                        from_vec(reduce::<false>(p.add2::<false>(q, p))),
                    )
                }
            }
            for (i, &a) in key.powers.iter().enumerate() {
                let b = key.powers[7 - i] ^ (i as u128) << 70;
                // SAFETY: SHA3 and PMULL were detected.
                let (x, y) = unsafe { both(a, b) };
                assert_eq!(x, y);
            }
        }
    }
}

#[cfg(not(target_arch = "aarch64"))]
mod unsupported {
    unavailable_ghash!(
        /// PMULL is aarch64 only: here `Pmull` has no values.
        Pmull,
        "pmull",
        8 * 16
    );
}
