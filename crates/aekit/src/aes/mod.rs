//! The AES block cipher (FIPS-197), forward direction only — GCM never
//! decrypts a block.
//!
//! One trait, [`BlockCipher`] (`block.rs`), and one file per
//! implementation strategy:
//!
//! | token      | file          | constant-time | how                                        |
//! |------------|---------------|---------------|--------------------------------------------|
//! | `table`    | `table.rs`    | no            | four 1 KiB T-tables indexed by state bytes |
//! | `fixslice` | `fixslice.rs` | yes           | fixsliced bitsliced AES on 64-bit words    |
//! | `ni`       | `ni.rs`       | yes           | AES-NI, eight blocks in flight             |
//! | `vaes`     | `vaes.rs`     | yes           | VAES on 512-bit registers (AVX-512)        |
//! | `armv8`    | `armv8.rs`    | yes           | ARMv8 AESE/AESMC, eight blocks in flight   |
//!
//! The key schedule (FIPS-197 §5.2 KeyExpansion, `schedule.rs`) is
//! computed once, in constant time, and each strategy converts the round
//! keys to its own layout. This file holds the choice among the
//! strategies: [`Strategy`], the registry tests and benchmarks iterate,
//! and [`Cipher`], a key expanded in the strategy chosen for it. The
//! strategies use `block.rs` and `schedule.rs`, never this file.

