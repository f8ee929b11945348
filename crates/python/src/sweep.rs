//! `zonelab._native.Sweep`: a planned sweep in its output directory. The Python
//! package drives it: `run_local` (the worker-process pool), or `pending` +
//! `store` around Ray tasks, then `finish` for the table and files.

use crate::{err, parse_json};
use pyo3::prelude::*;
use zonelab_sweep::worker::WorkDone;
use zonelab_sweep::{ProcessPool, SweepSpec};

#[pyclass(frozen, module = "zonelab._native")]
pub struct Sweep {
    inner: zonelab_sweep::Sweep,
}

fn stats_json(s: &zonelab_sweep::RunStats) -> String {
    serde_json::json!({
        "runs": s.runs, "unique": s.unique, "cached": s.cached,
        "executed": s.executed, "failed": s.failed, "crashed": s.crashed,
    })
    .to_string()
}

impl Sweep {
    fn open(py: Python<'_>, spec: SweepSpec, out: Option<String>) -> PyResult<Self> {
        let out = out.map_or_else(|| zonelab_sweep::default_out(&spec), Into::into);
        let inner = py
            .detach(move || zonelab_sweep::Sweep::open(spec, &out))
            .map_err(err)?;
        Ok(Self { inner })
    }
}

#[pymethods]
impl Sweep {
    /// Plans the sweep `spec_json` (the sweep file's structure as JSON) into `out`
    /// (default `results/sweep-<name>`).
    #[new]
    #[pyo3(signature = (spec_json, out=None, default_name="unnamed"))]
    fn new(
        py: Python<'_>,
        spec_json: &str,
        out: Option<String>,
        default_name: &str,
    ) -> PyResult<Self> {
        let spec = SweepSpec::from_json(parse_json(spec_json, "sweep spec")?, default_name)
            .map_err(err)?;
        Self::open(py, spec, out)
    }

    /// Plans the sweep file at `path` (TOML) into `out`.
    #[staticmethod]
    #[pyo3(signature = (path, out=None))]
    fn from_file(py: Python<'_>, path: &str, out: Option<String>) -> PyResult<Self> {
        let spec = SweepSpec::from_toml_file(std::path::Path::new(path)).map_err(err)?;
        Self::open(py, spec, out)
    }

    /// The output directory.
    #[getter]
    fn out(&self) -> String {
        self.inner.out.display().to_string()
    }

    /// The sweep's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.spec.name.clone()
    }

    /// Runs in the sweep.
    #[getter]
    fn runs(&self) -> usize {
        self.inner.runs.len()
    }

    /// Distinct configurations.
    #[getter]
    fn unique(&self) -> usize {
        self.inner.unique()
    }

    /// The runs as JSON: [{run, hash, seed, point}].
    fn plan(&self) -> String {
        let rows: Vec<serde_json::Value> = self
            .inner
            .runs
            .iter()
            .map(|r| {
                let point: serde_json::Map<String, serde_json::Value> =
                    r.point.iter().cloned().collect();
                serde_json::json!({"run": r.index, "hash": r.hash, "seed": r.seed, "point": point})
            })
            .collect();
        serde_json::Value::Array(rows).to_string()
    }

    /// Work items not cached yet, as JSON lines' list: ["{hash, request}", ...].
    fn pending(&self) -> Vec<String> {
        self.inner
            .pending()
            .iter()
            .map(|w| serde_json::to_string(w).expect("work items serialise"))
            .collect()
    }

    /// Records a finished work item (the answer line of `run_work_item`); returns
    /// whether it was cached (crashes are not).
    fn store(&self, done_json: &str, executor: &str) -> PyResult<bool> {
        let done: WorkDone =
            serde_json::from_str(done_json).map_err(|e| err(format!("not a work result: {e}")))?;
        self.inner.store(&done, executor).map_err(err)
    }

    /// Runs the pending items on `workers` processes started from `command`,
    /// calling `progress(done, total)`; returns the stats as JSON.
    #[pyo3(signature = (command, workers, progress=None))]
    fn run_local(
        &self,
        py: Python<'_>,
        command: Vec<String>,
        workers: usize,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<String> {
        let pool = ProcessPool { command, workers };
        let stats = py
            .detach(|| {
                let mut report = |done: usize, total: usize| {
                    if let Some(cb) = &progress {
                        Python::attach(|py| {
                            if let Err(e) = cb.call1(py, (done, total)) {
                                e.print(py);
                            }
                        });
                    }
                };
                self.inner.run_local(&pool, &mut report)
            })
            .map_err(err)?;
        Ok(stats_json(&stats))
    }

    /// Writes runs.parquet, runs.csv and report.html; returns JSON {columns,
    /// records, parquet, csv, report}.
    fn finish(&self, py: Python<'_>) -> PyResult<String> {
        let (table, outputs) = py.detach(|| self.inner.finish()).map_err(err)?;
        Ok(serde_json::json!({
            "columns": table.names(),
            "records": table.to_records(),
            "parquet": outputs.parquet.display().to_string(),
            "csv": outputs.csv.display().to_string(),
            "report": outputs.report.display().to_string(),
        })
        .to_string())
    }
}
