//! `zonelab ycsb`: YCSB on the RocksDB-like LSM-tree over hybrid zoned storage (a
//! ZNS SSD limited to a zone budget + an HM-SMR HDD) under one HHZS-paper scheme:
//! loads the data set, then runs a workload from the loaded state.

use crate::args::YcsbArgs;
use zonelab_experiments::runs::overrides::parse_set;
use zonelab_experiments::runs::YcsbRequest;
use zonelab_systems::lsm::LsmSummary;

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

/// The run the arguments describe (shared with the Python package and sweeps).
pub fn request_from_args(a: &YcsbArgs) -> Result<YcsbRequest, String> {
    Ok(YcsbRequest {
        scheme: a.scheme.clone(),
        workload: a.workload.clone(),
        scale: a.scale,
        records: a.records,
        operations: a.operations,
        alpha: a.alpha,
        read_ratio: a.read_ratio,
        target: a.target,
        ssd: a.ssd.clone(),
        hdd: a.hdd.clone(),
        ssd_zones: a.ssd_zones,
        no_metadata_zones: a.no_metadata_zones,
        seed: a.seed,
        overrides: parse_set(&a.set).map_err(|e| e.to_string())?,
    })
}

pub fn run(a: YcsbArgs) -> Result<(), String> {
    let out = request_from_args(&a)?.run().map_err(|e| e.cli_message())?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&out.json).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let (r, w, records) = (&out.result, &out.workload_id, out.records);
    println!(
        "{} on {} ({} zones) + {}, {records} records of 1 KiB (scale {}), seed {}",
        out.scheme.name(),
        a.ssd,
        a.ssd_zones,
        a.hdd,
        a.scale,
        a.seed
    );
    println!("       latencies: mean/p99 in us");
    println!("{}", line("load", &r.load));
    if let Some(run) = r.workloads.get(w) {
        println!("{}", line(w, &run.summary));
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
