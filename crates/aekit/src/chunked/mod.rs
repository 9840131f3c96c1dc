//! C2SP chunked encryption (c2sp.org/chunked-encryption), the format named
//! **Cobblestone**: a message of up to 4 PiB encrypted in 16 KiB chunks that
//! can be decrypted as a stream, or at random, with every byte
//! authenticated before it is released.
//!
//! # The format
//!
//! ```text
//! key ‖ base nonce ‖ commitment = HKDF-Expand(SHA-512, prk = input key,
//!     info = "c2sp.org/chunked-encryption@v1+" ‖ AEAD name ‖ 0x00 ‖ salt ‖ context)
//!     (AEAD name: "AEAD_AES_128_GCM" or "AEAD_AES_256_GCM")
//!
//! message = salt (24) ‖ commitment (32) ‖ chunk 0 ‖ chunk 1 ‖ … ‖ chunk n
//! chunk i = AES-GCM(key, nonce = base nonce ⊕ i, aad = "", plaintext_i) ‖ tag (16)
//! ```
//!
//! Every chunk holds 16 KiB of plaintext except the last, which holds
//! **fewer** (0 to 16 383 bytes). A short chunk therefore marks the end:
//! a message of exactly 16 KiB is one full chunk and one empty one, and a
//! ciphertext that ends after a full chunk is truncated. The chunk number is
//! XORed, big-endian, into the low bytes of the 12-byte base nonce, so each
//! chunk is bound to its position and chunks cannot be reordered. Two
//! instantiations, as [`Aead`]: Cobblestone-128 (AES-128-GCM, the
//! recommended one) and Cobblestone-256 (AES-256-GCM); both use SHA-512.
//!
//! # What decryption promises
//!
//! - The commitment is checked (in constant time) before any chunk is
//!   touched: a wrong key or a wrong context fails there, as
//!   [`Error::Commitment`], whatever the rest of the file holds.
//! - A chunk's plaintext is released only after its tag verified.
//! - A short chunk is taken as the final one only when the input ends right
//!   after it; data after the final chunk and a missing final chunk are
//!   errors, never a clean end of file. Errors are sticky: a
//!   [`DecryptReader`] that failed keeps failing. (A [`SeekReader`] reads
//!   each chunk on its own: one that failed, sought elsewhere, reads the
//!   chunks that verify there.)
//!
//! # The pieces
//!
//! - [`seal_header`] / [`read_header`]: key derivation and the commitment.
//! - [`MessageKey`]: the per-message AEAD key and base nonce; built directly
//!   by [`MessageKey::raw`] it is the spec's **raw mode** (no header), a
//!   hazmat piece for protocols that derive their own keys.
//! - [`EncryptWriter`] / [`DecryptReader`]: streaming over `Write`/`Read`.
//! - [`SeekReader`]: random access (`Read + Seek`) over a seekable
//!   ciphertext; it authenticates the length before any seek from the end.
//! - [`encrypt_parallel`] / [`decrypt_parallel`]: the same streams, many
//!   chunks at once on all cores, in bounded memory.
//!
//! ```
//! use std::io::{Read, Seek, SeekFrom, Write};
//! use aekit::chunked::{Aead, DecryptReader, EncryptWriter, SeekReader};
//! # fn main() -> Result<(), aekit::chunked::Error> {
//! let key = [7u8; 16]; // in real use: 16 random bytes
//! let mut writer = EncryptWriter::new(Vec::new(), Aead::Aes128Gcm, &key, b"backup v1")?;
//! writer.write_all(&[42u8; 40_000])?;
//! let sealed = writer.finish()?; // 56 + 40 000 + 3 × 16 bytes
//!
//! let mut plain = Vec::new();
//! DecryptReader::new(&sealed[..], Aead::Aes128Gcm, &key, b"backup v1")?
//!     .read_to_end(&mut plain)?;
//! assert_eq!(plain, [42u8; 40_000]);
//!
//! let mut random = SeekReader::new(std::io::Cursor::new(&sealed), Aead::Aes128Gcm, &key, b"backup v1")?;
//! assert_eq!(random.seek(SeekFrom::End(-10))?, 39_990); // the length is authenticated first
//! # Ok(()) }
//! ```
//!
//! # Why HKDF-Expand is written out here
//!
//! The `hkdf` crate's `Hkdf::from_prk` refuses a pseudorandom key shorter
//! than the hash (64 bytes for SHA-512), while Cobblestone's input key *is*
//! the PRK and is 16 or 32 bytes. HKDF-Expand itself (RFC 5869 §2.3) is
//! three lines of HMAC-SHA-512, so `expand` computes it over the `hmac`
//! and `sha2` crates; a test checks it against `hkdf` where both apply.

