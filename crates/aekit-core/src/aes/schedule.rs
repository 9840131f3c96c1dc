//! The AES key expansion (FIPS-197 §5.2 KeyExpansion) with SubWord left
//! to the caller, who has a constant-time S-box of its own: the core's
//! fixslice passes the bitsliced circuit, aekit's `KeySchedule` the S-box
//! computed arithmetically. The loop is the same for both.

/// Words in the longest schedule: AES-256's 15 round keys of four words.
pub const MAX_WORDS: usize = 60;

/// Fills `w[..4 · (rounds + 1)]` with the schedule's words `w[i]` of the
/// 16-, 24- or 32-byte `key` (`rounds` = 10, 12 or 14), SubWord by
/// `sub_word`; the words past them are left as they are.
/// Constant-time if `sub_word` is: the branches depend on the word index
/// alone.
///
/// # Panics
///
/// For a key of another length (the callers check it first).
#[inline(always)]
pub fn key_expansion(
    key: &[u8],
    w: &mut [[u8; 4]; MAX_WORDS],
    sub_word: impl Fn([u8; 4]) -> [u8; 4],
) {
    assert!(
        matches!(key.len(), 16 | 24 | 32),
        "an AES key is 16, 24 or 32 bytes"
    );
    let nk = key.len() / 4;
    let rounds = nk + 6;
    for (i, word) in key.chunks_exact(4).enumerate() {
        w[i].copy_from_slice(word);
    }
    let mut rcon = 1u8;
    for i in nk..4 * (rounds + 1) {
        let mut t = w[i - 1];
        if i % nk == 0 {
            // RotWord, SubWord, Rcon.
            t = sub_word([t[1], t[2], t[3], t[0]]);
            t[0] ^= rcon;
            rcon = (rcon << 1) ^ (0x1b & (rcon >> 7).wrapping_neg());
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
        }
        for b in 0..4 {
            w[i][b] = w[i - nk][b] ^ t[b];
        }
    }
}
