//! The `sample_interval` option of bench and replay runs: a given interval is
//! kept exactly or the run is an error naming the smallest that fits; the default
//! doubles as often as the series needs (`run_result::MAX_SERIES_POINTS`).

use super::units::{fmt_ns, UnitArg};
use super::RunError;
use crate::run_result::{min_series_interval_ns, RunResult, MAX_SERIES_POINTS};

/// The interval asked for in nanoseconds (`default` if none) and whether it was given.
pub fn resolve(given: Option<&UnitArg>, default: &str) -> Result<(u64, bool), RunError> {
    let ns = match given {
        Some(v) => v.ns(),
        None => UnitArg::text(default).ns(),
    }
    .map_err(|e| RunError::option("sample_interval", e))?;
    Ok((ns, given.is_some()))
}

/// Rejects a run whose series needed a wider interval than the one the user gave
/// (the recorder doubled it to stay within `MAX_SERIES_POINTS`).
pub fn check(r: &RunResult, asked_ns: u64, explicit: bool) -> Result<(), RunError> {
    if explicit && r.throughput_series.interval_ns != asked_ns {
        let min = min_series_interval_ns(r.duration_ns);
        return Err(RunError::Run(format!(
            "--sample-interval {} gives more than {MAX_SERIES_POINTS} points over this run's {} of virtual time; the minimum for this run is --sample-interval {min}ns (about {})",
            fmt_ns(asked_ns),
            fmt_ns(r.duration_ns),
            fmt_ns(min)
        )));
    }
    Ok(())
}
