//! On-line AES-GCM (`aekit::Encryptor` / `aekit::Decryptor`): associated
//! data, then the message in pieces of any size, then the tag.
//!
//! aekit's on-line objects borrow their key; a C handle cannot carry a
//! borrow, so [`self_cell!`] keeps the key (a count of the key handle's
//! `Arc`, so the handle may be freed first) beside the object that borrows
//! it. The state is an `Option` so that finishing, which consumes it, can
//! take it out: `None` is "finished".

use core::ffi::c_int;
use std::sync::Arc;

use self_cell::self_cell;

use crate::gcm::{AEKIT_AES_GCM_TAG_LEN, AesGcm};
use crate::{Status, free, guard, handle, handle_mut, input, output, overlap, store};

type MaybeEncryptor<'k> = Option<aekit::Encryptor<'k>>;
type MaybeDecryptor<'k> = Option<aekit::Decryptor<'k>>;

self_cell!(
    /// A key and an encryption in progress under it.
    struct EncryptCell {
        owner: Arc<AesGcm>,
        #[covariant]
        dependent: MaybeEncryptor,
    }
);

self_cell!(
    /// A key and a decryption in progress under it.
    struct DecryptCell {
        owner: Arc<AesGcm>,
        #[covariant]
        dependent: MaybeDecryptor,
    }
);

/// An AES-GCM encryption in progress. Opaque to C.
pub struct GcmEncryptor(EncryptCell);

/// An AES-GCM decryption in progress. Opaque to C. **Its output is not
/// authenticated until `aekit_aes_gcm_decryptor_finish` succeeds.**
pub struct GcmDecryptor(DecryptCell);

/// The steps both directions share, so each C function is written once.
trait Step {
    fn aad(&mut self, aad: &[u8]) -> Option<Result<(), aekit::Error>>;
    fn crypt(&mut self, buf: &mut [u8]) -> Option<Result<(), aekit::Error>>;
    fn crypt_into(&mut self, input: &[u8], out: &mut [u8]) -> Option<Result<(), aekit::Error>>;
}

impl Step for GcmEncryptor {
    fn aad(&mut self, aad: &[u8]) -> Option<Result<(), aekit::Error>> {
        self.0
            .with_dependent_mut(|_, e| e.as_mut().map(|e| e.update_aad(aad)))
    }
    fn crypt(&mut self, buf: &mut [u8]) -> Option<Result<(), aekit::Error>> {
        self.0
            .with_dependent_mut(|_, e| e.as_mut().map(|e| e.update(buf)))
    }
    fn crypt_into(&mut self, input: &[u8], out: &mut [u8]) -> Option<Result<(), aekit::Error>> {
        self.0
            .with_dependent_mut(|_, e| e.as_mut().map(|e| e.update_into(input, out)))
    }
}

impl Step for GcmDecryptor {
    fn aad(&mut self, aad: &[u8]) -> Option<Result<(), aekit::Error>> {
        self.0
            .with_dependent_mut(|_, d| d.as_mut().map(|d| d.update_aad(aad)))
    }
    fn crypt(&mut self, buf: &mut [u8]) -> Option<Result<(), aekit::Error>> {
        self.0
            .with_dependent_mut(|_, d| d.as_mut().map(|d| d.update(buf)))
    }
    fn crypt_into(&mut self, input: &[u8], out: &mut [u8]) -> Option<Result<(), aekit::Error>> {
        self.0
            .with_dependent_mut(|_, d| d.as_mut().map(|d| d.update_into(input, out)))
    }
}

/// Feeds associated data to a stream.
///
/// # Safety
///
/// `stream` is NULL or live and unshared; `aad` holds `aad_len` bytes.
unsafe fn step_aad<S: Step>(stream: *mut S, aad: *const u8, aad_len: usize) -> c_int {
    guard(|| {
        // SAFETY: by this function's contract.
        let (stream, aad) = unsafe { (handle_mut(stream)?, input(aad, aad_len)?) };
        Ok(stream.aad(aad).ok_or(Status::Finished)??)
    })
}

