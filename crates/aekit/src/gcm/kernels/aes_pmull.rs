//! `aes-pmull`: AES-GCM's counter mode and GHASH in one pass on AArch64,
//! AESE/AESMC rounds interleaved with PMULL/PMULL2 products on 128-bit
//! NEON registers. Constant-time.
//!
//! # CPU features
//!
//! `aes` (Rust's aarch64 name for FEAT_AES with FEAT_PMULL): the `armv8`
//! strategy and the `pmull` strategy, whose keys the kernel holds, each the
//! capability token for its half, so an [`AesPmull`] exists only where
//! both were detected. Optionally `sha3` (FEAT_SHA3) for EOR3: chosen at
//! key setup ([`AesPmull::with_eor3`]; `new` takes it where
//! `is_aarch64_feature_detected!("sha3")`), kept as a flag in the key, and
//! the loop is then the same body compiled with `sha3` enabled
//! (`batches::<true>`), its three-way XORs one instruction each.
//!
//! # What it computes
//!
//! [`Kernel::crypt_blocks`]: for whole 16-byte blocks, C_i = P_i ⊕ E(K,
//! incr32^i(counter)) and Y ← (Y ⊕ C_i)·H over the ciphertext, in one pass
//! instead of the default's two. The IV, the AAD, partial blocks and the
//! tag go through the two strategies unchanged. [`Kernel::crypt_whole`]:
//! a whole message with a 96-bit IV, its tag included (below).
//!
//! # Registers
//!
//! Thirty-two 128-bit registers, allotted by the compiler: eight AES
//! states (counter blocks in FIPS-197 byte order), the round key of the
//! moment, the eight ciphertext blocks being hashed (byte-reversed to the
//! reflected integer by TBL), the three unreduced sums (lo, hi, raw
//! Karatsuba middle) and the products in flight. The powers of H and
//! their folds (sixteen registers' worth), the round keys and the counter
//! steps do not all fit beside them: the compiler loads them from memory
//! (the key, or its stack) as they are used, loads issuing beside the
//! vector pipes, except the lanes the PMULLs read, which it holds in
//! general registers and moves back (FMOV/DUP, a vector µop each) at
//! their product.
//!
//! # The math
//!
//! `pmull.rs`'s (which is `clmul.rs`'s): over a batch X1..X8,
//!
//! ```text
//! Y' = (Y ⊕ X1)·H^8 ⊕ X2·H^7 ⊕ … ⊕ X8·H,
//! ```
//!
//! eight Karatsuba products (three PMULL each, against the twisted power
//! and its fold h1 ⊕ h0 stored at key setup), summed unreduced, then one
//! two-fold Montgomery reduction with 0xC2… (GCM spec §4.2's aggregation
//! generalized; Gueron & Kounavis for the reflected form and the
//! reduction): 26 PMULL per 128 bytes.
//!
//! # The schedule
//!
//! ```text
//! round r = 0..7   s_i = AESMC(AESE(s_i, rk_r)), i = 0..7    product of X_{r+1}
//! round 8          s_i = AESMC(AESE(s_i, rk_8))              Y' = reduce(sum)
//! rounds 9..       s_i = AESMC(AESE(s_i, rk_r))              (AES-192/256)
//! last             s_i = AESE(s_i, rk_{n−1});  C = P ⊕ s_i ⊕ rk_n
//! ```
//!
//! Products are summed in pairs, `sum ⊕ p_{2k−1} ⊕ p_{2k}`: one EOR3 per
//! part where SHA3 is used, as are the middle's correction raw ⊕ lo ⊕
//! hi, the reduction's two folds and the last round key's addition with
//! the data (the short path, `mid`'s last blocks and the tail keep the
//! two-EOR form: a handful of XORs a message). One basic block per
//! batch, so the compiler's scheduler interleaves the AES chains with the
//! PMULL chain.
//!
//! Decryption hashes the batch it decrypts (its ciphertext is the input);
//! encryption hashes the batch before, whose ciphertext the previous
//! iteration wrote: the first batch is AES alone, and the last is hashed
//! after the loop with the tail. Fewer than eight blocks left go through
//! the strategies (`Armv8::ctr32`, `Pmull::update_blocks`).
//!
//! # Counters
//!
//! The loop keeps the counter block with each 32-bit word byte-swapped
//! (REV32) in a register, so that the count is lane 3 as a native
//! integer: a counter block is one vector add of one in lane 3 (wrapping
//! in the lane: incr32) and one REV32, with no transfer from a general
//! register (`Counters`). Where the counter is public (a 96-bit IV's,
//! `crypt_blocks`' `public`) and the count's low byte does not wrap
//! within the batch, the batch's first block is one REV32 and block i is
//! it plus i in its last byte (one byte add, no carry): a branch on the
//! public count, one a batch. A counter that is not public (J0 =
//! GHASH(IV)) always takes the first form, branch-free. The short path
//! takes `armv8`'s `counter_blocks` (the count inserted into lane 3);
//! `mid`, whose counts are 2 … 255, makes block i as IV ‖ 0 plus its
//! count in the last byte (one byte add, no REV32, no carry).
//!
//! # Whole messages with a 96-bit IV
//!
//! [`Kernel::crypt_whole`] takes every message with a 12-byte IV:
//!
//! - At most seven blocks, and at most eight hashed with the AAD and the
//!   lengths block: Y_0 … Y_c in one AES batch of c + 1 lanes (`L` a
//!   constant per shape), every hashed block times its own power of H,
//!   one reduction, no `State`.
//! - Longer, `mid`: the message's state (GHASH value, counter, last
//!   round key) in registers from the AAD to the tag, no call to
//!   the strategies and no `State`. The AAD in groups of eight blocks,
//!   (Y ⊕ A_1)·H^r ⊕ … ⊕ A_r·H, one reduction a group; the whole batches
//!   through the loop's body (`stitch`: decryption hashes the batch it
//!   reads, encryption the one before, its first batch AES alone); then
//!   the c ≤ 8 blocks left, the last possibly partial, in one AES batch
//!   (`mid_end`, its lane count `L` a constant per shape), stitched with
//!   the hashing of encryption's last batch; the c blocks and the
//!   lengths block, block j times H^(c + 1 − j), the lengths block times
//!   H, in one sum reduced once (H^9 the highest power). E(K, Y_0) is a
//!   ninth lane of decryption's first batch, so that no AES chain of its
//!   own ends the call, and lane 0 of the end batch otherwise
//!   (encryption, whose end hashes its last batch meanwhile, and messages
//!   shorter than a batch). The counter blocks are the loop's
//!   (`Counters::next_public`): byte adds where the count's low byte does
//!   not wrap within the batch, the general adds where it does.
//!
//! # Storage
//!
//! The `armv8` round keys (240 bytes), the `pmull` powers (128 bytes)
//! and the kernel's H … H^9 with their folds (288 bytes), zeroized on
//! drop.
//!
//! # Constant-time
//!
//! AESE, AESMC, PMULL and EOR3 take the same time for every operand
//! (fixed latencies in Arm's optimization guides), round keys and powers
//! are read at indices fixed or set by the lengths, and the only
//! branches are on lengths, the direction, the key's EOR3 flag (a CPU
//! property) and a counter the caller declared public (never on J0 =
//! GHASH(IV)); `mid` has none on its counter. (Round keys may be kept on
//! the stack by the compiler like any value; they are not cleared from
//! there.)
//!
//! # Citations
//!
//! Arm Architecture Reference Manual (ARM DDI 0487): AESE, AESMC, PMULL,
//! PMULL2, EOR3; D. McGrew, J. Viega, *The Galois/Counter Mode of
//! Operation* (§2.3, §4.2); S. Gueron, M. Kounavis, *Intel Carry-Less
//! Multiplication Instruction and its Usage for Computing the GCM Mode*
//! (aggregated reduction, reflected Montgomery reduction); the stitched
//! AES-GCM idea of S. Gueron and V. Krasnov.
//!
//! # Rejected
//!
//! - Inline assembly for the batch: LLVM's AArch64 scheduler keeps the
//!   eight AES chains in flight and AESE/AESMC pairs adjacent for fusion.
//! - Sixteen blocks per reduction: on 128-bit registers the reduction is
//!   2 PMULL of 26; halving it saves little for 256 more bytes of powers.
//! - Schoolbook products: a fourth PMULL per block, where PMULL has one
//!   pipe on Neoverse N1.
//! - A stitched tail for the last fewer than eight blocks: a second AES
//!   loop and a second GHASH loop to review for at most seven blocks.
//! - EOR3 as a twin kernel: one body, a const generic, two compiled copies.
//! - Every product as PMULL2 on stored swapped powers, to keep the powers
//!   vector operands: the compiler re-extracts the lanes either way, and
//!   the pipeline model (llvm-mca) showed more instructions, not fewer.
//! - Volatile loads of the powers in the loop, for the same end: more
//!   loads and spills, no fewer vector instructions.
//! - The table's address made opaque (an empty `asm!`) per batch or per
//!   product, so that the powers are loaded in the loop: LLVM loads the
//!   lane-0 operands as load-and-replicate (a vector µop each) and
//!   spills inside the loop.
//! - PMULL/PMULL2 as one-instruction `asm!` on vector registers with the
//!   powers stored lane-swapped (every product on the loaded REV64,
//!   no lane ever in a general register): the transfers go, but the
//!   register allocator spills inside the loop, more vector-pipe µops.
//! - One loop per key size (the round count a const generic, the batch
//!   one basic block): in the pipeline model faster on Neoverse N1 but
//!   slower on V1/V2 for AES-128, and three copies of the loop.
//! - Round key 0 pre-XORed into the counter prefix: AESE adds the key
//!   itself.
//! - `mid`'s encryption with E(K, Y_0) as a ninth lane of its first
//!   batch too: in the pipeline model slower on N1 and the M1.
//! - `mid`'s end as one sum (encryption's last batch, the blocks left
//!   and the lengths block: H^17 stored, one reduction fewer): not
//!   faster in the pipeline model.
//! - `mid` with every hashed block times its own power and one
//!   reduction (`vaes-avx512`'s `own_powers`): a batch's reduction is 2
//!   PMULL of 26 here, for up to 254 powers of storage.
//! - Two blocks' Karatsuba middles made together (TRN1, TRN2 and one EOR
//!   for both folds, as aws-lc does): the compiler added EXTs elsewhere
//!   and the pipeline model showed a slower loop (`docs/ARM.md`).

