//! Renders a [`Figure`] to an SVG string with plotters (grouped bars or lines).

use crate::reproduce_result::{Figure, FigureKind};
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

/// The figure as an `<svg>` element; an empty-data figure renders a placeholder.
pub fn render_figure_svg(fig: &Figure) -> String {
    let mut out = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
        let r = match fig.kind {
            FigureKind::Bar => draw_bars(&root, fig),
            FigureKind::Line => draw_lines(&root, fig),
        };
        r.and_then(|_| root.present().map_err(|e| e.to_string()))
    };
    match drawn {
        Ok(()) => out,
        Err(e) => format!("<p>(figure {} could not be drawn: {})</p>", fig.id, e),
    }
}

fn y_max(fig: &Figure) -> f64 {
    let m = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite())
        .fold(0.0f64, f64::max);
    // Headroom above the highest point keeps the legend (upper right) off the data.
    if m > 0.0 {
        m * 1.3
    } else {
        1.0
    }
}

fn draw_bars(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    fig: &Figure,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let n = fig.categories.len().max(1);
    let mut chart = ChartBuilder::on(root)
        .caption(&fig.title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(60)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..n as f64, 0f64..y_max(fig))
        .map_err(|e| e.to_string())?;
    let cats = fig.categories.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_style(("sans-serif", 11))
        .x_label_formatter(&|x| {
            let i = x.floor() as usize;
            if (x - x.floor() - 0.5).abs() < 0.26 && i < cats.len() {
                cats[i].clone()
            } else {
                String::new()
            }
        })
        .y_desc(fig.y_label.as_str())
        .draw()
        .map_err(|e| e.to_string())?;
    let k = fig.series.len().max(1) as f64;
    let width = 0.8 / k;
    for (si, s) in fig.series.iter().enumerate() {
        let c = colour(si);
        let bars = s.points.iter().map(|&(x, y)| {
            let x0 = x + 0.1 + si as f64 * width;
            Rectangle::new([(x0, 0.0), (x0 + width * 0.95, y)], c.filled())
        });
        chart
            .draw_series(bars)
            .map_err(|e| e.to_string())?
            .label(s.name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

fn draw_lines(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    fig: &Figure,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let xs = fig.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (x_lo, x_hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (x_lo, x_hi) = if x_lo.is_finite() && x_hi > x_lo {
        (x_lo, x_hi)
    } else {
        (0.0, 1.0)
    };
    let mut chart = ChartBuilder::on(root)
        .caption(&fig.title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x_lo..x_hi, 0f64..y_max(fig))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(fig.x_label.as_str())
        .y_desc(fig.y_label.as_str())
        .draw()
        .map_err(|e| e.to_string())?;
    for (si, s) in fig.series.iter().enumerate() {
        let c = colour(si);
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], c.stroke_width(2)));
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
