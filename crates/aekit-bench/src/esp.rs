//! `aekit-bench esp`: ESP packet rate, the figure IPsec data planes are
//! compared by; then whole messages, and what precomputing their
//! keystream costs.
//!
//! Packets of 64, 576 and 1500 bytes of payload and IMIX (7:4:1 of the
//! three, interleaved), encapsulated and decapsulated in place
//! (`Sa::encapsulate_in_place`, `Sa::decapsulate_in_place`), with the
//! keystream computed inline (RFC 4106) or precomputed by a CPU producer
//! thread per SA and direction (the seed's continuous counter, not RFC
//! 4106), on 1 and 2 worker threads. Four SAs are sharded across the
//! workers by SPI, as receive-side scaling steers them: each worker owns
//! its SAs and its buffers and shares nothing with the other.
//!
//! The loop is a steady state over a fixed pool of buffers per worker,
//! allocated once with headroom and tailroom: encapsulation seals each
//! buffer's payload where it lies, again and again (the bytes do not
//! matter to the speed), so nothing is allocated, copied or grown while
//! timing. Decapsulation needs fresh, authentic packets: each round the
//! pool is sealed by an inline sender untimed and then opened by the
//! receiver timed, which leaves the payload in place for the next round.
//!
//! Packets are handed over one call each (`single`), or in bursts
//! (`burst`, default implementation, inline keystream): one
//! `Sa::encapsulate_burst` or `Sa::decapsulate_burst` call per SA per
//! round of the pool, that SA's packets of the pool (30 with four SAs on
//! one worker), with one result per packet in a vector kept across
//! rounds.
//!
//! Mpps is packets per second of wall time over all workers; Gbit/s and
//! GB/s count payload bytes (not the ESP overhead). Worlds: the default
//! implementation (`AesGcm::new`'s choice, named in the table), and on one
//! worker the seed's two pairs, `table` + `table8` and `fixslice` +
//! `karatsuba`, where precomputation has the most to give.
//!
//! The AES-GCM floor ([`floor`]): the one AES-GCM call each packet makes,
//! aekit's and Intel ipsec-mb's, beside aekit's whole encapsulation.
//!
//! Whole messages ([`messages`]): 1, 10 and 100 MiB (`--quick`: 1 and 10)
//! of random data in 1024-byte packets through one SA, over `fig3.rs`'s
//! packet loop (encapsulate into one arena, then decapsulate with a fresh
//! SA), in the same three worlds, with the keystream computed inline,
//! precomputed per sequence number with RFC 4106 nonces (each packet's
//! keystream padded to the largest packet), or precomputed as one
//! continuous counter (the ESP seed's nonce, not RFC 4106). Beside the
//! packet thread's throughput: the CPU time of the whole process during
//! the loop (the producer threads included) and of the packet thread
//! alone, the cores that makes, the packets that fell back to inline
//! keystream, and the share of produced keystream no packet used — the
//! price of precomputation that a throughput alone hides.

use std::time::{Duration, Instant};

use aekit::esp::{
    Config, Delivered, Error, Implementation, KeystreamSource, NonceFormat, Outgoing,
    PipelineConfig, Sa, Sealed, worker_for,
};
use aekit::{aes, ghash};
use aekit_harness as harness;
use serde_json::json;

use crate::fig3::{self, Mode, PACKET};
use crate::ipsec_mb::{Arch, IpsecMb};
use crate::report::{Effort, Mix, Report};

/// Packets in each worker's pool: 120 × ~1.6 KB stays in a Zen 1 core's
/// 512 KiB L2 with room for the keys and the pipelines' buffers.
const POOL: usize = 120;

/// SAs in all, sharded across the workers by SPI.
const SAS: u32 = 4;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encapsulate,
    Decapsulate,
}

/// How packets are handed to the SAs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Calls {
    /// One call per packet.
    Single,
    /// One burst call per SA per round of the pool.
    Burst,
}

impl Calls {
    fn name(self) -> &'static str {
        match self {
            Calls::Single => "single",
            Calls::Burst => "burst",
        }
    }
}

/// What one configuration measured, summed over its workers.
struct Rate {
    packets_per_s: f64,
    payload_bytes_per_s: f64,
    /// Packets whose keystream was not in the buffers (computed inline).
    fallback_share: f64,
}

