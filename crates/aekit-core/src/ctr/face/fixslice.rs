//! FACE's engines on a fixsliced AES of any word ([`Fixsliced`]): the
//! core's two blocks on 32-bit slices and aekit's four on 64-bit slices,
//! `G` blocks a state, without leaving the bitsliced layout.
//! Constant-time for a public counter.
//!
//! # Why not cache bytes
//!
//! A bitsliced S-box layer costs the same whether one byte or all of a
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
//! round 1 and round 2's `Ark_Sub` only diagonal 0 varies: the bits of
//! [`Slice::DIAG0`] (`0xc0300c03` on 32 bits, the seed's `0x030c30c0` in
//! Adomnicai–Peyrin's bit order). Round 2's `MC_2` then spreads it over
//! the block.
//!
//! # Parallel processing (the seed's trick)
//!
//! A state has four diagonals in each of `G` blocks: `4G` slots. Put the
//! diagonal-0 input of counter `base + G·d + k` in diagonal `d` of block
//! `k`, run one `Sub`, one `MC_1` and one `Ark_Sub` with round key 1's
//! diagonal-0 bytes copied to every diagonal (the seed's "modified round
//! key"), and `4G` counters' varying diagonals come out of one round's
//! work. Group `g` (counters `base + G·g .. base + G·g + G`) is diagonal
//! `g`: an in-lane rotation (`gather`) moves it to diagonal 0.
//!
//! # The variants, per group of `G` blocks
//!
//! | variant | cache (reset on bytes 12..14) | per message | per group, before round 2 or 3 |
//! |---------|-------------------------------|-------------|--------------------------------|
//! | `rd0`   | the packed counter ⊕ K0, byte 15 zero | — | 8 XOR of the low bytes' bits; `Sub`, `MC_1` |
//! | `rd1`   | rounds 0–1 and round 2's `Ark_Sub`, diagonal 0 cleared | — | one parallel state per 4 groups; 8 × (rotate, mask, OR); `MC_2`, as the rounds' first step |
//! | `rd1+`  | as `rd1` | the `256 / 4G` parallel states (1 KiB), each made on first use | 8 × (rotate, mask, OR); `MC_2`, as the rounds' first step |
//! | `rd2`   | `MC_2` of the `rd1` cache | — | as `rd1`, `MC_2` on the varying part alone |
//! | `rd2+`  | as `rd2` | `MC_2` of every group's varying part: `256 / G` states (4 KiB), made four at a time on first use | 8 XOR |
//!
//! The tables are the seed's 1 KiB and 4 KiB on either word (32 states of
//! 32 bytes or 16 of 64; 128 of 32 or 64 of 64). `rd2` costs what `rd1`
//! does: `MC_2` must run per group on the varying part (it fills the
//! block, so the `4G` counters cannot share it), as `MC_2` on the merged
//! state would.
//!
//! # Constant time
//!
//! Key and data meet only the bitsliced operations of the cipher. What
//! selects a table entry, a diagonal, a reset, the plain path or whether
//! an entry is made yet is the counter, which GCM hands to FACE only when
//! it is public (96-bit IV).

use zeroize::Zeroize;

use super::Engine;
use crate::aes::sliced::{Finish, Fixsliced, Mix, Slice, Start, State};
use crate::aes::{Block, Fixslice};

/// Blocks per state of `A`.
const fn group<A: Fixsliced>() -> usize {
    <A::Word as Slice>::GROUP
}

/// `G` copies of `block`.
#[inline(always)]
fn copies<A: Fixsliced>(block: &Block) -> <A::Word as Slice>::Blocks {
    let mut blocks = <A::Word as Slice>::NO_BLOCKS;
    blocks.as_mut().fill(*block);
    blocks
}

/// A state of zeros: `ark_sub` or a round with it as key starts with
/// SubBytes.
const fn zero<A: Fixsliced>() -> State<A> {
    [<A::Word as Slice>::ZERO; 8]
}

/// One round: `s ← MC(S(s ⊕ key) ⊕ 0x63)`, no `MC` for `Mix::Skip`.
#[inline(always)]
fn round<A: Fixsliced>(s: &mut State<A>, key: &State<A>, mix: Mix) {
    A::run_rounds(
        s,
        core::slice::from_ref(key),
        &[mix],
        Start::Round,
        Finish::Nothing,
    );
}

/// Rounds 0–1 and round 2's `Ark_Sub` on the counter group, diagonal 0
/// cleared: what `rd1` keeps.
fn round1_static<A: Fixsliced>(aes: &A, counter: &Block) -> State<A> {
    let mut s = A::pack(copies::<A>(counter).as_ref());
    round::<A>(&mut s, aes.round_key(0), Mix::Mc1);
    round::<A>(&mut s, aes.round_key(1), Mix::Skip);
    s.map(|x| x & !<A::Word as Slice>::DIAG0)
}

