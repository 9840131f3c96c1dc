//! Random access: `Read + Seek` over the plaintext of a `Read + Seek`
//! ciphertext, decrypting only the chunks that a read touches.
//!
//! Plaintext byte `i` lives in chunk `i / 16384` at offset `i % 16384`, and
//! chunk `k` starts at ciphertext offset `header + k · (16384 + 16)`. The
//! ciphertext's length is read once (by seeking to its end) but is **not
//! trusted**: it only says which chunk would be the final one. It becomes
//! the authenticated length once that final chunk has been decrypted at
//! that index with that length, which [`SeekReader::len`] does, and which
//! happens before any seek relative to the end and before any end of file
//! is reported. A chunk before the final one is read at its full length, so
//! its plaintext authenticates whatever the file's length claims.
//!
//! One chunk is cached: sequential reads decrypt each chunk once.

use std::io::{self, Read, Seek, SeekFrom};

use crate::secret::SecretBuf;

use super::{Aead, CHUNK_LEN, Error, MessageKey, SEALED_CHUNK_LEN, TAG_LEN, read_header};

/// Random-access decryption of a chunked message.
pub struct SeekReader<R: Read + Seek> {
    key: MessageKey,
    inner: R,
    /// Ciphertext offset of chunk 0.
    body_start: u64,
    /// Ciphertext bytes from chunk 0 to the end, as the file claims.
    body_len: u64,
    /// Plaintext position.
    pos: u64,
    /// The cached chunk: its number and its plaintext length in `buf`.
    cached: Option<(u64, usize)>,
    buf: SecretBuf,
}

impl<R: Read + Seek> SeekReader<R> {
    /// Reads and checks the header at the current position (key size, then
    /// commitment); a wrong key or context fails here.
    pub fn new(mut inner: R, aead: Aead, input_key: &[u8], context: &[u8]) -> Result<Self, Error> {
        let key = read_header(&mut inner, aead, input_key, context)?;
        SeekReader::raw(inner, key)
    }

    /// Raw mode: the chunks start at the current position.
    pub fn raw(mut inner: R, key: MessageKey) -> Result<Self, Error> {
        let body_start = inner.stream_position()?;
        let end = inner.seek(SeekFrom::End(0))?;
        Ok(SeekReader {
            key,
            inner,
            body_start,
            body_len: end.saturating_sub(body_start),
            pos: 0,
            cached: None,
            buf: SecretBuf::zeroed(SEALED_CHUNK_LEN),
        })
    }

    /// The number of full chunks the file claims, and the sealed length of
    /// its final chunk, or `None` when the length is impossible (the final
    /// chunk would be shorter than a tag: the file is truncated).
    fn layout(&self) -> (u64, Option<usize>) {
        let full = self.body_len / SEALED_CHUNK_LEN as u64;
        let rest = (self.body_len % SEALED_CHUNK_LEN as u64) as usize;
        (full, (rest >= TAG_LEN).then_some(rest))
    }

    /// The message's plaintext length, authenticated by decrypting the final
    /// chunk at the index and length that the ciphertext's length implies.
    pub fn len(&mut self) -> Result<u64, Error> {
        let (full, last) = self.layout();
        let last = last.ok_or(Error::Truncated)?;
        self.load(full, last, true)?;
        Ok(full * CHUNK_LEN as u64 + (last - TAG_LEN) as u64)
    }

    /// Whether the message is empty (authenticated, as for [`Self::len`]).
    pub fn is_empty(&mut self) -> Result<bool, Error> {
        Ok(self.len()? == 0)
    }

    /// Decrypts chunk `index`, `sealed_len` bytes long, into the cache;
    /// returns its plaintext length.
    fn load(&mut self, index: u64, sealed_len: usize, last: bool) -> Result<usize, Error> {
        if let Some((i, plaintext_len)) = self.cached
            && i == index
        {
            return Ok(plaintext_len);
        }
        self.cached = None;
        let offset = self.body_start + index * SEALED_CHUNK_LEN as u64;
        self.inner.seek(SeekFrom::Start(offset))?;
        let sealed = &mut self.buf[..sealed_len];
        self.inner.read_exact(sealed).map_err(|e| match e.kind() {
            // The file shrank since its length was taken.
            io::ErrorKind::UnexpectedEof => Error::Truncated,
            _ => Error::Io(e),
        })?;
        let plaintext_len = self.key.open_chunk(index, sealed, last)?.len();
        self.cached = Some((index, plaintext_len));
        Ok(plaintext_len)
    }

    /// The plaintext of the chunk holding `self.pos`, from `self.pos` on;
    /// empty at the (authenticated) end of the message.
    fn available(&mut self) -> Result<&[u8], Error> {
        let index = self.pos / CHUNK_LEN as u64;
        let offset = (self.pos % CHUNK_LEN as u64) as usize;
        let (full, last) = self.layout();
        let plaintext_len = match last {
            _ if index < full => self.load(index, SEALED_CHUNK_LEN, false)?,
            Some(last) if index == full => self.load(index, last, true)?,
            // Past the final chunk, or the length is impossible: end of
            // file only once the length has been authenticated.
            _ => {
                self.len()?;
                return Ok(&[]);
            }
        };
        Ok(self.buf.get(offset..plaintext_len).unwrap_or(&[]))
    }
}

impl<R: Read + Seek> Read for SeekReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let available = self.available()?;
        let n = out.len().min(available.len());
        out[..n].copy_from_slice(&available[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read + Seek> Seek for SeekReader<R> {
    /// Seeks in the plaintext. Seeking from the end authenticates the
    /// length first (and fails if it does not authenticate); seeking past
    /// the end is allowed, and reads there return end of file.
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let (base, delta) = match to {
            SeekFrom::Start(n) => (0, n as i128),
            SeekFrom::Current(d) => (self.pos, d as i128),
            SeekFrom::End(d) => (self.len()?, d as i128),
        };
        let pos = u64::try_from(base as i128 + delta).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek to a position before the start or beyond 2^64",
            )
        })?;
        self.pos = pos;
        Ok(pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}
