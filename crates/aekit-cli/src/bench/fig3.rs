//! The ESP seed's benchmark (*GCM on the GPU for IPsec*, Fig. 3): 1, 10 and
//! 100 MB of random data in 1024-byte packets, encapsulated as ESP with
//! AES-GCM, the keystream computed inline (RFC 4106) or precomputed by a
//! producer (the seed's continuous counter).
//!
//! Two suites measure it. `--suite seeds` runs [`run`]: the seed's own
//! question with a CPU producer — a keystream thread on a spare core, which
//! the seed names as the alternative to its GPU — as runtimes with their
//! spread over repeated runs, the way the seed reports its figure.
//! `--suite gpu` (`gpu.rs`) adds a GPU producer and several SAs. Both use
//! the packet loop, the timing and the summary of this file.
//!
//! What is timed: the packet thread's loop over the whole message, one
//! `encapsulate_into` per 1024-byte chunk and a copy of the packet into one
//! arena (so the receiver can read them back); then, with fresh SAs, the
//! decapsulation of every packet, checked to deliver every byte. Wall-clock
//! time, and the packet thread's own CPU time beside it.

use std::time::Instant;

use aekit::esp::{Config, Implementation, KeystreamSource, NonceFormat, PipelineConfig, Sa};
use aekit::keystream::{PipelineStats, Schedule};
use aekit::{aes, ghash};
use aekit_harness as harness;
use serde_json::json;

use super::{Effort, Report, Series};

/// The seed's packet size: "chunks of 1024 Byte".
pub(crate) const PACKET: usize = 1024;
/// The seed's megabyte: 10^6 bytes.
pub(crate) const MB: usize = 1_000_000;

/// The strategy pairs measured: aekit's default on this CPU, `table` +
/// `table8` (T-table AES and 8-bit GHASH tables, the kind of code the
/// seed's LibTomCrypt ran on a CPU without AES instructions) and
/// `fixslice` + `karatsuba` (the constant-time portable pair).
pub(crate) fn worlds() -> [(&'static str, aes::Strategy, ghash::Strategy); 3] {
    [
        ("default", aes::Strategy::best(), ghash::Strategy::best()),
        ("table", aes::Strategy::Table, ghash::Strategy::Table8),
        (
            "fixslice",
            aes::Strategy::Fixslice,
            ghash::Strategy::Karatsuba,
        ),
    ]
}

/// Where the keystream comes from in an ESP run.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    /// RFC 4106: each packet computes its own keystream.
    Inline,
    /// A keystream thread per SA and direction (the seed's continuous
    /// counter).
    Cpu,
    /// The GPU service (the seed's continuous counter).
    Gpu,
}

impl Mode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Inline => "inline",
            Mode::Cpu => "cpu-producer",
            Mode::Gpu => "gpu-producer",
        }
    }
}

/// The SA configuration of `mode` over a strategy pair: buffers of 256
/// packets of up to 1500 bytes with a history of 64 for the producers.
pub(crate) fn config(mode: Mode, aes: aes::Strategy, ghash: ghash::Strategy) -> Config {
    Config {
        nonce: match mode {
            Mode::Inline => NonceFormat::Rfc4106,
            Mode::Cpu | Mode::Gpu => NonceFormat::ContinuousCounter,
        },
        keystream: match mode {
            Mode::Inline => KeystreamSource::Inline,
            Mode::Cpu | Mode::Gpu => KeystreamSource::Pipeline(PipelineConfig {
                max_payload: 1500,
                buffer_packets: 256,
                history_packets: 64,
                schedule: Schedule::Thread,
            }),
        },
        implementation: Implementation::Strategies(aes, ghash),
        ..Config::default()
    }
}

/// One direction's measurement.
#[derive(Clone, Copy)]
pub(crate) struct Run {
    pub(crate) wall: f64,
    /// CPU time of the packet thread alone.
    pub(crate) thread: f64,
    pub(crate) stats: PipelineStats,
}

