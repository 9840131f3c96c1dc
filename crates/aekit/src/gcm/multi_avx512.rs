//! `vaes-avx512` multi-buffer: four short AES-GCM messages at once, one
//! message per 128-bit lane, for the batch API ([`super::batch`]).
//!
//! # Why
//!
//! A short message is one dependent chain: its AES rounds, then its GHASH
//! products and one reduction, then its tag. The one-message paths run it
//! as fast as its latency allows, but a 64-byte message is only five AES
//! blocks (Y_0 and four counter blocks) and five products: most of the
//! 512-bit AES unit and the carry-less multiplier sit idle, and the next
//! message's work waits for the call to return. Four messages of one
//! shape fill the lanes that one leaves empty, and share what is done
//! once per call (the round keys broadcast, one reduction, one tag
//! register).
//!
//! # Shape
//!
//! The four messages of a group have the same number of message blocks c
//! (3 to 8: below, the one-message short paths are as fast) and of
//! associated-data blocks a (0 or 1); each has its own
//! IV (96 bits), associated data, length within its last block, contents
//! and tag. The batch API groups the messages of a batch by shape.
//!
//! # Layout
//!
//! AES, message-major: message j's counter blocks IV_j ‖ 2 … IV_j ‖ c + 1
//! (with c ≤ 8 the count fits its last byte and never carries) fill
//! ⌈c/4⌉ registers of its own, which meet its buffer as whole 64-byte rows
//! read and written with byte masks; the four messages' Y_0 = IV_j ‖ 1
//! share one register, lane j from message j. A group of four 64-byte
//! messages is then five registers under AES, where four one-message calls
//! are eight (each Y_0 in a register of its own, or the 128-bit
//! `ni-clmul` path's twenty blocks one lane each).
//!
//! GHASH, lane-major: the ciphertext registers are transposed (a 4 × 4
//! transpose of 128-bit lanes, eight `VSHUFI64X2` per four registers), so
//! that register i holds block i of the four messages, lane j from
//! message j. The shape is shared, so block i of every message is
//! multiplied by the same power, H^(c + 1 − i), broadcast; the AAD
//! blocks (lane j from message j) by H^(c + 2) and the lengths blocks by
//! H. The products of all four messages are summed lane by lane and
//! reduced once, and the reduced register XORed with E(K, Y_0)'s is the
//! four tags, lane j message j's: no horizontal sums, one reduction per
//! four messages.
//!
//! Constant-time as the one-message paths: the branches and masks depend
//! on lengths only, the products are carry-less multiplications, no table
//! is indexed by secret data.
//!
//! # Citations
//!
//! Multi-buffer processing of independent messages across SIMD lanes:
//! V. Gopal, J. Guilford, W. Feghali, E. Ozturk, G. Wolrich, M. Dixon,
//! *Processing Multiple Buffers in Parallel to Increase Performance on
//! Intel Architecture Processors* (Intel, 2010), and Intel's
//! intel-ipsec-mb library, which schedules jobs of equal length into
//! lanes. The code here is written from that idea and the GCM spec.

