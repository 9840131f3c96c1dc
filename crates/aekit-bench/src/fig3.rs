//! The ESP seed's benchmark (*GCM on the GPU for IPsec*, Fig. 3): 1, 10 and
//! 100 MB of random data in 1024-byte chunks, encrypted with AES-GCM whose
//! keystream is computed as usual or precomputed.
//!
//! `aekit-bench seeds` runs [`run`], which makes two tables:
//!
//! 1. Bare GCM, the seed's own figure ([`bare_gcm`]): the seed patched
//!    LibTomCrypt's AES-GCM to fetch encrypted counters from precomputed
//!    memory instead of encrypting them, and timed the encryption of every
//!    chunk. Here `stock` is `AesGcm::encrypt_in_place_detached` per chunk
//!    (96-bit IV salt ‖ be64(chunk index)); `precomputed` is
//!    `AesGcm::encrypt_with_keystream` per chunk over keystream that a
//!    `keystream::CpuProducer` wrote beforehand for the same counter
//!    blocks (`CounterSpace::PerPacket`, 65 blocks a chunk: Y_0 and 64
//!    blocks of data), so both give the same ciphertext and tag, which is
//!    checked. Producing the keystream is not in the runtime (the seed's
//!    GPU does it alongside); its time on one core is printed beside it.
//!    The two are run alternately, each run timed whole; the runtimes'
//!    median and spread (min, p5, p25, p75, p95, max) are reported, the
//!    way the seed reports a thousand runs.
//! 2. The ESP form ([`esp_form`]): the chunks encapsulated as ESP, the
//!    keystream computed inline (RFC 4106) or precomputed by a CPU
//!    producer — a keystream thread on a spare core, which the seed names
//!    as the alternative to its GPU (the seed's continuous counter).
//!
//! `aekit-bench gpu` (`gpu.rs`) adds a GPU producer and several SAs to the ESP
//! form, over the packet loop, the timing and the summary of this file.
//!
//! What the ESP form times: the packet thread's loop over the whole
//! message, one `encapsulate_into` per 1024-byte chunk and a copy of the
//! packet into one arena (so the receiver can read them back); then, with
//! fresh SAs, the decapsulation of every packet, checked to deliver every
//! byte. Wall-clock time, and the packet thread's own CPU time beside it.

use std::hint::black_box;
use std::num::NonZeroU32;
use std::time::Instant;

use aekit::esp::{Config, Implementation, KeystreamSource, NonceFormat, PipelineConfig, Sa};
use aekit::keystream::{CounterSpace, CpuProducer, KeystreamProducer, PipelineStats, Schedule};
use aekit::{AesGcm, aes, ghash};
use aekit_harness as harness;
use serde_json::json;

use crate::report::{Bars, Effort, Panel, Report, Series};

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
    /// CPU time of every thread of the process: the packet thread and the
    /// SAs' keystream producers.
    pub(crate) process: f64,
    pub(crate) stats: PipelineStats,
}

/// The clocks at the start of a loop: wall, the packet thread's CPU time
/// and the process's.
struct Start {
    t0: Instant,
    thread0: f64,
    process0: f64,
}

impl Start {
    fn now() -> Start {
        Start {
            thread0: thread_seconds(),
            process0: process_seconds(),
            t0: Instant::now(),
        }
    }
}

