//! The sweep file (`SWEEP.toml`, or the same structure as a Python dict):
//!
//! ```toml
//! [sweep]
//! kind = "bench"            # bench | replay | ycsb | reproduce
//! design = "grid"           # grid | random | lhs (Latin hypercube)
//! samples = 16              # points of a random or lhs design
//! design_seed = 1           # seed of a random or lhs design
//! seeds = [1, 2]            # every point runs with each of these seeds
//! cross = ["scheme"]        # random/lhs: run every point with each of these
//!                           # parameters' values (e.g. to compare schemes)
//!
//! [base]                    # options every run shares (the CLI's names)
//! device = "ssd-conventional"
//! rw = "randwrite"
//! "device.capacity.capacity_mib" = 4096     # a profile field of `device`
//!
//! [params]                  # what varies
//! "device.capacity.over_provisioning_percent" = [7, 14, 28]        # values
//! iodepth = { min = 1, max = 32, integer = true, log = true, steps = 6 }  # a range
//! ```
//!
//! A key whose first part names a device option (`device` for bench and replay,
//! `ssd` / `hdd` for ycsb) followed by a dot is a field of that device's profile.

use serde::Deserialize;
use serde_json::{Map, Value};
use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
pub enum SpecError {
    #[error("sweep file `{path}`: {message}")]
    File { path: String, message: String },
    #[error("sweep spec: {0}")]
    Invalid(String),
}

fn invalid(msg: impl Into<String>) -> SpecError {
    SpecError::Invalid(msg.into())
}

/// How the points of a sweep are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// Every combination of every parameter's values.
    Grid,
    /// `samples` points, each parameter drawn independently.
    Random { samples: usize },
    /// `samples` points; each parameter's range is cut into `samples` strata and
    /// every stratum is used exactly once (McKay et al. 1979).
    LatinHypercube { samples: usize },
}

/// A swept parameter's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Domain {
    /// These values (numbers, strings, booleans).
    Values(Vec<Value>),
    /// A numeric range: `steps` evenly spaced points for a grid; any point of it
    /// for random and Latin-hypercube designs.
    Range {
        min: f64,
        max: f64,
        integer: bool,
        log: bool,
        steps: Option<usize>,
    },
}

