//! `zonelab reproduce <target>`: the harness every paper plugs into. A target runs
//! its experiments at a scale, compares the measurements with the paper's claims and
//! returns figures; [`write_outputs`] turns that into `results.json` (deterministic),
//! `run-info.json` (wall clock, host), a CSV per plotted series and `report.html`.

mod conzone;
mod conzone_fs;
mod conzone_fs_report;
mod conzone_runs;
mod conzone_streams;
mod devices_table1;
pub mod hhzs;
mod hhzs_motivation;
pub mod main_job;
mod mios;
mod mios_aged_ssd;
mod mios_bursts;
mod mios_extra;
mod mios_hdd_path;
mod mios_load;
mod mios_more;
mod mu_rmw;
mod mu_rmw_runs;
mod mu_rmw_sensitivity;
mod outputs;
mod placement;
mod placement_lsm;
mod placement_runs;
mod placement_zns;
mod znsage;
pub mod znsage_runs;

pub use conzone_fs::fig11_phases;
pub use conzone_streams::fig12_volume_point;
/// The MIOS target's aged SSDs and Pangu-like requests, for the ablation examples.
pub use mios_bursts::squeeze_into_bursts as mios_squeeze_into_bursts;
pub use mios_extra::{
    aged_ssd as mios_aged_ssd, aged_ssd_with as mios_aged_ssd_with,
    pangu_requests as mios_pangu_requests, pangu_requests_with as mios_pangu_requests_with,
    LOG_BYTES as MIOS_LOG_BYTES,
};
pub use outputs::{write_outputs, OutputFiles};

use crate::reproduce_result::ReproduceResult;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ReproduceError {
    #[error("unknown reproduce target `{name}` (known targets: {known})")]
    UnknownTarget { name: String, known: String },
    #[error("--scale {scale} is out of range ({allowed})")]
    BadScale { scale: f64, allowed: String },
    #[error("{0}")]
    Run(String),
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
}

/// Progress reporting for long runs: (step done, steps in all, label).
pub trait ProgressSink {
    fn step(&mut self, done: u64, total: u64, label: &str);
}

/// No progress output.
pub struct NoProgress;
impl ProgressSink for NoProgress {
    fn step(&mut self, _: u64, _: u64, _: &str) {}
}

/// What a run of a target is asked for.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub scale: f64,
    pub seed: u64,
    /// Directory with the real input traces, for targets that replay published
    /// traces (e.g. `mu-rmw`); without it they use look-alike traces.
    pub traces_dir: Option<std::path::PathBuf>,
    /// How many draws a target that judges its claims on medians over draws runs
    /// (`mios`: seeds of its workloads; `hhzs`: loads per scheme); `None`: the
    /// target's default. A target that draws once rejects it ([`Target::draws`]).
    pub draws: Option<usize>,
    /// Run-to-run variation of flush and compaction CPU time, as a CV in ppm, for
    /// the targets that model it (`hhzs`; 0: the exact mean costs); `None`: the
    /// target's default. Other targets reject it ([`Target::cpu_jitter_ppm`]).
    pub cpu_jitter_ppm: Option<u64>,
}

/// The largest CPU variation a run takes (a CV of 50 %).
pub use zonelab_systems::lsm::options::MAX_JOB_JITTER_PPM as MAX_CPU_JITTER_PPM;

/// What a target draws several times (e.g. "seeds of the generated workloads")
/// and how many times by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetDraws {
    pub what: &'static str,
    pub default_count: usize,
}

/// A reproducible experiment set.
pub trait Target {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// Which scales make sense: (minimum, maximum).
    fn scale_range(&self) -> (f64, f64) {
        (0.001, 1.0)
    }
    /// What a draw is and how many a run takes by default, for targets that judge
    /// claims on medians over draws and take `RunOptions::draws`; `None` for
    /// targets that run once.
    fn draws(&self) -> Option<TargetDraws> {
        None
    }
    /// The run-to-run CPU variation (CV, ppm) the target uses by default, for
    /// targets that take `RunOptions::cpu_jitter_ppm`; `None` for the others.
    fn cpu_jitter_ppm(&self) -> Option<u64> {
        None
    }
    fn run(
        &self,
        opts: &RunOptions,
        progress: &mut dyn ProgressSink,
    ) -> Result<ReproduceResult, ReproduceError>;
}

