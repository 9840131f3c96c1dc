//! `ni`: AES with the x86-64 AES instructions (AES-NI), eight blocks in
//! flight. Constant-time.
//!
//! # What it computes
//!
//! The AES forward cipher of FIPS-197 §5.1 for 10, 12 or 14 rounds, and
//! GCM's counter mode (incr32, McGrew & Viega §2.3) fused with it so the
//! counter blocks never leave the registers.
//!
//! # The instructions
//!
//! Intel's white paper (S. Gueron, *Intel Advanced Encryption Standard (AES)
//! New Instructions Set*, rev. 3.01, 2012) defines
//!
//! ```text
//! AESENC     state, key = MixColumns(ShiftRows(SubBytes(state))) ^ key   (a middle round)
//! AESENCLAST state, key = ShiftRows(SubBytes(state)) ^ key               (the last round)
//! ```
//!
//! so a block is `x ^ rk[0]`, then `AESENC` with `rk[1] .. rk[rounds-1]`,
//! then `AESENCLAST` with `rk[rounds]` — FIPS-197 Figure 5 one instruction
//! per round. The key schedule is the shared constant-time one
//! ([`KeySchedule`](crate::aes::KeySchedule)); `AESKEYGENASSIST` would
//! save microseconds per key and add a second schedule to check.
//!
//! # Representation
//!
//! An XMM register holds the 16 state bytes in FIPS-197 input order: byte
//! `i` of the block is byte `i` of the register (`_mm_loadu_si128`), which is
//! the layout the instructions expect. The round keys of
//! [`KeySchedule::round_keys`](crate::aes::KeySchedule::round_keys) are
//! in the same order, so they are copied as bytes, no conversion. They are
//! stored as 16-byte-aligned byte arrays, not `__m128i`, so the `zeroize`
//! derive can clear them on drop.
//!
//! # Eight blocks in flight
//!
//! `AESENC` has a latency of about 3–8 cycles and a throughput of one or
//! two per cycle, depending on the core (Intel's optimization manual;
//! Agner Fog's instruction tables). One block is a chain of dependent
//! rounds and would leave the unit idle most of the time; eight independent
//! blocks, each round key loaded once and applied to all eight, keep it
//! busy. Eight states plus a round key fit in the sixteen XMM registers.
//! A batch of fewer than eight blocks (the tail) is padded to eight with
//! zero blocks whose output is discarded: eight independent chains cost at
//! most about twice what one chain does, and a second code path for the
//! tail would cost more to read than it saves.
//!
//! # Counter mode
//!
//! [`ctr32`](crate::aes::BlockCipher::ctr32) is overridden: the low 32
//! bits of the counter are kept in a general-purpose register (one add and
//! one byte swap per block), and each counter block is the fixed first 12
//! bytes with `ctr + i` (big-endian) inserted as the last lane (`PINSRD`,
//! SSE4.1; a byte shuffle plus a 32-bit vector add would do the same). `wrapping_add` on the `u32` is exactly incr32: the
//! count wraps modulo 2^32 and never carries into the first 12 bytes. The
//! keystream is XORed into the data with unaligned loads and stores; a
//! partial last block consumes a whole counter, and `counter` is left at
//! the first unused value.
//!
//! # Storage
//!
//! 15 × 16 = 240 bytes of round keys for AES-256 (176 and 208 used for
//! AES-128 and AES-192), zeroized on drop. No tables.
//!
//! # Constant-time
//!
//! Yes: the S-box is evaluated inside the instruction, which takes the same
//! time for every input, and no branch or address depends on the key or the
//! data — only on the lengths. (Round keys may be loaded into registers and
//! spilled to the stack like any value; they are not cleared from there.)
//!
//! # Capability
//!
//! Needs `aes`, `sse2` and `sse4.1`, detected at run time. [`Ni`] can only
//! be built by [`new`](crate::aes::BlockCipher::new), which returns `None`
//! unless detection succeeded; the private zero-sized token `Cpu` inside it
//! is the proof, and the only way safe code reaches the
//! `#[target_feature]` functions.
//! On other architectures `Ni` is an empty enum that is never available.
//!
//! # Unsafe
//!
//! The `#[target_feature]` functions are `unsafe fn`: calling them is sound
//! only on a CPU with those features, which the token proves. Inside them
//! the only other obligations are the unaligned loads and stores, whose
//! pointers come from in-bounds 16-byte slices. Each `unsafe` block holds
//! at least one such load or store: the register-only intrinsics are
//! safe to call inside a `#[target_feature]` function.

