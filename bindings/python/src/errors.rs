//! aekit's errors as Python exceptions.
//!
//! The exception classes live in `aekit/exceptions.py`, where each one
//! subclasses `cryptography`'s class of the same name when `cryptography`
//! is installed (so `except cryptography.exceptions.InvalidTag` keeps
//! working after a switch to aekit) and `Exception` otherwise. Rust looks
//! them up once and raises them; nothing here decides their base.

use pyo3::exceptions::{PyOSError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

use aekit::chunked;

/// The Python module that defines aekit's exception classes.
const MODULE: &str = "aekit.exceptions";

/// An instance of the class `name` of `aekit.exceptions`, with `message`
/// (no arguments when it is empty, like `cryptography`'s `InvalidTag()`).
fn raise(py: Python<'_>, cell: &PyOnceLock<Py<PyType>>, name: &str, message: &str) -> PyErr {
    match cell.import(py, MODULE, name) {
        Ok(class) if message.is_empty() => PyErr::from_type(class.clone(), ()),
        Ok(class) => PyErr::from_type(class.clone(), (message.to_owned(),)),
        Err(e) => e,
    }
}

/// `aekit.InvalidTag`: the tag did not verify.
pub fn invalid_tag(py: Python<'_>, message: &str) -> PyErr {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    raise(py, &CLASS, "InvalidTag", message)
}

/// `aekit.AlreadyFinalized`: a streaming object used after its end.
pub fn already_finalized(py: Python<'_>) -> PyErr {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    raise(
        py,
        &CLASS,
        "AlreadyFinalized",
        "Context was already finalized.",
    )
}

/// `aekit.AlreadyUpdated`: associated data given after message data.
pub fn already_updated(py: Python<'_>) -> PyErr {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    raise(
        py,
        &CLASS,
        "AlreadyUpdated",
        "Update has been called on this context.",
    )
}

/// `aekit.NotYetFinalized`: the tag asked for before the end.
pub fn not_yet_finalized(py: Python<'_>) -> PyErr {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    raise(
        py,
        &CLASS,
        "NotYetFinalized",
        "You must finalize encryption before getting the tag.",
    )
}

/// An error of the AEAD layer as the exception a Python user expects:
/// `InvalidTag` for a failed check, `OverflowError` for lengths past the
/// algorithm's limits, `ValueError` for the rest (with aekit's message).
pub fn aead(py: Python<'_>, e: aekit::Error) -> PyErr {
    use aekit::Error as E;
    match e {
        E::AuthenticationFailed => invalid_tag(py, ""),
        E::AadAfterMessage => already_updated(py),
        E::MessageTooLong | E::AadTooLong | E::IvTooLong => PyOverflowError::new_err(e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// An error of chunked encryption: `InvalidTag` (with the library's
/// explanation) for a wrong key, a modified or truncated file; `ValueError`
/// for a key of the wrong size; the original exception for a failing
/// Python file object; `OSError` for other I/O.
pub fn chunked(py: Python<'_>, e: chunked::Error) -> PyErr {
    use chunked::Error as E;
    match e {
        E::Io(io) => PyErr::from(io),
        E::Commitment | E::Truncated | E::Authentication { .. } => invalid_tag(py, &e.to_string()),
        E::TooLong => PyOverflowError::new_err(e.to_string()),
        E::Random => PyOSError::new_err(e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}
