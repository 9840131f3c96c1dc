//! `neon`: AETHER with NEON (Advanced SIMD) on 128-bit registers (AArch64).
//!
//! CPU features: NEON, checked at run time like the x86-64 engines' (every
//! AArch64 CPU that runs a general-purpose OS has it); the [`Neon`] token
//! exists only where it was detected, so safe code cannot reach these
//! instructions on a CPU without it. Off AArch64 the token is an empty enum.
//!
//! Representation: one nibble per byte, a word in two registers. The
//! nibble order is `portable.rs`'s storage order: the nibble the spec
//! numbers `i` has position `q = i ⊕ 4`, which turns F's
//! `Permutation ∘ Rev` into the plain Permutation (the derivation is in
//! `portable.rs`'s header), so that `F = Permutation ∘ S ∘ M' ∘ S` with
//! `M'(u)_{c,k} = T_k ⊕ J_c ⊕ u_{c,k}` (in each half: `T_k` the XOR of
//! column `k` over the four blocks, `J_c` the XOR of block `c`'s four
//! nibbles). Write `q = (q4 q3 q2 q1 q0)`: half `q4`, block `c = (q3 q2)`,
//! nibble `k = (q1 q0)` of the block. Position `q` lies in register `q3`,
//! byte `(q2 q1 q0 q4)` (the bits of the byte index, most significant
//! first). So register 0 holds blocks 0 and 1 of both halves and register
//! 1 blocks 2 and 3; in a register, the 64-bit halves are blocks `c` and
//! `c ⊕ 1`, the 32-bit elements in them nibbles `k < 2` and `k ≥ 2`, the
//! 16-bit elements one nibble `k`, its two bytes the two halves. The nine
//! state words live in 18 registers for a whole call and meet the spec's
//! bytes only at its edges.
//!
//! Math, per step:
//!
//! - S-box: `TBL` (`vqtbl1q_u8`) with the 16-byte table S: byte `i` of the
//!   result is `S[idx_i]`, and an index of 16 or more gives 0.
//! - M': every translation it needs is one instruction in this layout.
//!   `t1 = A ⊕ B` (block `c ⊕ 2` is the other register, so the column
//!   XOR over `c` and `c ⊕ 2` is one `EOR`, the same for both registers),
//!   `T = t1 ⊕ EXT(t1, t1, 8)` (`c ⊕ 1`); then for each register `X`,
//!   `r = REV64.4S(X)` (nibble `k ⊕ 2`) and
//!   `M'(X) = T ⊕ r ⊕ REV32.8H(X ⊕ r)` (`k ⊕ 1`, `k ⊕ 3`). 13 instructions
//!   a word.
//! - Permutation: it rotates `q` right by one bit. In the output, register
//!   `q'3 = q4` is the input's byte bit 0, and byte `(q'2 q'1 q'0 q'4)` is
//!   `(q3 q2 q1 q0)`: the input's register and its byte bits 3 to 1.
//!   That is `UZP1` (even bytes of the two registers, in order) and `UZP2`
//!   (odd bytes).
//!
//! Two words per pair of registers where it pays: M' and the Permutation
//! are linear over GF(2) and move whole bytes, so a byte's four spare bits
//! carry a second word. F is evaluated on pairs `(a, b)`: the first S-box
//! writes `S(a) | S(b) << 4` (`TBL` with S and with `S << 4`, an `ORR`), M'
//! and the Permutation run once for both words, and the second S-box looks
//! up the low nibble (after an `AND` with 15) and the high one (after a
//! `USHR` by 4). Per pair: 8 `TBL`, 13 for M', 2 `UZP`, 6 `ORR`/`AND`/`USHR`;
//! 29 instructions for two F, where one F alone takes 19.
//!
//! Bytes to nibbles (`spread`): one `TBL` with the word as the table and a
//! fixed index moves spec byte `n = (n3 n2 n1 n0)` to byte
//! `(n2, n1 ⊕ 1, n0, n3)`; `USHR` and `AND` split the nibbles; `ZIP1` and
//! `ZIP2` of 16-bit elements put each high nibble's 16-bit pair beside the
//! low one's, which is the layout above. Back (`join`): `UZP1`/`UZP2` of
//! 16-bit elements, `SLI`, and a `TBL` with the inverse index.
//!
//! Schedule: the nine F of a round update are independent, and so are the
//! three of the keystream: a message block is six F pairs with no
//! dependency between them (`vector.rs`'s wiring, shared with the x86-64
//! engines), which the out-of-order core overlaps; AArch64's 32 vector
//! registers hold the 18 of the state, the five tables and most of the
//! pairs in flight. Absorbing a block is four pairs and one F alone. The
//! output is made in nibbles (the input's XOR the keystream's) and
//! gathered once; decryption absorbs those nibbles, so the next block's F
//! waits on no trip to bytes and back.
//!
//! Cost per 48-byte block of encryption (counted from the code, and the
//! same in the disassembly of the loop): 6 pairs × 29, 18 `EOR` for the
//! round, 12 for the keystream's inputs and outputs, 6 to make the output,
//! 15 to spread the input and 12 to gather the output: 237 vector
//! instructions, 54 of them `TBL`; LLVM adds a few stack loads and stores
//! (the state, the tables and the pairs in flight want more than 32
//! registers). `crates/aekit-bench/mca/aether.sh` runs the compiled loop
//! through llvm-mca's models of AArch64 cores.
//!
//! Citation: the scheme as in `reference.rs` (Sakamoto, Banik, Caforio,
//! Ishikawa, Isobe, Rahman, *Design of an Ultra-High Throughput and
//! Low-Energy Authenticated Encryption Scheme*, pinned by
//! `docs/AETHER.md`); the nibble S-box by a byte shuffle as in Hamburg's
//! vector-permutation AES (CHES 2009).
//!
//! Constant-time: yes. `TBL` reads a register, never memory, so no
//! address depends on a secret, and its latency does not depend on the
//! index values (the vector-permutation AES of OpenSSL's and BoringSSL's
//! `vpaes-armv8` rests on the same); every other instruction is a fixed
//! permute, shift or logic operation; no branch depends on the key, nonce
//! or data.
//!
//! Rejected: a word as its two halves, one register each (each register
//! then needs its own `EXT` and `EOR` for the column XOR, where the
//! layout above shares them); two nibbles per byte, one word per register
//! (the S-box needs `AND`, `USHR`, two `TBL` and an `ORR` per word, M' a
//! nibble swap more, and the Permutation shifts and inserts: more
//! instructions per F than a pair); `EOR3` (SHA3) for M''s XORs (not on
//! Neoverse N1 or Cortex-A72); the spec's MatrixMul with its block
//! reversal (`Rev` costs an `EXT` per register; the storage order, folded
//! into `spread`'s index, makes it free); a bitsliced NEON engine for
//! `batch.rs` (not written: a `neon` key's batch runs message by message
//! on this engine).

