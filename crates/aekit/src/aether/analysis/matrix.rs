//! Linear layers over GF(2) and their branch numbers (the paper's Table 4).
//!
//! A [`BitMatrix`] is a linear map on vectors of n ≤ 64 bits, split into
//! cells of w bits (w = 4 for nibbles, 8 for bytes). The weight of a vector
//! is its number of nonzero cells. The differential branch number of M is
//!
//! ```text
//! B_d(M) = min over x ≠ 0 of  wt(x) + wt(M·x),
//! ```
//!
//! the fewest active cells on both sides of the layer, so the fewest active
//! S-boxes around it; the linear branch number B_l(M) = B_d(Mᵀ) counts the
//! masks, which cross the layer through the transpose.
//!
//! Two ways to compute B_d, both exact:
//!
//! - exhaustion over every nonzero x, for n ≤ 24 bits;
//! - for larger invertible M: every pair (x, M·x) of weight sum B has a side
//!   of weight at most ⌊B/2⌋, and B ≤ c + 1 for c cells (a one-cell x has
//!   at most c + 1). So enumerating every x of weight ≤ ⌊(c+1)/2⌋ through
//!   M and every y of that weight through M⁻¹ meets the optimum: for AES's
//!   MixColumns (4 byte cells) that is 4·255 + 6·255² inputs each way
//!   instead of 2^32.
//!
//! Binary matrices over cells — each output cell the XOR of some input
//! cells, as AETHER's `[[I,I,I,J],[I,I,J,I],[I,J,I,I],[J,I,I,I]]` and
//! Midori's circ(0,1,1,1) — act on each bit plane of the cells alike: the
//! matrix on w-bit cells is B ⊗ I_w. Its branch number over cells equals the
//! branch number of B over single bits, so a 16 × 16 matrix of nibbles is
//! settled by 2^16 bit vectors, not 2^64 nibble vectors. Why: a one-plane
//! x = v ⊗ e has the weights of v, so B(B ⊗ I_w) ≤ B(B); and any nonzero x
//! has some nonzero plane v_k, while wt(x) ≥ wt(v_k) and
//! wt((B ⊗ I_w)·x) ≥ wt(B·v_k) (the cells of a vector are active where any
//! of its planes is), so the sum is at least B(B). The transpose of B ⊗ I_w
//! is Bᵀ ⊗ I_w, so the same holds for the linear branch number. The unit
//! tests check the claim exhaustively on Midori's matrix over nibbles.

/// A linear map on n ≤ 64 bits: `rows[i]` has bit j set when output bit i
/// depends on input bit j. Bit j of a vector is bit j of the `u64`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitMatrix {
    rows: Vec<u64>,
}

/// The number of nonzero `cell_bits`-bit cells of the low `n` bits of `x`.
pub fn cell_weight(x: u64, n: usize, cell_bits: usize) -> u32 {
    let mask = (1u64 << cell_bits) - 1;
    (0..n / cell_bits)
        .filter(|c| (x >> (c * cell_bits)) & mask != 0)
        .count() as u32
}

impl BitMatrix {
    /// The matrix of a linear map on `n` bits, read off its images of the
    /// unit vectors (column j = `f(1 << j)`). Only linear `f` give the map
    /// back: [`BitMatrix::apply`] agrees with `f` on all inputs exactly then.
    ///
    /// # Panics
    ///
    /// If `n` is 0 or above 64, or an image has bits at or above `n`.
    pub fn from_linear_map(n: usize, f: impl Fn(u64) -> u64) -> BitMatrix {
        assert!((1..=64).contains(&n), "1 ≤ n ≤ 64 bits");
        let mut rows = vec![0u64; n];
        for j in 0..n {
            let column = f(1 << j);
            assert!(
                n == 64 || column >> n == 0,
                "image of bit {j} has bits beyond n"
            );
            for (i, row) in rows.iter_mut().enumerate() {
                *row |= ((column >> i) & 1) << j;
            }
        }
        BitMatrix { rows }
    }

    /// The matrix whose row i is `rows[i]`, for n = `rows.len()` bits.
    ///
    /// # Panics
    ///
    /// If there are no rows or more than 64, or a row has bits at or above n.
    pub fn from_rows(rows: &[u64]) -> BitMatrix {
        let n = rows.len();
        assert!((1..=64).contains(&n), "1 ≤ n ≤ 64 bits");
        assert!(
            n == 64 || rows.iter().all(|r| r >> n == 0),
            "a row has bits beyond n"
        );
        BitMatrix {
            rows: rows.to_vec(),
        }
    }