mod parallel;
mod seek;
mod stream;

use std::fmt;
use std::io::{self, Read};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha512;
use zeroize::Zeroize;

use crate::AesGcm;
use crate::secret;

pub use parallel::{
    ReadAt, decrypt_parallel, decrypt_parallel_at, encrypt_parallel, encrypt_parallel_at,
};
pub use seek::SeekReader;
pub use stream::{DecryptReader, EncryptWriter};

/// Plaintext bytes in every chunk but the last.
pub const CHUNK_LEN: usize = 16 * 1024;
/// Bytes of AES-GCM tag after each chunk.
pub const TAG_LEN: usize = 16;
/// Bytes of a full chunk as stored: plaintext length plus tag.
pub const SEALED_CHUNK_LEN: usize = CHUNK_LEN + TAG_LEN;
/// Bytes of salt at the start of a message.
pub const SALT_LEN: usize = 24;
/// Bytes of key commitment after the salt.
pub const COMMITMENT_LEN: usize = 32;
/// Bytes before chunk 0: salt and commitment.
pub const HEADER_LEN: usize = SALT_LEN + COMMITMENT_LEN;
/// Bytes of the base nonce (AES-GCM's 96-bit nonce).
pub const NONCE_LEN: usize = 12;
/// The spec's limit on the chunk count (and so on the chunk number).
pub const MAX_CHUNKS: u64 = 1 << 38;

const INFO_PREFIX: &[u8] = b"c2sp.org/chunked-encryption@v1+";

/// A message's salt: 24 bytes that must never repeat under one input key.
pub type Salt = [u8; SALT_LEN];

/// The AEAD under the chunks, which is the instantiation's only variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Aead {
    /// Cobblestone-128: AES-128-GCM, 16-byte keys (recommended).
    Aes128Gcm,
    /// Cobblestone-256: AES-256-GCM, 32-byte keys.
    Aes256Gcm,
}

impl Aead {
    /// Both instantiations.
    pub const ALL: [Aead; 2] = [Aead::Aes128Gcm, Aead::Aes256Gcm];

    /// The short token (`aes-128-gcm`, `aes-256-gcm`), as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Aead::Aes128Gcm => "aes-128-gcm",
            Aead::Aes256Gcm => "aes-256-gcm",
        }
    }

    /// Looks an AEAD up by its token.
    pub fn from_name(name: &str) -> Option<Aead> {
        Aead::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The name in the IANA AEAD registry, which goes into the key derivation.
    pub fn iana_name(self) -> &'static str {
        match self {
            Aead::Aes128Gcm => "AEAD_AES_128_GCM",
            Aead::Aes256Gcm => "AEAD_AES_256_GCM",
        }
    }

    /// The instantiation's name (`Cobblestone-128`, `Cobblestone-256`).
    pub fn instantiation(self) -> &'static str {
        match self {
            Aead::Aes128Gcm => "Cobblestone-128",
            Aead::Aes256Gcm => "Cobblestone-256",
        }
    }

    /// Bytes of key: of the input key and of the derived AEAD key alike.
    pub fn key_len(self) -> usize {
        match self {
            Aead::Aes128Gcm => 16,
            Aead::Aes256Gcm => 32,
        }
    }

    /// The AEAD whose keys are `len` bytes long, if any.
    pub fn for_key_len(len: usize) -> Option<Aead> {
        Aead::ALL.into_iter().find(|a| a.key_len() == len)
    }

    fn check_key(self, key: &[u8]) -> Result<(), Error> {
        if key.len() == self.key_len() {
            Ok(())
        } else {
            Err(Error::KeyLength {
                aead: self,
                len: key.len(),
            })
        }
    }
}