pub(crate) use imp::Neon;

#[cfg(target_arch = "aarch64")]
mod imp {
    use core::arch::aarch64::*;

    use super::super::engine::{BLOCK_LEN, Engine, State, Word};
    use super::super::vector;
    use crate::aether::reference::SBOX;

    /// Proof that this CPU runs NEON.
    #[derive(Clone, Copy, Debug)]
    pub struct Neon {
        _detected: (),
    }

    impl Neon {
        /// The token, if this CPU has NEON.
        pub fn detect() -> Option<Neon> {
            std::arch::is_aarch64_feature_detected!("neon").then_some(Neon { _detected: () })
        }
    }

    impl Engine for Neon {
        fn keystream(self, s: &State) -> [u8; BLOCK_LEN] {
            // SAFETY: `self` exists only if `detect` found NEON, the one
            // feature `keystream_tf` is compiled for.
            unsafe { keystream_tf(s) }
        }

        fn absorb(self, s: &mut State, blocks: &[u8]) {
            // SAFETY: as above, the token proves the feature.
            unsafe { absorb_tf(s, blocks) }
        }

        fn absorb_repeated(self, s: &mut State, x: &[Word; 3], times: usize) {
            // SAFETY: as above, the token proves the feature.
            unsafe { absorb_repeated_tf(s, x, times) }
        }

        fn encrypt(self, s: &mut State, blocks: &mut [u8]) {
            // SAFETY: as above, the token proves the feature.
            unsafe { crypt_tf::<true>(s, blocks) }
        }

        fn decrypt(self, s: &mut State, blocks: &mut [u8]) {
            // SAFETY: as above, the token proves the feature.
            unsafe { crypt_tf::<false>(s, blocks) }
        }
    }

    /// A word: one nibble per byte, blocks 0 and 1 of both halves in the
    /// first register, blocks 2 and 3 in the second (see [`SPREAD`]).
    type W = [uint8x16_t; 2];

    /// The tables in registers, made once per call.
    #[derive(Clone, Copy)]
    struct K {
        /// S.
        s: uint8x16_t,
        /// S << 4.
        s4: uint8x16_t,
        /// 0x0f in every byte.
        low: uint8x16_t,
        /// [`SPREAD`] and [`JOIN`].
        spread: uint8x16_t,
        join: uint8x16_t,
    }

