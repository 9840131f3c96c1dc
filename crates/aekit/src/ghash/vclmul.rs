//! `vclmul`: GHASH with VPCLMULQDQ on 512-bit registers, sixteen blocks per
//! reduction. Constant time.
//!
//! # CPU features
//!
//! `avx512f` (512-bit registers, `VPTERNLOGD`, lane extracts),
//! `avx512bw` (`VPSHUFB` on 512 bits, byte-masked loads), `avx512vl` (the
//! same on 128-bit registers) and `vpclmulqdq` (four 64 × 64 carry-less
//! products per instruction, one per 128-bit lane). [`Vclmul`] is the
//! capability token: only [`new`](crate::ghash::GhashKey::new) builds one, after
//! `is_x86_feature_detected!` has seen all four, and the intrinsics live in
//! `#[target_feature]` functions reached only through it. Elsewhere than
//! x86-64 `Vclmul` is an uninhabited enum.
//!
//! # Representation
//!
//! Exactly that of `clmul` (read its header for the derivation): each
//! 128-bit lane holds the byte-reversed block, the integer
//! `u128::from_be_bytes(block)`, which is the bit-reflected polynomial;
//! products are reduced by two Montgomery folds with C = 0xC2 ≪ 56, which
//! multiply by t^−128, and every stored power of H is "twisted" by x^−1 so
//! that the folds give the plain product. A 512-bit register is four such
//! lanes, and `VPCLMULQDQ`, `VPSHUFD`, `VPTERNLOGD` act on each lane alone,
//! so the 128-bit algorithm runs four times at once, unchanged.
//!
//! # Storage
//!
//! The twisted H^16, H^15, …, H^1 in that order, 16 × 16 = 256 bytes,
//! 64-byte aligned, zeroized on drop. Highest first, so that one 64-byte
//! load gives the powers for four consecutive blocks, and so that for a tail
//! of n < 16 blocks the powers H^n … H^1 are the last n entries: the tail
//! starts its loads at entry 16 − n.
//!
//! # Aggregated reduction over sixteen blocks
//!
//! Horner's rule unrolled sixteen ways (spec §4.2 does it two ways):
//!
//! ```text
//! Y' = (…((Y ⊕ X1)·H ⊕ X2)·H … ⊕ X16)·H = (Y ⊕ X1)·H^16 ⊕ X2·H^15 ⊕ … ⊕ X16·H.
//! ```
//!
//! In registers: D0 = [X1 ⊕ Y, X2, X3, X4], …, D3 = [X13, …, X16] (lane 0
//! first) against P0 = [H^16, H^15, H^14, H^13], …, P3 = [H^4, …, H^1].
//! Each Dj ⊗ Pj is schoolbook: LO = a_L⊗b_L, MI = a_L⊗b_H ⊕ a_H⊗b_L,
//! HI = a_H⊗b_H, four `VPCLMULQDQ`. The four LO are XORed together, and the
//! MI and the HI (three-input XOR is one `VPTERNLOGD` with table 0x96), then
//! the reduction runs once, lane-wise, on the summed 256-bit products
//! (reduction is linear, so reducing the sum is reducing each term), and the
//! four reduced lanes are XORed into one 128-bit value. The lane-wise
//! reduction does four lanes' worth of folding in the same two
//! `VPCLMULQDQ` as one lane would, so folding before the horizontal XOR costs
//! nothing and keeps the horizontal XOR to 128-bit extracts.
//!
//! The fold, in the form of Linux's `aes-gcm-avx10-x86_64.S`: with
//! Z = HI·t^128 ⊕ MI·t^64 ⊕ LO and t^−64 ≡ t^64 ⊕ C (mod g̃),
//!
//! ```text
//! MI' = MI ⊕ swap(LO) ⊕ LO_L ⊗ C        (Z·t^−64  ≡ HI·t^64 ⊕ MI')
//! R   = HI ⊕ swap(MI') ⊕ MI'_L ⊗ C      (Z·t^−128 ≡ R)
//! ```
//!
//! where swap exchanges the 64-bit halves (`VPSHUFD` 0x4E); MI never has to
//! be split across LO and HI first.
//!
//! Cost per sixteen blocks: 16 + 2 `VPCLMULQDQ`, 4 `VPSHUFB`, about ten
//! `VPTERNLOGD`/`VPXORD`, 3 extracts; where 512-bit `VPCLMULQDQ` issues
//! about every other cycle (Zen 4) the multiplies, not the XORs, set the
//! pace. Figures: `docs/kernels/vclmul.md`.
//!
//! # Fewer than sixteen blocks
//!
//! n < 16 remaining blocks are multiplied by H^n, …, H^1 (the last n stored
//! powers) and summed unreduced, then reduced once: the same identity with
//! n terms. The last vector may hold one to three blocks; its data and its
//! powers are loaded with a lane mask, the missing lanes read as zero and add
//! 0 ⊗ 0 = 0. So a lone block (the lengths block) is one masked vector:
//! 4 + 2 `VPCLMULQDQ`.
//!
//! # Tried and rejected
//!
//! - Karatsuba (3 products per block instead of 4, plus the stored
//!   h_L ⊕ h_H): Linux's and BoringSSL's VPCLMULQDQ code measured it as not
//!   worth the extra XORs and shuffles; the schoolbook products are
//!   independent and the multiplier is pipelined.
//! - Reducing after every four blocks: four times the folds, and each group
//!   waits on the previous reduction.
//! - Thirty-two blocks per reduction: 512 bytes of powers for a saving of
//!   two `VPCLMULQDQ` in thirty-four; sixteen already keeps the multiplier
//!   busy for GHASH alone.
//!
//! Both rejections hold for this strategy on its own. The fused kernel
//! (`gcm/kernels/vaes_avx512.rs`) reduces once per 32 blocks, and on AMD
//! takes Karatsuba products: there the carry-less multiplies compete with
//! VAES for the same execution resource, so fewer products pay off (see
//! its header).
//!
//! # Constant time
//!
//! `VPCLMULQDQ`'s timing does not depend on its operands; the code is
//! straight-line except for branches on the public length; the powers are
//! read at offsets that depend only on the length.
//!
//! # Citations
//!
//! D. McGrew, J. Viega, *The Galois/Counter Mode of Operation* (§2.3, §4.2);
//! S. Gueron, M. Kounavis, *Intel Carry-Less Multiplication Instruction and
//! its Usage for Computing the GCM Mode* (reflected representation,
//! aggregated reduction); E. Biggers, Linux `aes-gcm-avx10-x86_64.S` (power
//! order H^16…H^1, the fold written as MI then HI, masked tail with a
//! single reduction).