/// One worker: its SAs (sender and receiver of each) and its buffers.
struct Worker {
    sas: Vec<(Sa, Sa)>,
    buffers: Vec<Vec<u8>>,
    lens: Vec<usize>,
    /// The ESP packet's end in each buffer after sealing.
    ends: Vec<usize>,
    /// The burst calls' results, reused round after round.
    sealed: Vec<Result<Sealed, Error>>,
    delivered: Vec<Result<Delivered, Error>>,
}

impl Worker {
    fn new(spis: &[u32], config: Config, mix: Mix, direction: Direction) -> Worker {
        let key = [0x5a; 16];
        let sas: Vec<(Sa, Sa)> = spis
            .iter()
            .map(|&spi| {
                let config = Config { spi, ..config };
                // Decapsulation is timed on the receiver alone: its packets
                // come from an inline sender, byte-identical to a
                // pipelined one under the same nonce format.
                let sender = match direction {
                    Direction::Encapsulate => config,
                    Direction::Decapsulate => Config {
                        keystream: KeystreamSource::Inline,
                        ..config
                    },
                };
                let salt = [1, 2, 3, spi as u8];
                (
                    Sa::new(&key, salt, sender).expect("SA"),
                    Sa::new(&key, salt, config).expect("SA"),
                )
            })
            .collect();
        let head = sas[0].0.headroom();
        let room = head + 1500 + sas[0].0.tailroom(1500);
        let data = harness::random_bytes(1500, u64::from(spis[0]));
        let lens: Vec<usize> = (0..POOL).map(|i| mix.len(i)).collect();
        let buffers = lens
            .iter()
            .map(|&len| {
                let mut buf = vec![0u8; room];
                buf[head..head + len].copy_from_slice(&data[..len]);
                buf
            })
            .collect();
        Worker {
            sas,
            buffers,
            lens,
            ends: vec![0; POOL],
            sealed: Vec::with_capacity(POOL),
            delivered: Vec::with_capacity(POOL),
        }
    }

    /// Seals every buffer of the pool with the senders: buffer i with SA
    /// i mod n.
    fn seal_pool(&mut self, calls: Calls) {
        let head = self.sas[0].0.headroom();
        let n = self.sas.len();
        match calls {
            Calls::Single => {
                for (i, (buf, &len)) in self.buffers.iter_mut().zip(&self.lens).enumerate() {
                    let sealed = self.sas[i % n]
                        .0
                        .encapsulate_in_place(buf, head..head + len, 4)
                        .expect("encapsulate");
                    self.ends[i] = sealed.packet.end;
                }
            }
            Calls::Burst => {
                for (j, (tx, _)) in self.sas.iter_mut().enumerate() {
                    let mut burst: Vec<Outgoing<'_>> = (self.buffers.iter_mut().zip(&self.lens))
                        .skip(j)
                        .step_by(n)
                        .map(|(buf, &len)| Outgoing {
                            buf,
                            payload: head..head + len,
                            next_header: 4,
                        })
                        .collect();
                    tx.encapsulate_burst(&mut burst, &mut self.sealed);
                    for (k, sealed) in self.sealed.iter().enumerate() {
                        self.ends[j + k * n] = sealed.as_ref().expect("encapsulate").packet.end;
                    }
                }
            }
        }
    }

    /// Opens every buffer of the pool with the receivers; every packet
    /// must verify.
    fn open_pool(&mut self, calls: Calls) {
        let n = self.sas.len();
        match calls {
            Calls::Single => {
                for (i, buf) in self.buffers.iter_mut().enumerate() {
                    let delivered = self.sas[i % n]
                        .1
                        .decapsulate_in_place(&mut buf[..self.ends[i]])
                        .expect("decapsulate");
                    debug_assert_eq!(delivered.payload.len(), self.lens[i]);
                }
            }
            Calls::Burst => {
                for (j, (_, rx)) in self.sas.iter_mut().enumerate() {
                    let mut burst: Vec<&mut [u8]> = (self.buffers.iter_mut().zip(&self.ends))
                        .skip(j)
                        .step_by(n)
                        .map(|(buf, &end)| &mut buf[..end])
                        .collect();
                    rx.decapsulate_burst(&mut burst, &mut self.delivered);
                    for delivered in &self.delivered {
                        delivered.as_ref().expect("decapsulate");
                    }
                }
            }
        }
    }