    /// Where a word's nibbles lie (see the header): storage position
    /// `q = (q4 q3 q2 q1 q0)` in register `q3`, byte `(q2 q1 q0 q4)`.
    /// With `q = i ⊕ 4` for the spec's nibble `i`, spec byte
    /// `n = (n3 n2 n1 n0)` (nibbles `2n`, `2n + 1`) goes to register `n2`,
    /// bytes `(n1⊕1, n0, e, n3)`, `e` = 0 for its high nibble, 1 for its low.
    /// [`spread`] first moves byte `n` to byte `(n2, n1⊕1, n0, n3)` with
    /// this index (`TBL` with the word as the table)…
    const SPREAD: [u8; 16] = {
        let mut t = [0u8; 16];
        let mut s = 0;
        while s < 16 {
            let (s3, s2, s1, s0) = (s >> 3, (s >> 2) & 1, (s >> 1) & 1, s & 1);
            t[s] = (8 * s0 + 4 * s3 + 2 * (s2 ^ 1) + s1) as u8;
            s += 1;
        }
        t
    };

    /// … and [`join`] moves it back with the inverse.
    const JOIN: [u8; 16] = {
        let mut t = [0u8; 16];
        let mut s = 0;
        while s < 16 {
            t[SPREAD[s] as usize] = s as u8;
            s += 1;
        }
        t
    };

    /// S << 4: the first S-box's table for the pair's second word.
    const SBOX4: [u8; 16] = {
        let mut t = [0u8; 16];
        let mut i = 0;
        while i < 16 {
            t[i] = SBOX[i] << 4;
            i += 1;
        }
        t
    };

    #[target_feature(enable = "neon")]
    fn load16(b: &[u8]) -> uint8x16_t {
        assert!(b.len() >= 16);
        // SAFETY: just checked: 16 readable bytes; `ld1` has no alignment requirement.
        unsafe { vld1q_u8(b.as_ptr()) }
    }

    #[target_feature(enable = "neon")]
    fn store16(v: uint8x16_t, b: &mut [u8]) {
        assert!(b.len() >= 16);
        // SAFETY: just checked: 16 writable bytes; `st1` has no alignment requirement.
        unsafe { vst1q_u8(b.as_mut_ptr(), v) }
    }

    #[target_feature(enable = "neon")]
    fn tables() -> K {
        K {
            s: load16(&SBOX),
            s4: load16(&SBOX4),
            low: vdupq_n_u8(0x0f),
            spread: load16(&SPREAD),
            join: load16(&JOIN),
        }
    }

    /// 16 bytes in the spec's order → the word's 32 nibbles in storage:
    /// bytes to `(n2, n1⊕1, n0, n3)`, then each byte's two nibbles to two
    /// bytes, 16-bit elements interleaved (`ZIP1`/`ZIP2` on `.8h`): the
    /// high nibbles' pair, then the low nibbles'.
    #[target_feature(enable = "neon")]
    fn spread(k: &K, w: uint8x16_t) -> W {
        let z = vqtbl1q_u8(w, k.spread);
        let hi = vreinterpretq_u16_u8(vshrq_n_u8::<4>(z));
        let lo = vreinterpretq_u16_u8(vandq_u8(z, k.low));
        [
            vreinterpretq_u8_u16(vzip1q_u16(hi, lo)),
            vreinterpretq_u8_u16(vzip2q_u16(hi, lo)),
        ]
    }

    /// A word's 32 nibbles (each below 16) → its 16 bytes in the spec's
    /// order: `spread` backwards.
    #[target_feature(enable = "neon")]
    fn join(k: &K, v: W) -> uint8x16_t {
        let a = vreinterpretq_u16_u8(v[0]);
        let b = vreinterpretq_u16_u8(v[1]);
        let hi = vreinterpretq_u8_u16(vuzp1q_u16(a, b));
        let lo = vreinterpretq_u8_u16(vuzp2q_u16(a, b));
        vqtbl1q_u8(vsliq_n_u8::<4>(lo, hi), k.join) // hi << 4 | lo, reordered
    }

    /// A block's three message words, spread.
    #[target_feature(enable = "neon")]
    fn spread3(k: &K, b: &[u8]) -> [W; 3] {
        [
            spread(k, load16(&b[..16])),
            spread(k, load16(&b[16..32])),
            spread(k, load16(&b[32..48])),
        ]
    }

