//! [`BackedDevice`]: a device model whose payload bytes and zone states persist in
//! a sparse backing file (issue 9 part 1, factored out of [`crate::EmulatedDevice`]
//! for owners that pace requests themselves, such as a zone file store that holds
//! its devices under one lock).
//!
//! It implements [`Device`]: the model sees size-only requests and keeps all
//! timing and zone rules; on success the bytes move to or from the file, the zone
//! mirror is updated, and a Flush saves the zone states to `<file>.zones`
//! ([`crate::backing`]). Opening replays the saved zone states into the fresh
//! model ([`crate::restore`]). No wall clock is involved.

use crate::backing::Backing;
use crate::emulated::EmulationError;
use crate::restore;
use std::path::Path;
use zonelab_devices::zoned::ZoneDescriptor;
use zonelab_devices::{
    check_payload, Command, Completion, Device, DeviceError, DeviceInfo, DeviceStats, Payload,
    ZoneAction,
};

/// Submits `cmd` to `device` (size-only; a write with `placement_id` carries that
/// FDP placement directive) and moves the payload bytes to or from
/// `b`; keeps the zone mirror current and saves it on Flush.
pub(crate) fn submit_with_backing<D: ?Sized + Device>(
    b: &mut Backing,
    device: &mut D,
    info: &DeviceInfo,
    now_ns: u64,
    cmd: &Command,
    payload: Payload<'_>,
    placement_id: Option<u16>,
) -> Result<Completion, DeviceError> {
    check_payload(cmd, &payload, info.block_bytes)?;
    let c = match placement_id {
        Some(pid) => device.submit_placed(now_ns, cmd, pid, Payload::SizeOnly)?,
        None => device.submit(now_ns, cmd, Payload::SizeOnly)?,
    };
    let path = b.path().display().to_string();
    let io = |e: std::io::Error| DeviceError::Io {
        command: cmd.name(),
        message: format!("{path}: {e}"),
    };
    let zone_size = info.zoned.as_ref().map(|z| z.zone_size_blocks);
    match (*cmd, payload) {
        (Command::Write { lba, .. }, Payload::Write(bytes)) => {
            b.write_at(lba, bytes).map_err(io)?
        }
        (Command::Append { .. }, Payload::Write(bytes)) => b.write_at(c.lba, bytes).map_err(io)?,
        (Command::Read { lba, .. }, Payload::Read(out)) => b.read_at(lba, out).map_err(io)?,
        (Command::Trim { lba, blocks }, _) => b.discard(lba, blocks as u64).map_err(io)?,
        (
            Command::Zone {
                action: ZoneAction::Reset,
                zone_lba,
            },
            _,
        ) => b.discard(zone_lba, zone_size.unwrap_or(0)).map_err(io)?,
        _ => {}
    }
    let touched = match *cmd {
        Command::Write { lba, .. } => Some(lba),
        Command::Append { zone_lba, .. } | Command::Zone { zone_lba, .. } => Some(zone_lba),
        _ => None,
    };
    if let (Some(lba), Some(size)) = (touched, zone_size) {
        restore::refresh_mirror(b, device, (lba / size) as u32);
    }
    if matches!(cmd, Command::Flush) {
        b.save().map_err(io)?;
    }
    Ok(c)
}

/// A device model with its bytes and zone states in a sparse backing file.
pub struct BackedDevice {
    device: Box<dyn Device + Send>,
    backing: Backing,
    info: DeviceInfo,
    restored_at_ns: u64,
}

impl BackedDevice {
    /// Opens (creating if needed) the backing file at `path` for `device` and
    /// replays the zone states saved at its last flush.
    pub fn open(mut device: Box<dyn Device + Send>, path: &Path) -> Result<Self, EmulationError> {
        let info = device.info().clone();
        let (mut backing, saved) = Backing::open(path, &info)?;
        let restored_at_ns = restore::replay(&mut *device, &info, &saved)?;
        restore::clear_above_write_pointers(&mut backing, &*device, &info)?;
        Ok(BackedDevice {
            device,
            backing,
            info,
            restored_at_ns,
        })
    }

    /// Virtual time the replay of the saved zone states completed (0 for a new
    /// file): the owner's clock should start there.
    pub fn restored_at_ns(&self) -> u64 {
        self.restored_at_ns
    }

    /// Saves data and zone states without a modelled Flush.
    pub fn save(&self) -> std::io::Result<()> {
        self.backing.save()
    }
}

impl Device for BackedDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn metadata_bytes_per_block(&self) -> u32 {
        self.device.metadata_bytes_per_block()
    }

    fn preferred_write_bytes(&self) -> u64 {
        self.device.preferred_write_bytes()
    }

    fn submit(
        &mut self,
        now_ns: u64,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        submit_with_backing(
            &mut self.backing,
            &mut *self.device,
            &self.info,
            now_ns,
            cmd,
            payload,
            None,
        )
    }

    fn submit_placed(
        &mut self,
        now_ns: u64,
        cmd: &Command,
        placement_id: u16,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        submit_with_backing(
            &mut self.backing,
            &mut *self.device,
            &self.info,
            now_ns,
            cmd,
            payload,
            Some(placement_id),
        )
    }

    fn fdp(&self) -> Option<zonelab_devices::fdp::FdpReport> {
        self.device.fdp()
    }

    fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        self.device.report_zones(first, max)
    }

    fn stats(&self, elapsed_ns: u64) -> DeviceStats {
        self.device.stats(elapsed_ns)
    }
}
