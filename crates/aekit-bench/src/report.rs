//! What the table suites share: how hard to measure ([`Effort`]), the
//! message mixes and the [`Report`] each table returns (markdown, JSON
//! rows, plots); `runner.rs` prints them and writes `--json` and `--plot`.
//!
//! Timing is the shared harness's (`aekit-harness`): cases interleaved,
//! best batch of N, cycles read from the time-stamp counter — a
//! constant-rate clock, not the core's, so the tables say *TSC cycles*.
//! `--quick` takes fewer rounds (the blog's table once; no 256 MiB
//! message, no 100 MB ESP message, fewer ESP repeats); the tables and their
//! other rows are the same. Output: markdown on stdout, `--json FILE` for
//! machines, `--plot DIR` for PNG plots of throughput against message size
//! (`seeds`, `peers`) or against messages a batch (`batch`: one plot per
//! mix and table), in panels where lines' scales differ too much for one
//! (`plot.rs`).

use aekit_harness as harness;
use serde_json::Value;

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

/// A table of a suite: measures, then returns its reports.
pub(crate) type Table<'a> = &'a dyn Fn(Effort) -> Vec<Report>;

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
