//! AES-GCM handles and the one-shot calls (`aekit::AesGcm`), with the
//! 16-byte tags every caller should use: the ciphertext is followed by its
//! tag, as in libsodium's and `cryptography`'s AEAD interfaces.

use core::ffi::c_int;
use std::sync::Arc;

use crate::{
    Status, free_shared, guard, input, overlap, slice, slice_mut, status, store, unusable,
};

/// Bytes of tag after each ciphertext.
pub const AEKIT_AES_GCM_TAG_LEN: usize = 16;

/// An AES-GCM key, expanded for the fastest implementation this CPU runs.
/// Opaque to C; made by `aekit_aes_gcm_new`, freed by `aekit_aes_gcm_free`.
//
// The handle is an `Arc<AesGcm>` turned into a pointer: the streams
// started under a key hold a count of their own, and may outlive the
// handle. A call reaches the key through the handle itself, with no
// pointer in between (rejected: a box holding an `Arc`, one more
// dependent load before the round keys of every call).
pub struct AesGcm {
    pub(crate) gcm: aekit::AesGcm,
}

impl AesGcm {
    /// A new count of the key behind a live handle, for a stream.
    ///
    /// # Safety
    ///
    /// `handle` is a live handle from `aekit_aes_gcm_new`.
    pub(crate) unsafe fn share(handle: &AesGcm) -> Arc<AesGcm> {
        let ptr: *const AesGcm = handle;
        // SAFETY: a live handle is an `Arc::into_raw` pointer whose count
        // the handle holds; the new count is the returned `Arc`'s.
        unsafe {
            Arc::increment_strong_count(ptr);
            Arc::from_raw(ptr)
        }
    }
}

/// One message's direction, for the shared one-shot body.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Encrypt,
    Decrypt,
}

/// Makes an AES-GCM key handle from `key_len` (16, 24 or 32) bytes of key
/// and stores it in `*out` (NULL on failure). Free it with
/// `aekit_aes_gcm_free` (the key is wiped once it and the streams started
/// under it are freed).
///
/// # Safety
///
/// `key` points to `key_len` readable bytes; `out` to a writable pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_new(
    key: *const u8,
    key_len: usize,
    out: *mut *mut AesGcm,
) -> c_int {
    guard(|| {
        // SAFETY: by this function's contract.
        unsafe { store(out, core::ptr::null_mut())? };
        // SAFETY: by this function's contract.
        let key = unsafe { input(key, key_len)? };
        let gcm = aekit::AesGcm::new(key)?;
        let shared = Arc::into_raw(Arc::new(AesGcm { gcm })).cast_mut();
        // SAFETY: by this function's contract.
        unsafe { store(out, shared) }
    })
}

/// Frees a key handle (NULL is ignored). Streams started under it stay
/// usable until they are freed; the key is wiped when the handle and every
/// such stream are.
///
/// # Safety
///
/// `gcm` is NULL or a handle from `aekit_aes_gcm_new`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_free(gcm: *mut AesGcm) {
    // SAFETY: by this function's contract; `aekit_aes_gcm_new` makes the
    // handle with `Arc::into_raw`.
    unsafe { free_shared(gcm) }
}

/// Encrypts `plaintext_len` bytes and writes ciphertext ‖ 16-byte tag
/// (`plaintext_len + 16` bytes) to `out`, which holds `out_cap` bytes; the
/// length written goes to `*out_len`. The nonce may have any length of at
/// least one byte (12 is the fast and recommended one) and must never
/// repeat under one key. `out` may be `plaintext` itself (in place) but
/// must not otherwise overlap it.
///
/// # Safety
///
/// Each pointer points to as many readable (inputs) or writable (`out`,
/// `out_len`) bytes as its length says; `gcm` is a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_encrypt(
    gcm: *const AesGcm,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    plaintext: *const u8,
    plaintext_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: by this function's contract.
    status(unsafe {
        one_shot(
            Direction::Encrypt,
            gcm,
            (nonce, nonce_len),
            (aad, aad_len),
            (plaintext, plaintext_len),
            (out, out_cap),
            out_len,
        )
    })
}

