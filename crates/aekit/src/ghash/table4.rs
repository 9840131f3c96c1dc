//! PLACEHOLDER — not implemented yet: reports itself unavailable so the
//! registry skips it. Replace with the real strategy.

use crate::aes::Block;
use crate::ghash::GhashKey;

/// Placeholder for the `table4` strategy.
pub struct Table4 {
    _private: (),
}

impl GhashKey for Table4 {
    const NAME: &'static str = "table4";
    const CONSTANT_TIME: bool = false;
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
