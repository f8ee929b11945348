//! `zonelab replay`: a block trace on a device, open loop on its timestamps (with a
//! speed factor) or closed loop at a queue depth.

use crate::args::ReplayArgs;
use crate::cmd_bench::emit;
use crate::progress;
use crate::units::parse_duration_ns;
use zonelab_experiments::replay::{run_replay, ReplayMode, ReplayOptions};
use zonelab_workloads::trace::{TraceFormat, TraceOptions, TraceReader};

pub fn run(a: ReplayArgs) -> Result<(), String> {
    let format = if a.format == "auto" {
        TraceFormat::detect_path(&a.trace).map_err(|e| e.to_string())?
    } else {
        a.format
            .parse::<TraceFormat>()
            .map_err(|e| format!("--format: {e}"))?
    };
    let interval =
        parse_duration_ns(&a.sample_interval).map_err(|e| format!("--sample-interval: {e}"))?;
    let mode = match a.qd {
        Some(qd) => ReplayMode::ClosedLoop { qd },
        None => ReplayMode::OpenLoop { speed: a.speed },
    };
    let mut device = zonelab_devices::open_device(&a.device).map_err(|e| e.to_string())?;
    let options = TraceOptions {
        device: a.disk,
        allow_unsorted: a.allow_unsorted,
    };
    let mut reader = TraceReader::open(&a.trace, format, options).map_err(|e| e.to_string())?;
    let config = serde_json::json!({
        "trace": a.trace.display().to_string(),
        "format": format.name(),
        "disk": a.disk,
        "allow_unsorted": a.allow_unsorted,
    });
    let pb = progress::bar(0, "{spinner} {pos} records replayed ({elapsed})");
    let mut report = |n: u64| pb.set_position(n);
    let opts = ReplayOptions {
        mode,
        series_interval_ns: interval,
        limit: a.limit,
        fold_to_capacity: a.fold,
    };
    let result = run_replay(
        device.as_mut(),
        &mut reader,
        &opts,
        config,
        Some(&mut report),
    )
    .map_err(|e| e.to_string())?;
    pb.finish_and_clear();
    emit(&result, a.json, a.out.as_deref())
}
