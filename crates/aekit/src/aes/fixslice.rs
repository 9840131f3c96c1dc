//! Fixsliced AES on 64-bit words: constant-time, portable, four blocks at
//! a time.
//!
//! The technique is A. Adomnicai and T. Peyrin, *Fixslicing AES-like
//! Ciphers: New bitsliced AES speed records on ARM-Cortex M and RISC-V*,
//! IACR TCHES 2021(1). This file is a fresh 64-bit rendering of it.
//!
//! # Representation
//!
//! Four blocks (64 bytes) are held in eight `u64` *slices*; slice `b` holds
//! bit `b` (0 = least significant) of all 64 bytes. Inside a slice the byte
//! at row `r`, column `c` (state byte `4c + r`, FIPS-197 §3.4) of block `k`
//! of the group sits at
//!
//! ```text
//!     bit 16·r + 4·c + k          (r, c, k ∈ 0..4)
//!
//!     bit 63                                                    bit 0
//!     |     row 3     |     row 2     |     row 1     |     row 0     |
//!                                                     |c3 |c2 |c1 |c0 |
//!                                                                 |   |
//!                                                             k: 3 2 1 0
//! ```
//!
//! so a row is a 16-bit lane, a column is a nibble inside it, and the four
//! blocks are the four bits of the nibble. Moving bytes from row to row is
//! one word rotation by a multiple of 16 — which is what MixColumns needs —
//! and moving them along their row is a rotation *inside* the 16-bit lanes,
//! which costs two rotations and a blend (five operations instead of one).
//!
//! Packing (`pack`) builds eight words — word `4·(c mod 2) + k` holds the
//! bytes of the two columns of block `k` with that parity, interleaved by
//! row — and then runs the 8×8 bit transposition (three swap stages) that
//! turns "bit `b` of byte `j` of word `w`" into "bit `8j + w` of slice `b`".
//! `unpack` is the same steps backwards.
//!
//! # Fixslicing
//!
//! ShiftRows moves row `r` along by `r` columns: in this layout a different
//! in-lane rotation per lane, about 19 operations per slice. Fixslicing
//! never applies it. After `i` rounds the slices hold `P_i = SR^-i (S_i)`,
//! the true state `S_i` with `i` ShiftRows *not* applied. One round of AES,
//! `S_{i+1} = MC(SR(SB(S_i ⊕ K_i)))`, becomes
//!
//! ```text
//!     P_{i+1} = MC_j( SB( P_i ⊕ SR^-i(K_i) ) ),   j = (i + 1) mod 4,
//!     MC_j    = SR^-j ∘ MC ∘ SR^j,
//! ```
//!
//! because SubBytes is bytewise and commutes with any byte permutation, and
//! `SR^4 = id`. `MC_j` mixes, for every byte `(r, c)`,
//!
//! ```text
//!     out[r][c] = 2·a[r][c] ⊕ 3·a[r+1][c+j] ⊕ a[r+2][c+2j] ⊕ a[r+3][c+3j]
//! ```
//!
//! (indices mod 4), i.e. MixColumns along a "diagonal" of slope `j`.
//! Writing `R(x)[r][c] = x[r+1][c+j]`, it is computed as `t = a ⊕ R(a)`,
//! `out = 2·t ⊕ R(a) ⊕ R²(t)` (`gather` implements `R` and `R²`; `2·` is a
//! bitsliced xtime, three XORs). This is the *fully fixsliced* variant of the paper: the round
//! function cycles through `MC_1, MC_2, MC_3, MC_0, MC_1, …`, the round keys
//! absorb the `SR^-i` (computed once in [`Fixslice::new`]), and the only
//! re-alignment is at the very end: the output is `SR^Nr (P_Nr ⊕
//! SR^-Nr(K_Nr))`, and `SR^Nr` is `SR^2` for AES-128 and AES-256 (one
//! six-operation swap per slice, rows 1 and 3 swap their lane halves) and the
//! identity for AES-192.
//!
//! # S-box and Ark_Sub
//!
//! SubBytes is the 115-gate circuit of J. Boyar and R. Peralta, *A new
//! combinational logic minimization technique with applications to
//! cryptology* (SEA 2010): 23 XOR (top linear layer), 32 AND and 30 XOR
//! (inversion in GF(2^4)² form), 26 XOR and 4 XNOR (bottom linear layer and
//! the affine map). It is aekit-core's (`aekit_core::ark_sub_circuit!`,
//! written for any word), which its 32-bit fixslice runs too. The unit tests check
//! it on 64-bit slices on all 256 inputs against the arithmetic `sub_byte`
//! of the parent module.
//!
//! AddRoundKey and SubBytes are fused into one routine (`ark_sub`, the
//! Ark_Sub of the fixsliced Cortex-M4 work): the key slice is XORed in as
//! each input enters the circuit, so the keyed state is never stored. The
//! four XNORs are the affine constant 0x63 (bits 0, 1, 5, 6); the circuit
//! here uses plain XORs and so computes `S(x) ⊕ 0x63`. Every MixColumns
//! variant maps the all-0x63 state to itself (2 ⊕ 3 ⊕ 1 ⊕ 1 = 1, and a byte
//! permutation of a constant state is that state), so the stray constant
//! rides through to the next AddRoundKey and is cancelled there: round keys
//! 1..=Nr are stored XORed with 0x63 in every byte. Four operations per
//! round saved, for free.
//!
//! # Cost (u64 operations per round, four blocks)
//!
//! | step          | ops | how                                             |
//! |---------------|-----|-------------------------------------------------|
//! | AddRoundKey   |   8 | one XOR per slice, fused into the S-box inputs  |
//! | SubBytes      | 115 | 32 AND + 83 XOR                                 |
//! | MC_0          |  43 | 16 rotations + 27 XOR                           |
//! | MC_2          |  75 | `R` in-lane (5 ops), `R²` a plain rotation      |
//! | MC_1, MC_3    | 107 | `R` and `R²` both in-lane                       |
//!
//! About 206 operations per round on average over the 4-round cycle, about
//! 2 050 for the ten rounds of AES-128 (final SR² included), plus about 150
//! each way for packing and unpacking: ≈ 37 operations per byte.
//!
//! # Storage
//!
//! Each round key is packed like a state, the same 16 bytes replicated into
//! the four block positions, so it XORs straight in: 8 slices × 8 bytes =
//! 64 bytes per round key, 15 round keys for AES-256: 960 bytes, zeroized on
//! drop.
//!
//! # Constant time
//!
//! Data and key only ever meet AND, XOR, and rotations and shifts by
//! constants, on whole words. There is no table; every array index is a
//! position fixed by the code (round number, slice number, byte position),
//! and the only branches test the number of blocks and the number of rounds,
//! both public. The round keys come from [`KeySchedule`], whose S-box is
//! computed arithmetically.
//!
//! # Tried and rejected
//!
//! - *Plain bitslicing* (ShiftRows applied every round, as in BearSSL's
//!   `aes_ct64`, which uses this same layout): ShiftRows is four masked
//!   pieces per slice with three in-lane rotations, about 19 operations per
//!   slice, ~150 per round, on top of MC_0's 43: ≈ 193 against
//!   fixslicing's average of ≈ 83 for the linear layer.
//! - *Semi-fixslicing* (alternate MC_1 with an explicit SR² then MC_0, so the
//!   round keys need only two variants): 107 + 48 + 43 = 198 per two rounds,
//!   99 per round. The key variants cost nothing at run time here (they are
//!   computed once at key setup), so the fully fixsliced cycle wins.
//! - *A layout where column moves are word rotations*: rows and columns form
//!   Z4 × Z4, which no single word rotation walks cyclically in both
//!   directions; putting the row in the 16-bit lane index keeps MC_0, the
//!   cheapest variant, at one rotation per move.
//! - *Round keys stored once (16 bits per slice) and broadcast at use*: 4×
//!   less storage, but every slice of every round would need its bits
//!   widened to nibbles (a few shifts and masks) before the XOR; the 960
//!   bytes are kept instead.
//! - *FACE* inside this file (caching the counter-invariant part of the
//!   first rounds in CTR mode, the other half of the seed work): aekit-core's
//!   FACE engines (`aekit_core::ctr::face::fixslice`, one set for its 32-bit
//!   cipher and this one) enter the rounds here through the `Fixsliced`
//!   trait, so this file stays one block cipher.

