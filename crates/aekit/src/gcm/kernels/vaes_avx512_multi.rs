//! `vaes-avx512` multi-buffer: four AES-GCM messages at once, one message
//! per 128-bit lane, for the batch API (`gcm/batch.rs`). Constant-time.
//! Figures: `docs/kernels/vaes_avx512_multi.md`.
//!
//! # CPU features
//!
//! Those of `vaes-avx512` (VAES, VPCLMULQDQ, AVX-512F/BW/VL), whose key
//! proves them; the kernel calls [`crypt_groups`] with its round keys,
//! its `LongPowers` and FACE's table.
//!
//! # Why
//!
//! A short message is one dependent chain: its AES rounds, then its GHASH
//! products and one reduction, then its tag. A 64-byte message is only
//! five AES blocks (Y_0 and four counter blocks) and five products: most
//! of the 512-bit AES unit and the carry-less multiplier sit idle, and the
//! next message's work waits for the call to return. Four messages of one
//! shape fill the lanes one leaves empty and share what is done once per
//! call (the round keys broadcast, one reduction, one tag register). A
//! longer message (576 or 1500 bytes) keeps the units busy in its middle
//! but pays at its ends what a one-message call costs; four at a time pay
//! it once per four.
//!
//! # Shape
//!
//! The four messages of a group have the same number of message blocks c
//! (3 to `LONG` = 128: below three the one-message short paths are as
//! fast) and of associated-data blocks a (0 or 1); each has its own 96-bit
//! IV, associated data, length within its last block, contents and tag.
//! The batch API hands the kernel runs of consecutive messages of one
//! shape, and gathers the others by shape.
//!
//! # Layout and math
//!
//! AES, message-major: message j's counter blocks IV_j ‖ 2 … IV_j ‖ c + 1
//! (with c ≤ 128 the count stays in its last byte) fill registers of its
//! own, which meet its buffer as whole 64-byte rows (the last read and
//! written with byte masks); the four messages' Y_0 = IV_j ‖ 1 share one
//! register, lane j from message j. A group of four 64-byte messages is
//! five registers under AES.
//!
//! Short messages (up to eight blocks, `groups`), GHASH lane-major: the
//! ciphertext registers are transposed (a 4 × 4 transpose of 128-bit
//! lanes, eight `VSHUFI64X2` per four registers), so that register i
//! holds block i of the four messages. The shape is shared, so block i of
//! every message meets the same broadcast power, H^(c + 1 − i), the AAD
//! blocks H^(c + 2), the lengths blocks H; the products of all four are
//! summed lane by lane and reduced once, and the reduced register XORed
//! with E(K, Y_0)'s is the four tags, lane j message j's. A run of groups
//! is software-pipelined per call (a group's AES issued before the
//! previous group's GHASH); in a run of equal lengths the byte masks and
//! the lengths blocks' product are made once per call (`Uniform`).
//!
//! Longer messages (`long_groups`, 9 to 128 blocks), GHASH message-major:
//! chunks of eight blocks a message (two registers, eight under AES at
//! once); each register of a message's four blocks is multiplied by its
//! own four powers, H^(c + 1 − i) for block i, one 64-byte load from the
//! key's `LongPowers` (H^(LONG + 4) … H^1, 2.2 KiB, made at key setup from
//! H^32 … H^1 in 25 products of four lanes by [`long_powers`]), and the
//! products are summed unreduced over the whole message, three registers a
//! message. At the group's end the four messages' sums meet in lanes (six
//! shuffles and three XORs per component) for one reduction with the
//! AAD's and the lengths' products: no transpose, no Horner product and
//! no reduction per chunk.
//!
//! The long path's counter blocks skip rounds 0 and 1 with FACE's table
//! (`ctr/face/round1.rs`): a message of at most 128 blocks is one run of
//! 256 counts, so its blocks after round 1 are one register of its own
//! (round 1 of IV ‖ 0) XOR the table's entries, the same loads for the
//! four messages.
//!
//! # Constant-time
//!
//! As the one-message paths: the branches and masks depend on lengths
//! only, the products are carry-less multiplications, FACE's table is
//! indexed by the public counts, and no table is indexed by secret data.
//!
//! # Citations
//!
//! Multi-buffer processing of independent messages across SIMD lanes:
//! V. Gopal, J. Guilford, W. Feghali, E. Ozturk, G. Wolrich, M. Dixon,
//! *Processing Multiple Buffers in Parallel to Increase Performance on
//! Intel Architecture Processors* (Intel, 2010), and Intel's
//! intel-ipsec-mb library, which schedules jobs of equal length into
//! lanes. Written from that idea and the GCM spec.
//!
//! # Rejected
//!
//! - Long messages lane-major with Horner's rule over the chunks: a
//!   transpose, a product with H^8 and a reduction per chunk, on the one
//!   port that takes shuffles and carry-less products.
//! - Chunks of sixteen blocks a message: sixteen registers under AES and
//!   sixteen of ciphertext do not fit beside the keys.
//! - Each chunk's GHASH issued after the next chunk's AES (message-major):
//!   slower than in order.
//! - One reduction per four chunks with the running value added to the
//!   first block, each chunk's AES before the previous chunk's GHASH, the
//!   AES rounds kept round-major by `asm!` (all on the lane-major form):
//!   none faster.
//! - The lengths block built per group from four messages' lengths in a
//!   run of equal lengths: about ten shuffles and inserts on the port the
//!   products need (`Uniform` instead).

