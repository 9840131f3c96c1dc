//! PNG plots of throughput against message size, one line per strategy
//! (the `plotters` crate, bitmap backend). Text is drawn with `ab_glyph`
//! from a TrueType font read at run time — DejaVu Sans where the system
//! has it (Debian's `fonts-dejavu-core`), or the file `AEKIT_PLOT_FONT`
//! names — so building needs no system library.

use std::path::Path;
use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::FontStyle;

use super::Series;

/// Where a sans-serif TrueType font is usually found.
const FONT_PATHS: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
];

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

/// Draws `series` (name, [(x, GB/s)]) into `path`, x on a log scale and
/// named `x_desc`.
pub(crate) fn throughput(
    path: &Path,
    title: &str,
    x_desc: &str,
    series: &[Series],
) -> Result<(), String> {
    font()?;
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());
    let (x_min, x_max) = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let y_max = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(0.0f64, f64::max);
    let root = BitMapBackend::new(path, (1200, 750)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d((x_min..x_max).log_scale(), 0.0..y_max * 1.1)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("GB/s")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
