//! `vaes-avx512`: AES-GCM's counter mode and GHASH in one pass, with VAES
//! and VPCLMULQDQ on 512-bit registers, sixteen blocks per iteration.
//! Constant-time. Figures: `docs/kernels/vaes_avx512.md`.
//!
//! # CPU features
//!
//! `vaes ∧ vpclmulqdq ∧ avx512f ∧ avx512bw ∧ avx512vl`: the union of what
//! `vaes` and `vclmul` need. The kernel holds a `Vaes` key and a `Vclmul`
//! key, each its own capability token, so holding a kernel proves all
//! five; it also holds `ni` and `clmul` keys (AES-NI, PCLMULQDQ) for the
//! short path. `new` computes H = E(K, 0^128) and precomputes the
//! powers H^16 … H^1 (in `Vclmul`) and H^132 … H^1 (`LongPowers`, in
//! `Extra`: the whole messages and the batches' long path take them all,
//! the main loop H^32 … H^1), so a call only loads them.
//!
//! # Registers
//!
//! Per iteration: four registers of counter blocks under AES (sixteen
//! blocks), four of ciphertext under GHASH, the power registers
//! [H^16..H^13] … [H^4..H^1] and [H^32..H^29] … [H^20..H^17], the round
//! keys broadcast to all lanes (11, 13 or 15), the counters, the
//! byte-reversal mask, the fold constant and the accumulator: more than
//! the thirty-two ZMM registers, so the compiler keeps some round keys
//! and powers on the stack and reads them as memory operands (loads are
//! not the bound). The loop is intrinsics, not `asm!`:
//! the core's out-of-order window schedules it better than the written
//! order.
//!
//! # The loop
//!
//! GHASH reads ciphertext. Encrypting, it exists only after AES: the first
//! sixteen blocks are encrypted alone, then each iteration encrypts sixteen
//! new counter blocks while hashing the sixteen of the iteration before,
//! and the last sixteen are hashed after the loop. Decryption runs the
//! same way, each iteration hashing the chunk the one before loaded, so
//! that the compiler emits the reducing iteration round by round over the
//! four registers as it does the others. Hashed chunks go in pairs: the
//! first is multiplied by H^32 … H^17 and its products are left unreduced,
//! the second by H^16 … H^1, and the sums of both are reduced once (an odd
//! chunk out goes first, alone). One iteration is
//!
//! ```text
//! counters → rounds 0 and 1 (FACE's table: "Counters") → [AES-192/256: 2 or 4 rounds]
//! round  │ GHASH work beside it (data D0..D3, powers P0..P3)
//! r−8    │ byte-reflect D0..D3, D0 ⊕= Y; LO = Σ D_j ⊗_LL P_j
//! r−6    │ HI = Σ D_j ⊗_HH P_j; MI = Σ D_j ⊗_LH P_j ⊕ D_j ⊗_HL P_j
//! r−4    │ (second of a pair, or alone:) fold LO into MI
//! r−3    │ fold MI into HI: R, each lane reduced; (first of a pair: the
//!        │ sums are handed to the next iteration instead)
//! last   │ AESENCLAST(s, k_last ⊕ input): the XOR with the data is folded
//!        │ into the last round key, off the critical path; Y = lanes of R XORed
//! ```
//!
//! The aggregated reduction is derived in `vclmul`'s header; everything
//! being linear, the sums are combined once per reduction.
//!
//! # Products: schoolbook
//!
//! Four products per block (LO, HI and the two cross terms), sixteen per
//! register, on every CPU. Karatsuba's three (the middle from (a_L ⊕
//! a_H)(b_L ⊕ b_H) ⊕ LO ⊕ HI, with b_L ⊕ b_H stored per power) save a
//! quarter of the VPCLMULQDQs but add a shuffle and an XOR per register
//! on the ports the rounds share and eight stored halves that spill
//! AES-256's round keys; it lost on Intel (VAESENC and VPCLMULQDQ on
//! different ports) and, measured again, on AMD Zen 4 too, where the
//! fold's shuffle contends with the products for their pipe
//! (`docs/kernels/vaes_avx512.md`).
//!
//! # Counters
//!
//! A 96-bit IV's counter (IV ‖ count, public) skips AES's rounds 0 and 1 in
//! fifteen iterations of sixteen: FACE's first round for AES instructions
//! (`ctr/face/round1.rs`), a 16 KiB table per key (four copies, aligned
//! for every start). Sixteen consecutive counts whose low byte stays below
//! 0xF0 share bytes 0..14, and their state after round 1 is one register
//! computed once per 256 blocks XORed with four 64-byte loads from the
//! table. The iteration that reaches or crosses a multiple of 256 takes
//! `vaes`'s byte-reversed counters (which wrap the 32-bit count as incr32
//! does) and rounds 0 and 1 as instructions. A longer IV's J0 is GHASH(IV)
//! under H: its counters (`Counters<false>`) always take that branch-free
//! path and never index the table.
//!
//! # The tail
//!
//! After the loop fewer than sixteen blocks remain (the caller passes whole
//! blocks only). They go in one to four registers (a const generic, so no
//! padding block is encrypted), the last with a lane mask; block j of n is
//! multiplied by H^(n−j), read from the stored powers at entry 16 − n + j,
//! and the n products are reduced once.
//!
//! # Whole messages with a 96-bit IV
//!
//! A one-shot call with a 96-bit IV skips the state machine
//! ([`Kernel::crypt_whole`], which out of place reads one buffer and
//! writes the other in the same pass). Up to two blocks (`NI_SHORT`) it
//! takes `ni-clmul`'s short path (`Short` in `kernels/mod.rs`, on the
//! `ni` and `clmul` keys the kernel holds): one batch of 128-bit AES
//! chains, the lowest fixed latency. From three blocks up to 132 hashed
//! blocks (about 2 KiB), `own_powers`: every hashed block is multiplied
//! by its own power of H from the key's `LongPowers` (H^132 … H^1), all
//! products summed unreduced and reduced once, so no register waits for
//! another's GHASH; the message goes through AES in groups of four
//! registers, round by round from FACE's round 1 (its counts, 2 … c + 1,
//! share one run of the table), the last register of the last group
//! masked at the message's end (masked-off bytes are not accessed);
//! E(K, Y_0) is a 128-bit chain of its own. A 512-bit VAESENC takes both
//! AES units (one a cycle, where 128- and 256-bit ones issue two a
//! cycle), so Y_0 in a lane of the message's registers costs a fifth
//! register's rounds where the 128-bit chain costs half of one. Past 132
//! hashed blocks (with at most three of AAD), decryption and AES-128's
//! encryption take `own_powers_long`: the message in spans of 128
//! blocks, each summed as `own_powers` sums a message and reduced once,
//! the value of the spans before multiplied by its power beside the
//! span's products, the counters from `Counters` (FACE's table where a
//! group's low bytes do not wrap). Encrypting, both paths multiply a
//! group of sixteen blocks after the next group's rounds are issued
//! (`own_encrypt4`): products made right after their own group's rounds
//! wait for them in the core's scheduler, and past about 3 KiB that made
//! AES-128's spans slower than the main loop, which multiplies the chunk
//! before beside each chunk's rounds (AES-192's and AES-256's spans stay
//! slower than the loop, so their encryption keeps it).
//!
//! AES-192 and AES-256 encryption past 132 hashed blocks, and messages
//! with more AAD, hash the AAD, run the blocks that do not fill a chunk
//! (and those before a 64-byte boundary) first, then the main loop over
//! the whole chunks, and end with the partial block, whose keystream was
//! made before the loop beside E(K, Y_0) (`end_keystream`): the loop's
//! last chunk, the partial block and the lengths block are hashed
//! together, one reduction for the three. Where whole blocks are left
//! after the loop, `finish` runs them: Y_0 and their counter blocks
//! through AES together, in one to five registers, read and written at
//! an offset of −16 bytes with a byte mask that leaves out lane 0 of the
//! first register and everything past the end, so keystream lane i + 1
//! meets block i with no lane shuffles and lane 0 comes out as E(K,
//! Y_0); every hashed block times its own stored power, one reduction.
//! An empty message issues no masked access (its slice pointer is
//! dangling, and a masked-off byte on an unmapped page costs a microcode
//! assist). An AAD chunk is read by the narrowest masked load that holds
//! it (`load_narrow`): a masked load is forwarded only from a store as
//! wide as itself, and a short AAD is usually written just before the
//! call (ESP's, one 16-byte store).
//!
//! # Constant-time
//!
//! VAES and VPCLMULQDQ take the same time for every operand; keys and
//! powers are read at offsets that depend on lengths only; the branches
//! are on the length, the buffer's address, the direction and, for a
//! 96-bit IV's counter (public), its count, which picks the counter
//! blocks' path and indexes FACE's table. A secret counter (J0 =
//! GHASH(IV)) takes the branch-free path, chosen by a constant
//! (`Counters<false>`). `crates/aekit-ctgrind` checks this under Memcheck.
//!
//! # Citations
//!
//! E. Biggers, Linux `arch/x86/crypto/aes-gcm-avx10-x86_64.S` and its
//! BoringSSL port `aes-gcm-avx512-x86_64.pl` (the loop structure: first
//! chunk alone when encrypting, GHASH steps between the last nine AES
//! rounds, the `AESENCLAST` key-XOR trick, the masked tail with powers
//! chosen by the remaining length); S. Gueron, *Intel's New AES
//! Instructions for Enhanced Performance and Security*, and S. Gueron, M.
//! Kounavis, on aggregated reduction; OpenSSL's `aesni-gcm-x86_64.pl` (A.
//! Polyakov) for stitching AES rounds with the GHASH of earlier blocks;
//! FACE's first round as in `ctr/face/round1.rs`. Written from these
//! descriptions in Rust intrinsics.
//!
//! # Rejected
//!
//! - Karatsuba products on AMD (above): slower on Zen 4 at every size.
//! - One reduction per sixty-four blocks (H^64 … H^17 stored, 1.5 KiB per
//!   key): a little faster for AES-128 at 16 KiB, slower for AES-256 (more
//!   spills) and at 1 KiB (twenty-four more power registers to load).
//! - The AES rounds as `asm!` blocks of four VAESENC, to keep the source's
//!   interleaving: slower; the out-of-order core schedules better than the
//!   written order (Zen 1's smaller scheduler, `ni_clmul.rs`, does not).
//! - A loop over a runtime round count: the round keys are a const-generic
//!   array, so every call site unrolls.
//! - Hashing the previous chunk and the tail with one reduction: more than
//!   sixteen powers.
//! - A pair's reduced sums kept as four lanes and multiplied by H^32 lane by
//!   lane into the next pair's sums: faster in an `asm!` replica of the
//!   loop, not here.
//! - Decryption hashing the chunk it loads: the compiler emitted the
//!   reducing iteration one register's rounds after another's, and
//!   decryption ran behind encryption.
//! - `finish`'s AES batch made before the loop: the loop keeps the one
//!   512-bit AES port busy, so the moved rounds cost it their issue
//!   cycles, and up to five registers were carried across it.
//! - `own_powers` from one block: its one 512-bit chain from FACE's
//!   round 1 has a longer fixed latency than `ni-clmul`'s 128-bit batch
//!   up to two blocks (`docs/kernels/vaes_avx512.md`).
//! - `own_powers` registers one at a time (a loop of one register's
//!   rounds, products and sums): slower, the core's scheduler filled with
//!   the waiting chains; four registers round by round instead.
//! - E(K, Y_0) pinned at `own_powers`' start by an empty `asm!` (the
//!   compiler sinks it to the tag): no faster.
//! - E(K, Y_0) in `own_powers`' free lane after the last block, where
//!   there is one, instead of its 128-bit chain: no faster (the chain
//!   issues while the AES units wait for the first registers), slower
//!   at the sizes without a free lane.
//! - `own_powers`' last register read as four 128-bit masked loads, so
//!   that a last block the caller has just written in one 16-byte store
//!   (ESP's trailer) is forwarded: 19 to 26 more instructions a call, and
//!   ESP's encapsulation no faster (`docs/kernels/vaes_avx512.md`).

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, __mmask8, __mmask16, __mmask32, _MM_PERM_BADC, _mm_aesenc_si128,
    _mm_aesenclast_si128, _mm_extract_epi32, _mm_loadu_si128, _mm_mask_storeu_epi8,
    _mm_maskz_loadu_epi8, _mm_maskz_mov_epi8, _mm_set_epi64x, _mm_setzero_si128, _mm_shuffle_epi8,
    _mm_storeu_si128, _mm_xor_si128, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_maskz_loadu_epi8, _mm512_add_epi32, _mm512_aesenc_epi128, _mm512_aesenclast_epi128,
    _mm512_andnot_si512, _mm512_broadcast_i32x4, _mm512_castsi512_si128, _mm512_clmulepi64_epi128,
    _mm512_inserti32x4, _mm512_loadu_si512, _mm512_mask_broadcast_i32x4, _mm512_mask_storeu_epi8,
    _mm512_mask_storeu_epi64, _mm512_maskz_loadu_epi8, _mm512_maskz_loadu_epi64,
    _mm512_maskz_mov_epi8, _mm512_maskz_mov_epi64, _mm512_set_epi32, _mm512_setzero_si512,
    _mm512_shuffle_epi8, _mm512_shuffle_epi32, _mm512_storeu_si512, _mm512_xor_si512,
    _mm512_zextsi128_si512, _mm512_zextsi256_si512,
};

