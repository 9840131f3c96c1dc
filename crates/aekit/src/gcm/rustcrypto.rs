//! RustCrypto's `aead` traits, so aekit drops into code written for the
//! `aes-gcm` crate: `Aes128Gcm` / `Aes256Gcm` with 12-byte nonces and
//! 16-byte tags appended after the ciphertext.

use core::marker::PhantomData;

use aead::consts::{U12, U16, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};

use super::aes_gcm::AesGcm;
pub use aekit_core::AesKeySize;

/// AES-GCM behind RustCrypto's `aead` traits for a key of `K` bytes
/// ([`AesKeySize`]: 16, 24 or 32), in the fastest constant-time strategies
/// this CPU runs. Use the aliases [`Aes128Gcm`] and [`Aes256Gcm`], or
/// `AeadAesGcm<U24>` for AES-192.
pub struct AeadAesGcm<K> {
    gcm: AesGcm,
    key_size: PhantomData<K>,
}

/// AES-128-GCM with RustCrypto's `aead` traits.
pub type Aes128Gcm = AeadAesGcm<U16>;

/// AES-256-GCM with RustCrypto's `aead` traits.
pub type Aes256Gcm = AeadAesGcm<U32>;

impl<K: AesKeySize> KeySizeUser for AeadAesGcm<K> {
    type KeySize = K;
}

impl<K: AesKeySize> KeyInit for AeadAesGcm<K> {
    /// The key length is fixed by the type ([`AesKeySize`]) and the class
    /// chosen is one this CPU runs.
    ///
    /// # Panics
    ///
    /// Where `AEKIT_KERNEL` names no class: [`AesGcm::new`] refuses that
    /// misconfiguration rather than ignore it, and `KeyInit` has no error
    /// to return.
    fn new(key: &Key<Self>) -> Self {
        let gcm = AesGcm::new(key).unwrap_or_else(|e| panic!("aekit::AeadAesGcm: {e}"));
        AeadAesGcm {
            gcm,
            key_size: PhantomData,
        }
    }
}

impl<K: AesKeySize> AeadCore for AeadAesGcm<K> {
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<K: AesKeySize> AeadInOut for AeadAesGcm<K> {
    /// In place, or out of place in one pass from the input into the
    /// output ([`AesGcm::encrypt_detached_into`]), not a copy first.
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let tag = match Buffers::of(buffer) {
            Buffers::InPlace(buf) => {
                self.gcm
                    .encrypt_in_place_detached(nonce, associated_data, buf, 16)
            }
            Buffers::Into(input, out) => {
                self.gcm
                    .encrypt_detached_into(nonce, associated_data, input, out, 16)
            }
        }
        .map_err(|_| aead::Error)?;
        let mut array = Tag::<Self>::default();
        array.copy_from_slice(tag.as_bytes());
        Ok(array)
    }

    /// As encryption: in place, or one pass from the input into the
    /// output; the output is zeroed if the tag does not verify.
    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        match Buffers::of(buffer) {
            Buffers::InPlace(buf) => {
                self.gcm
                    .decrypt_in_place_detached(nonce, associated_data, buf, tag)
            }
            Buffers::Into(input, out) => {
                self.gcm
                    .decrypt_detached_into(nonce, associated_data, input, out, tag)
            }
        }
        .map_err(|_| aead::Error)
    }
}

/// An `InOutBuf`'s memory: one buffer, or an input and an output.
enum Buffers<'i, 'o> {
    InPlace(&'o mut [u8]),
    Into(&'i [u8], &'o mut [u8]),
}

impl<'i, 'o> Buffers<'i, 'o> {
    #[allow(unsafe_code)] // two slices from `InOutBuf::into_raw`, with their SAFETY line
    fn of(mut buffer: InOutBuf<'i, 'o, u8>) -> Self {
        if core::ptr::eq(buffer.get_in().as_ptr(), buffer.get_out().as_ptr()) {
            return Buffers::InPlace(buffer.into_out());
        }
        let len = buffer.len();
        let (input, out) = buffer.into_raw();
        // SAFETY: an `InOutBuf` is one buffer or two of `len` bytes each
        // that do not overlap (made from a shared and a mutable borrow, or
        // by `InOutBuf::from_raw`, whose caller promises as much), the
        // input readable for 'i and the output writable for 'o; these two
        // are not the same buffer, so they do not overlap.
        unsafe {
            Buffers::Into(
                core::slice::from_raw_parts(input, len),
                core::slice::from_raw_parts_mut(out, len),
            )
        }
    }
}
