//! A sweep worker: runs requests one per line. Both executors use it: the local
//! executor's worker processes (`zonelab sweep-worker`, `python -m
//! zonelab._worker`) read [`WorkItem`] lines on stdin and write [`WorkDone`] lines
//! on stdout; a Ray task calls [`run_item`] directly.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{BufRead, Write};
use zonelab_experiments::runs::RunRequest;

/// A run to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkItem {
    pub hash: String,
    pub request: Value,
}

/// A run done: a result, a run error (deterministic: cached), or a crash (a
/// panic or a dead worker: not cached, so a rerun tries again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkDone {
    pub hash: String,
    #[serde(default)]
    pub result: Option<Value>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub crash: Option<String>,
}

impl WorkDone {
    pub fn crashed(hash: &str, why: String) -> Self {
        Self {
            hash: hash.to_string(),
            result: None,
            error: None,
            crash: Some(why),
        }
    }
}

/// Runs one item in this process.
pub fn run_item(item: &WorkItem) -> WorkDone {
    let run = || RunRequest::from_json(item.request.clone())?.run(None);
    match std::panic::catch_unwind(run) {
        Ok(Ok(result)) => WorkDone {
            hash: item.hash.clone(),
            result: Some(result),
            error: None,
            crash: None,
        },
        Ok(Err(e)) => WorkDone {
            hash: item.hash.clone(),
            result: None,
            error: Some(e.to_string()),
            crash: None,
        },
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            WorkDone::crashed(&item.hash, format!("the run panicked: {msg}"))
        }
    }
}

/// Runs one JSON line, returning the answer line (without newline).
pub fn run_line(line: &str) -> String {
    let done = match serde_json::from_str::<WorkItem>(line) {
        Ok(item) => run_item(&item),
        Err(e) => WorkDone::crashed("", format!("bad work item: {e}")),
    };
    serde_json::to_string(&done).expect("work results serialise")
}

/// Serves work items from `input` until it ends.
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        writeln!(output, "{}", run_line(&line))?;
        output.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_worker_answers_results_and_errors_line_by_line() {
        let items = [
            WorkItem {
                hash: "a".into(),
                request: json!({"kind": "bench", "device": "zn540", "rw": "read", "bs": "1m", "io_size": "4m"}),
            },
            WorkItem {
                hash: "b".into(),
                request: json!({"kind": "bench", "device": "zn999"}),
            },
        ];
        let input: String = items
            .iter()
            .map(|i| serde_json::to_string(i).unwrap() + "\n")
            .collect();
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let lines: Vec<WorkDone> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0].hash, "a");
        assert_eq!(lines[0].result.as_ref().unwrap()["bytes"], json!(4 << 20));
        assert!(lines[1]
            .error
            .as_ref()
            .unwrap()
            .contains("unknown device profile `zn999`"));
        assert!(lines[1].crash.is_none());
    }
}
