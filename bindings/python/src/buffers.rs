//! Byte strings in and out of Python, without unsafe code.
//!
//! Inputs are any object with the buffer protocol, as `cryptography`
//! accepts them: `bytes` is read where it lies (it is immutable), anything
//! else (`bytearray`, `memoryview`, `array('B')`, NumPy `uint8` arrays) is
//! copied out while the GIL is held, so no other Python thread can change
//! it under the computation. Outputs are either new `bytes` objects,
//! filled before Python sees them, or a caller's writable buffer, written
//! through `PyBuffer::copy_from_slice`.
//!
//! Work on 2 KiB or more runs with the GIL released ([`detach_from`],
//! the threshold `hashlib` uses), so other Python threads run meanwhile;
//! below it, releasing and retaking the GIL would cost more than the
//! encryption.

use std::borrow::Cow;
use std::cell::RefCell;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PySlice};
use zeroize::Zeroizing;

/// Inputs of this many bytes or more are processed with the GIL released.
pub const DETACH_FROM: usize = 2048;

/// Runs `f`, releasing the GIL when `bytes` reach [`DETACH_FROM`].
pub fn detach_from<T, F>(py: Python<'_>, bytes: usize, f: F) -> T
where
    F: Send + FnOnce() -> T,
    T: Send,
{
    if bytes >= DETACH_FROM {
        py.detach(f)
    } else {
        f()
    }
}

/// Scratch buffers of up to this many bytes are kept, one per thread, and
/// reused: a fresh buffer costs its page faults on every call (for 1 MiB
/// about as long as encrypting it), more than the copy it serves.
const KEPT_SCRATCH: usize = 4 << 20;

thread_local! {
    /// This thread's kept scratch buffer (empty while lent out).
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on a scratch buffer of `len` bytes whose contents are
/// unspecified (`f` must write what it reads), and wipes it afterwards
/// when it held a `secret`. Up to [`KEPT_SCRATCH`] bytes it is this
/// thread's kept buffer, grown as needed; longer, a fresh one.
pub fn with_scratch<T>(len: usize, secret: bool, f: impl FnOnce(&mut [u8]) -> T) -> T {
    let mut buf = if len <= KEPT_SCRATCH {
        SCRATCH.with(|s| s.take())
    } else {
        Vec::new()
    };
    if buf.len() < len {
        // Grown to the length asked for: the old bytes are wiped first if
        // they may be secret (a reallocation leaves them behind).
        aekit::secret::wipe(&mut buf);
        buf = vec![0; len];
    }
    let out = f(&mut buf[..len]);
    if secret {
        aekit::secret::wipe(&mut buf[..len]);
    }
    if buf.len() <= KEPT_SCRATCH {
        SCRATCH.with(|s| s.replace(buf));
    }
    out
}

/// A read-only byte-string argument.
pub enum Input<'a> {
    /// A `bytes` object, read in place.
    Bytes(&'a [u8]),
    /// Any other contiguous buffer of bytes.
    Buffer(PyBuffer<u8>),
}

impl<'a> Input<'a> {
    /// The argument `name` as bytes; `TypeError` for an object without the
    /// buffer protocol or whose items are not bytes, `BufferError` for a
    /// non-contiguous one (as `cryptography` does).
    pub fn new(obj: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Input<'a>> {
        if let Ok(bytes) = obj.cast::<PyBytes>() {
            return Ok(Input::Bytes(bytes.as_bytes()));
        }
        let buffer = PyBuffer::<u8>::get(obj).map_err(|_| not_bytes(obj, name))?;
        if !buffer.is_c_contiguous() {
            return Err(PyBufferError::new_err("Buffer is not contiguous."));
        }
        Ok(Input::Buffer(buffer))
    }

    /// An optional argument (`None` is the empty string).
    pub fn optional(obj: Option<&'a Bound<'_, PyAny>>, name: &str) -> PyResult<Input<'a>> {
        match obj {
            Some(obj) if !obj.is_none() => Input::new(obj, name),
            _ => Ok(Input::Bytes(&[])),
        }
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Input::Bytes(b) => b.len(),
            Input::Buffer(b) => b.item_count(),
        }
    }

    /// The bytes of an immutable `bytes` object, which no thread can change
    /// while it is read without the GIL; `None` for other buffers.
    pub fn immutable(&self) -> Option<&'a [u8]> {
        match self {
            Input::Bytes(b) => Some(b),
            Input::Buffer(_) => None,
        }
    }

    /// Copies the bytes into `out`, which is exactly [`len`](Self::len) long.
    pub fn copy_to(&self, py: Python<'_>, out: &mut [u8]) -> PyResult<()> {
        match self {
            Input::Bytes(b) => {
                out.copy_from_slice(b);
                Ok(())
            }
            Input::Buffer(b) => b.copy_to_slice(py, out),
        }
    }

    /// A copy of the bytes that is wiped when dropped, for keys.
    pub fn to_secret(&self, py: Python<'_>) -> PyResult<Zeroizing<Vec<u8>>> {
        Ok(Zeroizing::new(self.to_cow(py)?.into_owned()))
    }

    /// The bytes as a slice: borrowed from `bytes`, copied from the rest.
    pub fn to_cow(&self, py: Python<'_>) -> PyResult<Cow<'a, [u8]>> {
        match self {
            Input::Bytes(b) => Ok(Cow::Borrowed(b)),
            Input::Buffer(b) => b.to_vec(py).map(Cow::Owned),
        }
    }
}

/// The `TypeError` for an argument that is not a byte string.
fn not_bytes(obj: &Bound<'_, PyAny>, name: &str) -> PyErr {
    let type_name = obj
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    PyTypeError::new_err(format!(
        "argument '{name}': a bytes-like object is required, not '{type_name}'"
    ))
}

/// A caller's writable buffer, the destination of the `*_into` methods.
pub struct Output {
    buffer: PyBuffer<u8>,
}

impl Output {
    /// The argument `name` as a writable contiguous buffer of bytes.
    pub fn new(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Output> {
        let buffer = PyBuffer::<u8>::get(obj).map_err(|_| not_bytes(obj, name))?;
        if buffer.readonly() {
            return Err(PyTypeError::new_err(format!(
                "argument '{name}': Buffer is not writable."
            )));
        }
        if !buffer.is_c_contiguous() {
            return Err(PyBufferError::new_err("Buffer is not contiguous."));
        }
        Ok(Output { buffer })
    }

    /// The buffer's length in bytes.
    pub fn len(&self) -> usize {
        self.buffer.item_count()
    }

    /// Fails with `ValueError` unless the buffer is exactly `len` bytes,
    /// the rule of `cryptography`'s `encrypt_into` and `decrypt_into`.
    pub fn require_exactly(&self, len: usize) -> PyResult<()> {
        if self.len() == len {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!("buffer must be {len} bytes")))
        }
    }

    /// Writes `data` to the start of the buffer, which is at least as long
    /// (`obj` is the object the buffer came from, sliced when longer).
    pub fn write_prefix(&self, obj: &Bound<'_, PyAny>, data: &[u8]) -> PyResult<()> {
        let py = obj.py();
        if data.len() == self.len() {
            return self.buffer.copy_from_slice(py, data);
        }
        // `copy_from_slice` writes whole buffers: take a memoryview of the
        // first `data.len()` bytes.
        let view = py
            .import("builtins")?
            .getattr("memoryview")?
            .call1((obj,))?
            .call_method1("cast", ("B",))?
            .get_item(PySlice::new(py, 0, data.len() as isize, 1))?;
        PyBuffer::<u8>::get(&view)?.copy_from_slice(py, data)
    }
}