    /// Runs the direction for about `time` of timed work; returns the
    /// packets and the timed seconds.
    fn run(&mut self, direction: Direction, calls: Calls, time: Duration) -> (u64, f64) {
        let mut packets = 0u64;
        let mut timed = Duration::ZERO;
        while timed < time {
            match direction {
                Direction::Encapsulate => {
                    let t0 = Instant::now();
                    self.seal_pool(calls);
                    timed += t0.elapsed();
                }
                Direction::Decapsulate => {
                    self.seal_pool(Calls::Single);
                    let t0 = Instant::now();
                    self.open_pool(calls);
                    timed += t0.elapsed();
                }
            }
            packets += POOL as u64;
        }
        (packets, timed.as_secs_f64())
    }

    fn fallbacks(&self, direction: Direction) -> (u64, u64) {
        self.sas
            .iter()
            .map(|(tx, rx)| match direction {
                Direction::Encapsulate => tx.outbound_stats(),
                Direction::Decapsulate => rx.inbound_stats(),
            })
            .fold((0, 0), |(f, h), s| (f + s.fallbacks(), h + s.hits))
    }
}

/// Measures one configuration on `workers` threads, best of `reps`.
fn measure(
    config: Config,
    mix: Mix,
    (direction, calls): (Direction, Calls),
    workers: usize,
    time: Duration,
    reps: usize,
) -> Rate {
    let payload_per_packet = (0..POOL).map(|i| mix.len(i)).sum::<usize>() as f64 / POOL as f64;
    let mut best: Option<Rate> = None;
    for _ in 0..reps {
        let results: Vec<(u64, f64, (u64, u64))> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    scope.spawn(move || {
                        // Steered by SPI (`esp::worker_for`): worker w
                        // owns the SAs the steering gives it.
                        let spis: Vec<u32> = (0..SAS)
                            .map(|i| 0x100 + i)
                            .filter(|&spi| worker_for(spi, workers) == w)
                            .collect();
                        let mut worker = Worker::new(&spis, config, mix, direction);
                        // Warm up: keys, caches, pipelines started.
                        worker.run(direction, calls, Duration::from_millis(20));
                        let (packets, seconds) = worker.run(direction, calls, time);
                        (packets, seconds, worker.fallbacks(direction))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("worker"))
                .collect()
        });
        // The workers run side by side: their rates add.
        let pps: f64 = results.iter().map(|(p, s, _)| *p as f64 / s).sum();
        let (fallbacks, hits) = results
            .iter()
            .fold((0, 0), |(f, h), r| (f + r.2.0, h + r.2.1));
        let rate = Rate {
            packets_per_s: pps,
            payload_bytes_per_s: pps * payload_per_packet,
            fallback_share: fallbacks as f64 / (fallbacks + hits).max(1) as f64,
        };
        if best
            .as_ref()
            .is_none_or(|b| rate.packets_per_s > b.packets_per_s)
        {
            best = Some(rate);
        }
    }
    best.expect("at least one repetition")
}

/// The suite: the packet rate, the AES-GCM floor under it, then whole
/// messages.
pub(crate) fn run(effort: Effort) -> Vec<Report> {
    vec![packet_rate(effort), floor(effort), messages(effort)]
}

