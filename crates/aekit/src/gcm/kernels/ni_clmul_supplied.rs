//! `ni-clmul` with a supplied keystream: the consumer side of the
//! keystream pipeline with PCLMULQDQ on 128-bit registers, a whole
//! message's XOR with a supplied keystream and its GHASH in one pass, for
//! the keys whose GHASH is `clmul` (`ni-clmul`, `vaes-avx2`), as
//! `vaes_avx512_supplied.rs` is for `vaes-avx512`. Constant-time.
//! Figures: `docs/kernels/ni_clmul_supplied.md`.
//!
//! # CPU features
//!
//! PCLMULQDQ, SSSE3 and SSE2, proved by the `Clmul` key it takes: no AES
//! instruction runs here.
//!
//! # The math
//!
//! Each 128-byte chunk (eight blocks, eight XMM registers) is loaded once,
//! XORed with its keystream, stored, and hashed from the registers: block
//! j of the eight times H^(8−j) from the key's stored powers, one
//! reduction per chunk (aggregated reduction). What is left after the last
//! whole chunk — the associated data's last blocks when no whole chunk of
//! the message follows them, the message's last 0…127 bytes, the lengths
//! block — is summed the same way by the [`Folder`] of `kernels/mod.rs`
//! over [`Xmm`], in as few sums of at most eight as the powers allow. A
//! partial last block is padded with zeros in a 16-byte buffer on the
//! stack (SSE has no masked loads).
//!
//! # Constant-time
//!
//! PCLMULQDQ and the XORs do not depend on their operands, the branches
//! depend on lengths only, nothing is indexed by the data.
//!
//! # Citations
//!
//! D. McGrew, J. Viega, *The Galois/Counter Mode of Operation* (§2.3);
//! S. Gueron, M. Kounavis, *Intel Carry-Less Multiplication Instruction
//! and its Usage for Computing the GCM Mode* (aggregated reduction).

use core::arch::x86_64::{
    __m128i, _mm_loadu_si128, _mm_set_epi64x, _mm_setzero_si128, _mm_shuffle_epi8,
    _mm_storeu_si128, _mm_xor_si128,
};

use super::shared::{Folder, Width};
use crate::aes::Block;
use crate::gcm::kernel::Direction;
use crate::ghash::clmul::{Clmul, Wide, byte_reverse_mask, mul_wide, reduce, store, to_m128};

/// GCM over `data` in place with `keystream` (E(K, Y_0), then at
/// least `data.len()` bytes of E(K, Y_1), …), associated data `aad`;
/// returns the full tag. The lengths have been checked by the caller.
pub(crate) fn crypt(
    key: &Clmul,
    keystream: &[u8],
    aad: &[u8],
    data: &mut [u8],
    direction: Direction,
) -> Block {
    assert!(keystream.len() >= 16 + data.len(), "keystream too short");
    let encrypt = direction == Direction::Encrypt;
    // SAFETY: `key` exists, so PCLMULQDQ, SSSE3 and SSE2 were
    // detected; the keystream covers the data (asserted above).
    unsafe { whole(key.powers(), keystream, aad, data, encrypt) }
}

/// The key's H^1 … H^8 on XMM registers, for [`Folder`].
#[derive(Clone, Copy)]
struct Xmm<'a>(&'a [__m128i; 8]);

// SAFETY: an `Xmm` is made only in `whole`, which requires PCLMULQDQ,
// SSSE3 and SSE2.
unsafe impl Width for Xmm<'_> {
    type Vector = __m128i;
    type Wide = Wide;
    const POWERS: usize = 8;
    const BYTES: usize = 16;

    #[inline]
    #[target_feature(enable = "sse2")]
    unsafe fn zero() -> Wide {
        Wide::zero()
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    unsafe fn join(x: __m128i, acc: __m128i) -> __m128i {
        _mm_xor_si128(x, acc)
    }

    /// One block: entry `at` is H^(8 − at), `h[7 − at]` (`h` holds H^1
    /// first).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    unsafe fn product(self, sum: Wide, x: __m128i, at: usize, _blocks: usize) -> Wide {
        sum.xor(mul_wide(x, self.0[7usize.wrapping_sub(at) & 7]))
    }

    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    unsafe fn reduce(sum: Wide) -> __m128i {
        reduce(sum)
    }

    /// One block, through a zero-padded buffer on the stack (SSE has no
    /// masked loads).
    #[inline]
    #[target_feature(enable = "ssse3,sse2")]
    unsafe fn load(bytes: &[u8]) -> (__m128i, usize) {
        let mut padded = [0u8; 16];
        padded[..bytes.len()].copy_from_slice(bytes);
        (reflect(load(&padded)), 1)
    }
}

