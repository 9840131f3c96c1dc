//! aekit's `no_std`, allocation-free AES-GCM core, for Cortex-M
//! (`thumbv7em-none-eabihf`, `thumbv7m-none-eabi`) and every host.
//!
//! The system of the seed `aes-gcm-cortex-m4-fixslicing-face`:
//! constant-time AES by fixslicing on 32-bit words, two blocks per call
//! (Adomnicai & Peyrin, TCHES 2021(1)); FACE counter-mode caching rd0,
//! rd1, rd1+, rd2, rd2+ on it (Park & Lee, TCHES 2018(3)); GHASH by
//! Shoup's 256-byte 4-bit table (not constant-time, labelled so) or by a
//! constant-time 32-bit Karatsuba in the manner of BearSSL's
//! `ghash_ctmul32`; and the GCM mode with any IV length of at least one
//! byte, the spec's tag rules, in-place calls with the tag apart, a
//! constant-time tag check that wipes the buffer on failure, and
//! RustCrypto's `aead` traits on fixed buffers.
//!
//! | module | what |
//! |--------|------|
//! | [`aes`] | `fixslice`: the key schedule and the cipher, two blocks per state |
//! | [`ctr`] | incr32 counter mode: [`ctr::Plain`] and FACE's engines |
//! | [`ghash`] | `field` (bit order), `shoup4`, `karatsuba` |
//! | [`gcm`] | [`AesGcm`], [`TagRules`], the `aead` traits |
//!
//! ```
//! use aekit_core::{AesGcm, ctr::face::Rd1Plus, ghash::Karatsuba};
//! let gcm = AesGcm::<Karatsuba, Rd1Plus>::new(&[0u8; 16])?;
//! let mut buf = *b"attack at dawn";
//! let tag = gcm.encrypt_in_place_detached(&[0u8; 12], b"header", &mut buf, 16)?;
//! gcm.decrypt_in_place_detached(&[0u8; 12], b"header", &mut buf, tag.as_bytes())?;
//! assert_eq!(&buf, b"attack at dawn");
//! # Ok::<(), aekit_core::Error>(())
//! ```
//!
//! Strategies are type parameters ([`AesGcm<G, C>`](AesGcm)) so that a
//! firmware links only the pair it uses. Nothing allocates; nothing needs
//! `std`; the only `unsafe` is the ARMv7-M assembly of the AES round
//! (`aes/fixslice/armv7m.rs`), built on those targets alone.

#![no_std]
#![cfg_attr(not(aekit_armv7m), forbid(unsafe_code))]
#![cfg_attr(aekit_armv7m, deny(unsafe_code))]

pub mod aes;
pub mod ctr;
mod error;
pub mod gcm;
pub mod ghash;

pub use error::Error;
pub use gcm::rustcrypto::{AeadAesGcm, Aes128Gcm, Aes256Gcm, AesKeySize};
pub use gcm::{AesGcm, Tag, TagRules};
