//! On-line AES-GCM objects, shaped like `cryptography`'s GCM cipher
//! contexts: `authenticate_additional_data`, `update`, `update_into`,
//! then `finalize` and `tag` (encryption) or `finalize_with_tag`
//! (decryption). The computation is `aekit::Encryptor` / `Decryptor`.
//!
//! aekit's on-line objects borrow their key (`Encryptor<'k>`), and a
//! Python object cannot hold a borrow; [`self_cell`] keeps the key (an
//! `Arc`, shared with the `AESGCM` object) and the object that borrows it
//! in one owner, without unsafe code here. The state is an `Option` so
//! that `finish`, which consumes it, can take it out: `None` is "finalized".

use std::mem::MaybeUninit;
use std::sync::Arc;

use aekit::AesGcm;
use pyo3::PyClassInitializer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use self_cell::self_cell;

use crate::buffers::{Input, Output, Slot, detach_from, new_bytes};
use crate::errors;
use crate::oneshot::TAG_LEN;

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

/// The state of a stream: one of the two directions.
enum State {
    Encrypt(EncryptCell),
    Decrypt(DecryptCell),
}

impl State {
    /// Feeds associated data; `None` once finalized.
    fn aad(&mut self, aad: &[u8]) -> Option<Result<(), aekit::Error>> {
        match self {
            State::Encrypt(c) => c.with_dependent_mut(|_, e| e.as_mut().map(|e| e.update_aad(aad))),
            State::Decrypt(c) => c.with_dependent_mut(|_, d| d.as_mut().map(|d| d.update_aad(aad))),
        }
    }

    /// Processes the next piece in place; `None` once finalized.
    fn crypt(&mut self, buf: &mut [u8]) -> Option<Result<(), aekit::Error>> {
        match self {
            State::Encrypt(c) => c.with_dependent_mut(|_, e| e.as_mut().map(|e| e.update(buf))),
            State::Decrypt(c) => c.with_dependent_mut(|_, d| d.as_mut().map(|d| d.update(buf))),
        }
    }

    /// Processes the next piece from `input` into `out` in one pass
    /// (`out` as long, possibly uninitialized: written unless it fails);
    /// `None` once finalized.
    fn crypt_into(
        &mut self,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
    ) -> Option<Result<(), aekit::Error>> {
        match self {
            State::Encrypt(c) => c.with_dependent_mut(|_, e| {
                e.as_mut()
                    .map(|e| e.update_into_uninit(input, out).map(drop))
            }),
            State::Decrypt(c) => c.with_dependent_mut(|_, d| {
                d.as_mut()
                    .map(|d| d.update_into_uninit(input, out).map(drop))
            }),
        }
    }

    /// [`crypt`](Self::crypt), zeroing `buf` unless it succeeds.
    fn crypt_or_wipe(&mut self, buf: &mut [u8]) -> Option<Result<(), aekit::Error>> {
        let result = self.crypt(buf);
        if !matches!(result, Some(Ok(()))) {
            buf.fill(0);
        }
        result
    }

    /// Whether `finalize` has ended the stream.
    fn finalized(&self) -> bool {
        match self {
            State::Encrypt(c) => c.borrow_dependent().is_none(),
            State::Decrypt(c) => c.borrow_dependent().is_none(),
        }
    }

    /// Runs the next piece into `out`, as long as the piece (possibly
    /// uninitialized; every byte is written, and on an error none, or
    /// zeros where the piece overlapped `out`): in one
    /// pass with the GIL released where the piece does not overlap `out`
    /// (see `Input::beside`), else copied there first and run in place.
    fn step_into(
        &mut self,
        py: Python<'_>,
        data: &Input<'_>,
        out: &mut [MaybeUninit<u8>],
    ) -> PyResult<()> {
        if self.finalized() {
            return Err(errors::already_finalized(py));
        }
        let result = match data.beside(out) {
            Some(input) => detach_from(py, out.len(), || self.crypt_into(input, out)),
            None => {
                let text = data.copy_to_space(py, out)?;
                detach_from(py, text.len(), || self.crypt_or_wipe(text))
            }
        };
        match result {
            None => Err(errors::already_finalized(py)),
            Some(r) => r.map_err(|e| errors::aead(py, e)),
        }
    }
}

/// The base class of the AES-GCM streams: the steps both directions take.
#[pyclass(subclass, module = "aekit._aekit", name = "AESGCMContext")]
pub struct Context {
    state: State,
    /// Whether `update` or `update_into` was called, even with an empty
    /// piece: associated data is refused after it, as `cryptography`
    /// does (aekit's stream counts only non-empty pieces).
    updated: bool,
}

#[pymethods]
impl Context {
    /// Authenticates `data` without encrypting it; all of it must come
    /// before the first `update`, even an empty one (else
    /// `AlreadyUpdated`).
    fn authenticate_additional_data(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        // Finalized first, as `cryptography` checks.
        if self.updated && !self.state.finalized() {
            return Err(errors::already_updated(py));
        }
        let data = Input::new(data, "data")?.to_cow(py)?;
        match detach_from(py, data.len(), || self.state.aad(&data)) {
            None => Err(errors::already_finalized(py)),
            Some(r) => r.map_err(|e| errors::aead(py, e)),
        }
    }

