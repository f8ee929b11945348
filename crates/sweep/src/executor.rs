//! The local executor: a pool of worker processes (one per core by default), each
//! fed one run at a time over a pipe. Processes, not threads: a run that aborts or
//! runs out of memory takes only its worker down (its run is reported, the worker
//! replaced), and the memory of each run is returned to the system when it ends.
//!
//! The worker command is the caller's: the CLI starts `zonelab sweep-worker`, the
//! Python package `python -m zonelab._worker`; both serve [`crate::worker`] lines.

use crate::worker::{WorkDone, WorkItem};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::sync::Mutex;

/// Worker processes started from `command` (program and arguments).
#[derive(Debug, Clone)]
pub struct ProcessPool {
    pub command: Vec<String>,
    pub workers: usize,
}

/// The machine's cores (the default pool size).
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Worker {
    fn start(command: &[String]) -> Result<Self, String> {
        let (program, args) = command.split_first().ok_or("the worker command is empty")?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the worker `{}`: {e}", command.join(" ")))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Self {
            child,
            stdin,
            stdout,
        })
    }

    /// Sends one item and waits for its answer; `Err` when the worker died.
    fn run(&mut self, item: &WorkItem) -> Result<WorkDone, String> {
        let line = serde_json::to_string(item).expect("work items serialise");
        let sent = writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush());
        let mut answer = String::new();
        let read = sent.and_then(|_| self.stdout.read_line(&mut answer));
        match read {
            Ok(n) if n > 0 => serde_json::from_str(&answer)
                .map_err(|e| format!("the worker answered something else than a result ({e})")),
            _ => {
                let status = self
                    .child
                    .wait()
                    .map(|s| s.to_string())
                    .unwrap_or_else(|e| e.to_string());
                Err(format!("the worker process died ({status})"))
            }
        }
    }

    fn stop(mut self) {
        drop(self.stdin); // end of input: the worker exits
        let _ = self.child.wait();
    }
}

impl ProcessPool {
    /// Runs every item, calling `on_done` (on the calling thread) as each
    /// finishes, in completion order. A worker that dies is replaced and its item
    /// reported as crashed. Fails only if no worker can be started at all.
    pub fn execute(
        &self,
        items: Vec<WorkItem>,
        on_done: &mut dyn FnMut(WorkDone),
    ) -> Result<(), String> {
        if items.is_empty() {
            return Ok(());
        }
        let workers = self.workers.clamp(1, items.len());
        let queue = Mutex::new(items.into_iter().collect::<VecDeque<_>>());
        let (tx, rx) = mpsc::channel::<WorkDone>();
        let start_errors = Mutex::new(Vec::<String>::new());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let tx = tx.clone();
                let (queue, start_errors) = (&queue, &start_errors);
                scope.spawn(move || {
                    let mut worker: Option<Worker> = None;
                    loop {
                        let Some(item) = queue.lock().expect("queue").pop_front() else {
                            break;
                        };
                        if worker.is_none() {
                            match Worker::start(&self.command) {
                                Ok(w) => worker = Some(w),
                                Err(e) => {
                                    queue.lock().expect("queue").push_front(item);
                                    start_errors.lock().expect("errors").push(e);
                                    return;
                                }
                            }
                        }
                        let w = worker.as_mut().expect("started");
                        let done = w.run(&item).unwrap_or_else(|why| {
                            worker = None; // start a fresh one for the next item
                            WorkDone::crashed(&item.hash, why)
                        });
                        if tx.send(done).is_err() {
                            break;
                        }
                    }
                    if let Some(w) = worker {
                        w.stop();
                    }
                });
            }
            drop(tx);
            for done in rx {
                on_done(done);
            }
        });
        let left = queue.into_inner().expect("queue").len();
        if left > 0 {
            let errors = start_errors.into_inner().expect("errors");
            return Err(format!(
                "{left} runs not done: {}",
                errors.first().map(String::as_str).unwrap_or("no worker")
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: usize) -> Vec<WorkItem> {
        (0..n)
            .map(|i| WorkItem {
                hash: format!("h{i}"),
                request: serde_json::json!({}),
            })
            .collect()
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn every_item_is_answered_once_by_the_pool() {
        // A stand-in worker: answers each line with its hash.
        let pool = ProcessPool {
            command: sh(
                r#"while read -r l; do h=${l#*\"hash\":\"}; h=${h%%\"*}; echo "{\"hash\":\"$h\",\"result\":1}"; done"#,
            ),
            workers: 3,
        };
        let mut seen = Vec::new();
        pool.execute(items(10), &mut |d| {
            assert_eq!(d.result, Some(serde_json::json!(1)));
            seen.push(d.hash)
        })
        .unwrap();
        seen.sort();
        let mut want: Vec<String> = (0..10).map(|i| format!("h{i}")).collect();
        want.sort();
        assert_eq!(seen, want);
    }

    #[test]
    fn a_dying_worker_is_replaced_and_its_item_reported_as_crashed() {
        let pool = ProcessPool {
            command: sh("read -r l; exit 3"),
            workers: 2,
        };
        let mut crashes = 0;
        pool.execute(items(4), &mut |d| {
            assert!(d.crash.as_ref().unwrap().contains("died"), "{d:?}");
            crashes += 1;
        })
        .unwrap();
        assert_eq!(crashes, 4);
    }

    #[test]
    fn a_worker_that_cannot_start_is_an_error_naming_it() {
        let pool = ProcessPool {
            command: vec!["/nonexistent/zonelab-worker".into()],
            workers: 2,
        };
        let e = pool.execute(items(3), &mut |_| {}).unwrap_err();
        assert!(
            e.contains("3 runs not done") && e.contains("/nonexistent/zonelab-worker"),
            "{e}"
        );
    }
}
