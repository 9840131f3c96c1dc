//! AETHER's inner function F = Permutation ∘ ApplySbox ∘ MatrixMul ∘
//! ApplySbox against differential characteristics: the fewest active
//! S-boxes and the best characteristic probability of one F and of two F in
//! a row (the paper's Table 5, row `S_layer ∘ F_16`: 2^-16 for one, 2^-32
//! for two), and what those characteristics do on the real, keyless F.
//!
//! # Active S-boxes (exact)
//!
//! MatrixMul is B ⊗ I_4 on each 16-nibble half (B the binary matrix read
//! from the reference implementation; [`matrix`](super::matrix) for the
//! notation). In a characteristic through F, let d1 be the difference after
//! the first S-box layer (active nibbles A) and B·d1 the one entering the
//! second (active nibbles K). One F has |A| + |K| active S-boxes.
//!
//! - **One F.** The fewest is the branch number of B (8), by the lemma of
//!   `matrix.rs`; a one-plane d1 = δ·v with |v| + |B·v| = 8 attains it.
//! - **Two F.** The second S-box layer of the first F and the first layer
//!   of the second are both active on K (moved by the Permutation), so two
//!   F have |A| + 2|K| + |C| active S-boxes. A lower bound: every
//!   characteristic has a nonzero bit plane v in some half of d1, with
//!   |A| ≥ |v|, |K| ≥ |B·v|, and each half the Permutation sends B·v to is
//!   active in the second F and costs there at least max(8, its active
//!   nibbles + 1). The minimum of that over all 2 × 2^16 planes is a lower
//!   bound; a characteristic built from one plane per F is an upper bound.
//!   They meet (16), so the minimum is exact.
//!
//! # Probability: the paper's model, and the real F
//!
//! The paper's DCP multiplies the S-boxes' DDT probabilities, as if every
//! S-box saw independent inputs (the usual Markov assumption; a key between
//! layers makes it reasonable). Each active S-box passes with at most
//! p = δ_S/16 = 2^-2, so in that model no characteristic beats p^8 = 2^-16
//! for one F or p^16 = 2^-32 for two, and characteristics built from DDT
//! entries of 4 reach it: those figures are exact **in the model**.
//!
//! Inside F, though, nothing separates the two S-box layers: the second
//! layer's inputs are a linear function of the first layer's outputs. So
//! the real probability of a characteristic through one F —
//! Pr over x that F follows α → d1 → B·d1 → d3 → β — is computed here
//! exactly ([`exact_probability`]): with u = S(x) uniform, the active
//! first-layer outputs u_A range over the DDT solution sets, the free
//! nibbles u_F make (B·u)_K uniform on a coset of the subspace
//! W = (B·u_F)_K, and counting the second-layer solution sets inside each
//! coset gives the probability, in at most 4^8 steps. It can fall to 0:
//! B is an involution, so for one active input nibble j the seven active
//! second-layer inputs XOR back to u_j, and for the best differences no
//! seven of their solutions XOR into u_j's solution set. It can also rise
//! above the model's product (2^-15 and 2^-14 against 2^-16 for the
//! witnesses found), so the model's 2^-16 is not an upper bound on the real
//! F's characteristics. The witnesses below
//! are the first Markov-optimal characteristics in a fixed scan order whose
//! real probability is positive — not a search for the real maximum.
//! [`count_following`] runs the reference F's layers to count the inputs
//! that follow a characteristic, as an experimental check of both.

use super::SplitMix;
use super::matrix::{BitMatrix, differential_branch_number};
use super::sbox::ddt;
use crate::aether::reference;

/// AETHER's MatrixMul on one half as a 16 × 16 binary matrix over nibbles,
/// read from the reference implementation: column j is the image of a 1 in
/// nibble j.
pub fn aether_matrix() -> BitMatrix {
    BitMatrix::from_linear_map(16, |unit| {
        let j = unit.trailing_zeros() as usize;
        let mut x = [0u8; 32];
        x[j] = 1;
        let y = reference::matrix_mul(&x);
        (0..16).fold(0, |col, i| col | (u64::from(y[i] & 1) << i))
    })
}

