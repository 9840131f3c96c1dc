//! ESP packets (RFC 4106) and the keystream pipeline: interoperation with
//! a reference built here from the one-shot AES-GCM API, and delivery
//! through a deterministic lossy, duplicating, reordering, forging network.

mod common;
mod netsim;

use std::collections::BTreeSet;

use aekit::AesGcm;
use aekit::esp::{Config, Error, KeystreamSource, NonceFormat, PipelineConfig, Sa};
use aekit::keystream::{PipelineStats, Schedule};
use common::Rng;
use common::esp_reference::{ContinuousSender, rfc4106_packet};
use netsim::{Network, ROUGH};

const SALT: [u8; 4] = [0xca, 0xfe, 0xba, 0xbe];

fn pipeline(schedule: Schedule) -> KeystreamSource {
    KeystreamSource::Pipeline(PipelineConfig {
        max_payload: 1500,
        buffer_packets: 32,
        history_packets: 8,
        schedule,
    })
}

/// The reference sender of `common::esp_reference`, with this file's salt.
fn reference_packet(key: &[u8], config: &Config, seq: u64, payload: &[u8], nh: u8) -> Vec<u8> {
    rfc4106_packet(key, SALT, config, seq, payload, nh)
}

/// The reference's receiver: opens an RFC 4106 packet whose full sequence
/// number is known, returns payload and next header.
fn reference_open(key: &[u8], config: &Config, seq: u64, packet: &[u8]) -> (Vec<u8>, u8) {
    let mut nonce = SALT.to_vec();
    nonce.extend_from_slice(&packet[8..16]);
    let mut aad = packet[..4].to_vec();
    if config.extended_sequence_numbers {
        aad.extend_from_slice(&((seq >> 32) as u32).to_be_bytes());
    }
    aad.extend_from_slice(&packet[4..8]);
    let mut body = AesGcm::new(key)
        .unwrap()
        .decrypt(&nonce, &aad, &packet[16..], config.icv_len)
        .expect("reference opens aekit's packet");
    let nh = body.pop().unwrap();
    let pad = body.pop().unwrap() as usize;
    body.truncate(body.len() - pad);
    (body, nh)
}

#[test]
fn rfc4106_packets_interoperate_with_the_one_shot_reference() {
    let mut rng = Rng(4106);
    for (icv_len, key_len) in [(8, 16), (12, 32), (16, 16), (16, 32)] {
        let key = rng.bytes(key_len);
        for esn in [false, true] {
            for source in [KeystreamSource::Inline, pipeline(Schedule::Immediate)] {
                let config = Config {
                    spi: 0x1234_5678,
                    icv_len,
                    extended_sequence_numbers: esn,
                    keystream: source,
                    ..Config::default()
                };
                let mut sender = Sa::new(&key, SALT, config).unwrap();
                let mut receiver = Sa::new(&key, SALT, config).unwrap();
                // With ESN, cross the 2^32 boundary on the way (starting
                // low enough that a fresh receiver takes the high half as
                // 0, RFC 4303 Appendix A2.2 case B).
                let first = if esn { (1 << 32) - 1100 } else { 1 };
                sender.skip_to_sequence(first).unwrap();
                for len in 0..=1500usize {
                    let payload = rng.bytes(len);
                    let nh = (len % 256) as u8;
                    let seq = first + len as u64;
                    let ours = sender.encapsulate(&payload, nh).unwrap();
                    let theirs = reference_packet(&key, &config, seq, &payload, nh);
                    assert_eq!(ours, theirs, "icv {icv_len} esn {esn} len {len}");
                    assert_eq!(
                        reference_open(&key, &config, seq, &ours),
                        (payload.clone(), nh)
                    );
                    let (got, got_nh) = receiver.decapsulate(&theirs).unwrap();
                    assert_eq!((got, got_nh), (payload, nh), "len {len}");
                }
                assert_eq!(receiver.replay_window_top(), first + 1500);
                if source != KeystreamSource::Inline {
                    let (out, inn) = (sender.outbound_stats(), receiver.inbound_stats());
                    assert_eq!(out.fallbacks(), 0, "{out:?}");
                    // The receiver starts at sequence 1; the ESN run jumps
                    // to 2^32 − 1100, so one packet re-aims it.
                    assert_eq!(inn.fallbacks(), u64::from(esn), "{inn:?}");
                }
            }
        }
    }
}