#[cfg(target_arch = "x86_64")]
pub use imp::Ni;
/// The counter blocks and the one-block XOR, for the fused kernels.
#[cfg(target_arch = "x86_64")]
pub(crate) use imp::{
    counter_block, counter_blocks, counter_blocks_from, load_padded, xor_partial, xor_partial_into,
    xor_whole_into,
};

#[cfg(not(target_arch = "x86_64"))]
pub use unsupported::Ni;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m128i, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_and_si128, _mm_cvtsi128_si64,
        _mm_insert_epi32, _mm_loadu_si128, _mm_set_epi32, _mm_set_epi64x, _mm_setzero_si128,
        _mm_storeu_si128, _mm_unpackhi_epi64, _mm_xor_si128,
    };

    use zeroize::{Zeroize, ZeroizeOnDrop};

    use crate::aes::{Block, BlockCipher, KeySchedule};

    /// Blocks in flight.
    const LANES: usize = 8;

    /// Proof that this CPU has AES-NI, SSE2 and SSE4.1: zero-sized, and built
    /// only by [`Cpu::detect`].
    struct Cpu(());

    impl Cpu {
        fn detect() -> Option<Cpu> {
            let ok = std::is_x86_feature_detected!("aes")
                && std::is_x86_feature_detected!("sse2")
                && std::is_x86_feature_detected!("sse4.1");
            ok.then_some(Cpu(()))
        }
    }

    /// Round keys in FIPS-197 byte order, aligned so each is one aligned
    /// 16-byte load.
    #[derive(Zeroize)]
    #[repr(C, align(16))]
    struct RoundKeys([Block; 15]);

    /// AES-NI (x86-64): the round keys in register byte order, and the proof
    /// that this CPU can run them.
    #[derive(Zeroize, ZeroizeOnDrop)]
    pub struct Ni {
        round_keys: RoundKeys,
        rounds: usize,
        #[zeroize(skip)]
        _cpu: Cpu,
    }

    /// One round of the named lanes (`$op` `aesenc` or `aesenclast`) with
    /// the round key at byte offset `$off` of `{keys}`, loaded into `{k}`.
    #[rustfmt::skip] // one instruction per line
    macro_rules! held_round {
        ($op:literal, $off:literal; $($r:ident),+) => {
            concat!(
                "movdqu {k}, xmmword ptr [{keys} + ", $off, "]\n",
                $($op, " {", stringify!($r), "}, {k}\n",)+
            )
        };
    }

    /// [`Ni::encrypt_held`]'s `asm!` for the lanes named (`rN = N`: the
    /// operand and the lane of `$p`): round 0, rounds 1 to 9, two more
    /// unless `$rounds` is 10 and two more again unless it is 12, the
    /// last round with the key at `$last`.
    #[rustfmt::skip] // one instruction per line
    macro_rules! held {
        ($keys:expr, $last:expr, $rounds:expr, $p:expr; $($r:ident = $i:literal),+) => {
            core::arch::asm!(
                "movdqu {k}, xmmword ptr [{keys}]",
                $(concat!("pxor {", stringify!($r), "}, {k}"),)+
                held_round!("aesenc", "16"; $($r),+),
                held_round!("aesenc", "32"; $($r),+),
                held_round!("aesenc", "48"; $($r),+),
                held_round!("aesenc", "64"; $($r),+),
                held_round!("aesenc", "80"; $($r),+),
                held_round!("aesenc", "96"; $($r),+),
                held_round!("aesenc", "112"; $($r),+),
                held_round!("aesenc", "128"; $($r),+),
                held_round!("aesenc", "144"; $($r),+),
                "cmp {rounds}, 10",
                "je 2f",
                held_round!("aesenc", "160"; $($r),+),
                held_round!("aesenc", "176"; $($r),+),
                "cmp {rounds}, 12",
                "je 2f",
                held_round!("aesenc", "192"; $($r),+),
                held_round!("aesenc", "208"; $($r),+),
                "2:",
                "movdqu {k}, xmmword ptr [{last}]",
                $(concat!("aesenclast {", stringify!($r), "}, {k}"),)+
                keys = in(reg) $keys,
                last = in(reg) $last,
                rounds = in(reg) $rounds,
                k = out(xmm_reg) _,
                $($r = inout(xmm_reg) *$p.add($i),)+
                options(nostack, readonly),
            )
        };
    }

    impl Ni {
        /// The round keys in register byte order; `rk[0..=rounds()]` are used.
        pub(crate) fn round_keys(&self) -> &[Block; 15] {
            &self.round_keys.0
        }

        /// 10, 12 or 14.
        pub(crate) fn rounds(&self) -> usize {
            self.rounds
        }

        /// Encrypts `L` states in place (eight, or one for a lone block):
        /// FIPS-197 Figure 5, one round key at a time across all of them so
        /// their rounds overlap. The ten rounds every key size has come
        /// with constant round-key indices, then two or four more for
        /// AES-192 and AES-256: straight-line code and two well-predicted
        /// branches, where a loop over `rounds` cost its counter, its
        /// remainder loop and a bounds check per call (about 20
        /// instructions of a 64-byte message's whole-message path).
        ///
        /// # Safety
        ///
        /// The CPU must support AES-NI and SSE2.
        #[inline]
        #[target_feature(enable = "aes,sse2")]
        pub(crate) unsafe fn encrypt<const L: usize>(&self, s: &mut [__m128i; L]) {
            let keys = &self.round_keys.0;
            // SAFETY: every round key is 16 readable bytes; SSE2 is enabled
            // on this function and present per its contract.
            let key = |i: usize| unsafe { _mm_loadu_si128(keys[i].as_ptr().cast()) };
            let k = key(0);
            for x in s.iter_mut() {
                *x = _mm_xor_si128(*x, k);
            }
            let round = |s: &mut [__m128i; L], k: __m128i| {
                for x in s.iter_mut() {
                    *x = _mm_aesenc_si128(*x, k);
                }
            };
            for i in 1..10 {
                round(s, key(i));
            }
            if self.rounds > 10 {
                round(s, key(10));
                round(s, key(11));
            }
            if self.rounds > 12 {
                round(s, key(12));
                round(s, key(13));
            }
            let k = key(self.rounds);
            for x in s.iter_mut() {
                *x = _mm_aesenclast_si128(*x, k);
            }
        }

        /// [`encrypt`](Self::encrypt) as one `asm!` block, the states held
        /// in registers from the first round to the last (`L` at most
        /// nine). From intrinsics, inlined into a function with more to
        /// do after it, the compiler splits the states' live ranges at the
        /// key-size branches and spills one state around each pair of
        /// AES-256's extra rounds: a store and a load on a chain of
        /// rounds whose latency is the whole call's at a few blocks.
        ///
        /// # Safety
        ///
        /// The CPU must support AES-NI and SSE2; `L` is 1 to 9.
        #[inline]
        #[target_feature(enable = "aes,sse2")]
        pub(crate) unsafe fn encrypt_held<const L: usize>(&self, s: &mut [__m128i; L]) {
            let keys = self.round_keys.0.as_ptr();
            let last = self.round_keys.0[self.rounds].as_ptr();
            let rounds = self.rounds;
            let p = s.as_mut_ptr();
            // SAFETY: `keys` holds 15 round keys, of which rounds 0 to
            // `rounds` are read; `last` is round key `rounds`; the lanes
            // named are `p`'s first `L` (each arm's count is `L`).
            unsafe {
                match L {
                    1 => held!(keys, last, rounds, p; r0 = 0),
                    2 => held!(keys, last, rounds, p; r0 = 0, r1 = 1),
                    3 => held!(keys, last, rounds, p; r0 = 0, r1 = 1, r2 = 2),
                    4 => held!(keys, last, rounds, p; r0 = 0, r1 = 1, r2 = 2, r3 = 3),
                    5 => held!(keys, last, rounds, p; r0 = 0, r1 = 1, r2 = 2, r3 = 3, r4 = 4),
                    6 => {
                        held!(keys, last, rounds, p; r0 = 0, r1 = 1, r2 = 2, r3 = 3, r4 = 4, r5 = 5)
                    }
                    7 => held!(
                        keys, last, rounds, p;
                        r0 = 0, r1 = 1, r2 = 2, r3 = 3, r4 = 4, r5 = 5, r6 = 6
                    ),
                    8 => held!(
                        keys, last, rounds, p;
                        r0 = 0, r1 = 1, r2 = 2, r3 = 3, r4 = 4, r5 = 5, r6 = 6, r7 = 7
                    ),
                    9 => held!(
                        keys, last, rounds, p;
                        r0 = 0, r1 = 1, r2 = 2, r3 = 3, r4 = 4, r5 = 5, r6 = 6, r7 = 7, r8 = 8
                    ),
                    _ => unreachable!("one to nine lanes"),
                }
            }
        }

        /// Encrypts `blocks` in place, eight at a time, then the tail padded
        /// to eight; a lone block (E(K, Y_0), H) alone, so that its ten
        /// dependent rounds are all it costs and the core can overlap them
        /// with whatever follows.
        ///
        /// # Safety
        ///
        /// The CPU must support AES-NI and SSE2.
        #[target_feature(enable = "aes,sse2")]
        unsafe fn encrypt_blocks_ni(&self, blocks: &mut [Block]) {
            if let [block] = blocks {
                // SAFETY: `block` is 16 readable and writable bytes; this
                // function's contract (AES-NI and SSE2) is `encrypt`'s.
                unsafe {
                    let mut s = [_mm_loadu_si128(block.as_ptr().cast())];
                    self.encrypt(&mut s);
                    _mm_storeu_si128(block.as_mut_ptr().cast(), s[0]);
                }
                return;
            }
            for batch in blocks.chunks_mut(LANES) {
                // SAFETY: every `block` is 16 readable and writable bytes;
                // this function's contract (AES-NI and SSE2) is `encrypt`'s.
                unsafe {
                    let mut s = [_mm_setzero_si128(); LANES];
                    for (x, block) in s.iter_mut().zip(batch.iter()) {
                        *x = _mm_loadu_si128(block.as_ptr().cast());
                    }
                    self.encrypt(&mut s);
                    for (x, block) in s.iter().zip(batch.iter_mut()) {
                        _mm_storeu_si128(block.as_mut_ptr().cast(), *x);
                    }
                }
            }
        }

        /// Counter mode with incr32, eight counter blocks in flight; the
        /// contract of [`BlockCipher::ctr32`].
        ///
        /// # Safety
        ///
        /// The CPU must support AES-NI, SSE2 and SSE4.1.
        #[target_feature(enable = "aes,sse2,sse4.1")]
        unsafe fn ctr32_ni(&self, counter: &mut Block, data: &mut [u8]) {
            let mut ctr = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
            let mut batches = data.chunks_exact_mut(16 * LANES);
            for batch in &mut batches {
                // SAFETY: this function's features include `counter_blocks`'
                // and `encrypt`'s.
                let mut s = unsafe { counter_blocks::<LANES>(counter, ctr) };
                ctr = ctr.wrapping_add(LANES as u32);
                // SAFETY: as above.
                unsafe { self.encrypt(&mut s) };
                for (x, chunk) in s.iter().zip(batch.chunks_exact_mut(16)) {
                    let p = chunk.as_mut_ptr().cast::<__m128i>();
                    // SAFETY: `chunk` is exactly 16 readable and writable
                    // bytes; SSE2 is present.
                    unsafe { _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), *x)) };
                }
            }
            let tail = batches.into_remainder();
            if !tail.is_empty() {
                // SAFETY: as above.
                let mut s = unsafe { counter_blocks::<LANES>(counter, ctr) };
                // Fewer than eight blocks; a partial last one uses a counter.
                ctr = ctr.wrapping_add(tail.len().div_ceil(16) as u32);
                // SAFETY: as above.
                unsafe { self.encrypt(&mut s) };
                // The keystream stays in registers.
                for (x, chunk) in s.iter().zip(tail.chunks_mut(16)) {
                    xor_block(chunk, *x);
                }
            }
            counter[12..].copy_from_slice(&ctr.to_be_bytes());
        }
    }

    /// `bytes ^= keystream` for a block or less. Returns the input and the
    /// output, each zero-padded to a block: GCM hashes its ciphertext that
    /// way.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) fn xor_block(bytes: &mut [u8], keystream: __m128i) -> (__m128i, __m128i) {
        let p = bytes.as_mut_ptr();
        // SAFETY: `bytes` is readable and writable, in place.
        unsafe { xor_block_into(p, p, bytes.len(), keystream) }
    }

    /// [`xor_block`] for fewer than 16 bytes.
    #[target_feature(enable = "sse2")]
    pub(crate) fn xor_partial(bytes: &mut [u8], keystream: __m128i) -> (__m128i, __m128i) {
        let p = bytes.as_mut_ptr();
        // SAFETY: `bytes` is readable and writable, in place.
        unsafe { xor_partial_into(p, p, bytes.len(), keystream) }
    }

    /// [`xor_block`] from `src` into `dst`, `len` (at most 16) bytes: a
    /// whole block in one load and one store, a partial one by
    /// [`xor_partial_into`].
    ///
    /// # Safety
    ///
    /// `src` is readable and `dst` writable (initialized or not) for `len`
    /// bytes, and the two are the same address or do not overlap.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) unsafe fn xor_block_into(
        src: *const u8,
        dst: *mut u8,
        len: usize,
        keystream: __m128i,
    ) -> (__m128i, __m128i) {
        if len == 16 {
            // SAFETY: 16 readable and writable bytes by the contract.
            unsafe { xor_whole_into(src, dst, keystream) }
        } else {
            // SAFETY: passed on.
            unsafe { xor_partial_into(src, dst, len, keystream) }
        }
    }

    /// [`xor_block_into`] of a whole block: one load, one XOR, one store.
    ///
    /// # Safety
    ///
    /// `src` is readable and `dst` writable for 16 bytes, the same address
    /// or not overlapping.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) unsafe fn xor_whole_into(
        src: *const u8,
        dst: *mut u8,
        keystream: __m128i,
    ) -> (__m128i, __m128i) {
        // SAFETY: 16 readable and writable bytes by the contract; MOVDQU
        // needs no alignment.
        unsafe {
            let input = _mm_loadu_si128(src.cast());
            let output = _mm_xor_si128(input, keystream);
            _mm_storeu_si128(dst.cast(), output);
            (input, output)
        }
    }

    /// [`xor_block_into`] for fewer than 16 bytes, read and written a few
    /// bytes at a time ([`load_padded`], [`store_partial`]): no copy of the
    /// block is left in memory to clear, and there is no call to
    /// `memcpy`, which costs more than the XOR. The output is masked to
    /// the message.
    ///
    /// # Safety
    ///
    /// As for [`xor_block_into`], with `len` < 16.
    #[inline(always)]
    pub(crate) unsafe fn xor_partial_into(
        src: *const u8,
        dst: *mut u8,
        len: usize,
        keystream: __m128i,
    ) -> (__m128i, __m128i) {
        /// The first `len` bytes set: 16 − `len` bytes into a run of 16
        /// set bytes followed by 16 clear ones.
        static RUN: [u8; 32] = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];

        debug_assert!(len < 16);
        // SAFETY: SSE2 is part of x86-64, so every intrinsic here runs;
        // `src` has `len` readable bytes, and the slice is gone before
        // `dst` is written (in place they are the same bytes); the mask
        // load reads RUN[16 − len .. 32 − len], inside `RUN`; `dst` has
        // `len` writable bytes (the contract).
        unsafe {
            let input = load_padded(core::slice::from_raw_parts(src, len));
            let mask = _mm_loadu_si128(RUN[16 - len..].as_ptr().cast());
            let output = _mm_and_si128(_mm_xor_si128(input, keystream), mask);
            store_partial(dst, len, output);
            (input, output)
        }
    }

    /// Up to 16 bytes as a block, zero-padded on the right. Fewer than 16
    /// are read in at most four loads (two of eight, four, two or one
    /// bytes, overlapping where the length is not a power of two), not
    /// copied through a buffer. Branches on the length only.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) fn load_padded(bytes: &[u8]) -> __m128i {
        if let Ok(block) = <&Block>::try_from(bytes) {
            // SAFETY: `block` is 16 readable bytes; MOVDQU needs no alignment.
            return unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
        }
        let (lo, hi) = match bytes.split_first_chunk::<8>() {
            Some((lo, hi)) => (u64::from_le_bytes(*lo), read_up_to_8(hi)),
            None => (read_up_to_8(bytes), 0),
        };
        _mm_set_epi64x(hi as i64, lo as i64)
    }

    /// The first `len` (< 16) bytes of `x` to `dst`, a few at a time as
    /// in [`load_padded`].
    ///
    /// # Safety
    ///
    /// `dst` is writable (initialized or not) for `len` bytes.
    #[inline]
    #[target_feature(enable = "sse2")]
    unsafe fn store_partial(dst: *mut u8, len: usize, x: __m128i) {
        let lo = _mm_cvtsi128_si64(x) as u64;
        // SAFETY: `len` writable bytes, split at 8 where there are more.
        unsafe {
            if len >= 8 {
                dst.cast::<[u8; 8]>().write_unaligned(lo.to_le_bytes());
                let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)) as u64;
                write_up_to_8(dst.add(8), len - 8, hi);
            } else {
                write_up_to_8(dst, len, lo);
            }
        }
    }

    /// At most eight bytes as a little-endian integer: two loads of four
    /// or two bytes, the second overlapping the first (its overlap holds
    /// the same bytes, so OR keeps them).
    #[inline(always)]
    fn read_up_to_8(b: &[u8]) -> u64 {
        let n = b.len();
        debug_assert!(n <= 8);
        if let (Some(first), Some(last)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
            u64::from(u32::from_le_bytes(*first))
                | u64::from(u32::from_le_bytes(*last)) << (8 * (n - 4))
        } else if let (Some(first), Some(last)) = (b.first_chunk::<2>(), b.last_chunk::<2>()) {
            u64::from(u16::from_le_bytes(*first))
                | u64::from(u16::from_le_bytes(*last)) << (8 * (n - 2))
        } else {
            b.first().map_or(0, |&x| u64::from(x))
        }
    }

    /// The low `n` (at most eight) bytes of `x` to `p`, in two overlapping
    /// stores as [`read_up_to_8`] reads them.
    ///
    /// # Safety
    ///
    /// `p` is writable (initialized or not) for `n` bytes.
    #[inline(always)]
    unsafe fn write_up_to_8(p: *mut u8, n: usize, x: u64) {
        debug_assert!(n <= 8);
        // SAFETY: each store lies in the `n` bytes: at 0 and n − 4 (or
        // n − 2) for four (two) bytes when n is at least that.
        unsafe {
            if n >= 4 {
                p.cast::<[u8; 4]>()
                    .write_unaligned((x as u32).to_le_bytes());
                let last = ((x >> (8 * (n - 4))) as u32).to_le_bytes();
                p.add(n - 4).cast::<[u8; 4]>().write_unaligned(last);
            } else if n >= 2 {
                p.cast::<[u8; 2]>()
                    .write_unaligned((x as u16).to_le_bytes());
                let last = ((x >> (8 * (n - 2))) as u16).to_le_bytes();
                p.add(n - 2).cast::<[u8; 2]>().write_unaligned(last);
            } else if n == 1 {
                p.write(x as u8);
            }
        }
    }

    /// The counter block IV ‖ `count` (a 96-bit IV's, the count
    /// big-endian) in a register, made from the IV's bytes by integer
    /// reads. A block assembled in memory from the IV's 12 bytes and a
    /// count byte is several narrow stores, and a 16-byte load of it waits
    /// for them to reach the cache (no store forwarding), on the critical
    /// path of a kernel that reads its first counter block at once
    /// (`ni-clmul`). Store it with one 16-byte write where a `Block` is
    /// needed.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) fn counter_block(iv: &[u8; 12], count: u32) -> __m128i {
        let word = |i: usize| i32::from_ne_bytes([iv[i], iv[i + 1], iv[i + 2], iv[i + 3]]);
        let count = i32::from_ne_bytes(count.to_be_bytes());
        _mm_set_epi32(count, word(8), word(4), word(0))
    }

    /// The `L` counter blocks `counter[..12] || be32(ctr + i)`, i = 0..L,
    /// wrapping modulo 2^32 as incr32 does.
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2 and SSE4.1.
    #[inline]
    #[target_feature(enable = "sse2,sse4.1")]
    pub(crate) unsafe fn counter_blocks<const L: usize>(counter: &Block, ctr: u32) -> [__m128i; L] {
        // SAFETY: `counter` is 16 readable bytes; SSE2 and SSE4.1 are
        // enabled on this function and present per its contract.
        unsafe { counter_blocks_from(_mm_loadu_si128(counter.as_ptr().cast()), ctr) }
    }

    /// [`counter_blocks`] from a counter block in a register (its bytes
    /// 12..16 replaced): with [`counter_block`], a whole message's first
    /// counter blocks straight from its IV.
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2 and SSE4.1.
    #[inline]
    #[target_feature(enable = "sse2,sse4.1")]
    pub(crate) unsafe fn counter_blocks_from<const L: usize>(
        prefix: __m128i,
        ctr: u32,
    ) -> [__m128i; L] {
        let mut s = [prefix; L];
        for (i, x) in s.iter_mut().enumerate() {
            // Lane 3 holds bytes 12..16 in memory order: the big-endian
            // bytes of the count, read back as a native i32.
            let low = i32::from_ne_bytes(ctr.wrapping_add(i as u32).to_be_bytes());
            *x = _mm_insert_epi32(*x, low, 3);
        }
        s
    }

    impl BlockCipher for Ni {
        const NAME: &'static str = "ni";
        const CONSTANT_TIME: bool = true;
        const STORAGE_BYTES: usize = size_of::<RoundKeys>();

        fn is_available() -> bool {
            Cpu::detect().is_some()
        }

        fn new(keys: &KeySchedule) -> Option<Self> {
            let cpu = Cpu::detect()?;
            let mut round_keys = RoundKeys([[0u8; 16]; 15]);
            round_keys.0[..keys.round_keys().len()].copy_from_slice(keys.round_keys());
            Some(Ni {
                round_keys,
                rounds: keys.rounds(),
                _cpu: cpu,
            })
        }

        fn encrypt_blocks(&self, blocks: &mut [Block]) {
            // SAFETY: `self._cpu` exists, so detection found AES-NI and SSE2.
            unsafe { self.encrypt_blocks_ni(blocks) }
        }

        fn ctr32(&self, counter: &mut Block, data: &mut [u8]) {
            // SAFETY: `self._cpu` exists, so detection found AES-NI, SSE2
            // and SSE4.1.
            unsafe { self.ctr32_ni(counter, data) }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The partial-block loads and stores at every length: the block
        /// zero-padded, XORed with the keystream and masked, written back
        /// into exactly its bytes (its neighbours in the buffer untouched).
        #[test]
        fn partial_blocks_at_every_length() {
            let keystream: [u8; 16] = core::array::from_fn(|i| 0x80 | i as u8);
            // SAFETY: 16 readable bytes; SSE2 is x86-64's baseline.
            let ks = unsafe { _mm_loadu_si128(keystream.as_ptr().cast()) };
            let to_bytes = |x: __m128i| {
                let mut b = [0u8; 16];
                // SAFETY: 16 writable bytes; SSE2 is x86-64's baseline.
                unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) };
                b
            };
            for len in 0..=16 {
                let mut buf = [0xeeu8; 40];
                let data: Vec<u8> = (1..=len as u8).collect();
                buf[8..8 + len].copy_from_slice(&data);
                let mut padded = [0u8; 16];
                padded[..len].copy_from_slice(&data);
                // SAFETY: SSE2 is x86-64's baseline.
                let loaded = unsafe { load_padded(&buf[8..8 + len]) };
                assert_eq!(to_bytes(loaded), padded, "load, length {len}");

                // SAFETY: as above.
                let (input, output) = unsafe { xor_block(&mut buf[8..8 + len], ks) };
                let mut want = [0u8; 16];
                for i in 0..len {
                    want[i] = padded[i] ^ keystream[i];
                }
                assert_eq!(to_bytes(input), padded, "input, length {len}");
                assert_eq!(to_bytes(output), want, "output, length {len}");
                assert_eq!(&buf[8..8 + len], &want[..len], "written, length {len}");
                assert!(buf[..8].iter().all(|&b| b == 0xee), "before, length {len}");
                assert!(
                    buf[8 + len..].iter().all(|&b| b == 0xee),
                    "after, length {len}"
                );
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod unsupported {
    unavailable_cipher!(
        /// AES-NI exists only on x86-64: here `Ni` has no values, so it can
        /// never be built and its methods can never run.
        Ni,
        "ni",
        240
    );
}
