//! `vaes-avx2` multi-buffer: short AES-GCM messages two at a time, one
//! message per 128-bit lane of a 256-bit register, for the batch API
//! ([`super::batch`]) on CPUs without AVX-512 (AMD Zen 3, Intel client
//! cores since Alder Lake).
//!
//! The same method as `multi_avx512.rs` (read its header) with half the
//! lanes: a group of four messages of one shape (3 to 8 blocks, 0 or 1
//! block of associated data, 96-bit IVs) runs as two pairs. In a pair,
//! message j's counter blocks IV_j ‖ 2 … IV_j ‖ c + 1 fill ⌈c/2⌉ registers
//! of its own and the two Y_0 share one register; GHASH is lane-major
//! after a 2 × 2 transpose of 128-bit lanes (`VPERM2I128`), so that block
//! i of both messages meets one broadcast power, H^(c + 1 − i), the AAD
//! blocks H^(c + 2) and the lengths blocks H, and one reduction gives both
//! tags.
//!
//! AVX2 has no byte-masked loads and stores. A message's last register,
//! where the message ends inside it, is read as the 32 bytes that end
//! where the message ends (a message of three blocks or more has them)
//! moved down by a byte shift across the two lanes (`VPERM2I128` and two
//! `VPSHUFB` with index windows from one table), and written back the
//! same way, blended into those 32 bytes, before the whole registers
//! below it; an encryption's ciphertext is zeroed past the end for GHASH
//! with a mask read from a table of 32 ones and 32 zeros. One block of
//! associated data is read as two overlapping integers. (A 32-byte bounce
//! buffer filled by `memcpy` cost a call and a store-forwarding stall a
//! message: forced on an Intel Xeon with AVX-512, 1024 × 64 B with 8 bytes
//! of associated data 34.6 → 28.4 TSC cycles a message, 100 B 52.8 → 45.8.)
//! The number of blocks is a constant of each instance, so the powers are
//! read at fixed offsets (64 B without associated data 28.1 → 25.0).
//!
//! Longer messages stay on the one-message path. A long path was written
//! and measured (chunks of four blocks a message, eight registers under
//! AES, Horner's rule per pair, one reduction per pair and chunk) and not
//! kept: forced on an Intel Xeon with AVX-512 (Sapphire Rapids class),
//! 1500-byte batches 0.76–0.78× the one-message calls, 576 bytes
//! 1.01–1.03× (`aekit bench --suite batch --quick`). Per sixteen blocks
//! it makes 44 carry-less products and eight transposes where the
//! one-message loop makes about 34 products, and sixteen 256-bit
//! registers do not hold its eight states, keys and sums.
//!
//! Constant-time as the one-message paths: the branches and copies depend
//! on lengths only, the products are carry-less multiplications, no table
//! is indexed by secret data (the mask table by the length).

