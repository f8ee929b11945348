//! A bench run as data: `zonelab bench`'s options by name, with its defaults.

use super::overrides::{echo, to_overrides, OverrideMap};
use super::units::UnitArg;
use super::{sample_interval, Progress, ProgressFn, RunError};
use crate::bench::{precondition, run_bench, BenchOptions};
use crate::run_result::RunResult;
use serde::{Deserialize, Serialize};
use zonelab_workloads::job::{JobSpec, RwMode};

/// `zonelab bench` as data (option names as on the command line, `_` for `-`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BenchRequest {
    /// Built-in profile name or path to a profile .toml.
    pub device: String,
    /// Profile fields to change (`{"flash.channels": 16}`).
    #[serde(default)]
    pub overrides: OverrideMap,
    #[serde(default = "default_rw")]
    pub rw: String,
    #[serde(default = "default_bs")]
    pub bs: UnitArg,
    #[serde(default = "one")]
    pub iodepth: u32,
    #[serde(default = "one")]
    pub numjobs: u32,
    #[serde(default = "zero")]
    pub offset: UnitArg,
    #[serde(default)]
    pub size: Option<UnitArg>,
    #[serde(default)]
    pub io_size: Option<UnitArg>,
    #[serde(default)]
    pub runtime: Option<UnitArg>,
    #[serde(default = "fifty")]
    pub rwmixread: u32,
    #[serde(default)]
    pub max_open_zones: Option<u32>,
    /// Interval of the throughput series; none: 100 ms, doubled as often as needed.
    #[serde(default)]
    pub sample_interval: Option<UnitArg>,
    #[serde(default)]
    pub precondition: bool,
    /// Leave the device's write buffers as they are at the end (by default a flush
    /// drains them, so device statistics describe data on the media).
    #[serde(default)]
    pub no_drain: bool,
    #[serde(default = "one_u64")]
    pub seed: u64,
}

const DEFAULT_INTERVAL: &str = "100ms";

fn default_rw() -> String {
    "randread".into()
}
fn default_bs() -> UnitArg {
    UnitArg::text("4k")
}
fn zero() -> UnitArg {
    UnitArg::text("0")
}
fn one() -> u32 {
    1
}
fn one_u64() -> u64 {
    1
}
fn fifty() -> u32 {
    50
}

impl BenchRequest {
    /// A request with every option at its default.
    pub fn new(device: &str) -> Self {
        serde_json::from_value(serde_json::json!({ "device": device }))
            .expect("defaults deserialise")
    }

    /// The job, with units resolved; errors name the option.
    pub fn job_spec(&self) -> Result<JobSpec, RunError> {
        let size = |name: &str, v: &UnitArg| v.bytes().map_err(|e| RunError::option(name, e));
        let dur = |name: &str, v: &UnitArg| v.ns().map_err(|e| RunError::option(name, e));
        Ok(JobSpec {
            rw: self
                .rw
                .parse::<RwMode>()
                .map_err(|e| RunError::option("rw", e))?,
            block_size_bytes: size("bs", &self.bs)?,
            iodepth: self.iodepth,
            numjobs: self.numjobs,
            offset_bytes: size("offset", &self.offset)?,
            size_bytes: self.size.as_ref().map(|v| size("size", v)).transpose()?,
            io_size_bytes: self
                .io_size
                .as_ref()
                .map(|v| size("io_size", v))
                .transpose()?,
            runtime_ns: self
                .runtime
                .as_ref()
                .map(|v| dur("runtime", v))
                .transpose()?,
            rwmixread_percent: self.rwmixread,
            max_open_zones: self.max_open_zones,
        })
    }

    /// The series interval in ns and whether it was given.
    fn interval_ns(&self) -> Result<(u64, bool), RunError> {
        sample_interval::resolve(self.sample_interval.as_ref(), DEFAULT_INTERVAL)
    }

    pub fn canonical(&self) -> Result<serde_json::Value, RunError> {
        Ok(serde_json::json!({
            "device": self.device,
            "overrides": echo(&self.overrides),
            "job": self.job_spec()?,
            "sample_interval_ns": self.interval_ns()?.0,
            "sample_interval_given": self.sample_interval.is_some(),
            "precondition": self.precondition,
            "drain": !self.no_drain,
            "seed": self.seed,
        }))
    }

    /// Runs the job (after preconditioning if asked).
    pub fn run(&self, progress: ProgressFn<'_>) -> Result<RunResult, RunError> {
        let spec = self.job_spec()?;
        let (interval, explicit_interval) = self.interval_ns()?;
        let mut device =
            zonelab_devices::open_device_with(&self.device, &to_overrides(&self.overrides)?)?;
        let mut opts = BenchOptions {
            seed: self.seed,
            series_interval_ns: interval,
            drain_at_end: !self.no_drain,
            ..BenchOptions::default()
        };
        if self.precondition {
            opts.start_ns = precondition(device.as_mut(), &spec, &opts)
                .map_err(|e| RunError::Run(format!("precondition: {e}")))?;
        }
        let mut result = match progress {
            Some(p) => {
                let mut report = |done: u64, total: u64| {
                    p(&Progress {
                        done,
                        total,
                        unit: "bytes",
                        label: String::new(),
                    })
                };
                run_bench(device.as_mut(), &spec, &opts, Some(&mut report))
            }
            None => run_bench(device.as_mut(), &spec, &opts, None),
        }
        .map_err(|e| RunError::Run(e.to_string()))?;
        sample_interval::check(&result, interval, explicit_interval)?;
        if !self.overrides.is_empty() {
            result.config["device_overrides"] = echo(&self.overrides);
        }
        Ok(result)
    }
}