/// Runs `len` bytes from `data` through a stream into `out` (which may be
/// `data` itself).
///
/// # Safety
///
/// `stream` is NULL or live and unshared; `data` holds `len` readable
/// bytes and `out` `len` writable ones.
unsafe fn step_update<S: Step>(stream: *mut S, data: *const u8, len: usize, out: *mut u8) -> c_int {
    guard(|| {
        // SAFETY: by this function's contract.
        let stream = unsafe { handle_mut(stream)? };
        let in_place = core::ptr::eq(data, out.cast_const());
        if !in_place && overlap(data, len, out, len) {
            return Err(Status::InvalidArgument);
        }
        // SAFETY: `len` writable bytes by contract; when in place no input
        // slice is alive, otherwise the input is disjoint (checked).
        let buf = unsafe { output(out, len)? };
        let done = if in_place {
            stream.crypt(buf)
        } else {
            // SAFETY: readable by contract and disjoint from `buf`.
            stream.crypt_into(unsafe { input(data, len)? }, buf)
        };
        Ok(done.ok_or(Status::Finished)??)
    })
}

/// Starts an on-line encryption under `gcm` and `nonce` (any length of at
/// least one byte, 12 recommended) and stores the stream in `*out`. The
/// stream keeps the key alive: `gcm` may be freed first.
///
/// # Safety
///
/// `gcm` is a live key handle; `nonce` holds `nonce_len` bytes; `out`
/// points to a writable pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_encryptor_new(
    gcm: *const AesGcm,
    nonce: *const u8,
    nonce_len: usize,
    out: *mut *mut GcmEncryptor,
) -> c_int {
    guard(|| {
        // SAFETY: by this function's contract.
        unsafe { store(out, core::ptr::null_mut())? };
        // SAFETY: by this function's contract.
        let (gcm, nonce) = unsafe { (handle(gcm)?, input(nonce, nonce_len)?) };
        // SAFETY: `gcm` is a live key handle, checked not NULL above.
        let key = unsafe { AesGcm::share(gcm) };
        let cell = EncryptCell::try_new(key, |k| k.gcm.encryptor(nonce).map(Some))?;
        let boxed = Box::into_raw(Box::new(GcmEncryptor(cell)));
        // SAFETY: by this function's contract.
        unsafe { store(out, boxed) }
    })
}

/// Feeds associated data; all of it must come before the first non-empty
/// `aekit_aes_gcm_encryptor_update` (else `AEKIT_AAD_AFTER_MESSAGE`).
///
/// # Safety
///
/// `enc` is a live stream used by no other thread; `aad` holds `aad_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_encryptor_aad(
    enc: *mut GcmEncryptor,
    aad: *const u8,
    aad_len: usize,
) -> c_int {
    // SAFETY: by this function's contract.
    unsafe { step_aad(enc, aad, aad_len) }
}

/// Encrypts the next `len` bytes of the message from `plaintext` into
/// `out` (`len` bytes; may be `plaintext` itself).
///
/// # Safety
///
/// `enc` is a live stream used by no other thread; `plaintext` holds `len`
/// readable bytes and `out` `len` writable ones.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_encryptor_update(
    enc: *mut GcmEncryptor,
    plaintext: *const u8,
    len: usize,
    out: *mut u8,
) -> c_int {
    // SAFETY: by this function's contract.
    unsafe { step_update(enc, plaintext, len, out) }
}

/// Ends the message and writes its 16-byte tag to `tag` (`tag_len` must be
/// 16). Later calls on the stream return `AEKIT_FINISHED`; it must still
/// be freed.
///
/// # Safety
///
/// `enc` is a live stream used by no other thread; `tag` holds `tag_len`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_encryptor_finish(
    enc: *mut GcmEncryptor,
    tag: *mut u8,
    tag_len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: by this function's contract.
        let (enc, tag) = unsafe { (handle_mut(enc)?, output(tag, tag_len)?) };
        if tag_len != AEKIT_AES_GCM_TAG_LEN {
            return Err(Status::TagLength);
        }
        let computed = enc
            .0
            .with_dependent_mut(|_, e| e.take().map(|e| e.finish(AEKIT_AES_GCM_TAG_LEN)))
            .ok_or(Status::Finished)??;
        tag.copy_from_slice(computed.as_bytes());
        Ok(())
    })
}

