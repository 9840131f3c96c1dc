//! `bitsliced`: AETHER on many messages at once, one message per bit lane.
//!
//! What: the round update R and the keystream of `AETHER.md` for up to
//! `64·N` independent states (one per message, same key, own nonce), the
//! batch API's engine (`batch.rs` holds the mode around it).
//!
//! Representation: a *lane value* is `[u64; N]`, one bit per message
//! (message `64g + m` is bit `m` of element `g`). A word of every message's
//! state is 128 lane values, one per bit of the word (a *plane*); plane
//! `8k + t` holds bit `t` (least significant first) of byte `k`. So nibble
//! `i` of the spec (`x_{2i} = b[i] >> 4`, `x_{2i+1} = b[i] & 0xF`) has its
//! four bits in the four consecutive planes of *slot* `i ⊕ 1` (planes
//! `4(i ⊕ 1) + j`, `j` from the least significant). In this layout:
//!
//! - the Permutation and the word routing of R cost nothing: they only
//!   decide which plane an output is written to;
//! - MatrixMul is XORs of whole planes: per half and bit, with `u_{c,k}`
//!   the plane of nibble `16h + 4c + k`, `T_k = ⊕_c u_{c,k}`,
//!   `J_c = ⊕_k u_{c,k}`, the output block `r` is
//!   `V_{r,k} = T_k ⊕ J_{3−r} ⊕ u_{3−r,k}` (the row `⊕_{c≠3−r} U_c ⊕ J(U_{3−r})`
//!   of the spec: `u_{3−r,k}` appears in `T_k` and in `J_{3−r}`, so the
//!   third XOR leaves it counted once): 56 XORs per half and bit;
//! - the S-box is the Boolean circuit of `portable.rs` (Orthros' S-box from
//!   its algebraic normal form, 22 operations), once per nibble.
//!
//! Cost per F: 64 S-box circuits (about 1400 operations) and 448 XORs, for
//! `64·N` messages at once; twelve F per 48-byte block. Nothing is shuffled.
//!
//! Transposes: messages enter and leave as bytes; a 64×64 bit transpose
//! (Hacker's Delight §7-3, widened so that the `N` elements of a lane value
//! transpose `N` groups of 64 messages at once) turns 64 rows of 8 bytes into
//! 64 planes and back. Each byte of data is transposed once in and once out,
//! so their cost (about 4 operations per byte on a lane value) is amortized
//! over the whole message.
//!
//! Vector width: everything is element-wise on `[u64; N]`; compiled with
//! AVX2 enabled (`bitsliced_avx2.rs`, `N = 4`) every operation is one
//! `vpxor`/`vpand`/`vpor`/`vpandn`/`vpsllq`/`vpsrlq` on a 256-bit register,
//! and in the portable form (`N = 2`) one SSE2 operation on x86-64 or two
//! scalar ones elsewhere. Functions here are `#[inline(always)]` so that
//! each lands whole inside the entry point that enables the features; the
//! entry points (round, keystream, transpose) are few so that F is emitted
//! only twice.
//!
//! With AVX-512 the engine is `bitsliced_avx512.rs`: the same layout and
//! lane order, with `vpternlogq` (any function of three registers) for the
//! S-box and MatrixMul, a state updated in place, and vector transposes.
//! Rejected: a nibble-plane layout (four bits of a nibble in one register)
//! needs shuffles for the S-box again.
//!
//! Constant-time: yes. Only AND, OR, XOR, NOT and shifts by constants; no
//! branch or memory index depends on the key, the nonces or the data.

use zeroize::Zeroize;

/// One bit of `64·N` messages.
pub(crate) type Lane<const N: usize> = [u64; N];
/// A 128-bit word of every message, as 128 planes.
pub(crate) type Planes<const N: usize> = [Lane<N>; 128];
/// A 64×64 bit matrix of each of `N` groups, one row per lane value.
pub(crate) type Rows<const N: usize> = [Lane<N>; 64];

/// Where the Permutation sends each nibble, in slots: nibble `i` (slot
/// `i ⊕ 1`) goes to nibble `i/2` if `i` is even, `16 + (i−1)/2` if odd.
pub(crate) const PERM_SLOT: [usize; 32] = {
    let mut t = [0; 32];
    let mut s = 0;
    while s < 32 {
        let i = s ^ 1;
        let to = if i % 2 == 0 { i / 2 } else { 16 + (i - 1) / 2 };
        t[s] = to ^ 1;
        s += 1;
    }
    t
};