use core::arch::aarch64::{
    uint8x16_t, uint32x4_t, vaddq_u8, vaddq_u32, vdupq_n_u8, vdupq_n_u32, veorq_u8, vld1q_u8,
    vreinterpretq_u8_u32, vreinterpretq_u32_u8, vrev32q_u8, vsetq_lane_u32, vshlq_n_u32, vst1q_u8,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::armv8::{self, Armv8};
use crate::aes::{Block, BlockCipher, KeySchedule};
use crate::gcm::kernel::{Direction, FusedKernel, Kernel, Text, finish_two_pass, in_output};
use crate::ghash::GhashKey;
use crate::ghash::pmull::{self, Pmull, Sum};

/// Bytes per iteration: eight blocks.
const BATCH: usize = 8 * 16;

/// The powers of H the kernel stores: H … H^9, for `mid`'s last group
/// (up to eight blocks and the lengths block).
const POWERS: usize = 9;

/// AES and PMULL in one pass. Holding one proves the CPU has FEAT_AES and
/// FEAT_PMULL (each key is its own capability token), and, where `eor3`
/// is set, FEAT_SHA3.
pub(crate) struct AesPmull {
    aes: Armv8,
    ghash: Pmull,
    /// The powers and their folds: as secret as H.
    tables: Tables,
    /// Whether the loop runs its EOR3 form: set only where FEAT_SHA3 was
    /// detected.
    eor3: bool,
}

/// `powers[k]` = the twisted H^(k+1) and `folds[k]` its h1 ⊕ h0 (in both
/// lanes), each as the little-endian bytes of the integer (register
/// order). Zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
#[repr(C, align(16))]
struct Tables {
    powers: [[u8; 16]; POWERS],
    folds: [[u8; 16]; POWERS],
}

impl Tables {
    fn new(ghash: &Pmull) -> Tables {
        let mut all = ghash.powers_to::<POWERS>();
        let mut t = Tables {
            powers: [[0; 16]; POWERS],
            folds: [[0; 16]; POWERS],
        };
        for (k, &p) in all.iter().enumerate() {
            t.powers[k] = p.to_le_bytes();
            let f = (p ^ (p >> 64)) as u64 as u128;
            t.folds[k] = (f | f << 64).to_le_bytes();
        }
        all.zeroize();
        t
    }
}

impl AesPmull {
    /// [`Kernel::crypt_whole`] (out of place, an output as long as the
    /// input): the short path up to seven blocks, `mid`
    /// beyond. The one-message calls reach it without a kernel op.
    #[inline(always)]
    pub(crate) fn whole_text(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        text: Text<'_>,
        direction: Direction,
    ) -> Block {
        let (src, dst, n) = text.io();
        // SAFETY: the CPU has AES and PMULL (`self.aes` exists); `src` is
        // readable and `dst` writable (initialized or not) for `n` bytes,
        // the same buffer in place and otherwise a shared and a mutable
        // borrow, which do not overlap; `short` takes the shapes
        // `takes_short` accepts.
        unsafe {
            if takes_short(aad, n) {
                self.short(iv, aad, (src, dst, n), direction)
            } else {
                self.mid(iv, aad, (src, dst, n), direction)
            }
        }
    }

    /// The kernel for `keys` with the EOR3 form of its loop or without;
    /// `None` where the CPU lacks AES/PMULL, or SHA3 when `eor3` asks
    /// for it.
    pub(crate) fn with_eor3(keys: &KeySchedule, eor3: bool) -> Option<AesPmull> {
        if eor3 && !std::arch::is_aarch64_feature_detected!("sha3") {
            return None;
        }
        let aes = Armv8::new(keys)?;
        let mut h = [[0u8; 16]];
        aes.encrypt_blocks(&mut h);
        let ghash = Pmull::new(&h[0]);
        h.zeroize();
        let ghash = ghash?;
        let tables = Tables::new(&ghash);
        Some(AesPmull {
            aes,
            ghash,
            tables,
            eor3,
        })
    }

    /// Whether this key's loop uses EOR3.
    #[cfg(test)]
    pub(crate) fn uses_eor3(&self) -> bool {
        self.eor3
    }

    /// The twisted H^(k+1) in a register.
    #[inline]
    #[target_feature(enable = "aes")]
    fn power(&self, k: usize) -> uint8x16_t {
        // SAFETY: an entry is 16 readable bytes.
        unsafe { vld1q_u8(self.tables.powers[k].as_ptr()) }
    }

    /// The fold of H^(k+1) in a register.
    #[inline]
    #[target_feature(enable = "aes")]
    fn fold(&self, k: usize) -> uint8x16_t {
        // SAFETY: an entry is 16 readable bytes.
        unsafe { vld1q_u8(self.tables.folds[k].as_ptr()) }
    }

    /// X · H^(k+1) in Karatsuba's form.
    #[inline]
    #[target_feature(enable = "aes")]
    fn times(&self, x: uint8x16_t, k: usize) -> Sum {
        pmull::product(x, self.power(k), self.fold(k))
    }
}

impl Kernel for AesPmull {
    type Aes = Armv8;
    type Ghash = Pmull;

    fn aes(&self) -> &Armv8 {
        &self.aes
    }

    fn ghash(&self) -> &Pmull {
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
        // SAFETY: `self.aes` exists, so the CPU has AES and PMULL;
        // `text.io()` gives where the blocks are read and written: the
        // same bytes in place, or the input, readable, and the output,
        // writable (every byte is written, and only what was written is
        // read back), not overlapping.
        unsafe { self.crypt(counter, y, text.io(), direction, public) }
    }

    fn crypt_whole(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        text: Text<'_>,
        direction: Direction,
    ) -> Option<Block> {
        Some(self.whole_text(iv, aad, text, direction))
    }
}

impl FusedKernel for AesPmull {
    const NAME: &'static str = "aes-pmull";

    fn is_available() -> bool {
        Armv8::is_available() && Pmull::is_available()
    }

    fn new(keys: &KeySchedule) -> Option<Self> {
        AesPmull::with_eor3(keys, std::arch::is_aarch64_feature_detected!("sha3"))
    }
}

/// Whether a message goes the short path: at most seven blocks, and at
/// most eight hashed with the associated data and the lengths block.
fn takes_short(aad: &[u8], n: usize) -> bool {
    let blocks = n.div_ceil(16);
    blocks <= 7 && aad.len().div_ceil(16) + blocks < 8
}

/// len(A) ‖ len(C) in bits as the reflected integer: len(A) is the high
/// qword.
#[inline]
#[target_feature(enable = "aes")]
fn lengths_block(aad_len: usize, total: usize) -> uint8x16_t {
    pmull::to_vec(u128::from((aad_len as u64) << 3) << 64 | u128::from((total as u64) << 3))
}

/// The full tag from the GHASH value (reflected) and E(K, Y_0).
#[inline]
#[target_feature(enable = "aes")]
fn tag(acc: uint8x16_t, tag_mask: uint8x16_t) -> Block {
    let mut tag = [0u8; 16];
    // SAFETY: `tag` is 16 writable bytes.
    unsafe { vst1q_u8(tag.as_mut_ptr(), veorq_u8(pmull::reflect(acc), tag_mask)) };
    tag
}

/// `dst = src ⊕ keystream`, eight blocks.
///
/// # Safety
///
/// `src` must be 128 readable bytes and `dst` 128 writable ones, the same
/// or not overlapping.
#[inline(always)]
unsafe fn xor_batch(src: *const u8, dst: *mut u8, keystream: &[uint8x16_t; 8]) {
    for (j, k) in keystream.iter().enumerate() {
        // SAFETY: block j of the 128 bytes (the contract); NEON is
        // aarch64's baseline.
        unsafe { vst1q_u8(dst.add(16 * j), veorq_u8(vld1q_u8(src.add(16 * j)), *k)) };
    }
}

/// `dst = src ⊕ s ⊕ last_key`, eight blocks: the last AddRoundKey and
/// the keystream's XOR in one three-way XOR a block.
///
/// # Safety
///
/// As for [`xor_batch`], and the CPU must support SHA3 if `EOR3`.
#[inline(always)]
unsafe fn xor_last<const EOR3: bool>(
    src: *const u8,
    dst: *mut u8,
    s: &[uint8x16_t; 8],
    last_key: uint8x16_t,
) {
    for (j, x) in s.iter().enumerate() {
        // SAFETY: block j of the 128 bytes (the contract); the features
        // are the caller's.
        unsafe {
            let data = vld1q_u8(src.add(16 * j));
            vst1q_u8(dst.add(16 * j), pmull::xor3::<EOR3>(data, *x, last_key));
        }
    }
}

/// The loop's counter blocks, made in vector registers: the counter
/// block with each 32-bit word byte-swapped (REV32), so that its count
/// is lane 3 as a native integer; block i is REV32 of that plus i in lane
/// 3. The add wraps inside the lane, which is incr32; two vector
/// instructions a block and no transfer from a general register.
struct Counters {
    words: uint32x4_t,
    one: uint32x4_t,
    /// The count (lane 3 of `words`) in a general register, public only
    /// where the caller says so.
    count: u32,
}

impl Counters {
    /// From the counter block `counter` (its count next).
    ///
    /// # Safety
    ///
    /// None beyond NEON, aarch64's baseline.
    #[inline(always)]
    unsafe fn new(counter: &Block) -> Counters {
        // SAFETY: `counter` is 16 readable bytes; NEON is the baseline.
        unsafe {
            Counters {
                words: vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(counter.as_ptr()))),
                one: vsetq_lane_u32::<3>(1, vdupq_n_u32(0)),
                count: u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]),
            }
        }
    }

    /// The next eight counter blocks.
    ///
    /// # Safety
    ///
    /// None beyond NEON, aarch64's baseline.
    #[inline(always)]
    unsafe fn next(&mut self) -> [uint8x16_t; 8] {
        // SAFETY: NEON is aarch64's baseline.
        unsafe {
            let mut s = [vdupq_n_u8(0); 8];
            for x in &mut s {
                *x = vrev32q_u8(vreinterpretq_u8_u32(self.words));
                self.words = vaddq_u32(self.words, self.one);
            }
            self.count = self.count.wrapping_add(8);
            s
        }
    }

    /// The next eight counter blocks as [`next`](Self::next) makes them,
    /// or, where the counter is `public` and the count's low byte does not
    /// wrap within the eight, as the first block plus 1 … 7 in its last
    /// byte: one REV32 and one byte add a block, no carry to propagate.
    /// The branch is on the count only where it is public.
    ///
    /// # Safety
    ///
    /// None beyond NEON, aarch64's baseline.
    #[inline(always)]
    unsafe fn next_public(&mut self, public: bool) -> [uint8x16_t; 8] {
        if !(public && self.count & 0xff <= 0xf8) {
            // SAFETY: NEON is aarch64's baseline.
            return unsafe { self.next() };
        }
        // SAFETY: NEON is aarch64's baseline; `STEPS` rows are 16
        // readable bytes.
        unsafe {
            let first = vrev32q_u8(vreinterpretq_u8_u32(self.words));
            self.words = vaddq_u32(self.words, vshlq_n_u32::<3>(self.one));
            self.count = self.count.wrapping_add(8);
            let mut s = [first; 8];
            for (i, x) in s.iter_mut().enumerate().skip(1) {
                *x = vaddq_u8(first, vld1q_u8(STEPS[i].as_ptr()));
            }
            s
        }
    }
}

