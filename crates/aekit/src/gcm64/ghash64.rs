//! The contract of a GHASH64 strategy (`bitserial.rs`, `ctmul.rs`): one
//! hash key H and the product X · H in the field of Appendix A. The
//! strategies implement it; the mode (`mod.rs`) chooses one and calls it.

/// GHASH64 for one hash key H: the product X · H in GF(2^64).
///
/// Elements are `u64`s read big-endian from their 8 bytes (bit X_0, the
/// coefficient of α^0, is the most significant bit; see
/// [`bitserial`](super::bitserial)).
pub trait Ghash64Key: Sized + Send + Sync {
    /// The strategy's token.
    const NAME: &'static str;
    /// Whether no branch and no memory index depends on H or the data.
    const CONSTANT_TIME: bool;
    /// Key-dependent bytes held.
    const STORAGE_BYTES: usize;
    /// Precomputes whatever the strategy needs from H = E(K, 0^64).
    fn new(h: u64) -> Self;
    /// X · H.
    fn mul_h(&self, x: u64) -> u64;
}