/// Frees an encryption stream (NULL is ignored), finished or not.
///
/// # Safety
///
/// `enc` is NULL or a stream from `aekit_aes_gcm_encryptor_new`, not used
/// afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_encryptor_free(enc: *mut GcmEncryptor) {
    // SAFETY: by this function's contract.
    unsafe { free(enc) }
}

/// Starts an on-line decryption under `gcm` and `nonce` and stores the
/// stream in `*out`. **Plaintext comes out of
/// `aekit_aes_gcm_decryptor_update` before it is authenticated**: use none
/// of it unless `aekit_aes_gcm_decryptor_finish` returns `AEKIT_OK`.
///
/// # Safety
///
/// As for `aekit_aes_gcm_encryptor_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_decryptor_new(
    gcm: *const AesGcm,
    nonce: *const u8,
    nonce_len: usize,
    out: *mut *mut GcmDecryptor,
) -> c_int {
    guard(|| {
        // SAFETY: by this function's contract.
        unsafe { store(out, core::ptr::null_mut())? };
        // SAFETY: by this function's contract.
        let (gcm, nonce) = unsafe { (handle(gcm)?, input(nonce, nonce_len)?) };
        // SAFETY: `gcm` is a live key handle, checked not NULL above.
        let key = unsafe { AesGcm::share(gcm) };
        let cell = DecryptCell::try_new(key, |k| k.gcm.decryptor(nonce).map(Some))?;
        let boxed = Box::into_raw(Box::new(GcmDecryptor(cell)));
        // SAFETY: by this function's contract.
        unsafe { store(out, boxed) }
    })
}

/// Feeds associated data, all of it before the first ciphertext.
///
/// # Safety
///
/// As for `aekit_aes_gcm_encryptor_aad`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_decryptor_aad(
    dec: *mut GcmDecryptor,
    aad: *const u8,
    aad_len: usize,
) -> c_int {
    // SAFETY: by this function's contract.
    unsafe { step_aad(dec, aad, aad_len) }
}

/// Decrypts the next `len` bytes of ciphertext into `out` (may be
/// `ciphertext` itself). **Not yet authenticated.**
///
/// # Safety
///
/// As for `aekit_aes_gcm_encryptor_update`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_decryptor_update(
    dec: *mut GcmDecryptor,
    ciphertext: *const u8,
    len: usize,
    out: *mut u8,
) -> c_int {
    // SAFETY: by this function's contract.
    unsafe { step_update(dec, ciphertext, len, out) }
}

/// Ends the message and checks its 16-byte tag in constant time:
/// `AEKIT_OK`, or `AEKIT_AUTHENTICATION_FAILED` (discard everything the
/// stream returned). Later calls return `AEKIT_FINISHED`.
///
/// # Safety
///
/// `dec` is a live stream used by no other thread; `tag` holds `tag_len`
/// readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_decryptor_finish(
    dec: *mut GcmDecryptor,
    tag: *const u8,
    tag_len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: by this function's contract.
        let (dec, tag) = unsafe { (handle_mut(dec)?, input(tag, tag_len)?) };
        if tag_len != AEKIT_AES_GCM_TAG_LEN {
            return Err(Status::TagLength);
        }
        Ok(dec
            .0
            .with_dependent_mut(|_, d| d.take().map(|d| d.finish(tag)))
            .ok_or(Status::Finished)??)
    })
}

/// Frees a decryption stream (NULL is ignored), finished or not.
///
/// # Safety
///
/// `dec` is NULL or a stream from `aekit_aes_gcm_decryptor_new`, not used
/// afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aekit_aes_gcm_decryptor_free(dec: *mut GcmDecryptor) {
    // SAFETY: by this function's contract.
    unsafe { free(dec) }
}
