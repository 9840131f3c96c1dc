//! The AES block cipher (FIPS-197), forward direction only — GCM never
//! decrypts a block.
//!
//! One trait, [`BlockCipher`], and one file per implementation strategy:
//!
//! | token      | file          | constant-time | how                                        |
//! |------------|---------------|---------------|--------------------------------------------|
//! | `table`    | `table.rs`    | no            | four 1 KiB T-tables indexed by state bytes |
//! | `fixslice` | `fixslice.rs` | yes           | fixsliced bitsliced AES on 64-bit words    |
//! | `ni`       | `ni.rs`       | yes           | AES-NI, eight blocks in flight             |
//! | `vaes`     | `vaes.rs`     | yes           | VAES on 512-bit registers (AVX-512)        |
//!
//! The key schedule (FIPS-197 §5.2 KeyExpansion) is computed here once, in
//! constant time, and each strategy converts the round keys to its own
//! layout. [`Strategy`] is the registry tests and benchmarks iterate.

pub mod fixslice;
#[allow(unsafe_code)] // AES-NI intrinsics; every block carries a SAFETY line.
pub mod ni;
pub mod table;
#[allow(unsafe_code)] // VAES/AVX-512 intrinsics; every block carries a SAFETY line.
pub mod vaes;

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::Error;

/// A 16-byte AES block.
pub type Block = [u8; 16];

/// One AES implementation holding its expanded key.
///
/// Implementations are built from a [`KeySchedule`]; `new` returns `None`
/// when this CPU lacks the instructions the implementation needs, so safe
/// code can never reach an instruction the CPU does not have.
pub trait BlockCipher: Sized + Send + Sync {
    /// The strategy's token (`table`, `fixslice`, `ni`).
    const NAME: &'static str;
    /// Whether no branch and no memory index depends on the key or the data.
    const CONSTANT_TIME: bool;
    /// Key-dependent bytes held for an AES-256 key (round keys in this
    /// strategy's layout); key-independent tables are not counted.
    const STORAGE_BYTES: usize;

    /// Whether this CPU can run the strategy.
    fn is_available() -> bool {
        true
    }

    /// Converts the FIPS-197 round keys to this strategy's layout.
    fn new(keys: &KeySchedule) -> Option<Self>;

    /// Encrypts every block in place.
    fn encrypt_blocks(&self, blocks: &mut [Block]);

    /// Counter mode with GCM's incr32 (spec §2.3): XORs `data` with
    /// E(K, counter), E(K, incr32(counter)), … and leaves `counter` at the
    /// first unused value. A partial last block consumes a whole counter.
    /// Strategies override this to keep more blocks in flight.
    fn ctr32(&self, counter: &mut Block, data: &mut [u8]) {
        crate::ctr::apply_keystream(self, counter, data);
    }
}

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
}

impl Strategy {
    /// Every strategy, available on this CPU or not.
    pub const ALL: [Strategy; 4] = [
        Strategy::Table,
        Strategy::Fixslice,
        Strategy::Ni,
        Strategy::Vaes,
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
        [Strategy::Vaes, Strategy::Ni, Strategy::Fixslice]
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
        })
    }

    /// The strategy this key is in.
    pub fn strategy(&self) -> Strategy {
        match self {
            Cipher::Table(_) => Strategy::Table,
            Cipher::Fixslice(_) => Strategy::Fixslice,
            Cipher::Ni(_) => Strategy::Ni,
            Cipher::Vaes(_) => Strategy::Vaes,
        }
    }

    /// Encrypts every block in place (one dispatch per call).
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        match self {
            Cipher::Table(a) => a.encrypt_blocks(blocks),
            Cipher::Fixslice(a) => a.encrypt_blocks(blocks),
            Cipher::Ni(a) => a.encrypt_blocks(blocks),
            Cipher::Vaes(a) => a.encrypt_blocks(blocks),
        }
    }

    /// Counter mode with incr32; see [`BlockCipher::ctr32`].
    pub fn ctr32(&self, counter: &mut Block, data: &mut [u8]) {
        match self {
            Cipher::Table(a) => a.ctr32(counter, data),
            Cipher::Fixslice(a) => a.ctr32(counter, data),
            Cipher::Ni(a) => a.ctr32(counter, data),
            Cipher::Vaes(a) => a.ctr32(counter, data),
        }
    }
}