/// Where the Permutation sends each of the 32 nibbles, read from the
/// reference implementation.
pub fn aether_permutation() -> [usize; 32] {
    core::array::from_fn(|i| {
        let mut x = [0u8; 32];
        x[i] = 1;
        let y = reference::permutation(&x);
        y.iter().position(|&v| v == 1).unwrap_or(usize::MAX)
    })
}

/// A differential characteristic of one F: the input difference α, the
/// difference after the first S-box layer, and the output difference β
/// (16-byte words in the spec's order). The rest follows: B·d1 enters the
/// second layer, whose output is β moved back by the Permutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// α, into F.
    pub input: [u8; 16],
    /// d1, after the first S-box layer.
    pub after_first_layer: [u8; 16],
    /// β, out of F.
    pub output: [u8; 16],
}

/// A characteristic through consecutive F, with its probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct Trail {
    /// One step per F; each step's output is the next one's input.
    pub steps: Vec<Step>,
    /// Active S-boxes in each F.
    pub active_sboxes: Vec<u32>,
    /// log2 of each F's probability in the paper's model (the product of
    /// its S-boxes' DDT entries / 16).
    pub log2_markov: Vec<f64>,
    /// Each F's exact probability on the real F ([`exact_probability`]).
    pub exact: Vec<f64>,
}

impl Trail {
    /// All active S-boxes.
    pub fn total_active(&self) -> u32 {
        self.active_sboxes.iter().sum()
    }

    /// log2 of the probability in the paper's model.
    pub fn log2_markov_probability(&self) -> f64 {
        self.log2_markov.iter().sum()
    }
}

/// The results for one F and for two F in a row.
#[derive(Clone, Debug, PartialEq)]
pub struct InnerBounds {
    /// log2 of the S-box's best transition probability (δ/16).
    pub log2_sbox_dp: f64,
    /// The differential branch number of MatrixMul over nibbles.
    pub branch_number: u32,
    /// Fewest active S-boxes in one F (exact).
    pub one_active: u32,
    /// log2 of the best one-F probability in the paper's model.
    pub one_log2_markov: f64,
    /// The first Markov-optimal one-F characteristic of the scan: one
    /// active input nibble, and impossible on the real F.
    pub one_first: Trail,
    /// The first Markov-optimal one-F characteristic of the scan with a
    /// positive real probability.
    pub one_witness: Trail,
    /// A lower bound on the active S-boxes of two F.
    pub two_active_lower: u32,
    /// The active S-boxes of the best two-F characteristic built (an upper
    /// bound on the minimum; equal to the lower bound when exact).
    pub two_active_upper: u32,
    /// log2 of the best two-F probability in the paper's model.
    pub two_log2_markov: f64,
    /// The first Markov-optimal two-F characteristic of the scan whose two
    /// F both have a positive real probability.
    pub two_witness: Trail,
}

fn ones(x: u64) -> u32 {
    x.count_ones()
}

/// The active-nibble pattern (bit i: nibble i) moved by the Permutation.
fn permute(pattern: u32, perm: &[usize; 32]) -> u32 {
    (0..32)
        .filter(|i| (pattern >> i) & 1 == 1)
        .fold(0, |p, i| p | 1 << perm[i])
}

/// The two 16-nibble halves of a pattern.
fn halves(pattern: u32) -> [u64; 2] {
    [u64::from(pattern & 0xffff), u64::from(pattern >> 16)]
}

/// log2(entry / 16) of a DDT entry.
fn log2_of(entry: u32) -> f64 {
    f64::from(entry).log2() - 4.0
}

/// The differences an active S-box reaches from `a`, or comes from to reach
/// `b`, with the largest DDT entry.
fn best_outputs(table: &[Vec<u32>], a: usize) -> Vec<u8> {
    let top = table[a][1..].iter().copied().max().unwrap_or(0);
    (1..16)
        .filter(|&b| table[a][b] == top)
        .map(|b| b as u8)
        .collect()
}