/// A sender and a receiver over `net`, checked against a model of RFC 4303
/// §3.4.3 (a set of delivered numbers and the highest one). Returns the
/// sender's packets and both pipelines' stats.
fn run_network(
    config: Config,
    net: &Network,
    seed: u64,
    count: usize,
) -> (Vec<Vec<u8>>, PipelineStats, PipelineStats) {
    run_network_with(config, net, seed, count, &|key, config| {
        Sa::new(key, SALT, config).unwrap()
    })
}

/// [`run_network`] with the SAs built by `make` (from the key and config).
fn run_network_with(
    config: Config,
    net: &Network,
    seed: u64,
    count: usize,
    make: &dyn Fn(&[u8], Config) -> Sa,
) -> (Vec<Vec<u8>>, PipelineStats, PipelineStats) {
    let mut rng = Rng(seed);
    let key = rng.bytes(16);
    let mut sender = make(&key, config);
    let mut receiver = make(&key, config);
    let payloads: Vec<Vec<u8>> = (0..count)
        .map(|_| {
            let len = rng.below(1400);
            rng.bytes(len)
        })
        .collect();
    let packets: Vec<Vec<u8>> = payloads
        .iter()
        .map(|p| sender.encapsulate(p, 4).unwrap())
        .collect();

    let window = config.replay_window as u64;
    let mut delivered = BTreeSet::new();
    let mut top = 0u64;
    let (mut ok, mut replays, mut stale, mut forged) = (0, 0, 0, 0);
    for arrival in net.carry(&packets, &mut rng) {
        let result = receiver.decapsulate(&arrival.bytes);
        if arrival.forged {
            assert!(result.is_err(), "forged packet {} delivered", arrival.index);
            forged += 1;
            continue;
        }
        let seq = arrival.index as u64 + 1;
        if top >= seq && top - seq >= window {
            // Left of the window. With ESN the receiver takes a far-left
            // low half for the next 2^32 and the ICV then fails.
            let esn = config.extended_sequence_numbers;
            assert!(
                matches!(result, Err(Error::Stale(s)) if s == seq)
                    || (esn && result == Err(Error::AuthenticationFailed)),
                "seq {seq} top {top}: {result:?}"
            );
            stale += 1;
        } else if delivered.contains(&seq) {
            assert_eq!(result, Err(Error::Replay(seq)));
            assert!(arrival.duplicate);
            replays += 1;
        } else {
            let (payload, nh) = result.unwrap_or_else(|e| panic!("seq {seq}: {e}"));
            assert_eq!(payload, payloads[arrival.index]);
            assert_eq!(nh, 4);
            delivered.insert(seq);
            top = top.max(seq);
            ok += 1;
        }
        assert_eq!(receiver.replay_window_top(), top);
    }
    println!(
        "{:?} {:?} seed {seed}: delivered {ok}, replays {replays}, stale {stale}, forged {forged}",
        config.nonce, config.keystream
    );
    (packets, sender.outbound_stats(), receiver.inbound_stats())
}

#[test]
fn every_packet_delivered_once_through_a_rough_network() {
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        for esn in [false, true] {
            for seed in 1..=3 {
                let base = Config {
                    nonce,
                    extended_sequence_numbers: esn,
                    replay_window: 128,
                    ..Config::default()
                };
                let inline = Config {
                    keystream: KeystreamSource::Inline,
                    ..base
                };
                let piped = Config {
                    keystream: pipeline(Schedule::Immediate),
                    ..base
                };
                let (a, _, _) = run_network(inline, &ROUGH, seed, 3000);
                let (b, out, inn) = run_network(piped, &ROUGH, seed, 3000);
                assert!(a == b, "pipeline and inline packets differ");
                println!("  outbound {out:?}\n  inbound  {inn:?}");
                assert_eq!(out.fallbacks(), 0);
                // Reordering beyond the history must have been exercised,
                // and served correctly by the inline fallback.
                assert!(inn.history_hits > 0 && inn.late > 0, "{inn:?}");
            }
        }
    }
}

