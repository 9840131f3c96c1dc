//! What FACE's engines (`ctr/face/fixslice.rs`) need of a fixsliced AES,
//! whatever its word: the core's two blocks on 32-bit slices
//! ([`Fixslice`](super::Fixslice)) and aekit's four blocks on 64-bit
//! slices. One set of engines serves both; each cipher says here how its
//! word holds a state and how its rounds run.
//!
//! # The layout both words share
//!
//! A word of `16·G` bits holds `G` blocks (`G` = [`Slice::GROUP`]): slice
//! `b` of a state holds bit `b` of every byte, and the byte at row `r`,
//! column `c` of block `k` sits at bit `4G·r + G·c + k`. A row is a lane of
//! `4G` bits, a column `G` bits inside it, a block one bit of those. So
//! counter byte 15 (row 3, column 3) of block `k` is bit `15G + k`, row 3
//! is the top `4G` bits ([`Slice::ROW3`]), and diagonal 0 (row `r`, column
//! `r`) the bits `5G·r + k` ([`Slice::DIAG0`]).
//!
//! # Constant time
//!
//! Nothing here branches on data or indexes by it: the trait's methods are
//! each cipher's constant-time packing and rounds, and the two functions
//! below loop over public counts.
//!
//! # Rejected
//!
//! - *The engines once per word* (aekit kept a copy on `u64`): two sets of
//!   the same caches to keep equal.
//! - *The tables' sizes as const parameters of the engines*
//!   (`Rd1Plus<A, 32>`): a second parameter at every use, where the word
//!   fixes them (`Fixsliced::Parallels`, `Groups`).

use core::ops::{BitAnd, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl};

use zeroize::Zeroize;

use super::Block;
pub use super::fixslice::{Finish, Mix, Start};

/// A slice word: `u32` (two blocks) or `u64` (four).
pub trait Slice:
    Copy
    + Eq
    + Zeroize
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + BitOrAssign
    + BitXorAssign
{
    /// Blocks per state: the word's bits over 16.
    const GROUP: usize;
    /// `GROUP` blocks of bytes, as a state packs from and unpacks to.
    type Blocks: AsRef<[Block]> + AsMut<[Block]> + Copy + Zeroize;
    /// `GROUP` zero blocks.
    const NO_BLOCKS: Self::Blocks;
    /// Diagonal 0 of every block: bits `5G·r + k`.
    const DIAG0: Self;
    /// Row 3 of every block: the top `4G` bits.
    const ROW3: Self;
    /// No bit set.
    const ZERO: Self;
    /// Bit 0 of `x`, as the word's bit 0.
    fn low_bit(x: u8) -> Self;
    /// All ones if bit 0 of `x` is set, else zero.
    fn mask(x: u8) -> Self;
}

impl Slice for u32 {
    const GROUP: usize = 2;
    type Blocks = [Block; 2];
    const NO_BLOCKS: [Block; 2] = [[0; 16]; 2];
    const DIAG0: u32 = 0xc030_0c03;
    const ROW3: u32 = 0xff00_0000;
    const ZERO: u32 = 0;
    #[inline(always)]
    fn low_bit(x: u8) -> u32 {
        u32::from(x & 1)
    }
    #[inline(always)]
    fn mask(x: u8) -> u32 {
        u32::from(x & 1).wrapping_neg()
    }
}

impl Slice for u64 {
    const GROUP: usize = 4;
    type Blocks = [Block; 4];
    const NO_BLOCKS: [Block; 4] = [[0; 16]; 4];
    const DIAG0: u64 = 0xf000_0f00_00f0_000f;
    const ROW3: u64 = 0xffff_0000_0000_0000;
    const ZERO: u64 = 0;
    #[inline(always)]
    fn low_bit(x: u8) -> u64 {
        u64::from(x & 1)
    }
    #[inline(always)]
    fn mask(x: u8) -> u64 {
        u64::from(x & 1).wrapping_neg()
    }
}

/// A state of `A`: eight slices.
pub type State<A> = [<A as Fixsliced>::Word; 8];

/// A fixsliced AES key, as FACE enters it. Round `i` is `Ark_Sub(K_i)`
/// then `MC_{(i+1) mod 4}` (`aes/fixslice.rs`); the round keys are
/// `SR^-(i mod 4)(K_i)`, XORed with 0x63 for `i ≥ 1`, packed with the key
/// in every block position.
pub trait Fixsliced {
    /// The slice word.
    type Word: Slice;
    /// `rd1+`'s table: `256 / (4G)` parallel states, all zero.
    type Parallels: AsRef<[State<Self>]> + AsMut<[State<Self>]> + Zeroize;
    /// `rd2+`'s table: `256 / G` group states, all zero.
    type Groups: AsRef<[State<Self>]> + AsMut<[State<Self>]> + Zeroize;
    /// An empty `rd1+` table (a constant, so that it is zeroed in place).
    const NO_PARALLELS: Self::Parallels;
    /// An empty `rd2+` table.
    const NO_GROUPS: Self::Groups;

