//! `aekit.chunked`: C2SP chunked encryption (Cobblestone) of files, over
//! paths and over Python file objects, in the same format as the `aekit`
//! command (`aekit encrypt` / `aekit decrypt` read what these write, and
//! the other way round).
//!
//! The key's length chooses the instantiation, as the command does:
//! 16 bytes Cobblestone-128 (AES-128-GCM), 32 bytes Cobblestone-256.
//! Whole files go through `aekit::chunked::{encrypt,decrypt}_parallel` on
//! every core with the GIL released; a Python file object is called back
//! (with the GIL) for each read or write. A path given as the destination
//! is written under a temporary name beside it and renamed into place only
//! once everything succeeded, so a failed decryption leaves no plaintext.
//! The seekable reader is `aekit::chunked::SeekReader`.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use aekit::chunked::{self, Aead, SeekReader};
use pyo3::call::PyCallArgs;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

use crate::buffers::{Input, Output, detach_from};
use crate::errors;

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
                let written = Stream::call(py, obj, "write", (PyBytes::new(py, data),))?;
                // `None` from a raw stream that would block: nothing written.
                Ok(written.extract::<Option<usize>>()?.unwrap_or(0))
            }),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::File(f) => f.flush(),
            Stream::Object(obj) => Python::attach(|py| {
                Stream::call(py, obj, "flush", ())?;
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

/// An I/O error that names the file it is about.
fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// The destination of a whole-file operation: a Python object written as
/// it goes, or a path written under a temporary name and renamed at the end.
enum Sink {
    Object(Stream),
    Path {
        file: File,
        temporary: PathBuf,
        target: PathBuf,
    },
}

impl Sink {
    fn new(obj: &Bound<'_, PyAny>) -> PyResult<Sink> {
        if obj.hasattr("write")? {
            return Ok(Sink::Object(Stream::Object(obj.clone().unbind())));
        }
        let target: PathBuf = obj.extract().map_err(|_| {
            PyTypeError::new_err("expected a path or a binary file object with a write() method")
        })?;
        let name = target.file_name().ok_or_else(|| {
            PyValueError::new_err(format!("{}: not a file name", target.display()))
        })?;
        let mut tag = [0u8; 8];
        getrandom::fill(&mut tag).map_err(|e| io::Error::other(e.to_string()))?;
        let tag: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        let temporary =
            target.with_file_name(format!(".{}.{tag}.aekit-tmp", name.to_string_lossy()));
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .map_err(|e| named(&temporary, e))?;
        Ok(Sink::Path {
            file,
            temporary,
            target,
        })
    }

    fn writer(&mut self) -> &mut (dyn Write + Send) {
        match self {
            Sink::Object(stream) => stream,
            Sink::Path { file, .. } => file,
        }
    }

    /// Keeps what was written (renames a temporary file into place) after
    /// a success; removes it after a failure.
    fn finish<T>(self, result: Result<T, chunked::Error>) -> Result<T, chunked::Error> {
        match self {
            Sink::Object(mut stream) => {
                let value = result?;
                stream.flush()?;
                Ok(value)
            }
            Sink::Path {
                file,
                temporary,
                target,
            } => {
                let kept = result.and_then(|value| {
                    file.sync_all()?;
                    drop(file);
                    fs::rename(&temporary, &target)?;
                    Ok(value)
                });
                if kept.is_err() {
                    let _ = fs::remove_file(&temporary);
                }
                kept
            }
        }
    }
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
/// one given, or one per core) and the opened source.
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
        threads: Option<usize>,
    ) -> PyResult<Job> {
        let py = key.py();
        let key = Input::new(key, "key")?.to_secret(py)?;
        let aead = aead_for(&key)?;
        let context = Input::optional(context, "context")?
            .to_cow(py)?
            .into_owned();
        let threads = match threads {
            Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
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

/// Encrypts everything `src` holds into `dst` in the C2SP chunked format
/// (what `aekit encrypt` writes) and returns the plaintext length.
///
/// `key` is 16 bytes (Cobblestone-128) or 32 (Cobblestone-256); `context`
/// is bound into the key derivation and decryption needs the same. `src`
/// and `dst` are paths or binary file objects; a `dst` path appears only
/// once the whole file is written.
#[pyfunction]
#[pyo3(signature = (key, src, dst, *, context = None, threads = None))]
pub fn encrypt_file(
    py: Python<'_>,
    key: &Bound<'_, PyAny>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    context: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
) -> PyResult<u64> {
    let mut job = Job::new(key, src, context, threads)?;
    let mut sink = Sink::new(dst)?;
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
/// A `dst` path is written only if the whole file verifies. A `dst` file
/// object receives each chunk once it verified; after an error, what it
/// received must be discarded (the end of the file was not verified).
#[pyfunction]
#[pyo3(signature = (key, src, dst, *, context = None, threads = None))]
pub fn decrypt_file(
    py: Python<'_>,
    key: &Bound<'_, PyAny>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    context: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
) -> PyResult<u64> {
    let mut job = Job::new(key, src, context, threads)?;
    // The header is checked before the destination is even created.
    let message_key = py
        .detach(|| chunked::read_header(&mut job.input, job.aead, &job.key, &job.context))
        .map_err(|e| errors::chunked(py, e))?;
    let mut sink = Sink::new(dst)?;
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
        let out = Output::new(buf, "buf")?;
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
