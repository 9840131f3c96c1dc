//! `aekit bench`: measurements any user can re-make on their own machine,
//! in suites.
//!
//! `--suite seeds`: the seeds' measurements re-made on this machine, each
//! table printed beside the seed's own figures.
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
//! `--suite peers`: aekit's AES-GCM beside the best libraries.
//!
//! 1. One core (`peers.rs`): every aekit implementation class this CPU
//!    runs beside aws-lc-rs, ring, RustCrypto's `aes-gcm` and OpenSSL,
//!    encrypt and decrypt, 16 B to 1 MiB, AES-128 and AES-256, each row's
//!    ratio to the best peer, and a summary.
//! 2. Many cores (`cores.rs`): one message of 1, 16 and 256 MiB on one
//!    thread and split across a pool of 2 threads and of every core
//!    (alone: `--suite cores`).
//!
//! `--suite ct` (`ct.rs`): a statistical timing test (dudect: Welch's t
//! on fixed against random key, plaintext and wrong-tag position) of every
//! implementation called constant time, with a verdict for each, and a
//! table-driven control that must fail.
//!
//! `--suite batch` (`batch.rs`): the AES-GCM and AETHER batch APIs beside
//! one-message calls and peers (AEGIS-256 for AETHER), 1 to 1024 messages
//! of 64, 576, 1500 bytes and an IMIX mix.
//!
//! `--suite esp` (`esp.rs`): ESP packet rate in Mpps and Gbit/s, 64 B to
//! 1500 B and IMIX, in place, inline and precomputed keystream, 1 and 2
//! workers.
//!
//! `--suite aether-analysis` (`aether_analysis.rs`): the AETHER paper's
//! design tables (S-box, branch numbers, inner function, round-update
//! search, initialization bounds) recomputed from the pinned specification
//! beside the paper's figures.
//!
//! `--suite gpu` (`gpu.rs`): the GPU keystream producer, the ESP seed's
//! Fig. 3 re-made with a GPU (over `fig3.rs`'s packet loop).
//!
//! Timing is the shared harness's (`aekit-harness`): cases interleaved,
//! best batch of N, cycles read from the time-stamp counter — a
//! constant-rate clock, not the core's, so the tables say *TSC cycles*.
//! `--quick` takes fewer rounds (the blog's table once; no 256 MiB
//! message, no 100 MB ESP message, fewer ESP repeats); the tables and their
//! other rows are the same. Output:
//! markdown on stdout, `--json FILE` for machines, `--plot DIR` for PNG
//! plots of throughput against message size (`seeds`, `peers`) or against
//! messages a batch (`batch`: one plot per mix and table), in panels where
//! lines' scales differ too much for one (`plot.rs`).

mod aether_analysis;
mod batch;
mod blog;
mod cores;
mod ct;
mod esp;
mod fig3;
mod ghash;
mod gpu;
mod m4;
mod modes;
mod peers;
mod plot;
mod seeds;

use std::path::PathBuf;

use aekit_harness as harness;
use serde_json::{Value, json};

/// The options of `aekit bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The suite to run: `seeds`, the seed papers' tables re-measured, or
    /// `peers`, aekit's AES-GCM beside aws-lc-rs, ring, aes-gcm and OpenSSL
    /// (and one message on many cores), `cores`, the many-core rows alone,
    /// `batch`, many messages per call (AES-GCM and AETHER batch APIs),
    /// `esp`, ESP packet rate (Mpps, Gbit/s), `gpu`, the GPU keystream
    /// producer (the ESP seed's Fig. 3 with a GPU), `ct`, the statistical
    /// timing test of the constant-time implementations, or
    /// `aether-analysis`, AETHER's design tables recomputed.
    #[arg(long, value_name = "NAME", default_value = "seeds")]
    pub suite: String,
    /// Fewer rounds per measurement (and no 256 MiB or 100 MB message): a
    /// whole suite in about a minute.
    #[arg(long)]
    pub quick: bool,
    /// Also write every row as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also draw PNG plots of throughput into DIR: against message size
    /// (`seeds`, `peers`) or against messages a batch (`batch`).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// `--suite ct`: measurements per test and implementation (default
    /// 1000000; 100000 with `--quick`).
    #[arg(long, value_name = "N")]
    pub measurements: Option<u64>,
    /// `--suite ct`: stop each test after S seconds if its measurements
    /// are not made by then.
    #[arg(long, value_name = "S")]
    pub max_seconds: Option<f64>,
    /// `--suite ct`: fail (exit status 1) when a constant-time
    /// implementation reaches this |t| (at least 4.5, the verdict's
    /// threshold; a higher value tolerates the noise of short runs).
    #[arg(long, value_name = "T", default_value_t = 4.5)]
    pub fail_at: f64,
    /// `--suite ct`: test only the implementations whose name contains
    /// NAME (for example `fixslice/rd0`), to re-run one at length.
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
}

