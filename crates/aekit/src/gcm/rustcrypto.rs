//! RustCrypto's `aead` traits, so aekit drops into code written for the
//! `aes-gcm` crate: `Aes128Gcm` / `Aes256Gcm` with 12-byte nonces and
//! 16-byte tags appended after the ciphertext.

use aead::array::Array;
use aead::consts::{U12, U16, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, TagPosition};

use super::AesGcm;

/// AES-128-GCM behind RustCrypto's `aead` traits, in the fastest
/// constant-time strategies this CPU runs.
pub struct Aes128Gcm(AesGcm);

/// AES-256-GCM behind RustCrypto's `aead` traits, in the fastest
/// constant-time strategies this CPU runs.
pub struct Aes256Gcm(AesGcm);

impl KeySizeUser for Aes128Gcm {
    type KeySize = U16;
}

impl KeySizeUser for Aes256Gcm {
    type KeySize = U32;
}

impl KeyInit for Aes128Gcm {
    fn new(key: &Key<Self>) -> Self {
        Aes128Gcm(with_best(key))
    }
}

impl KeyInit for Aes256Gcm {
    fn new(key: &Key<Self>) -> Self {
        Aes256Gcm(with_best(key))
    }
}

/// The key length is fixed by the type and `best()` only returns available
/// strategies, so construction cannot fail.
fn with_best(key: &[u8]) -> AesGcm {
    AesGcm::new(key).expect("a 16- or 32-byte key in available strategies")
}

impl AeadCore for Aes128Gcm {
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadCore for Aes256Gcm {
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadInOut for Aes128Gcm {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        seal(&self.0, nonce, associated_data, buffer)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        open(&self.0, nonce, associated_data, buffer, tag)
    }
}

impl AeadInOut for Aes256Gcm {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        seal(&self.0, nonce, associated_data, buffer)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        open(&self.0, nonce, associated_data, buffer, tag)
    }
}

fn seal(
    gcm: &AesGcm,
    nonce: &[u8],
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
) -> aead::Result<Array<u8, U16>> {
    let out = buffer.into_out_with_copied_in();
    let tag = gcm
        .encrypt_in_place_detached(nonce, aad, out, 16)
        .map_err(|_| aead::Error)?;
    let mut array = Array::default();
    array.copy_from_slice(tag.as_bytes());
    Ok(array)
}

fn open(
    gcm: &AesGcm,
    nonce: &[u8],
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
    tag: &[u8],
) -> aead::Result<()> {
    let out = buffer.into_out_with_copied_in();
    gcm.decrypt_in_place_detached(nonce, aad, out, tag)
        .map_err(|_| aead::Error)
}