fn best_inputs(table: &[Vec<u32>], b: usize) -> Vec<u8> {
    let top = (1..16).map(|a| table[a][b]).max().unwrap_or(0);
    (1..16)
        .filter(|&a| table[a][b] == top)
        .map(|a| a as u8)
        .collect()
}

/// The one-F characteristic on the one-plane pattern v (in `half`): δ
/// after the first layer, input `a` on every active input nibble, output
/// `b` on every active nibble of B·v.
fn one_plane_step(
    b_matrix: &BitMatrix,
    perm: &[usize; 32],
    v: u64,
    half: usize,
    d: u8,
    a: u8,
    b: u8,
) -> Step {
    let bv = b_matrix.apply(v);
    let (mut input, mut after, mut second) = ([0u8; 32], [0u8; 32], [0u8; 32]);
    for j in 0..16 {
        if (v >> j) & 1 == 1 {
            input[16 * half + j] = a;
            after[16 * half + j] = d;
        }
        if (bv >> j) & 1 == 1 {
            second[16 * half + j] = b;
        }
    }
    let mut output = [0u8; 32];
    for i in 0..32 {
        output[perm[i]] = second[i];
    }
    Step {
        input: reference::from_nibbles(&input),
        after_first_layer: reference::from_nibbles(&after),
        output: reference::from_nibbles(&output),
    }
}

/// log2 of a step's probability in the paper's model (−∞ if a transition
/// is impossible in the DDT).
fn log2_markov(table: &[Vec<u32>], step: &Step) -> f64 {
    let (a, d1, d3) = layers(step);
    let d2 = reference::matrix_mul(&d1);
    (0..32)
        .map(|i| {
            let first = if a[i] == 0 {
                0.0
            } else {
                log2_of(table[a[i] as usize][d1[i] as usize])
            };
            let second = if d2[i] == 0 {
                0.0
            } else {
                log2_of(table[d2[i] as usize][d3[i] as usize])
            };
            first + second
        })
        .sum()
}

/// (α, d1, d3) as nibbles: d3 is β moved back through the Permutation.
fn layers(step: &Step) -> ([u8; 32], [u8; 32], [u8; 32]) {
    let perm = aether_permutation();
    let beta = reference::to_nibbles(&step.output);
    let d3 = core::array::from_fn(|i| beta[perm[i]]);
    (
        reference::to_nibbles(&step.input),
        reference::to_nibbles(&step.after_first_layer),
        d3,
    )
}

fn active_sboxes(step: &Step) -> u32 {
    let (a, d1, _) = layers(step);
    let d2 = reference::matrix_mul(&d1);
    (a.iter().filter(|&&x| x != 0).count() + d2.iter().filter(|&&x| x != 0).count()) as u32
}

fn trail(table: &[Vec<u32>], steps: Vec<Step>) -> Trail {
    Trail {
        active_sboxes: steps.iter().map(active_sboxes).collect(),
        log2_markov: steps.iter().map(|s| log2_markov(table, s)).collect(),
        exact: steps.iter().map(exact_probability).collect(),
        steps,
    }
}