#[test]
fn reordering_within_history_needs_no_fallback() {
    let gentle = Network {
        loss: 0,
        duplicate: 20,
        reorder_near: 300,
        near_distance: 6, // the history holds 8 packets
        reorder_far: 0,
        far_distance: 1,
        // No forgeries: a continuous-counter IV with a flipped bit names
        // another counter, which may fall back as late or ahead.
        forge: 0,
    };
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        let config = Config {
            nonce,
            keystream: pipeline(Schedule::Immediate),
            ..Config::default()
        };
        let (_, _, inn) = run_network(config, &gentle, 7, 2000);
        assert!(inn.history_hits > 0, "{inn:?}");
        assert_eq!(inn.late + inn.behind + inn.ahead, 0, "{inn:?}");
    }
}

#[test]
fn manual_schedule_counts_fallbacks_and_changes_no_byte() {
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        let key = [9u8; 32];
        let mk = |keystream| {
            Sa::new(
                &key,
                SALT,
                Config {
                    nonce,
                    keystream,
                    ..Config::default()
                },
            )
            .unwrap()
        };
        let mut inline = mk(KeystreamSource::Inline);
        let mut held = mk(pipeline(Schedule::Manual));
        let mut receiver = mk(pipeline(Schedule::Manual));
        let mut rng = Rng(3);
        for n in 0..200 {
            if n == 50 {
                held.fill_keystream_now(); // the producer catches up
                receiver.fill_keystream_now();
            }
            let len = rng.below(1500);
            let payload = rng.bytes(len);
            let a = inline.encapsulate(&payload, 41).unwrap();
            let b = held.encapsulate(&payload, 41).unwrap();
            assert_eq!(a, b, "packet {n}");
            assert_eq!(receiver.decapsulate(&b).unwrap(), (payload, 41));
            if n % 16 == 15 && n > 50 {
                held.fill_keystream_now();
                receiver.fill_keystream_now();
            }
        }
        let (out, inn) = (held.outbound_stats(), receiver.inbound_stats());
        println!("{nonce:?}\n  outbound {out:?}\n  inbound  {inn:?}");
        assert_eq!(out.behind, 50);
        assert_eq!(inn.behind, 50);
        assert_eq!(out.hits, 150);
    }
}

#[test]
fn real_producer_thread_round_trip() {
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        let config = Config {
            nonce,
            keystream: pipeline(Schedule::Thread),
            ..Config::default()
        };
        let near = Network {
            loss: 10,
            duplicate: 10,
            reorder_near: 50,
            near_distance: 4,
            reorder_far: 0,
            far_distance: 1,
            forge: 10,
        };
        let (packets, out, inn) = run_network(config, &near, 11, 5000);
        let (inline, _, _) = run_network(
            Config {
                keystream: KeystreamSource::Inline,
                ..config
            },
            &near,
            11,
            5000,
        );
        assert!(packets == inline);
        println!("{nonce:?} thread\n  outbound {out:?}\n  inbound  {inn:?}");
        assert!(out.hits + inn.hits > 0);
    }
}

#[test]
fn waste_of_per_packet_keystream() {
    let mut stats = Vec::new();
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        let config = Config {
            nonce,
            keystream: pipeline(Schedule::Immediate),
            ..Config::default()
        };
        let mut sa = Sa::new(&[1; 16], SALT, config).unwrap();
        for _ in 0..10_000 {
            sa.encapsulate(&[0; 1024], 4).unwrap();
        }
        let s = sa.outbound_stats();
        println!("{nonce:?}: waste {:.1}% {s:?}", 100.0 * s.waste());
        stats.push(s);
    }
    // RFC 4106 reserves 1 + 94 blocks per sequence number and a 1 KiB
    // packet uses 1 + 65: about 30% of the keystream is thrown away.
    let per_packet = stats[0].waste();
    assert!((0.29..0.33).contains(&per_packet), "{per_packet}");
    assert!(stats[1].waste() < 0.25, "only the buffers not yet read");
}

