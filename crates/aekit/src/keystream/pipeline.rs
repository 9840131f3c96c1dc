//! Double buffers of precomputed keystream, each opening with a history of
//! the counters just overwritten.
//!
//! ```text
//!            history (H)        fresh (N)
//!          ┌───────────┬─────────────────────────┐
//! current  │ f−H .. f  │ f .. f+N                │  ← packets read here
//!          └───────────┴─────────────────────────┘
//!          ┌───────────┬─────────────────────────┐
//! next     │ (copied   │ f+N .. f+2N             │  ← filled by the producer
//!          │ at swap)  │                         │
//!          └───────────┴─────────────────────────┘
//! ```
//!
//! The packet thread asks for the keystream of a range of linear indices
//! (one packet: its Y_0 block and its payload blocks). If the current
//! buffer holds the range, it gets a slice of it. If the range lies
//! further on and the next buffer is filled, the two swap: the last H
//! blocks of the old current are copied into the head of the new one —
//! the seed's history — and the old buffer goes back to the producer for
//! the range after the new one. A packet that arrives late, or whose range
//! straddles the boundary, is served from that history.
//!
//! Every request the buffers cannot serve returns `None`, and the caller
//! computes the keystream inline: correct, only slower, and counted in
//! [`PipelineStats`] by cause —
//!
//! - `late`: left of the current buffer's history (reordered too far);
//! - `behind`: the next buffer is still with the producer;
//! - `ahead`: beyond every buffer (a jump after loss) — the caller then
//!   calls [`Pipeline::observe`] once the packet is authentic, which
//!   re-aims the buffers there; unauthenticated packets never re-aim
//!   them, so forged sequence numbers cannot send the pipeline off course
//!   (one whose range lies in the next buffer does make that buffer
//!   current, as the genuine packet would, before its ICV is checked:
//!   genuine packets left behind it may then fall back as `late`, slower
//!   and never wrong);
//! - `unplaceable`: longer than the buffer, or not on the expected
//!   counters (a peer's IV that is not its sequence number);
//! - `failed`: the producer reported an error for the buffer that holds
//!   the range (a GPU gone, a starved request). The buffer comes back
//!   empty, is counted in `producer_errors`, the error is kept
//!   ([`Pipeline::last_error`]), and the buffer goes out again for the
//!   next range as usual: a producer that recovers is used again.
//!
//! The buffers' memory comes from the producer
//! ([`KeystreamProducer::allocate`]): heap memory for a CPU, page-locked
//! memory for a GPU, which its copies write into directly.
//!
//! The producer stays at most two buffers ahead. Submissions are aimed at
//! one running position, `aim`; a buffer that comes back for a range the
//! pipeline has already left is sent straight out again at `aim`.

use super::buffer::{Buffer, guarded};
use super::thread::{Driver, FIRST_FILL_WAIT, Schedule};
use super::{CounterSpace, Error, KeystreamProducer};

/// What the pipeline did, packet by packet and block by block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipelineStats {
    /// Counter blocks handed to the producer.
    pub blocks_produced: u64,
    /// Counter blocks handed to packets.
    pub blocks_used: u64,
    /// Packets served from the buffers.
    pub hits: u64,
    /// Of those, packets served (at least partly) from the history.
    pub history_hits: u64,
    /// Inline fallbacks: the range was left of the history.
    pub late: u64,
    /// Inline fallbacks: the producer had not delivered the range yet.
    pub behind: u64,
    /// Inline fallbacks: the range was beyond every buffer.
    pub ahead: u64,
    /// Inline fallbacks: the range could not be placed in the buffers.
    pub unplaceable: u64,
    /// Inline fallbacks: the producer failed on the buffer for the range.
    pub failed: u64,
    /// Buffers the producer failed to fill.
    pub producer_errors: u64,
    /// Times the buffers were moved to an authenticated jump.
    pub reaims: u64,
}

impl PipelineStats {
    /// Packets that computed their keystream inline.
    pub fn fallbacks(&self) -> u64 {
        self.late + self.behind + self.ahead + self.unplaceable + self.failed
    }