impl Run {
    /// The loop that began at `start`, with the SAs' pipeline statistics
    /// added up.
    fn since(start: Start, stats: impl Iterator<Item = PipelineStats>) -> Run {
        let wall = start.t0.elapsed().as_secs_f64();
        let mut total = PipelineStats::default();
        stats.for_each(|s| total.add(&s));
        Run {
            wall,
            thread: thread_seconds() - start.thread0,
            process: process_seconds() - start.process0,
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
    let start = Start::now();
    for (i, chunk) in data.chunks(PACKET).enumerate() {
        senders[i % sas]
            .encapsulate_into(chunk, 4, &mut packet)
            .map_err(|err| err.to_string())?;
        arena.extend_from_slice(&packet);
        ends.push(arena.len());
    }
    let encap = Run::since(start, senders.iter().map(Sa::outbound_stats));
    drop(senders);

    let mut receivers = (0..sas).map(make).collect::<Result<Vec<_>, _>>()?;
    let mut payload = Vec::with_capacity(PACKET + 64);
    let mut delivered = 0;
    let start = Start::now();
    let mut from = 0;
    for (i, &end) in ends.iter().enumerate() {
        receivers[i % sas]
            .decapsulate_into(&arena[from..end], &mut payload)
            .map_err(|err| err.to_string())?;
        delivered += payload.len();
        from = end;
    }
    let decap = Run::since(start, receivers.iter().map(Sa::inbound_stats));
    if delivered != data.len() {
        return Err(format!("delivered {delivered} of {} bytes", data.len()));
    }
    Ok([encap, decap])
}

/// CPU time of the calling thread, in seconds.
fn thread_seconds() -> f64 {
    schedstat_seconds("/proc/thread-self/schedstat".as_ref())
}

/// CPU time of every live thread of the process, in seconds.
fn process_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    tasks
        .flatten()
        .map(|task| schedstat_seconds(&task.path().join("schedstat")))
        .filter(|s| s.is_finite())
        .sum()
}

/// The first field of a schedstat file (ns on the CPU), in seconds; NaN
/// where there is none (off Linux).
fn schedstat_seconds(path: &std::path::Path) -> f64 {
    std::fs::read_to_string(path)
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

/// `aekit-bench seeds`: the seed's Fig. 3 as bare GCM, then in ESP.
pub(crate) fn run(effort: Effort) -> Vec<Report> {
    vec![bare_gcm(effort), esp_form(effort)]
}

/// The sizes measured, in MB: 100 MB only without `--quick`.
fn sizes_mb(quick: bool) -> &'static [usize] {
    if quick { &[1, 10] } else { &[1, 10, 100] }
}

/// The seed's run count for each size and keystream.
const SEED_RUNS: usize = 1000;

/// Seconds of runs (stock and precomputed together) allowed per world and
/// size, and the fewest runs: where [`SEED_RUNS`] pairs would take longer,
/// as many as fit are made.
fn run_budget(quick: bool) -> (f64, usize) {
    if quick { (0.25, 3) } else { (15.0, 5) }
}

/// Counter blocks each chunk owns in the precomputed keystream: Y_0 (the
/// tag mask) and the blocks of a whole chunk.
const CHUNK_BLOCKS: usize = 1 + PACKET / 16;

/// The salt of the bare-GCM IVs and counter blocks.
const SALT: [u8; 4] = [0xca, 0xfe, 0xba, 0xbe];

/// The 96-bit IV of chunk `i`: salt ‖ be64(i), RFC 4106's layout, so that
/// counter block j of the chunk is `CounterSpace::PerPacket`'s index
/// i · [`CHUNK_BLOCKS`] + j.
fn chunk_iv(i: usize) -> [u8; 12] {
    let mut iv = [0u8; 12];
    iv[..4].copy_from_slice(&SALT);
    iv[4..].copy_from_slice(&(i as u64).to_be_bytes());
    iv
}

/// The counter space of [`chunk_iv`]'s IVs.
fn chunk_space() -> CounterSpace {
    CounterSpace::PerPacket {
        salt: SALT,
        blocks_per_packet: NonZeroU32::new(CHUNK_BLOCKS as u32).expect("not zero"),
    }
}

/// Encrypts `data` in place chunk by chunk with `gcm`'s own AES; returns
/// the seconds taken.
fn stock_run(gcm: &AesGcm, data: &mut [u8]) -> Result<f64, String> {
    let t0 = Instant::now();
    for (i, chunk) in data.chunks_mut(PACKET).enumerate() {
        let tag = gcm
            .encrypt_in_place_detached(&chunk_iv(i), b"", chunk, 16)
            .map_err(|e| e.to_string())?;
        black_box(tag);
    }
    Ok(t0.elapsed().as_secs_f64())
}

/// Encrypts `data` in place chunk by chunk over the precomputed
/// `keystream` ([`CHUNK_BLOCKS`] blocks a chunk); returns the seconds
/// taken.
fn precomputed_run(gcm: &AesGcm, keystream: &[u8], data: &mut [u8]) -> Result<f64, String> {
    let t0 = Instant::now();
    for (chunk, stream) in data
        .chunks_mut(PACKET)
        .zip(keystream.chunks(16 * CHUNK_BLOCKS))
    {
        let tag = gcm
            .encrypt_with_keystream(stream, b"", chunk, 16)
            .map_err(|e| e.to_string())?;
        black_box(tag);
    }
    Ok(t0.elapsed().as_secs_f64())
}

/// Checks that the two ways give the same ciphertext and tag on the first
/// chunks of `data` (left as they were).
fn same_output(gcm: &AesGcm, keystream: &[u8], data: &[u8]) -> Result<(), String> {
    let stream = keystream.chunks(16 * CHUNK_BLOCKS);
    for (i, (chunk, stream)) in data.chunks(PACKET).zip(stream).take(16).enumerate() {
        let (mut a, mut b) = (chunk.to_vec(), chunk.to_vec());
        let ta = gcm
            .encrypt_in_place_detached(&chunk_iv(i), b"", &mut a, 16)
            .map_err(|e| e.to_string())?;
        let tb = gcm
            .encrypt_with_keystream(stream, b"", &mut b, 16)
            .map_err(|e| e.to_string())?;
        if a != b || ta.as_bytes() != tb.as_bytes() {
            return Err(format!("chunk {i}: precomputed output differs from stock"));
        }
    }
    Ok(())
}

/// Runtimes summarized: sorted seconds and their order statistics.
struct Quantiles {
    sorted: Vec<f64>,
}

impl Quantiles {
    fn new(mut times: Vec<f64>) -> Quantiles {
        assert!(!times.is_empty(), "at least one run");
        times.sort_by(f64::total_cmp);
        Quantiles { sorted: times }
    }

