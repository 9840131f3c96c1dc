//! AES-GCM and GMAC over any (AES strategy, GHASH strategy) pair, or over a
//! fused kernel that computes both in one pass ([`Fused`]).
//!
//! The implementation is chosen once, when the key is set up, and held as
//! enums; each call matches on them before its work (in `AesGcm::run`;
//! a one-message call with a 12-byte IV in `AesGcm::short`, then
//! `AesGcm::whole`) and then runs code monomorphized for the choice, so
//! no inner loop ever branches on the strategy.
//!
//! The files, read top to bottom, each building on those above it (the
//! on-line form's `Encryptor` and `Decryptor` also name the key and its
//! tag, from `aes_gcm.rs`):
//!
//! - `kernel.rs`: the kernel contract, the `Kernel` trait and every type
//!   it names;
//! - `state.rs`, `stream.rs` and `parallel.rs`: the mode, written once
//!   (spec §2.3), its on-line form, and one message split across the
//!   threads of a [`Pool`];
//! - `class.rs`: which implementation a key runs on ([`Fused`],
//!   [`Class`]);
//! - the API: `aes_gcm.rs` ([`AesGcm`], its checks and one-shot calls,
//!   [`Gmac`]), then one file per kind of call (`out_of_place`, `batch`,
//!   `precomputed`, `iv_prefix`, `incremental`, `nonce`, `rustcrypto`),
//!   and the previous release's names in `deprecated.rs`;
//! - `kernels/`: one file per fused kernel, named by its token, and what
//!   they share in `kernels/mod.rs`.
//!
//! This file only declares them and re-exports what is public.

mod aes_gcm;
mod batch;
mod class;
mod deprecated;
mod incremental;
mod iv_prefix;
mod kernel;
#[allow(unsafe_code)]
// AES-NI, VAES, PCLMULQDQ, VPCLMULQDQ, AArch64 AES and PMULL intrinsics; every block carries a SAFETY line.
mod kernels;
mod nonce;
#[allow(unsafe_code)]
// output buffers that are not yet initialized; each block carries a SAFETY line.
mod out_of_place;
mod parallel;
mod precomputed;
mod rustcrypto;
mod state;
mod stream;

pub use aes_gcm::{AesGcm, Gmac, Tag, TagRules};
pub use class::{Class, Fused};
pub use incremental::IncrementalGmac;
pub use iv_prefix::IvPrefix;
pub use kernel::{BatchMessage, OUT_OF_PLACE_PASS};
pub use nonce::{CounterNonces, NONCE_LEN, RANDOM_NONCE_LIMIT, RandomNonceSealer};
pub use parallel::{DEFAULT_THRESHOLD, Pool};
pub use rustcrypto::{AeadAesGcm, Aes128Gcm, Aes256Gcm, AesKeySize};
pub use state::{MAX_AAD_LEN, MAX_MESSAGE_LEN, TAG_LENGTHS};
pub use stream::{AadPrefix, Decryptor, Encryptor};
