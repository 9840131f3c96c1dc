//! The ESP packet paths beside each other: the default implementation
//! (the fused kernel where the CPU has one) against the strategy pair the
//! SA used to run on, and the in-place API against the `Vec` API, byte
//! for byte, over random packets, every key size, ESN on and off, and
//! sequence numbers next to the 2^32 and 2^64 boundaries; and packets that
//! end at a page boundary, the next page unmapped, read and written
//! within their bytes.

mod common;
mod netsim;

use aekit::esp::{
    Config, Delivered, Error, Implementation, KeystreamSource, NonceFormat, Outgoing,
    PipelineConfig, Sa, SaSet, spi_of, worker_for,
};
use aekit::gcm::{Class, Fused};
use aekit::keystream::Schedule;
use aekit::{aes, ghash};
use common::{Guarded, Rng};
use netsim::ROUGH;

const SALT: [u8; 4] = [0x0b, 0xad, 0xf0, 0x0d];

/// The seed's table-driven pair, one of the comparisons kept selectable.
const TABLES: Implementation =
    Implementation::Strategies(aes::Strategy::Table, ghash::Strategy::Table8);

/// The pair every SA ran on before it took `AesGcm::new`'s choice.
fn pair() -> Implementation {
    Implementation::Strategies(aes::Strategy::best(), ghash::Strategy::best())
}

fn piped() -> KeystreamSource {
    KeystreamSource::Pipeline(PipelineConfig {
        max_payload: 1500,
        buffer_packets: 16,
        history_packets: 4,
        schedule: Schedule::Immediate,
    })
}

/// Seals `payload` in place in a buffer with `extra` spare bytes on each
/// side (filled with 0xee, which must stay untouched) and returns the
/// packet, checking the range reported.
fn seal_in_place(sa: &mut Sa, payload: &[u8], nh: u8, extra: usize) -> Result<Vec<u8>, Error> {
    let head = sa.headroom() + extra;
    let tail = sa.tailroom(payload.len()) + extra;
    let mut buf = vec![0xee; head + payload.len() + tail];
    buf[head..head + payload.len()].copy_from_slice(payload);
    let sealed = sa.encapsulate_in_place(&mut buf, head..head + payload.len(), nh)?;
    assert_eq!(sealed.packet.start, extra);
    assert_eq!(sealed.packet.end, buf.len() - extra);
    assert!(
        buf[..extra]
            .iter()
            .chain(&buf[buf.len() - extra..])
            .all(|&b| b == 0xee)
    );
    Ok(buf[sealed.packet].to_vec())
}

/// The first sequence numbers tried: the start, next to 2^32 (where a
/// fresh receiver can still follow with ESN, RFC 4303 Appendix A2.2) and
/// the last ones before exhaustion.
fn starts(esn: bool) -> Vec<u64> {
    if esn {
        vec![1, (1 << 32) - 1100, u64::MAX - 60]
    } else {
        vec![1, u64::from(u32::MAX) - 60]
    }
}

