//! `zonelab profile-hdd`: the BCW/MIOS §3 profiling of a disk's buffered writes —
//! a sync, then sequential QD1 writes of one size — and the buffered-write model's
//! parameters derived from the latencies (see `zonelab_systems::mios::profiler`).

use crate::args::ProfileHddArgs;
use crate::table;
use crate::units::parse_size;
use std::io::Write;
use std::path::Path;
use zonelab_experiments::report::render_figure_svg;
use zonelab_experiments::reproduce_result::{Figure, FigureKind, Series};
use zonelab_systems::mios::{
    analyse, record_trace, HddProfile, LatencyTrace, MiosError, ProfileConfig,
};

pub fn run(a: ProfileHddArgs) -> Result<(), String> {
    let write_bytes = parse_size(&a.size).map_err(|e| format!("--size: {e}"))?;
    let total_bytes = parse_size(&a.total).map_err(|e| format!("--total: {e}"))?;
    if write_bytes == 0 {
        return Err(format!("--size {}: must be positive", a.size));
    }
    if total_bytes < write_bytes {
        return Err(format!(
            "--total {}: must hold at least one write of --size {}",
            a.total, a.size
        ));
    }
    let mut device = zonelab_devices::open_device(&a.device).map_err(|e| e.to_string())?;
    let info = device.info();
    let block = info.block_bytes as u64;
    if !write_bytes.is_multiple_of(block) {
        return Err(format!(
            "--size {}: {write_bytes} B is not a multiple of {}'s {block}-byte block",
            a.size, info.name
        ));
    }
    let model = info.model.clone();
    let trace = record_trace(
        device.as_mut(),
        &ProfileConfig::new(write_bytes).with_total(total_bytes),
    )
    .map_err(|e| match e {
        MiosError::BadConfig { what: "total", .. } => format!("--total {}: {e}", a.total),
        e => e.to_string(),
    })?;
    // The latency series is worth having even when it shows no staircase.
    let analysis = analyse(&trace);
    if let Some(dir) = &a.out {
        write_outputs(dir, &trace, analysis.as_ref().ok())?;
    }
    let profile = analysis.map_err(|e| e.to_string())?;
    let text = if a.json {
        serde_json::to_string_pretty(&profile).map_err(|e| e.to_string())? + "\n"
    } else {
        summary(&profile, &model)
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

fn fmt_bytes(b: u64) -> String {
    const KIB: f64 = 1024.0;
    let x = b as f64;
    if x >= KIB * KIB {
        format!("{:.2} MiB", x / (KIB * KIB))
    } else if x >= KIB {
        format!("{:.1} KiB", x / KIB)
    } else {
        format!("{b} B")
    }
}

fn summary(p: &HddProfile, model: &str) -> String {
    let q = &p.params;
    let mut s = format!(
        "{} ({model}): {} sequential writes of {} ({}) at QD1 after a sync, {} virtual\n",
        p.device,
        p.writes,
        fmt_bytes(p.write_bytes),
        fmt_bytes(p.total_bytes),
        table::fmt_ns(p.duration_ns)
    );
    s.push_str(&format!(
        "writes: {} F, {} M, {} S; {} slow stages, {} complete mid stages, {} stray writes\n\n",
        p.counts.f, p.counts.m, p.counts.s, p.slow_stages, p.complete_mid_stages, p.stray_writes
    ));
    let rows: Vec<Vec<String>> = [
        (
            "L_f",
            table::fmt_ns(q.l_f_ns),
            "fast-write latency (median)",
        ),
        ("L_m", table::fmt_ns(q.l_m_ns), "mid-write latency (median)"),
        (
            "L_s",
            table::fmt_ns(q.l_s_ns),
            "slow-write latency (median)",
        ),
        (
            "W_f",
            fmt_bytes(q.w_f_bytes),
            "bytes of fast writes before the first slow write",
        ),
        (
            "W_m",
            fmt_bytes(q.w_m_bytes),
            "bytes written per mid stage (mean)",
        ),
        ("W_s", fmt_bytes(q.w_s_bytes), "bytes per slow stage (mean)"),
        ("T_f", table::fmt_ns(q.t_f_ns), "duration of the fast stage"),
        (
            "T_m",
            table::fmt_ns(q.t_m_ns),
            "duration of a mid stage (mean)",
        ),
        (
            "T_s",
            table::fmt_ns(q.t_s_ns),
            "duration of a slow stage (mean)",
        ),
        (
            "F/M",
            table::fmt_ns(q.thresholds.mid_min_ns),
            "writes at least this slow are M",
        ),
        (
            "M/S",
            table::fmt_ns(q.thresholds.slow_min_ns),
            "writes at least this slow are S",
        ),
    ]
    .into_iter()
    .map(|(a, b, c)| vec![a.to_string(), b, c.to_string()])
    .collect();
    s.push_str(&table::render(&["parameter", "value", "meaning"], &rows));
    s
}

/// `latency.csv` (index, time_ns, latency_ns, state; state `-` when the trace
/// shows no staircase) and `latency.svg` (latency against time, Fig. 1/3 style).
fn write_outputs(
    dir: &Path,
    trace: &LatencyTrace,
    profile: Option<&HddProfile>,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut csv = String::from("index,time_ns,latency_ns,state\n");
    for (i, w) in trace.samples.iter().enumerate() {
        let state = profile.map_or("-", |p| p.states[i].letter());
        csv.push_str(&format!("{i},{},{},{state}\n", w.submit_ns, w.latency_ns));
    }
    let path = dir.join("latency.csv");
    std::fs::write(&path, csv).map_err(|e| format!("cannot write {}: {e}", path.display()))?;

    // Log scale: the three levels are ratios apart (µs against ms).
    let points = trace
        .samples
        .iter()
        .map(|w| {
            (
                (w.submit_ns - trace.sync_done_ns) as f64 / 1e6,
                (w.latency_ns as f64 / 1e3).max(1.0).log10(),
            )
        })
        .collect();
    let fig = Figure {
        id: "latency".into(),
        title: format!(
            "{}: sequential {} writes at QD1 after a sync",
            trace.device,
            fmt_bytes(trace.write_bytes)
        ),
        kind: FigureKind::Line,
        x_label: "time since the sync (ms)".into(),
        y_label: "write latency, log10(us)".into(),
        categories: Vec::new(),
        series: vec![Series {
            name: "write latency".into(),
            points,
        }],
    };
    let path = dir.join("latency.svg");
    std::fs::write(&path, render_figure_svg(&fig))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(())
}
