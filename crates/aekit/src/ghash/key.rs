//! The contract every GHASH strategy implements, [`GhashKey`]: built from
//! H once, then Y ← (Y ⊕ X_i) · H over whole blocks. The strategies and
//! the registry in `mod.rs` build on this file; it builds on nothing in
//! `ghash`.

use crate::aes::Block;

/// GHASH for one hash key H, in one strategy's layout.
///
/// `new` returns `None` when this CPU lacks the instructions the strategy
/// needs.
pub trait GhashKey: Sized + Send + Sync {
    /// The strategy's token (`bitserial`, `table4`, `clmul`, …).
    const NAME: &'static str;
    /// Whether no branch and no memory index depends on H or the data.
    const CONSTANT_TIME: bool;
    /// Key-dependent bytes held (the tables built from H); key-independent
    /// tables such as Shoup's R are not counted.
    const STORAGE_BYTES: usize;

    /// Whether this CPU can run the strategy.
    fn is_available() -> bool {
        true
    }

    /// Precomputes whatever the strategy needs from H (the block E(K, 0^128)).
    fn new(h: &Block) -> Option<Self>;

    /// For each 16-byte block X_i of `blocks`, in order: Y ← (Y ⊕ X_i) · H.
    /// `blocks.len()` is a multiple of 16; `y` is in the spec's byte order.
    fn update_blocks(&self, y: &mut Block, blocks: &[u8]);

    /// [`update_blocks`](Self::update_blocks) over `bytes` of any length,
    /// the last partial block zero-padded (the 0^v of the spec's GHASH
    /// definition). The default copies that block into a zeroed buffer;
    /// strategies that can read it padded where it lies override this
    /// (a 16-byte load of a block just built by narrower stores waits
    /// for them: the CPU does not forward several stores to one load).
    fn update_padded(&self, y: &mut Block, bytes: &[u8]) {
        let full = bytes.len() / 16 * 16;
        self.update_blocks(y, &bytes[..full]);
        if full < bytes.len() {
            let mut last = [0u8; 16];
            last[..bytes.len() - full].copy_from_slice(&bytes[full..]);
            self.update_blocks(y, &last);
        }
    }
}
