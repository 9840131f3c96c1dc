//! The MixColumns each fixsliced round ends with (`MC_j`, `j` the round
//! number plus one, mod 4; none after the last round), as the portable
//! rounds and the ARMv7-M assembly read it. A module of its own so that
//! both take it from below rather than from each other. Public data: it
//! depends on the round number alone.

/// The MixColumns a round ends with: `MC_j`, or none (`Skip`: the last
/// round, and Ark_Sub alone). `repr(u8)`: the ARMv7-M assembly reads it
/// as `j`, 4 for `Skip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mix {
    /// `MC_0`: MixColumns itself.
    Mc0 = 0,
    /// `MC_1`.
    Mc1 = 1,
    /// `MC_2`.
    Mc2 = 2,
    /// `MC_3`.
    Mc3 = 3,
    /// No MixColumns.
    Skip = 4,
}

/// The MixColumns after each round of an `R`-round AES: `MC_{(i+1) mod 4}`
/// after round `i`, none after the last.
const fn mixes<const R: usize>() -> [Mix; R] {
    const CYCLE: [Mix; 4] = [Mix::Mc0, Mix::Mc1, Mix::Mc2, Mix::Mc3];
    let mut out = [Mix::Skip; R];
    let mut i = 0;
    while i + 1 < R {
        out[i] = CYCLE[(i + 1) % 4];
        i += 1;
    }
    out
}

/// What follows the rounds: nothing (the first rounds of a cipher, which
/// FACE runs on their own), or the cipher's end: the last round key XORed
/// in (`Key`), and then `SR²` (`KeySr2`, AES-128 and AES-256: the rounds
/// leave `SR^-Nr` of the state, and `SR^Nr` is `SR²` for them, the
/// identity for AES-192). `repr(u32)`: the ARMv7-M assembly reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Finish {
    /// Nothing: more rounds follow.
    Nothing = 0,
    /// The last round key (AES-192).
    Key = 1,
    /// The last round key, then `SR²` (AES-128, AES-256).
    KeySr2 = 2,
}

/// Where the first round starts: at its AddRoundKey (`Round`), or, the
/// state already through that round's `Ark_Sub` (FACE's `rd1` and `rd1+`
/// make it so), at its MixColumns (`Mix`), the round's key unread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// At the round's AddRoundKey.
    Round,
    /// At the round's MixColumns.
    Mix,
}

pub(super) static MIXES_10: [Mix; 10] = mixes();
pub(super) static MIXES_12: [Mix; 12] = mixes();
pub(super) static MIXES_14: [Mix; 14] = mixes();
