//! Fingerprints the simulator's sources for the run cache's keys (`plan.rs`): a
//! cached run is reused only by a build of the same model. Hashes every file under
//! the crates whose code decides a run's result and the device profiles they embed;
//! Cargo re-runs this script whenever a file under them changes.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// What decides a run's result, relative to the workspace root.
const MODEL_DIRS: [&str; 7] = [
    "crates/engine/src",
    "crates/media/src",
    "crates/devices/src",
    "crates/systems/src",
    "crates/workloads/src",
    "crates/experiments/src",
    "profiles",
];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut h = Sha256::new();
    for dir in MODEL_DIRS {
        let dir_path = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir_path.display());
        let mut files = Vec::new();
        files_under(&dir_path, &mut files);
        files.sort();
        for file in files {
            let relative = file.strip_prefix(&root).unwrap_or(&file);
            h.update(relative.to_string_lossy().as_bytes());
            h.update(std::fs::read(&file).unwrap_or_default());
        }
    }
    let digest = h.finalize();
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=ZONELAB_MODEL_FINGERPRINT={hex}");
}
