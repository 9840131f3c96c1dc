//! `vaes-avx2`: AES-GCM's counter mode and GHASH in one pass on 256-bit
//! registers, VAES rounds stitched with VPCLMULQDQ products, for CPUs that
//! have VAES but not AVX-512 (AMD Zen 3, Intel client cores from Alder
//! Lake on). Constant-time. Figures: `docs/kernels/vaes_avx2.md`.
//!
//! # CPU features
//!
//! `avx2 ∧ vaes ∧ vpclmulqdq` (this kernel's own token, `Cpu`) `∧ aes ∧
//! sse4.1 ∧ pclmulqdq ∧ ssse3` (proved by the `ni-clmul` kernel it holds,
//! whose `ni` and `clmul` keys handle the IV, the AAD, partial blocks and
//! the tag). No AVX-512 feature is enabled, so only VEX encodings on YMM
//! and XMM registers are emitted: the kernel runs where EVEX does not
//! exist.
//!
//! # Registers
//!
//! A YMM register holds two blocks, one per 128-bit lane; VAES and
//! VPCLMULQDQ work on each lane as AESENC and PCLMULQDQ do on an XMM
//! register. One iteration handles sixteen blocks (256 bytes), allotted by
//! hand in the batch's `asm!`: ymm0–7 the AES states (counter blocks 2j
//! and 2j + 1 in register j), ymm8 the round key (VBROADCASTI128 from
//! `ni`'s round keys in memory), ymm9/10/11 the unreduced GHASH sums lo /
//! hi / middle, each lane summing its own products (the GHASH value comes
//! in and goes out in the low lane of ymm9), ymm12–14 the ciphertext pair
//! and its products, ymm15 the byte-reversal mask. Powers and their folds
//! are memory operands.
//!
//! # Counters
//!
//! Counter blocks are kept byte-reversed: the big-endian 32-bit count is
//! then dword 0 as a native integer, so VPADDD adds to it modulo 2^32
//! (exactly incr32) and one VPSHUFB restores the byte order. Rounds 0 and
//! 1 are done with the counter blocks, outside the stitched rounds. A
//! 96-bit IV's counter (IV ‖ count, public) takes FACE's first round
//! (`ctr/face/round1.rs`, the table the `ni-clmul` kernel holds) while a
//! batch's low byte is below 0xF0 (fifteen batches in sixteen): register
//! j is round 1 of the run's block with byte 15 zero (one VAESENC per 256
//! blocks) XOR a 32-byte load of the table's entries for counts 2j and
//! 2j + 1. Other batches, and every batch of a secret counter (J0 =
//! GHASH(IV) for a longer IV), add 2 to the byte-reversed pairs, shuffle
//! them back and run rounds 0 and 1.
//!
//! # The math: thirty-two blocks per reduction
//!
//! `clmul.rs`'s aggregated reduction, sixteen multipliers per batch:
//!
//! ```text
//! Y' = (Y ⊕ X1)·H^16 ⊕ X2·H^15 ⊕ … ⊕ X16·H
//! ```
//!
//! Register j holds (X_{2j+1}, X_{2j+2}) and is multiplied by the pair
//! (H^{16−2j}, H^{15−2j}); Y enters lane 0 of register 0. Each lane makes
//! its product by Karatsuba, three VPCLMULQDQ on both lanes at once: with
//! X = x1·z^64 ⊕ x0 and H = h1·z^64 ⊕ h0,
//!
//! ```text
//! lo = x0·h0    hi = x1·h1    mid' = (x0 ⊕ x1)·(h0 ⊕ h1)
//! X·H = hi·z^128 ⊕ (mid' ⊕ lo ⊕ hi)·z^64 ⊕ lo
//! ```
//!
//! where h0 ⊕ h1, the power's fold, is made at key setup ([`Folds`]) and
//! x0 ⊕ x1 by one VPSHUFD and one VPXOR. The sums lo, hi and mid' are
//! XORed over the eight registers, and `lo ⊕ hi` is added to the middle
//! sum once, before the reduction, which the linearity allows.
//!
//! Batches go in pairs ([`Kind`], [`Pairing`]): the first is multiplied by
//! H^32 … H^17 and left unreduced, the second's sums are added to it, and
//! then the sums are reduced (an odd batch out goes first, alone, with
//! H^16 … H^1):
//!
//! ```text
//! Y'' = (Y ⊕ X1)·H^32 ⊕ … ⊕ X16·H^17 ⊕ X17·H^16 ⊕ … ⊕ X32·H
//! ```
//!
//! The reduction (two Montgomery folds with 0xC2…, as `clmul`'s) runs on
//! both lanes at once and the lanes are added after, which its linearity
//! allows: three VPCLMULQDQ per two blocks, plus two per thirty-two.
//!
//! Karatsuba, not the schoolbook's four products: on Zen 3 VPCLMULQDQ
//! issues once in two cycles, VAESENC twice a cycle, so the products
//! bound the loop and one fewer per pair shortens it (figures in
//! `docs/kernels/vaes_avx2.md`).
//!
//! The powers H^(LONG + 4) … H^1, in descending order, are made at key
//! setup (`LongPowers`, 2 240 bytes, zeroized on drop): the multi-buffer
//! path's (`vaes_avx2_multi.rs`), and their last thirty-two are the
//! loop's sixteen lane pairs as they lie, (H^32, H^31) … (H^2, H^1), each
//! one 32-byte load ([`VaesAvx2::pairs`]), beside their folds in the same
//! order ([`Folds`], zeroized on drop). The round keys, `clmul`'s powers
//! and FACE's table are those of the `ni-clmul` kernel it holds.
//!
//! # The schedule
//!
//! ```text
//! (rounds 0, 1: with the counter blocks)             (Y ⊕ X1, X2)·(H^16, H^15), (X3, X4)·(H^14, H^13)
//! round r=2..7   s_j = VAESENC(s_j, rk_r), j = 0..7   ⊕= (X_{2r+1}, X_{2r+2})·(H^{16−2r}, H^{15−2r})
//! round 8        s_j = VAESENC(s_j, rk8)              Y' = lanes of reduce(sums) added (not the first of a pair)
//! rounds 9..     s_j = VAESENC(s_j, rk_r)
//! last           s_j = VAESENCLAST(s_j, rk_last); P ⊕ s → C
//! ```
//!
//! The batch is written as instructions (`asm!`, as `ni-clmul`'s is), so
//! that a round of the eight states and a pair's products alternate as
//! above. Decryption hashes the sixteen blocks it decrypts; encryption
//! hashes the previous sixteen: the first batch runs AES alone
//! (`rounds_alone`), the last is hashed after the loop on both lanes with
//! the same products and reduction (`hash_batch`).
//!
//! # The tail, and whole messages
//!
//! In the general path ([`Kernel::crypt_blocks`]) fewer than sixteen
//! blocks go through `ni`'s `ctr32` and `clmul`'s `update_blocks`.
//!
//! A whole message with a 96-bit IV goes through no `State`
//! ([`Kernel::crypt_whole`]):
//!
//! - At most eight blocks (`takes_ni`): the `ni-clmul` kernel's
//!   whole-message path, on the keys this kernel holds.
//! - Longer: the AAD hashed, then the whole blocks past the last whole
//!   batch (up to fifteen) run before the loop, alone in up to eight
//!   registers and hashed with one reduction (`head_pairs`); the loop over
//!   the whole batches; and the partial block, if any, whose keystream is
//!   made before the loop beside E(K, Y_0) (`end_keystream`), hashed with
//!   the lengths block in one reduction (`NiClmul::lengths_tag`). E(K,
//!   Y_0) and that keystream are an independent chain that the core runs
//!   beside the loop's first batch. Where the buffer is 16-byte aligned
//!   the split keeps the loop on a 32-byte boundary (with the other
//!   parity, one whole block goes after the loop, its keystream made
//!   beside E(K, Y_0) too: `head_blocks`), so that none of the loop's
//!   32-byte loads splits a cache line. Below one batch the loop is empty
//!   and every whole block goes before it.
//!
//! Out of place ([`Kernel::crypt_whole`], [`Kernel::crypt_blocks`])
//! the loop reads one buffer and writes the other, and the blocks around
//! it the same.
//!
//! # Constant-time
//!
//! VAES and VPCLMULQDQ take the same time for every operand, keys and
//! powers are read at fixed indices, and the only branches are on the
//! length, the buffer's address, the direction and, for a 96-bit IV's
//! counter (public), its count, which picks the counter blocks' path and
//! indexes FACE's table. A longer IV's J0 is GHASH(IV) under H: the loop
//! takes its fast paths only when told that the counter is public
//! (`batches`' `public`), asked before the count is looked at.
//! `crates/aekit-ctgrind` checks this under Memcheck.
//!
//! # Citations
//!
//! E. Biggers, Linux `aes-gcm-vaes-avx2.S` and `aes-gcm-avx10-x86_64.S`
//! (the structure: VAES on YMM, first chunk alone when encrypting, GHASH
//! between the rounds), which cite S. Gueron and V. Krasnov's stitched
//! AES-GCM; written here from the math above, not from that code. FACE's
//! first round as in `ctr/face/round1.rs`.
//!
//! # Rejected
//!
//! - Eight blocks per batch (four YMM, Linux's choice for AVX2): half the
//!   AES states in flight and twice the reductions per byte.
//! - One reduction per batch: one more reduction per thirty-two blocks.
//! - Schoolbook products (four VPCLMULQDQ a pair, no folds): the form
//!   tuned on Intel cores with AVX-512, where the products hide behind
//!   the AES rounds; on Zen 3 they bound the loop.
//! - The batch from intrinsics: the compiler stored the states between
//!   round 0 and the products, so rounds and products overlapped only as
//!   far as the core's window reached.
//! - A keyed form of the counter blocks (counts 16m + 2, register j the
//!   first pair XOR round key 0 XOR a constant): replaced by FACE's first
//!   round, which also saves round 1.
//! - A 2-block / 1-block stitched tail: a second schedule to review for at
//!   most fifteen blocks the strategies already run in parallel.
//! - Round keys broadcast to 32 bytes at key setup: 480 more bytes for
//!   what VBROADCASTI128 from memory does for a load.
//! - The last 0–255 bytes' AES before the loop as one batch: the loop keeps
//!   both AES units busy, so the moved rounds cost their issue slots there.
//! - The blocks past the whole batches through `ni-clmul`'s end after the
//!   loop: their AES chain and products then added their whole latency to
//!   the call.
//! - A whole-message loop of its own, reading one buffer and writing
//!   another, with the last bytes through a zero-padded copy: the shared
//!   loop spilled AES states, and the copies cost more than `State`.
//! - Fifteen blocks before the loop and one after for a message of whole
//!   batches that starts off a 32-byte boundary: slower than the split
//!   loads it avoids.
//! - The blocks before the loop hashed beside it rather than ahead of it
//!   (the loop from zero, their GHASH value times H^(the loop's blocks)
//!   added after): slower, the six more products costing more than the
//!   wait they saved (`docs/kernels/vaes_avx2.md`).

