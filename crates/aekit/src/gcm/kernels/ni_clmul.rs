//! `ni-clmul`: AES-GCM's counter mode and GHASH in one pass, AES-NI rounds
//! stitched with PCLMULQDQ products on 128-bit registers. Constant-time.
//! Figures: `docs/kernels/ni_clmul.md`.
//!
//! # CPU features
//!
//! `aes ∧ sse4.1` (the `ni` strategy: AESENC, PINSRD) `∧ pclmulqdq ∧ ssse3`
//! (the `clmul` strategy: PCLMULQDQ, PSHUFB), SSE2 being x86-64's baseline.
//! The kernel holds an [`Ni`] and a [`Clmul`], each the capability token
//! for its half, so a [`NiClmul`] exists only where both were detected. Only
//! legacy SSE encodings are used: it runs on AES-NI cores without AVX.
//!
//! # What it computes
//!
//! [`Kernel::crypt_blocks`]: for whole 16-byte blocks, C_i = P_i ⊕ E(K,
//! incr32^i(counter)) and Y ← (Y ⊕ C_i)·H over the ciphertext, in one pass
//! instead of the default's two. The keys are `ni`'s round keys and
//! `clmul`'s twisted powers; the IV, the AAD, partial blocks and the tag go
//! through those two strategies unchanged. Counter mode is AESENC-bound
//! with no dependency between blocks, GHASH a chain broken only by
//! aggregation: interleaved, the core overlaps the PCLMULQDQ of one batch
//! with the AESENC of the next, and the data is read once.
//!
//! # Registers
//!
//! Sixteen XMM registers, allotted by hand in the batch's `asm!`: xmm0–7
//! the eight AES states (counter blocks in FIPS-197 byte order, as in
//! `ni.rs`), xmm8 the round key, xmm9/10/11 the unreduced GHASH sums (lo,
//! hi and the raw Karatsuba middle; carried from the first batch of a pair
//! to the second, otherwise the GHASH value comes in and goes out in
//! xmm9), xmm12–14 the block being multiplied and its products, xmm15 the
//! byte-reversal mask. The powers, their folds and the round keys are
//! aligned memory operands (as the legacy SSE encodings require), so
//! nothing is spilled.
//!
//! # The math
//!
//! `clmul.rs`'s aggregated reduction over a batch X1..X8,
//!
//! ```text
//! Y' = (Y ⊕ X1)·H^8 ⊕ X2·H^7 ⊕ … ⊕ X8·H,
//! ```
//!
//! eight unreduced 256-bit products XORed together, then one two-fold
//! Montgomery reduction with 0xC2… (the twist by x^−1 is in the stored
//! powers, so the result comes out exact). Batches go in pairs ([`Kind`],
//! [`Pairing`]): the first is multiplied by H^16 … H^9 and left unreduced,
//! the second's products are added to its sums, and one reduction serves
//! both; an odd batch out goes first, alone, times H^8 … H^1. Each product
//! is Karatsuba's: for a = a1·t^64 + a0 and h likewise,
//!
//! ```text
//! a ⊗ h = a1h1·t^128 ⊕ [(a1 ⊕ a0)(h1 ⊕ h0) ⊕ a1h1 ⊕ a0h0]·t^64 ⊕ a0h0,
//! ```
//!
//! three PCLMULQDQ instead of four, with h1 ⊕ h0 stored beside each power
//! ([`Tables`]: H^1 … H^16 and their folds, 512 bytes, made at key setup
//! with `clmul`'s own product). The bracket is linear, so a batch sums the
//! raw middles, the lo and the hi products apart and corrects the middle
//! once per reduction: 25 PCLMULQDQ per 128 bytes (the reduction's two
//! shared by a pair) where schoolbook products and a reduction per batch
//! take 34.
//!
//! # The schedule
//!
//! One iteration makes eight counter blocks and runs them through the
//! rounds; each of eight rounds carries one of the eight products, its
//! instructions interleaved with the round's eight AESENC:
//!
//! ```text
//! (rounds 0, 1: with the counter blocks, "Counters")
//! round 2        s_i = AESENC(s_i, rk2), i = 0..7     (Y ⊕ X1)·H^8
//! round r=3..8   s_i = AESENC(s_i, rk_r)              ⊕= X_{r−1}·H^(10−r)
//! round 9        s_i = AESENC(s_i, rk9)               ⊕= X8·H, Y' = reduce(sum) (not the first of a pair)
//! rounds 10..    s_i = AESENC(s_i, rk_r)
//! last           s_i = AESENCLAST(s_i, rk_last); P ⊕ s → C
//! ```
//!
//! AES has at least ten rounds, so the products and the reduction always
//! fit before the last one. AES-256 spreads them over its fourteen rounds
//! (products in rounds 2, 3, 4, 6, 7, 9, 10 and 12, the reduction in
//! round 12 after the last product), so that no run of rounds has nothing
//! beside it where AESENC and PCLMULQDQ share the vector pipes (AMD). The
//! batch is written as instructions (`asm!`) so that all eight AES chains
//! are in flight at once, in this order: within a round, after each
//! AESENC, the next one or two instructions of the product (three or
//! four with the reduction), so that no run of PCLMULQDQ and XORs stands
//! between two rounds (`round_mixed!`).
//!
//! Decryption hashes the batch it decrypts (the ciphertext is in the
//! buffer until the keystream is XORed in after the last round).
//! Encryption hashes the previous batch, whose ciphertext the previous
//! iteration wrote: the first batch is AES alone, and the last is hashed
//! after the loop, with the tail.
//!
//! # Counters
//!
//! Rounds 0 and 1 are done with the counter blocks, outside the stitched
//! rounds. A 96-bit IV's counter (IV ‖ count, public) takes FACE's first
//! round for AES instructions (`ctr/face/round1.rs`) wherever a batch's
//! eight counts share bytes 0..14 (low byte at most 0xF8: thirty-one
//! batches in thirty-two): each state is round 1 of the run's block with
//! byte 15 zero (one AESENC per 256 blocks) XOR the key's table entry at
//! its low byte, eight loads and eight PXOR per batch instead of eight
//! PINSRD, eight PXOR and eight AESENC. Other batches, and every batch of
//! a secret counter (J0 = GHASH(IV) for a longer IV), take
//! `ni::counter_blocks` and rounds 0 and 1 as instructions.
//!
//! # The tail
//!
//! Fewer than eight blocks go through the strategies themselves:
//! `Ni::ctr32` (the blocks side by side, padded to eight) and
//! `Clmul::update_blocks` (one reduction for all of them).
//!
//! # Whole messages with a 96-bit IV
//!
//! The one-shot API hands a message with a 12-byte IV to [`Short`], then
//! to [`NiClmul::whole_text`] (and a kernel op to [`Kernel::crypt_whole`],
//! which does the same), and this kernel takes all of them, with no
//! `State`:
//!
//! - At most eight blocks, and at most eight of AAD: the short path of
//!   `kernels/mod.rs` (`Short`), Y_0 … Y_c in one AES batch of c + 1
//!   lanes, every hashed block times its own power of H, one reduction
//!   where the AAD, the message and the lengths block are at most eight
//!   blocks (otherwise the AAD is hashed first, and after eight message
//!   blocks the lengths block).
//! - Longer: the stitched loop over the whole batches, then one last AES
//!   batch for the fewer than eight blocks left with Y_0 in its spare
//!   lane, stitched (when encrypting) with the products of the last whole
//!   batch, or (decrypting) alone in two, four or eight lanes, as few as
//!   hold its blocks; the blocks left and the lengths block share one reduction,
//!   each product with its power's fold from [`Tables`]. A message of
//!   whole batches has no block left beside Y_0: it makes E(K, Y_0)
//!   first, beside the loop, and runs no last batch; encrypting, it
//!   hashes its last batch with the lengths block, nine products and one
//!   reduction.
//!
//! Out of place ([`Kernel::crypt_whole`], [`Kernel::crypt_blocks`])
//! the loop reads the input and writes the output in its one pass (a
//! source and a destination pointer, the same one in place); the fewer
//! than eight blocks left are copied and finished in place.
//!
//! # Constant-time
//!
//! The instructions take the same time for every operand, the round keys
//! and powers are read at fixed indices, and the only branches are on the
//! length, the direction and, for a 96-bit IV's counter (public), its
//! count, which picks the counter blocks' path and indexes FACE's table.
//! A longer IV's J0 is GHASH(IV) under H, a function of the key: the loop
//! takes its fast paths only when told that the counter is public
//! (`batches`' `public`), which is asked before the count is looked at.
//! `crates/aekit-ctgrind` checks this under Memcheck with the secrets
//! marked undefined.
//!
//! # Citations
//!
//! S. Gueron, V. Krasnov, the "stitched" AES-GCM of OpenSSL's and
//! BoringSSL's `aesni-gcm-x86_64`; V. Gopal et al., *Enabling
//! High-Performance Galois-Counter-Mode on Intel Architecture Processors*
//! (Intel, 2010); S. Gueron, M. Kounavis, *Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode* (aggregated
//! reduction); FACE's first round as in `ctr/face/round1.rs`.
//!
//! # Rejected
//!
//! - One reduction per batch (no pairs): two more PCLMULQDQ per sixteen
//!   blocks; slower on the Intel Xeon measured, faster on Zen 1, whose
//!   scheduler pays for the three sums carried between batches.
//! - Schoolbook products: a fourth PCLMULQDQ per block where PCLMULQDQ is
//!   the bound (AMD).
//! - A shift-and-XOR reduction (w0 ⊗ 0xC2… as qword shifts): two
//!   PCLMULQDQ fewer per batch, sixteen shifts and XORs more; slower.
//! - Round 0 folded into the counter blocks (round key 0 XORed into the
//!   prefix once): eight PXOR fewer per batch, slower on Zen 1; replaced
//!   by FACE's first round, which also saves round 1.
//! - Each product as a run of instructions between two rounds: slower
//!   on Zen 4, the AES chains waiting behind the products' PCLMULQDQ
//!   (`docs/kernels/ni_clmul.md`).
//! - The reduction after the last round, or alone in a round of its
//!   own: no faster than beside the last product.
//! - The batch from intrinsics: the compiler ran each block's rounds back
//!   to back, leaving three or four of the eight AES chains in flight.
//! - AES-256's products packed into its first nine rounds: five rounds of
//!   AES alone at the end, with nothing to overlap where the units share
//!   pipes.
//! - A one-block stitched tail: a third AES loop and a third GHASH loop to
//!   review, for at most seven blocks the strategies already run in
//!   parallel.
//! - The previous batch's ciphertext held in registers for encryption:
//!   eight more XMM registers than there are.
//! - VEX (AVX) encodings, whose three operands would save the register
//!   copies before each PCLMULQDQ: the kernel would no longer run on
//!   AES-NI cores without AVX, and the copies are eliminated at rename.
//! - A multi-buffer path over these keys for batches of short messages
//!   (`batch.rs`): packing lanes cost as many instructions as the empty
//!   lanes saved; a winner needs straight-line code per message shape.

