//! The block cipher: AES by fixslicing on 32-bit words (`fixslice`), the
//! one strategy of the core, on the S-box circuit of `sbox` (any word
//! width: the macro `ark_sub_circuit!`) and the key expansion of
//! `schedule` (any SubWord); aekit runs both too. Constant-time.

pub mod fixslice;
mod sbox;
pub mod schedule;
pub mod sliced;

pub use fixslice::Fixslice;

/// A 16-byte block, in FIPS-197's byte order.
pub type Block = [u8; 16];
