//! GF(2^128) as GCM defines it: the one place that states the bit order,
//! aekit's too (aekit's `ghash::field` re-exports these items).
//!
//! GCM spec §2.3: an element is a 128-bit string X_0 X_1 … X_127, X_0 is
//! the leftmost bit (the most significant bit of byte 0), and X_i is the
//! coefficient of α^i; f = 1 + α + α^2 + α^7 + α^128. An element is a
//! `u128` read big-endian from its 16 bytes, so X_0 is the integer's most
//! significant bit. Multiplying by P (= α) is a right shift by one, with
//! R = 11100001 ‖ 0^120 XORed in when the bit shifted out was set.

/// R = 11100001 ‖ 0^120, the reduction constant of Algorithm 1.
pub const R: u128 = 0xE1 << 120;

/// Reads a 16-byte block as a field element.
#[inline(always)]
pub fn from_block(block: &[u8; 16]) -> u128 {
    u128::from_be_bytes(*block)
}

/// Writes a field element as a 16-byte block.
#[inline(always)]
pub fn to_block(x: u128) -> [u8; 16] {
    x.to_be_bytes()
}

/// X · P, branch-free.
#[inline(always)]
pub const fn mul_p(v: u128) -> u128 {
    let carry = (v & 1).wrapping_neg();
    (v >> 1) ^ (R & carry)
}

/// Shoup's key-independent reduction table for a shift by w bits, N = 2^w
/// entries (spec §4.1, the table R of Algorithm 2).
///
/// In this order Z · P^w = (Z >> w) ⊕ (Z mod 2^w) · P^w: the high bits
/// just move right, and the w bits shifted out (coefficients of
/// α^(128−w)..α^127) come back as R\[Z mod 2^w\] = (Z mod 2^w) · P^w. That
/// product has its low 112 bits zero (α^128 = R reaches bit 120, and at most
/// 7 further shifts take it down to bit 113), so an entry is kept as its top
/// 16 bits: use it as `(R[a] as u128) << 112`. Meant for compile time
/// (a `const`): w multiply-by-P per entry.
pub const fn reduction_table<const N: usize>() -> [u16; N] {
    assert!(N.is_power_of_two() && N >= 2 && N <= 256);
    let w = N.trailing_zeros();
    let mut table = [0u16; N];
    let mut a = 0;
    while a < N {
        let mut v = a as u128;
        let mut s = 0;
        while s < w {
            v = mul_p(v);
            s += 1;
        }
        assert!(v & ((1 << 112) - 1) == 0, "reduction reaches below bit 112");
        table[a] = (v >> 112) as u16;
        a += 1;
    }
    table
}

/// Fills a table of `t.len()` = 2^w entries with t\[v\] = (v as the w-bit
/// group that starts at bit X_0) · `top`, for the table methods of spec
/// §4.1, and returns `top` · P^w: the top entry of the next table in a chain
/// M_0, M_1, … (M_{j+1}\[2^(w-1)\] = M_j\[1\] · P).
///
/// Spec Algorithm 3, for any w: the single-bit entries (index a power of two)
/// by successive multiply-by-P, t\[2^(w-1)\] = `top`, t\[2^(w-2)\] = `top`·P, …;
/// then every other entry t\[i + j\] = t\[i\] ⊕ t\[j\] (i a power of two,
/// 0 < j < i) from entries already computed; t\[0\] = 0. Cost: w `mul_p`
/// and 2^w − w − 1 XORs (11 for w = 4, 247 for w = 8), no full multiply.
pub fn fill_table(t: &mut [u128], top: u128) -> u128 {
    let n = t.len();
    debug_assert!(n.is_power_of_two() && n >= 2);
    let mut v = top;
    let mut i = n / 2;
    while i > 0 {
        t[i] = v; // (the bit at index i) · top = top · P^(w-1-log2 i)
        v = mul_p(v);
        i /= 2;
    }
    t[0] = 0;
    let mut i = 2;
    while i < n {
        for j in 1..i {
            t[i + j] = t[i] ^ t[j];
        }
        i *= 2;
    }
    v
}

/// X · Y from the integer carry-less product of X and Y as read here,
/// `hi`·t^128 ⊕ `lo` (255 bits): the product of the reflected polynomials,
/// x^k at bit 254 − k. One left shift of the 256 bits puts x^0..x^127 in
/// `hi` in this order and x^(128+j) at bit 127 − j of `lo`; then
/// x^128 ≡ 1 + x + x^2 + x^7 (a right shift by s multiplies by x^s here)
/// folds `lo` in, the bits the fold pushes out of the bottom included:
///
/// ```text
/// T = lo ⊕ lo≪127 ⊕ lo≪126 ⊕ lo≪121,    X·Y = hi ⊕ T ⊕ T≫1 ⊕ T≫2 ⊕ T≫7
/// ```
///
/// (Gueron & Kounavis' shift reduction, on one `u128`). Constant-time:
/// shifts and XORs.
#[inline(always)]
pub const fn reduce_reflected(hi: u128, lo: u128) -> u128 {
    let hi = (hi << 1) | (lo >> 127);
    let lo = lo << 1;
    let t = lo ^ (lo << 127) ^ (lo << 126) ^ (lo << 121);
    hi ^ t ^ (t >> 1) ^ (t >> 2) ^ (t >> 7)
}

/// X · Y by Algorithm 1, the oracle the strategies are tested against
/// (aekit's as well as the core's).
/// Constant-time: every bit of X selects through a mask.
pub fn mul(x: u128, y: u128) -> u128 {
    let mut z = 0u128;
    let mut v = y;
    for i in 0..128 {
        let bit = (x >> (127 - i)) & 1;
        z ^= v & bit.wrapping_neg();
        v = mul_p(v);
    }
    z
}