/// Each slot to itself.
const SAME_SLOT: [usize; 32] = {
    let mut t = [0; 32];
    let mut s = 0;
    while s < 32 {
        t[s] = s;
        s += 1;
    }
    t
};

#[inline(always)]
fn xor<const N: usize>(a: Lane<N>, b: Lane<N>) -> Lane<N> {
    core::array::from_fn(|g| a[g] ^ b[g])
}

#[inline(always)]
fn and<const N: usize>(a: Lane<N>, b: Lane<N>) -> Lane<N> {
    core::array::from_fn(|g| a[g] & b[g])
}

#[inline(always)]
fn or<const N: usize>(a: Lane<N>, b: Lane<N>) -> Lane<N> {
    core::array::from_fn(|g| a[g] | b[g])
}

/// `¬a ∧ b`.
#[inline(always)]
fn andn<const N: usize>(a: Lane<N>, b: Lane<N>) -> Lane<N> {
    core::array::from_fn(|g| !a[g] & b[g])
}

#[inline(always)]
fn not<const N: usize>(a: Lane<N>) -> Lane<N> {
    core::array::from_fn(|g| !a[g])
}

/// XORs `b` into `a`, plane by plane.
#[inline(always)]
pub(crate) fn xor_into<const N: usize>(a: &mut Planes<N>, b: &Planes<N>) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = xor(*x, *y);
    }
}

/// Orthros' S-box on one nibble of every message, `x[0]` the least
/// significant bit; the circuit (and its derivation) is `portable.rs`'s.
#[inline(always)]
fn sbox<const N: usize>(x: [Lane<N>; 4]) -> [Lane<N>; 4] {
    let [x0, x1, x2, x3] = x;
    let mux023 = xor(x3, and(x0, xor(x2, x3))); // x0 ? x2 : x3
    let mux310 = xor(x0, and(x3, xor(x0, x1))); // x3 ? x1 : x0
    let y0 = not(xor(or(x0, x1), and(x1, mux023)));
    let y1 = xor(andn(x0, or(x1, x2)), andn(x2, and(x0, x3)));
    let y2 = xor(and(x1, or(x0, x2)), andn(x1, and(x2, x3)));
    let y3 = xor(x3, and(x2, mux310));
    [y0, y1, y2, y3]
}

/// The four planes of one nibble.
type Nibble<const N: usize> = [Lane<N>; 4];

#[inline(always)]
fn xor4<const N: usize>(mut a: Nibble<N>, b: Nibble<N>) -> Nibble<N> {
    for j in 0..4 {
        a[j] = xor(a[j], b[j]);
    }
    a
}

/// ApplySbox on every nibble of `x`, the result of slot `s` written to
/// slot `to[s]`.
#[inline(always)]
fn apply_sbox<const N: usize>(x: &Planes<N>, out: &mut Planes<N>, to: &[usize; 32]) {
    let (xs, _) = x.as_chunks::<4>();
    let (os, _) = out.as_chunks_mut::<4>();
    for (s, nibble) in xs.iter().enumerate() {
        // `& 31`: the slot is in range, and the compiler sees it.
        os[to[s] & 31] = sbox(*nibble);
    }
}

/// MatrixMul (see the header), on whole nibbles of planes: per half,
/// `V_{r,k} = T_k ⊕ J_{3−r} ⊕ u_{3−r,k}`. Slots number the nibbles of a
/// block in the order `k ⊕ 1`, which relabels `k` alike on both sides.
#[inline(always)]
fn matrix<const N: usize>(x: &Planes<N>, out: &mut Planes<N>) {
    let (xs, _) = x.as_chunks::<4>();
    let (os, _) = out.as_chunks_mut::<4>();
    for h in 0..2 {
        // Plain loops, not `array::from_fn`: nested closures were left
        // out of line and their results copied through memory.
        let mut u = [[[[0; N]; 4]; 4]; 4];
        for c in 0..4 {
            for k in 0..4 {
                u[c][k] = xs[16 * h + 4 * c + k];
            }
        }
        let mut t = [[[0; N]; 4]; 4];
        let mut jc = [[[0; N]; 4]; 4];
        for k in 0..4 {
            t[k] = xor4(xor4(u[0][k], u[1][k]), xor4(u[2][k], u[3][k]));
            jc[k] = xor4(xor4(u[k][0], u[k][1]), xor4(u[k][2], u[k][3]));
        }
        for r in 0..4 {
            for k in 0..4 {
                os[16 * h + 4 * r + k] = xor4(xor4(t[k], jc[3 - r]), u[3 - r][k]);
            }
        }
    }
}

