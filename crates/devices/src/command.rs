//! Host commands and their completions: the one request type every device model
//! accepts. Addresses and lengths are in logical blocks of the device's block size.

use serde::Serialize;
use zonelab_engine::Ns;

/// Logical block address.
pub type Lba = u64;

/// Zone management actions (NVMe ZNS Zone Management Send / ZBC zone commands).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ZoneAction {
    Open,
    Close,
    Finish,
    Reset,
    /// Open Zone with ZRWA allocation (the ZRWAA bit, NVMe TP4076): the zone gets a
    /// zone random write area (`zoned/zrwa.rs`).
    #[serde(rename = "open-zrwa")]
    OpenZrwa,
    /// Flush Explicit ZRWA Range (Zone Management Send action 11h): commits the
    /// zone's ZRWA up to and including the LBA given in `zone_lba` (for this action
    /// NVMe's SLBA names the last LBA to flush, not the zone start).
    #[serde(rename = "flush-zrwa")]
    FlushZrwa,
}

/// A host command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Read {
        lba: Lba,
        blocks: u32,
    },
    /// Block interface: anywhere. Zoned interface: exactly at the write pointer.
    Write {
        lba: Lba,
        blocks: u32,
    },
    /// Zone append: `zone_lba` is the zone's start; the completion carries the LBA
    /// where the data landed.
    Append {
        zone_lba: Lba,
        blocks: u32,
    },
    /// Deallocate (TRIM / discard) a range; block interface only.
    Trim {
        lba: Lba,
        blocks: u32,
    },
    /// Make all acknowledged writes durable (empties volatile write caches).
    Flush,
    /// Zone management on the zone starting at `zone_lba`.
    Zone {
        action: ZoneAction,
        zone_lba: Lba,
    },
}

impl Command {
    /// A short name for errors and statistics.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Read { .. } => "read",
            Command::Write { .. } => "write",
            Command::Append { .. } => "append",
            Command::Trim { .. } => "trim",
            Command::Flush => "flush",
            Command::Zone {
                action: ZoneAction::Open,
                ..
            } => "zone-open",
            Command::Zone {
                action: ZoneAction::Close,
                ..
            } => "zone-close",
            Command::Zone {
                action: ZoneAction::Finish,
                ..
            } => "zone-finish",
            Command::Zone {
                action: ZoneAction::Reset,
                ..
            } => "zone-reset",
            Command::Zone {
                action: ZoneAction::OpenZrwa,
                ..
            } => "zone-open-zrwa",
            Command::Zone {
                action: ZoneAction::FlushZrwa,
                ..
            } => "zrwa-flush",
        }
    }

    /// Blocks of data the command moves (0 for management commands).
    pub fn data_blocks(&self) -> u32 {
        match *self {
            Command::Read { blocks, .. }
            | Command::Write { blocks, .. }
            | Command::Append { blocks, .. } => blocks,
            _ => 0,
        }
    }
}

/// Payload of a request. Simulation runs size-only; when bytes are given they must
/// be exactly `blocks × block size` long, are stored, and round-trip on reads.
#[derive(Debug)]
pub enum Payload<'a> {
    SizeOnly,
    Write(&'a [u8]),
    Read(&'a mut [u8]),
}

/// A completed command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// Virtual time at which the host sees the completion.
    pub done_ns: Ns,
    /// First LBA the command touched; for a zone append, where the data landed.
    pub lba: Lba,
}
