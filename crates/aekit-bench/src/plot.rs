//! PNG plots of measurements against message size (or messages a batch),
//! one line per case (the `plotters` crate, bitmap backend). Text is drawn
//! with `ab_glyph` from a TrueType font read at run time — DejaVu Sans
//! where the system has it (Debian's `fonts-dejavu-core`), or the file
//! `AEKIT_PLOT_FONT` names — so building needs no system library.
//!
//! What a reader needs, and how it is kept:
//!
//! - The x axis is logarithmic and labelled at every measured x and only
//!   there, in the unit a reader thinks in (`64 B`, `1 KiB`, `1 MiB`,
//!   `100 MB`); labels that would overlap are set on a second row.
//! - Each panel picks its own y scale: linear from 0, or logarithmic where
//!   its largest value is more than [`LOG_RATIO`] times its smallest, so
//!   that no line lies flat on the axis under a faster one. Lines whose
//!   scales differ too much for one panel go into panels of their own.
//! - Every line has its own colour, marker shape and, past ten lines, a
//!   dashed stroke; a line keeps its style in every panel of a plot.
//! - The legend sits beside the panels, never over the data.

use std::path::Path;
use std::sync::OnceLock;

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::report::{Panel, Plot, XAxis};

/// Where a sans-serif TrueType font is usually found.
const FONT_PATHS: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
];

/// A panel's y axis is logarithmic when its largest value is more than this
/// many times its smallest.
pub(crate) const LOG_RATIO: f64 = 10.0;

/// Ten colours that stay apart in print and for most colour-blind readers
/// (Tableau 10).
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Marker shapes, cycled with a period prime to the colours'.
#[derive(Clone, Copy)]
enum Marker {
    Circle,
    Triangle,
    Square,
    Cross,
}

const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
];

/// The look of line `i` of a plot.
#[derive(Clone, Copy)]
struct Look {
    color: RGBColor,
    marker: Marker,
    dashed: bool,
}

fn look(i: usize) -> Look {
    Look {
        color: COLORS[i % COLORS.len()],
        marker: MARKERS[i % MARKERS.len()],
        dashed: (i / COLORS.len()) % 2 == 1,
    }
}

/// Text sizes, in pixels.
const TITLE: u32 = 22;
const CAPTION: u32 = 18;
const LABEL: u32 = 15;
/// The x label area: two rows of labels and the axis description.
const X_LABEL_AREA: u32 = 72;
/// Pixels between two x labels on one row.
const LABEL_GAP: i32 = 8;

/// Registers the font once, as "sans-serif".
fn font() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let path = std::env::var("AEKIT_PLOT_FONT")
                .ok()
                .into_iter()
                .chain(FONT_PATHS.iter().map(|p| p.to_string()))
                .find(|p| Path::new(p).exists())
                .ok_or("--plot needs a TrueType font: install fonts-dejavu-core or set AEKIT_PLOT_FONT")?;
            let bytes = std::fs::read(&path).map_err(|e| format!("read {path}: {e}"))?;
            // The font lives as long as the process: plotters keeps it.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                .map_err(|_| format!("{path} is not a TrueType font"))
        })
        .clone()
}

/// A byte count as a reader names it: binary units where it is a whole
/// number of KiB or MiB (`1 KiB`, `16 KiB`, `1 MiB`), decimal megabytes
/// where it is a whole number of them (`1 MB`, `100 MB`, the ESP seed's
/// sizes), bytes otherwise (`64 B`, `1500 B`).
pub(crate) fn bytes_label(n: u64) -> String {
    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;
    match n {
        n if n >= MIB && n.is_multiple_of(MIB) => format!("{} MiB", n / MIB),
        n if n >= 1_000_000 && n.is_multiple_of(1_000_000) => format!("{} MB", n / 1_000_000),
        n if n >= KIB && n.is_multiple_of(KIB) => format!("{} KiB", n / KIB),
        n => format!("{n} B"),
    }
}

