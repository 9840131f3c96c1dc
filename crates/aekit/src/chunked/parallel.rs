//! Chunked encryption and decryption on all cores, still streaming and in
//! bounded memory.
//!
//! Chunks are independent: chunk `i` needs only the message key and the
//! nonce base ⊕ `i`. So the stream is cut into batches of 64 chunks (1 MiB)
//! and every worker thread runs the same loop:
//!
//! 1. take a free buffer (at most two per thread exist);
//! 2. read the next batch into the buffer, noting its sequence number and
//!    first chunk number;
//! 3. seal or open the batch's chunks, holding no lock: the parallel part;
//! 4. hand the batch to the output's reorder buffer, and write every batch
//!    that is now next in sequence, returning their buffers to the pool.
//!
//! Step 2 has two sources. A stream ([`encrypt_parallel`],
//! [`decrypt_parallel`]: stdin, a pipe) is read under a lock, the whole
//! batch at once (not chunk by chunk). A file read by position
//! ([`encrypt_parallel_at`], [`decrypt_parallel_at`]: [`ReadAt`], on Unix
//! `pread`) takes no lock to read: a worker claims the next batch number
//! with an atomic and reads the batch at its own offset, so copying the
//! file out of the page cache runs on all cores too: with the fused AES-GCM
//! kernels that copy costs more than the cipher, and under a lock it would
//! be the part a second core cannot share (`crates/aekit-cli/README.md`,
//! "Speed").
//! Both sources cut a batch into chunks with the same function (full
//! chunks, then the short final one or the error where the input ended),
//! so the chunks, the final-chunk decision and every error are the ones a
//! sequential reader finds. A positional worker may claim a batch past the
//! end before the batch holding the end has been read; the output drops
//! every batch after the one that ended the message, unprocessed or not.
//!
//! Reading, computing and writing of different batches overlap, so the I/O
//! hides behind the computation instead of adding to it; and a worker
//! whose batch must wait for an earlier one (its thread descheduled on a
//! busy machine) does not wait with it but goes on with a new batch, as
//! long as a buffer is free. Memory is at most `2 × threads × 1 MiB`.
//! Threads the system refuses to start are done without; the calling
//! thread is always a worker.
//!
//! The output is byte for byte the one the streaming
//! [`EncryptWriter`](super::EncryptWriter) and
//! [`DecryptReader`](super::DecryptReader) produce, and decryption keeps
//! their promises: chunks are written in order, only after they verified,
//! nothing after the first failure is written, and the short final chunk is
//! recognised only at the end of the input.
//!
//! Rejected: per-chunk tasks on a pool (more synchronisation than work at
//! 16 KiB); a dedicated reader thread (on two cores it takes a core away
//! from the AES); each worker waiting for its turn to write (the first
//! version: whenever one worker was descheduled, the other idled behind
//! it); one `read` per chunk (64 system calls per batch, where one does);
//! `mmap` (unsafe, and unsound in safe Rust for a file that may change).

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;

use crate::secret::SecretBuf;

use super::{CHUNK_LEN, Error, MessageKey, SEALED_CHUNK_LEN, TAG_LEN};

/// Chunks per batch: 1 MiB of plaintext, enough to amortise the locking.
const BATCH_CHUNKS: usize = 64;

/// Buffers per worker thread: one being worked on, one waiting its turn.
const BUFFERS_PER_THREAD: usize = 2;

type Buffer = SecretBuf;

/// Input read by position, without a cursor, from several threads at once.
pub trait ReadAt: Sync {
    /// Reads bytes starting at `offset` into `buf`, like [`Read::read`]:
    /// returns how many, and 0 only at the end of the input.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
}

/// A file, through `pread` (it leaves the file's cursor alone).
#[cfg(unix)]
impl ReadAt for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }
}

impl ReadAt for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = usize::try_from(offset).map_or(self.len(), |o| o.min(self.len()));
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for &T {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        (**self).read_at(buf, offset)
    }
}

/// Encrypts everything `input` holds into chunks written to `output` (the
/// body only: write the header from [`seal_header`](super::seal_header)
/// first) on `threads` threads, and returns the plaintext length.
pub fn encrypt_parallel<R, W>(
    key: &MessageKey,
    input: R,
    output: W,
    threads: usize,
) -> Result<u64, Error>
where
    R: Read + Send,
    W: Write + Send,
{
    run(key, Locked::new(input), output, threads, Direction::Seal)
}

/// Decrypts the chunks `input` holds (after the header: read it with
/// [`read_header`](super::read_header) first) to `output` on `threads`
/// threads, and returns the plaintext length. On error, `output` has
/// received exactly the verified chunks before the failing one.
pub fn decrypt_parallel<R, W>(
    key: &MessageKey,
    input: R,
    output: W,
    threads: usize,
) -> Result<u64, Error>
where
    R: Read + Send,
    W: Write + Send,
{
    run(key, Locked::new(input), output, threads, Direction::Open)
}

