//! Fixsliced AES on 32-bit words: constant-time, two blocks at a time —
//! the word size and the group of the Cortex-M work.
//!
//! The technique is A. Adomnicai and T. Peyrin, *Fixslicing AES-like
//! Ciphers: New bitsliced AES speed records on ARM-Cortex M and RISC-V*,
//! IACR TCHES 2021(1), whose Cortex-M code holds two blocks in eight
//! 32-bit words; the seed (`aes-gcm-cortex-m4-fixslicing-face`) builds its
//! AES-GCM on it. This file is a fresh rendering in the layout of aekit's
//! 64-bit `fixslice` with every width halved, so that the two read side by
//! side: same names, same steps, same round-key convention.
//!
//! # Representation
//!
//! Two blocks (32 bytes) are held in eight `u32` *slices*; slice `b` holds
//! bit `b` (0 = least significant) of all 32 bytes. Inside a slice the byte
//! at row `r`, column `c` (state byte `4c + r`, FIPS-197 §3.4) of block `k`
//! sits at
//!
//! ```text
//!     bit 8·r + 2·c + k          (r, c ∈ 0..4, k ∈ 0..2)
//!
//!     bit 31                                            bit 0
//!     |   row 3   |   row 2   |   row 1   |   row 0   |
//!                                         |c3|c2|c1|c0|
//!                                                  k: 1 0
//! ```
//!
//! so a row is an 8-bit lane, a column a bit pair inside it, and the two
//! blocks the two bits of the pair. Moving bytes from row to row is one
//! word rotation by a multiple of 8 (MixColumns); moving them along their
//! row is a rotation inside the 8-bit lanes: two rotations and a blend.
//! (Adomnicai–Peyrin order the bits differently — the seed's diagonal mask
//! is `0x030c30c0`, this layout's `0xc0300c03` — to suit their
//! hand-scheduled rotations; the algebra is the same.)
//!
//! Packing (`pack`) is one 8×8 bit transposition: word `2c + k` is column
//! `c` of block `k` (row `r` in byte `r`), and the transposition turns
//! "bit `b` of byte `r` of word `w`" into "bit `8r + w` of slice `b`".
//! `unpack` is the same transposition backwards.
//!
//! # Fixslicing
//!
//! ShiftRows is never applied. After `i` rounds the slices hold
//! `P_i = SR^-i (S_i)`, and a round becomes
//!
//! ```text
//!     P_{i+1} = MC_j( SB( P_i ⊕ SR^-i(K_i) ) ),   j = (i + 1) mod 4,
//!     MC_j    = SR^-j ∘ MC ∘ SR^j,
//!     out[r][c] = 2·a[r][c] ⊕ 3·a[r+1][c+j] ⊕ a[r+2][c+2j] ⊕ a[r+3][c+3j],
//! ```
//!
//! computed as `t = a ⊕ R(a)`, `out = 2·t ⊕ R(a) ⊕ R²(t)` with
//! `R(x)[r][c] = x[r+1][c+j]` (`gather`). The round keys absorb the
//! `SR^-i` at key setup; the output is `SR^Nr(P_Nr ⊕ SR^-Nr(K_Nr))`, with
//! `SR^Nr = SR^2` for AES-128 and AES-256 (rows 1 and 3 swap the nibbles
//! of their lanes) and the identity for AES-192. This is the fully
//! fixsliced variant of the paper.
//!
//! # S-box and Ark_Sub
//!
//! SubBytes is the 115-gate circuit of J. Boyar and R. Peralta (SEA 2010)
//! in `aes/sbox.rs`, shared with aekit's 64-bit fixslice, with its four
//! XNORs written as XORs, so it computes `S(x) ⊕ 0x63`; every `MC_j` maps
//! the all-0x63 state to itself, so the constant is cancelled by storing
//! round keys 1..=Nr XORed with 0x63. AddRoundKey is fused into the
//! circuit's inputs (`ark_sub`). The key schedule uses the same circuit
//! for SubWord (one word in one block of a packed state).
//!
//! # Cost (u32 operations per round, two blocks)
//!
//! AddRoundKey 8, SubBytes 115, MC_0 43, MC_2 75, MC_1 and MC_3 107: about
//! 206 per round as on 64 bits, for half the blocks — the price of a
//! 32-bit word.
//!
//! # Storage
//!
//! Each round key is packed like a state, replicated into both block
//! positions: 8 × 4 = 32 bytes per round key, 480 bytes for AES-256,
//! zeroized on drop.
//!
//! # Targets
//!
//! On ARMv7-M (`build.rs` sets `aekit_armv7m`) the rounds run as Thumb-2
//! assembly (`armv7m`, written by `tools/armv7m_round.py` from the circuit
//! of `ark_sub_portable` and the script's own transcription of
//! `mix_columns`, which must follow it); everywhere else, and as its
//! reference, the portable rounds (`sliced::run_rounds_portable` on this
//! file's circuits). `mix` names
//! the MixColumns each round ends with.
//!
//! # Constant time
//!
//! Data and key meet only AND, XOR and rotations and shifts by constants.
//! No table; every index is fixed by the code; the only branches test the
//! number of blocks and of rounds, both public.
//!
//! # Tried and rejected
//!
//! - *Adomnicai–Peyrin's own bit order*: its rotations are chosen for
//!   hand-written assembly; in Rust the halved 64-bit layout keeps one set
//!   of formulas across aekit and compiles to the same rotate-and-mask
//!   shapes (ARM's barrel shifter folds each rotation into the XOR).
//! - *Semi-fixslicing*: fewer round-key variants, more operations per
//!   round; the variants cost nothing at run time here.
//! - *A byte-oriented S-box table*: not constant-time.
//! - *Counter mode unpacking its keystream to bytes and XORing them into
//!   the data after* (`unpack`, then a loop): 32 bytes stored and loaded
//!   again per group; `unpack_xor` XORs the unpacked words in as they
//!   come (`docs/CORTEX-M.md`).

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::Error;
use crate::aes::Block;
use crate::aes::schedule::key_expansion;
use crate::aes::sliced::{Fixsliced, run_rounds_portable, xor_unpacked};

