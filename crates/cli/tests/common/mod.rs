//! Helpers shared by the CLI test files: run the binary, read its output, assert a
//! clean one-line failure, write scratch files.
#![allow(dead_code)] // each test file uses a different subset

use std::path::Path;
use std::process::{Command, Output};

pub fn zonelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonelab"))
        .args(args)
        .output()
        .expect("zonelab runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a clean failure: non-zero exit, exactly one line on stderr containing
/// every `needle`, and no panic.
pub fn assert_clean_error(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert!(
        !o.status.success(),
        "expected failure, got success; stdout: {}",
        stdout(o)
    );
    assert!(
        matches!(o.status.code(), Some(1) | Some(2)),
        "exit code; stderr: {err}"
    );
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    for n in needles {
        assert!(err.contains(n), "stderr {err:?} lacks {n:?}");
    }
}

/// Runs zonelab, asserts success, and parses its stdout as JSON.
pub fn json_of(args: &[&str]) -> serde_json::Value {
    let o = zonelab(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}