/// How hard to measure.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Effort {
    /// Interleaved rounds per case (best kept).
    pub(crate) rounds: usize,
    /// Whole runs of the 10 MiB blog table (best kept).
    pub(crate) blog_runs: usize,
    /// `--quick` was given.
    pub(crate) quick: bool,
}

/// The message and packet sizes the `batch` and `esp` suites measure: one
/// length, or IMIX (7 × 64, 4 × 576, 1 × 1500 bytes in every 12,
/// interleaved so that no run of one size dominates a stretch of a loop).
#[derive(Clone, Copy)]
pub(crate) enum Mix {
    Fixed(usize),
    Imix,
}

/// The IMIX order.
const IMIX: [usize; 12] = [64, 576, 64, 576, 64, 1500, 64, 576, 64, 576, 64, 64];

impl Mix {
    pub(crate) const ALL: [Mix; 4] = [Mix::Fixed(64), Mix::Fixed(576), Mix::Fixed(1500), Mix::Imix];

    pub(crate) fn name(self) -> String {
        match self {
            Mix::Fixed(n) => format!("{n} B"),
            Mix::Imix => "IMIX 7:4:1".into(),
        }
    }

    /// The length of message `i`.
    pub(crate) fn len(self, i: usize) -> usize {
        match self {
            Mix::Fixed(n) => n,
            Mix::Imix => IMIX[i % IMIX.len()],
        }
    }

    /// The lengths of `n` messages.
    pub(crate) fn lengths(self, n: usize) -> Vec<usize> {
        (0..n).map(|i| self.len(i)).collect()
    }
}

/// The suites: name, the tables each runs in order, and whether any of
/// them draws a plot (`--plot` is refused up front where none does).
type Table = fn(Effort) -> Vec<Report>;
const SUITES: [(&str, &[Table], bool); 6] = [
    (
        "seeds",
        &[ghash::run, blog::run, m4::run, modes::run, fig3::run],
        true,
    ),
    ("peers", &[peers::run, cores::run], true),
    // The multi-core rows of `peers` alone, to repeat them cheaply.
    ("cores", &[cores::run], false),
    // Many messages per call: the batch APIs beside one-message calls.
    ("batch", &[batch::run], true),
    // ESP packet rate (`esp.rs`).
    ("esp", &[esp::run], false),
    // AETHER's design tables recomputed: exact searches, not timings.
    ("aether-analysis", &[aether_analysis::run], false),
];

/// One table's results: markdown for people, JSON rows for machines, and
/// its plots.
pub(crate) struct Report {
    pub(crate) key: &'static str,
    pub(crate) markdown: String,
    pub(crate) rows: Vec<Value>,
    pub(crate) plots: Vec<Plot>,
}

/// A plotted line: its name and its points (x, y).
pub(crate) type Series = (String, Vec<(f64, f64)>);

/// A line's spread: its name and, at each x, the low and high ends of a
/// bar drawn across the line.
pub(crate) type Bars = (String, Vec<(f64, f64, f64)>);