/// An axis value with at most three significant digits and no trailing
/// zeros: `0`, `0.05`, `1.5`, `20`, `1200`.
pub(crate) fn number_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

impl XAxis {
    fn desc(&self) -> &'static str {
        match self {
            XAxis::Bytes(desc) | XAxis::Count(desc) => desc,
        }
    }

    fn label(&self, x: f64) -> String {
        match self {
            XAxis::Bytes(_) => bytes_label(x.round() as u64),
            XAxis::Count(_) => format!("{}", x.round() as u64),
        }
    }
}

/// Ticks of a linear axis from 0: a step of 1, 2 or 5 × 10^k that gives
/// at most five steps up to `max`, and the first tick at or above `max`.
pub(crate) fn linear_ticks(max: f64) -> Vec<f64> {
    if max <= 0.0 || !max.is_finite() {
        return vec![0.0, 1.0];
    }
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * magnitude);
    let steps = (max / step - 1e-9).ceil().max(1.0) as usize;
    (0..=steps).map(|k| k as f64 * step).collect()
}

/// Ticks of a logarithmic axis: 1, 2 and 5 times the powers of ten (all of
/// 1 to 9 where that gives fewer than four; the powers alone where 1-2-5
/// gives more than fourteen), from the largest at or below `lo` to the
/// smallest at or above `hi`.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mantissas: [&[f64]; 4] = [
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 5.0, 7.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        &[1.0],
    ];
    let ticks = |set: &[f64]| {
        let (d0, d1) = (lo.log10().floor() as i32 - 1, hi.log10().ceil() as i32 + 1);
        let all: Vec<f64> = (d0..=d1)
            .flat_map(|d| set.iter().map(move |m| m * 10f64.powi(d)))
            .collect();
        let eps = 1e-9;
        let start = all
            .iter()
            .rposition(|&t| t <= lo * (1.0 + eps))
            .unwrap_or(0);
        let end = all
            .iter()
            .position(|&t| t >= hi * (1.0 - eps))
            .unwrap_or(all.len() - 1);
        all[start..=end].to_vec()
    };
    let coarse = ticks(mantissas[0]);
    if coarse.len() > 14 {
        return ticks(mantissas[3]);
    }
    for set in &mantissas[..3] {
        let t = ticks(set);
        if t.len() >= 4 {
            return t;
        }
    }
    ticks(mantissas[2])
}

/// The row (0 or 1) of each x label, given each label's left edge and
/// width in pixels, left to right: the first row where it clears the last
/// label by [`LABEL_GAP`], else the row whose last label ends first.
pub(crate) fn label_rows(spans: &[(i32, i32)]) -> Vec<usize> {
    let mut ends = [i32::MIN / 2; 2];
    spans
        .iter()
        .map(|&(left, width)| {
            let row = (0..2)
                .find(|&r| left >= ends[r] + LABEL_GAP)
                .unwrap_or(if ends[0] <= ends[1] { 0 } else { 1 });
            ends[row] = left + width;
            row
        })
        .collect()
}

/// Whether a panel whose values run from `lo` to `hi` takes a log y axis.
pub(crate) fn wants_log(lo: f64, hi: f64) -> bool {
    lo > 0.0 && hi / lo > LOG_RATIO
}

