//! What the vector engines (`avx2.rs`, `avx512.rs` on x86-64, `neon.rs`
//! on AArch64) share: the wiring of a round, written once over any
//! register type, and, on x86-64, `opaque`.
//!
//! The wiring is the part of the spec's round update R and keystream (see
//! `docs/AETHER.md`) that does not depend on how a word is laid out in a
//! register: which state words F is applied to, paired how, and where each
//! result goes. An engine supplies its F on two words at once (`f2`), on
//! one word (`f1`), and XOR, as closures made inside its own
//! `#[target_feature]` functions; closures take the target features of the
//! function they are written in, and these functions are
//! `#[inline(always)]`, so the whole round compiles into that function
//! with the engine's instructions, as if written there.
//!
//! Rejected: a trait for the engine's operations (a safe trait method
//! cannot carry `#[target_feature]`, so every call would need `unsafe`),
//! and a macro that writes the functions into each engine (invisible to
//! readers and to go-to-definition).

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::__m256i;

/// The state after a round, from the nine F values of the state before it
/// (`f[i] = F(S_i)`) and the three message words `x`:
/// `S'_0 = F(S_8) ⊕ X_0`, `S'_1 = F(S_0) ⊕ S_3`, `S'_2 = F(S_1) ⊕ S_6`,
/// `S'_3 = F(S_2) ⊕ X_1`, `S'_4 = F(S_3) ⊕ S_4`, `S'_5 = F(S_4) ⊕ X_2`,
/// `S'_6 = F(S_5) ⊕ S_8`, `S'_7 = F(S_6) ⊕ S_2`, `S'_8 = F(S_7) ⊕ S_0`.
#[inline(always)]
pub(super) fn update<V: Copy>(xor: impl Fn(V, V) -> V, s: &mut [V; 9], f: [V; 9], x: [V; 3]) {
    *s = [
        xor(f[8], x[0]),
        xor(f[0], s[3]),
        xor(f[1], s[6]),
        xor(f[2], x[1]),
        xor(f[3], s[4]),
        xor(f[4], x[2]),
        xor(f[5], s[8]),
        xor(f[6], s[2]),
        xor(f[7], s[0]),
    ];
}

/// F of the nine state words: four pairs and one alone.
#[inline(always)]
pub(super) fn f9<V: Copy>(f2: impl Fn(V, V) -> (V, V), f1: impl Fn(V) -> V, s: &[V; 9]) -> [V; 9] {
    let (f0, f1_) = f2(s[0], s[1]);
    let (f2_, f3) = f2(s[2], s[3]);
    let (f4, f5) = f2(s[4], s[5]);
    let (f6, f7) = f2(s[6], s[7]);
    [f0, f1_, f2_, f3, f4, f5, f6, f7, f1(s[8])]
}

/// F of the nine state words and the keystream words
/// `F(S_0 ⊕ S_1) ⊕ S_4`, `F(S_2 ⊕ S_6) ⊕ S_7`, `F(S_3 ⊕ S_5) ⊕ S_8`: twelve F
/// as six independent pairs, which the core overlaps.
#[inline(always)]
pub(super) fn f12<V: Copy>(
    f2: impl Fn(V, V) -> (V, V),
    xor: impl Fn(V, V) -> V,
    s: &[V; 9],
) -> ([V; 9], [V; 3]) {
    let (f0, f1) = f2(s[0], s[1]);
    let (f2_, f3) = f2(s[2], s[3]);
    let (f4, f5) = f2(s[4], s[5]);
    let (f6, f7) = f2(s[6], s[7]);
    let (f8, g0) = f2(s[8], xor(s[0], s[1]));
    let (g1, g2) = f2(xor(s[2], s[6]), xor(s[3], s[5]));
    let ks = [xor(g0, s[4]), xor(g1, s[7]), xor(g2, s[8])];
    ([f0, f1, f2_, f3, f4, f5, f6, f7, f8], ks)
}

/// The register's value, hidden from the compiler (no instruction is
/// emitted). An engine passes the tables it loads at the start of a call
/// through it when LLVM, knowing their values, would rewrite the shuffles
/// that use them into longer sequences (the engines' headers say where).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn opaque(mut v: __m256i) -> __m256i {
    // SAFETY: an empty template; the register is read and written as is.
    unsafe {
        core::arch::asm!("/* {0} */", inout(ymm_reg) v, options(pure, nomem, nostack, preserves_flags));
    }
    v
}