/// What [`AesPmull::mid_end`] takes besides the GHASH value: the
/// blocks left (source, destination, bytes), the counter block Y_0 and
/// E(K, Y_0) where it is made already, the next eight counter blocks,
/// the last round key, the lengths block, the direction.
#[derive(Clone, Copy)]
struct End {
    io: (*const u8, *mut u8, usize),
    y0: uint8x16_t,
    tag_mask: uint8x16_t,
    counters: [uint8x16_t; 8],
    last_key: uint8x16_t,
    lengths: uint8x16_t,
    encrypt: bool,
}

/// An empty sum of products.
#[inline]
#[target_feature(enable = "aes")]
fn zero_sum() -> Sum {
    let z = vdupq_n_u8(0);
    Sum {
        lo: z,
        mid: z,
        hi: z,
    }
}

/// AES of `s` in place, all but the last round key (which the caller
/// adds with the data). Always inlined, so that an AES batch is not a
/// call of its own.
///
/// # Safety
///
/// The CPU must support AES.
#[inline(always)]
unsafe fn rounds_but_last_key<const L: usize>(aes: &Armv8, s: &mut [uint8x16_t; L]) {
    // SAFETY: the caller's contract.
    unsafe {
        for r in 0..9 {
            Armv8::round(s, aes.key(r));
        }
        if aes.rounds() > 10 {
            Armv8::round(s, aes.key(9));
            Armv8::round(s, aes.key(10));
        }
        if aes.rounds() > 12 {
            Armv8::round(s, aes.key(11));
            Armv8::round(s, aes.key(12));
        }
        aes.last_without_key(s);
    }
}

