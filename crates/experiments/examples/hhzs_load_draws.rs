//! Experiment (issue 14 item 5): `reproduce hhzs` with a chosen way of drawing each
//! scheme's load, to compare branches from different points with independent loads
//! and with end points of one load. Writes `DIR/results.json` (as `reproduce`
//! does) and prints the claims held.
//! `cargo run --release -p zonelab-experiments --example hhzs_load_draws -- SCALE SEED DRAWS DIR [CPU_JITTER_PPM]`
//! DRAWS: `independent:COUNT[:SPREAD]` (the default of `reproduce hhzs` is
//! `independent:3`; a SPREAD draws each load's record count within ±SPREAD),
//! `branches:COUNT:FRACTION` (e.g. `branches:5:0.9`) or `endpoints:COUNT:SPREAD`
//! (e.g. `endpoints:5:0.02`, the behaviour before). CPU_JITTER_PPM: the run-to-run
//! variation of flush and compaction CPU time (`CpuCosts::job_jitter_ppm`; default
//! the target's, `MEASURED_CPU_JITTER_PPM`; 0 gives the exact model).

use zonelab_experiments::hhzs_load_draws::LoadDraws;
use zonelab_experiments::reproduce::hhzs::{HhzsTarget, MEASURED_CPU_JITTER_PPM};
use zonelab_experiments::reproduce::{write_outputs, NoProgress, RunOptions, Target};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let run = || -> Result<(), String> {
        if args.len() != 5 && args.len() != 6 {
            return Err("usage: hhzs_load_draws SCALE SEED DRAWS DIR [CPU_JITTER_PPM]".into());
        }
        let scale: f64 = args[1]
            .parse()
            .map_err(|_| format!("SCALE `{}` is not a number", args[1]))?;
        let seed: u64 = args[2]
            .parse()
            .map_err(|_| format!("SEED `{}` is not an integer", args[2]))?;
        let draws: LoadDraws = args[3].parse()?;
        let cpu_jitter_ppm: u64 = match args.get(5) {
            Some(a) => a
                .parse()
                .map_err(|_| format!("CPU_JITTER_PPM `{a}` is not an integer"))?,
            None => MEASURED_CPU_JITTER_PPM,
        };
        let target = HhzsTarget {
            draws,
            cpu_jitter_ppm,
        };
        let opts = RunOptions {
            scale,
            seed,
            traces_dir: None,
            draws: None,
            cpu_jitter_ppm: None,
        };
        let result = target
            .run(&opts, &mut NoProgress)
            .map_err(|e| e.to_string())?;
        let info = serde_json::json!({ "scale": scale, "seed": seed, "draws": args[3], "cpu_jitter_ppm": cpu_jitter_ppm });
        write_outputs(std::path::Path::new(&args[4]), &result, &info).map_err(|e| e.to_string())?;
        let held = result.claims.iter().filter(|c| c.holds).count();
        println!(
            "{} {scale} seed {seed}: {held} of {} claims",
            args[3],
            result.claims.len()
        );
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