/// [`encrypt_parallel`] of the plaintext `input` holds from `offset` to its
/// end, read by position: every thread reads its own batches, none waits
/// for a lock to read.
pub fn encrypt_parallel_at<F, W>(
    key: &MessageKey,
    input: &F,
    offset: u64,
    output: W,
    threads: usize,
) -> Result<u64, Error>
where
    F: ReadAt + ?Sized,
    W: Write + Send,
{
    let source = Positional::new(input, offset);
    run(key, source, output, threads, Direction::Seal)
}

/// [`decrypt_parallel`] of the chunks `input` holds from `offset` (just
/// after the header) to its end, read by position as in
/// [`encrypt_parallel_at`].
pub fn decrypt_parallel_at<F, W>(
    key: &MessageKey,
    input: &F,
    offset: u64,
    output: W,
    threads: usize,
) -> Result<u64, Error>
where
    F: ReadAt + ?Sized,
    W: Write + Send,
{
    let source = Positional::new(input, offset);
    run(key, source, output, threads, Direction::Open)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Seal,
    Open,
}

impl Direction {
    /// Bytes read per chunk: plaintext to seal, or a sealed chunk to open.
    fn piece_len(self) -> usize {
        match self {
            Direction::Seal => CHUNK_LEN,
            Direction::Open => SEALED_CHUNK_LEN,
        }
    }

    /// Bytes read per full batch.
    fn batch_len(self) -> usize {
        BATCH_CHUNKS * self.piece_len()
    }

    /// Where in the buffer a batch is read to: at its end, so that each
    /// chunk moves forward (or stays) to its slot of `SEALED_CHUNK_LEN`.
    fn read_range(self) -> std::ops::Range<usize> {
        let total = BATCH_CHUNKS * SEALED_CHUNK_LEN;
        total - self.batch_len()..total
    }
}

/// Step 2's two ways to read a batch.
trait Source: Sync {
    /// Reads the next batch into `buf` and lays its chunks out, or returns
    /// `None` when the input is done or `stop` is set.
    fn next_batch(&self, direction: Direction, stop: &AtomicBool, buf: &mut [u8]) -> Option<Batch>;
}

/// A stream, read under a lock.
struct Locked<R> {
    input: Mutex<Input<R>>,
}

struct Input<R> {
    reader: R,
    next_batch: u64,
    next_chunk: u64,
    done: bool,
}

impl<R> Locked<R> {
    fn new(reader: R) -> Self {
        Locked {
            input: Mutex::new(Input {
                reader,
                next_batch: 0,
                next_chunk: 0,
                done: false,
            }),
        }
    }
}

impl<R: Read + Send> Source for Locked<R> {
    fn next_batch(&self, direction: Direction, stop: &AtomicBool, buf: &mut [u8]) -> Option<Batch> {
        let (seq, first, read) = {
            let mut input = lock(&self.input);
            if input.done || stop.load(Ordering::SeqCst) {
                return None;
            }
            let input = &mut *input;
            let read = fill(&mut buf[direction.read_range()], |part| {
                input.reader.read(part)
            });
            let (chunks, ends) = count(direction, &read);
            let (seq, first) = (input.next_batch, input.next_chunk);
            input.next_batch += 1;
            input.next_chunk += chunks;
            input.done = ends;
            (seq, first, read)
        };
        Some(lay_out(direction, buf, seq, first, read))
    }
}

/// Input read by position: a worker claims a batch number and reads the
/// batch at its offset, holding no lock.
struct Positional<'a, F: ?Sized> {
    input: &'a F,
    offset: u64,
    next_batch: AtomicU64,
    done: AtomicBool,
}

impl<'a, F: ?Sized> Positional<'a, F> {
    fn new(input: &'a F, offset: u64) -> Self {
        Positional {
            input,
            offset,
            next_batch: AtomicU64::new(0),
            done: AtomicBool::new(false),
        }
    }
}

impl<F: ReadAt + ?Sized> Source for Positional<'_, F> {
    fn next_batch(&self, direction: Direction, stop: &AtomicBool, buf: &mut [u8]) -> Option<Batch> {
        if self.done.load(Ordering::SeqCst) || stop.load(Ordering::SeqCst) {
            return None;
        }
        let seq = self.next_batch.fetch_add(1, Ordering::SeqCst);
        // Every batch before this one is full, or this one lies past the
        // end and the output drops it: so its chunks start at seq × 64.
        let first = seq * BATCH_CHUNKS as u64;
        let mut at = self
            .offset
            .saturating_add(seq.saturating_mul(direction.batch_len() as u64));
        let read = fill(&mut buf[direction.read_range()], |part| {
            let n = self.input.read_at(part, at)?;
            at = at.saturating_add(n as u64);
            Ok(n)
        });
        if count(direction, &read).1 {
            self.done.store(true, Ordering::SeqCst);
        }
        Some(lay_out(direction, buf, seq, first, read))
    }
}

