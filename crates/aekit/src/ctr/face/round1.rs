//! FACE's first round for the kernels with AES instructions: a table of
//! 256 blocks per key that replaces round 0 and round 1 of every counter
//! block with one load and one XOR. Constant-time.
//!
//! # Why
//!
//! With AES instructions a round is one instruction, and FACE's caches
//! of bytes and columns (`table.rs`, `fixslice.rs`) have nothing to save.
//! But on a core with one 512-bit AES unit (Intel Sapphire Rapids class:
//! `VAESENC zmm` issues on one port) the instructions themselves are the
//! bound: AES-256's fourteen per register of four blocks leave the port
//! no idle cycle in `vaes-avx512`'s main loop. A round that becomes a
//! load and an XOR on the other ports is a fourteenth of that bound.
//!
//! # The math
//!
//! Within a run of 256 counter blocks whose counts differ only in their
//! low byte (byte 15 of the block), round 1 of block c is
//! `AESENC(base ⊕ c·e₁₅ ⊕ rk0, rk1)`, where `base` is the run's block with
//! byte 15 zero. SubBytes acts on each byte and ShiftRows and MixColumns
//! are linear, so with `L` = MixColumns ∘ ShiftRows and `S` the S-box:
//!
//! ```text
//! round1(base ⊕ c·e₁₅) = round1(base) ⊕ L(e₁₅ · (S(c ⊕ rk0₁₅) ⊕ S(rk0₁₅)))
//!                      = round1(base) ⊕ T[c]
//! T[c] = AESENC(c·e₁₅ ⊕ rk0, rk1) ⊕ AESENC(rk0, rk1)
//! ```
//!
//! `T` depends on the key alone (both AESENC terms carry the same rk1,
//! which cancels, and the zero block's other fifteen bytes cancel too);
//! it is built once, here, with AES-NI. A kernel computes `round1(base)`
//! once per run of 256 blocks (one AES round on one register) and the
//! state after round 1 of block c is `round1(base) ⊕ T[c]`. Sixteen
//! consecutive counts within a run are sixteen consecutive entries, so a
//! register of four blocks is one 64-byte load.
//!
//! # Constant time
//!
//! The table's contents are secret; which entries are read depends on the
//! count alone, and the kernels use the table only for a 96-bit IV's
//! counter (IV ‖ count), which is public: the IV travels in the clear and
//! the count is a block index. A longer IV's J0 is GHASH(IV) under H, a
//! function of the key: its counters never index the table.
//!
//! # Layout
//!
//! Four copies of the 256 entries, each 64-byte aligned: copy v holds
//! entry c at index c + v, so whatever count a loop starts at, its sixteen
//! entries start a cache line in one copy ([`Round1::entries`] picks it)
//! and no 64-byte load of them splits one. A whole message's loop starts
//! at count 2 (Y_1 = IV ‖ 2) or, where the kernel first runs the blocks up
//! to the buffer's next 64-byte boundary alone (`vaes-avx512`), at count 3,
//! 4 or 5; with one copy (entry c at index c + 2) either the data's loads
//! and stores or the table's loads would split lines, and a load that
//! splits a line costs two. 16 KiB per key, boxed (a key setup moves the kernel that holds it by value, and
//! would copy the 16 KiB with it), zeroized on drop. `ni-clmul` (16-byte
//! loads) and `vaes-avx2` (32-byte loads, a loop starting at count 2) keep
//! one copy, entry c at index c + 2: 4 KiB.

// Only the fused kernels read the table, and they are x86-64 only.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m128i, _mm_aesenc_si128, _mm_loadu_si128, _mm_set_epi32, _mm_storeu_si128, _mm_xor_si128,
};

use zeroize::Zeroize;

use crate::aes::{Block, KeySchedule};

/// `T` of the module header for one key, in `COPIES` copies (module
/// header, "Layout"): four where a kernel's loop may start at any count
/// and loads 64 bytes at a time (`vaes-avx512`), one where it starts at
/// count 2 or loads at most 32 bytes (`ni-clmul`, `vaes-avx2`). Wiped on
/// drop with [`crate::secret::wipe`], at memset speed: a byte-wise
/// zeroize of the table would cost a key setup more than building it.
pub(crate) struct Round1<const COPIES: usize> {
    /// Copy k holds entry c (count byte c) at index c + [`Self::shift`](k).
    /// Boxed, so that moving the kernel that holds it moves a pointer, not
    /// 16 KiB.
    copies: Box<Copies<COPIES>>,
}