/// What a plot's x axis counts, with its description.
pub(crate) enum XAxis {
    /// Bytes, labelled as readers name them (`64 B`, `1 KiB`, `100 MB`).
    Bytes(&'static str),
    /// A plain count.
    Count(&'static str),
}

/// One panel of a plot: its title (empty for none), its lines and their
/// spread. Each panel has its own y scale (`plot.rs`).
pub(crate) struct Panel {
    pub(crate) title: String,
    pub(crate) series: Vec<Series>,
    pub(crate) spread: Vec<Bars>,
}

impl Panel {
    /// A panel of lines without spread.
    pub(crate) fn new(title: impl Into<String>, series: Vec<Series>) -> Panel {
        Panel {
            title: title.into(),
            series,
            spread: Vec::new(),
        }
    }
}

/// One PNG (`DIR/<name>.png`): `y_desc` against `x` on a log scale, in
/// panels side by side, a line per series; the CPU model is added to
/// `title`.
pub(crate) struct Plot {
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) x: XAxis,
    pub(crate) y_desc: &'static str,
    pub(crate) panels: Vec<Panel>,
}

impl Report {
    /// A table with its plot of GB/s against message size, one panel,
    /// named after its key (none if nothing was measured).
    pub(crate) fn with_sizes_plot(
        key: &'static str,
        markdown: String,
        rows: Vec<Value>,
        series: Vec<Series>,
    ) -> Report {
        Report::with_panels_plot(key, markdown, rows, "GB/s", vec![Panel::new("", series)])
    }

