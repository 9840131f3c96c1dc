//! `armv8`: AES with the ARMv8 Cryptographic Extension (AESE, AESMC),
//! eight blocks in flight. Constant-time.
//!
//! # What it computes
//!
//! The AES forward cipher of FIPS-197 §5.1 for 10, 12 or 14 rounds, and
//! GCM's counter mode (incr32, McGrew & Viega §2.3) with the counter
//! blocks made in registers.
//!
//! # The instructions
//!
//! The Arm Architecture Reference Manual (ARM DDI 0487, FEAT_AES,
//! "AESE", "AESMC") defines
//!
//! ```text
//! AESE  state, key = SubBytes(ShiftRows(state ^ key))
//! AESMC state      = MixColumns(state)
//! ```
//!
//! so the round key is added *before* the substitution, one step earlier
//! than in FIPS-197's round function: a block is `AESMC(AESE(x, rk[i]))`
//! for i = 0 .. rounds − 2, then `AESE(x, rk[rounds − 1]) ^ rk[rounds]` —
//! FIPS-197 Figure 5 with each AddRoundKey moved to the start of the next
//! round. Cores fuse an AESE with the AESMC that consumes it (Arm's
//! software optimization guides for Cortex-A and Neoverse), so each pair is
//! written back to back on one register.
//!
//! # Representation
//!
//! A 128-bit NEON register holds the 16 state bytes in FIPS-197 input
//! order (`vld1q_u8`), the layout AESE expects; the round keys of
//! [`KeySchedule::round_keys`](crate::aes::KeySchedule::round_keys) are in
//! the same order and are copied as bytes. They are kept as byte arrays,
//! not registers, so the `zeroize` derive clears them on drop.
//!
//! # Eight blocks in flight
//!
//! An AESE+AESMC pair takes several cycles to produce its result, and the
//! cores this targets issue one or more pairs every cycle (Arm's Neoverse
//! N1/V1/V2 software optimization guides). One block's rounds are a dependent
//! chain; eight independent blocks, each round key loaded once and
//! applied to all eight, keep the units busy, and eight states plus the
//! round keys fit the thirty-two vector registers. A batch of fewer than
//! eight blocks (the tail) is padded to eight lanes whose extra output is
//! discarded: eight independent chains cost little more than one, and a
//! path per tail length would cost more to read than it saves. A lone
//! block (H, E(K, Y_0)) runs alone.
//!
//! # Counter mode
//!
//! [`ctr32`](crate::aes::BlockCipher::ctr32) is overridden: the low 32
//! bits of the counter live in a general-purpose register, and each
//! counter block is the fixed first 12 bytes with `ctr + i` byte-swapped
//! into lane 3 (`INS`). `wrapping_add` on the `u32` is incr32. A partial
//! last block consumes a whole counter and is XORed through a zeroed
//! 16-byte buffer that is wiped after use, its bytes moved in and out by
//! at most one 8-, 4-, 2- and 1-byte move each (branches on the public
//! length; a copy of a run-time length would call `memcpy`), its output
//! masked past the length, out of line so that a caller's loop keeps its
//! registers.
//!
//! # Storage
//!
//! 15 × 16 = 240 bytes of round keys for AES-256, zeroized on drop.
//!
//! # Constant-time
//!
//! Yes: the S-box is evaluated inside AESE in a fixed time, and no branch
//! or address depends on the key or the data, only on lengths.
//!
//! # Capability
//!
//! Needs `aes` (which in Rust's aarch64 feature set is FEAT_AES together
//! with FEAT_PMULL), detected at run time. [`Armv8`] can only be built by
//! [`new`](crate::aes::BlockCipher::new), which returns `None` unless
//! detection succeeded; the private zero-sized token `Cpu` inside it is the
//! proof. On other architectures `Armv8` is an empty enum that is never
//! available.
//!
//! # Rejected
//!
//! - AESKEYGEN-style schedule with the instructions: a second schedule to
//!   check for microseconds per key; the shared constant-time one is used.
//! - Round key 0 folded into the counter prefix: saves one EOR per block
//!   but AESE already adds the key for free.
//! - Inline assembly for the round sequence: LLVM keeps AESE/AESMC pairs
//!   adjacent and interleaves the eight chains on its own.

#[cfg(target_arch = "aarch64")]
pub use imp::Armv8;
/// The counter blocks and the block XOR, for the fused kernel.
#[cfg(target_arch = "aarch64")]
pub(crate) use imp::{counter_blocks, load_padded, xor_block_into};