#[cfg(aekit_armv7m)]
mod armv7m;
mod mix;

#[doc(hidden)] // `sliced::Fixsliced` names them.
pub use mix::{Finish, Mix, Start};
use mix::{MIXES_10, MIXES_12, MIXES_14};

/// Two blocks, bitsliced: `State[b]` holds bit `b` of all 32 bytes.
pub type State = [u32; 8];

/// AES-256 has 14 rounds, hence 15 round keys.
const MAX_ROUNDS: usize = 14;

/// Blocks per bitsliced state: 32-bit slices, 16 bits per block.
pub const GROUP: usize = 2;

/// An AES key in fixsliced form.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Fixslice {
    /// Round key `i` is `SR^-(i mod 4)(K_i)`, XORed with 0x63 in every byte
    /// for `i ≥ 1`, packed with the key in both block positions.
    round_keys: [State; MAX_ROUNDS + 1],
    /// 10, 12 or 14.
    rounds: usize,
}

impl Fixslice {
    /// The strategy's token, as in aekit.
    pub const NAME: &'static str = "fixslice";
    /// Key-dependent bytes held for an AES-256 key.
    pub const STORAGE_BYTES: usize = (MAX_ROUNDS + 1) * 8 * 4;

    /// Expands a 16-, 24- or 32-byte key (FIPS-197 §5.2) into fixsliced
    /// round keys.
    pub fn new(key: &[u8]) -> Result<Fixslice, Error> {
        let nk = match key.len() {
            16 | 24 | 32 => key.len() / 4,
            n => return Err(Error::InvalidKeyLength(n)),
        };
        let rounds = nk + 6;
        let mut w = [[0u8; 4]; 4 * (MAX_ROUNDS + 1)];
        key_expansion(key, &mut w, sub_word);
        let mut round_keys = [[0u32; 8]; MAX_ROUNDS + 1];
        for (i, packed) in round_keys.iter_mut().enumerate().take(rounds + 1) {
            let mut k = [0u8; 16];
            for c in 0..4 {
                k[4 * c..4 * c + 4].copy_from_slice(&w[4 * i + c]);
            }
            let mut k = shift_rows_back(&k, i % 4);
            if i > 0 {
                // Cancels the 0x63 the XNOR-free S-box leaves in the state.
                k.iter_mut().for_each(|byte| *byte ^= 0x63);
            }
            *packed = pack(&[k; GROUP]);
            k.zeroize();
        }
        w.zeroize();
        Ok(Fixslice { round_keys, rounds })
    }