use core::arch::x86_64::{
    __m128i, __m256i, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_setzero_si128, _mm_shuffle_epi8,
    _mm_storeu_si128, _mm_xor_si128, _mm256_add_epi32, _mm256_aesenc_epi128,
    _mm256_aesenclast_epi128, _mm256_andnot_si256, _mm256_broadcastsi128_si256,
    _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_permute2x128_si256, _mm256_set_epi32, _mm256_setzero_si256, _mm256_shuffle_epi8,
    _mm256_storeu_si256, _mm256_xor_si256, _mm256_zextsi128_si256,
};

use core::arch::asm;
use core::borrow::BorrowMut;
use core::mem::MaybeUninit;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::Short;
use super::ni_clmul::NiClmul;
use super::ni_clmul_supplied;
use super::shared::{CONSTS, Kind, Pairing, end_keystream, round_key, zen3_or_zen4};
use super::vaes_avx2_multi::{crypt_groups, long_powers};
use crate::aes::ni::{self, Ni};
use crate::aes::{Block, BlockCipher, KeySchedule};
use crate::gcm::kernel::{
    BatchMessage, Direction, FusedKernel, Kernel, LONG, LongPowers, TOP, Text, as_uninit,
    assume_init, copy_into, finish_two_pass, in_output, taken,
};
use crate::ghash::GhashKey;
use crate::ghash::clmul::{self, Clmul};
use crate::ghash::vclmul::ymm::{Wide, mul_wide, reduce};

/// Bytes per iteration: sixteen blocks in eight registers.
const BATCH: usize = 16 * 16;

/// The longest message, in blocks (1 280 bytes), that a batch gives the
/// multi-buffer path on AMD Zen 3 and Zen 4 (`Kernel::lanes_pay`):
/// with this kernel forced on a Zen 4, batches of longer messages ran
/// faster one by one, and of shorter ones in lanes, but for messages of
/// three or more whole batches (768, 1 024 and 1 280 bytes), which the
/// one-message path runs with no blocks around its loop
/// (`docs/kernels/vaes_avx2_multi.md`).
const LONGEST_ON_ZEN: usize = 80;

/// Whether a whole message of `len` bytes takes `ni-clmul`'s
/// whole-message paths: at most eight blocks, one AES batch there with
/// E(K, Y_0) (the module header's "The tail, and whole messages").
/// Longer ones, below one of the loop's batches too, run as blocks before
/// an empty loop, which is faster from nine blocks on.
fn takes_ni(len: usize) -> bool {
    len <= 8 * 16
}

/// Proof that this CPU has AVX2, VAES and VPCLMULQDQ: zero-sized, and
/// built only by [`Cpu::detect`].
struct Cpu(());

impl Cpu {
    fn detect() -> Option<Cpu> {
        let ok = std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("vaes")
            && std::is_x86_feature_detected!("vpclmulqdq");
        ok.then_some(Cpu(()))
    }
}

/// VAES and VPCLMULQDQ on YMM in one pass. Holding one proves the CPU
/// has AVX2, VAES and VPCLMULQDQ (`_cpu`) and the `ni` and `clmul`
/// features (`ni`, whose keys and whole-message paths this kernel
/// also uses).
pub(crate) struct VaesAvx2 {
    ni: NiClmul,
    /// The powers, H^(LONG + 4) … H^1 in descending order: the
    /// multi-buffer path's (`vaes_avx2_multi.rs`), and the last thirty-two
    /// are the loop's (see [`VaesAvx2::pairs`]).
    long: Long,
    /// The folds of H^32 … H^1, at the indices of their powers in
    /// [`LongPowers::powers_32_to_1`] (see [`VaesAvx2::pairs`]).
    folds: Folds,
    _cpu: Cpu,
}

/// [`LongPowers`], zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
struct Long(LongPowers);

/// Each power's two 64-bit halves XORed, in both halves of its entry:
/// the multiplier of the Karatsuba middle product (the module header's
/// "The math"). Zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
struct Folds([u128; 32]);

impl Folds {
    fn of(powers: &[u128; 32]) -> Folds {
        Folds(powers.map(|p| {
            let fold = u128::from(p as u64 ^ (p >> 64) as u64);
            fold | fold << 64
        }))
    }
}

/// What the loop multiplies one batch by: eight pairs of powers (pair
/// j, a 32-byte load at entry 2j, lane 0 first) and their folds at the
/// same entries.
#[derive(Clone, Copy)]
struct Pairs<'a> {
    powers: &'a [u128; 16],
    folds: &'a [u128; 16],
}

impl Kernel for VaesAvx2 {
    type Aes = Ni;
    type Ghash = Clmul;

    fn aes(&self) -> &Ni {
        self.ni.aes()
    }

    fn ghash(&self) -> &Clmul {
        self.ni.ghash()
    }

    fn crypt_blocks(
        &self,
        counter: &mut Block,
        y: &mut Block,
        text: Text<'_>,
        direction: Direction,
        public: bool,
    ) {
        debug_assert_eq!(text.len() % 16, 0);
        // SAFETY: `self._cpu` proves AVX2, VAES and VPCLMULQDQ;
        // `self.ni` proves AES-NI and PCLMULQDQ; `text.io()` gives where
        // the blocks are read and written: the same bytes in place, or
        // the input, readable, and the output, writable (every byte is
        // written, and only what was written is read back), not
        // overlapping.
        unsafe { self.crypt(counter, y, text.io(), direction, public) }
    }