use core::arch::x86_64::{
    __m512i, _mm_loadu_si128, _mm_maskz_loadu_epi8, _mm_set_epi32, _mm_set_epi64x,
    _mm512_aesenc_epi128, _mm512_aesenclast_epi128, _mm512_broadcast_i32x4,
    _mm512_clmulepi64_epi128, _mm512_loadu_si512, _mm512_mask_broadcast_i32x4,
    _mm512_mask_mov_epi32, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8, _mm512_maskz_mov_epi8,
    _mm512_set_epi32, _mm512_set_epi64, _mm512_setzero_si512, _mm512_shuffle_epi8,
    _mm512_shuffle_i64x2, _mm512_storeu_si512, _mm512_xor_si512,
};
use core::borrow::BorrowMut;

use crate::aes::Block;
use crate::aes::vaes::{RoundKeys, broadcast_keys, byte_mask};
use crate::ctr::face::round1::Round1;
use crate::gcm::kernel::{BatchMessage, LONG, LongPowers, POWERS, TOP};
use crate::ghash::vclmul::{Wide, bswap_mask, mul_wide, reduce, xor3};

/// Encrypts or decrypts the messages of `run` in place, four at a time
/// (messages 4g … 4g + 3 are group g), and writes their full tags into
/// `tags`, in order. `powers` holds H^32 … H^1 (entry e is H^(32 − e),
/// twisted, as `vclmul` stores them).
///
/// # Safety
/// The CPU must support VAES, VPCLMULQDQ and AVX-512F/BW/VL; `rounds`
/// is 10, 12 or 14 and `rk` holds that many round keys and one; `run`
/// is not empty, its length a multiple of four and `tags`'s; its
/// messages have 96-bit IVs and one shape (see
/// [`shape`](super::super::kernel::shape)), and one length and
/// associated-data length if `uniform`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
pub(crate) unsafe fn crypt_groups<'a, M: BorrowMut<BatchMessage<'a>>>(
    rk: &RoundKeys,
    rounds: usize,
    (long, round1): (&LongPowers, &Round1<4>),
    run: &mut [M],
    uniform: bool,
    encrypt: bool,
    tags: &mut [Block],
) {
    let powers = long.powers_32_to_1();
    let registers = run[0].borrow().buf.len().div_ceil(64);
    // SAFETY: passed on from the caller.
    unsafe {
        match (rounds, encrypt, registers) {
            (10, true, 1) => groups::<M, 11, true, 1>(rk, powers, run, uniform, tags),
            (10, true, 2) => groups::<M, 11, true, 2>(rk, powers, run, uniform, tags),
            (10, true, _) => long_groups::<M, 11, true>(rk, (long, round1), run, tags),
            (10, false, 1) => groups::<M, 11, false, 1>(rk, powers, run, uniform, tags),
            (10, false, 2) => groups::<M, 11, false, 2>(rk, powers, run, uniform, tags),
            (10, false, _) => long_groups::<M, 11, false>(rk, (long, round1), run, tags),
            (12, true, 1) => groups::<M, 13, true, 1>(rk, powers, run, uniform, tags),
            (12, true, 2) => groups::<M, 13, true, 2>(rk, powers, run, uniform, tags),
            (12, true, _) => long_groups::<M, 13, true>(rk, (long, round1), run, tags),
            (12, false, 1) => groups::<M, 13, false, 1>(rk, powers, run, uniform, tags),
            (12, false, 2) => groups::<M, 13, false, 2>(rk, powers, run, uniform, tags),
            (12, false, _) => long_groups::<M, 13, false>(rk, (long, round1), run, tags),
            (_, true, 1) => groups::<M, 15, true, 1>(rk, powers, run, uniform, tags),
            (_, true, 2) => groups::<M, 15, true, 2>(rk, powers, run, uniform, tags),
            (_, true, _) => long_groups::<M, 15, true>(rk, (long, round1), run, tags),
            (_, false, 1) => groups::<M, 15, false, 1>(rk, powers, run, uniform, tags),
            (_, false, 2) => groups::<M, 15, false, 2>(rk, powers, run, uniform, tags),
            (_, false, _) => long_groups::<M, 15, false>(rk, (long, round1), run, tags),
        }
    }
}

