//! `zonelab reproduce`: runs a paper target (or `all` of them, the main job), writes
//! results.json, run-info.json, CSVs and report.html (and index.html for `all`),
//! and prints the claims table. The output directory is created and checked before
//! anything runs. A claim that misses is a result (exit 0); only errors exit
//! non-zero.

use crate::args::ReproduceArgs;
use crate::{progress, table};
use std::path::Path;
use std::time::{Instant, SystemTime};
use zonelab_experiments::reproduce::main_job::{default_scale, run_all, run_info, AllOptions};
use zonelab_experiments::reproduce::{
    check_cpu_jitter, check_cpu_jitter_range, check_draws, targets, write_outputs, ProgressSink,
};
use zonelab_experiments::reproduce_result::ReproduceResult;
use zonelab_experiments::runs::ReproduceRequest;

pub fn run(a: ReproduceArgs) -> Result<(), String> {
    if a.list {
        let rows: Vec<Vec<String>> = targets()
            .iter()
            .map(|t| {
                let (lo, hi) = t.scale_range();
                vec![
                    t.name().to_string(),
                    default_scale(t.name()).map_or("-".into(), |d| d.scale.to_string()),
                    format!("{lo}..{hi}"),
                    t.description().to_string(),
                ]
            })
            .collect();
        print!(
            "{}",
            table::render(
                &["target", "scale in `all`", "scales", "description"],
                &rows
            )
        );
        return Ok(());
    }
    let Some(name) = a.target.as_deref() else {
        return Err(
            "reproduce needs a target or `all` (see `zonelab reproduce --list`)".to_string(),
        );
    };
    if name != "all" && !targets().iter().any(|t| t.name() == name) {
        // Checked here too, so a typo does not create the output directory.
        let known: Vec<&str> = targets().iter().map(|t| t.name()).collect();
        return Err(format!(
            "unknown reproduce target `{name}` (known targets: {}, or all)",
            known.join(", ")
        ));
    }
    if name != "all" {
        // Checked before the output directory is created, as the target's name is.
        check_draws(name, a.draws.map(|d| d as usize)).map_err(|e| e.to_string())?;
        check_cpu_jitter(name, a.cpu_jitter_ppm).map_err(|e| e.to_string())?;
    } else if let Some(ppm) = a.cpu_jitter_ppm {
        // With `all` only its range is checked (the targets without it ignore it).
        check_cpu_jitter_range(ppm).map_err(|e| e.to_string())?;
    }
    prepare_out_dir(&a.out)?;
    if name == "all" {
        return run_all_targets(&a);
    }
    let started = SystemTime::now();
    let wall = Instant::now();
    let mut bar = progress::StepBar(progress::bar(
        1,
        "{spinner} [{bar:30}] {pos}/{len} {msg} ({elapsed})",
    ));
    // The same request the Python package and sweeps run.
    let request = ReproduceRequest {
        target: name.to_string(),
        scale: a.scale.unwrap_or(1.0),
        seed: a.seed,
        traces: a.traces.as_ref().map(|p| p.display().to_string()),
        draws: a.draws.map(|d| d as usize),
        cpu_jitter_ppm: a.cpu_jitter_ppm,
    };
    let mut report = |p: &zonelab_experiments::runs::Progress| bar.step(p.done, p.total, &p.label);
    let result = request
        .run(Some(&mut report))
        .map_err(|e| e.cli_message())?;
    bar.0.finish_and_clear();
    let command: Vec<String> = std::env::args().collect();
    let info = run_info(name, started, wall.elapsed().as_secs_f64(), &command);
    let files = write_outputs(&a.out, &result, &info).map_err(|e| e.to_string())?;
    print_claims(&result);
    let held = result.claims.iter().filter(|c| c.holds).count();
    println!(
        "\n{held} of {} claims hold; report: {}",
        result.claims.len(),
        files.report_html.display()
    );
    Ok(())
}

/// `reproduce all`: every target, one summary line each, then the index.
fn run_all_targets(a: &ReproduceArgs) -> Result<(), String> {
    let mut bar = progress::StepBar(progress::bar(
        1,
        "{spinner} [{bar:30}] {pos}/{len} {msg} ({elapsed})",
    ));
    let opts = AllOptions {
        out: &a.out,
        seed: a.seed,
        scale_override: a.scale,
        traces_dir: a.traces.clone(),
        draws: a.draws.map(|d| d as usize),
        cpu_jitter_ppm: a.cpu_jitter_ppm,
        command: std::env::args().collect(),
    };
    let pb = bar.0.clone();
    let mut on_done = |r: &zonelab_experiments::reproduce::main_job::TargetRun| {
        let line = match &r.outcome {
            Ok((res, _)) => format!(
                "{:<16} scale {:<6} {:>8.1} s   {} of {} claims hold",
                r.target,
                r.scale,
                r.wall_s,
                res.claims.iter().filter(|c| c.holds).count(),
                res.claims.len()
            ),
            Err(e) => format!("{:<16} scale {:<6} FAILED: {e}", r.target, r.scale),
        };
        pb.suspend(|| println!("{line}"));
    };
    let runs = run_all(&opts, &mut bar, &mut on_done).map_err(|e| e.to_string())?;
    bar.0.finish_and_clear();
    let (held, total) = runs
        .iter()
        .filter_map(|r| r.outcome.as_ref().ok())
        .map(|(res, _)| {
            (
                res.claims.iter().filter(|c| c.holds).count(),
                res.claims.len(),
            )
        })
        .fold((0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
    let wall: f64 = runs.iter().map(|r| r.wall_s).sum();
    println!(
        "\n{held} of {total} claims hold across {} targets in {wall:.1} s; index: {}",
        runs.len(),
        a.out.join("index.html").display()
    );
    let failed: Vec<&str> = runs
        .iter()
        .filter(|r| r.outcome.is_err())
        .map(|r| r.target.as_str())
        .collect();
    if !failed.is_empty() {
        return Err(format!(
            "{} target(s) failed: {} (see {})",
            failed.len(),
            failed.join(", "),
            a.out.join("index.html").display()
        ));
    }
    Ok(())
}

fn print_claims(result: &ReproduceResult) {
    let rows: Vec<Vec<String>> = result
        .claims
        .iter()
        .map(|c| {
            vec![
                c.id.clone(),
                c.paper.to_string(),
                match &c.spread {
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
}

/// Creates `--out` and checks that a file can be written in it, before a run that
/// may take hours at paper scale.
fn prepare_out_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| {
        format!(
            "--out {}: cannot create the output directory: {e}",
            dir.display()
        )
    })?;
    let probe = dir.join(".zonelab-write-check");
    std::fs::write(&probe, b"").map_err(|e| {
        format!(
            "--out {}: the output directory is not writable: {e}",
            dir.display()
        )
    })?;
    std::fs::remove_file(&probe).map_err(|e| {
        format!(
            "--out {}: cannot remove the write check {}: {e}",
            dir.display(),
            probe.display()
        )
    })
}