#[cfg(not(target_arch = "aarch64"))]
pub use unsupported::Armv8;

#[cfg(target_arch = "aarch64")]
mod imp {
    use core::arch::aarch64::{
        uint8x16_t, vaeseq_u8, vaesmcq_u8, vandq_u8, vcltq_u8, vdupq_n_u8, veorq_u8, vld1q_u8,
        vreinterpretq_u8_u32, vreinterpretq_u32_u8, vsetq_lane_u32, vst1q_u8,
    };

    use zeroize::{Zeroize, ZeroizeOnDrop};

    use crate::aes::{Block, BlockCipher, KeySchedule};

    /// Blocks in flight.
    const LANES: usize = 8;

    /// Proof that this CPU has the AES instructions: zero-sized, built only
    /// by [`Cpu::detect`].
    struct Cpu(());

    impl Cpu {
        fn detect() -> Option<Cpu> {
            std::arch::is_aarch64_feature_detected!("aes").then_some(Cpu(()))
        }
    }

    /// Round keys in FIPS-197 byte order.
    #[derive(Zeroize)]
    #[repr(C, align(16))]
    struct RoundKeys([Block; 15]);

    /// AES with the ARMv8 Cryptographic Extension: the round keys and the
    /// proof that this CPU can run them.
    #[derive(Zeroize, ZeroizeOnDrop)]
    pub struct Armv8 {
        round_keys: RoundKeys,
        rounds: usize,
        #[zeroize(skip)]
        _cpu: Cpu,
    }

    impl Armv8 {
        /// 10, 12 or 14.
        pub(crate) fn rounds(&self) -> usize {
            self.rounds
        }

        /// Round key `i` in a register.
        #[inline]
        #[target_feature(enable = "aes")]
        pub(crate) fn key(&self, i: usize) -> uint8x16_t {
            // SAFETY: a round key is 16 readable bytes.
            unsafe { vld1q_u8(self.round_keys.0[i].as_ptr()) }
        }

        /// One middle round of AES on each of `s` with round key `k`
        /// (AddRoundKey, ShiftRows, SubBytes, MixColumns).
        #[inline]
        #[target_feature(enable = "aes")]
        pub(crate) fn round<const L: usize>(s: &mut [uint8x16_t; L], k: uint8x16_t) {
            for x in s.iter_mut() {
                *x = vaesmcq_u8(vaeseq_u8(*x, k));
            }
        }

        /// The last two round keys on each of `s`: AESE with
        /// `rk[rounds − 1]` (no MixColumns), then `rk[rounds]` added.
        #[inline]
        #[target_feature(enable = "aes")]
        fn last<const L: usize>(&self, s: &mut [uint8x16_t; L]) {
            let (k, kl) = (self.key(self.rounds - 1), self.key(self.rounds));
            for x in s.iter_mut() {
                *x = veorq_u8(vaeseq_u8(*x, k), kl);
            }
        }

        /// The last round short of its key: AESE with `rk[rounds − 1]`
        /// (no MixColumns); `rk[rounds]` is left for the caller to add
        /// (with the data, in one three-way XOR where it has EOR3).
        #[inline]
        #[target_feature(enable = "aes")]
        pub(crate) fn last_without_key<const L: usize>(&self, s: &mut [uint8x16_t; L]) {
            let k = self.key(self.rounds - 1);
            for x in s.iter_mut() {
                *x = vaeseq_u8(*x, k);
            }
        }

        /// Encrypts `L` states in place, one round key at a time across
        /// all of them: the nine rounds every key size has first, then two
        /// or four more for AES-192 and AES-256.
        #[inline]
        #[target_feature(enable = "aes")]
        pub(crate) fn encrypt<const L: usize>(&self, s: &mut [uint8x16_t; L]) {
            for i in 0..9 {
                Self::round(s, self.key(i));
            }
            if self.rounds > 10 {
                Self::round(s, self.key(9));
                Self::round(s, self.key(10));
            }
            if self.rounds > 12 {
                Self::round(s, self.key(11));
                Self::round(s, self.key(12));
            }
            self.last(s);
        }