/// A group after its AES: what its GHASH needs.
struct Sealed<const V: usize> {
    /// The ciphertext, zero past each message's end, byte-reflected:
    /// `ct[r][j]` is register r of message j.
    ct: [[__m512i; 4]; V],
    /// The four E(K, Y_0), lane j message j's.
    ek_y0: __m512i,
    /// The associated-data blocks, zero-padded and byte-reflected,
    /// lane j message j's (zero where the shape has none).
    aad: __m512i,
    /// The lengths blocks, len(A) ‖ len(C) in bits as reflected
    /// integers (len(A) the high qword), lane j message j's (zero in
    /// a [`Uniform`] run, which has their product).
    lengths: __m512i,
}

/// [`crypt_groups`] with `N` round keys and `V` = ⌈c/4⌉ registers of
/// counter blocks per message, software-pipelined: group g's AES is
/// issued before group g − 1's GHASH, which waits on nothing of it.
/// What bounds it is the operations on the two 512-bit ports, hence
/// [`Uniform`] and round 0 folded into the count constants.
///
/// # Safety
/// As [`crypt_groups`]; every message is 64·(`V` − 1) + 1 to 64·`V`
/// bytes long.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn groups<
    'a,
    M: BorrowMut<BatchMessage<'a>>,
    const N: usize,
    const ENCRYPT: bool,
    const V: usize,
>(
    rk: &RoundKeys,
    all: &[u128; 32],
    run: &mut [M],
    uniform: bool,
    tags: &mut [Block],
) {
    let first = run[0].borrow();
    let (c, a) = (first.buf.len().div_ceil(16), first.aad.len().div_ceil(16));
    debug_assert!(c > 4 * (V - 1) && c <= 4 * V && a <= 1);
    debug_assert!(run.len().is_multiple_of(4) && run.len() == tags.len());
    let k = broadcast_keys::<N>(rk);
    let keyed = Keyed::<V>::new(k[0]);
    let uniform = uniform.then(|| Uniform::<V>::new(all, first.aad.len(), first.buf.len()));
    let uniform = uniform.as_ref();
    let mut pending: Option<(Sealed<V>, &mut [Block])> = None;
    for (group, out) in run.chunks_exact_mut(4).zip(tags.chunks_exact_mut(4)) {
        // SAFETY: passed on from the caller.
        let sealed = unsafe { seal::<M, N, ENCRYPT, V>(&k, &keyed, uniform, group, a) };
        if let Some((previous, out)) = pending.take() {
            finish(all, c, a, uniform, &previous, out);
        }
        pending = Some((sealed, out));
    }
    if let Some((last, out)) = pending {
        finish(all, c, a, uniform, &last, out);
    }
}

/// What a run of messages of equal lengths (a batch of fixed-size
/// records or packets) shares in every group: the byte masks of a
/// message's registers and the lengths blocks' product with H, made
/// once per call instead of once per message and per group. (Built
/// per group from four messages' lengths, the lengths block alone was
/// about ten shuffles and inserts on the port the products need.)
struct Uniform<const V: usize> {
    /// The byte mask of register r of every message.
    masks: [u64; V],
    /// len(A) ‖ len(C) times H, in every lane, not reduced.
    lengths_h: Wide,
}

impl<const V: usize> Uniform<V> {
    /// For messages of `len` bytes and `aad_len` of associated data.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    fn new(all: &[u128; 32], aad_len: usize, len: usize) -> Self {
        let mut masks = [0; V];
        for (r, mask) in masks.iter_mut().enumerate() {
            *mask = byte_mask(len - 64 * r);
        }
        let lengths =
            _mm512_broadcast_i32x4(_mm_set_epi64x((aad_len as i64) << 3, (len as i64) << 3));
        Uniform {
            masks,
            lengths_h: mul_wide(lengths, broadcast(all, 31)),
        }
    }
}

/// The counts of a group's counter blocks with round 0's key added:
/// a message's counter blocks are IV ‖ count, the count's low byte is
/// byte 15 (the top byte of dword 3) and bytes 12 to 15 of the IV
/// broadcast are zero, so (IV ‖ count) ⊕ k_0 is IV ⊕ (k_0 ⊕ count):
/// one XOR per register.
struct Keyed<const V: usize> {
    /// Register r of a message: counts 2 + 4r … 5 + 4r (Y_1 is count 2).
    blocks: [__m512i; V],
    /// Y_0, count 1, in every lane.
    y0: __m512i,
}

/// Counts `first` … `first` + 3 in byte 15 of lanes 0 … 3 (the top
/// byte of dword 3), every other byte zero.
#[inline]
#[target_feature(enable = "avx512f")]
fn counts(first: i32) -> __m512i {
    _mm512_set_epi32(
        (first + 3) << 24,
        0,
        0,
        0,
        (first + 2) << 24,
        0,
        0,
        0,
        (first + 1) << 24,
        0,
        0,
        0,
        first << 24,
        0,
        0,
        0,
    )
}