impl Run {
    /// The loop that began at `t0` with the thread's CPU time at `thread0`,
    /// with the SAs' pipeline statistics added up.
    fn since(t0: Instant, thread0: f64, stats: impl Iterator<Item = PipelineStats>) -> Run {
        let mut total = PipelineStats::default();
        stats.for_each(|s| total.add(&s));
        Run {
            wall: t0.elapsed().as_secs_f64(),
            thread: thread_seconds() - thread0,
            stats: total,
        }
    }
}

/// Encapsulates all of `data` with `sas` sender SAs taking the packets in
/// turn, then decapsulates with as many receivers; each loop timed with
/// its SAs alive.
pub(crate) fn round_trip(
    make: &dyn Fn(usize) -> Result<Sa, String>,
    sas: usize,
    data: &[u8],
) -> Result<[Run; 2], String> {
    let mut senders = (0..sas).map(make).collect::<Result<Vec<_>, _>>()?;
    let mut arena = Vec::with_capacity(data.len() / PACKET * (PACKET + 64) + 4096);
    let mut ends = Vec::with_capacity(data.len() / PACKET + 1);
    let mut packet = Vec::with_capacity(PACKET + 64);
    let (thread0, t0) = (thread_seconds(), Instant::now());
    for (i, chunk) in data.chunks(PACKET).enumerate() {
        senders[i % sas]
            .encapsulate_into(chunk, 4, &mut packet)
            .map_err(|err| err.to_string())?;
        arena.extend_from_slice(&packet);
        ends.push(arena.len());
    }
    let encap = Run::since(t0, thread0, senders.iter().map(Sa::outbound_stats));
    drop(senders);

    let mut receivers = (0..sas).map(make).collect::<Result<Vec<_>, _>>()?;
    let mut payload = Vec::with_capacity(PACKET + 64);
    let mut delivered = 0;
    let (thread0, t0) = (thread_seconds(), Instant::now());
    let mut start = 0;
    for (i, &end) in ends.iter().enumerate() {
        receivers[i % sas]
            .decapsulate_into(&arena[start..end], &mut payload)
            .map_err(|err| err.to_string())?;
        delivered += payload.len();
        start = end;
    }
    let decap = Run::since(t0, thread0, receivers.iter().map(Sa::inbound_stats));
    if delivered != data.len() {
        return Err(format!("delivered {delivered} of {} bytes", data.len()));
    }
    Ok([encap, decap])
}

/// CPU time of the calling thread, in seconds.
fn thread_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(f64::NAN, |ns| ns as f64 / 1e9)
}

/// The repeats of one direction summarized: the median run (by wall time)
/// and the fastest and slowest wall times.
pub(crate) struct Spread {
    pub(crate) median: Run,
    pub(crate) fastest: f64,
    pub(crate) slowest: f64,
}

/// Summarizes `direction` (0: encapsulate, 1: decapsulate) over the runs.
pub(crate) fn spread(runs: &[[Run; 2]], direction: usize) -> Spread {
    let mut these: Vec<Run> = runs.iter().map(|r| r[direction]).collect();
    these.sort_by(|a, b| a.wall.total_cmp(&b.wall));
    Spread {
        median: these[these.len() / 2],
        fastest: these[0].wall,
        slowest: these[these.len() - 1].wall,
    }
}

/// The direction's name in the tables.
pub(crate) const DIRECTIONS: [&str; 2] = ["encapsulate", "decapsulate"];

/// How many times each size is run: the small sizes take milliseconds, so
/// many repeats are cheap and show the spread; 100 MB takes seconds.
fn repeats(mb: usize, quick: bool) -> usize {
    match (mb, quick) {
        (1, false) => 31,
        (10, false) => 9,
        (_, false) => 3,
        (1, true) => 9,
        (_, true) => 3,
    }
}

