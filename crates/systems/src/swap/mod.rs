//! Swap on zoned and conventional SSDs (the ZNSage paper, `papers/znsage.txt`):
//! a memory model with a cgroup-style limit that swaps anonymous pages out to one
//! of three back ends, and the workloads of the paper's evaluation (§5).
//!
//! - [`config`]: the memory model's parameters (limit, CPU costs, reclaim batch,
//!   readahead) and the zone back ends' parameters (over-provisioning, watermarks).
//! - [`memory`] + [`lru`] + [`sim`]: processes' anonymous pages, LRU reclaim in
//!   batches of adjacent pages, page faults with swap readahead, threads in virtual
//!   time, a background swap-zone GC actor.
//! - [`backend`]: the [`SwapBackend`] trait every back end implements.
//! - [`host`]: host CPU costs of the block layer (per request, per page, the
//!   I/O scheduler's lock) and of GC's page-table updates, and the CPU cores.
//! - [`conventional_ssd`]: a linear swap area on the `ftl-ssd` model (Linux's
//!   per-CPU 1 MiB slot clusters, discard of whole free clusters only).
//! - [`zone_swap`]: zone management shared by ZNSwap and ZNSage (per-core zones,
//!   valid counts, reverse map, greedy swap-zone GC with low/high free-zone
//!   watermarks, 12% over-provisioning).
//! - [`znswap`]: ZNSwap (Bergman et al., ATC '22): zone append, reverse map in
//!   per-LBA metadata (needs >= 24 B), no page-table update during GC.
//! - [`znsage`]: ZNSage (§4): reverse map in host memory, per-zone bio lists
//!   batched to the write unit (§4.3), page-table update during GC (§4.4).
//! - [`setup`]: the resized devices of a run, from profiles.
//! - [`workloads`]: vm-scalability `case-anon-w-rand-mt` and a Memcached-like KV
//!   cache driven by the YCSB generators (§5.2, §5.3).

pub mod backend;
pub mod config;
pub mod conventional_ssd;
pub mod error;
pub mod host;
pub mod lru;
pub mod memory;
pub mod setup;
pub mod sim;
pub mod workloads;
pub mod znsage;
pub mod znswap;
pub mod zone_swap;

pub use backend::{BackendStats, GcMove, IoEvents, PageTag, SwapBackend};
pub use config::{MemoryConfig, ZoneSwapConfig};
pub use error::SwapError;
pub use host::{HostCosts, HostStats};
pub use sim::{SwapRunStats, SwapSim};

/// Index of an anonymous page over all processes of a run.
pub type PageId = u32;
/// A swap slot: a 4 KiB place in the back end's swap space.
pub type Slot = u32;
/// "No slot" / "no page".
pub const NONE: u32 = u32::MAX;
/// Page size of the swap subsystem (x86-64 base pages, ZNSage §3.2: "4 KB page size").
pub const PAGE_BYTES: u64 = 4096;
/// Reverse-map entry per swap slot (ZNSage §3.2 and ZNSwap: 24 bytes per page).
pub const RMAP_ENTRY_BYTES: u64 = 24;
