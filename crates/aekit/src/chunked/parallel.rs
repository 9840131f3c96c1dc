//! Chunked encryption and decryption on all cores, still streaming and in
//! bounded memory.
//!
//! Chunks are independent: chunk `i` needs only the message key and the
//! nonce base ⊕ `i`. So the stream is cut into batches of 64 chunks (1 MiB)
//! and every worker thread runs the same loop:
//!
//! 1. take a free buffer (at most two per thread exist);
//! 2. take the input lock, read the next batch into the buffer, note its
//!    sequence number and first chunk number, release the lock;
//! 3. seal or open the batch's chunks, holding no lock: the parallel part;
//! 4. hand the batch to the output's reorder buffer, and write every batch
//!    that is now next in sequence, returning their buffers to the pool.
//!
//! Reading, computing and writing of different batches overlap, so the I/O
//! hides behind the computation instead of adding to it; and a worker
//! whose batch must wait for an earlier one (its thread descheduled on a
//! busy machine) does not wait with it but goes on with a new batch, as
//! long as a buffer is free. Memory is at most `2 × threads × 1 MiB`.
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
//! it).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;

use zeroize::Zeroizing;

use super::{CHUNK_LEN, Error, MessageKey, SEALED_CHUNK_LEN, TAG_LEN, read_full};

/// Chunks per batch: 1 MiB of plaintext, enough to amortise the locking.
const BATCH_CHUNKS: usize = 64;

/// Buffers per worker thread: one being worked on, one waiting its turn.
const BUFFERS_PER_THREAD: usize = 2;

type Buffer = Zeroizing<Vec<u8>>;

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
    run(key, input, output, threads, Direction::Seal)
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
    run(key, input, output, threads, Direction::Open)
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
}

struct Input<R> {
    reader: R,
    next_batch: u64,
    next_chunk: u64,
    done: bool,
}

struct Output<W> {
    writer: W,
    next_batch: u64,
    written: u64,
    error: Option<Error>,
    /// Finished batches waiting for an earlier one, by sequence number.
    ready: BTreeMap<u64, (Batch, Buffer)>,
    /// Buffers free to read into, and how many may still be allocated.
    free: Vec<Buffer>,
    unallocated: usize,
}

struct Shared<'k, R, W> {
    key: &'k MessageKey,
    direction: Direction,
    input: Mutex<Input<R>>,
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

fn run<R, W>(
    key: &MessageKey,
    reader: R,
    writer: W,
    threads: usize,
    direction: Direction,
) -> Result<u64, Error>
where
    R: Read + Send,
    W: Write + Send,
{
    let shared = Shared {
        key,
        direction,
        input: Mutex::new(Input {
            reader,
            next_batch: 0,
            next_chunk: 0,
            done: false,
        }),
        output: Mutex::new(Output {
            writer,
            next_batch: 0,
            written: 0,
            error: None,
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
            s.spawn(|| worker(&shared));
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
struct StopOnPanic<'a, 'k, R, W>(&'a Shared<'k, R, W>);

impl<R, W> Drop for StopOnPanic<'_, '_, R, W> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.stop.store(true, Ordering::SeqCst);
            self.0.panicked.store(true, Ordering::SeqCst);
            let _output = lock(&self.0.output);
            self.0.space.notify_all();
        }
    }
}

fn worker<R: Read, W: Write>(shared: &Shared<'_, R, W>) {
    let _guard = StopOnPanic(shared);
    while let Some(mut buf) = take_buffer(shared) {
        let Some(mut batch) = read_batch(shared, &mut buf) else {
            return;
        };
        process(shared, &mut buf, &mut batch);
        deliver(shared, batch, buf);
    }
}

/// Step 1: a free buffer, waiting for one if all are in use; `None` once
/// the message has failed.
fn take_buffer<R, W>(shared: &Shared<'_, R, W>) -> Option<Buffer> {
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
            return Some(Zeroizing::new(vec![0u8; BATCH_CHUNKS * SEALED_CHUNK_LEN]));
        }
        output = shared
            .space
            .wait(output)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// Step 2: reads the next batch, or returns `None` when the input is done.
fn read_batch<R: Read, W>(shared: &Shared<'_, R, W>, buf: &mut [u8]) -> Option<Batch> {
    let mut input = lock(&shared.input);
    if input.done || shared.stop.load(Ordering::SeqCst) {
        return None;
    }
    let mut batch = Batch {
        seq: input.next_batch,
        first: input.next_chunk,
        lens: Vec::with_capacity(BATCH_CHUNKS),
        last: false,
        error: None,
    };
    let piece_len = shared.direction.piece_len();
    for slot in buf.chunks_mut(SEALED_CHUNK_LEN) {
        match read_full(&mut input.reader, &mut slot[..piece_len]) {
            Ok(n) if n == piece_len => batch.lens.push(n),
            Ok(n) if shared.direction == Direction::Open && n < TAG_LEN => {
                batch.error = Some(Error::Truncated);
                break;
            }
            Ok(n) => {
                batch.lens.push(n);
                batch.last = true;
                break;
            }
            Err(e) => {
                batch.error = Some(Error::Io(e));
                break;
            }
        }
    }
    input.next_batch += 1;
    input.next_chunk += batch.lens.len() as u64;
    input.done = batch.last || batch.error.is_some();
    Some(batch)
}

/// Step 3: seals or opens the batch's chunks in place. Opening stops at the
/// first chunk that fails, which becomes the batch's error.
fn process<R, W>(shared: &Shared<'_, R, W>, buf: &mut [u8], batch: &mut Batch) {
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
/// sequence; after a failure, batches are dropped unwritten.
fn deliver<R, W: Write>(shared: &Shared<'_, R, W>, batch: Batch, buf: Buffer) {
    let mut output = lock(&shared.output);
    output.ready.insert(batch.seq, (batch, buf));
    loop {
        let next = output.next_batch;
        let Some((batch, buf)) = output.ready.remove(&next) else {
            break;
        };
        if output.error.is_none() {
            match write_pieces(&mut output.writer, shared.direction, &buf, &batch.lens) {
                Ok(n) => output.written += n,
                Err(e) => output.error = Some(Error::Io(e)),
            }
            if output.error.is_none() {
                output.error = batch.error;
            }
            if output.error.is_some() {
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
