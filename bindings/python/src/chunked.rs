//! `aekit.chunked`: C2SP chunked encryption (Cobblestone) of files, over
//! paths and over Python file objects, in the same format as the `aekit`
//! command (`aekit encrypt` / `aekit decrypt` read what these write, and
//! the other way round).
//!
//! The key's length chooses the instantiation, as the command does:
//! 16 bytes Cobblestone-128 (AES-128-GCM), 32 bytes Cobblestone-256.
//! Whole files go through `aekit::chunked::{encrypt,decrypt}_parallel` on
//! at most [`MAX_THREADS`] threads (one per core by default) with the GIL
//! released; a Python file object is called back (with the GIL) for each
//! read or write. The seekable reader is `aekit::chunked::SeekReader`.
//!
//! A path given as the destination is written as the command writes its
//! `-o` file (`crates/aekit-cli/src/output.rs`): under a temporary name in
//! the same directory (`.NAME.RANDOM.aekit-tmp`, created exclusively, mode
//! 0600 for plaintext and 0666 less the umask for ciphertext), synced,
//! then moved onto the name only once everything succeeded; on any
//! failure the temporary file is removed, so a failed decryption leaves
//! no plaintext. An existing file is replaced only with `overwrite=True`
//! (the command's `--force`), and only if it is a regular file; without
//! it, the final step is `link` then `unlink`, which cannot replace a file
//! that appeared meanwhile.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use aekit::chunked::{self, Aead, SeekReader};
use pyo3::call::PyCallArgs;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};
use zeroize::Zeroizing;

use crate::buffers::{Input, Output, Slot, detach_from};
use crate::errors;

/// The most worker threads a whole-file call takes (and the default
/// uses), the bound of the command's `--threads`: each holds up to 2 MiB
/// of buffers, and past this more threads only add memory and start-up
/// time.
pub const MAX_THREADS: usize = 256;

/// A file given by path, or a Python file object called back for each
/// operation (with the GIL taken for the call).
enum Stream {
    File(File),
    Object(Py<PyAny>),
}

impl Stream {
    /// An input: a binary file object is used as it is (it has a `read`
    /// method); anything else must be a path (`str` or `os.PathLike`).
    fn open(obj: &Bound<'_, PyAny>) -> PyResult<Stream> {
        if obj.hasattr("read")? {
            return Ok(Stream::Object(obj.clone().unbind()));
        }
        let path: PathBuf = obj.extract().map_err(|_| {
            PyTypeError::new_err("expected a path or a binary file object with a read() method")
        })?;
        File::open(&path)
            .map(Stream::File)
            .map_err(|e| named(&path, e).into())
    }

    /// Calls `method(*args)` on the Python object.
    fn call<'py>(
        py: Python<'py>,
        obj: &Py<PyAny>,
        method: &str,
        args: impl PyCallArgs<'py>,
    ) -> io::Result<Bound<'py, PyAny>> {
        Ok(obj.bind(py).call_method1(method, args)?)
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::File(f) => f.read(buf),
            Stream::Object(obj) => Python::attach(|py| {
                let data = Stream::call(py, obj, "read", (buf.len(),))?;
                if data.is_none() {
                    // A non-blocking raw stream with nothing ready.
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                let data = Input::new(&data, "read()")?;
                let n = data.len();
                if n > buf.len() {
                    return Err(io::Error::other(
                        "read() returned more bytes than asked for",
                    ));
                }
                data.copy_to(py, &mut buf[..n])?;
                Ok(n)
            }),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Stream::File(f) => f.write(data),
            Stream::Object(obj) => Python::attach(|py| {
                let answer = Stream::call(py, obj, "write", (PyBytes::new(py, data),))?;
                taken(obj.bind(py), &answer, data.len())
            }),
        }
    }

    /// Writes until everything is taken; a file object that takes nothing
    /// (its `write` returns 0) is an error, not asked again.
    fn write_all(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            match self.write(data) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        format!(
                            "write() returned 0: the file took none of {} bytes",
                            data.len()
                        ),
                    ));
                }
                Ok(n) => data = &data[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::File(f) => f.flush(),
            // A sink without `flush` (a duck-typed one) holds nothing back.
            Stream::Object(obj) => Python::attach(|py| {
                if obj.bind(py).hasattr("flush")? {
                    Stream::call(py, obj, "flush", ())?;
                }
                Ok(())
            }),
        }
    }
}

