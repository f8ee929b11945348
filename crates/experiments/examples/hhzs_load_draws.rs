//! Experiment (issue 14 item 5): `reproduce hhzs` with a chosen way of drawing each
//! scheme's load, to compare branches from different points with independent loads
//! and with end points of one load. Writes `DIR/results.json` (as `reproduce`
//! does) and prints the claims held.
//! `cargo run --release -p zonelab-experiments --example hhzs_load_draws -- SCALE SEED DRAWS DIR`
//! DRAWS: `independent:COUNT[:SPREAD]` (the default of `reproduce hhzs` is
//! `independent:3`; a SPREAD draws each load's record count within ±SPREAD),
//! `branches:COUNT:FRACTION` (e.g. `branches:5:0.9`) or `endpoints:COUNT:SPREAD`
//! (e.g. `endpoints:5:0.02`, the behaviour before).

use zonelab_experiments::hhzs_load_draws::LoadDraws;
use zonelab_experiments::reproduce::hhzs::HhzsTarget;
use zonelab_experiments::reproduce::{write_outputs, NoProgress, RunOptions, Target};

fn parse_draws(s: &str) -> Result<LoadDraws, String> {
    let parts: Vec<&str> = s.split(':').collect();
    let bad = || {
        format!("DRAWS `{s}`: expected independent:COUNT, branches:COUNT:FRACTION or endpoints:COUNT:SPREAD")
    };
    let count: usize = parts.get(1).ok_or_else(bad)?.parse().map_err(|_| bad())?;
    if parts[0] == "independent" && parts.len() == 2 {
        return Ok(LoadDraws::IndependentLoads {
            count,
            record_spread: 0.0,
        });
    }
    if parts.len() != 3 {
        return Err(bad());
    }
    let x: f64 = parts[2].parse().map_err(|_| bad())?;
    let draws = match parts[0] {
        "branches" => LoadDraws::Branches {
            count,
            branch_fraction: x,
        },
        "endpoints" => LoadDraws::EndPointsOfOneLoad { count, spread: x },
        "independent" => LoadDraws::IndependentLoads {
            count,
            record_spread: x,
        },
        _ => return Err(bad()),
    };
    draws.validate()?;
    Ok(draws)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let run = || -> Result<(), String> {
        if args.len() != 5 {
            return Err("usage: hhzs_load_draws SCALE SEED DRAWS DIR".into());
        }
        let scale: f64 = args[1]
            .parse()
            .map_err(|_| format!("SCALE `{}` is not a number", args[1]))?;
        let seed: u64 = args[2]
            .parse()
            .map_err(|_| format!("SEED `{}` is not an integer", args[2]))?;
        let draws = parse_draws(&args[3])?;
        let target = HhzsTarget { draws };
        let opts = RunOptions {
            scale,
            seed,
            traces_dir: None,
        };
        let result = target
            .run(&opts, &mut NoProgress)
            .map_err(|e| e.to_string())?;
        let info = serde_json::json!({ "scale": scale, "seed": seed, "draws": args[3] });
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
