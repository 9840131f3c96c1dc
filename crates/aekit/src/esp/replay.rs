//! The anti-replay window of RFC 4303 §3.4.3, kept as in RFC 6479.
//!
//! The receiver remembers the highest authenticated sequence number, `top`,
//! and which of the `size` numbers ending at `top` it has seen. A packet is
//! a *duplicate* if its bit is set, *stale* if it lies left of the window
//! (`top − seq ≥ size`), and new otherwise. The check runs before the ICV
//! is verified (it is cheap and stops replays early); the window moves only
//! after the ICV verified, so forged packets change nothing.
//!
//! RFC 6479's layout: the bits live in a ring of 64-bit words, a power of
//! two of them, at least one word more than the window needs (twice the
//! window for a window of a power of two of words). Sliding the window
//! forward clears only the words it moves into — at most the whole ring,
//! however far the jump — instead of shifting the bitmap bit by bit as
//! RFC 4303 Appendix A's description does. The spare word is what lets the
//! window slide by whole words while always covering `size` numbers.
//!
//! With extended sequence numbers (RFC 4303 §2.2.1) only the low 32 bits
//! travel; [`ReplayWindow::infer_esn`] rebuilds the high 32 as Appendix A2.2
//! says, from where the window stands. Appendix A3's re-synchronisation
//! after many consecutive failures is not implemented: a receiver that
//! loses 2^32 packets in a row needs a new SA.

/// Why the window refused a sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Seen (and authenticated) before.
    Duplicate,
    /// Left of the window: too old to tell.
    Stale,
}

/// An anti-replay window of a configurable size.
#[derive(Clone, Debug)]
pub struct ReplayWindow {
    size: u64,
    top: u64,
    words: Vec<u64>,
}

/// Smallest and largest window sizes accepted (RFC 4303 §3.4.3 asks for at
/// least 32; the upper bound keeps the ring at 256 KiB at most).
pub const WINDOW_SIZES: core::ops::RangeInclusive<usize> = 32..=1 << 20;

impl ReplayWindow {
    /// A window of `size` sequence numbers, nothing received yet. Sequence
    /// number 0 is never valid (the first packet is 1, RFC 4303 §3.3.3),
    /// so it starts out marked as seen.
    ///
    /// # Panics
    /// If `size` is outside [`WINDOW_SIZES`]; the SA checks it first.
    pub fn new(size: usize) -> ReplayWindow {
        assert!(WINDOW_SIZES.contains(&size), "window size {size}");
        let words = (size.div_ceil(64) + 1).next_power_of_two();
        let mut window = ReplayWindow {
            size: size as u64,
            top: 0,
            words: vec![0; words],
        };
        window.words[0] = 1;
        window
    }

    /// The highest sequence number accepted so far.
    pub fn top(&self) -> u64 {
        self.top
    }

    /// Whether `seq` may be delivered; changes nothing.
    pub fn check(&self, seq: u64) -> Result<(), Refusal> {
        if seq > self.top {
            Ok(())
        } else if self.top - seq >= self.size {
            Err(Refusal::Stale)
        } else if self.words[self.word(seq)] & bit(seq) != 0 {
            Err(Refusal::Duplicate)
        } else {
            Ok(())
        }
    }

    /// Records an authenticated `seq`, if [`check`](Self::check) lets it
    /// in; otherwise returns check's refusal and changes nothing. A number
    /// left of the window is refused, never marked: its bit in the ring
    /// stands for a number inside the window.
    #[inline(always)]
    pub fn accept(&mut self, seq: u64) -> Result<(), Refusal> {
        self.check(seq)?;
        if seq > self.top {
            let from = self.top >> 6;
            let to = seq >> 6;
            let clear = (to - from).min(self.words.len() as u64);
            for k in 1..=clear {
                let word = self.word((from + k) << 6);
                self.words[word] = 0;
            }
            self.top = seq;
        }
        let word = self.word(seq);
        self.words[word] |= bit(seq);
        Ok(())
    }

