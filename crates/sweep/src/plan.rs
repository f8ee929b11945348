//! From a spec to runs: every design point × every seed becomes a run request
//! (the CLI's option names, profile fields as overrides of their device), checked
//! before anything runs, and keyed by a hash of what determines its result.
//!
//! The key is SHA-256 over (the request's canonical form — defaults filled in,
//! sizes in bytes —, the contents of the files it reads, the ZoneLab version, the
//! model's fingerprint). Runs are deterministic, so equal keys mean equal results:
//! the cache is exact.

use crate::design::{points, Point};
use crate::spec::SweepSpec;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::PathBuf;
use zonelab_experiments::runs::RunRequest;

/// The version that goes into every cache key.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A hash of the simulator's sources and profiles at build time (`build.rs`), also
/// in every cache key: a build with a changed model never reuses an older build's
/// runs, even when the version was not bumped.
pub const MODEL_FINGERPRINT: &str = env!("ZONELAB_MODEL_FINGERPRINT");

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRun {
    /// Position in the sweep (rows are written in this order).
    pub index: usize,
    pub seed: u64,
    /// The swept parameters' values.
    pub point: Point,
    /// The run request: `kind` and the CLI's options.
    pub request: Value,
    /// Cache key (hex SHA-256).
    pub hash: String,
}

/// Device options of each run kind: `<device>.<field>` keys are profile overrides.
fn device_options(kind: &str) -> &'static [&'static str] {
    match kind {
        "bench" | "replay" => &["device"],
        "ycsb" => &["ssd", "hdd"],
        _ => &[],
    }
}

/// The request of one run: base options, then the point's, then the seed.
pub fn request_for(spec: &SweepSpec, point: &Point, seed: u64) -> Value {
    let devices = device_options(&spec.kind);
    let mut req = Map::new();
    req.insert("kind".into(), spec.kind.clone().into());
    let mut overrides = Map::new();
    let entries = spec.base.iter().chain(point.iter().map(|(k, v)| (k, v)));
    for (key, v) in entries {
        match key.split_once('.') {
            Some((device, field)) if devices.contains(&device) => {
                // ycsb's overrides keep their device prefix; bench/replay have one device.
                let name = if devices.len() > 1 {
                    key.as_str()
                } else {
                    field
                };
                overrides.insert(name.to_string(), v.clone());
            }
            _ if key == "overrides" => {
                if let Value::Object(o) = v {
                    overrides.extend(o.clone());
                } else {
                    req.insert(key.clone(), v.clone());
                }
            }
            _ => {
                req.insert(key.clone(), v.clone());
            }
        }
    }
    if !overrides.is_empty() {
        req.insert("overrides".into(), Value::Object(overrides));
    }
    req.insert("seed".into(), seed.into());
    Value::Object(req)
}

/// "bs=4k, iodepth=8, seed 2": a run's point for messages.
pub fn describe(point: &Point, seed: u64) -> String {
    let mut parts: Vec<String> = point.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.push(format!("seed {seed}"));
    parts.join(", ")
}

/// Every run of the spec, checked and keyed. Errors name the first bad run.
pub fn plan(spec: &SweepSpec) -> Result<Vec<PlannedRun>, String> {
    let mut digests: HashMap<PathBuf, String> = HashMap::new();
    let mut runs = Vec::new();
    for point in points(spec) {
        for &seed in &spec.seeds {
            let index = runs.len();
            let request = request_for(spec, &point, seed);
            let fail = |e: String| format!("run {index} ({}): {e}", describe(&point, seed));
            let parsed = RunRequest::from_json(request.clone()).map_err(|e| fail(e.to_string()))?;
            let canonical = parsed.canonical().map_err(|e| fail(e.to_string()))?;
            let mut inputs = Map::new();
            for path in parsed.input_files() {
                let digest = match digests.get(&path) {
                    Some(d) => d.clone(),
                    None => {
                        let d = file_digest(&path).map_err(&fail)?;
                        digests.insert(path.clone(), d.clone());
                        d
                    }
                };
                inputs.insert(path.display().to_string(), digest.into());
            }
            runs.push(PlannedRun {
                index,
                seed,
                point: point.clone(),
                request,
                hash: cache_key(&canonical, inputs, MODEL_FINGERPRINT),
            });
        }
    }
    Ok(runs)
}

