//! `index.html` of `zonelab reproduce all`: one table of every paper's claims (paper
//! value, measured value, holds or misses) grouped by paper with a total per paper,
//! above it one row per target with its scale, wall time, claims held and a link to
//! its report. Self-contained, viewable offline; links are relative
//! (`<target>/report.html`), so the results directory can be moved.

use super::{escape, fmt_value, measured_cell};
use crate::reproduce::main_job::TargetRun;

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td.l,th.l{text-align:left}.ok{color:#1a7f37}.miss{color:#cf222e;font-weight:bold}tr.paper th{background:#eef;text-align:left}tr.total td{font-weight:bold;background:#f6f6f6}";

/// Renders the index of a main-job run.
pub fn render_index(runs: &[TargetRun], seed: u64, total_wall_s: f64) -> String {
    let claims = |r: &TargetRun| {
        r.outcome
            .as_ref()
            .map(|(res, _)| {
                (
                    res.claims.iter().filter(|c| c.holds).count(),
                    res.claims.len(),
                )
            })
            .unwrap_or((0, 0))
    };
    let (held, total) = runs
        .iter()
        .map(claims)
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let failed = runs.iter().filter(|r| r.outcome.is_err()).count();
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>ZoneLab: every paper's claims</title>\n");
    h.push_str(&format!("<style>{STYLE}</style>\n</head><body>\n"));
    h.push_str("<h1>ZoneLab: every paper's claims</h1>\n");
    h.push_str(&format!(
        "<p id=\"summary\">zonelab {} &middot; seed {seed} &middot; {} targets in {} &middot; <b>{held} of {total} claims hold</b>{}</p>\n",
        env!("CARGO_PKG_VERSION"),
        runs.len(),
        fmt_wall(total_wall_s),
        if failed > 0 {
            format!(" &middot; <span class=\"miss\">{failed} target(s) failed</span>")
        } else {
            String::new()
        }
    ));
    h.push_str("<p>A claim that misses is a result, not an error: each report's notes and <code>docs/</code> say why. Scales are fractions of the paper's data sets and run lengths (1 = paper scale).</p>\n");
    h.push_str("<h2>Targets</h2>\n<table id=\"targets\"><tr><th class=\"l\">paper</th><th class=\"l\">target</th><th>scale</th><th>wall time</th><th>claims held</th><th class=\"l\">report</th></tr>\n");
    for r in runs {
        let (ok, n) = claims(r);
        let report = match &r.outcome {
            Ok(_) => format!(
                "<a href=\"{t}/report.html\">{t}/report.html</a>",
                t = escape(&r.target)
            ),
            Err(e) => format!("<span class=\"miss\">failed: {}</span>", escape(e)),
        };
        h.push_str(&format!(
            "<tr><td class=\"l\">{}</td><td class=\"l\"><code>{}</code></td><td>{}</td><td>{}</td><td>{ok} of {n}</td><td class=\"l\">{report}</td></tr>\n",
            escape(&r.paper),
            escape(&r.target),
            r.scale,
            fmt_wall(r.wall_s),
        ));
    }
    h.push_str("</table>\n");
    h.push_str("<h2>Claims</h2>\n<table id=\"claims\"><tr><th class=\"l\">claim</th><th class=\"l\">description</th><th>paper</th><th>measured</th><th class=\"l\">unit</th><th>result</th></tr>\n");
    for r in runs {
        let Ok((res, _)) = &r.outcome else { continue };
        h.push_str(&format!(
            "<tr class=\"paper\"><th colspan=\"6\">{} &middot; <a href=\"{t}/report.html\"><code>{t}</code></a> at scale {}</th></tr>\n",
            escape(&r.paper),
            r.scale,
            t = escape(&r.target),
        ));
        for c in &res.claims {
            let (class, word) = if c.holds {
                ("ok", "holds")
            } else {
                ("miss", "misses")
            };
            h.push_str(&format!(
                "<tr><td class=\"l\"><code>{}</code></td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"{class}\">{word}</td></tr>\n",
                escape(&c.id),
                escape(&c.description),
                fmt_value(c.paper),
                measured_cell(c),
                escape(&c.unit),
            ));
        }
        let (ok, n) = claims(r);
        h.push_str(&format!(
            "<tr class=\"total\"><td class=\"l\" colspan=\"5\">{}: total</td><td>{ok} of {n} hold</td></tr>\n",
            escape(&r.paper)
        ));
    }
    h.push_str(&format!(
        "<tr class=\"total\"><td class=\"l\" colspan=\"5\">all papers</td><td>{held} of {total} hold</td></tr>\n</table>\n</body></html>\n"
    ));
    h
}

/// Wall time as `1.6 s` or `2 min 21 s`.
fn fmt_wall(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        format!("{} min {:.0} s", (s / 60.0).floor(), s % 60.0)
    }
}