use aekit_core::aes::fixslice::{column, shift_rows_back};
use aekit_core::aes::sliced::{Fixsliced, Start, xor_unpacked};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::{Block, BlockCipher, KeySchedule};

/// Four blocks, bitsliced: `State[b]` holds bit `b` of all 64 bytes, at the
/// positions described in the module header.
pub(crate) type State = [u64; 8];

/// AES-256 has 14 rounds, hence 15 round keys.
const MAX_ROUNDS: usize = 14;

/// Blocks per bitsliced group: 64-bit slices, 16 bits per block.
pub(crate) const GROUP: usize = 4;

/// The `fixslice` strategy: round keys in fixsliced form.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Fixslice {
    /// Round key `i` is `SR^-(i mod 4)(K_i)`, XORed with 0x63 in every byte
    /// for `i ≥ 1`, packed with the key replicated into all four blocks.
    round_keys: [State; MAX_ROUNDS + 1],
    /// 10, 12 or 14.
    rounds: usize,
}

impl BlockCipher for Fixslice {
    const NAME: &'static str = "fixslice";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = (MAX_ROUNDS + 1) * 8 * 8;

    fn new(keys: &KeySchedule) -> Option<Self> {
        let mut round_keys = [[0u64; 8]; MAX_ROUNDS + 1];
        for (i, (packed, key)) in round_keys.iter_mut().zip(keys.round_keys()).enumerate() {
            let mut k = shift_rows_back(key, i % 4);
            if i > 0 {
                // Cancels the 0x63 the XNOR-free S-box leaves in the state.
                k.iter_mut().for_each(|byte| *byte ^= 0x63);
            }
            *packed = pack(&[k; GROUP]);
            k.zeroize();
        }
        Some(Fixslice {
            round_keys,
            rounds: keys.rounds(),
        })
    }

