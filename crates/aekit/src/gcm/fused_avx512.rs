//! `vaes-avx512`: AES-GCM's counter mode and GHASH in one pass, with VAES
//! and VPCLMULQDQ on 512-bit registers, sixteen blocks per iteration.
//! Constant-time.
//!
//! # CPU features
//!
//! `vaes` ∧ `vpclmulqdq` ∧ `avx512f` ∧ `avx512bw` ∧ `avx512vl`: the union
//! of what `vaes` and `vclmul` need. The kernel holds a `Vaes` key and a
//! `Vclmul` key, each its own capability token, so holding a kernel proves
//! all five features; `new` computes H = E(K, 0^128) with the `Vaes` key
//! and precomputes the powers H^16…H^1 once, so a call does nothing but
//! load them.
//!
//! # Registers
//!
//! Per iteration (Linux's `aes-gcm-avx10-x86_64.S` uses the same plan):
//! four registers of counter blocks under AES (sixteen blocks), four of
//! ciphertext under GHASH, the four power registers [H^16..H^13] …
//! [H^4..H^1], the round keys broadcast to all lanes (11, 13 or 15), the
//! counter register (byte-reversed, count in the low dword of each lane, see
//! `vaes`), the byte-reversal mask, the fold constant and the accumulator:
//! about thirty of the thirty-two `zmm` registers. The compiled loops spill
//! nothing to the stack (checked in the disassembly for all six
//! instances: three key sizes, two directions).
//!
//! # The loop
//!
//! GHASH reads ciphertext. Decrypting, the ciphertext is the input: each
//! iteration loads sixteen blocks, hashes them and decrypts them at once.
//! Encrypting, it exists only after AES: the first sixteen blocks are
//! encrypted alone, then each iteration encrypts sixteen new counter blocks
//! while hashing the sixteen ciphertext blocks of the iteration before, and
//! the last sixteen are hashed after the loop. In both directions one
//! iteration is
//!
//! ```text
//! counters → round 0 → [AES-192/256: 2 or 4 rounds]
//! round  │ GHASH work beside it (data D0..D3, powers P0..P3, C = 0xC2 ≪ 56)
//! r−9    │ byte-reflect D0..D3, D0 ⊕= Y
//! r−8    │ LO  = D0⊗P0 ⊕ D1⊗P1             (low × low)
//! r−7    │ LO ⊕= D2⊗P2 ⊕ D3⊗P3
//! r−6    │ MI  = three of the eight cross products
//! r−5    │ MI ⊕= four more
//! r−4    │ MI ⊕= the last; fold LO into MI: MI ⊕= swap(LO) ⊕ LO_L⊗C
//! r−3    │ HI  = three high × high products
//! r−2    │ HI ⊕= the fourth; MI_L⊗C
//! r−1    │ R = HI ⊕ swap(MI) ⊕ MI_L⊗C  (each lane reduced)
//! last   │ AESENCLAST(s, k_last ⊕ input): the XOR with the data is folded
//!        │ into the last round key, off the critical path; Y = lanes of R XORed
//! ```
//!
//! The products are independent of the AES rounds, so an out-of-order core
//! runs both; writing them between the rounds keeps the window short
//! enough that it sees both kinds at once. The math of the aggregated
//! reduction (sixteen products summed unreduced, one two-fold reduction per
//! lane, then the four lanes XORed) is derived in `vclmul`'s header.
//!
//! # The tail
//!
//! After the loop fewer than sixteen blocks remain (the caller passes whole
//! blocks only; partial blocks are the state machine's). They go in one to
//! four registers (a const generic, so no padding block is encrypted), the
//! last with a lane mask; block j of n is multiplied by H^(n−j), read from
//! the stored powers at entry 16 − n + j, and the n products are reduced
//! once. A 64-byte message is one register of AES and four products.
//!
//! # Measured (Zen 4, one core, TSC cycles)
//!
//! In isolation, sixteen blocks of counter mode cost about 29 cycles
//! (AES-128) and sixteen blocks of GHASH about 35: on Zen 4 `VPCLMULQDQ`
//! on 512 bits issues about every other cycle and is the slower half.
//! Fused, an iteration costs about 53 cycles (0.21 cycles per byte for
//! AES-128, 0.24–0.26 for AES-256), about what the two halves cost on the
//! multiplier and AES pipes they partly share. Per message about 150–180
//! cycles go to the setup (J_0, E(K, Y_0), the lengths block, the tag).
//!
//! # Tried and rejected
//!
//! - Karatsuba in the loop (twelve products per sixteen blocks instead of
//!   sixteen, plus the a_L ⊕ a_H shuffles): no measurable gain here, and
//!   the shuffles compete with the AES pipes; the schoolbook form is kept.
//! - A loop over a runtime round count (as Linux's tail does): the round
//!   keys are a const-generic array instead, so every call site unrolls.
//! - Hashing the previous chunk and the tail with one reduction: it needs
//!   more than sixteen powers.
//!
//! # Citations
//!
//! E. Biggers, Linux `arch/x86/crypto/aes-gcm-avx10-x86_64.S` and its
//! BoringSSL port `aes-gcm-avx512-x86_64.pl` (the loop structure: first
//! chunk alone when encrypting, GHASH steps between the last nine AES
//! rounds, the `AESENCLAST` key-XOR trick, the masked tail with powers
//! chosen by the remaining length); S. Gueron, *Intel's New AES
//! Instructions for Enhanced Performance and Security* and S. Gueron,
//! M. Kounavis on aggregated reduction; OpenSSL's `aesni-gcm-x86_64.pl`
//! (A. Polyakov) for the original idea of stitching AES rounds with the
//! GHASH of earlier blocks. The code here is written from these
//! descriptions in Rust intrinsics.

