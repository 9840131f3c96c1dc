//! GHASH (GCM spec §2.3): Y ← (Y ⊕ X_i) · H over 128-bit blocks, with H
//! fixed per key. One trait, [`GhashKey`], and one file per way of
//! computing the product X · H (spec §4.1, the table blog, BearSSL):
//!
//! | token       | storage per key | constant-time | method                                     |
//! |-------------|-----------------|---------------|--------------------------------------------|
//! | `bitserial` | 16 B            | yes           | Algorithm 1, one bit of X at a time        |
//! | `table1`    | 2 KiB           | yes           | 128 entries H·P^i, masked by the bits of X |
//! | `table4`    | 8 KiB           | no            | 32 tables of 16, one per nibble of X       |
//! | `table8`    | 64 KiB          | no            | 16 tables of 256, one per byte of X        |
//! | `shoup4`    | 256 B           | no            | Shoup: one 16-entry table + reduction R    |
//! | `shoup8`    | 4 KiB           | no            | Shoup: one 256-entry table + R (Alg. 2)    |
//! | `karatsuba` | 16 B + consts   | yes           | carry-less multiply on u64 with Karatsuba  |
//! | `clmul`     | 128 B (H..H^8)  | yes           | PCLMULQDQ, eight blocks per reduction      |
//! | `vclmul`    | 256 B (H..H^16) | yes           | VPCLMULQDQ on 512-bit registers            |
//! | `pmull`     | 128 B (H..H^8)  | yes           | ARMv8 PMULL/PMULL2, eight blocks per reduction |
//!
//! [`field`] states the bit order every strategy takes and returns.

/// A strategy whose instructions this architecture lacks: a type with no
/// values, so it is never built and its methods never run, and
/// `is_available` says no. The file of each hardware strategy uses it
/// where its architecture is not the target's.
macro_rules! unavailable_ghash {
    ($(#[$doc:meta])* $name:ident, $token:literal, $storage:expr) => {
        $(#[$doc])*
        pub enum $name {}

        impl $crate::ghash::GhashKey for $name {
            const NAME: &'static str = $token;
            const CONSTANT_TIME: bool = true;
            const STORAGE_BYTES: usize = $storage;

            fn is_available() -> bool {
                false
            }

            fn new(_: &$crate::aes::Block) -> Option<Self> {
                None
            }

            fn update_blocks(&self, _: &mut $crate::aes::Block, _: &[u8]) {
                match *self {}
            }
        }
    };
}

pub mod bitserial;
#[allow(unsafe_code)] // PCLMULQDQ intrinsics; every block carries a SAFETY line.
pub mod clmul;
pub mod field;
pub mod karatsuba;
mod key;
#[allow(unsafe_code)] // PMULL intrinsics; every block carries a SAFETY line.
pub mod pmull;
pub mod shoup4;
pub mod shoup8;
pub mod table1;
pub mod table4;
pub mod table8;
#[allow(unsafe_code)] // VPCLMULQDQ/AVX-512 intrinsics; every block carries a SAFETY line.
pub mod vclmul;

use crate::Error;
use crate::aes::Block;

pub use key::GhashKey;

/// The GHASH implementations of aekit, as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Algorithm 1, bit by bit; no tables.
    BitSerial,
    /// The 1-bit table: H·P^i for each bit position i.
    Table1,
    /// Simple 4-bit tables M_0..M_31.
    Table4,
    /// Simple 8-bit tables M_0..M_15.
    Table8,
    /// Shoup's 4-bit method: M_0 and the reduction table R.
    Shoup4,
    /// Shoup's 8-bit method (Algorithm 2): M_0 and R.
    Shoup8,
    /// Constant-time carry-less multiplication on 64-bit words, Karatsuba.
    Karatsuba,
    /// PCLMULQDQ with aggregated reduction over eight blocks.
    Clmul,
    /// VPCLMULQDQ on 512-bit registers, aggregated reduction over a wide window.
    Vclmul,
    /// ARMv8 PMULL/PMULL2 with aggregated reduction over eight blocks.
    Pmull,
}

impl Strategy {
    /// Every strategy, available on this CPU or not.
    pub const ALL: [Strategy; 10] = [
        Strategy::BitSerial,
        Strategy::Table1,
        Strategy::Table4,
        Strategy::Table8,
        Strategy::Shoup4,
        Strategy::Shoup8,
        Strategy::Karatsuba,
        Strategy::Clmul,
        Strategy::Vclmul,
        Strategy::Pmull,
    ];

    /// The strategy's token.
    pub fn name(self) -> &'static str {
        self.info().0
    }

    /// Looks a strategy up by its token.
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether this CPU can run the strategy.
    pub fn is_available(self) -> bool {
        self.info().3
    }

    /// Whether the strategy has no key- or data-dependent branch or index.
    pub fn is_constant_time(self) -> bool {
        self.info().1
    }

    /// Key-dependent storage in bytes.
    pub fn storage_bytes(self) -> usize {
        self.info().2
    }

    /// The fastest constant-time strategy this CPU runs. Table-driven
    /// strategies are never chosen here, only by explicit request.
    pub fn best() -> Strategy {
        [
            Strategy::Vclmul,
            Strategy::Clmul,
            Strategy::Pmull,
            Strategy::Karatsuba,
        ]
        .into_iter()
        .find(|s| s.is_available())
        .unwrap_or(Strategy::Karatsuba)
    }

    /// (name, constant-time, storage, available) read off the strategy's type.
    fn info(self) -> (&'static str, bool, usize, bool) {
        fn of<G: GhashKey>() -> (&'static str, bool, usize, bool) {
            (
                G::NAME,
                G::CONSTANT_TIME,
                G::STORAGE_BYTES,
                G::is_available(),
            )
        }
        match self {
            Strategy::BitSerial => of::<bitserial::BitSerial>(),
            Strategy::Table1 => of::<table1::Table1>(),
            Strategy::Table4 => of::<table4::Table4>(),
            Strategy::Table8 => of::<table8::Table8>(),
            Strategy::Shoup4 => of::<shoup4::Shoup4>(),
            Strategy::Shoup8 => of::<shoup8::Shoup8>(),
            Strategy::Karatsuba => of::<karatsuba::Karatsuba>(),
            Strategy::Clmul => of::<clmul::Clmul>(),
            Strategy::Vclmul => of::<vclmul::Vclmul>(),
            Strategy::Pmull => of::<pmull::Pmull>(),
        }
    }
}