    fn encrypt_blocks(&self, blocks: &mut [Block]) {
        // A short last group is packed with zero blocks in the missing
        // places and only the real ones are written back: no copy needed.
        for group in blocks.chunks_mut(GROUP) {
            let mut state = pack(group);
            self.encrypt_state(&mut state);
            unpack(&state, group);
            state.zeroize();
        }
    }
}

impl Fixslice {
    /// Encrypts the four packed blocks.
    fn encrypt_state(&self, state: &mut State) {
        self.encrypt_from(state, 0);
    }

    /// Runs rounds `first..rounds` and the final key addition on a state
    /// that has been through rounds `0..first`: for `first = 0` the whole
    /// cipher. Counter-mode caching (`ctr::face`) enters here after
    /// computing the first rounds its own way.
    #[inline(always)]
    pub(crate) fn encrypt_from(&self, state: &mut State, first: usize) {
        let rounds = self.rounds;
        for (i, key) in self.round_keys[..rounds].iter().enumerate().skip(first) {
            ark_sub(state, key);
            // The round number is public; each arm is a specialised copy.
            match (i + 1) % 4 {
                _ if i + 1 == rounds => {} // the last round has no MixColumns
                1 => mix_columns::<1>(state),
                2 => mix_columns::<2>(state),
                3 => mix_columns::<3>(state),
                _ => mix_columns::<0>(state),
            }
        }
        for (s, k) in state.iter_mut().zip(&self.round_keys[rounds]) {
            *s ^= k;
        }
        // Re-align: the state lags the true one by SR^rounds, and rounds is
        // even, so this is SR^2 (AES-128, AES-256) or nothing (AES-192).
        if rounds % 4 == 2 {
            state.iter_mut().for_each(|s| *s = shift_rows_twice(*s));
        }
    }
}