/// Verifies and decrypts ciphertext ‖ 16-byte tag (`ciphertext_len`
/// bytes in all) and writes the plaintext (`ciphertext_len - 16` bytes) to
/// `out`; the length goes to `*out_len`. On `AEKIT_AUTHENTICATION_FAILED`
/// the output is zeroed: no unverified plaintext is released. `out` may be
/// `ciphertext` itself but must not otherwise overlap it.
///
/// # Safety
///
/// As for `aekit_aes_gcm_encrypt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_decrypt(
    gcm: *const AesGcm,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    ciphertext: *const u8,
    ciphertext_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: by this function's contract.
    status(unsafe {
        one_shot(
            Direction::Decrypt,
            gcm,
            (nonce, nonce_len),
            (aad, aad_len),
            (ciphertext, ciphertext_len),
            (out, out_cap),
            out_len,
        )
    })
}

/// What a one-shot call asks of an algorithm: 16-byte tags, in place or
/// from an input into `out` (as long, disjoint), the tag written into
/// the slot after the output. The defaults copy and run in place; an
/// algorithm with a one-pass call overrides them. (The tag goes straight
/// into its slot: returned as `Result<[u8; 16], _>`, an array one byte
/// off alignment, it would be taken apart and put together again in
/// pieces.)
pub(crate) trait OneShot {
    fn seal(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8; 16],
    ) -> Result<(), Status>;
    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Status>;

    fn seal_from(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [u8],
        tag: &mut [u8; 16],
    ) -> Result<(), Status> {
        out.copy_from_slice(input);
        self.seal(nonce, aad, out, tag)
    }

    fn open_from(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Status> {
        out.copy_from_slice(input);
        self.open(nonce, aad, out, tag)
    }
}

impl OneShot for AesGcm {
    #[inline(always)]
    fn seal(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8; 16],
    ) -> Result<(), Status> {
        self.gcm
            .encrypt_in_place_detached(nonce, aad, buf, AEKIT_AES_GCM_TAG_LEN)?
            .copy_to(tag);
        Ok(())
    }

    #[inline(always)]
    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Status> {
        Ok(self.gcm.decrypt_in_place_detached(nonce, aad, buf, tag)?)
    }

    /// One pass over memory (`AesGcm::encrypt_detached_into`): copying
    /// first made a 1 MiB call out of place about half as fast again.
    #[inline(always)]
    fn seal_from(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [u8],
        tag: &mut [u8; 16],
    ) -> Result<(), Status> {
        self.gcm
            .encrypt_detached_into(nonce, aad, input, out, AEKIT_AES_GCM_TAG_LEN)?
            .copy_to(tag);
        Ok(())
    }

    #[inline(always)]
    fn open_from(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Status> {
        Ok(self
            .gcm
            .decrypt_detached_into(nonce, aad, input, out, tag)?)
    }
}