    /// A table with its plot of `y_desc` against message size in `panels`,
    /// named after its key (none if nothing was measured).
    pub(crate) fn with_panels_plot(
        key: &'static str,
        markdown: String,
        rows: Vec<Value>,
        y_desc: &'static str,
        panels: Vec<Panel>,
    ) -> Report {
        Report {
            key,
            markdown,
            rows,
            plots: Plot::sizes(key, y_desc, panels),
        }
    }
}

impl Plot {
    /// A table's plot against message size, named after its key; none if
    /// nothing was measured.
    fn sizes(key: &str, y_desc: &'static str, mut panels: Vec<Panel>) -> Vec<Plot> {
        panels.retain(|p| p.series.iter().any(|s| !s.1.is_empty()));
        if panels.is_empty() {
            return Vec::new();
        }
        let title = match key {
            "m4_gctr" => "GCTR (AES-128): plain counter mode and FACE",
            "m4_gcm" => "AES-128-GCM, fixslice AES: FACE with shoup4 and karatsuba GHASH",
            "esp_fig3" => "ESP encapsulation, 1024-byte packets: inline and CPU producer",
            "gcm_fig3" => "AES-128-GCM over 1024-byte chunks: stock and precomputed keystream",
            "spec_table3" => "AES-128 modes (GCM spec Table 3)",
            "spec_table3_aes" => "AES-128-GCM over each AES (GCM spec Table 3's GCM rows)",
            "peers_aes128_encrypt" => "AES-128-GCM encryption, one core",
            "peers_aes128_decrypt" => "AES-128-GCM decryption, one core",
            "peers_aes256_encrypt" => "AES-256-GCM encryption, one core",
            "peers_aes256_decrypt" => "AES-256-GCM decryption, one core",
            other => other,
        };
        vec![Plot {
            name: key.replace('_', "-"),
            title: title.into(),
            x: XAxis::Bytes("message size"),
            y_desc,
            panels,
        }]
    }
}

/// Adds `line` to the panel titled `title` of `panels`, starting the panel
/// if it is new.
pub(crate) fn add_line(panels: &mut Vec<Panel>, title: &str, line: Series) {
    match panels.iter_mut().find(|p| p.title == title) {
        Some(panel) => panel.series.push(line),
        None => panels.push(Panel::new(title, vec![line])),
    }
}

/// Adds the point (`x`, `y`) to the line `name` of `series`, starting the
/// line if it is new.
pub(crate) fn add_point(series: &mut Vec<Series>, name: &str, x: f64, y: f64) {
    match series.iter_mut().find(|(n, _)| n == name) {
        Some((_, points)) => points.push((x, y)),
        None => series.push((name.to_string(), vec![(x, y)])),
    }
}

/// Checks, before anything is measured, that `--json` and `--plot` can be
/// written: a mistyped path must not cost a whole run. The JSON file is
/// opened for appending (not emptied) and the plot directory created, with
/// a probe file written and removed in it.
fn check_outputs(args: &Args) -> Result<(), String> {
    if let Some(path) = &args.json {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    if let Some(dir) = &args.plot {
        let probe = dir.join(".aekit-bench-probe");
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&probe, b""))
            .and_then(|()| std::fs::remove_file(&probe))
            .map_err(|e| format!("--plot {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// Runs `aekit bench`; an error is one line for stderr.
pub fn run(args: &Args) -> Result<(), String> {
    if args.suite == "gpu" {
        if args.json.is_some() || args.plot.is_some() {
            return Err("--suite gpu writes markdown only; drop --json and --plot".into());
        }
        return gpu::run(args.quick);
    }
    if args.suite == "ct" {
        if args.plot.is_some() {
            return Err("--suite ct draws no plots; drop --plot".into());
        }
        let n = args
            .measurements
            .unwrap_or(if args.quick { 100_000 } else { 1_000_000 });
        return ct::run(
            n,
            args.max_seconds,
            args.fail_at,
            args.only.as_deref(),
            args.quick,
            args.json.as_deref(),
        );
    }
    if args.measurements.is_some() || args.max_seconds.is_some() || args.only.is_some() {
        return Err("--measurements, --max-seconds and --only apply to --suite ct only".into());
    }
    let Some(&(suite, tables, plots)) = SUITES.iter().find(|s| s.0 == args.suite) else {
        let names: Vec<&str> = SUITES.iter().map(|s| s.0).chain(["gpu", "ct"]).collect();
        return Err(format!(
            "unknown suite {:?} (there are: {})",
            args.suite,
            names.join(", ")
        ));
    };
    if args.plot.is_some() && !plots {
        return Err(format!("--suite {suite} draws no plots; drop --plot"));
    }
    check_outputs(args)?;
    let effort = if args.quick {
        Effort {
            rounds: 3,
            blog_runs: 1,
            quick: true,
        }
    } else {
        Effort {
            rounds: 9,
            blog_runs: 3,
            quick: false,
        }
    };
    let cpu = harness::cpu_model();
    let ghz = harness::tsc_ghz(std::time::Duration::from_millis(100));
    println!(
        "# aekit bench --suite {suite}{}\n",
        if args.quick { " --quick" } else { "" }
    );
    let core = harness::core_per_tsc();
    let clock = core.map_or(String::new(), |c| {
        format!(
            "; the core ran at {c:.2}× it ({:.2} GHz) while a chain of dependent additions was timed",
            c * ghz
        )
    });
    println!("CPU: {cpu}; time-stamp counter {ghz:.2} GHz{clock}. Cycles are TSC cycles.\n");
    let default = peers::default_implementation();
    if matches!(suite, "peers" | "cores") {
        println!("aekit default (`AesGcm::new` on this CPU): {default}.\n");
        peers::cross_check().map_err(|e| format!("peers disagree: {e}"))?;
    }

    let mut reports = Vec::new();
    for table in tables {
        for report in table(effort) {
            println!("{}", report.markdown);
            reports.push(report);
        }
    }

    if let Some(path) = &args.json {
        let mut tables = serde_json::Map::new();
        for r in &reports {
            tables.insert(r.key.to_string(), Value::Array(r.rows.clone()));
        }
        let doc = json!({
            "suite": suite,
            "quick": args.quick,
            "cpu": cpu,
            "aekit_default": default,
            "tsc_ghz": ghz,
            "core_per_tsc": core,
            "tables": tables,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
    }
    if let Some(dir) = &args.plot {
        std::fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
        for p in reports.iter().flat_map(|r| &r.plots) {
            let path = dir.join(format!("{}.png", p.name));
            plot::draw(&path, p, &cpu)?;
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// `(basic − x) / basic` in percent, the seeds' "% change" (positive: fewer
/// cycles than the basic row).
pub(crate) fn change(basic: f64, x: f64) -> f64 {
    100.0 * (basic - x) / basic
}

/// A cycle count with thousands separators, as the seeds print them.
pub(crate) fn cycles(x: f64) -> String {
    let n = x.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A signed percentage as the seeds print it: `+8.00%`, `-1.03%`.
pub(crate) fn pct(x: f64) -> String {
    format!("{x:+.2}%")
}

/// Measures each case at each size, interleaved; `results[size][case]`.
pub(crate) fn measure_all(
    cases: &mut [harness::Case<'_>],
    sizes: &[usize],
    effort: Effort,
) -> Vec<Vec<Option<harness::Sample>>> {
    sizes
        .iter()
        .map(|&size| harness::measure(cases, size, effort.rounds))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_the_seeds_do() {
        assert_eq!(cycles(4_691_312.4), "4,691,312");
        assert_eq!(cycles(999.0), "999");
        assert_eq!(pct(change(117_456.0, 118_666.0)), "-1.03%");
        assert_eq!(pct(change(4_691_312.0, 3_781_252.0)), "+19.40%");
    }
}
