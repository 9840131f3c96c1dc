//! `vaes-avx2` multi-buffer: AES-GCM messages two at a time, one message
//! per 128-bit lane of a 256-bit register, for the batch API
//! (`gcm/batch.rs`) on CPUs without AVX-512 (AMD Zen 3, Intel client
//! cores from Alder Lake on). Constant-time. Figures:
//! `docs/kernels/vaes_avx2_multi.md`.
//!
//! The method of `vaes_avx512_multi.rs` (read its header) with half the
//! lanes: a group of four messages of one shape (3 to [`LONG`] blocks, 0
//! or 1 block of associated data, 96-bit IVs) runs as two pairs.
//!
//! # CPU features
//!
//! Those of `vaes-avx2` (AVX2, VAES, VPCLMULQDQ), whose key proves them:
//! VEX encodings only.
//!
//! # Layout: lane-major throughout
//!
//! Register i of a pair holds block i of both messages, lane j from
//! message j: counter blocks IV_0 ‖ i + 2 and IV_1 ‖ i + 2, which enter
//! the rounds at round 2 by FACE's first round (`ctr/face/round1.rs`:
//! the pair's round 1 of IV ‖ 0 XOR the key's table entry for count
//! i + 2, broadcast to both lanes). The data is read and written as two
//! 16-byte halves (`VINSERTI128` from memory, `VEXTRACTI128` to it: no
//! shuffle port), and the ciphertext register goes to GHASH as it is:
//! block i of both messages meets one broadcast power, each lane sums its
//! own message's products, and one reduction gives both tags.
//!
//! # The math
//!
//! Short messages (3 to 8 blocks, `crypt_pair`, the number of blocks a
//! constant of each instance): the whole message is one sum, block i
//! times H^(c + 1 − i), the AAD blocks H^(c + 2), the lengths blocks H,
//! one reduction. Longer ones (9 to [`LONG`], `long_pair`): chunks of
//! eight blocks a message, eight registers under AES (sixteen blocks, as
//! the one-message loop), and the same sum over the whole message: block
//! i of both messages meets one broadcast power H^(c + 1 − i) from the
//! key's [`LongPowers`] (H^132 … H^1, 2.2 KiB, made at key setup in fifty
//! products of two lanes by [`long_powers`]), and the message is reduced
//! once. The products are `ghash::vclmul::ymm`'s.
//!
//! AVX2 has no byte-masked loads and stores. A message's last block,
//! where the message ends inside it, is read as the 16 bytes that end
//! where the message ends (a message of three blocks or more has them)
//! moved down in its lane by one `VPSHUFB` (index windows from one
//! table), and written back the other way, blended into those 16 bytes,
//! after the block below it; an encryption's ciphertext is zeroed past
//! the end for GHASH with a mask read from a table of ones and zeros. One
//! block of associated data is read as two overlapping integers.
//!
//! # Constant-time
//!
//! As the one-message paths: the branches and copies depend on lengths
//! only, the products are carry-less multiplications, FACE's table is
//! indexed by the public counts, and no table is indexed by secret data
//! (the mask and window tables by the length).
//!
//! # Citations
//!
//! As `vaes_avx512_multi.rs` (Gopal et al., *Processing Multiple Buffers
//! in Parallel*, Intel 2010; intel-ipsec-mb).
//!
//! # Rejected
//!
//! - Each message's blocks in registers of its own (blocks 2r and 2r + 1
//!   in register r), transposed for GHASH: `VPERM2I128` on the one
//!   shuffle port of an Intel core, and odd block counts half-empty.
//! - Long messages message-major in chunks of four blocks, with
//!   transposes: 44 products per sixteen blocks.
//! - Horner's rule over the chunks in each lane (a reduction a chunk, the
//!   value so far added to the next chunk's first block): the reduction,
//!   the XOR and the wait on both each chunk.
//! - A bounce buffer filled by `memcpy` for the last block: a call and a
//!   store-forwarding stall a message.
//! - The chunks' blocks in runtime-indexed arrays: every chunk is a
//!   constant eight blocks now.
//! - The last chunk as one loop with the others, with a branch: slower
//!   than writing its counter blocks and rounds out again.

