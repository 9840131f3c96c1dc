//! AETHER handles and one-shot calls (`aekit::aether::Aether`): 32-byte
//! keys, 16-byte nonces, ciphertext followed by a 16-byte tag.
//!
//! **As published, AETHER lets an attacker move bytes between the
//! associated data and the message without changing the tag.** Use it only
//! where the associated data is fixed for a key (for example always empty).

use core::ffi::c_int;

use crate::Status;
use crate::gcm::{Direction, OneShot, one_shot};
use crate::{free, guard, input, status, store};

/// An AETHER key. Opaque to C; made by `aekit_aether_new`, freed (and
/// wiped) by `aekit_aether_free`.
///
/// **As published, AETHER lets an attacker move bytes between the
/// associated data and the message without changing the tag.** Use it only
/// where the associated data is fixed for a key (for example always empty).
pub struct Aether {
    aether: aekit::aether::Aether,
}

impl OneShot for Aether {
    #[inline(always)]
    fn seal(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8; 16],
    ) -> Result<(), Status> {
        *tag = self.aether.encrypt_in_place_detached(nonce, aad, buf)?;
        Ok(())
    }

    #[inline(always)]
    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Status> {
        Ok(self
            .aether
            .decrypt_in_place_detached(nonce, aad, buf, tag)?)
    }
}

/// Makes an AETHER key handle from 32 bytes of key and stores it in
/// `*out` (NULL on failure).
///
/// # Safety
///
/// `key` points to `key_len` readable bytes; `out` to a writable pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aether_new(
    key: *const u8,
    key_len: usize,
    out: *mut *mut Aether,
) -> c_int {
    guard(|| {
        // SAFETY: by this function's contract.
        unsafe { store(out, core::ptr::null_mut())? };
        // SAFETY: by this function's contract.
        let key = unsafe { input(key, key_len)? };
        let aether = aekit::aether::Aether::new(key)?;
        let boxed = Box::into_raw(Box::new(Aether { aether }));
        // SAFETY: by this function's contract.
        unsafe { store(out, boxed) }
    })
}

/// Frees an AETHER handle (NULL is ignored) and wipes the key.
///
/// # Safety
///
/// `aether` is NULL or a handle from `aekit_aether_new`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aether_free(aether: *mut Aether) {
    // SAFETY: by this function's contract.
    unsafe { free(aether) }
}

/// Encrypts `plaintext_len` bytes under a 16-byte nonce and writes
/// ciphertext ‖ 16-byte tag to `out` (capacity `out_cap`, length written to
/// `*out_len`). `out` may be `plaintext` itself but must not otherwise
/// overlap it. The associated data must be fixed for the key (the warning
/// on `aekit_aether`: bytes moved between it and the message keep the tag).
///
/// # Safety
///
/// Each pointer points to as many readable (inputs) or writable (`out`,
/// `out_len`) bytes as its length says; `aether` is a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aether_encrypt(
    aether: *const Aether,
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
            aether,
            (nonce, nonce_len),
            (aad, aad_len),
            (plaintext, plaintext_len),
            (out, out_cap),
            out_len,
        )
    })
}

/// Verifies and decrypts ciphertext ‖ 16-byte tag into `out`; on
/// `AEKIT_AUTHENTICATION_FAILED` the output is zeroed.
///
/// # Safety
///
/// As for `aekit_aether_encrypt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aether_decrypt(
    aether: *const Aether,
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
            aether,
            (nonce, nonce_len),
            (aad, aad_len),
            (ciphertext, ciphertext_len),
            (out, out_cap),
            out_len,
        )
    })
}
