//! Typed errors of the host interfaces. Every violation of the block or zoned
//! command rules is one of these; none is ever a panic or silently accepted.

use crate::command::Lba;
use crate::zoned::ZoneState;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DeviceError {
    #[error("{command}: LBA range {lba}+{blocks} is beyond the device's {capacity_blocks} blocks")]
    OutOfRange {
        command: &'static str,
        lba: Lba,
        blocks: u32,
        capacity_blocks: u64,
    },
    #[error("{command}: zero-length request at LBA {lba}")]
    ZeroLength { command: &'static str, lba: Lba },
    #[error("{command}: payload is {got_bytes} bytes but the request covers {expected_bytes}")]
    PayloadSize {
        command: &'static str,
        expected_bytes: u64,
        got_bytes: u64,
    },
    #[error("{command} is not supported by {device}")]
    Unsupported {
        command: &'static str,
        device: String,
    },
    #[error("zone {zone}: write at LBA {lba} is not at the write pointer {write_pointer}")]
    NotAtWritePointer {
        zone: u32,
        lba: Lba,
        write_pointer: Lba,
    },
    #[error("zone {zone}: zone is full")]
    ZoneFull { zone: u32 },
    #[error("zone {zone}: {command} of {blocks} blocks at LBA {lba} crosses the zone boundary (capacity ends at LBA {capacity_end})")]
    BoundaryCrossed {
        command: &'static str,
        zone: u32,
        lba: Lba,
        blocks: u32,
        capacity_end: Lba,
    },
    #[error("zone {zone}: too many open zones (limit {limit})")]
    TooManyOpenZones { zone: u32, limit: u32 },
    #[error("zone {zone}: too many active zones (limit {limit})")]
    TooManyActiveZones { zone: u32, limit: u32 },
    #[error("zone {zone}: cannot {action} a zone in state {state}")]
    InvalidTransition {
        zone: u32,
        action: &'static str,
        state: ZoneState,
    },
    #[error("zone {zone}: zone is read-only")]
    ReadOnly { zone: u32 },
    #[error("zone {zone}: zone is offline")]
    Offline { zone: u32 },
    #[error("LBA {lba} is not the start of a zone")]
    NotZoneStart { lba: Lba },
    #[error("zone {zone}: {command} is not allowed on a conventional zone")]
    ConventionalZone { command: &'static str, zone: u32 },
    #[error("zone {zone}: read at LBA {lba} is beyond the write pointer {write_pointer} and this device does not return unwritten data")]
    UnwrittenRead {
        zone: u32,
        lba: Lba,
        write_pointer: Lba,
    },
    #[error("{command}: the device has no free space left to write (over-provisioning exhausted)")]
    NoSpace { command: &'static str },
    /// Emulation mode only: reading or writing the payload's backing file failed
    /// (the model accepted the command; its bytes may be missing).
    #[error("{command}: backing file I/O failed: {message}")]
    Io {
        command: &'static str,
        message: String,
    },
}
