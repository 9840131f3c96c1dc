//! `ni-clmul`: AES-GCM's counter mode and GHASH in one pass, AES-NI rounds
//! stitched with PCLMULQDQ products on 128-bit registers. Constant-time.
//!
//! # CPU features
//!
//! `aes ∧ sse4.1` (the `ni` strategy: AESENC, PINSRD) `∧ pclmulqdq ∧ ssse3`
//! (the `clmul` strategy: PCLMULQDQ, PSHUFB), SSE2 being x86-64's baseline.
//! The kernel holds an [`Ni`] and a [`Clmul`], and each of them is already
//! the capability token for its half, so a `FusedNi` exists only where both
//! were detected; it needs no token of its own.
//!
//! # What it computes
//!
//! [`Kernel::crypt_blocks`]: for whole 16-byte blocks, C_i = P_i ⊕ E(K,
//! incr32^i(counter)) and Y ← (Y ⊕ C_i)·H over the ciphertext, in one pass
//! instead of the default's two. The keys are exactly `ni`'s round keys and
//! `clmul`'s twisted powers H..H^8; the IV, the AAD, partial blocks and the
//! tag go through those two strategies unchanged.
//!
//! # Why fuse
//!
//! The two halves want different execution resources: counter mode is
//! AESENC-bound with no dependency between blocks, GHASH is a chain
//! Y_{i+1} = (Y_i ⊕ C_i)·H broken only by aggregation. Run one after the
//! other, each leaves the other's units idle, and the data is read from
//! cache twice. Interleaved, the out-of-order core overlaps the PCLMULQDQ
//! of one batch with the AESENC of the next (S. Gueron and V. Krasnov's
//! "stitched" AES-GCM, the `aesni-gcm-x86_64` code in OpenSSL and
//! BoringSSL; the idea goes back to Intel's white paper by V. Gopal et al.,
//! *Enabling High-Performance Galois-Counter-Mode on Intel Architecture
//! Processors*, 2010).
//!
//! How much that buys depends on the core. Where AESENC and PCLMULQDQ issue
//! on different ports (Intel from Haswell on) the pass costs about what the
//! slower half does alone. On AMD Zen 4 they share the same two vector
//! pipes: measured there, counter mode alone runs at about 0.31 cycles per
//! byte (AES-128) and GHASH alone at about 0.37, and this kernel at about
//! 0.63, no faster than the two passes; the 256-bit kernel (`vaes-avx2`)
//! is the one to use on such a core.
//!
//! # Register layout
//!
//! Sixteen XMM registers: the eight AES states (counter blocks in FIPS-197
//! byte order, as in `ni.rs`), one round key, the unreduced GHASH sum as
//! three registers (lo, mid, hi of `clmul.rs`'s `Wide`), and a few for the
//! ciphertext block being multiplied, its power of H and the products. The
//! ciphertext is loaded at the point of use (byte-reversed into `clmul`'s
//! reflected integer), so it never has to be held across the rounds.
//!
//! # The math: eight blocks per reduction
//!
//! Exactly `clmul.rs`'s aggregated reduction, with its helpers
//! (`mul_wide`, `reduce`): for a batch X1..X8,
//!
//! ```text
//! Y' = (Y ⊕ X1)·H^8 ⊕ X2·H^7 ⊕ … ⊕ X8·H
//! ```
//!
//! eight unreduced 256-bit schoolbook products XORed together, then one
//! two-fold Montgomery reduction with 0xC2… (the twist by x^−1 is in the
//! stored powers, so the result comes out exact). 34 PCLMULQDQ per 128
//! bytes.
//!
//! # The schedule
//!
//! One iteration makes eight counter blocks and runs them through the
//! rounds; between round keys it computes one of the eight products:
//!
//! ```text
//! round 0        s_i ^= rk0                           (Y ⊕ X1)·H^8
//! round r=1..7   s_i = AESENC(s_i, rk_r), i = 0..7    ⊕= X_{r+1}·H^(8−r)
//! round 8        s_i = AESENC(s_i, rk8)               Y' = reduce(sum)
//! rounds 9..     s_i = AESENC(s_i, rk_r)
//! last           s_i = AESENCLAST(s_i, rk_last); P ⊕ s → C
//! ```
//!
//! AES has at least ten rounds, so the products and the reduction always
//! fit before the last one. The compiler and the core reorder freely; the
//! source order gives both a schedule in which neither unit waits.
//!
//! Decryption hashes the batch it is decrypting (the ciphertext is in the
//! buffer until the keystream is XORed in after the last round).
//! Encryption hashes the previous batch, whose ciphertext the previous
//! iteration wrote: the first batch is AES alone (`ni`'s `encrypt8`), and
//! the last is hashed after the loop, together with the tail.
//!
//! # The tail
//!
//! Fewer than eight blocks go through the strategies themselves:
//! `Ni::ctr32` (the blocks run side by side, padded to eight) and
//! `Clmul::update_blocks` (one block per reduction). Both are already
//! parallel where it helps, and neither has a second stream to overlap with.
//!
//! # Constant-time
//!
//! Yes: the instructions take the same time for every operand, the round
//! keys and powers are read at fixed indices, and the only branches are on
//! the length and the direction.
//!
//! # Rejected
//!
//! - A one-block stitched tail (one AES chain interleaved with one product
//!   and reduction): a third AES loop and a third GHASH loop to review, for
//!   at most seven blocks in which the strategies' own code already keeps
//!   the units busy.
//! - Holding the previous batch's ciphertext in registers for encryption:
//!   eight more XMM registers than there are; reading it back from L1 costs
//!   a load folded into PCLMULQDQ.
//! - Karatsuba products: see `clmul.rs`; the same reasoning holds here.