/// Row i: i in the last byte, the step from a counter block to the one i
/// after it when the count's low byte does not wrap.
static STEPS: [[u8; 16]; 8] = {
    let mut t = [[0u8; 16]; 8];
    let mut i = 0;
    while i < 8 {
        t[i][15] = i as u8;
        i += 1;
    }
    t
};

/// IV ‖ `count` (big-endian).
fn counter_bytes(iv: &[u8; 12], count: u32) -> Block {
    let mut block = [0u8; 16];
    block[..12].copy_from_slice(iv);
    block[12..].copy_from_slice(&count.to_be_bytes());
    block
}

/// IV ‖ `count` (big-endian) in a register.
#[inline]
#[target_feature(enable = "aes")]
fn counter_block(iv: &[u8; 12], count: u32) -> uint8x16_t {
    // SAFETY: the block is 16 readable bytes.
    unsafe { vld1q_u8(counter_bytes(iv, count).as_ptr()) }
}

impl AesPmull {
    /// The one-pass loop; the contract of [`Kernel::crypt_blocks`], from
    /// `src` to `dst`, `n` bytes (whole blocks), every byte of `dst`
    /// written.
    ///
    /// # Safety
    ///
    /// The CPU must support AES and PMULL; `src` must be readable and
    /// `dst` writable for `n` bytes, the same buffer or two that do not
    /// overlap.
    #[target_feature(enable = "aes")]
    unsafe fn crypt(
        &self,
        counter: &mut Block,
        y: &mut Block,
        (src, dst, n): (*const u8, *mut u8, usize),
        direction: Direction,
        public: bool,
    ) {
        let ctr = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
        let batches = n / BATCH;
        if batches > 0 {
            let acc = pmull::load(y);
            let io = (src, dst, batches);
            // SAFETY: `src` and `dst` are good for `batches` whole batches
            // (the caller's contract); `eor3` is set only where SHA3 was
            // detected.
            let acc = unsafe {
                if self.eor3 {
                    self.batches_eor3(counter, acc, io, direction, public)
                } else {
                    self.batches_plain(counter, acc, io, direction, public)
                }
            };
            let mut out = [0u8; 16];
            // SAFETY: `out` is 16 writable bytes.
            unsafe { vst1q_u8(out.as_mut_ptr(), pmull::reflect(acc)) };
            *y = out;
            let ctr = ctr.wrapping_add(8 * batches as u32);
            counter[12..].copy_from_slice(&ctr.to_be_bytes());
        }
        let bulk = batches * BATCH;
        // SAFETY: the caller's contract; the loop wrote the first `bulk`
        // bytes of `dst`, and `in_output` the rest.
        let data = unsafe {
            in_output(src.wrapping_add(bulk), dst.wrapping_add(bulk), n - bulk);
            core::slice::from_raw_parts_mut(dst, n)
        };
        finish_two_pass(self, counter, y, data, (batches, BATCH), direction);
    }

    /// [`batches`](Self::batches) without EOR3.
    ///
    /// # Safety
    ///
    /// As for [`batches`](Self::batches).
    #[target_feature(enable = "aes")]
    unsafe fn batches_plain(
        &self,
        counter: &Block,
        acc: uint8x16_t,
        io: (*const u8, *mut u8, usize),
        direction: Direction,
        public: bool,
    ) -> uint8x16_t {
        // SAFETY: passed on; no EOR3.
        unsafe { self.batches::<false>(counter, acc, io, direction, public) }
    }

    /// [`batches`](Self::batches) with EOR3.
    ///
    /// # Safety
    ///
    /// As for [`batches`](Self::batches), and the CPU must support SHA3.
    #[target_feature(enable = "aes,sha3")]
    unsafe fn batches_eor3(
        &self,
        counter: &Block,
        acc: uint8x16_t,
        io: (*const u8, *mut u8, usize),
        direction: Direction,
        public: bool,
    ) -> uint8x16_t {
        // SAFETY: passed on; SHA3 is enabled here and present.
        unsafe { self.batches::<true>(counter, acc, io, direction, public) }
    }

    /// The loop over `batches` whole batches from the counter block
    /// `counter`, reading `src` and writing `dst` (the
    /// same pointer in place), folding the ciphertext into `acc`; returns
    /// the GHASH value. Decryption hashes every batch it reads;
    /// encryption every batch it wrote but the last, whose ciphertext the
    /// caller hashes. Inlined into the two callers above, each compiled
    /// with its features.
    ///
    /// # Safety
    ///
    /// The CPU must support AES and PMULL, and SHA3 if `EOR3`; `src` must
    /// be `batches * BATCH` readable bytes and `dst` as many writable
    /// ones, either the same or not overlapping.
    #[inline(always)]
    unsafe fn batches<const EOR3: bool>(
        &self,
        counter: &Block,
        acc: uint8x16_t,
        (src, dst, batches): (*const u8, *mut u8, usize),
        direction: Direction,
        public: bool,
    ) -> uint8x16_t {
        let mut acc = acc;
        // SAFETY: the features are the caller's (the contract); every
        // pointer below is batch i, or batch i − 1 of the output, inside
        // the buffers.
        unsafe {
            let mut counters = Counters::new(counter);
            // An encryption's first batch has no ciphertext before it to
            // hash: AES alone, outside the loop, which then has one body.
            let first = usize::from(direction == Direction::Encrypt).min(batches);
            if first == 1 {
                let mut s = counters.next();
                self.aes.encrypt(&mut s);
                xor_batch(src, dst, &s);
            }
            // Decryption hashes the batch it reads, encryption the one
            // it wrote before.
            let behind = if direction == Direction::Encrypt {
                BATCH
            } else {
                0
            };
            for i in first..batches {
                let (input, output) = (src.add(i * BATCH), dst.add(i * BATCH));
                let hashed = match direction {
                    Direction::Decrypt => input,
                    Direction::Encrypt => output.cast_const(),
                }
                .sub(behind);
                let mut s = counters.next_public(public);
                acc = self.stitch::<EOR3, 8>(&mut s, hashed, acc);
                let last_key = self.aes.key(self.aes.rounds());
                xor_last::<EOR3>(input, output, &s, last_key);
            }
        }
        acc
    }