#[test]
fn default_kernel_and_in_place_equal_the_pair_path() {
    let mut rng = Rng(18);
    let default_class = Class::best().unwrap();
    println!("default class here: {}", default_class.name());
    let candidates = [
        (Implementation::Best, KeystreamSource::Inline),
        (Implementation::Best, piped()),
        (
            Implementation::Class(Class::Portable),
            KeystreamSource::Inline,
        ),
        (TABLES, KeystreamSource::Inline),
    ];
    for key_len in [16, 24, 32] {
        let key = rng.bytes(key_len);
        for esn in [false, true] {
            for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
                for first in starts(esn) {
                    let base = Config {
                        spi: 0xdead_0001,
                        // The continuous counter takes 16-byte ICVs only.
                        icv_len: match nonce {
                            NonceFormat::Rfc4106 => [8, 12, 16][rng.below(3)],
                            _ => 16,
                        },
                        extended_sequence_numbers: esn,
                        nonce,
                        implementation: pair(),
                        ..Config::default()
                    };
                    let mut reference = Sa::new(&key, SALT, base).unwrap();
                    let mut reference_rx = Sa::new(&key, SALT, base).unwrap();
                    reference.skip_to_sequence(first).unwrap();
                    // Pipelined keystream beside 2^64 is the pipeline's own
                    // boundary case, tested with it; here it stops at 2^32.
                    let mut others: Vec<(Sa, Sa)> = candidates
                        .iter()
                        .filter(|c| c.1 == KeystreamSource::Inline || first < 1 << 33)
                        .map(|&(implementation, keystream)| {
                            let config = Config {
                                implementation,
                                keystream,
                                ..base
                            };
                            let mut tx = Sa::new(&key, SALT, config).unwrap();
                            tx.skip_to_sequence(first).unwrap();
                            (tx, Sa::new(&key, SALT, config).unwrap())
                        })
                        .collect();
                    let count = if first == 1 { 300 } else { 1200 };
                    let (mut sent, mut delivered) = (0u64, 0u64);
                    for _ in 0..count {
                        let len = rng.below(1501);
                        let payload = rng.bytes(len);
                        let nh = rng.below(256) as u8;
                        let want = reference.encapsulate(&payload, nh);
                        let opened_want = want.as_ref().ok().map(|p| {
                            let mut copy = p.clone();
                            reference_rx
                                .decapsulate_in_place(&mut copy)
                                .map(|d| (copy[d.payload].to_vec(), d.next_header, d.sequence))
                        });
                        for (i, (tx, rx)) in others.iter_mut().enumerate() {
                            // Even candidates run the in-place API, odd ones
                            // the `Vec` API.
                            let extra = rng.below(3) * 7;
                            let got = if i % 2 == 0 {
                                seal_in_place(tx, &payload, nh, extra)
                            } else {
                                tx.encapsulate(&payload, nh)
                            };
                            assert_eq!(
                                got,
                                want,
                                "{} key {key_len} esn {esn} {nonce:?} from {first} len {len}",
                                tx.implementation()
                            );
                            let Ok(mut packet) = got else { continue };
                            let opened = if i % 2 == 0 {
                                rx.decapsulate_in_place(&mut packet).map(|d| {
                                    (packet[d.payload].to_vec(), d.next_header, d.sequence)
                                })
                            } else {
                                let mut out = Vec::new();
                                rx.decapsulate_into(&packet, &mut out)
                                    .map(|d| (out, d.next_header, d.sequence))
                            };
                            assert_eq!(
                                Some(opened),
                                opened_want,
                                "{} receiver, len {len}",
                                tx.implementation()
                            );
                        }
                        if let Some(Ok((p, got_nh, _))) = &opened_want {
                            assert_eq!((p, *got_nh), (&payload, nh));
                        }
                        match &want {
                            Ok(_) => sent += 1,
                            Err(e) => assert_eq!(*e, Error::SequenceExhausted),
                        }
                        if let Some(Ok(_)) = opened_want {
                            delivered += 1;
                        }
                    }
                    // Every run reaches the end of its sequence space but the
                    // ones that start at 1 or cross 2^32.
                    let exhausted = first > u64::from(u32::MAX) || (!esn && first > 1);
                    assert_eq!(sent < count as u64, exhausted, "from {first}");
                    // A fresh receiver follows except beside 2^64, where it
                    // takes the high half for 0 (RFC 4303 Appendix A2.2).
                    if first < 1 << 32 {
                        assert_eq!(delivered, sent, "from {first} esn {esn}");
                    }
                }
            }
        }
    }
}

