//! The fused AES+GHASH kernels, one file per kernel named by its token,
//! and what more than one of them uses.
//!
//! | token | file | type | [`Fused`](super::Fused) | instructions |
//! |---|---|---|---|---|
//! | `vaes-avx512` | `vaes_avx512.rs` | [`VaesAvx512`] | `VaesAvx512` | VAES, VPCLMULQDQ on ZMM (AVX-512F/BW/VL) |
//! | `vaes-avx2` | `vaes_avx2.rs` | [`VaesAvx2`] | `VaesAvx2` | VAES, VPCLMULQDQ on YMM (AVX2), AES-NI, PCLMULQDQ |
//! | `ni-clmul` | `ni_clmul.rs` | [`NiClmul`] | `NiClmul` | AES-NI, PCLMULQDQ on XMM (SSE4.1, SSSE3) |
//! | `aes-pmull` | `aes_pmull.rs` | [`AesPmull`] | `AesPmull` | AArch64 AESE/AESMC, PMULL/PMULL2 (EOR3 where SHA3) |
//!
//! Their companions: the multi-buffer paths of the batch API
//! (`vaes_avx512_multi.rs`, `vaes_avx2_multi.rs`, `Kernel::crypt_groups`)
//! and the consumers of a supplied keystream (`vaes_avx512_supplied.rs`,
//! `ni_clmul_supplied.rs`, `Kernel::crypt_supplied`; the second serves
//! the `clmul` keys of `ni-clmul` and `vaes-avx2`). Each file opens with
//! its specification (features, registers, math, schedule, constant-time
//! argument, citations, rejected ideas); the figures are in
//! `docs/kernels/`, one page per file.
//!
//! Every kernel implements [`Kernel`](crate::gcm::kernel::Kernel) and
//! [`FusedKernel`](crate::gcm::kernel::FusedKernel) (`gcm/kernel.rs`);
//! the carry-less arithmetic is `ghash::clmul`'s (XMM) and
//! `ghash::vclmul`'s (ZMM, and YMM in `vclmul::ymm`). What more than one
//! kernel uses is here, in `shared`: the short whole-message path over an
//! `ni` key and a `clmul` key (`ni-clmul`'s, and `vaes-avx512`'s on
//! Intel), the pairing of stitched batches and their constants (`ni-clmul`,
//! `vaes-avx2`), `end_keystream` (`vaes-avx2`, `vaes-avx512`), and the
//! consumers' `Folder`. [`Short`] is how `AesGcm`'s one-message calls
//! reach the short whole-message path without a kernel op: each kernel
//! that takes it names its keys for a message's length; each kernel's
//! `whole_text` is how they reach its longer whole-message path (and
//! `aes-pmull`'s short one) likewise. No kernel file takes a helper from
//! another;
//! `vaes-avx2` is built on `ni-clmul` (it holds one, whose keys, FACE table
//! and whole-message paths for messages of at most eight blocks it uses,
//! and its supplied-keystream consumer), the one kernel that names another.
//!
//! `aes-pmull` is the AArch64 kernel; it takes nothing from `shared` (its
//! arithmetic is `ghash::pmull`'s, its counter blocks `aes::armv8`'s).
//!
//! Off x86-64 the x86-64 kernel files are compiled out, and off aarch64
//! `aes_pmull.rs`; uninhabited stand-ins (`absent`, `absent_aarch64`)
//! keep the selection code's types the same everywhere.

use core::mem::MaybeUninit;

use crate::aes::Block;
use crate::aes::ni::Ni;
use crate::gcm::kernel::Direction;
use crate::ghash::clmul::Clmul;

#[cfg(target_arch = "aarch64")]
mod aes_pmull;
#[cfg(target_arch = "x86_64")]
mod ni_clmul;
#[cfg(target_arch = "x86_64")]
mod ni_clmul_supplied;
#[cfg(target_arch = "x86_64")]
mod vaes_avx2;
#[cfg(target_arch = "x86_64")]
mod vaes_avx2_multi;
#[cfg(target_arch = "x86_64")]
mod vaes_avx512;
#[cfg(target_arch = "x86_64")]
mod vaes_avx512_multi;
#[cfg(target_arch = "x86_64")]
mod vaes_avx512_supplied;

#[cfg(target_arch = "aarch64")]
pub(crate) use aes_pmull::AesPmull;
#[cfg(target_arch = "x86_64")]
pub(crate) use ni_clmul::NiClmul;
#[cfg(target_arch = "x86_64")]
pub(crate) use vaes_avx2::VaesAvx2;
#[cfg(target_arch = "x86_64")]
pub(crate) use vaes_avx512::VaesAvx512;

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use absent::{NiClmul, VaesAvx2, VaesAvx512};

