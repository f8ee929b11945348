//! `zonelab replay`: a block trace on a device, open loop on its timestamps (with a
//! speed factor) or closed loop at a queue depth; optionally preconditioned first,
//! drained at the end unless `--no-drain`.

use crate::args::ReplayArgs;
use crate::cmd_bench::{check_sample_interval, emit, sample_interval};
use crate::progress;
use zonelab_devices::Device;
use zonelab_experiments::bench::{precondition, BenchOptions, PRECONDITION_IDLE_NS};
use zonelab_experiments::replay::{run_replay, Footprint, ReplayError, ReplayMode, ReplayOptions};
use zonelab_workloads::job::{JobSpec, RwMode};
use zonelab_workloads::trace::{
    timing_warning, FieldProblem, LineError, TraceError, TraceFormat, TraceOptions, TraceReader,
};

/// What `--precondition` asked for.
#[derive(Clone, Copy, PartialEq)]
enum Precondition {
    Full,
    Footprint,
}

fn parse_precondition(value: Option<&str>) -> Result<Option<Precondition>, String> {
    match value {
        None => Ok(None),
        Some("full") => Ok(Some(Precondition::Full)),
        Some("footprint") => Ok(Some(Precondition::Footprint)),
        Some(other) => Err(format!(
            "--precondition: unknown mode `{other}` (full or footprint)"
        )),
    }
}

pub fn run(a: ReplayArgs) -> Result<(), String> {
    let format = if a.format == "auto" {
        TraceFormat::detect_path(&a.trace).map_err(|e| e.to_string())?
    } else {
        a.format
            .parse::<TraceFormat>()
            .map_err(|e| format!("--format: {e}"))?
    };
    let (interval, explicit_interval) = sample_interval(a.sample_interval.as_deref(), "1s")?;
    let mode = match a.qd {
        Some(qd) => ReplayMode::ClosedLoop { qd },
        None => ReplayMode::OpenLoop { speed: a.speed },
    };
    let pre = parse_precondition(a.precondition.as_deref())?;
    let mut device = zonelab_devices::open_device(&a.device).map_err(|e| e.to_string())?;
    let options = TraceOptions {
        device: a.disk,
        // Closed loop does not use timestamps, so their order does not matter.
        allow_unsorted: a.allow_unsorted || a.qd.is_some(),
    };
    let mut opts = ReplayOptions {
        mode,
        series_interval_ns: interval,
        limit: a.limit,
        fold_to_capacity: a.fold,
        start_ns: 0,
        drain_at_end: !a.no_drain,
    };
    let open = |options| TraceReader::open(&a.trace, format, options).map_err(|e| e.to_string());
    let mut precondition_bytes = None;
    if let Some(p) = pre {
        let (end_ns, bytes) = run_precondition(device.as_mut(), p, &mut open(options)?, &opts)?;
        opts.start_ns = end_ns + PRECONDITION_IDLE_NS;
        precondition_bytes = Some(bytes);
    }
    let mut reader = open(options)?;
    let config = serde_json::json!({
        "trace": a.trace.display().to_string(),
        "format": format.name(),
        "disk": a.disk,
        "allow_unsorted": a.allow_unsorted,
        "precondition": a.precondition,
        "precondition_bytes": precondition_bytes,
        "drain": !a.no_drain,
    });
    let pb = progress::bar(0, "{spinner} {pos} records replayed ({elapsed})");
    let mut report = |n: u64| pb.set_position(n);
    let result = run_replay(
        device.as_mut(),
        &mut reader,
        &opts,
        config,
        Some(&mut report),
    )
    .map_err(|e| replay_error_message(&e))?;
    pb.finish_and_clear();
    check_sample_interval(&result, interval, explicit_interval)?;
    if let ReplayMode::OpenLoop { .. } = mode {
        let counts = &result.config["record_counts"];
        let records = counts["records"].as_u64().unwrap_or(0);
        let span_ns = counts["trace_span_ns"].as_u64().unwrap_or(0);
        if let Some(w) = timing_warning(format, records, span_ns) {
            eprintln!("zonelab: warning: {}: {w}", a.trace.display());
        }
    }
    let ignored = result.config["record_counts"]["placement_ids_ignored"]
        .as_u64()
        .unwrap_or(0);
    if ignored > 0 {
        eprintln!(
            "zonelab: note: {}: {ignored} placement identifier(s) not sent (on reads or trims, or the device has no Flexible Data Placement)",
            a.trace.display()
        );
    }
    emit(&result, a.json, a.out.as_deref())
}

/// Preconditions the device; returns when the fill ended and the bytes written.
fn run_precondition(
    device: &mut dyn Device,
    p: Precondition,
    reader: &mut TraceReader,
    opts: &ReplayOptions,
) -> Result<(u64, u64), String> {
    let capacity = device.info().capacity_bytes();
    match p {
        Precondition::Full => {
            let fill = JobSpec {
                rw: RwMode::Write,
                ..JobSpec::default()
            };
            let end = precondition(device, &fill, &BenchOptions::default())
                .map_err(|e| format!("--precondition full: {e}"))?;
            Ok((end - PRECONDITION_IDLE_NS, capacity))
        }
        Precondition::Footprint => {
            if device.info().zoned.is_some() {
                return Err(format!(
                    "--precondition footprint writes where the trace does, which a zoned device ({}) accepts only at write pointers; use --precondition full",
                    device.info().name
                ));
            }
            let footprint = Footprint::of_trace(device, reader, opts)
                .map_err(|e| format!("--precondition footprint: {}", replay_error_message(&e)))?;
            let end = footprint
                .fill(device, 0)
                .map_err(|e| format!("--precondition footprint: {e}"))?;
            Ok((end, footprint.bytes()))
        }
    }
}

/// A replay error as the CLI says it: options by their flag names.
fn replay_error_message(e: &ReplayError) -> String {
    match e {
        ReplayError::Trace(t @ TraceError::Line { problem, .. })
            if matches!(
                problem,
                LineError::Field {
                    problem: FieldProblem::Backwards { .. },
                    ..
                }
            ) =>
        {
            format!("{t}: replay with --allow-unsorted to issue records in file order (each at max(previous arrival, own time)), or with --qd N (closed loop, timestamps unused)")
        }
        ReplayError::SpeedOverflow { .. } => format!("--speed: {e}"),
        ReplayError::BadOption { option, reason } => {
            format!("--{option}: {reason}")
        }
        _ => e.to_string(),
    }
}