/// What can go wrong in chunked encryption. Each case maps to one thing the
/// user can do something about; I/O errors are kept as they came.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing failed.
    Io(io::Error),
    /// The input key is not as long as the AEAD's key (the length given).
    KeyLength {
        /// The AEAD the key was given for.
        aead: Aead,
        /// The key's length in bytes.
        len: usize,
    },
    /// A raw-mode base nonce that is not 12 bytes (the length given).
    NonceLength(usize),
    /// The commitment does not match: wrong key, wrong context, or a
    /// modified header. No chunk was decrypted.
    Commitment,
    /// The ciphertext ends early: inside the header, after a full chunk
    /// (the final, shorter chunk is missing) or with a final chunk shorter
    /// than a tag.
    Truncated,
    /// A chunk failed authentication. `last` says it was read as the final
    /// chunk, which is what truncation inside a chunk, data appended after
    /// the end, and a modified final chunk all look like.
    Authentication {
        /// The chunk's number.
        chunk: u64,
        /// Whether it was the final (short) chunk.
        last: bool,
    },
    /// The message exceeds the spec's 2^38 chunks.
    TooLong,
    /// The operating system's random generator failed.
    Random,
}

impl Error {
    /// An equal error, for readers and writers that keep failing once they
    /// failed.
    /// (I/O errors are not `Clone`; the copy keeps the kind and the text.)
    fn again(&self) -> Error {
        match self {
            Error::Io(e) => Error::Io(io::Error::new(e.kind(), e.to_string())),
            Error::KeyLength { aead, len } => Error::KeyLength {
                aead: *aead,
                len: *len,
            },
            Error::NonceLength(n) => Error::NonceLength(*n),
            Error::Commitment => Error::Commitment,
            Error::Truncated => Error::Truncated,
            Error::Authentication { chunk, last } => Error::Authentication {
                chunk: *chunk,
                last: *last,
            },
            Error::TooLong => Error::TooLong,
            Error::Random => Error::Random,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "{e}"),
            Error::KeyLength { aead, len } => write!(
                f,
                "wrong key size: {len} bytes, {} takes {}",
                aead.name(),
                aead.key_len()
            ),
            Error::NonceLength(n) => {
                write!(f, "wrong base nonce size: {n} bytes, it takes {NONCE_LEN}")
            }
            Error::Commitment => f.write_str(
                "wrong key or wrong context (the key commitment does not match; \
                 or the header was modified)",
            ),
            Error::Truncated => {
                f.write_str("truncated: the ciphertext ends before its final chunk")
            }
            Error::Authentication { chunk, last: true } => write!(
                f,
                "the final chunk ({chunk}) does not authenticate: \
                 the ciphertext was truncated, extended, or modified at its end"
            ),
            Error::Authentication { chunk, last: false } => write!(
                f,
                "chunk {chunk} does not authenticate: the ciphertext was modified \
                 or its chunks reordered"
            ),
            Error::TooLong => f.write_str("message too long (over 2^38 chunks)"),
            Error::Random => f.write_str("the system random number generator failed"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Readers hand errors out as `io::Error`; this carries a chunked error
/// inside one (`Io` is unwrapped, so I/O errors pass through unchanged).
impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        let kind = match e {
            Error::Io(e) => return e,
            Error::Truncated => io::ErrorKind::UnexpectedEof,
            Error::KeyLength { .. } | Error::NonceLength(_) => io::ErrorKind::InvalidInput,
            Error::Random => io::ErrorKind::Other,
            _ => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, e)
    }
}

/// Recovers the chunked error from an `io::Error` that a reader or writer of
/// this module produced (after `io::copy`, say); any other I/O error becomes
/// [`Error::Io`].
impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        if e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
            if let Some(Ok(inner)) = e.into_inner().map(|b| b.downcast::<Error>()) {
                return *inner;
            }
            unreachable!("checked to hold a chunked::Error just above");
        }
        Error::Io(e)
    }
}

/// HKDF-Expand (RFC 5869 §2.3) with HMAC-SHA-512:
/// T(i) = HMAC(prk, T(i−1) ‖ info ‖ i), output T(1) ‖ T(2) ‖ …, for any PRK
/// length. `info` is given in pieces, concatenated.
fn expand(prk: &[u8], info: &[&[u8]], okm: &mut [u8]) {
    let mut previous: Vec<u8> = Vec::new();
    for (i, out) in okm.chunks_mut(64).enumerate() {
        let mut mac = Hmac::<Sha512>::new_from_slice(prk).expect("HMAC takes keys of any length");
        mac.update(&previous);
        info.iter().for_each(|piece| mac.update(piece));
        mac.update(&[i as u8 + 1]);
        previous.zeroize();
        previous = mac.finalize().into_bytes().to_vec();
        out.copy_from_slice(&previous[..out.len()]);
    }
    previous.zeroize();
}

