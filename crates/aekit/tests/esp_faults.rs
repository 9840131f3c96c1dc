//! Injected faults in the ESP keystream pipeline: producers that panic,
//! return errors, stall for a while or for ever, or panic while allocating
//! their buffers, on every schedule and both nonce formats.
//!
//! Whatever the producer does, every packet must be sealed with the right
//! keystream (the pipeline falls back to computing it inline) or refused
//! with an error — never sealed with a wrong or a reused keystream. Each
//! sealed packet is therefore compared byte for byte with an independent
//! encryption (`common::esp_reference`: RFC 4106 by the one-shot API, the
//! continuous counter from its description), whose nonces are unique, and
//! a receiver with faulty producers of its own must deliver each packet
//! with its payload. The faulty producers are defined here, through the
//! public `KeystreamProducer` trait: nothing in the library exists for the
//! tests' sake.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use aekit::aes::Block;
use aekit::esp::{Config, KeystreamSource, NonceFormat, PipelineConfig, Sa};
use aekit::keystream::{BlockStorage, CounterSpace, CpuProducer, KeystreamProducer, Schedule};
use common::Rng;
use common::esp_reference::{ContinuousSender, rfc4106_packet};

const SALT: [u8; 4] = [0x0f, 0xa1, 0x7e, 0xd0];
const KEY: [u8; 16] = *b"injected faults!";

/// What a faulty producer does when its fault strikes.
#[derive(Clone, Copy, Debug)]
enum Fault {
    Panic,
    Error,
    /// Sleeps this long, then fills correctly.
    Stall(Duration),
}

/// A CPU producer whose fills number `from`, `from + every`, … fail.
struct Faulty {
    inner: CpuProducer,
    fault: Fault,
    from: usize,
    every: usize,
    fills: Arc<AtomicUsize>,
}

impl KeystreamProducer for Faulty {
    fn name(&self) -> String {
        format!("faulty {:?}", self.fault)
    }

    fn fill(
        &mut self,
        space: &CounterSpace,
        first: u64,
        out: &mut [Block],
    ) -> Result<(), aekit::keystream::Error> {
        let n = self.fills.fetch_add(1, Ordering::SeqCst);
        if n >= self.from && (n - self.from).is_multiple_of(self.every) {
            match self.fault {
                Fault::Panic => panic!("injected producer panic (fill {n})"),
                Fault::Error => return Err(aekit::keystream::Error::GpuFailed("injected", 700)),
                Fault::Stall(d) => std::thread::sleep(d),
            }
        }
        self.inner.fill(space, first, out)
    }
}

fn faulty(fault: Fault, from: usize, every: usize, fills: &Arc<AtomicUsize>) -> Box<Faulty> {
    Box::new(Faulty {
        inner: CpuProducer::new(aekit::aes::Strategy::best(), &KEY).unwrap(),
        fault,
        from,
        every,
        fills: fills.clone(),
    })
}

fn config(nonce: NonceFormat, schedule: Schedule) -> Config {
    Config {
        nonce,
        keystream: KeystreamSource::Pipeline(PipelineConfig {
            max_payload: 1000,
            buffer_packets: 8,
            history_packets: 2,
            schedule,
        }),
        ..Config::default()
    }
}

/// The independent sender for `config`'s format.
struct Reference {
    config: Config,
    continuous: ContinuousSender,
    sequence: u64,
}

impl Reference {
    fn new(config: Config) -> Reference {
        Reference {
            config,
            continuous: ContinuousSender::new(&KEY, SALT, config.spi, false, config.icv_len),
            sequence: 0,
        }
    }

    fn seal(&mut self, payload: &[u8]) -> Vec<u8> {
        self.sequence += 1;
        match self.config.nonce {
            NonceFormat::Rfc4106 => {
                rfc4106_packet(&KEY, SALT, &self.config, self.sequence, payload, 4)
            }
            _ => self.continuous.seal(payload, 4).0,
        }
    }
}