/// # Safety
/// The CPU must support PCLMULQDQ, SSSE3 and SSE2; `keystream` is at
/// least `16 + data.len()` bytes.
#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
unsafe fn whole(
    powers: &[u128; 8],
    keystream: &[u8],
    aad: &[u8],
    data: &mut [u8],
    encrypt: bool,
) -> Block {
    let h: [__m128i; 8] = core::array::from_fn(|k| to_m128(powers[k]));
    let mut acc = _mm_setzero_si128();
    let (tag_mask, stream) = keystream.split_at(16);
    let (body, rest) = data.split_at_mut(data.len() / 128 * 128);
    let ks_rest = &stream[body.len()..];

    // The associated data: whole chunks, then its rest, which waits
    // for the last sums when no whole chunk of the message follows.
    let aad_chunks = aad.chunks_exact(128);
    let aad_rest = aad_chunks.remainder();
    for chunk in aad_chunks {
        acc = eight(&h, acc, &core::array::from_fn(|j| load(&chunk[16 * j..])));
    }
    let held = if body.is_empty() { aad_rest } else { &[] };
    if !body.is_empty() && !aad_rest.is_empty() {
        let mut folder = Folder::new(Xmm(&h), acc, [aad_rest.len().div_ceil(16), 0, 0]);
        folder.add_bytes(aad_rest);
        acc = folder.acc;
    }

    // The message's whole chunks: XOR, store, hash the ciphertext.
    for (chunk, ks) in body.chunks_exact_mut(128).zip(stream.chunks_exact(128)) {
        let d: [__m128i; 8] = core::array::from_fn(|j| load(&chunk[16 * j..]));
        let c = core::array::from_fn(|j| _mm_xor_si128(d[j], load(&ks[16 * j..])));
        for (block, x) in chunk.chunks_exact_mut(16).zip(&c) {
            // SAFETY: `block` is 16 writable bytes; no alignment needed.
            unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), *x) };
        }
        acc = eight(&h, acc, if encrypt { &c } else { &d });
    }

    // The last blocks: the held associated data, the message's last
    // 0…127 bytes (a partial block through a zero-padded buffer), the
    // lengths block.
    let groups = [held.len().div_ceil(16), rest.len().div_ceil(16), 1];
    let mut folder = Folder::new(Xmm(&h), acc, groups);
    folder.add_bytes(held);
    let whole_blocks = rest.len() / 16 * 16;
    let (blocks, last) = rest.split_at_mut(whole_blocks);
    for (block, k) in blocks.chunks_exact_mut(16).zip(ks_rest.chunks_exact(16)) {
        let d = load(block);
        let c = _mm_xor_si128(d, load(k));
        // SAFETY: `block` is 16 writable bytes; no alignment needed.
        unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), c) };
        folder.add(reflect(if encrypt { c } else { d }), 1);
    }
    if !last.is_empty() {
        let n = last.len();
        let (mut d, mut ks) = ([0u8; 16], [0u8; 16]);
        d[..n].copy_from_slice(last);
        ks[..n].copy_from_slice(&ks_rest[whole_blocks..whole_blocks + n]);
        let d = load(&d);
        let c = _mm_xor_si128(d, load(&ks));
        let mut out = [0u8; 16];
        // SAFETY: `out` is 16 writable bytes; no alignment needed.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), c) };
        last.copy_from_slice(&out[..n]);
        folder.add(reflect(if encrypt { c } else { d }), 1);
    }
    // len(A) ‖ len(C) in bits, as the integer of the spec-order block.
    let bits = |n: usize| (n as u64).wrapping_mul(8) as i64;
    folder.add(_mm_set_epi64x(bits(aad.len()), bits(data.len())), 1);

    let mut tag = [0u8; 16];
    store(&mut tag, folder.acc);
    let mask = u128::from_ne_bytes(tag) ^ u128::from_ne_bytes(*first16(tag_mask));
    mask.to_ne_bytes()
}

/// Eight blocks (spec byte order) folded into `acc`: (Y ⊕ X1)·H^8 ⊕
/// X2·H^7 ⊕ … ⊕ X8·H, one reduction, as `clmul`'s aggregated update.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
fn eight(h: &[__m128i; 8], acc: __m128i, x: &[__m128i; 8]) -> __m128i {
    let mut sum = mul_wide(_mm_xor_si128(acc, reflect(x[0])), h[7]);
    for j in 1..8 {
        sum = sum.xor(mul_wide(reflect(x[j]), h[7 - j]));
    }
    reduce(sum)
}

/// A block's 16 bytes, unchanged (spec byte order).
#[inline]
#[target_feature(enable = "sse2")]
fn load(block: &[u8]) -> __m128i {
    let block: &[u8; 16] = first16(block);
    // SAFETY: `block` is 16 readable bytes; MOVDQU needs no alignment.
    unsafe { _mm_loadu_si128(block.as_ptr().cast()) }
}

/// Spec byte order → the integer GHASH multiplies.
#[inline]
#[target_feature(enable = "ssse3,sse2")]
fn reflect(x: __m128i) -> __m128i {
    _mm_shuffle_epi8(x, byte_reverse_mask())
}

/// The first 16 bytes of a slice of at least 16.
#[inline(always)]
fn first16(b: &[u8]) -> &[u8; 16] {
    b.first_chunk().expect("a 16-byte block")
}