/// A strategy whose instructions this architecture lacks: a type with no
/// values, so it is never built and its methods never run, and
/// `is_available` says no. The file of each hardware strategy uses it
/// where its architecture is not the target's.
macro_rules! unavailable_cipher {
    ($(#[$doc:meta])* $name:ident, $token:literal, $storage:expr) => {
        $(#[$doc])*
        pub enum $name {}

        impl $crate::aes::BlockCipher for $name {
            const NAME: &'static str = $token;
            const CONSTANT_TIME: bool = true;
            const STORAGE_BYTES: usize = $storage;

            fn is_available() -> bool {
                false
            }

            fn new(_: &$crate::aes::KeySchedule) -> Option<Self> {
                None
            }

            fn encrypt_blocks(&self, _: &mut [$crate::aes::Block]) {
                match *self {}
            }
        }
    };
}

#[allow(unsafe_code)] // ARMv8 AES intrinsics; every block carries a SAFETY line.
pub mod armv8;
pub(crate) mod block;
pub mod fixslice;
#[allow(unsafe_code)] // AES-NI intrinsics; every block carries a SAFETY line.
pub mod ni;
pub(crate) mod schedule;
pub mod table;
#[allow(unsafe_code)] // VAES/AVX-512 intrinsics; every block carries a SAFETY line.
pub mod vaes;

pub use block::{Block, BlockCipher};
pub use schedule::KeySchedule;
pub(crate) use schedule::{SBOX, xtime};

use crate::Error;

/// The AES implementations of aekit, as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// T-table AES: fast without AES instructions, not constant-time.
    Table,
    /// Fixsliced bitsliced AES on 64-bit words: constant-time, portable.
    Fixslice,
    /// AES-NI (x86-64): constant-time.
    Ni,
    /// VAES on 512-bit registers (x86-64 with AVX-512): constant-time, the
    /// fastest where present.
    Vaes,
    /// The ARMv8 Cryptographic Extension (AESE/AESMC, aarch64):
    /// constant-time.
    Armv8,
}

impl Strategy {
    /// Every strategy, available on this CPU or not.
    pub const ALL: [Strategy; 5] = [
        Strategy::Table,
        Strategy::Fixslice,
        Strategy::Ni,
        Strategy::Vaes,
        Strategy::Armv8,
    ];

    /// The strategy's token, used in names everywhere (CLI, benches, tests).
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

    /// Key-dependent storage for an AES-256 key, in bytes.
    pub fn storage_bytes(self) -> usize {
        self.info().2
    }

    /// The fastest constant-time strategy this CPU runs. The order of
    /// preference is here and nowhere else.
    pub fn best() -> Strategy {
        [
            Strategy::Vaes,
            Strategy::Ni,
            Strategy::Armv8,
            Strategy::Fixslice,
        ]
        .into_iter()
        .find(|s| s.is_available())
        .unwrap_or(Strategy::Fixslice)
    }

    /// (name, constant-time, storage, available) read off the strategy's type.
    fn info(self) -> (&'static str, bool, usize, bool) {
        fn of<A: BlockCipher>() -> (&'static str, bool, usize, bool) {
            (
                A::NAME,
                A::CONSTANT_TIME,
                A::STORAGE_BYTES,
                A::is_available(),
            )
        }
        match self {
            Strategy::Table => of::<table::Table>(),
            Strategy::Fixslice => of::<fixslice::Fixslice>(),
            Strategy::Ni => of::<ni::Ni>(),
            Strategy::Vaes => of::<vaes::Vaes>(),
            Strategy::Armv8 => of::<armv8::Armv8>(),
        }
    }
}

/// An expanded key in the strategy chosen for it: the enum that GCM's
/// dispatch matches on once per call. Each variant is zeroized on drop.
pub enum Cipher {
    /// A `table` key.
    Table(Box<table::Table>),
    /// A `fixslice` key.
    Fixslice(Box<fixslice::Fixslice>),
    /// An `ni` key.
    Ni(Box<ni::Ni>),
    /// A `vaes` key.
    Vaes(Box<vaes::Vaes>),
    /// An `armv8` key.
    Armv8(Box<armv8::Armv8>),
}

impl Cipher {
    /// Expands `key` (16, 24 or 32 bytes) for `strategy`.
    pub fn new(strategy: Strategy, key: &[u8]) -> Result<Cipher, Error> {
        fn boxed<A: BlockCipher>(keys: &KeySchedule) -> Result<Box<A>, Error> {
            A::new(keys)
                .map(Box::new)
                .ok_or(Error::StrategyUnavailable(A::NAME))
        }
        let keys = KeySchedule::new(key)?;
        Ok(match strategy {
            Strategy::Table => Cipher::Table(boxed(&keys)?),
            Strategy::Fixslice => Cipher::Fixslice(boxed(&keys)?),
            Strategy::Ni => Cipher::Ni(boxed(&keys)?),
            Strategy::Vaes => Cipher::Vaes(boxed(&keys)?),
            Strategy::Armv8 => Cipher::Armv8(boxed(&keys)?),
        })
    }

    /// The strategy this key is in.
    pub fn strategy(&self) -> Strategy {
        match self {
            Cipher::Table(_) => Strategy::Table,
            Cipher::Fixslice(_) => Strategy::Fixslice,
            Cipher::Ni(_) => Strategy::Ni,
            Cipher::Vaes(_) => Strategy::Vaes,
            Cipher::Armv8(_) => Strategy::Armv8,
        }
    }

    /// Encrypts every block in place (one dispatch per call).
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        match self {
            Cipher::Table(a) => a.encrypt_blocks(blocks),
            Cipher::Fixslice(a) => a.encrypt_blocks(blocks),
            Cipher::Ni(a) => a.encrypt_blocks(blocks),
            Cipher::Vaes(a) => a.encrypt_blocks(blocks),
            Cipher::Armv8(a) => a.encrypt_blocks(blocks),
        }
    }

    /// Counter mode with incr32; see [`BlockCipher::ctr32`].
    pub fn ctr32(&self, counter: &mut Block, data: &mut [u8]) {
        match self {
            Cipher::Table(a) => a.ctr32(counter, data),
            Cipher::Fixslice(a) => a.ctr32(counter, data),
            Cipher::Ni(a) => a.ctr32(counter, data),
            Cipher::Vaes(a) => a.ctr32(counter, data),
            Cipher::Armv8(a) => a.ctr32(counter, data),
        }
    }
}
