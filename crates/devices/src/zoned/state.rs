//! Zone states and descriptors as `report zones` returns them.

use crate::command::Lba;
use serde::Serialize;

/// Zone condition (NVMe ZNS ZSE/ZSIO/ZSEO/ZSC/ZSF/ZSRO/ZSO; ZBC equivalents).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneState {
    Empty,
    ImplicitlyOpen,
    ExplicitlyOpen,
    Closed,
    Full,
    ReadOnly,
    Offline,
    /// A conventional zone (ZBC "not write pointer"): random writes, no state.
    NotWritePointer,
}

impl ZoneState {
    /// Open zones count against max-open.
    pub fn is_open(self) -> bool {
        matches!(self, ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen)
    }

    /// Active zones (open or closed) count against max-active.
    pub fn is_active(self) -> bool {
        matches!(
            self,
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen | ZoneState::Closed
        )
    }
}

impl std::fmt::Display for ZoneState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            ZoneState::Empty => "empty",
            ZoneState::ImplicitlyOpen => "implicitly-open",
            ZoneState::ExplicitlyOpen => "explicitly-open",
            ZoneState::Closed => "closed",
            ZoneState::Full => "full",
            ZoneState::ReadOnly => "read-only",
            ZoneState::Offline => "offline",
            ZoneState::NotWritePointer => "not-write-pointer",
        };
        f.write_str(s)
    }
}

/// Zone type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneType {
    /// Writes must be sequential at the write pointer (ZNS, ZBC SWR).
    SequentialWriteRequired,
    /// Random writes allowed; no write pointer (ZBC conventional zones).
    Conventional,
}

impl std::fmt::Display for ZoneType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ZoneType::SequentialWriteRequired => "seq-write-required",
            ZoneType::Conventional => "conventional",
        })
    }
}

/// One zone as reported to the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ZoneDescriptor {
    pub index: u32,
    pub zone_type: ZoneType,
    pub state: ZoneState,
    pub start_lba: Lba,
    pub size_blocks: u64,
    pub capacity_blocks: u64,
    pub write_pointer: Lba,
    /// The zone holds a zone random write area (zone attribute ZRWAV, NVMe TP4076).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub zrwa: bool,
}
