//! ConZone+ (Yu et al., "ConZone+: Practical Zoned Flash Storage Emulation for
//! Consumer Devices"): a consumer-grade zoned flash device — small shared write
//! buffers, an SLC secondary buffer, hybrid L2P mapping with a small L2P cache,
//! composite GC, per-chip FIFO queues — and the block-interface device of the same
//! hardware used for comparison ("ConZone – Block Device", §6.1).
//!
//! - [`config`]: the profile, its validation and the derived geometry.
//! - [`hardware`]: chips, channels, host link, queue depth (Table 2 latencies).
//! - [`chip_queue`]: per-chip command queues, FIFO or user-first (§4.2).
//! - [`write_buffer`]: the zoned write buffers and their zone mapping (§3.2).
//! - [`slc`]: SLC superblocks, page allocation, victim selection (§3.4).
//! - [`zone_map`]: the flat mapping table with hybrid granularity (§3.3).
//! - [`l2p_cache`]: the bucketed LRU L2P cache with pinning (§3.3, §6.6).
//! - [`zoned`]: the zoned device (`model = "conzone"`).
//! - [`block`]: the block device (`model = "conzone-block"`).
//! - [`namespaces`]: ConZone+ — a metadata block namespace and a zoned namespace
//!   on one medium (`model = "conzone-plus"`).

pub mod block;
pub mod chip_queue;
pub mod config;
pub mod hardware;
pub mod l2p_cache;
pub mod namespaces;
pub mod slc;
pub mod write_buffer;
pub mod zone_map;
pub mod zoned;

pub use block::ConZoneBlock;
pub use config::ConZoneProfile;
pub use namespaces::ConZonePlus;
pub use zoned::ConZone;
