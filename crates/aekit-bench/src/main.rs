//! `aekit-bench`: every benchmark of aekit, in suites, each measured in
//! one run on this machine and printed as markdown.
//!
//! ```text
//! cargo run --release -p aekit-bench -- peers --quick --json out.json --plot plots/
//! cargo run --release -p aekit-bench -- ct --measurements 100000 --fail-at 10
//! ```
//!
//! `peers` (`peers.rs`, `cores.rs`): aekit's AES-GCM beside the best
//! libraries.
//!
//! 1. One core (`peers.rs`): every aekit implementation class this CPU
//!    runs beside aws-lc-rs, ring, RustCrypto's `aes-gcm`, OpenSSL and
//!    Intel's ipsec-mb (`ipsec_mb.rs`, `c/ipsec_mb.c`),
//!    encrypt and decrypt, 16 B to 1 MiB, AES-128 and AES-256, each row's
//!    ratio to the best peer, and a summary.
//! 2. Many cores (`cores.rs`): one message of 1, 16 and 256 MiB on one
//!    thread and split across a pool of 2 threads and of every core
//!    (alone: `cores`).
//!
//! `api` (`api.rs`): the default kernel called each way a user calls it,
//! Rust in place and out of place and the C ABI, beside Intel ipsec-mb's
//! direct calls, 16 B to 1 MiB with 16 bytes of AAD.
//!
//! `seeds`: the seeds' measurements re-made on this machine, each table
//! printed beside the seed's own figures.
//!
//! 1. GCM spec Table 1 (`ghash.rs`): every GHASH strategy's key-dependent
//!    storage, cycles per byte over 8 KiB, and table construction per key.
//! 2. The table blog's 10 MiB table (`blog.rs`): AES-GCM encrypt+decrypt
//!    with the 0-, 1-, 4- and 8-bit tables — seconds, TSC cycles, heap bytes.
//! 3. The Cortex-M4 tables (`m4.rs`): GCTR with FACE, GHASH with the seed's
//!    256-byte 4-bit table (`shoup4`) against karatsuba, and full GCM, at 1,
//!    4, 20 and 40 KiB for AES-128 and -256.
//! 4. GCM spec Table 3 (`modes.rs`): cycles per byte of GCM at each storage
//!    size beside CCM, EAX, OCB3 and CBC-HMAC-SHA1; the GCM rows again over
//!    `table`, `fixslice` and `ni` AES, and which of the spec's orderings
//!    reproduce with each.
//! 5. The ESP seed's Fig. 3 (`fig3.rs`): 1, 10 and 100 MB in 1024-byte
//!    chunks, as bare GCM (stock against precomputed keystream, up to the
//!    seed's thousand runs) and as ESP packets (inline keystream against a
//!    CPU producer), runtimes with their spread over repeated runs.
//!
//! `ct` (`ct.rs`): a statistical timing test (dudect: Welch's t on fixed
//! against random key, plaintext and wrong-tag position) of every
//! implementation called constant time, with a verdict for each, and a
//! table-driven control that must fail.
//!
//! `batch` (`batch.rs`): the AES-GCM and AETHER batch APIs beside
//! one-message calls and peers (AEGIS-256 for AETHER), 1 to 1024 messages
//! of 64, 576, 1500 bytes and an IMIX mix.
//!
//! `esp` (`esp.rs`): ESP packet rate in Mpps and Gbit/s, 64 B to 1500 B
//! and IMIX, in place, inline and precomputed keystream, 1 and 2 workers;
//! then whole messages of 1 to 100 MiB in 1024-byte packets, keystream
//! inline or precomputed per sequence number (RFC 4106) or as one
//! continuous counter, with the CPU time the producers cost.
//!
//! `aether` (`aether.rs`): AETHER encryption in every implementation this
//! CPU runs beside AEGIS-256, Ascon-AEAD128 and AES-256-GCM, 64 B to 1 MiB.
//!
//! `aether-analysis` (`aether_analysis.rs`): the AETHER paper's design
//! tables (S-box, branch numbers, inner function, round-update search,
//! initialization bounds) recomputed from the pinned specification beside
//! the paper's figures.
//!
//! `gpu` (`gpu.rs`): the GPU keystream producer, and the ESP seed's Fig. 3
//! re-made with a GPU (over `fig3.rs`'s packet loop).
//!
//! `prefixes` (`prefixes.rs`): fixed IV and AAD prefixes hashed once
//! (`IvPrefix`, `AadPrefix`) against the same messages hashed whole.
//!
//! The table suites share `report.rs` (effort, reports, `--json`,
//! `--plot`) and `plot.rs`; timing is `aekit-harness`'s. The Python
//! binding is measured against `cryptography` by `python/bench.py`.
#![deny(unsafe_code)]

