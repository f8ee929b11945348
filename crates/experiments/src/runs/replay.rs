//! A replay run as data: `zonelab replay`'s options by name, with its defaults.

use super::overrides::{echo, to_overrides, OverrideMap};
use super::units::UnitArg;
use super::{Progress, ProgressFn, RunError};
use crate::replay::{run_replay, ReplayMode, ReplayOptions};
use crate::run_result::RunResult;
use serde::{Deserialize, Serialize};
use std::path::Path;
use zonelab_workloads::trace::{TraceFormat, TraceOptions, TraceReader};

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
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub fold: bool,
    #[serde(default = "one_second")]
    pub sample_interval: UnitArg,
}

fn auto() -> String {
    "auto".into()
}
fn one() -> f64 {
    1.0
}
fn one_second() -> UnitArg {
    UnitArg::text("1s")
}

impl ReplayRequest {
    fn format(&self) -> Result<TraceFormat, RunError> {
        if self.format == "auto" {
            TraceFormat::detect_path(Path::new(&self.trace))
                .map_err(|e| RunError::Run(e.to_string()))
        } else {
            self.format
                .parse::<TraceFormat>()
                .map_err(|e| RunError::option("format", e.to_string()))
        }
    }

    fn options(&self) -> Result<ReplayOptions, RunError> {
        Ok(ReplayOptions {
            mode: match self.qd {
                Some(qd) => ReplayMode::ClosedLoop { qd },
                None => ReplayMode::OpenLoop { speed: self.speed },
            },
            series_interval_ns: self
                .sample_interval
                .ns()
                .map_err(|e| RunError::option("sample_interval", e))?,
            limit: self.limit,
            fold_to_capacity: self.fold,
        })
    }

    pub fn canonical(&self) -> Result<serde_json::Value, RunError> {
        let o = self.options()?;
        Ok(serde_json::json!({
            "device": self.device,
            "overrides": echo(&self.overrides),
            "trace": self.trace,
            "format": self.format()?.name(),
            "mode": o.mode,
            "disk": self.disk,
            "allow_unsorted": self.allow_unsorted,
            "limit": self.limit,
            "fold": self.fold,
            "sample_interval_ns": o.series_interval_ns,
        }))
    }

    pub fn run(&self, progress: ProgressFn<'_>) -> Result<RunResult, RunError> {
        let format = self.format()?;
        let opts = self.options()?;
        let mut device =
            zonelab_devices::open_device_with(&self.device, &to_overrides(&self.overrides)?)?;
        let trace_options = TraceOptions {
            device: self.disk,
            allow_unsorted: self.allow_unsorted,
        };
        let mut reader = TraceReader::open(Path::new(&self.trace), format, trace_options)
            .map_err(|e| RunError::Run(e.to_string()))?;
        let mut config = serde_json::json!({
            "trace": self.trace,
            "format": format.name(),
            "disk": self.disk,
            "allow_unsorted": self.allow_unsorted,
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
        };
        result.map_err(|e| RunError::Run(e.to_string()))
    }
}
