//! The C library of aekit: AES-GCM and AETHER behind opaque handles, one-shot
//! and (AES-GCM) streaming, with the header `include/aekit.h` generated from
//! this crate by cbindgen.
//!
//! A thin layer over aekit's public Rust API, with no cryptography of its
//! own. The rules every function follows:
//!
//! - **Status codes.** Every function that can fail returns an `int`: 0
//!   (`AEKIT_OK`) or one of the other `AEKIT_*` codes, which
//!   [`aekit_status_name`] and [`aekit_status_message`] name and explain.
//! - **Explicit lengths.** Every byte string is a pointer and a length; a
//!   pointer may be NULL only when its length is 0. Outputs come with
//!   their capacity, and the length written goes to `*out_len`.
//! - **No panic crosses into C.** Each function body runs under
//!   `catch_unwind` (`guard`); a panic (a bug in aekit) becomes
//!   `AEKIT_PANIC`. Nothing here is expected to panic. The one-shot
//!   calls (`aekit_aes_gcm_encrypt`, `aekit_aether_decrypt`, …) run
//!   their computation without that frame, for speed: a panic there
//!   aborts the process, as Rust does for any panic leaving an
//!   `extern "C"` function.
//! - **Secrets wiped.** aekit's key zeroizes itself when the last of its
//!   handle and the streams started under it is freed; a failed one-shot
//!   decryption zeroes the plaintext it wrote.
//! - **Threads.** A key handle may be used from several threads at once; a
//!   streaming handle by one thread at a time.
//!
//! `unsafe` is confined to turning C's pointers into slices and handles
//! (`input`, `output`, the `*_free` functions), each with its `SAFETY`
//! line; a C ABI cannot be had without it.

mod aether;
mod gcm;
mod stream;

use core::ffi::{c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

pub use aether::Aether;
pub use gcm::AesGcm;
pub use stream::{GcmDecryptor, GcmEncryptor};

// The status codes every fallible function returns as an `int`: 0 for
// success, a positive number for each kind of failure.

/// Success.
pub const AEKIT_OK: c_int = 0;
/// A required pointer is NULL (a handle, an output, or data whose length
/// is not 0), or input and output overlap other than exactly.
pub const AEKIT_INVALID_ARGUMENT: c_int = 1;
/// The key is not a length the algorithm takes (AES: 16, 24 or 32 bytes;
/// AETHER: 32).
pub const AEKIT_KEY_LENGTH: c_int = 2;
/// The nonce is not a length the algorithm takes (AES-GCM: at least 1
/// byte, 12 recommended; AETHER: 16).
pub const AEKIT_NONCE_LENGTH: c_int = 3;
/// The tag is not 16 bytes.
pub const AEKIT_TAG_LENGTH: c_int = 4;
/// The message or the associated data exceeds the algorithm's limit.
pub const AEKIT_TOO_LONG: c_int = 5;
/// The output buffer is smaller than the result; `*out_len` says how many
/// bytes are needed.
pub const AEKIT_BUFFER_TOO_SMALL: c_int = 6;
/// The tag did not verify: wrong key, nonce, associated data, ciphertext
/// or tag. A one-shot decryption has zeroed the plaintext it wrote to the
/// output (one of a ciphertext shorter than a tag wrote nothing); a
/// stream's `finish` can zero nothing, its plaintext being the caller's
/// already.
pub const AEKIT_AUTHENTICATION_FAILED: c_int = 7;
/// Associated data was given after message data in a stream.
pub const AEKIT_AAD_AFTER_MESSAGE: c_int = 8;
/// The stream has already been finished.
pub const AEKIT_FINISHED: c_int = 9;
/// The implementation cannot run here (for example a mistyped
/// `AEKIT_KERNEL` environment variable).
pub const AEKIT_UNSUPPORTED: c_int = 10;
/// An internal error (a panic inside aekit, caught at the boundary; in
/// the one-shot encryption and decryption calls it aborts the process
/// instead).
pub const AEKIT_PANIC: c_int = 11;

/// The status codes as a Rust type, for the functions' bodies.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Ok = AEKIT_OK,
    InvalidArgument = AEKIT_INVALID_ARGUMENT,
    KeyLength = AEKIT_KEY_LENGTH,
    NonceLength = AEKIT_NONCE_LENGTH,
    TagLength = AEKIT_TAG_LENGTH,
    TooLong = AEKIT_TOO_LONG,
    BufferTooSmall = AEKIT_BUFFER_TOO_SMALL,
    AuthenticationFailed = AEKIT_AUTHENTICATION_FAILED,
    AadAfterMessage = AEKIT_AAD_AFTER_MESSAGE,
    Finished = AEKIT_FINISHED,
    Unsupported = AEKIT_UNSUPPORTED,
    Panic = AEKIT_PANIC,
}

