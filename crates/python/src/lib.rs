//! `zonelab._native`: the Rust side of the `zonelab` Python package (PyO3, abi3
//! for CPython >= 3.9). It calls the library directly — the same run requests the
//! CLI builds (`zonelab_experiments::runs`), the same profile overrides, the same
//! sweep driver — and passes data as JSON text, which the Python side turns into
//! dicts and pandas frames. Long calls release the GIL; progress callbacks take it
//! back at most ten times a second.

mod progress;
mod sweep;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use zonelab_experiments::runs::RunRequest;

create_exception!(
    _native,
    ZonelabError,
    PyValueError,
    "A bad configuration or a failed run; the message is the CLI's."
);

pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    ZonelabError::new_err(e.to_string())
}

pub(crate) fn parse_json(text: &str, what: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| err(format!("{what}: not JSON: {e}")))
}

/// ZoneLab's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The built-in device profiles as JSON: [{name, model, description}].
#[pyfunction]
fn devices() -> String {
    let list: Vec<serde_json::Value> = zonelab_devices::profile::describe_builtin()
        .into_iter()
        .map(|(n, m, d)| serde_json::json!({"name": n, "model": m, "description": d}))
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// A profile's fields after `overrides` (a JSON object of dotted fields), as
/// JSON; the device is built to check them.
#[pyfunction]
fn profile(py: Python<'_>, name: &str, overrides_json: &str) -> PyResult<String> {
    let map: zonelab_experiments::runs::overrides::OverrideMap =
        serde_json::from_value(parse_json(overrides_json, "overrides")?)
            .map_err(|e| err(format!("overrides: {e}")))?;
    let overrides = zonelab_experiments::runs::overrides::to_overrides(&map).map_err(err)?;
    let name = name.to_string();
    let table = py
        .detach(move || zonelab_devices::profile_overrides::profile_table(&name, &overrides))
        .map_err(err)?;
    serde_json::to_string(&table).map_err(err)
}

/// Runs a request (JSON: `kind` and the CLI's options) and returns its JSON — what
/// the CLI prints with `--json`. `progress(done, total, unit, label)` is called
/// now and then if given.
#[pyfunction]
#[pyo3(signature = (request_json, progress=None))]
fn run(py: Python<'_>, request_json: &str, progress: Option<Py<PyAny>>) -> PyResult<String> {
    let request = RunRequest::from_json(parse_json(request_json, "request")?).map_err(err)?;
    let result = py.detach(move || {
        let mut sink = progress.map(progress::Throttled::new);
        match sink.as_mut() {
            Some(s) => {
                let mut f = |p: &zonelab_experiments::runs::Progress| s.report(p);
                request.run(Some(&mut f))
            }
            None => request.run(None),
        }
    });
    let value = result.map_err(err)?;
    Ok(value.to_string())
}

/// The headline metrics of a run of `kind` (its JSON), as JSON [[name, value]]:
/// the metric columns a sweep writes.
#[pyfunction]
fn headline(kind: &str, result_json: &str) -> PyResult<String> {
    let result = parse_json(result_json, "result")?;
    Ok(
        serde_json::to_string(&zonelab_experiments::runs::metrics::headline(kind, &result))
            .expect("metrics serialise"),
    )
}

/// Runs one sweep work item (a JSON line as sweep workers read) in this process
/// and returns the answer line: what a Ray task does.
#[pyfunction]
fn run_work_item(py: Python<'_>, item_json: &str) -> String {
    let line = item_json.to_string();
    py.detach(move || zonelab_sweep::worker::run_line(&line))
}

/// Serves sweep work items on stdin/stdout until stdin ends (`python -m
/// zonelab._worker`, the local executor's worker process).
#[pyfunction]
fn serve_worker(py: Python<'_>) -> PyResult<()> {
    py.detach(|| {
        let stdin = std::io::stdin();
        zonelab_sweep::worker::serve(stdin.lock(), std::io::stdout().lock())
    })
    .map_err(err)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ZonelabError", m.py().get_type::<ZonelabError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(devices, m)?)?;
    m.add_function(wrap_pyfunction!(profile, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(headline, m)?)?;
    m.add_function(wrap_pyfunction!(run_work_item, m)?)?;
    m.add_function(wrap_pyfunction!(serve_worker, m)?)?;
    m.add_class::<sweep::Sweep>()?;
    Ok(())
}