/// Every registered target.
pub fn targets() -> Vec<Box<dyn Target>> {
    vec![
        Box::new(devices_table1::DevicesTable1),
        Box::new(mu_rmw::MuRmwTarget),
        Box::new(mu_rmw_sensitivity::MuRmwSensitivityTarget),
        Box::new(mios::MiosTarget::default()),
        Box::new(hhzs_motivation::HhzsMotivationTarget),
        Box::new(hhzs::HhzsTarget::default()),
        Box::new(znsage::ZnsageTarget),
        Box::new(conzone::ConZoneTarget),
        Box::new(placement::PlacementTarget),
    ]
}

/// Checks `draws` for target `name` (`RunOptions::draws`): at least 1, and only for
/// a target that takes draws. Returns the draws the run will take (`None` for a
/// target that runs once, or an unknown one). The CLI checks this before it creates
/// the output directory; [`run_target`] checks it again.
pub fn check_draws(name: &str, draws: Option<usize>) -> Result<Option<usize>, ReproduceError> {
    let all = targets();
    let takes = all
        .iter()
        .find(|t| t.name() == name)
        .and_then(|t| t.draws());
    match (draws, takes) {
        (Some(0), _) => Err(ReproduceError::Run(
            "draws 0 is out of range (at least 1)".into(),
        )),
        (Some(n), None) => Err(ReproduceError::Run(format!(
            "target {name} runs once and takes no draws (asked for {n}); targets with draws: {}",
            all.iter()
                .filter_map(|t| t.draws().map(|d| format!(
                    "{} ({}, default {})",
                    t.name(),
                    d.what,
                    d.default_count
                )))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        (n, Some(d)) => Ok(Some(n.unwrap_or(d.default_count))),
        (None, None) => Ok(None),
    }
}

/// Checks `cpu_jitter_ppm` for target `name` (`RunOptions::cpu_jitter_ppm`): at
/// most [`MAX_CPU_JITTER_PPM`], and only for a target that models the variation.
/// Returns the variation the run will use (the target's default if not given;
/// `None` for a target without it, or an unknown one). Checked by the CLI before
/// it creates the output directory, and again by [`run_target`].
pub fn check_cpu_jitter(
    name: &str,
    cpu_jitter_ppm: Option<u64>,
) -> Result<Option<u64>, ReproduceError> {
    let all = targets();
    let default = all
        .iter()
        .find(|t| t.name() == name)
        .and_then(|t| t.cpu_jitter_ppm());
    if let Some(ppm) = cpu_jitter_ppm {
        check_cpu_jitter_range(ppm)?;
    }
    match (cpu_jitter_ppm, default) {
        (Some(ppm), None) => Err(ReproduceError::Run(format!(
            "target {name} does not model run-to-run CPU variation (asked for {ppm} ppm); targets that do: {}",
            all.iter()
                .filter_map(|t| t.cpu_jitter_ppm().map(|d| format!("{} (default {d} ppm)", t.name())))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        (ppm, Some(d)) => Ok(Some(ppm.unwrap_or(d))),
        (None, None) => Ok(None),
    }
}

/// Checks a CPU variation's range alone (`reproduce all` passes it to the targets
/// that model it and ignores it for the others).
pub fn check_cpu_jitter_range(ppm: u64) -> Result<(), ReproduceError> {
    if ppm > MAX_CPU_JITTER_PPM {
        return Err(ReproduceError::Run(format!(
            "cpu jitter {ppm} ppm is out of range (0..={MAX_CPU_JITTER_PPM}, a CV of at most 50 %)"
        )));
    }
    Ok(())
}

/// Runs target `name`.
pub fn run_target(
    name: &str,
    opts: &RunOptions,
    progress: &mut dyn ProgressSink,
) -> Result<ReproduceResult, ReproduceError> {
    let scale = opts.scale;
    let all = targets();
    let Some(target) = all.iter().find(|t| t.name() == name) else {
        let known = all.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ");
        return Err(ReproduceError::UnknownTarget {
            name: name.to_string(),
            known,
        });
    };
    let (lo, hi) = target.scale_range();
    if !(scale.is_finite() && scale >= lo && scale <= hi) {
        return Err(ReproduceError::BadScale {
            scale,
            allowed: format!("{lo}..={hi} for target {name}"),
        });
    }
    check_draws(name, opts.draws)?;
    check_cpu_jitter(name, opts.cpu_jitter_ppm)?;
    target.run(opts, progress)
}
