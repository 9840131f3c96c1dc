//! Byte strings in and out of Python.
//!
//! Inputs are any object with the buffer protocol whose memory is
//! C-contiguous, taken as the bytes it lies in whatever its item format
//! (`bytes`, `bytearray`, `memoryview`, `array('B')` or `array('I')`,
//! NumPy arrays of any dtype: `cryptography` takes the byte formats only,
//! and refuses the others with `TypeError`); a buffer that is not
//! C-contiguous raises `BufferError`, as in `cryptography`. The one-shot
//! calls read the message where it lies ([`Input::beside`]), unless it
//! overlaps their output, when it is copied into the output first with
//! the GIL held; the nonce and the associated data are copied out of a
//! mutable buffer ([`Input::to_cow`]). Outputs are new `bytes` objects,
//! whose storage is handed to the computation uninitialized
//! ([`new_bytes`]: no zeroing first) and filled before Python sees them,
//! or a caller's writable buffer of any format, written where it lies
//! ([`Output::with_space`], [`Output::with_bytes`]).
//!
//! This module holds the bindings' only unsafe code: those two views of
//! memory Python owns, and the copies into them. Every block says why it
//! is sound; what it cannot rule out is the caller's own: another thread
//! writing the output buffer of an `*_into` call, or a mutable input,
//! while it runs (as with `cryptography`, whose calls also write the
//! buffer with the GIL released, and `hashlib`, which reads buffers with
//! it released). An exporter may give an empty buffer a null pointer,
//! which no slice may hold: every view of Python's memory is made by
//! [`slice_at`] or [`slice_at_mut`], which give an empty buffer the empty
//! slice, and a non-empty buffer without memory is refused when it is
//! taken ([`memory`], [`view_memory`]).
//!
//! A short call costs mostly what surrounds the encryption, so the common
//! cases take the fewest calls into the interpreter: an exact `bytes` is
//! recognized by its type pointer and read by one call and its header's
//! length ([`exact_bytes`]; a subclass of `bytes` and every other buffer
//! take the general path); an output buffer is exported into a
//! `Py_buffer` in the caller's frame ([`Slot`]), not a boxed one, and its
//! contiguity is seen without a call for the one-dimensional layout of
//! every `bytearray` ([`view_memory`]). Rejected: reading a `bytes`
//! object's storage at its offset in the object (not in the stable ABI);
//! method tables written by hand around pyo3's trampoline and its
//! thread-state guard (unsafe code the whole API would then depend on).
//!
//! Work on 2 KiB or more runs with the GIL released ([`detach_from`],
//! the threshold `hashlib` uses), so other Python threads run meanwhile;
//! below it, releasing and retaking the GIL would cost more than the
//! encryption.

use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

/// Inputs of this many bytes or more are processed with the GIL released.
pub const DETACH_FROM: usize = 2048;

/// Runs `f`, releasing the GIL when `bytes` reach [`DETACH_FROM`].
#[inline(always)]
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
    /// Any other C-contiguous buffer, read as its bytes.
    Buffer {
        /// Exported to us while this lives (the exporter may not resize
        /// or free it meanwhile).
        _export: PyUntypedBuffer,
        /// Its start, dangling (not null) when it is empty.
        start: *const u8,
        /// Its length in bytes.
        len: usize,
    },
}

impl<'a> Input<'a> {
    /// The argument `name` as bytes; `TypeError` for an object without the
    /// buffer protocol, `BufferError` for a buffer that is not
    /// C-contiguous (as `cryptography` does).
    #[inline]
    pub fn new(obj: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Input<'a>> {
        match exact_bytes(obj)? {
            Some(bytes) => Ok(Input::Bytes(bytes)),
            None => Input::other(obj, name),
        }
    }

    /// [`Input::new`] of anything but an exact `bytes`: a subclass of
    /// `bytes`, or another buffer.
    #[inline(never)]
    fn other(obj: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Input<'a>> {
        if let Ok(bytes) = obj.cast::<PyBytes>() {
            return Ok(Input::Bytes(bytes.as_bytes()));
        }
        let export = PyUntypedBuffer::get(obj).map_err(|_| not_bytes(obj, name))?;
        let (start, len) = match memory(&export)? {
            Some((start, len)) => (start.cast_const(), len),
            None => (NonNull::<u8>::dangling().as_ptr().cast_const(), 0),
        };
        Ok(Input::Buffer {
            _export: export,
            start,
            len,
        })
    }