#[cfg(not(target_arch = "aarch64"))]
pub(crate) use absent_aarch64::AesPmull;

/// The short whole-message path (`shared::short`: at most eight message
/// blocks and eight of associated data) on a fused kernel's `ni` and
/// `clmul` keys, where the kernel takes a message that long there:
/// `ni-clmul` always, `vaes-avx2` up to eight blocks, `vaes-avx512` on
/// Intel up to three.
/// The kernels' own `crypt_whole` go through it, and `AesGcm`'s
/// one-message calls take it before they build a kernel op
/// (`AesGcm::short`), so that a packet-sized message goes from the call's
/// checks to the kernel with no op in memory and no generic layer between.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct Short<'a> {
    aes: &'a Ni,
    ghash: &'a Clmul,
}

// Off x86-64 `Ni` has no values, so neither has `Short`: its methods only
// match on that, and its other field is never read.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
impl Short<'_> {
    /// `data` encrypted or decrypted in place, and its full tag; `None`,
    /// nothing touched, where the message is too long for the path (more
    /// than eight blocks, or more than eight of associated data).
    #[inline(always)]
    pub(crate) fn crypt(
        self,
        iv: &[u8; 12],
        aad: &[u8],
        data: &mut [u8],
        direction: Direction,
    ) -> Option<Block> {
        #[cfg(not(target_arch = "x86_64"))]
        match *self.aes {}
        #[cfg(target_arch = "x86_64")]
        {
            if !shared::takes_short(aad, data) {
                return None;
            }
            let p = data.as_mut_ptr();
            // SAFETY: `self.aes` and `self.ghash` exist, so detection found
            // AES-NI, SSE4.1, PCLMULQDQ and SSSE3; the message has at most
            // eight blocks and at most eight of associated data, as `short`
            // requires; in place, `data` is readable and writable.
            Some(unsafe {
                shared::short(self.aes, self.ghash, iv, aad, p, p, data.len(), direction)
            })
        }
    }

    /// [`crypt`](Self::crypt) from `input` into `out` (of the same
    /// length), in one pass; `None`, nothing written, where the message
    /// is too long for the path.
    #[inline(always)]
    pub(crate) fn crypt_into(
        self,
        iv: &[u8; 12],
        aad: &[u8],
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
    ) -> Option<Block> {
        #[cfg(not(target_arch = "x86_64"))]
        match *self.aes {}
        #[cfg(target_arch = "x86_64")]
        {
            if !shared::takes_short(aad, input) || input.len() != out.len() {
                return None;
            }
            let (src, dst) = (input.as_ptr(), out.as_mut_ptr().cast::<u8>());
            // SAFETY: as in `crypt`; `input` is readable and `out` writable
            // for its length, and a shared and a mutable borrow do not
            // overlap.
            Some(unsafe {
                shared::short(
                    self.aes,
                    self.ghash,
                    iv,
                    aad,
                    src,
                    dst,
                    input.len(),
                    direction,
                )
            })
        }
    }

    /// [`crypt`](Self::crypt) or [`crypt_into`](Self::crypt_into) of
    /// `text`, which is left to the caller's next path where this one
    /// returns `None`.
    #[inline(always)]
    pub(crate) fn crypt_text(
        self,
        iv: &[u8; 12],
        aad: &[u8],
        text: &mut crate::gcm::kernel::Text<'_>,
        direction: Direction,
    ) -> Option<Block> {
        use crate::gcm::kernel::Text;
        match text {
            Text::InPlace(data) => self.crypt(iv, aad, data, direction),
            Text::Into { input, out } => self.crypt_into(iv, aad, input, out, direction),
        }
    }
}

/// Off aarch64 `aes-pmull` is compiled out; this stands in for it, with
/// no values.
#[cfg(not(target_arch = "aarch64"))]
mod absent_aarch64 {
    use crate::aes::armv8::Armv8;
    use crate::aes::{Block, KeySchedule};
    use crate::gcm::kernel::{Direction, FusedKernel, Kernel, Text};
    use crate::ghash::pmull::Pmull;

    /// `aes-pmull`: AESE/AESMC and PMULL, aarch64 only.
    pub(crate) enum AesPmull {}

    impl AesPmull {
        pub(crate) fn whole_text(
            &self,
            _: &[u8; 12],
            _: &[u8],
            _: Text<'_>,
            _: Direction,
        ) -> Block {
            match *self {}
        }
    }

