//! `--precondition` of replay runs: `full` writes the whole device once with
//! sequential 1 MiB writes (zone by zone on zoned devices); `footprint` writes only
//! the 1 MiB chunks the trace touches (block devices). The replay then starts
//! `PRECONDITION_IDLE_NS` after the fill.

use super::RunError;
use crate::bench::{precondition, BenchOptions, PRECONDITION_IDLE_NS};
use crate::replay::{Footprint, ReplayOptions};
use zonelab_devices::Device;
use zonelab_workloads::job::{JobSpec, RwMode};
use zonelab_workloads::trace::TraceReader;

/// What `precondition` asked for.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Precondition {
    Full,
    Footprint,
}

impl Precondition {
    pub fn parse(value: Option<&str>) -> Result<Option<Precondition>, RunError> {
        match value {
            None => Ok(None),
            Some("full") => Ok(Some(Precondition::Full)),
            Some("footprint") => Ok(Some(Precondition::Footprint)),
            Some(other) => Err(RunError::option(
                "precondition",
                format!("unknown mode `{other}` (full or footprint)"),
            )),
        }
    }

    /// Preconditions the device; returns when the fill ended and the bytes written.
    pub fn run(
        self,
        device: &mut dyn Device,
        reader: &mut TraceReader,
        opts: &ReplayOptions,
    ) -> Result<(u64, u64), RunError> {
        let capacity = device.info().capacity_bytes();
        match self {
            Precondition::Full => {
                let fill = JobSpec {
                    rw: RwMode::Write,
                    ..JobSpec::default()
                };
                let end = precondition(device, &fill, &BenchOptions::default())
                    .map_err(|e| RunError::Run(format!("--precondition full: {e}")))?;
                Ok((end - PRECONDITION_IDLE_NS, capacity))
            }
            Precondition::Footprint => {
                if device.info().zoned.is_some() {
                    return Err(RunError::Run(format!(
                        "--precondition footprint writes where the trace does, which a zoned device ({}) accepts only at write pointers; use --precondition full",
                        device.info().name
                    )));
                }
                let footprint = Footprint::of_trace(device, reader, opts).map_err(|e| {
                    RunError::Run(format!(
                        "--precondition footprint: {}",
                        super::replay::error_message(&e)
                    ))
                })?;
                let end = footprint
                    .fill(device, 0)
                    .map_err(|e| RunError::Run(format!("--precondition footprint: {e}")))?;
                Ok((end, footprint.bytes()))
            }
        }
    }
}