/// The body of every one-shot call, both algorithms and both directions:
/// checks the handle, the pointers and the room, runs `key` in place in
/// `out` or from the input into it, writes `*out_len`.
///
/// Every check is one comparison folded into a single flag, and a call
/// that passes them all goes straight to the computation; any other call
/// takes [`refuse`], out of line, which checks again one by one and names
/// the first that fails. Rejected: the checks one by one, with an early
/// return each, on every call (their order, the status codes', is only
/// needed to report a failure).
///
/// # Safety
///
/// As for `aekit_aes_gcm_encrypt`: each (pointer, length) pair describes
/// readable input or, for `out`, writable memory; `key` is NULL or live.
#[inline(always)]
pub(crate) unsafe fn one_shot<K: OneShot>(
    direction: Direction,
    key: *const K,
    (nonce, nonce_len): (*const u8, usize),
    (aad, aad_len): (*const u8, usize),
    (text, text_len): (*const u8, usize),
    (out, out_cap): (*mut u8, usize),
    out_len: *mut usize,
) -> Result<(), Status> {
    const TAG: usize = AEKIT_AES_GCM_TAG_LEN;
    // Conservative: a call this refuses may still be valid (an empty
    // range that starts inside `out`, a NULL pointer with length 0), and
    // [`refuse`] then computes it. Lengths of at most `isize::MAX` keep
    // `text_len + TAG` from wrapping; an encryption's output holds at
    // least a tag, so `out` cannot be NULL; nor can a valid nonce, at
    // least a byte long.
    let result_len = match direction {
        Direction::Encrypt => text_len.wrapping_add(TAG),
        Direction::Decrypt => text_len.wrapping_sub(TAG),
    };
    let in_place = core::ptr::eq(text, out.cast_const());
    let (n, a, t, o) = (nonce as usize, aad as usize, text as usize, out as usize);
    let refused = ((key as usize).min(out_len as usize).min(n).min(t).min(o) == 0)
        | ((nonce_len | aad_len | text_len | out_cap) > isize::MAX as usize)
        | ((a == 0) & (aad_len != 0))
        | ((direction == Direction::Decrypt) & (text_len < TAG))
        | (out_cap < result_len)
        | (n.wrapping_sub(o) < out_cap)
        | (o.wrapping_sub(n) < nonce_len)
        | (a.wrapping_sub(o) < out_cap)
        | (o.wrapping_sub(a) < aad_len)
        | (!in_place & ((t.wrapping_sub(o) < out_cap) | (o.wrapping_sub(t) < text_len)));
    if refused {
        // SAFETY: by this function's contract.
        return unsafe {
            refuse(
                direction,
                key,
                (nonce, nonce_len),
                (aad, aad_len),
                (text, text_len),
                (out, out_cap),
                out_len,
            )
        };
    }
    // SAFETY: every check passed: a live handle (by contract, and not
    // NULL); the nonce, the text and `out` not NULL, the AAD not NULL
    // unless empty (`slice`), no length past `isize::MAX`; `out` overlaps
    // no input unless it is the text itself, which is then not borrowed.
    let computed = unsafe {
        compute(
            direction,
            &*key,
            core::slice::from_raw_parts(nonce, nonce_len),
            slice(aad, aad_len),
            (!in_place).then(|| core::slice::from_raw_parts(text, text_len)),
            core::slice::from_raw_parts_mut(out, out_cap),
            (text, text_len, result_len),
        )
    };
    // SAFETY: not NULL (checked above) and writable by contract.
    unsafe { out_len.write(if computed.is_ok() { result_len } else { 0 }) };
    computed
}

/// [`one_shot`] for a call its single flag refused: the checks one by
/// one, in the order of their status codes, so that the first that fails
/// names the status. The flag is conservative (a NULL text with length
/// 0, an empty range that starts inside `out`), so a call that passes
/// every check here is computed as usual.
///
/// # Safety
///
/// As for [`one_shot`].
#[cold]
#[inline(never)]
unsafe fn refuse<K: OneShot>(
    direction: Direction,
    key: *const K,
    (nonce, nonce_len): (*const u8, usize),
    (aad, aad_len): (*const u8, usize),
    (text, text_len): (*const u8, usize),
    (out, out_cap): (*mut u8, usize),
    out_len: *mut usize,
) -> Result<(), Status> {
    const TAG: usize = AEKIT_AES_GCM_TAG_LEN;
    // SAFETY: by this function's contract.
    unsafe { store(out_len, 0)? };
    if key.is_null() | unusable(nonce, nonce_len) | unusable(aad, aad_len) {
        return Err(Status::InvalidArgument);
    }
    let result_len = match direction {
        Direction::Encrypt => text_len.checked_add(TAG).ok_or(Status::TooLong)?,
        Direction::Decrypt => text_len
            .checked_sub(TAG)
            .ok_or(Status::AuthenticationFailed)?,
    };
    if out_cap < result_len {
        // SAFETY: by this function's contract.
        unsafe { store(out_len, result_len)? };
        return Err(Status::BufferTooSmall);
    }
    let in_place = core::ptr::eq(text, out.cast_const());
    let clashes = overlap(nonce, nonce_len, out, out_cap)
        | overlap(aad, aad_len, out, out_cap)
        | (!in_place & overlap(text, text_len, out, out_cap));
    if clashes | unusable(text, text_len) | unusable(out, out_cap) {
        return Err(Status::InvalidArgument);
    }
    // SAFETY: every check passed: a live handle (by contract, and not
    // NULL), each pointer non-NULL or its length 0, no length past
    // `isize::MAX`; `out` overlaps no input unless it is the text itself,
    // which is then not borrowed.
    unsafe {
        compute(
            direction,
            &*key,
            slice(nonce, nonce_len),
            slice(aad, aad_len),
            (!in_place).then(|| slice(text, text_len)),
            slice_mut(out, out_cap),
            (text, text_len, result_len),
        )
    }?;
    // SAFETY: by this function's contract.
    unsafe { store(out_len, result_len) }
}

