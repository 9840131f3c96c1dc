//! AES-GCM (McGrew & Viega, *The Galois/Counter Mode of Operation*, §2.3)
//! on the core's fixsliced AES, one GHASH strategy `G` and one counter
//! mode `C`, written once: the key type [`AesGcm`], the spec's tag rules
//! ([`TagRules`]), the one-shot in-place calls with the tag apart, and the
//! constant-time check that wipes the buffer on failure.
//!
//! # The mode
//!
//! ```text
//! H   = E(K, 0^128)
//! Y_0 = IV ‖ 0^31 1                           if len(IV) = 96
//!     = GHASH(H, {}, IV)                      otherwise
//! C   = P ⊕ E(K, incr32(Y_0)), E(K, incr32²(Y_0)), …   (counter mode `C`)
//! T   = MSB_t(GHASH(H, A, C) ⊕ E(K, Y_0))
//! ```
//!
//! with GHASH over A and C each zero-padded to whole blocks, then the
//! block len(A)_64 ‖ len(C)_64 (lengths in bits).
//!
//! # Choices are types
//!
//! `G` ([`Shoup4`](crate::ghash::Shoup4), [`Karatsuba`])
//! and `C` ([`Plain`], [`Rd1Plus`](crate::ctr::face::Rd1Plus), …)
//! are type parameters so that a firmware links one GHASH and one counter
//! mode: the defaults are the constant-time Karatsuba and plain counter
//! mode. FACE runs only with a 96-bit IV: any other IV makes Y_0 a
//! function of the key, which FACE's counter-indexed caches must not see;
//! those messages run [`Plain`] whatever `C` is, with
//! the same keystream.
//!
//! # What is wiped
//!
//! The key's round keys and GHASH key are zeroized on drop (their types
//! derive `ZeroizeOnDrop`); E(K, Y_0) and the GHASH value are zeroized
//! before a call returns. A failed decryption zeroizes the whole buffer,
//! so no unauthenticated plaintext leaves the call.

pub mod rustcrypto;

use core::marker::PhantomData;

use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::Error;
use crate::aes::{Block, Fixslice};
use crate::ctr::{Mode, Plain, incr32};
use crate::ghash::{GhashKey, Karatsuba, field};

/// The largest plaintext GCM allows: 2^39 − 256 bits.
pub const MAX_MESSAGE_LEN: u64 = (1 << 36) - 32;
/// The largest associated data (and IV) GCM allows: 2^64 − 1 bits, in
/// whole bytes.
pub const MAX_AAD_LEN: u64 = (1 << 61) - 1;
/// Every tag length the core takes, in bytes: the spec's 64 to 128 bits
/// (§2.1) and SP 800-38D's 32.
pub const TAG_LENGTHS: [usize; 10] = [4, 8, 9, 10, 11, 12, 13, 14, 15, 16];

/// An authentication tag of 4 to 16 bytes.
#[derive(Clone, Copy)]
pub struct Tag {
    bytes: Block,
    len: usize,
}

/// The tag's bytes alone: the rest of the block it was cut from is not
/// the caller's to see.
impl core::fmt::Debug for Tag {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Tag").field(&self.as_bytes()).finish()
    }
}

impl Tag {
    /// The tag's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Which tag lengths a key accepts, by the IV's length, as in aekit.
///
/// | IV        | [`TagRules::Spec`] (default) | [`TagRules::Relaxed`] |
/// |-----------|------------------------------|------------------------|
/// | 12 bytes  | 8–16 bytes                   | 4, 8–16 bytes          |
/// | any other | 16 bytes                     | 4, 8–16 bytes          |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagRules {
    /// The GCM spec's rules (§2.1): 64 to 128 bits, and 128 bits with any
    /// IV that is not 96 bits.
    Spec,
    /// Every length of [`TAG_LENGTHS`] with any IV.
    Relaxed,
}

impl TagRules {
    /// Whether a tag of `tag_len` bytes may go with an IV of `iv_len`
    /// bytes: `Ok`, or the rule it breaks.
    pub fn check(self, tag_len: usize, iv_len: usize) -> Result<(), Error> {
        if !TAG_LENGTHS.contains(&tag_len) {
            Err(Error::InvalidTagLength(tag_len))
        } else if self == TagRules::Relaxed {
            Ok(())
        } else if tag_len < 8 {
            Err(Error::TagShorterThan64Bits(tag_len))
        } else if iv_len != 12 && tag_len != 16 {
            Err(Error::TagMustBe128Bits { iv_len, tag_len })
        } else {
            Ok(())
        }
    }
}

/// AES-GCM with a key of 16, 24 or 32 bytes, GHASH strategy `G` and
/// counter mode `C` (module header). Key material is zeroized on drop.
#[derive(ZeroizeOnDrop)]
pub struct AesGcm<G: GhashKey + Zeroize = Karatsuba, C: Mode = Plain> {
    aes: Fixslice,
    ghash: G,
    #[zeroize(skip)]
    tag_rules: TagRules,
    #[zeroize(skip)]
    mode: PhantomData<C>,
}

