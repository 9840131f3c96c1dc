//! The one-shot methods both AEAD classes share, written once in their
//! base class `aekit._aekit.AEAD` ([`AeadBase`]): `encrypt`, `decrypt`,
//! `encrypt_into` and `decrypt_into` with the argument order, the types,
//! the checks (in `cryptography`'s order: nonce, then lengths, then the
//! tag, then the buffer) and the exceptions of `cryptography`'s AEAD
//! classes. Each class supplies its key as an [`Aead`]: the nonce rule and
//! the in-place calls of the Rust API, which does the computation.

use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::sync::Arc;

use aekit::gcm::{DEFAULT_THRESHOLD, Pool};
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Input, Output, Slot, copy_into, detach_from, new_bytes};
use crate::{errors, pool};

/// Bytes of tag: both classes make and take 16-byte tags only.
pub const TAG_LEN: usize = 16;

/// `cryptography`'s limit on the message and on the associated data.
const MAX_LEN: usize = (1 << 31) - 1;

/// What a class supplies: its nonce rule and aekit's in-place calls.
pub trait Aead: Send + Sync {
    /// Whether a long message may be split across the shared [`Pool`].
    fn splits(&self) -> bool;

    /// `ValueError` unless the nonce has a length the class takes.
    fn check_nonce(&self, nonce: &[u8]) -> PyResult<()>;

    /// Encrypts `buf` in place and returns the tag, on the threads of
    /// `pool` where one is given.
    fn seal(
        &self,
        pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; TAG_LEN], aekit::Error>;

    /// Verifies `tag` and decrypts `buf` in place; wipes `buf` on failure.
    fn open(
        &self,
        pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), aekit::Error>;

    /// [`seal`](Aead::seal) of `input` written to `out` (the same length,
    /// possibly uninitialized), every byte of which it writes. This
    /// copies and then seals; a class with an out-of-place call overrides
    /// it to do both in one pass.
    fn seal_from(
        &self,
        pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
    ) -> Result<[u8; TAG_LEN], aekit::Error> {
        self.seal(pool, nonce, aad, copy_into(out, input))
    }

    /// [`open`](Aead::open) of `input` written to `out`, as
    /// [`seal_from`](Aead::seal_from) is to `seal`.
    fn open_from(
        &self,
        pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        tag: &[u8],
    ) -> Result<(), aekit::Error> {
        self.open(pool, nonce, aad, copy_into(out, input), tag)
    }
}

/// The `OverflowError` for a message or associated data past
/// [`MAX_LEN`].
#[cold]
fn too_long() -> PyErr {
    PyOverflowError::new_err("Data or associated data too long. Max 2**31 - 1 bytes")
}

/// The shared pool, for a class that splits and a message long enough.
/// Taken with the GIL held (see `pool.rs` on `fork`).
fn pool_for(aead: &dyn Aead, len: usize) -> Option<Arc<Pool>> {
    (len >= DEFAULT_THRESHOLD && aead.splits())
        .then(pool::shared)
        .flatten()
}

/// The arguments every method takes, checked; the nonce and the
/// associated data as slices (borrowed from `bytes`, copied from other
/// buffers, see [`Input::to_cow`]).
struct Args<'a> {
    nonce: Cow<'a, [u8]>,
    data: Input<'a>,
    aad: Cow<'a, [u8]>,
}

