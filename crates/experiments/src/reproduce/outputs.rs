//! Writes a reproduce run's files: `results.json` (byte-identical for the same
//! target, scale and seed), `run-info.json` (wall clock and host: the only
//! non-deterministic file), one CSV per figure and `report.html`.

use super::ReproduceError;
use crate::report::render_report;
use crate::reproduce_result::{Figure, FigureKind, ReproduceResult};
use std::path::{Path, PathBuf};

/// Paths of the files written.
#[derive(Debug, Clone)]
pub struct OutputFiles {
    pub results_json: PathBuf,
    pub run_info_json: PathBuf,
    pub report_html: PathBuf,
    pub csvs: Vec<PathBuf>,
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), ReproduceError> {
    std::fs::write(path, bytes).map_err(|e| ReproduceError::Write {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// Writes every output of `result` into `dir` (created if missing). `run_info` is
/// the caller's wall-clock and host description.
pub fn write_outputs(
    dir: &Path,
    result: &ReproduceResult,
    run_info: &serde_json::Value,
) -> Result<OutputFiles, ReproduceError> {
    std::fs::create_dir_all(dir).map_err(|e| ReproduceError::Write {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let results_json = dir.join("results.json");
    let mut json = serde_json::to_string_pretty(result).expect("results serialise");
    json.push('\n');
    write(&results_json, json.as_bytes())?;
    let run_info_json = dir.join("run-info.json");
    let mut info = serde_json::to_string_pretty(run_info).expect("run info serialises");
    info.push('\n');
    write(&run_info_json, info.as_bytes())?;
    let mut csvs = Vec::new();
    for fig in &result.figures {
        let path = dir.join(format!("{}.csv", fig.id));
        write(&path, figure_csv(fig).as_bytes())?;
        csvs.push(path);
    }
    let report_html = dir.join("report.html");
    write(&report_html, render_report(result).as_bytes())?;
    Ok(OutputFiles {
        results_json,
        run_info_json,
        report_html,
        csvs,
    })
}

/// A figure as CSV: bar figures one row per category, line figures one row per point.
pub fn figure_csv(fig: &Figure) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    match fig.kind {
        FigureKind::Bar => {
            let mut header = vec![fig.x_label.clone()];
            header.extend(fig.series.iter().map(|s| s.name.clone()));
            w.write_record(&header).expect("in-memory csv");
            for (i, cat) in fig.categories.iter().enumerate() {
                let mut row = vec![cat.clone()];
                for s in &fig.series {
                    row.push(
                        s.points
                            .iter()
                            .find(|p| p.0 as usize == i)
                            .map(|p| p.1.to_string())
                            .unwrap_or_default(),
                    );
                }
                w.write_record(&row).expect("in-memory csv");
            }
        }
        FigureKind::Line => {
            w.write_record(["series", fig.x_label.as_str(), fig.y_label.as_str()])
                .expect("in-memory csv");
            for s in &fig.series {
                for (x, y) in &s.points {
                    w.write_record([s.name.clone(), x.to_string(), y.to_string()])
                        .expect("in-memory csv");
                }
            }
        }
    }
    String::from_utf8(w.into_inner().expect("in-memory csv")).expect("csv is utf-8")
}
