//! aekit's C ABI for AES-GCM as `aekit.h` declares it, called through the
//! exported symbols as a C program calls them (the same calling
//! convention; `aekit-ffi` is linked into the binary): the `api` suite's
//! and the `api_calls` example's C forms.

#![allow(unsafe_code)] // calls into the C ABI; each block says why it is sound

use core::ffi::c_int;

// Linked for the symbols below.
use aekit_ffi as _;

/// The handle's type, opaque as `aekit.h` declares it.
#[repr(C)]
pub(crate) struct Gcm {
    _opaque: [u8; 0],
}

unsafe extern "C" {
    fn aekit_aes_gcm_new(key: *const u8, key_len: usize, out: *mut *mut Gcm) -> c_int;
    fn aekit_aes_gcm_free(gcm: *mut Gcm);
    fn aekit_aes_gcm_encrypt(
        gcm: *const Gcm,
        nonce: *const u8,
        nonce_len: usize,
        aad: *const u8,
        aad_len: usize,
        plaintext: *const u8,
        plaintext_len: usize,
        out: *mut u8,
        out_cap: usize,
        out_len: *mut usize,
    ) -> c_int;
    fn aekit_aes_gcm_decrypt(
        gcm: *const Gcm,
        nonce: *const u8,
        nonce_len: usize,
        aad: *const u8,
        aad_len: usize,
        ciphertext: *const u8,
        ciphertext_len: usize,
        out: *mut u8,
        out_cap: usize,
        out_len: *mut usize,
    ) -> c_int;
}

/// An AES-GCM handle of the C ABI.
pub(crate) struct Handle(*mut Gcm);

impl Handle {
    pub(crate) fn new(key: &[u8]) -> Result<Handle, String> {
        let mut gcm = core::ptr::null_mut();
        // SAFETY: `key` is readable for its length; `gcm` is writable.
        match unsafe { aekit_aes_gcm_new(key.as_ptr(), key.len(), &mut gcm) } {
            0 => Ok(Handle(gcm)),
            e => Err(format!("aekit_aes_gcm_new: status {e}")),
        }
    }

    /// `aekit_aes_gcm_encrypt` of `text` into `out` (ciphertext ‖
    /// tag); `None` for in place, `out` then holding the plaintext
    /// first. Returns the status.
    pub(crate) fn encrypt(
        &self,
        iv: &[u8],
        aad: &[u8],
        text: Option<&[u8]>,
        out: &mut [u8],
    ) -> c_int {
        let (from, len) = match text {
            Some(t) => (t.as_ptr(), t.len()),
            None => (out.as_ptr(), out.len() - 16),
        };
        let mut written = 0;
        // SAFETY: every pointer is readable (or, `out`, writable) for
        // the length passed with it; the handle is live; `from` is
        // `out` itself or a slice that does not overlap it.
        unsafe {
            aekit_aes_gcm_encrypt(
                self.0,
                iv.as_ptr(),
                iv.len(),
                aad.as_ptr(),
                aad.len(),
                from,
                len,
                out.as_mut_ptr(),
                out.len(),
                &mut written,
            )
        }
    }

    /// `aekit_aes_gcm_decrypt` of `sealed` (ciphertext ‖ tag) into
    /// `out`. Returns the status.
    pub(crate) fn decrypt(&self, iv: &[u8], aad: &[u8], sealed: &[u8], out: &mut [u8]) -> c_int {
        let mut written = 0;
        // SAFETY: as in `encrypt`; `sealed` and `out` do not overlap.
        unsafe {
            aekit_aes_gcm_decrypt(
                self.0,
                iv.as_ptr(),
                iv.len(),
                aad.as_ptr(),
                aad.len(),
                sealed.as_ptr(),
                sealed.len(),
                out.as_mut_ptr(),
                out.len(),
                &mut written,
            )
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: made by `aekit_aes_gcm_new`, freed once.
        unsafe { aekit_aes_gcm_free(self.0) }
    }
}