use zeroize::Zeroize;

use super::FusedKernel;
use super::kernel::Kernel;
use crate::aes::ni::Ni;
use crate::aes::{BlockCipher, KeySchedule};
use crate::ghash::GhashKey;
use crate::ghash::clmul::Clmul;

/// AES-NI and PCLMULQDQ in one pass. Holding one proves the CPU has both
/// halves' features: each field is its own capability token. Off x86-64
/// `Ni` and `Clmul` have no values, so neither has `FusedNi`.
pub(crate) struct FusedNi {
    aes: Ni,
    ghash: Clmul,
}

impl Kernel for FusedNi {
    type Aes = Ni;
    type Ghash = Clmul;

    fn aes(&self) -> &Ni {
        &self.aes
    }

    fn ghash(&self) -> &Clmul {
        &self.ghash
    }

    #[cfg(target_arch = "x86_64")]
    fn crypt_blocks(
        &self,
        counter: &mut crate::aes::Block,
        y: &mut crate::aes::Block,
        data: &mut [u8],
        direction: super::state::Direction,
    ) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: `self.aes` and `self.ghash` exist, so detection found
        // AES-NI, SSE4.1, PCLMULQDQ and SSSE3.
        unsafe { self.crypt(counter, y, data, direction) }
    }
}

impl FusedKernel for FusedNi {
    const NAME: &'static str = "ni-clmul";

    fn is_available() -> bool {
        Ni::is_available() && Clmul::is_available()
    }

    fn new(keys: &KeySchedule) -> Option<Self> {
        let aes = Ni::new(keys)?;
        let mut h = [[0u8; 16]]; // H = E(K, 0^128)
        aes.encrypt_blocks(&mut h);
        let ghash = Clmul::new(&h[0]);
        h.zeroize();
        Some(FusedNi { aes, ghash: ghash? })
    }
}