use core::arch::x86_64::{
    __m128i, __m256i, _mm_insert_epi32, _mm_loadl_epi64, _mm_loadu_si128, _mm_set_epi64x,
    _mm_storeu_si128, _mm256_aesenc_epi128, _mm256_aesenclast_epi128, _mm256_and_si256,
    _mm256_blendv_epi8, _mm256_broadcastsi128_si256, _mm256_castsi256_si128,
    _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_set_epi64x, _mm256_set_m128i,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_storeu_si256, _mm256_xor_si256,
};
use core::borrow::BorrowMut;

use crate::aes::Block;
use crate::ctr::face::round1::Round1;
use crate::gcm::kernel::{BatchMessage, LONG, LongPowers, POWERS, TOP};
use crate::ghash::vclmul::ymm::{Wide, mul_wide, reduce};

/// The last block of both messages of a pair, where a message may end
/// inside it: AVX2 has no byte-masked loads and stores, so it is read
/// and written as the 16 bytes that end where the message ends (its
/// window: a message of three blocks or more has them), the block
/// shifted up in it, moved by one `VPSHUFB` each way.
struct Last {
    /// The windows as read.
    window: __m256i,
    /// Whether either block is partial (else the window is the block,
    /// and the rest is not needed: one branch, the same way for every
    /// pair of a run of equal lengths).
    partial: bool,
    /// `VPSHUFB` indexes that move a block up into its window.
    up: __m256i,
    /// Ones on the window's bytes below the block.
    kept: __m256i,
    /// Ones on the block's bytes inside the message.
    valid: __m256i,
}

/// Reads the windows of a pair of messages of `c` blocks (`&[u8]`
/// each); gives the [`Last`] and the last blocks, shifted down, zero
/// past the ends. A macro, as `write_last` is (as a function, LLVM
/// left this one a call in every pair too).
macro_rules! read_last {
    ($m0:expr, $m1:expr, $c:expr) => {{
        let (m0, m1, c): (&[u8], &[u8], usize) = ($m0, $m1, $c);
        let at = 16 * (c - 1);
        let (len0, len1) = (m0.len(), m1.len());
        let shift = (16 - (len0 - at), 16 - (len1 - at));
        let window = lanes(load_at(m0, len0 - 16), load_at(m1, len1 - 16));
        if shift == (0, 0) {
            let zero = _mm256_setzero_si256();
            let last = Last {
                window,
                partial: false,
                up: zero,
                kept: zero,
                valid: zero,
            };
            (last, window)
        } else {
            let down = lanes(shift_index(32 + shift.0), shift_index(32 + shift.1));
            let last = Last {
                window,
                partial: true,
                up: lanes(shift_index(32 - shift.0), shift_index(32 - shift.1)),
                kept: lanes(ones_below(shift.0), ones_below(shift.1)),
                valid: lanes(ones_below(16 - shift.0), ones_below(16 - shift.1)),
            };
            (last, _mm256_shuffle_epi8(window, down))
        }
    }};
}

/// The windows of `last` with `o`, the last blocks' output, in place
/// (the bytes below the block keep what the window held: of the block
/// below, written by then or after), written back where they were
/// read; and `o` zero past each message's end (an encryption's last
/// ciphertext block, for GHASH). A macro: as a function (with AVX2
/// enabled, so not `#[inline(always)]`) LLVM left it a call, with a
/// `VZEROUPPER` and the registers through the stack, in every pair.
macro_rules! write_last {
    ($last:expr, $m0:expr, $m1:expr, $o:expr) => {{
        let (last, o): (&Last, __m256i) = (&$last, $o);
        let w = if last.partial {
            _mm256_blendv_epi8(_mm256_shuffle_epi8(o, last.up), last.window, last.kept)
        } else {
            o
        };
        store_ends($m0, $m1, w);
        if last.partial {
            _mm256_and_si256(o, last.valid)
        } else {
            o
        }
    }};
}