    /// M' on a word (both halves at once): `T_k ⊕ J_c ⊕ u_{c,k}`.
    #[target_feature(enable = "neon")]
    fn matrix(u: W) -> W {
        let t1 = veorq_u8(u[0], u[1]); // blocks c, c⊕2 (the same in both registers)
        let t = veorq_u8(t1, vextq_u8::<8>(t1, t1)); // + c⊕1, c⊕3: T
        let jx = |x: uint8x16_t| {
            let r = vreinterpretq_u8_u32(vrev64q_u32(vreinterpretq_u32_u8(x))); // nibble k⊕2
            let r1 = vreinterpretq_u8_u16(vrev32q_u16(vreinterpretq_u16_u8(veorq_u8(x, r)))); // k⊕1 ⊕ k⊕3
            veorq_u8(veorq_u8(t, r), r1)
        };
        [jx(u[0]), jx(u[1])]
    }

    /// The Permutation (storage position `q` rotated right by one bit):
    /// the even bytes of the two registers, then the odd ones.
    #[target_feature(enable = "neon")]
    fn permutation(m: W) -> W {
        [vuzp1q_u8(m[0], m[1]), vuzp2q_u8(m[0], m[1])]
    }

    /// F on two words at once, `a` in the low nibbles and `b` in the high.
    #[target_feature(enable = "neon")]
    fn f2(k: &K, a: W, b: W) -> (W, W) {
        let x = [
            vorrq_u8(vqtbl1q_u8(k.s, a[0]), vqtbl1q_u8(k.s4, b[0])),
            vorrq_u8(vqtbl1q_u8(k.s, a[1]), vqtbl1q_u8(k.s4, b[1])),
        ];
        let p = permutation(matrix(x));
        let fa = [
            vqtbl1q_u8(k.s, vandq_u8(p[0], k.low)),
            vqtbl1q_u8(k.s, vandq_u8(p[1], k.low)),
        ];
        let fb = [
            vqtbl1q_u8(k.s, vshrq_n_u8::<4>(p[0])),
            vqtbl1q_u8(k.s, vshrq_n_u8::<4>(p[1])),
        ];
        (fa, fb)
    }

    /// F on one word.
    #[target_feature(enable = "neon")]
    fn f1(k: &K, a: W) -> W {
        let x = [vqtbl1q_u8(k.s, a[0]), vqtbl1q_u8(k.s, a[1])];
        let p = permutation(matrix(x));
        [vqtbl1q_u8(k.s, p[0]), vqtbl1q_u8(k.s, p[1])]
    }

    #[target_feature(enable = "neon")]
    fn xor(a: W, b: W) -> W {
        [veorq_u8(a[0], b[0]), veorq_u8(a[1], b[1])]
    }

    #[target_feature(enable = "neon")]
    fn load_state(k: &K, s: &State) -> [W; 9] {
        core::array::from_fn(|i| spread(k, load16(&s[i])))
    }

    #[target_feature(enable = "neon")]
    fn store_state(k: &K, v: &mut [W; 9], s: &mut State) {
        for (w, x) in s.iter_mut().zip(v.iter_mut()) {
            store16(join(k, *x), w);
            *x = [vdupq_n_u8(0); 2];
        }
    }

    #[target_feature(enable = "neon")]
    fn keystream_tf(s: &State) -> [u8; BLOCK_LEN] {
        let k = tables();
        let v = load_state(&k, s);
        let (_, ks) = vector::f12(|a, b| f2(&k, a, b), |a, b| xor(a, b), &v);
        let mut out = [0u8; BLOCK_LEN];
        for (j, w) in ks.iter().enumerate() {
            store16(join(&k, *w), &mut out[16 * j..16 * j + 16]);
        }
        out
    }

    /// R for each block; its own function so the loop can be modelled
    /// (`crates/aekit-bench/mca/`).
    #[inline(never)]
    #[target_feature(enable = "neon")]
    fn absorb_tf(s: &mut State, blocks: &[u8]) {
        let k = tables();
        let mut v = load_state(&k, s);
        for b in blocks.chunks_exact(BLOCK_LEN) {
            let x = spread3(&k, b);
            let f = vector::f9(|a, b| f2(&k, a, b), |a| f1(&k, a), &v);
            vector::update(|a, b| xor(a, b), &mut v, f, x);
        }
        store_state(&k, &mut v, s);
    }

    #[target_feature(enable = "neon")]
    fn absorb_repeated_tf(s: &mut State, x: &[Word; 3], times: usize) {
        let k = tables();
        let mut v = load_state(&k, s);
        let x = [
            spread(&k, load16(&x[0])),
            spread(&k, load16(&x[1])),
            spread(&k, load16(&x[2])),
        ];
        for _ in 0..times {
            let f = vector::f9(|a, b| f2(&k, a, b), |a| f1(&k, a), &v);
            vector::update(|a, b| xor(a, b), &mut v, f, x);
        }
        store_state(&k, &mut v, s);
    }