/// A hash key in the strategy chosen for it: the enum that GCM's dispatch
/// matches on once per call. Boxed: the tables run to 64 KiB. Each variant
/// is zeroized on drop.
#[allow(missing_docs)] // one variant per strategy, named as in `Strategy`
pub enum Key {
    BitSerial(Box<bitserial::BitSerial>),
    Table1(Box<table1::Table1>),
    Table4(Box<table4::Table4>),
    Table8(Box<table8::Table8>),
    Shoup4(Box<shoup4::Shoup4>),
    Shoup8(Box<shoup8::Shoup8>),
    Karatsuba(Box<karatsuba::Karatsuba>),
    Clmul(Box<clmul::Clmul>),
    Vclmul(Box<vclmul::Vclmul>),
    Pmull(Box<pmull::Pmull>),
}

impl Key {
    /// Builds `strategy`'s tables for the hash key `h`.
    pub fn new(strategy: Strategy, h: &Block) -> Result<Key, Error> {
        fn boxed<G: GhashKey>(h: &Block) -> Result<Box<G>, Error> {
            G::new(h)
                .map(Box::new)
                .ok_or(Error::StrategyUnavailable(G::NAME))
        }
        Ok(match strategy {
            Strategy::BitSerial => Key::BitSerial(boxed(h)?),
            Strategy::Table1 => Key::Table1(boxed(h)?),
            Strategy::Table4 => Key::Table4(boxed(h)?),
            Strategy::Table8 => Key::Table8(boxed(h)?),
            Strategy::Shoup4 => Key::Shoup4(boxed(h)?),
            Strategy::Shoup8 => Key::Shoup8(boxed(h)?),
            Strategy::Karatsuba => Key::Karatsuba(boxed(h)?),
            Strategy::Clmul => Key::Clmul(boxed(h)?),
            Strategy::Vclmul => Key::Vclmul(boxed(h)?),
            Strategy::Pmull => Key::Pmull(boxed(h)?),
        })
    }

    /// The strategy this key is in.
    pub fn strategy(&self) -> Strategy {
        match self {
            Key::BitSerial(_) => Strategy::BitSerial,
            Key::Table1(_) => Strategy::Table1,
            Key::Table4(_) => Strategy::Table4,
            Key::Table8(_) => Strategy::Table8,
            Key::Shoup4(_) => Strategy::Shoup4,
            Key::Shoup8(_) => Strategy::Shoup8,
            Key::Karatsuba(_) => Strategy::Karatsuba,
            Key::Clmul(_) => Strategy::Clmul,
            Key::Vclmul(_) => Strategy::Vclmul,
            Key::Pmull(_) => Strategy::Pmull,
        }
    }

    /// Y ← (Y ⊕ X_i) · H for each block; see [`GhashKey::update_blocks`].
    pub fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
        match self {
            Key::BitSerial(g) => g.update_blocks(y, blocks),
            Key::Table1(g) => g.update_blocks(y, blocks),
            Key::Table4(g) => g.update_blocks(y, blocks),
            Key::Table8(g) => g.update_blocks(y, blocks),
            Key::Shoup4(g) => g.update_blocks(y, blocks),
            Key::Shoup8(g) => g.update_blocks(y, blocks),
            Key::Karatsuba(g) => g.update_blocks(y, blocks),
            Key::Clmul(g) => g.update_blocks(y, blocks),
            Key::Vclmul(g) => g.update_blocks(y, blocks),
            Key::Pmull(g) => g.update_blocks(y, blocks),
        }
    }

    /// Bytes of any length, the last block zero-padded; see
    /// [`GhashKey::update_padded`].
    pub fn update_padded(&self, y: &mut Block, bytes: &[u8]) {
        match self {
            Key::BitSerial(g) => g.update_padded(y, bytes),
            Key::Table1(g) => g.update_padded(y, bytes),
            Key::Table4(g) => g.update_padded(y, bytes),
            Key::Table8(g) => g.update_padded(y, bytes),
            Key::Shoup4(g) => g.update_padded(y, bytes),
            Key::Shoup8(g) => g.update_padded(y, bytes),
            Key::Karatsuba(g) => g.update_padded(y, bytes),
            Key::Clmul(g) => g.update_padded(y, bytes),
            Key::Vclmul(g) => g.update_padded(y, bytes),
            Key::Pmull(g) => g.update_padded(y, bytes),
        }
    }
}