/// Diagonal `g` of every block moved to diagonal 0, the rest cleared.
/// One copy per `g`, so that the rotations are constants (folded into the
/// operations that use them); a loop rather than `State::map`, which the
/// compiler leaves out of line.
#[inline(always)]
fn diagonal<A: Fixsliced>(q: &State<A>, g: u8) -> State<A> {
    #[inline(always)]
    fn moved<A: Fixsliced, const G: u32>(q: &State<A>) -> State<A> {
        let mut d = zero::<A>();
        for (d, x) in d.iter_mut().zip(q) {
            *d = A::gather(*x, 0, G) & <A::Word as Slice>::DIAG0;
        }
        d
    }
    match g & 3 {
        0 => moved::<A, 0>(q),
        1 => moved::<A, 1>(q),
        2 => moved::<A, 2>(q),
        _ => moved::<A, 3>(q),
    }
}

/// The bytes of the parallel states' inputs before they are packed, for
/// the `G` blocks of `A`'s state: block `k` holds diagonal 0 of the counter
/// with low byte `G·d + k` in its diagonal `d` (bytes 0, 5 and 10 of the
/// `counter` ⊕ `k0`, and that low byte ⊕ `k0`'s byte 15); and round key 1
/// (`k1`)'s diagonal-0 bytes copied to every diagonal. The caller wipes
/// both.
fn parallel_layout<A: Fixsliced>(
    counter: &Block,
    k0: &Block,
    k1: &Block,
) -> (<A::Word as Slice>::Blocks, Block) {
    let g = group::<A>();
    let mut blocks = <A::Word as Slice>::NO_BLOCKS;
    let mut copied = [0u8; 16];
    for d in 0..4 {
        for r in 0..4 {
            let at = 4 * ((r + d) % 4) + r;
            for (j, block) in blocks.as_mut().iter_mut().enumerate() {
                block[at] = match r {
                    3 => (g * d + j) as u8 ^ k0[15],
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
struct Parallel<A: Fixsliced> {
    /// Diagonal 0's inputs for the counters with low bytes `0 .. 4G`,
    /// packed: bytes 0, 5 and 10 of the counter ⊕ K0 in rows 0–2 of every
    /// diagonal, and `(G·d + k) ⊕` K0's byte 15 in row 3 of diagonal `d`
    /// of block `k`.
    inputs: State<A>,
    /// The keys of the two steps of a state: none (its round 1 starts
    /// with SubBytes), then fixsliced round key 1 with diagonal 0 copied
    /// to all four diagonals. One array, so that both steps are one call
    /// of the rounds.
    keys: [State<A>; 2],
}

impl<A: Fixsliced> Parallel<A> {
    fn new(aes: &A, counter: &Block) -> Self {
        let mut k = [[0u8; 16]; 2];
        A::unpack(aes.round_key(0), &mut k[..1]);
        A::unpack(aes.round_key(1), &mut k[1..]);
        let (mut blocks, mut copied) = parallel_layout::<A>(counter, &k[0], &k[1]);
        let inputs = A::pack(blocks.as_ref());
        let keys = [zero::<A>(), A::pack(copies::<A>(&copied).as_ref())];
        k.zeroize();
        blocks.zeroize();
        copied.zeroize();
        Parallel { inputs, keys }
    }

    /// Round 1 and round 2's `Ark_Sub` on diagonal 0 of the `4G` counters
    /// with low bytes `base .. base + 4G` (`base` a multiple of `4G`):
    /// counter `base + G·d + k` in diagonal `d` of block `k`.
    fn state(&self, base: u8) -> State<A> {
        // Counter `base + j` (j < 4G) is `base ⊕ j`: the inputs of low
        // bytes 0 .. 4G with `base`'s bits XORed into row 3 of every slot.
        let mut s = self.inputs;
        for (b, slice) in s.iter_mut().enumerate() {
            *slice ^= <A::Word as Slice>::ROW3 & <A::Word as Slice>::mask(base >> b);
        }
        A::run_rounds(
            &mut s,
            &self.keys,
            &[Mix::Mc1, Mix::Skip],
            Start::Round,
            Finish::Nothing,
        );
        s
    }
}

/// The parallel state of the `4G` counters around the current one, made
/// when the group moves into a new `4G` (`rd1`, `rd2`).
#[derive(Zeroize)]
struct OnTheFly<A: Fixsliced> {
    parallel: Parallel<A>,
    q: State<A>,
    q_base: Option<u8>,
}

impl<A: Fixsliced> OnTheFly<A> {
    fn new(aes: &A, counter: &Block) -> Self {
        OnTheFly {
            parallel: Parallel::new(aes, counter),
            q: zero::<A>(),
            q_base: None,
        }
    }

    /// The varying diagonal of the group at `low`, moved to diagonal 0.
    #[inline(always)]
    fn varying(&mut self, low: u8) -> State<A> {
        let g = group::<A>() as u8;
        let base = low & !(4 * g - 1);
        if self.q_base != Some(base) {
            self.q = self.parallel.state(base);
            self.q_base = Some(base);
        }
        diagonal::<A>(&self.q, low / g)
    }
}

/// Runs the rest of the cipher on a state that has been through rounds
/// `0..FIRST` (and through round `FIRST`'s `Ark_Sub` too if `MIX`, the
/// rounds then starting at its MixColumns), and XORs the keystream into
/// `chunk`. Constants, so that the rounds' slices are fixed at compile
/// time.
#[inline(always)]
fn finish_from<A: Fixsliced, const FIRST: usize, const MIX: bool>(
    aes: &A,
    mut s: State<A>,
    chunk: &mut [u8],
) {
    let start = if MIX { Start::Mix } else { Start::Round };
    aes.encrypt_from(&mut s, FIRST, start);
    A::unpack_xor(&s, chunk);
    s.zeroize();
}

/// `rd0`: the packed counter ⊕ K0 cached, byte 15 inserted per group.
#[derive(Zeroize)]
pub struct Rd0<A: Fixsliced = Fixslice> {
    c0: State<A>,
}

/// `rd1`: the static rounds 0–1 cached; the varying diagonal made for
/// `4G` counters at a time, on the fly (the seed's table-free `rd1`).
#[derive(Zeroize)]
pub struct Rd1<A: Fixsliced = Fixslice> {
    on_the_fly: OnTheFly<A>,
    c1: State<A>,
}

/// `rd1+`: the parallel states of a message tabulated (1 KiB), each made
/// the first time the counter reaches its `4G` low bytes and kept for the
/// rest of the message.
#[derive(Zeroize)]
pub struct Rd1Plus<A: Fixsliced = Fixslice> {
    parallel: Parallel<A>,
    table: A::Parallels,
    /// Bit `i`: entry `i` (low bytes `4G·i .. 4G·i + 4G`) is made.
    made: u32,
    c1: State<A>,
}

/// `rd2`: round 2's `MC_2` of the static part cached; the varying part as
/// in `rd1`, through `MC_2` on its own.
#[derive(Zeroize)]
pub struct Rd2<A: Fixsliced = Fixslice> {
    on_the_fly: OnTheFly<A>,
    c2: State<A>,
}

/// `rd2+`: `MC_2` of every group's varying part tabulated (4 KiB), the
/// four groups of a parallel state made together the first time the
/// counter reaches them and kept for the rest of the message.
#[derive(Zeroize)]
pub struct Rd2Plus<A: Fixsliced = Fixslice> {
    parallel: Parallel<A>,
    table: A::Groups,
    /// Bit `i`: entries `4i .. 4i + 4` (low bytes `4G·i .. 4G·i + 4G`)
    /// are made.
    made: u32,
    c2: State<A>,
}

impl<A: Fixsliced> Engine for Rd0<A> {
    type Aes = A;
    const NAME: &'static str = "rd0";
    const GROUP: usize = group::<A>();

    fn new(_: &A, _: &Block) -> Self {
        Rd0 { c0: zero::<A>() }
    }

    fn reset(&mut self, aes: &A, counter: &Block) {
        let mut block = *counter;
        block[15] = 0;
        let mut s = A::pack(copies::<A>(&block).as_ref());
        s.iter_mut()
            .zip(aes.round_key(0))
            .for_each(|(x, k)| *x ^= *k);
        self.c0 = s;
    }

    #[inline(always)]
    fn apply(&mut self, aes: &A, low: u8, chunk: &mut [u8]) {
        let g = group::<A>();
        let mut s = self.c0;
        // Byte 15 of block k is low + k: bit b of it goes to bit 15G + k
        // of slice b (row 3, column 3).
        for (b, slice) in s.iter_mut().enumerate() {
            let bits = (0..g as u8).fold(<A::Word as Slice>::ZERO, |n, k| {
                n | <A::Word as Slice>::low_bit((low + k) >> b) << u32::from(k)
            });
            *slice ^= bits << (15 * g as u32);
        }
        round::<A>(&mut s, &zero::<A>(), Mix::Mc1);
        finish_from::<A, 1, false>(aes, s, chunk);
    }
}

impl<A: Fixsliced> Engine for Rd1<A> {
    type Aes = A;
    const NAME: &'static str = "rd1";
    const GROUP: usize = group::<A>();

    fn new(aes: &A, counter: &Block) -> Self {
        Rd1 {
            on_the_fly: OnTheFly::new(aes, counter),
            c1: zero::<A>(),
        }
    }

    fn reset(&mut self, aes: &A, counter: &Block) {
        self.c1 = round1_static(aes, counter);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &A, low: u8, chunk: &mut [u8]) {
        let varying = self.on_the_fly.varying(low);
        // Round 2's `MC_2` is the first step of the rounds' call.
        let s: State<A> = core::array::from_fn(|b| self.c1[b] | varying[b]);
        finish_from::<A, 1, true>(aes, s, chunk);
    }
}

impl<A: Fixsliced> Rd1Plus<A> {
    /// Makes entry `i` (low bytes `4G·i .. 4G·i + 4G`). Out of line: a
    /// few dozen calls a message at most, and the per-group path keeps
    /// its registers.
    #[inline(never)]
    fn make(&mut self, i: usize) {
        self.table.as_mut()[i] = self.parallel.state((4 * group::<A>() * i) as u8);
        self.made |= 1 << i;
    }
}

impl<A: Fixsliced> Engine for Rd1Plus<A> {
    type Aes = A;
    const NAME: &'static str = "rd1+";
    const GROUP: usize = group::<A>();

    fn new(aes: &A, counter: &Block) -> Self {
        Rd1Plus {
            parallel: Parallel::new(aes, counter),
            table: A::NO_PARALLELS,
            made: 0,
            c1: zero::<A>(),
        }
    }

    fn reset(&mut self, aes: &A, counter: &Block) {
        self.c1 = round1_static(aes, counter);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &A, low: u8, chunk: &mut [u8]) {
        let g = group::<A>();
        let i = low as usize / (4 * g);
        if self.made & 1 << i == 0 {
            self.make(i);
        }
        let varying = diagonal::<A>(&self.table.as_ref()[i], low / g as u8);
        // Round 2's `MC_2` is the first step of the rounds' call.
        let s: State<A> = core::array::from_fn(|b| self.c1[b] | varying[b]);
        finish_from::<A, 1, true>(aes, s, chunk);
    }
}

impl<A: Fixsliced> Engine for Rd2<A> {
    type Aes = A;
    const NAME: &'static str = "rd2";
    const GROUP: usize = group::<A>();

    fn new(aes: &A, counter: &Block) -> Self {
        Rd2 {
            on_the_fly: OnTheFly::new(aes, counter),
            c2: zero::<A>(),
        }
    }

    fn reset(&mut self, aes: &A, counter: &Block) {
        self.c2 = round1_static(aes, counter);
        A::mix_columns::<2>(&mut self.c2);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &A, low: u8, chunk: &mut [u8]) {
        let mut varying = self.on_the_fly.varying(low);
        A::mix_columns::<2>(&mut varying);
        let s: State<A> = core::array::from_fn(|b| self.c2[b] ^ varying[b]);
        finish_from::<A, 2, false>(aes, s, chunk);
    }
}

impl<A: Fixsliced> Rd2Plus<A> {
    /// Makes entries `4i .. 4i + 4` (low bytes `4G·i .. 4G·i + 4G`). Out
    /// of line: a few dozen calls a message at most, and the per-group
    /// path keeps its registers.
    #[inline(never)]
    fn make(&mut self, i: usize) {
        let mut q = self.parallel.state((4 * group::<A>() * i) as u8);
        for (g, entry) in self.table.as_mut()[4 * i..4 * i + 4].iter_mut().enumerate() {
            *entry = diagonal::<A>(&q, g as u8);
            A::mix_columns::<2>(entry);
        }
        q.zeroize();
        self.made |= 1 << i;
    }
}

impl<A: Fixsliced> Engine for Rd2Plus<A> {
    type Aes = A;
    const NAME: &'static str = "rd2+";
    const GROUP: usize = group::<A>();

    fn new(aes: &A, counter: &Block) -> Self {
        Rd2Plus {
            parallel: Parallel::new(aes, counter),
            table: A::NO_GROUPS,
            made: 0,
            c2: zero::<A>(),
        }
    }

    fn reset(&mut self, aes: &A, counter: &Block) {
        self.c2 = round1_static(aes, counter);
        A::mix_columns::<2>(&mut self.c2);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &A, low: u8, chunk: &mut [u8]) {
        let g = group::<A>();
        let i = low as usize / (4 * g);
        if self.made & 1 << i == 0 {
            self.make(i);
        }
        let varying = &self.table.as_ref()[low as usize / g];
        let s: State<A> = core::array::from_fn(|b| self.c2[b] ^ varying[b]);
        finish_from::<A, 2, false>(aes, s, chunk);
    }
}