#[test]
fn oversize_packets_fall_back() {
    let config = Config {
        keystream: pipeline(Schedule::Immediate),
        ..Config::default()
    };
    let mut sender = Sa::new(&[2; 16], SALT, config).unwrap();
    let mut receiver = Sa::new(&[2; 16], SALT, config).unwrap();
    for len in [100, 3000, 100, 9000] {
        let packet = sender.encapsulate(&vec![7; len], 6).unwrap();
        assert_eq!(receiver.decapsulate(&packet).unwrap(), (vec![7; len], 6));
    }
    assert_eq!(sender.outbound_stats().unplaceable, 2);
    assert_eq!(receiver.inbound_stats().unplaceable, 2);
}

#[test]
fn sequence_numbers_never_wrap() {
    for (esn, last) in [(false, u64::from(u32::MAX)), (true, u64::MAX)] {
        let config = Config {
            extended_sequence_numbers: esn,
            ..Config::default()
        };
        let mut sa = Sa::new(&[3; 16], SALT, config).unwrap();
        sa.skip_to_sequence(last - 1).unwrap();
        assert!(sa.skip_to_sequence(5).is_err(), "never backwards");
        sa.encapsulate(b"a", 4).unwrap();
        let packet = sa.encapsulate(b"b", 4).unwrap();
        assert_eq!(packet[4..8], (last as u32).to_be_bytes());
        assert_eq!(sa.encapsulate(b"c", 4), Err(Error::SequenceExhausted));
        assert_eq!(sa.encapsulate(b"c", 4), Err(Error::SequenceExhausted));
    }
}

/// A continuous-counter SA resumed under its key, as its documentation
/// says (sequence number and counter kept, a new `Sa` moved to both):
/// its packets start past every counter block used before, and the
/// receiver that followed the first SA takes them. Moved back, or moved
/// on an RFC 4106 SA, the counter is refused.
#[test]
fn a_continuous_counter_sa_resumes_without_reusing_counters() {
    let config = Config {
        nonce: NonceFormat::ContinuousCounter,
        ..Config::default()
    };
    let key = [9u8; 16];
    let first_iv = |packet: &[u8]| u64::from_be_bytes(packet[12..20].try_into().unwrap());
    let mut sender = Sa::new(&key, SALT, config).unwrap();
    let mut receiver = Sa::new(&key, SALT, config).unwrap();
    let mut used = Vec::new();
    for len in [100, 1500, 3] {
        let packet = sender.encapsulate(&vec![1; len], 4).unwrap();
        receiver.decapsulate(&packet).unwrap();
        used.push(first_iv(&packet));
    }
    let (sequence, counter) = (receiver.replay_window_top(), sender.next_counter());
    assert!(counter > used[2], "the counter moved: {counter}");

    let mut resumed = Sa::new(&key, SALT, config).unwrap();
    assert_eq!(resumed.next_counter(), 0, "a new SA starts at 0");
    resumed.skip_to_sequence(sequence + 1).unwrap();
    resumed.skip_to_counter(counter).unwrap();
    assert!(
        resumed.skip_to_counter(counter - 1).is_err(),
        "never backwards"
    );
    let packet = resumed.encapsulate(&[2; 64], 4).unwrap();
    assert_eq!(first_iv(&packet), counter, "where the first SA stopped");
    assert!(used.iter().all(|&u| u < counter));
    let delivered = receiver.decapsulate(&packet).unwrap();
    assert_eq!(delivered, (vec![2; 64], 4));

    let mut rfc4106 = Sa::new(&key, SALT, Config::default()).unwrap();
    assert!(rfc4106.skip_to_counter(5).is_err());
    rfc4106.encapsulate(b"x", 4).unwrap();
    assert_eq!(rfc4106.next_counter(), 0);
}

