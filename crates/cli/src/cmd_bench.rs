//! `zonelab bench`: a fio-like job on a device.

use crate::args::BenchArgs;
use crate::units::{parse_duration_ns, parse_size};
use crate::{progress, table};
use zonelab_devices::Device;
use zonelab_experiments::bench::{precondition, run_bench, BenchOptions, PlacementIds};
use zonelab_experiments::run_result::{min_series_interval_ns, RunResult, MAX_SERIES_POINTS};
use zonelab_workloads::job::{JobSpec, RwMode};

fn opt(name: &str, r: Result<u64, String>) -> Result<u64, String> {
    r.map_err(|e| format!("--{name}: {e}"))
}

/// `--sample-interval` in nanoseconds and whether the user gave it (else `default`).
pub fn sample_interval(given: Option<&str>, default: &str) -> Result<(u64, bool), String> {
    let ns = opt(
        "sample-interval",
        parse_duration_ns(given.unwrap_or(default)),
    )?;
    Ok((ns, given.is_some()))
}

/// Rejects a run whose series needed a wider interval than the one the user gave
/// (the recorder doubled it to stay within `MAX_SERIES_POINTS`).
pub fn check_sample_interval(r: &RunResult, asked_ns: u64, explicit: bool) -> Result<(), String> {
    if explicit && r.throughput_series.interval_ns != asked_ns {
        let min = min_series_interval_ns(r.duration_ns);
        return Err(format!(
            "--sample-interval {} gives more than {MAX_SERIES_POINTS} points over this run's {} of virtual time; the minimum for this run is --sample-interval {min}ns (about {})",
            table::fmt_ns(asked_ns),
            table::fmt_ns(r.duration_ns),
            table::fmt_ns(min)
        ));
    }
    Ok(())
}

pub fn spec_from_args(a: &BenchArgs) -> Result<JobSpec, String> {
    let rw: RwMode = a.rw.parse().map_err(|e| format!("--rw: {e}"))?;
    Ok(JobSpec {
        rw,
        block_size_bytes: opt("bs", parse_size(&a.bs))?,
        iodepth: a.iodepth,
        numjobs: a.numjobs,
        offset_bytes: opt("offset", parse_size(&a.offset))?,
        size_bytes: a
            .size
            .as_deref()
            .map(|s| opt("size", parse_size(s)))
            .transpose()?,
        io_size_bytes: a
            .io_size
            .as_deref()
            .map(|s| opt("io-size", parse_size(s)))
            .transpose()?,
        runtime_ns: a
            .runtime
            .as_deref()
            .map(|s| opt("runtime", parse_duration_ns(s)))
            .transpose()?,
        rwmixread_percent: a.rwmixread,
        max_open_zones: a.max_open_zones,
    })
}

pub fn run(a: BenchArgs) -> Result<(), String> {
    let spec = spec_from_args(&a)?;
    let (interval, explicit_interval) = sample_interval(a.sample_interval.as_deref(), "100ms")?;
    let mut device = zonelab_devices::open_device(&a.device).map_err(|e| e.to_string())?;
    let pb = progress::bytes_bar();
    let mut report = |done: u64, planned: u64| {
        if planned > 0 {
            pb.set_length(planned);
        }
        pb.set_position(done);
    };
    let mut opts = BenchOptions {
        seed: a.seed,
        series_interval_ns: interval,
        drain_at_end: !a.no_drain,
        ..BenchOptions::default()
    };
    if let Some(list) = a.fdp_pid.as_deref() {
        opts.placement_ids = placement_ids(list, device.as_ref())?;
    }
    if a.precondition {
        opts.start_ns = precondition(device.as_mut(), &spec, &opts)
            .map_err(|e| format!("precondition: {e}"))?;
    }
    let result =
        run_bench(device.as_mut(), &spec, &opts, Some(&mut report)).map_err(|e| e.to_string())?;
    pb.finish_and_clear();
    check_sample_interval(&result, interval, explicit_interval)?;
    emit(&result, a.json, a.out.as_deref())
}

/// `--fdp-pid`: a comma-separated list of placement identifiers, each one the
/// device has (a bad identifier is a user error here, though the device itself
/// would log it and write to handle 0, as NVMe FDP says).
pub fn placement_ids(list: &str, device: &dyn Device) -> Result<PlacementIds, String> {
    let Some(fdp) = device.fdp() else {
        return Err(format!(
            "--fdp-pid: device `{}` has no Flexible Data Placement (use an ftl-ssd profile with an [fdp] section, e.g. zn540-fdp)",
            device.info().name
        ));
    };
    let mut ids = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        let pid: u16 = item
            .parse()
            .map_err(|_| format!("--fdp-pid: `{item}` is not a placement identifier (0-65535)"))?;
        if fdp.config.decode(pid).is_none() {
            return Err(format!(
                "--fdp-pid: {pid} names no placement handle of `{}` ({} handle(s) in {} reclaim group(s); with one group the identifiers are 0-{})",
                device.info().name,
                fdp.config.handles.len(),
                fdp.config.reclaim_groups,
                fdp.config.handles.len() - 1
            ));
        }
        ids.push(pid);
    }
    PlacementIds::new(&ids).map_err(|e| format!("--fdp-pid: {e}"))
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
