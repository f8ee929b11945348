//! The sweep's HTML report: every headline metric plotted against every swept
//! parameter (one point per run, and a line through the mean at each value),
//! self-contained SVG, viewable offline. A metric that is the same in every run
//! or missing from all is listed instead of plotted.

use crate::table::{Cell, Column, ColumnType, Role, Table};
use plotters::prelude::*;

const WIDTH: u32 = 460;
const HEIGHT: u32 = 300;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An axis number in a few characters: SI suffixes for large magnitudes.
fn compact(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e12 {
        (v / 1e12, "T")
    } else if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{suffix}")
}

/// Facts for the report's header.
pub struct ReportInfo<'a> {
    pub name: &'a str,
    pub kind: &'a str,
    pub design: String,
    pub version: &'a str,
    pub runs: usize,
    pub errors: usize,
}

/// The x positions of a parameter's cells: numbers as they are, anything else as
/// the index of its value in order of first appearance (with those labels).
fn x_axis(param: &Column) -> (Vec<Option<f64>>, Option<Vec<String>>) {
    if matches!(param.kind, ColumnType::Int64 | ColumnType::Double) {
        return (param.cells.iter().map(Cell::as_f64).collect(), None);
    }
    let mut labels: Vec<String> = Vec::new();
    let xs = param
        .cells
        .iter()
        .map(|c| {
            let label = match c {
                Cell::Null => return None,
                Cell::Text(s) => s.clone(),
                Cell::Bool(b) => b.to_string(),
                other => format!("{other:?}"),
            };
            let i = labels.iter().position(|l| *l == label).unwrap_or_else(|| {
                labels.push(label);
                labels.len() - 1
            });
            Some(i as f64)
        })
        .collect();
    (xs, Some(labels))
}

/// One metric against one parameter as an `<svg>` element.
fn plot(param: &Column, metric: &Column) -> Result<String, String> {
    let (xs, labels) = x_axis(param);
    let points: Vec<(f64, f64)> = xs
        .iter()
        .zip(&metric.cells)
        .filter_map(|(x, y)| Some(((*x)?, y.as_f64()?)))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let mut by_x: Vec<(f64, f64, usize)> = Vec::new();
    for &(x, y) in &points {
        match by_x.iter_mut().find(|(bx, _, _)| *bx == x) {
            Some(e) => {
                e.1 += y;
                e.2 += 1;
            }
            None => by_x.push((x, y, 1)),
        }
    }
    by_x.sort_by(|a, b| a.0.total_cmp(&b.0));
    let means: Vec<(f64, f64)> = by_x.iter().map(|(x, s, n)| (*x, s / *n as f64)).collect();
    let (x_lo, x_hi) = match &labels {
        Some(l) => (-0.5, l.len() as f64 - 0.5),
        None => {
            let lo = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
            let hi = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
            let pad = if hi > lo { (hi - lo) * 0.05 } else { 0.5 };
            (lo - pad, hi + pad)
        }
    };
    let y_lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y_hi = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let pad = if y_hi > y_lo {
        (y_hi - y_lo) * 0.08
    } else {
        y_hi.abs().max(1.0) * 0.1
    };
    let (y_lo, y_hi) = (y_lo - pad, y_hi + pad);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{} vs {}", metric.name, param.name),
                ("sans-serif", 14),
            )
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
            .map_err(e)?;
        let names = labels.clone().unwrap_or_default();
        let category = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 0.01 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        };
        let mut mesh = chart.configure_mesh();
        let y_label = |y: &f64| compact(*y);
        let x_number = |x: &f64| compact(*x);
        mesh.x_desc(param.name.as_str())
            .y_desc(metric.name.as_str())
            .y_label_formatter(&y_label)
            .light_line_style(RGBColor(238, 238, 238))
            .label_style(("sans-serif", 11));
        if labels.is_none() {
            mesh.x_label_formatter(&x_number);
        }
        if labels.is_some() {
            mesh.disable_x_mesh()
                .x_labels(names.len().max(1) * 2 + 1)
                .x_label_formatter(&category);
        }
        mesh.draw().map_err(e)?;
        let blue = RGBColor(31, 119, 180);
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&p| Circle::new(p, 3, blue.mix(0.55).filled())),
            )
            .map_err(e)?;
        chart
            .draw_series(LineSeries::new(
                means.iter().copied(),
                RGBColor(214, 39, 40).stroke_width(2),
            ))
            .map_err(e)?;
        root.present().map_err(e)?;
    }
    Ok(out)
}