    /// The share of produced keystream that no packet used (0 to 1):
    /// padding to the largest packet in RFC 4106 mode, buffers abandoned
    /// at re-aims, and what is still unread at the end.
    pub fn waste(&self) -> f64 {
        if self.blocks_produced == 0 {
            return 0.0;
        }
        1.0 - self.blocks_used.min(self.blocks_produced) as f64 / self.blocks_produced as f64
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &PipelineStats) {
        self.blocks_produced += other.blocks_produced;
        self.blocks_used += other.blocks_used;
        self.hits += other.hits;
        self.history_hits += other.history_hits;
        self.late += other.late;
        self.behind += other.behind;
        self.ahead += other.ahead;
        self.unplaceable += other.unplaceable;
        self.failed += other.failed;
        self.producer_errors += other.producer_errors;
        self.reaims += other.reaims;
    }
}

/// Precomputed keystream for one direction of one security association.
pub struct Pipeline {
    history: usize,
    fresh: usize,
    current: Option<Buffer>,
    next: Option<Buffer>,
    /// Buffers with the producer.
    in_flight: usize,
    /// Where the next submitted buffer's fresh part starts.
    aim: u64,
    /// Buffers ending at or before this index are of no more use.
    floor: u64,
    driver: Driver,
    stats: PipelineStats,
    last_error: Option<Error>,
    producer_name: String,
    /// The producer panicked: it is never used again, every packet inline.
    retired: bool,
}

impl Pipeline {
    /// Starts two buffers of `fresh` blocks (each with room for `history`
    /// older blocks) at linear index `start`. On the `Thread` schedule this
    /// waits for the first buffer, so the first packet finds keystream.
    ///
    /// # Panics
    /// If `fresh` is zero or `history` exceeds `fresh`.
    pub fn new(
        mut producer: Box<dyn KeystreamProducer>,
        space: CounterSpace,
        fresh: usize,
        history: usize,
        schedule: Schedule,
        start: u64,
    ) -> Pipeline {
        assert!(fresh > 0 && history <= fresh, "need 0 < history <= fresh");
        let buffers = [(); 2].map(|()| Buffer::new(&mut *producer, history, fresh));
        let producer_name = guarded(|| Ok(producer.name())).unwrap_or_else(|_| "unknown".into());
        let mut pipeline = Pipeline {
            history,
            fresh,
            current: None,
            next: None,
            in_flight: 0,
            aim: start,
            floor: start,
            driver: Driver::new(producer, space, schedule),
            stats: PipelineStats::default(),
            last_error: None,
            producer_name,
            retired: false,
        };
        if !pipeline.driver.started() {
            // No thread for the producer: retired at once, with the error
            // to say why every packet computes its keystream inline.
            pipeline.stats.producer_errors += 1;
            pipeline.last_error = Some(Error::ProducerThreadRefused);
            pipeline.retired = true;
            return pipeline;
        }
        for buffer in buffers {
            pipeline.submit(buffer);
        }
        if schedule == Schedule::Thread
            && let Some(first) = pipeline.driver.take_waiting(FIRST_FILL_WAIT)
        {
            pipeline.place(first);
        }
        pipeline
    }

    /// The keystream of linear indices `first .. first + count` as bytes,
    /// or `None` if the caller must compute it inline (counted).
    pub fn keystream(&mut self, first: u64, count: usize) -> Option<&[u8]> {
        let end = match first.checked_add(count as u64) {
            Some(end) if count <= self.fresh => end,
            _ => {
                self.stats.unplaceable += 1;
                return None;
            }
        };
        if self.retired {
            self.stats.failed += 1;
            return None;
        }
        loop {
            self.poll();
            if self.retired {
                self.stats.failed += 1;
                return None;
            }
            let Some(current) = &self.current else {
                return self.miss(end);
            };
            if current.holds(first, end) {
                break;
            }
            if current.failed.is_some()
                && first.saturating_add(self.history as u64) >= current.first
                && end <= current.end()
            {
                self.stats.failed += 1;
                return None;
            }
            if first < current.valid_from {
                self.stats.late += 1;
                return None;
            }
            // Further on: only the next buffer (after the swap, with the
            // history copied in) can hold it.
            let next_holds = self.next.as_ref().is_some_and(|next| {
                end <= next.end() && first.saturating_add(self.history as u64) >= next.first
            });
            if !next_holds {
                return self.miss(end);
            }
            self.swap();
        }
        let current = self.current.as_ref().expect("checked above");
        self.stats.hits += 1;
        self.stats.blocks_used += count as u64;
        if first < current.first {
            self.stats.history_hits += 1;
        }
        Some(current.bytes(first, count))
    }

