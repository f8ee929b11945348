//! The HTML report of a reproduce run: the claims table (paper vs measured, holds or
//! misses) and every figure as an inline SVG, viewable offline in any browser.

mod svg_plot;

use crate::reproduce_result::ReproduceResult;
pub use svg_plot::render_figure_svg;

fn escape(s: &str) -> String {
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
    h.push_str("<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,th:first-child,td.d{text-align:left}.ok{color:#1a7f37}.miss{color:#cf222e;font-weight:bold}figure{margin:2em 0}</style>\n</head><body>\n");
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
    h.push_str("<h2>Claims</h2>\n<table><tr><th>id</th><th>description</th><th>paper</th><th>measured</th><th>unit</th><th>deviation</th><th>tolerance</th><th>result</th></tr>\n");
    for c in &r.claims {
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
            "<tr><td><code>{}</code></td><td class=\"d\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:+.1}%</td><td>&plusmn;{}%</td><td class=\"{class}\">{word}</td></tr>\n",
            escape(&c.id),
            escape(&c.description),
            c.paper,
            match c.spread {
                // The median of several draws, with their range.
                Some(sp) => format!("{} <small>[{}..{}]</small>", c.measured, sp.min, sp.max),
                None => c.measured.to_string(),
            },
            escape(&c.unit),
            dev,
            c.tolerance * 100.0
        ));
    }
    h.push_str("</table>\n");
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