impl Seek for Stream {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            Stream::File(f) => f.seek(to),
            Stream::Object(obj) => Python::attach(|py| {
                let (offset, whence) = match to {
                    SeekFrom::Start(n) => (n as i128, 0),
                    SeekFrom::Current(d) => (d as i128, 1),
                    SeekFrom::End(d) => (d as i128, 2),
                };
                Ok(Stream::call(py, obj, "seek", (offset, whence))?.extract::<u64>()?)
            }),
        }
    }
}

/// How many of the `offered` bytes a file object's `write` took, from what
/// it returned: an int from 0 to `offered` is that many (a short write:
/// the rest is offered again); `None` is all of them, as a duck-typed
/// sink's `write` returns (`io.BufferedWriter` and `io.BytesIO` return the
/// count), except from an `io.RawIOBase`, where it means that a
/// non-blocking stream would block (`BlockingIOError`). Anything else is
/// an `OSError`, as `io.BufferedWriter` treats a raw stream's bad count.
fn taken(sink: &Bound<'_, PyAny>, answer: &Bound<'_, PyAny>, offered: usize) -> io::Result<usize> {
    let py = sink.py();
    if answer.is_none() {
        let raw = py.import("io")?.getattr("RawIOBase")?;
        if sink.is_instance(&raw)? {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "write() returned None: the non-blocking raw stream would block",
            ));
        }
        return Ok(offered);
    }
    if answer.is_instance_of::<PyInt>() {
        return match answer.extract::<usize>() {
            Ok(n) if n <= offered => Ok(n),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "write() returned {answer}, not a count from 0 to the {offered} bytes offered"
                ),
            )),
        };
    }
    let kind = answer
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        format!("write() returned a {kind}, not None or a count of bytes written"),
    ))
}

/// An I/O error that names the file it is about.
fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// The destination of a whole-file operation: a Python object written as
/// it goes, or a path written under a temporary name and moved onto it at
/// the end.
enum Sink {
    Object(Stream),
    Path(PendingFile),
}

/// How a path given as the destination is written.
#[derive(Clone, Copy)]
struct PathRules {
    /// Replace an existing regular file (`overwrite=True`).
    overwrite: bool,
    /// Plaintext: created with mode 0600 (Unix).
    private: bool,
}

impl Sink {
    fn new(obj: &Bound<'_, PyAny>, rules: PathRules) -> PyResult<Sink> {
        if obj.hasattr("write")? {
            return Ok(Sink::Object(Stream::Object(obj.clone().unbind())));
        }
        let target: PathBuf = obj.extract().map_err(|_| {
            PyTypeError::new_err("expected a path or a binary file object with a write() method")
        })?;
        Ok(Sink::Path(PendingFile::create(target, rules)?))
    }

    fn writer(&mut self) -> &mut (dyn Write + Send) {
        match self {
            Sink::Object(stream) => stream,
            Sink::Path(pending) => &mut pending.file,
        }
    }

    /// Keeps what was written (moves a temporary file onto its name) after
    /// a success; removes it after a failure.
    fn finish<T>(self, result: Result<T, chunked::Error>) -> Result<T, chunked::Error> {
        match self {
            Sink::Object(mut stream) => {
                let value = result?;
                stream.flush()?;
                Ok(value)
            }
            // Dropped unkept (removed) on an error.
            Sink::Path(mut pending) => {
                let value = result?;
                pending.keep()?;
                Ok(value)
            }
        }
    }
}