    /// The full 64-bit sequence number whose low half is `low`, inferred as
    /// in RFC 4303 Appendix A2.2; `None` if it would fall outside 0..2^64
    /// (a packet from before the SA began or after its end).
    pub fn infer_esn(&self, low: u32) -> Option<u64> {
        let w = self.size as u32;
        let top_low = self.top as u32;
        let top_high = (self.top >> 32) as u32;
        let high = if top_low >= w - 1 {
            // Case A: the window lies within one subspace of 2^32.
            if low >= top_low - (w - 1) {
                Some(top_high)
            } else {
                top_high.checked_add(1)
            }
        } else {
            // Case B: the window spans two subspaces.
            if low >= top_low.wrapping_sub(w - 1) {
                top_high.checked_sub(1)
            } else {
                Some(top_high)
            }
        }?;
        Some(u64::from(high) << 32 | u64::from(low))
    }

    fn word(&self, seq: u64) -> usize {
        ((seq >> 6) as usize) & (self.words.len() - 1)
    }
}

fn bit(seq: u64) -> u64 {
    1 << (seq & 63)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window against a plain set of everything accepted.
    #[test]
    fn matches_a_set_model() {
        for size in [32, 64, 100, 1024] {
            let mut window = ReplayWindow::new(size);
            let mut seen = std::collections::BTreeSet::from([0u64]);
            let mut top = 0u64;
            let mut x = 12345u64;
            for _ in 0..20_000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = x >> 33;
                // Mostly forward, sometimes back, sometimes a leap.
                let seq = match r % 10 {
                    0..=5 => top + 1 + r % 3,
                    6..=8 => top.saturating_sub(r % (2 * size as u64)),
                    _ => top + r % 5000,
                };
                let want = if top >= seq && top - seq >= size as u64 {
                    Err(Refusal::Stale)
                } else if seen.contains(&seq) {
                    Err(Refusal::Duplicate)
                } else {
                    Ok(())
                };
                assert_eq!(window.check(seq), want, "size {size} seq {seq} top {top}");
                // Accepting refuses what checking refuses, and then
                // changes nothing.
                assert_eq!(window.accept(seq), want, "size {size} seq {seq} top {top}");
                if want.is_ok() {
                    seen.insert(seq);
                    top = top.max(seq);
                }
            }
        }
    }

    /// A number left of the window shares its ring bit with one inside
    /// it (1024 numbers, a ring of 2048): accepting it is refused and
    /// marks nothing.
    #[test]
    fn a_stale_number_is_refused_not_marked() {
        let mut window = ReplayWindow::new(1024);
        window.accept(100).unwrap();
        window.accept(2200).unwrap();
        assert_eq!(window.accept(100), Err(Refusal::Stale));
        assert_eq!(window.check(2148), Ok(()));
        assert_eq!(window.accept(2200), Err(Refusal::Duplicate));
        assert_eq!(window.top(), 2200);
        window.accept(2148).unwrap();
        assert_eq!(window.check(2148), Err(Refusal::Duplicate));
        assert_eq!(window.check(100), Err(Refusal::Stale));
    }

    #[test]
    fn esn_inference_rfc4303_a2() {
        let mut window = ReplayWindow::new(64);
        window.accept(100).unwrap();
        assert_eq!(window.infer_esn(101), Some(101));
        assert_eq!(window.infer_esn(40), Some(40));
        // Far below the window: taken as the next subspace.
        assert_eq!(window.infer_esn(10), Some(1 << 32 | 10));
        // Window straddling 2^32 (case B).
        window.accept((1 << 32) + 5).unwrap();
        assert_eq!(window.infer_esn(6), Some((1 << 32) + 6));
        assert_eq!(
            window.infer_esn(u32::MAX - 3),
            Some(u64::from(u32::MAX) - 3)
        );
        // Before the SA began: no valid number.
        let fresh = ReplayWindow::new(64);
        assert_eq!(fresh.infer_esn(u32::MAX), None);
    }
}