use core::arch::asm;
use core::arch::x86_64::{
    __m128i, _mm_aesenc_si128, _mm_load_si128, _mm_loadu_si128, _mm_set_epi64x, _mm_setzero_si128,
    _mm_shuffle_epi8, _mm_storeu_si128, _mm_xor_si128,
};
use core::mem::MaybeUninit;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::Short;
use super::ni_clmul_supplied;
use super::shared::{CONSTS, Kind, Pairing, ni_clmul_keys, tag};
use crate::aes::ni::{self, Ni};
use crate::aes::{Block, BlockCipher, KeySchedule};
use crate::ctr::face::round1::Round1;
use crate::gcm::kernel::{
    Direction, FusedKernel, Kernel, Text, as_uninit, assume_init, copy_into, finish_two_pass,
    in_output,
};
use crate::ghash::GhashKey;
use crate::ghash::clmul::{self, Clmul};

/// AES-NI and PCLMULQDQ in one pass. Holding one proves the CPU has both
/// halves' features: each field is its own capability token. Off x86-64
/// `Ni` and `Clmul` have no values, so neither has `NiClmul`.
pub(crate) struct NiClmul {
    aes: Ni,
    ghash: Clmul,
    /// The powers in the order a batch uses them, with their Karatsuba
    /// folds: as secret as H.
    tables: Tables,
    /// FACE's first round (`ctr/face/round1.rs`) for a 96-bit IV's
    /// counter blocks (`vaes-avx2` uses it too).
    round1: Round1<1>,
}

/// The powers H^16 … H^1, descending: entry 2i is the twisted H^(16−i)
/// and entry 2i + 1 its fold hi ⊕ lo in the low qword (the second
/// operand of the Karatsuba middle product), each in register byte order
/// (the little-endian bytes of the integer). A batch's block i takes
/// H^(8−i) from entry 16 + 2i, or H^(16−i) from entry 2i as the first
/// batch of a pair. Aligned for the memory operands of PCLMULQDQ's legacy
/// SSE encoding. Zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
#[repr(C, align(16))]
struct Tables([[u8; 16]; 32]);

