//! AES-GCM and GMAC over any (AES strategy, GHASH strategy) pair.
//!
//! The strategies are chosen once, when the key is set up, and held as two
//! enums; each call matches on them once (in `dispatch`) and then runs code
//! monomorphized for the pair, so no inner loop ever branches on the
//! strategy. Validation lives here; the computation is in `state.rs`.

mod precomputed;
mod rustcrypto;
mod state;
mod stream;

use zeroize::Zeroize;

use crate::Error;
use crate::aes::{self, Block, BlockCipher, Cipher};
use crate::ghash::{self, GhashKey};

pub use rustcrypto::{Aes128Gcm, Aes256Gcm};
pub use state::{MAX_AAD_LEN, MAX_MESSAGE_LEN, TAG_LENGTHS};
pub use stream::{Decryptor, Encryptor};

use state::{Direction, State, check_iv, check_tag_len, tags_match};

/// An authentication tag of 4 to 16 bytes.
#[derive(Clone, Copy, Debug)]
pub struct Tag {
    bytes: Block,
    len: usize,
}

impl Tag {
    /// The tag's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    fn truncate(bytes: Block, len: usize) -> Tag {
        Tag { bytes, len }
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// AES-GCM with a key of 16, 24 or 32 bytes, in the strategies chosen at
/// construction. Key material and tables are zeroized when it is dropped.
pub struct AesGcm {
    aes: Cipher,
    ghash: ghash::Key,
}

impl AesGcm {
    /// AES-GCM in the fastest constant-time strategies this CPU runs
    /// ([`aes::Strategy::best`], [`ghash::Strategy::best`]).
    pub fn new(key: &[u8]) -> Result<AesGcm, Error> {
        AesGcm::with(key, aes::Strategy::best(), ghash::Strategy::best())
    }

    /// AES-GCM in the strategies given, constant-time or not.
    pub fn with(
        key: &[u8],
        aes_strategy: aes::Strategy,
        ghash_strategy: ghash::Strategy,
    ) -> Result<AesGcm, Error> {
        let aes = Cipher::new(aes_strategy, key)?;
        let mut h = [[0u8; 16]]; // H = E(K, 0^128)
        aes.encrypt_blocks(&mut h);
        let ghash = ghash::Key::new(ghash_strategy, &h[0]);
        h.zeroize();
        Ok(AesGcm { aes, ghash: ghash? })
    }

    /// The (AES, GHASH) strategies this key runs on.
    pub fn strategies(&self) -> (aes::Strategy, ghash::Strategy) {
        (self.aes.strategy(), self.ghash.strategy())
    }

    /// Encrypts `buf` in place and returns a tag of `tag_len` bytes.
    /// The IV may have any length of at least one byte; 12 bytes is the fast
    /// and recommended one. It must never repeat under one key.
    pub fn encrypt_in_place_detached(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        check_tag_len(tag_len)?;
        check_lengths(iv, aad, buf)?;
        let full = self.run(OneShot {
            iv,
            aad,
            buf,
            direction: Direction::Encrypt,
        })?;
        Ok(Tag::truncate(full, tag_len))
    }

    /// Verifies `tag` and decrypts `buf` in place. On failure `buf` is
    /// zeroed and [`Error::AuthenticationFailed`] returned: no unverified
    /// plaintext is ever released. The tag is compared in constant time.
    pub fn decrypt_in_place_detached(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        check_tag_len(tag.len())?;
        check_lengths(iv, aad, buf)?;
        let full = self.run(OneShot {
            iv,
            aad,
            buf: &mut *buf,
            direction: Direction::Decrypt,
        })?;
        verify_or_wipe(full, tag, buf)
    }

    /// Encrypts `plaintext` and returns ciphertext ‖ tag.
    pub fn encrypt(
        &self,
        iv: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        tag_len: usize,
    ) -> Result<Vec<u8>, Error> {
        check_tag_len(tag_len)?;
        let mut out = plaintext.to_vec();
        let tag = self.encrypt_in_place_detached(iv, aad, &mut out, tag_len)?;
        out.extend_from_slice(tag.as_bytes());
        Ok(out)
    }

    /// Verifies and decrypts ciphertext ‖ tag (the tag being its last
    /// `tag_len` bytes) and returns the plaintext, or an error and nothing.
    pub fn decrypt(
        &self,
        iv: &[u8],
        aad: &[u8],
        ciphertext_and_tag: &[u8],
        tag_len: usize,
    ) -> Result<Vec<u8>, Error> {
        check_tag_len(tag_len)?;
        let split = ciphertext_and_tag
            .len()
            .checked_sub(tag_len)
            .ok_or(Error::AuthenticationFailed)?;
        let (ciphertext, tag) = ciphertext_and_tag.split_at(split);
        let mut out = ciphertext.to_vec();
        self.decrypt_in_place_detached(iv, aad, &mut out, tag)?;
        Ok(out)
    }

    /// Starts an on-line encryption, for messages whose length is not known
    /// in advance: feed associated data, then the message, in pieces of any
    /// size. The result equals the one-shot API's for every split.
    pub fn encryptor(&self, iv: &[u8]) -> Result<Encryptor<'_>, Error> {
        Encryptor::new(self, iv)
    }

