//! FACE's engines on the 32-bit fixslice (two blocks per state), without
//! leaving the bitsliced layout. Constant-time for a public counter.
//!
//! # Why not cache bytes
//!
//! A bitsliced S-box layer costs the same whether one byte or all 32 of a
//! state change, and unpacking to bytes, caching and packing again costs
//! more than the rounds it skips (the seed's "naive approach"). The caches
//! are therefore packed states, and the varying part is computed for many
//! counters at once.
//!
//! # Where the varying byte goes, fixsliced
//!
//! Round `i` is `Ark_Sub(K_i)` then `MC_{(i+1) mod 4}` (`aes/fixslice.rs`),
//! and `MC_1` mixes *diagonals* `{(r, r + d)}`: element `r` of diagonal `d`
//! becomes `2·e[r] ⊕ 3·e[r+1] ⊕ e[r+2] ⊕ e[r+3]`. Counter byte 15 (row 3,
//! column 3) is on diagonal 0 with bytes 0, 5 and 10 (IV bytes). After
//! round 1 and round 2's `Ark_Sub` only diagonal 0 varies: bits
//! `8r + 2r + k` of every slice, mask `DIAG0 = 0xc0300c03` (the seed's
//! `0x030c30c0` in Adomnicai–Peyrin's bit order). Round 2's `MC_2` then
//! spreads it over the block.
//!
//! # Parallel processing (the seed's trick)
//!
//! A state has four diagonals in each of two blocks: eight slots. Put the
//! diagonal-0 input of counter `base + 2d + k` in diagonal `d` of block `k`,
//! run one `Sub`, one `MC_1` and one `Ark_Sub` with round key 1's
//! diagonal-0 bytes copied to every diagonal (the seed's "modified round
//! key"), and eight counters' varying diagonals come out of one round's
//! work. Group `g` (counters `base + 2g`, `base + 2g + 1`) is diagonal `g`:
//! an in-lane rotation (`gather`) moves it to diagonal 0.
//!
//! # The variants, per group of two blocks
//!
//! | variant | cache (reset on bytes 12..14) | per message | per group, before round 2 or 3 |
//! |---------|-------------------------------|-------------|--------------------------------|
//! | `rd0`   | the packed counter ⊕ K0, byte 15 zero | — | 8 XOR of the low bytes' bits; `Sub`, `MC_1` |
//! | `rd1`   | rounds 0–1 and round 2's `Ark_Sub`, diagonal 0 cleared | — | one parallel state per 4 groups; 8 × (rotate, mask, OR); `MC_2`, as the rounds' first step |
//! | `rd1+`  | as `rd1` | the 32 parallel states: 1 KiB, each made on first use | 8 × (rotate, mask, OR); `MC_2`, as the rounds' first step |
//! | `rd2`   | `MC_2` of the `rd1` cache | — | as `rd1`, `MC_2` on the varying part alone |
//! | `rd2+`  | as `rd2` | `MC_2` of every group's varying part: 128 states, 4 KiB, made four at a time on first use | 8 XOR |
//!
//! # Constant time
//!
//! Key and data meet only the bitsliced operations of `fixslice`. What
//! selects a table entry, a diagonal, a reset, the plain path or whether
//! an entry is made yet is the counter, which GCM hands to FACE only when
//! it is public (96-bit IV).

use zeroize::Zeroize;

use super::Engine;
use crate::aes::fixslice::{
    Finish, GROUP, Mix, Start, State, ark_sub, gather, mix_columns, pack, round, run_rounds,
    unpack, unpack_xor,
};
use crate::aes::{Block, Fixslice};

/// Diagonal 0 of both blocks: bits `8r + 2r + k`.
const DIAG0: u32 = 0xc030_0c03;

/// A zero round key: `ark_sub` or `round` with it starts with SubBytes.
const NO_KEY: State = [0; 8];

