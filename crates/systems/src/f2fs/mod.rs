//! An F2FS-like log-structured file system in virtual time (ConZone+ §6.3-§6.5:
//! the host file system of Figs. 10-12), on any block or zoned device model.
//!
//! It follows F2FS's mechanisms (Linux 6.12 `fs/f2fs`): six logs (hot / warm /
//! cold × data / node) appending to 2 MiB segments grouped into sections — a
//! zone per section on a zoned device, one segment on a block device; a node
//! tree per file (inode with 923 addresses, direct and indirect nodes) whose
//! nodes are found through the NAT, so a moved node rewrites only its NAT entry;
//! a SIT of valid-block bitmaps with their checkpointed copies; fsync writing
//! the file's data, then its dirty nodes for roll-forward, then a device flush;
//! checkpoints writing NAT, SIT, summaries and a checkpoint pack to the metadata
//! device and freeing prefree sections (zone reset or trim); `mode=lfs`
//! (out-of-place only, the only mode on zoned storage) or `mode=adaptive`
//! (in-place updates of fsync'ed overwrites and direct overwrites, slack-space
//! recycling when free sections run low); background and foreground cleaning
//! under a [`policy::CleaningPolicy`], with F2FS's zoned and block defaults.
//!
//! It reproduces *trends*, not F2FS's absolute numbers: payloads are size-only,
//! F2FS's own CPU time, the page cache's memory limits, inline data, extent
//! caches, xattrs, multi-head logging variants, discard batching and
//! roll-forward recovery itself are not modelled (docs/conzone.md).
//!
//! - [`config`], [`layout`], [`storage`]: parameters, on-device layout, devices.
//! - [`sit`], [`nat`], [`inode`], [`logs`]: the tables and the logs.
//! - [`fs`]: the write paths; [`gc`]: cleaning; [`checkpoint`]: checkpoints.
//! - [`policy`]: when to clean; [`sim`]: actors in virtual time;
//!   [`invariants`]: what must always hold; [`stats`]: what it did.

pub mod checkpoint;
pub mod config;
pub mod error;
pub mod fs;
pub mod gc;
pub mod inode;
pub mod invariants;
pub mod io;
pub mod layout;
pub mod logs;
pub mod nat;
pub mod policy;
pub mod sim;
pub mod sit;
pub mod stats;
pub mod storage;

pub use config::{FsConfig, FsMode};
pub use error::FsError;
pub use fs::F2fs;
pub use policy::{CleaningPolicy, F2fsBlock, F2fsZoned};
pub use sim::{FsSim, HostCosts, JobResult, Sample, SimOptions};
pub use stats::FsStats;
pub use storage::{Area, ConZonePlusStorage, FsStorage, SingleBlockStorage, SplitStorage};
