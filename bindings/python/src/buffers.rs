//! Byte strings in and out of Python.
//!
//! Inputs are any object with the buffer protocol, as `cryptography`
//! accepts them (`bytes`, `bytearray`, `memoryview`, `array('B')`, NumPy
//! `uint8` arrays): the one-shot calls read the message where it lies
//! ([`Input::beside`]), unless it overlaps their output, when it is copied
//! into the output first with the GIL held; the nonce and the associated
//! data are copied out of a mutable buffer ([`Input::to_cow`]). Outputs
//! are new `bytes` objects, whose storage is handed to the computation
//! uninitialized ([`new_bytes`]: no zeroing first) and filled before
//! Python sees them, or a caller's writable buffer, written where it lies
//! ([`Output::with_space`], [`Output::with_bytes`]).
//!
//! This module holds the bindings' only unsafe code: those two views of
//! memory Python owns, and the copies into them. Every block says why it
//! is sound; what it cannot rule out is the caller's own: another thread
//! writing the output buffer of an `*_into` call, or a mutable input,
//! while it runs (as with `cryptography`, whose calls also write the
//! buffer with the GIL released, and `hashlib`, which reads buffers with
//! it released).
//!
//! Work on 2 KiB or more runs with the GIL released ([`detach_from`],
//! the threshold `hashlib` uses), so other Python threads run meanwhile;
//! below it, releasing and retaking the GIL would cost more than the
//! encryption.

use std::borrow::Cow;
use std::mem::MaybeUninit;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
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

    /// The bytes where they lie, to be read with the GIL released, unless
    /// they overlap `out` (a buffer and a view of it: the caller then
    /// copies them first, which `ptr::copy` does for any overlap).
    ///
    /// A `bytes` object cannot change. Another buffer can: Python does
    /// not stop a thread that runs without the GIL (a C extension's
    /// `recv_into`, a free-threaded build) from writing it meanwhile.
    /// Such a write is a race in the caller's program, as it is for
    /// `hashlib`, which also reads buffers where they lie with the GIL
    /// released from 2 KiB; aekit's kernels are constant-time (no byte of
    /// data steers a branch or an address), so the race changes the
    /// bytes written and nothing else. Copying the buffer first, with the
    /// GIL held, cost more than the encryption it fed (1 MiB: 109 µs a
    /// call against 75 from `bytes`).
    pub fn beside(&self, out: &[MaybeUninit<u8>]) -> Option<&[u8]> {
        let input = match self {
            Input::Bytes(b) => return Some(b),
            Input::Buffer(b) => {
                let (start, len) = (b.buf_ptr().cast_const().cast::<u8>(), b.item_count());
                // SAFETY: a C-contiguous buffer of `len` `u8` items
                // (checked by `Input::new`), exported to us while `self`
                // lives (the exporter may not resize or free it
                // meanwhile); on writers Python allows, see above.
                unsafe { core::slice::from_raw_parts(start, len) }
            }
        };
        let (inside, outside) = (input.as_ptr_range(), out.as_ptr_range());
        let apart = inside.end as usize <= outside.start as usize
            || outside.end as usize <= inside.start as usize;
        (apart || input.is_empty()).then_some(input)
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

    /// Copies the bytes into `out`, which is exactly [`len`](Self::len)
    /// long and may be uninitialized (or overlap this input: a buffer and
    /// a view of it), and returns it written.
    pub fn copy_to_space<'o>(
        &self,
        _py: Python<'_>,
        out: &'o mut [MaybeUninit<u8>],
    ) -> PyResult<&'o mut [u8]> {
        let (src, len) = match self {
            Input::Bytes(b) => (b.as_ptr(), b.len()),
            Input::Buffer(b) => (b.buf_ptr().cast_const().cast::<u8>(), b.item_count()),
        };
        if len != out.len() {
            return Err(PyValueError::new_err("input and output lengths differ"));
        }
        // SAFETY: `src` is `len` readable bytes (a `bytes` object's, or a
        // C-contiguous buffer of `u8` items, checked by `Input::new`),
        // alive while `self` is; the GIL is held (`_py`), so no Python
        // thread changes them meanwhile; `out` is `len` writable bytes.
        // They may overlap (a buffer and a memoryview of it), hence
        // `copy`, not `copy_nonoverlapping`; every byte of `out` is then
        // written.
        unsafe {
            core::ptr::copy(src, out.as_mut_ptr().cast::<u8>(), len);
            Ok(assume_written(out))
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

    /// Runs `f` on the buffer's memory, seen as output space (it is
    /// initialized, and `f` writes only initialized bytes into it, so it
    /// stays so). The caller must not use the buffer from another thread
    /// meanwhile, as with `cryptography`'s `*_into` calls.
    pub fn with_space<T>(&self, f: impl FnOnce(&mut [MaybeUninit<u8>]) -> T) -> T {
        let (ptr, len) = (self.buffer.buf_ptr().cast::<MaybeUninit<u8>>(), self.len());
        // SAFETY: a writable, C-contiguous buffer of `len` `u8` items
        // (checked by `Output::new`), exported to us while `self.buffer`
        // lives (the exporter may not resize or free it meanwhile);
        // `MaybeUninit<u8>` has `u8`'s layout and no validity rule, and
        // only initialized bytes are stored through it.
        let space = unsafe { core::slice::from_raw_parts_mut(ptr, len) };
        f(space)
    }

    /// Runs `f` on the buffer's bytes (Python's buffers are initialized
    /// memory), under the rule of [`with_space`](Self::with_space).
    pub fn with_bytes<T>(&self, f: impl FnOnce(&mut [u8]) -> T) -> T {
        let (ptr, len) = (self.buffer.buf_ptr().cast::<u8>(), self.len());
        // SAFETY: as in `with_space`; the bytes of an exported buffer are
        // initialized.
        let bytes = unsafe { core::slice::from_raw_parts_mut(ptr, len) };
        f(bytes)
    }
}