use core::borrow::BorrowMut;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::Short;
use super::shared::{end_keystream, ni_clmul_keys, tag, zen3_or_zen4};
use super::vaes_avx512_multi::{crypt_groups, long_powers};
use super::vaes_avx512_supplied;
use crate::aes::ni::{self, Ni};
use crate::aes::vaes::{
    RoundKeys, Vaes, broadcast_keys, counter_blocks, counter_start_from, encrypt, load_block,
};
use crate::aes::{Block, BlockCipher, KeySchedule};
use crate::ctr::face::round1::Round1;
use crate::gcm::kernel::{
    BatchMessage, Direction, FusedKernel, Kernel, LONG, LongPowers, TOP, Text, in_output, taken,
};
use crate::ghash::GhashKey;
use crate::ghash::clmul::Clmul;
use crate::ghash::vclmul::{
    Powers, Vclmul, Wide, bswap_mask, fold_constant, horizontal_xor, lane_mask, load_acc, mul_wide,
    reduce_to_128, sixteen, store_acc, xor3,
};

/// The `vaes` round keys and the `vclmul` powers of H; holding one
/// proves the CPU has VAES, VPCLMULQDQ and AVX-512F/BW/VL (each half
/// is its own capability token).
pub(crate) struct VaesAvx512 {
    aes: Vaes,
    ghash: Vclmul,
    /// What the main loop needs beyond `ghash`'s powers.
    extra: Extra,
    /// `ni` and `clmul` keys for the short path (`Short`, given
    /// messages up to [`NI_SHORT`]): see the module header's "Whole
    /// messages with a 96-bit IV". (`None` only in tests, which take
    /// the other path.)
    short: Option<(Ni, Clmul)>,
    /// [`whole`] for this key's size, encrypting and decrypting: chosen
    /// once here, so that a call does not choose.
    wholes: [Whole; 2],
}

/// The longest message (bytes) that goes to `ni-clmul`'s short path
/// (module header, "Whole messages"): up to two blocks, its
/// single AES chain of 128-bit lanes beats the 512-bit path's fixed
/// latency; from three, the one 512-bit register and E(K, Y_0) beside it
/// are faster than four or more 128-bit chains.
const NI_SHORT: usize = 32;

/// The longest message, in blocks (1 152 bytes), that a batch gives the
/// multi-buffer path on AMD Zen 4 (`Kernel::lanes_pay`): there, 64
/// messages of one length in one buffer ran 2–9 % faster one by one from
/// 1 216 bytes to 2 KiB, level at 1 088 and 1 152, and up to 13 % faster
/// in lanes below (`docs/kernels/vaes_avx512_multi.md`).
const LONGEST_ON_ZEN4: usize = 72;

/// The type of [`whole`]'s instances.
type Whole = unsafe fn(&VaesAvx512, &[u8; 12], &[u8], *const u8, *mut u8, usize) -> Block;

/// The key material beyond `vclmul`'s H^16 … H^1: the powers
/// H^(LONG + 4) … H^1 in one array (`vaes_avx512_multi::long_powers`: the
/// batches' long path multiplies each block by its own power; the
/// last thirty-two, H^32 … H^1, are what the main loop hashes
/// thirty-two blocks per reduction with, and the whole-message path's
/// last reduction takes up to seventeen; `own_powers` multiplies each
/// hashed block of a whole message by its own); and FACE's first-round
/// table of the AES key (the main loop and the long batch path start
/// their counter blocks at round 2). Zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
#[repr(C, align(64))]
struct Extra {
    /// Entry e holds H^(LONG + 4 − e), then zeros.
    long: LongPowers,
    /// FACE's first round (`ctr/face/round1.rs`): the main loop's
    /// counter blocks of a 96-bit IV skip rounds 0 and 1.
    round1: Round1<4>,
}

impl Extra {
    /// # Safety
    /// The CPU must support AVX-512F/BW/VL and VPCLMULQDQ.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
    unsafe fn new(powers: &Powers, round1: Round1<4>) -> Extra {
        let lane0 = |p: u128| _mm512_zextsi128_si512(_mm_set_epi64x((p >> 64) as i64, p as i64));
        // H^(16 + k) = H^16 · H^k; twisted times twisted folds to the
        // twisted product (see `vclmul`). Entry e holds H^(32 − e).
        let h16 = lane0(powers.0[0]);
        let mut all: [u128; 32] = core::array::from_fn(|e| {
            if e >= 16 {
                return powers.0[e - 16];
            }
            let p = reduce_to_128(mul_wide(h16, lane0(powers.0[e])));
            let mut b = [0u8; 16];
            // SAFETY: `b` is 16 writable bytes; no alignment needed.
            unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), p) };
            u128::from_le_bytes(b)
        });
        // SAFETY: the features are enabled on this function.
        let long = unsafe { long_powers(&all) };
        all.zeroize();
        Extra { long, round1 }
    }

    /// H^32 … H^1: entry e holds H^(32 − e).
    fn powers(&self) -> &[u128; 32] {
        self.long.powers_32_to_1()
    }
}

/// Four registers from the first sixteen 16-byte entries, as
/// [`Powers::load4`].
#[inline]
#[target_feature(enable = "avx512f")]
fn load4_entries(entries: &[u128]) -> [__m512i; 4] {
    assert!(entries.len() >= 16);
    // SAFETY: `entries` has at least 256 readable bytes (asserted);
    // each load reads 64 of them at offset 0, 64, 128, 192.
    unsafe {
        let p = entries.as_ptr();
        [
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(4).cast()),
            _mm512_loadu_si512(p.add(8).cast()),
            _mm512_loadu_si512(p.add(12).cast()),
        ]
    }
}

impl Kernel for VaesAvx512 {
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
        text: Text<'_>,
        direction: Direction,
        public: bool,
    ) {
        debug_assert_eq!(text.len() % 16, 0);
        // SAFETY: `text.io()` gives where the blocks are read and
        // written: the same bytes in place, or the input, readable, and
        // the output, writable (every byte is written, and only what was
        // written is read back), not overlapping.
        unsafe { self.blocks(counter, y, text.io(), direction, public) }
    }

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

    fn crypt_supplied(
        &self,
        keystream: &[u8],
        aad: &[u8],
        data: &mut [u8],
        direction: Direction,
    ) -> Option<Block> {
        Some(vaes_avx512_supplied::crypt(
            &self.ghash,
            keystream,
            aad,
            data,
            direction,
        ))
    }

    const LONGEST: usize = LONG;

    /// Every shape, but on AMD Zen 4 no message longer than
    /// [`LONGEST_ON_ZEN4`] blocks: there this kernel's one-message path
    /// runs a longer message faster than the multi-buffer path.
    fn lanes_pay() -> impl Fn(usize) -> bool {
        let zen = zen3_or_zen4();
        move |len| !zen || len <= 16 * LONGEST_ON_ZEN4
    }

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
        let (rk, rounds) = (self.aes.round_keys(), self.aes.rounds());
        let encrypt = direction == Direction::Encrypt;
        // SAFETY: `self.aes` exists, so VAES and AVX-512F/BW/VL were
        // detected; `self.ghash` exists, so VPCLMULQDQ was; the run is
        // groups of four messages with 96-bit IVs and one shape, as
        // long as `tags`, and of one length if `uniform` (checked
        // above).
        unsafe {
            crypt_groups(
                rk,
                rounds,
                (&self.extra.long, &self.extra.round1),
                run,
                uniform,
                encrypt,
                tags,
            )
        };
        run.len()
    }
}

impl VaesAvx512 {
    /// The short whole-message path ([`Short`]), for a message of at
    /// most [`NI_SHORT`] bytes.
    #[inline(always)]
    pub(crate) fn short(&self, len: usize) -> Option<Short<'_>> {
        match &self.short {
            Some((aes, ghash)) if len <= NI_SHORT => Some(Short { aes, ghash }),
            _ => None,
        }
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
        let (src, dst, n) = text.io();
        // SAFETY: holding `self` proves the CPU features; `src` is
        // readable and `dst` writable for `n` bytes (`whole` writes every
        // one of them and reads only what it wrote), the same buffer in
        // place and otherwise a shared and a mutable borrow, which do not
        // overlap.
        unsafe { self.whole(iv, aad, src, dst, n, direction) }
    }

    /// [`Kernel::crypt_blocks`] from `src` to `dst`, `n` bytes (whole
    /// blocks): a long run's blocks before the input's next 64-byte
    /// boundary first, alone ([`aligning_head`]), then the rest.
    ///
    /// # Safety
    /// `src` must be readable and `dst` writable for `n` bytes, and the
    /// two are the same buffer or do not overlap.
    unsafe fn blocks(
        &self,
        counter: &mut Block,
        y: &mut Block,
        (src, dst, n): (*const u8, *mut u8, usize),
        direction: Direction,
        public: bool,
    ) {
        let (rk, h) = (self.aes.round_keys(), (self.ghash.powers(), &self.extra));
        let enc = direction == Direction::Encrypt;
        let head = aligning_head(src, n, self.aes.rounds());
        let rest = (src.wrapping_add(head), dst.wrapping_add(head), n - head);
        for io in [(src, dst, head), rest] {
            if io.2 == 0 {
                continue; // no head
            }
            let io = (&mut *counter, &mut *y, io, public);
            // SAFETY: `self.aes` exists, so VAES and AVX-512F/BW/VL
            // were detected; `self.ghash` exists, so VPCLMULQDQ was;
            // both parts lie in the caller's buffers.
            unsafe { dispatch(self.aes.rounds(), enc, rk, h, io) };
        }
    }

    /// [`whole`] for this key's size and `direction`.
    /// (The buffers go as separate arguments: a tuple goes through
    /// memory, and [`whole`] read it back with a load wider than the
    /// stores that wrote it, which the CPU does not forward.)
    ///
    /// # Safety
    /// The CPU must support AES-NI, VAES, VPCLMULQDQ and AVX-512F/BW/VL
    /// (which holding `self` proves: its FACE table is made only where
    /// AES-NI is); `src`, `dst` and `n` as [`whole`]'s.
    #[target_feature(enable = "aes,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
    unsafe fn whole(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        n: usize,
        direction: Direction,
    ) -> Block {
        let f = self.wholes[usize::from(direction == Direction::Decrypt)];
        // SAFETY: `f` is `whole` for this key (`wholes`); the features
        // are this function's; the buffers are passed on from the caller.
        unsafe { f(self, iv, aad, src, dst, n) }
    }
}

impl FusedKernel for VaesAvx512 {
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
        let ghash = ghash?;
        // SAFETY: `ghash` exists, so AVX-512F/BW/VL and VPCLMULQDQ were
        // detected.
        let extra = unsafe { Extra::new(ghash.powers(), Round1::new(keys)?) };
        let short = Some(ni_clmul_keys(keys)?);
        let wholes: [Whole; 2] = match aes.rounds() {
            10 => [whole::<11, true>, whole::<11, false>],
            12 => [whole::<13, true>, whole::<13, false>],
            _ => [whole::<15, true>, whole::<15, false>],
        };
        Some(VaesAvx512 {
            aes,
            ghash,
            extra,
            short,
            wholes,
        })
    }
}

/// [`crypt`] for the key size and direction given.
///
/// # Safety
/// As [`crypt`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn dispatch(
    rounds: usize,
    encrypt: bool,
    rk: &RoundKeys,
    h: (&Powers, &Extra),
    io: (&mut Block, &mut Block, (*const u8, *mut u8, usize), bool),
) {
    // SAFETY: passed on from the caller.
    unsafe {
        match (rounds, encrypt) {
            (10, true) => crypt::<11, true>(rk, h, io),
            (10, false) => crypt::<11, false>(rk, h, io),
            (12, true) => crypt::<13, true>(rk, h, io),
            (12, false) => crypt::<13, false>(rk, h, io),
            (_, true) => crypt::<15, true>(rk, h, io),
            (_, false) => crypt::<15, false>(rk, h, io),
        }
    }
}