    impl Kernel for AesPmull {
        type Aes = Armv8;
        type Ghash = Pmull;
        fn aes(&self) -> &Armv8 {
            match *self {}
        }
        fn ghash(&self) -> &Pmull {
            match *self {}
        }
    }

    impl FusedKernel for AesPmull {
        const NAME: &'static str = "aes-pmull";
        fn is_available() -> bool {
            false
        }
        fn new(_: &KeySchedule) -> Option<Self> {
            None
        }
    }
}

/// Off x86-64 the kernels are compiled out; these stand in for them, with
/// no values, so that the selection code has the same types everywhere.
#[cfg(not(target_arch = "x86_64"))]
mod absent {
    use super::Short;
    use crate::aes::ni::Ni;
    use crate::aes::vaes::Vaes;
    use crate::aes::{Block, KeySchedule};
    use crate::gcm::kernel::{Direction, FusedKernel, Kernel, Text};
    use crate::ghash::clmul::Clmul;
    use crate::ghash::vclmul::Vclmul;

    /// `ni-clmul`: AES-NI and PCLMULQDQ, x86-64 only.
    pub(crate) enum NiClmul {}
    /// `vaes-avx2`: VAES and VPCLMULQDQ on YMM, x86-64 only.
    pub(crate) enum VaesAvx2 {}
    /// `vaes-avx512`: VAES and VPCLMULQDQ on ZMM, x86-64 only.
    pub(crate) enum VaesAvx512 {}

    impl Kernel for NiClmul {
        type Aes = Ni;
        type Ghash = Clmul;
        fn aes(&self) -> &Ni {
            match *self {}
        }
        fn ghash(&self) -> &Clmul {
            match *self {}
        }
    }

    impl Kernel for VaesAvx2 {
        type Aes = Ni;
        type Ghash = Clmul;
        fn aes(&self) -> &Ni {
            match *self {}
        }
        fn ghash(&self) -> &Clmul {
            match *self {}
        }
    }

    impl Kernel for VaesAvx512 {
        type Aes = Vaes;
        type Ghash = Vclmul;
        fn aes(&self) -> &Vaes {
            match *self {}
        }
        fn ghash(&self) -> &Vclmul {
            match *self {}
        }
    }

    impl NiClmul {
        pub(crate) fn short(&self) -> Short<'_> {
            match *self {}
        }
        pub(crate) fn whole_text(
            &self,
            _: &[u8; 12],
            _: &[u8],
            _: Text<'_>,
            _: Direction,
        ) -> Block {
            match *self {}
        }
    }

    impl VaesAvx2 {
        pub(crate) fn short(&self, _: usize) -> Option<Short<'_>> {
            match *self {}
        }
        pub(crate) fn whole_text(
            &self,
            _: &[u8; 12],
            _: &[u8],
            _: Text<'_>,
            _: Direction,
        ) -> Block {
            match *self {}
        }
    }

    impl VaesAvx512 {
        pub(crate) fn short(&self, _: usize) -> Option<Short<'_>> {
            match *self {}
        }
        pub(crate) fn whole_text(
            &self,
            _: &[u8; 12],
            _: &[u8],
            _: Text<'_>,
            _: Direction,
        ) -> Block {
            match *self {}
        }
    }

    impl FusedKernel for NiClmul {
        const NAME: &'static str = "ni-clmul";
        fn is_available() -> bool {
            false
        }
        fn new(_: &KeySchedule) -> Option<Self> {
            None
        }
    }

    impl FusedKernel for VaesAvx2 {
        const NAME: &'static str = "vaes-avx2";
        fn is_available() -> bool {
            false
        }
        fn new(_: &KeySchedule) -> Option<Self> {
            None
        }
    }

    impl FusedKernel for VaesAvx512 {
        const NAME: &'static str = "vaes-avx512";
        fn is_available() -> bool {
            false
        }
        fn new(_: &KeySchedule) -> Option<Self> {
            None
        }
    }
}

/// What more than one kernel uses (x86-64 only, as the kernels are).
#[cfg(target_arch = "x86_64")]
mod shared {
    use core::arch::x86_64::{
        __m128i, __m256i, _mm_loadu_si128, _mm_set_epi64x, _mm_setzero_si128, _mm_shuffle_epi8,
        _mm_storeu_si128, _mm_xor_si128, _mm256_aesenc_epi128, _mm256_aesenclast_epi128,
        _mm256_broadcastsi128_si256, _mm256_set_m128i, _mm256_xor_si256,
    };

    use zeroize::Zeroize;