    /// Encrypts (`ENCRYPT`) or decrypts whole blocks in place; its own
    /// function so the loop can be modelled (`crates/aekit-bench/mca/`).
    #[inline(never)]
    #[target_feature(enable = "neon")]
    fn crypt_tf<const ENCRYPT: bool>(s: &mut State, blocks: &mut [u8]) {
        let k = tables();
        let mut v = load_state(&k, s);
        for b in blocks.chunks_exact_mut(BLOCK_LEN) {
            let (f, ks) = vector::f12(|a, b| f2(&k, a, b), |a, b| xor(a, b), &v);
            // The output is the input XOR the keystream, made in nibbles
            // and gathered once; the absorbed words are the plaintext's:
            // the input when encrypting, the output when decrypting.
            let input = spread3(&k, b);
            let output = [
                xor(input[0], ks[0]),
                xor(input[1], ks[1]),
                xor(input[2], ks[2]),
            ];
            for (j, w) in output.iter().enumerate() {
                store16(join(&k, *w), &mut b[16 * j..16 * j + 16]);
            }
            vector::update(
                |a, b| xor(a, b),
                &mut v,
                f,
                if ENCRYPT { input } else { output },
            );
        }
        store_state(&k, &mut v, s);
    }
}

#[cfg(not(target_arch = "aarch64"))]
mod imp {
    use super::super::engine::{BLOCK_LEN, Engine, State};

    /// No value of this type exists without NEON.
    #[derive(Clone, Copy, Debug)]
    pub enum Neon {}

    impl Neon {
        /// Never available without NEON.
        pub fn detect() -> Option<Neon> {
            None
        }
    }

    impl Engine for Neon {
        fn keystream(self, _: &State) -> [u8; BLOCK_LEN] {
            match self {}
        }

        fn absorb(self, _: &mut State, _: &[u8]) {
            match self {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::imp::Neon;
    use crate::aether::engine::Engine;
    use crate::aether::reference::{self, Reference};

    /// The token, or a visible SKIP line (written past the test harness's
    /// capture) and `None`.
    fn engine() -> Option<Neon> {
        let e = Neon::detect();
        if e.is_none() {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIP neon: not available on this CPU");
        }
        e
    }

    /// F (the first keystream word of a state with only S0 set) on
    /// varied words, against the reference.
    #[test]
    fn f_matches_reference() {
        let Some(e) = engine() else { return };
        let mut w = [0u8; 16];
        for round in 0..256u32 {
            for (i, b) in w.iter_mut().enumerate() {
                *b = b
                    .wrapping_mul(31)
                    .wrapping_add((round as u8) ^ i as u8)
                    .rotate_left(3);
            }
            let mut s = [[0u8; 16]; 9];
            s[0] = w;
            let got = e.keystream(&s);
            assert_eq!(got[..16], reference::f(&w), "F of {w:02x?}");
        }
    }

    /// The keystream and every block count of absorption, against the
    /// reference, from random states.
    #[test]
    fn engine_matches_reference() {
        let Some(e) = engine() else { return };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut byte = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        };
        for blocks in 0..6 {
            let mut s = [[0u8; 16]; 9];
            s.iter_mut().flatten().for_each(|b| *b = byte());
            let data: Vec<u8> = (0..48 * blocks).map(|_| byte()).collect();
            assert_eq!(e.keystream(&s), Reference.keystream(&s));
            let (mut a, mut b) = (s, s);
            e.absorb(&mut a, &data);
            Reference.absorb(&mut b, &data);
            assert_eq!(a, b, "absorb {blocks} blocks");
            let (mut ca, mut cb) = (data.clone(), data.clone());
            let (mut a, mut b) = (s, s);
            e.encrypt(&mut a, &mut ca);
            Reference.encrypt(&mut b, &mut cb);
            assert_eq!((a, &ca), (b, &cb), "encrypt {blocks} blocks");
            e.decrypt(&mut a, &mut ca);
            Reference.decrypt(&mut b, &mut cb);
            assert_eq!((a, &ca), (b, &cb), "decrypt {blocks} blocks");
            let (mut a, mut b) = (s, s);
            let w = [s[1], s[2], s[3]];
            e.absorb_repeated(&mut a, &w, blocks + 1);
            Reference.absorb_repeated(&mut b, &w, blocks + 1);
            assert_eq!(a, b, "absorb_repeated {}", blocks + 1);
        }
    }
}
