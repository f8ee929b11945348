//! A reproduce run as data: a paper target at a scale and seed.

use super::{Progress, ProgressFn, RunError};
use crate::reproduce::{check_cpu_jitter, check_draws, run_target, ProgressSink, RunOptions};
use crate::reproduce_result::ReproduceResult;
use serde::{Deserialize, Serialize};

/// `zonelab reproduce TARGET` as data.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReproduceRequest {
    pub target: String,
    #[serde(default = "one")]
    pub scale: f64,
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Directory with real traces for targets that replay them.
    #[serde(default)]
    pub traces: Option<String>,
    /// Draws for targets that judge claims on medians over draws (`mios`,
    /// `hhzs`); absent: the target's default.
    #[serde(default)]
    pub draws: Option<usize>,
    /// Run-to-run CPU variation (CV, ppm) for targets that model it (`hhzs`; 0:
    /// exact mean costs); absent: the target's default.
    #[serde(default)]
    pub cpu_jitter_ppm: Option<u64>,
}

fn one() -> f64 {
    1.0
}
fn one_u64() -> u64 {
    1
}

struct Steps<'a, 'b>(&'a mut (dyn FnMut(&Progress) + 'b));

impl ProgressSink for Steps<'_, '_> {
    fn step(&mut self, done: u64, total: u64, label: &str) {
        (self.0)(&Progress {
            done,
            total,
            unit: "steps",
            label: label.to_string(),
        })
    }
}

impl ReproduceRequest {
    pub fn options(&self) -> RunOptions {
        RunOptions {
            scale: self.scale,
            seed: self.seed,
            traces_dir: self.traces.as_ref().map(Into::into),
            draws: self.draws,
            cpu_jitter_ppm: self.cpu_jitter_ppm,
        }
    }

    pub fn canonical(&self) -> Result<serde_json::Value, RunError> {
        let mut c = serde_json::json!({
            "target": self.target,
            "scale": self.scale,
            "seed": self.seed,
            "traces": self.traces,
        });
        // The draws the run takes, defaults filled in (a request without `draws`
        // and one with the target's default run the same thing); none for a target
        // that runs once.
        let draws =
            check_draws(&self.target, self.draws).map_err(|e| RunError::Run(e.to_string()))?;
        if let Some(d) = draws {
            c["draws"] = d.into();
        }
        // Likewise the CPU variation, for the targets that model it.
        let jitter = check_cpu_jitter(&self.target, self.cpu_jitter_ppm)
            .map_err(|e| RunError::Run(e.to_string()))?;
        if let Some(ppm) = jitter {
            c["cpu_jitter_ppm"] = ppm.into();
        }
        Ok(c)
    }

    /// Runs the target; the result is what `results.json` holds.
    pub fn run(&self, progress: ProgressFn<'_>) -> Result<ReproduceResult, RunError> {
        let r = match progress {
            Some(p) => run_target(&self.target, &self.options(), &mut Steps(p)),
            None => run_target(
                &self.target,
                &self.options(),
                &mut crate::reproduce::NoProgress,
            ),
        };
        r.map_err(|e| RunError::Run(e.to_string()))
    }
}
