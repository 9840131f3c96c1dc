//! The one-shot methods both AEAD classes share, written once:
//! `encrypt`, `decrypt`, `encrypt_into` and `decrypt_into` with the
//! argument order, the types, the checks (in `cryptography`'s order:
//! nonce, then lengths, then the tag, then the buffer) and the exceptions
//! of `cryptography`'s AEAD classes. Each class supplies the nonce rule and
//! the in-place calls of the Rust API ([`Aead`]); the computation is
//! aekit's.

use std::sync::Arc;

use aekit::gcm::{DEFAULT_THRESHOLD, Pool};
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

use crate::buffers::{Input, Output, detach_from};
use crate::{errors, pool};

/// Bytes of tag: both classes make and take 16-byte tags only.
pub const TAG_LEN: usize = 16;

/// `cryptography`'s limit on the message and on the associated data.
const MAX_LEN: usize = (1 << 31) - 1;

/// What a class supplies: its nonce rule and aekit's in-place calls.
pub trait Aead: Sync {
    /// Whether a long message may be split across the shared [`Pool`].
    const SPLITS: bool;

    /// `ValueError` unless the nonce has a length the class takes.
    fn check_nonce(&self, nonce: &[u8]) -> PyResult<()>;

    /// Encrypts `buf` in place and returns the tag, on the threads of
    /// `pool` where one is given.
    fn seal(
        &self,
        pool: Option<&Pool>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; TAG_LEN], aekit::Error>;

    /// Verifies `tag` and decrypts `buf` in place; wipes `buf` on failure.
    fn open(
        &self,
        pool: Option<&Pool>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), aekit::Error>;
}

/// The shared pool, for a class that splits and a message long enough.
/// Taken with the GIL held (see `pool.rs` on `fork`).
fn pool_for<A: Aead + ?Sized>(len: usize) -> Option<Arc<Pool>> {
    (A::SPLITS && len >= DEFAULT_THRESHOLD)
        .then(pool::shared)
        .flatten()
}

/// The arguments every method takes, checked.
struct Args<'a> {
    nonce: Input<'a>,
    data: Input<'a>,
    aad: Input<'a>,
}

impl<'a> Args<'a> {
    fn new<A: Aead + ?Sized>(
        py: Python<'_>,
        aead: &A,
        nonce: &'a Bound<'_, PyAny>,
        data: &'a Bound<'_, PyAny>,
        aad: Option<&'a Bound<'_, PyAny>>,
    ) -> PyResult<Args<'a>> {
        let nonce = Input::new(nonce, "nonce")?;
        let data = Input::new(data, "data")?;
        let aad = Input::optional(aad, "associated_data")?;
        aead.check_nonce(&nonce.to_cow(py)?)?;
        if data.len() > MAX_LEN || aad.len() > MAX_LEN {
            return Err(PyOverflowError::new_err(
                "Data or associated data too long. Max 2**31 - 1 bytes",
            ));
        }
        Ok(Args { nonce, data, aad })
    }

    /// Bytes the computation touches, which decide whether to release the GIL.
    fn work(&self) -> usize {
        self.data.len() + self.aad.len()
    }

    /// Encrypts the data into `out` (ciphertext ‖ tag, the data's length
    /// plus 16 bytes).
    fn seal_into<A: Aead + ?Sized>(
        &self,
        py: Python<'_>,
        aead: &A,
        out: &mut [u8],
    ) -> PyResult<()> {
        let (nonce, aad) = (self.nonce.to_cow(py)?, self.aad.to_cow(py)?);
        let (text, tag_out) = out.split_at_mut(self.data.len());
        // `bytes` is immutable, so it is copied with the GIL released;
        // other buffers are copied before.
        let immutable = self.data.immutable();
        if immutable.is_none() {
            self.data.copy_to(py, text)?;
        }
        let pool = pool_for::<A>(text.len());
        let tag = detach_from(py, self.work(), || {
            if let Some(data) = immutable {
                text.copy_from_slice(data);
            }
            aead.seal(pool.as_deref(), &nonce, &aad, text)
        })
        .map_err(|e| errors::aead(py, e))?;
        tag_out.copy_from_slice(&tag);
        Ok(())
    }

    /// Verifies and decrypts the data (ciphertext ‖ tag) into `out`, which
    /// is 16 bytes shorter than the data; `InvalidTag` on failure.
    fn open_into<A: Aead + ?Sized>(
        &self,
        py: Python<'_>,
        aead: &A,
        out: &mut [u8],
    ) -> PyResult<()> {
        let (nonce, aad) = (self.nonce.to_cow(py)?, self.aad.to_cow(py)?);
        let data = self.data.to_cow(py)?;
        let (ciphertext, tag) = data.split_at(out.len());
        let pool = pool_for::<A>(out.len());
        detach_from(py, self.work(), || {
            out.copy_from_slice(ciphertext);
            aead.open(pool.as_deref(), &nonce, &aad, out, tag)
        })
        .map_err(|e| errors::aead(py, e))
    }

    /// The plaintext length of a decryption; `InvalidTag` when the data is
    /// shorter than a tag, as `cryptography` answers.
    fn plaintext_len(&self, py: Python<'_>) -> PyResult<usize> {
        self.data
            .len()
            .checked_sub(TAG_LEN)
            .ok_or_else(|| errors::invalid_tag(py, ""))
    }
}

