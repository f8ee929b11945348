//! A sweep in its output directory: the plan, the cache of finished runs, and
//! the table, CSV, Parquet and report built from them.
//!
//! `DIR/cache/` holds one entry per finished run; `DIR/runs.log` one JSON line
//! per run executed (hash, outcome, executor, time), so a user can see what a
//! resumed sweep did; `DIR/runs.parquet`, `DIR/runs.csv` and `DIR/report.html`
//! are rebuilt from the cache at the end of every sweep. Executors only need
//! [`Sweep::pending`] and [`Sweep::store`]: the local process pool here, Ray in
//! the Python package.

use crate::cache::{Cache, CachedRun};
use crate::executor::ProcessPool;
use crate::parquet_out::to_parquet;
use crate::plan::{plan, PlannedRun, VERSION};
use crate::report::{render, ReportInfo};
use crate::spec::{Design, SweepSpec};
use crate::table::{Cell, Column, Role, Table};
use crate::worker::{WorkDone, WorkItem};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use zonelab_experiments::runs::metrics::{headline, names};

/// Files a finished sweep writes.
#[derive(Debug, Clone)]
pub struct Outputs {
    pub parquet: PathBuf,
    pub csv: PathBuf,
    pub report: PathBuf,
}

/// What one execution of a sweep did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    /// Runs in the sweep, and distinct configurations among them.
    pub runs: usize,
    pub unique: usize,
    /// Found in the cache at the start.
    pub cached: usize,
    /// Hashes of the runs executed now, in completion order.
    pub executed: Vec<String>,
    /// Runs that ended in an error (cached: the configuration fails).
    pub failed: usize,
    /// Runs whose worker crashed (not cached: a rerun tries again).
    pub crashed: Vec<String>,
}

pub struct Sweep {
    pub spec: SweepSpec,
    pub out: PathBuf,
    pub runs: Vec<PlannedRun>,
    cache: Cache,
}