/// The intrinsics, x86-64 only.
#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m128i, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_loadu_si128, _mm_storeu_si128,
        _mm_xor_si128,
    };

    use super::FusedNi;
    use crate::aes::Block;
    use crate::aes::ni;
    use crate::gcm::kernel::finish_two_pass;
    use crate::gcm::state::Direction;
    use crate::ghash::clmul;

    /// Bytes per iteration: eight blocks.
    const BATCH: usize = 8 * 16;

    impl FusedNi {
        /// The one-pass loop; the contract of [`Kernel::crypt_blocks`].
        ///
        /// # Safety
        ///
        /// The CPU must support AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
        #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
        pub(super) unsafe fn crypt(
            &self,
            counter: &mut Block,
            y: &mut Block,
            data: &mut [u8],
            direction: Direction,
        ) {
            let p = self.ghash.powers();
            let h = [
                clmul::to_m128(p[0]),
                clmul::to_m128(p[1]),
                clmul::to_m128(p[2]),
                clmul::to_m128(p[3]),
                clmul::to_m128(p[4]),
                clmul::to_m128(p[5]),
                clmul::to_m128(p[6]),
                clmul::to_m128(p[7]),
            ];
            let mut acc = clmul::load(y);
            let mut ctr = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
            let batches = data.len() / BATCH;
            let (body, _) = data.split_at_mut(batches * BATCH);

            for i in 0..batches {
                let (done, rest) = body.split_at_mut(i * BATCH);
                let out = &mut rest[..BATCH];
                // SAFETY: the features `counter_blocks` needs are enabled here.
                let mut s = unsafe { ni::counter_blocks(counter, ctr) };
                ctr = ctr.wrapping_add(8);
                let hashed = match direction {
                    Direction::Decrypt => Some(&*out),
                    Direction::Encrypt if i > 0 => Some(&done[(i - 1) * BATCH..]),
                    Direction::Encrypt => None,
                };
                match hashed {
                    Some(x) => acc = self.stitch(&mut s, x, &h, acc),
                    // SAFETY: the features `encrypt8` needs are enabled here.
                    None => unsafe { self.aes.encrypt8(&mut s) },
                }
                xor_into(out, &s);
            }

            clmul::store(y, acc);
            counter[12..].copy_from_slice(&ctr.to_be_bytes());
            finish_two_pass(self, counter, y, data, (batches, BATCH), direction);
        }

        /// Runs the eight counter blocks `s` through AES while folding the
        /// eight ciphertext blocks `x` (128 bytes) into `acc`; returns the
        /// new GHASH value. The schedule is the module header's.
        #[inline]
        #[target_feature(enable = "aes,pclmulqdq,ssse3,sse2")]
        fn stitch(
            &self,
            s: &mut [__m128i; 8],
            x: &[u8],
            h: &[__m128i; 8],
            acc: __m128i,
        ) -> __m128i {
            let keys = self.aes.round_keys();
            let rounds = self.aes.rounds();
            let x: &[u8; BATCH] = x[..BATCH].try_into().expect("eight blocks");
            let block = |i: usize| clmul::load(&x[16 * i..16 * i + 16]);

            let k = round_key(&keys[0]);
            for si in s.iter_mut() {
                *si = _mm_xor_si128(*si, k);
            }
            let mut sum = clmul::mul_wide(_mm_xor_si128(acc, block(0)), h[7]);
            for r in 1..8 {
                aesenc(s, round_key(&keys[r]));
                sum = sum.xor(clmul::mul_wide(block(r), h[7 - r]));
            }
            aesenc(s, round_key(&keys[8]));
            let acc = clmul::reduce(sum);
            for key in &keys[9..rounds] {
                aesenc(s, round_key(key));
            }
            let k = round_key(&keys[rounds]);
            for si in s.iter_mut() {
                *si = _mm_aesenclast_si128(*si, k);
            }
            acc
        }
    }

    /// One middle round on all eight states.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn aesenc(s: &mut [__m128i; 8], k: __m128i) {
        for si in s.iter_mut() {
            *si = _mm_aesenc_si128(*si, k);
        }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn round_key(key: &Block) -> __m128i {
        // SAFETY: `key` is 16 readable bytes; MOVDQU needs no alignment.
        unsafe { _mm_loadu_si128(key.as_ptr().cast()) }
    }

    /// `out ^= keystream`, eight blocks.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn xor_into(out: &mut [u8], keystream: &[__m128i; 8]) {
        for (chunk, k) in out.chunks_exact_mut(16).zip(keystream) {
            let p = chunk.as_mut_ptr().cast::<__m128i>();
            // SAFETY: `chunk` is exactly 16 readable and writable bytes.
            unsafe { _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), *k)) };
        }
    }
}