        /// Encrypts `blocks` in place, eight at a time, then the rest.
        #[target_feature(enable = "aes")]
        fn encrypt_blocks_armv8(&self, blocks: &mut [Block]) {
            let mut batches = blocks.chunks_exact_mut(LANES);
            for batch in &mut batches {
                // SAFETY: every block is 16 readable and writable bytes.
                unsafe {
                    let mut s: [uint8x16_t; LANES] =
                        core::array::from_fn(|j| vld1q_u8(batch[j].as_ptr()));
                    self.encrypt(&mut s);
                    for (x, block) in s.iter().zip(batch.iter_mut()) {
                        vst1q_u8(block.as_mut_ptr(), *x);
                    }
                }
            }
            let tail = batches.into_remainder();
            if let [block] = tail {
                // A lone block (E(K, 0^128), E(K, Y_0)): one chain.
                // SAFETY: `block` is 16 readable and writable bytes.
                unsafe {
                    let mut s = [vld1q_u8(block.as_ptr())];
                    self.encrypt(&mut s);
                    vst1q_u8(block.as_mut_ptr(), s[0]);
                }
            } else if !tail.is_empty() {
                let mut s = [vdupq_n_u8(0); LANES];
                for (x, block) in s.iter_mut().zip(tail.iter()) {
                    // SAFETY: `block` is 16 readable bytes.
                    *x = unsafe { vld1q_u8(block.as_ptr()) };
                }
                self.encrypt(&mut s);
                for (x, block) in s.iter().zip(tail.iter_mut()) {
                    // SAFETY: `block` is 16 writable bytes.
                    unsafe { vst1q_u8(block.as_mut_ptr(), *x) };
                }
            }
        }

        /// Counter mode with incr32, eight counter blocks in flight; the
        /// contract of [`BlockCipher::ctr32`].
        #[target_feature(enable = "aes")]
        fn ctr32_armv8(&self, counter: &mut Block, data: &mut [u8]) {
            // SAFETY: `counter` is 16 readable bytes.
            let prefix = unsafe { vld1q_u8(counter.as_ptr()) };
            let mut ctr = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
            let mut batches = data.chunks_exact_mut(16 * LANES);
            for batch in &mut batches {
                let mut s = counter_blocks::<LANES>(prefix, ctr);
                ctr = ctr.wrapping_add(LANES as u32);
                self.encrypt(&mut s);
                for (x, chunk) in s.iter().zip(batch.chunks_exact_mut(16)) {
                    let p = chunk.as_mut_ptr();
                    // SAFETY: `chunk` is exactly 16 readable and writable bytes.
                    unsafe { vst1q_u8(p, veorq_u8(vld1q_u8(p), *x)) };
                }
            }
            let tail = batches.into_remainder();
            if !tail.is_empty() {
                // Fewer than eight blocks, side by side; a partial last
                // one uses a counter.
                let mut s = counter_blocks::<LANES>(prefix, ctr);
                ctr = ctr.wrapping_add(tail.len().div_ceil(16) as u32);
                self.encrypt(&mut s);
                for (x, chunk) in s.iter().zip(tail.chunks_mut(16)) {
                    let p = chunk.as_mut_ptr();
                    // SAFETY: `chunk` is readable and writable for its length.
                    unsafe { xor_block_into(p, p, chunk.len(), *x) };
                }
            }
            counter[12..].copy_from_slice(&ctr.to_be_bytes());
        }
    }

