//! `zonelab ycsb`: YCSB on the RocksDB-like LSM-tree over hybrid zoned storage (a
//! ZNS SSD limited to a zone budget + an HM-SMR HDD) under one HHZS-paper scheme:
//! loads the data set, then runs a workload from the loaded state.

use crate::args::YcsbArgs;
use zonelab_experiments::hhzs_eval::{run_load_job, LoadJob, Scheme, WorkloadJob};
use zonelab_experiments::hhzs_setup::{HybridSetup, PAPER_RECORDS};
use zonelab_systems::lsm::LsmSummary;
use zonelab_workloads::ycsb::{custom, workload};

fn line(name: &str, s: &LsmSummary) -> String {
    let lat = |l: &Option<zonelab_engine::stats::LatencySummary>| {
        l.as_ref().map_or("-".to_string(), |l| {
            format!("{:.1}/{:.1}", l.mean_ns / 1e3, l.p99_ns as f64 / 1e3)
        })
    };
    format!(
        "{name:<6} {:>10} ops {:>10.0} ops/s {:>10.0} s   put {:>14}  get {:>14}  stalled {:.0} s",
        s.ops,
        s.ops_per_s,
        s.elapsed_s,
        lat(&s.put_latency),
        lat(&s.get_latency),
        s.stopped_s + s.delayed_s
    )
}

pub fn run(a: YcsbArgs) -> Result<(), String> {
    let scheme: Scheme = a.scheme.parse().map_err(|e| format!("--scheme: {e}"))?;
    if a.records == Some(0) {
        return Err("--records 0 loads nothing; give at least 1".into());
    }
    if a.operations == Some(0) {
        return Err(
            "--operations 0 runs nothing; give at least 1 (or --workload load for a load alone)"
                .into(),
        );
    }
    if !(a.scale > 0.0 && a.scale <= 1.0) {
        return Err(format!(
            "--scale {} is out of range (0 < scale <= 1)",
            a.scale
        ));
    }
    let mut setup = HybridSetup::paper(a.scale);
    setup.ssd_profile = a.ssd.clone();
    setup.hdd_profile = a.hdd.clone();
    if a.ssd_zones == 0 {
        return Err("--ssd-zones must be at least 1".into());
    }
    setup.ssd_zones = a.ssd_zones;
    let records = a
        .records
        .unwrap_or(((PAPER_RECORDS as f64 * a.scale).round() as u64).max(1000));
    let operations = a
        .operations
        .unwrap_or(((1e6 * a.scale).round() as u64).max(10_000));
    let w = a.workload.to_ascii_lowercase();
    let mut workloads = Vec::new();
    if w != "load" {
        let mut spec = if w == "mix" {
            custom(a.read_ratio, a.alpha).map_err(|e| e.to_string())?
        } else {
            let letter =
                w.chars().next().filter(|_| w.len() == 1).ok_or_else(|| {
                    format!("unknown workload `{}` (load, a-f or mix)", a.workload)
                })?;
            let mut s = workload(letter).map_err(|e| e.to_string())?;
            s.zipfian_constant = a.alpha;
            s
        };
        spec.record_count = records;
        spec.operation_count = operations;
        spec.field_count = 1;
        spec.field_length_bytes = setup.options.value_bytes;
        spec.target_ops_per_s = a.target;
        spec.validate().map_err(|e| e.to_string())?;
        workloads.push(WorkloadJob {
            id: w.clone(),
            spec,
            migration_bytes_per_s: None,
        });
    }
    let job = LoadJob {
        scheme,
        ssd_zones: a.ssd_zones,
        workloads,
    };
    let r = run_load_job(&setup, &job, records, a.seed)?;
    if a.json {
        let run = r.workloads.get(&w);
        let out = serde_json::json!({
            "scheme": scheme.name(),
            "ssd": a.ssd, "hdd": a.hdd, "ssd_zones": a.ssd_zones,
            "scale": a.scale, "records": records, "seed": a.seed,
            "load": r.load,
            "run": run,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!(
        "{} on {} ({} zones) + {}, {records} records of 1 KiB (scale {}), seed {}",
        scheme.name(),
        a.ssd,
        a.ssd_zones,
        a.hdd,
        a.scale,
        a.seed
    );
    println!("       latencies: mean/p99 in us");
    println!("{}", line("load", &r.load));
    if let Some(run) = r.workloads.get(&w) {
        println!("{}", line(&w, &run.summary));
        let levels: Vec<String> = run
            .ssd_share_pct
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let level = if i == 0 {
                    "WAL".into()
                } else {
                    format!("L{}", i - 1)
                };
                match p {
                    Some(p) => format!("{level}:{p:.0}%"),
                    None => format!("{level}:-"),
                }
            })
            .collect();
        println!("data on the SSD at the end: {}", levels.join(" "));
        println!(
            "SSD-cache hits {}, migrations {}",
            run.cache_hits, run.migrations
        );
    }
    Ok(())
}