/// Derives a message's key, base nonce and commitment from the input key,
/// salt and context.
fn derive(
    aead: Aead,
    input_key: &[u8],
    salt: &Salt,
    context: &[u8],
) -> Result<(MessageKey, [u8; COMMITMENT_LEN]), Error> {
    aead.check_key(input_key)?;
    let key_len = aead.key_len();
    let mut okm = [0u8; 32 + NONCE_LEN + COMMITMENT_LEN];
    let okm = &mut okm[..key_len + NONCE_LEN + COMMITMENT_LEN];
    let info = [
        INFO_PREFIX,
        aead.iana_name().as_bytes(),
        &[0],
        salt,
        context,
    ];
    expand(input_key, &info, okm);
    let (key, rest) = okm.split_at(key_len);
    let (nonce, commitment) = rest.split_at(NONCE_LEN);
    let message_key = MessageKey::raw(aead, key, nonce);
    let commitment = commitment.try_into().expect("split at its length");
    okm.zeroize();
    Ok((message_key?, commitment))
}

/// Draws a fresh salt from the operating system's generator.
pub fn random_salt() -> Result<Salt, Error> {
    let mut salt = [0u8; SALT_LEN];
    getrandom::fill(&mut salt).map_err(|_| Error::Random)?;
    Ok(salt)
}

/// Starts a message: derives its key from the input key, `salt` and
/// `context`, and returns it with the 56-byte header (salt ‖ commitment)
/// that must precede the chunks. The salt must never repeat under one input
/// key; [`random_salt`] draws one.
pub fn seal_header(
    aead: Aead,
    input_key: &[u8],
    context: &[u8],
    salt: &Salt,
) -> Result<(MessageKey, [u8; HEADER_LEN]), Error> {
    let (key, commitment) = derive(aead, input_key, salt, context)?;
    let mut header = [0u8; HEADER_LEN];
    header[..SALT_LEN].copy_from_slice(salt);
    header[SALT_LEN..].copy_from_slice(&commitment);
    Ok((key, header))
}

/// Checks a message's header against the input key and context (the
/// commitment, in constant time) and returns the message's key.
pub fn open_header(
    aead: Aead,
    input_key: &[u8],
    context: &[u8],
    header: &[u8; HEADER_LEN],
) -> Result<MessageKey, Error> {
    let (salt, commitment) = header.split_at(SALT_LEN);
    let salt: &Salt = salt.try_into().expect("split at its length");
    let (key, mut expected) = derive(aead, input_key, salt, context)?;
    let ok = secret::tags_match(&expected, commitment);
    expected.zeroize();
    if ok { Ok(key) } else { Err(Error::Commitment) }
}

/// Reads the 56-byte header from `input` and opens it ([`open_header`]).
/// The key length is checked before anything is read.
pub fn read_header<R: Read>(
    input: &mut R,
    aead: Aead,
    input_key: &[u8],
    context: &[u8],
) -> Result<MessageKey, Error> {
    aead.check_key(input_key)?;
    let mut header = [0u8; HEADER_LEN];
    if read_full(input, &mut header)? < HEADER_LEN {
        return Err(Error::Truncated);
    }
    open_header(aead, input_key, context, &header)
}

/// One message's AEAD key and base nonce. Derived by [`seal_header`] and
/// [`read_header`]; built directly by [`MessageKey::raw`] for raw mode.
pub struct MessageKey {
    gcm: AesGcm,
    base_nonce: [u8; NONCE_LEN],
}

impl MessageKey {
    /// Raw mode: the AEAD key and base nonce given directly, with no salt,
    /// commitment or header. Both must be uniformly random and never used
    /// for a second message; the spec advises libraries to keep this mode
    /// for implementers of protocols.
    pub fn raw(aead: Aead, key: &[u8], base_nonce: &[u8]) -> Result<MessageKey, Error> {
        aead.check_key(key)?;
        let base_nonce = base_nonce
            .try_into()
            .map_err(|_| Error::NonceLength(base_nonce.len()))?;
        let gcm = AesGcm::new(key).map_err(|e| match e {
            crate::Error::InvalidKeyLength(_) => Error::KeyLength {
                aead,
                len: key.len(),
            },
            // A mistyped AEKIT_KERNEL: say so, not "wrong key size".
            other => Error::Io(io::Error::new(
                io::ErrorKind::Unsupported,
                other.to_string(),
            )),
        })?;
        Ok(MessageKey { gcm, base_nonce })
    }