/// The counter blocks of a group's messages: `ivs[j]` (message j's IV,
/// round 0 applied or not; or, on the long path, its base block through
/// round 1) XOR `counts[r]` in register r of message j (the counts in
/// byte 15; or FACE's table entries at them).
#[inline]
#[target_feature(enable = "avx512f")]
fn counter_blocks<const V: usize>(ivs: &[__m512i; 4], counts: &[__m512i; V]) -> [[__m512i; V]; 4] {
    // (Loops, not `array::map`: a closure does not inherit the target
    // features, and stayed a call.)
    let mut s = [[_mm512_setzero_si512(); V]; 4];
    for (s, iv) in s.iter_mut().zip(ivs) {
        for (s, count) in s.iter_mut().zip(counts) {
            *s = _mm512_xor_si512(*iv, *count);
        }
    }
    s
}

impl<const V: usize> Keyed<V> {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new(k0: __m512i) -> Keyed<V> {
        let mut blocks = [k0; V];
        for (r, b) in blocks.iter_mut().enumerate() {
            *b = _mm512_xor_si512(k0, counts(2 + 4 * r as i32));
        }
        let one = _mm512_broadcast_i32x4(_mm_set_epi32(1 << 24, 0, 0, 0));
        Keyed {
            blocks,
            y0: _mm512_xor_si512(k0, one),
        }
    }
}

/// One group's AES: its messages encrypted or decrypted in place, and
/// what its GHASH needs.
///
/// # Safety
/// As [`groups`]; `group` holds four messages.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn seal<
    'a,
    M: BorrowMut<BatchMessage<'a>>,
    const N: usize,
    const ENCRYPT: bool,
    const V: usize,
>(
    k: &[__m512i; N],
    keyed: &Keyed<V>,
    uniform: Option<&Uniform<V>>,
    group: &mut [M],
    a: usize,
) -> Sealed<V> {
    let heads = Heads::of(group, a);
    let s = counter_blocks(&heads.ivs, &keyed.blocks);
    let mut y0 = _mm512_xor_si512(heads.y0, keyed.y0);
    let masks = uniform.map(|u| u.masks);
    // SAFETY: every message is 64·(V − 1) + 1 to 64·V bytes long.
    let ct = unsafe { crypt::<M, N, ENCRYPT, V, true, true, 1>(k, s, &mut y0, group, 0, masks) };
    // (Indexed, not `array::map`: that stayed a call, its results
    // stored as 8-byte words and read back wider, which the CPU does
    // not forward.)
    Sealed {
        ct,
        ek_y0: y0,
        aad: heads.aad,
        lengths: match uniform {
            Some(_) => _mm512_setzero_si512(),
            None => lengths(group),
        },
    }
}

/// One group's GHASH: its four tags, into `out`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
fn finish<const V: usize>(
    all: &[u128; 32],
    c: usize,
    a: usize,
    uniform: Option<&Uniform<V>>,
    sealed: &Sealed<V>,
    out: &mut [Block],
) {
    // The AAD blocks times H^(c + 2), block i of every message times
    // H^(c + 1 − i), the lengths blocks times H.
    let lengths_h = match uniform {
        Some(u) => u.lengths_h,
        None => mul_wide(sealed.lengths, power(all, 1)),
    };
    let aad = (a == 1).then_some((sealed.aad, c + 2));
    let hash = hash::<V>(all, aad, &sealed.ct, c, c + 1, Some(lengths_h));
    store_tags(hash, sealed.ek_y0, out);
}

/// The four tags, lane j message j's, from the reduced GHASH and
/// E(K, Y_0), into `out`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn store_tags(hash: __m512i, ek_y0: __m512i, out: &mut [Block]) {
    let four_tags = _mm512_xor_si512(_mm512_shuffle_epi8(hash, bswap_mask()), ek_y0);
    assert_eq!(out.len(), 4);
    // SAFETY: `out` is four contiguous 16-byte blocks, 64 writable
    // bytes; no alignment needed.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), four_tags) };
}

/// What each message of a group brings before its counter blocks.
struct Heads {
    /// Message j's IV in every lane, bytes 12 to 15 zero.
    ivs: [__m512i; 4],
    /// Lane j message j's IV: Y_0 without its count.
    y0: __m512i,
    /// The associated-data blocks, zero-padded and byte-reflected,
    /// lane j message j's (zero where the shape has none).
    aad: __m512i,
}

