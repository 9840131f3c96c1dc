//! Nonce and key-lifetime guards: the two ways of choosing GCM IVs that
//! NIST SP 800-38D §8.2 allows, each holding the limit that keeps it safe.
//!
//! GCM's one hard rule is that an IV never repeats under a key: one repeat
//! reveals the XOR of two plaintexts and, worse, lets an attacker solve for
//! the GHASH key H and forge tags for every later message (Joux's
//! "forbidden attack"). [`AesGcm`] itself takes any IV it is given; these
//! two types choose them so that the rule holds.
//!
//! - [`RandomNonceSealer`] — the RBG-based construction (§8.2.2): a fresh
//!   96-bit IV from the operating system for each message. Random IVs can
//!   collide; after `r` messages the chance is about r² / 2^97. §8.3 caps
//!   the authenticated-encryption invocations under one key at 2^32 for
//!   this construction (a collision chance near 2^-33), so the sealer owns
//!   the key, counts the messages it sealed, and refuses the one after
//!   [`RANDOM_NONCE_LIMIT`] with [`Error::RandomNonceLimitReached`]: the key
//!   must be replaced. Decryption is not counted: it uses no new IV.
//! - [`CounterNonces`] — the deterministic construction (§8.2.1): a 4-byte
//!   fixed field naming the sender (or the context) ‖ a 64-bit invocation
//!   counter, as RFC 5116 §3.2 recommends. Every nonce is issued once; the
//!   sequence refuses to wrap ([`Error::NonceSequenceExhausted`]), and it is
//!   deliberately not `Clone`, so no copy can issue the same nonces again.
//!
//! The count lives in the value: two sealers built from the same key bytes
//! count apart. A process that keeps a key across restarts must persist
//! [`RandomNonceSealer::messages_sealed`] (or the counter's
//! [`CounterNonces::next_counter`]) and carry it on with
//! [`RandomNonceSealer::resume`] (or [`CounterNonces::starting_at`]).
//!
//! Rejected: counting inside [`AesGcm`] (it would tax every caller who
//! manages IVs already, such as the chunked format and ESP, whose
//! constructions cannot repeat), and a 32-bit invocation counter (the
//! 64-bit one cannot be exhausted in practice, and the fixed field still
//! gets four bytes).

use super::aes_gcm::{AesGcm, Tag};
use crate::Error;

/// Messages one key may seal under random 96-bit IVs: 2^32 (SP 800-38D
/// §8.3).
pub const RANDOM_NONCE_LIMIT: u64 = 1 << 32;

/// Bytes of the nonces both guards hand out: GCM's recommended 96 bits.
pub const NONCE_LEN: usize = 12;

/// AES-GCM with a random 96-bit nonce per message, refusing to seal more
/// than [`RANDOM_NONCE_LIMIT`] messages under its key.
///
/// ```
/// use aekit::{AesGcm, gcm::RandomNonceSealer};
/// # fn main() -> Result<(), aekit::Error> {
/// let mut sealer = RandomNonceSealer::new(AesGcm::new(&[0x42u8; 16])?);
/// let (nonce, sealed) = sealer.seal(b"header", b"attack at dawn", 16)?;
/// let opened = sealer.gcm().decrypt(&nonce, b"header", &sealed, 16)?;
/// assert_eq!(opened, b"attack at dawn");
/// assert_eq!(sealer.messages_sealed(), 1);
/// # Ok(()) }
/// ```
pub struct RandomNonceSealer {
    gcm: AesGcm,
    sealed: u64,
}

impl RandomNonceSealer {
    /// A sealer for a key that has sealed nothing yet.
    pub fn new(gcm: AesGcm) -> RandomNonceSealer {
        RandomNonceSealer::resume(gcm, 0)
    }

    /// A sealer for a key that has already sealed `messages_sealed`
    /// messages under random nonces (a count persisted before a restart).
    pub fn resume(gcm: AesGcm, messages_sealed: u64) -> RandomNonceSealer {
        RandomNonceSealer {
            gcm,
            sealed: messages_sealed,
        }
    }

