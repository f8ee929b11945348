//! The device trait every model implements, and what a device reports about
//! itself: identity, geometry and statistics.

use crate::command::{Command, Completion, Payload};
use crate::error::DeviceError;
use crate::fdp::FdpReport;
use crate::zoned::ZoneDescriptor;
use serde::Serialize;
use std::collections::BTreeMap;
use zonelab_engine::Ns;

/// Static facts about a device, fixed at construction.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DeviceInfo {
    /// Profile name (e.g. "zn540").
    pub name: String,
    /// Model kind (e.g. "zns-ssd", "hm-smr-hdd", "ftl-ssd", "cmr-hdd").
    pub model: String,
    pub description: String,
    pub block_bytes: u32,
    pub capacity_blocks: u64,
    /// Present on zoned devices.
    pub zoned: Option<ZonedInfo>,
}

/// Shape of a zoned namespace.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ZonedInfo {
    pub zone_count: u32,
    pub zone_size_blocks: u64,
    pub zone_capacity_blocks: u64,
    pub conventional_zones: u32,
    pub max_open_zones: u32,
    pub max_active_zones: u32,
}

impl DeviceInfo {
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity_blocks * self.block_bytes as u64
    }
}

/// Device statistics as reported in results JSON.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct DeviceStats {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub media_read_bytes: u64,
    pub media_write_bytes: u64,
    /// Host-written bytes acknowledged but still only in a write buffer or cache
    /// (not yet on the media) when the statistics were taken: the open program unit
    /// of an SSD, a disk's dirty write cache. Models without such a buffer report 0.
    pub buffered_write_bytes: u64,
    /// media_write_bytes / (host_write_bytes − buffered_write_bytes): write
    /// amplification of the host data that has reached the media, so bytes still in
    /// a buffer do not pull it below 1 (1.0 when none has).
    pub write_amplification: f64,
    pub gc_runs: u64,
    pub gc_copied_bytes: u64,
    pub erases: u64,
    pub zone_resets: u64,
    pub zone_finishes: u64,
    /// Busy fraction of each resource class over the run (e.g. "channel", "die",
    /// "actuator").
    pub utilisation: BTreeMap<String, f64>,
    /// Model-specific counters.
    pub counters: BTreeMap<String, u64>,
}

impl DeviceStats {
    /// Fills `write_amplification` from the byte counts.
    pub fn finish(mut self) -> Self {
        let on_media = self
            .host_write_bytes
            .saturating_sub(self.buffered_write_bytes);
        self.write_amplification = if on_media == 0 {
            1.0
        } else {
            // Rounded to 1e-6 so JSON output is stable and readable.
            ((self.media_write_bytes as f64 / on_media as f64) * 1e6).round() / 1e6
        };
        self
    }
}

/// A simulated storage device. Requests are submitted in non-decreasing virtual
/// time; the device reserves its internal resources and returns when the host sees
/// the completion. Background work (GC, cache flushes) is done by the device on the
/// same resources, so it delays later requests as on real hardware.
pub trait Device {
    fn info(&self) -> &DeviceInfo;

    /// Per-LBA metadata bytes of the LBA format the namespace is formatted with
    /// (NVMe `ms`); 0 for devices without metadata.
    fn metadata_bytes_per_block(&self) -> u32 {
        0
    }

    /// The write size the device programs at once and prefers writes to be a
    /// multiple of (NVMe Identify Namespace NPWG, "preferred write granularity";
    /// Linux reports it as the queue's `io_min`/`physical_block_size`). Default:
    /// one logical block.
    fn preferred_write_bytes(&self) -> u64 {
        self.info().block_bytes as u64
    }

    /// Submits `cmd` at virtual time `now_ns`. Rule violations are typed errors and
    /// leave the device unchanged.
    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError>;

    /// Submits a write carrying an NVMe data placement directive (DTYPE = Data
    /// Placement, DSPEC = `placement_id`, see [`crate::fdp`]). On a device with
    /// Flexible Data Placement the data goes to the reclaim unit the identifier's
    /// handle references; devices without it reject the directive.
    fn submit_placed(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        placement_id: u16,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        let _ = (now_ns, cmd, placement_id, payload);
        Err(DeviceError::Unsupported {
            command: "write with a data placement directive (FDP)",
            device: self.info().name.clone(),
        })
    }

    /// Flexible Data Placement configuration, statistics, events and handle
    /// status; `None` for devices without FDP.
    fn fdp(&self) -> Option<FdpReport> {
        None
    }

    /// Reclaim Unit Handle Update (I/O Management Send): each placement
    /// identifier's handle moves to an empty reclaim unit; a reclaim unit left
    /// not fully written is logged as an event.
    fn fdp_update(&mut self, now_ns: Ns, placement_ids: &[u16]) -> Result<Completion, DeviceError> {
        let _ = (now_ns, placement_ids);
        Err(DeviceError::Unsupported {
            command: "reclaim unit handle update (FDP)",
            device: self.info().name.clone(),
        })
    }

    /// Report zones: up to `max` descriptors from zone `first`. Block devices return
    /// [`DeviceError::Unsupported`].
    fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        let _ = (first, max);
        Err(DeviceError::Unsupported {
            command: "report-zones",
            device: self.info().name.clone(),
        })
    }

    /// Statistics so far; `elapsed_ns` is the run's virtual duration, for
    /// utilisation.
    fn stats(&self, elapsed_ns: Ns) -> DeviceStats;

    /// Sets where a rotating disk's platters stand relative to the host's clock
    /// (`zonelab_media::disk::DiskMechanics::set_spindle_phase_ns`): an
    /// experiment draws it to make runs that real hardware would make differ.
    /// Returns `false`, changing nothing, on a device without a spindle.
    fn set_spindle_phase_ns(&mut self, phase_ns: Ns) -> bool {
        let _ = phase_ns;
        false
    }

    /// A copy of the device in its current state (zones, timelines, counters), for
    /// experiments that snapshot a loaded system and run several workloads from
    /// it; `None` for models that do not support it.
    fn boxed_clone(&self) -> Option<Box<dyn Device>> {
        None
    }
}

/// Checks the payload length against the command, before any state changes.
pub fn check_payload(
    cmd: &Command,
    payload: &Payload<'_>,
    block_bytes: u32,
) -> Result<(), DeviceError> {
    let expected_bytes = cmd.data_blocks() as u64 * block_bytes as u64;
    let got_bytes = match payload {
        Payload::SizeOnly => return Ok(()),
        Payload::Write(b) => b.len() as u64,
        Payload::Read(b) => b.len() as u64,
    };
    let direction_ok = matches!(
        (cmd, payload),
        (Command::Read { .. }, Payload::Read(_))
            | (
                Command::Write { .. } | Command::Append { .. },
                Payload::Write(_)
            )
    );
    if !direction_ok || got_bytes != expected_bytes {
        return Err(DeviceError::PayloadSize {
            command: cmd.name(),
            expected_bytes,
            got_bytes,
        });
    }
    Ok(())
}

/// Rounds to 1e-6 so fractions in JSON stay stable and readable.
pub fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Checks a block-interface range: non-empty and inside `capacity_blocks`.
pub fn check_block_range(
    command: &'static str,
    lba: u64,
    blocks: u32,
    capacity_blocks: u64,
) -> Result<(), DeviceError> {
    if blocks == 0 {
        return Err(DeviceError::ZeroLength { command, lba });
    }
    match lba.checked_add(blocks as u64) {
        Some(end) if end <= capacity_blocks => Ok(()),
        _ => Err(DeviceError::OutOfRange {
            command,
            lba,
            blocks,
            capacity_blocks,
        }),
    }
}
