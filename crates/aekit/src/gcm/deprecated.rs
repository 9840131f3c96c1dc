//! The names of the previous release, kept for one more: each is a thin
//! call into the current API and says which one in its deprecation note
//! (`CHANGELOG.md` lists them all, old → new).

use core::mem::MaybeUninit;

use super::aes_gcm::{AesGcm, Tag};
use super::parallel::Pool;
use crate::Error;

impl AesGcm {
    #[doc(hidden)]
    #[deprecated(
        note = "set the pool once with `AesGcm::with_pool`, then call `encrypt_in_place_detached`"
    )]
    pub fn encrypt_in_place_detached_par(
        &self,
        pool: &Pool,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.seal_in_place(Some(pool), iv, aad, buf, tag_len)
    }

    #[doc(hidden)]
    #[deprecated(
        note = "set the pool once with `AesGcm::with_pool`, then call `decrypt_in_place_detached`"
    )]
    pub fn decrypt_in_place_detached_par(
        &self,
        pool: &Pool,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.open_in_place(Some(pool), iv, aad, buf, tag)
    }

    #[doc(hidden)]
    #[deprecated(
        note = "set the pool once with `AesGcm::with_pool`, then call `encrypt_detached_into`"
    )]
    pub fn encrypt_detached_into_par(
        &self,
        pool: &Pool,
        iv: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.seal_into(Some(pool), iv, aad, plaintext, out, tag_len)
    }

    #[doc(hidden)]
    #[deprecated(
        note = "set the pool once with `AesGcm::with_pool`, then call `decrypt_detached_into`"
    )]
    pub fn decrypt_detached_into_par(
        &self,
        pool: &Pool,
        iv: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.open_into(Some(pool), iv, aad, ciphertext, out, tag)
    }

    #[doc(hidden)]
    #[deprecated(
        note = "set the pool once with `AesGcm::with_pool`, then call `encrypt_detached_into_uninit`"
    )]
    pub fn encrypt_detached_into_uninit_par<'o>(
        &self,
        pool: &Pool,
        iv: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &'o mut [MaybeUninit<u8>],
        tag_len: usize,
    ) -> Result<(&'o mut [u8], Tag), Error> {
        self.seal_into_uninit(Some(pool), iv, aad, plaintext, out, tag_len)
    }

    #[doc(hidden)]
    #[deprecated(
        note = "set the pool once with `AesGcm::with_pool`, then call `decrypt_detached_into_uninit`"
    )]
    pub fn decrypt_detached_into_uninit_par<'o>(
        &self,
        pool: &Pool,
        iv: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        out: &'o mut [MaybeUninit<u8>],
        tag: &[u8],
    ) -> Result<&'o mut [u8], Error> {
        self.open_into_uninit(Some(pool), iv, aad, ciphertext, out, tag)
    }
}
