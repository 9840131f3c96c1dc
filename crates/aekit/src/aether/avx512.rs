//! `avx512`: AETHER with AVX-512 VBMI on 256-bit registers (x86-64).
//!
//! CPU features: AVX2 + AVX512F + AVX512BW + AVX512VL + AVX512VBMI, checked
//! at run time; the [`Avx512`] token exists only where they were detected,
//! so safe code cannot reach these instructions on a CPU without them. On
//! other architectures the token is an empty enum and the file compiles to
//! nothing callable.
//!
//! Representation: one nibble per byte. A word occupies one `__m256i`
//! whose quadwords 0 to 3 hold the spec's nibbles 0–7, 16–23, 8–15 and
//! 24–31, in order (so each 32-bit element is one block `U_c`, and each
//! 128-bit lane holds two blocks of each half of F's MatrixMul). The
//! state lives as nine such registers for a whole call and is converted
//! from and to the spec's bytes only at the call's edges. The layout is
//! the one a broadcast load spreads without a shuffle: with the word's
//! 16 bytes in both lanes (`vbroadcasti128`, a load), quadword q of the
//! register holds source bytes 0–7 (q even) or 8–15 (q odd), among them
//! the four whose nibbles it takes, and one `vpmultishiftqb` + `vpand`
//! spreads them. Gathering the output back is `vpmaddubsw` (each nibble
//! pair into the low byte of a 16-bit element) and one `vpermb` a word,
//! or one `vpermt2b` for two words (their 32 bytes, one store).
//!
//! Math: write `MatrixMul = Rev ∘ M'` with
//! `M'(u)_{c,k} = T_k ⊕ J_c ⊕ u_{c,k}` (column XOR over the four blocks,
//! XOR of the block's four nibbles; `Rev` reverses the block order). Then
//! `F = (Permutation ∘ Rev) ∘ S ∘ M' ∘ S`, and `Permutation ∘ Rev` is one
//! fixed byte permutation: one `vpermb`. `M'` is
//! `t1 = u ⊕ vpermq(u, 1032)` (blocks c and c⊕2 sit in the two lanes),
//! `T = t1 ⊕ pshufd(t1, 2301)` (c⊕1 in the same lane),
//! `r16 = u ⋘₃₂ 16`, `J ⊕ u = r16 ⊕ ((u ⊕ r16) ⋘₃₂ 8)` (nibbles of a block),
//! so `M'(u) = t1 ⊕ pshufd(t1) ⊕ r16 ⊕ ((u ⊕ r16) ⋘ 8)`: four shuffles or
//! rotates, a `vpternlogd` and two XORs.
//!
//! Two words per register where it pays: MatrixMul and the permutation are
//! linear over GF(2) and act on whole bytes, so the four spare bits of every
//! byte can carry a second word. F is evaluated on *pairs* `(a, b)`: the
//! first S-box writes `S(a) | S(b) << 4` (two `vpshufb` with the tables `S`
//! and `S << 4`), M' and the permutation run once for both words, and the
//! second S-box reads the low and high nibble with `vpermb` from a 32-byte
//! table holding S twice (`vpermb` uses index bits 0–4; bit 4 then does not
//! matter, so neither lookup needs a mask). That is 10 shuffle-port
//! instructions per two words instead of 14.
//!
//! The nine F of a round update are independent, and so are the three F of
//! the keystream: a message block is six F pairs with no dependency
//! between them, which the out-of-order core overlaps. Which words are
//! paired and where each F goes is the round's wiring, written once for
//! this engine and `avx2.rs` in `vector.rs`.
//!
//! Citation: the scheme as in `reference.rs`; the nibble S-box by `pshufb`
//! as in Hamburg's vector-permutation AES (CHES 2009).
//!
//! Constant-time: yes. Shuffles index registers, never memory; no branch
//! depends on data.
//!
//! Cost per 48-byte block: 6 F pairs × (10 shuffle/rotate + 5 logic) plus
//! 12 XOR for the round and keystream, 3 × 2 for spreading the message and
//! 3 + 2 for gathering the keystream. On Intel cores (Sapphire and Emerald
//! Rapids) a 256-bit shuffle issues on port 1 or 5 and `vpermb`, `vpermq`
//! and `vpermt2b` on port 5 only, and the loop's 116 vector uops (the
//! disassembly's count) fill ports 0, 1 and 5 alike: those three ports
//! are the loop's bound. No 512-bit instruction may run in it: while one
//! does, port 1 takes no vector work, so `opaque` hides from LLVM the two
//! 256-bit halves it would otherwise join into 512-bit instructions (one
//! two-register `vpermt2b`, and the XORs and `vpmaddubsw`s before it).
//! Measured speed, against AEGIS-256 and that bound:
//! `docs/AETHER-USAGE.md`, "Speed".
//!
//! The output is made in nibbles (the input's XOR the keystream's) and
//! gathered once; decryption absorbs those nibbles, so the next block's F
//! waits on no trip of the keystream to bytes and back.
//!
//! Rejected: `vgf2p8affineqb` (GFNI) swapping nibbles in place of the
//! `vpsrlw` before the high-nibble S-box lookup — measured slower on the
//! same core; a three-shuffle M' — an exhaustive search over circuits
//! of three translations of the 4×4 nibble grid (byte and 32-bit-element
//! rotations) with free XORs finds none; one word per `__m512i` pair of
//! lanes (the word routing of R then needs cross-register shuffles, and on
//! cores that split 512-bit operations it buys nothing); a bit-sliced state (cheap S-box, but
//! MatrixMul, the permutation and every message word become bit
//! transpositions); GFNI for MatrixMul (it mixes bits only within a byte,
//! and MatrixMul mixes nibbles across bytes).