/// The FIPS-197 key schedule: `rounds + 1` round keys of 16 bytes, each in
/// the byte order of the state (column-major, as the spec's `w[i]` words
/// laid end to end).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct KeySchedule {
    round_keys: [Block; 15],
    rounds: usize,
}

impl KeySchedule {
    /// Expands a 16-, 24- or 32-byte key (FIPS-197 §5.2). Constant-time:
    /// SubWord computes the S-box arithmetically instead of indexing a table.
    pub fn new(key: &[u8]) -> Result<KeySchedule, Error> {
        let nk = match key.len() {
            16 | 24 | 32 => key.len() / 4,
            n => return Err(Error::InvalidKeyLength(n)),
        };
        let rounds = nk + 6;
        let mut w = [[0u8; 4]; 60];
        for (i, word) in key.chunks_exact(4).enumerate() {
            w[i].copy_from_slice(word);
        }
        let mut rcon = 1u8;
        for i in nk..4 * (rounds + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 {
                // RotWord, SubWord, Rcon.
                t = sub_word([t[1], t[2], t[3], t[0]]);
                t[0] ^= rcon;
                rcon = xtime(rcon);
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            for b in 0..4 {
                w[i][b] = w[i - nk][b] ^ t[b];
            }
        }
        let mut round_keys = [[0u8; 16]; 15];
        for (r, rk) in round_keys.iter_mut().enumerate().take(rounds + 1) {
            for c in 0..4 {
                rk[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
            }
        }
        w.zeroize();
        Ok(KeySchedule { round_keys, rounds })
    }

    /// Number of rounds: 10, 12 or 14.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The `rounds + 1` round keys.
    pub fn round_keys(&self) -> &[Block] {
        &self.round_keys[..=self.rounds]
    }
}

/// Multiplication by x in GF(2^8) mod x^8 + x^4 + x^3 + x + 1, branch-free.
#[inline(always)]
pub(crate) const fn xtime(a: u8) -> u8 {
    (a << 1) ^ (0x1b & (a >> 7).wrapping_neg())
}

/// Product in GF(2^8), branch-free (eight masked shift-and-add steps).
pub(crate) const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    let mut i = 0;
    while i < 8 {
        p ^= a & (b & 1).wrapping_neg();
        a = xtime(a);
        b >>= 1;
        i += 1;
    }
    p
}

/// The AES S-box computed, not looked up: the inverse x^254 followed by
/// the affine map of FIPS-197 §5.1.1. Constant-time; used by the key
/// schedule and to build the lookup tables at compile time. (One byte
/// of [`sub_word`].)
pub(crate) const fn sub_byte(x: u8) -> u8 {
    sub_word([x, 0, 0, 0])[0]
}

/// SubWord (FIPS-197 §5.2): the S-box on four bytes at once, each byte a
/// lane of one 32-bit integer (SIMD within a register), so the key
/// schedule pays one addition chain per word instead of four; byte by
/// byte, the chain was two thirds of `AesGcm::new` (about 6 000 of 9 400
/// TSC cycles, AES-128, an Intel Xeon). Constant-time: the same
/// operations whatever the bytes.
pub(crate) const fn sub_word(w: [u8; 4]) -> [u8; 4] {
    const LOW7: u32 = 0x7f7f_7f7f;
    const LSB: u32 = 0x0101_0101;
    // xtime in every lane: shift each byte left, reduce by 0x1b (bits 4,
    // 3, 1, 0) where its top bit was set: four shifts of that bit, not a
    // multiplication, which would lengthen the chain each product is.
    const fn xtime4(a: u32) -> u32 {
        let top = a & !LOW7;
        ((a & LOW7) << 1) ^ (top >> 3) ^ (top >> 4) ^ (top >> 6) ^ (top >> 7)
    }
    // Lane-wise product in GF(2^8): eight masked shift-and-add steps.
    const fn mul4(mut a: u32, b: u32) -> u32 {
        let mut p = 0u32;
        let mut i = 0;
        while i < 8 {
            p ^= a & (((b >> i) & LSB) * 0xff);
            a = xtime4(a);
            i += 1;
        }
        p
    }
    // Lane-wise rotation of each byte left by k (1 to 7).
    const fn rotl4(x: u32, k: u32) -> u32 {
        let high = (0xffu32 << k) & 0xff;
        ((x << k) & (high * LSB)) | ((x >> (8 - k)) & ((0xff >> (8 - k)) * LSB))
    }
    let x = u32::from_le_bytes(w);
    // x^254 = x^-1 (and 0 ↦ 0) by square-and-multiply on the fixed
    // exponent.
    let x2 = mul4(x, x);
    let x3 = mul4(x2, x);
    let x6 = mul4(x3, x3);
    let x12 = mul4(x6, x6);
    let x15 = mul4(x12, x3);
    let x30 = mul4(x15, x15);
    let x60 = mul4(x30, x30);
    let x120 = mul4(x60, x60);
    let x126 = mul4(x120, x6);
    let x127 = mul4(x126, x);
    let inv = mul4(x127, x127); // x^254
    let s = inv ^ rotl4(inv, 1) ^ rotl4(inv, 2) ^ rotl4(inv, 3) ^ rotl4(inv, 4) ^ (0x63 * LSB);
    s.to_le_bytes()
}

/// The S-box as a table, built at compile time from [`sub_byte`]. Only the
/// non-constant-time `table` strategy indexes it.
pub(crate) const SBOX: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = sub_byte(i as u8);
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use hex_literal::hex;