/// Draws `plot` into `path`; `cpu` is added to its title.
pub(crate) fn draw(path: &Path, plot: &Plot, cpu: &str) -> Result<(), String> {
    font()?;
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());
    // Every line's look, by name, in order of first appearance.
    let mut names: Vec<&str> = Vec::new();
    for panel in &plot.panels {
        for (name, _) in &panel.series {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let n = plot.panels.len().max(1);
    let cols = n.min(3);
    let rows = n.div_ceil(cols);
    let (panel_w, panel_h) = if n == 1 { (1000, 640) } else { (580, 520) };
    let longest = names.iter().map(|s| s.chars().count()).max().unwrap_or(0) as u32;
    let legend_w = 90 + 9 * longest;
    let title_h = 48;
    let width = cols as u32 * panel_w + legend_w;
    let height = title_h + rows as u32 * panel_h;
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let title = format!("{} — {cpu}", plot.title);
    let title_style = ("sans-serif", TITLE).into_text_style(&root);
    let (tw, _) = root
        .estimate_text_size(&title, &title_style)
        .map_err(|e| err(&e))?;
    root.draw(&Text::new(
        title,
        ((width as i32 - tw as i32).max(0) / 2, 14),
        title_style,
    ))
    .map_err(|e| err(&e))?;
    let body = root.clone().margin(title_h, 0, 0, 0);
    let (panels_area, legend_area) = body.split_horizontally(cols as u32 * panel_w);
    for (panel, area) in plot
        .panels
        .iter()
        .zip(panels_area.split_evenly((rows, cols)))
    {
        draw_panel(&root, &area, plot, panel, &names).map_err(|e| err(&e))?;
    }
    draw_legend(&legend_area, &names).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;
type DrawResult<'a> =
    Result<(), DrawingAreaErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>>;

/// A linear axis over `range` with its grid lines and labels at `ticks`
/// and nowhere else (values already on a log scale where the axis is one).
struct Ticks {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Ticks {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// Draws one panel into `area`; x labels are set on `root` (whole-image
/// coordinates), where they may reach below the plotting area.
fn draw_panel<'a>(
    root: &Area<'a>,
    area: &Area<'a>,
    plot: &Plot,
    panel: &Panel,
    names: &[&str],
) -> DrawResult<'a> {
    let mut xs: Vec<f64> = panel
        .series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .filter(|x| *x > 0.0)
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let ys: Vec<f64> = panel
        .series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .chain(
            panel
                .spread
                .iter()
                .flat_map(|(_, p)| p.iter().flat_map(|q| [q.1, q.2])),
        )
        .filter(|y| y.is_finite())
        .collect();
    if xs.is_empty() || ys.is_empty() {
        return Ok(());
    }
    let (x_lo, x_hi) = (xs[0].log10(), xs[xs.len() - 1].log10());
    let pad = if x_hi > x_lo {
        0.06 * (x_hi - x_lo)
    } else {
        0.5
    };
    let x_range = (x_lo - pad)..(x_hi + pad);
    let y_lo = ys.iter().copied().fold(f64::MAX, f64::min);
    let y_hi = ys.iter().copied().fold(f64::MIN, f64::max);
    let log = wants_log(y_lo, y_hi);
    let ty = move |y: f64| if log { y.log10() } else { y };
    let ticks: Vec<f64> = if log {
        log_ticks(y_lo, y_hi)
    } else {
        linear_ticks(y_hi)
    };
    let y_ticks: Vec<f64> = ticks.iter().map(|&t| ty(t)).collect();
    let y_range = y_ticks[0]..y_ticks[y_ticks.len() - 1];

    let mut builder = ChartBuilder::on(area);
    if !panel.title.is_empty() {
        builder.caption(&panel.title, ("sans-serif", CAPTION));
    }
    let mut chart = builder
        .margin(12)
        .margin_right(36)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(76)
        .build_cartesian_2d(
            Ticks {
                range: x_range.clone(),
                ticks: xs.iter().map(|x| x.log10()).collect(),
            },
            Ticks {
                range: y_range.clone(),
                ticks: y_ticks,
            },
        )?;
    let y_desc = if log {
        format!("{} (log scale)", plot.y_desc)
    } else {
        plot.y_desc.to_string()
    };
    chart
        .configure_mesh()
        .x_desc(plot.x.desc())
        .y_desc(y_desc)
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&|v| number_label(if log { 10f64.powf(*v) } else { *v }))
        .label_style(("sans-serif", LABEL))
        .axis_desc_style(("sans-serif", LABEL + 1))
        .bold_line_style(BLACK.mix(0.12))
        .draw()?;

    let x_span = x_range.end - x_range.start;
    for (k, (name, points)) in panel.series.iter().enumerate() {
        let i = names.iter().position(|n| n == name).unwrap_or(0);
        let look = look(i);
        let mut pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.0 > 0.0 && p.1.is_finite() && (!log || p.1 > 0.0))
            .map(|&(x, y)| (x.log10(), ty(y)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let stroke = look.color.stroke_width(2);
        if look.dashed {
            chart.draw_series(DashedLineSeries::new(pts.iter().copied(), 10, 6, stroke))?;
        } else {
            chart.draw_series(LineSeries::new(pts.iter().copied(), stroke))?;
        }
        if let Some((_, bars)) = panel.spread.iter().find(|(n, _)| n == name) {
            // Each line's bars a little apart from the others' at the same x.
            let dodge = (k as f64 - (panel.series.len() - 1) as f64 / 2.0) * 0.02 * x_span;
            let cap = 0.012 * x_span;
            let thin = look.color.stroke_width(1);
            for &(x, lo, hi) in bars.iter().filter(|b| b.0 > 0.0 && (!log || b.1 > 0.0)) {
                let (x, lo, hi) = (x.log10() + dodge, ty(lo), ty(hi));
                chart.draw_series([
                    PathElement::new(vec![(x, lo), (x, hi)], thin),
                    PathElement::new(vec![(x - cap, lo), (x + cap, lo)], thin),
                    PathElement::new(vec![(x - cap, hi), (x + cap, hi)], thin),
                ])?;
            }
        }
        draw_markers(&mut chart, &pts, look)?;
    }

    // The x labels: one at every measured x, staggered where they meet.
    let style = ("sans-serif", LABEL).into_text_style(root);
    let mut placed = Vec::new();
    for &x in &xs {
        let label = plot.x.label(x);
        let (px, py) = chart.backend_coord(&(x.log10(), y_range.start));
        let (w, _) = root.estimate_text_size(&label, &style)?;
        placed.push((label, px - w as i32 / 2, w as i32, py));
    }
    let spans: Vec<(i32, i32)> = placed.iter().map(|p| (p.1, p.2)).collect();
    for ((label, left, _, py), row) in placed.into_iter().zip(label_rows(&spans)) {
        root.draw(&Text::new(
            label,
            (left, py + 8 + 20 * row as i32),
            style.clone(),
        ))?;
    }
    Ok(())
}

/// Draws `pts` (already in chart coordinates) with the line's marker.
fn draw_markers<'a>(
    chart: &mut ChartContext<'_, BitMapBackend<'a>, Cartesian2d<Ticks, Ticks>>,
    pts: &[(f64, f64)],
    look: Look,
) -> DrawResult<'a> {
    let fill = look.color.filled();
    match look.marker {
        Marker::Circle => {
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, fill)))?;
        }
        Marker::Triangle => {
            chart.draw_series(pts.iter().map(|&p| TriangleMarker::new(p, 6, fill)))?;
        }
        Marker::Square => {
            chart.draw_series(
                pts.iter()
                    .map(|&p| EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], fill)),
            )?;
        }
        Marker::Cross => {
            chart.draw_series(
                pts.iter()
                    .map(|&p| Cross::new(p, 5, look.color.stroke_width(2))),
            )?;
        }
    }
    Ok(())
}