/// Encrypts or decrypts the messages of `run` in place, four at a time
/// (messages 4g … 4g + 3 are group g, two pairs), and writes their full
/// tags into `tags`, in order. `keys` are the round keys; `long` the
/// key's [`LongPowers`] (the twisted H^132 … H^1).
///
/// # Safety
/// The CPU must support AVX2, VAES and VPCLMULQDQ; `rounds` is 10, 12
/// or 14 and `keys` holds that many round keys and one; `run` is not
/// empty, its length a multiple of four and `tags`'s; its messages
/// have 96-bit IVs and one shape of at most [`LONG`] blocks (see
/// [`shape`](super::super::kernel::shape)), and one length and
/// associated-data length if `uniform`.
#[target_feature(enable = "avx2,vaes,vpclmulqdq")]
pub(crate) unsafe fn crypt_groups<'a, M: BorrowMut<BatchMessage<'a>>>(
    keys: &[Block; 15],
    rounds: usize,
    (long, round1): (&LongPowers, &Round1<1>),
    run: &mut [M],
    uniform: bool,
    encrypt: bool,
    tags: &mut [Block],
) {
    let blocks = run[0].borrow().buf.len().div_ceil(16);
    // One instance per key size, direction and number of blocks (3 to
    // 8): every register count and index into the powers a constant;
    // and one for 9 to LONG blocks.
    macro_rules! by_blocks {
        ($n:literal, $enc:literal) => {
            match blocks {
                3 => groups::<M, $n, $enc, 3>(keys, (long, round1), run, uniform, tags),
                4 => groups::<M, $n, $enc, 4>(keys, (long, round1), run, uniform, tags),
                5 => groups::<M, $n, $enc, 5>(keys, (long, round1), run, uniform, tags),
                6 => groups::<M, $n, $enc, 6>(keys, (long, round1), run, uniform, tags),
                7 => groups::<M, $n, $enc, 7>(keys, (long, round1), run, uniform, tags),
                8 => groups::<M, $n, $enc, 8>(keys, (long, round1), run, uniform, tags),
                _ => groups::<M, $n, $enc, 0>(keys, (long, round1), run, uniform, tags),
            }
        };
    }
    // SAFETY: passed on from the caller.
    unsafe {
        match (rounds, encrypt) {
            (10, true) => by_blocks!(11, true),
            (10, false) => by_blocks!(11, false),
            (12, true) => by_blocks!(13, true),
            (12, false) => by_blocks!(13, false),
            (_, true) => by_blocks!(15, true),
            (_, false) => by_blocks!(15, false),
        }
    }
}

/// [`crypt_groups`] with `N` round keys and `C` blocks a message, or
/// for `C` = 0 9 to [`LONG`] blocks ([`long_pair`]).
///
/// # Safety
/// As [`crypt_groups`]; every message is 16·(`C` − 1) + 1 to 16·`C`
/// bytes long, `C` 3 to 8; or 129 to 16·[`LONG`], the two of a pair
/// the same number of blocks, for `C` = 0.
///
/// Out of line: each instance a function of its own (inlined into
/// the dispatch, the 42 of them made one function so large that LLVM
/// stopped inlining the helpers into it).
#[inline(never)]
#[target_feature(enable = "avx2,vaes,vpclmulqdq")]
unsafe fn groups<
    'a,
    M: BorrowMut<BatchMessage<'a>>,
    const N: usize,
    const ENCRYPT: bool,
    const C: usize,
>(
    keys: &[Block; 15],
    (long, table): (&LongPowers, &Round1<1>),
    run: &mut [M],
    uniform: bool,
    tags: &mut [Block],
) {
    debug_assert!(C == 0 || (3..=8).contains(&C));
    // A run of equal lengths: the lengths blocks' product with H is
    // the same for every pair, made once (as in `vaes_avx512_multi`).
    let first = run[0].borrow();
    let lengths_h = uniform.then(|| {
        let (aad_bits, bits) = ((first.aad.len() as i64) << 3, (first.buf.len() as i64) << 3);
        mul_wide(
            _mm256_set_epi64x(aad_bits, bits, aad_bits, bits),
            power(long, 1),
        )
    });
    let mut k = [_mm256_setzero_si256(); N];
    for (k, key) in k.iter_mut().zip(keys) {
        // SAFETY: `key` is 16 readable bytes; no alignment needed.
        *k = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(key.as_ptr().cast()) });
    }
    for (pair, out) in run.chunks_exact_mut(2).zip(tags.chunks_exact_mut(2)) {
        if C == 0 {
            long_pair::<M, N, ENCRYPT>(&k, (long, table), lengths_h, pair, out);
        } else {
            crypt_pair::<M, N, ENCRYPT, C>(&k, (long, table), lengths_h, pair, out);
        }
    }
}

