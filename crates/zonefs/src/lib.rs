//! ZoneLab's zone file system: the HHZS zone file store (`papers/hhzs.txt` §3;
//! `zonelab_systems::hhzs`) carrying real bytes on emulated devices, with named
//! files, HHZS's hints, a ZenFS-style metadata journal and crash recovery, run in
//! real time. libzonelab's `zl_fs_*` C functions (`crates/capi/src/fs*.rs`,
//! docs/c-api.md) are thin wrappers over [`ZoneFs`]; the RocksDB plugin
//! (integrations/rocksdb) uses them.
//!
//! - [`config`]: the TOML config (devices, policy, budget, dilation, scaling).
//! - [`devices`]: the SSD and HDD models, in memory or in backing files.
//! - [`fs`]: [`ZoneFs`] — files by name, real-time pacing, durability.
//! - [`hints`]: hint calls and the SSD cache; [`stats`]: counters as JSON.

pub mod clock;
pub mod config;
pub mod devices;
pub mod error;
pub mod fs;
pub mod hints;
pub mod stats;

pub use config::FsConfig;
pub use error::{FsError, FsErrorKind};
pub use fs::{ZoneFs, KIND_SST, KIND_WAL};
