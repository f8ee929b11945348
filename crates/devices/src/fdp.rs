//! NVMe Flexible Data Placement (FDP, TP4146; NVMe Base Specification 2.1,
//! "Flexible Data Placement") as the host sees it: the configuration, the
//! statistics and event log pages, the reclaim unit handle status, and the
//! placement identifier a write carries in its directive (DTYPE = Data Placement,
//! DSPEC = placement identifier). Models implement it through
//! [`crate::Device::submit_placed`], [`crate::Device::fdp`] and
//! [`crate::Device::fdp_update`]; the `ftl-ssd` model is the one with FDP
//! (`models/ftl/fdp.rs`).
//!
//! A placement identifier (PID) is a 16-bit value: the reclaim group in its top
//! RGIF bits and the placement handle below (RGIF = bits needed to number the
//! reclaim groups, 0 with one group), as QEMU's `nvme_pid2rg` / `nvme_pid2ph`
//! decode it (`hw/nvme/ctrl.c`).

use serde::Serialize;

/// Reclaim unit handle type (FDP configuration descriptor, RUHT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuhType {
    /// Data written through the handle starts out isolated; GC may later move it
    /// into reclaim units holding data of other initially isolated handles.
    InitiallyIsolated,
    /// GC moves the handle's data only into reclaim units of the same handle.
    PersistentlyIsolated,
}

/// The FDP configuration in use (FDP Configurations log page, one descriptor).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FdpConfig {
    /// NRG: reclaim groups.
    pub reclaim_groups: u32,
    /// RGIF: bits of a placement identifier that name the reclaim group.
    pub rgif_bits: u32,
    /// Reclaim unit handles, by index (placement handle i of the namespace is
    /// reclaim unit handle i).
    pub handles: Vec<RuhType>,
    /// RUNS: nominal size of a reclaim unit, bytes.
    pub reclaim_unit_bytes: u64,
}

impl FdpConfig {
    /// The placement identifier of placement handle `handle` in reclaim group `group`.
    pub fn pid(&self, group: u32, handle: u32) -> u16 {
        if self.rgif_bits == 0 {
            handle as u16
        } else {
            ((group << (16 - self.rgif_bits)) | handle) as u16
        }
    }

    /// (reclaim group, placement handle) of `pid`, if both exist.
    pub fn decode(&self, pid: u16) -> Option<(u32, u32)> {
        let (group, handle) = if self.rgif_bits == 0 {
            (0, pid as u32)
        } else {
            let shift = 16 - self.rgif_bits;
            (pid as u32 >> shift, pid as u32 & ((1 << shift) - 1))
        };
        (group < self.reclaim_groups && (handle as usize) < self.handles.len())
            .then_some((group, handle))
    }
}

/// FDP Statistics log page: bytes over the life of the endurance group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FdpStatistics {
    /// HBMW: bytes (data + metadata) the host wrote.
    pub host_bytes_with_metadata_written: u64,
    /// MBMW: bytes (data + metadata, padding included) written to the media.
    pub media_bytes_with_metadata_written: u64,
    /// MBE: bytes of media erased.
    pub media_bytes_erased: u64,
}

/// FDP event types (FDP Events log page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FdpEventType {
    /// Host event 00h: a reclaim unit handle moved to a new reclaim unit before its
    /// reclaim unit was fully written (here: a reclaim unit handle update).
    ReclaimUnitNotFullyWritten,
    /// Host event 03h: a write named a placement identifier that does not exist;
    /// the data went to placement handle 0 of reclaim group 0.
    InvalidPlacementIdentifier,
    /// Controller event 80h: the controller moved valid data (GC relocated a
    /// reclaim unit's data before erasing it).
    MediaReallocated,
}

/// One FDP event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FdpEvent {
    pub event: FdpEventType,
    /// Virtual time of the event, ns.
    pub time_ns: u64,
    /// The placement identifier involved, when one is (PIV).
    pub placement_id: Option<u16>,
    pub reclaim_group: u32,
    /// The reclaim unit handle, when the event concerns one (RUHID valid).
    pub handle: Option<u32>,
    /// Media Reallocated: logical blocks moved (NLBAM).
    pub lbas_moved: u64,
}

/// Reclaim unit handle status (I/O Management Receive, RUH Status): one per
/// (reclaim group, placement handle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RuhStatus {
    pub placement_id: u16,
    pub reclaim_group: u32,
    pub handle: u32,
    /// RUAMW: bytes the handle's current reclaim unit can still take (the whole
    /// reclaim unit when none is open yet).
    pub available_bytes: u64,
}

/// Everything a host can read about FDP on a device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FdpReport {
    pub config: FdpConfig,
    pub statistics: FdpStatistics,
    /// Events logged so far, by type.
    pub event_counts: EventCounts,
    /// The most recent events (the log keeps [`FDP_EVENT_LOG_ENTRIES`]).
    pub recent_events: Vec<FdpEvent>,
    pub handles: Vec<RuhStatus>,
    /// Logical blocks GC moved, summed over all Media Reallocated events (a host
    /// reading every event could keep the same sums).
    pub relocated: RelocatedLbas,
}

/// Logical blocks GC moved out of reclaim units, by the handle that wrote the RU.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RelocatedLbas {
    /// Per (reclaim group, handle), in the order of `FdpReport::handles`: out of
    /// RUs host writes (or a persistently isolated handle's GC) filled.
    pub by_handle: Vec<u64>,
    /// Out of RUs the shared GC frontier of initially isolated handles filled
    /// (data moved a second time or more).
    pub from_shared_gc_units: u64,
}

/// Events logged, by type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EventCounts {
    pub reclaim_unit_not_fully_written: u64,
    pub invalid_placement_identifier: u64,
    pub media_reallocated: u64,
}

/// Entries the event log keeps (QEMU's `NVME_FDP_MAX_EVENTS`, the size of its
/// event buffer; older events are overwritten).
pub const FDP_EVENT_LOG_ENTRIES: usize = 63;

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(groups: u32, rgif_bits: u32, handles: usize) -> FdpConfig {
        FdpConfig {
            reclaim_groups: groups,
            rgif_bits,
            handles: vec![RuhType::InitiallyIsolated; handles],
            reclaim_unit_bytes: 1 << 20,
        }
    }

    #[test]
    fn pids_round_trip_and_out_of_range_ones_decode_to_none() {
        let one = cfg(1, 0, 8);
        assert_eq!(one.decode(3), Some((0, 3)));
        assert_eq!(one.decode(8), None);
        let four = cfg(4, 2, 8);
        for g in 0..4 {
            for h in 0..8 {
                assert_eq!(four.decode(four.pid(g, h)), Some((g, h)));
            }
        }
        assert_eq!(four.pid(3, 1), 0xC001);
        assert_eq!(four.decode(9), None, "handle 9 does not exist");
    }
}