/// The continuous-counter format against its description: every packet's
/// ESP-IV (the counter it starts at), ciphertext and ICV must be what
/// `common::continuous` computes from the format alone (salt ‖ 12-byte IV
/// as Y_0 without GHASH, each packet starting where the last one's blocks
/// ended), whichever way the SA got its keystream; and the receiver must
/// open those independently sealed packets.
#[test]
fn continuous_counter_packets_match_an_independent_computation() {
    let mut rng = Rng(4303);
    // The continuous counter takes 16-byte ICVs only.
    for (key_len, esn, icv_len) in [(16, false, 16), (24, true, 16), (32, false, 16)] {
        let key = rng.bytes(key_len);
        for keystream in [
            KeystreamSource::Inline,
            pipeline(Schedule::Immediate),
            pipeline(Schedule::Manual),
            pipeline(Schedule::Thread),
        ] {
            let config = Config {
                nonce: NonceFormat::ContinuousCounter,
                extended_sequence_numbers: esn,
                icv_len,
                keystream,
                ..Config::default()
            };
            let mut sender = Sa::new(&key, SALT, config).unwrap();
            let mut receiver = Sa::new(&key, SALT, config).unwrap();
            let mut reference = ContinuousSender::new(&key, SALT, config.spi, esn, icv_len);
            let mut used = 0u64;
            // Lengths around the block and padding boundaries, and longer
            // than the pipeline's largest payload (inline).
            for len in [
                0, 1, 2, 13, 14, 15, 16, 17, 30, 64, 100, 1400, 1500, 2000, 3,
            ] {
                let payload = rng.bytes(len);
                let packet = sender.encapsulate(&payload, 4).unwrap();
                let (expected, blocks) = reference.seal(&payload, 4);
                assert_eq!(
                    packet, expected,
                    "{key_len}-byte key, {len} bytes, {keystream:?}"
                );
                // Counters run on without gap or overlap.
                assert_eq!(blocks.start, used);
                used = blocks.end;
                assert_eq!(receiver.decapsulate(&expected).unwrap(), (payload, 4));
            }
        }
    }
}

/// A forged continuous-counter packet whose counters would run past 2^64
/// (it once overflowed the keystream range: a panic in any build with
/// overflow checks) or wrap GCM's 32-bit counter is refused as malformed
/// before any keystream is computed, inline and pipelined alike, and the
/// window does not move.
#[test]
fn forged_continuous_counters_at_the_ends_of_the_space_are_refused() {
    let key = [0x42u8; 16];
    for keystream in [KeystreamSource::Inline, pipeline(Schedule::Immediate)] {
        let config = Config {
            nonce: NonceFormat::ContinuousCounter,
            keystream,
            ..Config::default()
        };
        let mut receiver = Sa::new(&key, SALT, config).unwrap();
        let cases = [
            (u64::MAX, 4),
            (u64::MAX - 1, 16),
            (u64::MAX - 3, 64),
            (0xffff_ffff, 32),
            ((7 << 32) - 2, 20),
        ];
        for (first, body_len) in cases {
            let mut packet = config.spi.to_be_bytes().to_vec();
            packet.extend_from_slice(&1u32.to_be_bytes());
            packet.extend_from_slice(&[0; 4]);
            packet.extend_from_slice(&first.to_be_bytes());
            packet.resize(packet.len() + body_len + config.icv_len, 0xab);
            let got = receiver.decapsulate(&packet);
            assert!(
                matches!(got, Err(Error::Malformed(_))),
                "counter {first:#x}, {body_len} bytes: {got:?}"
            );
            assert_eq!(receiver.replay_window_top(), 0);
        }
        // The receiver still takes what an honest sender sends.
        let mut sender = Sa::new(&key, SALT, config).unwrap();
        let packet = sender.encapsulate(b"still here", 4).unwrap();
        assert_eq!(receiver.decapsulate(&packet).unwrap().0, b"still here");
    }
}