/// Two messages of 9 to [`LONG`] blocks, lane j message j, in chunks
/// of eight blocks a message: eight registers under AES (sixteen
/// blocks, as the one-message loop), and GHASH message by message in
/// each lane: block b of both messages (the two have c blocks) times
/// one broadcast power, H^(c + 1 − b) from the key's [`LongPowers`],
/// the AAD blocks times H^(c + 2), the lengths blocks times H, every
/// product summed unreduced over the whole message and reduced once.
/// The last block as in [`crypt_pair`]. Every chunk but the last is a
/// constant eight blocks (the last chunk's blocks are runtime-indexed).
#[inline]
#[target_feature(enable = "avx2,vaes,vpclmulqdq")]
fn long_pair<'a, M: BorrowMut<BatchMessage<'a>>, const N: usize, const ENCRYPT: bool>(
    k: &[__m256i; N],
    (long, table): (&LongPowers, &Round1<1>),
    lengths_h: Option<Wide>,
    pair: &mut [M],
    out: &mut [Block],
) {
    let [m0, m1] = pair else {
        unreachable!("a pair");
    };
    let (m0, m1) = (m0.borrow_mut(), m1.borrow_mut());
    let bswap = bswap_mask();
    let c = m0.buf.len().div_ceil(16);
    debug_assert!(c == m1.buf.len().div_ceil(16) && (9..=LONG).contains(&c));
    // Block b takes H^(c + 1 − b): entry `base` + b.
    let base = TOP - c - 1;

    // Counter blocks as in `crypt_pair`, through round 1 by FACE's
    // table (counts at most LONG + 1: one run).
    let r = _mm256_aesenc_epi128(_mm256_xor_si256(lanes(iv(m0.iv), iv(m1.iv)), k[0]), k[1]);
    let mut y0 = _mm256_xor_si256(r, entry(table, 1));
    for key in &k[2..N - 1] {
        y0 = _mm256_aesenc_epi128(y0, *key);
    }
    let ek_y0 = _mm256_aesenclast_epi128(y0, k[N - 1]);

    // Both messages' products so far, from the AAD blocks' on.
    let mut sum = if m0.aad.is_empty() {
        Wide::zero()
    } else {
        let d = lanes(aad_block(m0.aad), aad_block(m1.aad));
        mul_wide(_mm256_shuffle_epi8(d, bswap), power(long, c + 2))
    };
    // Chunks of eight blocks; the last one holds the rest, 1 to 8.
    let full = (c - 1) / 8;
    for chunk in 0..full {
        let mut s = [_mm256_setzero_si256(); 8];
        for (i, s) in s.iter_mut().enumerate() {
            *s = _mm256_xor_si256(r, entry(table, 2 + 8 * chunk + i));
        }
        for key in &k[2..N - 1] {
            for s in &mut s {
                *s = _mm256_aesenc_epi128(*s, *key);
            }
        }
        let at = 128 * chunk;
        let (Some(b0), Some(b1)) = (
            m0.buf[at..].first_chunk_mut::<128>(),
            m1.buf[at..].first_chunk_mut::<128>(),
        ) else {
            unreachable!("a whole chunk");
        };
        let ((b0, _), (b1, _)) = (b0.as_chunks_mut::<16>(), b1.as_chunks_mut::<16>());
        let Some(h) = long.0[base + 8 * chunk..].first_chunk::<8>() else {
            unreachable!("eight powers: base + c ≤ TOP");
        };
        for ((s, h), (b0, b1)) in s.iter().zip(h).zip(b0.iter_mut().zip(b1)) {
            let x = lanes(load(b0), load(b1));
            let o = _mm256_aesenclast_epi128(*s, _mm256_xor_si256(k[N - 1], x));
            store(b0, _mm256_castsi256_si128(o));
            store(b1, _mm256_extracti128_si256::<1>(o));
            let ct = _mm256_shuffle_epi8(if ENCRYPT { o } else { x }, bswap);
            sum = sum.xor(mul_wide(ct, broadcast(h)));
        }
    }
    // The last chunk's counter blocks and rounds are written out again
    // rather than shared with the loop above: as one loop with a branch
    // for the last chunk, it was slower.
    let first = 8 * full;
    let blocks = c - first;
    let mut s = [_mm256_setzero_si256(); 8];
    for (i, s) in s.iter_mut().enumerate() {
        *s = _mm256_xor_si256(r, entry(table, 2 + first + i));
    }
    for key in &k[2..N - 1] {
        for s in &mut s {
            *s = _mm256_aesenc_epi128(*s, *key);
        }
    }
    for (i, s) in s.iter().enumerate().take(blocks) {
        let at = 16 * (first + i);
        // The last block through its window (`Last`), after the block
        // below it, in order.
        let (x, last) = if i + 1 < blocks {
            (lanes(load_at(m0.buf, at), load_at(m1.buf, at)), None)
        } else {
            let (last, x) = read_last!(m0.buf, m1.buf, c);
            (x, Some(last))
        };
        let o = _mm256_aesenclast_epi128(*s, _mm256_xor_si256(k[N - 1], x));
        let c = match &last {
            Some(last) => {
                let valid = write_last!(last, m0.buf, m1.buf, o);
                if ENCRYPT { valid } else { x }
            }
            None => {
                store_at(m0.buf, at, _mm256_castsi256_si128(o));
                store_at(m1.buf, at, _mm256_extracti128_si256::<1>(o));
                if ENCRYPT { o } else { x }
            }
        };
        let ct = _mm256_shuffle_epi8(c, bswap);
        sum = sum.xor(mul_wide(ct, broadcast(&long.0[base + first + i])));
    }
    two_tags(sum, lengths_h, (m0, m1), long, ek_y0, out);
}