#[test]
fn in_place_refuses_short_buffers_and_wipes_forgeries() {
    let key = [9u8; 32];
    let mut tx = Sa::new(&key, SALT, Config::default()).unwrap();
    let mut rx = Sa::new(&key, SALT, Config::default()).unwrap();
    let payload = b"forty-two bytes of an inner IPv4 datagram.";
    let (head, tail) = (tx.headroom(), tx.tailroom(payload.len()));
    // 42 bytes + pad length + next header is a multiple of 4: no padding.
    assert_eq!(payload.len(), 42);
    assert_eq!((head, tail), (16, 2 + 16));
    let mut buf = vec![0u8; head + payload.len() + tail];
    buf[head..head + payload.len()].copy_from_slice(payload);
    let range = head..head + payload.len();
    let untouched = buf.clone();
    // One byte short on either side, or a range outside the buffer: refused
    // before anything is written or any sequence number is spent.
    for (len, range, what) in [
        (buf.len(), range.start - 1..range.end - 1, "headroom"),
        (buf.len() - 1, range.clone(), "tailroom"),
        (buf.len(), range.end..range.start, "range"),
        (buf.len(), range.start..buf.len() + 1, "range"),
    ] {
        let err = tx.encapsulate_in_place(&mut buf[..len], range, 4);
        assert!(matches!(err, Err(Error::NoRoom(_))), "{what}: {err:?}");
        assert_eq!(buf, untouched);
    }
    let sealed = tx.encapsulate_in_place(&mut buf, range, 4).unwrap();
    assert_eq!((sealed.sequence, sealed.packet.clone()), (1, 0..buf.len()));

    // A forged packet: refused, its body zeroed, the window unmoved.
    let mut forged = buf.clone();
    forged[head + 3] ^= 0x80;
    assert_eq!(
        rx.decapsulate_in_place(&mut forged),
        Err(Error::AuthenticationFailed)
    );
    assert!(forged[head..buf.len() - 16].iter().all(|&b| b == 0));
    assert_eq!(rx.replay_window_top(), 0);
    // A packet refused before decryption is left as it was.
    let mut foreign = buf.clone();
    foreign[0] ^= 1;
    let before = foreign.clone();
    assert!(matches!(
        rx.decapsulate_in_place(&mut foreign),
        Err(Error::UnknownSpi(_))
    ));
    assert_eq!(foreign, before);

    let delivered = rx.decapsulate_in_place(&mut buf).unwrap();
    assert_eq!(delivered.payload, head..head + payload.len());
    assert_eq!(&buf[delivered.payload], payload);
    assert_eq!((delivered.sequence, delivered.next_header), (1, 4));
    assert_eq!(rx.replay_window_top(), 1);
}

/// What a receiver made of one arrival, comparable across paths:
/// sequence, next header and payload, or the error.
type Outcome = Result<(u64, u8, Vec<u8>), Error>;

fn outcome(result: Result<Delivered, Error>, packet: &[u8]) -> Outcome {
    result.map(|d| (d.sequence, d.next_header, packet[d.payload].to_vec()))
}

