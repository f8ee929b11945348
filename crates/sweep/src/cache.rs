//! The run cache: one JSON file per finished run, named by its key, written
//! atomically (a temporary file renamed into place), so a sweep killed at any
//! moment leaves only whole entries and resumes from them. Deterministic run
//! errors are cached too (the same configuration fails the same way); runs whose
//! worker crashed are not.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A finished run as cached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedRun {
    pub hash: String,
    pub request: Value,
    /// The run's JSON (what the CLI prints with `--json`), or `None` on error.
    pub result: Option<Value>,
    pub error: Option<String>,
}

/// A directory of cached runs.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Cache {
    pub fn open(dir: &Path) -> Result<Self, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the cache {}: {e}", dir.display()))?;
        Ok(Self {
            dir: dir.to_path_buf(),
        })
    }

    fn path(&self, hash: &str) -> PathBuf {
        self.dir
            .join(&hash[..2.min(hash.len())])
            .join(format!("{hash}.json"))
    }

    /// The cached run, if there is a readable entry (a damaged one counts as
    /// missing: the run is simply done again).
    pub fn get(&self, hash: &str) -> Option<CachedRun> {
        let text = std::fs::read_to_string(self.path(hash)).ok()?;
        serde_json::from_str::<CachedRun>(&text)
            .ok()
            .filter(|r| r.hash == hash)
    }

    pub fn contains(&self, hash: &str) -> bool {
        self.path(hash).is_file()
    }

    pub fn put(&self, run: &CachedRun) -> Result<(), String> {
        let path = self.path(&run.hash);
        let dir = path.parent().expect("entries live in a subdirectory");
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        std::fs::create_dir_all(dir).map_err(fail)?;
        let tmp = dir.join(format!(
            ".{}.{}.{}.tmp",
            run.hash,
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let text = serde_json::to_string(run).map_err(|e| e.to_string())?;
        std::fs::write(&tmp, text).map_err(fail)?;
        std::fs::rename(&tmp, &path).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_damaged_ones_count_as_missing() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::open(dir.path()).unwrap();
        let run = CachedRun {
            hash: "abcdef".into(),
            request: serde_json::json!({"kind": "bench"}),
            result: Some(serde_json::json!({"iops": 1.5})),
            error: None,
        };
        assert!(c.get("abcdef").is_none());
        c.put(&run).unwrap();
        assert_eq!(c.get("abcdef"), Some(run));
        std::fs::write(dir.path().join("ab").join("abcdef.json"), "{trunc").unwrap();
        assert!(c.get("abcdef").is_none());
    }
}