/// Counter mode and GHASH over whole blocks, `N` round keys, one pass
/// from `src` to `dst` (`n` bytes); the counter public or not
/// ([`Counters`]).
///
/// # Safety
/// The CPU must support VAES, VPCLMULQDQ and AVX-512F/BW/VL; `src` must
/// be readable and `dst` writable for `n` bytes, and the two are the
/// same buffer or do not overlap.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn crypt<const N: usize, const ENCRYPT: bool>(
    rk: &RoundKeys,
    h: (&Powers, &Extra),
    (counter, y, io, public): (&mut Block, &mut Block, (*const u8, *mut u8, usize), bool),
) {
    if public {
        // SAFETY: passed on from the caller.
        unsafe { crypt_from::<N, ENCRYPT, true>(rk, h, counter, y, io) }
    } else {
        // SAFETY: passed on from the caller.
        unsafe { crypt_from::<N, ENCRYPT, false>(rk, h, counter, y, io) }
    }
}

/// [`crypt`] with the counter public (`P`) or not ([`Counters`]).
///
/// # Safety
/// As [`crypt`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn crypt_from<const N: usize, const ENCRYPT: bool, const P: bool>(
    rk: &RoundKeys,
    (powers, extra): (&Powers, &Extra),
    counter: &mut Block,
    y: &mut Block,
    (src, dst, n): (*const u8, *mut u8, usize),
) {
    let mut ctr = Counters::<P>::new(counter);
    let chunks = n / 256;
    // SAFETY: `src` and `dst` are good for `n` ≥ 256 · `chunks` bytes
    // (the caller's contract).
    let acc = unsafe {
        body::<N, ENCRYPT, P>(rk, (powers, extra), &mut ctr, load_acc(y), src, dst, chunks)
    };
    let k = broadcast_keys::<N>(rk);
    let rev = &mut ctr.reversed();
    // The last blocks (under 256 bytes) go in place in `dst`, copied
    // there first when out of place.
    let (from, to) = (
        src.wrapping_add(256 * chunks),
        dst.wrapping_add(256 * chunks),
    );
    // SAFETY: both are good for the last n − 256 · chunks bytes, and
    // the same buffer or not overlapping (the caller's contract).
    let rest = unsafe { in_output(from, to, n - 256 * chunks) };
    let acc = match rest.len().div_ceil(64) {
        0 => acc,
        1 => tail::<N, ENCRYPT, 1>(&k, powers, rev, acc, rest),
        2 => tail::<N, ENCRYPT, 2>(&k, powers, rev, acc, rest),
        3 => tail::<N, ENCRYPT, 3>(&k, powers, rev, acc, rest),
        _ => tail::<N, ENCRYPT, 4>(&k, powers, rev, acc, rest),
    };
    store_acc(y, acc);
    let used = (n / 16) as u32; // modulo 2^32, as incr32
    let low = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
    counter[12..].copy_from_slice(&low.wrapping_add(used).to_be_bytes());
}

/// The main loop (the module header's "The loop") over `chunks`
/// chunks of 256 bytes read from `src` and written to `dst`, counters
/// from `ctr`; returns `acc` with every chunk's ciphertext hashed.
///
/// # Safety
/// The CPU must support VAES, VPCLMULQDQ and AVX-512F/BW/VL; `src` must
/// be readable and `dst` writable for 256 · `chunks` bytes, and the two
/// are the same buffer or do not overlap.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn body<const N: usize, const ENCRYPT: bool, const P: bool>(
    rk: &RoundKeys,
    h: (&Powers, &Extra),
    ctr: &mut Counters<P>,
    acc: __m128i,
    src: *const u8,
    dst: *mut u8,
    chunks: usize,
) -> __m128i {
    // SAFETY: passed on from the caller.
    let (acc, last) = unsafe { body_open::<N, ENCRYPT, P>(rk, h, ctr, acc, src, dst, chunks) };
    with_last(h.0, acc, last.as_ref())
}

/// `acc` with the chunk [`body_open`] left unhashed, if any, hashed
/// (times H^16 … H, reduced).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
fn with_last(powers: &Powers, acc: __m128i, last: Option<&[__m512i; 4]>) -> __m128i {
    match last {
        Some(last) => sixteen(&powers.load4(), last, acc),
        None => acc,
    }
}

/// [`body`] without the last chunk's GHASH: returns `acc` with every
/// chunk but the last hashed, and the last chunk's ciphertext (as read
/// or written, not byte-reflected), `None` for no chunk. [`whole`]
/// hashes it together with what ends the message, one reduction for all.
///
/// # Safety
/// As [`body`].
///
/// A function of its own, with the round keys broadcast inside it:
/// inlined into [`whole`] beside [`finish`], the compiler kept fewer of
/// its round keys and powers in registers, and AES-256 slowed down.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn body_open<const N: usize, const ENCRYPT: bool, const P: bool>(
    rk: &RoundKeys,
    (powers, extra): (&Powers, &Extra),
    ctr: &mut Counters<P>,
    mut acc: __m128i,
    src: *const u8,
    dst: *mut u8,
    chunks: usize,
) -> (__m128i, Option<[__m512i; 4]>) {
    if chunks == 0 {
        return (acc, None);
    }
    // The counters in a local, written back once at the end: through
    // `ctr` the compiler stored and reloaded them every iteration.
    let saved = ctr;
    let mut counters = *saved;
    let ctr = &mut counters;
    let k = &broadcast_keys::<N>(rk);
    // Chunk i's input and output.
    let at = |i: usize| (src.wrapping_add(256 * i), dst.wrapping_add(256 * i));
    let low = &powers.load4();
    // H^32 … H^17, loaded in the pair loops only (and hoisted out of
    // them by the compiler): a call with fewer than two hashed chunks
    // neither loads nor spills them.
    let high = || load4_entries(extra.powers());
    let zero = _mm_setzero_si128();
    // Hashed chunks go in pairs, the first multiplied by H^32 … H^17
    // and left unreduced, the second by H^16 … H^1 and the sum reduced
    // once.
    // SAFETY: every `at(i)` below has i < `chunks`, so the 256 bytes at
    // each of its pointers are in the caller's buffers (the same or not
    // overlapping); the features are enabled here.
    unsafe {
        // Each iteration hashes the ciphertext of the iteration before
        // (see `sixteen_fused`): the first sixteen blocks have none
        // before them, AES only.
        ctr.run_round1(k[0], k[1]);
        let mut s = ctr.next16(k[0], k[1], &extra.round1);
        for key in &k[2..N - 1] {
            round(&mut s, *key);
        }
        let mut prev = last_round::<ENCRYPT>(&s, k[N - 1], at(0));
        let mut i = 1;
        // The chunks hashed in this loop (all but the last) go in
        // pairs, the odd one out alone first: an iteration whose first
        // half is skipped. One call site per form (reducing or
        // not), so that the compiler inlines both (with two call
        // sites of the reducing form it kept it out of line for
        // AES-256).
        let mut carry = Wide::zero();
        let mut alone = (chunks - i) % 2 == 1;
        while i < chunks {
            if !alone {
                // The first of a pair: unreduced, with H^32 … H^17.
                let h = &high();
                (prev, _, carry) = sixteen_fused::<N, ENCRYPT, false, P>(
                    (k, &extra.round1),
                    h,
                    ctr,
                    &prev,
                    acc,
                    carry,
                    at(i),
                );
                acc = zero;
                i += 1;
            }
            alone = false;
            (prev, acc, carry) = sixteen_fused::<N, ENCRYPT, true, P>(
                (k, &extra.round1),
                low,
                ctr,
                &prev,
                acc,
                carry,
                at(i),
            );
            i += 1;
        }
        *saved = counters;
        (acc, Some(prev))
    }
}

/// From this many bytes on, AES-128's [`whole`] and [`Kernel::crypt_blocks`]
/// run the blocks before the input's next 64-byte boundary alone, so
/// that the loop's loads (and, in place, its stores) do not split cache
/// lines, for buffers 16, 32 or 48 bytes off a boundary (as malloc's and
/// Python's are). (FACE's table has a copy aligned for every start,
/// `ctr/face/round1.rs`.)
const ALIGN_FROM: usize = 4096;

/// The same for AES-192 and AES-256, whose loops the AES port bounds:
/// the split lines cost them less, and the head and the partial chunk it
/// leaves at the end cost more than that below a few hundred KiB.
const ALIGN_FROM_LONG_KEYS: usize = 128 << 10;

/// How many bytes of a run of `n` from `src` go before the loop, alone,
/// for a key of `rounds` rounds: those up to `src`'s next 64-byte
/// boundary, for [`ALIGN_FROM`] (AES-128) or [`ALIGN_FROM_LONG_KEYS`]
/// bytes or more from a 16-byte aligned address (else none: whole
/// blocks cannot reach a boundary). Depends on the address, the length
/// and the key size, all public.
fn aligning_head(src: *const u8, n: usize, rounds: usize) -> usize {
    if aligns(src, n, rounds) {
        (src as usize).wrapping_neg() % 64
    } else {
        0
    }
}

/// Whether a run of `n` bytes from `src` starts its loop on a 64-byte
/// boundary ([`aligning_head`]; also when `src` is on one already).
fn aligns(src: *const u8, n: usize, rounds: usize) -> bool {
    let from = if rounds == 10 {
        ALIGN_FROM
    } else {
        ALIGN_FROM_LONG_KEYS
    };
    n >= from && (src as usize).is_multiple_of(16)
}

/// Whole blocks of a long message that go before the loop beside the
/// aligning `head` (bytes), so that the loop's chunks end at the
/// message's last whole block and [`finish`] has at most its partial
/// block left: run after the loop, its AES chain and products waited
/// for nothing else and added their whole latency to the call, where
/// before the loop they overlap its first chunk. Where the loop
/// `aligned` starts on a 64-byte boundary it keeps it (a multiple of
/// four blocks); and it keeps at least one chunk for the loop. Depends
/// on the lengths and on whether the loop is aligned, which are public.
fn spare_blocks(n: usize, head: usize, aligned: bool) -> usize {
    let left = (n - head) / 16 % 16;
    let spare = if aligned { left / 4 * 4 } else { left };
    if n - head - 16 * spare >= 256 {
        spare
    } else {
        0
    }
}

/// A whole message with a 96-bit IV, no [`State`](super::super::state),
/// in place (`src` = `dst`) or from `src` into `dst`, `n` bytes each.
/// Messages of at most [`TOP`] hashed blocks go through [`own_powers`];
/// longer ones, where [`own_powers_long`] does not take them, hash the
/// AAD first, run the whole
/// blocks that do not fill a chunk (and those before a 64-byte
/// boundary) first from Y_1 = IV ‖ 2 ([`spare_blocks`]: up to eight
/// alone, [`head_dispatch`]; nine or more as a chunk whose first
/// lanes are empty, [`lead_chunk`]), then the main loop
/// ([`body_open`]) over the whole 256-byte chunks, and end with the
/// partial block, if any, whose keystream was made before the loop
/// beside E(K, Y_0) ([`last_block`]): the loop's last chunk is hashed
/// with it and the lengths block, one reduction for all three. (Where
/// the blocks left after the loop cannot all go
/// first, as beside an aligning head, [`finish`] runs them with
/// E(K, Y_0) after it.) E(K, Y_0) and the partial block's keystream are
/// made before the loop, an independent chain beside its first chunk;
/// [`finish`]'s whole AES batch is not (module header, "Rejected").
/// Returns the full tag.
///
/// # Safety
/// The CPU must support AES-NI, VAES, VPCLMULQDQ and AVX-512F/BW/VL;
/// `src` must be readable and `dst` writable for `n` bytes (dangling if
/// `n` is zero), the same buffer or two that do not overlap.
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn whole<const N: usize, const ENCRYPT: bool>(
    kernel: &VaesAvx512,
    iv: &[u8; 12],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    n: usize,
) -> Block {
    // len(A) ‖ len(C) in bits, as the reflected integer: len(A) is the
    // high qword.
    let lengths = _mm_set_epi64x((aad.len() as i64) << 3, (n as i64) << 3);
    let hashed = aad.len().div_ceil(16) + n.div_ceil(16) + 1;
    if hashed <= TOP {
        // SAFETY: passed on from the caller; the kernel's `Round1`
        // proves AES-NI; m ≤ TOP.
        return unsafe {
            own_powers::<N, ENCRYPT>(
                kernel.aes.round_keys(),
                (&kernel.extra.long, &kernel.extra.round1),
                iv,
                aad,
                lengths,
                (src, dst, n),
            )
        };
    }
    // SAFETY: passed on from the caller.
    unsafe { whole_in_chunks::<N, ENCRYPT>(kernel, iv, aad, lengths, (src, dst, n)) }
}

