//! FACE on `fixslice` (fixsliced AES, four blocks per 64-bit bitsliced
//! state) without leaving the bitsliced layout. Constant-time.
//!
//! # Why not cache bytes
//!
//! A bitsliced S-box layer costs the same whether one byte or all 64 of a
//! state change, so caching "the static bytes" saves nothing by itself;
//! and unpacking to bytes, caching, and packing again costs more than the
//! rounds it would skip (the seed's "naive approach"). The caches are
//! therefore packed states, and the varying part is computed for many
//! counters at once.
//!
//! # Where the varying byte goes, fixsliced
//!
//! In the fixsliced representation (`aes/fixslice.rs`) round `i` is
//! `Ark_Sub(K_i)` then `MC_{(i+1) mod 4}`, and `MC_1` mixes *diagonals*
//! `{(r, r + d)}` rather than columns: element `r` of diagonal `d` becomes
//! `2·e[r] ⊕ 3·e[r+1] ⊕ e[r+2] ⊕ e[r+3]`, the same formula on every
//! diagonal. Counter byte 15 is row 3, column 3: diagonal 0, whose other
//! elements are bytes 0, 5 and 10 (IV bytes). So after round 1 and round 2's
//! `Ark_Sub`, only diagonal 0 varies — the positions (row `r`, column `r`)
//! of each block, bits `16r + 4r + k` of every slice, mask `DIAG0`
//! (the seed's `0x030c30c0` in its 32-bit two-block layout). Round 2's
//! `MC_2` then spreads it over the whole block.
//!
//! # Parallel processing (the seed's trick)
//!
//! A state has four diagonals in each of four blocks: sixteen slots. Put
//! the diagonal-0 input of counter `base + 4d + k` (bytes 0, 5, 10 and its
//! low byte, XOR round key 0) in diagonal `d` of block `k`, run one
//! `Sub`, one `MC_1` and one `Ark_Sub` with round key 1's diagonal-0
//! bytes copied to every diagonal (the seed's "modified round key"), and
//! sixteen counters' varying diagonals come out of one round's work.
//! Group `g` (the four counters `base + 4g .. base + 4g + 3`) is diagonal
//! `g`: an in-lane rotation ([`gather`]) moves it to diagonal 0.
//!
//! # The variants, per group of four blocks
//!
//! | variant | cache (reset when bytes 12..14 change) | per message | per group, before round 2 or 3 |
//! |---------|------------------------------------------|-------------|--------------------------------|
//! | `rd0`   | the packed counters ⊕ K0, byte 15 zero (64 B) | — | 8 XOR of the low bytes' bits; `Sub`, `MC_1` |
//! | `rd1`   | rounds 0–1 and round 2's `Ark_Sub`, diagonal 0 cleared (64 B) | — | one parallel state per 4 groups; 8 × (rotate, mask, OR); `MC_2` |
//! | `rd1+`  | as `rd1`                                 | the 16 parallel states: 1 KiB, each made on first use | 8 × (rotate, mask, OR); `MC_2` |
//! | `rd2`   | `MC_2` of the `rd1` cache (64 B)        | — | as `rd1`, with `MC_2` on the varying part alone |
//! | `rd2+`  | as `rd2`                                 | `MC_2` of every group's varying part: 64 states, 4 KiB, made four at a time on first use | 8 XOR |
//!
//! The memory matches the seed's for the `+` variants (1 KiB and 4 KiB);
//! the small caches are 64-byte packed states rather than its 12 and 16
//! bytes. `rd2` costs what `rd1` does here: `MC_2` must run per group on
//! the varying part (it fills the block, so sixteen counters cannot share
//! it), exactly as `MC_2` on the merged state would.
//!
//! Against the plain path (pack, ten or fourteen rounds of about 206
//! operations, unpack — about 2 350 operations for AES-128), `rd0` saves
//! the packing (≈ 150), `rd1` rounds 0–1 and an `Ark_Sub` for ≈ 120 per
//! group of its own, `rd1+` a little more, and `rd2+` also `MC_2`:
//! ≈ 540 operations, about 23% of AES-128 and 17% of AES-256. A `+`
//! table's entry costs about a parallel round (and for `rd2+` four
//! `MC_2`), paid once per message, before the first group that reads it:
//! a message pays for the entries it uses (sixteen at most), never more
//! than `rd1` and `rd2` pay by making them again every 256 counters.
//!
//! # Constant time
//!
//! Key and data only meet the bitsliced operations of `fixslice`. What
//! selects a table entry, a diagonal, a reset, the plain path or whether
//! an entry is made yet is the counter: the IV (public: it is sent with
//! the message) and the block count. `aekit-ctgrind face` runs every
//! variant with the key and the data marked secret and the counter
//! public.