/// The block at `at` of `buf` (at + 16 ≤ len).
#[inline]
#[target_feature(enable = "avx2")]
fn load_at(buf: &[u8], at: usize) -> __m128i {
    let Some(b) = buf[at..].first_chunk() else {
        unreachable!("a whole block");
    };
    load(b)
}

/// Writes the block at `at` of `buf` (at + 16 ≤ len).
#[inline]
#[target_feature(enable = "avx2")]
fn store_at(buf: &mut [u8], at: usize, x: __m128i) {
    let Some(b) = buf[at..].first_chunk_mut() else {
        unreachable!("a whole block");
    };
    store(b, x)
}

/// Two messages of a group, lane j message j: encrypted or decrypted
/// in place, their tags into `out`.
///
/// (Both pair paths take the pair as `groups` gets it, generic over
/// `M`: taking two unpacked messages, they stopped depending on `M`,
/// and LLVM made them functions of their own, called once a pair.)
///
/// The last block through its window ([`Last`]), read before the
/// rounds and written before the block below it (which then
/// overwrites what the window held of it).
#[inline]
#[target_feature(enable = "avx2,vaes,vpclmulqdq")]
fn crypt_pair<
    'a,
    M: BorrowMut<BatchMessage<'a>>,
    const N: usize,
    const ENCRYPT: bool,
    const C: usize,