    /// A whole message with a 96-bit IV, no `State`: short ones
    /// ([`takes_ni`]) through `ni-clmul`'s whole-message path, on the
    /// keys this kernel holds (there the 256-bit registers' throughput
    /// does not pay for the fixed cost); longer ones through
    /// [`whole`](VaesAvx2::whole): the blocks past the whole batches,
    /// this kernel's loop over those, the partial block (see the
    /// module header's "The tail, and short messages").
    fn crypt_whole(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        mut text: Text<'_>,
        direction: Direction,
    ) -> Option<Block> {
        if let Some(short) = self.short(text.len())
            && let Some(tag) = short.crypt_text(iv, aad, &mut text, direction)
        {
            return Some(tag);
        }
        Some(self.whole_text(iv, aad, text, direction))
    }

    const LONGEST: usize = LONG;

    /// Every shape, but on AMD Zen 3 and Zen 4 no message longer than
    /// [`LONGEST_ON_ZEN`] blocks and none of exactly three or more whole
    /// batches (768, 1 024 and 1 280 bytes): there this kernel's
    /// one-message path runs those messages faster than the multi-buffer
    /// path (not a byte more or less, which puts blocks around its loop).
    fn lanes_pay() -> impl Fn(usize) -> bool {
        let zen = zen3_or_zen4();
        move |len| {
            let whole_batches = len >= 3 * BATCH && len.is_multiple_of(BATCH);
            !zen || (len <= 16 * LONGEST_ON_ZEN && !whole_batches)
        }
    }

    /// Groups of four messages of up to 2 KiB through the multi-buffer path
    /// (`vaes_avx2_multi.rs`).
    fn crypt_groups<'a, M: BorrowMut<BatchMessage<'a>>>(
        &self,
        run: &mut [M],
        direction: Direction,
        tags: &mut [Block],
        tag_ok: impl Fn(usize) -> bool,
    ) -> usize {
        let Some((run, tags, uniform)) = taken(run, LONG, tags, tag_ok) else {
            return 0;
        };
        let aes = self.ni.aes();
        let encrypt = direction == Direction::Encrypt;
        let keys = aes.round_keys();
        // SAFETY: `self._cpu` proves AVX2, VAES and VPCLMULQDQ; the run
        // is groups of four messages with 96-bit IVs and one shape of
        // at most `LONG` blocks, as long as `tags`, and of one length
        // if `uniform` (checked above).
        unsafe {
            crypt_groups(
                keys,
                aes.rounds(),
                (&self.long.0, self.ni.round1()),
                run,
                uniform,
                encrypt,
                tags,
            )
        };
        run.len()
    }

    /// The 128-bit consumer kernel on the `clmul` key.
    fn crypt_supplied(
        &self,
        keystream: &[u8],
        aad: &[u8],
        data: &mut [u8],
        direction: Direction,
    ) -> Option<Block> {
        Some(ni_clmul_supplied::crypt(
            self.ghash(),
            keystream,
            aad,
            data,
            direction,
        ))
    }
}

impl FusedKernel for VaesAvx2 {
    const NAME: &'static str = "vaes-avx2";

    fn is_available() -> bool {
        Cpu::detect().is_some() && Ni::is_available() && Clmul::is_available()
    }

    fn new(keys: &KeySchedule) -> Option<Self> {
        let cpu = Cpu::detect()?;
        let ni = NiClmul::new(keys)?;
        let ghash = ni.ghash();

        let mut all = ghash.powers_to::<32>();
        // SAFETY: `cpu` proves AVX2 and VPCLMULQDQ.
        let long = Long(unsafe { long_powers(&all) });
        all.zeroize();
        let folds = Folds::of(long.0.powers_32_to_1());
        Some(VaesAvx2 {
            ni,
            long,
            folds,
            _cpu: cpu,
        })
    }
}

