//! The HTML report of a reproduce run: the claims table (paper vs measured, holds or
//! misses), the paper's value next to the measured one for every claim as bar
//! figures, and every figure of the target as an inline SVG (log y axis where the
//! values span more than two decades), viewable offline in any browser. Also the
//! index of `reproduce all` (`index.rs`).

mod index;
mod svg_plot;

use crate::reproduce_result::{Claim, Figure, ReproduceResult, Series};
pub use index::render_index;
pub use svg_plot::{render_figure_svg, uses_log_axis, LOG_AXIS_MIN_RATIO};

/// At most this many claims share one paper-vs-measured figure.
const CLAIMS_PER_FIGURE: usize = 20;

/// A number as the tables print it (6 significant digits, as `results.json`).
pub(crate) fn fmt_value(x: f64) -> String {
    crate::reproduce_result::round_sig(x).to_string()
}

/// A claim's measured value for a table cell: the value, and for the median of
/// several draws their range (every draw in the tooltip).
pub(crate) fn measured_cell(c: &Claim) -> String {
    match &c.spread {
        Some(sp) => format!(
            "{} <small title=\"draws: {}\">[{}..{}]</small>",
            fmt_value(c.measured),
            sp.values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            sp.min,
            sp.max
        ),
        None => fmt_value(c.measured),
    }
}

/// The paper's value next to the measured one for every claim: one bar figure per
/// unit (at most [`CLAIMS_PER_FIGURE`] claims each), categories numbered as the
/// claims table's `#` column (claim ids where a figure has five or fewer).
pub fn claim_figures(claims: &[Claim]) -> Vec<Figure> {
    let mut units: Vec<&str> = Vec::new();
    for c in claims {
        if !units.contains(&c.unit.as_str()) {
            units.push(&c.unit);
        }
    }
    let mut figures = Vec::new();
    for unit in units {
        let numbered: Vec<(usize, &Claim)> = claims
            .iter()
            .enumerate()
            .filter(|(_, c)| c.unit == unit)
            .map(|(i, c)| (i + 1, c))
            .collect();
        let parts = numbered.chunks(CLAIMS_PER_FIGURE).collect::<Vec<_>>();
        for (part, chunk) in parts.iter().enumerate() {
            let label = |(n, c): &(usize, &Claim)| {
                if chunk.len() <= 5 {
                    c.id.clone()
                } else {
                    format!("#{n}")
                }
            };
            let points = |f: fn(&Claim) -> f64| {
                chunk
                    .iter()
                    .enumerate()
                    .map(|(i, (_, c))| (i as f64, f(c)))
                    .collect()
            };
            let suffix = if parts.len() > 1 {
                format!(" ({} of {})", part + 1, parts.len())
            } else {
                String::new()
            };
            let unit_label = if unit.is_empty() { "value" } else { unit };
            figures.push(Figure::bar(
                &format!("claims_{}_{}", figures.len() + 1, part + 1),
                &format!("Paper vs measured, claims in {unit_label}{suffix}"),
                "claim",
                unit_label,
                chunk.iter().map(label).collect(),
                vec![
                    Series {
                        name: "paper".into(),
                        points: points(|c| c.paper),
                    },
                    Series {
                        name: "measured (zonelab)".into(),
                        points: points(|c| c.measured),
                    },
                ],
            ));
        }
    }
    figures
}

pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Renders the whole report as one self-contained HTML page.
pub fn render_report(r: &ReproduceResult) -> String {
    let held = r.claims.iter().filter(|c| c.holds).count();
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    h.push_str(&format!(
        "<title>ZoneLab reproduce: {}</title>\n",
        escape(&r.target)
    ));
    h.push_str("<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}table{border-collapse:collapse}td code{overflow-wrap:anywhere}td.d{min-width:16em}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,th:first-child,td.d,th.d{text-align:left}.ok{color:#1a7f37}.miss{color:#cf222e;font-weight:bold}figure{margin:2em 0}</style>\n</head><body>\n");
    h.push_str(&format!(
        "<h1>ZoneLab reproduce: <code>{}</code></h1>\n",
        escape(&r.target)
    ));
    h.push_str(&format!(
        "<p>zonelab {} &middot; scale {} &middot; seed {} &middot; {held} of {} claims hold</p>\n",
        escape(&r.version),
        r.scale,
        r.seed,
        r.claims.len()
    ));
    h.push_str("<h2>Claims</h2>\n<table><tr><th>#</th><th class=\"d\">id</th><th class=\"d\">description</th><th>paper</th><th>measured</th><th>unit</th><th>deviation</th><th>tolerance</th><th>result</th></tr>\n");
    for (n, c) in r.claims.iter().enumerate() {
        let dev = if c.paper != 0.0 {
            (c.measured - c.paper) / c.paper * 100.0
        } else {
            0.0
        };
        let (class, word) = if c.holds {
            ("ok", "holds")
        } else {
            ("miss", "misses")
        };
        h.push_str(&format!(
            "<tr><td>{}</td><td class=\"d\"><code>{}</code></td><td class=\"d\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:+.1}%</td><td>&plusmn;{}%</td><td class=\"{class}\">{word}</td></tr>\n",
            n + 1,
            escape(&c.id),
            escape(&c.description),
            c.paper,
            measured_cell(c),
            escape(&c.unit),
            dev,
            fmt_value(c.tolerance * 100.0)
        ));
    }
    h.push_str("</table>\n");
    let claim_figs = claim_figures(&r.claims);
    if !claim_figs.is_empty() {
        h.push_str("<h2>Paper vs measured</h2>\n");
    }
    for f in &claim_figs {
        h.push_str(&format!("<figure id=\"{}\">\n", escape(&f.id)));
        h.push_str(&render_figure_svg(f));
        h.push_str(&format!("\n<figcaption>{} &middot; data: <a href=\"results.json\">results.json</a> (claims)</figcaption>\n</figure>\n", escape(&f.title)));
    }
    if !r.notes.is_empty() {
        h.push_str("<h2>Notes</h2>\n<ul>\n");
        for n in &r.notes {
            h.push_str(&format!("<li>{}</li>\n", escape(n)));
        }
        h.push_str("</ul>\n");
    }
    if !r.figures.is_empty() {
        h.push_str("<h2>Figures</h2>\n");
    }
    for f in &r.figures {
        h.push_str(&format!("<figure id=\"{}\">\n", escape(&f.id)));
        h.push_str(&render_figure_svg(f));
        h.push_str(&format!("\n<figcaption>{} &middot; data: <a href=\"{}.csv\">{}.csv</a></figcaption>\n</figure>\n", escape(&f.title), escape(&f.id), escape(&f.id)));
    }
    h.push_str("</body></html>\n");
    h
}