/// What one batch's read brought: bytes, and the error that stopped it.
struct Filled {
    len: usize,
    error: Option<io::Error>,
}

/// Reads into `buf` until it is full, the input ends or a read fails.
fn fill(buf: &mut [u8], mut read: impl FnMut(&mut [u8]) -> io::Result<usize>) -> Filled {
    let mut len = 0;
    while len < buf.len() {
        match read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Filled {
                    len,
                    error: Some(e),
                };
            }
        }
    }
    Filled { len, error: None }
}

/// The chunks a batch's read holds, and whether the message ends with it
/// (at its final chunk or an error).
fn count(direction: Direction, read: &Filled) -> (u64, bool) {
    let piece_len = direction.piece_len();
    let full = read.len / piece_len;
    if read.error.is_none() && read.len == direction.batch_len() {
        return (full as u64, false);
    }
    let partial = read.len % piece_len;
    let last = read.error.is_none() && !(direction == Direction::Open && partial < TAG_LEN);
    (full as u64 + u64::from(last), true)
}

/// Cuts a batch's read into chunks, exactly as reading chunk by chunk
/// would: full chunks; then, where the input ended, the short final chunk
/// (a sealed one must hold at least its tag, or the message is
/// `Truncated`), or the read error, dropping the chunk it interrupted.
/// Moves each chunk from where it was read to its slot.
fn lay_out(direction: Direction, buf: &mut [u8], seq: u64, first: u64, read: Filled) -> Batch {
    let piece_len = direction.piece_len();
    let (chunks, ends) = count(direction, &read);
    let mut batch = Batch {
        seq,
        first,
        lens: vec![piece_len; read.len / piece_len],
        last: false,
        error: None,
    };
    if let Some(e) = read.error {
        batch.error = Some(Error::Io(e));
    } else if ends && chunks as usize > batch.lens.len() {
        batch.lens.push(read.len % piece_len);
        batch.last = true;
    } else if ends {
        batch.error = Some(Error::Truncated);
    }
    let from = direction.read_range().start;
    if from > 0 {
        for (i, &len) in batch.lens.iter().enumerate() {
            let src = from + i * piece_len;
            buf.copy_within(src..src + len, i * SEALED_CHUNK_LEN);
        }
    }
    batch
}

struct Output<W> {
    writer: W,
    next_batch: u64,
    written: u64,
    error: Option<Error>,
    /// The batch with the final chunk was written: drop any after it.
    finished: bool,
    /// Finished batches waiting for an earlier one, by sequence number.
    ready: BTreeMap<u64, (Batch, Buffer)>,
    /// Buffers free to read into, and how many may still be allocated.
    free: Vec<Buffer>,
    unallocated: usize,
}

struct Shared<'k, S, W> {
    key: &'k MessageKey,
    direction: Direction,
    input: S,
    output: Mutex<Output<W>>,
    /// Signalled when a buffer is freed.
    space: Condvar,
    /// Set after a chunk failed: read no more batches.
    stop: AtomicBool,
    /// Set when a worker panicked: its batch will never be written.
    panicked: AtomicBool,
}

/// One batch in a worker's buffer: chunk `first + i` sits at
/// `i × SEALED_CHUNK_LEN`, `lens[i]` bytes long as read.
struct Batch {
    seq: u64,
    first: u64,
    lens: Vec<usize>,
    /// The batch ends with the message's final chunk.
    last: bool,
    /// The error that ends the message after these chunks.
    error: Option<Error>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn run<S, W>(
    key: &MessageKey,
    input: S,
    writer: W,
    threads: usize,
    direction: Direction,
) -> Result<u64, Error>
where
    S: Source,
    W: Write + Send,
{
    let shared = Shared {
        key,
        direction,
        input,
        output: Mutex::new(Output {
            writer,
            next_batch: 0,
            written: 0,
            error: None,
            finished: false,
            ready: BTreeMap::new(),
            free: Vec::new(),
            unallocated: BUFFERS_PER_THREAD * threads.max(1),
        }),
        space: Condvar::new(),
        stop: AtomicBool::new(false),
        panicked: AtomicBool::new(false),
    };
    thread::scope(|s| {
        for _ in 1..threads.max(1) {
            // A thread the system will not give (a process limit, no
            // memory for its stack) is not an error: the workers started,
            // the calling thread at least, do the whole job between them.
            if thread::Builder::new()
                .spawn_scoped(s, || worker(&shared))
                .is_err()
            {
                break;
            }
        }
        worker(&shared);
    });
    let mut output = shared
        .output
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(e) = output.error {
        return Err(e);
    }
    output.writer.flush()?;
    Ok(output.written)
}

/// Wakes and stops every worker if this one panics, so none waits forever
/// for a buffer held behind a batch that will never be written.
struct StopOnPanic<'a, 'k, S, W>(&'a Shared<'k, S, W>);

impl<S, W> Drop for StopOnPanic<'_, '_, S, W> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.stop.store(true, Ordering::SeqCst);
            self.0.panicked.store(true, Ordering::SeqCst);
            let _output = lock(&self.0.output);
            self.0.space.notify_all();
        }
    }
}

