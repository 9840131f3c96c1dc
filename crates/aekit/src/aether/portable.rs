//! `portable`: constant-time AETHER for any CPU with 64-bit integers.
//!
//! What: the same F and R as `reference.rs`, on `u128` values (two 64-bit
//! registers), with nothing indexed by secret data.
//!
//! Representation: a word is one `u128` holding its 32 nibbles packed, in a
//! *storage order* that differs from the spec's by one fixed swap: the
//! nibble the spec numbers `i` sits at position `i ⊕ 4` (adjacent 16-bit
//! groups trade places). Why: write the spec's MatrixMul as
//! `MatrixMul = Rev ∘ M'`, where `M'(u)_{c,k} = T_k ⊕ J_c ⊕ u_{c,k}` (`T_k`:
//! XOR of column k over the four blocks, `J_c`: XOR of block c's nibbles)
//! and `Rev` reverses the block order (`c ↦ 3 − c`, nibble index `⊕ 12`).
//! `M'` commutes with any XOR-translation of nibble positions, and the
//! Permutation rotates the 5-bit nibble index right by one. In the storage
//! order `τ(i) = i ⊕ 4`, the conjugate `τ ∘ Permutation ∘ Rev ∘ τ⁻¹` maps
//! `q ↦ rot(q ⊕ 8) ⊕ 4 = rot(q)`: the plain Permutation. So in storage
//! `F = Permutation ∘ S ∘ M' ∘ S` with no block reversal anywhere, and the
//! swap is paid only when words enter or leave (message, keys, tag).
//!
//! Math, per step (all nibble-parallel SWAR on the `u128`):
//!
//! - S-box: with `x0..x3` the nibbles' bits as 0/1 lanes (mask `0x1111…`),
//!   Orthros' S-box from its algebraic normal form, factored:
//!   `y0 = ¬((x0∨x1) ⊕ x1·mux(x0; x2, x3))`,
//!   `y1 = ¬x0·(x1∨x2) ⊕ x0·x3·¬x2`,
//!   `y2 = x1·(x0∨x2) ⊕ x2·x3·¬x1`,
//!   `y3 = x3 ⊕ x2·mux(x3; x1, x0)` (mux(s; a, b) = s ? a : b).
//!   About 35 `u128` operations for 32 nibbles; checked exhaustively below.
//! - M': `T` by XOR with the word's halves' 32-bit and 16-bit swaps, `J` by
//!   XOR with byte and nibble swaps inside each 16-bit block; four swaps.
//! - Permutation: an outer unshuffle of the 32 nibbles (Hacker's Delight
//!   §7-2 with every bit widened to a nibble): four delta swaps.
//!
//! Citation: the scheme as in `reference.rs`; SWAR bit-slicing in the
//! manner of Käsper–Schwabe, here within one word rather than across words.
//!
//! Constant-time: yes. Only AND, OR, XOR, NOT and shifts by constants; no
//! branch or memory index depends on the key, nonce or data.
//!
//! Cost: about 150 `u128` operations (300 64-bit ones) per F, twelve F per
//! 48-byte block. Rejected: full bit-slicing across words (four 32-bit
//! planes per word) — it saves the S-box's extract/insert shifts but pays a
//! bit transposition for every message word in and ciphertext word out, and
//! MatrixMul and Permutation become bit permutations of the same cost.

use zeroize::Zeroize;

use super::engine::{BLOCK_LEN, Engine, State, Word};

/// The low bit of every nibble.
const L: u128 = 0x1111_1111_1111_1111_1111_1111_1111_1111;

/// Spec order ↔ storage order: swap adjacent 16-bit groups (an involution).
fn swap16(v: u128) -> u128 {
    const M: u128 = 0x0000_ffff_0000_ffff_0000_ffff_0000_ffff;
    ((v >> 16) & M) | ((v & M) << 16)
}

fn load(w: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(w);
    swap16(u128::from_be_bytes(b))
}