    /// An optional argument (`None` is the empty string).
    #[inline]
    pub fn optional(obj: Option<&'a Bound<'_, PyAny>>, name: &str) -> PyResult<Input<'a>> {
        match obj {
            Some(obj) if !obj.is_none() => Input::new(obj, name),
            _ => Ok(Input::Bytes(&[])),
        }
    }

    /// The length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.memory().1
    }

    /// The start and the length in bytes; the start is dangling, not
    /// null, when the length is 0.
    #[inline]
    fn memory(&self) -> (*const u8, usize) {
        match self {
            Input::Bytes(b) => (b.as_ptr(), b.len()),
            Input::Buffer { start, len, .. } => (*start, *len),
        }
    }

    /// The bytes, read where they lie; for reading with the GIL held
    /// (`_py`), when no Python thread changes them.
    #[inline]
    fn held(&self, _py: Python<'_>) -> &[u8] {
        match self {
            Input::Bytes(b) => b,
            Input::Buffer { start, len, .. } => {
                // SAFETY: `len` readable bytes of a C-contiguous buffer
                // (checked by `Input::new`), exported to us while `self`
                // lives (the exporter may not resize or free it
                // meanwhile), and unchanged by Python code while the GIL
                // is held.
                unsafe { slice_at(*start, *len) }
            }
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
    /// GIL held, would be a second pass over the message, as long as the
    /// encryption it feeds.
    #[inline]
    pub fn beside(&self, out: &[MaybeUninit<u8>]) -> Option<&[u8]> {
        if let Input::Bytes(b) = self {
            return Some(b);
        }
        let (start, len) = self.memory();
        // Compared as addresses before any slice of the input is made, so
        // none is made over the output's memory.
        let (inside, outside) = (start as usize, out.as_ptr_range());
        let apart = inside + len <= outside.start as usize || outside.end as usize <= inside;
        // SAFETY: `len` readable bytes of a C-contiguous buffer (checked
        // by `Input::new`), exported to us while `self` lives (the
        // exporter may not resize or free it meanwhile), apart from `out`;
        // on writers Python allows, see above.
        (apart || len == 0).then(|| unsafe { slice_at(start, len) })
    }

    /// Copies the bytes into `out`, which is exactly [`len`](Self::len) long.
    pub fn copy_to(&self, py: Python<'_>, out: &mut [u8]) -> PyResult<()> {
        let bytes = self.held(py);
        if bytes.len() != out.len() {
            return Err(PyValueError::new_err("input and output lengths differ"));
        }
        out.copy_from_slice(bytes);
        Ok(())
    }

    /// Copies the bytes into `out`, which is exactly [`len`](Self::len)
    /// long and may be uninitialized (or overlap this input: a buffer and
    /// a view of it), and returns it written.
    pub fn copy_to_space<'o>(
        &self,
        _py: Python<'_>,
        out: &'o mut [MaybeUninit<u8>],
    ) -> PyResult<&'o mut [u8]> {
        let (src, len) = self.memory();
        if len != out.len() {
            return Err(PyValueError::new_err("input and output lengths differ"));
        }
        // SAFETY: `src` is `len` readable bytes (a `bytes` object's, or a
        // C-contiguous buffer's, checked by `Input::new`; dangling, not
        // null, when `len` is 0), alive while `self` is; the GIL is held
        // (`_py`), so no Python thread changes them meanwhile; `out` is
        // `len` writable bytes. They may overlap (a buffer and a
        // memoryview of it), hence `copy`, not `copy_nonoverlapping`;
        // every byte of `out` is then written.
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
    #[inline]
    pub fn to_cow(&self, py: Python<'_>) -> PyResult<Cow<'a, [u8]>> {
        match self {
            Input::Bytes(b) => Ok(Cow::Borrowed(b)),
            Input::Buffer { .. } => Ok(Cow::Owned(self.held(py).to_vec())),
        }
    }
}

/// The start and the length in bytes of a buffer's memory (`None` when it
/// is empty, whose start may be null); `BufferError` for a buffer that is
/// not C-contiguous, or that is not empty and has no memory.
fn memory(buffer: &PyUntypedBuffer) -> PyResult<Option<(*mut u8, usize)>> {
    if !buffer.is_c_contiguous() {
        return Err(PyBufferError::new_err("Buffer is not contiguous."));
    }
    let (start, len) = (buffer.buf_ptr().cast::<u8>(), buffer.len_bytes());
    if len == 0 {
        return Ok(None);
    }
    if start.is_null() {
        return Err(PyBufferError::new_err("Buffer has a length but no memory."));
    }
    Ok(Some((start, len)))
}

/// The `len` bytes at `start`: the empty slice when `len` is 0, whatever
/// `start` is (an exporter may give an empty buffer a null pointer).
///
/// # Safety
/// When `len` is not 0, `start` must be `len` readable bytes that nothing
/// writes during `'m`.
unsafe fn slice_at<'m>(start: *const u8, len: usize) -> &'m [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: non-null and readable for `len` bytes (the caller's
    // promise); `u8` has alignment 1.
    unsafe { core::slice::from_raw_parts(start, len) }
}

/// The `len` items at `start`, writable: the empty slice when `len` is 0,
/// whatever `start` is.
///
/// # Safety
/// When `len` is not 0, `start` must be `len` items, aligned, valid for
/// reading and writing and used by nothing else during `'m`.
unsafe fn slice_at_mut<'m, T>(start: *mut T, len: usize) -> &'m mut [T] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: non-null, aligned, readable and writable for `len` items,
    // and not aliased (the caller's promise).
    unsafe { core::slice::from_raw_parts_mut(start, len) }
}

/// The bytes of `obj` when its type is exactly `bytes` (the common
/// case: a comparison of its type pointer, one call for its start, its
/// length read from the object's header); `None` for any other object, a
/// subclass of `bytes` included.
#[inline]
fn exact_bytes<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Option<&'a [u8]>> {
    // SAFETY: `obj` is a live object, whose type pointer this reads.
    if unsafe { ffi::PyBytes_CheckExact(obj.as_ptr()) } == 0 {
        return Ok(None);
    }
    // SAFETY: `obj` is a live `bytes`: the call returns its storage (null,
    // with an exception set, only for another type), and its header holds
    // its length (`ob_size`, in the stable ABI's `PyVarObject`).
    let (start, size) = unsafe {
        (
            ffi::PyBytes_AsString(obj.as_ptr()),
            ffi::Py_SIZE(obj.as_ptr()),
        )
    };
    if start.is_null() {
        return Err(PyErr::fetch(obj.py()));
    }
    let len = usize::try_from(size).unwrap_or(0);
    // SAFETY: the storage of a `bytes` object, `len` bytes that never
    // change, alive while `obj` is borrowed.
    Ok(Some(unsafe {
        slice_at(start.cast::<u8>().cast_const(), len)
    }))
}

