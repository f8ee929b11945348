//! HHZS (`papers/hhzs.txt`): hybrid hinted zoned storage under an LSM-tree.
//!
//! Mechanism: the zone file store across a ZNS SSD and an HM-SMR HDD (§3.2) with
//! its WAL/cache zone pool, SSD caching of evicted blocks (§3.5) and rate-limited
//! SST migration (§3.4). Policies: the basic schemes B1–B4 of the motivating
//! analysis (§2.3), HHZS's write-guided placement with optional migration (§3.3,
//! §3.4) and SpanDB's AUTO (§4.1) — all [`PlacementPolicy`]s.
//!
//! Emulation (issue 9): [`data_path`] carries real bytes through the same store,
//! [`journal`] / [`journal_codec`] keep its metadata in log zones (as ZenFS) and
//! [`recovery`] rebuilds it after a crash; `crates/zonefs` runs it in real time
//! behind libzonelab's `zl_fs_*` calls. Simulation never turns these on.

pub mod allocation;
pub mod auto;
pub mod cache_table;
pub mod data_path;
pub mod journal;
pub mod journal_codec;
pub mod metadata_zones;
pub mod migration;
pub mod placement;
pub mod read_stats;
pub mod recovery;
pub mod scheme;
pub mod ssd_cache;
pub mod view;
pub mod write_guided;
pub mod zenfs_sharing;
pub mod zone_store;

pub use allocation::RelocationStats;
pub use auto::AutoPlacement;
pub use metadata_zones::{METADATA_FILE_ZONES, ZENFS_META_ZONES};
pub use migration::{
    h2zone_daemon_times_ns, MigrationLimiter, MigrationPlanning,
    H2ZONE_CAPACITY_MIGRATION_DELAY_NS, H2ZONE_PLANNING_WINDOW_NS,
};
pub use placement::{BasicPlacement, PlacementPolicy};
pub use scheme::{Scheme, SchemeStore};
pub use view::{DeviceView, MigrationPlan, PriorityOrder, SstView, StoreView};
pub use write_guided::WriteGuided;
pub use zenfs_sharing::{ZenfsSharing, ZenfsSharingStats};
pub use zone_store::{DeviceTraffic, FileClass, OccupancySamples, StoreDeviceSpec, ZoneFileStore};