    /// Number of rounds: 10, 12 or 14.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Encrypts every block in place, two at a time.
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        for group in blocks.chunks_mut(GROUP) {
            let mut state = pack(group);
            self.encrypt_from(&mut state, 0, Start::Round);
            unpack(&state, group);
            state.zeroize();
        }
    }

    /// Runs rounds `first..rounds` and the final key addition on a state
    /// that has been through rounds `0..first` (and, for `Start::Mix`,
    /// through round `first`'s `Ark_Sub` too): for `first = 0` the whole
    /// cipher. FACE (`ctr::face`) enters here after its own first rounds.
    pub(crate) fn encrypt_from(&self, state: &mut State, first: usize, start: Start) {
        let rounds = self.rounds;
        let mixes: &[Mix] = match rounds {
            10 => &MIXES_10,
            12 => &MIXES_12,
            _ => &MIXES_14,
        };
        let finish = if rounds % 4 == 2 {
            Finish::KeySr2
        } else {
            Finish::Key
        };
        run_rounds(
            state,
            &self.round_keys[first..=rounds],
            &mixes[first..],
            start,
            finish,
        );
    }
}

/// SubWord (FIPS-197 §5.2) by the bitsliced circuit: the word in column 0
/// of one block, the rest zero.
fn sub_word(w: [u8; 4]) -> [u8; 4] {
    let mut block = [0u8; 16];
    block[..4].copy_from_slice(&w);
    let mut s = pack(core::slice::from_ref(&block));
    ark_sub(&mut s, &[0; 8]);
    unpack(&s, core::slice::from_mut(&mut block));
    let out = [
        block[0] ^ 0x63,
        block[1] ^ 0x63,
        block[2] ^ 0x63,
        block[3] ^ 0x63,
    ];
    block.zeroize();
    s.zeroize();
    out
}

/// `SR^-times` on a block in state byte order: row `r` moves right by
/// `times · r` columns, so that `SR^times` of the result is `block`.
#[doc(hidden)] // aekit's fixslice uses it.
pub fn shift_rows_back(block: &Block, times: usize) -> Block {
    let mut out = [0u8; 16];
    for c in 0..4 {
        for r in 0..4 {
            // -times ≡ 3·times (mod 4)
            out[4 * c + r] = block[4 * ((c + 3 * times * r) % 4) + r];
        }
    }
    out
}

/// SR^2 on one slice: rows 1 and 3 swap the two nibbles of their lanes.
#[inline(always)]
fn shift_rows_twice(x: u32) -> u32 {
    let t = (x ^ (x >> 4)) & 0x0f00_0f00;
    x ^ t ^ (t << 4)
}

/// `R^rows` on one slice with `cols = rows·j mod 4`: the bit of byte
/// `(r + rows, c + cols)` moves to byte `(r, c)`. A rotation right by
/// `8·rows + 2·cols`, except in the top `cols` columns of each lane, whose
/// source wrapped inside its lane and sits 8 bits closer.
#[inline(always)]
pub(crate) fn gather(x: u32, rows: u32, cols: u32) -> u32 {
    let no_wrap = ((1u32 << (8 - 2 * cols)) - 1) * 0x0101_0101;
    let shift = 8 * rows + 2 * cols;
    if cols == 0 {
        return x.rotate_right(shift);
    }
    // The wrapped bits differ from the plain rotation by `x ⊕ x⋙24`.
    let wrap_fix = (x ^ x.rotate_right(24)).rotate_right(shift) & !no_wrap;
    x.rotate_right(shift) ^ wrap_fix
}