/// The AES-GCM call alone per packet, aekit's and Intel ipsec-mb's: what
/// ESP encrypts and authenticates for a packet of each mix (the payload,
/// its padding and the two trailer bytes, a 12-byte nonce, the 8 bytes of
/// SPI and sequence number as AAD, a 16-byte ICV), in place on one core.
/// ipsec-mb's figure is the floor an ESP data plane built on it starts
/// from; beside them, aekit's whole encapsulation of the same packets
/// (one SA, inline keystream, one call per packet), timed in the same
/// interleaved rounds, and what its framing adds over the call.
fn floor(effort: Effort) -> Report {
    let key = [0x42u8; 16];
    let (iv, aad) = ([0x24u8; 12], [0x5au8; 8]);
    let mut md = String::from(
        "## ESP: the AES-GCM call under each packet\n\n\
         What ESP computes per packet (payload, padding and trailer; 12-byte nonce; SPI and \
         sequence number as AAD; 16-byte ICV) as one AES-128-GCM call in place on one core: \
         aekit's default and ipsec-mb's best path (`aekit-bench peers` names both). \
         \"ESP\": aekit's whole encapsulation of the same packets (one SA, inline keystream, \
         one call per packet), timed in the same interleaved rounds as the two calls; \
         \"framing\": what it adds over aekit's call.\n\n\
         | mix | aekit call Mpps | ipsec-mb call Mpps | aekit / ipsec-mb | ESP Mpps | framing | ESP / ipsec-mb call |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut rows = Vec::new();
    for mix in Mix::ALL {
        // ESP pads payload ‖ pad length ‖ next header to 4 bytes.
        let lengths: Vec<usize> = (0..POOL)
            .map(|i| (mix.len(i) + 2).next_multiple_of(4))
            .collect();
        let total: usize = lengths.iter().sum();
        let aekit = aekit::AesGcm::new(&key).map_err(|e| e.to_string());
        let ipsec = IpsecMb::new(Arch::Best, &key);
        let esp = esp_packets(&key, mix);
        let mut cases = vec![
            harness::Case {
                name: "aekit".into(),
                run: aekit.map(|g| {
                    per_packet(lengths.clone(), move |m| {
                        std::hint::black_box(
                            g.encrypt_in_place_detached(&iv, &aad, m, 16).expect("seal"),
                        );
                    })
                }),
            },
            harness::Case {
                name: "ipsec-mb".into(),
                run: ipsec.map(|p| {
                    per_packet(lengths.clone(), move |m| {
                        std::hint::black_box(p.seal_in_place(&iv, &aad, m));
                    })
                }),
            },
            harness::Case {
                name: "aekit ESP".into(),
                run: esp,
            },
        ];
        let r = harness::measure(&mut cases, total, effort.rounds);
        let mpps = |i: usize| r[i].map(|s| POOL as f64 / s.ns_per_op * 1e3);
        let cell = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.2}"));
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}×", a / b),
            _ => "–".into(),
        };
        // The framing's cost as a share of the call's time per packet.
        let framing = mpps(0).zip(mpps(2)).map(|(call, esp)| call / esp - 1.0);
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            mix.name(),
            cell(mpps(0)),
            cell(mpps(1)),
            ratio(mpps(0), mpps(1)),
            cell(mpps(2)),
            framing.map_or("–".into(), |f| format!("+{:.0}%", 100.0 * f)),
            ratio(mpps(2), mpps(1)),
        ));
        rows.push(json!({
            "mix": mix.name(),
            "aekit_call_mpps": mpps(0),
            "ipsec_mb_call_mpps": mpps(1),
            "esp_encapsulate_mpps": mpps(2),
            "framing_overhead": framing,
        }));
    }
    Report {
        key: "esp_floor",
        markdown: md,
        rows,
        plots: Vec::new(),
    }
}