impl VaesAvx2 {
    /// The short whole-message path ([`Short`]) of the `ni-clmul` kernel
    /// this one holds, for a message of at most eight blocks ([`takes_ni`]).
    #[inline(always)]
    pub(crate) fn short(&self, len: usize) -> Option<Short<'_>> {
        takes_ni(len).then(|| self.ni.short())
    }

    /// [`Kernel::crypt_whole`] for a message its short path did not
    /// take: the one-message calls reach it
    /// without a kernel op.
    #[inline(always)]
    pub(crate) fn whole_text(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        text: Text<'_>,
        direction: Direction,
    ) -> Block {
        let (input, out) = match text {
            Text::InPlace(data) if takes_ni(data.len()) => {
                return self.ni.whole_text(iv, aad, Text::InPlace(data), direction);
            }
            Text::Into { input, out } if takes_ni(input.len()) => {
                return self
                    .ni
                    .whole_text(iv, aad, Text::Into { input, out }, direction);
            }
            // SAFETY: in place, `data` is initialized, and `whole` writes
            // it with initialized bytes only.
            Text::InPlace(data) => (None, unsafe { as_uninit(data) }),
            Text::Into { input, out } => (Some(input), out),
        };
        // SAFETY: `self._cpu` proves AVX2, VAES and VPCLMULQDQ;
        // `self.ni` proves AES-NI and PCLMULQDQ.
        unsafe { self.whole(iv, aad, input, out, direction) }
    }

    /// H^16 … H^1, then the table's eight zero entries: what the loop
    /// multiplies a batch by that is hashed alone or second of a pair
    /// (pair j, a 32-byte load at entry 2j, is (H^{16−2j},
    /// H^{15−2j}), lane 0 first: the descending order puts the pairs
    /// side by side), and the blocks before the loop.
    fn low_powers(&self) -> &[u128; 24] {
        self.long.0.0[TOP - 16..]
            .try_into()
            .expect("H^16 … H^1 and eight zeros")
    }

    /// The eight pairs of powers a batch is multiplied by, and their
    /// folds: H^32 … H^17 for the first batch of a pair ([`Kind::Open`],
    /// whose sums the second's join before one reduction), H^16 … H^1
    /// otherwise.
    fn pairs(&self, kind: Kind) -> Pairs<'_> {
        fn half(all: &[u128; 32], kind: Kind) -> &[u128; 16] {
            let at = if kind == Kind::Open { 0 } else { 16 };
            all[at..at + 16].try_into().expect("sixteen entries")
        }
        Pairs {
            powers: half(self.long.0.powers_32_to_1(), kind),
            folds: half(&self.folds.0, kind),
        }
    }

    /// A whole message not [`takes_ni`]'s, in place in `out` (`input`
    /// `None`) or from `input` into `out` (of the same length, possibly
    /// uninitialized; every byte is written): the associated data
    /// hashed, the loop ([`batches`](Self::batches)) over the whole
    /// batches from Y_1 = IV ‖ 2, and the partial block, if any, whose
    /// keystream was made before the loop beside E(K, Y_0)
    /// ([`ends`](Self::ends)), hashed with the lengths block in one
    /// reduction ([`end`](Self::end)). Where whole blocks are left
    /// past the batches, or the loop would start off a 32-byte
    /// boundary ([`head_blocks`]), [`around`](Self::around) runs it.
    /// Returns the full tag.
    ///
    /// Two functions, not one: with the head's call inside it, every
    /// message was slower, those of whole batches too.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2, VAES, VPCLMULQDQ, AES-NI, PCLMULQDQ,
    /// SSSE3 and SSE4.1; in place, `out` must be initialized.
    #[target_feature(enable = "avx2,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn whole(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        input: Option<&[u8]>,
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
    ) -> Block {
        let (n, src, dst) = operands(input, out);
        let split = head_blocks(src, n);
        if split != (0, 0) {
            // SAFETY: passed on from the caller.
            return unsafe { self.around(iv, aad, input, out, direction, split) };
        }
        let done = n / BATCH * BATCH;
        // E(K, Y_0) and the partial block's keystream first: an
        // independent chain the core runs beside the loop, where at
        // the end the tag would wait for their rounds. (A 96-bit IV's
        // message has fewer than 2^32 blocks: no wrap.)
        let ends = if n == done {
            // E(K, Y_0) alone, on a 128-bit register and inline: for a
            // message of whole batches, faster than through `ends`.
            // SAFETY: the features are enabled here.
            let ek_y0 = unsafe { self.ni.tag_mask(iv) };
            [_mm256_zextsi128_si256(ek_y0), _mm256_setzero_si256()]
        } else {
            self.ends(iv, 2 + (done / 16) as u32, 1)
        };
        // SAFETY: the features `hash_aad` needs are enabled here.
        let acc = unsafe { self.ni.hash_aad(aad) };
        // Y_1 = IV ‖ 2, byte-reversed as `clmul::load` reads blocks.
        let counter = _mm_shuffle_epi8(ni::counter_block(iv, 2), clmul::byte_reverse_mask());
        // SAFETY: the features are enabled here; `src` and `dst` are
        // good for `n` ≥ `done` bytes, the same buffer or a shared and
        // a mutable borrow, which do not overlap.
        let (_, acc) = unsafe { self.batches(counter, acc, (src, dst, done), direction, true) };
        if done == n {
            let ek_y0 = _mm256_castsi256_si128(ends[0]);
            return self.ni.lengths_tag(acc, &[], (aad.len(), n), ek_y0);
        }
        // SAFETY: passed on from the caller.
        unsafe { self.end(acc, ends, (aad.len(), done, 0), input, out, direction) }
    }

    /// [`whole`](Self::whole) with `head` whole blocks before the loop
    /// (the associated data and those in [`start`](Self::start)) and
    /// `lag` after it ([`head_blocks`]). Never inlined: see `whole`.
    ///
    /// # Safety
    ///
    /// As [`whole`](Self::whole).
    #[inline(never)]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn around(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        input: Option<&[u8]>,
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
        (head, lag): (usize, usize),
    ) -> Block {
        let (n, src, dst) = operands(input, out);
        let before = 16 * head;
        let bulk = 16 * (n / 16 - head - lag);
        debug_assert!(bulk.is_multiple_of(BATCH));
        let done = before + bulk;
        // As in `whole`, with up to two blocks after the loop.
        let ends = self.ends(iv, 2 + (done / 16) as u32, (n - done).div_ceil(16));
        let acc = if head > 0 {
            // SAFETY: the features are enabled here; `src` and `dst`
            // are good for `n` > `before` bytes, the same buffer or a
            // shared and a mutable borrow, which do not overlap.
            unsafe { self.start(iv, aad, (src, dst), head, direction) }
        } else {
            // SAFETY: the features `hash_aad` needs are enabled here.
            unsafe { self.ni.hash_aad(aad) }
        };
        // Y_{1 + head} = IV ‖ 2 + head, byte-reversed.
        let counter = _mm_shuffle_epi8(
            ni::counter_block(iv, 2 + head as u32),
            clmul::byte_reverse_mask(),
        );
        let io = (src.wrapping_add(before), dst.wrapping_add(before), bulk);
        // SAFETY: the features are enabled here; `src` and `dst` are
        // good for `n` ≥ `done` bytes (as above).
        let (_, acc) = unsafe { self.batches(counter, acc, io, direction, true) };
        // SAFETY: passed on from the caller.
        unsafe { self.end(acc, ends, (aad.len(), done, lag), input, out, direction) }
    }

    /// The end of a long message whose bytes up to `done` are hashed
    /// into `acc`: the blocks after them (`lag` whole ones, then the
    /// partial one, if any) XORed with lanes 1 and 2 of `ends`
    /// ([`last_blocks`]) and hashed with the lengths block in one
    /// reduction, E(K, Y_0) (lane 0) added. Returns the full tag.
    ///
    /// # Safety
    ///
    /// As [`whole`](Self::whole); at most two blocks after `done`.
    #[inline(never)]
    #[target_feature(enable = "avx2,pclmulqdq,ssse3,sse2")]
    unsafe fn end(
        &self,
        acc: __m128i,
        ends: [__m256i; 2],
        (aad_len, done, lag): (usize, usize, usize),
        input: Option<&[u8]>,
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
    ) -> Block {
        let n = out.len();
        let lengths = (aad_len, n);
        let ek_y0 = _mm256_castsi256_si128(ends[0]);
        if done == n {
            return self.ni.lengths_tag(acc, &[], lengths, ek_y0);
        }
        let rest = match input {
            Some(input) => copy_into(&mut out[done..], &input[done..n]),
            // SAFETY: in place, `out` is the message (the contract).
            None => unsafe { assume_init(&mut out[done..]) },
        };
        let keystream = [
            _mm256_extracti128_si256::<1>(ends[0]),
            _mm256_castsi256_si128(ends[1]),
        ];
        let last = last_blocks(rest, lag, keystream, direction);
        self.ni
            .lengths_tag(acc, &last[..(n - done).div_ceil(16)], lengths, ek_y0)
    }

    /// The associated data hashed and the first `q` (1–15) whole
    /// blocks of a long message, from IV ‖ 2, read at `src` and
    /// written at `dst`: [`head_pairs`] with the registers counted;
    /// returns the GHASH value. Never inlined (as `vaes-avx512`'s
    /// `head_dispatch`): its eight forms inlined made every message
    /// slower, those with no head too.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2, VAES, VPCLMULQDQ, PCLMULQDQ and
    /// SSSE3; `src` must be readable and `dst` writable for 16 · `q`
    /// bytes, the same or not overlapping.
    #[inline(never)]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq,pclmulqdq,ssse3")]
    unsafe fn start(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        io: (*const u8, *mut u8),
        q: usize,
        direction: Direction,
    ) -> __m128i {
        // SAFETY: the features `hash_aad` needs are enabled here (AVX2
        // implies SSE4.1).
        let acc = unsafe { self.ni.hash_aad(aad) };
        let aes = (self.aes().round_keys(), self.aes().rounds());
        let powers = self.low_powers();
        let encrypt = direction == Direction::Encrypt;
        let first = (iv, acc, q, encrypt);
        // SAFETY: passed on from the caller; ⌈q/2⌉ registers.
        unsafe {
            match q.div_ceil(2) {
                1 => head_pairs::<1>(aes, powers, first, io),
                2 => head_pairs::<2>(aes, powers, first, io),
                3 => head_pairs::<3>(aes, powers, first, io),
                4 => head_pairs::<4>(aes, powers, first, io),
                5 => head_pairs::<5>(aes, powers, first, io),
                6 => head_pairs::<6>(aes, powers, first, io),
                7 => head_pairs::<7>(aes, powers, first, io),
                _ => head_pairs::<8>(aes, powers, first, io),
            }
        }
    }

    /// E(K, Y_0) in lane 0, and the keystream of the `after` (at most
    /// two) blocks from IV ‖ `next` in lanes 1 and 2, of two 256-bit
    /// registers ([`end_keystream`] with the key's rounds and the
    /// registers chosen; the second zero for `after` below two).
    #[inline(never)]
    #[target_feature(enable = "avx2,vaes,aes,sse4.1")]
    fn ends(&self, iv: &[u8; 12], next: u32, after: usize) -> [__m256i; 2] {
        let keys = self.aes().round_keys();
        let zero = _mm256_setzero_si256();
        match (self.aes().rounds(), after) {
            (10, 0 | 1) => [end_keystream::<11, 1>(keys, iv, next, after)[0], zero],
            (12, 0 | 1) => [end_keystream::<13, 1>(keys, iv, next, after)[0], zero],
            (_, 0 | 1) => [end_keystream::<15, 1>(keys, iv, next, after)[0], zero],
            (10, _) => end_keystream::<11, 2>(keys, iv, next, after),
            (12, _) => end_keystream::<13, 2>(keys, iv, next, after),
            _ => end_keystream::<15, 2>(keys, iv, next, after),
        }
    }

    /// [`Kernel::crypt_blocks`] from `src` to `dst`, `n` bytes (whole
    /// blocks), every byte of `dst` written.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2, VAES, VPCLMULQDQ, AES-NI, PCLMULQDQ,
    /// SSSE3 and SSE4.1; `src` must be readable and `dst` writable for
    /// `n` bytes, the same buffer or two that do not overlap.
    #[target_feature(enable = "avx2,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn crypt(
        &self,
        counter: &mut Block,
        y: &mut Block,
        (src, dst, n): (*const u8, *mut u8, usize),
        direction: Direction,
        public: bool,
    ) {
        let bulk = n / BATCH * BATCH;
        // SAFETY: the features are enabled here; the buffers are good
        // for `n` ≥ `bulk` bytes (the caller's contract).
        let (next, acc) = unsafe {
            self.batches(
                clmul::load(counter),
                clmul::load(y),
                (src, dst, bulk),
                direction,
                public,
            )
        };
        clmul::store(y, acc);
        clmul::store(counter, next);
        // The rest (under 256 bytes), in place in `dst`, copied there
        // first when out of place: every batch is hashed, in both
        // directions.
        let (from, to) = (src.wrapping_add(bulk), dst.wrapping_add(bulk));
        // SAFETY: both are good for the last n − bulk bytes, the same
        // buffer or not overlapping (the caller's contract).
        let rest = unsafe { in_output(from, to, n - bulk) };
        finish_two_pass(self, counter, y, rest, (0, BATCH), direction);
    }

    /// The loop over the whole batches of `n` bytes from `src`,
    /// written to `dst`, from counter block
    /// `counter` with GHASH value `acc` (both as `clmul::load` reads
    /// them: the counter byte-reversed, its count in dword 0), every
    /// batch hashed (the last of an encryption after the loop).
    /// Returns the next counter block and the GHASH value, the same
    /// way. `public`: the counter is IV ‖ count for a 96-bit IV, which
    /// the counter blocks' faster paths may branch on; otherwise (J0 =
    /// GHASH(IV), the general path's) every batch takes the
    /// branch-free way.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2, VAES, VPCLMULQDQ, PCLMULQDQ and SSSE3;
    /// `src` must be readable and `dst` writable for `n` bytes (a
    /// multiple of [`BATCH`]), the same buffer or two that do not
    /// overlap.
    #[target_feature(enable = "avx2,vaes,vpclmulqdq,pclmulqdq,ssse3")]
    unsafe fn batches(
        &self,
        counter: __m128i,
        acc: __m128i,
        (src, dst, n): (*const u8, *mut u8, usize),
        direction: Direction,
        public: bool,
    ) -> (__m128i, __m128i) {
        debug_assert_eq!(n % BATCH, 0);
        // Batch i of the input and of the output, 256 bytes each.
        let batch = |p: *const u8, i: usize| -> &[u8; BATCH] {
            // SAFETY: batch i < n / BATCH lies in the buffer `p` is
            // (the caller's contract); read only where it is written:
            // the input, or an output batch the loop has written.
            unsafe { &*p.wrapping_add(i * BATCH).cast::<[u8; BATCH]>() }
        };
        let reverse = _mm256_broadcastsi128_si256(clmul::byte_reverse_mask());
        // Byte-reversed counter blocks (ctr, ctr + 1): dword 0 of each
        // lane is the 32-bit count.
        let mut ctr = _mm256_add_epi32(
            _mm256_broadcastsi128_si256(counter),
            _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0),
        );
        let two = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2);
        let sixteen = _mm256_set_epi32(0, 0, 0, 16, 0, 0, 0, 16);
        // The count of lane 0 of `ctr`.
        let mut low = _mm_cvtsi128_si32(counter) as u32;
        // Rounds 0 and 1 are done here, with the counter blocks: the
        // states enter `stitch` at round 2.
        let keys = self.aes().round_keys();
        let (k0, k1) = (round_key(&keys[0]), round_key(&keys[1]));
        // FACE's first round (the module header's "Counters"): `r` is
        // round 1 of lane 0's block with byte 15 zero, in both lanes.
        let run_round1 = |ctr: __m256i| {
            let lane0 = _mm256_permute2x128_si256::<0>(ctr, ctr);
            let base = _mm256_andnot_si256(byte15(0xff), _mm256_shuffle_epi8(lane0, reverse));
            _mm256_aesenc_epi128(_mm256_xor_si256(base, k0), k1)
        };
        let mut r = run_round1(ctr);

        let batches = n / BATCH;
        // Hashed batches go in pairs, one reduction per pair, the odd
        // one out alone first (encryption hashes all but the last
        // here).
        let mut pairing = Pairing::new(match direction {
            Direction::Decrypt => batches,
            Direction::Encrypt => batches.saturating_sub(1),
        });
        // The GHASH value in the low lane of the sums' first register.
        let mut sums = [
            _mm256_zextsi128_si256(acc),
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
        ];
        for i in 0..batches {
            let mut s = [r; 8];
            // Only a public counter (a 96-bit IV's, IV ‖ count) may
            // choose the path or index the table: a longer IV's J0 is
            // GHASH under H, and a branch on its bits or a load at
            // them would time the key. `public` is asked first, so a
            // secret count is never looked at.
            if public && low & 0xff < 0xf0 {
                // The sixteen counts share bytes 0..14: round 1 is `r`
                // XOR the table's entries at the low byte.
                let p = self.ni.round1().entries(low as u8, 16);
                for (j, sj) in s.iter_mut().enumerate() {
                    // SAFETY: `p` points to sixteen entries of 16
                    // bytes; register j reads entries 2j and 2j + 1.
                    let t = unsafe { _mm256_loadu_si256(p.add(2 * j).cast()) };
                    *sj = _mm256_xor_si256(r, t);
                }
                ctr = _mm256_add_epi32(ctr, sixteen);
            } else {
                for sj in &mut s {
                    let block = _mm256_shuffle_epi8(ctr, reverse);
                    *sj = _mm256_aesenc_epi128(_mm256_xor_si256(block, k0), k1);
                    ctr = _mm256_add_epi32(ctr, two);
                }
                if public {
                    r = run_round1(ctr);
                }
            }
            low = low.wrapping_add(16);
            let hashed = match direction {
                Direction::Decrypt => Some(batch(src, i)),
                Direction::Encrypt if i > 0 => Some(batch(dst, i - 1)),
                Direction::Encrypt => None,
            };
            let hashed = hashed.map(|x| (&x[..], pairing.next()));
            self.stitch(&mut s, hashed, &mut sums);
            // SAFETY: batch i is in both buffers (the contract above).
            unsafe { xor_into(src.wrapping_add(i * BATCH), dst.wrapping_add(i * BATCH), &s) };
        }
        debug_assert!(pairing.closed(), "hashed batches pair up");
        let mut acc = _mm256_castsi256_si128(sums[0]);
        if direction == Direction::Encrypt && batches > 0 {
            // The last batch's ciphertext, hashed a batch behind: on
            // both lanes here rather than by `clmul` one block at a
            // time with the tail.
            // SAFETY: the features are enabled here; the last batch
            // is 256 readable bytes, written.
            acc = unsafe { hash_batch(batch(dst, batches - 1), self.pairs(Kind::Alone), acc) };
        }
        // Lane 0 of `ctr`: the next counter block.
        (_mm256_castsi256_si128(ctr), acc)
    }

    /// Runs the eight counter-block pairs `s`, rounds 0 and 1 already
    /// done, through AES rounds 2 on while folding
    /// the sixteen ciphertext blocks of `hashed` (256 bytes; none for
    /// the first batch of an encryption) into `sums` as its [`Kind`]
    /// says (see [`stitched`], which writes the schedule out as
    /// instructions).
    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq,pclmulqdq,ssse3")]
    fn stitch(&self, s: &mut [__m256i; 8], hashed: Option<(&[u8], Kind)>, sums: &mut [__m256i; 3]) {
        let keys = self.aes().round_keys();
        let rounds = self.aes().rounds();
        let Some((x, kind)) = hashed else {
            // The first batch of an encryption: AES alone.
            // SAFETY: `keys` holds `rounds` + 1 round keys; the
            // features are enabled on this function.
            unsafe { rounds_alone(s, keys, rounds) };
            return;
        };
        let x: &[u8; BATCH] = x[..BATCH].try_into().expect("16 blocks");
        // SAFETY: `x` is 256 readable bytes; `keys` holds `rounds` + 1
        // round keys, `self.pairs` eight 32-byte pairs, `CONSTS` 32
        // bytes; the features are enabled on this function.
        unsafe { stitched(s, x, keys, rounds, self.pairs(kind), kind, sums) }
    }
}