impl Heads {
    /// The heads of `group`'s four messages (96-bit IVs, `a` blocks of
    /// associated data, 0 or 1, each).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn of<'a, M: BorrowMut<BatchMessage<'a>>>(group: &[M], a: usize) -> Heads {
        let mut ivs = [_mm512_setzero_si512(); 4];
        let mut y0 = _mm512_setzero_si512();
        let mut aad = _mm512_setzero_si512();
        for (j, (m, iv)) in group.iter().zip(&mut ivs).enumerate() {
            let m = m.borrow();
            // SAFETY: the mask selects the IV's 12 bytes (a group's
            // IVs are 96 bits).
            *iv = _mm512_broadcast_i32x4(unsafe {
                _mm_maskz_loadu_epi8(0x0fff, m.iv.as_ptr().cast())
            });
            y0 = if j == 0 {
                *iv
            } else {
                _mm512_mask_mov_epi32(y0, 0xf << (4 * j), *iv)
            };
            if a == 1 {
                // SAFETY: the mask selects the AAD's 1 to 16 bytes.
                let block = unsafe {
                    _mm_maskz_loadu_epi8(byte_mask(m.aad.len()) as u16, m.aad.as_ptr().cast())
                };
                aad = _mm512_mask_broadcast_i32x4(aad, 0xf << (4 * j), block);
            }
        }
        if a == 1 {
            aad = _mm512_shuffle_epi8(aad, bswap_mask());
        }
        Heads { ivs, y0, aad }
    }
}

/// The lengths blocks of a group, len(A) ‖ len(C) in bits as reflected
/// integers (len(A) the high qword), lane j message j's.
#[inline]
#[target_feature(enable = "avx512f")]
fn lengths<'a, M: BorrowMut<BatchMessage<'a>>>(group: &[M]) -> __m512i {
    // (Indexed, not `array::map`: that stayed a call, its results
    // stored as 8-byte words and read back wider, which the CPU does
    // not forward.)
    let aad_bits = |j: usize| (group[j].borrow().aad.len() as i64) << 3;
    let bits = |j: usize| (group[j].borrow().buf.len() as i64) << 3;
    _mm512_set_epi64(
        aad_bits(3),
        bits(3),
        aad_bits(2),
        bits(2),
        aad_bits(1),
        bits(1),
        aad_bits(0),
        bits(0),
    )
}

/// Counter mode on `V` registers of each of a group's messages, from
/// byte `offset` of each: `s[j][r]` holds message j's counter blocks
/// for bytes `offset` + 64r … through rounds 0 … `FIRST` − 1 (round 0
/// on the short path, rounds 0 and 1 from FACE's table on the long
/// one), and `y0`, if `Y0`,
/// is encrypted beside them (E(K, Y_0) left in it). Returns
/// the ciphertext, zero past each message's end, byte-reflected:
/// `ct[r][j]` is register r of message j. `MASKED`: the registers
/// are read and written with byte masks (`masks[r]` for every
/// message, or each message's own); otherwise whole.
///
/// # Safety
/// The CPU must support VAES and AVX-512F/BW; `MASKED`: every message
/// is more than `offset` + 64(V − 1) bytes long; otherwise at least
/// `offset` + 64V.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes")]
unsafe fn crypt<
    'a,
    M: BorrowMut<BatchMessage<'a>>,
    const N: usize,
    const ENCRYPT: bool,
    const V: usize,
    const MASKED: bool,
    const Y0: bool,
    const FIRST: usize,
>(
    k: &[__m512i; N],
    mut s: [[__m512i; V]; 4],
    y0: &mut __m512i,
    group: &mut [M],
    offset: usize,
    masks: Option<[u64; V]>,
) -> [[__m512i; 4]; V] {
    let mask = |m: &BatchMessage<'_>, r: usize| match masks {
        Some(masks) => masks[r],
        None => byte_mask(m.buf.len() - offset - 64 * r),
    };
    let mut x = [[_mm512_setzero_si512(); V]; 4];
    for (m, x) in group.iter().zip(&mut x) {
        let m = m.borrow();
        for (r, x) in x.iter_mut().enumerate() {
            let p = m.buf.as_ptr().wrapping_add(offset + 64 * r);
            // SAFETY: masked: offset + 64r < len (see the contract), so
            // the mask selects bytes offset + 64r .. min(offset + 64r +
            // 64, len) of the buffer and masked-off bytes are not
            // accessed; whole: those 64 bytes are in the buffer.
            *x = unsafe {
                if MASKED {
                    _mm512_maskz_loadu_epi8(mask(m, r), p.cast())
                } else {
                    _mm512_loadu_si512(p.cast())
                }
            };
        }
    }

    // FIPS-197's rounds on the 4·V registers (and Y_0's), round by
    // round.
    for key in &k[FIRST..N - 1] {
        for s in s.iter_mut() {
            for s in s.iter_mut() {
                *s = _mm512_aesenc_epi128(*s, *key);
            }
        }
        if Y0 {
            *y0 = _mm512_aesenc_epi128(*y0, *key);
        }
    }
    if Y0 {
        *y0 = _mm512_aesenclast_epi128(*y0, k[N - 1]);
    }

    // The last round XORs the data in (AESENCLAST(s, k ⊕ x) =
    // AESENCLAST(s, k) ⊕ x).
    let bswap = bswap_mask();
    let mut ct = [[_mm512_setzero_si512(); 4]; V];
    for (j, m) in group.iter_mut().enumerate() {
        let m = m.borrow_mut();
        for r in 0..V {
            let p = m.buf.as_mut_ptr().wrapping_add(offset + 64 * r);
            let out = _mm512_aesenclast_epi128(s[j][r], _mm512_xor_si512(k[N - 1], x[j][r]));
            // SAFETY: as for the load.
            unsafe {
                if MASKED {
                    _mm512_mask_storeu_epi8(p.cast(), mask(m, r), out);
                } else {
                    _mm512_storeu_si512(p.cast(), out);
                }
            }
            // Zero past the end for GHASH, where the end is in this
            // register (a branch on the length, which is public).
            let c = if ENCRYPT && MASKED && m.buf.len() < offset + 64 * (r + 1) {
                _mm512_maskz_mov_epi8(mask(m, r), out)
            } else if ENCRYPT {
                out
            } else {
                x[j][r]
            };
            ct[r][j] = _mm512_shuffle_epi8(c, bswap);
        }
    }
    ct
}

