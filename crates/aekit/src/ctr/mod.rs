//! Counter mode as GCM uses it (spec §2.3): the counter block's last four
//! bytes are a big-endian integer incremented modulo 2^32 (incr32); the
//! first twelve never change.
//!
//! [`apply_keystream`] is plain counter mode over any AES strategy, the
//! default of [`BlockCipher::ctr32`](crate::aes::BlockCipher::ctr32), and
//! lives with that trait (`aes/block.rs`); [`face`] is FACE, which caches
//! the counter-invariant part of the first rounds.

pub mod face;

pub use crate::aes::block::{apply_keystream, incr32};