impl Tables {
    fn new(ghash: &Clmul) -> Tables {
        let mut all = ghash.powers_to::<16>();
        let mut t = Tables([[0; 16]; 32]);
        for (i, pair) in t.0.chunks_exact_mut(2).enumerate() {
            let p = all[15 - i];
            pair[0] = p.to_le_bytes();
            pair[1] = ((p ^ (p >> 64)) as u64 as u128).to_le_bytes();
        }
        all.zeroize();
        t
    }

    /// The twisted H^k and its fold, `k` from 1 to 16.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn power(&self, k: usize) -> (__m128i, __m128i) {
        let i = 2 * (16 - k);
        // SAFETY: entries i and i + 1 are 16 readable bytes each (the
        // index panics for a `k` out of range); MOVDQA's alignment is the
        // type's.
        unsafe {
            (
                _mm_load_si128(self.0[i].as_ptr().cast()),
                _mm_load_si128(self.0[i + 1].as_ptr().cast()),
            )
        }
    }
}

impl Kernel for NiClmul {
    type Aes = Ni;
    type Ghash = Clmul;

    fn aes(&self) -> &Ni {
        &self.aes
    }

    fn ghash(&self) -> &Clmul {
        &self.ghash
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
        // SAFETY: `self.aes` and `self.ghash` exist, so detection found
        // AES-NI, SSE4.1, PCLMULQDQ and SSSE3; `text.io()` gives where the
        // blocks are read and written: the same bytes in place, or the
        // input, readable, and the output, writable (every byte is
        // written, and only what was written is read back), not
        // overlapping.
        unsafe { self.crypt(counter, y, text.io(), direction, public) }
    }
    fn crypt_whole(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        mut text: Text<'_>,
        direction: Direction,
    ) -> Option<Block> {
        if let Some(tag) = self.short().crypt_text(iv, aad, &mut text, direction) {
            return Some(tag);
        }
        Some(self.whole_text(iv, aad, text, direction))
    }

    fn crypt_supplied(
        &self,
        keystream: &[u8],
        aad: &[u8],
        data: &mut [u8],
        direction: Direction,
    ) -> Option<Block> {
        Some(ni_clmul_supplied::crypt(
            &self.ghash,
            keystream,
            aad,
            data,
            direction,
        ))
    }
}

impl FusedKernel for NiClmul {
    const NAME: &'static str = "ni-clmul";

    fn is_available() -> bool {
        Ni::is_available() && Clmul::is_available()
    }

    fn new(keys: &KeySchedule) -> Option<Self> {
        let (aes, ghash) = ni_clmul_keys(keys)?;
        let tables = Tables::new(&ghash);
        let round1 = Round1::new(keys)?;
        Some(NiClmul {
            aes,
            ghash,
            tables,
            round1,
        })
    }
}

impl NiClmul {
    /// This kernel's short whole-message path ([`Short`]), which takes
    /// every message short enough for it.
    #[inline(always)]
    pub(crate) fn short(&self) -> Short<'_> {
        Short {
            aes: &self.aes,
            ghash: &self.ghash,
        }
    }

    /// [`whole`](Self::whole) of `text`: [`Kernel::crypt_whole`] for a
    /// message the short path does not take,
    /// which the one-message calls reach without a kernel op.
    #[inline(always)]
    pub(crate) fn whole_text(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        text: Text<'_>,
        direction: Direction,
    ) -> Block {
        // SAFETY: holding `self` proves AES-NI, PCLMULQDQ, SSSE3 and
        // SSE4.1; in place, the message is initialized, and `whole`
        // writes it with initialized bytes only.
        unsafe {
            match text {
                Text::InPlace(data) => self.whole(iv, aad, None, as_uninit(data), direction),
                Text::Into { input, out } => self.whole(iv, aad, Some(input), out, direction),
            }
        }
    }

    /// FACE's first-round table of this key.
    pub(crate) fn round1(&self) -> &Round1<1> {
        &self.round1
    }
}

/// Bytes per iteration: eight blocks.
const BATCH: usize = 8 * 16;

/// `asm!` over the eight AES states `$s` in xmm0–7, xmm8 (the round
/// key) clobbered, the round keys at `{keys}` and the last at `{last}`
/// (`$keys`, `$rounds`), with the further operands given.
macro_rules! on_states {
    ($s:expr, $keys:expr, $rounds:expr; $($template:expr),+ ; $($operand:tt)*) => {
        asm!(
            $($template),+,
            $($operand)*
            keys = in(reg) $keys.as_ptr(),
            last = in(reg) $keys[$rounds].as_ptr(),
            inout("xmm0") $s[0],
            inout("xmm1") $s[1],
            inout("xmm2") $s[2],
            inout("xmm3") $s[3],
            inout("xmm4") $s[4],
            inout("xmm5") $s[5],
            inout("xmm6") $s[6],
            inout("xmm7") $s[7],
            out("xmm8") _,
        )
    };
}

/// A round of the eight AES states xmm0–7 with other instructions
/// interleaved: the round key at `$key` into xmm8, then
/// `$op` on each state followed by its group of instructions, eight
/// groups in order. Issued this way, the PCLMULQDQ, the XORs and the
/// loads sit between the AESENC of one round rather than in a run
/// between two rounds, and the vector pipes the two units share stay
/// busy (the module header's "The schedule").
#[rustfmt::skip] // one instruction per line
macro_rules! round_mixed {
    (
        $op:literal, $key:expr;
        [$($g0:expr),*], [$($g1:expr),*], [$($g2:expr),*], [$($g3:expr),*],
        [$($g4:expr),*], [$($g5:expr),*], [$($g6:expr),*], [$($g7:expr),*]
    ) => {
        concat!(
            "movdqa xmm8, xmmword ptr [", $key, "]\n",
            $op, " xmm0, xmm8\n", $($g0,)*
            $op, " xmm1, xmm8\n", $($g1,)*
            $op, " xmm2, xmm8\n", $($g2,)*
            $op, " xmm3, xmm8\n", $($g3,)*
            $op, " xmm4, xmm8\n", $($g4,)*
            $op, " xmm5, xmm8\n", $($g5,)*
            $op, " xmm6, xmm8\n", $($g6,)*
            $op, " xmm7, xmm8\n", $($g7,)*
        )
    };
}

/// One round of the eight AES states xmm0–7 with nothing beside it
/// ([`round_mixed!`] with empty groups): the round key at `$key` (an
/// address expression) into xmm8, then `$op` (AESENC, AESENCLAST) on
/// each state.
macro_rules! round {
    ($op:literal, $key:literal) => {
        round_mixed!($op, $key; [], [], [], [], [], [], [], [])
    };
}

