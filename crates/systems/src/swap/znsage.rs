//! ZNSage (ZNSage §3.2, §4): swap on any ZNS SSD. The reverse map (24 B per slot,
//! §4.1-§4.2: 24 MiB per 4 GiB of swap) lives in host memory, so the device's LBA
//! format does not matter; swap-outs are queued on per-zone bio lists and a list is
//! submitted when it reaches the device's write unit or the zone's end (§4.3,
//! Fig. 5). The write unit is the device's: §4.3's 192 KB is what the SK Hynix
//! prototype "processes writes in", i.e. its program unit; on another device ZNSage
//! uses that device's preferred write granularity (NVMe NPWG; the ZN540's program
//! unit is 96 KiB); swap-zone GC updates the page table while it holds valid pages in
//! memory, so faults on them need no device read (§4.4, Fig. 6) — a switch turns
//! this off for comparison.

use super::config::{ZoneSwapConfig, GC_CHUNK_PAGES};
use super::error::{bad_config, SwapError};
use super::zone_swap::{ZonePolicy, ZoneSwap};
use super::PAGE_BYTES;
use zonelab_devices::Device;

/// ZNSage's own options.
#[derive(Debug, Clone, PartialEq)]
pub struct ZnsageOptions {
    /// Bio-list size at which a zone's list is submitted; None = the device's
    /// preferred write granularity (§4.3: 192 KB on the SK Hynix prototype).
    pub write_unit_bytes: Option<u64>,
    /// Update page tables while GC holds valid pages in memory (§4.4).
    pub gc_page_table_update: bool,
}

impl Default for ZnsageOptions {
    fn default() -> Self {
        Self {
            write_unit_bytes: None,
            gc_page_table_update: true,
        }
    }
}

/// Builds ZNSage on `dev`.
pub fn znsage(
    dev: Box<dyn Device>,
    cfg: ZoneSwapConfig,
    opts: &ZnsageOptions,
) -> Result<ZoneSwap, SwapError> {
    let unit_bytes = opts
        .write_unit_bytes
        .unwrap_or_else(|| dev.preferred_write_bytes().max(PAGE_BYTES));
    if unit_bytes == 0 || !unit_bytes.is_multiple_of(PAGE_BYTES) {
        return Err(bad_config(
            "znsage.write_unit_bytes",
            unit_bytes,
            "a positive multiple of 4096",
        ));
    }
    let unit_pages = (unit_bytes / PAGE_BYTES).min(u32::MAX as u64) as u32;
    ZoneSwap::new(
        dev,
        cfg,
        ZonePolicy {
            name: "znsage",
            write_unit_pages: Some(unit_pages),
            use_append: false,
            metadata_on_device: false,
            gc_page_table_update: opts.gc_page_table_update,
            // ZNSage extends ZNSwap's swap-zone structures and GC (§4.2), so it
            // keeps its 4 MiB GC buffer.
            gc_chunk_pages: GC_CHUNK_PAGES,
        },
    )
}