/// A run's cache key: hex SHA-256 over its canonical request, the digests of the
/// files it reads, the ZoneLab version and the fingerprint of the model that runs it.
fn cache_key(canonical: &Value, inputs: Map<String, Value>, model: &str) -> String {
    let key = serde_json::json!({
        "config": canonical,
        "inputs": inputs,
        "version": VERSION,
        "model": model,
    });
    hex(&Sha256::digest(key.to_string().as_bytes()))
}

/// SHA-256 of a file's contents (a directory: of its files' names and contents).
fn file_digest(path: &std::path::Path) -> Result<String, String> {
    let cannot = |e: std::io::Error| format!("cannot read `{}`: {e}", path.display());
    let mut h = Sha256::new();
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(cannot)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        entries.sort();
        for p in entries {
            h.update(p.file_name().unwrap_or_default().as_encoded_bytes());
            h.update(file_digest(&p)?.as_bytes());
        }
    } else {
        let mut f = std::fs::File::open(path).map_err(cannot)?;
        std::io::copy(&mut f, &mut h).map_err(cannot)?;
    }
    Ok(hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> SweepSpec {
        SweepSpec::from_json(v, "t").unwrap()
    }

    #[test]
    fn profile_fields_become_overrides_of_their_device() {
        let s = spec(json!({"sweep": {"kind": "bench"},
            "base": {"device": "ssd-conventional", "device.capacity.capacity_mib": 4096, "rw": "randwrite"},
            "params": {"device.flash.channels": [4]}}));
        let r = request_for(&s, &points(&s)[0], 3);
        assert_eq!(
            r,
            json!({"kind": "bench", "device": "ssd-conventional", "rw": "randwrite", "seed": 3,
                   "overrides": {"capacity.capacity_mib": 4096, "flash.channels": 4}})
        );
        let y = spec(
            json!({"sweep": {"kind": "ycsb"}, "base": {"ssd.flash.channels": 4, "scale": 0.001}}),
        );
        let r = request_for(&y, &points(&y)[0], 1);
        assert_eq!(r["overrides"], json!({"ssd.flash.channels": 4}));
    }

    #[test]
    fn equal_configurations_share_a_key_and_others_do_not() {
        let s = spec(json!({"sweep": {"kind": "bench", "seeds": [1, 2]},
            "base": {"device": "zn540", "io_size": "1m"},
            "params": {"bs": ["4k", 4096, "8k"]}}));
        let runs = plan(&s).unwrap();
        assert_eq!(runs.len(), 6);
        assert_eq!(runs[0].hash, runs[2].hash, "4k and 4096 are the same run");
        assert_ne!(runs[0].hash, runs[1].hash, "seeds differ");
        assert_ne!(runs[0].hash, runs[4].hash);
        assert_eq!(plan(&s).unwrap(), runs, "planning is deterministic");
    }

    #[test]
    fn a_bad_run_is_named_before_anything_runs() {
        let s = spec(json!({"sweep": {"kind": "bench"},
            "base": {"device": "zn540"}, "params": {"bs": ["4k", "4x"]}}));
        let e = plan(&s).unwrap_err();
        assert!(e.starts_with("run 1 (bs=\"4x\", seed 1): bs:"), "{e}");
        let s =
            spec(json!({"sweep": {"kind": "bench"}, "base": {"device": "zn540", "iodepht": 2}}));
        assert!(plan(&s).unwrap_err().contains("unknown field `iodepht`"));
    }

    #[test]
    fn the_models_fingerprint_is_part_of_the_key() {
        // A hash of the sources the build saw (build.rs): 16 hex digits.
        assert_eq!(MODEL_FINGERPRINT.len(), 16);
        assert!(MODEL_FINGERPRINT.chars().all(|c| c.is_ascii_hexdigit()));
        let request = json!({"kind": "bench", "device": "zn540"});
        let key = |model: &str| cache_key(&request, Map::new(), model);
        assert_eq!(key("0123456789abcdef"), key("0123456789abcdef"));
        assert_ne!(
            key("0123456789abcdef"),
            key("0123456789abcdee"),
            "a changed model must not reuse an older build's cached runs"
        );
    }

    #[test]
    fn input_files_are_part_of_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("my.toml");
        let text = zonelab_devices::profile::find_profile("zn540")
            .unwrap()
            .text;
        std::fs::write(&p, &text).unwrap();
        let s =
            spec(json!({"sweep": {"kind": "bench"}, "base": {"device": p.display().to_string()}}));
        let a = plan(&s).unwrap()[0].hash.clone();
        std::fs::write(
            &p,
            text.replace("max_open_zones = 14", "max_open_zones = 12"),
        )
        .unwrap();
        assert_ne!(plan(&s).unwrap()[0].hash, a);
    }
}
