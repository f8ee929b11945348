//! `zonelab sweep SWEEP.toml`: runs a sweep file on local worker processes (this
//! binary's hidden `sweep-worker` command) or, with `--executor ray`, hands it to
//! the Python package, which runs each run as a Ray task into the same cache and
//! writes the same files.

use crate::args::SweepArgs;
use crate::{progress, table};
use std::path::Path;
use zonelab_sweep::plan::describe;
use zonelab_sweep::{default_out, default_workers, ProcessPool, Sweep, SweepSpec};

pub fn run(a: SweepArgs) -> Result<(), String> {
    let spec = SweepSpec::from_toml_file(&a.spec).map_err(|e| e.to_string())?;
    let out = a.out.clone().unwrap_or_else(|| default_out(&spec));
    if a.workers == Some(0) {
        return Err("--workers must be at least 1".into());
    }
    match a.executor.as_str() {
        "local" => {}
        "ray" => return run_on_ray(&a, &out),
        other => return Err(format!("--executor: `{other}` is unknown (local or ray)")),
    }
    let sweep = Sweep::open(spec, &out)?;
    if a.dry_run {
        return dry_run(&sweep);
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let pool = ProcessPool {
        command: vec![exe.display().to_string(), "sweep-worker".into()],
        workers: a.workers.unwrap_or_else(default_workers),
    };
    let pb = progress::bar(0, "{spinner} [{bar:30}] {pos}/{len} runs ({elapsed})");
    let wall = std::time::Instant::now();
    let stats = sweep.run_local(&pool, &mut |done, total| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    })?;
    pb.finish_and_clear();
    let (_, outputs) = sweep.finish()?;
    println!(
        "sweep {}: {} runs ({} distinct): {} cached, {} run now ({} failed), {} crashed, in {:.1} s on {} workers",
        sweep.spec.name,
        stats.runs,
        stats.unique,
        stats.cached,
        stats.executed.len(),
        stats.failed,
        stats.crashed.len(),
        wall.elapsed().as_secs_f64(),
        pool.workers
    );
    println!(
        "{}, {}, {}",
        outputs.parquet.display(),
        outputs.csv.display(),
        outputs.report.display()
    );
    if let Some(first) = stats.crashed.first() {
        return Err(format!(
            "{} runs crashed and were not cached (run the sweep again to retry them); first: {first}",
            stats.crashed.len()
        ));
    }
    Ok(())
}

fn dry_run(sweep: &Sweep) -> Result<(), String> {
    let pending: std::collections::HashSet<String> =
        sweep.pending().into_iter().map(|w| w.hash).collect();
    let rows: Vec<Vec<String>> = sweep
        .runs
        .iter()
        .map(|r| {
            vec![
                r.index.to_string(),
                r.hash[..16].to_string(),
                describe(&r.point, r.seed),
                if pending.contains(&r.hash) {
                    "to run".into()
                } else {
                    "cached".into()
                },
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["run", "hash", "config", "state"], &rows)
    );
    println!(
        "\n{} runs, {} distinct, {} to run",
        sweep.runs.len(),
        sweep.unique(),
        pending.len()
    );
    Ok(())
}

/// `--executor ray`: the Python package drives Ray (`python3 -m zonelab sweep`).
fn run_on_ray(a: &SweepArgs, out: &Path) -> Result<(), String> {
    let python = std::env::var("ZONELAB_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut cmd = std::process::Command::new(&python);
    cmd.args(["-m", "zonelab", "sweep"])
        .arg(&a.spec)
        .arg("--out")
        .arg(out)
        .args(["--executor", "ray"]);
    if let Some(addr) = &a.address {
        cmd.args(["--address", addr]);
    }
    if a.dry_run {
        cmd.arg("--dry-run");
    }
    let status = cmd.status().map_err(|e| {
        format!("--executor ray runs through the Python package, but `{python}` cannot be started: {e} (set ZONELAB_PYTHON)")
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "--executor ray: `{python} -m zonelab sweep` failed ({status}); it needs the zonelab Python package with Ray (`pip install zonelab[ray]`, docs/python.md)"
        ))
    }
}

/// The hidden `sweep-worker` command.
pub fn serve_worker() -> Result<(), String> {
    let stdin = std::io::stdin();
    zonelab_sweep::worker::serve(stdin.lock(), std::io::stdout().lock())
        .map_err(|e| format!("sweep worker: {e}"))
}