use zeroize::Zeroize;

use super::engine::Engine;
use aekit_core::ctr::face::fixslice::parallel_layout;

use crate::aes::Block;
use crate::aes::fixslice::{Fixslice, GROUP, State, ark_sub, gather, mix_columns, pack, unpack};

/// Diagonal 0 of every block: bits `16r + 4r + k`, rows `r`, blocks `k`.
const DIAG0: u64 = 0xf000_0f00_00f0_000f;

/// A zero round key: `ark_sub` with it is SubBytes alone (the key was
/// added before caching).
const NO_KEY: State = [0; 8];

/// The packed counter group with byte 15 zero, `⊕ K0`.
#[inline(always)]
fn round0_static(aes: &Fixslice, counter: &Block) -> State {
    let mut block = *counter;
    block[15] = 0;
    let mut s = pack(&[block; GROUP]);
    s.iter_mut()
        .zip(aes.round_key(0))
        .for_each(|(x, k)| *x ^= k);
    s
}

/// Rounds 0–1 and round 2's `Ark_Sub` on the counter group, diagonal 0
/// cleared: what `rd1` keeps.
fn round1_static(aes: &Fixslice, counter: &Block) -> State {
    let mut s = pack(&[*counter; GROUP]);
    ark_sub(&mut s, aes.round_key(0));
    mix_columns::<1>(&mut s);
    ark_sub(&mut s, aes.round_key(1));
    s.map(|x| x & !DIAG0)
}

/// Diagonal `g` of every block moved to diagonal 0, the rest cleared.
#[inline(always)]
fn diagonal(q: &State, g: u8) -> State {
    q.map(|x| gather(x, 0, g as u32) & DIAG0)
}

/// Row 3 of every block: bits 48..64 of every slice, where counter byte
/// 15 of each of the sixteen slots sits.
const ROW3: u64 = 0xffff_0000_0000_0000;

/// What the parallel states need: their packed inputs and round key 1's
/// diagonal-0 bytes copied to every diagonal.
#[derive(Zeroize)]
struct Parallel {
    /// Diagonal 0's inputs for the counters with low bytes `0 .. 16`,
    /// packed: bytes 0, 5 and 10 of the counter ⊕ K0 in rows 0–2 of every
    /// diagonal, and `(4d + k) ⊕` K0's byte 15 in row 3 of diagonal `d`
    /// of block `k`.
    inputs: State,
    /// Fixsliced round key 1, diagonal 0 copied to all four diagonals.
    key1: State,
}

impl Parallel {
    fn new(aes: &Fixslice, counter: &Block) -> Self {
        let mut k = [[0u8; 16]; 2];
        unpack(aes.round_key(0), &mut k[..1]);
        unpack(aes.round_key(1), &mut k[1..]);
        let (mut blocks, mut copied) = parallel_layout::<GROUP>(counter, &k[0], &k[1]);
        let inputs = pack(&blocks);
        let key1 = pack(&[copied; GROUP]);
        k.zeroize();
        blocks.zeroize();
        copied.zeroize();
        Parallel { inputs, key1 }
    }

    /// Round 1 and round 2's `Ark_Sub` on the diagonal 0 of the sixteen
    /// counters with low bytes `base .. base + 16` (`base` a multiple of
    /// 16): counter `base + 4d + k` in diagonal `d` of block `k`.
    fn state(&self, base: u8) -> State {
        // Counter `base + j` (j < 16) is `base ⊕ j`: the inputs of low
        // bytes 0 .. 16 with `base`'s bits XORed into row 3 of every slot.
        let mut s = self.inputs;
        for (b, slice) in s.iter_mut().enumerate() {
            *slice ^= ROW3 & (u64::from(base >> b) & 1).wrapping_neg();
        }
        ark_sub(&mut s, &NO_KEY);
        mix_columns::<1>(&mut s);
        ark_sub(&mut s, &self.key1);
        s
    }
}

/// The parallel state of the sixteen counters around the current one,
/// made when the group moves into a new sixteen (`rd1`, `rd2`).
#[derive(Zeroize)]
struct OnTheFly {
    parallel: Parallel,
    q: State,
    q_base: Option<u8>,
}

impl OnTheFly {
    fn new(aes: &Fixslice, counter: &Block) -> Self {
        OnTheFly {
            parallel: Parallel::new(aes, counter),
            q: [0; 8],
            q_base: None,
        }
    }