/// Lane-wise GHASH of blocks appended to `acc`, reduced: `acc` (if
/// any) times H^e, block i of every message (`ct` transposed; i < `b`,
/// blocks past `b` zero in every lane) times H^(p − i), and `tail`
/// (a product already made, not reduced).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
fn hash<const V: usize>(
    all: &[u128; 32],
    acc: Option<(__m512i, usize)>,
    ct: &[[__m512i; 4]; V],
    b: usize,
    p: usize,
    tail: Option<Wide>,
) -> __m512i {
    let mut sum = match acc {
        Some((acc, e)) => mul_wide(acc, power(all, e)),
        None => Wide::zero(),
    };
    for (r, regs) in ct.iter().enumerate() {
        let blocks = transpose(*regs);
        for (l, d) in blocks.iter().enumerate() {
            let i = 4 * r + l;
            if i < b {
                sum = sum.xor(mul_wide(*d, power(all, p - i)));
            }
        }
    }
    if let Some(tail) = tail {
        sum = sum.xor(tail);
    }
    reduce(sum)
}

/// Messages of 9 to [`LONG`] blocks, four at a time: each message's
/// blocks in chunks of eight (two registers a message, eight under AES
/// at once, as the main loops of the one-message kernels have), and
/// GHASH message by message, each register of four blocks times its
/// own four powers of H ([`Descending`]), summed unreduced over the
/// whole message: no transpose, no reduction and no product of a
/// running value per chunk. The four messages' sums meet in lanes once
/// per group, with the AAD's and the lengths' products, for one
/// reduction. What a one-message call pays once per message (its
/// start, its partial batches at the end, its last reductions) is paid
/// once per four.
///
/// # Safety
/// As [`crypt_groups`]; every message is 9 to `LONG` blocks long.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn long_groups<'a, M: BorrowMut<BatchMessage<'a>>, const N: usize, const ENCRYPT: bool>(
    rk: &RoundKeys,
    (long, round1): (&LongPowers, &Round1<4>),
    run: &mut [M],
    tags: &mut [Block],
) {
    let c = run[0].borrow().buf.len().div_ceil(16);
    let k = broadcast_keys::<N>(rk);
    let keyed = Keyed::<2>::new(k[0]);
    let powers = Descending::new(long, c);
    for (group, out) in run.chunks_exact_mut(4).zip(tags.chunks_exact_mut(4)) {
        // SAFETY: passed on from the caller.
        unsafe { long_group::<M, N, ENCRYPT>(&k, &keyed, (&powers, round1), group, out) };
    }
}

/// The [`LongPowers`] the long path multiplies blocks by, made at key
/// setup. Its last thirty-two entries before the zeros are H^32 … H^1
/// in the order of `all` (the key's other powers:
/// [`LongPowers::powers_32_to_1`]). Eight registers of four powers
/// times H^32 make the next thirty-two.
///
/// # Safety
/// The CPU must support AVX-512F/BW/VL and VPCLMULQDQ.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
pub(crate) unsafe fn long_powers(all: &[u128; 32]) -> LongPowers {
    let mut table = LongPowers([0; POWERS]);
    // `up[q]` holds H^(4q + 4) … H^(4q + 1) in lanes 0 … 3, the order
    // `all` keeps (H^32 … H^1), and goes to entry TOP − 4q − 4 on.
    let mut up = [_mm512_setzero_si512(); TOP / 4];
    let h32 = power(all, 32);
    for q in 0..TOP / 4 {
        up[q] = if q < 8 {
            // SAFETY: entries 28 − 4q … 31 − 4q of `all` are 64
            // readable bytes.
            unsafe { _mm512_loadu_si512(all[28 - 4 * q..].as_ptr().cast()) }
        } else {
            reduce(mul_wide(up[q - 8], h32))
        };
        let at = TOP - 4 * q - 4;
        // SAFETY: entries `at` … `at` + 3 < TOP are 64 writable bytes.
        unsafe { _mm512_storeu_si512(table.0[at..].as_mut_ptr().cast(), up[q]) };
    }
    table
}