    use crate::aes::ni::{self, Ni};
    use crate::aes::{Block, BlockCipher, KeySchedule};
    use crate::gcm::kernel::Direction;
    use crate::ghash::GhashKey;
    use crate::ghash::clmul::{self, Clmul};

    /// What a stitched batch of `ni-clmul` or `vaes-avx2` does with its
    /// products: the GHASH value
    /// joins the first block (`Alone`, `Open`) or the sums come in from the
    /// batch before (`Close`); the sums are reduced into the new GHASH
    /// value (`Alone`, `Close`) or handed on unreduced (`Open`).
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Kind {
        /// One batch, one reduction: times the lower powers.
        Alone,
        /// The first of a pair: times the higher powers, left unreduced.
        Open,
        /// The second of a pair: times the lower powers, added to the
        /// first's sums, one reduction for both.
        Close,
    }

    /// The [`Kind`]s of a loop's hashed batches in turn: in pairs, the odd
    /// one out alone first.
    pub(crate) struct Pairing {
        alone: bool,
        open: bool,
    }

    impl Pairing {
        /// For `hashed` batches.
        pub(crate) fn new(hashed: usize) -> Pairing {
            Pairing {
                alone: hashed % 2 == 1,
                open: false,
            }
        }

        /// The next batch's kind.
        pub(crate) fn next(&mut self) -> Kind {
            if self.alone {
                self.alone = false;
                Kind::Alone
            } else {
                self.open = !self.open;
                if self.open { Kind::Open } else { Kind::Close }
            }
        }

        /// Whether every pair begun was closed.
        pub(crate) fn closed(&self) -> bool {
            !self.open
        }
    }

    /// The byte-reversal mask of PSHUFB (spec byte order ↔ the reflected
    /// integer) and the fold multiplier (0, 0xC2… in the high qword), as
    /// aligned memory operands for the stitched batches of `ni-clmul` and
    /// `vaes-avx2`.
    #[repr(C, align(16))]
    pub(crate) struct Consts(pub(crate) [u8; 32]);

    pub(crate) static CONSTS: Consts = Consts([
        15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, //
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xC2,
    ]);

    /// The full tag from the GHASH value (reflected) and E(K, Y_0).
    #[inline]
    #[target_feature(enable = "ssse3,sse2")]
    pub(crate) fn tag(acc: __m128i, tag_mask: __m128i) -> Block {
        let y = _mm_shuffle_epi8(acc, clmul::byte_reverse_mask());
        let mut tag = [0u8; 16];
        // SAFETY: `tag` is 16 bytes; MOVDQU needs no alignment.
        unsafe { _mm_storeu_si128(tag.as_mut_ptr().cast(), _mm_xor_si128(y, tag_mask)) };
        tag
    }

    /// The `ni` key and the `clmul` key of H = E(K, 0^128): what `ni-clmul`,
    /// `vaes-avx2` and (for the short path) `vaes-avx512` hold.
    /// `None` where the CPU lacks AES-NI or PCLMULQDQ.
    pub(crate) fn ni_clmul_keys(keys: &KeySchedule) -> Option<(Ni, Clmul)> {
        let aes = Ni::new(keys)?;
        let mut h = [[0u8; 16]];
        aes.encrypt_blocks(&mut h);
        let ghash = Clmul::new(&h[0]);
        h.zeroize();
        Some((aes, ghash?))
    }

    /// Whether this CPU is an AMD Zen 3 or Zen 4 (vendor AuthenticAMD,
    /// family 19h), asked once a process: two 256-bit AES pipes and
    /// carry-less units beside them, where `vaes-avx2`'s and
    /// `vaes-avx512`'s one-message paths run some messages faster than
    /// their multi-buffer paths (their `Kernel::lanes_pay`). Zen 5
    /// (family 1Ah) is not measured and counts as not.
    pub(super) fn zen3_or_zen4() -> bool {
        static ANSWER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ANSWER.get_or_init(ask_zen3_or_zen4)
    }

    /// [`zen3_or_zen4`] from CPUID: leaf 0's vendor string, leaf 1's
    /// family (the base family, 0Fh, plus the extended one).
    #[cold]
    #[allow(unused_unsafe)] // `__cpuid` is an unsafe fn before Rust 1.94
    fn ask_zen3_or_zen4() -> bool {
        use core::arch::x86_64::__cpuid;
        // SAFETY: every x86-64 CPU has CPUID, and leaves 0 and 1.
        let (vendor, eax) = unsafe { (__cpuid(0), __cpuid(1).eax) };
        let amd = [vendor.ebx, vendor.edx, vendor.ecx]
            == [*b"Auth", *b"enti", *b"cAMD"].map(u32::from_le_bytes);
        let family = ((eax >> 8) & 0xf) + ((eax >> 20) & 0xff);
        amd && family == 0x19
    }

