//! Streaming chunked encryption over `Write` and decryption over `Read`,
//! one chunk at a time, in 16 KiB of buffer.
//!
//! The writer buffers 16 KiB of plaintext, a chunk, and seals it when more
//! data comes or on `flush`: a full chunk is never the final one.
//! [`EncryptWriter::finish`] seals the final, shorter chunk (empty if the
//! message is a multiple of 16 KiB). A writer dropped without `finish`
//! leaves a ciphertext that every decryptor rejects as truncated. A writer
//! whose inner writer failed keeps failing: the chunk it sealed cannot be
//! sealed again, since the same nonce would turn it back into plaintext.
//!
//! The reader reads a full sealed chunk (16 KiB + 16) at a time. Getting
//! less means the input ended, so that piece is the final chunk; getting a
//! full one means it is not. This is why a short chunk's plaintext is
//! released only once the end of the input has been seen: the first
//! `read` that fills the buffer past it, or finds data after it, makes it a
//! non-final chunk of the wrong length, which fails.

use std::io::{self, Read, Write};

use crate::secret::SecretBuf;

use super::{
    Aead, CHUNK_LEN, Error, MessageKey, SEALED_CHUNK_LEN, Salt, TAG_LEN, random_salt, read_full,
    read_header, seal_header,
};

/// Encrypts a message written to it in pieces of any size.
pub struct EncryptWriter<W: Write> {
    key: MessageKey,
    inner: W,
    buf: SecretBuf,
    filled: usize,
    index: u64,
    /// The error a chunk's sealing or writing met; every later call
    /// returns it again.
    failed: Option<Error>,
}

impl<W: Write> EncryptWriter<W> {
    /// Starts a message with a fresh random salt and writes its header.
    pub fn new(inner: W, aead: Aead, input_key: &[u8], context: &[u8]) -> Result<Self, Error> {
        EncryptWriter::with_salt(inner, aead, input_key, context, &random_salt()?)
    }

    /// Starts a message with the salt given (which must never repeat under
    /// this input key) and writes its header. Deterministic, for tests.
    pub fn with_salt(
        mut inner: W,
        aead: Aead,
        input_key: &[u8],
        context: &[u8],
        salt: &Salt,
    ) -> Result<Self, Error> {
        let (key, header) = seal_header(aead, input_key, context, salt)?;
        inner.write_all(&header)?;
        Ok(EncryptWriter::raw(inner, key))
    }

    /// Raw mode: chunks only, no header.
    pub fn raw(inner: W, key: MessageKey) -> Self {
        EncryptWriter {
            key,
            inner,
            buf: SecretBuf::zeroed(SEALED_CHUNK_LEN),
            filled: 0,
            index: 0,
            failed: None,
        }
    }

    /// Seals the buffered plaintext as the next chunk and writes it. Once
    /// that failed, it fails again without touching the buffer, which
    /// may hold the chunk sealed: sealed twice under its nonce, it would
    /// be the plaintext again.
    fn seal_buffer(&mut self) -> Result<(), Error> {
        if let Some(e) = &self.failed {
            return Err(e.again());
        }
        let sealed = &mut self.buf[..self.filled + TAG_LEN];
        let written = self
            .key
            .seal_chunk(self.index, sealed)
            .and_then(|()| Ok(self.inner.write_all(sealed)?));
        if let Err(e) = written {
            self.failed = Some(e.again());
            return Err(e);
        }
        self.index += 1;
        self.filled = 0;
        Ok(())
    }

    /// Writes the final chunk, flushes, and hands back the inner writer.
    pub fn finish(mut self) -> Result<W, Error> {
        if self.filled == CHUNK_LEN {
            self.seal_buffer()?;
        }
        self.seal_buffer()?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for EncryptWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        // A full buffer is sealed only when more data comes, so that a
        // failed write never reports bytes as both taken and refused.
        if self.filled == CHUNK_LEN {
            self.seal_buffer()?;
        }
        let n = data.len().min(CHUNK_LEN - self.filled);
        self.buf[self.filled..self.filled + n].copy_from_slice(&data[..n]);
        self.filled += n;
        Ok(n)
    }

    /// Seals and writes a full chunk, if one is buffered, and flushes the
    /// inner writer. Less than a chunk stays buffered: it may be the final
    /// chunk, which only [`EncryptWriter::finish`] seals.
    fn flush(&mut self) -> io::Result<()> {
        if self.filled == CHUNK_LEN {
            self.seal_buffer()?;
        }
        self.inner.flush()
    }
}

/// Where a [`DecryptReader`] stands.
enum State {
    /// More chunks to come.
    Reading,
    /// The final chunk was read and authenticated.
    Done,
    /// Failed; every later read fails the same way.
    Failed(Error),
}

/// Decrypts a message read from an inner reader, releasing each chunk's
/// plaintext only after its tag has verified. A message that was truncated
/// or extended yields its valid chunks and then an error, never a clean end
/// of file; act on the plaintext only once `read` has returned `Ok(0)`.
pub struct DecryptReader<R: Read> {
    key: MessageKey,
    inner: R,
    buf: SecretBuf,
    start: usize,
    end: usize,
    index: u64,
    state: State,
}

impl<R: Read> DecryptReader<R> {
    /// Reads and checks the header (key size, then commitment) before
    /// returning; a wrong key or context fails here.
    pub fn new(mut inner: R, aead: Aead, input_key: &[u8], context: &[u8]) -> Result<Self, Error> {
        let key = read_header(&mut inner, aead, input_key, context)?;
        Ok(DecryptReader::raw(inner, key))
    }

    /// Raw mode: chunks only, no header.
    pub fn raw(inner: R, key: MessageKey) -> Self {
        DecryptReader {
            key,
            inner,
            buf: SecretBuf::zeroed(SEALED_CHUNK_LEN),
            start: 0,
            end: 0,
            index: 0,
            state: State::Reading,
        }
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads and opens the next chunk into the buffer.
    fn next_chunk(&mut self) -> Result<(), Error> {
        let n = read_full(&mut self.inner, &mut self.buf)?;
        let last = n < SEALED_CHUNK_LEN;
        if last && n < TAG_LEN {
            return Err(Error::Truncated);
        }
        let plaintext = self.key.open_chunk(self.index, &mut self.buf[..n], last)?;
        (self.start, self.end) = (0, plaintext.len());
        self.index += 1;
        if last {
            self.state = State::Done;
        }
        Ok(())
    }
}

impl<R: Read> Read for DecryptReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.start == self.end {
            match &self.state {
                State::Done => return Ok(0),
                State::Failed(e) => return Err(e.again().into()),
                State::Reading => {
                    if let Err(e) = self.next_chunk() {
                        self.state = State::Failed(e.again());
                        return Err(e.into());
                    }
                }
            }
        }
        let n = out.len().min(self.end - self.start);
        out[..n].copy_from_slice(&self.buf[self.start..self.start + n]);
        self.start += n;
        Ok(n)
    }
}