/// [`whole`] for the messages [`own_powers`] does not take: with at
/// most `TOP − SPAN − 1` blocks of AAD, decryption and AES-128's
/// encryption through [`own_powers_long`]; otherwise through the main
/// loop's chunks and an end. Out of line,
/// so that `own_powers`' calls do not set up this code's stack frame.
///
/// # Safety
/// As [`whole`]; `lengths` is the message's lengths block.
#[inline(never)]
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn whole_in_chunks<const N: usize, const ENCRYPT: bool>(
    kernel: &VaesAvx512,
    iv: &[u8; 12],
    aad: &[u8],
    lengths: __m128i,
    (src, dst, n): (*const u8, *mut u8, usize),
) -> Block {
    if aad.len().div_ceil(16) < TOP - SPAN && (!ENCRYPT || N == 11) {
        // SAFETY: passed on from the caller; the kernel's `Round1`
        // proves AES-NI; m > TOP and a < TOP − SPAN.
        return unsafe {
            own_powers_long::<N, ENCRYPT>(
                kernel.aes.round_keys(),
                (&kernel.extra.long, &kernel.extra.round1),
                iv,
                aad,
                lengths,
                (src, dst, n),
            )
        };
    }
    let rk = kernel.aes.round_keys();
    let all = kernel.extra.powers();
    let mut y = [0u8; 16];
    kernel.ghash.update_padded(&mut y, aad);
    let mut acc = load_acc(&y);
    // A long message's first blocks up to `src`'s next 64-byte
    // boundary go alone, so that none of the loop's loads splits a
    // cache line, nor (in place) its stores; FACE's table has a copy
    // aligned for every start (a 16-byte aligned buffer, as allocators
    // and Python's objects give them, is 16, 32 or 48 bytes off).
    let aligned = aligns(src, n, N - 1);
    let align = aligning_head(src, n, N - 1);
    let spare = spare_blocks(n, align, aligned);
    // Bytes before the loop: the aligning head and the spare blocks,
    // which go alone (`head`) or, many of them where the loop need not
    // start on a boundary, as a chunk of their own ahead of the loop's,
    // its first lanes empty (`lead`).
    let before = align + 16 * spare;
    let lead = if !aligned && spare >= LEAD_FROM {
        spare
    } else {
        0
    };
    let head = before - 16 * lead;
    if head > 0 {
        // SAFETY: `src` and `dst` are good for `n` > `head` bytes, the
        // same buffer or not overlapping (the caller's contract).
        let first = unsafe { in_output(src, dst, head) };
        acc = head_dispatch::<N, ENCRYPT>(rk, kernel.ghash.powers(), iv, acc, first);
    }
    if lead > 0 {
        // SAFETY: `src` and `dst` are good for `n` ≥ `before` bytes.
        let chunk = unsafe { lead_chunk::<N, ENCRYPT>(rk, iv, acc, (src, dst), lead) };
        // Hashed here, not in the loop's first iteration: the loop's
        // first chunk, AES only, runs beside it, and the loop is the
        // same code as for any message (taking the chunk as its first
        // made every call slower).
        acc = sixteen(&kernel.ghash.powers().load4(), &chunk, _mm_setzero_si128());
    }
    let (src, dst, n) = (
        src.wrapping_add(before),
        dst.wrapping_add(before),
        n - before,
    );
    let first_count = 2 + (before / 16) as u32;
    let mut ctr = Counters::<true>::from_register(ni::counter_block(iv, first_count));
    let chunks = n / 256;
    let done = 256 * chunks;
    // Sixteen counts per chunk after the head's (no wrap: a 96-bit
    // IV's message has fewer than 2^32 blocks).
    let next = first_count + 16 * chunks as u32;
    // A message that ends with the loop or one partial block after it
    // leaves [`finish`] no batch of counter blocks to run beside Y_0:
    // E(K, Y_0) and the partial block's keystream are made here,
    // before the loop, an independent chain the core runs beside its
    // first chunk rather than ten rounds the tag waits for after it.
    let ends =
        (n - done < 16).then(|| end_keystream::<N, 1>(&rk.0, iv, next, usize::from(n > done))[0]);
    let h = (kernel.ghash.powers(), &kernel.extra);
    // SAFETY: passed on from the caller; 256 · `chunks` ≤ `n`.
    let (acc, last) =
        unsafe { body_open::<N, ENCRYPT, true>(rk, h, &mut ctr, acc, src, dst, chunks) };
    let io = (src.wrapping_add(done), dst.wrapping_add(done), n - done);
    if let Some(keystream) = ends {
        // The loop's last chunk is hashed with the end, one reduction
        // for both.
        // SAFETY: passed on from the caller; fewer than 16 bytes left.
        return unsafe { last_block::<ENCRYPT>(keystream, all, last.as_ref(), acc, lengths, io) };
    }
    let acc = with_last(h.0, acc, last.as_ref());
    let rest = Rest {
        iv,
        next,
        acc,
        lengths,
        io,
    };
    // SAFETY: passed on from the caller; the last n − done < 256 bytes
    // are at most sixteen blocks, seventeen hashed with the lengths.
    unsafe { finish_dispatch::<N, ENCRYPT>(rk, all, rest) }
}

/// The end of a long message, the keystream of its end made before its
/// loop ([`end_keystream`]): its last `io.2` < 16 bytes (none, or the
/// partial block) XORed with lane 1 of `keystream`; the loop's `last`
/// chunk (its ciphertext, unhashed, `acc` joining its first block), that
/// block and the lengths block each times its power of H (H^18 … H^3, H^2
/// and H; without a partial block H^17 … H^2 and H), summed and reduced
/// once; the sum XORed with E(K, Y_0) (lane 0). Without a `last` chunk,
/// `acc` joins the partial block, or the lengths block. Returns the full
/// tag.
///
/// # Safety
/// The CPU must support AVX-512F/BW/VL and VPCLMULQDQ; `io` as
/// [`whole`]'s, with `io.2` < 16.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
unsafe fn last_block<const ENCRYPT: bool>(
    keystream: __m256i,
    all: &[u128; 32],
    last: Option<&[__m512i; 4]>,
    acc: __m128i,
    lengths: __m128i,
    (src, dst, r): (*const u8, *mut u8, usize),
) -> Block {
    debug_assert!(r < 16);
    let ek_y0 = _mm256_castsi256_si128(keystream);
    let bswap = bswap_mask();
    // Blocks hashed after the chunk: the lengths block, and the partial
    // block before it if any.
    let after = if r == 0 { 1 } else { 2 };
    let mut sum = Wide::zero();
    let acc = match last {
        Some(chunk) => {
            for (i, x) in chunk.iter().enumerate() {
                let mut d = _mm512_shuffle_epi8(*x, bswap);
                if i == 0 {
                    d = _mm512_xor_si512(d, _mm512_zextsi128_si512(acc));
                }
                // SAFETY: entries 16 − after + 4i … + 3, all below 32.
                let hp = unsafe { load_powers(all, 16 - after + 4 * i, 0xFF) };
                sum = sum.xor(mul_wide(d, hp));
            }
            _mm_setzero_si128()
        }
        None => acc,
    };
    if r == 0 {
        // The lengths block, `acc` added, times H (entry 31).
        // SAFETY: entry 31, one lane.
        let h1 = unsafe { load_powers(all, 31, lane_mask(1)) };
        let end = _mm512_zextsi128_si512(_mm_xor_si128(lengths, acc));
        return tag(reduce_to_128(sum.xor(mul_wide(end, h1))), ek_y0);
    }
    let mask = byte_range(0, r) as __mmask16;
    // SAFETY: the mask selects the `r` bytes of the message left;
    // masked-off bytes are not accessed.
    let x = unsafe { _mm_maskz_loadu_epi8(mask, src.cast()) };
    let out = _mm_xor_si128(x, _mm256_extracti128_si256::<1>(keystream));
    // SAFETY: as for the load.
    unsafe { _mm_mask_storeu_epi8(dst.cast(), mask, out) };
    // The ciphertext, zero past the end.
    let ct = if ENCRYPT {
        _mm_maskz_mov_epi8(mask, out)
    } else {
        x
    };
    let d = _mm_xor_si128(_mm_shuffle_epi8(ct, _mm512_castsi512_si128(bswap)), acc);
    // [block, lengths] times [H², H] (entries 30 and 31).
    let pair = _mm512_inserti32x4::<1>(_mm512_zextsi128_si512(d), lengths);
    // SAFETY: entries 30 and 31, two lanes.
    let hp = unsafe { load_powers(all, 30, lane_mask(2)) };
    tag(reduce_to_128(sum.xor(mul_wide(pair, hp))), ek_y0)
}

/// A whole message with a 96-bit IV whose hashed blocks (AAD, message,
/// lengths: m of them) have their own stored powers (m ≤ [`TOP`]): the
/// message's registers of four blocks go through AES in groups of four
/// ([`own_group`]), from FACE's round 1 (counts 2 … c + 1 share one
/// run), and each register's ciphertext is multiplied by its four powers
/// (hashed block j by H^(m − j)) into one unreduced sum with the AAD's
/// and the lengths block's products: no chain runs from one group to the
/// next, so the core overlaps them at the AES units' rate, and one
/// reduction ends the message. E(K, Y_0) runs in a 128-bit chain of its
/// own beside them. Returns the full tag.
///
/// # Safety
/// The CPU must support AES-NI, VAES, VPCLMULQDQ and AVX-512F/BW/VL;
/// `src` readable and `dst` writable for `n` bytes (dangling if `n` is
/// zero), the same buffer or two that do not overlap; m ≤ [`TOP`].
#[inline]
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn own_powers<const N: usize, const ENCRYPT: bool>(
    rk: &RoundKeys,
    (long, table): (&LongPowers, &Round1<4>),
    iv: &[u8; 12],
    aad: &[u8],
    lengths: __m128i,
    (src, dst, n): (*const u8, *mut u8, usize),
) -> Block {
    let c = n.div_ceil(16);
    let a = aad.len().div_ceil(16);
    let m = a + c + 1;
    debug_assert!(m <= TOP);
    let k = broadcast_keys::<N>(rk);
    // E(K, Y_0) as `own_ek_y0` makes it, written out: through that
    // function the compiler spilled AES-256 decryption's IV here
    // (`docs/kernels/vaes_avx512.md`).
    let key = |i: usize| _mm512_castsi512_si128(k[i]);
    let mut y0 = _mm_xor_si128(ni::counter_block(iv, 1), key(0));
    for i in 1..N - 1 {
        y0 = _mm_aesenc_si128(y0, key(i));
    }
    let ek_y0 = _mm_aesenclast_si128(y0, key(N - 1));
    // Round 1 of IV ‖ 0; the table's entry at a count is the
    // difference to round 1 of IV ‖ count.
    let r1 = _mm512_aesenc_epi128(
        _mm512_xor_si512(_mm512_broadcast_i32x4(ni::counter_block(iv, 0)), k[0]),
        k[1],
    );
    // Hashed block j takes H^(m − j), entry TOP − m + j.
    let base = TOP - m;
    let mut sum = own_aad_lengths(long, aad, base, lengths);
    let first = base + a;
    let regs = c.div_ceil(4);
    // Groups of four registers, the last of one to four, its last
    // register masked at the message's end (none for an empty message:
    // its pointers are dangling).
    if regs == 0 {
        return tag(reduce_to_128(sum), ek_y0);
    }
    let full = (regs - 1) / 4;
    let at = |g: usize| Group {
        count: 2 + 16 * g,
        at: GroupAt {
            powers: long.0[first + 16 * g..].as_ptr(),
            io: (
                src.wrapping_add(256 * g),
                dst.wrapping_add(256 * g),
                (n - 256 * g).min(256),
            ),
        },
    };
    // Encrypting, each group's products are made after the next
    // group's rounds are issued, when its ciphertext is ready
    // ([`own_encrypt4`]).
    let mut behind: Option<([__m512i; 4], *const u128)> = None;
    for g in 0..full {
        let group = at(g);
        // SAFETY: passed on from the caller; group g is 256 bytes of
        // the message; a group's powers are 16 entries.
        unsafe {
            if ENCRYPT {
                let diff = table.entries(group.count as u8, 16);
                let s = [0, 4, 8, 12]
                    .map(|j| _mm512_xor_si512(r1, _mm512_loadu_si512(diff.add(j).cast())));
                let ct = own_encrypt4::<N>(&k, s, group.at.io);
                if let Some((ct, powers)) = behind {
                    sum = own_products4(ct, powers, sum);
                }
                behind = Some((ct, group.at.powers));
            } else {
                sum = own_group::<N, ENCRYPT, 4, false>(&k, r1, table, sum, group);
            }
        }
    }
    if let Some((ct, powers)) = behind {
        // SAFETY: a group's powers are 16 entries.
        sum = unsafe { own_products4(ct, powers, sum) };
    }
    // SAFETY: passed on from the caller; the last group is the rest.
    sum = unsafe {
        match regs - 4 * full {
            1 => own_group::<N, ENCRYPT, 1, true>(&k, r1, table, sum, at(full)),
            2 => own_group::<N, ENCRYPT, 2, true>(&k, r1, table, sum, at(full)),
            3 => own_group::<N, ENCRYPT, 3, true>(&k, r1, table, sum, at(full)),
            _ => own_group::<N, ENCRYPT, 4, true>(&k, r1, table, sum, at(full)),
        }
    };
    tag(reduce_to_128(sum), ek_y0)
}