    #[test]
    fn sbox_known_entries() {
        // FIPS-197 Figure 7.
        assert_eq!(SBOX[0x00], 0x63);
        assert_eq!(SBOX[0x01], 0x7c);
        assert_eq!(SBOX[0x53], 0xed);
        assert_eq!(SBOX[0xff], 0x16);
    }

    #[test]
    fn sub_word_is_the_sbox_in_every_lane() {
        // Each lane on its own: every byte in every lane, beside other
        // bytes, against the S-box of one byte (checked above against
        // FIPS-197's figure).
        for x in 0..=255u8 {
            let w = [x, x ^ 0x5a, x.wrapping_mul(7), !x];
            assert_eq!(sub_word(w), w.map(|b| SBOX[usize::from(b)]), "{w:02x?}");
        }
    }

    #[test]
    fn key_expansion_fips197_appendix_a() {
        // FIPS-197 A.1: w[40..44] of the AES-128 key 2b7e1516...
        let ks = KeySchedule::new(&hex!("2b7e151628aed2a6abf7158809cf4f3c")).unwrap();
        assert_eq!(ks.rounds(), 10);
        assert_eq!(
            ks.round_keys()[10],
            hex!("d014f9a8c9ee2589e13f0cc8b6630ca6")
        );
        // A.2: AES-192, last round key w[48..52].
        let ks =
            KeySchedule::new(&hex!("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b")).unwrap();
        assert_eq!(
            ks.round_keys()[12],
            hex!("e98ba06f448c773c8ecc720401002202")
        );
        // A.3: AES-256, last round key w[56..60].
        let ks = KeySchedule::new(&hex!(
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"
        ))
        .unwrap();
        assert_eq!(
            ks.round_keys()[14],
            hex!("fe4890d1e6188d0b046df344706c631e")
        );
    }

    #[test]
    fn bad_key_lengths() {
        for n in [0, 1, 15, 17, 23, 25, 31, 33, 64] {
            assert_eq!(
                KeySchedule::new(&vec![0; n]).err(),
                Some(Error::InvalidKeyLength(n))
            );
        }
    }
}