/// Where a sweep writes when not told: `results/sweep-<name>`.
pub fn default_out(spec: &SweepSpec) -> PathBuf {
    PathBuf::from("results").join(format!("sweep-{}", spec.name))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn check_metrics(spec: &SweepSpec) -> Result<(), String> {
    let Some(wanted) = &spec.metrics else {
        return Ok(());
    };
    let known = names(&spec.kind);
    for m in wanted {
        let ok = match &known {
            Some(k) => k.contains(&m.as_str()),
            None => m == "claims" || m == "claims_held" || m.starts_with("claim."),
        };
        if !ok {
            return Err(format!(
                "sweep.metrics: `{m}` is not a metric of {} runs (known: {})",
                spec.kind,
                known.map_or("claims, claims_held, claim.<id>".to_string(), |k| k
                    .join(", "))
            ));
        }
    }
    Ok(())
}

impl Sweep {
    /// Plans the sweep (checking every run) and prepares `out`.
    pub fn open(spec: SweepSpec, out: &Path) -> Result<Self, String> {
        check_metrics(&spec)?;
        let runs = plan(&spec)?;
        std::fs::create_dir_all(out)
            .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        let cache = Cache::open(&out.join("cache"))?;
        Ok(Self {
            spec,
            out: out.to_path_buf(),
            runs,
            cache,
        })
    }

    /// Distinct configurations (runs with the same key run once).
    pub fn unique(&self) -> usize {
        self.runs
            .iter()
            .map(|r| &r.hash)
            .collect::<HashSet<_>>()
            .len()
    }

    /// Runs not in the cache, each configuration once, in run order.
    pub fn pending(&self) -> Vec<WorkItem> {
        let mut seen = HashSet::new();
        self.runs
            .iter()
            .filter(|r| seen.insert(r.hash.clone()) && !self.cache.contains(&r.hash))
            .map(|r| WorkItem {
                hash: r.hash.clone(),
                request: r.request.clone(),
            })
            .collect()
    }

    /// Records a finished run (crashes are logged, not cached). Returns whether
    /// it was cached.
    pub fn store(&self, done: &WorkDone, executor: &str) -> Result<bool, String> {
        let outcome = if done.crash.is_some() {
            "crash"
        } else if done.error.is_some() {
            "error"
        } else {
            "result"
        };
        let cached = done.crash.is_none();
        if cached {
            let request = self
                .runs
                .iter()
                .find(|r| r.hash == done.hash)
                .ok_or_else(|| format!("run {} is not part of this sweep", done.hash))?
                .request
                .clone();
            self.cache.put(&CachedRun {
                hash: done.hash.clone(),
                request,
                result: done.result.clone(),
                error: done.error.clone(),
            })?;
        }
        let at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let mut line = serde_json::json!({
            "hash": done.hash, "outcome": outcome, "executor": executor, "at_unix_ms": at_ms,
        });
        if let Some(c) = &done.crash {
            line["crash"] = c.clone().into();
        }
        let log = self.out.join("runs.log");
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut f| writeln!(f, "{line}"))
            .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
        Ok(cached)
    }

    /// The table of every run, from the cache (runs not cached have the error
    /// "not run").
    pub fn table(&self) -> Table {
        let mut cached: HashMap<&str, Option<CachedRun>> = HashMap::new();
        for r in &self.runs {
            cached
                .entry(r.hash.as_str())
                .or_insert_with(|| self.cache.get(&r.hash));
        }
        let entry = |r: &PlannedRun| cached[r.hash.as_str()].as_ref();
        let mut columns = vec![
            Column::new(
                "run",
                Role::Bookkeeping,
                self.runs
                    .iter()
                    .map(|r| Cell::Int(r.index as i64))
                    .collect(),
            ),
            Column::new(
                "hash",
                Role::Bookkeeping,
                self.runs
                    .iter()
                    .map(|r| Cell::Text(r.hash[..16].to_string()))
                    .collect(),
            ),
            Column::new(
                "seed",
                Role::Bookkeeping,
                self.runs.iter().map(|r| Cell::Int(r.seed as i64)).collect(),
            ),
        ];
        for (i, (key, _)) in self.spec.params.iter().enumerate() {
            let cells = self
                .runs
                .iter()
                .map(|r| Cell::from_json(&r.point[i].1))
                .collect();
            columns.push(Column::new(key, Role::Param, cells));
        }
        for (key, v) in &self.spec.base {
            let cells = self.runs.iter().map(|_| Cell::from_json(v)).collect();
            columns.push(Column::new(key, Role::Base, cells));
        }
        let errors = self
            .runs
            .iter()
            .map(|r| match entry(r) {
                None => Cell::Text("not run".into()),
                Some(c) => c.error.clone().map_or(Cell::Null, Cell::Text),
            })
            .collect();
        columns.push(Column::new("error", Role::Bookkeeping, errors));
        // Metrics: in order of first appearance (reproduce targets' claims vary).
        let per_run: Vec<Vec<(String, Option<f64>)>> = self
            .runs
            .iter()
            .map(|r| match entry(r).and_then(|c| c.result.as_ref()) {
                Some(result) => headline(&self.spec.kind, result),
                None => Vec::new(),
            })
            .collect();
        let mut names: Vec<String> = Vec::new();
        for m in per_run.iter().flatten() {
            if !names.contains(&m.0) {
                names.push(m.0.clone());
            }
        }
        if let Some(keep) = &self.spec.metrics {
            names = keep.clone();
        }
        let lookup: Vec<BTreeMap<&str, Option<f64>>> = per_run
            .iter()
            .map(|ms| ms.iter().map(|(k, v)| (k.as_str(), *v)).collect())
            .collect();
        for name in names {
            let cells = lookup
                .iter()
                .map(|m| {
                    m.get(name.as_str())
                        .copied()
                        .flatten()
                        .map_or(Cell::Null, Cell::Float)
                })
                .collect();
            columns.push(Column::new(&name, Role::Metric, cells));
        }
        Table { columns }
    }

    /// Writes `runs.parquet`, `runs.csv` and `report.html` from the cache.
    pub fn finish(&self) -> Result<(Table, Outputs), String> {
        let table = self.table();
        let outputs = Outputs {
            parquet: self.out.join("runs.parquet"),
            csv: self.out.join("runs.csv"),
            report: self.out.join("report.html"),
        };
        write_atomic(&outputs.parquet, &to_parquet(&table)?)?;
        write_atomic(&outputs.csv, table.to_csv().as_bytes())?;
        let errors = table
            .column("error")
            .map_or(0, |c| c.cells.iter().filter(|c| **c != Cell::Null).count());
        let info = ReportInfo {
            name: &self.spec.name,
            kind: &self.spec.kind,
            design: match self.spec.design {
                Design::Grid => "grid".into(),
                Design::Random { samples } => format!("random ({samples} samples)"),
                Design::LatinHypercube { samples } => {
                    format!("Latin-hypercube ({samples} samples)")
                }
            },
            version: VERSION,
            runs: self.runs.len(),
            errors,
        };
        write_atomic(&outputs.report, render(&table, &info).as_bytes())?;
        Ok((table, outputs))
    }

    /// Runs what is not cached on a local process pool, then writes the outputs.
    /// `progress(done, total)` counts distinct configurations, cached ones first.
    pub fn run_local(
        &self,
        pool: &ProcessPool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<RunStats, String> {
        let pending = self.pending();
        let unique = self.unique();
        let mut stats = RunStats {
            runs: self.runs.len(),
            unique,
            cached: unique - pending.len(),
            ..RunStats::default()
        };
        progress(stats.cached, unique);
        let mut store_error = None;
        let mut done = stats.cached;
        pool.execute(pending, &mut |d| {
            match self.store(&d, "local") {
                Ok(true) => stats.executed.push(d.hash.clone()),
                Ok(false) => stats.crashed.push(format!(
                    "{}: {}",
                    d.hash,
                    d.crash.clone().unwrap_or_default()
                )),
                Err(e) => {
                    store_error.get_or_insert(e);
                }
            }
            if d.error.is_some() {
                stats.failed += 1;
            }
            done += 1;
            progress(done, unique);
        })?;
        if let Some(e) = store_error {
            return Err(e);
        }
        Ok(stats)
    }
}