    /// Tells the pipeline that an authentic packet used indices from
    /// `first` on. If that is beyond everything asked of the producer (the
    /// peer jumped ahead), the buffers are re-aimed there.
    ///
    /// Only buffers in hand are re-aimed: those with the producer come
    /// back first, and the next jump re-aims them. Re-aiming while none is
    /// in hand would only chase a consumer that is outrunning the producer.
    pub fn observe(&mut self, first: u64) {
        if first < self.aim || (self.current.is_none() && self.next.is_none()) {
            return;
        }
        self.stats.reaims += 1;
        self.aim = first;
        self.floor = first;
        for buffer in [self.current.take(), self.next.take()]
            .into_iter()
            .flatten()
        {
            self.submit(buffer);
        }
    }

    /// Counts a packet the caller could not even place in the index space.
    pub fn count_unplaceable(&mut self) {
        self.stats.unplaceable += 1;
    }

    /// Runs the producer now for every buffer waiting on the `Manual`
    /// schedule (a no-op on the others).
    pub fn fill_now(&mut self) {
        self.driver.fill_now();
        self.poll();
    }

    /// What the pipeline has done so far.
    pub fn stats(&self) -> PipelineStats {
        self.stats
    }

    /// The producer's most recent error, if a fill has ever failed (the
    /// count is [`PipelineStats::producer_errors`]).
    pub fn last_error(&self) -> Option<Error> {
        self.last_error
    }

    /// The producer's [`name`](KeystreamProducer::name).
    pub fn producer_name(&self) -> &str {
        &self.producer_name
    }

    /// A fallback because no buffer reached `end`: the producer is behind
    /// if a buffer for it is on its way, else the range is ahead of all.
    fn miss(&mut self, end: u64) -> Option<&[u8]> {
        if self.in_flight > 0 && end <= self.aim {
            self.stats.behind += 1;
        } else {
            self.stats.ahead += 1;
        }
        None
    }

    /// Takes every filled buffer back from the producer.
    fn poll(&mut self) {
        while let Some(buffer) = self.driver.try_take() {
            self.place(buffer);
        }
    }

    /// Puts a filled buffer where it belongs: current if there is none,
    /// else next; back out at once if its range is already behind us.
    fn place(&mut self, buffer: Buffer) {
        self.in_flight -= 1;
        if self.retired {
            return; // dropped unread (zeroized): the producer panicked
        }
        if let Some(error) = buffer.failed {
            self.stats.producer_errors += 1;
            self.last_error = Some(error);
        }
        if buffer.panicked() {
            // The producer is done for: drop every buffer (zeroized) and
            // serve nothing more.
            self.retired = true;
            self.current = None;
            self.next = None;
            return;
        }
        if buffer.end() <= self.floor {
            self.submit(buffer);
        } else if self.current.is_none() {
            self.current = Some(buffer);
        } else if self.next.is_none() {
            self.next = Some(buffer);
        } else {
            // Two in hand already (only after a re-aim raced a fill).
            self.submit(buffer);
        }
    }

    /// Next becomes current with the old current's tail as its history;
    /// the old current goes back to the producer.
    fn swap(&mut self) {
        let (Some(old), Some(mut new)) = (self.current.take(), self.next.take()) else {
            unreachable!("swap needs both buffers");
        };
        new.inherit_history(&old);
        self.floor = self.floor.max(new.valid_from);
        self.current = Some(new);
        self.submit(old);
    }