fn store(v: u128, out: &mut [u8]) {
    out.copy_from_slice(&swap16(v).to_be_bytes());
}

/// ApplySbox on all 32 nibbles as a Boolean circuit.
fn sbox(v: u128) -> u128 {
    let x0 = v & L;
    let x1 = (v >> 1) & L;
    let x2 = (v >> 2) & L;
    let x3 = (v >> 3) & L;
    let mux023 = x3 ^ (x0 & (x2 ^ x3)); // x0 ? x2 : x3
    let mux310 = x0 ^ (x3 & (x0 ^ x1)); // x3 ? x1 : x0
    let y0 = ((x0 | x1) ^ (x1 & mux023)) ^ L;
    let y1 = ((x0 ^ L) & (x1 | x2)) ^ (x0 & x3 & (x2 ^ L));
    let y2 = (x1 & (x0 | x2)) ^ (x2 & x3 & (x1 ^ L));
    let y3 = x3 ^ (x2 & mux310);
    y0 | (y1 << 1) | (y2 << 2) | (y3 << 3)
}

/// Swaps the `bits`-wide fields selected by `mask` with their neighbours
/// above: `((v >> bits) & mask) | ((v & mask) << bits)`.
fn swap(v: u128, bits: u32, mask: u128) -> u128 {
    ((v >> bits) & mask) | ((v & mask) << bits)
}

/// M' = Rev ∘ MatrixMul (see the header): `T_k ⊕ J_c ⊕ u_{c,k}` per half.
fn matrix(s: u128) -> u128 {
    const M32: u128 = 0x0000_0000_ffff_ffff_0000_0000_ffff_ffff;
    const M16: u128 = 0x0000_ffff_0000_ffff_0000_ffff_0000_ffff;
    const M8: u128 = 0x00ff_00ff_00ff_00ff_00ff_00ff_00ff_00ff;
    const M4: u128 = 0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f;
    let t1 = s ^ swap(s, 32, M32); // blocks c and c⊕2
    let t = t1 ^ swap(t1, 16, M16); // + c⊕1, c⊕3: T_k in every block
    let s8 = swap(s, 8, M8); // nibble k ↔ k⊕2 inside each block
    let j1 = s ^ s8;
    // T ⊕ J ⊕ s = T ⊕ (j1 ⊕ swap4(j1)) ⊕ s = T ⊕ s8 ⊕ swap4(j1)
    t ^ s8 ^ swap(j1, 4, M4)
}

/// Widens a 32-bit mask over nibble positions (bit e = nibble e, counted
/// from the least significant) to the 128-bit mask of those nibbles.
const fn widen(m: u32) -> u128 {
    let mut out = 0u128;
    let mut e = 0;
    while e < 32 {
        if (m >> e) & 1 == 1 {
            out |= 0xf << (4 * e);
        }
        e += 1;
    }
    out
}

/// One delta swap: exchanges the fields of `mask` with those `shift` bits above.
fn delta(v: u128, shift: u32, mask: u128) -> u128 {
    let t = (v ^ (v >> shift)) & mask;
    v ^ t ^ (t << shift)
}

/// Permutation: nibble `i` (spec numbering, most significant first) moves to
/// `i/2` if even, `16 + (i−1)/2` if odd. Counted from the least significant
/// end that is the outer unshuffle: even nibbles to the low half, odd ones
/// to the high half, order kept.
fn permutation(v: u128) -> u128 {
    const D1: u128 = widen(0x2222_2222);
    const D2: u128 = widen(0x0c0c_0c0c);
    const D4: u128 = widen(0x00f0_00f0);
    const D8: u128 = widen(0x0000_ff00);
    let v = delta(v, 4, D1);
    let v = delta(v, 8, D2);
    let v = delta(v, 16, D4);
    delta(v, 32, D8)
}

/// F in storage order.
fn f(v: u128) -> u128 {
    permutation(sbox(matrix(sbox(v))))
}

