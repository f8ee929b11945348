//! `zonelab reproduce`: runs a paper target, writes results.json, run-info.json,
//! CSVs and report.html, and prints the claims table. A claim that misses is a
//! result (exit 0); only errors exit non-zero.

use crate::args::ReproduceArgs;
use crate::{progress, table};
use std::time::{SystemTime, UNIX_EPOCH};
use zonelab_experiments::reproduce::{run_target, targets, write_outputs, RunOptions};

pub fn run(a: ReproduceArgs) -> Result<(), String> {
    if a.list {
        let rows: Vec<Vec<String>> = targets()
            .iter()
            .map(|t| vec![t.name().to_string(), t.description().to_string()])
            .collect();
        print!("{}", table::render(&["target", "description"], &rows));
        return Ok(());
    }
    let Some(name) = a.target.as_deref() else {
        return Err("reproduce needs a target (see `zonelab reproduce --list`)".to_string());
    };
    let started = SystemTime::now();
    let wall = std::time::Instant::now();
    let mut bar = progress::StepBar(progress::bar(
        1,
        "{spinner} [{bar:30}] {pos}/{len} {msg} ({elapsed})",
    ));
    let opts = RunOptions {
        scale: a.scale,
        seed: a.seed,
        traces_dir: a.traces.clone(),
    };
    let result = run_target(name, &opts, &mut bar).map_err(|e| e.to_string())?;
    bar.0.finish_and_clear();
    let run_info = serde_json::json!({
        "target": name,
        "started_unix_s": started.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "wall_clock_s": (wall.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        "host": {
            "os": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
            "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        },
        "command": std::env::args().collect::<Vec<_>>(),
    });
    let files = write_outputs(&a.out, &result, &run_info).map_err(|e| e.to_string())?;
    let rows: Vec<Vec<String>> = result
        .claims
        .iter()
        .map(|c| {
            vec![
                c.id.clone(),
                c.paper.to_string(),
                match c.spread {
                    // The median of several draws, with their range.
                    Some(sp) => format!("{} [{}..{}]", c.measured, sp.min, sp.max),
                    None => c.measured.to_string(),
                },
                c.unit.clone(),
                if c.holds {
                    "holds".into()
                } else {
                    "MISSES".into()
                },
            ]
        })
        .collect();
    println!(
        "reproduce {} (scale {}, seed {})",
        result.target, result.scale, result.seed
    );
    print!(
        "{}",
        table::render(&["claim", "paper", "measured", "unit", "result"], &rows)
    );
    let held = result.claims.iter().filter(|c| c.holds).count();
    println!(
        "\n{held} of {} claims hold; report: {}",
        result.claims.len(),
        files.report_html.display()
    );
    Ok(())
}