/// F on one word of every message: `Permutation ∘ ApplySbox ∘ MatrixMul ∘ ApplySbox`,
/// the Permutation folded into where the second S-box writes.
#[inline(always)]
fn f<const N: usize>(x: &Planes<N>, out: &mut Planes<N>, tmp: &mut Planes<N>) {
    apply_sbox(x, out, &SAME_SLOT);
    matrix(out, tmp);
    apply_sbox(tmp, out, &PERM_SLOT);
}

/// Where each word of R's result comes from: `S_i' = F(S_{FROM[i]}) ⊕ ADD[i]`,
/// `ADD` naming a state word or (as `9 + j`) the input word `X_j`.
pub(crate) const FROM: [usize; 9] = [8, 0, 1, 2, 3, 4, 5, 6, 7];
pub(crate) const ADD: [usize; 9] = [9, 3, 6, 10, 4, 11, 8, 2, 0];

/// Plane arrays on a cache-line boundary: a plane is 16, 32 or 64 bytes,
/// and one that straddles two lines makes every vector load and store of
/// it two.
#[repr(C, align(64))]
pub(crate) struct Aligned<T>(pub(crate) T);

impl<T> core::ops::Deref for Aligned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> core::ops::DerefMut for Aligned<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The states of every message of a group.
///
/// Word `i` of the state is `s[(i + 9 − rot) mod 9]`: an engine that
/// updates the state in place writes each new word over the old word F
/// read it from (new `S_i` over old `S_{i−1}`) and turns `rot` one step;
/// the generic engine computes into `next` (its scratch, made on first
/// use), swaps, and keeps `rot` at 0.
pub(crate) struct Lanes<const N: usize> {
    pub(crate) s: Box<Aligned<[Planes<N>; 9]>>,
    pub(crate) rot: usize,
    scratch: Option<Box<Scratch<N>>>,
}

/// The generic engine's scratch: the next state and F's middle word.
struct Scratch<const N: usize> {
    next: Box<Aligned<[Planes<N>; 9]>>,
    tmp: Aligned<Planes<N>>,
}

impl<const N: usize> Lanes<N> {
    pub(crate) fn new() -> Lanes<N> {
        Lanes {
            s: Box::new(Aligned([[[0; N]; 128]; 9])),
            rot: 0,
            scratch: None,
        }
    }

    /// The words and the generic engine's scratch (made on first use).
    fn parts(&mut self) -> (&mut Box<Aligned<[Planes<N>; 9]>>, &mut Scratch<N>) {
        let scratch = self.scratch.get_or_insert_with(|| {
            Box::new(Scratch {
                next: Box::new(Aligned([[[0; N]; 128]; 9])),
                tmp: Aligned([[0; N]; 128]),
            })
        });
        (&mut self.s, scratch)
    }

    /// Where word `i` of the state lies in `s`.
    pub(crate) fn slot(&self, i: usize) -> usize {
        (i + 9 - self.rot % 9) % 9
    }

    /// Word `i` of the state.
    #[cfg(any(target_arch = "x86_64", test))]
    pub(crate) fn word(&self, i: usize) -> &Planes<N> {
        &self.s[self.slot(i)]
    }

    /// Word `i` of the state, to change.
    pub(crate) fn word_mut(&mut self, i: usize) -> &mut Planes<N> {
        let at = self.slot(i);
        &mut self.s[at]
    }

    /// Sets the state to `words` (word `i` from `words[i]`), each copied
    /// into its place: no copy of the nine besides the state's.
    pub(crate) fn set(&mut self, words: [&Planes<N>; 9]) {
        self.rot = 0;
        for (slot, word) in (**self.s).iter_mut().zip(words) {
            *slot = *word;
        }
    }
}

