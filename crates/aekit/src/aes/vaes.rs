//! PLACEHOLDER — not implemented yet: reports itself unavailable so the
//! registry skips it. Replace with the real strategy.

use crate::aes::{Block, BlockCipher, KeySchedule};

/// Placeholder for the `vaes` strategy.
pub struct Vaes {
    _private: (),
}

impl BlockCipher for Vaes {
    const NAME: &'static str = "vaes";
    const CONSTANT_TIME: bool = true;
    const STORAGE_BYTES: usize = 0;

    fn is_available() -> bool {
        false
    }

    fn new(_: &KeySchedule) -> Option<Self> {
        None
    }

    fn encrypt_blocks(&self, _: &mut [Block]) {
        unreachable!("placeholder strategy is never constructed")
    }
}
