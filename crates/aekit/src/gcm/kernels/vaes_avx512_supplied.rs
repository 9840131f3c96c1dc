//! `vaes-avx512` with a supplied keystream: the consumer side of the
//! keystream pipeline with VPCLMULQDQ on 512-bit registers, a whole
//! message's XOR with a supplied keystream and its GHASH in one pass
//! (`Kernel::crypt_supplied`, behind `AesGcm::encrypt_with_keystream`).
//! Constant-time. Figures: `docs/kernels/vaes_avx512_supplied.md`.
//!
//! # CPU features
//!
//! AVX-512F/BW/VL and VPCLMULQDQ, proved by the `Vclmul` key it takes: no
//! AES instruction runs here.
//!
//! # Why a kernel of its own
//!
//! With the keystream computed elsewhere (a spare core, a GPU: `esp`,
//! `keystream`), what is left of GCM is `C = P ⊕ E(K, Y_i)` and GHASH over
//! the ciphertext. The general path (`State`) does them as two passes —
//! XOR, then GHASH through its block buffer — and reduces the associated
//! data, the message and the lengths block separately. Here each 256-byte
//! chunk is loaded once (four registers), XORed, stored and hashed while
//! in registers (sixteen blocks per reduction, `vclmul::sixteen`), and
//! what is left after the last whole chunk is summed with one power each
//! and reduced once.
//!
//! # The hashed sequence
//!
//! GHASH runs over A ‖ 0^v ‖ C ‖ 0^u ‖ [len(A)]_64 ‖ [len(C)]_64 (spec
//! §2.3). The zero padding comes free: the last partial vectors are read
//! with byte masks that zero the bytes past the end. The last ≤ 16 blocks
//! are "groups" (the associated data's rest, the message's rest, the
//! lengths block), summed by the [`Folder`] of `kernels/mod.rs` over
//! [`Zmm`]: block j of the T blocks left multiplied by H^(T−j), read from
//! the stored powers at entry 16 − T + j with a lane mask, as `vclmul`'s
//! tail.
//!
//! # Constant-time
//!
//! VPCLMULQDQ and the XORs do not depend on their operands, the branches
//! and masks depend on lengths only, nothing is indexed by the data.
//!
//! # Citations
//!
//! D. McGrew, J. Viega, *The Galois/Counter Mode of Operation* (§2.3: GCTR
//! and GHASH; §4: the keystream is independent of the data, the basis of
//! precomputation); the aggregated reduction as in `vclmul`.
//!
//! # Rejected
//!
//! - A trait object for "where the keystream comes from" inside `State`:
//!   a dynamic call per pass on the fast path.

use core::arch::x86_64::{
    __m128i, __m512i, _mm_set_epi64x, _mm_setzero_si128, _mm_xor_si128, _mm512_loadu_si512,
    _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8, _mm512_shuffle_epi8, _mm512_storeu_si512,
    _mm512_xor_si512, _mm512_zextsi128_si512,
};

use super::shared::{Folder, Width};
use crate::aes::Block;
use crate::gcm::kernel::Direction;
use crate::ghash::vclmul::{
    Powers, Vclmul, Wide, bswap_mask, byte_mask, lane_mask, load_acc, mul_wide, reduce_to_128,
    sixteen, store_acc,
};

/// GCM over `data` in place with `keystream` (E(K, Y_0), then at
/// least `data.len()` bytes of E(K, Y_1), …), associated data `aad`;
/// returns the full tag. The lengths have been checked by the caller.
pub(crate) fn crypt(
    key: &Vclmul,
    keystream: &[u8],
    aad: &[u8],
    data: &mut [u8],
    direction: Direction,
) -> Block {
    assert!(keystream.len() >= 16 + data.len(), "keystream too short");
    let encrypt = direction == Direction::Encrypt;
    // SAFETY: `key` exists, so AVX-512F/BW/VL and VPCLMULQDQ were
    // detected; the keystream covers the data (asserted above).
    unsafe { whole(key.powers(), keystream, aad, data, encrypt) }
}

/// The key's H^16 … H^1 on ZMM registers, for [`Folder`].
#[derive(Clone, Copy)]
struct Zmm<'a>(&'a Powers);

// SAFETY: a `Zmm` is made only in `whole`, which requires AVX-512F/BW/VL
// and VPCLMULQDQ.
unsafe impl Width for Zmm<'_> {
    type Vector = __m512i;
    type Wide = Wide;
    const POWERS: usize = 16;
    const BYTES: usize = 64;

    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn zero() -> Wide {
        Wide::zero()
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn join(x: __m512i, acc: __m128i) -> __m512i {
        _mm512_xor_si512(x, _mm512_zextsi128_si512(acc))
    }

    /// Up to four blocks, their powers read with a lane mask (the lanes
    /// past them zero).
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    unsafe fn product(self, sum: Wide, x: __m512i, at: usize, blocks: usize) -> Wide {
        // SAFETY: the entries `at` … `at` + `blocks` − 1 are in the
        // table (the caller's contract).
        let p = unsafe { self.0.load_from(at, lane_mask(blocks)) };
        sum.xor(mul_wide(x, p))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,vpclmulqdq")]
    unsafe fn reduce(sum: Wide) -> __m128i {
        reduce_to_128(sum)
    }

    /// Up to four blocks, read with a byte mask (masked-off bytes are not
    /// accessed and read as zero).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn load(bytes: &[u8]) -> (__m512i, usize) {
        // SAFETY: the mask selects the bytes of `bytes` and no others.
        let v = unsafe { _mm512_maskz_loadu_epi8(byte_mask(bytes.len()), bytes.as_ptr().cast()) };
        (
            _mm512_shuffle_epi8(v, bswap_mask()),
            bytes.len().div_ceil(16),
        )
    }
}

