//! Inbound bursts against one-at-a-time decapsulation: a burst delivers
//! exactly what its packets delivered one at a time deliver, and leaves
//! the anti-replay window where they leave it, whatever the mix of
//! packets the multi-buffer path takes (an encrypted body of 33 bytes to
//! 2 KiB) and packets it does not (shorter or longer), in any order.

use std::collections::{BTreeMap, BTreeSet};

use aekit::esp::{Config, Delivered, Error, Implementation, Sa};
use aekit::gcm::{Class, Fused};
use proptest::prelude::*;

const KEY: [u8; 16] = [0x42; 16];
const SALT: [u8; 4] = [0x0b, 0xad, 0xf0, 0x0d];

type Outcome = Result<(u64, u8, Vec<u8>), Error>;

fn outcome(result: Result<Delivered, Error>, packet: &[u8]) -> Outcome {
    result.map(|d| (d.sequence, d.next_header, packet[d.payload].to_vec()))
}

/// The implementations bursts are tried on: the default, and every fused
/// kernel this CPU runs (those with a multi-buffer path batch bursts).
fn implementations() -> Vec<Implementation> {
    let mut all = vec![Implementation::Best];
    all.extend(
        Fused::ALL
            .into_iter()
            .filter(|f| f.is_available())
            .map(|f| Implementation::Class(Class::Fused(f))),
    );
    all
}

/// A sender for `config`, sealing `(sequence, payload)` pairs given in
/// ascending order of sequence number.
fn seal_all(config: Config, packets: &[(u64, Vec<u8>)]) -> Vec<Vec<u8>> {
    let mut sender = Sa::new(&KEY, SALT, config).unwrap();
    packets
        .iter()
        .map(|(seq, payload)| {
            sender.skip_to_sequence(*seq).unwrap();
            sender.encapsulate(payload, 4).unwrap()
        })
        .collect()
}

/// The burst's outcomes, then each packet of it one at a time.
fn burst_and_single(rx_burst: &mut Sa, rx_single: &mut Sa, packets: &[Vec<u8>]) {
    let mut bytes = packets.to_vec();
    let mut burst: Vec<&mut [u8]> = bytes.iter_mut().map(|b| &mut b[..]).collect();
    let mut results = Vec::new();
    rx_burst.decapsulate_burst(&mut burst, &mut results);
    let got: Vec<Outcome> = results
        .into_iter()
        .zip(&bytes)
        .map(|(r, b)| outcome(r, b))
        .collect();
    let want: Vec<Outcome> = packets
        .iter()
        .map(|p| {
            let mut p = p.clone();
            outcome(rx_single.decapsulate_in_place(&mut p), &p)
        })
        .collect();
    assert_eq!(got, want, "burst against one at a time");
    assert_eq!(rx_burst.replay_window_top(), rx_single.replay_window_top());
}

/// Packet 100 (of the multi-buffer path's shape), then 2200 (not of it)
/// in one burst, on a window of 1024 whose ring is 2048 numbers round:
/// 100 is left of the window once 2200 is in, and marking it must not
/// mark 2148, which shares its bit. 2148, never received, is delivered.
#[test]
fn a_stale_mark_does_not_refuse_a_packet_never_received() {
    for implementation in implementations() {
        // 2200's body: 12 bytes (under the multi-buffer path's 33) or
        // 3004 (over its 2 KiB).
        for long_len in [10, 3000] {
            let config = Config {
                implementation,
                replay_window: 1024,
                ..Config::default()
            };
            let sealed = seal_all(
                config,
                &[
                    (100, vec![1; 100]),
                    (2148, vec![2; 100]),
                    (2200, vec![3; long_len]),
                ],
            );
            let [p100, p2148, p2200] = [&sealed[0], &sealed[1], &sealed[2]];

            // One at a time: all three are delivered.
            let mut single = Sa::new(&KEY, SALT, config).unwrap();
            for p in [p100, p2200, p2148] {
                single.decapsulate(p).unwrap();
            }

            let mut rx = Sa::new(&KEY, SALT, config).unwrap();
            let mut single = Sa::new(&KEY, SALT, config).unwrap();
            burst_and_single(&mut rx, &mut single, &[p100.clone(), p2200.clone()]);
            let id = format!("{implementation:?}, 2200 of {long_len} bytes");
            assert_eq!(
                rx.decapsulate(p2148).map(|(payload, _)| payload),
                Ok(vec![2; 100]),
                "{id}"
            );
            // And 100 stays refused, as too old.
            assert_eq!(rx.decapsulate(p100), Err(Error::Stale(100)), "{id}");
        }
    }
}

/// One arrival of the property below, before it is made concrete: how
/// its sequence number is picked, its payload's size class and length,
/// and whether it arrives with its ICV corrupted.
type Draw = (u8, u64, u8, usize, bool);

/// A payload length of the class `class`: a body of at most 32 bytes
/// (class 0), of 36 bytes to 2 KiB (1 and 2: the multi-buffer path's
/// shapes), or over 2 KiB (3).
fn payload_len(class: u8, raw: usize) -> usize {
    match class {
        0 => raw % 31,
        1 | 2 => 31 + raw % (2047 - 31),
        _ => 2047 + raw % 1000,
    }
}

/// Numbers the ring of a window of `size` holds (`replay.rs`): where the
/// bit of a number left of the window would alias one inside it.
fn ring(size: u64) -> u64 {
    64 * (size.div_ceil(64) + 1).next_power_of_two()
}