/// `encrypt(nonce, data, associated_data)`: ciphertext ‖ tag as `bytes`.
pub fn encrypt<'py, A: Aead + ?Sized>(
    py: Python<'py>,
    aead: &A,
    nonce: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let args = Args::new(py, aead, nonce, data, aad)?;
    PyBytes::new_with(py, args.data.len() + TAG_LEN, |out| {
        args.seal_into(py, aead, out)
    })
}

/// `decrypt(nonce, data, associated_data)`: the plaintext as `bytes`, or
/// `InvalidTag` and nothing.
pub fn decrypt<'py, A: Aead + ?Sized>(
    py: Python<'py>,
    aead: &A,
    nonce: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let args = Args::new(py, aead, nonce, data, aad)?;
    let len = args.plaintext_len(py)?;
    // On failure aekit has wiped `out` and the half-built object is freed.
    PyBytes::new_with(py, len, |out| args.open_into(py, aead, out))
}

/// `encrypt_into(nonce, data, associated_data, buf)`: ciphertext ‖ tag
/// written to `buf`, which must be exactly `len(data) + 16` bytes; returns
/// that length.
pub fn encrypt_into<'py, A: Aead + ?Sized>(
    py: Python<'py>,
    aead: &A,
    nonce: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
    buf: &Bound<'py, PyAny>,
) -> PyResult<usize> {
    let args = Args::new(py, aead, nonce, data, aad)?;
    let out = Output::new(buf, "buf")?;
    let len = args.data.len() + TAG_LEN;
    out.require_exactly(len)?;
    let mut sealed = vec![0u8; len];
    args.seal_into(py, aead, &mut sealed)?;
    out.write_prefix(buf, &sealed)?;
    Ok(len)
}

/// `decrypt_into(nonce, data, associated_data, buf)`: the plaintext written
/// to `buf`, which must be exactly `len(data) - 16` bytes; returns that
/// length. On `InvalidTag` the buffer is left as it was.
pub fn decrypt_into<'py, A: Aead + ?Sized>(
    py: Python<'py>,
    aead: &A,
    nonce: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
    buf: &Bound<'py, PyAny>,
) -> PyResult<usize> {
    let args = Args::new(py, aead, nonce, data, aad)?;
    let len = args.plaintext_len(py)?;
    let out = Output::new(buf, "buf")?;
    out.require_exactly(len)?;
    // Decrypted apart and copied only once verified: the caller's buffer
    // never holds unauthenticated plaintext.
    let mut plain = Zeroizing::new(vec![0u8; len]);
    args.open_into(py, aead, &mut plain)?;
    out.write_prefix(buf, &plain)?;
    Ok(len)
}

/// `generate_key`: `len` bytes from the operating system's generator.
pub fn random_key(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyBytes>> {
    PyBytes::new_with(py, len, |out| {
        getrandom::fill(out).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("random number generator: {e}"))
        })
    })
}