/// `MC_J = SR^-J ∘ MixColumns ∘ SR^J` on the bitsliced state.
pub(crate) fn mix_columns<const J: u32>(s: &mut State) {
    crate::mix_columns_circuit!(s, gather, J);
}

/// `MC_J`: `*s ← SR^-J ∘ MixColumns ∘ SR^J (*s)` for `s: &mut [W; 8]` of
/// any integer word `W`, slice `b` holding bit `b` of every byte, with
/// `gather(x, rows, cols)` the caller's `R^rows` on one slice of its
/// layout. A macro, as `ark_sub_circuit!` is, so that each caller
/// compiles it on its own word: the core's (`u32`) and aekit's fixslice
/// (`u64`).
#[doc(hidden)] // aekit's fixslice uses it.
#[macro_export]
macro_rules! mix_columns_circuit {
    ($s:ident, $gather:ident, $j:expr) => {{
        // next[r][c] = a[r+1][c+J]
        let next = $s.map(|x| $gather(x, 1, $j));
        let mut t = [0; 8];
        for b in 0..8 {
            t[b] = $s[b] ^ next[b];
        }
        // Multiplication by x modulo x^8 + x^4 + x^3 + x + 1: bit 7 falls
        // off and re-enters at bits 0, 1, 3, 4.
        let doubled = [
            t[7],
            t[0] ^ t[7],
            t[1],
            t[2] ^ t[7],
            t[3] ^ t[7],
            t[4],
            t[5],
            t[6],
        ];
        for b in 0..8 {
            // a[r+2][c+2J] ⊕ a[r+3][c+3J], one move of t.
            let far = $gather(t[b], 2, (2 * $j) % 4);
            $s[b] = doubled[b] ^ next[b] ^ far;
        }
    }};
}

/// Rounds `s ← MC_j(S(s ⊕ key) ⊕ 0x63)`, one per `mixes` entry with the
/// `keys` entry of the same index ([`Fixsliced::run_rounds`]). On ARMv7-M
/// the assembly of `armv7m`; elsewhere [`run_rounds_portable`], its
/// reference.
#[inline(always)]
pub(crate) fn run_rounds(
    s: &mut State,
    keys: &[State],
    mixes: &[Mix],
    start: Start,
    finish: Finish,
) {
    #[cfg(aekit_armv7m)]
    armv7m::run_rounds(s, keys, mixes, start, finish);
    #[cfg(not(aekit_armv7m))]
    run_rounds_portable::<Fixslice>(s, keys, mixes, start, finish);
}

/// One round of [`run_rounds`].
#[inline(always)]
pub(crate) fn round(s: &mut State, key: &State, mix: Mix) {
    run_rounds(
        s,
        core::slice::from_ref(key),
        &[mix],
        Start::Round,
        Finish::Nothing,
    );
}

/// Ark_Sub: `s ← S(s ⊕ key) ⊕ 0x63` on every byte.
#[inline(always)]
pub(crate) fn ark_sub(s: &mut State, key: &State) {
    round(s, key, Mix::Skip);
}