/// E(K, Y_0) for [`own_powers_long`] (`own_powers` writes the same
/// out): a 128-bit chain of its own, on lane 0 of the broadcast round
/// keys `k`.
#[inline]
#[target_feature(enable = "aes,avx512f")]
fn own_ek_y0<const N: usize>(k: &[__m512i; N], iv: &[u8; 12]) -> __m128i {
    let key = |i: usize| _mm512_castsi512_si128(k[i]);
    let mut y0 = _mm_xor_si128(ni::counter_block(iv, 1), key(0));
    for i in 1..N - 1 {
        y0 = _mm_aesenc_si128(y0, key(i));
    }
    _mm_aesenclast_si128(y0, key(N - 1))
}

/// Entries `entry` … `entry + 3` of the stored powers.
#[inline]
#[target_feature(enable = "avx512f")]
fn four_powers(long: &LongPowers, entry: usize) -> __m512i {
    let four = &long.0[entry..entry + 4];
    // SAFETY: `four` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(four.as_ptr().cast()) }
}

/// The products of the AAD's blocks with the stored powers from `entry`
/// on (block j by entry `entry + j`), unreduced.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
fn own_aad(long: &LongPowers, aad: &[u8], entry: usize) -> Wide {
    let mut sum = Wide::zero();
    for (r, chunk) in aad.chunks(64).enumerate() {
        // SAFETY: `chunk` is readable.
        let raw = unsafe { load_narrow(chunk.as_ptr(), chunk.len()) };
        // Lanes past the AAD are zero: their powers (the message's)
        // multiply nothing.
        sum = sum.xor(mul_wide(
            _mm512_shuffle_epi8(raw, bswap_mask()),
            four_powers(long, entry + 4 * r),
        ));
    }
    sum
}

/// The lengths block times H (entry TOP − 1, in lane 0, the lanes after
/// it cleared), unreduced.
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn own_lengths(long: &LongPowers, lengths: __m128i) -> Wide {
    let h1 = _mm512_maskz_mov_epi64(lane_mask(1), four_powers(long, TOP - 1));
    mul_wide(_mm512_zextsi128_si512(lengths), h1)
}

/// [`own_aad`] from entry `base` plus [`own_lengths`]: an AAD of at most
/// one block (a packet header's) is multiplied in the lengths block's
/// register, its power in lane 0 and H in lane 1, rather than in a
/// register of its own (one set of products instead of two, and no loop).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
fn own_aad_lengths(long: &LongPowers, aad: &[u8], base: usize, lengths: __m128i) -> Wide {
    if aad.len() > 16 {
        return own_aad(long, aad, base).xor(own_lengths(long, lengths));
    }
    // No load for an empty AAD: its pointer may be dangling, and a masked
    // load from an unmapped page takes a microcode assist even with every
    // byte masked off (about 0.6× the speed at 64 bytes, measured).
    let raw = if aad.is_empty() {
        _mm_setzero_si128()
    } else {
        let mask = byte_range(0, aad.len()) as __mmask16;
        // SAFETY: the mask selects the AAD's bytes; masked-off bytes are
        // not accessed.
        unsafe { _mm_maskz_loadu_epi8(mask, aad.as_ptr().cast()) }
    };
    let block = _mm_shuffle_epi8(raw, _mm512_castsi512_si128(bswap_mask()));
    let pair = _mm512_inserti32x4::<1>(_mm512_zextsi128_si512(block), lengths);
    let power = |entry: usize| {
        // SAFETY: one entry of the stored powers, 16 readable bytes.
        unsafe { _mm_loadu_si128((&long.0[entry] as *const u128).cast()) }
    };
    let powers = _mm512_inserti32x4::<1>(_mm512_zextsi128_si512(power(base)), power(TOP - 1));
    mul_wide(pair, powers)
}

/// Message blocks in a span of [`own_powers_long`] but its last.
const SPAN: usize = 128;

/// [`own_powers`] for a message longer than the stored powers, with at
/// most `TOP − 1 − SPAN` blocks of AAD: the message in spans of [`SPAN`]
/// blocks (the last one the rest), each summed as `own_powers` sums a
/// message and reduced once. The GHASH value of the spans before a span
/// is multiplied by the power its first hashed block would take, beside
/// the span's products, so no span's AES or products wait for the
/// reduction before it. The counts run past 255: [`Counters`] makes each
/// group's round 1, from FACE's table where the group's low bytes do not
/// wrap. Returns the full tag.
///
/// # Safety
/// As [`own_powers`], but m > [`TOP`] and a ≤ `TOP − 1 − SPAN`.
#[inline(never)]
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn own_powers_long<const N: usize, const ENCRYPT: bool>(
    rk: &RoundKeys,
    (long, table): (&LongPowers, &Round1<4>),
    iv: &[u8; 12],
    aad: &[u8],
    lengths: __m128i,
    (src, dst, n): (*const u8, *mut u8, usize),
) -> Block {
    let c = n.div_ceil(16);
    let a = aad.len().div_ceil(16);
    debug_assert!(a + c + 1 > TOP && a < TOP - SPAN);
    let k = broadcast_keys::<N>(rk);
    let ek_y0 = own_ek_y0(&k, iv);
    let mut counters = Counters::<true>::from_register(ni::counter_block(iv, 2));
    counters.run_round1(k[0], k[1]);
    let spans = c.div_ceil(SPAN);
    let mut y = _mm_setzero_si128();
    for span in 0..spans {
        let start = SPAN * span;
        let blocks = (c - start).min(SPAN);
        let (first, last) = (span == 0, span == spans - 1);
        let hashed = blocks + if first { a } else { 0 } + usize::from(last);
        // Hashed block j of the span takes H^(hashed − j), entry
        // TOP − hashed + j; the value so far joins block 0.
        let base = TOP - hashed;
        let mut sum = if first {
            own_aad(long, aad, base)
        } else {
            let h = _mm512_maskz_mov_epi64(lane_mask(1), four_powers(long, base));
            mul_wide(_mm512_zextsi128_si512(y), h)
        };
        if last {
            sum = sum.xor(own_lengths(long, lengths));
        }
        let first_entry = base + if first { a } else { 0 };
        let regs = blocks.div_ceil(4);
        let groups = regs.div_ceil(4);
        let at = |g: usize| {
            let offset = 16 * start + 256 * g;
            GroupAt {
                powers: long.0[first_entry + 16 * g..].as_ptr(),
                io: (
                    src.wrapping_add(offset),
                    dst.wrapping_add(offset),
                    (n - offset).min(256),
                ),
            }
        };
        // Encrypting (AES-128: `whole`), each group's products are made
        // after the next group's rounds are issued, when its ciphertext
        // is ready ([`own_encrypt4`]).
        let mut behind: Option<([__m512i; 4], *const u128)> = None;
        for g in 0..groups - usize::from(last) {
            let s = counters.next16(k[0], k[1], table);
            let group = at(g);
            // SAFETY: passed on from the caller; group g is 256 bytes of
            // the message, not its end; a group's powers are 16 entries.
            unsafe {
                if ENCRYPT {
                    let ct = own_encrypt4::<N>(&k, s, group.io);
                    if let Some((ct, powers)) = behind {
                        sum = own_products4(ct, powers, sum);
                    }
                    behind = Some((ct, group.powers));
                } else {
                    sum = own_group_from::<N, ENCRYPT, 4, false>(&k, s, sum, group);
                }
            }
        }
        if let Some((ct, powers)) = behind {
            // SAFETY: a group's powers are 16 entries.
            sum = unsafe { own_products4(ct, powers, sum) };
        }
        if last {
            let s = counters.next16(k[0], k[1], table);
            let g = groups - 1;
            // SAFETY: passed on from the caller; the last group is the
            // rest of the message.
            sum = unsafe { own_last_group::<N, ENCRYPT>(&k, s, sum, at(g), regs - 4 * g) };
        }
        y = reduce_to_128(sum);
    }
    tag(y, ek_y0)
}

/// Four registers of a message encrypted from their state after round
/// 1 (`s`): the rest of AES round by round, the message XORed and
/// stored; returns the ciphertext, for [`own_products4`]. Encrypting,
/// `own_powers` and `own_powers_long` (AES-128) multiply a group's
/// ciphertext after the next group's rounds, not after its own: its
/// products then find their operands ready instead of waiting in the
/// core's scheduler beside the rounds. With AES-192 and AES-256 the four
/// registers kept across the next group's rounds crowd the broadcast
/// round keys, which cost an Intel Xeon a little and gained AMD Zen 4
/// more (`docs/kernels/vaes_avx512.md`).
///
/// # Safety
/// As [`own_powers`]; `src` readable and `dst` writable for 256 bytes.
#[inline]
#[target_feature(enable = "avx512f,vaes")]
unsafe fn own_encrypt4<const N: usize>(
    k: &[__m512i; N],
    mut s: [__m512i; 4],
    (src, dst, _): (*const u8, *mut u8, usize),
) -> [__m512i; 4] {
    for key in &k[2..N - 1] {
        round(&mut s, *key);
    }
    for (i, s) in s.iter_mut().enumerate() {
        // SAFETY: register i is 64 bytes of the 256.
        unsafe {
            let x = _mm512_loadu_si512(src.wrapping_add(64 * i).cast());
            *s = _mm512_aesenclast_epi128(*s, _mm512_xor_si512(k[N - 1], x));
            _mm512_storeu_si512(dst.wrapping_add(64 * i).cast(), *s);
        }
    }
    s
}

/// The products of four registers of ciphertext with their sixteen
/// powers at `powers`, added to `sum`.
///
/// # Safety
/// `powers` points to sixteen readable entries.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
unsafe fn own_products4(ct: [__m512i; 4], powers: *const u128, mut sum: Wide) -> Wide {
    for (i, ct) in ct.iter().enumerate() {
        // SAFETY: entries 4i … 4i + 3 of the sixteen.
        let h = unsafe { _mm512_loadu_si512(powers.add(4 * i).cast()) };
        sum = sum.xor(mul_wide(_mm512_shuffle_epi8(*ct, bswap_mask()), h));
    }
    sum
}

/// [`own_group`] for the group that ends a message: `regs` (1 to 4)
/// registers of `s`.
///
/// # Safety
/// As [`own_group`] with `END`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn own_last_group<const N: usize, const ENCRYPT: bool>(
    k: &[__m512i; N],
    s: [__m512i; 4],
    sum: Wide,
    group: GroupAt,
    regs: usize,
) -> Wide {
    let [s0, s1, s2, s3] = s;
    // SAFETY: passed on from the caller.
    unsafe {
        match regs {
            1 => own_group_from::<N, ENCRYPT, 1, true>(k, [s0], sum, group),
            2 => own_group_from::<N, ENCRYPT, 2, true>(k, [s0, s1], sum, group),
            3 => own_group_from::<N, ENCRYPT, 3, true>(k, [s0, s1, s2], sum, group),
            _ => own_group_from::<N, ENCRYPT, 4, true>(k, [s0, s1, s2, s3], sum, group),
        }
    }
}

/// `V` registers of a message for [`own_powers`]: the counts from
/// `count`, their powers and bytes `at`.
struct Group {
    count: usize,
    at: GroupAt,
}

