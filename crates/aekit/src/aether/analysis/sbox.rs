//! The cryptographic properties of an n-bit S-box that AETHER's paper
//! lists in its Table 3: differential probability (from the difference
//! distribution table), squared linear correlation (from the linear
//! approximation table), algebraic degree, and full diffusion.
//!
//! Definitions (S: {0,1}^n → {0,1}^n, a table of 2^n entries):
//!
//! - DDT\[a\]\[b\] = #{x : S(x) ⊕ S(x ⊕ a) = b}. The differential uniformity
//!   δ is the largest entry with a ≠ 0; the paper's DP is δ / 2^n.
//! - LAT\[a\]\[b\] = #{x : a·x = b·S(x)} − 2^(n−1) (a·x the parity of a ∧ x).
//!   The correlation of (a, b) is 2·LAT\[a\]\[b\] / 2^n; the paper's C² is the
//!   largest squared correlation with b ≠ 0.
//! - Degree: the largest algebraic degree of an output bit, read from its
//!   algebraic normal form (the binary Möbius transform of its truth table).
//! - Full diffusion: every output bit depends on every input bit — for all
//!   i, j there is an x with bit j of S(x) ⊕ S(x ⊕ e_i) set. This reading
//!   reproduces the paper's column for the S-boxes it lists that are checked
//!   here (Orthros, PRINCE and Midori's Sb1 have it, Midori's Sb0 does not).
//!
//! Everything is computed by exhaustion: 2^(2n) steps for the tables, so an
//! 8-bit S-box (AES) takes about 65 000 pair evaluations per table.

/// Panics unless `sbox` is a table of 2^n entries (1 ≤ n ≤ 8) below 2^n.
fn bits(sbox: &[u8]) -> u32 {
    let len = sbox.len();
    assert!(
        len.is_power_of_two() && (2..=256).contains(&len),
        "an S-box has 2^n entries, 1 ≤ n ≤ 8 (got {len})"
    );
    assert!(
        sbox.iter().all(|&y| (y as usize) < len),
        "an S-box entry is out of range"
    );
    len.trailing_zeros()
}

/// The difference distribution table: `ddt[a][b]` = #{x : S(x) ⊕ S(x ⊕ a) = b}.
///
/// # Panics
///
/// If `sbox` is not a table of 2^n entries below 2^n, 1 ≤ n ≤ 8.
pub fn ddt(sbox: &[u8]) -> Vec<Vec<u32>> {
    let size = 1usize << bits(sbox);
    let mut table = vec![vec![0u32; size]; size];
    for (a, row) in table.iter_mut().enumerate() {
        for x in 0..size {
            row[(sbox[x] ^ sbox[x ^ a]) as usize] += 1;
        }
    }
    table
}

/// The linear approximation table: `lat[a][b]` = #{x : a·x = b·S(x)} − 2^(n−1).
///
/// # Panics
///
/// If `sbox` is not a table of 2^n entries below 2^n, 1 ≤ n ≤ 8.
pub fn lat(sbox: &[u8]) -> Vec<Vec<i32>> {
    let size = 1usize << bits(sbox);
    let parity = |v: usize| v.count_ones() & 1;
    (0..size)
        .map(|a| {
            (0..size)
                .map(|b| {
                    let agree = (0..size)
                        .filter(|&x| parity(a & x) == parity(b & sbox[x] as usize))
                        .count();
                    agree as i32 - (size / 2) as i32
                })
                .collect()
        })
        .collect()
}

