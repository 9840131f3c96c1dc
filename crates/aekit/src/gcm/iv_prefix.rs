//! Fixed parts of the IV processed in advance (spec §6, Table 2: "fixed
//! parts of the IV or the AAD can be processed in advance").
//!
//! An IV that is not 96 bits enters GCM through Y_0 = GHASH(H, {}, IV)
//! (spec §2.3), so the GHASH value over a prefix that every message's IV
//! shares — a sender's identity, a protocol label, a salt — depends on the
//! key and the prefix only. [`IvPrefix`] holds it: each message then hashes
//! the rest of its IV and the length block, instead of the whole IV. The
//! associated data's counterpart is [`AadPrefix`](super::AadPrefix).
//!
//! The output is byte for byte that of the one-shot API with the whole IV,
//! tag rules included (they see the whole IV's length). A prefix and rest
//! that make 12 bytes take the 96-bit form, with nothing hashed.

use super::aes_gcm::{AesGcm, OneShot, Tag, check_data};
use super::kernel::{Direction, Kernel, KernelOp};
use super::state::{IvHash, State, verify_or_wipe};
use super::stream::{Decryptor, Encryptor, Online};
use crate::Error;
use crate::aes::Block;

impl AesGcm {
    /// Hashes a fixed leading part of the IV once, for many messages (spec
    /// §6, Table 2: fixed parts of the IV processed in advance), for IVs
    /// other than 12 bytes, which GCM hashes into Y_0: each message then
    /// hashes only the rest of its IV. It saves the prefix's GHASH blocks,
    /// which counts where GHASH is computed in software (the table and
    /// portable strategies); with carry-less-multiply instructions a few
    /// blocks more cost about what keeping the prefix does (`aekit-bench
    /// prefixes` measures both). Any prefix length is taken, an empty one
    /// too.
    ///
    /// ```
    /// # fn main() -> Result<(), aekit::Error> {
    /// let gcm = aekit::AesGcm::new(&[3u8; 16])?.with_tag_length(16)?;
    /// let sender = gcm.iv_prefix(b"sender 0042, session 7f31e2a0")?; // hashed once
    /// for n in 0u64..3 {
    ///     let mut msg = *b"payload";
    ///     let tag = sender.encrypt_in_place_detached(&n.to_be_bytes(), b"", &mut msg, 16)?;
    ///     let iv = [&b"sender 0042, session 7f31e2a0"[..], &n.to_be_bytes()].concat();
    ///     let mut again = *b"payload";
    ///     let same = gcm.encrypt_in_place_detached(&iv, b"", &mut again, 16)?;
    ///     assert_eq!((msg, tag.as_ref()), (again, same.as_ref()));
    /// }
    /// # Ok(()) }
    /// ```
    pub fn iv_prefix(&self, prefix: &[u8]) -> Result<IvPrefix<'_>, Error> {
        IvPrefix::new(self, prefix)
    }
}

/// A fixed leading part of the IV, hashed once under a key; see
/// [`AesGcm::iv_prefix`].
///
/// Every call takes the rest of the message's IV. The whole IV (prefix ‖
/// rest) must never repeat under the key. The GHASH value it holds is a
/// function of H, kept as secret: zeroized on drop in every copy.
#[derive(Clone)]
pub struct IvPrefix<'k> {
    gcm: &'k AesGcm,
    hash: IvHash,
}

impl<'k> IvPrefix<'k> {
    pub(super) fn new(gcm: &'k AesGcm, prefix: &[u8]) -> Result<IvPrefix<'k>, Error> {
        let mut hash = IvHash::new();
        gcm.run(Absorb {
            hash: &mut hash,
            bytes: prefix,
        })?;
        Ok(IvPrefix { gcm, hash })
    }

    /// The prefix's length in bytes.
    pub fn len(&self) -> u64 {
        self.hash.len()
    }

    /// Whether the prefix is empty (then nothing was precomputed).
    pub fn is_empty(&self) -> bool {
        self.hash.len() == 0
    }

    /// [`AesGcm::encrypt_in_place_detached`] under the IV prefix ‖
    /// `iv_rest`.
    pub fn encrypt_in_place_detached(
        &self,
        iv_rest: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.check_iv(iv_rest, tag_len)?;
        check_data(aad, buf)?;
        let full = self.gcm.run(Prefixed {
            prefix: &self.hash,
            iv_rest,
            aad,
            buf,
            direction: Direction::Encrypt,
        })?;
        Ok(Tag::truncate(full, tag_len))
    }

    /// [`AesGcm::decrypt_in_place_detached`] under the IV prefix ‖
    /// `iv_rest`: if the tag does not verify, `buf` is zeroed.
    pub fn decrypt_in_place_detached(
        &self,
        iv_rest: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.check_iv(iv_rest, tag.len())?;
        check_data(aad, buf)?;
        let mut full = self.gcm.run(Prefixed {
            prefix: &self.hash,
            iv_rest,
            aad,
            buf: &mut *buf,
            direction: Direction::Decrypt,
        })?;
        verify_or_wipe(&mut full, tag, buf)
    }

    /// [`AesGcm::encryptor`] under the IV prefix ‖ `iv_rest`.
    pub fn encryptor(&self, iv_rest: &[u8]) -> Result<Encryptor<'k>, Error> {
        self.online(iv_rest).map(Encryptor)
    }

