//! The block cipher: AES by fixslicing on 32-bit words (`fixslice`), the
//! one strategy of the core, on the S-box circuit of `sbox` (any word
//! width: the macro `ark_sub_circuit!`) and the key expansion of
//! `schedule` (any SubWord); aekit runs both too, and FACE's engines
//! through `sliced` on its 64-bit fixslice. Constant-time.

pub mod fixslice;
mod sbox;
pub mod schedule;
#[doc(hidden)] // aekit's 64-bit fixslice implements it, for FACE's engines.
pub mod sliced;

pub use fixslice::Fixslice;

/// A 16-byte block, in FIPS-197's byte order.
pub type Block = [u8; 16];
