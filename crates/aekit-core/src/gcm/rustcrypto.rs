//! RustCrypto's `aead` traits (`KeyInit`, `AeadInOut`) on the core's
//! AES-GCM, for fixed buffers: 12-byte nonces, 16-byte tags, no
//! allocation (the `aead` crate without its `alloc` feature).

use core::marker::PhantomData;

use aead::array::ArraySize;
use aead::consts::{U12, U16, U24, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use zeroize::Zeroize;

use super::AesGcm;
use crate::ctr::{Mode, Plain};
use crate::ghash::{GhashKey, Karatsuba};

/// The key sizes of AES, `U16`, `U24` and `U32` (16, 24 and 32 bytes):
/// the `K` the `aead` wrappers ([`AeadAesGcm`] here and in `aekit`) are
/// implemented for. Sealed: no other type implements it.
pub trait AesKeySize: ArraySize + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::U16 {}
    impl Sealed for super::U24 {}
    impl Sealed for super::U32 {}
}

impl AesKeySize for U16 {}
impl AesKeySize for U24 {}
impl AesKeySize for U32 {}

/// AES-GCM behind RustCrypto's `aead` traits for a key of `K` bytes
/// ([`AesKeySize`]), in GHASH strategy `G` and counter mode `C`.
pub struct AeadAesGcm<K, G: GhashKey + Zeroize = Karatsuba, C: Mode = Plain> {
    gcm: AesGcm<G, C>,
    key_size: PhantomData<K>,
}

/// AES-128-GCM with RustCrypto's `aead` traits (constant-time defaults).
pub type Aes128Gcm = AeadAesGcm<U16>;

/// AES-256-GCM with RustCrypto's `aead` traits (constant-time defaults).
pub type Aes256Gcm = AeadAesGcm<U32>;

impl<K: AesKeySize, G: GhashKey + Zeroize, C: Mode> KeySizeUser for AeadAesGcm<K, G, C> {
    type KeySize = K;
}

impl<K: AesKeySize, G: GhashKey + Zeroize, C: Mode> KeyInit for AeadAesGcm<K, G, C> {
    /// The key length is fixed by the type (16, 24 or 32 bytes,
    /// [`AesKeySize`]), so construction cannot fail.
    fn new(key: &Key<Self>) -> Self {
        let gcm = AesGcm::new(key).expect("an AES key length");
        AeadAesGcm {
            gcm,
            key_size: PhantomData,
        }
    }
}

impl<K: AesKeySize, G: GhashKey + Zeroize, C: Mode> AeadCore for AeadAesGcm<K, G, C> {
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<K: AesKeySize, G: GhashKey + Zeroize, C: Mode> AeadInOut for AeadAesGcm<K, G, C> {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let out = buffer.into_out_with_copied_in();
        let tag = self
            .gcm
            .encrypt_in_place_detached(nonce, associated_data, out, 16)
            .map_err(|_| aead::Error)?;
        let mut array = Tag::<Self>::default();
        array.copy_from_slice(tag.as_bytes());
        Ok(array)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let out = buffer.into_out_with_copied_in();
        self.gcm
            .decrypt_in_place_detached(nonce, associated_data, out, tag)
            .map_err(|_| aead::Error)
    }
}