    /// [`AesGcm::decryptor`] under the IV prefix ‖ `iv_rest`: as there,
    /// plaintext comes out before the tag is checked.
    pub fn decryptor(&self, iv_rest: &[u8]) -> Result<Decryptor<'k>, Error> {
        self.online(iv_rest).map(Decryptor)
    }

    /// The checks a one-shot call makes on the whole IV, from lengths
    /// alone: not empty, not too long, and a tag length the key's rules
    /// allow with it. Returns the IV's length.
    fn check_iv(&self, iv_rest: &[u8], tag_len: usize) -> Result<usize, Error> {
        let len = self.whole_len(iv_rest)?;
        self.gcm.check_tag(tag_len, len)?;
        Ok(len)
    }

    /// The whole IV's length, or why GCM cannot take it.
    fn whole_len(&self, iv_rest: &[u8]) -> Result<usize, Error> {
        let len = self.hash.len_with(iv_rest.len())?;
        if len == 0 {
            return Err(Error::EmptyIv);
        }
        Ok(usize::try_from(len).unwrap_or(usize::MAX))
    }

    fn online(&self, iv_rest: &[u8]) -> Result<Online<'k>, Error> {
        let len = self.whole_len(iv_rest)?;
        let state = self.gcm.run(Start {
            prefix: &self.hash,
            iv_rest,
        })?;
        Ok(Online::with_state(self.gcm, state, len))
    }
}

/// Appends bytes to an IV's hash.
struct Absorb<'h, 'a> {
    hash: &'h mut IvHash,
    bytes: &'a [u8],
}

impl KernelOp for Absorb<'_, '_> {
    type Output = Result<(), Error>;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> Self::Output {
        self.hash.absorb(kernel.ghash(), self.bytes)
    }
}

/// A message's state under the IV prefix ‖ `iv_rest`, whose lengths have
/// been checked.
struct Start<'h, 'a> {
    prefix: &'h IvHash,
    iv_rest: &'a [u8],
}

impl KernelOp for Start<'_, '_> {
    type Output = Result<State, Error>;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> Self::Output {
        let mut hash = self.prefix.clone();
        hash.absorb(kernel.ghash(), self.iv_rest)?;
        Ok(start(kernel, &hash))
    }
}

/// A message's state under the IV hashed.
fn start<K: Kernel>(kernel: &K, hash: &IvHash) -> State {
    let mut state = State::with_tag_mask(&[0; 16]);
    let j0 = hash.pre_counter(kernel.ghash());
    state.set_pre_counter(kernel, j0, hash.len() == 12);
    state
}

/// A whole message under the IV prefix ‖ `iv_rest` (lengths checked), in
/// one dispatch; a 12-byte IV goes the one-shot way, through the kernel's
/// whole-message path.
struct Prefixed<'h, 'a> {
    prefix: &'h IvHash,
    iv_rest: &'a [u8],
    aad: &'a [u8],
    buf: &'a mut [u8],
    direction: Direction,
}

impl KernelOp for Prefixed<'_, '_> {
    type Output = Result<Block, Error>;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> Self::Output {
        let mut hash = self.prefix.clone();
        hash.absorb(kernel.ghash(), self.iv_rest)?;
        if hash.len() == 12 {
            // The 96-bit Y_0 is IV ‖ 0^31 ‖ 1: its first 12 bytes are the IV.
            let iv = hash.pre_counter(kernel.ghash());
            return OneShot {
                iv: &iv[..12],
                aad: self.aad,
                buf: self.buf,
                direction: self.direction,
            }
            .run(kernel);
        }
        let mut state = start(kernel, &hash);
        state.aad(kernel, self.aad)?;
        state.crypt(kernel, self.buf, self.direction)?;
        Ok(state.finish(kernel))
    }
}