impl<const N: usize> Drop for Lanes<N> {
    fn drop(&mut self) {
        self.s.0.zeroize();
        if let Some(sc) = &mut self.scratch {
            sc.next.0.zeroize();
            sc.tmp.0.zeroize();
        }
    }
}

/// R(S, X0, X1, X2) on every message.
#[inline(always)]
pub(crate) fn round<const N: usize>(st: &mut Lanes<N>, x: &[Planes<N>; 3]) {
    debug_assert_eq!(st.rot, 0, "the generic engine keeps the words in order");
    let (s, sc) = st.parts();
    for i in 0..9 {
        f(&s[FROM[i]], &mut sc.next[i], &mut sc.tmp);
        let add = if ADD[i] < 9 {
            &s[ADD[i]]
        } else {
            &x[ADD[i] - 9]
        };
        xor_into(&mut sc.next[i], add);
    }
    core::mem::swap(s, &mut sc.next);
}

/// XORs the keystream `F(S0⊕S1)⊕S4 ‖ F(S2⊕S6)⊕S7 ‖ F(S3⊕S5)⊕S8` into `data`.
#[inline(always)]
pub(crate) fn keystream_xor<const N: usize>(st: &mut Lanes<N>, data: &mut [Planes<N>; 3]) {
    const IN: [(usize, usize, usize); 3] = [(0, 1, 4), (2, 6, 7), (3, 5, 8)];
    let (s, sc) = st.parts();
    for (d, &(a, b, c)) in data.iter_mut().zip(&IN) {
        let (next, tmp) = (&mut sc.next, &mut sc.tmp);
        for p in 0..128 {
            next[0][p] = xor(s[a][p], s[b][p]);
        }
        let (input, rest) = next.split_at_mut(1);
        f(&input[0], &mut rest[0], tmp);
        for p in 0..128 {
            d[p] = xor(d[p], xor(next[1][p], s[c][p]));
        }
    }
}

/// Transposes each of the `N` 64×64 bit matrices in place: bit `c` of row
/// `r` trades places with bit `r` of row `c` (bits counted from the least
/// significant). Six rounds of block swaps, halving the block each time.
#[inline(always)]
pub(crate) fn transpose<const N: usize>(a: &mut Rows<N>) {
    let mut j = 32;
    let mut mask: u64 = 0x0000_0000_ffff_ffff;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            // Columns with bit `j` set in row k ↔ columns with it clear in row k + j.
            let t: Lane<N> = core::array::from_fn(|g| ((a[k][g] >> j) ^ a[k + j][g]) & mask);
            a[k] = core::array::from_fn(|g| a[k][g] ^ (t[g] << j));
            a[k + j] = xor(a[k + j], t);
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        mask ^= mask << j;
    }
}

/// The planes of a word that is the same in every message (a constant or
/// the key): each plane all ones or all zeros.
pub(crate) fn broadcast<const N: usize>(w: &[u8; 16]) -> Planes<N> {
    core::array::from_fn(|q| {
        let bit = (w[q / 8] >> (q % 8)) & 1;
        [0u64.wrapping_sub(bit as u64); N]
    })
}

/// What the bitsliced engine needs from an instruction set: the three hot
/// operations, each compiled whole for it.
pub(crate) trait Slicer<const N: usize>: Copy {
    fn round(self, st: &mut Lanes<N>, x: &[Planes<N>; 3]);
    /// `y = x ⊕` the keystream of the current state.
    fn keystream(self, st: &mut Lanes<N>, x: &[Planes<N>; 3], y: &mut [Planes<N>; 3]);
    fn transpose(self, rows: &mut Rows<N>);