/// The exact probability, over a uniformly random input x, that one F
/// follows `step`: S(x) ⊕ S(x ⊕ α) = d1 after the first S-box layer and
/// F(x) ⊕ F(x ⊕ α) = β (see the module documentation for the method).
pub fn exact_probability(step: &Step) -> f64 {
    let (a, d1, d3) = layers(step);
    let d2 = reference::matrix_mul(&d1);
    let b = aether_matrix();
    let sbox = reference::SBOX;
    // Values v of an S-box input with S(v) ⊕ S(v ⊕ din) = dout.
    let solutions = |din: u8, dout: u8| -> Vec<u8> {
        (0..16u8)
            .filter(|&v| sbox[v as usize] ^ sbox[(v ^ din) as usize] == dout)
            .collect()
    };
    let mut probability = 1.0;
    for h in 0..2 {
        let idx = |j: usize| 16 * h + j;
        // A zero difference must stay zero through each S-box.
        if (0..16).any(|j| {
            (a[idx(j)] == 0) != (d1[idx(j)] == 0) || (d2[idx(j)] == 0) != (d3[idx(j)] == 0)
        }) {
            return 0.0;
        }
        let active: Vec<usize> = (0..16).filter(|&j| a[idx(j)] != 0).collect();
        let k_mask: u64 = (0..16)
            .filter(|&k| d2[idx(k)] != 0)
            .fold(0, |m, k| m | 1 << k);
        if active.is_empty() {
            continue;
        }
        // The first layer's outputs u_j = S(x_j) on A, as values: the S-box
        // outputs of the solutions.
        let u_sets: Vec<Vec<u8>> = active
            .iter()
            .map(|&j| {
                solutions(a[idx(j)], d1[idx(j)])
                    .iter()
                    .map(|&x| sbox[x as usize])
                    .collect()
            })
            .collect();
        let y_positions: Vec<usize> = (0..16).filter(|&k| (k_mask >> k) & 1 == 1).collect();
        let y_sets: Vec<Vec<u8>> = y_positions
            .iter()
            .map(|&k| solutions(d2[idx(k)], d3[idx(k)]))
            .collect();
        if u_sets.iter().chain(&y_sets).any(Vec::is_empty) {
            return 0.0;
        }
        // W: what the free nibbles add to (B·u)_K, per bit plane.
        let mut basis = XorBasis::default();
        for j in (0..16).filter(|j| !active.contains(j)) {
            basis.insert(b.apply(1 << j) & k_mask);
        }
        let columns: Vec<u64> = active.iter().map(|&j| b.apply(1 << j) & k_mask).collect();
        let mut hits = 0u64;
        for_each_choice(&u_sets, &mut |u| {
            // t = (B·u_A)_K as nibble values at the positions of K.
            let mut t = [0u8; 16];
            for (col, &value) in columns.iter().zip(u) {
                for &k in &y_positions {
                    if (col >> k) & 1 == 1 {
                        t[k] ^= value;
                    }
                }
            }
            for_each_choice(&y_sets, &mut |y| {
                let in_coset = (0..4).all(|plane| {
                    let v = y_positions.iter().zip(y).fold(0u64, |m, (&k, &yk)| {
                        m | u64::from(((yk ^ t[k]) >> plane) & 1) << k
                    });
                    basis.contains(v)
                });
                hits += u64::from(in_coset);
            });
        });
        // Each u_A value has probability 16^-|A|; each y_K value in its
        // coset, 1/|W| = 2^(−4·rank).
        probability *=
            hits as f64 * (-(4.0 * active.len() as f64 + 4.0 * basis.rank() as f64)).exp2();
    }
    probability
}

/// A basis of a subspace of F_2^16, reduced on pivots.
#[derive(Default)]
struct XorBasis {
    vectors: Vec<u64>,
}

impl XorBasis {
    fn reduce(&self, mut v: u64) -> u64 {
        for &b in &self.vectors {
            v = v.min(v ^ b);
        }
        v
    }

    fn insert(&mut self, v: u64) {
        let r = self.reduce(v);
        if r != 0 {
            self.vectors.push(r);
            // Keep the vectors sorted by leading bit, descending, so that
            // `reduce` (min over XOR) clears leading bits in order.
            self.vectors.sort_unstable_by(|a, b| b.cmp(a));
        }
    }

    fn contains(&self, v: u64) -> bool {
        self.reduce(v) == 0
    }

    fn rank(&self) -> usize {
        self.vectors.len()
    }
}