impl Status {
    /// Every status, in code order.
    const ALL: [Status; 12] = [
        Status::Ok,
        Status::InvalidArgument,
        Status::KeyLength,
        Status::NonceLength,
        Status::TagLength,
        Status::TooLong,
        Status::BufferTooSmall,
        Status::AuthenticationFailed,
        Status::AadAfterMessage,
        Status::Finished,
        Status::Unsupported,
        Status::Panic,
    ];

    /// The C name of the code (NUL-terminated).
    fn name(self) -> &'static [u8] {
        match self {
            Status::Ok => b"AEKIT_OK\0",
            Status::InvalidArgument => b"AEKIT_INVALID_ARGUMENT\0",
            Status::KeyLength => b"AEKIT_KEY_LENGTH\0",
            Status::NonceLength => b"AEKIT_NONCE_LENGTH\0",
            Status::TagLength => b"AEKIT_TAG_LENGTH\0",
            Status::TooLong => b"AEKIT_TOO_LONG\0",
            Status::BufferTooSmall => b"AEKIT_BUFFER_TOO_SMALL\0",
            Status::AuthenticationFailed => b"AEKIT_AUTHENTICATION_FAILED\0",
            Status::AadAfterMessage => b"AEKIT_AAD_AFTER_MESSAGE\0",
            Status::Finished => b"AEKIT_FINISHED\0",
            Status::Unsupported => b"AEKIT_UNSUPPORTED\0",
            Status::Panic => b"AEKIT_PANIC\0",
        }
    }

    /// A sentence on what went wrong (NUL-terminated).
    fn message(self) -> &'static [u8] {
        match self {
            Status::Ok => b"success\0",
            Status::InvalidArgument => {
                b"invalid argument: a required pointer is NULL, or input and output overlap\0"
            }
            Status::KeyLength => b"invalid key length (AES takes 16, 24 or 32 bytes; AETHER 32)\0",
            Status::NonceLength => {
                b"invalid nonce length (AES-GCM takes 1 byte or more, 12 recommended; AETHER 16)\0"
            }
            Status::TagLength => b"invalid tag length (tags are 16 bytes)\0",
            Status::TooLong => b"message or associated data too long for the algorithm\0",
            Status::BufferTooSmall => b"output buffer too small (*out_len has the size needed)\0",
            Status::AuthenticationFailed => {
                b"authentication failed: wrong key, nonce, associated data, ciphertext or tag\0"
            }
            Status::AadAfterMessage => b"associated data must all come before the message\0",
            Status::Finished => b"the stream has already been finished\0",
            Status::Unsupported => {
                b"not supported here (check the AEKIT_KERNEL environment variable)\0"
            }
            Status::Panic => b"internal error in aekit (please report)\0",
        }
    }

    fn from_code(code: c_int) -> Option<Status> {
        Status::ALL.into_iter().find(|s| *s as c_int == code)
    }
}

impl From<aekit::Error> for Status {
    // Out of line, so that a call's `?` tests its result for success
    // alone (rejected: inline, where the success is one more case of
    // this match's jump table).
    #[cold]
    #[inline(never)]
    fn from(e: aekit::Error) -> Status {
        use aekit::Error as E;
        match e {
            E::InvalidKeyLength(_) => Status::KeyLength,
            E::EmptyIv | E::InvalidNonceLength(_) | E::IvTooLong => Status::NonceLength,
            E::InvalidTagLength(_)
            | E::TagShorterThan64Bits(_)
            | E::TagMustBe128Bits { .. }
            | E::TagLengthMismatch { .. } => Status::TagLength,
            E::MessageTooLong | E::AadTooLong => Status::TooLong,
            E::AadAfterMessage => Status::AadAfterMessage,
            E::AuthenticationFailed => Status::AuthenticationFailed,
            _ => Status::Unsupported,
        }
    }
}

/// The name of a status code, such as `"AEKIT_AUTHENTICATION_FAILED"`, or
/// `"AEKIT_UNKNOWN"` for a number that is none. The string is static.
#[unsafe(no_mangle)]
pub extern "C" fn aekit_status_name(code: c_int) -> *const c_char {
    Status::from_code(code)
        .map_or(&b"AEKIT_UNKNOWN\0"[..], Status::name)
        .as_ptr()
        .cast()
}

/// A sentence explaining a status code. The string is static.
#[unsafe(no_mangle)]
pub extern "C" fn aekit_status_message(code: c_int) -> *const c_char {
    Status::from_code(code)
        .map_or(&b"unknown status code\0"[..], Status::message)
        .as_ptr()
        .cast()
}