/// `--suite seeds`: the seed's Fig. 3 with a CPU producer, one SA.
pub(crate) fn run(effort: Effort) -> Vec<Report> {
    let sizes: &[usize] = if effort.quick {
        &[1, 10]
    } else {
        &[1, 10, 100]
    };
    let key = [0x5au8; 16];
    let mut md = String::from(
        "## The ESP seed's Fig. 3: 1, 10 and 100 MB in 1024-byte packets, CPU producer\n\n\
         One SA. inline: RFC 4106, each packet computes its keystream. cpu-producer: a \
         keystream thread per SA and direction on a spare core (the seed's continuous counter; \
         buffers of 256 packets of up to 1500 bytes, history 64). Runtime = wall time of the \
         packet thread's loop, median of the repeats; spread = slowest − fastest (the seed: \
         a thousand runs, variation around one millisecond). The seed's figure is encryption \
         (encapsulate); decapsulation is shown too. Seed: Intel Core i7 940, LibTomCrypt 1.17, \
         a GTX 480 as producer; its figure gives bars only, and its text says the precomputed \
         version is faster at every size and more than twice as fast with `LTC_FAST` and \
         SSE2.\n\n\
         | world | size | mode | direction | runs | runtime ms | spread ms (fastest–slowest) | \
         MB/s | vs inline | packet thread CPU s | fallbacks |\n\
         |---|---|---|---|---:|---:|---|---:|---:|---:|---:|\n",
    );
    let (mut rows, mut series) = (Vec::new(), Vec::new());
    for (world, aes, ghash) in worlds() {
        let mut curves: Vec<Series> = [Mode::Inline, Mode::Cpu]
            .iter()
            .map(|m| (format!("{world} {}", m.name()), Vec::new()))
            .collect();
        for &mb in sizes {
            let data = harness::random_bytes(mb * MB, 42);
            let reps = repeats(mb, effort.quick);
            let mut inline_wall = [f64::NAN; 2];
            for (m, mode) in [Mode::Inline, Mode::Cpu].into_iter().enumerate() {
                let cfg = config(mode, aes, ghash);
                let make =
                    |_: usize| Sa::new(&key, [1, 2, 3, 4], cfg).map_err(|err| err.to_string());
                let runs: Result<Vec<[Run; 2]>, String> =
                    (0..reps).map(|_| round_trip(&make, 1, &data)).collect();
                let runs = match runs {
                    Ok(runs) => runs,
                    Err(why) => {
                        md.push_str(&format!(
                            "| {world} | {mb} MB | {} | — | — | failed: {why} | | | | | |\n",
                            mode.name()
                        ));
                        continue;
                    }
                };
                for (direction, name) in DIRECTIONS.iter().enumerate() {
                    let s = spread(&runs, direction);
                    if mode == Mode::Inline {
                        inline_wall[direction] = s.median.wall;
                    }
                    let rate = data.len() as f64 / s.median.wall / 1e6;
                    md.push_str(&format!(
                        "| {world} ({}+{}) | {mb} MB | {} | {name} | {reps} | {:.1} | {:.1} ({:.1}–{:.1}) | {rate:.0} | {:.2}× | {:.3} | {} |\n",
                        aes.name(),
                        ghash.name(),
                        mode.name(),
                        1e3 * s.median.wall,
                        1e3 * (s.slowest - s.fastest),
                        1e3 * s.fastest,
                        1e3 * s.slowest,
                        inline_wall[direction] / s.median.wall,
                        s.median.thread,
                        s.median.stats.fallbacks(),
                    ));
                    rows.push(json!({
                        "world": world,
                        "aes": aes.name(),
                        "ghash": ghash.name(),
                        "mode": mode.name(),
                        "direction": name,
                        "message_bytes": data.len(),
                        "packet_bytes": PACKET,
                        "runs": reps,
                        "median_seconds": s.median.wall,
                        "fastest_seconds": s.fastest,
                        "slowest_seconds": s.slowest,
                        "mb_per_s": rate,
                        "speedup_vs_inline": inline_wall[direction] / s.median.wall,
                        "packet_thread_cpu_seconds": s.median.thread,
                        "fallbacks": s.median.stats.fallbacks(),
                    }));
                    if direction == 0 {
                        curves[m].1.push((data.len() as f64, rate / 1e3));
                    }
                }
            }
        }
        series.extend(curves);
    }
    vec![Report::with_sizes_plot("esp_fig3", md, rows, series)]
}