/// Sends `packets` packets through an SA whose outbound producer has
/// `fault`, checks each against the reference, then has a receiver whose
/// inbound producer has the same fault open them all (in a shuffled order
/// within the replay window). Returns the two SAs for their statistics.
fn run(
    fault: Fault,
    nonce: NonceFormat,
    schedule: Schedule,
    from: usize,
    every: usize,
) -> (Sa, Sa) {
    let what = format!("{fault:?} from fill {from} every {every}, {nonce:?}, {schedule:?}");
    let config = config(nonce, schedule);
    let (out_fills, in_fills) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let spare = Arc::new(AtomicUsize::new(0));
    let mut sender = Sa::with_producers(
        &KEY,
        SALT,
        config,
        faulty(fault, from, every, &out_fills),
        faulty(Fault::Error, usize::MAX, 1, &spare),
    )
    .unwrap();
    let mut receiver = Sa::with_producers(
        &KEY,
        SALT,
        config,
        faulty(Fault::Error, usize::MAX, 1, &spare),
        faulty(fault, from, every, &in_fills),
    )
    .unwrap();
    let mut reference = Reference::new(config);
    let mut rng = Rng(from as u64 * 31 + every as u64);
    let mut sent = Vec::new();
    for i in 0..120 {
        let len = rng.below(1200);
        let payload = rng.bytes(len);
        let expected = reference.seal(&payload);
        match sender.encapsulate(&payload, 4) {
            // Sealed: the right keystream, or it would differ.
            Ok(packet) => assert!(packet == expected, "{what}: packet {i} sealed wrong"),
            Err(e) => panic!("{what}: packet {i} refused ({e}) though inline always works"),
        }
        sent.push((expected, payload));
        if schedule == Schedule::Manual && i % 5 == 0 {
            sender.fill_keystream_now();
        }
    }
    // Deliver in an order shuffled within windows of 16.
    for window in sent.chunks(16) {
        let mut order: Vec<usize> = (0..window.len()).collect();
        for k in (1..order.len()).rev() {
            order.swap(k, rng.below(k + 1));
        }
        for k in order {
            let (packet, payload) = &window[k];
            let opened = receiver.decapsulate(packet);
            assert_eq!(
                opened.as_ref().map(|(p, _)| p),
                Ok(payload),
                "{what}: delivery"
            );
            if schedule == Schedule::Manual {
                receiver.fill_keystream_now();
            }
        }
    }
    // On a thread the producer runs when the machine lets it: go on
    // sending (each packet checked) until the fault has been reported.
    let reported = |sender: &Sa| {
        out_fills.load(Ordering::SeqCst) > from
            && (matches!(fault, Fault::Stall(_)) || sender.producer_error().is_some())
    };
    if schedule == Schedule::Thread {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !reported(&sender) && Instant::now() < deadline {
            let payload = rng.bytes(100);
            let packet = sender.encapsulate(&payload, 4).unwrap();
            assert!(packet == reference.seal(&payload), "{what}: sealed wrong");
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    assert!(
        out_fills.load(Ordering::SeqCst) > from,
        "{what}: the fault never struck"
    );
    (sender, receiver)
}

#[test]
fn every_packet_is_sealed_right_whatever_the_producer_does() {
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        for schedule in [Schedule::Thread, Schedule::Immediate, Schedule::Manual] {
            let stall = match schedule {
                Schedule::Thread => Duration::from_millis(30),
                _ => Duration::from_millis(1),
            };
            for fault in [Fault::Panic, Fault::Error, Fault::Stall(stall)] {
                for (from, every) in [(0, 1), (1, 2), (3, 1)] {
                    let (sender, receiver) = run(fault, nonce, schedule, from, every);
                    let (out, inn) = (sender.outbound_stats(), receiver.inbound_stats());
                    match fault {
                        Fault::Panic => {
                            // Retired after its first panic: one error, and
                            // the packets after it inline.
                            assert_eq!(
                                sender.producer_error(),
                                Some(aekit::keystream::Error::ProducerPanicked),
                                "{nonce:?} {schedule:?} from {from} every {every}: {out:?}"
                            );
                            assert_eq!(out.producer_errors, 1);
                            if schedule != Schedule::Thread {
                                assert!(out.failed > 0 && inn.failed > 0, "{out:?} {inn:?}");
                            }
                        }
                        Fault::Error => {
                            assert!(out.producer_errors > 0, "{nonce:?} {schedule:?}");
                            if every == 2 {
                                // A producer that recovers is used again.
                                assert!(out.hits > 0, "{out:?}");
                            }
                        }
                        Fault::Stall(_) => assert_eq!(out.producer_errors, 0),
                    }
                }
            }
        }
    }
}

/// A producer that never returns: the SA starts (after waiting a bounded
/// time for the first buffer), seals and opens every packet inline, and
/// is dropped without waiting for the stuck thread. A watchdog fails the
/// test instead of letting a hang hang it.
#[test]
fn a_producer_stalled_for_ever_stops_nothing() {
    /// Stuck in its first fill for far longer than the test runs.
    struct Stuck;
    impl KeystreamProducer for Stuck {
        fn name(&self) -> String {
            "stuck".into()
        }
        fn fill(
            &mut self,
            _: &CounterSpace,
            _: u64,
            _: &mut [Block],
        ) -> Result<(), aekit::keystream::Error> {
            std::thread::sleep(Duration::from_secs(3600));
            Err(aekit::keystream::Error::GpuStarved)
        }
    }
    let cpu = || Box::new(CpuProducer::new(aekit::aes::Strategy::best(), &KEY).unwrap());
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
            let config = config(nonce, Schedule::Thread);
            let mut sender =
                Sa::with_producers(&KEY, SALT, config, Box::new(Stuck), cpu()).unwrap();
            let mut receiver =
                Sa::with_producers(&KEY, SALT, config, cpu(), Box::new(Stuck)).unwrap();
            let mut reference = Reference::new(config);
            for len in [0, 10, 100, 999, 1000, 1001] {
                let payload = vec![len as u8; len];
                let packet = sender.encapsulate(&payload, 4).unwrap();
                assert!(packet == reference.seal(&payload), "{nonce:?}: {len} bytes");
                assert_eq!(receiver.decapsulate(&packet).unwrap().0, payload);
            }
            assert_eq!(sender.outbound_stats().fallbacks(), 6);
            assert_eq!(receiver.inbound_stats().fallbacks(), 6);
        }
        done.send(()).unwrap();
    });
    let result = finished.recv_timeout(Duration::from_secs(60));
    assert!(
        result.is_ok(),
        "a stalled producer hung the SA (or the test failed)"
    );
}

