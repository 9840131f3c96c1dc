//! FACE: Fast AES-CTR Encryption — counter mode that reuses the parts of
//! the first rounds that do not change while only the low counter byte
//! moves.
//!
//! # The idea
//!
//! J. H. Park and D. H. Lee, *FACE: Fast AES CTR mode Encryption
//! Techniques based on the Reuse of Repetitive Data* (TCHES 2018(3)), and
//! the Cortex-M4 work in the seed that carries it over to fixsliced AES.
//! In GCM's counter mode (spec §2.3) counter blocks differ only in their
//! last four bytes, and 255 increments out of 256 change byte 15 alone.
//! Follow that one byte through AES (FIPS-197 §3.4: byte `i` of the block
//! is row `i mod 4`, column `i / 4` of the state):
//!
//! ```text
//! round 0  AddRoundKey          only byte 15 (row 3, column 3) varies
//! round 1  SubBytes, ShiftRows  it moves to row 3, column 0
//!          MixColumns           column 0 varies (bytes 0..3), columns 1..3 do not
//! round 2  ShiftRows            column 0's four bytes go to four columns
//!          MixColumns           every byte varies — but each output column is
//!                               three static lookups ⊕ one varying one
//! ```
//!
//! So for 256 consecutive counters (the same bytes 12..14) most of rounds
//! 0–2 is the same computation. Column 0 after round 1 depends on byte 15
//! and on bytes 0, 5 and 10 only (the diagonal ShiftRows gathers into it),
//! which are IV bytes: they never change under incr32.
//!
//! # The five variants (the seed's table)
//!
//! | variant | caches | seed memory | seed reset | reset here |
//! |---------|--------|-------------|------------|------------|
//! | `rd0`   | round 0's AddRoundKey of the 15 static bytes | 12 B | 2^8 | bytes 12..14 change |
//! | `rd1`   | the static part of rounds 0–1 (columns 1..3, three of column 0's four terms) | 12 B | 2^8 | bytes 12..14 change |
//! | `rd1+`  | round 1's varying column for all 256 values of byte 15 | 1 KiB | 2^40 | never within a message |
//! | `rd2`   | the static three quarters of round 2's output | 16 B | 2^8 | bytes 12..14 change |
//! | `rd2+`  | round 2's varying part for all 256 values of byte 15 | 4 KiB | 2^40 | never within a message |
//!
//! The seed's counter is a 128-bit integer, so a table that depends on byte
//! 10 (`rd1+`, `rd2+`) must be rebuilt when byte 10 changes: every 2^40
//! blocks. GCM's incr32 never touches bytes 0..11: within one message (one
//! IV) the tables are never stale, and the 32-bit wrap (low word 0xffffffff
//! → 0) is an ordinary change of bytes 12..14. The `+` variants still
//! keep the small static cache of their `2^8` sibling, rebuilt when bytes
//! 12..14 change. Tables are built per call, from the first counter block:
//! about 256 blocks' worth of partial rounds, which a short message never
//! pays back (the seed sees the same: a loss at 1 KB, a gain from 4 KB).
//!
//! # Per AES strategy
//!
//! - `table` (`face/table.rs`): byte-oriented T-table AES, where the
//!   caching is the textbook one: a cached column word is a cached set of
//!   T-table lookups. Not constant-time, like `table` itself.
//! - `fixslice` (aekit-core's engines): the seed's contribution. Unpacking
//!   the bitsliced state to cache bytes would cost more than it saves, so
//!   the caches are packed states, and the varying diagonal of sixteen
//!   consecutive counters is computed *in parallel* in one bitsliced state
//!   (the seed's "parallel processing": the empty diagonals are filled with
//!   other counters). Constant-time: the only indices and branches that
//!   depend on anything come from the counter, which is public (it is the
//!   IV's, sent in the clear, and a block count).
//!
//! Other AES strategies (`ni`, `vaes`) compute a round in one instruction;
//! caching bytes or columns saves nothing there and [`supports`] says no.
//! What does pay there is `round1.rs`: one key-only table of 256 blocks
//! that turns rounds 0 and 1 of a counter block into a load and an XOR,
//! which the fused AES-GCM kernels use where the AES port is their bound.
//!
//! # The driver (this file)
//!
//! `Face::apply` walks the counter with aekit-core's driver
//! (`aekit_core::ctr::face::walk`): until the low byte is a multiple of
//! the engine's group (4 blocks for `fixslice`, 1 for `table`) blocks go
//! through the plain cipher; then each group shares bytes 0..14 (256 is a
//! multiple of 4, so a group never straddles a carry). Before each group
//! it compares bytes 12..14 with those the caches were built for and
//! resets them on a change. `Face` keeps those bytes between calls, so GCM
//! may walk a message in pieces. The keystream equals
//! [`crate::ctr::apply_keystream`]'s exactly; `tests/face.rs` checks it
//! across every reset, across the 32-bit wrap and from arbitrary counters.