/// The version of aekit, such as `"0.1.0"`. The string is static.
#[unsafe(no_mangle)]
pub extern "C" fn aekit_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Panics inside aekit on purpose and returns what the boundary made of
/// it, `AEKIT_PANIC`: lets a program check that a panic never unwinds
/// into C (the panic message goes to standard error).
#[unsafe(no_mangle)]
pub extern "C" fn aekit_check_panic_boundary() -> c_int {
    guard(|| panic!("aekit_check_panic_boundary: a deliberate panic"))
}

/// Runs a function body: its status as an `int`, and [`Status::Panic`]
/// instead of unwinding into C if it panics.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Status>) -> c_int {
    status(catch_unwind(AssertUnwindSafe(body)).unwrap_or(Err(Status::Panic)))
}

/// A result as the `int` a C function returns.
#[inline(always)]
pub(crate) fn status(result: Result<(), Status>) -> c_int {
    match result {
        Ok(()) => Status::Ok as c_int,
        Err(status) => status as c_int,
    }
}

/// `len` bytes at `ptr`, which may be NULL only when `len` is 0.
///
/// # Safety
///
/// A non-NULL `ptr` points to `len` readable bytes that stay valid and
/// unmodified for `'a`.
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], Status> {
    if unusable(ptr, len) {
        return Err(Status::InvalidArgument);
    }
    // SAFETY: checked just above; readable for 'a by this function's
    // contract.
    Ok(unsafe { slice(ptr, len) })
}

/// `len` writable bytes at `ptr`, which may be NULL only when `len` is 0.
///
/// # Safety
///
/// A non-NULL `ptr` points to `len` writable bytes that nothing else
/// reads or writes during `'a`.
pub(crate) unsafe fn output<'a>(ptr: *mut u8, len: usize) -> Result<&'a mut [u8], Status> {
    if unusable(ptr, len) {
        return Err(Status::InvalidArgument);
    }
    // SAFETY: checked just above; writable and unaliased for 'a by this
    // function's contract.
    Ok(unsafe { slice_mut(ptr, len) })
}

/// Whether `len_a` bytes at `a` and `len_b` bytes at `b` share any byte:
/// one of the two starts inside the other, computed without a branch.
/// Exact for ranges that end inside the address space; one that wraps
/// past its end (never real memory) may count as overlapping.
#[inline(always)]
pub(crate) fn overlap(a: *const u8, len_a: usize, b: *const u8, len_b: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    ((a.wrapping_sub(b) < len_b) & (len_a != 0)) | ((b.wrapping_sub(a) < len_a) & (len_b != 0))
}

/// Whether a (pointer, length) pair from C cannot be a slice: NULL with
/// bytes to read or write, or longer than `isize::MAX`.
#[inline(always)]
pub(crate) fn unusable(ptr: *const u8, len: usize) -> bool {
    (ptr.is_null() & (len != 0)) | (len > isize::MAX as usize)
}

/// The slice of `len` bytes at `ptr` (empty when `len` is 0, whatever
/// `ptr` is).
///
/// # Safety
///
/// `(ptr, len)` is not [`unusable`], and the bytes are readable and
/// unmodified for `'a`.
#[inline(always)]
pub(crate) unsafe fn slice<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    let ptr = if len == 0 {
        core::ptr::NonNull::dangling().as_ptr()
    } else {
        ptr
    };
    // SAFETY: non-NULL (or dangling and empty), at most isize::MAX
    // bytes, readable for 'a by this function's contract.
    unsafe { core::slice::from_raw_parts(ptr, len) }
}

/// [`slice()`], writable.
///
/// # Safety
///
/// `(ptr, len)` is not [`unusable`], and the bytes are writable and
/// neither read nor written by anything else during `'a`.
#[inline(always)]
pub(crate) unsafe fn slice_mut<'a>(ptr: *mut u8, len: usize) -> &'a mut [u8] {
    let ptr = if len == 0 {
        core::ptr::NonNull::dangling().as_ptr()
    } else {
        ptr
    };
    // SAFETY: as in `slice`, and unaliased by the contract.
    unsafe { core::slice::from_raw_parts_mut(ptr, len) }
}