    /// The varying diagonal of the group at `low`, moved to diagonal 0.
    #[inline(always)]
    fn varying(&mut self, low: u8) -> State {
        let base = low & 0xf0;
        if self.q_base != Some(base) {
            self.q = self.parallel.state(base);
            self.q_base = Some(base);
        }
        diagonal(&self.q, (low >> 2) & 3)
    }
}

/// The parallel states (bit `i`: low bytes `16i .. 16i + 16`) that the
/// `blocks` counters from low byte `low` reach, wrapping at 256.
fn entries(low: u8, blocks: usize) -> u16 {
    if blocks == 0 {
        return 0;
    }
    match (usize::from(low & 15) + blocks).div_ceil(16) {
        n @ ..16 => ((1u16 << n) - 1).rotate_left(u32::from(low >> 4)),
        _ => u16::MAX,
    }
}

/// Runs the rest of the cipher on a state that has been through round 2's
/// `MC_2`, and unpacks the keystream.
#[inline(always)]
fn finish_from_round_2(aes: &Fixslice, mut s: State, out: &mut [Block]) {
    aes.encrypt_from(&mut s, 2);
    unpack(&s, out);
    s.zeroize();
}

/// `rd0`: the packed counters ⊕ K0 cached, byte 15 inserted per group.
#[derive(Zeroize)]
pub(crate) struct Rd0 {
    c0: State,
}

impl Engine for Rd0 {
    type Aes = Fixslice;
    const GROUP: usize = GROUP;

    fn new(_: &Fixslice, _: &Block) -> Self {
        Rd0 { c0: [0; 8] }
    }

    fn reset(&mut self, aes: &Fixslice, counter: &Block) {
        self.c0 = round0_static(aes, counter);
    }

    #[inline(always)]
    fn keystream(&mut self, aes: &Fixslice, low: u8, out: &mut [Block]) {
        let mut s = self.c0;
        // Byte 15 of block k is low + k: bit b of it goes to bit 60 + k of
        // slice b (row 3, column 3).
        for (b, slice) in s.iter_mut().enumerate() {
            let nibble =
                (0..GROUP as u8).fold(0u64, |n, k| n | ((((low + k) >> b) & 1) as u64) << k);
            *slice ^= nibble << 60;
        }
        ark_sub(&mut s, &NO_KEY);
        mix_columns::<1>(&mut s);
        aes.encrypt_from(&mut s, 1);
        unpack(&s, out);
        s.zeroize();
    }
}

/// `rd1`: the static rounds 0–1 cached; the varying diagonal made for
/// sixteen counters at a time, on the fly (the seed's table-free `rd1`).
#[derive(Zeroize)]
pub(crate) struct Rd1 {
    on_the_fly: OnTheFly,
    c1: State,
}

impl Engine for Rd1 {
    type Aes = Fixslice;
    const GROUP: usize = GROUP;

    fn new(aes: &Fixslice, counter: &Block) -> Self {
        Rd1 {
            on_the_fly: OnTheFly::new(aes, counter),
            c1: [0; 8],
        }
    }

    fn reset(&mut self, aes: &Fixslice, counter: &Block) {
        self.c1 = round1_static(aes, counter);
    }

    #[inline(always)]
    fn keystream(&mut self, aes: &Fixslice, low: u8, out: &mut [Block]) {
        let varying = self.on_the_fly.varying(low);
        let mut s: State = core::array::from_fn(|b| self.c1[b] | varying[b]);
        mix_columns::<2>(&mut s);
        finish_from_round_2(aes, s, out);
    }
}

/// `rd1+`: the sixteen parallel states of a message tabulated (1 KiB),
/// each made before the first group that reads it ([`Engine::prepare`])
/// and kept for the rest of the message.
#[derive(Zeroize)]
pub(crate) struct Rd1Plus {
    parallel: Parallel,
    table: [State; 16],
    /// Bit `i`: entry `i` (low bytes `16i .. 16i + 16`) is made.
    made: u16,
    c1: State,
}

impl Engine for Rd1Plus {
    type Aes = Fixslice;
    const GROUP: usize = GROUP;

    fn new(aes: &Fixslice, counter: &Block) -> Self {
        Rd1Plus {
            parallel: Parallel::new(aes, counter),
            table: [[0; 8]; 16],
            made: 0,
            c1: [0; 8],
        }
    }

    fn reset(&mut self, aes: &Fixslice, counter: &Block) {
        self.c1 = round1_static(aes, counter);
    }