    /// Encrypts `buf` in place under a fresh random nonce; returns the
    /// nonce (send it with the message) and a tag of `tag_len` bytes. After
    /// [`RANDOM_NONCE_LIMIT`] messages it returns
    /// [`Error::RandomNonceLimitReached`] and leaves `buf` as it was.
    pub fn seal_in_place_detached(
        &mut self,
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<([u8; NONCE_LEN], Tag), Error> {
        if self.sealed >= RANDOM_NONCE_LIMIT {
            return Err(Error::RandomNonceLimitReached);
        }
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|_| Error::RandomUnavailable)?;
        let tag = self
            .gcm
            .encrypt_in_place_detached(&nonce, aad, buf, tag_len)?;
        // Counted only once a ciphertext exists under the nonce; a call
        // refused for its arguments used no IV.
        self.sealed += 1;
        Ok((nonce, tag))
    }

    /// Encrypts `plaintext` under a fresh random nonce; returns the nonce
    /// and ciphertext ‖ tag. Refuses as
    /// [`seal_in_place_detached`](Self::seal_in_place_detached) does.
    pub fn seal(
        &mut self,
        aad: &[u8],
        plaintext: &[u8],
        tag_len: usize,
    ) -> Result<([u8; NONCE_LEN], Vec<u8>), Error> {
        // The arguments checked before the allocation, which for a tag
        // length near `usize::MAX` or an over-long message would panic or
        // abort instead of failing.
        self.gcm
            .check_call(&[0; NONCE_LEN], aad, plaintext, tag_len)?;
        let mut out = Vec::with_capacity(plaintext.len() + tag_len);
        out.extend_from_slice(plaintext);
        let (nonce, tag) = self.seal_in_place_detached(aad, &mut out, tag_len)?;
        out.extend_from_slice(tag.as_bytes());
        Ok((nonce, out))
    }

    /// Messages sealed under this key so far (persist it to resume).
    pub fn messages_sealed(&self) -> u64 {
        self.sealed
    }

    /// Messages this key may still seal.
    pub fn remaining(&self) -> u64 {
        RANDOM_NONCE_LIMIT.saturating_sub(self.sealed)
    }

    /// The key, for decryption (which uses no new nonce and is not
    /// counted).
    pub fn gcm(&self) -> &AesGcm {
        &self.gcm
    }
}

/// Deterministic 96-bit nonces: a 4-byte fixed field ‖ a 64-bit big-endian
/// counter (SP 800-38D §8.2.1), each issued once, never wrapping.
///
/// ```
/// use aekit::{AesGcm, gcm::CounterNonces};
/// # fn main() -> Result<(), aekit::Error> {
/// let gcm = AesGcm::new(&[0x42u8; 16])?;
/// let mut nonces = CounterNonces::new(*b"srv1"); // one fixed field per sender under the key
/// let nonce = nonces.next_nonce()?;
/// assert_eq!(nonce, *b"srv1\0\0\0\0\0\0\0\0");
/// let sealed = gcm.encrypt(&nonce, b"", b"first message", 16)?;
/// assert_eq!(nonces.next_counter(), Some(1));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct CounterNonces {
    fixed: [u8; 4],
    /// The counter of the next nonce; `None` once the last was issued.
    next: Option<u64>,
}

impl CounterNonces {
    /// The sequence for `fixed`, from counter 0. Every sender that shares
    /// a key needs its own fixed field.
    pub fn new(fixed: [u8; 4]) -> CounterNonces {
        CounterNonces::starting_at(fixed, 0)
    }

    /// The sequence for `fixed`, resumed at counter `next` (persisted
    /// before a restart; it must be above every counter already used).
    pub fn starting_at(fixed: [u8; 4], next: u64) -> CounterNonces {
        CounterNonces {
            fixed,
            next: Some(next),
        }
    }

    /// The next nonce, or [`Error::NonceSequenceExhausted`] once the
    /// counter's 2^64 values are used up (the key must then be replaced).
    pub fn next_nonce(&mut self) -> Result<[u8; NONCE_LEN], Error> {
        let counter = self.next.ok_or(Error::NonceSequenceExhausted)?;
        self.next = counter.checked_add(1);
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..4].copy_from_slice(&self.fixed);
        nonce[4..].copy_from_slice(&counter.to_be_bytes());
        Ok(nonce)
    }

    /// The counter the next nonce will carry (persist it to resume);
    /// `None` once the sequence is exhausted.
    pub fn next_counter(&self) -> Option<u64> {
        self.next
    }
}