/// `v` in byte 15 of both lanes (the top byte of dword 3, the count's
/// low byte in spec byte order), zero elsewhere.
#[inline]
#[target_feature(enable = "avx2")]
fn byte15(v: i32) -> __m256i {
    _mm256_set_epi32(v << 24, 0, 0, 0, v << 24, 0, 0, 0)
}

/// The blocks after the loop, `rest` (a whole one if `lag` is one,
/// then a partial one, if any), XORed with `keystream` in order; the
/// ciphertext of each, zero-padded and reflected, returned in the
/// same order (zero past them) for GHASH.
#[inline]
#[target_feature(enable = "ssse3,sse2")]
fn last_blocks(
    rest: &mut [u8],
    lag: usize,
    keystream: [__m128i; 2],
    direction: Direction,
) -> [__m128i; 2] {
    // The ciphertext of a block read as `x` and written as `y`,
    // reflected.
    #[inline]
    #[target_feature(enable = "ssse3,sse2")]
    fn hashed((x, y): (__m128i, __m128i), direction: Direction) -> __m128i {
        let ct = match direction {
            Direction::Encrypt => y,
            Direction::Decrypt => x,
        };
        _mm_shuffle_epi8(ct, clmul::byte_reverse_mask())
    }
    let (block, partial) = rest.split_at_mut(16 * lag);
    let mut last = [_mm_setzero_si128(); 2];
    if let Ok(block) = <&mut Block>::try_from(block) {
        // In registers here (`ni::xor_block`, which takes a whole or
        // a partial block, was not inlined: a call a block).
        let p = block.as_mut_ptr().cast::<__m128i>();
        // SAFETY: `block` is 16 readable and writable bytes; the load
        // and store need no alignment.
        let xy = unsafe {
            let x = _mm_loadu_si128(p);
            let y = _mm_xor_si128(x, keystream[0]);
            _mm_storeu_si128(p, y);
            (x, y)
        };
        last[0] = hashed(xy, direction);
    }
    if !partial.is_empty() {
        last[lag] = hashed(ni::xor_partial(partial, keystream[lag]), direction);
    }
    last
}