/// The powers a run of messages of c blocks multiplies its blocks by,
/// in the key's [`long_powers`]. Block i of a message with no AAD is
/// followed by c − i blocks and the lengths, so it takes
/// H^(c + 1 − i), entry `base` + i (`base` = TOP − c − 1): register r
/// of a message (blocks 4r … 4r + 3) meets its four powers as one
/// 64-byte load, and a block past the message's end (zero) meets H^0
/// or zero. The AAD block takes H^(c + 2), entry `base` − 1, and the
/// lengths block H, entry TOP − 1.
struct Descending<'k> {
    entries: &'k [u128; POWERS],
    base: usize,
}

impl Descending<'_> {
    fn new(long: &LongPowers, c: usize) -> Descending<'_> {
        debug_assert!(c <= LONG);
        Descending {
            entries: &long.0,
            base: TOP - c - 1,
        }
    }

    /// The powers of blocks 4r … 4r + 3.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn register(&self, r: usize) -> __m512i {
        let four = &self.entries[self.base + 4 * r..self.base + 4 * r + 4];
        // SAFETY: `four` is 64 readable bytes.
        unsafe { _mm512_loadu_si512(four.as_ptr().cast()) }
    }

    /// H^(c + 2), for the AAD block, in every lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn aad(&self) -> __m512i {
        splat(&self.entries[self.base - 1])
    }

    /// H, for the lengths block, in every lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn h1(&self) -> __m512i {
        splat(&self.entries[TOP - 1])
    }
}

/// `sum` plus the products of two registers of one message's blocks
/// with their powers: eight `VPCLMULQDQ` and four three-way XORs.
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn add_products(sum: Wide, d: [__m512i; 2], h: [__m512i; 2]) -> Wide {
    let [(d0, h0), (d1, h1)] = [(d[0], h[0]), (d[1], h[1])];
    Wide {
        lo: xor3(
            sum.lo,
            _mm512_clmulepi64_epi128(d0, h0, 0x00),
            _mm512_clmulepi64_epi128(d1, h1, 0x00),
        ),
        mid: xor3(
            xor3(
                sum.mid,
                _mm512_clmulepi64_epi128(d0, h0, 0x01),
                _mm512_clmulepi64_epi128(d0, h0, 0x10),
            ),
            _mm512_clmulepi64_epi128(d1, h1, 0x01),
            _mm512_clmulepi64_epi128(d1, h1, 0x10),
        ),
        hi: xor3(
            sum.hi,
            _mm512_clmulepi64_epi128(d0, h0, 0x11),
            _mm512_clmulepi64_epi128(d1, h1, 0x11),
        ),
    }
}

/// Four messages' sums, message j's in the four lanes of `sums[j]`,
/// as one sum, lane j message j's: each component's lanes added in
/// two steps, pairs of messages side by side (six shuffles and three
/// XORs, where a transpose and three additions are eleven).
#[inline]
#[target_feature(enable = "avx512f")]
fn gather(sums: &[Wide; 4]) -> Wide {
    // Lanes 0 ⊕ 2 and 1 ⊕ 3 of `a`, then the same of `b`.
    let halves = |a: __m512i, b: __m512i| {
        _mm512_xor_si512(
            _mm512_shuffle_i64x2::<0x44>(a, b),
            _mm512_shuffle_i64x2::<0xee>(a, b),
        )
    };
    let one = |part: fn(&Wide) -> __m512i| {
        let p = halves(part(&sums[0]), part(&sums[1]));
        let q = halves(part(&sums[2]), part(&sums[3]));
        // Lane 0 ⊕ 1 of p, 2 ⊕ 3 of p, the same of q.
        _mm512_xor_si512(
            _mm512_shuffle_i64x2::<0x88>(p, q),
            _mm512_shuffle_i64x2::<0xdd>(p, q),
        )
    };
    Wide {
        lo: one(|w| w.lo),
        mid: one(|w| w.mid),
        hi: one(|w| w.hi),
    }
}