/// SR^2 on one slice: rows 1 and 3 move by two columns, i.e. the two bytes
/// of their 16-bit lanes trade places; rows 0 and 2 stay.
#[inline(always)]
fn shift_rows_twice(x: u64) -> u64 {
    let t = (x ^ (x >> 8)) & 0x00ff_0000_00ff_0000;
    x ^ t ^ (t << 8)
}

/// `R^rows` of the header on one slice, for `R(x)[r][c] = x[r+1][c+j]` and
/// `cols = rows·j mod 4`: the bit of byte `(r + rows, c + cols)` moves to
/// byte `(r, c)`. That is a rotation right by `16·rows + 4·cols`, except in
/// the top `cols` columns of each lane, whose source wrapped around inside
/// its lane and so sits 16 bits closer. With `cols = 0` the blend folds away
/// at compile time and one rotation remains.
#[inline(always)]
pub(crate) fn gather(x: u64, rows: u32, cols: u32) -> u64 {
    // Destination columns 0..4-cols (the low nibbles of each lane) do not
    // wrap.
    let no_wrap = ((1u64 << (16 - 4 * cols)) - 1) * 0x0001_0001_0001_0001;
    let shift = 16 * rows + 4 * cols;
    (x.rotate_right(shift) & no_wrap) | (x.rotate_right(shift + 48) & !no_wrap)
}

/// Ark_Sub: `s ← S(s ⊕ key) ⊕ 0x63` on every byte, with AddRoundKey done
/// as the inputs enter the circuit: aekit-core's Boyar–Peralta circuit on
/// 64-bit slices (header, "S-box and Ark_Sub").
#[inline(always)]
pub(crate) fn ark_sub(s: &mut State, key: &State) {
    aekit_core::ark_sub_circuit!(s, key);
}

/// `MC_J = SR^-J ∘ MixColumns ∘ SR^J` on the bitsliced state (header):
/// aekit-core's `mix_columns_circuit!` on 64-bit slices.
#[inline(always)]
pub(crate) fn mix_columns<const J: u32>(s: &mut State) {
    aekit_core::mix_columns_circuit!(s, gather, J);
}

/// Spreads the four bytes of `x` to the even bytes of a word (byte `i` to
/// byte `2i`), zeros between.
#[inline(always)]
fn spread_bytes(x: u32) -> u64 {
    let x = x as u64;
    let x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
    (x | (x << 8)) & 0x00ff_00ff_00ff_00ff
}

/// Inverse of [`spread_bytes`]: the even bytes of `x`, packed.
#[inline(always)]
fn gather_even_bytes(x: u64) -> u32 {
    let x = x & 0x00ff_00ff_00ff_00ff;
    let x = (x | (x >> 8)) & 0x0000_ffff_0000_ffff;
    (x | (x >> 16)) as u32
}

/// The 8×8 bit transposition across eight words: bit `8j + w` of word `b`
/// trades places with bit `8j + b` of word `w`. Stage `k` exchanges bit `k`
/// of the word index with bit `k` of the bit position: in each pair of words
/// `(lo, hi)` differing in index bit `k`, the bits of `lo` at positions with
/// bit `k` set swap with the bits of `hi` `2^k` places lower. The stages
/// touch different index bits, so they commute and the whole is its own
/// inverse.
#[inline(always)]
fn transpose(w: &mut [u64; 8]) {
    const MASKS: [u64; 3] = [
        0x5555_5555_5555_5555,
        0x3333_3333_3333_3333,
        0x0f0f_0f0f_0f0f_0f0f,
    ];
    for (k, mask) in MASKS.into_iter().enumerate() {
        let step = 1 << k;
        for lo in (0..8).filter(|i| i & step == 0) {
            let hi = lo | step;
            let t = ((w[lo] >> step) ^ w[hi]) & mask;
            w[hi] ^= t;
            w[lo] ^= t << step;
        }
    }
}