/// The message's length and the two buffers' starts: from `input` into
/// `out`, or in place in `out` (`input` `None`).
fn operands(input: Option<&[u8]>, out: &mut [MaybeUninit<u8>]) -> (usize, *const u8, *mut u8) {
    let n = input.map_or(out.len(), |input| input.len().min(out.len()));
    let dst = out.as_mut_ptr().cast::<u8>();
    (n, input.map_or(dst.cast_const(), <[u8]>::as_ptr), dst)
}

/// How a message of `n` bytes from `src` (not [`takes_ni`]'s) is split
/// around the loop: whole blocks before it and after it (at most
/// one), so that the loop ends at the message's last whole block, or
/// one before it. Before the loop the blocks run beside its first
/// batch. A loop 16 bytes off a 32-byte boundary splits a cache line at
/// every other 32-byte load (and in place store): where blocks go
/// before it and leave it there in a 16-byte aligned buffer, one goes
/// after it instead, its keystream made before the loop
/// ([`end_keystream`]). A message of whole batches that starts off the
/// boundary keeps its loop there (fifteen blocks before it and one after
/// are slower than the split loads). Below one batch every whole block
/// goes before an empty loop. Depends on the length and the address,
/// which are public.
fn head_blocks(src: *const u8, n: usize) -> (usize, usize) {
    let spare = n / 16 % (BATCH / 16);
    let aligned = (src as usize).is_multiple_of(16);
    // Whether the loop, after `spare` blocks, would start 16 bytes off.
    let off = (src as usize / 16 + spare) % 2 == 1;
    if aligned && off && spare > 0 && n >= BATCH {
        (spare - 1, 1)
    } else {
        (spare, 0)
    }
}

/// The first `q` blocks of a long message (`first`: the IV, the GHASH
/// value of the associated data, `q` and the direction) in `R` =
/// ⌈q/2⌉ registers from IV ‖ 2: counter mode from `io.0` into `io.1`
/// and the ciphertext hashed into the GHASH value, which is returned:
/// register j's pair of blocks times H^{q−2j}, H^{q−2j−1} (the
/// powers from entry 16 − q + 2j of the stored H^16 … H^1, one 32-byte
/// load; for an odd `q` the last register's second lane is zero and
/// meets the zero entry after H^1), one reduction.
///
/// # Safety
///
/// The CPU must support AVX2, VAES and VPCLMULQDQ; `io.0` must be
/// readable and `io.1` writable for 16 · `q` bytes, the same or not
/// overlapping; 2R − 1 ≤ `q` ≤ 2R ≤ 16.
#[inline]
#[target_feature(enable = "avx2,vaes,vpclmulqdq")]
unsafe fn head_pairs<const R: usize>(
    (keys, rounds): (&[Block; 15], usize),
    powers: &[u128; 24],
    (iv, acc, q, encrypt): (&[u8; 12], __m128i, usize, bool),
    (src, dst): (*const u8, *mut u8),
) -> __m128i {
    debug_assert!(2 * R - 1 <= q && q <= 2 * R && R <= 8);
    let reverse = _mm256_broadcastsi128_si256(clmul::byte_reverse_mask());
    // Byte-reversed counter blocks (2 + 2j, 3 + 2j), as the loop's.
    let mut ctr = _mm256_add_epi32(
        _mm256_broadcastsi128_si256(_mm_shuffle_epi8(
            ni::counter_block(iv, 2),
            clmul::byte_reverse_mask(),
        )),
        _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0),
    );
    let two = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2);
    let k0 = round_key(&keys[0]);
    let mut s: [__m256i; R] = core::array::from_fn(|_| {
        let block = _mm256_xor_si256(_mm256_shuffle_epi8(ctr, reverse), k0);
        ctr = _mm256_add_epi32(ctr, two);
        block
    });
    for key in &keys[1..rounds] {
        let k = round_key(key);
        for sj in &mut s {
            *sj = _mm256_aesenc_epi128(*sj, k);
        }
    }
    let k = round_key(&keys[rounds]);
    let mut sum = Wide::zero();
    for (j, sj) in s.iter().enumerate() {
        let keystream = _mm256_aesenclast_epi128(*sj, k);
        let (from, to) = (src.wrapping_add(32 * j), dst.wrapping_add(32 * j));
        // The pair, or the last block alone (lane 1 zero).
        let pair = 2 * j + 2 <= q;
        // SAFETY: blocks 2j (and 2j + 1 for a pair) are among the
        // first `q`, readable at `src` and writable at `dst` (the
        // caller's contract); the loads and stores need no alignment.
        let (x, y) = unsafe {
            if pair {
                let x = _mm256_loadu_si256(from.cast());
                let y = _mm256_xor_si256(x, keystream);
                _mm256_storeu_si256(to.cast(), y);
                (x, y)
            } else {
                let x = _mm256_zextsi128_si256(_mm_loadu_si128(from.cast()));
                let y = _mm256_xor_si256(x, keystream);
                _mm_storeu_si128(to.cast(), _mm256_castsi256_si128(y));
                (x, _mm256_zextsi128_si256(_mm256_castsi256_si128(y)))
            }
        };
        let mut ct = _mm256_shuffle_epi8(if encrypt { y } else { x }, reverse);
        if j == 0 {
            ct = _mm256_xor_si256(ct, _mm256_zextsi128_si256(acc));
        }
        // SAFETY: entries 16 − q + 2j and the next lie inside the 24
        // (16 − q + 2j + 1 ≤ 16 for j < R).
        let h = unsafe { _mm256_loadu_si256(powers.as_ptr().add(16 - q + 2 * j).cast()) };
        sum = sum.xor(mul_wide(ct, h));
    }
    let lanes = reduce(sum);
    _mm_xor_si128(
        _mm256_castsi256_si128(lanes),
        _mm256_extracti128_si256::<1>(lanes),
    )
}