/// AESENC with the round key at `$key`, beside X1 ⊕ Y (X1 reflected)
/// times H^8 (or H^16): the Karatsuba lo, hi and raw middle products
/// start the sums xmm9, xmm10, xmm11.
#[rustfmt::skip] // one instruction per line
macro_rules! first_round {
    ($key:expr) => {
        round_mixed!(
            "aesenc", $key;
            ["movdqu xmm12, xmmword ptr [{x}]\n"],
            ["pshufb xmm12, xmm15\n"],
            ["pxor xmm12, xmm9\n", "pshufd xmm13, xmm12, 0x4e\n"],
            ["pxor xmm13, xmm12\n"],
            ["pclmulqdq xmm13, xmmword ptr [{tab} + 16], 0x00\n"],
            ["movdqa xmm11, xmm13\n", "movdqa xmm9, xmm12\n"],
            ["pclmulqdq xmm9, xmmword ptr [{tab}], 0x00\n"],
            ["pclmulqdq xmm12, xmmword ptr [{tab}], 0x11\n", "movdqa xmm10, xmm12\n"]
        )
    };
}

/// AESENC with the round key at `$key`, beside X(i+1) (block `$i` of
/// the batch, reflected) times H^(8−i) (or H^(16−i), the first batch
/// of a pair), entry 2i from `{tab}` with its fold at entry 2i + 1:
/// lo, hi and raw middle products added to the sums xmm9, xmm10,
/// xmm11.
#[rustfmt::skip] // one instruction per line
macro_rules! product_round {
    ($key:expr, $i:literal) => {
        round_mixed!(
            "aesenc", $key;
            [concat!("movdqu xmm12, xmmword ptr [{x} + 16*", $i, "]\n")],
            ["pshufb xmm12, xmm15\n"],
            ["pshufd xmm13, xmm12, 0x4e\n", "pxor xmm13, xmm12\n"],
            [concat!("pclmulqdq xmm13, xmmword ptr [{tab} + 32*", $i, " + 16], 0x00\n")],
            ["pxor xmm11, xmm13\n"],
            [
                "movdqa xmm14, xmm12\n",
                concat!("pclmulqdq xmm14, xmmword ptr [{tab} + 32*", $i, "], 0x00\n")
            ],
            ["pxor xmm9, xmm14\n"],
            [
                concat!("pclmulqdq xmm12, xmmword ptr [{tab} + 32*", $i, "], 0x11\n"),
                "pxor xmm10, xmm12\n"
            ]
        )
    };
}

/// AESENC with the round key at `$key`, beside X8 (block 7, reflected)
/// times H (entry 14 from `{tab}`) added to the sums, then the sums
/// reduced to the new GHASH value in xmm9: Karatsuba's middle (raw ⊕
/// lo ⊕ hi) split across lo and hi, lo folded twice with 0xC2… ((w0,
/// w1) ⊕ w0·C) and hi added.
#[rustfmt::skip] // one instruction per line
macro_rules! reduce_round {
    ($key:expr) => {
        round_mixed!(
            "aesenc", $key;
            [
                "movdqu xmm12, xmmword ptr [{x} + 16*7]\n",
                "pshufb xmm12, xmm15\n",
                "pshufd xmm13, xmm12, 0x4e\n"
            ],
            [
                "pxor xmm13, xmm12\n",
                "pclmulqdq xmm13, xmmword ptr [{tab} + 32*7 + 16], 0x00\n",
                "pxor xmm11, xmm13\n"
            ],
            [
                "movdqa xmm14, xmm12\n",
                "pclmulqdq xmm14, xmmword ptr [{tab} + 32*7], 0x00\n",
                "pxor xmm9, xmm14\n",
                "pclmulqdq xmm12, xmmword ptr [{tab} + 32*7], 0x11\n"
            ],
            ["pxor xmm10, xmm12\n", "pxor xmm11, xmm9\n", "pxor xmm11, xmm10\n"],
            ["movdqa xmm13, xmm11\n", "pslldq xmm13, 8\n", "psrldq xmm11, 8\n"],
            [
                "pxor xmm9, xmm13\n",
                "pxor xmm10, xmm11\n",
                "movdqa xmm14, xmm9\n",
                "pclmulqdq xmm14, xmmword ptr [{consts} + 16], 0x10\n"
            ],
            ["pshufd xmm9, xmm9, 0x4e\n", "pxor xmm9, xmm14\n", "movdqa xmm14, xmm9\n"],
            [
                "pclmulqdq xmm14, xmmword ptr [{consts} + 16], 0x10\n",
                "pshufd xmm9, xmm9, 0x4e\n",
                "pxor xmm9, xmm14\n",
                "pxor xmm9, xmm10\n"
            ]
        )
    };
}

/// [`product_round!`] of block 0, the second batch of a pair's first.
macro_rules! close_first_round {
    ($key:expr) => {
        product_round!($key, 0)
    };
}

/// [`product_round!`] of block 7, with no reduction: the first batch
/// of a pair's last.
macro_rules! open_last_round {
    ($key:expr) => {
        product_round!($key, 7)
    };
}

/// len(A) ‖ len(C) in bits as the reflected integer: len(A) is the
/// high qword.
#[inline]
#[target_feature(enable = "sse2")]
fn lengths_block(aad_len: usize, total: usize) -> __m128i {
    _mm_set_epi64x((aad_len as i64) << 3, (total as i64) << 3)
}