/// A new `bytes` object of `len` bytes, filled by `fill`, which gets its
/// storage uninitialized (not zeroed first: for 1 MiB the zeroing cost a
/// fifth of an encryption) and must write every byte of it when it
/// returns `Ok`; on `Err` the object is freed unseen.
pub fn new_bytes(
    py: Python<'_>,
    len: usize,
    fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> PyResult<()>,
) -> PyResult<Bound<'_, PyBytes>> {
    let size = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| PyValueError::new_err("too long for a bytes object"))?;
    // SAFETY: a null pointer asks CPython for a new object with `len`
    // bytes of uninitialized contents; the result is an owned reference
    // or null with an exception set, which `from_owned_ptr_or_err` turns
    // into the error; the object is a `bytes`.
    let bytes = unsafe {
        let ptr = ffi::PyBytes_FromStringAndSize(core::ptr::null(), size);
        Bound::from_owned_ptr_or_err(py, ptr)?.cast_into_unchecked::<PyBytes>()
    };
    // SAFETY: the object is a new `bytes` of `len` bytes that nothing else
    // references yet, so its storage is ours to write until it is
    // returned; `MaybeUninit<u8>` has no validity rule.
    let space = unsafe {
        let data = ffi::PyBytes_AsString(bytes.as_ptr()).cast::<MaybeUninit<u8>>();
        core::slice::from_raw_parts_mut(data, len)
    };
    fill(space)?;
    Ok(bytes)
}

/// Copies `input` into `out` (of the same length) and returns it written.
pub fn copy_into<'o>(out: &'o mut [MaybeUninit<u8>], input: &[u8]) -> &'o mut [u8] {
    assert_eq!(
        out.len(),
        input.len(),
        "copy into a buffer of the same length"
    );
    // SAFETY: `input` is readable and `out` writable for `out.len()`
    // bytes, a shared and a mutable borrow, which do not overlap; every
    // byte of `out` is then written.
    unsafe {
        core::ptr::copy_nonoverlapping(input.as_ptr(), out.as_mut_ptr().cast::<u8>(), out.len());
        assume_written(out)
    }
}

/// `out` once every byte has been written.
///
/// # Safety
/// Every byte of `out` must have been written.
unsafe fn assume_written(out: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout; the bytes are
    // initialized (the caller's promise).
    unsafe { &mut *(core::ptr::from_mut(out) as *mut [u8]) }
}
