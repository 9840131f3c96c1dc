//! What an attacker does to a valid ciphertext, read from the fuzz input:
//! flip bits, cut it short, append to it, move or drop a stretch of it.
//!
//! The decryption targets seal a message of their own, let the input edit
//! the result, and then know the right answer: the original plaintext if
//! the bytes came out unchanged, an error otherwise. Raw random bytes
//! would almost never reach a valid tag, so this is what carries the
//! fuzzer to the code that runs after one verified.

use crate::input::Input;

/// Most edits one input makes.
const MAX_EDITS: usize = 8;

/// Applies the edits the input describes to `bytes`; returns whether the
/// bytes differ from what they were.
pub fn apply(bytes: &mut Vec<u8>, input: &mut Input<'_>) -> bool {
    let original = bytes.clone();
    for _ in 0..usize::from(input.byte()) % (MAX_EDITS + 1) {
        let op = input.byte();
        let at = position(input.u32(), bytes.len());
        match op % 5 {
            0 => {
                let mask = input.byte();
                if let Some(b) = bytes.get_mut(at) {
                    *b ^= mask;
                }
            }
            1 => bytes.truncate(at),
            2 => {
                let extra = input.bytes(64);
                bytes.extend_from_slice(extra);
            }
            3 => {
                // Copies a stretch over another (a chunk duplicated or
                // swapped in, a block moved).
                let to = position(input.u32(), bytes.len());
                let len = usize::from(input.u16()).min(bytes.len() - at.max(to));
                bytes.copy_within(at..at + len, to);
            }
            _ => {
                let len = usize::from(input.u16()).min(bytes.len() - at);
                bytes.drain(at..at + len);
            }
        }
    }
    *bytes != original
}

/// A position in `0..=len` from an input word.
fn position(word: u32, len: usize) -> usize {
    word as usize % (len + 1)
}