    /// The nonce of chunk `index`: the base nonce XOR the index as a
    /// big-endian integer as wide as the nonce.
    fn nonce(&self, index: u64) -> Result<[u8; NONCE_LEN], Error> {
        if index >= MAX_CHUNKS {
            return Err(Error::TooLong);
        }
        let mut nonce = self.base_nonce;
        for (n, i) in nonce[NONCE_LEN - 8..].iter_mut().zip(index.to_be_bytes()) {
            *n ^= i;
        }
        Ok(nonce)
    }

    /// Encrypts chunk `index` in place: `sealed` holds the plaintext followed
    /// by [`TAG_LEN`] bytes of room, which receive the tag. The format's
    /// chunks are [`CHUNK_LEN`] bytes of plaintext, all but the final one,
    /// which is shorter (possibly empty): any length is sealed, and
    /// keeping to those is the caller's part. Fails with
    /// [`Error::Truncated`] where there is no room for the tag, and
    /// [`Error::TooLong`] for an index past the format's 2^38 chunks.
    ///
    /// # Panics
    ///
    /// For a plaintext over GCM's limit of 2^36 − 32 bytes, which no chunk
    /// of the format comes near.
    pub fn seal_chunk(&self, index: u64, sealed: &mut [u8]) -> Result<(), Error> {
        let nonce = self.nonce(index)?;
        let split = sealed.len().checked_sub(TAG_LEN).ok_or(Error::Truncated)?;
        let (text, room) = sealed.split_at_mut(split);
        let tag = self
            .gcm
            .encrypt_in_place_detached(&nonce, &[], text, TAG_LEN)
            .expect("a chunk is far within GCM's limits");
        tag.copy_to(room);
        Ok(())
    }

    /// Verifies and decrypts chunk `index` in place (ciphertext ‖ tag) and
    /// returns its plaintext. `last` says whether it is read as the final
    /// chunk, which only shapes the error. On failure the buffer is zeroed.
    pub fn open_chunk<'b>(
        &self,
        index: u64,
        sealed: &'b mut [u8],
        last: bool,
    ) -> Result<&'b mut [u8], Error> {
        let nonce = self.nonce(index)?;
        let split = sealed.len().checked_sub(TAG_LEN).ok_or(Error::Truncated)?;
        let (text, tag) = sealed.split_at_mut(split);
        match self.gcm.decrypt_in_place_detached(&nonce, &[], text, tag) {
            Ok(()) => Ok(text),
            Err(_) => {
                tag.zeroize();
                Err(Error::Authentication { chunk: index, last })
            }
        }
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
/// Retries reads that were interrupted.
fn read_full<R: Read + ?Sized>(input: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_agrees_with_the_hkdf_crate() {
        // hkdf takes PRKs of at least the hash's length; compare there, at
        // every output length our derivation uses and a few more.
        let prk: Vec<u8> = (0..64u8).collect();
        let hkdf = hkdf::Hkdf::<Sha512>::from_prk(&prk).expect("64-byte PRK");
        for len in [1, 60, 64, 65, 76, 128, 200] {
            let mut ours = vec![0u8; len];
            let mut theirs = vec![0u8; len];
            expand(&prk, &[b"c2sp", b"", b"-info"], &mut ours);
            hkdf.expand(b"c2sp-info", &mut theirs).expect("length");
            assert_eq!(ours, theirs, "length {len}");
        }
    }

    #[test]
    fn nonce_xors_the_chunk_number_big_endian() {
        let key = MessageKey::raw(Aead::Aes128Gcm, &[0; 16], &[0xff; 12]).expect("key");
        let n = key.nonce(0x12_3456_789a).expect("in range");
        assert_eq!(n[..7], [0xff; 7]);
        assert_eq!(
            n[7..],
            [
                0xff ^ 0x12,
                0xff ^ 0x34,
                0xff ^ 0x56,
                0xff ^ 0x78,
                0xff ^ 0x9a
            ]
        );
        assert!(matches!(key.nonce(MAX_CHUNKS), Err(Error::TooLong)));
        assert!(key.nonce(MAX_CHUNKS - 1).is_ok());
    }

    #[test]
    fn errors_survive_the_trip_through_io_error() {
        let io: io::Error = Error::Authentication {
            chunk: 7,
            last: false,
        }
        .into();
        assert_eq!(io.kind(), io::ErrorKind::InvalidData);
        assert!(matches!(
            Error::from(io),
            Error::Authentication {
                chunk: 7,
                last: false
            }
        ));
        let plain = io::Error::new(io::ErrorKind::PermissionDenied, "no");
        let back: io::Error = Error::from(plain).into();
        assert_eq!(back.kind(), io::ErrorKind::PermissionDenied);
    }
}