    /// Starts an on-line decryption. **It releases plaintext before the tag
    /// is checked**: nothing it returns may be acted on until
    /// [`Decryptor::finish`] succeeds. Prefer the one-shot API when the
    /// message fits in memory.
    pub fn decryptor(&self, iv: &[u8]) -> Result<Decryptor<'_>, Error> {
        Decryptor::new(self, iv)
    }

    /// Runs `op` on this key's strategy pair.
    fn run<O: PairOp>(&self, op: O) -> O::Output {
        dispatch(&self.aes, &self.ghash, op)
    }
}

/// Compares the computed tag with the received one in constant time; on a
/// mismatch wipes the decrypted `buf`, so no unverified plaintext leaves.
fn verify_or_wipe(mut full: Block, tag: &[u8], buf: &mut [u8]) -> Result<(), Error> {
    let ok = tags_match(&full, tag);
    full.zeroize();
    if ok {
        Ok(())
    } else {
        buf.zeroize();
        Err(Error::AuthenticationFailed)
    }
}

/// Checks the lengths of a one-shot call before anything is computed.
fn check_lengths(iv: &[u8], aad: &[u8], buf: &[u8]) -> Result<(), Error> {
    check_iv(iv)?;
    if aad.len() as u64 > MAX_AAD_LEN {
        return Err(Error::AadTooLong);
    }
    if buf.len() as u64 > MAX_MESSAGE_LEN {
        return Err(Error::MessageTooLong);
    }
    Ok(())
}

/// A computation that needs the concrete (AES, GHASH) types.
trait PairOp {
    type Output;
    fn run<A: BlockCipher, G: GhashKey>(self, aes: &A, ghash: &G) -> Self::Output;
}

/// The one place the strategy enums are matched: once per call.
fn dispatch<O: PairOp>(aes: &Cipher, ghash: &ghash::Key, op: O) -> O::Output {
    match aes {
        Cipher::Table(a) => dispatch_ghash(&**a, ghash, op),
        Cipher::Fixslice(a) => dispatch_ghash(&**a, ghash, op),
        Cipher::Ni(a) => dispatch_ghash(&**a, ghash, op),
    }
}

fn dispatch_ghash<A: BlockCipher, O: PairOp>(aes: &A, ghash: &ghash::Key, op: O) -> O::Output {
    use ghash::Key;
    match ghash {
        Key::BitSerial(g) => op.run(aes, &**g),
        Key::Table1(g) => op.run(aes, &**g),
        Key::Table4(g) => op.run(aes, &**g),
        Key::Table8(g) => op.run(aes, &**g),
        Key::Shoup4(g) => op.run(aes, &**g),
        Key::Shoup8(g) => op.run(aes, &**g),
        Key::Karatsuba(g) => op.run(aes, &**g),
        Key::Clmul(g) => op.run(aes, &**g),
    }
}

/// A whole message in one call; returns the full 16-byte tag.
struct OneShot<'a> {
    iv: &'a [u8],
    aad: &'a [u8],
    buf: &'a mut [u8],
    direction: Direction,
}

impl PairOp for OneShot<'_> {
    type Output = Result<Block, Error>;
    fn run<A: BlockCipher, G: GhashKey>(self, aes: &A, ghash: &G) -> Self::Output {
        let mut state = State::start(aes, ghash, self.iv);
        state.aad(ghash, self.aad)?;
        state.crypt(aes, ghash, self.buf, self.direction)?;
        Ok(state.finish(ghash))
    }
}

/// GMAC: GCM with an empty message, authenticating associated data only.
pub struct Gmac {
    gcm: AesGcm,
}

impl Gmac {
    /// GMAC in the fastest constant-time strategies this CPU runs.
    pub fn new(key: &[u8]) -> Result<Gmac, Error> {
        Ok(Gmac {
            gcm: AesGcm::new(key)?,
        })
    }

    /// GMAC in the strategies given.
    pub fn with(
        key: &[u8],
        aes_strategy: aes::Strategy,
        ghash_strategy: ghash::Strategy,
    ) -> Result<Gmac, Error> {
        Ok(Gmac {
            gcm: AesGcm::with(key, aes_strategy, ghash_strategy)?,
        })
    }

    /// The tag of `aad` under `iv`, `tag_len` bytes long.
    pub fn compute(&self, iv: &[u8], aad: &[u8], tag_len: usize) -> Result<Tag, Error> {
        self.gcm
            .encrypt_in_place_detached(iv, aad, &mut [], tag_len)
    }

    /// Checks `tag` against `aad` under `iv`, in constant time.
    pub fn verify(&self, iv: &[u8], aad: &[u8], tag: &[u8]) -> Result<(), Error> {
        self.gcm.decrypt_in_place_detached(iv, aad, &mut [], tag)
    }

    /// The (AES, GHASH) strategies this key runs on.
    pub fn strategies(&self) -> (aes::Strategy, ghash::Strategy) {
        self.gcm.strategies()
    }
}