fn varies(c: &Column) -> bool {
    let mut values = c.cells.iter().filter_map(Cell::as_f64);
    match values.next() {
        Some(first) => values.any(|v| v != first),
        None => false,
    }
}

/// The report page.
pub fn render(table: &Table, info: &ReportInfo<'_>) -> String {
    let params: Vec<&Column> = table
        .columns
        .iter()
        .filter(|c| c.role == Role::Param)
        .collect();
    let metrics: Vec<&Column> = table
        .columns
        .iter()
        .filter(|c| c.role == Role::Metric)
        .collect();
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    h.push_str(&format!(
        "<title>ZoneLab sweep: {}</title>\n",
        escape(info.name)
    ));
    h.push_str("<style>body{font-family:sans-serif;margin:2em;color:#222}.grid{display:flex;flex-wrap:wrap;gap:8px}h2{margin-top:1.5em}code{background:#f4f4f4}</style>\n</head><body>\n");
    h.push_str(&format!(
        "<h1>ZoneLab sweep: <code>{}</code></h1>\n<p>{} runs &middot; {} design &middot; {} runs failed &middot; zonelab {} &middot; data: <a href=\"runs.csv\">runs.csv</a>, <a href=\"runs.parquet\">runs.parquet</a></p>\n",
        escape(info.name),
        info.runs,
        escape(&info.design),
        info.errors,
        escape(info.version),
    ));
    h.push_str(&format!(
        "<p>Each point is one {} run; the red line joins the mean at each value of the parameter (over every other parameter and seed).</p>\n",
        escape(info.kind)
    ));
    if params.is_empty() {
        h.push_str("<p>No parameter is swept: nothing to plot.</p>\n");
    }
    let (plotted, flat): (Vec<&Column>, Vec<&Column>) = metrics.iter().partition(|m| varies(m));
    for p in &params {
        h.push_str(&format!(
            "<h2>Against <code>{}</code></h2>\n<div class=\"grid\">\n",
            escape(&p.name)
        ));
        for m in &plotted {
            match plot(p, m) {
                Ok(svg) => h.push_str(&svg),
                Err(e) => h.push_str(&format!(
                    "<p>({} vs {} could not be drawn: {})</p>",
                    escape(&m.name),
                    escape(&p.name),
                    escape(&e)
                )),
            }
            h.push('\n');
        }
        h.push_str("</div>\n");
    }
    if !flat.is_empty() {
        let names: Vec<String> = flat
            .iter()
            .map(|m| {
                let v = m.cells.iter().find_map(Cell::as_f64);
                match v {
                    Some(v) => format!("<code>{}</code> = {v}", escape(&m.name)),
                    None => format!("<code>{}</code> (no value)", escape(&m.name)),
                }
            })
            .collect();
        h.push_str(&format!(
            "<h2>Not plotted (the same in every run)</h2>\n<p>{}</p>\n",
            names.join(", ")
        ));
    }
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_numbers_are_short() {
        assert_eq!(compact(3_500_000_000.0), "3.5G");
        assert_eq!(compact(250_000.0), "250k");
        assert_eq!(compact(1234.0), "1234");
        assert_eq!(compact(0.125), "0.125");
        assert_eq!(compact(-2e6), "-2M");
    }

    #[test]
    fn every_varying_metric_is_plotted_against_every_parameter() {
        let t = Table {
            columns: vec![
                Column::new(
                    "op",
                    Role::Param,
                    vec![Cell::Int(7), Cell::Int(14), Cell::Int(28)],
                ),
                Column::new(
                    "rw",
                    Role::Param,
                    vec![
                        Cell::Text("a".into()),
                        Cell::Text("b".into()),
                        Cell::Text("a".into()),
                    ],
                ),
                Column::new(
                    "waf",
                    Role::Metric,
                    vec![Cell::Float(3.0), Cell::Float(2.0), Cell::Float(1.5)],
                ),
                Column::new(
                    "iops",
                    Role::Metric,
                    vec![Cell::Float(5.0), Cell::Float(5.0), Cell::Float(5.0)],
                ),
            ],
        };
        let info = ReportInfo {
            name: "t",
            kind: "bench",
            design: "grid".into(),
            version: "0",
            runs: 3,
            errors: 0,
        };
        let html = render(&t, &info);
        assert_eq!(html.matches("<svg").count(), 2, "waf vs op and vs rw");
        assert!(html.contains("waf vs op") && html.contains("waf vs rw"));
        assert!(html.contains("<code>iops</code> = 5"));
    }
}