#[test]
fn malformed_unknown_and_badly_padded_packets_are_refused() {
    let key = [4u8; 16];
    let config = Config::default();
    let mut receiver = Sa::new(&key, SALT, config).unwrap();
    let good = reference_packet(&key, &config, 1, b"hello", 4);
    assert!(matches!(
        receiver.decapsulate(&good[..20]),
        Err(Error::Malformed(_))
    ));
    assert!(matches!(
        receiver.decapsulate(&good[..good.len() - 1]),
        Err(Error::Malformed(_))
    ));
    let mut other = good.clone();
    other[0] ^= 0x80;
    assert_eq!(
        receiver.decapsulate(&other),
        Err(Error::UnknownSpi(config.spi ^ 0x8000_0000))
    );
    // Authentic, but with the pad byte 0 instead of 1: refused after the
    // ICV, and the window does not move.
    let body = [b"hello".as_slice(), &[0x00, 0x01, 0x04]].concat();
    let mut nonce = SALT.to_vec();
    nonce.extend_from_slice(&1u64.to_be_bytes());
    let aad = [config.spi.to_be_bytes(), 1u32.to_be_bytes()].concat();
    let sealed = AesGcm::new(&key)
        .unwrap()
        .encrypt(&nonce, &aad, &body, 16)
        .unwrap();
    let bad = [&good[..16], &sealed[..]].concat();
    assert_eq!(receiver.decapsulate(&bad), Err(Error::BadPadding));
    assert_eq!(receiver.replay_window_top(), 0);
    assert_eq!(receiver.decapsulate(&good).unwrap(), (b"hello".to_vec(), 4));
    assert_eq!(receiver.decapsulate(&good), Err(Error::Replay(1)));
    // Configuration errors are precise.
    let bad_icv = Config {
        icv_len: 4,
        ..Config::default()
    };
    assert_eq!(
        Sa::new(&key, SALT, bad_icv).err(),
        Some(Error::InvalidIcvLength(4))
    );
    assert_eq!(
        Sa::new(&[0; 15], SALT, config).err(),
        Some(Error::Crypto(aekit::Error::InvalidKeyLength(15)))
    );
}

/// Keystream errors in ESP's error: the cipher's own as AES-GCM's
/// (`Crypto`), the producers' as `Keystream`, each with its message.
#[test]
fn keystream_errors_map_into_esp_errors() {
    use aekit::keystream;
    let cipher = keystream::Error::Cipher(aekit::Error::InvalidKeyLength(15));
    assert_eq!(
        Error::from(cipher),
        Error::Crypto(aekit::Error::InvalidKeyLength(15))
    );
    for e in [
        keystream::Error::CounterOverflow,
        keystream::Error::GpuStarved,
        keystream::Error::ProducerPanicked,
        keystream::Error::GpuFailed("launching the kernel", 700),
    ] {
        assert_eq!(Error::from(e), Error::Keystream(e));
        assert_eq!(Error::from(e).to_string(), e.to_string());
    }
}

/// The continuous counter's GCM IV is 16 bytes, and GCM takes only
/// 128-bit tags with an IV other than 96 bits: an SA of that format
/// refuses 8- and 12-byte ICVs and takes 16; RFC 4106 SAs take all three.
#[test]
fn continuous_counter_takes_only_16_byte_icvs() {
    let key = [7u8; 16];
    for keystream in [KeystreamSource::Inline, pipeline(Schedule::Immediate)] {
        for icv_len in [8, 12, 16] {
            let config = |nonce| Config {
                icv_len,
                nonce,
                keystream,
                ..Config::default()
            };
            let continuous = Sa::new(&key, SALT, config(NonceFormat::ContinuousCounter));
            if icv_len == 16 {
                assert!(continuous.is_ok());
            } else {
                let err = continuous.err().unwrap();
                assert!(matches!(err, Error::InvalidConfig(_)), "{err:?}");
                let message = err.to_string();
                assert!(message.contains("16-byte ICV"), "{message}");
            }
            assert!(Sa::new(&key, SALT, config(NonceFormat::Rfc4106)).is_ok());
        }
    }
}

/// Pipeline sizes whose buffers' bytes overflow are refused by `Sa::new`
/// (they passed, and the first packet overflowed or aborted on the
/// allocation); large ones that fit are built (and allocate nothing
/// until a packet comes).
#[test]
fn pipeline_sizes_that_overflow_are_refused_at_construction() {
    for buffer_packets in [usize::MAX, usize::MAX / 2, 1 << 60] {
        let config = Config {
            keystream: KeystreamSource::Pipeline(PipelineConfig {
                buffer_packets,
                history_packets: 1,
                ..PipelineConfig::default()
            }),
            ..Config::default()
        };
        let refused = Sa::new(&[1; 16], SALT, config).err();
        assert!(
            matches!(refused, Some(Error::InvalidConfig(_))),
            "{buffer_packets}: {refused:?}"
        );
    }
    let config = Config {
        keystream: KeystreamSource::Pipeline(PipelineConfig {
            buffer_packets: 1 << 20,
            ..PipelineConfig::default()
        }),
        ..Config::default()
    };
    assert!(Sa::new(&[1; 16], SALT, config).is_ok());
}