#[allow(unsafe_code)] // AES-NI intrinsics; every block carries a SAFETY line.
pub(crate) mod round1;
pub(crate) mod table;

use crate::Error;
use crate::aes::{self, Block, BlockCipher, Cipher};

/// FACE on `fixslice`: aekit-core's engines, which serve its 32-bit
/// cipher and this 64-bit one alike (`aekit_core::ctr::face::fixslice`).
pub(crate) mod fixslice {
    use crate::aes::fixslice::Fixslice;

    pub(crate) type Rd0 = aekit_core::ctr::face::Rd0<Fixslice>;
    pub(crate) type Rd1 = aekit_core::ctr::face::Rd1<Fixslice>;
    pub(crate) type Rd1Plus = aekit_core::ctr::face::Rd1Plus<Fixslice>;
    pub(crate) type Rd2 = aekit_core::ctr::face::Rd2<Fixslice>;
    pub(crate) type Rd2Plus = aekit_core::ctr::face::Rd2Plus<Fixslice>;
}

/// The caches of one FACE variant on an AES strategy of this crate:
/// aekit-core's engine contract, on a [`BlockCipher`] (the driver runs the
/// blocks before the first group through it).
pub(crate) trait Engine: aekit_core::ctr::face::Engine<Aes: BlockCipher> {}

impl<E: aekit_core::ctr::face::Engine<Aes: BlockCipher>> Engine for E {}

/// The FACE variants of the seed, as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Round 0's AddRoundKey of the static bytes cached; reset every 2^8.
    Rd0,
    /// The static part of rounds 0–1 cached; reset every 2^8.
    Rd1,
    /// Round 1's varying column tabulated for all 256 low bytes (1 KiB).
    Rd1Plus,
    /// Round 2's static part cached; reset every 2^8.
    Rd2,
    /// Round 2's varying part tabulated for all 256 low bytes (4 KiB).
    Rd2Plus,
}

impl Variant {
    /// Every variant, in the seed's order.
    pub const ALL: [Variant; 5] = [
        Variant::Rd0,
        Variant::Rd1,
        Variant::Rd1Plus,
        Variant::Rd2,
        Variant::Rd2Plus,
    ];

    /// The variant's token: `rd0`, `rd1`, `rd1+`, `rd2`, `rd2+`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Rd0 => "rd0",
            Variant::Rd1 => "rd1",
            Variant::Rd1Plus => "rd1+",
            Variant::Rd2 => "rd2",
            Variant::Rd2Plus => "rd2+",
        }
    }

    /// Looks a variant up by its token.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// log2 of the reset interval in blocks (8 or 40) of FACE's reference
    /// design, the Cortex-M4 one. Here the tables of the 40 variants last
    /// the whole message (module header).
    pub fn reference_reset_log2(self) -> u32 {
        match self {
            Variant::Rd1Plus | Variant::Rd2Plus => 40,
            _ => 8,
        }
    }

    /// The memory overhead in bytes of FACE's reference design, the
    /// Cortex-M4 one (its table of variants); see
    /// [`memory_bytes`](Self::memory_bytes) for this library's.
    pub fn reference_memory_bytes(self) -> usize {
        match self {
            Variant::Rd0 | Variant::Rd1 => 12,
            Variant::Rd1Plus => 1024,
            Variant::Rd2 => 16,
            Variant::Rd2Plus => 4096,
        }
    }

    #[doc(hidden)]
    #[deprecated(note = "renamed `reference_reset_log2`")]
    pub fn seed_reset_log2(self) -> u32 {
        self.reference_reset_log2()
    }

    #[doc(hidden)]
    #[deprecated(note = "renamed `reference_memory_bytes`")]
    pub fn seed_memory_bytes(self) -> usize {
        self.reference_memory_bytes()
    }

    /// Bytes of cache and table this variant holds on `strategy` (the
    /// engine's size), or `None` where FACE does not apply.
    pub fn memory_bytes(self, strategy: aes::Strategy) -> Option<usize> {
        use core::mem::size_of;
        Some(match (strategy, self) {
            (aes::Strategy::Table, Variant::Rd0) => size_of::<table::Rd0>(),
            (aes::Strategy::Table, Variant::Rd1) => size_of::<table::Rd1>(),
            (aes::Strategy::Table, Variant::Rd1Plus) => size_of::<table::Rd1Plus>(),
            (aes::Strategy::Table, Variant::Rd2) => size_of::<table::Rd2>(),
            (aes::Strategy::Table, Variant::Rd2Plus) => size_of::<table::Rd2Plus>(),
            (aes::Strategy::Fixslice, Variant::Rd0) => size_of::<fixslice::Rd0>(),
            (aes::Strategy::Fixslice, Variant::Rd1) => size_of::<fixslice::Rd1>(),
            (aes::Strategy::Fixslice, Variant::Rd1Plus) => size_of::<fixslice::Rd1Plus>(),
            (aes::Strategy::Fixslice, Variant::Rd2) => size_of::<fixslice::Rd2>(),
            (aes::Strategy::Fixslice, Variant::Rd2Plus) => size_of::<fixslice::Rd2Plus>(),
            _ => return None,
        })
    }
}