/// Rounds 0–1 and round 2's `Ark_Sub` on the counter group, diagonal 0
/// cleared: what `rd1` keeps.
fn round1_static(aes: &Fixslice, counter: &Block) -> State {
    let mut s = pack(&[*counter; GROUP]);
    round(&mut s, aes.round_key(0), Mix::Mc1);
    ark_sub(&mut s, aes.round_key(1));
    s.map(|x| x & !DIAG0)
}

/// Diagonal `g` of both blocks moved to diagonal 0, the rest cleared.
/// One copy per `g`, so that the rotations are constants (folded into the
/// operations that use them); a loop rather than `State::map`, which the
/// compiler leaves out of line.
#[inline(always)]
fn diagonal(q: &State, g: u8) -> State {
    #[inline(always)]
    fn moved<const G: u32>(q: &State) -> State {
        let mut d = [0; 8];
        for (d, x) in d.iter_mut().zip(q) {
            *d = gather(*x, 0, G) & DIAG0;
        }
        d
    }
    match g & 3 {
        0 => moved::<0>(q),
        1 => moved::<1>(q),
        2 => moved::<2>(q),
        _ => moved::<3>(q),
    }
}

/// Row 3 of both blocks: bits 24..32 of every slice, where counter byte
/// 15 of each of the eight slots sits.
const ROW3: u32 = 0xff00_0000;

/// The bytes of the parallel states' inputs before they are packed, for
/// `G` blocks of four diagonals (two blocks on 32-bit words here, four in
/// `aekit`'s 64-bit FACE): block `k` holds diagonal 0 of the counter with
/// low byte `G·d + k` in its diagonal `d` (bytes 0, 5 and 10 of the
/// `counter` ⊕ `k0`, and that low byte ⊕ `k0`'s byte 15); and round key 1
/// (`k1`)'s diagonal-0 bytes copied to every diagonal. The caller wipes
/// both.
pub fn parallel_layout<const G: usize>(
    counter: &Block,
    k0: &Block,
    k1: &Block,
) -> ([[u8; 16]; G], [u8; 16]) {
    let mut blocks = [[0u8; 16]; G];
    let mut copied = [0u8; 16];
    for d in 0..4 {
        for r in 0..4 {
            let at = 4 * ((r + d) % 4) + r;
            for (j, block) in blocks.iter_mut().enumerate() {
                block[at] = match r {
                    3 => (G * d + j) as u8 ^ k0[15],
                    _ => counter[5 * r] ^ k0[5 * r],
                };
            }
            copied[at] = k1[5 * r];
        }
    }
    (blocks, copied)
}

/// What the parallel states need: their packed inputs and round key 1's
/// diagonal-0 bytes copied to every diagonal.
#[derive(Zeroize)]
struct Parallel {
    /// Diagonal 0's inputs for the counters with low bytes `0 .. 8`,
    /// packed: bytes 0, 5 and 10 of the counter ⊕ K0 in rows 0–2 of every
    /// diagonal, and `(2d + k) ⊕` K0's byte 15 in row 3 of diagonal `d`
    /// of block `k`.
    inputs: State,
    /// The keys of the two steps of a state: none (its round 1 starts
    /// with SubBytes), then fixsliced round key 1 with diagonal 0 copied
    /// to all four diagonals. One array, so that both steps are one call
    /// of the rounds.
    keys: [State; 2],
}

impl Parallel {
    fn new(aes: &Fixslice, counter: &Block) -> Self {
        let mut k = [[0u8; 16]; 2];
        unpack(aes.round_key(0), &mut k[..1]);
        unpack(aes.round_key(1), &mut k[1..]);
        let (mut blocks, mut copied) = parallel_layout::<GROUP>(counter, &k[0], &k[1]);
        let inputs = pack(&blocks);
        let keys = [NO_KEY, pack(&[copied; GROUP])];
        k.zeroize();
        blocks.zeroize();
        copied.zeroize();
        Parallel { inputs, keys }
    }

