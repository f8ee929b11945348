//! Renders a [`Figure`] to an SVG string with plotters (grouped bars or lines), on
//! a log y axis when the values span more than two decades.

use crate::reproduce_result::{Figure, FigureKind};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 420;

fn colour(i: usize) -> RGBColor {
    const C: [RGBColor; 6] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
    ];
    C[i % C.len()]
}

/// A y axis spanning more than this ratio (max / min of positive values) is drawn
/// on a log scale: two decades, as latencies from microseconds to milliseconds.
pub const LOG_AXIS_MIN_RATIO: f64 = 100.0;

/// The figure as an `<svg>` element; an empty-data figure renders a placeholder.
pub fn render_figure_svg(fig: &Figure) -> String {
    let mut out = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
        let r = draw(&root, fig);
        r.and_then(|_| root.present().map_err(|e| e.to_string()))
    };
    match drawn {
        // The counts let a reader (and the browser test) see what the figure holds.
        Ok(()) => out.replacen(
            "<svg ",
            &format!(
                "<svg data-series=\"{}\" data-points=\"{}\" ",
                fig.series.len(),
                ys(fig).count()
            ),
            1,
        ),
        Err(e) => format!("<p>(figure {} could not be drawn: {})</p>", fig.id, e),
    }
}

/// Finite y values of every series.
fn ys(fig: &Figure) -> impl Iterator<Item = f64> + '_ {
    fig.series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite())
}

/// Whether the figure's y axis is logarithmic: every value positive and the
/// values spanning more than [`LOG_AXIS_MIN_RATIO`].
pub fn uses_log_axis(fig: &Figure) -> bool {
    let (lo, hi) = ys(fig).fold((f64::INFINITY, 0.0f64), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    lo > 0.0 && lo.is_finite() && hi / lo > LOG_AXIS_MIN_RATIO
}

/// Linear y range: from the lowest value (or 0) to the highest, with headroom above
/// so the legend (upper right) stays off the data.
fn linear_y_range(fig: &Figure) -> (f64, f64) {
    let (lo, hi) = ys(fig).fold((0.0f64, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let hi = if hi > 0.0 {
        hi * 1.3
    } else if lo < 0.0 {
        0.0
    } else {
        1.0
    };
    let lo = if lo < 0.0 { lo * 1.1 } else { 0.0 };
    (lo, hi)
}

/// Log y range: half a decade below the lowest value, a decade above the highest.
fn log_y_range(fig: &Figure) -> (f64, f64) {
    let (lo, hi) = ys(fig).fold((f64::INFINITY, 0.0f64), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    (lo / 3.0, hi * 10.0)
}

/// Compact tick labels: 1.5k, 20M, 0.001.
fn tick(v: &f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (*v, "")
    };
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{suffix}")
}

fn draw(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    fig: &Figure,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let log = uses_log_axis(fig);
    let y_desc = if log {
        format!("{} (log scale)", fig.y_label)
    } else {
        fig.y_label.clone()
    };
    let x_range = match fig.kind {
        FigureKind::Bar => 0f64..fig.categories.len().max(1) as f64,
        FigureKind::Line => x_extent(fig),
    };
    let x_label_area = if fig.kind == FigureKind::Bar { 60 } else { 45 };
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(&fig.title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(x_label_area)
        .y_label_area_size(75);
    if log {
        let (lo, hi) = log_y_range(fig);
        let mut chart = builder
            .build_cartesian_2d(x_range, (lo..hi).log_scale())
            .map_err(|e| e.to_string())?;
        draw_series(&mut chart, fig, lo, &y_desc)
    } else {
        let (lo, hi) = linear_y_range(fig);
        let mut chart = builder
            .build_cartesian_2d(x_range, lo..hi)
            .map_err(|e| e.to_string())?;
        draw_series(&mut chart, fig, 0.0, &y_desc)
    }
}

fn x_extent(fig: &Figure) -> std::ops::Range<f64> {
    let xs = fig.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (x_lo, x_hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if x_lo.is_finite() && x_hi > x_lo {
        x_lo..x_hi
    } else {
        0.0..1.0
    }
}

/// Draws the mesh, the series (bars from `bar_base` or lines) and the legend.
fn draw_series<'a, 'b: 'a, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, Y>>,
    fig: &Figure,
    bar_base: f64,
    y_desc: &str,
) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let cats = fig.categories.clone();
    let category_label = |x: &f64| {
        let i = x.floor() as usize;
        if (x - x.floor() - 0.5).abs() < 0.26 && i < cats.len() {
            cats[i].clone()
        } else {
            String::new()
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.y_desc(y_desc)
        .y_label_formatter(&tick)
        .x_label_style(("sans-serif", 11));
    if fig.kind == FigureKind::Bar {
        let n = cats.len().max(1);
        mesh.disable_x_mesh()
            .x_labels(n * 2 + 1)
            .x_label_formatter(&category_label);
    } else {
        mesh.x_desc(fig.x_label.as_str());
    }
    mesh.draw().map_err(|e| e.to_string())?;
    let k = fig.series.len().max(1) as f64;
    let width = 0.8 / k;
    for (si, s) in fig.series.iter().enumerate() {
        let c = colour(si);
        let finite = s.points.iter().copied().filter(|p| p.1.is_finite());
        if fig.kind == FigureKind::Bar {
            let bars = finite.map(|(x, y)| {
                let x0 = x + 0.1 + si as f64 * width;
                Rectangle::new([(x0, bar_base), (x0 + width * 0.95, y)], c.filled())
            });
            chart
                .draw_series(bars)
                .map_err(|e| e.to_string())?
                .label(s.name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
        } else {
            chart
                .draw_series(LineSeries::new(finite, c.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(s.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 15, y)], c.stroke_width(2))
                });
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce_result::Series;

    fn fig(kind: FigureKind) -> Figure {
        Figure {
            id: "f".into(),
            title: "T".into(),
            kind,
            x_label: "x".into(),
            y_label: "y".into(),
            categories: vec!["a".into(), "b".into()],
            series: vec![
                Series {
                    name: "paper".into(),
                    points: vec![(0.0, 1.0), (1.0, 2.0)],
                },
                Series {
                    name: "zonelab".into(),
                    points: vec![(0.0, 1.5), (1.0, 2.5)],
                },
            ],
        }
    }

    #[test]
    fn bars_and_lines_render_to_svg_with_labels() {
        for kind in [FigureKind::Bar, FigureKind::Line] {
            let svg = render_figure_svg(&fig(kind));
            assert!(svg.starts_with("<svg"), "{svg}");
            assert!(
                svg.contains("zonelab") && svg.contains("paper"),
                "legend missing"
            );
            assert!(svg.contains("<rect") || svg.contains("<polyline"));
        }
    }
}