/// Calls `f` on every choice of one value from each set.
fn for_each_choice(sets: &[Vec<u8>], f: &mut dyn FnMut(&[u8])) {
    fn walk(sets: &[Vec<u8>], chosen: &mut Vec<u8>, f: &mut dyn FnMut(&[u8])) {
        match sets.split_first() {
            None => f(chosen),
            Some((first, rest)) => {
                for &v in first {
                    chosen.push(v);
                    walk(rest, chosen, f);
                    chosen.pop();
                }
            }
        }
    }
    walk(sets, &mut Vec::with_capacity(sets.len()), f);
}

/// Computes [`InnerBounds`] for the pinned S-box, matrix and Permutation.
pub fn inner_bounds() -> InnerBounds {
    let table = ddt(&reference::SBOX);
    let p_max = (1..16)
        .flat_map(|a| table[a][1..].iter().copied())
        .max()
        .unwrap_or(0);
    let b = aether_matrix();
    let perm = aether_permutation();
    let branch = differential_branch_number(&b, 1);

    // One F: every one-plane pattern at the branch number, in order of v,
    // with each δ and the best inputs and outputs around it.
    let mut one_first = None;
    let mut one_witness = None;
    'scan: for v in 1u64..1 << 16 {
        if ones(v) + ones(b.apply(v)) != branch {
            continue;
        }
        for d in 1..16u8 {
            for &a in &best_inputs(&table, d as usize) {
                for &out in &best_outputs(&table, d as usize) {
                    let step = one_plane_step(&b, &perm, v, 0, d, a, out);
                    if log2_markov(&table, &step) != f64::from(branch) * log2_of(p_max) {
                        continue;
                    }
                    let t = trail(&table, vec![step]);
                    if one_first.is_none() {
                        one_first = Some(t.clone());
                    }
                    if t.exact[0] > 0.0 {
                        one_witness = Some(t);
                        break 'scan;
                    }
                }
            }
        }
    }

    // Two F: the lower bound over all planes, and the patterns built from
    // one plane per F that reach the upper bound.
    let mut lower = u32::MAX;
    let mut upper = u32::MAX;
    let mut candidates = Vec::new();
    for half in 0..2 {
        for v in 1u64..1 << 16 {
            let bv = b.apply(v);
            let d = permute((bv as u32) << (16 * half), &perm);
            let first = ones(v) + ones(bv);
            let active_halves = halves(d).into_iter().filter(|&h| h != 0);
            let lb = first
                + active_halves
                    .clone()
                    .map(|h| branch.max(ones(h) + 1))
                    .sum::<u32>();
            let ub = first
                + active_halves
                    .map(|h| ones(h) + ones(b.apply(h)))
                    .sum::<u32>();
            lower = lower.min(lb);
            if ub < upper {
                upper = ub;
                candidates.clear();
            }
            if ub == upper {
                candidates.push((v, half));
            }
        }
    }
    let two_target = f64::from(upper) * log2_of(p_max);
    let mut two_witness = None;
    'two: for &(v, half) in &candidates {
        for d1 in 1..16u8 {
            for d2 in 1..16u8 {
                for t in two_plane_trails(&table, &b, &perm, v, half, d1, d2) {
                    if t.log2_markov_probability() == two_target && t.exact.iter().all(|&p| p > 0.0)
                    {
                        two_witness = Some(t);
                        break 'two;
                    }
                }
            }
        }
    }
    InnerBounds {
        log2_sbox_dp: log2_of(p_max),
        branch_number: branch,
        one_active: branch,
        one_log2_markov: f64::from(branch) * log2_of(p_max),
        one_first: one_first.expect("a Markov-optimal one-F characteristic"),
        one_witness: one_witness.expect("a one-F characteristic that the real F follows"),
        two_active_lower: lower,
        two_active_upper: upper,
        two_log2_markov: two_target,
        two_witness: two_witness.expect("a two-F characteristic that the real F follows"),
    }
}