/// The `TypeError` for an argument that is not a byte string.
#[cold]
fn not_bytes(obj: &Bound<'_, PyAny>, name: &str) -> PyErr {
    let type_name = obj
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    PyTypeError::new_err(format!(
        "argument '{name}': a bytes-like object is required, not '{type_name}'"
    ))
}

/// Room in the caller's frame for the `Py_buffer` of one [`Output`]. An
/// exporter may point into the struct itself (`bytearray` gives its own
/// `len` field as the shape), so it stays where it was filled until it is
/// released; the output borrows it there instead of boxing it.
pub struct Slot(MaybeUninit<ffi::Py_buffer>);

impl Slot {
    /// An empty slot.
    #[inline]
    pub fn new() -> Slot {
        Slot(MaybeUninit::uninit())
    }
}

/// A caller's writable buffer, the destination of the `*_into` methods:
/// any C-contiguous buffer, written as its bytes. Released when dropped.
/// Neither `Send` nor `Sync` (it holds raw pointers), so it is dropped
/// on the thread that took it, with the GIL held.
pub struct Output<'s> {
    /// Exported to us while this lives (the exporter may not resize or
    /// free it meanwhile), in the caller's [`Slot`].
    view: &'s mut ffi::Py_buffer,
    /// Its memory, from [`view_memory`]: `None` when it is empty.
    memory: Option<(*mut u8, usize)>,
}

