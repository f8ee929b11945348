//! `zonelab replay`: a block trace on a device, open loop on its timestamps (with a
//! speed factor) or closed loop at a queue depth; optionally preconditioned first,
//! drained at the end unless `--no-drain`.

use crate::args::ReplayArgs;
use crate::cmd_bench::emit;
use crate::progress;
use zonelab_experiments::runs::overrides::parse_set;
use zonelab_experiments::runs::units::UnitArg;
use zonelab_experiments::runs::ReplayRequest;
use zonelab_workloads::trace::timing_warning;

/// The run the arguments describe (shared with the Python package and sweeps).
pub fn request_from_args(a: &ReplayArgs) -> Result<ReplayRequest, String> {
    Ok(ReplayRequest {
        device: a.device.clone(),
        overrides: parse_set(&a.set).map_err(|e| e.to_string())?,
        trace: a.trace.display().to_string(),
        format: a.format.clone(),
        speed: a.speed,
        qd: a.qd,
        disk: a.disk,
        allow_unsorted: a.allow_unsorted,
        precondition: a.precondition.clone(),
        no_drain: a.no_drain,
        limit: a.limit,
        fold: a.fold,
        sample_interval: a.sample_interval.as_deref().map(UnitArg::text),
    })
}

pub fn run(a: ReplayArgs) -> Result<(), String> {
    let request = request_from_args(&a)?;
    let pb = progress::bar(0, "{spinner} {pos} records replayed ({elapsed})");
    let mut report = |p: &zonelab_experiments::runs::Progress| pb.set_position(p.done);
    let result = request
        .run(Some(&mut report))
        .map_err(|e| e.cli_message())?;
    pb.finish_and_clear();
    if request.qd.is_none() {
        let counts = &result.config["record_counts"];
        let records = counts["records"].as_u64().unwrap_or(0);
        let span_ns = counts["trace_span_ns"].as_u64().unwrap_or(0);
        let format = request.trace_format().map_err(|e| e.cli_message())?;
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
