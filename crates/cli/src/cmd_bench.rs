//! `zonelab bench`: a fio-like job on a device.

use crate::args::BenchArgs;
use crate::{progress, table};
use zonelab_experiments::run_result::RunResult;
use zonelab_experiments::runs::overrides::parse_set;
use zonelab_experiments::runs::units::UnitArg;
use zonelab_experiments::runs::BenchRequest;

/// The run the arguments describe (the same request the Python package and sweeps
/// build, so all three give the same numbers).
pub fn request_from_args(a: &BenchArgs) -> Result<BenchRequest, String> {
    let text = |s: &Option<String>| s.as_deref().map(UnitArg::text);
    Ok(BenchRequest {
        device: a.device.clone(),
        overrides: parse_set(&a.set).map_err(|e| e.to_string())?,
        rw: a.rw.clone(),
        bs: UnitArg::text(&a.bs),
        iodepth: a.iodepth,
        numjobs: a.numjobs,
        offset: UnitArg::text(&a.offset),
        size: text(&a.size),
        io_size: text(&a.io_size),
        runtime: text(&a.runtime),
        rwmixread: a.rwmixread,
        max_open_zones: a.max_open_zones,
        sample_interval: text(&a.sample_interval),
        precondition: a.precondition,
        no_drain: a.no_drain,
        seed: a.seed,
        fdp_pid: a.fdp_pid.clone(),
    })
}

pub fn run(a: BenchArgs) -> Result<(), String> {
    let request = request_from_args(&a)?;
    let pb = progress::bytes_bar();
    let mut report = |p: &zonelab_experiments::runs::Progress| {
        if p.total > 0 {
            pb.set_length(p.total);
        }
        pb.set_position(p.done);
    };
    let result = request
        .run(Some(&mut report))
        .map_err(|e| e.cli_message())?;
    pb.finish_and_clear();
    emit(&result, a.json, a.out.as_deref())
}

/// Prints a run's result as JSON or a table, and writes it to `out` if given.
pub fn emit(result: &RunResult, json: bool, out: Option<&std::path::Path>) -> Result<(), String> {
    let text = serde_json::to_string_pretty(result).map_err(|e| e.to_string())? + "\n";
    if let Some(path) = out {
        std::fs::write(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if json {
        print!("{text}");
    } else {
        print!("{}", summary_table(result));
    }
    Ok(())
}

/// `ftl-ssd` counters shown in the summary (all counters are in the JSON).
const FTL_MECHANISM_COUNTERS: &[&str] = &[
    "map_cache_hits",
    "map_cache_misses",
    "translation_read_bytes",
    "translation_write_bytes",
    "reads_ahead_of_programs",
    "program_suspends",
    "erase_suspends",
    "suspend_limit_waits",
    "sub_block_read_units",
    "sub_block_rmw_units",
];

pub fn summary_table(r: &RunResult) -> String {
    let mut s = format!(
        "{} on {} ({}): {} ops, {:.1} MiB in {} virtual\nthroughput {:.1} MiB/s, {:.1} IOPS, WAF {:.3}\n\n",
        r.kind,
        r.device.name,
        r.device.model,
        r.ops,
        r.bytes as f64 / (1u64 << 20) as f64,
        table::fmt_ns(r.duration_ns),
        r.throughput_mib_s,
        r.iops,
        r.device_stats.write_amplification
    );
    let mut rows = Vec::new();
    for (name, t) in [("read", &r.read), ("write", &r.write), ("trim", &r.trim)] {
        if t.ops == 0 {
            continue;
        }
        let l = &t.latency;
        rows.push(vec![
            name.to_string(),
            t.ops.to_string(),
            table::fmt_ns(l.mean_ns as u64),
            table::fmt_ns(l.p50_ns),
            table::fmt_ns(l.p90_ns),
            table::fmt_ns(l.p99_ns),
            table::fmt_ns(l.p999_ns),
            table::fmt_ns(l.p9999_ns),
            table::fmt_ns(l.max_ns),
        ]);
    }
    s.push_str(&table::render(
        &[
            "op", "count", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "max",
        ],
        &rows,
    ));
    let d = &r.device_stats;
    s.push_str(&format!(
        "\ndevice: host writes {} B, media writes {} B, still buffered {} B ({}), GC runs {}, GC copied {} B, erases {}, zone resets {} (job resets {})\n",
        d.host_write_bytes,
        d.media_write_bytes,
        d.buffered_write_bytes,
        if r.drain_done_ns.is_some() { "after the end-of-run drain" } else { "not drained: --no-drain" },
        d.gc_runs,
        d.gc_copied_bytes,
        d.erases,
        d.zone_resets,
        r.job_zone_resets
    ));
    // Conventional-SSD mechanisms (issue 22), when the profile has them.
    let ftl: Vec<String> = FTL_MECHANISM_COUNTERS
        .iter()
        .filter_map(|k| d.counters.get(*k).map(|v| format!("{k} {v}")))
        .collect();
    if !ftl.is_empty() {
        s.push_str(&format!("ftl: {}\n", ftl.join(", ")));
    }
    let util: Vec<String> = d
        .utilisation
        .iter()
        .map(|(k, v)| format!("{k} {:.1}%", v * 100.0))
        .collect();
    if !util.is_empty() {
        s.push_str(&format!("utilisation: {}\n", util.join(", ")));
    }
    s.push_str(&ef_smr_line(r));
    s
}

/// For an EF-SMR disk, the metrics of MU-RMW §IV-B: average and worst-case
/// response time over all requests, RMWs, cleanings and their average time.
fn ef_smr_line(r: &RunResult) -> String {
    let c = &r.device_stats.counters;
    let (Some(&rmws), Some(&cleanings)) = (c.get("rmws"), c.get("cleanings")) else {
        return String::new();
    };
    let total = c.get("cleaning_ns_total").copied().unwrap_or(0);
    let act = if cleanings > 0 { total / cleanings } else { 0 };
    format!(
        "ef-smr: average response {}, worst case {}, {} RMWs, {} cleanings ({} with RMWs), average cleaning {}, longest {}\n",
        table::fmt_ns(r.latency.mean_ns as u64),
        table::fmt_ns(r.latency.max_ns),
        rmws,
        cleanings,
        c.get("rmw_cleanings").copied().unwrap_or(0),
        table::fmt_ns(act),
        table::fmt_ns(c.get("cleaning_ns_max").copied().unwrap_or(0)),
    )
}