/// # Safety
/// The CPU must support AVX-512F/BW/VL and VPCLMULQDQ; `keystream` is
/// at least `16 + data.len()` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
unsafe fn whole(
    powers: &Powers,
    keystream: &[u8],
    aad: &[u8],
    data: &mut [u8],
    encrypt: bool,
) -> Block {
    let h = powers.load4();
    let mut acc = _mm_setzero_si128();
    let (tag_mask, stream) = keystream.split_at(16);
    let whole_chunks = data.len() / 256;
    let (body, rest) = data.split_at_mut(whole_chunks * 256);
    let ks_rest = &stream[body.len()..];

    // The associated data: whole chunks, then its rest, which waits
    // for the last sums when no whole chunk of the message comes
    // between.
    let aad_chunks = aad.chunks_exact(256);
    let aad_rest = aad_chunks.remainder();
    for chunk in aad_chunks {
        // SAFETY: `chunk` is 256 readable bytes.
        acc = sixteen(&h, &unsafe { load4(chunk.as_ptr()) }, acc);
    }
    let held = if body.is_empty() { aad_rest } else { &[] };
    if !body.is_empty() && !aad_rest.is_empty() {
        let mut folder = Folder::new(Zmm(powers), acc, [aad_rest.len().div_ceil(16), 0, 0]);
        folder.add_bytes(aad_rest);
        acc = folder.acc;
    }

    // The message's whole chunks: XOR, store, hash the ciphertext.
    for (chunk, ks) in body.chunks_exact_mut(256).zip(stream.chunks_exact(256)) {
        // SAFETY: `chunk` and `ks` are 256 bytes each, `chunk`
        // writable; the loads and stores need no alignment.
        unsafe {
            let d = load4(chunk.as_ptr());
            let k = load4(ks.as_ptr());
            let c = core::array::from_fn(|j| _mm512_xor_si512(d[j], k[j]));
            for (j, x) in c.iter().enumerate() {
                _mm512_storeu_si512(chunk.as_mut_ptr().add(64 * j).cast(), *x);
            }
            acc = sixteen(&h, if encrypt { &c } else { &d }, acc);
        }
    }

    // The last blocks: the held associated data, the message's last
    // 0…255 bytes through byte masks, the lengths block.
    let groups = [held.len().div_ceil(16), rest.len().div_ceil(16), 1];
    let mut folder = Folder::new(Zmm(powers), acc, groups);
    folder.add_bytes(held);
    let n = rest.len();
    for j in 0..n.div_ceil(64) {
        let mask = byte_mask((n - 64 * j).min(64));
        // SAFETY: the mask selects bytes 64j.. of `rest` (and of
        // `ks_rest`, at least as long) and no byte past their ends;
        // masked-off bytes are not accessed.
        unsafe {
            let d = _mm512_maskz_loadu_epi8(mask, rest.as_ptr().add(64 * j).cast());
            let k = _mm512_maskz_loadu_epi8(mask, ks_rest.as_ptr().add(64 * j).cast());
            let c = _mm512_xor_si512(d, k);
            _mm512_mask_storeu_epi8(rest.as_mut_ptr().add(64 * j).cast(), mask, c);
            let x = _mm512_shuffle_epi8(if encrypt { c } else { d }, bswap_mask());
            folder.add(x, (n - 64 * j).min(64).div_ceil(16));
        }
    }
    // len(A) ‖ len(C) in bits, big-endian.
    let bits = |n: usize| (n as u64).wrapping_mul(8).swap_bytes() as i64;
    let lengths = _mm_set_epi64x(bits(body.len() + n), bits(aad.len()));
    folder.add(
        _mm512_shuffle_epi8(_mm512_zextsi128_si512(lengths), bswap_mask()),
        1,
    );

    let mut tag = [0u8; 16];
    // `store_acc` byte-reflects the sum back; E(K, Y_0) reflected by
    // `load_acc` the same way, so the XOR commutes with it.
    store_acc(&mut tag, _mm_xor_si128(folder.acc, load_acc(tag_mask)));
    tag
}

/// Four 64-byte vectors from `p`.
///
/// # Safety
/// `p` must be valid for reading 256 bytes.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load4(p: *const u8) -> [__m512i; 4] {
    // SAFETY: per the contract; the loads need no alignment.
    core::array::from_fn(|j| unsafe { _mm512_loadu_si512(p.add(64 * j).cast()) })
}