    /// Whether a message goes through [`short`]: at most eight blocks,
    /// and at most eight of associated data.
    pub(super) fn takes_short(aad: &[u8], data: &[u8]) -> bool {
        data.len().div_ceil(16) <= 8 && aad.len().div_ceil(16) <= 8
    }

    /// A whole message with a 96-bit IV and no `State`: Y_0 … Y_c (c the
    /// message's blocks) go through AES as one batch of c + 1 lanes (E(K,
    /// Y_0) costs no latency of its own, and no lane is encrypted for
    /// nothing), and the associated data's a blocks, the message's c
    /// blocks and the lengths block are each multiplied by their power of
    /// H (H^(a+c+1) for the first, …, H for the lengths block) in
    /// Karatsuba's three products, summed unreduced and reduced once.
    /// Where they are more than the eight powers the `clmul` key holds,
    /// the associated data (at most eight blocks) is hashed and reduced
    /// first, H^a … H^1, and its value multiplied by the power of the first
    /// block hashed after it (as if added to that block, which is what
    /// GHASH does). Partial blocks are read and written a few bytes at a
    /// time (`ni::load_padded`, `ni::xor_block_into`), zero-padded for
    /// GHASH. The message is read from `src` and written to `dst`, `n`
    /// bytes: the same address in place. Returns the full tag.
    ///
    /// Inlined into the caller up to the one call of the message's shape,
    /// [`short_lanes`]: the direction and the lane count are its
    /// constants, one straight-line body per shape, whose message blocks
    /// take constant powers of H and keystream lanes that stay in
    /// registers, and whose frame holds only what that shape uses.
    ///
    /// # Safety
    ///
    /// The CPU must support AES-NI, PCLMULQDQ, SSSE3 and SSE4.1; the
    /// message must have at most eight blocks and a ≤ 8; `src`
    /// must be readable and `dst` writable (initialized or not) for `n`
    /// bytes, the same address or not overlapping.
    #[allow(clippy::too_many_arguments)] // as `short_lanes`
    #[inline(always)]
    pub(super) unsafe fn short(
        aes: &Ni,
        ghash: &Clmul,
        iv: &[u8; 12],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        n: usize,
        direction: Direction,
    ) -> Block {
        let io = (src, dst, n);
        // SAFETY: this function's contract is `short_shape`'s.
        unsafe {
            match direction {
                Direction::Encrypt => short_shape::<true>(aes, ghash, iv, aad, io),
                Direction::Decrypt => short_shape::<false>(aes, ghash, iv, aad, io),
            }
        }
    }