impl NiClmul {
    /// The one-pass loop; the contract of [`Kernel::crypt_blocks`],
    /// from `src` to `dst`, `n` bytes, every byte of `dst` written.
    ///
    /// # Safety
    ///
    /// The CPU must support AES-NI, PCLMULQDQ, SSSE3 and SSE4.1; `src`
    /// must be readable and `dst` writable for `n` bytes, the same
    /// buffer or two that do not overlap.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(crate) unsafe fn crypt(
        &self,
        counter: &mut Block,
        y: &mut Block,
        (src, dst, n): (*const u8, *mut u8, usize),
        direction: Direction,
        public: bool,
    ) {
        let ctr = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
        let batches = n / BATCH;
        // SAFETY: `src` and `dst` are good for `n` ≥ `batches` whole
        // batches (the caller's contract); the features `batches`
        // needs are enabled here.
        let acc = unsafe {
            self.batches(
                counter,
                ctr,
                clmul::load(y),
                src,
                dst,
                batches,
                direction,
                public,
            )
        };
        clmul::store(y, acc);
        let ctr = ctr.wrapping_add(8 * batches as u32);
        counter[12..].copy_from_slice(&ctr.to_be_bytes());
        // The rest, copied into `dst` first when out of place; then
        // `dst` is written throughout, and the last batch and the rest
        // are finished there.
        let bulk = batches * BATCH;
        // SAFETY: `src` and `dst` are good for `n` bytes, the same
        // buffer or not overlapping (the caller's contract); the loop
        // wrote the first `bulk` of `dst`, and `in_output` the rest.
        let data = unsafe {
            in_output(src.wrapping_add(bulk), dst.wrapping_add(bulk), n - bulk);
            core::slice::from_raw_parts_mut(dst, n)
        };
        finish_two_pass(self, counter, y, data, (batches, BATCH), direction);
    }

    /// The stitched loop over `batches` whole batches from the count
    /// `ctr` after the prefix `counter[..12]`, reading `src` and
    /// writing `dst` (the same pointer in place), folding the
    /// ciphertext into `acc`; returns the GHASH value. Decryption
    /// hashes every batch it reads; encryption every batch it wrote
    /// but the last, whose ciphertext the caller hashes. `public`:
    /// the counter is IV ‖ count for a 96-bit IV, which may choose
    /// the counter blocks' path and index FACE's table; otherwise (J0 = GHASH(IV), the
    /// general path's) every batch takes the branch-free way.
    ///
    /// # Safety
    ///
    /// The CPU must support AES-NI, PCLMULQDQ, SSSE3 and SSE4.1;
    /// `src` must be `batches * BATCH` readable bytes and `dst` as
    /// many writable ones, either the same or not overlapping.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    #[allow(clippy::too_many_arguments)] // the loop's state, one by one
    unsafe fn batches(
        &self,
        counter: &Block,
        mut ctr: u32,
        acc: __m128i,
        src: *const u8,
        dst: *mut u8,
        batches: usize,
        direction: Direction,
        public: bool,
    ) -> __m128i {
        // Hashed batches go in pairs, one reduction per pair, the odd
        // one out alone first (encryption hashes all but the last
        // here); the GHASH value, or a pair's first sums, in `sums`.
        let mut pairing = Pairing::new(match direction {
            Direction::Decrypt => batches,
            Direction::Encrypt => batches.saturating_sub(1),
        });
        let mut sums = [acc, _mm_setzero_si128(), _mm_setzero_si128()];
        // Rounds 0 and 1 are done here, with the counter blocks: the
        // states enter `stitch` at round 2. A public counter's batch
        // whose eight counts share bytes 0..14 takes FACE's first
        // round (the module header's "Counters"): `r` is round 1 of
        // the block with the batch's bytes 0..14 and byte 15 zero.
        let (k0, k1) = self.round_keys01();
        let run_round1 = |ctr: u32| {
            // SAFETY: the features `counter_blocks` needs are enabled
            // here.
            let base = unsafe { ni::counter_blocks::<1>(counter, ctr & !0xff) }[0];
            _mm_aesenc_si128(_mm_xor_si128(base, k0), k1)
        };
        let mut r = run_round1(ctr);
        for i in 0..batches {
            // SAFETY: batch i (and i − 1) lies inside both buffers,
            // per the contract.
            let (input, output) = unsafe { (src.add(i * BATCH), dst.add(i * BATCH)) };
            // Only a public counter (a 96-bit IV's, IV ‖ count) may
            // choose the path or index the table: a longer IV's J0 is
            // GHASH under H, and a branch on its bits or a load at
            // them would time the key. `public` is asked first, so a
            // secret count is never looked at.
            let mut s = if public && ctr & 0xff <= 0xf8 {
                let p = self.round1.entries(ctr as u8, 8);
                // SAFETY: `p` points to eight entries of 16 bytes.
                core::array::from_fn(|j| unsafe {
                    _mm_xor_si128(r, _mm_loadu_si128(p.add(j).cast()))
                })
            } else {
                // SAFETY: the features `counter_blocks` needs are
                // enabled here.
                let mut s = unsafe { ni::counter_blocks::<8>(counter, ctr) };
                self.rounds01(&mut s);
                s
            };
            ctr = ctr.wrapping_add(8);
            if public && ctr & 0xff < 8 {
                r = run_round1(ctr);
            }
            let hashed = match direction {
                Direction::Decrypt => Some(input),
                // SAFETY: as above.
                Direction::Encrypt if i > 0 => Some(unsafe { output.sub(BATCH) }.cast_const()),
                Direction::Encrypt => None,
            };
            match hashed {
                // SAFETY: `x` is 128 readable bytes, this batch's input
                // or the one before's output; the features `stitch`
                // needs are enabled.
                Some(x) => unsafe { self.stitch(&mut s, x, pairing.next(), &mut sums) },
                // The first batch of an encryption: AES alone.
                // SAFETY: the features `rounds_alone` needs are enabled
                // here.
                None => unsafe { self.rounds_alone(&mut s) },
            }
            // SAFETY: 128 bytes each, per the contract.
            unsafe { xor_from(input, output, &s) };
        }
        debug_assert!(pairing.closed(), "hashed batches pair up");
        sums[0]
    }

    /// A whole message of more than seven blocks with a 96-bit IV, no
    /// `State`: the associated data hashed first, then
    /// [`whole_from`](Self::whole_from) the first counter block. Returns
    /// the full tag, every byte of `out` written: from `input` when
    /// given, otherwise in place (`out` is then the message,
    /// initialized).
    ///
    /// # Safety
    ///
    /// The CPU must support AES-NI, PCLMULQDQ, SSSE3 and SSE4.1; without
    /// `input`, `out` must be initialized.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(crate) unsafe fn whole(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        input: Option<&[u8]>,
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
    ) -> Block {
        // SAFETY: the features `hash_aad` needs are enabled here.
        let acc = unsafe { self.hash_aad(aad) };
        let lengths = (aad.len(), out.len());
        // A message of whole batches has no block left to run beside
        // Y_0 at the end: E(K, Y_0) is made first, beside the loop.
        // SAFETY: the features `tag_mask` needs are enabled here.
        let tag_mask = out
            .len()
            .is_multiple_of(BATCH)
            .then(|| unsafe { self.tag_mask(iv) });
        // SAFETY: passed on from the caller; Y_1 = IV ‖ 2.
        unsafe { self.whole_from(iv, 2, acc, lengths, input, out, direction, tag_mask) }
    }

    /// GHASH of the associated data alone, in the accumulator's register
    /// order (`clmul::load`'s): up to sixteen blocks (a partial last one
    /// zero-padded, read a few bytes at a time) each times its own power of H,
    /// H^a … H^1, and one reduction, inline (one block, a packet
    /// header's, without the loop's setup); longer, `Clmul`'s
    /// block-by-block update. (Rejected for short AAD too: that update is
    /// a call with a reduction of its own and reads a partial block byte
    /// by byte; docs/BENCHMARKS.md has the measurement.)
    ///
    /// # Safety
    ///
    /// The CPU must support PCLMULQDQ, SSSE3 and SSE4.1.
    #[inline]
    #[target_feature(enable = "pclmulqdq,ssse3,sse4.1")]
    pub(crate) unsafe fn hash_aad(&self, aad: &[u8]) -> __m128i {
        let blocks = aad.len().div_ceil(16);
        if blocks > 16 {
            return self.hash_long_aad(aad);
        }
        if blocks == 0 {
            return _mm_setzero_si128();
        }
        let mut sum = clmul::KaratsubaSum::zero();
        let mut power = blocks;
        let mut add = |x| {
            let (h, h_fold) = self.tables.power(power);
            sum = sum.add_folded(_mm_shuffle_epi8(x, clmul::byte_reverse_mask()), h, h_fold);
            power -= 1;
        };
        if blocks == 1 {
            // A packet header's: one product, without the loop's setup.
            add(ni::load_padded(aad));
        } else {
            let mut whole = aad.chunks_exact(16);
            for block in &mut whole {
                // SAFETY: `block` is 16 readable bytes; MOVDQU needs no
                // alignment.
                add(unsafe { _mm_loadu_si128(block.as_ptr().cast()) });
            }
            if !whole.remainder().is_empty() {
                add(ni::load_padded(whole.remainder()));
            }
        }
        clmul::reduce(sum.wide())
    }

    /// [`hash_aad`](Self::hash_aad) of more than sixteen blocks, out of
    /// line, so that the usual call sets up no frame for it.
    #[cold]
    #[inline(never)]
    fn hash_long_aad(&self, aad: &[u8]) -> __m128i {
        let mut y = [0u8; 16];
        self.ghash.update_padded(&mut y, aad);
        // SAFETY: holding `self` proves PCLMULQDQ and SSSE3 (`load`'s).
        unsafe { clmul::load(&y) }
    }

    /// E(K, Y_0) for a 96-bit IV, Y_0 = IV ‖ 0^31 ‖ 1: the tag's mask.
    ///
    /// # Safety
    ///
    /// The CPU must support AES-NI and SSE2.
    #[inline]
    #[target_feature(enable = "aes,sse2,sse4.1")]
    pub(crate) unsafe fn tag_mask(&self, iv: &[u8; 12]) -> __m128i {
        let mut y0 = [ni::counter_block(iv, 1)];
        // SAFETY: the features `encrypt` needs are enabled here.
        unsafe { self.aes.encrypt(&mut y0) };
        y0[0]
    }

    /// The end of a whole message with a 96-bit IV whose associated
    /// data and first blocks are hashed into `acc`: `out` (`input`)
    /// from counter block IV ‖ `next` on, through the stitched loop
    /// over its whole batches, then one last AES batch for what is left
    /// (fewer than eight blocks) with Y_0 in its spare lane — stitched,
    /// when encrypting, with the products of the last whole batch —
    /// and the blocks left and the lengths block (`lengths`: the
    /// associated data's and the whole message's bytes) hashed with one
    /// reduction. Returns the full tag, every byte of `out` written.
    /// `tag_mask` is E(K, Y_0) when the caller made it before its loop:
    /// then Y_0 takes no lane, and when no block is left there is no
    /// last batch (`whole` gives it for a message of whole batches).
    ///
    /// # Safety
    ///
    /// As [`whole`](Self::whole).
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn whole_from(
        &self,
        iv: &[u8; 12],
        next: u32,
        mut acc: __m128i,
        (aad_len, total): (usize, usize),
        input: Option<&[u8]>,
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
        tag_mask: Option<__m128i>,
    ) -> Block {
        let n = out.len();
        // IV ‖ 0^31 ‖ 1: Y_0, and the prefix of every counter block.
        let y0 = ni::counter_block(iv, 1);
        let mut j0 = [0u8; 16];
        // SAFETY: `j0` is 16 writable bytes; MOVDQU needs no alignment.
        unsafe { _mm_storeu_si128(j0.as_mut_ptr().cast(), y0) };

        let batches = n / BATCH;
        let dst = out.as_mut_ptr().cast::<u8>();
        let src = input.map_or(dst.cast_const(), <[u8]>::as_ptr);
        // SAFETY: `src` and `dst` are `n` bytes, the same buffer or
        // two that do not overlap (a shared and a mutable borrow);
        // the features `batches` needs are enabled here.
        acc = unsafe { self.batches(&j0, next, acc, src, dst, batches, direction, true) };
        let (body, rest) = out.split_at_mut(batches * BATCH);
        // The fewer than eight blocks left go in place.
        let rest = match input {
            Some(input) => copy_into(rest, &input[batches * BATCH..]),
            // SAFETY: in place, `out` is the message (the contract).
            None => unsafe { assume_init(rest) },
        };

        // The last AES batch: lane 0 is Y_0 = IV ‖ 1 (unless E(K, Y_0)
        // was given), lanes 1.. the blocks left; with eight left (a
        // partial eighth), Y_0 goes alone. With nothing left and E(K,
        // Y_0) given there is no batch: an encryption's last whole
        // batch, which it would have hashed, is hashed with the lengths
        // block, nine blocks and one reduction.
        let left = rest.len().div_ceil(16);
        let next = next.wrapping_add(8 * batches as u32);
        let lane0_is_y0 = left < 8 && tag_mask.is_none();
        let no_batch = left == 0 && tag_mask.is_some();
        let lengths = lengths_block(aad_len, total);
        let reflect = |x| _mm_shuffle_epi8(x, clmul::byte_reverse_mask());
        let previous = match direction {
            Direction::Encrypt if batches > 0 => {
                Some(body[body.len() - BATCH..].as_ptr().cast::<u8>())
            }
            _ => None,
        };
        if let (Some(x), Some(mask)) = (previous.filter(|_| no_batch), tag_mask) {
            let mut last = [lengths; 9];
            for (j, block) in last[..8].iter_mut().enumerate() {
                // SAFETY: `x` is the last whole batch's 128 bytes; MOVDQU
                // needs no alignment.
                *block = reflect(unsafe { _mm_loadu_si128(x.add(16 * j).cast()) });
            }
            return tag(self.fold(acc, &last), mask);
        }
        let mut s = [_mm_setzero_si128(); 8];
        if !no_batch {
            // SAFETY: the features `counter_blocks` needs are enabled here.
            s = unsafe { ni::counter_blocks::<8>(&j0, next.wrapping_sub(u32::from(lane0_is_y0))) };
            if lane0_is_y0 {
                s[0] = y0;
            }
            match previous {
                Some(x) => {
                    self.rounds01(&mut s);
                    let mut sums = [acc, _mm_setzero_si128(), _mm_setzero_si128()];
                    // SAFETY: `x` is the last whole batch's 128 bytes; the
                    // features `stitch` needs are enabled here.
                    unsafe { self.stitch(&mut s, x, Kind::Alone, &mut sums) };
                    acc = sums[0];
                }
                // SAFETY: the features `encrypt_lanes` needs are enabled here.
                None => unsafe { self.encrypt_lanes(&mut s, left + usize::from(lane0_is_y0)) },
            }
        }
        let tag_mask = match tag_mask {
            Some(mask) => mask,
            None if lane0_is_y0 => s[0],
            // SAFETY: the features `tag_mask` needs are enabled here.
            None => unsafe { self.tag_mask(iv) },
        };

        // The blocks left, zero-padded, then the lengths block, each
        // times its power of H (at most H^9), one reduction.
        let mut sum = clmul::KaratsubaSum::zero();
        let mut add = |j: usize, x: __m128i| {
            let x = if j == 0 { _mm_xor_si128(x, acc) } else { x };
            let (h, h_fold) = self.tables.power(left + 1 - j);
            sum = sum.add_folded(x, h, h_fold);
        };
        // Whole blocks inline, a partial last one apart: a call in the
        // loop would spill the sums around it.
        let first = usize::from(lane0_is_y0);
        let mut hashed = |j: usize, (input, output): (__m128i, __m128i)| {
            add(
                j,
                reflect(match direction {
                    Direction::Encrypt => output,
                    Direction::Decrypt => input,
                }),
            );
        };
        let mut whole = rest.chunks_exact_mut(16);
        for (j, block) in (&mut whole).enumerate() {
            let p = block.as_mut_ptr();
            // SAFETY: `block` is 16 readable and writable bytes, in place.
            hashed(j, unsafe { ni::xor_whole_into(p, p, s[first + j]) });
        }
        let partial = whole.into_remainder();
        if !partial.is_empty() {
            let j = left - 1;
            hashed(j, ni::xor_partial(partial, s[first + j]));
        }
        add(left, lengths);
        tag(clmul::reduce(sum.wide()), tag_mask)
    }

    /// The tag of a whole message whose blocks are all hashed into
    /// `acc` but `last` (at most two, its last blocks, zero-padded
    /// and reflected): those and the lengths block (`lengths`: the
    /// associated data's and the message's bytes) folded in with one
    /// reduction, E(K, Y_0) = `tag_mask` added. (`vaes-avx2`'s end
    /// for a long message.)
    #[inline]
    #[target_feature(enable = "pclmulqdq,ssse3,sse2")]
    pub(crate) fn lengths_tag(
        &self,
        acc: __m128i,
        last: &[__m128i],
        (aad_len, total): (usize, usize),
        tag_mask: __m128i,
    ) -> Block {
        let lengths = lengths_block(aad_len, total);
        // One form per count, so that each folds a fixed number of
        // blocks (unrolled, the powers at fixed places).
        let acc = match *last {
            [] => self.fold(acc, &[lengths]),
            [a] => self.fold(acc, &[a, lengths]),
            [a, b, ..] => self.fold(acc, &[a, b, lengths]),
        };
        tag(acc, tag_mask)
    }

    /// The first `lanes` (at most eight) of the blocks `s` encrypted, in
    /// two, four or eight lanes (the rest are left or encrypted too): a
    /// decryption's last AES batch, which no products share, runs only
    /// as many chains as it has blocks (rounded up), and the AES pipes
    /// are free sooner for the GHASH that follows.
    ///
    /// # Safety
    ///
    /// The CPU must support AES-NI and SSE2.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    unsafe fn encrypt_lanes(&self, s: &mut [__m128i; 8], lanes: usize) {
        /// # Safety
        ///
        /// The CPU must support AES-NI and SSE2.
        #[inline]
        #[target_feature(enable = "aes,sse2")]
        unsafe fn run<const L: usize>(aes: &Ni, s: &mut [__m128i; 8]) {
            let mut some: [__m128i; L] = core::array::from_fn(|i| s[i]);
            // SAFETY: the features `encrypt` needs are enabled here.
            unsafe { aes.encrypt(&mut some) };
            s[..L].copy_from_slice(&some);
        }
        match lanes {
            // SAFETY: the features `run` needs are enabled here.
            0..=2 => unsafe { run::<2>(&self.aes, s) },
            // SAFETY: as above.
            3..=4 => unsafe { run::<4>(&self.aes, s) },
            // SAFETY: the features `encrypt` needs are enabled here.
            _ => unsafe { self.aes.encrypt(s) },
        }
    }

    /// AES round keys 0 and 1, which the counter blocks take before
    /// they go to [`stitch`](Self::stitch).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn round_keys01(&self) -> (__m128i, __m128i) {
        let keys = self.aes.round_keys();
        // SAFETY: a round key is 16 readable bytes; MOVDQU needs no
        // alignment.
        unsafe {
            (
                _mm_loadu_si128(keys[0].as_ptr().cast()),
                _mm_loadu_si128(keys[1].as_ptr().cast()),
            )
        }
    }

    /// Rounds 0 and 1 of the eight counter blocks `s`, as
    /// instructions.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn rounds01(&self, s: &mut [__m128i; 8]) {
        let (k0, k1) = self.round_keys01();
        for x in s {
            *x = _mm_aesenc_si128(_mm_xor_si128(*x, k0), k1);
        }
    }

    /// GHASH of the (reflected) `blocks`, one to sixteen, folded into
    /// `acc`: (acc ⊕ X_1)·H^k ⊕ … ⊕ X_k·H in Karatsuba's form with the
    /// powers' stored folds, one reduction.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    fn fold(&self, acc: __m128i, blocks: &[__m128i]) -> __m128i {
        let mut sum = clmul::KaratsubaSum::zero();
        for (i, &x) in blocks.iter().enumerate() {
            let x = if i == 0 { _mm_xor_si128(x, acc) } else { x };
            let (h, h_fold) = self.tables.power(blocks.len() - i);
            sum = sum.add_folded(x, h, h_fold);
        }
        clmul::reduce(sum.wide())
    }

    /// Runs the eight counter blocks `s`, rounds 0 and 1 already done,
    /// through AES rounds 2 on, in place: [`stitch`](Self::stitch)
    /// without products, for an encryption's first batch, which has no
    /// ciphertext before it to hash. As instructions, the round keys
    /// memory operands as there: from intrinsics the compiler copies the
    /// round keys to the stack first.
    ///
    /// # Safety
    ///
    /// The CPU must support AES-NI and SSE2.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    unsafe fn rounds_alone(&self, s: &mut [__m128i; 8]) {
        let keys = self.aes.round_keys();
        let rounds = self.aes.rounds();
        // SAFETY: `keys` holds 15 aligned round keys, of which rounds 2
        // to `rounds` (10, 12 or 14) are read; the features are enabled
        // on this function.
        unsafe {
            on_states!(
                s, keys, rounds;
                round!("aesenc", "{keys} + 16*2"),
                round!("aesenc", "{keys} + 16*3"),
                round!("aesenc", "{keys} + 16*4"),
                round!("aesenc", "{keys} + 16*5"),
                round!("aesenc", "{keys} + 16*6"),
                round!("aesenc", "{keys} + 16*7"),
                round!("aesenc", "{keys} + 16*8"),
                round!("aesenc", "{keys} + 16*9"),
                "cmp {rounds}, 10",
                "je 2f",
                round!("aesenc", "{keys} + 16*10"),
                round!("aesenc", "{keys} + 16*11"),
                "cmp {rounds}, 12",
                "je 2f",
                round!("aesenc", "{keys} + 16*12"),
                round!("aesenc", "{keys} + 16*13"),
                "2:",
                round!("aesenclast", "{last}");
                rounds = in(reg) rounds,
                options(nostack, readonly),
            )
        }
    }

    /// Runs the eight counter blocks `s`, rounds 0 and 1 already done,
    /// through AES rounds 2 on, in place, while folding the eight
    /// ciphertext blocks `x` (128 bytes) into `sums` as `kind` says:
    /// with the GHASH value in `sums[0]` added to the first block
    /// (`Alone`, `Open`) or into the sums of the batch before
    /// (`Close`); reduced into the new GHASH value in `sums[0]`
    /// (`Alone`, `Close`) or handed on unreduced (`Open`: lo, hi and
    /// the raw Karatsuba middle). The schedule is the module header's,
    /// written out as instructions: left to itself the compiler runs
    /// each block's rounds back to back, and the eight chains then no
    /// longer fit in the core's scheduler together.
    ///
    /// # Safety
    ///
    /// The CPU must support AES-NI, PCLMULQDQ and SSSE3; `x` must be
    /// 128 readable bytes.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse2")]
    unsafe fn stitch(
        &self,
        s: &mut [__m128i; 8],
        x: *const u8,
        kind: Kind,
        sums: &mut [__m128i; 3],
    ) {
        let keys = self.aes.round_keys();
        let rounds = self.aes.rounds();
        // H^16..H^9 for the first batch of a pair, H^8..H^1 otherwise.
        let tab = if kind == Kind::Open {
            self.tables.0.as_ptr()
        } else {
            self.tables.0[16..].as_ptr()
        };
        // The operands every schedule below takes: the states in
        // xmm0–7, the sums in and out of xmm9–11, the rest of the
        // registers clobbered (the module header's layout).
        macro_rules! stitched {
            ($($template:expr),+ ; $($operand:tt)*) => {
                on_states!(
                    s, keys, rounds;
                    $($template),+;
                    $($operand)*
                    tab = in(reg) tab,
                    consts = in(reg) CONSTS.0.as_ptr(),
                    x = in(reg) x,
                    inout("xmm9") sums[0],
                    inout("xmm10") sums[1],
                    inout("xmm11") sums[2],
                    out("xmm12") _,
                    out("xmm13") _,
                    out("xmm14") _,
                    out("xmm15") _,
                    options(nostack),
                )
            };
        }
        // The two schedules, given the round with the first product
        // and the round with the last (and the reduction, or not) that
        // `kind` asks for.
        macro_rules! by_rounds {
            ($first:ident, $last:ident) => {
                if rounds == 14 {
                    // AES-256: the products spread over the fourteen
                    // rounds (the module header's schedule).
                    stitched!(
                        "movdqa xmm15, xmmword ptr [{consts}]",
                        $first!("{keys} + 16*2"),
                        product_round!("{keys} + 16*3", 1),
                        product_round!("{keys} + 16*4", 2),
                        round!("aesenc", "{keys} + 16*5"),
                        product_round!("{keys} + 16*6", 3),
                        product_round!("{keys} + 16*7", 4),
                        round!("aesenc", "{keys} + 16*8"),
                        product_round!("{keys} + 16*9", 5),
                        product_round!("{keys} + 16*10", 6),
                        round!("aesenc", "{keys} + 16*11"),
                        $last!("{keys} + 16*12"),
                        round!("aesenc", "{keys} + 16*13"),
                        round!("aesenclast", "{last}");
                    );
                } else {
                    // AES-128 and AES-192: a product in each of rounds
                    // 2 to 9, the reduction in round 9 after the last.
                    stitched!(
                        "movdqa xmm15, xmmword ptr [{consts}]",
                        $first!("{keys} + 16*2"),
                        product_round!("{keys} + 16*3", 1),
                        product_round!("{keys} + 16*4", 2),
                        product_round!("{keys} + 16*5", 3),
                        product_round!("{keys} + 16*6", 4),
                        product_round!("{keys} + 16*7", 5),
                        product_round!("{keys} + 16*8", 6),
                        $last!("{keys} + 16*9"),
                        // AES-192: two more rounds
                        "cmp {rounds}, 10",
                        "je 2f",
                        round!("aesenc", "{keys} + 16*10"),
                        round!("aesenc", "{keys} + 16*11"),
                        "2:",
                        round!("aesenclast", "{last}");
                        rounds = in(reg) rounds,
                    );
                }
            };
        }
        // SAFETY: the caller's contract covers `x`; `keys`
        // (aligned, 15 round keys), `self.tables` (sixteen entries from
        // `tab`) and `CONSTS` (both aligned) are read at offsets inside
        // them, as the aligned memory operands of the legacy SSE
        // encodings require; the features are enabled on this
        // function.
        unsafe {
            match kind {
                Kind::Alone => by_rounds!(first_round, reduce_round),
                Kind::Open => by_rounds!(first_round, open_last_round),
                Kind::Close => by_rounds!(close_first_round, reduce_round),
            }
        }
    }
}

/// `dst = src ⊕ keystream`, eight blocks.
///
/// # Safety
///
/// `src` must be 128 readable bytes and `dst` 128 writable ones,
/// either the same or not overlapping.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn xor_from(src: *const u8, dst: *mut u8, keystream: &[__m128i; 8]) {
    for (j, k) in keystream.iter().enumerate() {
        // SAFETY: block j of the 128 bytes, per the contract;
        // MOVDQU needs no alignment.
        unsafe {
            let x = _mm_loadu_si128(src.add(16 * j).cast());
            _mm_storeu_si128(dst.add(16 * j).cast(), _mm_xor_si128(x, *k));
        }
    }
}