/// Whether this target's [`run_rounds`] equals [`run_rounds_portable`]
/// on `state` and `keys`: one round with each mix on `keys[0]`, every
/// three consecutive rounds of AES-256's schedule, and every two followed
/// by each [`Finish`] with `keys[2]`; each from either [`Start`]. The test
/// firmware's check of the ARMv7-M assembly on random inputs (on other
/// targets the two are one function).
#[doc(hidden)]
pub fn rounds_match_portable(state: &State, keys: &[State; 3]) -> bool {
    let single = [Mix::Mc0, Mix::Mc1, Mix::Mc2, Mix::Mc3, Mix::Skip].map(|m| [m]);
    let single = single.iter().map(|m| (&keys[..1], &m[..], Finish::Nothing));
    let runs = (0..MIXES_14.len() - 2).map(|i| (&keys[..], &MIXES_14[i..i + 3], Finish::Nothing));
    let finished = (0..MIXES_14.len() - 1).flat_map(|i| {
        [Finish::Nothing, Finish::Key, Finish::KeySr2]
            .map(|finish| (&keys[..], &MIXES_14[i..i + 2], finish))
    });
    single
        .chain(runs)
        .chain(finished)
        .flat_map(|(keys, mixes, finish)| {
            [Start::Round, Start::Mix].map(|start| (keys, mixes, start, finish))
        })
        .all(|(keys, mixes, start, finish)| {
            let (mut a, mut b) = (*state, *state);
            run_rounds(&mut a, keys, mixes, start, finish);
            run_rounds_portable::<Fixslice>(&mut b, keys, mixes, start, finish);
            a == b
        })
}

/// Ark_Sub in portable Rust: the circuit of `aes/sbox.rs`
/// (`ark_sub_circuit!`) on 32-bit slices.
pub(crate) fn ark_sub_portable(s: &mut State, key: &State) {
    crate::ark_sub_circuit!(s, key);
}

/// The 8×8 bit transposition across eight words: bit `8j + w` of word `b`
/// trades places with bit `8j + b` of word `w` (three swap stages; its own
/// inverse). Written out swap by swap so that it compiles to straight-line
/// code on every target.
#[inline(always)]
fn transpose(w: &mut [u32; 8]) {
    swap_move(w, 0, 1, 1, 0x5555_5555);
    swap_move(w, 2, 3, 1, 0x5555_5555);
    swap_move(w, 4, 5, 1, 0x5555_5555);
    swap_move(w, 6, 7, 1, 0x5555_5555);
    swap_move(w, 0, 2, 2, 0x3333_3333);
    swap_move(w, 1, 3, 2, 0x3333_3333);
    swap_move(w, 4, 6, 2, 0x3333_3333);
    swap_move(w, 5, 7, 2, 0x3333_3333);
    swap_move(w, 0, 4, 4, 0x0f0f_0f0f);
    swap_move(w, 1, 5, 4, 0x0f0f_0f0f);
    swap_move(w, 2, 6, 4, 0x0f0f_0f0f);
    swap_move(w, 3, 7, 4, 0x0f0f_0f0f);
}

/// Swaps the bits of `w[lo]` selected by `mask << step` with the bits of
/// `w[hi]` selected by `mask`.
#[inline(always)]
fn swap_move(w: &mut [u32; 8], lo: usize, hi: usize, step: u32, mask: u32) {
    let t = ((w[lo] >> step) ^ w[hi]) & mask;
    w[hi] ^= t;
    w[lo] ^= t << step;
}

/// Column `c` of a block as a word, row `r` in byte `r`.
#[doc(hidden)] // aekit's fixslice uses it.
#[inline(always)]
pub fn column(block: &Block, c: usize) -> u32 {
    u32::from_le_bytes([
        block[4 * c],
        block[4 * c + 1],
        block[4 * c + 2],
        block[4 * c + 3],
    ])
}

/// Bitslices up to two blocks (a missing one reads as zero): word
/// `2c + k` is column `c` of block `k`; after the transposition bit `b`
/// of its byte `r` is bit `8r + 2c + k` of slice `b`. One copy in the
/// binary: callers are many and the body is long.
#[inline(never)]
pub(crate) fn pack(blocks: &[Block]) -> State {
    let mut w = [0u32; 8];
    for (k, block) in blocks.iter().enumerate().take(GROUP) {
        for c in 0..4 {
            w[2 * c + k] = column(block, c);
        }
    }
    transpose(&mut w);
    w
}

