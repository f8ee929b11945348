//! A replay run as data: `zonelab replay`'s options by name, with its defaults:
//! optionally preconditioned first, drained at the end unless `no_drain`.

use super::overrides::{echo, to_overrides, OverrideMap};
use super::replay_precondition::Precondition;
use super::units::UnitArg;
use super::{sample_interval, Progress, ProgressFn, RunError};
use crate::bench::PRECONDITION_IDLE_NS;
use crate::replay::{run_replay, ReplayError, ReplayMode, ReplayOptions};
use crate::run_result::RunResult;
use serde::{Deserialize, Serialize};
use std::path::Path;
use zonelab_workloads::trace::{
    FieldProblem, LineError, TraceError, TraceFormat, TraceOptions, TraceReader,
};

/// `zonelab replay` as data (option names as on the command line, `_` for `-`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayRequest {
    pub device: String,
    #[serde(default)]
    pub overrides: OverrideMap,
    /// Trace file.
    pub trace: String,
    #[serde(default = "auto")]
    pub format: String,
    /// Open loop: inter-arrival times divided by this.
    #[serde(default = "one")]
    pub speed: f64,
    /// Closed loop at this queue depth instead of the timestamps.
    #[serde(default)]
    pub qd: Option<u32>,
    #[serde(default)]
    pub disk: Option<u64>,
    #[serde(default)]
    pub allow_unsorted: bool,
    /// `full` or `footprint` (see `replay_precondition`); none: no preconditioning.
    #[serde(default)]
    pub precondition: Option<String>,
    /// Leave the device's write buffers as they are at the end.
    #[serde(default)]
    pub no_drain: bool,
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub fold: bool,
    /// Interval of the throughput series; none: 1 s, doubled as often as needed.
    #[serde(default)]
    pub sample_interval: Option<UnitArg>,
}

const DEFAULT_INTERVAL: &str = "1s";

fn auto() -> String {
    "auto".into()
}
fn one() -> f64 {
    1.0
}

/// A replay error as the CLI says it: options by their flag names.
pub fn error_message(e: &ReplayError) -> String {
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

impl ReplayRequest {
    pub fn trace_format(&self) -> Result<TraceFormat, RunError> {
        if self.format == "auto" {
            TraceFormat::detect_path(Path::new(&self.trace))
                .map_err(|e| RunError::Run(e.to_string()))
        } else {
            self.format
                .parse::<TraceFormat>()
                .map_err(|e| RunError::option("format", e.to_string()))
        }
    }

    /// The series interval in ns and whether it was given.
    fn interval_ns(&self) -> Result<(u64, bool), RunError> {
        sample_interval::resolve(self.sample_interval.as_ref(), DEFAULT_INTERVAL)
    }

    fn options(&self) -> Result<ReplayOptions, RunError> {
        Ok(ReplayOptions {
            mode: match self.qd {
                Some(qd) => ReplayMode::ClosedLoop { qd },
                None => ReplayMode::OpenLoop { speed: self.speed },
            },
            series_interval_ns: self.interval_ns()?.0,
            limit: self.limit,
            fold_to_capacity: self.fold,
            start_ns: 0,
            drain_at_end: !self.no_drain,
        })
    }

    fn trace_options(&self) -> TraceOptions {
        TraceOptions {
            device: self.disk,
            // Closed loop does not use timestamps, so their order does not matter.
            allow_unsorted: self.allow_unsorted || self.qd.is_some(),
        }
    }

    pub fn canonical(&self) -> Result<serde_json::Value, RunError> {
        let o = self.options()?;
        Precondition::parse(self.precondition.as_deref())?;
        Ok(serde_json::json!({
            "device": self.device,
            "overrides": echo(&self.overrides),
            "trace": self.trace,
            "format": self.trace_format()?.name(),
            "mode": o.mode,
            "disk": self.disk,
            "allow_unsorted": self.trace_options().allow_unsorted,
            "precondition": self.precondition,
            "drain": o.drain_at_end,
            "limit": self.limit,
            "fold": self.fold,
            "sample_interval_ns": o.series_interval_ns,
            "sample_interval_given": self.sample_interval.is_some(),
        }))
    }

    pub fn run(&self, progress: ProgressFn<'_>) -> Result<RunResult, RunError> {
        let format = self.trace_format()?;
        let (interval, explicit_interval) = self.interval_ns()?;
        let mut opts = self.options()?;
        let pre = Precondition::parse(self.precondition.as_deref())?;
        let mut device =
            zonelab_devices::open_device_with(&self.device, &to_overrides(&self.overrides)?)?;
        let open = || {
            TraceReader::open(Path::new(&self.trace), format, self.trace_options())
                .map_err(|e| RunError::Run(e.to_string()))
        };
        let mut precondition_bytes = None;
        if let Some(p) = pre {
            let (end_ns, bytes) = p.run(device.as_mut(), &mut open()?, &opts)?;
            opts.start_ns = end_ns + PRECONDITION_IDLE_NS;
            precondition_bytes = Some(bytes);
        }
        let mut reader = open()?;
        let mut config = serde_json::json!({
            "trace": self.trace,
            "format": format.name(),
            "disk": self.disk,
            "allow_unsorted": self.allow_unsorted,
            "precondition": self.precondition,
            "precondition_bytes": precondition_bytes,
            "drain": !self.no_drain,
        });
        if !self.overrides.is_empty() {
            config["device_overrides"] = echo(&self.overrides);
        }
        let result = match progress {
            Some(p) => {
                let mut report = |records: u64| {
                    p(&Progress {
                        done: records,
                        total: 0,
                        unit: "records",
                        label: String::new(),
                    })
                };
                run_replay(
                    device.as_mut(),
                    &mut reader,
                    &opts,
                    config,
                    Some(&mut report),
                )
            }
            None => run_replay(device.as_mut(), &mut reader, &opts, config, None),
        }
        .map_err(|e| RunError::Run(error_message(&e)))?;
        sample_interval::check(&result, interval, explicit_interval)?;
        Ok(result)
    }
}