/// R(S, X0, X1, X2) in storage order.
fn round(s: &mut [u128; 9], x: [u128; 3]) {
    let [s0, s1, s2, s3, s4, s5, s6, s7, s8] = *s;
    *s = [
        f(s8) ^ x[0],
        f(s0) ^ s3,
        f(s1) ^ s6,
        f(s2) ^ x[1],
        f(s3) ^ s4,
        f(s4) ^ x[2],
        f(s5) ^ s8,
        f(s6) ^ s2,
        f(s7) ^ s0,
    ];
}

fn keystream(s: &[u128; 9]) -> [u128; 3] {
    [
        f(s[0] ^ s[1]) ^ s[4],
        f(s[2] ^ s[6]) ^ s[7],
        f(s[3] ^ s[5]) ^ s[8],
    ]
}

fn block(b: &[u8]) -> [u128; 3] {
    [load(&b[..16]), load(&b[16..32]), load(&b[32..48])]
}

/// Runs `body` on the state in storage order, then writes it back and
/// wipes the copy.
fn with_state(s: &mut State, body: impl FnOnce(&mut [u128; 9])) {
    let mut v: [u128; 9] = core::array::from_fn(|i| load(&s[i]));
    body(&mut v);
    for (w, x) in s.iter_mut().zip(&v) {
        store(*x, w);
    }
    v.zeroize();
}

/// The portable engine.
#[derive(Clone, Copy, Debug)]
pub struct Portable;

impl Engine for Portable {
    fn keystream(self, s: &State) -> [u8; BLOCK_LEN] {
        let mut v: [u128; 9] = core::array::from_fn(|i| load(&s[i]));
        let mut k = keystream(&v);
        let mut out = [0u8; BLOCK_LEN];
        for (j, w) in k.iter().enumerate() {
            store(*w, &mut out[16 * j..16 * j + 16]);
        }
        v.zeroize();
        k.zeroize();
        out
    }

    fn absorb(self, s: &mut State, blocks: &[u8]) {
        with_state(s, |v| {
            for b in blocks.chunks_exact(BLOCK_LEN) {
                round(v, block(b));
            }
        });
    }

    fn absorb_repeated(self, s: &mut State, x: &[Word; 3], times: usize) {
        let mut xs = [load(&x[0]), load(&x[1]), load(&x[2])];
        with_state(s, |v| {
            for _ in 0..times {
                round(v, xs);
            }
        });
        xs.zeroize();
    }

    fn encrypt(self, s: &mut State, blocks: &mut [u8]) {
        with_state(s, |v| {
            for b in blocks.chunks_exact_mut(BLOCK_LEN) {
                let k = keystream(v);
                let m = block(b);
                round(v, m);
                for j in 0..3 {
                    store(m[j] ^ k[j], &mut b[16 * j..16 * j + 16]);
                }
            }
        });
    }

    fn decrypt(self, s: &mut State, blocks: &mut [u8]) {
        with_state(s, |v| {
            for b in blocks.chunks_exact_mut(BLOCK_LEN) {
                let k = keystream(v);
                let c = block(b);
                let m = [c[0] ^ k[0], c[1] ^ k[1], c[2] ^ k[2]];
                round(v, m);
                for j in 0..3 {
                    store(m[j], &mut b[16 * j..16 * j + 16]);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbox_circuit_matches_table() {
        for x in 0..16u128 {
            // Every nibble position at once: all 32 nibbles equal to x.
            let v = x * L;
            let want = super::super::reference::SBOX[x as usize] as u128 * L;
            assert_eq!(sbox(v), want, "S[{x:x}]");
        }
    }

    #[test]
    fn f_matches_reference() {
        let mut w = [0u8; 16];
        for round in 0..64u8 {
            for (i, b) in w.iter_mut().enumerate() {
                *b = b
                    .wrapping_mul(31)
                    .wrapping_add(round ^ i as u8)
                    .rotate_left(3);
            }
            let mut got = [0u8; 16];
            store(f(load(&w)), &mut got);
            assert_eq!(got, super::super::reference::f(&w));
        }
    }
}