/// A producer whose `allocate` and `name` panic: the pipeline uses heap
/// memory and a placeholder name, and the packets are right.
#[test]
fn a_producer_that_panics_while_setting_up_is_survived() {
    struct Broken(CpuProducer);
    impl KeystreamProducer for Broken {
        fn name(&self) -> String {
            panic!("injected panic in name")
        }
        fn fill(
            &mut self,
            space: &CounterSpace,
            first: u64,
            out: &mut [Block],
        ) -> Result<(), aekit::keystream::Error> {
            self.0.fill(space, first, out)
        }
        fn allocate(&mut self, _: usize) -> Result<Box<dyn BlockStorage>, aekit::keystream::Error> {
            panic!("injected panic in allocate")
        }
    }
    let broken = || {
        Box::new(Broken(
            CpuProducer::new(aekit::aes::Strategy::best(), &KEY).unwrap(),
        ))
    };
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        let config = config(nonce, Schedule::Immediate);
        let mut sender = Sa::with_producers(&KEY, SALT, config, broken(), broken()).unwrap();
        let mut reference = Reference::new(config);
        for len in [5, 500, 50] {
            let payload = vec![7u8; len];
            let packet = sender.encapsulate(&payload, 4).unwrap();
            assert!(packet == reference.seal(&payload), "{nonce:?}");
        }
        assert_eq!(sender.outbound_stats().hits, 3, "the heap buffers served");
    }
}
