//! RustCrypto's `aead` traits, so aekit drops into code written for the
//! `aes-gcm` crate: `Aes128Gcm` / `Aes256Gcm` with 12-byte nonces and
//! 16-byte tags appended after the ciphertext.

use core::marker::PhantomData;

use aead::array::ArraySize;
use aead::consts::{U12, U16, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};

use super::aes_gcm::AesGcm;

/// AES-GCM behind RustCrypto's `aead` traits for a key of `K` bytes, in the
/// fastest constant-time strategies this CPU runs. Use the aliases
/// [`Aes128Gcm`] and [`Aes256Gcm`].
pub struct AeadAesGcm<K> {
    gcm: AesGcm,
    key_size: PhantomData<K>,
}

/// AES-128-GCM with RustCrypto's `aead` traits.
pub type Aes128Gcm = AeadAesGcm<U16>;

/// AES-256-GCM with RustCrypto's `aead` traits.
pub type Aes256Gcm = AeadAesGcm<U32>;

impl<K: ArraySize> KeySizeUser for AeadAesGcm<K> {
    type KeySize = K;
}

impl<K: ArraySize> KeyInit for AeadAesGcm<K> {
    /// The key length is fixed by the type (16 or 32 bytes) and `best()`
    /// only returns available strategies, so construction cannot fail.
    fn new(key: &Key<Self>) -> Self {
        let gcm = AesGcm::new(key).expect("an AES key length in available strategies");
        AeadAesGcm {
            gcm,
            key_size: PhantomData,
        }
    }
}

impl<K: ArraySize> AeadCore for AeadAesGcm<K> {
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<K: ArraySize> AeadInOut for AeadAesGcm<K> {
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