/// A parsed, checked sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSpec {
    pub name: String,
    pub kind: String,
    pub design: Design,
    pub design_seed: u64,
    pub seeds: Vec<u64>,
    /// Options shared by every run.
    pub base: Map<String, Value>,
    /// Swept parameters, by key (sorted).
    pub params: Vec<(String, Domain)>,
    /// Metrics to keep (all headline metrics when `None`).
    pub metrics: Option<Vec<String>>,
    /// Parameters crossed with every sampled point of a random or Latin-hypercube
    /// design instead of being sampled (a grid crosses everything anyway).
    pub cross: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    sweep: SweepSection,
    #[serde(default)]
    base: Map<String, Value>,
    #[serde(default)]
    params: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepSection {
    #[serde(default)]
    name: Option<String>,
    kind: String,
    #[serde(default = "grid")]
    design: String,
    #[serde(default)]
    samples: Option<usize>,
    #[serde(default = "one")]
    design_seed: u64,
    #[serde(default = "seeds")]
    seeds: Vec<u64>,
    #[serde(default)]
    metrics: Option<Vec<String>>,
    #[serde(default)]
    cross: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeSpec {
    min: f64,
    max: f64,
    #[serde(default)]
    integer: bool,
    #[serde(default)]
    log: bool,
    #[serde(default)]
    steps: Option<usize>,
}

fn grid() -> String {
    "grid".into()
}
fn one() -> u64 {
    1
}
fn seeds() -> Vec<u64> {
    vec![1]
}

/// The largest sweep accepted (a guard against a typo'd design, not a limit of
/// the executors).
pub const MAX_RUNS: usize = 1_000_000;

impl SweepSpec {
    /// Reads a sweep file. `name` defaults to the file's stem.
    pub fn from_toml_file(path: &std::path::Path) -> Result<Self, SpecError> {
        let file_err = |message: String| SpecError::File {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| file_err(e.to_string()))?;
        let value: Value = toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map(|r| text[..r.start.min(text.len())].lines().count().max(1));
            file_err(match line {
                Some(l) => format!("{} (line {l})", e.message()),
                None => e.message().to_string(),
            })
        })?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "sweep".into());
        Self::from_json(value, &stem).map_err(|e| match e {
            SpecError::Invalid(m) => file_err(m),
            other => other,
        })
    }

    /// A sweep from its structure as JSON (what a Python dict becomes).
    pub fn from_json(value: Value, default_name: &str) -> Result<Self, SpecError> {
        let file: SpecFile = serde_json::from_value(value).map_err(|e| invalid(e.to_string()))?;
        let s = file.sweep;
        if !zonelab_experiments::runs::KINDS.contains(&s.kind.as_str()) {
            return Err(invalid(format!(
                "sweep.kind `{}` is unknown (expected one of {})",
                s.kind,
                zonelab_experiments::runs::KINDS.join(", ")
            )));
        }
        let samples = || match s.samples {
            Some(n) if n >= 1 => Ok(n),
            _ => Err(invalid(format!(
                "sweep.samples: a {} design needs samples >= 1",
                s.design
            ))),
        };
        let design = match s.design.as_str() {
            "grid" => Design::Grid,
            "random" => Design::Random {
                samples: samples()?,
            },
            "lhs" | "latin-hypercube" => Design::LatinHypercube {
                samples: samples()?,
            },
            other => {
                return Err(invalid(format!(
                    "sweep.design `{other}` is unknown (expected grid, random or lhs)"
                )))
            }
        };
        if design == Design::Grid && s.samples.is_some() {
            return Err(invalid(
                "sweep.samples is for random and lhs designs; a grid runs every combination",
            ));
        }
        if s.seeds.is_empty() {
            return Err(invalid("sweep.seeds is empty: give at least one seed"));
        }
        for key in file.base.keys().chain(file.params.keys()) {
            if key == "seed" {
                return Err(invalid(
                    "`seed` is set by sweep.seeds (every point runs with each seed)",
                ));
            }
            if key == "kind" {
                return Err(invalid("`kind` is set by sweep.kind"));
            }
        }
        if let Some(k) = file.params.keys().find(|k| file.base.contains_key(*k)) {
            return Err(invalid(format!("`{k}` is both in [base] and in [params]")));
        }
        for c in &s.cross {
            if !file.params.contains_key(c) {
                return Err(invalid(format!(
                    "sweep.cross: `{c}` is not a parameter in [params]"
                )));
            }
        }
        let mut params = Vec::new();
        for (key, v) in file.params {
            // Crossed parameters are enumerated like a grid's.
            let as_design = if s.cross.contains(&key) {
                Design::Grid
            } else {
                design
            };
            params.push((key.clone(), domain(&key, v, as_design)?));
        }
        let spec = SweepSpec {
            name: s.name.unwrap_or_else(|| default_name.to_string()),
            kind: s.kind,
            design,
            design_seed: s.design_seed,
            seeds: s.seeds,
            base: file.base,
            params,
            metrics: s.metrics,
            cross: s.cross,
        };
        let runs = spec.points_count().saturating_mul(spec.seeds.len());
        if runs > MAX_RUNS {
            return Err(invalid(format!(
                "the sweep has {runs} runs, more than {MAX_RUNS}: check the design"
            )));
        }
        Ok(spec)
    }

    /// Design points (before seeds).
    pub fn points_count(&self) -> usize {
        let grid = |keep: &dyn Fn(&str) -> bool| {
            self.params
                .iter()
                .filter(|(k, _)| keep(k))
                .map(|(_, d)| crate::design::grid_values(d).len())
                .fold(1usize, |a, n| a.saturating_mul(n))
        };
        match self.design {
            Design::Grid => grid(&|_| true),
            Design::Random { samples } | Design::LatinHypercube { samples } => {
                samples.saturating_mul(grid(&|k| self.cross.iter().any(|c| c == k)))
            }
        }
    }
}

