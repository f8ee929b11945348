//! `#[repr(C)]` structs of the C ABI and the zone state/type codes.
//!
//! Zone state codes are the NVMe ZNS Zone Descriptor "Zone State" values (NVMe
//! Zoned Namespace Command Set specification 1.1, Zone Descriptor Data Structure:
//! 1h empty, 2h implicitly opened, 3h explicitly opened, 4h closed, Dh read only,
//! Eh full, Fh offline), with 0h for a conventional zone as ZBC/ZAC's "NOT WRITE
//! POINTER" condition. Zone type codes are ZBC's (1h conventional, 2h sequential
//! write required; NVMe ZNS also uses 2h).

use zonelab_devices::zoned::{ZoneDescriptor, ZoneState, ZoneType};
use zonelab_devices::DeviceInfo;

/// Conventional zone: no write pointer, random writes (ZBC "not write pointer").
pub const ZL_ZONE_STATE_NOT_WRITE_POINTER: u32 = 0x0;
pub const ZL_ZONE_STATE_EMPTY: u32 = 0x1;
pub const ZL_ZONE_STATE_IMPLICITLY_OPEN: u32 = 0x2;
pub const ZL_ZONE_STATE_EXPLICITLY_OPEN: u32 = 0x3;
pub const ZL_ZONE_STATE_CLOSED: u32 = 0x4;
pub const ZL_ZONE_STATE_READ_ONLY: u32 = 0xD;
pub const ZL_ZONE_STATE_FULL: u32 = 0xE;
pub const ZL_ZONE_STATE_OFFLINE: u32 = 0xF;

pub const ZL_ZONE_TYPE_CONVENTIONAL: u32 = 0x1;
pub const ZL_ZONE_TYPE_SEQUENTIAL_WRITE_REQUIRED: u32 = 0x2;

/// What a device is: sizes in logical blocks of `block_bytes`. The zone fields
/// are 0 when `zoned` is 0 (a block device).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ZlDeviceInfo {
    pub block_bytes: u32,
    pub capacity_blocks: u64,
    /// 1 for a zoned device (ZNS SSD, host-managed SMR HDD), 0 otherwise.
    pub zoned: u32,
    pub zone_count: u32,
    pub zone_size_blocks: u64,
    pub zone_capacity_blocks: u64,
    pub conventional_zones: u32,
    /// 0 = no limit.
    pub max_open_zones: u32,
    /// 0 = no limit.
    pub max_active_zones: u32,
}

impl From<&DeviceInfo> for ZlDeviceInfo {
    fn from(i: &DeviceInfo) -> Self {
        let mut out = ZlDeviceInfo {
            block_bytes: i.block_bytes,
            capacity_blocks: i.capacity_blocks,
            ..Default::default()
        };
        if let Some(z) = &i.zoned {
            out.zoned = 1;
            out.zone_count = z.zone_count;
            out.zone_size_blocks = z.zone_size_blocks;
            out.zone_capacity_blocks = z.zone_capacity_blocks;
            out.conventional_zones = z.conventional_zones;
            out.max_open_zones = z.max_open_zones;
            out.max_active_zones = z.max_active_zones;
        }
        out
    }
}

/// One zone as report-zones returns it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ZlZone {
    pub index: u32,
    /// `ZL_ZONE_TYPE_*`.
    pub zone_type: u32,
    /// `ZL_ZONE_STATE_*`.
    pub state: u32,
    pub start_lba: u64,
    pub size_blocks: u64,
    /// Writable blocks from `start_lba` (≤ `size_blocks`).
    pub capacity_blocks: u64,
    pub write_pointer: u64,
}

impl From<&ZoneDescriptor> for ZlZone {
    fn from(d: &ZoneDescriptor) -> Self {
        ZlZone {
            index: d.index,
            zone_type: match d.zone_type {
                ZoneType::Conventional => ZL_ZONE_TYPE_CONVENTIONAL,
                ZoneType::SequentialWriteRequired => ZL_ZONE_TYPE_SEQUENTIAL_WRITE_REQUIRED,
            },
            state: match d.state {
                ZoneState::NotWritePointer => ZL_ZONE_STATE_NOT_WRITE_POINTER,
                ZoneState::Empty => ZL_ZONE_STATE_EMPTY,
                ZoneState::ImplicitlyOpen => ZL_ZONE_STATE_IMPLICITLY_OPEN,
                ZoneState::ExplicitlyOpen => ZL_ZONE_STATE_EXPLICITLY_OPEN,
                ZoneState::Closed => ZL_ZONE_STATE_CLOSED,
                ZoneState::ReadOnly => ZL_ZONE_STATE_READ_ONLY,
                ZoneState::Full => ZL_ZONE_STATE_FULL,
                ZoneState::Offline => ZL_ZONE_STATE_OFFLINE,
            },
            start_lba: d.start_lba,
            size_blocks: d.size_blocks,
            capacity_blocks: d.capacity_blocks,
            write_pointer: d.write_pointer,
        }
    }
}

/// A request submitted with `zl_submit_nowait`: modelled (virtual) times, the
/// LBA written, and the wall-clock deadline it completes at.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ZlCompletion {
    /// Virtual time the request reached the model (ns).
    pub submit_ns: u64,
    /// Virtual time the model completed it (ns); `done_ns - submit_ns` is the
    /// modelled latency.
    pub done_ns: u64,
    /// First LBA touched; for an append, where the data landed.
    pub lba: u64,
    /// Wall-clock completion on the `zl_clock_ns` clock (ns since the device was
    /// opened).
    pub deadline_ns: u64,
}