fn worker<S: Source, W: Write>(shared: &Shared<'_, S, W>) {
    let _guard = StopOnPanic(shared);
    while let Some(mut buf) = take_buffer(shared) {
        let Some(mut batch) = shared
            .input
            .next_batch(shared.direction, &shared.stop, &mut buf)
        else {
            return;
        };
        process(shared, &mut buf, &mut batch);
        deliver(shared, batch, buf);
    }
}

/// Step 1: a free buffer, waiting for one if all are in use; `None` once
/// the message has failed.
fn take_buffer<S, W>(shared: &Shared<'_, S, W>) -> Option<Buffer> {
    let mut output = lock(&shared.output);
    loop {
        if output.error.is_some() || shared.panicked.load(Ordering::SeqCst) {
            return None;
        }
        if let Some(buf) = output.free.pop() {
            return Some(buf);
        }
        if output.unallocated > 0 {
            output.unallocated -= 1;
            return Some(SecretBuf::zeroed(BATCH_CHUNKS * SEALED_CHUNK_LEN));
        }
        output = shared
            .space
            .wait(output)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// Step 3: seals or opens the batch's chunks in place. Opening stops at the
/// first chunk that fails, which becomes the batch's error.
fn process<S, W>(shared: &Shared<'_, S, W>, buf: &mut [u8], batch: &mut Batch) {
    let count = batch.lens.len();
    for (i, slot) in buf.chunks_mut(SEALED_CHUNK_LEN).take(count).enumerate() {
        let index = batch.first + i as u64;
        let result = match shared.direction {
            Direction::Seal => shared
                .key
                .seal_chunk(index, &mut slot[..batch.lens[i] + TAG_LEN]),
            Direction::Open => {
                let last = batch.last && i + 1 == count;
                shared
                    .key
                    .open_chunk(index, &mut slot[..batch.lens[i]], last)
                    .map(|_| ())
            }
        };
        if let Err(e) = result {
            batch.lens.truncate(i);
            batch.error = Some(e);
            shared.stop.store(true, Ordering::SeqCst);
            return;
        }
    }
}

/// Step 4: queues the batch and writes every batch that is next in
/// sequence; after a failure or
/// the final chunk, batches are dropped unwritten.
fn deliver<S, W: Write>(shared: &Shared<'_, S, W>, batch: Batch, buf: Buffer) {
    let mut output = lock(&shared.output);
    output.ready.insert(batch.seq, (batch, buf));
    loop {
        let next = output.next_batch;
        let Some((batch, buf)) = output.ready.remove(&next) else {
            break;
        };
        if output.error.is_none() && !output.finished {
            match write_pieces(&mut output.writer, shared.direction, &buf, &batch.lens) {
                Ok(n) => output.written += n,
                Err(e) => output.error = Some(Error::Io(e)),
            }
            if output.error.is_none() {
                output.error = batch.error;
            }
            output.finished = batch.last;
            if output.error.is_some() || output.finished {
                shared.stop.store(true, Ordering::SeqCst);
            }
        }
        output.next_batch += 1;
        output.free.push(buf);
    }
    shared.space.notify_all();
}

/// Writes a batch's sealed chunks, or its chunks' plaintexts.
/// Returns the plaintext bytes they hold.
fn write_pieces<W: Write>(
    writer: &mut W,
    direction: Direction,
    buf: &[u8],
    lens: &[usize],
) -> std::io::Result<u64> {
    let Some(&final_len) = lens.last() else {
        return Ok(0);
    };
    let plaintext: usize = match direction {
        Direction::Seal => {
            // Sealed chunks lie back to back: one write.
            let bytes = (lens.len() - 1) * SEALED_CHUNK_LEN + final_len + TAG_LEN;
            writer.write_all(&buf[..bytes])?;
            lens.iter().sum()
        }
        Direction::Open => {
            for (slot, &len) in buf.chunks(SEALED_CHUNK_LEN).zip(lens) {
                writer.write_all(&slot[..len - TAG_LEN])?;
            }
            lens.iter().map(|len| len - TAG_LEN).sum()
        }
    };
    Ok(plaintext as u64)
}