/// Two F on the one-plane pattern v in `half`: δ1 after the first F's
/// first layer, δ2 after the second F's first layer (one plane on every
/// active nibble), z between them (out of the first F's second layer, into
/// the second F's first), and the best inputs and outputs at the ends: one
/// trail per choice of the best values.
fn two_plane_trails(
    table: &[Vec<u32>],
    b: &BitMatrix,
    perm: &[usize; 32],
    v: u64,
    half: usize,
    d1: u8,
    d2: u8,
) -> Vec<Trail> {
    let (i1, i2) = (d1 as usize, d2 as usize);
    let top = (1..16)
        .map(|z| table[i1][z] * table[z][i2])
        .max()
        .unwrap_or(0);
    if top == 0 {
        return Vec::new();
    }
    let zs: Vec<u8> = (1..16)
        .filter(|&z| table[i1][z] * table[z][i2] == top)
        .map(|z| z as u8)
        .collect();
    let mut out = Vec::new();
    for &a in &best_inputs(table, i1) {
        for &z in &zs {
            for &c in &best_outputs(table, i2) {
                let first = one_plane_step(b, perm, v, half, d1, a, z);
                // The second F: z on D (the first F's output nibbles), δ2
                // after its first layer, c out of every active nibble.
                let middle = reference::to_nibbles(&first.output);
                let (mut after, mut second) = ([0u8; 32], [0u8; 32]);
                for h in 0..2 {
                    let dh: u64 = (0..16)
                        .filter(|&j| middle[16 * h + j] != 0)
                        .fold(0, |m, j| m | 1 << j);
                    let ch = b.apply(dh);
                    for j in 0..16 {
                        if (dh >> j) & 1 == 1 {
                            after[16 * h + j] = d2;
                        }
                        if (ch >> j) & 1 == 1 {
                            second[16 * h + j] = c;
                        }
                    }
                }
                let mut output = [0u8; 32];
                for i in 0..32 {
                    output[perm[i]] = second[i];
                }
                let second_step = Step {
                    input: first.output,
                    after_first_layer: reference::from_nibbles(&after),
                    output: reference::from_nibbles(&output),
                };
                out.push(trail(table, vec![first, second_step]));
            }
        }
    }
    out
}

