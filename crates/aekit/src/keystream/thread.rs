//! Where a producer runs: on its own thread, or on the caller's, when the
//! caller says so.
//!
//! The pipeline hands whole buffers to a [`Driver`] (`submit`) and takes
//! them back filled (`try_take`), oldest first. Buffers move by value
//! through two channels, so producer and packet thread never share memory
//! and neither needs a lock or `unsafe`; a buffer is allocated once and
//! travels back and forth for the life of the pipeline.
//!
//! The same pipeline runs on three schedules ([`Schedule`]):
//!
//! - `Thread`: a worker thread owns the producer and fills buffers as they
//!   come; the packet thread never waits for it.
//! - `Immediate`: the fill happens inside `submit`, on the caller's thread —
//!   deterministic, as if the producer were infinitely fast.
//! - `Manual`: fills wait in a queue until `fill_now` — deterministic, and
//!   lets tests hold the producer back to exercise the inline fallback.
//!
//! ## Faults
//!
//! A producer is outside code (a GPU driver, the user's own), so the
//! driver assumes it can fail in every way and keeps each failure from
//! reaching a packet:
//!
//! - an error: the buffer comes back marked failed (`Buffer::fill`), and
//!   the packets it would have served compute their keystream inline;
//! - a panic: caught around the producer's call, so it neither unwinds
//!   into the packet thread (`Immediate`, `Manual`) nor silently kills the
//!   worker with a buffer in hand (`Thread`). The buffer comes back failed
//!   with [`Error::ProducerPanicked`](super::Error::ProducerPanicked) and
//!   the producer is never called again: after a panic its state is
//!   unknown, and keystream that looks fine but is not would be silent
//!   corruption;
//! - a stall: the packet thread never waits on the worker for longer than
//!   [`FIRST_FILL_WAIT`] (only when the pipeline starts), and dropping the
//!   pipeline waits at most [`DROP_WAIT`] for the worker before leaving it
//!   to finish on its own, its buffers zeroized when it does.
//!
//! Rejected: a condition variable around a shared pair of buffers (it
//! needs locking on the packet path), and blocking the packet thread until
//! the producer catches up (a slow producer would then set the pace; the
//! packet thread computing the missing keystream itself is never slower
//! than no pipeline at all).

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::buffer::Buffer;
use super::{CounterSpace, Error, KeystreamProducer};

/// Where and when the producer runs; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// On its own thread: the real pipeline.
    Thread,
    /// On the caller's thread, at once, whenever a buffer is handed over:
    /// deterministic, a producer that is never behind.
    Immediate,
    /// On the caller's thread, only when
    /// [`Pipeline::fill_now`](super::Pipeline::fill_now) is called:
    /// deterministic, and a producer that can be held back.
    Manual,
}

/// The longest a new pipeline on the `Thread` schedule waits for its first
/// buffer, so that the first packets find keystream: a CPU fills a buffer
/// in milliseconds, so only a stalled producer reaches it.
pub(super) const FIRST_FILL_WAIT: Duration = Duration::from_millis(500);

/// The longest dropping a pipeline waits for its worker thread to finish
/// the fill in hand; a producer stalled longer is left to finish alone.
pub(super) const DROP_WAIT: Duration = Duration::from_secs(1);

/// Runs a producer on one of the three schedules.
pub(super) enum Driver {
    Thread {
        requests: Option<Sender<Buffer>>,
        filled: Receiver<Buffer>,
        worker: Option<JoinHandle<()>>,
    },
    Here {
        /// `None` once it panicked.
        producer: Option<Box<dyn KeystreamProducer>>,
        space: CounterSpace,
        queued: VecDeque<Buffer>,
        filled: VecDeque<Buffer>,
        immediate: bool,
    },
}

