//! `vaes`: AES with the vector AES instructions (VAES) on 512-bit
//! registers: four blocks per register, sixteen blocks in flight.
//! Constant-time.
//!
//! # The instructions
//!
//! `VAESENC zmm, zmm, zmm` and `VAESENCLAST` are AES-NI's `AESENC` and
//! `AESENCLAST` (see `ni.rs`) applied to each of the four 128-bit lanes of a
//! 512-bit register with the round key in the same lane. CPU-feature
//! formula: `vaes` ∧ `avx512f` (the 512-bit encoding) ∧ `avx512bw`
//! (`VPSHUFB` on 512 bits and byte-masked loads and stores) ∧ `avx512vl`
//! (the same on narrower registers). Present on Intel since Ice Lake and on
//! AMD since Zen 4.
//!
//! # Representation
//!
//! A lane holds a block in FIPS-197 order, as in `ni`. Round keys are
//! stored once as 16-byte arrays (the FIPS-197 schedule, copied) and
//! broadcast to all four lanes when a call begins (`VBROADCASTI32X4`, one
//! load each); storing them pre-broadcast would take four times the memory
//! for no saving, since the broadcast happens once per call, not per block.
//! The number of round keys is a const generic (11, 13, 15) chosen by one
//! match per call, so the rounds unroll and the keys stay in registers:
//! 15 of the 32 `zmm` registers for AES-256.
//!
//! # Sixteen blocks in flight
//!
//! `VAESENC` on a 512-bit register has a latency of about 4–5 cycles and a
//! throughput of about one per cycle on Zen 4 and Ice Lake (it is split into
//! two 256-bit halves on Zen 4). One register is a dependent chain of rounds
//! and would leave the unit idle; four independent registers, each round key
//! applied to all four before the next, keep it busy, which is sixteen
//! blocks. A tail of fewer than sixteen blocks uses exactly as many
//! registers as it needs (const generic, one to four), the last one loaded
//! and stored with a byte mask, so no padding blocks are encrypted and no
//! scalar loop runs.
//!
//! # Counter mode
//!
//! [`ctr32`](crate::aes::BlockCipher::ctr32) is overridden and builds the
//! counter blocks in registers: the counter block is broadcast to the four
//! lanes and byte-reversed (`VPSHUFB`), which puts its big-endian last
//! word, the 32-bit count, in the lowest dword of each lane as a
//! little-endian integer. Adding [0, 1, 2, 3] to those dwords (`VPADDD`)
//! gives four consecutive counters; adding [4, 4, 4, 4] advances them. A
//! dword add wraps modulo 2^32 and never carries into the next dword, which
//! is exactly incr32: the other twelve bytes never change. Reversing back
//! (`VPSHUFB` again) gives the counter blocks. The count of blocks used,
//! a partial last block included, is added to the stored counter with
//! `u32::wrapping_add`.
//!
//! # Cost
//!
//! Long inputs: one 512-bit `VAESENC` per round and four blocks, the AES
//! unit's throughput. A lone block (E(K, Y_0)) costs the latency of its
//! rounds; it runs on a 128-bit register with AES-NI and is read as two
//! 8-byte words, so that a block the caller has just written with 8-byte
//! stores is forwarded from the store buffer instead of waiting for the
//! cache. Measured figures: the seeds' GCTR tables in `docs/SEEDS.md`.
//!
//! # Storage
//!
//! 15 × 16 = 240 bytes of round keys for AES-256, zeroized on drop.
//!
//! # Constant-time
//!
//! Yes: the S-box is inside the instruction, and no branch or address
//! depends on the key or the data, only on the lengths.
//!
//! # Tried and rejected
//!
//! - A loop over a runtime round count: the keys would be reloaded from
//!   memory every round and the loop cannot unroll.
//! - Padding a tail to sixteen blocks (as `ni` pads to eight): for short
//!   messages the padding costs as much as the message.
//!
//! # Citations
//!
//! FIPS-197; Intel, *Intel 64 and IA-32 Architectures Software Developer's
//! Manual* (VAESENC); E. Biggers, Linux `aes-gcm-avx10-x86_64.S` (the
//! byte-reversed counter with `VPADDD`, broadcast round keys).