/// Whether FACE applies to an AES strategy (`table` and `fixslice`).
pub fn supports(strategy: aes::Strategy) -> bool {
    matches!(strategy, aes::Strategy::Table | aes::Strategy::Fixslice)
}

/// Counter mode by FACE `variant`: exactly [`BlockCipher::ctr32`]'s
/// keystream (incr32, a partial last block consumes a whole counter),
/// computed with the variant's caches. Fails with
/// [`Error::Unsupported`] for an AES strategy FACE does not apply to.
pub fn ctr32(
    cipher: &Cipher,
    variant: Variant,
    counter: &mut Block,
    data: &mut [u8],
) -> Result<(), Error> {
    let start = *counter;
    let op = Apply { counter, data };
    match cipher {
        Cipher::Table(a) => a.with_face(variant, &start, op),
        Cipher::Fixslice(a) => a.with_face(variant, &start, op),
        Cipher::Ni(_) | Cipher::Vaes(_) | Cipher::Armv8(_) => {
            return Err(Error::Unsupported("FACE on this AES strategy"));
        }
    }
    Ok(())
}

/// One call of [`Face::apply`], as a [`FaceOp`].
struct Apply<'a> {
    counter: &'a mut Block,
    data: &'a mut [u8],
}

impl FaceOp for Apply<'_> {
    type Output = ();
    fn run<E: Engine>(self, face: &mut Face<'_, E>) {
        face.apply(self.counter, self.data);
    }
}

/// FACE counter mode for one message: an engine, the cipher it enters, and
/// the bytes 12..14 its caches were built for.
pub(crate) struct Face<'k, E: Engine> {
    aes: &'k E::Aes,
    engine: E,
    prefix: Option<[u8; 3]>,
}

impl<'k, E: Engine> Face<'k, E> {
    /// Caches for counters sharing bytes 0..11 with `counter`.
    pub(crate) fn new(aes: &'k E::Aes, counter: &Block) -> Self {
        Face {
            aes,
            engine: E::new(aes, counter),
            prefix: None,
        }
    }

    /// XORs `data` with the keystream from `counter` and leaves `counter`
    /// at the first unused value, as [`crate::ctr::apply_keystream`]. May
    /// be called again with the counter it left (bytes 0..11 unchanged).
    pub(crate) fn apply(&mut self, counter: &mut Block, data: &mut [u8]) {
        aekit_core::ctr::face::walk(
            &mut self.engine,
            self.aes,
            &mut self.prefix,
            counter,
            data,
            crate::ctr::apply_keystream,
        );
    }
}

impl<E: Engine> Drop for Face<'_, E> {
    fn drop(&mut self) {
        self.engine.zeroize();
    }
}