pub(crate) use imp::Avx512;

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::*;

    use super::super::engine::{BLOCK_LEN, Engine, State, Word};
    use super::super::vector::{self, opaque};
    use crate::aether::reference::SBOX;

    /// Proof that this CPU runs AVX2, AVX512F/BW/VL and AVX512VBMI.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx512 {
        _detected: (),
    }

    impl Avx512 {
        /// The token, if this CPU has every feature the strategy uses.
        pub fn detect() -> Option<Avx512> {
            let ok = is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512vbmi");
            ok.then_some(Avx512 { _detected: () })
        }
    }

    impl Engine for Avx512 {
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

    /// The nibble held by register byte `r` (see the header): quadwords
    /// 0 to 3 hold nibbles 0–7, 16–23, 8–15 and 24–31, in order.
    const fn nibble_at(r: usize) -> usize {
        let base = [0, 16, 8, 24][r / 8];
        base + r % 8
    }

    /// The register byte holding nibble `n` (the inverse of [`nibble_at`]).
    const fn place_of(n: usize) -> usize {
        let q = 2 * (n / 8 % 2) + n / 16;
        8 * q + n % 8
    }

    /// Byte tables, built at compile time.
    struct Tables {
        /// S in both lanes (for `vpshufb`).
        s: [u8; 32],
        /// S << 4 in both lanes.
        s4: [u8; 32],
        /// `Permutation ∘ Rev` in this layout: the byte holding output
        /// nibble o reads the byte holding input nibble
        /// `Permutation⁻¹(o) ⊕ 12` (`⊕ 12` reverses the block order).
        perm: [u8; 32],
        /// `vpmultishiftqb` offsets that take each byte's nibble from the
        /// 16 source bytes in both lanes.
        spread: [u8; 32],
        /// `vpmaddubsw` weights that join nibble pairs: 16, 1, 16, 1, …
        join: [u8; 32],
        /// `vpermb` indexes that gather the joined bytes (the low byte of
        /// each 16-bit element) into source order in the low 16 bytes.
        gather: [u8; 32],
        /// `vpermt2b` indexes that gather two words' joined bytes, the
        /// first's then the second's (index bit 5 picks the second).
        gather2: [u8; 32],
    }

    const TABLES: Tables = {
        let mut t = Tables {
            s: [0; 32],
            s4: [0; 32],
            perm: [0; 32],
            spread: [0; 32],
            join: [0; 32],
            gather: [0; 32],
            gather2: [0; 32],
        };
        let mut r = 0;
        while r < 32 {
            t.s[r] = SBOX[r % 16];
            t.s4[r] = SBOX[r % 16] << 4;
            let o = nibble_at(r);
            let from = if o < 16 { 2 * o } else { 2 * (o - 16) + 1 };
            t.perm[r] = place_of(from ^ 12) as u8;
            // Nibble n is the high (n even) or low half of source byte
            // n / 2, which the byte's quadword of the broadcast holds at
            // its byte (n / 2) % 8.
            let n = nibble_at(r);
            t.spread[r] = (8 * (n / 2 % 8) + if n.is_multiple_of(2) { 4 } else { 0 }) as u8;
            t.join[r] = if r % 2 == 0 { 16 } else { 1 };
            if r < 16 {
                t.gather[r] = place_of(2 * r) as u8;
            }
            t.gather2[r] = (place_of(2 * (r % 16)) + 32 * (r / 16)) as u8;
            r += 1;
        }
        t
    };

    /// The tables in registers, loaded once per call.
    #[derive(Clone, Copy)]
    struct K {
        s: __m256i,
        s4: __m256i,
        perm: __m256i,
        spread: __m256i,
        join: __m256i,
        gather: __m256i,
        gather2: __m256i,
        low: __m256i,
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn load32(b: &[u8; 32]) -> __m256i {
        // SAFETY: `b` is 32 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn load16(b: &[u8]) -> __m128i {
        assert!(b.len() >= 16);
        // SAFETY: just checked: 16 readable bytes; no alignment requirement.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn store16(v: __m128i, b: &mut [u8]) {
        assert!(b.len() >= 16);
        // SAFETY: just checked: 16 writable bytes; no alignment requirement.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn store32(v: __m256i, b: &mut [u8]) {
        assert!(b.len() >= 32);
        // SAFETY: just checked: 32 writable bytes; no alignment requirement.
        unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn tables() -> K {
        K {
            s: load32(&TABLES.s),
            s4: load32(&TABLES.s4),
            perm: load32(&TABLES.perm),
            spread: load32(&TABLES.spread),
            join: load32(&TABLES.join),
            // Hidden (`opaque`): knowing the indexes, LLVM turns the
            // `vpermb` into `vpshufb`s, lane moves and unpacks, seven
            // instructions for three words' gathers in place of three.
            gather: opaque(load32(&TABLES.gather)),
            gather2: opaque(load32(&TABLES.gather2)),
            low: _mm256_set1_epi8(0x0f),
        }
    }

    /// 16 bytes → 32 nibbles, one per byte, in the register's layout:
    /// the bytes in both lanes (a broadcast load, no shuffle), each
    /// byte's nibble picked from its quadword by `vpmultishiftqb`.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn spread(k: &K, b: &[u8]) -> __m256i {
        let w = _mm256_broadcastsi128_si256(load16(b));
        _mm256_and_si256(_mm256_multishift_epi64_epi8(k.spread, w), k.low)
    }

    /// 32 nibbles → 16 bytes, at a call's edges (the state, a last
    /// block's keystream). `vpmaddubsw` joins each nibble pair into the
    /// low byte of its 16-bit element; those elements hold bytes 0–3,
    /// 8–11, 4–7 and 12–15 by quadword; `vpermq` puts the quadwords in
    /// order and `vpmovwb` packs the bytes. (A `vpermb` gather, as in the
    /// loop, lets LLVM merge the state's stores into 512-bit ones, which
    /// slow every call.)
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn join(k: &K, v: __m256i) -> __m128i {
        let pairs = _mm256_maddubs_epi16(v, k.join);
        _mm256_cvtepi16_epi8(_mm256_permute4x64_epi64::<0xd8>(pairs))
    }

    /// 32 nibbles → 16 bytes in the loop: the nibble pairs joined, the
    /// bytes gathered by one `vpermb` (`vpmovwb` is two uops on Intel
    /// cores, both on port 5).
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn gather(k: &K, v: __m256i) -> __m128i {
        let pairs = _mm256_maddubs_epi16(v, k.join);
        _mm256_castsi256_si128(_mm256_permutexvar_epi8(k.gather, pairs))
    }

    /// Two words' 32 nibbles each → their 32 bytes, in order.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn join2(k: &K, a: __m256i, b: __m256i) -> __m256i {
        // Each through `opaque`: seeing two 256-bit halves of one
        // two-source permute, LLVM joins the words' XORs and
        // `vpmaddubsw`s into 512-bit instructions, and with one in the
        // loop port 1 takes no vector work on Intel cores.
        let a = opaque(_mm256_maddubs_epi16(a, k.join));
        let b = opaque(_mm256_maddubs_epi16(b, k.join));
        _mm256_permutex2var_epi8(a, k.gather2, b)
    }

    /// A block's three message words, spread.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn spread3(k: &K, b: &[u8]) -> [__m256i; 3] {
        [
            spread(k, &b[..16]),
            spread(k, &b[16..32]),
            spread(k, &b[32..48]),
        ]
    }

    /// M' (see the header): `T_k ⊕ J_c ⊕ u_{c,k}` in each 128-bit lane,
    /// on every bit of every byte.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn matrix(u: __m256i) -> __m256i {
        let t1 = _mm256_xor_si256(u, _mm256_permute4x64_epi64::<0x4e>(u)); // blocks c, c⊕2
        let s2 = _mm256_shuffle_epi32::<0xb1>(t1); // blocks c⊕1, c⊕3
        let r16 = _mm256_rol_epi32::<16>(u); // nibble k⊕2 of the block
        let r8 = _mm256_rol_epi32::<8>(_mm256_xor_si256(u, r16)); // k⊕1, k⊕3
        _mm256_xor_si256(_mm256_ternarylogic_epi32::<0x96>(t1, s2, r16), r8)
    }

    /// F on two words at once (see the header).
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn f2(k: &K, a: __m256i, b: __m256i) -> (__m256i, __m256i) {
        let x = _mm256_or_si256(_mm256_shuffle_epi8(k.s, a), _mm256_shuffle_epi8(k.s4, b));
        let p = _mm256_permutexvar_epi8(k.perm, matrix(x));
        let fa = _mm256_permutexvar_epi8(p, k.s);
        let fb = _mm256_permutexvar_epi8(_mm256_srli_epi16::<4>(p), k.s);
        (fa, fb)
    }

    /// F on one word.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn f1(k: &K, a: __m256i) -> __m256i {
        let m = matrix(_mm256_shuffle_epi8(k.s, a));
        _mm256_permutexvar_epi8(k.perm, _mm256_shuffle_epi8(k.s, m))
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn xor(a: __m256i, b: __m256i) -> __m256i {
        _mm256_xor_si256(a, b)
    }

    /// The state update from nine precomputed F values.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn update(s: &mut [__m256i; 9], f: [__m256i; 9], x: [__m256i; 3]) {
        vector::update(|a, b| xor(a, b), s, f, x);
    }

    /// F of the nine state words.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn f9(k: &K, s: &[__m256i; 9]) -> [__m256i; 9] {
        vector::f9(|a, b| f2(k, a, b), |a| f1(k, a), s)
    }

    /// F of the nine state words and the three keystream words, as six pairs.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn f12(k: &K, s: &[__m256i; 9]) -> ([__m256i; 9], [__m256i; 3]) {
        vector::f12(|a, b| f2(k, a, b), |a, b| xor(a, b), s)
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn load_state(k: &K, s: &State) -> [__m256i; 9] {
        core::array::from_fn(|i| spread(k, &s[i]))
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn store_state(k: &K, v: &mut [__m256i; 9], s: &mut State) {
        for (w, x) in s.iter_mut().zip(v.iter_mut()) {
            store16(join(k, *x), w);
            *x = _mm256_setzero_si256();
        }
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn keystream_tf(s: &State) -> [u8; BLOCK_LEN] {
        let k = tables();
        let v = load_state(&k, s);
        let (_, ks) = f12(&k, &v);
        let mut out = [0u8; BLOCK_LEN];
        for (j, w) in ks.iter().enumerate() {
            store16(join(&k, *w), &mut out[16 * j..16 * j + 16]);
        }
        out
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn absorb_tf(s: &mut State, blocks: &[u8]) {
        let k = tables();
        let mut v = load_state(&k, s);
        for b in blocks.chunks_exact(BLOCK_LEN) {
            let x = spread3(&k, b);
            let f = f9(&k, &v);
            update(&mut v, f, x);
        }
        store_state(&k, &mut v, s);
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn absorb_repeated_tf(s: &mut State, x: &[Word; 3], times: usize) {
        let k = tables();
        let mut v = load_state(&k, s);
        let x = [spread(&k, &x[0]), spread(&k, &x[1]), spread(&k, &x[2])];
        for _ in 0..times {
            let f = f9(&k, &v);
            update(&mut v, f, x);
        }
        store_state(&k, &mut v, s);
    }

    /// Encrypts (`ENCRYPT`) or decrypts whole blocks in place.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn crypt_tf<const ENCRYPT: bool>(s: &mut State, blocks: &mut [u8]) {
        let k = tables();
        let mut v = load_state(&k, s);
        for b in blocks.chunks_exact_mut(BLOCK_LEN) {
            let (f, ks) = f12(&k, &v);
            // The output is the input XOR the keystream, made in nibbles
            // and gathered once; the absorbed words are the plaintext's:
            // the input when encrypting, the output when decrypting (then
            // the next block's F waits on no trip to bytes and back).
            let input = spread3(&k, b);
            let output = [
                xor(input[0], ks[0]),
                xor(input[1], ks[1]),
                xor(input[2], ks[2]),
            ];
            let (two, last) = b.split_at_mut(32);
            store32(join2(&k, output[0], output[1]), two);
            store16(gather(&k, output[2]), last);
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
    pub enum Avx512 {}

    impl Avx512 {
        /// Never available off x86-64.
        pub fn detect() -> Option<Avx512> {
            None
        }
    }

    impl Engine for Avx512 {
        fn keystream(self, _: &State) -> [u8; BLOCK_LEN] {
            match self {}
        }

        fn absorb(self, _: &mut State, _: &[u8]) {
            match self {}
        }
    }
}