/// One middle round (`$op` `vaesenc` or `vaesenclast`) of the
/// eight states ymm0–ymm7 with round key `$n`, broadcast into ymm8.
#[rustfmt::skip] // one instruction per line
macro_rules! round {
    ($op:literal, $n:literal) => {
        concat!(
            "vbroadcasti128 ymm8, xmmword ptr [{keys} + 16*", $n, "]\n",
            $op, " ymm0, ymm0, ymm8\n",
            $op, " ymm1, ymm1, ymm8\n",
            $op, " ymm2, ymm2, ymm8\n",
            $op, " ymm3, ymm3, ymm8\n",
            $op, " ymm4, ymm4, ymm8\n",
            $op, " ymm5, ymm5, ymm8\n",
            $op, " ymm6, ymm6, ymm8\n",
            $op, " ymm7, ymm7, ymm8\n",
        )
    };
}

/// `$m!(…, rounds 9 to the last)` for a key of `$rounds` rounds (10,
/// 12 or 14): `$m`'s arguments, then the rounds after round 8 as
/// [`round!`]s, by key size.
macro_rules! after_round_8 {
    ($rounds:expr, $m:ident!($($args:tt)*)) => {
        match $rounds {
            10 => $m!($($args)* round!("vaesenc", "9"), round!("vaesenclast", "10")),
            12 => $m!(
                $($args)*
                round!("vaesenc", "9"),
                round!("vaesenc", "10"),
                round!("vaesenc", "11"),
                round!("vaesenclast", "12")
            ),
            _ => $m!(
                $($args)*
                round!("vaesenc", "9"),
                round!("vaesenc", "10"),
                round!("vaesenc", "11"),
                round!("vaesenc", "12"),
                round!("vaesenc", "13"),
                round!("vaesenclast", "14")
            ),
        }
    };
}

/// Blocks 2i and 2i + 1 (ymm12, reflected by the mask in ymm15) times
/// their pair of powers (entry i): the Karatsuba products added to lo
/// (ymm9), hi (ymm10) and the unfinished middle (ymm11), its fold of
/// the blocks made in ymm13.
#[rustfmt::skip] // one instruction per line
macro_rules! product {
    ($i:literal) => {
        concat!(
            "vmovdqu ymm12, ymmword ptr [{x} + 32*", $i, "]\n",
            "vpshufb ymm12, ymm12, ymm15\n",
            "vpclmulqdq ymm13, ymm12, ymmword ptr [{h} + 32*", $i, "], 0x00\n",
            "vpxor ymm9, ymm9, ymm13\n",
            "vpclmulqdq ymm13, ymm12, ymmword ptr [{h} + 32*", $i, "], 0x11\n",
            "vpxor ymm10, ymm10, ymm13\n",
            "vpshufd ymm13, ymm12, 0x4e\n",
            "vpxor ymm13, ymm13, ymm12\n",
            "vpclmulqdq ymm13, ymm13, ymmword ptr [{f} + 32*", $i, "], 0x00\n",
            "vpxor ymm11, ymm11, ymm13\n",
        )
    };
}

/// Blocks 0 and 1, the GHASH value (xmm9) added to block 0, times
/// their pair of powers (entry 0): the products start lo, hi and the
/// middle.
#[rustfmt::skip] // one instruction per line
macro_rules! first_product {
    () => {
        concat!(
            "vmovdqu ymm12, ymmword ptr [{x}]\n",
            "vpshufb ymm12, ymm12, ymm15\n",
            "vmovdqa xmm13, xmm9\n",
            "vpxor ymm12, ymm12, ymm13\n",
            "vpclmulqdq ymm9, ymm12, ymmword ptr [{h}], 0x00\n",
            "vpclmulqdq ymm10, ymm12, ymmword ptr [{h}], 0x11\n",
            "vpshufd ymm13, ymm12, 0x4e\n",
            "vpxor ymm13, ymm13, ymm12\n",
            "vpclmulqdq ymm11, ymm13, ymmword ptr [{f}], 0x00\n",
        )
    };
}

/// The middle finished (lo and hi added: Karatsuba's), each lane's sums
/// reduced as `clmul`'s `reduce` does (the middle split across lo and
/// hi, lo folded twice with 0xC2…, hi added), then
/// the two lanes added: the new GHASH value in xmm9. (The reduction is
/// linear, so reducing both lanes at once and adding them after costs
/// one lane addition where adding the three sums' lanes first cost
/// three.)
#[rustfmt::skip] // one instruction per line
macro_rules! reduce {
    () => {
        concat!(
            "vpxor ymm11, ymm11, ymm9\n",
            "vpxor ymm11, ymm11, ymm10\n",
            "vpslldq ymm13, ymm11, 8\n",
            "vpsrldq ymm11, ymm11, 8\n",
            "vpxor ymm9, ymm9, ymm13\n",
            "vpxor ymm10, ymm10, ymm11\n",
            "vbroadcasti128 ymm14, xmmword ptr [{consts} + 16]\n",
            "vpclmulqdq ymm13, ymm9, ymm14, 0x10\n",
            "vpshufd ymm9, ymm9, 0x4e\n",
            "vpxor ymm9, ymm9, ymm13\n",
            "vpclmulqdq ymm13, ymm9, ymm14, 0x10\n",
            "vpshufd ymm9, ymm9, 0x4e\n",
            "vpxor ymm9, ymm9, ymm13\n",
            "vpxor ymm9, ymm9, ymm10\n",
            "vextracti128 xmm13, ymm9, 1\n",
            "vpxor xmm9, xmm9, xmm13\n",
        )
    };
}

/// The stitched batch as instructions: from intrinsics the compiler
/// ran the first round, stored the eight states to the stack, did all
/// sixteen products, then reloaded the states for the other rounds,
/// so that the products and the rounds overlapped only as far as the
/// core's window reached. Here a round of the eight states and the
/// products of one pair alternate (the module header's schedule); the
/// states stay in ymm0–ymm7, the sums lo, hi and middle in ymm9–ymm11
/// (in and out: the GHASH value in the low lane of ymm9, or a pair's
/// first sums), the reflection mask in ymm15, the round key in ymm8.
/// `h` is the batch's eight pairs of powers ([`VaesAvx2::pairs`]).
///
/// # Safety
/// The CPU must support AVX2, VAES and VPCLMULQDQ; `rounds` is 10, 12
/// or 14 and `keys` holds that many round keys and one.
#[target_feature(enable = "avx2,vaes,vpclmulqdq")]
#[inline]
unsafe fn stitched(
    s: &mut [__m256i; 8],
    x: &[u8; BATCH],
    keys: &[Block],
    rounds: usize,
    h: Pairs<'_>,
    kind: Kind,
    sums: &mut [__m256i; 3],
) {
    // The schedule: the reflection mask loaded (every batch: no
    // register is kept between two `asm!` blocks), the first two
    // pairs' products, rounds 2–7 each followed by a pair's products,
    // round 8, `$reduce`, the rest.
    macro_rules! schedule {
        ($first:expr, $reduce:expr, $($end:expr),+) => {
            asm!(
                "vbroadcasti128 ymm15, xmmword ptr [{consts}]",
                $first,
                product!("1"),
                round!("vaesenc", "2"),
                product!("2"),
                round!("vaesenc", "3"),
                product!("3"),
                round!("vaesenc", "4"),
                product!("4"),
                round!("vaesenc", "5"),
                product!("5"),
                round!("vaesenc", "6"),
                product!("6"),
                round!("vaesenc", "7"),
                product!("7"),
                round!("vaesenc", "8"),
                $reduce,
                $($end),+,
                keys = in(reg) keys.as_ptr(),
                h = in(reg) h.powers.as_ptr(),
                f = in(reg) h.folds.as_ptr(),
                consts = in(reg) CONSTS.0.as_ptr(),
                x = in(reg) x.as_ptr(),
                inout("ymm0") s[0],
                inout("ymm1") s[1],
                inout("ymm2") s[2],
                inout("ymm3") s[3],
                inout("ymm4") s[4],
                inout("ymm5") s[5],
                inout("ymm6") s[6],
                inout("ymm7") s[7],
                out("ymm8") _,
                inout("ymm9") sums[0],
                inout("ymm10") sums[1],
                inout("ymm11") sums[2],
                out("ymm12") _,
                out("ymm13") _,
                out("ymm14") _,
                out("ymm15") _,
                options(nostack, readonly, preserves_flags),
            )
        };
    }
    // The rounds after round 8, by key size.
    macro_rules! by_rounds {
        ($first:expr, $reduce:expr) => {
            after_round_8!(rounds, schedule!($first, $reduce,))
        };
    }
    // SAFETY: the caller's contract: `x` (256 bytes), the round keys,
    // the powers (eight 32-byte pairs from `h`) and `CONSTS` (32
    // bytes) are read at offsets inside them; the features are enabled
    // on this function.
    unsafe {
        match kind {
            Kind::Alone => by_rounds!(first_product!(), reduce!()),
            Kind::Open => by_rounds!(first_product!(), ""),
            Kind::Close => by_rounds!(product!("0"), reduce!()),
        }
    }
}

