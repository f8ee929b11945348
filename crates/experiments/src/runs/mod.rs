//! Runs described as plain data: a bench, replay, YCSB or reproduce run as a map
//! of the CLI's option names to values. The CLI's `bench`, `replay`, `ycsb` and
//! `reproduce`, the Python package and sweeps all build one of these requests and
//! run it here, so the same configuration gives the same numbers whichever front
//! end asked.
//!
//! - [`RunRequest::from_json`] checks the options (unknown names are errors);
//! - [`RunRequest::canonical`] is the configuration with every default filled in
//!   and every size or duration in bytes or ns: what a sweep's cache key hashes;
//! - [`RunRequest::run`] returns the run's JSON, exactly what the CLI prints with
//!   `--json` (for reproduce: `results.json`).

pub mod bench;
pub mod metrics;
pub mod overrides;
pub mod replay;
pub mod replay_precondition;
pub mod reproduce;
pub mod sample_interval;
pub mod units;
pub mod ycsb;

use serde::Deserialize;
use std::path::PathBuf;
use thiserror::Error;
use zonelab_devices::ProfileError;

pub use bench::BenchRequest;
pub use replay::ReplayRequest;
pub use reproduce::ReproduceRequest;
pub use ycsb::YcsbRequest;

/// Why a run could not be made.
#[derive(Debug, Error)]
pub enum RunError {
    /// A bad option value, named as on the command line without the dashes.
    #[error("{option}: {reason}")]
    Option { option: String, reason: String },
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error("{0}")]
    Run(String),
}

impl RunError {
    pub fn option(option: &str, reason: impl Into<String>) -> Self {
        RunError::Option {
            option: option.to_string(),
            reason: reason.into(),
        }
    }

    /// The message as the CLI prints it: options as `--flag-name`.
    pub fn cli_message(&self) -> String {
        match self {
            RunError::Option { option, reason } => {
                format!("--{}: {reason}", option.replace('_', "-"))
            }
            other => other.to_string(),
        }
    }
}

/// Progress of a long run, for a progress bar.
#[derive(Debug, Clone)]
pub struct Progress {
    pub done: u64,
    /// 0 when unknown.
    pub total: u64,
    /// What `done` counts: "bytes", "records" or "steps".
    pub unit: &'static str,
    pub label: String,
}

/// Where progress reports go (called from the running thread).
pub type ProgressFn<'a> = Option<&'a mut dyn FnMut(&Progress)>;

/// A run of any kind, tagged by `kind`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RunRequest {
    Bench(BenchRequest),
    Replay(ReplayRequest),
    Ycsb(YcsbRequest),
    Reproduce(ReproduceRequest),
}

/// The run kinds, as `kind` names them.
pub const KINDS: &[&str] = &["bench", "replay", "ycsb", "reproduce"];

impl RunRequest {
    /// A request from JSON such as `{"kind": "bench", "device": "zn540", "bs": "4k"}`.
    pub fn from_json(v: serde_json::Value) -> Result<Self, RunError> {
        let kind = v
            .get("kind")
            .and_then(|k| k.as_str())
            .unwrap_or("?")
            .to_string();
        serde_json::from_value(v).map_err(|e| {
            let msg = e.to_string();
            if KINDS.contains(&kind.as_str()) {
                RunError::Run(format!("{kind} options: {msg}"))
            } else {
                RunError::Run(format!(
                    "run kind `{kind}` is unknown (expected one of {})",
                    KINDS.join(", ")
                ))
            }
        })
    }