/// Four SAs' traffic, mixed, through a lossy, duplicating, reordering,
/// forging network: bursts of one SA, bursts steered across a set, and
/// two worker threads each owning the SAs `worker_for` gives it deliver
/// exactly what one-at-a-time processing delivers; forged packets are
/// refused and wiped; the windows end where one-at-a-time leaves them.
#[test]
fn bursts_and_workers_deliver_what_single_packets_deliver() {
    // Payloads up to 1400 bytes, and up to 100 (on a key whose bursts
    // are batched, mostly the multi-buffer path's).
    for (nonce, max_len) in [
        (NonceFormat::Rfc4106, 1400),
        (NonceFormat::Rfc4106, 100),
        (NonceFormat::ContinuousCounter, 1400),
    ] {
        for esn in [false, true] {
            let mut rng = Rng(0xb0_0057 + esn as u64 + max_len as u64);
            let key = rng.bytes(16);
            let config = |spi| Config {
                spi,
                nonce,
                extended_sequence_numbers: esn,
                replay_window: 64,
                ..Config::default()
            };
            let spis = [0x10u32, 0x11, 0x12, 0x13];
            let sa = |spi| Sa::new(&key, SALT, config(spi)).unwrap();

            // The senders' packets, SAs interleaved, sealed in bursts;
            // with ESN from just below 2^32, so that the receivers infer
            // the high half across its change (about 500 packets per SA).
            let first = if esn { (1 << 32) - 250 } else { 1 };
            let mut senders: Vec<Sa> = spis.iter().map(|&s| sa(s)).collect();
            for sender in &mut senders {
                sender.skip_to_sequence(first).unwrap();
            }
            let payloads: Vec<Vec<u8>> = (0..2000)
                .map(|_| {
                    let len = rng.below(max_len);
                    rng.bytes(len)
                })
                .collect();
            let mut packets = Vec::new();
            let mut results = Vec::new();
            for (n, chunk) in payloads.chunks(32).enumerate() {
                let sender = &mut senders[n % spis.len()];
                let (head, tail) = (sender.headroom(), sender.max_overhead());
                let mut bufs: Vec<Vec<u8>> = chunk
                    .iter()
                    .map(|p| [vec![0; head], p.clone(), vec![0; tail]].concat())
                    .collect();
                let mut burst: Vec<Outgoing<'_>> = bufs
                    .iter_mut()
                    .zip(chunk)
                    .map(|(buf, p)| Outgoing {
                        buf,
                        payload: head..head + p.len(),
                        next_header: 4,
                    })
                    .collect();
                sender.encapsulate_burst(&mut burst, &mut results);
                for (buf, result) in bufs.iter().zip(&results) {
                    packets.push(buf[result.clone().unwrap().packet].to_vec());
                }
            }
            let arrivals = ROUGH.carry(&packets, &mut rng);

            // One at a time: the model every other path must equal.
            let mut single: Vec<Sa> = spis.iter().map(|&s| sa(s)).collect();
            let expected: Vec<_> = arrivals
                .iter()
                .map(|a| {
                    let mut bytes = a.bytes.clone();
                    let spi = spi_of(&bytes).unwrap();
                    // A forgery may have hit the SPI: no SA takes it.
                    let Some(rx) = single.iter_mut().find(|s| s.config().spi == spi) else {
                        assert!(a.forged);
                        return Err(Error::UnknownSpi(spi));
                    };
                    let result = outcome(rx.decapsulate_in_place(&mut bytes), &bytes);
                    match &result {
                        Ok((_, _, payload)) => {
                            assert!(!a.forged, "forged packet delivered");
                            assert_eq!(payload, &payloads[a.index]);
                        }
                        Err(Error::AuthenticationFailed) => {
                            // Wiped: nothing of the body is left.
                            let body = rx.headroom()..bytes.len() - 16;
                            assert!(bytes[body].iter().all(|&b| b == 0));
                        }
                        Err(_) => {}
                    }
                    result
                })
                .collect();
            let delivered = expected.iter().filter(|r| r.is_ok()).count();
            let forged = arrivals.iter().filter(|a| a.forged).count();
            let duplicates = arrivals.iter().filter(|a| a.duplicate).count();
            assert!(
                delivered > 1500 && forged > 20 && duplicates > 20,
                "{delivered} {forged} {duplicates}"
            );
            let tops: Vec<u64> = single.iter().map(Sa::replay_window_top).collect();

            // Bursts of 16 arrivals steered across one set.
            let mut set = SaSet::new();
            for &s in &spis {
                set.insert(sa(s)).unwrap();
            }
            assert!(set.insert(sa(spis[0])).is_err(), "SPI taken");
            let mut results = Vec::new();
            let mut got = Vec::new();
            for chunk in arrivals.chunks(16) {
                let mut bytes: Vec<Vec<u8>> = chunk.iter().map(|a| a.bytes.clone()).collect();
                let mut burst: Vec<&mut [u8]> = bytes.iter_mut().map(|b| &mut b[..]).collect();
                set.decapsulate_burst(&mut burst, &mut results);
                assert_eq!(results.len(), chunk.len());
                got.extend(results.drain(..).zip(&bytes).map(|(r, b)| outcome(r, b)));
            }
            assert_eq!(got, expected, "set bursts");
            for (&spi, &top) in spis.iter().zip(&tops) {
                assert_eq!(set.get_mut(spi).unwrap().replay_window_top(), top);
            }

            // Bursts of one SA: each SA's arrivals in bursts of 8.
            let mut got: Vec<_> = arrivals
                .iter()
                .map(|a| {
                    let spi = spi_of(&a.bytes).unwrap();
                    (!spis.contains(&spi)).then_some(Err(Error::UnknownSpi(spi)))
                })
                .collect();
            for &spi in &spis {
                let mut rx = sa(spi);
                let mine: Vec<usize> = (0..arrivals.len())
                    .filter(|&i| spi_of(&arrivals[i].bytes) == Some(spi))
                    .collect();
                for chunk in mine.chunks(8) {
                    let mut bytes: Vec<Vec<u8>> =
                        chunk.iter().map(|&i| arrivals[i].bytes.clone()).collect();
                    let mut burst: Vec<&mut [u8]> = bytes.iter_mut().map(|b| &mut b[..]).collect();
                    rx.decapsulate_burst(&mut burst, &mut results);
                    for ((&i, r), b) in chunk.iter().zip(results.drain(..)).zip(&bytes) {
                        got[i] = Some(outcome(r, b));
                    }
                }
            }
            let got: Vec<_> = got.into_iter().map(Option::unwrap).collect();
            assert_eq!(got, expected, "SA bursts");

            // Two workers, each owning its SAs, fed by SPI steering.
            let workers = 2;
            let mut sets: Vec<SaSet> = (0..workers).map(|_| SaSet::new()).collect();
            for &s in &spis {
                sets[worker_for(s, workers)].insert(sa(s)).unwrap();
            }
            assert!(
                sets.iter().all(|set| !set.is_empty()),
                "both workers own SAs"
            );
            let queues: Vec<Vec<usize>> = (0..workers)
                .map(|w| {
                    (0..arrivals.len())
                        .filter(|&i| worker_for(spi_of(&arrivals[i].bytes).unwrap(), workers) == w)
                        .collect()
                })
                .collect();
            let per_worker: Vec<Vec<(usize, Outcome)>> = std::thread::scope(|scope| {
                let handles: Vec<_> = sets
                    .iter_mut()
                    .zip(&queues)
                    .map(|(set, queue)| {
                        let arrivals = &arrivals;
                        scope.spawn(move || {
                            let mut out = Vec::new();
                            let mut results = Vec::new();
                            for chunk in queue.chunks(32) {
                                let mut bytes: Vec<Vec<u8>> =
                                    chunk.iter().map(|&i| arrivals[i].bytes.clone()).collect();
                                let mut burst: Vec<&mut [u8]> =
                                    bytes.iter_mut().map(|b| &mut b[..]).collect();
                                set.decapsulate_burst(&mut burst, &mut results);
                                for ((&i, r), b) in chunk.iter().zip(results.drain(..)).zip(&bytes)
                                {
                                    out.push((i, outcome(r, b)));
                                }
                            }
                            out
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let mut got = vec![None; arrivals.len()];
            for (i, r) in per_worker.into_iter().flatten() {
                got[i] = Some(r);
            }
            let got: Vec<_> = got.into_iter().map(Option::unwrap).collect();
            assert_eq!(got, expected, "two workers");
        }
    }
}

/// An outbound burst seals what one-at-a-time sealing seals, byte for
/// byte and result for result, on the default key and every fused class
/// this CPU runs (on `vaes-avx2`, with inline keystream and RFC 4106
/// nonces, through the batch API's multi-buffer path), over bursts of 1
/// to 100 packets of mostly short payloads, with packets refused for want
/// of room among them, every key size, ESN on and off, every ICV length
/// each nonce format takes, and sequence numbers running out inside a
/// burst.
#[test]
fn outbound_bursts_equal_one_at_a_time() {
    let mut rng = Rng(0xb0b5);
    let implementations = std::iter::once(Implementation::Best).chain(
        Fused::ALL
            .into_iter()
            .filter(|f| f.is_available())
            .map(|f| Implementation::Class(Class::Fused(f))),
    );
    for (implementation, key_len) in implementations.flat_map(|i| [(i, 16), (i, 24), (i, 32)]) {
        let key = rng.bytes(key_len);
        for esn in [false, true] {
            for icv_len in [8, 12, 16] {
                for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
                    // The continuous counter takes 16-byte ICVs only.
                    if nonce == NonceFormat::ContinuousCounter && icv_len != 16 {
                        continue;
                    }
                    let config = Config {
                        spi: 0x5eed,
                        icv_len,
                        extended_sequence_numbers: esn,
                        nonce,
                        implementation,
                        ..Config::default()
                    };
                    let mut single = Sa::new(&key, SALT, config).unwrap();
                    let mut burst_sa = Sa::new(&key, SALT, config).unwrap();
                    // Close to exhaustion in the last bursts.
                    let last = if esn { u64::MAX } else { u64::from(u32::MAX) };
                    for (round, n) in [1, 3, 4, 5, 8, 31, 32, 33, 64, 100].into_iter().enumerate() {
                        if round == 9 {
                            single.skip_to_sequence(last - 40).unwrap();
                            burst_sa.skip_to_sequence(last - 40).unwrap();
                        }
                        let payloads: Vec<Vec<u8>> = (0..n)
                            .map(|_| {
                                let len = match rng.below(4) {
                                    0 => rng.below(1500),
                                    _ => rng.below(130),
                                };
                                rng.bytes(len)
                            })
                            .collect();
                        // One packet in ten without its tailroom.
                        let short: Vec<bool> = (0..n).map(|_| rng.below(10) == 0).collect();
                        let buffers = |sa: &Sa| -> Vec<Vec<u8>> {
                            payloads
                                .iter()
                                .zip(&short)
                                .map(|(p, &s)| {
                                    let tail = if s { 1 } else { sa.tailroom(p.len()) };
                                    [vec![0xee; sa.headroom()], p.clone(), vec![0xee; tail]]
                                        .concat()
                                })
                                .collect()
                        };
                        let mut want_bufs = buffers(&single);
                        let want: Vec<_> = want_bufs
                            .iter_mut()
                            .zip(&payloads)
                            .map(|(buf, p)| {
                                let head = single.headroom();
                                single.encapsulate_in_place(buf, head..head + p.len(), 4)
                            })
                            .collect();
                        let mut got_bufs = buffers(&burst_sa);
                        let head = burst_sa.headroom();
                        let mut burst: Vec<Outgoing<'_>> = got_bufs
                            .iter_mut()
                            .zip(&payloads)
                            .map(|(buf, p)| Outgoing {
                                buf,
                                payload: head..head + p.len(),
                                next_header: 4,
                            })
                            .collect();
                        let mut got = Vec::new();
                        burst_sa.encapsulate_burst(&mut burst, &mut got);
                        let id = format!(
                            "{implementation:?}, key {key_len}, ESN {esn}, ICV {icv_len}, {nonce:?}, burst of {n}"
                        );
                        assert_eq!(got, want, "{id}: results");
                        assert_eq!(got_bufs, want_bufs, "{id}: bytes");
                        if round == 9 {
                            assert!(want.contains(&Err(Error::SequenceExhausted)), "{id}");
                        }
                    }
                }
            }
        }
    }
}

/// Packets that end at a page boundary, the next page unmapped, so that a
/// load or store past a packet faults: each payload's buffer exactly
/// headroom, payload and tailroom long, encapsulated one at a time and in
/// a burst of eight, and each sealed packet exactly its own length,
/// decapsulated one at a time and in a burst; every nonce format, ICV
/// length and sequence-number width on every class this CPU runs, with
/// the keystream computed inline and, for both nonce formats, precomputed
/// (the supplied-keystream kernels; the buffers filled before each round),
/// payloads of every length to 100 bytes (every padding and trailer
/// placement around the blocks of a short packet) and a few longer.
#[test]
fn packets_at_a_page_boundary_are_read_and_written_within_their_bytes() {
    let mut rng = Rng(0xe5b9_a9e0);
    let lens: Vec<usize> = (0..=100).chain([255, 256, 576, 1000, 1500]).collect();
    let mut configs = Vec::new();
    for esn in [false, true] {
        for icv_len in [8, 12, 16] {
            configs.push((NonceFormat::Rfc4106, icv_len, esn, KeystreamSource::Inline));
        }
        configs.push((
            NonceFormat::ContinuousCounter,
            16,
            esn,
            KeystreamSource::Inline,
        ));
    }
    let precomputed = KeystreamSource::Pipeline(PipelineConfig {
        max_payload: 1500,
        buffer_packets: 16,
        history_packets: 4,
        schedule: Schedule::Manual,
    });
    configs.push((NonceFormat::Rfc4106, 16, false, precomputed));
    configs.push((NonceFormat::ContinuousCounter, 16, true, precomputed));
    for class in common::classes() {
        for &(nonce, icv_len, esn, keystream) in &configs {
            let key = rng.bytes(16);
            let config = Config {
                nonce,
                icv_len,
                extended_sequence_numbers: esn,
                keystream,
                implementation: Implementation::Class(class),
                ..Config::default()
            };
            let sa = || Sa::new(&key, SALT, config).unwrap();
            let (mut single, mut burst_sa, mut rx, mut burst_rx) = (sa(), sa(), sa(), sa());
            let id = format!(
                "{}, {nonce:?}, ICV {icv_len}, ESN {esn}, {keystream:?}",
                class.name()
            );
            let head = single.headroom();
            for &n in &lens {
                for sa in [&mut single, &mut burst_sa, &mut rx, &mut burst_rx] {
                    sa.fill_keystream_now();
                }
                let payloads: Vec<Vec<u8>> = (0..8).map(|_| rng.bytes(n)).collect();
                let room = head + n + single.tailroom(n);
                let guarded = |p: &Vec<u8>| {
                    let mut g = Guarded::new(room);
                    g.slice()[head..head + n].copy_from_slice(p);
                    g
                };
                let mut bufs: Vec<Guarded> = payloads.iter().map(guarded).collect();
                let mut sealed: Vec<Vec<u8>> = Vec::new();
                for b in &mut bufs {
                    let buf = b.slice();
                    let s = single.encapsulate_in_place(buf, head..head + n, 4).unwrap();
                    assert_eq!(s.packet, 0..buf.len(), "{id}: {n} B");
                    sealed.push(buf.to_vec());
                }
                let mut bufs: Vec<Guarded> = payloads.iter().map(guarded).collect();
                let mut burst: Vec<Outgoing<'_>> = bufs
                    .iter_mut()
                    .map(|b| Outgoing {
                        buf: b.slice(),
                        payload: head..head + n,
                        next_header: 4,
                    })
                    .collect();
                let mut results = Vec::new();
                burst_sa.encapsulate_burst(&mut burst, &mut results);
                for (i, (b, r)) in burst.iter().zip(&results).enumerate() {
                    assert!(r.is_ok(), "{id}: {n} B, burst packet {i}: {r:?}");
                    assert!(*b.buf == sealed[i][..], "{id}: {n} B, burst packet {i}");
                }

                let mut packets: Vec<Guarded> =
                    sealed.iter().map(|s| Guarded::holding(s)).collect();
                for (i, g) in packets.iter_mut().enumerate() {
                    let packet = g.slice();
                    let d = rx.decapsulate_in_place(packet).unwrap();
                    assert!(
                        packet[d.payload] == payloads[i][..],
                        "{id}: {n} B, packet {i}"
                    );
                }
                let mut packets: Vec<Guarded> =
                    sealed.iter().map(|s| Guarded::holding(s)).collect();
                let mut burst: Vec<&mut [u8]> = packets.iter_mut().map(Guarded::slice).collect();
                let mut results = Vec::new();
                burst_rx.decapsulate_burst(&mut burst, &mut results);
                for (i, (p, r)) in burst.iter().zip(&results).enumerate() {
                    let d = r
                        .clone()
                        .unwrap_or_else(|e| panic!("{id}: {n} B, burst {i}: {e}"));
                    assert!(
                        p[d.payload] == payloads[i][..],
                        "{id}: {n} B, burst packet {i}"
                    );
                }
            }
            if keystream != KeystreamSource::Inline {
                assert!(single.outbound_stats().hits > 0, "{id}: never precomputed");
                assert!(rx.inbound_stats().hits > 0, "{id}: never precomputed");
            }
        }
    }
}