#[cfg(target_arch = "x86_64")]
pub(crate) use imp::crypt_four;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m512i, _mm_loadu_si128, _mm_maskz_loadu_epi8, _mm_set_epi32, _mm512_aesenc_epi128,
        _mm512_aesenclast_epi128, _mm512_broadcast_i32x4, _mm512_mask_broadcast_i32x4,
        _mm512_mask_mov_epi32, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8,
        _mm512_maskz_mov_epi8, _mm512_or_si512, _mm512_set_epi32, _mm512_set_epi64,
        _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_shuffle_i64x2, _mm512_storeu_si512,
        _mm512_xor_si512,
    };

    use super::super::kernel::Lane;
    use crate::aes::Block;
    use crate::aes::vaes::{RoundKeys, broadcast_keys, byte_mask};
    use crate::ghash::vclmul::{Wide, bswap_mask, mul_wide, reduce};

    /// Encrypts or decrypts the four `lanes` in place and writes their
    /// full tags into `tags`, in order. `powers` holds H^32 … H^1 (entry e is
    /// H^(32 − e), twisted, as `vclmul` stores them).
    ///
    /// # Safety
    /// The CPU must support VAES, VPCLMULQDQ and AVX-512F/BW/VL; `rounds`
    /// is 10, 12 or 14 and `rk` holds that many round keys and one; the
    /// lanes have one shape (see [`Lane::shape`]).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
    pub(crate) unsafe fn crypt_four(
        rk: &RoundKeys,
        rounds: usize,
        powers: &[u128; 32],
        lanes: &mut [Lane<'_>; 4],
        encrypt: bool,
        tags: &mut [Block; 4],
    ) {
        let registers = lanes[0].buf.len().div_ceil(64);
        // SAFETY: passed on from the caller.
        unsafe {
            match (rounds, encrypt, registers) {
                (10, true, 1) => four::<11, true, 1>(rk, powers, lanes, tags),
                (10, true, _) => four::<11, true, 2>(rk, powers, lanes, tags),
                (10, false, 1) => four::<11, false, 1>(rk, powers, lanes, tags),
                (10, false, _) => four::<11, false, 2>(rk, powers, lanes, tags),
                (12, true, 1) => four::<13, true, 1>(rk, powers, lanes, tags),
                (12, true, _) => four::<13, true, 2>(rk, powers, lanes, tags),
                (12, false, 1) => four::<13, false, 1>(rk, powers, lanes, tags),
                (12, false, _) => four::<13, false, 2>(rk, powers, lanes, tags),
                (_, true, 1) => four::<15, true, 1>(rk, powers, lanes, tags),
                (_, true, _) => four::<15, true, 2>(rk, powers, lanes, tags),
                (_, false, 1) => four::<15, false, 1>(rk, powers, lanes, tags),
                (_, false, _) => four::<15, false, 2>(rk, powers, lanes, tags),
            }
        }
    }

    /// [`crypt_four`] with `N` round keys and `V` = ⌈c/4⌉ registers of
    /// counter blocks per message.
    ///
    /// # Safety
    /// As [`crypt_four`]; every lane's message is 64·(`V` − 1) + 1 to
    /// 64·`V` bytes long.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
    unsafe fn four<const N: usize, const ENCRYPT: bool, const V: usize>(
        rk: &RoundKeys,
        all: &[u128; 32],
        lanes: &mut [Lane<'_>; 4],
        tags: &mut [Block; 4],
    ) {
        let (c, a) = (
            lanes[0].buf.len().div_ceil(16),
            lanes[0].aad.len().div_ceil(16),
        );
        debug_assert!(c > 4 * (V - 1) && c <= 4 * V && a <= 1);
        let k = broadcast_keys::<N>(rk);
        let bswap = bswap_mask();

        // Counter blocks IV ‖ count: the count's low byte is byte 15, the
        // top byte of dword 3. Register r of a message holds the counts
        // 2 + 4r … 5 + 4r (Y_1 is count 2).
        let counts = |first: i32| {
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
        };
        let mut s = [[_mm512_setzero_si512(); V]; 4];
        let mut x = [[_mm512_setzero_si512(); V]; 4];
        let mut y0 = _mm512_setzero_si512();
        for (j, lane) in lanes.iter().enumerate() {
            // SAFETY: the mask selects the IV's 12 bytes.
            let iv = unsafe { _mm_maskz_loadu_epi8(0x0fff, lane.iv.as_ptr().cast()) };
            let iv = _mm512_broadcast_i32x4(iv);
            for (r, s) in s[j].iter_mut().enumerate() {
                *s = _mm512_xor_si512(_mm512_or_si512(iv, counts(2 + 4 * r as i32)), k[0]);
            }
            y0 = _mm512_mask_mov_epi32(y0, 0xf << (4 * j), iv);
            let p = lane.buf.as_ptr();
            for (r, x) in x[j].iter_mut().enumerate() {
                // SAFETY: 64r < len (r < V, len > 64(V − 1)): the mask
                // selects bytes 64r .. min(64r + 64, len) of the buffer;
                // masked-off bytes are not accessed.
                *x = unsafe {
                    _mm512_maskz_loadu_epi8(
                        byte_mask(lane.buf.len() - 64 * r),
                        p.wrapping_add(64 * r).cast(),
                    )
                };
            }
        }
        let one = _mm512_broadcast_i32x4(_mm_set_epi32(1 << 24, 0, 0, 0));
        let mut y0 = _mm512_xor_si512(_mm512_or_si512(y0, one), k[0]);

        // FIPS-197's rounds on the 4·V + 1 registers, round by round.
        for key in &k[1..N - 1] {
            for s in s.iter_mut() {
                for s in s.iter_mut() {
                    *s = _mm512_aesenc_epi128(*s, *key);
                }
            }
            y0 = _mm512_aesenc_epi128(y0, *key);
        }
        let ek_y0 = _mm512_aesenclast_epi128(y0, k[N - 1]);

        // The last round XORs the data in (AESENCLAST(s, k ⊕ x) =
        // AESENCLAST(s, k) ⊕ x); the ciphertext, zero past each message's
        // end, byte-reflected for GHASH: `ct[r][j]` is register r of
        // message j.
        let mut ct = [[_mm512_setzero_si512(); 4]; V];
        for (j, lane) in lanes.iter_mut().enumerate() {
            let p = lane.buf.as_mut_ptr();
            for r in 0..V {
                let mask = byte_mask(lane.buf.len() - 64 * r);
                let out = _mm512_aesenclast_epi128(s[j][r], _mm512_xor_si512(k[N - 1], x[j][r]));
                // SAFETY: as for the load.
                unsafe { _mm512_mask_storeu_epi8(p.wrapping_add(64 * r).cast(), mask, out) };
                let c = if ENCRYPT {
                    _mm512_maskz_mov_epi8(mask, out)
                } else {
                    x[j][r]
                };
                ct[r][j] = _mm512_shuffle_epi8(c, bswap);
            }
        }

        // Block i of every message times H^(c + 1 − i), at entry
        // 31 − c + i; blocks past c are zero in every lane.
        let mut sum = Wide::zero();
        for (r, regs) in ct.iter().enumerate() {
            let blocks = transpose(*regs);
            for (l, d) in blocks.iter().enumerate() {
                let i = 4 * r + l;
                if i < c {
                    sum = sum.xor(mul_wide(*d, broadcast(all, 31 - c + i)));
                }
            }
        }
        // The AAD blocks, zero-padded, times H^(c + 2).
        if a == 1 {
            let mut d = _mm512_setzero_si512();
            for (j, lane) in lanes.iter().enumerate() {
                // SAFETY: the mask selects the AAD's 1 to 16 bytes.
                let block = unsafe {
                    _mm_maskz_loadu_epi8(byte_mask(lane.aad.len()) as u16, lane.aad.as_ptr().cast())
                };
                d = _mm512_mask_broadcast_i32x4(d, 0xf << (4 * j), block);
            }
            sum = sum.xor(mul_wide(
                _mm512_shuffle_epi8(d, bswap),
                broadcast(all, 30 - c),
            ));
        }

        // The lengths blocks, len(A) ‖ len(C) in bits as reflected
        // integers (len(A) the high qword), times H.
        // (Indexed, not `array::map`: that stayed a call, its results
        // stored as 8-byte words and read back wider, which the CPU does
        // not forward.)
        let aad = |j: usize| (lanes[j].aad.len() as i64) << 3;
        let len = |j: usize| (lanes[j].buf.len() as i64) << 3;
        let lengths = _mm512_set_epi64(
            aad(3),
            len(3),
            aad(2),
            len(2),
            aad(1),
            len(1),
            aad(0),
            len(0),
        );
        sum = sum.xor(mul_wide(lengths, broadcast(all, 31)));

        let four_tags = _mm512_xor_si512(_mm512_shuffle_epi8(reduce(sum), bswap), ek_y0);
        // SAFETY: `tags` is four contiguous 16-byte blocks, 64 writable
        // bytes; no alignment needed.
        unsafe { _mm512_storeu_si512(tags.as_mut_ptr().cast(), four_tags) };
    }

    /// Entry `e` of the powers in all four lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn broadcast(all: &[u128; 32], e: usize) -> __m512i {
        // SAFETY: `all[e]` is 16 readable bytes; no alignment needed.
        _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128((&all[e] as *const u128).cast()) })
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
}