    /// Hands `buffer` to the producer for the fresh range at `aim`.
    fn submit(&mut self, mut buffer: Buffer) {
        let Some(next_aim) = self.aim.checked_add(self.fresh as u64) else {
            // Its range would run past the last index (2^64 − 1): dropped,
            // zeroized; at the very end of the index space the buffers
            // run out and every packet computes its keystream inline.
            return;
        };
        if self.retired {
            return; // dropped, zeroized
        }
        buffer.first = self.aim;
        buffer.valid_from = self.aim;
        buffer.failed = None;
        self.aim = next_aim;
        self.in_flight += 1;
        self.stats.blocks_produced += self.fresh as u64;
        self.driver.submit(buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes::Block;
    use crate::keystream::BlockStorage;

    /// A producer whose "keystream" is the index itself, so every byte
    /// served says where it came from.
    struct Index;

    impl KeystreamProducer for Index {
        fn name(&self) -> String {
            "index".into()
        }
        fn fill(&mut self, _: &CounterSpace, first: u64, out: &mut [Block]) -> Result<(), Error> {
            for (block, i) in out.iter_mut().zip(first..) {
                *block = [0; 16];
                block[8..].copy_from_slice(&i.to_be_bytes());
            }
            Ok(())
        }
    }

    /// The index producer, failing every fill whose range starts in
    /// `fail_from..fail_to`, and counting its allocations.
    struct Flaky {
        fail_from: u64,
        fail_to: u64,
        allocations: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    impl KeystreamProducer for Flaky {
        fn name(&self) -> String {
            "flaky".into()
        }
        fn fill(
            &mut self,
            space: &CounterSpace,
            first: u64,
            out: &mut [Block],
        ) -> Result<(), Error> {
            if (self.fail_from..self.fail_to).contains(&first) {
                return Err(Error::GpuFailed("test", 700));
            }
            Index.fill(space, first, out)
        }
        fn allocate(&mut self, blocks: usize) -> Result<Box<dyn BlockStorage>, Error> {
            self.allocations
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(Box::new(vec![[0xffu8; 16]; blocks]))
        }
    }

    #[test]
    fn failed_fills_fall_back_counted_then_recover() {
        let allocations = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let producer = Flaky {
            fail_from: 200,
            fail_to: 400,
            allocations: allocations.clone(),
        };
        let space = CounterSpace::Continuous { salt: [0; 4] };
        let mut p = Pipeline::new(Box::new(producer), space, 100, 20, Schedule::Immediate, 0);
        assert_eq!(allocations.load(std::sync::atomic::Ordering::Relaxed), 2);
        let mut served = 0;
        for first in (0..1000).step_by(10) {
            match p.keystream(first, 10) {
                Some(bytes) => {
                    check(Some(bytes), first, 10);
                    served += 1;
                }
                None => assert!((200..400).contains(&first), "{first}"),
            }
        }
        let s = p.stats();
        // Buffers 200..300 and 300..400 failed: 20 packets inline.
        assert_eq!((served, s.failed, s.producer_errors), (80, 20, 2));
        assert_eq!(s.fallbacks(), 20);
        assert_eq!(p.last_error(), Some(Error::GpuFailed("test", 700)));
        assert_eq!(p.producer_name(), "flaky");
    }

    fn pipeline(schedule: Schedule) -> Pipeline {
        let space = CounterSpace::Continuous { salt: [0; 4] };
        Pipeline::new(Box::new(Index), space, 100, 20, schedule, 0)
    }

    fn check(bytes: Option<&[u8]>, first: u64, count: usize) {
        let bytes = bytes.expect("served");
        assert_eq!(bytes.len(), 16 * count);
        for (k, block) in bytes.chunks(16).enumerate() {
            assert_eq!(block[8..], (first + k as u64).to_be_bytes());
        }
    }

    #[test]
    fn sequential_history_and_late() {
        let mut p = pipeline(Schedule::Immediate);
        for first in (0..1000).step_by(10) {
            check(p.keystream(first, 10), first, 10);
        }
        // Current buffer is 900..1000 with history 880..900.
        check(p.keystream(885, 10), 885, 10);
        assert!(p.keystream(870, 5).is_none());
        // Straddling a boundary: served after the swap, from the history.
        check(p.keystream(995, 10), 995, 10);
        let s = p.stats();
        assert_eq!(s.late, 1);
        assert_eq!(s.history_hits, 2);
        assert_eq!(s.fallbacks(), 1);
    }

    #[test]
    fn manual_schedule_falls_back_until_filled_then_jump_reaims() {
        let mut p = pipeline(Schedule::Manual);
        assert!(p.keystream(0, 4).is_none());
        assert_eq!(p.stats().behind, 1);
        p.fill_now();
        check(p.keystream(0, 4), 0, 4);
        // A jump far ahead: ahead, then observed, then served once filled.
        assert!(p.keystream(5000, 4).is_none());
        assert_eq!(p.stats().ahead, 1);
        p.observe(5000);
        assert!(p.keystream(5004, 4).is_none());
        p.fill_now();
        check(p.keystream(5004, 4), 5004, 4);
        assert!(p.keystream(10, 200).is_none());
        let s = p.stats();
        assert_eq!((s.behind, s.ahead, s.unplaceable, s.reaims), (2, 1, 1, 1));
    }

    #[test]
    fn indices_at_the_end_of_the_space_fall_back_without_overflow() {
        let producer = super::super::CpuProducer::new(crate::aes::Strategy::Table, &[3; 16]);
        let space = CounterSpace::Continuous { salt: [0; 4] };
        let mut p = Pipeline::new(
            Box::new(producer.unwrap()),
            space,
            100,
            20,
            Schedule::Immediate,
            0,
        );
        for first in [u64::MAX - 2, u64::MAX - 1, u64::MAX] {
            assert!(p.keystream(first, 2).is_none(), "{first:#x}");
        }
        // An authentic packet at the very end (only a user's own counter
        // discipline gets there): a buffer that fits is served; those whose
        // range would pass the last index are dropped unfilled, and those
        // packets fall back.
        p.observe(u64::MAX - 250);
        let mut served = 0;
        for first in (u64::MAX - 250..u64::MAX - 10).step_by(10) {
            served += usize::from(p.keystream(first, 10).is_some());
        }
        assert_eq!(served, 20, "the two buffers that fit");
        assert_eq!(p.stats().fallbacks(), 3 + 4);
    }

    /// Panics on every fill.
    /// Panics on every fill, counting its calls.
    struct Panicking(std::sync::Arc<std::sync::atomic::AtomicUsize>);

    impl KeystreamProducer for Panicking {
        fn name(&self) -> String {
            "panicking".into()
        }
        fn fill(&mut self, _: &CounterSpace, _: u64, _: &mut [Block]) -> Result<(), Error> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            panic!("injected")
        }
    }

    /// A pipeline whose producer thread the system refuses says so: it is
    /// retired with `ProducerThreadRefused`, and every request falls back,
    /// counted as failed.
    #[test]
    fn a_refused_producer_thread_retires_the_pipeline_with_its_error() {
        let space = CounterSpace::Continuous { salt: [0; 4] };
        crate::keystream::thread::REFUSE_SPAWN.set(true);
        let producer =
            crate::keystream::CpuProducer::new(crate::aes::Strategy::Table, &[0; 16]).unwrap();
        let mut p = Pipeline::new(Box::new(producer), space, 100, 20, Schedule::Thread, 0);
        crate::keystream::thread::REFUSE_SPAWN.set(false);
        assert_eq!(p.last_error(), Some(Error::ProducerThreadRefused));
        for first in [0, 50, 500] {
            assert!(p.keystream(first, 4).is_none());
        }
        let s = p.stats();
        assert_eq!((s.producer_errors, s.failed, s.hits), (1, 3, 0), "{s:?}");
    }

    #[test]
    fn a_panicking_producer_is_retired_on_every_schedule() {
        for schedule in [Schedule::Thread, Schedule::Immediate, Schedule::Manual] {
            let space = CounterSpace::Continuous { salt: [0; 4] };
            let calls = std::sync::Arc::default();
            let producer = Panicking(std::sync::Arc::clone(&calls));
            let mut p = Pipeline::new(Box::new(producer), space, 100, 20, schedule, 0);
            p.fill_now();
            // On a thread the failed buffer comes back when it comes back.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while p.last_error().is_none() && std::time::Instant::now() < deadline {
                assert!(p.keystream(0, 4).is_none());
                std::thread::yield_now();
            }
            assert_eq!(
                p.last_error(),
                Some(Error::ProducerPanicked),
                "{schedule:?}"
            );
            assert!(p.keystream(0, 4).is_none());
            let s = p.stats();
            assert_eq!(s.producer_errors, 1, "{schedule:?}");
            assert!(s.failed >= 1, "{schedule:?}: {s:?}");
            // Asked for more, the retired producer is not called again.
            p.fill_now();
            for first in [0, 100, 1000] {
                assert!(p.keystream(first, 4).is_none());
            }
            p.fill_now();
            let called = calls.load(std::sync::atomic::Ordering::Relaxed);
            assert_eq!(called, 1, "{schedule:?}: called once, then never");
        }
    }

    #[test]
    fn thread_schedule_serves_everything_correctly() {
        let mut p = pipeline(Schedule::Thread);
        for first in (0..100_000).step_by(7) {
            if let Some(bytes) = p.keystream(first, 7) {
                check(Some(bytes), first, 7);
            } else {
                p.observe(first);
            }
        }
        assert!(p.stats().hits > 0);
    }
}
