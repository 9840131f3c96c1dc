//! FACE on `table` (T-table AES): the five variants as caches of column
//! words. **Not constant-time** (neither is `table`; the tables here are
//! indexed by key-dependent bytes too).
//!
//! # Where the varying byte goes
//!
//! The state is four big-endian column words (`aes/table.rs`), so counter
//! byte 15 is the low byte (row 3) of column 3. With `s0 = counter ⊕ rk0`,
//! `Te` the T-tables and `b_r(x)` byte `r` of word `x`:
//!
//! ```text
//! round 1, column j = Te0[b0(s0[j])] ⊕ Te1[b1(s0[j+1])] ⊕ Te2[b2(s0[j+2])] ⊕ Te3[b3(s0[j+3])] ⊕ rk1[j]
//! ```
//!
//! Byte 15 is `b3(s0[3])`, read only by column 0's `Te3` term. So
//!
//! ```text
//! s1[0] = P ⊕ Te3[ctr15 ⊕ rk0[15]]       P = Te0[b0(s0[0])] ⊕ Te1[b1(s0[1])] ⊕ Te2[b2(s0[2])] ⊕ rk1[0]
//! s1[1..4]                               static: they read bytes 12, 13, 14 (b0..b2 of s0[3])
//! ```
//!
//! `P` reads bytes 0, 5 and 10 only — IV bytes. In round 2, `s1[0]` feeds
//! one term of every output column: row 0 into column 0 (`Te0`), row 1
//! into column 3 (`Te1`), row 2 into column 2 (`Te2`), row 3 into column 1
//! (`Te3`); the other twelve terms and the round key are static, `c2`.
//!
//! # The variants, per block
//!
//! | variant | cache (reset when bytes 12..14 change) | table (per message) | work per block before `rounds_from` |
//! |---------|-----------------------------------------|---------------------|-------------------------------------|
//! | `rd0`   | `s0` with byte 15 zero (16 B)           | —                   | 1 XOR, then rounds 1.. |
//! | `rd1`   | `P`, `s1[1..4]`, `rk0[15]` (20 B)       | —                   | 1 lookup, 1 XOR, then rounds 2.. |
//! | `rd1+`  | `s1[1..4]` (12 B)                       | `T1[v] = s1[0]`, 256 words (1 KiB) | 1 load, then rounds 2.. |
//! | `rd2`   | `P`, `c2`, `rk0[15]` (20 B)             | —                   | 5 lookups, 5 XOR, then rounds 3.. |
//! | `rd2+`  | `c2` (16 B)                             | `T2[v]` = round 2's four varying terms (4 KiB) | 4 XOR, then rounds 3.. |
//!
//! A round of `table` is 16 lookups and 16 XORs, so `rd2+` saves about two
//! rounds of ten (AES-128) or fourteen (AES-256): ≤ 20% and ≤ 14% of the
//! cipher, the seed's 19% and 14%. The tables cost 256 evaluations of the
//! varying terms per message.

use zeroize::Zeroize;

use crate::aes::Block;
use crate::aes::table::{TE, Table, byte, round_column};
use aekit_core::ctr::face::Engine;

/// `counter ⊕ rk0` as column words, with counter byte 15 taken as zero.
#[inline(always)]
fn round0_static(aes: &Table, counter: &Block) -> [u32; 4] {
    let rk0 = aes.round_keys()[0];
    core::array::from_fn(|c| {
        let mut word = [
            counter[4 * c],
            counter[4 * c + 1],
            counter[4 * c + 2],
            counter[4 * c + 3],
        ];
        if c == 3 {
            word[3] = 0;
        }
        u32::from_be_bytes(word) ^ rk0[c]
    })
}

/// Round 1 with byte 15's term left out of column 0: `[P, s1[1], s1[2],
/// s1[3]]` of the header.
#[inline(always)]
fn round1_static(aes: &Table, counter: &Block) -> [u32; 4] {
    let s0 = round0_static(aes, counter);
    let rk1 = aes.round_keys()[1];
    let mut s1: [u32; 4] = core::array::from_fn(|j| round_column(&s0, j) ^ rk1[j]);
    // Take byte 15's term back out: b3(s0[3]) holds rk0[15] ⊕ 0.
    s1[0] ^= TE[3][byte(s0[3], 3)];
    s1
}

/// `rk0[15]`, which the varying byte meets first.
#[inline(always)]
fn key_byte_15(aes: &Table) -> u8 {
    aes.round_keys()[0][3] as u8
}

/// Round 2's static terms `c2` given round 1 with column 0 zero.
#[inline(always)]
fn round2_static(aes: &Table, s1: &[u32; 4]) -> [u32; 4] {
    let rk2 = aes.round_keys()[2];
    let mut rest = *s1;
    rest[0] = 0;
    let mut c2: [u32; 4] = core::array::from_fn(|j| round_column(&rest, j) ^ rk2[j]);
    // Column 0 was zero, not absent: take its four terms (all S(0)) back out.
    let zero = [TE[0][0], TE[3][0], TE[2][0], TE[1][0]];
    c2.iter_mut().zip(zero).for_each(|(c, z)| *c ^= z);
    c2
}

/// Round 2's four varying terms from round 1's column 0 `x`, in output
/// column order.
#[inline(always)]
fn round2_varying(x: u32) -> [u32; 4] {
    [
        TE[0][byte(x, 0)],
        TE[3][byte(x, 3)],
        TE[2][byte(x, 2)],
        TE[1][byte(x, 1)],
    ]
}