/// Packets per second in a steady state (see the module header).
fn packet_rate(effort: Effort) -> Report {
    let (time, reps) = if effort.quick {
        (Duration::from_millis(100), 1)
    } else {
        (Duration::from_millis(300), 3)
    };
    // 1500-byte slots, buffers of 256 packets, 64 of history, on a thread.
    let pipeline = KeystreamSource::Pipeline(PipelineConfig::default());
    let inline = (
        "inline",
        NonceFormat::Rfc4106,
        KeystreamSource::Inline,
        false,
    );
    let inline_esn = (
        "inline, ESN",
        NonceFormat::Rfc4106,
        KeystreamSource::Inline,
        true,
    );
    let precompute = (
        "precompute",
        NonceFormat::ContinuousCounter,
        pipeline,
        false,
    );
    let worlds = [
        (Implementation::Best, vec![1, 2]),
        (
            Implementation::Strategies(aes::Strategy::Table, ghash::Strategy::Table8),
            vec![1],
        ),
        (
            Implementation::Strategies(aes::Strategy::Fixslice, ghash::Strategy::Karatsuba),
            vec![1],
        ),
    ];
    let default_name = Sa::new(&[0; 16], [0; 4], Config::default())
        .map(|sa| sa.implementation())
        .unwrap_or_else(|e| e.to_string());
    let mut md = format!(
        "## ESP packet rate (`aekit-bench esp`)\n\n\
         CPU: {}. Default implementation: {default_name}. In place, steady state over \
         {POOL} buffers per worker; {SAS} SAs sharded by SPI over the workers; \
         AES-128, 16-byte ICV. Gbit/s and GB/s count payload. \"precompute\": a CPU \
         producer thread per SA and direction, continuous counter (not RFC 4106); \
         its threads share the cores with the workers. \"burst\": one burst call per SA \
         per round of the pool. \"inline, ESN\": 64-bit extended sequence numbers \
         (12 bytes of AAD). \"vs inline\": against single inline calls.\n\n\
         | implementation | keystream | calls | workers | mix | direction | Mpps | Gbit/s | GB/s | vs inline | fallbacks |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
        harness::cpu_model()
    );
    let mut rows = Vec::new();
    for (implementation, worker_counts) in &worlds {
        let name = Sa::new(
            &[0; 16],
            [0; 4],
            Config {
                implementation: *implementation,
                ..Config::default()
            },
        )
        .map(|sa| sa.implementation())
        .unwrap_or_else(|e| e.to_string());
        for &workers in worker_counts {
            for mix in Mix::ALL {
                for direction in [Direction::Encapsulate, Direction::Decapsulate] {
                    let mut inline_pps = f64::NAN;
                    // Bursts for the default implementation, inline, and
                    // with extended sequence numbers on one worker.
                    let mut ways = vec![(inline, Calls::Single), (precompute, Calls::Single)];
                    if *implementation == Implementation::Best {
                        ways.push((inline, Calls::Burst));
                        if workers == 1 {
                            ways.push((inline_esn, Calls::Single));
                            ways.push((inline_esn, Calls::Burst));
                        }
                    }
                    for ((keystream_name, nonce, keystream, esn), calls) in ways {
                        let config = Config {
                            nonce,
                            keystream,
                            extended_sequence_numbers: esn,
                            implementation: *implementation,
                            ..Config::default()
                        };
                        let rate = measure(config, mix, (direction, calls), workers, time, reps);
                        if (keystream_name, calls) == ("inline", Calls::Single) {
                            inline_pps = rate.packets_per_s;
                        }
                        let direction_name = match direction {
                            Direction::Encapsulate => "encapsulate",
                            Direction::Decapsulate => "decapsulate",
                        };
                        let mpps = rate.packets_per_s / 1e6;
                        let gbit = rate.payload_bytes_per_s * 8.0 / 1e9;
                        let gbyte = rate.payload_bytes_per_s / 1e9;
                        let ratio = rate.packets_per_s / inline_pps;
                        md.push_str(&format!(
                            "| {name} | {keystream_name} | {} | {workers} | {} | {direction_name} | \
                             {mpps:.2} | {gbit:.2} | {gbyte:.2} | {ratio:.2}× | {:.1}% |\n",
                            calls.name(),
                            mix.name(),
                            100.0 * rate.fallback_share,
                        ));
                        rows.push(json!({
                            "implementation": name,
                            "keystream": keystream_name,
                            "calls": calls.name(),
                            "workers": workers,
                            "sas": SAS,
                            "mix": mix.name(),
                            "direction": direction_name,
                            "mpps": mpps,
                            "gbit_per_s": gbit,
                            "gb_per_s": gbyte,
                            "vs_inline": ratio,
                            "fallback_share": rate.fallback_share,
                        }));
                    }
                }
            }
        }
    }
    Report {
        key: "esp_packet_rate",
        markdown: md,
        rows,
        plots: Vec::new(),
    }
}

/// One SA encapsulating a pool of packets of `mix` in place, each in its
/// own buffer with headroom and tailroom (the harness's buffer unused).
fn esp_packets(key: &[u8], mix: Mix) -> Result<harness::Op<'static>, String> {
    let mut sa = Sa::new(key, [1, 2, 3, 4], Config::default()).map_err(|e| e.to_string())?;
    let head = sa.headroom();
    let mut packets: Vec<(Vec<u8>, usize)> = (0..POOL)
        .map(|i| {
            let len = mix.len(i);
            (vec![0x3c; head + len + sa.tailroom(len)], len)
        })
        .collect();
    Ok(Box::new(move |_: &mut [u8]| {
        for (buf, len) in &mut packets {
            let sealed = sa.encapsulate_in_place(buf, head..head + *len, 4);
            std::hint::black_box(sealed.expect("encapsulate").packet.end);
        }
    }))
}

