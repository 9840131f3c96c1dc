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
pub(crate) use imp::crypt_groups;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m512i, _mm_loadu_si128, _mm_maskz_loadu_epi8, _mm_set_epi32, _mm_set_epi64x,
        _mm512_aesenc_epi128, _mm512_aesenclast_epi128, _mm512_broadcast_i32x4,
        _mm512_mask_broadcast_i32x4, _mm512_mask_mov_epi32, _mm512_mask_storeu_epi8,
        _mm512_maskz_loadu_epi8, _mm512_maskz_mov_epi8, _mm512_set_epi32, _mm512_set_epi64,
        _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_shuffle_i64x2, _mm512_storeu_si512,
        _mm512_xor_si512,
    };
    use core::borrow::BorrowMut;

    use super::super::batch::BatchMessage;
    use crate::aes::Block;
    use crate::aes::vaes::{RoundKeys, broadcast_keys, byte_mask};
    use crate::ghash::vclmul::{Wide, bswap_mask, mul_wide, reduce};

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
        powers: &[u128; 32],
        run: &mut [M],
        uniform: bool,
        encrypt: bool,
        tags: &mut [Block],
    ) {
        let registers = run[0].borrow().buf.len().div_ceil(64);
        // SAFETY: passed on from the caller.
        unsafe {
            match (rounds, encrypt, registers) {
                (10, true, 1) => groups::<M, 11, true, 1>(rk, powers, run, uniform, tags),
                (10, true, _) => groups::<M, 11, true, 2>(rk, powers, run, uniform, tags),
                (10, false, 1) => groups::<M, 11, false, 1>(rk, powers, run, uniform, tags),
                (10, false, _) => groups::<M, 11, false, 2>(rk, powers, run, uniform, tags),
                (12, true, 1) => groups::<M, 13, true, 1>(rk, powers, run, uniform, tags),
                (12, true, _) => groups::<M, 13, true, 2>(rk, powers, run, uniform, tags),
                (12, false, 1) => groups::<M, 13, false, 1>(rk, powers, run, uniform, tags),
                (12, false, _) => groups::<M, 13, false, 2>(rk, powers, run, uniform, tags),
                (_, true, 1) => groups::<M, 15, true, 1>(rk, powers, run, uniform, tags),
                (_, true, _) => groups::<M, 15, true, 2>(rk, powers, run, uniform, tags),
                (_, false, 1) => groups::<M, 15, false, 1>(rk, powers, run, uniform, tags),
                (_, false, _) => groups::<M, 15, false, 2>(rk, powers, run, uniform, tags),
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
    /// (One group at a time, a group's GHASH products and reduction
    /// waited on its last AES round, and the next group's rounds could
    /// not start until the scheduler had room for them: about 100 core
    /// cycles per group where its AES alone is 5·N.)
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
    /// about ten shuffles and inserts on the port the products need: a
    /// batch of 64-byte messages took 3 TSC cycles a message less without
    /// it.)
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

    impl<const V: usize> Keyed<V> {
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn new(k0: __m512i) -> Keyed<V> {
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
        let mask = |m: &BatchMessage<'_>, r: usize| match uniform {
            Some(u) => u.masks[r],
            None => byte_mask(m.buf.len() - 64 * r),
        };
        let bswap = bswap_mask();
        let mut s = [[_mm512_setzero_si512(); V]; 4];
        let mut x = [[_mm512_setzero_si512(); V]; 4];
        let mut y0 = _mm512_setzero_si512();
        let mut aad = _mm512_setzero_si512();
        for (j, m) in group.iter().enumerate() {
            let m = m.borrow();
            // SAFETY: the mask selects the IV's 12 bytes (a group's IVs
            // are 96 bits).
            let iv = unsafe { _mm_maskz_loadu_epi8(0x0fff, m.iv.as_ptr().cast()) };
            let iv = _mm512_broadcast_i32x4(iv);
            for (s, keyed) in s[j].iter_mut().zip(&keyed.blocks) {
                *s = _mm512_xor_si512(iv, *keyed);
            }
            y0 = if j == 0 {
                iv
            } else {
                _mm512_mask_mov_epi32(y0, 0xf << (4 * j), iv)
            };
            let p = m.buf.as_ptr();
            for (r, x) in x[j].iter_mut().enumerate() {
                // SAFETY: 64r < len (r < V, len > 64(V − 1)): the mask
                // selects bytes 64r .. min(64r + 64, len) of the buffer;
                // masked-off bytes are not accessed.
                *x = unsafe { _mm512_maskz_loadu_epi8(mask(m, r), p.wrapping_add(64 * r).cast()) };
            }
            if a == 1 {
                // SAFETY: the mask selects the AAD's 1 to 16 bytes.
                let block = unsafe {
                    _mm_maskz_loadu_epi8(byte_mask(m.aad.len()) as u16, m.aad.as_ptr().cast())
                };
                aad = _mm512_mask_broadcast_i32x4(aad, 0xf << (4 * j), block);
            }
        }
        let mut y0 = _mm512_xor_si512(y0, keyed.y0);

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
        // AESENCLAST(s, k) ⊕ x).
        let mut ct = [[_mm512_setzero_si512(); 4]; V];
        for (j, m) in group.iter_mut().enumerate() {
            let m = m.borrow_mut();
            let p = m.buf.as_mut_ptr();
            for r in 0..V {
                let mask = mask(m, r);
                let out = _mm512_aesenclast_epi128(s[j][r], _mm512_xor_si512(k[N - 1], x[j][r]));
                // SAFETY: as for the load.
                unsafe { _mm512_mask_storeu_epi8(p.wrapping_add(64 * r).cast(), mask, out) };
                // Zero past the end for GHASH, where the end is in this
                // register (a branch on the length, which is public).
                let c = if ENCRYPT && m.buf.len() < 64 * (r + 1) {
                    _mm512_maskz_mov_epi8(mask, out)
                } else if ENCRYPT {
                    out
                } else {
                    x[j][r]
                };
                ct[r][j] = _mm512_shuffle_epi8(c, bswap);
            }
        }
        // (Indexed, not `array::map`: that stayed a call, its results
        // stored as 8-byte words and read back wider, which the CPU does
        // not forward.)
        let aad_bits = |j: usize| (group[j].borrow().aad.len() as i64) << 3;
        let bits = |j: usize| (group[j].borrow().buf.len() as i64) << 3;
        Sealed {
            ct,
            ek_y0,
            aad: if a == 1 {
                _mm512_shuffle_epi8(aad, bswap)
            } else {
                aad
            },
            lengths: match uniform {
                Some(_) => _mm512_setzero_si512(),
                None => _mm512_set_epi64(
                    aad_bits(3),
                    bits(3),
                    aad_bits(2),
                    bits(2),
                    aad_bits(1),
                    bits(1),
                    aad_bits(0),
                    bits(0),
                ),
            },
        }
    }

    /// One group's GHASH, the four tags into `out`.
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
        // Block i of every message times H^(c + 1 − i), at entry
        // 31 − c + i; blocks past c are zero in every lane.
        let mut sum = Wide::zero();
        for (r, regs) in sealed.ct.iter().enumerate() {
            let blocks = transpose(*regs);
            for (l, d) in blocks.iter().enumerate() {
                let i = 4 * r + l;
                if i < c {
                    sum = sum.xor(mul_wide(*d, broadcast(all, 31 - c + i)));
                }
            }
        }
        // The AAD blocks times H^(c + 2), the lengths blocks times H.
        if a == 1 {
            sum = sum.xor(mul_wide(sealed.aad, broadcast(all, 30 - c)));
        }
        sum = sum.xor(match uniform {
            Some(u) => u.lengths_h,
            None => mul_wide(sealed.lengths, broadcast(all, 31)),
        });

        let four_tags =
            _mm512_xor_si512(_mm512_shuffle_epi8(reduce(sum), bswap_mask()), sealed.ek_y0);
        assert_eq!(out.len(), 4);
        // SAFETY: `out` is four contiguous 16-byte blocks, 64 writable
        // bytes; no alignment needed.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), four_tags) };
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
