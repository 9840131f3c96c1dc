//! `aekit.AESGCM`: the drop-in for
//! `cryptography.hazmat.primitives.ciphers.aead.AESGCM`.
//!
//! Same constructor, methods, argument order, types and exceptions; the
//! rules are `cryptography`'s, not the wider ones of aekit's Rust API:
//! keys of 128, 192 or 256 bits, nonces of 8 to 128 bytes, 16-byte tags,
//! messages and associated data below 2^31 bytes. The computation is
//! `aekit::AesGcm` in the fastest implementation this CPU runs; after
//! `aekit.set_threads(0)`, messages from `DEFAULT_THRESHOLD` (128 KiB) on
//! are split across the cores (`pool.rs`).

use std::mem::MaybeUninit;
use std::sync::Arc;

use aekit::gcm::Pool;
use pyo3::PyClassInitializer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};

use crate::oneshot::{self, Aead, AeadBase, TAG_LEN};
use crate::stream::{Decryptor, Encryptor};

/// `cryptography`'s nonce lengths for AES-GCM, in bytes.
const NONCE_LENS: std::ops::RangeInclusive<usize> = 8..=128;

/// AES-GCM with a 128-, 192- or 256-bit key: `cryptography`'s `AESGCM`,
/// computed by aekit.
///
/// Nonces are 8 to 128 bytes (12 is the fast and recommended length) and
/// must never repeat under one key. Tags are 16 bytes, appended to the
/// ciphertext. `decrypt` raises `aekit.InvalidTag` (a subclass of
/// `cryptography.exceptions.InvalidTag` when cryptography is installed) and
/// releases nothing when the tag does not verify. Inputs of 2 KiB or more
/// are processed with the GIL released.
#[pyclass(frozen, extends = AeadBase, module = "aekit", name = "AESGCM")]
pub struct AesGcm {
    gcm: Arc<aekit::AesGcm>,
}

impl Aead for aekit::AesGcm {
    fn splits(&self) -> bool {
        true
    }

    fn check_nonce(&self, nonce: &[u8]) -> PyResult<()> {
        if NONCE_LENS.contains(&nonce.len()) {
            Ok(())
        } else {
            Err(PyValueError::new_err(
                "Nonce must be between 8 and 128 bytes",
            ))
        }
    }

    fn seal(
        &self,
        pool: Option<&Pool>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; TAG_LEN], aekit::Error> {
        let tag = match pool {
            Some(pool) => self.encrypt_in_place_detached_par(pool, nonce, aad, buf, TAG_LEN)?,
            None => self.encrypt_in_place_detached(nonce, aad, buf, TAG_LEN)?,
        };
        Ok(sixteen(tag))
    }

    fn open(
        &self,
        pool: Option<&Pool>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), aekit::Error> {
        match pool {
            Some(pool) => self.decrypt_in_place_detached_par(pool, nonce, aad, buf, tag),
            None => self.decrypt_in_place_detached(nonce, aad, buf, tag),
        }
    }

    /// One pass over memory, into memory not yet written (split across
    /// `pool`'s threads when given).
    fn seal_from(
        &self,
        pool: Option<&Pool>,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
    ) -> Result<[u8; TAG_LEN], aekit::Error> {
        let (_, tag) = match pool {
            Some(pool) => {
                self.encrypt_detached_into_uninit_par(pool, nonce, aad, input, out, TAG_LEN)?
            }
            None => self.encrypt_detached_into_uninit(nonce, aad, input, out, TAG_LEN)?,
        };
        Ok(sixteen(tag))
    }

    fn open_from(
        &self,
        pool: Option<&Pool>,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        tag: &[u8],
    ) -> Result<(), aekit::Error> {
        match pool {
            Some(pool) => self.decrypt_detached_into_uninit_par(pool, nonce, aad, input, out, tag),
            None => self.decrypt_detached_into_uninit(nonce, aad, input, out, tag),
        }
        .map(drop)
    }
}

/// A tag of [`TAG_LEN`] bytes as an array.
fn sixteen(tag: aekit::gcm::Tag) -> [u8; TAG_LEN] {
    let mut full = [0u8; TAG_LEN];
    full.copy_from_slice(tag.as_bytes());
    full
}

#[pymethods]
impl AesGcm {
    /// AES-GCM under `key`, a bytes-like object of 16, 24 or 32 bytes.
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<AesGcm>> {
        let key = crate::buffers::Input::new(key, "key")?.to_secret(key.py())?;
        if ![16, 24, 32].contains(&key.len()) {
            return Err(PyValueError::new_err(
                "AESGCM key must be 128, 192, or 256 bits.",
            ));
        }
        let gcm = aekit::AesGcm::new(&key).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let gcm = Arc::new(gcm);
        let base = AeadBase::new(Arc::clone(&gcm) as Arc<dyn Aead>);
        Ok(PyClassInitializer::from(base).add_subclass(AesGcm { gcm }))
    }

    /// A new random key of `bit_length` bits (128, 192 or 256).
    ///
    /// Other lengths raise what `cryptography` raises: `ValueError` for an
    /// int from 0 to 2^64 - 1, `OverflowError` for a negative one or a
    /// larger one (the conversion to an unsigned 64-bit int fails first).
    #[classmethod]
    fn generate_key<'py>(
        cls: &Bound<'py, PyType>,
        bit_length: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        if ![128, 192, 256].contains(&bit_length) {
            return Err(PyValueError::new_err("bit_length must be 128, 192, or 256"));
        }
        oneshot::random_key(cls.py(), bit_length as usize / 8)
    }

    /// Starts an on-line encryption under `nonce`, for messages that do
    /// not fit in memory or arrive in pieces.
    fn encryptor<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Encryptor>> {
        let nonce = crate::buffers::Input::new(nonce, "nonce")?.to_cow(py)?;
        self.gcm.check_nonce(&nonce)?;
        Bound::new(py, Encryptor::start(py, Arc::clone(&self.gcm), &nonce)?)
    }

    /// Starts an on-line decryption under `nonce`. **Its `update` returns
    /// plaintext before the tag is checked**: discard it unless
    /// `finalize_with_tag` succeeds.
    fn decryptor<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Decryptor>> {
        let nonce = crate::buffers::Input::new(nonce, "nonce")?.to_cow(py)?;
        self.gcm.check_nonce(&nonce)?;
        Bound::new(py, Decryptor::start(py, Arc::clone(&self.gcm), &nonce)?)
    }

    /// The implementation this key runs on, as `aekit info` names it
    /// (`fused ni-clmul`, `fused vaes-avx512`, `fixslice + karatsuba`, ...).
    #[getter]
    fn implementation(&self) -> String {
        self.gcm.implementation()
    }

    fn __repr__(&self) -> String {
        format!("<aekit.AESGCM ({})>", self.gcm.implementation())
    }
}
