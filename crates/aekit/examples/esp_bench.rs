//! The seed's benchmark re-made (*GCM on the GPU for IPsec*, Fig. 3):
//! 1, 10 and 100 MiB of random data in 1024-byte packets, encapsulated and
//! decapsulated as ESP, with the keystream computed inline, precomputed
//! per sequence number (RFC 4106), or precomputed as one continuous
//! counter (the seed's modified nonce, not RFC 4106).
//!
//!     cargo run --release --example esp_bench -- [--quick]
//!
//! Three worlds: aekit's default strategies (AES-NI + PCLMULQDQ where the
//! CPU has them), `table` + `table8` (T-table AES and 8-bit GHASH tables,
//! what a CPU without AES instructions runs fastest, as the seed's did),
//! and `fixslice` + `karatsuba` (the constant-time portable pair).
//!
//! Reported per run: the packet thread's throughput (payload bytes over
//! the wall time of the loop), the CPU time of the whole process during
//! the loop (every thread's run time from /proc/self/task/*/schedstat, in
//! ns), the packet thread's own CPU time and the throughput that makes
//! (what the thread would do with a core to itself), the cores used
//! (CPU / wall), the packets that fell back to
//! inline keystream, and the share of produced keystream nobody used. The
//! packet loop also copies each packet into one arena (encapsulate) — the
//! same for every mode. Sizes of 1 and 10 MiB are run several times and
//! the median is shown. `--quick` stops at 10 MiB.

use std::time::Instant;

use aekit::esp::{Config, Implementation, KeystreamSource, NonceFormat, PipelineConfig, Sa};
use aekit::keystream::{PipelineStats, Schedule};
use aekit::{aes, ghash};

const PACKET: usize = 1024;
const MIB: usize = 1 << 20;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let sizes: &[usize] = if quick { &[1, 10] } else { &[1, 10, 100] };
    let worlds = [
        (aes::Strategy::best(), ghash::Strategy::best()),
        (aes::Strategy::Table, ghash::Strategy::Table8),
        (aes::Strategy::Fixslice, ghash::Strategy::Karatsuba),
    ];
    let pipeline = KeystreamSource::Pipeline(PipelineConfig {
        max_payload: 1500,
        buffer_packets: 256,
        history_packets: 64,
        schedule: Schedule::Thread,
    });
    let modes = [
        ("inline", NonceFormat::Rfc4106, KeystreamSource::Inline),
        ("pipeline-standard", NonceFormat::Rfc4106, pipeline),
        (
            "pipeline-continuous",
            NonceFormat::ContinuousCounter,
            pipeline,
        ),
    ];
    println!("cpu: {}", cpu_model());
    println!(
        "packets of {PACKET} bytes; MB/s = 10^6 payload bytes per second of the packet thread\n"
    );
    println!(
        "| strategies | size | mode | direction | MB/s | vs inline | CPU s (all) | packet thread CPU s | MB per packet-thread CPU s | cores | fallbacks | waste |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let key = [0x5au8; 16];
    let salt = [1, 2, 3, 4];
    for (aes, ghash) in worlds {
        for &mib in sizes {
            let data = aekit_harness::random_bytes(mib * MIB, 42);
            let reps = (32 / mib).clamp(1, 5);
            let mut inline_rate = [0.0f64; 2];
            for (mode, nonce, keystream) in modes {
                let config = Config {
                    nonce,
                    keystream,
                    implementation: Implementation::Strategies(aes, ghash),
                    ..Config::default()
                };
                let mut runs: Vec<[Run; 2]> = (0..reps)
                    .map(|_| round_trip(&key, salt, config, &data))
                    .collect();
                for direction in 0..2 {
                    runs.sort_by(|a, b| a[direction].wall.total_cmp(&b[direction].wall));
                    let run = &runs[reps / 2][direction];
                    let rate = data.len() as f64 / run.wall / 1e6;
                    if mode == "inline" {
                        inline_rate[direction] = rate;
                    }
                    println!(
                        "| {}+{} | {mib} MiB | {mode} | {} | {rate:.0} | {:.2}× | {:.3} | {:.3} | {:.0} | {:.2} | {} | {:.0}% |",
                        aes.name(),
                        ghash.name(),
                        ["encapsulate", "decapsulate"][direction],
                        rate / inline_rate[direction],
                        run.cpu,
                        run.thread,
                        data.len() as f64 / run.thread / 1e6,
                        run.cpu / run.wall,
                        run.stats.fallbacks(),
                        100.0 * run.stats.waste(),
                    );
                }
            }
        }
    }
}