impl<'s> Output<'s> {
    /// The argument `name` as a writable C-contiguous buffer, exported
    /// into `slot`.
    #[inline]
    pub fn new(obj: &Bound<'_, PyAny>, name: &str, slot: &'s mut Slot) -> PyResult<Output<'s>> {
        let target = slot.0.as_mut_ptr();
        // SAFETY: `obj` is a live object and `target` is room for a
        // `Py_buffer`, which the call fills when it returns 0.
        if unsafe { ffi::PyObject_GetBuffer(obj.as_ptr(), target, ffi::PyBUF_FULL_RO) } != 0 {
            drop(PyErr::fetch(obj.py()));
            return Err(not_bytes(obj, name));
        }
        // SAFETY: filled by the successful call above; released by
        // `Output`'s `drop`, before `slot` can be used again.
        let view = unsafe { &mut *target };
        let mut output = Output { view, memory: None };
        // A full request must describe the memory (pyo3's
        // `PyUntypedBuffer`, which reads the inputs, requires the same).
        if output.view.shape.is_null() || output.view.strides.is_null() {
            return Err(not_bytes(obj, name));
        }
        if output.view.readonly != 0 {
            return Err(PyTypeError::new_err(format!(
                "argument '{name}': Buffer is not writable."
            )));
        }
        output.memory = view_memory(output.view)?;
        Ok(output)
    }

    /// The buffer's length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.memory.map_or(0, |(_, len)| len)
    }

    /// The start of the buffer's memory, dangling (not null) when it is
    /// empty.
    #[inline]
    fn start(&self) -> *mut u8 {
        self.memory
            .map_or(NonNull::dangling().as_ptr(), |(start, _)| start)
    }

    /// Fails with `ValueError` unless the buffer is exactly `len` bytes,
    /// the rule of `cryptography`'s `encrypt_into` and `decrypt_into`.
    #[inline]
    pub fn require_exactly(&self, len: usize) -> PyResult<()> {
        if self.len() == len {
            Ok(())
        } else {
            Err(wrong_length(len))
        }
    }

    /// Runs `f` on the buffer's memory, seen as output space (it is
    /// initialized, and `f` writes only initialized bytes into it, so it
    /// stays so). The caller must not use the buffer from another thread
    /// meanwhile, as with `cryptography`'s `*_into` calls.
    #[inline]
    pub fn with_space<T>(&self, f: impl FnOnce(&mut [MaybeUninit<u8>]) -> T) -> T {
        let (start, len) = (self.start().cast::<MaybeUninit<u8>>(), self.len());
        // SAFETY: `len` bytes of a writable, C-contiguous buffer (checked
        // by `Output::new`), exported to us while `self` lives (the
        // exporter may not resize or free it meanwhile); `MaybeUninit<u8>`
        // has `u8`'s layout, alignment 1 and no validity rule, and only
        // initialized bytes are stored through it.
        let space = unsafe { slice_at_mut(start, len) };
        f(space)
    }

    /// Runs `f` on the buffer's bytes (Python's buffers are initialized
    /// memory), under the rule of [`with_space`](Self::with_space).
    pub fn with_bytes<T>(&self, f: impl FnOnce(&mut [u8]) -> T) -> T {
        // SAFETY: as in `with_space`; the bytes of an exported buffer are
        // initialized.
        let bytes = unsafe { slice_at_mut(self.start(), self.len()) };
        f(bytes)
    }
}

impl Drop for Output<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: a view filled by `PyObject_GetBuffer` and not yet
        // released; the GIL is held (an `Output` stays on the thread that
        // took it, which held the GIL then and holds it whenever it drops
        // a value it owns).
        unsafe { ffi::PyBuffer_Release(self.view) }
    }
}

/// The `ValueError` for an output buffer of the wrong length.
#[cold]
fn wrong_length(len: usize) -> PyErr {
    PyValueError::new_err(format!("buffer must be {len} bytes"))
}

/// [`memory`] of an exported view: `BufferError` for a buffer that is not
/// C-contiguous, or that is not empty and has no memory. A buffer of one
/// dimension whose stride is its item size (any `bytearray`, any
/// `memoryview` of contiguous bytes) is C-contiguous without asking the
/// interpreter.
#[inline]
fn view_memory(view: &ffi::Py_buffer) -> PyResult<Option<(*mut u8, usize)>> {
    // SAFETY: `strides` is not null (checked by `Output::new`) and a view
    // of `ndim` dimensions has `ndim` strides.
    let plain =
        view.ndim == 1 && view.suboffsets.is_null() && unsafe { *view.strides } == view.itemsize;
    // SAFETY: a filled view.
    if !plain && unsafe { ffi::PyBuffer_IsContiguous(view, b'C' as core::ffi::c_char) } == 0 {
        return Err(PyBufferError::new_err("Buffer is not contiguous."));
    }
    let (start, len) = (
        view.buf.cast::<u8>(),
        usize::try_from(view.len).unwrap_or(0),
    );
    if len == 0 {
        return Ok(None);
    }
    if start.is_null() {
        return Err(PyBufferError::new_err("Buffer has a length but no memory."));
    }
    Ok(Some((start, len)))
}

/// A new `bytes` object of `len` bytes, filled by `fill`, which gets its
/// storage uninitialized (not zeroed first: for 1 MiB the zeroing cost a
/// fifth of an encryption) and must write every byte of it when it
/// returns `Ok`; on `Err` the object is freed unseen.
#[inline(always)]
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
    // returned; `MaybeUninit<u8>` has alignment 1 and no validity rule.
    let space = unsafe {
        let data = ffi::PyBytes_AsString(bytes.as_ptr()).cast::<MaybeUninit<u8>>();
        slice_at_mut(data, len)
    };
    fill(space)?;
    Ok(bytes)
}

/// Copies `input` into `out` (of the same length) and returns it written.
#[inline]
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
