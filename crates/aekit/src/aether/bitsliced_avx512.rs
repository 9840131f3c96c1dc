//! `bitsliced-avx512`: the bitsliced batch engine on AVX-512, 256 messages
//! per group on 256-bit registers or 512 on 512-bit ones.
//!
//! What: the same three operations as the generic engine (`bitsliced.rs`,
//! read its header for the layout: one message per bit lane, a word as 128
//! planes, plane `8k + t` bit `t` of byte `k`, nibble `i` in slot `i ⊕ 1`),
//! written for AVX-512's three-input logic instruction, `vpternlogq`,
//! which computes any Boolean function of three registers in one
//! instruction.
//!
//! - **S-box in 8 instructions** (the generic circuit takes 22 two-input
//!   operations): each output bit of Orthros' S-box is a function of four
//!   inputs, and an exhaustive search (every `vpternlogq` of three inputs
//!   `g`, then every function of two inputs and `g`) finds each as two
//!   `vpternlogq`:
//!   `y0 = T5e(x0, x3, T73(x0, x1, x2))`, `y1 = T85(x0, x3, T51(x0, x1, x2))`,
//!   `y2 = T54(x1, x3, T15(x0, x1, x2))`, `y3 = T9c(x2, x3, T27(x0, x1, x3))`
//!   (`Tii(a, b, c)`: bit `4a + 2b + c` of `ii`). The same search finds no
//!   circuit of two shared inner gates, so 8 it is.
//! - **MatrixMul in 32 instructions per half and bit**: the column sums
//!   `T_k` and block sums `J_c` are four-input XORs (a three-input XOR and
//!   one more), and each output `T_k ⊕ J_{3−r} ⊕ u_{3−r,k}` one three-input
//!   XOR (the generic form: 56 XORs).
//! - **F in two passes, the state in place**: the first S-box on all 32
//!   nibbles goes to a scratch array (so F has read all of its input
//!   before it writes), then per half the sums are made from it and each
//!   output nibble is made, put through the second S-box, XORed with what
//!   R adds, and written to its permuted slot. R writes each new word over
//!   the word its F read (new `S_i` over old `S_{i−1}`, in an order that
//!   reads every added word before it is overwritten; `Lanes` keeps the
//!   rotation), so the state is 9 words, not 18: 72 KiB for 512 lanes,
//!   which the core's L2 serves (a second state's copy would double the
//!   traffic of every round).
//! - **Transposes in two passes**: Hacker's Delight's six rounds of block
//!   swaps (two `vpternlogq`, two shifts and a XOR each) commute, so three
//!   run on eight rows in registers, then the other three: two passes
//!   over memory for a 64×64 transpose instead of a load and a store per
//!   round.
//! - **Gather and scatter with vectors**: a lane's 48-byte block is one
//!   masked load (or store), and eight lanes' blocks become the rows of six
//!   transposes with an 8×8 transpose of 64-bit elements (24 shuffles).
//!
//! Cost per F: 64 × 8 (S-boxes) + 2 × 4 × 32 (MatrixMul) + 128 (the XOR R
//! adds) = 896 logic instructions for 256 or 512 messages, which bound it
//! on cores that issue two 512-bit logic instructions a cycle. Per 48-byte
//! block: twelve F and six transposes each way, the transposes about as
//! much as the rounds.
//!
//! Two widths: 512-bit registers carry twice the messages per instruction,
//! and on cores that run them on two ports (Intel's AVX-512 cores issue
//! 256-bit logic on three) they are worth it when a group fills 512 lanes.
//! Every plane array is on a cache-line boundary (`Aligned`): planes 16
//! bytes off the line split every 512-bit access in two.
//!
//! CPU features: AVX-512F and AVX-512VL (`vpternlogq` on 256-bit
//! registers), checked at run time; the [`Avx512`] token exists only where
//! they were detected.
//!
//! Constant-time: yes. Logic instructions, shifts and shuffles by
//! constants, loads and stores at addresses fixed by the (public) lengths;
//! no branch or memory index depends on the key, the nonces or the data.

#[cfg(target_arch = "x86_64")]
use super::BLOCK_LEN;
use super::bitsliced::{Lanes, Planes, Rows, Slicer};

/// Proof that this CPU runs AVX-512F and AVX-512VL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512 {
    _detected: (),
}

impl Avx512 {
    /// The token, if this CPU has AVX-512F and AVX-512VL.
    pub(crate) fn detect() -> Option<Avx512> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            return Some(Avx512 { _detected: () });
        }
        None
    }
}