/// Bitslices up to four blocks (missing ones read as zero).
///
/// Word `4·p + k` gets the columns of parity `p` of block `k`, interleaved
/// by row: byte `2r + h` is row `r` of column `2h + p`. After the
/// transposition, bit `b` of that byte lands in slice `b` at position
/// `8·(2r + h) + 4p + k = 16r + 4c + k`.
#[inline(always)]
pub(crate) fn pack(blocks: &[Block]) -> State {
    let mut w = [0u64; 8];
    for (k, block) in blocks.iter().enumerate().take(GROUP) {
        for p in 0..2 {
            w[4 * p + k] = spread_bytes(column(block, p)) | spread_bytes(column(block, p + 2)) << 8;
        }
    }
    transpose(&mut w);
    w
}

/// Writes the packed state back to up to four blocks; the inverse of
/// [`pack`].
#[inline(always)]
pub(crate) fn unpack(state: &State, blocks: &mut [Block]) {
    let mut w = *state;
    transpose(&mut w);
    for (k, block) in blocks.iter_mut().enumerate().take(GROUP) {
        for p in 0..2 {
            let even = gather_even_bytes(w[4 * p + k]).to_le_bytes();
            let odd = gather_even_bytes(w[4 * p + k] >> 8).to_le_bytes();
            block[4 * p..4 * p + 4].copy_from_slice(&even);
            block[4 * (p + 2)..4 * (p + 2) + 4].copy_from_slice(&odd);
        }
    }
    w.zeroize();
}

/// This cipher as aekit-core's FACE engines enter it (`ctr::face`): four
/// blocks on 64-bit slices, the rounds of this file.
impl Fixsliced for Fixslice {
    type Word = u64;
    type Parallels = [State; 16];
    type Groups = [State; 64];
    const NO_PARALLELS: [State; 16] = [[0; 8]; 16];
    const NO_GROUPS: [State; 64] = [[0; 8]; 64];

    /// Packed round key `i`, in the form the rounds XOR in (header,
    /// "Storage").
    #[inline(always)]
    fn round_key(&self, i: usize) -> &State {
        &self.round_keys[i]
    }

    /// `Start::Mix`: round `first`'s MixColumns, then the rounds after.
    #[inline(always)]
    fn encrypt_from(&self, s: &mut State, first: usize, start: Start) {
        if start == Start::Round {
            return Fixslice::encrypt_from(self, s, first);
        }
        match (first + 1) % 4 {
            1 => mix_columns::<1>(s),
            2 => mix_columns::<2>(s),
            3 => mix_columns::<3>(s),
            _ => mix_columns::<0>(s),
        }
        Fixslice::encrypt_from(self, s, first + 1);
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
        xor_unpacked::<Self>(s, chunk);
    }

    #[inline(always)]
    fn gather(x: u64, rows: u32, cols: u32) -> u64 {
        gather(x, rows, cols)
    }

    #[inline(always)]
    fn mix_columns<const J: u32>(s: &mut State) {
        mix_columns::<J>(s);
    }

    #[inline(always)]
    fn ark_sub(s: &mut State, key: &State) {
        ark_sub(s, key);
    }