    /// Round 1 and round 2's `Ark_Sub` on diagonal 0 of the eight counters
    /// with low bytes `base .. base + 8` (`base` a multiple of 8): counter
    /// `base + 2d + k` in diagonal `d` of block `k`.
    fn state(&self, base: u8) -> State {
        // Counter `base + j` (j < 8) is `base ⊕ j`: the inputs of low
        // bytes 0 .. 8 with `base`'s bits XORed into row 3 of every slot.
        let mut s = self.inputs;
        for (b, slice) in s.iter_mut().enumerate() {
            *slice ^= ROW3 & (u32::from(base >> b) & 1).wrapping_neg();
        }
        run_rounds(
            &mut s,
            &self.keys,
            &[Mix::Mc1, Mix::Skip],
            Start::Round,
            Finish::Nothing,
        );
        s
    }
}

/// The parallel state of the eight counters around the current one, made
/// when the group moves into a new eight (`rd1`, `rd2`).
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
        let base = low & 0xf8;
        if self.q_base != Some(base) {
            self.q = self.parallel.state(base);
            self.q_base = Some(base);
        }
        diagonal(&self.q, (low >> 1) & 3)
    }
}

/// Runs the rest of the cipher on a state that has been through rounds
/// `0..FIRST` (and through round `FIRST`'s `Ark_Sub` too if `MIX`, the
/// rounds then starting at its MixColumns), and XORs the keystream into
/// `chunk`. Constants, so that the rounds' slices are fixed at compile
/// time.
fn finish_from<const FIRST: usize, const MIX: bool>(
    aes: &Fixslice,
    mut s: State,
    chunk: &mut [u8],
) {
    let start = if MIX { Start::Mix } else { Start::Round };
    aes.encrypt_from(&mut s, FIRST, start);
    unpack_xor(&s, chunk);
    s.zeroize();
}

/// `rd0`: the packed counter ⊕ K0 cached, byte 15 inserted per group.
#[derive(Zeroize)]
pub struct Rd0 {
    c0: State,
}

impl Engine for Rd0 {
    const NAME: &'static str = "rd0";

    fn new(_: &Fixslice, _: &Block) -> Self {
        Rd0 { c0: [0; 8] }
    }

    fn reset(&mut self, aes: &Fixslice, counter: &Block) {
        let mut block = *counter;
        block[15] = 0;
        let mut s = pack(&[block; GROUP]);
        s.iter_mut()
            .zip(aes.round_key(0))
            .for_each(|(x, k)| *x ^= k);
        self.c0 = s;
    }

    #[inline(always)]
    fn apply(&mut self, aes: &Fixslice, low: u8, chunk: &mut [u8]) {
        let mut s = self.c0;
        // Byte 15 of block k is low + k: bit b of it goes to bit 30 + k of
        // slice b (row 3, column 3).
        for (b, slice) in s.iter_mut().enumerate() {
            let pair = (0..GROUP as u8).fold(0u32, |n, k| n | ((((low + k) >> b) & 1) as u32) << k);
            *slice ^= pair << 30;
        }
        round(&mut s, &NO_KEY, Mix::Mc1);
        finish_from::<1, false>(aes, s, chunk);
    }
}

/// `rd1`: the static rounds 0–1 cached; the varying diagonal made for
/// eight counters at a time, on the fly (the seed's table-free `rd1`).
#[derive(Zeroize)]
pub struct Rd1 {
    on_the_fly: OnTheFly,
    c1: State,
}

impl Engine for Rd1 {
    const NAME: &'static str = "rd1";

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
    fn apply(&mut self, aes: &Fixslice, low: u8, chunk: &mut [u8]) {
        let varying = self.on_the_fly.varying(low);
        // Round 2's `MC_2` is the first step of the rounds' call.
        let s: State = core::array::from_fn(|b| self.c1[b] | varying[b]);
        finish_from::<1, true>(aes, s, chunk);
    }
}

/// `rd1+`: the 32 parallel states of a message tabulated (1 KiB), each
/// made the first time the counter reaches its eight low bytes and kept
/// for the rest of the message.
#[derive(Zeroize)]
pub struct Rd1Plus {
    parallel: Parallel,
    table: [State; 32],
    /// Bit `i`: entry `i` (low bytes `8i .. 8i + 8`) is made.
    made: u32,
    c1: State,
}