/// XORs one block of keystream into `chunk` (one block, possibly
/// partial), and wipes it.
#[inline(always)]
fn xor_keystream(mut keystream: Block, chunk: &mut [u8]) {
    for (byte, k) in chunk.iter_mut().zip(&keystream) {
        *byte ^= k;
    }
    keystream.zeroize();
}

/// `rd0`: round 0's AddRoundKey cached for the 15 static bytes.
#[derive(Zeroize)]
pub(crate) struct Rd0 {
    s0: [u32; 4],
}

impl Engine for Rd0 {
    type Aes = Table;
    const NAME: &'static str = "rd0";
    const GROUP: usize = 1;

    fn new(_: &Table, _: &Block) -> Self {
        Rd0 { s0: [0; 4] }
    }

    fn reset(&mut self, aes: &Table, counter: &Block) {
        self.s0 = round0_static(aes, counter);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &Table, low: u8, chunk: &mut [u8]) {
        let mut s = self.s0;
        s[3] ^= low as u32;
        xor_keystream(aes.rounds_from(s, 1), chunk);
    }
}

/// `rd1`: rounds 0–1 cached but for byte 15's one term.
#[derive(Zeroize)]
pub(crate) struct Rd1 {
    s1: [u32; 4],
    k15: u8,
}

impl Engine for Rd1 {
    type Aes = Table;
    const NAME: &'static str = "rd1";
    const GROUP: usize = 1;

    fn new(aes: &Table, _: &Block) -> Self {
        Rd1 {
            s1: [0; 4],
            k15: key_byte_15(aes),
        }
    }

    fn reset(&mut self, aes: &Table, counter: &Block) {
        self.s1 = round1_static(aes, counter);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &Table, low: u8, chunk: &mut [u8]) {
        let mut s = self.s1;
        s[0] ^= TE[3][(low ^ self.k15) as usize];
        xor_keystream(aes.rounds_from(s, 2), chunk);
    }
}

/// Round 1's column 0 for every low byte, given `P`.
fn round1_table(aes: &Table, counter: &Block) -> [u32; 256] {
    let p = round1_static(aes, counter)[0];
    let k15 = key_byte_15(aes);
    core::array::from_fn(|v| p ^ TE[3][v ^ k15 as usize])
}

/// `rd1+`: round 1's varying column tabulated (1 KiB per message).
#[derive(Zeroize)]
pub(crate) struct Rd1Plus {
    t1: [u32; 256],
    s1: [u32; 4],
}

impl Engine for Rd1Plus {
    type Aes = Table;
    const NAME: &'static str = "rd1+";
    const GROUP: usize = 1;

    fn new(aes: &Table, counter: &Block) -> Self {
        Rd1Plus {
            t1: round1_table(aes, counter),
            s1: [0; 4],
        }
    }

    fn reset(&mut self, aes: &Table, counter: &Block) {
        self.s1 = round1_static(aes, counter);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &Table, low: u8, chunk: &mut [u8]) {
        let mut s = self.s1;
        s[0] = self.t1[low as usize];
        xor_keystream(aes.rounds_from(s, 2), chunk);
    }
}

/// `rd2`: round 2's static three quarters cached.
#[derive(Zeroize)]
pub(crate) struct Rd2 {
    c2: [u32; 4],
    p: u32,
    k15: u8,
}

impl Engine for Rd2 {
    type Aes = Table;
    const NAME: &'static str = "rd2";
    const GROUP: usize = 1;

    fn new(aes: &Table, _: &Block) -> Self {
        Rd2 {
            c2: [0; 4],
            p: 0,
            k15: key_byte_15(aes),
        }
    }

    fn reset(&mut self, aes: &Table, counter: &Block) {
        let s1 = round1_static(aes, counter);
        self.p = s1[0];
        self.c2 = round2_static(aes, &s1);
    }

    #[inline(always)]
    fn apply(&mut self, aes: &Table, low: u8, chunk: &mut [u8]) {
        let x = self.p ^ TE[3][(low ^ self.k15) as usize];
        let v = round2_varying(x);
        let s = core::array::from_fn(|j| self.c2[j] ^ v[j]);
        xor_keystream(aes.rounds_from(s, 3), chunk);
    }
}

/// `rd2+`: round 2's varying terms tabulated (4 KiB per message).
#[derive(Zeroize)]
pub(crate) struct Rd2Plus {
    t2: [[u32; 4]; 256],
    c2: [u32; 4],
}

impl Engine for Rd2Plus {
    type Aes = Table;
    const NAME: &'static str = "rd2+";
    const GROUP: usize = 1;

    fn new(aes: &Table, counter: &Block) -> Self {
        let mut t1 = round1_table(aes, counter);
        let t2 = core::array::from_fn(|v| round2_varying(t1[v]));
        t1.zeroize();
        Rd2Plus { t2, c2: [0; 4] }
    }

    fn reset(&mut self, aes: &Table, counter: &Block) {
        self.c2 = round2_static(aes, &round1_static(aes, counter));
    }

    #[inline(always)]
    fn apply(&mut self, aes: &Table, low: u8, chunk: &mut [u8]) {
        let v = &self.t2[low as usize];
        let s = core::array::from_fn(|j| self.c2[j] ^ v[j]);
        xor_keystream(aes.rounds_from(s, 3), chunk);
    }
}