impl<G: GhashKey + Zeroize, C: Mode> AesGcm<G, C> {
    /// The key, under the spec's tag rules.
    pub fn new(key: &[u8]) -> Result<Self, Error> {
        let aes = Fixslice::new(key)?;
        let mut h = [[0u8; 16]];
        aes.encrypt_blocks(&mut h);
        let ghash = G::new(&h[0]);
        h.zeroize();
        Ok(AesGcm {
            aes,
            ghash,
            tag_rules: TagRules::Spec,
            mode: PhantomData,
        })
    }

    /// This key with SP 800-38D's tag lengths beside the spec's
    /// ([`TagRules::Relaxed`]): for interoperability and test suites.
    pub fn with_relaxed_tag_rules(mut self) -> Self {
        self.tag_rules = TagRules::Relaxed;
        self
    }

    /// The tag rules this key applies.
    pub fn tag_rules(&self) -> TagRules {
        self.tag_rules
    }

    /// The tokens of the cipher, the GHASH strategy and the counter mode:
    /// `["fixslice", "karatsuba", "rd1+"]`.
    pub fn implementation(&self) -> [&'static str; 3] {
        [Fixslice::NAME, G::NAME, C::NAME]
    }

    /// Encrypts `buf` in place and returns the tag of `tag_len` bytes.
    pub fn encrypt_in_place_detached(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.check(iv, aad, buf, tag_len)?;
        let (mut y0, mut counter) = self.counter(iv);
        self.keystream(iv, &mut counter, buf);
        let mut full = self.tag(&mut y0, aad, buf);
        let tag = Tag {
            bytes: full,
            len: tag_len,
        };
        full.zeroize();
        Ok(tag)
    }

    /// Decrypts `buf` in place if `tag` verifies; otherwise wipes `buf` and
    /// fails with [`Error::AuthenticationFailed`]. The tag is compared in
    /// constant time.
    pub fn decrypt_in_place_detached(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.check(iv, aad, buf, tag.len())?;
        let (mut y0, mut counter) = self.counter(iv);
        let mut full = self.tag(&mut y0, aad, buf);
        let ok = full[..tag.len()].ct_eq(tag);
        full.zeroize();
        self.keystream(iv, &mut counter, buf);
        if bool::from(ok) {
            Ok(())
        } else {
            buf.zeroize();
            Err(Error::AuthenticationFailed)
        }
    }

    /// The checks every call makes before computing anything.
    fn check(&self, iv: &[u8], aad: &[u8], buf: &[u8], tag_len: usize) -> Result<(), Error> {
        if iv.is_empty() {
            return Err(Error::EmptyIv);
        }
        if iv.len() as u64 > MAX_AAD_LEN {
            return Err(Error::IvTooLong);
        }
        self.tag_rules.check(tag_len, iv.len())?;
        if aad.len() as u64 > MAX_AAD_LEN {
            return Err(Error::AadTooLong);
        }
        if buf.len() as u64 > MAX_MESSAGE_LEN {
            return Err(Error::MessageTooLong);
        }
        Ok(())
    }

    /// Y_0 and the first counter block, incr32(Y_0).
    fn counter(&self, iv: &[u8]) -> (Block, Block) {
        let mut y0 = [0u8; 16];
        if iv.len() == 12 {
            y0[..12].copy_from_slice(iv);
            y0[15] = 1;
        } else {
            self.ghash.update_padded(&mut y0, iv);
            let mut lengths = [0u8; 16];
            lengths[8..].copy_from_slice(&(iv.len() as u64 * 8).to_be_bytes());
            self.ghash.update_padded(&mut y0, &lengths);
        }
        let mut counter = y0;
        incr32(&mut counter);
        (y0, counter)
    }

    /// Counter mode `C` for a 96-bit IV, plain otherwise (header).
    fn keystream(&self, iv: &[u8], counter: &mut Block, buf: &mut [u8]) {
        if iv.len() == 12 {
            C::apply(&self.aes, counter, buf);
        } else {
            Plain::apply(&self.aes, counter, buf);
        }
        counter.zeroize();
    }

    /// The full 16-byte tag GHASH(H, A, C) ⊕ E(K, Y_0); wipes `y0`.
    fn tag(&self, y0: &mut Block, aad: &[u8], ciphertext: &[u8]) -> Block {
        let mut s = [0u8; 16];
        self.ghash.update_padded(&mut s, aad);
        self.ghash.update_padded(&mut s, ciphertext);
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
        lengths[8..].copy_from_slice(&(ciphertext.len() as u64 * 8).to_be_bytes());
        self.ghash.update_padded(&mut s, &lengths);
        let mut e = [*y0];
        self.aes.encrypt_blocks(&mut e);
        let tag = field::to_block(field::from_block(&s) ^ field::from_block(&e[0]));
        s.zeroize();
        e.zeroize();
        y0.zeroize();
        tag
    }
}