/// What [`own_group`] and [`own_group_from`] do from their state after
/// round 1 (`$s`) on: the rest of AES round by round, the message
/// XORed and stored, the ciphertext's products added to `$sum`, which
/// it returns. A macro rather than a function the two call: as a
/// function of its own the body changed how the compiler scheduled
/// `own_powers`, whose 256-byte encryption ran slower
/// (`docs/kernels/vaes_avx512.md`).
macro_rules! own_rounds {
    ($k:ident, $s:ident, $sum:ident, $powers:ident, ($src:ident, $dst:ident, $n:ident)) => {{
        for key in &$k[2..N - 1] {
            round(&mut $s, *key);
        }
        let bswap = bswap_mask();
        for (i, s) in $s.iter().enumerate() {
            let (from, to) = ($src.wrapping_add(64 * i), $dst.wrapping_add(64 * i));
            let last = END && i == V - 1 && $n - 64 * i < 64;
            let mask = if last {
                byte_range(0, $n - 64 * i)
            } else {
                u64::MAX
            };
            // SAFETY: the mask selects bytes of the message only; masked-off
            // bytes are not accessed; the others are whole registers.
            let x = unsafe {
                if last {
                    _mm512_maskz_loadu_epi8(mask, from.cast())
                } else {
                    _mm512_loadu_si512(from.cast())
                }
            };
            let out = _mm512_aesenclast_epi128(*s, _mm512_xor_si512($k[N - 1], x));
            // SAFETY: as for the load.
            unsafe {
                if last {
                    _mm512_mask_storeu_epi8(to.cast(), mask, out);
                } else {
                    _mm512_storeu_si512(to.cast(), out);
                }
            }
            let ct = if ENCRYPT && last {
                _mm512_maskz_mov_epi8(mask, out)
            } else if ENCRYPT {
                out
            } else {
                x
            };
            // SAFETY: the group's powers are 4V entries.
            let h = unsafe { _mm512_loadu_si512($powers.add(4 * i).cast()) };
            // Lanes past the message are zero; their powers multiply nothing.
            $sum = $sum.xor(mul_wide(_mm512_shuffle_epi8(ct, bswap), h));
        }
        $sum
    }};
}

/// `V` registers of [`own_powers`] through AES round by round from
/// round 1 (`r1` XOR the table's entries), XORed with the message and
/// stored, and their ciphertext's products added to `sum`. `END`: the
/// group ends the message, and its last register, if partial, is read
/// and written with a byte mask.
///
/// # Safety
/// As [`own_powers`]; `group.io` is 64(V − 1) < n ≤ 64V bytes (`END`)
/// or 64V bytes, its counts below 256 and its powers 4V entries.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn own_group<const N: usize, const ENCRYPT: bool, const V: usize, const END: bool>(
    k: &[__m512i; N],
    r1: __m512i,
    table: &Round1<4>,
    mut sum: Wide,
    group: Group,
) -> Wide {
    let Group {
        count,
        at: GroupAt {
            powers,
            io: (src, dst, n),
        },
    } = group;
    let diff = table.entries(count as u8, 4 * V);
    let mut s = [r1; V];
    for (i, s) in s.iter_mut().enumerate() {
        // SAFETY: `diff` has 4V entries.
        *s = _mm512_xor_si512(*s, unsafe { _mm512_loadu_si512(diff.add(4 * i).cast()) });
    }
    own_rounds!(k, s, sum, powers, (src, dst, n))
}

/// `V` registers of [`own_powers`] through AES round by round from
/// their state after round 1 (`s`), XORed with the message and stored,
/// and their ciphertext's products added to `sum`. `END`: the group
/// ends the message, and its last register, if partial, is read and
/// written with a byte mask.
///
/// # Safety
/// As [`own_powers`]; `group.io` is 64(V − 1) < n ≤ 64V bytes (`END`)
/// or 64V bytes, and its powers 4V entries.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn own_group_from<const N: usize, const ENCRYPT: bool, const V: usize, const END: bool>(
    k: &[__m512i; N],
    mut s: [__m512i; V],
    mut sum: Wide,
    group: GroupAt,
) -> Wide {
    let GroupAt {
        powers,
        io: (src, dst, n),
    } = group;
    own_rounds!(k, s, sum, powers, (src, dst, n))
}

/// `V` registers of a message for [`own_group_from`] and [`own_group`]:
/// their powers from `powers`, the bytes `io`.
struct GroupAt {
    powers: *const u128,
    io: (*const u8, *mut u8, usize),
}

/// The end of a whole message with a 96-bit IV, for [`finish`].
struct Rest<'a> {
    iv: &'a [u8; 12],
    /// The count of the counter block of the first byte of `io`.
    next: u32,
    /// GHASH of everything before `io` (the AAD and the message's
    /// blocks before it).
    acc: __m128i,
    /// The lengths block: len(A) ‖ len(C) in bits, reflected.
    lengths: __m128i,
    /// The last bytes of the message: read at `.0`, written at `.1`,
    /// `.2` of them.
    io: (*const u8, *mut u8, usize),
}

/// Spare blocks ([`spare_blocks`]) from which they go through AES as
/// a chunk ([`lead_chunk`]) instead of [`tail`]: a chunk's AES costs
/// the same for any number of its lanes used, the tail's grows with
/// them (from four to eight blocks the two cost the same).
const LEAD_FROM: usize = 9;

/// The first `q` (< 16) blocks of a message, from IV ‖ 2, as the last
/// `q` lanes of a sixteen-block chunk whose first lanes are empty:
/// encrypted or decrypted in place at `src`/`dst` (masked: the empty
/// lanes' bytes, before the message, are not accessed) and returned
/// as the ciphertext to hash as a chunk (the loop's powers, H^16 …
/// H), zero in the empty lanes and `acc` added to the first block:
/// leading zero blocks leave GHASH from zero unchanged.
///
/// The empty lanes' counts (IV ‖ 2 − (16 − q) …, wrapping below zero
/// as incr32 wraps) are encrypted with the others and thrown away:
/// the loop's FACE table assumes a run of 256 counts, so these
/// blocks take the plain counters and all the rounds.
///
/// # Safety
/// The CPU must support VAES and AVX-512F/BW/VL; `src` readable and
/// `dst` writable for 16 · `q` bytes, the same or not overlapping.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes")]
unsafe fn lead_chunk<const N: usize, const ENCRYPT: bool>(
    rk: &RoundKeys,
    iv: &[u8; 12],
    acc: __m128i,
    (src, dst): (*const u8, *mut u8),
    q: usize,
) -> [__m512i; 4] {
    debug_assert!((1..16).contains(&q));
    let empty = 16 - q;
    let k = broadcast_keys::<N>(rk);
    let mut ctr = counter_start_from(ni::counter_block(iv, 2u32.wrapping_sub(empty as u32)));
    let mut s = counter_blocks::<4>(&mut ctr);
    encrypt(&k, &mut s);
    // `acc` in lane `empty`, byte order of the data (the loop reflects
    // its lanes before adding them).
    let acc = _mm_shuffle_epi8(acc, _mm512_castsi512_si128(bswap_mask()));
    let (src, dst) = (src.wrapping_sub(16 * empty), dst.wrapping_sub(16 * empty));
    let mut out = [_mm512_setzero_si512(); 4];
    for (r, (o, s)) in out.iter_mut().zip(&s).enumerate() {
        // The lanes 4r + l ≥ `empty` of register r, two qwords each.
        let first = empty.saturating_sub(4 * r).min(4);
        let mask = (0xFFu32 << (2 * first)) as __mmask8;
        if mask == 0 {
            continue;
        }
        let (from, to) = (src.wrapping_add(64 * r), dst.wrapping_add(64 * r));
        // SAFETY: the mask selects blocks `empty` .. 16 of the chunk,
        // the message's first `q`; masked-off lanes are not accessed.
        let x = unsafe { _mm512_maskz_loadu_epi64(mask, from.cast()) };
        let y = _mm512_xor_si512(*s, x);
        // SAFETY: as for the load.
        unsafe { _mm512_mask_storeu_epi64(to.cast(), mask, y) };
        let ct = if ENCRYPT {
            _mm512_maskz_mov_epi64(mask, y)
        } else {
            x
        };
        let add = if empty / 4 == r {
            // Four dword mask bits a lane.
            let lane = 0xFu16 << (4 * (empty % 4));
            _mm512_mask_broadcast_i32x4(_mm512_setzero_si512(), lane, acc)
        } else {
            _mm512_setzero_si512()
        };
        *o = _mm512_xor_si512(ct, add);
    }
    out
}

/// The blocks before a long message's loop (fewer than sixteen, from
/// IV ‖ 2): [`tail`] with the number of counter registers chosen.
/// Kept out of [`whole`], as [`finish_dispatch`] is: inlined there,
/// its four forms made every call of `whole` slower, the shortest
/// most.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
fn head_dispatch<const N: usize, const ENCRYPT: bool>(
    rk: &RoundKeys,
    powers: &Powers,
    iv: &[u8; 12],
    acc: __m128i,
    head: &mut [u8],
) -> __m128i {
    let k = broadcast_keys::<N>(rk);
    let ctr = &mut counter_start_from(ni::counter_block(iv, 2));
    match head.len().div_ceil(64) {
        1 => tail::<N, ENCRYPT, 1>(&k, powers, ctr, acc, head),
        2 => tail::<N, ENCRYPT, 2>(&k, powers, ctr, acc, head),
        3 => tail::<N, ENCRYPT, 3>(&k, powers, ctr, acc, head),
        _ => tail::<N, ENCRYPT, 4>(&k, powers, ctr, acc, head),
    }
}

/// [`finish`] with the number of counter registers chosen.
///
/// # Safety
/// As [`finish`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn finish_dispatch<const N: usize, const ENCRYPT: bool>(
    rk: &RoundKeys,
    all: &[u128; 32],
    rest: Rest<'_>,
) -> Block {
    // Y_0 and the message's counter blocks, four per register.
    let registers = (rest.io.2.div_ceil(16) + 1).div_ceil(4);
    // SAFETY: passed on from the caller.
    unsafe {
        match registers {
            1 => finish::<N, ENCRYPT, 1>(rk, all, rest),
            2 => finish::<N, ENCRYPT, 2>(rk, all, rest),
            3 => finish::<N, ENCRYPT, 3>(rk, all, rest),
            4 => finish::<N, ENCRYPT, 4>(rk, all, rest),
            _ => finish::<N, ENCRYPT, 5>(rk, all, rest),
        }
    }
}