    pub fn kind(&self) -> &'static str {
        match self {
            RunRequest::Bench(_) => "bench",
            RunRequest::Replay(_) => "replay",
            RunRequest::Ycsb(_) => "ycsb",
            RunRequest::Reproduce(_) => "reproduce",
        }
    }

    /// The configuration with defaults filled in and units resolved; two requests
    /// that run the same thing have the same canonical form. Checks every option.
    pub fn canonical(&self) -> Result<serde_json::Value, RunError> {
        let mut v = match self {
            RunRequest::Bench(r) => r.canonical()?,
            RunRequest::Replay(r) => r.canonical()?,
            RunRequest::Ycsb(r) => r.canonical()?,
            RunRequest::Reproduce(r) => r.canonical()?,
        };
        v["kind"] = self.kind().into();
        Ok(v)
    }

    /// Files the run reads (profile files given by path, traces): their contents
    /// belong in a cache key.
    pub fn input_files(&self) -> Vec<PathBuf> {
        let profile = |name: &str| {
            zonelab_devices::profile::BUILTIN_PROFILES
                .iter()
                .all(|(n, _)| *n != name)
                .then(|| PathBuf::from(name))
        };
        match self {
            RunRequest::Bench(r) => profile(&r.device).into_iter().collect(),
            RunRequest::Replay(r) => profile(&r.device)
                .into_iter()
                .chain([PathBuf::from(&r.trace)])
                .collect(),
            RunRequest::Ycsb(r) => profile(&r.ssd).into_iter().chain(profile(&r.hdd)).collect(),
            RunRequest::Reproduce(r) => r.traces.iter().map(PathBuf::from).collect(),
        }
    }

    /// Runs the request; returns what the CLI prints with `--json`.
    pub fn run(&self, progress: ProgressFn<'_>) -> Result<serde_json::Value, RunError> {
        let json = |r: Result<serde_json::Value, serde_json::Error>| {
            r.map_err(|e| RunError::Run(format!("cannot serialise the result: {e}")))
        };
        match self {
            RunRequest::Bench(r) => json(serde_json::to_value(r.run(progress)?)),
            RunRequest::Replay(r) => json(serde_json::to_value(r.run(progress)?)),
            RunRequest::Ycsb(r) => Ok(r.run()?.json),
            RunRequest::Reproduce(r) => json(serde_json::to_value(r.run(progress)?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_kinds_and_options_are_named() {
        let e = RunRequest::from_json(json!({"kind": "fio", "device": "zn540"})).unwrap_err();
        assert!(e.to_string().contains("run kind `fio` is unknown"), "{e}");
        let e = RunRequest::from_json(json!({"kind": "bench", "device": "zn540", "iodepht": 4}))
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("bench options: unknown field `iodepht`"),
            "{e}"
        );
    }

    #[test]
    fn canonical_forms_resolve_units_and_defaults() {
        let a =
            RunRequest::from_json(json!({"kind": "bench", "device": "zn540", "bs": "4k"})).unwrap();
        let b = RunRequest::from_json(
            json!({"kind": "bench", "device": "zn540", "bs": 4096, "iodepth": 1, "seed": 1}),
        )
        .unwrap();
        assert_eq!(a.canonical().unwrap(), b.canonical().unwrap());
        let c =
            RunRequest::from_json(json!({"kind": "bench", "device": "zn540", "bs": "8k"})).unwrap();
        assert_ne!(a.canonical().unwrap(), c.canonical().unwrap());
        let bad =
            RunRequest::from_json(json!({"kind": "bench", "device": "zn540", "bs": "4x"})).unwrap();
        assert_eq!(
            bad.canonical().unwrap_err().cli_message(),
            "--bs: `4x` has an unknown size suffix `x` (use k, m, g or t)"
        );
    }

    #[test]
    fn reproduce_canonical_forms_fill_in_the_draws() {
        let canon = |v: serde_json::Value| RunRequest::from_json(v).unwrap().canonical();
        let plain = canon(json!({"kind": "reproduce", "target": "mios"})).unwrap();
        assert_eq!(plain["draws"], 3, "the target's default is filled in");
        let three = canon(json!({"kind": "reproduce", "target": "mios", "draws": 3})).unwrap();
        assert_eq!(plain, three);
        let one = canon(json!({"kind": "reproduce", "target": "hhzs", "draws": 1})).unwrap();
        assert_eq!(one["draws"], 1);
        let once = canon(json!({"kind": "reproduce", "target": "devices"})).unwrap();
        assert!(
            once.get("draws").is_none(),
            "a target that runs once has no draws"
        );
        let e = canon(json!({"kind": "reproduce", "target": "devices", "draws": 2})).unwrap_err();
        assert!(
            e.cli_message()
                .contains("target devices runs once and takes no draws"),
            "{}",
            e.cli_message()
        );
    }

    #[test]
    fn reproduce_canonical_forms_fill_in_the_cpu_variation() {
        let canon = |v: serde_json::Value| RunRequest::from_json(v).unwrap().canonical();
        let plain = canon(json!({"kind": "reproduce", "target": "hhzs"})).unwrap();
        assert_eq!(
            plain["cpu_jitter_ppm"],
            crate::reproduce::hhzs::MEASURED_CPU_JITTER_PPM,
            "the target's default is filled in, so both forms share a cache key"
        );
        let explicit = canon(json!({"kind": "reproduce", "target": "hhzs",
            "cpu_jitter_ppm": crate::reproduce::hhzs::MEASURED_CPU_JITTER_PPM}))
        .unwrap();
        assert_eq!(plain, explicit);
        let exact =
            canon(json!({"kind": "reproduce", "target": "hhzs", "cpu_jitter_ppm": 0})).unwrap();
        assert_eq!(exact["cpu_jitter_ppm"], 0);
        assert_ne!(exact, plain);
        let mios = canon(json!({"kind": "reproduce", "target": "mios"})).unwrap();
        assert!(
            mios.get("cpu_jitter_ppm").is_none(),
            "mios does not model it"
        );
        for (request, wanted) in [
            (
                json!({"kind": "reproduce", "target": "mios", "cpu_jitter_ppm": 0}),
                "target mios does not model run-to-run CPU variation",
            ),
            (
                json!({"kind": "reproduce", "target": "hhzs", "cpu_jitter_ppm": 500_001}),
                "cpu jitter 500001 ppm is out of range",
            ),
        ] {
            let e = canon(request).unwrap_err().cli_message();
            assert!(e.contains(wanted), "{e}");
        }
    }
}
