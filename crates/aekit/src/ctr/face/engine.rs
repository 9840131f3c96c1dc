//! The contract between FACE's driver (`face.rs`) and its engines
//! (`table.rs`, `fixslice.rs`): the caches of one variant on one AES
//! strategy, built per message, reset when bytes 12..14 of the counter
//! change, and asked for the keystream of one group of counters.

use zeroize::Zeroize;

use crate::aes::{Block, BlockCipher};

/// The caches of one FACE variant on one AES strategy.
pub(crate) trait Engine: Zeroize {
    /// The cipher whose rounds the engine enters.
    type Aes: BlockCipher;
    /// Blocks made per [`Engine::keystream`]; a group's first low byte is
    /// a multiple of it.
    const GROUP: usize;

    /// Builds what depends on the key and bytes 0..11 of `counter` (the
    /// tables of `rd1+` and `rd2+`).
    fn new(aes: &Self::Aes, counter: &Block) -> Self;

    /// Rebuilds what depends on bytes 12..14 of `counter` (byte 15 is
    /// ignored).
    fn reset(&mut self, aes: &Self::Aes, counter: &Block);

    /// Makes, if not yet made, what the keystream of the `blocks`
    /// counters with low bytes `low`, `low + 1`, … (wrapping at 256)
    /// reads besides the reset's caches: the table entries of `rd1+` and
    /// `rd2+`. Called before their keystream is asked for; nothing by
    /// default.
    fn prepare(&mut self, _aes: &Self::Aes, _low: u8, _blocks: usize) {}

    /// The keystream of the `out.len() ≤ GROUP` counters whose bytes 12..14
    /// are those of the last reset and whose low bytes are `low`, `low +
    /// 1`, …; `low` is a multiple of `GROUP`.
    fn keystream(&mut self, aes: &Self::Aes, low: u8, out: &mut [Block]);
}
