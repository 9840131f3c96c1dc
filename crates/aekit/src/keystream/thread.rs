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
//! Rejected: a condition variable around a shared pair of buffers (it
//! needs locking on the packet path), and blocking the packet thread until
//! the producer catches up (a slow producer would then set the pace; the
//! packet thread computing the missing keystream itself is never slower
//! than no pipeline at all).

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use super::pipeline::{Buffer, Schedule};
use super::{CounterSpace, KeystreamProducer};

/// Runs a producer on one of the three schedules.
pub(super) enum Driver {
    Thread {
        requests: Option<Sender<Buffer>>,
        filled: Receiver<Buffer>,
        worker: Option<JoinHandle<()>>,
    },
    Here {
        producer: Box<dyn KeystreamProducer>,
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
                let worker = std::thread::Builder::new()
                    .name("aekit-keystream".into())
                    .spawn(move || {
                        // Ends when the pipeline drops its sender.
                        for mut buffer in inbox {
                            buffer.fill(&mut *producer, &space);
                            if outbox.send(buffer).is_err() {
                                break;
                            }
                        }
                    })
                    .expect("spawning the keystream thread");
                Driver::Thread {
                    requests: Some(requests),
                    filled,
                    worker: Some(worker),
                }
            }
            Schedule::Immediate | Schedule::Manual => Driver::Here {
                producer,
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

    /// The oldest filled buffer, waiting for the worker if need be; `None`
    /// only when nothing is on its way.
    pub(super) fn take_blocking(&mut self) -> Option<Buffer> {
        match self {
            Driver::Thread { filled, .. } => filled.recv().ok(),
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
                buffer.fill(&mut **producer, space);
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
                let _ = worker.join();
            }
        }
    }
}