impl<'a> Args<'a> {
    #[inline(always)]
    fn new(
        py: Python<'_>,
        aead: &dyn Aead,
        nonce: &'a Bound<'_, PyAny>,
        data: &'a Bound<'_, PyAny>,
        aad: Option<&'a Bound<'_, PyAny>>,
    ) -> PyResult<Args<'a>> {
        let nonce = Input::new(nonce, "nonce")?;
        let data = Input::new(data, "data")?;
        let aad = Input::optional(aad, "associated_data")?;
        let nonce = nonce.to_cow(py)?;
        aead.check_nonce(&nonce)?;
        if data.len() > MAX_LEN || aad.len() > MAX_LEN {
            return Err(too_long());
        }
        let aad = aad.to_cow(py)?;
        Ok(Args { nonce, data, aad })
    }

    /// Bytes the computation touches, which decide whether to release the GIL.
    #[inline]
    fn work(&self) -> usize {
        self.data.len() + self.aad.len()
    }

    /// Encrypts the data into `out` (ciphertext ‖ tag, the data's length
    /// plus 16 bytes, possibly uninitialized), writing every byte of it.
    #[inline(always)]
    fn seal_into(
        &self,
        py: Python<'_>,
        aead: &dyn Aead,
        out: &mut [MaybeUninit<u8>],
    ) -> PyResult<()> {
        let (nonce, aad) = (&*self.nonce, &*self.aad);
        // Read where it lies, with the GIL released, unless it overlaps
        // the output, its tag's room included: then copied into it first
        // (with the GIL held).
        let apart = self.data.beside(out);
        let (text, tag_out) = out.split_at_mut(self.data.len());
        let pool = pool_for(aead, text.len());
        let tag = match apart {
            Some(data) => detach_from(py, self.work(), || {
                aead.seal_from(pool.as_ref(), nonce, aad, data, text)
            }),
            None => {
                let text = self.data.copy_to_space(py, text)?;
                detach_from(py, self.work(), || {
                    aead.seal(pool.as_ref(), nonce, aad, text)
                })
            }
        }
        .map_err(|e| errors::aead(py, e))?;
        // A copy of a known length: two stores, not a call.
        let tag_out: &mut [MaybeUninit<u8>; TAG_LEN] = tag_out
            .try_into()
            .expect("the output holds the tag after the ciphertext");
        *tag_out = tag.map(MaybeUninit::new);
        Ok(())
    }

    /// Verifies and decrypts the data (ciphertext ‖ tag) into `out`, which
    /// is 16 bytes shorter than the data (possibly uninitialized), writing
    /// every byte of it (zeros on failure); `InvalidTag` on failure.
    #[inline(always)]
    fn open_into(
        &self,
        py: Python<'_>,
        aead: &dyn Aead,
        out: &mut [MaybeUninit<u8>],
    ) -> PyResult<()> {
        let (nonce, aad) = (&*self.nonce, &*self.aad);
        let data = match self.data.beside(out) {
            Some(data) => Cow::Borrowed(data),
            None => self.data.to_cow(py)?,
        };
        let (ciphertext, tag) = data.split_at(out.len());
        let pool = pool_for(aead, out.len());
        detach_from(py, self.work(), || {
            aead.open_from(pool.as_ref(), nonce, aad, ciphertext, out, tag)
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

/// The base class of `AESGCM` and `AETHER`: their one-shot methods.
#[pyclass(frozen, subclass, module = "aekit._aekit", name = "AEAD")]
pub struct AeadBase {
    aead: Arc<dyn Aead>,
}

impl AeadBase {
    /// The base part of a class whose key is `aead`.
    pub fn new(aead: Arc<dyn Aead>) -> AeadBase {
        AeadBase { aead }
    }
}

#[pymethods]
impl AeadBase {
    /// Encrypts `data`, authenticating `associated_data` too (or nothing
    /// when it is `None`), and returns ciphertext ‖ 16-byte tag.
    #[pyo3(signature = (nonce, data, associated_data))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let aead = &*self.aead;
        let args = Args::new(py, aead, nonce, data, associated_data)?;
        new_bytes(py, args.data.len() + TAG_LEN, |out| {
            args.seal_into(py, aead, out)
        })
    }

    /// Verifies and decrypts ciphertext ‖ tag; raises `InvalidTag`, and
    /// returns nothing, if the key, nonce, data or associated data is not
    /// the one encrypted.
    #[pyo3(signature = (nonce, data, associated_data))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let aead = &*self.aead;
        let args = Args::new(py, aead, nonce, data, associated_data)?;
        let len = args.plaintext_len(py)?;
        // On failure aekit has wiped `out` and the half-built object is freed.
        new_bytes(py, len, |out| args.open_into(py, aead, out))
    }

    /// `encrypt` into `buf`, a writable buffer of exactly `len(data) + 16`
    /// bytes; returns the number of bytes written.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn encrypt_into<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        buf: &Bound<'py, PyAny>,
    ) -> PyResult<usize> {
        let aead = &*self.aead;
        let args = Args::new(py, aead, nonce, data, associated_data)?;
        let mut slot = Slot::new();
        let out = Output::new(buf, "buf", &mut slot)?;
        let len = args.data.len() + TAG_LEN;
        out.require_exactly(len)?;
        out.with_space(|space| args.seal_into(py, aead, space))?;
        Ok(len)
    }

    /// `decrypt` into `buf`, a writable buffer of exactly `len(data) - 16`
    /// bytes; returns the number of bytes written. `buf` is zeroed when the
    /// tag does not verify: it never keeps unauthenticated plaintext.
    ///
    /// During the call, though, it holds some: the plaintext is written
    /// into `buf` in the same pass that computes the tag, before the tag
    /// is checked, and is wiped only when the check fails. From 2 KiB on
    /// the call runs with the GIL released, so another thread that reads
    /// `buf` meanwhile may see plaintext that is then found not to be
    /// authentic. Read `buf` only after the call returns.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn decrypt_into<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        buf: &Bound<'py, PyAny>,
    ) -> PyResult<usize> {
        let aead = &*self.aead;
        let args = Args::new(py, aead, nonce, data, associated_data)?;
        let len = args.plaintext_len(py)?;
        let mut slot = Slot::new();
        let out = Output::new(buf, "buf", &mut slot)?;
        out.require_exactly(len)?;
        // Decrypted where it lies; aekit zeroes it if the tag is wrong.
        out.with_space(|space| args.open_into(py, aead, space))?;
        Ok(len)
    }
}

/// `generate_key`: `len` bytes from the operating system's generator.
pub fn random_key(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyBytes>> {
    PyBytes::new_with(py, len, |out| {
        getrandom::fill(out).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("random number generator: {e}"))
        })
    })
}