    /// Packed round key `i`.
    fn round_key(&self, i: usize) -> &State<Self>;
    /// Runs rounds `first..Nr` and the final key addition on a state that
    /// has been through rounds `0..first` (and, for `Start::Mix`, through
    /// round `first`'s `Ark_Sub` too).
    fn encrypt_from(&self, s: &mut State<Self>, first: usize, start: Start);
    /// Bitslices up to `G` blocks (missing ones read as zero).
    fn pack(blocks: &[Block]) -> State<Self>;
    /// Writes the state back to up to `G` blocks.
    fn unpack(s: &State<Self>, blocks: &mut [Block]);
    /// XORs the state's blocks, as [`unpack`](Self::unpack) writes them,
    /// into `chunk` (at most `G` blocks, the last possibly partial).
    fn unpack_xor(s: &State<Self>, chunk: &mut [u8]);
    /// `R^rows` on one slice with `cols = rows·j mod 4`: the bit of byte
    /// `(r + rows, c + cols)` moves to byte `(r, c)`.
    fn gather(x: Self::Word, rows: u32, cols: u32) -> Self::Word;
    /// `MC_J = SR^-J ∘ MixColumns ∘ SR^J`.
    fn mix_columns<const J: u32>(s: &mut State<Self>);
    /// Ark_Sub in portable Rust: `s ← S(s ⊕ key) ⊕ 0x63` on every byte.
    fn ark_sub(s: &mut State<Self>, key: &State<Self>);
    /// `SR²` on one slice: rows 1 and 3 move by two columns.
    fn shift_rows_twice(x: Self::Word) -> Self::Word;
    /// Rounds `s ← MC_j(S(s ⊕ key) ⊕ 0x63)`, one per `mixes` entry with
    /// the `keys` entry of the same index (no `MC` where the mix is
    /// `Skip`; the first round's `Ark_Sub` left out with `Start::Mix`),
    /// then `finish` with the key after the rounds'. By default
    /// [`run_rounds_portable`]; a target may run its own assembly.
    #[inline(always)]
    fn run_rounds(
        s: &mut State<Self>,
        keys: &[State<Self>],
        mixes: &[Mix],
        start: Start,
        finish: Finish,
    ) {
        run_rounds_portable::<Self>(s, keys, mixes, start, finish);
    }
}

/// [`Fixsliced::unpack_xor`] the plain way: the state unpacked to blocks,
/// then XORed into `chunk` byte by byte (up to `G` blocks, the last
/// possibly partial), the blocks wiped.
#[inline(always)]
pub fn xor_unpacked<A: Fixsliced + ?Sized>(s: &State<A>, chunk: &mut [u8]) {
    let mut blocks = <A::Word as Slice>::NO_BLOCKS;
    A::unpack(s, blocks.as_mut());
    for (byte, k) in chunk.iter_mut().zip(blocks.as_ref().as_flattened()) {
        *byte ^= k;
    }
    blocks.zeroize();
}

/// [`Fixsliced::run_rounds`] in portable Rust, from `A`'s circuits: the
/// reference any assembly is tested against.
#[inline(always)]
pub fn run_rounds_portable<A: Fixsliced + ?Sized>(
    s: &mut State<A>,
    keys: &[State<A>],
    mixes: &[Mix],
    start: Start,
    finish: Finish,
) {
    for (i, (key, mix)) in keys.iter().zip(mixes).enumerate() {
        if i > 0 || start == Start::Round {
            A::ark_sub(s, key);
        }
        match mix {
            Mix::Mc0 => A::mix_columns::<0>(s),
            Mix::Mc1 => A::mix_columns::<1>(s),
            Mix::Mc2 => A::mix_columns::<2>(s),
            Mix::Mc3 => A::mix_columns::<3>(s),
            Mix::Skip => {}
        }
    }
    if finish != Finish::Nothing {
        for (x, k) in s.iter_mut().zip(&keys[mixes.len()]) {
            *x ^= *k;
        }
    }
    if finish == Finish::KeySr2 {
        s.iter_mut().for_each(|x| *x = A::shift_rows_twice(*x));
    }
}