/// The largest algebraic degree among the output bits.
///
/// # Panics
///
/// If `sbox` is not a table of 2^n entries below 2^n, 1 ≤ n ≤ 8.
pub fn algebraic_degree(sbox: &[u8]) -> u32 {
    let n = bits(sbox);
    let size = 1usize << n;
    (0..8)
        .map(|bit| {
            // The ANF coefficients of output bit `bit`: the Möbius transform
            // of its truth table, in place (a coefficient at monomial m
            // survives the XOR over all subsets of m).
            let mut anf: Vec<u8> = sbox.iter().map(|&y| (y >> bit) & 1).collect();
            for i in 0..n {
                for x in 0..size {
                    if x >> i & 1 == 1 {
                        anf[x] ^= anf[x ^ (1 << i)];
                    }
                }
            }
            (0..size)
                .filter(|&m| anf[m] == 1)
                .map(|m| m.count_ones())
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}

/// Whether every output bit depends on every input bit.
///
/// # Panics
///
/// If `sbox` is not a table of 2^n entries below 2^n, 1 ≤ n ≤ 8.
pub fn full_diffusion(sbox: &[u8]) -> bool {
    let size = 1usize << bits(sbox);
    let mut depends = vec![0u8; size]; // depends[e_i] = output bits that flip
    for i in (0..bits(sbox)).map(|i| 1usize << i) {
        for x in 0..size {
            depends[i] |= sbox[x] ^ sbox[x ^ i];
        }
    }
    let all = (size - 1) as u8;
    (0..bits(sbox)).all(|i| depends[1 << i] == all)
}

/// An S-box's properties as the paper's Table 3 lists them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Properties {
    /// n, the width in bits.
    pub bits: u32,
    /// Whether S is a permutation.
    pub bijective: bool,
    /// δ: the largest DDT entry with a nonzero input difference.
    pub differential_uniformity: u32,
    /// The largest |LAT\[a\]\[b\]| with b ≠ 0 (half the linearity).
    pub max_abs_lat: u32,
    /// The largest algebraic degree of an output bit.
    pub degree: u32,
    /// Every output bit depends on every input bit.
    pub full_diffusion: bool,
}

impl Properties {
    /// log2 of the maximal differential probability δ / 2^n (the paper's DP).
    pub fn log2_dp(&self) -> f64 {
        (self.differential_uniformity as f64).log2() - self.bits as f64
    }

    /// log2 of the maximal squared correlation (2·LAT / 2^n)² (the paper's C²).
    pub fn log2_c2(&self) -> f64 {
        2.0 * ((2 * self.max_abs_lat) as f64).log2() - 2.0 * self.bits as f64
    }
}

/// Computes [`Properties`] of `sbox`.
///
/// # Panics
///
/// If `sbox` is not a table of 2^n entries below 2^n, 1 ≤ n ≤ 8.
pub fn properties(sbox: &[u8]) -> Properties {
    let n = bits(sbox);
    let ddt = ddt(sbox);
    let lat = lat(sbox);
    let mut sorted = sbox.to_vec();
    sorted.sort_unstable();
    Properties {
        bits: n,
        bijective: sorted.iter().enumerate().all(|(i, &y)| i == y as usize),
        differential_uniformity: ddt[1..]
            .iter()
            .flat_map(|row| row.iter())
            .copied()
            .max()
            .unwrap_or(0),
        max_abs_lat: lat
            .iter()
            .flat_map(|row| row[1..].iter())
            .map(|v| v.unsigned_abs())
            .max()
            .unwrap_or(0),
        degree: algebraic_degree(sbox),
        full_diffusion: full_diffusion(sbox),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes_sbox_has_uniformity_4_and_lat_16() {
        let p = properties(&crate::aes::SBOX);
        assert_eq!(p.bits, 8);
        assert!(p.bijective);
        assert_eq!(p.differential_uniformity, 4);
        assert_eq!(p.max_abs_lat, 16); // linearity 32, correlation 2^-3
        assert_eq!(p.log2_dp(), -6.0);
        assert_eq!(p.log2_c2(), -6.0);
        assert_eq!(p.degree, 7);
        assert!(p.full_diffusion);
    }

    #[test]
    fn ddt_rows_sum_to_2n_and_row_zero_is_trivial() {
        let t = ddt(&crate::aes::SBOX);
        assert_eq!(t[0][0], 256);
        assert!(t.iter().all(|row| row.iter().sum::<u32>() == 256));
        // A permutation's DDT columns sum to 2^n as well, and entries are even.
        assert!((0..256).all(|b| t.iter().map(|row| row[b]).sum::<u32>() == 256));
        assert!(t.iter().flatten().all(|v| v % 2 == 0));
    }

    #[test]
    fn lat_obeys_parseval() {
        // Σ_a LAT[a][b]² = 2^(2n−2) for every b ≠ 0 (Parseval's relation of
        // the Walsh spectrum of the component b·S).
        for sbox in [&crate::aes::SBOX[..], &crate::aether::reference::SBOX[..]] {
            let t = lat(sbox);
            let n = sbox.len().trailing_zeros();
            for b in 1..sbox.len() {
                let sum: i64 = t.iter().map(|row| (row[b] as i64).pow(2)).sum();
                assert_eq!(sum, 1 << (2 * n - 2), "column {b}");
            }
        }
    }

    #[test]
    fn identity_and_affine_maps_are_recognized() {
        let identity: Vec<u8> = (0..16).collect();
        let p = properties(&identity);
        assert_eq!((p.differential_uniformity, p.max_abs_lat), (16, 8));
        assert_eq!(p.degree, 1);
        assert!(!p.full_diffusion); // output bit j depends on input bit j only
        // x ↦ x ⊕ 5 is affine: degree 1, every DDT row a single 16.
        let affine: Vec<u8> = (0..16).map(|x| x ^ 5).collect();
        assert_eq!(algebraic_degree(&affine), 1);
        assert!(ddt(&affine)[1..].iter().all(|row| row.contains(&16)));
    }

    #[test]
    fn degree_of_a_single_monomial() {
        // Output bit 0 = x0·x1·x2 (others 0): degree 3.
        let s: Vec<u8> = (0..16u8).map(|x| u8::from(x & 7 == 7)).collect();
        assert_eq!(algebraic_degree(&s), 3);
    }

    #[test]
    #[should_panic(expected = "2^n entries")]
    fn a_table_of_the_wrong_size_is_refused() {
        properties(&[0, 1, 2]);
    }
}