#[cfg(target_arch = "x86_64")]
pub(crate) use imp::FusedAvx512;
#[cfg(not(target_arch = "x86_64"))]
pub(crate) use unsupported::FusedAvx512;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m128i, __m512i, _MM_PERM_BADC, _mm512_aesenc_epi128, _mm512_aesenclast_epi128,
        _mm512_clmulepi64_epi128, _mm512_loadu_si512, _mm512_mask_storeu_epi64,
        _mm512_maskz_loadu_epi64, _mm512_maskz_mov_epi64, _mm512_shuffle_epi8,
        _mm512_shuffle_epi32, _mm512_storeu_si512, _mm512_ternarylogic_epi32, _mm512_xor_si512,
        _mm512_zextsi128_si512,
    };

    use zeroize::Zeroize;

    use super::super::FusedKernel;
    use super::super::kernel::Kernel;
    use super::super::state::Direction;
    use crate::aes::vaes::{
        RoundKeys, Vaes, broadcast_keys, counter_blocks, counter_start, encrypt,
    };
    use crate::aes::{Block, BlockCipher, KeySchedule};
    use crate::ghash::GhashKey;
    use crate::ghash::vclmul::{
        Powers, Vclmul, Wide, bswap_mask, fold_constant, horizontal_xor, lane_mask, load_acc,
        mul_wide, reduce_to_128, sixteen, store_acc,
    };

    /// The `vaes` round keys and the `vclmul` powers of H; holding one
    /// proves the CPU has VAES, VPCLMULQDQ and AVX-512F/BW/VL (each half
    /// is its own capability token).
    pub(crate) struct FusedAvx512 {
        aes: Vaes,
        ghash: Vclmul,
    }

    impl Kernel for FusedAvx512 {
        type Aes = Vaes;
        type Ghash = Vclmul;

        fn aes(&self) -> &Vaes {
            &self.aes
        }

        fn ghash(&self) -> &Vclmul {
            &self.ghash
        }

        fn crypt_blocks(
            &self,
            counter: &mut Block,
            y: &mut Block,
            data: &mut [u8],
            direction: Direction,
        ) {
            debug_assert_eq!(data.len() % 16, 0);
            let (rk, h) = (self.aes.round_keys(), self.ghash.powers());
            let enc = direction == Direction::Encrypt;
            // SAFETY: `self.aes` exists, so VAES and AVX-512F/BW/VL were
            // detected; `self.ghash` exists, so VPCLMULQDQ was.
            unsafe {
                match (self.aes.rounds(), enc) {
                    (10, true) => crypt::<11, true>(rk, h, counter, y, data),
                    (10, false) => crypt::<11, false>(rk, h, counter, y, data),
                    (12, true) => crypt::<13, true>(rk, h, counter, y, data),
                    (12, false) => crypt::<13, false>(rk, h, counter, y, data),
                    (_, true) => crypt::<15, true>(rk, h, counter, y, data),
                    (_, false) => crypt::<15, false>(rk, h, counter, y, data),
                }
            }
        }
    }

    impl FusedKernel for FusedAvx512 {
        const NAME: &'static str = "vaes-avx512";

        fn is_available() -> bool {
            Vaes::is_available() && Vclmul::is_available()
        }

        fn new(keys: &KeySchedule) -> Option<Self> {
            let aes = Vaes::new(keys)?;
            let mut h = [[0u8; 16]]; // H = E(K, 0^128)
            aes.encrypt_blocks(&mut h);
            let ghash = Vclmul::new(&h[0]);
            h.zeroize();
            Some(FusedAvx512 { aes, ghash: ghash? })
        }
    }

    /// Counter mode and GHASH over whole blocks, `N` round keys, one pass.
    ///
    /// # Safety
    /// The CPU must support VAES, VPCLMULQDQ and AVX-512F/BW/VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
    unsafe fn crypt<const N: usize, const ENCRYPT: bool>(
        rk: &RoundKeys,
        powers: &Powers,
        counter: &mut Block,
        y: &mut Block,
        data: &mut [u8],
    ) {
        let k = broadcast_keys::<N>(rk);
        let mut ctr = counter_start(counter);
        let mut acc = load_acc(y);
        let mut chunks = data.chunks_exact_mut(256);
        if chunks.len() > 0 {
            let h = powers.load4();
            if ENCRYPT {
                // The first sixteen blocks have no ciphertext before them to
                // hash: AES only. Each later iteration hashes the previous
                // iteration's ciphertext while encrypting its own counters.
                if let Some(first) = chunks.next() {
                    let mut s = counter_blocks::<4>(&mut ctr);
                    for x in s.iter_mut() {
                        *x = _mm512_xor_si512(*x, k[0]);
                    }
                    for key in &k[1..N - 1] {
                        round(&mut s, *key);
                    }
                    let mut prev = last_round(&s, k[N - 1], first);
                    for chunk in &mut chunks {
                        (prev, acc) = sixteen_fused(&k, &h, &mut ctr, &prev, acc, chunk);
                    }
                    acc = sixteen(&h, &prev, acc);
                }
            } else {
                // Decryption hashes the ciphertext it is about to decrypt.
                for chunk in &mut chunks {
                    let c = load4(chunk);
                    (_, acc) = sixteen_fused(&k, &h, &mut ctr, &c, acc, chunk);
                }
            }
        }
        let rest = chunks.into_remainder();
        acc = match rest.len().div_ceil(64) {
            0 => acc,
            1 => tail::<N, ENCRYPT, 1>(&k, powers, &mut ctr, acc, rest),
            2 => tail::<N, ENCRYPT, 2>(&k, powers, &mut ctr, acc, rest),
            3 => tail::<N, ENCRYPT, 3>(&k, powers, &mut ctr, acc, rest),
            _ => tail::<N, ENCRYPT, 4>(&k, powers, &mut ctr, acc, rest),
        };
        store_acc(y, acc);
        let used = (data.len() / 16) as u32; // modulo 2^32, as incr32
        let low = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
        counter[12..].copy_from_slice(&low.wrapping_add(used).to_be_bytes());
    }

    /// Four registers from a 256-byte chunk.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load4(chunk: &[u8]) -> [__m512i; 4] {
        assert!(chunk.len() >= 256);
        // SAFETY: bytes 0..256 of `chunk` are readable (asserted above).
        unsafe {
            let p = chunk.as_ptr();
            [
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(64).cast()),
                _mm512_loadu_si512(p.add(128).cast()),
                _mm512_loadu_si512(p.add(192).cast()),
            ]
        }
    }

    /// The last AES round of four registers, XORed with the 256 bytes of
    /// `chunk`, written back and returned. `AESENCLAST(s, k ⊕ x)` equals
    /// `AESENCLAST(s, k) ⊕ x` (the last round ends in the key XOR), so
    /// the data XOR comes off the critical path.
    #[inline]
    #[target_feature(enable = "avx512f,vaes")]
    fn last_round(s: &[__m512i; 4], klast: __m512i, chunk: &mut [u8]) -> [__m512i; 4] {
        let x = load4(chunk);
        let mut out = *s;
        for ((o, x), s) in out.iter_mut().zip(x).zip(s) {
            *o = _mm512_aesenclast_epi128(*s, _mm512_xor_si512(klast, x));
        }
        assert!(chunk.len() >= 256);
        for (j, o) in out.iter().enumerate() {
            // SAFETY: bytes 64j..64j+64 of `chunk` are writable (asserted).
            unsafe { _mm512_storeu_si512(chunk.as_mut_ptr().add(64 * j).cast(), *o) };
        }
        out
    }

    /// One iteration of the main loop: AES on the next sixteen counter
    /// blocks, XORed into `chunk`, while the sixteen ciphertext blocks `g`
    /// are folded into `acc`. Returns what was written and the new `acc`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
    fn sixteen_fused<const N: usize>(
        k: &[__m512i; N],
        h: &[__m512i; 4],
        ctr: &mut __m512i,
        g: &[__m512i; 4],
        acc: __m128i,
        chunk: &mut [u8],
    ) -> ([__m512i; 4], __m128i) {
        let bswap = bswap_mask();
        let c = fold_constant();
        let mut s = counter_blocks::<4>(ctr);
        for x in s.iter_mut() {
            *x = _mm512_xor_si512(*x, k[0]);
        }
        // AES-192's and AES-256's extra rounds first, so that the part
        // interleaved with GHASH is the same nine rounds for every key size.
        for key in &k[1..N - 10] {
            round(&mut s, *key);
        }
        let m = &k[N - 10..N - 1]; // the last nine middle rounds

        // Byte-reflect the blocks; Y joins the first (multiplied by H^16).
        let d0 = _mm512_xor_si512(
            _mm512_shuffle_epi8(g[0], bswap),
            _mm512_zextsi128_si512(acc),
        );
        let d1 = _mm512_shuffle_epi8(g[1], bswap);
        let d2 = _mm512_shuffle_epi8(g[2], bswap);
        let d3 = _mm512_shuffle_epi8(g[3], bswap);
        round(&mut s, m[0]);

        // LO = Σ a_L ⊗ b_L over the four registers.
        let lo = _mm512_xor_si512(
            _mm512_clmulepi64_epi128(d0, h[0], 0x00),
            _mm512_clmulepi64_epi128(d1, h[1], 0x00),
        );
        round(&mut s, m[1]);
        let lo = xor3(
            lo,
            _mm512_clmulepi64_epi128(d2, h[2], 0x00),
            _mm512_clmulepi64_epi128(d3, h[3], 0x00),
        );
        round(&mut s, m[2]);

        // MI = Σ a_L ⊗ b_H ⊕ a_H ⊗ b_L: eight products.
        let mi = xor3(
            _mm512_clmulepi64_epi128(d0, h[0], 0x01),
            _mm512_clmulepi64_epi128(d1, h[1], 0x01),
            _mm512_clmulepi64_epi128(d2, h[2], 0x01),
        );
        round(&mut s, m[3]);
        let mi = xor3(
            mi,
            _mm512_clmulepi64_epi128(d3, h[3], 0x01),
            _mm512_clmulepi64_epi128(d0, h[0], 0x10),
        );
        let mi = xor3(
            mi,
            _mm512_clmulepi64_epi128(d1, h[1], 0x10),
            _mm512_clmulepi64_epi128(d2, h[2], 0x10),
        );
        round(&mut s, m[4]);

        // First fold, LO into MI, while the last MI product is in flight.
        let t = _mm512_clmulepi64_epi128(lo, c, 0x10); // LO_L ⊗ C
        let mi = _mm512_xor_si512(mi, _mm512_clmulepi64_epi128(d3, h[3], 0x10));
        let mi = xor3(mi, _mm512_shuffle_epi32(lo, _MM_PERM_BADC), t);
        round(&mut s, m[5]);

        // HI = Σ a_H ⊗ b_H.
        let hi = xor3(
            _mm512_clmulepi64_epi128(d0, h[0], 0x11),
            _mm512_clmulepi64_epi128(d1, h[1], 0x11),
            _mm512_clmulepi64_epi128(d2, h[2], 0x11),
        );
        round(&mut s, m[6]);

        // Second fold, MI into HI.
        let t = _mm512_clmulepi64_epi128(mi, c, 0x10); // MI'_L ⊗ C
        let hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(d3, h[3], 0x11));
        round(&mut s, m[7]);
        let r = xor3(hi, _mm512_shuffle_epi32(mi, _MM_PERM_BADC), t);
        round(&mut s, m[8]);

        let acc = horizontal_xor(r);
        (last_round(&s, k[N - 1], chunk), acc)
    }

    /// One middle AES round on four registers.
    #[inline]
    #[target_feature(enable = "avx512f,vaes")]
    fn round(s: &mut [__m512i; 4], key: __m512i) {
        for x in s.iter_mut() {
            *x = _mm512_aesenc_epi128(*x, key);
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi32(a, b, c, 0x96)
    }

    /// Fewer than sixteen blocks in `V` registers: AES on all of them at
    /// once, then each block multiplied by its own power of H (H^n for the
    /// first of n, …, H for the last) and one reduction.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
    fn tail<const N: usize, const ENCRYPT: bool, const V: usize>(
        k: &[__m512i; N],
        powers: &Powers,
        ctr: &mut __m512i,
        acc: __m128i,
        rest: &mut [u8],
    ) -> __m128i {
        let n = rest.len() / 16;
        assert!(n > 4 * (V - 1) && n <= 4 * V && n < 16);
        let bswap = bswap_mask();
        let mut s = counter_blocks::<V>(ctr);
        encrypt(k, &mut s);
        let mut sum = Wide::zero();
        for (j, s) in s.iter().enumerate() {
            let mask = lane_mask((n - 4 * j).min(4));
            let p = rest.as_mut_ptr().wrapping_add(64 * j);
            // SAFETY: the mask selects the blocks 4j..min(4j + 4, n), all in
            // `rest`; masked-off lanes are not accessed.
            let x = unsafe { _mm512_maskz_loadu_epi64(mask, p.cast()) };
            let out = _mm512_xor_si512(*s, x);
            // SAFETY: as above, for the store.
            unsafe { _mm512_mask_storeu_epi64(p.cast(), mask, out) };
            // The ciphertext, with the lanes past the end zero.
            let ct = if ENCRYPT {
                _mm512_maskz_mov_epi64(mask, out)
            } else {
                x
            };
            let mut d = _mm512_shuffle_epi8(ct, bswap);
            if j == 0 {
                d = _mm512_xor_si512(d, _mm512_zextsi128_si512(acc));
            }
            // SAFETY: entries 16 − n + 4j … plus the lanes in the mask end
            // at most at 16 − n + n = 16.
            let hp = unsafe { powers.load_from(16 - n + 4 * j, mask) };
            sum = sum.xor(mul_wide(d, hp));
        }
        reduce_to_128(sum)
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::aes::table::Table;
        use crate::gcm::kernel::Pair;
        use crate::ghash::bitserial::BitSerial;

        /// `crypt_blocks` against the two-pass (table, bitserial) pair for
        /// every block count up to 70 (several loop iterations plus every
        /// tail), both directions, three key sizes, with the 32-bit count
        /// about to wrap.
        #[test]
        fn matches_the_two_pass_pair_and_wraps() {
            for key_len in [16, 24, 32] {
                let ks = KeySchedule::new(&vec![0x5c; key_len]).unwrap();
                let Some(fused) = FusedAvx512::new(&ks) else {
                    eprintln!("SKIP vaes-avx512: not available on this CPU");
                    return;
                };
                let table = Table::new(&ks).unwrap();
                let mut h = [[0u8; 16]];
                table.encrypt_blocks(&mut h);
                let ghash = BitSerial::new(&h[0]).unwrap();
                let pair = Pair {
                    aes: &table,
                    ghash: &ghash,
                };
                for start in [1u32, 0xffff_fff8] {
                    for blocks in 0..=70 {
                        for direction in [Direction::Encrypt, Direction::Decrypt] {
                            let mut c1 = [0x3cu8; 16];
                            c1[12..].copy_from_slice(&start.to_be_bytes());
                            let mut c2 = c1;
                            let (mut y1, mut y2) = ([0x11u8; 16], [0x11u8; 16]);
                            let mut d1: Vec<u8> =
                                (0..16 * blocks).map(|i| (i * 7 + 3) as u8).collect();
                            let mut d2 = d1.clone();
                            fused.crypt_blocks(&mut c1, &mut y1, &mut d1, direction);
                            pair.crypt_blocks(&mut c2, &mut y2, &mut d2, direction);
                            let what =
                                format!("AES-{} start {start:#x} {blocks} blocks", key_len * 8);
                            assert!(d1 == d2, "data, {what}");
                            assert_eq!(y1, y2, "GHASH, {what}");
                            assert_eq!(c1, c2, "counter, {what}");
                        }
                    }
                }
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod unsupported {
    use super::super::FusedKernel;
    use super::super::kernel::Kernel;
    use crate::aes::{KeySchedule, vaes::Vaes};
    use crate::ghash::vclmul::Vclmul;

    /// VAES and VPCLMULQDQ are x86-64 only: here the kernel has no values.
    pub(crate) enum FusedAvx512 {}

    impl Kernel for FusedAvx512 {
        type Aes = Vaes;
        type Ghash = Vclmul;

        fn aes(&self) -> &Vaes {
            match *self {}
        }

        fn ghash(&self) -> &Vclmul {
            match *self {}
        }
    }

    impl FusedKernel for FusedAvx512 {
        const NAME: &'static str = "vaes-avx512";

        fn is_available() -> bool {
            false
        }

        fn new(_: &KeySchedule) -> Option<Self> {
            None
        }
    }
}