    /// The `p`-quantile (0 ≤ p ≤ 1) by nearest rank over the runs.
    fn at(&self, p: f64) -> f64 {
        let last = self.sorted.len() - 1;
        self.sorted[(p * last as f64).round() as usize]
    }

    /// (name, quantile) of the spread the tables print, in order.
    const POINTS: [(&'static str, f64); 7] = [
        ("min", 0.0),
        ("p5", 0.05),
        ("p25", 0.25),
        ("median", 0.5),
        ("p75", 0.75),
        ("p95", 0.95),
        ("max", 1.0),
    ];
}

/// `aekit-bench seeds`: the seed's Fig. 3 as it measured it, bare GCM over
/// 1024-byte chunks, stock against precomputed keystream.
fn bare_gcm(effort: Effort) -> Report {
    let key = [0x5au8; 16];
    let (budget, fewest) = run_budget(effort.quick);
    let mut md = format!(
        "## The ESP seed's Fig. 3 as bare GCM: 1, 10 and 100 MB in 1024-byte chunks, stock \
         against precomputed keystream\n\n\
         AES-128-GCM, no associated data, 16-byte tag, encrypted in place chunk by chunk. \
         stock: `encrypt_in_place_detached` (each chunk computes its keystream; IV = salt ‖ \
         be64(chunk)). precomputed: `encrypt_with_keystream` over keystream for the same counter \
         blocks written beforehand by `keystream::CpuProducer` (the seed's GPU computes it \
         alongside; here it is not in the runtime, and its time on one core is the last \
         column); the two give the same ciphertext and tags (checked). The two are run \
         alternately; runtime = one run over the whole message. Runs: the seed's {SEED_RUNS}, \
         or as many as fit in {budget} s per world and size (at least {fewest}) where \
         {SEED_RUNS} would take longer — the runs column says how many. Seed: Intel Core i7 \
         940, LibTomCrypt 1.17, a thousand runs, \"only sporadic outliers … with a variation \
         around one millisecond\"; its text says the precomputed version is faster at every \
         size, more than twice as fast with `LTC_FAST` and SSE2.\n\n\
         | world | size | keystream | runs | median ms | min | p5 | p25 | p75 | p95 | max | \
         MB/s | vs stock | precomputation ms, one core |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let data: Vec<(usize, Vec<u8>)> = sizes_mb(effort.quick)
        .iter()
        .map(|&mb| (mb, harness::random_bytes(mb * MB, 42)))
        .collect();
    let (mut rows, mut panels) = (Vec::new(), Vec::new());
    for (world, aes, ghash) in worlds() {
        let gcm = match world {
            "default" => AesGcm::new(&key),
            _ => AesGcm::with(&key, aes, ghash),
        };
        let gcm = match gcm {
            Ok(gcm) => gcm,
            Err(e) => {
                md.push_str(&format!("| {world} | — | — | — | failed: {e} |\n"));
                continue;
            }
        };
        let label = format!("{world} ({})", gcm.implementation());
        let names = ["stock", "precomputed"];
        let mut curves: Vec<Series> = names.map(|k| (k.to_string(), Vec::new())).to_vec();
        let mut bars: Vec<Bars> = names.map(|k| (k.to_string(), Vec::new())).to_vec();
        for (mb, plain) in &data {
            let mut buf = plain.clone();
            match measure_pair(&gcm, aes, &key, &mut buf, budget, fewest) {
                Ok(m) => {
                    let stock_median = m.times[0].at(0.5);
                    for (k, name) in ["stock", "precomputed"].into_iter().enumerate() {
                        let q = &m.times[k];
                        let median = q.at(0.5);
                        let rate = buf.len() as f64 / median / 1e6;
                        let cells: Vec<String> = Quantiles::POINTS
                            .iter()
                            .filter(|p| p.0 != "median")
                            .map(|p| format!("{:.2}", 1e3 * q.at(p.1)))
                            .collect();
                        let precompute = if k == 1 {
                            format!("{:.1}", 1e3 * m.precompute)
                        } else {
                            "—".into()
                        };
                        md.push_str(&format!(
                            "| {label} | {mb} MB | {name} | {} | {:.2} | {} | {rate:.0} | {:.2}× | {precompute} |\n",
                            m.runs,
                            1e3 * median,
                            cells.join(" | "),
                            stock_median / median,
                        ));
                        let mut row = json!({
                            "world": world,
                            "implementation": gcm.implementation(),
                            "aes": aes.name(),
                            "ghash": ghash.name(),
                            "keystream": name,
                            "message_bytes": buf.len(),
                            "chunk_bytes": PACKET,
                            "runs": m.runs,
                            "mb_per_s": rate,
                            "speedup_vs_stock": stock_median / median,
                            "precompute_seconds": (k == 1).then_some(m.precompute),
                        });
                        for (p, at) in Quantiles::POINTS {
                            row[format!("{p}_seconds")] = json!(q.at(at));
                        }
                        rows.push(row);
                        let bytes = buf.len() as f64;
                        curves[k].1.push((bytes, rate));
                        bars[k]
                            .1
                            .push((bytes, bytes / q.at(0.95) / 1e6, bytes / q.at(0.05) / 1e6));
                    }
                }
                Err(why) => {
                    md.push_str(&format!("| {label} | {mb} MB | — | — | failed: {why} |\n"));
                }
            }
        }
        panels.push(Panel {
            title: label,
            series: curves,
            spread: bars,
        });
    }
    Report::with_panels_plot("gcm_fig3", md, rows, "MB/s (median; bars p5–p95)", panels)
}

/// One world and size measured: the runtimes of each way (stock, then
/// precomputed), the runs of each, and the seconds one core took to
/// produce the keystream.
struct Pair {
    times: [Quantiles; 2],
    runs: usize,
    precompute: f64,
}

/// Precomputes the keystream of `data` with `aes`, checks it, then runs
/// stock and precomputed alternately: [`SEED_RUNS`] pairs, or as many as
/// fit in `budget` seconds (at least `fewest`), after one pair of warm-up.
fn measure_pair(
    gcm: &AesGcm,
    aes: aes::Strategy,
    key: &[u8],
    data: &mut [u8],
    budget: f64,
    fewest: usize,
) -> Result<Pair, String> {
    let chunks = data.len().div_ceil(PACKET);
    let mut producer = CpuProducer::new(aes, key).map_err(|e| e.to_string())?;
    let mut blocks = vec![[0u8; 16]; chunks * CHUNK_BLOCKS];
    // Twice, the second timed: the first maps the fresh pages.
    let mut precompute = 0.0;
    for _ in 0..2 {
        let t0 = Instant::now();
        producer
            .fill(&chunk_space(), 0, &mut blocks)
            .map_err(|e| e.to_string())?;
        precompute = t0.elapsed().as_secs_f64();
    }
    let keystream = blocks.as_flattened();
    same_output(gcm, keystream, data)?;
    let warm = stock_run(gcm, data)? + precomputed_run(gcm, keystream, data)?;
    let runs = ((budget / warm) as usize).clamp(fewest, SEED_RUNS);
    let (mut stock, mut pre) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        stock.push(stock_run(gcm, data)?);
        pre.push(precomputed_run(gcm, keystream, data)?);
    }
    Ok(Pair {
        times: [Quantiles::new(stock), Quantiles::new(pre)],
        runs,
        precompute,
    })
}

/// `aekit-bench seeds`: the seed's Fig. 3 in ESP with a CPU producer, one SA.
fn esp_form(effort: Effort) -> Report {
    let sizes = sizes_mb(effort.quick);
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
    let (mut rows, mut panels) = (Vec::new(), Vec::new());
    for (world, aes, ghash) in worlds() {
        let modes = [Mode::Inline, Mode::Cpu];
        let mut curves: Vec<Series> = modes.map(|m| (m.name().to_string(), Vec::new())).to_vec();
        let mut bars: Vec<Bars> = modes.map(|m| (m.name().to_string(), Vec::new())).to_vec();
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
                        let bytes = data.len() as f64;
                        curves[m].1.push((bytes, rate));
                        bars[m]
                            .1
                            .push((bytes, bytes / s.slowest / 1e6, bytes / s.fastest / 1e6));
                    }
                }
            }
        }
        panels.push(Panel {
            title: format!("{world} ({} + {})", aes.name(), ghash.name()),
            series: curves,
            spread: bars,
        });
    }
    Report::with_panels_plot(
        "esp_fig3",
        md,
        rows,
        "MB/s, encapsulation (median; bars fastest–slowest)",
        panels,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let q = Quantiles::new((1..=101).rev().map(f64::from).collect());
        assert_eq!(q.at(0.0), 1.0);
        assert_eq!(q.at(0.05), 6.0);
        assert_eq!(q.at(0.5), 51.0);
        assert_eq!(q.at(0.95), 96.0);
        assert_eq!(q.at(1.0), 101.0);
        assert_eq!(Quantiles::new(vec![2.0]).at(0.95), 2.0);
    }

    /// The precomputed keystream's counter blocks are the stock IV's: the
    /// two ways agree on a partial last chunk too.
    #[test]
    fn precomputed_keystream_matches_stock() {
        let key = [3u8; 16];
        let gcm = AesGcm::with(&key, aes::Strategy::Table, ghash::Strategy::Table4).unwrap();
        let data = harness::random_bytes(3 * PACKET + 100, 1);
        let mut producer = CpuProducer::new(aes::Strategy::Table, &key).unwrap();
        let mut blocks = vec![[0u8; 16]; 4 * CHUNK_BLOCKS];
        producer.fill(&chunk_space(), 0, &mut blocks).unwrap();
        same_output(&gcm, blocks.as_flattened(), &data).unwrap();
        let (mut a, mut b) = (data.clone(), data);
        stock_run(&gcm, &mut a).unwrap();
        precomputed_run(&gcm, blocks.as_flattened(), &mut b).unwrap();
        assert_eq!(a, b);
    }
}