#[cfg(target_arch = "x86_64")]
pub(crate) use imp::crypt_groups;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m128i, __m256i, _mm_loadu_si128, _mm_set_epi64x, _mm256_aesenc_epi128,
        _mm256_aesenclast_epi128, _mm256_and_si256, _mm256_blendv_epi8,
        _mm256_broadcastsi128_si256, _mm256_clmulepi64_epi128, _mm256_loadu_si256, _mm256_or_si256,
        _mm256_permute2x128_si256, _mm256_set_epi32, _mm256_set_epi64x, _mm256_set_m128i,
        _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_shuffle_epi32, _mm256_storeu_si256,
        _mm256_xor_si256,
    };
    use core::borrow::BorrowMut;

    use super::super::batch::BatchMessage;
    use crate::aes::Block;
    use crate::ghash::clmul::FOLD;

    /// Encrypts or decrypts the messages of `run` in place, four at a time
    /// (messages 4g … 4g + 3 are group g, two pairs), and writes their full
    /// tags into `tags`, in order. `keys` are the round keys; `powers` the
    /// twisted H^16 … H^1 (entry e is H^(16 − e)).
    ///
    /// # Safety
    /// The CPU must support AVX2, VAES and VPCLMULQDQ; `rounds` is 10, 12
    /// or 14 and `keys` holds that many round keys and one; `run` is not
    /// empty, its length a multiple of four and `tags`'s; its messages
    /// have 96-bit IVs and one shape of at most eight blocks (see
    /// [`shape`](super::super::kernel::shape)), and one length and
    /// associated-data length if `uniform`.
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    pub(crate) unsafe fn crypt_groups<'a, M: BorrowMut<BatchMessage<'a>>>(
        keys: &[Block; 15],
        rounds: usize,
        powers: &[u128; 32],
        run: &mut [M],
        uniform: bool,
        encrypt: bool,
        tags: &mut [Block],
    ) {
        let blocks = run[0].borrow().buf.len().div_ceil(16);
        // One instance per key size, direction and number of blocks c (3
        // to 8), with V = ⌈c/2⌉ registers a message: every index into the
        // powers and every register count is then a constant.
        macro_rules! by_blocks {
            ($n:literal, $enc:literal) => {
                match blocks {
                    3 => groups::<M, $n, $enc, 2, 3>(keys, powers, run, uniform, tags),
                    4 => groups::<M, $n, $enc, 2, 4>(keys, powers, run, uniform, tags),
                    5 => groups::<M, $n, $enc, 3, 5>(keys, powers, run, uniform, tags),
                    6 => groups::<M, $n, $enc, 3, 6>(keys, powers, run, uniform, tags),
                    7 => groups::<M, $n, $enc, 4, 7>(keys, powers, run, uniform, tags),
                    _ => groups::<M, $n, $enc, 4, 8>(keys, powers, run, uniform, tags),
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

    /// [`crypt_groups`] with `N` round keys, `C` blocks and `V` = ⌈C/2⌉
    /// registers a message.
    ///
    /// # Safety
    /// As [`crypt_groups`]; every message is 16·(`C` − 1) + 1 to 16·`C`
    /// bytes long.
    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    unsafe fn groups<
        'a,
        M: BorrowMut<BatchMessage<'a>>,
        const N: usize,
        const ENCRYPT: bool,
        const V: usize,
        const C: usize,
    >(
        keys: &[Block; 15],
        powers: &[u128; 32],
        run: &mut [M],
        uniform: bool,
        tags: &mut [Block],
    ) {
        debug_assert!(V == C.div_ceil(2) && (3..=8).contains(&C));
        // A run of equal lengths: the lengths blocks' product with H is
        // the same for every pair, made once (as in `multi_avx512`).
        let first = run[0].borrow();
        let lengths_h = uniform.then(|| {
            let (aad_bits, bits) = ((first.aad.len() as i64) << 3, (first.buf.len() as i64) << 3);
            mul_wide(
                _mm256_set_epi64x(aad_bits, bits, aad_bits, bits),
                power(powers, 1),
            )
        });
        let mut k = [_mm256_setzero_si256(); N];
        for (k, key) in k.iter_mut().zip(keys) {
            // SAFETY: `key` is 16 readable bytes; no alignment needed.
            *k = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(key.as_ptr().cast()) });
        }
        for (pair, out) in run.chunks_exact_mut(2).zip(tags.chunks_exact_mut(2)) {
            crypt_pair::<M, N, ENCRYPT, V, C>(&k, powers, lengths_h, pair, out);
        }
    }

    /// Two messages of a group: encrypted or decrypted in place, their
    /// tags into `out`.
    ///
    /// A message's last register, where the message ends inside it, is
    /// read as the 32 bytes that end where the message ends (a message
    /// of three blocks or more is longer than 32 bytes, so they are in
    /// it) shifted down to the register's first byte, and written back as
    /// those 32 bytes with the register's bytes shifted up into place,
    /// before the whole registers below it are written (they overwrite
    /// what the window held of theirs): no bounce buffer, no copy.
    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn crypt_pair<
        'a,
        M: BorrowMut<BatchMessage<'a>>,
        const N: usize,
        const ENCRYPT: bool,
        const V: usize,
        const C: usize,
    >(
        k: &[__m256i; N],
        powers: &[u128; 32],
        lengths_h: Option<Wide>,
        pair: &mut [M],
        out: &mut [Block],
    ) {
        let bswap = bswap_mask();
        let [m0, m1] = pair else {
            unreachable!("a pair");
        };
        let mut msgs = [m0.borrow_mut(), m1.borrow_mut()];
        let aad_blocks = msgs[0].aad.len().div_ceil(16);
        debug_assert!(aad_blocks <= 1);

        // Counter blocks: the IV in both lanes, bytes 12 to 15 zero, round
        // 0 applied, XOR the counts in byte 15 (the top byte of dword 3).
        // The message, register by register (the last one zero past the
        // message's end), and where the last one is partial, the window
        // it is read from and its shift.
        let mut s = [[_mm256_setzero_si256(); V]; 2];
        let mut x = [[_mm256_setzero_si256(); V]; 2];
        let mut window = [None; 2];
        let mut y0 = [_mm256_setzero_si256(); 2];
        for (j, m) in msgs.iter().enumerate() {
            // Read as two integers: copied into a zeroed block and read
            // back as one, the two narrower stores did not forward to the
            // wider load (a stall on every message's first round).
            let (head, tail) = m.iv[..12].split_at(8);
            let head = i64::from_le_bytes(head.try_into().unwrap_or_default());
            let tail = i64::from(u32::from_le_bytes(tail.try_into().unwrap_or_default()));
            let iv = _mm256_broadcastsi128_si256(_mm_set_epi64x(tail, head));
            let iv = _mm256_xor_si256(iv, k[0]);
            for (r, s) in s[j].iter_mut().enumerate() {
                *s = _mm256_xor_si256(iv, counts(2 + 2 * r as i32));
            }
            y0[j] = iv;
            for (r, x) in x[j].iter_mut().enumerate().take(V - 1) {
                *x = load(m.buf, 32 * r);
            }
            let len = m.buf.len();
            let last = 32 * (V - 1);
            x[j][V - 1] = if len - last == 32 {
                load(m.buf, last)
            } else {
                let w = load(m.buf, len - 32);
                let shift = 32 - (len - last);
                window[j] = Some((w, shift));
                shift_down(w, shift)
            };
        }
        // Y_0 = IV_j ‖ 1, lane j from message j.
        let one = _mm256_set_epi32(1 << 24, 0, 0, 0, 1 << 24, 0, 0, 0);
        let mut y0 = _mm256_xor_si256(_mm256_permute2x128_si256::<0x30>(y0[0], y0[1]), one);

        // FIPS-197's rounds on the 2·V + 1 registers, round by round.
        for key in &k[1..N - 1] {
            for s in s.iter_mut() {
                for s in s.iter_mut() {
                    *s = _mm256_aesenc_epi128(*s, *key);
                }
            }
            y0 = _mm256_aesenc_epi128(y0, *key);
        }
        let ek_y0 = _mm256_aesenclast_epi128(y0, k[N - 1]);

        // The last round XORs the data in; the ciphertext, zero past each
        // message's end, byte-reflected: `ct[j][r]`. The partial register
        // first (its window also holds bytes of the register below it).
        let mut ct = [[_mm256_setzero_si256(); V]; 2];
        for (j, m) in msgs.iter_mut().enumerate() {
            for r in (0..V).rev() {
                let o = _mm256_aesenclast_epi128(s[j][r], _mm256_xor_si256(k[N - 1], x[j][r]));
                let c = match window[j] {
                    Some((w, shift)) if r == V - 1 => {
                        // Bytes below `shift` keep the window's contents.
                        let kept = ones_below(shift);
                        let w = _mm256_blendv_epi8(shift_up(o, shift), w, kept);
                        store(m.buf, m.buf.len() - 32, w);
                        if ENCRYPT {
                            _mm256_and_si256(ones_below(32 - shift), o)
                        } else {
                            x[j][r]
                        }
                    }
                    _ => {
                        store(m.buf, 32 * r, o);
                        if ENCRYPT { o } else { x[j][r] }
                    }
                };
                ct[j][r] = _mm256_shuffle_epi8(c, bswap);
            }
        }

        // Block i of both messages times H^(C + 1 − i): register r holds
        // blocks 2r and 2r + 1 of a message; the 2 × 2 transpose puts
        // block 2r of both in one register and 2r + 1 in another.
        let mut sum = Wide::zero();
        let [ct0, ct1] = &ct;
        for (r, (m0, m1)) in ct0.iter().zip(ct1).enumerate() {
            let even = _mm256_permute2x128_si256::<0x20>(*m0, *m1);
            sum = sum.xor(mul_wide(even, power(powers, C + 1 - 2 * r)));
            if 2 * r + 1 < C {
                let odd = _mm256_permute2x128_si256::<0x31>(*m0, *m1);
                sum = sum.xor(mul_wide(odd, power(powers, C - 2 * r)));
            }
        }
        // The AAD blocks times H^(C + 2), the lengths blocks times H.
        if aad_blocks == 1 {
            let d = _mm256_set_m128i(aad_block(msgs[1].aad), aad_block(msgs[0].aad));
            sum = sum.xor(mul_wide(
                _mm256_shuffle_epi8(d, bswap),
                power(powers, C + 2),
            ));
        }
        sum = sum.xor(match lengths_h {
            Some(product) => product,
            None => {
                let bits = |j: usize| (msgs[j].buf.len() as i64) << 3;
                let aad_bits = |j: usize| (msgs[j].aad.len() as i64) << 3;
                let lengths = _mm256_set_epi64x(aad_bits(1), bits(1), aad_bits(0), bits(0));
                mul_wide(lengths, power(powers, 1))
            }
        });

        let two_tags = _mm256_xor_si256(_mm256_shuffle_epi8(reduce(sum), bswap), ek_y0);
        let Some(out) = out.as_flattened_mut().first_chunk_mut::<32>() else {
            unreachable!("two tags");
        };
        // SAFETY: `out` is 32 writable bytes; no alignment needed.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), two_tags) };
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
    /// sides of 0, 1, …, 15. A window of 16 read from 32 + d holds
    /// byte d + i for i < 16 − d; from 16 + d, byte d + i − 16 for i
    /// ≥ 16 − d; from 32 − d, byte i − d for i ≥ d.
    static SHIFT_INDEX: [u8; 80] = {
        let mut t = [0x80u8; 80];
        let mut i = 0;
        while i < 16 {
            t[32 + i] = i as u8;
            i += 1;
        }
        t
    };

    /// A 16-byte window of [`SHIFT_INDEX`] at `at` (at most 64), in both
    /// lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn shift_index(at: usize) -> __m256i {
        let window = &SHIFT_INDEX[at..at + 16];
        // SAFETY: `window` is 16 readable bytes; no alignment needed.
        _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(window.as_ptr().cast()) })
    }

    /// Byte i of the result is byte i + `d` of `w`, zero past 32 − `d`
    /// (d < 32): AVX2 shifts bytes only within a lane, so each lane takes
    /// what it has from itself and the rest from a copy of the upper lane
    /// moved down.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn shift_down(w: __m256i, d: usize) -> __m256i {
        let upper = _mm256_permute2x128_si256::<0x81>(w, w);
        _mm256_or_si256(
            _mm256_shuffle_epi8(w, shift_index(32 + d)),
            _mm256_shuffle_epi8(upper, shift_index(16 + d)),
        )
    }

    /// Byte i ≥ `d` of the result is byte i − `d` of `x` (d < 32; the
    /// bytes below `d` are not defined): [`shift_down`] the other way.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn shift_up(x: __m256i, d: usize) -> __m256i {
        let lower = _mm256_permute2x128_si256::<0x08>(x, x);
        _mm256_or_si256(
            _mm256_shuffle_epi8(x, shift_index(32 - d)),
            _mm256_shuffle_epi8(lower, shift_index(32 - d + 16)),
        )
    }

    /// H^e in both lanes (entry 16 − e of the powers), 1 ≤ e ≤ 16.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn power(powers: &[u128; 32], e: usize) -> __m256i {
        // SAFETY: the entry is 16 readable bytes; no alignment needed.
        _mm256_broadcastsi128_si256(unsafe {
            _mm_loadu_si128((&powers[16 - e] as *const u128).cast())
        })
    }

    /// Counts `first` and `first` + 1 in byte 15 of lanes 0 and 1.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn counts(first: i32) -> __m256i {
        _mm256_set_epi32((first + 1) << 24, 0, 0, 0, first << 24, 0, 0, 0)
    }

    /// Bytes `at` … `at` + 32 of `buf`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(buf: &[u8], at: usize) -> __m256i {
        let Some(bytes) = buf[at..].first_chunk::<32>() else {
            unreachable!("a whole register");
        };
        // SAFETY: `bytes` is 32 readable bytes; no alignment needed.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    }

    /// Writes `x` to bytes `at` … `at` + 32 of `buf`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store(buf: &mut [u8], at: usize, x: __m256i) {
        let Some(bytes) = buf[at..].first_chunk_mut::<32>() else {
            unreachable!("a whole register");
        };
        // SAFETY: `bytes` is 32 writable bytes; no alignment needed.
        unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().cast(), x) }
    }

    /// Ones on the first `n` bytes of a register (n ≤ 32), zeros after.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn ones_below(n: usize) -> __m256i {
        /// 32 ones then 32 zeros: 32 bytes read from 32 − n give n ones.
        static ONES_THEN_ZEROS: [u8; 64] = {
            let mut t = [0u8; 64];
            let mut i = 0;
            while i < 32 {
                t[i] = 0xff;
                i += 1;
            }
            t
        };
        let window = &ONES_THEN_ZEROS[32 - n..64 - n];
        // SAFETY: `window` is 32 readable bytes.
        unsafe { _mm256_loadu_si256(window.as_ptr().cast()) }
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

    /// A lane-wise 256-bit product not yet reduced: LO ⊕ MI·t^64 ⊕ HI·t^128
    /// in each lane (`vclmul`'s `Wide`, on two lanes).
    #[derive(Clone, Copy)]
    struct Wide {
        lo: __m256i,
        mi: __m256i,
        hi: __m256i,
    }

    impl Wide {
        #[inline]
        #[target_feature(enable = "avx2")]
        fn zero() -> Wide {
            let z = _mm256_setzero_si256();
            Wide {
                lo: z,
                mi: z,
                hi: z,
            }
        }

        #[inline]
        #[target_feature(enable = "avx2")]
        fn xor(self, o: Wide) -> Wide {
            Wide {
                lo: _mm256_xor_si256(self.lo, o.lo),
                mi: _mm256_xor_si256(self.mi, o.mi),
                hi: _mm256_xor_si256(self.hi, o.hi),
            }
        }
    }

    /// Schoolbook product, lane by lane (`clmul`'s `mul_wide`).
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq")]
    fn mul_wide(a: __m256i, b: __m256i) -> Wide {
        Wide {
            lo: _mm256_clmulepi64_epi128(a, b, 0x00),
            mi: _mm256_xor_si256(
                _mm256_clmulepi64_epi128(a, b, 0x01),
                _mm256_clmulepi64_epi128(a, b, 0x10),
            ),
            hi: _mm256_clmulepi64_epi128(a, b, 0x11),
        }
    }

    /// Lane-wise Z · t^−128 mod g̃ by two Montgomery folds with `clmul`'s
    /// C = 0xC2 ≪ 56 (`vclmul`'s `reduce`, on two lanes).
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq")]
    fn reduce(z: Wide) -> __m256i {
        let c = _mm256_set_epi64x(FOLD as i64, 0, FOLD as i64, 0);
        let t = _mm256_clmulepi64_epi128(z.lo, c, 0x10);
        let lo = _mm256_shuffle_epi32(z.lo, 0x4e);
        let mi = _mm256_xor_si256(_mm256_xor_si256(z.mi, lo), t);
        let t = _mm256_clmulepi64_epi128(mi, c, 0x10);
        let mi = _mm256_shuffle_epi32(mi, 0x4e);
        _mm256_xor_si256(_mm256_xor_si256(z.hi, mi), t)
    }
}
