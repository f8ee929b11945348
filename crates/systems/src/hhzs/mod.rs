//! HHZS (`papers/hhzs.txt`): hybrid hinted zoned storage under an LSM-tree. This
//! part holds the mechanism — the zone file store across a ZNS SSD and an HM-SMR
//! HDD (§3.2) — and the basic placement schemes B1–B4 of the motivating analysis
//! (§2.3). HHZS's own policies (write-guided placement, migration, caching) plug in
//! as further [`PlacementPolicy`]s.

pub mod placement;
pub mod zone_store;

pub use placement::{BasicPlacement, DeviceView, PlacementPolicy};
pub use zone_store::{DeviceTraffic, FileClass, OccupancySamples, StoreDeviceSpec, ZoneFileStore};
