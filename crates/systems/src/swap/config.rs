//! Parameters of the memory model and of the zone back ends, each default with its
//! source. CPU costs are configurable so that, as on real systems, the swap device
//! dominates a memory-pressure run.

use super::error::{bad_config, SwapError};
use super::host::HostCosts;
use zonelab_engine::Ns;

/// The memory model: cgroup limit, reclaim, faults, CPU costs.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryConfig {
    /// cgroup `memory.max` in 4 KiB pages (ZNSage Table 2: 2 GB; experiments scale it).
    pub limit_pages: u32,
    /// CPU cores; thread `t` runs on core `t mod cores` (ZNSage Table 2: 8 cores).
    pub cores: u32,
    /// Pages reclaimed per LRU scan (Linux `SWAP_CLUSTER_MAX` = 32, mm/vmscan.c).
    pub reclaim_batch_pages: u32,
    /// Pages that may be under swap-out writeback at once before reclaimers wait
    /// (assumption: one reclaim batch per thread of a 16-thread run = 512).
    pub max_writeback_pages: u32,
    /// Swap readahead window exponent: at most 2^page_cluster slots (Linux
    /// `vm.page-cluster` default 3), adapted to readahead hits as Linux does.
    pub page_cluster: u32,
    /// Touching a resident page (assumption: 100 ns, a cache-missing store + loop).
    pub access_ns: Ns,
    /// A minor fault: page found in the swap cache (assumption: 1 µs).
    pub minor_fault_ns: Ns,
    /// CPU of a major fault besides the device read (assumption: 5 µs of swap-in path).
    pub major_fault_cpu_ns: Ns,
    /// First touch of an anonymous page: fault + clearing 4 KiB (assumption: 1 µs).
    pub zero_fill_ns: Ns,
    /// Reclaim CPU per page swapped out: unmap, swap-cache add (assumption: 1 µs).
    pub reclaim_cpu_per_page_ns: Ns,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            limit_pages: 16_384,
            cores: 8,
            reclaim_batch_pages: 32,
            max_writeback_pages: 512,
            page_cluster: 3,
            access_ns: 100,
            minor_fault_ns: 1_000,
            major_fault_cpu_ns: 5_000,
            zero_fill_ns: 1_000,
            reclaim_cpu_per_page_ns: 1_000,
        }
    }
}

impl MemoryConfig {
    pub fn validate(&self) -> Result<(), SwapError> {
        if self.limit_pages < 2 * self.reclaim_batch_pages.max(1) {
            return Err(bad_config(
                "memory.limit_pages",
                self.limit_pages,
                "at least 2 x reclaim_batch_pages",
            ));
        }
        if !(1..=256).contains(&self.cores) {
            return Err(bad_config("memory.cores", self.cores, "1..=256"));
        }
        if !(1..=1024).contains(&self.reclaim_batch_pages) {
            return Err(bad_config(
                "memory.reclaim_batch_pages",
                self.reclaim_batch_pages,
                "1..=1024",
            ));
        }
        if self.max_writeback_pages < self.reclaim_batch_pages
            || self.max_writeback_pages >= self.limit_pages
        {
            return Err(bad_config(
                "memory.max_writeback_pages",
                self.max_writeback_pages,
                "reclaim_batch_pages..limit_pages",
            ));
        }
        if self.page_cluster > 5 {
            return Err(bad_config(
                "memory.page_cluster",
                self.page_cluster,
                "0..=5",
            ));
        }
        Ok(())
    }
}

