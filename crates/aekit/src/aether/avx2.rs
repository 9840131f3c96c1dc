//! `avx2`: AETHER with AVX2 on 256-bit registers (x86-64).
//!
//! CPU features: AVX2, checked at run time; the [`Avx2`] token exists only
//! where it was detected, so safe code cannot reach these instructions on a
//! CPU without it. On other architectures the token is an empty enum.
//!
//! Representation, math and structure are those of `avx512.rs` (read its
//! header first): one nibble per byte, a word per `__m256i`, MatrixMul as
//! `Rev ∘ M'` with `Rev` folded into the permutation, F evaluated on pairs
//! of words sharing the bytes' low and high nibbles, six independent pairs
//! per message block; the round's wiring is `vector.rs`'s, shared with
//! `avx512.rs`. The nibbles lie in the spec's order (128-bit lane h holds
//! half h, M''s block swaps stay inside the lanes): the layout
//! `avx512.rs` uses pays only through `vpmultishiftqb`, which AVX2 lacks.
//! What else AVX2 lacks, and what replaces it:
//!
//! - `vprold` (rotate inside 32-bit elements) → `vpshufb` with a fixed
//!   index (the rotations are by whole bytes);
//! - `vpternlogd` → two `vpxor`;
//! - `vpermb` across the two 128-bit lanes (the permutation) → one
//!   `vpshufb` and one `vpermq`: each output quadword reads one input lane
//!   only (nibbles 0..8 and 16..24 come from the low half, 8..16 and
//!   24..32 from the high one), so the `vpshufb` sorts each lane's bytes
//!   into the two quadwords they fill and the `vpermq` moves those;
//! - `vpermb` as the second S-box → `vpand` with `0x0f` (to clear the bit
//!   `vpshufb` reads as "zero this byte") and `vpshufb`;
//! - `vpmultishiftqb` to spread, `vpermb` / `vpermt2b` / `vpmovwb` to
//!   gather → `vpmovzxbw` and a multiply and shift to spread,
//!   `vpmaddubsw` + `vpackuswb` + `vpermq` to gather.
//!
//! The tables reach the code through an empty `asm!` (`vector::opaque`):
//! knowing the byte-rotation masks, LLVM rewrites one `vpshufb` of M' as
//! `vpshuflw` + `vpshufhw` and pushes the other through the XOR before it,
//! two more shuffles per F pair than written (AES-GCM's wide kernels keep
//! their round order with `asm!` for the same reason).
//!
//! Constant-time: yes. Shuffles index registers, never memory; no branch
//! depends on data.
//!
//! Cost per 48-byte block (counted in the disassembly of the loop): 6 F
//! pairs × (7 `vpshufb`, 2 `vpshufd`, 1 `vpermq`, 1 shift and 8 logic), 18
//! XORs (the keystream's inputs and outputs, the input, the round), 9
//! instructions to spread the input and 7 to gather the output: 148
//! vector instructions (`avx512`: 116 uops). Measured speed, against
//! AEGIS-256 and the ports' bound: `docs/AETHER-USAGE.md`, "Speed".
//!
//! Rejected: an SSSE3 (128-bit) variant — each word would need two
//! registers and the permutation crosses them; every x86-64 CPU that is
//! fast enough to care has AVX2.

