//! One buffer of precomputed keystream, as the pipeline (`pipeline.rs`)
//! and the driver that runs the producer (`thread.rs`) pass it between
//! them, and [`guarded`], the one way either calls into a producer.
//!
//! A buffer is the producer's memory
//! ([`KeystreamProducer::allocate`]) laid out as `history` blocks followed
//! by `fresh` ones; the pipeline sets the range it covers, the driver has
//! the producer fill its fresh part, and the pipeline serves packets from
//! it and, at a swap, copies the tail of the previous buffer into its
//! history.

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::{BlockStorage, CounterSpace, Error, KeystreamProducer};

/// Runs `f` on the producer, turning a panic into
/// [`Error::ProducerPanicked`].
pub(super) fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(Err(Error::ProducerPanicked))
}

/// One buffer: `history` blocks for indices `first − history .. first`
/// followed by the fresh blocks for `first .. first + fresh`. Blocks from
/// `valid_from` on hold keystream; after a failed fill, none does. Zeroized
/// on drop: unused keystream is as sensitive as the plaintext it would have
/// covered.
pub(super) struct Buffer {
    storage: Box<dyn BlockStorage>,
    history: usize,
    /// The index of the first fresh block.
    pub(super) first: u64,
    /// The first index whose block holds keystream.
    pub(super) valid_from: u64,
    /// The producer's error for the last fill, if it failed.
    pub(super) failed: Option<Error>,
}

impl Buffer {
    /// A buffer in the producer's memory, or on the heap if it has none
    /// (or its `allocate` failed or panicked).
    pub(super) fn new(
        producer: &mut dyn KeystreamProducer,
        history: usize,
        fresh: usize,
    ) -> Buffer {
        let blocks = history + fresh;
        let storage = match guarded(|| producer.allocate(blocks)) {
            Ok(storage) if storage.blocks().len() == blocks => storage,
            _ => Box::new(vec![[0u8; 16]; blocks]),
        };
        Buffer {
            storage,
            history,
            first: 0,
            valid_from: 0,
            failed: None,
        }
    }

    /// Runs the producer over the fresh part (called where the driver runs
    /// it); a failure is kept for the pipeline to count.
    /// A panic in the producer counts as a failed fill
    /// ([`Error::ProducerPanicked`]).
    pub(super) fn fill(&mut self, producer: &mut dyn KeystreamProducer, space: &CounterSpace) {
        let (history, first) = (self.history, self.first);
        let fresh = &mut self.storage.blocks_mut()[history..];
        if let Err(e) = guarded(|| producer.fill(space, first, fresh)) {
            self.refuse(e);
        }
    }

    /// Marks the buffer failed with `error`: no block of it is served.
    pub(super) fn refuse(&mut self, error: Error) {
        self.failed = Some(error);
        self.valid_from = self.end();
    }

    /// Whether the fill panicked (the producer must not be used again).
    pub(super) fn panicked(&self) -> bool {
        self.failed == Some(Error::ProducerPanicked)
    }

    fn len(&self) -> usize {
        self.storage.blocks().len()
    }

    /// One past the last fresh index; saturating, though no buffer is
    /// aimed past the index space (the pipeline drops such a buffer
    /// instead of handing it out).
    pub(super) fn end(&self) -> u64 {
        self.first
            .saturating_add((self.len() - self.history) as u64)
    }

    /// The index of the first history block (the buffer's earliest).
    fn history_start(&self) -> u64 {
        self.first.saturating_sub(self.history as u64)
    }

    pub(super) fn holds(&self, first: u64, end: u64) -> bool {
        first >= self.valid_from && end <= self.end()
    }

    /// The blocks for `first .. first + count`, which [`holds`](Self::holds).
    pub(super) fn bytes(&self, first: u64, count: usize) -> &[u8] {
        // Index `self.first` sits at block `history`; `first` is at least
        // `valid_from`, which is at most `history` blocks before it.
        let start = if first >= self.first {
            self.history + (first - self.first) as usize
        } else {
            self.history - (self.first - first) as usize
        };
        self.storage.blocks()[start..start + count].as_flattened()
    }

    /// Copies the last `history` blocks of `old`, the buffer just before
    /// this one, into this one's history, when `old` ends where this one's
    /// fresh part starts and holds keystream all through them (the swap of
    /// the pipeline's module docs).
    pub(super) fn inherit_history(&mut self, old: &Buffer) {
        if self.failed.is_none()
            && old.end() == self.first
            && old.valid_from <= self.history_start()
        {
            let (history, tail) = (self.history, old.len() - self.history);
            self.storage.blocks_mut()[..history].copy_from_slice(&old.storage.blocks()[tail..]);
            self.valid_from = self.history_start();
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        crate::secret::wipe(self.storage.blocks_mut().as_flattened_mut());
    }
}