/// The legend: each line's stroke, marker and name, top to bottom.
fn draw_legend<'a>(area: &Area<'a>, names: &[&str]) -> DrawResult<'a> {
    if names.is_empty() {
        return Ok(());
    }
    let (x0, y0, step) = (16, 40, 26);
    let style = ("sans-serif", LABEL).into_text_style(area);
    let (w, _) = area.dim_in_pixel();
    area.draw(&Rectangle::new(
        [
            (x0 - 8, y0 - 16),
            (w as i32 - 8, y0 + step * names.len() as i32 - 8),
        ],
        BLACK.stroke_width(1),
    ))?;
    for (i, name) in names.iter().enumerate() {
        let look = look(i);
        let y = y0 + step * i as i32;
        let stroke = look.color.stroke_width(2);
        if look.dashed {
            area.draw(&PathElement::new(vec![(x0, y), (x0 + 12, y)], stroke))?;
            area.draw(&PathElement::new(vec![(x0 + 24, y), (x0 + 36, y)], stroke))?;
        } else {
            area.draw(&PathElement::new(vec![(x0, y), (x0 + 36, y)], stroke))?;
        }
        let fill = look.color.filled();
        let c = (x0 + 18, y);
        match look.marker {
            Marker::Circle => area.draw(&Circle::new(c, 4, fill))?,
            Marker::Triangle => area.draw(&TriangleMarker::new(c, 6, fill))?,
            Marker::Square => {
                area.draw(&Rectangle::new([(c.0 - 4, y - 4), (c.0 + 4, y + 4)], fill))?
            }
            Marker::Cross => area.draw(&Cross::new(c, 5, look.color.stroke_width(2)))?,
        }
        area.draw(&Text::new(
            name.to_string(),
            (x0 + 46, y - 9),
            style.clone(),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_labelled_as_readers_name_them() {
        assert_eq!(bytes_label(16), "16 B");
        assert_eq!(bytes_label(64), "64 B");
        assert_eq!(bytes_label(1024), "1 KiB");
        assert_eq!(bytes_label(1500), "1500 B");
        assert_eq!(bytes_label(16384), "16 KiB");
        assert_eq!(bytes_label(40960), "40 KiB");
        assert_eq!(bytes_label(1_048_576), "1 MiB");
        assert_eq!(bytes_label(1_000_000), "1 MB");
        assert_eq!(bytes_label(100_000_000), "100 MB");
        assert_eq!(XAxis::Count("n").label(1024.0), "1024");
    }

    #[test]
    fn numbers_keep_three_digits_and_no_trailing_zeros() {
        assert_eq!(number_label(0.0), "0");
        assert_eq!(number_label(0.05), "0.05");
        assert_eq!(number_label(0.2), "0.2");
        assert_eq!(number_label(1.5), "1.5");
        assert_eq!(number_label(20.0), "20");
        assert_eq!(number_label(1200.0), "1200");
        assert_eq!(number_label(10f64.powf(2f64.log10())), "2");
    }

    #[test]
    fn ticks_cover_the_values() {
        assert_eq!(linear_ticks(1.34), [0.0, 0.5, 1.0, 1.5]);
        assert_eq!(linear_ticks(11.4), [0.0, 5.0, 10.0, 15.0]);
        assert_eq!(linear_ticks(0.0), [0.0, 1.0]);
        let t = log_ticks(0.013, 21.0);
        assert!((t[0] - 0.01).abs() < 1e-12, "{t:?}");
        assert!((t[t.len() - 1] - 50.0).abs() < 1e-9, "{t:?}");
        assert_eq!(t.len(), 12, "{t:?}");
        // Less than a decade: finer mantissas, still at least four ticks.
        let t = log_ticks(1.2, 3.5);
        assert!(
            t.len() >= 4 && t[0] <= 1.2 && *t.last().unwrap() >= 3.5,
            "{t:?}"
        );
        // Many decades: the powers of ten alone.
        assert_eq!(log_ticks(1e-3, 1e4).len(), 8);
        assert!(wants_log(0.02, 11.0) && !wants_log(0.5, 1.4) && !wants_log(0.0, 1.0));
    }

    #[test]
    fn labels_that_meet_take_the_second_row() {
        // 1 KiB and 1500 B, 31 pixels apart, 40 wide: the second drops a row.
        assert_eq!(
            label_rows(&[(0, 30), (100, 40), (131, 40), (300, 40)]),
            [0, 0, 1, 0]
        );
        assert_eq!(label_rows(&[(0, 40), (10, 40), (20, 40)]), [0, 1, 0]);
    }
}