    /// Runs the `L` counter blocks `s` through AES in place, all but
    /// the last round key (which the caller adds with the data), while
    /// folding the eight ciphertext blocks at `x` into the GHASH value
    /// `acc`, one product per round (the module header's schedule);
    /// returns the new GHASH value.
    ///
    /// # Safety
    ///
    /// The CPU must support AES and PMULL, and SHA3 if `EOR3`; `x` must
    /// be 128 readable bytes.
    #[inline(always)]
    unsafe fn stitch<const EOR3: bool, const L: usize>(
        &self,
        s: &mut [uint8x16_t; L],
        x: *const u8,
        acc: uint8x16_t,
    ) -> uint8x16_t {
        // SAFETY: the caller's contract covers the features and `x`.
        unsafe {
            let mut xs = [vdupq_n_u8(0); 8];
            for (j, b) in xs.iter_mut().enumerate() {
                *b = pmull::reflect(vld1q_u8(x.add(16 * j)));
            }
            let aes = &self.aes;
            // Block j is multiplied by H^(8 − j), entry 7 − j.
            Armv8::round(s, aes.key(0));
            let mut sum = self.times(veorq_u8(xs[0], acc), 7);
            Armv8::round(s, aes.key(1));
            let p1 = self.times(xs[1], 6);
            Armv8::round(s, aes.key(2));
            let p2 = self.times(xs[2], 5);
            sum = sum.add2::<EOR3>(p1, p2);
            Armv8::round(s, aes.key(3));
            let p3 = self.times(xs[3], 4);
            Armv8::round(s, aes.key(4));
            let p4 = self.times(xs[4], 3);
            sum = sum.add2::<EOR3>(p3, p4);
            Armv8::round(s, aes.key(5));
            let p5 = self.times(xs[5], 2);
            Armv8::round(s, aes.key(6));
            let p6 = self.times(xs[6], 1);
            sum = sum.add2::<EOR3>(p5, p6);
            Armv8::round(s, aes.key(7));
            sum = sum.add(self.times(xs[7], 0));
            Armv8::round(s, aes.key(8));
            let acc = pmull::reduce::<EOR3>(sum);
            let rounds = aes.rounds();
            if rounds > 10 {
                Armv8::round(s, aes.key(9));
                Armv8::round(s, aes.key(10));
            }
            if rounds > 12 {
                Armv8::round(s, aes.key(11));
                Armv8::round(s, aes.key(12));
            }
            aes.last_without_key(s);
            acc
        }
    }

    /// A whole message of at most seven blocks with a 96-bit IV, a + c + 1
    /// ≤ 8 hashed blocks: the body for its lane count.
    ///
    /// # Safety
    ///
    /// The CPU must support AES and PMULL; the message's shape is
    /// [`takes_short`]'s; `src` readable and `dst` writable (initialized
    /// or not) for `n` bytes, the same address or not overlapping.
    #[target_feature(enable = "aes")]
    unsafe fn short(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        io: (*const u8, *mut u8, usize),
        direction: Direction,
    ) -> Block {
        let e = direction == Direction::Encrypt;
        // SAFETY: as for `short`; L = c + 1 in every arm.
        unsafe {
            match io.2.div_ceil(16) {
                0 => self.short_lanes::<1>(iv, aad, io, e),
                1 => self.short_lanes::<2>(iv, aad, io, e),
                2 => self.short_lanes::<3>(iv, aad, io, e),
                3 => self.short_lanes::<4>(iv, aad, io, e),
                4 => self.short_lanes::<5>(iv, aad, io, e),
                5 => self.short_lanes::<6>(iv, aad, io, e),
                6 => self.short_lanes::<7>(iv, aad, io, e),
                _ => self.short_lanes::<8>(iv, aad, io, e),
            }
        }
    }

    /// [`short`](Self::short) for c = `L` − 1 blocks: AES over Y_0 … Y_c
    /// in one batch, then with m = a + c + 1 hashed blocks, block i times
    /// H^(m − i): the AAD's, the message's (block j by H^(c + 1 − j)) and
    /// the lengths block by H, one reduction.
    ///
    /// # Safety
    ///
    /// As for [`short`](Self::short), and the message has c blocks.
    #[inline]
    #[target_feature(enable = "aes")]
    unsafe fn short_lanes<const L: usize>(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        (src, dst, n): (*const u8, *mut u8, usize),
        encrypt: bool,
    ) -> Block {
        let c = L - 1;
        let a = aad.len().div_ceil(16);
        debug_assert!(n.div_ceil(16) == c && a + c < 8);
        let mut s = armv8::counter_blocks::<L>(counter_block(iv, 1), 1);
        self.aes.encrypt(&mut s);

        let mut sum = Sum {
            lo: vdupq_n_u8(0),
            mid: vdupq_n_u8(0),
            hi: vdupq_n_u8(0),
        };
        for (i, chunk) in aad.chunks(16).enumerate() {
            let x = pmull::reflect(armv8::load_padded(chunk));
            sum = sum.add(self.times(x, a + c - i));
        }
        for j in 0..c {
            let at = 16 * j;
            let len = (n - at).min(16);
            // SAFETY: block j (the last one possibly partial) lies in the
            // message (the contract).
            let (input, output) =
                unsafe { armv8::xor_block_into(src.add(at), dst.add(at), len, s[j + 1]) };
            let x = if encrypt { output } else { input };
            sum = sum.add(self.times(pmull::reflect(x), c - j));
        }
        sum = sum.add(self.times(lengths_block(aad.len(), n), 0));
        // SAFETY: no EOR3; PMULL is enabled here.
        let acc = unsafe { pmull::reduce::<false>(sum) };
        tag(acc, s[0])
    }

    /// A whole message with a 96-bit IV past the short path's shape, its
    /// state in registers from the AAD to the tag: [`mid`](Self::mid)
    /// with the loop's form for this key.
    ///
    /// # Safety
    ///
    /// The CPU must support AES and PMULL; `n` at most GCM's longest
    /// message (the 32-bit count does not wrap); `src`
    /// readable and `dst` writable (initialized or not) for `n` bytes, the
    /// same address or not overlapping.
    #[target_feature(enable = "aes")]
    unsafe fn mid(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        io: (*const u8, *mut u8, usize),
        direction: Direction,
    ) -> Block {
        let encrypt = direction == Direction::Encrypt;
        // SAFETY: passed on; `eor3` is set only where SHA3 was detected.
        unsafe {
            if self.eor3 {
                self.mid_eor3(iv, aad, io, encrypt)
            } else {
                self.mid_plain(iv, aad, io, encrypt)
            }
        }
    }

    /// [`mid_body`](Self::mid_body) without EOR3.
    ///
    /// # Safety
    ///
    /// As for [`mid`](Self::mid).
    #[target_feature(enable = "aes")]
    unsafe fn mid_plain(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        io: (*const u8, *mut u8, usize),
        encrypt: bool,
    ) -> Block {
        // SAFETY: passed on; no EOR3.
        unsafe { self.mid_body::<false>(iv, aad, io, encrypt) }
    }

    /// [`mid_body`](Self::mid_body) with EOR3.
    ///
    /// # Safety
    ///
    /// As for [`mid`](Self::mid), and the CPU must support SHA3.
    #[target_feature(enable = "aes,sha3")]
    unsafe fn mid_eor3(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        io: (*const u8, *mut u8, usize),
        encrypt: bool,
    ) -> Block {
        // SAFETY: passed on; SHA3 is enabled here and present.
        unsafe { self.mid_body::<true>(iv, aad, io, encrypt) }
    }

