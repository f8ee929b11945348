//! Resuming a backing file: replays saved zone states into a fresh model, and
//! keeps the emulator's mirror of the zone states current (issue 9 part 1).
//!
//! The model's zone rules engine (`ZoneSet`) and its internal per-zone state
//! (write buffers, programmed stripes) are reached only through host commands, so
//! a saved zone is restored with the commands that produce it, size-only (no
//! bytes, which already sit in the file): closed zones are written to their write
//! pointer and closed, full zones finished, open zones (re)opened and written.
//! The replay is submitted at virtual time 0 and takes modelled time; the
//! emulator's clock starts where it completed, so the replayed work does not
//! delay the first real requests.
//!
//! Block-interface models (FTL SSD, CMR HDD) have no zone state: their bytes
//! persist in the file, but their internal mapping and GC state start fresh, so
//! only their timing, not their data, differs from an uninterrupted run.

use crate::backing::{Backing, SavedZone};
use crate::emulated::EmulationError;
use zonelab_devices::zoned::{ZoneState, ZoneType};
use zonelab_devices::{Command, Device, DeviceError, DeviceInfo, Payload, ZoneAction};

/// Largest size-only write the replay submits at once (2^16 blocks: 256 MiB of
/// 4 KiB blocks); keeps every command well inside `u32` block counts.
const REPLAY_WRITE_BLOCKS: u64 = 1 << 16;

/// Replay order: closed zones first (each leaves the open set again), then full,
/// then implicitly and explicitly open ones, so the open/active limits the saved
/// state satisfied are never exceeded on the way.
fn replay_rank(state: ZoneState) -> u8 {
    match state {
        ZoneState::Closed => 0,
        ZoneState::Full => 1,
        ZoneState::ImplicitlyOpen => 2,
        ZoneState::ExplicitlyOpen => 3,
        _ => 4,
    }
}

/// Brings a fresh `device` to the `saved` zone states. Returns the virtual time
/// the replay completed (0 when nothing was replayed).
pub fn replay<D: ?Sized + Device>(
    device: &mut D,
    info: &DeviceInfo,
    saved: &[SavedZone],
) -> Result<u64, EmulationError> {
    let Some(z) = info.zoned.as_ref() else {
        return Ok(0);
    };
    let mut order: Vec<SavedZone> = saved.to_vec();
    order.sort_by_key(|s| (replay_rank(s.state), s.index));
    let mut done_ns = 0u64;
    for s in order {
        let start = s.index as u64 * z.zone_size_blocks;
        let mut submit = |cmd: Command| -> Result<(), EmulationError> {
            let c = device
                .submit(0, &cmd, Payload::SizeOnly)
                .map_err(|source| EmulationError::Restore {
                    zone: s.index,
                    source,
                })?;
            done_ns = done_ns.max(c.done_ns);
            Ok(())
        };
        let zone = |action| Command::Zone {
            action,
            zone_lba: start,
        };
        match s.state {
            ZoneState::Empty | ZoneState::NotWritePointer => {}
            ZoneState::Full => submit(zone(ZoneAction::Finish))?,
            ZoneState::Closed => {
                write_to_pointer(&mut submit, start, s.write_pointer)?;
                submit(zone(ZoneAction::Close))?;
            }
            ZoneState::ImplicitlyOpen => write_to_pointer(&mut submit, start, s.write_pointer)?,
            ZoneState::ExplicitlyOpen => {
                submit(zone(ZoneAction::Open))?;
                write_to_pointer(&mut submit, start, s.write_pointer)?;
            }
            ZoneState::ReadOnly | ZoneState::Offline => {
                // Emulation never produces these (they are failure injection in
                // simulation), and host commands cannot recreate them.
                return Err(EmulationError::Restore {
                    zone: s.index,
                    source: DeviceError::InvalidTransition {
                        zone: s.index,
                        action: "restore",
                        state: s.state,
                    },
                });
            }
        }
        // The model must now report what was saved (a full zone's pointer is
        // wherever the model puts it).
        let now = device
            .report_zones(s.index, 1)
            .map_err(|source| EmulationError::Restore {
                zone: s.index,
                source,
            })?;
        if let Some(d) = now.first() {
            let same = d.state == s.state
                && (s.state == ZoneState::Full || d.write_pointer == s.write_pointer);
            if !same {
                return Err(EmulationError::Restore {
                    zone: s.index,
                    source: DeviceError::InvalidTransition {
                        zone: s.index,
                        action: "restore",
                        state: d.state,
                    },
                });
            }
        }
    }
    Ok(done_ns)
}

/// Size-only writes from `start` up to `write_pointer`.
fn write_to_pointer(
    submit: &mut dyn FnMut(Command) -> Result<(), EmulationError>,
    start: u64,
    write_pointer: u64,
) -> Result<(), EmulationError> {
    let mut lba = start;
    while lba < write_pointer {
        let blocks = (write_pointer - lba).min(REPLAY_WRITE_BLOCKS);
        submit(Command::Write {
            lba,
            blocks: blocks as u32,
        })?;
        lba += blocks;
    }
    Ok(())
}

/// Loads the mirror from the model and punches out everything above each
/// non-full sequential zone's write pointer, so bytes written after the last
/// save (or before a reset the sidecar recorded) never reappear.
pub fn clear_above_write_pointers<D: ?Sized + Device>(
    backing: &mut Backing,
    device: &D,
    info: &DeviceInfo,
) -> Result<(), EmulationError> {
    let Some(z) = info.zoned.as_ref() else {
        backing.restored = true;
        return Ok(());
    };
    backing.zones = device
        .report_zones(0, z.zone_count)
        .map_err(|source| EmulationError::Restore { zone: 0, source })?;
    for d in &backing.zones {
        if d.zone_type == ZoneType::Conventional || d.state == ZoneState::Full {
            continue;
        }
        let end = d.start_lba + d.size_blocks;
        backing
            .discard(d.write_pointer, end.saturating_sub(d.write_pointer))
            .map_err(|e| EmulationError::Backing {
                path: backing.path().display().to_string(),
                message: e.to_string(),
            })?;
    }
    backing.restored = true;
    Ok(())
}

/// Updates the mirror after a command on `zone`. A zone that became open may
/// have implicitly closed another one, so then every zone is re-read.
pub fn refresh_mirror<D: ?Sized + Device>(backing: &mut Backing, device: &D, zone: u32) {
    let Some(old) = backing.zones.get(zone as usize).map(|d| d.state) else {
        return;
    };
    let Some(new) = device
        .report_zones(zone, 1)
        .ok()
        .and_then(|v| v.first().copied())
    else {
        return;
    };
    backing.zones[zone as usize] = new;
    if new.state != old && new.state.is_open() {
        if let Ok(all) = device.report_zones(0, backing.zones.len() as u32) {
            backing.zones = all;
        }
    }
}
