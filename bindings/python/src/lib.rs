//! Python bindings of aekit: the native module `aekit._aekit`, which the
//! Python package `aekit` (under `python/`) re-exports.
//!
//! A thin layer over aekit's public Rust API, with no cryptography of its
//! own: `AESGCM` (a drop-in for `cryptography`'s), its on-line encryptor
//! and decryptor, `AETHER`, and C2SP chunked file encryption. The only
//! unsafe code is `buffers.rs`'s: results written straight into memory
//! Python owns (a new `bytes` object's storage, a caller's buffer).
#![deny(unsafe_code)]

mod aether;
#[allow(unsafe_code)] // views of Python-owned memory; every block carries a SAFETY line.
mod buffers;
mod chunked;
mod errors;
mod gcm;
mod oneshot;
mod pool;
mod stream;

use pyo3::prelude::*;

/// The native half of the `aekit` package.
#[pymodule]
fn _aekit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<oneshot::AeadBase>()?;
    m.add_class::<gcm::AesGcm>()?;
    m.add_class::<stream::Context>()?;
    m.add_class::<stream::Encryptor>()?;
    m.add_class::<stream::Decryptor>()?;
    m.add_class::<aether::Aether>()?;
    m.add_class::<chunked::ChunkedReader>()?;
    m.add_function(wrap_pyfunction!(chunked::encrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(chunked::decrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(pool::set_threads, m)?)?;
    m.add("DETACH_FROM", buffers::DETACH_FROM)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