/// Rounds 2 on of the eight states with no products (an encryption's
/// first batch), as instructions like [`stitched`]: written as a loop
/// over the round keys, the compiler unrolled it or not, and kept
/// values of the loop around it in registers or on the stack, depending
/// on code elsewhere in this file (once it unrolled the loop by two and
/// spilled values of `batches`).
///
/// # Safety
/// The CPU must support AVX2 and VAES; `rounds` is 10, 12 or 14 and
/// `keys` holds that many round keys and one.
#[target_feature(enable = "avx2,vaes")]
#[inline]
unsafe fn rounds_alone(s: &mut [__m256i; 8], keys: &[Block], rounds: usize) {
    macro_rules! alone {
        ($($round:expr),+) => {
            asm!(
                $($round),+,
                keys = in(reg) keys.as_ptr(),
                inout("ymm0") s[0],
                inout("ymm1") s[1],
                inout("ymm2") s[2],
                inout("ymm3") s[3],
                inout("ymm4") s[4],
                inout("ymm5") s[5],
                inout("ymm6") s[6],
                inout("ymm7") s[7],
                out("ymm8") _,
                options(nostack, readonly, preserves_flags),
            )
        };
    }
    // SAFETY: the caller's contract: the round keys are read at
    // offsets inside them; the features are enabled on this function.
    unsafe {
        after_round_8!(
            rounds,
            alone!(
                round!("vaesenc", "2"),
                round!("vaesenc", "3"),
                round!("vaesenc", "4"),
                round!("vaesenc", "5"),
                round!("vaesenc", "6"),
                round!("vaesenc", "7"),
                round!("vaesenc", "8"),
            )
        )
    }
}

/// GHASH of one batch (256 bytes at `x`, the GHASH value `acc` added
/// to its first block) times H^16 … H^1, one reduction: the products
/// and reduction of [`stitched`] without the rounds.
///
/// # Safety
/// The CPU must support AVX2 and VPCLMULQDQ.
#[target_feature(enable = "avx2,vpclmulqdq")]
unsafe fn hash_batch(x: &[u8; BATCH], h: Pairs<'_>, acc: __m128i) -> __m128i {
    let acc_out: __m128i;
    // SAFETY: `x` (256 bytes), the eight pairs of powers (256
    // bytes) and `CONSTS` (32 bytes) are read at offsets inside them;
    // the features are enabled on this function.
    unsafe {
        asm!(
            "vbroadcasti128 ymm15, xmmword ptr [{consts}]",
            first_product!(),
            product!("1"),
            product!("2"),
            product!("3"),
            product!("4"),
            product!("5"),
            product!("6"),
            product!("7"),
            reduce!(),
            h = in(reg) h.powers.as_ptr(),
            f = in(reg) h.folds.as_ptr(),
            consts = in(reg) CONSTS.0.as_ptr(),
            x = in(reg) x.as_ptr(),
            inout("xmm9") acc => acc_out,
            out("ymm10") _,
            out("ymm11") _,
            out("ymm12") _,
            out("ymm13") _,
            out("ymm14") _,
            out("ymm15") _,
            options(nostack, readonly, preserves_flags),
        );
    }
    acc_out
}

/// `dst = src ^ keystream`, sixteen blocks.
///
/// # Safety
/// The CPU must support AVX2; `src` must be readable and `dst`
/// writable for 256 bytes, the same or not overlapping.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn xor_into(src: *const u8, dst: *mut u8, keystream: &[__m256i; 8]) {
    for (j, k) in keystream.iter().enumerate() {
        let (from, to) = (src.wrapping_add(32 * j), dst.wrapping_add(32 * j));
        // SAFETY: bytes 32j .. 32j + 32 of the 256 are readable at
        // `src` and writable at `dst` (the caller's contract).
        unsafe {
            let x = _mm256_loadu_si256(from.cast());
            _mm256_storeu_si256(to.cast(), _mm256_xor_si256(x, *k));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gcm::kernel::tests::messages_at_offsets;

    /// Long messages with every count of whole blocks past the last
    /// batch (0–15), with and without a partial block, at offsets on
    /// and off a 32-byte boundary (so with and without a block after
    /// the loop, [`head_blocks`]), in place and out of place, three
    /// key sizes, against the general path.
    #[test]
    fn long_messages_at_every_alignment() {
        let lengths: Vec<usize> = (0..16)
            .flat_map(|q| [512 + 16 * q, 512 + 16 * q + 9])
            .chain([113, 127, 128, 200, 255, 256, 257, 271, 272, 287, 288, 511])
            .chain([4096 + 16 + 9, 8192 + 240])
            .collect();
        for key_len in [16, 24, 32] {
            let ks = KeySchedule::new(&vec![0x4d; key_len]).unwrap();
            let Some(fused) = VaesAvx2::new(&ks) else {
                eprintln!("SKIP vaes-avx2: not available on this CPU");
                return;
            };
            messages_at_offsets(&ks, &fused, &lengths, "vaes-avx2");
        }
    }

    /// Which lengths a batch gives the lanes: on AMD Zen 3 and Zen 4 up
    /// to 1 280 bytes, but not exactly 768, 1 024 or 1 280 (a byte more
    /// or less puts blocks around the one-message loop, and the lanes
    /// are faster again); elsewhere every length.
    #[test]
    fn lanes_pay_on_zen_all_but_whole_batches() {
        let (zen, lanes_pay) = (zen3_or_zen4(), VaesAvx2::lanes_pay());
        for len in 33..=16 * LONG {
            let one_message = zen && (len > 1280 || [768, 1024, 1280].contains(&len));
            assert_eq!(lanes_pay(len), !one_message, "{len} bytes");
        }
    }

    /// The split around the loop: at most fifteen blocks before it and
    /// one after, the loop whole batches (none below one batch),
    /// starting on a 32-byte boundary wherever the buffer is 16-byte
    /// aligned and blocks go before it, and taking every block it can
    /// where the buffer is not aligned, none go before it or there is
    /// no loop.
    #[test]
    fn the_loop_starts_on_a_32_byte_boundary() {
        for n in 113..5000 {
            for addr in [0x1000usize, 0x1010, 0x1020, 0x1030, 0x1005, 0x1018] {
                let (head, lag) = head_blocks(core::ptr::without_provenance(addr), n);
                let blocks = n / 16;
                let what = format!("{n} bytes at {addr:#x}: {head} before, {lag} after");
                assert!(head < 16 && lag <= 1, "{what}");
                let looped = blocks - head - lag;
                assert_eq!(looped % 16, 0, "{what}: whole batches");
                assert_eq!(looped == 0, n < BATCH, "{what}: a loop from one batch");
                if addr % 16 != 0 || blocks % 16 == 0 || n < BATCH {
                    assert_eq!((head, lag), (blocks % 16, 0), "{what}");
                } else {
                    assert_eq!((addr + 16 * head) % 32, 0, "{what}: aligned");
                }
            }
        }
    }
}