/// Writes the packed state back to up to two blocks; the inverse of
/// [`pack`].
pub(crate) fn unpack(state: &State, blocks: &mut [Block]) {
    let mut w = *state;
    transpose(&mut w);
    for (k, block) in blocks.iter_mut().enumerate().take(GROUP) {
        for c in 0..4 {
            block[4 * c..4 * c + 4].copy_from_slice(&w[2 * c + k].to_le_bytes());
        }
    }
    w.zeroize();
}

/// XORs the packed state's blocks, as [`unpack`] writes them, into
/// `chunk` (at most two blocks, the last possibly partial): counter
/// mode's last step without the keystream stored as bytes and read back.
/// Block `k`'s column `c` is word `2c + k` after the transposition, and
/// bytes `16k + 4c ..` of `chunk`. One copy in the binary: every counter
/// mode ends here.
#[inline(never)]
pub(crate) fn unpack_xor(state: &State, chunk: &mut [u8]) {
    let Ok(whole) = <&mut [u8; 32]>::try_from(&mut *chunk) else {
        return xor_unpacked_bytes(state, chunk);
    };
    let mut w = *state;
    transpose(&mut w);
    for (i, bytes) in whole.as_chunks_mut::<4>().0.iter_mut().enumerate() {
        *bytes = (u32::from_le_bytes(*bytes) ^ w[2 * (i % 4) + i / 4]).to_le_bytes();
    }
    w.zeroize();
}

/// [`unpack_xor`] for a chunk shorter than two blocks (a message's end):
/// unpacked, then XORed byte by byte. Out of line, so that the
/// whole-chunk path keeps its words in registers.
#[cold]
#[inline(never)]
fn xor_unpacked_bytes(state: &State, chunk: &mut [u8]) {
    xor_unpacked::<Fixslice>(state, chunk);
}

/// The core's cipher as FACE enters it: two blocks on 32-bit slices.
impl Fixsliced for Fixslice {
    type Word = u32;
    type Parallels = [State; 32];
    type Groups = [State; 128];
    const NO_PARALLELS: [State; 32] = [[0; 8]; 32];
    const NO_GROUPS: [State; 128] = [[0; 8]; 128];