    /// n: the number of bits in and out.
    pub fn size(&self) -> usize {
        self.rows.len()
    }

    /// M·x.
    pub fn apply(&self, x: u64) -> u64 {
        self.rows.iter().enumerate().fold(0, |y, (i, row)| {
            y | (u64::from((row & x).count_ones() & 1) << i)
        })
    }

    /// Mᵀ.
    pub fn transpose(&self) -> BitMatrix {
        BitMatrix::from_linear_map(self.size(), |e| {
            let j = e.trailing_zeros();
            self.rows
                .iter()
                .enumerate()
                .fold(0, |col, (i, row)| col | (((row >> j) & 1) << i))
        })
    }

    /// M⁻¹ by Gauss–Jordan elimination, or `None` if M is singular.
    pub fn inverse(&self) -> Option<BitMatrix> {
        let n = self.size();
        let mut a = self.rows.clone();
        let mut inv: Vec<u64> = (0..n).map(|i| 1u64 << i).collect();
        for col in 0..n {
            let pivot = (col..n).find(|&r| (a[r] >> col) & 1 == 1)?;
            a.swap(col, pivot);
            inv.swap(col, pivot);
            for r in 0..n {
                if r != col && (a[r] >> col) & 1 == 1 {
                    a[r] ^= a[col];
                    inv[r] ^= inv[col];
                }
            }
        }
        Some(BitMatrix { rows: inv })
    }

    /// B ⊗ I_w: this matrix acting on cells of `w` bits, each output cell
    /// the XOR of the input cells its row selects.
    ///
    /// # Panics
    ///
    /// If the result would exceed 64 bits.
    pub fn on_cells(&self, w: usize) -> BitMatrix {
        let n = self.size();
        assert!(n * w <= 64, "B ⊗ I_w has at most 64 bits");
        let mut rows = vec![0u64; n * w];
        for (i, row) in self.rows.iter().enumerate() {
            for j in (0..n).filter(|j| (row >> j) & 1 == 1) {
                for k in 0..w {
                    rows[i * w + k] |= 1 << (j * w + k);
                }
            }
        }
        BitMatrix { rows }
    }
}

/// The differential branch number of `m` over cells of `cell_bits` bits
/// (see the module documentation for the method).
///
/// # Panics
///
/// If `cell_bits` does not divide n; or n > 24 and `m` is singular, or the
/// bounded enumeration would take more than 2^32 vectors.
pub fn differential_branch_number(m: &BitMatrix, cell_bits: usize) -> u32 {
    let n = m.size();
    assert!(
        cell_bits >= 1 && n.is_multiple_of(cell_bits),
        "cells of {cell_bits} bits do not tile {n} bits"
    );
    if n <= 24 {
        exhaustive(m, cell_bits)
    } else {
        bounded(m, cell_bits)
    }
}

/// B_d by trying every nonzero input.
fn exhaustive(m: &BitMatrix, cell_bits: usize) -> u32 {
    let n = m.size();
    let weight = |x: u64| cell_weight(x, n, cell_bits);
    (1..1u64 << n)
        .map(|x| weight(x) + weight(m.apply(x)))
        .min()
        .unwrap_or(0)
}

/// B_d by the inputs and outputs of weight at most ⌊(c+1)/2⌋.
fn bounded(m: &BitMatrix, cell_bits: usize) -> u32 {
    let n = m.size();
    let weight = |x: u64| cell_weight(x, n, cell_bits);
    let inverse = m
        .inverse()
        .expect("the bounded enumeration needs an invertible matrix");
    let cells = n / cell_bits;
    let t = cells.div_ceil(2); // ⌊(c + 1)/2⌋
    let values = ((1u64 << cell_bits) - 1) as f64;
    let count: f64 = (1..=t)
        .map(|k| binomial(cells, k) as f64 * values.powi(k as i32))
        .sum();
    assert!(
        count <= 4.3e9,
        "about {count:.1e} vectors to enumerate: too many"
    );
    let mut best = u32::MAX;
    for_each_of_weight_at_most(cells, cell_bits, t, &mut |x| {
        best = best
            .min(weight(x) + weight(m.apply(x)))
            .min(weight(x) + weight(inverse.apply(x)));
    });
    best
}

/// The linear branch number of `m`: the differential branch number of Mᵀ.
///
/// # Panics
///
/// As [`differential_branch_number`].
pub fn linear_branch_number(m: &BitMatrix, cell_bits: usize) -> u32 {
    differential_branch_number(&m.transpose(), cell_bits)
}