/// A file being written under a temporary name beside its target; removed
/// when dropped unless [`keep`](PendingFile::keep) succeeded.
struct PendingFile {
    file: File,
    temporary: PathBuf,
    target: PathBuf,
    overwrite: bool,
    kept: bool,
}

impl PendingFile {
    /// Creates `.NAME.RANDOM.aekit-tmp` beside `target`, after checking
    /// that `target` may be written (`FileExistsError` if it exists and
    /// `overwrite` is not set).
    fn create(target: PathBuf, rules: PathRules) -> PyResult<PendingFile> {
        let name = target.file_name().ok_or_else(|| {
            PyValueError::new_err(format!("{}: not a file name", target.display()))
        })?;
        check_replaceable(&target, rules.overwrite)?;
        let mut tag = [0u8; 8];
        getrandom::fill(&mut tag).map_err(|e| io::Error::other(e.to_string()))?;
        let tag: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        let temporary =
            target.with_file_name(format!(".{}.{tag}.aekit-tmp", name.to_string_lossy()));
        let mut options = File::options();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(if rules.private { 0o600 } else { 0o666 });
        }
        let file = options.open(&temporary).map_err(|e| named(&temporary, e))?;
        Ok(PendingFile {
            file,
            temporary,
            target,
            overwrite: rules.overwrite,
            kept: false,
        })
    }

    /// Syncs the data and moves the file onto its target: by `rename`
    /// after checking the target once more when replacing is allowed,
    /// else by `link` then `unlink`, which fail if a file appeared there
    /// meanwhile.
    fn keep(&mut self) -> io::Result<()> {
        let target = &self.target;
        self.file.sync_all().map_err(|e| named(target, e))?;
        if self.overwrite {
            check_replaceable(target, true)?;
            fs::rename(&self.temporary, target).map_err(|e| named(target, e))?;
        } else {
            match fs::hard_link(&self.temporary, target) {
                Ok(()) => {
                    self.kept = true;
                    let _ = fs::remove_file(&self.temporary);
                }
                // A file system without hard links: check, then rename.
                Err(e)
                    if e.kind() != io::ErrorKind::AlreadyExists
                        && fs::symlink_metadata(target).is_err() =>
                {
                    fs::rename(&self.temporary, target).map_err(|e| named(target, e))?;
                }
                Err(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!("{}: appeared meanwhile; not replaced", target.display()),
                    ));
                }
            }
        }
        self.kept = true;
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// Refuses a target that exists without `overwrite` (`FileExistsError`),
/// and one that exists and is not a regular file at all (renaming over
/// a symbolic link replaces the link, not what it names; over a device,
/// turns it into a file).
fn check_replaceable(target: &Path, overwrite: bool) -> io::Result<()> {
    let Ok(meta) = fs::symlink_metadata(target) else {
        return Ok(());
    };
    if !overwrite {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{}: exists; pass overwrite=True to replace it",
                target.display()
            ),
        ));
    }
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "a special file"
    };
    Err(io::Error::other(format!(
        "{} is {what}, not a regular file; only a regular file is replaced",
        target.display()
    )))
}

/// The instantiation a key's length names, or `ValueError`.
fn aead_for(key: &[u8]) -> PyResult<Aead> {
    Aead::for_key_len(key.len()).ok_or_else(|| {
        PyValueError::new_err(format!(
            "a chunked-encryption key is 16 bytes (Cobblestone-128, AES-128-GCM) \
             or 32 bytes (Cobblestone-256, AES-256-GCM), not {}",
            key.len()
        ))
    })
}

/// The arguments both whole-file functions take, checked: the key and
/// the instantiation its length names, the context, the worker count (the
/// one given, or one per core, at most [`MAX_THREADS`]) and the opened
/// source.
struct Job {
    key: Zeroizing<Vec<u8>>,
    aead: Aead,
    context: Vec<u8>,
    threads: usize,
    input: Stream,
}