    /// The planes of the first `x.len()` words of every lane's block,
    /// lane `l` reading `block(l)` (for `l` below `64·N`): word `w`'s
    /// 8-byte half `h` of lane `l` becomes row `l / N`, element `l mod N`,
    /// of the rows `x[w][64h..64h + 64]`, which are then transposed, so
    /// the lane's bits land where [`lane_bit`] says.
    fn gather<'b>(self, block: impl Fn(usize) -> &'b [u8; 48], x: &mut [Planes<N>]) {
        for l in 0..64 * N {
            let block = block(l);
            for (w, planes) in x.iter_mut().enumerate() {
                for h in 0..2 {
                    let i = 16 * w + 8 * h;
                    let v = u64::from_le_bytes(block[i..i + 8].try_into().expect("eight bytes"));
                    planes[64 * h + l / N][l % N] = v;
                }
            }
        }
        each_half(x, |rows| self.transpose(rows));
    }

    /// The inverse of [`Slicer::gather`], destroying `x`: each lane's
    /// first `16·x.len()` bytes given to `put(l, block)` (the rest of the
    /// block unspecified).
    fn scatter(self, x: &mut [Planes<N>], mut put: impl FnMut(usize, &[u8; 48])) {
        each_half(x, |rows| self.transpose(rows));
        let mut block = [0u8; 48];
        for l in 0..64 * N {
            for (w, planes) in x.iter().enumerate() {
                for h in 0..2 {
                    let i = 16 * w + 8 * h;
                    block[i..i + 8].copy_from_slice(&planes[64 * h + l / N][l % N].to_le_bytes());
                }
            }
            put(l, &block);
        }
        block.zeroize();
    }
}

/// Sets lane `l`'s bit in a lane value (the lane order of
/// [`Slicer::gather`]: bit `l / N` of element `l mod N`).
pub(crate) fn lane_bit<const N: usize>(v: &mut Lane<N>, l: usize) {
    v[l % N] |= 1 << (l / N);
}

/// `f` on the two halves of every word's planes, each as transpose rows.
pub(crate) fn each_half<const N: usize>(x: &mut [Planes<N>], mut f: impl FnMut(&mut Rows<N>)) {
    for planes in x.iter_mut() {
        let (lo, hi) = planes.split_at_mut(64);
        for half in [lo, hi] {
            f(<&mut Rows<N>>::try_from(half).expect("64 rows"));
        }
    }
}

/// The portable form: 128 messages per group (two `u64` per lane value,
/// one SSE2 register on x86-64).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Slicer<2> for Portable {
    fn round(self, st: &mut Lanes<2>, x: &[Planes<2>; 3]) {
        round(st, x);
    }
    fn keystream(self, st: &mut Lanes<2>, x: &[Planes<2>; 3], y: &mut [Planes<2>; 3]) {
        *y = *x;
        keystream_xor(st, y);
    }
    fn transpose(self, rows: &mut Rows<2>) {
        transpose(rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_moves_bit_c_of_row_r_to_bit_r_of_row_c() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut a: Rows<2> = core::array::from_fn(|_| {
            core::array::from_fn(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                seed
            })
        });
        let orig = a;
        transpose(&mut a);
        // Bit r of row c after the transpose is bit c of row r before.
        for g in 0..2 {
            for (r, row) in orig.iter().enumerate() {
                for (c, column) in a.iter().enumerate() {
                    assert_eq!((column[g] >> r) & 1, (row[g] >> c) & 1, "g{g} r{r} c{c}");
                }
            }
        }
    }

    #[test]
    fn f_matches_reference_in_every_lane() {
        // 128 different words, one per message; F of each, against the oracle.
        let words: Vec<[u8; 16]> = (0..128u32)
            .map(|m| {
                core::array::from_fn(|k| {
                    (m.wrapping_mul(97) as u8) ^ (k as u8).wrapping_mul(29) ^ 0x5a
                })
            })
            .collect();
        let mut x: Planes<2> = [[0; 2]; 128];
        for (m, w) in words.iter().enumerate() {
            for q in 0..128 {
                let bit = ((w[q / 8] >> (q % 8)) & 1) as u64;
                x[q][m / 64] |= bit << (m % 64);
            }
        }
        let (mut out, mut tmp) = ([[0; 2]; 128], [[0; 2]; 128]);
        f(&x, &mut out, &mut tmp);
        for (m, w) in words.iter().enumerate() {
            let mut got = [0u8; 16];
            for q in 0..128 {
                got[q / 8] |= (((out[q][m / 64] >> (m % 64)) & 1) as u8) << (q % 8);
            }
            assert_eq!(got, super::super::reference::f(w), "message {m}");
        }
    }
}