    /// The AAD hashed in groups of eight blocks; the whole batches
    /// through the loop's body (`stitch`), counters 2, 3, … made as the
    /// loop makes them ([`Counters::next_public`]), E(K, Y_0) a ninth lane of
    /// decryption's first batch; then the last fewer than nine blocks
    /// (and E(K, Y_0) where not made yet) in one AES batch of their own
    /// ([`mid_end`](Self::mid_end)). Inlined into the two callers above.
    ///
    /// # Safety
    ///
    /// As for [`mid`](Self::mid), and the CPU must support SHA3 if `EOR3`.
    #[inline(always)]
    unsafe fn mid_body<const EOR3: bool>(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        (src, dst, n): (*const u8, *mut u8, usize),
        encrypt: bool,
    ) -> Block {
        // SAFETY: the features are the caller's; every pointer below is
        // batch i (or i − 1 of the output) or the blocks after the last
        // batch, inside the buffers (the contract).
        unsafe {
            let mut acc = vdupq_n_u8(0);
            for group in aad.chunks(BATCH) {
                acc = self.hash_group::<EOR3>(acc, group);
            }
            // A 96-bit IV's counter is public: a batch whose count's
            // low byte does not wrap is made by byte adds.
            let mut counters = Counters::new(&counter_bytes(iv, 2));
            let last_key = self.aes.key(self.aes.rounds());
            let batches = n / BATCH;
            let first = usize::from(batches > 0);
            let y0 = counter_block(iv, 1);
            // E(K, Y_0): decryption's ninth lane of its first batch, whose
            // end batch is then its blocks alone; encryption's lane 0 of
            // the end batch.
            // (Read by the end only where made here.)
            let mut tag_mask = vdupq_n_u8(0);
            if first == 1 && encrypt {
                // No ciphertext before it to hash: AES alone.
                let mut s = counters.next_public(true);
                rounds_but_last_key(&self.aes, &mut s);
                xor_last::<EOR3>(src, dst, &s, last_key);
            } else if first == 1 {
                let c = counters.next_public(true);
                let mut s: [uint8x16_t; 9] =
                    core::array::from_fn(|j| if j < 8 { c[j] } else { y0 });
                acc = self.stitch::<EOR3, 9>(&mut s, src, acc);
                tag_mask = veorq_u8(s[8], last_key);
                let keystream: [uint8x16_t; 8] = core::array::from_fn(|j| s[j]);
                xor_last::<EOR3>(src, dst, &keystream, last_key);
            }
            for i in first..batches {
                let (input, output) = (src.add(i * BATCH), dst.add(i * BATCH));
                let hashed = if encrypt {
                    output.sub(BATCH).cast_const()
                } else {
                    input
                };
                let mut s = counters.next_public(true);
                acc = self.stitch::<EOR3, 8>(&mut s, hashed, acc);
                xor_last::<EOR3>(input, output, &s, last_key);
            }
            // Encryption's last batch is hashed with the end.
            let done = batches * BATCH;
            let pending = (encrypt && batches > 0).then(|| dst.add(done - BATCH).cast_const());
            let end = End {
                io: (src.add(done), dst.add(done), n - done),
                y0,
                tag_mask,
                counters: counters.next_public(true),
                last_key,
                lengths: lengths_block(aad.len(), n),
                encrypt,
            };
            // The end batch's lanes: Y_0 (unless decryption's first
            // batch took it) and the c blocks left.
            let y0_done = !encrypt && first == 1;
            match ((n - done).div_ceil(16), y0_done) {
                (0, false) => self.mid_end::<EOR3, 1, 1>(acc, pending, end),
                (1, false) => self.mid_end::<EOR3, 2, 1>(acc, pending, end),
                (2, false) => self.mid_end::<EOR3, 3, 1>(acc, pending, end),
                (3, false) => self.mid_end::<EOR3, 4, 1>(acc, pending, end),
                (4, false) => self.mid_end::<EOR3, 5, 1>(acc, pending, end),
                (5, false) => self.mid_end::<EOR3, 6, 1>(acc, pending, end),
                (6, false) => self.mid_end::<EOR3, 7, 1>(acc, pending, end),
                (7, false) => self.mid_end::<EOR3, 8, 1>(acc, pending, end),
                (_, false) => self.mid_end::<EOR3, 9, 1>(acc, pending, end),
                (0, true) => self.mid_end::<EOR3, 0, 0>(acc, pending, end),
                (1, true) => self.mid_end::<EOR3, 1, 0>(acc, pending, end),
                (2, true) => self.mid_end::<EOR3, 2, 0>(acc, pending, end),
                (3, true) => self.mid_end::<EOR3, 3, 0>(acc, pending, end),
                (4, true) => self.mid_end::<EOR3, 4, 0>(acc, pending, end),
                (5, true) => self.mid_end::<EOR3, 5, 0>(acc, pending, end),
                (6, true) => self.mid_end::<EOR3, 6, 0>(acc, pending, end),
                (7, true) => self.mid_end::<EOR3, 7, 0>(acc, pending, end),
                (_, true) => self.mid_end::<EOR3, 8, 0>(acc, pending, end),
            }
        }
    }

    /// GHASH of up to eight blocks (`group`, the last one zero-padded)
    /// after `acc`: (acc ⊕ X_1)·H^r ⊕ … ⊕ X_r·H, one reduction.
    ///
    /// # Safety
    ///
    /// The CPU must support AES and PMULL, and SHA3 if `EOR3`.
    #[inline(always)]
    unsafe fn hash_group<const EOR3: bool>(&self, acc: uint8x16_t, group: &[u8]) -> uint8x16_t {
        let r = group.len().div_ceil(16);
        debug_assert!((1..=8).contains(&r));
        // SAFETY: the caller's features.
        unsafe {
            let mut sum = zero_sum();
            for (i, block) in group.chunks(16).enumerate() {
                let mut x = pmull::reflect(armv8::load_padded(block));
                if i == 0 {
                    x = veorq_u8(x, acc);
                }
                sum = sum.add(self.times(x, r - 1 - i));
            }
            pmull::reduce::<EOR3>(sum)
        }
    }

    /// The end of [`mid_body`](Self::mid_body), c = `L` − `Y` ≤ 8
    /// blocks left (the last possibly partial): their counter blocks, and
    /// Y_0 first where `Y` is 1 (else `end.tag_mask` is E(K, Y_0)), in
    /// one AES batch of `L` lanes, stitched with the hashing of the
    /// pending batch (encryption's last, at `pending`) where there is
    /// one; then the c blocks and the lengths block, block j times
    /// H^(c + 1 − j) and the lengths block times H, one reduction; the
    /// tag.
    ///
    /// # Safety
    ///
    /// The CPU must support AES and PMULL, and SHA3 if `EOR3`; `end.io`
    /// is c blocks' bytes as in [`mid`](Self::mid); `pending`, where
    /// given, 128 readable bytes.
    #[inline(always)]
    unsafe fn mid_end<const EOR3: bool, const L: usize, const Y: usize>(
        &self,
        acc: uint8x16_t,
        pending: Option<*const u8>,
        end: End,
    ) -> Block {
        let c = L - Y;
        let (src, dst, len) = end.io;
        debug_assert!(len.div_ceil(16) == c);
        // SAFETY: the caller's features and buffers.
        unsafe {
            let mut s: [uint8x16_t; L] =
                core::array::from_fn(|j| if j < Y { end.y0 } else { end.counters[j - Y] });
            let acc = match pending {
                Some(x) => self.stitch::<EOR3, L>(&mut s, x, acc),
                None => {
                    rounds_but_last_key(&self.aes, &mut s);
                    acc
                }
            };
            let mut sum = zero_sum();
            for j in 0..c {
                let at = 16 * j;
                let keystream = veorq_u8(s[j + Y], end.last_key);
                let (input, output) =
                    armv8::xor_block_into(src.add(at), dst.add(at), (len - at).min(16), keystream);
                let mut x = pmull::reflect(if end.encrypt { output } else { input });
                if j == 0 {
                    x = veorq_u8(x, acc);
                }
                sum = sum.add(self.times(x, c - j));
            }
            let lengths = if c == 0 {
                veorq_u8(end.lengths, acc)
            } else {
                end.lengths
            };
            sum = sum.add(self.times(lengths, 0));
            let tag_mask = if Y == 1 {
                veorq_u8(s[0], end.last_key)
            } else {
                end.tag_mask
            };
            tag(pmull::reduce::<EOR3>(sum), tag_mask)
        }
    }
}

