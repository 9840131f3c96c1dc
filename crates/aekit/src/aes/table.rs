//! `table`: T-table AES, the classic 32-bit software implementation.
//! **Not constant-time.**
//!
//! # What it computes
//!
//! The AES forward cipher of FIPS-197 §5.1 (`Cipher`, Figure 5) for 10, 12
//! or 14 rounds, one block at a time. GCM never decrypts a block, so there
//! are no inverse tables.
//!
//! # Representation
//!
//! The state is four `u32` column words. FIPS-197 §3.4 fills the state
//! column by column, so column `c` is bytes `4c..4c + 4` of the block; we
//! read it big-endian, which puts row 0 in the top byte. Round key `r` is
//! held the same way, `rk[r][c]`, converted once from
//! [`KeySchedule::round_keys`].
//!
//! # The math
//!
//! A middle round is SubBytes, ShiftRows, MixColumns, AddRoundKey
//! (§5.1.1–§5.1.4). ShiftRows moves row `r` left by `r`, so output column
//! `j` is made from the bytes `s[r][j + r mod 4]`, one per row. MixColumns
//! multiplies that column by the circulant matrix
//!
//! ```text
//!     | 2 3 1 1 |
//! M = | 1 2 3 1 |      over GF(2^8) mod x^8 + x^4 + x^3 + x + 1,
//!     | 1 1 2 3 |
//!     | 3 1 1 2 |
//! ```
//!
//! and it is linear, so the product is the XOR of each input byte times its
//! column of `M`. Input byte `a` in row `r` contributes `S(a)` times column
//! `r` of `M`; tabulating that 4-byte column for all 256 values of `a`
//! gives the four tables
//!
//! ```text
//! Te0[a] = (2·S(a), 1·S(a), 1·S(a), 3·S(a))   (rows 0..3, row 0 on top)
//! Te1[a] = (3·S(a), 2·S(a), 1·S(a), 1·S(a)) = Te0[a] rotated right 8 bits
//! Te2[a] = (1·S(a), 3·S(a), 2·S(a), 1·S(a)) = Te0[a] rotated right 16 bits
//! Te3[a] = (1·S(a), 1·S(a), 3·S(a), 2·S(a)) = Te0[a] rotated right 24 bits
//! ```
//!
//! and one output column of a whole round is
//!
//! ```text
//! t[j] = Te0[s[j] row 0] ^ Te1[s[j+1] row 1] ^ Te2[s[j+2] row 2] ^ Te3[s[j+3] row 3] ^ rk[j]
//! ```
//!
//! (column indices mod 4). This is the 32-bit implementation that Daemen
//! and Rijmen describe in their AES proposal (*AES Proposal: Rijndael*,
//! 1999, "Implementation aspects"). The last round has no MixColumns, so it
//! looks the bytes up in the plain S-box and reassembles the column. The
//! tables are built at compile time from the parent module's `SBOX` and
//! `xtime`: nothing here is hand-copied hex.
//!
//! # Cost
//!
//! A middle round is 16 table loads, 16 XORs (12 combining lookups, 4 for
//! the round key) and the shifts and masks that pick bytes out of the
//! columns; the last round is 16 S-box loads. Blocks are done one at a time:
//! a block's 4 columns are independent, which is enough work for an
//! out-of-order core to overlap the loads.
//!
//! # Storage
//!
//! Key-dependent: the round keys, 15 × 16 = 240 bytes for AES-256 (176 and
//! 208 of them used for AES-128 and AES-192), zeroized on drop.
//! Key-independent and shared by every key: the four tables (4 × 1 KiB) and
//! the 256-byte S-box.
//!
//! # Not constant-time
//!
//! Every table index is a state byte, which depends on the key and the
//! data, so which cache lines are read — and hence the time taken — leaks
//! information about the key (Bernstein, *Cache-timing attacks on AES*,
//! 2005; Osvik, Shamir and Tromer, *Cache Attacks and Countermeasures: the
//! Case of AES*, 2006). That is why [`Strategy::best`](super::Strategy::best)
//! never picks this strategy: it is here for measurement, for explicit
//! choice, and as the test oracle the other strategies are checked against,
//! which is why it stays plain.
//!
//! # Tried and rejected
//!
//! - One 1 KiB table plus three rotations per column: a quarter of the
//!   cache footprint, but three more instructions per column and no less
//!   leakage. The four-table form is the classic one and the one to measure.
//! - A fifth table for the last round (`Te4`, the S-box byte replicated in
//!   a word): saves a few shifts once per block; the plain S-box is easier
//!   to check against FIPS-197.
//! - Interleaving two blocks in `encrypt_blocks`: more code in the oracle
//!   for a gain the benches would have to prove first.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aes::{Block, BlockCipher, KeySchedule, SBOX, xtime};

/// The four T-tables: `TE[r][a]` is `S(a)` times column `r` of MixColumns'
/// matrix, as a big-endian word (row 0 in the top byte). A `static`, not a
/// `const`, so there is one copy in memory that every lookup shares.
pub(crate) static TE: [[u32; 256]; 4] = build_tables();

/// Builds the T-tables at compile time from the S-box.
const fn build_tables() -> [[u32; 256]; 4] {
    let mut te = [[0u32; 256]; 4];
    let mut a = 0;
    while a < 256 {
        let s = SBOX[a];
        let s2 = xtime(s); // 2·S(a)
        let s3 = s2 ^ s; // 3·S(a) = (x + 1)·S(a)
        let col0 = u32::from_be_bytes([s2, s, s, s3]);
        // M is circulant: column r of M is column 0 moved down r rows, which
        // in a big-endian word is a right rotation by 8r bits.
        te[0][a] = col0;
        te[1][a] = col0.rotate_right(8);
        te[2][a] = col0.rotate_right(16);
        te[3][a] = col0.rotate_right(24);
        a += 1;
    }
    te
}