#[cfg(target_arch = "x86_64")]
pub use imp::Vclmul;
#[cfg(target_arch = "x86_64")]
pub(crate) use imp::{
    Powers, Wide, bswap_mask, byte_mask, fold_constant, horizontal_xor, lane_mask, load_acc,
    mul_wide, reduce, reduce_to_128, sixteen, store_acc, xor3, ymm,
};
#[cfg(not(target_arch = "x86_64"))]
pub use unsupported::Vclmul;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m128i, __m512i, __mmask8, _MM_PERM_BADC, _mm_maskz_loadu_epi8, _mm_set_epi8,
        _mm_set_epi64x, _mm_shuffle_epi8, _mm_storeu_si128, _mm_ternarylogic_epi32, _mm_xor_si128,
        _mm512_broadcast_i32x4, _mm512_castsi512_si128, _mm512_clmulepi64_epi128,
        _mm512_extracti32x4_epi32, _mm512_loadu_si512, _mm512_maskz_loadu_epi8,
        _mm512_maskz_loadu_epi64, _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_shuffle_epi32,
        _mm512_ternarylogic_epi32, _mm512_xor_si512, _mm512_zextsi128_si512,
    };

    use zeroize::{Zeroize, ZeroizeOnDrop};

    use crate::aes::Block;
    use crate::ghash::GhashKey;
    use crate::ghash::clmul::{FOLD, twist};

    /// The twisted powers H^16, H^15, …, H^1, each in `clmul`'s integer
    /// form; 64-byte aligned so four of them are one aligned load.
    #[derive(Zeroize)]
    #[repr(C, align(64))]
    pub(crate) struct Powers(pub(crate) [u128; 16]);

    /// Proof that this CPU has AVX-512F/BW/VL and VPCLMULQDQ.
    struct Cpu(());

    impl Cpu {
        fn detect() -> Option<Cpu> {
            let ok = is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("vpclmulqdq");
            ok.then_some(Cpu(()))
        }
    }

    /// GHASH with VPCLMULQDQ on 512-bit registers. Holding one proves the
    /// CPU has AVX-512F/BW/VL and VPCLMULQDQ.
    #[derive(Zeroize, ZeroizeOnDrop)]
    pub struct Vclmul {
        powers: Powers,
        #[zeroize(skip)]
        _cpu: Cpu,
    }

    impl Vclmul {
        /// The twisted H^16 … H^1, for the fused kernel.
        pub(crate) fn powers(&self) -> &Powers {
            &self.powers
        }
    }

    impl GhashKey for Vclmul {
        const NAME: &'static str = "vclmul";
        const CONSTANT_TIME: bool = true;
        const STORAGE_BYTES: usize = size_of::<Powers>();

        fn is_available() -> bool {
            Cpu::detect().is_some()
        }

        fn new(h: &Block) -> Option<Self> {
            let cpu = Cpu::detect()?;
            // SAFETY: the features were detected just above.
            let powers = unsafe { powers(h) };
            Some(Vclmul { powers, _cpu: cpu })
        }

        fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
            debug_assert_eq!(blocks.len() % 16, 0);
            // SAFETY: `self._cpu` exists, so detection found the features.
            unsafe { update(&self.powers, y, blocks) }
        }

        /// The partial last block read with a byte mask, zero-padded in
        /// the register: no copy through memory.
        fn update_padded(&self, y: &mut Block, bytes: &[u8]) {
            // SAFETY: `self._cpu` exists, so detection found the features.
            unsafe { update(&self.powers, y, bytes) }
        }
    }

    /// The twisted H, H^2, …, H^16, stored highest first. Each power is one
    /// lane-0 product of the previous one and H (sixteen products, once per
    /// key).
    ///
    /// # Safety
    /// The CPU must support AVX-512F/BW/VL and VPCLMULQDQ.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
    unsafe fn powers(h: &Block) -> Powers {
        let h1 = twist(u128::from_be_bytes(*h));
        let h1v = _mm512_broadcast_i32x4(to_m128(h1));
        let mut powers = Powers([0; 16]);
        let mut p = h1v;
        powers.0[15] = h1;
        for k in (0..15).rev() {
            // twisted · twisted folds to the twisted product
            p = reduce(mul_wide(p, h1v));
            powers.0[k] = from_m128(_mm512_castsi512_si128(p));
        }
        powers
    }

    /// For each 16-byte block X_i: Y ← (Y ⊕ X_i) · H, sixteen blocks per
    /// reduction, then the rest with one more; a partial last block is
    /// zero-padded.
    ///
    /// # Safety
    /// The CPU must support AVX-512F/BW/VL and VPCLMULQDQ.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
    unsafe fn update(powers: &Powers, y: &mut Block, blocks: &[u8]) {
        let bswap = bswap_mask();
        let mut acc = load_acc(y);
        let mut sixteens = blocks.chunks_exact(256);
        if blocks.len() >= 256 {
            let h = powers.load4();
            for chunk in &mut sixteens {
                let mut d = [_mm512_setzero_si512(); 4];
                for (j, x) in d.iter_mut().enumerate() {
                    // SAFETY: `chunk` is 256 readable bytes, so bytes
                    // 64j..64j+64 are in it; the load needs no alignment.
                    *x = unsafe { _mm512_loadu_si512(chunk.as_ptr().add(64 * j).cast()) };
                }
                acc = sixteen(&h, &d, acc);
            }
        }
        let rest = sixteens.remainder();
        if rest.len() <= 16 && !rest.is_empty() {
            // One block (the lengths block, a short AAD): only lane 0 is
            // nonzero, so no horizontal XOR. A partial one is read with a
            // byte mask, zero-padded.
            let block = if rest.len() == 16 {
                load_acc(rest)
            } else {
                // SAFETY: the mask selects the bytes of `rest` and no
                // others; masked-off bytes are not accessed.
                let x = unsafe {
                    _mm_maskz_loadu_epi8(byte_mask(rest.len()) as u16, rest.as_ptr().cast())
                };
                _mm_shuffle_epi8(x, _mm512_castsi512_si128(bswap))
            };
            let d = _mm512_zextsi128_si512(_mm_xor_si128(acc, block));
            let h1 = _mm512_zextsi128_si512(to_m128(powers.0[15]));
            acc = _mm512_castsi512_si128(reduce(mul_wide(d, h1)));
        } else if !rest.is_empty() {
            acc = tail(powers, acc, rest, bswap);
        }
        store_acc(y, acc);
    }

    /// Sixteen blocks X1..X16 (spec byte order, four per register) folded
    /// into `acc`: (Y ⊕ X1)·H^16 ⊕ … ⊕ X16·H, one reduction. `h` is
    /// [`Powers::load4`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
    pub(crate) fn sixteen(h: &[__m512i; 4], x: &[__m512i; 4], acc: __m128i) -> __m128i {
        let bswap = bswap_mask();
        // Y joins X1, the block multiplied by H^16.
        let d0 = _mm512_xor_si512(
            _mm512_shuffle_epi8(x[0], bswap),
            _mm512_zextsi128_si512(acc),
        );
        let sum = mul_wide(d0, h[0])
            .xor(mul_wide(_mm512_shuffle_epi8(x[1], bswap), h[1]))
            .xor(mul_wide(_mm512_shuffle_epi8(x[2], bswap), h[2]))
            .xor(mul_wide(_mm512_shuffle_epi8(x[3], bswap), h[3]));
        reduce_to_128(sum)
    }

    /// Fewer than 256 bytes: up to sixteen blocks, the last one possibly
    /// partial, zero-padded. Block j of n times H^(n−j), all summed
    /// unreduced and reduced once.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
    fn tail(powers: &Powers, acc: __m128i, rest: &[u8], bswap: __m512i) -> __m128i {
        debug_assert!(!rest.is_empty() && rest.len() < 256);
        let n = rest.len().div_ceil(16);
        let mut sum = Wide::zero();
        for (j, vector) in rest.chunks(64).enumerate() {
            let mask = lane_mask(vector.len().div_ceil(16));
            // SAFETY: the byte mask selects exactly the bytes of `vector`;
            // masked-off bytes are not accessed.
            let raw =
                unsafe { _mm512_maskz_loadu_epi8(byte_mask(vector.len()), vector.as_ptr().cast()) };
            let mut d = _mm512_shuffle_epi8(raw, bswap);
            if j == 0 {
                d = _mm512_xor_si512(d, _mm512_zextsi128_si512(acc));
            }
            // SAFETY: see `Powers::load_from`; 16 − n + 4j plus the lanes in
            // the mask is at most 16.
            let h = unsafe { powers.load_from(16 - n + 4 * j, mask) };
            sum = sum.xor(mul_wide(d, h));
        }
        reduce_to_128(sum)
    }

    impl Powers {
        /// [H^16..H^13], [H^12..H^9], [H^8..H^5], [H^4..H^1].
        #[inline]
        #[target_feature(enable = "avx512f")]
        pub(crate) fn load4(&self) -> [__m512i; 4] {
            // SAFETY: `self.0` is 256 readable bytes; each load reads 64 of
            // them at offset 0, 64, 128, 192.
            unsafe {
                let p = self.0.as_ptr();
                [
                    _mm512_loadu_si512(p.cast()),
                    _mm512_loadu_si512(p.add(4).cast()),
                    _mm512_loadu_si512(p.add(8).cast()),
                    _mm512_loadu_si512(p.add(12).cast()),
                ]
            }
        }

        /// The powers at entries `start..`, lane i from entry start + i, only
        /// the lanes in `mask` (two bits per lane), the others zero.
        ///
        /// # Safety
        /// Every entry selected by `mask` must exist: `start` plus the
        /// number of lanes in `mask` is at most 16, and `mask` selects a
        /// prefix of the lanes.
        #[inline]
        #[target_feature(enable = "avx512f")]
        pub(crate) unsafe fn load_from(&self, start: usize, mask: __mmask8) -> __m512i {
            debug_assert!(start + (mask.count_ones() as usize) / 2 <= 16);
            // SAFETY: masked-off lanes are not accessed (AVX-512 masked
            // loads suppress them; LLVM's masked load does not access them),
            // and the lanes selected are in the array per the contract.
            unsafe { _mm512_maskz_loadu_epi64(mask, self.0.as_ptr().wrapping_add(start).cast()) }
        }
    }

    /// The 8-bit lane mask (two qwords per block) for the first `blocks`
    /// blocks of a vector, 1 ≤ `blocks` ≤ 4.
    #[inline(always)]
    pub(crate) fn lane_mask(blocks: usize) -> __mmask8 {
        debug_assert!((1..=4).contains(&blocks));
        (0xFFu32 >> (8 - 2 * blocks)) as __mmask8
    }

    /// The mask of the first `n` (≤ 64) bytes of a vector.
    #[inline(always)]
    pub(crate) fn byte_mask(n: usize) -> u64 {
        debug_assert!(n <= 64);
        u64::MAX.checked_shr(64 - n as u32).unwrap_or(0)
    }

    /// `VPSHUFB` mask reversing the 16 bytes of every lane: spec byte order
    /// ↔ the integer.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn bswap_mask() -> __m512i {
        _mm512_broadcast_i32x4(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ))
    }

    /// A block (spec byte order) as a reflected integer. Read as two 8-byte
    /// words: the caller has usually just written the block (Y, the
    /// lengths block) with 8-byte or 16-byte stores, which the CPU forwards
    /// to loads they contain, but not to a wider or masked load.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    pub(crate) fn load_acc(y: &[u8]) -> __m128i {
        let (lo, hi) = y.split_at(8);
        let word = |b: &[u8]| i64::from_le_bytes(b[..8].try_into().unwrap_or_default());
        let x = _mm_set_epi64x(word(hi), word(lo));
        _mm_shuffle_epi8(x, _mm512_castsi512_si128(bswap_mask()))
    }

    /// The inverse of [`load_acc`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    pub(crate) fn store_acc(y: &mut Block, acc: __m128i) {
        let x = _mm_shuffle_epi8(acc, _mm512_castsi512_si128(bswap_mask()));
        // SAFETY: `y` is 16 writable bytes; the store needs no alignment.
        unsafe { _mm_storeu_si128(y.as_mut_ptr().cast(), x) }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn to_m128(x: u128) -> __m128i {
        _mm_set_epi64x((x >> 64) as i64, x as i64)
    }

    #[inline]
    fn from_m128(x: __m128i) -> u128 {
        let mut b = [0u8; 16];
        // SAFETY: `b` is 16 writable bytes; SSE2 is part of x86-64.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) };
        u128::from_le_bytes(b)
    }

    /// Four unreduced 256-bit products, one per lane:
    /// hi·t^128 ⊕ mid·t^64 ⊕ lo (the MI of the module header).
    #[derive(Clone, Copy)]
    pub(crate) struct Wide {
        pub(crate) lo: __m512i,
        pub(crate) mid: __m512i,
        pub(crate) hi: __m512i,
    }

    impl Wide {
        #[inline]
        #[target_feature(enable = "avx512f")]
        pub(crate) fn zero() -> Wide {
            let z = _mm512_setzero_si512();
            Wide {
                lo: z,
                mid: z,
                hi: z,
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f")]
        pub(crate) fn xor(self, o: Wide) -> Wide {
            Wide {
                lo: _mm512_xor_si512(self.lo, o.lo),
                mid: _mm512_xor_si512(self.mid, o.mid),
                hi: _mm512_xor_si512(self.hi, o.hi),
            }
        }
    }

    /// Lane-wise schoolbook 128 × 128 products: four `VPCLMULQDQ`.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    pub(crate) fn mul_wide(a: __m512i, b: __m512i) -> Wide {
        // imm8 bit 0 picks a's qword, bit 4 picks b's.
        Wide {
            lo: _mm512_clmulepi64_epi128(a, b, 0x00),
            mid: _mm512_xor_si512(
                _mm512_clmulepi64_epi128(a, b, 0x01),
                _mm512_clmulepi64_epi128(a, b, 0x10),
            ),
            hi: _mm512_clmulepi64_epi128(a, b, 0x11),
        }
    }

    /// The fold multiplier C in the high half of every lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn fold_constant() -> __m512i {
        // In the high 64 bits of each lane, so that `VPCLMULQDQ` 0x10
        // pairs it with a low half.
        _mm512_broadcast_i32x4(_mm_set_epi64x(FOLD as i64, 0))
    }

    /// Lane-wise Z · t^−128 mod g̃ by the two folds of the module header.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    pub(crate) fn reduce(z: Wide) -> __m512i {
        let c = fold_constant();
        let t = _mm512_clmulepi64_epi128(z.lo, c, 0x10); // LO_L ⊗ C
        let lo = _mm512_shuffle_epi32(z.lo, _MM_PERM_BADC); // swap(LO)
        let mi = xor3(z.mid, lo, t); // MI'
        let t = _mm512_clmulepi64_epi128(mi, c, 0x10); // MI'_L ⊗ C
        let mi = _mm512_shuffle_epi32(mi, _MM_PERM_BADC); // swap(MI')
        xor3(z.hi, mi, t)
    }

    /// `a ⊕ b ⊕ c` in one `VPTERNLOGD`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi32(a, b, c, 0x96)
    }

    /// The XOR of the four 128-bit lanes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(crate) fn horizontal_xor(x: __m512i) -> __m128i {
        let a = _mm512_castsi512_si128(x);
        let b = _mm512_extracti32x4_epi32(x, 1);
        let c = _mm512_extracti32x4_epi32(x, 2);
        let d = _mm512_extracti32x4_epi32(x, 3);
        _mm_ternarylogic_epi32(_mm_xor_si128(a, b), c, d, 0x96)
    }

    /// Reduce each lane, then XOR the lanes: the 128-bit sum of the products.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,vpclmulqdq")]
    pub(crate) fn reduce_to_128(z: Wide) -> __m128i {
        horizontal_xor(reduce(z))
    }

    /// The same arithmetic on 256-bit registers, two lanes, VEX-encoded
    /// (AVX2 and VPCLMULQDQ, no AVX-512): for the `vaes-avx2` kernels,
    /// which run where AVX-512 does not exist.
    pub(crate) mod ymm {
        use core::arch::x86_64::{
            __m256i, _mm256_clmulepi64_epi128, _mm256_set_epi64x, _mm256_setzero_si256,
            _mm256_shuffle_epi32, _mm256_xor_si256,
        };

        use crate::ghash::clmul::FOLD;

        /// A lane-wise 256-bit product not yet reduced: lo ⊕ mid·t^64 ⊕ hi·t^128
        /// in each lane: the ZMM [`Wide`](super::Wide) on two lanes.
        #[derive(Clone, Copy)]
        pub(crate) struct Wide {
            pub(crate) lo: __m256i,
            pub(crate) mid: __m256i,
            pub(crate) hi: __m256i,
        }

        impl Wide {
            #[inline]
            #[target_feature(enable = "avx2")]
            pub(crate) fn zero() -> Wide {
                let z = _mm256_setzero_si256();
                Wide {
                    lo: z,
                    mid: z,
                    hi: z,
                }
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            pub(crate) fn xor(self, o: Wide) -> Wide {
                Wide {
                    lo: _mm256_xor_si256(self.lo, o.lo),
                    mid: _mm256_xor_si256(self.mid, o.mid),
                    hi: _mm256_xor_si256(self.hi, o.hi),
                }
            }
        }

        /// Lane-wise schoolbook 128 × 128 products: four `VPCLMULQDQ`.
        #[inline]
        #[target_feature(enable = "avx2,vpclmulqdq")]
        pub(crate) fn mul_wide(a: __m256i, b: __m256i) -> Wide {
            Wide {
                lo: _mm256_clmulepi64_epi128(a, b, 0x00),
                mid: _mm256_xor_si256(
                    _mm256_clmulepi64_epi128(a, b, 0x01),
                    _mm256_clmulepi64_epi128(a, b, 0x10),
                ),
                hi: _mm256_clmulepi64_epi128(a, b, 0x11),
            }
        }

        /// Lane-wise Z · t^−128 mod g̃ by two Montgomery folds with `clmul`'s
        /// C = 0xC2 ≪ 56 (the ZMM [`reduce`](super::reduce) on two lanes).
        #[inline]
        #[target_feature(enable = "avx2,vpclmulqdq")]
        pub(crate) fn reduce(z: Wide) -> __m256i {
            let c = _mm256_set_epi64x(FOLD as i64, 0, FOLD as i64, 0);
            let t = _mm256_clmulepi64_epi128(z.lo, c, 0x10);
            let lo = _mm256_shuffle_epi32(z.lo, 0x4e);
            let mi = _mm256_xor_si256(_mm256_xor_si256(z.mid, lo), t);
            let t = _mm256_clmulepi64_epi128(mi, c, 0x10);
            let mi = _mm256_shuffle_epi32(mi, 0x4e);
            _mm256_xor_si256(_mm256_xor_si256(z.hi, mi), t)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::ghash::field;
        use hex_literal::hex;

        const H: Block = hex!("66e94bd4ef8a2c3b884cfa59ca342b2e");

        fn key(h: &Block) -> Option<Vclmul> {
            let key = Vclmul::new(h);
            if key.is_none() {
                crate::skip(format_args!(
                    "vclmul: AVX-512 VPCLMULQDQ not available on this CPU"
                ));
            }
            key
        }

        #[test]
        fn powers_are_twisted_powers_of_h_highest_first() {
            for h in [H, [0xff; 16], field::to_block(1), field::to_block(1 << 127)] {
                let Some(key) = key(&h) else { return };
                let h = field::from_block(&h);
                let mut expected = h;
                for k in 1..=16 {
                    let p = key.powers.0[16 - k];
                    assert_eq!(p, twist(expected), "H^{k}");
                    assert_eq!(field::mul_p(p), expected, "H^{k}");
                    expected = field::mul(expected, h);
                }
            }
        }

        #[test]
        fn every_block_count_matches_algorithm_1() {
            let Some(key) = key(&H) else { return };
            let h = field::from_block(&H);
            let data: Vec<u8> = (0..70 * 16).map(|i| (i * 37 + 11) as u8).collect();
            for n in 0..=70 {
                let blocks = &data[..16 * n];
                let y0 = hex!("0123456789abcdef0011223344556677");
                let expected = blocks
                    .chunks_exact(16)
                    .fold(field::from_block(&y0), |y, x| {
                        field::mul(y ^ field::from_block(x.try_into().unwrap()), h)
                    });
                let mut y = y0;
                key.update_blocks(&mut y, blocks);
                assert_eq!(field::from_block(&y), expected, "{n} blocks");
            }
        }

        /// GCM spec Appendix B, test case 2.
        #[test]
        fn spec_test_case_2() {
            let Some(key) = key(&H) else { return };
            let mut y = [0u8; 16];
            key.update_blocks(
                &mut y,
                &hex!("0388dace60b6a392f328c2b971b2fe78 00000000000000000000000000000080"),
            );
            assert_eq!(y, hex!("f38cbb1ad69223dcc3457ae5b6b0f885"));
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod unsupported {
    unavailable_ghash!(
        /// VPCLMULQDQ is x86-64 only: here `Vclmul` has no values.
        Vclmul,
        "vclmul",
        16 * 16
    );
}
