//! AES-GCM handles and the one-shot calls (`aekit::AesGcm`), with the
//! 16-byte tags every caller should use: the ciphertext is followed by its
//! tag, as in libsodium's and `cryptography`'s AEAD interfaces.

use core::ffi::c_int;
use std::sync::Arc;

use crate::{
    Status, free, guard, guarded, input, overlap, slice, slice_mut, status, store, unusable,
};

/// Bytes of tag after each ciphertext.
pub const AEKIT_AES_GCM_TAG_LEN: usize = 16;

/// An AES-GCM key, expanded for the fastest implementation this CPU runs.
/// Opaque to C; made by `aekit_aes_gcm_new`, freed by `aekit_aes_gcm_free`.
pub struct AesGcm {
    /// Shared with the streams started under it, which may outlive the handle.
    pub(crate) gcm: Arc<aekit::AesGcm>,
}

/// One message's direction, for the shared one-shot body.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Encrypt,
    Decrypt,
}

/// Makes an AES-GCM key handle from `key_len` (16, 24 or 32) bytes of key
/// and stores it in `*out` (NULL on failure). Free it with
/// `aekit_aes_gcm_free`, which wipes the key.
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
        let boxed = Box::into_raw(Box::new(AesGcm { gcm: Arc::new(gcm) }));
        // SAFETY: by this function's contract.
        unsafe { store(out, boxed) }
    })
}

/// Frees a key handle (NULL is ignored) and wipes the key. Streams started
/// under it stay usable until they are freed.
///
/// # Safety
///
/// `gcm` is NULL or a handle from `aekit_aes_gcm_new`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_free(gcm: *mut AesGcm) {
    // SAFETY: by this function's contract.
    unsafe { free(gcm) }
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
/// `out` or from the input into it, writes `*out_len`. Only the
/// computation runs under [`guarded`]: the checks are comparisons, and
/// the slicing after them is in bounds by them (were it not, the panic
/// would abort the process, as one leaving an `extern "C"` function does,
/// rather than unwind into C).
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
    // SAFETY: checked above: a live handle (by contract, and not NULL),
    // and each pointer non-NULL or its length 0, no length past
    // isize::MAX.
    let (key, nonce, aad) = unsafe { (&*key, slice(nonce, nonce_len), slice(aad, aad_len)) };
    // The received tag, copied out before `out` is borrowed mutably (in
    // place, the input and `out` are the same bytes).
    let mut tag = [0u8; TAG];
    if direction == Direction::Decrypt {
        // SAFETY: checked above; no mutable borrow is alive.
        let text = unsafe { slice(text, text_len) };
        tag.copy_from_slice(&text[result_len..]);
    }
    // SAFETY: checked above; `out` holds `out_cap` writable bytes by
    // contract, and no other slice over them is alive: it overlaps no
    // input unless it is the text itself, which is not borrowed then.
    let buf = unsafe { slice_mut(out, out_cap) };
    let body_len = text_len.min(result_len);
    let (body, rest) = buf.split_at_mut(body_len);
    // In place the text is `body` itself.
    let from = if in_place {
        None
    } else {
        // SAFETY: checked above; disjoint from `buf`.
        Some(&unsafe { slice(text, text_len) }[..body_len])
    };
    match direction {
        Direction::Encrypt => {
            // `rest` holds at least the tag (checked above).
            let slot = rest
                .first_chunk_mut::<TAG>()
                .ok_or(Status::InvalidArgument)?;
            let sealed = match from {
                Some(text) => guarded(|| key.seal_from(nonce, aad, text, body, slot)),
                None => guarded(|| key.seal(nonce, aad, body, slot)),
            };
            match sealed {
                Ok(()) => {}
                Err(e) => {
                    // Nothing was encrypted. In place the body is the
                    // caller's plaintext, refused untouched (every check
                    // comes before any byte is computed); out of place it
                    // may hold a copy of it (`OneShot::seal_from`'s
                    // default), which must not be left where ciphertext
                    // was expected.
                    if !in_place {
                        body.fill(0);
                    }
                    return Err(e);
                }
            }
        }
        // On failure aekit has zeroed the body: no unverified plaintext.
        Direction::Decrypt => match from {
            Some(text) => guarded(|| key.open_from(nonce, aad, text, body, &tag))?,
            None => guarded(|| key.open(nonce, aad, body, &tag))?,
        },
    }
    // SAFETY: by this function's contract.
    unsafe { store(out_len, result_len) }
}