mod aether;
mod aether_analysis;
mod api;
mod batch;
mod blog;
mod c_abi;
mod cores;
mod ct;
mod esp;
mod fig3;
mod ghash;
mod gpu;
mod ipsec_mb;
mod m4;
mod modes;
mod peers;
mod plot;
mod prefixes;
mod report;
mod runner;
mod seeds;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use aekit_harness as harness;
use clap::{Args, Parser, Subcommand};

use runner::Outputs;

/// Counts heap bytes, for the blog table's heap column (`seeds`).
#[global_allocator]
static ALLOCATOR: harness::CountingAlloc = harness::CountingAlloc;

/// How to measure the Python binding, which this binary does not.
const PYTHON: &str = "\
The Python binding against `cryptography` (in a virtual environment with
`pip install ./bindings/python cryptography`):
  python crates/aekit-bench/python/bench.py [--key-bits 256] [--threads 0] [--rounds N]";

#[derive(Parser)]
#[command(
    name = "aekit-bench",
    version,
    about = "aekit's benchmarks: every suite measures on this machine, in one run, \
             and prints markdown (TSC cycles, GB/s, the CPU)",
    after_help = PYTHON,
    subcommand_value_name = "SUITE",
    subcommand_help_heading = "Suites"
)]
struct Cli {
    #[command(subcommand)]
    suite: Suite,
}

#[derive(Subcommand)]
enum Suite {
    /// aekit's AES-GCM beside aws-lc-rs, ring, aes-gcm, OpenSSL and ipsec-mb, one core and many.
    Peers(Plotted),
    /// The seed papers' tables re-measured, each beside the seed's figures.
    Seeds(Plotted),
    /// One message on many cores (the multi-core rows of `peers` alone).
    Cores(Tables),
    /// AES-GCM called each way (Rust in place and out of place, the C ABI) beside ipsec-mb.
    Api(Api),
    /// Statistical timing test (dudect) of every constant-time implementation.
    Ct(Ct),
    /// Many messages per call: the AES-GCM and AETHER batch APIs beside peers.
    Batch(Plotted),
    /// ESP packet rate (Mpps, Gbit/s), and whole messages with precomputed keystream.
    Esp(Tables),
    /// AETHER beside AEGIS-256, Ascon-AEAD128 and AES-256-GCM.
    Aether,
    /// AETHER's design tables recomputed from the specification (no timings).
    AetherAnalysis(Tables),
    /// The GPU keystream producer, and the ESP seed's Fig. 3 with a GPU.
    Gpu(Quick),
    /// Fixed IV and AAD prefixes hashed once against messages hashed whole.
    Prefixes,
}