/// The computation of a one-shot call whose checks passed: `key` run in
/// place in `out` (`text` `None`) or from `text` into it, `result_len`
/// bytes written. No `catch_unwind` frame: nothing here is expected to
/// panic on a call whose checks passed (the slicing is in bounds by
/// them), and were it to (a bug), the panic would abort the process, as
/// one leaving an `extern "C"` function does, rather than unwind into
/// C. (Rejected: the computation under `catch_unwind`, as in
/// [`crate::guard`], returning `AEKIT_PANIC` as the other functions do:
/// its frame took the call's arguments through memory;
/// `docs/BENCHMARKS.md`, "AMD Zen 4".)
///
/// # Safety
///
/// Every check of [`one_shot`] passed: `result_len` is `text_len` plus a
/// tag (encryption) or less one (decryption), without wrapping, and at
/// most `out.len()`; `text`, when given, is the `text_len` bytes at
/// `text_at`, which in place is `out`'s address.
#[inline(always)]
unsafe fn compute<K: OneShot>(
    direction: Direction,
    key: &K,
    nonce: &[u8],
    aad: &[u8],
    text: Option<&[u8]>,
    out: &mut [u8],
    (text_at, text_len, result_len): (*const u8, usize, usize),
) -> Result<(), Status> {
    const TAG: usize = AEKIT_AES_GCM_TAG_LEN;
    match direction {
        Direction::Encrypt => {
            // SAFETY: `out` holds `text_len + TAG` bytes, by the checks.
            let (body, slot) = unsafe {
                let (body, rest) = out.split_at_mut_unchecked(text_len);
                (body, &mut *rest.as_mut_ptr().cast::<[u8; TAG]>())
            };
            let sealed = match text {
                Some(text) => key.seal_from(nonce, aad, text, &mut *body, slot),
                None => key.seal(nonce, aad, body, slot),
            };
            if let Err(e) = sealed {
                // Nothing was encrypted. In place the body is the
                // caller's plaintext, refused untouched (every check
                // comes before any byte is computed); out of place it
                // may hold a copy of it (`OneShot::seal_from`'s default),
                // which must not be left where ciphertext was expected.
                if text.is_some() {
                    body.fill(0);
                }
                return Err(e);
            }
        }
        Direction::Decrypt => {
            // The received tag, copied out before the body is borrowed
            // mutably (in place, the text and `out` are the same bytes).
            // SAFETY: the text holds `result_len + TAG` readable bytes at
            // `text_at` (not NULL: it has at least a tag), by the checks.
            let tag: [u8; TAG] =
                unsafe { text_at.add(result_len).cast::<[u8; TAG]>().read_unaligned() };
            // SAFETY: `out` holds at least `result_len` bytes, and the
            // text `result_len + TAG`, by the checks.
            let (body, text) = unsafe {
                (
                    out.get_unchecked_mut(..result_len),
                    text.map(|text| text.get_unchecked(..result_len)),
                )
            };
            // On failure aekit has zeroed the body: no unverified
            // plaintext.
            match text {
                Some(text) => key.open_from(nonce, aad, text, body, &tag)?,
                None => key.open(nonce, aad, body, &tag)?,
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*), for the argument
    /// sets below.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
        }
    }

    /// A (pointer, length) pair inside `region`, or NULL: NULL with no
    /// bytes, NULL with some (refused), or `len` bytes at an offset.
    fn pick(rng: &mut Rng, region: *mut u8, size: usize, lens: &[usize]) -> (*mut u8, usize) {
        let len = lens[rng.below(lens.len())];
        match rng.below(8) {
            0 => (core::ptr::null_mut(), 0),
            1 => (core::ptr::null_mut(), len),
            _ if len > size => (core::ptr::null_mut(), 0),
            // SAFETY: the offset leaves `len` bytes inside `region`.
            _ => (unsafe { region.add(rng.below(size - len + 1)) }, len),
        }
    }

    /// The one-shot call's fast checks agree with the full ones
    /// ([`refuse`], which computes a call that passes them): the same
    /// status, the same `*out_len` and the same bytes, for arguments that
    /// are NULL or not, overlap or touch or not, in place or not, with
    /// room to spare, exactly enough or one byte short, in both
    /// directions.
    #[test]
    fn fast_checks_agree_with_the_full_ones() {
        const SIZE: usize = 192;
        let gcm = AesGcm {
            gcm: aekit::AesGcm::new(&[7u8; 16]).unwrap(),
        };
        let seed: Vec<u8> = (0..SIZE as u32).map(|i| (i * 37 + 11) as u8).collect();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut computed, mut refused) = (0, 0);
        for _ in 0..200_000 {
            let mut fast = seed.clone();
            let mut full = seed.clone();
            let direction = if rng.below(2) == 0 {
                Direction::Encrypt
            } else {
                Direction::Decrypt
            };
            // Every pair is drawn in `fast`'s region, and replayed at the
            // same offsets in `full`'s.
            let base = fast.as_mut_ptr();
            let (nonce, nonce_len) = pick(&mut rng, base, SIZE, &[0, 1, 12, 16]);
            let (aad, aad_len) = pick(&mut rng, base, SIZE, &[0, 1, 16, 33]);
            let (text, text_len) = pick(&mut rng, base, SIZE, &[0, 1, 15, 16, 17, 40, 64]);
            let want = match direction {
                Direction::Encrypt => text_len + 16,
                Direction::Decrypt => text_len.saturating_sub(16),
            };
            let cap = [want.saturating_sub(1), want, want + 5, text_len][rng.below(4)];
            let (out, out_cap) = if !text.is_null() && rng.below(3) == 0 {
                // In place, with as much room as the region has.
                let room = SIZE - (text as usize - base as usize);
                (text, cap.min(room))
            } else {
                pick(&mut rng, base, SIZE, &[cap])
            };
            let key: *const AesGcm = if rng.below(50) == 0 {
                core::ptr::null()
            } else {
                &gcm
            };
            let len_null = rng.below(50) == 0;
            let moved = |p: *mut u8, to: &mut Vec<u8>| {
                if p.is_null() {
                    p
                } else {
                    // SAFETY: `p` lies inside `fast`, as long as `to`.
                    unsafe { to.as_mut_ptr().add(p as usize - base as usize) }
                }
            };
            let (mut fast_len, mut full_len) = (usize::MAX, usize::MAX);
            let fast_len_ptr: *mut usize = if len_null {
                core::ptr::null_mut()
            } else {
                &mut fast_len
            };
            let full_len_ptr: *mut usize = if len_null {
                core::ptr::null_mut()
            } else {
                &mut full_len
            };
            // SAFETY: every non-NULL pair lies inside its region; the
            // refused NULL pairs are never read.
            let fast_status = status(unsafe {
                one_shot(
                    direction,
                    key,
                    (nonce, nonce_len),
                    (aad, aad_len),
                    (text, text_len),
                    (out, out_cap),
                    fast_len_ptr,
                )
            });
            let (nonce, aad, text, out) = (
                moved(nonce, &mut full),
                moved(aad, &mut full),
                moved(text, &mut full),
                moved(out, &mut full),
            );
            // SAFETY: as above, in `full`'s region.
            let full_status = status(unsafe {
                refuse(
                    direction,
                    key,
                    (nonce, nonce_len),
                    (aad, aad_len),
                    (text, text_len),
                    (out, out_cap),
                    full_len_ptr,
                )
            });
            assert_eq!(fast_status, full_status);
            assert_eq!(fast_len, full_len);
            assert_eq!(fast, full);
            if fast_status == Status::Ok as c_int {
                computed += 1;
            } else {
                refused += 1;
            }
        }
        // Both kinds of call were drawn many times.
        assert!(computed > 5_000 && refused > 5_000, "{computed} {refused}");
    }
}