#[cfg(target_arch = "x86_64")]
pub use imp::Vaes;
#[cfg(target_arch = "x86_64")]
pub(crate) use imp::{
    RoundKeys, broadcast_keys, byte_mask, counter_blocks, counter_start_from, encrypt, load_block,
};
#[cfg(not(target_arch = "x86_64"))]
pub use unsupported::Vaes;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::{
        __m128i, __m512i, __mmask64, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_loadu_si128,
        _mm_set_epi8, _mm_set_epi32, _mm_set_epi64x, _mm_storeu_si128, _mm_xor_si128,
        _mm512_add_epi32, _mm512_aesenc_epi128, _mm512_aesenclast_epi128, _mm512_broadcast_i32x4,
        _mm512_loadu_si512, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8, _mm512_set_epi32,
        _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_storeu_si512, _mm512_xor_si512,
    };

    use zeroize::{Zeroize, ZeroizeOnDrop};

    use crate::aes::{Block, BlockCipher, KeySchedule};

    /// Proof that this CPU has VAES and AVX-512F/BW/VL: zero-sized, built
    /// only by [`Cpu::detect`].
    struct Cpu(());

    impl Cpu {
        fn detect() -> Option<Cpu> {
            let ok = std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512vl")
                && std::is_x86_feature_detected!("vaes");
            ok.then_some(Cpu(()))
        }
    }

    /// Round keys in FIPS-197 byte order, one 16-byte entry each.
    #[derive(Zeroize)]
    #[repr(C, align(16))]
    pub(crate) struct RoundKeys(pub(crate) [Block; 15]);

    /// VAES on 512-bit registers: the round keys and the proof that this
    /// CPU can run them.
    #[derive(Zeroize, ZeroizeOnDrop)]
    pub struct Vaes {
        round_keys: RoundKeys,
        rounds: usize,
        #[zeroize(skip)]
        _cpu: Cpu,
    }

    impl Vaes {
        /// The round keys, for the fused kernel.
        pub(crate) fn round_keys(&self) -> &RoundKeys {
            &self.round_keys
        }

        /// 10, 12 or 14.
        pub(crate) fn rounds(&self) -> usize {
            self.rounds
        }

        /// [`BlockCipher::encrypt_blocks`] with `N` = rounds + 1 round keys.
        ///
        /// # Safety
        /// The CPU must support VAES and AVX-512F/BW/VL.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes")]
        unsafe fn encrypt_blocks_vaes<const N: usize>(&self, blocks: &mut [Block]) {
            if let [block] = blocks {
                return self.encrypt_one::<N>(block);
            }
            let k = broadcast_keys::<N>(&self.round_keys);
            let mut chunks = blocks.as_flattened_mut().chunks_exact_mut(256);
            for chunk in &mut chunks {
                let mut s = load::<4>(chunk);
                encrypt(&k, &mut s);
                store(chunk, &s);
            }
            let rest = chunks.into_remainder();
            match rest.len().div_ceil(64) {
                0 => {}
                1 => encrypt_tail::<N, 1>(&k, rest),
                2 => encrypt_tail::<N, 2>(&k, rest),
                3 => encrypt_tail::<N, 3>(&k, rest),
                _ => encrypt_tail::<N, 4>(&k, rest),
            }
        }

        /// One block (E(K, Y_0), H) on a 128-bit register: no broadcasts,
        /// and the block is read as two 8-byte words, which the CPU can
        /// forward from the caller's recent stores of those words (a 16-byte
        /// or masked load spanning several smaller stores waits for them to
        /// reach the cache).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,aes")]
        fn encrypt_one<const N: usize>(&self, block: &mut Block) {
            let rk = &self.round_keys.0;
            let key = |i: usize| {
                // SAFETY: `rk[i]` is 16 readable bytes; no alignment needed.
                unsafe { _mm_loadu_si128(rk[i].as_ptr().cast()) }
            };
            let mut x = _mm_xor_si128(load_block(block), key(0));
            for i in 1..N - 1 {
                x = _mm_aesenc_si128(x, key(i));
            }
            x = _mm_aesenclast_si128(x, key(N - 1));
            // SAFETY: `block` is 16 writable bytes; no alignment needed.
            unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), x) };
        }

        /// [`BlockCipher::ctr32`] with `N` = rounds + 1 round keys.
        ///
        /// # Safety
        /// The CPU must support VAES and AVX-512F/BW/VL.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes")]
        unsafe fn ctr32_vaes<const N: usize>(&self, counter: &mut Block, data: &mut [u8]) {
            let k = broadcast_keys::<N>(&self.round_keys);
            let mut ctr = counter_start(counter);
            let mut chunks = data.chunks_exact_mut(256);
            for chunk in &mut chunks {
                let mut s = counter_blocks::<4>(&mut ctr);
                encrypt(&k, &mut s);
                let x = load::<4>(chunk);
                store(chunk, &xor(&s, &x));
            }
            let rest = chunks.into_remainder();
            match rest.len().div_ceil(64) {
                0 => {}
                1 => ctr_tail::<N, 1>(&k, &mut ctr, rest),
                2 => ctr_tail::<N, 2>(&k, &mut ctr, rest),
                3 => ctr_tail::<N, 3>(&k, &mut ctr, rest),
                _ => ctr_tail::<N, 4>(&k, &mut ctr, rest),
            }
            // One counter per block, a partial last one included; the
            // truncation to u32 is the reduction modulo 2^32 incr32 does.
            let used = data.len().div_ceil(16) as u32;
            let low = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
            counter[12..].copy_from_slice(&low.wrapping_add(used).to_be_bytes());
        }
    }

    /// Encrypts a tail of fewer than 256 bytes (whole blocks) in `V`
    /// registers.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes")]
    fn encrypt_tail<const N: usize, const V: usize>(k: &[__m512i; N], rest: &mut [u8]) {
        let mut s = load_masked::<V>(rest);
        encrypt(k, &mut s);
        store_masked(rest, &s);
    }

    /// Counter mode over a tail of fewer than 256 bytes in `V` registers.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes")]
    fn ctr_tail<const N: usize, const V: usize>(
        k: &[__m512i; N],
        ctr: &mut __m512i,
        rest: &mut [u8],
    ) {
        let mut s = counter_blocks::<V>(ctr);
        encrypt(k, &mut s);
        let x = load_masked::<V>(rest);
        store_masked(rest, &xor(&s, &x));
    }

    /// The `N` round keys, each broadcast to the four lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn broadcast_keys<const N: usize>(rk: &RoundKeys) -> [__m512i; N] {
        let mut k = [_mm512_setzero_si512(); N];
        for (x, key) in k.iter_mut().zip(&rk.0) {
            // SAFETY: `key` is 16 readable bytes; the load needs no alignment.
            *x = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(key.as_ptr().cast()) });
        }
        k
    }

    /// FIPS-197 Figure 5 on `V` registers at once: each round key is applied
    /// to every register before the next, so their rounds overlap.
    #[inline]
    #[target_feature(enable = "avx512f,vaes")]
    pub(crate) fn encrypt<const N: usize, const V: usize>(k: &[__m512i; N], s: &mut [__m512i; V]) {
        for x in s.iter_mut() {
            *x = _mm512_xor_si512(*x, k[0]);
        }
        for key in &k[1..N - 1] {
            for x in s.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, *key);
            }
        }
        for x in s.iter_mut() {
            *x = _mm512_aesenclast_epi128(*x, k[N - 1]);
        }
    }

    /// `VPSHUFB` mask reversing the bytes of each lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn reverse_bytes() -> __m512i {
        _mm512_broadcast_i32x4(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ))
    }

    /// A block read as two 8-byte words (see [`Vaes::encrypt_one`]).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) fn load_block(block: &Block) -> __m128i {
        let (lo, hi) = block.split_at(8);
        let word = |b: &[u8]| i64::from_le_bytes(b.try_into().unwrap_or_default());
        _mm_set_epi64x(word(hi), word(lo))
    }

    /// The counter block broadcast to four lanes, byte-reversed (the count
    /// is then the lowest dword of each lane), plus [0, 1, 2, 3].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn counter_start(counter: &Block) -> __m512i {
        counter_start_from(load_block(counter))
    }

    /// [`counter_start`] of a counter block already in a register.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) fn counter_start_from(counter: __m128i) -> __m512i {
        let c = _mm512_broadcast_i32x4(counter);
        let c = _mm512_shuffle_epi8(c, reverse_bytes());
        _mm512_add_epi32(
            c,
            _mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0),
        )
    }

    /// The next 4·`V` counter blocks, in spec byte order, advancing `ctr`.
    /// The dword add wraps modulo 2^32 inside the count: incr32.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) fn counter_blocks<const V: usize>(ctr: &mut __m512i) -> [__m512i; V] {
        let four = _mm512_broadcast_i32x4(_mm_set_epi32(0, 0, 0, 4));
        let mut s = [_mm512_setzero_si512(); V];
        for x in s.iter_mut() {
            *x = _mm512_shuffle_epi8(*ctr, reverse_bytes());
            *ctr = _mm512_add_epi32(*ctr, four);
        }
        s
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn xor<const V: usize>(a: &[__m512i; V], b: &[__m512i; V]) -> [__m512i; V] {
        let mut r = *a;
        for (r, b) in r.iter_mut().zip(b) {
            *r = _mm512_xor_si512(*r, *b);
        }
        r
    }

    /// `V` full registers from `bytes` (at least 64·`V` bytes).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load<const V: usize>(bytes: &[u8]) -> [__m512i; V] {
        assert!(bytes.len() >= 64 * V);
        let mut s = [_mm512_setzero_si512(); V];
        for (j, x) in s.iter_mut().enumerate() {
            // SAFETY: bytes 64j..64j+64 are in `bytes` (asserted above).
            *x = unsafe { _mm512_loadu_si512(bytes.as_ptr().add(64 * j).cast()) };
        }
        s
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store<const V: usize>(bytes: &mut [u8], s: &[__m512i; V]) {
        assert!(bytes.len() >= 64 * V);
        for (j, x) in s.iter().enumerate() {
            // SAFETY: bytes 64j..64j+64 are in `bytes` (asserted above).
            unsafe { _mm512_storeu_si512(bytes.as_mut_ptr().add(64 * j).cast(), *x) };
        }
    }

    /// The byte mask for the first `min(len, 64)` bytes of a register.
    #[inline(always)]
    pub(crate) fn byte_mask(len: usize) -> __mmask64 {
        debug_assert!(len > 0);
        u64::MAX >> (64 - len.min(64))
    }

    /// `V` registers from `bytes`, 64·(`V` − 1) < len ≤ 64·`V`; bytes past
    /// the end read as zero.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn load_masked<const V: usize>(bytes: &[u8]) -> [__m512i; V] {
        assert!(bytes.len() > 64 * (V - 1) && bytes.len() <= 64 * V);
        let mut s = [_mm512_setzero_si512(); V];
        for (j, x) in s.iter_mut().enumerate() {
            let mask = byte_mask(bytes.len() - 64 * j);
            // SAFETY: the mask selects bytes 64j..min(64j + 64, len) of
            // `bytes`, all in bounds; masked-off bytes are not accessed.
            *x = unsafe { _mm512_maskz_loadu_epi8(mask, bytes.as_ptr().add(64 * j).cast()) };
        }
        s
    }

    /// The inverse of [`load_masked`]: bytes past the end are not written.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn store_masked<const V: usize>(bytes: &mut [u8], s: &[__m512i; V]) {
        assert!(bytes.len() > 64 * (V - 1) && bytes.len() <= 64 * V);
        for (j, x) in s.iter().enumerate() {
            let mask = byte_mask(bytes.len() - 64 * j);
            // SAFETY: the mask selects bytes 64j..min(64j + 64, len) of
            // `bytes`, all in bounds; masked-off bytes are not accessed.
            unsafe { _mm512_mask_storeu_epi8(bytes.as_mut_ptr().add(64 * j).cast(), mask, *x) };
        }
    }

    impl BlockCipher for Vaes {
        const NAME: &'static str = "vaes";
        const CONSTANT_TIME: bool = true;
        const STORAGE_BYTES: usize = size_of::<RoundKeys>();

        fn is_available() -> bool {
            Cpu::detect().is_some()
        }

        fn new(keys: &KeySchedule) -> Option<Self> {
            let cpu = Cpu::detect()?;
            let mut round_keys = RoundKeys([[0u8; 16]; 15]);
            round_keys.0[..keys.round_keys().len()].copy_from_slice(keys.round_keys());
            Some(Vaes {
                round_keys,
                rounds: keys.rounds(),
                _cpu: cpu,
            })
        }

        fn encrypt_blocks(&self, blocks: &mut [Block]) {
            // SAFETY: `self._cpu` exists, so detection found the features.
            unsafe {
                match self.rounds {
                    10 => self.encrypt_blocks_vaes::<11>(blocks),
                    12 => self.encrypt_blocks_vaes::<13>(blocks),
                    _ => self.encrypt_blocks_vaes::<15>(blocks),
                }
            }
        }

        fn ctr32(&self, counter: &mut Block, data: &mut [u8]) {
            // SAFETY: `self._cpu` exists, so detection found the features.
            unsafe {
                match self.rounds {
                    10 => self.ctr32_vaes::<11>(counter, data),
                    12 => self.ctr32_vaes::<13>(counter, data),
                    _ => self.ctr32_vaes::<15>(counter, data),
                }
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::aes::table::Table;

        /// ctr32 against the generic keystream over every length up to 300
        /// bytes, with the count about to wrap.
        #[test]
        fn ctr32_matches_generic_and_wraps() {
            let ks = KeySchedule::new(&[7u8; 32]).unwrap();
            let Some(vaes) = Vaes::new(&ks) else {
                crate::skip(format_args!("vaes: VAES/AVX-512 not available on this CPU"));
                return;
            };
            let table = Table::new(&ks).unwrap();
            for start in [0u32, 0xffff_fff0, 0xffff_ffff] {
                for len in 0..300 {
                    let mut c1 = [0xa5u8; 16];
                    c1[12..].copy_from_slice(&start.to_be_bytes());
                    let mut c2 = c1;
                    let mut d1: Vec<u8> = (0..len).map(|i| i as u8).collect();
                    let mut d2 = d1.clone();
                    vaes.ctr32(&mut c1, &mut d1);
                    crate::ctr::apply_keystream(&table, &mut c2, &mut d2);
                    assert_eq!(d1, d2, "start {start:#x} len {len}");
                    assert_eq!(c1, c2, "start {start:#x} len {len}");
                }
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod unsupported {
    unavailable_cipher!(
        /// VAES exists only on x86-64: here `Vaes` has no values.
        Vaes,
        "vaes",
        240
    );
}