#[cfg(test)]
mod tests {
    use core::mem::MaybeUninit;

    use super::AesPmull;
    use crate::aes::fixslice::Fixslice;
    use crate::aes::{Block, BlockCipher, KeySchedule};
    use crate::gcm::kernel::tests::{
        blocks_in_place, blocks_into, reference_pair, whole_messages_match,
    };
    use crate::gcm::kernel::{Direction, FusedKernel, Kernel, Pair, Text};
    use crate::gcm::state::State;
    use crate::ghash::GhashKey;
    use crate::ghash::karatsuba::Karatsuba;

    /// A small deterministic generator (xorshift64*), for test data only.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }
    }

    /// Both forms of the kernel for `keys`: without EOR3 and with it,
    /// each built whatever `new` would choose; a form this CPU cannot run
    /// is reported SKIP and left out.
    fn both_forms(keys: &KeySchedule) -> Vec<(AesPmull, &'static str)> {
        let mut forms = Vec::new();
        for (eor3, what) in [(false, "aes-pmull"), (true, "aes-pmull eor3")] {
            match AesPmull::with_eor3(keys, eor3) {
                Some(k) => {
                    assert_eq!(k.uses_eor3(), eor3);
                    forms.push((k, what));
                }
                None => eprintln!("SKIP {what}: not available on this CPU"),
            }
        }
        forms
    }

    /// The kernel is available exactly where the CPU has AES (with
    /// PMULL), and `new` takes the EOR3 form exactly where it has SHA3.
    #[test]
    fn availability_follows_the_cpu() {
        let aes = std::arch::is_aarch64_feature_detected!("aes");
        assert_eq!(AesPmull::is_available(), aes);
        let keys = KeySchedule::new(&[7; 16]).unwrap();
        match AesPmull::new(&keys) {
            Some(k) => assert_eq!(
                k.uses_eor3(),
                std::arch::is_aarch64_feature_detected!("sha3")
            ),
            None => {
                assert!(!aes);
                eprintln!("SKIP aes-pmull: not available on this CPU");
            }
        }
    }

    /// `crypt_blocks`, in place and out of place into misaligned
    /// uninitialized memory, against the (table, bitserial) pair: every
    /// block count to 40 and some past it, counts near the low byte's and
    /// the 32-bit wrap, the counter public or not, both directions, both
    /// forms, three key sizes.
    #[test]
    fn blocks_agree_with_the_reference_pair() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for key_len in [16, 24, 32] {
            let ks = KeySchedule::new(&rng.bytes(key_len)).unwrap();
            let (table, bitserial) = reference_pair(&ks);
            let pair = Pair {
                aes: &table,
                ghash: &bitserial,
            };
            for (fused, what) in both_forms(&ks) {
                let counts = (0..=40usize).chain([63, 64, 65, 127, 129, 257]);
                for blocks in counts {
                    let lows = [
                        1u32,
                        0xf1,
                        0xf8,
                        0xf9,
                        0x1fe,
                        0xffff_fff0,
                        0xffff_fffd,
                        0xffff_ffff,
                    ];
                    for (low, public) in lows.into_iter().flat_map(|l| [(l, false), (l, true)]) {
                        for direction in [Direction::Encrypt, Direction::Decrypt] {
                            let data = rng.bytes(blocks * 16);
                            let mut counter: Block = rng.bytes(16).try_into().unwrap();
                            counter[12..].copy_from_slice(&low.to_be_bytes());
                            let y: Block = rng.bytes(16).try_into().unwrap();
                            let (d1, c1, y1) = blocks_in_place(
                                &fused,
                                (counter, y),
                                data.clone(),
                                direction,
                                public,
                            );
                            let (d2, c2, y2) = blocks_in_place(
                                &pair,
                                (counter, y),
                                data.clone(),
                                direction,
                                false,
                            );
                            let id = format!(
                                "{what} AES-{} {blocks} blocks from {low:#x} public {public}",
                                key_len * 8
                            );
                            assert_eq!(d1, d2, "{id}: data");
                            assert_eq!(c1, c2, "{id}: counter");
                            assert_eq!(y1, y2, "{id}: GHASH");
                            let into = blocks_into(&fused, (counter, y), &data, direction, public);
                            assert!(into == (d2.clone(), c2, y2), "{id}: out of place");
                            // Misaligned source and destination.
                            let mut src = vec![0u8; data.len() + 16];
                            let at = 1 + blocks % 15;
                            src[at..at + data.len()].copy_from_slice(&data);
                            let mut out = vec![MaybeUninit::<u8>::uninit(); data.len() + 16];
                            let to = 15 - blocks % 15;
                            let (mut c3, mut y3) = (counter, y);
                            let text = Text::Into {
                                input: &src[at..at + data.len()],
                                out: &mut out[to..to + data.len()],
                            };
                            fused.crypt_blocks(&mut c3, &mut y3, text, direction, public);
                            let written: Vec<u8> = out[to..to + data.len()]
                                .iter()
                                // SAFETY: `crypt_blocks` writes every
                                // byte of its output.
                                .map(|b| unsafe { b.assume_init() })
                                .collect();
                            assert!(written == d2, "{id}: misaligned out of place");
                            assert_eq!((c3, y3), (c2, y2), "{id}: misaligned counter, GHASH");
                        }
                    }
                }
            }
        }
    }

    /// The whole-message paths of both forms against the general path
    /// over the reference pair (`kernel.rs`'s grid of lengths and AAD
    /// lengths, in place and out of place).
    #[test]
    fn whole_messages_match_the_general_path() {
        for key_len in [16, 24, 32] {
            let ks = KeySchedule::new(&vec![0x3e; key_len]).unwrap();
            for (fused, what) in both_forms(&ks) {
                whole_messages_match(&ks, &fused, what, true);
            }
        }
    }

    /// The portable class's AES and GHASH keys (`fixslice`, `karatsuba`)
    /// for each key schedule: the reference the kernel is checked against.
    fn portable_keys(keys: &[KeySchedule]) -> Vec<(Fixslice, Karatsuba)> {
        keys.iter()
            .map(|ks| {
                let aes = Fixslice::new(ks).unwrap();
                let mut h = [[0u8; 16]];
                aes.encrypt_blocks(&mut h);
                (aes, Karatsuba::new(&h[0]).unwrap())
            })
            .collect()
    }

    /// The whole-message paths with a 96-bit IV (short up to seven
    /// blocks, then `mid`) at every length 0 to 2048 and every thirteenth
    /// to 4100, each with two AAD lengths of 0 to 64 (and every AAD length
    /// 0 to 64 at lengths around a batch's edges and around the counts
    /// whose low byte wraps: in the end batch, in a whole batch, at the
    /// second wrap), a 40 KiB message (ten wraps),
    /// AES-128 and AES-256, both directions, in place and out of place
    /// into uninitialized memory, both forms: the ciphertext and tag
    /// against the portable class (`fixslice` + `karatsuba` through
    /// `State`).
    #[test]
    fn whole_messages_match_the_portable_class() {
        let mut rng = Rng(0x5151_7e7e_a5a5_0f0f);
        let keys: Vec<KeySchedule> = [16, 32]
            .iter()
            .map(|&n| KeySchedule::new(&rng.bytes(n)).unwrap())
            .collect();
        let forms: Vec<_> = keys.iter().map(both_forms).collect();
        let portable = portable_keys(&keys);
        let edges = [
            112, 113, 127, 128, 129, 255, 256, 257, 1500, 2047, 2048, 4063, 4064, 4065, 4080, 4081,
            4095, 4096, 4097, 4112, 4113, 8175, 8176, 8192, 8209,
        ];
        let cases = (0..=2048usize)
            .chain((2049..=4100).step_by(13))
            .flat_map(|n| [(n, n % 65), (n, (7 * n + 13) % 65)])
            .chain(edges.iter().flat_map(|&n| (0..=64).map(move |a| (n, a))))
            .chain([(40 * 1024 + 5, 13), (40 * 1024, 0)]);
        let mut checked = 0;
        for (n, aad_len) in cases {
            let iv: [u8; 12] = rng.bytes(12).try_into().unwrap();
            let aad = rng.bytes(aad_len);
            let text = rng.bytes(n);
            for (k, (aes, ghash)) in portable.iter().enumerate() {
                let reference = Pair { aes, ghash };
                let mut expected = text.clone();
                let mut state = State::start(&reference, &iv);
                state.aad(&reference, &aad).unwrap();
                state
                    .crypt(&reference, &mut expected, Direction::Encrypt)
                    .unwrap();
                let tag = state.finish(&reference);
                for (fused, what) in &forms[k] {
                    let id = format!("{what} AES-{} len {n} aad {aad_len}", 128 + 128 * k);
                    for (direction, input, output) in [
                        (Direction::Encrypt, &text, &expected),
                        (Direction::Decrypt, &expected, &text),
                    ] {
                        let way = match direction {
                            Direction::Encrypt => "encrypt",
                            Direction::Decrypt => "decrypt",
                        };
                        let mut data = input.clone();
                        let got = fused.crypt_whole(&iv, &aad, Text::InPlace(&mut data), direction);
                        assert_eq!(got, Some(tag), "{id} {way}: tag in place");
                        assert!(data == *output, "{id} {way}: data in place");
                        let to = 1 + rng.below(15);
                        let mut out = vec![MaybeUninit::<u8>::uninit(); n + 16];
                        let dst = &mut out[to..to + n];
                        let into = Text::Into { input, out: dst };
                        let got = fused.crypt_whole(&iv, &aad, into, direction);
                        assert_eq!(got, Some(tag), "{id} {way}: tag out of place");
                        let written: Vec<u8> = out[to..to + n]
                            .iter()
                            // SAFETY: the whole-message paths write every
                            // byte of their output.
                            .map(|b| unsafe { b.assume_init() })
                            .collect();
                        assert!(written == *output, "{id} {way}: data out of place");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 0 || forms.iter().all(Vec::is_empty));
        eprintln!("aes-pmull: {checked} whole messages checked against the portable class");
    }

    /// Random messages of every length 0 to 2048 and some long ones, AAD
    /// of 0 to 64 bytes, 96-bit IVs (the whole-message paths) and other
    /// lengths (the general path, `State` over the kernel), in place and
    /// out of place at misaligned addresses, both directions, both forms:
    /// the ciphertext and tag against the portable class (`fixslice` +
    /// `karatsuba` through `State`), and decryption back to the plaintext.
    #[test]
    fn random_messages_match_the_portable_class() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        let keys: Vec<KeySchedule> = [16, 24, 32]
            .iter()
            .map(|&n| KeySchedule::new(&rng.bytes(n)).unwrap())
            .collect();
        let forms: Vec<_> = keys.iter().map(both_forms).collect();
        let portable = portable_keys(&keys);
        let lengths = (0..=2048usize).chain([4095, 4096, 4097, 16 * 1024 + 7, 65536 + 3]);
        let mut checked = 0;
        for n in lengths {
            let k = n % 3;
            let (aes, ghash) = &portable[k];
            let reference = Pair { aes, ghash };
            let iv_len = [12, 12, 12, 1, 8, 13, 16, 60][rng.below(8)];
            let iv = rng.bytes(iv_len);
            let aad_len = rng.below(65);
            let aad = rng.bytes(aad_len);
            let text = rng.bytes(n);
            // Expected: the portable class through the general path.
            let mut expected = text.clone();
            let mut state = State::start(&reference, &iv);
            state.aad(&reference, &aad).unwrap();
            state
                .crypt(&reference, &mut expected, Direction::Encrypt)
                .unwrap();
            let tag = state.finish(&reference);
            for (fused, what) in &forms[k] {
                let id = format!(
                    "{what} AES-{} len {n} aad {} iv {iv_len}",
                    128 + 64 * k,
                    aad.len()
                );
                for (direction, input, output) in [
                    (Direction::Encrypt, &text, &expected),
                    (Direction::Decrypt, &expected, &text),
                ] {
                    // In place, from a misaligned start.
                    let at = 1 + rng.below(15);
                    let mut buf = vec![0u8; n + 16];
                    buf[at..at + n].copy_from_slice(input);
                    let data = &mut buf[at..at + n];
                    let got = match <&[u8; 12]>::try_from(iv.as_slice()) {
                        Ok(iv12) => fused
                            .crypt_whole(iv12, &aad, Text::InPlace(&mut *data), direction)
                            .unwrap(),
                        Err(_) => {
                            let mut state = State::start(fused, &iv);
                            state.aad(fused, &aad).unwrap();
                            state.crypt(fused, data, direction).unwrap();
                            state.finish(fused)
                        }
                    };
                    assert_eq!(got, tag, "{id}: tag in place");
                    assert!(data == &output[..], "{id}: data in place");
                    // Out of place into misaligned uninitialized memory.
                    let to = 1 + rng.below(15);
                    let mut out = vec![MaybeUninit::<u8>::uninit(); n + 16];
                    let dst = &mut out[to..to + n];
                    let got = match <&[u8; 12]>::try_from(iv.as_slice()) {
                        Ok(iv12) => {
                            let into = Text::Into {
                                input,
                                out: &mut *dst,
                            };
                            fused.crypt_whole(iv12, &aad, into, direction).unwrap()
                        }
                        Err(_) => {
                            let mut state = State::start(fused, &iv);
                            state.aad(fused, &aad).unwrap();
                            state.crypt_into(fused, input, dst, direction).unwrap();
                            state.finish(fused)
                        }
                    };
                    assert_eq!(got, tag, "{id}: tag out of place");
                    let written: Vec<u8> = out[to..to + n]
                        .iter()
                        // SAFETY: both paths write every byte of `dst`.
                        .map(|b| unsafe { b.assume_init() })
                        .collect();
                    assert!(written == *output, "{id}: data out of place");
                    checked += 1;
                }
            }
        }
        eprintln!("aes-pmull: {checked} random messages checked against the portable class");
    }
}