pub(crate) use imp::Avx2;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::*;

    use super::super::engine::{BLOCK_LEN, Engine, State, Word};
    use super::super::vector::{self, opaque};
    use crate::aether::reference::SBOX;

    /// Proof that this CPU runs AVX2.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx2 {
        _detected: (),
    }

    impl Avx2 {
        /// The token, if this CPU has every feature the strategy uses.
        pub fn detect() -> Option<Avx2> {
            is_x86_feature_detected!("avx2").then_some(Avx2 { _detected: () })
        }
    }

    impl Engine for Avx2 {
        fn keystream(self, s: &State) -> [u8; BLOCK_LEN] {
            // SAFETY: `self` exists only if `detect` found every feature
            // `keystream_tf` is compiled for.
            unsafe { keystream_tf(s) }
        }

        fn absorb(self, s: &mut State, blocks: &[u8]) {
            // SAFETY: as above, the token proves the features.
            unsafe { absorb_tf(s, blocks) }
        }

        fn absorb_repeated(self, s: &mut State, x: &[Word; 3], times: usize) {
            // SAFETY: as above, the token proves the features.
            unsafe { absorb_repeated_tf(s, x, times) }
        }

        fn encrypt(self, s: &mut State, blocks: &mut [u8]) {
            // SAFETY: as above, the token proves the features.
            unsafe { crypt_tf::<true>(s, blocks) }
        }

        fn decrypt(self, s: &mut State, blocks: &mut [u8]) {
            // SAFETY: as above, the token proves the features.
            unsafe { crypt_tf::<false>(s, blocks) }
        }
    }

    /// Byte tables, built at compile time.
    struct Tables {
        /// S in both lanes (for `vpshufb`).
        s: [u8; 32],
        /// S << 4 in both lanes.
        s4: [u8; 32],
        /// `Permutation ∘ Rev` (output byte o reads input byte
        /// `Permutation⁻¹(o) ⊕ 12`), the part inside each lane: see
        /// [`permute`].
        perm: [u8; 32],
        /// Rotate each 32-bit element by 16 and by 8 bits.
        rot16: [u8; 32],
        rot8: [u8; 32],
        /// `vpmaddubsw` weights that join nibble pairs: 16, 1, 16, 1, …
        join: [u8; 32],
    }

    const TABLES: Tables = {
        let mut t = Tables {
            s: [0; 32],
            s4: [0; 32],
            perm: [0; 32],
            rot16: [0; 32],
            rot8: [0; 32],
            join: [0; 32],
        };
        let mut i = 0;
        while i < 32 {
            t.s[i] = SBOX[i % 16];
            t.s4[i] = SBOX[i % 16] << 4;
            // `permute`'s `vpermq` moves quadword h of lane L (bytes 8h..8h+8
            // of it) to output quadword 2h + L: byte i becomes output byte o,
            // which reads input byte `from`, in the same lane.
            let lane = i / 16;
            let o = 16 * ((i % 16) / 8) + 8 * lane + i % 8;
            let from = (if o < 16 { 2 * o } else { 2 * (o - 16) + 1 }) ^ 12;
            assert!(from / 16 == lane);
            t.perm[i] = (from % 16) as u8;
            let e = i % 16 - i % 4; // first byte of this 32-bit element, in the lane
            t.rot16[i] = (e + (i + 2) % 4) as u8;
            t.rot8[i] = (e + (i + 3) % 4) as u8;
            t.join[i] = if i % 2 == 0 { 16 } else { 1 };
            i += 1;
        }
        t
    };

    /// The tables in registers, loaded once per call.
    #[derive(Clone, Copy)]
    struct K {
        s: __m256i,
        s4: __m256i,
        perm: __m256i,
        rot16: __m256i,
        rot8: __m256i,
        join: __m256i,
        low: __m256i,
    }

    #[target_feature(enable = "avx2")]
    fn load32(b: &[u8; 32]) -> __m256i {
        // SAFETY: `b` is 32 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2")]
    fn load16(b: &[u8]) -> __m128i {
        assert!(b.len() >= 16);
        // SAFETY: just checked: 16 readable bytes; no alignment requirement.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2")]
    fn store32(v: __m256i, b: &mut [u8; 32]) {
        // SAFETY: `b` is 32 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "avx2")]
    fn store16(v: __m128i, b: &mut [u8]) {
        assert!(b.len() >= 16);
        // SAFETY: just checked: 16 writable bytes; no alignment requirement.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "avx2")]
    fn tables() -> K {
        K {
            s: opaque(load32(&TABLES.s)),
            s4: opaque(load32(&TABLES.s4)),
            perm: opaque(load32(&TABLES.perm)),
            rot16: opaque(load32(&TABLES.rot16)),
            rot8: opaque(load32(&TABLES.rot8)),
            join: opaque(load32(&TABLES.join)),
            low: opaque(_mm256_set1_epi8(0x0f)),
        }
    }

    /// 16 bytes → 32 nibbles, one per byte, most significant first: byte
    /// s widened to the 16-bit s, times 0x1001 keeps s | (s & 15) << 12,
    /// and shifted right by 4 that is s >> 4 in the low byte and s & 15 in
    /// the high one. (The multiplier is hidden from LLVM, which would make
    /// the multiply a shift and an OR: one instruction more.)
    #[target_feature(enable = "avx2")]
    fn spread(w: __m128i) -> __m256i {
        let wide = _mm256_cvtepu8_epi16(w);
        _mm256_srli_epi16::<4>(_mm256_mullo_epi16(wide, opaque(_mm256_set1_epi16(0x1001))))
    }

    /// 32 nibbles → 16 bytes.
    #[target_feature(enable = "avx2")]
    fn join(k: &K, v: __m256i) -> __m128i {
        _mm256_castsi256_si128(join2(k, v, v))
    }

    /// Two words of 32 nibbles → their 32 bytes, `a`'s first: each pair of
    /// nibbles made one 16-bit value, the two words packed to bytes lane by
    /// lane (a's low half, b's low half | a's high half, b's high half), and
    /// the middle quadwords swapped.
    #[target_feature(enable = "avx2")]
    fn join2(k: &K, a: __m256i, b: __m256i) -> __m256i {
        let wa = _mm256_maddubs_epi16(a, k.join); // 16-bit lanes, each < 256
        let wb = _mm256_maddubs_epi16(b, k.join);
        _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(wa, wb))
    }

    /// A block's three message words, spread.
    #[target_feature(enable = "avx2")]
    fn spread3(b: &[u8]) -> [__m256i; 3] {
        [
            spread(load16(&b[..16])),
            spread(load16(&b[16..32])),
            spread(load16(&b[32..48])),
        ]
    }

    /// M' (see `avx512.rs`): `T_k ⊕ J_c ⊕ u_{c,k}` in each 128-bit lane.
    #[target_feature(enable = "avx2")]
    fn matrix(k: &K, u: __m256i) -> __m256i {
        let t1 = _mm256_xor_si256(u, _mm256_shuffle_epi32::<0x4e>(u)); // blocks c, c⊕2
        let s2 = _mm256_shuffle_epi32::<0xb1>(t1); // blocks c⊕1, c⊕3
        let r16 = _mm256_shuffle_epi8(u, k.rot16); // nibble k⊕2 of the block
        let r8 = _mm256_shuffle_epi8(_mm256_xor_si256(u, r16), k.rot8); // k⊕1, k⊕3
        _mm256_xor_si256(_mm256_xor_si256(t1, s2), _mm256_xor_si256(r16, r8))
    }

    /// `Permutation ∘ Rev` across the two lanes. Output quadwords 0 and 2
    /// (nibbles 0..8 and 16..24) read only the low lane and quadwords 1
    /// and 3 only the high one, so one `vpshufb` gathers each lane's bytes
    /// into its two quadwords in output order and one `vpermq` puts the
    /// four quadwords in place.
    #[target_feature(enable = "avx2")]
    fn permute(k: &K, m: __m256i) -> __m256i {
        _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_shuffle_epi8(m, k.perm))
    }

    /// F on two words at once (see `avx512.rs`).
    #[target_feature(enable = "avx2")]
    fn f2(k: &K, a: __m256i, b: __m256i) -> (__m256i, __m256i) {
        let x = _mm256_or_si256(_mm256_shuffle_epi8(k.s, a), _mm256_shuffle_epi8(k.s4, b));
        let p = permute(k, matrix(k, x));
        let fa = _mm256_shuffle_epi8(k.s, _mm256_and_si256(p, k.low));
        let fb = _mm256_shuffle_epi8(k.s, _mm256_and_si256(_mm256_srli_epi16::<4>(p), k.low));
        (fa, fb)
    }

    /// F on one word.
    #[target_feature(enable = "avx2")]
    fn f1(k: &K, a: __m256i) -> __m256i {
        let m = matrix(k, _mm256_shuffle_epi8(k.s, a));
        permute(k, _mm256_shuffle_epi8(k.s, m))
    }

    #[target_feature(enable = "avx2")]
    fn xor(a: __m256i, b: __m256i) -> __m256i {
        _mm256_xor_si256(a, b)
    }

    /// The state update from nine precomputed F values.
    #[target_feature(enable = "avx2")]
    fn update(s: &mut [__m256i; 9], f: [__m256i; 9], x: [__m256i; 3]) {
        vector::update(|a, b| xor(a, b), s, f, x);
    }

    /// F of the nine state words.
    #[target_feature(enable = "avx2")]
    fn f9(k: &K, s: &[__m256i; 9]) -> [__m256i; 9] {
        vector::f9(|a, b| f2(k, a, b), |a| f1(k, a), s)
    }

    /// F of the nine state words and the three keystream words, as six pairs.
    #[target_feature(enable = "avx2")]
    fn f12(k: &K, s: &[__m256i; 9]) -> ([__m256i; 9], [__m256i; 3]) {
        vector::f12(|a, b| f2(k, a, b), |a, b| xor(a, b), s)
    }

    #[target_feature(enable = "avx2")]
    fn load_state(s: &State) -> [__m256i; 9] {
        core::array::from_fn(|i| spread(load16(&s[i])))
    }

    #[target_feature(enable = "avx2")]
    fn store_state(k: &K, v: &mut [__m256i; 9], s: &mut State) {
        for (w, x) in s.iter_mut().zip(v.iter_mut()) {
            store16(join(k, *x), w);
            *x = _mm256_setzero_si256();
        }
    }

    #[target_feature(enable = "avx2")]
    fn keystream_tf(s: &State) -> [u8; BLOCK_LEN] {
        let k = tables();
        let v = load_state(s);
        let (_, ks) = f12(&k, &v);
        let mut out = [0u8; BLOCK_LEN];
        for (j, w) in ks.iter().enumerate() {
            store16(join(&k, *w), &mut out[16 * j..16 * j + 16]);
        }
        out
    }

    #[target_feature(enable = "avx2")]
    fn absorb_tf(s: &mut State, blocks: &[u8]) {
        let k = tables();
        let mut v = load_state(s);
        for b in blocks.chunks_exact(BLOCK_LEN) {
            let x = spread3(b);
            let f = f9(&k, &v);
            update(&mut v, f, x);
        }
        store_state(&k, &mut v, s);
    }

    #[target_feature(enable = "avx2")]
    fn absorb_repeated_tf(s: &mut State, x: &[Word; 3], times: usize) {
        let k = tables();
        let mut v = load_state(s);
        let x = [
            spread(load16(&x[0])),
            spread(load16(&x[1])),
            spread(load16(&x[2])),
        ];
        for _ in 0..times {
            let f = f9(&k, &v);
            update(&mut v, f, x);
        }
        store_state(&k, &mut v, s);
    }

    /// Encrypts (`ENCRYPT`) or decrypts whole blocks in place.
    #[target_feature(enable = "avx2")]
    fn crypt_tf<const ENCRYPT: bool>(s: &mut State, blocks: &mut [u8]) {
        let k = tables();
        let mut v = load_state(s);
        for b in blocks.chunks_exact_mut(BLOCK_LEN) {
            let (f, ks) = f12(&k, &v);
            // The output is the input XOR the keystream, made in nibbles
            // and gathered once; the absorbed words are the plaintext's:
            // the input when encrypting, the output when decrypting (then
            // the next block's F waits on no trip to bytes and back).
            let input = spread3(b);
            let output = [
                xor(input[0], ks[0]),
                xor(input[1], ks[1]),
                xor(input[2], ks[2]),
            ];
            let (first, last) = b.split_at_mut(32);
            let first: &mut [u8; 32] = first.try_into().expect("a block is 48 bytes");
            store32(join2(&k, output[0], output[1]), first);
            store16(join(&k, output[2]), last);
            update(&mut v, f, if ENCRYPT { input } else { output });
        }
        store_state(&k, &mut v, s);
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use super::super::engine::{BLOCK_LEN, Engine, State};

    /// No value of this type exists off x86-64.
    #[derive(Clone, Copy, Debug)]
    pub enum Avx2 {}

    impl Avx2 {
        /// Never available off x86-64.
        pub fn detect() -> Option<Avx2> {
            None
        }
    }

    impl Engine for Avx2 {
        fn keystream(self, _: &State) -> [u8; BLOCK_LEN] {
            match self {}
        }

        fn absorb(self, _: &mut State, _: &[u8]) {
            match self {}
        }
    }
}
