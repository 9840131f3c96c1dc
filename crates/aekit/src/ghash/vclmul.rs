//! PLACEHOLDER — not implemented yet: reports itself unavailable so the
//! registry skips it. Replace with the real strategy.

use crate::aes::Block;
use crate::ghash::GhashKey;

/// Placeholder for the `vclmul` strategy.
pub struct Vclmul {
    _private: (),
}

impl GhashKey for Vclmul {
    const NAME: &'static str = "vclmul";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = 0;

    fn is_available() -> bool {
        false
    }

    fn new(_: &Block) -> Option<Self> {
        None
    }

    fn update_blocks(&self, _: &mut Block, _: &[u8]) {
        unreachable!("placeholder strategy is never constructed")
    }
}