fn domain(key: &str, v: Value, design: Design) -> Result<Domain, SpecError> {
    match v {
        Value::Array(values) => {
            if values.is_empty() {
                return Err(invalid(format!("params.`{key}`: the list of values is empty")));
            }
            if let Some(bad) = values.iter().find(|v| v.is_null() || v.is_object() || v.is_array()) {
                return Err(invalid(format!(
                    "params.`{key}`: {bad} is not a number, string or boolean"
                )));
            }
            Ok(Domain::Values(values))
        }
        Value::Object(_) => {
            let r: RangeSpec = serde_json::from_value(v)
                .map_err(|e| invalid(format!("params.`{key}`: {e}")))?;
            if !(r.min.is_finite() && r.max.is_finite() && r.min <= r.max) {
                return Err(invalid(format!(
                    "params.`{key}`: a range needs finite min <= max (got {}..{})",
                    r.min, r.max
                )));
            }
            if r.log && r.min <= 0.0 {
                return Err(invalid(format!(
                    "params.`{key}`: a log range needs min > 0 (got {})",
                    r.min
                )));
            }
            match (design, r.steps) {
                (Design::Grid, None) => {
                    return Err(invalid(format!(
                        "params.`{key}`: a range in a grid needs `steps` (how many values)"
                    )))
                }
                (_, Some(0)) => {
                    return Err(invalid(format!("params.`{key}`: steps must be >= 1")))
                }
                _ => {}
            }
            Ok(Domain::Range {
                min: r.min,
                max: r.max,
                integer: r.integer,
                log: r.log,
                steps: r.steps,
            })
        }
        other => Err(invalid(format!(
            "params.`{key}` = {other}: give a list of values or a range {{ min, max }} (fixed values go in [base])"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> Result<SweepSpec, SpecError> {
        SweepSpec::from_json(v, "t")
    }

    #[test]
    fn a_grid_counts_every_combination() {
        let s = spec(json!({
            "sweep": {"kind": "bench", "seeds": [1, 2]},
            "base": {"device": "zn540"},
            "params": {"bs": ["4k", "8k"], "iodepth": {"min": 1, "max": 8, "steps": 4}}
        }))
        .unwrap();
        assert_eq!(s.points_count(), 8);
        assert_eq!(s.params[0].0, "bs");
        assert_eq!(s.name, "t");
    }

    #[test]
    fn mistakes_are_named() {
        for (v, needle) in [
            (
                json!({"sweep": {"kind": "fio"}}),
                "sweep.kind `fio` is unknown",
            ),
            (
                json!({"sweep": {"kind": "bench", "design": "sobol"}}),
                "sweep.design `sobol`",
            ),
            (
                json!({"sweep": {"kind": "bench", "design": "lhs"}}),
                "needs samples >= 1",
            ),
            (
                json!({"sweep": {"kind": "bench", "samples": 3}}),
                "a grid runs every",
            ),
            (
                json!({"sweep": {"kind": "bench"}, "params": {"iodepth": {"min": 1, "max": 4}}}),
                "needs `steps`",
            ),
            (
                json!({"sweep": {"kind": "bench"}, "params": {"iodepth": 4}}),
                "fixed values go in [base]",
            ),
            (
                json!({"sweep": {"kind": "bench"}, "params": {"iodepth": []}}),
                "is empty",
            ),
            (
                json!({"sweep": {"kind": "bench"}, "base": {"seed": 3}}),
                "sweep.seeds",
            ),
            (
                json!({"sweep": {"kind": "bench"}, "base": {"bs": "4k"}, "params": {"bs": ["8k"]}}),
                "both in [base] and in [params]",
            ),
            (
                json!({"sweep": {"kind": "bench", "design": "random", "samples": 2}, "params": {"x": {"min": 0, "max": 1, "log": true}}}),
                "log range needs min > 0",
            ),
            (
                json!({"sweep": {"kind": "bench", "sample": 3}}),
                "unknown field `sample`",
            ),
        ] {
            let e = spec(v).unwrap_err().to_string();
            assert!(e.contains(needle), "{e} lacks {needle}");
        }
    }

    #[test]
    fn toml_files_parse_and_errors_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("op.toml");
        std::fs::write(
            &p,
            "[sweep]\nkind = \"bench\"\n[base]\ndevice = \"zn540\"\n[params]\n\"device.flash.channels\" = [4, 8]\n",
        )
        .unwrap();
        let s = SweepSpec::from_toml_file(&p).unwrap();
        assert_eq!(s.name, "op");
        assert_eq!(s.points_count(), 2);
        std::fs::write(&p, "[sweep]\nkind = \"bench\"\nbad line\n").unwrap();
        let e = SweepSpec::from_toml_file(&p).unwrap_err().to_string();
        assert!(e.contains("op.toml") && e.contains("line 3"), "{e}");
    }
}