/// A producer of the caller's own, given to the SA: every packet served
/// from its buffers equals the inline packets, and its name shows.
#[test]
fn user_producers_feed_an_sa() {
    use aekit::keystream::{CounterSpace, CpuProducer, KeystreamProducer};
    struct Mine(CpuProducer, std::sync::Arc<std::sync::atomic::AtomicU64>);
    impl KeystreamProducer for Mine {
        fn name(&self) -> String {
            "mine".into()
        }
        fn fill(
            &mut self,
            space: &CounterSpace,
            first: u64,
            out: &mut [[u8; 16]],
        ) -> Result<(), aekit::keystream::Error> {
            self.1
                .fetch_add(out.len() as u64, std::sync::atomic::Ordering::Relaxed);
            self.0.fill(space, first, out)
        }
    }
    let blocks = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        let config = Config {
            nonce,
            keystream: pipeline(Schedule::Immediate),
            ..Config::default()
        };
        let inline = Config {
            keystream: KeystreamSource::Inline,
            ..config
        };
        let (a, _, _) = run_network(inline, &ROUGH, 5, 2000);
        let (b, out, inn) = run_network_with(config, &ROUGH, 5, 2000, &|key, config| {
            let mine = |key| -> Box<dyn KeystreamProducer> {
                Box::new(Mine(
                    CpuProducer::new(aekit::aes::Strategy::best(), key).unwrap(),
                    blocks.clone(),
                ))
            };
            Sa::with_producers(key, SALT, config, mine(key), mine(key)).unwrap()
        });
        assert!(a == b, "packets from the user's producer differ");
        assert!(out.hits > 0 && inn.hits > 0);
        assert_eq!(out.producer_errors + inn.producer_errors, 0);
    }
    assert!(blocks.load(std::sync::atomic::Ordering::Relaxed) > 0);
    let inline = Config::default();
    let p = Box::new(CpuProducer::new(aekit::aes::Strategy::best(), &[0; 16]).unwrap());
    let q = Box::new(CpuProducer::new(aekit::aes::Strategy::best(), &[0; 16]).unwrap());
    assert!(Sa::with_producers(&[0; 16], SALT, inline, p, q).is_err());
}

/// The network simulator through GPU-fed pipelines: every packet equals the
/// inline packets, the receiver delivers each once, and the buffers (not
/// the inline fallback) served the packets. Needs a GPU: run with
/// `AEKIT_GPU_TESTS=1` (prints SKIP otherwise).
#[cfg(feature = "cuda")]
#[test]
fn gpu_fed_pipelines_through_a_rough_network() {
    use aekit::keystream::{CudaProducer, GpuOptions, GpuService};
    if std::env::var_os("AEKIT_GPU_TESTS").is_none_or(|v| v != "1") {
        common::skip("set AEKIT_GPU_TESTS=1 to run the GPU tests");
        return;
    }
    let service = match GpuService::new(GpuOptions::default()) {
        Ok(service) => service,
        Err(e) => panic!("AEKIT_GPU_TESTS is set but there is no usable GPU: {e}"),
    };
    for nonce in [NonceFormat::Rfc4106, NonceFormat::ContinuousCounter] {
        for schedule in [Schedule::Immediate, Schedule::Thread] {
            let config = Config {
                nonce,
                keystream: pipeline(schedule),
                replay_window: 128,
                ..Config::default()
            };
            let inline = Config {
                keystream: KeystreamSource::Inline,
                ..config
            };
            let (a, _, _) = run_network(inline, &ROUGH, 7, 5000);
            let (b, out, inn) = run_network_with(config, &ROUGH, 7, 5000, &|key, config| {
                let gpu = || Box::new(CudaProducer::on(&service, key).unwrap());
                Sa::with_producers(key, SALT, config, gpu(), gpu()).unwrap()
            });
            println!("gpu {nonce:?} {schedule:?}: outbound {out:?}\n  inbound {inn:?}");
            assert!(a == b, "GPU-fed packets differ from inline ones");
            assert_eq!(out.producer_errors + inn.producer_errors, 0);
            assert!(out.hits > 0 && inn.hits > 0);
            if schedule == Schedule::Immediate {
                assert_eq!(out.fallbacks(), 0);
            }
        }
    }
    println!("service: {:?}", service.stats());
}