    #[inline(never)]
    fn prepare(&mut self, _: &Fixslice, low: u8, blocks: usize) {
        let missing = entries(low, blocks) & !self.made;
        for i in (0..16).filter(|i| missing & 1 << i != 0) {
            self.table[i] = self.parallel.state(16 * i as u8);
        }
        self.made |= missing;
    }

    #[inline(always)]
    fn keystream(&mut self, aes: &Fixslice, low: u8, out: &mut [Block]) {
        let i = low as usize >> 4;
        debug_assert!(self.made & 1 << i != 0, "entry {i} not prepared");
        let varying = diagonal(&self.table[i], (low >> 2) & 3);
        let mut s: State = core::array::from_fn(|b| self.c1[b] | varying[b]);
        mix_columns::<2>(&mut s);
        finish_from_round_2(aes, s, out);
    }
}

/// `rd2`: round 2's `MC_2` of the static part cached; the varying part as
/// in `rd1`, through `MC_2` on its own.
#[derive(Zeroize)]
pub(crate) struct Rd2 {
    on_the_fly: OnTheFly,
    c2: State,
}

impl Engine for Rd2 {
    type Aes = Fixslice;
    const GROUP: usize = GROUP;

    fn new(aes: &Fixslice, counter: &Block) -> Self {
        Rd2 {
            on_the_fly: OnTheFly::new(aes, counter),
            c2: [0; 8],
        }
    }

    fn reset(&mut self, aes: &Fixslice, counter: &Block) {
        self.c2 = round1_static(aes, counter);
        mix_columns::<2>(&mut self.c2);
    }

    #[inline(always)]
    fn keystream(&mut self, aes: &Fixslice, low: u8, out: &mut [Block]) {
        let mut varying = self.on_the_fly.varying(low);
        mix_columns::<2>(&mut varying);
        let s: State = core::array::from_fn(|b| self.c2[b] ^ varying[b]);
        finish_from_round_2(aes, s, out);
    }
}

/// `rd2+`: `MC_2` of every group's varying part tabulated (4 KiB), the
/// four groups of a parallel state made together before the first of
/// them is read ([`Engine::prepare`]) and kept for the rest of the
/// message.
#[derive(Zeroize)]
pub(crate) struct Rd2Plus {
    parallel: Parallel,
    table: [State; 64],
    /// Bit `i`: entries `4i .. 4i + 4` (low bytes `16i .. 16i + 16`) are
    /// made.
    made: u16,
    c2: State,
}

impl Engine for Rd2Plus {
    type Aes = Fixslice;
    const GROUP: usize = GROUP;

    fn new(aes: &Fixslice, counter: &Block) -> Self {
        Rd2Plus {
            parallel: Parallel::new(aes, counter),
            table: [[0; 8]; 64],
            made: 0,
            c2: [0; 8],
        }
    }

    fn reset(&mut self, aes: &Fixslice, counter: &Block) {
        self.c2 = round1_static(aes, counter);
        mix_columns::<2>(&mut self.c2);
    }

    #[inline(never)]
    fn prepare(&mut self, _: &Fixslice, low: u8, blocks: usize) {
        let missing = entries(low, blocks) & !self.made;
        for i in (0..16).filter(|i| missing & 1 << i != 0) {
            let mut q = self.parallel.state(16 * i as u8);
            for (g, entry) in self.table[4 * i..4 * i + 4].iter_mut().enumerate() {
                *entry = diagonal(&q, g as u8);
                mix_columns::<2>(entry);
            }
            q.zeroize();
        }
        self.made |= missing;
    }

    #[inline(always)]
    fn keystream(&mut self, aes: &Fixslice, low: u8, out: &mut [Block]) {
        debug_assert!(self.made & 1 << (low >> 4) != 0, "entries not prepared");
        let varying = &self.table[low as usize >> 2];
        let s: State = core::array::from_fn(|b| self.c2[b] ^ varying[b]);
        finish_from_round_2(aes, s, out);
    }
}

#[cfg(test)]
mod tests {
    use super::entries;

    /// `entries` names exactly the sixteen-counter spans that the counters
    /// `low`, `low + 1`, … (wrapping at 256) fall in.
    #[test]
    fn entries_are_the_spans_the_counters_reach() {
        for low in 0..=255u8 {
            for blocks in 0..600 {
                let reached =
                    (0..blocks).fold(0u16, |m, j| m | 1 << (low.wrapping_add(j as u8) >> 4));
                assert_eq!(entries(low, blocks), reached, "low {low}, {blocks} blocks");
            }
        }
    }
}
