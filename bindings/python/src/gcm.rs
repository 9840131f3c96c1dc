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
use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError};

use aekit::gcm::Pool;
use pyo3::PyClassInitializer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};
use zeroize::Zeroizing;

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

/// The key as the Python object holds it: aekit's key, and the same key
/// with the shared pool ([`crate::pool`]) once a long message has needed
/// it. The pool is a setting of `aekit::AesGcm` and the process's pool
/// can change (`aekit.set_threads`) or be replaced in a forked child, so
/// the split key is made from the key bytes on first use with each pool.
pub struct Keys {
    one: Arc<aekit::AesGcm>,
    secret: Zeroizing<Vec<u8>>,
    split: Mutex<Option<Split>>,
}

/// The pool a split key was made with, the process that made it, and the
/// key.
type Split = (Arc<Pool>, u32, Arc<aekit::AesGcm>);

/// The key a call runs on: the one-thread key borrowed (no reference
/// count touched, which threads sharing one key would contend on), or the
/// split key.
enum Key<'a> {
    One(&'a aekit::AesGcm),
    Split(Arc<aekit::AesGcm>),
}

impl Deref for Key<'_> {
    type Target = aekit::AesGcm;

    fn deref(&self) -> &aekit::AesGcm {
        match self {
            Key::One(key) => key,
            Key::Split(key) => key,
        }
    }
}

impl Keys {
    /// The key that splits across `pool`, or the one-thread key.
    #[inline]
    fn on(&self, pool: Option<&Arc<Pool>>) -> Result<Key<'_>, aekit::Error> {
        match pool {
            None => Ok(Key::One(&self.one)),
            Some(pool) => self.split_on(pool).map(Key::Split),
        }
    }

    /// The key that splits across `pool`, made on its first use.
    #[inline(never)]
    fn split_on(&self, pool: &Arc<Pool>) -> Result<Arc<aekit::AesGcm>, aekit::Error> {
        let mut split = self.split.lock().unwrap_or_else(PoisonError::into_inner);
        match split.take() {
            Some((p, pid, key)) if Arc::ptr_eq(&p, pool) => {
                *split = Some((p, pid, Arc::clone(&key)));
                return Ok(key);
            }
            // A pool inherited over `fork` is forgotten, not dropped (see
            // `pool.rs`).
            Some(inherited) if inherited.1 != std::process::id() => std::mem::forget(inherited),
            _ => {}
        }
        let key = Arc::new(aekit::AesGcm::new(&self.secret)?.with_pool(Arc::clone(pool)));
        *split = Some((Arc::clone(pool), std::process::id(), Arc::clone(&key)));
        Ok(key)
    }
}

impl Aead for Keys {
    fn splits(&self) -> bool {
        true
    }

    fn check_nonce(&self, nonce: &[u8]) -> PyResult<()> {
        check_nonce(nonce)
    }

    fn seal(
        &self,
        pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; TAG_LEN], aekit::Error> {
        let tag = self
            .on(pool)?
            .encrypt_in_place_detached(nonce, aad, buf, TAG_LEN)?;
        Ok(sixteen(tag))
    }

    fn open(
        &self,
        pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), aekit::Error> {
        self.on(pool)?
            .decrypt_in_place_detached(nonce, aad, buf, tag)
    }

    /// One pass over memory, into memory not yet written (split across
    /// `pool`'s threads when given).
    fn seal_from(
        &self,
        pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
    ) -> Result<[u8; TAG_LEN], aekit::Error> {
        let key = self.on(pool)?;
        let (_, tag) = key.encrypt_detached_into_uninit(nonce, aad, input, out, TAG_LEN)?;
        Ok(sixteen(tag))
    }

    fn open_from(
        &self,
        pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        tag: &[u8],
    ) -> Result<(), aekit::Error> {
        let key = self.on(pool)?;
        key.decrypt_detached_into_uninit(nonce, aad, input, out, tag)
            .map(drop)
    }
}

/// `ValueError` unless the nonce is 8 to 128 bytes.
fn check_nonce(nonce: &[u8]) -> PyResult<()> {
    if NONCE_LENS.contains(&nonce.len()) {
        Ok(())
    } else {
        Err(PyValueError::new_err(
            "Nonce must be between 8 and 128 bytes",
        ))
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
        let keys = Keys {
            one: Arc::clone(&gcm),
            secret: key,
            split: Mutex::new(None),
        };
        let base = AeadBase::new(Arc::new(keys) as Arc<dyn Aead>);
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
        check_nonce(&nonce)?;
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
        check_nonce(&nonce)?;
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