>(
    k: &[__m256i; N],
    (long, table): (&LongPowers, &Round1<1>),
    lengths_h: Option<Wide>,
    pair: &mut [M],
    out: &mut [Block],
) {
    let [m0, m1] = pair else {
        unreachable!("a pair");
    };
    let (m0, m1) = (m0.borrow_mut(), m1.borrow_mut());
    let bswap = bswap_mask();

    // Counter blocks IV_j ‖ count through rounds 0 and 1 by FACE's
    // first round (`ctr/face/round1.rs`): `r` is round 1 of the IVs
    // with bytes 12 to 15 zero (one VAESENC for the pair), and a count
    // (the same in both lanes) is the table's entry for it. Y_0 has
    // count 1, block i count i + 2.
    let r = _mm256_aesenc_epi128(_mm256_xor_si256(lanes(iv(m0.iv), iv(m1.iv)), k[0]), k[1]);
    let mut y0 = _mm256_xor_si256(r, entry(table, 1));
    let mut s = [r; C];
    for (i, s) in s.iter_mut().enumerate() {
        *s = _mm256_xor_si256(*s, entry(table, 2 + i));
    }

    // The message, block i of both in register i; the last block
    // through its window (`Last`). Every message is longer than 16·(C
    // − 1) bytes (its shape): one check here, and none at each block
    // below.
    let ((body0, _), (body1, _)) = (m0.buf.as_chunks::<16>(), m1.buf.as_chunks::<16>());
    let (Some(body0), Some(body1)) = (body0.get(..C - 1), body1.get(..C - 1)) else {
        unreachable!("C − 1 whole blocks");
    };
    let mut x = [_mm256_setzero_si256(); C];
    for (x, (b0, b1)) in x.iter_mut().zip(body0.iter().zip(body1)) {
        *x = lanes(load(b0), load(b1));
    }
    let (last, x_last) = read_last!(m0.buf, m1.buf, C);
    x[C - 1] = x_last;

    // FIPS-197's rounds 2 on, on the C + 1 registers, round by round.
    for key in &k[2..N - 1] {
        for s in s.iter_mut() {
            *s = _mm256_aesenc_epi128(*s, *key);
        }
        y0 = _mm256_aesenc_epi128(y0, *key);
    }
    let ek_y0 = _mm256_aesenclast_epi128(y0, k[N - 1]);

    // The last round XORs the data in; the ciphertext, zero past each
    // message's end, byte-reflected, for GHASH.
    let mut o = [_mm256_setzero_si256(); C];
    let mut ct = [_mm256_setzero_si256(); C];
    for i in 0..C {
        o[i] = _mm256_aesenclast_epi128(s[i], _mm256_xor_si256(k[N - 1], x[i]));
    }
    // The last block first: its window holds bytes of the block below
    // it, written after.
    let valid = write_last!(last, m0.buf, m1.buf, o[C - 1]);
    for i in 0..C {
        let c = match (ENCRYPT, i == C - 1) {
            (true, true) => valid,
            (true, false) => o[i],
            (false, _) => x[i],
        };
        ct[i] = _mm256_shuffle_epi8(c, bswap);
    }
    let ((body0, _), (body1, _)) = (m0.buf.as_chunks_mut::<16>(), m1.buf.as_chunks_mut::<16>());
    for (o, (b0, b1)) in o.iter().zip(body0.iter_mut().zip(body1)).take(C - 1) {
        store(b0, _mm256_castsi256_si128(*o));
        store(b1, _mm256_extracti128_si256::<1>(*o));
    }

    // Block i of both messages times H^(C + 1 − i), the AAD blocks
    // times H^(C + 2), the lengths blocks times H.
    let mut sum = Wide::zero();
    for (i, ct) in ct.iter().enumerate() {
        sum = sum.xor(mul_wide(*ct, power(long, C + 1 - i)));
    }
    if m0.aad.len().div_ceil(16) == 1 {
        let d = lanes(aad_block(m0.aad), aad_block(m1.aad));
        sum = sum.xor(mul_wide(_mm256_shuffle_epi8(d, bswap), power(long, C + 2)));
    }
    two_tags(sum, lengths_h, (m0, m1), long, ek_y0, out);
}

/// Writes `w` over the last 16 bytes of each message, lane j message j.
#[inline]
#[target_feature(enable = "avx2")]
fn store_ends(m0: &mut [u8], m1: &mut [u8], w: __m256i) {
    let (len0, len1) = (m0.len(), m1.len());
    store_at(m0, len0 - 16, _mm256_castsi256_si128(w));
    store_at(m1, len1 - 16, _mm256_extracti128_si256::<1>(w));
}