    /// Packed round key `i`, in the form the rounds XOR in.
    #[inline(always)]
    fn round_key(&self, i: usize) -> &State {
        &self.round_keys[i]
    }
    #[inline(always)]
    fn encrypt_from(&self, s: &mut State, first: usize, start: Start) {
        Fixslice::encrypt_from(self, s, first, start);
    }
    #[inline(always)]
    fn pack(blocks: &[Block]) -> State {
        pack(blocks)
    }
    #[inline(always)]
    fn unpack(s: &State, blocks: &mut [Block]) {
        unpack(s, blocks);
    }
    #[inline(always)]
    fn unpack_xor(s: &State, chunk: &mut [u8]) {
        unpack_xor(s, chunk);
    }
    #[inline(always)]
    fn gather(x: u32, rows: u32, cols: u32) -> u32 {
        gather(x, rows, cols)
    }
    #[inline(always)]
    fn mix_columns<const J: u32>(s: &mut State) {
        mix_columns::<J>(s);
    }
    #[inline(always)]
    fn ark_sub(s: &mut State, key: &State) {
        ark_sub_portable(s, key);
    }
    #[inline(always)]
    fn shift_rows_twice(x: u32) -> u32 {
        shift_rows_twice(x)
    }
    #[inline(always)]
    fn run_rounds(s: &mut State, keys: &[State], mixes: &[Mix], start: Start, finish: Finish) {
        run_rounds(s, keys, mixes, start, finish);
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    fn xtime(a: u8) -> u8 {
        (a << 1) ^ (0x1b & (a >> 7).wrapping_neg())
    }

    fn gf_mul(mut a: u8, mut b: u8) -> u8 {
        let mut p = 0;
        while b != 0 {
            if b & 1 == 1 {
                p ^= a;
            }
            a = xtime(a);
            b >>= 1;
        }
        p
    }

    /// The S-box by its definition: x^254 and the affine map.
    fn sub_byte(x: u8) -> u8 {
        let mut inv = 1u8;
        for _ in 0..254 {
            inv = gf_mul(inv, x);
        }
        let b = inv;
        b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63
    }

    fn blocks(seed: u32) -> [Block; 2] {
        let mut x = seed;
        core::array::from_fn(|_| {
            core::array::from_fn(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
        })
    }

    #[test]
    fn pack_places_each_bit_where_the_header_says() {
        let group = blocks(1);
        let state = pack(&group);
        for (k, block) in group.iter().enumerate() {
            for c in 0..4 {
                for r in 0..4 {
                    for (b, slice) in state.iter().enumerate() {
                        let want = (block[4 * c + r] >> b) & 1;
                        let got = (slice >> (8 * r + 2 * c + k)) & 1;
                        assert_eq!(got as u8, want, "block {k} row {r} col {c} bit {b}");
                    }
                }
            }
        }
        let mut back = [[0u8; 16]; 2];
        unpack(&state, &mut back);
        assert_eq!(back, group);
    }

    #[test]
    fn ark_sub_is_the_sbox_plus_0x63() {
        for base in (0..256).step_by(32) {
            let group: [Block; 2] =
                core::array::from_fn(|k| core::array::from_fn(|i| (base + 16 * k + i) as u8));
            let mut s = pack(&group);
            ark_sub(&mut s, &[0; 8]);
            let mut out = [[0u8; 16]; 2];
            unpack(&s, &mut out);
            for (x, y) in group.iter().flatten().zip(out.iter().flatten()) {
                assert_eq!(*y, sub_byte(*x) ^ 0x63, "input {x:#04x}");
            }
        }
    }

    #[test]
    fn mix_columns_variants_are_conjugates_by_shift_rows() {
        fn mix_bytes(s: &Block) -> Block {
            let mut out = [0u8; 16];
            for c in 0..4 {
                for r in 0..4 {
                    let a = |i: usize| s[4 * c + (r + i) % 4];
                    out[4 * c + r] = gf_mul(a(0), 2) ^ gf_mul(a(1), 3) ^ a(2) ^ a(3);
                }
            }
            out
        }
        fn check<const J: u32>() {
            let group = blocks(4 + J);
            let mut state = pack(&group);
            mix_columns::<J>(&mut state);
            let mut got = [[0u8; 16]; 2];
            unpack(&state, &mut got);
            let j = J as usize;
            for (a, g) in group.iter().zip(&got) {
                let shifted = shift_rows_back(a, (4 - j) % 4);
                assert_eq!(*g, shift_rows_back(&mix_bytes(&shifted), j), "MC_{J}");
            }
        }
        check::<0>();
        check::<1>();
        check::<2>();
        check::<3>();
    }

    /// FIPS-197 Appendix C.1, C.2 and C.3.
    #[test]
    fn fips_197_appendix_c() {
        let pt: Block = core::array::from_fn(|i| (i * 0x11) as u8);
        let cases: [(usize, Block); 3] = [
            (
                16,
                *b"\x69\xc4\xe0\xd8\x6a\x7b\x04\x30\xd8\xcd\xb7\x80\x70\xb4\xc5\x5a",
            ),
            (
                24,
                *b"\xdd\xa9\x7c\xa4\x86\x4c\xdf\xe0\x6e\xaf\x70\xa0\xec\x0d\x71\x91",
            ),
            (
                32,
                *b"\x8e\xa2\xb7\xca\x51\x67\x45\xbf\xea\xfc\x49\x90\x4b\x49\x60\x89",
            ),
        ];
        for (len, want) in cases {
            let key: [u8; 32] = core::array::from_fn(|i| i as u8);
            let aes = Fixslice::new(&key[..len]).unwrap();
            let mut b = [pt, pt, pt];
            aes.encrypt_blocks(&mut b);
            assert_eq!(b, [want; 3], "AES-{}", len * 8);
        }
    }
}