    /// The `L` counter blocks `prefix[..12] || be32(ctr + i)`, i = 0..L,
    /// wrapping modulo 2^32 as incr32 does.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn counter_blocks<const L: usize>(prefix: uint8x16_t, ctr: u32) -> [uint8x16_t; L] {
        let words = vreinterpretq_u32_u8(prefix);
        core::array::from_fn(|i| {
            // Lane 3 is bytes 12..16 in memory order: the big-endian
            // count read back as a native word.
            let low = ctr.wrapping_add(i as u32).to_be();
            vreinterpretq_u8_u32(vsetq_lane_u32::<3>(low, words))
        })
    }

    /// Up to 16 bytes as a block, zero-padded on the right, through a
    /// zeroed buffer that is wiped after the load.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn load_padded(bytes: &[u8]) -> uint8x16_t {
        if let Ok(block) = <&Block>::try_from(bytes) {
            // SAFETY: `block` is 16 readable bytes.
            return unsafe { vld1q_u8(block.as_ptr()) };
        }
        let mut buf = [0u8; 16];
        debug_assert!(bytes.len() < 16);
        // SAFETY: `bytes` is `len` < 16 readable bytes, `buf` 16
        // writable ones.
        unsafe { copy_short(bytes.as_ptr(), buf.as_mut_ptr(), bytes.len()) };
        // SAFETY: `buf` is 16 readable bytes.
        let x = unsafe { vld1q_u8(buf.as_ptr()) };
        buf.zeroize();
        x
    }

    /// Byte i is i: which lanes lie below a length.
    const LANE_INDEX: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

    /// Copies `len` < 16 bytes as at most one 8-, 4-, 2- and 1-byte move
    /// each (branches on the length), where a copy of a length known
    /// only at run time would call the C library's `memcpy`.
    ///
    /// # Safety
    ///
    /// `src` readable and `dst` writable for `len` bytes, not
    /// overlapping.
    #[inline(always)]
    unsafe fn copy_short(src: *const u8, dst: *mut u8, len: usize) {
        debug_assert!(len < 16);
        let mut at = 0;
        // SAFETY: each move lies below `len` (the contract); unaligned
        // reads and writes.
        unsafe {
            if len & 8 != 0 {
                dst.cast::<u64>()
                    .write_unaligned(src.cast::<u64>().read_unaligned());
                at = 8;
            }
            if len & 4 != 0 {
                let (s, d) = (src.add(at), dst.add(at));
                d.cast::<u32>()
                    .write_unaligned(s.cast::<u32>().read_unaligned());
                at += 4;
            }
            if len & 2 != 0 {
                let (s, d) = (src.add(at), dst.add(at));
                d.cast::<u16>()
                    .write_unaligned(s.cast::<u16>().read_unaligned());
                at += 2;
            }
            if len & 1 != 0 {
                *dst.add(at) = *src.add(at);
            }
        }
    }

    /// `dst = src ^ keystream` for `len` (at most 16) bytes. Returns the
    /// input and the output, each zero-padded to a block (GCM hashes its
    /// ciphertext that way).
    ///
    /// # Safety
    ///
    /// `src` is readable and `dst` writable (initialized or not) for
    /// `len` bytes, the same address or not overlapping.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) unsafe fn xor_block_into(
        src: *const u8,
        dst: *mut u8,
        len: usize,
        keystream: uint8x16_t,
    ) -> (uint8x16_t, uint8x16_t) {
        if len == 16 {
            // SAFETY: 16 readable and writable bytes by the contract.
            unsafe {
                let input = vld1q_u8(src);
                let output = veorq_u8(input, keystream);
                vst1q_u8(dst, output);
                return (input, output);
            }
        }
        // SAFETY: passed on.
        unsafe { xor_partial_into(src, dst, len, keystream) }
    }

    /// [`xor_block_into`] for `len` < 16 bytes, out of line: a caller's
    /// loop over whole blocks keeps its registers.
    ///
    /// # Safety
    ///
    /// As for [`xor_block_into`].
    #[inline(never)]
    #[target_feature(enable = "aes")]
    unsafe fn xor_partial_into(
        src: *const u8,
        dst: *mut u8,
        len: usize,
        keystream: uint8x16_t,
    ) -> (uint8x16_t, uint8x16_t) {
        debug_assert!(len < 16);
        let mut buf = [0u8; 16];
        // SAFETY: `len` readable bytes from `src`, into a 16-byte buffer.
        unsafe { copy_short(src, buf.as_mut_ptr(), len) };
        // SAFETY: `buf` and `LANE_INDEX` are 16 readable and writable
        // bytes.
        let (input, output) = unsafe {
            let input = vld1q_u8(buf.as_ptr());
            // Lanes `len` and up cleared: the output zero-padded.
            let inside = vcltq_u8(vld1q_u8(LANE_INDEX.as_ptr()), vdupq_n_u8(len as u8));
            let output = vandq_u8(veorq_u8(input, keystream), inside);
            vst1q_u8(buf.as_mut_ptr(), output);
            (input, output)
        };
        // SAFETY: `len` writable bytes at `dst`; `buf` is a local.
        unsafe { copy_short(buf.as_ptr(), dst, len) };
        buf.zeroize();
        (input, output)
    }

    impl BlockCipher for Armv8 {
        const NAME: &'static str = "armv8";
        const CONSTANT_TIME: bool = true;
        const STORAGE_BYTES: usize = size_of::<RoundKeys>();

        fn is_available() -> bool {
            Cpu::detect().is_some()
        }

        fn new(keys: &KeySchedule) -> Option<Self> {
            let cpu = Cpu::detect()?;
            let mut round_keys = RoundKeys([[0u8; 16]; 15]);
            round_keys.0[..keys.round_keys().len()].copy_from_slice(keys.round_keys());
            Some(Armv8 {
                round_keys,
                rounds: keys.rounds(),
                _cpu: cpu,
            })
        }

        fn encrypt_blocks(&self, blocks: &mut [Block]) {
            // SAFETY: `self._cpu` exists, so detection found the AES
            // instructions.
            unsafe { self.encrypt_blocks_armv8(blocks) }
        }

        fn ctr32(&self, counter: &mut Block, data: &mut [u8]) {
            // SAFETY: as in `encrypt_blocks`.
            unsafe { self.ctr32_armv8(counter, data) }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use core::arch::aarch64::vgetq_lane_u32;

        /// The partial-block XOR at every length: input and output
        /// zero-padded, exactly `len` bytes written.
        #[test]
        fn partial_blocks_at_every_length() {
            if Cpu::detect().is_none() {
                crate::skip(format_args!(
                    "armv8: AES instructions not available on this CPU"
                ));
                return;
            }
            let keystream: [u8; 16] = core::array::from_fn(|i| 0x80 | i as u8);
            for len in 0..=16 {
                let mut buf = [0xeeu8; 40];
                let data: Vec<u8> = (1..=len as u8).collect();
                buf[8..8 + len].copy_from_slice(&data);
                let mut want_in = [0u8; 16];
                want_in[..len].copy_from_slice(&data);
                let mut want_out = [0u8; 16];
                for i in 0..len {
                    want_out[i] = data[i] ^ keystream[i];
                }
                let p = buf[8..].as_mut_ptr();
                let (mut got_in, mut got_out) = ([0u8; 16], [0u8; 16]);
                // SAFETY: the CPU has AES (checked above); `p` is `len`
                // readable and writable bytes inside `buf`.
                unsafe {
                    let ks = vld1q_u8(keystream.as_ptr());
                    let (i, o) = xor_block_into(p, p, len, ks);
                    vst1q_u8(got_in.as_mut_ptr(), i);
                    vst1q_u8(got_out.as_mut_ptr(), o);
                    let loaded = load_padded(&buf[8..8 + len]);
                    let mut l = [0u8; 16];
                    vst1q_u8(l.as_mut_ptr(), loaded);
                    assert_eq!(l[..len], want_out[..len], "load, length {len}");
                    assert!(l[len..].iter().all(|&b| b == 0), "load pad, length {len}");
                }
                assert_eq!(got_in, want_in, "input, length {len}");
                assert_eq!(got_out, want_out, "output, length {len}");
                assert_eq!(&buf[8..8 + len], &want_out[..len], "written, length {len}");
                assert!(buf[..8].iter().all(|&b| b == 0xee), "before, length {len}");
                assert!(
                    buf[8 + len..].iter().all(|&b| b == 0xee),
                    "after, length {len}"
                );
            }
        }

        /// Counter blocks carry the count big-endian in bytes 12..16 and
        /// wrap modulo 2^32 without touching bytes 0..12.
        #[test]
        fn counter_blocks_wrap_in_the_low_word() {
            if Cpu::detect().is_none() {
                crate::skip(format_args!(
                    "armv8: AES instructions not available on this CPU"
                ));
                return;
            }
            let prefix: Block = core::array::from_fn(|i| i as u8 + 1);
            // SAFETY: the CPU has AES (checked above).
            unsafe {
                let s = counter_blocks::<3>(vld1q_u8(prefix.as_ptr()), 0xffff_fffe);
                for (i, want) in [0xffff_fffe_u32, 0xffff_ffff, 0].into_iter().enumerate() {
                    let mut b = [0u8; 16];
                    vst1q_u8(b.as_mut_ptr(), s[i]);
                    assert_eq!(b[..12], prefix[..12]);
                    assert_eq!(b[12..], want.to_be_bytes());
                    assert_eq!(
                        u32::from_be(vgetq_lane_u32::<3>(vreinterpretq_u32_u8(s[i]))),
                        want
                    );
                }
            }
        }
    }
}

#[cfg(not(target_arch = "aarch64"))]
mod unsupported {
    unavailable_cipher!(
        /// The ARMv8 AES instructions exist only on aarch64: here `Armv8` has
        /// no values, so it can never be built and its methods never run.
        Armv8,
        "armv8",
        240
    );
}