/// The end of a pair: `sum` (both messages' products so far) plus the
/// lengths blocks times H (`lengths_h` where the pair has the run's
/// lengths), reduced, byte-reflected, E(K, Y_0) added: the two tags,
/// into `out`.
#[inline]
#[target_feature(enable = "avx2,vpclmulqdq")]
fn two_tags(
    sum: Wide,
    lengths_h: Option<Wide>,
    (m0, m1): (&BatchMessage<'_>, &BatchMessage<'_>),
    long: &LongPowers,
    ek_y0: __m256i,
    out: &mut [Block],
) {
    let sum = sum.xor(match lengths_h {
        Some(product) => product,
        None => {
            let bits =
                |m: &BatchMessage<'_>| ((m.aad.len() as i64) << 3, (m.buf.len() as i64) << 3);
            let ((a0, b0), (a1, b1)) = (bits(m0), bits(m1));
            mul_wide(_mm256_set_epi64x(a1, b1, a0, b0), power(long, 1))
        }
    });
    let tags = _mm256_xor_si256(_mm256_shuffle_epi8(reduce(sum), bswap_mask()), ek_y0);
    let Some(out) = out.as_flattened_mut().first_chunk_mut::<32>() else {
        unreachable!("two tags");
    };
    // SAFETY: `out` is 32 writable bytes; no alignment needed.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), tags) };
}

/// A register of two blocks: `lo` in lane 0, `hi` in lane 1.
#[inline]
#[target_feature(enable = "avx2")]
fn lanes(lo: __m128i, hi: __m128i) -> __m256i {
    _mm256_set_m128i(hi, lo)
}

/// A 96-bit IV in bytes 0 to 11, zeros after: bytes 0 to 7 loaded
/// into the register's low half (`VMOVQ`) and bytes 8 to 11 inserted
/// as its third dword (`VPINSRD` from memory). (Copied into a zeroed
/// block and read back as one, the two narrower stores did not
/// forward to the wider load: a stall a message.)
#[inline]
#[target_feature(enable = "avx2")]
fn iv(iv: &[u8]) -> __m128i {
    let Some((head, tail)) = iv.first_chunk::<12>().map(|iv| iv.split_at(8)) else {
        unreachable!("a 96-bit IV");
    };
    // SAFETY: `head` is 8 readable bytes; no alignment needed.
    let head = unsafe { _mm_loadl_epi64(head.as_ptr().cast()) };
    let tail = i32::from_le_bytes(tail.try_into().unwrap_or_default());
    _mm_insert_epi32::<2>(head, tail)
}

/// One block of associated data, 1 to 16 bytes (`b`), zero past its
/// end, read without a copy: two overlapping reads of 8 (or 4, or
/// single bytes), the second shifted past the bytes the first has.
#[inline]
#[target_feature(enable = "avx2")]
fn aad_block(b: &[u8]) -> __m128i {
    let n = b.len();
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
    let u32_at = |i: usize| {
        u64::from(u32::from_le_bytes(
            b[i..i + 4].try_into().unwrap_or_default(),
        ))
    };
    let (lo, hi) = match n {
        16 => (u64_at(0), u64_at(8)),
        9..=15 => (u64_at(0), u64_at(n - 8) >> (8 * (16 - n))),
        8 => (u64_at(0), 0),
        4..=7 => (u32_at(0) | (u32_at(n - 4) >> (8 * (8 - n))) << 32, 0),
        1..=3 => {
            let byte = |i: usize| u64::from(b[i]) << (8 * i);
            (byte(0) | byte(n / 2) | byte(n - 1), 0)
        }
        _ => (0, 0),
    };
    _mm_set_epi64x(hi as i64, lo as i64)
}

/// The shifts' index windows: 0x80 (a zero byte to `VPSHUFB`) on both
/// sides of 0, 1, …, 15. The 16 bytes from 32 + d hold d + i for i <
/// 16 − d (a shift down by d); from 32 − d, i − d for i ≥ d (up).
static SHIFT_INDEX: [u8; 64] = {
    let mut t = [0x80u8; 64];
    let mut i = 0;
    while i < 16 {
        t[32 + i] = i as u8;
        i += 1;
    }
    t
};