/// One group of [`long_groups`], its tags into `out`.
///
/// # Safety
/// As [`long_groups`]; `group` holds four messages.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn long_group<'a, M: BorrowMut<BatchMessage<'a>>, const N: usize, const ENCRYPT: bool>(
    k: &[__m512i; N],
    keyed: &Keyed<2>,
    (powers, table): (&Descending, &Round1<4>),
    group: &mut [M],
    out: &mut [Block],
) {
    let first = group[0].borrow();
    let (c, a) = (first.buf.len().div_ceil(16), first.aad.len().div_ceil(16));
    debug_assert!(c > 8 && c <= LONG && a <= 1);
    let heads = Heads::of(group, a);
    let lengths = lengths(group);
    // FACE's first round (`ctr/face/round1.rs`): message j's counts
    // 2 … c + 1 share its run (c < 255), so its blocks after round 1
    // are `r[j]`, round 1 of IV_j ‖ 0, XOR the table's entries at the
    // counts, the same entries for the four messages.
    let mut r = heads.ivs;
    for r in &mut r {
        *r = _mm512_aesenc_epi128(_mm512_xor_si512(*r, k[0]), k[1]);
    }
    let blocks = |first: usize| -> [__m512i; 2] {
        let p = table.entries(first as u8, 8);
        // SAFETY: `p` points to eight entries of 16 bytes.
        unsafe {
            [
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(4).cast()),
            ]
        }
    };
    // E(K, Y_0) on its own (beside the chunks' registers it would
    // make `crypt` a second function for the first chunk).
    let mut y0 = _mm512_xor_si512(heads.y0, keyed.y0);
    for key in &k[1..N - 1] {
        y0 = _mm512_aesenc_epi128(y0, *key);
    }
    let y0 = _mm512_aesenclast_epi128(y0, k[N - 1]);
    let mut unused = y0;
    let chunks = c.div_ceil(8);
    // Each message's products, unreduced.
    let mut sums = [Wide::zero(); 4];
    let mut add = |ct: &[[__m512i; 4]], chunk: usize| {
        let h = powers.register(2 * chunk);
        if let [ct0, ct1] = ct {
            let h = [h, powers.register(2 * chunk + 1)];
            for (j, sum) in sums.iter_mut().enumerate() {
                *sum = add_products(*sum, [ct0[j], ct1[j]], h);
            }
        } else {
            for (j, sum) in sums.iter_mut().enumerate() {
                *sum = sum.xor(mul_wide(ct[0][j], h));
            }
        }
    };
    for chunk in 0..chunks - 1 {
        let s = counter_blocks(&r, &blocks(2 + 8 * chunk));
        // SAFETY: every message has more than 8(chunk + 1) blocks,
        // so its bytes 128·chunk .. 128·chunk + 128 are whole.
        let ct = unsafe {
            crypt::<M, N, ENCRYPT, 2, false, false, 2>(k, s, &mut unused, group, 128 * chunk, None)
        };
        add(&ct, chunk);
    }
    // The last chunk: b = 1 … 8 blocks, zero past each message's end.
    let offset = 128 * (chunks - 1);
    let b = c - 8 * (chunks - 1);
    let last = blocks(2 + 8 * (chunks - 1));
    if b > 4 {
        let s = counter_blocks(&r, &last);
        // SAFETY: every message is offset + 65 to offset + 128 bytes.
        let ct = unsafe {
            crypt::<M, N, ENCRYPT, 2, true, false, 2>(k, s, &mut unused, group, offset, None)
        };
        add(&ct, chunks - 1);
    } else {
        let s = counter_blocks(&r, &[last[0]]);
        // SAFETY: every message is offset + 1 to offset + 64 bytes.
        let ct = unsafe {
            crypt::<M, N, ENCRYPT, 1, true, false, 2>(k, s, &mut unused, group, offset, None)
        };
        add(&ct, chunks - 1);
    }
    // The AAD blocks times H^(c + 2), the lengths blocks times H, lane
    // j message j's.
    let mut sum = gather(&sums).xor(mul_wide(lengths, powers.h1()));
    if a == 1 {
        sum = sum.xor(mul_wide(heads.aad, powers.aad()));
    }
    store_tags(reduce(sum), y0, out);
}

/// H^e in all four lanes (entry 32 − e of the powers).
#[inline]
#[target_feature(enable = "avx512f")]
fn power(all: &[u128; 32], e: usize) -> __m512i {
    broadcast(all, 32 - e)
}

/// Entry `e` of the powers in all four lanes.
#[inline]
#[target_feature(enable = "avx512f")]
fn broadcast(all: &[u128; 32], e: usize) -> __m512i {
    splat(&all[e])
}

/// `p` in all four lanes.
#[inline]
#[target_feature(enable = "avx512f")]
fn splat(p: &u128) -> __m512i {
    // SAFETY: `p` is 16 readable bytes; no alignment needed.
    _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128((p as *const u128).cast()) })
}

/// The 4 × 4 transpose of 128-bit lanes: lane j of result l is lane l
/// of `m[j]`.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose(m: [__m512i; 4]) -> [__m512i; 4] {
    // [m0.0 m0.1 m1.0 m1.1], [m0.2 m0.3 m1.2 m1.3], and the same of m2, m3.
    let t0 = _mm512_shuffle_i64x2::<0x44>(m[0], m[1]);
    let t1 = _mm512_shuffle_i64x2::<0xee>(m[0], m[1]);
    let t2 = _mm512_shuffle_i64x2::<0x44>(m[2], m[3]);
    let t3 = _mm512_shuffle_i64x2::<0xee>(m[2], m[3]);
    // Even and odd lanes of each pair.
    [
        _mm512_shuffle_i64x2::<0x88>(t0, t2),
        _mm512_shuffle_i64x2::<0xdd>(t0, t2),
        _mm512_shuffle_i64x2::<0x88>(t1, t3),
        _mm512_shuffle_i64x2::<0xdd>(t1, t3),
    ]
}
