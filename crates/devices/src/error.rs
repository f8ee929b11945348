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
    #[error("zone {zone}: the namespace has no zone random write area (ZRWA) support")]
    ZrwaUnsupported { zone: u32 },
    #[error("zone {zone}: no ZRWA resource is free (all {limit} are allocated to other zones)")]
    NoZrwaResources { zone: u32, limit: u32 },
    #[error("zone {zone}: cannot allocate a ZRWA while the write pointer {write_pointer} is not a multiple of the flush granularity ({granularity_blocks} blocks) from the zone start")]
    ZrwaUnaligned {
        zone: u32,
        write_pointer: Lba,
        granularity_blocks: u64,
    },
    #[error("zone {zone}: write of {blocks} blocks at LBA {lba} is outside the ZRWA and its implicit flush range [{write_pointer}, {range_end})")]
    OutsideZrwa {
        zone: u32,
        lba: Lba,
        blocks: u32,
        write_pointer: Lba,
        range_end: Lba,
    },
    #[error(
        "zone {zone}: {command} needs a zone with a ZRWA (open it with ZRWA allocation first)"
    )]
    NoZrwa { zone: u32, command: &'static str },
    #[error(
        "zone {zone}: zone append is not allowed on a zone with a ZRWA (invalid zone operation)"
    )]
    ZrwaAppend { zone: u32 },
    #[error("zone {zone}: ZRWA flush up to LBA {lba} is outside the ZRWA [{write_pointer}, {window_end})")]
    ZrwaFlushRange {
        zone: u32,
        lba: Lba,
        write_pointer: Lba,
        window_end: Lba,
    },
    #[error("zone {zone}: ZRWA flush of {blocks} blocks is not a multiple of the flush granularity ({granularity_blocks} blocks)")]
    ZrwaFlushGranularity {
        zone: u32,
        blocks: u64,
        granularity_blocks: u64,
    },
    #[error("placement identifier {placement_id} names no reclaim unit handle (the device has {reclaim_groups} reclaim group(s) and {handles} placement handle(s))")]
    InvalidPlacement {
        placement_id: u16,
        reclaim_groups: u32,
        handles: u32,
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
