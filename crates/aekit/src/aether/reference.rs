//! `reference`: AETHER nibble by nibble, written to be read beside the spec.
//!
//! What: the inner function F, the round update R, and the two things an
//! implementation must supply to the mode in `mod.rs` (keystream words and
//! absorption of 48-byte blocks), exactly as `docs/AETHER.md` states them.
//! This is the oracle every other implementation is tested against.
//!
//! Representation: a 128-bit word is a `[u8; 16]` read big-endian; for F it
//! is spread into 32 nibbles, `x[2i] = b[i] >> 4` and `x[2i + 1] = b[i] & 0xF`
//! (nibble 0 is the most significant). Each step of F is its own function
//! over `[u8; 32]`, in the order the seed writes
//! `F = Permutation ∘ ApplySbox ∘ MatrixMul ∘ ApplySbox`:
//!
//! - ApplySbox: `x[i] = S[x[i]]` with Orthros' 4-bit S-box.
//! - MatrixMul: in each half, output block `V_r` is the XOR of the input
//!   blocks `U_c` for `c ≠ 3 − r` plus `J(U_{3−r})` (the XOR of that block's
//!   four nibbles, written to all four places): the matrix
//!   `[[I,I,I,J],[I,I,J,I],[I,J,I,I],[J,I,I,I]]` of Akleylek et al.
//! - Permutation: even nibbles gather into the first half, odd ones into the
//!   second.
//!
//! Citation: K. Sakamoto, S. Banik, A. Caforio, T. Ishikawa, T. Isobe,
//! M. Rahman, "Design of an Ultra-High Throughput and Low-Energy
//! Authenticated Encryption Scheme" (§2.1 and §2.2), as pinned by the
//! project's `docs/AETHER.md`.
//!
//! Constant-time: **no**. The S-box is an array indexed by secret nibbles;
//! on a CPU with a data cache that index can leak. Use it to check, not to
//! protect ([`super::Strategy::best`] never picks it).
//!
//! Cost: about 64 table reads (the S-box layer twice) and 200 nibble
//! operations per F, twelve F per 48-byte block — slow on purpose, nothing
//! is fused or precomputed.

use super::engine::{Engine, State, Word};

/// Orthros' 4-bit S-box (spec: ApplySbox).
pub(crate) const SBOX: [u8; 16] = [
    0x1, 0x0, 0x2, 0x4, 0x3, 0x8, 0x6, 0xd, 0x9, 0xa, 0xb, 0xe, 0xf, 0xc, 0x7, 0x5,
];

/// A word as its 32 nibbles, most significant first.
type Nibbles = [u8; 32];

pub(crate) fn to_nibbles(w: &Word) -> Nibbles {
    let mut x = [0u8; 32];
    for (i, b) in w.iter().enumerate() {
        x[2 * i] = b >> 4;
        x[2 * i + 1] = b & 0xf;
    }
    x
}

pub(crate) fn from_nibbles(x: &Nibbles) -> Word {
    let mut w = [0u8; 16];
    for (i, b) in w.iter_mut().enumerate() {
        *b = (x[2 * i] << 4) | x[2 * i + 1];
    }
    w
}

/// ApplySbox: every nibble through S.
pub(crate) fn apply_sbox(x: &mut Nibbles) {
    for v in x.iter_mut() {
        *v = SBOX[*v as usize];
    }
}

/// MatrixMul: the 16×16 nibble matrix on each half independently.
pub(crate) fn matrix_mul(x: &Nibbles) -> Nibbles {
    let mut y = [0u8; 32];
    for h in 0..2 {
        let u = &x[16 * h..16 * h + 16];
        // J(U_c): the XOR of block c's four nibbles.
        let j = |c: usize| u[4 * c] ^ u[4 * c + 1] ^ u[4 * c + 2] ^ u[4 * c + 3];
        for r in 0..4 {
            for k in 0..4 {
                let mut v = 0;
                for c in 0..4 {
                    v ^= if c == 3 - r { j(c) } else { u[4 * c + k] };
                }
                y[16 * h + 4 * r + k] = v;
            }
        }
    }
    y
}

/// Permutation: `out[i/2] = in[i]` for even i, `out[16 + (i−1)/2] = in[i]`
/// for odd i.
pub(crate) fn permutation(x: &Nibbles) -> Nibbles {
    let mut y = [0u8; 32];
    for (i, &v) in x.iter().enumerate() {
        if i % 2 == 0 {
            y[i / 2] = v;
        } else {
            y[16 + (i - 1) / 2] = v;
        }
    }
    y
}

/// F = Permutation ∘ ApplySbox ∘ MatrixMul ∘ ApplySbox.
pub fn f(w: &Word) -> Word {
    let mut x = to_nibbles(w);
    apply_sbox(&mut x);
    let mut x = matrix_mul(&x);
    apply_sbox(&mut x);
    from_nibbles(&permutation(&x))
}

fn xor(a: &Word, b: &Word) -> Word {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// The round update R(S, X0, X1, X2); every right-hand side reads the
/// words before the update.
pub(crate) fn r(s: &mut State, x: &[Word; 3]) {
    let fs: [Word; 9] = core::array::from_fn(|i| f(&s[i]));
    *s = [
        xor(&fs[8], &x[0]), // S0' = F(S8) ⊕ X0
        xor(&fs[0], &s[3]), // S1' = F(S0) ⊕ S3
        xor(&fs[1], &s[6]), // S2' = F(S1) ⊕ S6
        xor(&fs[2], &x[1]), // S3' = F(S2) ⊕ X1
        xor(&fs[3], &s[4]), // S4' = F(S3) ⊕ S4
        xor(&fs[4], &x[2]), // S5' = F(S4) ⊕ X2
        xor(&fs[5], &s[8]), // S6' = F(S5) ⊕ S8
        xor(&fs[6], &s[2]), // S7' = F(S6) ⊕ S2
        xor(&fs[7], &s[0]), // S8' = F(S7) ⊕ S0
    ];
}

/// Splits a 48-byte block into its three words.
pub(crate) fn words(block: &[u8]) -> [Word; 3] {
    core::array::from_fn(|j| {
        let mut w = [0u8; 16];
        w.copy_from_slice(&block[16 * j..16 * j + 16]);
        w
    })
}

/// The reference engine.
#[derive(Clone, Copy, Debug)]
pub struct Reference;

impl Engine for Reference {
    fn keystream(self, s: &State) -> [u8; 48] {
        // F(S0⊕S1)⊕S4, F(S2⊕S6)⊕S7, F(S3⊕S5)⊕S8
        let k = [
            xor(&f(&xor(&s[0], &s[1])), &s[4]),
            xor(&f(&xor(&s[2], &s[6])), &s[7]),
            xor(&f(&xor(&s[3], &s[5])), &s[8]),
        ];
        let mut out = [0u8; 48];
        for (j, w) in k.iter().enumerate() {
            out[16 * j..16 * j + 16].copy_from_slice(w);
        }
        out
    }

    fn absorb(self, s: &mut State, blocks: &[u8]) {
        for block in blocks.chunks_exact(48) {
            r(s, &words(block));
        }
    }
}