#[repr(C, align(64))]
struct Copies<const COPIES: usize>([[Block; COPY]; COPIES]);

/// Entries per copy: 256 and up to three ahead of them, rounded to whole
/// 64-byte lines (260 × 16 bytes = 65 lines), so that every copy starts on
/// one.
const COPY: usize = 260;

impl<const COPIES: usize> Drop for Round1<COPIES> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<const COPIES: usize> Zeroize for Round1<COPIES> {
    fn zeroize(&mut self) {
        crate::secret::wipe(self.copies.0.as_flattened_mut().as_flattened_mut());
    }
}

impl<const COPIES: usize> Round1<COPIES> {
    /// Where copy `k` holds entry 0: at `k` of four copies, so that one of
    /// them starts a line at every count; a single copy at 2, so that the
    /// whole-message loops, which start at count 2 (Y_1 = IV ‖ 2), start
    /// on one.
    #[cfg(any(target_arch = "x86_64", test))]
    const fn shift(k: usize) -> usize {
        if COPIES == 1 { 2 } else { k }
    }

    /// The table of `keys`, or `None` where the CPU has no AES-NI (every
    /// CPU with the kernels that use it has).
    pub(crate) fn new(keys: &KeySchedule) -> Option<Round1<COPIES>> {
        const { assert!(COPIES == 1 || COPIES == 4) };
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("aes") {
            let layout = std::alloc::Layout::new::<Copies<COPIES>>();
            // SAFETY: `layout` is `Copies`'s, not zero-sized; all zeros is a
            // valid `Copies` (bytes), so the allocation is one, owned by the
            // box. (Allocated in place: built on the stack, 16 KiB would be
            // copied into the box.)
            let copies = unsafe {
                let p = std::alloc::alloc_zeroed(layout).cast::<Copies<COPIES>>();
                if p.is_null() {
                    std::alloc::handle_alloc_error(layout);
                }
                Box::from_raw(p)
            };
            let mut table = Round1 { copies };
            // SAFETY: AES-NI was detected above.
            unsafe { table.fill(keys.round_keys()) };
            return Some(table);
        }
        let _ = keys;
        None
    }

    /// # Safety
    /// The CPU must support AES-NI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "aes")]
    unsafe fn fill(&mut self, rk: &[Block]) {
        let load = |b: &Block| -> __m128i {
            // SAFETY: `b` is 16 readable bytes; no alignment needed.
            unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
        };
        let (k0, k1) = (load(&rk[0]), load(&rk[1]));
        let zero = _mm_aesenc_si128(k0, k1);
        let Some((first, rest)) = self.copies.0.split_first_mut() else {
            unreachable!("one or four copies (`new`)");
        };
        let entries = &mut first[Self::shift(0)..Self::shift(0) + 256];
        for (c, entry) in entries.iter_mut().enumerate() {
            // c in byte 15 (the top byte of dword 3), made in a register.
            let x = _mm_set_epi32((c as i32) << 24, 0, 0, 0);
            let t = _mm_xor_si128(_mm_aesenc_si128(_mm_xor_si128(x, k0), k1), zero);
            // SAFETY: `entry` is 16 writable bytes; no alignment needed.
            unsafe { _mm_storeu_si128(entry.as_mut_ptr().cast(), t) };
        }
        for (k, copy) in rest.iter_mut().enumerate() {
            let at = Self::shift(k + 1);
            copy[at..at + 256].copy_from_slice(entries);
        }
    }