/// The options of the suites that print tables.
#[derive(Args)]
struct Tables {
    /// Fewer rounds per measurement (and no 256 MiB or 100 MB message): a
    /// whole suite in about a minute.
    #[arg(long)]
    quick: bool,
    /// Also write every row as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// The options of `api`.
#[derive(Args)]
struct Api {
    #[command(flatten)]
    tables: Tables,
    /// Message sizes in bytes, comma-separated (for example
    /// `240,256,272`), instead of 16 B, 64 B, 256 B, 576 B, 1500 B, 16 KiB
    /// and 1 MiB.
    #[arg(long, value_name = "BYTES", value_delimiter = ',', value_parser = message_size)]
    sizes: Option<Vec<usize>>,
}

/// A message size of `--sizes`: bytes, at most 256 MiB.
fn message_size(text: &str) -> Result<usize, String> {
    const MAX: usize = 256 << 20;
    match text.trim().parse::<usize>() {
        Ok(n) if n <= MAX => Ok(n),
        Ok(_) => Err(format!("at most {MAX} bytes (256 MiB)")),
        Err(e) => Err(format!("a number of bytes: {e}")),
    }
}

/// The options of the suites that also draw.
#[derive(Args)]
struct Plotted {
    #[command(flatten)]
    tables: Tables,
    /// Also draw PNG plots of throughput into DIR: against message size
    /// (`seeds`, `peers`) or against messages a batch (`batch`).
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
}

/// The options of `gpu`, which writes markdown only.
#[derive(Args)]
struct Quick {
    /// Fewer repeats, and no 100 MB message.
    #[arg(long)]
    quick: bool,
}

/// The options of `ct`.
#[derive(Args)]
struct Ct {
    /// Measurements per test and implementation (default 1000000; 100000
    /// with `--quick`).
    #[arg(long, value_name = "N")]
    measurements: Option<u64>,
    /// Stop each test after S seconds if its measurements are not made by
    /// then.
    #[arg(long, value_name = "S")]
    max_seconds: Option<f64>,
    /// Fail (exit status 1) when a constant-time implementation reaches
    /// this |t| (at least 4.5, the verdict's threshold; a higher value
    /// tolerates the noise of short runs).
    #[arg(long, value_name = "T", default_value_t = 4.5)]
    fail_at: f64,
    /// Test only the implementations whose name contains NAME (for example
    /// `fixslice/rd0`), to re-run one at length.
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
    /// 100000 measurements unless `--measurements` says otherwise.
    #[arg(long)]
    quick: bool,
    /// Also write every row as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

impl Tables {
    fn outputs(&self) -> Outputs<'_> {
        Outputs {
            quick: self.quick,
            json: self.json.as_deref(),
            plot: None,
        }
    }
}

impl Plotted {
    fn outputs(&self) -> Outputs<'_> {
        Outputs {
            plot: self.plot.as_deref(),
            ..self.tables.outputs()
        }
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        // `println!` panics when standard output fails: a closed pipe (as
        // in `aekit-bench peers | head`) ends the run quietly with the
        // status a shell gives a command SIGPIPE ended, anything else
        // with one line.
        let text = info.payload().downcast_ref::<String>().map(String::as_str);
        match text.and_then(|t| t.strip_prefix("failed printing to stdout: ")) {
            Some(e) if e.starts_with("Broken pipe") => std::process::exit(141),
            Some(e) => {
                let _ = writeln!(io::stderr(), "aekit-bench: writing standard output: {e}");
                std::process::exit(1);
            }
            None => eprintln!("aekit-bench: internal error: {info}"),
        }
    }));
    let result = match Cli::parse().suite {
        Suite::Peers(args) => runner::run("peers", &[&peers::run, &cores::run], &args.outputs()),
        Suite::Seeds(args) => runner::run(
            "seeds",
            &[&ghash::run, &blog::run, &m4::run, &modes::run, &fig3::run],
            &args.outputs(),
        ),
        Suite::Cores(args) => runner::run("cores", &[&cores::run], &args.outputs()),
        Suite::Api(args) => {
            let sizes = args.sizes.as_deref().unwrap_or(&api::SIZES);
            runner::run(
                "api",
                &[&|effort| api::run(effort, sizes)],
                &args.tables.outputs(),
            )
        }
        Suite::Batch(args) => runner::run("batch", &[&batch::run], &args.outputs()),
        Suite::Esp(args) => runner::run("esp", &[&esp::run], &args.outputs()),
        Suite::AetherAnalysis(args) => {
            runner::run("aether-analysis", &[&aether_analysis::run], &args.outputs())
        }
        Suite::Ct(args) => ct::run(
            args.measurements
                .unwrap_or(if args.quick { 100_000 } else { 1_000_000 }),
            args.max_seconds,
            args.fail_at,
            args.only.as_deref(),
            args.quick,
            args.json.as_deref(),
        ),
        Suite::Gpu(args) => gpu::run(args.quick),
        Suite::Aether => {
            aether::run();
            Ok(())
        }
        Suite::Prefixes => {
            prefixes::run();
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aekit-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
