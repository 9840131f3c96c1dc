//! The block cipher: AES by fixslicing on 32-bit words (`fixslice`), the
//! one strategy of the core, on the S-box circuit of `sbox` (any word
//! width; aekit runs it on 64-bit words). Constant-time.

pub mod fixslice;
pub mod sbox;

pub use fixslice::Fixslice;

/// A 16-byte block, in FIPS-197's byte order.
pub type Block = [u8; 16];