impl Job {
    fn new(
        key: &Bound<'_, PyAny>,
        src: &Bound<'_, PyAny>,
        context: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Job> {
        let py = key.py();
        let key = Input::new(key, "key")?.to_secret(py)?;
        let aead = aead_for(&key)?;
        let context = Input::optional(context, "context")?
            .to_cow(py)?
            .into_owned();
        let threads = worker_count(threads)?;
        let input = Stream::open(src)?;
        Ok(Job {
            key,
            aead,
            context,
            threads,
            input,
        })
    }
}

/// The worker count `threads=` asks for: an int from 1 to [`MAX_THREADS`]
/// (`ValueError` for any other int, `TypeError` for another type), or for
/// `None` one per core, at most [`MAX_THREADS`].
fn worker_count(threads: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    let Some(threads) = threads.filter(|t| !t.is_none()) else {
        return Ok(std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS));
    };
    if !threads.is_instance_of::<PyInt>() {
        let kind = threads
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        return Err(PyTypeError::new_err(format!(
            "threads must be an int or None, not '{kind}'"
        )));
    }
    match threads.extract::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(PyValueError::new_err(format!(
            "threads must be 1 to {MAX_THREADS} (or None: one per core, at most \
             {MAX_THREADS}), not {threads}"
        ))),
    }
}

/// Encrypts everything `src` holds into `dst` in the C2SP chunked format
/// (what `aekit encrypt` writes) and returns the plaintext length.
///
/// `key` is 16 bytes (Cobblestone-128) or 32 (Cobblestone-256); `context`
/// is bound into the key derivation and decryption needs the same. `src`
/// and `dst` are paths or binary file objects. `threads` is the number of
/// worker threads, 1 to 256 (default: one per core, at most 256);
/// another number raises `ValueError`.
///
/// A `dst` path appears only once the whole file is written (under a
/// temporary name beside it until then, mode 0666 less the umask). An
/// existing `dst` raises `FileExistsError` unless `overwrite` is true, and
/// then must be a regular file. A `dst` file object's `write` may return
/// the count it took (the rest is written again) or `None` (it took
/// everything).
#[pyfunction]
#[pyo3(signature = (key, src, dst, *, context = None, threads = None, overwrite = false))]
pub fn encrypt_file(
    py: Python<'_>,
    key: &Bound<'_, PyAny>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    context: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    overwrite: bool,
) -> PyResult<u64> {
    let mut job = Job::new(key, src, context, threads)?;
    let rules = PathRules {
        overwrite,
        private: false,
    };
    let mut sink = Sink::new(dst, rules)?;
    let result = py.detach(|| {
        let salt = chunked::random_salt()?;
        let (message_key, header) = chunked::seal_header(job.aead, &job.key, &job.context, &salt)?;
        let output = sink.writer();
        output.write_all(&header)?;
        chunked::encrypt_parallel(&message_key, &mut job.input, output, job.threads)
    });
    sink.finish(result).map_err(|e| errors::chunked(py, e))
}

/// Decrypts the C2SP chunked file `src` into `dst` and returns the
/// plaintext length; raises `InvalidTag` (saying what was wrong) for a wrong
/// key or context, a modified, truncated or extended file.
///
/// A `dst` path is written only if the whole file verifies: the plaintext
/// goes to a temporary file beside it, created with mode 0600 (readable
/// by its owner only), synced and moved onto `dst` at the end, and
/// removed on any failure. An existing `dst` raises `FileExistsError`
/// unless `overwrite` is true, and then must be a regular file. A `dst`
/// file object receives each chunk once it verified; after an error, what
/// it received must be discarded (the end of the file was not verified).
/// `threads` is as for `encrypt_file`: 1 to 256, default one per core.
#[pyfunction]
#[pyo3(signature = (key, src, dst, *, context = None, threads = None, overwrite = false))]
pub fn decrypt_file(
    py: Python<'_>,
    key: &Bound<'_, PyAny>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    context: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    overwrite: bool,
) -> PyResult<u64> {
    let mut job = Job::new(key, src, context, threads)?;
    // The header is checked before the destination is even created.
    let message_key = py
        .detach(|| chunked::read_header(&mut job.input, job.aead, &job.key, &job.context))
        .map_err(|e| errors::chunked(py, e))?;
    let rules = PathRules {
        overwrite,
        private: true,
    };
    let mut sink = Sink::new(dst, rules)?;
    let result = py.detach(|| {
        chunked::decrypt_parallel(&message_key, &mut job.input, sink.writer(), job.threads)
    });
    sink.finish(result).map_err(|e| errors::chunked(py, e))
}