fn binomial(n: usize, k: usize) -> u64 {
    (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i + 1) as u64)
}

/// Calls `f` on every vector of `cells` cells of `w` bits with between 1
/// and `t` nonzero cells.
fn for_each_of_weight_at_most(cells: usize, w: usize, t: usize, f: &mut dyn FnMut(u64)) {
    // Depth-first over the cells in order: each cell is either left zero or
    // given each nonzero value, while fewer than t cells are set.
    fn walk(cell: usize, cells: usize, w: usize, left: usize, x: u64, f: &mut dyn FnMut(u64)) {
        if cell == cells {
            if x != 0 {
                f(x);
            }
            return;
        }
        walk(cell + 1, cells, w, left, x, f);
        if left > 0 {
            for v in 1..1u64 << w {
                walk(cell + 1, cells, w, left - 1, x | (v << (cell * w)), f);
            }
        }
    }
    walk(0, cells, w, t, 0, f);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aether::analysis::aes_mix_columns as mix_columns;

    /// Midori's circ(0,1,1,1) over 4 cells.
    fn midori() -> BitMatrix {
        BitMatrix::from_rows(&[0b1110, 0b1101, 0b1011, 0b0111])
    }

    #[test]
    fn aes_mixcolumns_is_mds() {
        let m = mix_columns();
        assert_eq!(differential_branch_number(&m, 8), 5);
        assert_eq!(linear_branch_number(&m, 8), 5);
    }

    #[test]
    fn midori_matrix_has_branch_number_4_on_bits_and_on_nibbles() {
        let b = midori();
        assert_eq!(differential_branch_number(&b, 1), 4);
        // B ⊗ I_4 on nibbles, by exhausting all 2^16 nibble vectors: the
        // claim of the module documentation.
        assert_eq!(differential_branch_number(&b.on_cells(4), 4), 4);
        assert_eq!(linear_branch_number(&b.on_cells(4), 4), 4);
    }

    #[test]
    fn identity_has_branch_number_2() {
        let id = BitMatrix::from_linear_map(16, |x| x);
        assert_eq!(differential_branch_number(&id, 4), 2);
        assert_eq!(differential_branch_number(&id, 1), 2);
    }

    #[test]
    fn transpose_and_inverse() {
        let m = mix_columns();
        let inv = m.inverse().expect("MixColumns is invertible");
        for x in [1u64, 0xdeadbeef, 0x0102_0304, 0xffff_ffff] {
            assert_eq!(inv.apply(m.apply(x)), x);
            assert_eq!(m.apply(inv.apply(x)), x);
        }
        assert_eq!(m.transpose().transpose(), m);
        // InvMixColumns is circ(14, 11, 13, 9): check one column of it.
        assert_eq!(inv.apply(1), 14 | 9 << 8 | 13 << 16 | 11 << 24);
        // A singular matrix has none.
        assert!(BitMatrix::from_rows(&[0b11, 0b11]).inverse().is_none());
        // <Mx, y> = <x, Mᵀy>.
        let t = m.transpose();
        for (x, y) in [(0x1234_5678u64, 0x9abc_def0u64), (0xffff, 0xff00_ff00)] {
            let lhs = (m.apply(x) & y).count_ones() & 1;
            let rhs = (x & t.apply(y)).count_ones() & 1;
            assert_eq!(lhs, rhs);
        }
    }

    #[test]
    fn bounded_enumeration_agrees_with_exhaustion() {
        // Random invertible maps small enough to exhaust, over bits, pairs
        // and nibbles: the two methods must give the same number.
        let mut rng = crate::aether::analysis::SplitMix(5);
        let mut checked = 0;
        while checked < 24 {
            let n = [8usize, 12, 16][checked % 3];
            let rows: Vec<u64> = (0..n).map(|_| rng.next() & ((1 << n) - 1)).collect();
            let m = BitMatrix::from_rows(&rows);
            if m.inverse().is_none() {
                continue;
            }
            for w in [1, 2, 4] {
                assert_eq!(
                    exhaustive(&m, w),
                    bounded(&m, w),
                    "{rows:x?} on {w}-bit cells"
                );
            }
            checked += 1;
        }
    }

    #[test]
    fn cell_weight_counts_nonzero_cells() {
        assert_eq!(cell_weight(0x0f0f, 16, 4), 2);
        assert_eq!(cell_weight(0x0f0f, 16, 8), 2);
        assert_eq!(cell_weight(0x0f0f, 16, 1), 8);
        assert_eq!(cell_weight(0, 16, 4), 0);
    }
}
