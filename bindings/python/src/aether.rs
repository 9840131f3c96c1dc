//! `aekit.AETHER`: the AETHER AEAD (256-bit key, 128-bit nonce, 128-bit
//! tag) with the interface of `cryptography`'s AEAD classes.

use std::sync::Arc;

use aekit::aether::{self, Aether as Inner};
use aekit::gcm::Pool;
use pyo3::PyClassInitializer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};

use crate::buffers::Input;
use crate::oneshot::{self, Aead, AeadBase, TAG_LEN};

/// AETHER with a 256-bit key, in the fastest constant-time implementation
/// this CPU runs. Nonces are 16 bytes and must never repeat under one key;
/// tags are 16 bytes, appended to the ciphertext.
///
/// **Warning — associated data.** As published, AETHER absorbs no lengths
/// and separates the associated data from the message by nothing, so an
/// attacker who sees one ciphertext can move a 48-byte-aligned prefix of
/// the message into the associated data (or back) and the tag still
/// verifies: a forgery. Use AETHER only where the associated data is fixed
/// for a key (always empty, or one constant header), never where an
/// attacker may choose how bytes are split between associated data and
/// message. AES-GCM (`aekit.AESGCM`) has no such weakness.
#[pyclass(frozen, extends = AeadBase, module = "aekit", name = "AETHER")]
pub struct Aether {
    strategy: aether::Strategy,
}

impl Aead for Inner {
    fn splits(&self) -> bool {
        false
    }

    fn check_nonce(&self, nonce: &[u8]) -> PyResult<()> {
        if nonce.len() == aether::NONCE_LEN {
            Ok(())
        } else {
            Err(PyValueError::new_err("AETHER nonce must be 16 bytes"))
        }
    }

    fn seal(
        &self,
        _pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; TAG_LEN], aekit::Error> {
        self.encrypt_in_place_detached(nonce, aad, buf)
    }

    fn open(
        &self,
        _pool: Option<&Arc<Pool>>,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), aekit::Error> {
        self.decrypt_in_place_detached(nonce, aad, buf, tag)
    }
}

#[pymethods]
impl Aether {
    /// AETHER under `key`, a bytes-like object of 32 bytes.
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Aether>> {
        let key = Input::new(key, "key")?.to_secret(key.py())?;
        if key.len() != aether::KEY_LEN {
            return Err(PyValueError::new_err("AETHER key must be 256 bits."));
        }
        let aether = Inner::new(&key).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let strategy = aether.strategy();
        let base = AeadBase::new(Arc::new(aether));
        Ok(PyClassInitializer::from(base).add_subclass(Aether { strategy }))
    }

    /// A new random 256-bit key.
    #[classmethod]
    fn generate_key<'py>(cls: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyBytes>> {
        oneshot::random_key(cls.py(), aether::KEY_LEN)
    }

    /// The implementation this key runs on (`avx512`, `avx2`, `neon`, `portable`).
    #[getter]
    fn implementation(&self) -> &'static str {
        self.strategy.name()
    }

    fn __repr__(&self) -> String {
        format!("<aekit.AETHER ({})>", self.strategy.name())
    }
}