/// Random access to a C2SP chunked file: the native half of
/// `aekit.chunked.Reader`, which wraps it as an `io.RawIOBase`.
///
/// Each read authenticates the chunk it comes from before returning any
/// of it; a seek from the end first authenticates the final chunk (and so
/// the length).
#[pyclass(module = "aekit._aekit", name = "ChunkedReader")]
pub struct ChunkedReader {
    reader: Option<SeekReader<Stream>>,
}

impl ChunkedReader {
    fn open(&mut self) -> PyResult<&mut SeekReader<Stream>> {
        self.reader
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("I/O operation on closed file."))
    }
}

#[pymethods]
impl ChunkedReader {
    #[new]
    #[pyo3(signature = (key, src, context = None))]
    fn new(
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        src: &Bound<'_, PyAny>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ChunkedReader> {
        let key = Input::new(key, "key")?.to_secret(py)?;
        let aead = aead_for(&key)?;
        let context = Input::optional(context, "context")?.to_cow(py)?;
        let input = Stream::open(src)?;
        let reader = py
            .detach(|| SeekReader::new(input, aead, &key, &context))
            .map_err(|e| errors::chunked(py, e))?;
        Ok(ChunkedReader {
            reader: Some(reader),
        })
    }

    /// Reads up to `len(buf)` bytes into `buf`; returns how many (0 at the
    /// end). Reads stop at the end of a chunk.
    fn readinto(&mut self, py: Python<'_>, buf: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut slot = Slot::new();
        let out = Output::new(buf, "buf", &mut slot)?;
        let reader = self.open()?;
        // Read where it lies: the reader copies out authenticated
        // plaintext only, so nothing unverified reaches `buf`.
        out.with_bytes(|bytes| detach_from(py, bytes.len(), || reader.read(bytes)))
            .map_err(|e| errors::chunked(py, e.into()))
    }

    /// Moves to `offset` from the start (`whence` 0), the current position
    /// (1) or the end (2); returns the new position.
    #[pyo3(signature = (offset, whence = 0))]
    fn seek(&mut self, py: Python<'_>, offset: i64, whence: i32) -> PyResult<u64> {
        let to =
            match whence {
                0 => SeekFrom::Start(u64::try_from(offset).map_err(|_| {
                    PyValueError::new_err(format!("negative seek position {offset}"))
                })?),
                1 => SeekFrom::Current(offset),
                2 => SeekFrom::End(offset),
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "invalid whence ({whence}, should be 0, 1 or 2)"
                    )));
                }
            };
        let reader = self.open()?;
        py.detach(|| reader.seek(to))
            .map_err(|e| errors::chunked(py, e.into()))
    }

    /// The current position in the plaintext.
    fn tell(&mut self) -> PyResult<u64> {
        Ok(self.open()?.stream_position()?)
    }

    /// The plaintext length, authenticated (the final chunk is checked).
    fn size(&mut self, py: Python<'_>) -> PyResult<u64> {
        let reader = self.open()?;
        py.detach(|| reader.len())
            .map_err(|e| errors::chunked(py, e))
    }

    /// Releases the file (a file opened from a path is closed; a file
    /// object given is left open, as it was given).
    fn close(&mut self) {
        self.reader = None;
    }
}
