//! Progress reports from a run (which holds no GIL) to a Python callable, at most
//! ten times a second plus the last one, so a progress bar costs nothing.

use pyo3::prelude::*;
use std::time::{Duration, Instant};
use zonelab_experiments::runs::Progress;

const EVERY: Duration = Duration::from_millis(100);

pub struct Throttled {
    callback: Py<PyAny>,
    last: Option<Instant>,
}

impl Throttled {
    pub fn new(callback: Py<PyAny>) -> Self {
        Self {
            callback,
            last: None,
        }
    }

    pub fn report(&mut self, p: &Progress) {
        let finished = p.total > 0 && p.done >= p.total;
        if !finished && self.last.is_some_and(|t| t.elapsed() < EVERY) {
            return;
        }
        self.last = Some(Instant::now());
        Python::attach(|py| {
            // A failing progress bar must not fail the run: report and go on.
            if let Err(e) = self
                .callback
                .call1(py, (p.done, p.total, p.unit, p.label.as_str()))
            {
                e.print(py);
            }
        });
    }
}
