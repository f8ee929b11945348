//! A YCSB run as data: `zonelab ycsb`'s options by name, with its defaults. Loads
//! the records into the LSM-tree on the hybrid set-up under one scheme, then runs
//! the workload from the loaded state (`papers/hhzs.txt` §4.1).

use super::overrides::{echo, split_by_device, to_overrides, OverrideMap};
use super::RunError;
use crate::hhzs_eval::{run_load_job, LoadJob, LoadResult, Scheme, WorkloadJob};
use crate::hhzs_setup::{HybridSetup, PAPER_RECORDS};
use serde::{Deserialize, Serialize};
use zonelab_workloads::ycsb::{custom, workload, CoreWorkloadSpec};

/// `zonelab ycsb` as data (option names as on the command line, `_` for `-`).
/// Overrides name their device: `{"ssd.flash.channels": 4, "hdd.mechanics.rpm": 5400}`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct YcsbRequest {
    #[serde(default = "hhzs")]
    pub scheme: String,
    #[serde(default = "letter_a")]
    pub workload: String,
    #[serde(default = "hundredth")]
    pub scale: f64,
    #[serde(default)]
    pub records: Option<u64>,
    #[serde(default)]
    pub operations: Option<u64>,
    #[serde(default = "alpha")]
    pub alpha: f64,
    #[serde(default = "half")]
    pub read_ratio: f64,
    #[serde(default)]
    pub target: u64,
    #[serde(default = "zn540")]
    pub ssd: String,
    #[serde(default = "st14000nm0007")]
    pub hdd: String,
    #[serde(default = "twenty")]
    pub ssd_zones: u32,
    /// The ablation without the zones the file system's and RocksDB's metadata
    /// take (`HybridSetup::metadata_zones` off).
    #[serde(default)]
    pub no_metadata_zones: bool,
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default)]
    pub overrides: OverrideMap,
}

fn hhzs() -> String {
    "hhzs".into()
}
fn letter_a() -> String {
    "a".into()
}
fn hundredth() -> f64 {
    0.01
}
fn alpha() -> f64 {
    0.9
}
fn half() -> f64 {
    0.5
}
fn zn540() -> String {
    "zn540".into()
}
fn st14000nm0007() -> String {
    "st14000nm0007".into()
}
fn twenty() -> u32 {
    20
}
fn one() -> u64 {
    1
}

/// A finished YCSB run: the typed result for tables and the JSON the CLI prints.
pub struct YcsbOutcome {
    pub scheme: Scheme,
    /// The workload's id in `result.workloads` (the lower-cased workload name).
    pub workload_id: String,
    pub records: u64,
    pub result: LoadResult,
    pub json: serde_json::Value,
}

/// The set-up, records, workload id and job of a request, every option checked.
struct Plan {
    scheme: Scheme,
    setup: HybridSetup,
    records: u64,
    workload_id: String,
    job: LoadJob,
}

impl YcsbRequest {
    fn plan(&self) -> Result<Plan, RunError> {
        let scheme: Scheme = self
            .scheme
            .parse()
            .map_err(|e: String| RunError::option("scheme", e))?;
        if self.records == Some(0) {
            return Err(RunError::Run(
                "--records 0 loads nothing; give at least 1".into(),
            ));
        }
        if self.operations == Some(0) {
            return Err(RunError::Run(
                "--operations 0 runs nothing; give at least 1 (or --workload load for a load alone)"
                    .into(),
            ));
        }
        if !(self.scale > 0.0 && self.scale <= 1.0) {
            return Err(RunError::option(
                "scale",
                format!("{} is out of range (0 < scale <= 1)", self.scale),
            ));
        }
        if self.ssd_zones == 0 {
            return Err(RunError::Run("--ssd-zones must be at least 1".into()));
        }
        let by_device = split_by_device(&self.overrides, &["ssd", "hdd"])?;
        let mut setup = HybridSetup::paper(self.scale);
        setup.ssd_profile = self.ssd.clone();
        setup.hdd_profile = self.hdd.clone();
        setup.ssd_overrides = to_overrides(&by_device["ssd"])?;
        setup.hdd_overrides = to_overrides(&by_device["hdd"])?;
        setup.ssd_zones = self.ssd_zones;
        setup.metadata_zones = !self.no_metadata_zones;
        let records = self
            .records
            .unwrap_or(((PAPER_RECORDS as f64 * self.scale).round() as u64).max(1000));
        let operations = self
            .operations
            .unwrap_or(((1e6 * self.scale).round() as u64).max(10_000));
        let w = self.workload.to_ascii_lowercase();
        let mut workloads = Vec::new();
        if w != "load" {
            let mut spec = self.workload_spec(&w)?;
            spec.record_count = records;
            spec.operation_count = operations;
            spec.field_count = 1;
            spec.field_length_bytes = setup.options.value_bytes;
            spec.target_ops_per_s = self.target;
            spec.validate().map_err(|e| RunError::Run(e.to_string()))?;
            workloads.push(WorkloadJob {
                id: w.clone(),
                spec,
                migration_bytes_per_s: None,
            });
        }
        Ok(Plan {
            scheme,
            setup,
            records,
            workload_id: w,
            job: LoadJob {
                scheme,
                ssd_zones: self.ssd_zones,
                workloads,
            },
        })
    }

    fn workload_spec(&self, w: &str) -> Result<CoreWorkloadSpec, RunError> {
        if w == "mix" {
            return custom(self.read_ratio, self.alpha).map_err(|e| RunError::Run(e.to_string()));
        }
        let letter = w.chars().next().filter(|_| w.len() == 1).ok_or_else(|| {
            RunError::Run(format!(
                "unknown workload `{}` (load, a-f or mix)",
                self.workload
            ))
        })?;
        let mut s = workload(letter).map_err(|e| RunError::Run(e.to_string()))?;
        s.zipfian_constant = self.alpha;
        Ok(s)
    }

    pub fn canonical(&self) -> Result<serde_json::Value, RunError> {
        let p = self.plan()?;
        // The workload's Debug form lists every field (floats round-trip): exact.
        let spec = p.job.workloads.first().map(|w| format!("{:?}", w.spec));
        Ok(serde_json::json!({
            "scheme": p.scheme.name(),
            "scale": self.scale,
            "records": p.records,
            "workload": p.workload_id,
            "workload_spec": spec,
            "ssd": self.ssd, "hdd": self.hdd, "ssd_zones": self.ssd_zones,
            "overrides": echo(&self.overrides),
            "seed": self.seed,
            "no_metadata_zones": self.no_metadata_zones,
        }))
    }

    /// Loads and runs; the JSON is what `zonelab ycsb --json` prints.
    pub fn run(&self) -> Result<YcsbOutcome, RunError> {
        let p = self.plan()?;
        let r = run_load_job(&p.setup, &p.job, p.records, self.seed).map_err(RunError::Run)?;
        let mut json = serde_json::json!({
            "scheme": p.scheme.name(),
            "ssd": self.ssd, "hdd": self.hdd, "ssd_zones": self.ssd_zones,
            "scale": self.scale, "records": p.records, "seed": self.seed,
            "load": r.load,
            "run": r.workloads.get(&p.workload_id),
        });
        if !self.overrides.is_empty() {
            json["overrides"] = echo(&self.overrides);
        }
        if self.no_metadata_zones {
            json["no_metadata_zones"] = true.into();
        }
        Ok(YcsbOutcome {
            scheme: p.scheme,
            workload_id: p.workload_id,
            records: p.records,
            result: r,
            json,
        })
    }
}