impl Driver {
    pub(super) fn new(
        producer: Box<dyn KeystreamProducer>,
        space: CounterSpace,
        schedule: Schedule,
    ) -> Driver {
        match schedule {
            Schedule::Thread => {
                let (requests, inbox) = mpsc::channel::<Buffer>();
                let (outbox, filled) = mpsc::channel();
                let mut producer = producer;
                let work = move || {
                    // Ends when the pipeline drops its sender, or after
                    // the producer panicked (never called again).
                    for mut buffer in inbox {
                        buffer.fill(&mut *producer, &space);
                        let panicked = buffer.panicked();
                        if outbox.send(buffer).is_err() || panicked {
                            break;
                        }
                    }
                };
                let builder = std::thread::Builder::new().name("aekit-keystream".into());
                #[cfg(test)]
                let worker = if REFUSE_SPAWN.get() {
                    Err(std::io::Error::other("refused by a test"))
                } else {
                    builder.spawn(work)
                };
                #[cfg(not(test))]
                let worker = builder.spawn(work);
                match worker {
                    Ok(worker) => Driver::Thread {
                        requests: Some(requests),
                        filled,
                        worker: Some(worker),
                    },
                    // No thread to be had: no producer, every packet inline
                    // ([`Driver::started`] says so, and the pipeline
                    // retires with an error).
                    Err(_) => Driver::Thread {
                        requests: None,
                        filled,
                        worker: None,
                    },
                }
            }
            Schedule::Immediate | Schedule::Manual => Driver::Here {
                producer: Some(producer),
                space,
                queued: VecDeque::new(),
                filled: VecDeque::new(),
                immediate: schedule == Schedule::Immediate,
            },
        }
    }

    /// Asks for `buffer` to be filled (its range is already set).
    pub(super) fn submit(&mut self, buffer: Buffer) {
        match self {
            Driver::Thread { requests, .. } => {
                // A worker that died (a panicking producer) leaves the
                // pipeline without buffers: every packet then falls back.
                if let Some(requests) = requests {
                    let _ = requests.send(buffer);
                }
            }
            Driver::Here {
                queued, immediate, ..
            } => {
                queued.push_back(buffer);
                if *immediate {
                    self.fill_now();
                }
            }
        }
    }

    /// The oldest filled buffer, if one is ready; never blocks.
    pub(super) fn try_take(&mut self) -> Option<Buffer> {
        match self {
            Driver::Thread { filled, .. } => filled.try_recv().ok(),
            Driver::Here { filled, .. } => filled.pop_front(),
        }
    }

    /// The oldest filled buffer, waiting up to `wait` for the worker if
    /// need be; `None` when nothing came.
    /// Whether the producer can run: false only where the operating system
    /// refused the `Thread` schedule its thread.
    pub(super) fn started(&self) -> bool {
        !matches!(self, Driver::Thread { requests: None, .. })
    }

    pub(super) fn take_waiting(&mut self, wait: Duration) -> Option<Buffer> {
        match self {
            // A timeout and a stopped worker alike: nothing came.
            Driver::Thread { filled, .. } => filled.recv_timeout(wait).ok(),
            Driver::Here { .. } => {
                self.fill_now();
                self.try_take()
            }
        }
    }

    /// Fills every queued buffer now, on this thread (`Immediate` and
    /// `Manual`); nothing to do on a worker thread.
    pub(super) fn fill_now(&mut self) {
        if let Driver::Here {
            producer,
            space,
            queued,
            filled,
            ..
        } = self
        {
            while let Some(mut buffer) = queued.pop_front() {
                match producer {
                    Some(p) => buffer.fill(&mut **p, space),
                    None => buffer.refuse(Error::ProducerPanicked),
                }
                if buffer.panicked() {
                    *producer = None;
                }
                filled.push_back(buffer);
            }
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Driver::Thread {
            requests, worker, ..
        } = self
        {
            requests.take(); // closes the channel: the worker's loop ends
            if let Some(worker) = worker.take() {
                // Joined if it finishes its fill in time; otherwise (a
                // stalled producer) detached: its send fails once this
                // driver is gone, and the buffer is zeroized as it drops.
                let deadline = Instant::now() + DROP_WAIT;
                while !worker.is_finished() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if worker.is_finished() {
                    let _ = worker.join();
                }
            }
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Set by a test on its own thread: the next `Thread` driver made there
    /// is refused its thread, as the operating system may refuse one.
    pub(super) static REFUSE_SPAWN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
