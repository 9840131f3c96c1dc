//! The block cipher: AES by fixslicing on 32-bit words (`fixslice`), the
//! one strategy of the core. Constant-time.

pub mod fixslice;

pub use fixslice::Fixslice;

/// A 16-byte block, in FIPS-197's byte order.
pub type Block = [u8; 16];
