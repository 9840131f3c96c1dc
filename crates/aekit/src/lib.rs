//! aekit: fast, verifiable authenticated encryption.
//!
//! AES-GCM exactly as specified (McGrew & Viega, *The Galois/Counter Mode of
//! Operation*), computed by any pair of an AES strategy ([`aes::Strategy`])
//! and a GHASH strategy ([`ghash::Strategy`]): every classic multiplication
//! method side by side, all checked against one another.
//!
//! ```
//! # fn main() -> Result<(), aekit::Error> {
//! let key = [0x42u8; 32];
//! // The fastest constant-time implementation here, bound to 16-byte tags.
//! let gcm = aekit::AesGcm::new(&key)?.with_tag_length(16)?;
//! let mut buf = *b"attack at dawn";
//! let tag = gcm.encrypt_in_place_detached(b"unique nonce", b"header", &mut buf, 16)?;
//! gcm.decrypt_in_place_detached(b"unique nonce", b"header", &mut buf, tag.as_ref())?;
//! assert_eq!(&buf, b"attack at dawn");
//! # Ok(()) }
//! ```
//!
//! The encryption API is the crate root ([`AesGcm`], [`Error`]) and the
//! modules [`gcm`], [`aether`], [`chunked`], [`esp`] and [`keystream`].
//! The building blocks, for people who measure them, are under
//! [`strategies`].
#![deny(unsafe_code)]

#[doc(hidden)]
pub mod aes;
pub mod aether;
pub mod chunked;
#[doc(hidden)]
pub mod ctr;
mod error;
pub mod esp;
pub mod gcm;
pub mod gcm64;
#[doc(hidden)]
pub mod ghash;
pub mod keystream;
pub mod secret;

/// The building blocks of AES-GCM, each implementation strategy on its
/// own, for people who measure what each costs: the AES block cipher
/// ([`aes::Strategy`]: table, fixslice, AES-NI, VAES), GHASH
/// ([`ghash::Strategy`]: bit-serial, Shoup's tables, Karatsuba,
/// carry-less multiply) and counter mode with FACE caching
/// ([`ctr::face`]). Any pair of an AES and a GHASH strategy runs AES-GCM
/// through [`AesGcm::with`] (and [`AesGcm::with_face`]); every pair gives
/// the same bytes. For encrypting, [`AesGcm::new`] picks the fastest
/// constant-time implementation this CPU runs.
///
/// They are also reachable at the crate root (`aekit::aes`, ...), as in
/// the previous release.
pub mod strategies {
    #[doc(inline)]
    pub use crate::aes;
    #[doc(inline)]
    pub use crate::ctr;
    #[doc(inline)]
    pub use crate::ghash;
}

/// Prints `SKIP <why>` from a unit test where a reader sees it: straight
/// to stderr, which the test harness does not capture (it captures
/// `eprintln!`, and shows it only for a test that failed).
#[cfg(test)]
pub(crate) fn skip(why: core::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP {why}");
}

pub use error::Error;
pub use gcm::{AadPrefix, Aes128Gcm, Aes256Gcm, AesGcm, Decryptor, Encryptor, Gmac, IvPrefix, Tag};

// The examples of the README and of the docs pages are compiled and run
// as doc-tests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
struct ReadmeDoctests;

#[doc = include_str!("../../../docs/RUST.md")]
#[cfg(doctest)]
struct RustGuideDoctests;

#[doc = include_str!("../../../docs/ESP.md")]
#[cfg(doctest)]
struct EspDoctests;

#[doc = include_str!("../../../docs/GPU.md")]
#[cfg(doctest)]
struct GpuDoctests;

#[doc = include_str!("../../../docs/AETHER-USAGE.md")]
#[cfg(doctest)]
struct AetherUsageDoctests;