/// Each width's registers and the few instructions the engine uses, under
/// the names the engine's body (the `engine!` macro) calls.
#[cfg(target_arch = "x86_64")]
mod w256 {
    use core::arch::x86_64::*;

    pub(super) type V = __m256i;
    pub(super) const N: usize = 4;

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn load(l: &[u64; N]) -> V {
        // SAFETY: `l` is 32 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(l.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn store(l: &mut [u64; N], v: V) {
        // SAFETY: `l` is 32 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), v) }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn tern<const IMM: i32>(a: V, b: V, c: V) -> V {
        _mm256_ternarylogic_epi64::<IMM>(a, b, c)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn xor(a: V, b: V) -> V {
        _mm256_xor_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn srl<const J: u32>(a: V) -> V {
        // A count in a register: `_mm256_srli_epi64` takes an `i32` constant,
        // the 512-bit form a `u32`; the compiler folds it into the immediate.
        _mm256_srl_epi64(a, _mm_cvtsi32_si128(J as i32))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn sll<const J: u32>(a: V) -> V {
        _mm256_sll_epi64(a, _mm_cvtsi32_si128(J as i32))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn splat(x: u64) -> V {
        _mm256_set1_epi64x(x as i64)
    }

    /// The low `N` lanes of a 512-bit register.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn narrow(v: __m512i) -> V {
        _mm512_castsi512_si256(v)
    }

    /// `v` in the low lanes of a 512-bit register, zeros above.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn widen(v: V) -> __m512i {
        _mm512_zextsi256_si512(v)
    }
}

#[cfg(target_arch = "x86_64")]
mod w512 {
    use core::arch::x86_64::*;

    pub(super) type V = __m512i;
    pub(super) const N: usize = 8;

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn load(l: &[u64; N]) -> V {
        // SAFETY: `l` is 64 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm512_loadu_si512(l.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn store(l: &mut [u64; N], v: V) {
        // SAFETY: `l` is 64 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm512_storeu_si512(l.as_mut_ptr().cast(), v) }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn tern<const IMM: i32>(a: V, b: V, c: V) -> V {
        _mm512_ternarylogic_epi64::<IMM>(a, b, c)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn xor(a: V, b: V) -> V {
        _mm512_xor_si512(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn srl<const J: u32>(a: V) -> V {
        _mm512_srli_epi64::<J>(a)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn sll<const J: u32>(a: V) -> V {
        _mm512_slli_epi64::<J>(a)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn splat(x: u64) -> V {
        _mm512_set1_epi64(x as i64)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn narrow(v: __m512i) -> V {
        v
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn widen(v: V) -> __m512i {
        v
    }
}

/// The engine, written once and instantiated per width (`w256`, `w512`).
#[cfg(target_arch = "x86_64")]
macro_rules! engine {
    ($name:ident, $w:ident) => {
        mod $name {
            use core::arch::x86_64::*;

            use zeroize::Zeroize;

            use super::super::BLOCK_LEN;
            use super::super::bitsliced::{ADD, FROM, Lanes, PERM_SLOT, Planes, Rows, each_half};
            use super::transpose_qwords;
            use super::$w::{N, V, load, narrow, sll, splat, srl, store, tern, widen, xor};

            /// `a ⊕ b ⊕ c`.
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl")]
            fn xor3(a: V, b: V, c: V) -> V {
                tern::<0x96>(a, b, c)
            }

            /// Orthros' S-box on one nibble of every message, `x[0]` the
            /// least significant bit (the circuits: module header).
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl")]
            fn sbox(x: [V; 4]) -> [V; 4] {
                let [x0, x1, x2, x3] = x;
                [
                    tern::<0x5e>(x0, x3, tern::<0x73>(x0, x1, x2)),
                    tern::<0x85>(x0, x3, tern::<0x51>(x0, x1, x2)),
                    tern::<0x54>(x1, x3, tern::<0x15>(x0, x1, x2)),
                    tern::<0x9c>(x2, x3, tern::<0x27>(x0, x1, x3)),
                ]
            }

            /// F's first S-box on every nibble of `a ⊕ b` (`b` read only if
            /// `PAIR`) into `u`, slot by slot: all of the input is read
            /// before [`f_rest`] writes, so F can write over its input.
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl")]
            fn f_sbox<const PAIR: bool>(a: &Planes<N>, b: &Planes<N>, u: &mut [[V; 4]; 32]) {
                for (s, nibble) in u.iter_mut().enumerate() {
                    for j in 0..4 {
                        let p = 4 * s + j;
                        nibble[j] = if PAIR {
                            xor(load(&a[p]), load(&b[p]))
                        } else {
                            load(&a[p])
                        };
                    }
                    *nibble = sbox(*nibble);
                }
            }

            /// The rest of F after [`f_sbox`], then R's XOR:
            /// `out = Permutation(S(MatrixMul(u))) ⊕ add`, with `ADD2` also
            /// `⊕ add2`. The Permutation is where each nibble is written.
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl")]
            fn f_rest<const ADD2: bool>(
                u: &[[V; 4]; 32],
                add: &Planes<N>,
                add2: &Planes<N>,
                out: &mut Planes<N>,
            ) {
                for h in 0..2 {
                    let u = &u[16 * h..16 * h + 16];
                    // MatrixMul: V_{r,k} = T_k ⊕ J_{3−r} ⊕ u_{3−r,k}, u_{c,k} = u[4c + k].
                    let mut t = [[splat(0); 4]; 4];
                    for k in 0..4 {
                        for j in 0..4 {
                            t[k][j] = xor(xor3(u[k][j], u[4 + k][j], u[8 + k][j]), u[12 + k][j]);
                        }
                    }
                    for r in 0..4 {
                        let c = 3 - r;
                        let mut jc = [splat(0); 4];
                        for j in 0..4 {
                            jc[j] = xor(
                                xor3(u[4 * c][j], u[4 * c + 1][j], u[4 * c + 2][j]),
                                u[4 * c + 3][j],
                            );
                        }
                        for k in 0..4 {
                            let mut v = [splat(0); 4];
                            for j in 0..4 {
                                v[j] = xor3(t[k][j], jc[j], u[4 * c + k][j]);
                            }
                            let y = sbox(v);
                            // `& 31`: in range, and the compiler sees it.
                            let slot = PERM_SLOT[(16 * h + 4 * r + k) & 31];
                            for j in 0..4 {
                                let q = 4 * slot + j;
                                let w = if ADD2 {
                                    xor3(y[j], load(&add[q]), load(&add2[q]))
                                } else {
                                    xor(y[j], load(&add[q]))
                                };
                                store(&mut out[q], w);
                            }
                        }
                    }
                }
            }

            /// Zeros over F's scratch (S-box outputs of the state), kept
            /// from being dropped as dead stores.
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl")]
            fn wipe(u: &mut [[V; 4]; 32]) {
                *u = [[splat(0); 4]; 32];
                core::hint::black_box(u);
            }

            /// The order R's words are made in place: new `S_i` goes over
            /// old `S_{i−1}`, so each old word that R adds (`S3` to `S1`,
            /// `S6` to `S2`, `S4` to `S4`, `S8` to `S6`, `S2` to `S7`, `S0`
            /// to `S8`) is read before the word made from it overwrites it.
            const ORDER: [usize; 9] = [8, 1, 4, 5, 6, 0, 2, 7, 3];

            /// R(S, X0, X1, X2) on every message, in place (see `Lanes`).
            #[target_feature(enable = "avx512f,avx512vl")]
            pub(super) fn round(st: &mut Lanes<N>, x: &[Planes<N>; 3]) {
                let mut u = [[splat(0); 4]; 32];
                for i in ORDER {
                    let from = st.slot(FROM[i]);
                    f_sbox::<false>(&st.s[from], &st.s[from], &mut u);
                    if ADD[i] < 9 {
                        let at = st.slot(ADD[i]);
                        let [add, out] =
                            st.s.get_disjoint_mut([at, from])
                                .expect("R never adds the word F reads");
                        f_rest::<false>(&u, add, add, out);
                    } else {
                        let add = &x[ADD[i] - 9];
                        f_rest::<false>(&u, add, add, &mut st.s[from]);
                    }
                }
                st.rot += 1;
                wipe(&mut u);
            }

            /// `y = x ⊕` the keystream `F(S0⊕S1)⊕S4 ‖ F(S2⊕S6)⊕S7 ‖ F(S3⊕S5)⊕S8`.
            #[target_feature(enable = "avx512f,avx512vl")]
            pub(super) fn keystream(st: &Lanes<N>, x: &[Planes<N>; 3], y: &mut [Planes<N>; 3]) {
                const IN: [(usize, usize, usize); 3] = [(0, 1, 4), (2, 6, 7), (3, 5, 8)];
                let mut u = [[splat(0); 4]; 32];
                for ((x, y), &(a, b, c)) in x.iter().zip(y.iter_mut()).zip(&IN) {
                    f_sbox::<true>(st.word(a), st.word(b), &mut u);
                    f_rest::<true>(&u, st.word(c), x, y);
                }
                wipe(&mut u);
            }

            /// One step of the 64×64 transpose on eight rows held in
            /// registers: rows `i` and `i + d` (for each `i` with bit `d`
            /// clear, `d` the distance `J` has in `r`) trade the bits
            /// under `mask`: `t = ((x >> J) ⊕ y) ∧ mask`, `x ⊕= t << J`,
            /// `y ⊕= t` (Hacker's Delight §7-3).
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl")]
            fn swap_step<const J: u32>(r: &mut [V; 8], d: usize, mask: u64) {
                let m = splat(mask);
                for i in 0..8 {
                    if i & d == 0 {
                        let (x, y) = (r[i], r[i + d]);
                        let t = tern::<0x28>(srl::<J>(x), y, m);
                        r[i] = xor(x, sll::<J>(t));
                        r[i + d] = xor(y, t);
                    }
                }
            }

            /// Transposes each 64×64 bit matrix of the rows in place (the
            /// generic engine's `transpose`: bit `c` of row `r` trades
            /// places with bit `r` of row `c`). Its six rounds commute
            /// (each swaps one bit of the row number with the same bit of
            /// the column number), so they run as two passes over the
            /// rows, three rounds each on eight rows in registers: rows
            /// `8b..8b + 8` (distances 1, 2, 4), then rows `b, b + 8, …,
            /// b + 56` (distances 8, 16, 32). Six loads and stores per row
            /// become two.
            #[target_feature(enable = "avx512f,avx512vl")]
            pub(super) fn transpose(a: &mut Rows<N>) {
                for b in 0..8 {
                    let mut r = [splat(0); 8];
                    for (i, r) in r.iter_mut().enumerate() {
                        *r = load(&a[8 * b + i]);
                    }
                    swap_step::<1>(&mut r, 1, 0x5555_5555_5555_5555);
                    swap_step::<2>(&mut r, 2, 0x3333_3333_3333_3333);
                    swap_step::<4>(&mut r, 4, 0x0f0f_0f0f_0f0f_0f0f);
                    for (i, r) in r.iter().enumerate() {
                        store(&mut a[8 * b + i], *r);
                    }
                }
                for b in 0..8 {
                    let mut r = [splat(0); 8];
                    for (i, r) in r.iter_mut().enumerate() {
                        *r = load(&a[b + 8 * i]);
                    }
                    swap_step::<8>(&mut r, 1, 0x00ff_00ff_00ff_00ff);
                    swap_step::<16>(&mut r, 2, 0x0000_ffff_0000_ffff);
                    swap_step::<32>(&mut r, 4, 0x0000_0000_ffff_ffff);
                    for (i, r) in r.iter().enumerate() {
                        store(&mut a[b + 8 * i], *r);
                    }
                }
            }

            /// `Slicer::gather`: per row `m`, the blocks of lanes
            /// `N·m..N·m + N` loaded whole (a masked load of the words
            /// wanted), their 64-bit pieces transposed so that register
            /// `q` holds piece `q` of each, and piece `2w + h` stored as
            /// row `m` of `x[w]`'s half `h`; then the bit transposes.
            #[target_feature(enable = "avx512f,avx512vl")]
            pub(super) fn gather<'b>(
                block: impl Fn(usize) -> &'b [u8; BLOCK_LEN],
                x: &mut [Planes<N>],
            ) {
                let words = x.len().min(3);
                let mask = (1u8 << (2 * words)) - 1;
                for m in 0..64 {
                    let mut r = [_mm512_setzero_si512(); 8];
                    for (g, r) in r.iter_mut().enumerate().take(N) {
                        let block = block(N * m + g);
                        // SAFETY: `block` is 48 readable bytes and the
                        // mask reads at most the first 48.
                        *r = unsafe { _mm512_maskz_loadu_epi64(mask, block.as_ptr().cast()) };
                    }
                    let q = transpose_qwords(r);
                    for (w, planes) in x.iter_mut().enumerate().take(3) {
                        for h in 0..2 {
                            store(&mut planes[64 * h + m], narrow(q[2 * w + h]));
                        }
                    }
                }
                each_half(x, |rows| transpose(rows));
            }

            /// `Slicer::scatter`: `gather` backwards, each lane's block
            /// stored in one piece and handed to `put`.
            #[target_feature(enable = "avx512f,avx512vl")]
            pub(super) fn scatter(
                x: &mut [Planes<N>],
                mut put: impl FnMut(usize, &[u8; BLOCK_LEN]),
            ) {
                each_half(x, |rows| transpose(rows));
                // Whole 64-byte stores, read back by `put`: a masked store
                // does not forward to the loads after it, which would wait
                // for the cache instead.
                let mut blocks = [[0u8; 64]; 8];
                for m in 0..64 {
                    let mut q = [_mm512_setzero_si512(); 8];
                    for (w, planes) in x.iter().enumerate().take(3) {
                        for h in 0..2 {
                            q[2 * w + h] = widen(load(&planes[64 * h + m]));
                        }
                    }
                    let r = transpose_qwords(q);
                    for (r, b) in r.iter().zip(blocks.iter_mut()).take(N) {
                        // SAFETY: `b` is 64 writable bytes.
                        unsafe { _mm512_storeu_si512(b.as_mut_ptr().cast(), *r) };
                    }
                    for (g, b) in blocks.iter().enumerate().take(N) {
                        put(N * m + g, b[..BLOCK_LEN].try_into().expect("a block"));
                    }
                }
                blocks.zeroize();
            }
        }
    };
}

/// An 8×8 transpose of 64-bit elements: element `g` of output `q` is
/// element `q` of input `g` (unpack pairs, then 2×2 and 4×4 blocks with
/// two-source permutes: 24 shuffles).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn transpose_qwords(r: [core::arch::x86_64::__m512i; 8]) -> [core::arch::x86_64::__m512i; 8] {
    use core::arch::x86_64::*;
    let mut t = [_mm512_setzero_si512(); 8];
    for k in 0..4 {
        t[2 * k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);
    }
    let (lo2, hi2) = (
        _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13),
        _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15),
    );
    let mut u = [_mm512_setzero_si512(); 8];
    for k in [0, 4] {
        u[k] = _mm512_permutex2var_epi64(t[k], lo2, t[k + 2]);
        u[k + 2] = _mm512_permutex2var_epi64(t[k], hi2, t[k + 2]);
        u[k + 1] = _mm512_permutex2var_epi64(t[k + 1], lo2, t[k + 3]);
        u[k + 3] = _mm512_permutex2var_epi64(t[k + 1], hi2, t[k + 3]);
    }
    let (lo4, hi4) = (
        _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11),
        _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15),
    );
    let mut q = [_mm512_setzero_si512(); 8];
    for k in 0..4 {
        q[k] = _mm512_permutex2var_epi64(u[k], lo4, u[k + 4]);
        q[k + 4] = _mm512_permutex2var_epi64(u[k], hi4, u[k + 4]);
    }
    q
}

#[cfg(target_arch = "x86_64")]
engine!(e256, w256);
#[cfg(target_arch = "x86_64")]
engine!(e512, w512);

/// Implements the engine's trait for one width.
macro_rules! slicer {
    ($n:literal, $e:ident) => {
        #[cfg(target_arch = "x86_64")]
        impl Slicer<$n> for Avx512 {
            fn round(self, st: &mut Lanes<$n>, x: &[Planes<$n>; 3]) {
                // SAFETY: `self` exists only if `detect` found the features.
                unsafe { $e::round(st, x) }
            }
            fn keystream(self, st: &mut Lanes<$n>, x: &[Planes<$n>; 3], y: &mut [Planes<$n>; 3]) {
                // SAFETY: as above, the token proves the features.
                unsafe { $e::keystream(st, x, y) }
            }
            fn transpose(self, rows: &mut Rows<$n>) {
                // SAFETY: as above, the token proves the features.
                unsafe { $e::transpose(rows) }
            }
            fn gather<'b>(self, block: impl Fn(usize) -> &'b [u8; BLOCK_LEN], x: &mut [Planes<$n>]) {
                // SAFETY: as above, the token proves the features.
                unsafe { $e::gather(block, x) }
            }
            fn scatter(self, x: &mut [Planes<$n>], put: impl FnMut(usize, &[u8; BLOCK_LEN])) {
                // SAFETY: as above, the token proves the features.
                unsafe { $e::scatter(x, put) }
            }
        }

        /// Without x86-64 the token is never built; the generic code keeps
        /// the trait's contract.
        #[cfg(not(target_arch = "x86_64"))]
        impl Slicer<$n> for Avx512 {
            fn round(self, st: &mut Lanes<$n>, x: &[Planes<$n>; 3]) {
                super::bitsliced::round(st, x);
            }
            fn keystream(self, st: &mut Lanes<$n>, x: &[Planes<$n>; 3], y: &mut [Planes<$n>; 3]) {
                *y = *x;
                super::bitsliced::keystream_xor(st, y);
            }
            fn transpose(self, rows: &mut Rows<$n>) {
                super::bitsliced::transpose(rows);
            }
        }
    };
}
slicer!(4, e256);
slicer!(8, e512);

#[cfg(test)]
mod tests {
    use super::super::BLOCK_LEN;
    use super::super::bitsliced::{self, Lanes, Planes, Slicer};
    use super::Avx512;

    /// Random lane values from a simple generator.
    fn planes<const N: usize>(seed: &mut u64) -> Planes<N> {
        core::array::from_fn(|_| {
            core::array::from_fn(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *seed ^ (*seed >> 29)
            })
        })
    }

    /// The engine's round, keystream, gather and scatter against the
    /// generic engine's, at width `N`, on random states and blocks.
    fn matches_generic<const N: usize>(t: Avx512)
    where
        Avx512: Slicer<N>,
    {
        let mut seed = 0x5eed_0000 + N as u64;
        let words: [Planes<N>; 9] = core::array::from_fn(|_| planes(&mut seed));
        let x: [Planes<N>; 3] = core::array::from_fn(|_| planes(&mut seed));
        let (mut fast, mut slow) = (Lanes::<N>::new(), Lanes::<N>::new());
        fast.set(words.each_ref());
        slow.set(words.each_ref());
        // Three rounds: the in-place engine's word order turns each time.
        for r in 0..3 {
            t.round(&mut fast, &x);
            bitsliced::round(&mut slow, &x);
            for i in 0..9 {
                assert!(fast.word(i) == slow.word(i), "N={N} round {r} word {i}");
            }
        }
        let mut y_fast = [[[0; N]; 128]; 3];
        t.keystream(&mut fast, &x, &mut y_fast);
        let mut y_slow = x;
        bitsliced::keystream_xor(&mut slow, &mut y_slow);
        assert!(y_fast == y_slow, "N={N} keystream");

        // Gather and scatter, each lane its own block, against the
        // default (scalar) forms; then scatter undoes gather.
        let blocks: Vec<[u8; BLOCK_LEN]> = (0..64 * N)
            .map(|l| core::array::from_fn(|i| (l * 131 + i * 7 + (l >> 3)) as u8))
            .collect();
        let mut p_fast = [[[0; N]; 128]; 3];
        t.gather(|l| &blocks[l], &mut p_fast);
        let mut lane = [0u64; N];
        for l in 0..64 * N {
            bitsliced::lane_bit(&mut lane, l);
        }
        assert!(
            lane.iter().all(|&v| v == u64::MAX),
            "N={N} lane_bit covers every lane"
        );
        // The generic `gather` is the trait's default form; its lane order
        // is the contract, so both must agree plane by plane.
        let generic = generic_gather::<N>(&blocks);
        assert!(p_fast == generic, "N={N} gather");
        let mut back = vec![[0u8; BLOCK_LEN]; 64 * N];
        t.scatter(&mut p_fast, |l, b| back[l] = *b);
        assert!(back == blocks, "N={N} scatter undoes gather");
    }

    /// The trait's default `gather` at width `N` (through a type that does
    /// not override it).
    fn generic_gather<const N: usize>(blocks: &[[u8; BLOCK_LEN]]) -> [Planes<N>; 3] {
        #[derive(Clone, Copy)]
        struct Plain;
        impl<const N: usize> Slicer<N> for Plain {
            fn round(self, st: &mut Lanes<N>, x: &[Planes<N>; 3]) {
                bitsliced::round(st, x);
            }
            fn keystream(self, st: &mut Lanes<N>, x: &[Planes<N>; 3], y: &mut [Planes<N>; 3]) {
                *y = *x;
                bitsliced::keystream_xor(st, y);
            }
            fn transpose(self, rows: &mut bitsliced::Rows<N>) {
                bitsliced::transpose(rows);
            }
        }
        let mut p = [[[0; N]; 128]; 3];
        Plain.gather(|l| &blocks[l], &mut p);
        p
    }

    #[test]
    fn avx512_engine_matches_the_generic_engine() {
        let Some(t) = Avx512::detect() else {
            crate::skip(format_args!(
                "bitsliced-avx512: this CPU has no AVX-512F/VL"
            ));
            return;
        };
        matches_generic::<4>(t);
        matches_generic::<8>(t);
    }
}