/// The 16 bytes of [`SHIFT_INDEX`] from `at` (at most 48).
#[inline]
#[target_feature(enable = "avx2")]
fn shift_index(at: usize) -> __m128i {
    let Some(window) = SHIFT_INDEX[at..].first_chunk::<16>() else {
        unreachable!("a window of the table");
    };
    // SAFETY: `window` is 16 readable bytes; no alignment needed.
    unsafe { _mm_loadu_si128(window.as_ptr().cast()) }
}

/// H^e in both lanes (entry TOP − e of the key's [`LongPowers`]), 1 ≤ e ≤
/// TOP.
#[inline]
#[target_feature(enable = "avx2")]
fn power(long: &LongPowers, e: usize) -> __m256i {
    broadcast(&long.0[TOP - e])
}

/// A power of H in both lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn broadcast(h: &u128) -> __m256i {
    // SAFETY: `h` is 16 readable bytes; no alignment needed.
    _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128((h as *const u128).cast()) })
}

/// The key's [`LongPowers`], from H … H^32 (`all`, entry k holds
/// H^(k + 1)): those in descending order, then each pair of entries
/// (H^(y + 1), H^y) above them as the pair thirty-two entries below
/// times H^32 (fifty products of two lanes, sixteen independent chains;
/// the key's one-lane products, `Clmul::powers_to`, added a fifth to
/// the key setup).
///
/// # Safety
/// The CPU must support AVX2 and VPCLMULQDQ.
#[target_feature(enable = "avx2,vpclmulqdq")]
pub(crate) unsafe fn long_powers(all: &[u128; 32]) -> LongPowers {
    let mut table = LongPowers([0; POWERS]);
    for (e, h) in table.0[TOP - 32..TOP].iter_mut().zip(all.iter().rev()) {
        *e = *h;
    }
    let h32 = power(&table, 32);
    for i in (0..TOP - 32).step_by(2).rev() {
        // SAFETY: entries i … i + 33 < TOP are in the table; each
        // access is two entries, 32 bytes, no alignment needed.
        unsafe {
            let below = _mm256_loadu_si256(table.0[i + 32..].as_ptr().cast());
            let pair = reduce(mul_wide(below, h32));
            _mm256_storeu_si256(table.0[i..].as_mut_ptr().cast(), pair);
        }
    }
    table
}

/// FACE's table entry for count `n` (below 256) in both lanes: round
/// 1 of the count's block minus that of its run's base block.
#[inline]
#[target_feature(enable = "avx2")]
fn entry(table: &Round1<1>, n: usize) -> __m256i {
    // SAFETY: the entry is 16 readable bytes; no alignment needed.
    _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(table.entries(n as u8, 1).cast()) })
}

/// A block from memory.
#[inline]
#[target_feature(enable = "avx2")]
fn load(b: &[u8; 16]) -> __m128i {
    // SAFETY: `b` is 16 readable bytes; no alignment needed.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// A block to memory.
#[inline]
#[target_feature(enable = "avx2")]
fn store(b: &mut [u8; 16], x: __m128i) {
    // SAFETY: `b` is 16 writable bytes; no alignment needed.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) }
}

/// Ones on the first `n` bytes of a block (n ≤ 16), zeros after.
#[inline]
#[target_feature(enable = "avx2")]
fn ones_below(n: usize) -> __m128i {
    /// 16 ones then 16 zeros: 16 bytes read from 16 − n give n ones.
    static ONES_THEN_ZEROS: [u8; 32] = {
        let mut t = [0u8; 32];
        let mut i = 0;
        while i < 16 {
            t[i] = 0xff;
            i += 1;
        }
        t
    };
    let Some(window) = ONES_THEN_ZEROS[16 - n..].first_chunk::<16>() else {
        unreachable!("a window of the table");
    };
    // SAFETY: `window` is 16 readable bytes.
    unsafe { _mm_loadu_si128(window.as_ptr().cast()) }
}

/// `VPSHUFB` mask reversing the 16 bytes of each lane.
#[inline]
#[target_feature(enable = "avx2")]
fn bswap_mask() -> __m256i {
    _mm256_set_epi64x(
        0x0001_0203_0405_0607,
        0x0809_0a0b_0c0d_0e0f,
        0x0001_0203_0405_0607,
        0x0809_0a0b_0c0d_0e0f,
    )
}
