//! FACE: Fast AES-CTR Encryption — counter mode that reuses the parts of
//! the first rounds that do not change while only the low counter byte
//! moves.
//!
//! J. H. Park and D. H. Lee, *FACE: Fast AES CTR mode Encryption
//! Techniques based on the Reuse of Repetitive Data* (TCHES 2018(3)), and
//! the Cortex-M4 work in the seed (`aes-gcm-cortex-m4-fixslicing-face`)
//! that carries it over to fixsliced AES. Counter blocks differ only in
//! bytes 12..15 and 255 increments out of 256 change byte 15 alone. Byte
//! 15 (row 3, column 3) meets only bytes 0, 5 and 10 in round 1's
//! MixColumns (ShiftRows gathers the diagonal into one column), so for
//! 256 consecutive counters most of rounds 0–2 is the same computation:
//!
//! | variant | caches | memory here | reset |
//! |---------|--------|-------------|-------|
//! | `rd0`   | round 0's AddRoundKey of the packed counter, byte 15 zero | 32 B | bytes 12..14 change |
//! | `rd1`   | rounds 0–1 and round 2's `Ark_Sub`, the varying diagonal cleared | 32 B + the parallel state | bytes 12..14 change |
//! | `rd1+`  | as `rd1`, and round 1's varying diagonal for all 256 low bytes | 1 KiB + 32 B | per message |
//! | `rd2`   | `MC_2` of the `rd1` cache | 32 B + the parallel state | bytes 12..14 change |
//! | `rd2+`  | as `rd2`, and `MC_2` of every group's varying part | 4 KiB + 32 B | per message |
//!
//! The `+` tables depend on bytes 0..11 only, which incr32 never changes:
//! they belong to one message (one [`Mode::apply`] call) and last all of
//! it. Each eight low bytes' entries are made the first time the counter
//! reaches them, so a message pays for the entries it uses once, however
//! often its counter comes round again: no more than `rd1` and `rd2`,
//! which make them again every 256 blocks. The 1 KiB and 4 KiB are the
//! seed's figures exactly: a 32-bit state holds two blocks, so `rd1+`
//! keeps 32 parallel states of 32 bytes and `rd2+` 128 group states.
//!
//! # The driver (this file)
//!
//! `walk` goes along the counter: blocks through the plain cipher until
//! the low byte is a multiple of the engine's group (one block when it is
//! odd, for the core's groups of two); then each group shares bytes 0..14
//! (the group divides 256, so it never straddles a carry). Before each
//! group it compares bytes 12..14 with those the caches were built for
//! and resets them on a change. The engines (`face/fixslice.rs`, generic
//! over the fixsliced cipher: the core's 32-bit one, aekit's 64-bit one)
//! hold the caches of each variant and XOR a group's keystream into the
//! data as they unpack it (`unpack_xor`). aekit's FACE walks with the
//! same driver and engines.
//!
//! # Constant time
//!
//! What selects a table entry, a reset or the plain path is the counter.
//! GCM uses FACE only with 96-bit IVs, whose counter (IV ‖ count) is
//! public; with any other IV the counter is GHASH(IV) under the key, and
//! GCM runs [`crate::ctr::Plain`] instead (`gcm`).
//!
//! # Tried and rejected
//!
//! - *A runtime `Variant` enum as in aekit*: a Cortex-M firmware would
//!   link all five engines; types let it link one.
//! - *The `+` tables made whole before the first block*: 32 parallel
//!   states for `rd1+` whatever the message's length, which made a 1 KiB
//!   message slower than with `rd1` or no FACE at all.
//! - *The entries a message reaches made before its first group, with no
//!   check per group*: slower on the Cortex-M4 model, at every length
//!   (`docs/CORTEX-M.md`).

pub mod fixslice;

use zeroize::Zeroize;

pub use fixslice::{Rd0, Rd1, Rd1Plus, Rd2, Rd2Plus};

use crate::aes::{Block, Fixslice};
use crate::ctr::{Mode, apply_keystream};

/// The caches of one FACE variant on one AES: built per message, reset
/// when bytes 12..14 of the counter change, asked to apply the keystream
/// of one group. aekit implements it for its T-table AES too.
pub trait Engine: Zeroize {
    /// The cipher whose rounds the engine enters.
    type Aes;
    /// The variant's token: `rd0`, `rd1`, `rd1+`, `rd2`, `rd2+`.
    const NAME: &'static str;
    /// Blocks per [`Engine::apply`]; a group's first low byte is a
    /// multiple of it, and it divides 256.
    const GROUP: usize;

    /// Builds what depends on the key and bytes 0..11 of `counter` (the
    /// tables of `rd1+` and `rd2+`, empty until used).
    fn new(aes: &Self::Aes, counter: &Block) -> Self;

    /// Rebuilds what depends on bytes 12..14 of `counter`.
    fn reset(&mut self, aes: &Self::Aes, counter: &Block);

    /// XORs into `chunk` (up to `GROUP` blocks, the last possibly partial)
    /// the keystream of the counters whose bytes 12..14 are those of the
    /// last reset and whose low bytes are `low`, `low + 1`, …; `low` is a
    /// multiple of `GROUP`.
    fn apply(&mut self, aes: &Self::Aes, low: u8, chunk: &mut [u8]);
}

/// FACE counter mode with `engine`'s caches: XORs `data` with the
/// keystream from `counter` and leaves `counter` at the first unused
/// value. `prefix` holds the bytes 12..14 the caches were last reset for
/// (`None`: never), so that a message may be walked in pieces. Blocks
/// before the first multiple of the engine's group go through `plain`
/// (plain counter mode on the same cipher).
#[doc(hidden)] // aekit's FACE driver walks with it.
#[inline(always)]
pub fn walk<E: Engine>(
    engine: &mut E,
    aes: &E::Aes,
    prefix: &mut Option<[u8; 3]>,
    counter: &mut Block,
    data: &mut [u8],
    plain: impl FnOnce(&E::Aes, &mut Block, &mut [u8]),
) {
    // Up to GROUP - 1 blocks through the plain cipher, so that every group
    // starts at a multiple of GROUP and never straddles a carry.
    let misaligned = counter[15] as usize % E::GROUP;
    let head = if misaligned == 0 {
        0
    } else {
        (16 * (E::GROUP - misaligned)).min(data.len())
    };
    let (head, rest) = data.split_at_mut(head);
    plain(aes, counter, head);

    for chunk in rest.chunks_mut(16 * E::GROUP) {
        let now = [counter[12], counter[13], counter[14]];
        if *prefix != Some(now) {
            engine.reset(aes, counter);
            *prefix = Some(now);
        }
        let blocks = chunk.len().div_ceil(16);
        engine.apply(aes, counter[15], chunk);
        let low = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
        counter[12..].copy_from_slice(&low.wrapping_add(blocks as u32).to_be_bytes());
    }
}

/// Every engine on the core's cipher is a counter mode: its caches built
/// from the first counter, used for the message, and wiped.
impl<E: Engine<Aes = Fixslice>> Mode for E {
    const NAME: &'static str = E::NAME;
    fn apply(aes: &Fixslice, counter: &mut Block, data: &mut [u8]) {
        if data.is_empty() {
            return;
        }
        // The engine is a local of its own, not a field beside the
        // driver's state (measured a little faster on the Cortex-M4 model).
        let mut engine = E::new(aes, counter);
        walk(&mut engine, aes, &mut None, counter, data, apply_keystream);
        engine.zeroize();
    }
}