/// The last bytes of a long message and its tag: E(K, Y_0) and the
/// counter blocks of its last c blocks go through AES together in `V`
/// registers (so E(K, Y_0) costs no latency of its own), and those c
/// blocks and the lengths block are each multiplied by their power of
/// H (H^(c+1) for the first, …, H for the lengths block), summed
/// unreduced and reduced once; `acc` joins the first of them (or the
/// lengths block if there is none). Returns the full tag.
///
/// Block i of the message is keystream lane i + 1, so the message is
/// read and written at an offset of −16 bytes with a byte mask that
/// leaves out lane 0 of the first register (and everything past the
/// end): the masked-off bytes are not accessed. Lane 0 of the first
/// register then comes out of AES as E(K, Y_0).
///
/// # Safety
/// The CPU must support VAES, VPCLMULQDQ and AVX-512F/BW/VL; `io` as
/// [`whole`]'s; c = ⌈len/16⌉ at most 16 (c + 1 powers stored), and
/// ⌈(c + 1)/4⌉ = `V`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn finish<const N: usize, const ENCRYPT: bool, const V: usize>(
    rk: &RoundKeys,
    all: &[u128; 32],
    rest: Rest<'_>,
) -> Block {
    let Rest {
        iv,
        next,
        acc,
        lengths,
        io: (src, dst, n),
    } = rest;
    let c = n.div_ceil(16);
    debug_assert!(c <= 16 && (c + 1).div_ceil(4) == V);
    let k = broadcast_keys::<N>(rk);
    let bswap = bswap_mask();

    // Lane i ≥ 1 is IV ‖ (next + i − 1) (from IV ‖ (next − 1) in lane
    // 0, with incr32's wrap), then lane 0 is set to Y_0 = IV ‖ 1.
    // (Made from the IV in registers, `ni::counter_block`: a block
    // assembled in memory is not forwarded to the load that reads it.)
    let mut ctr = counter_start_from(ni::counter_block(iv, next.wrapping_sub(1)));
    let mut s = counter_blocks::<V>(&mut ctr);
    s[0] = _mm512_mask_broadcast_i32x4(s[0], 0x000f, ni::counter_block(iv, 1));
    for x in s.iter_mut() {
        *x = _mm512_xor_si512(*x, k[0]);
    }

    // The message, lane i + 1 ↔ block i: register r covers bytes
    // 64r − 16 … 64r + 48 of it.
    let mut x = [_mm512_setzero_si512(); V];
    let mut masks = [0u64; V];
    let (src, dst) = (src.wrapping_sub(16), dst.wrapping_sub(16));
    for (r, (x, mask)) in x.iter_mut().zip(masks.iter_mut()).enumerate() {
        if n == 0 {
            // No message (GMAC, or a body of whole chunks): no access
            // at all. A masked load whose masked-off bytes fall on an
            // unmapped page is correct but slow (a microcode assist),
            // and an empty slice's pointer is dangling.
            break;
        }
        let lo = if r == 0 { 16 } else { 0 };
        let hi = (16 + n - 64 * r).min(64); // ≥ 1: 4r ≤ c
        *mask = byte_range(lo, hi);
        // SAFETY: the mask selects bytes of the message only (offsets
        // 16.. in the first register, up to the end in the last);
        // masked-off bytes are not accessed.
        *x = unsafe { _mm512_maskz_loadu_epi8(*mask, src.wrapping_add(64 * r).cast()) };
    }

    // Off the critical path, while AES runs: the lengths block's
    // product.
    // The lengths block times H (entry 31); `acc` joins it when there
    // is no message block.
    let last = if c == 0 {
        _mm_xor_si128(lengths, acc)
    } else {
        lengths
    };
    // SAFETY: entry 31, one lane.
    let h1 = unsafe { load_powers(all, 31, lane_mask(1)) };
    let sum = mul_wide(_mm512_zextsi128_si512(last), h1);

    for key in &k[1..N - 1] {
        round(&mut s, *key);
    }
    let mut sum_ct = Wide::zero();
    let mut ek_y0 = _mm_setzero_si128();
    for (r, ((s, x), mask)) in s.iter().zip(&x).zip(&masks).enumerate() {
        let out = _mm512_aesenclast_epi128(*s, _mm512_xor_si512(k[N - 1], *x));
        if n > 0 {
            // SAFETY: as for the load.
            unsafe { _mm512_mask_storeu_epi8(dst.wrapping_add(64 * r).cast(), *mask, out) };
        }
        if r == 0 {
            ek_y0 = _mm512_castsi512_si128(out); // lane 0: x was zero there
        }
        // The ciphertext, zero outside the message.
        let ct = if ENCRYPT {
            _mm512_maskz_mov_epi8(*mask, out)
        } else {
            *x
        };
        let mut d = _mm512_shuffle_epi8(ct, bswap);
        if r == 0 {
            // `acc` joins message block 0 (lane 1); zero-extended
            // `acc` would land in lane 0, which is E(K, Y_0) here.
            d = _mm512_xor_si512(
                d,
                _mm512_mask_broadcast_i32x4(_mm512_setzero_si512(), 0x00f0, acc),
            );
        }
        // Block i = 4r + l − 1 is hashed block a + i: H^(c + 1 − i), at
        // entry 31 − c + i. Lanes holding blocks 0..c only.
        let first = if r == 0 { 1 } else { 0 };
        let last = (c + 1 - 4 * r).min(4); // one past the last lane
        if last <= first {
            continue; // no message block in this register (c = 0)
        }
        let lanes = lane_mask(last) & !(lane_mask(1) * first as u8);
        let entry = all.as_ptr().wrapping_add(30 + 4 * r).wrapping_sub(c);
        // SAFETY: the lanes selected are entries 31 − c … 31 of the 32;
        // masked-off lanes (lane 0 of the first register, at entry
        // 30 − c, which may be −1) are not accessed.
        let hp = unsafe { _mm512_maskz_loadu_epi64(lanes, entry.cast()) };
        sum_ct = sum_ct.xor(mul_wide(d, hp));
    }
    tag(reduce_to_128(sum.xor(sum_ct)), ek_y0)
}

/// The powers at entries `start..` of `all`, lane i from entry
/// start + i, only the lanes in `mask`, the others zero.
///
/// # Safety
/// `start` plus the number of lanes in `mask` is at most 32, and
/// `mask` selects a prefix of the lanes.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load_powers(all: &[u128; 32], start: usize, mask: __mmask8) -> __m512i {
    debug_assert!(start + (mask.count_ones() as usize) / 2 <= 32);
    // SAFETY: masked-off lanes are not accessed, and the lanes
    // selected are in the array per the contract.
    unsafe { _mm512_maskz_loadu_epi64(mask, all.as_ptr().wrapping_add(start).cast()) }
}

/// The `len` ≤ 64 bytes at `p`, zero past them, by the narrowest masked
/// load that holds them. A masked load is forwarded from an earlier store
/// only if one store covers its whole width, masked-off bytes included:
/// an AAD the caller has just written (an ESP header, a TLS record's) in
/// one 16-byte store is forwarded to a 16-byte load, where a 64-byte load
/// would wait for the store to reach the cache.
///
/// # Safety
/// `p` must be readable for `len` bytes; the others are not accessed.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn load_narrow(p: *const u8, len: usize) -> __m512i {
    let mask = byte_range(0, len);
    // SAFETY: the masks select the `len` bytes at `p`, by this
    // function's contract; masked-off bytes are not accessed.
    unsafe {
        if len <= 16 {
            _mm512_zextsi128_si512(_mm_maskz_loadu_epi8(mask as __mmask16, p.cast()))
        } else if len <= 32 {
            _mm512_zextsi256_si512(_mm256_maskz_loadu_epi8(mask as __mmask32, p.cast()))
        } else {
            _mm512_maskz_loadu_epi8(mask, p.cast())
        }
    }
}

/// The byte mask for bytes `lo..hi` of a register (empty if hi ≤ lo).
#[inline(always)]
fn byte_range(lo: usize, hi: usize) -> u64 {
    if hi <= lo {
        return 0;
    }
    (u64::MAX >> (64 - hi)) & (u64::MAX << lo)
}

/// The main loop's counter blocks, through AES's rounds 0 and 1.
///
/// A public counter (`PUBLIC`: a 96-bit IV's, IV ‖ count) takes FACE's
/// first round (`ctr/face/round1.rs`): while the count's low byte
/// stays below 0xF0, the sixteen blocks share their run of 256 counts,
/// and their state after round 1 is `r` (round 1 of the run's block
/// with byte 15 zero, in every lane) XOR four 64-byte loads from the
/// key's table at the low byte: no AES instruction and no counter
/// arithmetic. One iteration in sixteen reaches or crosses a multiple
/// of 256; it takes `vaes`'s path from the byte-reversed form (which
/// also wraps the 32-bit count as incr32 does) with rounds 0 and 1 as
/// instructions, and computes the next run's `r`: one AES round on one
/// register per 256 blocks.
///
/// A longer IV's J0 is GHASH under H: a branch on its bits or a table
/// read at them would time the key, so the general path's counters,
/// when not public, always take `vaes`'s branch-free path. (`PUBLIC` is
/// a constant, not a field: a flag asked at run time before the count
/// slowed decryption.) It pays where the loop is bound by the AES port
/// (AES-256), not for AES-128.
#[derive(Clone, Copy)]
pub(super) struct Counters<const PUBLIC: bool> {
    /// Lane 0: the next counter block, in spec byte order.
    be: __m512i,
    /// The count of lane 0 of `be` (the low word of the counter block).
    low: u32,
    /// Rounds 0 and 1 of the block of `be`'s lane 0 with byte 15
    /// cleared, in every lane (public counters only).
    r: __m512i,
}

impl<const PUBLIC: bool> Counters<PUBLIC> {
    /// Counters from `counter`: public (a 96-bit IV's) or not; `r`
    /// is set by [`run_round1`](Self::run_round1) where the round keys
    /// are at hand, before [`next16`](Self::next16).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn new(counter: &Block) -> Counters<PUBLIC> {
        Counters::from_register(load_block(counter))
    }

    /// [`new`](Self::new) of a counter block in a register.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn from_register(counter: __m128i) -> Counters<PUBLIC> {
        Counters {
            be: _mm512_shuffle_epi8(counter_start_from(counter), bswap_mask()),
            low: (_mm_extract_epi32::<3>(counter) as u32).swap_bytes(),
            r: _mm512_setzero_si512(),
        }
    }

    /// Sets `r` for the run of `be`'s lane 0 (public counters only),
    /// `k0` and `k1` the first two round keys in every lane.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes")]
    fn run_round1(&mut self, k0: __m512i, k1: __m512i) {
        if PUBLIC {
            let lane0 = _mm512_broadcast_i32x4(_mm512_castsi512_si128(self.be));
            let base = _mm512_andnot_si512(Self::byte15([0xff; 4]), lane0);
            self.r = _mm512_aesenc_epi128(_mm512_xor_si512(base, k0), k1);
        }
    }

    /// The next sixteen counter blocks through rounds 0 and 1, the
    /// round keys `k0`, `k1` in every lane and FACE's `table` of the
    /// same key.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes")]
    fn next16(&mut self, k0: __m512i, k1: __m512i, table: &Round1<4>) -> [__m512i; 4] {
        if PUBLIC && self.low & 0xff < 0xf0 {
            let p = table.entries(self.low as u8, 16);
            // SAFETY: `p` points to sixteen entries of 16 bytes.
            let s = unsafe {
                [0, 4, 8, 12].map(|j| _mm512_xor_si512(self.r, _mm512_loadu_si512(p.add(j).cast())))
            };
            // Lane 0 does not overflow: its low byte is below 0xF0.
            self.be = _mm512_add_epi32(self.be, Self::byte15([16; 4]));
            self.low = self.low.wrapping_add(16);
            return s;
        }
        let mut rev = self.reversed();
        let mut s = counter_blocks::<4>(&mut rev);
        for x in s.iter_mut() {
            *x = _mm512_aesenc_epi128(_mm512_xor_si512(*x, k0), k1);
        }
        self.be = _mm512_shuffle_epi8(rev, bswap_mask());
        self.low = self.low.wrapping_add(16);
        self.run_round1(k0, k1);
        s
    }

    /// The next counter register in `vaes`'s byte-reversed form, from
    /// lane 0 of `be` alone (the other lanes are not kept: their byte
    /// 15 may have overflowed in an addition of 16).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn reversed(&self) -> __m512i {
        counter_start_from(_mm512_castsi512_si128(self.be))
    }

    /// `l[i]` in byte 15 of lane i (the top byte of its dword 3, the
    /// count's low byte in spec byte order), zero elsewhere.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn byte15(l: [i32; 4]) -> __m512i {
        _mm512_set_epi32(
            l[3] << 24,
            0,
            0,
            0,
            l[2] << 24,
            0,
            0,
            0,
            l[1] << 24,
            0,
            0,
            0,
            l[0] << 24,
            0,
            0,
            0,
        )
    }
}

/// Four registers from the 256 bytes at `p`.
///
/// # Safety
/// The 256 bytes at `p` must be readable.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load4(p: *const u8) -> [__m512i; 4] {
    // SAFETY: bytes 0..256 at `p` are readable (the caller's
    // contract); the loads need no alignment.
    unsafe {
        [
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(64).cast()),
            _mm512_loadu_si512(p.add(128).cast()),
            _mm512_loadu_si512(p.add(192).cast()),
        ]
    }
}

/// The last AES round of four registers, XORed with the 256 bytes at
/// `src` and written to `dst`; returns the ciphertext (what was
/// written encrypting, what was read decrypting).
/// `AESENCLAST(s, k ⊕ x)` equals `AESENCLAST(s, k) ⊕ x` (the last
/// round ends in the key XOR), so the data XOR comes off the critical
/// path.
///
/// # Safety
/// 256 bytes must be readable at `src` and writable at `dst`, the same
/// bytes or bytes that do not overlap.
#[inline]
#[target_feature(enable = "avx512f,vaes")]
unsafe fn last_round<const ENCRYPT: bool>(
    s: &[__m512i; 4],
    klast: __m512i,
    (src, dst): (*const u8, *mut u8),
) -> [__m512i; 4] {
    // SAFETY: as the caller's contract.
    let x = unsafe { load4(src) };
    let mut out = *s;
    for ((o, x), s) in out.iter_mut().zip(x).zip(s) {
        *o = _mm512_aesenclast_epi128(*s, _mm512_xor_si512(klast, x));
    }
    for (j, o) in out.iter().enumerate() {
        // SAFETY: bytes 64j..64j+64 at `dst` are writable (the
        // caller's contract), and were read above if in place.
        unsafe { _mm512_storeu_si512(dst.add(64 * j).cast(), *o) };
    }
    if ENCRYPT { out } else { x }
}