    /// The `n` entries of counts `low` … `low` + `n` − 1, which must share
    /// a run (`low` + `n` ≤ 256), as a pointer for the kernels' vector
    /// loads: from the copy where entry `low` starts a line, if there are
    /// four.
    #[cfg(any(target_arch = "x86_64", test))]
    pub(crate) fn entries(&self, low: u8, n: usize) -> *const Block {
        let low = usize::from(low);
        let k = if COPIES == 1 {
            0
        } else {
            low.wrapping_neg() % 4
        };
        let at = low + Self::shift(k);
        self.copies.0[k][at..at + n].as_ptr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes::schedule::{sub_byte, xtime};

    /// FIPS-197's round 1 byte by byte (§5.1: AddRoundKey with rk0, then
    /// SubBytes, ShiftRows, MixColumns, AddRoundKey with rk1), byte i of
    /// the block being row i mod 4 of column i / 4.
    fn first_round(block: &Block, rk: &[Block]) -> Block {
        let s: Block = core::array::from_fn(|i| sub_byte(block[i] ^ rk[0][i]));
        // ShiftRows: row r of column c comes from column c + r.
        let shifted: Block = core::array::from_fn(|i| s[(i % 4) + 4 * ((i / 4 + i % 4) % 4)]);
        core::array::from_fn(|i| {
            let (r, col) = (i % 4, &shifted[4 * (i / 4)..4 * (i / 4) + 4]);
            let a = |k: usize| col[(r + k) % 4];
            // 2·a0 ⊕ 3·a1 ⊕ a2 ⊕ a3, rotated to row r.
            xtime(a(0)) ^ xtime(a(1)) ^ a(1) ^ a(2) ^ a(3) ^ rk[1][i]
        })
    }

    /// round1(base) ⊕ T[c] is round 1 of base ⊕ c·e₁₅, for every c, a
    /// few bases and every key size, in every copy of both layouts.
    #[test]
    fn entries_are_the_first_round_difference() {
        entries_match::<4>();
        entries_match::<1>();
    }

    fn entries_match<const COPIES: usize>() {
        for key_len in [16, 24, 32] {
            let key: Vec<u8> = (0..key_len).map(|i| (i * 29 + 7) as u8).collect();
            let ks = KeySchedule::new(&key).unwrap();
            let Some(table) = Round1::<COPIES>::new(&ks) else {
                crate::skip(format_args!("FACE round 1: no AES-NI on this CPU"));
                return;
            };
            let rk = ks.round_keys();
            for base in [
                [0u8; 16],
                [0x3c; 16],
                core::array::from_fn(|i| (i * 17) as u8),
            ] {
                let mut base = base;
                base[15] = 0;
                let r = first_round(&base, rk);
                for c in 0..=255u8 {
                    let mut block = base;
                    block[15] = c;
                    let shift = Round1::<COPIES>::shift(0);
                    let t = table.copies.0[0][usize::from(c) + shift];
                    let got: Block = core::array::from_fn(|i| r[i] ^ t[i]);
                    let what = format!("{COPIES} copies AES-{} c {c}", key_len * 8);
                    assert_eq!(got, first_round(&block, rk), "{what}");
                    // Every copy, as `entries` reads it: the same entry;
                    // with four copies, on a 64-byte line where it starts
                    // one.
                    for k in 0..COPIES {
                        let at = usize::from(c) + Round1::<COPIES>::shift(k);
                        assert_eq!(table.copies.0[k][at], t, "{what} copy {k}");
                    }
                    let p = table.entries(c, 1);
                    if COPIES == 4 || (usize::from(c) + 2).is_multiple_of(4) {
                        assert_eq!(p as usize % 64, 0, "{what} starts a line");
                    }
                    let all = table.copies.0.as_flattened();
                    let at = all.iter().position(|e| core::ptr::eq(e, p));
                    assert_eq!(at.map(|i| all[i]), Some(t), "{what}: read from its entry");
                }
            }
        }
    }

    /// The byte-wise round agrees with AES itself: a whole encryption
    /// built from it (rounds 1 … Nr − 1 as here, the last without
    /// MixColumns) is FIPS-197 Appendix C.1's.
    #[test]
    fn first_round_reference_is_fips_197() {
        let ks = KeySchedule::new(&core::array::from_fn::<u8, 16, _>(|i| i as u8)).unwrap();
        let pt: Block = core::array::from_fn(|i| (i * 0x11) as u8);
        // After round 1 of C.1: "round[ 2].start".
        let want = [
            0x89, 0xd8, 0x10, 0xe8, 0x85, 0x5a, 0xce, 0x68, 0x2d, 0x18, 0x43, 0xd8, 0xcb, 0x12,
            0x8f, 0xe4,
        ];
        assert_eq!(first_round(&pt, ks.round_keys()), want);
    }
}