impl Rd1Plus {
    /// Makes entry `i` (low bytes `8i .. 8i + 8`). Out of line: 32 calls a
    /// message at most, and the per-group path keeps its registers.
    #[inline(never)]
    fn make(&mut self, i: usize) {
        self.table[i] = self.parallel.state(8 * i as u8);
        self.made |= 1 << i;
    }
}

impl Engine for Rd1Plus {
    const NAME: &'static str = "rd1+";

    fn new(aes: &Fixslice, counter: &Block) -> Self {
        const EMPTY: [State; 32] = [[0; 8]; 32];
        Rd1Plus {
            parallel: Parallel::new(aes, counter),
            table: EMPTY,
            made: 0,
            c1: [0; 8],
        }
    }

    fn reset(&mut self, aes: &Fixslice, counter: &Block) {
        self.c1 = round1_static(aes, counter);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &Fixslice, low: u8, chunk: &mut [u8]) {
        let i = low as usize >> 3;
        if self.made & 1 << i == 0 {
            self.make(i);
        }
        let varying = diagonal(&self.table[i], (low >> 1) & 3);
        // Round 2's `MC_2` is the first step of the rounds' call.
        let s: State = core::array::from_fn(|b| self.c1[b] | varying[b]);
        finish_from::<1, true>(aes, s, chunk);
    }
}

/// `rd2`: round 2's `MC_2` of the static part cached; the varying part as
/// in `rd1`, through `MC_2` on its own.
#[derive(Zeroize)]
pub struct Rd2 {
    on_the_fly: OnTheFly,
    c2: State,
}

impl Engine for Rd2 {
    const NAME: &'static str = "rd2";

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
    fn apply(&mut self, aes: &Fixslice, low: u8, chunk: &mut [u8]) {
        let mut varying = self.on_the_fly.varying(low);
        mix_columns::<2>(&mut varying);
        let s: State = core::array::from_fn(|b| self.c2[b] ^ varying[b]);
        finish_from::<2, false>(aes, s, chunk);
    }
}

/// `rd2+`: `MC_2` of every group's varying part tabulated (4 KiB), the
/// four groups of a parallel state made together the first time the
/// counter reaches them and kept for the rest of the message.
#[derive(Zeroize)]
pub struct Rd2Plus {
    parallel: Parallel,
    table: [State; 128],
    /// Bit `i`: entries `4i .. 4i + 4` (low bytes `8i .. 8i + 8`) are made.
    made: u32,
    c2: State,
}

impl Rd2Plus {
    /// Makes entries `4i .. 4i + 4` (low bytes `8i .. 8i + 8`). Out of
    /// line: 32 calls a message at most, and the per-group path keeps its
    /// registers.
    #[inline(never)]
    fn make(&mut self, i: usize) {
        let mut q = self.parallel.state(8 * i as u8);
        for (g, entry) in self.table[4 * i..4 * i + 4].iter_mut().enumerate() {
            *entry = diagonal(&q, g as u8);
            mix_columns::<2>(entry);
        }
        q.zeroize();
        self.made |= 1 << i;
    }
}

impl Engine for Rd2Plus {
    const NAME: &'static str = "rd2+";

    fn new(aes: &Fixslice, counter: &Block) -> Self {
        // A constant: zeroed in place (a repeat expression was zeroed on
        // the stack and copied).
        const EMPTY: [State; 128] = [[0; 8]; 128];
        Rd2Plus {
            parallel: Parallel::new(aes, counter),
            table: EMPTY,
            made: 0,
            c2: [0; 8],
        }
    }

    fn reset(&mut self, aes: &Fixslice, counter: &Block) {
        self.c2 = round1_static(aes, counter);
        mix_columns::<2>(&mut self.c2);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &Fixslice, low: u8, chunk: &mut [u8]) {
        let i = low as usize >> 3;
        if self.made & 1 << i == 0 {
            self.make(i);
        }
        let varying = &self.table[low as usize >> 1];
        let s: State = core::array::from_fn(|b| self.c2[b] ^ varying[b]);
        finish_from::<2, false>(aes, s, chunk);
    }
}
