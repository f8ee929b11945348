//! Experiment (issue 14): HHZS / B3 load throughput across scales, each load stopped
//! at the end points (draws) `reproduce hhzs` uses, with the median and range, plus
//! the SSTs relocated, the WAL bytes written outside the WAL/cache pool, the WAL-full
//! flushes, and each draw's load throughput and compaction count per scheme. At
//! scale 0.253 an SST (1,011.2 MiB × scale) outgrows one 256 MiB HDD zone; the ratio
//! should not drop there.
//! `cargo run --release -p zonelab-experiments --example hhzs_load_sweep -- [scales,...] [seed] [draws]`
//! (draws as `LoadDraws` names them, e.g. `independent:6`; default: `reproduce hhzs`'s).

use zonelab_experiments::hhzs_eval::{run_load_job_at, LoadJob, Scheme};
use zonelab_experiments::hhzs_load_draws::{LoadDraws, LoadPlan};
use zonelab_experiments::hhzs_setup::{HybridSetup, PAPER_RECORDS};
use zonelab_experiments::reproduce_result::median;

/// The arguments: scales (default 0.2,0.25,0.3,0.4), seed (1), draws (the
/// default's); a bad one is named, never replaced by a default.
fn parse_args(args: &[String]) -> Result<(Vec<f64>, u64, LoadDraws), String> {
    let scales = match args.get(1) {
        None => vec![0.2, 0.25, 0.3, 0.4],
        Some(s) => s
            .split(',')
            .map(|x| match x.parse::<f64>() {
                Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
                _ => Err(format!("scale `{x}` is not a positive number")),
            })
            .collect::<Result<_, _>>()?,
    };
    let seed = match args.get(2) {
        None => 1,
        Some(s) => s
            .parse()
            .map_err(|_| format!("seed `{s}` is not an integer"))?,
    };
    let draws = match args.get(3) {
        None => LoadDraws::default(),
        Some(s) => s.parse()?,
    };
    Ok((scales, seed, draws))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (scales, seed, draws) = parse_args(&args).unwrap_or_else(|e| {
        eprintln!("hhzs_load_sweep: {e}");
        std::process::exit(2);
    });
    println!("scale  B3_ops/s  HHZS_ops/s  HHZS/B3_median  [min..max]  per end point");
    for scale in scales {
        let setup = HybridSetup::paper(scale);
        let records = ((PAPER_RECORDS as f64 * scale).round() as u64).max(1000);
        let plan = LoadPlan::new(draws, records, seed);
        let run = |scheme| {
            let job = LoadJob {
                scheme,
                ssd_zones: 20,
                workloads: Vec::new(),
            };
            run_load_job_at(&setup, &job, &plan).expect("load")
        };
        let (b3, hhzs) = (run(Scheme::Basic(3)), run(Scheme::Hhzs));
        let ratios: Vec<f64> = b3
            .iter()
            .zip(&hhzs)
            .map(|(b, h)| h.load.ops_per_s / b.load.ops_per_s)
            .collect();
        let ops = |r: &[zonelab_experiments::hhzs_eval::LoadResult]| {
            median(&r.iter().map(|x| x.load.ops_per_s).collect::<Vec<_>>())
        };
        let h0 = &hhzs[0];
        let b0 = &b3[0];
        println!(
            "  (first end point) relocated SSTs B3 {} HHZS {}; HHZS WAL outside the pool {} of {} B, WAL-full flushes {}",
            b0.relocations.ssts,
            h0.relocations.ssts,
            h0.wal_outside_pool_bytes,
            h0.load.wal_bytes,
            h0.load.wal_full_flushes
        );
        println!(
            "{scale:<6} {:>8.0} {:>10.0} {:>14.3}  [{:.3}..{:.3}]  {}",
            ops(&b3),
            ops(&hhzs),
            median(&ratios),
            ratios.iter().cloned().fold(f64::MAX, f64::min),
            ratios.iter().cloned().fold(f64::MIN, f64::max),
            ratios
                .iter()
                .map(|r| format!("{r:.3}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        // Each draw's load throughput and compactions: which scheme's load moves
        // when a draw's ratio differs from the others'.
        for (name, results) in [("B3", &b3), ("HHZS", &hhzs)] {
            let draws: Vec<String> = results
                .iter()
                .map(|r| {
                    format!(
                        "{:.0} ops/s, {} compactions",
                        r.load.ops_per_s, r.load.compactions
                    )
                })
                .collect();
            println!("  {name} per draw: {}", draws.join("; "));
        }
    }
}