/// Round keys as column words: `[round][column]`, big-endian like the state.
pub(crate) type RoundKeys = [[u32; 4]; 15];

/// T-table AES (not constant-time): the round keys as column words.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Table {
    rk: RoundKeys,
    rounds: usize,
}

/// Byte `row` of a big-endian column word, as a table index.
#[inline(always)]
pub(crate) fn byte(column: u32, row: usize) -> usize {
    column.to_be_bytes()[row] as usize
}

/// SubBytes, ShiftRows and MixColumns for output column `j`, by four
/// lookups (the equation in the module header).
#[inline(always)]
pub(crate) fn round_column(s: &[u32; 4], j: usize) -> u32 {
    TE[0][byte(s[j], 0)]
        ^ TE[1][byte(s[(j + 1) % 4], 1)]
        ^ TE[2][byte(s[(j + 2) % 4], 2)]
        ^ TE[3][byte(s[(j + 3) % 4], 3)]
}

/// SubBytes and ShiftRows only (the last round) for output column `j`.
#[inline(always)]
fn last_round_column(s: &[u32; 4], j: usize) -> u32 {
    u32::from_be_bytes([
        SBOX[byte(s[j], 0)],
        SBOX[byte(s[(j + 1) % 4], 1)],
        SBOX[byte(s[(j + 2) % 4], 2)],
        SBOX[byte(s[(j + 3) % 4], 3)],
    ])
}

impl Table {
    /// FIPS-197 Figure 5 on one block.
    fn encrypt_block(&self, block: &mut Block) {
        let rk = &self.rk;
        // AddRoundKey with round key 0.
        let s: [u32; 4] = core::array::from_fn(|c| {
            u32::from_be_bytes([
                block[4 * c],
                block[4 * c + 1],
                block[4 * c + 2],
                block[4 * c + 3],
            ]) ^ rk[0][c]
        });
        *block = self.rounds_from(s, 1);
    }

    /// The round keys in use, `rounds + 1` of them, as column words.
    pub(crate) fn round_keys(&self) -> &[[u32; 4]] {
        &self.rk[..=self.rounds]
    }

    /// The rest of the cipher from round `first` (at least 1) on a state
    /// that has been through rounds `0..first`, round keys included: the
    /// middle rounds, then the last. Counter-mode caching (`ctr::face`)
    /// enters here after computing the first rounds its own way.
    #[inline(always)]
    pub(crate) fn rounds_from(&self, mut s: [u32; 4], first: usize) -> Block {
        let rk = &self.rk[..=self.rounds];
        // Rounds first .. rounds-1: one lookup-and-XOR formula per column.
        for k in &rk[first..self.rounds] {
            s = [
                round_column(&s, 0) ^ k[0],
                round_column(&s, 1) ^ k[1],
                round_column(&s, 2) ^ k[2],
                round_column(&s, 3) ^ k[3],
            ];
        }
        // The last round has no MixColumns.
        let k = &rk[self.rounds];
        let mut block = [0u8; 16];
        for (c, out) in block.chunks_exact_mut(4).enumerate() {
            out.copy_from_slice(&(last_round_column(&s, c) ^ k[c]).to_be_bytes());
        }
        s.zeroize();
        block
    }
}

impl BlockCipher for Table {
    const NAME: &'static str = "table";
    const CONSTANT_TIME: bool = false;
    const STORAGE_BYTES: usize = size_of::<RoundKeys>();

    fn new(keys: &KeySchedule) -> Option<Self> {
        let mut rk = [[0u32; 4]; 15];
        for (words, bytes) in rk.iter_mut().zip(keys.round_keys()) {
            for (word, column) in words.iter_mut().zip(bytes.chunks_exact(4)) {
                *word = u32::from_be_bytes([column[0], column[1], column[2], column[3]]);
            }
        }
        Some(Table {
            rk,
            rounds: keys.rounds(),
        })
    }

    fn encrypt_blocks(&self, blocks: &mut [Block]) {
        for block in blocks {
            self.encrypt_block(block);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex_literal::hex;

    #[test]
    fn tables_match_the_rijndael_proposal() {
        // S(0) = 0x63: Te0[0] = (2·63, 63, 63, 3·63) = c6 63 63 a5.
        assert_eq!(TE[0][0x00], 0xc663_63a5);
        assert_eq!(TE[1][0x00], 0xa5c6_6363);
        // S(0xff) = 0x16: (2c, 16, 16, 3a).
        assert_eq!(TE[0][0xff], 0x2c16_163a);
        assert_eq!(TE[3][0xff], 0x1616_3a2c);
    }

    #[test]
    fn fips197_appendix_b() {
        // FIPS-197 Appendix B: the worked example, AES-128.
        let keys = KeySchedule::new(&hex!("2b7e151628aed2a6abf7158809cf4f3c")).unwrap();
        let aes = Table::new(&keys).unwrap();
        let mut blocks = [hex!("3243f6a8885a308d313198a2e0370734")];
        aes.encrypt_blocks(&mut blocks);
        assert_eq!(blocks[0], hex!("3925841d02dc09fbdc118597196a0b32"));
    }
}