/// Burst against one at a time, from a window whose top is `start`, over
/// the arrivals `draws` describes; then the same probes, one at a time,
/// against both receivers' windows.
fn burst_equals_one_at_a_time(
    implementation: Implementation,
    window: usize,
    esn: bool,
    start: u64,
    draws: &[Draw],
) -> Result<(), TestCaseError> {
    let config = Config {
        implementation,
        replay_window: window,
        extended_sequence_numbers: esn,
        ..Config::default()
    };
    let max = if esn { u64::MAX } else { u64::from(u32::MAX) };
    let w = window as u64;

    // The arrivals' sequence numbers: forward steps, leaps near and far,
    // numbers inside and left of the window, duplicates, and numbers from
    // before the starting top.
    let mut seqs = Vec::new();
    let mut top = start;
    for &(kind, delta, ..) in draws {
        let seq = match kind % 10 {
            0..=3 => top.saturating_add(1 + delta % 4),
            4 => top.saturating_add(1 + delta % 3000),
            5 => top.saturating_add(1 + delta % (1 << 20)),
            6 | 7 => top.saturating_sub(delta % (2 * w + 100)),
            8 if !seqs.is_empty() => seqs[delta as usize % seqs.len()],
            _ => start.saturating_sub(delta % 5000),
        }
        .clamp(1, max);
        top = top.max(seq);
        seqs.push(seq);
    }

    // Each sequence number sealed once, with the length of its first
    // arrival; the starting top sealed too, to set both windows there.
    let mut lens = BTreeMap::new();
    for (&seq, &(_, _, class, raw, _)) in seqs.iter().zip(draws) {
        lens.entry(seq).or_insert(payload_len(class, raw));
    }
    if start > 0 {
        lens.entry(start).or_insert(64);
    }
    let plain: Vec<(u64, Vec<u8>)> = lens
        .iter()
        .map(|(&seq, &len)| (seq, (0..len).map(|i| (seq as usize + i) as u8).collect()))
        .collect();
    let sealed: BTreeMap<u64, Vec<u8>> = plain
        .iter()
        .map(|(seq, _)| *seq)
        .zip(seal_all(config, &plain))
        .collect();

    let mut rx_burst = Sa::new(&KEY, SALT, config).unwrap();
    let mut rx_single = Sa::new(&KEY, SALT, config).unwrap();
    if start > 0 {
        for rx in [&mut rx_burst, &mut rx_single] {
            rx.decapsulate(&sealed[&start]).unwrap();
        }
    }

    let arrivals: Vec<Vec<u8>> = seqs
        .iter()
        .zip(draws)
        .map(|(seq, &(.., forged))| {
            let mut p = sealed[seq].clone();
            if forged {
                *p.last_mut().unwrap() ^= 0x80;
            }
            p
        })
        .collect();

    let mut burst_bytes = arrivals.clone();
    let mut burst: Vec<&mut [u8]> = burst_bytes.iter_mut().map(|b| &mut b[..]).collect();
    let mut results = Vec::new();
    rx_burst.decapsulate_burst(&mut burst, &mut results);
    let got: Vec<Outcome> = results
        .into_iter()
        .zip(&burst_bytes)
        .map(|(r, b)| outcome(r, b))
        .collect();
    let mut single_bytes = arrivals.clone();
    let want: Vec<Outcome> = single_bytes
        .iter_mut()
        .map(|p| outcome(rx_single.decapsulate_in_place(p), p))
        .collect();
    prop_assert_eq!(&got, &want, "results, sequence numbers {:?}", seqs);
    prop_assert_eq!(&burst_bytes, &single_bytes, "buffers after");
    let top = rx_single.replay_window_top();
    prop_assert_eq!(rx_burst.replay_window_top(), top);

    // The windows agree: on every number of the last stretch of the
    // window and just past it, on every arrival's number, and on the
    // numbers inside the window whose ring bit the arrivals share.
    let mut probes: BTreeSet<u64> = (top.saturating_sub(w.min(130))..=top.saturating_add(1))
        .chain(seqs.iter().copied())
        .collect();
    for &seq in &seqs {
        for k in 1..=3 {
            let alias = seq.saturating_add(k * ring(w));
            if alias <= top && top - alias < w {
                probes.insert(alias);
            }
        }
    }
    let probes: Vec<(u64, Vec<u8>)> = probes
        .into_iter()
        .filter(|&seq| (1..=max).contains(&seq))
        .map(|seq| (seq, vec![7; 40]))
        .collect();
    for ((seq, _), packet) in probes.iter().zip(seal_all(config, &probes)) {
        let mut a = packet.clone();
        let mut b = packet;
        prop_assert_eq!(
            outcome(rx_burst.decapsulate_in_place(&mut a), &a),
            outcome(rx_single.decapsulate_in_place(&mut b), &b),
            "probe {}, sequence numbers {:?}",
            seq,
            seqs
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Bursts of up to 80 packets (more than one gathering of 32) of
    /// every shape, in any order, with duplicates, stale and forged
    /// packets, from any starting top: the burst's results, buffers and
    /// window are one-at-a-time's.
    #[test]
    fn bursts_deliver_what_one_at_a_time_delivers(
        which in any::<prop::sample::Index>(),
        window in prop::sample::select(vec![32usize, 64, 100, 1024]),
        esn in any::<bool>(),
        start in prop_oneof![
            Just(0u64),
            1..5_000u64,
            // Below 2^32 by more than a window: a fresh receiver with ESN
            // takes a higher first number as one from before the SA.
            (1u64 << 32) - 5_000..(1 << 32) - 1_024,
        ],
        draws in prop::collection::vec(
            (any::<u8>(), any::<u64>(), 0u8..4, any::<usize>(), prop::bool::weighted(0.1)),
            1..80,
        ),
    ) {
        let implementations = implementations();
        let implementation = implementations[which.index(implementations.len())];
        burst_equals_one_at_a_time(implementation, window, esn, start, &draws)?;
    }
}