/// How many of `samples` inputs x (from a fixed-seed generator) follow
/// `step` through the reference F's layers: S(x) ⊕ S(x ⊕ α) = d1 after the
/// first S-box layer and F(x) ⊕ F(x ⊕ α) = β — an experimental check of
/// [`exact_probability`].
pub fn count_following(step: &Step, samples: u64, seed: u64) -> u64 {
    let mut rng = SplitMix(seed);
    let alpha = reference::to_nibbles(&step.input);
    let d1 = reference::to_nibbles(&step.after_first_layer);
    (0..samples)
        .filter(|_| {
            let w = (u128::from(rng.next()) << 64 | u128::from(rng.next())).to_be_bytes();
            let x = reference::to_nibbles(&w);
            let x2: [u8; 32] = core::array::from_fn(|i| x[i] ^ alpha[i]);
            let (mut s, mut s2) = (x, x2);
            reference::apply_sbox(&mut s);
            reference::apply_sbox(&mut s2);
            if (0..32).any(|i| s[i] ^ s2[i] != d1[i]) {
                return false;
            }
            let (y, y2) = (
                reference::f(&w),
                reference::f(&reference::from_nibbles(&x2)),
            );
            (0..16).all(|i| y[i] ^ y2[i] == step.output[i])
        })
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_mul_is_b_on_every_bit_plane() {
        let b = aether_matrix();
        let mut rng = SplitMix(1);
        for _ in 0..200 {
            let x: [u8; 32] = core::array::from_fn(|_| rng.next() as u8 & 0xf);
            let y = reference::matrix_mul(&x);
            for h in 0..2 {
                for plane in 0..4 {
                    let bits = |z: &[u8; 32]| {
                        (0..16).fold(0u64, |m, j| {
                            m | u64::from((z[16 * h + j] >> plane) & 1) << j
                        })
                    };
                    assert_eq!(b.apply(bits(&x)), bits(&y));
                }
            }
        }
    }

    #[test]
    fn the_matrix_is_the_spec_s_and_an_involution() {
        let b = aether_matrix();
        // Row 0: y0 = u0 ⊕ u4 ⊕ u8 ⊕ u12 ⊕ u13 ⊕ u14 ⊕ u15 (spec).
        let row0: Vec<usize> = (0..16).filter(|&j| b.apply(1 << j) & 1 == 1).collect();
        assert_eq!(row0, [0, 4, 8, 12, 13, 14, 15]);
        assert!((0..1u64 << 16).all(|v| b.apply(b.apply(v)) == v));
        assert_eq!(b.transpose(), b);
    }

    #[test]
    fn the_permutation_is_the_spec_s() {
        let p = aether_permutation();
        for (i, &to) in p.iter().enumerate() {
            assert_eq!(to, if i % 2 == 0 { i / 2 } else { 16 + (i - 1) / 2 });
        }
    }

    #[test]
    fn active_sboxes_and_the_papers_dcp() {
        let r = inner_bounds();
        assert_eq!(r.log2_sbox_dp, -2.0);
        assert_eq!(r.branch_number, 8);
        assert_eq!(r.one_active, 8);
        assert_eq!(r.one_log2_markov, -16.0);
        assert_eq!((r.two_active_lower, r.two_active_upper), (16, 16));
        assert_eq!(r.two_log2_markov, -32.0);
        for t in [&r.one_first, &r.one_witness] {
            assert_eq!((t.total_active(), t.log2_markov_probability()), (8, -16.0));
        }
        assert_eq!(r.two_witness.total_active(), 16);
        assert_eq!(r.two_witness.log2_markov_probability(), -32.0);
        // Consecutive steps chain.
        assert_eq!(r.two_witness.steps[0].output, r.two_witness.steps[1].input);
        // On the real F these hold more often than in the model (the
        // module documentation quotes these figures).
        assert_eq!(r.one_witness.exact, [(-15.0f64).exp2()]);
        assert_eq!(r.two_witness.exact, [(-15.0f64).exp2(), (-14.0f64).exp2()]);
    }

    #[test]
    fn one_active_nibble_is_impossible_on_the_real_f() {
        // B is an involution and column j of B is row j, so the seven
        // second-layer inputs of a one-nibble characteristic XOR to u_j.
        let r = inner_bounds();
        let step = &r.one_first.steps[0];
        let input = reference::to_nibbles(&step.input);
        assert_eq!(input.iter().filter(|&&x| x != 0).count(), 1);
        assert_eq!(r.one_first.exact[0], 0.0);
        assert_eq!(count_following(step, 1 << 18, 3), 0);
    }

    #[test]
    fn exact_probabilities_match_the_experiment() {
        // Expected counts N·p against observed, within five standard
        // deviations (a binomial count of mean λ has σ ≈ √λ).
        let r = inner_bounds();
        let samples = 1u64 << 20;
        let steps = r.one_witness.steps.iter().chain(&r.two_witness.steps);
        let exact = r.one_witness.exact.iter().chain(&r.two_witness.exact);
        for (k, (step, &p)) in steps.zip(exact).enumerate() {
            assert!(p > 0.0);
            let expected = samples as f64 * p;
            let seen = count_following(step, samples, 100 + k as u64) as f64;
            assert!(
                (seen - expected).abs() <= 5.0 * expected.sqrt() + 1.0,
                "step {k}: {seen} seen, {expected:.1} expected"
            );
        }
    }

    #[test]
    fn exact_probability_of_a_trivial_step() {
        // No difference: probability 1. A difference the DDT forbids: 0.
        let zero = Step {
            input: [0; 16],
            after_first_layer: [0; 16],
            output: [0; 16],
        };
        assert_eq!(exact_probability(&zero), 1.0);
        let mut bad = zero;
        bad.input[0] = 0x10; // α = 1 on nibble 0, d1 = 0: impossible
        assert_eq!(exact_probability(&bad), 0.0);
    }
}