/// One iteration of the main loop: AES (round keys `k` in every lane,
/// FACE's `table`) on the next sixteen counter blocks, XORed into the
/// chunk at `io`, while sixteen ciphertext
/// blocks (the first with `acc` added) are multiplied by the powers
/// `h` and added to the unreduced sums `carry`: `prev`, the previous
/// iteration's ciphertext.
/// With `REDUCE` the sums are reduced into the returned accumulator;
/// without, they are returned and the accumulator returned is zero. Also returns this chunk's
/// ciphertext, for the next iteration.
///
/// # Safety
/// As [`last_round`], for `io`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn sixteen_fused<const N: usize, const ENCRYPT: bool, const REDUCE: bool, const P: bool>(
    (k, table): (&[__m512i; N], &Round1<4>),
    h: &[__m512i; 4],
    ctr: &mut Counters<P>,
    prev: &[__m512i; 4],
    acc: __m128i,
    carry: Wide,
    io: (*const u8, *mut u8),
) -> ([__m512i; 4], __m128i, Wide) {
    let g = prev;
    let bswap = bswap_mask();
    let c = fold_constant();
    let mut s = ctr.next16(k[0], k[1], table);
    // AES-192's and AES-256's extra rounds first, so that the part
    // interleaved with GHASH is the same eight rounds for every key size.
    for key in &k[2..N - 9] {
        round(&mut s, *key);
    }
    let m = &k[N - 9..N - 1]; // the last eight middle rounds

    // Byte-reflect the blocks; Y joins the first.
    let d0 = _mm512_xor_si512(
        _mm512_shuffle_epi8(g[0], bswap),
        _mm512_zextsi128_si512(acc),
    );
    let d1 = _mm512_shuffle_epi8(g[1], bswap);
    let d2 = _mm512_shuffle_epi8(g[2], bswap);
    let d3 = _mm512_shuffle_epi8(g[3], bswap);

    // Schoolbook: MI = Σ a_L ⊗ b_H ⊕ a_H ⊗ b_L.
    // The two cross products of `d` and `h` added to `sum`: one
    // three-way XOR per register, four for the eight products.
    let cross = |sum: __m512i, d: __m512i, h: __m512i| {
        xor3(
            sum,
            _mm512_clmulepi64_epi128(d, h, 0x01),
            _mm512_clmulepi64_epi128(d, h, 0x10),
        )
    };
    // LO = Σ a_L ⊗ b_L over the four registers.
    let lo = xor3(
        carry.lo,
        _mm512_clmulepi64_epi128(d0, h[0], 0x00),
        _mm512_clmulepi64_epi128(d1, h[1], 0x00),
    );
    round(&mut s, m[0]);
    let lo = xor3(
        lo,
        _mm512_clmulepi64_epi128(d2, h[2], 0x00),
        _mm512_clmulepi64_epi128(d3, h[3], 0x00),
    );
    round(&mut s, m[1]);

    // HI = Σ a_H ⊗ b_H.
    let hi = xor3(
        carry.hi,
        _mm512_clmulepi64_epi128(d0, h[0], 0x11),
        _mm512_clmulepi64_epi128(d1, h[1], 0x11),
    );
    round(&mut s, m[2]);
    let hi = xor3(
        hi,
        _mm512_clmulepi64_epi128(d2, h[2], 0x11),
        _mm512_clmulepi64_epi128(d3, h[3], 0x11),
    );
    let mi = cross(cross(carry.mid, d0, h[0]), d1, h[1]);
    round(&mut s, m[3]);
    let mi = cross(cross(mi, d2, h[2]), d3, h[3]);
    round(&mut s, m[4]);
    if !REDUCE {
        for key in &m[5..] {
            round(&mut s, *key);
        }
        let sums = Wide { lo, mid: mi, hi };
        // SAFETY: as the caller's contract.
        let out = unsafe { last_round::<ENCRYPT>(&s, k[N - 1], io) };
        return (out, _mm_setzero_si128(), sums);
    }

    // First fold, LO into MI: MI' = MI ⊕ swap(LO) ⊕ LO_L ⊗ C.
    let t = _mm512_clmulepi64_epi128(lo, c, 0x10); // LO_L ⊗ C
    let mi = xor3(mi, _mm512_shuffle_epi32(lo, _MM_PERM_BADC), t);
    round(&mut s, m[5]);

    // Second fold, MI' into HI.
    let t = _mm512_clmulepi64_epi128(mi, c, 0x10); // MI'_L ⊗ C
    round(&mut s, m[6]);
    let r = xor3(hi, _mm512_shuffle_epi32(mi, _MM_PERM_BADC), t);
    round(&mut s, m[7]);

    let acc = horizontal_xor(r);
    // SAFETY: as the caller's contract.
    (
        unsafe { last_round::<ENCRYPT>(&s, k[N - 1], io) },
        acc,
        Wide::zero(),
    )
}

/// One middle AES round on `V` registers.
#[inline]
#[target_feature(enable = "avx512f,vaes")]
fn round<const V: usize>(s: &mut [__m512i; V], key: __m512i) {
    for x in s.iter_mut() {
        *x = _mm512_aesenc_epi128(*x, key);
    }
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
    use crate::gcm::kernel::Pair;
    use crate::gcm::kernel::tests::{
        blocks_in_place, blocks_into, messages_at_offsets, reference_pair, whole_messages_match,
    };

    /// Which lengths a batch gives the lanes: on AMD Zen 4 up to 1 152
    /// bytes, elsewhere every length.
    #[test]
    fn lanes_pay_on_zen4_to_1152_bytes() {
        let (zen, lanes_pay) = (zen3_or_zen4(), VaesAvx512::lanes_pay());
        for len in 33..=16 * LONG {
            assert_eq!(lanes_pay(len), !zen || len <= 1152, "{len} bytes");
        }
    }

    /// Long messages (where [`whole`] runs the blocks before the input's
    /// 64-byte boundary alone) in buffers at every offset from a
    /// boundary, in place and from each offset into each other, against
    /// the general path over a (table, bitserial) pair
    /// (`messages_at_offsets`).
    #[test]
    fn long_messages_at_every_alignment() {
        for key_len in [16, 32] {
            let ks = KeySchedule::new(&vec![0x4d; key_len]).unwrap();
            let Some(fused) = VaesAvx512::new(&ks) else {
                eprintln!("SKIP vaes-avx512: not available on this CPU");
                return;
            };
            let (table, ghash) = reference_pair(&ks);
            let pair = Pair {
                aes: &table,
                ghash: &ghash,
            };
            let least = if key_len == 16 {
                ALIGN_FROM
            } else {
                ALIGN_FROM_LONG_KEYS
            };
            let lengths = [least, least + 4, least + 904, least + 4096 + 48];
            messages_at_offsets(&ks, &fused, &lengths, "vaes-avx512");
            // `crypt_blocks` (the general path's and a pool's slices'
            // loop) at every offset, the count wrapping inside, public
            // counters and not.
            let n = least + 48;
            let text: Vec<u8> = (0..n).map(|i| (i * 7 + 2) as u8).collect();
            let mut store = vec![0u8; n + 128];
            let s0 = store.as_ptr().align_offset(64);
            for from in [0, 5, 16, 32, 48] {
                for (direction, public) in [
                    (Direction::Encrypt, true),
                    (Direction::Decrypt, true),
                    (Direction::Encrypt, false),
                ] {
                    let mut c1 = [0x3cu8; 16];
                    c1[12..].copy_from_slice(&0xffff_fff0u32.to_be_bytes());
                    let (mut c2, mut y1, mut y2) = (c1, [0x11u8; 16], [0x11u8; 16]);
                    let mut expected = text.clone();
                    pair.crypt_blocks(
                        &mut c2,
                        &mut y2,
                        Text::InPlace(&mut expected),
                        direction,
                        false,
                    );
                    let buf = &mut store[s0 + from..s0 + from + n];
                    buf.copy_from_slice(&text);
                    fused.crypt_blocks(&mut c1, &mut y1, Text::InPlace(buf), direction, public);
                    let what = format!("crypt_blocks at +{from} public {public}");
                    assert!(*buf == expected[..], "{what}: data");
                    assert_eq!((c1, y1), (c2, y2), "{what}: counter and GHASH");
                }
            }
        }
    }

    /// The blocks before the loop: every whole block past the last
    /// chunk where the loop need not be aligned, a multiple of four
    /// where it must stay on its 64-byte boundary, and never the last
    /// chunk itself.
    #[test]
    fn spare_blocks_keep_the_loop_aligned_and_whole() {
        for n in (256..5000).chain([1 << 20, (1 << 20) + 100, 100_000]) {
            for head in [0, 16, 32, 48] {
                for aligned in [false, true] {
                    let spare = spare_blocks(n, head, aligned);
                    let rest = n - head - 16 * spare;
                    assert!(spare < 16, "{n} {head}");
                    if spare > 0 {
                        assert!(rest >= 256, "{n} {head}: the loop keeps a chunk");
                    }
                    if aligned {
                        assert_eq!(spare % 4, 0, "{n} {head}: the loop stays aligned");
                    } else if n - head >= 512 {
                        assert!(rest % 256 < 16, "{n} {head}: only the partial block after");
                    }
                }
            }
        }
    }

    /// The whole-message path against the general path, with and
    /// without `ni-clmul`'s short path in front (`kernel`'s
    /// `whole_messages_match`).
    #[test]
    fn whole_messages_match_the_general_path() {
        for key_len in [16, 24, 32] {
            let ks = KeySchedule::new(&vec![0x3e; key_len]).unwrap();
            let Some(mut fused) = VaesAvx512::new(&ks) else {
                eprintln!("SKIP vaes-avx512: not available on this CPU");
                return;
            };
            fused.short = None;
            for with_ni in [false, true] {
                if with_ni {
                    fused.short = ni_clmul_keys(&ks);
                    assert!(fused.short.is_some());
                }
                let what = format!("vaes-avx512 ni short {with_ni}");
                whole_messages_match(&ks, &fused, &what, true);
            }
        }
    }

    /// `crypt_blocks` against the two-pass (table, bitserial) pair for
    /// every block count up to 70 (several loop iterations plus every
    /// tail) and a few up to 529 (past the counter's low byte wrapping
    /// several times), both directions, three key sizes, with the
    /// 32-bit count about to wrap.
    #[test]
    fn matches_the_two_pass_pair_and_wraps() {
        for key_len in [16, 24, 32] {
            let ks = KeySchedule::new(&vec![0x5c; key_len]).unwrap();
            let Some(fused) = VaesAvx512::new(&ks) else {
                eprintln!("SKIP vaes-avx512: not available on this CPU");
                return;
            };
            let (table, ghash) = reference_pair(&ks);
            let pair = Pair {
                aes: &table,
                ghash: &ghash,
            };
            // 0xffff_ff37: sixteen-block steps whose low byte passes
            // 0xF0 (the shuffled counters) and then the 32-bit wrap;
            // 0x1e0 … 0x1ef: the step before the shuffled one at every
            // low byte, where the unshuffled lanes 1 to 3 overflow.
            let near = (0x1e0..0x1f0).map(|s| (s, [20usize, 48, 70].as_slice()));
            let long: &[usize] = &(0..=70)
                .chain([255, 256, 257, 300, 529])
                .collect::<Vec<_>>();
            let starts = [1u32, 0xffff_fff8, 0xffff_ff37].map(|s| (s, long));
            for (start, lengths) in starts.into_iter().chain(near) {
                for &blocks in lengths {
                    for (direction, public) in [
                        (Direction::Encrypt, false),
                        (Direction::Decrypt, false),
                        (Direction::Encrypt, true),
                        (Direction::Decrypt, true),
                    ] {
                        let mut counter = [0x3cu8; 16];
                        counter[12..].copy_from_slice(&start.to_be_bytes());
                        let y = [0x11u8; 16];
                        let data: Vec<u8> = (0..16 * blocks).map(|i| (i * 7 + 3) as u8).collect();
                        let into = blocks_into(&fused, (counter, y), &data, direction, public);
                        // The branch-free counters and the public
                        // ones' fast paths.
                        let (d1, c1, y1) =
                            blocks_in_place(&fused, (counter, y), data.clone(), direction, public);
                        let (d2, c2, y2) =
                            blocks_in_place(&pair, (counter, y), data, direction, false);
                        let what = format!(
                            "AES-{} start {start:#x} {blocks} blocks public {public}",
                            key_len * 8
                        );
                        assert!(d1 == d2, "data, {what}");
                        assert_eq!(y1, y2, "GHASH, {what}");
                        assert_eq!(c1, c2, "counter, {what}");
                        assert!(into == (d2, c2, y2), "out of place, {what}");
                    }
                }
            }
        }
    }
}