    /// [`short`] for one direction: the call of [`short_lanes`] for the
    /// message's lane count, and its tag as bytes.
    ///
    /// # Safety
    ///
    /// As for [`short`].
    #[inline(always)]
    unsafe fn short_shape<const ENCRYPT: bool>(
        aes: &Ni,
        ghash: &Clmul,
        iv: &[u8; 12],
        aad: &[u8],
        (src, dst, n): (*const u8, *mut u8, usize),
    ) -> Block {
        // SAFETY: as for `short`; L = c + 1 in every arm, as
        // `short_lanes` requires.
        let tag = unsafe {
            match n.div_ceil(16) {
                0 => short_lanes::<1, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
                1 => short_lanes::<2, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
                2 => short_lanes::<3, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
                3 => short_lanes::<4, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
                4 => short_lanes::<5, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
                5 => short_lanes::<6, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
                6 => short_lanes::<7, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
                7 => short_lanes::<8, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
                _ => short_lanes::<9, ENCRYPT>(aes, ghash, iv, aad, src, dst, n),
            }
        };
        let mut block = [0u8; 16];
        // SAFETY: `block` is 16 writable bytes; MOVDQU needs no alignment.
        unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), tag) };
        block
    }

    /// [`short`] for a message of c = `L` − 1 blocks: AES over the `L`
    /// counter blocks Y_0 … Y_c, then the hashed blocks in order. With m =
    /// a + c + 1 hashed blocks, block i is multiplied by H^(m − i),
    /// `powers[m − 1 − i]`: message block j (i = a + j) by `powers[c −
    /// j]`, a constant here, and the lengths block by `powers[0]`.
    ///
    /// # Safety
    ///
    /// As for [`short`], and the message has c = `L` − 1 blocks (the last
    /// one possibly partial).
    ///
    /// The C calling convention, between two Rust functions, so that the
    /// tag comes back in a register (Rust's returns a vector through
    /// memory); no C code calls it.
    #[allow(improper_ctypes_definitions, clippy::too_many_arguments)]
    #[inline(never)]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe extern "C" fn short_lanes<const L: usize, const ENCRYPT: bool>(
        aes: &Ni,
        ghash: &Clmul,
        iv: &[u8; 12],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        n: usize,
    ) -> __m128i {
        let c = L - 1;
        let a = aad.len().div_ceil(16);
        debug_assert!(n.div_ceil(16) == c && a <= 8);
        let powers = ghash.powers();
        let power = |k: usize| {
            debug_assert!(k < 8);
            // SAFETY: every index below is at most a + c ≤ 7 (or, where
            // a + c ≥ 8, at most c ≤ 8 less `after`, which is 1 at c = 8).
            clmul::to_m128(unsafe { *powers.get_unchecked(k) })
        };

        // SAFETY: the features of `counter_blocks_from` and
        // `encrypt_held` are enabled here, and `L` is 1 to 9.
        let s = unsafe {
            let mut lanes = ni::counter_blocks_from::<L>(ni::counter_block(iv, 1), 1);
            aes.encrypt_held(&mut lanes);
            lanes
        };

        let reflect = |x| _mm_shuffle_epi8(x, clmul::byte_reverse_mask());
        // What is hashed is the ciphertext: the output when encrypting,
        // the input when decrypting.
        let ciphertext = |(input, output)| if ENCRYPT { output } else { input };
        let mut sum = clmul::KaratsubaSum::zero();
        // Eight message blocks take H^8 … H^1, and the lengths block is
        // hashed after their reduction, times H again: the key holds no
        // H^9.
        let after = usize::from(c == 8);
        // The associated data in the message's sum where every hashed
        // block has a power of its own: its whole blocks, then the last
        // if partial. Otherwise hashed alone (H^a … H^1, one reduction)
        // and its value multiplied by the power of the block hashed
        // after it, as if added to that block (which is what GHASH does).
        if a + c < 8 {
            let whole = aad.len() / 16;
            for i in 0..whole {
                // SAFETY: block i of the associated data lies in it.
                let x = unsafe { _mm_loadu_si128(aad.as_ptr().add(16 * i).cast()) };
                sum = sum.add(reflect(x), power(a + c - i));
            }
            if whole < a {
                let x = ni::load_padded(&aad[16 * whole..]);
                sum = sum.add(reflect(x), power(c + 1));
            }
        } else if a > 0 {
            // SAFETY: the features `aad_alone` needs are enabled here.
            let prior = unsafe { aad_alone(ghash, aad) };
            sum = sum.add(prior, power(c - after));
        }
        if c > 0 {
            // The c − 1 whole blocks, then the last (whole or partial;
            // the output past the message's end is masked off, so the
            // ciphertext is hashed zero-padded).
            for j in 0..c - 1 {
                // SAFETY: block j, whole, lies in the message (`short`).
                let x = unsafe { ni::xor_whole_into(src.add(16 * j), dst.add(16 * j), s[j + 1]) };
                sum = sum.add(reflect(ciphertext(x)), power(c - j - after));
            }
            let at = 16 * (c - 1);
            // SAFETY: the last n − 16(c − 1) bytes lie in the message.
            // The whole-or-partial choice is spelled out rather than made
            // by `ni::xor_block_into`, which the compiler does not inline
            // here.
            let x = unsafe {
                if n - at == 16 {
                    ni::xor_whole_into(src.add(at), dst.add(at), s[c])
                } else {
                    ni::xor_partial_into(src.add(at), dst.add(at), n - at, s[c])
                }
            };
            sum = sum.add(reflect(ciphertext(x)), power(1 - after));
        }
        // len(A) ‖ len(C) in bits as the reflected integer: len(A) is
        // the high qword. Times H.
        let lengths = _mm_set_epi64x((aad.len() as i64) << 3, (n as i64) << 3);
        if after == 1 {
            let y = clmul::reduce(sum.wide());
            sum = clmul::KaratsubaSum::zero().add(_mm_xor_si128(lengths, y), power(0));
        } else {
            sum = sum.add(lengths, power(0));
        }
        _mm_xor_si128(reflect(clmul::reduce(sum.wide())), s[0])
    }

    /// GHASH of at most eight blocks of associated data alone, each
    /// times its power of H (H^a … H^1), one reduction: [`short_lanes`]
    /// where the associated data does not fit beside the message. Out of
    /// line, so that the usual shapes stay small enough to be inlined.
    ///
    /// # Safety
    ///
    /// The CPU must support PCLMULQDQ, SSSE3 and SSE4.1.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "pclmulqdq,ssse3,sse4.1")]
    unsafe fn aad_alone(ghash: &Clmul, aad: &[u8]) -> __m128i {
        let a = aad.len().div_ceil(16);
        debug_assert!(a <= 8);
        let powers = ghash.powers();
        let mut sum = clmul::KaratsubaSum::zero();
        for (i, chunk) in aad.chunks(16).enumerate() {
            let x = _mm_shuffle_epi8(ni::load_padded(chunk), clmul::byte_reverse_mask());
            sum = sum.add(x, clmul::to_m128(powers[a - 1 - i]));
        }
        clmul::reduce(sum.wide())
    }

    /// A round key in both lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn round_key(key: &Block) -> __m256i {
        // SAFETY: `key` is 16 readable bytes; MOVDQU needs no alignment.
        _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(key.as_ptr().cast()) })
    }

    /// E(K, Y_0) for a 96-bit IV, Y_0 = IV ‖ 0^31 ‖ 1, in lane 0 of `V`
    /// 256-bit registers, then the keystream of `after` blocks from
    /// IV ‖ `next` in the lanes after it (the lanes past them zero
    /// blocks, not counters), for a key of `N` round keys: the end of a long
    /// message in `vaes-avx2` and `vaes-avx512`, made before their loops.
    #[inline]
    #[target_feature(enable = "avx2,vaes")]
    pub(crate) fn end_keystream<const N: usize, const V: usize>(
        keys: &[Block; 15],
        iv: &[u8; 12],
        next: u32,
        after: usize,
    ) -> [__m256i; V] {
        debug_assert!(after < 2 * V);
        // Lane i's counter block (a function, not a closure: the closure
        // was not inlined).
        #[inline]
        #[target_feature(enable = "sse2")]
        fn lane(iv: &[u8; 12], next: u32, after: usize, i: usize) -> __m128i {
            match i {
                0 => ni::counter_block(iv, 1),
                i if i <= after => ni::counter_block(iv, next.wrapping_add(i as u32 - 1)),
                _ => _mm_setzero_si128(),
            }
        }
        let k0 = round_key(&keys[0]);
        let mut s = [k0; V];
        for (r, sr) in s.iter_mut().enumerate() {
            let (lo, hi) = (
                lane(iv, next, after, 2 * r),
                lane(iv, next, after, 2 * r + 1),
            );
            *sr = _mm256_xor_si256(_mm256_set_m128i(hi, lo), k0);
        }
        for key in &keys[1..N - 1] {
            let k = round_key(key);
            for sr in &mut s {
                *sr = _mm256_aesenc_epi128(*sr, k);
            }
        }
        let k = round_key(&keys[N - 1]);
        s.map(|sr| _mm256_aesenclast_epi128(sr, k))
    }

    /// How a consumer kernel (`ni_clmul_supplied`, `vaes_avx512_supplied`) splits the last `groups` of hashed blocks (in
    /// order: the associated data's last blocks, the message's, the lengths
    /// block; none longer than `cap`) into sums of at most `cap` blocks, each
    /// reduced once: greedily, a group that would pass `cap` starting the next
    /// sum. The sizes come packed a byte each, the first in the lowest (a
    /// scalar, not an array: an array indexed at run time was built with
    /// 8-byte stores and read back with a 16-byte load, which the CPU does not
    /// forward).
    pub(crate) fn sums(groups: [usize; 3], cap: usize) -> usize {
        let (mut sizes, mut shift, mut sum) = (0, 0, 0);
        for g in groups.into_iter().filter(|&g| g > 0) {
            debug_assert!(g <= cap);
            if sum + g > cap {
                sizes |= sum << shift;
                (shift, sum) = (shift + 8, 0);
            }
            sum += g;
        }
        sizes | sum << shift
    }

    /// One register width of carry-less arithmetic, as a [`Folder`] sums in
    /// it: a key's powers of H (the type holds them) and the width's product
    /// and reduction (`ghash::clmul` on XMM, `ghash::vclmul` on ZMM).
    ///
    /// # Safety
    ///
    /// Every method needs the CPU features of its width. Implementing the
    /// trait promises that a value of the type is made only where they
    /// were detected (inside a function that requires them), so that
    /// [`Folder`], which holds one, may call the methods.
    pub(crate) unsafe trait Width: Copy {
        /// A register of one or more blocks, each the integer GHASH
        /// multiplies (byte-reversed from spec order).
        type Vector: Copy;
        /// An unreduced sum of products.
        type Wide: Copy;
        /// The powers the key stores, H^`POWERS` … H^1: the most blocks one
        /// sum takes.
        const POWERS: usize;
        /// Bytes one [`load`](Width::load) reads at most.
        const BYTES: usize;

        /// The empty sum.
        ///
        /// # Safety
        /// The CPU must have the width's features.
        unsafe fn zero() -> Self::Wide;

        /// `x` with `acc` added to its first block.
        ///
        /// # Safety
        /// As [`zero`](Width::zero).
        unsafe fn join(x: Self::Vector, acc: __m128i) -> Self::Vector;

        /// `sum` plus the `blocks` blocks of `x` times the stored powers from
        /// entry `at` on (entry e holds H^(`POWERS` − e)).
        ///
        /// # Safety
        /// As [`zero`](Width::zero); `at` + `blocks` ≤ `POWERS`.
        unsafe fn product(
            self,
            sum: Self::Wide,
            x: Self::Vector,
            at: usize,
            blocks: usize,
        ) -> Self::Wide;

        /// The sum reduced to one block (its lanes added).
        ///
        /// # Safety
        /// As [`zero`](Width::zero).
        unsafe fn reduce(sum: Self::Wide) -> __m128i;

        /// `bytes` (at most [`BYTES`](Width::BYTES)) zero-padded to whole
        /// blocks, and how many blocks that is.
        ///
        /// # Safety
        /// As [`zero`](Width::zero).
        unsafe fn load(bytes: &[u8]) -> (Self::Vector, usize);
    }

    /// Products waiting for a reduction: the last blocks of a consumer
    /// kernel's hashed sequence (the associated data's last blocks, the
    /// message's, the lengths block), in order, in sums of at most
    /// `W::POWERS` blocks ([`sums`]). Block j of a sum of T is multiplied by
    /// H^(T−j), the stored power at entry `POWERS` − T + j; the sum is
    /// reduced as its last block comes in, into `acc`, which joins the next
    /// sum's first block.
    pub(crate) struct Folder<W: Width> {
        width: W,
        pub(crate) acc: __m128i,
        sum: W::Wide,
        /// The power entry of the next block; `W::POWERS` once a sum is
        /// complete.
        at: usize,
        /// Whether `acc` has yet to join the current sum.
        fresh: bool,
        /// The sizes of the sums after the current one ([`sums`]).
        sizes: usize,
    }

    impl<W: Width> Folder<W> {
        /// Sums for `groups` of blocks (in order, none over `W::POWERS`),
        /// each group whole in one sum, as few sums as the powers allow.
        #[inline(always)]
        pub(crate) fn new(width: W, acc: __m128i, groups: [usize; 3]) -> Folder<W> {
            let sizes = sums(groups, W::POWERS);
            Folder {
                width,
                acc,
                // SAFETY: `width` exists, so the CPU has its features
                // (`Width`'s contract).
                sum: unsafe { W::zero() },
                at: W::POWERS - (sizes & 0xFF),
                fresh: true,
                sizes: sizes >> 8,
            }
        }

        /// The next `blocks` blocks, in `x` (lanes past them may hold
        /// anything: their powers are read as zero). No more blocks may
        /// come than the groups hold.
        #[inline(always)]
        pub(crate) fn add(&mut self, mut x: W::Vector, blocks: usize) {
            debug_assert!(self.at + blocks <= W::POWERS, "more blocks than the groups");
            // SAFETY: `self.width` exists, so the CPU has its features
            // (`Width`'s contract); a sum of T blocks starts at entry
            // `POWERS` − T and takes its blocks in order, so the entries
            // read end by `POWERS`.
            unsafe {
                if self.fresh {
                    x = W::join(x, self.acc);
                    self.fresh = false;
                }
                self.sum = self.width.product(self.sum, x, self.at, blocks);
                self.at += blocks;
                if self.at == W::POWERS {
                    self.acc = W::reduce(self.sum);
                    self.sum = W::zero();
                    self.fresh = true;
                    self.at = W::POWERS - (self.sizes & 0xFF);
                    self.sizes >>= 8;
                }
            }
        }

        /// `bytes` (fewer than `W::POWERS` blocks), zero-padded to whole
        /// blocks.
        #[inline(always)]
        pub(crate) fn add_bytes(&mut self, bytes: &[u8]) {
            for chunk in bytes.chunks(W::BYTES) {
                // SAFETY: as in `add`.
                let (x, blocks) = unsafe { W::load(chunk) };
                self.add(x, blocks);
            }
        }
    }
}