/// Stores `value` in `*out`, a caller's out-parameter.
///
/// # Safety
///
/// `out` is NULL or points to a writable `T`.
pub(crate) unsafe fn store<T>(out: *mut T, value: T) -> Result<(), Status> {
    if out.is_null() {
        return Err(Status::InvalidArgument);
    }
    // SAFETY: non-NULL and writable by this function's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// A shared reference to the object behind a handle.
///
/// # Safety
///
/// `handle` is NULL or a live handle returned by this library and not yet
/// freed.
pub(crate) unsafe fn handle<'a, T>(handle: *const T) -> Result<&'a T, Status> {
    // SAFETY: a live handle is a valid `T` by this function's contract.
    unsafe { handle.as_ref() }.ok_or(Status::InvalidArgument)
}

/// An exclusive reference to the object behind a handle.
///
/// # Safety
///
/// `handle` is NULL or a live handle returned by this library, not yet
/// freed and used by no other thread during `'a`.
pub(crate) unsafe fn handle_mut<'a, T>(handle: *mut T) -> Result<&'a mut T, Status> {
    // SAFETY: a live, unshared handle by this function's contract.
    unsafe { handle.as_mut() }.ok_or(Status::InvalidArgument)
}

/// Drops the object behind a handle (NULL is ignored), as the `*_free`
/// functions do; the key inside zeroizes itself.
///
/// # Safety
///
/// `handle` is NULL or a live handle returned by this library (a `Box<T>`
/// turned into a pointer), not used again afterwards.
pub(crate) unsafe fn free<T>(handle: *mut T) {
    // SAFETY: made by `Box::into_raw` and freed once, by contract.
    release(handle, |handle| drop(unsafe { Box::from_raw(handle) }));
}

/// [`free`] for a handle that is an `Arc<T>` turned into a pointer: its
/// count is released, and the object dropped with the last one.
///
/// # Safety
///
/// `handle` is NULL or a live handle returned by this library (an
/// `Arc<T>` turned into a pointer), not used again afterwards.
pub(crate) unsafe fn free_shared<T>(handle: *mut T) {
    release(handle, |handle| {
        // SAFETY: made by `Arc::into_raw`, its count released once, by
        // contract.
        drop(unsafe { Arc::from_raw(handle.cast_const()) })
    });
}

/// Runs `drop` on a handle that is not NULL, under the panic guard: a
/// panic in a destructor would be a bug, and it still must not unwind
/// into C.
fn release<T>(handle: *mut T, drop: impl FnOnce(*mut T)) {
    if !handle.is_null() {
        let _ = guard(|| {
            drop(handle);
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn every_status_has_a_distinct_name_and_a_message() {
        let mut names = std::collections::HashSet::new();
        for (code, status) in Status::ALL.into_iter().enumerate() {
            assert_eq!(status as c_int, code as c_int);
            // SAFETY: the functions return static NUL-terminated strings.
            let name = unsafe { CStr::from_ptr(aekit_status_name(code as c_int)) };
            // SAFETY: as above.
            let message = unsafe { CStr::from_ptr(aekit_status_message(code as c_int)) };
            assert!(name.to_str().is_ok_and(|n| n.starts_with("AEKIT_")));
            assert!(!message.to_bytes().is_empty());
            assert!(names.insert(name.to_owned()), "{name:?} twice");
        }
        // SAFETY: as above.
        let unknown = unsafe { CStr::from_ptr(aekit_status_name(99)) };
        assert_eq!(unknown.to_bytes(), b"AEKIT_UNKNOWN");
    }

    #[test]
    fn a_panic_becomes_a_status() {
        assert_eq!(aekit_check_panic_boundary(), Status::Panic as c_int);
    }

    #[test]
    fn overlap_is_exact() {
        let p = 1000 as *const u8;
        assert!(overlap(p, 10, p, 10));
        assert!(overlap(p, 10, p.wrapping_add(9), 1));
        assert!(!overlap(p, 10, p.wrapping_add(10), 1));
        assert!(!overlap(p, 0, p, 10));
        assert!(!overlap(p, 10, p, 0));
        assert!(overlap(p.wrapping_add(9), 1, p, 10));
        assert!(!overlap(p.wrapping_add(10), 1, p, 10));
        assert!(overlap(p.wrapping_add(5), 100, p, 10));
        assert!(overlap(p, 10, p.wrapping_sub(5), 6));
        assert!(!overlap(p, 10, p.wrapping_sub(5), 5));
    }

    #[test]
    fn unusable_pairs_are_refused() {
        let p = 1000 as *const u8;
        assert!(!unusable(core::ptr::null(), 0));
        assert!(unusable(core::ptr::null(), 1));
        assert!(!unusable(p, 0));
        assert!(!unusable(p, isize::MAX as usize));
        assert!(unusable(p, isize::MAX as usize + 1));
        // SAFETY: empty slices, whatever the pointer.
        assert!(unsafe { slice(core::ptr::null(), 0) }.is_empty());
    }
}