/// One direction's measurement.
struct Run {
    wall: f64,
    cpu: f64,
    /// CPU time of the packet thread alone.
    thread: f64,
    stats: PipelineStats,
}

/// Encapsulates all of `data` with one SA and decapsulates it with another;
/// each loop timed with both its SA alive (so its producer thread's CPU
/// time is still on the books).
fn round_trip(key: &[u8], salt: [u8; 4], config: Config, data: &[u8]) -> [Run; 2] {
    let mut sender = Sa::new(key, salt, config).expect("SA");
    let mut arena = Vec::with_capacity(data.len() / PACKET * (PACKET + 64) + 4096);
    let mut ends = Vec::with_capacity(data.len() / PACKET + 1);
    let mut packet = Vec::with_capacity(PACKET + 64);
    let (cpu0, thread0, t0) = (cpu_seconds(), thread_seconds(), Instant::now());
    for chunk in data.chunks(PACKET) {
        sender
            .encapsulate_into(chunk, 4, &mut packet)
            .expect("encapsulate");
        arena.extend_from_slice(&packet);
        ends.push(arena.len());
    }
    let encap = Run {
        wall: t0.elapsed().as_secs_f64(),
        cpu: cpu_seconds() - cpu0,
        thread: thread_seconds() - thread0,
        stats: sender.outbound_stats(),
    };
    drop(sender);

    let mut receiver = Sa::new(key, salt, config).expect("SA");
    let mut payload = Vec::with_capacity(PACKET + 64);
    let mut delivered = 0;
    let (cpu0, thread0, t0) = (cpu_seconds(), thread_seconds(), Instant::now());
    let mut start = 0;
    for &end in &ends {
        receiver
            .decapsulate_into(&arena[start..end], &mut payload)
            .expect("decapsulate");
        delivered += payload.len();
        start = end;
    }
    let decap = Run {
        wall: t0.elapsed().as_secs_f64(),
        cpu: cpu_seconds() - cpu0,
        thread: thread_seconds() - thread0,
        stats: receiver.inbound_stats(),
    };
    assert_eq!(delivered, data.len());
    assert_eq!(payload, data[data.len() - payload.len()..], "last packet");
    [encap, decap]
}

/// CPU time of the calling thread, in seconds.
fn thread_seconds() -> f64 {
    schedstat_seconds("/proc/thread-self/schedstat")
}

fn schedstat_seconds(path: &str) -> f64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(f64::NAN, |ns| ns as f64 / 1e9)
}

/// CPU time of every live thread of this process, in seconds
/// (/proc/self/task/*/schedstat: the first field is ns on the CPU).
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut ns = 0u64;
    for task in tasks.flatten() {
        let path = task.path().join("schedstat");
        let seconds = schedstat_seconds(&path.to_string_lossy());
        if seconds.is_finite() {
            ns += (seconds * 1e9) as u64;
        }
    }
    ns as f64 / 1e9
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            let model = text
                .lines()
                .find(|l| l.starts_with("model name"))?
                .split(':')
                .nth(1)?
                .trim()
                .to_string();
            let cores = text.lines().filter(|l| l.starts_with("processor")).count();
            Some(format!("{model}, {cores} logical cores"))
        })
        .unwrap_or_else(|| "unknown".into())
}