/// A computation that needs the concrete engine type (chosen once per call
/// by [`FaceCipher::with_face`]).
pub(crate) trait FaceOp {
    type Output;
    fn run<E: Engine>(self, face: &mut Face<'_, E>) -> Self::Output;
}

/// An AES strategy FACE applies to.
pub(crate) trait FaceCipher: BlockCipher {
    /// Builds `variant`'s engine for counters sharing bytes 0..11 with
    /// `counter` and runs `op` on it: the one dispatch on the variant.
    fn with_face<O: FaceOp>(&self, variant: Variant, counter: &Block, op: O) -> O::Output;
}

impl FaceCipher for aes::table::Table {
    fn with_face<O: FaceOp>(&self, variant: Variant, counter: &Block, op: O) -> O::Output {
        match variant {
            Variant::Rd0 => op.run(&mut Face::<table::Rd0>::new(self, counter)),
            Variant::Rd1 => op.run(&mut Face::<table::Rd1>::new(self, counter)),
            Variant::Rd1Plus => op.run(&mut Face::<table::Rd1Plus>::new(self, counter)),
            Variant::Rd2 => op.run(&mut Face::<table::Rd2>::new(self, counter)),
            Variant::Rd2Plus => op.run(&mut Face::<table::Rd2Plus>::new(self, counter)),
        }
    }
}

impl FaceCipher for aes::fixslice::Fixslice {
    fn with_face<O: FaceOp>(&self, variant: Variant, counter: &Block, op: O) -> O::Output {
        match variant {
            Variant::Rd0 => op.run(&mut Face::<fixslice::Rd0>::new(self, counter)),
            Variant::Rd1 => op.run(&mut Face::<fixslice::Rd1>::new(self, counter)),
            Variant::Rd1Plus => op.run(&mut Face::<fixslice::Rd1Plus>::new(self, counter)),
            Variant::Rd2 => op.run(&mut Face::<fixslice::Rd2>::new(self, counter)),
            Variant::Rd2Plus => op.run(&mut Face::<fixslice::Rd2Plus>::new(self, counter)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes::KeySchedule;

    /// The driver kept across calls (as GCM's passes use it) equals plain
    /// counter mode, with the pieces ending anywhere, across a wrap.
    fn pieces_match<A: FaceCipher>() {
        struct Pieces<'a> {
            counter: &'a mut Block,
            data: &'a mut [u8],
            sizes: &'a [usize],
        }
        impl FaceOp for Pieces<'_> {
            type Output = ();
            fn run<E: Engine>(self, face: &mut Face<'_, E>) {
                let mut rest = self.data;
                for &n in self.sizes.iter().cycle() {
                    if rest.is_empty() {
                        break;
                    }
                    let (piece, tail) = rest.split_at_mut((16 * n).min(rest.len()));
                    face.apply(self.counter, piece);
                    rest = tail;
                }
            }
        }
        for key in [[7u8; 16].as_slice(), &[9; 24], &[11; 32]] {
            let aes = A::new(&KeySchedule::new(key).unwrap()).unwrap();
            for start in [0xffff_fefdu32, 0xffff_ffff, 0x0000_00fe, 3] {
                for variant in Variant::ALL {
                    let mut counter = [0x3cu8; 16];
                    counter[12..].copy_from_slice(&start.to_be_bytes());
                    let data: Vec<u8> = (0..16 * 600 + 5).map(|i| i as u8).collect();
                    let (mut c1, mut d1) = (counter, data.clone());
                    let (mut c2, mut d2) = (counter, data);
                    crate::ctr::apply_keystream(&aes, &mut c1, &mut d1);
                    let op = Pieces {
                        counter: &mut c2,
                        data: &mut d2,
                        sizes: &[1, 3, 256, 7, 70],
                    };
                    aes.with_face(variant, &counter, op);
                    let id = format!("{} {} from {start:#x}", A::NAME, variant.name());
                    assert!(d1 == d2, "{id}: keystream");
                    assert_eq!(c1, c2, "{id}: counter");
                }
            }
        }
    }

    #[test]
    fn table_face_in_pieces() {
        pieces_match::<aes::table::Table>();
    }

    #[test]
    fn fixslice_face_in_pieces() {
        pieces_match::<aes::fixslice::Fixslice>();
    }

    #[test]
    fn tokens_round_trip() {
        for v in Variant::ALL {
            assert_eq!(Variant::from_name(v.name()), Some(v));
        }
    }
}