    /// Processes the next piece of the message and returns it. When
    /// decrypting, **it is not yet authenticated**.
    fn update<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let data = Input::new(data, "data")?;
        self.updated = true;
        new_bytes(py, data.len(), |out| self.state.step_into(py, &data, out))
    }

    /// Processes the next piece into the start of `buf` (at least
    /// `len(data)` bytes); returns the number of bytes written.
    fn update_into(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let data = Input::new(data, "data")?;
        let mut slot = Slot::new();
        let out = Output::new(buf, "buf", &mut slot)?;
        if out.len() < data.len() {
            return Err(PyValueError::new_err(format!(
                "buffer must be at least {} bytes for this payload",
                data.len()
            )));
        }
        let len = data.len();
        self.updated = true;
        out.with_space(|space| self.state.step_into(py, &data, &mut space[..len]))?;
        Ok(len)
    }
}

/// An AES-GCM encryption in progress (from `AESGCM.encryptor(nonce)`).
///
/// Give all associated data first (`authenticate_additional_data`), then
/// the message in pieces of any size (`update`); `finalize()` ends it and
/// `tag` is then the 16-byte tag. The ciphertext equals that of the
/// one-shot `encrypt` for any split.
#[pyclass(extends = Context, module = "aekit", name = "AESGCMEncryptor")]
pub struct Encryptor {
    tag: Option<[u8; TAG_LEN]>,
}

impl Encryptor {
    pub fn start(
        py: Python<'_>,
        gcm: Arc<AesGcm>,
        nonce: &[u8],
    ) -> PyResult<PyClassInitializer<Encryptor>> {
        let cell = EncryptCell::try_new(gcm, |gcm| gcm.encryptor(nonce).map(Some))
            .map_err(|e| errors::aead(py, e))?;
        let base = Context {
            state: State::Encrypt(cell),
            updated: false,
        };
        Ok(PyClassInitializer::from(base).add_subclass(Encryptor { tag: None }))
    }
}

#[pymethods]
impl Encryptor {
    /// Ends the message; returns `b""` (GCM holds nothing back). The tag
    /// is then in `tag`.
    fn finalize<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let finished = match &mut slf.as_super().state {
            State::Encrypt(c) => c.with_dependent_mut(|_, e| e.take().map(|e| e.finish(TAG_LEN))),
            State::Decrypt(_) => None,
        };
        let tag = finished
            .ok_or_else(|| errors::already_finalized(py))?
            .map_err(|e| errors::aead(py, e))?;
        let mut bytes = [0u8; TAG_LEN];
        bytes.copy_from_slice(tag.as_bytes());
        slf.tag = Some(bytes);
        Ok(PyBytes::new(py, b""))
    }

    /// The 16-byte tag, once `finalize()` has been called.
    #[getter]
    fn tag<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match &self.tag {
            Some(tag) => Ok(PyBytes::new(py, tag)),
            None => Err(errors::not_yet_finalized(py)),
        }
    }
}

/// An AES-GCM decryption in progress (from `AESGCM.decryptor(nonce)`).
///
/// **`update` returns plaintext before it is authenticated.** Nothing it
/// returns may be acted on, stored or shown until `finalize_with_tag`
/// returns; if that raises `InvalidTag`, discard all of it. Prefer the
/// one-shot `AESGCM.decrypt` when the message fits in memory.
#[pyclass(extends = Context, module = "aekit", name = "AESGCMDecryptor")]
pub struct Decryptor {}

impl Decryptor {
    pub fn start(
        py: Python<'_>,
        gcm: Arc<AesGcm>,
        nonce: &[u8],
    ) -> PyResult<PyClassInitializer<Decryptor>> {
        let cell = DecryptCell::try_new(gcm, |gcm| gcm.decryptor(nonce).map(Some))
            .map_err(|e| errors::aead(py, e))?;
        let base = Context {
            state: State::Decrypt(cell),
            updated: false,
        };
        Ok(PyClassInitializer::from(base).add_subclass(Decryptor {}))
    }
}

#[pymethods]
impl Decryptor {
    /// Ends the message and checks `tag` (16 bytes) in constant time;
    /// returns `b""`, or raises `InvalidTag`.
    fn finalize_with_tag<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
        tag: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let tag = Input::new(tag, "tag")?.to_cow(py)?;
        if tag.len() < TAG_LEN {
            return Err(PyValueError::new_err(format!(
                "Authentication tag must be {TAG_LEN} bytes or longer."
            )));
        }
        if tag.len() > TAG_LEN {
            return Err(PyValueError::new_err(format!(
                "Authentication tag cannot be more than {TAG_LEN} bytes."
            )));
        }
        let finished = match &mut slf.as_super().state {
            State::Decrypt(c) => c.with_dependent_mut(|_, d| d.take().map(|d| d.finish(&tag))),
            State::Encrypt(_) => None,
        };
        finished
            .ok_or_else(|| errors::already_finalized(py))?
            .map_err(|e| errors::aead(py, e))?;
        Ok(PyBytes::new(py, b""))
    }
}