/// Zone back ends (ZNSwap, ZNSage).
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneSwapConfig {
    /// Share of the zones' capacity held back from swap slots (ZNSage §5.1: "the
    /// same 12% over-provisioning ratio as assumed by ZNSwap").
    pub over_provisioning: f64,
    /// Background GC starts when free zones drop below this; None = ZNSwap's
    /// default, max(2, ceil(zones / 50)) (`mm/swapfile.c`, zns swap init).
    pub gc_low_free_zones: Option<u32>,
    /// ... and runs until this many zones are free; None = ZNSwap's default,
    /// max(low + 2, ceil(zones / 25)).
    pub gc_high_free_zones: Option<u32>,
    /// Per-core zones (ZNSage §4.3 per-core policy); the memory model's cores.
    pub cores: u32,
    /// Zones of the device used for swap (from the first); None = all.
    pub zones: Option<u32>,
    /// Write real 4 KiB payloads carrying each page's tag (tests).
    pub payloads: bool,
    /// Host CPU costs of the block path and of GC's page-table updates.
    pub host: HostCosts,
}

impl Default for ZoneSwapConfig {
    fn default() -> Self {
        Self {
            over_provisioning: 0.12,
            gc_low_free_zones: None,
            gc_high_free_zones: None,
            cores: 8,
            zones: None,
            payloads: false,
            host: HostCosts::default(),
        }
    }
}

/// Resolved zone-swap sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneSwapSizes {
    pub zones: u32,
    pub gc_low_free_zones: u32,
    pub gc_high_free_zones: u32,
}

impl ZoneSwapConfig {
    /// Checks the config against a device of `device_zones` zones and resolves the
    /// zone count and watermarks.
    pub fn validate(&self, device_zones: u32) -> Result<ZoneSwapSizes, SwapError> {
        if !(self.over_provisioning.is_finite() && (0.0..0.9).contains(&self.over_provisioning)) {
            return Err(bad_config(
                "zone_swap.over_provisioning",
                self.over_provisioning,
                "0.0..0.9",
            ));
        }
        if !(1..=256).contains(&self.cores) {
            return Err(bad_config("zone_swap.cores", self.cores, "1..=256"));
        }
        self.host.validate()?;
        let zones = self.zones.unwrap_or(device_zones);
        if zones > device_zones || zones == 0 {
            return Err(bad_config(
                "zone_swap.zones",
                zones,
                &format!("1..={device_zones} (the device's zones)"),
            ));
        }
        let low = self
            .gc_low_free_zones
            .unwrap_or_else(|| zones.div_ceil(ZNSWAP_LOW_WMARK_DIVISOR).max(2));
        if low < 2 {
            return Err(bad_config(
                "zone_swap.gc_low_free_zones",
                low,
                "at least 2 (one zone is the GC's reserve)",
            ));
        }
        let high = self
            .gc_high_free_zones
            .unwrap_or_else(|| zones.div_ceil(ZNSWAP_HIGH_WMARK_DIVISOR).max(low + 2));
        if high <= low {
            return Err(bad_config(
                "zone_swap.gc_high_free_zones",
                high,
                "more than gc_low_free_zones",
            ));
        }
        let needed = self.cores + 1 + high + 2;
        if zones < needed {
            return Err(bad_config(
                "zone_swap.zones",
                zones,
                &format!(
                    "at least {needed} (one open zone per core, a GC zone, the high watermark and 2 to collect)"
                ),
            ));
        }
        Ok(ZoneSwapSizes {
            zones,
            gc_low_free_zones: low,
            gc_high_free_zones: high,
        })
    }
}

/// ZNSwap's default low watermark: zones / 50 (`mm/swapfile.c`: `DIV_ROUND_UP(num_zones, 50)`).
const ZNSWAP_LOW_WMARK_DIVISOR: u32 = 50;
/// ZNSwap's default high watermark: zones / 25 (`DIV_ROUND_UP(num_zones, 25)`).
const ZNSWAP_HIGH_WMARK_DIVISOR: u32 = 25;

/// Valid pages swap-zone GC moves per step: ZNSwap's 4 MiB GC buffer
/// (`include/linux/swap.h`: `ZNS_GC_BYTES` = 2^10 pages), which ZNSage inherits.
pub const GC_CHUNK_PAGES: u32 = 1024;