    #[inline(always)]
    fn shift_rows_twice(x: u64) -> u64 {
        shift_rows_twice(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes::schedule::{gf_mul, sub_byte};

    /// Deterministic test bytes (an LCG is plenty for layout tests).
    fn blocks(seed: u64, n: usize) -> Vec<Block> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                let mut b = [0u8; 16];
                for byte in &mut b {
                    x = x
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    *byte = (x >> 56) as u8;
                }
                b
            })
            .collect()
    }

    /// Byte-level reference: MixColumns on each column.
    fn mix_columns_bytes(s: &Block) -> Block {
        let mut out = [0u8; 16];
        for c in 0..4 {
            for r in 0..4 {
                let a = |i: usize| s[4 * c + (r + i) % 4];
                out[4 * c + r] = gf_mul(a(0), 2) ^ gf_mul(a(1), 3) ^ a(2) ^ a(3);
            }
        }
        out
    }

    /// Byte-level reference: `SR^times`, as `SR^-(4 - times)`.
    fn shift_rows(s: &Block, times: usize) -> Block {
        shift_rows_back(s, (4 - times % 4) % 4)
    }

    #[test]
    fn pack_places_each_bit_where_the_header_says() {
        let group = blocks(1, 4);
        let state = pack(&group);
        for (k, block) in group.iter().enumerate() {
            for c in 0..4 {
                for r in 0..4 {
                    for (b, slice) in state.iter().enumerate() {
                        let want = (block[4 * c + r] >> b) & 1;
                        let got = (slice >> (16 * r + 4 * c + k)) & 1;
                        assert_eq!(got as u8, want, "block {k} row {r} col {c} bit {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn pack_unpack_round_trip() {
        for n in 0..=GROUP {
            let group = blocks(n as u64 + 2, n);
            let mut back = vec![[0xa5u8; 16]; n];
            unpack(&pack(&group), &mut back);
            assert_eq!(back, group, "{n} blocks");
        }
        // Missing blocks pack as zero.
        let one = blocks(9, 1);
        let mut four = [[0xffu8; 16]; 4];
        unpack(&pack(&one), &mut four);
        assert_eq!(four, [one[0], [0; 16], [0; 16], [0; 16]]);
    }

    #[test]
    fn ark_sub_is_the_sbox_plus_0x63() {
        let key = pack(&blocks(3, 4));
        let mut key_bytes = [[0u8; 16]; 4];
        unpack(&key, &mut key_bytes);
        for quarter in 0..4u8 {
            let mut group = [[0u8; 16]; 4];
            for (i, byte) in group.iter_mut().flatten().enumerate() {
                *byte = quarter * 64 + i as u8;
            }
            let mut state = pack(&group);
            ark_sub(&mut state, &key);
            let mut out = [[0u8; 16]; 4];
            unpack(&state, &mut out);
            for ((x, y), k) in group
                .iter()
                .flatten()
                .zip(out.iter().flatten())
                .zip(key_bytes.iter().flatten())
            {
                assert_eq!(*y, sub_byte(x ^ k) ^ 0x63, "input {x:#04x}");
            }
        }
    }

    #[test]
    fn mix_columns_variants_are_conjugates_by_shift_rows() {
        fn check<const J: u32>() {
            let group = blocks(4 + J as u64, 4);
            let mut state = pack(&group);
            mix_columns::<J>(&mut state);
            let mut got = [[0u8; 16]; 4];
            unpack(&state, &mut got);
            for (a, g) in group.iter().zip(&got) {
                let j = J as usize;
                let want = shift_rows_back(&mix_columns_bytes(&shift_rows(a, j)), j);
                assert_eq!(*g, want, "MC_{J}");
            }
        }
        check::<0>();
        check::<1>();
        check::<2>();
        check::<3>();
    }

    #[test]
    fn shift_rows_twice_matches_bytes() {
        let group = blocks(8, 4);
        let state = pack(&group).map(shift_rows_twice);
        let mut got = [[0u8; 16]; 4];
        unpack(&state, &mut got);
        for (a, g) in group.iter().zip(&got) {
            assert_eq!(*g, shift_rows(a, 2));
        }
    }
}
