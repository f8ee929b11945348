//! A bench run as data: `zonelab bench`'s options by name, with its defaults.

use super::overrides::{echo, to_overrides, OverrideMap};
use super::units::UnitArg;
use super::{sample_interval, Progress, ProgressFn, RunError};
use crate::bench::{precondition, run_bench, BenchOptions, PlacementIds};
use crate::run_result::RunResult;
use serde::{Deserialize, Serialize};
use zonelab_devices::Device;
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
    /// NVMe FDP placement identifiers, comma-separated (`"0,1,2,3"`): job j writes
    /// with the j-th, cycling. Needs a device with Flexible Data Placement.
    #[serde(default)]
    pub fdp_pid: Option<String>,
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

    /// The `fdp_pid` list parsed (syntax only; [`Self::run`] checks it against the
    /// device's handles).
    pub fn placement_id_list(&self) -> Result<Option<Vec<u16>>, RunError> {
        let Some(list) = self.fdp_pid.as_deref() else {
            return Ok(None);
        };
        let ids = list
            .split(',')
            .map(|item| {
                let item = item.trim();
                item.parse::<u16>().map_err(|_| {
                    RunError::option(
                        "fdp_pid",
                        format!("`{item}` is not a placement identifier (0-65535)"),
                    )
                })
            })
            .collect::<Result<Vec<u16>, RunError>>()?;
        Ok(Some(ids))
    }

    pub fn canonical(&self) -> Result<serde_json::Value, RunError> {
        let mut canonical = serde_json::json!({
            "device": self.device,
            "overrides": echo(&self.overrides),
            "job": self.job_spec()?,
            "sample_interval_ns": self.interval_ns()?.0,
            "sample_interval_given": self.sample_interval.is_some(),
            "precondition": self.precondition,
            "drain": !self.no_drain,
            "seed": self.seed,
        });
        // Only when given, so the keys of runs without FDP stay as they were.
        if let Some(ids) = self.placement_id_list()? {
            canonical["fdp_pid"] = serde_json::json!(ids);
        }
        Ok(canonical)
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
        if let Some(ids) = self.placement_id_list()? {
            opts.placement_ids = placement_ids(&ids, device.as_ref())?;
        }
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

/// The identifiers checked against `device`'s FDP configuration.
fn placement_ids(ids: &[u16], device: &dyn Device) -> Result<PlacementIds, RunError> {
    let Some(fdp) = device.fdp() else {
        return Err(RunError::option(
            "fdp_pid",
            format!(
                "device `{}` has no Flexible Data Placement (use an ftl-ssd profile with an [fdp] section, e.g. zn540-fdp)",
                device.info().name
            ),
        ));
    };
    for &pid in ids {
        if fdp.config.decode(pid).is_none() {
            return Err(RunError::option(
                "fdp_pid",
                format!(
                    "{pid} names no placement handle of `{}` ({} handle(s) in {} reclaim group(s); with one group the identifiers are 0-{})",
                    device.info().name,
                    fdp.config.handles.len(),
                    fdp.config.reclaim_groups,
                    fdp.config.handles.len() - 1
                ),
            ));
        }
    }
    PlacementIds::new(ids).map_err(|e| RunError::option("fdp_pid", e))
}