/// One call of `seal` per packet of `lengths`, each cut from the
/// harness's buffer in turn.
fn per_packet(lengths: Vec<usize>, seal: impl Fn(&mut [u8]) + 'static) -> harness::Op<'static> {
    Box::new(move |buf: &mut [u8]| {
        let mut rest = buf;
        for &len in &lengths {
            let (m, tail) = core::mem::take(&mut rest).split_at_mut(len);
            seal(m);
            rest = tail;
        }
    })
}

/// Whole messages in 1024-byte packets, with the keystream computed inline
/// or precomputed under either nonce format, and what precomputing costs
/// in CPU time (see the module header).
fn messages(effort: Effort) -> Report {
    let sizes: &[usize] = if effort.quick {
        &[1, 10]
    } else {
        &[1, 10, 100]
    };
    let key = [0x5au8; 16];
    let mut md = format!(
        "## ESP over whole messages: precomputed keystream and its CPU time\n\n\
         CPU: {}. One SA; 1, 10 and 100 MiB of random data in {PACKET}-byte packets, \
         encapsulated into one arena, then decapsulated; MB/s = 10^6 payload bytes per second \
         of the packet thread's loop, median of the runs. \"precompute\": a producer thread \
         per SA and direction (buffers of 256 packets of up to 1500 bytes, history 64), with \
         RFC 4106 nonces (keystream per sequence number, padded to the largest packet) or the \
         continuous counter (the seed's, not RFC 4106). CPU s: every thread of the process \
         (packet thread and producer) during the loop; cores = CPU s / wall time; MB per \
         packet-thread CPU s: what the packet thread would do with a core to itself. Waste: \
         the share of produced keystream no packet used.\n\n\
         | world | size | keystream | direction | runs | MB/s | vs inline | CPU s | \
         packet thread CPU s | MB per packet-thread CPU s | cores | fallbacks | waste |\n\
         |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        harness::cpu_model()
    );
    let mut rows = Vec::new();
    for (world, aes, ghash) in fig3::worlds() {
        let precompute = fig3::config(Mode::Cpu, aes, ghash);
        let ways = [
            ("inline", fig3::config(Mode::Inline, aes, ghash)),
            (
                "precompute, RFC 4106",
                Config {
                    nonce: NonceFormat::Rfc4106,
                    ..precompute
                },
            ),
            ("precompute, continuous counter", precompute),
        ];
        for &mib in sizes {
            let data = harness::random_bytes(mib << 20, 42);
            let reps = if effort.quick {
                3
            } else {
                (32 / mib).clamp(1, 5)
            };
            let mut inline_wall = [f64::NAN; 2];
            for (keystream, config) in ways {
                let make =
                    |_: usize| Sa::new(&key, [1, 2, 3, 4], config).map_err(|e| e.to_string());
                let runs: Result<Vec<_>, String> = (0..reps)
                    .map(|_| fig3::round_trip(&make, 1, &data))
                    .collect();
                let runs = match runs {
                    Ok(runs) => runs,
                    Err(why) => {
                        md.push_str(&format!(
                            "| {world} | {mib} MiB | {keystream} | — | failed: {why} |||||||||\n"
                        ));
                        continue;
                    }
                };
                for (direction, name) in fig3::DIRECTIONS.iter().enumerate() {
                    let run = fig3::spread(&runs, direction).median;
                    if keystream == "inline" {
                        inline_wall[direction] = run.wall;
                    }
                    let bytes = data.len() as f64;
                    let rate = bytes / run.wall / 1e6;
                    // The scheduler's clock ticks coarsely: a loop
                    // shorter than a tick may show no CPU time at all.
                    let per_thread_cpu = (run.thread > 0.0).then(|| bytes / run.thread / 1e6);
                    let vs_inline = inline_wall[direction] / run.wall;
                    md.push_str(&format!(
                        "| {world} ({}+{}) | {mib} MiB | {keystream} | {name} | {reps} | {rate:.0} | \
                         {vs_inline:.2}× | {:.3} | {:.3} | {} | {:.2} | {} | {:.0}% |\n",
                        aes.name(),
                        ghash.name(),
                        run.process,
                        run.thread,
                        per_thread_cpu.map_or("–".into(), |r| format!("{r:.0}")),
                        run.process / run.wall,
                        run.stats.fallbacks(),
                        100.0 * run.stats.waste(),
                    ));
                    rows.push(json!({
                        "world": world,
                        "aes": aes.name(),
                        "ghash": ghash.name(),
                        "keystream": keystream,
                        "direction": name,
                        "message_bytes": data.len(),
                        "packet_bytes": PACKET,
                        "runs": reps,
                        "median_seconds": run.wall,
                        "mb_per_s": rate,
                        "speedup_vs_inline": vs_inline,
                        "process_cpu_seconds": run.process,
                        "packet_thread_cpu_seconds": run.thread,
                        "mb_per_packet_thread_cpu_second": per_thread_cpu,
                        "cores": run.process / run.wall,
                        "fallbacks": run.stats.fallbacks(),
                        "waste": run.stats.waste(),
                    }));
                }
            }
        }
    }
    Report {
        key: "esp_messages",
        markdown: md,
        rows,
        plots: Vec::new(),
    }
}
